package dev.zluda.runtime.emulator;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs small PTX kernels on the emulator without the driver: native buffers it allocates are the
 * only memory kernels may touch. One instance per test class ({@code @RegisterExtension static final
 * PtxRun run = new PtxRun();} closes it after the class's tests) or per test; {@link #close()} frees
 * everything.
 */
final class PtxRun implements AutoCloseable, AfterAllCallback {
    static final String HEADER = ".version 9.0\n.target sm_90\n.address_size 64\n";

    final Arena arena = Arena.ofShared();
    private final List<MemorySegment> buffers = new ArrayList<>();
    final Emulator emulator;
    final MemoryMap map = mapOf(buffers);

    /** The global memory of a list of native buffers (live: buffers added later count), as the emulator asks for it. */
    static MemoryMap mapOf(List<MemorySegment> buffers) {
        return (address, out) -> {
            for (MemorySegment s : buffers) {
                if (address >= s.address() && address < s.address() + s.byteSize()) {
                    out[0] = s.address();
                    out[1] = s.byteSize();
                    return true;
                }
            }
            return false;
        };
    }
    private final EmulatorModule.Allocator alloc = new EmulatorModule.Allocator() {
        public long allocate(String name, long size, long align) {
            return buffer(size).address();
        }

        public void free(long address) {
            buffers.removeIf(s -> s.address() == address);
        }
    };

    PtxRun() {
        this(1);
    }

    PtxRun(int threads) {
        emulator = new Emulator(threads);
    }

    /** With kernels compiled to bytecode ({@code compile}) or interpreted, whatever ZLUDA_EMULATOR says. */
    PtxRun(int threads, boolean compile) {
        emulator = new Emulator(threads, compile);
    }

    /** A zeroed device buffer of {@code bytes}, 256-byte aligned. */
    MemorySegment buffer(long bytes) {
        MemorySegment s = arena.allocate(Math.max(1, bytes), 256);
        buffers.add(s);
        return s;
    }

    EmulatorModule load(String ptx) throws PtxLoadException {
        return EmulatorModule.load(ptx, "test.ptx", alloc);
    }

    /** {@link #load} without the check of instruction forms ({@link SweepLoad}): for the conformance sweep. */
    EmulatorModule loadUnchecked(String ptx) throws PtxLoadException {
        return EmulatorModule.load(ptx, "test.ptx", alloc, false);
    }

    /** Launches with parameters given as Long (8 bytes) and Integer (4 bytes), laid out naturally aligned. */
    LaunchResult launch(Kernel k, int[] grid, int[] block, int shared, Object... params) {
        return emulator.launch(k, grid, block, shared, params(arena, params), map, 4);
    }

    /**
     * A kernel's parameter buffer (at least 8 bytes) from {@code values}: each Long 8 bytes, 8-aligned; each Float
     * and Integer 4 bytes, in order, as the .param space of a kernel lays them out.
     */
    static MemorySegment params(Arena arena, Object... values) {
        MemorySegment p = arena.allocate(Math.max(8, 8L * values.length), 8);
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

    /**
     * Runs {@code body} in one thread of a kernel {@code k(.param .u64 in, .param .u64 out)} with
     * registers {@code %p0..7 (.pred), %h0..15 (.b16), %r0..31 (.b32), %rd0..31 (.b64), %f0..15
     * (.f32), %fd0..15 (.f64)}; {@code %rd30} points at the inputs (8 bytes each), {@code %rd31} at 16
     * zeroed 8-byte output slots, which are returned.
     */
    long[] exec(String body, long... inputs) throws PtxLoadException {
        return execShape(body, 1, inputs);
    }

    /** {@link #exec} with {@code threads} threads in one CTA. */
    long[] execShape(String body, int threads, long... inputs) throws PtxLoadException {
        String ptx = HEADER + """
                .visible .entry k(.param .u64 pin, .param .u64 pout)
                {
                .reg .pred %p<8>;
                .reg .b16 %h<16>;
                .reg .b32 %r<32>;
                .reg .b64 %rd<32>;
                .reg .f32 %f<16>;
                .reg .f64 %fd<16>;
                ld.param.u64 %rd30, [pin];
                ld.param.u64 %rd31, [pout];
                """ + body + "\nret;\n}\n";
        Kernel k = load(ptx).kernels().get("k");
        MemorySegment in = buffer(8L * Math.max(1, inputs.length));
        for (int i = 0; i < inputs.length; i++) in.setAtIndex(ValueLayout.JAVA_LONG, i, inputs[i]);
        MemorySegment out = buffer(8L * 64);
        LaunchResult r = launch(k, new int[] {1, 1, 1}, new int[] {threads, 1, 1}, 0, in.address(), out.address());
        if (!r.ok()) throw new IllegalStateException(r.message());
        long[] res = new long[64];
        for (int i = 0; i < 64; i++) res[i] = out.getAtIndex(ValueLayout.JAVA_LONG, i);
        return res;
    }

    @Override
    public void close() {
        arena.close();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }
}
