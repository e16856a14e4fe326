package dev.zluda.capture;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Pairs ENTER and LEAVE records (delivered in sequence order) into {@link Call}s with their nested
 * calls. A top-level call is handed to the listener once it returns, with its whole subtree; at
 * {@link #finish()} the calls still in flight are handed over too. Memory: the open calls of each
 * thread and the subtrees under them.
 */
public final class CallAssembler {
    /** Receives completed top-level calls and every record that is not an ENTER or LEAVE. */
    public interface Listener {
        /** A top-level call returned (or, from {@link #finish()}, is in flight), with its subtree. */
        void call(Call call);

        /** Any other record (BLOB, MODULE, STRING, ...). */
        default void record(CaptureRecord r) {}
    }

    private final Listener listener;
    private final Map<Long, ArrayDeque<Call>> open = new HashMap<>();
    /** The calls in flight by ENTER sequence number, so that a LEAVE finds its call at once at any depth. */
    private final Map<Long, Call> openBySeq = new HashMap<>();
    private final Map<Integer, String> strings = new HashMap<>();
    private long ordinal;
    private long orphanLeaves;

    /** @param listener receives the calls */
    public CallAssembler(Listener listener) {
        this.listener = listener;
    }

    /** Feeds one record, in sequence order. */
    public void accept(CaptureRecord r) {
        switch (r) {
            case CaptureRecord.Enter e -> {
                Call c = new Call(++ordinal, e);
                ArrayDeque<Call> stack = open.computeIfAbsent(e.threadId(), k -> new ArrayDeque<>());
                if (!stack.isEmpty()) stack.peek().children().add(c);
                stack.push(c);
                openBySeq.put(e.seq(), c);
            }
            case CaptureRecord.Leave l -> {
                ArrayDeque<Call> stack = open.get(l.threadId());
                if (stack == null || stack.isEmpty()) {
                    orphanLeaves++;
                    return;
                }
                // normally the innermost open call; after damage, one further out
                Call match = openBySeq.get(l.enterSeq());
                if (match == null || match.threadId() != l.threadId()) {
                    orphanLeaves++;
                    return;
                }
                while (stack.peek() != match) openBySeq.remove(stack.pop().enter().seq()); // inner calls that never returned stay in flight
                stack.pop();
                openBySeq.remove(l.enterSeq());
                match.leave(l);
                if (stack.isEmpty()) listener.call(match);
            }
            default -> {
                if (r instanceof CaptureRecord.StringDef s) strings.put(s.id(), s.text());
                listener.record(r);
            }
        }
    }

    /** Hands over the top-level calls still in flight (each with its subtree), ordered by entry. */
    public List<Call> finish() {
        List<Call> flying = new ArrayList<>();
        for (ArrayDeque<Call> stack : open.values()) if (!stack.isEmpty()) flying.add(stack.peekLast());
        flying.sort((a, b) -> Long.compare(a.ordinal(), b.ordinal()));
        for (Call c : flying) listener.call(c);
        open.clear();
        openBySeq.clear();
        return flying;
    }

    /** The innermost call still in flight inside an in-flight call (the one the thread was executing). */
    public static Call innermost(Call c) {
        Call x = c;
        while (!x.children().isEmpty() && x.children().getLast().inFlight()) x = x.children().getLast();
        return x;
    }

    /** The strings defined so far (STRING records), by id. */
    public Map<Integer, String> strings() {
        return strings;
    }

    /** LEAVE records whose ENTER was not seen (damage). */
    public long orphanLeaves() {
        return orphanLeaves;
    }

    /** Number of calls entered so far. */
    public long calls() {
        return ordinal;
    }
}
