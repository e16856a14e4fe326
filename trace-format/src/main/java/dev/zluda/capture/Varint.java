package dev.zluda.capture;

/** LEB128 varints and zigzag encoding into byte arrays (FORMAT.md §2). */
public final class Varint {
    private Varint() {}

    /** Writes {@code v} as an unsigned varint at {@code pos}; returns the position after it. The array must have 10 bytes of room. */
    public static int put(byte[] b, int pos, long v) {
        if ((v & ~0x7FL) == 0) {                 // one byte: the common case of deltas and cached arguments
            b[pos] = (byte) v;
            return pos + 1;
        }
        while ((v & ~0x7FL) != 0) {
            b[pos++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        b[pos++] = (byte) v;
        return pos;
    }

    /** Number of bytes {@link #put} writes for {@code v} (1..10). */
    public static int size(long v) {
        int n = 1;
        while ((v & ~0x7FL) != 0) { n++; v >>>= 7; }
        return n;
    }

    /** zigzag: maps signed to unsigned so that small magnitudes give short varints. */
    public static long zigzag(long v) {
        return (v << 1) ^ (v >> 63);
    }

    /** Inverse of {@link #zigzag}. */
    public static long unzigzag(long v) {
        return (v >>> 1) ^ -(v & 1);
    }

    /** Writes a little-endian u64 at {@code pos}; returns the position after it. */
    public static int putLong(byte[] b, int pos, long v) {
        for (int i = 0; i < 8; i++) b[pos + i] = (byte) (v >>> (8 * i));
        return pos + 8;
    }
}
