package dev.zluda.spec.gen;

import dev.zluda.spec.CudaApi;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What EntryGenerator makes of the spec for the Java driver: the dispatch table, the typed API, the struct views. */
class EntryGeneratorTest {
    private final CudaApi api = CudaApi.get();
    private final EntryGenerator g = new EntryGenerator(api);

    private int id(String name) {
        return api.function(name).orElseThrow().id();
    }

    @Test
    void theTableSendsEveryServedVariantToItsAreaMethod() {
        String t = g.driverTableJava("p");
        assertTrue(t.contains("case " + id("cuLaunchKernel_ptsz") + " -> a.launch.cuLaunchKernel(w[0], (int) w[1],"), "a per-thread variant");
        assertTrue(t.contains("case " + id("cuCtxDestroy") + " -> a.context.cuCtxDestroy_v2(w[0]); // cuCtxDestroy"), "served as its _v2");
        assertTrue(t.contains("case " + id("cuMemcpyHtoD_v2") + " -> a.copy.cuMemcpyHtoD_v2(w[0], w[1], w[2]);"));
        assertFalse(t.contains("case " + id("cuGraphicsMapResources") + " ->"), "what no area serves falls to the default");
        assertTrue(t.contains("default -> a.unsupported(id);"));
    }

    @Test
    void javaCallersPackArgumentsAsTheCExportsDo() {
        String api = g.driverApiJava("p");
        // cuDeviceGet(CUdevice *device, int ordinal): a signed int stays sign-extended
        assertTrue(api.contains("default int cuDeviceGet(long device, int ordinal) {\n        return call(" + id("cuDeviceGet") + ", new long[] {device, ordinal});"), api.substring(0, 2000));
        // cuLaunchKernel's unsigned dimensions are zero-extended, as uint32_t is in zluda_exports.c
        assertTrue(api.contains("Integer.toUnsignedLong(gridDimX)"));
    }

    @Test
    void structViewsCarryTheHeaderLayout() {
        String s = g.structsJava("p");
        // CUDA_MEMCPY2D on x86-64 (cuda.h): srcXInBytes 0, srcY 8, srcMemoryType 16, ... dstMemoryType 72, 128 bytes
        assertTrue(s.contains("public static final class CUDA_MEMCPY2D {"));
        assertTrue(s.contains("public static final int OFF_srcMemoryType = 16;"));
        assertTrue(s.contains("public static final int OFF_dstMemoryType = 72;"));
        assertTrue(s.contains("public static final int SIZE = 128;"));
        // a member of a struct member, flattened: CUmemPoolProps.location.id
        assertTrue(s.contains("public static int location_id(long address) {"));
        // an array member by index: CUDA_TEXTURE_DESC.borderColor[4] of float
        assertTrue(s.contains("public static float borderColor(long address, int i) {"));
    }
}
