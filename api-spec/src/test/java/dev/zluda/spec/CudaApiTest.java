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

    private CudaParam param(String function, String name) {
        return api.function(function).orElseThrow().param(name).orElseThrow();
    }

    @Test
    void cuMemcpyDtoHWritesByteCountBytesToDstHostInEveryVariant() {
        // cuda.h: "dstHost - Destination host pointer", "ByteCount - Size of memory copy in bytes"
        for (CudaFunction f : api.variants("cuMemcpyDtoH")) {
            CudaParam dst = f.param("dstHost").orElseThrow();
            assertEquals(Direction.OUT, dst.direction(), f.name());
            assertTrue(dst.size().bytes(), f.name());
            assertEquals("ByteCount", dst.size().expr().text(), f.name());
        }
        assertEquals(3, api.variants("cuMemcpyDtoH").size());
    }

    @Test
    void cuModuleLoadDataExOptionArraysHaveNumOptionsEntries() {
        CudaFunction f = api.function("cuModuleLoadDataEx").orElseThrow();
        CudaParam options = f.param("options").orElseThrow();
        assertEquals(Direction.IN, options.direction());
        assertFalse(options.size().bytes());
        assertEquals("numOptions", options.size().expr().text());
        assertEquals("numOptions", f.param("optionValues").orElseThrow().size().expr().text());
        assertEquals(List.of("module"), f.creates());
        assertEquals(Direction.OUT, f.param("module").orElseThrow().direction());
    }

    @Test
    void cuPointerGetAttributesReadsNumAttributesAttributesAndResultPointers() {
        CudaParam attrs = param("cuPointerGetAttributes", "attributes");
        assertEquals(Direction.IN, attrs.direction());
        assertEquals("numAttributes", attrs.size().expr().text());
        assertEquals("CUpointer_attribute", attrs.pointeeType());
        CudaParam data = param("cuPointerGetAttributes", "data");
        assertEquals("numAttributes", data.size().expr().text());
        assertEquals("void *", data.pointeeType());
        // the single-attribute query returns a value whose size depends on the attribute
        assertTrue(param("cuPointerGetAttribute", "data").opaque());
        assertEquals(Direction.OUT, param("cuPointerGetAttribute", "data").direction());
    }

    @Test
    void rangeAndBatchSizesUseTheRightCountParameter() {
        // "dataSize - Array containing the size of data"; count is the size of the queried range
        CudaParam data = param("cuMemRangeGetAttribute", "data");
        assertEquals(Direction.OUT, data.direction());
        assertTrue(data.size().bytes());
        assertEquals("dataSize", data.size().expr().text());
        // "numAttrs - Size of attrs and attrsIdxs arrays", "count - Size of dsts, srcs and sizes arrays"
        assertEquals("numAttrs", param("cuMemcpyBatchAsync_v2", "attrs").size().expr().text());
        assertEquals("numAttrs", param("cuMemcpyBatchAsync_v2", "attrsIdxs").size().expr().text());
        assertEquals("count", param("cuMemcpyBatchAsync_v2", "dsts").size().expr().text());
        assertEquals("numPrefetchLocs", param("cuMemPrefetchBatchAsync", "prefetchLocs").size().expr().text());
        // one descriptor: numMipmapLevels counts mipmap levels, not descriptors
        assertEquals("1", param("cuMipmappedArrayCreate", "pMipmappedArrayDesc").size().expr().text());
    }

    @Test
    void outputBuffersOfDeviceQueries() {
        CudaParam luid = param("cuDeviceGetLuid", "luid");
        assertEquals(Direction.OUT, luid.direction());
        assertFalse(luid.string(), "an LUID is 8 binary bytes, not text");
        assertEquals("8", luid.size().expr().text());
        CudaParam bus = param("cuDeviceGetPCIBusId", "pciBusId");
        assertEquals(FormatKind.STRING, bus.format());
        assertEquals(Direction.OUT, bus.direction());
        assertEquals("len", bus.size().expr().text());
        assertEquals("count", param("cuDeviceGetHostAtomicCapabilities", "capabilities").size().expr().text());
        assertEquals(Direction.OUT, param("cuDeviceGetHostAtomicCapabilities", "capabilities").direction());
    }

    @Test
    void handleLifetimes() {
        assertEquals(List.of("hmod"), api.function("cuModuleUnload").orElseThrow().destroys());
        assertEquals(List.of(), api.function("cuModuleGetFunction").orElseThrow().creates(), "functions belong to their module");
        assertEquals(List.of(), api.function("cuModuleGetGlobal_v2").orElseThrow().creates(), "a global is not an allocation");
        assertEquals(List.of("phStream"), api.function("cuStreamCreate").orElseThrow().creates());
        assertEquals(List.of("hStream"), api.function("cuStreamDestroy_v2").orElseThrow().destroys());
        assertEquals(List.of("phEvent"), api.function("cuEventCreate").orElseThrow().creates());
        assertEquals(List.of("hEvent"), api.function("cuEventDestroy_v2").orElseThrow().destroys());
        assertEquals(List.of("pp"), api.function("cuMemHostAlloc").orElseThrow().creates());
        assertEquals(List.of("p"), api.function("cuMemFreeHost").orElseThrow().destroys());
        assertEquals(List.of("dptr"), api.function("cuMemAllocAsync_ptsz").orElseThrow().creates());
        assertEquals(List.of("dptr"), api.function("cuMemFreeAsync").orElseThrow().destroys());
        assertEquals(List.of("pctx"), api.function("cuDevicePrimaryCtxRetain").orElseThrow().creates());
        assertEquals(List.of(), api.function("cuDevicePrimaryCtxRelease_v2").orElseThrow().destroys());
        assertEquals(List.of("stateOut"), api.function("cuLinkCreate_v2").orElseThrow().creates());
        assertEquals(List.of("state"), api.function("cuLinkDestroy").orElseThrow().destroys());
        for (CudaFunction f : api.variants("cuCtxCreate")) assertEquals(List.of("pctx"), f.creates(), f.name());
    }

    @Test
    void flagsNameTheirEnumOnlyWhereCudaHHasOne() {
        assertEquals("CUctx_flags", param("cuCtxCreate_v4", "flags").flagsEnum());
        assertEquals("CUstream_flags", param("cuStreamCreate", "Flags").flagsEnum());
        assertEquals("CUevent_flags", param("cuEventCreate", "Flags").flagsEnum());
        assertEquals("CUmemAttach_flags", param("cuMemAllocManaged", "flags").flagsEnum());
        assertEquals(null, param("cuMemHostAlloc", "Flags").flagsEnum(), "CU_MEMHOSTALLOC_* are macros");
        assertEquals(FormatKind.FLAGS, param("cuMemHostAlloc", "Flags").format());
    }

    @Test
    void launchArgumentsAreNotFollowed() {
        CudaParam kp = param("cuLaunchKernel_ptsz", "kernelParams");
        assertEquals(Direction.IN, kp.direction());
        assertTrue(kp.opaque(), "its length comes from the kernel signature");
        assertTrue(param("cuLaunchKernel_ptsz", "extra").opaque());
        assertTrue(param("cuLaunchHostFunc", "userData").opaque());
        assertEquals(Direction.OUT, param("cuGetProcAddress_v2", "pfn").direction());
        assertEquals("1", param("cuGetProcAddress_v2", "pfn").size().expr().text());
    }

    @Test
    void variantsOfAFunctionAgreeOnSharedParameters() {
        for (String base : api.baseNames()) {
            List<CudaFunction> vs = api.variants(base);
            for (CudaFunction a : vs) {
                if (!CudaApi.mustBeAnnotated(a)) continue;
                for (CudaFunction b : vs) {
                    for (CudaParam p : a.params()) {
                        CudaParam q = b.param(p.name()).orElse(null);
                        if (q == null || !q.cType().replace("_v1", "").equals(p.cType().replace("_v1", ""))) continue;
                        String what = a.name() + "/" + b.name() + "." + p.name();
                        assertEquals(p.direction(), q.direction(), what);
                        assertEquals(p.opaque(), q.opaque(), what);
                        assertEquals(p.string(), q.string(), what);
                        assertEquals(p.flagsEnum(), q.flagsEnum(), what);
                        assertEquals(p.size() == null ? null : p.size().expr().text() + p.size().bytes(),
                                q.size() == null ? null : q.size().expr().text() + q.size().bytes(), what);
                        assertEquals(a.creates().contains(p.name()), b.creates().contains(p.name()), what + " creates");
                        assertEquals(a.destroys().contains(p.name()), b.destroys().contains(p.name()), what + " destroys");
                    }
                }
            }
        }
    }

    @Test
    void constOfThePointeeDecidesWhetherOutIsAllowed() {
        // const char **pStr: the driver writes *pStr (CUDA Driver API, cuGetErrorString)
        CudaParam pStr = api.function("cuGetErrorString").orElseThrow().param("pStr").orElseThrow();
        assertEquals(Direction.OUT, pStr.direction());
        assertEquals("char *", pStr.pointeeType(), "pointee after dropping const");
        assertTrue(api.overlayProblems().isEmpty(), String.join("\n", api.overlayProblems()));
        // const void *srcHost is input data
        assertEquals(Direction.IN, api.function("cuMemcpyHtoD_v2").orElseThrow().param("srcHost").orElseThrow().direction());
    }
}
