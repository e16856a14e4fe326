package dev.zluda.capture.bench;

import dev.zluda.capture.CallAssembler;
import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.convert.ParquetConverter;

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
        Path cap = dir.resolve("parquet-bench.zcap");
        CaptureBench.writeMix(cap, calls, true);
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
