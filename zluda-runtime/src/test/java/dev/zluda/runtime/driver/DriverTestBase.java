package dev.zluda.runtime.driver;

import dev.zluda.spec.CudaApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A fresh driver per test, called as native code would call it: with addresses of caller memory. */
abstract class DriverTestBase {
    ZludaDriver d;
    Arena arena;

    @BeforeEach
    void setUp() {
        d = new ZludaDriver(CudaApi.get(), MemorySegment.NULL);
        arena = Arena.ofConfined();
    }

    @AfterEach
    void tearDown() {
        arena.close();
    }

    /** Caller memory of n bytes (zeroed). */
    MemorySegment mem(long n) {
        return arena.allocate(n, 16);
    }

    long addr(MemorySegment s) {
        return s.address();
    }

    int i32(MemorySegment s) {
        return s.get(ValueLayout.JAVA_INT, 0);
    }

    long i64(MemorySegment s) {
        return s.get(ValueLayout.JAVA_LONG, 0);
    }

    /** A NUL-terminated copy of {@code s} in caller memory (UTF-8). */
    long cstr(String s) {
        byte[] b = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        MemorySegment m = mem(b.length + 1);
        MemorySegment.copy(b, 0, m, ValueLayout.JAVA_BYTE, 0, b.length);
        return addr(m);
    }

    /** {@code cuModuleLoadData} of PTX text, which must succeed; the CUmodule. */
    long load(String ptx) {
        MemorySegment mod = mem(8);
        assertEquals(0, d.cuModuleLoadData(addr(mod), cstr(ptx)));
        return i64(mod);
    }

    /** {@code cuModuleGetFunction}, which must succeed; the CUfunction. */
    long function(long module, String name) {
        MemorySegment f = mem(8);
        assertEquals(0, d.cuModuleGetFunction(addr(f), module, cstr(name)));
        return i64(f);
    }

    /** cuInit + primary context retained and made current; returns the context handle. */
    long initWithContext() {
        assertEquals(0, d.cuInit(0));
        MemorySegment ctx = mem(8);
        assertEquals(0, d.cuDevicePrimaryCtxRetain(addr(ctx), 0));
        assertEquals(0, d.cuCtxSetCurrent(i64(ctx)));
        return i64(ctx);
    }

    /**
     * A driver that reports compute capability 9.0 (the H200's), for PTX that targets sm_90; the
     * property that says so is restored afterwards.
     */
    static ZludaDriver h200Driver() {
        String before = System.getProperty(DeviceAttributes.COMPUTE_CAPABILITY_PROPERTY);
        System.setProperty(DeviceAttributes.COMPUTE_CAPABILITY_PROPERTY, "9.0");
        try {
            return new ZludaDriver(CudaApi.get(), MemorySegment.NULL);
        } finally {
            if (before == null) System.clearProperty(DeviceAttributes.COMPUTE_CAPABILITY_PROPERTY);
            else System.setProperty(DeviceAttributes.COMPUTE_CAPABILITY_PROPERTY, before);
        }
    }

    /**
     * Writes {@code v} into member {@code field} of struct {@code r} at {@code s}, at the member's offset
     * and size (4 or 8 bytes) from the spec's layout.
     *
     * @throws IllegalArgumentException when the struct has no such member
     */
    static void setField(MemorySegment s, dev.zluda.spec.CudaRecord r, String field, long v) {
        for (dev.zluda.spec.CudaRecord.Field f : r.fields()) {
            if (f.name().equals(field)) {
                if (f.size() == 8) s.set(ValueLayout.JAVA_LONG, f.offset(), v);
                else s.set(ValueLayout.JAVA_INT, f.offset(), (int) v);
                return;
            }
        }
        throw new IllegalArgumentException(field);
    }

    /** cuMemAlloc_v2 of n bytes; returns the device pointer. */
    long alloc(long n) {
        MemorySegment p = mem(8);
        assertEquals(0, d.cuMemAlloc_v2(addr(p), n));
        return i64(p);
    }

    /** {@code cuModuleLoadData} of the PTX text in a test resource (e.g. "/coop/coop_kernels.ptx"), which must succeed; the CUmodule. */
    long loadResource(String resource) {
        try (java.io.InputStream in = getClass().getResourceAsStream(resource)) {
            if (in == null) throw new IllegalArgumentException("no test resource " + resource);
            return load(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The kernelParams array: one pointer per kernel parameter, to an 8-byte slot holding it (an int in the low half). */
    long wordParams(long... words) {
        MemorySegment vals = mem(8L * words.length), ptrs = mem(8L * words.length);
        for (int i = 0; i < words.length; i++) {
            vals.setAtIndex(ValueLayout.JAVA_LONG, i, words[i]);
            ptrs.setAtIndex(ValueLayout.JAVA_LONG, i, vals.address() + 8L * i);
        }
        return addr(ptrs);
    }

    /** {@code bytes} bytes copied back from device memory at dptr (cuMemcpyDtoH_v2, which must succeed). */
    MemorySegment copyBack(long dptr, long bytes) {
        MemorySegment h = mem(bytes);
        assertEquals(0, d.cuMemcpyDtoH_v2(addr(h), dptr, bytes));
        return h;
    }

    /** n 32-bit words copied back from device memory at dptr. */
    int[] readInts(long dptr, int n) {
        return copyBack(dptr, 4L * n).toArray(ValueLayout.JAVA_INT);
    }

    /** n 64-bit words copied back from device memory at dptr. */
    long[] readLongs(long dptr, int n) {
        return copyBack(dptr, 8L * n).toArray(ValueLayout.JAVA_LONG);
    }
}
