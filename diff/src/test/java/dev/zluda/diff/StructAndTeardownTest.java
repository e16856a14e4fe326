package dev.zluda.diff;

import dev.zluda.capture.CaptureFormat;
import dev.zluda.capture.DataItem;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the diff compares of a struct the program and the driver exchange: the fields the API spec defines (not
 * the padding of CUDA_ARRAY3D_DESCRIPTOR; of CUDA_RESOURCE_DESC's union only the member {@code resType} selects),
 * and how it pairs destroys that the two sides make in another order within a run of destroys (cudart's teardown).
 * The captures are vectorAdd as recorded on the H200 (samples/traces/h200) and a copy with other handle and
 * pointer values, with calls inserted or moved.
 */
class StructAndTeardownTest {
    static final Path VECTOR_ADD = DiffEngineTest.VECTOR_ADD;
    /** CU_AD_FORMAT_FLOAT, CU_RESOURCE_TYPE_PITCH2D. */
    static final int FLOAT = 0x20, PITCH2D = 3;

    @TempDir
    static Path tmp;
    static Path remapped;

    @BeforeAll
    static void remappedCopy() throws Exception {
        remapped = Rewrite.copy(VECTOR_ADD, tmp.resolve("remapped"), Rewrite.remap());
    }

    static DataItem inline(int param, byte[] b) {
        return new DataItem(param, CaptureFormat.ITEM_INLINE, b, 0, b.length, -1);
    }

    /** CUDA_ARRAY3D_DESCRIPTOR (40 bytes): Width, Height, Depth, Format, NumChannels, Flags, then 4 bytes of padding. */
    static byte[] arrayDescriptor(int flags, int padding) {
        ByteBuffer b = ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(64).putLong(32).putLong(0).putInt(FLOAT).putInt(1).putInt(flags).putInt(padding);
        return b.array();
    }

    /**
     * CUDA_RESOURCE_DESC (144 bytes) of a pitch-linear resource: resType, 4 bytes of padding, the union (pitch2D:
     * devPtr, format, numChannels, width, height, pitchInBytes; the rest of its 128 bytes unused), flags, padding.
     * {@code junk} fills every byte the pitch2D member does not define.
     */
    static byte[] resourceDesc(long devPtr, long width, byte junk) {
        ByteBuffer b = ByteBuffer.allocate(144).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 144; i++) b.put(i, junk);
        b.putInt(0, PITCH2D);
        b.putLong(8, devPtr).putInt(16, FLOAT).putInt(20, 1).putLong(24, width).putLong(32, 32).putLong(40, 256);
        b.putInt(136, 0);
        return b.array();
    }

    /** Variations of the inserted calls' data. */
    /** An editor that keeps the device pointers the capture's cuMemAlloc_v2 calls returned, in order (allocation 1 first). */
    abstract static class AllocationsSeen implements Rewrite.Editor {
        final List<Long> allocs = new ArrayList<>();

        @Override
        public void leave(Rewrite.Call c) {
            if (c.function.equals("cuMemAlloc_v2")) allocs.add(ByteBuffer.wrap(c.out.getFirst().bytes()).order(ByteOrder.LITTLE_ENDIAN).getLong());
        }
    }

    record Structs(int flags, int padding, int alloc, long width, byte junk) {}

    /**
     * Copies {@code src}, inserting before its first cuMemcpyHtoD_v2 (call 11) a cuArray3DGetDescriptor_v2 that
     * returns {@link #arrayDescriptor} and a cuTexObjectCreate of {@link #resourceDesc} over allocation number
     * {@code alloc} (1..3, as allocated by the capture).
     */
    static Path withStructs(Path src, String name, Structs s) throws Exception {
        return Rewrite.copy(src, tmp.resolve(name), new AllocationsSeen() {
            @Override
            public void enter(Rewrite.Call c) {
                if (c.ordinal != 11) return;
                c.before.add(new Rewrite.Synthetic("cuArray3DGetDescriptor_v2", new long[] {0x7ffc0000_1000L, 0x5a4c_0000_0077L}, 0,
                        List.of(inline(0, arrayDescriptor(s.flags(), s.padding())))));
                byte[] tex = new byte[8];
                tex[0] = 0x42;
                c.before.add(new Rewrite.Synthetic("cuTexObjectCreate", new long[] {0x7ffc0000_2000L, 0x7ffc0000_3000L, 0, 0}, 0,
                        List.of(inline(0, tex)), List.of(inline(1, resourceDesc(allocs.get(s.alloc() - 1), s.width(), s.junk())))));
            }
        });
    }

    static DiffResult diff(Path a, Path b) throws Exception {
        return DiffEngine.diff(a, b, DiffOptions.defaults());
    }

    @Test
    void paddingAndUnusedUnionBytesAreNotCompared() throws Exception {
        Path a = withStructs(VECTOR_ADD, "structs-a", new Structs(0, 0, 2, 64, (byte) 0));
        Path b = withStructs(remapped, "structs-b", new Structs(0, 0xdeadbeef, 2, 64, (byte) 0x5a));
        DiffResult r = diff(a, b);
        assertTrue(r.same(), () -> r.divergences().toString());
        assertEquals(r.a().calls(), r.matchedCalls());
    }

    @Test
    void theFieldsTheSpecDefinesAreCompared() throws Exception {
        Path a = withStructs(VECTOR_ADD, "fields-a", new Structs(0, 0, 2, 64, (byte) 0));
        // a flag of the descriptor
        DiffResult flags = diff(a, withStructs(remapped, "fields-flags", new Structs(2, 0, 2, 64, (byte) 0)));
        assertFalse(flags.same());
        assertEquals(1, flags.divergingCalls(), () -> flags.divergences().toString());
        assertEquals("cuArray3DGetDescriptor_v2", flags.first().function());
        assertTrue(flags.first().differences().toString().contains("Flags"), flags.first().differences().toString());
        // the selected member's width
        DiffResult width = diff(a, withStructs(remapped, "fields-width", new Structs(0, 0, 2, 65, (byte) 0)));
        assertEquals(1, width.divergingCalls(), () -> width.divergences().toString());
        assertEquals("cuTexObjectCreate", width.first().function());
        assertTrue(width.first().differences().toString().contains("res.pitch2D.width"), width.first().differences().toString());
        // the selected member's device pointer, compared as an allocation (dptr#3, not dptr#2)
        DiffResult ptr = diff(a, withStructs(remapped, "fields-ptr", new Structs(0, 0, 3, 64, (byte) 0)));
        assertEquals(1, ptr.divergingCalls(), () -> ptr.divergences().toString());
        assertTrue(ptr.first().differences().toString().contains("res.pitch2D.devPtr"), ptr.first().differences().toString());
    }

    /**
     * CUstreamAttrValue (CUlaunchAttributeValue, a 64-byte union) holding an access policy window: base_ptr, num_bytes,
     * hitRatio, hitProp, missProp; {@code junk} in the 32 bytes after it, which no member the attribute selects defines.
     */
    static byte[] accessPolicyWindow(float hitRatio, byte junk) {
        ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 64; i++) b.put(i, junk);
        b.putLong(0, 0x7f00_0000_0000L).putLong(8, 1 << 20).putFloat(16, hitRatio).putInt(20, 2).putInt(24, 0).putInt(28, 0);
        return b.array();
    }

    /**
     * Copies {@code src}, inserting before call 11 a cuStreamSetAttribute of CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW
     * (1) and a cuTexObjectCreate whose out-parameter held {@code before} when the call was made.
     */
    static Path withAttribute(Path src, String name, float hitRatio, byte junk, long before) throws Exception {
        return Rewrite.copy(src, tmp.resolve(name), new Rewrite.Editor() {
            @Override
            public void enter(Rewrite.Call c) {
                if (c.ordinal != 11) return;
                c.before.add(new Rewrite.Synthetic("cuStreamSetAttribute", new long[] {0, 1, 0x7ffc0000_4000L}, 0, List.of(),
                        List.of(inline(2, accessPolicyWindow(hitRatio, junk)))));
                byte[] old = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, before).array(), tex = new byte[8];
                tex[0] = 0x42;
                c.before.add(new Rewrite.Synthetic("cuTexObjectCreate", new long[] {0x7ffc0000_2000L, 0, 0, 0}, 0,
                        List.of(inline(0, tex)), List.of(inline(0, old))));
            }
        });
    }

    @Test
    void theUnionMemberTheAttributeSelectsAndNotWhatAnOutParameterHeldBefore() throws Exception {
        Path a = withAttribute(VECTOR_ADD, "attr-a", 1f, (byte) 0, 0);
        DiffResult same = diff(a, withAttribute(remapped, "attr-b", 1f, (byte) 0xa5, 0x5a4c_0000_1234L));
        assertTrue(same.same(), () -> same.divergences().toString());
        DiffResult ratio = diff(a, withAttribute(remapped, "attr-ratio", 0.5f, (byte) 0, 0));
        assertEquals(1, ratio.divergingCalls(), () -> ratio.divergences().toString());
        assertEquals("cuStreamSetAttribute", ratio.first().function());
    }

    /**
     * Copies {@code src} with its three cuMemFree_v2 (calls 16..18, dptr#1..#3) made in the order {@code order}
     * (allocation numbers), before call {@code at} (19: cuModuleUnload, right after them; 13: before the kernel's
     * launch).
     */
    static Path freesIn(Path src, String name, int at, int... order) throws Exception {
        return Rewrite.copy(src, tmp.resolve(name), new AllocationsSeen() {
            @Override
            public void enter(Rewrite.Call c) {
                if (c.function.equals("cuMemFree_v2")) c.drop = true;
                if (c.ordinal == at) {
                    for (int k : order) c.before.add(new Rewrite.Synthetic("cuMemFree_v2", new long[] {allocs.get(k - 1)}, 0, List.of()));
                }
            }
        });
    }

    @Test
    void destroysInAnotherOrderWithinTheirRunArePaired() throws Exception {
        Path b = freesIn(remapped, "frees-312", 19, 3, 1, 2);
        DiffResult r = diff(VECTOR_ADD, b);
        assertTrue(r.same(), () -> r.divergences().toString());
        assertEquals(r.a().calls(), r.matchedCalls(), "every call paired");
        assertEquals(1L, r.ignoredCounts().get(Expected.DESTROY_ORDER), () -> r.ignoredCounts().toString());
        DiffResult strict = DiffEngine.diff(VECTOR_ADD, b, DiffOptions.defaults().withStrict(true));
        // --strict leaves them unpaired (and counts the host addresses, which differ in the remapped copy)
        assertTrue(strict.divergences().stream().anyMatch(d -> d.kind() == DiffKind.MISSING && d.function().equals("cuMemFree_v2")),
                () -> strict.divergences().toString());
        assertTrue(strict.divergences().stream().anyMatch(d -> d.kind() == DiffKind.EXTRA && d.function().equals("cuMemFree_v2")),
                () -> strict.divergences().toString());
        assertEquals(null, strict.ignoredCounts().get(Expected.DESTROY_ORDER));
    }

    @Test
    void aReorderedDestroyIsStillCompared() throws Exception {
        // B frees dptr#3 twice out of order and never frees dptr#2: the moved free pairs, the other one differs
        Path b = freesIn(remapped, "frees-313", 19, 3, 1, 3);
        DiffResult r = diff(VECTOR_ADD, b);
        assertFalse(r.same());
        assertTrue(r.divergences().stream().anyMatch(d -> d.function().equals("cuMemFree_v2")), () -> r.divergences().toString());
    }

    @Test
    void aDestroyMovedPastOtherWorkIsNotPaired() throws Exception {
        // the program's order matters here: B frees dptr#3 before the kernel that writes it ran
        Path b = freesIn(remapped, "frees-early", 13, 3);
        DiffResult r = diff(VECTOR_ADD, b);
        assertFalse(r.same());
        assertEquals(null, r.ignoredCounts().get(Expected.DESTROY_ORDER));
    }
}
