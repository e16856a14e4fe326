package dev.zluda.runtime.emulator;

/**
 * The CTAs of one thread-block cluster (PTX ISA 9.0, 2.2.1 "Cluster of Cooperative Thread Arrays"), which the
 * emulator runs on one host thread, interleaved ({@link CtaRunner#interleave}); every CTA of a launch is in one, of a
 * single CTA when the launch has no clusters. It holds the cluster barrier ({@code barrier.cluster.arrive} /
 * {@code barrier.cluster.wait}, PTX ISA 9.0, 9.7.13.2): a phase completes when every thread of the cluster that has not
 * exited has arrived; a thread that exits no longer counts, and its arrival in the current phase is taken back.
 *
 * <p>Distributed shared memory (PTX ISA 9.0, 5.1.5 and 9.7.9.22 {@code mapa}): the emulator's shared::cluster address
 * of byte {@code o} of the CTA of rank {@code r} is {@code (r + 1) << 24 | o} ({@link #address}); an address below
 * 2^24 is the executing CTA's own shared::cta address, which the shared::cluster window contains. As generic
 * addresses they lie in the shared window ({@link Mem#SHARED_WINDOW}) like every shared address.
 */
final class ClusterGroup {
    /** The barrier id {@link Warp#barWait} keeps the cluster barrier's waiting lanes under (CTA barriers are 0-15). */
    static final int BARRIER = 16;
    static final int RANK_SHIFT = 24;
    static final long OFFSET_MASK = (1L << RANK_SHIFT) - 1;
    /** The largest cluster: 16 CTAs (8 portable; CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED allows 16). */
    static final int MAX_SIZE = 16;

    /** The CTAs by rank (%cluster_ctarank). */
    final CtaRunner[] members;
    /** Threads of the cluster that have not exited. */
    int liveThreads;
    /** Threads that arrived at the current phase of the cluster barrier. */
    int arrived;
    /** Set by an arrival or an exit: {@link #complete} has something to check. */
    boolean pending;

    ClusterGroup(int size) {
        members = new CtaRunner[size];
    }

    /** The shared::cluster address of byte {@code offset} of the shared memory of the CTA of rank {@code rank}. */
    static long address(int rank, long offset) {
        return ((long) (rank + 1) << RANK_SHIFT) | (offset & OFFSET_MASK);
    }

    /** A fresh cluster of {@code members.length} CTAs of {@code threadsPerCta} threads each, before the CTAs begin. */
    void reset(int threadsPerCta) {
        liveThreads = members.length * threadsPerCta;
        arrived = 0;
        pending = false;
    }

    /** {@code n} threads arrive at the current phase. */
    void arrive(int n) {
        arrived += n;
        pending = true;
    }

    /** {@code n} threads exited, {@code arrivedNow} of them after arriving at the current phase. */
    void exited(int n, int arrivedNow) {
        liveThreads -= n;
        arrived -= arrivedNow;
        if (members.length > 0) pending = true;
    }

    /**
     * Completes the current phase when every live thread has arrived: releases the threads waiting for it in every
     * CTA of the cluster. Called between warp slices, never while a warp runs.
     */
    void complete() {
        pending = false;
        if (arrived == 0 || arrived < liveThreads) return;
        arrived = 0;
        for (CtaRunner r : members) {
            if (r != null) r.clusterPhaseComplete();
        }
    }
}
