package dev.zluda.runtime;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real path a CUDA program takes: a C program dlopens the built libcuda.so.1, which boots a JVM
 * in that process (this test's class path and Java) and enters the Java driver through FFM upcalls.
 */
class NativeEntryTest {
    private static Path nativeDir() {
        return NativeTests.nativeDir();
    }

    private static String run(Path dir, String... cmd) throws Exception {
        return run(dir, java.util.Map.of(), cmd);
    }

    private static String run(Path dir, java.util.Map<String, String> env, String... cmd) throws Exception {
        return NativeTests.runWithTestJvm(env, cmd);
    }

    @Test
    void aCProgramRunsTheDriverThroughDlopen() throws Exception {
        Path dir = nativeDir();
        String out = run(dir, dir.resolve("tests/entry_smoke").toString(), dir.resolve("libcuda.so.1").toString());
        assertTrue(out.startsWith("exit 0\n"), out);
        assertTrue(out.contains(" 0 failed"), out);
        assertTrue(out.contains("[ZLUDA] cuCtxAttach is not supported yet"), "unsupported calls are said out loud:\n" + out);
    }

    @Test
    void everySpecFunctionIsExported() throws Exception {
        Path dir = nativeDir();
        String out = run(dir, "nm", "-D", "--defined-only", dir.resolve("libcuda.so.1").toString());
        long exported = out.lines().filter(l -> l.matches("[0-9a-f]+ T cu\\w+")).count();
        assertEquals(dev.zluda.spec.CudaApi.get().functions().size(), exported, out);
    }

    @Test
    void withZludaLogDirEveryCallIsRecorded(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        Path dir = nativeDir();
        String out = run(dir, java.util.Map.of("ZLUDA_LOG_DIR", tmp.toString()),
                dir.resolve("tests/entry_smoke").toString(), dir.resolve("libcuda.so.1").toString());
        assertTrue(out.startsWith("exit 0\n"), out);
        Path cap = tmp.resolve("entry_smoke");
        assertTrue(Files.isRegularFile(cap.resolve("capture.zcap")), "capture in ZLUDA's layout: " + cap);
        String dump;
        try (dev.zluda.capture.Capture c = dev.zluda.capture.Capture.open(cap)) {
            java.io.StringWriter s = new java.io.StringWriter();
            dev.zluda.capture.text.Dump.dump(c, dev.zluda.capture.text.Dump.Options.all(), new java.io.PrintWriter(s));
            dump = s.toString();
        }
        assertTrue(dump.contains("cuInit(Flags: 0) -> CUDA_SUCCESS"), dump);
        assertTrue(dump.contains("cuDeviceGetName(name: \"ZLUDA emulator (CPU)\""), dump);
        assertTrue(dump.contains("cuDeviceGet(device: 0x7") || dump.contains("ordinal: 1) -> CUDA_ERROR_INVALID_DEVICE"), dump);
        assertTrue(dump.contains("cuCtxAttach(") && dump.contains("-> CUDA_ERROR_NOT_SUPPORTED"), dump);
        assertTrue(Files.readString(cap.resolve("manifest.json")).contains("\"name\" : \"zluda\""));
        try (dev.zluda.capture.Capture c = dev.zluda.capture.Capture.open(cap)) {
            assertTrue(c.reader().forEachRecord(r -> { }).endedCleanly(), "PROCESS_END written at exit");
        }
        assertTrue(!out.contains("sun.misc.Unsafe"), "no JDK warnings on the program's stderr:\n" + out);
    }
}
