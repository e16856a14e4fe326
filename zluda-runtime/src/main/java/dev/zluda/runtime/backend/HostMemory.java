package dev.zluda.runtime.backend;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Memory the process can address directly (the emulator's device memory, page-locked host memory, module
 * variables): allocation from the C heap, copies and fills.
 */
public final class HostMemory {
    private HostMemory() {}

    private static final MethodHandle CALLOC, FREE;

    static {
        Linker linker = Linker.nativeLinker();
        var libc = linker.defaultLookup();
        CALLOC = linker.downcallHandle(libc.find("calloc").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
        FREE = linker.downcallHandle(libc.find("free").orElseThrow(), FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
    }

    /**
     * A block of zeroed native memory: {@code address} is aligned as asked; {@link #free()} gives it back (once; later
     * calls do nothing).
     */
    public static final class Block {
        /** The first byte of the block. */
        public final long address;
        private final long raw;
        private final java.util.concurrent.atomic.AtomicBoolean freed = new java.util.concurrent.atomic.AtomicBoolean();

        private Block(long address, long raw) {
            this.address = address;
            this.raw = raw;
        }

        /** Gives the memory back to the C heap; only the first call does. */
        public void free() {
            if (!freed.compareAndSet(false, true)) return;
            try {
                FREE.invokeExact(MemorySegment.ofAddress(raw));
            } catch (Throwable t) {
                throw new IllegalStateException("free(0x" + Long.toHexString(raw) + ") failed", t);
            }
        }
    }

    /**
     * {@code bytes} of zeroed memory from the C heap ({@code calloc}), {@code alignment}-byte aligned. Unlike a shared
     * {@link java.lang.foreign.Arena}, freeing it costs no handshake with every Java thread, so many host threads
     * allocate and free at once without waiting for each other; {@code calloc} maps large blocks fresh from the
     * kernel, whose pages are zero until written.
     *
     * @param bytes ≥ 1 (0 is taken as 1)
     * @param alignment a power of two ≥ 1
     * @return the block, or null when the C heap cannot provide it (the caller answers CUDA_ERROR_OUT_OF_MEMORY)
     * @throws IllegalArgumentException for a negative size or an alignment that is not a power of two
     */
    public static Block allocateZeroed(long bytes, long alignment) {
        if (bytes < 0) throw new IllegalArgumentException("negative size " + bytes);
        if (alignment < 1 || Long.bitCount(alignment) != 1) throw new IllegalArgumentException("alignment " + alignment + " is not a power of two");
        long size = Math.max(1, bytes);
        if (size > Long.MAX_VALUE - alignment) return null;
        long total = size + alignment - 1;
        long raw;
        try {
            raw = ((MemorySegment) CALLOC.invokeExact(1L, total)).address();
        } catch (Throwable t) {
            throw new IllegalStateException("calloc(" + total + ") failed", t);
        }
        if (raw == 0) return null;
        return new Block((raw + alignment - 1) & -alignment, raw);
    }

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
