package dev.zluda.runtime.driver;

import dev.zluda.runtime.api.CudaStructs.CUDA_KERNEL_NODE_PARAMS_v1;
import dev.zluda.runtime.api.CudaStructs.CUgraphNodeParams;
import dev.zluda.runtime.emulator.GraphConditionals;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.zluda.runtime.driver.CuResult.*;
import static dev.zluda.runtime.driver.Native.at;
import static dev.zluda.runtime.driver.Native.getInt;
import static dev.zluda.runtime.driver.Native.getLong;
import static dev.zluda.runtime.driver.Native.putInt;
import static dev.zluda.runtime.driver.Native.putLong;

/**
 * CUDA graphs as the program builds them (CUDA Driver API group CUDA_GRAPH): graphs and their nodes of every kind
 * ({@link GraphNodes}), the queries and edits of nodes and edges, clones, kernel-node attributes, conditional
 * handles, user objects, graph memory accounting and {@code cuGraphDebugDotPrint} ({@link GraphDot}). Executable
 * graphs: {@link GraphExecArea}; stream capture: {@link StreamCaptureArea}.
 *
 * <p>Handles: errors for a NULL or unknown graph or node are CUDA_ERROR_INVALID_VALUE, as cuda.h lists for these
 * functions.
 */
final class GraphArea {
    /** CU_GRAPH_COND_ASSIGN_DEFAULT. */
    static final int COND_ASSIGN_DEFAULT = 1;

    private final DriverState state;
    private final Graph.Tables tables;
    private final GraphNodes nodes;
    private final MemoryArea memory;

    GraphArea(GraphNodes nodes, MemoryArea memory) {
        this.state = nodes.state;
        this.tables = nodes.tables;
        this.nodes = nodes;
        this.memory = memory;
    }

    /** Adds a node to a graph after its dependencies and writes its handle. */
    private int add(long phGraphNode, long hGraph, long dependencies, long numDependencies, java.util.function.Function<Graph, Object> params) {
        return nodes.locked(() -> {
            Graph g = nodes.graph(hGraph);
            if (phGraphNode == 0 || g == null) return INVALID_VALUE;
            List<Graph.Node> deps = nodes.nodeList(dependencies, numDependencies, g);
            if (deps == null) return INVALID_VALUE;
            Object p = params.apply(g);
            if (p instanceof Integer error) return error;
            Graph.Node n = tables.addNode(g, (Graph.Params) p, deps);
            nodes.adopt(n);
            putLong(phGraphNode, n.handle);
            return SUCCESS;
        });
    }

    // ---------------------------------------------------------------- graphs and nodes

    /** cuGraphCreate: an empty graph; flags must be 0. */
    public int cuGraphCreate(long phGraph, int flags) {
        return nodes.locked(() -> {
            if (phGraph == 0 || flags != 0) return INVALID_VALUE;
            putLong(phGraph, tables.newGraph().handle);
            return SUCCESS;
        });
    }

    /** cuGraphDestroy: the graph, its nodes and what they own; executable graphs made from it stay. */
    public int cuGraphDestroy(long hGraph) {
        return nodes.locked(() -> {
            Graph g = nodes.graph(hGraph);
            if (g == null || g.owner != null) return INVALID_VALUE;
            tables.destroy(g, memory);
            nodes.dropConditions(g);
            return SUCCESS;
        });
    }

    public int cuGraphAddKernelNode_v2(long phGraphNode, long hGraph, long dependencies, long numDependencies, long nodeParams) {
        return add(phGraphNode, hGraph, dependencies, numDependencies, g -> nodes.kernel(nodeParams, true));
    }

    /** cuGraphAddKernelNode: CUDA_KERNEL_NODE_PARAMS_v1 (no kern, no ctx). */
    public int cuGraphAddKernelNode(long phGraphNode, long hGraph, long dependencies, long numDependencies, long nodeParams) {
        return add(phGraphNode, hGraph, dependencies, numDependencies, g -> nodes.kernel(nodeParams, false));
    }

    public int cuGraphAddMemcpyNode(long phGraphNode, long hGraph, long dependencies, long numDependencies, long copyParams, long ctx) {
        return add(phGraphNode, hGraph, dependencies, numDependencies, g -> nodes.memcpy(copyParams, ctx));
    }

    public int cuGraphAddMemsetNode(long phGraphNode, long hGraph, long dependencies, long numDependencies, long memsetParams, long ctx) {
        return add(phGraphNode, hGraph, dependencies, numDependencies, g -> nodes.memset(memsetParams, ctx));
    }

    public int cuGraphAddHostNode(long phGraphNode, long hGraph, long dependencies, long numDependencies, long nodeParams) {
        return add(phGraphNode, hGraph, dependencies, numDependencies, g -> nodes.host(nodeParams));
    }

    /** cuGraphAddChildGraphNode: the node embeds a copy of childGraph (CUDA clones it). */
    public int cuGraphAddChildGraphNode(long phGraphNode, long hGraph, long dependencies, long numDependencies, long childGraph) {
        return add(phGraphNode, hGraph, dependencies, numDependencies, g -> childGraph == hGraph ? INVALID_VALUE : nodes.child(childGraph, false));
    }

    public int cuGraphAddEmptyNode(long phGraphNode, long hGraph, long dependencies, long numDependencies) {
        return add(phGraphNode, hGraph, dependencies, numDependencies, g -> new Graph.Empty());
    }

    public int cuGraphAddEventRecordNode(long phGraphNode, long hGraph, long dependencies, long numDependencies, long event) {
        return add(phGraphNode, hGraph, dependencies, numDependencies, g -> nodes.event(event, true));
    }

    public int cuGraphAddEventWaitNode(long phGraphNode, long hGraph, long dependencies, long numDependencies, long event) {
        return add(phGraphNode, hGraph, dependencies, numDependencies, g -> nodes.event(event, false));
    }

    /** cuGraphAddMemAllocNode: reserves the memory now and writes its address to nodeParams->dptr. */
    public int cuGraphAddMemAllocNode(long phGraphNode, long hGraph, long dependencies, long numDependencies, long nodeParams) {
        return add(phGraphNode, hGraph, dependencies, numDependencies, g -> nodes.alloc(nodeParams));
    }

    /** cuGraphAddMemFreeNode: dptr must be the address of graph memory (of this or another graph). */
    public int cuGraphAddMemFreeNode(long phGraphNode, long hGraph, long dependencies, long numDependencies, long dptr) {
        return add(phGraphNode, hGraph, dependencies, numDependencies, g -> nodes.free(dptr));
    }

    /** cuGraphAddNode: a node of any supported kind from a CUgraphNodeParams. */
    public int cuGraphAddNode(long phGraphNode, long hGraph, long dependencies, long numDependencies, long nodeParams) {
        return add(phGraphNode, hGraph, dependencies, numDependencies, g -> nodes.generic(nodeParams, g));
    }

    /** cuGraphAddNode_v2: as cuGraphAddNode with edge data (ports and types are kept as plain dependencies). */
    public int cuGraphAddNode_v2(long phGraphNode, long hGraph, long dependencies, long dependencyData, long numDependencies, long nodeParams) {
        return cuGraphAddNode(phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
    }

    /** A query or edit of one node of a given kind: checks the handle and the kind, then runs {@code body}. */
    private int onNode(long hNode, int type, java.util.function.ToIntFunction<Graph.Node> body) {
        return nodes.locked(() -> {
            Graph.Node n = nodes.node(hNode);
            if (n == null || (type >= 0 && n.params.type() != type)) return INVALID_VALUE;
            return body.applyAsInt(n);
        });
    }

    /**
     * A query that writes what a node of a given kind holds to {@code out}: CUDA_ERROR_INVALID_VALUE for a NULL
     * {@code out}, else {@code write} fills it.
     */
    private int query(long hNode, int type, long out, java.util.function.BiConsumer<Graph.Node, Long> write) {
        return onNode(hNode, type, n -> {
            if (out == 0) return INVALID_VALUE;
            write.accept(n, out);
            return SUCCESS;
        });
    }

    /** Copies a node's parameter bytes (a CUDA_MEMCPY3D, a CUDA_MEM_ALLOC_NODE_PARAMS) to {@code out}. */
    private static void copyOut(byte[] b, long out) {
        MemorySegment.copy(b, 0, at(out, b.length), ValueLayout.JAVA_BYTE, 0, b.length);
    }

    public int cuGraphKernelNodeGetParams_v2(long hNode, long nodeParams) {
        return query(hNode, Graph.KERNEL, nodeParams, (n, p) -> nodes.writeKernel(n, p, true));
    }

    public int cuGraphKernelNodeGetParams(long hNode, long nodeParams) {
        return query(hNode, Graph.KERNEL, nodeParams, (n, p) -> nodes.writeKernel(n, p, false));
    }

    public int cuGraphKernelNodeSetParams_v2(long hNode, long nodeParams) {
        return onNode(hNode, Graph.KERNEL, n -> nodes.setParams(n, nodes.kernel(nodeParams, true)));
    }

    public int cuGraphKernelNodeSetParams(long hNode, long nodeParams) {
        return onNode(hNode, Graph.KERNEL, n -> nodes.setParams(n, nodes.kernel(nodeParams, false)));
    }

    public int cuGraphMemcpyNodeGetParams(long hNode, long nodeParams) {
        return query(hNode, Graph.MEMCPY, nodeParams, (n, p) -> copyOut(((Graph.Memcpy) n.params).copy(), p));
    }

    public int cuGraphMemcpyNodeSetParams(long hNode, long nodeParams) {
        return onNode(hNode, Graph.MEMCPY, n -> nodes.setParams(n, nodes.memcpy(nodeParams, ((Graph.Memcpy) n.params).ctx())));
    }

    public int cuGraphMemsetNodeGetParams(long hNode, long nodeParams) {
        return query(hNode, Graph.MEMSET, nodeParams, (n, p) -> GraphNodes.writeMemset((Graph.Memset) n.params, p));
    }

    public int cuGraphMemsetNodeSetParams(long hNode, long nodeParams) {
        return onNode(hNode, Graph.MEMSET, n -> nodes.setParams(n, nodes.memset(nodeParams, ((Graph.Memset) n.params).ctx())));
    }

    public int cuGraphHostNodeGetParams(long hNode, long nodeParams) {
        return query(hNode, Graph.HOST, nodeParams, (n, p) -> GraphNodes.writeHost((Graph.Host) n.params, p));
    }

    public int cuGraphHostNodeSetParams(long hNode, long nodeParams) {
        return onNode(hNode, Graph.HOST, n -> nodes.setParams(n, nodes.host(nodeParams)));
    }

    /** cuGraphChildGraphNodeGetGraph: the node's own graph (not the one it was made from). */
    public int cuGraphChildGraphNodeGetGraph(long hNode, long phGraph) {
        return query(hNode, Graph.GRAPH, phGraph, (n, p) -> putLong(p, ((Graph.Child) n.params).graph().handle));
    }

    public int cuGraphEventRecordNodeGetEvent(long hNode, long event_out) {
        return query(hNode, Graph.EVENT_RECORD, event_out, (n, p) -> putLong(p, ((Graph.EventRecord) n.params).event()));
    }

    public int cuGraphEventRecordNodeSetEvent(long hNode, long event) {
        return onNode(hNode, Graph.EVENT_RECORD, n -> nodes.setParams(n, nodes.event(event, true)));
    }

    public int cuGraphEventWaitNodeGetEvent(long hNode, long event_out) {
        return query(hNode, Graph.WAIT_EVENT, event_out, (n, p) -> putLong(p, ((Graph.EventWait) n.params).event()));
    }

    public int cuGraphEventWaitNodeSetEvent(long hNode, long event) {
        return onNode(hNode, Graph.WAIT_EVENT, n -> nodes.setParams(n, nodes.event(event, false)));
    }

    public int cuGraphMemAllocNodeGetParams(long hNode, long params_out) {
        return query(hNode, Graph.MEM_ALLOC, params_out, (n, p) -> copyOut(((Graph.MemAlloc) n.params).params(), p));
    }

    public int cuGraphMemFreeNodeGetParams(long hNode, long dptr_out) {
        return query(hNode, Graph.MEM_FREE, dptr_out, (n, p) -> putLong(p, ((Graph.MemFree) n.params).dptr()));
    }

    /** cuGraphNodeSetParams: new parameters of the node's kind (kernel, memcpy, memset, host, child graph, event nodes). */
    public int cuGraphNodeSetParams(long hNode, long nodeParams) {
        return onNode(hNode, -1, n -> {
            if (nodeParams == 0 || CUgraphNodeParams.type(nodeParams) != n.params.type()) return INVALID_VALUE;
            if (n.params instanceof Graph.MemAlloc || n.params instanceof Graph.MemFree || n.params instanceof Graph.Conditional) return INVALID_VALUE;
            return nodes.setParams(n, nodes.generic(nodeParams, n.graph));
        });
    }

    public int cuGraphNodeGetType(long hNode, long type) {
        return query(hNode, -1, type, (n, p) -> putInt(p, n.params.type()));
    }

    /** cuGraphDestroyNode: the node and its edges. */
    public int cuGraphDestroyNode(long hNode) {
        return onNode(hNode, -1, n -> {
            for (Graph.Node d : List.copyOf(n.dependencies)) Graph.disconnect(d, n);
            for (Graph.Node d : List.copyOf(n.dependents)) Graph.disconnect(n, d);
            n.graph.nodes.remove(n);
            tables.nodes.remove(n.handle);
            tables.dispose(n.params, memory);
            return SUCCESS;
        });
    }

    /**
     * The answer of a query that lists nodes: with a NULL array the count; else up to {@code *count} entries, the
     * rest of the room NULL, and {@code *count} the number written (cuda.h, cuGraphGetNodes).
     */
    private static int list(List<Graph.Node> all, long array, long count) {
        if (count == 0) return INVALID_VALUE;
        if (array == 0) {
            putLong(count, all.size());
            return SUCCESS;
        }
        long room = getLong(count);
        long n = Math.min(room, all.size());
        for (long i = 0; i < room; i++) putLong(array + 8 * i, i < n ? all.get((int) i).handle : 0);
        putLong(count, n);
        return SUCCESS;
    }

    public int cuGraphGetNodes(long hGraph, long nodes, long numNodes) {
        return this.nodes.locked(() -> {
            Graph g = this.nodes.graph(hGraph);
            return g == null ? INVALID_VALUE : list(g.nodes, nodes, numNodes);
        });
    }

    public int cuGraphGetRootNodes(long hGraph, long rootNodes, long numRootNodes) {
        return nodes.locked(() -> {
            Graph g = nodes.graph(hGraph);
            if (g == null) return INVALID_VALUE;
            List<Graph.Node> roots = new ArrayList<>();
            for (Graph.Node n : g.nodes) if (n.dependencies.isEmpty()) roots.add(n);
            return list(roots, rootNodes, numRootNodes);
        });
    }

    /**
     * The edges of a graph in node order (each node's dependencies in the order they were added): with NULL arrays
     * the count; edge data, where asked for, is all default (zero).
     */
    private int edges(long hGraph, long from, long to, long edgeData, long numEdges) {
        return nodes.locked(() -> {
            Graph g = nodes.graph(hGraph);
            if (g == null || numEdges == 0) return INVALID_VALUE;
            List<Graph.Node[]> all = new ArrayList<>();
            for (Graph.Node n : g.nodes) for (Graph.Node d : n.dependencies) all.add(new Graph.Node[] {d, n});
            if (from == 0 && to == 0) {
                if (edgeData != 0) return INVALID_VALUE;
                putLong(numEdges, all.size());
                return SUCCESS;
            }
            if (from == 0 || to == 0) return INVALID_VALUE;
            long room = getLong(numEdges);
            long n = Math.min(room, all.size());
            for (long i = 0; i < room; i++) {
                putLong(from + 8 * i, i < n ? all.get((int) i)[0].handle : 0);
                putLong(to + 8 * i, i < n ? all.get((int) i)[1].handle : 0);
                if (edgeData != 0) putLong(edgeData + 8 * i, 0);
            }
            putLong(numEdges, n);
            return SUCCESS;
        });
    }

    public int cuGraphGetEdges(long hGraph, long from, long to, long numEdges) {
        return edges(hGraph, from, to, 0, numEdges);
    }

    public int cuGraphGetEdges_v2(long hGraph, long from, long to, long edgeData, long numEdges) {
        return edges(hGraph, from, to, edgeData, numEdges);
    }

    /** A node's dependencies or dependents, with default edge data where asked for. */
    private int related(long hNode, boolean dependencies, long array, long edgeData, long count) {
        return onNode(hNode, -1, n -> {
            List<Graph.Node> l = dependencies ? n.dependencies : n.dependents;
            int r = list(l, array, count);
            if (r == SUCCESS && array != 0 && edgeData != 0) for (long i = 0; i < getLong(count); i++) putLong(edgeData + 8 * i, 0);
            return r;
        });
    }

    public int cuGraphNodeGetDependencies(long hNode, long dependencies, long numDependencies) {
        return related(hNode, true, dependencies, 0, numDependencies);
    }

    public int cuGraphNodeGetDependencies_v2(long hNode, long dependencies, long edgeData, long numDependencies) {
        return related(hNode, true, dependencies, edgeData, numDependencies);
    }

    public int cuGraphNodeGetDependentNodes(long hNode, long dependentNodes, long numDependentNodes) {
        return related(hNode, false, dependentNodes, 0, numDependentNodes);
    }

    public int cuGraphNodeGetDependentNodes_v2(long hNode, long dependentNodes, long edgeData, long numDependentNodes) {
        return related(hNode, false, dependentNodes, edgeData, numDependentNodes);
    }

    /** Adds or removes edges from[i] → to[i]; CUDA_ERROR_INVALID_VALUE for nodes of another graph, a self edge, a duplicate or missing edge. */
    private int dependencies(long hGraph, long from, long to, long n, boolean add) {
        return nodes.locked(() -> {
            Graph g = nodes.graph(hGraph);
            if (g == null || n < 0 || (n > 0 && (from == 0 || to == 0))) return INVALID_VALUE;
            List<Graph.Node[]> pairs = new ArrayList<>();
            for (long i = 0; i < n; i++) {
                Graph.Node a = nodes.node(getLong(from + 8 * i)), b = nodes.node(getLong(to + 8 * i));
                if (a == null || b == null || a.graph != g || b.graph != g || a == b) return INVALID_VALUE;
                if (add == b.dependencies.contains(a)) return INVALID_VALUE;
                pairs.add(new Graph.Node[] {a, b});
            }
            for (Graph.Node[] p : pairs) {
                if (add) Graph.connect(p[0], p[1]);
                else Graph.disconnect(p[0], p[1]);
            }
            return SUCCESS;
        });
    }

    public int cuGraphAddDependencies(long hGraph, long from, long to, long numDependencies) {
        return dependencies(hGraph, from, to, numDependencies, true);
    }

    public int cuGraphAddDependencies_v2(long hGraph, long from, long to, long edgeData, long numDependencies) {
        return dependencies(hGraph, from, to, numDependencies, true);
    }

    public int cuGraphRemoveDependencies(long hGraph, long from, long to, long numDependencies) {
        return dependencies(hGraph, from, to, numDependencies, false);
    }

    public int cuGraphRemoveDependencies_v2(long hGraph, long from, long to, long edgeData, long numDependencies) {
        return dependencies(hGraph, from, to, numDependencies, false);
    }

    /** cuGraphClone: a copy with new handles; cuGraphNodeFindInClone maps the original's nodes to it. */
    public int cuGraphClone(long phGraphClone, long originalGraph) {
        return nodes.locked(() -> {
            Graph g = nodes.graph(originalGraph);
            if (g == null || phGraphClone == 0) return INVALID_VALUE;
            Map<Graph.Node, Graph.Node> map = new IdentityHashMap<>();
            Graph c = tables.copy(g, true, map);
            c.clonedFrom.putAll(map);
            putLong(phGraphClone, c.handle);
            return SUCCESS;
        });
    }

    public int cuGraphNodeFindInClone(long phNode, long hOriginalNode, long hClonedGraph) {
        return nodes.locked(() -> {
            Graph c = nodes.graph(hClonedGraph);
            Graph.Node o = nodes.node(hOriginalNode);
            if (c == null || o == null || phNode == 0) return INVALID_VALUE;
            Graph.Node n = c.clonedFrom.get(o);
            if (n == null) return INVALID_VALUE;
            putLong(phNode, n.handle);
            return SUCCESS;
        });
    }

    // ---------------------------------------------------------------- kernel node attributes

    /** CUkernelNodeAttrID values accepted (those of CUlaunchAttributeID that apply to kernel nodes); values are kept. */
    private static final Set<Integer> KERNEL_NODE_ATTRIBUTES = Set.of(1, 2, 3, 4, 5, 8, 9, 10, 11, 13, 14, 16);
    private static final int ATTRIBUTE_BYTES = 64;

    public int cuGraphKernelNodeGetAttribute(long hNode, int attr, long value_out) {
        return onNode(hNode, Graph.KERNEL, n -> {
            if (value_out == 0 || !KERNEL_NODE_ATTRIBUTES.contains(attr)) return INVALID_VALUE;
            byte[] v = n.attributes.get(attr);
            MemorySegment out = at(value_out, ATTRIBUTE_BYTES);
            if (v == null) out.fill((byte) 0);
            else MemorySegment.copy(v, 0, out, ValueLayout.JAVA_BYTE, 0, v.length);
            return SUCCESS;
        });
    }

    public int cuGraphKernelNodeSetAttribute(long hNode, int attr, long value) {
        return onNode(hNode, Graph.KERNEL, n -> {
            if (value == 0 || !KERNEL_NODE_ATTRIBUTES.contains(attr)) return INVALID_VALUE;
            if (attr == 2 && getInt(value) != 0) return nodes.unsupported("the cooperative attribute of a kernel node");
            if (attr == 4 && (getInt(value) > 1 || getInt(value + 4) > 1 || getInt(value + 8) > 1)) return nodes.unsupported("a cluster dimension of a kernel node");
            n.attributes.put(attr, at(value, ATTRIBUTE_BYTES).toArray(ValueLayout.JAVA_BYTE));
            return SUCCESS;
        });
    }

    public int cuGraphKernelNodeCopyAttributes(long dst, long src) {
        return nodes.locked(() -> {
            Graph.Node d = nodes.node(dst), s = nodes.node(src);
            if (d == null || s == null || d.params.type() != Graph.KERNEL || s.params.type() != Graph.KERNEL) return INVALID_VALUE;
            d.attributes.clear();
            d.attributes.putAll(s.attributes);
            return SUCCESS;
        });
    }

    // ---------------------------------------------------------------- conditional handles, user objects, graph memory

    /**
     * cuGraphConditionalHandleCreate: a handle whose value the graph's kernels set with
     * {@code cudaGraphSetConditional}; with CU_GRAPH_COND_ASSIGN_DEFAULT it is reset to {@code defaultLaunchValue}
     * at the start of every launch of an executable graph made from the graph.
     */
    public int cuGraphConditionalHandleCreate(long pHandle_out, long hGraph, long ctx, int defaultLaunchValue, int flags) {
        return nodes.locked(() -> {
            Graph g = nodes.graph(hGraph);
            if (g == null || pHandle_out == 0 || (flags & ~COND_ASSIGN_DEFAULT) != 0) return INVALID_VALUE;
            long h = nodes.newCondition(g, defaultLaunchValue, flags);
            g.conditions.add(new long[] {h, defaultLaunchValue, flags});
            GraphConditionals.set(h, defaultLaunchValue);
            putLong(pHandle_out, h);
            return SUCCESS;
        });
    }

    /** cuUserObjectCreate: flags must be CU_USER_OBJECT_NO_DESTRUCTOR_SYNC (1); destroy runs on the thread that drops the last reference. */
    public int cuUserObjectCreate(long object_out, long ptr, long destroy, int initialRefcount, int flags) {
        return nodes.locked(() -> {
            if (object_out == 0 || destroy == 0 || initialRefcount <= 0 || flags != 1) return INVALID_VALUE;
            long h = tables.userObjects.reserve();
            tables.userObjects.put(h, new Graph.UserObject(h, ptr, destroy, initialRefcount));
            putLong(object_out, h);
            return SUCCESS;
        });
    }

    public int cuUserObjectRetain(long object, int count) {
        return nodes.locked(() -> {
            Graph.UserObject o = object == 0 ? null : tables.userObjects.get(object);
            if (o == null || count <= 0) return INVALID_VALUE;
            o.references += count;
            return SUCCESS;
        });
    }

    public int cuUserObjectRelease(long object, int count) {
        return nodes.locked(() -> {
            Graph.UserObject o = object == 0 ? null : tables.userObjects.get(object);
            if (o == null || count <= 0) return INVALID_VALUE;
            tables.release(o, count);
            return SUCCESS;
        });
    }

    /** cuGraphRetainUserObject: the graph holds count references (with CU_GRAPH_USER_OBJECT_MOVE, the caller's). */
    public int cuGraphRetainUserObject(long graph, long object, int count, int flags) {
        return nodes.locked(() -> {
            Graph g = nodes.graph(graph);
            Graph.UserObject o = object == 0 ? null : tables.userObjects.get(object);
            if (g == null || o == null || count <= 0 || (flags & ~1) != 0) return INVALID_VALUE;
            if (flags == 0) o.references += count;
            g.userObjects.merge(o, count, Integer::sum);
            return SUCCESS;
        });
    }

    public int cuGraphReleaseUserObject(long graph, long object, int count) {
        return nodes.locked(() -> {
            Graph g = nodes.graph(graph);
            Graph.UserObject o = object == 0 ? null : tables.userObjects.get(object);
            if (g == null || o == null || count <= 0) return INVALID_VALUE;
            Integer held = g.userObjects.get(o);
            if (held == null || held < count) return INVALID_VALUE;
            if (held == count) g.userObjects.remove(o);
            else g.userObjects.put(o, held - count);
            tables.release(o, count);
            return SUCCESS;
        });
    }

    /** cuDeviceGraphMemTrim: nothing is cached beyond what graphs hold. */
    public int cuDeviceGraphMemTrim(int device) {
        return state.checkDevice(device);
    }

    /** cuDeviceGetGraphMemAttribute: used and reserved graph memory, now and at most, bytes (cuuint64_t). */
    public int cuDeviceGetGraphMemAttribute(int device, int attr, long value) {
        int r = state.checkDevice(device);
        if (r != SUCCESS) return r;
        if (value == 0) return INVALID_VALUE;
        synchronized (tables.lock) {
            long v = switch (attr) {
                case 0 -> tables.usedCurrent;
                case 1 -> tables.usedHigh;
                case 2 -> tables.reservedCurrent;
                case 3 -> tables.reservedHigh;
                default -> -1;
            };
            if (v < 0) return INVALID_VALUE;
            putLong(value, v);
            return SUCCESS;
        }
    }

    /** cuDeviceSetGraphMemAttribute: only the high watermarks can be reset, to 0. */
    public int cuDeviceSetGraphMemAttribute(int device, int attr, long value) {
        int r = state.checkDevice(device);
        if (r != SUCCESS) return r;
        if (value == 0 || getLong(value) != 0) return INVALID_VALUE;
        synchronized (tables.lock) {
            switch (attr) {
                case 1 -> tables.usedHigh = tables.usedCurrent;
                case 3 -> tables.reservedHigh = tables.reservedCurrent;
                default -> { return INVALID_VALUE; }
            }
            return SUCCESS;
        }
    }

    // ---------------------------------------------------------------- DOT

    /**
     * cuGraphDebugDotPrint: writes the graph as a Graphviz DOT file: one box per node with its kind and, for kernels,
     * the name, shape and shared memory; memcpy and memset nodes with their sizes; an edge per dependency; child
     * graphs and conditional bodies as clusters. CUDA_ERROR_OPERATING_SYSTEM (304) when the file cannot be written.
     */
    public int cuGraphDebugDotPrint(long hGraph, long path, int flags) {
        String text;
        synchronized (tables.lock) {
            Graph g = nodes.graph(hGraph);
            if (g == null || path == 0) return INVALID_VALUE;
            text = GraphDot.of(g, (flags & 1024) != 0);
        }
        String file = at(path, 4096).getString(0, StandardCharsets.UTF_8);
        try {
            Files.writeString(Path.of(file), text);
            return SUCCESS;
        } catch (IOException | RuntimeException e) {
            return 304;
        }
    }
}
