package dev.zluda.runtime.emulator;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/** What every CTA of one kernel launch shares: shape, parameters, memory map, first fault. */
final class Launch {
    final Program prog;
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
    final AtomicLong nextCta = new AtomicLong();
    final AtomicReference<LaunchResult> fault = new AtomicReference<>();
    final AtomicLong executed = new AtomicLong();
    volatile boolean cancelled;

    Launch(Program prog, int gx, int gy, int gz, int bx, int by, int bz, int dynamicShared, long paramBase,
           MemoryMap memory, int nsm, long gridId) {
        this.prog = prog;
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
    }

    /** Records the first fault of the launch and stops the others. */
    void fail(LaunchResult r) {
        fault.compareAndSet(null, r);
        cancelled = true;
    }
}
