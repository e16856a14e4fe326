package dev.zluda.ptx.llvm;

/**
 * The {@code .approx} transcendental functions {@code sin cos lg2 ex2 tanh} (PTX ISA 9.0, §9.7.3: sin, cos, lg2, ex2, tanh; and
 * §9.7.4: ex2, tanh on halves) in target-neutral LLVM IR, for targets without NVPTX's {@code llvm.nvvm.*.approx} intrinsics (AMD
 * GPUs, whose code objects carry no math library). Everything is computed in double precision with range reduction
 * and polynomials that are exact to about 1e-15 relative, then rounded once to the destination format, so the
 * results are the functions' values correctly rounded but for rare near-ties (the emulator's models of the same
 * forms; the PTX ISA's error bounds are far wider: sin/cos 2^-20.5 absolute in [-100π, 100π], ex2 2 ulp, lg2
 * 2^-22.6 absolute in [0.5, 2], tanh 2^-10.987 relative).
 *
 * <ul>
 *   <li>{@code ex2}: y = n + f (n = rint(y), |f| ≤ 1/2, exact), 2^f by its Taylor series to degree 12, scaled by
 *   2^n built from exponent bits; the operand clamped to [-200, 200] first (every f32 result is 0 or ∞ outside).</li>
 *   <li>{@code lg2}: x = 2^e · m with m in [√½, √2) read from the double's bits (f32 subnormals are normal
 *   doubles), log m = 2 atanh(s), s = (m − 1)/(m + 1), |s| ≤ 0.172, by its series to s^21.</li>
 *   <li>{@code sin cos}: reduced as an NVIDIA GPU does, in turns: t = a · (1/2π)_f32 rounded toward zero in f32
 *   (subnormal operand and t flushed), the fraction of a turn f = t − rint(t) rounded to nearest at 2^-24 of a
 *   turn; huge operands are whole turns (sin ±0, cos 1), as on an NVIDIA H200, whose own results are poor there
 *   (docs/support.md). This model of the reduction was chosen over the emulator's (product rounded to nearest,
 *   fraction truncated) by the recorded H200 results (conformance/h200): with it {@code cos.approx} is within 54
 *   ulp of them, not 4.9 million. cos x = sin(2π(¼ − |f|)); sin of the quarter-turn-folded angle by its Taylor
 *   series to degree 21.</li>
 *   <li>{@code tanh}: x − x³/3 + … to degree 11 for |x| &lt; 1/16, else (e − 1)/(e + 1) with e = 2^(2|x| log2 e),
 *   |x| clamped to 20, with the operand's sign.</li>
 * </ul>
 *
 * <p>Special values as the PTX ISA gives them: sin/cos(±∞) = NaN, sin(±0) = ±0, ex2(−∞) = +0, ex2(+∞) = +∞,
 * lg2(±0) = −∞, lg2(negative) = NaN, lg2(+∞) = +∞, tanh(±∞) = ±1; NaN results are the canonical NaN (0x7fffffff for
 * f32, 0x7fff for the half types), as an NVIDIA H200 gives them. {@code .ftz} flushes a subnormal operand and a
 * subnormal result to zero of its sign. The half-precision forms compute in double and round once to f16/bf16
 * ({@link CvtRounding}, to nearest even).
 */
final class ApproxMath {
    private final CvtRounding.Ir ir;
    private final CvtRounding rounding;

    ApproxMath(CvtRounding.Ir ir) {
        this.ir = ir;
        this.rounding = new CvtRounding(ir);
    }

    private String v(String rhs) { return ir.v(rhs); }

    private static String d(double x) { return String.format("0x%016X", Double.doubleToRawLongBits(x)); }

    private String sel(String c, String ty, String a, String b) { return v("select i1 " + c + ", " + ty + " " + a + ", " + ty + " " + b); }

    private String fabs(String a) { return ir.call("double", "llvm.fabs.f64", "double", "double " + a); }

    private String copysign(String mag, String sgn) {
        return ir.call("double", "llvm.copysign.f64", "double, double", "double " + mag + ", double " + sgn);
    }

    /** Horner's scheme: c[0] + x (c[1] + x (c[2] + …)), all in double. */
    private String horner(String x, double[] c) {
        String r = d(c[c.length - 1]);
        for (int k = c.length - 2; k >= 0; k--) r = v("fadd double " + v("fmul double " + r + ", " + x) + ", " + d(c[k]));
        return r;
    }

    /** ln(2)^k / k!, k = 0..12: 2^f = e^(f ln 2) for |f| ≤ 1/2 to about 2e-16 relative. */
    private static final double[] EXP2;
    /** (-1)^k / (2k+1)!, k = 0..10: sin z / z in z², for |z| ≤ π/2 to about 1e-18. */
    private static final double[] SIN;
    /** 1/(2k+1), k = 0..10: atanh(s)/s in s², for |s| ≤ 0.172. */
    private static final double[] ATANH;
    /** tanh x / x in x² (1, -1/3, 2/15, -17/315, 62/2835, -1382/155925), for |x| &lt; 1/16 to about 1e-17. */
    private static final double[] TANH = {1, -1.0 / 3, 2.0 / 15, -17.0 / 315, 62.0 / 2835, -1382.0 / 155925};

    static {
        EXP2 = new double[13];
        double c = 1;
        for (int k = 0; k < EXP2.length; k++) {
            EXP2[k] = c;
            c = c * Math.log(2) / (k + 1);
        }
        SIN = new double[11];
        double fact = 1;
        for (int k = 0; k < SIN.length; k++) {
            if (k > 0) fact *= (2.0 * k) * (2.0 * k + 1);
            SIN[k] = (k % 2 == 0 ? 1 : -1) / fact;
        }
        ATANH = new double[11];
        for (int k = 0; k < ATANH.length; k++) ATANH[k] = 1.0 / (2 * k + 1);
    }

    /** 2^y for y a finite double in [-1000, 1000]. */
    private String exp2(String y) {
        String n = ir.call("double", "llvm.rint.f64", "double", "double " + y);
        String f = v("fsub double " + y + ", " + n);                        // exact, |f| <= 1/2
        String p = horner(f, EXP2);
        String e = v("add i64 " + v("fptosi double " + n + " to i64") + ", 1023");
        String scale = v("bitcast i64 " + v("shl i64 " + e + ", 52") + " to double");
        return v("fmul double " + p + ", " + scale);
    }

    /** A double clamped to [lo, hi], NaN replaced by 0 (its result is selected away). */
    private String clamp(String y, double lo, double hi) {
        String c = sel(v("fcmp ogt double " + y + ", " + d(hi)), "double", d(hi), y);
        c = sel(v("fcmp olt double " + c + ", " + d(lo)), "double", d(lo), c);
        return sel(v("fcmp uno double " + y + ", 0.0"), "double", "0.0", c);
    }

    /** An f32 subnormal to zero of its sign. */
    private String flushF32(String a) {
        String abs = ir.call("float", "llvm.fabs.f32", "float", "float " + a);
        String zero = ir.call("float", "llvm.copysign.f32", "float, float", "float 0.0, float " + a);
        return sel(v("fcmp olt float " + abs + ", 0x3810000000000000"), "float", zero, a);
    }

    /** The double rounded to f32 ({@code ftz}: a subnormal result flushed), as i32 bits; NaN to 0x7fffffff. */
    private String f32Bits(String r, boolean ftz, String nan) {
        String f = v("fptrunc double " + r + " to float");
        if (ftz) f = flushF32(f);
        String bits = v("bitcast float " + f + " to i32");
        return sel(nan, "i32", "2147483647", bits);
    }

    /** {@code ex2.approx{.ftz}.f32}: {@code a} a float, result i32 bits. */
    String ex2F32(String a, boolean ftz) {
        String x = ftz ? flushF32(a) : a;
        String y = v("fpext float " + x + " to double");
        return f32Bits(exp2(clamp(y, -200, 200)), ftz, v("fcmp uno float " + a + ", 0.0"));
    }

    /** log2 of a positive finite normal double. */
    private String log2(String y) {
        String bits = v("bitcast double " + y + " to i64");
        String e = v("sub i64 " + v("lshr i64 " + bits + ", 52") + ", 1023");
        String m = v("bitcast i64 " + v("or i64 " + v("and i64 " + bits + ", 4503599627370495") + ", 4607182418800017408") + " to double");
        String big = v("fcmp ogt double " + m + ", " + d(Math.sqrt(2)));
        m = sel(big, "double", v("fmul double " + m + ", 0.5"), m);
        e = v("add i64 " + e + ", " + v("zext i1 " + big + " to i64"));
        String s = v("fdiv double " + v("fsub double " + m + ", 1.0") + ", " + v("fadd double " + m + ", 1.0"));
        String ln = v("fmul double " + v("fmul double " + s + ", 2.0") + ", " + horner(v("fmul double " + s + ", " + s), ATANH));
        String l2 = v("fmul double " + ln + ", " + d(1 / Math.log(2)));
        return v("fadd double " + v("sitofp i64 " + e + " to double") + ", " + l2);
    }

    /** {@code lg2.approx{.ftz}.f32}: {@code a} a float, result i32 bits. */
    String lg2F32(String a, boolean ftz) {
        String x = ftz ? flushF32(a) : a;
        String y = v("fpext float " + x + " to double");
        String ok = v("and i1 " + v("fcmp ogt double " + y + ", 0.0") + ", " + v("fcmp olt double " + y + ", " + d(Double.POSITIVE_INFINITY)));
        String r = log2(sel(ok, "double", y, "1.0"));
        r = sel(v("fcmp oeq double " + y + ", 0.0"), "double", d(Double.NEGATIVE_INFINITY), r);
        r = sel(v("fcmp oeq double " + y + ", " + d(Double.POSITIVE_INFINITY)), "double", d(Double.POSITIVE_INFINITY), r);
        return f32Bits(r, ftz, v("fcmp ult double " + y + ", 0.0"));     // negative or NaN
    }

    /** {@code sin.approx{.ftz}.f32} or {@code cos.approx{.ftz}.f32}: {@code a} a float, result i32 bits. */
    String sinCosF32(String a, boolean cos, boolean ftz) {
        // t = a * (1/2π) rounded toward zero in f32: the product is exact in double; a nearest f32 above it in
        // magnitude is moved one ulp toward zero (also ∞ from a finite product, to the largest finite value)
        String p = v("fmul double " + v("fpext float " + flushF32(a) + " to double") + ", " + d(0.15915494f));
        String tn = v("fptrunc double " + p + " to float");
        String over = v("fcmp ogt double " + fabs(v("fpext float " + tn + " to double")) + ", " + fabs(p));
        String tb = v("bitcast float " + tn + " to i32");
        String t = flushF32(v("bitcast i32 " + sel(over, "i32", v("sub i32 " + tb + ", 1"), tb) + " to float"));
        String td = v("fpext float " + t + " to double");
        String bad = v("fcmp uno double " + v("fsub double " + td + ", " + td) + ", 0.0");  // ±inf or NaN
        td = sel(bad, "double", "0.0", td);
        String f = v("fsub double " + td + ", " + ir.call("double", "llvm.rint.f64", "double", "double " + td));
        String q = v("fmul double " + ir.call("double", "llvm.rint.f64", "double", "double " + v("fmul double " + fabs(f) + ", " + d(0x1p24))) + ", " + d(0x1p-24));
        String g;
        if (cos) {
            g = v("fsub double 0.25, " + q);
        } else {
            g = copysign(q, f);
            g = sel(v("fcmp oeq double " + q + ", 0.0"), "double", copysign("0.0", td), g);
        }
        g = sel(v("fcmp ogt double " + g + ", 0.25"), "double", v("fsub double 0.5, " + g), g);
        g = sel(v("fcmp olt double " + g + ", -0.25"), "double", v("fsub double -0.5, " + g), g);
        String z = v("fmul double " + d(2 * Math.PI) + ", " + g);
        String r = v("fmul double " + z + ", " + horner(v("fmul double " + z + ", " + z), SIN));
        return f32Bits(r, ftz, bad);
    }

    /** tanh of a finite double (to about 1e-14 relative). */
    private String tanh(String y) {
        String ax = fabs(y);
        String small = horner(v("fmul double " + y + ", " + y), TANH);
        small = v("fmul double " + y + ", " + small);
        String axc = sel(v("fcmp ogt double " + ax + ", 20.0"), "double", "20.0", ax);
        String e = exp2(v("fmul double " + axc + ", " + d(2 / Math.log(2))));
        String big = v("fdiv double " + v("fsub double " + e + ", 1.0") + ", " + v("fadd double " + e + ", 1.0"));
        return sel(v("fcmp olt double " + ax + ", 0.0625"), "double", small, copysign(big, y));
    }

    /** {@code tanh.approx.f32}: {@code a} a float, result i32 bits. */
    String tanhF32(String a) {
        String y = v("fpext float " + a + " to double");
        String nan = v("fcmp uno double " + y + ", 0.0");
        return f32Bits(tanh(sel(nan, "double", "0.0", y)), false, nan);
    }

    /**
     * {@code ex2.approx.f16}, {@code ex2.approx.ftz.bf16}, {@code tanh.approx.{f16,bf16}} on one 16-bit lane:
     * {@code h} its bits (i16); result i16 bits, rounded once from double to nearest even, NaN 0x7fff.
     */
    String half(String h, boolean bf, boolean ex2, boolean ftz) {
        int expMask = bf ? 0x7F80 : 0x7C00;
        String y;
        if (bf) {
            String w = v("shl i32 " + v("zext i16 " + h + " to i32") + ", 16");
            y = v("fpext float " + v("bitcast i32 " + w + " to float") + " to double");
        } else {
            y = v("fpext half " + v("bitcast i16 " + h + " to half") + " to double");
        }
        if (ftz) {
            String sub = v("icmp eq i16 " + v("and i16 " + h + ", " + expMask) + ", 0");
            y = sel(sub, "double", copysign("0.0", y), y);
        }
        String nan = v("fcmp uno double " + y + ", 0.0");
        String r = ex2 ? exp2(clamp(y, -200, 200)) : tanh(sel(nan, "double", "0.0", y));
        CvtRounding.Format fmt = bf ? CvtRounding.Format.BF16 : CvtRounding.Format.F16;
        String bits = rounding.fromFloat(v("bitcast double " + r + " to i64"), CvtRounding.Format.F64, fmt, dev.zluda.ptx.ir.Mod.Rounding.RN, false, true);
        String o = v("trunc i64 " + bits + " to i16");
        if (ftz) {
            String sub = v("icmp eq i16 " + v("and i16 " + o + ", " + expMask) + ", 0");
            o = sel(sub, "i16", v("and i16 " + o + ", -32768"), o);
        }
        return sel(nan, "i16", "32767", o);
    }
}
