package dev.zluda.runtime.driver;

import dev.zluda.runtime.api.CudaStructs.CUlaunchConfig;
import dev.zluda.spec.CudaFunction;
import dev.zluda.spec.CudaParam;
import dev.zluda.spec.Role;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

import static dev.zluda.runtime.driver.CuResult.*;

/**
 * Stream capture (CUDA Driver API, cuStreamBeginCapture and "Stream Capture" in the CUDA Programming Guide): while
 * a stream captures, the work enqueued on it is not run but added to a graph as nodes — kernel launches, copies,
 * memsets, host functions, stream-ordered allocations and frees, external event records and waits — each after the
 * stream's current capture dependencies, which it then replaces. An event recorded on a capturing stream remembers
 * those dependencies; a stream that waits for it joins the capture (a fork), and the origin stream must wait for
 * every joined stream's work again before {@code cuStreamEndCapture} (a join), else CUDA_ERROR_STREAM_CAPTURE_UNJOINED.
 *
 * <p>The areas ask {@link #capturing} where they enqueue work and hand a capturing stream's work to {@link #add};
 * the rules about calls that conflict with a capture are an interceptor ({@link #guard}, registered by the driver
 * for the roles that enqueue, wait or allocate):
 * <ul>
 *   <li>a potentially unsafe call (a synchronous allocation or free, {@code cuCtxSynchronize}) from a thread whose
 *   capture mode prohibits it — {@code CU_STREAM_CAPTURE_MODE_GLOBAL}: this thread captures (not relaxed) or any
 *   thread captures in global mode; {@code THREAD_LOCAL}: this thread captures (not relaxed); {@code RELAXED}:
 *   never — returns CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidates those captures; {@code cuCtxSynchronize}
 *   conflicts with every capture of its context;</li>
 *   <li>synchronising or querying a capturing stream: CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, the capture
 *   invalidated;</li>
 *   <li>work on the legacy default stream (synchronous copies and memsets, stream 0 or {@code CU_STREAM_LEGACY})
 *   while a blocking stream of the same context captures: CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, the capture
 *   invalidated;</li>
 *   <li>querying or synchronising an event last recorded in a capture: CUDA_ERROR_CAPTURED_EVENT
 *   ({@link EventArea}).</li>
 * </ul>
 * An invalidated capture refuses further work (CUDA_ERROR_STREAM_CAPTURE_INVALIDATED) and ends with a NULL graph.
 * The per-thread default stream ({@code CU_STREAM_PER_THREAD}) captures per thread; the legacy stream never.
 */
final class StreamCapture {
    /** CUstreamCaptureMode. */
    static final int MODE_GLOBAL = 0, MODE_THREAD_LOCAL = 1, MODE_RELAXED = 2;
    /** CUstreamCaptureStatus. */
    static final int STATUS_NONE = 0, STATUS_ACTIVE = 1, STATUS_INVALIDATED = 2;
    /** The stream-capture CUresults (cuda.h). */
    static final int ILLEGAL_STATE = 401, STREAM_CAPTURE_UNSUPPORTED = 900, STREAM_CAPTURE_INVALIDATED = 901,
            STREAM_CAPTURE_MERGE = 902, STREAM_CAPTURE_UNMATCHED = 903, STREAM_CAPTURE_UNJOINED = 904,
            STREAM_CAPTURE_ISOLATION = 905, STREAM_CAPTURE_IMPLICIT = 906, CAPTURED_EVENT = 907, STREAM_CAPTURE_WRONG_THREAD = 908;

    /** One capture sequence: from cuStreamBeginCapture on its origin stream to cuStreamEndCapture there. */
    static final class Sequence {
        final long id;
        final Graph graph;
        /** Whether the graph is the capture's own (cuStreamBeginCapture), not the program's (cuStreamBeginCaptureToGraph). */
        final boolean ownGraph;
        final int mode;
        final Thread thread;
        final long originKey;
        final Context context;
        volatile boolean invalidated;
        /** Each stream in the capture (by key) with its current capture dependencies. */
        final Map<Long, List<Graph.Node>> dependencies = new LinkedHashMap<>();
        /** Whether each stream in the capture is a blocking stream (synchronises with the legacy stream). */
        final Map<Long, Boolean> blocking = new LinkedHashMap<>();

        Sequence(long id, Graph graph, boolean ownGraph, int mode, long originKey, Context context) {
            this.id = id;
            this.graph = graph;
            this.ownGraph = ownGraph;
            this.mode = mode;
            this.thread = Thread.currentThread();
            this.originKey = originKey;
            this.context = context;
        }
    }

    /** What an event recorded on a capturing stream stands for: that capture's dependencies at the time. */
    private record Captured(Sequence sequence, List<Graph.Node> nodes) {}

    private final DriverState state;
    private final StreamArea streams;
    private final Graph.Tables tables;
    private final MemoryArea memory;
    private final Map<Long, Sequence> byStream = new ConcurrentHashMap<>();
    private final Map<Long, Captured> events = new ConcurrentHashMap<>();
    private final ThreadLocal<int[]> threadMode = ThreadLocal.withInitial(() -> new int[] {MODE_GLOBAL});
    private final AtomicLong ids = new AtomicLong();

    StreamCapture(DriverState state, StreamArea streams, MemoryArea memory, Graph.Tables tables) {
        this.state = state;
        this.memory = memory;
        this.streams = streams;
        this.tables = tables;
    }

    /** The key of a stream's capture state: the handle, or for the per-thread default stream one per thread. */
    static long key(long hStream) {
        return hStream == StreamArea.CU_STREAM_PER_THREAD ? 2 | Thread.currentThread().threadId() << 8 : hStream;
    }

    private static boolean legacy(long hStream) {
        return hStream == 0 || hStream == StreamArea.CU_STREAM_LEGACY;
    }

    /** Whether work on this (checked) stream is captured rather than run. */
    boolean capturing(long hStream) {
        return !byStream.isEmpty() && byStream.containsKey(key(hStream));
    }

    /** The capture a stream belongs to, or null. */
    Sequence sequence(long hStream) {
        return byStream.isEmpty() ? null : byStream.get(key(hStream));
    }

    /** The calling thread's capture interaction mode (cuThreadExchangeStreamCaptureMode). */
    int[] threadMode() {
        return threadMode.get();
    }

    /**
     * Adds the work enqueued on a capturing stream as a node after the stream's capture dependencies, which the
     * node then replaces. CUDA_ERROR_STREAM_CAPTURE_INVALIDATED when the capture was invalidated.
     *
     * @param out receives the node, or null
     */
    int add(long hStream, Graph.Params p, Graph.Node[] out) {
        synchronized (tables.lock) {
            Sequence s = byStream.get(key(hStream));
            if (s == null) return ILLEGAL_STATE;
            if (s.invalidated) return STREAM_CAPTURE_INVALIDATED;
            long k = key(hStream);
            Graph.Node n = tables.addNode(s.graph, p, s.dependencies.getOrDefault(k, List.of()));
            s.dependencies.put(k, List.of(n));
            if (out != null) out[0] = n;
            return SUCCESS;
        }
    }

    /** {@link #add} without the node. */
    int add(long hStream, Graph.Params p) {
        return add(hStream, p, null);
    }

    /**
     * Starts a capture on a stream (checked by the caller).
     *
     * @param graph the program's graph to capture into (cuStreamBeginCaptureToGraph), or null for a new one
     * @param dependencies the first captured node's dependencies (nodes of {@code graph})
     */
    int begin(long hStream, int mode, Graph graph, List<Graph.Node> dependencies) {
        if (mode < MODE_GLOBAL || mode > MODE_RELAXED) return INVALID_VALUE;
        if (legacy(hStream)) return STREAM_CAPTURE_UNSUPPORTED;
        synchronized (tables.lock) {
            long k = key(hStream);
            if (byStream.containsKey(k)) return ILLEGAL_STATE;
            Graph g = graph != null ? graph : tables.newGraph();
            Sequence s = new Sequence(ids.incrementAndGet(), g, graph == null, mode, k, state.current());
            s.dependencies.put(k, List.copyOf(dependencies));
            s.blocking.put(k, blocking(hStream));
            byStream.put(k, s);
            return SUCCESS;
        }
    }

    private boolean blocking(long hStream) {
        StreamArea.Stream st = streams.streams.get(hStream);
        return st == null || (st.flags() & 1) == 0; // CU_STREAM_NON_BLOCKING
    }

    /**
     * Ends the capture begun on this stream: its graph (or NULL after an invalidation), every stream of the
     * capture released. CUDA_ERROR_ILLEGAL_STATE when the stream does not capture, _UNMATCHED when it joined a
     * capture begun elsewhere, _WRONG_THREAD from another thread unless relaxed, _UNJOINED (capture invalidated)
     * when a forked stream's work was not joined back, _INVALIDATED after an invalidation.
     *
     * @param out receives the graph, or null
     */
    /**
     * Whether the stream is the origin of a capture into the program's own graph (cuStreamBeginCaptureToGraph), whose
     * cuStreamEndCapture may pass a NULL phGraph (the program has the graph already; the cuda-samples'
     * graphConditionalNodes does so, and NVIDIA's driver accepts it).
     */
    boolean capturesIntoProgramGraph(long hStream) {
        synchronized (tables.lock) {
            long k = key(hStream);
            Sequence s = byStream.get(k);
            return s != null && s.originKey == k && !s.ownGraph;
        }
    }

    int end(long hStream, Graph[] out) {
        synchronized (tables.lock) {
            long k = key(hStream);
            Sequence s = byStream.get(k);
            if (s == null) return ILLEGAL_STATE;
            if (s.originKey != k) return STREAM_CAPTURE_UNMATCHED;
            if (s.mode != MODE_RELAXED && s.thread != Thread.currentThread()) return STREAM_CAPTURE_WRONG_THREAD;
            boolean joined = s.invalidated || unjoined(s) == null;
            byStream.values().removeIf(x -> x == s);
            events.values().removeIf(c -> c.sequence() == s);
            if (s.invalidated || !joined) {
                if (s.ownGraph) tables.destroy(s.graph, memory);
                out[0] = null;
                return s.invalidated ? STREAM_CAPTURE_INVALIDATED : STREAM_CAPTURE_UNJOINED;
            }
            out[0] = s.graph;
            return SUCCESS;
        }
    }

    /** A stream of the capture whose last work the origin stream does not depend on, or null when all joined. */
    private Long unjoined(Sequence s) {
        Set<Graph.Node> reach = new LinkedHashSet<>();
        List<Graph.Node> work = new ArrayList<>(s.dependencies.getOrDefault(s.originKey, List.of()));
        while (!work.isEmpty()) {
            Graph.Node n = work.removeLast();
            if (reach.add(n)) work.addAll(n.dependencies);
        }
        for (var e : s.dependencies.entrySet()) {
            if (e.getKey() == s.originKey) continue;
            for (Graph.Node n : e.getValue()) if (!reach.contains(n)) return e.getKey();
        }
        return null;
    }

    /** CU_STREAM_CAPTURE_STATUS_* of a stream. */
    int status(long hStream) {
        Sequence s = sequence(hStream);
        return s == null ? STATUS_NONE : s.invalidated ? STATUS_INVALIDATED : STATUS_ACTIVE;
    }

    /** Whether the legacy stream would implicitly wait for a capturing blocking stream of the current context. */
    List<Sequence> blockingCaptures() {
        Context c = state.current();
        List<Sequence> out = new ArrayList<>();
        for (Sequence s : new LinkedHashSet<>(byStream.values())) {
            if (s.context == c && s.blocking.containsValue(true)) out.add(s);
        }
        return out;
    }

    /** The dependencies of a capturing stream (cuStreamGetCaptureInfo), or an empty list. */
    List<Graph.Node> dependencies(long hStream) {
        synchronized (tables.lock) {
            Sequence s = sequence(hStream);
            return s == null ? List.of() : List.copyOf(s.dependencies.getOrDefault(key(hStream), List.of()));
        }
    }

    /** Replaces (set) or extends (add) a capturing stream's dependencies (cuStreamUpdateCaptureDependencies). */
    int updateDependencies(long hStream, List<Graph.Node> nodes, boolean set) {
        synchronized (tables.lock) {
            Sequence s = sequence(hStream);
            if (s == null) return ILLEGAL_STATE;
            if (s.invalidated) return STREAM_CAPTURE_INVALIDATED;
            for (Graph.Node n : nodes) if (n.graph != s.graph) return INVALID_VALUE;
            long k = key(hStream);
            List<Graph.Node> d = new ArrayList<>(set ? List.of() : s.dependencies.getOrDefault(k, List.of()));
            for (Graph.Node n : nodes) if (!d.contains(n)) d.add(n);
            s.dependencies.put(k, List.copyOf(d));
            return SUCCESS;
        }
    }

    /**
     * cuMemAllocAsync on a capturing stream: a mem alloc node whose graph memory is reserved now; its address is
     * written to {@code *dptr} at once, as CUDA does.
     */
    int allocate(long hStream, long dptr, long bytes) {
        if (dptr == 0 || bytes <= 0) return INVALID_VALUE;
        synchronized (tables.lock) {
            Graph.GraphMemory[] m = new Graph.GraphMemory[1];
            int r = tables.reserve(memory, bytes, m);
            if (r != SUCCESS) return r;
            byte[] params = GraphNodes.allocParams(bytes, m[0].address);
            r = add(hStream, new Graph.MemAlloc(m[0], params));
            if (r != SUCCESS) {
                if (m[0].release()) tables.memory.remove(m[0].address);
                return r;
            }
            Native.putLong(dptr, m[0].address);
            return SUCCESS;
        }
    }

    /** cuMemFreeAsync on a capturing stream: a mem free node; the memory must be graph memory. */
    int free(long hStream, long dptr) {
        synchronized (tables.lock) {
            if (!tables.memory.containsKey(dptr)) return INVALID_VALUE;
            return add(hStream, new Graph.MemFree(dptr));
        }
    }

    // ---------------------------------------------------------------- events across streams

    /**
     * cuEventRecord on a capturing stream: the event stands for the stream's capture dependencies now (no node).
     */
    int recordEvent(long hEvent, long hStream) {
        synchronized (tables.lock) {
            Sequence s = sequence(hStream);
            if (s == null) return ILLEGAL_STATE;
            if (s.invalidated) return STREAM_CAPTURE_INVALIDATED;
            events.put(hEvent, new Captured(s, List.copyOf(s.dependencies.getOrDefault(key(hStream), List.of()))));
            return SUCCESS;
        }
    }

    /** An event recorded outside a capture is no longer a captured one. */
    void recordedOutside(long hEvent) {
        if (!events.isEmpty()) events.remove(hEvent);
    }

    /** Whether the event was last recorded in a capture that is still going on. */
    boolean captured(long hEvent) {
        Captured c = events.isEmpty() ? null : events.get(hEvent);
        return c != null && byStream.containsValue(c.sequence());
    }

    /** What {@link #waitEvent} returns when the wait has nothing to do with a capture: the area waits as usual. */
    static final int NOT_CAPTURED = -1;

    /**
     * cuStreamWaitEvent where a capture is involved: a capturing stream waiting for an event of its own capture
     * gains the event's dependencies; a stream that does not capture, waiting for an event of a capture, joins it
     * (a fork) with those dependencies; an event of another capture cannot be mixed in
     * (CUDA_ERROR_STREAM_CAPTURE_MERGE); a capturing stream waiting for an event recorded outside any capture
     * waits for work that has completed (nothing is added). {@link #NOT_CAPTURED} when neither the stream nor the
     * event is in a capture.
     */
    int waitEvent(long hStream, long hEvent) {
        synchronized (tables.lock) {
            Captured c = events.get(hEvent);
            if (c != null && !byStream.containsValue(c.sequence())) c = null; // that capture has ended
            Sequence s = sequence(hStream);
            if (c == null) return s == null ? NOT_CAPTURED : s.invalidated ? STREAM_CAPTURE_INVALIDATED : SUCCESS;
            if (c.sequence().invalidated) return STREAM_CAPTURE_INVALIDATED;
            long k = key(hStream);
            if (s == null) {
                if (legacy(hStream)) return STREAM_CAPTURE_IMPLICIT;
                c.sequence().dependencies.put(k, c.nodes());
                c.sequence().blocking.put(k, blocking(hStream));
                byStream.put(k, c.sequence());
                return SUCCESS;
            }
            if (s != c.sequence()) return STREAM_CAPTURE_MERGE;
            List<Graph.Node> d = new ArrayList<>(s.dependencies.getOrDefault(k, List.of()));
            for (Graph.Node n : c.nodes()) if (!d.contains(n)) d.add(n);
            s.dependencies.put(k, List.copyOf(d));
            return SUCCESS;
        }
    }

    // ---------------------------------------------------------------- calls that conflict with a capture

    /** The captures that forbid the calling thread a potentially unsafe call (class comment). */
    private List<Sequence> prohibiting() {
        int m = threadMode.get()[0];
        List<Sequence> out = new ArrayList<>();
        if (m == MODE_RELAXED) return out;
        Thread t = Thread.currentThread();
        for (Sequence s : new LinkedHashSet<>(byStream.values())) {
            boolean mine = s.thread == t && s.mode != MODE_RELAXED;
            boolean global = m == MODE_GLOBAL && s.thread != t && s.mode == MODE_GLOBAL;
            if (mine || global) out.add(s);
        }
        return out;
    }

    private static int invalidate(List<Sequence> ss, int result) {
        for (Sequence s : ss) s.invalidated = true;
        return result;
    }

    /**
     * The interceptor of the calls that may conflict with a capture (class comment): roles ALLOCATION, FREE,
     * CONTEXT_SYNC, STREAM_SYNC, STREAM_QUERY, COPY, MEMSET, KERNEL_LAUNCH, HOST_CALLBACK, EVENT_RECORD, EVENT_WAIT.
     * Costs one map lookup while no stream captures.
     */
    int guard(Call call, IntSupplier next) {
        if (byStream.isEmpty()) return next.getAsInt();
        CudaFunction f = call.function();
        Role role = call.role();
        long[] a = call.args();
        int sp = streamParam(f);
        long hStream = sp >= 0 ? a[sp] : f.name().endsWith("_ptds") ? StreamArea.CU_STREAM_PER_THREAD : 0;
        if (role == Role.KERNEL_LAUNCH && f.param("config").isPresent() && a[0] != 0) hStream = CUlaunchConfig.hStream(a[0]);
        if (f.name().endsWith("_ptsz") && hStream == 0) hStream = StreamArea.CU_STREAM_PER_THREAD;
        switch (role) {
            case ALLOCATION, FREE -> {
                if (sp < 0) {
                    List<Sequence> p = prohibiting();
                    if (!p.isEmpty()) return invalidate(p, STREAM_CAPTURE_UNSUPPORTED);
                }
            }
            case CONTEXT_SYNC -> {
                List<Sequence> p = new ArrayList<>();
                for (Sequence s : new LinkedHashSet<>(byStream.values())) if (s.context == state.current()) p.add(s);
                if (!p.isEmpty()) return invalidate(p, STREAM_CAPTURE_UNSUPPORTED);
            }
            case STREAM_SYNC, STREAM_QUERY -> {
                Sequence s = sequence(hStream);
                if (s != null) return invalidate(List.of(s), STREAM_CAPTURE_UNSUPPORTED);
                if (legacy(hStream)) {
                    List<Sequence> b = blockingCaptures();
                    if (!b.isEmpty()) return invalidate(b, STREAM_CAPTURE_IMPLICIT);
                }
            }
            case COPY, MEMSET, KERNEL_LAUNCH, HOST_CALLBACK, EVENT_RECORD, EVENT_WAIT -> {
                if (sp < 0 && role != Role.COPY && role != Role.MEMSET && role != Role.KERNEL_LAUNCH) break;
                if (sp < 0 && hStream == StreamArea.CU_STREAM_PER_THREAD && sequence(hStream) != null) {
                    // a synchronous copy or memset on a capturing per-thread default stream
                    return invalidate(List.of(sequence(hStream)), STREAM_CAPTURE_UNSUPPORTED);
                }
                if (legacy(hStream)) {
                    List<Sequence> b = blockingCaptures();
                    if (!b.isEmpty()) return invalidate(b, STREAM_CAPTURE_IMPLICIT);
                }
            }
            default -> { }
        }
        return next.getAsInt();
    }

    private final Map<Integer, Integer> streamParams = new ConcurrentHashMap<>();

    /** The index of a function's CUstream parameter, or -1. */
    private int streamParam(CudaFunction f) {
        return streamParams.computeIfAbsent(f.id(), id -> {
            for (CudaParam p : f.params()) if (p.cType().equals("CUstream")) return p.index();
            return -1;
        });
    }

    /** Forgets the captures of a context being destroyed or reset. */
    void release(Context c) {
        synchronized (tables.lock) {
            byStream.values().removeIf(s -> s.context == c);
            events.values().removeIf(e -> e.sequence().context == c);
        }
    }
}
