package dev.zluda.capture.text;

import dev.zluda.capture.Call;
import dev.zluda.capture.CallAssembler;
import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.DamageNote;
import dev.zluda.capture.ReadStatus;
import dev.zluda.spec.Role;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The ZLUDA-style text log of a capture: one line per call, nested calls indented two spaces per
 * level under the call that made them, lines in order of entry within each top-level call, top-level
 * calls in the order they returned (calls still in flight come last). A kernel snapshot (KERNEL
 * record) is one {@code # kernel snapshot #N: ...} line under the launch it belongs to; a MARKER (the
 * driver's own events: module compiles, kernel executions) is one {@code # TEXT} line under the call
 * that was running on its thread. With {@link Options#fold}, a run of {@link #FOLD_MIN} or more
 * consecutive top-level {@code cuGetProcAddress} calls (cudart's start-up looks up 400 and more entry
 * points) is one line ({@link #foldedLine}). Streaming:
 * memory holds only the calls not yet returned.
 */
public final class Dump {
    private Dump() {}

    /**
     * What to print.
     *
     * @param threads prefix each line with {@code [thread id]}
     * @param time prefix each line with the seconds since the capture began ({@code +0.001234})
     * @param function only calls whose name this pattern finds (null: all)
     * @param errorsOnly only calls that returned something other than CUDA_SUCCESS, or are in flight
     * @param from first call number to print (1-based, order of entry)
     * @param to last call number to print (inclusive)
     */
    public record Options(boolean threads, boolean time, Pattern function, boolean errorsOnly, long from, long to, boolean fold) {
        /** Without folding ({@code fold} false). */
        public Options(boolean threads, boolean time, Pattern function, boolean errorsOnly, long from, long to) {
            this(threads, time, function, errorsOnly, from, to, false);
        }

        /** Every call, one line each, no prefixes. */
        public static Options all() {
            return new Options(false, false, null, false, 1, Long.MAX_VALUE, false);
        }
    }

    /** A run of at least this many consecutive top-level {@code cuGetProcAddress} calls is folded into one line. */
    public static final int FOLD_MIN = 8;

    /** Whether a function is one whose runs are folded: the entry-point look-ups ({@code cuGetProcAddress}, {@code _v2}). */
    static boolean folds(String name) {
        return name.startsWith("cuGetProcAddress");
    }

    /**
     * The one line a folded run of {@code n} look-ups stands for: {@code cuGetProcAddress_v2 ×440 (calls 1..440:
     * 438 CUDA_SUCCESS, 2 CUDA_ERROR_NOT_FOUND) looking up the driver's entry points, as cudart does at start-up;
     * --unfold shows each}.
     */
    public static String foldedLine(String name, long n, long first, long last, Map<String, Long> results) {
        StringBuilder r = new StringBuilder();
        for (Map.Entry<String, Long> e : results.entrySet()) {
            if (!r.isEmpty()) r.append(", ");
            r.append(e.getValue()).append(' ').append(e.getKey());
        }
        return name + " \u00d7" + n + " (calls " + first + ".." + last + ": " + r + ") looking up the driver's entry points,"
                + " as cudart does at start-up; --unfold shows each";
    }

    /** One kernel snapshot in a line: name, shape, result, buffers with the hashes of their images. */
    public static String snapshotText(CaptureRecord.Kernel k) {
        StringBuilder sb = new StringBuilder(k.name());
        CaptureRecord.KernelLaunch l = k.launch();
        if (l != null) {
            sb.append(String.format(Locale.ROOT, " grid=(%d,%d,%d) block=(%d,%d,%d) shared=%d", l.gridX(), l.gridY(), l.gridZ(),
                    l.blockX(), l.blockY(), l.blockZ(), l.sharedMemBytes()));
            if (l.result() != 0) sb.append(" result=").append(l.result());
        }
        sb.append(", ").append(k.params().length).append(" parameter bytes");
        for (CaptureRecord.KernelBuffer b : k.buffers()) {
            sb.append(String.format(Locale.ROOT, ", %s+%d before %016x after %016x%s", CallFormatter.hex(b.devicePointer()), b.size(), b.before(), b.after(),
                    b.before() == b.after() ? " (unchanged)" : ""));
        }
        return sb.toString();
    }

    /** Levels of nesting shown by indentation; deeper calls carry their depth instead, so a line's length does not grow with it. */
    public static final int MAX_INDENT = 32;

    /**
     * Two spaces per level of nesting up to {@link #MAX_INDENT} levels; below that the indentation stays
     * and the line starts with {@code [depth N] }: the output grows linearly with the calls however deep
     * they nest.
     */
    static void indent(StringBuilder sb, int level) {
        sb.repeat("  ", Math.min(level, MAX_INDENT));
        if (level > MAX_INDENT) sb.append("[depth ").append(level).append("] ");
    }

    /**
     * Why no call matched the filters of {@code o}, in the words of the options. One filter: it alone
     * ({@code --calls 30..40}, {@code --errors: no call failed}). More: what each matches on its own and
     * that no call matches them all ({@code --function cuMemAlloc: 2 calls, --errors: 3 calls failed, none
     * matches both}). {@code alone}: calls in the range, calls of the function, calls that failed, calls that never returned.
     */
    private static String filters(Options o, long[] alone) {
        List<String> f = new ArrayList<>();
        boolean range = o.from > 1 || o.to < Long.MAX_VALUE;
        String calls = "--calls " + o.from + ".." + (o.to == Long.MAX_VALUE ? "" : Long.toString(o.to));
        int n = (range ? 1 : 0) + (o.function != null ? 1 : 0) + (o.errorsOnly ? 1 : 0);
        if (n == 1) {
            if (range) f.add(calls);
            if (o.function != null) f.add("--function " + o.function.pattern());
            if (o.errorsOnly) f.add("--errors: no call failed");
            return f.get(0);
        }
        if (range) f.add(calls + ": " + callCount(alone[0]));
        if (o.function != null) f.add("--function " + o.function.pattern() + ": " + callCount(alone[1]));
        if (o.errorsOnly) {
            f.add("--errors: " + (alone[2] == 0 && alone[3] == 0 ? "no call failed"
                    : callCount(alone[2]) + " failed" + (alone[3] > 0 ? " and " + alone[3] + " never returned" : "")));
        }
        return String.join(", ", f) + (n == 2 ? ", none matches both" : ", none matches all three");
    }

    private static String callCount(long n) {
        return n == 0 ? "no call" : n == 1 ? "1 call" : n + " calls";
    }

    /** Damage notes printed in full; more are counted. */
    public static final int NOTES_SHOWN = 20;

    /**
     * The damage notes of a read as {@code #} lines: a first line with how many places were damaged or
     * cut and how many records were not read, then one line per note (the first {@link #NOTES_SHOWN}).
     * Nothing when there is no note.
     */
    public static void damageLines(ReadStatus st, PrintWriter out) {
        if (!st.stoppedEarly()) return;
        long n = st.damageCount();
        out.println("# capture " + (st.damaged() ? "damaged" : "cut") + (n == 1 ? " in 1 place" : " in " + n + " places")
                + (st.recordsLost() > 0 ? ", " + st.recordsLost() + (st.recordsLost() == 1 ? " record" : " records") + " not read" : "")
                + "; everything else was read:");
        int shown = 0;
        for (DamageNote d : st.damage()) {
            if (shown++ == NOTES_SHOWN) break;
            out.println("#   " + (d.cut() ? "cut at " : "damaged at ") + d.text());
        }
        if (n > NOTES_SHOWN) out.println("#   (" + (n - NOTES_SHOWN) + " more not shown)");
    }

    /**
     * Prints the log; returns how reading ended. When options select calls and none matched, one line
     * {@code # no calls match (--errors: no call failed; the capture holds 20 calls)} says so. The last line says when the capture was cut mid-call or damaged. */
    public static ReadStatus dump(Capture cap, Options o, PrintWriter out) {
        long start = cap.reader().header().startMonotonicNs();
        CallAssembler[] asm = new CallAssembler[1];
        CallFormatter[] f = new CallFormatter[1];
        Map<Long, List<String>> snapshots = new HashMap<>(); // launch ENTER seq -> snapshot lines not printed yet
        Set<Long> launchesOpen = new HashSet<>();
        int[] snapshotNumber = {0};
        long[] seen = {0, 0};   // calls in the capture, calls printed
        long[] alone = {0, 0, 0, 0}; // calls each filter matches on its own: in the range, of the function, failed, never returned
        Fold fold = new Fold(out);
        asm[0] = new CallAssembler(new CallAssembler.Listener() {
            @Override
            public void call(Call c) {
                if (o.fold && c.children().isEmpty() && !c.inFlight() && folds(cap.functionName(c.enter().functionId()))
                        && !snapshots.containsKey(c.enter().seq()) && fold.take(c, prefix(c, 0) + f[0].format(c), cap.functionName(c.enter().functionId()),
                        f[0].result(c.leave().result()))) {
                    seen[0]++;
                    seen[1]++;
                    return;
                }
                fold.flush();
                Call.walk(c, (k, level, parent) -> print(k, level));
            }

            @Override
            public void record(CaptureRecord r) {
                if (!(r instanceof CaptureRecord.Kernel k)) return;
                String line = "# kernel snapshot #" + (++snapshotNumber[0]) + ": " + snapshotText(k);
                if (launchesOpen.contains(k.launchSeq())) snapshots.computeIfAbsent(k.launchSeq(), x -> new ArrayList<>()).add(line);
                else if (o.function == null && !o.errorsOnly) {
                    fold.flush();
                    out.println(line);
                }
            }

            String prefix(Call c, int level) {
                StringBuilder sb = new StringBuilder();
                if (o.threads) sb.append('[').append(c.threadId()).append("] ");
                if (o.time) sb.append(String.format(Locale.ROOT, "+%.6f ", (c.enter().ts() - start) / 1e9));
                indent(sb, level);
                return sb.toString();
            }

            void print(Call c, int level) {
                seen[0]++;
                if (c.ordinal() >= o.from && c.ordinal() <= o.to) alone[0]++;
                if (o.function != null && o.function.matcher(cap.functionName(c.enter().functionId())).find()) alone[1]++;
                if (c.inFlight()) alone[3]++;
                else if (c.leave().result() != 0) alone[2]++;
                if (selected(c)) {
                    seen[1]++;
                    out.println(prefix(c, level) + f[0].format(c));
                }
                launchesOpen.remove(c.enter().seq());
                List<String> snaps = snapshots.remove(c.enter().seq());
                if (snaps != null && selected(c)) {
                    for (String s : snaps) {
                        StringBuilder sb = new StringBuilder();
                        indent(sb, level + 1);
                        out.println(sb.append(s));
                    }
                }
            }

            boolean selected(Call c) {
                if (c.ordinal() < o.from || c.ordinal() > o.to) return false;
                if (o.errorsOnly && !c.inFlight() && c.leave().result() == 0) return false;
                return o.function == null || o.function.matcher(cap.functionName(c.enter().functionId())).find();
            }
        });
        f[0] = new CallFormatter(cap::specFunction, cap::functionName, asm[0].strings());
        Map<Long, java.util.ArrayDeque<Long>> openCalls = new HashMap<>(); // thread -> ENTER seqs of its calls not returned yet
        for (CaptureRecord r : cap.reader()) {
            switch (r) {
                case CaptureRecord.Enter e -> {
                    Role role = Role.of(cap.specFunction(e.functionId()));
                    if (role == Role.KERNEL_LAUNCH || role == Role.GRAPH_LAUNCH) launchesOpen.add(e.seq());
                    openCalls.computeIfAbsent(e.threadId(), t -> new java.util.ArrayDeque<>()).push(e.seq());
                }
                case CaptureRecord.Leave l -> {
                    java.util.ArrayDeque<Long> st = openCalls.get(l.threadId());
                    if (st != null) st.remove(l.enterSeq());
                }
                case CaptureRecord.Marker m -> {
                    // a driver event or annotation: under the call of its thread that was running when it was written
                    java.util.ArrayDeque<Long> st = openCalls.get(m.threadId());
                    String line = "# " + m.text();
                    if (st != null && !st.isEmpty()) snapshots.computeIfAbsent(st.peek(), x -> new ArrayList<>()).add(line);
                    else if (o.function == null && !o.errorsOnly) {
                        fold.flush();
                        out.println(line);
                    }
                }
                default -> { }
            }
            asm[0].accept(r);
        }
        fold.flush();
        List<Call> flying = asm[0].finish();
        fold.flush();
        ReadStatus st = cap.reader().status();
        boolean filtered = o.from > 1 || o.to < Long.MAX_VALUE || o.errorsOnly || o.function != null;
        if (filtered && seen[1] == 0) out.println("# no calls match (" + filters(o, alone) + "; the capture holds " + seen[0] + (seen[0] == 1 ? " call)" : " calls)"));
        damageLines(st, out);
        if (!flying.isEmpty()) {
            StringBuilder sb = new StringBuilder("# capture ends while " + flying.size() + (flying.size() == 1 ? " call was" : " calls were")
                    + " in flight (entered, never returned): ");
            for (int i = 0; i < flying.size(); i++) {
                Call c = CallAssembler.innermost(flying.get(i));
                if (i > 0) sb.append("; ");
                sb.append(cap.functionName(c.enter().functionId())).append(" (call ").append(c.ordinal()).append(", thread ").append(c.threadId()).append(')');
            }
            out.println(sb);
        } else if (!st.endedCleanly() && !st.stoppedEarly()) {
            out.println("# capture has no process end: the process did not exit normally (killed or crashed)");
        }
        out.flush();
        return st;
    }

    /** A run of consecutive look-ups not printed yet: its first lines, its count and results. */
    private static final class Fold {
        private final PrintWriter out;
        private final List<String> lines = new ArrayList<>();
        private final Map<String, Long> results = new java.util.LinkedHashMap<>();
        private String name, firstPrefix;
        private long n, first, last;

        Fold(PrintWriter out) {
            this.out = out;
        }

        /** Takes a look-up into the run (false: it belongs to no run, e.g. another function than the run's). */
        boolean take(Call c, String line, String fn, String result) {
            if (n > 0 && !fn.equals(name)) flush();
            if (n == 0) {
                name = fn;
                first = c.ordinal();
                firstPrefix = line.substring(0, line.indexOf(fn));
            }
            n++;
            last = c.ordinal();
            results.merge(result, 1L, Long::sum);
            if (lines.size() < FOLD_MIN) lines.add(line);
            return true;
        }

        /** Prints the run: one folded line, or its calls one by one when it is short. */
        void flush() {
            if (n == 0) return;
            if (n >= FOLD_MIN) out.println(firstPrefix + foldedLine(name, n, first, last, results));
            else for (String l : lines) out.println(l);
            lines.clear();
            results.clear();
            n = 0;
        }
    }
}
