package dev.zluda.diff;

import com.github.luben.zstd.Zstd;
import dev.zluda.capture.CaptureFormat;
import dev.zluda.capture.CaptureRecord;
import net.jpountz.lz4.LZ4Factory;

import java.lang.foreign.ValueLayout;

/** The uncompressed bytes of a BLOB record. */
final class Blobs {
    private Blobs() {}

    /** The blob's content, or null when it is over 2 GiB or cannot be decompressed. */
    static byte[] bytes(CaptureRecord.Blob b) {
        if (b.size() > Integer.MAX_VALUE - 16) return null;
        byte[] stored = b.stored().toArray(ValueLayout.JAVA_BYTE);
        try {
            return switch (b.compression()) {
                case CaptureFormat.COMPRESSION_NONE -> stored;
                case CaptureFormat.COMPRESSION_LZ4 -> LZ4Factory.fastestJavaInstance().safeDecompressor().decompress(stored, (int) b.size());
                case CaptureFormat.COMPRESSION_ZSTD -> Zstd.decompress(stored, (int) b.size());
                default -> null;
            };
        } catch (RuntimeException e) {
            return null;
        }
    }
}
