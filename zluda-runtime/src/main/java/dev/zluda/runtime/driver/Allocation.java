package dev.zluda.runtime.driver;

import java.lang.foreign.Arena;

/**
 * A range of memory the driver knows: device memory, page-locked host memory, managed memory or a
 * registered host range. On the emulator device pointers are the real addresses of native memory, so
 * host and "device" code read the same bytes; on the hip backend device memory is HIP's (hipMalloc), which
 * only HIP's copies reach, and {@link #free()} gives it back with hipFree.
 */
final class Allocation {
    /** CUmemorytype values (cuda.h): what cuPointerGetAttribute reports as CU_POINTER_ATTRIBUTE_MEMORY_TYPE. */
    static final int HOST = 1, DEVICE = 2;

    /** VIRTUAL: a mapping of cuMemMap that the device may access ({@link VirtualMemoryArea}); its memory is not the allocation's to free. */
    enum Kind { DEVICE, HOST_ALLOC, MANAGED, HOST_REGISTERED, VIRTUAL }

    final Kind kind;
    final long address;
    final long size;
    final Context context;
    final int flags;
    final long bufferId;
    private final Arena arena; // an arena to close (none of the driver's own allocations use one any more), or null
    private final Runnable release; // what gives the memory back: free() of the C heap, hipFree; null for registered memory

    Allocation(Kind kind, long address, long size, Context context, int flags, long bufferId, Arena arena) {
        this(kind, address, size, context, flags, bufferId, arena, null);
    }

    /** @param release what gives the memory back when it is not an arena's (hipFree), or null */
    Allocation(Kind kind, long address, long size, Context context, int flags, long bufferId, Arena arena, Runnable release) {
        this.kind = kind;
        this.address = address;
        this.size = size;
        this.context = context;
        this.flags = flags;
        this.bufferId = bufferId;
        this.arena = arena;
        this.release = release;
    }

    boolean contains(long p, long bytes) {
        return p >= address && bytes >= 0 && p - address <= size - bytes;
    }

    int memoryType() {
        return kind == Kind.DEVICE || kind == Kind.MANAGED || kind == Kind.VIRTUAL ? DEVICE : HOST;
    }

    void free() {
        if (arena != null) arena.close();
        if (release != null) release.run();
    }
}
