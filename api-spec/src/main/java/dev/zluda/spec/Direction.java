package dev.zluda.spec;

/** Which way data behind a pointer parameter flows, as seen by the caller of the CUDA driver API. */
public enum Direction {
    /** Read by the driver; recorded at call entry. Value parameters are always {@code IN}. */
    IN,
    /** Written by the driver; recorded at call exit. */
    OUT,
    /** Read and written by the driver; recorded at entry and exit. */
    INOUT;

    /** Parses {@code in}, {@code out} or {@code inout} (case-insensitive). */
    public static Direction parse(String s) {
        return switch (s.toLowerCase(java.util.Locale.ROOT)) {
            case "in" -> IN;
            case "out" -> OUT;
            case "inout" -> INOUT;
            default -> throw new IllegalArgumentException("direction must be in, out or inout, not '" + s + "'");
        };
    }

    /** Whether the driver reads the pointed-to data. */
    public boolean isIn() {
        return this != OUT;
    }

    /** Whether the driver writes the pointed-to data. */
    public boolean isOut() {
        return this != IN;
    }
}
