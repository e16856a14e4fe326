package dev.zluda.capture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A process that dies while it creates a capture leaves, under the capture's name, either nothing
 * or a file whose first record is the function table (FORMAT.md §6.10): the Java writer gives the
 * file its name only once the table is in it. (Before, a kill in that window left a file nothing
 * could read: "the chunk at byte 64 was never published".)
 */
class CaptureWriterKillTest {
    @TempDir
    Path dir;

    /** The child: creates c.zcap and writes one call; with zluda.capture.testHaltBeforeName it dies inside create. */
    public static void main(String[] args) throws Exception {
        try (CaptureWriter w = CaptureWriter.create(Path.of(args[0]).resolve("c.zcap"), TestCaptures.options(4096), TestCaptures.FUNCS)) {
            ThreadLog t = w.currentThread();
            long e = t.enter(0, 0, 1, new long[] {1}, null);
            t.leave(e, 2, 0, null);
        }
    }

    private int child(Path d, boolean halt) throws Exception {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dzluda.capture.testHaltBeforeName=" + halt, "-cp", System.getProperty("java.class.path"),
                CaptureWriterKillTest.class.getName(), d.toString()).inheritIO().start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return p.exitValue();
    }

    @Test
    void aWriterThatDiesBeforeTheTableIsNamedLeavesNoCaptureFile() throws Exception {
        Path d = Files.createDirectory(dir.resolve("halted"));
        assertEquals(137, child(d, true));
        List<String> left;
        try (Stream<Path> s = Files.list(d)) {
            left = s.map(f -> f.getFileName().toString()).toList();
        }
        assertFalse(left.contains("c.zcap"), "no capture under its name: " + left);
        // what is left is the temporary file, whose name no command takes for a capture
        for (String f : left) assertTrue(f.startsWith(".c.zcap.") && f.endsWith(".tmp"), f);

        Path ok = Files.createDirectory(dir.resolve("whole"));
        assertEquals(0, child(ok, false));
        try (Stream<Path> s = Files.list(ok)) {
            assertEquals(List.of("c.zcap"), s.map(f -> f.getFileName().toString()).toList(), "the temporary name is gone");
        }
        try (CaptureReader r = CaptureReader.open(ok.resolve("c.zcap"))) {
            assertEquals(4, r.forEachRecord(x -> { }).records()); // table, ENTER, LEAVE, PROCESS_END
            assertTrue(r.status().endedCleanly());
        }
    }
}
