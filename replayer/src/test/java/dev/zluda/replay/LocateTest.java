package dev.zluda.replay;

import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.KernelSnapshots;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;

import static dev.zluda.replay.SampleRecorder.floats;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Instruction-level localisation with planted divergences: samples recorded with snapshots on
 * zluda's libcuda.so.1 (the emulator), then localised between the emulator running the recorded
 * PTX and the emulator running a copy with one instruction changed. The tool must name exactly that
 * instruction's line (found here by searching the PTX text, not from the tool), the thread that
 * writes the first wrong element (found here with IEEE arithmetic on the recorded inputs) and both
 * values; with the unchanged PTX it must say there is no divergence.
 */
class LocateTest {
    private static SampleRecorder samples;

    @BeforeAll
    static void build() throws Exception {
        samples = SampleRecorder.open("zluda-locate-test");
    }

    @AfterAll
    static void clean() throws Exception {
        if (samples != null) samples.close();
    }

    private static Path record(String... command) throws Exception {
        return samples.record(command);
    }

    /** 1-based line of the only line of {@code ptx} containing {@code what}. */
    private static int lineOf(String ptx, String what) {
        String[] lines = ptx.split("\n", -1);
        int found = -1;
        for (int i = 0; i < lines.length; i++) {
            if (java.util.regex.Pattern.compile(what).matcher(lines[i]).find()) {
                assertEquals(-1, found, "'" + what + "' is on one line only");
                found = i + 1;
            }
        }
        assertTrue(found > 0, what);
        return found;
    }

    private static Locate.Options opts(String onPtx) {
        return new Locate.Options("zluda", onPtx, "zluda", null, null, 4096, null);
    }

    /** The two sides are named apart when they run on the same driver: by their PTX file, or as the recorded PTX. */
    @Test
    void sidesOnTheSameDriverAreNamedByTheirPtx() {
        assertEquals("zluda (a.ptx)", Locate.label("zluda", ".version 8.0", "a.ptx", "zluda", ".version 8.0"));
        assertEquals("zluda (recorded PTX)", Locate.label("zluda", null, null, "zluda", ".version 8.0"));
        assertEquals("nvidia", Locate.label("nvidia", null, null, "zluda", ".version 8.0"), "another driver tells the sides apart");
        assertEquals("zluda (given PTX)", Locate.label("zluda", ".version 8.0", null, "zluda", null));
        assertEquals("nvidia", Locate.label("nvidia", null, null, "nvidia", null));
    }

    @Test
    void vectorAddWithAddChangedToSubIsLocatedAtThatLineInTheRightThreadWithBothValues() throws Exception {
        try (Capture cap = Capture.open(record("vectorAdd", "5000", "128"))) {
            KernelSnapshots ks = KernelSnapshots.read(cap);
            CaptureRecord.Kernel k = ks.list().getFirst().record();
            float[] a = floats(ks.blob(k.buffers().get(0).before(), "a")), b = floats(ks.blob(k.buffers().get(1).before(), "b"));
            String ptx = new String(ks.blob(k.launch().moduleHash(), "module"), StandardCharsets.UTF_8).replace("\0", "");

            Locate.Result same = Locate.run(cap, "1", opts(null));
            assertFalse(same.found(), same.text());
            assertEquals(0, same.exitCode());
            assertTrue(same.text().contains("VERDICT: no divergence"), same.text());

            String sub = ptx.replace("add.f32", "sub.f32");
            assertNotEquals(ptx, sub);
            int line = lineOf(ptx, "add\\.f32");
            int first = -1;
            for (int i = 0; i < a.length && first < 0; i++) if (Float.floatToRawIntBits(a[i] - b[i]) != Float.floatToRawIntBits(a[i] + b[i])) first = i;
            assertTrue(first >= 0);
            Locate.Result r = Locate.run(cap, "1", opts(sub));
            String t = r.text();
            assertTrue(r.found(), t);
            assertEquals(1, r.exitCode());
            assertTrue(t.contains("FIRST DIVERGENCE: line " + line + ": sub.f32"), t);
            assertTrue(t.contains("VERDICT: DIVERGENCE at line " + line), t);
            assertTrue(t.contains(String.format(Locale.ROOT, "thread (%d,0,0) of CTA (%d,0,0)", first % 128, first / 128)), t);
            // vectorAdd's PTX loads b into %f1 and a into %f2: add.f32 %f3, %f2, %f1
            assertTrue(t.contains(String.format(Locale.ROOT, "zluda (given PTX): 0x%08x", Float.floatToRawIntBits(a[first] - b[first]))), t);
            assertTrue(t.contains(String.format(Locale.ROOT, "zluda (recorded PTX): 0x%08x", Float.floatToRawIntBits(a[first] + b[first]))), t);
        }
    }

    @Test
    void aBoundCheckAgainst100IsLocatedAtTheSetpInThread100() throws Exception {
        try (Capture cap = Capture.open(record("vectorAdd", "5000", "128"))) {
            KernelSnapshots ks = KernelSnapshots.read(cap);
            CaptureRecord.Kernel k = ks.list().getFirst().record();
            String ptx = new String(ks.blob(k.launch().moduleHash(), "module"), StandardCharsets.UTF_8).replace("\0", "");
            // the kernel stops at element 100 instead of n: only the against side stores element 100,
            // whose thread is (100,0,0) of CTA (0,0,0); its setp (i >= 100) is true there and (i >= n) false
            String bound = ptx.replaceFirst("setp\\.ge\\.s32(\\s+%p\\d+, %r\\d+,) %r\\d+;", "setp.ge.s32$1 100;");
            assertNotEquals(ptx, bound);
            int line = lineOf(ptx, "setp\\.ge\\.s32");
            Locate.Result r = Locate.run(cap, "1", opts(bound));
            String t = r.text();
            assertTrue(t.contains("first differing byte: buffer 3 (recorded at"), t);
            assertTrue(t.contains("), byte 400"), t);
            assertTrue(t.contains("thread (100,0,0) of CTA (0,0,0)"), t);
            assertTrue(t.contains("FIRST DIVERGENCE: line " + line + ": setp.ge.s32"), t);
            assertTrue(t.contains("zluda (given PTX): true") && t.contains("zluda (recorded PTX): false"), t);
            // thread 0 computes the same on both: the report must not claim a divergence there
            Locate.Result r0 = Locate.run(cap, "1", new Locate.Options("zluda", bound, "zluda", null, new int[6], 4096, null));
            assertFalse(r0.found(), r0.text());
            // 19 = the register-writing instructions vectorAdd.ptx executes for i < n: 4 ld.param, 3 mov, mad, setp,
            // 3 cvta, mul.wide, 3 add.s64, 2 ld.global, add.f32 (st, bra and ret write no register)
            assertTrue(r0.text().contains("VERDICT: no divergence: all 19 results"), r0.text());
        }
    }

    @Test
    void matrixMulWithOneRoundingModeChangedInItsLoopIsLocatedAtThatLine() throws Exception {
        try (Capture cap = Capture.open(record("matrixMul", "50", "40", "30"))) {
            KernelSnapshots ks = KernelSnapshots.read(cap);
            CaptureRecord.Kernel k = ks.list().getFirst().record();
            String ptx = new String(ks.blob(k.launch().moduleHash(), "module"), StandardCharsets.UTF_8).replace("\0", "");
            int line = lineOf(ptx, "fma\\.rn\\.f32\\s+%f26,");
            String planted = ptx.replaceFirst("fma\\.rn\\.f32(\\s+%f26,)", "fma.rz.f32$1");
            assertNotEquals(ptx, planted);
            Locate.Result r = Locate.run(cap, "1", opts(planted));
            assertTrue(r.found(), r.text());
            assertTrue(r.text().contains("FIRST DIVERGENCE: line " + line + ": fma.rz.f32"), r.text());
            Locate.Result same = Locate.run(cap, "1", opts(null));
            assertFalse(same.found(), same.text());
        }
    }

    @Test
    void aLoopThatOverflowsTheTraceIsSaid() throws Exception {
        try (Capture cap = Capture.open(record("matrixMul", "50", "40", "30"))) {
            Locate.Result r = Locate.run(cap, "1", new Locate.Options("zluda", null, "zluda", null, new int[6], 20, null));
            assertFalse(r.found(), r.text());
            assertTrue(r.text().contains("no divergence in the first 20 of"), r.text());
            assertTrue(r.text().contains("raise --trace-limit"), r.text());
            // matrixMul 50x40x30 runs a 3x4 grid of 16x16 blocks: CTA (3,0,0) does not exist
            ReplayException e = assertThrows(ReplayException.class,
                    () -> Locate.run(cap, "1", new Locate.Options("zluda", null, "zluda", null, new int[]{3, 0, 0, 0, 0, 0}, 20, null)));
            assertTrue(e.getMessage().contains("is outside the launch: grid (3,4,1), block (16,16,1)"), e.getMessage());
        }
    }

    @Test
    void aKernelThatFaultsAlikeOnBothSidesIsNoDivergence() throws Exception {
        try (Capture cap = Capture.open(record("illegalAccess"))) {
            Locate.Result r = Locate.run(cap, "1", opts(null));
            assertFalse(r.found(), r.text());
            assertTrue(r.text().contains("CUDA_ERROR_ILLEGAL_ADDRESS (700) on zluda, CUDA_ERROR_ILLEGAL_ADDRESS (700) on zluda"), r.text());
            assertTrue(r.text().contains("both faulted alike"), r.text());
        }
    }

    @Test
    void storeWidthsFollowTheType() {
        assertEquals(4, Locate.storeWidth("st.global.f32 [%rd10], %f3;"));
        assertEquals(16, Locate.storeWidth("@%p1 st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};"));
        assertEquals(1, Locate.storeWidth("st.shared.u8 [%r1], %rs1;"));
    }
}
