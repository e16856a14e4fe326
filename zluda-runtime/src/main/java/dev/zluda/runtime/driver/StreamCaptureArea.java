package dev.zluda.runtime.driver;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;

import static dev.zluda.runtime.driver.CuResult.*;
import static dev.zluda.runtime.driver.Native.getInt;
import static dev.zluda.runtime.driver.Native.putInt;
import static dev.zluda.runtime.driver.Native.putLong;

/**
 * The stream-capture functions of CUDA_STREAM (CUDA Driver API): beginning and ending a capture, its status and
 * dependencies, and the thread's capture mode, over {@link StreamCapture} (the capture state the areas that enqueue
 * work share).
 */
final class StreamCaptureArea {
    private final DriverState state;
    private final Graph.Tables tables;
    private final GraphNodes nodes;
    private final StreamArea streams;
    private final StreamCapture capture;
    /** The driver-owned arrays handed out by cuStreamGetCaptureInfo, per stream (valid until the next query). */
    private final Map<Long, MemorySegment> captureInfoArrays = new java.util.concurrent.ConcurrentHashMap<>();

    StreamCaptureArea(GraphNodes nodes, StreamArea streams, StreamCapture capture) {
        this.state = nodes.state;
        this.tables = nodes.tables;
        this.nodes = nodes;
        this.streams = streams;
        this.capture = capture;
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
            g = nodes.graph(hGraph);
            if (g == null) return INVALID_VALUE;
            deps = nodes.nodeList(dependencies, numDependencies, g);
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
            deps = nodes.nodeList(dependencies, numDependencies, s.graph);
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
}
