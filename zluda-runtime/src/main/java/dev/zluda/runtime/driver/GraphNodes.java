package dev.zluda.runtime.driver;

import dev.zluda.ptx.ParamInfo;
import dev.zluda.runtime.api.CudaStructs.CUDA_CHILD_GRAPH_NODE_PARAMS;
import dev.zluda.runtime.api.CudaStructs.CUDA_CONDITIONAL_NODE_PARAMS;
import dev.zluda.runtime.api.CudaStructs.CUDA_HOST_NODE_PARAMS_v1;
import dev.zluda.runtime.api.CudaStructs.CUDA_KERNEL_NODE_PARAMS_v1;
import dev.zluda.runtime.api.CudaStructs.CUDA_KERNEL_NODE_PARAMS_v2;
import dev.zluda.runtime.api.CudaStructs.CUDA_MEMCPY3D;
import dev.zluda.runtime.api.CudaStructs.CUDA_MEMCPY_NODE_PARAMS;
import dev.zluda.runtime.api.CudaStructs.CUDA_MEMSET_NODE_PARAMS_v1;
import dev.zluda.runtime.api.CudaStructs.CUDA_MEMSET_NODE_PARAMS_v2;
import dev.zluda.runtime.api.CudaStructs.CUDA_MEM_ALLOC_NODE_PARAMS_v1;
import dev.zluda.runtime.api.CudaStructs.CUgraphNodeParams;
import dev.zluda.runtime.api.CudaStructs.CUmemPoolProps;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

import static dev.zluda.runtime.driver.CuResult.*;
import static dev.zluda.runtime.driver.Native.at;
import static dev.zluda.runtime.driver.Native.getLong;

/**
 * The graph model's handles and node kinds, shared by the graph areas ({@link GraphArea}, {@link GraphExecArea},
 * {@link StreamCaptureArea}): handle lookups, the graph lock, the conditional handles, and each node kind's parameters
 * read from the program's structs (checked, as NVIDIA's driver checks them when a node is made or set) and written
 * back. Errors come back as an {@code Integer} CUresult in place of the parameters.
 *
 * <p>Node kinds: kernel, memcpy, memset, host, empty, event record, event wait, child graph, mem alloc, mem free and
 * conditional (if, while, switch). External semaphore and batch memory-operation nodes: CUDA_ERROR_NOT_SUPPORTED. A
 * kernel node's launch is checked and its arguments packed when the node is made ({@link LaunchArea#pack}), as
 * NVIDIA's driver copies them then.
 */
final class GraphNodes {
    /** A conditional handle (CUgraphConditionalHandle): its graph, default value and flags. */
    private record Condition(long handle, Graph graph, int defaultValue, int flags) {}

    final DriverState state;
    final Graph.Tables tables;
    private final MemoryArea memory;
    private final EventArea events;
    private final LaunchArea launches;
    private final Handles<Condition> conditions = new Handles<>(0x34);

    GraphNodes(DriverState state, Graph.Tables tables, MemoryArea memory, EventArea events, LaunchArea launches) {
        this.state = state;
        this.tables = tables;
        this.memory = memory;
        this.events = events;
        this.launches = launches;
    }

    Graph graph(long h) {
        return h == 0 ? null : tables.graphs.get(h);
    }

    Graph.Node node(long h) {
        return h == 0 ? null : tables.nodes.get(h);
    }

    /** The nodes of an array of n handles, each a node of {@code g}; null when one is not. */
    List<Graph.Node> nodeList(long array, long n, Graph g) {
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
    int locked(java.util.function.IntSupplier body) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        synchronized (tables.lock) {
            return body.getAsInt();
        }
    }

    /** A node that owns graphs (child graph, conditional bodies) becomes their owner. */
    static void adopt(Graph.Node n) {
        if (n.params instanceof Graph.Child c) c.graph().owner = n;
        if (n.params instanceof Graph.Conditional c) for (Graph b : c.bodies()) b.owner = n;
    }

    /** The lock-free part of a kernel node's parameters: checked and packed, or an Integer error. */
    Object kernel(long p, boolean v2) {
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

    static long u(int v) {
        return Integer.toUnsignedLong(v);
    }

    /**
     * Writes a kernel node's parameters; {@code kernelParams} points at the node's own copies of the arguments. A
     * kernel given as a CUkernel (a library's, as cudart launches them) comes back in {@code kern}, with its
     * CUfunction in the current context in {@code func}.
     */
    static void writeKernel(Graph.Node n, long p, boolean v2) {
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

    /** Writes a memset node's parameters to a CUDA_MEMSET_NODE_PARAMS. */
    static void writeMemset(Graph.Memset m, long p) {
        CUDA_MEMSET_NODE_PARAMS_v1.dst(p, m.dst());
        CUDA_MEMSET_NODE_PARAMS_v1.pitch(p, m.pitch());
        CUDA_MEMSET_NODE_PARAMS_v1.value(p, m.value());
        CUDA_MEMSET_NODE_PARAMS_v1.elementSize(p, m.elementSize());
        CUDA_MEMSET_NODE_PARAMS_v1.width(p, m.width());
        CUDA_MEMSET_NODE_PARAMS_v1.height(p, m.height());
    }

    /** Writes a host node's parameters to a CUDA_HOST_NODE_PARAMS. */
    static void writeHost(Graph.Host h, long p) {
        CUDA_HOST_NODE_PARAMS_v1.fn(p, h.fn());
        CUDA_HOST_NODE_PARAMS_v1.userData(p, h.userData());
    }

    /** A memcpy node's parameters: the CUDA_MEMCPY3D's bytes, or an Integer error. */
    static Object memcpy(long p, long ctx) {
        if (p == 0) return INVALID_VALUE;
        if (CUDA_MEMCPY3D.WidthInBytes(p) == 0 || CUDA_MEMCPY3D.Height(p) == 0 || CUDA_MEMCPY3D.Depth(p) == 0) return INVALID_VALUE;
        return new Graph.Memcpy(at(p, CUDA_MEMCPY3D.SIZE).toArray(ValueLayout.JAVA_BYTE), ctx);
    }

    /** A memset node's parameters (CUDA_MEMSET_NODE_PARAMS), or an Integer error. */
    Object memset(long p, long ctx) {
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
    boolean known(long p, long bytes) {
        if (memory.find(p, bytes) != null) return true;
        for (Graph.GraphMemory m : tables.memory.values()) if (m.allocation.contains(p, bytes)) return true;
        return false;
    }

    /** A host node's parameters, or an Integer error. */
    static Object host(long p) {
        if (p == 0 || CUDA_HOST_NODE_PARAMS_v1.fn(p) == 0) return INVALID_VALUE;
        return new Graph.Host(CUDA_HOST_NODE_PARAMS_v1.fn(p), CUDA_HOST_NODE_PARAMS_v1.userData(p));
    }

    /** A child graph node's parameters: a copy of the graph (or the graph itself when moved), or an Integer error. */
    Object child(long hChild, boolean move) {
        Graph c = graph(hChild);
        if (c == null || c.owner != null) return INVALID_VALUE;
        if (move) return new Graph.Child(c);
        return new Graph.Child(tables.copy(c, true, new IdentityHashMap<>()));
    }

    /**
     * A mem alloc node's parameters (CUDA_MEM_ALLOC_NODE_PARAMS: pinned device memory of device 0), its memory
     * reserved and its address written to {@code dptr}; or an Integer error.
     */
    Object alloc(long p) {
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
    Object free(long dptr) {
        return tables.memory.containsKey(dptr) ? new Graph.MemFree(dptr) : INVALID_VALUE;
    }

    /** An event node's parameters. */
    Object event(long hEvent, boolean record) {
        if (events.events.get(hEvent) == null) return INVALID_VALUE;
        return record ? new Graph.EventRecord(hEvent) : new Graph.EventWait(hEvent);
    }

    /**
     * A conditional node's parameters: its bodies made now (new graphs the node owns) and their handles written to
     * a driver-owned array whose address goes to {@code phGraph_out}; or an Integer error.
     */
    Object conditionalParams(long p, Graph g) {
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
    static boolean within(Graph inner, Graph outer) {
        for (Graph x = inner; x != null; x = x.owner == null ? null : x.owner.graph) if (x == outer) return true;
        return false;
    }

    /**
     * The parameters of a CUgraphNodeParams (cuGraphAddNode): by its type, each kind's struct at byte 16; or an
     * Integer error (external semaphores, batch memory operations: CUDA_ERROR_NOT_SUPPORTED).
     */
    Object generic(long p, Graph g) {
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
            case Graph.CONDITIONAL -> conditionalParams(q, g);
            case Graph.EXT_SEMAS_SIGNAL, Graph.EXT_SEMAS_WAIT, Graph.BATCH_MEM_OP -> unsupported("graph node type " + type
                    + " (external semaphores, batch memory operations)");
            default -> INVALID_VALUE;
        };
    }

    private final Set<String> said = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** CUDA_ERROR_NOT_SUPPORTED, said once on stderr. */
    int unsupported(String what) {
        if (said.add(what)) System.err.println("[ZLUDA] " + what + " is not supported yet: returning CUDA_ERROR_NOT_SUPPORTED");
        return NOT_SUPPORTED;
    }

    /** Replaces a node's parameters by those {@code make} returns (an Integer is an error). */
    int setParams(Graph.Node n, Object p) {
        if (p instanceof Integer e) return e;
        Graph.Params old = n.params;
        tables.retain((Graph.Params) p);
        n.params = (Graph.Params) p;
        tables.dispose(old, memory);
        adopt(n);
        return SUCCESS;
    }

    /** A new conditional handle of graph {@code g} (cuGraphConditionalHandleCreate). */
    long newCondition(Graph g, int defaultValue, int flags) {
        long h = conditions.reserve();
        conditions.put(h, new Condition(h, g, defaultValue, flags));
        return h;
    }

    /** Forgets the conditional handles of a destroyed graph. */
    void dropConditions(Graph g) {
        for (Condition c : conditions.values()) if (c.graph == g) conditions.remove(c.handle);
    }
}
