package dev.zluda.libraries;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An nvcc-built CUDA runtime program that uses cuBLAS and cuBLASLt (libraries/src/test/cuda/
 * gemm_lt_demo.cu: cublasGemmEx and cublasLtMatmul with a bias+GELU epilogue) runs unmodified on
 * zluda's driver with zluda's libraries and passes its own check. It is compiled against NVIDIA's
 * cublas_v2.h and cublasLt.h and linked against zluda's libcublas.so.13 and libcublasLt.so.13 (same
 * sonames and version nodes as NVIDIA's). Skipped, saying why, without nvcc or NVIDIA's cuBLAS headers
 * ($CUDA_HOME/include, or a directory in ZLUDA_LIBRARY_INCLUDE).
 */
class NvccProgramTest {
    @Test
    void gemmLtDemoRunsUnmodifiedOnZludaAndPassesItsOwnCheck(@TempDir Path tmp) throws Exception {
        Path repo = Path.of(System.getProperty("zluda.repo", "..")).toAbsolutePath().normalize();
        Path driver = repo.resolve("zluda-runtime/target/native");
        Path libs = Path.of(System.getenv().getOrDefault("ZLUDA_LIBRARIES_NATIVE", "target/native")).toAbsolutePath().resolve("lib");
        Assumptions.assumeTrue(Files.isRegularFile(driver.resolve("libcuda.so.1")) && Files.isRegularFile(libs.resolve("libcublas.so.13")),
                "SKIPPED: zluda's libcuda.so.1 or libcublas.so.13 is not built");
        String cudaHome = System.getenv().getOrDefault("CUDA_HOME", "/usr/local/cuda");
        Path nvcc = Path.of(cudaHome, "bin/nvcc");
        Assumptions.assumeTrue(Files.isExecutable(nvcc), "SKIPPED: no nvcc in " + cudaHome + "/bin — the nvcc-built program cannot be built");
        List<Path> incs = new ArrayList<>();
        for (Path d : LibraryDirs.includeDirs()) if (Files.isRegularFile(d.resolve("cublasLt.h"))) incs.add(d);
        Assumptions.assumeTrue(!incs.isEmpty(), "SKIPPED: no NVIDIA cublasLt.h in " + LibraryDirs.includeDirs()
                + " (install cuBLAS's headers or set ZLUDA_LIBRARY_INCLUDE) — the nvcc-built program cannot be built");
        Path exe = tmp.resolve("gemm_lt_demo");
        List<String> cmd = new ArrayList<>(List.of(nvcc.toString(), "-O2", "-o", exe.toString(),
                repo.resolve("libraries/src/test/cuda/gemm_lt_demo.cu").toString()));
        for (Path d : incs) cmd.add("-I" + d);
        cmd.addAll(List.of("-L" + libs, "-lcublasLt", "-lcublas"));
        Process b = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String bout = new String(b.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(b.waitFor(300, TimeUnit.SECONDS) && b.exitValue() == 0, "nvcc failed:\n" + bout);

        ProcessBuilder pb = new ProcessBuilder(exe.toString()).redirectErrorStream(true);
        LibraryDirs.onZluda(pb, libs + ":" + driver);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), out);
        assertTrue(out.contains("cublasGemmEx fp16 x fp16 -> fp32: 6144 results within the bound"), out);
        assertTrue(out.contains("cublasLtMatmul fp32 TN bias+GELU: 6144 results within the bound"), out);
        assertTrue(out.lines().anyMatch(l -> l.equals("PASS")), out);
        assertEquals(0, p.exitValue(), out);

        // the same program with NVIDIA's tracers in front of zluda's driver and libraries: a capture of a
        // zluda run whose library calls are there, with the driver calls they make nested inside
        Path traceDir = repo.resolve("nvidia-capture/target/native/trace");
        Assumptions.assumeTrue(Files.isRegularFile(traceDir.resolve("libcublas.so.13")), "SKIPPED: the tracers are not built in " + traceDir);
        Path logs = tmp.resolve("logs");
        ProcessBuilder tb = new ProcessBuilder(exe.toString()).redirectErrorStream(true);
        LibraryDirs.onZluda(tb, traceDir + ":" + libs);
        tb.environment().put("ZLUDA_CUDA_LIB", driver.resolve("libcuda.so.1").toString());
        tb.environment().put("ZLUDA_LOG_DIR", logs.toString());
        Process t = tb.start();
        String tout = new String(t.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(t.waitFor(300, TimeUnit.SECONDS), tout);
        assertEquals(0, t.exitValue(), tout);
        Path cap = null;
        try (var dirs = Files.list(logs)) {
            for (Path d : dirs.toList()) if (Files.readString(d.resolve("manifest.json")).contains("zluda nvidia-capture")) cap = d;
        }
        assertTrue(cap != null, "no tracer capture in " + logs);
        java.io.StringWriter sw = new java.io.StringWriter();
        try (dev.zluda.capture.Capture c = dev.zluda.capture.Capture.open(cap)) {
            dev.zluda.capture.text.Dump.dump(c, dev.zluda.capture.text.Dump.Options.all(), new java.io.PrintWriter(sw));
        }
        String dump = sw.toString();
        assertTrue(dump.matches("(?s).*\\ncublasGemmEx\\(handle: 0x[0-9a-f]+, transa: CUBLAS_OP_N, transb: CUBLAS_OP_N, m: 96, n: 64, k: 80,.*"
                + "computeType: CUBLAS_COMPUTE_32F, algo: CUBLAS_GEMM_DFALT\\) -> CUBLAS_STATUS_SUCCESS\\n(  .*\\n)*  cuLaunchKernel\\(.*"), dump);
        assertTrue(dump.matches("(?s).*\\ncublasLtMatmul\\(.*-> CUBLAS_STATUS_SUCCESS\\n(  .*\\n)*  cuLaunchKernel\\(.*"), dump);
    }
}
