package dev.zluda.runtime.driver;

import dev.zluda.image.UserMemory;
import dev.zluda.runtime.backend.Backend;
import dev.zluda.runtime.backend.BackendException;
import dev.zluda.runtime.backend.HostMemory;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

import static dev.zluda.runtime.driver.CuResult.*;
import static dev.zluda.runtime.driver.Native.getInt;
import static dev.zluda.runtime.driver.Native.getLong;
import static dev.zluda.runtime.driver.Native.putInt;
import static dev.zluda.runtime.driver.Native.putLong;

/**
 * Memory (CUDA Driver API groups CUDA_MEM, CUDA_UNIFIED): device, page-locked host and managed allocations, host
 * registration, address ranges and pointer attributes. It keeps every allocation the driver knows, by address
 * (module variables too): the emulator checks kernels' memory accesses against them, copies check device-side
 * ranges against them ({@link #find}).
 *
 * <p>Device memory is the backend's ({@link Backend#allocate}: native memory of the process on the emulator, so a
 * device pointer is a host address; {@code hipMalloc} on the hip backend); page-locked host memory is native memory.
 * Managed memory, host registration and device pointers of host memory need a backend whose kernels see host
 * memory ({@link Backend#deviceSeesHostMemory()}), else CUDA_ERROR_NOT_SUPPORTED.
 */
final class MemoryArea {
    /** CUmemorytype (cuda.h). */
    static final int MEMTYPE_HOST = 1, MEMTYPE_DEVICE = 2, MEMTYPE_ARRAY = 3, MEMTYPE_UNIFIED = 4;
    /** Row pitch alignment of cuMemAllocPitch, bytes (the device's TEXTURE_ALIGNMENT). */
    static final long PITCH_ALIGNMENT = 512;

    private final DriverState state;
    private final ConcurrentSkipListMap<Long, Allocation> allocations = new ConcurrentSkipListMap<>();
    private final AtomicLong used = new AtomicLong();
    private final AtomicLong bufferIds = new AtomicLong();
    private final Map<String, Integer> pointerAttribute = new HashMap<>();
    /** The virtual memory area, for what pointer queries report of its mappings (set by {@link Areas}). */
    VirtualMemoryArea virtualMemory;

    MemoryArea(DriverState state) {
        this.state = state;
        for (var m : state.enumType("CUpointer_attribute").members()) {
            pointerAttribute.put(m.name().substring("CU_POINTER_ATTRIBUTE_".length()), (int) m.value());
        }
    }

    /** Frees a context's allocations (it is being destroyed or reset). */
    void release(Context c) {
        for (Allocation a : c.allocations) freeAllocation(a);
        c.allocations.clear();
    }

    /** {@code true} when [p, p+bytes) is device memory of the backend ({@link Backend#allocate}'s). */
    boolean onDevice(long p, long bytes) {
        Allocation a = find(p, bytes);
        return a != null && a.kind == Allocation.Kind.DEVICE;
    }

    /**
     * The allocation that holds [p, p+bytes), or null. A range that runs on from one virtual memory mapping into the
     * next ones, each adjoining the one before and accessible, is one range of device memory as on NVIDIA's driver
     * (allocations mapped side by side into a reservation): the first mapping is returned.
     */
    Allocation find(long p, long bytes) {
        var e = allocations.floorEntry(p);
        if (e == null) return null;
        Allocation a = e.getValue();
        if (a.contains(p, bytes)) return a;
        if (a.kind != Allocation.Kind.VIRTUAL || !a.contains(p, 0) || bytes < 0) return null;
        long end = a.address + a.size;
        while (end - p < bytes) {
            Allocation next = allocations.get(end);
            if (next == null || next.kind != Allocation.Kind.VIRTUAL) return null;
            end += next.size;
        }
        return a;
    }

    /** Every live allocation, by address (the emulator checks memory accesses against it). */
    ConcurrentSkipListMap<Long, Allocation> allocations() {
        return allocations;
    }

    /** Counts {@code bytes} of device memory made elsewhere (cuMemCreate) as used; false when the device has not that much left. */
    boolean charge(long bytes) {
        while (true) {
            long u = used.get();
            if (u + bytes > state.totalMemory) return false;
            if (used.compareAndSet(u, u + bytes)) return true;
        }
    }

    /** Gives back what {@link #charge} counted. */
    void credit(long bytes) {
        used.addAndGet(-bytes);
    }

    /**
     * Makes a range the driver manages elsewhere (a virtual memory mapping) known to kernels, copies and pointer
     * queries, without counting it as used memory (its allocation was charged); {@link #unregister} forgets it.
     *
     * @param bufferId what CU_POINTER_ATTRIBUTE_BUFFER_ID reports (the allocation handle)
     */
    Allocation register(Allocation.Kind kind, long address, long size, Context context, long bufferId) {
        Allocation a = new Allocation(kind, address, size, context, 0, bufferId, null);
        allocations.put(address, a);
        return a;
    }

    void unregister(Allocation a) {
        allocations.remove(a.address, a);
    }

    /**
     * Allocates {@code bytes} (a size_t: a value above 2^63 is as huge as it looks, not negative) of one kind.
     * CUDA_ERROR_INVALID_VALUE for a NULL out-parameter or 0 bytes, CUDA_ERROR_OUT_OF_MEMORY for more than is left
     * (SIZE_MAX too: both as recorded on the H200, samples/traces/h200/misuse).
     */
    private int allocate(Allocation.Kind kind, long out, long bytes, int flags) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (out == 0 || bytes == 0) return INVALID_VALUE;
        if (bytes < 0) return OUT_OF_MEMORY; // above 2^63 bytes
        if (kind != Allocation.Kind.HOST_ALLOC && bytes > state.totalMemory - used.get()) return OUT_OF_MEMORY;
        Backend b = state.backend();
        if (!b.deviceSeesHostMemory() && kind == Allocation.Kind.MANAGED) return NOT_SUPPORTED;
        long address;
        Runnable release;
        if (kind == Allocation.Kind.DEVICE) {
            try {
                Backend.DeviceMemory m = b.allocate(bytes);
                address = m.address();
                release = m.release();
            } catch (BackendException e) {
                return e.cuResult;
            }
        } else {
            // the C heap, not a shared Arena: freeing one costs no handshake with every Java thread
            HostMemory.Block block = HostMemory.allocateZeroed(bytes, 256);
            if (block == null) return OUT_OF_MEMORY;
            address = block.address;
            release = kind == Allocation.Kind.HOST_ALLOC ? () -> {
                UserMemory.forget(block.address, bytes); // the program may pass the freed pointer again
                block.free();
            } : block::free;
        }
        Context c = state.current();
        Allocation a = new Allocation(kind, address, bytes, c, flags, bufferIds.incrementAndGet(), null, release);
        if (kind != Allocation.Kind.HOST_ALLOC) used.addAndGet(bytes);
        allocations.put(a.address, a);
        c.allocations.add(a);
        putLong(out, a.address);
        return SUCCESS;
    }

    void freeAllocation(Allocation a) {
        if (allocations.remove(a.address, a)) {
            if (a.kind != Allocation.Kind.HOST_ALLOC && a.kind != Allocation.Kind.HOST_REGISTERED) used.addAndGet(-a.size);
            a.free();
        }
    }

    private int free(long p, Allocation.Kind... kinds) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (p == 0) return SUCCESS;
        Allocation a = allocations.get(p);
        if (a == null || !java.util.List.of(kinds).contains(a.kind)) return INVALID_VALUE;
        // after a kernel fault NVIDIA's driver answers the sticky error (seen on the H200); the
        // memory goes with the context
        int sticky = a.context.stickyError();
        if (sticky != SUCCESS) return sticky;
        a.context.allocations.remove(a);
        freeAllocation(a);
        return SUCCESS;
    }

    // ---------------------------------------------------------------- graph memory

    /**
     * Reserves device memory for a graph's mem alloc node (CUDA Driver API, cuGraphAddMemAllocNode): the address is
     * fixed now; the memory joins the allocation map only when the node runs ({@link #map}). Its allocation's own
     * {@code free()} gives nothing back, so that {@code cuMemFree} of graph memory only unmaps it; the backend memory
     * goes when the last graph holding it does ({@link Graph.GraphMemory#release()}).
     *
     * @param out receives the reservation on CUDA_SUCCESS
     * @return CUDA_SUCCESS, CUDA_ERROR_INVALID_VALUE for a size of 0, CUDA_ERROR_OUT_OF_MEMORY, or the context check's error
     */
    int reserveGraphMemory(long bytes, Graph.GraphMemory[] out) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (bytes <= 0) return INVALID_VALUE;
        if (used.get() + bytes > state.totalMemory) return OUT_OF_MEMORY;
        Backend.DeviceMemory m;
        try {
            m = state.backend().allocate(bytes);
        } catch (BackendException e) {
            return e.cuResult;
        }
        Allocation a = new Allocation(Allocation.Kind.DEVICE, m.address(), bytes, state.current(), 0, bufferIds.incrementAndGet(), null, null);
        out[0] = new Graph.GraphMemory(m.address(), bytes, a, m.release());
        return SUCCESS;
    }

    /** Makes graph memory accessible (its alloc node ran); false when it was mapped already. */
    boolean map(Allocation a) {
        if (allocations.putIfAbsent(a.address, a) != null) return false;
        used.addAndGet(a.size);
        a.context.allocations.add(a);
        return true;
    }

    /** Makes graph memory inaccessible (a free node ran, or its graphs are gone); false when it was not mapped. */
    boolean unmap(Allocation a) {
        if (!allocations.remove(a.address, a)) return false;
        used.addAndGet(-a.size);
        a.context.allocations.remove(a);
        return true;
    }

    // ---------------------------------------------------------------- allocation

    public int cuMemAlloc_v2(long dptr, long bytesize) {
        return allocate(Allocation.Kind.DEVICE, dptr, bytesize, 0);
    }

    public int cuMemFree_v2(long dptr) {
        return free(dptr, Allocation.Kind.DEVICE, Allocation.Kind.MANAGED);
    }

    /**
     * cuMemAllocPitch: Height rows of WidthInBytes bytes, each row {@link #PITCH_ALIGNMENT}-aligned. Both sizes are
     * size_t; a row pitch or a total that does not fit in 64 bits is CUDA_ERROR_INVALID_VALUE, a total larger than
     * the memory left CUDA_ERROR_OUT_OF_MEMORY (as recorded on the H200, samples/traces/h200/misuse).
     */
    public int cuMemAllocPitch_v2(long dptr, long pPitch, long WidthInBytes, long Height, int ElementSizeBytes) {
        if (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16) return INVALID_VALUE;
        if (pPitch == 0 || WidthInBytes == 0 || Height == 0) return INVALID_VALUE;
        if (WidthInBytes < 0 || WidthInBytes > Long.MAX_VALUE - (PITCH_ALIGNMENT - 1) || Height < 0) return INVALID_VALUE;
        long pitch = (WidthInBytes + PITCH_ALIGNMENT - 1) / PITCH_ALIGNMENT * PITCH_ALIGNMENT;
        if (Math.multiplyHigh(pitch, Height) != 0 || pitch * Height < 0) return INVALID_VALUE; // 2^63 bytes or more
        int r = allocate(Allocation.Kind.DEVICE, dptr, pitch * Height, 0);
        if (r == SUCCESS) putLong(pPitch, pitch);
        return r;
    }

    public int cuMemAllocManaged(long dptr, long bytesize, int flags) {
        if (flags != 1 && flags != 2) return INVALID_VALUE; // CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST
        return allocate(Allocation.Kind.MANAGED, dptr, bytesize, flags);
    }

    public int cuMemGetInfo_v2(long free, long total) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        // either may be NULL (NVIDIA's driver answers SUCCESS for both NULL: samples/traces/h200/misuse)
        if (free != 0) putLong(free, Math.max(0, state.totalMemory - used.get()));
        if (total != 0) putLong(total, state.totalMemory);
        return SUCCESS;
    }

    public int cuMemGetAddressRange_v2(long pbase, long psize, long dptr) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        Allocation a = find(dptr, 0);
        if (a == null) return NOT_FOUND;
        long[] range = range(a);
        if (pbase != 0) putLong(pbase, range[0]);
        if (psize != 0) putLong(psize, range[1]);
        return SUCCESS;
    }

    /**
     * The range an allocation is part of, as {first address, bytes}: the allocation itself, or for a virtual memory
     * mapping the run of accessible mappings adjoining it on both sides (allocations mapped side by side are one range:
     * an H200 reports the whole of a reservation that two mappings fill, src/test/resources/coop/h200/results.tsv).
     */
    long[] range(Allocation a) {
        if (a.kind != Allocation.Kind.VIRTUAL) return new long[] {a.address, a.size};
        long start = a.address, end = a.address + a.size;
        while (true) {
            var below = allocations.floorEntry(start - 1);
            if (below == null || below.getValue().kind != Allocation.Kind.VIRTUAL || below.getKey() + below.getValue().size != start) break;
            start = below.getKey();
        }
        for (Allocation next; (next = allocations.get(end)) != null && next.kind == Allocation.Kind.VIRTUAL; ) end += next.size;
        return new long[] {start, end - start};
    }

    public int cuMemAllocHost_v2(long pp, long bytesize) {
        return allocate(Allocation.Kind.HOST_ALLOC, pp, bytesize, 0);
    }

    public int cuMemHostAlloc(long pp, long bytesize, int Flags) {
        if ((Flags & ~0x7) != 0) return INVALID_VALUE; // PORTABLE | DEVICEMAP | WRITECOMBINED
        return allocate(Allocation.Kind.HOST_ALLOC, pp, bytesize, Flags);
    }

    public int cuMemFreeHost(long p) {
        if (p == 0) return INVALID_VALUE;
        return free(p, Allocation.Kind.HOST_ALLOC);
    }

    public int cuMemHostGetDevicePointer_v2(long pdptr, long p, int Flags) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (pdptr == 0 || Flags != 0) return INVALID_VALUE;
        if (!state.backend().deviceSeesHostMemory()) return NOT_SUPPORTED; // device memory and the program's host memory are apart
        Allocation a = find(p, 0);
        if (a == null || (a.kind != Allocation.Kind.HOST_ALLOC && a.kind != Allocation.Kind.HOST_REGISTERED)) return INVALID_VALUE;
        putLong(pdptr, p); // unified addressing: the device sees host memory at the same address
        return SUCCESS;
    }

    public int cuMemHostGetFlags(long pFlags, long p) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (pFlags == 0) return INVALID_VALUE;
        Allocation a = find(p, 0);
        if (a == null || a.kind != Allocation.Kind.HOST_ALLOC) return INVALID_VALUE;
        putInt(pFlags, a.flags | 0x2); // CU_MEMHOSTALLOC_DEVICEMAP is implied with unified addressing
        return SUCCESS;
    }

    public int cuMemHostRegister_v2(long p, long bytesize, int Flags) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (p == 0 || bytesize == 0 || (Flags & ~0xF) != 0) return INVALID_VALUE;
        if (!state.backend().deviceSeesHostMemory()) return NOT_SUPPORTED; // kernels on the device would not see it
        // memory that is not mapped cannot be registered (INVALID_VALUE, as NVIDIA's driver answers)
        if (!UserMemory.readable(p, bytesize)) return INVALID_VALUE;
        var below = allocations.floorEntry(p + bytesize - 1);
        if (below != null && below.getValue().address + below.getValue().size > p) return HOST_MEMORY_ALREADY_REGISTERED;
        Allocation a = new Allocation(Allocation.Kind.HOST_REGISTERED, p, bytesize, state.current(), Flags, bufferIds.incrementAndGet(), null);
        allocations.put(p, a);
        state.current().allocations.add(a);
        return SUCCESS;
    }

    public int cuMemHostUnregister(long p) {
        if (!state.initialized) return NOT_INITIALIZED;
        Allocation a = allocations.get(p);
        if (a == null || a.kind != Allocation.Kind.HOST_REGISTERED) return HOST_MEMORY_NOT_REGISTERED;
        a.context.allocations.remove(a);
        freeAllocation(a);
        return SUCCESS;
    }

    // ---------------------------------------------------------------- pointer attributes

    /**
     * Writes one attribute of the memory at ptr (CUDA Driver API, cuPointerGetAttribute). Booleans
     * and enums are 4 bytes; handles, pointers, sizes and ids 8.
     *
     * @return SUCCESS, INVALID_VALUE for memory the driver does not know (when {@code strict}) or an
     *     attribute it does not have
     */
    private int pointerAttribute(long data, int attribute, long ptr, boolean strict) {
        Allocation a = find(ptr, 0);
        String name = null;
        for (var e : pointerAttribute.entrySet()) if (e.getValue() == attribute) name = e.getKey();
        if (name == null) return INVALID_VALUE;
        if (a == null) {
            if (strict) return INVALID_VALUE;
            // cuPointerGetAttributes: unknown memory gets zero values
            boolean wide = switch (name) {
                case "CONTEXT", "DEVICE_POINTER", "HOST_POINTER", "BUFFER_ID", "RANGE_START_ADDR", "RANGE_SIZE",
                     "ALLOWED_HANDLE_TYPES", "MEMPOOL_HANDLE", "MAPPING_SIZE", "MAPPING_BASE_ADDR", "MEMORY_BLOCK_ID", "P2P_TOKENS" -> true;
                default -> false;
            };
            if (name.equals("DEVICE_ORDINAL")) putInt(data, -2);
            else if (wide) putLong(data, 0);
            else putInt(data, 0);
            return SUCCESS;
        }
        boolean host = a.kind == Allocation.Kind.HOST_ALLOC || a.kind == Allocation.Kind.HOST_REGISTERED;
        switch (name) {
            case "CONTEXT" -> putLong(data, a.context == null ? 0 : a.context.handle);
            case "MEMORY_TYPE" -> putInt(data, a.memoryType());
            case "DEVICE_POINTER" -> putLong(data, ptr);
            case "HOST_POINTER" -> {
                // device memory has no host mapping: an error for cuPointerGetAttribute, NULL for
                // cuPointerGetAttributes (cuda.h: "attributes are assigned default NULL values"; cudart relies on it)
                boolean deviceOnly = a.kind == Allocation.Kind.DEVICE || a.kind == Allocation.Kind.VIRTUAL;
                if (deviceOnly && strict) return INVALID_VALUE;
                putLong(data, deviceOnly ? 0 : ptr);
            }
            case "SYNC_MEMOPS" -> putInt(data, 1);
            case "BUFFER_ID" -> putLong(data, a.bufferId);
            case "IS_MANAGED" -> putInt(data, a.kind == Allocation.Kind.MANAGED ? 1 : 0);
            case "DEVICE_ORDINAL" -> putInt(data, host ? -1 : a.context == null ? 0 : a.context.device);
            case "IS_LEGACY_CUDA_IPC_CAPABLE", "IS_GPU_DIRECT_RDMA_CAPABLE", "IS_HW_DECOMPRESS_CAPABLE" -> putInt(data, 0);
            case "RANGE_START_ADDR" -> putLong(data, range(a)[0]);
            case "RANGE_SIZE" -> putLong(data, range(a)[1]);
            case "MAPPED" -> putInt(data, 1);
            case "ALLOWED_HANDLE_TYPES" -> putLong(data, a.kind == Allocation.Kind.VIRTUAL && virtualMemory != null ? virtualMemory.handleTypes(ptr) : 0);
            case "ACCESS_FLAGS" -> putInt(data, 3); // CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE
            case "MEMPOOL_HANDLE" -> putLong(data, 0);
            case "MAPPING_SIZE" -> putLong(data, a.size);
            case "MAPPING_BASE_ADDR" -> putLong(data, a.address);
            case "MEMORY_BLOCK_ID" -> putLong(data, a.bufferId);
            default -> {
                return strict ? INVALID_VALUE : SUCCESS; // P2P_TOKENS: no peer-to-peer
            }
        }
        return SUCCESS;
    }

    public int cuPointerGetAttribute(long data, int attribute, long ptr) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (data == 0) return INVALID_VALUE;
        return pointerAttribute(data, attribute, ptr, true);
    }

    public int cuPointerGetAttributes(int numAttributes, long attributes, long data, long ptr) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (numAttributes <= 0 || attributes == 0 || data == 0) return INVALID_VALUE;
        if (!UserMemory.readable(attributes, 4L * numAttributes) || !UserMemory.readable(data, 8L * numAttributes)) return INVALID_VALUE;
        for (int i = 0; i < numAttributes; i++) {
            int attr = getInt(attributes + 4L * i);
            long slot = getLong(data + 8L * i);
            if (slot == 0) continue;
            int r = pointerAttribute(slot, attr, ptr, false);
            if (r != SUCCESS) return r;
        }
        return SUCCESS;
    }

    public int cuPointerSetAttribute(long value, int attribute, long ptr) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (attribute != pointerAttribute.get("SYNC_MEMOPS") || value == 0) return INVALID_VALUE;
        return find(ptr, 0) == null ? INVALID_VALUE : SUCCESS; // every operation is synchronous already
    }
}
