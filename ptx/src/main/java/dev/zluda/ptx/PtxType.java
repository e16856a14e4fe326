package dev.zluda.ptx;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * PTX fundamental and opaque types (PTX ISA 9.0, 5.2 "Types", 5.2.3 "Alternate Floating-Point Data
 * Formats", 5.3 "Texture Sampler and Surface Types"), with their size in bytes and their kind, which
 * the operand type-checking rules (ISA 6.4 / table "Type Checking Rules") are written in.
 */
public enum PtxType {
    B8(1, Kind.BIT), B16(2, Kind.BIT), B32(4, Kind.BIT), B64(8, Kind.BIT), B128(16, Kind.BIT),
    U8(1, Kind.UNSIGNED), U16(2, Kind.UNSIGNED), U32(4, Kind.UNSIGNED), U64(8, Kind.UNSIGNED),
    S8(1, Kind.SIGNED), S16(2, Kind.SIGNED), S32(4, Kind.SIGNED), S64(8, Kind.SIGNED),
    F16(2, Kind.FLOAT), F16X2(4, Kind.FLOAT), F32(4, Kind.FLOAT), F64(8, Kind.FLOAT),
    BF16(2, Kind.FLOAT), BF16X2(4, Kind.FLOAT), TF32(4, Kind.FLOAT),
    E4M3(1, Kind.FLOAT), E5M2(1, Kind.FLOAT), E4M3X2(2, Kind.FLOAT), E5M2X2(2, Kind.FLOAT),
    E4M3X4(4, Kind.FLOAT), E5M2X4(4, Kind.FLOAT),
    E2M1X2(1, Kind.FLOAT), E2M3X2(2, Kind.FLOAT), E3M2X2(2, Kind.FLOAT), UE8M0X2(2, Kind.FLOAT),
    E2M1X4(2, Kind.FLOAT), E2M3X4(4, Kind.FLOAT), E3M2X4(4, Kind.FLOAT),
    S8X4(4, Kind.SIGNED), U8X4(4, Kind.UNSIGNED), S16X2(4, Kind.SIGNED), U16X2(4, Kind.UNSIGNED),
    PRED(0, Kind.PREDICATE),
    TEXREF(8, Kind.OPAQUE), SAMPLERREF(8, Kind.OPAQUE), SURFREF(8, Kind.OPAQUE);

    /** The class of a type for type-checking purposes. */
    public enum Kind { BIT, UNSIGNED, SIGNED, FLOAT, PREDICATE, OPAQUE }

    private final int size;
    private final Kind kind;
    private static final Map<String, PtxType> BY_NAME = new HashMap<>();

    static {
        for (PtxType t : values()) BY_NAME.put(t.ptxName(), t);
    }

    PtxType(int size, Kind kind) {
        this.size = size;
        this.kind = kind;
    }

    /** Size in bytes (a predicate has no memory size: 0; opaque handles are 8 bytes). */
    public int size() { return size; }

    /** Type-checking class. */
    public Kind kind() { return kind; }

    /** Natural alignment in bytes: the size, 1 for predicates (ISA 5.4.5). */
    public int alignment() { return Math.max(1, size); }

    /** The name as written in PTX, with its dot: {@code ".u32"}. */
    public String ptxName() { return "." + name().toLowerCase(Locale.ROOT); }

    /**
     * The type of twice the width for {@code .wide} multiplication (PTX ISA 9.0, 9.7.1.3): {@code .u16 → .u32},
     * {@code .u32 → .u64}, {@code .s16 → .s32}, {@code .s32 → .s64}, {@code .b16 → .b32}, {@code .b32 → .b64}; any
     * other type is its own.
     */
    public PtxType widened() {
        return switch (this) {
            case U16 -> U32; case U32 -> U64;
            case S16 -> S32; case S32 -> S64;
            case B16 -> B32; case B32 -> B64;
            default -> this;
        };
    }

    /** The type a word such as {@code ".u32"} names, or {@code null}. */
    public static PtxType fromName(String dotted) {
        return BY_NAME.get(dotted);
    }

    /**
     * Whether a register declared with type {@code reg} may be an operand of an instruction whose
     * type is {@code this}, under PTX's type-checking rules (ISA 6.4.2, "Type Checking Rules"):
     * sizes must be equal; a {@code .bN} instruction type takes any kind; {@code .sN}/{@code .uN} take
     * bit, signed and unsigned registers; {@code .fN} takes bit and float registers. Packed
     * half types ({@code .f16x2}, {@code .bf16x2}) are additionally accepted in {@code .b32}/{@code .u32}
     * registers by the same rule.
     */
    public boolean acceptsRegister(PtxType reg) {
        if (this == PRED || reg == PRED) return this == reg;
        if (size != reg.size) return false;
        return switch (kind) {
            case BIT -> true;
            case UNSIGNED, SIGNED -> reg.kind == Kind.BIT || reg.kind == Kind.UNSIGNED || reg.kind == Kind.SIGNED;
            case FLOAT -> reg.kind == Kind.BIT || reg.kind == Kind.FLOAT;
            default -> reg == this;
        };
    }
}
