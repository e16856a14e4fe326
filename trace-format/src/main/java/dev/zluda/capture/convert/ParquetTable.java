package dev.zluda.capture.convert;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.factory.DefaultV1ValuesWriterFactory;
import org.apache.parquet.column.values.factory.DefaultV2ValuesWriterFactory;
import org.apache.parquet.column.values.factory.ValuesWriterFactory;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One Parquet file written row by row straight into parquet-column's column writers (what
 * parquet-hadoop's {@code InternalParquetRecordWriter} does under a {@code ParquetWriter}, without
 * the record-assembly layer and without Hadoop): a flat schema of required and optional primitive
 * columns, ZSTD pages, row groups of about {@link #ROW_GROUP_BYTES}. Pages are data pages v1 with
 * the newer value encodings ({@link Encodings}), as pyarrow writes by default.
 *
 * <p>A row is given by one call per column in schema order ({@link #put(int, long)},
 * {@link #putNull(int)}, ...) and {@link #endRow()}, from one thread. Rows are collected in batches
 * that a thread of the table's own encodes, compresses and writes, so the tables of a conversion are
 * encoded in parallel with each other and with reading the capture.
 */
final class ParquetTable implements AutoCloseable {
    /** Target row group size (buffered bytes); parquet-mr's default is 128 MiB. */
    static final long ROW_GROUP_BYTES = 64L << 20;
    private static final int MIN_ROWS_FOR_CHECK = 100;
    private static final int MAX_ROWS_FOR_CHECK = 10_000;
    /** Rows per batch handed to the writing thread, and batches per table. */
    private static final int BATCH_ROWS = 4096, BATCHES = 4;

    private final MessageType schema;
    private final List<ColumnDescriptor> columns;
    private final int[] maxDef;
    private final boolean[] binary, int32, bool;
    private final ParquetProperties props;
    private final ZstdCodecFactory codecs;
    private final BytesInputCompressor compressor;
    private final ParquetFileWriter file;
    private ColumnChunkPageWriteStore pages;
    private ColumnWriteStore store;
    private final ColumnWriter[] cols;
    private long groupRows;
    private long nextCheck = MIN_ROWS_FOR_CHECK;

    // the producer's side
    private final BlockingQueue<Batch> full = new ArrayBlockingQueue<>(BATCHES + 1);
    private final BlockingQueue<Batch> free = new ArrayBlockingQueue<>(BATCHES);
    private Batch batch;
    private long rows;
    private boolean closed;
    private final Thread worker;
    private volatile Throwable failure;

    /** Column values of up to {@link #BATCH_ROWS} rows; a null in {@code bins} or a set {@code nulls} bit is a null. */
    private static final class Batch {
        final long[][] longs;
        final Binary[][] bins;
        final boolean[][] nulls;
        int n;
        boolean last;

        Batch(int columns) {
            longs = new long[columns][BATCH_ROWS];
            bins = new Binary[columns][];
            nulls = new boolean[columns][BATCH_ROWS];
        }
    }

    ParquetTable(Path path, MessageType schema, int zstdLevel) throws IOException {
        this.schema = schema;
        this.columns = schema.getColumns();
        this.maxDef = new int[columns.size()];
        for (int i = 0; i < maxDef.length; i++) maxDef[i] = columns.get(i).getMaxDefinitionLevel();
        ParquetProperties.Builder b = ParquetProperties.builder()
                .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
                .withValuesWriterFactory(new Encodings())
                .withDictionaryEncoding(true);
        // Dictionaries for strings only (function, parameter and result names, rendered values): the
        // integer columns are sequences, timestamps, small enums and handles, which DELTA_BINARY_PACKED
        // stores as compactly and faster. No min/max statistics on strings (free text: no use for
        // skipping row groups, and a comparison per value).
        for (ColumnDescriptor d : columns) {
            if (d.getPrimitiveType().getPrimitiveTypeName() != PrimitiveType.PrimitiveTypeName.BINARY) {
                b.withDictionaryEncoding(d.getPath()[0], false);
            } else {
                b.withStatisticsEnabled(d.getPath()[0], false);
            }
        }
        this.props = b.build();
        this.codecs = new ZstdCodecFactory(zstdLevel);
        this.compressor = codecs.getCompressor(zstdLevel > 0 ? CompressionCodecName.ZSTD : CompressionCodecName.UNCOMPRESSED);
        // (the constructor taking ParquetProperties has a Hadoop-typed overload of the same arity, which
        // javac cannot rule out without Hadoop on the class path; this one has none)
        this.file = new ParquetFileWriter(new LocalOutputFile(path), schema, ParquetFileWriter.Mode.OVERWRITE,
                ROW_GROUP_BYTES, 0, props.getColumnIndexTruncateLength(), props.getStatisticsTruncateLength(),
                props.getPageWriteChecksumEnabled());
        file.start();
        this.cols = new ColumnWriter[columns.size()];
        this.binary = new boolean[cols.length];
        this.int32 = new boolean[cols.length];
        this.bool = new boolean[cols.length];
        for (int i = 0; i < cols.length; i++) {
            PrimitiveType.PrimitiveTypeName t = columns.get(i).getPrimitiveType().getPrimitiveTypeName();
            binary[i] = t == PrimitiveType.PrimitiveTypeName.BINARY;
            int32[i] = t == PrimitiveType.PrimitiveTypeName.INT32;
            bool[i] = t == PrimitiveType.PrimitiveTypeName.BOOLEAN;
        }
        newGroup();
        for (int i = 0; i < BATCHES; i++) free.add(new Batch(cols.length));
        batch = free.poll();
        this.worker = Thread.ofPlatform().name("parquet " + path.getFileName()).daemon().start(this::work);
    }

    /**
     * Value encodings: dictionary first (RLE_DICTIONARY), falling back to DELTA_BINARY_PACKED for
     * integers and DELTA_BYTE_ARRAY for strings (parquet's v2 choices); booleans PLAIN (bit-packed).
     * In v1 data pages because v2 pages run every value's repetition and definition level through the
     * RLE encoder even where both are always 0, which cost about a fifth of the conversion time.
     */
    private static final class Encodings implements ValuesWriterFactory {
        private final DefaultV2ValuesWriterFactory v2 = new DefaultV2ValuesWriterFactory();
        private final DefaultV1ValuesWriterFactory v1 = new DefaultV1ValuesWriterFactory();

        @Override
        public void initialize(ParquetProperties p) {
            v2.initialize(p);
            v1.initialize(p);
        }

        @Override
        public ValuesWriter newValuesWriter(ColumnDescriptor d) {
            return d.getPrimitiveType().getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.BOOLEAN
                    ? v1.newValuesWriter(d) : v2.newValuesWriter(d);
        }
    }

    private void newGroup() {
        pages = new ColumnChunkPageWriteStore(compressor, schema, props.getAllocator(),
                props.getColumnIndexTruncateLength(), props.getPageWriteChecksumEnabled());
        store = props.newColumnWriteStore(schema, pages, pages);
        for (int i = 0; i < cols.length; i++) cols[i] = store.getColumnWriter(columns.get(i));
        groupRows = 0;
    }

    /** Column {@code c} (schema order) holds {@code v} (INT64, INT32). */
    void put(int c, long v) {
        batch.longs[c][batch.n] = v;
    }

    void put(int c, boolean v) {
        batch.longs[c][batch.n] = v ? 1 : 0;
    }

    /** A string column; null writes a null (the column must be optional). */
    void put(int c, Binary v) {
        Binary[] b = batch.bins[c];
        if (b == null) b = batch.bins[c] = new Binary[BATCH_ROWS];
        b[batch.n] = v;
    }

    /** An optional column is null in this row. */
    void putNull(int c) {
        if (binary[c]) put(c, (Binary) null);
        else batch.nulls[c][batch.n] = true;
    }

    /** Ends the row (every column given once). */
    void endRow() throws IOException {
        rows++;
        if (++batch.n == BATCH_ROWS) hand(false);
    }

    /** Rows so far. */
    long rows() {
        return rows;
    }

    /** Hands the current batch to the writing thread and takes a free one. */
    private void hand(boolean last) throws IOException {
        batch.last = last;
        try {
            full.put(batch);
            batch = last ? null : take(free);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while writing " + schema.getName() + " rows");
        }
        if (failure != null) throw failed();
    }

    /** Waits for a batch, giving up when the other side failed. */
    private Batch take(BlockingQueue<Batch> q) throws InterruptedException, IOException {
        while (true) {
            Batch b = q.poll(100, TimeUnit.MILLISECONDS);
            if (b != null) return b;
            if (failure != null) throw failed();
        }
    }

    private IOException failed() {
        Throwable t = failure;
        return t instanceof IOException e ? new IOException(e.getMessage(), e) : new IOException("writing " + schema.getName() + " rows: " + t, t);
    }

    /** The writing thread: encodes batches until the last one, then the footer is written by {@link #finish}. */
    private void work() {
        try {
            while (true) {
                Batch b = full.take();
                write(b);
                boolean last = b.last;
                b.n = 0;
                for (boolean[] x : b.nulls) java.util.Arrays.fill(x, false);
                if (last) return;
                free.put(b);
            }
        } catch (Throwable t) {
            failure = t;
        }
    }

    private void write(Batch b) throws IOException {
        int ncol = cols.length;
        for (int r = 0; r < b.n; r++) {
            for (int c = 0; c < ncol; c++) {
                ColumnWriter w = cols[c];
                if (binary[c]) {
                    Binary v = b.bins[c][r];
                    if (v == null) w.writeNull(0, 0);
                    else w.write(v, 0, maxDef[c]);
                } else if (b.nulls[c][r]) {
                    w.writeNull(0, 0);
                } else if (int32[c]) {
                    w.write((int) b.longs[c][r], 0, maxDef[c]);
                } else if (bool[c]) {
                    w.write(b.longs[c][r] != 0, 0, maxDef[c]);
                } else {
                    w.write(b.longs[c][r], 0, maxDef[c]);
                }
            }
            store.endRecord();
            if (++groupRows >= nextCheck) {
                long mem = store.getBufferedSize();
                long perRow = Math.max(1, mem / groupRows);
                if (mem > ROW_GROUP_BYTES - 2 * perRow) {
                    flushGroup();
                    newGroup();
                    nextCheck = MIN_ROWS_FOR_CHECK;
                } else {
                    nextCheck = Math.min(Math.max(MIN_ROWS_FOR_CHECK, (groupRows + ROW_GROUP_BYTES / perRow) / 2), groupRows + MAX_ROWS_FOR_CHECK);
                }
            }
        }
    }

    private void flushGroup() throws IOException {
        try {
            if (groupRows > 0) {
                file.startBlock(groupRows);
                store.flush();
                pages.flushToFileWriter(file);
                file.endBlock();
            }
        } finally {
            store.close();
            pages.close();
        }
    }

    /** Waits for the writing thread, then writes the last row group and the footer with {@code meta} as its key-value metadata. */
    void finish(Map<String, String> meta) throws IOException {
        if (closed) return;
        closed = true;
        try {
            hand(true);
            worker.join();
            if (failure != null) throw failed();
            flushGroup();
            file.end(meta);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while writing " + schema.getName() + " rows");
        } finally {
            codecs.release();
        }
    }

    /** Stops the writing thread and closes the file without a footer when {@link #finish} was not reached (the file is not valid Parquet then). */
    @Override
    public void close() throws IOException {
        if (closed) return;
        closed = true;
        worker.interrupt();
        try {
            worker.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            store.close();
            pages.close();
            file.close();
        } finally {
            codecs.release();
        }
    }
}
