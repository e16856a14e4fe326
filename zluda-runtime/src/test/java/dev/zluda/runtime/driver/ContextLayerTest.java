package dev.zluda.runtime.driver;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** Context semantics of the CUDA Driver API (cuCtxCreate, cuCtxPushCurrent/PopCurrent, cuCtxSetCurrent, primary contexts). */
class ContextLayerTest extends DriverTestBase {
    @Test
    void createPushesAndDestroyPops() {
        assertEquals(0, d.cuInit(0));
        MemorySegment ctx = mem(8), cur = mem(8);
        assertEquals(0, d.cuCtxGetCurrent(addr(cur)));
        assertEquals(0, i64(cur), "no context is current at first");
        assertEquals(201, d.cuCtxSynchronize(), "CUDA_ERROR_INVALID_CONTEXT without a context");
        assertEquals(0, d.cuCtxCreate_v2(addr(ctx), 0, 0));
        long c = i64(ctx);
        assertNotEquals(0, c);
        assertEquals(0, d.cuCtxGetCurrent(addr(cur)));
        assertEquals(c, i64(cur), "cuCtxCreate makes the new context current");
        MemorySegment dev = mem(4);
        assertEquals(0, d.cuCtxGetDevice(addr(dev)));
        assertEquals(0, i32(dev));
        MemorySegment flags = mem(4);
        assertEquals(0, d.cuCtxGetFlags(addr(flags)));
        assertEquals(0x8, i32(flags) & 0x8, "CU_CTX_MAP_HOST is always set");
        assertEquals(0, d.cuCtxDestroy_v2(c));
        assertEquals(0, d.cuCtxGetCurrent(addr(cur)));
        assertEquals(0, i64(cur), "destroying the current context pops it");
        // destroying it again: CUDA_ERROR_CONTEXT_IS_DESTROYED, as recorded on the H200 (samples/traces/h200/misuse)
        assertEquals(709, d.cuCtxDestroy_v2(c), "a destroyed context is recognised as destroyed");
        assertEquals(201, d.cuCtxDestroy_v2(0x5a4c_0100_0000_0008L), "a handle that never was a context is invalid");
        assertEquals(201, d.cuCtxPushCurrent_v2(c));
    }

    @Test
    void pushPopAndSetCurrentFormAStack() {
        assertEquals(0, d.cuInit(0));
        MemorySegment a = mem(8), b = mem(8), popped = mem(8), cur = mem(8);
        assertEquals(0, d.cuCtxCreate_v2(addr(a), 0, 0));
        assertEquals(0, d.cuCtxCreate_v2(addr(b), 0, 0)); // stack: a, b
        assertEquals(0, d.cuCtxPopCurrent_v2(addr(popped)));
        assertEquals(i64(b), i64(popped));
        assertEquals(0, d.cuCtxGetCurrent(addr(cur)));
        assertEquals(i64(a), i64(cur));
        assertEquals(0, d.cuCtxSetCurrent(i64(b))); // replaces a
        assertEquals(0, d.cuCtxPopCurrent_v2(addr(popped)));
        assertEquals(i64(b), i64(popped));
        assertEquals(201, d.cuCtxPopCurrent_v2(addr(popped)), "empty stack");
        assertEquals(0, d.cuCtxPushCurrent_v2(i64(a)));
        assertEquals(0, d.cuCtxSetCurrent(0), "NULL unbinds");
        assertEquals(0, d.cuCtxGetCurrent(addr(cur)));
        assertEquals(0, i64(cur));
    }

    @Test
    void eachThreadHasItsOwnCurrentContext() throws Exception {
        long c = initWithContext();
        AtomicLong seen = new AtomicLong(-1);
        Thread t = new Thread(() -> {
            try (var ar = java.lang.foreign.Arena.ofConfined()) {
                MemorySegment cur = ar.allocate(8);
                d.cuCtxGetCurrent(cur.address());
                seen.set(cur.get(java.lang.foreign.ValueLayout.JAVA_LONG, 0));
            }
        });
        t.start();
        t.join();
        assertEquals(0, seen.get(), "a new thread has no current context");
        MemorySegment cur = mem(8);
        d.cuCtxGetCurrent(addr(cur));
        assertEquals(c, i64(cur));
    }

    @Test
    void primaryContextIsRetainedReleasedAndKeepsItsHandle() {
        assertEquals(0, d.cuInit(0));
        MemorySegment p1 = mem(8), p2 = mem(8), flags = mem(4), active = mem(4);
        assertEquals(0, d.cuDevicePrimaryCtxGetState(0, addr(flags), addr(active)));
        assertEquals(0, i32(active));
        assertEquals(0, d.cuDevicePrimaryCtxRetain(addr(p1), 0));
        assertEquals(0, d.cuDevicePrimaryCtxRetain(addr(p2), 0));
        assertEquals(i64(p1), i64(p2), "one primary context per device");
        assertEquals(0, d.cuDevicePrimaryCtxGetState(0, addr(flags), addr(active)));
        assertEquals(1, i32(active));
        assertEquals(201, d.cuCtxDestroy_v2(i64(p1)), "a primary context cannot be destroyed");
        assertEquals(0, d.cuDevicePrimaryCtxRelease_v2(0));
        assertEquals(0, d.cuDevicePrimaryCtxRelease_v2(0));
        assertEquals(0, d.cuDevicePrimaryCtxGetState(0, addr(flags), addr(active)));
        assertEquals(0, i32(active));
        assertEquals(201, d.cuDevicePrimaryCtxRelease_v2(0), "released more often than retained");
        assertEquals(0, d.cuDevicePrimaryCtxSetFlags_v2(0, 4)); // CU_CTX_SCHED_BLOCKING_SYNC
        assertEquals(0, d.cuDevicePrimaryCtxGetState(0, addr(flags), addr(active)));
        assertEquals(4, i32(flags));
        assertEquals(1, d.cuDevicePrimaryCtxSetFlags_v2(0, 0x10000), "unknown flags");
    }

    @Test
    void limitsAndVersions() {
        long c = initWithContext();
        MemorySegment v = mem(8);
        assertEquals(0, d.cuCtxGetLimit(addr(v), 0)); // CU_LIMIT_STACK_SIZE
        assertEquals(1024, i64(v));
        assertEquals(0, d.cuCtxSetLimit(2, 64L << 20)); // CU_LIMIT_MALLOC_HEAP_SIZE
        assertEquals(0, d.cuCtxGetLimit(addr(v), 2));
        assertEquals(64L << 20, i64(v));
        assertEquals(0, d.cuCtxGetApiVersion(c, addr(v)));
        assertEquals(3020, i32(v));
        MemorySegment lo = mem(4), hi = mem(4);
        assertEquals(0, d.cuCtxGetStreamPriorityRange(addr(lo), addr(hi)));
        assertEquals(0, i32(lo));
        assertEquals(-5, i32(hi));
    }
}
