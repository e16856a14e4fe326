package dev.zluda.runtime.emulator;

import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.ir.Instr;
import dev.zluda.ptx.ir.Mod;
import dev.zluda.ptx.ir.Mod.BoolOp;
import dev.zluda.ptx.ir.Mod.Flag;
import dev.zluda.ptx.ir.Mod.PrmtMode;
import dev.zluda.ptx.ir.Mod.Rounding;
import dev.zluda.ptx.ir.Mod.ShiftDir;
import dev.zluda.ptx.ir.Mod.ShiftMode;
import dev.zluda.ptx.ir.Modifiers;
import dev.zluda.ptx.ir.Opcode;
import dev.zluda.ptx.ir.Operand;
import java.util.List;
import java.util.Set;
import dev.zluda.runtime.emulator.Translator.*;

/**
 * Translates the arithmetic, logic, comparison and conversion instructions (PTX ISA 9.0, 9.7.1-9.7.4, 9.7.6, 9.7.8,
 * 9.7.9.21) into {@link IntOps}, {@link FloatOps} and {@link Ops} operations; the instruction comes from the typed
 * IR, operands are resolved through the {@link Translator}.
 */
final class ArithTranslation {
    private ArithTranslation() {}

    /** The emulator's rounding mode of the first rounding modifier ({@code .rs} aside); {@code .rn} without one. */
    static int rounding(Modifiers mods) {
        for (Rounding r : mods.all(Rounding.class)) {
            switch (r) {
                case RN, RNI, RNA -> { return FloatMath.RN; }
                case RZ, RZI -> { return FloatMath.RZ; }
                case RM, RMI -> { return FloatMath.RM; }
                case RP, RPI -> { return FloatMath.RP; }
                default -> {}
            }
        }
        return FloatMath.RN;
    }

    static Op arith(Translator tr, Instr ins, Opcode key, Scope scope, PtxType t) {
        Modifiers mods = ins.mods();
        List<Operand> ops = ins.operands();
        if (t == null) throw tr.unsupported(ins.loc(), ins.form() + " without a type");
        boolean unary = switch (key) {
            case ABS, NEG, RCP, SQRT, RSQRT, SIN, COS, LG2, EX2, TANH -> true;
            default -> false;
        };
        boolean ternary = key == Opcode.MAD || key == Opcode.FMA || key == Opcode.MAD24 || key == Opcode.SAD;
        tr.need(ins, unary ? 2 : ternary ? 4 : 3);
        if (t == PtxType.F32 || t == PtxType.F64) {
            boolean f64 = t == PtxType.F64;
            int kind = floatKind(key, mods);
            if (kind < 0) throw tr.unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
            boolean xorsign = mods.has(Flag.XORSIGN);
            if (mods.has(Flag.RELU) || (xorsign && (f64 || !mods.has(Flag.ABS) || (kind != FloatOps.MIN && kind != FloatOps.MAX)))) {
                throw tr.unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
            }
            int[] r = dabc(tr, ins, scope, t, t, unary, ternary);
            int d = r[0], a = r[1], b = r[2], c = r[3];
            FloatOps.Arith ar = new FloatOps.Arith(kind, f64, rounding(mods), mods.has(Flag.FTZ), mods.has(Flag.SAT), mods.has(Flag.NAN), d, a, b, c);
            ar.xorsign = xorsign;
            return ar;
        }
        if (t == PtxType.F16 || t == PtxType.BF16 || t == PtxType.F16X2 || t == PtxType.BF16X2) {
            // the half-precision operations: a subset of the f32/f64 ones (PTX ISA 9.0, 9.7.4)
            int kind = switch (key) {
                case ADD, SUB, MUL, FMA, MAD, NEG, ABS, MIN, MAX, EX2, TANH -> floatKind(key, mods);
                default -> throw tr.unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
            };
            boolean xorsign = mods.has(Flag.XORSIGN);
            if ((xorsign && (!mods.has(Flag.ABS) || (kind != FloatOps.MIN && kind != FloatOps.MAX))) || mods.has(Rounding.RZ) || mods.has(Rounding.RM)
                    || mods.has(Rounding.RP) || mods.has(Flag.OOB) || mods.has(Flag.SATFINITE)) {
                throw tr.unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
            }
            int[] r = dabc(tr, ins, scope, t, t, unary, ternary);
            int d = r[0], a = r[1], b = r[2], c = r[3];
            boolean bf = t == PtxType.BF16 || t == PtxType.BF16X2;
            FloatOps.Half h = new FloatOps.Half(kind, bf, t == PtxType.F16X2 || t == PtxType.BF16X2, mods.has(Flag.FTZ), mods.has(Flag.SAT),
                    mods.has(Flag.RELU), mods.has(Flag.NAN), d, a, b, c);
            h.xorsign = xorsign;
            return h;
        }
        if (t.kind() == PtxType.Kind.FLOAT) throw tr.unsupported(ins.loc(), "'" + ins.form() + "' (" + t.ptxName() + " arithmetic) is not supported by the emulator");
        boolean packed = t == PtxType.U16X2 || t == PtxType.S16X2;
        boolean signed = t.kind() == PtxType.Kind.SIGNED;
        int bits = packed ? 32 : t.size() * 8;
        boolean wide = mods.has(Flag.WIDE), hi = mods.has(Flag.HI), sat = mods.has(Flag.SAT), relu = mods.has(Flag.RELU);
        int kind = switch (key) {
            case ADD -> packed ? IntOps.ADD16X2 : sat ? IntOps.ADD_SAT : IntOps.ADD;
            case SUB -> packed ? IntOps.SUB16X2 : sat ? IntOps.SUB_SAT : IntOps.SUB;
            case MUL -> wide ? IntOps.MUL_WIDE : hi ? IntOps.MUL_HI : IntOps.MUL_LO;
            case MAD -> wide ? IntOps.MAD_WIDE : hi ? (sat ? IntOps.MAD_HI_SAT : IntOps.MAD_HI) : IntOps.MAD_LO;
            case MUL24 -> hi ? IntOps.MUL24_HI : IntOps.MUL24_LO;
            case MAD24 -> hi ? (sat ? IntOps.MAD24_HI_SAT : IntOps.MAD24_HI) : IntOps.MAD24_LO;
            case SAD -> IntOps.SAD;
            case DIV -> IntOps.DIV;
            case REM -> IntOps.REM;
            case ABS -> IntOps.ABS;
            case NEG -> IntOps.NEG;
            case MIN -> packed ? IntOps.MIN16X2 : IntOps.MIN;
            case MAX -> packed ? IntOps.MAX16X2 : IntOps.MAX;
            default -> throw tr.unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
        };
        PtxType wt = wide ? t.widened() : t;
        int[] r = dabc(tr, ins, scope, t, (wide && key == Opcode.MAD) ? wt : t, unary, ternary);
        int d = r[0], a = r[1], b = r[2], c = r[3];
        IntOps.Alu alu = new IntOps.Alu(kind, bits, signed, d, a, b, c, -1);
        if (relu) alu.mode = 1;
        return alu;
    }

    /** The {@link FloatOps.Arith} kind of a floating-point operation ({@code div}, {@code rcp} by their {@code .approx}/{@code .full}), -1 for others. */
    static int floatKind(Opcode key, Modifiers mods) {
        return switch (key) {
            case ADD -> FloatOps.ADD;
            case SUB -> FloatOps.SUB;
            case MUL -> FloatOps.MUL;
            case MAD, FMA -> FloatOps.FMA;
            case DIV -> mods.has(Flag.APPROX) ? FloatOps.DIV_APPROX : mods.has(Flag.FULL) ? FloatOps.DIV_FULL : FloatOps.DIV;
            case ABS -> FloatOps.ABS;
            case NEG -> FloatOps.NEG;
            case MIN -> FloatOps.MIN;
            case MAX -> FloatOps.MAX;
            case SQRT -> FloatOps.SQRT;
            case RSQRT -> FloatOps.RSQRT;
            case RCP -> mods.has(Flag.APPROX) ? FloatOps.RCP_APPROX : FloatOps.RCP;
            case SIN -> FloatOps.SIN;
            case COS -> FloatOps.COS;
            case LG2 -> FloatOps.LG2;
            case EX2 -> FloatOps.EX2;
            case TANH -> FloatOps.TANH;
            case COPYSIGN -> FloatOps.COPYSIGN;
            default -> -1;
        };
    }

    /** The slots of d, a, b (none when {@code unary}) and c (of type {@code ct}, when {@code ternary}), in that order. */
    static int[] dabc(Translator tr, Instr ins, Scope scope, PtxType t, PtxType ct, boolean unary, boolean ternary) {
        List<Operand> ops = ins.operands();
        int d = tr.dst(ops.get(0), scope, ins);
        int a = tr.src(ops.get(1), t, scope, ins);
        int b = unary ? -1 : tr.src(ops.get(2), t, scope, ins);
        int c = ternary ? tr.src(ops.get(3), ct, scope, ins) : -1;
        return new int[] {d, a, b, c};
    }

    static Op carry(Translator tr, Instr ins, Opcode key, Scope scope, PtxType t) {
        List<Operand> ops = ins.operands();
        Modifiers mods = ins.mods();
        if (t == null || (t.size() != 4 && t.size() != 8)) throw tr.unsupported(ins.loc(), "'" + ins.form() + "': type not supported");
        boolean mad = key == Opcode.MAD_CC || key == Opcode.MADC;
        tr.need(ins, mad ? 4 : 3);
        boolean sub = key == Opcode.SUB_CC || key == Opcode.SUBC;
        boolean carryIn = key == Opcode.ADDC || key == Opcode.SUBC || key == Opcode.MADC;
        boolean carryOut = key == Opcode.ADD_CC || key == Opcode.SUB_CC || key == Opcode.MAD_CC || mods.has(Flag.CC);
        return new IntOps.Carry(tr.dst(ops.get(0), scope, ins), tr.src(ops.get(1), t, scope, ins), tr.src(ops.get(2), t, scope, ins),
                mad ? tr.src(ops.get(3), t, scope, ins) : -1, tr.cc(), t.size() * 8, sub, carryIn, carryOut, mad, mods.has(Flag.HI),
                t.kind() == PtxType.Kind.SIGNED);
    }

    static Op logic(Translator tr, Instr ins, Opcode key, Scope scope, PtxType t) {
        List<Operand> ops = ins.operands();
        Modifiers mods = ins.mods();
        if (t == PtxType.PRED) {
            int d = tr.predDst(ops.get(0), scope, ins);
            int[] a = tr.predSrc(ops.get(1), scope, ins);
            int kind = switch (key) {
                case AND -> Ops.PredLogic.AND;
                case OR -> Ops.PredLogic.OR;
                case XOR -> Ops.PredLogic.XOR;
                case NOT -> Ops.PredLogic.NOT;
                default -> throw tr.unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
            };
            int[] b = kind == Ops.PredLogic.NOT ? new int[] {-1, 0} : tr.predSrc(ops.get(2), scope, ins);
            return new Ops.PredLogic(kind, d, a[0], a[1] != 0, b[0], b[1] != 0, false);
        }
        if (t == null) throw tr.unsupported(ins.loc(), ins.form() + " without a type");
        int bits = t.size() * 8;
        boolean signed = t.kind() == PtxType.Kind.SIGNED;
        java.util.function.IntFunction<Integer> s = i -> tr.src(ops.get(i), t, scope, ins);
        java.util.function.IntFunction<Integer> u32 = i -> tr.src(ops.get(i), PtxType.U32, scope, ins);
        if (key == Opcode.LOP3 && ops.getFirst() instanceof Operand.PredPair pp) {
            // lop3.BoolOp.b32 d|p, a, b, c, immLut, q (PTX ISA 9.0, §9.7.8.6): p = (d != 0) BoolOp q
            boolean and = mods.has(BoolOp.AND);
            if (ops.size() != 6 || !(and || mods.has(BoolOp.OR))) {
                throw tr.unsupported(ins.loc(), "'" + ins.form() + "': the predicate form needs .and or .or and six operands (d|p, a, b, c, immLut, q)");
            }
            int dd = pp.first() instanceof Operand.Sink ? tr.sink() : tr.dst(pp.first(), scope, ins);
            int dp = tr.predDst(pp.second(), scope, ins);
            int[] q = tr.predSrc(ops.get(5), scope, ins);
            return new IntOps.Lop3Pred(dd, s.apply(1), s.apply(2), s.apply(3), u32.apply(4), dp, and, q[0], q[1] != 0);
        }
        int d = tr.dst(ops.get(0), scope, ins);
        switch (key) {
            case AND, OR, XOR -> {
                tr.need(ins, 3);
                int kind = key == Opcode.AND ? IntOps.AND : key == Opcode.OR ? IntOps.OR : IntOps.XOR;
                return new IntOps.Alu(kind, bits, signed, d, s.apply(1), s.apply(2), -1, -1);
            }
            case NOT, CNOT -> {
                tr.need(ins, 2);
                return new IntOps.Alu(key == Opcode.NOT ? IntOps.NOT : IntOps.CNOT, bits, signed, d, s.apply(1), -1, -1, -1);
            }
            case SHL, SHR -> {
                tr.need(ins, 3);
                return new IntOps.Alu(key == Opcode.SHL ? IntOps.SHL : IntOps.SHR, bits, signed, d, s.apply(1), u32.apply(2), -1, -1);
            }
            case POPC, CLZ, BREV -> {
                tr.need(ins, 2);
                int kind = key == Opcode.POPC ? IntOps.POPC : key == Opcode.CLZ ? IntOps.CLZ : IntOps.BREV;
                return new IntOps.Alu(kind, bits, signed, d, s.apply(1), -1, -1, -1);
            }
            case BFIND -> {
                tr.need(ins, 2);
                IntOps.Alu alu = new IntOps.Alu(IntOps.BFIND, bits, signed, d, s.apply(1), -1, -1, -1);
                if (mods.has(Flag.SHIFTAMT)) alu.mode = 1;
                return alu;
            }
            case BFE -> {
                tr.need(ins, 4);
                return new IntOps.Alu(IntOps.BFE, bits, signed, d, s.apply(1), u32.apply(2), u32.apply(3), -1);
            }
            case BFI -> {
                tr.need(ins, 5);
                return new IntOps.Alu(IntOps.BFI, bits, signed, d, s.apply(1), s.apply(2), u32.apply(3), u32.apply(4));
            }
            case PRMT -> {
                tr.need(ins, 4);
                IntOps.Alu alu = new IntOps.Alu(IntOps.PRMT, 32, false, d, s.apply(1), s.apply(2), s.apply(3), -1);
                alu.mode = mods.has(PrmtMode.F4E) ? 1 : mods.has(PrmtMode.B4E) ? 2 : mods.has(PrmtMode.RC8) ? 3 : mods.has(PrmtMode.ECL) ? 4
                        : mods.has(PrmtMode.ECR) ? 5 : mods.has(PrmtMode.RC16) ? 6 : 0;
                return alu;
            }
            case LOP3 -> {
                tr.need(ins, 5);
                return new IntOps.Alu(IntOps.LOP3, 32, false, d, s.apply(1), s.apply(2), s.apply(3), u32.apply(4));
            }
            case SHF -> {
                tr.need(ins, 4);
                IntOps.Alu alu = new IntOps.Alu(mods.has(ShiftDir.L) ? IntOps.SHF_L : IntOps.SHF_R, 32, false, d, s.apply(1), s.apply(2), u32.apply(3), -1);
                alu.mode = mods.has(ShiftMode.CLAMP) ? 1 : 0;
                return alu;
            }
            case BMSK -> {
                tr.need(ins, 3);
                IntOps.Alu alu = new IntOps.Alu(IntOps.BMSK, 32, false, d, u32.apply(1), u32.apply(2), -1, -1);
                alu.mode = mods.has(ShiftMode.CLAMP) ? 1 : 0;
                return alu;
            }
            case SZEXT -> {
                tr.need(ins, 3);
                IntOps.Alu alu = new IntOps.Alu(IntOps.SZEXT, 32, signed, d, s.apply(1), u32.apply(2), -1, -1);
                alu.mode = mods.has(ShiftMode.CLAMP) ? 1 : 0;
                return alu;
            }
            case FNS -> {
                tr.need(ins, 4);
                return new IntOps.Alu(IntOps.FNS, 32, false, d, s.apply(1), u32.apply(2), tr.src(ops.get(3), PtxType.S32, scope, ins), -1);
            }
            case DP4A, DP2A -> {
                tr.need(ins, 4);
                List<PtxType> ts = mods.types();
                if (ts.size() != 2) throw tr.unsupported(ins.loc(), ins.form() + " needs two types");
                IntOps.Alu alu = new IntOps.Alu(key == Opcode.DP4A ? IntOps.DP4A : IntOps.DP2A, 32, ts.get(0) == PtxType.S32, d,
                        s.apply(1), s.apply(2), s.apply(3), -1);
                alu.signedB = ts.get(1) == PtxType.S32;
                alu.mode = mods.has(Flag.HI) ? 1 : 0;
                return alu;
            }
            default -> throw tr.unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
        }
    }

    static int cmpKind(PtxType t) {
        return switch (t) {
            case F32 -> FloatOps.K_F32;
            case F64 -> FloatOps.K_F64;
            case F16 -> FloatOps.K_F16;
            case BF16 -> FloatOps.K_BF16;
            default -> FloatOps.K_INT;
        };
    }

    static int[] cmpAndBool(Translator tr, Instr ins) {
        int cmp = -1, bool = FloatOps.BOOL_NONE;
        for (Mod m : ins.mods()) {
            int c = m instanceof Mod.Compare cm ? FloatOps.cmp(cm) : -1;
            if (c >= 0 && cmp < 0) cmp = c;
            else if (m == BoolOp.AND) bool = FloatOps.BOOL_AND;
            else if (m == BoolOp.OR) bool = FloatOps.BOOL_OR;
            else if (m == BoolOp.XOR) bool = FloatOps.BOOL_XOR;
        }
        if (cmp < 0) throw tr.unsupported(ins.loc(), ins.form() + " without a comparison");
        return new int[] {cmp, bool};
    }

    /** The predicate c that setp and set combine their result with (a Boolean operator given): {index, 1 for !c}; {-1, 0} without. */
    static int[] combining(Translator tr, Instr ins, Scope scope, int bool) {
        if (bool == FloatOps.BOOL_NONE) return new int[] {-1, 0};
        tr.need(ins, 4);
        return tr.predSrc(ins.operands().get(3), scope, ins);
    }

    static Op setp(Translator tr, Instr ins, Scope scope, PtxType t) {
        List<Operand> ops = ins.operands();
        tr.need(ins, 3);
        if (t == null) throw tr.unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
        int[] cb = cmpAndBool(tr, ins);
        if (t == PtxType.F16X2 || t == PtxType.BF16X2) {
            if (!(ops.get(0) instanceof Operand.PredPair pp)) throw tr.unsupported(ins.loc(), "'" + ins.form() + "' needs two destination predicates p|q");
            int[] cp = combining(tr, ins, scope, cb[1]);
            int c = cp[0];
            boolean cNeg = cp[1] != 0;
            return new FloatOps.SetpX2(cb[0], t == PtxType.F16X2 ? FloatOps.K_F16 : FloatOps.K_BF16, ins.has(Flag.FTZ), cb[1],
                    tr.predDst(pp.first(), scope, ins), tr.predDst(pp.second(), scope, ins),
                    tr.src(ops.get(1), t, scope, ins), tr.src(ops.get(2), t, scope, ins), c, cNeg);
        }
        int dp, dq = -1;
        if (ops.get(0) instanceof Operand.PredPair pp) {
            dp = tr.predDst(pp.first(), scope, ins);
            dq = tr.predDst(pp.second(), scope, ins);
        } else {
            dp = tr.predDst(ops.get(0), scope, ins);
        }
        int[] cp = combining(tr, ins, scope, cb[1]);
        int c = cp[0];
        boolean cNeg = cp[1] != 0;
        return new FloatOps.Setp(cb[0], cmpKind(t), t.size() * 8, t.kind() == PtxType.Kind.SIGNED, ins.has(Flag.FTZ), cb[1],
                dp, dq, tr.src(ops.get(1), t, scope, ins), tr.src(ops.get(2), t, scope, ins), c, cNeg);
    }

    static Op set(Translator tr, Instr ins, Scope scope, List<PtxType> types) {
        List<Operand> ops = ins.operands();
        tr.need(ins, 3);
        if (types.size() != 2) throw tr.unsupported(ins.loc(), ins.form() + " needs a destination and a source type");
        PtxType dt = types.get(0), st = types.get(1);
        int[] cb = cmpAndBool(tr, ins);
        int[] cp = combining(tr, ins, scope, cb[1]);
        int c = cp[0];
        boolean cNeg = cp[1] != 0;
        boolean halfSrc = st == PtxType.F16 || st == PtxType.BF16 || st == PtxType.F16X2 || st == PtxType.BF16X2;
        boolean halfDst = dt == PtxType.F16 || dt == PtxType.BF16 || dt == PtxType.F16X2 || dt == PtxType.BF16X2;
        if (halfSrc && (halfDst || dt == PtxType.U16 || dt == PtxType.S16 || dt == PtxType.U32 || dt == PtxType.S32)) {
            int elements = st == PtxType.F16X2 || st == PtxType.BF16X2 ? 2 : 1;
            int one = dt == PtxType.F16 || dt == PtxType.F16X2 ? 0x3C00 : dt == PtxType.BF16 || dt == PtxType.BF16X2 ? 0x3F80 : -1;
            int kind = st == PtxType.F16 || st == PtxType.F16X2 ? FloatOps.K_F16 : FloatOps.K_BF16;
            return new FloatOps.SetHalf(cb[0], kind, ins.has(Flag.FTZ), cb[1], tr.dst(ops.get(0), scope, ins),
                    tr.src(ops.get(1), st, scope, ins), tr.src(ops.get(2), st, scope, ins), c, cNeg, elements, one, dt.size() * 8);
        }
        if ((dt == PtxType.F16 || dt == PtxType.BF16) && !halfSrc) {
            return new FloatOps.Set(cb[0], cmpKind(st), st.size() * 8, st.kind() == PtxType.Kind.SIGNED, ins.has(Flag.FTZ), cb[1],
                    tr.dst(ops.get(0), scope, ins), tr.src(ops.get(1), st, scope, ins), tr.src(ops.get(2), st, scope, ins), c, cNeg,
                    dt == PtxType.F16 ? 0x3C00L : 0x3F80L);
        }
        if ((dt.kind() == PtxType.Kind.FLOAT && dt != PtxType.F32) || halfSrc || halfDst) {
            throw tr.unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
        }
        return new FloatOps.Set(cb[0], cmpKind(st), st.size() * 8, st.kind() == PtxType.Kind.SIGNED, ins.has(Flag.FTZ), cb[1],
                tr.dst(ops.get(0), scope, ins), tr.src(ops.get(1), st, scope, ins), tr.src(ops.get(2), st, scope, ins), c, cNeg, dt == PtxType.F32);
    }

    static boolean convertible(PtxType t) {
        return switch (t) {
            case U8, U16, U32, U64, S8, S16, S32, S64, B8, B16, B32, B64, F16, F32, F64, BF16 -> true;
            default -> false;
        };
    }

    static Op cvt(Translator tr, Instr ins, Scope scope, List<PtxType> types) {
        List<Operand> ops = ins.operands();
        Modifiers mods = ins.mods();
        tr.need(ins, 2);
        if (types.size() != 2) throw tr.unsupported(ins.loc(), ins.form() + " needs two types");
        PtxType dt = types.get(0), st = types.get(1);
        boolean intRound = mods.hasAny(Rounding.RNI, Rounding.RZI, Rounding.RMI, Rounding.RPI);
        boolean satfinite = mods.has(Flag.SATFINITE);
        if (mods.has(Rounding.RS) || (mods.has(Rounding.RNA) && dt != PtxType.TF32)) {
            throw tr.unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
        }
        if (satfinite && dt != PtxType.F16 && dt != PtxType.BF16 && dt != PtxType.F16X2 && dt != PtxType.BF16X2 && dt != PtxType.TF32
                && dt != PtxType.E4M3X2 && dt != PtxType.E5M2X2) {
            throw tr.unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
        }
        int rnd = mods.has(Rounding.RNA) ? FloatMath.RNA : rounding(mods);
        if ((dt == PtxType.F16X2 || dt == PtxType.BF16X2 || dt == PtxType.E4M3X2 || dt == PtxType.E5M2X2) && st == PtxType.F32 && ops.size() == 3) {
            ConvertOps.Cvt c = new ConvertOps.Cvt(dt, st, rnd, false, mods.has(Flag.FTZ), mods.has(Flag.SAT), mods.has(Flag.RELU),
                    tr.dst(ops.get(0), scope, ins), tr.src(ops.get(1), st, scope, ins), tr.src(ops.get(2), st, scope, ins));
            c.satfinite = satfinite;
            return c;
        }
        boolean fp8 = ((dt == PtxType.E4M3X2 || dt == PtxType.E5M2X2) && st == PtxType.F16X2)
                || (dt == PtxType.F16X2 && (st == PtxType.E4M3X2 || st == PtxType.E5M2X2));
        if (fp8 || (dt == PtxType.TF32 && st == PtxType.F32)) {
            ConvertOps.Cvt c = new ConvertOps.Cvt(dt, st, rnd, false, false, false, mods.has(Flag.RELU), tr.dst(ops.get(0), scope, ins),
                    tr.src(ops.get(1), st, scope, ins), -1);
            c.satfinite = satfinite;
            return c;
        }
        if (!convertible(dt) || !convertible(st)) throw tr.unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
        if (st == PtxType.PRED || tr.isPred(ops.get(1), scope)) throw tr.unsupported(ins.loc(), "cvt of a predicate");
        ConvertOps.Cvt c = new ConvertOps.Cvt(dt, st, rounding(mods), intRound, mods.has(Flag.FTZ), mods.has(Flag.SAT), mods.has(Flag.RELU),
                tr.dst(ops.get(0), scope, ins), tr.src(ops.get(1), st, scope, ins), -1);
        c.satfinite = satfinite;
        return c;
    }
}
