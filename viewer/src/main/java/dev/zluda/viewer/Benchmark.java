package dev.zluda.viewer;

import dev.zluda.diff.CallIndex;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.Locale;

/**
 * {@code zluda view --benchmark}: measures, on a real window, the time from JVM start to the first
 * frame that shows calls of the capture, the time to index the whole capture, the time to jump to
 * the middle of the table, and the heap the loaded viewer holds; prints one line each, then closes
 * the window.
 */
final class Benchmark {
    private Benchmark() {}

    /** Where the CPU time went so far: threads of this JVM (Java and VM threads), JIT, GC. */
    private static void cpuBreakdown(PrintWriter out) {
        var tm = ManagementFactory.getThreadMXBean();
        java.util.List<String> lines = new java.util.ArrayList<>();
        for (var ti : tm.getThreadInfo(tm.getAllThreadIds())) {
            if (ti == null) continue;
            long c = tm.getThreadCpuTime(ti.getThreadId());
            if (c > 50_000_000L) lines.add(String.format(Locale.ROOT, "  %6.2f s  %s", c / 1e9, ti.getThreadName()));
        }
        lines.sort(java.util.Comparator.reverseOrder());
        lines.forEach(out::println);
        out.printf(Locale.ROOT, "  JIT compilation %.2f s; GC", ManagementFactory.getCompilationMXBean().getTotalCompilationTime() / 1e3);
        for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) out.printf(Locale.ROOT, " %s %d×/%d ms", gc.getName(), gc.getCollectionCount(), gc.getCollectionTime());
        out.println();
    }

    /** CPU time of the whole process so far, ns (-1 when the platform does not say). */
    private static long processCpu() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os ? os.getProcessCpuTime() : -1;
    }

    static void attach(ViewerWindow w, long toolkitNanos, PrintWriter out) {
        boolean[] reported = {false};
        Runnable report = () -> {
            if (reported[0] || w.firstRowsPaintedMillis() < 0) return;
            reported[0] = true;
            out.printf(Locale.ROOT, "first paint: %.2f s after JVM start (%,d calls indexed then; JavaFX start took %.2f s; "
                            + "CPU time so far: process %.2f s, FX thread %.2f s)%n",
                    w.firstRowsPaintedMillis() / 1e3, w.rows().size(), toolkitNanos / 1e9, processCpu() / 1e9,
                    ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() / 1e9);
            if (Boolean.getBoolean("zluda.viewer.trace")) cpuBreakdown(out);
            out.flush();
        };
        w.stage().getScene().addPostLayoutPulseListener(report);
        w.whenLoaded(() -> Viewer.afterPulses(2, () -> {
            report.run();
            CallIndex idx = w.index();
            out.printf(Locale.ROOT, "loaded: %,d calls in %.2f s (%.2f s after JVM start; process CPU time %.2f s), %d threads, %,d errors%n",
                    idx.size(), w.loadNanos() / 1e9, Viewer.sinceJvmStartMillis() / 1e3, processCpu() / 1e9, idx.threadCount(), idx.errors());
            out.flush();
            int mid = idx.size() / 2;
            long t0 = System.nanoTime();
            w.select(mid);
            Viewer.afterPulses(1, () -> {
                out.printf(Locale.ROOT, "select call %,d (scroll there, decode, details): %.1f ms to the next frame%n", mid + 1, (System.nanoTime() - t0) / 1e6);
                System.gc();
                MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
                out.printf(Locale.ROOT, "heap after GC: %,d MiB used, %,d MiB max; index columns %,d MiB (%.1f bytes/call)%n",
                        heap.getUsed() >> 20, Runtime.getRuntime().maxMemory() >> 20, idx.columnBytes() >> 20,
                        idx.size() == 0 ? 0.0 : (double) idx.columnBytes() / idx.size());
                out.flush();
                w.stage().close();
            });
        }));
    }
}
