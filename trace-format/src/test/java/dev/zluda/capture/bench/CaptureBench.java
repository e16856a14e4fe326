package dev.zluda.capture.bench;

import dev.zluda.capture.CallAssembler;
import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureReader;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.CaptureWriter;
import dev.zluda.capture.DataItems;
import dev.zluda.capture.FunctionDef;
import dev.zluda.capture.ThreadLog;
import dev.zluda.capture.convert.Converters;
import dev.zluda.spec.CudaApi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Bytes per call and read/convert speed (not JMH: these are sizes and one-shot passes over a large
 * file). {@code CaptureBench DIR [CALLS]} writes DIR/bench.zcap with CALLS calls (default 10
 * million: alternating cuCtxGetCurrent and cuLaunchKernel with realistic pointer values), then
 * reads it back, assembles calls, and converts 1/10 of it to JSON Lines.
 */
public final class CaptureBench {
    public static void main(String[] a) throws Exception {
        Path dir = Path.of(a.length > 0 ? a[0] : System.getProperty("java.io.tmpdir"));
        long calls = a.length > 1 ? Long.parseLong(a[1]) : 10_000_000L;
        CudaApi api = CudaApi.get();
        int ctx = api.function("cuCtxGetCurrent").orElseThrow().id();
        int launch = api.function("cuLaunchKernel").orElseThrow().id();
        for (String kind : new String[] {"cuCtxGetCurrent", "cuLaunchKernel"}) {
            Path f = dir.resolve("size.zcap");
            long n = 200_000;
            CaptureWriter.Options o = CaptureWriter.Options.defaults();
            try (CaptureWriter w = CaptureWriter.create(f, o, FunctionDef.fromSpec(api))) {
                ThreadLog t = w.currentThread();
                DataItems d = new DataItems();
                long ts = System.nanoTime();
                for (long i = 0; i < n; i++) {
                    if (kind.equals("cuCtxGetCurrent")) {
                        long e = t.enter(ctx, 0, ts += 35 + (i % 7), new long[] {0x7ffd12345670L}, null);
                        t.leave(e, ts += 15 + (i % 5), 0, d.clear().inlineLong(0, 0x55d0c0a80000L));
                    } else {
                        long e = t.enter(launch, 0, ts += 3800 + (i % 97), new long[] {0x55d0c0a81230L + 16 * (i % 4), 64, 1, 1, 256, 1, 1, 0, 0, 0x7ffd12345700L, 0}, null);
                        t.leave(e, ts += 3700 + (i % 89), 0, null);
                    }
                }
            }
            // exact: the frames (length word, payload, padding) of the ENTER and LEAVE records
            byte[] img = Files.readAllBytes(f);
            long frames = 0;
            try (CaptureReader r = CaptureReader.open(f)) {
                for (CaptureRecord x : r) {
                    if (!(x instanceof CaptureRecord.Enter) && !(x instanceof CaptureRecord.Leave)) continue;
                    int off = (int) x.offset();
                    long len = (img[off] & 0xFFL) | (img[off + 1] & 0xFFL) << 8 | (img[off + 2] & 0xFFL) << 16 | (img[off + 3] & 0xFFL) << 24;
                    frames += 4 + ((len + 3) & ~3L);
                }
            }
            System.out.printf(Locale.ROOT, "%s: %.2f bytes per call in frames, %.2f per call in the whole file (%d calls)%n",
                    kind, frames / (double) n, img.length / (double) n, n);
            Files.delete(f);
        }
        Path big = dir.resolve("bench.zcap");
        long t0 = System.nanoTime();
        writeMix(big, calls, false);
        double wsec = (System.nanoTime() - t0) / 1e9;
        System.out.printf(Locale.ROOT, "wrote %d calls in %.2f s (%.1f M calls/s), %d bytes (%.1f per call)%n", calls, wsec, calls / wsec / 1e6, Files.size(big), Files.size(big) / (double) calls);
        t0 = System.nanoTime();
        long records = 0;
        try (CaptureReader r = CaptureReader.open(big)) {
            for (CaptureRecord x : r) records++;
        }
        double rsec = (System.nanoTime() - t0) / 1e9;
        System.out.printf(Locale.ROOT, "read %d records in %.2f s (%.1f M calls/s)%n", records, rsec, calls / rsec / 1e6);
        t0 = System.nanoTime();
        long[] n = {0};
        try (CaptureReader r = CaptureReader.open(big)) {
            CallAssembler asm = new CallAssembler(c -> n[0]++);
            for (CaptureRecord x : r) asm.accept(x);
            asm.finish();
        }
        double asec = (System.nanoTime() - t0) / 1e9;
        System.out.printf(Locale.ROOT, "read and paired %d calls in %.2f s (%.1f M calls/s)%n", n[0], asec, n[0] / asec / 1e6);
        Files.delete(big);
        // JSON Lines of a 1/10 capture
        Path small = dir.resolve("bench-small.zcap");
        try (CaptureWriter w = CaptureWriter.create(small, CaptureWriter.Options.defaults(), FunctionDef.fromSpec(api))) {
            ThreadLog t = w.currentThread();
            DataItems d = new DataItems();
            long ts = System.nanoTime();
            for (long i = 0; i < calls / 10; i++) {
                long e = t.enter(ctx, 0, ts += 40, new long[] {0x7ffd12345670L}, null);
                t.leave(e, ts += 20, 0, d.clear().inlineLong(0, 0x55d0c0a80000L));
            }
        }
        Path j = dir.resolve("bench.jsonl");
        t0 = System.nanoTime();
        try (Capture c = Capture.open(small)) {
            Converters.jsonl(c, j);
        }
        double jsec = (System.nanoTime() - t0) / 1e9;
        System.out.printf(Locale.ROOT, "converted %d calls to JSON Lines in %.2f s (%.2f M calls/s, %.1f bytes per call)%n",
                calls / 10, jsec, calls / 10 / jsec / 1e6, Files.size(j) / (double) (calls / 10));
        Files.delete(j);
        Files.delete(small);
    }

    /**
     * Writes a capture of {@code calls} calls from one thread, alternating cuCtxGetCurrent (about 60 ns) and
     * cuLaunchKernel (about 7.5 µs) with launch arguments as a real program passes them. With {@code jitter}, the
     * timestamps' steps vary a little from call to call (as in a real capture), else they are constant.
     */
    static void writeMix(Path file, long calls, boolean jitter) throws IOException {
        CudaApi api = CudaApi.get();
        int ctx = api.function("cuCtxGetCurrent").orElseThrow().id();
        int launch = api.function("cuLaunchKernel").orElseThrow().id();
        try (CaptureWriter w = CaptureWriter.create(file, CaptureWriter.Options.defaults(), FunctionDef.fromSpec(api))) {
            ThreadLog t = w.currentThread();
            DataItems d = new DataItems();
            long ts = System.nanoTime();
            long[] ca = {0x7ffd12345670L};
            long[] la = {0x55d0c0a81230L, 64, 1, 1, 256, 1, 1, 0, 0, 0x7ffd12345700L, 0};
            for (long i = 0; i < calls; i++) {
                if ((i & 1) == 0) {
                    long e = t.enter(ctx, 0, ts += 40 + (jitter ? i % 7 : 0), ca, null);
                    t.leave(e, ts += 20 + (jitter ? i % 5 : 0), 0, d.clear().inlineLong(0, 0x55d0c0a80000L));
                } else {
                    la[0] = 0x55d0c0a81230L + 16 * (i % 4);
                    long e = t.enter(launch, 0, ts += 3800 + (jitter ? i % 97 : 0), la, null);
                    t.leave(e, ts += 3700 + (jitter ? i % 89 : 0), 0, null);
                }
            }
        }
    }
}
