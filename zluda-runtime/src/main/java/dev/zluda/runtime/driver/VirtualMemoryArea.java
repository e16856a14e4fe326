package dev.zluda.runtime.driver;

import dev.zluda.runtime.api.CudaStructs.CUmemAccessDesc;
import dev.zluda.runtime.api.CudaStructs.CUmemAllocationProp;
import dev.zluda.runtime.api.CudaStructs.CUmemLocation;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static dev.zluda.runtime.driver.CuResult.*;
import static dev.zluda.runtime.driver.Native.at;
import static dev.zluda.runtime.driver.Native.putInt;
import static dev.zluda.runtime.driver.Native.putLong;

/**
 * Virtual memory management (CUDA Driver API group CUDA_VA): address reservations, physical allocations
 * ({@code CUmemGenericAllocationHandle}), mappings of one into the other, access rights, and sharing an allocation
 * with another process through a file descriptor.
 *
 * <p>The emulator's device memory is the process's memory, so this is the process's address space
 * ({@link AddressSpace}): a reservation is inaccessible address space; a physical allocation an anonymous memory file;
 * {@code cuMemMap} maps the file into the reservation, so an allocation mapped at two addresses is the same memory at
 * both, for the host and for kernels. A mapping is device memory that kernels, copies and pointer queries see
 * ({@link MemoryArea#allocations()}, {@link Allocation.Kind#VIRTUAL}) from the moment {@code cuMemSetAccess} grants
 * the device read-write access until it is revoked or unmapped; before that a kernel touching it faults with
 * CUDA_ERROR_ILLEGAL_ADDRESS and a copy is CUDA_ERROR_INVALID_VALUE, as an inaccessible range is on NVIDIA's driver.
 *
 * <p>Granularity: 2 MiB, minimum and recommended, the figure NVIDIA's driver gives for device memory of an H200
 * (the emulator could map at the 4 KiB page size; programs size and align by what it reports, so it reports the
 * GPU's). Limits of this implementation, each CUDA_ERROR_NOT_SUPPORTED with a line on stderr: only device-located
 * pinned allocations (not {@code CU_MEM_LOCATION_TYPE_HOST*}, managed or tile-pool ones), read-write access only
 * ({@code CU_MEM_ACCESS_FLAGS_PROT_READ} alone would need a read-only check the emulator's memory map has not),
 * sharing through POSIX file descriptors only (not fabric or Win32 handles), no sparse arrays
 * ({@code cuMemMapArrayAsync}), and none of it on the hip backend. Compression is never granted: the properties
 * read back say {@code CU_MEM_ALLOCATION_COMP_NONE}.
 */
final class VirtualMemoryArea {
    /** CU_MEM_ALLOC_GRANULARITY_MINIMUM and _RECOMMENDED: bytes. */
    static final long GRANULARITY = 2L << 20;
    /** The host page size: reservations are multiples of it (cuMemAddressReserve). */
    static final long PAGE = 4096;
    /** CUmemAllocationType, CUmemLocationType, CUmemAllocationHandleType, CUmemAccess_flags values (cuda.h). */
    static final int ALLOCATION_TYPE_PINNED = 1, LOCATION_TYPE_DEVICE = 1, HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 1,
            ACCESS_NONE = 0, ACCESS_READ = 1, ACCESS_READWRITE = 3;

    /** A physical allocation: an anonymous memory file; freed when released and unmapped everywhere. */
    private static final class Physical {
        final long handle;
        final int fd;
        final long size;
        /** The CUmemAllocationProp it was created with, as read back by cuMemGetAllocationPropertiesFromHandle. */
        final byte[] prop;
        /** References: cuMemCreate / import, plus one per cuMemRetainAllocationHandle, less one per cuMemRelease. */
        int references = 1;
        /** Live mappings of it. */
        int mappings;
        /** Whether it counts against this device's memory (made here, not imported). */
        final boolean charged;

        Physical(long handle, int fd, long size, byte[] prop, boolean charged) {
            this.handle = handle;
            this.fd = fd;
            this.size = size;
            this.prop = prop;
            this.charged = charged;
        }
    }

    /** A mapping of a whole physical allocation into a reservation. */
    private static final class Mapping {
        final long address, size;
        final Physical physical;
        int access = ACCESS_NONE;
        /** What kernels and copies see while the device may access it, else null. */
        Allocation visible;

        Mapping(long address, long size, Physical physical) {
            this.address = address;
            this.size = size;
            this.physical = physical;
        }
    }

    private final DriverState state;
    private final MemoryArea memory;
    private final Handles<Physical> handles = new Handles<>(0x30);
    /** Reservations by first address: size in bytes. */
    private final TreeMap<Long, Long> reservations = new TreeMap<>();
    /** Mappings by first address. */
    private final TreeMap<Long, Mapping> mappings = new TreeMap<>();

    VirtualMemoryArea(DriverState state, MemoryArea memory) {
        this.state = state;
        this.memory = memory;
    }

    /** SUCCESS, or why this driver cannot serve the call at all. */
    private int usable() {
        if (!state.initialized) return NOT_INITIALIZED;
        if (!state.backend().deviceSeesHostMemory()) {
            state.note("virtual memory management is not supported on the " + state.backend().kind() + " backend");
            return NOT_SUPPORTED;
        }
        return SUCCESS;
    }

    /** The reservation that holds [p, p + size), as {first address, size}, or null. */
    private long[] reservation(long p, long size) {
        Map.Entry<Long, Long> e = reservations.floorEntry(p);
        if (e == null || size < 0 || p - e.getKey() > e.getValue() - size) return null;
        return new long[] {e.getKey(), e.getValue()};
    }

    /** The mapping that holds p, or null. */
    private Mapping mappingAt(long p) {
        Map.Entry<Long, Mapping> e = mappings.floorEntry(p);
        if (e == null || p - e.getKey() >= e.getValue().size) return null;
        return e.getValue();
    }

    /** The mappings that together are exactly [p, p + size) (consecutive, whole), or null. */
    private List<Mapping> exactly(long p, long size) {
        List<Mapping> out = new ArrayList<>();
        long at = p, end = p + size;
        while (at < end) {
            Mapping m = mappings.get(at);
            if (m == null || m.address + m.size > end) return null;
            out.add(m);
            at += m.size;
        }
        return out.isEmpty() ? null : out;
    }

    private static boolean powerOfTwo(long v) {
        return v > 0 && (v & (v - 1)) == 0;
    }

    // ---------------------------------------------------------------- address reservations

    /**
     * cuMemAddressReserve: {@code size} bytes (a multiple of the page size) of inaccessible address space aligned to
     * {@code alignment} (0: the granularity; else a power of two), at {@code addr} when that range is free (a hint);
     * flags must be 0. CUDA_ERROR_OUT_OF_MEMORY when the system has no such range.
     */
    public synchronized int cuMemAddressReserve(long ptr, long size, long alignment, long addr, long flags) {
        int r = usable();
        if (r != SUCCESS) return r;
        if (ptr == 0 || size <= 0 || size % PAGE != 0 || flags != 0 || addr % PAGE != 0) return INVALID_VALUE;
        if (alignment != 0 && !powerOfTwo(alignment)) return INVALID_VALUE;
        long align = Math.max(alignment == 0 ? GRANULARITY : alignment, PAGE);
        try {
            long p = AddressSpace.reserve(size, align, addr);
            reservations.put(p, size);
            putLong(ptr, p);
            return SUCCESS;
        } catch (AddressSpace.OsError e) {
            return OUT_OF_MEMORY;
        }
    }

    /**
     * cuMemAddressFree: a whole reservation ({@code ptr} and {@code size} as cuMemAddressReserve gave and took). Its
     * mappings must have been unmapped: CUDA_ERROR_INVALID_VALUE while some remain.
     */
    public synchronized int cuMemAddressFree(long ptr, long size) {
        int r = usable();
        if (r != SUCCESS) return r;
        Long s = reservations.get(ptr);
        if (s == null || s != size) return INVALID_VALUE;
        Map.Entry<Long, Mapping> m = mappings.ceilingEntry(ptr);
        if (m != null && m.getKey() < ptr + size) return INVALID_VALUE;
        try {
            AddressSpace.unmap(ptr, size);
        } catch (AddressSpace.OsError e) {
            return UNKNOWN;
        }
        reservations.remove(ptr);
        return SUCCESS;
    }

    // ---------------------------------------------------------------- physical allocations

    /**
     * cuMemCreate: a physical allocation of {@code size} bytes (a multiple of the granularity) for device 0, of type
     * CU_MEM_ALLOCATION_TYPE_PINNED at a CU_MEM_LOCATION_TYPE_DEVICE location, exportable as a POSIX file descriptor
     * when {@code requestedHandleTypes} says so. flags must be 0. It counts against the device's memory
     * (cuMemGetInfo); CUDA_ERROR_OUT_OF_MEMORY past it.
     */
    public synchronized int cuMemCreate(long handle, long size, long prop, long flags) {
        int r = usable();
        if (r != SUCCESS) return r;
        if (handle == 0 || prop == 0 || size <= 0 || size % GRANULARITY != 0 || flags != 0) return INVALID_VALUE;
        r = checkProp(prop);
        if (r != SUCCESS) return r;
        int handleTypes = CUmemAllocationProp.requestedHandleTypes(prop);
        if ((handleTypes & ~HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) != 0) {
            state.note("cuMemCreate: shareable handle types " + handleTypes + ": only POSIX file descriptors (1) are supported");
            return NOT_SUPPORTED;
        }
        if (!memory.charge(size)) return OUT_OF_MEMORY;
        int fd;
        try {
            fd = AddressSpace.createFile("zluda-cuMemCreate", size);
        } catch (AddressSpace.OsError e) {
            memory.credit(size);
            return OUT_OF_MEMORY;
        }
        byte[] p = at(prop, CUmemAllocationProp.SIZE).toArray(ValueLayout.JAVA_BYTE);
        p[CUmemAllocationProp.OFF_allocFlags_compressionType] = 0; // never compressible here
        long h = handles.reserve();
        handles.put(h, new Physical(h, fd, size, p, true));
        putLong(handle, h);
        return SUCCESS;
    }

    /** The checks of a CUmemAllocationProp both cuMemCreate and cuMemGetAllocationGranularity make. */
    private int checkProp(long prop) {
        int type = CUmemAllocationProp.type(prop), loc = CUmemAllocationProp.location_type(prop), id = CUmemAllocationProp.location_id(prop);
        if (type != ALLOCATION_TYPE_PINNED || loc != LOCATION_TYPE_DEVICE) {
            if (type == 0 || loc == 0 || loc > 4) return INVALID_VALUE;
            state.note("cuMemCreate: allocation type " + type + " at location type " + loc
                    + ": only pinned device memory (CU_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_LOCATION_TYPE_DEVICE) is supported");
            return NOT_SUPPORTED;
        }
        if (id != 0) return INVALID_DEVICE;
        if ((CUmemAllocationProp.allocFlags_usage(prop) & 0xFFFF) != 0) {
            state.note("cuMemCreate: allocFlags.usage " + CUmemAllocationProp.allocFlags_usage(prop) + " (tile pools for sparse arrays) is not supported");
            return NOT_SUPPORTED;
        }
        return SUCCESS;
    }

    /**
     * cuMemRelease: gives up one reference to an allocation (cuMemCreate's, an import's or a retain's); the memory goes
     * when no reference and no mapping remains. An unknown handle: CUDA_ERROR_INVALID_VALUE.
     */
    public synchronized int cuMemRelease(long handle) {
        int r = usable();
        if (r != SUCCESS) return r;
        Physical p = handles.get(handle);
        if (p == null || p.references == 0) return INVALID_VALUE;
        p.references--;
        freeIfUnused(p);
        return SUCCESS;
    }

    private void freeIfUnused(Physical p) {
        if (p.references > 0 || p.mappings > 0) return;
        handles.remove(p.handle);
        AddressSpace.close(p.fd);
        if (p.charged) memory.credit(p.size);
    }

    /**
     * cuMemGetAllocationGranularity: {@link #GRANULARITY} for either option, for pinned memory at a device or host
     * location (an H200 answers 2 MiB for both; cuMemCreate serves device locations only).
     */
    public int cuMemGetAllocationGranularity(long granularity, long prop, int option) {
        int r = usable();
        if (r != SUCCESS) return r;
        if (granularity == 0 || prop == 0 || (option != 0 && option != 1)) return INVALID_VALUE;
        int loc = CUmemAllocationProp.location_type(prop);
        if (CUmemAllocationProp.type(prop) != ALLOCATION_TYPE_PINNED || loc < LOCATION_TYPE_DEVICE || loc > 4) {
            r = checkProp(prop);
            if (r != SUCCESS) return r;
        }
        if (loc == LOCATION_TYPE_DEVICE && CUmemAllocationProp.location_id(prop) != 0) return INVALID_DEVICE;
        putLong(granularity, GRANULARITY);
        return SUCCESS;
    }

    /** cuMemGetAllocationPropertiesFromHandle: the properties the allocation was created with (compression: none). */
    public synchronized int cuMemGetAllocationPropertiesFromHandle(long prop, long handle) {
        int r = usable();
        if (r != SUCCESS) return r;
        Physical p = handles.get(handle);
        if (prop == 0 || p == null) return INVALID_VALUE;
        MemorySegment.copy(p.prop, 0, at(prop, p.prop.length), ValueLayout.JAVA_BYTE, 0, p.prop.length);
        return SUCCESS;
    }

    /**
     * cuMemRetainAllocationHandle: the handle of the allocation mapped at {@code addr} (any address of a mapping), with
     * one more reference to release. Not mapped: CUDA_ERROR_INVALID_VALUE.
     */
    public synchronized int cuMemRetainAllocationHandle(long handle, long addr) {
        int r = usable();
        if (r != SUCCESS) return r;
        Mapping m = mappingAt(addr);
        if (handle == 0 || m == null) return INVALID_VALUE;
        m.physical.references++;
        putLong(handle, m.physical.handle);
        return SUCCESS;
    }

    // ---------------------------------------------------------------- mappings and access

    /**
     * cuMemMap: maps a whole allocation ({@code offset} 0, {@code size} its size; CUDA 13.0 requires offset 0) at
     * {@code ptr}, a multiple of the granularity inside one reservation where nothing is mapped yet. flags must be 0.
     * The mapping is inaccessible until cuMemSetAccess.
     */
    public synchronized int cuMemMap(long ptr, long size, long offset, long handle, long flags) {
        int r = usable();
        if (r != SUCCESS) return r;
        Physical p = handles.get(handle);
        if (p == null || p.references == 0 || flags != 0 || offset != 0) return INVALID_VALUE;
        if (size <= 0 || size % GRANULARITY != 0 || ptr % GRANULARITY != 0 || size > p.size) return INVALID_VALUE;
        if (reservation(ptr, size) == null) return INVALID_VALUE;
        Map.Entry<Long, Mapping> below = mappings.floorEntry(ptr + size - 1);
        if (below != null && below.getKey() + below.getValue().size > ptr) return INVALID_VALUE; // already mapped there
        try {
            AddressSpace.mapFile(ptr, size, p.fd, offset);
        } catch (AddressSpace.OsError e) {
            return e.errno == AddressSpace.ENOMEM ? OUT_OF_MEMORY : UNKNOWN;
        }
        mappings.put(ptr, new Mapping(ptr, size, p));
        p.mappings++;
        return SUCCESS;
    }

    /**
     * cuMemUnmap: unmaps whole mappings that together are exactly [ptr, ptr + size) (not part of one:
     * CUDA_ERROR_INVALID_VALUE); the range is reserved and inaccessible again, and an allocation released and mapped
     * nowhere else is freed.
     */
    public synchronized int cuMemUnmap(long ptr, long size) {
        int r = usable();
        if (r != SUCCESS) return r;
        List<Mapping> ms = exactly(ptr, size);
        if (ms == null) return INVALID_VALUE;
        try {
            AddressSpace.clear(ptr, size);
        } catch (AddressSpace.OsError e) {
            return UNKNOWN;
        }
        for (Mapping m : ms) {
            hide(m);
            mappings.remove(m.address);
            m.physical.mappings--;
            freeIfUnused(m.physical);
        }
        return SUCCESS;
    }

    private void hide(Mapping m) {
        if (m.visible != null) {
            memory.unregister(m.visible);
            m.visible = null;
        }
    }

    /**
     * cuMemSetAccess: sets device 0's access to whole mappings that together are exactly [ptr, ptr + size):
     * CU_MEM_ACCESS_FLAGS_PROT_READWRITE makes them device memory kernels and copies may use, PROT_NONE takes that
     * back. Locations other than device 0 (CU_MEM_LOCATION_TYPE_DEVICE, id 0): CUDA_ERROR_INVALID_DEVICE or
     * CUDA_ERROR_INVALID_VALUE; PROT_READ alone: CUDA_ERROR_NOT_SUPPORTED.
     */
    public synchronized int cuMemSetAccess(long ptr, long size, long desc, long count) {
        int r = usable();
        if (r != SUCCESS) return r;
        if (desc == 0 || count <= 0) return INVALID_VALUE;
        List<Mapping> ms = exactly(ptr, size);
        if (ms == null) return INVALID_VALUE;
        int access = -1;
        for (long i = 0; i < count; i++) {
            long d = desc + i * CUmemAccessDesc.SIZE;
            int type = CUmemAccessDesc.location_type(d), id = CUmemAccessDesc.location_id(d), flags = CUmemAccessDesc.flags(d);
            if (type != LOCATION_TYPE_DEVICE) return INVALID_VALUE;
            if (id != 0) return INVALID_DEVICE;
            if (flags != ACCESS_NONE && flags != ACCESS_READ && flags != ACCESS_READWRITE) return INVALID_VALUE;
            if (flags == ACCESS_READ) {
                state.note("cuMemSetAccess: read-only access (CU_MEM_ACCESS_FLAGS_PROT_READ) is not supported; PROT_READWRITE and PROT_NONE are");
                return NOT_SUPPORTED;
            }
            access = flags;
        }
        Context c = state.current();
        for (Mapping m : ms) {
            m.access = access;
            hide(m);
            if (access == ACCESS_READWRITE) {
                m.visible = memory.register(Allocation.Kind.VIRTUAL, m.address, m.size, c, m.physical.handle);
            }
        }
        return SUCCESS;
    }

    /** cuMemGetAccess: device 0's access flags to the mapping that holds {@code ptr} (not mapped: CUDA_ERROR_INVALID_VALUE). */
    public synchronized int cuMemGetAccess(long flags, long location, long ptr) {
        int r = usable();
        if (r != SUCCESS) return r;
        if (flags == 0 || location == 0) return INVALID_VALUE;
        if (CUmemLocation.type(location) != LOCATION_TYPE_DEVICE) return INVALID_VALUE;
        if (CUmemLocation.id(location) != 0) return INVALID_DEVICE;
        Mapping m = mappingAt(ptr);
        if (m == null) return INVALID_VALUE;
        putLong(flags, m.access);
        return SUCCESS;
    }

    /** The requested handle types of the allocation mapped at an address (CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES), 0 when none. */
    synchronized long handleTypes(long address) {
        Mapping m = mappingAt(address);
        return m == null ? 0 : Integer.toUnsignedLong(MemorySegment.ofArray(m.physical.prop).get(ValueLayout.JAVA_INT_UNALIGNED,
                CUmemAllocationProp.OFF_requestedHandleTypes));
    }

    // ---------------------------------------------------------------- sharing

    /**
     * cuMemExportToShareableHandle: a new file descriptor of the allocation (an {@code int} at {@code shareableHandle}),
     * for CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR when the allocation was created to allow it (else
     * CUDA_ERROR_INVALID_VALUE); the caller closes it. Other handle types: CUDA_ERROR_NOT_SUPPORTED.
     */
    public synchronized int cuMemExportToShareableHandle(long shareableHandle, long handle, int handleType, long flags) {
        int r = usable();
        if (r != SUCCESS) return r;
        Physical p = handles.get(handle);
        if (shareableHandle == 0 || p == null || flags != 0) return INVALID_VALUE;
        if (handleType != HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
            state.note("cuMemExportToShareableHandle: handle type " + handleType + ": only POSIX file descriptors (1) are supported");
            return NOT_SUPPORTED;
        }
        int allowed = MemorySegment.ofArray(p.prop).get(ValueLayout.JAVA_INT_UNALIGNED, CUmemAllocationProp.OFF_requestedHandleTypes);
        if ((allowed & HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) == 0) return INVALID_VALUE;
        try {
            putInt(shareableHandle, AddressSpace.dup(p.fd));
            return SUCCESS;
        } catch (AddressSpace.OsError e) {
            return OUT_OF_MEMORY;
        }
    }

    /**
     * cuMemImportFromShareableHandle: an allocation from a file descriptor another process (or this one) exported
     * ({@code osHandle} is the descriptor's value), as a new handle of its own with one reference; the caller keeps its
     * descriptor. Its size is the file's; its properties read back as pinned device memory with no shareable handle
     * types, as an H200's do. Other handle types: CUDA_ERROR_NOT_SUPPORTED.
     */
    public synchronized int cuMemImportFromShareableHandle(long handle, long osHandle, int shHandleType) {
        int r = usable();
        if (r != SUCCESS) return r;
        if (handle == 0) return INVALID_VALUE;
        if (shHandleType != HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
            state.note("cuMemImportFromShareableHandle: handle type " + shHandleType + ": only POSIX file descriptors (1) are supported");
            return NOT_SUPPORTED;
        }
        int fd;
        long size;
        try {
            size = AddressSpace.fileSize((int) osHandle);
            if (size <= 0 || size % GRANULARITY != 0) return INVALID_VALUE;
            fd = AddressSpace.dup((int) osHandle);
        } catch (AddressSpace.OsError e) {
            return INVALID_VALUE;
        }
        byte[] prop = new byte[CUmemAllocationProp.SIZE];
        MemorySegment s = MemorySegment.ofArray(prop);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, CUmemAllocationProp.OFF_type, ALLOCATION_TYPE_PINNED);
        // requestedHandleTypes stays 0: what an H200 reads back for an imported allocation (src/test/resources/coop/h200)
        s.set(ValueLayout.JAVA_INT_UNALIGNED, CUmemAllocationProp.OFF_location_type, LOCATION_TYPE_DEVICE);
        long h = handles.reserve();
        handles.put(h, new Physical(h, fd, size, prop, false));
        putLong(handle, h);
        return SUCCESS;
    }
}
