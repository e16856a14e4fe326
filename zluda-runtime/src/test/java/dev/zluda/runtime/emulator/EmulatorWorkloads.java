package dev.zluda.runtime.emulator;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The kernels the emulator's throughput is measured on ({@link EmulatorJmh}, {@link EmulatorBenchmark}),
 * each with its input data, launch shape and a check of its output against a model computed here in
 * Java from the PTX ISA's semantics (so that a benchmark never times a kernel that computes the wrong
 * thing).
 *
 * <p>Three kernels written in PTX for the purpose (test resources {@code dev/zluda/runtime/emulator/bench/}):
 * {@code alu} ({@code aluBound.ptx}: fma.rn.f32 chains and an integer hash per thread, one store),
 * {@code memory} ({@code saxpy.ptx}: grid-stride out-of-place saxpy, 3 global accesses per 11
 * instructions), {@code shared} ({@code blockReduce.ptx}: shared-memory tree reductions with a bar.sync
 * after each of 8 steps). And the five computing sample kernels (samples/src/main/ptx) at the
 * samples' default sizes: {@code vectorAdd}, {@code matrixMul}, {@code reduction}, {@code histogram},
 * {@code scan}. Not thread-safe; {@link #close()} frees every buffer.
 */
public final class EmulatorWorkloads implements AutoCloseable {
    /** Every workload name, the three benchmark kernels first. */
    public static final List<String> NAMES = List.of("alu", "memory", "shared", "vectorAdd", "matrixMul", "reduction", "histogram", "scan");

    private final Arena arena = Arena.ofShared();
    private final List<MemorySegment> buffers = new ArrayList<>();
    /** The global memory the kernels may touch: every buffer made here. */
    final MemoryMap map = PtxRun.mapOf(buffers);

    /**
     * One launch: what {@link Emulator#launch} takes, and a check of the output.
     *
     * @param check throws {@link AssertionError} naming the first wrong element when the output of the
     *              last launch is not the model's; null for the sample kernels (checked by their own tests)
     */
    public record Workload(String name, Kernel kernel, int[] grid, int[] block, int shared, MemorySegment params,
                           MemoryMap map, Runnable check) {
        /** Launches once on {@code emu} ({@code emu.threads()} as %nsmid) and fails unless the kernel ran to its end. */
        public LaunchResult launch(Emulator emu) {
            LaunchResult r = emu.launch(kernel, grid, block, shared, params, map, emu.threads());
            if (!r.ok()) throw new IllegalStateException(name + ": " + r.message());
            return r;
        }
    }

    private MemorySegment buffer(long bytes) {
        MemorySegment s = arena.allocate(bytes, 256);
        buffers.add(s);
        return s;
    }

    private Kernel load(String text, String source, String name) throws PtxLoadException {
        EmulatorModule m = EmulatorModule.load(text, source, new EmulatorModule.Allocator() {
            public long allocate(String n, long size, long align) {
                return buffer(size).address();
            }

            public void free(long address) {}
        });
        return m.kernels().get(name);
    }

    private Kernel resource(String file, String name) throws IOException, PtxLoadException {
        try (InputStream in = EmulatorWorkloads.class.getResourceAsStream("bench/" + file)) {
            if (in == null) throw new IOException("missing test resource dev/zluda/runtime/emulator/bench/" + file);
            return load(new String(in.readAllBytes(), StandardCharsets.UTF_8), file, name);
        }
    }

    private Kernel sample(String sample, String name) throws IOException, PtxLoadException {
        Path repo = Path.of(System.getProperty("zluda.repo", ".."));
        if (!Files.isDirectory(repo.resolve("samples"))) repo = Path.of(".");
        return load(Files.readString(repo.resolve("samples/src/main/ptx/" + sample + ".ptx")), sample + ".ptx", name);
    }

    private MemorySegment params(Object... values) {
        return PtxRun.params(arena, values);
    }

    /** A workload at the size the benchmarks use (tens of millions of thread-instructions a launch). */
    public Workload create(String name) throws IOException, PtxLoadException {
        return switch (name) {
            case "alu" -> alu(64, 256, 256);
            case "memory" -> saxpy(256, 256, 1 << 22);
            case "shared" -> blockReduce(256, 4096);
            default -> sampleWorkload(name);
        };
    }

    /**
     * aluBound.ptx: {@code ctas} CTAs of {@code threads}, {@code iters} (≥ 1) loop rounds of 11
     * instructions per thread.
     */
    public Workload alu(int ctas, int threads, int iters) throws IOException, PtxLoadException {
        int n = ctas * threads;
        MemorySegment out = buffer(8L * n);
        return new Workload("alu", resource("aluBound.ptx", "aluBound"), new int[] {ctas, 1, 1}, new int[] {threads, 1, 1}, 0,
                params(out.address(), iters), map, () -> {
                    for (int i = 0; i < n; i++) {
                        // PTX ISA 9.7.3.6 fma.rn.f32 = one IEEE fused multiply-add (Math.fma); mad.lo.u32,
                        // xor.b32, shf.l.wrap.b32 with a == b (a rotate), add.u32: 32-bit wrapping
                        float a = (float) i * 0x1p-10f, b = 1f, c = 2f, e = -1f;
                        int h = i, acc = 0;
                        for (int k = 0; k < iters; k++) {
                            a = Math.fma(a, Float.intBitsToFloat(0x3F7FBE77), Float.intBitsToFloat(0x3C23D70A));
                            b = Math.fma(b, 0.5f, a);
                            c = Math.fma(c, Float.intBitsToFloat(0x3F733333), Float.intBitsToFloat(0x3DCCCCCD));
                            e = Math.fma(e, -0.75f, c);
                            h = h * 1664525 + 1013904223;
                            acc += Integer.rotateLeft(h ^ acc, 13);
                        }
                        int bits = Float.floatToRawIntBits((a + b) + (c + e));
                        expect("alu", i, bits, out.getAtIndex(ValueLayout.JAVA_INT, 2L * i));
                        expect("alu", i, acc, out.getAtIndex(ValueLayout.JAVA_INT, 2L * i + 1));
                    }
                });
    }

    /** saxpy.ptx: {@code z = fma(2.5, x, y)} over {@code n} floats by {@code ctas} CTAs of {@code threads}. */
    public Workload saxpy(int ctas, int threads, int n) throws IOException, PtxLoadException {
        MemorySegment x = buffer(4L * n), y = buffer(4L * n), z = buffer(4L * n);
        for (int i = 0; i < n; i++) {
            x.setAtIndex(ValueLayout.JAVA_FLOAT, i, i * 0.25f - 1000f);
            y.setAtIndex(ValueLayout.JAVA_FLOAT, i, (i % 1000) * 1.5f);
        }
        float a = 2.5f;
        return new Workload("memory", resource("saxpy.ptx", "saxpy"), new int[] {ctas, 1, 1}, new int[] {threads, 1, 1}, 0,
                params(x.address(), y.address(), z.address(), a, n), map, () -> {
                    for (int i = 0; i < n; i++) {
                        float want = Math.fma(a, x.getAtIndex(ValueLayout.JAVA_FLOAT, i), y.getAtIndex(ValueLayout.JAVA_FLOAT, i));
                        expect("memory", i, Float.floatToRawIntBits(want), z.getAtIndex(ValueLayout.JAVA_INT, i));
                    }
                });
    }

    /** blockReduce.ptx: {@code tiles} tiles of 256 ints reduced by {@code ctas} CTAs of 256 threads. */
    public Workload blockReduce(int ctas, int tiles) throws IOException, PtxLoadException {
        int n = tiles * 256;
        MemorySegment in = buffer(4L * n), out = buffer(4L * ctas);
        for (int i = 0; i < n; i++) in.setAtIndex(ValueLayout.JAVA_INT, i, i * 2654435761L % 2001 > 1000 ? i : -i / 3);
        return new Workload("shared", resource("blockReduce.ptx", "blockReduce"), new int[] {ctas, 1, 1}, new int[] {256, 1, 1}, 0,
                params(in.address(), out.address(), tiles), map, () -> {
                    for (int b = 0; b < ctas; b++) {
                        int sum = 0;
                        for (int t = b; t < tiles; t += ctas) for (int j = 0; j < 256; j++) sum += in.getAtIndex(ValueLayout.JAVA_INT, t * 256L + j);
                        expect("shared", b, sum, out.getAtIndex(ValueLayout.JAVA_INT, b));
                    }
                });
    }

    /** The workloads measured against plain C ({@link EmulatorVsC}): SAXPY, tiled SGEMM, a warp-shuffle reduction. */
    public static final List<String> VERSUS_C = List.of("saxpy", "sgemm", "shflReduce");

    /**
     * A workload of {@link #VERSUS_C} with its buffers, for the plain C of the same algorithm to run on.
     *
     * @param buffers the kernel's arrays in the order of its parameters (saxpy: x, y, z; sgemm: A, B, C;
     *                shflReduce: in, sum)
     * @param n       elements (saxpy, shflReduce) or the matrix side (sgemm)
     * @param reset   what to do before each launch (shflReduce zeroes its sum, which the kernel adds to)
     */
    public record VersusC(Workload work, MemorySegment[] buffers, int n, Runnable reset) {}

    /**
     * saxpy: 2^24 floats, grid-stride by 1024 CTAs of 256 threads; sgemm: the samples' tiled matrixMul.ptx
     * (16 x 16 tiles in shared memory) at 512 x 512 x 512; shflReduce: the samples' reduction.ptx (grid-stride
     * sums, shfl.sync.down in each warp, shared memory across warps, one atom.add per CTA) over 2^24 ints by
     * 1024 CTAs of 256 threads. Each is checked against a model computed here.
     */
    public VersusC versusC(String name) throws IOException, PtxLoadException {
        int n = 1 << 24;
        switch (name) {
            case "saxpy" -> {
                Workload w = saxpy(1024, 256, n);
                int k = buffers.size();
                return new VersusC(new Workload("saxpy", w.kernel(), w.grid(), w.block(), 0, w.params(), map, w.check()),
                        new MemorySegment[] {buffers.get(k - 3), buffers.get(k - 2), buffers.get(k - 1)}, n, () -> {});
            }
            case "sgemm" -> {
                int m = 512;
                MemorySegment a = buffer(4L * m * m), b = buffer(4L * m * m), c = buffer(4L * m * m);
                for (int i = 0; i < m * m; i++) {
                    a.setAtIndex(ValueLayout.JAVA_FLOAT, i, (i % 37) * 0.125f - 2f);
                    b.setAtIndex(ValueLayout.JAVA_FLOAT, i, (i % 23) * 0.0625f - 0.6f);
                }
                Runnable check = () -> {
                    float[] A = a.toArray(ValueLayout.JAVA_FLOAT), B = b.toArray(ValueLayout.JAVA_FLOAT);
                    for (int row = 0; row < m; row++) {
                        for (int col = 0; col < m; col++) {
                            // matrixMul.ptx: acc = fma.rn.f32(As[ty][k], Bs[k][tx], acc) over k in order
                            float acc = 0;
                            for (int t = 0; t < m; t++) acc = Math.fma(A[row * m + t], B[t * m + col], acc);
                            expect("sgemm", row * m + col, Float.floatToRawIntBits(acc), c.getAtIndex(ValueLayout.JAVA_INT, (long) row * m + col));
                        }
                    }
                };
                Workload w = new Workload("sgemm", sample("matrixMul", "matrixMul"), new int[] {m / 16, m / 16, 1}, new int[] {16, 16, 1}, 0,
                        params(a.address(), b.address(), c.address(), m, m, m), map, check);
                return new VersusC(w, new MemorySegment[] {a, b, c}, m, () -> {});
            }
            case "shflReduce" -> {
                MemorySegment in = buffer(4L * n), sum = buffer(8);
                for (int i = 0; i < n; i++) in.setAtIndex(ValueLayout.JAVA_INT, i, (int) (i * 2654435761L) >> 7);
                Runnable check = () -> {
                    int want = 0;
                    for (int i = 0; i < n; i++) want += in.getAtIndex(ValueLayout.JAVA_INT, i);
                    expect("shflReduce", 0, want, sum.get(ValueLayout.JAVA_INT, 0));
                };
                Workload w = new Workload("shflReduce", sample("reduction", "reduceSum"), new int[] {1024, 1, 1}, new int[] {256, 1, 1}, 0,
                        params(in.address(), sum.address(), n), map, check);
                return new VersusC(w, new MemorySegment[] {in, sum}, n, () -> sum.set(ValueLayout.JAVA_INT, 0, 0));
            }
            default -> throw new IllegalArgumentException("no workload '" + name + "'; known: " + VERSUS_C);
        }
    }

    private static void expect(String what, int index, int want, int got) {
        if (want != got) throw new AssertionError(what + ": element " + index + " is 0x" + Integer.toHexString(got) + ", expected 0x" + Integer.toHexString(want));
    }

    /** The sample kernels at the samples' default sizes (as EmulatorBenchmark has always run them). */
    private Workload sampleWorkload(String name) throws IOException, PtxLoadException {
        int n = 1 << 20;
        switch (name) {
            case "vectorAdd", "matrixMul" -> {
                MemorySegment a = buffer(4L * n), b = buffer(4L * n), c = buffer(4L * n);
                for (int i = 0; i < n; i++) {
                    a.setAtIndex(ValueLayout.JAVA_FLOAT, i, i * 0.5f);
                    b.setAtIndex(ValueLayout.JAVA_FLOAT, i, 1 - i);
                }
                if (name.equals("vectorAdd")) {
                    return new Workload(name, sample("vectorAdd", "vectorAdd"), new int[] {n / 256, 1, 1}, new int[] {256, 1, 1}, 0,
                            params(a.address(), b.address(), c.address(), n), map, null);
                }
                int m = 256;
                return new Workload(name, sample("matrixMul", "matrixMul"), new int[] {m / 16, m / 16, 1}, new int[] {16, 16, 1}, 0,
                        params(a.address(), b.address(), c.address(), m, m, m), map, null);
            }
            case "reduction", "scan" -> {
                MemorySegment ints = buffer(4L * n);
                for (int i = 0; i < n; i++) ints.setAtIndex(ValueLayout.JAVA_INT, i, i % 101 - 50);
                if (name.equals("reduction")) {
                    MemorySegment sum = buffer(8);
                    return new Workload(name, sample("reduction", "reduceSum"), new int[] {1024, 1, 1}, new int[] {256, 1, 1}, 0,
                            params(ints.address(), sum.address(), n), map, null);
                }
                MemorySegment scanOut = buffer(4L * n), totals = buffer(4L * (n / 512));
                return new Workload(name, sample("scan", "scanBlocks"), new int[] {n / 512, 1, 1}, new int[] {512, 1, 1}, 2048,
                        params(ints.address(), scanOut.address(), totals.address(), n), map, null);
            }
            case "histogram" -> {
                MemorySegment bytes = buffer(n), bins = buffer(1024);
                for (int i = 0; i < n; i++) bytes.set(ValueLayout.JAVA_BYTE, i, (byte) (i % 4 == 0 ? 'A' : i * 7 % 240));
                return new Workload(name, sample("histogram", "histogram256"), new int[] {240, 1, 1}, new int[] {256, 1, 1}, 0,
                        params(bytes.address(), bins.address(), n), map, null);
            }
            default -> throw new IllegalArgumentException("no workload '" + name + "'; known: " + NAMES);
        }
    }

    /** The bytes of every buffer made here, in the order they were made (to compare two runs of the same workloads). */
    public List<byte[]> snapshot() {
        List<byte[]> out = new ArrayList<>();
        for (MemorySegment b : buffers) out.add(b.toArray(ValueLayout.JAVA_BYTE));
        return out;
    }

    @Override
    public void close() {
        buffers.clear();
        arena.close();
    }
}
