package dev.zluda.cli;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SpecCommandTest {
    private static CliRun.Result run(String... args) {
        return CliRun.run(args);
    }

    @Test
    void listPrintsEveryFunctionOncePerLine() {
        CliRun.Result r = run("spec", "--list");
        assertEquals(0, r.code());
        String[] lines = r.out().split("\n");
        assertEquals(dev.zluda.spec.CudaApi.get().functions().size(), lines.length);
        assertTrue(r.out().contains("\ncuMemAlloc_v2\n"));
        assertTrue(r.out().contains("\ncuLaunchKernel_ptsz\n"));
    }

    @Test
    void signatureShowsDirectionsAndSizes() {
        CliRun.Result r = run("spec", "cuMemcpyDtoH_v2");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount);"), r.out());
        assertTrue(r.out().contains("[out] void *dstHost  (ByteCount bytes)"), r.out());
        assertTrue(r.out().contains("from CUDA 3.2 on"), r.out());
    }

    @Test
    void aLibraryFunctionShowsItsLibrarysSpec() {
        CliRun.Result r = run("spec", "cublasLtMatmulDescSetAttribute");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t matmulDesc, "), r.out());
        assertTrue(r.out().contains("[in] const void *buf  (sizeInBytes bytes)"), r.out());
        assertTrue(r.out().contains("libcublasLt.so.13, exported by NVIDIA's library"), r.out());
        CliRun.Result list = run("spec", "--library", "cudnn", "--list");
        assertEquals(0, list.code(), list.err());
        assertEquals(dev.zluda.spec.CudaApi.library("cudnn").functions().size(), list.out().split("\n").length);
        assertTrue(list.out().contains("\ncudnnConvolutionForward\n"), list.out());
        assertEquals(2, run("spec", "--library", "cuquantum", "--list").code());
    }

    @Test
    void baseNameShowsEveryVariant() {
        CliRun.Result r = run("spec", "cuCtxCreate");
        assertEquals(0, r.code());
        for (String v : new String[] {"cuCtxCreate(", "cuCtxCreate_v2(", "cuCtxCreate_v3(", "cuCtxCreate_v4("}) {
            assertTrue(r.out().contains(v), v + " missing in\n" + r.out());
        }
    }

    @Test
    void procAddressAnswersAsMeasured() {
        assertEquals("cuCtxCreate_v4\n", run("spec", "--proc", "cuCtxCreate", "--cuda-version", "12050").out());
        assertEquals("cuCtxCreate_v3\n", run("spec", "--proc", "cuCtxCreate", "--cuda-version", "12040").out());
        assertEquals("cuMemcpyHtoD_v2_ptds\n", run("spec", "--proc", "cuMemcpyHtoD", "--cuda-version", "12000", "--flags", "2").out());
        assertEquals("CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT\n", run("spec", "--proc", "cuGetProcAddress", "--cuda-version", "11000").out());
    }

    @Test
    void unknownNameSuggestsAndExitsTwo() {
        CliRun.Result r = run("spec", "cuMemAloc");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("no CUDA driver function named 'cuMemAloc'"), r.err());
        assertTrue(r.err().contains("Closest: cuMemAlloc"), r.err());
        assertEquals(2, run("spec", "--proc", "cuNoSuch").code());
    }

    @Test
    void badUsageExitsTwoAndHelpAnswers() {
        assertEquals(2, run("spec", "--bogus").code());
        assertEquals(2, run("spec").code());
        CliRun.Result help = run("--help");
        assertEquals(0, help.code());
        assertTrue(help.out().contains("spec"), help.out());
        CliRun.Result version = run("--version");
        assertEquals(0, version.code());
        assertTrue(version.out().contains("CUDA 13.0"), version.out());
    }
}
