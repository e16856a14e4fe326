package dev.zluda.runtime.emulator;

import java.util.TreeMap;
import java.util.function.LongUnaryOperator;

/**
 * The heap of device-side {@code malloc} and {@code free} (CUDA Programming Guide, "Dynamic Global Memory
 * Allocation and Operations"; C++ {@code new}/{@code delete} in kernels compile to calls of them): one region of
 * device memory, made when the first kernel allocates, of the size {@code CU_LIMIT_MALLOC_HEAP_SIZE} had then (8 MiB
 * unless the program set another), which the driver registers as an allocation so that kernels may touch it and the
 * memory checks see it as one. Blocks are 16-byte aligned (the guide's guarantee), taken first fit, and live until
 * {@code free}d, across launches; {@code malloc} returns NULL (0) when no block of the size is left, or for 0 bytes.
 * One heap for the process (NVIDIA's is per context). Thread-safe.
 */
public final class DeviceHeap {
    /** The alignment of every block, bytes. */
    static final long ALIGN = 16;

    private static volatile LongUnaryOperator region;
    private static volatile long requested = 8L << 20;
    private static volatile DeviceHeap heap;

    private final long base, size;
    /** Live blocks: address → bytes (rounded up to {@link #ALIGN}). */
    private final TreeMap<Long, Long> live = new TreeMap<>();

    private DeviceHeap(long base, long size) {
        this.base = base;
        this.size = size;
    }

    /**
     * How the heap's region is made: {@code maker} takes a size in bytes and returns the address of zeroed device
     * memory of that size that kernels may touch (0 when there is none). Set by each driver when it is made; a heap
     * an earlier driver made is forgotten (its memory stays with that driver).
     */
    public static void install(LongUnaryOperator maker) {
        synchronized (DeviceHeap.class) {
            region = maker;
            heap = null;
        }
    }

    /** The size the heap is made with when it does not exist yet (CU_LIMIT_MALLOC_HEAP_SIZE of the launching context). */
    public static void requestSize(long bytes) {
        if (bytes > 0) requested = bytes;
    }

    /** Whether the heap has been made (then CU_LIMIT_MALLOC_HEAP_SIZE can no longer change it). */
    public static boolean made() {
        return heap != null;
    }

    private static DeviceHeap get() {
        DeviceHeap h = heap;
        if (h != null) return h;
        synchronized (DeviceHeap.class) {
            if (heap == null) {
                LongUnaryOperator maker = region;
                long bytes = (requested + ALIGN - 1) & -ALIGN;
                long at = maker == null ? 0 : maker.applyAsLong(bytes);
                heap = new DeviceHeap(at, at == 0 ? 0 : bytes);
            }
            return heap;
        }
    }

    /** {@code malloc(bytes)}: a 16-byte-aligned block's address, or 0 when none is left (or for 0 bytes). */
    static long malloc(long bytes) {
        return get().take(bytes);
    }

    /** {@code free(p)}: false when {@code p} is neither 0 nor a live block's address. */
    static boolean free(long p) {
        if (p == 0) return true;
        return get().give(p);
    }

    private synchronized long take(long bytes) {
        if (bytes <= 0 || bytes > size) return 0;
        long want = (bytes + ALIGN - 1) & -ALIGN;
        long at = base;
        for (var e : live.entrySet()) {
            if (e.getKey() - at >= want) break;
            at = e.getKey() + e.getValue();
        }
        if (base + size - at < want) return 0;
        live.put(at, want);
        return at;
    }

    private synchronized boolean give(long p) {
        return live.remove(p) != null;
    }
}
