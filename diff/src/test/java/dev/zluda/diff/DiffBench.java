package dev.zluda.diff;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The alignment benchmark of docs/benchmarks.md: writes two captures of N calls with four planted
 * divergences ({@link ScaleTest#write}) into DIR (once; kept for later runs), then diffs them
 * ROUNDS times in this JVM and prints the seconds of each round (the first includes loading the
 * API spec and the JIT's warm-up, as a fresh {@code zluda diff} does).
 * {@code -Dzluda.diff.timing=true} adds the phases.
 *
 * <p>Usage: {@code DiffBench DIR [N=1000000] [ROUNDS=3]}
 */
public final class DiffBench {
    private DiffBench() {}

    /** Runs the benchmark. */
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        Path a = dir.resolve("a"), b = dir.resolve("b");
        if (!Files.exists(a.resolve("capture.zcap")) || !Files.exists(b.resolve("capture.zcap"))) {
            long t0 = System.nanoTime();
            ScaleTest.write(a, b, n);
            System.out.printf("wrote two captures of %,d calls in %.1f s%n", n, (System.nanoTime() - t0) / 1e9);
        }
        for (int i = 0; i < rounds; i++) {
            long t0 = System.nanoTime();
            DiffResult r = DiffEngine.diff(a, b, DiffOptions.defaults());
            double s = (System.nanoTime() - t0) / 1e9;
            Runtime rt = Runtime.getRuntime();
            System.out.printf("round %d: %,d + %,d calls, %d diverging, %.2f s, heap in use %d MiB%n", i + 1, r.a().calls(), r.b().calls(),
                    r.divergingCalls(), s, (rt.totalMemory() - rt.freeMemory()) >> 20);
        }
    }
}
