package dev.zluda.capture;

import java.util.ArrayList;
import java.util.List;

/**
 * One driver call: its ENTER, its LEAVE (null while in flight, i.e. the capture ends before the call
 * returned) and the calls made inside it on the same thread.
 */
public final class Call {
    private final long ordinal;
    private final CaptureRecord.Enter enter;
    private CaptureRecord.Leave leave;
    private final List<Call> children = new ArrayList<>(0);

    Call(long ordinal, CaptureRecord.Enter enter) {
        this.ordinal = ordinal;
        this.enter = enter;
    }

    /** 1-based number of the call in order of entry over the whole capture (as {@code --calls FROM..TO} counts). */
    public long ordinal() {
        return ordinal;
    }

    /** The ENTER record. */
    public CaptureRecord.Enter enter() {
        return enter;
    }

    /** The LEAVE record, or null when the call never returned in the capture. */
    public CaptureRecord.Leave leave() {
        return leave;
    }

    void leave(CaptureRecord.Leave l) {
        this.leave = l;
    }

    /** Whether the call had not returned when the capture ended. */
    public boolean inFlight() {
        return leave == null;
    }

    /** Calls made inside this one (nested), in order of entry. */
    public List<Call> children() {
        return children;
    }

    /** OS thread id. */
    public long threadId() {
        return enter.threadId();
    }

    /** Duration in ns, or -1 when in flight. */
    public long durationNs() {
        return leave == null ? -1 : leave.ts() - enter.ts();
    }
}
