package dev.zluda.spec;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The committed library specs (cuBLAS, cuBLASLt, cuFFT, cuSPARSE, cuDNN, NVML) as the model loads
 * them: what their headers declare against what NVIDIA's libraries export, and the directions the
 * overlays and rules give pointer parameters. The numbers are checked against the headers by
 * LibrarySpecMatchesHeaderTest where the headers are installed.
 */
class LibrarySpecTest {
    @ParameterizedTest
    @ValueSource(strings = {"cublas", "cublasLt", "cufft", "cusparse", "cudnn", "nvml"})
    void loadsConsistentlyAndEveryDeclaredFunctionIsExportedOrKnownNotToBe(String library) {
        CudaApi api = CudaApi.library(library);
        assertEquals(library, api.name());
        assertTrue(api.overlayProblems().isEmpty(), api.overlayProblems().toString());
        assertFalse(api.functions().isEmpty());
        assertFalse(api.exports().isEmpty(), "no " + library + "-exports.txt");
        Set<String> exports = Set.copyOf(api.exports());
        Set<String> notExported = new TreeSet<>();
        for (CudaFunction f : api.functions()) {
            assertEquals(library, f.library(), f.name());
            assertEquals(library, CudaApi.libraryOf(f.name()), "the prefix of " + f.name() + " names its library");
            if (!exports.contains(f.name())) notExported.add(f.name());
        }
        // declared but not exported by the library NVIDIA ships (CUDA 13.0, cuDNN 9.14): 36 legacy
        // cuSPARSE *_bufferSizeExt queries, cusparseXgebsr2csr and one cuBLASLt switch
        switch (library) {
            case "cusparse" -> {
                assertEquals(37, notExported.size(), notExported.toString());
                assertTrue(notExported.stream().allMatch(n -> n.endsWith("_bufferSizeExt") || n.equals("cusparseXgebsr2csr")), notExported.toString());
            }
            case "cublasLt" -> assertEquals(Set.of("cublasLtDisableCpuInstructionsSetMask"), notExported);
            default -> assertEquals(Set.of(), notExported);
        }
        assertTrue(api.statusEnum().isPresent(), "a status enum for " + library);
    }

    @Test
    void cublasDeclaresTheV2ApiTheLegacyApiAndTheHalfPrecisionFunctions() {
        CudaApi api = CudaApi.library("cublas");
        assertEquals("libcublas.so.13", api.soname());
        CudaFunction sgemm = api.function("cublasSgemm_v2").orElseThrow();
        assertEquals(List.of("handle", "transa", "transb", "m", "n", "k", "alpha", "A", "lda", "B", "ldb", "beta", "C", "ldc"),
                sgemm.params().stream().map(CudaParam::name).toList());
        assertEquals("cublasStatus_t", sgemm.returnType());
        // cublas_api.h declares cublasHgemm for C++ only: the spec is generated from a C++ unit
        CudaFunction hgemm = api.function("cublasHgemm").orElseThrow();
        assertEquals("const __half *", hgemm.param("A").orElseThrow().cType());
        assertEquals(2, api.sizeOfType("__half"));
        // the legacy API of cublas.h: cublasSgemm without a handle, exported by the same library
        assertEquals("char", api.function("cublasSgemm").orElseThrow().params().getFirst().cType());
        assertTrue(api.function("cublasGemmEx").isPresent());
        assertTrue(api.function("cublasGemmStridedBatchedEx").isPresent());
        assertTrue(api.function("cublasXtSgemm").isPresent());
        assertEquals(15, api.enumType("cublasStatus_t").orElseThrow().members().stream()
                .filter(m -> m.name().equals("CUBLAS_STATUS_NOT_SUPPORTED")).findFirst().orElseThrow().value());
        assertEquals("cublasStatus_t", api.statusEnum().orElseThrow().name());
        assertTrue(api.handleTypes().contains("cublasHandle_t"));
        assertEquals("cublasSgemm_v2", api.macro("cublasSgemm").orElseThrow());
    }

    @Test
    void cublasPointersAreFollowedOnlyWhereTheyAreHostMemoryForCertain() {
        CudaApi api = CudaApi.library("cublas");
        CudaFunction create = api.function("cublasCreate_v2").orElseThrow();
        CudaParam h = create.param("handle").orElseThrow();
        assertEquals(Direction.OUT, h.direction());
        assertFalse(h.opaque());
        assertEquals(List.of("handle"), create.creates());
        assertEquals(List.of("handle"), api.function("cublasDestroy_v2").orElseThrow().destroys());
        assertEquals(Direction.OUT, api.function("cublasGetVersion_v2").orElseThrow().param("version").orElseThrow().direction());
        assertFalse(api.function("cublasGetVersion_v2").orElseThrow().param("version").orElseThrow().opaque());
        assertFalse(api.function("cublasGetPointerMode_v2").orElseThrow().param("mode").orElseThrow().opaque());
        assertFalse(api.function("cublasGetStream_v2").orElseThrow().param("streamId").orElseThrow().opaque());
        // device memory, or host/device by the pointer mode: never followed
        for (String p : List.of("alpha", "A", "B", "beta", "C")) assertTrue(api.function("cublasSgemm_v2").orElseThrow().param(p).orElseThrow().opaque(), p);
        assertTrue(api.function("cublasSdot_v2").orElseThrow().param("result").orElseThrow().opaque());
        assertTrue(api.function("cublasIsamax_v2").orElseThrow().param("result").orElseThrow().opaque());
        assertTrue(api.function("cublasSgemmBatched").orElseThrow().param("Aarray").orElseThrow().opaque());
    }

    @Test
    void cublasLtDescriptorsAreHandlesAndTheirAttributesAreRecorded() {
        CudaApi api = CudaApi.library("cublasLt");
        assertTrue(api.handleTypes().containsAll(List.of("cublasLtHandle_t", "cublasLtMatmulDesc_t", "cublasLtMatrixLayout_t", "cublasLtMatmulPreference_t")));
        CudaFunction matmul = api.function("cublasLtMatmul").orElseThrow();
        assertEquals(16, matmul.params().size());
        assertEquals(FormatKind.HANDLE, matmul.param("computeDesc").orElseThrow().format());
        assertFalse(matmul.param("algo").orElseThrow().opaque(), "the algo is a host struct");
        assertEquals(64, api.record("cublasLtMatmulAlgo_t").orElseThrow().size());
        CudaParam buf = api.function("cublasLtMatmulDescSetAttribute").orElseThrow().param("buf").orElseThrow();
        assertEquals(Direction.IN, buf.direction());
        assertTrue(buf.size().bytes());
        assertEquals("sizeInBytes", buf.size().expr().text());
        CudaParam results = api.function("cublasLtMatmulAlgoGetHeuristic").orElseThrow().param("heuristicResultsArray").orElseThrow();
        assertEquals(Direction.OUT, results.direction());
        assertEquals("requestedAlgoCount", results.size().expr().text());
        assertEquals(96, api.sizeOfType("cublasLtMatmulHeuristicResult_t"));
        assertNotNull(api.enumType("cublasLtEpilogue_t").orElseThrow().nameOf(1).orElse(null));
        assertEquals(List.of("matmulDesc"), api.function("cublasLtMatmulDescCreate").orElseThrow().creates());
    }

    @Test
    void theOtherLibrariesFollowTheSameRules() {
        CudaParam name = CudaApi.library("nvml").function("nvmlDeviceGetName").orElseThrow().param("name").orElseThrow();
        assertTrue(name.string());
        assertEquals(Direction.OUT, name.direction());
        assertEquals("length", name.size().expr().text());
        CudaParam plan = CudaApi.library("cufft").function("cufftPlan1d").orElseThrow().param("plan").orElseThrow();
        assertEquals(Direction.OUT, plan.direction());
        assertFalse(plan.opaque(), "a cufftHandle is host memory");
        assertEquals(FormatKind.HANDLE, CudaApi.library("cufft").function("cufftDestroy").orElseThrow().param("plan").orElseThrow().format());
        assertTrue(CudaApi.library("cufft").function("cufftExecC2C").orElseThrow().param("idata").orElseThrow().opaque());
        // cufftXt.h: what PyTorch and CuPy plan and run their FFTs with
        CudaFunction xtExec = CudaApi.library("cufft").function("cufftXtExec").orElseThrow();
        assertTrue(xtExec.param("input").orElseThrow().opaque(), "device memory is not followed");
        assertEquals(FormatKind.HANDLE, xtExec.param("plan").orElseThrow().format());
        CudaFunction xtPlan = CudaApi.library("cufft").function("cufftXtMakePlanMany").orElseThrow();
        assertEquals(Direction.OUT, xtPlan.param("workSize").orElseThrow().direction());
        assertEquals(FormatKind.ENUM, xtPlan.param("inputtype").orElseThrow().format());
        CudaFunction conv = CudaApi.library("cudnn").function("cudnnConvolutionForward").orElseThrow();
        assertTrue(conv.param("x").orElseThrow().opaque());
        assertEquals(FormatKind.HANDLE, conv.param("xDesc").orElseThrow().format());
        assertEquals(FormatKind.ENUM, conv.param("algo").orElseThrow().format());
        assertFalse(CudaApi.library("cusparse").function("cusparseCreate").orElseThrow().param("handle").orElseThrow().opaque());
    }

    @Test
    void functionNamesFindTheirLibrary() {
        assertEquals("cublasLt", CudaApi.libraryOf("cublasLtMatmul"));
        assertEquals("cublas", CudaApi.libraryOf("cublasSgemm_v2"));
        assertEquals("cuda", CudaApi.libraryOf("cuMemAlloc_v2"));
        assertEquals("cuda", CudaApi.libraryOf("{6bd5fb6c-5bf4-e74a-8987-d93912fd9df9}::slot 1"));
        assertEquals("cudnn", CudaApi.anyFunction("cudnnCreate").orElseThrow().library());
        assertTrue(CudaApi.anyFunction("cublasLt_for_cublas_SSS").isEmpty(), "an export no header declares");
    }
}
