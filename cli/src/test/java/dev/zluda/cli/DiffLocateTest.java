package dev.zluda.cli;

import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.KernelSnapshots;
import dev.zluda.replay.KernelReplay;
import dev.zluda.replay.NativeDriver;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@code zluda diff A B --kernel N --locate} with planted divergences. A is vectorAdd recorded on an
 * NVIDIA H200 with a kernel snapshot (samples/traces/h200/vectorAdd-kernels); each B is that snapshot
 * replayed on zluda's emulator from a copy of its PTX with one instruction changed, recorded as a
 * capture by the replay. The diff must name the launch, buffer and element, and the localisation the
 * changed line (found here by searching the PTX text), the thread that stores the first differing
 * element and both values, computed here with IEEE binary32 arithmetic on the recorded before-images
 * (Java's float arithmetic is IEEE 754 round-to-nearest-even, as PTX's add.f32 and sub.f32, PTX ISA
 * 9.0 §9.7.3).
 */
class DiffLocateTest {
    static final Path A = Path.of("..", "samples", "traces", "h200", "vectorAdd-kernels");
    @TempDir
    static Path tmp;
    static Path same, sub, bound;
    static String ptx;
    static float[] a, b, cBefore;

    static float[] floats(byte[] bytes) {
        float[] f = new float[bytes.length / 4];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(f);
        return f;
    }

    @BeforeAll
    static void replay() throws Exception {
        ptx = Files.readString(A.resolve("module_0001_01.ptx"));
        String planted = ptx.replace("add.f32", "sub.f32");
        // the kernel stops at element 100 instead of n: elements from 100 on keep c's before-image
        String stops = ptx.replaceFirst("setp\\.ge\\.s32(\\s+%p\\d+, %r\\d+,) %r\\d+;", "setp.ge.s32$1 100;");
        assertNotEquals(ptx, planted);
        assertNotEquals(ptx, stops);
        try (Capture cap = Capture.open(A)) {
            KernelSnapshots ks = KernelSnapshots.read(cap);
            CaptureRecord.Kernel k = ks.list().getFirst().record();
            a = floats(ks.blob(k.buffers().get(0).before(), "a"));
            b = floats(ks.blob(k.buffers().get(1).before(), "b"));
            cBefore = floats(ks.blob(k.buffers().get(2).before(), "c"));
            same = tmp.resolve("same");
            sub = tmp.resolve("sub");
            bound = tmp.resolve("bound");
            KernelReplay.run(cap, "1", new KernelReplay.Options("zluda", same, true, null, null));
            KernelReplay.run(cap, "1", new KernelReplay.Options("zluda", sub, true, planted, null));
            KernelReplay.run(cap, "1", new KernelReplay.Options("zluda", bound, true, stops, null));
        }
    }

    /** 1-based line of the only line of the recorded PTX matching {@code regex}. */
    static int lineOf(String regex) {
        String[] lines = ptx.split("\n", -1);
        int found = -1;
        for (int i = 0; i < lines.length; i++) {
            if (Pattern.compile(regex).matcher(lines[i]).find()) {
                assertEquals(-1, found, regex + " is on one line only");
                found = i + 1;
            }
        }
        assertTrue(found > 0, regex);
        return found;
    }

    static boolean differ(float x, float y) {
        return Float.floatToRawIntBits(x) != Float.floatToRawIntBits(y) && x != y && !(Float.isNaN(x) && Float.isNaN(y));
    }

    static boolean nvidiaHere() {
        try {
            NativeDriver.load("nvidia", null);
            return true;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    @Test
    void theReportPrintsTheCommandThatLocalisesEachDivergingKernel() {
        CliRun.Result r = CliRun.run("diff", A.toString(), sub.toString());
        assertEquals(1, r.code(), r.err());
        assertTrue(r.out().contains("Diverging kernels (1):"), r.out());
        assertTrue(r.out().contains("first differing instruction: zluda diff " + A + " " + sub + " --kernel 1 --locate"), r.out());
        CliRun.Result s = CliRun.run("diff", A.toString(), same.toString());
        assertTrue(s.out().contains("Kernels: 0 of 1 compared launch diverge"), s.out());
    }

    /** With dist/bin not on PATH the suggested command starts with the launcher's absolute path, as run and demo print it. */
    @Test
    void theSuggestedCommandRunsAsPastedWhenZludaIsNotOnPath(@org.junit.jupiter.api.io.TempDir Path home) {
        String old = System.getProperty("zluda.home");
        System.setProperty("zluda.home", home.toString());
        try {
            CliRun.Result r = CliRun.run("diff", A.toString(), sub.toString());
            assertEquals(1, r.code(), r.err());
            assertTrue(r.out().contains("first differing instruction: " + home.resolve("bin/zluda").toAbsolutePath().normalize() + " diff " + A + " " + sub
                    + " --kernel 1 --locate"), r.out());
        } finally {
            if (old == null) System.clearProperty("zluda.home"); else System.setProperty("zluda.home", old);
        }
    }

    @Test
    void withoutAnNvidiaGpuTheH200SideIsRefusedWithWhatToRunInstead() {
        Assumptions.assumeFalse(nvidiaHere(), "an NVIDIA driver is loadable here: the H200 side can run");
        CliRun.Result r = CliRun.run("diff", A.toString(), sub.toString(), "--kernel", "1", "--locate");
        assertEquals(2, r.code(), r.out());
        assertTrue(r.err().contains("capture A was recorded on NVIDIA's driver"), r.err());
        assertTrue(r.err().contains("which cannot be loaded here"), r.err());
        assertTrue(r.err().contains("run on a machine with an NVIDIA GPU"), r.err());
        assertTrue(r.err().contains("zluda diff " + A + " " + sub + " --kernel 1 --locate"), r.err());
        assertTrue(r.err().contains("--against zluda"), r.err());
        assertFalse(r.out().contains("DIVERGENCE"), "nothing localised on another driver: " + r.out());
    }

    @Test
    void aPlantedSubIsLocatedAtItsLineInTheThreadOfTheFirstDifferingElement() {
        int first = -1;
        for (int i = 0; i < a.length && first < 0; i++) if (differ(a[i] + b[i], a[i] - b[i])) first = i;
        assertTrue(first >= 0);
        int line = lineOf("add\\.f32");
        CliRun.Result r = CliRun.run("diff", A.toString(), sub.toString(), "--kernel", "1", "--locate", "--against", "zluda");
        String t = r.out();
        assertEquals(1, r.code(), t + r.err());
        assertTrue(t.contains("kernel #1 vectorAdd: A call 13 (A's snapshot #1)"), t);
        assertTrue(t.contains("running B's module (its PTX differs from A's)"), t);
        assertTrue(t.contains("first differing byte: buffer 3 (recorded at"), t);
        assertTrue(t.contains("), byte " + 4 * first), t);
        assertTrue(t.contains(String.format(Locale.ROOT, "thread (%d,0,0) of CTA (%d,0,0)", first % 256, first / 256)), t);
        assertTrue(t.contains("FIRST DIVERGENCE: line " + line + ": sub.f32"), t);
        // B's side (the given PTX) computes a - b, A's side a + b
        assertTrue(t.contains(String.format(Locale.ROOT, "zluda (given PTX): 0x%08x", Float.floatToRawIntBits(a[first] - b[first]))), t);
        assertTrue(t.contains(String.format(Locale.ROOT, "zluda (recorded PTX): 0x%08x", Float.floatToRawIntBits(a[first] + b[first]))), t);
    }

    @Test
    void aBoundCheckAgainst100IsFoundAtTheRightElementAndLocatedAtTheSetp() {
        // B leaves c's before-image from element 100 on; the first element there that differs from a + b
        int first = -1;
        for (int i = 100; i < a.length && first < 0; i++) if (differ(a[i] + b[i], cBefore[i])) first = i;
        assertTrue(first >= 100);
        long differing = 0;
        for (int i = 100; i < a.length; i++) if (differ(a[i] + b[i], cBefore[i])) differing++;
        CliRun.Result d = CliRun.run("diff", "--format", "json", A.toString(), bound.toString());
        assertEquals(1, d.code(), d.err());
        assertTrue(d.out().contains("\"firstElement\" : " + first + ","), d.out());
        assertTrue(d.out().contains("\"byteOffset\" : " + 4 * first + ","), d.out());
        assertTrue(d.out().contains("\"differing\" : " + differing + ","), d.out());
        assertTrue(d.out().contains("\"buffer\" : \"dptr#3\""), d.out());

        int line = lineOf("setp\\.ge\\.s32");
        CliRun.Result r = CliRun.run("diff", A.toString(), bound.toString(), "--kernel", "1", "--locate", "--against", "zluda");
        String t = r.out();
        assertEquals(1, r.code(), t + r.err());
        assertTrue(t.contains(String.format(Locale.ROOT, "thread (%d,0,0) of CTA (%d,0,0)", first % 256, first / 256)), t);
        assertTrue(t.contains("FIRST DIVERGENCE: line " + line + ": setp.ge.s32"), t);
        // i >= 100 is true in that thread, i >= n (4096) false
        assertTrue(t.contains("zluda (given PTX): true") && t.contains("zluda (recorded PTX): false"), t);
    }

    /** Two captures recorded on zluda need no driver named (a planted divergence between two: DiffKernelRunTest). */
    @Test
    void twoZludaCapturesOfTheSameLaunchShowNoDivergence() {
        CliRun.Result s = CliRun.run("diff", same.toString(), same.toString(), "--kernel", "vectorAdd", "--locate");
        assertEquals(0, s.code(), s.out() + s.err());
        assertTrue(s.out().contains("note: both sides run zluda with the same PTX"), s.out());
        assertTrue(s.out().contains("VERDICT: no divergence"), s.out());
    }

    /**
     * The same launch given another n (vectorAdd_param_3, .u32 in the PTX; recorded as 4096): the diff names the
     * parameter, and --locate says the inputs differ instead of blaming the driver, without replaying
     * (a replay runs both sides with A's parameters).
     */
    @Test
    void aChangedKernelParameterIsNamedAndLocateSaysTheInputsDiffer() throws Exception {
        Path changed = KernelParamEdit.copy(same, tmp.resolve("n4000"), p -> {
            ByteBuffer.wrap(p).order(ByteOrder.LITTLE_ENDIAN).putInt(24, 4000);
            return p;
        });
        CliRun.Result d = CliRun.run("diff", same.toString(), changed.toString());
        assertEquals(1, d.code(), d.out() + d.err());
        assertTrue(d.out().contains("kernel #1 vectorAdd parameter 3 (vectorAdd_param_3, .u32): 4096 vs 4000"), d.out());
        assertTrue(d.out().contains("kernel parameter 3 (vectorAdd_param_3, .u32): 4096 vs 4000 [the launches were given other inputs]"), d.out());
        CliRun.Result r = CliRun.run("diff", same.toString(), changed.toString(), "--kernel", "1", "--locate");
        assertEquals(1, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("  inputs differ: kernel parameter 3 (vectorAdd_param_3, .u32): 4096 vs 4000"), r.out());
        assertTrue(r.out().contains("VERDICT: INPUTS DIFFER"), r.out());
        assertFalse(r.out().contains("same PTX: only a difference of the driver"), r.out());
    }

    @Test
    void badUsageExits2() {
        assertEquals(2, CliRun.run("diff", A.toString(), sub.toString(), "--locate").code());
        assertEquals(2, CliRun.run("diff", A.toString(), sub.toString(), "--kernel", "1").code());
        CliRun.Result r = CliRun.run("diff", A.toString(), sub.toString(), "--kernel", "5", "--locate", "--against", "zluda");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("there is no kernel snapshot #5"), r.err());
        CliRun.Result none = CliRun.run("diff", "../samples/traces/h200/vectorAdd", sub.toString(), "--kernel", "1", "--locate");
        assertEquals(2, none.code());
        assertTrue(none.err().contains("holds no kernel snapshots"), none.err());
    }
}
