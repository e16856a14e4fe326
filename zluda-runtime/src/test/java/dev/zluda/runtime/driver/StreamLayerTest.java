package dev.zluda.runtime.driver;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Streams, events and host functions (CUDA Driver API, Stream and Event Management). */
class StreamLayerTest extends DriverTestBase {
    static final AtomicLong hostFnArg = new AtomicLong();

    static void hostFn(MemorySegment userData) {
        hostFnArg.set(userData.address());
    }

    @Test
    void streamsAreCreatedQueriedAndDestroyed() {
        long ctx = initWithContext();
        MemorySegment s = mem(8), v = mem(8);
        assertEquals(0, d.cuStreamCreateWithPriority(addr(s), 1, -3));
        long h = i64(s);
        assertEquals(0, d.cuStreamQuery(h));
        assertEquals(0, d.cuStreamSynchronize(h));
        assertEquals(0, d.cuStreamGetFlags(h, addr(v)));
        assertEquals(1, i32(v), "CU_STREAM_NON_BLOCKING");
        assertEquals(0, d.cuStreamGetPriority(h, addr(v)));
        assertEquals(-3, i32(v));
        assertEquals(0, d.cuStreamGetCtx(h, addr(v)));
        assertEquals(ctx, i64(v));
        assertEquals(0, d.cuStreamQuery(0), "the NULL stream");
        assertEquals(0, d.cuStreamSynchronize(StreamArea.CU_STREAM_PER_THREAD));
        long p = alloc(16);
        MemorySegment host = mem(16);
        assertEquals(0, d.cuMemcpyHtoDAsync_v2(p, addr(host), 16, h));
        assertEquals(0, d.cuStreamDestroy_v2(h));
        assertEquals(400, d.cuStreamQuery(h), "CUDA_ERROR_INVALID_HANDLE after destroy");
        assertEquals(400, d.cuMemcpyHtoDAsync_v2(p, addr(host), 16, h));
    }

    @Test
    void eventsMeasureElapsedTime() throws Exception {
        initWithContext();
        MemorySegment a = mem(8), b = mem(8), ms = mem(4);
        assertEquals(0, d.cuEventCreate(addr(a), 0));
        assertEquals(0, d.cuEventCreate(addr(b), 0));
        assertEquals(400, d.cuEventElapsedTime(addr(ms), i64(a), i64(b)), "neither was recorded");
        assertEquals(0, d.cuEventRecord(i64(a), 0));
        Thread.sleep(20);
        assertEquals(0, d.cuEventRecord(i64(b), 0));
        assertEquals(0, d.cuEventSynchronize(i64(b)));
        assertEquals(0, d.cuEventElapsedTime_v2(addr(ms), i64(a), i64(b)));
        float t = ms.get(ValueLayout.JAVA_FLOAT, 0);
        assertTrue(t >= 19 && t < 2000, "elapsed " + t + " ms after sleeping 20 ms");
        MemorySegment c = mem(8);
        assertEquals(0, d.cuEventCreate(addr(c), 2)); // CU_EVENT_DISABLE_TIMING
        assertEquals(0, d.cuEventRecord(i64(c), 0));
        assertEquals(400, d.cuEventElapsedTime(addr(ms), i64(a), i64(c)), "a timing-disabled event");
        assertEquals(1, d.cuEventCreate(addr(c), 4), "INTERPROCESS without DISABLE_TIMING");
        assertEquals(0, d.cuEventDestroy_v2(i64(a)));
        assertEquals(400, d.cuEventQuery(i64(a)));
    }

    @Test
    void hostFunctionsRunWithTheirUserData() throws Exception {
        initWithContext();
        var mh = MethodHandles.lookup().findStatic(StreamLayerTest.class, "hostFn", MethodType.methodType(void.class, MemorySegment.class));
        try (Arena stubs = Arena.ofConfined()) {
            MemorySegment fn = Linker.nativeLinker().upcallStub(mh, FunctionDescriptor.ofVoid(ValueLayout.ADDRESS), stubs);
            hostFnArg.set(0);
            assertEquals(0, d.cuLaunchHostFunc(0, fn.address(), 0xabc0));
            assertEquals(0xabc0, hostFnArg.get());
            assertEquals(1, d.cuLaunchHostFunc(0, 0, 0), "no function");
        }
    }
}
