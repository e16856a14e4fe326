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
     * One row: the call number (0-based) it shows.
     *
     * @param call the call number in the index
     */
    public record Row(int call) {}

    private final CallIndex index;
    private final CallFilter filter;
    private final CallFilter.Matcher matcher;
    private int[] calls = new int[0];
    private int count;
    private int scanned;

    /** The rows of {@code index} that {@code filter} lets through (filled by {@link #refresh()}). */
    public CallRows(CallIndex index, CallFilter filter) {
        this.index = index;
        this.filter = filter;
        this.matcher = filter.isAll() ? null : filter.bind(index);
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
        if (matcher == null) {
            count = n;
        } else {
            for (int i = scanned; i < n; i++) {
                if (matcher.test(i)) {
                    if (count == calls.length) calls = Arrays.copyOf(calls, Math.max(64, count * 2));
                    calls[count++] = i;
                }
            }
        }
        scanned = n;
        if (count == before) return false;
        beginChange();
        nextAdd(before, count);
        endChange();
        return true;
    }

    /** The call shown in row {@code r}. */
    public int callAt(int r) {
        return matcher == null ? r : calls[r];
    }

    /** The row that shows call {@code call}, or -1 when it is filtered out (or not indexed yet). */
    public int rowOf(int call) {
        if (call < 0) return -1;
        if (matcher == null) return call < count ? call : -1;
        int k = Arrays.binarySearch(calls, 0, count, call);
        return k >= 0 ? k : -1;
    }

    /** The row of the first call at or after {@code call} that is shown, or -1. */
    public int rowAtOrAfter(int call) {
        if (matcher == null) return call < count ? Math.max(call, 0) : -1;
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
        return new Row(callAt(r));
    }

    @Override
    public int size() {
        return count;
    }
}
