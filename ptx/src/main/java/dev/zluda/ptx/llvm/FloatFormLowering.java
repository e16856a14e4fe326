package dev.zluda.ptx.llvm;

import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.ir.Mod;
import dev.zluda.ptx.ir.Mod.BoolOp;
import dev.zluda.ptx.ir.Mod.Flag;
import dev.zluda.ptx.ir.Mod.Rounding;
import dev.zluda.ptx.ir.Opcode;
import dev.zluda.ptx.ir.Operand.PredPair;
import dev.zluda.ptx.llvm.LlvmEmitter.Fn;
import dev.zluda.ptx.llvm.LlvmEmitter.Ins;
import dev.zluda.ptx.llvm.LlvmEmitter.Unsupported;

import java.util.Set;

/**
 * Floating-point forms lowered for {@link LlvmEmitter} apart from its general float arithmetic: {@code setp} on
 * f16x2/bf16x2, f32 {@code min/max .xorsign.abs}, {@code mul.ftz.f32}, {@code div.full.f32}, and the
 * {@code .approx} forms that NVPTX has only as {@code llvm.nvvm.*} intrinsics or as PTX itself (inline assembly).
 *
 * <p>Everything but the last is target-neutral LLVM IR. {@code div.full} is the one form whose lowering differs
 * by target: where {@link LlvmTarget#nvvmMath()} holds, NVPTX's own {@code div.full} ({@code llvm.nvvm.div.full});
 * elsewhere (AMD GPUs) the correctly rounded quotient, which is within the PTX ISA's 2-ulp bound.
 */
final class FloatFormLowering {
    private FloatFormLowering() {}

    /** A subnormal f32 (exponent field 0) in its {@code fcmp} bound: 2^-126 as LLVM writes a double constant. */
    private static final String MIN_NORMAL_F32 = "0x3810000000000000";

    private static final Mod F32 = Mod.Type.of(PtxType.F32);

    /**
     * {@code setp.CmpOp{.ftz}{.BoolOp}.f16x2 p|q, a, b{, {!}c}} and {@code .bf16x2} (PTX ISA 9.0, setp): p is the
     * comparison of the lower halves (bits 15..0), q of the upper halves, each combined with c by BoolOp when
     * given; {@code .ftz} (f16x2 only) compares subnormal halves as zero of their sign.
     *
     * @throws Unsupported without the pair of destination predicates, or for {@code .ftz} on bf16x2
     */
    static void setpX2(Fn f, Ins x, PtxType t) {
        boolean f16 = t == PtxType.F16X2;
        String bool = x.has(BoolOp.AND) ? "and" : x.has(BoolOp.OR) ? "or" : x.has(BoolOp.XOR) ? "xor" : null;
        boolean ftz = x.has(Flag.FTZ);
        if ((ftz && !f16) || x.mods.distinctCount() != 2 + (ftz ? 1 : 0) + (bool != null ? 1 : 0)) {
            throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
        }
        if (!(x.op(0) instanceof PredPair pp)) throw new Unsupported(x.i.form() + " needs two destination predicates p|q");
        String pred = FloatLowering.fcmpPredicate(x, x.mods.get(0));
        String ty = f16 ? "half" : "bfloat";
        String expMask = f16 ? "31744" : "32640";                  // 0x7c00, 0x7f80
        String a = f.read(x.op(1), 32, false), b = f.read(x.op(2), 32, false);
        String c = bool != null ? f.readPred(x.op(3)) : null;
        String[] r = new String[2];
        for (int l = 0; l < 2; l++) {
            String[] h = new String[2];
            String[] in = {a, b};
            for (int k = 0; k < 2; k++) {
                String w = l == 0 ? in[k] : f.v("lshr i32 " + in[k] + ", 16");
                h[k] = f.v("trunc i32 " + w + " to i16");
                if (ftz) {
                    String z = f.v("icmp eq i16 " + f.v("and i16 " + h[k] + ", " + expMask) + ", 0");
                    h[k] = f.sel(z, "i16", f.v("and i16 " + h[k] + ", -32768"), h[k]);
                }
                h[k] = f.v("bitcast i16 " + h[k] + " to " + ty);
            }
            r[l] = f.v("fcmp " + pred + " " + ty + " " + h[0] + ", " + h[1]);
            if (c != null) r[l] = f.v(bool + " i1 " + r[l] + ", " + c);
        }
        f.writePred(pp.first(), r[0]);
        f.writePred(pp.second(), r[1]);
    }

    /**
     * The f32 arithmetic forms lowered here, or {@code false} for the emitter's general lowering:
     * {@code min/max{.ftz}{.NaN}.xorsign.abs.f32}, {@code div.full{.ftz}.f32} and {@code mul{.rn}.ftz{.sat}.f32}.
     */
    static boolean f32Form(Fn f, Ins x, PtxType t) {
        if (t != PtxType.F32) return false;
        Opcode op = x.opcode();
        if ((op == Opcode.MIN || op == Opcode.MAX) && x.has(Flag.XORSIGN)) {
            xorsignAbs(f, x, op);
            return true;
        }
        if (op == Opcode.DIV && x.has(Flag.FULL)) {
            divFull(f, x);
            return true;
        }
        if (op == Opcode.DIV && x.has(Flag.APPROX) && !f.target().nvvmMath()) {
            divApprox(f, x);
            return true;
        }
        Rounding rnd = FloatLowering.rounding(f, x);
        if (op == Opcode.MUL && x.has(Flag.FTZ) && (rnd == null || rnd == Rounding.RN)) {
            mulFtz(f, x);
            return true;
        }
        return false;
    }

    private static void only(Ins x, Set<Mod> allowed) {
        for (Mod m : x.mods) {
            if (!allowed.contains(m)) throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
        }
    }

    /**
     * {@code min/max{.ftz}{.NaN}.xorsign.abs.f32 d, a, b} (PTX ISA 9.0, min and max): the minimum or maximum of
     * |a| and |b| ({@code .NaN}: NaN when either is NaN, else the other operand of a NaN) with the sign
     * sign(a) XOR sign(b); {@code .ftz} takes subnormal operands as zero of their sign. A NaN result is the
     * canonical NaN 0x7fffffff, as an NVIDIA H200 gives (conformance/h200).
     */
    private static void xorsignAbs(Fn f, Ins x, Opcode op) {
        if (!x.has(Flag.ABS)) throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
        only(x, Set.of(Flag.XORSIGN, Flag.ABS, Flag.NAN, Flag.FTZ, F32));
        String ai = f.read(x.op(1), 32, false), bi = f.read(x.op(2), 32, false);
        String a = f.v("bitcast i32 " + ai + " to float"), b = f.v("bitcast i32 " + bi + " to float");
        if (x.has(Flag.FTZ)) {
            a = FloatLowering.flush(f, a, PtxType.F32);
            b = FloatLowering.flush(f, b, PtxType.F32);
        }
        String p = f.call("float", "llvm.fabs.f32", "float", "float " + a), q = f.call("float", "llvm.fabs.f32", "float", "float " + b);
        String fn = x.has(Flag.NAN) ? (op == Opcode.MIN ? "minimum" : "maximum") : (op == Opcode.MIN ? "minnum" : "maxnum");
        String r = f.call("float", "llvm." + fn + ".f32", "float, float", "float " + p + ", float " + q);
        String bits = f.v("bitcast float " + r + " to i32");
        String sign = f.v("and i32 " + f.v("xor i32 " + ai + ", " + bi) + ", -2147483648");
        bits = f.v("or i32 " + bits + ", " + sign);
        String nan = f.v("fcmp uno float " + r + ", " + r);
        f.write(x.op(0), f.sel(nan, "i32", "2147483647", bits), 32, false);
    }

    /**
     * {@code div.full{.ftz}.f32 d, a, b} (PTX ISA 9.0, div: a full-range approximation, at most 2 ulp from the
     * quotient): NVPTX's own instruction where {@link LlvmTarget#nvvmMath()} holds; elsewhere the correctly
     * rounded quotient ({@code fdiv}), with {@code .ftz} flushing subnormal operands and results to zero of their
     * sign.
     */
    private static void divFull(Fn f, Ins x) {
        boolean ftz = x.has(Flag.FTZ);
        only(x, Set.of(Flag.FULL, Flag.FTZ, F32));
        String a = f.readF(x.op(1), PtxType.F32), b = f.readF(x.op(2), PtxType.F32);
        String r;
        if (f.target().nvvmMath()) {
            r = f.call("float", "llvm.nvvm.div.full" + (ftz ? ".ftz" : ""), "float, float", "float " + a + ", float " + b);
        } else {
            if (ftz) {
                a = FloatLowering.flush(f, a, PtxType.F32);
                b = FloatLowering.flush(f, b, PtxType.F32);
            }
            r = f.v("fdiv float " + a + ", " + b);
            if (ftz) r = FloatLowering.flush(f, r, PtxType.F32);
        }
        f.writeF(x.op(0), r, PtxType.F32);
    }

    /**
     * {@code mul{.rn}.ftz{.sat}.f32 d, a, b} (PTX ISA 9.0, mul): subnormal operands are zero of their sign, and the
     * result is zero of its sign when the exact product is below 2^-126 in magnitude — also when it rounds up to
     * 2^-126, as an NVIDIA H200 does (conformance/h200). The exact product is the product in double precision (two
     * 24-bit significands: exact); {@code .sat} then clamps to [0, 1], a NaN to +0.
     */
    private static void mulFtz(Fn f, Ins x) {
        only(x, Set.of(Rounding.RN, Flag.FTZ, Flag.SAT, F32));
        String a = FloatLowering.flush(f, f.readF(x.op(1), PtxType.F32), PtxType.F32), b = FloatLowering.flush(f, f.readF(x.op(2), PtxType.F32), PtxType.F32);
        String r = f.v("fmul float " + a + ", " + b);
        String exact = f.v("fmul double " + f.v("fpext float " + a + " to double") + ", " + f.v("fpext float " + b + " to double"));
        String tiny = f.v("fcmp olt double " + f.call("double", "llvm.fabs.f64", "double", "double " + exact) + ", " + MIN_NORMAL_F32);
        String zero = f.call("float", "llvm.copysign.f32", "float, float", "float 0.0, float " + r);
        r = f.sel(tiny, "float", zero, r);
        if (x.has(Flag.SAT)) r = FloatLowering.sat(f, r, PtxType.F32);
        f.writeF(x.op(0), r, PtxType.F32);
    }

    /** f32 NaN results as NVIDIA GPUs give them: the canonical NaN 0x7fffffff. */
    private static String canonicalF32(Fn f, String r) {
        String bits = f.v("bitcast float " + r + " to i32");
        String nan = f.v("fcmp uno float " + r + ", " + r);
        return f.v("bitcast i32 " + f.sel(nan, "i32", "2147483647", bits) + " to float");
    }

    /**
     * {@code div.approx{.ftz}.f32 d, a, b} where {@link LlvmTarget#nvvmMath()} does not hold (AMD GPUs): the
     * correctly rounded quotient, except that for 2^126 < |b| < 2^128 the result is a times zero of b's sign (0, or
     * NaN for an infinite a), as the PTX ISA 9.0 (div) says {@code div.approx} gives; {@code .ftz} flushes operands
     * and result. Within the PTX ISA's 2 ulp of the quotient elsewhere.
     */
    private static void divApprox(Fn f, Ins x) {
        only(x, Set.of(Flag.APPROX, Flag.FTZ, F32));
        boolean ftz = x.has(Flag.FTZ);
        String a = f.readF(x.op(1), PtxType.F32), b = f.readF(x.op(2), PtxType.F32);
        if (ftz) {
            a = FloatLowering.flush(f, a, PtxType.F32);
            b = FloatLowering.flush(f, b, PtxType.F32);
        }
        String ab = f.call("float", "llvm.fabs.f32", "float", "float " + b);
        String big = f.v("and i1 " + f.v("fcmp ogt float " + ab + ", 0x47D0000000000000") + ", "
                + f.v("fcmp olt float " + ab + ", 0x7FF0000000000000"));
        String zero = f.v("fmul float " + a + ", " + f.call("float", "llvm.copysign.f32", "float, float", "float 0.0, float " + b));
        String r = f.sel(big, "float", zero, f.v("fdiv float " + a + ", " + b));
        if (ftz) r = FloatLowering.flush(f, r, PtxType.F32);
        f.writeF(x.op(0), canonicalF32(f, r), PtxType.F32);
    }

    /**
     * {@code rcp sqrt rsqrt .approx{.ftz}.f32}, {@code rsqrt.approx.f64} and {@code rcp/rsqrt.approx.ftz.f64} where
     * {@link LlvmTarget#nvvmMath()} does not hold (AMD GPUs), in IEEE operations, so the same on every target and
     * within the PTX ISA 9.0's bounds (rcp, sqrt, rsqrt): f32 {@code rcp} and {@code sqrt} correctly rounded,
     * {@code rsqrt} 1/sqrt(a) in double precision rounded to f32, {@code .ftz} flushing operand and result, NaN
     * results 0x7fffffff; {@code rsqrt.approx.f64} 1/sqrt(a) (sqrt and division each correctly rounded); the
     * {@code .ftz.f64} forms as an NVIDIA GPU computes them (PTX ISA: "from the upper 32 bits"): the operand's low
     * word cleared, subnormal operand and result flushed, the result rounded to its upper word (low word zero), a
     * NaN result 0xfff8000000000000. {@code false} for other forms.
     */
    private static boolean reciprocalApprox(Fn f, Ins x, PtxType t, Opcode op, boolean ftz) {
        boolean rcp = op == Opcode.RCP, sqrt = op == Opcode.SQRT, rsqrt = op == Opcode.RSQRT;
        if (!(rcp || sqrt || rsqrt) || x.mods.distinctCount() != 2 + (ftz ? 1 : 0)) return false;
        if (t == PtxType.F32) {
            String a = f.readF(x.op(1), t);
            if (ftz) a = FloatLowering.flush(f, a, t);
            String r;
            if (rcp) r = f.v("fdiv float 1.0, " + a);
            else if (sqrt) r = f.call("float", "llvm.sqrt.f32", "float", "float " + a);
            else {
                String d = f.call("double", "llvm.sqrt.f64", "double", "double " + f.v("fpext float " + a + " to double"));
                r = f.v("fptrunc double " + f.v("fdiv double 1.0, " + d) + " to float");
            }
            if (ftz) r = FloatLowering.flush(f, r, t);
            f.writeF(x.op(0), canonicalF32(f, r), t);
            return true;
        }
        if (t != PtxType.F64 || sqrt || (rcp && !ftz)) return false;
        if (!ftz) {
            String a = f.readF(x.op(1), t);
            f.writeF(x.op(0), f.v("fdiv double 1.0, " + f.call("double", "llvm.sqrt.f64", "double", "double " + a)), t);
            return true;
        }
        String hi = f.v("and i64 " + f.read(x.op(1), 64, false) + ", -4294967296");
        String a = flushF64(f, f.v("bitcast i64 " + hi + " to double"));
        String d = rsqrt ? f.call("double", "llvm.sqrt.f64", "double", "double " + a) : a;
        String v = flushF64(f, f.v("fdiv double 1.0, " + d));
        String bits = f.v("bitcast double " + v + " to i64");
        String rounded = f.v("and i64 " + f.v("add i64 " + bits + ", 2147483648") + ", -4294967296");
        String inf = f.v("fcmp oeq double " + f.call("double", "llvm.fabs.f64", "double", "double " + v) + ", 0x7FF0000000000000");
        String r = f.sel(inf, "i64", bits, rounded);
        r = f.sel(f.v("fcmp uno double " + v + ", " + v), "i64", Long.toString(0xFFF8_0000_0000_0000L), r);
        f.write(x.op(0), r, 64, false);
        return true;
    }

    /**
     * {@code sin cos lg2 ex2 .approx{.ftz}.f32}, {@code tanh.approx.f32}, {@code ex2.approx.{f16,f16x2}},
     * {@code ex2.approx.ftz.{bf16,bf16x2}} and {@code tanh.approx.{f16,f16x2,bf16,bf16x2}} where
     * {@link LlvmTarget#nvvmMath()} does not hold (AMD GPUs), in target-neutral IR ({@link ApproxMath}); each 16-bit
     * lane of a pair on its own. {@code false} for other forms.
     */
    private static boolean transcendental(Fn f, Ins x, PtxType t) {
        Opcode op = x.opcode();
        boolean ftz = x.has(Flag.FTZ);
        if (t == null || x.mods.distinctCount() != 2 + (ftz ? 1 : 0)) return false;
        ApproxMath m = new ApproxMath(new CvtRounding.Ir() {
            @Override public String v(String rhs) { return f.v(rhs); }
            @Override public String call(String retTy, String fn, String argDecl, String args) { return f.call(retTy, fn, argDecl, args); }
        });
        if (t == PtxType.F32) {
            if (!Set.of(Opcode.SIN, Opcode.COS, Opcode.LG2, Opcode.EX2, Opcode.TANH).contains(op) || op == Opcode.TANH && ftz) return false;
            String a = f.v("bitcast i32 " + f.read(x.op(1), 32, false) + " to float");
            String r = switch (op) {
                case SIN, COS -> m.sinCosF32(a, op == Opcode.COS, ftz);
                case LG2 -> m.lg2F32(a, ftz);
                case EX2 -> m.ex2F32(a, ftz);
                case TANH -> m.tanhF32(a);
                default -> null;
            };
            if (r == null) return false;
            f.write(x.op(0), r, 32, false);
            return true;
        }
        boolean half = t == PtxType.F16 || t == PtxType.BF16, pair = t == PtxType.F16X2 || t == PtxType.BF16X2;
        boolean bf = t == PtxType.BF16 || t == PtxType.BF16X2;
        if (!(half || pair) || !(op == Opcode.TANH && !ftz || op == Opcode.EX2 && ftz == bf)) return false;
        boolean ex2 = op == Opcode.EX2;
        if (half) {
            f.write(x.op(0), m.half(f.read(x.op(1), 16, false), bf, ex2, ftz), 16, false);
            return true;
        }
        String in = f.read(x.op(1), 32, false);
        String lo = m.half(f.v("trunc i32 " + in + " to i16"), bf, ex2, ftz);
        String hi = m.half(f.v("trunc i32 " + f.v("lshr i32 " + in + ", 16") + " to i16"), bf, ex2, ftz);
        String r = f.v("or i32 " + f.v("zext i16 " + lo + " to i32") + ", " + f.v("shl i32 " + f.v("zext i16 " + hi + " to i32") + ", 16"));
        f.write(x.op(0), r, 32, false);
        return true;
    }

    /** A subnormal double to zero of its sign. */
    private static String flushF64(Fn f, String a) {
        String tiny = f.v("fcmp olt double " + f.call("double", "llvm.fabs.f64", "double", "double " + a) + ", 0x0010000000000000");
        return f.sel(tiny, "double", f.call("double", "llvm.copysign.f64", "double, double", "double 0.0, double " + a), a);
    }

    /**
     * {@code .approx} functions lowered here, or {@code false} for the emitter's lowering or refusal. Where
     * {@link LlvmTarget#nvvmMath()} holds, the forms NVPTX has only as intrinsics or as PTX (PTX ISA 9.0, tanh, ex2,
     * rcp, rsqrt): {@code tanh.approx.{f32,f16,f16x2,bf16,bf16x2}}, {@code ex2.approx.{f16,f16x2}},
     * {@code ex2.approx.ftz.{bf16,bf16x2}}, {@code rcp.approx.f32}, {@code rcp.approx.ftz.f64},
     * {@code rsqrt.approx.ftz.f64}. Elsewhere (AMD GPUs) {@code rcp sqrt rsqrt} in IEEE operations
     * ({@link #reciprocalApprox}), {@code sin cos lg2 ex2 tanh} in target-neutral IR ({@link #transcendental});
     * other half-precision forms are refused here, the others by the emitter.
     *
     * @throws Unsupported for another half-precision {@code .approx} form on a target without NVPTX's math
     */
    static boolean approx(Fn f, Ins x) {
        if (!x.has(Flag.APPROX)) return false;
        PtxType t = x.type(0);
        if (!f.target().nvvmMath()) {
            if (transcendental(f, x, t)) return true;
            if (t == PtxType.F16 || t == PtxType.BF16 || t == PtxType.F16X2 || t == PtxType.BF16X2) {
                throw new Unsupported(x.i.form() + " (.approx) is not supported on AMD GPUs yet");
            }
            return t != null && reciprocalApprox(f, x, t, x.opcode(), x.has(Flag.FTZ));
        }
        Opcode op = x.opcode();
        boolean ftz = x.has(Flag.FTZ);
        if (t == null || x.mods.distinctCount() != 2 + (ftz ? 1 : 0)) return false;
        boolean half = t == PtxType.F16 || t == PtxType.BF16, pair = t == PtxType.F16X2 || t == PtxType.BF16X2;
        boolean bf = t == PtxType.BF16 || t == PtxType.BF16X2;
        if ((half || pair) && (op == Opcode.TANH && !ftz || op == Opcode.EX2 && ftz == bf)) {
            // PTX itself: tanh.approx on halves has no intrinsic; ex2 does (llvm.nvvm.ex2.approx.*)
            int bits = pair ? 32 : 16;
            String in = f.read(x.op(1), bits, false);
            String r;
            if (op == Opcode.TANH) {
                String c = pair ? "r" : "h";
                r = f.v("call i" + bits + " asm \"tanh.approx" + t.ptxName() + " $0, $1;\", \"=" + c + "," + c + "\"(i" + bits + " " + in + ")");
            } else {
                String ty = (pair ? "<2 x " : "") + (bf ? "bfloat" : "half") + (pair ? ">" : "");
                String name = "llvm.nvvm.ex2.approx" + (bf ? ".ftz" : "") + (bf ? ".bf16" : ".f16") + (pair ? "x2" : "");
                String v = f.call(ty, name, ty, ty + " " + f.v("bitcast i" + bits + " " + in + " to " + ty));
                r = f.v("bitcast " + ty + " " + v + " to i" + bits);
            }
            f.write(x.op(0), r, bits, false);
            return true;
        }
        String r;
        if (t == PtxType.F32 && op == Opcode.TANH && !ftz) {
            r = f.call("float", "llvm.nvvm.tanh.approx.f32", "float", "float " + f.readF(x.op(1), t));
        } else if (t == PtxType.F32 && op == Opcode.RCP && !ftz) {
            r = f.v("call float asm \"rcp.approx.f32 $0, $1;\", \"=f,f\"(float " + f.readF(x.op(1), t) + ")");
        } else if (t == PtxType.F64 && ftz && (op == Opcode.RCP || op == Opcode.RSQRT)) {
            r = f.call("double", "llvm.nvvm." + (op == Opcode.RCP ? "rcp" : "rsqrt") + ".approx.ftz.d", "double", "double " + f.readF(x.op(1), t));
        } else {
            return false;
        }
        f.writeF(x.op(0), r, t);
        return true;
    }
}
