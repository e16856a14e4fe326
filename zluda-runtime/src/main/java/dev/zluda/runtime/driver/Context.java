package dev.zluda.runtime.driver;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** A CUDA context of the emulator device: the owner of allocations, modules and streams. */
final class Context {
    /** CU_LIMIT_* defaults (CUDA Driver API, cuCtxGetLimit): stack 1 KiB, printf FIFO 1 MiB, malloc heap 8 MiB. */
    static final long[] DEFAULT_LIMITS = {1024, 1 << 20, 8 << 20, 2, 2048, 0, 0, 0};

    final long handle;
    final int device;
    final boolean primary;
    volatile int flags;
    volatile boolean destroyed;
    final long id;
    final Map<Integer, Long> limits = new ConcurrentHashMap<>();
    final Set<Allocation> allocations = ConcurrentHashMap.newKeySet();
    volatile int cacheConfig;
    /** The error a kernel fault left the context in (sticky, as on NVIDIA's driver), or CUDA_SUCCESS. */
    private final java.util.concurrent.atomic.AtomicInteger sticky = new java.util.concurrent.atomic.AtomicInteger();

    Context(long handle, long id, int device, boolean primary, int flags) {
        this.handle = handle;
        this.id = id;
        this.device = device;
        this.primary = primary;
        this.flags = flags;
    }

    /** The sticky error of a kernel fault, or CUDA_SUCCESS (0). */
    int stickyError() {
        return sticky.get();
    }

    /** Records a kernel fault's error; the first one stays until the context is destroyed or reset. */
    void fault(int error) {
        sticky.compareAndSet(0, error);
    }

    /** Forgets the sticky error (a reset primary context). */
    void clearStickyError() {
        sticky.set(0);
    }

    long limit(int which) {
        return limits.getOrDefault(which, which >= 0 && which < DEFAULT_LIMITS.length ? DEFAULT_LIMITS[which] : 0);
    }
}
