package dev.zluda.diff;

import java.util.Arrays;
import java.util.function.IntFunction;

/**
 * The calls of two captures side by side, as {@link DiffEngine} aligned them: one row per call of A
 * (in A's order of entry, with its partner in B when it has one) and one row per call of B that has
 * no partner, placed after the last A call paired with a B call that entered before it (the order
 * in which {@link DiffResult#divergences()} lists them). Call numbers are 1-based, as
 * {@code zluda dump --calls} counts them; -1 marks the side without the call (a gap). About 16
 * bytes per row. Reading texts is not thread-safe: one thread at a time.
 */
public final class Alignment {
    private final long[] aCall, bCall;
    private final int[] aIdx, bIdx;
    private final int[] rowOfA, rowOfB;
    private final IntFunction<String> aFunction, bFunction, aResult, bResult, aText, bText;

    Alignment(long[] aCall, long[] bCall, int[] aIdx, int[] bIdx, SideTexts a, SideTexts b) {
        this.aCall = aCall;
        this.bCall = bCall;
        this.aIdx = aIdx;
        this.bIdx = bIdx;
        this.rowOfA = rowsByNumber(aCall);
        this.rowOfB = rowsByNumber(bCall);
        this.aFunction = a.function;
        this.aResult = a.result;
        this.aText = a.text;
        this.bFunction = b.function;
        this.bResult = b.result;
        this.bText = b.text;
    }

    /** How one side's calls are rendered (by the engine's index of the call). */
    record SideTexts(IntFunction<String> function, IntFunction<String> result, IntFunction<String> text) {}

    private static int[] rowsByNumber(long[] calls) {
        long max = 0;
        for (long c : calls) max = Math.max(max, c);
        int[] out = new int[(int) Math.min(Integer.MAX_VALUE - 8, max + 1)];
        Arrays.fill(out, -1);
        for (int r = 0; r < calls.length; r++) if (calls[r] >= 0 && calls[r] < out.length) out[(int) calls[r]] = r;
        return out;
    }

    /** Number of rows (calls of A plus calls of B only). */
    public int size() {
        return aCall.length;
    }

    /** The call of A in a row (1-based number), or -1 when A has no call there. */
    public long aCall(int row) {
        return aCall[row];
    }

    /** The call of B in a row (1-based number), or -1 when B has no call there. */
    public long bCall(int row) {
        return bCall[row];
    }

    /** A's function name in a row, or null for a gap. */
    public String aFunction(int row) {
        return aIdx[row] < 0 ? null : aFunction.apply(aIdx[row]);
    }

    /** B's function name in a row, or null for a gap. */
    public String bFunction(int row) {
        return bIdx[row] < 0 ? null : bFunction.apply(bIdx[row]);
    }

    /** A's result ({@code CUDA_SUCCESS}, {@code (in flight)}), or null for a gap. */
    public String aResult(int row) {
        return aIdx[row] < 0 ? null : aResult.apply(aIdx[row]);
    }

    /** B's result, or null for a gap. */
    public String bResult(int row) {
        return bIdx[row] < 0 ? null : bResult.apply(bIdx[row]);
    }

    /** A's call with normalised handles ({@code cuMemAlloc_v2(dptr: dptr#1, bytesize: 4096) -> CUDA_SUCCESS}), or null. */
    public String aText(int row) {
        return aIdx[row] < 0 ? null : aText.apply(aIdx[row]);
    }

    /** B's call with normalised handles, or null. */
    public String bText(int row) {
        return bIdx[row] < 0 ? null : bText.apply(bIdx[row]);
    }

    /** The row of A's call number {@code call} (1-based), or -1. */
    public int rowOfA(long call) {
        return call >= 0 && call < rowOfA.length ? rowOfA[(int) call] : -1;
    }

    /** The row of B's call number {@code call} (1-based), or -1. */
    public int rowOfB(long call) {
        return call >= 0 && call < rowOfB.length ? rowOfB[(int) call] : -1;
    }

    /** The row of a diverging call (A's call when A has it, else B's), or -1. */
    public int rowOf(DiffResult.Divergence d) {
        return d.a().present() ? rowOfA(d.a().call()) : rowOfB(d.b().call());
    }
}
