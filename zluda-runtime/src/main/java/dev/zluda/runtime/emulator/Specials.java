package dev.zluda.runtime.emulator;

import dev.zluda.ptx.ir.SpecialReg;

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

    /**
     * The kind of a special register operand ({@code %tid} with component 0 for {@code .x}; -1 for none, which
     * reads as {@code .x}), or -1 when the emulator has no slot for it (timers are {@link Ops.Timer}s).
     */
    static int kind(SpecialReg r, int component) {
        int c = component < 0 ? 0 : component > 2 ? -1 : component;
        if (c < 0) return -1;
        return switch (r) {
            case TID -> TID_X + c;
            case NTID -> NTID_X + c;
            case CTAID -> CTAID_X + c;
            case NCTAID -> NCTAID_X + c;
            case LANEID -> LANEID;
            case WARPID -> WARPID;
            case NWARPID -> NWARPID;
            case SMID -> SMID;
            case NSMID -> NSMID;
            case GRIDID -> GRIDID;
            case LANEMASK_EQ -> LANEMASK_EQ;
            case LANEMASK_LE -> LANEMASK_LE;
            case LANEMASK_LT -> LANEMASK_LT;
            case LANEMASK_GE -> LANEMASK_GE;
            case LANEMASK_GT -> LANEMASK_GT;
            case DYNAMIC_SMEM_SIZE -> DYNAMIC_SMEM;
            case TOTAL_SMEM_SIZE, AGGR_SMEM_SIZE -> TOTAL_SMEM;
            // no clusters: every CTA is its own cluster of one (PTX ISA 10.13-10.21)
            case CLUSTERID -> CTAID_X + c;
            case NCLUSTERID -> NCTAID_X + c;
            case CLUSTER_CTAID, CLUSTER_CTARANK, IS_EXPLICIT_CLUSTER, RESERVED_SMEM_OFFSET_BEGIN, RESERVED_SMEM_OFFSET_END,
                 RESERVED_SMEM_OFFSET_CAP, RESERVED_SMEM_OFFSET_N, CURRENT_GRAPH_EXEC, ENVREG, PM, PM64 -> ZERO;
            case CLUSTER_NCTAID, CLUSTER_NCTARANK -> ONE;
            default -> -1;
        };
    }

    /** Whether the value changes from CTA to CTA. */
    static boolean perCta(int kind) {
        return kind == CTAID_X || kind == CTAID_Y || kind == CTAID_Z || kind == SMID;
    }
}
