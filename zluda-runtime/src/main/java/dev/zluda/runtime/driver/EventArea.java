package dev.zluda.runtime.driver;

import dev.zluda.runtime.backend.BackendException;

import static dev.zluda.runtime.driver.CuResult.*;
import static dev.zluda.runtime.driver.Native.putFloat;
import static dev.zluda.runtime.driver.Native.putLong;

/**
 * Events (CUDA Driver API group CUDA_EVENT, and the waits and records on events of CUDA_STREAM and CUDA_CTX). Each
 * event is the backend's ({@code Backend#createEvent}; CUDA's and HIP's flag values are the same); its host time is
 * taken when it is recorded, which is the emulator's event time. After a kernel fault, synchronising on an event of
 * the faulted context answers the sticky error, as NVIDIA's driver does.
 */
final class EventArea {
    /** CU_EVENT_DISABLE_TIMING. */
    static final int EVENT_DISABLE_TIMING = 0x2;

    /** An event (CUevent). */
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

    private final DriverState state;
    private final StreamArea streams;
    final Handles<Event> events = new Handles<>(3);

    private final StreamCapture capture;

    EventArea(DriverState state, StreamArea streams, StreamCapture capture) {
        this.state = state;
        this.streams = streams;
        this.capture = capture;
    }

    /** Destroys the events of a context being destroyed or reset. */
    void release(Context c) {
        for (Event e : events.values()) {
            if (e.context == c && events.remove(e.handle) != null) state.backend().destroyEvent(e.backendHandle);
        }
    }

    // ---------------------------------------------------------------- events

    public int cuEventCreate(long phEvent, int Flags) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (phEvent == 0 || (Flags & ~0x7) != 0) return INVALID_VALUE;
        if ((Flags & 0x4) != 0 && (Flags & EVENT_DISABLE_TIMING) == 0) return INVALID_VALUE; // INTERPROCESS needs DISABLE_TIMING
        long he;
        try {
            he = state.backend().createEvent(Flags);
        } catch (BackendException e) {
            return e.cuResult;
        }
        long h = events.reserve();
        events.put(h, new Event(h, state.current(), Flags, he));
        putLong(phEvent, h);
        return SUCCESS;
    }

    public int cuEventDestroy_v2(long hEvent) {
        if (!state.initialized) return NOT_INITIALIZED;
        Event e = events.remove(hEvent);
        if (e == null) return INVALID_HANDLE;
        return state.backend().destroyEvent(e.backendHandle);
    }

    /**
     * cuEventRecord: the event's time is taken now (every earlier operation has completed). On a capturing stream the
     * event stands for the capture's work so far instead ({@link StreamCapture#recordEvent}): no node is added, and a
     * stream that waits for it joins the capture.
     */
    public int cuEventRecord(long hEvent, long hStream) {
        int r = streams.checkStream(hStream);
        if (r != SUCCESS) return r;
        Event e = events.get(hEvent);
        if (e == null) return INVALID_HANDLE;
        // an event of another context than the stream's: CUDA_ERROR_INVALID_HANDLE, as recorded on the H200
        // (samples/traces/h200/misuse, wrong_ctx_event_record)
        if (e.context != streams.contextOf(hStream)) return INVALID_HANDLE;
        if (capture.capturing(hStream)) return capture.recordEvent(hEvent, hStream);
        capture.recordedOutside(hEvent);
        e.recordedNanos = System.nanoTime();
        return state.backend().recordEvent(e.backendHandle, streams.nativeStream(hStream));
    }

    /**
     * cuEventRecordWithFlags: as cuEventRecord; with CU_EVENT_RECORD_EXTERNAL on a capturing stream, an event record
     * node of the capture's graph (outside a capture the flag is CUDA_ERROR_INVALID_VALUE).
     */
    public int cuEventRecordWithFlags(long hEvent, long hStream, int flags) {
        if ((flags & ~1) != 0) return INVALID_VALUE; // CU_EVENT_RECORD_DEFAULT | CU_EVENT_RECORD_EXTERNAL
        if ((flags & 1) != 0) {
            int r = streams.checkStream(hStream);
            if (r != SUCCESS) return r;
            if (events.get(hEvent) == null) return INVALID_HANDLE;
            if (!capture.capturing(hStream)) return INVALID_VALUE;
            return capture.add(hStream, new Graph.EventRecord(hEvent));
        }
        return cuEventRecord(hEvent, hStream);
    }

    /** cuEventQuery: CUDA_SUCCESS (all work is done); CUDA_ERROR_CAPTURED_EVENT for an event last recorded in a capture. */
    public int cuEventQuery(long hEvent) {
        if (!state.initialized) return NOT_INITIALIZED;
        Event e = events.get(hEvent);
        if (e == null) return INVALID_HANDLE;
        if (capture.captured(hEvent)) return StreamCapture.CAPTURED_EVENT;
        return state.backend().queryEvent(e.backendHandle);
    }

    /** cuEventSynchronize: returns at once (all work is done) or with the sticky error; CUDA_ERROR_CAPTURED_EVENT for a captured event. */
    public int cuEventSynchronize(long hEvent) {
        if (!state.initialized) return NOT_INITIALIZED;
        Event e = events.get(hEvent);
        if (e == null) return INVALID_HANDLE;
        if (capture.captured(hEvent)) return StreamCapture.CAPTURED_EVENT;
        int r = state.backend().synchronizeEvent(e.backendHandle);
        return r != SUCCESS ? r : e.context.stickyError(); // after a kernel fault, as NVIDIA's driver answers
    }

    public int cuEventElapsedTime(long pMilliseconds, long hStart, long hEnd) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (pMilliseconds == 0) return INVALID_VALUE;
        Event a = events.get(hStart), b = events.get(hEnd);
        if (a == null || b == null) return INVALID_HANDLE;
        if ((a.flags & EVENT_DISABLE_TIMING) != 0 || (b.flags & EVENT_DISABLE_TIMING) != 0) return INVALID_HANDLE;
        if (a.recordedNanos < 0 || b.recordedNanos < 0) return INVALID_HANDLE;
        float[] ms = new float[1];
        int e = state.backend().elapsedTime(a.backendHandle, a.recordedNanos, b.backendHandle, b.recordedNanos, ms);
        if (e == SUCCESS) putFloat(pMilliseconds, ms[0]);
        return e;
    }

    /**
     * cuStreamWaitEvent: later work on the stream waits for the event. Where a capture is involved
     * ({@link StreamCapture#waitEvent}) the stream gains the event's capture dependencies or joins its capture; with
     * CU_EVENT_WAIT_EXTERNAL on a capturing stream, an event wait node (outside a capture: CUDA_ERROR_INVALID_VALUE).
     */
    public int cuStreamWaitEvent(long hStream, long hEvent, int Flags) {
        int r = streams.checkStream(hStream);
        if (r != SUCCESS) return r;
        Event e = events.get(hEvent);
        if (e == null) return INVALID_HANDLE;
        if ((Flags & ~1) != 0) return INVALID_VALUE; // CU_EVENT_WAIT_DEFAULT | CU_EVENT_WAIT_EXTERNAL
        if ((Flags & 1) != 0) {
            if (!capture.capturing(hStream)) return INVALID_VALUE;
            return capture.add(hStream, new Graph.EventWait(hEvent));
        }
        int c = capture.waitEvent(hStream, hEvent);
        if (c != StreamCapture.NOT_CAPTURED) return c;
        return state.backend().streamWaitEvent(streams.nativeStream(hStream), e.backendHandle);
    }

    /** cuCtxRecordEvent: records the event after all work of the context (all of it is done). */
    public int cuCtxRecordEvent(long hCtx, long hEvent) {
        if (!state.initialized) return NOT_INITIALIZED;
        Context c = state.contexts.get(hCtx);
        if (c == null || c.destroyed) return INVALID_CONTEXT;
        Event e = events.get(hEvent);
        if (e == null) return INVALID_HANDLE;
        e.recordedNanos = System.nanoTime();
        return SUCCESS;
    }

    /** cuCtxWaitEvent: later work of the context waits for the event, which has completed. */
    public int cuCtxWaitEvent(long hCtx, long hEvent) {
        if (!state.initialized) return NOT_INITIALIZED;
        Context c = state.contexts.get(hCtx);
        if (c == null || c.destroyed) return INVALID_CONTEXT;
        return events.get(hEvent) == null ? INVALID_HANDLE : SUCCESS;
    }

}
