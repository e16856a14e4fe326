package dev.zluda.capture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Packs handed to the tools (FORMAT.md §8): unsafe entries are refused, the unpack is bounded by the
 * sizes the pack declares and the free space, the manifest is checked, and the unpacked copy is removed
 * on every path out of {@link Capture#open} and {@link Capture#close}.
 */
class PackTest {
    @TempDir
    Path tmp;
    Path unpackRoot;

    @BeforeEach
    void redirectUnpacking() throws IOException {
        unpackRoot = Files.createDirectory(tmp.resolve("unpacked"));
        Capture.tempParentForTests = unpackRoot;
    }

    @AfterEach
    void restore() {
        Capture.tempParentForTests = null;
    }

    private List<Path> leftovers() throws IOException {
        try (Stream<Path> s = Files.list(unpackRoot)) {
            return s.toList();
        }
    }

    /** A pack with the given entries (name, bytes); {@code linkName}: one more entry whose Unix mode says symbolic link. */
    private Path zip(String file, String[][] entries, String linkName) throws IOException {
        Path z = tmp.resolve(file);
        try (ZipOutputStream zo = new ZipOutputStream(Files.newOutputStream(z))) {
            for (String[] e : entries) {
                zo.putNextEntry(new ZipEntry(e[0]));
                zo.write(e[1].getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
                zo.closeEntry();
            }
            if (linkName != null) {
                ZipEntry l = new ZipEntry(linkName);
                zo.putNextEntry(l);
                zo.write("/etc/passwd".getBytes());
                zo.closeEntry();
            }
        }
        if (linkName != null) setUnixMode(z, linkName, 0120777);
        return z;
    }

    /** Sets "made by Unix" and the mode of {@code name} in the ZIP's central directory. */
    private static void setUnixMode(Path z, String name, int mode) throws IOException {
        byte[] b = Files.readAllBytes(z);
        ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        for (int p = 0; p + 46 < b.length; p++) {
            if (bb.getInt(p) != 0x02014b50) continue;
            int n = Short.toUnsignedInt(bb.getShort(p + 28));
            if (new String(b, p + 46, n).equals(name)) {
                bb.putShort(p + 4, (short) (3 << 8 | 20));
                bb.putInt(p + 38, mode << 16);
            }
        }
        Files.write(z, b);
    }

    private byte[] capture() throws IOException {
        return TestCaptures.bytes(4096, 1, 10, false, true);
    }

    @Test
    void unsafeEntriesAreRefusedAndNothingIsLeft() throws Exception {
        String cap = new String(capture(), java.nio.charset.StandardCharsets.ISO_8859_1);
        String[][] bad = {{"../evil", "x"}, {"/etc/evil", "x"}, {"sub/dir", "x"}, {"a\\\\b", "x"}, {"..", "x"}};
        for (String[] e : bad) {
            Path z = zip("bad.zip", new String[][] {{"capture.zcap", cap}, e}, null);
            CaptureException ex = assertThrows(CaptureException.class, () -> Capture.open(z), e[0]);
            assertTrue(ex.getMessage().contains("refusing entry"), ex.getMessage());
            assertEquals(List.of(), leftovers(), "the unpacked copy is removed");
        }
        Path link = zip("link.zip", new String[][] {{"capture.zcap", cap}}, "manifest.json");
        CaptureException ex = assertThrows(CaptureException.class, () -> Capture.open(link));
        assertTrue(ex.getMessage().contains("refusing entry 'manifest.json': it is a symbolic link"), ex.getMessage());
        assertEquals(List.of(), leftovers());
        assertFalse(Files.exists(tmp.resolve("evil")));
    }

    @Test
    void theUnpackedCopyIsRemovedOnEveryPath() throws Exception {
        String cap = new String(capture(), java.nio.charset.StandardCharsets.ISO_8859_1);
        // opens and closes
        Path good = zip("good.zip", new String[][] {{"manifest.json", "{\"program\": \"x\"}"}, {"capture.zcap", cap}}, null);
        try (Capture c = Capture.open(good)) {
            assertEquals(1, leftovers().size(), "unpacked while open");
            assertEquals("x", c.manifest().path("program").asText());
        }
        assertEquals(List.of(), leftovers());
        // a capture file that is none (the old leak: the copy stayed when the reader refused it)
        Path notCapture = zip("junk.zip", new String[][] {{"capture.zcap", "PAR1 this is no capture at all, but long enough to have a header........."}}, null);
        CaptureException e1 = assertThrows(CaptureException.class, () -> Capture.open(notCapture));
        assertTrue(e1.getMessage().startsWith(notCapture + ": byte 0: (in the pack) not a zluda capture"), e1.getMessage());
        assertEquals(List.of(), leftovers());
        // no capture file in it
        Path empty = zip("empty.zip", new String[][] {{"manifest.json", "{}"}}, null);
        assertTrue(assertThrows(CaptureException.class, () -> Capture.open(empty)).getMessage().contains("the pack holds no capture.zcap"));
        assertEquals(List.of(), leftovers());
        // a manifest that is not JSON, or not an object
        Path badJson = zip("json.zip", new String[][] {{"manifest.json", "{\"program\": \"x\",\n  oops}"}, {"capture.zcap", cap}}, null);
        CaptureException e2 = assertThrows(CaptureException.class, () -> Capture.open(badJson));
        assertTrue(e2.getMessage().startsWith(badJson + ": manifest.json is not valid JSON: line 2, column "), e2.getMessage());
        assertEquals(List.of(), leftovers());
        Path array = zip("array.zip", new String[][] {{"manifest.json", "[1, 2]"}, {"capture.zcap", cap}}, null);
        assertTrue(assertThrows(CaptureException.class, () -> Capture.open(array)).getMessage().contains("manifest.json holds a JSON array, not an object"));
        assertEquals(List.of(), leftovers());
    }

    @Test
    void anUnpackIsBoundedByTheDeclaredSizesAndTheFreeSpace() throws Exception {
        byte[] img = capture();
        Path z = zip("p.zip", new String[][] {{"capture.zcap", new String(img, java.nio.charset.StandardCharsets.ISO_8859_1)}}, null);
        // a file system with little room: refused before anything is written
        Path d1 = Files.createDirectory(tmp.resolve("d1"));
        long usable = (64L << 20) + img.length - 1; // one byte short after the 64 MiB reserve
        CaptureException e = assertThrows(CaptureException.class, () -> Pack.unpack(z, d1, usable));
        assertTrue(e.getMessage().contains("refusing to unpack " + String.format("%,d", img.length) + " bytes (what its entries declare)"), e.getMessage());
        try (Stream<Path> s = Files.list(d1)) {
            assertEquals(0, s.count(), "nothing written");
        }
        Path d2 = Files.createDirectory(tmp.resolve("d2"));
        Pack.unpack(z, d2, usable + 1);
        assertArrayEquals(img, Files.readAllBytes(d2.resolve("capture.zcap")));

        // an entry that unpacks to more than it declares (its central directory size lowered): stopped at the declared size
        byte[] b = Files.readAllBytes(z);
        ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        for (int p = 0; p + 46 < b.length; p++) if (bb.getInt(p) == 0x02014b50) bb.putInt(p + 24, 1000);
        Path lying = Files.write(tmp.resolve("lying.zip"), b);
        Path d3 = Files.createDirectory(tmp.resolve("d3"));
        CaptureException e3 = assertThrows(CaptureException.class, () -> Pack.unpack(lying, d3, Long.MAX_VALUE / 2));
        assertTrue(e3.getMessage().contains("refusing entry 'capture.zcap': it unpacks to more than the 1000 bytes it declares")
                || e3.getMessage().contains("cannot unpack"), e3.getMessage());
        assertTrue(Files.notExists(d3.resolve("capture.zcap")) || Files.size(d3.resolve("capture.zcap")) <= 1000 + (1 << 16));
    }

    @Test
    void aCaptureDirectoryWithoutItsFileSaysWhy() throws Exception {
        Path d = Files.createDirectory(tmp.resolve("app"));
        assertTrue(assertThrows(CaptureException.class, () -> Capture.open(d)).getMessage().contains("is empty: no capture.zcap"));
        Files.writeString(d.resolve(".capture.zcap.123.1.tmp"), "");
        assertTrue(assertThrows(CaptureException.class, () -> Capture.open(d)).getMessage()
                .contains("holds no capture.zcap: the process ended before the recorder wrote its first record"));
        Path parquet = Files.createDirectory(tmp.resolve("tables"));
        Files.writeString(parquet.resolve("calls.parquet"), "PAR1");
        assertTrue(assertThrows(CaptureException.class, () -> Capture.open(parquet)).getMessage().contains("it holds Parquet tables"));
        // a Parquet file given as a capture
        Path pq = Files.write(tmp.resolve("calls.parquet"), "PAR1\0\0\0\0 some parquet bytes".getBytes());
        CaptureException e = assertThrows(CaptureException.class, () -> Capture.open(pq));
        assertTrue(e.getMessage().contains("byte 0: not a zluda capture: the file starts with 50 41 52 31") && e.getMessage().contains("(a Parquet file: "), e.getMessage());
    }
}
