package dev.zluda.runtime.driver;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * Memory pools and stream-ordered allocation, hints without effect, stream attributes and capture
 * status, context events, the legacy launch API and CUDA arrays (CUDA Driver API, the sections of each
 * function), called as a native program calls them.
 */
class CudartLayerTest extends DriverTestBase {
    static final int INVALID_VALUE = 1, INVALID_DEVICE = 101, INVALID_CONTEXT = 201, INVALID_HANDLE = 400, NOT_SUPPORTED = 801;

    /** CUmemPoolProps (88 bytes): allocType @0, handleTypes @4, location {type @8, id @12}. */
    MemorySegment poolProps(int allocType, int handleTypes, int locType, int locId) {
        MemorySegment p = mem(88);
        p.set(ValueLayout.JAVA_INT, 0, allocType);
        p.set(ValueLayout.JAVA_INT, 4, handleTypes);
        p.set(ValueLayout.JAVA_INT, 8, locType);
        p.set(ValueLayout.JAVA_INT, 12, locId);
        return p;
    }

    long poolAttr(long pool, int attr) {
        MemorySegment v = mem(8);
        assertEquals(0, d.cuMemPoolGetAttribute(pool, attr, addr(v)));
        return i64(v);
    }

    @Test
    void defaultPoolServesStreamOrderedAllocations() {
        initWithContext();
        MemorySegment v = mem(8), pool = mem(8), cur = mem(8);
        assertEquals(0, d.cuDeviceGetAttribute(addr(v), 115, 0)); // CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED
        assertEquals(1, i32(v));
        assertEquals(0, d.cuDeviceGetDefaultMemPool(addr(pool), 0));
        assertEquals(0, d.cuDeviceGetMemPool(addr(cur), 0));
        assertEquals(i64(pool), i64(cur), "the default pool is current at first");
        assertEquals(INVALID_DEVICE, d.cuDeviceGetDefaultMemPool(addr(pool), 5));
        long p = i64(pool);

        MemorySegment a = mem(8), b = mem(8);
        assertEquals(0, d.cuMemAllocAsync(addr(a), 1000, 0));
        assertEquals(0, d.cuMemAllocAsync_ptsz(addr(b), 24, 0));
        assertEquals(1024, poolAttr(p, 7), "USED_MEM_CURRENT, bytes");
        assertEquals(1024, poolAttr(p, 8), "USED_MEM_HIGH");
        // the memory is device memory: copies reach it
        MemorySegment host = mem(1000);
        host.fill((byte) 7);
        assertEquals(0, d.cuMemcpyHtoD_v2(i64(a), addr(host), 1000));
        MemorySegment back = mem(1000);
        assertEquals(0, d.cuMemcpyDtoH_v2(addr(back), i64(a), 1000));
        assertEquals(7, back.get(ValueLayout.JAVA_BYTE, 999));
        assertEquals(0, d.cuMemFreeAsync(i64(a), 0));
        assertEquals(24, poolAttr(p, 7));
        assertEquals(1024, poolAttr(p, 8), "the high-water mark stays");
        MemorySegment zero = mem(8);
        assertEquals(0, d.cuMemPoolSetAttribute(p, 8, addr(zero)));
        assertEquals(24, poolAttr(p, 8), "reset to the current figure");
        assertEquals(INVALID_VALUE, d.cuMemPoolSetAttribute(p, 7, addr(zero)), "USED_MEM_CURRENT is read-only");
        assertEquals(0, d.cuMemFreeAsync_ptsz(i64(b), 0));
        assertEquals(INVALID_VALUE, d.cuMemFreeAsync(i64(b), 0), "freed twice");
        assertEquals(0, poolAttr(p, 7));
        assertEquals(INVALID_VALUE, d.cuMemPoolDestroy(p), "a default pool cannot be destroyed");
        assertEquals(INVALID_VALUE, d.cuMemAllocAsync(addr(a), 0, 0), "zero bytes");
        assertEquals(INVALID_HANDLE, d.cuMemAllocAsync(addr(a), 16, 0x5a4c_7777_0000_0010L), "a bad stream");
    }

    @Test
    void createdPoolsHaveAttributesAccessAndCanBeCurrent() {
        initWithContext();
        MemorySegment pool = mem(8), cur = mem(8), def = mem(8);
        assertEquals(INVALID_VALUE, d.cuMemPoolCreate(addr(pool), addr(poolProps(2, 0, 1, 0))), "not pinned memory");
        assertEquals(INVALID_VALUE, d.cuMemPoolCreate(addr(pool), addr(poolProps(1, 0, 1, 3))), "no device 3");
        assertEquals(NOT_SUPPORTED, d.cuMemPoolCreate(addr(pool), addr(poolProps(1, 1, 1, 0))), "POSIX file descriptor handles (IPC)");
        assertEquals(0, d.cuMemPoolCreate(addr(pool), addr(poolProps(1, 0, 1, 0))));
        long p = i64(pool);
        assertEquals(1, poolAttr(p, 1) & 0xFFFF_FFFFL, "REUSE_FOLLOW_EVENT_DEPENDENCIES defaults to 1");
        MemorySegment v = mem(8);
        v.set(ValueLayout.JAVA_LONG, 0, 1L << 30);
        assertEquals(0, d.cuMemPoolSetAttribute(p, 4, addr(v)));
        assertEquals(1L << 30, poolAttr(p, 4), "RELEASE_THRESHOLD");
        v.set(ValueLayout.JAVA_INT, 0, 0);
        assertEquals(0, d.cuMemPoolSetAttribute(p, 2, addr(v)));
        assertEquals(0, poolAttr(p, 2) & 0xFFFF_FFFFL);
        assertEquals(INVALID_VALUE, d.cuMemPoolGetAttribute(p, 99, addr(v)));
        assertEquals(0, d.cuMemPoolTrimTo(p, 0));

        // access: read-write for the pool's device
        MemorySegment desc = mem(12);
        desc.set(ValueLayout.JAVA_INT, 0, 1);
        desc.set(ValueLayout.JAVA_INT, 4, 0);
        desc.set(ValueLayout.JAVA_INT, 8, 3);
        assertEquals(0, d.cuMemPoolSetAccess(p, addr(desc), 1));
        desc.set(ValueLayout.JAVA_INT, 8, 0);
        assertEquals(INVALID_VALUE, d.cuMemPoolSetAccess(p, addr(desc), 1), "the owning device keeps read-write access");
        MemorySegment loc = mem(8), flags = mem(4);
        loc.set(ValueLayout.JAVA_INT, 0, 1);
        assertEquals(0, d.cuMemPoolGetAccess(addr(flags), p, addr(loc)));
        assertEquals(3, i32(flags), "CU_MEM_ACCESS_FLAGS_PROT_READWRITE");

        // allocations from it, and it as the device's current pool
        MemorySegment a = mem(8);
        assertEquals(0, d.cuMemAllocFromPoolAsync(addr(a), 4096, p, 0));
        assertEquals(4096, poolAttr(p, 7));
        assertEquals(0, d.cuDeviceSetMemPool(0, p));
        assertEquals(0, d.cuDeviceGetMemPool(addr(cur), 0));
        assertEquals(p, i64(cur));
        MemorySegment b = mem(8);
        assertEquals(0, d.cuMemAllocAsync(addr(b), 100, 0));
        assertEquals(4196, poolAttr(p, 7), "cuMemAllocAsync takes from the current pool");
        assertEquals(0, d.cuMemFreeAsync(i64(a), 0));
        assertEquals(0, d.cuMemFreeAsync(i64(b), 0));
        assertEquals(0, d.cuMemPoolDestroy(p));
        assertEquals(INVALID_VALUE, d.cuMemPoolDestroy(p));
        assertEquals(0, d.cuDeviceGetMemPool(addr(cur), 0));
        assertEquals(0, d.cuDeviceGetDefaultMemPool(addr(def), 0));
        assertEquals(i64(def), i64(cur), "destroying the current pool makes the default one current");
        assertEquals(INVALID_VALUE, d.cuMemAllocFromPoolAsync(addr(a), 16, p, 0), "a destroyed pool");
    }

    @Test
    void hintsAreCheckedAndHaveNoEffect() {
        initWithContext();
        MemorySegment m = mem(8);
        assertEquals(0, d.cuMemAllocManaged(addr(m), 4096, 1));
        long p = i64(m);
        assertEquals(0, d.cuMemAdvise(p, 4096, 1, 0)); // SET_READ_MOSTLY on device 0
        assertEquals(0, d.cuMemAdvise(p, 4096, 3, -1)); // SET_PREFERRED_LOCATION on the CPU
        assertEquals(INVALID_VALUE, d.cuMemAdvise(p, 4096, 9, 0), "no advice 9");
        assertEquals(INVALID_DEVICE, d.cuMemAdvise(p, 4096, 1, 7));
        MemorySegment loc = mem(8);
        loc.set(ValueLayout.JAVA_INT, 0, 1);
        assertEquals(0, d.cuMemAdvise_v2(p, 4096, 5, addr(loc)));
        assertEquals(0, d.cuMemPrefetchAsync(p, 4096, 0, 0));
        assertEquals(0, d.cuMemPrefetchAsync_ptsz(p, 4096, -1, 0));
        assertEquals(0, d.cuMemPrefetchAsync_v2(p, 4096, addr(loc), 0, 0));
        assertEquals(0, d.cuMemPrefetchAsync_v2_ptsz(p, 4096, addr(loc), 0, 0));
        assertEquals(INVALID_VALUE, d.cuMemPrefetchAsync_v2(p, 4096, addr(loc), 1, 0), "flags must be 0");
        loc.set(ValueLayout.JAVA_INT, 0, 9);
        assertEquals(INVALID_VALUE, d.cuMemPrefetchAsync_v2(p, 4096, addr(loc), 0, 0), "no location type 9");
        assertEquals(INVALID_VALUE, d.cuMemPrefetchAsync(0, 4096, 0, 0));
        assertEquals(0, d.cuStreamAttachMemAsync(0, p, 0, 1));
        assertEquals(0, d.cuStreamAttachMemAsync_ptsz(0, p, 0, 4));
        assertEquals(INVALID_VALUE, d.cuStreamAttachMemAsync(0, p, 0, 3));
        assertEquals(0, d.cuProfilerStart());
        assertEquals(0, d.cuProfilerStop());
        assertEquals(0, d.cuCtxResetPersistingL2Cache());
        assertEquals(0, d.cuMemFree_v2(p));
    }

    @Test
    void streamAttributesCaptureStatusAndContextEvents() {
        long ctx = initWithContext();
        MemorySegment s1 = mem(8), s2 = mem(8);
        assertEquals(0, d.cuStreamCreateWithPriority(addr(s1), 0, -2));
        assertEquals(0, d.cuStreamCreate(addr(s2), 0));
        MemorySegment val = mem(64);
        assertEquals(0, d.cuStreamGetAttribute(i64(s1), 8, addr(val)));
        assertEquals(-2, i32(val), "CU_STREAM_ATTRIBUTE_PRIORITY is the stream's");
        val.set(ValueLayout.JAVA_INT, 0, 2); // CU_SYNC_POLICY_SPIN
        assertEquals(0, d.cuStreamSetAttribute(i64(s1), 3, addr(val)));
        MemorySegment got = mem(64);
        assertEquals(0, d.cuStreamGetAttribute_ptsz(i64(s1), 3, addr(got)));
        assertEquals(2, i32(got));
        assertEquals(0, d.cuStreamGetAttribute(i64(s2), 3, addr(got)));
        assertEquals(0, i32(got), "not set on the other stream");
        assertEquals(0, d.cuStreamCopyAttributes(i64(s2), i64(s1)));
        assertEquals(0, d.cuStreamGetAttribute(i64(s2), 3, addr(got)));
        assertEquals(2, i32(got), "copied");
        assertEquals(INVALID_VALUE, d.cuStreamSetAttribute_ptsz(i64(s1), 77, addr(val)));
        assertEquals(0, d.cuStreamCopyAttributes_ptsz(i64(s1), 0));

        MemorySegment c = mem(8), g = mem(8);
        g.set(ValueLayout.JAVA_LONG, 0, -1);
        assertEquals(0, d.cuStreamGetCtx_v2(i64(s1), addr(c), addr(g)));
        assertEquals(ctx, i64(c));
        assertEquals(0, i64(g), "no green context");
        assertEquals(0, d.cuStreamGetCtx_v2_ptsz(0, addr(c), addr(g)));

        MemorySegment st = mem(4);
        st.set(ValueLayout.JAVA_INT, 0, 7);
        assertEquals(0, d.cuStreamIsCapturing(i64(s1), addr(st)));
        assertEquals(0, i32(st), "CU_STREAM_CAPTURE_STATUS_NONE");
        assertEquals(0, d.cuStreamIsCapturing_ptsz(0, addr(st)));
        MemorySegment mode = mem(4);
        mode.set(ValueLayout.JAVA_INT, 0, 2);
        assertEquals(0, d.cuThreadExchangeStreamCaptureMode(addr(mode)));
        assertEquals(0, i32(mode), "the previous mode: GLOBAL");
        assertEquals(0, d.cuThreadExchangeStreamCaptureMode(addr(mode)));
        assertEquals(2, i32(mode), "RELAXED, set before");
        mode.set(ValueLayout.JAVA_INT, 0, 5);
        assertEquals(INVALID_VALUE, d.cuThreadExchangeStreamCaptureMode(addr(mode)));

        MemorySegment e = mem(8), e2 = mem(8), ms = mem(4);
        assertEquals(0, d.cuEventCreate(addr(e), 0));
        assertEquals(0, d.cuEventCreate(addr(e2), 0));
        assertEquals(0, d.cuEventRecord(i64(e2), 0));
        assertEquals(0, d.cuCtxRecordEvent(ctx, i64(e)));
        assertEquals(0, d.cuEventElapsedTime(addr(ms), i64(e2), i64(e)), "cuCtxRecordEvent records a time");
        assertEquals(0, d.cuCtxWaitEvent(ctx, i64(e)));
        assertEquals(INVALID_CONTEXT, d.cuCtxRecordEvent(0x1234, i64(e)));
        assertEquals(INVALID_HANDLE, d.cuCtxWaitEvent(ctx, 0x1234));
    }

    static final String PTX = """
            .version 8.5
            .target sm_80
            .address_size 64
            .visible .entry fill(.param .u64 out, .param .u32 v, .param .f32 f)
            {
            .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .f32 %f<2>;
            ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [v]; ld.param.f32 %f1, [f];
            mov.u32 %r2, %tid.x; mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x; mov.u32 %r6, %ctaid.y; mov.u32 %r7, %nctaid.x;
            mad.lo.u32 %r3, %r6, %r7, %r3;
            mad.lo.u32 %r5, %r3, %r4, %r2;
            cvt.rzi.u32.f32 %r6, %f1;
            add.u32 %r1, %r1, %r6;
            add.u32 %r1, %r1, %r5;
            mul.wide.u32 %rd2, %r5, 4;
            add.s64 %rd2, %rd1, %rd2;
            st.global.u32 [%rd2], %r1;
            ret;
            }
            """;

    @Test
    void legacyLaunchApiRunsKernels() {
        initWithContext();
        MemorySegment mod = mem(8), fn = mem(8);
        assertEquals(0, d.cuModuleLoadData(addr(mod), cstr(PTX)));
        assertEquals(0, d.cuModuleGetFunction(addr(fn), i64(mod), cstr("fill")));
        long f = i64(fn);
        long out = alloc(4 * 64);
        // parameters: u64 at 0, u32 at 8, f32 at 12 (the PTX parameter layout)
        assertEquals(0, d.cuParamSetSize(f, 16));
        MemorySegment p = mem(8);
        p.set(ValueLayout.JAVA_LONG, 0, out);
        assertEquals(0, d.cuParamSetv(f, 0, addr(p), 8));
        assertEquals(0, d.cuParamSeti(f, 8, 1000));
        assertEquals(0, d.cuParamSetf(f, 12, 20.5f));
        assertEquals(INVALID_VALUE, d.cuParamSeti(f, 14, 1), "beyond cuParamSetSize's 16 bytes");
        assertEquals(0, d.cuFuncSetBlockShape(f, 8, 1, 1));
        assertEquals(0, d.cuFuncSetSharedSize(f, 0));
        assertEquals(0, d.cuLaunchGrid(f, 4, 2));
        assertEquals(0, d.cuCtxSynchronize());
        MemorySegment host = mem(4 * 64);
        assertEquals(0, d.cuMemcpyDtoH_v2(addr(host), out, 4 * 64));
        for (int i = 0; i < 64; i++) assertEquals(1020 + i, host.getAtIndex(ValueLayout.JAVA_INT, i), "thread " + i);
        assertEquals(0, d.cuParamSeti(f, 8, 5));
        assertEquals(0, d.cuLaunch(f));
        assertEquals(0, d.cuMemcpyDtoH_v2(addr(host), out, 4 * 64));
        assertEquals(25, host.getAtIndex(ValueLayout.JAVA_INT, 0), "one block: 5 + 20");
        assertEquals(32, host.getAtIndex(ValueLayout.JAVA_INT, 7), "one block of 8 threads: thread 7");
        assertEquals(1028, host.getAtIndex(ValueLayout.JAVA_INT, 8), "untouched since the grid launch");
        MemorySegment s = mem(8);
        assertEquals(0, d.cuStreamCreate(addr(s), 0));
        assertEquals(0, d.cuLaunchGridAsync(f, 1, 1, i64(s)));
        assertEquals(INVALID_HANDLE, d.cuLaunchGridAsync(f, 1, 1, 0x5a4c_7777_0000_0010L));
        assertEquals(INVALID_HANDLE, d.cuFuncSetBlockShape(0x1234, 1, 1, 1));
        assertEquals(INVALID_VALUE, d.cuFuncSetBlockShape(f, 0, 1, 1));
        assertEquals(0, d.cuParamSetSize(f, 0));
        assertEquals(INVALID_VALUE, d.cuLaunch(f), "the kernel's parameters are missing");
        assertNotEquals(0, f);
    }

    @Test
    void arraysHoldDataForCopies() {
        initWithContext();
        // a 2D array of 16 x 8 float2 (8 bytes per element, rows of 128 bytes)
        MemorySegment desc = mem(24), arr = mem(8);
        desc.set(ValueLayout.JAVA_LONG, 0, 16);
        desc.set(ValueLayout.JAVA_LONG, 8, 8);
        desc.set(ValueLayout.JAVA_INT, 16, 0x20); // CU_AD_FORMAT_FLOAT
        desc.set(ValueLayout.JAVA_INT, 20, 2);
        assertEquals(0, d.cuArrayCreate_v2(addr(arr), addr(desc)));
        long a = i64(arr);
        MemorySegment got = mem(24);
        assertEquals(0, d.cuArrayGetDescriptor_v2(addr(got), a));
        assertEquals(16, got.get(ValueLayout.JAVA_LONG, 0));
        assertEquals(8, got.get(ValueLayout.JAVA_LONG, 8));
        assertEquals(0x20, got.get(ValueLayout.JAVA_INT, 16));
        assertEquals(2, got.get(ValueLayout.JAVA_INT, 20));
        MemorySegment got1 = mem(16);
        assertEquals(0, d.cuArrayGetDescriptor(addr(got1), a));
        assertEquals(16, got1.get(ValueLayout.JAVA_INT, 0));
        assertEquals(8, got1.get(ValueLayout.JAVA_INT, 4));

        MemorySegment host = mem(1024), back = mem(1024);
        for (int i = 0; i < 256; i++) host.setAtIndex(ValueLayout.JAVA_INT, i, i * 3);
        assertEquals(0, d.cuMemcpyHtoA_v2(a, 0, addr(host), 1024));
        assertEquals(INVALID_VALUE, d.cuMemcpyHtoA_v2(a, 8, addr(host), 1024), "past the array's 1024 bytes");
        assertEquals(0, d.cuMemcpyAtoH_v2(addr(back), a, 512, 512));
        assertEquals(128 * 3, back.getAtIndex(ValueLayout.JAVA_INT, 0), "row 4 starts at byte 512");

        // cuMemcpy2D from the array (rows 2..4, bytes 16..47 of each) to pitched device memory
        long dev = alloc(64 * 3);
        MemorySegment c = mem(128);
        c.set(ValueLayout.JAVA_LONG, 0, 16);   // srcXInBytes
        c.set(ValueLayout.JAVA_LONG, 8, 2);    // srcY
        c.set(ValueLayout.JAVA_INT, 16, 3);    // srcMemoryType ARRAY
        c.set(ValueLayout.JAVA_LONG, 40, a);   // srcArray
        c.set(ValueLayout.JAVA_INT, 72, 2);    // dstMemoryType DEVICE
        c.set(ValueLayout.JAVA_LONG, 88, dev); // dstDevice
        c.set(ValueLayout.JAVA_LONG, 104, 64); // dstPitch
        c.set(ValueLayout.JAVA_LONG, 112, 32); // WidthInBytes
        c.set(ValueLayout.JAVA_LONG, 120, 3);  // Height
        assertEquals(0, d.cuMemcpy2D_v2(addr(c)));
        MemorySegment rows = mem(64 * 3);
        assertEquals(0, d.cuMemcpyDtoH_v2(addr(rows), dev, 64 * 3));
        for (int y = 0; y < 3; y++) {
            for (int k = 0; k < 8; k++) {
                int want = ((2 + y) * 128 + 16 + 4 * k) / 4 * 3;
                assertEquals(want, rows.getAtIndex(ValueLayout.JAVA_INT, y * 16 + k), "row " + y + " word " + k);
            }
        }
        // and back into a second array through device memory, then array to array
        MemorySegment arr2 = mem(8);
        assertEquals(0, d.cuArrayCreate_v2(addr(arr2), addr(desc)));
        assertEquals(0, d.cuMemcpyDtoA_v2(i64(arr2), 0, dev, 64));
        assertEquals(0, d.cuMemcpyAtoA_v2(i64(arr2), 64, a, 0, 64));
        long dev2 = alloc(128);
        assertEquals(0, d.cuMemcpyAtoD_v2(dev2, i64(arr2), 0, 128));
        assertEquals(0, d.cuMemcpyDtoH_v2(addr(back), dev2, 128));
        assertEquals((2 * 128 + 16) / 4 * 3, back.getAtIndex(ValueLayout.JAVA_INT, 0));
        assertEquals(0, back.getAtIndex(ValueLayout.JAVA_INT, 16), "array 1 word 0");
        assertEquals(3, back.getAtIndex(ValueLayout.JAVA_INT, 17));
        assertEquals(0, d.cuMemcpyHtoAAsync_v2(a, 4, addr(host), 4, 0));
        assertEquals(0, d.cuMemcpyAtoHAsync_v2(addr(back), a, 4, 4, 0));
        assertEquals(0, back.getAtIndex(ValueLayout.JAVA_INT, 0), "host word 0 written at byte 4");

        // a 3D array: 4 x 3 x 2 of uchar4, cuMemcpy3D from host into its second slice
        MemorySegment d3 = mem(40), arr3 = mem(8);
        d3.set(ValueLayout.JAVA_LONG, 0, 4);
        d3.set(ValueLayout.JAVA_LONG, 8, 3);
        d3.set(ValueLayout.JAVA_LONG, 16, 2);
        d3.set(ValueLayout.JAVA_INT, 24, 0x01); // UNSIGNED_INT8
        d3.set(ValueLayout.JAVA_INT, 28, 4);
        assertEquals(0, d.cuArray3DCreate_v2(addr(arr3), addr(d3)));
        MemorySegment g3 = mem(40);
        assertEquals(0, d.cuArray3DGetDescriptor_v2(addr(g3), i64(arr3)));
        assertEquals(2, g3.get(ValueLayout.JAVA_LONG, 16));
        assertEquals(4, g3.get(ValueLayout.JAVA_INT, 28));
        MemorySegment c3 = mem(200), slice = mem(48);
        for (int i = 0; i < 12; i++) slice.setAtIndex(ValueLayout.JAVA_INT, i, 100 + i);
        c3.set(ValueLayout.JAVA_INT, 32, 1);      // srcMemoryType HOST
        c3.set(ValueLayout.JAVA_LONG, 40, addr(slice));
        c3.set(ValueLayout.JAVA_LONG, 72, 16);    // srcPitch
        c3.set(ValueLayout.JAVA_LONG, 80, 3);     // srcHeight
        c3.set(ValueLayout.JAVA_LONG, 104, 1);    // dstZ
        c3.set(ValueLayout.JAVA_INT, 120, 3);     // dstMemoryType ARRAY
        c3.set(ValueLayout.JAVA_LONG, 144, i64(arr3));
        c3.set(ValueLayout.JAVA_LONG, 176, 16);   // WidthInBytes
        c3.set(ValueLayout.JAVA_LONG, 184, 3);    // Height
        c3.set(ValueLayout.JAVA_LONG, 192, 1);    // Depth
        assertEquals(0, d.cuMemcpy3D_v2(addr(c3)));
        MemorySegment all = mem(96);
        assertEquals(0, d.cuMemcpyAtoH_v2(addr(all), i64(arr3), 0, 96));
        assertEquals(0, all.getAtIndex(ValueLayout.JAVA_INT, 11), "slice 0 untouched");
        assertEquals(100, all.getAtIndex(ValueLayout.JAVA_INT, 12), "slice 1 starts at byte 48");
        assertEquals(111, all.getAtIndex(ValueLayout.JAVA_INT, 23));

        // the CUDA 3.1 forms, errors, destruction
        MemorySegment d1 = mem(16), arr1 = mem(8);
        d1.set(ValueLayout.JAVA_INT, 0, 64);
        d1.set(ValueLayout.JAVA_INT, 8, 0x03);
        d1.set(ValueLayout.JAVA_INT, 12, 1);
        assertEquals(0, d.cuArrayCreate(addr(arr1), addr(d1)));
        assertEquals(0, d.cuMemcpyHtoA(i64(arr1), 0, addr(host), 256));
        assertEquals(0, d.cuMemcpyAtoH(addr(back), i64(arr1), 4, 4));
        assertEquals(3, back.getAtIndex(ValueLayout.JAVA_INT, 0));
        MemorySegment d31 = mem(24), arr31 = mem(8);
        d31.set(ValueLayout.JAVA_INT, 0, 2);
        d31.set(ValueLayout.JAVA_INT, 4, 2);
        d31.set(ValueLayout.JAVA_INT, 8, 2);
        d31.set(ValueLayout.JAVA_INT, 12, 0x10);
        d31.set(ValueLayout.JAVA_INT, 16, 1);
        assertEquals(0, d.cuArray3DCreate(addr(arr31), addr(d31)));
        assertEquals(0, d.cuArray3DGetDescriptor(addr(d31), i64(arr31)));
        assertEquals(2, d31.get(ValueLayout.JAVA_INT, 8));
        desc.set(ValueLayout.JAVA_INT, 20, 3);
        assertEquals(INVALID_VALUE, d.cuArrayCreate_v2(addr(arr), addr(desc)), "3 channels");
        desc.set(ValueLayout.JAVA_INT, 20, 1);
        desc.set(ValueLayout.JAVA_INT, 16, 0xb0); // NV12
        assertEquals(NOT_SUPPORTED, d.cuArrayCreate_v2(addr(arr), addr(desc)));
        assertEquals(0, d.cuArrayDestroy(a));
        assertEquals(INVALID_HANDLE, d.cuArrayDestroy(a));
        assertEquals(INVALID_HANDLE, d.cuMemcpyAtoH_v2(addr(back), a, 0, 4));
        assertEquals(0, d.cuArrayDestroy(i64(arr3)));
    }
}
