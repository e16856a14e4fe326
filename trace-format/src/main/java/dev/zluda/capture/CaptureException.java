package dev.zluda.capture;

import java.nio.file.Path;

/**
 * A capture that cannot be read (or written): the message names the file and, where one applies,
 * the byte offset, e.g. {@code /tmp/app/capture.zcap: byte 0: not a zluda capture (magic ...)}.
 */
public class CaptureException extends Exception {
    private final transient Path file;
    private final long offset;

    /**
     * @param file the file concerned (may be null)
     * @param offset byte offset in that file, or -1 when none applies
     * @param message what is wrong, without the file and offset
     */
    public CaptureException(Path file, long offset, String message) {
        super((file != null ? file + ": " : "") + (offset >= 0 ? "byte " + offset + ": " : "") + message);
        this.file = file;
        this.offset = offset;
    }

    /** Same, with a cause. */
    public CaptureException(Path file, long offset, String message, Throwable cause) {
        this(file, offset, message);
        initCause(cause);
    }

    /** The file concerned, or null. */
    public Path file() {
        return file;
    }

    /** The byte offset, or -1. */
    public long offset() {
        return offset;
    }
}
