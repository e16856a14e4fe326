package dev.zluda.runtime;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An unmodified program built with nvcc (src/test/cuda/cudart_query.cu: device queries, memory
 * copies, streams, events; no kernel) runs on the zluda driver, with cudart linked statically (nvcc's
 * default) and as a shared library. cudart finds our libcuda.so.1 through LD_LIBRARY_PATH, gets
 * its export tables and passes their integrity check. Needs nvcc; skipped without it.
 */
class CudartProgramTest {
    static final Path SOURCE = Path.of("src/test/cuda/cudart_query.cu");

    static Path cudaHome() {
        List<Path> candidates = new ArrayList<>();
        String env = System.getenv("CUDA_HOME");
        if (env != null && !env.isBlank()) candidates.add(Path.of(env));
        candidates.add(Path.of("/usr/local/cuda"));
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!dir.isEmpty()) candidates.add(Path.of(dir).getParent() == null ? Path.of(dir) : Path.of(dir).getParent());
        }
        for (Path c : candidates) if (Files.isExecutable(c.resolve("bin/nvcc"))) return c;
        return null;
    }

    static Path nativeDir() {
        return NativeTests.nativeDir();
    }

    static String run(List<String> cmd, String libraryPath) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("LD_LIBRARY_PATH", libraryPath);
        NativeTests.withTestJvm(pb);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(180, TimeUnit.SECONDS), "timed out:\n" + out);
        return "exit " + p.exitValue() + "\n" + out;
    }

    /** Builds cudart_query with nvcc into target/cudart/ (again only when the source is newer). */
    static Path build(Path cuda, String name, String... flags) throws Exception {
        Path out = Path.of("target/cudart", name).toAbsolutePath();
        if (Files.isExecutable(out) && Files.getLastModifiedTime(out).compareTo(Files.getLastModifiedTime(SOURCE)) > 0) return out;
        Files.createDirectories(out.getParent());
        List<String> cmd = new ArrayList<>(List.of(cuda.resolve("bin/nvcc").toString(), "-o", out.toString()));
        cmd.addAll(List.of(flags));
        cmd.add(SOURCE.toAbsolutePath().toString());
        String r = run(cmd, "");
        assertTrue(r.startsWith("exit 0\n"), "nvcc failed:\n" + r);
        return out;
    }

    void runsOnZluda(String name, String... flags) throws Exception {
        Path cuda = cudaHome();
        Assumptions.assumeTrue(cuda != null, "SKIPPED: nvcc not found (CUDA_HOME, /usr/local/cuda, PATH): cannot build the cudart test program");
        Path lib = nativeDir();
        Path program = build(cuda, name, flags);
        // our driver first; CUDA's lib64 only for libcudart.so of the shared build (it has no libcuda.so.1)
        String out = run(List.of(program.toString()), lib + File.pathSeparator + cuda.resolve("lib64"));
        assertTrue(out.startsWith("exit 0\n"), out);
        assertTrue(out.matches("(?s).*cudart_query: \\d+ passed, 0 failed.*"), out);
        assertTrue(out.contains("device 0: ZLUDA emulator (CPU), compute capability 8.6"), out);
        assertTrue(out.contains("driver version 13000"), out);
        List<String> problems = out.lines().filter(l -> l.startsWith("[ZLUDA]") && l.matches(".*(not supported|not provided|cannot|error).*")).toList();
        assertEquals(List.of(), problems, "nothing on this path is unsupported:\n" + out);
    }

    @Test
    void staticallyLinkedCudart() throws Exception {
        runsOnZluda("cudart_query_static");
    }

    @Test
    void sharedCudart() throws Exception {
        runsOnZluda("cudart_query_shared", "-cudart", "shared");
    }
}
