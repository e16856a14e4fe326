package dev.zluda.spec;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Look-ups and parameter facts, checked against the CUDA Driver API documentation of each function. */
class CudaApiTest {
    private final CudaApi api = CudaApi.get();

    @Test
    void lookUpByNameAndId() {
        CudaFunction f = api.function("cuMemcpyHtoD_v2").orElseThrow();
        assertSame(f, api.function(f.id()));
        assertEquals("cuMemcpyHtoD", f.baseName());
        assertEquals("CUDA_MEM", f.group());
        assertEquals("CUresult", f.returnType());
        assertEquals("CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)", f.prototype());
        assertFalse(api.function("cuMemcpyHtoD_v3").isPresent());
        for (int i = 0; i < api.functions().size(); i++) assertEquals(i, api.functions().get(i).id());
    }

    @Test
    void cuMemcpyHtoDReadsByteCountBytesFromSrcHost() {
        CudaFunction f = api.function("cuMemcpyHtoD_v2").orElseThrow();
        CudaParam dst = f.param("dstDevice").orElseThrow();
        assertEquals(FormatKind.DEVICE_POINTER, dst.format());
        CudaParam src = f.param("srcHost").orElseThrow();
        assertEquals(FormatKind.POINTER, src.format());
        assertEquals(Direction.IN, src.direction());
        assertTrue(src.size().bytes());
        assertEquals("ByteCount", src.size().expr().text());
        assertEquals(FormatKind.SIZE, f.param("ByteCount").orElseThrow().format());
    }

    @Test
    void cuMemcpy2DReadsOneDescriptor() {
        CudaParam p = api.function("cuMemcpy2D_v2").orElseThrow().param("pCopy").orElseThrow();
        assertEquals(Direction.IN, p.direction());
        assertFalse(p.size().bytes());
        assertEquals("1", p.size().expr().text());
        assertEquals("CUDA_MEMCPY2D", p.pointeeType());
        assertEquals(128, api.sizeOfType(p.pointeeType()), "sizeof(CUDA_MEMCPY2D) on x86-64");
    }

    @Test
    void allocationAndContextLifetimes() {
        CudaFunction alloc = api.function("cuMemAlloc_v2").orElseThrow();
        assertEquals(List.of("dptr"), alloc.creates());
        assertEquals(Direction.OUT, alloc.param("dptr").orElseThrow().direction());
        assertEquals(List.of("dptr"), api.function("cuMemFree_v2").orElseThrow().destroys());
        assertEquals(List.of("pctx"), api.function("cuCtxCreate_v2").orElseThrow().creates());
        assertEquals(List.of("ctx"), api.function("cuCtxDestroy_v2").orElseThrow().destroys());
        assertEquals(FormatKind.HANDLE, api.function("cuCtxDestroy_v2").orElseThrow().param("ctx").orElseThrow().format());
    }

    @Test
    void formatKinds() {
        CudaFunction attr = api.function("cuDeviceGetAttribute").orElseThrow();
        assertEquals(FormatKind.ENUM, attr.param("attrib").orElseThrow().format());
        assertEquals(FormatKind.HANDLE, attr.param("dev").orElseThrow().format(), "CUdevice is a value handle");
        assertEquals(Direction.OUT, attr.param("pi").orElseThrow().direction());
        CudaFunction name = api.function("cuDeviceGetName").orElseThrow();
        CudaParam buf = name.param("name").orElseThrow();
        assertEquals(FormatKind.STRING, buf.format());
        assertEquals(Direction.OUT, buf.direction());
        assertEquals("len", buf.size().expr().text());
        assertEquals(FormatKind.STRING, api.function("cuModuleLoad").orElseThrow().param("fname").orElseThrow().format());
        assertEquals(FormatKind.FLAGS, api.function("cuInit").orElseThrow().param("Flags").orElseThrow().format());
        assertEquals(FormatKind.FUNCTION_POINTER, api.function("cuLaunchHostFunc").orElseThrow().param("fn").orElseThrow().format());
    }

    @Test
    void enumsAndRecords() {
        CudaEnum r = api.enumType("CUresult").orElseThrow();
        assertEquals(0, r.valueOf("CUDA_SUCCESS").orElseThrow());
        assertEquals(500, r.valueOf("CUDA_ERROR_NOT_FOUND").orElseThrow());
        assertEquals("CUDA_ERROR_NOT_SUPPORTED", r.nameOf(801).orElseThrow());
        CudaRecord m = api.record("CUDA_MEMCPY2D").orElseThrow();
        assertEquals(128, m.size());
        assertEquals(0, m.fields().getFirst().offset());
        assertEquals("srcXInBytes", m.fields().getFirst().name());
        assertTrue(api.handleTypes().contains("CUcontext"));
        assertEquals(8, api.sizeOfType("CUdeviceptr"));
        assertEquals(16, api.sizeOfType("CUuuid"));
    }

    @Test
    void variantsShareABaseName() {
        List<String> names = api.variants("cuCtxCreate").stream().map(CudaFunction::name).sorted().toList();
        assertEquals(List.of("cuCtxCreate", "cuCtxCreate_v2", "cuCtxCreate_v3", "cuCtxCreate_v4"), names);
    }
}
