package dev.zluda.runtime.emulator;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Compares two builds of the emulator in one process: the classes on the class path ("this") and
 * the same classes with an older build's emulator classes first ("base", a directory of
 * {@code dev/zluda/runtime/emulator/*.class}), each in a class loader of its own, on one host thread,
 * their launches interleaved so that the load of a shared machine falls on both alike. Prints
 * millions of thread-instructions per CPU-second of the launching thread (and per wall-clock
 * second, best launch) for each, and their ratio. Run as docs/benchmarks.md says:
 * {@code java -cp ... dev.zluda.runtime.emulator.EmulatorAB BASE_DIR [rounds] [kernel...]}.
 */
public final class EmulatorAB {
    private EmulatorAB() {}

    /** Lives in each class loader: the workloads and a 1-thread emulator. */
    public static final class Probe {
        private static final Map<String, EmulatorWorkloads.Workload> WORK = new HashMap<>();
        private static final EmulatorWorkloads WORKLOADS = new EmulatorWorkloads();
        private static final Emulator EMU = new Emulator(1);
        private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

        /** Runs {@code launches} launches; returns {thread-instructions, thread CPU ns, best wall ns of one launch}. */
        public static long[] run(String kernel, int launches) throws Exception {
            EmulatorWorkloads.Workload w = WORK.get(kernel);
            if (w == null) {
                w = WORKLOADS.create(kernel);
                w.launch(EMU);
                if (w.check() != null) w.check().run();
                WORK.put(kernel, w);
            }
            long instr = 0, best = Long.MAX_VALUE;
            long c0 = THREADS.getCurrentThreadCpuTime();
            for (int i = 0; i < launches; i++) {
                long t = System.nanoTime();
                instr += w.launch(EMU).threadInstructions();
                best = Math.min(best, System.nanoTime() - t);
            }
            return new long[] {instr, THREADS.getCurrentThreadCpuTime() - c0, best};
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) throw new IllegalArgumentException("usage: EmulatorAB BASE_CLASSES_DIR [rounds] [kernel...]");
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        List<String> kernels = args.length > 2 ? List.of(args).subList(2, args.length) : List.of("alu", "memory", "shared");
        List<URL> cp = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) cp.add(Path.of(e).toUri().toURL());
        List<URL> baseCp = new ArrayList<>(cp);
        baseCp.addFirst(Path.of(args[0]).toUri().toURL());
        ClassLoader parent = ClassLoader.getPlatformClassLoader();
        Method now = new URLClassLoader(cp.toArray(URL[]::new), parent).loadClass(Probe.class.getName()).getMethod("run", String.class, int.class);
        Method base = new URLClassLoader(baseCp.toArray(URL[]::new), parent).loadClass(Probe.class.getName()).getMethod("run", String.class, int.class);
        System.out.printf(Locale.ROOT, "1 host thread, %d rounds of 2 launches each, interleaved, after %d warm-up launches each%n", rounds, 2 * rounds);
        System.out.printf(Locale.ROOT, "%-10s %22s %22s %8s%n", "kernel", "base M/CPU-s (best/s)", "this M/CPU-s (best/s)", "ratio");
        for (String k : kernels) {
            for (int i = 0; i < rounds; i++) {
                now.invoke(null, k, 2);
                base.invoke(null, k, 2);
            }
            long[] a = new long[3], b = new long[3];
            a[2] = b[2] = Long.MAX_VALUE;
            for (int i = 0; i < rounds; i++) {
                long[] x = (long[]) base.invoke(null, k, 2), y = (long[]) now.invoke(null, k, 2);
                a[0] += x[0];
                a[1] += x[1];
                a[2] = Math.min(a[2], x[2]);
                b[0] += y[0];
                b[1] += y[1];
                b[2] = Math.min(b[2], y[2]);
            }
            double ra = a[0] / (a[1] / 1e9) / 1e6, rb = b[0] / (b[1] / 1e9) / 1e6;
            double perLaunch = a[0] / (2.0 * rounds);
            System.out.printf(Locale.ROOT, "%-10s %10.1f (%7.1f) %12.1f (%7.1f) %7.2fx%n", k, ra, perLaunch / (a[2] / 1e9) / 1e6, rb,
                    perLaunch / (b[2] / 1e9) / 1e6, rb / ra);
        }
        System.exit(0);
    }
}
