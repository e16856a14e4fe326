package dev.zluda.replay;

import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.KernelSnapshots;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static dev.zluda.replay.SampleRecorder.floats;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Kernel replay with real data: the samples run unmodified on zluda's libcuda.so.1 (built by
 * zluda-runtime) with kernel snapshots, each snapshot is replayed on the emulator in this process
 * and must come out identical; then divergences are planted in the replayed PTX and must be found
 * in the right buffer, with the count and first offset that IEEE arithmetic on the recorded inputs
 * predicts (computed here in Java, not taken from the emulator). Skipped with the reason when the
 * samples or the native library cannot be built.
 */
class KernelReplayTest {
    private static SampleRecorder samples;

    @BeforeAll
    static void build() throws Exception {
        samples = SampleRecorder.open("zluda-replay-test");
    }

    @AfterAll
    static void clean() throws Exception {
        if (samples != null) samples.close();
    }

    private static Path record(String... command) throws Exception {
        return samples.record(command);
    }

    private static String text(KernelReplay.Result r) {
        return SampleRecorder.printed(r::print);
    }

    @Test
    void vectorAddReplaysIdenticallyAndWritesACaptureOfTheReplay() throws Exception {
        Path dir = record("vectorAdd", "5000", "128");
        Path out = samples.logs.resolve("vectorAdd-replay-test");
        try (Capture cap = Capture.open(dir)) {
            KernelReplay.Result r = KernelReplay.run(cap, "vectorAdd", new KernelReplay.Options("zluda", out, true, null, null));
            assertTrue(r.identical(), text(r));
            assertEquals(0, r.exitCode());
            assertEquals(3, r.relocatedWords());
            assertEquals(List.of("vectorAdd_param_0", "vectorAdd_param_1", "vectorAdd_param_2"),
                    r.buffers().stream().map(b -> b.params().getFirst()).toList());
            for (KernelReplay.BufferResult b : r.buffers()) assertEquals(ElementType.F32, b.verdict().type());
            assertTrue(text(r).contains("VERDICT: identical"), text(r));
            // the replay's capture: its snapshot holds the replay's after-images, which equal the recorded ones
            try (Capture rc = Capture.open(out)) {
                KernelSnapshots rk = KernelSnapshots.read(rc);
                KernelSnapshots orig = KernelSnapshots.read(cap);
                assertEquals(1, rk.list().size());
                CaptureRecord.Kernel a = orig.list().getFirst().record(), b = rk.list().getFirst().record();
                for (int i = 0; i < 3; i++) {
                    assertArrayEquals(orig.blob(a.buffers().get(i).after(), "a"), rk.blob(b.buffers().get(i).after(), "b"));
                    assertNotEquals(a.buffers().get(i).devicePointer(), b.buffers().get(i).devicePointer(), "fresh allocations");
                }
                assertEquals("cuLaunchKernel", rk.list().getFirst().launchFunction());
                assertTrue(Files.isRegularFile(out.resolve("module_0001_01.ptx")));
                assertTrue(rc.reader().status().endedCleanly());
            }
        }
    }

    @Test
    void plantedDivergencesAreFoundInTheRightBufferAtTheRightOffset() throws Exception {
        Path dir = record("vectorAdd", "5000", "128");
        try (Capture cap = Capture.open(dir)) {
            KernelSnapshots ks = KernelSnapshots.read(cap);
            CaptureRecord.Kernel k = ks.list().getFirst().record();
            float[] a = floats(ks.blob(k.buffers().get(0).before(), "a")), b = floats(ks.blob(k.buffers().get(1).before(), "b"));
            float[] c0 = floats(ks.blob(k.buffers().get(2).before(), "c before"));
            String ptx = new String(ks.blob(k.launch().moduleHash(), "module"), StandardCharsets.UTF_8);

            // 1. add.f32 -> sub.f32: c[i] = a[i] - b[i] differs from a[i] + b[i] wherever IEEE says so
            String sub = ptx.replace("add.f32", "sub.f32");
            assertNotEquals(ptx, sub);
            long expected = 0, first = -1;
            for (int i = 0; i < a.length; i++) {
                if (Float.floatToRawIntBits(a[i] - b[i]) != Float.floatToRawIntBits(a[i] + b[i])) { expected++; if (first < 0) first = 4L * i; }
            }
            KernelReplay.Result r = KernelReplay.run(cap, "1", new KernelReplay.Options("zluda", null, false, sub, null));
            assertEquals(1, r.exitCode(), text(r));
            assertTrue(r.buffers().get(0).verdict().identical() && r.buffers().get(1).verdict().identical(), text(r));
            BufferVerdict v = r.buffers().get(2).verdict();
            assertEquals(expected, v.differing(), text(r));
            assertEquals(first, v.firstOffset());
            assertTrue(text(r).contains("VERDICT: DIFFERENT: 1 of 3 buffer(s) differ"), text(r));

            // 2. the bound check against 100 instead of n: elements from 100 on keep what c held before the kernel
            String bound = ptx.replaceFirst("setp\\.ge\\.s32(\\s+%p\\d+, %r\\d+,) %r\\d+;", "setp.ge.s32$1 100;");
            assertNotEquals(ptx, bound);
            expected = 0;
            first = -1;
            for (int i = 100; i < a.length; i++) {
                if (Float.floatToRawIntBits(a[i] + b[i]) != Float.floatToRawIntBits(c0[i])) { expected++; if (first < 0) first = 4L * i; }
            }
            r = KernelReplay.run(cap, "vectorAdd", new KernelReplay.Options("zluda", null, false, bound, null));
            v = r.buffers().get(2).verdict();
            assertEquals(400, first, "the first element left alone is element 100");
            assertEquals(first, v.firstOffset(), text(r));
            assertEquals(expected, v.differing(), text(r));
        }
    }

    @Test
    void matrixMulAndAFaultingKernelReplayAsRecorded() throws Exception {
        try (Capture cap = Capture.open(record("matrixMul", "50", "40", "30"))) {
            KernelReplay.Result r = KernelReplay.run(cap, "matrixMul", KernelReplay.Options.onZluda());
            assertTrue(r.identical(), text(r));
            assertEquals(3, r.buffers().size());
            assertTrue(r.snapshot().summary().contains("block=(16,16,1)"), r.snapshot().summary());
        }
        try (Capture cap = Capture.open(record("illegalAccess"))) {
            KernelReplay.Result r = KernelReplay.run(cap, "1", KernelReplay.Options.onZluda());
            assertEquals(700, r.recordedResult(), "the recording saw CUDA_ERROR_ILLEGAL_ADDRESS");
            assertEquals(700, r.replayResult(), text(r));
            assertEquals(0, r.exitCode(), text(r));
            assertTrue(text(r).contains("after the fault, as in the recording"), text(r));
        }
    }

    @Test
    void whatAReplayCannotDoIsSaid() throws Exception {
        Path repo = Path.of(System.getProperty("zluda.repo", "..")).toAbsolutePath().normalize();
        try (Capture cap = Capture.open(repo.resolve("samples/traces/h200/vectorAdd"))) {
            ReplayException e = assertThrows(ReplayException.class, () -> KernelReplay.run(cap, "1", KernelReplay.Options.onZluda()));
            assertTrue(e.getMessage().contains("recorded without --capture-kernels; record again with zluda run --nvidia-trace --capture-kernels REGEX"),
                    e.getMessage());
        }
        try (Capture cap = Capture.open(record("vectorAdd", "5000", "128"))) {
            ReplayException e = assertThrows(ReplayException.class,
                    () -> KernelReplay.run(cap, "1", new KernelReplay.Options("/no/such/libcuda.so", null, false, null, null)));
            assertTrue(e.getMessage().contains("/no/such/libcuda.so: no such file"), e.getMessage());
            e = assertThrows(ReplayException.class,
                    () -> KernelReplay.run(cap, "1", new KernelReplay.Options(samples.nativeDir.resolve("libcuda.so.1").toString(), null, false, null, null)));
            assertTrue(e.getMessage().contains("is zluda's own driver"), e.getMessage());
            e = assertThrows(ReplayException.class,
                    () -> KernelReplay.run(cap, "1", new KernelReplay.Options("zluda", null, false, ".version 8.0\n.target sm_80\n.address_size 64\n", null)));
            assertTrue(e.getMessage().contains("kernel vectorAdd takes") || e.getMessage().contains("cuModuleGetFunction(vectorAdd) failed"), e.getMessage());
        }
    }

    private static Path recordForWholeReplay(String... command) throws Exception {
        return samples.recordForWholeReplay(command);
    }

    private static String text(CaptureReplay.Result r) {
        return SampleRecorder.printed(r::print);
    }

    @Test
    void wholeCaptureReplayReproducesTheRunAndFindsAPlantedDivergence() throws Exception {
        Path dir = recordForWholeReplay("scan", "5000", "64");
        try (Capture cap = Capture.open(dir)) {
            CaptureReplay.Result r = CaptureReplay.run(cap, KernelReplay.Options.onZluda(), false);
            assertEquals(0, r.exitCode(), text(r));
            assertEquals(r.calls(), r.replayed(), text(r));
            assertEquals(5, r.launches(), "scan 5000 64 launches scanBlocks three times and addBlockOffsets twice");
            assertEquals(1, r.copies(), text(r));
        }
        Path va = recordForWholeReplay("vectorAdd", "5000", "128");
        try (Capture cap = Capture.open(va)) {
            KernelSnapshots ks = KernelSnapshots.read(cap);
            CaptureRecord.Kernel k = ks.list().getFirst().record();
            String ptx = new String(ks.blob(k.launch().moduleHash(), "module"), StandardCharsets.UTF_8).replace("add.f32", "sub.f32");
            float[] a = floats(ks.blob(k.buffers().get(0).before(), "a")), b = floats(ks.blob(k.buffers().get(1).before(), "b"));
            long expected = 0;
            for (int i = 0; i < a.length; i++) if (Float.floatToRawIntBits(a[i] - b[i]) != Float.floatToRawIntBits(a[i] + b[i])) expected++;
            CaptureReplay.Result r = CaptureReplay.run(cap, new KernelReplay.Options("zluda", null, false, ptx, null), true);
            assertEquals(1, r.exitCode(), text(r));
            // first the launch (its output buffer after the kernel), then the copy of that buffer back to the host
            CaptureReplay.Divergence first = r.divergences().getFirst();
            assertEquals(ks.list().getFirst().launchCall(), first.call(), text(r));
            assertEquals("kernel", first.kind());
            assertTrue(first.what().contains("buffer 3 (20000 bytes) after the kernel: " + expected + " of 5000 f32 elements differ"), text(r));
            assertEquals(2, r.divergences().size(), text(r));
            assertEquals("cuMemcpyDtoH_v2", r.divergences().get(1).function());
            assertTrue(r.divergences().get(1).what().contains(expected + " of 5000 f32 elements differ"), text(r));
        }
        try (Capture cap = Capture.open(record("vectorAdd", "5000", "128"))) {
            ReplayException e = assertThrows(ReplayException.class, () -> CaptureReplay.run(cap, KernelReplay.Options.onZluda(), false));
            assertTrue(e.getMessage().contains("record again with zluda run --zluda-trace --level replay --capture-kernels ."), e.getMessage());
        }
    }
}
