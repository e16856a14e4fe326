package dev.zluda.diff;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The element types a buffer can be compared as: {@code f32} (the default), {@code f64},
 * {@code f16}, {@code bf16}, {@code i8}, {@code i16}, {@code i32}, {@code i64}, {@code u8},
 * {@code u16}, {@code u32}, {@code u64}; others can be registered.
 */
public final class ElementTypes {
    private ElementTypes() {}

    private static final Map<String, ElementType> TYPES = new ConcurrentHashMap<>();

    /** 32-bit IEEE floats. */
    public static final ElementType F32 = register(new Float32());
    /** 64-bit IEEE floats. */
    public static final ElementType F64 = register(new Float64());
    /** 32-bit signed integers. */
    public static final ElementType I32 = register(new Int("i32", 4, true));
    /** 32-bit unsigned integers. */
    public static final ElementType U32 = register(new Int("u32", 4, false));
    /** 64-bit signed integers. */
    public static final ElementType I64 = register(new Int("i64", 8, true));
    /** Bytes. */
    public static final ElementType U8 = register(new Int("u8", 1, false));
    /** 64-bit unsigned integers. */
    public static final ElementType U64 = register(new Int("u64", 8, false));
    /** 8-bit signed integers. */
    public static final ElementType I8 = register(new Int("i8", 1, true));
    /** 16-bit signed integers. */
    public static final ElementType I16 = register(new Int("i16", 2, true));
    /** 16-bit unsigned integers. */
    public static final ElementType U16 = register(new Int("u16", 2, false));
    /** IEEE 754 binary16 (PTX {@code .f16}). */
    public static final ElementType F16 = register(new Half("f16", false));
    /** bfloat16: the upper 16 bits of an IEEE binary32 (PTX {@code .bf16}). */
    public static final ElementType BF16 = register(new Half("bf16", true));

    /** Adds (or replaces) a type under its name; returns it. */
    public static ElementType register(ElementType t) {
        TYPES.put(t.name().toLowerCase(Locale.ROOT), t);
        return t;
    }

    /** The type with this name (case-insensitive). */
    public static Optional<ElementType> get(String name) {
        return Optional.ofNullable(TYPES.get(name.toLowerCase(Locale.ROOT)));
    }

    /** Names of the registered types, sorted. */
    public static List<String> names() {
        return TYPES.keySet().stream().sorted().toList();
    }

    /**
     * The type that a C pointee type implies ({@code float} → f32, {@code double} → f64,
     * {@code int} → i32, ...), or empty for {@code void} and types without a numeric reading.
     */
    public static Optional<ElementType> forCType(String cType) {
        if (cType == null) return Optional.empty();
        return switch (cType.replace("const ", "").trim()) {
            case "float" -> Optional.of(F32);
            case "double" -> Optional.of(F64);
            case "int", "int32_t" -> Optional.of(I32);
            case "unsigned int", "uint32_t", "cuuint32_t" -> Optional.of(U32);
            case "long", "long long", "int64_t" -> Optional.of(I64);
            case "char", "unsigned char", "signed char", "uint8_t" -> Optional.of(U8);
            default -> Optional.empty();
        };
    }

    /**
     * The type of a PTX load/store type name ({@code f32}, {@code s32} → i32, {@code u64}, {@code b32} →
     * u32, {@code f16}, {@code bf16}, ...; PTX ISA 9.0, §5.2.2), or empty for anything else (such as
     * {@code bytes}, what the replayer calls an unknown type).
     */
    public static Optional<ElementType> forPtx(String ptxType) {
        if (ptxType == null) return Optional.empty();
        String t = ptxType.startsWith(".") ? ptxType.substring(1) : ptxType;
        return switch (t.toLowerCase(Locale.ROOT)) {
            case "f32" -> Optional.of(F32);
            case "f64" -> Optional.of(F64);
            case "f16" -> Optional.of(F16);
            case "bf16" -> Optional.of(BF16);
            case "s8" -> Optional.of(I8);
            case "s16" -> Optional.of(I16);
            case "s32" -> Optional.of(I32);
            case "s64" -> Optional.of(I64);
            case "u8", "b8" -> Optional.of(U8);
            case "u16", "b16" -> Optional.of(U16);
            case "u32", "b32" -> Optional.of(U32);
            case "u64", "b64" -> Optional.of(U64);
            default -> Optional.empty();
        };
    }

    /** |a − b| / |a| (A is the reference), NaN when a is 0. */
    static double relative(double abs, double a) {
        return a == 0 ? Double.NaN : abs / Math.abs(a);
    }

    static double magnitude(double abs, double scale) {
        if (Double.isNaN(abs) || Double.isInfinite(abs) || Double.isInfinite(scale)) return 1;
        double rel = abs / Math.max(scale, Double.MIN_NORMAL);
        if (rel >= 1) return 1;
        // 1e-8 relative → 0.1, 1 → 1 (logarithmic)
        return Math.max(0.1, Math.min(1, 1 + Math.log10(Math.max(rel, 1e-9)) / 9));
    }

    private static final class Float32 implements ElementType {
        @Override public String name() { return "f32"; }
        @Override public int size() { return 4; }

        @Override
        public boolean differs(ByteBuffer a, ByteBuffer b, int index, Tolerance tol, Delta out) {
            int ia = a.getInt(index * 4), ib = b.getInt(index * 4);
            if (ia == ib) return false;
            return floatDiffers(Float.intBitsToFloat(ia), Float.intBitsToFloat(ib), Math.abs((long) ordered(ia) - (long) ordered(ib)), tol, out);
        }

        static int ordered(int bits) {
            return bits < 0 ? Integer.MIN_VALUE - bits : bits;
        }

        @Override
        public String format(ByteBuffer buf, int index) {
            return Float.toString(Float.intBitsToFloat(buf.getInt(index * 4)));
        }
    }

    /**
     * The comparison every float type makes once its bits differ: two NaNs are the same, one NaN is a
     * difference, otherwise the element differs unless |x − y| is within {@code atol + rtol·|x|} or
     * the distance is at most {@code tol.ulp()} ulps; {@code out} gets |x − y|, the ulps and the
     * relative error.
     *
     * @param x    A's value (exact: f16, bf16 and f32 values widen to double without rounding)
     * @param y    B's value
     * @param ulps the distance in units in the last place of the element type
     */
    private static boolean floatDiffers(double x, double y, long ulps, Tolerance tol, ElementType.Delta out) {
        boolean nx = Double.isNaN(x), ny = Double.isNaN(y);
        if (nx && ny) return false;
        if (nx || ny) { out.set(Double.NaN, -1, 1); return true; }
        double abs = Math.abs(x - y);
        out.set(abs, ulps, magnitude(abs, Math.max(Math.abs(x), Math.abs(y))), relative(abs, x));
        if (abs == 0) return false;
        if (abs <= tol.atol() + tol.rtol() * Math.abs(x)) return false;
        return ulps > tol.ulp();
    }

    private static final class Float64 implements ElementType {
        @Override public String name() { return "f64"; }
        @Override public int size() { return 8; }

        @Override
        public boolean differs(ByteBuffer a, ByteBuffer b, int index, Tolerance tol, Delta out) {
            long la = a.getLong(index * 8), lb = b.getLong(index * 8);
            if (la == lb) return false;
            long oa = la < 0 ? Long.MIN_VALUE - la : la, ob = lb < 0 ? Long.MIN_VALUE - lb : lb;
            long ulps = Math.abs(oa - ob);
            if (ulps < 0) ulps = Long.MAX_VALUE;
            return floatDiffers(Double.longBitsToDouble(la), Double.longBitsToDouble(lb), ulps, tol, out);
        }

        @Override
        public String format(ByteBuffer buf, int index) {
            return Double.toString(Double.longBitsToDouble(buf.getLong(index * 8)));
        }
    }

    /** A 16-bit float: binary16 or bfloat16; compared through its exact float value. */
    private record Half(String name, boolean brain) implements ElementType {
        @Override public int size() { return 2; }

        float value(short bits) {
            return brain ? Float.intBitsToFloat((bits & 0xFFFF) << 16) : Float.float16ToFloat(bits);
        }

        @Override
        public boolean differs(ByteBuffer a, ByteBuffer b, int index, Tolerance tol, Delta out) {
            short ia = a.getShort(index * 2), ib = b.getShort(index * 2);
            if (ia == ib) return false;
            return floatDiffers(value(ia), value(ib), Math.abs((long) ordered(ia) - (long) ordered(ib)), tol, out);
        }

        /** Sign-magnitude bits as a monotonic integer (−0 and +0 both 0, as for f32). */
        static int ordered(short bits) {
            int v = bits & 0xFFFF;
            return (v & 0x8000) != 0 ? -(v & 0x7FFF) : v;
        }

        @Override
        public String format(ByteBuffer buf, int index) {
            return Float.toString(value(buf.getShort(index * 2)));
        }
    }

    private record Int(String name, int size, boolean signed) implements ElementType {
        long get(ByteBuffer buf, int index) {
            int p = index * size;
            return switch (size) {
                case 1 -> signed ? buf.get(p) : buf.get(p) & 0xFFL;
                case 2 -> signed ? buf.getShort(p) : buf.getShort(p) & 0xFFFFL;
                case 4 -> signed ? buf.getInt(p) : buf.getInt(p) & 0xFFFFFFFFL;
                default -> buf.getLong(p);
            };
        }

        @Override
        public boolean differs(ByteBuffer a, ByteBuffer b, int index, Tolerance tol, Delta out) {
            long x = get(a, index), y = get(b, index);
            if (x == y) return false;
            double abs = Math.abs((double) x - (double) y);
            out.set(abs, (long) Math.min(abs, Long.MAX_VALUE), magnitude(abs, Math.max(Math.abs((double) x), Math.abs((double) y))), relative(abs, x));
            return !(abs <= tol.atol() + tol.rtol() * Math.abs((double) x));
        }

        @Override
        public String format(ByteBuffer buf, int index) {
            long v = get(buf, index);
            return size == 8 && !signed ? Long.toUnsignedString(v) : Long.toString(v);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static {
        // touch the constants so that the registry is filled before any lookup
        assert F32 != null && F64 != null && I32 != null && U32 != null && I64 != null && U8 != null && U64 != null && I8 != null
                && I16 != null && U16 != null && F16 != null && BF16 != null;
    }

    /** Formats a number for reports: integers without a fraction, others with up to 9 significant digits. */
    static String number(double v) {
        if (Double.isNaN(v)) return "NaN";
        if (v == Math.rint(v) && Math.abs(v) < 1e15) return Long.toString((long) v);
        String s = String.format(Locale.ROOT, "%.9g", v);
        int e = s.indexOf('e');
        String mantissa = e < 0 ? s : s.substring(0, e), exponent = e < 0 ? "" : s.substring(e);
        // trailing zeros of the mantissa only (those of the exponent, as in e-10, are digits)
        if (mantissa.contains(".")) mantissa = mantissa.replaceFirst("0+$", "").replaceFirst("\\.$", "");
        return mantissa + exponent;
    }
}
