package dev.zluda.spec;

import net.jpountz.xxhash.XXHashFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The hash of the driver API spec a program was built against: XXH64 (seed 0) of the resources
 * {@code cuda-api.json} then {@code cuda-api-overlay.yaml}, byte for byte. Every capture header
 * carries it ({@code specHash}, trace-format/FORMAT.md §3.1), and the NVIDIA tracer is compiled
 * with it, so that a capture says which spec its function ids and parameter layouts come from.
 */
public final class SpecHash {
    private SpecHash() {}

    private static volatile Long hash;

    /**
     * The hash of the spec on the class path (computed once).
     *
     * @throws UncheckedIOException when the spec resources cannot be read
     */
    public static long of() {
        Long h = hash;
        if (h == null) {
            try (InputStream a = CudaApi.class.getResourceAsStream("/dev/zluda/spec/cuda-api.json");
                 InputStream b = CudaApi.class.getResourceAsStream("/dev/zluda/spec/cuda-api-overlay.yaml")) {
                if (a == null || b == null) throw new IOException("spec resources missing from the classpath");
                byte[] x = a.readAllBytes(), y = b.readAllBytes();
                byte[] all = new byte[x.length + y.length];
                System.arraycopy(x, 0, all, 0, x.length);
                System.arraycopy(y, 0, all, x.length, y.length);
                h = XXHashFactory.fastestJavaInstance().hash64().hash(all, 0, all.length, 0);
                hash = h;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return h;
    }
}
