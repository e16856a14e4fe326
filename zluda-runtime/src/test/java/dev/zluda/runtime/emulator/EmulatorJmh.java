package dev.zluda.runtime.emulator;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
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
 * JMH throughput of the kernel emulator in thread-instructions per second (one thread-instruction:
 * one executed PTX instruction of one active lane, as {@link LaunchResult#threadInstructions()}
 * counts). One JMH operation is one launch of a {@link EmulatorWorkloads} kernel; the secondary
 * results are {@code threadInstructions} (per second of wall-clock time) and, as totals per
 * iteration, {@code instructions} and {@code cpuNanos} (CPU time of the whole benchmark process
 * during the launches, emulator threads, JIT and GC included), whose ratio is the rate per
 * CPU-second that {@link #main} prints: it does not depend on what else the machine runs.
 *
 * <p>The baseline, measured in the same run, is {@code threads=1}: the same interpreter on one host
 * thread. Run as docs/benchmarks.md ("Kernel emulator") says; {@link #main} takes JMH's command-line
 * options and prints a summary with the load average. Each workload's output is checked against its
 * model once in the setup, after the first launch.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class EmulatorJmh {
    /** The workload: see {@link EmulatorWorkloads#NAMES}. */
    @Param({"alu", "memory", "shared", "vectorAdd", "matrixMul", "reduction", "histogram", "scan"})
    public String kernel;

    /** Host threads of the emulator; 1 is the baseline. */
    @Param({"2", "1"})
    public int threads;

    private EmulatorWorkloads workloads;
    private EmulatorWorkloads.Workload work;
    private Emulator emulator;

    /** Builds the data, launches once and checks the output against the model. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        workloads = new EmulatorWorkloads();
        work = workloads.create(kernel);
        emulator = new Emulator(threads);
        work.launch(emulator);
        if (work.check() != null) work.check().run();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        workloads.close();
    }

    /** Thread-instructions, normalised by JMH to a rate per second of the iteration's wall-clock time. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Rate {
        public long threadInstructions;

        @Setup(Level.Iteration)
        public void reset() {
            threadInstructions = 0;
        }
    }

    /** Totals of the iteration: thread-instructions and CPU nanoseconds of the process. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Cpu {
        public long instructions;
        public long cpuNanos;

        @Setup(Level.Iteration)
        public void reset() {
            instructions = 0;
            cpuNanos = 0;
        }
    }

    private static long processCpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** One launch of the kernel. */
    @Benchmark
    public LaunchResult launch(Rate rate, Cpu cpu) {
        long c0 = processCpu();
        LaunchResult r = work.launch(emulator);
        cpu.cpuNanos += processCpu() - c0;
        rate.threadInstructions += r.threadInstructions();
        cpu.instructions += r.threadInstructions();
        return r;
    }

    /**
     * Runs the benchmarks with JMH's command-line options (e.g. {@code -p kernel=alu -wi 2 -i 3})
     * and prints, per kernel and thread count: millions of thread-instructions per second of wall-clock
     * time (mean ± JMH's 99.9 % error), per CPU-second, and the ratio to the 1-thread baseline.
     */
    public static void main(String[] args) throws Exception {
        CommandLineOptions opts = new CommandLineOptions(args);
        String before = BenchHost.loadAverage();
        long t0 = System.nanoTime();
        Collection<RunResult> results = new Runner(opts).run();
        String after = BenchHost.loadAverage();
        System.out.printf(Locale.ROOT, "%nEmulator throughput, %s, JDK %s, %d processors, load average (1/5/15 min) %s before, %s after, %.0f s%n",
                java.time.LocalDate.now(), Runtime.version(), Runtime.getRuntime().availableProcessors(), before, after, (System.nanoTime() - t0) / 1e9);
        System.out.printf(Locale.ROOT, "%-10s %7s %14s %10s %16s %12s%n", "kernel", "threads", "M thr-instr/s", "± (99.9%)", "M per CPU-second", "vs 1 thread");
        List<String[]> rows = new ArrayList<>();
        for (RunResult rr : results) {
            String k = rr.getParams().getParam("kernel");
            String t = rr.getParams().getParam("threads");
            Result<?> rate = rr.getSecondaryResults().get("threadInstructions");
            Result<?> instr = rr.getSecondaryResults().get("instructions");
            Result<?> cpu = rr.getSecondaryResults().get("cpuNanos");
            if (rate == null || instr == null || cpu == null) continue;
            double perCpu = instr.getScore() / cpu.getScore() * 1e9;
            rows.add(new String[] {k, t, Double.toString(rate.getScore()), Double.toString(rate.getScoreError()), Double.toString(perCpu)});
        }
        for (String[] r : rows) {
            double base = Double.NaN;
            for (String[] o : rows) if (o[0].equals(r[0]) && o[1].equals("1")) base = Double.parseDouble(o[2]);
            double v = Double.parseDouble(r[2]);
            System.out.printf(Locale.ROOT, "%-10s %7s %14.1f %10.1f %16.1f %11.2fx%n", r[0], r[1], v / 1e6, Double.parseDouble(r[3]) / 1e6,
                    Double.parseDouble(r[4]) / 1e6, v / base);
        }
    }
}
