package dev.zluda.replay;

import java.util.List;

/**
 * Says how a replayed buffer differs from the recorded one, for a whole-capture replay's report
 * ({@link CaptureReplay}). It only describes: the replay has already found that the two images'
 * bytes differ (the verdict is bit for bit, never within a tolerance) before it asks.
 * {@link #PLAIN} is the replayer's own wording ({@link BufferVerdict#text()}); {@code zluda replay}
 * passes the one {@code zluda diff} presents buffer differences with
 * ({@code dev.zluda.diff.ReplayBuffers}), which also reads untyped buffers as f32 and i32.
 */
@FunctionalInterface
public interface BufferDescriber {
    /**
     * One line: {@code what}, then how the images differ.
     *
     * @param what     which buffer, e.g. {@code 65536 bytes copied to the host}
     * @param recorded the recorded image
     * @param replayed the replay's image, as long as {@code recorded}; its bytes differ from it
     * @param type     the element type the kernel's PTX gives the buffer, {@link ElementType#BYTES} when not known
     * @param params   the kernel parameters that pointed into the buffer (empty when not known)
     */
    String describe(String what, byte[] recorded, byte[] replayed, ElementType type, List<String> params);

    /** {@code what: 3 of 5000 f32 elements differ; first at byte 16 (element 4): recorded 1.0, replayed 2.0; max |Δ| 1, ...} */
    BufferDescriber PLAIN = (what, recorded, replayed, type, params) -> what + ": " + BufferVerdict.compare(recorded, replayed, type).text();
}
