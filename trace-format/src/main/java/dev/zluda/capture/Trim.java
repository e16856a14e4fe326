package dev.zluda.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Cuts the unused tail off a capture file whose writer has ended. Writers grow the file in large
 * steps and a process that exits does not shrink it, so a finished capture may end in many zero
 * chunk units (FORMAT.md §3: "it may also end in zero units"). Trimming keeps every byte up to the
 * end of the last unit that holds anything, so readers see exactly the same records.
 *
 * <p>Only for a capture no process writes any more (e.g. after {@code zluda run} saw the program end).
 */
public final class Trim {
    private Trim() {}

    /**
     * Trims a capture file in place.
     *
     * @return the new size in bytes (the old size when there was nothing to cut)
     * @throws IOException when the file cannot be read or written, or its header is not a capture's
     */
    public static long trim(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            CaptureHeader h;
            try (CaptureReader r = CaptureReader.open(file)) {
                h = r.header();
            } catch (CaptureException e) {
                throw new IOException(e.getMessage(), e);
            }
            long size = ch.size();
            long chunk = h.chunkSize();
            long header = CaptureFormat.FILE_HEADER_SIZE;
            ByteBuffer buf = ByteBuffer.allocate((int) Math.min(chunk, 1 << 20));
            long end = header;
            // walk units from the end; the first unit with a non-zero byte ends the capture
            for (long unitStart = header + (size - header - 1) / chunk * chunk; unitStart >= header; unitStart -= chunk) {
                if (!allZero(ch, buf, unitStart, Math.min(chunk, size - unitStart))) {
                    end = unitStart + chunk;
                    break;
                }
            }
            if (end < size) ch.truncate(end);
            return Math.min(end, size);
        }
    }

    private static boolean allZero(FileChannel ch, ByteBuffer buf, long from, long len) throws IOException {
        long pos = from, stop = from + len;
        while (pos < stop) {
            buf.clear();
            buf.limit((int) Math.min(buf.capacity(), stop - pos));
            int n = ch.read(buf, pos);
            if (n <= 0) return true;
            for (int i = 0; i < n; i++) if (buf.get(i) != 0) return false;
            pos += n;
        }
        return true;
    }
}
