package dev.zluda.capture.convert;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Parquet page compression without Hadoop: ZSTD pages (plain zstd frames, as the Parquet format
 * defines them) through zstd-jni, and UNCOMPRESSED. parquet-hadoop's own {@code CodecFactory}
 * reaches every codec, ZSTD included, through Hadoop's {@code CompressionCodec} classes, so a
 * writer or reader that should run without Hadoop on the class path is given this factory instead.
 * Like parquet's factories it hands out one compressor and one decompressor per codec, reused
 * until {@link #release()}: use one factory per thread.
 */
public final class ZstdCodecFactory implements CompressionCodecFactory {
    private final int level;
    private Compressor compressor;
    private Decompressor decompressor;

    /** @param level zstd compression level (1..19; 3 is zstd's default) */
    public ZstdCodecFactory(int level) {
        this.level = level;
    }

    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName codecName) {
        return switch (codecName) {
            case ZSTD -> compressor != null ? compressor : (compressor = new Compressor(level));
            case UNCOMPRESSED -> new BytesInputCompressor() {
                @Override
                public BytesInput compress(BytesInput bytes) {
                    return bytes;
                }

                @Override
                public CompressionCodecName getCodecName() {
                    return CompressionCodecName.UNCOMPRESSED;
                }

                @Override
                public void release() {}
            };
            default -> throw new IllegalArgumentException("codec " + codecName + " is not available (only ZSTD and UNCOMPRESSED)");
        };
    }

    @Override
    public BytesInputDecompressor getDecompressor(CompressionCodecName codecName) {
        return switch (codecName) {
            case ZSTD -> decompressor != null ? decompressor : (decompressor = new Decompressor());
            case UNCOMPRESSED -> new BytesInputDecompressor() {
                @Override
                public BytesInput decompress(BytesInput bytes, int uncompressedSize) {
                    return bytes;
                }

                @Override
                public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize) {
                    ByteBuffer in = input.slice(input.position(), compressedSize);
                    output.put(in);
                    input.position(input.position() + compressedSize);
                }

                @Override
                public void release() {}
            };
            default -> throw new IllegalArgumentException("codec " + codecName + " is not available (only ZSTD and UNCOMPRESSED)");
        };
    }

    @Override
    public void release() {
        if (compressor != null) compressor.release();
        if (decompressor != null) decompressor.release();
        compressor = null;
        decompressor = null;
    }

    /** A byte sink whose array can be read without a copy. */
    private static final class Buf extends ByteArrayOutputStream {
        byte[] array() {
            return buf;
        }
    }

    private static final class Compressor implements BytesInputCompressor {
        private final ZstdCompressCtx ctx = new ZstdCompressCtx();
        private final Buf in = new Buf();

        Compressor(int level) {
            ctx.setLevel(level);
        }

        @Override
        public BytesInput compress(BytesInput bytes) throws IOException {
            in.reset();
            bytes.writeAllTo(in);
            byte[] out = new byte[Math.toIntExact(Zstd.compressBound(in.size()))];
            int n = ctx.compressByteArray(out, 0, out.length, in.array(), 0, in.size());
            return BytesInput.from(out, 0, n);
        }

        @Override
        public CompressionCodecName getCodecName() {
            return CompressionCodecName.ZSTD;
        }

        @Override
        public void release() {
            ctx.close();
        }
    }

    private static final class Decompressor implements BytesInputDecompressor {
        private final ZstdDecompressCtx ctx = new ZstdDecompressCtx();
        private final Buf in = new Buf();

        @Override
        public BytesInput decompress(BytesInput bytes, int uncompressedSize) throws IOException {
            in.reset();
            bytes.writeAllTo(in);
            return BytesInput.from(decompress(in.array(), in.size(), uncompressedSize));
        }

        @Override
        public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize) throws IOException {
            byte[] src = new byte[compressedSize];
            input.get(src);
            output.put(decompress(src, compressedSize, uncompressedSize));
        }

        private byte[] decompress(byte[] src, int n, int uncompressedSize) throws IOException {
            byte[] out = new byte[uncompressedSize];
            int got = ctx.decompressByteArray(out, 0, uncompressedSize, src, 0, n);
            if (got != uncompressedSize) throw new IOException("zstd page: " + got + " bytes, expected " + uncompressedSize);
            return out;
        }

        @Override
        public void release() {
            ctx.close();
        }
    }
}
