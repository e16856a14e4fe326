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

    /** What {@link #walk} hands each call of a tree. */
    @FunctionalInterface
    public interface Visitor<X extends Exception> {
        /**
         * @param call the call
         * @param level its depth below the root (0 for the root)
         * @param parent the call it was made in, or null for the root
         */
        void visit(Call call, int level, Call parent) throws X;
    }

    /**
     * Visits {@code root} and every call nested in it, each before the calls made inside it, those in
     * order of entry (pre-order) — without recursion, so a tree of any depth (a capture of calls nested
     * thousands deep) is walked in constant stack; memory: one cursor per level of the deepest path.
     */
    public static <X extends Exception> void walk(Call root, Visitor<X> visitor) throws X {
        java.util.ArrayDeque<Call> calls = new java.util.ArrayDeque<>();
        java.util.ArrayDeque<int[]> next = new java.util.ArrayDeque<>(); // per open level: index of the next child
        visitor.visit(root, 0, null);
        calls.push(root);
        next.push(new int[1]);
        while (!calls.isEmpty()) {
            Call c = calls.peek();
            int[] i = next.peek();
            if (i[0] == c.children.size()) {
                calls.pop();
                next.pop();
                continue;
            }
            Call k = c.children.get(i[0]++);
            visitor.visit(k, calls.size(), c);
            if (!k.children.isEmpty()) {
                calls.push(k);
                next.push(new int[1]);
            }
        }
    }

    /** Duration in ns, or -1 when in flight. */
    public long durationNs() {
        return leave == null ? -1 : leave.ts() - enter.ts();
    }
}
