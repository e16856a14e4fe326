package dev.zluda.diff;

import java.nio.ByteBuffer;

/**
 * The typed comparison of a data buffer's elements: the pluggable part of the buffer diff. A
 * buffer whose element type is not known from the API spec (a {@code void *} copy) is compared as
 * {@link DiffOptions#elementType()} (f32 unless chosen otherwise); later the PTX of the kernel that
 * wrote it will say. Implementations are stateless and thread-safe; register new ones with
 * {@link ElementTypes#register(ElementType)}.
 */
public interface ElementType {
    /** Short name used on the command line and in reports, e.g. {@code f32}. */
    String name();

    /** Bytes per element. */
    int size();

    /**
     * Compares element {@code index} of two little-endian buffers (absolute byte position
     * {@code index * size()}), filling {@code out} with the absolute difference, the distance in
     * units in the last place (floating point) and a magnitude in (0, 1] for the heatmap.
     *
     * @return true when the elements differ beyond {@code tol}
     */
    boolean differs(ByteBuffer a, ByteBuffer b, int index, Tolerance tol, Delta out);

    /** Element {@code index} of a little-endian buffer as text. */
    String format(ByteBuffer buf, int index);

    /** How much two elements differ (written by {@link #differs}). */
    final class Delta {
        /** |a − b|, NaN when not a number. */
        public double abs;
        /** Units in the last place between a and b (floating point; -1 when one is NaN), or |a − b| for integers. */
        public long ulps;
        /** How strongly to colour the element in a heatmap, (0, 1]. */
        public double magnitude;
        /** |a − b| / |a| with A the reference; NaN when a is 0 or not a number. */
        public double rel = Double.NaN;

        /** Sets the fields, {@code rel} to NaN. */
        public void set(double abs, long ulps, double magnitude) {
            set(abs, ulps, magnitude, Double.NaN);
        }

        /** Sets every field. */
        public void set(double abs, long ulps, double magnitude, double rel) {
            this.abs = abs;
            this.ulps = ulps;
            this.magnitude = magnitude;
            this.rel = rel;
        }
    }
}
