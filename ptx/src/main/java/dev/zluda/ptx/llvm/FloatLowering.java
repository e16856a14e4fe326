package dev.zluda.ptx.llvm;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.ir.Instr;
import dev.zluda.ptx.ir.Mod;
import dev.zluda.ptx.ir.Mod.BoolOp;
import dev.zluda.ptx.ir.Mod.Compare;
import dev.zluda.ptx.ir.Mod.Flag;
import dev.zluda.ptx.ir.Mod.Rounding;
import dev.zluda.ptx.ir.Mod.TestClass;
import dev.zluda.ptx.ir.Modifiers;
import dev.zluda.ptx.ir.Opcode;
import dev.zluda.ptx.ir.Operand;
import dev.zluda.ptx.ir.Operand.*;
import java.util.ArrayList;
import java.util.List;
import dev.zluda.ptx.llvm.LlvmEmitter.Fn;
import dev.zluda.ptx.llvm.LlvmEmitter.Ins;
import dev.zluda.ptx.llvm.LlvmEmitter.Unsupported;

import static dev.zluda.ptx.llvm.LlvmEmitter.*;

/**
 * Floating-point arithmetic, comparisons and the rounding modifiers (PTX ISA 9.0, 9.7.3, 9.7.4, 9.7.6.1-2), lowered
 * for {@link LlvmEmitter} through its function context {@link Fn}.
 */
final class FloatLowering {
    private FloatLowering() {}

    static void setp(Fn f, Ins x) {
        Mod cmp = x.mods.get(0);
        PtxType t = x.type(0);
        String bool = x.has(BoolOp.AND) ? "and" : x.has(BoolOp.OR) ? "or" : x.has(BoolOp.XOR) ? "xor" : null;
        if (t == PtxType.F16X2 || t == PtxType.BF16X2) {
            FloatFormLowering.setpX2(f, x, t);
            return;
        }
        String r;
        if (t.kind() == PtxType.Kind.FLOAT) {
            if (t != PtxType.F32 && t != PtxType.F64 && t != PtxType.F16 && t != PtxType.BF16) {
                throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
            }
            String a = f.readF(x.op(1), t), b = f.readF(x.op(2), t);
            if (x.has(Flag.FTZ)) { a = flush(f, a, t); b = flush(f, b, t); }
            String pred = fcmpPredicate(x, cmp);
            r = f.v("fcmp " + pred + " " + fty(t) + " " + a + ", " + b);
        } else if (t != PtxType.PRED && t.size() <= 8) {
            int bits = t.size() * 8;
            boolean s = t.kind() == PtxType.Kind.SIGNED;
            String pred = cmp instanceof Compare c ? switch (c) {
                case EQ -> "eq"; case NE -> "ne";
                case LT -> s ? "slt" : "ult"; case LE -> s ? "sle" : "ule";
                case GT -> s ? "sgt" : "ugt"; case GE -> s ? "sge" : "uge";
                case LO -> "ult"; case LS -> "ule"; case HI -> "ugt"; case HS -> "uge";
                default -> null;
            } : null;
            if (pred == null) throw new Unsupported(x.i.form() + ": comparison " + (cmp == null ? null : cmp.text()) + " is not supported");
            r = f.v("icmp " + pred + " " + ity(bits) + " " + f.read(x.op(1), bits, s) + ", " + f.read(x.op(2), bits, s));
        } else {
            throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
        }
        String nr = f.v("xor i1 " + r + ", true");
        if (bool != null) {
            String c = f.readPred(x.op(3));
            r = f.v(bool + " i1 " + r + ", " + c);
            nr = f.v(bool + " i1 " + nr + ", " + c);
        }
        Operand d = x.op(0);
        if (d instanceof PredPair pp) {
            f.writePred(pp.first(), r);
            f.writePred(pp.second(), nr);
        } else {
            f.writePred(d, r);
        }
    }

    /** The {@code fcmp} predicate of a PTX float comparison (PTX ISA 9.0, setp: the {@code u} forms are unordered). */
    static String fcmpPredicate(Ins x, Mod cmp) {
        String pred = cmp instanceof Compare c ? switch (c) {
            case EQ -> "oeq"; case NE -> "one"; case LT -> "olt"; case LE -> "ole";
            case GT -> "ogt"; case GE -> "oge"; case EQU -> "ueq"; case NEU -> "une";
            case LTU -> "ult"; case LEU -> "ule"; case GTU -> "ugt"; case GEU -> "uge";
            case NUM -> "ord"; case NAN -> "uno";
            default -> null;
        } : null;
        if (pred == null) throw new Unsupported(x.i.form() + ": comparison " + (cmp == null ? null : cmp.text()) + " is not supported");
        return pred;
    }

    /** Subnormal to zero of the same sign (the {@code .ftz} modifier, PTX ISA 9.7.3). */
    static String flush(Fn f, String a, PtxType t) {
        if (t != PtxType.F32) return a;
        String abs = f.call("float", "llvm.fabs.f32", "float", "float " + a);
        String sub = f.v("fcmp olt float " + abs + ", 0x3810000000000000");
        String zero = f.call("float", "llvm.copysign.f32", "float, float", "float 0.0, float " + a);
        return f.v("select i1 " + sub + ", float " + zero + ", float " + a);
    }

    /** {@code .sat}: clamp to [0, 1], NaN to +0 (PTX ISA 9.7.3). */
    static String sat(Fn f, String a, PtxType t) {
        String ty = fty(t);
        String le0 = f.v("fcmp ule " + ty + " " + a + ", 0.0");       // also NaN
        String gt1 = f.v("fcmp ogt " + ty + " " + a + ", 1.0");
        String r = f.v("select i1 " + gt1 + ", " + ty + " 1.0, " + ty + " " + a);
        return f.v("select i1 " + le0 + ", " + ty + " 0.0, " + ty + " " + r);
    }

    /** The rounding modifier of an arithmetic instruction ({@code .rn .rz .rm .rp}, in that priority), or null. */
    static Rounding rounding(Fn f, Ins x) {
        for (Rounding r : new Rounding[] {Rounding.RN, Rounding.RZ, Rounding.RM, Rounding.RP}) if (x.has(r)) return r;
        return null;
    }

    /** add.cc, sub.cc and mad.cc lowered as add, sub and mad where the carry is not involved. */
    static Opcode base(Opcode o) {
        return switch (o) {
            case ADD_CC -> Opcode.ADD;
            case SUB_CC -> Opcode.SUB;
            case MAD_CC -> Opcode.MAD;
            default -> o;
        };
    }

    /** The suffix NVPTX's intrinsics name a rounding mode by ({@code rz}). */
    static String nvvm(Rounding r) {
        return r.name().toLowerCase(java.util.Locale.ROOT);
    }

    static void floatArith(Fn f, Ins x, PtxType t) {
        if (t == PtxType.F16 || t == PtxType.BF16 || t == PtxType.F16X2 || t == PtxType.BF16X2) {
            halfArith(f, x, t);
            return;
        }
        if (t != PtxType.F32 && t != PtxType.F64) throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
        if (FloatFormLowering.f32Form(f, x, t)) return;
        Opcode op = base(x.opcode());
        String ty = fty(t);
        boolean ftz = x.has(Flag.FTZ) && t == PtxType.F32;
        Rounding rnd = rounding(f, x);
        if (x.has(Flag.APPROX) || x.has(Flag.FULL) || x.has(Flag.XORSIGN) || x.has(Flag.RELU) || x.has(Flag.OOB)) {
            if (op == Opcode.DIV && x.has(Flag.APPROX)) { divApprox(f, x, t, ftz); return; }
            throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
        }
        int n = switch (op) { case ABS, NEG -> 1; case FMA, MAD -> 3; default -> 2; };
        String[] a = new String[n];
        for (int k = 0; k < n; k++) {
            a[k] = f.readF(x.op(k + 1), t);
            if (ftz && !directed(f, rnd)) a[k] = flush(f, a[k], t);
        }
        String r;
        if (directed(f, rnd) && (op == Opcode.ADD || op == Opcode.SUB || op == Opcode.MUL || op == Opcode.FMA || op == Opcode.MAD || op == Opcode.DIV)) {
            r = directedRounding(f, x, t, op, rnd, ftz, a);
        } else {
            r = switch (op) {
                case ADD -> f.v("fadd " + ty + " " + a[0] + ", " + a[1]);
                case SUB -> f.v("fsub " + ty + " " + a[0] + ", " + a[1]);
                case MUL -> f.v("fmul " + ty + " " + a[0] + ", " + a[1]);
                case DIV -> {
                    if (rnd == null && t == PtxType.F32) throw new Unsupported(x.i.form() + " needs a rounding modifier (.rn .rz .rm .rp .approx .full)");
                    yield f.v("fdiv " + ty + " " + a[0] + ", " + a[1]);
                }
                case FMA, MAD -> {
                    if (rnd == null) throw new Unsupported(x.i.form() + " without rounding modifier is not supported");
                    yield f.call(ty, "llvm.fma." + sfx(t), ty + ", " + ty + ", " + ty, ty + " " + a[0] + ", " + ty + " " + a[1] + ", " + ty + " " + a[2]);
                }
                case MIN, MAX -> {
                    String fn = x.has(Flag.NAN) ? (op == Opcode.MIN ? "minimum" : "maximum") : (op == Opcode.MIN ? "minnum" : "maxnum");
                    yield f.call(ty, "llvm." + fn + "." + sfx(t), ty + ", " + ty, ty + " " + a[0] + ", " + ty + " " + a[1]);
                }
                case ABS -> f.call(ty, "llvm.fabs." + sfx(t), ty, ty + " " + a[0]);
                case NEG -> f.v("fneg " + ty + " " + a[0]);
                default -> throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
            };
        }
        if (ftz && !directed(f, rnd)) r = flush(f, r, t);
        if (ftz && (op == Opcode.ABS || op == Opcode.NEG)) {
            // abs.ftz/neg.ftz give the canonical NaN 0x7fffffff (recorded data, conformance/h200)
            String nan = f.v("fcmp uno float " + r + ", 0.0");
            r = f.v("select i1 " + nan + ", float 0x7FFFFFFFE0000000, float " + r);
        }
        if (x.has(Flag.SAT)) r = sat(f, r, t);
        f.writeF(x.op(0), r, t);
    }

    /**
     * The half-precision arithmetic both the plain and the modified lowering share ({@code add sub mul fma neg abs},
     * one LLVM operation or intrinsic on {@code ty} = {@code half}/{@code bfloat}, suffix {@code sf}); null for
     * {@code min}/{@code max}, which each caller lowers with its own modifiers.
     */
    private static String halfArith(Fn f, Opcode op, String ty, String sf, String[] a) {
        return switch (op) {
            case ADD -> f.v("fadd " + ty + " " + a[0] + ", " + a[1]);
            case SUB -> f.v("fsub " + ty + " " + a[0] + ", " + a[1]);
            case MUL -> f.v("fmul " + ty + " " + a[0] + ", " + a[1]);
            case FMA -> f.call(ty, "llvm.fma." + sf, ty + ", " + ty + ", " + ty, ty + " " + a[0] + ", " + ty + " " + a[1] + ", " + ty + " " + a[2]);
            case NEG -> f.v("fneg " + ty + " " + a[0]);
            case ABS -> f.call(ty, "llvm.fabs." + sf, ty, ty + " " + a[0]);
            default -> null;
        };
    }

    /**
     * f16/bf16 add, sub, mul, fma (round to nearest), neg, abs, min, max (and .NaN), scalar or packed x2
     * (each 16-bit lane on its own, PTX ISA 9.0, 9.7.4): LLVM's half and bfloat arithmetic. With
     * {@code .ftz} (add sub mul fma min max neg abs), {@code .sat} (add sub mul fma), {@code .relu} (fma) or
     * {@code .xorsign.abs} (min max) see {@link #halfModified}.
     */
    static void halfArith(Fn f, Ins x, PtxType t) {
        Opcode op = base(x.opcode());
        boolean arith = op == Opcode.ADD || op == Opcode.SUB || op == Opcode.MUL || op == Opcode.FMA;
        boolean minmax = op == Opcode.MIN || op == Opcode.MAX;
        boolean f16 = t == PtxType.F16 || t == PtxType.F16X2;
        if (x.has(Flag.APPROX) || x.has(Flag.OOB) || (x.has(Flag.NAN) && !minmax)
                || (x.has(Flag.XORSIGN) != x.has(Flag.ABS)) || (x.has(Flag.XORSIGN) && !minmax)
                || (x.has(Flag.RELU) && op != Opcode.FMA) || (x.has(Flag.SAT) && !(arith && f16))
                || (x.has(Flag.FTZ) && !f16)) {
            throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
        }
        if (x.has(Flag.FTZ) || x.has(Flag.SAT) || x.has(Flag.RELU) || x.has(Flag.XORSIGN)) {
            halfModified(f, x, t);
            return;
        }
        Rounding rnd = rounding(f, x);
        if (rnd != null && rnd != Rounding.RN) throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
        boolean pair = t == PtxType.F16X2 || t == PtxType.BF16X2;
        PtxType lane = t == PtxType.F16 || t == PtxType.F16X2 ? PtxType.F16 : PtxType.BF16;
        String ty = fty(lane), sf = sfx(lane);
        int n = switch (op) { case ABS, NEG -> 1; case FMA -> 3; case ADD, SUB, MUL, MIN, MAX -> 2;
            default -> throw new Unsupported(x.i.form() + " is not supported by the LLVM back end"); };
        if (op == Opcode.FMA && rnd == null) throw new Unsupported(x.i.form() + " without rounding modifier is not supported");
        int bits = pair ? 32 : 16;
        String[] in = new String[n];
        for (int k = 0; k < n; k++) in[k] = f.read(x.op(k + 1), bits, false);
        String result = null;
        for (int l = 0; l < (pair ? 2 : 1); l++) {
            String[] a = new String[n];
            for (int k = 0; k < n; k++) {
                String h = pair ? f.resize(l == 0 ? in[k] : f.v("lshr i32 " + in[k] + ", 16"), 32, 16, false) : in[k];
                a[k] = f.v("bitcast i16 " + h + " to " + ty);
            }
            String r = halfArith(f, op, ty, sf, a);
            if (r == null) {
                String fn = x.has(Flag.NAN) ? (op == Opcode.MIN ? "minimum" : "maximum") : (op == Opcode.MIN ? "minnum" : "maxnum");
                r = f.call(ty, "llvm." + fn + "." + sf, ty + ", " + ty, ty + " " + a[0] + ", " + ty + " " + a[1]);
            }
            String b = f.v("bitcast " + ty + " " + r + " to i16");
            if ((op == Opcode.NEG || op == Opcode.ABS) && (pair || f.target().amd())) {
                // a NaN becomes 0x7fff (recorded data, conformance/h200)
                String nan = f.v("fcmp uno " + ty + " " + r + ", " + r);
                b = f.v("select i1 " + nan + ", i16 32767, i16 " + b);
            }
            result = withLane(f, result, b, pair, l);
        }
        f.write(x.op(0), result, bits, false);
    }

    /**
     * f16/bf16 (scalar or x2) add, sub, mul, fma.rn, min, max, neg, abs with the modifiers of PTX ISA 9.0, 9.7.4:
     * {@code .ftz} flushes subnormal inputs and results to zero of the same sign, a result by its exact value
     * (before rounding: an exact sum or product below 2^-14 in magnitude that would round to the smallest
     * normal is flushed too, as an NVIDIA GPU does; checked in double precision, where the sums and products
     * of two or three halves below 2^-14 are exact); {@code .relu} makes a negative or zero result +0;
     * {@code .sat} clamps to [0, 1] and a NaN to +0; min/max {@code .xorsign.abs} take the minimum or maximum
     * of |a| and |b| and give it the sign sign(a) ^ sign(b). NaN results are the canonical NaN 0x7fff.
     */
    static void halfModified(Fn f, Ins x, PtxType t) {
        Opcode op = base(x.opcode());
        Rounding rnd = rounding(f, x);
        if (rnd != null && rnd != Rounding.RN) throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
        if (op == Opcode.FMA && rnd == null) throw new Unsupported(x.i.form() + " without rounding modifier is not supported");
        boolean pair = t == PtxType.F16X2 || t == PtxType.BF16X2;
        PtxType lane = t == PtxType.F16 || t == PtxType.F16X2 ? PtxType.F16 : PtxType.BF16;
        boolean bf = lane == PtxType.BF16;
        String ty = fty(lane), sf = sfx(lane);
        boolean ftz = x.has(Flag.FTZ), xorsign = x.has(Flag.XORSIGN);
        int n = switch (op) { case ABS, NEG -> 1; case FMA -> 3; case ADD, SUB, MUL, MIN, MAX -> 2;
            default -> throw new Unsupported(x.i.form() + " is not supported by the LLVM back end"); };
        String expMask = bf ? "32640" : "31744";                  // 0x7f80, 0x7c00
        String minNormal = bf ? "0x3810000000000000" : "0x3F10000000000000";   // 2^-126, 2^-14 as double
        int bits = pair ? 32 : 16;
        String[] in = new String[n];
        for (int k = 0; k < n; k++) in[k] = f.read(x.op(k + 1), bits, false);
        String result = null;
        for (int l = 0; l < (pair ? 2 : 1); l++) {
            String[] h = new String[n], a = new String[n];
            for (int k = 0; k < n; k++) {
                h[k] = pair ? f.resize(l == 0 ? in[k] : f.v("lshr i32 " + in[k] + ", 16"), 32, 16, false) : in[k];
                if (ftz) {
                    // a subnormal input (exponent field 0) becomes zero of its sign
                    String z = f.v("icmp eq i16 " + f.v("and i16 " + h[k] + ", " + expMask) + ", 0");
                    h[k] = f.v("select i1 " + z + ", i16 " + f.v("and i16 " + h[k] + ", -32768") + ", i16 " + h[k]);
                }
                a[k] = f.v("bitcast i16 " + h[k] + " to " + ty);
            }
            String r = halfArith(f, op, ty, sf, a);
            if (r == null) {
                String fn = x.has(Flag.NAN) ? (op == Opcode.MIN ? "minimum" : "maximum") : (op == Opcode.MIN ? "minnum" : "maxnum");
                String p = a[0], q = a[1];
                if (xorsign) {
                    p = f.call(ty, "llvm.fabs." + sf, ty, ty + " " + p);
                    q = f.call(ty, "llvm.fabs." + sf, ty, ty + " " + q);
                }
                r = f.call(ty, "llvm." + fn + "." + sf, ty + ", " + ty, ty + " " + p + ", " + ty + " " + q);
            }
            if (ftz && n >= 2 && op != Opcode.MIN && op != Opcode.MAX) {
                // the exact result in double (exact for two or three halves near the normal range)
                String[] d = new String[n];
                for (int k = 0; k < n; k++) d[k] = f.v("fpext " + ty + " " + a[k] + " to double");
                String e = switch (op) {
                    case ADD -> f.v("fadd double " + d[0] + ", " + d[1]);
                    case SUB -> f.v("fsub double " + d[0] + ", " + d[1]);
                    case MUL -> f.v("fmul double " + d[0] + ", " + d[1]);
                    default -> f.v("fadd double " + f.v("fmul double " + d[0] + ", " + d[1]) + ", " + d[2]);
                };
                String tiny = f.v("fcmp olt double " + f.call("double", "llvm.fabs.f64", "double", "double " + e) + ", " + minNormal);
                String zero = f.call(ty, "llvm.copysign." + sf, ty + ", " + ty, ty + " 0.0, " + ty + " " + r);
                r = f.v("select i1 " + tiny + ", " + ty + " " + zero + ", " + ty + " " + r);
            }
            if (x.has(Flag.RELU)) r = f.v("select i1 " + f.v("fcmp ole " + ty + " " + r + ", 0.0") + ", " + ty + " 0.0, " + ty + " " + r);
            if (x.has(Flag.SAT)) r = sat(f, r, lane);
            String b = f.v("bitcast " + ty + " " + r + " to i16");
            if (xorsign) {
                String sign = f.v("and i16 " + f.v("xor i16 " + h[0] + ", " + h[1]) + ", -32768");
                b = f.v("or i16 " + b + ", " + sign);
            }
            String nan = f.v("fcmp uno " + ty + " " + r + ", " + r);
            b = f.v("select i1 " + nan + ", i16 32767, i16 " + b);
            result = withLane(f, result, b, pair, l);
        }
        f.write(x.op(0), result, bits, false);
    }

    /**
     * The result so far with lane {@code l}'s 16 bits {@code b} added: {@code b} itself for a scalar; for an x2
     * pair, lane 0 in bits 15..0 and lane 1 in bits 31..16 (PTX ISA 9.0, 5.2.5 packed data).
     */
    static String withLane(Fn f, String result, String b, boolean pair, int l) {
        if (!pair) return b;
        String w = f.resize(b, 16, 32, false);
        return l == 0 ? w : f.v("or i32 " + result + ", " + f.v("shl i32 " + w + ", 16"));
    }

    /** set.cmp.dtype.stype (PTX ISA 9.7.7.1): 0xffffffff or 1.0f when the comparison holds, else 0. */
    static void set(Fn f, Ins x) {
        PtxType d = x.type(0), s = x.type(1);
        if (d == null || s == null || x.has(BoolOp.AND) || x.has(BoolOp.OR) || x.has(BoolOp.XOR)) throw new Unsupported(x.i.form() + " is not supported");
        // the comparison as setp into a predicate of its own: set's modifiers without its destination type
        List<Mod> mods = new ArrayList<>(x.mods.list());
        mods.remove(Mod.Type.of(d));
        List<String> words = new ArrayList<>();
        for (Mod m : mods) words.add(m.text());
        Ast.Instruction src = new Ast.Instruction(null, "setp", words, List.of(), x.i.loc());
        Instr setp = new Instr(Opcode.SETP, null, false, new Modifiers(mods), List.of(new Unknown("%set.p"), x.op(1), x.op(2)), src);
        Fn.Reg tmpPred = f.regs.computeIfAbsent("%set.p", k -> f.newReg("i1", 1, PtxType.PRED));
        setp(f, new Ins(setp));
        String p = f.v("load i1, " + f.allocaAs() + " " + tmpPred.ptr());
        String one = d == PtxType.F32 ? "1065353216" : "-1";
        f.write(x.op(0), f.v("select i1 " + p + ", i32 " + one + ", i32 0"), 32, false);
    }

    static boolean directed(Fn f, Rounding rnd) {
        return rnd != null && rnd != Rounding.RN;
    }

    /**
     * add/sub/mul/fma/div with .rz/.rm/.rp: NVPTX has them as intrinsics; elsewhere ({@code !nvvmMath()}) they
     * are lowered in target-neutral IR by {@link SoftRounding}.
     */
    static String directedRounding(Fn f, Ins x, PtxType t, Opcode op, Rounding rnd, boolean ftz, String[] a) {
        if (!f.target().nvvmMath()) return f.softRounding.lower(op, t, rnd, ftz, a);
        String ty = fty(t);
        String suffix = nvvm(rnd) + (ftz ? ".ftz" : "") + (t == PtxType.F32 ? ".f" : ".d");
        return switch (op) {
            case ADD -> f.call(ty, "llvm.nvvm.add." + suffix, ty + ", " + ty, ty + " " + a[0] + ", " + ty + " " + a[1]);
            case SUB -> {
                String nb = f.v("fneg " + ty + " " + a[1]);
                yield f.call(ty, "llvm.nvvm.add." + suffix, ty + ", " + ty, ty + " " + a[0] + ", " + ty + " " + nb);
            }
            case MUL -> f.call(ty, "llvm.nvvm.mul." + suffix, ty + ", " + ty, ty + " " + a[0] + ", " + ty + " " + a[1]);
            case DIV -> f.call(ty, "llvm.nvvm.div." + suffix, ty + ", " + ty, ty + " " + a[0] + ", " + ty + " " + a[1]);
            default -> f.call(ty, "llvm.nvvm.fma." + suffix, ty + ", " + ty + ", " + ty, ty + " " + a[0] + ", " + ty + " " + a[1] + ", " + ty + " " + a[2]);
        };
    }

    static void divApprox(Fn f, Ins x, PtxType t, boolean ftz) {
        if (t != PtxType.F32) throw new Unsupported(x.i.form() + " is not supported");
        String a = f.readF(x.op(1), t), b = f.readF(x.op(2), t);
        String r;
        if (!f.target().amd()) {
            r = f.call("float", "llvm.nvvm.div.approx" + (ftz ? ".ftz" : "") + ".f", "float, float", "float " + a + ", float " + b);
        } else {
            throw new Unsupported(x.i.form() + " is not supported on AMD GPUs yet");
        }
        f.writeF(x.op(0), r, t);
    }

    static void unaryFloat(Fn f, Ins x) {
        if (FloatFormLowering.approx(f, x)) return;
        PtxType t = x.type(0);
        if (t != PtxType.F32 && t != PtxType.F64) throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
        Opcode op = x.opcode();
        String ty = fty(t);
        boolean ftz = x.has(Flag.FTZ) && t == PtxType.F32;
        Rounding rnd = rounding(f, x);
        String a = f.readF(x.op(1), t);
        String r;
        if (x.has(Flag.APPROX)) {
            if (f.target().amd()) throw new Unsupported(x.i.form() + " (.approx) is not supported on AMD GPUs yet");
            String base = switch (op) {
                case RCP -> t == PtxType.F32 ? (ftz ? "rcp.approx.ftz.f" : null) : null;
                case SQRT -> t == PtxType.F32 ? (ftz ? "sqrt.approx.ftz.f" : "sqrt.approx.f") : null;
                case RSQRT -> t == PtxType.F32 ? (ftz ? "rsqrt.approx.ftz.f" : "rsqrt.approx.f") : (x.has(Flag.FTZ) ? null : "rsqrt.approx.d");
                case SIN -> t == PtxType.F32 ? (ftz ? "sin.approx.ftz.f" : "sin.approx.f") : null;
                case COS -> t == PtxType.F32 ? (ftz ? "cos.approx.ftz.f" : "cos.approx.f") : null;
                case LG2 -> t == PtxType.F32 ? (ftz ? "lg2.approx.ftz.f" : "lg2.approx.f") : null;
                case EX2 -> t == PtxType.F32 ? (ftz ? "ex2.approx.ftz.f" : "ex2.approx.f") : null;
                default -> null;
            };
            if (base == null) throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
            r = f.call(ty, "llvm.nvvm." + base, ty, ty + " " + a);
        } else {
            if (rnd == null || !(op == Opcode.RCP || op == Opcode.SQRT)) throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
            if (directed(f, rnd)) {
                if (!f.target().nvvmMath()) {
                    r = directedRounding(f, x, t, op, rnd, ftz, new String[] {a});
                } else {
                    String suffix = nvvm(rnd) + (ftz ? ".ftz" : "") + (t == PtxType.F32 ? ".f" : ".d");
                    r = f.call(ty, "llvm.nvvm." + (op == Opcode.RCP ? "rcp" : "sqrt") + "." + suffix, ty, ty + " " + a);
                }
            } else {
                if (ftz) a = flush(f, a, t);
                r = op == Opcode.RCP ? f.v("fdiv " + ty + " 1.0, " + a) : f.call(ty, "llvm.sqrt." + sfx(t), ty, ty + " " + a);
                if (ftz) r = flush(f, r, t);
            }
        }
        f.writeF(x.op(0), r, t);
    }

    static void copysign(Fn f, Ins x) {
        PtxType t = x.type(0);
        if (t != PtxType.F32 && t != PtxType.F64) throw new Unsupported(x.i.form() + " is not supported");
        String ty = fty(t);
        // copysign d, a, b: b's magnitude with a's sign (PTX ISA 9.7.3.3)
        String a = f.readF(x.op(1), t), b = f.readF(x.op(2), t);
        f.writeF(x.op(0), f.call(ty, "llvm.copysign." + sfx(t), ty + ", " + ty, ty + " " + b + ", " + ty + " " + a), t);
    }

    static void testp(Fn f, Ins x) {
        PtxType t = x.type(0);
        if (t != PtxType.F32 && t != PtxType.F64) throw new Unsupported(x.i.form() + " is not supported");
        int bits = t.size() * 8;
        String ty = ity(bits);
        String b = f.read(x.op(1), bits, false);
        long absMask = bits == 32 ? 0x7fffffffL : Long.MAX_VALUE;
        long inf = bits == 32 ? 0x7f800000L : 0x7ff0000000000000L;
        long minNormal = bits == 32 ? 0x00800000L : 0x0010000000000000L;
        String abs = f.v("and " + ty + " " + b + ", " + absMask);
        if (!(x.mods.get(0) instanceof TestClass tc)) throw new Unsupported(x.i.form() + " is not supported");
        String r = switch (tc) {
            case FINITE -> f.v("icmp ult " + ty + " " + abs + ", " + inf);
            case INFINITE -> f.v("icmp eq " + ty + " " + abs + ", " + inf);
            case NUMBER -> f.v("icmp ule " + ty + " " + abs + ", " + inf);
            case NOTANUMBER -> f.v("icmp ugt " + ty + " " + abs + ", " + inf);
            // ±0 count as normal on an H200 (recorded data, conformance/h200)
            case NORMAL -> f.v("and i1 " + f.v("icmp ult " + ty + " " + abs + ", " + inf) + ", "
                    + f.v("or i1 " + f.v("icmp uge " + ty + " " + abs + ", " + minNormal) + ", " + f.v("icmp eq " + ty + " " + abs + ", 0")));
            case SUBNORMAL -> f.v("and i1 " + f.v("icmp ne " + ty + " " + abs + ", 0") + ", " + f.v("icmp ult " + ty + " " + abs + ", " + minNormal));
        };
        f.writePred(x.op(0), r);
    }
}
