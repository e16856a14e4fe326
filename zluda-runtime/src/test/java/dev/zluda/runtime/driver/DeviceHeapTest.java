package dev.zluda.runtime.driver;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Device-side malloc and free (and C++ new/delete, which compile to them) through the driver, on the kernels of
 * src/test/resources/heap/heap_kernels.cu (nvcc 13.0). What is checked is what the CUDA Programming Guide promises
 * ("Dynamic Global Memory Allocation and Operations"): each call returns a block of its own, 16-byte aligned, that
 * lives across launches until freed; NULL when the heap (CU_LIMIT_MALLOC_HEAP_SIZE) has no room left; freed blocks
 * can be allocated again. A free of a pointer malloc did not return is said out loud (CUDA_ERROR_ILLEGAL_ADDRESS).
 */
class DeviceHeapTest extends DriverTestBase {
    static final int ILLEGAL_ADDRESS = 700;

    long module;

    void load() {
        module = loadResource("/heap/heap_kernels.ptx");
    }

    long function(String name) {
        return function(module, name);
    }

    @Test
    void blocksAreAlignedDistinctAndLiveAcrossLaunches() throws IOException {
        initWithContext();
        load();
        int n = 200, size = 20;
        long ptrs = alloc(8L * n), out = alloc(4L * n);
        assertEquals(0, d.cuLaunchKernel(function("allocate"), 2, 1, 1, 128, 1, 1, 0, 0, wordParams(ptrs, n, size), 0));
        assertEquals(0, d.cuCtxSynchronize());
        long[] p = readLongs(ptrs, n);
        Set<Long> seen = new HashSet<>();
        for (int t = 0; t < n; t++) {
            assertNotEquals(0L, p[t], "thread " + t + " got a block");
            assertEquals(0, p[t] % 16, "16-byte aligned");
            assertTrue(seen.add(p[t]), "a block of its own");
        }
        // blocks do not overlap: sorted, each ends before the next begins
        long[] s = p.clone();
        java.util.Arrays.sort(s);
        for (int k = 1; k < n; k++) assertTrue(s[k] - s[k - 1] >= size, "no overlap at " + k);
        assertEquals(0, d.cuLaunchKernel(function("release"), 2, 1, 1, 128, 1, 1, 0, 0, wordParams(ptrs, out, n, size), 0));
        assertEquals(0, d.cuCtxSynchronize());
        MemorySegment ok = mem(4L * n);
        assertEquals(0, d.cuMemcpyDtoH_v2(addr(ok), out, 4L * n));
        for (int t = 0; t < n; t++) assertEquals(1, ok.getAtIndex(ValueLayout.JAVA_INT, t), "thread " + t + "'s block kept its bytes");
        // freed: the same room serves again
        assertEquals(0, d.cuLaunchKernel(function("allocate"), 2, 1, 1, 128, 1, 1, 0, 0, wordParams(ptrs, n, size), 0));
        assertEquals(0, d.cuCtxSynchronize());
        for (long q : readLongs(ptrs, n)) assertNotEquals(0L, q);
    }

    @Test
    void aFullHeapGivesNull() throws IOException {
        initWithContext();
        assertEquals(0, d.cuCtxSetLimit(2, 4096), "CU_LIMIT_MALLOC_HEAP_SIZE before the first allocation");
        load();
        int n = 128, size = 64; // 64..88 bytes each: about 60 fit in 4096
        long ptrs = alloc(8L * n);
        assertEquals(0, d.cuLaunchKernel(function("allocate"), 1, 1, 1, n, 1, 1, 0, 0, wordParams(ptrs, n, size), 0));
        assertEquals(0, d.cuCtxSynchronize());
        int nulls = 0;
        long used = 0;
        long[] got = readLongs(ptrs, n);
        for (int t = 0; t < n; t++) {
            long q = got[t];
            if (q == 0) nulls++;
            else used += (size + (t % 4) * 8 + 15) / 16 * 16;
        }
        assertTrue(nulls > 0, "some threads found no room");
        assertTrue(used <= 4096, "no more than the heap was handed out: " + used);
    }

    @Test
    void newAndDeleteInAKernel() throws IOException {
        initWithContext();
        load();
        long out = alloc(4L * 64);
        assertEquals(0, d.cuLaunchKernel(function("newDelete"), 1, 1, 1, 64, 1, 1, 0, 0, wordParams(out), 0));
        assertEquals(0, d.cuCtxSynchronize());
        MemorySegment h = mem(4L * 64);
        assertEquals(0, d.cuMemcpyDtoH_v2(addr(h), out, 4L * 64));
        for (int t = 0; t < 64; t++) assertEquals(40 * t + 6, h.getAtIndex(ValueLayout.JAVA_INT, t));
    }

    @Test
    void freeingWhatMallocDidNotReturnIsAFault() throws IOException {
        initWithContext();
        load();
        long other = alloc(64);
        assertEquals(0, d.cuLaunchKernel(function("badFree"), 1, 1, 1, 1, 1, 1, 0, 0, wordParams(other), 0));
        assertEquals(ILLEGAL_ADDRESS, d.cuCtxSynchronize());
    }
}
