package dev.zluda.diff;

import dev.zluda.replay.BufferDescriber;

import java.util.List;

/**
 * How {@code zluda replay} (a whole-capture replay, {@link dev.zluda.replay.CaptureReplay}) words a
 * buffer that came out different: as {@code zluda diff} words a data difference ({@link Describe}),
 * recorded image as A, replayed as B, compared bit for bit (no tolerance: a replay is identical or
 * not). A buffer the kernel's PTX types is compared as that type; an untyped one (a copy back from
 * memory no kernel typed) gives the count of differing bytes and two readings of it, as f32 and as
 * i32, so that floats that differ in their last bits show as such rather than as bytes.
 */
public final class ReplayBuffers implements BufferDescriber {
    /** The one instance (stateless). */
    public static final ReplayBuffers INSTANCE = new ReplayBuffers();

    private ReplayBuffers() {}

    /**
     * {@code 65536 bytes copied to the host (cupy_exp_param_1; f32; recorded vs replayed): f32 element 3 (byte
     * offset 0xc): 1.1 vs 1.1000001; 4582 of 16384 elements differ, max |Δ| 7.6e-06, max rel 1.2e-7, max 1 ulp},
     * or for an untyped buffer {@code ... (element type not known from the PTX; recorded vs replayed): 12 of 64
     * bytes differ; read as f32: ...; read as i32: ...}.
     */
    @Override
    public String describe(String what, byte[] recorded, byte[] replayed, dev.zluda.replay.ElementType type, List<String> params) {
        ElementType t = type == dev.zluda.replay.ElementType.BYTES ? null : ElementTypes.forPtx(type.ptx()).orElse(null);
        String who = params.isEmpty() ? "" : String.join(", ", params) + "; ";
        if (t != null) {
            DiffResult.DataDiff dd = DiffEngine.compareBuffers(what, recorded, replayed, t, Tolerance.EXACT, true, false);
            return what + " (" + who + t.name() + "; recorded vs replayed): " + (dd == null ? "bytes differ" : Describe.dataBody(dd));
        }
        StringBuilder sb = new StringBuilder(what).append(" (").append(who).append("element type not known from the PTX; recorded vs replayed): ");
        DiffResult.DataDiff bytes = DiffEngine.compareBuffers(what, recorded, replayed, ElementTypes.U8, Tolerance.EXACT, true, false);
        long n = bytes == null ? 0 : bytes.differing();
        sb.append(n).append(" of ").append(recorded.length).append(n == 1 ? " bytes differs" : " bytes differ");
        if (recorded.length >= 4 && recorded.length == replayed.length) {
            for (ElementType view : List.of(ElementTypes.F32, ElementTypes.I32)) {
                DiffResult.DataDiff dd = DiffEngine.compareBuffers(what, recorded, replayed, view, Tolerance.EXACT, true, false);
                if (dd != null) sb.append("; read as ").append(view.name()).append(": ").append(Describe.dataBody(dd));
            }
        } else if (bytes != null) {
            sb.append("; first at byte ").append(bytes.firstElement()).append(": ").append(bytes.a()).append(" vs ").append(bytes.b());
        }
        return sb.toString();
    }
}
