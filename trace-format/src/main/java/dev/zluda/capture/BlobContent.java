package dev.zluda.capture;

import com.github.luben.zstd.Zstd;
import net.jpountz.lz4.LZ4Factory;

import java.lang.foreign.ValueLayout;

/** The uncompressed bytes of a BLOB record (FORMAT.md §6.3: stored as they are, as an LZ4 block or as a zstd frame). */
public final class BlobContent {
    private BlobContent() {}

    /** Whether the capture format knows this compression ({@code CaptureFormat.COMPRESSION_*}). */
    public static boolean knownCompression(int compression) {
        return compression == CaptureFormat.COMPRESSION_NONE || compression == CaptureFormat.COMPRESSION_LZ4
                || compression == CaptureFormat.COMPRESSION_ZSTD;
    }

    /**
     * The blob's {@code size} uncompressed bytes; not checked against its hash.
     *
     * @throws IllegalArgumentException when it is over 2 GiB or its compression is unknown
     * @throws RuntimeException from the LZ4 or zstd decoder when the stored bytes do not decompress
     */
    public static byte[] of(CaptureRecord.Blob b) {
        if (b.size() > Integer.MAX_VALUE - 16) throw new IllegalArgumentException("blob of " + b.size() + " bytes is too large to read");
        byte[] stored = b.stored().toArray(ValueLayout.JAVA_BYTE);
        return switch (b.compression()) {
            case CaptureFormat.COMPRESSION_NONE -> stored;
            case CaptureFormat.COMPRESSION_LZ4 -> LZ4Factory.fastestJavaInstance().safeDecompressor().decompress(stored, (int) b.size());
            case CaptureFormat.COMPRESSION_ZSTD -> Zstd.decompress(stored, (int) b.size());
            default -> throw new IllegalArgumentException("unknown compression " + b.compression());
        };
    }
}
