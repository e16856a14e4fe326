package dev.zluda.diff;

import dev.zluda.capture.BlobContent;
import dev.zluda.capture.CaptureRecord;

/** The uncompressed bytes of a BLOB record. */
final class Blobs {
    private Blobs() {}

    /** The blob's content, or null when it is over 2 GiB or cannot be decompressed. */
    static byte[] bytes(CaptureRecord.Blob b) {
        try {
            return BlobContent.of(b);
        } catch (RuntimeException e) {
            return null;
        }
    }
}
