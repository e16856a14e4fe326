package dev.zluda.replay;

import dev.zluda.capture.CaptureRecord;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * How --locate names a pointer value: by buffer and offset. On an H200 the replay's two allocations of
 * 16384 bytes lay back to back, and the second buffer's start was first named "buffer 1+16384" (one
 * past the first), so the same pointer read as different on the two drivers.
 */
class LocateWhereTest {
    private static final CaptureRecord.Kernel K = new CaptureRecord.Kernel(0, 0, 0, 0, 0, 0, "k", new byte[0],
            List.of(new CaptureRecord.KernelBuffer(0x1000, 16384, 1, 1), new CaptureRecord.KernelBuffer(0x9000, 16384, 1, 1)));

    @Test
    void anAddressInsideABufferWinsOverOnePastTheEndOfAnother() {
        long base = 0x7fec7be10200L;
        List<Long> backToBack = List.of(base, base + 16384);
        assertEquals("buffer 2+0", Locate.where(backToBack, K, base + 16384));
        assertEquals("buffer 1+100", Locate.where(backToBack, K, base + 100));
        assertEquals("buffer 2+16384", Locate.where(backToBack, K, base + 2 * 16384), "one past the end, when nothing starts there");
        assertNull(Locate.where(backToBack, K, base + 2 * 16384 + 8));
        assertEquals("buffer 2+0", Locate.where(List.of(0x100000L, 0x900000L), K, 0x900000L));
    }
}
