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
        pb.environment().put("LD_LIBRARY_PATH", libs + ":" + driver);
        pb.environment().put("ZLUDA_JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("ZLUDA_CLASSPATH", System.getProperty("java.class.path"));
        pb.environment().put("ZLUDA_JVM_OPTS", "-XX:TieredStopAtLevel=1");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), out);
        assertTrue(out.contains("cublasGemmEx fp16 x fp16 -> fp32: 6144 results within the bound"), out);
        assertTrue(out.contains("cublasLtMatmul fp32 TN bias+GELU: 6144 results within the bound"), out);
        assertTrue(out.lines().anyMatch(l -> l.equals("PASS")), out);
        assertEquals(0, p.exitValue(), out);
    }
}
