package dev.zluda.replay;

import dev.zluda.spec.CudaApi;
import dev.zluda.spec.CudaRecord;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@link StructRemap} on descriptors laid out through the API spec's records (CUDA 13.0 cuda.h,
 * x86-64): the member offsets used here come from the spec, as the replay's do.
 */
class StructRemapTest {
    private static final CudaApi API = CudaApi.get();
    /** Recorded allocation [0x5000, 0x6000) is at 0x9000 in the replay; recorded CUarray 0xA1 is 0xB1, CUstream 0xC1 is 0xD1. */
    private static final StructRemap.Mapper MAPPER = new StructRemap.Mapper() {
        @Override public Long handle(String type, long v) {
            return v == 0 ? Long.valueOf(0) : Map.of(0xA1L, 0xB1L, 0xC1L, 0xD1L).get(v);
        }

        @Override public long devicePointer(long v) {
            return v >= 0x5000 && v < 0x6000 ? v + 0x4000 : v;
        }
    };

    private static long offset(CudaRecord r, String member) {
        return r.fields().stream().filter(f -> f.name().equals(member)).findFirst().orElseThrow().offset();
    }

    private static void put(CudaRecord r, byte[] b, String member, long v) {
        CudaRecord.Field f = r.fields().stream().filter(x -> x.name().equals(member)).findFirst().orElseThrow();
        MemorySegment s = MemorySegment.ofArray(b);
        if (f.size() == 4) s.set(ValueLayout.JAVA_INT_UNALIGNED, f.offset(), (int) v);
        else s.set(ValueLayout.JAVA_LONG_UNALIGNED, f.offset(), v);
    }

    private static long get(CudaRecord r, byte[] b, String member) {
        return MemorySegment.ofArray(b).get(ValueLayout.JAVA_LONG_UNALIGNED, offset(r, member));
    }

    private static final long HOST = 1, DEVICE = 2, ARRAY = 3; // CUmemorytype, cuda.h

    @Test
    void deviceToArrayCopyHasItsPointerAndArrayRemappedAndTheUnusedHostPointerCleared() {
        CudaRecord r = API.record("CUDA_MEMCPY2D").orElseThrow();
        assertEquals(128, r.size());
        byte[] b = new byte[r.size()];
        put(r, b, "srcMemoryType", DEVICE);
        put(r, b, "srcDevice", 0x5010);
        put(r, b, "srcHost", 0x7777); // stale, not read by the driver for a device source
        put(r, b, "dstMemoryType", ARRAY);
        put(r, b, "dstArray", 0xA1);
        put(r, b, "WidthInBytes", 400);
        put(r, b, "Height", 37);
        StructRemap.Outcome o = StructRemap.remap(API, r, b, "pCopy", MAPPER, n -> fail("no host memory needed"));
        assertNull(o.problem());
        assertEquals(0x9010, get(r, o.bytes(), "srcDevice"));
        assertEquals(0xB1, get(r, o.bytes(), "dstArray"));
        assertEquals(0, get(r, o.bytes(), "srcHost"));
        assertEquals(400, get(r, o.bytes(), "WidthInBytes"));
        assertEquals(3, o.remapped());
        assertEquals(0x5010, get(r, b, "srcDevice"), "the recorded bytes are left alone");
    }

    @Test
    void hostEndpointsGetScratchMemoryOrAreNamedAsMissing() {
        CudaRecord r = API.record("CUDA_MEMCPY2D").orElseThrow();
        byte[] dtoh = new byte[r.size()];
        put(r, dtoh, "srcMemoryType", DEVICE);
        put(r, dtoh, "srcDevice", 0x5000);
        put(r, dtoh, "dstMemoryType", HOST);
        put(r, dtoh, "dstHost", 0x8888);
        put(r, dtoh, "dstPitch", 512);
        put(r, dtoh, "WidthInBytes", 400);
        put(r, dtoh, "Height", 37);
        List<Long> asked = new ArrayList<>();
        StructRemap.Outcome o = StructRemap.remap(API, r, dtoh, "pCopy", MAPPER, n -> { asked.add(n); return 0x123000; });
        assertNull(o.problem());
        assertEquals(List.of(37L * 512), asked, "36 rows of 512 bytes and the last row's 400, rounded up to whole pitches");
        assertEquals(0x123000, get(r, o.bytes(), "dstHost"));

        byte[] htod = new byte[r.size()];
        put(r, htod, "srcMemoryType", HOST);
        put(r, htod, "srcHost", 0x7777);
        put(r, htod, "dstMemoryType", DEVICE);
        put(r, htod, "dstDevice", 0x5000);
        StructRemap.Outcome m = StructRemap.remap(API, r, htod, "pCopy", MAPPER, n -> 0);
        assertNull(m.bytes());
        assertEquals("missing", m.kind());
        assertTrue(m.problem().startsWith("the host memory behind pCopy.srcHost (the copy's source) is not in the capture"), m.problem());

        byte[] unknown = new byte[r.size()];
        put(r, unknown, "srcMemoryType", ARRAY);
        put(r, unknown, "srcArray", 0xA2);
        StructRemap.Outcome u = StructRemap.remap(API, r, unknown, "pCopy", MAPPER, n -> 0);
        assertEquals("unsupported", u.kind());
        assertEquals("pCopy.srcArray holds CUarray 0xa2, which no replayed call made", u.problem());
    }

    @Test
    void threeDimensionalAndPeerDescriptorsAndTheLaunchConfig() {
        CudaRecord p = API.record("CUDA_MEMCPY3D_PEER").orElseThrow();
        byte[] b = new byte[p.size()];
        put(p, b, "srcMemoryType", DEVICE);
        put(p, b, "srcDevice", 0x5800);
        put(p, b, "srcContext", 0xC1); // any handle type: mapped by the spec's handle list
        put(p, b, "dstMemoryType", DEVICE);
        put(p, b, "dstDevice", 0x5000);
        StructRemap.Outcome o = StructRemap.remap(API, p, b, "pCopy", MAPPER, n -> 0);
        assertEquals(0x9800, get(p, o.bytes(), "srcDevice"));
        assertEquals(0x9000, get(p, o.bytes(), "dstDevice"));
        assertEquals(0xD1, get(p, o.bytes(), "srcContext"));

        CudaRecord c = API.record("CUlaunchConfig").orElseThrow();
        byte[] cfg = new byte[c.size()];
        put(c, cfg, "hStream", 0xC1);
        put(c, cfg, "attrs", 0x9999);
        StructRemap.Outcome none = StructRemap.remap(API, c, cfg, "config", MAPPER, n -> 0);
        assertEquals(0xD1, get(c, none.bytes(), "hStream"));
        assertEquals(0, get(c, none.bytes(), "attrs"), "numAttrs 0: the driver reads no attribute");
        put(c, cfg, "numAttrs", 1);
        StructRemap.Outcome one = StructRemap.remap(API, c, cfg, "config", MAPPER, n -> 0);
        assertEquals("missing", one.kind());
        assertTrue(one.problem().startsWith("the memory behind config.attrs is not in the capture"), one.problem());
    }
}
