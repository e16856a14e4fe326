package dev.zluda.runtime.driver;

import dev.zluda.spec.CudaApi;
import dev.zluda.spec.CudaRecord;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Memory semantics of the CUDA Driver API (allocation, copies, memsets, pointer attributes). */
class MemoryLayerTest extends DriverTestBase {
    @Test
    void allocCopyRoundTripAndBounds() {
        initWithContext();
        assertEquals(1, d.cuMemAlloc_v2(addr(mem(8)), 0), "zero bytes -> CUDA_ERROR_INVALID_VALUE");
        long p = alloc(1000);
        assertEquals(0, p % 256, "256-byte aligned, as cuMemAlloc guarantees");
        MemorySegment host = mem(1000), back = mem(1000);
        for (int i = 0; i < 1000; i++) host.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
        assertEquals(0, d.cuMemcpyHtoD_v2(p, addr(host), 1000));
        assertEquals(0, d.cuMemcpyDtoH_v2(addr(back), p, 1000));
        assertEquals(-1, host.mismatch(back));
        assertEquals(1, d.cuMemcpyHtoD_v2(p + 1, addr(host), 1000), "one byte past the allocation");
        assertEquals(1, d.cuMemcpyDtoH_v2(addr(back), p - 8, 8), "before the allocation");
        long q = alloc(1000);
        assertEquals(0, d.cuMemcpyDtoD_v2(q + 500, p, 500));
        MemorySegment half = mem(500);
        assertEquals(0, d.cuMemcpyDtoH_v2(addr(half), q + 500, 500));
        assertEquals(-1, half.mismatch(host.asSlice(0, 500)));
        MemorySegment base = mem(8), size = mem(8);
        assertEquals(0, d.cuMemGetAddressRange_v2(addr(base), addr(size), q + 123));
        assertEquals(q, i64(base));
        assertEquals(1000, i64(size));
        assertEquals(0, d.cuMemFree_v2(p));
        assertEquals(1, d.cuMemFree_v2(p), "double free -> CUDA_ERROR_INVALID_VALUE");
        assertEquals(1, d.cuMemcpyDtoH_v2(addr(back), p, 8), "freed memory is no longer device memory");
    }

    @Test
    void memsetFormsWriteElementsAndRespectPitch() {
        initWithContext();
        long p = alloc(4096);
        assertEquals(0, d.cuMemsetD32_v2(p, 0xdeadbeef, 10));
        assertEquals(0, d.cuMemsetD16_v2(p + 40, 0xabcd, 3));
        assertEquals(0, d.cuMemsetD8_v2(p + 46, 0x7f, 2));
        MemorySegment h = mem(48);
        assertEquals(0, d.cuMemcpyDtoH_v2(addr(h), p, 48));
        assertEquals(0xdeadbeef, h.get(ValueLayout.JAVA_INT, 36));
        assertEquals((short) 0xabcd, h.get(ValueLayout.JAVA_SHORT, 44));
        assertEquals(0x7f, h.get(ValueLayout.JAVA_BYTE, 47));
        assertEquals(1, d.cuMemsetD32_v2(p + 2, 0, 1), "misaligned 32-bit memset");
        // 2D: 3 rows of 4 32-bit elements, rows 64 bytes apart; bytes between rows stay 0
        long q = alloc(4096);
        assertEquals(0, d.cuMemsetD2D32_v2(q, 64, 5, 4, 3));
        MemorySegment g = mem(192);
        assertEquals(0, d.cuMemcpyDtoH_v2(addr(g), q, 192));
        assertEquals(5, g.get(ValueLayout.JAVA_INT, 128 + 12));
        assertEquals(0, g.get(ValueLayout.JAVA_INT, 16));
        assertEquals(1, d.cuMemsetD2D32_v2(q, 8, 5, 4, 3), "pitch smaller than a row");
    }

    @Test
    void copy2dHonoursPitchesAndOffsets() {
        initWithContext();
        CudaRecord r = CudaApi.get().record("CUDA_MEMCPY2D").orElseThrow();
        MemorySegment src = mem(10 * 32);
        for (int i = 0; i < 320; i++) src.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        MemorySegment pitch = mem(8), dptr = mem(8);
        assertEquals(0, d.cuMemAllocPitch_v2(addr(dptr), addr(pitch), 20, 10, 4));
        assertEquals(512, i64(pitch));
        MemorySegment desc = mem(r.size());
        set(desc, r, "srcMemoryType", 1); // CU_MEMORYTYPE_HOST
        set(desc, r, "srcHost", addr(src));
        set(desc, r, "srcPitch", 32);
        set(desc, r, "srcXInBytes", 4);
        set(desc, r, "srcY", 1);
        set(desc, r, "dstMemoryType", 2); // CU_MEMORYTYPE_DEVICE
        set(desc, r, "dstDevice", i64(dptr));
        set(desc, r, "dstPitch", i64(pitch));
        set(desc, r, "WidthInBytes", 20);
        set(desc, r, "Height", 9);
        assertEquals(0, d.cuMemcpy2D_v2(addr(desc)));
        MemorySegment row = mem(20);
        assertEquals(0, d.cuMemcpyDtoH_v2(addr(row), i64(dptr) + 512 * 8, 20));
        // row 8 of the destination is row 9 of the source, starting at byte 4
        for (int i = 0; i < 20; i++) assertEquals((byte) (9 * 32 + 4 + i), row.get(ValueLayout.JAVA_BYTE, i));
        set(desc, r, "srcY", 0);
        set(desc, r, "Height", 11);
        assertEquals(1, d.cuMemcpy2D_v2(addr(desc)), "11 rows do not fit the 10-row pitched allocation");
    }

    private static void set(MemorySegment s, CudaRecord r, String field, long v) {
        setField(s, r, field, v);
    }

    @Test
    void pointerAttributesDescribeAllocations() {
        long ctx = initWithContext();
        long p = alloc(4096);
        MemorySegment v = mem(8);
        var e = CudaApi.get().enumType("CUpointer_attribute").orElseThrow();
        int start = e.valueOf("CU_POINTER_ATTRIBUTE_RANGE_START_ADDR").orElseThrow().intValue();
        int size = e.valueOf("CU_POINTER_ATTRIBUTE_RANGE_SIZE").orElseThrow().intValue();
        int type = e.valueOf("CU_POINTER_ATTRIBUTE_MEMORY_TYPE").orElseThrow().intValue();
        int context = e.valueOf("CU_POINTER_ATTRIBUTE_CONTEXT").orElseThrow().intValue();
        assertEquals(0, d.cuPointerGetAttribute(addr(v), start, p + 100));
        assertEquals(p, i64(v));
        assertEquals(0, d.cuPointerGetAttribute(addr(v), size, p + 100));
        assertEquals(4096, i64(v));
        assertEquals(0, d.cuPointerGetAttribute(addr(v), type, p));
        assertEquals(2, i32(v), "CU_MEMORYTYPE_DEVICE");
        assertEquals(0, d.cuPointerGetAttribute(addr(v), context, p));
        assertEquals(ctx, i64(v));
        assertEquals(1, d.cuPointerGetAttribute(addr(v), start, 0x1234), "unknown memory -> CUDA_ERROR_INVALID_VALUE");
        // cuPointerGetAttributes: unknown memory gets zeros and CUDA_SUCCESS
        MemorySegment attrs = mem(8), slots = mem(16), a0 = mem(8), a1 = mem(8);
        attrs.set(ValueLayout.JAVA_INT, 0, start);
        attrs.set(ValueLayout.JAVA_INT, 4, size);
        slots.set(ValueLayout.JAVA_LONG, 0, addr(a0));
        slots.set(ValueLayout.JAVA_LONG, 8, addr(a1));
        a0.set(ValueLayout.JAVA_LONG, 0, 99);
        assertEquals(0, d.cuPointerGetAttributes(2, addr(attrs), addr(slots), 0x1234));
        assertEquals(0, i64(a0));
        assertEquals(0, d.cuPointerGetAttributes(2, addr(attrs), addr(slots), p + 8));
        assertEquals(p, i64(a0));
        assertEquals(4096, i64(a1));
    }

    @Test
    void hostMemoryAllocRegisterAndInfo() {
        initWithContext();
        MemorySegment pp = mem(8), dp = mem(8), flags = mem(4);
        assertEquals(0, d.cuMemHostAlloc(addr(pp), 4096, 2)); // CU_MEMHOSTALLOC_DEVICEMAP
        assertEquals(0, d.cuMemHostGetDevicePointer_v2(addr(dp), i64(pp), 0));
        assertEquals(i64(pp), i64(dp), "unified addressing: the same address");
        assertEquals(0, d.cuMemHostGetFlags(addr(flags), i64(pp)));
        assertEquals(2, i32(flags) & 2);
        assertEquals(0, d.cuMemFreeHost(i64(pp)));
        MemorySegment mine = mem(8192);
        assertEquals(0, d.cuMemHostRegister_v2(addr(mine), 8192, 0));
        assertEquals(712, d.cuMemHostRegister_v2(addr(mine) + 4096, 100, 0), "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED");
        assertEquals(0, d.cuMemHostUnregister(addr(mine)));
        assertEquals(713, d.cuMemHostUnregister(addr(mine)), "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED");
        MemorySegment free = mem(8), total = mem(8);
        assertEquals(0, d.cuMemGetInfo_v2(addr(free), addr(total)));
        long before = i64(free);
        long p = alloc(1 << 20);
        assertEquals(0, d.cuMemGetInfo_v2(addr(free), addr(total)));
        assertEquals(before - (1 << 20), i64(free));
        assertTrue(i64(total) >= i64(free));
        assertEquals(0, d.cuMemFree_v2(p));
    }

    @Test
    void destroyingAContextFreesItsMemory() {
        assertEquals(0, d.cuInit(0));
        MemorySegment ctx = mem(8);
        assertEquals(0, d.cuCtxCreate_v2(addr(ctx), 0, 0));
        long p = alloc(64);
        assertEquals(0, d.cuCtxDestroy_v2(i64(ctx)));
        initWithContext();
        assertEquals(1, d.cuMemcpyDtoH_v2(addr(mem(8)), p, 8), "memory of a destroyed context is gone");
    }
}
