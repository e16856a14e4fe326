package dev.zluda.capture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** KERNEL records (FORMAT.md §6.5) with and without the launch section, and the snapshot reader. */
class KernelSnapshotsTest {
    @TempDir
    Path dir;

    private static final List<FunctionDef> FUNCS = List.of(new FunctionDef("cuInit", 1), new FunctionDef("cuLaunchKernel", 11));

    /** Writes: call 1 cuInit, call 2 a launch with a full snapshot of _Z3addPfS_, call 3 a launch with an old-style record of _Z3mulPf. */
    private Path write(byte[] before, byte[] after, String ptx) throws Exception {
        Path d = dir.resolve("cap");
        Files.createDirectories(d);
        try (CaptureWriter w = CaptureWriter.create(d.resolve(CaptureFormat.CAPTURE_FILE), TestCaptures.options(4096), FUNCS)) {
            ThreadLog t = w.currentThread();
            long e0 = t.enter(0, 0, 10, new long[] {0}, null);
            t.leave(e0, 11, 0, null);
            long e1 = t.enter(1, 0, 12, new long[11], null);
            long hb = t.blob(before, 0, before.length, CaptureFormat.COMPRESSION_LZ4, 13);
            long hm = t.blob(ptx.getBytes(StandardCharsets.UTF_8), 0, ptx.length(), CaptureFormat.COMPRESSION_ZSTD, 13);
            long ha = t.blob(after, 0, after.length, CaptureFormat.COMPRESSION_NONE, 14);
            t.kernel(e1, 0x5a4c_0005_0000_0001L, "_Z3addPfS_", new byte[16],
                    List.of(new CaptureRecord.KernelBuffer(0x7f00_0000_1000L, before.length, hb, ha)),
                    new CaptureRecord.KernelLaunch(hm, 16, 2, 1, 256, 1, 1, 1024, 700), 15);
            t.leave(e1, 16, 0, null);
            long e2 = t.enter(1, 0, 17, new long[11], null);
            t.kernel(e2, 0x77, "_Z3mulPf", new byte[8], List.of(), 18);
            t.leave(e2, 19, 0, null);
        }
        return d;
    }

    @Test
    void snapshotsReadBackWithTheirLaunchAndBlobs() throws Exception {
        byte[] before = new byte[5000], after = new byte[5000];
        for (int i = 0; i < before.length; i++) { before[i] = (byte) (i % 7); after[i] = (byte) (i % 11); }
        String ptx = ".version 8.0\n.target sm_80\n.address_size 64\n// " + "x".repeat(200);
        Path d = write(before, after, ptx);
        try (Capture cap = Capture.open(d)) {
            KernelSnapshots ks = KernelSnapshots.read(cap);
            assertEquals(2, ks.list().size());
            KernelSnapshots.Snapshot s1 = ks.list().get(0);
            assertEquals(1, s1.number());
            assertEquals(2, s1.launchCall(), "the launch is the second call");
            assertEquals("cuLaunchKernel", s1.launchFunction());
            CaptureRecord.KernelLaunch l = s1.record().launch();
            assertEquals(new CaptureRecord.KernelLaunch(l.moduleHash(), 16, 2, 1, 256, 1, 1, 1024, 700), l);
            assertArrayEquals(before, ks.blob(s1.record().buffers().get(0).before(), "before"));
            assertArrayEquals(after, ks.blob(s1.record().buffers().get(0).after(), "after"));
            assertEquals(ptx, new String(ks.blob(l.moduleHash(), "module"), StandardCharsets.UTF_8));
            assertTrue(s1.summary().contains("_Z3addPfS_ grid=(16,2,1) block=(256,1,1) shared=1024, 16 parameter bytes, 1 buffer (5000 bytes)"), s1.summary());
            assertTrue(s1.summary().contains("CUresult 700"), s1.summary());
            KernelSnapshots.Snapshot s2 = ks.list().get(1);
            assertNull(s2.record().launch(), "a record that ends after its buffers has no launch section");
            assertEquals(3, s2.launchCall());
            // --kernel N|NAME
            assertSame(s1, ks.find("1"));
            assertSame(s2, ks.find("2"));
            assertSame(s1, ks.find("add"));
            assertSame(s2, ks.find("_Z3mulPf"));
            assertSame(s2, ks.find("mul@1"));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> ks.find("3")).getMessage().contains("holds 2"));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> ks.find("_Z3")).getMessage().contains("several"));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> ks.find("div")).getMessage().contains("#1 _Z3addPfS_"));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> ks.find("add@2")).getMessage().contains("1 snapshot"));
            CaptureException missing = assertThrows(CaptureException.class, () -> ks.blob(12345, "the after-image of buffer 1"));
            assertTrue(missing.getMessage().contains("the after-image of buffer 1"), missing.getMessage());
            // JSON Lines carry the launch section
            Path jl = dir.resolve("c.jsonl");
            dev.zluda.capture.convert.Converters.jsonl(cap, jl);
            String kernelLine = Files.readAllLines(jl).stream().filter(x -> x.contains("\"type\":\"kernel\"")).findFirst().orElseThrow();
            assertTrue(kernelLine.contains("\"grid\":[16,2,1],\"block\":[256,1,1],\"shared_mem_bytes\":1024,\"result\":700"), kernelLine);
        }
    }

    @Test
    void aCaptureWithoutSnapshotsSaysHowToRecordOne() throws Exception {
        Path d = dir.resolve("plain");
        Files.createDirectories(d);
        try (CaptureWriter w = CaptureWriter.create(d.resolve(CaptureFormat.CAPTURE_FILE), TestCaptures.options(4096), FUNCS)) {
            long e = w.currentThread().enter(0, 0, 1, new long[] {0}, null);
            w.currentThread().leave(e, 2, 0, null);
        }
        try (Capture cap = Capture.open(d)) {
            IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> KernelSnapshots.read(cap).find("1"));
            assertTrue(x.getMessage().contains("recorded without --capture-kernels; record again with zluda run --zluda-trace --capture-kernels REGEX"),
                    x.getMessage());
        }
    }
}
