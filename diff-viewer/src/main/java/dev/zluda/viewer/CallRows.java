package dev.zluda.viewer;

import javafx.collections.ObservableListBase;

import java.util.Arrays;

/**
 * The rows of the call table: a list of call numbers that the table reads through, built from the
 * index without an object per call. Unfiltered it is the identity (row {@code r} is call
 * {@code r}); filtered it is an {@code int[]} of the calls that pass. {@link #refresh()} appends the
 * calls indexed since the last refresh, so the table fills while a capture loads. Rows are
 * created on demand ({@link #get}) for the cells on screen only. FX thread only.
 */
public final class CallRows extends ObservableListBase<CallRows.Row> {
    /**
     * One row: the call number (0-based) it shows, and how many calls it stands for.
     *
     * @param call the call number in the index (the first of a folded run)
     * @param folded 1 for one call; N for a folded run of N consecutive top-level look-ups ({@code cuGetProcAddress})
     */
    public record Row(int call, int folded) {
        /** A row of one call. */
        public Row(int call) {
            this(call, 1);
        }
    }

    private final CallIndex index;
    private final CallFilter filter;
    private final CallFilter.Matcher matcher;
    /** Whether runs of consecutive top-level look-ups are one row each ({@link #CallRows(CallIndex, CallFilter, boolean)}). */
    private final boolean fold;
    private int[] calls = new int[0];
    /** With {@link #fold}: per row, the calls it stands for (1, or the length of a folded run). */
    private int[] span = new int[0];
    private int count;
    private int scanned;
    /** The function ids of the look-ups that fold ({@code cuGetProcAddress*}), by function id. */
    private boolean[] lookup = new boolean[0];

    /** The rows of {@code index} that {@code filter} lets through (filled by {@link #refresh()}), one per call. */
    public CallRows(CallIndex index, CallFilter filter) {
        this(index, filter, false);
    }

    /**
     * The rows of {@code index} that {@code filter} lets through; with {@code fold}, and a filter that
     * selects neither functions nor errors, a run of consecutive top-level {@code cuGetProcAddress}
     * calls (cudart's start-up looks up several hundred driver entry points) is one row, as
     * {@code zluda dump} prints it.
     */
    public CallRows(CallIndex index, CallFilter filter, boolean fold) {
        this.index = index;
        this.filter = filter;
        this.fold = fold && filter.function() == null && !filter.errorsOnly();
        this.matcher = filter.isAll() ? null : filter.bind(index);
    }

    /** Whether this call is a top-level look-up that folds. */
    private boolean folds(int i) {
        int f = index.function(i);
        if (f < 0 || index.depth(i) != 0) return false;
        if (f >= lookup.length) {
            int old = lookup.length;
            lookup = Arrays.copyOf(lookup, index.functionCount());
            for (int k = old; k < lookup.length; k++) lookup[k] = index.functionName(k).startsWith("cuGetProcAddress");
        }
        return f < lookup.length && lookup[f];
    }

    /** The filter. */
    public CallFilter filter() {
        return filter;
    }

    /** The index. */
    public CallIndex index() {
        return index;
    }

    /** Takes in the calls indexed since the last refresh; returns whether rows were added. */
    public boolean refresh() {
        int n = index.size();
        if (n <= scanned) return false;
        int before = count;
        int grown = -1;
        if (matcher == null && !fold) {
            count = n;
        } else {
            for (int i = scanned; i < n; i++) {
                if (matcher != null && !matcher.test(i)) continue;
                if (fold && count > 0 && calls[count - 1] + span[count - 1] == i && folds(i) && folds(calls[count - 1])) {
                    span[count - 1]++;   // the next look-up of a run: its row stands for one more call
                    if (count - 1 < before) grown = count - 1;
                    continue;
                }
                if (count == calls.length) {
                    calls = Arrays.copyOf(calls, Math.max(64, count * 2));
                    if (fold) span = Arrays.copyOf(span, calls.length);
                }
                if (fold) span[count] = 1;
                calls[count++] = i;
            }
        }
        scanned = n;
        if (count == before && grown < 0) return false;
        beginChange();
        if (grown >= 0) nextUpdate(grown);
        if (count > before) nextAdd(before, count);
        endChange();
        return true;
    }

    /** How many calls row {@code r} stands for: 1, or the length of a folded run of look-ups. */
    public int folded(int r) {
        return fold ? span[r] : 1;
    }

    /** The call shown in row {@code r} (the first of a folded run). */
    public int callAt(int r) {
        return matcher == null && !fold ? r : calls[r];
    }

    /**
     * The row that shows call {@code call} (for a call inside a folded run, the run's row), or -1 when
     * it is filtered out (or not indexed yet).
     */
    public int rowOf(int call) {
        if (call < 0) return -1;
        if (matcher == null && !fold) return call < count ? call : -1;
        int k = Arrays.binarySearch(calls, 0, count, call);
        if (k >= 0) return k;
        int before = -k - 2;
        return fold && before >= 0 && call < calls[before] + span[before] ? before : -1;
    }

    /** The row of the first call at or after {@code call} that is shown, or -1. */
    public int rowAtOrAfter(int call) {
        if (matcher == null && !fold) return call < count ? Math.max(call, 0) : -1;
        int folded = fold ? rowOf(call) : -1;
        if (folded >= 0) return folded;
        int k = Arrays.binarySearch(calls, 0, count, call);
        if (k < 0) k = -k - 1;
        return k < count ? k : -1;
    }

    @Override
    public int indexOf(Object o) {
        return o instanceof Row r ? rowOf(r.call()) : -1;
    }

    @Override
    public int lastIndexOf(Object o) {
        return indexOf(o);
    }

    @Override
    public boolean contains(Object o) {
        return indexOf(o) >= 0;
    }

    @Override
    public Row get(int r) {
        if (r < 0 || r >= count) throw new IndexOutOfBoundsException(r);
        return new Row(callAt(r), folded(r));
    }

    @Override
    public int size() {
        return count;
    }
}
