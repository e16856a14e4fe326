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
 * <p>Damage never throws past {@link #open} (FORMAT.md §5): every field the reader uses is checked
 * (function ids against the table, lengths against the payload and the chunk, offsets against the
 * file), and damage (a cut, a torn or bit-flipped frame, a zeroed length word, a bad chunk header, a
 * copied chunk, an impossible size) is skipped: reading resynchronises on the next valid frame or
 * chunk and goes on, and {@link #status()} lists each damaged place (file offset, chunk, record
 * number, what was expected) with the records it cost. A record is never dropped without a note.
 * {@link #open} throws {@link CaptureException} (naming the file and byte offset) only when nothing
 * can be read: no file, a wrong magic, a newer major version, a bad file header.
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
                String kind = kindOf(magic);
                throw new CaptureException(file, i, "not a zluda capture: the file starts with " + hex(magic) + ", not 'ZLUDACAP'"
                        + (kind != null ? " (" + kind + ")" : ""));
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

    /** What a file that is no capture seems to be, from its first bytes, or null. */
    private static String kindOf(byte[] m) {
        String s = new String(m, StandardCharsets.ISO_8859_1);
        if (s.startsWith("PAR1")) return "a Parquet file: zluda convert --to parquet writes tables from a capture; give the capture";
        if (s.startsWith("\u007fELF")) return "an ELF file: a program or library, not its capture";
        if (s.startsWith("PK")) return "a ZIP archive that is no zluda pack";
        if (s.startsWith("\u0028\u00b5\u002f\u00fd")) return "a zstd-compressed file: decompress it first";
        if (s.startsWith("\u001f\u008b")) return "a gzip-compressed file: decompress it first";
        String t = s.stripLeading();
        if (t.startsWith("{") || t.startsWith("[")) return "JSON: a manifest.json or zluda convert's output? give the capture directory";
        if (t.startsWith("//") || t.startsWith(".versio")) return "text, PTX perhaps: zluda ptx check reads PTX";
        return null;
    }

    private static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) sb.append(sb.isEmpty() ? "" : " ").append(String.format("%02x", x));
        return sb.toString();
    }

    /**
     * Reads the function table, the first record of the chunk at unit 0 (FORMAT.md §6.10). A capture
     * whose table cannot be read still opens (its process was killed before the table was published,
     * or the first chunk is damaged): function ids are then resolved through this build's API spec
     * when the header's {@code specHash} is that spec's hash (a writer uses the spec's ids), else the
     * table is empty and no ENTER record can be decoded. A damage note says which.
     */
    private void readFunctionTable() {
        Scan scan = new Scan();
        Cursor c = scan.next();
        long tableAt = CaptureFormat.FILE_HEADER_SIZE + CaptureFormat.CHUNK_HEADER_SIZE;
        if (c != null && c.start == CaptureFormat.FILE_HEADER_SIZE && c.advance(scan) && c.cur instanceof CaptureRecord.FunctionTable ft) {
            setFunctions(ft.functions());
            return;
        }
        String why;
        boolean cut = false;
        if (c != null && c.start == CaptureFormat.FILE_HEADER_SIZE && c.cur != null) {
            why = "the first record is a " + CaptureFormat.typeName(c.cur instanceof CaptureRecord.Unknown u ? u.type() : typeOf(c.cur)) + ", not the FUNCTION_TABLE";
        } else if (!scan.notes.isEmpty()) {
            why = scan.notes.getFirst().text();
            cut = scan.notes.getFirst().cut();
        } else if (c == null) {
            why = "the file holds no record: the process ended before the recorder published its function table (killed while the recorder started?)";
            cut = true;
        } else {
            why = "the chunk at byte 64 was never published and the first chunk starts at byte " + c.start;
        }
        long specHash;
        try {
            specHash = CaptureWriter.specHash();
        } catch (RuntimeException e) {
            specHash = 0;
        }
        String then;
        if (header.specHash() == specHash && specHash != 0) {
            setFunctions(FunctionDef.fromSpec(dev.zluda.spec.CudaApi.get()));
            then = "function ids are resolved through this build's API spec (the header's spec hash is its hash)";
        } else {
            then = String.format("ENTER records cannot be decoded (the header's spec hash %016x is not this build's %016x, whose function ids it would otherwise use)",
                    header.specHash(), specHash);
        }
        openNotes = List.of(new DamageNote(tableAt, -1, -1, 0, "no function table (the first record, at byte " + tableAt + "): " + why + "; " + then, 0, cut));
    }

    private static int typeOf(CaptureRecord r) {
        return switch (r) {
            case CaptureRecord.Enter x -> CaptureFormat.ENTER;
            case CaptureRecord.Leave x -> CaptureFormat.LEAVE;
            case CaptureRecord.Blob x -> CaptureFormat.BLOB;
            case CaptureRecord.Module x -> CaptureFormat.MODULE;
            case CaptureRecord.Kernel x -> CaptureFormat.KERNEL;
            case CaptureRecord.ThreadName x -> CaptureFormat.THREAD_NAME;
            case CaptureRecord.Marker x -> CaptureFormat.MARKER;
            case CaptureRecord.ProcessEnd x -> CaptureFormat.PROCESS_END;
            case CaptureRecord.StringDef x -> CaptureFormat.STRING;
            case CaptureRecord.FunctionTable x -> CaptureFormat.FUNCTION_TABLE;
            case CaptureRecord.Unknown x -> x.type();
        };
    }

    private void setFunctions(List<FunctionDef> fs) {
        functions = fs;
        paramCounts = new int[fs.size()];
        for (int i = 0; i < paramCounts.length; i++) paramCounts[i] = fs.get(i).paramCount();
    }

    /** Notes about the capture as a whole made when it was opened (a missing function table), part of every {@link #status()}. */
    private List<DamageNote> openNotes = List.of();

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
        Merge m = new Merge();
        READING.set(new java.lang.ref.WeakReference<>(m));
        return m;
    }

    /** The iteration this thread started last, for {@link #readingNow()}. */
    private static final ThreadLocal<java.lang.ref.WeakReference<Merge>> READING = new ThreadLocal<>();

    /**
     * Where the iteration this thread started last stands: {@code FILE: record N (a TYPE at byte X)},
     * the record it delivered last; null when there is none. For error messages about a failure while
     * records are being processed (the record it failed on is usually this one).
     */
    public static String readingNow() {
        java.lang.ref.WeakReference<Merge> ref = READING.get();
        Merge m = ref == null ? null : ref.get();
        if (m == null || m.last == null) return null;
        CaptureRecord r = m.last;
        return m.owner().file + ": record " + m.delivered + " in sequence order (a " + CaptureFormat.typeName(typeOf(r)) + " at byte " + r.offset()
                + ", sequence number " + r.seq() + ")";
    }

    /**
     * Random access for viewers: the records of the chunk that holds the frame at {@code frameOffset}
     * (a record's {@link CaptureRecord#offset()}), in the order they were written, decoded exactly as a
     * full pass decodes them (the chunk's argument cache is replayed from the chunk's start, damage is
     * skipped the same way). Empty when no chunk holds that offset. Unlike iteration, this may be called
     * from any thread, also while an iteration is running.
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
        s.nextUnit = (t.starts[at] - CaptureFormat.FILE_HEADER_SIZE) / chunkSize;
        Cursor c = s.next();
        if (c == null || c.start != t.starts[at]) return List.of();
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
        Scan s = new Scan();
        for (Cursor c = s.next(); c != null; c = s.next()) {
            if (n == starts.length) {
                starts = Arrays.copyOf(starts, n * 2);
                spans = Arrays.copyOf(spans, n * 2);
            }
            starts[n] = c.start;
            spans[n++] = c.span;
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

    private static final MemorySegment ZEROS = MemorySegment.ofArray(new byte[1 << 16]);

    /** Whether bytes {@code [from, to)} of the file are all zero. */
    private boolean allZero(long from, long to) {
        for (long p = from; p < to; p += ZEROS.byteSize()) {
            long n = Math.min(ZEROS.byteSize(), to - p);
            if (seg.asSlice(p, n).mismatch(ZEROS.asSlice(0, n)) >= 0) return false;
        }
        return true;
    }

    /** The offset of the last non-zero byte in {@code [from, to)}, or {@code from - 1} when they are all zero. */
    private long lastNonZero(long from, long to) {
        long e = to;
        while (e > from) {
            long b = Math.max(from, e - ZEROS.byteSize());
            if (!allZero(b, e)) {
                for (long i = e - 1; i >= b; i--) if (seg.get(ValueLayout.JAVA_BYTE, i) != 0) return i;
            }
            e = b;
        }
        return from - 1;
    }

    private int u32(long off) {
        return seg.get(INT, off);
    }

    /** Whether the chunk header at {@code off} (40 bytes present) passes its check (bytes 4..31 against 32..35). */
    private boolean headerCheck(long off) {
        return Integer.toUnsignedLong(seg.get(INT, off + 32)) == (Hashing.xxh64(seg.asSlice(off + 4, 28)) & 0xFFFFFFFFL);
    }

    /**
     * State of one pass over the chunks, in file order, and the damage notes it made. Chunks are found
     * unit by unit: a unit that starts a chunk (magic and header check) is read and the walk jumps past
     * its span; a unit that is all zero (or holds only a header a writer had not finished) is skipped;
     * any other unit holds bytes no readable chunk header covers, which one note per run of such units
     * reports. A header whose magic word alone is wrong (or zero, with records in the chunk) is read
     * with a note: its check covers every other field.
     */
    private final class Scan {
        long nextUnit;
        long maxSeqBase = -1, maxSeqBaseAt = -1;
        final List<DamageNote> notes = new ArrayList<>();
        long noteCount, lost;
        /** Records lost that took a sequence number no delivered record has (all but out-of-order copies). */
        long lostInOrder;
        /** Thread ids of the chunks met. */
        final java.util.Set<Long> threads = new java.util.HashSet<>();
        private long orphanFrom = -1, orphanEnd;
        private String orphanWhy;

        void note(long offset, Cursor c, int record, String what, long lostRecords, boolean cut) {
            note(offset, c, record, what, lostRecords, cut, true);
        }

        void note(long offset, Cursor c, int record, String what, long lostRecords, boolean cut, boolean leavesGap) {
            noteCount++;
            if (lostRecords > 0) lost += lostRecords;
            if (lostRecords > 0 && leavesGap) lostInOrder += lostRecords;
            if (c != null) c.damaged = true;
            if (notes.size() < ReadStatus.MAX_NOTES) {
                notes.add(new DamageNote(offset, c == null ? -1 : c.start, c == null ? -1 : c.tid, record, what, lostRecords, cut));
            }
        }

        private void orphan(long from, long to, String why) {
            if (orphanFrom < 0) {
                orphanFrom = from;
                orphanWhy = why;
            }
            orphanEnd = to;
        }

        private void flushOrphan() {
            if (orphanFrom < 0) return;
            note(orphanFrom, null, 0, orphanWhy + ": bytes " + orphanFrom + ".." + orphanEnd
                    + " hold data that no readable chunk header covers (a damaged header, or a chunk's later units); not read", -1, false);
            orphanFrom = -1;
        }

        /** The next chunk at or after {@code nextUnit}, or null at the end of the file. */
        Cursor next() {
            while (true) {
                long unit = nextUnit;
                long off = unitOffset(unit);
                if (unit >= CaptureFormat.MAX_UNITS || off >= size) {
                    flushOrphan();
                    return null;
                }
                long unitEnd = Math.min(off + chunkSize, size);
                if (off + CaptureFormat.CHUNK_HEADER_SIZE > size) {
                    flushOrphan();
                    nextUnit = CaptureFormat.MAX_UNITS;
                    if (!allZero(off, size)) {
                        note(size, null, 0, "the file ends " + (size - off) + " bytes into the chunk header at byte " + off + " (cut)", 0, true);
                    }
                    return null;
                }
                int magic = u32(off);
                boolean check = headerCheck(off);
                if (check) {
                    String why = null;
                    if (magic == 0) {
                        long span = Integer.toUnsignedLong(u32(off + 4));
                        long spanEnd = span >= 1 && unit + span <= CaptureFormat.MAX_UNITS ? Math.min(off + span * chunkSize, size) : unitEnd;
                        if (allZero(off + CaptureFormat.CHUNK_HEADER_SIZE, spanEnd)) {
                            // a chunk whose writer stopped before publishing it: it holds nothing
                            flushOrphan();
                            nextUnit = unit + Math.max(1, (spanEnd - off + chunkSize - 1) / chunkSize);
                            continue;
                        }
                        why = "its magic word is 0 (never published, or zeroed) but it holds records; read";
                    } else if (magic != CaptureFormat.CHUNK_MAGIC) {
                        why = String.format("its magic word is %08x, not 'ZCHK' (damaged), but the rest of its header passes its check; read", magic);
                    }
                    Cursor c = chunk(unit, off, why);
                    if (c != null) return c;
                    continue;
                }
                if (magic == 0 && allZero(off + CaptureFormat.CHUNK_HEADER_SIZE, unitEnd)) {
                    // an empty unit, or a chunk header its writer had not finished: no record
                    flushOrphan();
                    nextUnit = unit + 1;
                    continue;
                }
                String why;
                if (magic == CaptureFormat.CHUNK_MAGIC) {
                    why = String.format("the chunk header at byte %d fails its check (stored %08x, computed %08x)", off,
                            seg.get(INT, off + 32), (int) Hashing.xxh64(seg.asSlice(off + 4, 28)));
                } else {
                    why = String.format("no chunk header at byte %d (found %08x, expected 'ZCHK')", off, magic);
                }
                orphan(off, unitEnd, why);
                nextUnit = unit + 1;
            }
        }

        /** A cursor over the chunk whose header (check passed) is at {@code off}; null (and a note) when its fields are impossible. */
        private Cursor chunk(long unit, long off, String why) {
            long span = Integer.toUnsignedLong(u32(off + 4));
            long seqBase = seg.get(LONG, off + 16);
            long unitEnd = Math.min(off + chunkSize, size);
            if (span < 1 || unit + span > CaptureFormat.MAX_UNITS) {
                orphan(off, unitEnd, "the chunk header at byte " + off + " claims " + span + " units");
                nextUnit = unit + 1;
                return null;
            }
            if (seqBase < 0 || seqBase > CaptureFormat.SEQ_MASK) {
                orphan(off, unitEnd, "the chunk header at byte " + off + " has sequence base " + Long.toUnsignedString(seqBase) + ", over 2^40");
                nextUnit = unit + 1;
                return null;
            }
            flushOrphan();
            threads.add(seg.get(LONG, off + 8));
            long nominalEnd = off + span * chunkSize;
            Cursor c = new Cursor(off, (int) span, Math.min(nominalEnd, size), nominalEnd, seg.get(LONG, off + 8), seqBase, seg.get(LONG, off + 24));
            if (why != null) note(off, c, 0, why, 0, false);
            if (seqBase < maxSeqBase) {
                note(off + 16, c, 0, "its sequence base " + seqBase + " is below the " + maxSeqBase + " of the chunk at byte " + maxSeqBaseAt
                        + " (chunks lie in the file in sequence order): a copied or misplaced chunk; its records are delivered where they fit the order", 0, false);
            } else {
                maxSeqBase = seqBase;
                maxSeqBaseAt = off;
            }
            nextUnit = unit + span;
            return c;
        }
    }

    /** A record that does not decode; {@code kind} says which failures are consequences rather than damage of their own. */
    private static final class Damage extends Exception {
        static final int BAD = 0, FUNCTION_ID = 1, ARGS_UNKNOWN = 2;
        final int kind;

        Damage(int kind, String message) {
            super(message, null, false, false);
            this.kind = kind;
        }
    }

    private static final int UNKNOWN_FUNCTION = -2;
    /** Bytes a cursor may decode while looking for the next frame after damage, per byte of its chunk. */
    private static final int RESYNC_WORK = 64;
    /** How far past a damaged frame the reader tries lengths for it (a longer record can only be a blob). */
    private static final long RESYNC_REACH = 1 << 16;
    /** Frames that must decode one after another (or end the chunk's data) for a position to count as a frame start. */
    private static final int CHAIN = 3;

    /**
     * Reads one chunk's records in the order they were written (FORMAT.md §3.3), resynchronising after
     * damage: a length word that is 0 while frames follow it, one that runs past the chunk, a payload
     * that does not decode. The next frame is the first 4-aligned position where a frame decodes and is
     * followed by a plausible one; the damaged record is then read with the length that ends there, or
     * skipped. A skipped record whose tag and sequence and time deltas still decode keeps the chunk's
     * order: the records after it are read (an ENTER whose arguments are stored relative to a lost one
     * is not, and is counted); one whose header does not decode takes the rest of the chunk with it
     * (counted). Every record not delivered is counted in a note.
     */
    private final class Cursor {
        final long start, end, nominalEnd, tid, seqBase, tsBase;
        final int span;
        long pos;
        long prevSeq, prevTs;
        boolean first = true;
        int[] cacheFid;
        long[] cacheVal;
        /** Slots whose values are not known (bit per slot), after a lost ENTER. */
        long unknownValues;
        CaptureRecord cur;
        /** Records taken from the chunk so far (delivered or not): the next one is number {@code frames + 1}. */
        int frames;
        boolean done, damaged, cutNoted;
        private long lastNonZero = Long.MIN_VALUE;
        private long work;
        // notes made once per chunk, when it is finished
        private long argsUnknown, argsUnknownAt, badFunction, badFunctionAt, outOfOrder, outOfOrderAt, outOfOrderSeq, outOfOrderLast;
        private int argsUnknownRecord, badFunctionRecord, outOfOrderRecord;
        private String badFunctionWhat;

        Cursor(long start, int span, long end, long nominalEnd, long tid, long seqBase, long tsBase) {
            this.start = start;
            this.span = span;
            this.end = end;
            this.nominalEnd = nominalEnd;
            this.tid = tid;
            this.seqBase = seqBase;
            this.tsBase = tsBase;
            this.prevSeq = seqBase;
            this.prevTs = tsBase;
            this.pos = start + CaptureFormat.CHUNK_HEADER_SIZE;
        }

        private long lastNonZero() {
            if (lastNonZero == Long.MIN_VALUE) lastNonZero = CaptureReader.this.lastNonZero(start + CaptureFormat.CHUNK_HEADER_SIZE, end);
            return lastNonZero;
        }

        private long padded(long p, long len) {
            return p + 4 + ((len + 3) & ~3L);
        }

        /** Decodes the next record into {@link #cur}; false at the end of the chunk (or where nothing more can be read). */
        boolean advance(Scan scan) {
            cur = null;
            while (!done) {
                long p = pos;
                if (p + 4 > end) {
                    if (end < nominalEnd) {
                        cutNoted = true;
                        scan.note(size, this, frames + 1, "the file ends at byte " + size + ", inside the chunk (which runs to byte " + nominalEnd + "; cut)", 0, true);
                    }
                    finish(scan);
                    break;
                }
                long len = Integer.toUnsignedLong(u32(p));
                if (len == 0) {
                    // nothing more was published, unless frames follow
                    if (p > lastNonZero() || !resync(scan, p, 0, null)) {
                        finish(scan);
                        break;
                    }
                    if (cur != null) return true;
                    continue;
                }
                if (p + 4 + len > end && end < nominalEnd && p + 4 + len <= nominalEnd) {
                    cutNoted = true;
                    scan.note(size, this, frames + 1, "the file ends at byte " + size + ", inside the record at byte " + p + " (" + len + " bytes; cut)", 1, true);
                    finish(scan);
                    break;
                }
                int tag = seg.get(ValueLayout.JAVA_BYTE, p + 4) & 0xFF;
                if (tag == CaptureFormat.SEAL && len == 9) {
                    seal(scan, p);
                    finish(scan);
                    break;
                }
                Damage failure = null;
                if (p + 4 + len <= end) {
                    try {
                        CaptureRecord r = decode(p, p + 4, p + 4 + len, false);
                        take(r, padded(p, len));
                        return true;
                    } catch (Damage d) {
                        if (d.kind == Damage.ARGS_UNKNOWN) {
                            // intact, but its arguments are stored relative to a lost ENTER's
                            keepOrder();
                            if (argsUnknown++ == 0) { argsUnknownAt = p; argsUnknownRecord = frames + 1; }
                            frames++;
                            pos = padded(p, len);
                            continue;
                        }
                        failure = d;
                    }
                }
                if (!resync(scan, p, len, failure)) {
                    finish(scan);
                    break;
                }
                if (cur != null) return true;
            }
            return false;
        }

        private void take(CaptureRecord r, long next) {
            commit(r);
            cur = r;
            frames++;
            pos = next;
        }

        /**
         * The frame at {@code p} cannot be taken as its length word {@code len} says: 0 with bytes after it,
         * past the chunk's end, or a payload that does not decode ({@code failure}). Reads or skips the
         * record and moves to the next frame; false when the chunk ends here.
         */
        private boolean resync(Scan scan, long p, long len, Damage failure) {
            int record = frames + 1;
            boolean inChunk = len > 0 && p + 4 + len <= end;
            // the length word is believed when what it claims holds no run of frames that decode, and a frame follows it
            boolean lengthHolds = inChunk && nextIsFrame(padded(p, len)) && findFrame(p + 4, padded(p, len)) < 0;
            if (failure != null && lengthHolds && failure.kind == Damage.FUNCTION_ID) {
                // counted once per chunk: a damaged function id, or a table that lacks it
                if (badFunction++ == 0) { badFunctionAt = p; badFunctionRecord = record; badFunctionWhat = failure.getMessage(); }
                lose(scan, p, padded(p, len), record, null);
                return true;
            }
            if (failure != null && lengthHolds) {
                // the frame is where its length says: the payload is damaged
                return lose(scan, p, padded(p, len), record, "the record does not decode (" + failure.getMessage() + ")");
            }
            String found = describe(len, failure);
            // the next frames, in order: the first that the record ends at (read with that length), else the first
            long q = -1;
            boolean blob = (seg.get(ValueLayout.JAVA_BYTE, p + 4) & 0xFF) == CaptureFormat.BLOB;
            for (long c = findFrame(p + 4, Long.MAX_VALUE); c >= 0; c = findFrame(c + 4, Long.MAX_VALUE)) {
                if (q < 0) q = c;
                if ((c - p > RESYNC_REACH && !blob) || work > budget()) break; // only a blob is that long
                if (readAs(scan, p, len, c, Math.max(1, c - p - 7), c - p - 4, record, found)) return true;
            }
            if (len == 0 && q < 0) return false; // a record its writer had not published when it stopped: not damage
            long dataEnd = lastNonZero() + 1;
            if (q < 0) {
                // the chunk's last record: the length that ends where its data ends
                long lo = Math.max(1, dataEnd - p - 4);
                if (len != 0 && readAs(scan, p, len, -1, lo, Math.min(end - p - 4, lo + 16), record, found)) return true;
                lose(scan, p, -1, record, found + "; no readable frame follows in the chunk (bytes " + p + ".." + dataEnd + ")");
                return false;
            }
            return lose(scan, p, q, record, found + "; reading resumes at the next frame, byte " + q);
        }

        /** Reads the record at {@code p} with the first length in {@code [lo, hi]} that decodes; reading goes on at {@code next} (-1: after it). */
        private boolean readAs(Scan scan, long p, long len, long next, long lo, long hi, int record, String found) {
            for (long l = lo; l <= hi; l++) {
                if (l == len) continue;
                work += l;
                try {
                    CaptureRecord r = decode(p, p + 4, p + 4 + l, false);
                    scan.note(p, this, record, found + "; the record is " + l + " bytes, " + (next >= 0 ? "followed by a frame at byte " + next : "the last in the chunk")
                            + ": its length word is damaged; read", 0, false);
                    take(r, next >= 0 ? next : padded(p, l));
                    return true;
                } catch (Damage d) {
                    if (d.kind == Damage.ARGS_UNKNOWN) {
                        // it decodes with this length, but its arguments are relative to a lost ENTER's
                        scan.note(p, this, record, found + "; the record is " + l + " bytes: its length word is damaged", 0, false);
                        keepOrder();
                        if (argsUnknown++ == 0) { argsUnknownAt = p; argsUnknownRecord = record; }
                        frames++;
                        pos = next >= 0 ? next : padded(p, l);
                        return true;
                    }
                }
            }
            return false;
        }

        private long budget() {
            return (long) span * chunkSize * RESYNC_WORK;
        }

        private String describe(long len, Damage failure) {
            if (len == 0) return "length word 0 (nothing published), but records follow";
            if (failure != null) return "the record does not decode (" + failure.getMessage() + ")";
            return "length word " + len + " runs past the end of the chunk at byte " + nominalEnd;
        }

        /**
         * The record at {@code p} is not delivered; reading goes on at {@code next} (-1: nowhere). When the
         * record's tag and deltas decode, the chunk's order is kept; otherwise the records after it cannot be
         * placed and are counted with it. {@code why} null: counted by the caller's per-chunk note.
         */
        private boolean lose(Scan scan, long p, long next, int record, String why) {
            long lim = next >= 0 ? Math.min(next, end) : end;
            dStage = 0;
            dType = 0;
            try {
                decode(p, p + 4, lim, false);
            } catch (Damage ignored) {
                // how far it got is in dStage
            }
            frames++;
            if (dStage >= 1 || next < 0) {
                if (dStage >= 1) keepOrder();
                if (why != null) scan.note(p, this, record, why, 1, false);
                if (next < 0) return false;
                pos = next;
                return true;
            }
            long more = countFrames(next);
            scan.note(p, this, record, (why != null ? why : "the record does not decode") + "; its tag or deltas do not decode either, so the "
                    + more + " records after it in this chunk cannot be placed in the capture's order"
                    + (next - p > 64 ? " (and whatever records bytes " + p + ".." + next + " held are lost)" : ""), 1 + more, false);
            done = true;
            return false;
        }

        /** Frames from {@code p} to the end of the chunk's data, following length words while they make sense. */
        private long countFrames(long p) {
            long n = 0;
            while (p + 4 <= end) {
                long len = Integer.toUnsignedLong(u32(p));
                if (len == 0 || p + 4 + len > end) break;
                n++;
                if ((seg.get(ValueLayout.JAVA_BYTE, p + 4) & 0xFF) == CaptureFormat.SEAL && len == 9) { n--; break; }
                p = padded(p, len);
            }
            return n;
        }

        /**
         * Whether the frame after one whose payload does not decode starts at {@code q}, as its length word
         * says: the chunk's end, a zero length word with only zeros after it, or {@link #CHAIN} length words
         * in a row that each land inside the chunk on a plausible tag (the frames need not decode: the
         * next record may be damaged too).
         */
        private boolean nextIsFrame(long q) {
            if (q + 4 > end) return true;
            if (u32(q) == 0) return q > lastNonZero();
            for (int i = 0; i < CHAIN; i++) {
                long len = Integer.toUnsignedLong(u32(q));
                if (len == 0) return i > 0;
                if (q + 5 > end || q + 4 + len > nominalEnd) return false;
                int tag = seg.get(ValueLayout.JAVA_BYTE, q + 4) & 0xFF;
                if (tag == CaptureFormat.SEAL) return len == 9;
                if (!plausibleTag(tag)) return false;
                q = padded(q, len);
                if (q + 4 > end) return true;
            }
            return true;
        }

        /** The first 4-aligned offset from {@code from}, below {@code before}, where {@link #frameAt} holds; -1 when none. */
        private long findFrame(long from, long before) {
            long q = start + ((from - start + 3) & ~3L);
            long last = lastNonZero();
            for (; q + 5 <= end && q <= last && q < before; q += 4) {
                if (work > budget()) return -1;
                if (frameAt(q)) return q;
            }
            return -1;
        }

        /**
         * Whether a frame starts at {@code q}: {@link #CHAIN} frames decode there one after another (without
         * this chunk's state), or fewer up to the end of the chunk's data, a zero length word or a SEAL.
         */
        private boolean frameAt(long q) {
            for (int i = 0; i < CHAIN; i++) {
                long len = Integer.toUnsignedLong(u32(q));
                if (len == 0) return i > 0;
                if (q + 5 > end) return false;
                boolean cut = q + 4 + len > end;
                if (cut && (end == nominalEnd || q + 4 + len > nominalEnd)) return false;
                int tag = seg.get(ValueLayout.JAVA_BYTE, q + 4) & 0xFF;
                if (tag == CaptureFormat.SEAL) return len == 9;
                if (!plausibleTag(tag)) return false;
                if (cut) return true;
                work += len;
                try {
                    decode(q, q + 4, q + 4 + len, true);
                } catch (Damage d) {
                    return false;
                }
                q = padded(q, len);
                if (q + 4 > end) return true;
            }
            return true;
        }

        private boolean plausibleTag(int tag) {
            int type = tag & 15;
            return type != 0 && type != CaptureFormat.SEAL && (type == CaptureFormat.ENTER || (tag >>> 4) == 0);
        }

        private void seal(Scan scan, long p) {
            long want = seg.get(LONG, p + 5);
            long got = Hashing.xxh64(seg.asSlice(start + CaptureFormat.CHUNK_HEADER_SIZE, p - start - CaptureFormat.CHUNK_HEADER_SIZE));
            if (want != got && !damaged && badFunction == 0 && argsUnknown == 0) { // else the damage is reported already
                scan.note(p, this, frames + 1, "the chunk's " + frames + " records do not match its SEAL hash: bytes were changed after they were written;"
                        + " the records were read, and some values in them may be wrong", 0, false);
            }
        }

        /** Ends the chunk: the notes counted over it. */
        private void finish(Scan scan) {
            done = true;
            if (end < nominalEnd && !cutNoted && (size - CaptureFormat.FILE_HEADER_SIZE) % chunkSize != 0) {
                // writers and Trim leave whole units: a file that ends inside one was cut, and what the chunk held past the cut is gone
                cutNoted = true;
                scan.note(size, this, frames + 1, "the file ends at byte " + size + ", inside the chunk (which runs to byte " + nominalEnd
                        + "): cut; whatever the chunk held after the cut is not in the file", 0, true);
            }
            if (badFunction > 0) {
                scan.note(badFunctionAt, this, badFunctionRecord, badFunction == 1 ? badFunctionWhat + ": not read"
                        : badFunction + " ENTER records name function ids the function table (" + paramCounts.length + " entries) lacks, the first: "
                        + badFunctionWhat + ": not read", badFunction, false);
            }
            if (argsUnknown > 0) {
                scan.note(argsUnknownAt, this, argsUnknownRecord, argsUnknown + " ENTER record" + (argsUnknown == 1 ? "" : "s")
                        + " from here on store their arguments relative to an earlier ENTER of the same function that was lost: not read", argsUnknown, false);
            }
            if (outOfOrder > 0) {
                scan.note(outOfOrderAt, this, outOfOrderRecord, outOfOrder + " record" + (outOfOrder == 1 ? "" : "s")
                        + " repeat or precede sequence numbers already read (the first has " + outOfOrderSeq + ", after " + outOfOrderLast
                        + "): a copied or misplaced chunk; not delivered", outOfOrder, false, false);
            }
            argsUnknown = badFunction = outOfOrder = 0;
        }

        /** The merge found {@code r} (this cursor's current record) out of sequence order. */
        void outOfOrder(CaptureRecord r, long last) {
            if (outOfOrder++ == 0) {
                outOfOrderAt = r.offset();
                outOfOrderRecord = frames;
                outOfOrderSeq = r.seq();
                outOfOrderLast = last;
            }
        }

        // ---- the chunk's decoding state

        private void ensureCache() {
            if (cacheFid == null) {
                cacheFid = new int[SLOTS];
                Arrays.fill(cacheFid, -1);
                cacheVal = new long[SLOTS * SLOT_VALUES];
            }
        }

        /** A record was taken: the chunk's order and argument cache move on. */
        private void commit(CaptureRecord r) {
            first = false;
            prevSeq = r.seq();
            prevTs = r.ts();
            if (r instanceof CaptureRecord.Enter e) setSlot(e.functionId(), e.args(), true);
        }

        /** A record was not delivered: keep what its decoding got (dStage). */
        private void keepOrder() {
            if (dStage < 1) return;
            first = false;
            prevSeq = dSeq;
            prevTs = dTs;
            if (dType != CaptureFormat.ENTER) return;
            ensureCache();
            if (dStage == 1) {
                Arrays.fill(cacheFid, UNKNOWN_FUNCTION); // which slot it changed is not known
                unknownValues = -1L;
            } else if (dStage == 2) {
                setSlot(dFid, null, false);
            } else {
                setSlot(dFid, dArgs, dArgsKnown);
            }
        }

        private void setSlot(int f, long[] args, boolean known) {
            ensureCache();
            int slot = f & (SLOTS - 1), base = slot * SLOT_VALUES;
            cacheFid[slot] = f;
            for (int i = 0; i < SLOT_VALUES; i++) cacheVal[base + i] = known && i < args.length ? args[i] : 0;
            if (known) unknownValues &= ~(1L << slot);
            else unknownValues |= 1L << slot;
        }

        // ---- decoding of one payload [q, lim)
        private long q, lim, frame;
        private boolean probe;
        /** How far the last decode got: 0 nothing, 1 tag and deltas, 2 an ENTER's function id, 3 its arguments. */
        private int dStage, dType, dFid;
        private long dSeq, dTs;
        private long[] dArgs;
        private boolean dArgsKnown;

        private Damage damage(String what) {
            return new Damage(Damage.BAD, what);
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
            if (probe) {
                q += len;
                return null;
            }
            byte[] b = seg.asSlice(q, len).toArray(ValueLayout.JAVA_BYTE);
            q += len;
            return b;
        }

        private String str(String what) throws Damage {
            byte[] b = bytes(varint(), what + " length");
            return b == null ? null : new String(b, StandardCharsets.UTF_8);
        }

        /**
         * Decodes the payload {@code [from, to)} of the frame at {@code frameOff}, without changing the
         * chunk's state ({@link #commit} does). {@code probe}: only whether it has the shape of a record,
         * without the chunk's state (sequence order, argument cache) and without building it.
         */
        private CaptureRecord decode(long frameOff, long from, long to, boolean probe) throws Damage {
            frame = frameOff;
            q = from;
            lim = to;
            this.probe = probe;
            dStage = 0;
            dType = 0;
            try {
                return decodeRecord();
            } catch (Damage d) {
                throw d;
            } catch (RuntimeException e) {
                throw damage("cannot be decoded: " + e);
            }
        }

        private CaptureRecord decodeRecord() throws Damage {
            int tag = u8();
            int type = tag & 15;
            if (type == 0 || type == CaptureFormat.SEAL) throw damage("record type " + type + " is not allowed here");
            if (type != CaptureFormat.ENTER && (tag >>> 4) != 0) throw damage("tag 0x" + Integer.toHexString(tag) + " has bits set");
            long sd = varint();
            long td = varint();
            long seq = prevSeq + sd;
            if (!probe) {
                if (!first && sd == 0) throw damage("sequence number does not increase");
                if (sd > CaptureFormat.SEQ_MASK || seq > CaptureFormat.SEQ_MASK || seq < prevSeq) throw damage("sequence number out of range");
            }
            long ts = prevTs + td;
            dStage = 1;
            dType = type;
            dSeq = seq;
            dTs = ts;
            CaptureRecord r = switch (type) {
                case CaptureFormat.ENTER -> enter(tag, seq, ts);
                case CaptureFormat.LEAVE -> {
                    long ed = varint();
                    if (ed < 1 || (!probe && ed > seq)) throw damage("LEAVE refers to an ENTER " + Long.toUnsignedString(ed) + " records before it");
                    long res = varint();
                    if (res > 0xFFFFFFFFL || res < 0) throw damage("result " + Long.toUnsignedString(res) + " is not a 32-bit value");
                    List<DataItem> items = items();
                    yield probe ? null : new CaptureRecord.Leave(seq, ts, tid, frame, seq - ed, (int) res, items);
                }
                case CaptureFormat.BLOB -> {
                    long hash = u64();
                    long sz = varint();
                    int comp = u8();
                    if (comp > CaptureFormat.COMPRESSION_ZSTD) throw damage("unknown compression " + comp);
                    long n = lim - q;
                    if (sz < 0) throw damage("blob size " + Long.toUnsignedString(sz) + " out of range");
                    if (comp == CaptureFormat.COMPRESSION_NONE && n != sz) throw damage("blob claims " + sz + " bytes but stores " + n);
                    // what a reader of the blob will allocate must follow from the bytes stored
                    if (comp == CaptureFormat.COMPRESSION_LZ4 && sz > n * 255 + 64) {
                        throw damage("an LZ4 blob of " + n + " stored bytes cannot hold " + sz + " (at most 255 bytes per stored byte)");
                    }
                    if (comp == CaptureFormat.COMPRESSION_ZSTD) {
                        long fcs = zstdContentSize(q, n);
                        if (fcs == -2) throw damage("the zstd frame header of a blob is damaged");
                        if (fcs >= 0 && fcs != sz) throw damage("a zstd blob's frame holds " + Long.toUnsignedString(fcs) + " bytes, the blob claims " + sz);
                        if (fcs < 0 && sz > n * 32768 + 64) throw damage("a zstd blob of " + n + " stored bytes cannot hold " + sz);
                    }
                    MemorySegment stored = probe ? null : seg.asSlice(q, n);
                    q = lim;
                    yield probe ? null : new CaptureRecord.Blob(seq, ts, tid, frame, hash, sz, comp, stored);
                }
                case CaptureFormat.MODULE -> {
                    long lib = varint(), idx = varint();
                    int kind = u8();
                    long hash = u64(), sz = varint(), handle = varint();
                    String name = str("file name");
                    yield probe ? null : new CaptureRecord.Module(seq, ts, tid, frame, (int) Math.min(lib & Long.MAX_VALUE, Integer.MAX_VALUE),
                            (int) Math.min(idx & Long.MAX_VALUE, Integer.MAX_VALUE), kind, hash, sz, handle, name);
                }
                case CaptureFormat.KERNEL -> {
                    long ld = varint();
                    if (ld < 1 || (!probe && ld > seq)) throw damage("KERNEL refers to a launch " + Long.toUnsignedString(ld) + " records before it");
                    long fn = varint();
                    String name = str("kernel name");
                    byte[] params = bytes(varint(), "parameter buffer length");
                    int n = count(varint(), 18, "buffer count");
                    List<CaptureRecord.KernelBuffer> bufs = probe ? null : new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        CaptureRecord.KernelBuffer b = new CaptureRecord.KernelBuffer(varint(), varint(), u64(), u64());
                        if (!probe) bufs.add(b);
                    }
                    CaptureRecord.KernelLaunch launch = null;
                    if (q < lim) { // the launch section (FORMAT.md §6.5), absent in records that end after the buffers
                        long mod = u64();
                        long gx = varint(), gy = varint(), gz = varint(), bx = varint(), by = varint(), bz = varint(), sh = varint();
                        long res = varint();
                        if (res > 0xFFFFFFFFL || res < 0) throw damage("kernel result " + Long.toUnsignedString(res) + " is not a 32-bit value");
                        launch = new CaptureRecord.KernelLaunch(mod, gx, gy, gz, bx, by, bz, sh, (int) res);
                    }
                    yield probe ? null : new CaptureRecord.Kernel(seq, ts, tid, frame, seq - ld, fn, name, params, List.copyOf(bufs), launch);
                }
                case CaptureFormat.THREAD_NAME -> {
                    long named = varint();
                    String name = str("thread name");
                    yield probe ? null : new CaptureRecord.ThreadName(seq, ts, tid, frame, named, name);
                }
                case CaptureFormat.MARKER -> {
                    String text = str("marker text");
                    yield probe ? null : new CaptureRecord.Marker(seq, ts, tid, frame, text);
                }
                case CaptureFormat.PROCESS_END -> {
                    int reason = u8();
                    long status = Varint.unzigzag(varint());
                    long units = varint();
                    yield probe ? null : new CaptureRecord.ProcessEnd(seq, ts, tid, frame, reason, status, units);
                }
                case CaptureFormat.STRING -> {
                    long id = varint();
                    if (id > Integer.MAX_VALUE || id < 0) throw damage("string id " + Long.toUnsignedString(id) + " out of range");
                    String text = str("string");
                    yield probe ? null : new CaptureRecord.StringDef(seq, ts, tid, frame, (int) id, text);
                }
                case CaptureFormat.FUNCTION_TABLE -> {
                    int n = count(varint(), 2, "function count");
                    List<FunctionDef> fs = probe ? null : new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        String name = str("function name");
                        int pc = u8();
                        if (!probe) fs.add(new FunctionDef(name, pc));
                    }
                    yield probe ? null : new CaptureRecord.FunctionTable(seq, ts, tid, frame, List.copyOf(fs));
                }
                default -> {
                    int n = (int) (lim - q);
                    q = lim;
                    yield probe ? null : new CaptureRecord.Unknown(seq, ts, tid, frame, type, n);
                }
            };
            if (q != lim) throw damage((lim - q) + " unexpected bytes after the " + CaptureFormat.typeName(type) + " fields");
            return r;
        }

        private CaptureRecord.Enter enter(int tag, long seq, long ts) throws Damage {
            long depth = tag >>> 4;
            if (depth == 15) {
                depth = varint();
                if (depth < 15 || depth > 1_000_000) throw damage("nesting depth " + Long.toUnsignedString(depth) + " is out of range (15..1000000)");
            }
            long fid = varint();
            if (fid < 0 || fid >= paramCounts.length) {
                throw new Damage(Damage.FUNCTION_ID, "function id " + Long.toUnsignedString(fid) + " is not in the function table ("
                        + paramCounts.length + " entries)");
            }
            int f = (int) fid;
            dStage = 2;
            dFid = f;
            int n = paramCounts[f];
            long[] args = new long[n];
            if (probe) {
                for (int i = 0; i < n; i++) varint();
                items();
                return null;
            }
            ensureCache();
            int slot = f & (SLOTS - 1), base = slot * SLOT_VALUES;
            boolean unknown = cacheFid[slot] == UNKNOWN_FUNCTION || (cacheFid[slot] == f && (unknownValues & (1L << slot)) != 0);
            boolean hit = !unknown && cacheFid[slot] == f;
            for (int i = 0; i < n; i++) {
                long prev = hit && i < SLOT_VALUES ? cacheVal[base + i] : 0;
                args[i] = prev + Varint.unzigzag(varint());
            }
            dStage = 3;
            dArgs = args;
            dArgsKnown = !unknown;
            List<DataItem> items = items();
            if (unknown) throw new Damage(Damage.ARGS_UNKNOWN, "arguments stored relative to a lost record");
            return new CaptureRecord.Enter(seq, ts, tid, frame, f, (int) depth, args, items);
        }

        /**
         * The Frame_Content_Size of the zstd frame at {@code off} ({@code n} bytes), RFC 8878 §3.1.1.1:
         * -1 when the frame does not say, -2 when it is no zstd frame header.
         */
        private long zstdContentSize(long off, long n) {
            if (n < 6 || seg.get(INT, off) != 0xFD2FB528) return -2;
            int fhd = seg.get(ValueLayout.JAVA_BYTE, off + 4) & 0xFF;
            if ((fhd & 0x08) != 0) return -2; // the reserved bit
            int fcsFlag = fhd >>> 6, single = (fhd >>> 5) & 1, dictFlag = fhd & 3;
            long p = off + 5 + (single == 0 ? 1 : 0) + new int[] {0, 1, 2, 4}[dictFlag];
            int size = fcsFlag == 0 ? single : 1 << fcsFlag;
            if (size == 0) return -1;
            if (p + size > off + n) return -2;
            long v = 0;
            for (int i = 0; i < size; i++) v |= (seg.get(ValueLayout.JAVA_BYTE, p + i) & 0xFFL) << (8 * i);
            return size == 2 ? v + 256 : v;
        }

        private List<DataItem> items() throws Damage {
            if (q == lim) return List.of();
            List<DataItem> out = probe ? null : new ArrayList<>(2);
            while (q < lim) {
                long head = varint();
                long param = head >>> 3;
                if (param > 255) throw damage("data item for parameter " + param);
                int p = (int) param;
                int kind = (int) (head & 7);
                DataItem d = switch (kind) {
                    case CaptureFormat.ITEM_INLINE -> {
                        byte[] b = bytes(varint(), "data length");
                        yield probe ? null : new DataItem(p, kind, b, 0, b.length, -1);
                    }
                    case CaptureFormat.ITEM_BLOB, CaptureFormat.ITEM_HASH_ONLY -> {
                        long h = u64();
                        long sz = varint();
                        if (sz < 0) throw damage("data size " + Long.toUnsignedString(sz) + " out of range");
                        yield new DataItem(p, kind, null, h, sz, -1);
                    }
                    case CaptureFormat.ITEM_STRING -> {
                        long id = varint();
                        if (id > Integer.MAX_VALUE || id < 0) throw damage("string id " + Long.toUnsignedString(id) + " out of range");
                        yield new DataItem(p, kind, null, 0, -1, (int) id);
                    }
                    case CaptureFormat.ITEM_UNREADABLE -> new DataItem(p, kind, null, 0, -1, -1);
                    case CaptureFormat.ITEM_TRUNCATED -> {
                        long sz = varint();
                        long len = varint();
                        if (sz < 0 || Long.compareUnsigned(sz, len) < 0) throw damage("truncated data keeps more than its size");
                        byte[] b = bytes(len, "data length");
                        yield probe ? null : new DataItem(p, kind, b, 0, sz, -1);
                    }
                    default -> throw damage("unknown data item kind " + kind);
                };
                if (!probe) out.add(d);
            }
            return out;
        }
    }

    /**
     * Sequence-order merge of the chunks (FORMAT.md §4): one cursor per chunk with records pending;
     * the smallest pending record is delivered once it is below the sequence base of the next chunk
     * not yet opened. A record whose sequence number does not exceed the last delivered one (a copied
     * or misplaced chunk) is not delivered and is counted in its chunk's note.
     */
    private final class Merge implements Iterator<CaptureRecord> {
        final Scan scan = new Scan();

        CaptureReader owner() {
            return CaptureReader.this;
        }

        /** By sequence number; of two records with the same one (damage), the one earlier in the file first. */
        final PriorityQueue<Cursor> heap = new PriorityQueue<>(8, (a, b) -> a.cur.seq() != b.cur.seq() ? Long.compare(a.cur.seq(), b.cur.seq())
                : Long.compare(a.cur.offset(), b.cur.offset()));
        Cursor pending;
        boolean pendingLoaded;
        CaptureRecord next;
        CaptureRecord last;
        long lastSeq = -1;
        long delivered;
        boolean done;
        /** Sequence numbers skipped between delivered records; the longest run and the record after it. */
        long gaps, longestGap, longestGapSeq, longestGapAt = -1;

        @Override
        public boolean hasNext() {
            if (next != null) return true;
            if (done) return false;
            next = compute();
            if (next == null) {
                done = true;
                gapNote();
                boolean clean = last instanceof CaptureRecord.ProcessEnd && scan.noteCount == 0 && openNotes.isEmpty();
                if (last instanceof CaptureRecord.ProcessEnd pe) {
                    long need = unitOffset(Math.min(pe.units(), CaptureFormat.MAX_UNITS));
                    if (pe.units() < 0 || pe.units() > CaptureFormat.MAX_UNITS || size < need) {
                        clean = false;
                        scan.note(size, null, 0, "the file ends at byte " + size + ", but the capture ended with "
                                + Long.toUnsignedString(pe.units()) + " chunk units (" + need + " bytes): cut", 0, true);
                    }
                }
                List<DamageNote> notes = new ArrayList<>(openNotes);
                for (DamageNote d : scan.notes) if (notes.size() < ReadStatus.MAX_NOTES) notes.add(d);
                status = new ReadStatus(clean, delivered, List.copyOf(notes), openNotes.size() + scan.noteCount, scan.lost);
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

        /**
         * Writers give every record a sequence number from one counter and publish every record they
         * number (FORMAT.md §4), so the numbers read are dense: a number no record has is a record lost,
         * except for one record per thread that was being written when the process died. Damage the
         * reader can see is counted in its notes; numbers missing beyond those and that allowance are
         * records lost where nothing shows it (a chunk's tail zeroed, or overwritten by well-formed
         * frames, where no SEAL covers it; a whole chunk zeroed), which this note reports.
         */
        private void gapNote() {
            if (longestGapAt < 0) return;
            long allowance = last instanceof CaptureRecord.ProcessEnd ? 0 : scan.threads.size();
            long unexplained = gaps - scan.lostInOrder - allowance;
            if (unexplained <= 0) return;
            scan.note(longestGapAt, null, 0, gaps + " sequence number" + (gaps == 1 ? "" : "s") + " below the last record read belong to no record read ("
                    + (scan.lostInOrder > 0 ? scan.lostInOrder + " of them counted in the other notes, " : "")
                    + (allowance > 0 ? allowance + " may be records being written when the process died, " : "")
                    + "the longest run, " + longestGap + ", just before sequence number " + longestGapSeq
                    + "): records were lost where no damage shows (a chunk's records zeroed or overwritten where no SEAL covers them)", unexplained, false);
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
                    boolean inOrder = r.seq() > lastSeq;
                    if (!inOrder) top.outOfOrder(r, lastSeq);
                    if (top.advance(scan)) heap.add(top);
                    if (inOrder) {
                        long gap = r.seq() - lastSeq - 1;
                        if (gap > 0) {
                            gaps += gap;
                            if (gap > longestGap) {
                                longestGap = gap;
                                longestGapSeq = r.seq();
                                longestGapAt = r.offset();
                            }
                        }
                        lastSeq = r.seq();
                        return r;
                    }
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
