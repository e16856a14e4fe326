package dev.zluda.diff;

/**
 * How to compare two captures.
 *
 * @param strict compare the {@link Expected} differences too (device name, addresses, ...)
 * @param tolerance how far numeric buffer elements may be apart
 * @param elementType how to read a buffer whose element type the spec does not give (f32 by default)
 * @param limit at most this many diverging calls and ignored examples are listed in the result
 *     (counts are always complete)
 * @param heatmaps at most this many data divergences get a heatmap image
 */
public record DiffOptions(boolean strict, Tolerance tolerance, ElementType elementType, int limit, int heatmaps) {
    /** Checks the values. */
    public DiffOptions {
        if (tolerance == null) tolerance = Tolerance.EXACT;
        if (elementType == null) elementType = ElementTypes.F32;
        if (limit < 1) throw new IllegalArgumentException("limit must be at least 1, not " + limit);
        if (heatmaps < 0) throw new IllegalArgumentException("heatmaps must be at least 0, not " + heatmaps);
    }

    /** Not strict, exact, f32, 1000 listed, 50 heatmaps. */
    public static DiffOptions defaults() {
        return new DiffOptions(false, Tolerance.EXACT, ElementTypes.F32, 1000, 50);
    }

    /** A copy with {@code strict} set. */
    public DiffOptions withStrict(boolean s) {
        return new DiffOptions(s, tolerance, elementType, limit, heatmaps);
    }

    /** A copy with another tolerance. */
    public DiffOptions withTolerance(Tolerance t) {
        return new DiffOptions(strict, t, elementType, limit, heatmaps);
    }

    /** A copy with another default element type. */
    public DiffOptions withElementType(ElementType t) {
        return new DiffOptions(strict, tolerance, t, limit, heatmaps);
    }

    /** A copy with another listing limit. */
    public DiffOptions withLimit(int l) {
        return new DiffOptions(strict, tolerance, elementType, l, heatmaps);
    }
}
