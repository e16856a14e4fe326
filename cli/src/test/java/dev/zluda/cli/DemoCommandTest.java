package dev.zluda.cli;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
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

    @Test
    void vectorAddOnZludaLinesUpWithTheH200Capture(@TempDir Path tmp) throws Exception {
        Path repo = Path.of(System.getProperty("zluda.repo", "..")).toAbsolutePath();
        Assumptions.assumeTrue(Files.isExecutable(repo.resolve("samples/target/native/bin/vectorAdd")),
                "SKIPPED: the samples are not built (they need the CUDA toolkit's cuda.h)");
        Assumptions.assumeTrue(Files.isRegularFile(repo.resolve("dist/lib/libcuda.so.1")) && Files.isDirectory(repo.resolve("dist/jre")),
                "SKIPPED: dist/ is not laid out yet (mvn package lays it out after the tests of this module)");
        var cl = Main.commandLine();
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(out));
        System.setProperty("zluda.home", repo.resolve("dist").toString());
        try {
            int code = cl.execute("demo", "-o", tmp.toString());
            String text = out.toString();
            assertTrue(text.contains("PASS"), text);
            assertTrue(text.contains("VERDICT: the zluda run does what the NVIDIA run did"), text);
            // the H200 recording with a snapshot of the launch: the kernel's output bytes are compared too
            assertTrue(text.contains("samples/traces/h200/vectorAdd-kernels"), text);
            assertTrue(text.contains("Kernels: 0 of 1 compared launch diverge (snapshots: 1 in A, 1 in B)"), text);
            assertTrue(text.contains("and its kernel computed the same bytes"), text);
            assertEquals(0, code, text);
            assertTrue(Files.isRegularFile(tmp.resolve("vectorAdd/diff-vs-h200.html")), text);
        } finally {
            System.clearProperty("zluda.home");
        }
    }

    @Test
    void afterAnIllegalAddressZludaAnswersAsTheH200Did(@TempDir Path tmp) throws Exception {
        Path repo = Path.of(System.getProperty("zluda.repo", "..")).toAbsolutePath();
        Assumptions.assumeTrue(Files.isExecutable(repo.resolve("samples/target/native/bin/illegalAccess")),
                "SKIPPED: the samples are not built (they need the CUDA toolkit's cuda.h)");
        Assumptions.assumeTrue(Files.isRegularFile(repo.resolve("dist/lib/libcuda.so.1")), "SKIPPED: dist/ is not laid out yet");
        var cl = Main.commandLine();
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(out));
        System.setProperty("zluda.home", repo.resolve("dist").toString());
        try {
            // the H200 capture: cuMemFree and cuModuleUnload return CUDA_ERROR_ILLEGAL_ADDRESS after the fault
            int code = cl.execute("demo", "--sample", "illegalAccess", "-o", tmp.toString());
            String text = out.toString();
            assertTrue(text.contains("CUDA_ERROR_ILLEGAL_ADDRESS"), text);
            assertTrue(text.contains("VERDICT: the zluda run does what the NVIDIA run did"), text);
            assertEquals(0, code, text);
        } finally {
            System.clearProperty("zluda.home");
        }
    }
}
