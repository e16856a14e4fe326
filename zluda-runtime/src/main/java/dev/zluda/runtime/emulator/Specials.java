package dev.zluda.runtime.emulator;

/**
 * The special registers (PTX ISA 9.0, chapter 10) the emulator provides, as kinds of preloaded
 * register slots. Timers ({@code %clock}, {@code %globaltimer}) are not slots: the translator turns
 * reads of them into {@link Ops.Timer}.
 */
final class Specials {
    private Specials() {}

    /**
     * What an NVIDIA H200 answers (recorded, conformance data texture.bin.gz): {@code %nwarpid} is 64 (warp
     * slots per SM), {@code %nsmid} 132; {@code %total_smem_size} is the CTA's static plus dynamic shared
     * memory rounded up to {@link #SMEM_GRANULE} bytes (256 static + 1000 dynamic gave 1280; 256 gave 256).
     * The emulator's {@code %warpid} is the warp's index in its CTA and {@code %smid} the index of the
     * worker thread running the CTA, both below these bounds as on hardware; {@code %envreg0..31} read 0
     * (the H200's driver sets a few of them to values of its own).
     */
    static final int H200_NWARPID = 64, H200_NSMID = 132, SMEM_GRANULE = 128;

    static final int TID_X = 0, TID_Y = 1, TID_Z = 2, NTID_X = 3, NTID_Y = 4, NTID_Z = 5,
            CTAID_X = 6, CTAID_Y = 7, CTAID_Z = 8, NCTAID_X = 9, NCTAID_Y = 10, NCTAID_Z = 11,
            LANEID = 12, WARPID = 13, NWARPID = 14, SMID = 15, NSMID = 16, GRIDID = 17,
            LANEMASK_EQ = 18, LANEMASK_LE = 19, LANEMASK_LT = 20, LANEMASK_GE = 21, LANEMASK_GT = 22,
            DYNAMIC_SMEM = 23, TOTAL_SMEM = 24, ZERO = 25, ONE = 26;

    /** The kind of a special register operand ({@code %tid} with component {@code .x}), or -1. */
    static int kind(String name, String component) {
        int c = component == null ? 0 : switch (component) {
            case ".x" -> 0;
            case ".y" -> 1;
            case ".z" -> 2;
            default -> -1;
        };
        if (c < 0) return -1;
        return switch (name) {
            case "%tid" -> TID_X + c;
            case "%ntid" -> NTID_X + c;
            case "%ctaid" -> CTAID_X + c;
            case "%nctaid" -> NCTAID_X + c;
            case "%laneid" -> LANEID;
            case "%warpid" -> WARPID;
            case "%nwarpid" -> NWARPID;
            case "%smid" -> SMID;
            case "%nsmid" -> NSMID;
            case "%gridid" -> GRIDID;
            case "%lanemask_eq" -> LANEMASK_EQ;
            case "%lanemask_le" -> LANEMASK_LE;
            case "%lanemask_lt" -> LANEMASK_LT;
            case "%lanemask_ge" -> LANEMASK_GE;
            case "%lanemask_gt" -> LANEMASK_GT;
            case "%dynamic_smem_size" -> DYNAMIC_SMEM;
            case "%total_smem_size", "%aggr_smem_size" -> TOTAL_SMEM;
            // no clusters: every CTA is its own cluster of one (PTX ISA 10.13-10.21)
            case "%clusterid" -> CTAID_X + c;
            case "%nclusterid" -> NCTAID_X + c;
            case "%cluster_ctaid", "%cluster_ctarank", "%is_explicit_cluster", "%reserved_smem_offset_begin",
                 "%reserved_smem_offset_end", "%reserved_smem_offset_cap", "%reserved_smem_offset_0",
                 "%reserved_smem_offset_1", "%current_graph_exec" -> ZERO;
            case "%cluster_nctaid", "%cluster_nctarank" -> ONE;
            default -> name.startsWith("%envreg") || name.startsWith("%pm") ? ZERO : -1;
        };
    }

    /** Whether the value changes from CTA to CTA. */
    static boolean perCta(int kind) {
        return kind == CTAID_X || kind == CTAID_Y || kind == CTAID_Z || kind == SMID;
    }
}
