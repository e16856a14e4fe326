package dev.zluda.runtime.driver;

import dev.zluda.image.UserMemory;
import dev.zluda.image.GuardedMemory;
import dev.zluda.runtime.backend.HostMemory;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Probes of the program's memory ({@link UserMemory}) and the driver's C-heap blocks ({@link HostMemory#allocateZeroed}). */
class UserMemoryTest {
    @Test
    void mappedMemoryIsReadableGuardAndUnmappedPagesAreNot() {
        try (GuardedMemory m = new GuardedMemory()) {
            assertTrue(UserMemory.readable(m.readable, GuardedMemory.PAGE));
            assertTrue(UserMemory.readable(m.readable + 100, 8));
            assertFalse(UserMemory.readable(m.guard, 1), "a PROT_NONE page");
            assertFalse(UserMemory.readable(m.unmapped, 1), "an unmapped page");
            assertFalse(UserMemory.readable(m.guard - 4, 8), "a range that runs into the guard page");
            assertTrue(UserMemory.readable(m.guard - 8, 8), "the last bytes before it");
            // the readable page is cached now; the guard page never is
            assertFalse(UserMemory.readable(m.readable, GuardedMemory.PAGE + 1));
        }
    }

    @Test
    void nullNegativeAndWrappingRangesAreNotReadableEmptyOnesAre() {
        assertTrue(UserMemory.readable(0, 0));
        assertFalse(UserMemory.readable(0, 1));
        assertFalse(UserMemory.readable(4096, -1));
        assertFalse(UserMemory.readable(-4096, 8), "above the user address space");
        assertFalse(UserMemory.readable(Long.MAX_VALUE - 4, 8), "wraps around");
        assertFalse(UserMemory.readable(4096, 8), "the first pages are never mapped");
    }

    @Test
    void cStringStopsAtTheNulOrAtMemoryThatIsNotReadable() {
        try (GuardedMemory m = new GuardedMemory()) {
            MemorySegment s = m.beforeGuard(6);
            s.copyFrom(MemorySegment.ofArray("store\0".getBytes(StandardCharsets.US_ASCII)));
            assertEquals("store", UserMemory.cString(s.address(), 1 << 16));
            s.set(ValueLayout.JAVA_BYTE, 5, (byte) 'x'); // no NUL before the guard page
            assertNull(UserMemory.cString(s.address(), 1 << 16));
            assertNull(UserMemory.cString(s.address(), 3), "no NUL within the limit");
        }
    }

    @Test
    void forgottenPagesAreProbedAgain() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(64);
            assertTrue(UserMemory.readable(s.address(), 64));
            UserMemory.forget(s.address(), 64);
            assertTrue(UserMemory.readable(s.address(), 64));
        }
    }

    @Test
    void heapBlocksAreZeroedAlignedAndFreedOnce() {
        HostMemory.Block b = HostMemory.allocateZeroed(1000, 256);
        assertEquals(0, b.address % 256);
        MemorySegment s = HostMemory.at(b.address, 1000);
        for (long i = 0; i < 1000; i++) assertEquals(0, s.get(ValueLayout.JAVA_BYTE, i));
        s.fill((byte) 7);
        b.free();
        b.free(); // a second free does nothing
        assertNull(HostMemory.allocateZeroed(Long.MAX_VALUE - 10, 256), "more than can be had: null, not an exception");
    }
}
