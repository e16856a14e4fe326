package dev.zluda.capture;

import dev.zluda.capture.convert.ZstdCodecFactory;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.format.DataPageHeader;
import org.apache.parquet.format.DataPageHeaderV2;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.Util;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.schema.MessageType;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads Parquet files back with parquet-java's own pieces, without Hadoop: the footer through
 * parquet's {@link ParquetMetadataConverter}, page headers through parquet-format's {@link Util},
 * pages decoded and records assembled by parquet-column ({@link ColumnIOFactory}, the example
 * {@link Group} model). Only the walk from a column chunk's offset over its pages is ours.
 *
 * <p>Why not {@code ParquetFileReader}: its options builder ({@code ParquetReadOptions.Builder},
 * 1.16 and 1.17) always loads {@code ParquetInputFormat}, a subclass of Hadoop's
 * {@code FileInputFormat}, so parquet-hadoop's file reader cannot run without Hadoop on the class
 * path. Its writer side can, and that is all {@code zluda convert} uses.
 */
final class ParquetRead {
    private ParquetRead() {}

    /** The footer. */
    static ParquetMetadata footer(Path p) throws IOException {
        try (SeekableInputStream in = new LocalInputFile(p).newStream()) {
            long size = new LocalInputFile(p).getLength();
            byte[] tail = new byte[8];
            in.seek(size - 8);
            in.readFully(tail);
            if (!new String(tail, 4, 4, StandardCharsets.US_ASCII).equals("PAR1")) throw new IOException(p + ": no PAR1 at the end");
            int len = ByteBuffer.wrap(tail).order(ByteOrder.LITTLE_ENDIAN).getInt(0);
            byte[] meta = new byte[len];
            in.seek(size - 8 - len);
            in.readFully(meta);
            return new ParquetMetadataConverter().readParquetMetadata(new ByteArrayInputStream(meta), ParquetMetadataConverter.NO_FILTER);
        }
    }

    /** Rows, from the footer. */
    static long rows(Path p) throws IOException {
        return footer(p).getBlocks().stream().mapToLong(BlockMetaData::getRowCount).sum();
    }

    /** Every row, assembled by parquet-column into example Groups. */
    static List<Group> groups(Path p) throws IOException {
        ParquetMetadata f = footer(p);
        MessageType schema = f.getFileMetaData().getSchema();
        MessageColumnIO io = new ColumnIOFactory().getColumnIO(schema);
        List<Group> rows = new ArrayList<>();
        ZstdCodecFactory codecs = new ZstdCodecFactory(3);
        try (SeekableInputStream in = new LocalInputFile(p).newStream()) {
            for (BlockMetaData b : f.getBlocks()) {
                Map<List<String>, Pages> byPath = new HashMap<>();
                for (ColumnChunkMetaData c : b.getColumns()) {
                    byPath.put(Arrays.asList(c.getPath().toArray()), chunk(in, c, schema, codecs));
                }
                PageReadStore store = new PageReadStore() {
                    @Override
                    public PageReader getPageReader(ColumnDescriptor d) {
                        return byPath.get(Arrays.asList(d.getPath()));
                    }

                    @Override
                    public long getRowCount() {
                        return b.getRowCount();
                    }
                };
                RecordReader<Group> rr = io.getRecordReader(store, new GroupRecordConverter(schema));
                for (long i = 0; i < b.getRowCount(); i++) rows.add(rr.read());
            }
        } finally {
            codecs.release();
        }
        return rows;
    }

    /** One column chunk's pages, decompressed. */
    private static Pages chunk(SeekableInputStream in, ColumnChunkMetaData c, MessageType schema, CompressionCodecFactory codecs) throws IOException {
        ParquetMetadataConverter conv = new ParquetMetadataConverter();
        CompressionCodecFactory.BytesInputDecompressor dec = codecs.getDecompressor(c.getCodec());
        byte[] buf = new byte[Math.toIntExact(c.getTotalSize())];
        in.seek(c.getStartingPos());
        in.readFully(buf);
        ByteArrayInputStream s = new ByteArrayInputStream(buf);
        Pages pages = new Pages(c.getValueCount());
        long values = 0;
        while (values < c.getValueCount()) {
            PageHeader h = Util.readPageHeader(s);
            byte[] body = s.readNBytes(h.getCompressed_page_size());
            switch (h.getType()) {
                case DICTIONARY_PAGE -> pages.dictionary = new DictionaryPage(
                        dec.decompress(BytesInput.from(body), h.getUncompressed_page_size()),
                        h.getDictionary_page_header().getNum_values(), conv.getEncoding(h.getDictionary_page_header().getEncoding()));
                case DATA_PAGE -> {
                    DataPageHeader d = h.getData_page_header();
                    pages.data.add(new DataPageV1(dec.decompress(BytesInput.from(body), h.getUncompressed_page_size()), d.getNum_values(),
                            h.getUncompressed_page_size(), Statistics.noopStats(type(schema, c)),
                            conv.getEncoding(d.getRepetition_level_encoding()), conv.getEncoding(d.getDefinition_level_encoding()),
                            conv.getEncoding(d.getEncoding())));
                    values += d.getNum_values();
                }
                case DATA_PAGE_V2 -> {
                    DataPageHeaderV2 d = h.getData_page_header_v2();
                    int rl = d.getRepetition_levels_byte_length(), dl = d.getDefinition_levels_byte_length();
                    BytesInput data = BytesInput.from(body, rl + dl, body.length - rl - dl);
                    if (!d.isSetIs_compressed() || d.isIs_compressed()) data = dec.decompress(data, h.getUncompressed_page_size() - rl - dl);
                    pages.data.add(DataPageV2.uncompressed(d.getNum_rows(), d.getNum_nulls(), d.getNum_values(),
                            BytesInput.from(body, 0, rl), BytesInput.from(body, rl, dl), conv.getEncoding(d.getEncoding()),
                            data, Statistics.noopStats(type(schema, c))));
                    values += d.getNum_values();
                }
                default -> { } // index pages
            }
        }
        return pages;
    }

    private static org.apache.parquet.schema.PrimitiveType type(MessageType schema, ColumnChunkMetaData c) {
        return schema.getType(c.getPath().toArray()).asPrimitiveType();
    }

    private static final class Pages implements PageReader {
        final long total;
        DictionaryPage dictionary;
        final ArrayDeque<DataPage> data = new ArrayDeque<>();

        Pages(long total) {
            this.total = total;
        }

        @Override
        public DictionaryPage readDictionaryPage() {
            return dictionary;
        }

        @Override
        public long getTotalValueCount() {
            return total;
        }

        @Override
        public DataPage readPage() {
            return data.poll();
        }
    }
}
