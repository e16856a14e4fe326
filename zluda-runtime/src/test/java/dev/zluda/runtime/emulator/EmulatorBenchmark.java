package dev.zluda.runtime.emulator;

import java.util.List;
import java.util.Locale;

/**
 * Emulator throughput on the sample kernels (samples/src/main/ptx) at the samples' default sizes, or
 * on the named {@link EmulatorWorkloads} (also {@code alu}, {@code memory}, {@code shared}):
 * thread-instructions per second (executed instructions × active lanes), after warm-up launches,
 * per second of wall-clock time and per second of CPU time of the process (the latter does not
 * depend on what else the machine runs; times the number of cores it is what they deliver when
 * the machine is otherwise idle).
 * A plain-main harness, quicker than {@link EmulatorJmh}; not a unit test; run it as docs/benchmarks.md says:
 * {@code java -cp ... dev.zluda.runtime.emulator.EmulatorBenchmark [threads] [rounds] [kernel...]}.
 */
public final class EmulatorBenchmark {
    /** What runs when no kernel is named: the five sample kernels. */
    private static final List<String> SAMPLES = List.of("vectorAdd", "matrixMul", "reduction", "histogram", "scan");

    /** CPU time of the whole process, nanoseconds. */
    private static long cpu() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : Emulator.configuredThreads();
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        List<String> only = args.length > 2 ? List.of(args).subList(2, args.length) : List.of();
        EmulatorWorkloads workloads = new EmulatorWorkloads();
        Emulator emu = new Emulator(threads);
        System.out.printf(Locale.ROOT, "threads=%d rounds=%d (after %d warm-up launches)%n", threads, rounds, rounds);
        long totalInstr = 0;
        double totalSec = 0, totalCpu = 0;
        for (String name : only.isEmpty() ? SAMPLES : only) {
            EmulatorWorkloads.Workload c = workloads.create(name);
            for (int i = 0; i < rounds; i++) c.launch(emu);
            if (c.check() != null) c.check().run();
            double best = Double.MAX_VALUE;
            long cpu0 = cpu();
            long instr = 0, t0 = System.nanoTime();
            for (int i = 0; i < rounds; i++) {
                long s = System.nanoTime();
                LaunchResult r = c.launch(emu);
                best = Math.min(best, (System.nanoTime() - s) / 1e9);
                instr = r.threadInstructions();
            }
            double mean = (System.nanoTime() - t0) / 1e9 / rounds;
            double cpuMean = (cpu() - cpu0) / 1e9 / rounds;
            totalInstr += instr;
            totalSec += mean;
            totalCpu += cpuMean;
            System.out.printf(Locale.ROOT, "%-10s %,13d thread-instructions  mean %8.2f ms  %7.1f M/s (best %7.1f M/s)  %7.1f M per CPU-second%n", c.name(), instr,
                    mean * 1e3, instr / mean / 1e6, instr / best / 1e6, instr / cpuMean / 1e6);
        }
        System.out.printf(Locale.ROOT, "all        %,13d thread-instructions  %8.2f ms  %7.1f M/s                      %7.1f M per CPU-second%n", totalInstr,
                totalSec * 1e3, totalInstr / totalSec / 1e6, totalInstr / totalCpu / 1e6);
        System.exit(0);
    }
}
