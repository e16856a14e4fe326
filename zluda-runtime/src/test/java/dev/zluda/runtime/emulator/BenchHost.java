package dev.zluda.runtime.emulator;

import java.nio.file.Files;
import java.nio.file.Path;

/** What the benchmarks' summaries say about the machine they ran on. */
final class BenchHost {
    private BenchHost() {
    }

    /** The load average over 1, 5 and 15 minutes as /proc/loadavg gives it ("0.52 0.61 0.70"), or "unknown" where it cannot be read. */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (Exception e) {
            return "unknown";
        }
    }
}
