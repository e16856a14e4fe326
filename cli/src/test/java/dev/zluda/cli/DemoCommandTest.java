package dev.zluda.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The main job: a sample on the zluda driver, recorded, compared with the H200 recording. */
class DemoCommandTest {
    /** The "look at it" lines name the launcher so that they work from any directory: its absolute path, or zluda when PATH finds it. */
    @Test
    void theLauncherIsNamedSoThatItRunsFromAnyDirectory(@TempDir Path tmp) throws Exception {
        Path bin = Files.createDirectories(tmp.resolve("dist/bin"));
        Path self = Files.createFile(bin.resolve("zluda"));
        self.toFile().setExecutable(true);
        Path other = Files.createDirectories(tmp.resolve("other"));
        Files.createFile(other.resolve("zluda")).toFile().setExecutable(true);
        String home = tmp.resolve("dist").toString();
        assertEquals(self.toString(), DemoCommand.launcher(home, "/usr/bin:/bin"));
        assertEquals("zluda", DemoCommand.launcher(home, "/usr/bin:" + bin));
        assertEquals(self.toString(), DemoCommand.launcher(home, other + ":" + bin), "another zluda first on PATH");
        assertEquals("zluda", DemoCommand.launcher(null, "/usr/bin"));
    }

    /** A sample name that is not one gets the closest name, as an unknown function name does in zluda spec. */
    @Test
    void anUnknownSampleGetsTheClosestName() {
        assertEquals(java.util.Set.copyOf(DemoCommand.SAMPLES), DemoCommand.REFERENCE_ARGS.keySet(), "every sample listed has its reference arguments");
        CliRun.Result r = CliRun.run("demo", "--sample", "vectoradd");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("no sample named 'vectoradd': did you mean vectorAdd? (samples: vectorAdd, matrixMul, reduction, histogram, scan, illegalAccess)"), r.err());
        assertTrue(CliRun.run("demo", "--sample", "matmul").err().contains("did you mean matrixMul?"));
        assertTrue(CliRun.run("demo", "--sample", "illegal_access").err().contains("did you mean illegalAccess?"));
    }

    /**
     * Every sample the README offers ({@code zluda demo --sample NAME}) runs on the zluda driver and its
     * capture is SAME as the one recorded on the H200 (samples/traces/h200), exit 0.
     */
    @ParameterizedTest
    @ValueSource(strings = {"vectorAdd", "matrixMul", "reduction", "histogram", "scan", "illegalAccess"})
    void everySampleDoesOnZludaWhatItDidOnTheH200(String sample, @TempDir Path tmp) throws Exception {
        Path repo = Path.of(System.getProperty("zluda.repo", "..")).toAbsolutePath();
        assertTrue(Files.isExecutable(repo.resolve("samples/target/native/bin/" + sample)),
                "the samples are built by the samples module, before this one (with CUDA's cuda.h or the one generated from the spec)");
        assertTrue(Files.isRegularFile(repo.resolve("dist/lib/libcuda.so.1")) && Files.isDirectory(repo.resolve("dist/jre")),
                "dist/lib/libcuda.so.1 (zluda-runtime's package phase) and dist/jre (this module's process-test-classes) are laid out before these tests");
        var cl = Main.commandLine();
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(out));
        System.setProperty("zluda.home", repo.resolve("dist").toString());
        try {
            int code = cl.execute("demo", "--sample", sample, "-o", tmp.toString());
            String text = out.toString();
            assertTrue(text.contains("PASS") || sample.equals("illegalAccess"), text);
            assertTrue(text.matches("(?s).*\\n +SAME[ :(].*"), "the diff's verdict is SAME:\n" + text);
            assertTrue(text.contains("VERDICT: the zluda run does what the NVIDIA run did"), text);
            assertFalse(text.contains("Ignored differences (examples)"), "ignored differences are counted, not listed:\n" + text);
            assertEquals(0, code, text);
            assertTrue(Files.isRegularFile(tmp.resolve(sample + "/diff-vs-h200.html")), text);
            switch (sample) {
                case "vectorAdd" -> {
                    // the H200 recording with a snapshot of the launch: the kernel's output bytes are compared too
                    assertTrue(text.contains("samples/traces/h200/vectorAdd-kernels"), text);
                    assertTrue(text.contains("Kernels: 0 of 1 compared launch diverge (snapshots: 1 in A, 1 in B)"), text);
                    assertTrue(text.contains("and its kernel computed the same bytes"), text);
                }
                // the H200 capture: cuMemFree and cuModuleUnload return CUDA_ERROR_ILLEGAL_ADDRESS after the fault
                case "illegalAccess" -> assertTrue(text.contains("CUDA_ERROR_ILLEGAL_ADDRESS"), text);
                default -> { }
            }
        } finally {
            System.clearProperty("zluda.home");
        }
    }
}
