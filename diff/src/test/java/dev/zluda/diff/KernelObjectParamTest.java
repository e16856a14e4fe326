package dev.zluda.diff;

import dev.zluda.capture.CaptureFormat;
import dev.zluda.capture.DataItem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Texture objects a kernel receives as parameters compare by what they are ({@code tex#N}, the N-th object the
 * capture created), not by the numbers the drivers chose: NVIDIA's driver gives a destroyed object's number to
 * the next one (NV12toBGRandResize recorded on an NVIDIA H200: objects 1 and 2 destroyed, the next two are 1 and
 * 2 again), zluda's never reuses one (3, 4). The captures are vectorAdd with a kernel snapshot as recorded on the
 * H200 (samples/traces/h200/vectorAdd-kernels) with cuTexObjectCreate/cuTexObjectDestroy calls inserted before
 * the launch and the kernel's first parameter word replaced by an object's value.
 */
class KernelObjectParamTest {
    static final Path VECTOR_ADD_KERNELS = Path.of("..", "samples", "traces", "h200", "vectorAdd-kernels");

    @TempDir
    static Path tmp;

    static DataItem inline(int param, long v) {
        byte[] b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array();
        return new DataItem(param, CaptureFormat.ITEM_INLINE, b, 0, b.length, -1);
    }

    /**
     * Copies vectorAdd-kernels, inserting before its launch a cuTexObjectCreate for each of {@code created} (the
     * value it returns), a cuTexObjectDestroy of the first one when {@code destroyFirst}, and giving the kernel
     * {@code passed} as its first parameter word.
     */
    static Path with(String name, long[] created, boolean destroyFirst, long passed) throws Exception {
        return Rewrite.copy(VECTOR_ADD_KERNELS, tmp.resolve(name), new Rewrite.Editor() {
            boolean done;

            @Override
            public void enter(Rewrite.Call c) {
                if (done || !c.function.startsWith("cuLaunchKernel")) return;
                done = true;
                for (int i = 0; i < created.length; i++) {
                    c.before.add(new Rewrite.Synthetic("cuTexObjectCreate", new long[] {0x7ffc0000_2000L, 0x7ffc0000_3000L, 0, 0}, 0,
                            List.of(inline(0, created[i]))));
                    if (i == 0 && destroyFirst) c.before.add(new Rewrite.Synthetic("cuTexObjectDestroy", new long[] {created[0]}, 0, List.of()));
                }
            }

            @Override
            public byte[] kernelParams(String kernel, byte[] params) {
                ByteBuffer.wrap(params).order(ByteOrder.LITTLE_ENDIAN).putLong(0, passed);
                return params;
            }
        });
    }

    static List<String> argumentDifferences(DiffResult r) {
        return r.divergences().stream().flatMap(d -> d.differences().stream()).filter(x -> x.kind() == DiffKind.ARGUMENT)
                .map(Object::toString).toList();
    }

    @Test
    void aReusedNumberAndAFreshOneAreTheSameObject() throws Exception {
        // NVIDIA: create 1, destroy it, create 1 again and pass it; zluda: create 3, destroy it, create 4 and pass it
        Path a = with("reuse-a", new long[] {1, 1}, true, 1);
        Path b = with("fresh-b", new long[] {3, 4}, true, 4);
        DiffResult r = DiffEngine.diff(a, b, DiffOptions.defaults());
        assertEquals(List.of(), argumentDifferences(r));
        assertTrue(r.same(), () -> r.divergences().toString());
    }

    @Test
    void anotherObjectIsADifference() throws Exception {
        // both create two objects and keep them; A passes its second, B its first
        Path a = with("two-a", new long[] {1, 2}, false, 2);
        Path b = with("two-b", new long[] {3, 4}, false, 3);
        DiffResult r = DiffEngine.diff(a, b, DiffOptions.defaults());
        assertFalse(r.same());
        List<String> args = argumentDifferences(r);
        assertEquals(1, args.size(), args::toString);
        assertTrue(args.getFirst().contains("parameter 0"), args.getFirst());
    }

    @Test
    void theSameObjectUnderOtherNumbersIsNotADifference() throws Exception {
        Path a = with("two-a2", new long[] {1, 2}, false, 2);
        Path b = with("two-b2", new long[] {3, 4}, false, 4);
        DiffResult r = DiffEngine.diff(a, b, DiffOptions.defaults());
        assertEquals(List.of(), argumentDifferences(r));
    }
}
