package dev.zluda.runtime.driver;

import dev.zluda.runtime.image.ModuleImageException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Java side of the export tables, called directly (the C tables and their calls are covered by
 * ExportTablesNativeTest): table lookup, CUDART_INTERFACE, context-local storage with destructors,
 * the integrity check, and the small functions cudart needs at start-up.
 */
class ExportTableLayerTest extends DriverTestBase {
    static final List<long[]> destructorCalls = new ArrayList<>();

    static void destructor(long ctx, long key, long value) {
        destructorCalls.add(new long[] {ctx, key, value});
    }

    @AfterEach
    void clearCalls() {
        destructorCalls.clear();
    }

    long destructorStub() throws Exception {
        var h = MethodHandles.lookup().findStatic(ExportTableLayerTest.class, "destructor", MethodType.methodType(void.class, long.class, long.class, long.class));
        return Linker.nativeLinker().upcallStub(h, FunctionDescriptor.ofVoid(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG), arena).address();
    }

    MemorySegment guid(String hex) {
        MemorySegment g = mem(16);
        MemorySegment.copy(HexFormat.of().parseHex(hex), 0, g, ValueLayout.JAVA_BYTE, 0, 16);
        return g;
    }

    @Test
    void tablesAreFoundByGuid() {
        MemorySegment out = mem(8);
        assertEquals(CuResult.INVALID_VALUE, d.cuGetExportTable(0, addr(guid(ExportTableArea.TABLE_GUIDS.get(0)))));
        assertEquals(CuResult.INVALID_VALUE, d.cuGetExportTable(addr(out), 0));
        // without libcuda.so.1 there are no native tables
        assertEquals(CuResult.NOT_SUPPORTED, d.cuGetExportTable(addr(out), addr(guid(ExportTableArea.TABLE_GUIDS.get(0)))));
        long[] fake = {0x1000, 0x2000, 0x3000, 0x4000, 0x5000, 0x6000};
        d.areas.exportTable.useTables(fake);
        for (int t = 0; t < fake.length; t++) {
            assertEquals(CuResult.SUCCESS, d.cuGetExportTable(addr(out), addr(guid(ExportTableArea.TABLE_GUIDS.get(t)))));
            assertEquals(fake[t], i64(out), ExportTableArea.TABLE_NAMES.get(t));
        }
        out.set(ValueLayout.JAVA_LONG, 0, 77);
        assertEquals(CuResult.NOT_FOUND, d.cuGetExportTable(addr(out), addr(guid(ExportTableArea.CUDART13_PROBE))));
        assertEquals(0, i64(out));
        assertEquals(CuResult.NOT_FOUND, d.cuGetExportTable(addr(out), addr(guid("b10541e1f7c7c74a9f64f223be99f1e2"))), "DEVICE_EXTENDED_RT is not served");
        assertEquals(CuResult.NOT_FOUND, d.cuGetExportTable(addr(out), addr(guid("00112233445566778899aabbccddeeff"))));
    }

    @Test
    void primaryContextIsNeitherRetainedNorMadeCurrent() {
        MemorySegment ctx = mem(8), flags = mem(4), active = mem(4), current = mem(8);
        assertEquals(CuResult.NOT_INITIALIZED, d.areas.exportTable.cudartPrimaryContext(addr(ctx), 0));
        d.cuInit(0);
        assertEquals(CuResult.SUCCESS, d.areas.exportTable.cudartPrimaryContext(addr(ctx), 0));
        assertEquals(CuResult.INVALID_DEVICE, d.areas.exportTable.cudartPrimaryContext(addr(ctx), 1));
        assertEquals(CuResult.INVALID_VALUE, d.areas.exportTable.cudartPrimaryContext(0, 0));
        d.cuDevicePrimaryCtxGetState(0, addr(flags), addr(active));
        assertEquals(0, i32(active));
        d.cuCtxGetCurrent(addr(current));
        assertEquals(0, i64(current));
        MemorySegment retained = mem(8);
        d.cuDevicePrimaryCtxRetain(addr(retained), 0);
        assertEquals(i64(ctx), i64(retained));
    }

    @Test
    void contextLocalStorageRunsDestructorsOnDestroyAndReset() throws Exception {
        long primary = initWithContext();
        long dtor = destructorStub();
        MemorySegment value = mem(8);
        assertEquals(CuResult.SUCCESS, d.areas.exportTable.clsPut(0, 11, 0x1111, dtor));
        assertEquals(CuResult.SUCCESS, d.areas.exportTable.clsGet(addr(value), primary, 11));
        assertEquals(0x1111, i64(value));
        assertEquals(CuResult.INVALID_HANDLE, d.areas.exportTable.clsGet(addr(value), primary, 12));
        assertEquals(CuResult.SUCCESS, d.areas.exportTable.clsPut(primary, 12, 0x2222, 0));
        assertEquals(CuResult.SUCCESS, d.areas.exportTable.clsDelete(primary, 12));
        assertEquals(CuResult.SUCCESS, d.areas.exportTable.clsDelete(primary, 12), "deleting an absent key is no error");
        assertEquals(CuResult.INVALID_HANDLE, d.areas.exportTable.clsGet(addr(value), primary, 12));
        assertEquals(CuResult.INVALID_CONTEXT, d.areas.exportTable.clsPut(0x1234, 1, 1, 0));

        MemorySegment created = mem(8);
        d.cuCtxCreate_v2(addr(created), 0, 0);
        assertEquals(CuResult.SUCCESS, d.areas.exportTable.clsPut(i64(created), 21, 0x3333, dtor));
        assertEquals(CuResult.SUCCESS, d.areas.exportTable.clsPut(i64(created), 22, 0x4444, dtor));
        assertEquals(CuResult.SUCCESS, d.cuCtxDestroy_v2(i64(created)));
        assertEquals(2, destructorCalls.size());
        assertArrayEquals(new long[] {i64(created), 21, 0x3333}, destructorCalls.get(0));
        assertArrayEquals(new long[] {i64(created), 22, 0x4444}, destructorCalls.get(1));
        assertEquals(CuResult.INVALID_CONTEXT, d.areas.exportTable.clsGet(addr(value), i64(created), 21));

        assertEquals(CuResult.SUCCESS, d.cuDevicePrimaryCtxReset_v2(0));
        assertEquals(3, destructorCalls.size());
        assertArrayEquals(new long[] {primary, 11, 0x1111}, destructorCalls.get(2));
        assertEquals(CuResult.INVALID_HANDLE, d.areas.exportTable.clsGet(addr(value), primary, 11), "reset empties the storage");
    }

    /** The module image observer (the trace layer's MODULE records) sees each successful slot load with its handle, and a failed one with handle 0. */
    @Test
    void slotLoadsAreReportedToTheModuleImageObserver() throws IOException {
        initWithContext();
        List<Object[]> seen = new ArrayList<>();
        d.moduleImageObserver((via, image, handle) -> seen.add(new Object[] {via, image, handle}));
        MemorySegment ptx = mem(256);
        ptx.setString(0, ".version 7.0\n.target sm_50\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n", StandardCharsets.US_ASCII);
        MemorySegment module = mem(8);
        assertEquals(CuResult.SUCCESS, d.areas.exportTable.cudartModuleExt(8, addr(module), addr(ptx), 0, 0, 0));
        assertEquals(1, seen.size());
        assertArrayEquals(new Object[] {"CUDART_INTERFACE slot 8", addr(ptx), i64(module)}, seen.getFirst());
        assertTrue(i64(module) != 0);
        assertEquals(ExportTableArea.NO_BINARY_FOR_GPU, d.areas.exportTable.cudartModuleFromWrapper(addr(module), addr(wrapperOf(resource("kernels.sass.fatbin")))));
        assertEquals(2, seen.size(), "a failed load is reported too");
        assertEquals(0L, seen.get(1)[2], "a failed load has no module");
        // the driver names the PTX it compiles as the trace layer dumps it: load 3, the fatbin's entry 4 (sm_86 PTX, best for 8.6)
        List<String> events = new ArrayList<>();
        d.driverEvents(events::add);
        assertEquals(CuResult.SUCCESS, d.areas.exportTable.cudartModuleFromWrapper(addr(module), addr(wrapperOf(resource("kernels.zstd.fatbin")))));
        assertTrue(events.getFirst().startsWith("module compiled: module_0003_04.ptx, "), events::toString);
        assertEquals(3, seen.size());
        d.moduleImageObserver((via, image, handle) -> { throw new IllegalStateException("observer failure"); });
        assertEquals(CuResult.SUCCESS, d.areas.exportTable.cudartModuleExt(8, addr(module), addr(ptx), 0, 0, 0), "what the observer throws does not fail the load");
    }

    static byte[] resource(String name) throws IOException {
        try (InputStream in = ExportTableLayerTest.class.getResourceAsStream("/dev/zluda/runtime/image/" + name)) {
            return in.readAllBytes();
        }
    }

    MemorySegment wrapperOf(byte[] fatbin) {
        MemorySegment f = arena.allocate(fatbin.length, 8);
        MemorySegment.copy(fatbin, 0, f, ValueLayout.JAVA_BYTE, 0, fatbin.length);
        MemorySegment w = mem(24);
        w.set(ValueLayout.JAVA_INT, 0, 0x466243B1);
        w.set(ValueLayout.JAVA_INT, 4, 1);
        w.set(ValueLayout.JAVA_LONG, 8, f.address());
        return w;
    }

    @Test
    void modulesFromFatbinsGetTheDevicesPtx() throws Exception {
        initWithContext();
        MemorySegment w = wrapperOf(resource("kernels.zstd.fatbin"));
        MemorySegment ptx = d.areas.exportTable.ptxFor(addr(w));
        String text = ptx.reinterpret(1 << 20).getString(0, StandardCharsets.ISO_8859_1);
        assertTrue(text.contains(".target sm_86"), "the device is 8.6 by default: " + text.substring(0, 200));
        assertEquals(ptx.address(), d.areas.exportTable.ptxFor(addr(w)).address(), "the same image keeps its copy");
        MemorySegment module = mem(8);
        int r = d.areas.exportTable.cudartModuleFromWrapper(addr(module), addr(w));
        assertTrue(r == CuResult.SUCCESS || r == CuResult.NOT_SUPPORTED, "what cuModuleLoadData answers: " + r);
        assertEquals(ExportTableArea.NO_BINARY_FOR_GPU, d.areas.exportTable.cudartModuleFromWrapper(addr(module), addr(wrapperOf(resource("kernels.sass.fatbin")))));
        // only PTX newer than the device (compute_90a on the default 8.6): zluda runs it (docs/support.md, "PTX targets")
        MemorySegment a = wrapperOf(resource("kernels.90a.fatbin"));
        assertTrue(d.areas.exportTable.ptxFor(addr(a)).reinterpret(1 << 20).getString(0, StandardCharsets.ISO_8859_1).contains(".target sm_90a"));
        r = d.areas.exportTable.cudartModuleFromWrapper(addr(module), addr(a));
        assertEquals(CuResult.SUCCESS, r, "not CUDA_ERROR_NO_BINARY_FOR_GPU");
        byte[] broken = resource("kernels.none.fatbin");
        broken[20] = 1; // entry header size 1
        assertEquals(ExportTableArea.INVALID_IMAGE, d.areas.exportTable.cudartModuleFromWrapper(addr(module), addr(wrapperOf(broken))));
        assertEquals(CuResult.INVALID_VALUE, d.areas.exportTable.cudartModuleFromWrapper(0, addr(w)));
        assertEquals(CuResult.NOT_SUPPORTED, d.areas.exportTable.cudartModuleExt(6, addr(module), addr(w), 0, 0, 1));
        assertThrows(ModuleImageException.class, () -> d.areas.exportTable.ptxFor(addr(wrapperOf(resource("kernels.sass.fatbin")))));
    }

    @Test
    void integrityCheckHashesTheTablesItServes() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment cudart = a.allocate(13 * 8), integrity = a.allocate(3 * 8);
            integrity.set(ValueLayout.JAVA_LONG, 8, 0xabcdef);
            d.areas.exportTable.useTables(new long[] {cudart.address(), 1, 2, 3, integrity.address(), 5});
            MemorySegment out = mem(16);
            assertEquals(CuResult.SUCCESS, d.areas.exportTable.integrityCheck(13002, 1764460800L, addr(out), 4242, 77));
            long[] expected = IntegrityCheckTest.reference(13002, 1764460800L, 13000, 4242, 77, cudart.address(), integrity.address(), 0xabcdef,
                    "ZLUDA-emulator\0\0".getBytes(StandardCharsets.US_ASCII), 0, 0, 0);
            assertEquals(expected[0], out.get(ValueLayout.JAVA_LONG, 0));
            assertEquals(expected[1], out.get(ValueLayout.JAVA_LONG, 8));
            assertEquals(CuResult.INVALID_VALUE, d.areas.exportTable.integrityCheck(13002, 0, 0, 1, 1));
        }
    }

    @Test
    void unknownSlotsAreNotSupported() {
        assertEquals(CuResult.NOT_SUPPORTED, d.areas.exportTable.unknownSlot(ExportTableArea.T_CUDART_INTERFACE, 3));
        assertEquals(CuResult.NOT_SUPPORTED, d.areas.exportTable.unknownSlot(ExportTableArea.T_CUDART_INTERFACE, 3));
    }

    @Test
    void whatCudartAsksAtStartUp() {
        MemorySegment v = mem(8);
        assertEquals(CuResult.SUCCESS, d.cuModuleGetLoadingMode(addr(v)));
        assertTrue(i32(v) == 1 || i32(v) == 2);
        assertEquals(CuResult.INVALID_VALUE, d.cuModuleGetLoadingMode(0));
        long ctx = initWithContext();
        v.set(ValueLayout.JAVA_INT, 0, 9);
        assertEquals(CuResult.SUCCESS, d.cuDeviceCanAccessPeer(addr(v), 0, 0));
        assertEquals(0, i32(v));
        assertEquals(CuResult.INVALID_DEVICE, d.cuDeviceCanAccessPeer(addr(v), 0, 1));
        assertEquals(CuResult.SUCCESS, d.cuDeviceGetDefaultMemPool(addr(v), 0), "a default memory pool (cudaMallocAsync)");
        assertEquals(CuResult.SUCCESS, d.cuCtxGetSharedMemConfig(addr(v)));
        assertEquals(1, i32(v), "CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE");
        assertEquals(CuResult.SUCCESS, d.cuCtxSetSharedMemConfig(2));
        assertEquals(CuResult.INVALID_VALUE, d.cuCtxSetSharedMemConfig(3));
        // cuPointerGetAttributes gives NULL as the host pointer of device memory (cudaPointerGetAttributes relies on it)
        long p = alloc(64);
        MemorySegment attrs = mem(4), data = mem(8), slot = mem(8);
        attrs.set(ValueLayout.JAVA_INT, 0, 4); // CU_POINTER_ATTRIBUTE_HOST_POINTER
        slot.set(ValueLayout.JAVA_LONG, 0, 99);
        data.set(ValueLayout.JAVA_LONG, 0, addr(slot));
        assertEquals(CuResult.SUCCESS, d.cuPointerGetAttributes(1, addr(attrs), addr(data), p));
        assertEquals(0, i64(slot));
        assertEquals(CuResult.INVALID_VALUE, d.cuPointerGetAttribute(addr(slot), 4, p), "the single-attribute call still refuses");
        assertTrue(ctx != 0);
    }
}
