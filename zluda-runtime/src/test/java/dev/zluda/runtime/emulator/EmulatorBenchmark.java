package dev.zluda.runtime.emulator;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Emulator throughput on the sample kernels (samples/src/main/ptx) at the samples' default sizes:
 * thread-instructions per second (executed instructions × active lanes), after warm-up launches,
 * per second of wall-clock time and per second of CPU time of the process (the latter does not
 * depend on what else the machine runs; times the number of cores it is what they deliver when
 * the machine is otherwise idle).
 * Not a unit test; run it as docs/benchmarks.md says:
 * {@code java -cp ... dev.zluda.runtime.emulator.EmulatorBenchmark [threads] [rounds] [kernel...]}.
 */
public final class EmulatorBenchmark {
    private final Arena arena = Arena.ofShared();
    private final List<MemorySegment> buffers = new ArrayList<>();
    private final MemoryMap map = (address, out) -> {
        for (MemorySegment s : buffers) {
            if (address >= s.address() && address < s.address() + s.byteSize()) {
                out[0] = s.address();
                out[1] = s.byteSize();
                return true;
            }
        }
        return false;
    };

    private MemorySegment buffer(long bytes) {
        MemorySegment s = arena.allocate(bytes, 256);
        buffers.add(s);
        return s;
    }

    private Kernel kernel(String sample, String name) throws Exception {
        Path repo = Path.of(System.getProperty("zluda.repo", ".."));
        if (!Files.isDirectory(repo.resolve("samples"))) repo = Path.of(".");
        String text = Files.readString(repo.resolve("samples/src/main/ptx/" + sample + ".ptx"));
        EmulatorModule m = EmulatorModule.load(text, sample + ".ptx", new EmulatorModule.Allocator() {
            public long allocate(String n, long size, long align) {
                return buffer(size).address();
            }

            public void free(long address) {}
        });
        return m.kernels().get(name);
    }

    private record Case(String name, Kernel kernel, int[] grid, int[] block, int shared, MemorySegment params) {}

    private static MemorySegment params(Arena a, Object... values) {
        MemorySegment p = a.allocate(8L * values.length, 8);
        long off = 0;
        for (Object v : values) {
            if (v instanceof Long l) {
                off = (off + 7) / 8 * 8;
                p.set(ValueLayout.JAVA_LONG, off, l);
                off += 8;
            } else {
                p.set(ValueLayout.JAVA_INT, off, (Integer) v);
                off += 4;
            }
        }
        return p;
    }

    private List<Case> cases() throws Exception {
        List<Case> out = new ArrayList<>();
        int n = 1 << 20;
        MemorySegment a = buffer(4L * n), b = buffer(4L * n), c = buffer(4L * n);
        for (int i = 0; i < n; i++) {
            a.setAtIndex(ValueLayout.JAVA_FLOAT, i, i * 0.5f);
            b.setAtIndex(ValueLayout.JAVA_FLOAT, i, 1 - i);
        }
        out.add(new Case("vectorAdd", kernel("vectorAdd", "vectorAdd"), new int[] {n / 256, 1, 1}, new int[] {256, 1, 1}, 0,
                params(arena, a.address(), b.address(), c.address(), n)));
        int m = 256;
        out.add(new Case("matrixMul", kernel("matrixMul", "matrixMul"), new int[] {m / 16, m / 16, 1}, new int[] {16, 16, 1}, 0,
                params(arena, a.address(), b.address(), c.address(), m, m, m)));
        MemorySegment ints = buffer(4L * n), sum = buffer(8);
        for (int i = 0; i < n; i++) ints.setAtIndex(ValueLayout.JAVA_INT, i, i % 101 - 50);
        out.add(new Case("reduction", kernel("reduction", "reduceSum"), new int[] {1024, 1, 1}, new int[] {256, 1, 1}, 0,
                params(arena, ints.address(), sum.address(), n)));
        MemorySegment bytes = buffer(n), bins = buffer(1024);
        for (int i = 0; i < n; i++) bytes.set(ValueLayout.JAVA_BYTE, i, (byte) (i % 4 == 0 ? 'A' : i * 7 % 240));
        out.add(new Case("histogram", kernel("histogram", "histogram256"), new int[] {240, 1, 1}, new int[] {256, 1, 1}, 0,
                params(arena, bytes.address(), bins.address(), n)));
        MemorySegment scanOut = buffer(4L * n), totals = buffer(4L * (n / 512));
        out.add(new Case("scan", kernel("scan", "scanBlocks"), new int[] {n / 512, 1, 1}, new int[] {512, 1, 1}, 2048,
                params(arena, ints.address(), scanOut.address(), totals.address(), n)));
        return out;
    }

    /** CPU time of the whole process, nanoseconds. */
    private static long cpu() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : Emulator.configuredThreads();
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        List<String> only = args.length > 2 ? List.of(args).subList(2, args.length) : List.of();
        EmulatorBenchmark bench = new EmulatorBenchmark();
        Emulator emu = new Emulator(threads);
        System.out.printf(Locale.ROOT, "threads=%d rounds=%d (after %d warm-up launches)%n", threads, rounds, rounds);
        long totalInstr = 0;
        double totalSec = 0, totalCpu = 0;
        for (Case c : bench.cases()) {
            if (!only.isEmpty() && !only.contains(c.name())) continue;
            for (int i = 0; i < rounds; i++) emu.launch(c.kernel(), c.grid(), c.block(), c.shared(), c.params(), bench.map, threads);
            double best = Double.MAX_VALUE;
            long cpu0 = cpu();
            long instr = 0, t0 = System.nanoTime();
            for (int i = 0; i < rounds; i++) {
                long s = System.nanoTime();
                LaunchResult r = emu.launch(c.kernel(), c.grid(), c.block(), c.shared(), c.params(), bench.map, threads);
                if (!r.ok()) throw new IllegalStateException(r.message());
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
