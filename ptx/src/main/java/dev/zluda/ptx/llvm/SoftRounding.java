package dev.zluda.ptx.llvm;

import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.ir.Mod.Rounding;
import dev.zluda.ptx.ir.Opcode;

import java.util.Locale;

/**
 * Directed rounding ({@code .rz .rm .rp}) of f32/f64 {@code add sub mul fma mad div rcp sqrt} in target-neutral
 * LLVM IR, for targets without NVPTX's {@code llvm.nvvm.*.r[zmp]*} intrinsics (AMD GPUs; see
 * {@link LlvmTarget#nvvmMath()}). Semantics: PTX ISA 9.0, 9.7.3 (each result is the exact value rounded once in the
 * asked mode, IEEE 754-2008; {@code .ftz} flushes subnormal inputs and results to zero of their sign).
 *
 * <p>The method: the round-to-nearest result {@code r} is computed with ordinary IR; whether the exact value lies
 * below or above it is decided from an error-free transformation — the exact error of a sum (TwoSum), of a
 * product ({@code fma(a, b, -p)}), the remainder of a quotient ({@code fma(-q, b, a)}) or a square root
 * ({@code fma(-s, s, a)}), the exact sum of the remaining terms of an fma (an expansion of TwoSums); then
 * {@code r} is moved one ulp (integer arithmetic on its bits) toward −∞, +∞ or zero where the mode requires it.
 * Round-to-nearest and the directed result are always neighbours, so one step is enough.
 *
 * <ul>
 *   <li>f32: every operation is carried out in f64 — products of two f32 are exact there, sums and remainders
 *   are exact by the transformations above — giving the exact value or, where it is not exact, its f64 rounding
 *   to odd (53 bits, more than 24 + 2, so that rounding it once more to f32 in any mode is the correct rounding
 *   of the exact value). That f64 value is rounded to nearest f32 and corrected by comparing the two. With
 *   {@code .ftz} a result whose exact value is below 2<sup>−126</sup> in magnitude is flushed before rounding
 *   (tininess before rounding, as an NVIDIA H200 does for {@code mul.ftz}).</li>
 *   <li>f64: the error terms are not exact near the bottom of the exponent range, so there the operands are first
 *   scaled by a power of two (exact), which preserves the sign of the error; an overflow to ±∞ from finite
 *   operands (only the sign of the exact value is known) becomes ±MAX where the mode rounds toward zero.</li>
 *   <li>Signed zeros: an exact zero sum is −0 under {@code .rm} ({@code x + (−x)}), +0 otherwise (IEEE 754, 6.3).</li>
 *   <li>NaN: an f32 NaN result is the canonical NaN {@code 0x7fffffff}; an f64 NaN result is the one the target's
 *   own round-to-nearest operation gives.</li>
 * </ul>
 */
final class SoftRounding {
    /** The emitter's instruction sink: {@code v} emits {@code %t = rhs} and returns {@code %t}. */
    interface Ir {
        String v(String rhs);

        String call(String retTy, String fn, String argDecl, String args);
    }

    private final Ir ir;

    SoftRounding(Ir ir) {
        this.ir = ir;
    }

    /** Whether this class lowers {@code op} (PTX opcode) of type {@code t} with a directed rounding mode. */
    static boolean handles(Opcode op, PtxType t) {
        if (t != PtxType.F32 && t != PtxType.F64) return false;
        return switch (op) {
            case ADD, SUB, MUL, FMA, MAD, DIV, RCP, SQRT -> true;
            default -> false;
        };
    }

    /**
     * The directed-rounding result of {@code op} ({@code add sub mul fma mad div rcp sqrt}) on {@code a} (LLVM
     * {@code float} or {@code double} values, as many as the operation takes), rounded by {@code rnd}
     * ({@code .rz .rm .rp}); with {@code ftz} (f32 only) subnormal operands and results are flushed. {@code .sat} is
     * the caller's (a clamp after rounding).
     */
    String lower(Opcode op, PtxType t, Rounding rnd, boolean ftz, String[] a) {
        char mode = switch (rnd) {
            case RZ -> 'z';
            case RM -> 'm';
            case RP -> 'p';
            default -> throw new IllegalArgumentException(rnd.text());
        };
        if (op == Opcode.MAD) op = Opcode.FMA;
        return t == PtxType.F32 ? f32(op, mode, ftz, a) : f64(op, mode, a);
    }

    // ------------------------------------------------------------------ f32, through f64

    private String f32(Opcode op, char mode, boolean ftz, String[] in) {
        String[] a = in.clone();
        if (ftz) for (int k = 0; k < a.length; k++) a[k] = flush32(a[k]);
        String[] x = new String[a.length];
        for (int k = 0; k < a.length; k++) x[k] = v("fpext float " + a[k] + " to double");
        // d: the exact value, or its f64 rounding to odd
        String d = switch (op) {
            case ADD -> sumToOdd(x[0], x[1]);
            case SUB -> sumToOdd(x[0], v("fneg double " + x[1]));
            case MUL -> v("fmul double " + x[0] + ", " + x[1]);                  // exact: 48 bits
            case FMA -> sumToOdd(v("fmul double " + x[0] + ", " + x[1]), x[2]);  // the product is exact
            case DIV, RCP -> {
                String num = op == Opcode.DIV ? x[0] : "1.0", den = op == Opcode.DIV ? x[1] : x[0];
                String q = v("fdiv double " + num + ", " + den);
                // remainder num - q*den, exact for f32 operands; sign(num/den - q) = sign(rem) * sign(den)
                String rem = fma64(v("fneg double " + q), den, num);
                String[] ba = quotientError(rem, den);
                yield toOdd(q, ba[0], ba[1]);
            }
            case SQRT -> {
                String s = ir.call("double", "llvm.sqrt.f64", "double", "double " + x[0]);
                String rem = fma64(v("fneg double " + s), s, x[0]);                // exact; sign(sqrt(a) - s)
                yield toOdd(s, v("fcmp olt double " + rem + ", 0.0"), v("fcmp ogt double " + rem + ", 0.0"));
            }
            default -> throw new IllegalArgumentException(op.key());
        };
        String f = v("fptrunc double " + d + " to float");
        String back = v("fpext float " + f + " to double");
        String r = step(f, "float", 32, mode, v("fcmp olt double " + d + ", " + back), v("fcmp ogt double " + d + ", " + back));
        if (mode == 'm' && (op == Opcode.ADD || op == Opcode.SUB || op == Opcode.FMA)) r = zeroUnderRm(r, "float", op, a, v("fcmp oeq double " + d + ", 0.0"));
        if (ftz) {
            // tininess before rounding: the exact value (d compares with 2^-126 as it does) below the smallest normal
            String dAbs = ir.call("double", "llvm.fabs.f64", "double", "double " + d);
            String tiny = v("and i1 " + v("fcmp olt double " + dAbs + ", 0x3810000000000000") + ", " + v("fcmp one double " + d + ", 0.0"));
            String zero = v("fptrunc double " + ir.call("double", "llvm.copysign.f64", "double, double", "double 0.0, double " + d) + " to float");
            r = v("select i1 " + tiny + ", float " + zero + ", float " + r);
        }
        String nan = v("fcmp uno float " + r + ", 0.0");
        return v("select i1 " + nan + ", float 0x7FFFFFFFE0000000, float " + r);
    }

    /** Subnormal f32 to zero of its sign. */
    private String flush32(String a) {
        String abs = ir.call("float", "llvm.fabs.f32", "float", "float " + a);
        String sub = v("fcmp olt float " + abs + ", 0x3810000000000000");
        String zero = ir.call("float", "llvm.copysign.f32", "float, float", "float 0.0, float " + a);
        return v("select i1 " + sub + ", float " + zero + ", float " + a);
    }

    /** x + y (f64 values that are f32 values or their exact products) rounded to odd: TwoSum, then the sticky bit. */
    private String sumToOdd(String x, String y) {
        String[] se = twoSum(x, y);
        return toOdd(se[0], v("fcmp olt double " + se[1] + ", 0.0"), v("fcmp ogt double " + se[1] + ", 0.0"));
    }

    /**
     * The rounding to odd of the exact value, given its round-to-nearest f64 {@code s} and whether it lies below
     * ({@code below}) or above ({@code above}) {@code s}: the neighbour toward zero, with its last bit set when
     * inexact.
     */
    private String toOdd(String s, String below, String above) {
        String bits = v("bitcast double " + s + " to i64");
        String neg = v("icmp slt i64 " + bits + ", 0");
        // the exact value is nearer zero than s: s's magnitude is one ulp too large
        String shrink = v("select i1 " + neg + ", i1 " + above + ", i1 " + below);
        String trunc = v("sub i64 " + bits + ", " + v("zext i1 " + shrink + " to i64"));
        String inexact = v("or i1 " + below + ", " + above);
        String odd = v("or i64 " + trunc + ", " + v("zext i1 " + inexact + " to i64"));
        return v("bitcast i64 " + odd + " to double");
    }

    // ------------------------------------------------------------------ f64

    private static final String TWO_M960 = hex(0x03F0000000000000L);   // 2^-960
    private static final String TWO_M900 = hex(0x07B0000000000000L);   // 2^-900
    private static final String TWO_1000 = hex(0x7E70000000000000L);   // 2^1000
    private static final String TWO_128 = hex(0x47F0000000000000L);    // 2^128
    private static final String TWO_550 = hex(0x6250000000000000L);    // 2^550
    private static final String TWO_600 = hex(0x6570000000000000L);    // 2^600
    private static final String TWO_M550 = hex(0x1D90000000000000L);   // 2^-550
    private static final String MIN_SUB = hex(1L);                    // 2^-1074
    private static final String INF = hex(0x7FF0000000000000L);
    private static final String NEG_INF = hex(0xFFF0000000000000L);

    private static String hex(long bits) {
        return "0x" + String.format(Locale.ROOT, "%016X", bits);
    }

    private String f64(Opcode op, char mode, String[] a) {
        String r, below, above;
        switch (op) {
            case ADD, SUB -> {
                String b = op == Opcode.SUB ? v("fneg double " + a[1]) : a[1];
                String[] se = twoSum(a[0], b);
                r = op == Opcode.SUB ? v("fsub double " + a[0] + ", " + a[1]) : se[0];
                String[] ov = overflow(r, finite(a[0], a[1]));
                below = v("or i1 " + v("fcmp olt double " + se[1] + ", 0.0") + ", " + ov[0]);
                above = v("or i1 " + v("fcmp ogt double " + se[1] + ", 0.0") + ", " + ov[1]);
            }
            case MUL -> {
                r = v("fmul double " + a[0] + ", " + a[1]);
                // a*b - r: exact with fma unless the product is tiny; then the smaller operand and r are scaled
                // by 2^1200 (exact), which keeps the error's sign and makes it representable
                String tiny = v("fcmp olt double " + abs(r) + ", " + TWO_M960);
                String[] mM = minMax(a[0], a[1]);
                String k = v("select i1 " + tiny + ", double " + TWO_600 + ", double 1.0");
                String m = v("fmul double " + v("fmul double " + mM[0] + ", " + k) + ", " + k);
                String p = v("fmul double " + v("fmul double " + r + ", " + k) + ", " + k);
                String err = fma64(m, mM[1], v("fneg double " + p));
                String[] ov = overflow(r, finite(a[0], a[1]));
                below = v("or i1 " + v("fcmp olt double " + err + ", 0.0") + ", " + ov[0]);
                above = v("or i1 " + v("fcmp ogt double " + err + ", 0.0") + ", " + ov[1]);
            }
            case DIV, RCP -> {
                String num = op == Opcode.DIV ? a[0] : "1.0", den = op == Opcode.DIV ? a[1] : a[0];
                r = v("fdiv double " + num + ", " + den);
                // remainder num - r*den, exact with fma unless num is tiny; then num and r are scaled by 2^128
                String tiny = v("fcmp olt double " + abs(num) + ", " + TWO_M960);
                String k = v("select i1 " + tiny + ", double " + TWO_128 + ", double 1.0");
                String rem = fma64(v("fneg double " + v("fmul double " + r + ", " + k)), den, v("fmul double " + num + ", " + k));
                String[] ba = quotientError(rem, den);
                String fin = v("and i1 " + finite(num, den) + ", " + v("fcmp one double " + den + ", 0.0"));
                String[] ov = overflow(r, fin);
                below = v("or i1 " + ba[0] + ", " + ov[0]);
                above = v("or i1 " + ba[1] + ", " + ov[1]);
            }
            case SQRT -> {
                r = ir.call("double", "llvm.sqrt.f64", "double", "double " + a[0]);
                // a - r*r, exact with fma unless a is tiny; then a is scaled by 2^1100 and r by 2^550
                String tiny = v("fcmp olt double " + abs(a[0]) + ", " + TWO_M900);
                String k = v("select i1 " + tiny + ", double " + TWO_550 + ", double 1.0");
                String rs = v("fmul double " + r + ", " + k);
                String as = v("fmul double " + v("fmul double " + a[0] + ", " + k) + ", " + k);
                String rem = fma64(v("fneg double " + rs), rs, as);
                below = v("fcmp olt double " + rem + ", 0.0");
                above = v("fcmp ogt double " + rem + ", 0.0");
            }
            case FMA -> {
                String[] ba = fmaError(a[0], a[1], a[2]);
                r = ba[0];
                below = ba[1];
                above = ba[2];
            }
            default -> throw new IllegalArgumentException(op.key());
        }
        String out = step(r, "double", 64, mode, below, above);
        if (mode == 'm' && (op == Opcode.ADD || op == Opcode.SUB || op == Opcode.FMA)) {
            String exact = v("xor i1 " + v("or i1 " + below + ", " + above) + ", true");
            out = zeroUnderRm(out, "double", op, a, v("and i1 " + exact + ", " + v("fcmp oeq double " + r + ", 0.0")));
        }
        return out;
    }

    /**
     * fma(a, b, c) rounded to nearest, and whether the exact a*b + c lies below or above it. The exact
     * a*b + c - r is the sum of four f64 values (a*b = u1 + u2 by TwoProd, u1 + c = s + t by TwoSum, and -r), whose
     * sign is that of the largest nonzero component of their expansion (Shewchuk's Grow-Expansion, six TwoSums).
     * TwoProd is exact when the product is neither tiny nor huge; otherwise the smaller operand, c and r are
     * scaled by 2^1200 (a tiny product; with |c| ≥ 2^-900 the product is then far below half an ulp of c and the
     * error has the product's sign), or the larger operand, c and r by 2^-1100 (a huge product, when r is at least
     * 2^895 in magnitude or zero, and a c that becomes inexact is far below every other term).
     */
    private String[] fmaError(String a, String b, String c) {
        String r = fma64(a, b, c);
        String u = abs(v("fmul double " + a + ", " + b));
        String tiny = v("fcmp olt double " + u + ", " + TWO_M960);
        String huge = v("fcmp oge double " + u + ", " + TWO_1000);
        String cBig = v("fcmp oge double " + abs(c) + ", " + TWO_M900);
        String up = v("and i1 " + tiny + ", " + v("xor i1 " + cBig + ", true"));
        String[] mM = minMax(a, b);
        String k1 = v("select i1 " + up + ", double " + TWO_600 + ", double 1.0");
        String k2 = v("select i1 " + huge + ", double " + TWO_M550 + ", double 1.0");
        String kk = v("fmul double " + k1 + ", " + k2);
        String m = v("fmul double " + v("fmul double " + mM[0] + ", " + k1) + ", " + k1);
        String big = v("fmul double " + v("fmul double " + mM[1] + ", " + k2) + ", " + k2);
        String cs = v("fmul double " + v("fmul double " + c + ", " + kk) + ", " + kk);
        // a nonzero c scaled down to zero keeps its sign (only its sign can matter then)
        String cLost = v("and i1 " + v("fcmp oeq double " + cs + ", 0.0") + ", " + v("fcmp one double " + c + ", 0.0"));
        cs = v("select i1 " + cLost + ", double " + ir.call("double", "llvm.copysign.f64", "double, double", "double " + MIN_SUB + ", double " + c) + ", double " + cs);
        String rs = v("fmul double " + v("fmul double " + r + ", " + kk) + ", " + kk);
        String u1 = v("fmul double " + m + ", " + big);
        String u2 = fma64(m, big, v("fneg double " + u1));
        String[] st = twoSum(u1, cs);
        // grow the expansion [u2] by t, s and -rs
        String[] e1 = grow(new String[] {u2}, st[1]);
        String[] e2 = grow(e1, st[0]);
        String[] e3 = grow(e2, v("fneg double " + rs));
        String sign = e3[0];
        for (int i = 1; i < e3.length; i++) sign = v("select i1 " + v("fcmp une double " + e3[i] + ", 0.0") + ", double " + e3[i] + ", double " + sign);
        // tiny product, c not small: the error has the product's sign (zero when a or b is zero)
        String prodSign = v("fmul double " + ir.call("double", "llvm.copysign.f64", "double, double", "double 1.0, double " + a)
                + ", " + ir.call("double", "llvm.copysign.f64", "double, double", "double 1.0, double " + b));
        String zeroOp = v("or i1 " + v("fcmp oeq double " + a + ", 0.0") + ", " + v("fcmp oeq double " + b + ", 0.0"));
        prodSign = v("select i1 " + zeroOp + ", double 0.0, double " + prodSign);
        String small = v("and i1 " + tiny + ", " + cBig);
        sign = v("select i1 " + small + ", double " + prodSign + ", double " + sign);
        String fin = v("and i1 " + finite(a, b) + ", " + finite(c, c));
        String rInf = v("fcmp oeq double " + abs(r) + ", " + INF);
        // inputs not finite: r is exact (or NaN); r overflowed: only the sign of the exact value is known
        String use = v("and i1 " + fin + ", " + v("xor i1 " + rInf + ", true"));
        String[] ov = overflow(r, fin);
        String below = v("or i1 " + v("and i1 " + use + ", " + v("fcmp olt double " + sign + ", 0.0")) + ", " + ov[0]);
        String above = v("or i1 " + v("and i1 " + use + ", " + v("fcmp ogt double " + sign + ", 0.0")) + ", " + ov[1]);
        return new String[] {r, below, above};
    }

    /** Shewchuk's Grow-Expansion: the nonoverlapping expansion e (increasing magnitude) plus b, exactly. */
    private String[] grow(String[] e, String b) {
        String[] h = new String[e.length + 1];
        String q = b;
        for (int i = 0; i < e.length; i++) {
            String[] qh = twoSum(q, e[i]);
            q = qh[0];
            h[i] = qh[1];
        }
        h[e.length] = q;
        return h;
    }

    /**
     * {below, above}: whether the exact quotient lies below or above the rounded one, from the remainder
     * {@code num - q*den}: sign(num/den - q) = sign(rem) * sign(den).
     */
    private String[] quotientError(String rem, String den) {
        String pos = v("fcmp ogt double " + rem + ", 0.0"), neg = v("fcmp olt double " + rem + ", 0.0");
        String dn = v("fcmp olt double " + den + ", 0.0");
        return new String[] {v("select i1 " + dn + ", i1 " + pos + ", i1 " + neg), v("select i1 " + dn + ", i1 " + neg + ", i1 " + pos)};
    }

    /** Both finite (not infinite, not NaN). */
    private String finite(String x, String y) {
        return v("and i1 " + v("fcmp olt double " + abs(x) + ", " + INF) + ", " + v("fcmp olt double " + abs(y) + ", " + INF));
    }

    /** r rounded to ±inf from finite operands ({@code fin}): the exact value is below +inf, above -inf. */
    private String[] overflow(String r, String fin) {
        return new String[] {
            v("and i1 " + fin + ", " + v("fcmp oeq double " + r + ", " + INF)),
            v("and i1 " + fin + ", " + v("fcmp oeq double " + r + ", " + NEG_INF))
        };
    }

    /** {smaller, larger} of two values by magnitude. */
    private String[] minMax(String a, String b) {
        String lt = v("fcmp olt double " + abs(a) + ", " + abs(b));
        return new String[] {v("select i1 " + lt + ", double " + a + ", double " + b), v("select i1 " + lt + ", double " + b + ", double " + a)};
    }

    // ------------------------------------------------------------------ shared

    /** TwoSum (Knuth): {s, e} with s = RN(x + y) and x + y = s + e exactly (unless s overflows). */
    private String[] twoSum(String x, String y) {
        String s = v("fadd double " + x + ", " + y);
        String bb = v("fsub double " + s + ", " + x);
        String ab = v("fsub double " + s + ", " + bb);
        String db = v("fsub double " + y + ", " + bb);
        String da = v("fsub double " + x + ", " + ab);
        return new String[] {s, v("fadd double " + da + ", " + db)};
    }

    /**
     * r moved one ulp where the mode requires it, given whether the exact value lies below or above r:
     * toward zero ({@code .rz}), toward -inf ({@code .rm}) or +inf ({@code .rp}). From ±inf (an overflow) one
     * step toward zero is ±MAX.
     */
    private String step(String r, String ty, int bits, char mode, String below, String above) {
        String it = "i" + bits;
        String b = v("bitcast " + ty + " " + r + " to " + it);
        String neg = v("icmp slt " + it + " " + b + ", 0");
        String delta = switch (mode) {
            // toward zero: the magnitude shrinks, whatever the sign
            case 'z' -> v("select i1 " + v("select i1 " + neg + ", i1 " + above + ", i1 " + below) + ", " + it + " -1, " + it + " 0");
            case 'm' -> v("select i1 " + below + ", " + it + " " + v("select i1 " + neg + ", " + it + " 1, " + it + " -1") + ", " + it + " 0");
            default -> v("select i1 " + above + ", " + it + " " + v("select i1 " + neg + ", " + it + " -1, " + it + " 1") + ", " + it + " 0");
        };
        return v("bitcast " + it + " " + v("add " + it + " " + b + ", " + delta) + " to " + ty);
    }

    /**
     * Under {@code .rm} an exact zero sum is -0 unless both addends are +0 (IEEE 754, 6.3): where the exact value
     * is zero ({@code exactZero}) the result is -((-x) + (-y)) rounded to nearest (for fma -((-a)*b + (-c))), which
     * is that zero.
     */
    private String zeroUnderRm(String r, String ty, Opcode op, String[] a, String exactZero) {
        String na = v("fneg " + ty + " " + a[0]);
        String z = switch (op) {
            case ADD -> v("fadd " + ty + " " + na + ", " + v("fneg " + ty + " " + a[1]));
            case SUB -> v("fsub " + ty + " " + na + ", " + v("fneg " + ty + " " + a[1]));
            default -> ir.call(ty, "llvm.fma." + (ty.equals("float") ? "f32" : "f64"), ty + ", " + ty + ", " + ty,
                    ty + " " + na + ", " + ty + " " + a[1] + ", " + ty + " " + v("fneg " + ty + " " + a[2]));
        };
        return v("select i1 " + exactZero + ", " + ty + " " + v("fneg " + ty + " " + z) + ", " + ty + " " + r);
    }

    private String fma64(String a, String b, String c) {
        return ir.call("double", "llvm.fma.f64", "double, double, double", "double " + a + ", double " + b + ", double " + c);
    }

    private String abs(String x) {
        return ir.call("double", "llvm.fabs.f64", "double", "double " + x);
    }

    private String v(String rhs) {
        return ir.v(rhs);
    }
}
