package dev.zluda.replay;

import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.KernelSnapshots;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The emulator against an NVIDIA H200, through replay. {@code src/test/data/fastmath} was recorded
 * here on zluda's emulator with kernel snapshots; {@code src/test/data/h200/fastmath-k1} and
 * {@code -k2} are the captures {@code zluda replay ... --on nvidia} made of its two kernels on an
 * H200 (driver 580.159.04), holding the H200's after-images (commands in docs/replay.md). This
 * test replays both kernels on the emulator as it is now and compares its after-images with the
 * H200's: the exact kernel ({@code fma.rn.f32}, {@code mul}, {@code add}) must match bit for bit;
 * the {@code -use_fast_math} kernel ({@code sin.approx}, {@code ex2.approx}, {@code rsqrt.approx})
 * may differ within the accuracy the PTX ISA gives those instructions.
 */
class H200EvidenceTest {
    private static final Path DATA = Path.of("src/test/data");

    /** The output buffer's after-image in a capture's only snapshot (the replay capture's, or the recording's). */
    private static byte[] output(Path capture, int snapshot) throws Exception {
        try (Capture c = Capture.open(capture)) {
            KernelSnapshots ks = KernelSnapshots.read(c);
            CaptureRecord.Kernel k = ks.list().get(snapshot - 1).record();
            return ks.blob(k.buffers().get(1).after(), "the output");
        }
    }

    @Test
    void emulatorAgainstTheH200(@TempDir Path tmp) throws Exception {
        BufferVerdict[] v = new BufferVerdict[3];
        for (int k = 1; k <= 2; k++) {
            Path out = tmp.resolve("k" + k);
            try (Capture cap = Capture.open(DATA.resolve("fastmath"))) {
                KernelReplay.Result r = KernelReplay.run(cap, Integer.toString(k), new KernelReplay.Options("zluda", out, true, null, null));
                assertEquals(0, r.replayResult());
            }
            v[k] = BufferVerdict.compare(output(DATA.resolve("h200/fastmath-k" + k), 1), output(out, 1), ElementType.F32);
        }
        assertTrue(v[2].identical(), "exact arithmetic matches the H200: " + v[2].text());
        // the .approx instructions are approximations with documented error bounds (PTX ISA 9.0, §9.7.3), not
        // bit-exact: on the H200 the outputs (below 10 in magnitude here) differed by at most 5.4e-6 (docs/replay.md)
        assertTrue(v[1].maxAbs() <= 1e-5, "fast-math kernel far from the H200: " + v[1].text());
    }

    /**
     * A launch recorded on the H200 by the NVIDIA tracer ({@code samples/traces/h200/vectorAdd-kernels},
     * made with {@code ZLUDA_CAPTURE_KERNELS}; the tracer writes KERNEL records without the launch
     * section, so shape and module come from the launch call and the MODULE record) replays on the
     * emulator with every buffer identical to the H200's after-images: c = a + b in f32, exact.
     */
    @Test
    void aKernelRecordedOnTheH200ReplaysIdenticallyOnTheEmulator(@TempDir Path tmp) throws Exception {
        Path h200 = Path.of("../samples/traces/h200/vectorAdd-kernels");
        try (Capture cap = Capture.open(h200)) {
            KernelSnapshots.Snapshot s = KernelSnapshots.read(cap).find("1");
            assertNotNull(s.record().launch(), "the launch section is rebuilt from the capture");
            assertEquals(16, s.record().launch().gridX());
            assertEquals(256, s.record().launch().blockX());
            KernelReplay.Result r = KernelReplay.run(cap, "1", new KernelReplay.Options("zluda", tmp.resolve("replay"), false, null, null));
            assertEquals(0, r.replayResult());
            assertEquals(3, r.buffers().size());
            for (KernelReplay.BufferResult b : r.buffers()) {
                assertTrue(b.verdict().identical(), "buffer " + b.index() + " against the H200: " + b.verdict().text());
            }
            assertTrue(r.buffers().get(2).changedInRecording(), "c was written by the kernel on the H200");
            assertTrue(r.identical());
        }
    }
}
