package dev.zluda.runtime.driver;

import dev.zluda.runtime.api.CudaStructs.CUDA_MEMCPY3D;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A graph as Graphviz DOT text, for {@code cuGraphDebugDotPrint}: one box per node with its kind and, for kernels,
 * the name, shape and shared memory; memcpy and memset nodes with their sizes; an edge per dependency; child graphs
 * and conditional bodies as clusters.
 */
final class GraphDot {
    private GraphDot() {}

    /**
     * The DOT text of a graph.
     *
     * @param handles whether each node's box shows its handle (CU_GRAPH_DEBUG_DOT_FLAGS_HANDLES)
     */
    static String of(Graph g, boolean handles) {
        StringBuilder sb = new StringBuilder("digraph dot {\n");
        dot(sb, g, "graph_" + (g.handle & 0xFFFF_FFFFL) / 16, new int[1], handles);
        sb.append("}\n");
        return sb.toString();
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
