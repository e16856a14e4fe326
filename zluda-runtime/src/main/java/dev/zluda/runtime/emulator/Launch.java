package dev.zluda.runtime.emulator;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What every CTA of one kernel launch shares: shape, parameters, memory map, first fault; for a cooperative launch
 * the grid workspace, for a cluster launch the cluster shape (CUDA Programming Guide, "Thread Block Clusters").
 */
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
    /** Cluster dimensions in CTAs (1, 1, 1 without clusters) and CTAs per cluster. */
    final int cdx, cdy, cdz, clusterSize;
    /** Whether the cluster shape was given by the launch or the kernel's directives (%is_explicit_cluster). */
    final boolean explicitCluster;
    /** Clusters in the grid. */
    final long clusters;
    /**
     * A cooperative launch: every CTA of the grid is resident at once ({@link Emulator}), and {@link #workspace} is
     * the grid workspace %envreg1:%envreg2 point to; 0 otherwise (as NVIDIA's driver leaves them for other launches).
     */
    final boolean cooperative;
    final long workspace;
    /** Next CTA (or, with clusters, next cluster) a worker takes. */
    final AtomicLong nextCta = new AtomicLong();
    final AtomicReference<LaunchResult> fault = new AtomicReference<>();
    final AtomicLong executed = new AtomicLong();
    volatile boolean cancelled;

    Launch(Program prog, int gx, int gy, int gz, int bx, int by, int bz, int dynamicShared, long paramBase,
           MemoryMap memory, int nsm, long gridId, long stackBytes, Emulator.Grouping grouping, long workspace,
           JitCompiler.Result jit) {
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
        int[] c = grouping.cluster();
        this.cdx = c[0];
        this.cdy = c[1];
        this.cdz = c[2];
        this.clusterSize = cdx * cdy * cdz;
        this.explicitCluster = grouping.explicitCluster();
        this.clusters = ctas / clusterSize;
        this.cooperative = grouping.cooperative();
        this.workspace = workspace;
    }

    /**
     * The linear index (x fastest) of the CTA of rank {@code rank} (x fastest within the cluster) in cluster number
     * {@code cluster} (x fastest in the grid of clusters).
     */
    long ctaOf(long cluster, int rank) {
        long ncx = gx / cdx, ncy = gy / cdy;
        long clx = cluster % ncx, cly = cluster / ncx % ncy, clz = cluster / (ncx * ncy);
        long x = clx * cdx + rank % cdx, y = cly * cdy + rank / cdx % cdy, z = clz * cdz + rank / (cdx * cdy);
        return x + gx * (y + (long) gy * z);
    }

    /** Records the first fault of the launch and stops the others. */
    void fail(LaunchResult r) {
        fault.compareAndSet(null, r);
        cancelled = true;
    }
}
