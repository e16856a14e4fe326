package dev.zluda.runtime;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * End to end: the driver-API samples (samples/README.md), built here with make against CUDA's
 * cuda.h, run unmodified on this module's libcuda.so.1 (which boots a JVM with this test's class
 * path) and must print PASS. Small sizes keep each run to about a second plus the JVM start.
 * Skipped, with the reason, when cuda.h or the built libcuda.so.1 is missing.
 */
class SamplesTest {
    private static Path bin;
    private static Path nativeDir;

    @BeforeAll
    static void build() throws Exception {
        String d = System.getenv("ZLUDA_TEST_NATIVE");
        nativeDir = Path.of(d != null ? d : "target/native").toAbsolutePath();
        Assumptions.assumeTrue(Files.isRegularFile(nativeDir.resolve("libcuda.so.1")), "SKIPPED: libcuda.so.1 not built in " + nativeDir);
        Path repo = Path.of(System.getProperty("zluda.repo", "..")).toAbsolutePath().normalize();
        Path src = repo.resolve("samples/src/main/c");
        Assumptions.assumeTrue(Files.isDirectory(src), "SKIPPED: no samples in " + src);
        String cudaHome = System.getenv().getOrDefault("CUDA_HOME", "/usr/local/cuda");
        Assumptions.assumeTrue(Files.isRegularFile(Path.of(cudaHome, "include/cuda.h")),
                "SKIPPED: " + cudaHome + "/include/cuda.h not found (install the CUDA toolkit or set CUDA_HOME) — the samples cannot be built");
        Path build = Path.of("target/samples").toAbsolutePath();
        Process p = new ProcessBuilder("make", "-s", "-C", src.toString(), "BUILD=" + build, "CUDA_HOME=" + cudaHome)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Assumptions.assumeTrue(p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0, "SKIPPED: building the samples failed:\n" + out);
        bin = build.resolve("bin");
        Assumptions.assumeTrue(Files.isExecutable(bin.resolve("vectorAdd")), "SKIPPED: the samples were not built:\n" + out);
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
            "vectorAdd     | 10000 128",
            "matrixMul     | 50 40 30",
            "reduction     | 50000 40",
            "histogram     | 50000 20",
            "scan          | 5000 64",
            "illegalAccess | ''",
            "graphs        | 3000",
    })
    void samplePasses(String sample, String args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(bin.resolve(sample).toString());
        for (String a : args.trim().split(" +")) if (!a.isEmpty()) cmd.add(a);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("LD_LIBRARY_PATH", nativeDir.toString());
        pb.environment().put("ZLUDA_JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("ZLUDA_CLASSPATH", System.getProperty("java.class.path"));
        // short runs: C2 compilations cost more than they save (about 1 s of CPU per run)
        pb.environment().putIfAbsent("ZLUDA_JVM_OPTS", "-XX:TieredStopAtLevel=1");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "timed out:\n" + out);
        assertTrue(out.lines().anyMatch(l -> l.equals("PASS")), out);
        assertEquals(0, p.exitValue(), out);
        if (sample.equals("illegalAccess")) {
            assertTrue(out.contains("[ZLUDA] kernel writeOutOfBounds: CUDA_ERROR_ILLEGAL_ADDRESS: CTA (0,0,0) thread (0,0,0)"), out);
        }
    }
}
