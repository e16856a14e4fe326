package dev.zluda.runtime;

import dev.zluda.capture.Capture;
import dev.zluda.capture.text.Dump;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * End to end for programs built with nvcc: the runtime-API samples (samples/src/main/cu, built by
 * their Makefile with nvcc into samples/target/native/cudart, as the samples module's Maven build
 * does) run unmodified on this module's libcuda.so.1 with the trace layer on ({@code ZLUDA_LOG_DIR},
 * which is what {@code zluda run --zluda-trace} sets). Each program checks its own results and must
 * print PASS; the capture must end cleanly, hold the calls the feature under test goes through
 * with the results CUDA documents, and no call may be unsupported. The variants (shared cudart,
 * uncompressed, LZ4-compressed and PTX-only fatbins) make the driver read every fatbin form nvcc
 * writes. Skipped, with the reason, without nvcc or the built libcuda.so.1.
 */
class CudartSamplesTest {
    private static Path bin;
    private static Path nativeDir;
    private static Path cuda;

    @BeforeAll
    static void build() throws Exception {
        nativeDir = NativeTests.nativeDir();
        cuda = CudartProgramTest.cudaHome();
        Assumptions.assumeTrue(cuda != null, "SKIPPED: nvcc not found (CUDA_HOME, /usr/local/cuda, PATH): the runtime-API samples cannot be built");
        Path repo = NativeTests.repo();
        Path src = repo.resolve("samples/src/main/cu");
        Assumptions.assumeTrue(Files.isDirectory(src), "SKIPPED: no samples in " + src);
        // the same output directory as the samples module's build, so nvcc runs once per program
        Path build = repo.resolve("samples/target/native");
        Process p = new ProcessBuilder("make", "-s", "-C", src.toString(), "BUILD=" + build, "CUDA_HOME=" + cuda)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(600, TimeUnit.SECONDS), "building the samples timed out:\n" + out);
        assertEquals(0, p.exitValue(), "building the runtime-API samples with nvcc failed:\n" + out);
        bin = build.resolve("cudart");
    }

    private static boolean called(String dump, String function, String result) {
        return dump.lines().map(String::strip).anyMatch(l -> l.startsWith(function + "(") && l.endsWith("-> " + result));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            // program      | calls that must appear, with their result (function:RESULT;...)
            "templates      | cuLaunchKernel:CUDA_SUCCESS;cuKernelGetAttribute:CUDA_SUCCESS;cuKernelSetAttribute:CUDA_SUCCESS;cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags:CUDA_SUCCESS",
            "templates_lz4  | cuLaunchKernel:CUDA_SUCCESS;cuKernelGetFunction:CUDA_SUCCESS",
            "streams        | cuStreamWaitEvent:CUDA_SUCCESS;cuLaunchHostFunc:CUDA_SUCCESS;cuStreamAddCallback:CUDA_SUCCESS;cuEventElapsedTime_v2:CUDA_SUCCESS;cuMemcpyHtoDAsync_v2:CUDA_SUCCESS;cuStreamCreateWithPriority:CUDA_SUCCESS",
            "streams_shared | cuStreamWaitEvent:CUDA_SUCCESS;cuMemHostAlloc:CUDA_SUCCESS",
            "printf         | cuCtxSynchronize_v2:CUDA_SUCCESS;cuStreamSynchronize:CUDA_SUCCESS",
            "printf_shared  | cuCtxSynchronize_v2:CUDA_SUCCESS",
            "assert         | cuCtxSynchronize_v2:CUDA_ERROR_ASSERT;cuMemAlloc_v2:CUDA_ERROR_ASSERT;cuDevicePrimaryCtxReset:CUDA_SUCCESS",
            "constant       | cuLibraryGetGlobal:CUDA_SUCCESS;cuMemcpyHtoDAsync_v2:CUDA_SUCCESS",
            "constant_ptx   | cuLibraryGetGlobal:CUDA_SUCCESS",
            "atomics        | cuLaunchKernel:CUDA_SUCCESS",
            "warp           | cuLaunchKernel:CUDA_SUCCESS",
            "graphs         | cuStreamBeginCapture_v2:CUDA_SUCCESS;cuStreamEndCapture:CUDA_SUCCESS;cuGraphInstantiateWithFlags:CUDA_SUCCESS;cuGraphLaunch:CUDA_SUCCESS;cuGraphExecKernelNodeSetParams_v2:CUDA_SUCCESS;cuGraphExecUpdate_v2:CUDA_SUCCESS;cuMemAllocAsync:CUDA_SUCCESS;cuGraphAddChildGraphNode:CUDA_SUCCESS",
    })
    void runsOnZludaAndPasses(String program, String calls, @TempDir Path logs) throws Exception {
        Path exe = bin.resolve(program);
        assertTrue(Files.isExecutable(exe), "not built: " + exe);
        ProcessBuilder pb = new ProcessBuilder(exe.toString());
        // stderr apart: device assertion messages go there, printf output to stdout
        Path err = logs.resolve("stderr.txt");
        pb.redirectError(err.toFile());
        NativeTests.onDriver(pb, nativeDir + java.io.File.pathSeparator + cuda.resolve("lib64"));
        pb.environment().put("ZLUDA_LOG_DIR", logs.toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(180, TimeUnit.SECONDS), "timed out:\n" + out);
        String stderr = Files.readString(err);
        String both = out + "\n--- stderr:\n" + stderr;
        assertEquals(0, p.exitValue(), both);
        List<String> lines = out.lines().toList();
        assertTrue(lines.contains("PASS"), both);
        assertTrue(both.lines().noneMatch(l -> l.startsWith("[ZLUDA]") && l.matches(".*(not supported|not provided).*")),
                "nothing on this program's path is unsupported:\n" + both);

        String base = program.replaceAll("_(shared|lz4|ptx)$", "");
        switch (base) {
            case "printf" -> {
                // the last kernel's lines appear at the blocking copy, before the verdict
                int tag2 = lines.indexOf("tag 2 block 0 thread 0: 0");
                assertTrue(tag2 >= 0 && tag2 < lines.indexOf("PASS"), both);
                assertTrue(lines.contains("tag 2 block 0 thread 1: 1"), both);
            }
            case "assert" -> {
                for (int t = 5; t <= 6; t++) {
                    assertTrue(stderr.contains("assert.cu:16: void checkPositive(const int *, int, int *): block: [2,0,0], thread: [" + t + ",0,0] "
                            + "Assertion `data[i] > 0` failed."), "each failing thread's assertion message, as CUDA prints it:\n" + both);
                }
            }
            default -> { }
        }

        Path cap = logs.resolve(program);
        String dump;
        try (Capture c = Capture.open(cap)) {
            StringWriter s = new StringWriter();
            Dump.dump(c, Dump.Options.all(), new PrintWriter(s));
            dump = s.toString();
        }
        try (Capture c = Capture.open(cap)) {
            assertTrue(c.reader().forEachRecord(r -> { }).endedCleanly(), "the capture ends with PROCESS_END");
        }
        assertTrue(called(dump, "cuLibraryLoadData", "CUDA_SUCCESS"), "cudart loads the fatbin with cuLibraryLoadData:\n" + dump);
        assertTrue(dump.lines().noneMatch(l -> l.endsWith("-> CUDA_ERROR_NOT_SUPPORTED")), dump);
        for (String c : calls.strip().split(";")) {
            String[] fr = c.split(":");
            assertTrue(called(dump, fr[0], fr[1]), "expected " + fr[0] + "(...) -> " + fr[1] + " in the capture:\n" + dump);
        }
    }
}
