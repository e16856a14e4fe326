package dev.zluda.capture;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.function.Consumer;

/**
 * Streaming reader of a capture file (FORMAT.md). The file is mapped read-only; records are
 * decoded on demand and delivered in sequence order by merging the chunks of all threads, so the
 * heap used does not grow with the capture (one cursor per chunk that still has records pending,
 * i.e. about one per thread).
 *
 * <p>Damage never throws past {@link #open}: iteration stops at the first damage (a cut, a torn or
 * bit-flipped chunk, an impossible size) after delivering every complete record before it, and
 * {@link #status()} says where and why. {@link #open} throws {@link CaptureException} (naming the
 * file and byte offset) only when nothing can be read: no file, a wrong magic, a newer major
 * version, a bad header, or no function table.
 *
 * <p>Not thread-safe. Records (and blob views) are valid until {@link #close()}.
 */
public final class CaptureReader implements AutoCloseable, Iterable<CaptureRecord> {
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int SLOTS = 64, SLOT_VALUES = 16;

    private final Path file;
    private final Arena arena;
    private final MemorySegment seg;
    private final long size;
    private final CaptureHeader header;
    private final int chunkSize;
    private List<FunctionDef> functions = List.of();
    private int[] paramCounts = new int[0];
    private ReadStatus status;

    private CaptureReader(Path file, Arena arena, MemorySegment seg, long size, CaptureHeader header) {
        this.file = file;
        this.arena = arena;
        this.seg = seg;
        this.size = size;
        this.header = header;
        this.chunkSize = header.chunkSize();
    }

    /**
     * Opens a capture file and reads its header and function table.
     *
     * @throws CaptureException naming the file and offset when it is no readable capture
     */
    public static CaptureReader open(Path file) throws CaptureException {
        long size;
        if (file == null) throw new CaptureException(null, -1, "no file given");
        try {
            if (Files.isDirectory(file)) throw new CaptureException(file, -1, "is a directory, not a capture file");
            size = Files.size(file);
        } catch (IOException e) {
            throw new CaptureException(file, -1, "cannot read: " + e, e);
        }
        if (size == 0) throw new CaptureException(file, 0, "empty file (0 bytes): not a zluda capture");
        Arena arena = Arena.ofShared();
        MemorySegment seg;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            seg = ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
        } catch (IOException e) {
            arena.close();
            throw new CaptureException(file, -1, "cannot map: " + e, e);
        }
        try {
            CaptureHeader h = readHeader(file, seg, size);
            CaptureReader r = new CaptureReader(file, arena, seg, size, h);
            r.readFunctionTable();
            return r;
        } catch (CaptureException | RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /**
     * Reads a capture held in memory (e.g. a heap segment over a byte array); {@code name} is used
     * in messages only. The segment must stay valid until {@link #close()}.
     *
     * @throws CaptureException when it is no readable capture
     */
    public static CaptureReader open(Path name, MemorySegment contents) throws CaptureException {
        long size = contents.byteSize();
        if (size == 0) throw new CaptureException(name, 0, "empty file (0 bytes): not a zluda capture");
        Arena arena = Arena.ofConfined();
        CaptureHeader h = readHeader(name, contents, size);
        CaptureReader r = new CaptureReader(name, arena, contents, size, h);
        r.readFunctionTable();
        return r;
    }

    private static CaptureHeader readHeader(Path file, MemorySegment s, long size) throws CaptureException {
        byte[] magic = s.asSlice(0, Math.min(8, size)).toArray(ValueLayout.JAVA_BYTE);
        byte[] want = "ZLUDACAP".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < magic.length; i++) {
            if (magic[i] != want[i]) {
                throw new CaptureException(file, i, "not a zluda capture: the file starts with " + hex(magic) + ", not 'ZLUDACAP'");
            }
        }
        if (size < CaptureFormat.FILE_HEADER_SIZE) {
            throw new CaptureException(file, size, "the file ends inside the 64-byte header (" + size + " bytes: cut)");
        }
        int major = Short.toUnsignedInt(s.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 8));
        int minor = Short.toUnsignedInt(s.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 10));
        long check = Integer.toUnsignedLong(s.get(INT, 60));
        long actual = Hashing.xxh64(s.asSlice(0, 60)) & 0xFFFFFFFFL;
        if (major > CaptureFormat.VERSION_MAJOR && check == actual) {
            throw new CaptureException(file, 8, "format version " + major + "." + minor + " is newer than this reader ("
                    + CaptureFormat.VERSION_MAJOR + ".x): update zluda");
        }
        if (check != actual) {
            throw new CaptureException(file, 60, String.format("header checksum mismatch (stored %08x, computed %08x): the header is damaged", check, actual));
        }
        if (major != CaptureFormat.VERSION_MAJOR) {
            throw new CaptureException(file, 8, "format version " + major + "." + minor + " is not supported (this reader reads 1.x)");
        }
        int ptr = s.get(ValueLayout.JAVA_BYTE, 12), order = s.get(ValueLayout.JAVA_BYTE, 13);
        int hs = Short.toUnsignedInt(s.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 14));
        if (ptr != 8) throw new CaptureException(file, 12, "pointer size " + ptr + " is not supported (64-bit processes only)");
        if (order != 1) throw new CaptureException(file, 13, "byte order " + order + " is not supported (little-endian only)");
        if (hs != CaptureFormat.FILE_HEADER_SIZE) throw new CaptureException(file, 14, "header size " + hs + ", expected 64");
        int cs = s.get(INT, 16);
        if (Integer.bitCount(cs) != 1 || cs < CaptureFormat.MIN_CHUNK_SIZE || cs > CaptureFormat.MAX_CHUNK_SIZE) {
            throw new CaptureException(file, 16, "chunk size " + Integer.toUnsignedString(cs) + " is not a power of two in 4096..16777216");
        }
        return new CaptureHeader(major, minor, cs, s.get(LONG, 24), s.get(LONG, 32), s.get(LONG, 40), s.get(INT, 48));
    }

    private static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) sb.append(sb.isEmpty() ? "" : " ").append(String.format("%02x", x));
        return sb.toString();
    }

    private void readFunctionTable() throws CaptureException {
        long off = CaptureFormat.FILE_HEADER_SIZE;
        Scan scan = new Scan();
        Cursor c = scan.chunkAt(0);
        if (c == null || c.start != off) {
            String why = scan.stopReason != null ? scan.stopReason : "no chunk at byte 64";
            throw new CaptureException(file, scan.stopOffset >= 0 ? scan.stopOffset : off, "no function table: " + why);
        }
        if (!c.advance(scan) || !(c.cur instanceof CaptureRecord.FunctionTable ft)) {
            String why = scan.stopReason != null ? scan.stopReason : "the first record is not a FUNCTION_TABLE";
            throw new CaptureException(file, scan.stopOffset >= 0 ? scan.stopOffset : off + CaptureFormat.CHUNK_HEADER_SIZE,
                    "no function table: " + why);
        }
        functions = ft.functions();
        paramCounts = new int[functions.size()];
        for (int i = 0; i < paramCounts.length; i++) paramCounts[i] = functions.get(i).paramCount();
    }

    /** The file being read. */
    public Path file() {
        return file;
    }

    /** Size of the file in bytes. */
    public long fileSize() {
        return size;
    }

    /** The file header. */
    public CaptureHeader header() {
        return header;
    }

    /** The function table: ENTER function ids index it. */
    public List<FunctionDef> functions() {
        return functions;
    }

    /**
     * How the last complete iteration ended (null before one has ended). Iterating again starts
     * from the beginning.
     */
    public ReadStatus status() {
        return status;
    }

    /** Delivers every record in sequence order, then returns the status. */
    public ReadStatus forEachRecord(Consumer<? super CaptureRecord> action) {
        Iterator<CaptureRecord> it = iterator();
        while (it.hasNext()) action.accept(it.next());
        return status;
    }

    /** A fresh iterator over the records in sequence order; {@link #status()} is set when it is exhausted. */
    @Override
    public Iterator<CaptureRecord> iterator() {
        return new Merge();
    }

    /**
     * Random access for viewers: the records of the chunk that holds the frame at {@code frameOffset}
     * (a record's {@link CaptureRecord#offset()}), in the order they were written, decoded exactly as a
     * full pass decodes them (the chunk's argument cache is replayed from the chunk's start). Empty
     * when no chunk holds that offset; a chunk is read up to its first record that does not decode.
     * Unlike iteration, this may be called from any thread, also while an iteration is running.
     */
    public List<CaptureRecord> chunkRecords(long frameOffset) {
        ChunkTable t = chunkTable();
        int lo = 0, hi = t.n - 1, at = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (t.starts[mid] <= frameOffset) { at = mid; lo = mid + 1; } else hi = mid - 1;
        }
        if (at < 0 || frameOffset >= t.starts[at] + (long) t.spans[at] * chunkSize) return List.of();
        Scan s = new Scan();
        Cursor c = s.chunkAt((t.starts[at] - CaptureFormat.FILE_HEADER_SIZE) / chunkSize);
        if (c == null) return List.of();
        List<CaptureRecord> out = new ArrayList<>();
        while (c.advance(s)) out.add(c.cur);
        return out;
    }

    /** Start offsets and spans of the chunks, in file order. */
    private record ChunkTable(long[] starts, int[] spans, int n) {}

    private volatile ChunkTable chunkTable;

    /** Every chunk's start and span, from a walk over the chunk headers only (built once). */
    private ChunkTable chunkTable() {
        ChunkTable t = chunkTable;
        if (t != null) return t;
        long[] starts = new long[64];
        int[] spans = new int[64];
        int n = 0;
        long unit = 0;
        while (true) {
            long off = unitOffset(unit);
            if (off + 8 > size || unit >= CaptureFormat.MAX_UNITS) break;
            if (seg.get(INT, off) != CaptureFormat.CHUNK_MAGIC) {
                unit++;
                continue;
            }
            int span = (int) Math.max(1, Math.min(Integer.toUnsignedLong(seg.get(INT, off + 4)), CaptureFormat.MAX_UNITS - unit));
            if (n == starts.length) {
                starts = Arrays.copyOf(starts, n * 2);
                spans = Arrays.copyOf(spans, n * 2);
            }
            starts[n] = off;
            spans[n++] = span;
            unit += span;
        }
        t = new ChunkTable(starts, spans, n);
        chunkTable = t;
        return t;
    }

    /** Unmaps the file. */
    @Override
    public void close() {
        arena.close();
    }

    // ------------------------------------------------------------------ scanning

    private long unitOffset(long unit) {
        return CaptureFormat.FILE_HEADER_SIZE + unit * chunkSize;
    }

    /** State of one pass: where the next unit is, the first damage seen. */
    private final class Scan {
        long nextUnit;
        long lastSeqBase;
        long stopOffset = -1;
        String stopReason;
        boolean stopScanning;

        void damage(long offset, String reason) {
            if (stopOffset < 0 || offset < stopOffset) {
                stopOffset = offset;
                stopReason = reason;
            }
            stopScanning = true;
        }

        /** The next published chunk at or after {@code nextUnit}, or null. */
        Cursor next() {
            while (!stopScanning) {
                long off = unitOffset(nextUnit);
                if (off >= size || nextUnit >= CaptureFormat.MAX_UNITS) return null;
                if (off + 4 > size) return null; // a few trailing bytes of an empty unit
                int magic = seg.get(INT, off);
                if (magic == 0) {
                    nextUnit++;
                    continue;
                }
                Cursor c = chunkAt(nextUnit);
                if (c == null) return null;
                nextUnit += c.span;
                return c;
            }
            return null;
        }

        /** Validates the chunk header at {@code unit}; null (and damage noted) when it is bad. */
        Cursor chunkAt(long unit) {
            long off = unitOffset(unit);
            if (off + 4 > size) {
                damage(off, "the file ends before the chunk at byte " + off + " (cut)");
                return null;
            }
            int magic = seg.get(INT, off);
            if (magic == 0) {
                damage(off, "the chunk at byte " + off + " was never published");
                return null;
            }
            if (magic != CaptureFormat.CHUNK_MAGIC) {
                damage(off, String.format("no chunk header at byte %d (found %08x, expected 'ZCHK'): damaged", off, magic));
                return null;
            }
            if (off + CaptureFormat.CHUNK_HEADER_SIZE > size) {
                damage(off, "the file ends inside the chunk header at byte " + off + " (cut)");
                return null;
            }
            long check = Integer.toUnsignedLong(seg.get(INT, off + 32));
            long actual = Hashing.xxh64(seg.asSlice(off + 4, 28)) & 0xFFFFFFFFL;
            if (check != actual) {
                damage(off, String.format("chunk header at byte %d fails its check (stored %08x, computed %08x): damaged", off, check, actual));
                return null;
            }
            long span = Integer.toUnsignedLong(seg.get(INT, off + 4));
            if (span < 1 || unit + span > CaptureFormat.MAX_UNITS) {
                damage(off, "chunk at byte " + off + " claims " + span + " units: damaged");
                return null;
            }
            long seqBase = seg.get(LONG, off + 16);
            if (seqBase < 0 || seqBase > CaptureFormat.SEQ_MASK || seqBase < lastSeqBase) {
                damage(off + 16, "chunk at byte " + off + " has sequence base " + seqBase + ", below the previous chunk's " + lastSeqBase + ": damaged");
                return null;
            }
            lastSeqBase = seqBase;
            long nominalEnd = off + span * chunkSize;
            Cursor c = new Cursor(off, (int) Math.min(span, Integer.MAX_VALUE), Math.min(nominalEnd, size), nominalEnd,
                    seg.get(LONG, off + 8), seqBase, seg.get(LONG, off + 24));
            c.prepass(this);
            return c;
        }
    }

    private static final class Damage extends Exception {
        final long offset;

        Damage(long offset, String message) {
            super(message, null, false, false);
            this.offset = offset;
        }
    }

    /** Reads one chunk's records in order. */
    private final class Cursor {
        final long start, end, nominalEnd, tid, seqBase;
        final int span;
        long framesEnd;
        long pos;
        long prevSeq, prevTs;
        boolean first = true;
        int[] cacheFid;
        long[] cacheVal;
        CaptureRecord cur;

        Cursor(long start, int span, long end, long nominalEnd, long tid, long seqBase, long tsBase) {
            this.start = start;
            this.span = span;
            this.end = end;
            this.nominalEnd = nominalEnd;
            this.tid = tid;
            this.seqBase = seqBase;
            this.prevSeq = seqBase;
            this.prevTs = tsBase;
            this.pos = start + CaptureFormat.CHUNK_HEADER_SIZE;
        }

        /** Walks the frames: finds where published records end, checks a SEAL. */
        void prepass(Scan scan) {
            long p = start + CaptureFormat.CHUNK_HEADER_SIZE;
            framesEnd = p;
            while (true) {
                if (p + 4 > end) {
                    if (end < nominalEnd) scan.damage(Math.min(p, end), "the file ends at byte " + size + ", inside the chunk at byte " + start + " (cut)");
                    break;
                }
                long len = Integer.toUnsignedLong(seg.get(INT, p));
                if (len == 0) break;
                if (p + 4 + len > end) {
                    if (p + 4 + len <= nominalEnd) scan.damage(p, "the file ends inside the record at byte " + p + " (cut)");
                    else scan.damage(p, "the record at byte " + p + " claims " + len + " bytes, past the end of its chunk at byte " + nominalEnd + ": damaged");
                    break;
                }
                int tag = seg.get(ValueLayout.JAVA_BYTE, p + 4) & 0xFF;
                if ((tag & 15) == CaptureFormat.SEAL) {
                    if (len != 9) {
                        scan.damage(p, "SEAL record at byte " + p + " has length " + len + ", expected 9: damaged");
                        break;
                    }
                    long want = seg.get(LONG, p + 5);
                    long got = Hashing.xxh64(seg.asSlice(start + CaptureFormat.CHUNK_HEADER_SIZE, p - start - CaptureFormat.CHUNK_HEADER_SIZE));
                    if (want != got) {
                        // where inside the chunk is unknown: its records are read up to the first that does not
                        // decode, and no later chunk is opened
                        scan.damage(start, "the chunk at byte " + start + " does not match its SEAL hash at byte " + p
                                + ": damaged (records from this chunk on may be wrong)");
                    }
                    break;
                }
                p += 4 + ((len + 3) & ~3L);
                framesEnd = p;
            }
        }

        /** Decodes the next record into {@link #cur}; false at the end of the chunk or at damage. */
        boolean advance(Scan scan) {
            cur = null;
            if (pos >= framesEnd) return false;
            long p = pos;
            long len = Integer.toUnsignedLong(seg.get(INT, p));
            if (len == 0 || p + 4 + len > end) return false;
            try {
                cur = decode(p, p + 4, p + 4 + len);
            } catch (Damage d) {
                scan.damage(d.offset, d.getMessage());
                pos = framesEnd;
                return false;
            }
            pos = p + 4 + ((len + 3) & ~3L);
            return true;
        }

        // ---- decoding of one payload [q, lim)
        private long q, lim, frame;

        private Damage damage(String what) {
            return new Damage(frame, "record at byte " + frame + ": " + what + ": damaged");
        }

        private int u8() throws Damage {
            if (q >= lim) throw damage("payload ends early");
            return seg.get(ValueLayout.JAVA_BYTE, q++) & 0xFF;
        }

        private long varint() throws Damage {
            long v = 0;
            for (int shift = 0; shift < 70; shift += 7) {
                if (q >= lim) throw damage("payload ends inside a varint");
                int b = seg.get(ValueLayout.JAVA_BYTE, q++) & 0xFF;
                if (shift == 63 && b > 1) throw damage("varint over 64 bits");
                v |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) return v;
            }
            throw damage("varint longer than 10 bytes");
        }

        private long u64() throws Damage {
            if (q + 8 > lim) throw damage("payload ends inside a 64-bit field");
            long v = seg.get(LONG, q);
            q += 8;
            return v;
        }

        private int count(long v, long minBytesEach, String what) throws Damage {
            if (v < 0 || v > (lim - q) / Math.max(1, minBytesEach)) throw damage(what + " " + Long.toUnsignedString(v) + " exceeds the bytes present");
            return (int) v;
        }

        private byte[] bytes(long n, String what) throws Damage {
            int len = count(n, 1, what);
            byte[] b = seg.asSlice(q, len).toArray(ValueLayout.JAVA_BYTE);
            q += len;
            return b;
        }

        private String str(String what) throws Damage {
            return new String(bytes(varint(), what + " length"), StandardCharsets.UTF_8);
        }

        private CaptureRecord decode(long frameOff, long from, long to) throws Damage {
            frame = frameOff;
            q = from;
            lim = to;
            int tag = u8();
            int type = tag & 15;
            if (type == 0 || type == CaptureFormat.SEAL) throw damage("record type " + type + " is not allowed here");
            if (type != CaptureFormat.ENTER && (tag >>> 4) != 0) throw damage("tag 0x" + Integer.toHexString(tag) + " has bits set");
            long sd = varint();
            if (!first && sd == 0) throw damage("sequence number does not increase");
            long seq = prevSeq + sd;
            if (sd > CaptureFormat.SEQ_MASK || seq > CaptureFormat.SEQ_MASK || seq < prevSeq) throw damage("sequence number out of range");
            long ts = prevTs + varint();
            CaptureRecord r = switch (type) {
                case CaptureFormat.ENTER -> enter(tag, seq, ts);
                case CaptureFormat.LEAVE -> {
                    long ed = varint();
                    if (ed < 1 || ed > seq) throw damage("LEAVE refers to an ENTER " + ed + " records before it");
                    long res = varint();
                    if (res > 0xFFFFFFFFL) throw damage("result " + res + " is not a 32-bit value");
                    yield new CaptureRecord.Leave(seq, ts, tid, frame, seq - ed, (int) res, items());
                }
                case CaptureFormat.BLOB -> {
                    long hash = u64();
                    long sz = varint();
                    int comp = u8();
                    if (comp > CaptureFormat.COMPRESSION_ZSTD) throw damage("unknown compression " + comp);
                    long n = lim - q;
                    if (comp == CaptureFormat.COMPRESSION_NONE && n != sz) throw damage("blob claims " + sz + " bytes but stores " + n);
                    if (sz < 0) throw damage("blob size out of range");
                    MemorySegment stored = seg.asSlice(q, n);
                    q = lim;
                    yield new CaptureRecord.Blob(seq, ts, tid, frame, hash, sz, comp, stored);
                }
                case CaptureFormat.MODULE -> {
                    long lib = varint(), idx = varint();
                    int kind = u8();
                    long hash = u64(), sz = varint(), handle = varint();
                    String name = str("file name");
                    yield new CaptureRecord.Module(seq, ts, tid, frame, (int) Math.min(lib, Integer.MAX_VALUE), (int) Math.min(idx, Integer.MAX_VALUE), kind, hash, sz, handle, name);
                }
                case CaptureFormat.KERNEL -> {
                    long ld = varint();
                    if (ld < 1 || ld > seq) throw damage("KERNEL refers to a launch " + ld + " records before it");
                    long fn = varint();
                    String name = str("kernel name");
                    byte[] params = bytes(varint(), "parameter buffer length");
                    int n = count(varint(), 18, "buffer count");
                    List<CaptureRecord.KernelBuffer> bufs = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) bufs.add(new CaptureRecord.KernelBuffer(varint(), varint(), u64(), u64()));
                    CaptureRecord.KernelLaunch launch = null;
                    if (q < lim) { // the launch section (FORMAT.md §6.5), absent in records that end after the buffers
                        long mod = u64();
                        long gx = varint(), gy = varint(), gz = varint(), bx = varint(), by = varint(), bz = varint(), sh = varint();
                        long res = varint();
                        if (res > 0xFFFFFFFFL) throw damage("kernel result " + res + " is not a 32-bit value");
                        launch = new CaptureRecord.KernelLaunch(mod, gx, gy, gz, bx, by, bz, sh, (int) res);
                    }
                    yield new CaptureRecord.Kernel(seq, ts, tid, frame, seq - ld, fn, name, params, List.copyOf(bufs), launch);
                }
                case CaptureFormat.THREAD_NAME -> new CaptureRecord.ThreadName(seq, ts, tid, frame, varint(), str("thread name"));
                case CaptureFormat.MARKER -> new CaptureRecord.Marker(seq, ts, tid, frame, str("marker text"));
                case CaptureFormat.PROCESS_END -> {
                    int reason = u8();
                    long status = Varint.unzigzag(varint());
                    long units = varint();
                    yield new CaptureRecord.ProcessEnd(seq, ts, tid, frame, reason, status, units);
                }
                case CaptureFormat.STRING -> {
                    long id = varint();
                    if (id > Integer.MAX_VALUE) throw damage("string id " + id + " out of range");
                    yield new CaptureRecord.StringDef(seq, ts, tid, frame, (int) id, str("string"));
                }
                case CaptureFormat.FUNCTION_TABLE -> {
                    int n = count(varint(), 2, "function count");
                    List<FunctionDef> fs = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) fs.add(new FunctionDef(str("function name"), u8()));
                    yield new CaptureRecord.FunctionTable(seq, ts, tid, frame, List.copyOf(fs));
                }
                default -> {
                    int n = (int) (lim - q);
                    q = lim;
                    yield new CaptureRecord.Unknown(seq, ts, tid, frame, type, n);
                }
            };
            if (q != lim) throw damage((lim - q) + " unexpected bytes after the " + CaptureFormat.typeName(type) + " fields");
            first = false;
            prevSeq = seq;
            prevTs = ts;
            return r;
        }

        private CaptureRecord.Enter enter(int tag, long seq, long ts) throws Damage {
            long depth = tag >>> 4;
            if (depth == 15) {
                depth = varint();
                if (depth > 1_000_000) throw damage("nesting depth " + depth + " is absurd");
            }
            long fid = varint();
            if (fid >= paramCounts.length) throw damage("function id " + fid + " is not in the function table (" + paramCounts.length + " entries)");
            int f = (int) fid;
            int n = paramCounts[f];
            if (cacheFid == null) {
                cacheFid = new int[SLOTS];
                Arrays.fill(cacheFid, -1);
                cacheVal = new long[SLOTS * SLOT_VALUES];
            }
            int slot = f & (SLOTS - 1), base = slot * SLOT_VALUES;
            boolean hit = cacheFid[slot] == f;
            long[] args = new long[n];
            for (int i = 0; i < n; i++) {
                long prev = hit && i < SLOT_VALUES ? cacheVal[base + i] : 0;
                args[i] = prev + Varint.unzigzag(varint());
            }
            cacheFid[slot] = f;
            for (int i = 0; i < SLOT_VALUES; i++) cacheVal[base + i] = i < n ? args[i] : 0;
            return new CaptureRecord.Enter(seq, ts, tid, frame, f, (int) depth, args, items());
        }

        private List<DataItem> items() throws Damage {
            if (q == lim) return List.of();
            List<DataItem> out = new ArrayList<>(2);
            while (q < lim) {
                long head = varint();
                long param = head >>> 3;
                if (param > 255) throw damage("data item for parameter " + param);
                int p = (int) param;
                int kind = (int) (head & 7);
                out.add(switch (kind) {
                    case CaptureFormat.ITEM_INLINE -> {
                        byte[] b = bytes(varint(), "data length");
                        yield new DataItem(p, kind, b, 0, b.length, -1);
                    }
                    case CaptureFormat.ITEM_BLOB, CaptureFormat.ITEM_HASH_ONLY -> {
                        long h = u64();
                        long sz = varint();
                        if (sz < 0) throw damage("data size out of range");
                        yield new DataItem(p, kind, null, h, sz, -1);
                    }
                    case CaptureFormat.ITEM_STRING -> {
                        long id = varint();
                        if (id > Integer.MAX_VALUE) throw damage("string id out of range");
                        yield new DataItem(p, kind, null, 0, -1, (int) id);
                    }
                    case CaptureFormat.ITEM_UNREADABLE -> new DataItem(p, kind, null, 0, -1, -1);
                    case CaptureFormat.ITEM_TRUNCATED -> {
                        long sz = varint();
                        byte[] b = bytes(varint(), "data length");
                        if (sz < b.length) throw damage("truncated data keeps more than its size");
                        yield new DataItem(p, kind, b, 0, sz, -1);
                    }
                    default -> throw damage("unknown data item kind " + kind);
                });
            }
            return out;
        }
    }

    /** Sequence-order merge of the chunks. */
    private final class Merge implements Iterator<CaptureRecord> {
        final Scan scan = new Scan();
        final PriorityQueue<Cursor> heap = new PriorityQueue<>(8, (a, b) -> Long.compare(a.cur.seq(), b.cur.seq()));
        Cursor pending;
        boolean pendingLoaded;
        CaptureRecord next;
        CaptureRecord last;
        long delivered;
        boolean done;

        @Override
        public boolean hasNext() {
            if (next != null) return true;
            if (done) return false;
            next = compute();
            if (next == null) {
                done = true;
                boolean clean = last instanceof CaptureRecord.ProcessEnd && scan.stopOffset < 0;
                if (clean) {
                    CaptureRecord.ProcessEnd pe = (CaptureRecord.ProcessEnd) last;
                    long need = unitOffset(Math.min(pe.units(), CaptureFormat.MAX_UNITS));
                    if (pe.units() > CaptureFormat.MAX_UNITS || size < need) {
                        clean = false;
                        scan.stopOffset = size;
                        scan.stopReason = "the file ends at byte " + size + ", but the capture ended with "
                                + pe.units() + " chunk units (" + need + " bytes): cut";
                    }
                }
                status = new ReadStatus(clean, scan.stopOffset, scan.stopReason, delivered);
                return false;
            }
            return true;
        }

        @Override
        public CaptureRecord next() {
            if (!hasNext()) throw new NoSuchElementException();
            CaptureRecord r = next;
            next = null;
            last = r;
            delivered++;
            return r;
        }

        private CaptureRecord compute() {
            while (true) {
                if (!pendingLoaded) {
                    pending = scan.next();
                    pendingLoaded = true;
                }
                Cursor top = heap.peek();
                if (top != null && (pending == null || top.cur.seq() < pending.seqBase)) {
                    heap.poll();
                    CaptureRecord r = top.cur;
                    if (top.advance(scan)) heap.add(top);
                    return r;
                }
                if (pending != null && scan.stopOffset >= 0 && scan.stopOffset < pending.start) {
                    pending = null; // it lies after the damage: drain what is open
                    continue;
                }
                if (pending != null) {
                    Cursor c = pending;
                    pending = null;
                    pendingLoaded = false;
                    if (c.advance(scan)) heap.add(c);
                    continue;
                }
                return null;
            }
        }
    }
}
