package dev.zluda.viewer;

import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureException;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Captures A and B of the two-capture window, opened on first use (a pack is unpacked once) and
 * kept open until {@link #close()}, for reading the bytes of diverging buffers. Thread-safe.
 */
final class OpenCaptures implements AutoCloseable {
    private final Path[] paths;
    private final Capture[] open = new Capture[2];
    private boolean closed;

    OpenCaptures(Path a, Path b) {
        this.paths = new Path[] {a, b};
    }

    /** Capture A ({@code side} 0) or B (1). */
    synchronized Capture get(int side) throws IOException {
        if (closed) throw new IOException("the window was closed");
        if (open[side] == null) {
            try {
                open[side] = Capture.open(paths[side]);
            } catch (CaptureException e) {
                throw new IOException("cannot open " + paths[side] + ": " + e.getMessage(), e);
            }
        }
        return open[side];
    }

    @Override
    public synchronized void close() {
        closed = true;
        for (int i = 0; i < 2; i++) {
            if (open[i] != null) open[i].close();
            open[i] = null;
        }
    }
}
