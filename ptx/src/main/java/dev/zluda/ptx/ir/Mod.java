package dev.zluda.ptx.ir;

import dev.zluda.ptx.PtxType;

import java.util.EnumMap;
import java.util.Map;

/**
 * One instruction modifier, typed: what a dotted word after the opcode means for that opcode (PTX ISA 9.0,
 * chapter 9.7, each instruction's "Syntax"). {@link IrBuilder} decodes every word once; the back ends only
 * compare typed values. A word means different things for different opcodes ({@code .and} is a Boolean
 * operator of {@code setp} but a reduction of {@code atom}; {@code .hi} a comparison of {@code setp} but the
 * upper half of {@code mul}; {@code .b} a texture component of {@code tld4}, a fragment of {@code wmma} and the
 * access kind of {@code suld}): {@link IrBuilder#decode} says which.
 *
 * <p>{@link #text()} is the word as PTX spells it (with its dot), for diagnostics.
 */
public sealed interface Mod
        permits Mod.Type, Mod.Vector, Mod.Shape, Mod.Count, Mod.MmaKind, Mod.Other, Mod.Rounding, Mod.Compare,
        Mod.BoolOp, Mod.ReduceOp, Mod.StateSpace, Mod.MemOrder, Mod.Scope, Mod.CacheOp, Mod.CacheHint,
        Mod.ShflMode, Mod.VoteMode, Mod.Layout, Mod.Fragment, Mod.Component, Mod.Geometry, Mod.PrmtMode,
        Mod.TestClass, Mod.ShiftMode, Mod.ShiftDir, Mod.SurfaceAccess, Mod.SurfaceOob, Mod.Flag {

    /** The word as written, with its dot ({@code ".rn"}, {@code ".m16n8k16"}). */
    String text();

    // ------------------------------------------------------------------ valued modifiers

    /** An instruction type ({@code .u32}, {@code .f16x2}, {@code .pred}; PTX ISA 9.0, 5.2). */
    record Type(PtxType type) implements Mod {
        private static final Map<PtxType, Type> ALL = new EnumMap<>(PtxType.class);

        static {
            for (PtxType t : PtxType.values()) ALL.put(t, new Type(t));
        }

        /** The modifier of type {@code t}. */
        public static Type of(PtxType t) {
            return ALL.get(t);
        }

        @Override public String text() { return type.ptxName(); }
    }

    /** A vector width {@code .v2 .v4 .v8} (ld, st, atom, red, mov, tex, suld, sust). */
    record Vector(int n) implements Mod {
        @Override public String text() { return ".v" + n; }
    }

    /**
     * A matrix shape {@code .mMnNkK} of mma and wmma (k present) or {@code .mMnN} of ldmatrix, stmatrix and
     * movmatrix ({@code k} 0), PTX ISA 9.0, 9.7.14.
     */
    record Shape(int m, int n, int k) implements Mod {
        public static final Shape M16N8K8 = new Shape(16, 8, 8), M16N8K16 = new Shape(16, 8, 16),
                M16N8K32 = new Shape(16, 8, 32), M16N16K16 = new Shape(16, 16, 16), M8N8 = new Shape(8, 8, 0);

        @Override public String text() { return ".m" + m + "n" + n + (k > 0 ? "k" + k : ""); }
    }

    /** The number of matrices {@code .x1 .x2 .x4} of ldmatrix and stmatrix (PTX ISA 9.0, 9.7.14.5.15). */
    record Count(int n) implements Mod {
        @Override public String text() { return ".x" + n; }
    }

    /** {@code .kind::NAME} of the block-scaled and narrow-format mma forms (PTX ISA 9.0, 9.7.14.5.14). */
    record MmaKind(String name) implements Mod {
        @Override public String text() { return ".kind::" + name; }
    }

    /**
     * A word no back end gives a meaning of its own: the words of a family's key ({@code .async} of
     * {@code cp.async}), tensor and bulk-copy qualifiers, and whatever the ISA adds; kept so that a back end
     * can tell "only these modifiers" apart from "these and more".
     */
    record Other(String text) implements Mod {}

    // ------------------------------------------------------------------ enumerated modifiers

    /** Rounding modifiers (PTX ISA 9.0, 9.7.3: {@code .rn .rz .rm .rp}; cvt: {@code .rni .rzi .rmi .rpi .rna .rs}). */
    enum Rounding implements Mod {
        RN(".rn"), RZ(".rz"), RM(".rm"), RP(".rp"), RNA(".rna"), RS(".rs"), RNI(".rni"), RZI(".rzi"), RMI(".rmi"), RPI(".rpi");

        private final String text;
        Rounding(String text) { this.text = text; }
        @Override public String text() { return text; }

        /** {@code .rni .rzi .rmi .rpi}: rounding to an integral value (cvt, PTX ISA 9.0, 9.7.9.21). */
        public boolean integral() { return this == RNI || this == RZI || this == RMI || this == RPI; }

        /** {@code .rz .rm .rp}: the directed modes. */
        public boolean directed() { return this == RZ || this == RM || this == RP; }
    }

    /** Comparison operators of setp and set (PTX ISA 9.0, 9.7.6.1, tables "Operators for signed/unsigned/float"). */
    enum Compare implements Mod {
        EQ(".eq"), NE(".ne"), LT(".lt"), LE(".le"), GT(".gt"), GE(".ge"), LO(".lo"), LS(".ls"), HI(".hi"), HS(".hs"),
        EQU(".equ"), NEU(".neu"), LTU(".ltu"), LEU(".leu"), GTU(".gtu"), GEU(".geu"), NUM(".num"), NAN(".nan");

        private final String text;
        Compare(String text) { this.text = text; }
        @Override public String text() { return text; }
    }

    /** The Boolean operator combining setp's or set's result with a predicate, or lop3's (PTX ISA 9.0, 9.7.6, 9.7.8.6). */
    enum BoolOp implements Mod {
        AND(".and"), OR(".or"), XOR(".xor");

        private final String text;
        BoolOp(String text) { this.text = text; }
        @Override public String text() { return text; }
    }

    /** The operation of atom, red, redux.sync, bar.red and multimem (PTX ISA 9.0, 9.7.13.5, 9.7.13.6, 9.7.13.11). */
    enum ReduceOp implements Mod {
        ADD(".add"), MIN(".min"), MAX(".max"), INC(".inc"), DEC(".dec"), AND(".and"), OR(".or"), XOR(".xor"),
        EXCH(".exch"), CAS(".cas"), POPC(".popc");

        private final String text;
        ReduceOp(String text) { this.text = text; }
        @Override public String text() { return text; }
    }

    /** State spaces (PTX ISA 9.0, 5.1), as instruction modifiers and as the space of a declared variable. */
    enum StateSpace implements Mod {
        GLOBAL(".global"), SHARED(".shared"), SHARED_CTA(".shared::cta"), SHARED_CLUSTER(".shared::cluster"),
        LOCAL(".local"), PARAM(".param"), PARAM_ENTRY(".param::entry"), PARAM_FUNC(".param::func"), CONST(".const"),
        GENERIC(".generic"), TEX(".tex"), REG(".reg"), SREG(".sreg");

        private final String text;
        StateSpace(String text) { this.text = text; }
        @Override public String text() { return text; }

        /** The space a declaration names ({@code ".shared"}), or null. */
        public static StateSpace of(String text) {
            for (StateSpace s : values()) if (s.text.equals(text)) return s;
            return null;
        }
    }

    /** Memory-consistency qualifiers (PTX ISA 9.0, 8.4 and the ld/st/atom/fence syntax). */
    enum MemOrder implements Mod {
        WEAK(".weak"), RELAXED(".relaxed"), ACQUIRE(".acquire"), RELEASE(".release"), ACQ_REL(".acq_rel"), SC(".sc"),
        VOLATILE(".volatile"), MMIO(".mmio");

        private final String text;
        MemOrder(String text) { this.text = text; }
        @Override public String text() { return text; }
    }

    /** Scopes (PTX ISA 9.0, 8.5) and membar's levels ({@code .gl} is the GPU level). */
    enum Scope implements Mod {
        CTA(".cta"), CLUSTER(".cluster"), GPU(".gpu"), SYS(".sys"), GL(".gl");

        private final String text;
        Scope(String text) { this.text = text; }
        @Override public String text() { return text; }
    }

    /** Cache operators of ld and st (PTX ISA 9.0, 9.7.9.1). */
    enum CacheOp implements Mod {
        CA(".ca"), CG(".cg"), CS(".cs"), LU(".lu"), CV(".cv"), WB(".wb"), WT(".wt");

        private final String text;
        CacheOp(String text) { this.text = text; }
        @Override public String text() { return text; }
    }

    /** Eviction priorities, cache-policy hints and prefetch sizes (PTX ISA 9.0, 9.7.9.8, 9.7.9.25). */
    enum CacheHint implements Mod {
        L2_CACHE_HINT(".L2::cache_hint"), L1_EVICT_NORMAL(".L1::evict_normal"), L1_EVICT_UNCHANGED(".L1::evict_unchanged"),
        L1_EVICT_FIRST(".L1::evict_first"), L1_EVICT_LAST(".L1::evict_last"), L1_NO_ALLOCATE(".L1::no_allocate"),
        L2_EVICT_NORMAL(".L2::evict_normal"), L2_EVICT_FIRST(".L2::evict_first"), L2_EVICT_LAST(".L2::evict_last"),
        L2_64B(".L2::64B"), L2_128B(".L2::128B"), L2_256B(".L2::256B");

        private final String text;
        CacheHint(String text) { this.text = text; }
        @Override public String text() { return text; }
    }

    /** shfl modes (PTX ISA 9.0, 9.7.9.6). */
    enum ShflMode implements Mod {
        UP(".up"), DOWN(".down"), BFLY(".bfly"), IDX(".idx");

        private final String text;
        ShflMode(String text) { this.text = text; }
        @Override public String text() { return text; }
    }

    /** vote modes (PTX ISA 9.0, 9.7.13.9) and match's {@code .any .all} (9.7.13.10). */
    enum VoteMode implements Mod {
        ALL(".all"), ANY(".any"), UNI(".uni"), BALLOT(".ballot");

        private final String text;
        VoteMode(String text) { this.text = text; }
        @Override public String text() { return text; }
    }

    /** Matrix layouts {@code .row .col} (mma, wmma; PTX ISA 9.0, 9.7.14). */
    enum Layout implements Mod {
        ROW(".row"), COL(".col");

        private final String text;
        Layout(String text) { this.text = text; }
        @Override public String text() { return text; }
    }

    /** wmma.load/store fragments {@code .a .b .c .d} (PTX ISA 9.0, 9.7.14.4). */
    enum Fragment implements Mod {
        A(".a"), B(".b"), C(".c"), D(".d");

        private final String text;
        Fragment(String text) { this.text = text; }
        @Override public String text() { return text; }
    }

    /** tld4's component {@code .r .g .b .a} (PTX ISA 9.0, 9.7.10.4). */
    enum Component implements Mod {
        R(".r"), G(".g"), B(".b"), A(".a");

        private final String text;
        Component(String text) { this.text = text; }
        @Override public String text() { return text; }
    }

    /** Texture and surface geometries (PTX ISA 9.0, 9.7.10.3). */
    enum Geometry implements Mod {
        D1(".1d", 1), D2(".2d", 2), D3(".3d", 3), A1D(".a1d", 0), A2D(".a2d", 0), CUBE(".cube", 0), ACUBE(".acube", 0),
        D2MS(".2dms", 0), A2DMS(".a2dms", 0);

        private final String text;
        private final int dims;
        Geometry(String text, int dims) { this.text = text; this.dims = dims; }
        @Override public String text() { return text; }

        /** 1, 2 or 3 for the plain geometries, 0 for arrays, cube maps and multisample ones. */
        public int dims() { return dims; }
    }

    /** prmt's modes (PTX ISA 9.0, 9.7.9.7). */
    enum PrmtMode implements Mod {
        F4E(".f4e"), B4E(".b4e"), RC8(".rc8"), ECL(".ecl"), ECR(".ecr"), RC16(".rc16");

        private final String text;
        PrmtMode(String text) { this.text = text; }
        @Override public String text() { return text; }
    }

    /** testp's classes (PTX ISA 9.0, 9.7.3.2). */
    enum TestClass implements Mod {
        FINITE(".finite"), INFINITE(".infinite"), NUMBER(".number"), NOTANUMBER(".notanumber"), NORMAL(".normal"),
        SUBNORMAL(".subnormal");

        private final String text;
        TestClass(String text) { this.text = text; }
        @Override public String text() { return text; }
    }

    /** {@code .wrap .clamp} of shf, bmsk and szext (PTX ISA 9.0, 9.7.8.7, 9.7.1.22, 9.7.1.21). */
    enum ShiftMode implements Mod {
        WRAP(".wrap"), CLAMP(".clamp");

        private final String text;
        ShiftMode(String text) { this.text = text; }
        @Override public String text() { return text; }
    }

    /** shf's direction {@code .l .r} (PTX ISA 9.0, 9.7.8.7). */
    enum ShiftDir implements Mod {
        L(".l"), R(".r");

        private final String text;
        ShiftDir(String text) { this.text = text; }
        @Override public String text() { return text; }
    }

    /** suld/sust/sured access kind: {@code .b} (raw bits) or {@code .p} (formatted), PTX ISA 9.0, 9.7.11. */
    enum SurfaceAccess implements Mod {
        B(".b"), P(".p");

        private final String text;
        SurfaceAccess(String text) { this.text = text; }
        @Override public String text() { return text; }
    }

    /** suld/sust out-of-bounds handling {@code .trap .clamp .zero} (PTX ISA 9.0, 9.7.11.1). */
    enum SurfaceOob implements Mod {
        TRAP(".trap"), CLAMP(".clamp"), ZERO(".zero");

        private final String text;
        SurfaceOob(String text) { this.text = text; }
        @Override public String text() { return text; }
    }

    /** The remaining one-word modifiers, each with one meaning wherever it appears. */
    enum Flag implements Mod {
        FTZ(".ftz"), SAT(".sat"), SATFINITE(".satfinite"), APPROX(".approx"), FULL(".full"), RELU(".relu"), NAN(".NaN"),
        XORSIGN(".xorsign"), ABS(".abs"), OOB(".oob"), NOFTZ(".noftz"), WIDE(".wide"), HI(".hi"), LO(".lo"), CC(".cc"),
        SYNC(".sync"), ALIGNED(".aligned"), WAIT(".wait"), UNI(".uni"), TO(".to"), NC(".nc"), TRANS(".trans"), SHIFTAMT(".shiftamt"),
        PARITY(".parity"), EXPECT_TX(".expect_tx"), NO_COMPLETE(".noComplete"), PROXY(".proxy"),
        MBARRIER_INIT(".mbarrier_init"), WARP(".warp"), RED(".red"), ARRIVE(".arrive"), PACK(".pack"), SP(".sp"),
        SP_ORDERED_METADATA(".sp::ordered_metadata"), BLOCK_SCALE(".block_scale");

        private final String text;
        Flag(String text) { this.text = text; }
        @Override public String text() { return text; }
    }
}
