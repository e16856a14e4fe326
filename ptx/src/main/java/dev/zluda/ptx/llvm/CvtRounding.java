package dev.zluda.ptx.llvm;

import dev.zluda.ptx.ir.Mod.Rounding;

/**
 * Rounding conversions of {@code cvt} (PTX ISA 9.0, §9.7.9.21) in plain integer LLVM IR, the same for every target:
 * one rounding, in any of the modes {@code .rn .rz .rm .rp}, of a value given as sign, integer magnitude and
 * binary exponent, to an IEEE 754 binary format (f16, bf16, f32, f64, and tf32 as the f32 bit pattern with
 * its low 13 bits zero). The magnitude is normalised with {@code llvm.ctlz}, the bits the format keeps (fewer
 * for a subnormal result) are cut off, and the dropped bits decide the rounding, so that subnormal results,
 * the carry of a rounding into the exponent and overflow (to infinity or to the largest finite value, as
 * IEEE 754 says for the mode, or always the largest finite value with {@code .satfinite}) come out of the same
 * integer sequence. Used where LLVM IR has no instruction for the rounding (directed modes; and on AMD targets,
 * which have no {@code llvm.nvvm.*} intrinsics, the directed integer → f32/f64 and f64 → f32 conversions).
 *
 * <p>NaN results follow what an NVIDIA H200 computes (recorded data, {@code conformance/h200}): from an f32
 * source to f16/bf16 the canonical NaN 0x7fff, from an f64 source a quiet NaN with the source's sign and the
 * top bits of its payload.
 */
final class CvtRounding {
    /** The emitter's text helpers: {@code v} binds an instruction to a fresh value and returns its name. */
    interface Ir {
        /** Emits {@code %t = rhs} and returns {@code %t}. */
        String v(String rhs);

        /** Emits a call of {@code fn} (declared as needed) and returns its value. */
        String call(String retTy, String fn, String argDecl, String args);
    }

    /**
     * A binary floating-point format in the IEEE 754 layout: sign, {@code expBits} exponent bits (bias
     * 2^(expBits-1) − 1, gradual underflow, the top exponent for infinities and NaNs), {@code mantBits} stored
     * significand bits.
     */
    record Format(int expBits, int mantBits) {
        static final Format F16 = new Format(5, 10), BF16 = new Format(8, 7), F32 = new Format(8, 23), F64 = new Format(11, 52);

        int bias() { return (1 << (expBits - 1)) - 1; }

        /** Width of the encoding in bits. */
        int width() { return 1 + expBits + mantBits; }

        long inf() { return ((1L << expBits) - 1) << mantBits; }

        long signBit() { return 1L << (expBits + mantBits); }

        /** The format of an f16, bf16, f32 or f64 PTX type, or null. */
        static Format of(dev.zluda.ptx.PtxType t) {
            return switch (t) {
                case F16 -> F16;
                case BF16 -> BF16;
                case F32 -> F32;
                case F64 -> F64;
                default -> null;
            };
        }
    }

    private final Ir ir;

    CvtRounding(Ir ir) {
        this.ir = ir;
    }

    private String v(String rhs) {
        return ir.v(rhs);
    }

    /** Whether this class lowers the rounding mode ({@code .rn .rz .rm .rp}). */
    static boolean mode(Rounding rnd) {
        return rnd == Rounding.RN || rnd == Rounding.RZ || rnd == Rounding.RM || rnd == Rounding.RP;
    }

    /**
     * The value (−1)^neg · mag · 2^scale rounded once to {@code f} in mode {@code rnd}.
     *
     * @param neg       i1, the sign
     * @param mag       i64, the magnitude as an unsigned integer (0 gives a zero of the sign)
     * @param scale     i32, the binary exponent of {@code mag}'s unit
     * @param satfinite overflow (but not an infinite input, which the callers handle) gives the largest finite
     *                  value in every mode
     * @return i64 holding the encoding of the result in its low {@code f.width()} bits
     */
    String round(String neg, String mag, String scale, Format f, Rounding rnd, boolean satfinite) {
        int emin = 1 - f.bias();
        String lz = ir.call("i64", "llvm.ctlz.i64", "i64, i1", "i64 " + mag + ", i1 false");
        String lzc = ir.call("i64", "llvm.umin.i64", "i64, i64", "i64 " + lz + ", i64 63");
        String n = v("shl i64 " + mag + ", " + lzc);                               // top bit set (mag != 0)
        // the value is n · 2^(e - 63), e the exponent of its leading bit
        String e = v("add i32 " + v("sub i32 63, " + v("trunc i64 " + lzc + " to i32")) + ", " + scale);
        // bits of n below the ones kept: 63 - mantBits for a normal result, more for a subnormal one; n is
        // shifted down by 2 first (its low 2 bits kept as a sticky bit), so that a drop count clamped to 63
        // still rounds a value below a quarter of the result's quantum correctly
        String under = ir.call("i32", "llvm.smax.i32", "i32, i32", "i32 " + v("sub i32 " + emin + ", " + e) + ", i32 0");
        String d32 = ir.call("i32", "llvm.umin.i32", "i32, i32", "i32 " + v("add i32 " + under + ", " + (61 - f.mantBits())) + ", i32 63");
        String d = v("zext i32 " + d32 + " to i64");
        String nn = v("or i64 " + v("lshr i64 " + n + ", 2") + ", " + v("zext i1 " + v("icmp ne i64 " + v("and i64 " + n + ", 3") + ", 0") + " to i64"));
        String kept = v("lshr i64 " + nn + ", " + d);
        String rem = v("and i64 " + nn + ", " + v("sub i64 " + v("shl i64 1, " + d) + ", 1"));
        String half = v("shl i64 1, " + v("sub i64 " + d + ", 1"));
        String inexact = v("icmp ne i64 " + rem + ", 0");
        String up = switch (rnd) {
            case RN -> v("or i1 " + v("icmp ugt i64 " + rem + ", " + half) + ", "
                    + v("and i1 " + v("icmp eq i64 " + rem + ", " + half) + ", " + v("trunc i64 " + kept + " to i1")));
            case RZ -> "false";
            case RM -> v("and i1 " + inexact + ", " + neg);
            case RP -> v("and i1 " + inexact + ", " + v("xor i1 " + neg + ", true"));
            default -> throw new IllegalArgumentException("rounding mode " + rnd.text());
        };
        // (max(e, emin) + bias - 1) << mantBits + kept: the leading bit of a normal kept completes the exponent;
        // a subnormal kept has no leading bit there and the exponent field 0; a carry of up raises the exponent
        String ex = ir.call("i32", "llvm.smax.i32", "i32, i32", "i32 " + e + ", i32 " + emin);
        String base = v("shl i64 " + v("sext i32 " + v("add i32 " + ex + ", " + (f.bias() - 1)) + " to i64") + ", " + f.mantBits());
        String bits = v("add i64 " + v("add i64 " + base + ", " + kept) + ", " + v("zext i1 " + up + " to i64"));
        // overflow: infinity where IEEE 754 rounds there (.rn, .rp of a positive, .rm of a negative value)
        String toInf = satfinite ? "false" : switch (rnd) {
            case RN -> "true";
            case RM -> neg;
            case RP -> v("xor i1 " + neg + ", true");
            default -> "false";
        };
        String big = v("select i1 " + toInf + ", i64 " + f.inf() + ", i64 " + (f.inf() - 1));
        bits = v("select i1 " + v("icmp sge i64 " + bits + ", " + f.inf()) + ", i64 " + big + ", i64 " + bits);
        bits = v("select i1 " + v("icmp eq i64 " + mag + ", 0") + ", i64 0, i64 " + bits);
        return v("or i64 " + bits + ", " + v("select i1 " + neg + ", i64 " + f.signBit() + ", i64 0"));
    }

    /**
     * An integer rounded to {@code f} ({@code cvt.{rn,rz,rm,rp}.F.{s,u}N}).
     *
     * @param a      i64, the source value extended to 64 bits by its signedness
     * @param signed whether the source type is signed
     * @return i64 holding the encoding in its low {@code f.width()} bits
     */
    String fromInt(String a, boolean signed, Format f, Rounding rnd) {
        String neg = signed ? v("icmp slt i64 " + a + ", 0") : "false";
        String mag = signed ? v("select i1 " + neg + ", i64 " + v("sub i64 0, " + a) + ", i64 " + a) : a;
        return round(neg, mag, "0", f, rnd, false);
    }

    /**
     * A float of format {@code src} (its bits as an integer of {@code src.width()} bits) rounded to the narrower
     * format {@code dst} ({@code cvt.{rn,rz,rm,rp}{.satfinite}.DST.SRC}). Infinity stays infinity (with
     * {@code satfinite} the largest finite value of its sign); a NaN gives {@code dst}'s canonical NaN (all
     * magnitude bits set, positive) where {@code canonicalNan}, else a quiet NaN with the source's sign and the
     * top bits of its payload (f64 sources on an NVIDIA H200).
     *
     * @return i64 holding the encoding in its low {@code dst.width()} bits
     */
    String fromFloat(String a, Format src, Format dst, Rounding rnd, boolean satfinite, boolean canonicalNan) {
        String ty = "i" + src.width();
        String x = src.width() == 64 ? a : v("zext " + ty + " " + a + " to i64");
        long magMask = src.signBit() - 1, fracMask = (1L << src.mantBits()) - 1;
        String neg = v("icmp ne i64 " + v("and i64 " + x + ", " + src.signBit()) + ", 0");
        String abs = v("and i64 " + x + ", " + magMask);
        String expField = v("lshr i64 " + abs + ", " + src.mantBits());
        String frac = v("and i64 " + x + ", " + fracMask);
        String normal = v("icmp ne i64 " + expField + ", 0");
        String mag = v("or i64 " + frac + ", " + v("select i1 " + normal + ", i64 " + (1L << src.mantBits()) + ", i64 0"));
        String ef = v("trunc i64 " + call64("llvm.umax.i64", expField, "1") + " to i32");
        String scale = v("sub i32 " + ef + ", " + (src.bias() + src.mantBits()));
        String r = round(neg, mag, scale, dst, rnd, satfinite);
        String sign = v("select i1 " + neg + ", i64 " + dst.signBit() + ", i64 0");
        String inf = v("or i64 " + sign + ", " + (satfinite ? dst.inf() - 1 : dst.inf()));
        r = v("select i1 " + v("icmp eq i64 " + abs + ", " + src.inf()) + ", i64 " + inf + ", i64 " + r);
        String nan;
        if (canonicalNan) {
            nan = Long.toString(dst.signBit() - 1);
        } else {
            long quiet = 1L << (dst.mantBits() - 1);
            String payload = v("lshr i64 " + frac + ", " + (src.mantBits() - dst.mantBits()));
            nan = v("or i64 " + v("or i64 " + sign + ", " + (dst.inf() | quiet)) + ", " + payload);
        }
        return v("select i1 " + v("icmp ugt i64 " + abs + ", " + src.inf()) + ", i64 " + nan + ", i64 " + r);
    }

    /**
     * {@code cvt.{rn,rz}{.relu}.tf32.f32 d, a}: the f32 bits of {@code a} (i32) rounded to 10 stored significand
     * bits, to nearest even or toward zero, as an f32 bit pattern whose low 13 bits are zero (PTX ISA 9.0,
     * §9.7.9.21; tf32 has f32's exponent range, so subnormals round at the same bit and f32's largest value
     * rounds to infinity in {@code .rn}). A NaN gives 0x7fffe000 and {@code .relu} makes a negative value, −0
     * included, +0, as an NVIDIA H200 computes them.
     *
     * @return i32
     */
    String tf32(String a, Rounding rnd, boolean relu) {
        String r = switch (rnd) {
            case RN -> v("add i32 " + v("add i32 " + a + ", 4095") + ", " + v("and i32 " + v("lshr i32 " + a + ", 13") + ", 1"));
            case RZ -> a;
            default -> throw new IllegalArgumentException("rounding mode " + rnd.text());
        };
        r = v("and i32 " + r + ", -8192");
        if (relu) r = v("select i1 " + v("icmp slt i32 " + a + ", 0") + ", i32 0, i32 " + r);
        String nan = v("icmp ugt i32 " + v("and i32 " + a + ", 2147483647") + ", 2139095040");
        return v("select i1 " + nan + ", i32 2147475456, i32 " + r);
    }

    private String call64(String fn, String a, String b) {
        return ir.call("i64", fn, "i64, i64", "i64 " + a + ", i64 " + b);
    }
}
