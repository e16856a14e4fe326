package dev.zluda.capture.bench;

import dev.zluda.capture.CallAssembler;
import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.CaptureWriter;
import dev.zluda.capture.DataItems;
import dev.zluda.capture.FunctionDef;
import dev.zluda.capture.ThreadLog;
import dev.zluda.capture.convert.ParquetConverter;
import dev.zluda.spec.CudaApi;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * {@code zluda convert --to parquet} speed and size (not JMH: one pass over a large file, like
 * {@link CaptureBench}). {@code ParquetBench DIR [CALLS] [ROUNDS]} writes DIR/parquet-bench.zcap with
 * CALLS calls (default 10 million; the same mix as CaptureBench: alternating cuCtxGetCurrent and
 * cuLaunchKernel from one thread), then ROUNDS times (default 2; the first includes JIT warm-up) reads
 * it and writes the Parquet tables to DIR/parquet-bench/, printing time, CPU, rows and bytes per call;
 * the baseline, in the same run, is reading the capture and pairing its calls without converting.
 */
public final class ParquetBench {
    public static void main(String[] a) throws Exception {
        Path dir = Path.of(a.length > 0 ? a[0] : System.getProperty("java.io.tmpdir"));
        long calls = a.length > 1 ? Long.parseLong(a[1]) : 10_000_000L;
        int rounds = a.length > 2 ? Integer.parseInt(a[2]) : 2;
        CudaApi api = CudaApi.get();
        int ctx = api.function("cuCtxGetCurrent").orElseThrow().id();
        int launch = api.function("cuLaunchKernel").orElseThrow().id();
        Path cap = dir.resolve("parquet-bench.zcap");
        try (CaptureWriter w = CaptureWriter.create(cap, CaptureWriter.Options.defaults(), FunctionDef.fromSpec(api))) {
            ThreadLog t = w.currentThread();
            DataItems d = new DataItems();
            long ts = System.nanoTime();
            long[] ca = {0x7ffd12345670L};
            long[] la = {0x55d0c0a81230L, 64, 1, 1, 256, 1, 1, 0, 0, 0x7ffd12345700L, 0};
            for (long i = 0; i < calls; i++) {
                if ((i & 1) == 0) {
                    long e = t.enter(ctx, 0, ts += 40 + (i % 7), ca, null);
                    t.leave(e, ts += 20 + (i % 5), 0, d.clear().inlineLong(0, 0x55d0c0a80000L));
                } else {
                    la[0] = 0x55d0c0a81230L + 16 * (i % 4);
                    long e = t.enter(launch, 0, ts += 3800 + (i % 97), la, null);
                    t.leave(e, ts += 3700 + (i % 89), 0, null);
                }
            }
        }
        System.out.printf(Locale.ROOT, "capture: %d calls, %d bytes (%.1f per call), %d cores available%n",
                calls, Files.size(cap), Files.size(cap) / (double) calls, Runtime.getRuntime().availableProcessors());
        // baseline in the same run: the reading and pairing every conversion starts with
        for (int r = 1; r <= 2; r++) {
            long t0 = System.nanoTime();
            long[] n = {0};
            try (Capture c = Capture.open(cap)) {
                CallAssembler asm = new CallAssembler(x -> n[0]++);
                for (CaptureRecord x : c.reader()) asm.accept(x);
                asm.finish();
            }
            double sec = (System.nanoTime() - t0) / 1e9;
            System.out.printf(Locale.ROOT, "baseline %d: read and paired %d calls in %.2f s (%.2f M calls/s)%n", r, n[0], sec, n[0] / sec / 1e6);
        }
        Path out = dir.resolve("parquet-bench");
        for (int r = 1; r <= rounds; r++) {
            java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
            var os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
            long c0 = mx.getCurrentThreadCpuTime(), p0 = os.getProcessCpuTime();
            long t0 = System.nanoTime();
            ParquetConverter.Result res;
            try (Capture c = Capture.open(cap)) {
                res = ParquetConverter.write(c, out);
            }
            double sec = (System.nanoTime() - t0) / 1e9;
            double cpu = (mx.getCurrentThreadCpuTime() - c0) / 1e9, pcpu = (os.getProcessCpuTime() - p0) / 1e9;
            long total = 0;
            StringBuilder per = new StringBuilder();
            for (String n : ParquetConverter.TABLES) {
                long s = Files.size(out.resolve(n));
                total += s;
                per.append(String.format(Locale.ROOT, " %s %d", n, s));
            }
            System.out.printf(Locale.ROOT, "round %d: read and converted %d calls (%d argument rows, %d launches) in %.2f s (%.2f M calls/s; CPU %.2f s in the reading thread, %.2f s in the process); %d bytes = %.2f bytes per call;%s%n",
                    r, res.calls(), res.arguments(), res.kernelLaunches(), sec, res.calls() / sec / 1e6, cpu, pcpu, total, total / (double) res.calls(), per);
        }
        for (String n : ParquetConverter.TABLES) Files.deleteIfExists(out.resolve(n));
        Files.deleteIfExists(out);
        Files.delete(cap);
    }
}
