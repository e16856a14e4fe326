package dev.zluda.runtime.driver;

import dev.zluda.spec.CudaApi;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.atomic.AtomicLong;

import dev.zluda.runtime.backend.BackendException;

import static dev.zluda.runtime.driver.CuResult.*;
import static dev.zluda.runtime.driver.Native.putFloat;
import static dev.zluda.runtime.driver.Native.putInt;
import static dev.zluda.runtime.driver.Native.putLong;

/**
 * Streams and events (CUDA Driver API groups CUDA_STREAM, CUDA_EVENT), and host functions on
 * streams. The emulator completes every operation before the call that enqueues it returns, so
 * each stream is trivially in order, queries answer CUDA_SUCCESS, waits return at once, and a host
 * function runs on the calling thread at once — valid schedules under the CUDA stream semantics.
 * Events take the host's monotonic clock when recorded.
 *
 * <p>On the hip backend each stream and event is HIP's ({@code hipStreamCreateWithPriority},
 * {@code hipEventCreateWithFlags}; CUDA's and HIP's flag values are the same), the default and legacy streams are
 * HIP's null stream, and synchronisation, queries, waits and elapsed times are HIP's. A host function or callback
 * runs on the calling thread once the stream's earlier work is done.
 */
abstract class StreamLayer extends MemoryLayer {
    /** The special stream handles of cuda.h: CU_STREAM_LEGACY and CU_STREAM_PER_THREAD (0 is the default stream). */
    static final long CU_STREAM_LEGACY = 0x1, CU_STREAM_PER_THREAD = 0x2;
    /** CU_EVENT_DISABLE_TIMING. */
    static final int EVENT_DISABLE_TIMING = 0x2;

    static final class Stream {
        final long handle, id;
        final Context context;
        final int flags, priority;
        /** The backend's stream (hipStream_t on the hip backend), else 0. */
        final long backendHandle;

        Stream(long handle, long id, Context context, int flags, int priority, long backendHandle) {
            this.handle = handle;
            this.id = id;
            this.context = context;
            this.flags = flags;
            this.priority = priority;
            this.backendHandle = backendHandle;
        }
    }

    static final class Event {
        final long handle;
        final Context context;
        final int flags;
        volatile long recordedNanos = -1;
        /** The backend's event (hipEvent_t on the hip backend), else 0. */
        final long backendHandle;

        Event(long handle, Context context, int flags, long backendHandle) {
            this.handle = handle;
            this.context = context;
            this.flags = flags;
            this.backendHandle = backendHandle;
        }
    }

    final Handles<Stream> streams = new Handles<>(2);
    final Handles<Event> events = new Handles<>(3);
    private final AtomicLong streamIds = new AtomicLong(10); // ids of the special streams stay below
    private static final MethodHandle CALL_VOID_PTR = Linker.nativeLinker().downcallHandle(FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
    private static final MethodHandle CALL_STREAM_CALLBACK = Linker.nativeLinker().downcallHandle(
            FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));

    StreamLayer(CudaApi api, MemorySegment exports) {
        super(api, exports);
    }

    @Override
    int checkStream(long hStream) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (hStream == 0 || hStream == CU_STREAM_LEGACY || hStream == CU_STREAM_PER_THREAD) return SUCCESS;
        Stream s = streams.get(hStream);
        return s == null || s.context.destroyed ? INVALID_HANDLE : SUCCESS;
    }

    /** The backend's stream of a CUstream whose handle was checked: its null stream (0) for the default and legacy ones. */
    long nativeStream(long hStream) {
        Stream s = stream(hStream);
        return s == null ? 0 : s.backendHandle;
    }

    @Override
    int streamDone(long hStream) {
        int r = checkStream(hStream);
        return r != SUCCESS ? r : backend().synchronizeStream(nativeStream(hStream));
    }

    @Override
    void release(Context c) {
        super.release(c);
        for (Stream s : streams.values()) {
            if (s.context == c && streams.remove(s.handle) != null) backend().destroyStream(s.backendHandle);
        }
        for (Event e : events.values()) {
            if (e.context == c && events.remove(e.handle) != null) backend().destroyEvent(e.backendHandle);
        }
    }

    // ---------------------------------------------------------------- streams

    private int createStream(long phStream, int flags, int priority) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (phStream == 0 || (flags & ~1) != 0) return INVALID_VALUE; // CU_STREAM_DEFAULT | CU_STREAM_NON_BLOCKING
        int prio = Math.max(-5, Math.min(0, priority));
        long hs;
        try {
            hs = backend().createStream(flags, prio);
        } catch (BackendException e) {
            return e.cuResult;
        }
        long h = streams.reserve();
        streams.put(h, new Stream(h, streamIds.incrementAndGet(), current(), flags, prio, hs));
        putLong(phStream, h);
        return SUCCESS;
    }

    @Override
    public int cuStreamCreate(long phStream, int Flags) {
        return createStream(phStream, Flags, 0);
    }

    @Override
    public int cuStreamCreateWithPriority(long phStream, int flags, int priority) {
        return createStream(phStream, flags, priority);
    }

    @Override
    public int cuStreamDestroy_v2(long hStream) {
        if (!state.initialized) return NOT_INITIALIZED;
        Stream s = streams.remove(hStream);
        if (s == null) return INVALID_HANDLE;
        return backend().destroyStream(s.backendHandle);
    }

    @Override
    public int cuStreamDestroy(long hStream) {
        return cuStreamDestroy_v2(hStream);
    }

    @Override
    public int cuStreamSynchronize(long hStream) {
        return streamDone(hStream);
    }

    @Override
    public int cuStreamQuery(long hStream) {
        int r = checkStream(hStream);
        return r != SUCCESS ? r : backend().queryStream(nativeStream(hStream));
    }

    @Override public int cuStreamSynchronize_ptsz(long hStream) { return cuStreamSynchronize(hStream); }
    @Override public int cuStreamQuery_ptsz(long hStream) { return cuStreamQuery(hStream); }

    private Stream stream(long hStream) {
        return hStream == 0 || hStream == CU_STREAM_LEGACY || hStream == CU_STREAM_PER_THREAD ? null : streams.get(hStream);
    }

    @Override
    public int cuStreamGetFlags(long hStream, long flags) {
        int r = checkStream(hStream);
        if (r != SUCCESS) return r;
        if (flags == 0) return INVALID_VALUE;
        Stream s = stream(hStream);
        putInt(flags, s == null ? 0 : s.flags);
        return SUCCESS;
    }

    @Override public int cuStreamGetFlags_ptsz(long hStream, long flags) { return cuStreamGetFlags(hStream, flags); }

    @Override
    public int cuStreamGetPriority(long hStream, long priority) {
        int r = checkStream(hStream);
        if (r != SUCCESS) return r;
        if (priority == 0) return INVALID_VALUE;
        Stream s = stream(hStream);
        putInt(priority, s == null ? 0 : s.priority);
        return SUCCESS;
    }

    @Override public int cuStreamGetPriority_ptsz(long hStream, long priority) { return cuStreamGetPriority(hStream, priority); }

    @Override
    public int cuStreamGetId(long hStream, long streamId) {
        int r = checkStream(hStream);
        if (r != SUCCESS) return r;
        if (streamId == 0) return INVALID_VALUE;
        Stream s = stream(hStream);
        putLong(streamId, s == null ? hStream : s.id);
        return SUCCESS;
    }

    @Override public int cuStreamGetId_ptsz(long hStream, long streamId) { return cuStreamGetId(hStream, streamId); }

    @Override
    public int cuStreamGetCtx(long hStream, long pctx) {
        int r = checkStream(hStream);
        if (r != SUCCESS) return r;
        if (pctx == 0) return INVALID_VALUE;
        Stream s = stream(hStream);
        putLong(pctx, s == null ? current().handle : s.context.handle);
        return SUCCESS;
    }

    @Override public int cuStreamGetCtx_ptsz(long hStream, long pctx) { return cuStreamGetCtx(hStream, pctx); }

    @Override
    public int cuStreamGetDevice(long hStream, long device) {
        int r = checkStream(hStream);
        if (r != SUCCESS) return r;
        if (device == 0) return INVALID_VALUE;
        Stream s = stream(hStream);
        putInt(device, s == null ? current().device : s.context.device);
        return SUCCESS;
    }

    @Override public int cuStreamGetDevice_ptsz(long hStream, long device) { return cuStreamGetDevice(hStream, device); }

    @Override
    public int cuStreamWaitEvent(long hStream, long hEvent, int Flags) {
        int r = checkStream(hStream);
        if (r != SUCCESS) return r;
        Event e = events.get(hEvent);
        if (e == null) return INVALID_HANDLE;
        if ((Flags & ~1) != 0) return INVALID_VALUE; // CU_EVENT_WAIT_DEFAULT | CU_EVENT_WAIT_EXTERNAL
        return backend().streamWaitEvent(nativeStream(hStream), e.backendHandle);
    }

    @Override public int cuStreamWaitEvent_ptsz(long hStream, long hEvent, int Flags) { return cuStreamWaitEvent(hStream, hEvent, Flags); }

    @Override
    public int cuLaunchHostFunc(long hStream, long fn, long userData) {
        int r = streamDone(hStream);
        if (r != SUCCESS) return r;
        if (fn == 0) return INVALID_VALUE;
        try {
            CALL_VOID_PTR.invokeExact(MemorySegment.ofAddress(fn), MemorySegment.ofAddress(userData));
        } catch (Throwable t) {
            return UNKNOWN;
        }
        return SUCCESS;
    }

    @Override public int cuLaunchHostFunc_ptsz(long hStream, long fn, long userData) { return cuLaunchHostFunc(hStream, fn, userData); }

    @Override
    public int cuStreamAddCallback(long hStream, long callback, long userData, int flags) {
        int r = streamDone(hStream);
        if (r != SUCCESS) return r;
        if (callback == 0 || flags != 0) return INVALID_VALUE;
        try {
            CALL_STREAM_CALLBACK.invokeExact(MemorySegment.ofAddress(callback), MemorySegment.ofAddress(hStream), SUCCESS,
                    MemorySegment.ofAddress(userData));
        } catch (Throwable t) {
            return UNKNOWN;
        }
        return SUCCESS;
    }

    @Override public int cuStreamAddCallback_ptsz(long hStream, long callback, long userData, int flags) { return cuStreamAddCallback(hStream, callback, userData, flags); }

    // ---------------------------------------------------------------- events

    @Override
    public int cuEventCreate(long phEvent, int Flags) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (phEvent == 0 || (Flags & ~0x7) != 0) return INVALID_VALUE;
        if ((Flags & 0x4) != 0 && (Flags & EVENT_DISABLE_TIMING) == 0) return INVALID_VALUE; // INTERPROCESS needs DISABLE_TIMING
        long he;
        try {
            he = backend().createEvent(Flags);
        } catch (BackendException e) {
            return e.cuResult;
        }
        long h = events.reserve();
        events.put(h, new Event(h, current(), Flags, he));
        putLong(phEvent, h);
        return SUCCESS;
    }

    @Override
    public int cuEventDestroy_v2(long hEvent) {
        if (!state.initialized) return NOT_INITIALIZED;
        Event e = events.remove(hEvent);
        if (e == null) return INVALID_HANDLE;
        return backend().destroyEvent(e.backendHandle);
    }

    @Override
    public int cuEventDestroy(long hEvent) {
        return cuEventDestroy_v2(hEvent);
    }

    @Override
    public int cuEventRecord(long hEvent, long hStream) {
        int r = checkStream(hStream);
        if (r != SUCCESS) return r;
        Event e = events.get(hEvent);
        if (e == null) return INVALID_HANDLE;
        e.recordedNanos = System.nanoTime();
        return backend().recordEvent(e.backendHandle, nativeStream(hStream));
    }

    @Override public int cuEventRecord_ptsz(long hEvent, long hStream) { return cuEventRecord(hEvent, hStream); }

    @Override
    public int cuEventRecordWithFlags(long hEvent, long hStream, int flags) {
        if ((flags & ~1) != 0) return INVALID_VALUE; // CU_EVENT_RECORD_DEFAULT | CU_EVENT_RECORD_EXTERNAL
        return cuEventRecord(hEvent, hStream);
    }

    @Override public int cuEventRecordWithFlags_ptsz(long hEvent, long hStream, int flags) { return cuEventRecordWithFlags(hEvent, hStream, flags); }

    @Override
    public int cuEventQuery(long hEvent) {
        if (!state.initialized) return NOT_INITIALIZED;
        Event e = events.get(hEvent);
        if (e == null) return INVALID_HANDLE;
        return backend().queryEvent(e.backendHandle);
    }

    @Override
    public int cuEventSynchronize(long hEvent) {
        if (!state.initialized) return NOT_INITIALIZED;
        Event e = events.get(hEvent);
        if (e == null) return INVALID_HANDLE;
        int r = backend().synchronizeEvent(e.backendHandle);
        return r != SUCCESS ? r : e.context.stickyError(); // after a kernel fault, as NVIDIA's driver answers
    }

    @Override
    public int cuEventElapsedTime(long pMilliseconds, long hStart, long hEnd) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (pMilliseconds == 0) return INVALID_VALUE;
        Event a = events.get(hStart), b = events.get(hEnd);
        if (a == null || b == null) return INVALID_HANDLE;
        if ((a.flags & EVENT_DISABLE_TIMING) != 0 || (b.flags & EVENT_DISABLE_TIMING) != 0) return INVALID_HANDLE;
        if (a.recordedNanos < 0 || b.recordedNanos < 0) return INVALID_HANDLE;
        float[] ms = new float[1];
        int e = backend().elapsedTime(a.backendHandle, a.recordedNanos, b.backendHandle, b.recordedNanos, ms);
        if (e == SUCCESS) putFloat(pMilliseconds, ms[0]);
        return e;
    }

    @Override
    public int cuEventElapsedTime_v2(long pMilliseconds, long hStart, long hEnd) {
        return cuEventElapsedTime(pMilliseconds, hStart, hEnd);
    }
}
