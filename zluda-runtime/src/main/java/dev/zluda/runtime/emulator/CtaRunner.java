package dev.zluda.runtime.emulator;

import java.lang.foreign.Arena;

/**
 * Runs CTAs of one launch on one host thread: owns the CTA's shared memory and warps (both reused
 * from one CTA to the next), schedules the warps round-robin in slices, and implements the CTA
 * barriers ({@code bar}/{@code barrier}, PTX ISA 9.7.13.1). A CTA runs alone ({@link #run}) or, in a
 * cluster or a cooperative grid, interleaved with others a slice at a time ({@link #begin}, {@link #step},
 * {@link #interleave}).
 */
final class CtaRunner {
    /** Instructions a warp runs before the next warp gets its turn. */
    private static final int SLICE = 4096;

    final Launch launch;
    final long sharedBase;
    final long sharedBytes;
    final int smid;
    private final Warp[] warps;
    private int liveThreads;
    private final int[] arrived = new int[16];
    private final int[] expected = new int[16];
    private final int[] redPopc = new int[16];
    private final boolean[] redAll = new boolean[16];
    private final boolean[] redAny = new boolean[16];
    private int pending;
    private int cx, cy, cz;
    /** The cluster this CTA runs in (a cluster of one unless the launch has clusters) and its rank there. */
    ClusterGroup cluster = new ClusterGroup(1);
    int rank;

    CtaRunner(Launch launch, int smid, Arena arena) {
        this.launch = launch;
        this.smid = smid;
        this.sharedBytes = launch.sharedBytes;
        this.sharedBase = sharedBytes == 0 ? 0 : arena.allocate(sharedBytes, 16).address();
        this.warps = new Warp[launch.warps];
        long frame = launch.localStride;
        for (int w = 0; w < warps.length; w++) {
            int n = Math.min(32, launch.threads - 32 * w);
            int valid = n == 32 ? -1 : (1 << n) - 1;
            long local = frame == 0 ? 0 : arena.allocate(frame * 32, 16).address();
            warps[w] = new Warp(this, w, valid, local);
        }
    }

    /** Thread-instructions executed by this runner's warps. */
    long executed() {
        long n = 0;
        for (Warp w : warps) n += w.executed;
        return n;
    }

    /** Runs CTA number {@code linear} (x fastest) alone, as a cluster of one; a fault is recorded in the launch. */
    void run(long linear) {
        cluster.reset(launch.threads);
        begin(linear, 0);
        while (true) {
            int s = step();
            if (s == DONE) return;
            if (s == STALLED) {
                launch.fail(result(deadlock(), null));
                return;
            }
        }
    }

    /** What {@link #step} reports. */
    static final int DONE = 0, PROGRESS = 1, STALLED = 2;

    /**
     * Prepares CTA number {@code linear} (x fastest) to run as the CTA of rank {@code rank} of {@link #cluster}
     * (whose {@link ClusterGroup#reset} was called); {@link #step} then runs it.
     */
    void begin(long linear, int rank) {
        cx = (int) (linear % launch.gx);
        cy = (int) (linear / launch.gx % launch.gy);
        cz = (int) (linear / ((long) launch.gx * launch.gy));
        this.rank = rank;
        cluster.members[rank] = this;
        for (Warp w : warps) w.start(cx, cy, cz);
        liveThreads = launch.threads;
        pending = 0;
        java.util.Arrays.fill(arrived, 0);
    }

    /**
     * Gives every runnable warp of the CTA one slice and completes the barriers that can complete.
     *
     * @return {@link #DONE} when every thread has exited (or the launch failed: a fault is recorded in the launch),
     *     {@link #PROGRESS} when some warp ran or a barrier completed, {@link #STALLED} when every live thread waits
     *     at a barrier that only other CTAs of the cluster can complete (alone: a deadlock)
     */
    int step() {
        Warp current = null;
        try {
            boolean anyLive = false, ran = false;
            for (Warp w : warps) {
                if (w.live == 0) continue;
                anyLive = true;
                if (w.runnable()) {
                    current = w;
                    w.run(SLICE);
                    current = null;
                    ran = true;
                    if (pending != 0) releaseBarriers();
                    if (cluster.pending) cluster.complete();
                }
            }
            if (!anyLive || launch.cancelled) return DONE;
            if (ran || releaseBarriers()) return PROGRESS;
            return STALLED;
        } catch (Fault f) {
            launch.fail(result(f, current));
            return DONE;
        } catch (RuntimeException | StackOverflowError e) {
            if (System.getenv("ZLUDA_DEBUG") != null) e.printStackTrace();
            launch.fail(result(new Fault(Errors.LAUNCH_FAILED, -1, "internal emulator error: " + e), current));
            return DONE;
        }
    }

    /**
     * Runs the first {@code n} runners, each prepared with {@link #begin}, interleaved one {@link #step} at a time
     * until all are done: the CTAs of a cluster, or a worker's share of a cooperative grid, which may wait for one
     * another (barrier.cluster, a grid-wide barrier spinning on global memory). A round in which none makes
     * progress is a deadlock, reported for the first CTA still running.
     */
    static void interleave(Launch launch, CtaRunner[] runners, int n) {
        boolean[] done = new boolean[n];
        int left = n;
        while (left > 0) {
            boolean progress = false;
            for (int i = 0; i < n; i++) {
                if (done[i]) continue;
                int s = runners[i].step();
                if (s == DONE) {
                    done[i] = true;
                    left--;
                }
                if (s != STALLED) progress = true;
            }
            if (launch.cancelled) return;
            if (!progress) {
                for (int i = 0; i < n; i++) {
                    if (!done[i]) {
                        launch.fail(runners[i].result(runners[i].deadlock(), null));
                        return;
                    }
                }
            }
        }
    }

    private Fault deadlock() {
        StringBuilder sb = new StringBuilder("deadlock: every thread that has not exited waits at a barrier that cannot complete (");
        for (int b = 0; b < 16; b++) {
            if (arrived[b] > 0) sb.append("barrier ").append(b).append(": ").append(arrived[b]).append(" of ")
                    .append(expected[b] < 0 ? liveThreads : expected[b]).append(" threads arrived; ");
        }
        int waiting = 0;
        for (Warp w : warps) waiting += Integer.bitCount(w.barWait[ClusterGroup.BARRIER]);
        if (waiting > 0) {
            sb.append("barrier.cluster: ").append(waiting).append(" threads of this CTA wait, ").append(cluster.arrived).append(" of ")
                    .append(cluster.liveThreads).append(" threads of the cluster of ").append(cluster.members.length).append(" CTAs arrived; ");
        }
        sb.append(liveThreads).append(" threads live)");
        return new Fault(Errors.LAUNCH_FAILED, -1, sb.toString());
    }

    private LaunchResult result(Fault f, Warp w) {
        StringBuilder sb = new StringBuilder();
        sb.append("kernel ").append(launch.prog.name).append(": ").append(Errors.name(f.error)).append(": CTA (")
                .append(cx).append(',').append(cy).append(',').append(cz).append(')');
        if (w != null && f.lane >= 0) {
            sb.append(" thread ").append(w.thread(f.lane)).append(" (warp ").append(w.id).append(" lane ").append(f.lane).append(')');
        }
        if (w != null && w.pc >= 0 && w.pc < w.code.length) {
            Op op = w.code[w.pc];
            sb.append(", ").append(launch.prog.source).append(':').append(op.line).append(" `").append(op.form).append('`');
        }
        sb.append(": ").append(f.getMessage());
        return new LaunchResult(f.error, sb.toString(), 0);
    }

    /** The CTA index as CUDA prints it: "[x,y,z]". */
    String ctaString() {
        return "[" + cx + "," + cy + "," + cz + "]";
    }

    /**
     * Lanes exited: a barrier waiting for "all threads" may complete now.
     *
     * @param n                exited threads
     * @param arrivedInCluster how many of them had arrived at the cluster barrier's current phase
     */
    void exited(int n, int arrivedInCluster) {
        liveThreads -= n;
        pending |= 0x1_0000;
        cluster.exited(n, arrivedInCluster);
    }

    /**
     * The native address of {@code size} bytes at a shared::cluster address of another CTA's shared memory
     * ({@link ClusterGroup#address}): rank + 1 in bits 24-28, the offset in that CTA's shared memory below.
     */
    long clusterShared(long a, int size, Warp w, int lane, int how) {
        int r = (int) (a >>> ClusterGroup.RANK_SHIFT) - 1;
        long off = a & ClusterGroup.OFFSET_MASK;
        if (r >= cluster.members.length) {
            throw new Fault(Errors.ILLEGAL_ADDRESS, lane, Warp.how(how) + " of " + size + " bytes at shared::cluster address " + Mem.hex(a)
                    + ": CTA rank " + r + " is outside the cluster of " + cluster.members.length + " CTAs");
        }
        CtaRunner t = cluster.members[r];
        if (off > t.sharedBytes - size) {
            throw new Fault(Errors.ILLEGAL_ADDRESS, lane, Warp.how(how) + " of " + size + " bytes at shared::cluster address " + Mem.hex(a)
                    + ": outside the " + t.sharedBytes + " bytes of shared memory of the CTA of rank " + r);
        }
        return t.sharedBase + off;
    }

    /** Threads {@code lanes} arrive at barrier {@code id}; {@code count} threads expected, -1 for all. */
    void arrive(int id, int lanes, int count, int mode, int contribution) {
        if (arrived[id] == 0) {
            expected[id] = count;
            redPopc[id] = 0;
            redAll[id] = true;
            redAny[id] = false;
        }
        arrived[id] += Integer.bitCount(lanes);
        if (mode != Ops.Bar.SYNC && mode != Ops.Bar.ARRIVE) {
            redPopc[id] += Integer.bitCount(contribution);
            if (contribution != lanes) redAll[id] = false;
            if (contribution != 0) redAny[id] = true;
        }
        pending |= 1 << id;
    }

    /** The cluster barrier's phase completed ({@link ClusterGroup#complete}). */
    void clusterPhaseComplete() {
        for (Warp w : warps) w.clusterPhaseComplete();
    }

    /** Completes every barrier whose expected threads have arrived; true when one did. */
    private boolean releaseBarriers() {
        boolean any = false;
        for (int b = 0; b < 16; b++) {
            if (arrived[b] == 0) continue;
            int want = expected[b] < 0 ? liveThreads : expected[b];
            if (arrived[b] >= want) {
                arrived[b] = 0;
                for (Warp w : warps) w.release(b, redPopc[b], redAll[b], redAny[b]);
                any = true;
            }
        }
        pending = 0;
        return any;
    }
}
