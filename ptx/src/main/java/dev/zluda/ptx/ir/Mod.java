package dev.zluda.ptx.ir;

import dev.zluda.ptx.PtxType;

import java.util.EnumMap;
import java.util.Locale;
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
        permits Mod.Type, Mod.Vector, Mod.Shape, Mod.Count, Mod.MmaKind, Mod.Other, Mod.Word, Mod.StateSpace,
        Mod.CacheHint, Mod.Geometry, Mod.Flag {

    /** The word as written, with its dot ({@code ".rn"}, {@code ".m16n8k16"}). */
    String text();

    /** A modifier spelled as its constant's name in lower case after a dot ({@code RN} is {@code .rn}). */
    sealed interface Word extends Mod
            permits Rounding, Compare, BoolOp, ReduceOp, MemOrder, Scope, CacheOp, ShflMode, VoteMode, Layout, Fragment,
            Component, PrmtMode, TestClass, ShiftMode, ShiftDir, SurfaceAccess, SurfaceOob {
        /** The constant's name. */
        String name();

        @Override default String text() { return "." + name().toLowerCase(Locale.ROOT); }
    }

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
    enum Rounding implements Word {
        RN, RZ, RM, RP, RNA, RS, RNI, RZI, RMI, RPI;

        /** {@code .rni .rzi .rmi .rpi}: rounding to an integral value (cvt, PTX ISA 9.0, 9.7.9.21). */
        public boolean integral() { return this == RNI || this == RZI || this == RMI || this == RPI; }

        /** {@code .rz .rm .rp}: the directed modes. */
        public boolean directed() { return this == RZ || this == RM || this == RP; }
    }

    /** Comparison operators of setp and set (PTX ISA 9.0, 9.7.6.1, tables "Operators for signed/unsigned/float"). */
    enum Compare implements Word {
        EQ, NE, LT, LE, GT, GE, LO, LS, HI, HS,
        EQU, NEU, LTU, LEU, GTU, GEU, NUM, NAN;

    }

    /** The Boolean operator combining setp's or set's result with a predicate, or lop3's (PTX ISA 9.0, 9.7.6, 9.7.8.6). */
    enum BoolOp implements Word {
        AND, OR, XOR;
    }

    /** The operation of atom, red, redux.sync, bar.red and multimem (PTX ISA 9.0, 9.7.13.5, 9.7.13.6, 9.7.13.11). */
    enum ReduceOp implements Word {
        ADD, MIN, MAX, INC, DEC, AND, OR, XOR,
        EXCH, CAS, POPC;

    }

    /** State spaces (PTX ISA 9.0, 5.1), as instruction modifiers and as the space of a declared variable. */
    enum StateSpace implements Mod {
        GLOBAL, SHARED, SHARED_CTA, SHARED_CLUSTER,
        LOCAL, PARAM, PARAM_ENTRY, PARAM_FUNC, CONST,
        GENERIC, TEX, REG, SREG;

        /** {@code .shared::cta} for {@code SHARED_CTA}: the qualifier after {@code ::}. */
        @Override public String text() { return "." + name().toLowerCase(Locale.ROOT).replaceFirst("_", "::"); }

        /** The space a declaration names ({@code ".shared"}), or null. */
        public static StateSpace of(String text) {
            for (StateSpace s : values()) if (s.text().equals(text)) return s;
            return null;
        }
    }

    /** Memory-consistency qualifiers (PTX ISA 9.0, 8.4 and the ld/st/atom/fence syntax). */
    enum MemOrder implements Word {
        WEAK, RELAXED, ACQUIRE, RELEASE, ACQ_REL, SC,
        VOLATILE, MMIO;

    }

    /** Scopes (PTX ISA 9.0, 8.5) and membar's levels ({@code .gl} is the GPU level). */
    enum Scope implements Word {
        CTA, CLUSTER, GPU, SYS, GL;
    }

    /** Cache operators of ld and st (PTX ISA 9.0, 9.7.9.1). */
    enum CacheOp implements Word {
        CA, CG, CS, LU, CV, WB, WT;
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
    enum ShflMode implements Word {
        UP, DOWN, BFLY, IDX;
    }

    /** vote modes (PTX ISA 9.0, 9.7.13.9) and match's {@code .any .all} (9.7.13.10). */
    enum VoteMode implements Word {
        ALL, ANY, UNI, BALLOT;
    }

    /** Matrix layouts {@code .row .col} (mma, wmma; PTX ISA 9.0, 9.7.14). */
    enum Layout implements Word {
        ROW, COL;
    }

    /** wmma.load/store fragments {@code .a .b .c .d} (PTX ISA 9.0, 9.7.14.4). */
    enum Fragment implements Word {
        A, B, C, D;
    }

    /** tld4's component {@code .r .g .b .a} (PTX ISA 9.0, 9.7.10.4). */
    enum Component implements Word {
        R, G, B, A;
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
    enum PrmtMode implements Word {
        F4E, B4E, RC8, ECL, ECR, RC16;
    }

    /** testp's classes (PTX ISA 9.0, 9.7.3.2). */
    enum TestClass implements Word {
        FINITE, INFINITE, NUMBER, NOTANUMBER, NORMAL,
        SUBNORMAL;

    }

    /** {@code .wrap .clamp} of shf, bmsk and szext (PTX ISA 9.0, 9.7.8.7, 9.7.1.22, 9.7.1.21). */
    enum ShiftMode implements Word {
        WRAP, CLAMP;
    }

    /** shf's direction {@code .l .r} (PTX ISA 9.0, 9.7.8.7). */
    enum ShiftDir implements Word {
        L, R;
    }

    /** suld/sust/sured access kind: {@code .b} (raw bits) or {@code .p} (formatted), PTX ISA 9.0, 9.7.11. */
    enum SurfaceAccess implements Word {
        B, P;
    }

    /** suld/sust out-of-bounds handling {@code .trap .clamp .zero} (PTX ISA 9.0, 9.7.11.1). */
    enum SurfaceOob implements Word {
        TRAP, CLAMP, ZERO;
    }

    /** The remaining one-word modifiers, each with one meaning wherever it appears. */
    enum Flag implements Mod {
        FTZ, SAT, SATFINITE, APPROX, FULL, RELU, NAN,
        XORSIGN, ABS, OOB, NOFTZ, WIDE, HI, LO, CC,
        SYNC, ALIGNED, WAIT, UNI, TO, NC, TRANS, SHIFTAMT,
        PARITY, EXPECT_TX, NO_COMPLETE, PROXY,
        MBARRIER_INIT, WARP, RED, ARRIVE, PACK, SP,
        SP_ORDERED_METADATA, BLOCK_SCALE;

        @Override public String text() {
            return switch (this) {
                case NAN -> ".NaN";
                case NO_COMPLETE -> ".noComplete";
                case SP_ORDERED_METADATA -> ".sp::ordered_metadata";
                default -> "." + name().toLowerCase(Locale.ROOT);
            };
        }
    }
}
