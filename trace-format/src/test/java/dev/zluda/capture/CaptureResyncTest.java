package dev.zluda.capture;

import dev.zluda.capture.text.Dump;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The reader resynchronises after damage (FORMAT.md §5): a bad length word, a torn frame, an
 * unpublished or copied chunk is reported with its offset and reading goes on at the next valid
 * frame; no record is lost without a note, and "ended cleanly" only when every record was read.
 */
class CaptureResyncTest {
    @TempDir
    Path dir;

    /** The records of a capture image by frame offset, in canonical text. */
    static Map<Long, String> byOffset(byte[] img) throws CaptureException {
        Map<Long, String> out = new HashMap<>();
        try (CaptureReader r = CaptureReader.open(Path.of("orig"), MemorySegment.ofArray(img))) {
            for (CaptureRecord c : r) out.put(c.offset(), Canon.of(c));
            assertFalse(r.status().stoppedEarly(), r.status().toString());
        }
        return out;
    }

    record Read(Map<Long, String> records, ReadStatus status) {}

    static Read read(byte[] img) throws CaptureException {
        Map<Long, String> out = new HashMap<>();
        try (CaptureReader r = CaptureReader.open(Path.of("x.zcap"), MemorySegment.ofArray(img))) {
            for (CaptureRecord c : r) assertNull(out.put(c.offset(), Canon.of(c)), "a record delivered twice");
            return new Read(out, r.status());
        }
    }

    static void putInt(byte[] b, long off, long v) {
        for (int i = 0; i < 4; i++) b[(int) off + i] = (byte) (v >>> (8 * i));
    }

    static long getInt(byte[] b, long off) {
        long v = 0;
        for (int i = 0; i < 4; i++) v |= (b[(int) off + i] & 0xFFL) << (8 * i);
        return v;
    }

    /** Chunk start of the frame at {@code off}, for a capture of {@code cs}-byte units whose chunks are one unit. */
    static long chunkOf(long off, int cs) {
        return 64 + (off - 64) / cs * cs;
    }

    /**
     * Each frame's length word in turn set to 0, to 2^31-16 and to 2^32-1: every record is read (the
     * damaged one with the length the next frame gives it), with a note naming the frame. The one
     * exception is a zero length word on the last record its thread wrote: that is what a writer
     * killed before publishing the record leaves, so it is not read and not reported.
     */
    @Test
    void aDamagedLengthWordLosesNoRecord() throws Exception {
        for (boolean closed : new boolean[] {true, false}) {
            byte[] good = TestCaptures.bytes(4096, 3, 60, false, closed);
            if (!closed) good = Arrays.copyOf(good, 64 + 8 * 4096);
            Map<Long, String> all = byOffset(good);
            // the last frame of each chunk, and whether the chunk is sealed
            Map<Long, Long> lastInChunk = new HashMap<>();
            for (long off : all.keySet()) lastInChunk.merge(chunkOf(off, 4096), off, Math::max);
            int checked = 0;
            for (long off : all.keySet()) {
                // a crashed capture's function table is its chunk's last record: unpublished, the capture has no
                // table, and its ids resolve through the spec, which this test's table is not
                if (!closed && off == 64 + 40) continue;
                long len = getInt(good, off);
                for (long bad : new long[] {0, 0x7FFFFFF0L, 0xFFFFFFFFL}) {
                    byte[] img = good.clone();
                    putInt(img, off, bad);
                    Read r = read(img);
                    Set<Long> missing = new HashSet<>(all.keySet());
                    missing.removeAll(r.records.keySet());
                    long next = off + 4 + ((len + 3) & ~3);
                    boolean lastPublished = lastInChunk.get(chunkOf(off, 4096)) == off && getInt(good, next) == 0;
                    String what = (closed ? "closed" : "crashed") + " capture, frame at " + off + " length " + bad + ": " + r.status;
                    if (bad == 0 && lastPublished) {
                        assertEquals(Set.of(off), missing, what);
                        assertFalse(r.status.stoppedEarly(), "an unpublished last record is not damage: " + what);
                        continue;
                    }
                    assertEquals(Set.of(), missing, what);
                    for (var e : r.records.entrySet()) assertEquals(all.get(e.getKey()), e.getValue(), what);
                    assertTrue(r.status.damageCount() >= 1 && r.status.stopOffset() == off, what);
                    assertFalse(r.status.endedCleanly(), what);
                    assertEquals(0, r.status.recordsLost(), what);
                    checked++;
                }
            }
            assertTrue(checked > 300, "cases: " + checked);
        }
    }

    /**
     * The example: one length word set to 0 in the middle of a sealed chunk, a PROCESS_END
     * later — the old reader ended the chunk there silently and said "ended cleanly".
     */
    @Test
    void aZeroLengthWordBeforeASealIsReportedAndReadPast() throws Exception {
        byte[] good = TestCaptures.bytes(4096, 1, 200, false, true);
        Map<Long, String> all = byOffset(good);
        long victim = all.keySet().stream().filter(o -> o > 64 + 4096 && o < 64 + 4096 + 2000).min(Long::compare).orElseThrow();
        byte[] img = good.clone();
        putInt(img, victim, 0);
        Read r = read(img);
        assertEquals(all, r.records);
        assertFalse(r.status.endedCleanly());
        assertTrue(r.status.stopReason().contains("length word 0"), r.status.toString());
        assertTrue(r.status.stopReason().startsWith("byte " + victim + " (record "), r.status.toString());
    }

    /** A record whose payload does not decode is skipped with a note; the chunk's later records are still read. */
    @Test
    void aDamagedPayloadCostsOneRecord() throws Exception {
        byte[] good = TestCaptures.bytes(4096, 2, 80, false, true);
        Map<Long, String> all = byOffset(good);
        int lostOne = 0;
        for (long off : all.keySet()) {
            if (off == 64 + 40) continue; // the function table
            long len = getInt(good, off);
            byte[] img = good.clone();
            // an unknown data item kind (6) or a broken varint in the record's last byte
            int last = (int) (off + 4 + len - 1);
            img[last] = (byte) 0xFE;
            Read r = read(img);
            Set<Long> missing = new HashSet<>(all.keySet());
            missing.removeAll(r.records.keySet());
            if (missing.isEmpty()) continue; // the byte still decodes (a value changed): the SEAL reports it
            assertTrue(r.status.damageCount() >= 1, "lost " + missing + " without a note: " + r.status);
            assertTrue(r.status.recordsLost() >= missing.size(), missing + " " + r.status);
            if (missing.equals(Set.of(off))) lostOne++;
        }
        assertTrue(lostOne > all.size() / 2, "most damaged payloads cost only their own record: " + lostOne + " of " + all.size());
    }

    /** FUNCTION ids at or above 2^63 passed a signed range check (an ArrayIndexOutOfBoundsException). */
    @Test
    void aFunctionIdAbove2To63IsANoteNotAnException() throws Exception {
        Path f = dir.resolve("fid.zcap");
        CaptureWriter w = CaptureWriter.create(f, TestCaptures.options(4096), TestCaptures.FUNCS);
        ThreadLog t = w.thread(7);
        long e = t.enter(0, 0, 10, new long[] {1}, null);
        t.leave(e, 11, 0, null);
        t.marker("x".repeat(40), 12); // room for a forged ENTER of the same frame length
        long e2 = t.enter(1, 0, 13, new long[] {5}, null);
        t.leave(e2, 14, 0, null);
        w.close();
        byte[] img = Files.readAllBytes(f);
        Map<Long, String> all = byOffset(img);
        long marker = all.entrySet().stream().filter(x -> x.getValue().contains("Marker")).findFirst().orElseThrow().getKey();
        long len = getInt(img, marker);
        // ENTER: tag, seqDelta 1, tsDelta 1, function id 2^63 (10-byte varint), one argument, then an INLINE item to fill the frame
        byte[] p = new byte[(int) len];
        int k = 0;
        p[k++] = 1; p[k++] = 1; p[k++] = 1;
        for (int i = 0; i < 9; i++) p[k++] = (byte) 0x80;
        p[k++] = 1;
        p[k++] = 2; // zigzag(1)
        p[k++] = 0; // item head: param 0, INLINE
        p[k] = (byte) (p.length - k - 1);
        System.arraycopy(p, 0, img, (int) marker + 4, p.length);
        Read r = read(img);
        assertTrue(r.status.stopReason().contains("function id 9223372036854775808 is not in the function table (5 entries)"), r.status.toString());
        // which slot of the argument cache the lost ENTER changed is not known: the next ENTER's arguments are not either
        assertTrue(r.status.damage().get(1).what().contains("1 ENTER record from here on store their arguments relative to"), r.status.toString());
        assertEquals(all.size() - 2, r.records.size(), r.status.toString());
        assertEquals(2, r.status.recordsLost());
        // and through dump and info, as zluda dump / zluda info run them
        try (Capture cap = Capture.of(CaptureReader.open(f, MemorySegment.ofArray(img)), null)) {
            StringWriter sw = new StringWriter();
            Dump.dump(cap, Dump.Options.all(), new PrintWriter(sw));
            assertTrue(sw.toString().contains("# capture damaged in 2 places, 2 records not read"), sw.toString());
            CaptureInfo.of(cap).print(cap, new PrintWriter(new StringWriter()));
        }
    }

    /**
     * Calls nested 6,000 deep (the 262 KB capture overflowed the recursive walk): dump, info and
     * the converters walk the tree iteratively, and dump's output grows linearly with the calls.
     */
    @Test
    void callsNested6000DeepAreWalkedIteratively() throws Exception {
        int depth = 6000;
        Path f = dir.resolve("deep.zcap");
        CaptureWriter w = CaptureWriter.create(f, TestCaptures.options(1 << 16), TestCaptures.FUNCS);
        ThreadLog t = w.thread(7);
        long[] seqs = new long[depth];
        for (int i = 0; i < depth; i++) seqs[i] = t.enter(0, i, 10 + i, new long[] {i}, null);
        for (int i = depth - 1; i >= 0; i--) t.leave(seqs[i], 20_000 + i, 0, null);
        w.close();
        try (Capture cap = Capture.of(CaptureReader.open(f), null)) {
            StringWriter sw = new StringWriter();
            Dump.dump(cap, Dump.Options.all(), new PrintWriter(sw));
            String out = sw.toString();
            assertEquals(depth, out.lines().filter(l -> l.contains("cuInit(")).count());
            // every line is at most the indentation cap plus the call's own text: linear in the calls
            int longest = out.lines().mapToInt(String::length).max().orElse(0);
            assertTrue(longest < 2 * Dump.MAX_INDENT + 80, "longest line " + longest);
            assertTrue(out.contains("[depth 5999] cuInit("), out.substring(out.length() - 300));
            CaptureInfo info = CaptureInfo.of(cap);
            assertEquals(depth, info.calls);
            dev.zluda.capture.convert.Converters.jsonl(cap, dir.resolve("deep.jsonl"));
            dev.zluda.capture.convert.Converters.perfetto(cap, dir.resolve("deep.json"));
            assertEquals(depth, Files.readAllLines(dir.resolve("deep.jsonl")).stream().filter(l -> l.contains("\"type\":\"call\"")).count());
        }
    }

    /**
     * A compressed blob's size is what a reader allocates to decompress it: it must follow from the
     * bytes stored (LZ4: at most 255 per stored byte; zstd: the frame's own content size).
     */
    @Test
    void aCompressedBlobCannotClaimMoreThanItsBytesHold() throws Exception {
        Path f = dir.resolve("blobs.zcap");
        byte[] data = "0123456789abcdef".repeat(4096).getBytes();
        CaptureWriter w = CaptureWriter.create(f, TestCaptures.options(1 << 16), TestCaptures.FUNCS);
        ThreadLog t = w.thread(7);
        t.blob(data, 0, data.length, CaptureFormat.COMPRESSION_ZSTD, 1);
        byte[] other = "fedcba9876543210".repeat(4096).getBytes();
        t.blob(other, 0, other.length, CaptureFormat.COMPRESSION_LZ4, 2);
        byte[] z = com.github.luben.zstd.Zstd.compress(data, 3);
        t.rawBlob(1, 1L << 40, CaptureFormat.COMPRESSION_ZSTD, z, 0, z.length, 3);          // the frame says 65,536
        byte[] l = net.jpountz.lz4.LZ4Factory.fastestJavaInstance().fastCompressor().compress(other);
        t.rawBlob(2, (long) l.length * 1000, CaptureFormat.COMPRESSION_LZ4, l, 0, l.length, 4); // over 255 per byte
        w.close();
        try (CaptureReader r = CaptureReader.open(f)) {
            List<CaptureRecord.Blob> blobs = new ArrayList<>();
            r.forEachRecord(x -> { if (x instanceof CaptureRecord.Blob b) blobs.add(b); });
            assertEquals(2, blobs.size(), r.status().toString());
            assertEquals(List.of(CaptureFormat.COMPRESSION_ZSTD, CaptureFormat.COMPRESSION_LZ4), blobs.stream().map(CaptureRecord.Blob::compression).toList());
            assertTrue(r.status().damage().get(0).what().contains("a zstd blob's frame holds 65536 bytes, the blob claims 1099511627776"), r.status().toString());
            assertTrue(r.status().damage().get(1).what().contains("cannot hold " + (long) l.length * 1000 + " (at most 255 bytes per stored byte)"), r.status().toString());
        }
    }

    /** A chunk whose magic word was zeroed but that holds records (and passes its header check) is read, with a note. */
    @Test
    void aZeroedChunkMagicIsReadWithANote() throws Exception {
        byte[] good = TestCaptures.bytes(4096, 2, 60, false, true);
        Map<Long, String> all = byOffset(good);
        long chunk = 64 + 2 * 4096;
        assertEquals(CaptureFormat.CHUNK_MAGIC, (int) getInt(good, chunk));
        byte[] img = good.clone();
        putInt(img, chunk, 0);
        Read r = read(img);
        assertEquals(all, r.records);
        assertTrue(r.status.stopReason().contains("its magic word is 0"), r.status.toString());
        assertFalse(r.status.endedCleanly());
    }

    /** A chunk header that fails its check: its records are counted as not read; every other chunk is read. */
    @Test
    void aBadChunkHeaderCostsOnlyItsChunk() throws Exception {
        byte[] good = TestCaptures.bytes(4096, 2, 60, false, true);
        Map<Long, String> all = byOffset(good);
        long chunk = 64 + 2 * 4096;
        byte[] img = good.clone();
        img[(int) chunk + 9] ^= 0x40; // the thread id
        Read r = read(img);
        Set<Long> missing = new HashSet<>(all.keySet());
        missing.removeAll(r.records.keySet());
        assertFalse(missing.isEmpty());
        for (long m : missing) assertEquals(chunk, chunkOf(m, 4096), "only the damaged chunk's records are missing");
        assertTrue(r.status.stopReason().contains("fails its check"), r.status.toString());
    }

    /** A chunk copied over a later unit: its copy's records repeat sequence numbers and are not delivered twice. */
    @Test
    void aCopiedChunkIsNotReadTwice() throws Exception {
        byte[] good = TestCaptures.bytes(4096, 2, 60, false, true);
        Map<Long, String> all = byOffset(good);
        int units = (good.length - 64) / 4096;
        byte[] img = Arrays.copyOf(good, good.length + 4096);
        System.arraycopy(good, 64 + 4096, img, 64 + units * 4096, 4096); // the second chunk again, at the end
        Read r = read(img);
        for (var e : all.entrySet()) assertEquals(e.getValue(), r.records.get(e.getKey()), r.status.toString());
        assertEquals(all.size(), r.records.size());
        assertTrue(r.status.damaged(), r.status.toString());
        assertTrue(r.status.damage().stream().anyMatch(d -> d.what().contains("repeat or precede sequence numbers")), r.status.toString());
    }

    /**
     * A writer killed before it published the function table left a file nothing could read ("the
     * chunk at byte 64 was never published"); it now reads as a capture without records that says so.
     */
    @Test
    void aCaptureKilledBeforeItsFunctionTableReadsAsEmpty() throws Exception {
        byte[] img = new byte[64 + 4096 * 4];
        System.arraycopy(CaptureWriter.header(TestCaptures.options(4096)), 0, img, 0, 64);
        Read r = read(img);
        assertEquals(Map.of(), r.records);
        assertFalse(r.status.endedCleanly());
        assertFalse(r.status.damaged(), r.status.toString());
        assertTrue(r.status.stopReason().contains("the process ended before the recorder published its function table"), r.status.toString());
        try (CaptureReader rd = CaptureReader.open(Path.of("y"), MemorySegment.ofArray(img))) {
            assertEquals(CaptureWriter.specHash(), rd.header().specHash());
            assertFalse(rd.functions().isEmpty(), "function ids resolved through the spec");
        }
    }

    /** A crashed writer's half-written last record (length word still 0) is not damage and costs nothing else. */
    @Test
    void aTornLastRecordIsNotDamage() throws Exception {
        byte[] good = Arrays.copyOf(TestCaptures.bytes(4096, 3, 90, true, false), 64 + 8 * 4096);
        Map<Long, String> all = byOffset(good);
        Map<Long, Long> lastInChunk = new HashMap<>();
        for (long off : all.keySet()) lastInChunk.merge(chunkOf(off, 4096), off, Math::max);
        int torn = 0;
        for (long last : lastInChunk.values()) {
            if (chunkOf(last, 4096) == 64) continue; // the function table's chunk: aTornFunctionTable...
            long len = getInt(good, last);
            if (getInt(good, last + 4 + ((len + 3) & ~3)) != 0) continue; // followed by a SEAL
            byte[] img = good.clone();
            putInt(img, last, 0);
            Read r = read(img);
            assertFalse(r.status.stoppedEarly(), r.status.toString());
            assertEquals(all.size() - 1, r.records.size());
            torn++;
        }
        assertTrue(torn >= 3, "unsealed last chunks: " + torn);
    }
}
