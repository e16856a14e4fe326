package dev.zluda.ptx.llvm;

import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.ir.Mod;
import dev.zluda.ptx.ir.Mod.Flag;
import dev.zluda.ptx.ir.Mod.Rounding;
import dev.zluda.ptx.ir.Mod.StateSpace;
import dev.zluda.ptx.ir.Operand;
import dev.zluda.ptx.ir.Operand.*;
import java.util.List;

import dev.zluda.ptx.llvm.LlvmEmitter.Fn;
import dev.zluda.ptx.llvm.LlvmEmitter.Ins;
import dev.zluda.ptx.llvm.LlvmEmitter.Unsupported;

import static dev.zluda.ptx.llvm.LlvmEmitter.*;

/**
 * Conversions: cvt, cvt.pack and cvta (PTX ISA 9.0, 9.7.9.21, 9.7.9.22, 9.7.9.20), lowered for {@link LlvmEmitter}
 * through its function context {@link Fn}.
 */
final class ConvertLowering {
    private ConvertLowering() {}

    /** The rounding modifiers the general cvt lowering takes, in the order the last one written wins. */
    static final List<Rounding> CVT_ROUNDING = List.of(Rounding.RN, Rounding.RZ, Rounding.RM, Rounding.RP, Rounding.RNI,
            Rounding.RZI, Rounding.RMI, Rounding.RPI);

    static void cvt(Fn f, Ins x) {
        PtxType d = x.type(0), s = x.type(1);
        if (d == null || s == null) throw new Unsupported(x.i.form() + " is not supported");
        boolean di = isInt(d), si = isInt(s);
        boolean ftz = x.has(Flag.FTZ);
        if (x.has(Flag.PACK)) {
            cvtPack(f, x);
            return;
        }
        if (isFp8(d) || isFp8(s)) {
            cvtFp8(f, x, d, s);
            return;
        }
        if (x.has(Rounding.RNA) || x.has(Flag.RELU) || x.has(Flag.SATFINITE) || d == PtxType.F16X2 || d == PtxType.BF16X2 || d == PtxType.TF32) {
            cvtRounded16(f, x, d, s);
            return;
        }
        Rounding rnd = null;
        for (Rounding r : CVT_ROUNDING) if (x.has(r)) rnd = r;
        for (Mod m : x.mods) {
            if (!(m instanceof Mod.Type) && !CVT_ROUNDING.contains(m) && m != Flag.FTZ && m != Flag.SAT) {
                throw new Unsupported(x.i.form() + " is not supported by the LLVM back end (" + m.text() + ")");
            }
        }
        if (x.types.size() != 2) throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
        int dbits = d.size() * 8, sbits = s.size() * 8;
        boolean ds = d.kind() == PtxType.Kind.SIGNED, ss = s.kind() == PtxType.Kind.SIGNED;
        if (di && si) {
            String a = f.read(x.op(1), sbits, ss);
            String r;
            if (x.has(Flag.SAT)) {
                // clamp the source value to the destination's range
                int w = 72;
                String wide = f.resize(a, sbits, w, ss);
                long lo = ds ? -(1L << (dbits - 1)) : 0;
                String hiC = ds ? Long.toString((1L << (dbits - 1)) - 1) : dbits == 64 ? "18446744073709551615" : Long.toString((1L << dbits) - 1);
                String c1 = f.call("i72", "llvm.smax.i72", "i72, i72", "i72 " + wide + ", i72 " + lo);
                String c2 = f.call("i72", "llvm.smin.i72", "i72, i72", "i72 " + c1 + ", i72 " + hiC);
                r = f.resize(c2, w, dbits, false);
            } else {
                r = f.resize(a, sbits, dbits, ss);
            }
            writeCvtInt(f, x.op(0), r, dbits, ds);
            return;
        }
        if (!si && !di) {
            if (!isFloatType(d) || !isFloatType(s)) throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
            String a = f.readF(x.op(1), s);
            if (ftz && s == PtxType.F32) a = FloatLowering.flush(f, a, s);
            String r;
            if (d == s && rnd == null && x.has(Flag.SAT)) {
                r = a;                                   // cvt.sat.f32.f32: only the clamp (and .ftz)
            } else if (d == s) {
                if (rnd == null) throw new Unsupported(x.i.form() + " needs an integer rounding modifier");
                String fn = switch (rnd) { case RNI -> "roundeven"; case RZI -> "trunc"; case RMI -> "floor"; case RPI -> "ceil";
                    default -> throw new Unsupported(x.i.form() + " is not supported"); };
                r = f.call(fty(d), "llvm." + fn + "." + sfx(d), fty(d), fty(d) + " " + a);
            } else if (d.size() > s.size()) {
                if (rnd != null) throw new Unsupported(x.i.form() + ": a widening conversion takes no rounding modifier");
                r = f.v("fpext " + fty(s) + " " + a + " to " + fty(d));
                if (ftz && s == PtxType.F32 && d == PtxType.F64) {
                    // with .ftz an H200 gives the canonical f32 NaN widened (recorded data, conformance/h200)
                    String nan = f.v("fcmp uno double " + r + ", 0.0");
                    r = f.v("select i1 " + nan + ", double 0x7FFFFFFFE0000000, double " + r);
                }
            } else {
                if (rnd == null) throw new Unsupported(x.i.form() + " needs a rounding modifier");
                if (rnd == Rounding.RN) {
                    if (s.size() == d.size()) {
                        // f16 <-> bf16: exact to f32, then one rounding
                        a = f.v("fpext " + fty(s) + " " + a + " to float");
                        r = f.v("fptrunc float " + a + " to " + fty(d));
                    } else {
                        r = f.v("fptrunc " + fty(s) + " " + a + " to " + fty(d));
                    }
                } else if (f.target().nvvmMath() && s == PtxType.F64 && d == PtxType.F32 && !rnd.integral()) {
                    r = f.call("float", "llvm.nvvm.d2f." + FloatLowering.nvvm(rnd) + (ftz ? ".ftz" : ""), "double", "double " + a);
                } else if (CvtRounding.mode(rnd) && s.size() > d.size() && (s == PtxType.F32 || s == PtxType.F64)) {
                    // directed f32/f64 -> f16/bf16 (every target), f64 -> f32 (where NVPTX's intrinsics are not used)
                    String bits = f.cvtRounding.fromFloat(f.read(x.op(1), sbits, false), CvtRounding.Format.of(s), CvtRounding.Format.of(d),
                            rnd, false, s == PtxType.F32);
                    r = f.v("bitcast " + ity(dbits) + " " + f.resize(bits, 64, dbits, false) + " to " + fty(d));
                } else {
                    throw new Unsupported(x.i.form() + ": rounding mode " + rnd.text() + " is not supported" + (f.target().amd() ? " on AMD GPUs (only .rn)" : ""));
                }
            }
            if (ftz && d == PtxType.F32) r = FloatLowering.flush(f, r, d);
            if (x.has(Flag.SAT)) r = FloatLowering.sat(f, r, d);
            f.writeF(x.op(0), r, d);
            return;
        }
        if (!si) {
            // float to integer: round as asked, then saturate; NaN gives 0 (PTX ISA 9.7.9.21)
            boolean bf64 = s == PtxType.BF16 && dbits == 64 && !ftz && !x.has(Flag.SAT);
            if (!isFloatType(s) || (s == PtxType.BF16 && !bf64)) throw new Unsupported(x.i.form() + " is not supported");
            String a = f.readF(x.op(1), s);
            if (bf64) {
                // bf16 to a 64-bit integer: exact in f32, rounded there as asked
                a = f.v("fpext bfloat " + a + " to float");
                s = PtxType.F32;
            }
            if (ftz && s == PtxType.F32) a = FloatLowering.flush(f, a, s);
            if (rnd == null) throw new Unsupported(x.i.form() + " needs an integer rounding modifier");
            String fn = switch (rnd) { case RNI -> "roundeven"; case RZI -> "trunc"; case RMI -> "floor"; case RPI -> "ceil";
                default -> throw new Unsupported(x.i.form() + ": float to integer takes .rni .rzi .rmi .rpi"); };
            String rounded = f.call(fty(s), "llvm." + fn + "." + sfx(s), fty(s), fty(s) + " " + a);
            String it = ity(dbits);
            boolean f64 = s == PtxType.F64;
            if (s == PtxType.F16) {
                rounded = f.v("fpext half " + rounded + " to float");
                s = PtxType.F32;
            }
            String r = f.call(it, "llvm.fpto" + (ds ? "s" : "u") + "i.sat." + it + "." + sfx(s), fty(s), fty(s) + " " + rounded);
            if (f64 || dbits == 64) {
                // NaN (measured on an H200): from .f64 the most negative signed value of the destination's width,
                // also for unsigned destinations; into 64 bits 1 << 63 (fptoi.sat gives 0, as from narrower formats)
                String nan = f.v("fcmp uno " + fty(s) + " " + rounded + ", 0.0");
                r = f.v("select i1 " + nan + ", " + it + " " + f.constant(1L << (dbits - 1), dbits) + ", " + it + " " + r);
            }
            writeCvtInt(f, x.op(0), r, dbits, ds);
            return;
        }
        // integer to float
        if (d == PtxType.BF16 && sbits == 64 && rnd != null && !rnd.integral() && x.mods.size() == 3) {
            f.writeF(x.op(0), i64ToBf16(f, f.read(x.op(1), 64, false), ss, rnd), d);
            return;
        }
        if (CvtRounding.mode(rnd) && FloatLowering.directed(f, rnd) && (d == PtxType.F16 || (!f.target().nvvmMath() && (d == PtxType.F32 || d == PtxType.F64)))) {
            // directed integer -> f16 (every target), -> f32/f64 (where NVPTX's intrinsics are not used)
            String bits = f.cvtRounding.fromInt(f.resize(f.read(x.op(1), sbits, ss), sbits, 64, ss), ss, CvtRounding.Format.of(d), rnd);
            String r = f.v("bitcast " + ity(dbits) + " " + f.resize(bits, 64, dbits, false) + " to " + fty(d));
            if (x.has(Flag.SAT)) r = FloatLowering.sat(f, r, d);
            f.writeF(x.op(0), r, d);
            return;
        }
        if (!isFloatType(d) || d == PtxType.BF16) throw new Unsupported(x.i.form() + " is not supported");
        String a = f.read(x.op(1), sbits, ss);
        String r;
        if (rnd == null || rnd == Rounding.RN) {
            if (rnd == null) throw new Unsupported(x.i.form() + " needs a rounding modifier");
            r = f.v((ss ? "sitofp " : "uitofp ") + ity(sbits) + " " + a + " to " + fty(d));
        } else if (!f.target().amd() && (d == PtxType.F32 || d == PtxType.F64) && sbits <= 64 && !rnd.integral()) {
            if (sbits < 32) {                            // 8- and 16-bit values convert exactly through 32 bits
                a = f.resize(a, sbits, 32, ss);
                sbits = 32;
            }
            String src = sbits == 32 ? (ss ? "i" : "ui") : (ss ? "ll" : "ull");
            String dst = d == PtxType.F32 ? "f" : "d";
            r = f.call(fty(d), "llvm.nvvm." + src + "2" + dst + "." + FloatLowering.nvvm(rnd), ity(sbits), ity(sbits) + " " + a);
        } else {
            throw new Unsupported(x.i.form() + ": rounding mode " + rnd.text() + " is not supported" + (f.target().amd() ? " on AMD GPUs (only .rn)" : ""));
        }
        if (x.has(Flag.SAT)) r = FloatLowering.sat(f, r, d);
        f.writeF(x.op(0), r, d);
    }

    /**
     * {@code cvt.{rn,rz,rm,rp}.bf16.{s64,u64}} (PTX ISA 9.0, 9.7.9.21): the 64-bit integer {@code a} rounded once to
     * bf16 in the given mode ({@link CvtRounding#fromInt}); 0 gives +0. Returns the result as {@code bfloat}.
     */
    static String i64ToBf16(Fn f, String a, boolean signed, Rounding rnd) {
        String bits = f.cvtRounding.fromInt(a, signed, CvtRounding.Format.BF16, rnd);
        return f.v("bitcast i16 " + f.resize(bits, 64, 16, false) + " to bfloat");
    }

    /**
     * {@code cvt.pack.sat.T.s32.b32 d, a, b, c} for T = u8, s8 and {@code cvt.pack.sat.T.s32 d, a, b} for T = u16,
     * s16 (PTX ISA 9.0, 9.7.9.22): a and b (s32) are clamped to T's range; 8-bit T gives
     * d = c[15:0] << 16 | a << 8 | b, 16-bit T gives d = a << 16 | b. Plain integer IR, the same for every target.
     */
    static void cvtPack(Fn f, Ins x) {
        PtxType t = x.type(0);
        boolean byte8 = t == PtxType.U8 || t == PtxType.S8;
        boolean half16 = t == PtxType.U16 || t == PtxType.S16;
        if (!x.has(Flag.SAT) || !(byte8 || half16) || x.type(1) != PtxType.S32 || x.types.size() != (byte8 ? 3 : 2)
                || (byte8 && x.type(2) != PtxType.B32) || x.mods.size() != x.types.size() + 2
                || x.i.arity() != (byte8 ? 4 : 3)) {
            throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
        }
        int bits = t.size() * 8;
        boolean signed = t.kind() == PtxType.Kind.SIGNED;
        long lo = signed ? -(1L << (bits - 1)) : 0, hi = signed ? (1L << (bits - 1)) - 1 : (1L << bits) - 1;
        String[] v = new String[2];
        for (int k = 0; k < 2; k++) {
            String a = f.read(x.op(k + 1), 32, true);
            String c1 = f.call("i32", "llvm.smax.i32", "i32, i32", "i32 " + a + ", i32 " + lo);
            String c2 = f.call("i32", "llvm.smin.i32", "i32, i32", "i32 " + c1 + ", i32 " + hi);
            v[k] = f.v("and i32 " + c2 + ", " + ((1L << bits) - 1));
        }
        String r = f.v("or i32 " + f.v("shl i32 " + v[0] + ", " + bits) + ", " + v[1]);
        if (byte8) {
            String c = f.read(x.op(3), 32, false);
            r = f.v("or i32 " + r + ", " + f.v("shl i32 " + c + ", 16"));
        }
        f.write(x.op(0), r, 32, false);
    }

    /**
     * The cvt forms with {@code .relu}, {@code .satfinite} or {@code .rna} lowered in plain IR, the same for every
     * target (PTX ISA 9.0, 9.7.9.21): {@code cvt.rn{.relu}{.satfinite}.{f16,bf16}.f32 d, a} and
     * {@code cvt.rn{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b} (a to the upper half) round to nearest even;
     * {@code .relu} makes a negative or zero result +0, {@code .satfinite} makes a result of magnitude beyond the
     * largest finite value (infinity included) that value with its sign; a NaN result is the canonical NaN
     * 0x7fff. {@code cvt.rna{.satfinite}.tf32.f32 d, a} rounds the f32 bits half away from zero to 10 mantissa
     * bits (the low 13 bits of d are zero); as an NVIDIA H200 computes it, a NaN's payload is truncated, and
     * with {@code .satfinite} a result at or beyond infinity (a NaN included) is lowered by one tf32 ulp (2^13
     * in the bits). {@code cvt.{rn,rz}{.relu}.tf32.f32} and {@code cvt.rz{.relu}{.satfinite}.{f16x2,bf16x2}.f32} are
     * {@link CvtRounding}'s. Others are refused; fp8 is {@code cvtFp8}.
     */
    static void cvtRounded16(Fn f, Ins x, PtxType d, PtxType s) {
        boolean relu = x.has(Flag.RELU), satfinite = x.has(Flag.SATFINITE);
        if (d == PtxType.TF32 && s == PtxType.F32 && (x.has(Rounding.RN) || x.has(Rounding.RZ)) && !satfinite && x.types.size() == 2
                && x.mods.size() == (relu ? 4 : 3) && x.i.arity() == 2) {
            f.write(x.op(0), f.cvtRounding.tf32(f.read(x.op(1), 32, false), x.has(Rounding.RN) ? Rounding.RN : Rounding.RZ, relu), 32, false);
            return;
        }
        if (d == PtxType.TF32 && s == PtxType.F32 && x.has(Rounding.RNA) && !relu && x.types.size() == 2
                && x.mods.size() == (satfinite ? 4 : 3) && x.i.arity() == 2) {
            String a = f.read(x.op(1), 32, false);
            String nan = f.v("fcmp uno float " + f.v("bitcast i32 " + a + " to float") + ", 0.0");
            String rounded = f.v("add i32 " + a + ", 4096");
            String t = f.v("and i32 " + f.v("select i1 " + nan + ", i32 " + a + ", i32 " + rounded) + ", -8192");
            if (satfinite) {
                String big = f.v("icmp uge i32 " + f.v("and i32 " + t + ", 2147483647") + ", 2139095040");
                t = f.v("select i1 " + big + ", i32 " + f.v("sub i32 " + t + ", 8192") + ", i32 " + t);
            }
            f.write(x.op(0), t, 32, false);
            return;
        }
        boolean pair = d == PtxType.F16X2 || d == PtxType.BF16X2;
        PtxType lane = d == PtxType.F16 || d == PtxType.F16X2 ? PtxType.F16 : d == PtxType.BF16 || d == PtxType.BF16X2 ? PtxType.BF16 : null;
        boolean rz = pair && x.has(Rounding.RZ);
        if (lane == null || s != PtxType.F32 || !(x.has(Rounding.RN) || rz) || x.types.size() != 2
                || x.mods.size() != 3 + (relu ? 1 : 0) + (satfinite ? 1 : 0) || x.i.arity() != (pair ? 3 : 2)) {
            throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
        }
        String ty = fty(lane);
        String inf = lane == PtxType.F16 ? "31744" : "32640";            // 0x7c00, 0x7f80
        String result = null;
        for (int k = 1; k <= (pair ? 2 : 1); k++) {
            if (rz) {
                // toward zero in integer IR; .relu first makes a negative value (not a NaN) +0
                String a = f.read(x.op(k), 32, false);
                if (relu) a = f.v("select i1 " + f.v("icmp ugt i32 " + a + ", 2147483647") + ", i32 "
                        + f.v("select i1 " + f.v("icmp ule i32 " + a + ", 4286578688") + ", i32 0, i32 " + a) + ", i32 " + a);
                String b = f.resize(f.cvtRounding.fromFloat(a, CvtRounding.Format.F32, CvtRounding.Format.of(lane), Rounding.RZ, satfinite, true), 64, 16, false);
                String w = f.resize(b, 16, 32, false);
                result = k == 1 ? f.v("shl i32 " + w + ", 16") : f.v("or i32 " + result + ", " + w);
                continue;
            }
            String r = f.v("fptrunc float " + f.readF(x.op(k), PtxType.F32) + " to " + ty);
            if (relu) r = f.v("select i1 " + f.v("fcmp ole " + ty + " " + r + ", 0.0") + ", " + ty + " 0.0, " + ty + " " + r);
            String b = f.v("bitcast " + ty + " " + r + " to i16");
            if (satfinite) {
                // infinity minus one in the bits is the largest finite value of the same sign
                String isInf = f.v("icmp eq i16 " + f.v("and i16 " + b + ", 32767") + ", " + inf);
                b = f.v("select i1 " + isInf + ", i16 " + f.v("sub i16 " + b + ", 1") + ", i16 " + b);
            }
            b = f.v("select i1 " + f.v("fcmp uno " + ty + " " + r + ", 0.0") + ", i16 32767, i16 " + b);
            if (!pair) result = b;
            else {
                String w = f.resize(b, 16, 32, false);
                result = k == 1 ? f.v("shl i32 " + w + ", 16") : f.v("or i32 " + result + ", " + w);
            }
        }
        f.write(x.op(0), result, pair ? 32 : 16, false);
    }

    static boolean isFp8(PtxType t) {
        return t == PtxType.E4M3X2 || t == PtxType.E5M2X2;
    }

    /**
     * The fp8 conversions (PTX ISA 9.0, 9.7.9.21) in plain integer and f32 IR, the same for every target:
     * {@code cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, a, b} (a to the upper byte of the 16-bit d) and
     * {@code cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 d, a} (a's upper half to the upper byte) round to
     * nearest even; {@code .satfinite} makes a magnitude beyond the largest finite value (infinity included)
     * that value with its sign (448 = 0x7e for e4m3, 57344 = 0x7b for e5m2); a NaN gives 0x7f; {@code .relu}
     * makes a negative value +0. {@code cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, a} is exact (the upper byte to the
     * upper half); a NaN gives 0x7fff and {@code .relu} makes a negative result +0. NaN encodings and signs as an
     * NVIDIA H200 computes them (recorded data, conformance/h200).
     */
    static void cvtFp8(Fn f, Ins x, PtxType d, PtxType s) {
        boolean relu = x.has(Flag.RELU), satfinite = x.has(Flag.SATFINITE);
        boolean toFp8 = isFp8(d) && (s == PtxType.F32 || s == PtxType.F16X2), fromFp8 = d == PtxType.F16X2 && isFp8(s);
        if (!x.has(Rounding.RN) || x.types.size() != 2 || (!toFp8 && !fromFp8) || satfinite != toFp8
                || x.mods.size() != 3 + (relu ? 1 : 0) + (satfinite ? 1 : 0)
                || x.i.arity() != (toFp8 && s == PtxType.F32 ? 3 : 2)) {
            throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
        }
        boolean e4 = (toFp8 ? d : s) == PtxType.E4M3X2;
        if (fromFp8) {
            String a = f.read(x.op(1), 16, false);
            String result = null;
            for (int k = 1; k >= 0; k--) {
                String b = k == 1 ? f.v("lshr i16 " + a + ", 8") : a;
                b = f.v("and i16 " + b + ", 255");
                String mag = f.v("and i16 " + b + ", 127");
                String neg = f.v("icmp uge i16 " + b + ", 128");
                String nan, h;
                if (e4) {
                    nan = f.v("icmp eq i16 " + mag + ", 127");
                    // normal: the exponent rebiased from 7 to 15; subnormal m * 2^-9 through f32's bits
                    String normal = f.v("add i16 " + f.v("shl i16 " + mag + ", 7") + ", 8192");
                    String fb = f.v("bitcast float " + f.v("uitofp i16 " + mag + " to float") + " to i32");
                    String sub = f.v("trunc i32 " + f.v("sub i32 " + f.v("lshr i32 " + fb + ", 13") + ", 123904") + " to i16");
                    sub = f.v("select i1 " + f.v("icmp eq i16 " + mag + ", 0") + ", i16 0, i16 " + sub);
                    h = f.v("select i1 " + f.v("icmp ult i16 " + mag + ", 8") + ", i16 " + sub + ", i16 " + normal);
                    h = f.v("or i16 " + h + ", " + f.v("select i1 " + neg + ", i16 -32768, i16 0"));
                } else {
                    nan = f.v("icmp ugt i16 " + mag + ", 124");
                    h = f.v("shl i16 " + b + ", 8");
                }
                if (relu) h = f.v("select i1 " + neg + ", i16 0, i16 " + h);
                h = f.v("select i1 " + nan + ", i16 32767, i16 " + h);
                String w = f.resize(h, 16, 32, false);
                result = k == 1 ? f.v("shl i32 " + w + ", 16") : f.v("or i32 " + result + ", " + w);
            }
            f.write(x.op(0), result, 32, false);
            return;
        }
        String[] in = new String[2];
        if (s == PtxType.F32) {
            in[0] = f.read(x.op(1), 32, false);
            in[1] = f.read(x.op(2), 32, false);
        } else {
            String a = f.read(x.op(1), 32, false);
            for (int k = 0; k < 2; k++) {
                String half = f.v("trunc i32 " + (k == 0 ? f.v("lshr i32 " + a + ", 16") : a) + " to i16");
                in[k] = f.v("bitcast float " + f.v("fpext half " + f.v("bitcast i16 " + half + " to half") + " to float") + " to i32");
            }
        }
        long minNormal = e4 ? 0x3c800000L : 0x38800000L;         // 2^-6, 2^-14
        String scale = e4 ? "0x4080000000000000" : "0x40F0000000000000"; // 2^9, 2^16: the subnormal quantum's inverse
        int shift = e4 ? 20 : 21, rebias = e4 ? (127 - 7) << 3 : (127 - 15) << 2, max = e4 ? 0x7e : 0x7b;
        String result = null;
        for (int k = 0; k < 2; k++) {
            String a = in[k];
            String mag = f.v("and i32 " + a + ", 2147483647");
            String neg = f.v("icmp slt i32 " + a + ", 0");
            String nan = f.v("icmp ugt i32 " + mag + ", 2139095040");
            // subnormal results: |a| scaled so that the quantum is 1, rounded to an integer (an f32 subnormal gives 0)
            String scaled = f.v("fmul float " + f.v("bitcast i32 " + mag + " to float") + ", " + scale);
            String sub = f.v("fptoui float " + f.call("float", "llvm.roundeven.f32", "float", "float " + scaled) + " to i32");
            // normal results: the f32 bits rounded to nearest even at the fp8 mantissa, rebiased; past max saturated
            String odd = f.v("and i32 " + f.v("lshr i32 " + mag + ", " + shift) + ", 1");
            String r = f.v("lshr i32 " + f.v("add i32 " + f.v("add i32 " + mag + ", " + ((1 << (shift - 1)) - 1)) + ", " + odd) + ", " + shift);
            String normal = f.call("i32", "llvm.umin.i32", "i32, i32", "i32 " + f.v("sub i32 " + r + ", " + rebias) + ", i32 " + max);
            String bits = f.v("select i1 " + f.v("icmp ult i32 " + mag + ", " + minNormal) + ", i32 " + sub + ", i32 " + normal);
            bits = f.v("or i32 " + bits + ", " + f.v("select i1 " + neg + ", i32 128, i32 0"));
            if (relu) bits = f.v("select i1 " + neg + ", i32 0, i32 " + bits);
            bits = f.v("select i1 " + nan + ", i32 127, i32 " + bits);
            result = k == 0 ? f.v("shl i32 " + bits + ", 8") : f.v("or i32 " + result + ", " + bits);
        }
        f.write(x.op(0), f.resize(result, 32, 16, false), 16, false);
    }

    /** An integer result of cvt: 8-bit destinations are extended to the register by their own signedness. */
    static void writeCvtInt(Fn f, Operand dst, String r, int dbits, boolean ds) {
        f.write(dst, r, dbits, ds);
    }

    static void cvta(Fn f, Ins x) {
        // cvta.space.size d, a (generic from space) / cvta.to.space.size d, a (space from generic)
        boolean to = x.has(Flag.TO);
        StateSpace space = null;
        for (StateSpace m : x.mods.all(StateSpace.class)) if (spaceOf(m) != 0 && spaceOf(m) != 101) space = m;
        PtxType t = x.type(0);
        if (space == null || t == null) throw new Unsupported(x.i.form() + " is not supported");
        int bits = t.size() * 8;
        int as = spaceOf(space);
        String a = f.read(x.op(1), bits, false);
        if (as == 1) {                       // global and generic addresses are equal
            f.write(x.op(0), a, bits, false);
            return;
        }
        String r;
        if (to) {
            String p = f.v("inttoptr " + ity(bits) + " " + a + " to ptr");
            String q = f.v("addrspacecast ptr " + p + " to " + f.as(as));
            r = f.v("ptrtoint " + f.as(as) + " " + q + " to " + ity(bits));
        } else {
            String p = f.v("inttoptr " + ity(bits) + " " + a + " to " + f.as(as));
            String q = f.v("addrspacecast " + f.as(as) + " " + p + " to ptr");
            r = f.v("ptrtoint ptr " + q + " to " + ity(bits));
        }
        f.write(x.op(0), r, bits, false);
    }
}
