package dev.zluda.runtime.backend;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Copies and fills of memory the process can address directly (the emulator's device memory, host memory). */
public final class HostMemory {
    private HostMemory() {}

    /** The bytes at a raw address. */
    public static MemorySegment at(long address, long bytes) {
        return MemorySegment.ofAddress(address).reinterpret(bytes);
    }

    /** Copies {@code bytes} from {@code src} to {@code dst} (ranges may overlap). */
    public static void copy(long dst, long src, long bytes) {
        MemorySegment.copy(at(src, bytes), 0, at(dst, bytes), 0, bytes);
    }

    /**
     * Sets {@code height} rows of {@code width} elements of {@code elementSize} (1, 2 or 4) bytes, rows {@code pitch}
     * bytes apart, to the low bytes of {@code value} (CUDA Driver API, cuMemsetD2D8/16/32).
     */
    public static void fill(long dst, long pitch, long value, long width, long height, int elementSize) {
        long rowBytes = width * elementSize;
        for (long y = 0; y < height; y++) {
            MemorySegment row = at(dst + pitch * y, rowBytes);
            switch (elementSize) {
                case 1 -> row.fill((byte) value);
                case 2 -> { for (long i = 0; i < width; i++) row.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i, (short) value); }
                default -> { for (long i = 0; i < width; i++) row.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, (int) value); }
            }
        }
    }
}
