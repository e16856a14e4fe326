package dev.zluda.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.KernelSnapshots;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The whole vectorAdd program against the H200's capture of it, with kernel snapshots on both sides.
 * A: {@code vectorAdd 4096} traced on an NVIDIA H200 with {@code ZLUDA_CAPTURE_KERNELS=vectorAdd}
 * (samples/traces/h200/vectorAdd-kernels). Here the same sample runs the same way on zluda's
 * libcuda.so.1: once as built, once with its PTX replaced ({@code SAMPLE_PTX}, samples/src/main/c/common.h)
 * by a copy with {@code add.f32} changed to {@code sub.f32}. The first must be the same as the H200's
 * run, kernel after-image included; the second must diverge at the launch and nowhere else the
 * capture holds, with what IEEE binary32 arithmetic on the recorded inputs gives, and the localisation
 * must name the changed line.
 */
class DiffKernelRunTest {
    static final Path A = Path.of("..", "samples", "traces", "h200", "vectorAdd-kernels");
    static Path logs, asBuilt, planted;
    static String ptx;

    @BeforeAll
    static void record() throws Exception {
        Path nativeDir = Path.of("../zluda-runtime/target/native").toAbsolutePath().normalize();
        Assumptions.assumeTrue(Files.isRegularFile(nativeDir.resolve("libcuda.so.1")), "SKIPPED: libcuda.so.1 not built in " + nativeDir);
        String cudaHome = System.getenv().getOrDefault("CUDA_HOME", "/usr/local/cuda");
        Assumptions.assumeTrue(Files.isRegularFile(Path.of(cudaHome, "include/cuda.h")), "SKIPPED: no " + cudaHome + "/include/cuda.h");
        Path build = Path.of("target/diff-samples").toAbsolutePath();
        Process make = new ProcessBuilder("make", "-s", "-C", Path.of("../samples/src/main/c").toAbsolutePath().toString(), "BUILD=" + build,
                "CUDA_HOME=" + cudaHome).redirectErrorStream(true).start();
        String out = new String(make.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Assumptions.assumeTrue(make.waitFor(120, TimeUnit.SECONDS) && make.exitValue() == 0, "SKIPPED: building the samples failed:\n" + out);
        logs = Files.createTempDirectory("zluda-diff-kernels");
        ptx = Files.readString(A.resolve("module_0001_01.ptx"));
        Path sub = Files.writeString(logs.resolve("sub.ptx"), ptx.replace("add.f32", "sub.f32"));
        asBuilt = run(build.resolve("bin/vectorAdd"), nativeDir, logs.resolve("as-built"), null, "PASS");
        planted = run(build.resolve("bin/vectorAdd"), nativeDir, logs.resolve("planted"), sub, "FAIL");
    }

    /** Runs vectorAdd 4096 on zluda with its kernel snapshotted; returns the capture directory. */
    static Path run(Path program, Path nativeDir, Path logDir, Path samplePtx, String expect) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(program.toString(), "4096").redirectErrorStream(true);
        pb.environment().put("LD_LIBRARY_PATH", nativeDir.toString());
        pb.environment().put("ZLUDA_JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("ZLUDA_CLASSPATH", System.getProperty("java.class.path"));
        pb.environment().putIfAbsent("ZLUDA_JVM_OPTS", "-XX:TieredStopAtLevel=1");
        pb.environment().put("ZLUDA_LOG_DIR", logDir.toString());
        pb.environment().remove("ZLUDA_CAPTURE_LEVEL");
        pb.environment().put("ZLUDA_CAPTURE_KERNELS", "vectorAdd");
        if (samplePtx != null) pb.environment().put("SAMPLE_PTX", samplePtx.toString());
        else pb.environment().remove("SAMPLE_PTX");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), out);
        assertTrue(out.contains(expect), out);
        return logDir.resolve("vectorAdd");
    }

    @AfterAll
    static void clean() throws Exception {
        if (logs == null) return;
        try (var s = Files.walk(logs)) {
            s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }

    static float[] floats(byte[] bytes) {
        float[] f = new float[bytes.length / 4];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(f);
        return f;
    }

    @Test
    void zludaRunsVectorAddAsTheH200DidAfterImageIncluded() throws Exception {
        CliRun.Result r = CliRun.run("diff", "--format", "json", A.toString(), asBuilt.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertTrue(j.path("same").asBoolean());
        assertEquals(1, j.path("kernels").path("compared").asInt(), "the launch's snapshots were compared");
        assertEquals(0, j.path("kernels").path("divergingCount").asInt());
    }

    @Test
    void aPlantedSubInTheProgramsPtxIsTheOnlyDivergenceAndIsLocated() throws Exception {
        float[] a, b;
        try (Capture cap = Capture.open(A)) {
            KernelSnapshots ks = KernelSnapshots.read(cap);
            CaptureRecord.Kernel k = ks.list().getFirst().record();
            a = floats(ks.blob(k.buffers().get(0).before(), "a"));
            b = floats(ks.blob(k.buffers().get(1).before(), "b"));
        }
        int first = -1;
        long differing = 0;
        double maxAbs = 0;
        for (int i = 0; i < a.length; i++) {
            float x = a[i] + b[i], y = a[i] - b[i];
            if (Float.floatToRawIntBits(x) == Float.floatToRawIntBits(y) || x == y) continue;
            differing++;
            if (first < 0) first = i;
            maxAbs = Math.max(maxAbs, Math.abs((double) x - (double) y));
        }
        CliRun.Result r = CliRun.run("diff", "--format", "json", A.toString(), planted.toString());
        assertEquals(1, r.code(), r.out() + r.err());
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertEquals(1, j.path("divergingCalls").asInt(), "the same calls, the same results: only the kernel's output differs");
        assertEquals(1, j.path("counts").path("kernel").asInt());
        JsonNode f = j.path("firstDivergence");
        assertEquals("kernel", f.path("kind").asText());
        assertEquals("cuLaunchKernel", f.path("function").asText());
        assertEquals(13, f.path("a").path("call").asInt());
        assertEquals(13, f.path("b").path("call").asInt(), "both runs make the same 20 calls: the launch is call 13 on both");
        JsonNode kd = j.path("kernels").path("diverging").get(0);
        assertEquals(1, kd.path("number").asInt());
        assertEquals("vectorAdd", kd.path("kernel").asText());
        JsonNode buf = kd.path("buffers").get(0);
        assertEquals(1, kd.path("buffers").size());
        assertEquals(3, buf.path("index").asInt());
        assertEquals("dptr#3", buf.path("buffer").asText());
        assertFalse(buf.path("inputsDiffer").asBoolean(), "both runs start from the sample's seeded inputs");
        assertEquals("f32", buf.path("data").path("elementType").asText());
        assertEquals(first, buf.path("data").path("firstElement").asInt());
        assertEquals(4L * first, buf.path("data").path("byteOffset").asLong());
        assertEquals(differing, buf.path("data").path("differing").asLong());
        assertEquals(maxAbs, buf.path("data").path("maxAbs").asDouble());
        assertEquals("zluda diff " + A + " " + planted + " --kernel 1 --locate", kd.path("locate").asText());

        // both zluda runs recorded on zluda: no driver to name; B's module is the planted PTX
        int line = -1;
        String[] lines = ptx.split("\n", -1);
        for (int i = 0; i < lines.length; i++) if (lines[i].contains("add.f32")) line = i + 1;
        CliRun.Result l = CliRun.run("diff", asBuilt.toString(), planted.toString(), "--kernel", "1", "--locate");
        String t = l.out();
        assertEquals(1, l.code(), t + l.err());
        assertTrue(t.contains("FIRST DIVERGENCE: line " + line + ": sub.f32"), t);
        assertTrue(t.contains(String.format(Locale.ROOT, "thread (%d,0,0) of CTA (%d,0,0)", first % 256, first / 256)), t);
        assertTrue(t.contains(String.format(Locale.ROOT, "zluda (given PTX): 0x%08x", Float.floatToRawIntBits(a[first] - b[first]))), t);
        assertTrue(t.contains(String.format(Locale.ROOT, "zluda (recorded PTX): 0x%08x", Float.floatToRawIntBits(a[first] + b[first]))), t);
    }
}
