package dev.zluda.diff;

import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.KernelSnapshots;
import dev.zluda.replay.CaptureReplay;
import dev.zluda.replay.KernelReplay;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code zluda replay}'s words for a buffer that came out different ({@link ReplayBuffers}): those of
 * {@code zluda diff}, bit for bit, typed by the PTX, and read as f32 and i32 where no type is known.
 * Expected counts and distances come from IEEE single-precision arithmetic done here in Java.
 */
class ReplayBuffersTest {
    private static byte[] floats(float... v) {
        ByteBuffer b = ByteBuffer.allocate(v.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (float f : v) b.putFloat(f);
        return b.array();
    }

    @Test
    void floatsThatDifferInTheirLastBitsAreShownAsFloatsWithTheirDistanceInUlps() {
        float two = Math.nextUp(2.0f), four = Math.nextUp(Math.nextUp(4.0f));
        String s = ReplayBuffers.INSTANCE.describe("16 bytes copied to the host", floats(1, 2, 3, 4), floats(1, two, 3, four),
                dev.zluda.replay.ElementType.F32, List.of("k_param_1"));
        double maxAbs = four - 4.0f;   // 2 ulps of 4.0: larger than 1 ulp of 2.0
        assertEquals("16 bytes copied to the host (k_param_1; f32; recorded vs replayed): f32 element 1 (byte offset 0x4): 2.0 vs "
                + Float.toString(two) + "; 2 of 4 elements differ, max |Δ| " + ElementTypes.number(maxAbs) + ", max rel "
                + ElementTypes.number(maxAbs / 4.0) + ", max 2 ulp", s);
    }

    /** Numbers as the reports print them: 9 significant digits, no trailing zeros in the mantissa, the exponent whole. */
    @Test
    void numbersKeepTheirExponent() {
        assertEquals("9.31322575e-10", ElementTypes.number(1.0 / (1 << 30)));
        assertEquals("1.5e-10", ElementTypes.number(1.5e-10));
        assertEquals("0.25", ElementTypes.number(0.25));
        assertEquals("1e+20", ElementTypes.number(1e20));
        assertEquals("36097", ElementTypes.number(36097));
    }

    /** The verdict is bit for bit: −0 against +0 is a difference here, though zluda diff's default tolerance calls them equal. */
    @Test
    void noToleranceHidesADifference() {
        String s = ReplayBuffers.INSTANCE.describe("4 bytes", floats(0.0f), floats(-0.0f), dev.zluda.replay.ElementType.F32, List.of());
        assertTrue(s.contains("1 of 1 elements differ"), s);
        assertEquals(null, DiffEngine.compareBuffers("b", floats(0.0f), floats(-0.0f), ElementTypes.F32, Tolerance.EXACT, false, false));
    }

    @Test
    void anUntypedBufferIsCountedInBytesAndReadAsF32AndI32() {
        String s = ReplayBuffers.INSTANCE.describe("8 bytes", floats(1, 2), floats(1, Math.nextUp(2.0f)), dev.zluda.replay.ElementType.BYTES, List.of());
        assertEquals("8 bytes (element type not known from the PTX; recorded vs replayed): 1 of 8 bytes differs"
                + "; read as f32: f32 element 1 (byte offset 0x4): 2.0 vs " + Math.nextUp(2.0f) + "; 1 of 2 elements differ, max |Δ| "
                + ElementTypes.number(Math.ulp(2.0f)) + ", max rel " + ElementTypes.number(Math.ulp(2.0f) / 2.0) + ", max 1 ulp"
                + "; read as i32: i32 element 1 (byte offset 0x4): " + Float.floatToRawIntBits(2.0f) + " vs " + (Float.floatToRawIntBits(2.0f) + 1)
                + "; 1 of 2 elements differ, max |Δ| 1, max rel 9.31322575e-10", s);   // 1 / 2^30
    }

    /**
     * structs_demo recorded on the H200, replayed whole with scale's mul.f32 planted as add.f32: the copy back
     * (through cuMemcpy3D_v2 into memory no kernel typed) is read as f32, with the elements where 2v and v + 2
     * differ and the largest distance of the two in ULPs.
     */
    @Test
    void aWholeReplaysCopyBackIsShownAsFloats() throws Exception {
        try (Capture cap = Capture.open(Path.of("..", "samples", "traces", "h200", "structs_demo-replay"))) {
            KernelSnapshots ks = KernelSnapshots.read(cap);
            CaptureRecord.Kernel k = ks.list().get(1).record();
            String ptx = KernelReplay.ptxOf(ks.blob(k.launch().moduleHash(), "module"), new java.util.ArrayList<>());
            CaptureReplay.Result p = CaptureReplay.run(cap, new KernelReplay.Options("zluda", null, false, ptx.replace("mul.f32", "add.f32"), null),
                    true, ReplayBuffers.INSTANCE);
            long differ = 0, maxUlps = 0;
            double maxAbs = 0;
            for (int y = 0; y < 37; y++) {
                for (int x = 0; x < 100; x++) {
                    float v = y * 1000.0f + x, want = 2.0f * v, got = v + 2.0f;
                    if (Float.floatToRawIntBits(want) == Float.floatToRawIntBits(got)) continue;
                    differ++;
                    maxAbs = Math.max(maxAbs, Math.abs((double) got - want));
                    maxUlps = Math.max(maxUlps, Math.abs(Float.floatToRawIntBits(want) - Float.floatToRawIntBits(got)));   // both ≥ 0
                }
            }
            assertEquals(2, p.divergences().size(), p.divergences()::toString);
            String kernel = p.divergences().get(0).what(), copy = p.divergences().get(1).what();
            assertTrue(kernel.contains("(_Z5scalePfmiif_param_0; f32; recorded vs replayed): f32 element 0 (byte offset 0x0): 0.0 vs 2.0; "
                    + differ + " of 4736 elements differ, max |Δ| " + ElementTypes.number(maxAbs)), kernel);
            assertTrue(copy.startsWith("18944 bytes copied to the host (element type not known from the PTX; recorded vs replayed): "), copy);
            assertTrue(copy.contains("; read as f32: f32 element 0 (byte offset 0x0): 0.0 vs 2.0; " + differ + " of 4736 elements differ, max |Δ| "
                    + ElementTypes.number(maxAbs) + ", max rel 0.5, max " + maxUlps + " ulp; read as i32: "), copy);
        }
    }
}
