package dev.zluda.viewer;

import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.KernelSnapshots;
import dev.zluda.diff.DiffKind;
import dev.zluda.diff.DiffResult;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The kernel after-image source on the vectorAdd capture recorded on the H200 with kernel snapshots
 * (as A and as B): buffer 3 read after the launch holds a + b of buffers 1 and 2 before it.
 */
class KernelAfterImagesTest {
    @Test
    void readsBuffer3AfterTheLaunchOnBothSides() throws Exception {
        Path cap = Fx.sample("vectorAdd-kernels");
        long launch;
        float[] a, b;
        try (Capture c = Capture.open(cap)) {
            KernelSnapshots ks = KernelSnapshots.read(c);
            KernelSnapshots.Snapshot s = ks.list().getFirst();
            launch = s.launchCall();
            List<CaptureRecord.KernelBuffer> bufs = s.record().buffers();
            a = floats(ks.blob(bufs.get(0).before(), "a"));
            b = floats(ks.blob(bufs.get(1).before(), "b"));
        }
        DiffResult.CallRef ra = new DiffResult.CallRef(launch, -1, 1, "cuLaunchKernel", null), rb = new DiffResult.CallRef(launch, -1, 1, "cuLaunchKernel", null);
        DiffResult.DataDiff dd = new DiffResult.DataDiff("buffer 3 dptr#3", "f32", 16384, 4096, 1, 0, 0, "1", "2", 1, 1, null, null);
        DiffResult.Difference f = new DiffResult.Difference(DiffKind.DATA, "kernel #1 vectorAdd buffer 3 dptr#3 after-image", "x", "y", dd);
        DiffResult.Divergence d = new DiffResult.Divergence(1, DiffKind.DATA, ra, rb, List.of(f));
        try (OpenCaptures oc = new OpenCaptures(cap, cap)) {
            KernelAfterImages src = new KernelAfterImages(oc);
            assertTrue(src.handles(d, f));
            assertFalse(new CopyBuffers(oc).handles(d, new DiffResult.Difference(DiffKind.DATA, "x", "a", "b", null)));
            DivergingBuffer buf = src.read(d, f);
            float[] c = floats(buf.a());
            assertArrayEquals(buf.a(), buf.b());
            assertEquals(a.length, c.length);
            for (int i = 0; i < c.length; i++) assertEquals(a[i] + b[i], c[i], "element " + i);
            // the same buffers: nothing differs, and the images agree cell for cell
            BufferImages im = BufferImages.of(buf, dev.zluda.diff.Tolerance.EXACT);
            assertEquals(0, im.differing);
            assertArrayEquals(im.a, im.b);
            // no snapshot for another call: said so
            DiffResult.Divergence other = new DiffResult.Divergence(1, DiffKind.DATA, new DiffResult.CallRef(1, -1, 1, "cuLaunchKernel", null),
                    new DiffResult.CallRef(1, -1, 1, "cuLaunchKernel", null), List.of(f));
            java.io.IOException e = assertThrows(java.io.IOException.class, () -> src.read(other, f));
            assertTrue(e.getMessage().contains("has no kernel snapshot of call 1"), e.getMessage());
        }
    }

    private static float[] floats(byte[] bytes) {
        FloatBuffer fb = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
        float[] f = new float[fb.remaining()];
        fb.get(f);
        return f;
    }
}
