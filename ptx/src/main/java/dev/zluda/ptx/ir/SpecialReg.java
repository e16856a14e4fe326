package dev.zluda.ptx.ir;

/**
 * The special registers of PTX ISA 9.0, chapter 10, and the predefined constant {@code WARP_SZ} (4.3.2). The
 * indexed ones ({@code %envreg0..31}, {@code %pm0..7}, {@code %pm0_64..%pm7_64}, {@code %reserved_smem_offset_0/1})
 * carry their index in {@link Operand.Special#index()}.
 */
public enum SpecialReg {
    TID("%tid", true), NTID("%ntid", true), CTAID("%ctaid", true), NCTAID("%nctaid", true),
    CLUSTERID("%clusterid", true), NCLUSTERID("%nclusterid", true), CLUSTER_CTAID("%cluster_ctaid", true),
    CLUSTER_NCTAID("%cluster_nctaid", true),
    LANEID("%laneid"), WARPID("%warpid"), NWARPID("%nwarpid"), SMID("%smid"), NSMID("%nsmid"), GRIDID("%gridid"),
    LANEMASK_EQ("%lanemask_eq"), LANEMASK_LE("%lanemask_le"), LANEMASK_LT("%lanemask_lt"), LANEMASK_GE("%lanemask_ge"),
    LANEMASK_GT("%lanemask_gt"),
    CLOCK("%clock"), CLOCK_HI("%clock_hi"), CLOCK64("%clock64"),
    GLOBALTIMER("%globaltimer"), GLOBALTIMER_LO("%globaltimer_lo"), GLOBALTIMER_HI("%globaltimer_hi"),
    TOTAL_SMEM_SIZE("%total_smem_size"), AGGR_SMEM_SIZE("%aggr_smem_size"), DYNAMIC_SMEM_SIZE("%dynamic_smem_size"),
    RESERVED_SMEM_OFFSET_BEGIN("%reserved_smem_offset_begin"), RESERVED_SMEM_OFFSET_END("%reserved_smem_offset_end"),
    RESERVED_SMEM_OFFSET_CAP("%reserved_smem_offset_cap"), RESERVED_SMEM_OFFSET_N("%reserved_smem_offset_"),
    CURRENT_GRAPH_EXEC("%current_graph_exec"), IS_EXPLICIT_CLUSTER("%is_explicit_cluster"),
    CLUSTER_CTARANK("%cluster_ctarank"), CLUSTER_NCTARANK("%cluster_nctarank"),
    ENVREG("%envreg"), PM("%pm"), PM64("%pm"),
    /** {@code WARP_SZ}: not a register but a constant (the warp size) the ISA predefines. */
    WARP_SZ("WARP_SZ");

    private final String prefix;
    private final boolean vector;

    SpecialReg(String prefix) { this(prefix, false); }

    SpecialReg(String prefix, boolean vector) {
        this.prefix = prefix;
        this.vector = vector;
    }

    /** Whether it takes a {@code .x/.y/.z} component ({@code %tid.x}). */
    public boolean vector() { return vector; }

    /** The name as written for this index ({@code %envreg3}, {@code %pm2_64}, {@code %tid}). */
    public String name(int index) {
        return switch (this) {
            case ENVREG, PM, RESERVED_SMEM_OFFSET_N -> prefix + index;
            case PM64 -> prefix + index + "_64";
            default -> prefix;
        };
    }

    /** The special register a name denotes: {@code {SpecialReg, index}}, or null when it is none. */
    public static Object[] of(String name) {
        for (SpecialReg r : values()) {
            switch (r) {
                case ENVREG, PM, PM64, RESERVED_SMEM_OFFSET_N -> {}
                default -> { if (r.prefix.equals(name)) return new Object[] {r, 0}; }
            }
        }
        for (int i = 0; i < 32; i++) if (name.equals("%envreg" + i)) return new Object[] {ENVREG, i};
        for (int i = 0; i < 8; i++) {
            if (name.equals("%pm" + i)) return new Object[] {PM, i};
            if (name.equals("%pm" + i + "_64")) return new Object[] {PM64, i};
        }
        for (int i = 0; i < 2; i++) if (name.equals("%reserved_smem_offset_" + i)) return new Object[] {RESERVED_SMEM_OFFSET_N, i};
        return null;
    }
}
