package dev.zluda.viewer;

import dev.zluda.diff.CallIndex;
import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureFormat;
import dev.zluda.capture.CaptureWriter;
import dev.zluda.capture.FunctionDef;
import dev.zluda.capture.ThreadLog;
import dev.zluda.spec.CudaApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** {@link StreamLanes}: which calls put work on which stream, and after which call it is known complete. */
class StreamLanesTest {
    private static StreamLanes lanes(Capture c) {
        CallIndex idx = new CallIndex(c);
        idx.load(n -> { }, () -> false);
        return StreamLanes.build(idx, new CallDecoder(idx), 1000);
    }

    @Test
    void vectorAddRecordedOnTheH200() throws Exception {
        try (Capture c = Capture.open(Fx.sample("vectorAdd"))) {
            CallIndex idx = new CallIndex(c);
            idx.load(n -> { }, () -> false);
            StreamLanes sl = StreamLanes.build(idx, new CallDecoder(idx), 1000);
            assertEquals(List.of(0L), sl.streams(), "everything on the NULL stream");
            List<StreamLanes.Op> ops = sl.ops(0);
            // calls 10, 11: cuMemcpyHtoD_v2; 12: cuLaunchKernel; 13: cuCtxSynchronize; 14: cuMemcpyDtoH_v2
            assertEquals(List.of(10, 11, 12, 14), ops.stream().map(StreamLanes.Op::call).toList());
            assertEquals(List.of(StreamLanes.Kind.COPY, StreamLanes.Kind.COPY, StreamLanes.Kind.KERNEL, StreamLanes.Kind.COPY),
                    ops.stream().map(StreamLanes.Op::kind).toList());
            assertEquals(idx.end(10), ops.get(0).doneNs(), "a synchronous copy is complete when it returns");
            assertEquals(idx.start(12), ops.get(2).startNs());
            assertEquals(idx.end(13), ops.get(2).doneNs(), "the kernel is known complete after cuCtxSynchronize");
            assertTrue(ops.stream().allMatch(StreamLanes.Op::completed));
            assertTrue(ops.stream().allMatch(o -> o.row() == 0), "nothing overlaps");
        }
    }

    @Test
    void streamsEventsAndWorkNeverSeenCompleting(@TempDir Path tmp) throws Exception {
        CudaApi api = CudaApi.get();
        java.util.function.ToIntFunction<String> id = n -> api.function(n).orElseThrow().id();
        long s1 = 0x5000, s2 = 0x6000, ev = 0x7000, fn = 0x55d6afc3c600L;
        Path dir = tmp.resolve("streams");
        Files.createDirectories(dir);
        CaptureWriter w = CaptureWriter.create(dir.resolve(CaptureFormat.CAPTURE_FILE), CaptureWriter.Options.defaults(), FunctionDef.fromSpec(api));
        ThreadLog t = w.thread(1000);
        long ts = System.nanoTime() + 1_000_000;
        long[] launch = {fn, 1, 1, 1, 32, 1, 1, 0, s1, 0x7ffc0000L, 0};
        long e = t.enter(id.applyAsInt("cuLaunchKernel"), 0, ts, launch, null);                       // 0: kernel on s1
        t.leave(e, ts + 1000, 0, null);
        e = t.enter(id.applyAsInt("cuEventRecord"), 0, ts + 2000, new long[] {ev, s1}, null);          // 1: event after it
        t.leave(e, ts + 2100, 0, null);
        e = t.enter(id.applyAsInt("cuMemcpyHtoDAsync_v2"), 0, ts + 3000, new long[] {0x7f0000000000L, 0x55d600000000L, 64, s2}, null); // 2: copy on s2
        t.leave(e, ts + 3100, 0, null);
        e = t.enter(id.applyAsInt("cuLaunchKernel"), 0, ts + 4000, launch, null);                     // 3: kernel on s1, after the event
        t.leave(e, ts + 4500, 0, null);
        e = t.enter(id.applyAsInt("cuEventSynchronize"), 0, ts + 5000, new long[] {ev}, null);        // 4: completes 0 and 1
        t.leave(e, ts + 8000, 0, null);
        e = t.enter(id.applyAsInt("cuStreamSynchronize"), 0, ts + 9000, new long[] {s2}, null);       // 5: completes 2
        t.leave(e, ts + 9500, 0, null);
        e = t.enter(id.applyAsInt("cuStreamQuery"), 0, ts + 10000, new long[] {s1}, null);            // 6: not ready: completes nothing
        t.leave(e, ts + 10100, 600, null);
        w.close();
        try (Capture c = Capture.open(dir)) {
            CallIndex idx = new CallIndex(c);
            idx.load(n -> { }, () -> false);
            StreamLanes sl = StreamLanes.build(idx, new CallDecoder(idx), 1000);
            assertEquals(List.of(s1, s2), sl.streams());
            List<StreamLanes.Op> a = sl.ops(s1), b = sl.ops(s2);
            assertEquals(List.of(0, 1, 3), a.stream().map(StreamLanes.Op::call).toList());
            assertEquals(idx.end(4), a.get(0).doneNs(), "the kernel before the event: complete after cuEventSynchronize");
            assertEquals(idx.end(4), a.get(1).doneNs(), "the event record itself");
            assertFalse(a.get(2).completed(), "the kernel after the event is never seen completing (the query said not ready)");
            assertEquals(idx.endNs(), a.get(2).doneNs());
            assertEquals(List.of(0, 1, 2), a.stream().map(StreamLanes.Op::row).toList(), "overlapping work in separate rows");
            assertEquals(StreamLanes.Kind.COPY, b.get(0).kind());
            assertEquals(idx.end(5), b.get(0).doneNs(), "the copy: complete after cuStreamSynchronize of its stream");
            assertEquals(3, sl.rows(s1));
            // the limit
            assertTrue(StreamLanes.build(idx, new CallDecoder(idx), 2).truncated());
        }
    }

    /**
     * The lanes decide by the spec's roles: a host function is stream-ordered work but no kernel, and the per-thread
     * variant of a synchronisation completes its stream's work like the legacy one.
     */
    @Test
    void rolesDecideWhatAFunctionDoesToTheLanes(@TempDir Path tmp) throws Exception {
        CudaApi api = CudaApi.get();
        java.util.function.ToIntFunction<String> id = n -> api.function(n).orElseThrow().id();
        long s1 = 0x5000, fn = 0x55d6afc3c600L;
        Path dir = tmp.resolve("roles");
        Files.createDirectories(dir);
        CaptureWriter w = CaptureWriter.create(dir.resolve(CaptureFormat.CAPTURE_FILE), CaptureWriter.Options.defaults(), FunctionDef.fromSpec(api));
        ThreadLog t = w.thread(1000);
        long ts = System.nanoTime() + 1_000_000;
        long e = t.enter(id.applyAsInt("cuLaunchKernel_ptsz"), 0, ts, new long[] {fn, 1, 1, 1, 32, 1, 1, 0, s1, 0x7ffc0000L, 0}, null); // 0
        t.leave(e, ts + 1000, 0, null);
        e = t.enter(id.applyAsInt("cuLaunchHostFunc"), 0, ts + 2000, new long[] {s1, 0x401000, 0}, null);                            // 1
        t.leave(e, ts + 2100, 0, null);
        e = t.enter(id.applyAsInt("cuStreamSynchronize_ptsz"), 0, ts + 3000, new long[] {s1}, null);                                 // 2
        t.leave(e, ts + 4000, 0, null);
        w.close();
        try (Capture c = Capture.open(dir)) {
            CallIndex idx = new CallIndex(c);
            idx.load(n -> { }, () -> false);
            StreamLanes sl = StreamLanes.build(idx, new CallDecoder(idx), 1000);
            List<StreamLanes.Op> a = sl.ops(s1);
            assertEquals(List.of(0, 1), a.stream().map(StreamLanes.Op::call).toList());
            assertEquals(List.of(StreamLanes.Kind.KERNEL, StreamLanes.Kind.OTHER), a.stream().map(StreamLanes.Op::kind).toList(),
                    "the host function is ordered work of kind OTHER, not a kernel");
            assertTrue(a.stream().allMatch(o -> o.doneNs() == idx.end(2)), "cuStreamSynchronize_ptsz completes both");
        }
    }
}
