package dev.zluda.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code zluda run --capture-kernels REGEX}: sets ZLUDA_CAPTURE_KERNELS for both traces, refuses bad use;
 * {@code --capture-range profiler}: sets ZLUDA_CAPTURE_RANGE for the NVIDIA tracer.
 */
class CaptureKernelsOptionTest {
    @Test
    void setsTheVariableForBothTracesAndNeedsATrace(@TempDir Path tmp) throws Exception {
        Path lib = tmp.resolve("lib");
        Files.createDirectories(lib.resolve("trace"));
        Files.writeString(lib.resolve("libcuda.so.1"), "stand-in");
        Files.writeString(lib.resolve("trace/libcuda.so.1"), "stand-in");
        Path out = tmp.resolve("env.txt");
        String old = System.getProperty("zluda.home");
        System.setProperty("zluda.home", tmp.toString());
        try {
            String show = "echo \"$ZLUDA_CAPTURE_KERNELS\" > " + out;
            assertEquals(0, Main.run("run", "--zluda-trace", "-o", tmp.resolve("a").toString(), "--capture-kernels", "vectorAdd|mat", "--", "/bin/sh", "-c", show));
            assertEquals("vectorAdd|mat", Files.readString(out).trim());
            // a driver for the tracer to forward to: a stand-in named by ZLUDA_CUDA_LIB
            RunCommand.environment = java.util.Map.of("ZLUDA_CUDA_LIB", lib.resolve("libcuda.so.1").toString());
            assertEquals(0, Main.run("run", "--nvidia-trace", "-o", tmp.resolve("b").toString(), "--capture-kernels", ".", "--", "/bin/sh", "-c", show));
            assertEquals(".", Files.readString(out).trim());
            assertEquals(2, Main.run("run", "--capture-kernels", ".", "--", "/bin/true"), "snapshots without a trace");
            assertEquals(2, Main.run("run", "--zluda-trace", "--capture-kernels", "(", "--", "/bin/true"), "not a regular expression");
            // --capture-range: ZLUDA_CAPTURE_RANGE for the NVIDIA tracer only
            String range = "echo \"${ZLUDA_CAPTURE_RANGE-unset}\" > " + out;
            assertEquals(0, Main.run("run", "--nvidia-trace", "-o", tmp.resolve("c").toString(), "--capture-range", "profiler", "--", "/bin/sh", "-c", range));
            assertEquals("profiler", Files.readString(out).trim());
            assertEquals(0, Main.run("run", "--nvidia-trace", "-o", tmp.resolve("d").toString(), "--", "/bin/sh", "-c", range));
            assertEquals("unset", Files.readString(out).trim(), "the whole run by default");
            assertEquals(2, Main.run("run", "--zluda-trace", "--capture-range", "profiler", "--", "/bin/true"), "the zluda recorder has no range");
            assertEquals(2, Main.run("run", "--nvidia-trace", "--capture-range", "kernels", "--", "/bin/true"), "not a range");
        } finally {
            RunCommand.environment = System.getenv();
            if (old == null) System.clearProperty("zluda.home"); else System.setProperty("zluda.home", old);
        }
    }
}
