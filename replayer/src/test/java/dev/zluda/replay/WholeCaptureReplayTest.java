package dev.zluda.replay;

import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.KernelSnapshots;
import dev.zluda.capture.Pack;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Set;

import static dev.zluda.replay.SampleRecorder.floats;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Whole-capture replays on the emulator of captures recorded on an NVIDIA H200 (driver 580.159.04)
 * with the NVIDIA tracer at level {@code replay} with every kernel snapshotted
 * (samples/traces/README.md says how): programs built with nvcc, which reach the driver through
 * {@code cuGetProcAddress} and the export tables, and a CuPy program.
 */
class WholeCaptureReplayTest {
    private static final Path H200 = Path.of("../samples/traces/h200");
    private static final String CUDART_INTERFACE = "{6bd5fb6c-5bf4-e74a-8987-d93912fd9df9}";

    private static String text(CaptureReplay.Result r) {
        return SampleRecorder.printed(r::print);
    }

    private static KernelReplay.Options withPtx(String ptx) {
        return new KernelReplay.Options("zluda", null, false, ptx, null);
    }

    /** A short list of calls not issued stays on one line; a long one gets one name per line, under the total. */
    @Test
    void longListsOfCallsNotIssuedAreOneNamePerLine() {
        StringWriter w = new StringWriter();
        CaptureReplay.printCounts(new PrintWriter(w, true), "not issued", new java.util.TreeMap<>(java.util.Map.of("cuGetErrorName", 4)));
        assertEquals("  not issued: cuGetErrorName ×4\n", w.toString());
        java.util.Map<String, Integer> many = new java.util.TreeMap<>();
        for (int i = 0; i < 12; i++) many.put("cuGetProcAddress_v" + i, i + 1);
        w = new StringWriter();
        CaptureReplay.printCounts(new PrintWriter(w, true), "not issued", many);
        String[] lines = w.toString().split("\n");
        assertEquals("  not issued (78 calls):", lines[0]);
        assertEquals(13, lines.length);
        assertEquals("    cuGetProcAddress_v0 ×1", lines[1]);
    }

    @Test
    void cudartProgramRecordedOnTheH200ReplaysWholeAndAPlantedBugIsFound() throws Exception {
        try (Capture cap = Capture.open(H200.resolve("cudart_demo-replay"))) {
            CaptureReplay.Result r = CaptureReplay.run(cap, KernelReplay.Options.onZluda(), true);
            assertEquals(0, r.exitCode(), text(r));
            assertEquals(1, r.launches(), text(r));
            assertEquals(1, r.copies(), "the result copied back (cudaMemcpyAsync after the kernel): " + text(r));
            // cudart's context comes from CUDART_INTERFACE slot 2, the module from cuLibraryLoadData (lazy loading)
            assertEquals(1, r.standIns().get(CUDART_INTERFACE + "::slot 2 (as cuDevicePrimaryCtxRetain)"), text(r));
            assertEquals(21, r.skipped().get("{c693336e-1121-df11-a8c3-68f355d89593}::slot 2"), "CONTEXT_LOCAL_STORAGE get: " + text(r));
            assertEquals(1, r.skipped().get("cuLibraryUnload (after the process ended: the driver's teardown)"), text(r));

            // vectorAdd's add.f32 planted as sub.f32: the launch's output buffer, then its copy to the host, differ
            // exactly where a - b and a + b round to different floats
            KernelSnapshots ks = KernelSnapshots.read(cap);
            CaptureRecord.Kernel k = ks.list().getFirst().record();
            String ptx = KernelReplay.ptxOf(ks.blob(k.launch().moduleHash(), "module"), new java.util.ArrayList<>());
            assertTrue(ptx.contains("add.f32"), ptx);
            float[] a = floats(ks.blob(k.buffers().get(0).before(), "a")), b = floats(ks.blob(k.buffers().get(1).before(), "b"));
            long expected = 0;
            for (int i = 0; i < a.length; i++) if (Float.floatToRawIntBits(a[i] - b[i]) != Float.floatToRawIntBits(a[i] + b[i])) expected++;
            assertTrue(expected > 0);
            CaptureReplay.Result p = CaptureReplay.run(cap, withPtx(ptx.replace("add.f32", "sub.f32")), true);
            assertEquals(1, p.exitCode(), text(p));
            assertEquals(2, p.divergences().size(), text(p));
            assertEquals("kernel", p.divergences().get(0).kind(), text(p));
            assertTrue(p.divergences().get(0).what().contains("buffer 3 (16384 bytes) after the kernel: " + expected + " of 4096 f32 elements differ"), text(p));
            assertEquals("cuMemcpyDtoHAsync_v2", p.divergences().get(1).function(), text(p));
            assertTrue(p.divergences().get(1).what().contains(expected + " of 4096 f32 elements differ"), text(p));
        }
    }

    @Test
    void structsInMemoryAreRemappedAndReplayed() throws Exception {
        // cuMemcpy2DUnaligned_v2 (device to device, device to host), cuMemcpy3D_v2, cuLaunchKernelEx, cuPointerGetAttributes
        try (Capture cap = Capture.open(H200.resolve("structs_demo-replay"))) {
            CaptureReplay.Result r = CaptureReplay.run(cap, KernelReplay.Options.onZluda(), true);
            assertEquals(0, r.exitCode(), text(r));
            assertEquals(2, r.launches(), "fill (cuLaunchKernel) and scale (cuLaunchKernelEx): " + text(r));
            assertEquals(1, r.copies(), "the 3D copy's destination copied back whole: " + text(r));
            for (String n : r.skipped().keySet()) {
                assertFalse(n.startsWith("cuMemcpy") || n.startsWith("cuLaunch") || n.startsWith("cuPointer"), "not issued: " + n);
            }
            // scale's mul.f32 planted as add.f32: 2v becomes v + 2, the same only for v = 2 (one of the 100 x 37
            // values y * 1000 + x); the buffer is 37 rows of 512 bytes (128 floats), the padding untouched
            KernelSnapshots ks = KernelSnapshots.read(cap);
            CaptureRecord.Kernel k = ks.list().get(1).record();
            assertEquals("_Z5scalePfmiif", k.name());
            String ptx = KernelReplay.ptxOf(ks.blob(k.launch().moduleHash(), "module"), new java.util.ArrayList<>());
            assertEquals(1, ptx.split("mul.f32", -1).length - 1, ptx);
            CaptureReplay.Result p = CaptureReplay.run(cap, withPtx(ptx.replace("mul.f32", "add.f32")), true);
            assertEquals(2, p.divergences().size(), text(p));
            assertEquals("cuLaunchKernelEx", p.divergences().get(0).function(), text(p));
            assertTrue(p.divergences().get(0).what().contains("3699 of 4736 f32 elements differ"), text(p));
            // through the remapped cuMemcpy3D_v2 into the copy back, untyped (no kernel used that allocation): the bytes
            // in which the floats 2v and v + 2 differ
            long bytes = 0;
            for (int y = 0; y < 37; y++) {
                for (int x = 0; x < 100; x++) {
                    float v = y * 1000.0f + x;
                    int want = Float.floatToRawIntBits(2.0f * v), got = Float.floatToRawIntBits(v + 2.0f);
                    for (int i = 0; i < 4; i++) if (((want >>> (8 * i)) & 0xFF) != ((got >>> (8 * i)) & 0xFF)) bytes++;
                }
            }
            assertEquals("cuMemcpyDtoH_v2", p.divergences().get(1).function(), text(p));
            assertTrue(p.divergences().get(1).what().contains(bytes + " of 18944 bytes differ"), bytes + ": " + text(p));
        }
    }

    @Test
    void cupyProgramRecordedOnTheH200ReplaysWholeOnTheEmulator() throws Exception {
        try (Capture cap = Capture.open(H200.resolve("cupy_kernels-replay.zip"))) {
            CaptureReplay.Result r = CaptureReplay.run(cap, KernelReplay.Options.onZluda(), true);
            assertEquals(20, r.launches(), text(r));
            assertEquals(11, r.copies(), text(r));
            // cupy_exp's expf is built on ex2.approx.ftz.f32, an approximate instruction (docs/support.md):
            // the only kernel that differs; the next kernel reads its output, then starts from the recorded state
            assertEquals(2, r.divergences().size(), text(r));
            assertEquals("kernel", r.divergences().get(0).kind(), text(r));
            assertTrue(r.divergences().get(0).what().startsWith("cupy_exp__float32_float32: buffer 2 (65536 bytes) after the kernel"), text(r));
            // typed through the pointer inside CuPy's CArray parameter: floats, each within the 1 ULP that ex2.approx.ftz.f32
            // is from the H200 (docs/support.md), not bytes
            assertTrue(r.divergences().get(0).what().contains(" of 16384 f32 elements differ"), text(r));
            assertTrue(r.divergences().get(0).what().endsWith(", max 1 ULP"), text(r));
            assertEquals("state", r.divergences().get(1).kind(), text(r));
            assertTrue(r.divergences().get(1).what().startsWith("cupy_multiply__float32_float32_float32"), text(r));
            assertTrue(r.notes().contains("1 launches started from the recorded state (their buffers restored from the before-images) after the "
                    + "replay had reached another one"), text(r));
            assertTrue(r.notes().stream().anyMatch(n -> n.contains("compute capability 9.0")), text(r));
        }
    }

    @Test
    void capturesWithoutTheDataAReplayNeedsSayWhatIsMissing(@TempDir Path tmp) throws Exception {
        try (Capture cap = Capture.open(H200.resolve("cudart_demo"))) {
            ReplayException e = assertThrows(ReplayException.class, () -> CaptureReplay.run(cap, KernelReplay.Options.onZluda(), false));
            assertTrue(e.getMessage().contains("was recorded at level calls, which does not keep the host buffers"), e.getMessage());
            assertTrue(e.getMessage().contains("zluda run --nvidia-trace --level replay --capture-kernels ."), e.getMessage());
        }
        try (Capture cap = Capture.open(H200.resolve("vectorAdd-replay"))) {
            ReplayException e = assertThrows(ReplayException.class, () -> CaptureReplay.run(cap, KernelReplay.Options.onZluda(), false));
            assertTrue(e.getMessage().contains("1 of 1 kernel launches have no snapshot"), e.getMessage());
            assertTrue(e.getMessage().contains("cuLaunchKernel): a whole replay needs their parameters and module"), e.getMessage());
            assertTrue(e.getMessage().contains("--capture-kernels ."), e.getMessage());
        }
        Path pack = tmp.resolve("redacted.zip");
        try (Capture cap = Capture.open(H200.resolve("cudart_demo-replay"))) {
            Pack.pack(cap, pack, Set.of(Pack.Redaction.DATA));
        }
        try (Capture cap = Capture.open(pack)) {
            ReplayException e = assertThrows(ReplayException.class, () -> CaptureReplay.run(cap, KernelReplay.Options.onZluda(), false));
            assertTrue(e.getMessage().contains("is a pack made with --redact data"), e.getMessage());
            assertTrue(e.getMessage().contains("without --redact data"), e.getMessage());
        }
    }
}
