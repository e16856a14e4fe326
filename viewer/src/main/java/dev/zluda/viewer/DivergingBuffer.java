package dev.zluda.viewer;

import dev.zluda.diff.DiffResult;
import dev.zluda.diff.ElementType;

import java.io.IOException;

/**
 * The two sides of a buffer that differs between capture A (the reference) and capture B, as the
 * two-capture window draws it: A's image, B's image and their difference ({@link BufferImages}).
 *
 * @param label what the buffer is, e.g. {@code dstHost ← srcDevice dptr#3+0x0 (call 15)}
 * @param type how its elements are read (the element type the diff compared them as)
 * @param a A's bytes (little-endian elements)
 * @param b B's bytes
 */
public record DivergingBuffer(String label, ElementType type, byte[] a, byte[] b) {

    /**
     * Where the bytes of a diverging buffer come from: one adapter per kind of data divergence. The
     * window asks each registered source in turn ({@link DiffWindow#addBufferSource}); the first
     * that {@link #handles} a difference reads it. Today: {@link CopyBuffers} (the data of an API
     * call: device-to-host copies, host-to-device payloads) and {@link KernelAfterImages} (a kernel
     * snapshot's buffers after the launch). Called on a background thread.
     */
    public interface Source {
        /** Whether this source reads the buffers of difference {@code f} of divergence {@code d}. */
        boolean handles(DiffResult.Divergence d, DiffResult.Difference f);

        /**
         * Reads both sides.
         *
         * @throws IOException with a sentence saying why when a capture cannot be read or does not
         *     hold the bytes (e.g. only a hash was recorded)
         */
        DivergingBuffer read(DiffResult.Divergence d, DiffResult.Difference f) throws IOException;
    }
}
