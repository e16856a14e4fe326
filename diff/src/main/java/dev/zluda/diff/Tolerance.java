package dev.zluda.diff;

/**
 * How far two numeric elements may be apart and still count as equal. Side A is the reference:
 * elements {@code a} and {@code b} are equal when their bits are equal, when both are NaN, when
 * {@code |a − b| ≤ atol + rtol·|a|}, or when they are at most {@code ulp} units in the last place
 * apart (floating-point types only). The default (all zero) accepts only equal values ({@code +0}
 * equals {@code −0}).
 *
 * @param rtol relative tolerance, ≥ 0
 * @param atol absolute tolerance, ≥ 0
 * @param ulp units in the last place, ≥ 0
 */
public record Tolerance(double rtol, double atol, long ulp) {
    /** Exact comparison. */
    public static final Tolerance EXACT = new Tolerance(0, 0, 0);

    /** Checks the ranges. */
    public Tolerance {
        if (!(rtol >= 0) || !(atol >= 0) || ulp < 0) {
            throw new IllegalArgumentException("tolerances must be non-negative numbers (rtol " + rtol + ", atol " + atol + ", ulp " + ulp + ")");
        }
    }

    /** Whether any tolerance is set. */
    public boolean isExact() {
        return rtol == 0 && atol == 0 && ulp == 0;
    }
}
