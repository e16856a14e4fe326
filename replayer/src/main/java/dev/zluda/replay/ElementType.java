package dev.zluda.replay;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.ModuleModel;
import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.ir.IrFunction;
import dev.zluda.ptx.ir.IrPipeline;
import dev.zluda.ptx.ir.pass.PointerTypes;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The type of a buffer's elements, named as PTX names load/store types (PTX ISA 9.0, §5.2): how a
 * replay compares an after-image element by element. {@link #BYTES} when the type is not known.
 */
public enum ElementType {
    F16(2, true), BF16(2, true), F32(4, true), F64(8, true),
    S8(1, false), S16(2, false), S32(4, false), S64(8, false),
    U8(1, false), U16(2, false), U32(4, false), U64(8, false),
    /** Unknown: compared byte by byte. */
    BYTES(1, false);

    /** Bytes per element. */
    public final int size;
    /** Whether it is a floating-point type (ULP distances apply). */
    public final boolean floating;

    ElementType(int size, boolean floating) {
        this.size = size;
        this.floating = floating;
    }

    /** The PTX spelling ({@code f32}), or {@code bytes}. */
    public String ptx() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The element type of a PTX type modifier ({@code .f32}, {@code .u64}, {@code .b32}, ...); bit
     * types ({@code .bN}) become the unsigned type of that size; null for anything else.
     */
    public static ElementType ofPtx(String modifier) {
        String m = modifier.startsWith(".") ? modifier.substring(1) : modifier;
        return switch (m) {
            case "f16" -> F16; case "bf16" -> BF16; case "f32" -> F32; case "f64" -> F64;
            case "s8" -> S8; case "s16" -> S16; case "s32" -> S32; case "s64" -> S64;
            case "u8", "b8" -> U8; case "u16", "b16" -> U16; case "u32", "b32" -> U32; case "u64", "b64" -> U64;
            default -> null;
        };
    }

    /** The element type of a PTX memory type ({@code .f32}, {@code .u8}; bit types are already unsigned ones), or null. */
    public static ElementType of(PtxType t) {
        return t == null ? null : ofPtx(t.ptxName());
    }

    /**
     * The element types of a kernel's pointer parameters by parameter index, as the PTX front end's pointer-type
     * analysis ({@link PointerTypes}) infers them from the kernel's loads, stores and atomics; empty when the
     * module has no kernel of that name.
     */
    public static Map<Integer, ElementType> ofKernel(Ast.Module module, ModuleModel model, String kernel) {
        IrFunction f = model.function(kernel) == null ? null : IrPipeline.build(module, model, "module").function(kernel);
        Map<Integer, ElementType> out = new HashMap<>();
        if (f == null) return out;
        for (var e : PointerTypes.infer(f).entrySet()) out.put(e.getKey(), of(e.getValue()));
        return out;
    }

    /** One type for several ({@link PointerTypes#resolve}: a float over an integer, signed over unsigned), null when sizes differ. */
    static ElementType resolve(Collection<ElementType> types) {
        List<PtxType> ts = new ArrayList<>();
        for (ElementType t : types) ts.add(PtxType.valueOf(t.name()));
        return of(PointerTypes.resolve(ts));
    }

    /** The raw bits of element {@code i} (little-endian), zero-extended. */
    long bits(MemorySegment s, long i) {
        long off = i * size;
        return switch (size) {
            case 1 -> s.get(ValueLayout.JAVA_BYTE, off) & 0xFFL;
            case 2 -> s.get(ValueLayout.JAVA_SHORT_UNALIGNED, off) & 0xFFFFL;
            case 4 -> s.get(ValueLayout.JAVA_INT_UNALIGNED, off) & 0xFFFF_FFFFL;
            default -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, off);
        };
    }

    /** The value of raw bits as a double (integers exact up to 2^53). */
    double value(long bits) {
        return switch (this) {
            case F16 -> Float.float16ToFloat((short) bits);
            case BF16 -> Float.intBitsToFloat((int) (bits << 16));
            case F32 -> Float.intBitsToFloat((int) bits);
            case F64 -> Double.longBitsToDouble(bits);
            case S8 -> (byte) bits;
            case S16 -> (short) bits;
            case S32 -> (int) bits;
            case S64 -> (double) bits;
            case U64 -> bits >= 0 ? bits : (double) (bits >>> 1) * 2.0;
            default -> bits; // U8, U16, U32, BYTES: zero-extended already
        };
    }

    /** Text of an element's value: floats as Java prints them (with NaN payloads in hex), integers in decimal. */
    String text(long bits) {
        double v = value(bits);
        if (floating) {
            if (Double.isNaN(v)) return "NaN(0x" + Long.toHexString(bits) + ")";
            return this == F64 ? Double.toString(v) : Float.toString((float) v);
        }
        if (this == U64) return Long.toUnsignedString(bits);
        if (this == S64) return Long.toString(bits);
        return Long.toString((long) v);
    }

    /**
     * The distance in units in the last place between two floating-point values given as raw bits:
     * the number of representable values between them (0 for equal bits, also +0/-0 counts 1).
     */
    long ulps(long a, long b) {
        return Math.abs(ordered(a) - ordered(b));
    }

    private long ordered(long bits) {
        int width = size * 8;
        long sign = 1L << (width - 1);
        long magnitude = bits & (sign - 1);
        return (bits & sign) != 0 ? -magnitude - 1 : magnitude;
    }
}
