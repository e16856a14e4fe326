package dev.zluda.viewer;

import dev.zluda.diff.ElementType;
import dev.zluda.diff.Heatmap;
import dev.zluda.diff.Tolerance;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Locale;

/**
 * What the two-capture window draws for a diverging buffer, computed off the FX thread: A's and
 * B's values as images on one colour scale, where and how much they differ as a heatmap, and a
 * histogram of the differing elements' errors.
 *
 * <p>Layout as {@link Heatmap}: the elements in row-major order on a grid of at most
 * {@link Heatmap#MAX_CELLS} cells, each covering {@link #perCell} consecutive elements. A value
 * cell shows the mean of its finite elements on a shared scale from {@link #min} (dark violet) to
 * {@link #max} (yellow) over both buffers (magenta: only NaN or infinities; near black: past the
 * end). A difference cell is coloured as {@link Heatmap#color} colours the largest difference
 * magnitude of its elements ({@link ElementType#differs} with the diff's tolerance).
 *
 * <p>The histogram counts differing elements by the size of the error in powers of two: units in
 * the last place for floating-point types ({@code ulps}: bin k holds errors in [2^(k-1), 2^k)),
 * {@code |a − b|} for integer types; NaN against a number is counted apart.
 */
final class BufferImages {
    /** Elements compared (the shorter buffer's), and cells of the grid. */
    final long elements, perCell;
    /** Grid size in cells. */
    final int width, height;
    /** One ARGB pixel per cell: A's values, B's values, the difference. */
    final int[] a, b, diff;
    /** Per cell the {@link Heatmap#color} level of {@link #diff}: 0 equal, 1 to 255 how much, -1 past the end. */
    final int[] level;
    /** The value scale shared by {@link #a} and {@link #b} (NaN when no finite element). */
    final double min, max;
    /** Differing elements by error: bin 0 holds error 0 (e.g. +0 against −0 when compared bit for bit), bin k ≥ 1 errors in [2^(k−1), 2^k). */
    final long[] bins = new long[65];
    /** Differing elements whose error is not a number (NaN against a number). */
    long nanErrors;
    /** Elements that differ. */
    long differing;
    /** Whether the errors are units in the last place (floating point) rather than |a − b|. */
    final boolean ulps;
    /** The largest |a − b| over differing elements (NaN: none, or not numeric). */
    double maxAbs = Double.NaN;

    private BufferImages(long elements, boolean ulps, double min, double max) {
        this.elements = elements;
        this.perCell = Math.max(1, (elements + Heatmap.MAX_CELLS - 1) / Heatmap.MAX_CELLS);
        int n = (int) Math.max(1, (elements + perCell - 1) / perCell);
        this.width = (int) Math.ceil(Math.sqrt(n));
        this.height = (n + width - 1) / width;
        this.a = new int[width * height];
        this.b = new int[width * height];
        this.diff = new int[width * height];
        this.level = new int[width * height];
        this.ulps = ulps;
        this.min = min;
        this.max = max;
    }

    /** Computes the images and the histogram of two buffers compared as {@code buf.type()} within {@code tol}. */
    static BufferImages of(DivergingBuffer buf, Tolerance tol) {
        ElementType t = buf.type();
        int es = t.size();
        ByteBuffer x = ByteBuffer.wrap(buf.a()).order(ByteOrder.LITTLE_ENDIAN), y = ByteBuffer.wrap(buf.b()).order(ByteOrder.LITTLE_ENDIAN);
        int elements = Math.min(buf.a().length, buf.b().length) / es;
        double lo = Double.POSITIVE_INFINITY, hi = Double.NEGATIVE_INFINITY;
        for (ByteBuffer bb : new ByteBuffer[] {x, y}) {
            for (int k = 0; k < elements; k++) {
                double v = value(t, bb, k);
                if (Double.isFinite(v)) {
                    if (v < lo) lo = v;
                    if (v > hi) hi = v;
                }
            }
        }
        boolean fp = t.name().startsWith("f");
        BufferImages im = new BufferImages(elements, fp, lo <= hi ? lo : Double.NaN, lo <= hi ? hi : Double.NaN);
        int cells = im.width * im.height;
        double[] sumA = new double[cells], sumB = new double[cells];
        int[] nA = new int[cells], nB = new int[cells];
        double[] mag = new double[cells];
        boolean[] anyDiff = new boolean[cells];
        ElementType.Delta d = new ElementType.Delta();
        for (int k = 0; k < elements; k++) {
            int c = (int) (k / im.perCell);
            double va = value(t, x, k), vb = value(t, y, k);
            if (Double.isFinite(va)) { sumA[c] += va; nA[c]++; }
            if (Double.isFinite(vb)) { sumB[c] += vb; nB[c]++; }
            if (!t.differs(x, y, k, tol, d)) continue;
            im.differing++;
            anyDiff[c] = true;
            if (d.magnitude > mag[c]) mag[c] = d.magnitude;
            if (!Double.isNaN(d.abs) && (Double.isNaN(im.maxAbs) || d.abs > im.maxAbs)) im.maxAbs = d.abs;
            if (d.ulps < 0) im.nanErrors++;
            else im.bins[64 - Long.numberOfLeadingZeros(d.ulps)]++;
        }
        long used = (elements + im.perCell - 1) / im.perCell;
        for (int c = 0; c < cells; c++) {
            if (c >= used) {
                im.a[c] = im.b[c] = im.diff[c] = 0xFF000000 | Heatmap.color(-1);
                im.level[c] = -1;
                continue;
            }
            im.a[c] = nA[c] == 0 ? NOT_FINITE : im.colour(sumA[c] / nA[c]);
            im.b[c] = nB[c] == 0 ? NOT_FINITE : im.colour(sumB[c] / nB[c]);
            im.level[c] = anyDiff[c] ? 1 + (int) Math.round(Math.max(0, Math.min(1, mag[c])) * 254) : 0;
            im.diff[c] = 0xFF000000 | Heatmap.color(im.level[c]);
        }
        return im;
    }

    private static final int NOT_FINITE = 0xFFD0208C;
    /** A perceptually even scale, dark violet → blue → green → yellow (matplotlib's viridis at 0, ¼, ½, ¾, 1). */
    private static final int[] SCALE = {0x440154, 0x3B528B, 0x21918C, 0x5EC962, 0xFDE725};

    /** The ARGB colour of value {@code v} on this buffer pair's scale. */
    int colour(double v) {
        double t = Double.isNaN(min) || max <= min ? 0.5 : (v - min) / (max - min);
        return 0xFF000000 | scale(t);
    }

    /** The colour (0xRRGGBB) at {@code t} in [0, 1] of the value scale. */
    static int scale(double t) {
        t = Math.max(0, Math.min(1, t)) * (SCALE.length - 1);
        int i = Math.min(SCALE.length - 2, (int) t);
        double f = t - i;
        int p = SCALE[i], q = SCALE[i + 1], rgb = 0;
        for (int s = 16; s >= 0; s -= 8) {
            int u = (p >> s) & 0xFF, w = (q >> s) & 0xFF;
            rgb |= ((int) Math.round(u + (w - u) * f)) << s;
        }
        return rgb;
    }

    /** Element {@code k} as a number: by the type's name (f32, f64, i32, u32, i64, u8), else by its size as an unsigned or signed integer. */
    static double value(ElementType t, ByteBuffer bb, int k) {
        int es = t.size();
        int at = k * es;
        return switch (t.name()) {
            case "f32" -> bb.getFloat(at);
            case "f64" -> bb.getDouble(at);
            case "u32" -> Integer.toUnsignedLong(bb.getInt(at));
            case "u8" -> bb.get(at) & 0xFF;
            default -> switch (es) {
                case 1 -> bb.get(at);
                case 2 -> bb.getShort(at);
                case 4 -> bb.getInt(at);
                case 8 -> bb.getLong(at);
                default -> bb.get(at) & 0xFF;
            };
        };
    }

    /** First and last non-empty bin of the histogram, or {-1, -1}. */
    int[] binRange() {
        int first = -1, last = -1;
        for (int k = 0; k < bins.length; k++) {
            if (bins[k] == 0) continue;
            if (first < 0) first = k;
            last = k;
        }
        return new int[] {first, last};
    }

    /** The label of bin k: {@code 0}, {@code 1}, {@code 2–3}, {@code 4–7}, …, {@code 512–1023}, then its lower end as {@code 2^10}, {@code 2^11}, …. */
    static String binLabel(int k) {
        if (k <= 1) return Integer.toString(k);
        if (k <= 10) return (1L << (k - 1)) + "–" + ((1L << k) - 1);
        return "2^" + (k - 1);
    }

    /** {@code 1.5e+03}, {@code 0.25}: a value of the scale for the legend. */
    static String number(double v) {
        if (Double.isNaN(v)) return "–";
        double a = Math.abs(v);
        return a != 0 && (a < 1e-3 || a >= 1e5) ? String.format(Locale.ROOT, "%.3g", v) : String.format(Locale.ROOT, "%.4g", v);
    }
}
