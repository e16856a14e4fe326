package dev.zluda.runtime.driver;

import dev.zluda.runtime.api.CudaStructs.CUmemAccessDesc;
import dev.zluda.runtime.api.CudaStructs.CUmemAllocationProp;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Virtual memory management (CUDA Driver API, "Virtual Memory Management"): reservations, physical allocations,
 * mappings, access, sharing through a file descriptor, as PyTorch's expandable segments use them (reserve a large
 * range, map allocations side by side into it, set access over the whole, unmap and release in any order).
 */
class VirtualMemoryLayerTest extends DriverTestBase {
    static final int SUCCESS = 0, INVALID_VALUE = 1, NOT_SUPPORTED = 801;
    static final long MIB2 = 2L << 20;

    MemorySegment prop(int handleTypes) {
        MemorySegment p = mem(CUmemAllocationProp.SIZE);
        CUmemAllocationProp.type(p.address(), 1); // CU_MEM_ALLOCATION_TYPE_PINNED
        CUmemAllocationProp.location_type(p.address(), 1); // CU_MEM_LOCATION_TYPE_DEVICE
        CUmemAllocationProp.location_id(p.address(), 0);
        CUmemAllocationProp.requestedHandleTypes(p.address(), handleTypes);
        return p;
    }

    MemorySegment access(int flags) {
        MemorySegment a = mem(CUmemAccessDesc.SIZE);
        CUmemAccessDesc.location_type(a.address(), 1);
        CUmemAccessDesc.location_id(a.address(), 0);
        CUmemAccessDesc.flags(a.address(), flags);
        return a;
    }

    long create(long size, int handleTypes) {
        MemorySegment h = mem(8);
        assertEquals(SUCCESS, d.cuMemCreate(addr(h), size, addr(prop(handleTypes)), 0));
        return i64(h);
    }

    long reserve(long size) {
        MemorySegment p = mem(8);
        assertEquals(SUCCESS, d.cuMemAddressReserve(addr(p), size, 0, 0, 0));
        return i64(p);
    }

    MemorySegment pattern(long n, int seed) {
        MemorySegment s = mem(n);
        for (long i = 0; i < n / 4; i++) s.setAtIndex(ValueLayout.JAVA_INT, i, (int) (i * 2654435761L) + seed);
        return s;
    }

    @Test
    void granularityAndAttributes() {
        initWithContext();
        MemorySegment g = mem(8), v = mem(4);
        assertEquals(SUCCESS, d.cuMemGetAllocationGranularity(addr(g), addr(prop(0)), 0));
        assertEquals(MIB2, i64(g), "CU_MEM_ALLOC_GRANULARITY_MINIMUM");
        assertEquals(SUCCESS, d.cuMemGetAllocationGranularity(addr(g), addr(prop(0)), 1));
        assertEquals(MIB2, i64(g), "CU_MEM_ALLOC_GRANULARITY_RECOMMENDED");
        MemorySegment host = prop(0);
        CUmemAllocationProp.location_type(host.address(), 2); // CU_MEM_LOCATION_TYPE_HOST
        assertEquals(SUCCESS, d.cuMemGetAllocationGranularity(addr(g), addr(host), 0), "answered for host memory too, as on the H200");
        assertEquals(MIB2, i64(g));
        var attr = dev.zluda.spec.CudaApi.get().enumType("CUdevice_attribute").orElseThrow();
        for (String name : new String[] {"CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED",
                "CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED"}) {
            assertEquals(SUCCESS, d.cuDeviceGetAttribute(addr(v), attr.valueOf(name).orElseThrow().intValue(), 0));
            assertEquals(1, i32(v), name);
        }
    }

    @Test
    void twoAllocationsSideBySideInOneReservationAreOneBuffer() {
        initWithContext();
        long size = 2 * MIB2;
        long va = reserve(4 * MIB2);
        assertEquals(0, va % MIB2, "aligned to the granularity");
        long a = create(size, 0), b = create(size, 0);
        assertNotEquals(a, b);
        assertEquals(INVALID_VALUE, d.cuMemcpyHtoD_v2(va, addr(mem(16)), 16), "nothing mapped yet");
        assertEquals(SUCCESS, d.cuMemMap(va, size, 0, a, 0));
        assertEquals(SUCCESS, d.cuMemMap(va + size, size, 0, b, 0));
        assertEquals(INVALID_VALUE, d.cuMemMap(va, size, 0, b, 0), "the range is mapped already");
        assertEquals(INVALID_VALUE, d.cuMemcpyHtoD_v2(va, addr(mem(16)), 16), "mapped, but no access granted yet");
        assertEquals(SUCCESS, d.cuMemSetAccess(va, 2 * size, addr(access(3)), 1));
        MemorySegment flags = mem(8), loc = mem(8);
        loc.set(ValueLayout.JAVA_INT, 0, 1);
        assertEquals(SUCCESS, d.cuMemGetAccess(addr(flags), addr(loc), va + size + 100));
        assertEquals(3, i64(flags), "CU_MEM_ACCESS_FLAGS_PROT_READWRITE");

        // one copy across the seam between the two allocations, and back
        MemorySegment src = pattern(2 * MIB2, 7), back = mem(2 * MIB2);
        long at = va + size - MIB2;
        assertEquals(SUCCESS, d.cuMemcpyHtoD_v2(at, addr(src), 2 * MIB2));
        assertEquals(SUCCESS, d.cuMemsetD32_v2(at + 64, 0x5a5a5a5a, 4));
        assertEquals(SUCCESS, d.cuMemcpyDtoH_v2(addr(back), at, 2 * MIB2));
        for (int i = 0; i < 4; i++) src.setAtIndex(ValueLayout.JAVA_INT, 16 + i, 0x5a5a5a5a);
        assertEquals(-1, src.mismatch(back));

        // the two mappings are one range, as the H200 reports a reservation two mappings fill
        MemorySegment base = mem(8), bytes = mem(8);
        assertEquals(SUCCESS, d.cuMemGetAddressRange_v2(addr(base), addr(bytes), va + size + 10));
        assertEquals(va, i64(base));
        assertEquals(2 * size, i64(bytes));

        // the handle behind an address, with a reference of its own
        MemorySegment h = mem(8);
        assertEquals(SUCCESS, d.cuMemRetainAllocationHandle(addr(h), va + size + 12345));
        assertEquals(b, i64(h));
        assertEquals(SUCCESS, d.cuMemRelease(b));
        assertEquals(SUCCESS, d.cuMemRelease(a));
        // released but mapped: still memory; the retained reference still releasable
        assertEquals(SUCCESS, d.cuMemcpyDtoH_v2(addr(back), va, 64));
        assertEquals(INVALID_VALUE, d.cuMemAddressFree(va, 4 * MIB2), "mappings remain");
        assertEquals(INVALID_VALUE, d.cuMemUnmap(va, MIB2), "part of a mapping");
        assertEquals(SUCCESS, d.cuMemUnmap(va, 2 * size));
        assertEquals(INVALID_VALUE, d.cuMemcpyDtoH_v2(addr(back), va, 64), "unmapped");
        assertEquals(SUCCESS, d.cuMemRelease(b), "the retained reference");
        assertEquals(INVALID_VALUE, d.cuMemRelease(b), "every reference released");
        assertEquals(SUCCESS, d.cuMemAddressFree(va, 4 * MIB2));
    }

    @Test
    void oneAllocationAtTwoAddressesIsTheSameMemory() {
        initWithContext();
        long h = create(MIB2, 0);
        long v1 = reserve(MIB2), v2 = reserve(MIB2);
        assertEquals(SUCCESS, d.cuMemMap(v1, MIB2, 0, h, 0));
        assertEquals(SUCCESS, d.cuMemMap(v2, MIB2, 0, h, 0));
        assertEquals(SUCCESS, d.cuMemSetAccess(v1, MIB2, addr(access(3)), 1));
        assertEquals(SUCCESS, d.cuMemSetAccess(v2, MIB2, addr(access(3)), 1));
        MemorySegment src = pattern(4096, 3), back = mem(4096);
        assertEquals(SUCCESS, d.cuMemcpyHtoD_v2(v1 + 8192, addr(src), 4096));
        assertEquals(SUCCESS, d.cuMemcpyDtoH_v2(addr(back), v2 + 8192, 4096));
        assertEquals(-1, src.mismatch(back));
        // device-to-device from one alias to the other
        assertEquals(SUCCESS, d.cuMemcpyDtoD_v2(v2, v1 + 8192, 4096));
        assertEquals(SUCCESS, d.cuMemcpyDtoH_v2(addr(back), v1, 4096));
        assertEquals(-1, src.mismatch(back));
        // revoking access at one address leaves the other usable
        assertEquals(SUCCESS, d.cuMemSetAccess(v1, MIB2, addr(access(0)), 1));
        assertEquals(INVALID_VALUE, d.cuMemcpyDtoH_v2(addr(back), v1, 16));
        assertEquals(SUCCESS, d.cuMemcpyDtoH_v2(addr(back), v2, 16));
        assertEquals(NOT_SUPPORTED, d.cuMemSetAccess(v1, MIB2, addr(access(1)), 1), "read-only access, said out loud");
        assertEquals(SUCCESS, d.cuMemUnmap(v1, MIB2));
        assertEquals(SUCCESS, d.cuMemUnmap(v2, MIB2));
        assertEquals(SUCCESS, d.cuMemRelease(h));
        assertEquals(SUCCESS, d.cuMemAddressFree(v1, MIB2));
        assertEquals(SUCCESS, d.cuMemAddressFree(v2, MIB2));
    }

    @Test
    void exportAndImportThroughAFileDescriptor() {
        initWithContext();
        long h = create(MIB2, 1); // CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
        long plain = create(MIB2, 0);
        MemorySegment fd = mem(8);
        assertEquals(INVALID_VALUE, d.cuMemExportToShareableHandle(addr(fd), plain, 1, 0), "not created exportable");
        assertEquals(SUCCESS, d.cuMemExportToShareableHandle(addr(fd), h, 1, 0));
        int exported = i32(fd);
        assertTrue(exported > 2, "a file descriptor: " + exported);
        MemorySegment imported = mem(8);
        assertEquals(SUCCESS, d.cuMemImportFromShareableHandle(addr(imported), exported, 1));
        long h2 = i64(imported);
        long v1 = reserve(MIB2), v2 = reserve(MIB2);
        assertEquals(SUCCESS, d.cuMemMap(v1, MIB2, 0, h, 0));
        assertEquals(SUCCESS, d.cuMemMap(v2, MIB2, 0, h2, 0));
        assertEquals(SUCCESS, d.cuMemSetAccess(v1, MIB2, addr(access(3)), 1));
        assertEquals(SUCCESS, d.cuMemSetAccess(v2, MIB2, addr(access(3)), 1));
        MemorySegment src = pattern(256, 11), back = mem(256);
        assertEquals(SUCCESS, d.cuMemcpyHtoD_v2(v1, addr(src), 256));
        assertEquals(SUCCESS, d.cuMemcpyDtoH_v2(addr(back), v2, 256));
        assertEquals(-1, src.mismatch(back), "the imported allocation is the exported one's memory");
        MemorySegment props = mem(CUmemAllocationProp.SIZE);
        assertEquals(SUCCESS, d.cuMemGetAllocationPropertiesFromHandle(addr(props), h2));
        assertEquals(1, CUmemAllocationProp.type(props.address()));
        assertEquals(1, CUmemAllocationProp.location_type(props.address()));
        assertEquals(0, CUmemAllocationProp.requestedHandleTypes(props.address()), "an imported allocation's, as the H200 reads it back");
        assertEquals(NOT_SUPPORTED, d.cuMemExportToShareableHandle(addr(fd), h, 8, 0), "fabric handles, said out loud");
        for (long v : new long[] {v1, v2}) assertEquals(SUCCESS, d.cuMemUnmap(v, MIB2));
        for (long x : new long[] {h, h2, plain}) assertEquals(SUCCESS, d.cuMemRelease(x));
        for (long v : new long[] {v1, v2}) assertEquals(SUCCESS, d.cuMemAddressFree(v, MIB2));
    }

    @Test
    void badArgumentsAreRefused() {
        initWithContext();
        MemorySegment h = mem(8);
        assertEquals(INVALID_VALUE, d.cuMemCreate(addr(h), MIB2 + 4096, addr(prop(0)), 0), "not a multiple of the granularity");
        MemorySegment hostProp = prop(0);
        CUmemAllocationProp.location_type(hostProp.address(), 2); // CU_MEM_LOCATION_TYPE_HOST
        assertEquals(NOT_SUPPORTED, d.cuMemCreate(addr(h), MIB2, addr(hostProp), 0), "host-located allocations, said out loud");
        long va = reserve(2 * MIB2), a = create(MIB2, 0);
        assertEquals(INVALID_VALUE, d.cuMemMap(va + MIB2, 2 * MIB2, 0, a, 0), "past the reservation and the allocation");
        assertEquals(INVALID_VALUE, d.cuMemAddressFree(va, MIB2), "not the whole reservation");
        assertEquals(SUCCESS, d.cuMemRelease(a));
        assertEquals(INVALID_VALUE, d.cuMemMap(va, MIB2, 0, a, 0), "released");
        assertEquals(SUCCESS, d.cuMemAddressFree(va, 2 * MIB2));
    }
}
