package dev.zluda.ptx.llvm;

import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.ir.Mod.Flag;
import dev.zluda.ptx.ir.Mod.PrmtMode;
import dev.zluda.ptx.ir.Mod.ShiftDir;
import dev.zluda.ptx.ir.Mod.ShiftMode;
import dev.zluda.ptx.ir.Opcode;
import dev.zluda.ptx.ir.Operand;
import dev.zluda.ptx.ir.Operand.*;
import dev.zluda.ptx.llvm.LlvmEmitter.Fn;
import dev.zluda.ptx.llvm.LlvmEmitter.Ins;
import dev.zluda.ptx.llvm.LlvmEmitter.Unsupported;

import static dev.zluda.ptx.llvm.LlvmEmitter.*;

/**
 * Integer, bit-manipulation and selection instructions (PTX ISA 9.0, 9.7.1, 9.7.2, 9.7.6.3, 9.7.8 and mov,
 * 9.7.9.1), lowered for {@link LlvmEmitter} through its function context {@link Fn}.
 */
final class IntLowering {
    private IntLowering() {}

    static void mov(Fn f, Ins x) {
        PtxType t = x.type(0);
        if (t == PtxType.PRED) {
            f.writePred(x.op(0), f.readPred(x.op(1)));
            return;
        }
        int bits = t.size() * 8;
        Operand d = x.op(0), a = x.op(1);
        if (d instanceof Vec vd) {
            String val = f.read(a, bits, false);
            for (Lane l : vd.lanes()) {
                String s = l.offset() == 0 ? val : f.v("lshr " + ity(bits) + " " + val + ", " + l.offset());
                f.write(l.value(), f.resize(s, bits, l.bits(), false), l.bits(), false);
            }
            return;
        }
        if (a instanceof Vec va) {
            String acc = f.constant(0, bits);
            for (Lane l : va.lanes()) {
                String e = f.resize(f.read(l.value(), l.bits(), false), l.bits(), bits, false);
                if (l.offset() > 0) e = f.v("shl " + ity(bits) + " " + e + ", " + l.offset());
                acc = f.v("or " + ity(bits) + " " + acc + ", " + e);
            }
            f.write(d, acc, bits, false);
            return;
        }
        f.write(d, f.read(a, bits, t.kind() == PtxType.Kind.SIGNED), bits, t.kind() == PtxType.Kind.SIGNED);
    }

    static void arith(Fn f, Ins x) {
        PtxType t = x.type(0);
        if (t == null) throw new Unsupported(x.i.form() + ": no type");
        if (t.kind() == PtxType.Kind.FLOAT) {
            FloatLowering.floatArith(f, x, t);
            return;
        }
        if ((t == PtxType.U16X2 || t == PtxType.S16X2) && (x.opcode() == Opcode.MIN || x.opcode() == Opcode.MAX)) {
            minMax16x2(f, x, t);
            return;
        }
        if (t.size() > 8 || t.name().contains("X")) throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
        int bits = t.size() * 8;
        boolean s = t.kind() == PtxType.Kind.SIGNED;
        String ty = ity(bits);
        Opcode op = x.opcode();
        if (x.has(Flag.CC)) {
            carryOp(f, x);
            return;
        }
        if (t == PtxType.S32 && x.has(Flag.RELU) && (op == Opcode.MIN || op == Opcode.MAX) && x.mods.distinctCount() == 2) {
            // min/max.relu.s32 (PTX ISA 9.0, min and max): the signed min/max, a negative result clamped to 0
            String a = f.read(x.op(1), 32, true), b = f.read(x.op(2), 32, true);
            String m = f.call("i32", "llvm.s" + (op == Opcode.MIN ? "min" : "max") + ".i32", "i32, i32", "i32 " + a + ", i32 " + b);
            f.write(x.op(0), f.call("i32", "llvm.smax.i32", "i32, i32", "i32 " + m + ", i32 0"), 32, true);
            return;
        }
        if (t == PtxType.S32 && (op == Opcode.MAD || op == Opcode.MAD_CC) && x.has(Flag.HI) && x.has(Flag.SAT) && x.mods.distinctCount() == 3) {
            // mad.hi.sat.s32 (PTX ISA 9.0, mad): the high 32 bits of the 64-bit product plus c, saturated to .s32
            String a = f.resize(f.read(x.op(1), 32, true), 32, 64, true), b = f.resize(f.read(x.op(2), 32, true), 32, 64, true);
            String hi = f.resize(f.v("ashr i64 " + f.v("mul i64 " + a + ", " + b) + ", 32"), 64, 32, false);
            f.write(x.op(0), f.call("i32", "llvm.sadd.sat.i32", "i32, i32", "i32 " + hi + ", i32 " + f.read(x.op(3), 32, true)), 32, true);
            return;
        }
        if (x.has(Flag.RELU) || (x.has(Flag.SAT) && !(op == Opcode.ADD || op == Opcode.ADD_CC || op == Opcode.SUB || op == Opcode.SUB_CC))) {
            throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
        }
        boolean wide = x.has(Flag.WIDE), hi = x.has(Flag.HI);
        switch (op) {
            case ADD, ADD_CC, SUB, SUB_CC -> {
                String name = op == Opcode.ADD || op == Opcode.ADD_CC ? "add" : "sub";
                String a = f.read(x.op(1), bits, s), b = f.read(x.op(2), bits, s);
                String r = x.has(Flag.SAT)
                        ? f.call(ty, "llvm." + (s ? "s" : "u") + name + ".sat." + ty, ty + ", " + ty, ty + " " + a + ", " + ty + " " + b)
                        : f.v(name + " " + ty + " " + a + ", " + b);
                f.write(x.op(0), r, bits, s);
            }
            case MUL, MAD, MAD_CC -> {
                int w = wide || hi ? 2 * bits : bits;
                String a = f.resize(f.read(x.op(1), bits, s), bits, w, s), b = f.resize(f.read(x.op(2), bits, s), bits, w, s);
                String p = f.v("mul " + ity(w) + " " + a + ", " + b);
                if (hi) p = f.resize(f.v((s ? "ashr " : "lshr ") + ity(w) + " " + p + ", " + bits), w, bits, s);
                int rw = wide ? w : bits;
                if (op != Opcode.MUL) p = f.v("add " + ity(rw) + " " + p + ", " + f.read(x.op(3), rw, s));
                f.write(x.op(0), p, rw, s);
            }
            case SAD -> {
                String a = f.read(x.op(1), bits, s), b = f.read(x.op(2), bits, s), c = f.read(x.op(3), bits, s);
                String lt = f.v("icmp " + (s ? "slt " : "ult ") + ty + " " + a + ", " + b);
                String d1 = f.v("sub " + ty + " " + b + ", " + a), d2 = f.v("sub " + ty + " " + a + ", " + b);
                String d = f.v("select i1 " + lt + ", " + ty + " " + d1 + ", " + ty + " " + d2);
                f.write(x.op(0), f.v("add " + ty + " " + d + ", " + c), bits, s);
            }
            case DIV, REM -> {
                // PTX defines division by zero (all ones, as an H200 gives) and MIN/-1 (wraps); LLVM makes both UB
                String a = f.read(x.op(1), bits, s), b = f.read(x.op(2), bits, s);
                String z = f.v("icmp eq " + ty + " " + b + ", 0");
                String safeB = f.v("select i1 " + z + ", " + ty + " 1, " + ty + " " + b);
                if (s) {
                    String m1 = f.v("icmp eq " + ty + " " + safeB + ", -1");
                    safeB = f.v("select i1 " + m1 + ", " + ty + " 1, " + ty + " " + safeB);
                    String q = f.v((op == Opcode.DIV ? "sdiv " : "srem ") + ty + " " + a + ", " + safeB);
                    String neg = f.v("sub " + ty + " 0, " + a);
                    q = f.v("select i1 " + m1 + ", " + ty + " " + (op == Opcode.DIV ? neg : "0") + ", " + ty + " " + q);
                    f.write(x.op(0), f.v("select i1 " + z + ", " + ty + " -1, " + ty + " " + q), bits, s);
                } else {
                    String q = f.v((op == Opcode.DIV ? "udiv " : "urem ") + ty + " " + a + ", " + safeB);
                    f.write(x.op(0), f.v("select i1 " + z + ", " + ty + " -1, " + ty + " " + q), bits, s);
                }
            }
            case MIN, MAX -> {
                String a = f.read(x.op(1), bits, s), b = f.read(x.op(2), bits, s);
                String fn = "llvm." + (s ? "s" : "u") + (op == Opcode.MIN ? "min" : "max") + "." + ty;
                f.write(x.op(0), f.call(ty, fn, ty + ", " + ty, ty + " " + a + ", " + ty + " " + b), bits, s);
            }
            case ABS -> f.write(x.op(0), f.call(ty, "llvm.abs." + ty, ty + ", i1", ty + " " + f.read(x.op(1), bits, s) + ", i1 false"), bits, s);
            case NEG -> f.write(x.op(0), f.v("sub " + ty + " 0, " + f.read(x.op(1), bits, s)), bits, s);
            default -> throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
        }
    }

    static String carryIn(Fn f) {
        return f.v("load i1, " + f.allocaAs() + " " + f.carry);
    }

    /** add.cc, addc, sub.cc, subc, mad.cc, madc (PTX ISA 9.7.2): CC.CF is a carry for add, a borrow for sub. */
    static void carryOp(Fn f, Ins x) {
        PtxType t = x.type(0);
        if (t == null || t.size() < 4 || t.kind() == PtxType.Kind.FLOAT) throw new Unsupported(x.i.form() + " is not supported");
        int bits = t.size() * 8;
        String ty = ity(bits);
        Opcode op = x.opcode();
        boolean cin = op == Opcode.ADDC || op == Opcode.SUBC || op == Opcode.MADC, cout = x.has(Flag.CC);
        boolean sub = op == Opcode.SUB || op == Opcode.SUB_CC || op == Opcode.SUBC;
        boolean mad = op == Opcode.MAD || op == Opcode.MAD_CC || op == Opcode.MADC;
        String p, q;
        if (mad) {
            boolean s = t.kind() == PtxType.Kind.SIGNED;
            if (x.has(Flag.HI)) {
                String a = f.resize(f.read(x.op(1), bits, s), bits, 2 * bits, s), b = f.resize(f.read(x.op(2), bits, s), bits, 2 * bits, s);
                String m = f.v("mul " + ity(2 * bits) + " " + a + ", " + b);
                p = f.resize(f.v("lshr " + ity(2 * bits) + " " + m + ", " + bits), 2 * bits, bits, false);
            } else {
                p = f.v("mul " + ty + " " + f.read(x.op(1), bits, false) + ", " + f.read(x.op(2), bits, false));
            }
            q = f.read(x.op(3), bits, false);
        } else {
            p = f.read(x.op(1), bits, false);
            q = f.read(x.op(2), bits, false);
        }
        String kind = sub ? "usub" : "uadd";
        String r1 = f.call("{" + ty + ", i1}", "llvm." + kind + ".with.overflow." + ty, ty + ", " + ty, ty + " " + p + ", " + ty + " " + q);
        String s1 = f.v("extractvalue {" + ty + ", i1} " + r1 + ", 0"), o1 = f.v("extractvalue {" + ty + ", i1} " + r1 + ", 1");
        String res = s1, out = o1;
        if (cin) {
            String c = f.resize(carryIn(f), 1, bits, false);
            String r2 = f.call("{" + ty + ", i1}", "llvm." + kind + ".with.overflow." + ty, ty + ", " + ty, ty + " " + s1 + ", " + ty + " " + c);
            res = f.v("extractvalue {" + ty + ", i1} " + r2 + ", 0");
            out = f.v("or i1 " + o1 + ", " + f.v("extractvalue {" + ty + ", i1} " + r2 + ", 1"));
        }
        f.write(x.op(0), res, bits, false);
        if (cout) f.line("store i1 " + out + ", " + f.allocaAs() + " " + f.carry);
    }

    static void logic(Fn f, Ins x) {
        PtxType t = x.type(0);
        Opcode op = x.opcode();
        String name = switch (op) { case AND -> "and"; case OR -> "or"; case XOR -> "xor"; default -> null; };
        if (t == PtxType.PRED) {
            String a = f.readPred(x.op(1));
            String r = switch (op) {
                case NOT -> f.v("xor i1 " + a + ", true");
                case AND, OR, XOR -> f.v(name + " i1 " + a + ", " + f.readPred(x.op(2)));
                default -> throw new Unsupported(x.i.form() + " is not supported");
            };
            f.writePred(x.op(0), r);
            return;
        }
        int bits = t.size() * 8;
        String ty = ity(bits);
        String a = f.read(x.op(1), bits, false);
        String r = switch (op) {
            case NOT -> f.v("xor " + ty + " " + a + ", -1");
            case CNOT -> f.v("zext i1 " + f.v("icmp eq " + ty + " " + a + ", 0") + " to " + ty);
            default -> f.v(name + " " + ty + " " + a + ", " + f.read(x.op(2), bits, false));
        };
        f.write(x.op(0), r, bits, false);
    }

    static void shift(Fn f, Ins x) {
        PtxType t = x.type(0);
        int bits = t.size() * 8;
        String ty = ity(bits);
        boolean s = x.opcode() == Opcode.SHR && t.kind() == PtxType.Kind.SIGNED;
        String a = f.read(x.op(1), bits, false);
        String k = f.read(x.op(2), 32, false);              // the shift amount is always .u32
        // PTX clamps shift amounts at the width; LLVM makes larger shifts poison
        String big = f.v("icmp ugt i32 " + k + ", " + (bits - 1));
        String kc = f.v("select i1 " + big + ", i32 " + (bits - 1) + ", i32 " + k);
        String kk = f.resize(kc, 32, bits, false);
        String r;
        if (s) {
            r = f.v("ashr " + ty + " " + a + ", " + kk);
        } else {
            String sh = f.v((x.opcode() == Opcode.SHL ? "shl " : "lshr ") + ty + " " + a + ", " + kk);
            r = f.v("select i1 " + big + ", " + ty + " 0, " + ty + " " + sh);
        }
        f.write(x.op(0), r, bits, false);
    }

    static void bits(Fn f, Ins x) {
        PtxType t = x.type(0);
        int bits = t.size() * 8;
        String ty = ity(bits);
        String a = f.read(x.op(1), bits, false);
        switch (x.opcode()) {
            case POPC -> f.write(x.op(0), f.resize(f.call(ty, "llvm.ctpop." + ty, ty, ty + " " + a), bits, 32, false), 32, false);
            case CLZ -> f.write(x.op(0), f.resize(f.call(ty, "llvm.ctlz." + ty, ty + ", i1", ty + " " + a + ", i1 false"), bits, 32, false), 32, false);
            default -> f.write(x.op(0), f.call(ty, "llvm.bitreverse." + ty, ty, ty + " " + a), bits, false);
        }
    }

    /** lop3.b32 d, a, b, c, lut (PTX ISA 9.7.8.6): bit i of lut is the result for minterm i = (a<<2)|(b<<1)|c. */
    static void lop3(Fn f, Ins x) {
        if (!x.has(PtxType.B32) || x.i.arity() != 5) throw new Unsupported(x.i.form() + " is not supported");
        Long lut = x.op(4) instanceof IntImm c ? c.value() : null;
        if (lut == null) throw new Unsupported(x.i.form() + ": the lookup table must be a constant");
        String a = f.read(x.op(1), 32, false), b = f.read(x.op(2), 32, false), c = f.read(x.op(3), 32, false);
        String na = f.v("xor i32 " + a + ", -1"), nb = f.v("xor i32 " + b + ", -1"), nc = f.v("xor i32 " + c + ", -1");
        String acc = "0";
        for (int m = 0; m < 8; m++) {
            if ((lut >> m & 1) == 0) continue;
            String t1 = f.v("and i32 " + ((m & 4) != 0 ? a : na) + ", " + ((m & 2) != 0 ? b : nb));
            String t2 = f.v("and i32 " + t1 + ", " + ((m & 1) != 0 ? c : nc));
            acc = f.v("or i32 " + acc + ", " + t2);
        }
        f.write(x.op(0), acc, 32, false);
    }

    /**
     * Position and length of a bit field (bfe, bfi) at the instruction's width: for 32 bits bits 7..0 of the .u32
     * operands (PTX ISA 9.0, bfe and bfi), for 64 bits the whole .u32 values (an H200 does not mask them).
     */
    static String[] field(Fn f, Operand posOp, Operand lenOp, int w) {
        String b = f.read(posOp, 32, false), c = f.read(lenOp, 32, false);
        if (w == 32) return new String[] {f.v("and i32 " + b + ", 255"), f.v("and i32 " + c + ", 255")};
        return new String[] {f.resize(b, 32, 64, false), f.resize(c, 32, 64, false)};
    }

    /**
     * The mask of the bits [pos, pos + len) that lie inside a {@code w}-bit value, not yet shifted to pos:
     * {@code [inRange, clamped pos, mask]}; no LLVM shift sees an amount at or past the width.
     */
    static String[] fieldMask(Fn f, String pos, String len, int w) {
        String ty = ity(w);
        String inRange = f.v("icmp ult " + ty + " " + pos + ", " + w);
        String posC = f.umin(ty, pos, Integer.toString(w - 1));
        String n = f.sel(inRange, ty, f.umin(ty, len, f.v("sub " + ty + " " + w + ", " + posC)), "0");
        String full = f.v("icmp uge " + ty + " " + n + ", " + w);
        String low = f.v("sub " + ty + " " + f.v("shl " + ty + " 1, " + f.umin(ty, n, Integer.toString(w - 1))) + ", 1");
        return new String[] {inRange, posC, f.sel(full, ty, "-1", low)};
    }

    /** The type of bfe and bfind: .u32, .s32, .u64 or .s64, else refused. */
    private static PtxType signedOrUnsigned32or64(Ins x) {
        PtxType t = x.type(0);
        if (t == null || !isInt(t) || t.size() < 4 || t.kind() == PtxType.Kind.BIT) throw new Unsupported(x.i.form() + " is not supported");
        return t;
    }

    /**
     * bfe.{u32,s32,u64,s64} d, a, pos, len (PTX ISA 9.0, bfe): bits [pos, pos + len) of a; signed types fill the
     * bits above with bit min(pos + len − 1, msb) of a (0 when len is 0), unsigned with zeros.
     */
    static void bfe(Fn f, Ins x) {
        PtxType t = signedOrUnsigned32or64(x);
        int w = t.size() * 8;
        String ty = ity(w);
        String a = f.read(x.op(1), w, false);
        String[] pl = field(f, x.op(2), x.op(3), w);
        String[] fm = fieldMask(f, pl[0], pl[1], w);
        String shifted = f.sel(fm[0], ty, f.v("lshr " + ty + " " + a + ", " + fm[1]), "0");
        String fld = f.v("and " + ty + " " + shifted + ", " + fm[2]);
        if (t.kind() == PtxType.Kind.SIGNED) {
            String top = f.umin(ty, f.v("add " + ty + " " + pl[0] + ", " + f.v("sub " + ty + " " + pl[1] + ", 1")), Integer.toString(w - 1));
            String bit = f.v("and " + ty + " " + f.v("lshr " + ty + " " + a + ", " + top) + ", 1");
            String neg = f.v("and i1 " + f.v("icmp ne " + ty + " " + bit + ", 0") + ", " + f.v("icmp ne " + ty + " " + pl[1] + ", 0"));
            fld = f.v("or " + ty + " " + fld + ", " + f.sel(neg, ty, f.v("xor " + ty + " " + fm[2] + ", -1"), "0"));
        }
        f.write(x.op(0), fld, w, false);
    }

    /** bfi.{b32,b64} f, a, b, pos, len (PTX ISA 9.0, bfi): b with bits [pos, pos + len) (inside the width) from a's low bits. */
    static void bfi(Fn f, Ins x) {
        PtxType t = x.type(0);
        if (t == null || (t != PtxType.B32 && t != PtxType.B64)) throw new Unsupported(x.i.form() + " is not supported");
        int w = t.size() * 8;
        String ty = ity(w);
        String a = f.read(x.op(1), w, false), b = f.read(x.op(2), w, false);
        String[] pl = field(f, x.op(3), x.op(4), w);
        String[] fm = fieldMask(f, pl[0], pl[1], w);
        String m = f.sel(fm[0], ty, f.v("shl " + ty + " " + fm[2] + ", " + fm[1]), "0");
        String ins = f.v("and " + ty + " " + f.v("shl " + ty + " " + a + ", " + fm[1]) + ", " + m);
        String keep = f.v("and " + ty + " " + b + ", " + f.v("xor " + ty + " " + m + ", -1"));
        f.write(x.op(0), f.v("or " + ty + " " + keep + ", " + ins), w, false);
    }

    /**
     * bfind[.shiftamt].{u32,s32,u64,s64} d, a (PTX ISA 9.0, bfind): the bit position of the most significant
     * non-sign bit (the highest 1 of a, or of ~a for negative signed a), as a .u32; with .shiftamt the left
     * shift that moves it to the msb; 0xffffffff when there is none.
     */
    static void bfind(Fn f, Ins x) {
        PtxType t = signedOrUnsigned32or64(x);
        int w = t.size() * 8;
        String ty = ity(w);
        String a = f.read(x.op(1), w, false);
        if (t.kind() == PtxType.Kind.SIGNED) a = f.sel(f.v("icmp slt " + ty + " " + a + ", 0"), ty, f.v("xor " + ty + " " + a + ", -1"), a);
        String lz = f.resize(f.call(ty, "llvm.ctlz." + ty, ty + ", i1", ty + " " + a + ", i1 false"), w, 32, false);
        String r = x.has(Flag.SHIFTAMT) ? lz : f.v("sub i32 " + (w - 1) + ", " + lz);
        String none = f.v("icmp eq " + ty + " " + a + ", 0");
        f.write(x.op(0), f.sel(none, "i32", "-1", r), 32, false);
    }

    /**
     * bmsk.{wrap,clamp}.b32 d, a, b (PTX ISA 9.0, bmsk): a mask of b bits starting at bit a. .wrap takes a and b
     * modulo 32; .clamp gives 0 for a ≥ 32 and all bits from a up for b ≥ 32 (as an H200 does).
     */
    static void bmsk(Fn f, Ins x) {
        boolean clamp = x.has(ShiftMode.CLAMP);
        if (!clamp && !x.has(ShiftMode.WRAP)) throw new Unsupported(x.i.form() + " is not supported");
        String a = f.read(x.op(1), 32, false), b = f.read(x.op(2), 32, false);
        String a1 = f.v("and i32 " + a + ", 31"), b1 = f.v("and i32 " + b + ", 31");
        String mask0 = f.v("shl i32 -1, " + a1);
        String sum = f.v("add i32 " + a1 + ", " + b1);
        String zero1 = f.v("icmp uge i32 " + sum + ", 32");
        if (clamp) {
            String aOver = f.v("icmp uge i32 " + a + ", 32"), bOver = f.v("icmp uge i32 " + b + ", 32");
            mask0 = f.sel(aOver, "i32", "0", mask0);
            zero1 = f.v("or i1 " + zero1 + ", " + f.v("or i1 " + aOver + ", " + bOver));
        }
        String mask1 = f.v("shl i32 -1, " + f.v("and i32 " + sum + ", 31"));
        mask1 = f.sel(zero1, "i32", "0", f.sel(f.v("icmp eq i32 " + b1 + ", 0"), "i32", "-1", mask1));
        f.write(x.op(0), f.v("and i32 " + mask0 + ", " + f.v("xor i32 " + mask1 + ", -1")), 32, false);
    }

    /**
     * szext.{wrap,clamp}.{u32,s32} d, a, b (PTX ISA 9.0, szext): the low b bits of a, zero- or sign-extended
     * (b modulo 32 with .wrap; with .clamp b ≥ 32 keeps a whole); b = 0 gives 0.
     */
    static void szext(Fn f, Ins x) {
        PtxType t = x.type(0);
        boolean clamp = x.has(ShiftMode.CLAMP);
        if ((t != PtxType.U32 && t != PtxType.S32) || (!clamp && !x.has(ShiftMode.WRAP))) throw new Unsupported(x.i.form() + " is not supported");
        String a = f.read(x.op(1), 32, false), b = f.read(x.op(2), 32, false);
        String b1 = f.v("and i32 " + b + ", 31");
        String msk = f.v("shl i32 -1, " + b1);
        if (clamp) msk = f.sel(f.v("icmp uge i32 " + b + ", 32"), "i32", "0", msk);
        String r = f.v("and i32 " + a + ", " + f.v("xor i32 " + msk + ", -1"));
        if (t == PtxType.S32) {
            String pos = f.v("and i32 " + f.v("sub i32 " + b1 + ", 1") + ", 31");
            String bit = f.v("and i32 " + f.v("lshr i32 " + a + ", " + pos) + ", 1");
            String neg = f.v("and i1 " + f.v("icmp ne i32 " + bit + ", 0") + ", " + f.v("icmp ne i32 " + b1 + ", 0"));
            r = f.v("or i32 " + r + ", " + f.sel(neg, "i32", msk, "0"));   // msk is 0 when .clamp and b ≥ 32
        }
        f.write(x.op(0), r, 32, false);
    }

    /**
     * shf.{l,r}.{wrap,clamp}.b32 d, a, b, c (PTX ISA 9.0, shf): the 64-bit value b:a shifted left (high word kept)
     * or right (low word kept) by c modulo 32 (.wrap) or min(c, 32) (.clamp).
     */
    static void shf(Fn f, Ins x) {
        boolean clamp = x.has(ShiftMode.CLAMP), left = x.has(ShiftDir.L);
        if (!x.has(PtxType.B32) || (!clamp && !x.has(ShiftMode.WRAP)) || (!left && !x.has(ShiftDir.R))) throw new Unsupported(x.i.form() + " is not supported");
        String a = f.read(x.op(1), 32, false), b = f.read(x.op(2), 32, false), c = f.read(x.op(3), 32, false);
        String n = clamp ? f.umin("i32", c, "32") : f.v("and i32 " + c + ", 31");
        String cat = f.v("or i64 " + f.v("shl i64 " + f.resize(b, 32, 64, false) + ", 32") + ", " + f.resize(a, 32, 64, false));
        String n64 = f.resize(n, 32, 64, false);
        String r = left ? f.v("lshr i64 " + f.v("shl i64 " + cat + ", " + n64) + ", 32") : f.v("lshr i64 " + cat + ", " + n64);
        f.write(x.op(0), f.resize(r, 64, 32, false), 32, false);
    }

    /**
     * prmt.b32[.mode] d, a, b, c (PTX ISA 9.0, prmt): bytes of b:a (a = bytes 0..3, b = 4..7) picked by the
     * nibbles of c (bit 3 of a nibble replicates the picked byte's sign), or with .f4e .b4e .rc8 .ecl .ecr .rc16
     * by the pattern the mode makes of c's two low bits.
     */
    static void prmt(Fn f, Ins x) {
        PrmtMode mode = null;
        for (PrmtMode m : PrmtMode.values()) if (x.has(m)) mode = m;
        if (!x.has(PtxType.B32) || x.mods.distinctCount() != (mode == null ? 1 : 2)) throw new Unsupported(x.i.form() + " is not supported");
        String a = f.read(x.op(1), 32, false), b = f.read(x.op(2), 32, false), c = f.read(x.op(3), 32, false);
        String tmp = f.v("or i64 " + f.v("shl i64 " + f.resize(b, 32, 64, false) + ", 32") + ", " + f.resize(a, 32, 64, false));
        String s = f.v("and i32 " + c + ", 3");
        String acc = "0";
        for (int i = 0; i < 4; i++) {
            String nib = mode == null ? f.v("and i32 " + f.v("lshr i32 " + c + ", " + (4 * i)) + ", 15") : null;
            String idx = mode == null ? f.v("and i32 " + nib + ", 7") : switch (mode) {
                case F4E -> f.v("add i32 " + s + ", " + i);
                case B4E -> f.v("and i32 " + f.v("sub i32 " + s + ", " + i) + ", 7");
                case RC8 -> s;
                case ECL -> f.call("i32", "llvm.umax.i32", "i32, i32", "i32 " + s + ", i32 " + i);
                case ECR -> f.umin("i32", s, Integer.toString(i));
                case RC16 -> f.v("add i32 " + f.v("shl i32 " + f.v("and i32 " + s + ", 1") + ", 1") + ", " + (i & 1));
            };
            String sh = f.resize(f.v("shl i32 " + idx + ", 3"), 32, 64, false);
            String byt = f.v("trunc i64 " + f.v("lshr i64 " + tmp + ", " + sh) + " to i8");
            if (mode == null) {
                String rep = f.v("ashr i8 " + byt + ", 7");
                byt = f.sel(f.v("icmp ne i32 " + f.v("and i32 " + nib + ", 8") + ", 0"), "i8", rep, byt);
            }
            String wide = f.resize(byt, 8, 32, false);
            if (i > 0) wide = f.v("shl i32 " + wide + ", " + (8 * i));
            acc = f.v("or i32 " + acc + ", " + wide);
        }
        f.write(x.op(0), acc, 32, false);
    }

    /** The position of the k-th (from 0) set bit of m counted from bit 0, for k < popc(m): a 5-step binary search. */
    static String kthSetBit(Fn f, String m, String k) {
        String r = "0", kk = k;
        for (int wdt = 16; wdt >= 1; wdt /= 2) {
            String part = f.v("and i32 " + f.v("lshr i32 " + m + ", " + r) + ", " + ((1 << wdt) - 1));
            String cnt = f.call("i32", "llvm.ctpop.i32", "i32", "i32 " + part);
            String up = f.v("icmp uge i32 " + kk + ", " + cnt);
            kk = f.sel(up, "i32", f.v("sub i32 " + kk + ", " + cnt), kk);
            r = f.sel(up, "i32", f.v("add i32 " + r + ", " + wdt), r);
        }
        return r;
    }

    /**
     * fns.b32 d, mask, base, offset (PTX ISA 9.0, fns): the position of the |offset|-th set bit of mask counting
     * up (offset &gt; 0) or down (offset &lt; 0) from bit base, base itself when offset is 0 and its bit is set,
     * 0xffffffff when there is no such bit or base ≥ 32; offset = INT_MIN gives 0, as an H200 does.
     */
    static void fns(Fn f, Ins x) {
        if (!x.has(PtxType.B32) || x.mods.distinctCount() != 1) throw new Unsupported(x.i.form() + " is not supported");
        String msk = f.read(x.op(1), 32, false), base = f.read(x.op(2), 32, false), off = f.read(x.op(3), 32, false);
        String baseOk = f.v("icmp ult i32 " + base + ", 32");
        String bc = f.v("and i32 " + base + ", 31");
        String at = f.v("icmp ne i32 " + f.v("and i32 " + f.v("lshr i32 " + msk + ", " + bc) + ", 1") + ", 0");
        String r0 = f.sel(f.v("and i1 " + baseOk + ", " + at), "i32", bc, "-1");
        String upBits = f.v("and i32 " + msk + ", " + f.v("shl i32 -1, " + bc));
        String cu = f.call("i32", "llvm.ctpop.i32", "i32", "i32 " + upBits);
        String okU = f.v("and i1 " + baseOk + ", " + f.v("icmp ule i32 " + off + ", " + cu));
        String ru = f.sel(okU, "i32", kthSetBit(f, upBits, f.v("sub i32 " + off + ", 1")), "-1");
        String dnBits = f.v("and i32 " + msk + ", " + f.v("lshr i32 -1, " + f.v("sub i32 31, " + bc)));
        String cd = f.call("i32", "llvm.ctpop.i32", "i32", "i32 " + dnBits);
        String n = f.v("sub i32 0, " + off);
        String okD = f.v("and i1 " + baseOk + ", " + f.v("icmp ule i32 " + n + ", " + cd));
        String rd = f.sel(okD, "i32", kthSetBit(f, dnBits, f.v("sub i32 " + cd + ", " + n)), "-1");
        rd = f.sel(f.v("icmp eq i32 " + off + ", -2147483648"), "i32", "0", rd);
        String r = f.sel(f.v("icmp eq i32 " + off + ", 0"), "i32", r0, f.sel(f.v("icmp sgt i32 " + off + ", 0"), "i32", ru, rd));
        f.write(x.op(0), r, 32, false);
    }

    /**
     * slct[.ftz].dtype.{s32,f32} d, a, b, c (PTX ISA 9.0, slct): a when c ≥ 0, else b; a NaN c selects b; with
     * .ftz a subnormal c counts as (signed) zero and selects a.
     */
    static void slct(Fn f, Ins x) {
        PtxType t = x.type(0), ct = x.type(1);
        if (t == null || (t.size() != 2 && t.size() != 4 && t.size() != 8) || t.name().contains("X")
                || (ct != PtxType.S32 && ct != PtxType.F32) || (x.has(Flag.FTZ) && ct != PtxType.F32)) {
            throw new Unsupported(x.i.form() + " is not supported");
        }
        int w = t.size() * 8;
        String ty = ity(w);
        String a = f.read(x.op(1), w, false), b = f.read(x.op(2), w, false), c = f.read(x.op(3), 32, false);
        String ge;
        if (ct == PtxType.S32) {
            ge = f.v("icmp sge i32 " + c + ", 0");
        } else {
            ge = f.v("fcmp oge float " + f.v("bitcast i32 " + c + " to float") + ", 0.0");
            if (x.has(Flag.FTZ)) ge = f.v("or i1 " + ge + ", " + f.v("icmp eq i32 " + f.v("and i32 " + c + ", 2139095040") + ", 0"));
        }
        f.write(x.op(0), f.sel(ge, ty, a, b), w, false);
    }

    /**
     * dp4a.atype.btype d, a, b, c and dp2a.{lo,hi}.atype.btype (PTX ISA 9.0, dp4a and dp2a): c plus the dot product of
     * a's four bytes (dp2a: two half-words) with b's four bytes (dp2a: bytes 0-1 for .lo, 2-3 for .hi), each
     * element signed or unsigned by its type, modulo 2^32.
     */
    static void dot(Fn f, Ins x) {
        PtxType ta = x.type(0), tb = x.type(1);
        boolean four = x.opcode() == Opcode.DP4A;
        if ((ta != PtxType.U32 && ta != PtxType.S32) || (tb != PtxType.U32 && tb != PtxType.S32) || x.types.size() != 2
                || (!four && !x.has(Flag.LO) && !x.has(Flag.HI))) {
            throw new Unsupported(x.i.form() + " is not supported");
        }
        boolean sa = ta == PtxType.S32, sb = tb == PtxType.S32;
        String a = f.read(x.op(1), 32, false), b = f.read(x.op(2), 32, false);
        String acc = f.read(x.op(3), 32, false);
        int first = !four && x.has(Flag.HI) ? 2 : 0;
        for (int i = 0; i < (four ? 4 : 2); i++) {
            int aw = four ? 8 : 16;
            String ai = f.resize(f.v("trunc i32 " + (i == 0 ? a : f.v("lshr i32 " + a + ", " + (aw * i))) + " to " + ity(aw)), aw, 32, sa);
            int bs = 8 * (first + i);
            String bi = f.resize(f.v("trunc i32 " + (bs == 0 ? b : f.v("lshr i32 " + b + ", " + bs)) + " to i8"), 8, 32, sb);
            acc = f.v("add i32 " + acc + ", " + f.v("mul i32 " + ai + ", " + bi));
        }
        f.write(x.op(0), acc, 32, false);
    }

    /**
     * min/max[.relu].{u16x2,s16x2} d, a, b (PTX ISA 9.0, min and max): per 16-bit half, signed or unsigned; .relu
     * (s16x2 only) clamps negative halves to 0.
     */
    static void minMax16x2(Fn f, Ins x, PtxType t) {
        boolean s = t == PtxType.S16X2, relu = x.has(Flag.RELU);
        if ((relu && !s) || x.mods.distinctCount() != (relu ? 2 : 1)) throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
        String vt = "<2 x i16>";
        String a = f.v("bitcast i32 " + f.read(x.op(1), 32, false) + " to " + vt), b = f.v("bitcast i32 " + f.read(x.op(2), 32, false) + " to " + vt);
        String fn = "llvm." + (s ? "s" : "u") + (x.opcode() == Opcode.MIN ? "min" : "max") + ".v2i16";
        String r = f.call(vt, fn, vt + ", " + vt, vt + " " + a + ", " + vt + " " + b);
        if (relu) r = f.call(vt, "llvm.smax.v2i16", vt + ", " + vt, vt + " " + r + ", " + vt + " zeroinitializer");
        f.write(x.op(0), f.v("bitcast " + vt + " " + r + " to i32"), 32, false);
    }

    static void selp(Fn f, Ins x) {
        PtxType t = x.type(0);
        int bits = t.size() * 8;
        String ty = ity(bits);
        String a = f.read(x.op(1), bits, false), b = f.read(x.op(2), bits, false);
        String c = f.readPred(x.op(3));
        f.write(x.op(0), f.v("select i1 " + c + ", " + ty + " " + a + ", " + ty + " " + b), bits, false);
    }

    /** mul24 / mad24 (PTX ISA 9.7.1.5-6): the 48-bit product of the low 24 bits; .lo its low 32 bits, .hi bits 16..47. */
    static void mul24(Fn f, Ins x) {
        PtxType t = x.type(0);
        if (t == PtxType.S32 && x.opcode() == Opcode.MAD24 && x.has(Flag.HI) && x.has(Flag.SAT) && x.mods.distinctCount() == 3) {
            // mad24.hi.sat.s32 (PTX ISA 9.0, mad24): bits 47..16 of the 48-bit product of a's and b's low 24 bits
            // (signed), plus c, saturated to .s32
            String a = f.resize(f.v("trunc i32 " + f.read(x.op(1), 32, false) + " to i24"), 24, 64, true);
            String b = f.resize(f.v("trunc i32 " + f.read(x.op(2), 32, false) + " to i24"), 24, 64, true);
            String hi = f.resize(f.v("ashr i64 " + f.v("mul i64 " + a + ", " + b) + ", 16"), 64, 32, false);
            f.write(x.op(0), f.call("i32", "llvm.sadd.sat.i32", "i32, i32", "i32 " + hi + ", i32 " + f.read(x.op(3), 32, false)), 32, false);
            return;
        }
        if (t == null || t.size() != 4 || x.has(Flag.SAT)) throw new Unsupported(x.i.form() + " is not supported");
        boolean s = t.kind() == PtxType.Kind.SIGNED;
        String a = f.read(x.op(1), 32, false), b = f.read(x.op(2), 32, false);
        String a24 = f.v("trunc i32 " + a + " to i24"), b24 = f.v("trunc i32 " + b + " to i24");
        String a64 = f.resize(a24, 24, 64, s), b64 = f.resize(b24, 24, 64, s);
        String p = f.v("mul i64 " + a64 + ", " + b64);
        String r = x.has(Flag.HI) ? f.resize(f.v("lshr i64 " + p + ", 16"), 64, 32, false) : f.resize(p, 64, 32, false);
        if (x.opcode() == Opcode.MAD24) r = f.v("add i32 " + r + ", " + f.read(x.op(3), 32, false));
        f.write(x.op(0), r, 32, false);
    }
}
