package dev.zluda.cli;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RunCommandTest {
    @Test
    void runsTheProgramWithZludasLibraryFirstAndReturnsItsExitCode(@TempDir Path tmp) throws Exception {
        Path lib = tmp.resolve("lib");
        Files.createDirectories(lib);
        Files.writeString(lib.resolve("libcuda.so.1"), "stand-in");
        Path out = tmp.resolve("out.txt");
        String old = System.getProperty("zluda.home");
        System.setProperty("zluda.home", tmp.toString());
        try {
            int code = Main.run("run", "--", "/bin/sh", "-c", "echo \"$LD_LIBRARY_PATH\" > " + out + "; exit 3");
            assertEquals(3, code, "the program's exit code passes through");
            assertTrue(Files.readString(out).startsWith(lib.toString()), Files.readString(out));
            assertEquals(127, Main.run("run", "--", tmp.resolve("no-such-program").toString()));
        } finally {
            if (old == null) System.clearProperty("zluda.home"); else System.setProperty("zluda.home", old);
        }
    }

    @Test
    void missingDriverIsAClearError(@TempDir Path tmp) {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/bin/true")));
        String old = System.getProperty("zluda.home");
        System.setProperty("zluda.home", tmp.toString());
        try {
            assertEquals(1, Main.run("run", "--", "/bin/true"));
        } finally {
            if (old == null) System.clearProperty("zluda.home"); else System.setProperty("zluda.home", old);
        }
    }

    @Test
    void zludaTraceSetsTheLogDirAndLevelAndAPlainRunClearsThem(@TempDir Path tmp) throws Exception {
        Path lib = tmp.resolve("lib");
        Files.createDirectories(lib);
        Files.writeString(lib.resolve("libcuda.so.1"), "stand-in");
        Path out = tmp.resolve("env.txt");
        Path logs = tmp.resolve("logs");
        String old = System.getProperty("zluda.home");
        System.setProperty("zluda.home", tmp.toString());
        try {
            String show = "echo \"$ZLUDA_LOG_DIR|$ZLUDA_CAPTURE_LEVEL\" > " + out;
            assertEquals(0, Main.run("run", "--zluda-trace", "-o", logs.toString(), "--level", "replay", "--", "/bin/sh", "-c", show));
            assertEquals(logs.toAbsolutePath() + "|replay", Files.readString(out).trim());
            assertEquals(0, Main.run("run", "--", "/bin/sh", "-c", show));
            assertTrue(Files.readString(out).trim().startsWith("|"), "a plain run records nothing: " + Files.readString(out));
            assertEquals(2, Main.run("run", "--zluda-trace", "--nvidia-trace", "--", "/bin/true"));
            assertEquals(2, Main.run("run", "--level", "everything", "--zluda-trace", "--", "/bin/true"));
        } finally {
            if (old == null) System.clearProperty("zluda.home"); else System.setProperty("zluda.home", old);
        }
    }
}
