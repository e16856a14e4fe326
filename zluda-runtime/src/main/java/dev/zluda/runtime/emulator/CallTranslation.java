package dev.zluda.runtime.emulator;

import dev.zluda.ptx.Ast.CallPrototype;
import dev.zluda.ptx.Ast.CallTargets;
import dev.zluda.ptx.Ast.Function;
import dev.zluda.ptx.FunctionInfo;
import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.ir.Instr;
import dev.zluda.ptx.ir.Mod.Layout;
import dev.zluda.ptx.ir.Mod.StateSpace;
import dev.zluda.ptx.ir.Operand;
import dev.zluda.ptx.ir.pass.ParamAbi;
import java.util.ArrayList;
import java.util.List;
import dev.zluda.runtime.emulator.Translator.*;

/**
 * Translates calls (PTX ISA 9.0, 9.7.12.3): device functions inlined, recursive and address-taken ones run out of
 * line through {@link CallOps} with the frame layout of {@link dev.zluda.ptx.ir.pass.ParamAbi}, vprintf,
 * __assertfail, cudaGraphSetConditional and malloc/free ({@link DeviceHeap}) provided; the instruction comes from the typed IR, operands are resolved through the {@link
 * Translator}.
 */
final class CallTranslation {
    private CallTranslation() {}

    static void call(Translator tr, Instr ins, Scope scope, Instance inst, int guard, boolean gNeg) {
        List<Operand> ops = ins.operands();
        int i = 0;
        List<Operand> rets = List.of(), args = List.of();
        if (i < ops.size() && ops.get(i) instanceof Operand.Tuple t) {
            rets = t.elements();
            i++;
        }
        Operand fn = i < ops.size() ? ops.get(i) : null;
        String fnName = fn == null ? null : fn.name();
        if (fnName == null) throw tr.unsupported(ins.loc(), "call needs a function or a register holding its address");
        i++;
        if (i < ops.size() && ops.get(i) instanceof Operand.Tuple t) {
            args = t.elements();
            i++;
        }
        Sym_ local = tr.lookup(scope, fnName);
        boolean indirect = local != null && local.kind() == SymKind.REG;
        dev.zluda.ptx.Ast.Statement proto = null;
        if (i < ops.size()) {
            String ps = ops.get(i).name();
            if (!indirect || ps == null || i + 1 != ops.size()) throw tr.unsupported(ins.loc(), "unsupported call operands");
            for (Scope sc = scope; sc != null && proto == null; sc = sc.parent) proto = sc.protos.get(ps);
            if (proto == null) throw tr.unsupported(ins.loc(), "'" + ps + "' is not a .callprototype or .calltargets label");
        }
        if (indirect && proto == null) throw tr.unsupported(ins.loc(), "an indirect call needs a .callprototype or .calltargets label (PTX ISA 9.0, 9.7.12.3)");
        Function callee = indirect ? null : tr.mc.function(fnName);
        Ops.Bra skip = null;
        if (guard >= 0) {
            // @p call f  ==>  @!p bra after; <inlined f or the call sequence>; after:
            skip = new Ops.Bra();
            skip.guard = guard;
            skip.guardNeg = !gNeg;
            skip.line = ins.loc().line();
            skip.form = ins.form();
            tr.code.add(skip);
        }
        if (indirect) {
            callIndirect(tr, ins, Translator.slotOf(local, fn), proto, rets, args, scope);
        } else if (callee == null || callee.body() == null) {
            builtin(tr, ins, fnName, rets, args, scope);
        } else if (tr.mc.outOfLine(callee.name())) {
            FunctionInfo fi = tr.mc.info(callee.name());
            checkArity(tr, ins, callee.name(), fi, rets, args);
            callOutOfLine(tr, ins, -1, List.of(outFn(tr, callee)), ParamAbi.function(fi), rets, args, scope);
        } else {
            inline(tr, ins, callee, rets, args, scope);
        }
        if (skip != null) skip.target = tr.code.size();
    }

    static void checkArity(Translator tr, Instr ins, String name, FunctionInfo fi, List<Operand> rets, List<Operand> args) {
        if (fi.params().size() != args.size() || fi.returnParams().size() != rets.size()) {
            throw tr.unsupported(ins.loc(), "call of '" + name + "' with " + args.size() + " arguments and " + rets.size()
                    + " results, the function has " + fi.params().size() + " and " + fi.returnParams().size());
        }
    }

    /** The out-of-line function of this name, queued for translation on first use. */
    static OutFn outFn(Translator tr, Function f) {
        OutFn o = tr.outFns.get(f.name());
        if (o == null) {
            o = new OutFn(f.name(), f);
            tr.outFns.put(f.name(), o);
            tr.pendingFns.add(o);
        }
        return o;
    }

    /** {@code call (rets), %rd, (args), proto;}: targets are the listed functions or every address-taken one. */
    static void callIndirect(Translator tr, Instr ins, int targetSlot, dev.zluda.ptx.Ast.Statement proto, List<Operand> rets, List<Operand> args, Scope scope) {
        List<OutFn> targets = new ArrayList<>();
        ParamAbi.Layout abi;
        if (proto instanceof CallTargets ct) {
            for (String n : ct.functions()) {
                Function f = tr.mc.function(n);
                if (f == null || f.body() == null) throw tr.unsupported(ins.loc(), ".calltargets names '" + n + "', which this module does not define");
                targets.add(outFn(tr, f));
            }
            FunctionInfo fi = tr.mc.info(ct.functions().getFirst());
            checkArity(tr, ins, ct.functions().getFirst(), fi, rets, args);
            abi = ParamAbi.function(fi);
        } else {
            CallPrototype cp = (CallPrototype) proto;
            for (String n : tr.mc.addressTaken()) targets.add(outFn(tr, tr.mc.function(n)));
            abi = ParamAbi.prototype(cp);
            if (abi.results().size() != rets.size() || abi.params().size() != args.size()) {
                throw tr.unsupported(ins.loc(), "call with " + args.size() + " arguments and " + rets.size() + " results through a prototype of "
                        + abi.params().size() + " and " + abi.results().size());
            }
        }
        callOutOfLine(tr, ins, targetSlot, targets, abi, rets, args, scope);
    }

    /**
     * The call sequence of an out-of-line call: the new frame's address, the arguments copied into it,
     * the {@link CallOps.Call}, the results copied out of it (PTX ISA 9.0, 9.7.12.3: arguments are passed
     * by value, results copied back at the return).
     */
    static void callOutOfLine(Translator tr, Instr ins, int targetSlot, List<OutFn> targets, ParamAbi.Layout abi, List<Operand> rets, List<Operand> args, Scope scope) {
        int nfp = tr.tempSlot();
        CallOps.NextFrame nf = new CallOps.NextFrame(nfp, tr.spSlot());
        tr.addOp(nf, ins);
        int fp = tr.rel ? tr.fpSlot() : -1;
        for (int k = 0; k < args.size(); k++) {
            ParamAbi.Slot row = abi.params().get(k);
            Operand actual = args.get(k);
            Sym_ a = actual.name() != null ? tr.lookup(scope, actual.name()) : null;
            if (a != null && (a.kind() == SymKind.FPARAM || a.kind() == SymKind.LOCAL)) {
                tr.addOp(new MemOps.LocalCopy(row.offset(), a.address(), row.size(), nfp, a.rel() ? fp : -1), ins);
            } else {
                PtxType t = row.type();
                if (t == null || t == PtxType.PRED || row.size() > 8) throw tr.unsupported(ins.loc(), "call argument " + (k + 1) + " must be a .param variable");
                tr.addOp(new MemOps.St(MemOps.LOCAL, nfp, false, row.offset(), (int) row.size(), new int[] {tr.src(actual, t, scope, ins)}, false), ins);
            }
        }
        CallOps.Call c = new CallOps.Call(targetSlot, nfp);
        tr.addOp(c, ins);
        tr.callFixups.add(new Object[] {c, nf, targets, tr.current});
        for (int k = 0; k < rets.size(); k++) {
            ParamAbi.Slot row = abi.results().get(k);
            Operand actual = rets.get(k);
            Sym_ a = actual.name() != null ? tr.lookup(scope, actual.name()) : null;
            if (a != null && (a.kind() == SymKind.FPARAM || a.kind() == SymKind.LOCAL)) {
                tr.addOp(new MemOps.LocalCopy(a.address(), row.offset(), row.size(), a.rel() ? fp : -1, nfp), ins);
            } else {
                PtxType t = row.type();
                if (t == null || t == PtxType.PRED || row.size() > 8) throw tr.unsupported(ins.loc(), "call result " + (k + 1) + " must be a .param variable");
                tr.addOp(new MemOps.Ld(MemOps.LOCAL, nfp, false, row.offset(), (int) row.size(), false, new int[] {tr.dst(actual, scope, ins)}, false), ins);
            }
        }
    }

    /**
     * Translates an out-of-line function once for this kernel: its parameters and locals in its own
     * frame (FP-relative), its registers in slots of its own, {@code .reg} parameters loaded from the
     * frame at entry and {@code .reg} results stored there before {@link CallOps.Ret}.
     */
    static void translateOutOfLine(Translator tr, OutFn f) {
        FunctionInfo fi = tr.mc.info(f.name);
        Function fn = f.ast;
        long savedFrame = tr.frame;
        boolean savedRel = tr.rel;
        tr.frame = 0;
        tr.rel = true;
        tr.frameAlign = 8;
        tr.current = f;
        f.slotLo = tr.slots;
        f.predLo = tr.preds;
        f.entry = tr.code.size();
        int fp = tr.fpSlot();
        ParamAbi.Layout abi = ParamAbi.function(fi);
        tr.frame = abi.end();
        tr.frameHigh = tr.frame;
        Scope cs = new Scope(tr.moduleScope);
        List<Object[]> regResults = new ArrayList<>(); // {slot, Slot}
        int nres = abi.results().size();
        List<ParamAbi.Slot> rows = abi.all();
        for (int row = 0; row < rows.size(); row++) {
            ParamAbi.Slot p = rows.get(row);
            PtxType t = p.type();
            if (p.space() == StateSpace.REG) {
                if (t == PtxType.PRED || p.size() > 8) throw tr.unsupported(fn.loc(), "predicate or wide .reg parameters of a recursive or address-taken function are not supported by the emulator");
                int slot = tr.tempSlot();
                cs.names.put(p.name(), new Sym_(SymKind.REG, slot, 0, t, 1));
                if (row < nres) {
                    regResults.add(new Object[] {slot, p});
                } else {
                    tr.code.add(tr.withLoc(new MemOps.Ld(MemOps.LOCAL, fp, false, p.offset(), (int) p.size(), false, new int[] {slot}, false),
                            fn.loc(), "(parameter " + p.name() + " of " + f.name + ")"));
                }
            } else {
                cs.names.put(p.name(), new Sym_(SymKind.FPARAM, -1, p.offset(), t, 1, true));
            }
        }
        Instance ci = tr.new Instance(f.name, false);
        tr.callStack.push(f.name);
        try {
            tr.body(tr.mc.ir(f.name).body(), cs, ci);
        } finally {
            tr.callStack.pop();
        }
        int epilogue = tr.code.size();
        for (Object[] rr : regResults) {
            ParamAbi.Slot p = (ParamAbi.Slot) rr[1];
            tr.code.add(tr.withLoc(new MemOps.St(MemOps.LOCAL, fp, false, p.offset(), (int) p.size(), new int[] {(Integer) rr[0]}, false),
                    fn.loc(), "(result of " + f.name + ")"));
        }
        tr.code.add(tr.withLoc(new CallOps.Ret(), fn.loc(), "ret (end of " + f.name + ")"));
        for (Op r : ci.returns) r.target = epilogue;
        tr.finish(ci);
        f.frame = (tr.frameHigh + 7) / 8 * 8 + CallOps.CALL_OVERHEAD;
        f.align = tr.frameAlign;
        f.slotHi = tr.slots;
        f.predHi = tr.preds;
        tr.frame = savedFrame;
        tr.rel = savedRel;
        tr.current = null;
    }

    /** Fills in every call's targets and the caller's registers to save, now that all functions are laid out. */
    @SuppressWarnings("unchecked")
    static void resolveCalls(Translator tr) {
        for (Object[] fx : tr.callFixups) {
            CallOps.Call c = (CallOps.Call) fx[0];
            CallOps.NextFrame nf = (CallOps.NextFrame) fx[1];
            List<OutFn> targets = (List<OutFn>) fx[2];
            OutFn caller = (OutFn) fx[3];
            int n = targets.size();
            c.addr = new long[n];
            c.entry = new int[n];
            c.frame = new long[n];
            c.names = new String[n];
            long align = 8, need = Long.MAX_VALUE;
            for (int k = 0; k < n; k++) {
                OutFn t = targets.get(k);
                c.addr[k] = tr.mc.functionAddress(t.name);
                c.entry[k] = t.entry;
                c.frame[k] = t.frame;
                c.names[k] = t.name;
                align = Math.max(align, t.align);
                need = Math.min(need, t.frame);
            }
            nf.align = align;
            nf.need = n == 0 ? 0 : need;
            nf.callee = n == 1 ? c.names[0] : String.join(" or ", c.names);
            if (caller != null) {
                c.saveLo = caller.slotLo * 32;
                c.saveHi = caller.slotHi * 32;
                c.predLo = caller.predLo;
                c.predHi = caller.predHi;
            }
        }
    }

    static long frameOf(Translator tr, Operand o, Scope scope, Instr ins) {
        if (o.name() != null) {
            Sym_ v = tr.lookup(scope, o.name());
            if (v != null && (v.kind() == SymKind.FPARAM || v.kind() == SymKind.LOCAL)) return v.address();
        }
        throw tr.unsupported(ins.loc(), "call argument '" + dev.zluda.ptx.ir.IrPrinter.operand(o) + "' must be a .param variable");
    }

    /** Adds a builtin call's op, its offsets relative to the frame in an out-of-line function, its place named for faults. */
    private static void add(Translator tr, Instr ins, Ops.BuiltinCall op) {
        if (tr.rel) op.frameBase = tr.fpSlot();
        tr.addOp(op, ins);
    }

    static void builtin(Translator tr, Instr ins, String name, List<Operand> rets, List<Operand> args, Scope scope) {
        switch (name) {
            case "vprintf" -> {
                if (args.size() != 2) throw tr.unsupported(ins.loc(), "vprintf takes two arguments");
                long ret = rets.isEmpty() ? -1 : frameOf(tr, rets.getFirst(), scope, ins);
                Ops.Printf op = new Ops.Printf(frameOf(tr, args.get(0), scope, ins), frameOf(tr, args.get(1), scope, ins), ret);
                add(tr, ins, op);
            }
            case "__assertfail" -> {
                if (args.size() < 4) throw tr.unsupported(ins.loc(), "__assertfail takes five arguments");
                Ops.AssertFail op = new Ops.AssertFail(frameOf(tr, args.get(0), scope, ins), frameOf(tr, args.get(1), scope, ins),
                        frameOf(tr, args.get(2), scope, ins), frameOf(tr, args.get(3), scope, ins));
                add(tr, ins, op);
            }
            case "cudaGraphSetConditional" -> {
                if (args.size() != 2) throw tr.unsupported(ins.loc(), "cudaGraphSetConditional takes two arguments");
                Ops.SetConditional op = new Ops.SetConditional(frameOf(tr, args.get(0), scope, ins), frameOf(tr, args.get(1), scope, ins));
                add(tr, ins, op);
            }
            case "malloc" -> {
                if (args.size() != 1 || rets.size() != 1) throw tr.unsupported(ins.loc(), "malloc takes one argument and returns a pointer");
                Ops.Malloc op = new Ops.Malloc(frameOf(tr, args.getFirst(), scope, ins), frameOf(tr, rets.getFirst(), scope, ins));
                add(tr, ins, op);
            }
            case "free" -> {
                if (args.size() != 1) throw tr.unsupported(ins.loc(), "free takes one argument");
                Ops.Free op = new Ops.Free(frameOf(tr, args.getFirst(), scope, ins));
                add(tr, ins, op);
            }
            default -> throw tr.unsupported(ins.loc(), "call of '" + name + "', which the module does not define, is not supported by the emulator");
        }
    }

    static void inline(Translator tr, Instr ins, Function callee, List<Operand> rets, List<Operand> args, Scope scope) {
        if (tr.callStack.contains(callee.name())) {
            throw tr.unsupported(ins.loc(), "recursive call of '" + callee.name() + "' is not supported by the emulator");
        }
        FunctionInfo fi = tr.mc.info(callee.name());
        if (fi == null) throw tr.unsupported(ins.loc(), "unknown function '" + callee.name() + "'");
        if (fi.params().size() != args.size() || fi.returnParams().size() != rets.size()) {
            throw tr.unsupported(ins.loc(), "call of '" + callee.name() + "' with " + args.size() + " arguments and " + rets.size()
                    + " results, the function has " + fi.params().size() + " and " + fi.returnParams().size());
        }
        Scope cs = new Scope(tr.moduleScope);
        // parameters: .param ones live in local memory, .reg ones in fresh registers
        ParamAbi.Layout abi = ParamAbi.function(fi);
        for (int k = 0; k < args.size(); k++) bindParam(tr, ins, abi.params().get(k), args.get(k), cs, scope, true);
        List<Object[]> results = new ArrayList<>();
        for (int k = 0; k < rets.size(); k++) results.add(bindParam(tr, ins, abi.results().get(k), rets.get(k), cs, scope, false));
        Instance ci = tr.new Instance(callee.name(), false);
        tr.callStack.push(callee.name());
        try {
            tr.body(tr.mc.ir(callee.name()).body(), cs, ci);
        } finally {
            tr.callStack.pop();
        }
        int end = tr.code.size();
        for (Op r : ci.returns) r.target = end;
        tr.finish(ci);
        for (Object[] r : results) copyBack(tr, ins, r);
    }

    /** Binds one callee parameter; for arguments emits the copy in, for results returns what to copy back. */
    static Object[] bindParam(Translator tr, Instr ins, ParamAbi.Slot p, Operand actual, Scope callee, Scope caller, boolean in) {
        PtxType t = p.type();
        if (p.space() == StateSpace.REG) {
            if (t == PtxType.PRED) {
                int idx = tr.preds++;
                callee.names.put(p.name(), new Sym_(SymKind.PRED, idx, 0, t, 1));
                if (in) {
                    int[] s = tr.predSrc(actual, caller, ins);
                    tr.addOp(new Ops.PredLogic(Ops.PredLogic.MOV, idx, s[0], s[1] != 0, -1, false, false), ins);
                    return null;
                }
                return new Object[] {"pred", idx, tr.predDst(actual, caller, ins)};
            }
            int slot = tr.tempSlot();
            callee.names.put(p.name(), new Sym_(SymKind.REG, slot, 0, t, 1));
            if (in) {
                tr.addOp(new Ops.Mov(slot, tr.src(actual, t, caller, ins)), ins);
                return null;
            }
            return new Object[] {"reg", slot, tr.dst(actual, caller, ins)};
        }
        // inlined: in the caller's frame, at least 8 bytes and 8-aligned
        long size = p.size();
        long off = tr.allocFrame(Math.max(size, 8), Math.max(p.align(), 8));
        callee.names.put(p.name(), new Sym_(SymKind.FPARAM, -1, off, t, 1, tr.rel));
        Sym_ a = actual.name() != null ? tr.lookup(caller, actual.name()) : null;
        int fp = tr.rel ? tr.fpSlot() : -1;
        if (in) {
            if (a != null && (a.kind() == SymKind.FPARAM || a.kind() == SymKind.LOCAL)) {
                tr.addOp(new MemOps.LocalCopy(off, a.address(), size, fp, a.rel() ? fp : -1), ins);
            } else {
                if (t == null || size > 8) throw tr.unsupported(ins.loc(), "call argument must be a .param variable");
                tr.addOp(new MemOps.St(MemOps.LOCAL, fp, false, off, (int) size, new int[] {tr.src(actual, t, caller, ins)}, false), ins);
            }
            return null;
        }
        if (a != null && (a.kind() == SymKind.FPARAM || a.kind() == SymKind.LOCAL)) return new Object[] {"mem", off, a.address(), size, fp, a.rel() ? fp : -1};
        if (t == null || size > 8) throw tr.unsupported(ins.loc(), "call result must be a .param variable");
        return new Object[] {"ld", off, tr.dst(actual, caller, ins), size, fp};
    }

    static void copyBack(Translator tr, Instr ins, Object[] r) {
        if (r == null) return;
        switch ((String) r[0]) {
            case "pred" -> tr.addOp(new Ops.PredLogic(Ops.PredLogic.MOV, (Integer) r[2], (Integer) r[1], false, -1, false, false), ins);
            case "reg" -> tr.addOp(new Ops.Mov((Integer) r[2], (Integer) r[1]), ins);
            case "mem" -> tr.addOp(new MemOps.LocalCopy((Long) r[2], (Long) r[1], (Long) r[3], (Integer) r[5], (Integer) r[4]), ins);
            default -> tr.addOp(new MemOps.Ld(MemOps.LOCAL, (Integer) r[4], false, (Long) r[1], (int) (long) (Long) r[3], false, new int[] {(Integer) r[2]}, false), ins);
        }
    }
}
