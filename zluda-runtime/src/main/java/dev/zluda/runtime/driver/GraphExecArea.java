package dev.zluda.runtime.driver;

import dev.zluda.runtime.api.CudaStructs.CUDA_GRAPH_INSTANTIATE_PARAMS;
import dev.zluda.runtime.api.CudaStructs.CUgraphExecUpdateResultInfo_v1;
import dev.zluda.runtime.api.CudaStructs.CUgraphNodeParams;
import dev.zluda.runtime.emulator.GraphConditionals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.zluda.runtime.driver.CuResult.*;
import static dev.zluda.runtime.driver.Native.at;
import static dev.zluda.runtime.driver.Native.getLong;
import static dev.zluda.runtime.driver.Native.putInt;
import static dev.zluda.runtime.driver.Native.putLong;

/**
 * Executable graphs (CUDA Driver API group CUDA_GRAPH): instantiation into a private copy of a graph, the parameter
 * updates of its nodes, {@code cuGraphExecUpdate}, and launches.
 *
 * <p>{@code cuGraphLaunch} runs the executable graph's nodes on the calling thread, one after another in an order
 * that respects every dependency (creation order among the ready ones, {@link Graph#topologicalOrder}), each as
 * the stream operation it stands for — a valid schedule under CUDA's graph semantics, since the emulator completes
 * every operation before the next starts. Kernel snapshots of a graph launch ({@link LaunchObserver}) bracket the
 * whole graph: every kernel node the observer wants is described and its before-images are taken before the first
 * node runs, its after-images after the last; the records appear in the order the kernel nodes run, all under the
 * {@code cuGraphLaunch} call (trace-format/FORMAT.md §6.5), as the NVIDIA tracer records them. Device-side launch
 * ({@code CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH}): CUDA_ERROR_NOT_SUPPORTED.
 *
 * <p>Handles: errors for a NULL or unknown graph, node or executable graph are CUDA_ERROR_INVALID_VALUE, as
 * cuda.h lists for these functions.
 */
final class GraphExecArea {
    /** CUgraphInstantiate_flags. */
    static final long INSTANTIATE_AUTO_FREE_ON_LAUNCH = 1, INSTANTIATE_UPLOAD = 2, INSTANTIATE_DEVICE_LAUNCH = 4, INSTANTIATE_USE_NODE_PRIORITY = 8;
    /** CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE. */
    static final int GRAPH_EXEC_UPDATE_FAILURE = 910;

    /** An executable graph (CUgraphExec): a private copy of the graph it was made from. */
    static final class Exec {
        final long handle;
        final Graph graph;
        /** Nodes of the graphs it was instantiated or updated from → its own nodes. */
        final Map<Graph.Node, Graph.Node> byOrigin;
        final long flags;
        /** Its nodes the program disabled (cuGraphNodeSetEnabled). */
        final Set<Graph.Node> disabled = new HashSet<>();

        Exec(long handle, Graph graph, Map<Graph.Node, Graph.Node> byOrigin, long flags) {
            this.handle = handle;
            this.graph = graph;
            this.byOrigin = byOrigin;
            this.flags = flags;
        }
    }

    private final DriverState state;
    private final Graph.Tables tables;
    private final GraphNodes nodes;
    private final MemoryArea memory;
    private final StreamArea streams;
    private final EventArea events;
    private final CopyArea copies;
    private final LaunchArea launches;
    private final StreamCapture capture;
    private final Handles<Exec> execs = new Handles<>(0x32);

    GraphExecArea(GraphNodes nodes, MemoryArea memory, StreamArea streams, EventArea events, CopyArea copies, LaunchArea launches,
                  StreamCapture capture) {
        this.state = nodes.state;
        this.tables = nodes.tables;
        this.nodes = nodes;
        this.memory = memory;
        this.streams = streams;
        this.events = events;
        this.copies = copies;
        this.launches = launches;
        this.capture = capture;
    }

    private Exec exec(long h) {
        return h == 0 ? null : execs.get(h);
    }

    // ---------------------------------------------------------------- instantiation

    /**
     * Makes an executable graph: a private copy of the graph. CUDA_ERROR_INVALID_VALUE for a graph whose
     * dependencies form a cycle (the error node is one on the cycle); device launch: CUDA_ERROR_NOT_SUPPORTED.
     */
    private int instantiate(long phGraphExec, long hGraph, long flags, long[] errorNode) {
        Graph g = nodes.graph(hGraph);
        if (phGraphExec == 0 || g == null) return INVALID_VALUE;
        if ((flags & ~(INSTANTIATE_AUTO_FREE_ON_LAUNCH | INSTANTIATE_UPLOAD | INSTANTIATE_DEVICE_LAUNCH | INSTANTIATE_USE_NODE_PRIORITY)) != 0) {
            return INVALID_VALUE;
        }
        if ((flags & INSTANTIATE_DEVICE_LAUNCH) != 0) return nodes.unsupported("device-side graph launch (CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH)");
        Graph.Node bad = acyclic(g);
        if (bad != null) {
            errorNode[0] = bad.handle;
            return INVALID_VALUE;
        }
        Map<Graph.Node, Graph.Node> map = new IdentityHashMap<>();
        Graph copy = tables.copy(g, false, map);
        long h = execs.reserve();
        execs.put(h, new Exec(h, copy, map, flags));
        putLong(phGraphExec, h);
        return SUCCESS;
    }

    /** A node on a dependency cycle of the graph or of a graph nested in it, or null. */
    private static Graph.Node acyclic(Graph g) {
        if (g.topologicalOrder() == null) {
            List<Graph.Node> order = new ArrayList<>();
            for (Graph.Node n : g.nodes) if (!n.dependencies.isEmpty()) order.add(n);
            return order.isEmpty() ? g.nodes.getFirst() : order.getFirst();
        }
        for (Graph.Node n : g.nodes) {
            if (n.params instanceof Graph.Child c) {
                Graph.Node b = acyclic(c.graph());
                if (b != null) return b;
            }
            if (n.params instanceof Graph.Conditional c) {
                for (Graph b : c.bodies()) {
                    Graph.Node x = acyclic(b);
                    if (x != null) return x;
                }
            }
        }
        return null;
    }

    /** The conditional handles made for a graph or the graphs nested in it: {handle, default value, flags}. */
    private static List<long[]> conditionsOf(Graph g) {
        List<long[]> out = new ArrayList<>(g.conditions);
        for (Graph.Node n : g.nodes) {
            if (n.params instanceof Graph.Child ch) out.addAll(conditionsOf(ch.graph()));
            if (n.params instanceof Graph.Conditional cd) for (Graph b : cd.bodies()) out.addAll(conditionsOf(b));
        }
        return out;
    }

    public int cuGraphInstantiateWithFlags(long phGraphExec, long hGraph, long flags) {
        return nodes.locked(() -> instantiate(phGraphExec, hGraph, flags, new long[1]));
    }

    /**
     * cuGraphInstantiateWithParams: as WithFlags; writes hErrNode_out and result_out
     * (CUDA_GRAPH_INSTANTIATE_SUCCESS, _INVALID_STRUCTURE for a cycle, _NODE_OPERATION_NOT_SUPPORTED, _ERROR).
     */
    public int cuGraphInstantiateWithParams(long phGraphExec, long hGraph, long instantiateParams) {
        return nodes.locked(() -> {
            if (instantiateParams == 0) return INVALID_VALUE;
            long flags = CUDA_GRAPH_INSTANTIATE_PARAMS.flags(instantiateParams);
            if ((flags & INSTANTIATE_UPLOAD) != 0) {
                int r = streams.checkStream(CUDA_GRAPH_INSTANTIATE_PARAMS.hUploadStream(instantiateParams));
                if (r != SUCCESS) return r;
            }
            long[] err = new long[1];
            int r = instantiate(phGraphExec, hGraph, flags, err);
            CUDA_GRAPH_INSTANTIATE_PARAMS.hErrNode_out(instantiateParams, err[0]);
            CUDA_GRAPH_INSTANTIATE_PARAMS.result_out(instantiateParams, r == SUCCESS ? 0 : err[0] != 0 ? 2 : r == NOT_SUPPORTED ? 3 : 1);
            return r;
        });
    }

    /** cuGraphInstantiate (CUDA 10 signature): errors name the node in *phErrorNode and a line in logBuffer. */
    public int cuGraphInstantiate(long phGraphExec, long hGraph, long phErrorNode, long logBuffer, long bufferSize) {
        return nodes.locked(() -> {
            long[] err = new long[1];
            int r = instantiate(phGraphExec, hGraph, 0, err);
            if (phErrorNode != 0) putLong(phErrorNode, err[0]);
            if (logBuffer != 0 && bufferSize > 0) {
                String log = r == SUCCESS ? "" : err[0] != 0 ? "the graph's dependencies form a cycle" : "the graph cannot be instantiated";
                byte[] b = log.getBytes(StandardCharsets.UTF_8);
                int n = (int) Math.min(b.length, bufferSize - 1);
                MemorySegment out = at(logBuffer, n + 1);
                MemorySegment.copy(b, 0, out, ValueLayout.JAVA_BYTE, 0, n);
                out.set(ValueLayout.JAVA_BYTE, n, (byte) 0);
            }
            return r;
        });
    }

    public int cuGraphInstantiate_v2(long phGraphExec, long hGraph, long phErrorNode, long logBuffer, long bufferSize) {
        return cuGraphInstantiate(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize);
    }

    public int cuGraphExecGetFlags(long hGraphExec, long flags) {
        return nodes.locked(() -> {
            Exec e = exec(hGraphExec);
            if (e == null || flags == 0) return INVALID_VALUE;
            putLong(flags, e.flags);
            return SUCCESS;
        });
    }

    /** cuGraphExecDestroy: the executable graph and what its copy holds (graph memory, user-object references). */
    public int cuGraphExecDestroy(long hGraphExec) {
        return nodes.locked(() -> {
            Exec e = execs.remove(hGraphExec);
            if (e == null) return INVALID_VALUE;
            tables.destroy(e.graph, memory);
            return SUCCESS;
        });
    }

    /** An executable graph's node for a node of a graph it was made or updated from, or null. */
    private Graph.Node execNode(Exec e, long hNode) {
        Graph.Node o = nodes.node(hNode);
        return o == null ? null : e.byOrigin.get(o);
    }

    /** Sets new parameters on an executable graph's copy of a node of the same kind. */
    private int execSet(long hGraphExec, long hNode, int type, java.util.function.Function<Graph.Node, Object> params) {
        return nodes.locked(() -> {
            Exec e = exec(hGraphExec);
            if (e == null) return INVALID_VALUE;
            Graph.Node n = execNode(e, hNode);
            if (n == null || n.params.type() != type) return INVALID_VALUE;
            return nodes.setParams(n, params.apply(n));
        });
    }

    public int cuGraphExecKernelNodeSetParams_v2(long hGraphExec, long hNode, long nodeParams) {
        return execSet(hGraphExec, hNode, Graph.KERNEL, n -> nodes.kernel(nodeParams, true));
    }

    public int cuGraphExecKernelNodeSetParams(long hGraphExec, long hNode, long nodeParams) {
        return execSet(hGraphExec, hNode, Graph.KERNEL, n -> nodes.kernel(nodeParams, false));
    }

    public int cuGraphExecMemcpyNodeSetParams(long hGraphExec, long hNode, long copyParams, long ctx) {
        return execSet(hGraphExec, hNode, Graph.MEMCPY, n -> nodes.memcpy(copyParams, ctx));
    }

    public int cuGraphExecMemsetNodeSetParams(long hGraphExec, long hNode, long memsetParams, long ctx) {
        return execSet(hGraphExec, hNode, Graph.MEMSET, n -> nodes.memset(memsetParams, ctx));
    }

    public int cuGraphExecHostNodeSetParams(long hGraphExec, long hNode, long nodeParams) {
        return execSet(hGraphExec, hNode, Graph.HOST, n -> nodes.host(nodeParams));
    }

    /** cuGraphExecChildGraphNodeSetParams: the child's nodes get the parameters of childGraph's (same topology). */
    public int cuGraphExecChildGraphNodeSetParams(long hGraphExec, long hNode, long childGraph) {
        return nodes.locked(() -> {
            Exec e = exec(hGraphExec);
            Graph c = nodes.graph(childGraph);
            Graph.Node n = e == null ? null : execNode(e, hNode);
            if (n == null || c == null || n.params.type() != Graph.GRAPH) return INVALID_VALUE;
            long[] info = new long[3];
            if (!update(((Graph.Child) n.params).graph(), c, info, new IdentityHashMap<>())) return INVALID_VALUE;
            return SUCCESS;
        });
    }

    public int cuGraphExecEventRecordNodeSetEvent(long hGraphExec, long hNode, long event) {
        return execSet(hGraphExec, hNode, Graph.EVENT_RECORD, n -> nodes.event(event, true));
    }

    public int cuGraphExecEventWaitNodeSetEvent(long hGraphExec, long hNode, long event) {
        return execSet(hGraphExec, hNode, Graph.WAIT_EVENT, n -> nodes.event(event, false));
    }

    /** cuGraphExecNodeSetParams: as cuGraphNodeSetParams, on the executable graph's copy. */
    public int cuGraphExecNodeSetParams(long hGraphExec, long hNode, long nodeParams) {
        return nodes.locked(() -> {
            Exec e = exec(hGraphExec);
            Graph.Node n = e == null ? null : execNode(e, hNode);
            if (n == null || nodeParams == 0 || CUgraphNodeParams.type(nodeParams) != n.params.type()) return INVALID_VALUE;
            if (n.params instanceof Graph.Child ch) {
                long c = getLong(nodeParams + CUgraphNodeParams.OFF_kernel);
                Graph g = nodes.graph(c);
                return g != null && update(ch.graph(), g, new long[3], new IdentityHashMap<>()) ? SUCCESS : INVALID_VALUE;
            }
            if (n.params instanceof Graph.MemAlloc || n.params instanceof Graph.MemFree || n.params instanceof Graph.Conditional) return INVALID_VALUE;
            return nodes.setParams(n, nodes.generic(nodeParams, n.graph));
        });
    }

    /** cuGraphNodeSetEnabled: kernel, memcpy and memset nodes of an executable graph can be turned into no-ops and back. */
    public int cuGraphNodeSetEnabled(long hGraphExec, long hNode, int isEnabled) {
        return nodes.locked(() -> {
            Exec e = exec(hGraphExec);
            Graph.Node n = e == null ? null : execNode(e, hNode);
            if (n == null) return INVALID_VALUE;
            int t = n.params.type();
            if (t != Graph.KERNEL && t != Graph.MEMCPY && t != Graph.MEMSET) return INVALID_VALUE;
            if (isEnabled != 0) e.disabled.remove(n);
            else e.disabled.add(n);
            return SUCCESS;
        });
    }

    public int cuGraphNodeGetEnabled(long hGraphExec, long hNode, long isEnabled) {
        return nodes.locked(() -> {
            Exec e = exec(hGraphExec);
            Graph.Node n = e == null ? null : execNode(e, hNode);
            if (n == null || isEnabled == 0) return INVALID_VALUE;
            int t = n.params.type();
            if (t != Graph.KERNEL && t != Graph.MEMCPY && t != Graph.MEMSET) return INVALID_VALUE;
            putInt(isEnabled, e.disabled.contains(n) ? 0 : 1);
            return SUCCESS;
        });
    }

    /**
     * Updates an executable graph's copy {@code target} from {@code source} when both have the same topology: as
     * many nodes, in creation order of the same kinds, with the same edges (by position); child graphs likewise.
     * Nodes are paired by creation order (cuda.h, cuGraphExecUpdate). Memory allocation and free nodes and
     * conditional nodes must keep their parameters.
     *
     * @param info receives CUgraphExecUpdateResult, the error node and the error-from node (handles of source)
     * @param pairs receives source node → target node
     * @return whether the update was made (nothing changes otherwise)
     */
    private boolean update(Graph target, Graph source, long[] info, Map<Graph.Node, Graph.Node> pairs) {
        if (!compatible(target, source, info)) return false;
        apply(target, source, pairs);
        return true;
    }

    private boolean compatible(Graph target, Graph source, long[] info) {
        if (target.nodes.size() != source.nodes.size()) {
            info[0] = 2; // CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED
            return false;
        }
        for (int i = 0; i < source.nodes.size(); i++) {
            Graph.Node s = source.nodes.get(i), t = target.nodes.get(i);
            if (s.params.type() != t.params.type()) {
                info[0] = 3; // NODE_TYPE_CHANGED
                info[1] = s.handle;
                return false;
            }
            List<Integer> sd = new ArrayList<>(), td = new ArrayList<>();
            for (Graph.Node d : s.dependencies) sd.add(source.index(d));
            for (Graph.Node d : t.dependencies) td.add(target.index(d));
            if (!new HashSet<>(sd).equals(new HashSet<>(td))) {
                info[0] = 2;
                info[1] = s.handle;
                return false;
            }
            boolean fixed = switch (s.params) {
                case Graph.MemAlloc a -> a.memory() != ((Graph.MemAlloc) t.params).memory();
                case Graph.MemFree f -> f.dptr() != ((Graph.MemFree) t.params).dptr();
                case Graph.Conditional c -> c.handle() != ((Graph.Conditional) t.params).handle();
                default -> false;
            };
            if (fixed) {
                info[0] = 5; // PARAMETERS_CHANGED
                info[1] = s.handle;
                return false;
            }
            if (s.params instanceof Graph.Child sc && !compatible(((Graph.Child) t.params).graph(), sc.graph(), info)) return false;
            if (s.params instanceof Graph.Conditional sc) {
                Graph[] tb = ((Graph.Conditional) t.params).bodies();
                for (int b = 0; b < sc.bodies().length; b++) if (!compatible(tb[b], sc.bodies()[b], info)) return false;
            }
        }
        return true;
    }

    private void apply(Graph target, Graph source, Map<Graph.Node, Graph.Node> pairs) {
        for (int i = 0; i < source.nodes.size(); i++) {
            Graph.Node s = source.nodes.get(i), t = target.nodes.get(i);
            pairs.put(s, t);
            switch (s.params) {
                case Graph.Child sc -> apply(((Graph.Child) t.params).graph(), sc.graph(), pairs);
                case Graph.Conditional sc -> {
                    Graph[] tb = ((Graph.Conditional) t.params).bodies();
                    for (int b = 0; b < tb.length; b++) apply(tb[b], sc.bodies()[b], pairs);
                }
                case Graph.MemAlloc a -> { }
                default -> t.params = s.params;
            }
            t.attributes.clear();
            t.attributes.putAll(s.attributes);
        }
    }

    /**
     * cuGraphExecUpdate_v2: the executable graph takes the parameters of hGraph's nodes when the topology is the same
     * ({@link #update}); else CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE with the reason in resultInfo.
     */
    public int cuGraphExecUpdate_v2(long hGraphExec, long hGraph, long resultInfo) {
        return nodes.locked(() -> {
            Exec e = exec(hGraphExec);
            Graph g = nodes.graph(hGraph);
            if (e == null || g == null || resultInfo == 0) return INVALID_VALUE;
            long[] info = new long[3];
            Map<Graph.Node, Graph.Node> pairs = new IdentityHashMap<>();
            boolean ok = update(e.graph, g, info, pairs);
            if (ok) e.byOrigin.putAll(pairs);
            CUgraphExecUpdateResultInfo_v1.result(resultInfo, ok ? 0 : (int) info[0]);
            CUgraphExecUpdateResultInfo_v1.errorNode(resultInfo, info[1]);
            CUgraphExecUpdateResultInfo_v1.errorFromNode(resultInfo, info[2]);
            return ok ? SUCCESS : GRAPH_EXEC_UPDATE_FAILURE;
        });
    }

    /** cuGraphExecUpdate (CUDA 10.2 signature): the error node and the CUgraphExecUpdateResult through two pointers. */
    public int cuGraphExecUpdate(long hGraphExec, long hGraph, long hErrorNode_out, long updateResult_out) {
        return nodes.locked(() -> {
            Exec e = exec(hGraphExec);
            Graph g = nodes.graph(hGraph);
            if (e == null || g == null || hErrorNode_out == 0 || updateResult_out == 0) return INVALID_VALUE;
            long[] info = new long[3];
            Map<Graph.Node, Graph.Node> pairs = new IdentityHashMap<>();
            boolean ok = update(e.graph, g, info, pairs);
            if (ok) e.byOrigin.putAll(pairs);
            putLong(hErrorNode_out, info[1]);
            putInt(updateResult_out, ok ? 0 : (int) info[0]);
            return ok ? SUCCESS : GRAPH_EXEC_UPDATE_FAILURE;
        });
    }

    // ---------------------------------------------------------------- launch

    /** cuGraphUpload: nothing to upload ahead of a launch; checks the graph and the stream. */
    public int cuGraphUpload(long hGraphExec, long hStream) {
        int r = streams.checkStream(hStream);
        if (r != SUCCESS) return r;
        return exec(hGraphExec) == null ? INVALID_VALUE : SUCCESS;
    }

    /**
     * cuGraphLaunch: runs the executable graph's nodes on the stream, in dependency order (class comment). On a
     * capturing stream the graph becomes a child graph node of the capture instead. A node that fails stops the
     * launch with its error; a kernel fault leaves the context's sticky error as a direct launch does.
     */
    public int cuGraphLaunch(long hGraphExec, long hStream) {
        int r = streams.checkStream(hStream);
        if (r != SUCCESS) return r;
        Exec e;
        synchronized (tables.lock) {
            e = exec(hGraphExec);
            if (e == null) return INVALID_VALUE;
            if (capture.capturing(hStream)) {
                Graph copy = tables.copy(e.graph, true, new IdentityHashMap<>());
                Graph.Node[] n = new Graph.Node[1];
                r = capture.add(hStream, new Graph.Child(copy), n);
                if (r != SUCCESS) tables.destroy(copy, memory);
                else copy.owner = n[0];
                return r;
            }
        }
        r = streams.streamDone(hStream);
        if (r != SUCCESS) return r;
        for (long[] c : conditionsOf(e.graph)) if ((c[2] & GraphArea.COND_ASSIGN_DEFAULT) != 0) GraphConditionals.set(c[0], (int) c[1]);
        // kernel snapshots bracket the whole graph
        LaunchObserver obs = state.launchObserver();
        List<Object[]> snapshots = new ArrayList<>();
        if (obs != null) {
            for (LaunchArea.Packed p : kernels(e.graph, e.disabled)) {
                try {
                    if (!obs.wants(p.fn().kernel.name())) continue;
                    LaunchObserver.KernelLaunch k = launches.describe(p);
                    snapshots.add(new Object[] {k, obs.before(k)});
                } catch (RuntimeException x) {
                    // a failing observer never stops the launch
                }
            }
        }
        Context ctx = state.current();
        int stickyBefore = ctx == null ? SUCCESS : ctx.stickyError();
        r = run(e.graph, hStream, e.disabled);
        if (!snapshots.isEmpty()) {
            int result = stickyBefore == SUCCESS && ctx != null ? ctx.stickyError() : SUCCESS;
            if (!state.backend().synchronous()) result = state.backend().synchronizeStream(streams.nativeStream(hStream));
            for (Object[] s : snapshots) {
                try {
                    obs.after(s[1], (LaunchObserver.KernelLaunch) s[0], result);
                } catch (RuntimeException x) {
                    // the observer's failure is its own
                }
            }
        }
        return r;
    }

    /** The kernel launches of a graph in the order they run, child graphs included (conditional bodies are not known in advance). */
    private static List<LaunchArea.Packed> kernels(Graph g, Set<Graph.Node> disabled) {
        List<LaunchArea.Packed> out = new ArrayList<>();
        List<Graph.Node> order = g.topologicalOrder();
        if (order == null) return out;
        for (Graph.Node n : order) {
            if (disabled.contains(n)) continue;
            if (n.params instanceof Graph.Kernel k) out.add(k.launch());
            if (n.params instanceof Graph.Child c) out.addAll(kernels(c.graph(), Set.of()));
        }
        return out;
    }

    /** Runs a graph's nodes in dependency order; the first failure stops it. */
    private int run(Graph g, long hStream, Set<Graph.Node> disabled) {
        List<Graph.Node> order = g.topologicalOrder();
        if (order == null) return INVALID_VALUE;
        for (Graph.Node n : order) {
            if (disabled.contains(n)) continue;
            int r = runNode(n, hStream);
            if (r != SUCCESS) return r;
        }
        return SUCCESS;
    }

    /** Runs one node as the stream operation it stands for. */
    private int runNode(Graph.Node n, long hStream) {
        return switch (n.params) {
            case Graph.Kernel k -> {
                if (k.launch().fn().module.unloaded) yield INVALID_HANDLE;
                yield launches.run(k.launch(), hStream, false);
            }
            case Graph.Memcpy m -> {
                try (Arena a = Arena.ofConfined()) {
                    MemorySegment c = a.allocate(m.copy().length, 8);
                    MemorySegment.copy(m.copy(), 0, c, ValueLayout.JAVA_BYTE, 0, m.copy().length);
                    yield copies.cuMemcpy3D_v2(c.address());
                }
            }
            case Graph.Memset m -> switch (m.elementSize()) {
                case 1 -> copies.cuMemsetD2D8_v2(m.dst(), m.pitch(), m.value(), m.width(), m.height());
                case 2 -> copies.cuMemsetD2D16_v2(m.dst(), m.pitch(), m.value(), m.width(), m.height());
                default -> copies.cuMemsetD2D32_v2(m.dst(), m.pitch(), m.value(), m.width(), m.height());
            };
            case Graph.Host h -> {
                state.flushDeviceOutput(); // a host function is a device printf flush point
                yield StreamArea.callHost(h.fn(), h.userData());
            }
            case Graph.Empty x -> SUCCESS;
            case Graph.EventRecord ev -> events.cuEventRecord(ev.event(), hStream);
            case Graph.EventWait ev -> events.cuStreamWaitEvent(hStream, ev.event(), 0);
            case Graph.Child c -> run(c.graph(), hStream, Set.of());
            case Graph.MemAlloc a -> {
                synchronized (tables.lock) {
                    tables.map(memory, a.memory());
                }
                yield SUCCESS;
            }
            case Graph.MemFree f -> {
                synchronized (tables.lock) {
                    Graph.GraphMemory m = tables.memory.get(f.dptr());
                    if (m != null) tables.unmap(memory, m);
                }
                yield SUCCESS;
            }
            case Graph.Conditional c -> runConditional(c, hStream);
        };
    }

    /** Runs a conditional node's body or bodies by the current value of its handle. */
    private int runConditional(Graph.Conditional c, long hStream) {
        switch (c.condType()) {
            case 0 -> {
                int v = GraphConditionals.get(c.handle());
                if (v != 0) return run(c.bodies()[0], hStream, Set.of());
                return c.bodies().length > 1 ? run(c.bodies()[1], hStream, Set.of()) : SUCCESS;
            }
            case 1 -> {
                while (GraphConditionals.get(c.handle()) != 0) {
                    int r = run(c.bodies()[0], hStream, Set.of());
                    if (r != SUCCESS) return r;
                    Context ctx = state.current();
                    if (ctx != null && ctx.stickyError() != SUCCESS) return SUCCESS; // a kernel fault ends the loop
                }
                return SUCCESS;
            }
            default -> {
                long v = Integer.toUnsignedLong(GraphConditionals.get(c.handle()));
                return v < c.bodies().length ? run(c.bodies()[(int) v], hStream, Set.of()) : SUCCESS;
            }
        }
    }
}
