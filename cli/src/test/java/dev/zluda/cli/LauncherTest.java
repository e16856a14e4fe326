package dev.zluda.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The launcher (src/main/dist/bin/zluda) when it finds no usable Java runtime: one line that says
 * where it looked and what to do, and the documented exit codes: 125 for {@code zluda run} (its own
 * failure; 2 could be the program's), 2 for every other command.
 */
class LauncherTest {
    private static final Path LAUNCHER = Path.of("src/main/dist/bin/zluda").toAbsolutePath();

    record Ran(int code, String err) {}

    /** Runs a copy of the launcher in {@code tmp/dist/bin} (no dist/jre) with only dirname, readlink and sed on PATH. */
    private static Ran launch(Path tmp, String javaHome, String... args) throws Exception {
        Path bin = Files.createDirectories(tmp.resolve("dist/bin"));
        Path copy = bin.resolve("zluda");
        if (!Files.exists(copy)) Files.copy(LAUNCHER, copy);
        Path tools = Files.createDirectories(tmp.resolve("tools"));
        for (String t : new String[] {"dirname", "readlink", "sed"}) {
            if (!Files.exists(tools.resolve(t))) Files.createSymbolicLink(tools.resolve(t), Path.of("/usr/bin", t));
        }
        List<String> cmd = new java.util.ArrayList<>(List.of("/bin/sh", copy.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().clear();
        pb.environment().put("PATH", tools.toString());
        if (javaHome != null) pb.environment().put("JAVA_HOME", javaHome);
        Process p = pb.start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        return new Ran(p.exitValue(), err);
    }

    @Test
    void noJavaExitsWithTheDocumentedCodes(@TempDir Path tmp) throws Exception {
        Ran dump = launch(tmp, null, "dump", "x");
        assertEquals(2, dump.code(), dump.err());
        assertTrue(dump.err().startsWith("zluda: error: no Java runtime found (looked at $ZLUDA_JAVA_HOME, " + tmp.resolve("dist/jre")), dump.err());
        Ran run = launch(tmp, null, "run", "--", "true");
        assertEquals(125, run.code(), "zluda run's own failure: " + run.err());
        assertEquals(2, launch(tmp, null).code(), "zluda alone");
    }

    /** A JAVA_HOME older than 25 is named with its version, before a JVM prints 'Unrecognized option'. */
    @Test
    void anOldJavaIsNamedWithItsVersion(@TempDir Path tmp) throws Exception {
        Path old = Files.createDirectories(tmp.resolve("jdk-17/bin"));
        Path java = Files.writeString(old.resolve("java"), "#!/bin/sh\necho 'Unrecognized option' >&2; exit 1\n");
        assertTrue(java.toFile().setExecutable(true));
        Files.writeString(tmp.resolve("jdk-17/release"), "IMPLEMENTOR=\"Test\"\nJAVA_VERSION=\"17.0.15\"\n");
        Ran r = launch(tmp, tmp.resolve("jdk-17").toString(), "info", "x");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("zluda: error: the Java runtime at " + tmp.resolve("jdk-17") + " is Java 17; zluda needs Java 25"), r.err());
        assertEquals(125, launch(tmp, tmp.resolve("jdk-17").toString(), "run", "--", "true").code());
    }
}
