package dev.zluda.capture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class TrimTest {
    @Test
    void trimmingAZeroTailKeepsEveryRecord(@TempDir Path tmp) throws Exception {
        Path f = tmp.resolve("capture.zcap");
        List<FunctionDef> fns = List.of(new FunctionDef("cuInit", 1), new FunctionDef("cuCtxGetCurrent", 1));
        try (CaptureWriter w = CaptureWriter.create(f, CaptureWriter.Options.defaults().withChunkSize(4096), fns)) {
            ThreadLog log = w.currentThread();
            for (int i = 0; i < 1000; i++) {
                long seq = log.enter(1, 0, System.nanoTime(), new long[] {0x1000 + i}, null);
                log.leave(seq, System.nanoTime(), 0, null);
            }
        }
        long closed = Files.size(f);
        int before = count(f);
        // a writer that ended without shrinking leaves zero units behind it
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.setLength(closed + 40 * 4096 + 123);
        }
        long trimmed = Trim.trim(f);
        assertEquals(Files.size(f), trimmed);
        assertEquals(0, (trimmed - CaptureFormat.FILE_HEADER_SIZE) % 4096, "ends on a unit boundary");
        assertEquals(true, trimmed <= closed + 4096, "the zero tail is gone: " + trimmed + " vs " + closed);
        assertEquals(before, count(f), "the same records are read");
        assertEquals(trimmed, Trim.trim(f), "trimming twice changes nothing");
    }

    private static int count(Path f) throws Exception {
        int[] n = {0};
        try (CaptureReader r = CaptureReader.open(f)) {
            r.forEachRecord(rec -> n[0]++);
        }
        return n[0];
    }
}
