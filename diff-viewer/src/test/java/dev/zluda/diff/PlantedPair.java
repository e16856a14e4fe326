package dev.zluda.diff;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;

/**
 * Test support for the viewer: capture B made from the vectorAdd capture recorded on the H200
 * ({@code samples/traces/h200/vectorAdd-replay}, 20 calls) with other handle and pointer values
 * and three planted divergences: an extra {@code cuCtxSynchronize} before A's call 12 (B's 12),
 * A's call 14 ({@code cuCtxSynchronize}) failing with CUDA_ERROR_ILLEGAL_ADDRESS (700), and in A's
 * call 15 ({@code cuMemcpyDtoH_v2}, 1024 f32) element 100 larger by 0.5 and element 700 NaN.
 */
public final class PlantedPair {
    private PlantedPair() {}

    /** {@code PlantedPair H200_VECTORADD_REPLAY DIR}: writes B under DIR (for screenshots of the viewer). */
    public static void main(String[] args) throws Exception {
        System.out.println(write(Path.of(args[0]), Path.of(args[1])));
    }

    /** Writes B under {@code dir} and returns it. */
    public static Path write(Path a, Path dir) throws Exception {
        Path remapped = Rewrite.copy(a, dir.resolve("remapped"), Rewrite.remap());
        return Rewrite.copy(remapped, dir.resolve("planted"), new Rewrite.Editor() {
            @Override
            public void enter(Rewrite.Call c) {
                if (c.ordinal == 12) c.before.add(new Rewrite.Synthetic("cuCtxSynchronize", new long[0], 0, List.of()));
            }

            @Override
            public void leave(Rewrite.Call c) {
                if (c.ordinal == 14) c.result = 700;
                if (c.ordinal != 15) return;
                try {
                    byte[] x = Rewrite.blobBytes(c, c.out.getFirst()).clone();
                    ByteBuffer bb = ByteBuffer.wrap(x).order(ByteOrder.LITTLE_ENDIAN);
                    bb.putFloat(100 * 4, bb.getFloat(100 * 4) + 0.5f);
                    bb.putFloat(700 * 4, Float.NaN);
                    c.out.set(0, c.blob(0, x));
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            }
        });
    }

    /** Writes under {@code dir} a copy of {@code a} with other handle values whose call {@code launch} returns CUDA_ERROR_LAUNCH_FAILED (719). */
    public static Path failingCall(Path a, Path dir, long launch) throws Exception {
        Path remapped = Rewrite.copy(a, dir.resolve("remapped"), Rewrite.remap());
        return Rewrite.copy(remapped, dir.resolve("failing"), new Rewrite.Editor() {
            @Override
            public void leave(Rewrite.Call c) {
                if (c.ordinal == launch) c.result = 719;
            }
        });
    }
}
