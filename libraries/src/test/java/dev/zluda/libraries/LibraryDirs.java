package dev.zluda.libraries;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Where NVIDIA's library headers are for tests that build against them. */
final class LibraryDirs {
    private LibraryDirs() {}

    /** ZLUDA_LIBRARY_INCLUDE's directories (':'-separated), then $CUDA_HOME/include (default /usr/local/cuda/include). */
    static List<Path> includeDirs() {
        List<Path> dirs = new ArrayList<>();
        String env = System.getenv("ZLUDA_LIBRARY_INCLUDE");
        if (env != null && !env.isBlank()) for (String d : env.split(":")) if (!d.isEmpty()) dirs.add(Path.of(d));
        dirs.add(Path.of(System.getenv().getOrDefault("CUDA_HOME", "/usr/local/cuda"), "include"));
        return dirs;
    }
}
