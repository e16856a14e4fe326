package dev.zluda.viewer;

import dev.zluda.diff.CallIndex;
import java.util.regex.Pattern;

/**
 * Which calls the table shows: function names a regular expression finds, one thread, only calls
 * that failed (or are in flight, as {@code zluda dump --errors} counts them), a time range. The
 * regular expression is tried once per function of the capture, so testing a call costs a few
 * array reads.
 *
 * @param function pattern searched in the function name (null: every function)
 * @param threadId OS thread id, or null for every thread
 * @param errorsOnly only calls that returned something other than CUDA_SUCCESS, or are in flight
 * @param fromNs earliest start, ns since the capture began ({@link Long#MIN_VALUE}: no bound)
 * @param toNs latest start, ns since the capture began ({@link Long#MAX_VALUE}: no bound)
 */
public record CallFilter(Pattern function, Long threadId, boolean errorsOnly, long fromNs, long toNs) {
    /** The filter that lets every call through. */
    public static final CallFilter ALL = new CallFilter(null, null, false, Long.MIN_VALUE, Long.MAX_VALUE);

    /** Whether it lets every call through. */
    public boolean isAll() {
        return function == null && threadId == null && !errorsOnly && fromNs == Long.MIN_VALUE && toNs == Long.MAX_VALUE;
    }

    /** Whether what it lets through depends on results (which change while a capture is loading). */
    public boolean dependsOnResults() {
        return errorsOnly;
    }

    /** A matcher bound to one index. */
    public Matcher bind(CallIndex index) {
        return new Matcher(this, index);
    }

    /** Tests calls of one index against the filter. */
    public static final class Matcher {
        private final CallFilter f;
        private final CallIndex index;
        private final boolean[] functions;
        private int threadIndex = -2;

        Matcher(CallFilter f, CallIndex index) {
            this.f = f;
            this.index = index;
            if (f.function != null) {
                functions = new boolean[index.functionCount()];
                for (int i = 0; i < functions.length; i++) functions[i] = f.function.matcher(index.functionName(i)).find();
            } else {
                functions = null;
            }
        }

        /** Whether call {@code i} passes. */
        public boolean test(int i) {
            if (functions != null) {
                int fn = index.function(i);
                if (fn < 0 || fn >= functions.length || !functions[fn]) return false;
            }
            if (f.threadId != null) {
                if (threadIndex == -2 || threadIndex == -1) {
                    threadIndex = -1;
                    long[] ids = index.threadIds();
                    for (int t = 0; t < ids.length; t++) if (ids[t] == f.threadId) threadIndex = t;
                }
                if (index.threadIndex(i) != threadIndex) return false;
            }
            if (f.errorsOnly && !(index.inFlight(i) || index.result(i) != 0)) return false;
            if (f.fromNs != Long.MIN_VALUE || f.toNs != Long.MAX_VALUE) {
                long s = index.start(i);
                return s >= f.fromNs && s <= f.toNs;
            }
            return true;
        }
    }
}
