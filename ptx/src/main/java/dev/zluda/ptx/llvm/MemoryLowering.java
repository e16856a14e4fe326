package dev.zluda.ptx.llvm;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.ir.Mod;
import dev.zluda.ptx.ir.Mod.Flag;
import dev.zluda.ptx.ir.Mod.MemOrder;
import dev.zluda.ptx.ir.Mod.ReduceOp;
import dev.zluda.ptx.ir.Mod.StateSpace;
import dev.zluda.ptx.ir.Opcode;
import dev.zluda.ptx.ir.Operand;
import dev.zluda.ptx.ir.Operand.*;
import java.util.List;

import dev.zluda.ptx.llvm.LlvmEmitter.Fn;
import dev.zluda.ptx.llvm.LlvmEmitter.Ins;
import dev.zluda.ptx.llvm.LlvmEmitter.Unsupported;

import static dev.zluda.ptx.llvm.LlvmEmitter.*;

/**
 * Memory instructions: addresses, ld, st, atom and red (PTX ISA 9.0, 6.4.1, 9.7.9.8, 9.7.9.10, 9.7.13.5-6), lowered
 * for {@link LlvmEmitter} through its function context {@link Fn}.
 */
final class MemoryLowering {
    private MemoryLowering() {}

    static int space(Fn f, Ins x) {
        for (StateSpace m : x.mods.all(StateSpace.class)) {
            int s = spaceOf(m);
            if (s != 0 || m == StateSpace.GENERIC) return s;
        }
        return 0;
    }

    /** A pointer value of the IR and the LLVM address space it points into. */
    record Ptr(int space, String value) {}

    /** The address of {@code [a]} as a pointer into address space {@code as} (ld.param: wherever the parameter lives). */
    static Ptr address(Fn f, Operand op, int as) {
        if (op instanceof Malformed m && m.address() && m.source() instanceof Ast.AddressOperand ao) {
            Ast.Operand e = ao.elements().getFirst();
            while (e instanceof Ast.Paren p) e = p.inner();
            throw new Unsupported("operand is not supported: " + e);
        }
        if (!(op instanceof Address ad)) throw new Unsupported("address operand expected");
        long off = ad.offset();
        String n = ad.base() == null ? null : ad.base().name();
        String p;
        if (n != null && f.reg(n) == null && !n.startsWith("%")) {
            LlvmEmitter.Global g = f.symbol(n);
            if (g == null) throw new Unsupported("unknown name " + n);
            p = g.ptr();
            int gs = g.space();
            if (as == 101) as = gs;          // ld.param: wherever the parameter lives
            if (gs != as) {
                if (as != 0) throw new Unsupported(n + " is not in this state space");
                p = f.v("addrspacecast " + f.as(gs) + " " + p + " to ptr");
            }
        } else {
            if (as == 101) throw new Unsupported("ld.param/st.param through a register is not supported");
            Fn.Reg r = n != null ? f.reg(n) : null;
            int bits = r != null ? r.bits() : 64;
            String a;
            if (ad.base() == null) {
                a = f.constant(off, bits);    // an absolute address
                off = 0;
            } else {
                a = f.read(ad.base(), bits, false);
            }
            p = f.v("inttoptr " + ity(bits) + " " + a + " to " + f.as(as));
        }
        if (off != 0) p = f.v("getelementptr i8, " + f.as(as) + " " + p + ", i64 " + off);
        return new Ptr(as, p);
    }

    /** The elements of a data operand as {@link dev.zluda.ptx.ir.pass.VectorOperands} placed them; a scalar is one at 0. */
    static List<Lane> lanes(Fn f, Operand o, int bits) {
        return o instanceof Vec v ? v.lanes() : List.of(new Lane(o, bits, 0));
    }

    static void ld(Fn f, Ins x) {
        access(f, x, true);
    }

    static void st(Fn f, Ins x) {
        access(f, x, false);
    }

    /**
     * {@code ld} ({@code load}) or {@code st}: one LLVM load or store per element of the data operand at its offset
     * ({@link dev.zluda.ptx.ir.pass.VectorOperands}), the first aligned to the whole vector; {@code .volatile} kept,
     * {@code .acquire}/{@code .release}, {@code .relaxed} and {@code .mmio} refused.
     */
    private static void access(Fn f, Ins x, boolean load) {
        int as = space(f, x);
        PtxType t = x.type(0);
        if (t == null || x.has(load ? MemOrder.ACQUIRE : MemOrder.RELEASE) || x.has(MemOrder.RELAXED) || x.has(MemOrder.MMIO)) {
            throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
        }
        Ptr ptr = address(f, x.op(load ? 1 : 0), as);
        String vol = x.has(MemOrder.VOLATILE) ? "volatile " : "";
        int bits = t.size() * 8;
        List<Lane> data = lanes(f, x.op(load ? 0 : 1), bits);
        for (int k = 0; k < data.size(); k++) {
            Lane l = data.get(k);
            String q = k == 0 ? ptr.value() : f.v("getelementptr i8, " + f.as(ptr.space()) + " " + ptr.value() + ", i64 " + l.offset());
            String align = ", align " + (k == 0 ? t.size() * data.size() : t.size());
            if (load) {
                String val = f.v("load " + vol + ity(bits) + ", " + f.as(ptr.space()) + " " + q + align);
                if (t == PtxType.PRED) throw new Unsupported("ld of .pred");
                f.write(l.value(), val, bits, t.kind() == PtxType.Kind.SIGNED);
            } else {
                String val = f.read(l.value(), bits, false);
                f.line("store " + vol + ity(bits) + " " + val + ", " + f.as(ptr.space()) + " " + q + align);
            }
        }
    }

    /** The operations of atom and red, in the order the last one written wins. */
    static final List<ReduceOp> ATOM_OPS = List.of(ReduceOp.ADD, ReduceOp.MIN, ReduceOp.MAX, ReduceOp.EXCH, ReduceOp.CAS,
            ReduceOp.AND, ReduceOp.OR, ReduceOp.XOR, ReduceOp.INC, ReduceOp.DEC);

    static void atom(Fn f, Ins x) {
        boolean red = x.opcode() == Opcode.RED || x.opcode() == Opcode.RED_ASYNC;
        int as = space(f, x);
        if (as != 0 && as != 1 && as != 3) throw new Unsupported(x.i.form() + ": atomics in this state space are not supported");
        PtxType t = x.type(0);
        Mod.Scope scope = x.has(Mod.Scope.CTA) ? Mod.Scope.CTA : x.has(Mod.Scope.SYS) ? Mod.Scope.SYS : Mod.Scope.GPU;
        String order = x.has(MemOrder.ACQUIRE) ? "acquire" : x.has(MemOrder.RELEASE) ? "release" : x.has(MemOrder.ACQ_REL) ? "acq_rel" : "monotonic";
        ReduceOp op = null;
        for (ReduceOp m : ATOM_OPS) if (x.has(m)) op = m;
        if (op == ReduceOp.ADD && WarpAtomicLowering.halfType(t)) {
            WarpAtomicLowering.halfAdd(f, x, as, scope, order);
            return;
        }
        if (op == null || t == null || x.has(Flag.NOFTZ) && t != PtxType.F32 || t.size() > 8 || x.has(V2) || x.has(V4)) {
            throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
        }
        int bits = t.size() * 8;
        if (bits < 32) throw new Unsupported(x.i.form() + ": 16-bit atomics are not supported");
        boolean fl = t.kind() == PtxType.Kind.FLOAT, s = t.kind() == PtxType.Kind.SIGNED;
        int base = red ? 0 : 1;
        Ptr ap = address(f, x.op(base), as);
        int pas = ap.space();
        String p = ap.value();
        String ss = f.target().syncScope(scope);
        String ty = fl ? fty(t) : ity(bits);
        String res;
        if (op == ReduceOp.CAS) {
            String cmp = f.read(x.op(base + 1), bits, false), nv = f.read(x.op(base + 2), bits, false);
            String pair = f.v("cmpxchg " + f.as(pas) + " " + p + ", " + ity(bits) + " " + cmp + ", " + ity(bits) + " " + nv + ss + " "
                    + order + " " + (order.equals("release") || order.equals("monotonic") ? "monotonic" : "acquire"));
            res = f.v("extractvalue {" + ity(bits) + ", i1} " + pair + ", 0");
            if (!red) f.write(x.op(0), res, bits, false);
            return;
        }
        String rmw = switch (op) {
            case ADD -> fl ? "fadd" : "add";
            case MIN -> fl ? null : s ? "min" : "umin";
            case MAX -> fl ? null : s ? "max" : "umax";
            case EXCH -> "xchg";
            case AND -> fl ? null : "and";
            case OR -> fl ? null : "or";
            case XOR -> fl ? null : "xor";
            case INC -> bits == 32 && !fl ? "uinc_wrap" : null;
            case DEC -> bits == 32 && !fl ? "udec_wrap" : null;
            default -> null;
        };
        if (rmw == null || (fl && !rmw.equals("fadd") && !rmw.equals("xchg"))) throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
        String val = fl ? f.readF(x.op(base + 1), t) : f.read(x.op(base + 1), bits, s);
        if (fl && rmw.equals("xchg")) { ty = ity(bits); val = f.v("bitcast " + fty(t) + " " + val + " to " + ty); }
        res = f.v("atomicrmw " + rmw + " " + f.as(pas) + " " + p + ", " + ty + " " + val + ss + " " + order);
        if (!red) {
            if (fl && rmw.equals("fadd")) f.writeF(x.op(0), res, t);
            else f.write(x.op(0), res, bits, s);
        }
    }
}
