package dev.zluda.capture;

import net.jpountz.xxhash.XXHash64;
import net.jpountz.xxhash.XXHashFactory;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/** XXH64 with seed 0, the content hash of the capture format (FORMAT.md §2). */
public final class Hashing {
    private Hashing() {}

    private static final XXHash64 H = XXHashFactory.fastestJavaInstance().hash64();

    /** XXH64 of {@code len} bytes of {@code b} from {@code off}. */
    public static long xxh64(byte[] b, int off, int len) {
        return H.hash(b, off, len, 0);
    }

    /** XXH64 of a whole array. */
    public static long xxh64(byte[] b) {
        return H.hash(b, 0, b.length, 0);
    }

    /** XXH64 of a memory segment (heap or native, any size up to 2 GiB). */
    public static long xxh64(MemorySegment s) {
        if (s.byteSize() > Integer.MAX_VALUE) throw new IllegalArgumentException("segment over 2 GiB");
        if (s.isNative()) {
            ByteBuffer bb = s.asByteBuffer();
            return H.hash(bb, 0, bb.remaining(), 0);
        }
        // a slice of a byte array (MemorySegment.ofArray): hash it in place, without a copy
        if (s.heapBase().orElse(null) instanceof byte[] a) return H.hash(a, (int) s.address(), (int) s.byteSize(), 0);
        return xxh64(s.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
    }
}
