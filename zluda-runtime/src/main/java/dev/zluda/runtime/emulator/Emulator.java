package dev.zluda.runtime.emulator;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Executes kernel launches on the CPU: the CTAs of a grid are spread over worker threads (each CTA
 * runs on one thread, its warps interleaved there), the calling thread working too; the CTAs of a
 * cluster, and those of a cooperative grid, are resident together ({@link Grouping}). The number of
 * threads is {@code ZLUDA_EMULATOR_THREADS} (default: the host's processors); with 1 the CTAs run in
 * a fixed order — x fastest, then y, then z — on the calling thread, and a launch is deterministic.
 * Thread-safe: launches from several host threads may run at once.
 */
public final class Emulator {
    private static final AtomicLong GRID_IDS = new AtomicLong();

    private final int threads;
    private final ExecutorService pool;
    private final boolean compile;

    /**
     * How kernels run: {@code "jit"} (the default) compiles each kernel to JVM bytecode, on a background thread from
     * its first launch on ({@link JitCompiler}, {@link Program#compiledWhenReady}), and runs the compiled code where it
     * has any once it is ready, {@code "interp"} interprets every instruction.
     * Read from the system property {@code zluda.emulator}, else the environment variable {@code ZLUDA_EMULATOR}.
     * Both give the same results bit for bit (every conformance suite runs on both).
     */
    public static String configuredMode() {
        String s = System.getProperty("zluda.emulator");
        if (s == null || s.isBlank()) s = System.getenv("ZLUDA_EMULATOR");
        if (s == null || s.isBlank()) return "jit";
        s = s.trim().toLowerCase(java.util.Locale.ROOT);
        if (!s.equals("jit") && !s.equals("interp")) {
            System.err.println("[ZLUDA] ZLUDA_EMULATOR must be 'jit' or 'interp', not '" + s + "': using jit");
            return "jit";
        }
        return s;
    }

    /** Seconds an idle worker thread waits for the next launch before it ends (a new launch starts it again). */
    static final long IDLE_SECONDS = 30;

    /**
     * An emulator of its own: the driver's backend ({@link EmulatorDevice}) owns one; tests and benchmarks make theirs.
     * Worker threads are daemons and end after {@link #IDLE_SECONDS} without work, so an emulator that is no longer
     * used holds no thread.
     *
     * @param threads worker threads per launch, at least 1 (1: deterministic, no pool)
     */
    public Emulator(int threads) {
        this(threads, configuredMode().equals("jit"));
    }

    /**
     * An emulator of its own that compiles kernels to bytecode ({@code compile}) or only interprets them, whatever
     * {@link #configuredMode()} says (benchmarks compare the two in one process).
     *
     * @param threads worker threads per launch, at least 1 (1: deterministic, no pool)
     * @param compile whether kernels are compiled (from their first launch on, {@link Program#compiledWhenReady})
     */
    public Emulator(int threads, boolean compile) {
        this.compile = compile;
        this.threads = Math.max(1, threads);
        AtomicInteger n = new AtomicInteger();
        if (this.threads == 1) {
            this.pool = null;
        } else {
            ThreadPoolExecutor p = new ThreadPoolExecutor(this.threads - 1, this.threads - 1, IDLE_SECONDS, TimeUnit.SECONDS,
                    new LinkedBlockingQueue<>(), r -> {
                        Thread t = new Thread(r, "zluda-emulator-" + n.incrementAndGet());
                        t.setDaemon(true);
                        return t;
                    });
            p.allowCoreThreadTimeOut(true);
            this.pool = p;
        }
    }

    /** {@code ZLUDA_EMULATOR_THREADS}, or the number of available processors: what the driver's emulator uses. */
    public static int configuredThreads() {
        String s = System.getenv("ZLUDA_EMULATOR_THREADS");
        if (s != null && !s.isBlank()) {
            try {
                return Math.max(1, Integer.parseInt(s.trim()));
            } catch (NumberFormatException e) {
                System.err.println("[ZLUDA] ZLUDA_EMULATOR_THREADS must be a number, not '" + s + "': using the processor count");
            }
        }
        return Runtime.getRuntime().availableProcessors();
    }

    /** Worker threads per launch. */
    public int threads() {
        return threads;
    }

    /** Whether this emulator compiles kernels to bytecode ({@link #configuredMode()}). */
    public boolean compiles() {
        return compile;
    }

    /**
     * Runs a kernel to completion. The caller has validated the launch shape (CUDA rules: dimensions
     * ≥ 1, block ≤ the device limits, shared memory within the limit).
     *
     * @param kernel        the kernel
     * @param grid          grid dimensions x, y, z (CTAs)
     * @param block         block dimensions x, y, z (threads)
     * @param dynamicShared bytes of dynamic shared memory per CTA
     * @param params        the kernel parameter buffer, {@link Kernel#paramBytes()} bytes, laid out as
     *                      {@link Kernel#info()}'s parameters say; copied before the launch starts
     * @param memory        the device memory global accesses may touch
     * @param multiprocessors what {@code %nsmid} reports
     * @return success, or the first fault (CUDA_ERROR_ILLEGAL_ADDRESS, ...) with a message naming
     *     kernel, CTA, thread, PTX line and address
     */
    public LaunchResult launch(Kernel kernel, int[] grid, int[] block, int dynamicShared, MemorySegment params,
                               MemoryMap memory, int multiprocessors) {
        return launch(kernel, grid, block, dynamicShared, params, memory, multiprocessors, DEFAULT_STACK_BYTES);
    }

    /**
     * CU_LIMIT_STACK_SIZE's default: bytes of stack per thread, as an NVIDIA H200 (driver 580.159.04)
     * reports it with {@code cuCtxGetLimit}.
     */
    public static final long DEFAULT_STACK_BYTES = 1024;

    /**
     * {@link #launch(Kernel, int[], int[], int, MemorySegment, MemoryMap, int)} with each thread's stack
     * size: {@code stackBytes} (the context's CU_LIMIT_STACK_SIZE) bytes for the frames of out-of-line
     * calls and {@code alloca} ({@link CallOps}); a kernel that passes its end stops with
     * CUDA_ERROR_ILLEGAL_ADDRESS (as an H200 does). Kernels without such calls take no stack.
     */
    public LaunchResult launch(Kernel kernel, int[] grid, int[] block, int dynamicShared, MemorySegment params,
                               MemoryMap memory, int multiprocessors, long stackBytes) {
        return launch(kernel, grid, block, dynamicShared, params, memory, multiprocessors, stackBytes, Grouping.NONE);
    }

    /**
     * How the CTAs of a launch are grouped.
     *
     * @param cooperative     a cooperative launch (cuLaunchCooperativeKernel, CU_LAUNCH_ATTRIBUTE_COOPERATIVE): every CTA
     *                        of the grid is resident at once, so that all of them can reach a grid-wide barrier, and the
     *                        kernel gets a grid workspace (%envreg1:%envreg2, 8 zeroed bytes: cooperative_groups'
     *                        {@code grid_workspace}, whose second word is the grid barrier's counter)
     * @param cluster         cluster dimensions in CTAs, each dividing the grid's (1, 1, 1: no clusters); the CTAs of a
     *                        cluster are resident together (barrier.cluster, distributed shared memory)
     * @param explicitCluster what %is_explicit_cluster reads
     */
    public record Grouping(boolean cooperative, int[] cluster, boolean explicitCluster) {
        /** A plain launch: CTAs one at a time, clusters of one. */
        public static final Grouping NONE = new Grouping(false, new int[] {1, 1, 1}, false);
    }

    /**
     * {@link #launch(Kernel, int[], int[], int, MemorySegment, MemoryMap, int, long)} with the CTAs grouped as
     * {@code grouping} says. CTAs that must be resident together run interleaved on one host thread a slice at a time
     * ({@link CtaRunner#interleave}): a cluster on one worker; a cooperative grid spread over the workers, each taking
     * every n-th cluster (every n-th CTA without clusters), all of them started before any finishes. The caller has
     * checked that the grid is a whole number of clusters and, for a cooperative launch, that it fits the device.
     */
    public LaunchResult launch(Kernel kernel, int[] grid, int[] block, int dynamicShared, MemorySegment params,
                               MemoryMap memory, int multiprocessors, long stackBytes, Grouping grouping) {
        Program prog = kernel.program();
        JitCompiler.Result jit = compile ? prog.compiledWhenReady() : null;
        try (Arena arena = Arena.ofShared()) {
            long paramBase = 0;
            if (prog.paramBytes > 0) {
                MemorySegment p = arena.allocate(prog.paramBytes, 16);
                MemorySegment.copy(params, 0, p, 0, Math.min(params.byteSize(), prog.paramBytes));
                paramBase = p.address();
            }
            long workspace = 0;
            MemoryMap map = memory;
            if (grouping.cooperative()) {
                long ws = arena.allocate(WORKSPACE_BYTES, 16).fill((byte) 0).address();
                workspace = ws;
                map = (a, out) -> {
                    if (a >= ws && a < ws + WORKSPACE_BYTES) {
                        out[0] = ws;
                        out[1] = WORKSPACE_BYTES;
                        return true;
                    }
                    return memory.find(a, out);
                };
            }
            Launch launch = new Launch(prog, grid[0], grid[1], grid[2], block[0], block[1], block[2], dynamicShared,
                    paramBase, map, multiprocessors, GRID_IDS.incrementAndGet(), stackBytes, grouping, workspace, jit);
            int workers = (int) Math.min(threads, launch.clusters);
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 1; i < workers; i++) {
                int smid = i;
                futures.add(pool.submit(() -> work(launch, smid, workers, arena)));
            }
            work(launch, 0, workers, arena);
            for (Future<?> f : futures) {
                try {
                    f.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    launch.fail(new LaunchResult(Errors.LAUNCH_FAILED, "kernel " + prog.name + ": internal emulator error: " + e.getCause(), 0));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    launch.fail(new LaunchResult(Errors.LAUNCH_FAILED, "kernel " + prog.name + ": interrupted", 0));
                }
            }
            LaunchResult f = launch.fault.get();
            long n = launch.executed.get();
            return f == null ? new LaunchResult(Errors.SUCCESS, "", n) : new LaunchResult(f.error(), f.message(), n);
        }
    }

    /** Bytes of a cooperative launch's grid workspace. */
    static final long WORKSPACE_BYTES = 8;

    private static void work(Launch launch, int smid, int workers, Arena arena) {
        if (launch.cooperative) {
            workCooperative(launch, smid, workers, arena);
            return;
        }
        if (launch.clusterSize > 1) {
            workClusters(launch, smid, arena);
            return;
        }
        CtaRunner runner = runner(launch, smid, arena);
        if (runner == null) return;
        while (!launch.cancelled) {
            long i = launch.nextCta.getAndIncrement();
            if (i >= launch.ctas) break;
            runner.run(i);
        }
        launch.executed.addAndGet(runner.executed());
    }

    private static CtaRunner runner(Launch launch, int smid, Arena arena) {
        try {
            return new CtaRunner(launch, smid, arena);
        } catch (OutOfMemoryError | RuntimeException e) {
            launch.fail(new LaunchResult(Errors.LAUNCH_FAILED, "kernel " + launch.prog.name + ": cannot set up a CTA: " + e, 0));
            return null;
        }
    }

    /** Clusters one after the other, the CTAs of each interleaved. */
    private static void workClusters(Launch launch, int smid, Arena arena) {
        int n = launch.clusterSize;
        CtaRunner[] rs = new CtaRunner[n];
        ClusterGroup cluster = new ClusterGroup(n);
        for (int r = 0; r < n; r++) {
            rs[r] = runner(launch, smid, arena);
            if (rs[r] == null) return;
            rs[r].cluster = cluster;
        }
        while (!launch.cancelled) {
            long i = launch.nextCta.getAndIncrement();
            if (i >= launch.clusters) break;
            cluster.reset(launch.threads);
            for (int r = 0; r < n; r++) rs[r].begin(launch.ctaOf(i, r), r);
            CtaRunner.interleave(launch, rs, n);
        }
        for (CtaRunner r : rs) launch.executed.addAndGet(r.executed());
    }

    /** A cooperative grid: this worker's clusters {@code smid}, {@code smid + workers}, ... all resident, interleaved. */
    private static void workCooperative(Launch launch, int smid, int workers, Arena arena) {
        int n = launch.clusterSize;
        List<CtaRunner> rs = new ArrayList<>();
        for (long i = smid; i < launch.clusters; i += workers) {
            ClusterGroup cluster = new ClusterGroup(n);
            cluster.reset(launch.threads);
            for (int r = 0; r < n; r++) {
                CtaRunner c = runner(launch, smid, arena);
                if (c == null) return;
                c.cluster = cluster;
                c.begin(launch.ctaOf(i, r), r);
                rs.add(c);
            }
        }
        CtaRunner.interleave(launch, rs.toArray(new CtaRunner[0]), rs.size());
        for (CtaRunner r : rs) launch.executed.addAndGet(r.executed());
    }
}
