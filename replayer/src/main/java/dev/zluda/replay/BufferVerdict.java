package dev.zluda.replay;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Locale;

/**
 * How a replayed after-image compares with the recorded one, element by element.
 *
 * @param type the element type the comparison used ({@link ElementType#BYTES} when unknown)
 * @param elements whole elements compared (trailing bytes that make no whole element are compared as bytes and counted as one element)
 * @param differing elements whose bits differ
 * @param firstOffset byte offset of the first differing element, -1 when identical
 * @param firstRecorded the recorded value there (text), null when identical
 * @param firstReplayed the replayed value there (text), null when identical
 * @param maxAbs largest |replayed − recorded| over differing elements (NaN against a number counts as infinite), 0 when identical
 * @param maxRel largest |replayed − recorded| / |recorded| over differing elements whose recorded value is not 0
 * @param maxUlps largest distance in units in the last place (floating types only; -1 otherwise)
 */
public record BufferVerdict(ElementType type, long elements, long differing, long firstOffset, String firstRecorded,
                            String firstReplayed, double maxAbs, double maxRel, long maxUlps) {
    /** Whether the two images are the same bytes. */
    public boolean identical() {
        return differing == 0;
    }

    /**
     * Compares two images of the same size.
     *
     * @throws IllegalArgumentException when the sizes differ
     */
    public static BufferVerdict compare(byte[] recorded, byte[] replayed, ElementType type) {
        if (recorded.length != replayed.length) throw new IllegalArgumentException("images of " + recorded.length + " and " + replayed.length + " bytes");
        if (Arrays.equals(recorded, replayed)) return new BufferVerdict(type, recorded.length / type.size, 0, -1, null, null, 0, 0, type.floating ? 0 : -1);
        MemorySegment a = MemorySegment.ofArray(recorded), b = MemorySegment.ofArray(replayed);
        long n = recorded.length / type.size;
        long differing = 0, first = -1, maxUlps = type.floating ? 0 : -1;
        String fa = null, fb = null;
        double maxAbs = 0, maxRel = 0;
        for (long i = 0; i < n; i++) {
            long x = type.bits(a, i), y = type.bits(b, i);
            if (x == y) continue;
            differing++;
            if (first < 0) { first = i * type.size; fa = type.text(x); fb = type.text(y); }
            double vx = type.value(x), vy = type.value(y);
            double abs;
            if (Double.isNaN(vx) && Double.isNaN(vy)) abs = 0; // both NaN, other payloads
            else if (Double.isNaN(vx) || Double.isNaN(vy)) abs = Double.POSITIVE_INFINITY;
            else abs = Math.abs(vy - vx);
            if (Double.isNaN(abs)) abs = Double.POSITIVE_INFINITY; // inf - inf of opposite signs
            maxAbs = Math.max(maxAbs, abs);
            if (vx != 0 && !Double.isNaN(vx)) maxRel = Math.max(maxRel, abs / Math.abs(vx));
            if (type.floating) maxUlps = Math.max(maxUlps, type.ulps(x, y));
        }
        long tail = recorded.length - n * type.size;
        long elements = n;
        if (tail > 0) {
            elements++;
            for (long k = n * type.size; k < recorded.length; k++) {
                if (recorded[(int) k] != replayed[(int) k]) {
                    differing++;
                    if (first < 0) { first = n * type.size; fa = "byte " + (recorded[(int) k] & 0xFF); fb = "byte " + (replayed[(int) k] & 0xFF); }
                    break;
                }
            }
        }
        return new BufferVerdict(type, elements, differing, first, fa, fb, maxAbs, maxRel, maxUlps);
    }

    /** One line: {@code identical} or {@code 3 of 5000 f32 elements differ; first at byte 16 (element 4): recorded 1.0, replayed 2.0; max |Δ| 1, max rel 1, max 8388608 ULP}. */
    public String text() {
        if (identical()) return "identical";
        StringBuilder sb = new StringBuilder();
        sb.append(differing).append(" of ").append(elements).append(' ').append(type == ElementType.BYTES ? "bytes" : type.ptx() + " elements")
                .append(differing == 1 ? " differs" : " differ");
        sb.append("; first at byte ").append(firstOffset);
        if (type != ElementType.BYTES) sb.append(" (element ").append(firstOffset / type.size).append(')');
        sb.append(": recorded ").append(firstRecorded).append(", replayed ").append(firstReplayed);
        sb.append("; max |Δ| ").append(num(maxAbs));
        if (maxRel > 0) sb.append(", max rel ").append(num(maxRel));
        if (maxUlps >= 0) sb.append(", max ").append(maxUlps).append(" ULP");
        return sb.toString();
    }

    private static String num(double v) {
        if (Double.isInfinite(v)) return "inf";
        if (v == Math.rint(v) && Math.abs(v) < 1e15) return Long.toString((long) v);
        return String.format(Locale.ROOT, "%.6g", v);
    }
}
