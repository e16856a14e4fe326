package dev.zluda.capture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/** Cut, torn, bit-flipped and hostile captures: clear errors, every record before the damage. */
class CaptureDamageTest {
    @TempDir
    Path dir;

    record Full(List<CaptureRecord> records, List<String> canon, long[] ends, List<Long> offsets) {}

    static Full readFull(byte[] img) throws CaptureException {
        try (CaptureReader r = CaptureReader.open(Path.of("full"), MemorySegment.ofArray(img))) {
            List<CaptureRecord> rs = new ArrayList<>();
            for (CaptureRecord c : r) rs.add(c);
            assertFalse(r.status().stoppedEarly(), r.status().toString());
            long[] ends = new long[rs.size()];
            List<String> canon = new ArrayList<>();
            for (int i = 0; i < rs.size(); i++) {
                ends[i] = TestCaptures.frameEnd(img, rs.get(i).offset());
                canon.add(Canon.of(rs.get(i)));
            }
            List<Long> offsets = rs.stream().map(CaptureRecord::offset).sorted().toList();
            List<CaptureRecord> byOffset = rs.stream().sorted(java.util.Comparator.comparingLong(CaptureRecord::offset)).toList();
            long[] ends2 = new long[rs.size()];
            List<String> canon2 = new ArrayList<>();
            for (int i = 0; i < byOffset.size(); i++) {
                ends2[i] = TestCaptures.frameEnd(img, byOffset.get(i).offset());
                canon2.add(Canon.of(byOffset.get(i)));
            }
            return new Full(byOffset, canon2, ends2, offsets);
        }
    }

    /** The canonical records of the full image whose frames end at or before {@code limit}. */
    static List<String> before(Full full, long limit) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < full.records.size(); i++) if (full.ends[i] <= limit) out.add(full.canon.get(i));
        return out;
    }

    @Test
    void cutAtEveryByteReadsEveryCompleteRecord() throws Exception {
        for (boolean closed : new boolean[] {true, false}) {
            byte[] img = TestCaptures.bytes(4096, 3, 60, !closed, closed);
            if (!closed) {
                // a crashed writer leaves zero units at the end: drop most of them to keep the test short
                img = Arrays.copyOf(img, (int) Math.min(img.length, 64 + 8 * 4096));
            }
            Full full = readFull(img);
            long tableEnd = full.ends[0]; // the function table is the first frame of the file
            MemorySegment all = MemorySegment.ofArray(img);
            int checked = 0;
            for (int cut = 0; cut <= img.length; cut++) {
                Path name = Path.of("cut" + cut);
                if (cut < CaptureFormat.FILE_HEADER_SIZE) {
                    final int c = cut;
                    CaptureException e2 = assertThrows(CaptureException.class, () -> CaptureReader.open(name, all.asSlice(0, c)));
                    assertTrue(e2.getMessage().startsWith("cut" + cut + ": byte "), e2.getMessage());
                    continue;
                }
                if (cut < tableEnd) {
                    // cut before the function table was whole: a capture without records, which says why
                    try (CaptureReader r = CaptureReader.open(name, all.asSlice(0, cut))) {
                        List<CaptureRecord> got = new ArrayList<>();
                        for (CaptureRecord c : r) got.add(c);
                        assertEquals(List.of(), got, "cut at " + cut);
                        assertFalse(r.status().endedCleanly());
                        assertTrue(r.status().stopReason().contains("no function table"), r.status().toString());
                        assertFalse(r.status().damaged(), "a cut, not damage: " + r.status());
                    }
                    continue;
                }
                try (CaptureReader r = CaptureReader.open(name, all.asSlice(0, cut))) {
                    List<String> got = new ArrayList<>();
                    for (CaptureRecord c : r) got.add(Canon.of(c));
                    List<String> want = new ArrayList<>(before(full, cut));
                    want.sort(java.util.Comparator.comparingLong(x -> Long.parseLong(x.substring(0, x.indexOf('@')))));
                    assertEquals(want, got, "cut at " + cut);
                    if (want.size() < full.records.size()) assertFalse(r.status().endedCleanly(), "cut at " + cut);
                    checked++;
                }
            }
            assertTrue(checked > 1000);
        }
    }

    @Test
    void badFilesGiveClearErrors() throws Exception {
        byte[] good = TestCaptures.bytes(4096, 1, 5, false, true);
        Path empty = Files.write(dir.resolve("empty.zcap"), new byte[0]);
        assertMessage(empty, "empty.zcap: byte 0: empty file");
        Path wrong = Files.write(dir.resolve("wrong.zcap"), "PK\3\4 this is a zip".getBytes());
        assertMessage(wrong, "wrong.zcap: byte 0: not a zluda capture");
        byte[] newer = good.clone();
        newer[8] = 2;
        fixHeaderCheck(newer);
        assertMessage(Files.write(dir.resolve("newer.zcap"), newer), "newer.zcap: byte 8: format version 2.0 is newer than this reader");
        byte[] flipped = good.clone();
        flipped[20] ^= 0x10;
        assertMessage(Files.write(dir.resolve("flip.zcap"), flipped), "flip.zcap: byte 60: header checksum mismatch");
        byte[] chunk = good.clone();
        chunk[16] = 3; // chunk size 0x...03: not a power of two
        fixHeaderCheck(chunk);
        assertMessage(Files.write(dir.resolve("chunk.zcap"), chunk), "chunk.zcap: byte 16: chunk size");
        assertMessage(Files.write(dir.resolve("short.zcap"), Arrays.copyOf(good, 30)), "short.zcap: byte 30: the file ends inside the 64-byte header");
        assertMessage(dir.resolve("missing.zcap"), "missing.zcap: cannot read");
    }

    @Test
    void absurdSizesAreDamageNotOutOfMemory() throws Exception {
        byte[] good = TestCaptures.bytes(4096, 1, 40, false, true);
        Full full = readFull(good);
        CaptureRecord victim = full.records.get(5);
        int off = (int) victim.offset();
        // a length word of 2 GiB: the next frame says how long the record is; every record is read
        byte[] a = good.clone();
        a[off] = (byte) 0xF0; a[off + 1] = (byte) 0xFF; a[off + 2] = (byte) 0xFF; a[off + 3] = (byte) 0x7F;
        expectStopAt(a, full, off, "length word 2147483632 runs past the end of the chunk");
        try (CaptureReader r = CaptureReader.open(Path.of("a"), MemorySegment.ofArray(a))) {
            List<String> got = new ArrayList<>();
            for (CaptureRecord c : r) got.add(Canon.of(c));
            assertEquals(full.records.size(), got.size(), r.status().toString());
            assertEquals(0, r.status().recordsLost());
        }
        // a payload varint of 10 × 0xFF right after the tag
        byte[] b = good.clone();
        for (int i = 0; i < 6; i++) b[off + 5 + i] = (byte) 0xFF;
        expectStopAt(b, full, off, "does not decode");
        // a chunk span of 2^31 units in the second chunk header (its check fails)
        int second = 64 + 4096;
        if (good.length > second + 8 && good[second] != 0) {
            byte[] c = good.clone();
            c[second + 7] = (byte) 0x80;
            try (CaptureReader r = CaptureReader.open(Path.of("c"), MemorySegment.ofArray(c))) {
                r.forEachRecord(x -> { });
                assertEquals(second, r.status().stopOffset());
            }
        }
    }

    private static void expectStopAt(byte[] img, Full full, long at, String words) throws CaptureException {
        try (CaptureReader r = CaptureReader.open(Path.of("x.zcap"), MemorySegment.ofArray(img))) {
            List<String> got = new ArrayList<>();
            for (CaptureRecord c : r) got.add(Canon.of(c));
            ReadStatus st = r.status();
            assertTrue(st.stopOffset() >= 0 && st.stopOffset() <= at + 64, st.toString());
            assertTrue(st.stopReason().contains(words), st.toString());
            assertTrue(got.containsAll(before(full, at)), "records before the damage");
        }
    }

    private static void fixHeaderCheck(byte[] img) {
        int c = (int) Hashing.xxh64(img, 0, 60);
        for (int i = 0; i < 4; i++) img[60 + i] = (byte) (c >>> (8 * i));
    }

    private static void assertMessage(Path f, String start) {
        CaptureException e = assertThrows(CaptureException.class, () -> CaptureReader.open(f));
        String m = e.getMessage().replace(f.getParent() + "/", "");
        assertTrue(m.startsWith(start), m);
    }

    /**
     * 100,000 mutated captures (fixed seed): each opens with a CaptureException naming the file and
     * offset, or reads; no other exception, no hang, and every record that ends before the first
     * changed byte is delivered unchanged. A hang is caught per input (one input reading for over 10 s fails and is
     * named) and for the whole run (JUnit's timeout on a thread of its own); the run's total time is not checked, as it
     * depends on the machine's load.
     */
    @Test
    @org.junit.jupiter.api.Timeout(value = 15, unit = java.util.concurrent.TimeUnit.MINUTES,
            threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
    void fuzz() throws Exception {
        Random rnd = new Random(0x5EED);
        byte[][] bases = {TestCaptures.bytes(4096, 3, 60, false, true),
                Arrays.copyOf(TestCaptures.bytes(4096, 2, 40, true, false), 64 + 4 * 4096)};
        Full[] fulls = {readFull(bases[0]), readFull(bases[1])};
        int n = 0, opened = 0;
        for (; n < 100_000; n++) {
            long started = System.nanoTime();
            int which = n & 1;
            byte[] img = bases[which].clone();
            int len = img.length;
            int first;
            switch (rnd.nextInt(7)) {
                case 0 -> { // bit flips
                    first = rnd.nextInt(len);
                    img[first] ^= (byte) (1 << rnd.nextInt(8));
                    for (int k = rnd.nextInt(3); k > 0; k--) {
                        int p = first + rnd.nextInt(len - first);
                        img[p] ^= (byte) (1 << rnd.nextInt(8));
                    }
                }
                case 1 -> { first = rnd.nextInt(len); img[first] = (byte) rnd.nextInt(256); }
                case 2 -> { // hostile u32 at an aligned spot (length words, spans)
                    first = (rnd.nextInt(len - 4)) & ~3;
                    int v = switch (rnd.nextInt(4)) { case 0 -> -1; case 1 -> Integer.MAX_VALUE; case 2 -> 4093; default -> rnd.nextInt(); };
                    for (int i = 0; i < 4; i++) img[first + i] = (byte) (v >>> (8 * i));
                }
                case 3 -> { first = rnd.nextInt(len); Arrays.fill(img, first, Math.min(len, first + 1 + rnd.nextInt(64)), (byte) 0); }
                case 4 -> { first = rnd.nextInt(len); img = Arrays.copyOf(img, first); }
                case 5 -> { // copy a random range over another
                    int from = rnd.nextInt(len), to = rnd.nextInt(len);
                    int l = Math.min(1 + rnd.nextInt(200), Math.min(len - from, len - to));
                    System.arraycopy(bases[which], from, img, to, l);
                    first = to;
                    while (first < to + l && img[first] == bases[which][first]) first++;
                }
                default -> { first = rnd.nextInt(len); Arrays.fill(img, first, Math.min(len, first + 1 + rnd.nextInt(12)), (byte) 0xFF); }
            }
            Path name = Path.of("fuzz" + n + ".zcap");
            CaptureReader r;
            try {
                r = CaptureReader.open(name, MemorySegment.ofArray(img));
            } catch (CaptureException e) {
                assertTrue(e.getMessage().startsWith("fuzz" + n + ".zcap: byte "), e.getMessage());
                continue;
            }
            opened++;
            try (r) {
                java.util.Set<String> got = new java.util.HashSet<>();
                Full full = fulls[which];
                for (CaptureRecord c : r) {
                    // only records that end before the first change must match; compare those
                    int i = java.util.Collections.binarySearch(full.offsets, c.offset());
                    if (i >= 0 && full.ends[i] <= first) got.add(Canon.of(c));
                }
                assertNotNull(r.status());
                List<String> want = before(full, first);
                if (!got.containsAll(want)) {
                    List<String> missing = new ArrayList<>(want);
                    missing.removeAll(got);
                    fail("input " + n + " (first change at byte " + first + "): lost records before the damage; status " + r.status() + "; missing " + missing);
                }
            } catch (RuntimeException | Error e) {
                throw new AssertionError("input " + n + " (first change at byte " + first + ") threw", e);
            }
            long ms = (System.nanoTime() - started) / 1_000_000;
            if (ms > 10_000) fail("input " + n + " (first change at byte " + first + ") took " + ms + " ms to read: a loop in the reader?");
        }
        assertEquals(100_000, n);
        assertTrue(opened > 50_000, "most mutated inputs still open: " + opened);
    }
}
