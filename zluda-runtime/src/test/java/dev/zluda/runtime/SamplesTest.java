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
        nativeDir = NativeTests.nativeDir();
        bin = NativeTests.driverSamples();
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
            "vectorAdd     | 10000 128",
            "matrixMul     | 50 40 30",
            "reduction     | 50000 40",
            "histogram     | 50000 20",
            "scan          | 5000 64",
            "illegalAccess | ''",
            "cooperative   | 12 4",
            "cluster       | 2",
            "vmm           | ''",
            "l2persist     | 20000",
            "graphs        | 3000",
    })
    void samplePasses(String sample, String args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(bin.resolve(sample).toString());
        for (String a : args.trim().split(" +")) if (!a.isEmpty()) cmd.add(a);
        ProcessBuilder pb = NativeTests.onDriver(new ProcessBuilder(cmd).redirectErrorStream(true), nativeDir.toString());
        // thread-block clusters need compute capability 9.0; the emulator reports 8.6 unless told
        if (sample.equals("cluster")) pb.environment().put("ZLUDA_OVERRIDE_COMPUTE_CAPABILITY", "9.0");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "timed out:\n" + out);
        assertTrue(out.lines().anyMatch(l -> l.equals("PASS")), out);
        assertEquals(0, p.exitValue(), out);
        if (sample.equals("illegalAccess")) {
            assertTrue(out.contains("[ZLUDA] kernel writeOutOfBounds: CUDA_ERROR_ILLEGAL_ADDRESS: CTA (0,0,0) thread (0,0,0)"), out);
        }
        if (sample.equals("cooperative")) assertTrue(out.contains("CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"), out);
    }
}
