package dev.zluda.diff;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;

/**
 * Test support for the viewer with realistic buffers: the vectorAdd capture recorded on the H200 at level
 * replay ({@code samples/traces/h200/vectorAdd-replay}) made into a run of {@code n} elements (allocations,
 * grid, copies and their data scaled: a[i] = sin(i / 1000), b[i] = cos(i / 1400), c = a + b as f32), and a
 * copy B of it with other handles and addresses and the three planted divergences of {@link PlantedPair}:
 * an extra {@code cuCtxSynchronize} before A's call 12, A's call 14 failing with CUDA_ERROR_ILLEGAL_ADDRESS,
 * and in the copy back (call 15) a band of small errors (elements n/3 .. n/3 + n/64: a few ulps to
 * 1e-4 relative), a block of large ones (n/2 .. n/2 + n/256: + 0.25) and 16 NaNs from 3n/4.
 */
public final class LargePair {
    private LargePair() {}

    /** {@code LargePair H200_VECTORADD_REPLAY DIR N}: writes DIR/A-N and DIR/B-N (for screenshots of the viewer). */
    public static void main(String[] args) throws Exception {
        Path[] p = write(Path.of(args[0]), Path.of(args[1]), Integer.parseInt(args[2]));
        System.out.println(p[0] + " " + p[1]);
    }

    /** A and B written under {@code dir}: {@code [a, b]}. */
    public static Path[] write(Path h200VectorAddReplay, Path dir, int n) throws Exception {
        Path a = Rewrite.copy(h200VectorAddReplay, dir.resolve("A-" + n), scaled(n));
        Path remapped = Rewrite.copy(a, dir.resolve("remapped-" + n), Rewrite.remap());
        Path b = Rewrite.copy(remapped, dir.resolve("B-" + n), new Rewrite.Editor() {
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
                    for (int i = n / 3, k = 0; i < n / 3 + n / 64; i++, k++) {
                        float v = bb.getFloat(4 * i);
                        bb.putFloat(4 * i, v + Math.ulp(v) * (1 + k % 40) + (k % 97 == 0 ? v * 1e-4f : 0));
                    }
                    for (int i = n / 2; i < n / 2 + n / 256; i++) bb.putFloat(4 * i, bb.getFloat(4 * i) + 0.25f);
                    for (int i = 3 * n / 4; i < 3 * n / 4 + 16; i++) bb.putFloat(4 * i, Float.NaN);
                    c.out.set(0, c.blob(0, x));
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            }
        });
        return new Path[] {a, b};
    }

    /** The editor that makes the 1024-element vectorAdd run one of {@code n} elements. */
    private static Rewrite.Editor scaled(int n) {
        long bytes = 4L * n;
        byte[] a = new byte[(int) bytes], b = new byte[(int) bytes], c = new byte[(int) bytes];
        ByteBuffer fa = ByteBuffer.wrap(a).order(ByteOrder.LITTLE_ENDIAN), fb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN),
                fc = ByteBuffer.wrap(c).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            float x = (float) Math.sin(i / 1000.0), y = (float) Math.cos(i / 1400.0);
            fa.putFloat(4 * i, x);
            fb.putFloat(4 * i, y);
            fc.putFloat(4 * i, x + y);
        }
        return new Rewrite.Editor() {
            int htod;

            @Override
            public void enter(Rewrite.Call call) {
                switch (call.function) {
                    case "cuMemAlloc_v2" -> call.args[1] = bytes;
                    case "cuMemcpyHtoD_v2" -> {
                        call.args[2] = bytes;
                        call.in.set(0, call.blob(1, htod++ == 0 ? a : b));
                    }
                    case "cuLaunchKernel" -> call.args[1] = (n + 255) / 256;
                    case "cuMemcpyDtoH_v2" -> call.args[2] = bytes;
                    default -> { }
                }
            }

            @Override
            public void leave(Rewrite.Call call) {
                if (call.function.equals("cuMemcpyDtoH_v2")) call.out.set(0, call.blob(0, c));
            }
        };
    }
}
