package dev.zluda.runtime.emulator;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;

/**
 * The emulator against plain C, in one JMH run: SAXPY over 2^24 floats, tiled 512 x 512 x 512 SGEMM with shared
 * memory and a warp-shuffle reduction of 2^24 ints ({@link EmulatorWorkloads#versusC}), each on the interpreter
 * ({@code engine=interp}), on kernels compiled to bytecode ({@code engine=jit}) and as the plain C of the same
 * algorithm ({@code engine=c}: zluda-runtime/src/test/c/emu_bench.c, built with gcc -O2 -mfma into
 * {@code target/native/tests/libemubench.so}, called through the FFM API on the same buffers). One JMH operation is
 * one launch (or one C call); every engine runs on one host thread, the emulator with {@code new Emulator(1, ...)}.
 * The setup runs each engine once and checks its output against the workload's model, so all three compute the same
 * bits. Secondary result {@code cpuMs}: CPU milliseconds of the benchmark thread per operation (what it costs
 * whatever else the machine runs). Run as docs/benchmarks.md ("Emulator against plain C") says; {@link #main} prints
 * the table with the ratios to C.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "--enable-native-access=ALL-UNNAMED"})
public class EmulatorVsC {
    /** The workload: see {@link EmulatorWorkloads#VERSUS_C}. */
    @Param({"saxpy", "sgemm", "shflReduce"})
    public String workload;

    /** Who runs it: {@code c} (the baseline), {@code jit} or {@code interp}. */
    @Param({"c", "jit", "interp"})
    public String engine;

    private EmulatorWorkloads workloads;
    private EmulatorWorkloads.VersusC v;
    private Emulator emulator;
    private Runnable op;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** The plain C library: system property {@code zluda.emubench}, else the build's {@code target/native/tests/libemubench.so}. */
    static Path library() {
        String p = System.getProperty("zluda.emubench");
        if (p != null) return Path.of(p);
        String nat = System.getenv("ZLUDA_TEST_NATIVE");
        if (nat != null) return Path.of(nat, "tests", "libemubench.so");
        Path here = Path.of("zluda-runtime/target/native/tests/libemubench.so");
        return Files.exists(here) ? here : Path.of("target/native/tests/libemubench.so");
    }

    /** Builds the data, runs the engine once and checks the output against the model. */
    @Setup(Level.Trial)
    public void setUp() throws Throwable {
        workloads = new EmulatorWorkloads();
        v = workloads.versusC(workload);
        if (engine.equals("c")) {
            op = plainC(v);
        } else {
            emulator = new Emulator(1, engine.equals("jit"));
            if (emulator.compiles()) {
                Program p = v.work().kernel().program();
                JitCompiler.Result r = p.compiled();
                System.out.println(workload + ": " + (r == null ? "nothing compiled (the interpreter runs every instruction)"
                        : r.regions() + " regions (" + r.compiledOps() + " instructions) lane by lane, " + r.warpRegions() + " warp regions ("
                        + r.warpOps() + " instructions), of " + p.code.length + " instructions compiled"));
            }
            op = () -> {
                v.reset().run();
                v.work().launch(emulator);
            };
        }
        op.run();
        v.work().check().run();
    }

    /** The C function of {@code v}'s algorithm on its buffers. */
    static Runnable plainC(EmulatorWorkloads.VersusC v) {
        Linker linker = Linker.nativeLinker();
        SymbolLookup lib = SymbolLookup.libraryLookup(library(), Arena.global());
        MemorySegment[] b = v.buffers();
        int n = v.n();
        switch (v.work().name()) {
            case "saxpy" -> {
                MethodHandle h = linker.downcallHandle(lib.findOrThrow("emu_saxpy"), FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT,
                        ValueLayout.JAVA_FLOAT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
                float a = v.work().params().get(ValueLayout.JAVA_FLOAT, 24);
                return () -> invoke(() -> { h.invokeExact(n, a, b[0], b[1], b[2]); });
            }
            case "sgemm" -> {
                MethodHandle h = linker.downcallHandle(lib.findOrThrow("emu_sgemm_tiled"), FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT,
                        ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
                return () -> invoke(() -> { h.invokeExact(n, n, n, b[0], b[1], b[2]); });
            }
            default -> {
                MethodHandle h = linker.downcallHandle(lib.findOrThrow("emu_reduce_sum"), FunctionDescriptor.of(ValueLayout.JAVA_INT,
                        ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
                return () -> invoke(() -> b[1].set(ValueLayout.JAVA_INT, 0, (int) h.invokeExact(b[0], n)));
            }
        }
    }

    private interface Call {
        void run() throws Throwable;
    }

    private static void invoke(Call c) {
        try {
            c.run();
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        workloads.close();
    }

    /** CPU nanoseconds of the benchmark thread per iteration, with the operations to divide them by. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Cpu {
        public long cpuNanos;
        public long ops;

        @Setup(Level.Iteration)
        public void reset() {
            cpuNanos = 0;
            ops = 0;
        }
    }

    /** One launch (or one call of the C function). */
    @Benchmark
    public void run(Cpu cpu) {
        long c0 = THREADS.getCurrentThreadCpuTime();
        op.run();
        cpu.cpuNanos += THREADS.getCurrentThreadCpuTime() - c0;
        cpu.ops++;
    }

    /**
     * Runs the benchmarks with JMH's command-line options (e.g. {@code -p workload=sgemm -wi 2 -i 3}) and prints per
     * workload and engine: wall-clock ms per operation (mean ± JMH's 99.9 % error), CPU ms of the thread per
     * operation, and both as multiples of the C figure of the same run.
     */
    public static void main(String[] args) throws Exception {
        CommandLineOptions opts = new CommandLineOptions(args);
        String before = BenchHost.loadAverage();
        long t0 = System.nanoTime();
        // without a benchmark pattern, these benchmarks (not every benchmark on the class path)
        org.openjdk.jmh.runner.options.Options o = opts.getIncludes().isEmpty()
                ? new org.openjdk.jmh.runner.options.OptionsBuilder().parent(opts).include(EmulatorVsC.class.getName() + "\\.").build() : opts;
        Collection<RunResult> results = new Runner(o).run();
        String after = BenchHost.loadAverage();
        System.out.printf(Locale.ROOT, "%nEmulator against plain C (gcc -O2 -mfma), one thread each, %s, JDK %s, %d processors, load average (1/5/15 min) %s before, %s after, %.0f s%n",
                java.time.LocalDate.now(), Runtime.version(), Runtime.getRuntime().availableProcessors(), before, after, (System.nanoTime() - t0) / 1e9);
        System.out.printf(Locale.ROOT, "%-11s %-7s %12s %10s %10s %9s %9s%n", "workload", "engine", "wall ms/op", "± (99.9%)", "CPU ms/op", "wall ÷ C", "CPU ÷ C");
        List<Object[]> rows = new ArrayList<>();
        Map<String, double[]> c = new HashMap<>();
        for (RunResult rr : results) {
            String w = rr.getParams().getParam("workload"), e = rr.getParams().getParam("engine");
            Result<?> cpu = rr.getSecondaryResults().get("cpuNanos"), ops = rr.getSecondaryResults().get("ops");
            double wall = rr.getPrimaryResult().getScore(), err = rr.getPrimaryResult().getScoreError();
            double cpuMs = cpu == null || ops == null ? Double.NaN : cpu.getScore() / ops.getScore() / 1e6;
            rows.add(new Object[] {w, e, wall, err, cpuMs});
            if (e.equals("c")) c.put(w, new double[] {wall, cpuMs});
        }
        for (Object[] r : rows) {
            double[] base = c.getOrDefault((String) r[0], new double[] {Double.NaN, Double.NaN});
            System.out.printf(Locale.ROOT, "%-11s %-7s %12.2f %10.2f %10.2f %8.1fx %8.1fx%n", r[0], r[1], (double) r[2], (double) r[3], (double) r[4],
                    (double) r[2] / base[0], (double) r[4] / base[1]);
        }
    }
}
