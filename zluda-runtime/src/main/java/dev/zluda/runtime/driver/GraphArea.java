package dev.zluda.runtime.driver;

import dev.zluda.ptx.ParamInfo;
import dev.zluda.runtime.api.CudaStructs.CUDA_CHILD_GRAPH_NODE_PARAMS;
import dev.zluda.runtime.api.CudaStructs.CUDA_CONDITIONAL_NODE_PARAMS;
import dev.zluda.runtime.api.CudaStructs.CUDA_GRAPH_INSTANTIATE_PARAMS;
import dev.zluda.runtime.api.CudaStructs.CUDA_HOST_NODE_PARAMS_v1;
import dev.zluda.runtime.api.CudaStructs.CUDA_KERNEL_NODE_PARAMS_v1;
import dev.zluda.runtime.api.CudaStructs.CUDA_KERNEL_NODE_PARAMS_v2;
import dev.zluda.runtime.api.CudaStructs.CUDA_MEMCPY3D;
import dev.zluda.runtime.api.CudaStructs.CUDA_MEMCPY_NODE_PARAMS;
import dev.zluda.runtime.api.CudaStructs.CUDA_MEMSET_NODE_PARAMS_v1;
import dev.zluda.runtime.api.CudaStructs.CUDA_MEMSET_NODE_PARAMS_v2;
import dev.zluda.runtime.api.CudaStructs.CUDA_MEM_ALLOC_NODE_PARAMS_v1;
import dev.zluda.runtime.api.CudaStructs.CUgraphExecUpdateResultInfo_v1;
import dev.zluda.runtime.api.CudaStructs.CUgraphNodeParams;
import dev.zluda.runtime.api.CudaStructs.CUmemPoolProps;
import dev.zluda.runtime.emulator.GraphConditionals;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import static dev.zluda.runtime.driver.CuResult.*;
import static dev.zluda.runtime.driver.Native.at;
import static dev.zluda.runtime.driver.Native.getInt;
import static dev.zluda.runtime.driver.Native.getLong;
import static dev.zluda.runtime.driver.Native.putInt;
import static dev.zluda.runtime.driver.Native.putLong;

/**
 * CUDA graphs (CUDA Driver API groups CUDA_GRAPH and the stream-capture functions of CUDA_STREAM): graphs built
 * node by node or captured from streams ({@link StreamCapture}), their queries and edits, instantiation into
 * executable graphs, updates of those, and launches.
 *
 * <p>Node kinds: kernel, memcpy, memset, host, empty, event record, event wait, child graph, mem alloc, mem free and
 * conditional (if, while, switch; the kernels set the condition with {@code cudaGraphSetConditional}). External
 * semaphore and batch memory-operation nodes: CUDA_ERROR_NOT_SUPPORTED, and so is device-side launch
 * ({@code CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH}). A kernel node's launch is checked and its arguments packed when
 * the node is made ({@link LaunchArea#pack}), as NVIDIA's driver copies them then.
 *
 * <p>{@code cuGraphLaunch} runs the executable graph's nodes on the calling thread, one after another in an order
 * that respects every dependency (creation order among the ready ones, {@link Graph#topologicalOrder}), each as
 * the stream operation it stands for — a valid schedule under CUDA's graph semantics, since the emulator completes
 * every operation before the next starts. Kernel snapshots of a graph launch ({@link LaunchObserver}) bracket the
 * whole graph: every kernel node the observer wants is described and its before-images are taken before the first
 * node runs, its after-images after the last; the records appear in the order the kernel nodes run, all under the
 * {@code cuGraphLaunch} call (trace-format/FORMAT.md §6.5), as the NVIDIA tracer records them.
 *
 * <p>Handles: errors for a NULL or unknown graph, node or executable graph are CUDA_ERROR_INVALID_VALUE, as
 * cuda.h lists for these functions.
 */
final class GraphArea {
    /** CUgraphInstantiate_flags. */
    static final long INSTANTIATE_AUTO_FREE_ON_LAUNCH = 1, INSTANTIATE_UPLOAD = 2, INSTANTIATE_DEVICE_LAUNCH = 4, INSTANTIATE_USE_NODE_PRIORITY = 8;
    /** CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE. */
    static final int GRAPH_EXEC_UPDATE_FAILURE = 910;
    /** CU_GRAPH_COND_ASSIGN_DEFAULT. */
    static final int COND_ASSIGN_DEFAULT = 1;

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

    /** A conditional handle (CUgraphConditionalHandle): its graph, default value and flags. */
    private record Condition(long handle, Graph graph, int defaultValue, int flags) {}

    private final DriverState state;
    private final Graph.Tables tables;
    private final StreamCapture capture;
    private final MemoryArea memory;
    private final StreamArea streams;
    private final EventArea events;
    private final CopyArea copies;
    private final LaunchArea launches;
    private final Handles<Exec> execs = new Handles<>(0x32);
    private final Handles<Condition> conditions = new Handles<>(0x34);
    /** The driver-owned arrays handed out by cuStreamGetCaptureInfo, per stream (valid until the next query). */
    private final Map<Long, MemorySegment> captureInfoArrays = new java.util.concurrent.ConcurrentHashMap<>();

    GraphArea(DriverState state, Graph.Tables tables, StreamCapture capture, MemoryArea memory, StreamArea streams, EventArea events,
              CopyArea copies, LaunchArea launches) {
        this.state = state;
        this.tables = tables;
        this.capture = capture;
        this.memory = memory;
        this.streams = streams;
        this.events = events;
        this.copies = copies;
        this.launches = launches;
    }

    // ---------------------------------------------------------------- helpers

    private Graph graph(long h) {
        return h == 0 ? null : tables.graphs.get(h);
    }

    private Graph.Node node(long h) {
        return h == 0 ? null : tables.nodes.get(h);
    }

    private Exec exec(long h) {
        return h == 0 ? null : execs.get(h);
    }

    /** The nodes of an array of n handles, each a node of {@code g}; null when one is not. */
    private List<Graph.Node> nodes(long array, long n, Graph g) {
        if (n < 0 || (n > 0 && array == 0)) return null;
        List<Graph.Node> out = new ArrayList<>();
        for (long i = 0; i < n; i++) {
            Graph.Node d = node(getLong(array + 8 * i));
            if (d == null || d.graph != g) return null;
            if (!out.contains(d)) out.add(d);
        }
        return out;
    }

    /** Checks the call (driver initialised, a current context) and runs {@code body} under the graph lock. */
    private int locked(java.util.function.IntSupplier body) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        synchronized (tables.lock) {
            return body.getAsInt();
        }
    }

    /** Adds a node to a graph after its dependencies and writes its handle. */
    private int add(long phGraphNode, long hGraph, long dependencies, long numDependencies, java.util.function.Function<Graph, Object> params) {
        return locked(() -> {
            Graph g = graph(hGraph);
            if (phGraphNode == 0 || g == null) return INVALID_VALUE;
            List<Graph.Node> deps = nodes(dependencies, numDependencies, g);
            if (deps == null) return INVALID_VALUE;
            Object p = params.apply(g);
            if (p instanceof Integer error) return error;
            Graph.Node n = tables.addNode(g, (Graph.Params) p, deps);
            adopt(n);
            putLong(phGraphNode, n.handle);
            return SUCCESS;
        });
    }

    /** A node that owns graphs (child graph, conditional bodies) becomes their owner. */
    private static void adopt(Graph.Node n) {
        if (n.params instanceof Graph.Child c) c.graph().owner = n;
        if (n.params instanceof Graph.Conditional c) for (Graph b : c.bodies()) b.owner = n;
    }

    /** The lock-free part of a kernel node's parameters: checked and packed, or an Integer error. */
    private Object kernel(long p, boolean v2) {
        if (p == 0) return INVALID_VALUE;
        long f = CUDA_KERNEL_NODE_PARAMS_v1.func(p);
        long ctx = 0;
        if (v2) {
            ctx = CUDA_KERNEL_NODE_PARAMS_v2.ctx(p);
            if (f == 0) f = CUDA_KERNEL_NODE_PARAMS_v2.kern(p);
        }
        if (f == 0) return INVALID_VALUE;
        LaunchArea.Packed[] out = new LaunchArea.Packed[1];
        int r = launches.pack(f, u(CUDA_KERNEL_NODE_PARAMS_v1.gridDimX(p)), u(CUDA_KERNEL_NODE_PARAMS_v1.gridDimY(p)),
                u(CUDA_KERNEL_NODE_PARAMS_v1.gridDimZ(p)), u(CUDA_KERNEL_NODE_PARAMS_v1.blockDimX(p)), u(CUDA_KERNEL_NODE_PARAMS_v1.blockDimY(p)),
                u(CUDA_KERNEL_NODE_PARAMS_v1.blockDimZ(p)), u(CUDA_KERNEL_NODE_PARAMS_v1.sharedMemBytes(p)),
                CUDA_KERNEL_NODE_PARAMS_v1.kernelParams(p), CUDA_KERNEL_NODE_PARAMS_v1.extra(p), out);
        if (r != SUCCESS) return r;
        return new Graph.Kernel(out[0], ctx);
    }

    private static long u(int v) {
        return Integer.toUnsignedLong(v);
    }

    /**
     * Writes a kernel node's parameters; {@code kernelParams} points at the node's own copies of the arguments. A
     * kernel given as a CUkernel (a library's, as cudart launches them) comes back in {@code kern}, with its
     * CUfunction in the current context in {@code func}.
     */
    private static void writeKernel(Graph.Node n, long p, boolean v2) {
        Graph.Kernel k = (Graph.Kernel) n.params;
        LaunchArea.Packed l = k.launch();
        List<ParamInfo> ps = l.fn().kernel.info().params();
        if (n.argumentCopies == null || n.argumentCopies.byteSize() != 8L * ps.size() + Math.max(1, l.params().length)) {
            MemorySegment s = Arena.ofAuto().allocate(8L * ps.size() + Math.max(1, l.params().length), 16);
            n.argumentCopies = s;
        }
        MemorySegment s = n.argumentCopies;
        long args = s.address() + 8L * ps.size();
        MemorySegment.copy(l.params(), 0, s, ValueLayout.JAVA_BYTE, 8L * ps.size(), l.params().length);
        for (ParamInfo pi : ps) s.setAtIndex(ValueLayout.JAVA_LONG, pi.index(), args + pi.offset());
        boolean library = l.f() != l.fn().handle;
        CUDA_KERNEL_NODE_PARAMS_v1.func(p, l.fn().handle);
        CUDA_KERNEL_NODE_PARAMS_v1.gridDimX(p, (int) l.grid()[0]);
        CUDA_KERNEL_NODE_PARAMS_v1.gridDimY(p, (int) l.grid()[1]);
        CUDA_KERNEL_NODE_PARAMS_v1.gridDimZ(p, (int) l.grid()[2]);
        CUDA_KERNEL_NODE_PARAMS_v1.blockDimX(p, (int) l.block()[0]);
        CUDA_KERNEL_NODE_PARAMS_v1.blockDimY(p, (int) l.block()[1]);
        CUDA_KERNEL_NODE_PARAMS_v1.blockDimZ(p, (int) l.block()[2]);
        CUDA_KERNEL_NODE_PARAMS_v1.sharedMemBytes(p, (int) l.shared());
        CUDA_KERNEL_NODE_PARAMS_v1.kernelParams(p, ps.isEmpty() ? 0 : s.address());
        CUDA_KERNEL_NODE_PARAMS_v1.extra(p, 0);
        if (v2) {
            CUDA_KERNEL_NODE_PARAMS_v2.kern(p, library ? l.f() : 0);
            CUDA_KERNEL_NODE_PARAMS_v2.ctx(p, k.ctx());
        }
    }

    /** A memcpy node's parameters: the CUDA_MEMCPY3D's bytes, or an Integer error. */
    private static Object memcpy(long p, long ctx) {
        if (p == 0) return INVALID_VALUE;
        if (CUDA_MEMCPY3D.WidthInBytes(p) == 0 || CUDA_MEMCPY3D.Height(p) == 0 || CUDA_MEMCPY3D.Depth(p) == 0) return INVALID_VALUE;
        return new Graph.Memcpy(at(p, CUDA_MEMCPY3D.SIZE).toArray(ValueLayout.JAVA_BYTE), ctx);
    }

    /** A memset node's parameters (CUDA_MEMSET_NODE_PARAMS), or an Integer error. */
    private Object memset(long p, long ctx) {
        if (p == 0) return INVALID_VALUE;
        int es = CUDA_MEMSET_NODE_PARAMS_v1.elementSize(p);
        long width = CUDA_MEMSET_NODE_PARAMS_v1.width(p), height = CUDA_MEMSET_NODE_PARAMS_v1.height(p);
        long pitch = CUDA_MEMSET_NODE_PARAMS_v1.pitch(p), dst = CUDA_MEMSET_NODE_PARAMS_v1.dst(p);
        if (es != 1 && es != 2 && es != 4) return INVALID_VALUE;
        if (width == 0 || height == 0 || (height > 1 && pitch < width * es)) return INVALID_VALUE;
        if (!known(dst, height > 1 ? pitch * (height - 1) + width * es : width * es)) return INVALID_VALUE;
        int mask = es == 4 ? -1 : (1 << (8 * es)) - 1;
        return new Graph.Memset(dst, height > 1 ? pitch : width * es, CUDA_MEMSET_NODE_PARAMS_v1.value(p) & mask, es, width, height, ctx);
    }

    /** Whether [p, p+bytes) is device memory the driver knows, mapped or reserved by a graph. */
    private boolean known(long p, long bytes) {
        if (memory.find(p, bytes) != null) return true;
        for (Graph.GraphMemory m : tables.memory.values()) if (m.allocation.contains(p, bytes)) return true;
        return false;
    }

    /** A host node's parameters, or an Integer error. */
    private static Object host(long p) {
        if (p == 0 || CUDA_HOST_NODE_PARAMS_v1.fn(p) == 0) return INVALID_VALUE;
        return new Graph.Host(CUDA_HOST_NODE_PARAMS_v1.fn(p), CUDA_HOST_NODE_PARAMS_v1.userData(p));
    }

    /** A child graph node's parameters: a copy of the graph (or the graph itself when moved), or an Integer error. */
    private Object child(long hChild, boolean move) {
        Graph c = graph(hChild);
        if (c == null || c.owner != null) return INVALID_VALUE;
        if (move) return new Graph.Child(c);
        return new Graph.Child(tables.copy(c, true, new IdentityHashMap<>()));
    }

    /**
     * A mem alloc node's parameters (CUDA_MEM_ALLOC_NODE_PARAMS: pinned device memory of device 0), its memory
     * reserved and its address written to {@code dptr}; or an Integer error.
     */
    private Object alloc(long p) {
        if (p == 0) return INVALID_VALUE;
        long props = p + CUDA_MEM_ALLOC_NODE_PARAMS_v1.OFF_poolProps;
        if (CUmemPoolProps.allocType(props) != 1 || CUmemPoolProps.location_type(props) != 1 || CUmemPoolProps.location_id(props) != 0) {
            return INVALID_VALUE; // CU_MEM_ALLOCATION_TYPE_PINNED on CU_MEM_LOCATION_TYPE_DEVICE 0
        }
        if (CUmemPoolProps.handleTypes(props) != 0) return NOT_SUPPORTED; // shareable graph memory (IPC)
        long bytes = CUDA_MEM_ALLOC_NODE_PARAMS_v1.bytesize(p);
        Graph.GraphMemory[] m = new Graph.GraphMemory[1];
        int r = tables.reserve(memory, bytes, m);
        if (r != SUCCESS) return r;
        CUDA_MEM_ALLOC_NODE_PARAMS_v1.dptr(p, m[0].address);
        return new Graph.MemAlloc(m[0], at(p, CUDA_MEM_ALLOC_NODE_PARAMS_v1.SIZE).toArray(ValueLayout.JAVA_BYTE));
    }

    /** The CUDA_MEM_ALLOC_NODE_PARAMS of stream-ordered allocation captured from a stream (device 0, pinned). */
    static byte[] allocParams(long bytes, long dptr) {
        try (Arena a = Arena.ofConfined()) {
            long p = a.allocate(CUDA_MEM_ALLOC_NODE_PARAMS_v1.SIZE, 8).address();
            long props = p + CUDA_MEM_ALLOC_NODE_PARAMS_v1.OFF_poolProps;
            CUmemPoolProps.allocType(props, 1);
            CUmemPoolProps.location_type(props, 1);
            CUmemPoolProps.location_id(props, 0);
            CUDA_MEM_ALLOC_NODE_PARAMS_v1.bytesize(p, bytes);
            CUDA_MEM_ALLOC_NODE_PARAMS_v1.dptr(p, dptr);
            return at(p, CUDA_MEM_ALLOC_NODE_PARAMS_v1.SIZE).toArray(ValueLayout.JAVA_BYTE);
        }
    }

    /** A mem free node's parameters: the address must start graph memory. */
    private Object free(long dptr) {
        return tables.memory.containsKey(dptr) ? new Graph.MemFree(dptr) : INVALID_VALUE;
    }

    /** An event node's parameters. */
    private Object event(long hEvent, boolean record) {
        if (events.events.get(hEvent) == null) return INVALID_VALUE;
        return record ? new Graph.EventRecord(hEvent) : new Graph.EventWait(hEvent);
    }

    /**
     * A conditional node's parameters: its bodies made now (new graphs the node owns) and their handles written to
     * a driver-owned array whose address goes to {@code phGraph_out}; or an Integer error.
     */
    private Object conditional(long p, Graph g) {
        long h = CUDA_CONDITIONAL_NODE_PARAMS.handle(p);
        Condition c = conditions.get(h);
        if (c == null || c.graph != g && !within(g, c.graph)) return INVALID_VALUE;
        int type = CUDA_CONDITIONAL_NODE_PARAMS.type(p);
        int size = CUDA_CONDITIONAL_NODE_PARAMS.size(p);
        boolean ok = switch (type) {
            case 0 -> size == 1 || size == 2;
            case 1 -> size == 1;
            case 2 -> size >= 1;
            default -> false;
        };
        if (!ok) return INVALID_VALUE;
        Graph[] bodies = new Graph[size];
        MemorySegment array = Arena.ofAuto().allocate(8L * size, 8);
        for (int i = 0; i < size; i++) {
            bodies[i] = tables.newGraph();
            array.setAtIndex(ValueLayout.JAVA_LONG, i, bodies[i].handle);
        }
        CUDA_CONDITIONAL_NODE_PARAMS.phGraph_out(p, array.address());
        return new Graph.Conditional(h, type, bodies, CUDA_CONDITIONAL_NODE_PARAMS.ctx(p), array);
    }

    /** Whether {@code inner} is {@code outer} or a graph nested in it through owning nodes. */
    private static boolean within(Graph inner, Graph outer) {
        for (Graph x = inner; x != null; x = x.owner == null ? null : x.owner.graph) if (x == outer) return true;
        return false;
    }

    /**
     * The parameters of a CUgraphNodeParams (cuGraphAddNode): by its type, each kind's struct at byte 16; or an
     * Integer error (external semaphores, batch memory operations: CUDA_ERROR_NOT_SUPPORTED).
     */
    private Object generic(long p, Graph g) {
        if (p == 0) return INVALID_VALUE;
        int type = CUgraphNodeParams.type(p);
        long q = p + CUgraphNodeParams.OFF_kernel;
        return switch (type) {
            case Graph.KERNEL -> kernel(q, true);
            case Graph.MEMCPY -> memcpy(q + CUDA_MEMCPY_NODE_PARAMS.OFF_copyParams, CUDA_MEMCPY_NODE_PARAMS.copyCtx(q));
            case Graph.MEMSET -> memset(q, CUDA_MEMSET_NODE_PARAMS_v2.ctx(q));
            case Graph.HOST -> host(q);
            case Graph.GRAPH -> child(CUDA_CHILD_GRAPH_NODE_PARAMS.graph(q), CUDA_CHILD_GRAPH_NODE_PARAMS.ownership(q) == 1);
            case Graph.EMPTY -> new Graph.Empty();
            case Graph.WAIT_EVENT -> event(getLong(q), false);
            case Graph.EVENT_RECORD -> event(getLong(q), true);
            case Graph.MEM_ALLOC -> alloc(q);
            case Graph.MEM_FREE -> free(getLong(q));
            case Graph.CONDITIONAL -> conditional(q, g);
            case Graph.EXT_SEMAS_SIGNAL, Graph.EXT_SEMAS_WAIT, Graph.BATCH_MEM_OP -> unsupported("graph node type " + type
                    + " (external semaphores, batch memory operations)");
            default -> INVALID_VALUE;
        };
    }

    private final Set<String> said = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** CUDA_ERROR_NOT_SUPPORTED, said once on stderr. */
    private int unsupported(String what) {
        if (said.add(what)) System.err.println("[ZLUDA] " + what + " is not supported yet: returning CUDA_ERROR_NOT_SUPPORTED");
        return NOT_SUPPORTED;
    }

    // ---------------------------------------------------------------- graphs and nodes

    /** cuGraphCreate: an empty graph; flags must be 0. */
    public int cuGraphCreate(long phGraph, int flags) {
        return locked(() -> {
            if (phGraph == 0 || flags != 0) return INVALID_VALUE;
            putLong(phGraph, tables.newGraph().handle);
            return SUCCESS;
        });
    }

    /** cuGraphDestroy: the graph, its nodes and what they own; executable graphs made from it stay. */
    public int cuGraphDestroy(long hGraph) {
        return locked(() -> {
            Graph g = graph(hGraph);
            if (g == null || g.owner != null) return INVALID_VALUE;
            tables.destroy(g, memory);
            for (Condition c : conditions.values()) if (c.graph == g) conditions.remove(c.handle);
            return SUCCESS;
        });
    }

    public int cuGraphAddKernelNode_v2(long phGraphNode, long hGraph, long dependencies, long numDependencies, long nodeParams) {
        return add(phGraphNode, hGraph, dependencies, numDependencies, g -> kernel(nodeParams, true));
    }

    /** cuGraphAddKernelNode: CUDA_KERNEL_NODE_PARAMS_v1 (no kern, no ctx). */
    public int cuGraphAddKernelNode(long phGraphNode, long hGraph, long dependencies, long numDependencies, long nodeParams) {
        return add(phGraphNode, hGraph, dependencies, numDependencies, g -> kernel(nodeParams, false));
    }

    public int cuGraphAddMemcpyNode(long phGraphNode, long hGraph, long dependencies, long numDependencies, long copyParams, long ctx) {
        return add(phGraphNode, hGraph, dependencies, numDependencies, g -> memcpy(copyParams, ctx));
    }

    public int cuGraphAddMemsetNode(long phGraphNode, long hGraph, long dependencies, long numDependencies, long memsetParams, long ctx) {
        return add(phGraphNode, hGraph, dependencies, numDependencies, g -> memset(memsetParams, ctx));
    }

    public int cuGraphAddHostNode(long phGraphNode, long hGraph, long dependencies, long numDependencies, long nodeParams) {
        return add(phGraphNode, hGraph, dependencies, numDependencies, g -> host(nodeParams));
    }

    /** cuGraphAddChildGraphNode: the node embeds a copy of childGraph (CUDA clones it). */
    public int cuGraphAddChildGraphNode(long phGraphNode, long hGraph, long dependencies, long numDependencies, long childGraph) {
        return add(phGraphNode, hGraph, dependencies, numDependencies, g -> childGraph == hGraph ? INVALID_VALUE : child(childGraph, false));
    }

    public int cuGraphAddEmptyNode(long phGraphNode, long hGraph, long dependencies, long numDependencies) {
        return add(phGraphNode, hGraph, dependencies, numDependencies, g -> new Graph.Empty());
    }

    public int cuGraphAddEventRecordNode(long phGraphNode, long hGraph, long dependencies, long numDependencies, long event) {
        return add(phGraphNode, hGraph, dependencies, numDependencies, g -> event(event, true));
    }

    public int cuGraphAddEventWaitNode(long phGraphNode, long hGraph, long dependencies, long numDependencies, long event) {
        return add(phGraphNode, hGraph, dependencies, numDependencies, g -> event(event, false));
    }

    /** cuGraphAddMemAllocNode: reserves the memory now and writes its address to nodeParams->dptr. */
    public int cuGraphAddMemAllocNode(long phGraphNode, long hGraph, long dependencies, long numDependencies, long nodeParams) {
        return add(phGraphNode, hGraph, dependencies, numDependencies, g -> alloc(nodeParams));
    }

    /** cuGraphAddMemFreeNode: dptr must be the address of graph memory (of this or another graph). */
    public int cuGraphAddMemFreeNode(long phGraphNode, long hGraph, long dependencies, long numDependencies, long dptr) {
        return add(phGraphNode, hGraph, dependencies, numDependencies, g -> free(dptr));
    }

    /** cuGraphAddNode: a node of any supported kind from a CUgraphNodeParams. */
    public int cuGraphAddNode(long phGraphNode, long hGraph, long dependencies, long numDependencies, long nodeParams) {
        return add(phGraphNode, hGraph, dependencies, numDependencies, g -> generic(nodeParams, g));
    }

    /** cuGraphAddNode_v2: as cuGraphAddNode with edge data (ports and types are kept as plain dependencies). */
    public int cuGraphAddNode_v2(long phGraphNode, long hGraph, long dependencies, long dependencyData, long numDependencies, long nodeParams) {
        return cuGraphAddNode(phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
    }

    /** A query or edit of one node of a given kind: checks the handle and the kind, then runs {@code body}. */
    private int onNode(long hNode, int type, java.util.function.ToIntFunction<Graph.Node> body) {
        return locked(() -> {
            Graph.Node n = node(hNode);
            if (n == null || (type >= 0 && n.params.type() != type)) return INVALID_VALUE;
            return body.applyAsInt(n);
        });
    }

    /** Replaces a node's parameters by those {@code make} returns (an Integer is an error). */
    private int setParams(Graph.Node n, Object p) {
        if (p instanceof Integer e) return e;
        Graph.Params old = n.params;
        tables.retain((Graph.Params) p);
        n.params = (Graph.Params) p;
        tables.dispose(old, memory);
        adopt(n);
        return SUCCESS;
    }

    public int cuGraphKernelNodeGetParams_v2(long hNode, long nodeParams) {
        return onNode(hNode, Graph.KERNEL, n -> {
            if (nodeParams == 0) return INVALID_VALUE;
            writeKernel(n, nodeParams, true);
            return SUCCESS;
        });
    }

    public int cuGraphKernelNodeGetParams(long hNode, long nodeParams) {
        return onNode(hNode, Graph.KERNEL, n -> {
            if (nodeParams == 0) return INVALID_VALUE;
            writeKernel(n, nodeParams, false);
            return SUCCESS;
        });
    }

    public int cuGraphKernelNodeSetParams_v2(long hNode, long nodeParams) {
        return onNode(hNode, Graph.KERNEL, n -> setParams(n, kernel(nodeParams, true)));
    }

    public int cuGraphKernelNodeSetParams(long hNode, long nodeParams) {
        return onNode(hNode, Graph.KERNEL, n -> setParams(n, kernel(nodeParams, false)));
    }

    public int cuGraphMemcpyNodeGetParams(long hNode, long nodeParams) {
        return onNode(hNode, Graph.MEMCPY, n -> {
            if (nodeParams == 0) return INVALID_VALUE;
            byte[] b = ((Graph.Memcpy) n.params).copy();
            MemorySegment.copy(b, 0, at(nodeParams, b.length), ValueLayout.JAVA_BYTE, 0, b.length);
            return SUCCESS;
        });
    }

    public int cuGraphMemcpyNodeSetParams(long hNode, long nodeParams) {
        return onNode(hNode, Graph.MEMCPY, n -> setParams(n, memcpy(nodeParams, ((Graph.Memcpy) n.params).ctx())));
    }

    public int cuGraphMemsetNodeGetParams(long hNode, long nodeParams) {
        return onNode(hNode, Graph.MEMSET, n -> {
            if (nodeParams == 0) return INVALID_VALUE;
            Graph.Memset m = (Graph.Memset) n.params;
            CUDA_MEMSET_NODE_PARAMS_v1.dst(nodeParams, m.dst());
            CUDA_MEMSET_NODE_PARAMS_v1.pitch(nodeParams, m.pitch());
            CUDA_MEMSET_NODE_PARAMS_v1.value(nodeParams, m.value());
            CUDA_MEMSET_NODE_PARAMS_v1.elementSize(nodeParams, m.elementSize());
            CUDA_MEMSET_NODE_PARAMS_v1.width(nodeParams, m.width());
            CUDA_MEMSET_NODE_PARAMS_v1.height(nodeParams, m.height());
            return SUCCESS;
        });
    }

    public int cuGraphMemsetNodeSetParams(long hNode, long nodeParams) {
        return onNode(hNode, Graph.MEMSET, n -> setParams(n, memset(nodeParams, ((Graph.Memset) n.params).ctx())));
    }

    public int cuGraphHostNodeGetParams(long hNode, long nodeParams) {
        return onNode(hNode, Graph.HOST, n -> {
            if (nodeParams == 0) return INVALID_VALUE;
            Graph.Host h = (Graph.Host) n.params;
            CUDA_HOST_NODE_PARAMS_v1.fn(nodeParams, h.fn());
            CUDA_HOST_NODE_PARAMS_v1.userData(nodeParams, h.userData());
            return SUCCESS;
        });
    }

    public int cuGraphHostNodeSetParams(long hNode, long nodeParams) {
        return onNode(hNode, Graph.HOST, n -> setParams(n, host(nodeParams)));
    }

    /** cuGraphChildGraphNodeGetGraph: the node's own graph (not the one it was made from). */
    public int cuGraphChildGraphNodeGetGraph(long hNode, long phGraph) {
        return onNode(hNode, Graph.GRAPH, n -> {
            if (phGraph == 0) return INVALID_VALUE;
            putLong(phGraph, ((Graph.Child) n.params).graph().handle);
            return SUCCESS;
        });
    }

    public int cuGraphEventRecordNodeGetEvent(long hNode, long event_out) {
        return onNode(hNode, Graph.EVENT_RECORD, n -> {
            if (event_out == 0) return INVALID_VALUE;
            putLong(event_out, ((Graph.EventRecord) n.params).event());
            return SUCCESS;
        });
    }

    public int cuGraphEventRecordNodeSetEvent(long hNode, long event) {
        return onNode(hNode, Graph.EVENT_RECORD, n -> setParams(n, event(event, true)));
    }

    public int cuGraphEventWaitNodeGetEvent(long hNode, long event_out) {
        return onNode(hNode, Graph.WAIT_EVENT, n -> {
            if (event_out == 0) return INVALID_VALUE;
            putLong(event_out, ((Graph.EventWait) n.params).event());
            return SUCCESS;
        });
    }

    public int cuGraphEventWaitNodeSetEvent(long hNode, long event) {
        return onNode(hNode, Graph.WAIT_EVENT, n -> setParams(n, event(event, false)));
    }

    public int cuGraphMemAllocNodeGetParams(long hNode, long params_out) {
        return onNode(hNode, Graph.MEM_ALLOC, n -> {
            if (params_out == 0) return INVALID_VALUE;
            byte[] b = ((Graph.MemAlloc) n.params).params();
            MemorySegment.copy(b, 0, at(params_out, b.length), ValueLayout.JAVA_BYTE, 0, b.length);
            return SUCCESS;
        });
    }

    public int cuGraphMemFreeNodeGetParams(long hNode, long dptr_out) {
        return onNode(hNode, Graph.MEM_FREE, n -> {
            if (dptr_out == 0) return INVALID_VALUE;
            putLong(dptr_out, ((Graph.MemFree) n.params).dptr());
            return SUCCESS;
        });
    }

    /** cuGraphNodeSetParams: new parameters of the node's kind (kernel, memcpy, memset, host, child graph, event nodes). */
    public int cuGraphNodeSetParams(long hNode, long nodeParams) {
        return onNode(hNode, -1, n -> {
            if (nodeParams == 0 || CUgraphNodeParams.type(nodeParams) != n.params.type()) return INVALID_VALUE;
            if (n.params instanceof Graph.MemAlloc || n.params instanceof Graph.MemFree || n.params instanceof Graph.Conditional) return INVALID_VALUE;
            return setParams(n, generic(nodeParams, n.graph));
        });
    }

    public int cuGraphNodeGetType(long hNode, long type) {
        return onNode(hNode, -1, n -> {
            if (type == 0) return INVALID_VALUE;
            putInt(type, n.params.type());
            return SUCCESS;
        });
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
        return locked(() -> {
            Graph g = graph(hGraph);
            return g == null ? INVALID_VALUE : list(g.nodes, nodes, numNodes);
        });
    }

    public int cuGraphGetRootNodes(long hGraph, long rootNodes, long numRootNodes) {
        return locked(() -> {
            Graph g = graph(hGraph);
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
        return locked(() -> {
            Graph g = graph(hGraph);
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
        return locked(() -> {
            Graph g = graph(hGraph);
            if (g == null || n < 0 || (n > 0 && (from == 0 || to == 0))) return INVALID_VALUE;
            List<Graph.Node[]> pairs = new ArrayList<>();
            for (long i = 0; i < n; i++) {
                Graph.Node a = node(getLong(from + 8 * i)), b = node(getLong(to + 8 * i));
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
        return locked(() -> {
            Graph g = graph(originalGraph);
            if (g == null || phGraphClone == 0) return INVALID_VALUE;
            Map<Graph.Node, Graph.Node> map = new IdentityHashMap<>();
            Graph c = tables.copy(g, true, map);
            c.clonedFrom.putAll(map);
            putLong(phGraphClone, c.handle);
            return SUCCESS;
        });
    }

    public int cuGraphNodeFindInClone(long phNode, long hOriginalNode, long hClonedGraph) {
        return locked(() -> {
            Graph c = graph(hClonedGraph);
            Graph.Node o = node(hOriginalNode);
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
            if (attr == 2 && getInt(value) != 0) return unsupported("the cooperative attribute of a kernel node");
            if (attr == 4 && (getInt(value) > 1 || getInt(value + 4) > 1 || getInt(value + 8) > 1)) return unsupported("a cluster dimension of a kernel node");
            n.attributes.put(attr, at(value, ATTRIBUTE_BYTES).toArray(ValueLayout.JAVA_BYTE));
            return SUCCESS;
        });
    }

    public int cuGraphKernelNodeCopyAttributes(long dst, long src) {
        return locked(() -> {
            Graph.Node d = node(dst), s = node(src);
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
        return locked(() -> {
            Graph g = graph(hGraph);
            if (g == null || pHandle_out == 0 || (flags & ~COND_ASSIGN_DEFAULT) != 0) return INVALID_VALUE;
            long h = conditions.reserve();
            conditions.put(h, new Condition(h, g, defaultLaunchValue, flags));
            g.conditions.add(new long[] {h, defaultLaunchValue, flags});
            GraphConditionals.set(h, defaultLaunchValue);
            putLong(pHandle_out, h);
            return SUCCESS;
        });
    }

    /** cuUserObjectCreate: flags must be CU_USER_OBJECT_NO_DESTRUCTOR_SYNC (1); destroy runs on the thread that drops the last reference. */
    public int cuUserObjectCreate(long object_out, long ptr, long destroy, int initialRefcount, int flags) {
        return locked(() -> {
            if (object_out == 0 || destroy == 0 || initialRefcount <= 0 || flags != 1) return INVALID_VALUE;
            long h = tables.userObjects.reserve();
            tables.userObjects.put(h, new Graph.UserObject(h, ptr, destroy, initialRefcount));
            putLong(object_out, h);
            return SUCCESS;
        });
    }

    public int cuUserObjectRetain(long object, int count) {
        return locked(() -> {
            Graph.UserObject o = object == 0 ? null : tables.userObjects.get(object);
            if (o == null || count <= 0) return INVALID_VALUE;
            o.references += count;
            return SUCCESS;
        });
    }

    public int cuUserObjectRelease(long object, int count) {
        return locked(() -> {
            Graph.UserObject o = object == 0 ? null : tables.userObjects.get(object);
            if (o == null || count <= 0) return INVALID_VALUE;
            tables.release(o, count);
            return SUCCESS;
        });
    }

    /** cuGraphRetainUserObject: the graph holds count references (with CU_GRAPH_USER_OBJECT_MOVE, the caller's). */
    public int cuGraphRetainUserObject(long graph, long object, int count, int flags) {
        return locked(() -> {
            Graph g = graph(graph);
            Graph.UserObject o = object == 0 ? null : tables.userObjects.get(object);
            if (g == null || o == null || count <= 0 || (flags & ~1) != 0) return INVALID_VALUE;
            if (flags == 0) o.references += count;
            g.userObjects.merge(o, count, Integer::sum);
            return SUCCESS;
        });
    }

    public int cuGraphReleaseUserObject(long graph, long object, int count) {
        return locked(() -> {
            Graph g = graph(graph);
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

    // ---------------------------------------------------------------- instantiation

    /**
     * Makes an executable graph: a private copy of the graph. CUDA_ERROR_INVALID_VALUE for a graph whose
     * dependencies form a cycle (the error node is one on the cycle); device launch: CUDA_ERROR_NOT_SUPPORTED.
     */
    private int instantiate(long phGraphExec, long hGraph, long flags, long[] errorNode) {
        Graph g = graph(hGraph);
        if (phGraphExec == 0 || g == null) return INVALID_VALUE;
        if ((flags & ~(INSTANTIATE_AUTO_FREE_ON_LAUNCH | INSTANTIATE_UPLOAD | INSTANTIATE_DEVICE_LAUNCH | INSTANTIATE_USE_NODE_PRIORITY)) != 0) {
            return INVALID_VALUE;
        }
        if ((flags & INSTANTIATE_DEVICE_LAUNCH) != 0) return unsupported("device-side graph launch (CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH)");
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
        return locked(() -> instantiate(phGraphExec, hGraph, flags, new long[1]));
    }

    /**
     * cuGraphInstantiateWithParams: as WithFlags; writes hErrNode_out and result_out
     * (CUDA_GRAPH_INSTANTIATE_SUCCESS, _INVALID_STRUCTURE for a cycle, _NODE_OPERATION_NOT_SUPPORTED, _ERROR).
     */
    public int cuGraphInstantiateWithParams(long phGraphExec, long hGraph, long instantiateParams) {
        return locked(() -> {
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
        return locked(() -> {
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
        return locked(() -> {
            Exec e = exec(hGraphExec);
            if (e == null || flags == 0) return INVALID_VALUE;
            putLong(flags, e.flags);
            return SUCCESS;
        });
    }

    /** cuGraphExecDestroy: the executable graph and what its copy holds (graph memory, user-object references). */
    public int cuGraphExecDestroy(long hGraphExec) {
        return locked(() -> {
            Exec e = execs.remove(hGraphExec);
            if (e == null) return INVALID_VALUE;
            tables.destroy(e.graph, memory);
            return SUCCESS;
        });
    }

    /** An executable graph's node for a node of a graph it was made or updated from, or null. */
    private Graph.Node execNode(Exec e, long hNode) {
        Graph.Node o = node(hNode);
        return o == null ? null : e.byOrigin.get(o);
    }

    /** Sets new parameters on an executable graph's copy of a node of the same kind. */
    private int execSet(long hGraphExec, long hNode, int type, java.util.function.Function<Graph.Node, Object> params) {
        return locked(() -> {
            Exec e = exec(hGraphExec);
            if (e == null) return INVALID_VALUE;
            Graph.Node n = execNode(e, hNode);
            if (n == null || n.params.type() != type) return INVALID_VALUE;
            return setParams(n, params.apply(n));
        });
    }

    public int cuGraphExecKernelNodeSetParams_v2(long hGraphExec, long hNode, long nodeParams) {
        return execSet(hGraphExec, hNode, Graph.KERNEL, n -> kernel(nodeParams, true));
    }

    public int cuGraphExecKernelNodeSetParams(long hGraphExec, long hNode, long nodeParams) {
        return execSet(hGraphExec, hNode, Graph.KERNEL, n -> kernel(nodeParams, false));
    }

    public int cuGraphExecMemcpyNodeSetParams(long hGraphExec, long hNode, long copyParams, long ctx) {
        return execSet(hGraphExec, hNode, Graph.MEMCPY, n -> memcpy(copyParams, ctx));
    }

    public int cuGraphExecMemsetNodeSetParams(long hGraphExec, long hNode, long memsetParams, long ctx) {
        return execSet(hGraphExec, hNode, Graph.MEMSET, n -> memset(memsetParams, ctx));
    }

    public int cuGraphExecHostNodeSetParams(long hGraphExec, long hNode, long nodeParams) {
        return execSet(hGraphExec, hNode, Graph.HOST, n -> host(nodeParams));
    }

    /** cuGraphExecChildGraphNodeSetParams: the child's nodes get the parameters of childGraph's (same topology). */
    public int cuGraphExecChildGraphNodeSetParams(long hGraphExec, long hNode, long childGraph) {
        return locked(() -> {
            Exec e = exec(hGraphExec);
            Graph c = graph(childGraph);
            Graph.Node n = e == null ? null : execNode(e, hNode);
            if (n == null || c == null || n.params.type() != Graph.GRAPH) return INVALID_VALUE;
            long[] info = new long[3];
            if (!update(((Graph.Child) n.params).graph(), c, info, new IdentityHashMap<>())) return INVALID_VALUE;
            return SUCCESS;
        });
    }

    public int cuGraphExecEventRecordNodeSetEvent(long hGraphExec, long hNode, long event) {
        return execSet(hGraphExec, hNode, Graph.EVENT_RECORD, n -> event(event, true));
    }

    public int cuGraphExecEventWaitNodeSetEvent(long hGraphExec, long hNode, long event) {
        return execSet(hGraphExec, hNode, Graph.WAIT_EVENT, n -> event(event, false));
    }

    /** cuGraphExecNodeSetParams: as cuGraphNodeSetParams, on the executable graph's copy. */
    public int cuGraphExecNodeSetParams(long hGraphExec, long hNode, long nodeParams) {
        return locked(() -> {
            Exec e = exec(hGraphExec);
            Graph.Node n = e == null ? null : execNode(e, hNode);
            if (n == null || nodeParams == 0 || CUgraphNodeParams.type(nodeParams) != n.params.type()) return INVALID_VALUE;
            if (n.params instanceof Graph.Child ch) {
                long c = getLong(nodeParams + CUgraphNodeParams.OFF_kernel);
                Graph g = graph(c);
                return g != null && update(ch.graph(), g, new long[3], new IdentityHashMap<>()) ? SUCCESS : INVALID_VALUE;
            }
            if (n.params instanceof Graph.MemAlloc || n.params instanceof Graph.MemFree || n.params instanceof Graph.Conditional) return INVALID_VALUE;
            return setParams(n, generic(nodeParams, n.graph));
        });
    }

    /** cuGraphNodeSetEnabled: kernel, memcpy and memset nodes of an executable graph can be turned into no-ops and back. */
    public int cuGraphNodeSetEnabled(long hGraphExec, long hNode, int isEnabled) {
        return locked(() -> {
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
        return locked(() -> {
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
        return locked(() -> {
            Exec e = exec(hGraphExec);
            Graph g = graph(hGraph);
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
        return locked(() -> {
            Exec e = exec(hGraphExec);
            Graph g = graph(hGraph);
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
        for (long[] c : conditionsOf(e.graph)) if ((c[2] & COND_ASSIGN_DEFAULT) != 0) GraphConditionals.set(c[0], (int) c[1]);
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
            case Graph.Conditional c -> conditional(c, hStream);
        };
    }

    /** Runs a conditional node's body or bodies by the current value of its handle. */
    private int conditional(Graph.Conditional c, long hStream) {
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

    // ---------------------------------------------------------------- stream capture

    public int cuStreamBeginCapture(long hStream) {
        return cuStreamBeginCapture_v2(hStream, StreamCapture.MODE_GLOBAL);
    }

    /** cuStreamBeginCapture_v2: CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED on the legacy stream, _ILLEGAL_STATE when it captures already. */
    public int cuStreamBeginCapture_v2(long hStream, int mode) {
        int r = streams.checkStream(hStream);
        return r != SUCCESS ? r : capture.begin(hStream, mode, null, List.of());
    }

    /** cuStreamBeginCaptureToGraph: captures into the program's graph, after the given nodes of it. */
    public int cuStreamBeginCaptureToGraph(long hStream, long hGraph, long dependencies, long dependencyData, long numDependencies, int mode) {
        int r = streams.checkStream(hStream);
        if (r != SUCCESS) return r;
        List<Graph.Node> deps;
        Graph g;
        synchronized (tables.lock) {
            g = graph(hGraph);
            if (g == null) return INVALID_VALUE;
            deps = nodes(dependencies, numDependencies, g);
            if (deps == null) return INVALID_VALUE;
        }
        return capture.begin(hStream, mode, g, deps);
    }

    /**
     * cuStreamEndCapture: the captured graph in *phGraph (NULL when the capture failed; see {@link StreamCapture#end}).
     * phGraph may be NULL only for a capture into the program's graph (cuStreamBeginCaptureToGraph), else
     * CUDA_ERROR_INVALID_VALUE.
     */
    public int cuStreamEndCapture(long hStream, long phGraph) {
        int r = streams.checkStream(hStream);
        if (r != SUCCESS) return r;
        if (phGraph == 0 && !capture.capturesIntoProgramGraph(hStream)) return INVALID_VALUE;
        Graph[] g = new Graph[1];
        r = capture.end(hStream, g);
        if (phGraph != 0 && (r == SUCCESS || g[0] == null && (r == StreamCapture.STREAM_CAPTURE_INVALIDATED || r == StreamCapture.STREAM_CAPTURE_UNJOINED))) {
            putLong(phGraph, g[0] == null ? 0 : g[0].handle);
        }
        return r;
    }

    /**
     * cuStreamIsCapturing: CU_STREAM_CAPTURE_STATUS_NONE, _ACTIVE or _INVALIDATED; on the legacy stream while a
     * blocking stream of the context captures, CUDA_ERROR_STREAM_CAPTURE_IMPLICIT.
     */
    public int cuStreamIsCapturing(long hStream, long captureStatus) {
        int r = streams.checkStream(hStream);
        if (r != SUCCESS) return r;
        if (captureStatus == 0) return INVALID_VALUE;
        if ((hStream == 0 || hStream == StreamArea.CU_STREAM_LEGACY) && !capture.blockingCaptures().isEmpty()) {
            return StreamCapture.STREAM_CAPTURE_IMPLICIT;
        }
        putInt(captureStatus, capture.status(hStream));
        return SUCCESS;
    }

    /**
     * cuStreamGetCaptureInfo (all versions): the status; while a capture is active or invalidated also its unique id,
     * its graph and the stream's current dependencies (a driver-owned array valid until the stream's next query or
     * capture call), with default edge data. Outputs other than the status are optional (NULL).
     */
    private int captureInfo(long hStream, long status, long id, long graph, long deps, long edgeData, long numDeps) {
        int r = streams.checkStream(hStream);
        if (r != SUCCESS) return r;
        if (status == 0) return INVALID_VALUE;
        if ((hStream == 0 || hStream == StreamArea.CU_STREAM_LEGACY) && !capture.blockingCaptures().isEmpty()) {
            return StreamCapture.STREAM_CAPTURE_IMPLICIT;
        }
        StreamCapture.Sequence s = capture.sequence(hStream);
        putInt(status, capture.status(hStream));
        if (s == null) return SUCCESS;
        if (id != 0) putLong(id, s.id);
        if (graph != 0) putLong(graph, s.graph.handle);
        List<Graph.Node> d = capture.dependencies(hStream);
        if (deps != 0 || edgeData != 0) {
            MemorySegment a = Arena.ofAuto().allocate(16L * Math.max(1, d.size()), 8);
            for (int i = 0; i < d.size(); i++) a.setAtIndex(ValueLayout.JAVA_LONG, i, d.get(i).handle);
            captureInfoArrays.put(StreamCapture.key(hStream), a);
            if (deps != 0) putLong(deps, d.isEmpty() ? 0 : a.address());
            if (edgeData != 0) putLong(edgeData, d.isEmpty() ? 0 : a.address() + 8L * d.size());
        }
        if (numDeps != 0) putLong(numDeps, d.size());
        return SUCCESS;
    }

    public int cuStreamGetCaptureInfo(long hStream, long captureStatus_out, long id_out) {
        return captureInfo(hStream, captureStatus_out, id_out, 0, 0, 0, 0);
    }

    public int cuStreamGetCaptureInfo_v2(long hStream, long captureStatus_out, long id_out, long graph_out, long dependencies_out,
                                         long numDependencies_out) {
        return captureInfo(hStream, captureStatus_out, id_out, graph_out, dependencies_out, 0, numDependencies_out);
    }

    public int cuStreamGetCaptureInfo_v3(long hStream, long captureStatus_out, long id_out, long graph_out, long dependencies_out,
                                         long edgeData_out, long numDependencies_out) {
        return captureInfo(hStream, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out, numDependencies_out);
    }

    /** cuStreamUpdateCaptureDependencies: CU_STREAM_ADD_CAPTURE_DEPENDENCIES (0) or _SET_ (1); nodes of the capture's graph. */
    public int cuStreamUpdateCaptureDependencies(long hStream, long dependencies, long numDependencies, int flags) {
        int r = streams.checkStream(hStream);
        if (r != SUCCESS) return r;
        if (flags != 0 && flags != 1) return INVALID_VALUE;
        StreamCapture.Sequence s = capture.sequence(hStream);
        if (s == null) return StreamCapture.ILLEGAL_STATE;
        List<Graph.Node> deps;
        synchronized (tables.lock) {
            deps = nodes(dependencies, numDependencies, s.graph);
        }
        if (deps == null) return INVALID_VALUE;
        return capture.updateDependencies(hStream, deps, flags == 1);
    }

    public int cuStreamUpdateCaptureDependencies_v2(long hStream, long dependencies, long dependencyData, long numDependencies, int flags) {
        return cuStreamUpdateCaptureDependencies(hStream, dependencies, numDependencies, flags);
    }

    /**
     * cuThreadExchangeStreamCaptureMode: swaps the calling thread's capture interaction mode (GLOBAL 0, THREAD_LOCAL 1,
     * RELAXED 2) with *mode; the mode decides which calls a capture forbids ({@link StreamCapture}).
     */
    public int cuThreadExchangeStreamCaptureMode(long mode) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (mode == 0) return INVALID_VALUE;
        int m = getInt(mode);
        if (m < 0 || m > 2) return INVALID_VALUE;
        int[] cur = capture.threadMode();
        putInt(mode, cur[0]);
        cur[0] = m;
        return SUCCESS;
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
            Graph g = graph(hGraph);
            if (g == null || path == 0) return INVALID_VALUE;
            StringBuilder sb = new StringBuilder("digraph dot {\n");
            dot(sb, g, "graph_" + (g.handle & 0xFFFF_FFFFL) / 16, new int[1], (flags & 1024) != 0);
            sb.append("}\n");
            text = sb.toString();
        }
        String file = at(path, 4096).getString(0, StandardCharsets.UTF_8);
        try {
            Files.writeString(Path.of(file), text);
            return SUCCESS;
        } catch (IOException | RuntimeException e) {
            return 304;
        }
    }

    private static void dot(StringBuilder sb, Graph g, String name, int[] counter, boolean handles) {
        sb.append("subgraph cluster_").append(name).append(" {\n").append("label=\"").append(name).append("\" graph[style=\"dashed\"];\n");
        Map<Graph.Node, String> ids = new HashMap<>();
        for (int i = 0; i < g.nodes.size(); i++) {
            Graph.Node n = g.nodes.get(i);
            String id = name + "_node_" + i;
            ids.put(n, id);
            sb.append('"').append(id).append("\"[style=\"solid\" shape=\"rectangle\" label=\"").append(i).append("\\n").append(describe(n));
            if (handles && n.handle != 0) sb.append("\\nhandle 0x").append(Long.toHexString(n.handle));
            sb.append("\"];\n");
            if (n.params instanceof Graph.Child c) dot(sb, c.graph(), name + "_child" + i, counter, handles);
            if (n.params instanceof Graph.Conditional c) {
                for (int b = 0; b < c.bodies().length; b++) dot(sb, c.bodies()[b], name + "_cond" + i + "_body" + b, counter, handles);
            }
        }
        for (Graph.Node n : g.nodes) for (Graph.Node d : n.dependencies) sb.append('"').append(ids.get(d)).append("\" -> \"").append(ids.get(n)).append("\";\n");
        sb.append("}\n");
    }

    /** One node in words, for the DOT file. */
    private static String describe(Graph.Node n) {
        return switch (n.params) {
            case Graph.Kernel k -> String.format(Locale.ROOT, "KERNEL\\n%s\\ngrid (%d,%d,%d) block (%d,%d,%d) shared %d", k.launch().fn().kernel.name(),
                    k.launch().grid()[0], k.launch().grid()[1], k.launch().grid()[2], k.launch().block()[0], k.launch().block()[1], k.launch().block()[2],
                    k.launch().shared());
            case Graph.Memcpy m -> {
                MemorySegment s = MemorySegment.ofArray(m.copy());
                yield "MEMCPY\\n" + s.get(ValueLayout.JAVA_LONG_UNALIGNED, CUDA_MEMCPY3D.OFF_WidthInBytes) + " x "
                        + s.get(ValueLayout.JAVA_LONG_UNALIGNED, CUDA_MEMCPY3D.OFF_Height) + " x " + s.get(ValueLayout.JAVA_LONG_UNALIGNED, CUDA_MEMCPY3D.OFF_Depth) + " bytes";
            }
            case Graph.Memset m -> "MEMSET\\n" + m.width() + " x " + m.height() + " elements of " + m.elementSize() + " bytes, value " + m.value();
            case Graph.Host h -> "HOST";
            case Graph.Empty e -> "EMPTY";
            case Graph.EventRecord e -> "EVENT_RECORD";
            case Graph.EventWait e -> "WAIT_EVENT";
            case Graph.Child c -> "GRAPH";
            case Graph.MemAlloc a -> "MEM_ALLOC\\n" + a.memory().size + " bytes";
            case Graph.MemFree f -> "MEM_FREE";
            case Graph.Conditional c -> "CONDITIONAL\\n" + switch (c.condType()) { case 0 -> "if"; case 1 -> "while"; default -> "switch"; };
        };
    }
}
