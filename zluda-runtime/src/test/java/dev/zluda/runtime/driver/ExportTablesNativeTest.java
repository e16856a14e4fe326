package dev.zluda.runtime.driver;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The export tables as C code sees them: tests/export_tables_smoke.c dlopens the built
 * libcuda.so.1 and calls every served slot through its function pointer; its integrity-check answer
 * is recomputed here from the values it prints, with BouncyCastle's HMAC-MD2.
 */
class ExportTablesNativeTest {
    @Test
    void cCallsTheTables() throws Exception {
        String d = System.getenv("ZLUDA_TEST_NATIVE");
        Path dir = Path.of(d != null ? d : "target/native");
        Assumptions.assumeTrue(Files.isRegularFile(dir.resolve("tests/export_tables_smoke")), "SKIPPED: export_tables_smoke not built in " + dir);
        ProcessBuilder pb = new ProcessBuilder(dir.resolve("tests/export_tables_smoke").toString(), dir.resolve("libcuda.so.1").toString()).redirectErrorStream(true);
        pb.environment().put("ZLUDA_JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("ZLUDA_CLASSPATH", System.getProperty("java.class.path"));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "timed out:\n" + out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains(" 0 failed"), out);
        assertTrue(out.contains("[ZLUDA] export table CUDART_INTERFACE slot 3 is not supported yet"), "unknown slots are said out loud:\n" + out);
        assertTrue(out.contains("[ZLUDA] cuGetExportTable: table 01020304-0506-0708-090a-0b0c0d0e0f10 (unknown) is not provided"), out);
        assertTrue(out.lines().noneMatch(l -> l.startsWith("[ZLUDA]") && l.contains("f8cff951")), "the table cudart 13 asks first is not reported:\n" + out);

        String line = out.lines().filter(l -> l.startsWith("integrity ")).findFirst().orElseThrow();
        String[] f = line.substring("integrity ".length()).replace(" -> ", " ").split(" ");
        long[] v = new long[f.length];
        for (int i = 0; i < f.length; i++) v[i] = Long.parseUnsignedLong(f[i]);
        long[] expected = IntegrityCheckTest.reference((int) v[0], v[1], 13000, (int) v[2], (int) v[3], v[4], v[5], v[6],
                "ZLUDA-emulator\0\0".getBytes(StandardCharsets.US_ASCII), 0, 0, 0);
        assertEquals(expected[0], v[7], line);
        assertEquals(expected[1], v[8], line);
    }
}
