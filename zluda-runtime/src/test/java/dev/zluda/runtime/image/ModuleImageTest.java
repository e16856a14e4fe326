package dev.zluda.runtime.image;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link ModuleImage} against fatbins nvcc 13.0 wrote (zluda-runtime/src/test/cuda/make-fatbins.sh)
 * and two independent references: the PTX {@code nvcc -ptx} gives for the same source and
 * architecture, and what NVIDIA's {@code cuobjdump} lists and extracts from the same files.
 */
class ModuleImageTest {
    static byte[] resource(String name) throws IOException {
        try (InputStream in = ModuleImageTest.class.getResourceAsStream(name)) {
            if (in == null) throw new IOException("test resource " + name + " missing: run zluda-runtime/src/test/cuda/make-fatbins.sh");
            return in.readAllBytes();
        }
    }

    /** PTX as the fatbin keeps it (nvcc drops comments and indentation there): code tokens only. */
    static String normalisePtx(String ptx) {
        StringBuilder b = new StringBuilder();
        for (String line : ptx.split("\n")) {
            int c = line.indexOf("//");
            if (c >= 0) line = line.substring(0, c);
            line = line.strip().replaceAll("\\s+", " ");
            if (!line.isEmpty()) b.append(line).append('\n');
        }
        return b.toString();
    }

    /** "== kernels.X.fatbin" sections of kernels.cuobjdump.txt: fatbin → list of "ELF sm_75" / "PTX sm_90a" in cuobjdump's order. */
    static Map<String, List<String>> cuobjdumpListing() throws IOException {
        Map<String, List<String>> out = new TreeMap<>();
        String current = null;
        Pattern p = Pattern.compile("(ELF|PTX) file\\s+\\d+: \\S+\\.(sm_\\w+)\\.(cubin|ptx)");
        for (String line : new String(resource("kernels.cuobjdump.txt"), StandardCharsets.UTF_8).split("\n")) {
            if (line.startsWith("== ")) {
                current = line.substring(3).trim();
                out.put(current, new ArrayList<>());
            } else {
                Matcher m = p.matcher(line);
                if (m.find() && current != null) out.get(current).add(m.group(1) + " " + m.group(2));
            }
        }
        return out;
    }

    static String md5(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(b));
    }

    static String cuobjdumpName(ModuleImage.Entry e) {
        return (e.kind() == ModuleImage.Kind.ELF ? "ELF " : "PTX ") + "sm_" + e.smVersion() + (e.archSpecific() ? "a" : "");
    }

    @Test
    void entriesMatchWhatCuobjdumpLists() throws Exception {
        Map<String, List<String>> listing = cuobjdumpListing();
        assertEquals(5, listing.size(), "kernels.cuobjdump.txt lists five fatbins");
        for (var e : listing.entrySet()) {
            ModuleImage img = ModuleImage.of(resource(e.getKey()));
            assertEquals(ModuleImage.Format.FATBIN, img.format());
            assertEquals(1, img.fatbinCount());
            List<String> ours = img.entries().stream().map(ModuleImageTest::cuobjdumpName).sorted().toList();
            assertEquals(e.getValue().stream().sorted().toList(), ours, e.getKey() + ": " + img.listing());
        }
    }

    @Test
    void compressionIsReadFromTheFlags() throws Exception {
        for (String c : List.of("zstd", "lz4", "none")) {
            ModuleImage img = ModuleImage.of(resource("kernels." + c + ".fatbin"));
            for (ModuleImage.Entry e : img.entries()) {
                var expected = e.kind() == ModuleImage.Kind.ELF || c.equals("none") ? ModuleImage.Compression.NONE
                        : c.equals("zstd") ? ModuleImage.Compression.ZSTD : ModuleImage.Compression.LZ4;
                assertEquals(expected, e.compression(), c + ": " + e);
            }
        }
    }

    @Test
    void extractedBytesEqualWhatCuobjdumpExtracts() throws Exception {
        String sums = new String(resource("kernels.cuobjdump.md5"), StandardCharsets.UTF_8);
        int checked = 0;
        for (String line : sums.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) continue;
            String[] f = line.trim().split("\\s+");
            ModuleImage img = ModuleImage.of(resource(f[1]));
            ModuleImage.Entry entry = img.entries().stream().filter(e -> cuobjdumpName(e).equals(f[2] + " " + f[3])).findFirst().orElseThrow();
            assertEquals(f[0], md5(entry.content()), line);
            checked++;
        }
        assertEquals(11, checked);
    }

    @Test
    void ptxEqualsWhatNvccPtxGivesForTheSameArchitecture() throws Exception {
        for (String c : List.of("zstd", "lz4", "none")) {
            ModuleImage img = ModuleImage.of(resource("kernels." + c + ".fatbin"));
            for (int sm : new int[] {75, 86, 90}) {
                ModuleImage.Entry e = img.entries().stream().filter(x -> x.kind() == ModuleImage.Kind.PTX && x.smVersion() == sm).findFirst().orElseThrow();
                String ptx = e.ptx();
                assertTrue(ptx.contains(".target sm_" + sm), ptx);
                assertTrue(!ptx.endsWith("\0"), "trailing NULs are stripped");
                String reference = new String(resource("kernels.compute_" + sm + ".ptx"), StandardCharsets.US_ASCII);
                assertEquals(normalisePtx(reference), normalisePtx(ptx), c + " compute_" + sm);
                assertTrue(normalisePtx(ptx).contains(".visible .entry vector_add("), "a real kernel, not an empty text");
            }
        }
    }

    @Test
    void cubinInTheFatbinEqualsNvccCubin() throws Exception {
        ModuleImage img = ModuleImage.of(resource("kernels.zstd.fatbin"));
        ModuleImage.Entry elf = img.entries().stream().filter(x -> x.kind() == ModuleImage.Kind.ELF && x.smVersion() == 86).findFirst().orElseThrow();
        assertArrayEquals(resource("kernels.sm86.cubin"), elf.content());
    }

    @Test
    void bestPtxIsTheNewestNotNewerThanTheDevice() throws Exception {
        ModuleImage img = ModuleImage.of(resource("kernels.zstd.fatbin"));
        int[][] cases = {{7, 5, 75}, {8, 0, 75}, {8, 6, 86}, {8, 9, 86}, {9, 0, 90}, {10, 0, 90}, {12, 0, 90}};
        for (int[] c : cases) assertEquals(c[2], img.bestPtx(c[0], c[1]).smVersion(), c[0] + "." + c[1]);
        ModuleImageException e = assertThrows(ModuleImageException.class, () -> img.bestPtx(7, 0));
        assertTrue(e.noBinaryForDevice());
        assertTrue(e.getMessage().contains("PTX for compute_75, compute_86, compute_90 (newer than the device"), e.getMessage());
    }

    @Test
    void sassOnlyIsReportedClearly() throws Exception {
        ModuleImage img = ModuleImage.of(resource("kernels.sass.fatbin"));
        ModuleImageException e = assertThrows(ModuleImageException.class, () -> img.bestPtx(8, 6));
        assertEquals(ModuleImageException.Reason.NO_BINARY_FOR_DEVICE, e.reason());
        assertEquals("no PTX for compute capability 8.6 in this fatbin: SASS only for sm_86 (NVIDIA GPU machine code, which zluda cannot run);"
                + " rebuild with PTX, e.g. nvcc -gencode arch=compute_86,code=compute_86", e.getMessage());
    }

    @Test
    void archSpecificPtxRunsOnlyOnItsOwnCapability() throws Exception {
        ModuleImage img = ModuleImage.of(resource("kernels.90a.fatbin"));
        ModuleImage.Entry e = img.entries().getFirst();
        assertTrue(e.archSpecific());
        assertEquals("compute_90a", e.target());
        assertEquals(e, img.bestPtx(9, 0));
        assertThrows(ModuleImageException.class, () -> img.bestPtx(10, 0));
        assertThrows(ModuleImageException.class, () -> img.bestPtx(8, 6));
    }

    /**
     * What zluda runs (docs/support.md, "PTX targets"): the PTX NVIDIA's driver would pick where there is one; an
     * image with only PTX newer than the device (or arch-specific PTX of another capability) runs its oldest PTX
     * instead of failing with CUDA_ERROR_NO_BINARY_FOR_GPU; an image without PTX still fails.
     */
    @Test
    void ptxToRunTakesTheOldestNewerPtxWhenNoneFitsTheDevice() throws Exception {
        ModuleImage img = ModuleImage.of(resource("kernels.zstd.fatbin"));
        for (int[] c : new int[][] {{7, 5}, {8, 6}, {9, 0}, {12, 0}}) assertEquals(img.bestPtx(c[0], c[1]), img.ptxToRun(c[0], c[1]), c[0] + "." + c[1]);
        assertEquals(75, img.ptxToRun(7, 0).smVersion(), "only newer PTX: the oldest of it");
        ModuleImage a = ModuleImage.of(resource("kernels.90a.fatbin"));
        assertEquals(a.entries().getFirst(), a.ptxToRun(8, 6), "compute_90a on 8.6");
        assertEquals(a.entries().getFirst(), a.ptxToRun(10, 0), "compute_90a on 10.0");
        ModuleImage sass = ModuleImage.of(resource("kernels.sass.fatbin"));
        ModuleImageException e = assertThrows(ModuleImageException.class, () -> sass.ptxToRun(8, 6));
        assertTrue(e.noBinaryForDevice());
        byte[] text = resource("kernels.compute_86.ptx");
        ModuleImage ptx = ModuleImage.of(Arrays.copyOf(text, text.length + 1));
        assertEquals(new String(text, StandardCharsets.US_ASCII), ptx.ptxToRun(7, 5).ptx(), "PTX for sm_86 on 7.5");
    }

    @Test
    void bareCubinBarePtxAndHostObject() throws Exception {
        ModuleImage cubin = ModuleImage.of(resource("kernels.sm86.cubin"));
        assertEquals(ModuleImage.Format.ELF, cubin.format());
        assertEquals(List.of("ELF sm_86"), cubin.entries().stream().map(ModuleImageTest::cuobjdumpName).toList());
        assertThrows(ModuleImageException.class, () -> cubin.bestPtx(8, 6));

        byte[] text = resource("kernels.compute_86.ptx");
        ModuleImage ptx = ModuleImage.of(Arrays.copyOf(text, text.length + 1));
        assertEquals(ModuleImage.Format.PTX, ptx.format());
        assertEquals(86, ptx.entries().getFirst().smVersion(), "architecture from .target");
        assertEquals(new String(text, StandardCharsets.US_ASCII), ptx.bestPtx(8, 6).ptx());
        assertThrows(ModuleImageException.class, () -> ptx.bestPtx(7, 5), "PTX for sm_86 does not run on 7.5");

        ModuleImage host = ModuleImage.of(resource("kernels.host.elf"));
        assertEquals(ModuleImage.Format.ELF, host.format());
        assertEquals(1, host.fatbinCount());
        assertEquals(List.of("ELF sm_86", "PTX sm_86"), host.entries().stream().map(ModuleImageTest::cuobjdumpName).sorted().toList());
        assertEquals(normalisePtx(new String(text, StandardCharsets.US_ASCII)), normalisePtx(host.bestPtx(8, 6).ptx()));
    }

    @Test
    void severalFatbinsBackToBackWithPadding() throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(resource("kernels.zstd.fatbin"));
        b.write(new byte[16]);
        b.write(resource("kernels.lz4.fatbin"));
        b.write(resource("kernels.sass.fatbin"));
        b.write(new byte[5]);
        ModuleImage img = ModuleImage.of(b.toByteArray());
        assertEquals(3, img.fatbinCount());
        assertEquals(11, img.entries().size());
        assertTrue(img.entries().get(5).origin().startsWith("fatbin 1 @+0x"), img.entries().get(5).origin());
    }

    @Test
    void arArchiveMembersAreRead() throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write("!<arch>\n".getBytes(StandardCharsets.US_ASCII));
        for (String name : List.of("kernels.sass.fatbin", "kernels.host.elf", "kernels.90a.fatbin")) {
            byte[] m = resource(name);
            b.write(String.format("%-16s%-12s%-6s%-6s%-8s%-10d`\n", name.substring(0, Math.min(15, name.length())) + "/", "0", "0", "0", "644", m.length)
                    .getBytes(StandardCharsets.US_ASCII));
            b.write(m);
            if (m.length % 2 == 1) b.write('\n');
        }
        ModuleImage img = ModuleImage.of(b.toByteArray());
        assertEquals(ModuleImage.Format.AR_ARCHIVE, img.format());
        assertEquals(List.of("ELF sm_86", "ELF sm_86", "PTX sm_86", "PTX sm_90a"), img.entries().stream().map(ModuleImageTest::cuobjdumpName).sorted().toList());
        assertEquals(86, img.bestPtx(8, 9).smVersion());
    }

    // ------------------------------------------------------------------ from process memory

    @Test
    void wrapperVersion1AndFatbinHeaderFromAddresses() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            byte[] f = resource("kernels.lz4.fatbin");
            MemorySegment fatbin = arena.allocate(f.length, 8);
            MemorySegment.copy(f, 0, fatbin, ValueLayout.JAVA_BYTE, 0, f.length);
            MemorySegment wrapper = wrapper(arena, 1, fatbin.address(), 0);
            ModuleImage w = ModuleImage.fromAddress(wrapper.address());
            assertEquals(ModuleImage.Format.FATBIN_WRAPPER, w.format());
            assertEquals(ModuleImage.of(f).listing().size(), w.entries().size());
            assertEquals(normalisePtx(new String(resource("kernels.compute_86.ptx"), StandardCharsets.US_ASCII)), normalisePtx(w.bestPtx(8, 6).ptx()));
            ModuleImage h = ModuleImage.fromAddress(fatbin.address());
            assertEquals(ModuleImage.Format.FATBIN, h.format());
            assertEquals(5, h.entries().size());
        }
    }

    @Test
    void wrapperVersion2ReadsTheFatbinArray() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = copy(arena, resource("kernels.zstd.fatbin"));
            MemorySegment b = copy(arena, resource("kernels.90a.fatbin"));
            MemorySegment array = arena.allocate(24, 8);
            array.set(ValueLayout.JAVA_LONG, 0, a.address());
            array.set(ValueLayout.JAVA_LONG, 8, b.address());
            ModuleImage img = ModuleImage.fromAddress(wrapper(arena, 2, 0, array.address()).address());
            assertEquals(2, img.fatbinCount());
            assertEquals(6, img.entries().size());
        }
    }

    @Test
    void badWrappersNameTheField() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            assertMessage("version 3 at offset 0x4 (known: 1, 2)", () -> ModuleImage.fromAddress(wrapper(arena, 3, 0, 0).address()));
            assertMessage("field data at offset 0x8 is NULL", () -> ModuleImage.fromAddress(wrapper(arena, 1, 0, 0).address()));
            assertMessage("version 2 wrapper with an empty fatbin array", () -> ModuleImage.fromAddress(wrapper(arena, 2, 0, arena.allocate(8).address()).address()));
            assertMessage("module image pointer is NULL", () -> ModuleImage.fromAddress(0));
            MemorySegment junk = copy(arena, new byte[] {(byte) 0x90, 1, 2, 3, 0});
            assertMessage("unrecognised module image, first bytes 90 (byte 0x90 at offset 0x0)", () -> ModuleImage.fromAddress(junk.address()));
        }
    }

    private static MemorySegment wrapper(Arena arena, int version, long data, long other) {
        MemorySegment w = arena.allocate(24, 8);
        w.set(ValueLayout.JAVA_INT, 0, ModuleImage.FATBIN_WRAPPER_MAGIC);
        w.set(ValueLayout.JAVA_INT, 4, version);
        w.set(ValueLayout.JAVA_LONG, 8, data);
        w.set(ValueLayout.JAVA_LONG, 16, other);
        return w;
    }

    private static MemorySegment copy(Arena arena, byte[] b) {
        MemorySegment s = arena.allocate(b.length, 8);
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, 0, b.length);
        return s;
    }

    // ---------------------------------------------------------------------- malformed images

    private static void assertMessage(String part, org.junit.jupiter.api.function.Executable e) {
        ModuleImageException x = assertThrows(ModuleImageException.class, e);
        assertTrue(x.getMessage().contains(part), "expected \"" + part + "\" in: " + x.getMessage());
    }

    @Test
    void malformedFieldsAreNamedWithTheirOffset() throws Exception {
        byte[] f = resource("kernels.none.fatbin");
        ByteBuffer b = ByteBuffer.wrap(f.clone()).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(16 + 4, 0); // first entry's header size
        assertMessage("fatbin 0 @+0x0, entry 0 @+0x10: entry header size 0 at offset 0x14", () -> ModuleImage.of(b.array()));

        ByteBuffer big = ByteBuffer.wrap(f.clone()).order(ByteOrder.LITTLE_ENDIAN);
        big.putLong(8, 1L << 40);
        assertMessage("fatbin size 1099511627776 at offset 0x8 exceeds the cap", () -> ModuleImage.of(big.array()));

        ByteBuffer past = ByteBuffer.wrap(f.clone()).order(ByteOrder.LITTLE_ENDIAN);
        past.putLong(8, f.length);
        assertMessage("runs past the image's end", () -> ModuleImage.of(past.array()));

        ByteBuffer version = ByteBuffer.wrap(f.clone()).order(ByteOrder.LITTLE_ENDIAN);
        version.putShort(16 + 2, (short) 0x202);
        assertMessage("entry version 0x202 at offset 0x12", () -> ModuleImage.of(version.array()));

        ByteBuffer both = ByteBuffer.wrap(f.clone()).order(ByteOrder.LITTLE_ENDIAN);
        both.putLong(16 + 40, 0x11 | ModuleImage.FLAG_LZ4 | ModuleImage.FLAG_ZSTD);
        assertMessage("ask for both LZ4 and zstd", () -> ModuleImage.of(both.array()));

        assertMessage("is an ar archive", () -> {
            try (Arena a = Arena.ofConfined()) {
                ModuleImage.fromAddress(copy(a, "!<arch>\n".getBytes(StandardCharsets.US_ASCII)).address());
            }
        });
    }

    @Test
    void corruptCompressedPayloadsAreReportedNotThrown() throws Exception {
        for (String c : List.of("zstd", "lz4")) {
            byte[] f = resource("kernels." + c + ".fatbin");
            ModuleImage clean = ModuleImage.of(f);
            assertTrue(clean.bestPtx(7, 5).content().length > 0);
            byte[] broken = f.clone();
            // the compute_75 PTX payload starts right after its 80-byte header at 4984 in both files
            for (int i = 4984 + 80 + 4; i < 4984 + 80 + 200; i++) broken[i] ^= (byte) 0x5a;
            ModuleImage img = ModuleImage.of(broken);
            ModuleImageException e = assertThrows(ModuleImageException.class, () -> img.bestPtx(7, 5).content());
            assertTrue(e.getMessage().contains("entry 1 @+0x1378"), e.getMessage());
        }
    }

    /** Truncations and random byte changes give a ModuleImageException or a result, never another exception. */
    @Test
    void damagedImagesNeverThrowAnythingElse() throws Exception {
        Random random = new Random(7);
        for (String name : List.of("kernels.zstd.fatbin", "kernels.lz4.fatbin", "kernels.host.elf", "kernels.sm86.cubin")) {
            byte[] f = resource(name);
            for (int n = 0; n < f.length; n += 1 + f.length / 300) survive(Arrays.copyOf(f, n), name + " cut at " + n);
            for (int i = 0; i < 300; i++) {
                byte[] g = f.clone();
                int changes = 1 + random.nextInt(4);
                for (int k = 0; k < changes; k++) {
                    // mostly in headers, where sizes and offsets live
                    int pos = random.nextInt(4) == 0 ? random.nextInt(g.length) : random.nextInt(Math.min(g.length, 128));
                    g[pos] = (byte) random.nextInt(256);
                }
                survive(g, name + " changed, try " + i);
            }
        }
    }

    private static void survive(byte[] image, String what) {
        try {
            ModuleImage img = ModuleImage.of(image);
            for (ModuleImage.Entry e : img.entries()) {
                try {
                    e.content();
                } catch (ModuleImageException expected) {
                    // fine
                }
            }
            try {
                img.bestPtx(8, 6);
            } catch (ModuleImageException expected) {
                // fine
            }
        } catch (ModuleImageException expected) {
            assertTrue(expected.getMessage() != null && !expected.getMessage().isBlank());
        } catch (Throwable t) {
            fail(what + ": " + t, t);
        }
    }
}
