package dev.zluda.viewer;

import dev.zluda.diff.CallIndex;
import dev.zluda.spec.Role;
import dev.zluda.capture.DataItem;
import dev.zluda.spec.CudaFunction;
import dev.zluda.spec.CudaParam;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The work calls put on CUDA streams, for the timeline's stream lanes. A capture holds API calls,
 * not the device's own timing, so an operation is shown for what the calls tell of it: from the
 * call that enqueued it to the end of the first later call after which it is known to be complete
 * (CUDA Driver API, "Stream synchronization behavior"):
 * <ul>
 * <li>enqueued: {@code cuLaunch*} (kernels; {@code cuLaunchKernelEx} names its stream in its
 *     config, bytes 32–39), {@code cuMemcpy*Async}, {@code cuMemset*Async}, {@code cuMemPrefetchAsync},
 *     {@code cuMemAllocAsync}, {@code cuMemFreeAsync}, {@code cuEventRecord*}, {@code cuStreamWaitEvent},
 *     {@code cuGraphLaunch}, on the stream they name (0: the NULL stream); the synchronous
 *     {@code cuMemcpy*} and {@code cuMemset*} on the NULL stream, complete when they return;</li>
 * <li>completed by a successful {@code cuStreamSynchronize} or {@code cuStreamQuery} of that stream,
 *     {@code cuCtxSynchronize} (every stream), {@code cuEventSynchronize} or a successful
 *     {@code cuEventQuery} of an event recorded on it (what was enqueued before the record), and a
 *     synchronous copy or memset (the NULL stream).</li>
 * </ul>
 * An operation never seen completing ends at the end of the capture ({@link Op#completed} false).
 * Failed enqueuing calls are left out.
 */
final class StreamLanes {
    /** What an operation is: its bar's colour. */
    enum Kind { KERNEL, COPY, MEMSET, OTHER }

    /**
     * One enqueued operation.
     *
     * @param call the call that enqueued it (0-based)
     * @param stream the stream handle (0: the NULL stream)
     * @param startNs when that call started, ns since the capture began
     * @param doneNs the end of the call after which it is known to be complete, ns
     * @param completed false when no such call was seen ({@code doneNs} is then the capture's end)
     * @param row the row of the stream's lane it is drawn in (operations that overlap in time go to
     *     different rows)
     */
    record Op(int call, long stream, Kind kind, long startNs, long doneNs, boolean completed, int row) {}

    /** The lanes: stream handles in order of first use, and each stream's operations in call order. */
    private final Map<Long, List<Op>> byStream = new LinkedHashMap<>();
    private final int ops;
    private final boolean truncated;

    private StreamLanes(Map<Long, List<Op>> byStream, int ops, boolean truncated) {
        this.byStream.putAll(byStream);
        this.ops = ops;
        this.truncated = truncated;
    }

    /** Stream handles with operations, in order of their first. */
    List<Long> streams() {
        return List.copyOf(byStream.keySet());
    }

    /** The operations on a stream, in call order. */
    List<Op> ops(long stream) {
        return byStream.getOrDefault(stream, List.of());
    }

    /** Operations in all lanes. */
    int size() {
        return ops;
    }

    /** Whether more operations than the limit were enqueued (the rest are not shown). */
    boolean truncated() {
        return truncated;
    }

    /** Rows used by a stream's lane. */
    int rows(long stream) {
        int r = 0;
        for (Op o : ops(stream)) r = Math.max(r, o.row + 1);
        return Math.max(1, r);
    }

    /** What a call does to the lanes. */
    private enum Effect { NONE, ENQUEUE, SYNC_COPY, STREAM_SYNC, STREAM_QUERY, CTX_SYNC, EVENT_SYNC, EVENT_QUERY }

    private record Fn(Effect role, Kind kind, int stream, int event, boolean configStream) {}

    /** A function's effect on the lanes, from its role in the spec and where its stream and event parameters are. */
    private static Fn classify(CudaFunction f) {
        int stream = f.param("hStream").or(() -> f.param("stream")).map(CudaParam::index).orElse(-1);
        int event = f.param("hEvent").or(() -> f.param("event")).map(CudaParam::index).orElse(-1);
        Role role = f.role();
        switch (role) {
            case STREAM_SYNC -> { return new Fn(Effect.STREAM_SYNC, null, stream, -1, false); }
            case STREAM_QUERY -> { return new Fn(Effect.STREAM_QUERY, null, stream, -1, false); }
            case CONTEXT_SYNC -> { return new Fn(Effect.CTX_SYNC, null, -1, -1, false); }
            case EVENT_SYNC -> { return new Fn(Effect.EVENT_SYNC, null, -1, event, false); }
            case EVENT_QUERY -> { return new Fn(Effect.EVENT_QUERY, null, -1, event, false); }
            default -> { }
        }
        boolean launch = role == Role.KERNEL_LAUNCH || role == Role.GRAPH_LAUNCH;
        // cuLaunchKernelEx names its stream in its CUlaunchConfig
        if (launch && f.param("config").isPresent()) return new Fn(Effect.ENQUEUE, Kind.KERNEL, -1, -1, true);
        if (launch && stream >= 0) return new Fn(Effect.ENQUEUE, Kind.KERNEL, stream, -1, false);
        boolean copy = role == Role.COPY, set = role == Role.MEMSET;
        if ((copy || set) && stream >= 0) return new Fn(Effect.ENQUEUE, copy ? Kind.COPY : Kind.MEMSET, stream, -1, false);
        if (copy || set) return new Fn(Effect.SYNC_COPY, copy ? Kind.COPY : Kind.MEMSET, -1, -1, false);
        // other stream-ordered work: host functions, prefetches, stream-ordered allocation, event records and waits
        boolean ordered = switch (role) {
            case HOST_CALLBACK, MEMORY_HINT, ALLOCATION, FREE, EVENT_RECORD, EVENT_WAIT -> true;
            default -> false;
        };
        if (stream >= 0 && ordered) return new Fn(Effect.ENQUEUE, Kind.OTHER, stream, role == Role.EVENT_RECORD ? event : -1, false);
        return new Fn(Effect.NONE, null, -1, -1, false);
    }

    /** A pending operation while reading. */
    private static final class Pending {
        final int call;
        final long stream, start;
        final Kind kind;
        long done = -1;

        Pending(int call, long stream, Kind kind, long start) {
            this.call = call;
            this.stream = stream;
            this.kind = kind;
            this.start = start;
        }
    }

    /** One stream's operations while reading; work on a stream completes in order, so the complete ones are a prefix. */
    private static final class Lane {
        final List<Pending> ops = new ArrayList<>();
        int completeUpTo;

        /** The first {@code count} operations are known complete at {@code end}. */
        void complete(int count, long end) {
            for (int k = completeUpTo; k < count; k++) ops.get(k).done = end;
            completeUpTo = Math.max(completeUpTo, count);
        }
    }

    /**
     * Reads the stream operations of the calls indexed so far (decoding only the calls of the
     * functions above), at most {@code limit} of them.
     */
    static StreamLanes build(CallIndex idx, CallDecoder dec, int limit) {
        int nf = idx.functionCount();
        Fn[] fns = new Fn[nf];
        for (int f = 0; f < nf; f++) {
            CudaFunction cf = idx.capture().specFunction(f);
            fns[f] = cf == null ? new Fn(Effect.NONE, null, -1, -1, false) : classify(cf);
        }
        List<Pending> all = new ArrayList<>();
        Map<Long, Lane> lanesOpen = new HashMap<>();                // per stream: its operations, the first not yet complete
        Map<Long, long[]> events = new HashMap<>();                 // event -> {stream, operations of that stream enqueued before its record}
        boolean truncated = false;
        int n = idx.size();
        for (int i = 0; i < n; i++) {
            int f = idx.function(i);
            Fn fn = f >= 0 && f < nf ? fns[f] : null;
            if (fn == null || fn.role == Effect.NONE || idx.inFlight(i) || idx.failed(i)) continue;
            CallDecoder.Decoded d = dec.decode(i);
            if (d.enter() == null) continue;
            long[] a = d.enter().args();
            long end = idx.end(i);
            switch (fn.role) {
                case ENQUEUE, SYNC_COPY -> {
                    if (all.size() >= limit) {
                        truncated = true;
                        continue;
                    }
                    long s = fn.role == Effect.SYNC_COPY ? 0 : fn.configStream ? configStream(d) : arg(a, fn.stream);
                    Pending p = new Pending(i, s, fn.kind, idx.start(i));
                    all.add(p);
                    Lane lane = lanesOpen.computeIfAbsent(s, k -> new Lane());
                    // an event completes with the work before its record, and the record itself
                    if (fn.event >= 0) events.put(arg(a, fn.event), new long[] {s, lane.ops.size() + 1});
                    lane.ops.add(p);
                    if (fn.role == Effect.SYNC_COPY) lane.complete(lane.ops.size(), end);   // the NULL stream's earlier work, and this copy
                }
                case STREAM_SYNC, STREAM_QUERY -> {
                    Lane lane = lanesOpen.get(arg(a, fn.stream));
                    if (lane != null) lane.complete(lane.ops.size(), end);
                }
                case CTX_SYNC -> {
                    for (Lane lane : lanesOpen.values()) lane.complete(lane.ops.size(), end);
                }
                case EVENT_SYNC, EVENT_QUERY -> {
                    long[] ev = events.get(arg(a, fn.event));
                    Lane lane = ev == null ? null : lanesOpen.get(ev[0]);
                    if (lane != null) lane.complete((int) ev[1], end);
                }
                default -> { }
            }
        }
        long captureEnd = idx.endNs();
        Map<Long, List<Op>> lanes = new LinkedHashMap<>();
        Map<Long, List<Long>> rowEnds = new HashMap<>();
        for (Pending p : all) {
            boolean completed = p.done >= 0;
            long done = completed ? p.done : Math.max(captureEnd, p.start);
            List<Long> ends = rowEnds.computeIfAbsent(p.stream, k -> new ArrayList<>());
            int row = 0;
            while (row < ends.size() && ends.get(row) > p.start) row++;
            if (row == ends.size()) ends.add(done);
            else ends.set(row, done);
            lanes.computeIfAbsent(p.stream, k -> new ArrayList<>()).add(new Op(p.call, p.stream, p.kind, p.start, done, completed, row));
        }
        return new StreamLanes(lanes, all.size(), truncated);
    }

    private static long arg(long[] a, int i) {
        return i >= 0 && i < a.length ? a[i] : 0;
    }

    /** cuLaunchKernelEx: CUlaunchConfig.hStream (bytes 32–39 of the config, CUDA 12+ layout). */
    private static long configStream(CallDecoder.Decoded d) {
        DataItem in = CallDecoder.item(d.enter().data(), 0);
        byte[] b = in == null || !in.isInline() ? null : in.bytes();
        if (b == null || b.length < 40) return 0;
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong(32);
    }

    /** For the details of a bar: what it shows, in words. */
    static String describe(Op o, String function) {
        return function + " on " + streamName(o.stream) + (o.completed ? ", known complete " + ViewerWindow.duration(o.doneNs - o.startNs) + " after it was enqueued"
                : ", not seen completing before the capture ends");
    }

    /** A stream's name in the gutter. */
    static String streamName(long stream) {
        return stream == 0 ? "NULL stream" : String.format(java.util.Locale.ROOT, "stream 0x%x", stream);
    }
}
