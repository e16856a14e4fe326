package dev.zluda.ptx.bench;

import dev.zluda.ptx.ParseResult;
import dev.zluda.ptx.Ptx;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Parse + AST of a synthetic module (corpus functions repeated under new names, as
 * {@link PtxParseBenchmark} builds it), one thread, both paths in the same run: {@code fast}
 * ({@link Ptx#parse}) and the baseline {@code antlr} ({@link Ptx#parseWithAntlrOnly}). Prints per
 * round the wall-clock and thread-CPU throughput in MB/s (1 MB = 10^6 characters = bytes of the
 * file) and the heap the result retains after a full GC, as a multiple of the file size. Run it
 * with {@code -Xmx} set to ten times the file size to show the bound holds.
 *
 * <p>Usage: {@code PtxParseBench [sizeMiB=50] [rounds=5] [corpusDir] [paths=fast,antlr]}; see
 * docs/benchmarks.md.
 */
public final class PtxParseBench {
    private PtxParseBench() {}

    /** Entry point; see the class comment for the arguments. */
    public static void main(String[] args) throws Exception {
        int mb = args.length > 0 ? Integer.parseInt(args[0]) : 50;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        Path dir = Path.of(args.length > 2 ? args[2] : "ptx/src/test/resources/corpus");
        if (!Files.isDirectory(dir)) dir = Path.of("src/test/resources/corpus");
        String[] paths = (args.length > 3 ? args[3] : "fast,antlr").split(",");
        String text = synthetic(dir, mb);
        double size = text.length() / 1e6;
        var mx = ManagementFactory.getThreadMXBean();
        Runtime rt = Runtime.getRuntime();
        System.out.printf("module: %.1f MB, %d lines; max heap %.0f MB%n", size, text.chars().filter(c -> c == '\n').count(), rt.maxMemory() / 1e6);
        for (int r = 1; r <= rounds; r++) {
            for (String path : paths) {
                System.gc();
                long before = rt.totalMemory() - rt.freeMemory();
                long c0 = mx.getCurrentThreadCpuTime(), t0 = System.nanoTime();
                ParseResult res = path.equals("fast") ? Ptx.parse(text, "synthetic") : Ptx.parseWithAntlrOnly(text, "synthetic");
                long t1 = System.nanoTime(), c1 = mx.getCurrentThreadCpuTime();
                if (!res.ok()) throw new IllegalStateException(res.diagnostics().toString());
                System.gc();
                long after = rt.totalMemory() - rt.freeMemory();
                System.out.printf("round %d %-5s: %6.2f s = %5.1f MB/s wall clock, %5.1f MB/s of thread CPU; AST retains %.0f MB = %.1f x file size%n",
                        r, path, (t1 - t0) / 1e9, size / ((t1 - t0) / 1e9), size / ((c1 - c0) / 1e9),
                        (after - before) / 1e6, (after - before) / 1e6 / size);
                res = null;
            }
        }
    }

    /**
     * A synthetic PTX module of at least {@code mb} MiB: the header of {@code dir}'s double_math.sm_90.ptx, then its
     * functions again and again, renamed (dm0, fm0, tr0, dm1, …) so that every name stays unique.
     */
    static String synthetic(Path dir, int mb) throws IOException {
        String base = Ptx.readPtx(dir.resolve("double_math.sm_90.ptx"));
        int cut = base.indexOf(".address_size 64") + ".address_size 64".length();
        StringBuilder sb = new StringBuilder(mb * 1_048_576 + base.length()).append(base, 0, cut);
        String body = base.substring(cut);
        for (int i = 0; sb.length() < mb * 1_048_576; i++) {
            sb.append(body.replace("_Z11double_mathPKdPdPxi", "dm" + i).replace("_Z10float_mathPKfPfPji", "fm" + i)
                    .replace("__internal_trig_reduction_slowpathd", "tr" + i));
        }
        return sb.toString();
    }
}
