package dev.zluda.replay;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.*;

class BufferVerdictTest {
    private static byte[] f32(float... v) {
        ByteBuffer b = ByteBuffer.allocate(4 * v.length).order(ByteOrder.LITTLE_ENDIAN);
        for (float x : v) b.putFloat(x);
        return b.array();
    }

    @Test
    void identicalImages() {
        BufferVerdict v = BufferVerdict.compare(f32(1, 2, 3), f32(1, 2, 3), ElementType.F32);
        assertTrue(v.identical());
        assertEquals("identical", v.text());
        assertEquals(3, v.elements());
    }

    @Test
    void floatErrors() {
        // element 1 one ULP up, element 2: 3.0 -> 3.5; in [2, 4) one ULP of a float is 2^-22, so 0.5 is 2^21 ULPs
        BufferVerdict v = BufferVerdict.compare(f32(1, 2, 3), f32(1, Math.nextUp(2f), 3.5f), ElementType.F32);
        assertEquals(2, v.differing());
        assertEquals(4, v.firstOffset());
        assertEquals("2.0", v.firstRecorded());
        assertEquals(0.5, v.maxAbs());
        assertEquals(0.5 / 3, v.maxRel(), 1e-12);
        assertEquals(1L << 21, v.maxUlps());
        assertTrue(v.text().startsWith("2 of 3 f32 elements differ; first at byte 4 (element 1): recorded 2.0, replayed 2.0000002"), v.text());
        // signed zeros are one ULP apart; NaN against a number is an infinite error
        assertEquals(1, BufferVerdict.compare(f32(0f), f32(-0f), ElementType.F32).maxUlps());
        assertEquals(Double.POSITIVE_INFINITY, BufferVerdict.compare(f32(1f), f32(Float.NaN), ElementType.F32).maxAbs());
    }

    @Test
    void integersAndBytesWithATail() {
        byte[] a = {1, 0, 0, 0, 5, 0, 0, 0, 9}, b = {1, 0, 0, 0, (byte) 0xFB, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 8};
        BufferVerdict s = BufferVerdict.compare(a, b, ElementType.S32);
        assertEquals(3, s.elements(), "two s32 and a trailing byte");
        assertEquals(2, s.differing());
        assertEquals("5", s.firstRecorded());
        assertEquals("-5", s.firstReplayed());
        assertEquals(10, s.maxAbs());
        assertEquals(-1, s.maxUlps(), "no ULPs for integers");
        BufferVerdict u = BufferVerdict.compare(a, b, ElementType.BYTES);
        assertEquals(9, u.elements());
        assertEquals(5, u.differing());
        assertEquals(4, u.firstOffset());
        assertThrows(IllegalArgumentException.class, () -> BufferVerdict.compare(a, new byte[3], ElementType.BYTES));
    }
}
