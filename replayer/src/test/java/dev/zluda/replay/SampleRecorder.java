package dev.zluda.replay;

import org.junit.jupiter.api.Assumptions;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Test helper: builds the driver-API samples (samples/src/main/c) and runs them unmodified on zluda's
 * libcuda.so.1 (built by zluda-runtime) with every kernel snapshotted, into a temporary log directory
 * removed by {@link #close()}. {@link #open} skips the calling test class, with the reason, when the
 * library or the samples cannot be built.
 */
final class SampleRecorder implements AutoCloseable {
    final Path bin, nativeDir, logs;

    private SampleRecorder(Path bin, Path nativeDir, Path logs) {
        this.bin = bin;
        this.nativeDir = nativeDir;
        this.logs = logs;
    }

    /** Builds the samples; the log directory is a fresh temporary directory named after {@code prefix}. */
    static SampleRecorder open(String prefix) throws Exception {
        Path nativeDir = Path.of("../zluda-runtime/target/native").toAbsolutePath().normalize();
        Assumptions.assumeTrue(Files.isRegularFile(nativeDir.resolve("libcuda.so.1")), "SKIPPED: libcuda.so.1 not built in " + nativeDir);
        Path repo = Path.of(System.getProperty("zluda.repo", "..")).toAbsolutePath().normalize();
        String cudaHome = System.getenv().getOrDefault("CUDA_HOME", "/usr/local/cuda");
        Assumptions.assumeTrue(Files.isRegularFile(Path.of(cudaHome, "include/cuda.h")), "SKIPPED: no " + cudaHome + "/include/cuda.h");
        Path build = Path.of("target/samples").toAbsolutePath();
        Process p = new ProcessBuilder("make", "-s", "-C", repo.resolve("samples/src/main/c").toString(), "BUILD=" + build, "CUDA_HOME=" + cudaHome)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Assumptions.assumeTrue(p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0, "SKIPPED: building the samples failed:\n" + out);
        return new SampleRecorder(build.resolve("bin"), nativeDir, Files.createTempDirectory(prefix));
    }

    /** Runs a sample at level calls with every kernel snapshotted; returns its capture directory (recorded once). */
    Path record(String... command) throws Exception {
        return record(logs, "calls", command);
    }

    /** The same at level replay, into a log directory of its own (for whole-capture replays). */
    Path recordForWholeReplay(String... command) throws Exception {
        return record(logs.resolve("whole"), "replay", command);
    }

    private Path record(Path logDir, String level, String... command) throws Exception {
        Path dir = logDir.resolve(command[0]);
        if (Files.isDirectory(dir)) return dir;
        List<String> cmd = new ArrayList<>(List.of(command));
        cmd.set(0, bin.resolve(command[0]).toString());
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("LD_LIBRARY_PATH", nativeDir.toString());
        pb.environment().put("ZLUDA_JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("ZLUDA_CLASSPATH", System.getProperty("java.class.path"));
        pb.environment().putIfAbsent("ZLUDA_JVM_OPTS", "-XX:TieredStopAtLevel=1");
        pb.environment().put("ZLUDA_LOG_DIR", logDir.toString());
        if (!level.equals("calls")) pb.environment().put("ZLUDA_CAPTURE_LEVEL", level);
        pb.environment().put("ZLUDA_CAPTURE_KERNELS", ".");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), out);
        assertTrue(out.contains("PASS"), out);
        return dir;
    }

    /** Removes the log directory. */
    @Override
    public void close() throws Exception {
        try (var s = Files.walk(logs)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }

    /** The little-endian f32 elements of a buffer. */
    static float[] floats(byte[] b) {
        float[] f = new float[b.length / 4];
        java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(f);
        return f;
    }

    /** What {@code print} writes, as a string (a result's report). */
    static String printed(java.util.function.Consumer<java.io.PrintWriter> print) {
        java.io.StringWriter s = new java.io.StringWriter();
        print.accept(new java.io.PrintWriter(s));
        return s.toString();
    }
}
