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
 * @param libraryInternals also align and compare the calls made inside library calls (the driver calls
 *     cuBLAS makes inside {@code cublasSgemm_v2}, cuBLAS's own calls into cuBLASLt) and the calls on the
 *     modules and libraries a library loaded there; by default (false, unless {@code strict}) they are
 *     the library's own business, left out and counted as {@link Expected#LIBRARY_INTERNALS}
 */
public record DiffOptions(boolean strict, Tolerance tolerance, ElementType elementType, int limit, int heatmaps, boolean libraryInternals) {
    /** Checks the values. */
    public DiffOptions {
        if (tolerance == null) tolerance = Tolerance.EXACT;
        if (elementType == null) elementType = ElementTypes.F32;
        if (limit < 1) throw new IllegalArgumentException("limit must be at least 1, not " + limit);
        if (heatmaps < 0) throw new IllegalArgumentException("heatmaps must be at least 0, not " + heatmaps);
    }

    /** Library internals left out (unless {@code strict}). */
    public DiffOptions(boolean strict, Tolerance tolerance, ElementType elementType, int limit, int heatmaps) {
        this(strict, tolerance, elementType, limit, heatmaps, false);
    }

    /** Not strict, exact, f32, 1000 listed, 50 heatmaps, library internals left out. */
    public static DiffOptions defaults() {
        return new DiffOptions(false, Tolerance.EXACT, ElementTypes.F32, 1000, 50);
    }

    /** A copy with {@code strict} set. */
    public DiffOptions withStrict(boolean s) {
        return new DiffOptions(s, tolerance, elementType, limit, heatmaps, libraryInternals);
    }

    /** A copy with another tolerance. */
    public DiffOptions withTolerance(Tolerance t) {
        return new DiffOptions(strict, t, elementType, limit, heatmaps, libraryInternals);
    }

    /** A copy with another default element type. */
    public DiffOptions withElementType(ElementType t) {
        return new DiffOptions(strict, tolerance, t, limit, heatmaps, libraryInternals);
    }

    /** A copy with another listing limit. */
    public DiffOptions withLimit(int l) {
        return new DiffOptions(strict, tolerance, elementType, l, heatmaps, libraryInternals);
    }

    /** A copy with {@code libraryInternals} set. */
    public DiffOptions withLibraryInternals(boolean k) {
        return new DiffOptions(strict, tolerance, elementType, limit, heatmaps, k);
    }

    /** Whether calls inside library calls are aligned and compared: {@code libraryInternals} or {@code strict}. */
    public boolean comparesLibraryInternals() {
        return libraryInternals || strict;
    }
}
