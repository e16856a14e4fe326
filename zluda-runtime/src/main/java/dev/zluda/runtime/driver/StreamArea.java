package dev.zluda.runtime.driver;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import dev.zluda.runtime.backend.BackendException;
import dev.zluda.runtime.api.CudaStructs.CUstreamAttrValue;

import static dev.zluda.runtime.driver.CuResult.*;
import static dev.zluda.runtime.driver.Native.at;
import static dev.zluda.runtime.driver.Native.getInt;
import static dev.zluda.runtime.driver.Native.putInt;
import static dev.zluda.runtime.driver.Native.putLong;

/**
 * Streams (CUDA Driver API group CUDA_STREAM): creation and destruction, synchronisation and queries, flags,
 * priorities, ids and owners, attributes, and host functions on streams (stream capture: {@link StreamCaptureArea},
 * {@link StreamCapture}; a host function on a capturing stream becomes a host node). Each stream is the
 * backend's ({@code Backend#createStream}; HIP's on the hip backend, none on the emulator), the default and legacy
 * streams its null stream. On the emulator every operation completes before the call that enqueues it returns, so
 * each stream is trivially in order, queries answer CUDA_SUCCESS, waits return at once, and a host function runs on
 * the calling thread at once — valid schedules under the CUDA stream semantics; on the hip backend a host function
 * or callback runs on the calling thread once the stream's earlier work is done.
 */
final class StreamArea {
    /** The special stream handles of cuda.h: CU_STREAM_LEGACY and CU_STREAM_PER_THREAD (0 is the default stream). */
    static final long CU_STREAM_LEGACY = 0x1, CU_STREAM_PER_THREAD = 0x2;

    /** A stream (CUstream). */
    /** @param backendHandle the backend's stream (hipStream_t on the hip backend), else 0 */
    record Stream(long handle, long id, Context context, int flags, int priority, long backendHandle) {}

    private final DriverState state;
    final Handles<Stream> streams = new Handles<>(2);
    private final AtomicLong streamIds = new AtomicLong(10); // ids of the special streams stay below
    /** Made on first use, not when the driver starts (a downcall handle costs the start-up a class). */
    private static final class Calls {
        static final MethodHandle CALL_VOID_PTR = Linker.nativeLinker().downcallHandle(FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
        static final MethodHandle CALL_STREAM_CALLBACK = Linker.nativeLinker().downcallHandle(
                FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
    }

    StreamArea(DriverState state) {
        this.state = state;
    }

    /** Stream capture ({@link StreamCapture}), wired by {@link Areas}. */
    StreamCapture capture;

    /**
     * Calls a host function {@code void fn(void *arg)} on this thread (host functions, graph host nodes, user
     * objects' destructors); CUDA_ERROR_UNKNOWN when the call fails.
     */
    static int callHost(long fn, long arg) {
        try {
            Calls.CALL_VOID_PTR.invokeExact(MemorySegment.ofAddress(fn), MemorySegment.ofAddress(arg));
            return SUCCESS;
        } catch (Throwable t) {
            return UNKNOWN;
        }
    }

    /** SUCCESS for a stream the calling context may use (the default, legacy and per-thread streams, or a live one). */
    int checkStream(long hStream) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (hStream == 0 || hStream == CU_STREAM_LEGACY || hStream == CU_STREAM_PER_THREAD) return SUCCESS;
        Stream s = streams.get(hStream);
        return s == null || s.context().destroyed ? INVALID_HANDLE : SUCCESS;
    }

    /**
     * The context a stream belongs to: the calling thread's current one for the default, legacy and per-thread
     * streams; null for a handle that is not a live stream.
     */
    Context contextOf(long hStream) {
        if (hStream == 0 || hStream == CU_STREAM_LEGACY || hStream == CU_STREAM_PER_THREAD) return state.current();
        Stream s = streams.get(hStream);
        return s == null ? null : s.context();
    }

    /** The backend's stream of a CUstream whose handle was checked: its null stream (0) for the default and legacy ones. */
    long nativeStream(long hStream) {
        Stream s = stream(hStream);
        return s == null ? 0 : s.backendHandle();
    }

    /**
     * As {@link #checkStream}, and waits until the stream's earlier work is done (at once on the emulator), so that
     * an async copy or memset done now is ordered after it.
     */
    int streamDone(long hStream) {
        int r = checkStream(hStream);
        return r != SUCCESS ? r : state.backend().synchronizeStream(nativeStream(hStream));
    }

    /** Destroys the streams of a context being destroyed or reset. */
    void release(Context c) {
        for (Stream s : streams.values()) {
            if (s.context() == c && streams.remove(s.handle()) != null) state.backend().destroyStream(s.backendHandle());
        }
    }

    // ---------------------------------------------------------------- streams

    private int createStream(long phStream, int flags, int priority) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (phStream == 0 || (flags & ~1) != 0) return INVALID_VALUE; // CU_STREAM_DEFAULT | CU_STREAM_NON_BLOCKING
        int prio = Math.max(-5, Math.min(0, priority));
        long hs;
        try {
            hs = state.backend().createStream(flags, prio);
        } catch (BackendException e) {
            return e.cuResult;
        }
        long h = streams.reserve();
        streams.put(h, new Stream(h, streamIds.incrementAndGet(), state.current(), flags, prio, hs));
        putLong(phStream, h);
        return SUCCESS;
    }

    public int cuStreamCreate(long phStream, int Flags) {
        return createStream(phStream, Flags, 0);
    }

    public int cuStreamCreateWithPriority(long phStream, int flags, int priority) {
        return createStream(phStream, flags, priority);
    }

    public int cuStreamDestroy_v2(long hStream) {
        if (!state.initialized) return NOT_INITIALIZED;
        Stream s = streams.remove(hStream);
        if (s == null) return INVALID_HANDLE;
        return state.backend().destroyStream(s.backendHandle());
    }

    public int cuStreamSynchronize(long hStream) {
        return streamDone(hStream);
    }

    public int cuStreamQuery(long hStream) {
        int r = checkStream(hStream);
        return r != SUCCESS ? r : state.backend().queryStream(nativeStream(hStream));
    }

    private Stream stream(long hStream) {
        return hStream == 0 || hStream == CU_STREAM_LEGACY || hStream == CU_STREAM_PER_THREAD ? null : streams.get(hStream);
    }

    /**
     * Answers a question about a stream: checks it and the output pointer, then writes what {@code answer} gives for
     * the stream (null for the default, legacy and per-thread streams): 8 bytes when {@code wide}, else 4.
     */
    private int answer(long hStream, long out, java.util.function.ToLongFunction<Stream> answer, boolean wide) {
        int r = checkStream(hStream);
        if (r != SUCCESS) return r;
        if (out == 0) return INVALID_VALUE;
        long v = answer.applyAsLong(stream(hStream));
        if (wide) putLong(out, v);
        else putInt(out, (int) v);
        return SUCCESS;
    }

    public int cuStreamGetFlags(long hStream, long flags) {
        return answer(hStream, flags, s -> s == null ? 0 : s.flags(), false);
    }

    public int cuStreamGetPriority(long hStream, long priority) {
        return answer(hStream, priority, s -> s == null ? 0 : s.priority(), false);
    }

    public int cuStreamGetId(long hStream, long streamId) {
        return answer(hStream, streamId, s -> s == null ? hStream : s.id(), true);
    }

    public int cuStreamGetCtx(long hStream, long pctx) {
        return answer(hStream, pctx, s -> s == null ? state.current().handle : s.context().handle, true);
    }

    public int cuStreamGetDevice(long hStream, long device) {
        return answer(hStream, device, s -> s == null ? state.current().device : s.context().device, false);
    }

    /** cuLaunchHostFunc: runs {@code fn(userData)} once the stream's earlier work is done; on a capturing stream, a host node. */
    public int cuLaunchHostFunc(long hStream, long fn, long userData) {
        int r = checkStream(hStream);
        if (r != SUCCESS) return r;
        if (fn == 0) return INVALID_VALUE;
        if (capture.capturing(hStream)) return capture.add(hStream, new Graph.Host(fn, userData));
        r = streamDone(hStream);
        if (r != SUCCESS) return r;
        return callHost(fn, userData);
    }

    /** cuStreamAddCallback: as cuLaunchHostFunc, with the stream and status; it cannot be captured (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED). */
    public int cuStreamAddCallback(long hStream, long callback, long userData, int flags) {
        int r = checkStream(hStream);
        if (r != SUCCESS) return r;
        StreamCapture.Sequence seq = capture.sequence(hStream);
        if (seq != null) {
            seq.invalidated = true;
            return StreamCapture.STREAM_CAPTURE_UNSUPPORTED;
        }
        r = streamDone(hStream);
        if (r != SUCCESS) return r;
        if (callback == 0 || flags != 0) return INVALID_VALUE;
        try {
            Calls.CALL_STREAM_CALLBACK.invokeExact(MemorySegment.ofAddress(callback), MemorySegment.ofAddress(hStream), SUCCESS,
                    MemorySegment.ofAddress(userData));
        } catch (Throwable t) {
            return UNKNOWN;
        }
        return SUCCESS;
    }

    // ---------------------------------------------------------------- stream attributes, capture status, context events

    /** CUstreamAttrID values accepted (cuda.h): access policy window 1, synchronisation policy 3, priority 8, memory sync domain map 9, domain 10. */
    private static final Set<Integer> STREAM_ATTRIBUTES = Set.of(1, 3, 8, 9, 10);
    private static final int STREAM_ATTR_PRIORITY = 8, STREAM_ATTR_ACCESS_POLICY_WINDOW = 1;

    /**
     * Whether the CUaccessPolicyWindow at {@code value} (the first member of a CUstreamAttrValue, CUkernelNodeAttrValue or
     * CUlaunchAttributeValue) is one the driver accepts: {@code num_bytes} at most MAX_ACCESS_POLICY_WINDOW_SIZE and
     * {@code hitRatio} in [0, 1]. {@code hitProp} and {@code missProp} are not checked: an H200 accepts a hitProp of 7
     * (src/test/resources/coop/h200/results.tsv).
     */
    static boolean validAccessPolicyWindow(DriverState state, long value) {
        long bytes = CUstreamAttrValue.accessPolicyWindow_num_bytes(value);
        float hit = CUstreamAttrValue.accessPolicyWindow_hitRatio(value);
        long max = Integer.toUnsignedLong(state.attributes.byName().get("MAX_ACCESS_POLICY_WINDOW_SIZE"));
        return bytes >= 0 && bytes <= max && hit >= 0f && hit <= 1f;
    }
    /** Attribute values set on streams (CUstreamAttrValue bytes), by stream handle and attribute id. */
    private final Map<Long, Map<Integer, byte[]>> streamAttributes = new ConcurrentHashMap<>();

    private long streamKey(long hStream) {
        return hStream == 0 || hStream == CU_STREAM_LEGACY ? 0 : hStream;
    }

    /**
     * cuStreamGetAttribute: the value last set with cuStreamSetAttribute (or copied), else zeros;
     * the priority is the stream's own. An unknown attribute: CUDA_ERROR_INVALID_VALUE.
     */
    public int cuStreamGetAttribute(long hStream, int attr, long value) {
        int r = checkStream(hStream);
        if (r != SUCCESS) return r;
        if (value == 0 || !STREAM_ATTRIBUTES.contains(attr)) return INVALID_VALUE;
        byte[] v = streamAttributes.getOrDefault(streamKey(hStream), Map.of()).get(attr);
        MemorySegment out = at(value, CUstreamAttrValue.SIZE);
        if (v != null) {
            MemorySegment.copy(v, 0, out, ValueLayout.JAVA_BYTE, 0, v.length);
        } else {
            out.fill((byte) 0);
            if (attr == STREAM_ATTR_PRIORITY) return cuStreamGetPriority(hStream, value);
        }
        return SUCCESS;
    }

    /**
     * cuStreamSetAttribute: stored (the emulator's streams run every operation at once, so none changes how they run).
     * An access policy window (a hint: the emulator has no cache) is checked as CUaccessPolicyWindow's documentation
     * asks: at most CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE bytes and a hit ratio in [0, 1] — else
     * CUDA_ERROR_INVALID_VALUE, as an H200 answers.
     */
    public int cuStreamSetAttribute(long hStream, int attr, long param) {
        int r = checkStream(hStream);
        if (r != SUCCESS) return r;
        if (param == 0 || !STREAM_ATTRIBUTES.contains(attr)) return INVALID_VALUE;
        if (attr == STREAM_ATTR_ACCESS_POLICY_WINDOW && !validAccessPolicyWindow(state, param)) return INVALID_VALUE;
        byte[] v = at(param, CUstreamAttrValue.SIZE).toArray(ValueLayout.JAVA_BYTE);
        streamAttributes.computeIfAbsent(streamKey(hStream), k -> new ConcurrentHashMap<>()).put(attr, v);
        return SUCCESS;
    }

    /** cuStreamCopyAttributes: the attributes set on src replace those of dst. */
    public int cuStreamCopyAttributes(long dstStream, long srcStream) {
        int r = checkStream(dstStream);
        if (r == SUCCESS) r = checkStream(srcStream);
        if (r != SUCCESS) return r;
        Map<Integer, byte[]> src = streamAttributes.getOrDefault(streamKey(srcStream), Map.of());
        streamAttributes.put(streamKey(dstStream), new ConcurrentHashMap<>(src));
        return SUCCESS;
    }

    /** cuStreamGetCtx_v2: the stream's context; no green contexts exist, so *pGreenCtx is NULL. */
    public int cuStreamGetCtx_v2(long hStream, long pCtx, long pGreenCtx) {
        if (pGreenCtx == 0) return INVALID_VALUE;
        int r = cuStreamGetCtx(hStream, pCtx);
        if (r == SUCCESS) putLong(pGreenCtx, 0);
        return r;
    }

}
