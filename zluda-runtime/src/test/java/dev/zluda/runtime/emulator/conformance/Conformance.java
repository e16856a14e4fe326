package dev.zluda.runtime.emulator.conformance;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

/**
 * The instruction-conformance suite: a catalogue of PTX instruction forms (PTX ISA 9.0, chapter 9.7),
 * a deterministic generator of inputs for each, and the PTX kernel that applies one form per thread.
 *
 * <p>Kernel shape (the same for every form): {@code .entry k(.param .u64 in, .param .u64 out, .param .u32 n)};
 * thread {@code i < n} reads its input tuple at {@code in + 32*i} (four 8-byte little-endian slots, one per
 * operand; a 16-bit operand is the low 2 bytes of its slot, a predicate operand is "slot != 0"), applies the
 * form, and writes the result at {@code out + 16*i} (slot 0: the main result, 2, 4 or 8 bytes, a predicate
 * as the 32-bit value 0 or 1; slot 1: a second result such as a carry-out or a second predicate). The output
 * buffer is zero before the launch, so the unused bytes of a slot stay zero.
 *
 * <p>Inputs are a pure function of {@link #SEED} and the form's name (edge values — NaN payloads, ±0,
 * subnormals, ±inf, extremes, shifts at and past the width — then random bit patterns), so only the outputs
 * recorded on a GPU need to be stored; each stored form carries the CRC-32 of its inputs, which
 * {@link #inputCrc} recomputes.
 */
public final class Conformance {
    private Conformance() {}

    /** Seed of the input generator; changing it invalidates the recorded data. */
    public static final long SEED = 0x5A4C_5544_4138L; // "ZLUDA8"

    /** Input tuples per form (threads per launch). */
    public static final int N = 256;

    /** Bytes of one input tuple and of one output record. */
    public static final int IN_BYTES = 32, OUT_BYTES = 16;

    /** Value classes of operands: their register size and how their values are drawn. */
    public enum V {
        I16(2), I32(4), I64(8), SH(4), BF(4), BOOL(4), SEL(4), SMALL(4), LANE(4), CLAMP(4), F16(2), BF16(2), F16X2(4), BF16X2(4), F32(4), F64(8), F8X2(2);

        /** Register size in bytes. */
        public final int size;

        V(int size) {
            this.size = size;
        }

        String reg() {
            return this == BOOL ? "p" : size == 2 ? "h" : size == 4 ? "r" : "l";
        }
    }

    /**
     * The floating-point format in which an approximate form's error is measured (per 16-bit lane for the
     * packed formats).
     */
    public enum Ulp { F32, F64, F16, BF16, F16X2, BF16X2 }

    /**
     * Distance in units in the last place between two results of an approximate form, as ConformanceTest and
     * LlvmConformance measure it: {@link Long#MAX_VALUE} when exactly one is NaN, 0 when both are; values are
     * placed on one monotonic integer line (negative below zero); the x2 formats take the larger lane.
     */
    public static long ulps(Conformance.Ulp u, long a, long b) {
        return switch (u) {
            case F32 -> ulp(a & 0xFFFF_FFFFL, b & 0xFFFF_FFFFL, 32, 8);
            case F64 -> ulp(a, b, 64, 11);
            case F16 -> ulp(a & 0xFFFF, b & 0xFFFF, 16, 5);
            case BF16 -> ulp(a & 0xFFFF, b & 0xFFFF, 16, 8);
            case F16X2 -> Math.max(ulp(a & 0xFFFF, b & 0xFFFF, 16, 5), ulp(a >>> 16 & 0xFFFF, b >>> 16 & 0xFFFF, 16, 5));
            case BF16X2 -> Math.max(ulp(a & 0xFFFF, b & 0xFFFF, 16, 8), ulp(a >>> 16 & 0xFFFF, b >>> 16 & 0xFFFF, 16, 8));
        };
    }

    private static long ulp(long a, long b, int bits, int expBits) {
        long sign = 1L << (bits - 1);
        long mag = bits == 64 ? Long.MAX_VALUE : sign - 1;
        long expMask = ((1L << expBits) - 1) << (bits - 1 - expBits);
        boolean an = (a & mag & expMask) == expMask && (a & mag & ~expMask) != 0;
        boolean bn = (b & mag & expMask) == expMask && (b & mag & ~expMask) != 0;
        if (an || bn) return an && bn ? 0 : Long.MAX_VALUE;
        // map to a monotonic integer line: negative values below zero
        long ia = (a & sign) != 0 ? -(a & mag) : (a & mag), ib = (b & sign) != 0 ? -(b & mag) : (b & mag);
        return Math.abs(ia - ib);
    }

    /**
     * One instruction form.
     *
     * @param family   the data file it belongs to ({@code int}, {@code f32}, ...)
     * @param name     the form as written in PTX ({@code add.rn.ftz.f32}), unique; a multi-instruction form
     *                 ({@code addc} after a carry-setting add) has a descriptive name
     * @param body     PTX of the operation; {@code {d}} and {@code {e}} are the result registers, {@code {a}},
     *                 {@code {b}}, {@code {c}}, {@code {x}} the operands in order
     * @param dst      register kind of {@code {d}}: {@code h} (16 bits), {@code r} (32), {@code l} (64), {@code p} (predicate)
     * @param dst2     register kind of {@code {e}}, or null
     * @param ops      operand value classes
     * @param approx   null for forms that must match bit for bit; else the format of the ULP measurement
     */
    public record Form(String family, String name, String body, String dst, String dst2, V[] ops, Ulp approx) {}

    // ------------------------------------------------------------------ catalogue

    private static final List<Form> FORMS = new ArrayList<>();
    private static final Map<String, Form> BY_NAME = new LinkedHashMap<>();

    private static void add(String family, String name, String body, String dst, String dst2, Ulp approx, V... ops) {
        Form f = new Form(family, name, body, dst, dst2, ops, approx);
        if (BY_NAME.putIfAbsent(name, f) != null) throw new IllegalStateException("duplicate form " + name);
        FORMS.add(f);
    }

    /** A one-instruction form {@code name d, a[, b[, c[, x]]];}. */
    private static void one(String family, String name, String dst, Ulp approx, V... ops) {
        StringBuilder b = new StringBuilder(name).append(" {d}");
        String[] ph = {"{a}", "{b}", "{c}", "{x}"};
        for (int i = 0; i < ops.length; i++) b.append(", ").append(ph[i]);
        add(family, name, b.append(';').toString(), dst, null, approx, ops);
    }

    private static String kind(int bytes) {
        return bytes == 2 ? "h" : bytes == 4 ? "r" : "l";
    }

    private static V intV(int bytes) {
        return bytes == 2 ? V.I16 : bytes == 4 ? V.I32 : V.I64;
    }

    private static int sizeOf(String t) {
        return switch (t.substring(1)) {
            case "8" -> 1;
            case "16" -> 2;
            case "32" -> 4;
            default -> 8;
        };
    }

    static final String[] RND = {".rn", ".rz", ".rm", ".rp"};
    static final String[] IRND = {".rni", ".rzi", ".rmi", ".rpi"};
    static final String[] FCMP = {".eq", ".ne", ".lt", ".le", ".gt", ".ge", ".equ", ".neu", ".ltu", ".leu", ".gtu", ".geu", ".num", ".nan"};

    static {
        integer();
        carry();
        logic();
        f32();
        f64();
        compare();
        cvt();
        half();
        warp();
        atom();
    }

    private static void integer() {
        String F = "int";
        for (String t : new String[] {".u16", ".s16", ".u32", ".s32", ".u64", ".s64"}) {
            int sz = sizeOf(t.substring(1));
            String k = kind(sz);
            V v = intV(sz);
            for (String op : new String[] {"add", "sub", "mul.lo", "mul.hi", "div", "rem", "min", "max"}) one(F, op + t, k, null, v, v);
            for (String op : new String[] {"mad.lo", "mad.hi", "sad"}) one(F, op + t, k, null, v, v, v);
            if (sz < 8) {
                one(F, "mul.wide" + t, kind(sz * 2), null, v, v);
                one(F, "mad.wide" + t, kind(sz * 2), null, v, v, intV(sz * 2));
            }
            if (t.startsWith(".s")) {
                one(F, "abs" + t, k, null, v);
                one(F, "neg" + t, k, null, v);
            }
        }
        one(F, "add.sat.s32", "r", null, V.I32, V.I32);
        one(F, "sub.sat.s32", "r", null, V.I32, V.I32);
        one(F, "mad.hi.sat.s32", "r", null, V.I32, V.I32, V.I32);
        one(F, "min.relu.s32", "r", null, V.I32, V.I32);
        one(F, "max.relu.s32", "r", null, V.I32, V.I32);
        for (String t : new String[] {".u16x2", ".s16x2"}) {
            one(F, "min" + t, "r", null, V.I32, V.I32);
            one(F, "max" + t, "r", null, V.I32, V.I32);
        }
        one(F, "min.relu.s16x2", "r", null, V.I32, V.I32);
        one(F, "max.relu.s16x2", "r", null, V.I32, V.I32);
        for (String t : new String[] {".u32", ".s32"}) {
            one(F, "mul24.lo" + t, "r", null, V.I32, V.I32);
            one(F, "mul24.hi" + t, "r", null, V.I32, V.I32);
            one(F, "mad24.lo" + t, "r", null, V.I32, V.I32, V.I32);
            one(F, "mad24.hi" + t, "r", null, V.I32, V.I32, V.I32);
        }
        one(F, "mad24.hi.sat.s32", "r", null, V.I32, V.I32, V.I32);
        for (String t : new String[] {".u32", ".s32", ".u32", ".s32"}) {
            // dp4a/dp2a: every pair of signedness
            if (BY_NAME.containsKey("dp4a" + t + ".u32")) continue;
            for (String u : new String[] {".u32", ".s32"}) {
                one(F, "dp4a" + t + u, "r", null, V.I32, V.I32, V.I32);
                one(F, "dp2a.lo" + t + u, "r", null, V.I32, V.I32, V.I32);
                one(F, "dp2a.hi" + t + u, "r", null, V.I32, V.I32, V.I32);
            }
        }
    }

    private static void carry() {
        String F = "carry";
        for (String t : new String[] {".u32", ".s32", ".u64", ".s64"}) {
            boolean w = t.endsWith("64");
            String k = w ? "l" : "r";
            V v = w ? V.I64 : V.I32;
            // CF := (c != 0)
            String setCf = w ? "selp.b64 %s0, 1, 0, {c}; add.cc.u64 %s0, %s0, -1; " : "selp.b32 %s1, 1, 0, {c}; add.cc.u32 %s1, %s1, -1; ";
            String setBorrow = w ? "selp.b64 %s0, 1, 0, {c}; sub.cc.u64 %s0, 0, %s0; " : "selp.b32 %s1, 1, 0, {c}; sub.cc.u32 %s1, 0, %s1; ";
            String getCf = " addc" + t + " {e}, 0, 0;";
            String getBorrow = " subc" + t + " {e}, 0, 0;";
            add(F, "add.cc" + t, "add.cc" + t + " {d}, {a}, {b};" + getCf, k, k, null, v, v);
            add(F, "addc" + t, setCf + "addc" + t + " {d}, {a}, {b};", k, null, null, v, v, V.BOOL);
            add(F, "addc.cc" + t, setCf + "addc.cc" + t + " {d}, {a}, {b};" + getCf, k, k, null, v, v, V.BOOL);
            add(F, "sub.cc" + t, "sub.cc" + t + " {d}, {a}, {b};" + getBorrow, k, k, null, v, v);
            add(F, "subc" + t, setBorrow + "subc" + t + " {d}, {a}, {b};", k, null, null, v, v, V.BOOL);
            add(F, "subc.cc" + t, setBorrow + "subc.cc" + t + " {d}, {a}, {b};" + getBorrow, k, k, null, v, v, V.BOOL);
            String setCfX = setCf.replace("{c}", "{x}");
            for (String h : new String[] {".lo", ".hi"}) {
                add(F, "mad" + h + ".cc" + t, "mad" + h + ".cc" + t + " {d}, {a}, {b}, {c};" + getCf, k, k, null, v, v, v);
                add(F, "madc" + h + ".cc" + t, setCfX + "madc" + h + ".cc" + t + " {d}, {a}, {b}, {c};" + getCf, k, k, null, v, v, v, V.BOOL);
                add(F, "madc" + h + t, setCfX + "madc" + h + t + " {d}, {a}, {b}, {c};", k, null, null, v, v, v, V.BOOL);
            }
        }
    }

    private static void logic() {
        String F = "logic";
        for (String t : new String[] {".b16", ".b32", ".b64"}) {
            int sz = sizeOf(t.substring(1));
            String k = kind(sz);
            V v = intV(sz);
            one(F, "and" + t, k, null, v, v);
            one(F, "or" + t, k, null, v, v);
            one(F, "xor" + t, k, null, v, v);
            one(F, "not" + t, k, null, v);
            one(F, "cnot" + t, k, null, v);
            one(F, "shl" + t, k, null, v, V.SH);
            one(F, "shr" + t, k, null, v, V.SH);
            String u = t.replace(".b", ".u"), s = t.replace(".b", ".s");
            one(F, "shr" + u, k, null, v, V.SH);
            one(F, "shr" + s, k, null, v, V.SH);
        }
        for (String t : new String[] {".b32", ".b64"}) {
            String k = t.equals(".b32") ? "r" : "l";
            V v = t.equals(".b32") ? V.I32 : V.I64;
            one(F, "popc" + t, "r", null, v);
            one(F, "clz" + t, "r", null, v);
            one(F, "brev" + t, k, null, v);
            one(F, "bfi" + t, k, null, v, v, V.BF, V.BF);
        }
        for (String t : new String[] {".u32", ".s32", ".u64", ".s64"}) {
            V v = t.endsWith("64") ? V.I64 : V.I32;
            one(F, "bfind" + t, "r", null, v);
            one(F, "bfind.shiftamt" + t, "r", null, v);
            one(F, "bfe" + t, t.endsWith("64") ? "l" : "r", null, v, V.BF, V.BF);
        }
        one(F, "bmsk.wrap.b32", "r", null, V.BF, V.BF);
        one(F, "bmsk.clamp.b32", "r", null, V.BF, V.BF);
        for (String m : new String[] {".wrap", ".clamp"}) {
            one(F, "szext" + m + ".u32", "r", null, V.I32, V.BF);
            one(F, "szext" + m + ".s32", "r", null, V.I32, V.BF);
            one(F, "shf.l" + m + ".b32", "r", null, V.I32, V.I32, V.SH);
            one(F, "shf.r" + m + ".b32", "r", null, V.I32, V.I32, V.SH);
        }
        one(F, "prmt.b32", "r", null, V.I32, V.I32, V.SEL);
        for (String m : new String[] {".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"}) one(F, "prmt.b32" + m, "r", null, V.I32, V.I32, V.SEL);
        for (int lut : new int[] {0x00, 0xff, 0x96, 0xe8, 0xca, 0x1e, 0x80, 0xfe, 0x3c, 0x5a, 0xf0, 0x6a, 0xb4, 0x17}) {
            add(F, String.format("lop3.b32 0x%02x", lut), String.format("lop3.b32 {d}, {a}, {b}, {c}, 0x%02x;", lut), "r", null, null, V.I32, V.I32, V.I32);
        }
        one(F, "fns.b32", "r", null, V.I32, V.BF, V.BF);
        add(F, "selp.b32", "selp.b32 {d}, {a}, {b}, {c};", "r", null, null, V.I32, V.I32, V.BOOL);
        one(F, "slct.b32.s32", "r", null, V.I32, V.I32, V.I32);
        one(F, "slct.b32.f32", "r", null, V.I32, V.I32, V.F32);
        one(F, "slct.ftz.b32.f32", "r", null, V.I32, V.I32, V.F32);
    }

    private static void f32() {
        String F = "f32";
        for (String op : new String[] {"add", "sub", "mul"}) {
            one(F, op + ".f32", "r", null, V.F32, V.F32);
            one(F, op + ".ftz.f32", "r", null, V.F32, V.F32);
            for (String r : RND) for (String ftz : new String[] {"", ".ftz"}) for (String sat : new String[] {"", ".sat"}) {
                one(F, op + r + ftz + sat + ".f32", "r", null, V.F32, V.F32);
            }
        }
        for (String r : RND) for (String ftz : new String[] {"", ".ftz"}) for (String sat : new String[] {"", ".sat"}) {
            one(F, "fma" + r + ftz + sat + ".f32", "r", null, V.F32, V.F32, V.F32);
        }
        one(F, "mad.rn.f32", "r", null, V.F32, V.F32, V.F32);
        one(F, "mad.rz.ftz.sat.f32", "r", null, V.F32, V.F32, V.F32);
        for (String r : RND) for (String ftz : new String[] {"", ".ftz"}) {
            one(F, "div" + r + ftz + ".f32", "r", null, V.F32, V.F32);
            one(F, "rcp" + r + ftz + ".f32", "r", null, V.F32);
            one(F, "sqrt" + r + ftz + ".f32", "r", null, V.F32);
        }
        for (String ftz : new String[] {"", ".ftz"}) {
            one(F, "div.approx" + ftz + ".f32", "r", Ulp.F32, V.F32, V.F32);
            one(F, "div.full" + ftz + ".f32", "r", Ulp.F32, V.F32, V.F32);
            for (String op : new String[] {"rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2"}) one(F, op + ".approx" + ftz + ".f32", "r", Ulp.F32, V.F32);
        }
        one(F, "tanh.approx.f32", "r", Ulp.F32, V.F32);
        for (String op : new String[] {"min", "max"}) {
            for (String m : new String[] {"", ".ftz", ".NaN", ".ftz.NaN", ".xorsign.abs", ".NaN.xorsign.abs", ".ftz.NaN.xorsign.abs"}) {
                one(F, op + m + ".f32", "r", null, V.F32, V.F32);
            }
        }
        for (String op : new String[] {"abs", "neg"}) {
            one(F, op + ".f32", "r", null, V.F32);
            one(F, op + ".ftz.f32", "r", null, V.F32);
        }
        one(F, "copysign.f32", "r", null, V.F32, V.F32);
        for (String k : new String[] {".finite", ".infinite", ".number", ".notanumber", ".normal", ".subnormal"}) {
            one(F, "testp" + k + ".f32", "p", null, V.F32);
        }
    }

    private static void f64() {
        String F = "f64";
        for (String op : new String[] {"add", "sub", "mul"}) {
            one(F, op + ".f64", "l", null, V.F64, V.F64);
            for (String r : RND) one(F, op + r + ".f64", "l", null, V.F64, V.F64);
        }
        for (String r : RND) {
            one(F, "fma" + r + ".f64", "l", null, V.F64, V.F64, V.F64);
            one(F, "div" + r + ".f64", "l", null, V.F64, V.F64);
            one(F, "rcp" + r + ".f64", "l", null, V.F64);
            one(F, "sqrt" + r + ".f64", "l", null, V.F64);
        }
        one(F, "mad.rn.f64", "l", null, V.F64, V.F64, V.F64);
        one(F, "rcp.approx.ftz.f64", "l", Ulp.F64, V.F64);
        one(F, "rsqrt.approx.f64", "l", Ulp.F64, V.F64);
        one(F, "rsqrt.approx.ftz.f64", "l", Ulp.F64, V.F64);
        one(F, "min.f64", "l", null, V.F64, V.F64);
        one(F, "max.f64", "l", null, V.F64, V.F64);
        one(F, "abs.f64", "l", null, V.F64);
        one(F, "neg.f64", "l", null, V.F64);
        one(F, "copysign.f64", "l", null, V.F64, V.F64);
        for (String k : new String[] {".finite", ".infinite", ".number", ".notanumber", ".normal", ".subnormal"}) {
            one(F, "testp" + k + ".f64", "p", null, V.F64);
        }
    }

    private static void compare() {
        String F = "setp";
        for (String c : FCMP) {
            one(F, "setp" + c + ".f32", "p", null, V.F32, V.F32);
            one(F, "setp" + c + ".ftz.f32", "p", null, V.F32, V.F32);
            one(F, "setp" + c + ".f64", "p", null, V.F64, V.F64);
            one(F, "setp" + c + ".f16", "p", null, V.F16, V.F16);
            one(F, "setp" + c + ".bf16", "p", null, V.BF16, V.BF16);
        }
        for (String c : new String[] {".eq", ".lt", ".gtu", ".nan"}) {
            add(F, "setp" + c + ".f16x2", "setp" + c + ".f16x2 {d}|{e}, {a}, {b};", "p", "p", null, V.F16X2, V.F16X2);
            add(F, "setp" + c + ".bf16x2", "setp" + c + ".bf16x2 {d}|{e}, {a}, {b};", "p", "p", null, V.BF16X2, V.BF16X2);
        }
        for (String t : new String[] {".s16", ".s32", ".s64", ".u16", ".u32", ".u64"}) {
            V v = intV(sizeOf(t.substring(1)));
            String[] cmps = t.startsWith(".s") ? new String[] {".eq", ".ne", ".lt", ".le", ".gt", ".ge"}
                    : new String[] {".eq", ".ne", ".lo", ".ls", ".hi", ".hs", ".lt", ".ge"};
            for (String c : cmps) one(F, "setp" + c + t, "p", null, v, v);
        }
        add(F, "setp.lt.and.f32", "setp.lt.and.f32 {d}|{e}, {a}, {b}, {c};", "p", "p", null, V.F32, V.F32, V.BOOL);
        add(F, "setp.gtu.or.f32", "setp.gtu.or.f32 {d}|{e}, {a}, {b}, {c};", "p", "p", null, V.F32, V.F32, V.BOOL);
        add(F, "setp.ne.xor.s32", "setp.ne.xor.s32 {d}|{e}, {a}, {b}, {c};", "p", "p", null, V.I32, V.I32, V.BOOL);
        for (String c : new String[] {".lt", ".equ", ".nan", ".ne"}) {
            one(F, "set" + c + ".u32.f32", "r", null, V.F32, V.F32);
            one(F, "set" + c + ".f32.f32", "r", null, V.F32, V.F32);
            one(F, "set" + c + ".ftz.f32.f32", "r", null, V.F32, V.F32);
        }
        one(F, "set.lt.s32.s32", "r", null, V.I32, V.I32);
        one(F, "set.hi.u32.u64", "r", null, V.I64, V.I64);
    }

    private static void cvt() {
        String F = "cvt";
        String[] ints = {".u8", ".u16", ".u32", ".u64", ".s8", ".s16", ".s32", ".s64"};
        for (String d : ints) for (String s : ints) {
            int ds = Math.max(2, sizeOf(d.substring(1))), ss = Math.max(2, sizeOf(s.substring(1)));
            if (!d.equals(s)) one(F, "cvt" + d + s, kind(ds), null, intV(ss));
            if (satMayClamp(d, s)) one(F, "cvt.sat" + d + s, kind(ds), null, intV(ss));
        }
        String[] floats = {".f16", ".bf16", ".f32", ".f64"};
        for (String f : floats) {
            String fk = f.equals(".f32") ? "r" : f.equals(".f64") ? "l" : "h";
            V fv = switch (f) {
                case ".f16" -> V.F16;
                case ".bf16" -> V.BF16;
                case ".f32" -> V.F32;
                default -> V.F64;
            };
            for (String i : ints) {
                // ptxas (CUDA 13.0) rejects bf16 <-> 8/16/32-bit integer conversions on sm_90
                if (f.equals(".bf16") && !i.endsWith("64")) continue;
                int is = Math.max(2, sizeOf(i.substring(1)));
                for (String r : RND) one(F, "cvt" + r + f + i, fk, null, intV(is));
                for (String r : IRND) one(F, "cvt" + r + i + f, kind(is), null, fv);
                if (f.equals(".f32")) {
                    one(F, "cvt.rzi.ftz" + i + f, kind(is), null, fv);
                    one(F, "cvt.rni.ftz.sat" + i + f, kind(is), null, fv);
                }
            }
            for (String r : IRND) {
                if (!f.equals(".bf16")) one(F, "cvt" + r + f + f, fk, null, fv);
            }
        }
        for (String r : IRND) one(F, "cvt" + r + ".ftz.f32.f32", "r", null, V.F32);
        one(F, "cvt.sat.f32.f32", "r", null, V.F32);
        one(F, "cvt.ftz.sat.f32.f32", "r", null, V.F32);
        one(F, "cvt.sat.f64.f64", "l", null, V.F64);
        for (String r : RND) {
            for (String m : new String[] {"", ".ftz", ".sat", ".ftz.sat"}) {
                one(F, "cvt" + r + m + ".f16.f32", "h", null, V.F32);
                one(F, "cvt" + r + m + ".f32.f64", "r", null, V.F64);
            }
            one(F, "cvt" + r + ".bf16.f32", "h", null, V.F32);
            one(F, "cvt" + r + ".f16.f64", "h", null, V.F64);
            one(F, "cvt" + r + ".bf16.f64", "h", null, V.F64);
        }
        one(F, "cvt.rn.relu.f16.f32", "h", null, V.F32);
        one(F, "cvt.rn.relu.bf16.f32", "h", null, V.F32);
        one(F, "cvt.rn.satfinite.f16.f32", "h", null, V.F32);
        one(F, "cvt.rn.satfinite.bf16.f32", "h", null, V.F32);
        one(F, "cvt.f32.f16", "r", null, V.F16);
        one(F, "cvt.ftz.f32.f16", "r", null, V.F16);
        one(F, "cvt.f32.bf16", "r", null, V.BF16);
        one(F, "cvt.f64.f32", "l", null, V.F32);
        one(F, "cvt.ftz.f64.f32", "l", null, V.F32);
        one(F, "cvt.f64.f16", "l", null, V.F16);
        one(F, "cvt.f64.bf16", "l", null, V.BF16);
        one(F, "cvt.rn.f16.bf16", "h", null, V.BF16);
        one(F, "cvt.rn.bf16.f16", "h", null, V.F16);
        for (String x2 : new String[] {".f16x2", ".bf16x2"}) {
            for (String r : new String[] {".rn", ".rz"}) for (String m : new String[] {"", ".relu", ".satfinite", ".relu.satfinite"}) {
                one(F, "cvt" + r + m + x2 + ".f32", "r", null, V.F32, V.F32);
            }
        }
        for (String d : new String[] {".u8", ".s8"}) for (String s2 : new String[] {".s32"}) {
            one(F, "cvt.pack.sat" + d + s2 + ".b32", "r", null, V.I32, V.I32, V.I32);
        }
        one(F, "cvt.pack.sat.u16.s32", "r", null, V.I32, V.I32);
        one(F, "cvt.pack.sat.s16.s32", "r", null, V.I32, V.I32);
        one(F, "cvt.rna.tf32.f32", "r", null, V.F32);
        one(F, "cvt.rna.satfinite.tf32.f32", "r", null, V.F32);
        for (String r : new String[] {".rn", ".rz"}) for (String m : new String[] {"", ".relu"}) {
            one(F, "cvt" + r + m + ".tf32.f32", "r", null, V.F32);
        }
        for (String e : new String[] {".e4m3x2", ".e5m2x2"}) {
            one(F, "cvt.rn.satfinite" + e + ".f32", "h", null, V.F32, V.F32);
            one(F, "cvt.rn.satfinite.relu" + e + ".f32", "h", null, V.F32, V.F32);
            one(F, "cvt.rn.satfinite" + e + ".f16x2", "h", null, V.F16X2);
            one(F, "cvt.rn.satfinite.relu" + e + ".f16x2", "h", null, V.F16X2);
            one(F, "cvt.rn.f16x2" + e, "r", null, V.F8X2);
            one(F, "cvt.rn.relu.f16x2" + e, "r", null, V.F8X2);
        }
    }

    /** Whether {@code cvt.sat.D.S} can clamp (ptxas rejects {@code .sat} where the source range fits the destination). */
    private static boolean satMayClamp(String d, String s) {
        int ds = sizeOf(d.substring(1)), ss = sizeOf(s.substring(1));
        boolean du = d.startsWith(".u"), su = s.startsWith(".u");
        if (su && du) return ds < ss;
        if (!su && !du) return ds < ss;
        if (su) return ds <= ss;          // unsigned into signed
        return true;                      // signed into unsigned
    }

    private static void half() {
        String F = "half";
        for (String t : new String[] {".f16", ".f16x2"}) {
            V v = t.equals(".f16") ? V.F16 : V.F16X2;
            String k = t.equals(".f16") ? "h" : "r";
            Ulp u = t.equals(".f16") ? Ulp.F16 : Ulp.F16X2;
            for (String op : new String[] {"add", "sub", "mul"}) {
                for (String m : new String[] {"", ".rn", ".ftz", ".sat", ".rn.ftz.sat"}) one(F, op + m + t, k, null, v, v);
            }
            for (String m : new String[] {".rn", ".rn.ftz", ".rn.sat", ".rn.ftz.sat", ".rn.relu", ".rn.ftz.relu"}) one(F, "fma" + m + t, k, null, v, v, v);
            for (String op : new String[] {"min", "max"}) {
                for (String m : new String[] {"", ".ftz", ".NaN", ".ftz.NaN", ".xorsign.abs", ".NaN.xorsign.abs"}) one(F, op + m + t, k, null, v, v);
            }
            for (String op : new String[] {"neg", "abs"}) {
                one(F, op + t, k, null, v);
                one(F, op + ".ftz" + t, k, null, v);
            }
            one(F, "ex2.approx" + t, k, u, v);
            one(F, "tanh.approx" + t, k, u, v);
        }
        for (String t : new String[] {".bf16", ".bf16x2"}) {
            V v = t.equals(".bf16") ? V.BF16 : V.BF16X2;
            String k = t.equals(".bf16") ? "h" : "r";
            Ulp u = t.equals(".bf16") ? Ulp.BF16 : Ulp.BF16X2;
            for (String op : new String[] {"add", "sub", "mul"}) {
                one(F, op + t, k, null, v, v);
                one(F, op + ".rn" + t, k, null, v, v);
            }
            one(F, "fma.rn" + t, k, null, v, v, v);
            one(F, "fma.rn.relu" + t, k, null, v, v, v);
            for (String op : new String[] {"min", "max"}) {
                for (String m : new String[] {"", ".NaN", ".xorsign.abs", ".NaN.xorsign.abs"}) one(F, op + m + t, k, null, v, v);
            }
            one(F, "neg" + t, k, null, v);
            one(F, "abs" + t, k, null, v);
            one(F, "ex2.approx.ftz" + t, k, u, v);
            one(F, "tanh.approx" + t, k, u, v);
        }
    }

    /** Warp-level forms: every thread of each full warp takes part; results depend on the other lanes' inputs. */
    private static void warp() {
        String F = "warp";
        for (String m : new String[] {".up", ".down", ".bfly", ".idx"}) {
            add(F, "shfl.sync" + m + ".b32", "shfl.sync" + m + ".b32 {d}|{e}, {a}, {b}, {c}, 0xffffffff;", "r", "p", null, V.I32, V.LANE, V.CLAMP);
        }
        add(F, "vote.sync.all.pred", "vote.sync.all.pred {d}, {a}, 0xffffffff;", "p", null, null, V.BOOL);
        add(F, "vote.sync.any.pred", "vote.sync.any.pred {d}, {a}, 0xffffffff;", "p", null, null, V.BOOL);
        add(F, "vote.sync.uni.pred", "vote.sync.uni.pred {d}, {a}, 0xffffffff;", "p", null, null, V.BOOL);
        add(F, "vote.sync.ballot.b32", "vote.sync.ballot.b32 {d}, {a}, 0xffffffff;", "r", null, null, V.BOOL);
        add(F, "match.any.sync.b32", "match.any.sync.b32 {d}, {a}, 0xffffffff;", "r", null, null, V.SMALL);
        add(F, "match.all.sync.b32", "match.all.sync.b32 {d}|{e}, {a}, 0xffffffff;", "r", "p", null, V.SMALL);
        for (String op : new String[] {".add.u32", ".add.s32", ".min.u32", ".min.s32", ".max.u32", ".max.s32", ".and.b32", ".or.b32", ".xor.b32"}) {
            add(F, "redux.sync" + op, "redux.sync" + op + " {d}, {a}, 0xffffffff;", "r", null, null, V.I32);
        }
        add(F, "activemask.b32", "activemask.b32 {d};", "r", null, null);
    }

    /**
     * Atomics and reductions on a location per thread (slot 1 of the thread's output record in global memory,
     * or 8 bytes per thread in shared memory, read back into slot 1): initialised with {@code {a}}, then the
     * operation with {@code {b}} (and {@code {c}} for cas); slot 0 is the value the atomic returned.
     */
    private static void atom() {
        String F = "atom";
        String[][] forms = {
                {".add", ".u32 .s32 .u64 .f32 .f64"}, {".min", ".u32 .s32 .u64 .s64"}, {".max", ".u32 .s32 .u64 .s64"},
                {".inc", ".u32"}, {".dec", ".u32"}, {".and", ".b32 .b64"}, {".or", ".b32 .b64"}, {".xor", ".b32 .b64"},
                {".exch", ".b32 .b64"}, {".cas", ".b32 .b64"}, {".add.noftz", ".f16 .f16x2 .bf16 .bf16x2"},
        };
        for (String[] fo : forms) {
            for (String t : fo[1].split(" ")) {
                V v = switch (t) {
                    case ".u64", ".s64", ".b64" -> V.I64;
                    case ".f32" -> V.F32;
                    case ".f64" -> V.F64;
                    case ".f16" -> V.F16;
                    case ".bf16" -> V.BF16;
                    case ".f16x2" -> V.F16X2;
                    case ".bf16x2" -> V.BF16X2;
                    default -> fo[0].equals(".inc") || fo[0].equals(".dec") ? V.SH : V.I32;
                };
                String st = v.size == 2 ? ".b16" : v.size == 4 ? ".b32" : ".b64";
                String k = v.reg();
                boolean cas = fo[0].equals(".cas");
                String args = cas ? "{b}, {c}" : "{b}";
                V[] ops = cas ? new V[] {v, v, v} : new V[] {v, v};
                add(F, "atom.global" + fo[0] + t, "st.global" + st + " [%q3+8], {a}; atom.global" + fo[0] + t + " {d}, [%q3+8], " + args + ";",
                        k, null, null, ops);
                add(F, "atom.shared" + fo[0] + t, "mov.u32 %t1, %tid.x; shl.b32 %t1, %t1, 3; mov.u32 %t2, sm; add.u32 %t2, %t2, %t1; st.shared" + st
                        + " [%t2], {a}; atom.shared" + fo[0] + t + " {d}, [%t2], " + args + "; ld.shared" + st + " {e}, [%t2];", k, k, null, ops);
                if (!cas && !fo[0].equals(".exch")) {
                    add(F, "red.global" + fo[0] + t, "st.global" + st + " [%q3+8], {a}; red.global" + fo[0] + t + " [%q3+8], {b}; mov" + st + " {d}, 0;",
                            k, null, null, ops);
                }
            }
        }
    }

    /** Every form, in catalogue order. */
    public static List<Form> forms() {
        return FORMS;
    }

    /** The families, in catalogue order. */
    public static List<String> families() {
        List<String> out = new ArrayList<>();
        for (Form f : FORMS) if (!out.contains(f.family())) out.add(f.family());
        return out;
    }

    // ------------------------------------------------------------------ PTX

    private static String reg(String kind, int index) {
        return "%" + kind + index;
    }

    /** The PTX module (PTX ISA 9.0, sm_90) of one form: the kernel {@code k} described in the class comment. */
    public static String ptx(Form f) {
        StringBuilder sb = Sweep.entry(f.name(), "");
        sb.append(".reg .pred %p<8>;\n.reg .b16 %h<8>;\n.reg .b32 %r<8>;\n.reg .b64 %l<8>;\n");
        sb.append(".shared .align 8 .b8 sm[1024];\n");
        sb.append(".reg .b32 %t<4>;\n.reg .b64 %q<4>;\n.reg .pred %pq;\n.reg .b64 %s0;\n.reg .b32 %s1;\n");
        sb.append(Sweep.THREAD_INDEX);
        Sweep.tupleAddresses(sb, IN_BYTES, OUT_BYTES);
        String body = f.body();
        String[] ph = {"{a}", "{b}", "{c}", "{x}"};
        for (int i = 0; i < f.ops().length; i++) {
            V v = f.ops()[i];
            String r = reg(v.reg(), i);
            int off = 8 * i;
            switch (v.reg()) {
                case "p" -> sb.append("ld.global.b32 %t3, [%q2+").append(off).append("];\nsetp.ne.b32 ").append(r).append(", %t3, 0;\n");
                case "h" -> sb.append("ld.global.b16 ").append(r).append(", [%q2+").append(off).append("];\n");
                case "r" -> sb.append("ld.global.b32 ").append(r).append(", [%q2+").append(off).append("];\n");
                default -> sb.append("ld.global.b64 ").append(r).append(", [%q2+").append(off).append("];\n");
            }
            body = body.replace(ph[i], r);
        }
        body = body.replace("{d}", reg(f.dst(), 7));
        if (f.dst2() != null) body = body.replace("{e}", reg(f.dst2(), 6));
        sb.append(body).append('\n');
        store(sb, f.dst(), reg(f.dst(), 7), 0);
        if (f.dst2() != null) store(sb, f.dst2(), reg(f.dst2(), 6), 8);
        sb.append("DONE:\nret;\n}\n");
        return sb.toString();
    }

    private static void store(StringBuilder sb, String kind, String r, int off) {
        switch (kind) {
            case "p" -> sb.append("selp.u32 %t3, 1, 0, ").append(r).append(";\nst.global.b32 [%q3+").append(off).append("], %t3;\n");
            case "h" -> sb.append("st.global.b16 [%q3+").append(off).append("], ").append(r).append(";\n");
            case "r" -> sb.append("st.global.b32 [%q3+").append(off).append("], ").append(r).append(";\n");
            default -> sb.append("st.global.b64 [%q3+").append(off).append("], ").append(r).append(";\n");
        }
    }

    // ------------------------------------------------------------------ inputs

    static final long[] F32_EDGE = {
            0x00000000L, 0x80000000L, 0x3f800000L, 0xbf800000L, 0x3f000000L, 0x3fc00000L, 0x40000000L, 0x40400000L,
            0x00000001L, 0x80000001L, 0x007fffffL, 0x807fffffL, 0x00800000L, 0x80800000L, 0x7f7fffffL, 0xff7fffffL,
            0x7f800000L, 0xff800000L, 0x7fffffffL, 0x7fc00000L, 0x7fc12345L, 0x7f800001L, 0xffc00001L, 0xff812345L,
            0x3f800001L, 0x3f7fffffL, 0x40490fdbL, 0x4f000000L, 0xcf000000L, 0x4f800000L, 0x5f000000L, 0xdf000000L,
            0x477fe000L, 0x477ff000L, 0x477fefffL, 0x33800000L, 0x3effffffL, 0x40200000L, 0xc0200000L, 0x3ec00000L,
            0x4b000000L, 0x4b7fffffL, 0x7effffffL, 0x00400000L, 0x0c000000L, 0x01000000L, 0x5e800000L, 0x43800000L,
    };
    static final long[] F64_EDGE = {
            0L, 0x8000000000000000L, 0x3ff0000000000000L, 0xbff0000000000000L, 0x3fe0000000000000L, 0x3ff8000000000000L,
            0x4000000000000000L, 1L, 0x8000000000000001L, 0x000fffffffffffffL, 0x0010000000000000L, 0x8010000000000000L,
            0x7fefffffffffffffL, 0xffefffffffffffffL, 0x7ff0000000000000L, 0xfff0000000000000L, 0x7fffffffffffffffL,
            0x7ff8000000000000L, 0x7ff8000000012345L, 0x7ff0000000000001L, 0xfff8000000000001L, 0x3ff0000000000001L,
            0x3fefffffffffffffL, 0x400921fb54442d18L, 0x41e0000000000000L, 0xc1e0000000000000L, 0x43e0000000000000L,
            0xc3e0000000000000L, 0x41efffffffe00000L, 0x47efffffe0000000L, 0x47efffff00000000L, 0x36a0000000000000L,
            0x3810000000000000L, 0x380fffffffffffffL, 0x4004000000000000L, 0xc004000000000000L, 0x4330000000000000L,
            0x40efffc000000000L, 0x36a0000000000001L, 0x3690000000000000L,
    };
    static final long[] F16_EDGE = {
            0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x3e00, 0x4000, 0x0001, 0x8001, 0x03ff, 0x83ff, 0x0400, 0x8400,
            0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7fff, 0x7c01, 0xfe00, 0xfd23, 0x3c01, 0x3bff, 0x4248, 0x5bf0, 0x0200,
    };
    static final long[] BF16_EDGE = {
            0x0000, 0x8000, 0x3f80, 0xbf80, 0x3f00, 0x3fc0, 0x4000, 0x0001, 0x8001, 0x007f, 0x807f, 0x0080, 0x8080,
            0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x7fff, 0x7f81, 0xffc0, 0xff91, 0x3f81, 0x3f7f, 0x4049, 0x4f00, 0x0040,
    };
    static final long[] F8_EDGE = {0x00, 0x80, 0x7f, 0xff, 0x7e, 0xfe, 0x01, 0x81, 0x07, 0x08, 0x78, 0x7b, 0x7c, 0x7d, 0xfc, 0x38, 0x3c, 0x40};

    private static long[] intEdges(int bits) {
        long m = bits == 64 ? -1L : (1L << bits) - 1;
        long min = 1L << (bits - 1);
        long[] e = {0, 1, 2, 3, m, m - 1, min, min - 1, min + 1, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x10000,
                0x7fffff, 0x800000, 0xffffff, 0x1000000, 0x7fffffffL, 0x80000000L, 0xffffffffL, 0x100000000L, -2, -3, -0x80, -0x8000,
                0x12345678L, 0x9abcdef0L, 0x0123456789abcdefL, 0xfedcba9876543210L, 10, -10, 7, -7, 0x55555555L, 0xaaaaaaaaL};
        long[] out = new long[e.length];
        for (int i = 0; i < e.length; i++) out[i] = e[i] & m;
        return out;
    }

    private static final long[] I16_EDGE = intEdges(16), I32_EDGE = intEdges(32), I64_EDGE = intEdges(64);
    private static final long[] SH_EDGE = {0, 1, 2, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256, 0xffffffffL, 0x80000000L, 0x80000001L};
    private static final long[] BF_EDGE = {0, 1, 2, 3, 4, 7, 8, 15, 16, 24, 31, 32, 33, 63, 64, 65, 255, 256, 257, 0xffffffffL, 0x80000000L};

    private static long pick(SplittableRandom r, long[] edges) {
        return edges[r.nextInt(edges.length)];
    }

    /** One operand value, as the bits of its register. {@code prev} is the previous operand of the tuple (or -1). */
    private static long value(V v, SplittableRandom r, boolean edge, long prev, V prevV) {
        switch (v) {
            case I16, I32, I64 -> {
                int bits = v.size * 8;
                long m = bits == 64 ? -1L : (1L << bits) - 1;
                if (edge) return pick(r, bits == 16 ? I16_EDGE : bits == 32 ? I32_EDGE : I64_EDGE);
                return switch (r.nextInt(4)) {
                    case 0 -> (r.nextInt(512) - 256) & m;
                    case 1 -> r.nextLong() & m >>> r.nextInt(bits);
                    default -> r.nextLong() & m;
                };
            }
            case SH -> {
                return edge ? pick(r, SH_EDGE) : r.nextInt(4) == 0 ? r.nextLong() & 0xffffffffL : r.nextInt(80);
            }
            case BF -> {
                return edge ? pick(r, BF_EDGE) : r.nextInt(8) == 0 ? r.nextLong() & 0xffffffffL : r.nextInt(70);
            }
            case BOOL -> {
                return r.nextInt(2);
            }
            case SMALL -> {
                return r.nextInt(4);
            }
            case LANE -> {
                return edge ? pick(r, new long[] {0, 1, 2, 16, 31, 32, 33}) : r.nextInt(40);
            }
            case CLAMP -> {
                return pick(r, new long[] {0x1f, 0x0, 0x1c1f, 0x181f, 0x101f, 0x0c1f, 0x1c00, 0x1f1f, 0x0f, 0x1c0f}) | (r.nextInt(8) == 0 ? r.nextLong() & 0xffffe0e0L : 0);
            }
            case SEL -> {
                return r.nextInt(3) == 0 ? r.nextLong() & 0xffffffffL : r.nextInt(0x10000);
            }
            case F8X2 -> {
                long lo = edge ? pick(r, F8_EDGE) : r.nextInt(256), hi = r.nextBoolean() ? pick(r, F8_EDGE) : r.nextInt(256);
                return lo | hi << 8;
            }
            case F16X2, BF16X2 -> {
                V h = v == V.F16X2 ? V.F16 : V.BF16;
                boolean has = prevV == v;
                long lo = value(h, r, edge, prev & 0xffff, has ? h : null);
                long hi = value(h, r, r.nextInt(3) == 0, prev >>> 16 & 0xffff, has ? h : null);
                return lo | hi << 16;
            }
            default -> {
                // floats: edge values, values near the previous operand (cancellation, ties), random bit patterns
                int bits = v.size * 8;
                long m = bits == 64 ? -1L : (1L << bits) - 1;
                long sign = 1L << (bits - 1);
                if (prevV == v && r.nextInt(6) == 0) {
                    long p = prev;
                    return switch (r.nextInt(3)) {
                        case 0 -> p ^ sign;                                   // -prev
                        case 1 -> (p ^ sign) + (r.nextInt(5) - 2) & m;        // -prev ± a few ulps
                        default -> p + (r.nextInt(5) - 2) & m;                // prev ± a few ulps
                    };
                }
                if (edge) {
                    return pick(r, switch (v) {
                        case F16 -> F16_EDGE;
                        case BF16 -> BF16_EDGE;
                        case F32 -> F32_EDGE;
                        default -> F64_EDGE;
                    });
                }
                int expBits = switch (v) {
                    case F16 -> 5;
                    case BF16, F32 -> 8;
                    default -> 11;
                };
                int mantBits = bits - 1 - expBits;
                long bias = (1L << (expBits - 1)) - 1;
                return switch (r.nextInt(5)) {
                    case 0 -> r.nextLong() & m;                                                            // any bits
                    case 1 -> {                                                                            // near 1 (±16 binades)
                        long e = bias + r.nextInt(33) - 16;
                        yield (r.nextBoolean() ? sign : 0) | e << mantBits | (r.nextLong() & ((1L << mantBits) - 1));
                    }
                    case 2 -> {                                                                            // small: subnormals and the smallest normals
                        long e = r.nextInt(3);
                        yield (r.nextBoolean() ? sign : 0) | e << mantBits | (r.nextLong() & ((1L << mantBits) - 1)) >>> r.nextInt(mantBits);
                    }
                    case 3 -> {                                                                            // short mantissas (exact or tie cases)
                        long e = bias + r.nextInt(61) - 30;
                        if (e <= 0) e = 1;
                        long mant = (r.nextLong() & ((1L << mantBits) - 1)) & ~((1L << Math.max(0, mantBits - 1 - r.nextInt(6))) - 1);
                        yield (r.nextBoolean() ? sign : 0) | (e & ((1L << expBits) - 1)) << mantBits | mant;
                    }
                    default -> {                                                                           // large: near overflow and integers
                        long e = (1L << expBits) - 2 - r.nextInt(Math.min(70, (int) bias));
                        yield (r.nextBoolean() ? sign : 0) | e << mantBits | (r.nextLong() & ((1L << mantBits) - 1));
                    }
                };
            }
        }
    }

    /**
     * The inputs of a form: {@link #N} tuples of {@link #IN_BYTES} bytes (little endian), the first half
     * drawn mostly from edge values, the second half at random; a pure function of {@link #SEED} and the name.
     */
    public static byte[] inputs(Form f) {
        SplittableRandom r = new SplittableRandom(SEED ^ (long) f.name().hashCode() * 0x9E3779B97F4A7C15L);
        ByteBuffer bb = ByteBuffer.allocate(N * IN_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < N; i++) {
            long prev = -1;
            V prevV = null;
            for (int j = 0; j < 4; j++) {
                long val = 0;
                if (j < f.ops().length) {
                    V v = f.ops()[j];
                    boolean edge = i < N / 2 ? r.nextInt(4) != 0 : r.nextInt(10) == 0;
                    val = value(v, r, edge, prev, prevV);
                    prev = val;
                    prevV = v;
                }
                bb.putLong(i * IN_BYTES + 8 * j, val);
            }
        }
        return bb.array();
    }

    /** CRC-32 of {@link #inputs}. */
    public static long inputCrc(Form f) {
        CRC32 c = new CRC32();
        c.update(inputs(f));
        return c.getValue();
    }

    /** The form of a name, or null. */
    public static Form byName(String name) {
        return BY_NAME.get(name);
    }
}
