package dev.zluda.runtime.emulator;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/** What every CTA of one kernel launch shares: shape, parameters, memory map, first fault. */
final class Launch {
    final Program prog;
    /** The program compiled to bytecode, or null: the interpreter runs every instruction. */
    final JitCompiler.Result jit;
    final int gx, gy, gz, bx, by, bz;
    final long ctas;
    final int threads, warps;
    final long paramBase, paramBytes;
    /** Static + dynamic shared memory of one CTA, bytes. */
    final long sharedBytes;
    final int dynamicShared;
    final MemoryMap memory;
    final int nsm;
    final long gridId;
    /** Bytes of one thread's stack (CU_LIMIT_STACK_SIZE), 0 when the kernel needs none. */
    final long stackBytes;
    /** Bytes of one thread's local memory: the static frame, then the stack. */
    final long localStride;
    final AtomicLong nextCta = new AtomicLong();
    final AtomicReference<LaunchResult> fault = new AtomicReference<>();
    final AtomicLong executed = new AtomicLong();
    volatile boolean cancelled;

    Launch(Program prog, int gx, int gy, int gz, int bx, int by, int bz, int dynamicShared, long paramBase,
           MemoryMap memory, int nsm, long gridId, long stackBytes, JitCompiler.Result jit) {
        this.prog = prog;
        this.jit = jit;
        this.gx = gx;
        this.gy = gy;
        this.gz = gz;
        this.bx = bx;
        this.by = by;
        this.bz = bz;
        this.ctas = (long) gx * gy * gz;
        this.threads = bx * by * bz;
        this.warps = (threads + 31) / 32;
        this.paramBase = paramBase;
        this.paramBytes = prog.paramBytes;
        this.dynamicShared = dynamicShared;
        this.sharedBytes = dynamicShared == 0 ? prog.staticShared : prog.dynamicSharedOffset + dynamicShared;
        this.memory = memory;
        this.nsm = nsm;
        this.gridId = gridId;
        this.stackBytes = prog.usesStack() ? (Math.max(0, stackBytes) + 15) / 16 * 16 : 0;
        this.localStride = prog.frameBytes + this.stackBytes;
    }

    /** Records the first fault of the launch and stops the others. */
    void fail(LaunchResult r) {
        fault.compareAndSet(null, r);
        cancelled = true;
    }
}
