package dev.zluda.runtime.emulator;

import java.lang.foreign.Arena;

/**
 * Runs CTAs of one launch on one host thread: owns the CTA's shared memory and warps (both reused
 * from one CTA to the next), schedules the warps round-robin in slices, and implements the CTA
 * barriers ({@code bar}/{@code barrier}, PTX ISA 9.7.13.1).
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

    /** Runs CTA number {@code linear} (x fastest); a fault is recorded in the launch. */
    void run(long linear) {
        cx = (int) (linear % launch.gx);
        cy = (int) (linear / launch.gx % launch.gy);
        cz = (int) (linear / ((long) launch.gx * launch.gy));
        for (Warp w : warps) w.start(cx, cy, cz);
        liveThreads = launch.threads;
        pending = 0;
        java.util.Arrays.fill(arrived, 0);
        Warp current = null;
        try {
            while (true) {
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
                    }
                }
                if (!anyLive) return;
                if (!ran && !releaseBarriers()) throw deadlock();
                if (launch.cancelled) return;
            }
        } catch (Fault f) {
            launch.fail(result(f, current));
        } catch (RuntimeException | StackOverflowError e) {
            if (System.getenv("ZLUDA_DEBUG") != null) e.printStackTrace();
            launch.fail(result(new Fault(Errors.LAUNCH_FAILED, -1, "internal emulator error: " + e), current));
        }
    }

    private Fault deadlock() {
        StringBuilder sb = new StringBuilder("deadlock: every thread that has not exited waits at a barrier that cannot complete (");
        for (int b = 0; b < 16; b++) {
            if (arrived[b] > 0) sb.append("barrier ").append(b).append(": ").append(arrived[b]).append(" of ")
                    .append(expected[b] < 0 ? liveThreads : expected[b]).append(" threads arrived; ");
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

    /** Lanes exited: a barrier waiting for "all threads" may complete now. */
    void exited(int n) {
        liveThreads -= n;
        pending |= 0x1_0000;
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
