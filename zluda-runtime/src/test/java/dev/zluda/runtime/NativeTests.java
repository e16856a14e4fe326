package dev.zluda.runtime;

import org.junit.jupiter.api.Assumptions;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * What the tests that run C programs on this module's built {@code libcuda.so.1} share: where the
 * library is, the driver-API samples built against it, and the environment under which the library
 * boots a JVM with this test's Java runtime and class path. Each method skips the calling test
 * (a failed JUnit assumption, with the reason) when what it needs is not there.
 */
final class NativeTests {
    private NativeTests() {}

    /** The folder of the built {@code libcuda.so.1} ({@code ZLUDA_TEST_NATIVE}, else {@code target/native}), absolute. */
    static Path nativeDir() {
        String d = System.getenv("ZLUDA_TEST_NATIVE");
        Path p = Path.of(d != null ? d : "target/native").toAbsolutePath();
        Assumptions.assumeTrue(Files.isRegularFile(p.resolve("libcuda.so.1")), "SKIPPED: libcuda.so.1 not built in " + p);
        return p;
    }

    /** The repository's root (the {@code zluda.repo} property Maven sets, else {@code ..}). */
    static Path repo() {
        return Path.of(System.getProperty("zluda.repo", "..")).toAbsolutePath().normalize();
    }

    /**
     * Builds the driver-API samples ({@code samples/src/main/c}) with make against CUDA's
     * {@code cuda.h} into {@code target/samples}; returns the folder of the programs.
     */
    static Path driverSamples() throws Exception {
        Path src = repo().resolve("samples/src/main/c");
        Assumptions.assumeTrue(Files.isDirectory(src), "SKIPPED: no samples in " + src);
        String cudaHome = System.getenv().getOrDefault("CUDA_HOME", "/usr/local/cuda");
        Assumptions.assumeTrue(Files.isRegularFile(Path.of(cudaHome, "include/cuda.h")),
                "SKIPPED: " + cudaHome + "/include/cuda.h not found (install the CUDA toolkit or set CUDA_HOME) — the samples cannot be built");
        Path build = Path.of("target/samples").toAbsolutePath();
        Process p = new ProcessBuilder("make", "-s", "-C", src.toString(), "BUILD=" + build, "CUDA_HOME=" + cudaHome)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Assumptions.assumeTrue(p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0, "SKIPPED: building the samples failed:\n" + out);
        Path bin = build.resolve("bin");
        Assumptions.assumeTrue(Files.isExecutable(bin.resolve("vectorAdd")), "SKIPPED: the samples were not built:\n" + out);
        return bin;
    }

    /**
     * Sets the environment under which {@code libcuda.so.1} boots a JVM with this test's Java runtime
     * and class path ({@code ZLUDA_JAVA_HOME}, {@code ZLUDA_CLASSPATH}) and, when {@code libraryPath}
     * is not null, finds the driver there first ({@code LD_LIBRARY_PATH}); short runs stop at C1
     * ({@code ZLUDA_JVM_OPTS}, unless set): C2 compilations cost more than they save (about 1 s of CPU
     * a run).
     */
    static ProcessBuilder onDriver(ProcessBuilder pb, String libraryPath) {
        if (libraryPath != null) pb.environment().put("LD_LIBRARY_PATH", libraryPath);
        withTestJvm(pb);
        pb.environment().putIfAbsent("ZLUDA_JVM_OPTS", "-XX:TieredStopAtLevel=1");
        return pb;
    }

    /** Makes {@code libcuda.so.1} boot its JVM from this test's Java runtime and class path. */
    static ProcessBuilder withTestJvm(ProcessBuilder pb) {
        pb.environment().put("ZLUDA_JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("ZLUDA_CLASSPATH", System.getProperty("java.class.path"));
        return pb;
    }

    /**
     * Runs {@code cmd} with these extra environment entries, on this test's JVM (see {@link #withTestJvm}), stdout
     * and stderr together; fails the test when it does not end within 120 s.
     *
     * @return "exit N" and a newline, then everything the command printed
     */
    static String runWithTestJvm(java.util.Map<String, String> env, String... cmd) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(env);
        withTestJvm(pb);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        org.junit.jupiter.api.Assertions.assertTrue(p.waitFor(120, TimeUnit.SECONDS), "timed out:\n" + out);
        return "exit " + p.exitValue() + "\n" + out;
    }
}
