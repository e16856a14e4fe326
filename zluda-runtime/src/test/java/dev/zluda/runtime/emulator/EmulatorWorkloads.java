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
    final MemoryMap map = (address, out) -> {
        for (MemorySegment s : buffers) {
            if (address >= s.address() && address < s.address() + s.byteSize()) {
                out[0] = s.address();
                out[1] = s.byteSize();
                return true;
            }
        }
        return false;
    };

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
        MemorySegment p = arena.allocate(8L * values.length, 8);
        long off = 0;
        for (Object v : values) {
            if (v instanceof Long l) {
                off = (off + 7) / 8 * 8;
                p.set(ValueLayout.JAVA_LONG, off, l);
                off += 8;
            } else if (v instanceof Float f) {
                p.set(ValueLayout.JAVA_FLOAT, off, f);
                off += 4;
            } else {
                p.set(ValueLayout.JAVA_INT, off, (Integer) v);
                off += 4;
            }
        }
        return p;
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

    @Override
    public void close() {
        buffers.clear();
        arena.close();
    }
}
