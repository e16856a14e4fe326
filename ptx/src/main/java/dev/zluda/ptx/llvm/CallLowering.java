package dev.zluda.ptx.llvm;

import dev.zluda.ptx.FunctionInfo;
import dev.zluda.ptx.ParamInfo;
import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.ir.Mod.StateSpace;
import dev.zluda.ptx.ir.Operand;
import dev.zluda.ptx.ir.Operand.*;
import dev.zluda.ptx.ir.pass.ParamAbi;
import java.util.ArrayList;
import java.util.List;
import dev.zluda.ptx.llvm.LlvmEmitter.Fn;
import dev.zluda.ptx.llvm.LlvmEmitter.Ins;
import dev.zluda.ptx.llvm.LlvmEmitter.Unsupported;

import static dev.zluda.ptx.llvm.LlvmEmitter.*;

/**
 * Direct calls of device functions with the .param ABI (PTX ISA 9.0, 9.7.12.3; the layout is
 * dev.zluda.ptx.ir.pass.ParamAbi's), lowered for {@link LlvmEmitter} through its function context {@link Fn}.
 */
final class CallLowering {
    private CallLowering() {}

    /**
     * {@code call [(ret)], f[, (args)]}: the arguments are the caller's {@code .param} variables (their slots
     * are passed), or registers and constants (copied into a fresh slot); a register as return target is loaded
     * from a fresh slot after the call.
     */
    static void callInstr(Fn f, Ins x) {
        List<Operand> ops = x.i.operands();
        List<Operand> rets = List.of(), args = List.of();
        String callee = null;
        for (Operand o : ops) {
            if (o instanceof Tuple t) {
                if (callee == null) rets = t.elements();
                else args = t.elements();
            } else if (o.name() != null && callee == null) {
                callee = o.name();
            } else {
                throw new Unsupported("indirect call (through a prototype or a register) is not supported by the LLVM back end");
            }
        }
        FunctionInfo fi = callee == null ? null : f.function(callee);
        if (fi == null || f.reg(callee) != null) throw new Unsupported("indirect call (through a prototype or a register) is not supported by the LLVM back end");
        if (fi.entry()) throw new Unsupported("call of the kernel " + callee + " is not supported");
        if (!fi.defined()) throw new Unsupported("call to " + callee + ", which this module does not define, is not supported by the LLVM back end");
        if (rets.size() != fi.returnParams().size() || args.size() != fi.params().size()) {
            throw new Unsupported("call to " + callee + " with " + rets.size() + " result(s) and " + args.size() + " argument(s); it has "
                    + fi.returnParams().size() + " and " + fi.params().size());
        }
        List<String> ptrs = new ArrayList<>();
        List<Runnable> after = new ArrayList<>();
        ParamAbi.Layout abi = ParamAbi.function(fi);
        for (int k = 0; k < rets.size(); k++) ptrs.add(slot(f, rets.get(k), abi.results().get(k), true, after));
        for (int k = 0; k < args.size(); k++) ptrs.add(slot(f, args.get(k), abi.params().get(k), false, after));
        StringBuilder a = new StringBuilder();
        for (String p : ptrs) {
            if (a.length() > 0) a.append(", ");
            a.append(f.allocaAs()).append(' ').append(p);
        }
        f.line("call void " + f.funcName(callee) + "(" + a + ")");
        for (Runnable r : after) r.run();
        f.needFunction(callee);
    }

    /** The stack slot passed for one call operand (see {@link #callInstr}). */
    static String slot(Fn f, Operand op, ParamAbi.Slot slot, boolean result, List<Runnable> after) {
        ParamInfo p = slot.info();
        if (slot.space() != StateSpace.PARAM) throw new Unsupported(p.variable().space() + " parameter " + p.name() + " is not supported (only .param)");
        String n = op.name();
        if (n != null && f.reg(n) == null && !n.startsWith("%")) {
            LlvmEmitter.Global g = f.symbol(n);
            if (g == null || g.space() != f.target().allocaSpace() || g.ptr().startsWith("@")) {
                throw new Unsupported("call operand " + n + " must be a .param variable of this function");
            }
            return g.ptr();
        }
        // a register or a constant: a slot of its own, as wide as the parameter
        PtxType t = p.variable().type();
        if (t == null || p.size() > 8 || !p.variable().dims().isEmpty()) throw new Unsupported("call operand for parameter " + p.name() + " must be a .param variable");
        int bits = (int) p.size() * 8;
        String cp = "%cp" + (f.tmp++);
        f.entry.append("  ").append(cp).append(" = alloca ").append(ity(bits))
                .append(f.target().allocaSpace() == 0 ? "" : ", addrspace(" + f.target().allocaSpace() + ")").append('\n');
        if (result) {
            after.add(() -> f.write(op, f.v("load " + ity(bits) + ", " + f.allocaAs() + " " + cp), bits, false));
        } else {
            f.line("store " + ity(bits) + " " + f.read(op, bits, false) + ", " + f.allocaAs() + " " + cp);
        }
        return cp;
    }
}
