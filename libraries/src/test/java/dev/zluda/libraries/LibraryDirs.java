package dev.zluda.libraries;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Where NVIDIA's library headers are for tests that build against them, and how the test programs run. */
final class LibraryDirs {
    private LibraryDirs() {}

    /**
     * Makes a test program load its libraries from {@code libraryPath} first ({@code LD_LIBRARY_PATH}) and
     * zluda's {@code libcuda.so.1} boot its JVM from this test's Java runtime and class path, stopping at C1
     * (short runs: C2 compilations cost more than they save).
     */
    static ProcessBuilder onZluda(ProcessBuilder pb, String libraryPath) {
        pb.environment().put("LD_LIBRARY_PATH", libraryPath);
        pb.environment().put("ZLUDA_JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("ZLUDA_CLASSPATH", System.getProperty("java.class.path"));
        pb.environment().put("ZLUDA_JVM_OPTS", "-XX:TieredStopAtLevel=1");
        return pb;
    }

    /** ZLUDA_LIBRARY_INCLUDE's directories (':'-separated), then $CUDA_HOME/include (default /usr/local/cuda/include). */
    static List<Path> includeDirs() {
        List<Path> dirs = new ArrayList<>();
        String env = System.getenv("ZLUDA_LIBRARY_INCLUDE");
        if (env != null && !env.isBlank()) for (String d : env.split(":")) if (!d.isEmpty()) dirs.add(Path.of(d));
        dirs.add(Path.of(System.getenv().getOrDefault("CUDA_HOME", "/usr/local/cuda"), "include"));
        return dirs;
    }
}
