package dev.zluda.capture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The writer's background pre-faulting (Prefault, madvise MADV_POPULATE_WRITE) runs ahead of a
 * capture larger than a few MiB and leaves every record as written. Surefire runs with
 * {@code --enable-native-access=ALL-UNNAMED}, as {@code dist/bin/zluda} does.
 */
class PrefaultTest {
    @TempDir
    Path dir;

    @Test
    @EnabledOnOs(OS.LINUX)
    void largeCaptureIsPrefaultedAndReadsBackWhole() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(kernelAtLeast(5, 14),
                "MADV_POPULATE_WRITE needs Linux 5.14+, this is " + System.getProperty("os.version"));
        assertTrue(Prefault.available(), "madvise through FFM should be available on Linux with native access");
        Path f = dir.resolve("big.zcap");
        // 3 threads' logs, 4 KiB chunks, 1 MiB windows: about 12 MB, so stretches beyond the first 4 MiB are pre-faulted
        int calls = 300_000;
        CaptureWriter[] seen = new CaptureWriter[1];
        List<TestCaptures.Written> written = TestCaptures.write(f, 4096, 3, calls, false, true, w -> {
            try {
                w.awaitPrefault();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            seen[0] = w;
        });
        assertTrue(seen[0].prefaultedStretches.get() > 0, "no stretch was pre-faulted");
        try (CaptureReader r = CaptureReader.open(f)) {
            long enters = 0, leaves = 0;
            for (CaptureRecord rec : r) {
                if (rec instanceof CaptureRecord.Enter) enters++;
                else if (rec instanceof CaptureRecord.Leave) leaves++;
            }
            assertEquals(written.size(), enters);
            assertEquals(written.size(), leaves);
            assertTrue(r.status().endedCleanly(), r.status().toString());
        }
    }

    /** Whether the running kernel's version (os.version, e.g. "6.1.0-18-amd64") is at least major.minor. */
    static boolean kernelAtLeast(int major, int minor) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^(\\d+)\\.(\\d+)").matcher(System.getProperty("os.version", ""));
        if (!m.find()) return false;
        int a = Integer.parseInt(m.group(1)), b = Integer.parseInt(m.group(2));
        return a > major || (a == major && b >= minor);
    }
}
