package dev.zluda.runtime.driver;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * A CUDA graph (CUgraph) as the driver keeps it: its nodes in the order they were added, each with its kind's
 * parameters and its dependencies (CUDA Driver API, "Graph Management"). The same class holds the private copy an
 * executable graph (CUgraphExec) runs, made at instantiation, and the graph a child-graph or conditional node owns.
 * Not thread-safe: the graph areas ({@link GraphNodes}) and {@link StreamCapture} change graphs under the graph
 * tables' lock ({@link Tables#lock}), as CUDA leaves concurrent use of one graph to the program.
 */
final class Graph {
    /** CUgraphNodeType values (cuda.h). */
    static final int KERNEL = 0, MEMCPY = 1, MEMSET = 2, HOST = 3, GRAPH = 4, EMPTY = 5, WAIT_EVENT = 6, EVENT_RECORD = 7,
            EXT_SEMAS_SIGNAL = 8, EXT_SEMAS_WAIT = 9, MEM_ALLOC = 10, MEM_FREE = 11, BATCH_MEM_OP = 12, CONDITIONAL = 13;

    /** What a node does, by kind; immutable, replaced as a whole by the set-params calls. */
    sealed interface Params permits Kernel, Memcpy, Memset, Host, Empty, EventRecord, EventWait, Child, MemAlloc, MemFree, Conditional {
        /** The CUgraphNodeType. */
        int type();
    }

    /**
     * A kernel launch, checked and packed when the node was made ({@link LaunchArea#pack}).
     *
     * @param ctx the context the node's parameters named (CUDA_KERNEL_NODE_PARAMS_v2.ctx), 0 for the current one
     */
    record Kernel(LaunchArea.Packed launch, long ctx) implements Params {
        public int type() { return KERNEL; }
    }

    /** A copy: a CUDA_MEMCPY3D as the program gave it (its bytes), run through {@code cuMemcpy3D}. */
    record Memcpy(byte[] copy, long ctx) implements Params {
        public int type() { return MEMCPY; }
    }

    /** A memset: CUDA_MEMSET_NODE_PARAMS' fields; {@code elementSize} 1, 2 or 4 bytes, {@code width} in elements. */
    record Memset(long dst, long pitch, int value, int elementSize, long width, long height, long ctx) implements Params {
        public int type() { return MEMSET; }
    }

    /** A host function {@code void fn(void *userData)}, called on the launching thread. */
    record Host(long fn, long userData) implements Params {
        public int type() { return HOST; }
    }

    /** A node that does nothing (an ordering point). */
    record Empty() implements Params {
        public int type() { return EMPTY; }
    }

    /** Records an event. */
    record EventRecord(long event) implements Params {
        public int type() { return EVENT_RECORD; }
    }

    /** Waits for an event. */
    record EventWait(long event) implements Params {
        public int type() { return WAIT_EVENT; }
    }

    /** Runs an embedded graph, the node's own copy of the graph it was given. */
    record Child(Graph graph) implements Params {
        public int type() { return GRAPH; }
    }

    /**
     * Allocates graph memory: the memory is reserved when the node is made (its address is fixed then, as CUDA
     * fixes the virtual address) and becomes accessible when the node runs.
     *
     * @param params the CUDA_MEM_ALLOC_NODE_PARAMS as the program gave them, {@code dptr} filled in
     */
    record MemAlloc(GraphMemory memory, byte[] params) implements Params {
        public int type() { return MEM_ALLOC; }
    }

    /** Frees graph memory (made inaccessible; the reservation stays with the allocating node). */
    record MemFree(long dptr) implements Params {
        public int type() { return MEM_FREE; }
    }

    /**
     * A conditional node: runs a body graph depending on the value of a conditional handle (CUDA 12.3+).
     *
     * @param type {@code CU_GRAPH_COND_TYPE_IF} 0, {@code _WHILE} 1, {@code _SWITCH} 2
     * @param bodies the body graphs the node owns ({@code phGraph_out})
     * @param bodyArray the native array of the bodies' handles the program was given (kept alive with the node)
     */
    record Conditional(long handle, int condType, Graph[] bodies, long ctx, MemorySegment bodyArray) implements Params {
        public int type() { return CONDITIONAL; }
    }

    /**
     * Graph memory (mem alloc nodes): a device allocation reserved when its node was made, known to the driver's
     * allocation map while mapped (from its alloc node's run until a free node, {@code cuMemFree} or
     * {@code cuMemFreeAsync}), released when no graph or executable graph holds it any more.
     */
    static final class GraphMemory {
        final long address;
        final long size;
        /** The allocation the memory map holds while mapped; its own {@code free()} releases nothing. */
        final Allocation allocation;
        private final Runnable release;
        private int holders;

        GraphMemory(long address, long size, Allocation allocation, Runnable release) {
            this.address = address;
            this.size = size;
            this.allocation = allocation;
            this.release = release;
        }

        void retain() {
            holders++;
        }

        /** Drops one holder; true when it was the last (the caller then unmaps it). */
        boolean release() {
            if (--holders > 0) return false;
            if (release != null) release.run();
            return true;
        }
    }

    /** One node (CUgraphNode). */
    static final class Node {
        /** The handle; 0 for the nodes of an executable graph's private copy, which the program never sees. */
        final long handle;
        final Graph graph;
        Params params;
        final List<Node> dependencies = new ArrayList<>();
        final List<Node> dependents = new ArrayList<>();
        /** Kernel node attributes set by the program (CUkernelNodeAttrValue bytes by CUkernelNodeAttrID). */
        final Map<Integer, byte[]> attributes = new HashMap<>();
        /** Native copies of a kernel node's arguments handed out by cuGraphKernelNodeGetParams (kept alive with the node). */
        MemorySegment argumentCopies;

        Node(long handle, Graph graph, Params params) {
            this.handle = handle;
            this.graph = graph;
            this.params = params;
        }
    }

    final long handle;
    final List<Node> nodes = new ArrayList<>();
    /** The node that owns this graph (a child graph or a conditional body), or null for a graph the program made. */
    Node owner;
    /** References to user objects this graph holds (CUuserObject → count). */
    final Map<UserObject, Integer> userObjects = new LinkedHashMap<>();
    /** The conditional handles made for this graph: {handle, default value, flags}. */
    final List<long[]> conditions = new ArrayList<>();
    /** For a clone (cuGraphClone): original node → its copy here (cuGraphNodeFindInClone). */
    final Map<Node, Node> clonedFrom = new IdentityHashMap<>();

    Graph(long handle) {
        this.handle = handle;
    }

    /** A user object (CUuserObject): a reference count and what to call when it reaches zero. */
    static final class UserObject {
        final long handle;
        final long ptr, destroy;
        int references;

        UserObject(long handle, long ptr, long destroy, int references) {
            this.handle = handle;
            this.ptr = ptr;
            this.destroy = destroy;
            this.references = references;
        }
    }

    /** The position of a node in creation order. */
    int index(Node n) {
        return nodes.indexOf(n);
    }

    /**
     * The nodes in an order that respects every dependency, ties broken by creation order (Kahn's algorithm): the
     * order in which the driver runs them, and in which a graph launch's kernel snapshots are listed; null when the
     * dependencies form a cycle.
     */
    List<Node> topologicalOrder() {
        Map<Node, Integer> position = new IdentityHashMap<>();
        for (int i = 0; i < nodes.size(); i++) position.put(nodes.get(i), i);
        Map<Node, Integer> waiting = new IdentityHashMap<>();
        PriorityQueue<Node> ready = new PriorityQueue<>((a, b) -> Integer.compare(position.get(a), position.get(b)));
        for (Node n : nodes) {
            waiting.put(n, n.dependencies.size());
            if (n.dependencies.isEmpty()) ready.add(n);
        }
        List<Node> out = new ArrayList<>(nodes.size());
        while (!ready.isEmpty()) {
            Node n = ready.poll();
            out.add(n);
            for (Node d : n.dependents) if (waiting.merge(d, -1, Integer::sum) == 0) ready.add(d);
        }
        return out.size() == nodes.size() ? out : null;
    }

    /** Adds an edge from → to (to depends on from); false when it is there already. */
    static boolean connect(Node from, Node to) {
        if (to.dependencies.contains(from)) return false;
        to.dependencies.add(from);
        from.dependents.add(to);
        return true;
    }

    /** Removes an edge; false when it is not there. */
    static boolean disconnect(Node from, Node to) {
        if (!to.dependencies.remove(from)) return false;
        from.dependents.remove(to);
        return true;
    }

    /**
     * The handle tables of graphs, nodes, executable graphs and user objects, and the accounting of graph memory,
     * shared by the graph areas ({@link GraphNodes}) and {@link StreamCapture}. {@link #lock} guards every graph.
     */
    static final class Tables {
        final Object lock = new Object();
        final Handles<Graph> graphs = new Handles<>(0x30);
        final Handles<Node> nodes = new Handles<>(0x31);
        final Handles<UserObject> userObjects = new Handles<>(0x33);
        /** Graph memory by address, while some graph or executable graph holds it. */
        final Map<Long, GraphMemory> memory = new HashMap<>();
        /** Bytes of graph memory mapped now, and the most since the last reset (CU_GRAPH_MEM_ATTR_USED_MEM_*). */
        long usedCurrent, usedHigh;
        /** Bytes of graph memory reserved now, and the most since the last reset (CU_GRAPH_MEM_ATTR_RESERVED_MEM_*). */
        long reservedCurrent, reservedHigh;

        /**
         * Reserves graph memory for a mem alloc node ({@link MemoryArea#reserveGraphMemory}) and counts it as reserved.
         *
         * @param out receives the reservation (no holder yet: the node that gets it retains it)
         */
        int reserve(MemoryArea memory, long bytes, GraphMemory[] out) {
            int r = memory.reserveGraphMemory(bytes, out);
            if (r != CuResult.SUCCESS) return r;
            this.memory.put(out[0].address, out[0]);
            reservedCurrent += bytes;
            reservedHigh = Math.max(reservedHigh, reservedCurrent);
            return r;
        }

        /** Makes graph memory accessible (its alloc node runs). */
        void map(MemoryArea memory, GraphMemory m) {
            if (memory.map(m.allocation)) {
                usedCurrent += m.size;
                usedHigh = Math.max(usedHigh, usedCurrent);
            }
        }

        /** Makes graph memory inaccessible (a free node runs, or cuMemFree/cuMemFreeAsync freed it). */
        void unmap(MemoryArea memory, GraphMemory m) {
            if (memory.unmap(m.allocation)) usedCurrent -= m.size;
        }

        /** A new, empty graph with a handle. */
        Graph newGraph() {
            long h = graphs.reserve();
            Graph g = new Graph(h);
            graphs.put(h, g);
            return g;
        }

        /** Adds a node with a handle to a graph, after the given dependencies. */
        Node addNode(Graph g, Params p, List<Node> dependencies) {
            long h = nodes.reserve();
            Node n = new Node(h, g, p);
            nodes.put(h, n);
            g.nodes.add(n);
            for (Node d : dependencies) connect(d, n);
            retain(p);
            return n;
        }

        /** The graph memory a node's parameters hold gains a holder. */
        void retain(Params p) {
            if (p instanceof MemAlloc m) m.memory().retain();
        }

        /** Drops what a node's parameters hold: graph memory, owned graphs (recursively). */
        void dispose(Params p, MemoryArea memory) {
            switch (p) {
                case MemAlloc m -> {
                    if (m.memory().release()) {
                        unmap(memory, m.memory());
                        this.memory.remove(m.memory().address);
                        reservedCurrent -= m.memory().size;
                    }
                }
                case Child c -> destroy(c.graph(), memory);
                case Conditional c -> { for (Graph b : c.bodies()) destroy(b, memory); }
                default -> { }
            }
        }

        /** Destroys a graph: its nodes and what they hold, its handle, its references to user objects. */
        void destroy(Graph g, MemoryArea memory) {
            for (Node n : g.nodes) {
                if (n.handle != 0) nodes.remove(n.handle);
                dispose(n.params, memory);
            }
            g.nodes.clear();
            if (g.handle != 0) graphs.remove(g.handle);
            for (var e : g.userObjects.entrySet()) release(e.getKey(), e.getValue());
            g.userObjects.clear();
        }

        /**
         * A deep copy of a graph: the same nodes in the same order with the same edges, child graphs and conditional
         * bodies copied too, graph memory shared (one more holder).
         *
         * @param registered whether the copy and its nodes get handles (cuGraphClone) or not (an executable graph's copy)
         * @param map receives original node → copy, for the top level and every nested graph
         */
        Graph copy(Graph g, boolean registered, Map<Node, Node> map) {
            Graph c = registered ? newGraph() : new Graph(0);
            for (Node n : g.nodes) {
                Params p = switch (n.params) {
                    case Child ch -> new Child(ownedCopy(ch.graph(), registered, map, null));
                    case Conditional cd -> {
                        Graph[] bodies = new Graph[cd.bodies().length];
                        for (int i = 0; i < bodies.length; i++) bodies[i] = ownedCopy(cd.bodies()[i], registered, map, null);
                        yield new Conditional(cd.handle(), cd.condType(), bodies, cd.ctx(), cd.bodyArray());
                    }
                    default -> n.params;
                };
                long h = registered ? nodes.reserve() : 0;
                Node m = new Node(h, c, p);
                if (registered) nodes.put(h, m);
                m.attributes.putAll(n.attributes);
                c.nodes.add(m);
                retain(p);
                map.put(n, m);
            }
            for (Node n : g.nodes) for (Node d : n.dependencies) connect(map.get(d), map.get(n));
            for (Node n : c.nodes) {
                if (n.params instanceof Child ch) ch.graph().owner = n;
                if (n.params instanceof Conditional cd) for (Graph b : cd.bodies()) b.owner = n;
            }
            c.conditions.addAll(g.conditions);
            for (var e : g.userObjects.entrySet()) {
                c.userObjects.merge(e.getKey(), e.getValue(), Integer::sum);
                e.getKey().references += e.getValue();
            }
            return c;
        }

        private Graph ownedCopy(Graph g, boolean registered, Map<Node, Node> map, Node owner) {
            Graph c = copy(g, registered, map);
            c.owner = owner;
            return c;
        }

        /** Drops {@code count} references to a user object; at zero its destroy callback runs (on this thread). */
        void release(UserObject o, int count) {
            o.references -= count;
            if (o.references <= 0 && userObjects.remove(o.handle) != null) {
                if (o.destroy != 0) StreamArea.callHost(o.destroy, o.ptr);
            }
        }
    }
}
