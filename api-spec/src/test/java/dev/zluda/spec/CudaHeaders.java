package dev.zluda.spec;

import org.junit.jupiter.api.Assumptions;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the CUDA toolkit's headers are for tests that compare the spec with them. */
final class CudaHeaders {
    private CudaHeaders() {}

    /** $CUDA_HOME/include, else /usr/local/cuda/include; the calling test is skipped, saying why, when there is no cuda.h. */
    static Path includeDirOrSkip() {
        String home = System.getenv("CUDA_HOME");
        Path dir = home != null ? Path.of(home, "include") : Path.of("/usr/local/cuda/include");
        Assumptions.assumeTrue(Files.isRegularFile(dir.resolve("cuda.h")),
                "SKIPPED: no cuda.h in " + dir + " (install the CUDA toolkit or set CUDA_HOME) — the spec was not compared with the header");
        for (String sys : new String[] {"GL/gl.h", "EGL/egl.h", "vdpau/vdpau.h"}) {
            Assumptions.assumeTrue(Files.isRegularFile(Path.of("/usr/include", sys)),
                    "SKIPPED: no /usr/include/" + sys + " (apt-get install libgl-dev libegl-dev libvdpau-dev) — the interop headers cannot be compiled");
        }
        return dir;
    }

    /** Whether a program is on the PATH. */
    static boolean onPath(String program) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, program))) return true;
        }
        return false;
    }
}
