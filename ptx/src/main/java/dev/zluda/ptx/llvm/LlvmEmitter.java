package dev.zluda.ptx.llvm;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.Ast.Loc;
import dev.zluda.ptx.Diagnostic;
import dev.zluda.ptx.FunctionInfo;
import dev.zluda.ptx.ModuleModel;
import dev.zluda.ptx.ParamInfo;
import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.Semantics;
import dev.zluda.ptx.VariableInfo;
import dev.zluda.ptx.ir.Instr;
import dev.zluda.ptx.ir.IrPipeline;
import dev.zluda.ptx.ir.IrFunction;
import dev.zluda.ptx.ir.IrModule;
import dev.zluda.ptx.ir.Mod;
import dev.zluda.ptx.ir.Mod.BoolOp;
import dev.zluda.ptx.ir.Mod.Compare;
import dev.zluda.ptx.ir.Mod.Flag;
import dev.zluda.ptx.ir.Mod.MemOrder;
import dev.zluda.ptx.ir.Mod.PrmtMode;
import dev.zluda.ptx.ir.Mod.ReduceOp;
import dev.zluda.ptx.ir.Mod.Rounding;
import dev.zluda.ptx.ir.Mod.ShflMode;
import dev.zluda.ptx.ir.Mod.ShiftDir;
import dev.zluda.ptx.ir.Mod.ShiftMode;
import dev.zluda.ptx.ir.Mod.StateSpace;
import dev.zluda.ptx.ir.Mod.TestClass;
import dev.zluda.ptx.ir.Mod.VoteMode;
import dev.zluda.ptx.ir.Modifiers;
import dev.zluda.ptx.ir.Opcode;
import dev.zluda.ptx.ir.Operand;
import dev.zluda.ptx.ir.Operand.*;
import dev.zluda.ptx.ir.SpecialReg;
import dev.zluda.ptx.ir.Stmt;
import dev.zluda.ptx.ir.pass.ParamAbi;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Lowers a checked PTX module ({@link ModuleModel}) to textual LLVM IR (the syntax LLVM 19 to 22 read) for one
 * {@link LlvmTarget}. The lowering is target-neutral — PTX registers become {@code alloca}s that LLVM's
 * {@code mem2reg} promotes, each instruction becomes the LLVM operations that compute exactly what the PTX ISA
 * (9.0, chapter 9.7) defines, including the edge cases LLVM leaves undefined (shift counts at or past the width,
 * division by zero, float-to-integer overflow and NaN, which PTX defines and LLVM makes poison) — apart from a
 * few target hooks in {@link LlvmTarget} and {@link #special}, {@link #readLane}, {@link #ballot} and
 * {@link #barrier}.
 *
 * <p>What is not lowered is reported, never guessed: every instruction form the lowering does not know, and every
 * form the target cannot do (directed rounding and {@code .approx} functions on AMD GPUs, warp-level operations on
 * 64-lane CDNA waves), becomes an error {@link Diagnostic} at the instruction's line and column, and then no IR is
 * produced.
 *
 * <p>Device functions ({@code .func}) are lowered when a kernel calls them (direct {@code call}, PTX ISA 9.0 §9.7.12.3),
 * with the {@code .param} ABI as PTX states it: the caller declares {@code .param} variables in its body, stores
 * the arguments there ({@code st.param}), calls, and loads the results ({@code ld.param}); the callee reads its
 * parameters and writes its return parameters with {@code ld.param}/{@code st.param}. Each {@code .param}
 * variable of a caller is a stack slot ({@code alloca}); an LLVM function {@code internal void @f(ptr, ...)} takes
 * the slots of its return parameters, then of its parameters, by pointer. Indirect calls, {@code .reg}
 * parameters of a {@code .func} and calls to functions the module does not define are refused.
 */
public final class LlvmEmitter {
    /**
     * The outcome of {@link #emit}.
     *
     * @param ir     the LLVM IR module's text, or {@code null} when there are errors
     * @param errors everything that could not be lowered, with PTX line and column, in source order
     */
    public record Result(String ir, List<Diagnostic> errors) {
        /** {@code true} when IR was produced. */
        public boolean ok() { return ir != null; }
    }

    private final ModuleModel model;
    private final LlvmTarget target;
    private final String source;
    private final List<Diagnostic> errors = new ArrayList<>();
    private final Set<String> declares = new LinkedHashSet<>();
    private final StringBuilder globals = new StringBuilder();
    private final StringBuilder functions = new StringBuilder();
    private final StringBuilder metadata = new StringBuilder();
    private final Map<String, Global> moduleSyms = new HashMap<>();
    /** Device functions a {@code call} needs, in the order first called, and those already lowered. */
    private final java.util.ArrayDeque<String> pendingFuncs = new java.util.ArrayDeque<>();
    private final Set<String> emittedFuncs = new java.util.HashSet<>();
    private int metaId;

    /** A variable in memory: the LLVM pointer value that addresses it and its address space. */
    private record Global(String ptr, int space) {}

    private final IrModule ir;

    private LlvmEmitter(IrModule ir, LlvmTarget target, String source) {
        this.ir = ir;
        this.model = ir.model();
        this.target = target;
        this.source = source;
    }

    /**
     * Lowers every kernel of a module.
     *
     * @param model  the module as {@link Semantics#analyze} resolved it (it should have no errors)
     * @param target the GPU to emit for
     * @param source the name errors are reported under (usually the PTX file's path)
     * @return the IR, or the errors
     */
    public static Result emit(ModuleModel model, LlvmTarget target, String source) {
        LlvmEmitter e = new LlvmEmitter(IrPipeline.build(model, source), target, source);
        return e.run();
    }

    private Result run() {
        if (!ir.ok()) return new Result(null, ir.diagnostics());
        if (model.addressSize() != 64) {
            error(Loc.NONE, ".address_size " + model.addressSize() + " is not supported (only 64)");
        }
        for (VariableInfo v : model.globals().values()) moduleVariable(v);
        for (FunctionInfo f : model.functions().values()) {
            if (!f.defined()) continue;
            if (!f.entry()) continue;       // a device function is lowered when a call reaches it
            new Fn(ir.function(f.name())).emitKernel();
        }
        // device functions called from the kernels (and from each other), each once
        while (!pendingFuncs.isEmpty()) {
            String name = pendingFuncs.removeFirst();
            if (emittedFuncs.add(name)) new Fn(ir.function(name)).emitFunc();
        }
        if (!errors.isEmpty()) {
            errors.sort((a, b) -> a.line() != b.line() ? Integer.compare(a.line(), b.line()) : Integer.compare(a.column(), b.column()));
            return new Result(null, List.copyOf(errors));
        }
        StringBuilder m = new StringBuilder();
        m.append("; PTX module ").append(source).append(" lowered for ").append(target.cpu()).append('\n');
        // no datalayout: opt takes the one of the LLVM it is (it changed between LLVM 19 and 22)
        m.append("target triple = \"").append(target.triple()).append("\"\n\n");
        m.append(globals).append('\n').append(functions);
        for (String d : declares) m.append(d).append('\n');
        m.append('\n');
        if (target.amd()) {
            m.append("!llvm.module.flags = !{!").append(metaId).append("}\n");
            m.append('!').append(metaId++).append(" = !{i32 1, !\"amdhsa_code_object_version\", i32 500}\n");
        }
        m.append(metadata);
        return new Result(m.toString(), List.of());
    }

    private void error(Loc loc, String message) {
        errors.add(new Diagnostic(source, loc.line(), loc.column(), Diagnostic.Severity.ERROR, message));
    }

    // ------------------------------------------------------------------ module variables

    private static String ident(String ptxName) {
        StringBuilder sb = new StringBuilder();
        for (char c : ptxName.toCharArray()) {
            if (Character.isLetterOrDigit(c) || c == '_' || c == '.' || c == '$') sb.append(c);
            else sb.append(String.format("_%02x", (int) c));
        }
        return sb.toString();
    }

    /** The LLVM address space of a PTX state space: 1 global, 3 shared, 4 const, 5 local, 101 param, 0 otherwise. */
    private static int spaceOf(StateSpace space) {
        if (space == null) return 0;
        return switch (space) {
            case GLOBAL -> 1;
            case SHARED, SHARED_CTA -> 3;
            case CONST -> 4;
            case LOCAL -> 5;
            case PARAM -> 101;
            default -> 0;
        };
    }

    private void moduleVariable(VariableInfo v) {
        int as = spaceOf(StateSpace.of(v.space()));
        if (as != 1 && as != 3 && as != 4) {
            error(v.loc(), "module variable in " + v.space() + " is not supported");
            return;
        }
        String name = "@" + quote(v.name());
        moduleSyms.put(v.name(), new Global(name, as));
        globals.append(variableDefinition(name, v, as, true)).append('\n');
    }

    private String variableDefinition(String name, VariableInfo v, int as, boolean visible) {
        long size = v.size();
        boolean extern = v.dims().contains(-1L) || size == 0;
        long align = Math.max(1, v.alignment());
        String ty = "[" + (extern ? 0 : size) + " x i8]";
        if (extern) {
            return name + " = external addrspace(" + as + ") global " + ty + ", align " + align;
        }
        String init = as == 3 ? "poison" : initializer(v, size);
        String linkage = as == 3 ? "internal " : visible ? "" : "internal ";
        return name + " = " + linkage + "addrspace(" + as + ") global " + ty + " " + init + ", align " + align;
    }

    /** The initializer bytes of a {@code .global}/{@code .const} variable (integer and float constants), or zeroinitializer. */
    private String initializer(VariableInfo v, long size) {
        Ast.Declarator decl = findDeclarator(v);
        if (decl == null || decl.init() == null) return "zeroinitializer";
        List<Ast.Expr> flat = new ArrayList<>();
        if (!flatten(decl.init(), flat)) {
            error(v.loc(), "initializer of " + v.name() + " is not supported (only integer and float constants)");
            return "zeroinitializer";
        }
        int es = v.type() == null ? 1 : v.type().size();
        byte[] bytes = new byte[(int) size];
        for (int i = 0; i < flat.size() && (long) (i + 1) * es <= size; i++) {
            Ast.Expr e = flat.get(i);
            long bits;
            Long c = Semantics.constant(e);
            if (c != null) {
                bits = c;
                if (v.type() == PtxType.F32) bits = Float.floatToRawIntBits((float) (long) c);
                if (v.type() == PtxType.F64) bits = Double.doubleToRawLongBits((double) (long) c);
            } else if (e instanceof Ast.HexFloat || e instanceof Ast.FloatLit) {
                double d = e instanceof Ast.HexFloat h ? h.value() : ((Ast.FloatLit) e).value();
                bits = es == 4 ? Float.floatToRawIntBits((float) d) : Double.doubleToRawLongBits(d);
                if (e instanceof Ast.HexFloat h && es == 4 && !h.dbl()) bits = h.bits();
                if (e instanceof Ast.HexFloat h && es == 8 && h.dbl()) bits = h.bits();
            } else {
                error(v.loc(), "initializer of " + v.name() + " is not supported (only integer and float constants)");
                return "zeroinitializer";
            }
            for (int k = 0; k < es; k++) bytes[i * es + k] = (byte) (bits >>> (8 * k));
        }
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < bytes.length; i++) {
            if (i > 0) sb.append(", ");
            sb.append("i8 ").append(bytes[i]);
        }
        return sb.append(']').toString();
    }

    private static boolean flatten(Ast.Initializer init, List<Ast.Expr> out) {
        switch (init) {
            case Ast.ExprInit e -> { out.add(e.expr()); return true; }
            case Ast.ListInit l -> {
                for (Ast.Initializer i : l.elements()) if (!flatten(i, out)) return false;
                return true;
            }
            default -> { return false; }
        }
    }

    private Ast.Declarator findDeclarator(VariableInfo v) {
        return moduleDeclarators.get(v.name());
    }

    private final Map<String, Ast.Declarator> moduleDeclarators = new HashMap<>();

    /** Registers the module-level declarators (initializers live in the AST, not in {@link VariableInfo}). */
    private void indexDeclarators(Ast.Module module) {
        for (Ast.ModuleItem it : module.items()) {
            if (it instanceof Ast.Decl d) for (Ast.Declarator x : d.declarators()) moduleDeclarators.put(x.name(), x);
        }
    }

    /**
     * Lowers every kernel of a parsed module ({@link #emit(ModuleModel, LlvmTarget, String)} with the module's
     * variable initializers taken from the AST).
     */
    public static Result emit(Ast.Module module, ModuleModel model, LlvmTarget target, String source) {
        LlvmEmitter e = new LlvmEmitter(IrPipeline.build(module, model, source), target, source);
        e.indexDeclarators(module);
        return e.run();
    }

    static String quote(String name) {
        return "\"" + name.replace("\\", "\\5C").replace("\"", "\\22") + "\"";
    }

    private String declare(String decl) {
        declares.add(decl);
        return decl;
    }

    // ------------------------------------------------------------------ functions

    /** One kernel being lowered (package-private: {@link WarpAtomicLowering} and {@link FloatFormLowering} lower through it). */
    final class Fn {
        final FunctionInfo info;
        final IrFunction fn;
        final StringBuilder entry = new StringBuilder();
        final StringBuilder body = new StringBuilder();
        final Map<String, Reg> regs = new HashMap<>();
        final Map<String, Reg> rangeRegs = new HashMap<>();
        final Map<String, Global> syms = new HashMap<>();
        final Map<String, String> labels = new HashMap<>();
        int tmp, blocks;
        boolean terminated;
        Loc loc = Loc.NONE;
        boolean failed;
        String carry;

        Fn(IrFunction fn) {
            this.fn = fn;
            this.info = fn.info();
        }

        /** The target being emitted for. */
        LlvmTarget target() {
            return target;
        }

        /** A register: its alloca, LLVM storage type and bits (1 for predicates). */
        record Reg(String ptr, String ty, int bits, PtxType type) {}

        String as(int space) {
            return space == 0 ? "ptr" : "ptr addrspace(" + space + ")";
        }

        String allocaAs() {
            return as(target.allocaSpace());
        }

        void emitKernel() {
            Ast.Function f = info.ast();
            StringBuilder params = new StringBuilder();
            // the .param ABI (ParamAbi): scalars by value into a stack slot, the others in the kernel argument segment
            for (ParamAbi.Slot p : ParamAbi.kernel(info).params()) {
                if (params.length() > 0) params.append(", ");
                String arg = "%" + quote(p.name());
                if (p.scalar()) {
                    String ty = ity((int) p.size() * 8);
                    params.append(ty).append(' ').append(arg);
                    String slot = "%param" + p.info().index();
                    entry.append("  ").append(slot).append(" = alloca ").append(ty).append(", align ").append(p.size())
                            .append(target.allocaSpace() == 0 ? "" : ", addrspace(" + target.allocaSpace() + ")").append('\n');
                    entry.append("  store ").append(ty).append(' ').append(arg).append(", ").append(allocaAs()).append(' ')
                            .append(slot).append('\n');
                    syms.put(p.name(), new Global(slot, target.allocaSpace()));
                } else {
                    String agg = "[" + p.size() + " x i8]";
                    if (target.amd()) {
                        params.append("ptr addrspace(4) byref(").append(agg).append(") align ").append(p.align()).append(' ').append(arg);
                        syms.put(p.name(), new Global(arg, 4));
                    } else {
                        params.append("ptr byval(").append(agg).append(") align ").append(p.align()).append(' ').append(arg);
                        syms.put(p.name(), new Global(arg, 0));
                    }
                }
            }
            if (!lowerBody(f)) return;

            String name = "@" + quote(f.name());
            StringBuilder fn = functions;
            if (target.amd()) {
                long maxThreads = 1024;
                List<Long> maxntid = info.directives().get(".maxntid");
                List<Long> reqntid = info.directives().get(".reqntid");
                List<Long> lim = reqntid != null ? reqntid : maxntid;
                if (lim != null) {
                    maxThreads = 1;
                    for (long x : lim) maxThreads *= x;
                }
                fn.append("define amdgpu_kernel void ").append(name).append('(').append(params).append(") #").append(metaId).append(" {\n");
                globalsAttr(fn, maxThreads);
            } else {
                fn.append("define void ").append(name).append('(').append(params).append(") {\n");
                metadata.append("!nvvm.annotations = !{!").append(metaId).append("}\n");
                metadata.append('!').append(metaId++).append(" = !{ptr ").append(name).append(", !\"kernel\", i32 1}\n");
            }
            fn.append("entry:\n").append(entry).append("  br label %body\nbody:\n").append(this.body).append("}\n\n");
        }

        /**
         * The registers, the carry flag and the body of a kernel or device function, into {@code entry} and
         * {@code body}; false when an instruction was refused ({@link #fail}).
         */
        private boolean lowerBody(Ast.Function f) {
            Stmt.Block body = fn.body();
            // in source order (the map's order is unspecified), so that the same PTX always gives the same IR
            List<VariableInfo> regList = new ArrayList<>(info.registers().values());
            regList.sort(java.util.Comparator.comparingInt((VariableInfo r) -> r.loc().line())
                    .thenComparingInt(r -> r.loc().column()).thenComparing(VariableInfo::name));
            for (VariableInfo r : regList) declareRegister(r);
            carry = "%cf";
            entry.append("  %cf = alloca i1").append(target.allocaSpace() == 0 ? "" : ", addrspace(" + target.allocaSpace() + ")").append('\n');
            entry.append("  store i1 false, ").append(allocaAs()).append(" %cf\n");
            collectLocals(body);
            blockBody(body);
            if (!terminated) line("ret void");
            return !failed;
        }

        /**
         * A device function: {@code define internal void @name(ptr %ret..., ptr %param...)}, each parameter the
         * pointer to the caller's {@code .param} slot (allocas: address space 5 on AMDGPU, generic on NVPTX).
         */
        void emitFunc() {
            Ast.Function f = info.ast();
            StringBuilder params = new StringBuilder();
            // the .param ABI (ParamAbi): results, then parameters, each the pointer to the caller's .param slot
            for (ParamAbi.Slot p : ParamAbi.function(info).all()) {
                if (p.space() != StateSpace.PARAM) {
                    loc = p.info().variable().loc();
                    fail(".func " + info.name() + ": " + p.info().variable().space() + " parameter " + p.name() + " is not supported (only .param)");
                    return;
                }
                if (params.length() > 0) params.append(", ");
                String arg = "%" + quote(p.name());
                params.append(allocaAs()).append(" noundef ").append(arg);
                syms.put(p.name(), new Global(arg, target.allocaSpace()));
            }
            if (!lowerBody(f)) return;
            StringBuilder fn = functions;
            fn.append("define internal void ").append(funcName(info.name())).append('(').append(params).append(')');
            if (target.amd()) {
                fn.append(" #").append(metaId);
                String features = target.waveSize() == 32 ? "+wavefrontsize32" : "+wavefrontsize64";
                metadata.append("attributes #").append(metaId++).append(" = { \"target-cpu\"=\"").append(target.cpu())
                        .append("\" \"target-features\"=\"").append(features).append("\" }\n");
            }
            fn.append(" {\n");
            fn.append("entry:\n").append(entry).append("  br label %body\nbody:\n").append(this.body).append("}\n\n");
        }

        /** The LLVM name of a device function (kept apart from kernels and variables of the same PTX name). */
        String funcName(String ptxName) {
            return "@" + quote(ptxName);
        }

        /**
         * {@code call [(ret)], f[, (args)]}: the arguments are the caller's {@code .param} variables (their slots
         * are passed), or registers and constants (copied into a fresh slot); a register as return target is loaded
         * from a fresh slot after the call.
         */
        void callInstr(Ins x) {
            List<Operand> ops = x.i.operands();
            List<Operand> rets = List.of(), args = List.of();
            String callee = null;
            for (Operand o : ops) {
                if (o instanceof Tuple t) {
                    if (callee == null) rets = t.elements();
                    else args = t.elements();
                } else if (name(o) != null && callee == null) {
                    callee = name(o);
                } else {
                    throw new Unsupported("indirect call (through a prototype or a register) is not supported by the LLVM back end");
                }
            }
            FunctionInfo f = callee == null ? null : model.function(callee);
            if (f == null || reg(callee) != null) throw new Unsupported("indirect call (through a prototype or a register) is not supported by the LLVM back end");
            if (f.entry()) throw new Unsupported("call of the kernel " + callee + " is not supported");
            if (!f.defined()) throw new Unsupported("call to " + callee + ", which this module does not define, is not supported by the LLVM back end");
            if (rets.size() != f.returnParams().size() || args.size() != f.params().size()) {
                throw new Unsupported("call to " + callee + " with " + rets.size() + " result(s) and " + args.size() + " argument(s); it has "
                        + f.returnParams().size() + " and " + f.params().size());
            }
            List<String> ptrs = new ArrayList<>();
            List<Runnable> after = new ArrayList<>();
            ParamAbi.Layout abi = ParamAbi.function(f);
            for (int k = 0; k < rets.size(); k++) ptrs.add(slot(rets.get(k), abi.results().get(k), true, after));
            for (int k = 0; k < args.size(); k++) ptrs.add(slot(args.get(k), abi.params().get(k), false, after));
            StringBuilder a = new StringBuilder();
            for (String p : ptrs) {
                if (a.length() > 0) a.append(", ");
                a.append(allocaAs()).append(' ').append(p);
            }
            line("call void " + funcName(callee) + "(" + a + ")");
            for (Runnable r : after) r.run();
            if (!emittedFuncs.contains(callee) && !pendingFuncs.contains(callee)) pendingFuncs.add(callee);
        }

        /** The stack slot passed for one call operand (see {@link #callInstr}). */
        String slot(Operand op, ParamAbi.Slot slot, boolean result, List<Runnable> after) {
            ParamInfo p = slot.info();
            if (slot.space() != StateSpace.PARAM) throw new Unsupported(p.variable().space() + " parameter " + p.name() + " is not supported (only .param)");
            String n = name(op);
            if (n != null && reg(n) == null && !n.startsWith("%")) {
                Global g = symbol(n);
                if (g == null || g.space != target.allocaSpace() || g.ptr.startsWith("@")) {
                    throw new Unsupported("call operand " + n + " must be a .param variable of this function");
                }
                return g.ptr;
            }
            // a register or a constant: a slot of its own, as wide as the parameter
            PtxType t = p.variable().type();
            if (t == null || p.size() > 8 || !p.variable().dims().isEmpty()) throw new Unsupported("call operand for parameter " + p.name() + " must be a .param variable");
            int bits = (int) p.size() * 8;
            String cp = "%cp" + (tmp++);
            entry.append("  ").append(cp).append(" = alloca ").append(ity(bits))
                    .append(target.allocaSpace() == 0 ? "" : ", addrspace(" + target.allocaSpace() + ")").append('\n');
            if (result) {
                after.add(() -> write(op, v("load " + ity(bits) + ", " + allocaAs() + " " + cp), bits, false));
            } else {
                line("store " + ity(bits) + " " + read(op, bits, false) + ", " + allocaAs() + " " + cp);
            }
            return cp;
        }

        void globalsAttr(StringBuilder fn, long maxThreads) {
            String features = target.waveSize() == 32 ? "+wavefrontsize32" : "+wavefrontsize64";
            metadata.append("attributes #").append(metaId++).append(" = { \"amdgpu-flat-work-group-size\"=\"1,")
                    .append(maxThreads).append("\" \"target-cpu\"=\"").append(target.cpu()).append("\" \"target-features\"=\"")
                    .append(features).append("\" \"uniform-work-group-size\"=\"true\" }\n");
        }

        void declareRegister(VariableInfo r) {
            if (!".reg".equals(r.space())) return;
            PtxType t = r.type();
            if (t == null) return;
            if (r.vectorWidth() != 1 || !r.dims().isEmpty()) {
                error(r.loc(), "vector or array register " + r.name() + " is not supported");
                failed = true;
                return;
            }
            int bits = t == PtxType.PRED ? 1 : t.size() * 8;
            String ty = ity(bits);
            if (r.rangeCount() > 0) {
                rangeRegs.put(r.name(), new Reg(null, ty, bits, t));
            } else {
                regs.put(r.name(), newReg(ty, bits, t));
            }
        }

        Reg newReg(String ty, int bits, PtxType t) {
            String p = "%v" + (tmp++);
            entry.append("  ").append(p).append(" = alloca ").append(ty)
                    .append(target.allocaSpace() == 0 ? "" : ", addrspace(" + target.allocaSpace() + ")").append('\n');
            return new Reg(p, ty, bits, t);
        }

        Reg reg(String name) {
            Reg r = regs.get(name);
            if (r != null) return r;
            int k = name.length();
            while (k > 0 && Character.isDigit(name.charAt(k - 1))) k--;
            if (k < name.length()) {
                Reg range = rangeRegs.get(name.substring(0, k));
                if (range != null) {
                    r = newReg(range.ty, range.bits, range.type);
                    regs.put(name, r);
                    return r;
                }
            }
            return null;
        }

        /** The variables each block declares (PTX scoping: a name declared in a block is that block's inside it). */
        final Map<Stmt.Block, Map<String, Global>> blockSyms = new java.util.IdentityHashMap<>();

        /** A block's statements with its own variables in scope, the outer ones again after it. */
        void blockBody(Stmt.Block b) {
            Map<String, Global> own = blockSyms.getOrDefault(b, Map.of());
            Map<String, Global> saved = new HashMap<>();
            for (var e : own.entrySet()) {
                saved.put(e.getKey(), syms.get(e.getKey()));
                syms.put(e.getKey(), e.getValue());
            }
            for (Stmt x : b.statements()) statement(x);
            for (var e : saved.entrySet()) {
                if (e.getValue() == null) syms.remove(e.getKey());
                else syms.put(e.getKey(), e.getValue());
            }
        }

        /** Function-scope {@code .shared} / {@code .local} / {@code .const} variables and labels. */
        void collectLocals(Stmt.Block b) {
            for (Stmt s : b.statements()) {
                switch (s) {
                    case Stmt.Block inner -> collectLocals(inner);
                    case Stmt.Label l -> labels.put(l.name(), "L" + labels.size());
                    case Stmt.Decl d when d.space() != StateSpace.REG -> {
                        for (Ast.Declarator x : d.source().declarators()) {
                            localVariable(d.source(), x);
                            Global g = syms.get(x.name());
                            if (g != null) blockSyms.computeIfAbsent(b, k -> new LinkedHashMap<>()).put(x.name(), g);
                        }
                    }
                    default -> {}
                }
            }
        }

        void localVariable(Ast.Decl d, Ast.Declarator x) {
            long elem = 1, count = 1, align = 0;
            PtxType type = null;
            int vec = 1;
            for (Ast.DeclAttr a : d.attrs()) {
                if (a instanceof Ast.Align al) align = al.bytes();
                if (a instanceof Ast.Word w) {
                    PtxType t = PtxType.fromName(w.text());
                    if (t != null) type = t;
                    if (w.text().startsWith(".v")) vec = Integer.parseInt(w.text().substring(2));
                }
            }
            if (type != null) elem = (long) type.size() * vec;
            boolean unsized = false;
            for (Ast.Dim dim : x.dims()) {
                Long n = dim.size() == null ? null : Semantics.constant(dim.size());
                if (n == null) unsized = true;
                else count *= n;
            }
            if (align == 0) align = Math.max(1, elem);
            int as = spaceOf(StateSpace.of(d.space()));
            String gname = "@" + quote(info.name() + "." + x.name());
            switch (as) {
                case 3 -> {
                    long size = unsized ? 0 : elem * count;
                    VariableInfo v = new VariableInfo(x.name(), d.space(), type, vec, unsized ? List.of(-1L) : List.of(), size, align, 0, false, null, 0, x.loc());
                    globals.append(variableDefinition(gname, v, 3, false)).append('\n');
                    syms.put(x.name(), new Global(gname, 3));
                }
                case 5, 101 -> {            // .local, and a caller's .param variables of a call: stack slots
                    String p = "%loc" + (tmp++);
                    entry.append("  ").append(p).append(" = alloca [").append(elem * count).append(" x i8], align ").append(align)
                            .append(target.allocaSpace() == 0 ? "" : ", addrspace(" + target.allocaSpace() + ")").append('\n');
                    syms.put(x.name(), new Global(p, target.allocaSpace()));
                }
                default -> {
                    error(x.loc(), "function-scope " + d.space() + " variable " + x.name() + " is not supported");
                    failed = true;
                }
            }
        }

        // -------------------------------------------------------------- text helpers

        String t() {
            return "%t" + (tmp++);
        }

        void line(String s) {
            if (terminated) {
                body.append("d").append(blocks++).append(":\n");
                terminated = false;
            }
            body.append("  ").append(s).append('\n');
        }

        String v(String rhs) {
            String t = t();
            line(t + " = " + rhs);
            return t;
        }

        void block(String name) {
            if (!terminated) body.append("  br label %").append(name).append('\n');
            body.append(name).append(":\n");
            terminated = false;
        }

        void terminate(String s) {
            line(s);
            terminated = true;
        }

        String call(String retTy, String fn, String argDecl, String args) {
            declare("declare " + retTy + " @" + fn + "(" + argDecl + ")");
            if (retTy.equals("void")) {
                line("call void @" + fn + "(" + args + ")");
                return null;
            }
            return v("call " + retTy + " @" + fn + "(" + args + ")");
        }

        /** Reports and marks the function failed; returns null so callers can {@code return fail(...)}. */
        <T> T fail(String msg) {
            error(loc, msg);
            failed = true;
            return null;
        }

        // -------------------------------------------------------------- statements

        void statement(Stmt s) {
            switch (s) {
                case Stmt.Block b -> blockBody(b);
                case Stmt.Label l -> block(labels.get(l.name()));
                case Instr i -> {
                    loc = i.loc();
                    try {
                        guarded(i);
                    } catch (Unsupported u) {
                        fail(u.getMessage());
                    }
                }
                default -> {}
            }
        }

        void guarded(Instr i) {
            if (i.guard() == null) {
                instruction(i);
                return;
            }
            String p = readPredName(name(i.guard()), i.guardNegated());
            if (i.opcode() == Opcode.BRA) {
                String target = label(i.op(0));
                String next = "b" + (blocks++);
                terminate("br i1 " + p + ", label %" + target + ", label %" + next);
                body.append(next).append(":\n");
                terminated = false;
                return;
            }
            String then = "g" + (blocks++), cont = "c" + (blocks++);
            terminate("br i1 " + p + ", label %" + then + ", label %" + cont);
            body.append(then).append(":\n");
            terminated = false;
            instruction(i);
            if (!terminated) terminate("br label %" + cont);
            body.append(cont).append(":\n");
            terminated = false;
        }

        String label(Operand op) {
            String n = name(op);
            if (n != null && labels.containsKey(n)) return labels.get(n);
            throw new Unsupported("branch target must be a label of this function");
        }

        void instruction(Instr i) {
            Ins x = new Ins(i);
            switch (i.opcode()) {
                case BRA -> terminate("br label %" + label(i.op(0)));
                case RET, EXIT -> terminate("ret void");
                case TRAP -> { call("void", "llvm.trap", "", ""); terminate("unreachable"); }
                case MOV -> mov(x);
                case ADD, ADD_CC, SUB, SUB_CC, MUL, MAD, MAD_CC, DIV, REM, MIN, MAX, ABS, NEG, FMA, SAD -> arith(x);
                case ADDC, SUBC, MADC -> carryOp(x);
                case AND, OR, XOR, NOT, CNOT -> logic(x);
                case SHL, SHR -> shift(x);
                case POPC, CLZ, BREV -> bits(x);
                case SET -> set(x);
                case MUL24, MAD24 -> mul24(x);
                case SELP -> selp(x);
                case LOP3 -> lop3(x);
                case BFE -> bfe(x);
                case BFI -> bfi(x);
                case BFIND -> bfind(x);
                case BMSK -> bmsk(x);
                case SZEXT -> szext(x);
                case SHF -> shf(x);
                case PRMT -> prmt(x);
                case FNS -> fns(x);
                case SLCT -> slct(x);
                case DP4A, DP2A -> dot(x);
                case SETP -> setp(x);
                case CVT, CVT_PACK -> cvt(x);
                case CVTA -> cvta(x);
                case LD -> ld(x);
                case ST, ST_ASYNC, ST_BULK -> st(x);
                case ATOM, RED, RED_ASYNC -> atom(x);
                case MATCH -> WarpAtomicLowering.match(this, x);
                case REDUX -> WarpAtomicLowering.redux(this, x);
                case BAR, BARRIER, BAR_WARP_SYNC, BARRIER_CLUSTER -> bar(x);
                case MEMBAR, FENCE -> fence(x);
                case SHFL -> shfl(x);
                case VOTE -> vote(x);
                case ACTIVEMASK -> write(x.op(0), ballot(Boolean.TRUE.toString()), 32, false);
                case RCP, SQRT, RSQRT, SIN, COS, LG2, EX2, TANH -> unaryFloat(x);
                case COPYSIGN -> copysign(x);
                case TESTP -> testp(x);
                case CALL -> callInstr(x);
                default -> throw new Unsupported(i.form() + " is not supported by the LLVM back end");
            }
        }

        // -------------------------------------------------------------- operands

        /**
         * The name an operand was written as, for the operands this lowering looks up by name (registers in its
         * allocas, variables in its symbols, labels); null for immediates, addresses and groups.
         */
        String name(Operand op) {
            return switch (op) {
                case Operand.Reg r -> r.name();
                case Var v -> v.name();
                case Special sp -> sp.name();
                case Func f -> f.name();
                case Operand.Label l -> l.name();
                case Unknown u -> u.name();
                case Sink s -> "_";
                default -> null;
            };
        }

        /** Reads an operand as an {@code bits}-bit integer (registers narrowed or widened, zero- or sign-extended). */
        String read(Operand op, int bits, boolean signed) {
            String n = name(op);
            if (n != null) {
                Reg r = reg(n);
                if (r != null) {
                    if (r.bits == 1) throw new Unsupported("predicate " + n + " used as a value");
                    String x = v("load " + r.ty + ", " + allocaAs() + " " + r.ptr);
                    return resize(x, r.bits, bits, signed);
                }
                if (n.startsWith("%")) {
                    String x = special(op);
                    int w = op instanceof Special sp && (sp.reg() == SpecialReg.CLOCK64 || sp.reg() == SpecialReg.GLOBALTIMER) ? 64 : 32;
                    return resize(x, w, bits, false);
                }
                Global g = symbol(n);
                if (g == null) throw new Unsupported("unknown name " + n);
                return v("ptrtoint " + as(g.space) + " " + g.ptr + " to " + ity(bits));
            }
            switch (op) {
                case FloatImm f when !f.negated() -> {
                    if (f.kind() == FloatImm.Kind.DECIMAL) {
                        double d = f.value();
                        return constant(bits == 32 ? Float.floatToRawIntBits((float) d) : Double.doubleToRawLongBits(d), bits);
                    }
                    long b = f.bits();
                    boolean dbl = f.kind() == FloatImm.Kind.HEX_F64;
                    if (bits == 32 && dbl) b = Float.floatToRawIntBits((float) f.value());
                    if (bits == 64 && !dbl) b = Double.doubleToRawLongBits(f.value());
                    return constant(b, bits);
                }
                case FloatImm f -> throw new Unsupported("operand is not supported: " + f.source());
                case IntImm c -> { return constant(c.value(), bits); }
                case Sum sum when !sum.generic() -> {
                    String base = read(sum.base(), bits, signed);
                    return v("add " + ity(bits) + " " + base + ", " + sum.offset());
                }
                case Sum sum -> throw new Unsupported("operand is not supported: " + sum.source());
                case Malformed m when !m.address() -> throw new Unsupported("operand is not supported: " + m.source());
                default -> throw new Unsupported("operand is not supported here");
            }
        }

        String constant(long c, int bits) {
            return switch (bits) {
                case 1 -> (c & 1) != 0 ? "true" : "false";
                case 8 -> Byte.toString((byte) c);
                case 16 -> Short.toString((short) c);
                case 32 -> Integer.toString((int) c);
                default -> Long.toString(c);
            };
        }

        String resize(String x, int from, int to, boolean signed) {
            if (from == to) return x;
            if (from > to) return v("trunc " + ity(from) + " " + x + " to " + ity(to));
            return v((signed ? "sext " : "zext ") + ity(from) + " " + x + " to " + ity(to));
        }

        /** Reads a float operand as LLVM {@code half}/{@code bfloat}/{@code float}/{@code double}. */
        String readF(Operand op, PtxType t) {
            String bits = read(op, t.size() * 8, false);
            return v("bitcast " + ity(t.size() * 8) + " " + bits + " to " + fty(t));
        }

        void write(Operand dst, String val, int bits, boolean signed) {
            if (dst instanceof Sink) return;
            String n = name(dst);
            if (n == null) throw new Unsupported("destination must be a register");
            Reg r = reg(n);
            if (r == null || r.bits == 1) throw new Unsupported("destination " + n + " is not a value register");
            String x = resize(val, bits, r.bits, signed);
            line("store " + r.ty + " " + x + ", " + allocaAs() + " " + r.ptr);
        }

        void writeF(Operand dst, String val, PtxType t) {
            int b = t.size() * 8;
            write(dst, v("bitcast " + fty(t) + " " + val + " to " + ity(b)), b, false);
        }

        String readPred(Operand op) {
            if (op instanceof Not n && name(n.inner()) != null) return readPredName(name(n.inner()), true);
            String n = name(op);
            if (n != null) return readPredName(n, false);
            if (op instanceof IntImm c) return c.value() != 0 ? "true" : "false";
            throw new Unsupported("predicate operand expected");
        }

        String readPredName(String name, boolean negated) {
            Reg r = reg(name);
            if (r == null || r.bits != 1) throw new Unsupported(name + " is not a predicate register");
            String x = v("load i1, " + allocaAs() + " " + r.ptr);
            return negated ? v("xor i1 " + x + ", true") : x;
        }

        void writePred(Operand dst, String val) {
            if (dst instanceof Sink) return;
            String n = name(dst);
            if (n == null) throw new Unsupported("predicate destination expected");
            Reg r = reg(n);
            if (r == null || r.bits != 1) throw new Unsupported(n + " is not a predicate register");
            line("store i1 " + val + ", " + allocaAs() + " " + r.ptr);
        }

        Global symbol(String name) {
            Global g = syms.get(name);
            return g != null ? g : moduleSyms.get(name);
        }

        // -------------------------------------------------------------- special registers (target hooks)

        /** A special register's value (i32, or i64 for {@code %clock64} and {@code %globaltimer}). */
        String special(Operand op) {
            String name = name(op);
            if (!(op instanceof Special sp)) {
                throw new Unsupported("special register " + name + (target.amd() ? " has no AMD GPU equivalent" : " is not supported"));
            }
            if (sp.component() > 2) throw new Unsupported(name + " with this component is not supported");
            int dim = Math.max(0, sp.component());
            String xyz = "xyz".substring(dim, dim + 1);
            SpecialReg r = sp.reg();
            if (!target.amd()) {
                String sreg = switch (r) {
                    case TID, NTID, CTAID, NCTAID -> name.substring(1) + "." + xyz;
                    case LANEID, WARPID, NWARPID, SMID, NSMID, CLOCK, CLOCK64, GLOBALTIMER,
                         LANEMASK_EQ, LANEMASK_LT, LANEMASK_LE, LANEMASK_GT, LANEMASK_GE -> name.substring(1);
                    default -> throw new Unsupported("special register " + name + " is not supported");
                };
                String ty = r == SpecialReg.CLOCK64 || r == SpecialReg.GLOBALTIMER ? "i64" : "i32";
                return call(ty, "llvm.nvvm.read.ptx.sreg." + sreg, "", "");
            }
            switch (r) {
                case TID -> { return call("i32", "llvm.amdgcn.workitem.id." + xyz, "", ""); }
                case CTAID -> { return call("i32", "llvm.amdgcn.workgroup.id." + xyz, "", ""); }
                case NTID, NCTAID -> {
                    // code object v5 hidden kernel arguments: block counts (u32) at 0/4/8, group sizes (u16) at 12/14/16
                    String p = call("ptr addrspace(4)", "llvm.amdgcn.implicitarg.ptr", "", "");
                    boolean n = r == SpecialReg.NTID;
                    String q = v("getelementptr i8, ptr addrspace(4) " + p + ", i64 " + (n ? 12 + 2 * dim : 4 * dim));
                    if (!n) return v("load i32, ptr addrspace(4) " + q + ", align 4, !invariant.load !{}");
                    String h = v("load i16, ptr addrspace(4) " + q + ", align 2, !invariant.load !{}");
                    return v("zext i16 " + h + " to i32");
                }
                case LANEID -> { return laneId(); }
                case LANEMASK_EQ, LANEMASK_LT, LANEMASK_LE, LANEMASK_GT, LANEMASK_GE -> {
                    String l = laneId();
                    String eq = v("shl i32 1, " + l);
                    String lt = v("sub i32 " + eq + ", 1");
                    String le = v("or i32 " + lt + ", " + eq);
                    return switch (r) {
                        case LANEMASK_EQ -> eq;
                        case LANEMASK_LT -> lt;
                        case LANEMASK_LE -> le;
                        case LANEMASK_GT -> v("xor i32 " + le + ", -1");
                        default -> v("xor i32 " + lt + ", -1");
                    };
                }
                case CLOCK, CLOCK64 -> {
                    String c = call("i64", "llvm.readcyclecounter", "", "");
                    return r == SpecialReg.CLOCK ? v("trunc i64 " + c + " to i32") : c;
                }
                default -> throw new Unsupported("special register " + name + " has no AMD GPU equivalent");
            }
        }

        void requireWave32(String what) {
            if (target.waveSize() != 32) {
                throw new Unsupported(what + " assumes 32-lane warps; " + target.cpu() + " runs 64-lane waves only");
            }
        }

        String laneId() {
            if (!target.amd()) return call("i32", "llvm.nvvm.read.ptx.sreg.laneid", "", "");
            requireWave32("%laneid");
            return call("i32", "llvm.amdgcn.mbcnt.lo", "i32, i32", "i32 -1, i32 0");
        }

        /** Lane {@code lane}'s value of {@code val} (i32), every lane of {@code mask} taking part (target hook). */
        String readLane(String val, String lane, String mask) {
            if (!target.amd()) {
                return call("i32", "llvm.nvvm.shfl.sync.idx.i32", "i32, i32, i32, i32", "i32 " + mask + ", i32 " + val + ", i32 " + lane + ", i32 31");
            }
            String addr = v("shl i32 " + lane + ", 2");
            return call("i32", "llvm.amdgcn.ds.bpermute", "i32, i32", "i32 " + addr + ", i32 " + val);
        }

        /** The 32-bit mask of lanes whose predicate is true (target hook). */
        String ballot(String pred) {
            return ballot(pred, "-1");
        }

        String ballot(String pred, String mask) {
            if (!target.amd()) {
                return call("i32", "llvm.nvvm.vote.ballot.sync", "i32, i1", "i32 " + mask + ", i1 " + pred);
            }
            requireWave32("warp vote");
            return call("i32", "llvm.amdgcn.ballot.i32", "i1", "i1 " + pred);
        }

        /** {@code bar.sync 0} / {@code barrier.sync 0}: all threads of the block, shared memory made visible (target hook). */
        void barrier() {
            if (!target.amd()) {
                call("void", "llvm.nvvm.barrier0", "", "");
                return;
            }
            line("fence syncscope(\"workgroup\") release");
            call("void", "llvm.amdgcn.s.barrier", "", "");
            line("fence syncscope(\"workgroup\") acquire");
        }

        // -------------------------------------------------------------- instructions

        void mov(Ins x) {
            PtxType t = x.type(0);
            if (t == PtxType.PRED) {
                writePred(x.op(0), readPred(x.op(1)));
                return;
            }
            int bits = t.size() * 8;
            Operand d = x.op(0), a = x.op(1);
            if (d instanceof Vec vd) {
                String val = read(a, bits, false);
                for (Lane l : vd.lanes()) {
                    String s = l.offset() == 0 ? val : v("lshr " + ity(bits) + " " + val + ", " + l.offset());
                    write(l.value(), resize(s, bits, l.bits(), false), l.bits(), false);
                }
                return;
            }
            if (a instanceof Vec va) {
                String acc = constant(0, bits);
                for (Lane l : va.lanes()) {
                    String e = resize(read(l.value(), l.bits(), false), l.bits(), bits, false);
                    if (l.offset() > 0) e = v("shl " + ity(bits) + " " + e + ", " + l.offset());
                    acc = v("or " + ity(bits) + " " + acc + ", " + e);
                }
                write(d, acc, bits, false);
                return;
            }
            write(d, read(a, bits, t.kind() == PtxType.Kind.SIGNED), bits, t.kind() == PtxType.Kind.SIGNED);
        }

        void arith(Ins x) {
            PtxType t = x.type(0);
            if (t == null) throw new Unsupported(x.i.form() + ": no type");
            if (t.kind() == PtxType.Kind.FLOAT) {
                floatArith(x, t);
                return;
            }
            if ((t == PtxType.U16X2 || t == PtxType.S16X2) && (x.opcode() == Opcode.MIN || x.opcode() == Opcode.MAX)) {
                minMax16x2(x, t);
                return;
            }
            if (t.size() > 8 || t.name().contains("X")) throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
            int bits = t.size() * 8;
            boolean s = t.kind() == PtxType.Kind.SIGNED;
            String ty = ity(bits);
            Opcode op = x.opcode();
            if (x.has(Flag.CC)) {
                carryOp(x);
                return;
            }
            if (t == PtxType.S32 && x.has(Flag.RELU) && (op == Opcode.MIN || op == Opcode.MAX) && x.mods.distinctCount() == 2) {
                // min/max.relu.s32 (PTX ISA 9.0, min and max): the signed min/max, a negative result clamped to 0
                String a = read(x.op(1), 32, true), b = read(x.op(2), 32, true);
                String m = call("i32", "llvm.s" + (op == Opcode.MIN ? "min" : "max") + ".i32", "i32, i32", "i32 " + a + ", i32 " + b);
                write(x.op(0), call("i32", "llvm.smax.i32", "i32, i32", "i32 " + m + ", i32 0"), 32, true);
                return;
            }
            if (t == PtxType.S32 && (op == Opcode.MAD || op == Opcode.MAD_CC) && x.has(Flag.HI) && x.has(Flag.SAT) && x.mods.distinctCount() == 3) {
                // mad.hi.sat.s32 (PTX ISA 9.0, mad): the high 32 bits of the 64-bit product plus c, saturated to .s32
                String a = resize(read(x.op(1), 32, true), 32, 64, true), b = resize(read(x.op(2), 32, true), 32, 64, true);
                String hi = resize(v("ashr i64 " + v("mul i64 " + a + ", " + b) + ", 32"), 64, 32, false);
                write(x.op(0), call("i32", "llvm.sadd.sat.i32", "i32, i32", "i32 " + hi + ", i32 " + read(x.op(3), 32, true)), 32, true);
                return;
            }
            if (x.has(Flag.RELU) || (x.has(Flag.SAT) && !(op == Opcode.ADD || op == Opcode.ADD_CC || op == Opcode.SUB || op == Opcode.SUB_CC))) {
                throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
            }
            boolean wide = x.has(Flag.WIDE), hi = x.has(Flag.HI);
            switch (op) {
                case ADD, ADD_CC, SUB, SUB_CC -> {
                    String name = op == Opcode.ADD || op == Opcode.ADD_CC ? "add" : "sub";
                    String a = read(x.op(1), bits, s), b = read(x.op(2), bits, s);
                    String r = x.has(Flag.SAT)
                            ? call(ty, "llvm." + (s ? "s" : "u") + name + ".sat." + ty, ty + ", " + ty, ty + " " + a + ", " + ty + " " + b)
                            : v(name + " " + ty + " " + a + ", " + b);
                    write(x.op(0), r, bits, s);
                }
                case MUL, MAD, MAD_CC -> {
                    int w = wide || hi ? 2 * bits : bits;
                    String a = resize(read(x.op(1), bits, s), bits, w, s), b = resize(read(x.op(2), bits, s), bits, w, s);
                    String p = v("mul " + ity(w) + " " + a + ", " + b);
                    if (hi) p = resize(v((s ? "ashr " : "lshr ") + ity(w) + " " + p + ", " + bits), w, bits, s);
                    int rw = wide ? w : bits;
                    if (op != Opcode.MUL) p = v("add " + ity(rw) + " " + p + ", " + read(x.op(3), rw, s));
                    write(x.op(0), p, rw, s);
                }
                case SAD -> {
                    String a = read(x.op(1), bits, s), b = read(x.op(2), bits, s), c = read(x.op(3), bits, s);
                    String lt = v("icmp " + (s ? "slt " : "ult ") + ty + " " + a + ", " + b);
                    String d1 = v("sub " + ty + " " + b + ", " + a), d2 = v("sub " + ty + " " + a + ", " + b);
                    String d = v("select i1 " + lt + ", " + ty + " " + d1 + ", " + ty + " " + d2);
                    write(x.op(0), v("add " + ty + " " + d + ", " + c), bits, s);
                }
                case DIV, REM -> {
                    // PTX defines division by zero (all ones, as an H200 gives) and MIN/-1 (wraps); LLVM makes both UB
                    String a = read(x.op(1), bits, s), b = read(x.op(2), bits, s);
                    String z = v("icmp eq " + ty + " " + b + ", 0");
                    String safeB = v("select i1 " + z + ", " + ty + " 1, " + ty + " " + b);
                    if (s) {
                        String m1 = v("icmp eq " + ty + " " + safeB + ", -1");
                        safeB = v("select i1 " + m1 + ", " + ty + " 1, " + ty + " " + safeB);
                        String q = v((op == Opcode.DIV ? "sdiv " : "srem ") + ty + " " + a + ", " + safeB);
                        String neg = v("sub " + ty + " 0, " + a);
                        q = v("select i1 " + m1 + ", " + ty + " " + (op == Opcode.DIV ? neg : "0") + ", " + ty + " " + q);
                        write(x.op(0), v("select i1 " + z + ", " + ty + " -1, " + ty + " " + q), bits, s);
                    } else {
                        String q = v((op == Opcode.DIV ? "udiv " : "urem ") + ty + " " + a + ", " + safeB);
                        write(x.op(0), v("select i1 " + z + ", " + ty + " -1, " + ty + " " + q), bits, s);
                    }
                }
                case MIN, MAX -> {
                    String a = read(x.op(1), bits, s), b = read(x.op(2), bits, s);
                    String fn = "llvm." + (s ? "s" : "u") + (op == Opcode.MIN ? "min" : "max") + "." + ty;
                    write(x.op(0), call(ty, fn, ty + ", " + ty, ty + " " + a + ", " + ty + " " + b), bits, s);
                }
                case ABS -> write(x.op(0), call(ty, "llvm.abs." + ty, ty + ", i1", ty + " " + read(x.op(1), bits, s) + ", i1 false"), bits, s);
                case NEG -> write(x.op(0), v("sub " + ty + " 0, " + read(x.op(1), bits, s)), bits, s);
                default -> throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
            }
        }

        String carryIn() {
            return v("load i1, " + allocaAs() + " " + carry);
        }

        /** add.cc, addc, sub.cc, subc, mad.cc, madc (PTX ISA 9.7.2): CC.CF is a carry for add, a borrow for sub. */
        void carryOp(Ins x) {
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
                    String a = resize(read(x.op(1), bits, s), bits, 2 * bits, s), b = resize(read(x.op(2), bits, s), bits, 2 * bits, s);
                    String m = v("mul " + ity(2 * bits) + " " + a + ", " + b);
                    p = resize(v("lshr " + ity(2 * bits) + " " + m + ", " + bits), 2 * bits, bits, false);
                } else {
                    p = v("mul " + ty + " " + read(x.op(1), bits, false) + ", " + read(x.op(2), bits, false));
                }
                q = read(x.op(3), bits, false);
            } else {
                p = read(x.op(1), bits, false);
                q = read(x.op(2), bits, false);
            }
            String kind = sub ? "usub" : "uadd";
            String r1 = call("{" + ty + ", i1}", "llvm." + kind + ".with.overflow." + ty, ty + ", " + ty, ty + " " + p + ", " + ty + " " + q);
            String s1 = v("extractvalue {" + ty + ", i1} " + r1 + ", 0"), o1 = v("extractvalue {" + ty + ", i1} " + r1 + ", 1");
            String res = s1, out = o1;
            if (cin) {
                String c = resize(carryIn(), 1, bits, false);
                String r2 = call("{" + ty + ", i1}", "llvm." + kind + ".with.overflow." + ty, ty + ", " + ty, ty + " " + s1 + ", " + ty + " " + c);
                res = v("extractvalue {" + ty + ", i1} " + r2 + ", 0");
                out = v("or i1 " + o1 + ", " + v("extractvalue {" + ty + ", i1} " + r2 + ", 1"));
            }
            write(x.op(0), res, bits, false);
            if (cout) line("store i1 " + out + ", " + allocaAs() + " " + carry);
        }

        void logic(Ins x) {
            PtxType t = x.type(0);
            Opcode op = x.opcode();
            String name = switch (op) { case AND -> "and"; case OR -> "or"; case XOR -> "xor"; default -> null; };
            if (t == PtxType.PRED) {
                String a = readPred(x.op(1));
                String r = switch (op) {
                    case NOT -> v("xor i1 " + a + ", true");
                    case AND, OR, XOR -> v(name + " i1 " + a + ", " + readPred(x.op(2)));
                    default -> throw new Unsupported(x.i.form() + " is not supported");
                };
                writePred(x.op(0), r);
                return;
            }
            int bits = t.size() * 8;
            String ty = ity(bits);
            String a = read(x.op(1), bits, false);
            String r = switch (op) {
                case NOT -> v("xor " + ty + " " + a + ", -1");
                case CNOT -> v("zext i1 " + v("icmp eq " + ty + " " + a + ", 0") + " to " + ty);
                default -> v(name + " " + ty + " " + a + ", " + read(x.op(2), bits, false));
            };
            write(x.op(0), r, bits, false);
        }

        void shift(Ins x) {
            PtxType t = x.type(0);
            int bits = t.size() * 8;
            String ty = ity(bits);
            boolean s = x.opcode() == Opcode.SHR && t.kind() == PtxType.Kind.SIGNED;
            String a = read(x.op(1), bits, false);
            String k = read(x.op(2), 32, false);              // the shift amount is always .u32
            // PTX clamps shift amounts at the width; LLVM makes larger shifts poison
            String big = v("icmp ugt i32 " + k + ", " + (bits - 1));
            String kc = v("select i1 " + big + ", i32 " + (bits - 1) + ", i32 " + k);
            String kk = resize(kc, 32, bits, false);
            String r;
            if (s) {
                r = v("ashr " + ty + " " + a + ", " + kk);
            } else {
                String sh = v((x.opcode() == Opcode.SHL ? "shl " : "lshr ") + ty + " " + a + ", " + kk);
                r = v("select i1 " + big + ", " + ty + " 0, " + ty + " " + sh);
            }
            write(x.op(0), r, bits, false);
        }

        void bits(Ins x) {
            PtxType t = x.type(0);
            int bits = t.size() * 8;
            String ty = ity(bits);
            String a = read(x.op(1), bits, false);
            switch (x.opcode()) {
                case POPC -> write(x.op(0), resize(call(ty, "llvm.ctpop." + ty, ty, ty + " " + a), bits, 32, false), 32, false);
                case CLZ -> write(x.op(0), resize(call(ty, "llvm.ctlz." + ty, ty + ", i1", ty + " " + a + ", i1 false"), bits, 32, false), 32, false);
                default -> write(x.op(0), call(ty, "llvm.bitreverse." + ty, ty, ty + " " + a), bits, false);
            }
        }

        /** lop3.b32 d, a, b, c, lut (PTX ISA 9.7.8.6): bit i of lut is the result for minterm i = (a<<2)|(b<<1)|c. */
        void lop3(Ins x) {
            if (!x.has(PtxType.B32) || x.i.arity() != 5) throw new Unsupported(x.i.form() + " is not supported");
            Long lut = x.op(4) instanceof IntImm c ? c.value() : null;
            if (lut == null) throw new Unsupported(x.i.form() + ": the lookup table must be a constant");
            String a = read(x.op(1), 32, false), b = read(x.op(2), 32, false), c = read(x.op(3), 32, false);
            String na = v("xor i32 " + a + ", -1"), nb = v("xor i32 " + b + ", -1"), nc = v("xor i32 " + c + ", -1");
            String acc = "0";
            for (int m = 0; m < 8; m++) {
                if ((lut >> m & 1) == 0) continue;
                String t1 = v("and i32 " + ((m & 4) != 0 ? a : na) + ", " + ((m & 2) != 0 ? b : nb));
                String t2 = v("and i32 " + t1 + ", " + ((m & 1) != 0 ? c : nc));
                acc = v("or i32 " + acc + ", " + t2);
            }
            write(x.op(0), acc, 32, false);
        }

        // ------------------------------------------------ bit-field, byte, dot-product and select instructions (PTX ISA 9.0)

        String sel(String c, String ty, String a, String b) {
            return v("select i1 " + c + ", " + ty + " " + a + ", " + ty + " " + b);
        }

        String umin(String ty, String a, String b) {
            return call(ty, "llvm.umin." + ty, ty + ", " + ty, ty + " " + a + ", " + ty + " " + b);
        }

        /**
         * Position and length of a bit field (bfe, bfi) at the instruction's width: for 32 bits bits 7..0 of the .u32
         * operands (PTX ISA 9.0, bfe and bfi), for 64 bits the whole .u32 values (an H200 does not mask them).
         */
        String[] field(Operand posOp, Operand lenOp, int w) {
            String b = read(posOp, 32, false), c = read(lenOp, 32, false);
            if (w == 32) return new String[] {v("and i32 " + b + ", 255"), v("and i32 " + c + ", 255")};
            return new String[] {resize(b, 32, 64, false), resize(c, 32, 64, false)};
        }

        /**
         * The mask of the bits [pos, pos + len) that lie inside a {@code w}-bit value, not yet shifted to pos:
         * {@code [inRange, clamped pos, mask]}; no LLVM shift sees an amount at or past the width.
         */
        String[] fieldMask(String pos, String len, int w) {
            String ty = ity(w);
            String inRange = v("icmp ult " + ty + " " + pos + ", " + w);
            String posC = umin(ty, pos, Integer.toString(w - 1));
            String n = sel(inRange, ty, umin(ty, len, v("sub " + ty + " " + w + ", " + posC)), "0");
            String full = v("icmp uge " + ty + " " + n + ", " + w);
            String low = v("sub " + ty + " " + v("shl " + ty + " 1, " + umin(ty, n, Integer.toString(w - 1))) + ", 1");
            return new String[] {inRange, posC, sel(full, ty, "-1", low)};
        }

        /**
         * bfe.{u32,s32,u64,s64} d, a, pos, len (PTX ISA 9.0, bfe): bits [pos, pos + len) of a; signed types fill the
         * bits above with bit min(pos + len − 1, msb) of a (0 when len is 0), unsigned with zeros.
         */
        void bfe(Ins x) {
            PtxType t = x.type(0);
            if (t == null || !isInt(t) || t.size() < 4 || t.kind() == PtxType.Kind.BIT) throw new Unsupported(x.i.form() + " is not supported");
            int w = t.size() * 8;
            String ty = ity(w);
            String a = read(x.op(1), w, false);
            String[] pl = field(x.op(2), x.op(3), w);
            String[] fm = fieldMask(pl[0], pl[1], w);
            String shifted = sel(fm[0], ty, v("lshr " + ty + " " + a + ", " + fm[1]), "0");
            String f = v("and " + ty + " " + shifted + ", " + fm[2]);
            if (t.kind() == PtxType.Kind.SIGNED) {
                String top = umin(ty, v("add " + ty + " " + pl[0] + ", " + v("sub " + ty + " " + pl[1] + ", 1")), Integer.toString(w - 1));
                String bit = v("and " + ty + " " + v("lshr " + ty + " " + a + ", " + top) + ", 1");
                String neg = v("and i1 " + v("icmp ne " + ty + " " + bit + ", 0") + ", " + v("icmp ne " + ty + " " + pl[1] + ", 0"));
                f = v("or " + ty + " " + f + ", " + sel(neg, ty, v("xor " + ty + " " + fm[2] + ", -1"), "0"));
            }
            write(x.op(0), f, w, false);
        }

        /** bfi.{b32,b64} f, a, b, pos, len (PTX ISA 9.0, bfi): b with bits [pos, pos + len) (inside the width) from a's low bits. */
        void bfi(Ins x) {
            PtxType t = x.type(0);
            if (t == null || (t != PtxType.B32 && t != PtxType.B64)) throw new Unsupported(x.i.form() + " is not supported");
            int w = t.size() * 8;
            String ty = ity(w);
            String a = read(x.op(1), w, false), b = read(x.op(2), w, false);
            String[] pl = field(x.op(3), x.op(4), w);
            String[] fm = fieldMask(pl[0], pl[1], w);
            String m = sel(fm[0], ty, v("shl " + ty + " " + fm[2] + ", " + fm[1]), "0");
            String ins = v("and " + ty + " " + v("shl " + ty + " " + a + ", " + fm[1]) + ", " + m);
            String keep = v("and " + ty + " " + b + ", " + v("xor " + ty + " " + m + ", -1"));
            write(x.op(0), v("or " + ty + " " + keep + ", " + ins), w, false);
        }

        /**
         * bfind[.shiftamt].{u32,s32,u64,s64} d, a (PTX ISA 9.0, bfind): the bit position of the most significant
         * non-sign bit (the highest 1 of a, or of ~a for negative signed a), as a .u32; with .shiftamt the left
         * shift that moves it to the msb; 0xffffffff when there is none.
         */
        void bfind(Ins x) {
            PtxType t = x.type(0);
            if (t == null || !isInt(t) || t.size() < 4 || t.kind() == PtxType.Kind.BIT) throw new Unsupported(x.i.form() + " is not supported");
            int w = t.size() * 8;
            String ty = ity(w);
            String a = read(x.op(1), w, false);
            if (t.kind() == PtxType.Kind.SIGNED) a = sel(v("icmp slt " + ty + " " + a + ", 0"), ty, v("xor " + ty + " " + a + ", -1"), a);
            String lz = resize(call(ty, "llvm.ctlz." + ty, ty + ", i1", ty + " " + a + ", i1 false"), w, 32, false);
            String r = x.has(Flag.SHIFTAMT) ? lz : v("sub i32 " + (w - 1) + ", " + lz);
            String none = v("icmp eq " + ty + " " + a + ", 0");
            write(x.op(0), sel(none, "i32", "-1", r), 32, false);
        }

        /**
         * bmsk.{wrap,clamp}.b32 d, a, b (PTX ISA 9.0, bmsk): a mask of b bits starting at bit a. .wrap takes a and b
         * modulo 32; .clamp gives 0 for a ≥ 32 and all bits from a up for b ≥ 32 (as an H200 does).
         */
        void bmsk(Ins x) {
            boolean clamp = x.has(ShiftMode.CLAMP);
            if (!clamp && !x.has(ShiftMode.WRAP)) throw new Unsupported(x.i.form() + " is not supported");
            String a = read(x.op(1), 32, false), b = read(x.op(2), 32, false);
            String a1 = v("and i32 " + a + ", 31"), b1 = v("and i32 " + b + ", 31");
            String mask0 = v("shl i32 -1, " + a1);
            String sum = v("add i32 " + a1 + ", " + b1);
            String zero1 = v("icmp uge i32 " + sum + ", 32");
            if (clamp) {
                String aOver = v("icmp uge i32 " + a + ", 32"), bOver = v("icmp uge i32 " + b + ", 32");
                mask0 = sel(aOver, "i32", "0", mask0);
                zero1 = v("or i1 " + zero1 + ", " + v("or i1 " + aOver + ", " + bOver));
            }
            String mask1 = v("shl i32 -1, " + v("and i32 " + sum + ", 31"));
            mask1 = sel(zero1, "i32", "0", sel(v("icmp eq i32 " + b1 + ", 0"), "i32", "-1", mask1));
            write(x.op(0), v("and i32 " + mask0 + ", " + v("xor i32 " + mask1 + ", -1")), 32, false);
        }

        /**
         * szext.{wrap,clamp}.{u32,s32} d, a, b (PTX ISA 9.0, szext): the low b bits of a, zero- or sign-extended
         * (b modulo 32 with .wrap; with .clamp b ≥ 32 keeps a whole); b = 0 gives 0.
         */
        void szext(Ins x) {
            PtxType t = x.type(0);
            boolean clamp = x.has(ShiftMode.CLAMP);
            if ((t != PtxType.U32 && t != PtxType.S32) || (!clamp && !x.has(ShiftMode.WRAP))) throw new Unsupported(x.i.form() + " is not supported");
            String a = read(x.op(1), 32, false), b = read(x.op(2), 32, false);
            String b1 = v("and i32 " + b + ", 31");
            String msk = v("shl i32 -1, " + b1);
            if (clamp) msk = sel(v("icmp uge i32 " + b + ", 32"), "i32", "0", msk);
            String r = v("and i32 " + a + ", " + v("xor i32 " + msk + ", -1"));
            if (t == PtxType.S32) {
                String pos = v("and i32 " + v("sub i32 " + b1 + ", 1") + ", 31");
                String bit = v("and i32 " + v("lshr i32 " + a + ", " + pos) + ", 1");
                String neg = v("and i1 " + v("icmp ne i32 " + bit + ", 0") + ", " + v("icmp ne i32 " + b1 + ", 0"));
                r = v("or i32 " + r + ", " + sel(neg, "i32", msk, "0"));   // msk is 0 when .clamp and b ≥ 32
            }
            write(x.op(0), r, 32, false);
        }

        /**
         * shf.{l,r}.{wrap,clamp}.b32 d, a, b, c (PTX ISA 9.0, shf): the 64-bit value b:a shifted left (high word kept)
         * or right (low word kept) by c modulo 32 (.wrap) or min(c, 32) (.clamp).
         */
        void shf(Ins x) {
            boolean clamp = x.has(ShiftMode.CLAMP), left = x.has(ShiftDir.L);
            if (!x.has(PtxType.B32) || (!clamp && !x.has(ShiftMode.WRAP)) || (!left && !x.has(ShiftDir.R))) throw new Unsupported(x.i.form() + " is not supported");
            String a = read(x.op(1), 32, false), b = read(x.op(2), 32, false), c = read(x.op(3), 32, false);
            String n = clamp ? umin("i32", c, "32") : v("and i32 " + c + ", 31");
            String cat = v("or i64 " + v("shl i64 " + resize(b, 32, 64, false) + ", 32") + ", " + resize(a, 32, 64, false));
            String n64 = resize(n, 32, 64, false);
            String r = left ? v("lshr i64 " + v("shl i64 " + cat + ", " + n64) + ", 32") : v("lshr i64 " + cat + ", " + n64);
            write(x.op(0), resize(r, 64, 32, false), 32, false);
        }

        /**
         * prmt.b32[.mode] d, a, b, c (PTX ISA 9.0, prmt): bytes of b:a (a = bytes 0..3, b = 4..7) picked by the
         * nibbles of c (bit 3 of a nibble replicates the picked byte's sign), or with .f4e .b4e .rc8 .ecl .ecr .rc16
         * by the pattern the mode makes of c's two low bits.
         */
        void prmt(Ins x) {
            PrmtMode mode = null;
            for (PrmtMode m : PrmtMode.values()) if (x.has(m)) mode = m;
            if (!x.has(PtxType.B32) || x.mods.distinctCount() != (mode == null ? 1 : 2)) throw new Unsupported(x.i.form() + " is not supported");
            String a = read(x.op(1), 32, false), b = read(x.op(2), 32, false), c = read(x.op(3), 32, false);
            String tmp = v("or i64 " + v("shl i64 " + resize(b, 32, 64, false) + ", 32") + ", " + resize(a, 32, 64, false));
            String s = v("and i32 " + c + ", 3");
            String acc = "0";
            for (int i = 0; i < 4; i++) {
                String nib = mode == null ? v("and i32 " + v("lshr i32 " + c + ", " + (4 * i)) + ", 15") : null;
                String idx = mode == null ? v("and i32 " + nib + ", 7") : switch (mode) {
                    case F4E -> v("add i32 " + s + ", " + i);
                    case B4E -> v("and i32 " + v("sub i32 " + s + ", " + i) + ", 7");
                    case RC8 -> s;
                    case ECL -> call("i32", "llvm.umax.i32", "i32, i32", "i32 " + s + ", i32 " + i);
                    case ECR -> umin("i32", s, Integer.toString(i));
                    case RC16 -> v("add i32 " + v("shl i32 " + v("and i32 " + s + ", 1") + ", 1") + ", " + (i & 1));
                };
                String sh = resize(v("shl i32 " + idx + ", 3"), 32, 64, false);
                String byt = v("trunc i64 " + v("lshr i64 " + tmp + ", " + sh) + " to i8");
                if (mode == null) {
                    String rep = v("ashr i8 " + byt + ", 7");
                    byt = sel(v("icmp ne i32 " + v("and i32 " + nib + ", 8") + ", 0"), "i8", rep, byt);
                }
                String wide = resize(byt, 8, 32, false);
                if (i > 0) wide = v("shl i32 " + wide + ", " + (8 * i));
                acc = v("or i32 " + acc + ", " + wide);
            }
            write(x.op(0), acc, 32, false);
        }

        /** The position of the k-th (from 0) set bit of m counted from bit 0, for k < popc(m): a 5-step binary search. */
        String kthSetBit(String m, String k) {
            String r = "0", kk = k;
            for (int wdt = 16; wdt >= 1; wdt /= 2) {
                String part = v("and i32 " + v("lshr i32 " + m + ", " + r) + ", " + ((1 << wdt) - 1));
                String cnt = call("i32", "llvm.ctpop.i32", "i32", "i32 " + part);
                String up = v("icmp uge i32 " + kk + ", " + cnt);
                kk = sel(up, "i32", v("sub i32 " + kk + ", " + cnt), kk);
                r = sel(up, "i32", v("add i32 " + r + ", " + wdt), r);
            }
            return r;
        }

        /**
         * fns.b32 d, mask, base, offset (PTX ISA 9.0, fns): the position of the |offset|-th set bit of mask counting
         * up (offset &gt; 0) or down (offset &lt; 0) from bit base, base itself when offset is 0 and its bit is set,
         * 0xffffffff when there is no such bit or base ≥ 32; offset = INT_MIN gives 0, as an H200 does.
         */
        void fns(Ins x) {
            if (!x.has(PtxType.B32) || x.mods.distinctCount() != 1) throw new Unsupported(x.i.form() + " is not supported");
            String msk = read(x.op(1), 32, false), base = read(x.op(2), 32, false), off = read(x.op(3), 32, false);
            String baseOk = v("icmp ult i32 " + base + ", 32");
            String bc = v("and i32 " + base + ", 31");
            String at = v("icmp ne i32 " + v("and i32 " + v("lshr i32 " + msk + ", " + bc) + ", 1") + ", 0");
            String r0 = sel(v("and i1 " + baseOk + ", " + at), "i32", bc, "-1");
            String upBits = v("and i32 " + msk + ", " + v("shl i32 -1, " + bc));
            String cu = call("i32", "llvm.ctpop.i32", "i32", "i32 " + upBits);
            String okU = v("and i1 " + baseOk + ", " + v("icmp ule i32 " + off + ", " + cu));
            String ru = sel(okU, "i32", kthSetBit(upBits, v("sub i32 " + off + ", 1")), "-1");
            String dnBits = v("and i32 " + msk + ", " + v("lshr i32 -1, " + v("sub i32 31, " + bc)));
            String cd = call("i32", "llvm.ctpop.i32", "i32", "i32 " + dnBits);
            String n = v("sub i32 0, " + off);
            String okD = v("and i1 " + baseOk + ", " + v("icmp ule i32 " + n + ", " + cd));
            String rd = sel(okD, "i32", kthSetBit(dnBits, v("sub i32 " + cd + ", " + n)), "-1");
            rd = sel(v("icmp eq i32 " + off + ", -2147483648"), "i32", "0", rd);
            String r = sel(v("icmp eq i32 " + off + ", 0"), "i32", r0, sel(v("icmp sgt i32 " + off + ", 0"), "i32", ru, rd));
            write(x.op(0), r, 32, false);
        }

        /**
         * slct[.ftz].dtype.{s32,f32} d, a, b, c (PTX ISA 9.0, slct): a when c ≥ 0, else b; a NaN c selects b; with
         * .ftz a subnormal c counts as (signed) zero and selects a.
         */
        void slct(Ins x) {
            PtxType t = x.type(0), ct = x.type(1);
            if (t == null || (t.size() != 2 && t.size() != 4 && t.size() != 8) || t.name().contains("X")
                    || (ct != PtxType.S32 && ct != PtxType.F32) || (x.has(Flag.FTZ) && ct != PtxType.F32)) {
                throw new Unsupported(x.i.form() + " is not supported");
            }
            int w = t.size() * 8;
            String ty = ity(w);
            String a = read(x.op(1), w, false), b = read(x.op(2), w, false), c = read(x.op(3), 32, false);
            String ge;
            if (ct == PtxType.S32) {
                ge = v("icmp sge i32 " + c + ", 0");
            } else {
                ge = v("fcmp oge float " + v("bitcast i32 " + c + " to float") + ", 0.0");
                if (x.has(Flag.FTZ)) ge = v("or i1 " + ge + ", " + v("icmp eq i32 " + v("and i32 " + c + ", 2139095040") + ", 0"));
            }
            write(x.op(0), sel(ge, ty, a, b), w, false);
        }

        /**
         * dp4a.atype.btype d, a, b, c and dp2a.{lo,hi}.atype.btype (PTX ISA 9.0, dp4a and dp2a): c plus the dot product of
         * a's four bytes (dp2a: two half-words) with b's four bytes (dp2a: bytes 0-1 for .lo, 2-3 for .hi), each
         * element signed or unsigned by its type, modulo 2^32.
         */
        void dot(Ins x) {
            PtxType ta = x.type(0), tb = x.type(1);
            boolean four = x.opcode() == Opcode.DP4A;
            if ((ta != PtxType.U32 && ta != PtxType.S32) || (tb != PtxType.U32 && tb != PtxType.S32) || x.types.size() != 2
                    || (!four && !x.has(Flag.LO) && !x.has(Flag.HI))) {
                throw new Unsupported(x.i.form() + " is not supported");
            }
            boolean sa = ta == PtxType.S32, sb = tb == PtxType.S32;
            String a = read(x.op(1), 32, false), b = read(x.op(2), 32, false);
            String acc = read(x.op(3), 32, false);
            int first = !four && x.has(Flag.HI) ? 2 : 0;
            for (int i = 0; i < (four ? 4 : 2); i++) {
                int aw = four ? 8 : 16;
                String ai = resize(v("trunc i32 " + (i == 0 ? a : v("lshr i32 " + a + ", " + (aw * i))) + " to " + ity(aw)), aw, 32, sa);
                int bs = 8 * (first + i);
                String bi = resize(v("trunc i32 " + (bs == 0 ? b : v("lshr i32 " + b + ", " + bs)) + " to i8"), 8, 32, sb);
                acc = v("add i32 " + acc + ", " + v("mul i32 " + ai + ", " + bi));
            }
            write(x.op(0), acc, 32, false);
        }

        /**
         * min/max[.relu].{u16x2,s16x2} d, a, b (PTX ISA 9.0, min and max): per 16-bit half, signed or unsigned; .relu
         * (s16x2 only) clamps negative halves to 0.
         */
        void minMax16x2(Ins x, PtxType t) {
            boolean s = t == PtxType.S16X2, relu = x.has(Flag.RELU);
            if ((relu && !s) || x.mods.distinctCount() != (relu ? 2 : 1)) throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
            String vt = "<2 x i16>";
            String a = v("bitcast i32 " + read(x.op(1), 32, false) + " to " + vt), b = v("bitcast i32 " + read(x.op(2), 32, false) + " to " + vt);
            String fn = "llvm." + (s ? "s" : "u") + (x.opcode() == Opcode.MIN ? "min" : "max") + ".v2i16";
            String r = call(vt, fn, vt + ", " + vt, vt + " " + a + ", " + vt + " " + b);
            if (relu) r = call(vt, "llvm.smax.v2i16", vt + ", " + vt, vt + " " + r + ", " + vt + " zeroinitializer");
            write(x.op(0), v("bitcast " + vt + " " + r + " to i32"), 32, false);
        }

        void selp(Ins x) {
            PtxType t = x.type(0);
            int bits = t.size() * 8;
            String ty = ity(bits);
            String a = read(x.op(1), bits, false), b = read(x.op(2), bits, false);
            String c = readPred(x.op(3));
            write(x.op(0), v("select i1 " + c + ", " + ty + " " + a + ", " + ty + " " + b), bits, false);
        }

        void setp(Ins x) {
            Mod cmp = x.mods.get(0);
            PtxType t = x.type(0);
            String bool = x.has(BoolOp.AND) ? "and" : x.has(BoolOp.OR) ? "or" : x.has(BoolOp.XOR) ? "xor" : null;
            if (t == PtxType.F16X2 || t == PtxType.BF16X2) {
                FloatFormLowering.setpX2(this, x, t);
                return;
            }
            String r;
            if (t.kind() == PtxType.Kind.FLOAT) {
                if (t != PtxType.F32 && t != PtxType.F64 && t != PtxType.F16 && t != PtxType.BF16) {
                    throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
                }
                String a = readF(x.op(1), t), b = readF(x.op(2), t);
                if (x.has(Flag.FTZ)) { a = flush(a, t); b = flush(b, t); }
                String pred = fcmpPredicate(x, cmp);
                r = v("fcmp " + pred + " " + fty(t) + " " + a + ", " + b);
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
                r = v("icmp " + pred + " " + ity(bits) + " " + read(x.op(1), bits, s) + ", " + read(x.op(2), bits, s));
            } else {
                throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
            }
            String nr = v("xor i1 " + r + ", true");
            if (bool != null) {
                String c = readPred(x.op(3));
                r = v(bool + " i1 " + r + ", " + c);
                nr = v(bool + " i1 " + nr + ", " + c);
            }
            Operand d = x.op(0);
            if (d instanceof PredPair pp) {
                writePred(pp.first(), r);
                writePred(pp.second(), nr);
            } else {
                writePred(d, r);
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

        // -------------------------------------------------------------- floating point

        /** Subnormal to zero of the same sign (the {@code .ftz} modifier, PTX ISA 9.7.3). */
        String flush(String a, PtxType t) {
            if (t != PtxType.F32) return a;
            String abs = call("float", "llvm.fabs.f32", "float", "float " + a);
            String sub = v("fcmp olt float " + abs + ", 0x3810000000000000");
            String zero = call("float", "llvm.copysign.f32", "float, float", "float 0.0, float " + a);
            return v("select i1 " + sub + ", float " + zero + ", float " + a);
        }

        /** {@code .sat}: clamp to [0, 1], NaN to +0 (PTX ISA 9.7.3). */
        String sat(String a, PtxType t) {
            String ty = fty(t);
            String le0 = v("fcmp ule " + ty + " " + a + ", 0.0");       // also NaN
            String gt1 = v("fcmp ogt " + ty + " " + a + ", 1.0");
            String r = v("select i1 " + gt1 + ", " + ty + " 1.0, " + ty + " " + a);
            return v("select i1 " + le0 + ", " + ty + " 0.0, " + ty + " " + r);
        }

        /** The rounding modifier of an arithmetic instruction ({@code .rn .rz .rm .rp}, in that priority), or null. */
        Rounding rounding(Ins x) {
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

        void floatArith(Ins x, PtxType t) {
            if (t == PtxType.F16 || t == PtxType.BF16 || t == PtxType.F16X2 || t == PtxType.BF16X2) {
                halfArith(x, t);
                return;
            }
            if (t != PtxType.F32 && t != PtxType.F64) throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
            if (FloatFormLowering.f32Form(this, x, t)) return;
            Opcode op = base(x.opcode());
            String ty = fty(t);
            boolean ftz = x.has(Flag.FTZ) && t == PtxType.F32;
            Rounding rnd = rounding(x);
            if (x.has(Flag.APPROX) || x.has(Flag.FULL) || x.has(Flag.XORSIGN) || x.has(Flag.RELU) || x.has(Flag.OOB)) {
                if (op == Opcode.DIV && x.has(Flag.APPROX)) { divApprox(x, t, ftz); return; }
                throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
            }
            int n = switch (op) { case ABS, NEG -> 1; case FMA, MAD -> 3; default -> 2; };
            String[] a = new String[n];
            for (int k = 0; k < n; k++) {
                a[k] = readF(x.op(k + 1), t);
                if (ftz && !directed(rnd)) a[k] = flush(a[k], t);
            }
            String r;
            if (directed(rnd) && (op == Opcode.ADD || op == Opcode.SUB || op == Opcode.MUL || op == Opcode.FMA || op == Opcode.MAD || op == Opcode.DIV)) {
                r = directedRounding(x, t, op, rnd, ftz, a);
            } else {
                r = switch (op) {
                    case ADD -> v("fadd " + ty + " " + a[0] + ", " + a[1]);
                    case SUB -> v("fsub " + ty + " " + a[0] + ", " + a[1]);
                    case MUL -> v("fmul " + ty + " " + a[0] + ", " + a[1]);
                    case DIV -> {
                        if (rnd == null && t == PtxType.F32) throw new Unsupported(x.i.form() + " needs a rounding modifier (.rn .rz .rm .rp .approx .full)");
                        yield v("fdiv " + ty + " " + a[0] + ", " + a[1]);
                    }
                    case FMA, MAD -> {
                        if (rnd == null) throw new Unsupported(x.i.form() + " without rounding modifier is not supported");
                        yield call(ty, "llvm.fma." + sfx(t), ty + ", " + ty + ", " + ty, ty + " " + a[0] + ", " + ty + " " + a[1] + ", " + ty + " " + a[2]);
                    }
                    case MIN, MAX -> {
                        String fn = x.has(Flag.NAN) ? (op == Opcode.MIN ? "minimum" : "maximum") : (op == Opcode.MIN ? "minnum" : "maxnum");
                        yield call(ty, "llvm." + fn + "." + sfx(t), ty + ", " + ty, ty + " " + a[0] + ", " + ty + " " + a[1]);
                    }
                    case ABS -> call(ty, "llvm.fabs." + sfx(t), ty, ty + " " + a[0]);
                    case NEG -> v("fneg " + ty + " " + a[0]);
                    default -> throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
                };
            }
            if (ftz && !directed(rnd)) r = flush(r, t);
            if (ftz && (op == Opcode.ABS || op == Opcode.NEG)) {
                // abs.ftz/neg.ftz give the canonical NaN 0x7fffffff (recorded data, conformance/h200)
                String nan = v("fcmp uno float " + r + ", 0.0");
                r = v("select i1 " + nan + ", float 0x7FFFFFFFE0000000, float " + r);
            }
            if (x.has(Flag.SAT)) r = sat(r, t);
            writeF(x.op(0), r, t);
        }

        /**
         * The half-precision arithmetic both the plain and the modified lowering share ({@code add sub mul fma neg abs},
         * one LLVM operation or intrinsic on {@code ty} = {@code half}/{@code bfloat}, suffix {@code sf}); null for
         * {@code min}/{@code max}, which each caller lowers with its own modifiers.
         */
        private String halfArith(Opcode op, String ty, String sf, String[] a) {
            return switch (op) {
                case ADD -> v("fadd " + ty + " " + a[0] + ", " + a[1]);
                case SUB -> v("fsub " + ty + " " + a[0] + ", " + a[1]);
                case MUL -> v("fmul " + ty + " " + a[0] + ", " + a[1]);
                case FMA -> call(ty, "llvm.fma." + sf, ty + ", " + ty + ", " + ty, ty + " " + a[0] + ", " + ty + " " + a[1] + ", " + ty + " " + a[2]);
                case NEG -> v("fneg " + ty + " " + a[0]);
                case ABS -> call(ty, "llvm.fabs." + sf, ty, ty + " " + a[0]);
                default -> null;
            };
        }

        /**
         * f16/bf16 add, sub, mul, fma (round to nearest), neg, abs, min, max (and .NaN), scalar or packed x2
         * (each 16-bit lane on its own, PTX ISA 9.0, 9.7.4): LLVM's half and bfloat arithmetic. With
         * {@code .ftz} (add sub mul fma min max neg abs), {@code .sat} (add sub mul fma), {@code .relu} (fma) or
         * {@code .xorsign.abs} (min max) see {@link #halfModified}.
         */
        void halfArith(Ins x, PtxType t) {
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
                halfModified(x, t);
                return;
            }
            Rounding rnd = rounding(x);
            if (rnd != null && rnd != Rounding.RN) throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
            boolean pair = t == PtxType.F16X2 || t == PtxType.BF16X2;
            PtxType lane = t == PtxType.F16 || t == PtxType.F16X2 ? PtxType.F16 : PtxType.BF16;
            String ty = fty(lane), sf = sfx(lane);
            int n = switch (op) { case ABS, NEG -> 1; case FMA -> 3; case ADD, SUB, MUL, MIN, MAX -> 2;
                default -> throw new Unsupported(x.i.form() + " is not supported by the LLVM back end"); };
            if (op == Opcode.FMA && rnd == null) throw new Unsupported(x.i.form() + " without rounding modifier is not supported");
            int bits = pair ? 32 : 16;
            String[] in = new String[n];
            for (int k = 0; k < n; k++) in[k] = read(x.op(k + 1), bits, false);
            String result = null;
            for (int l = 0; l < (pair ? 2 : 1); l++) {
                String[] a = new String[n];
                for (int k = 0; k < n; k++) {
                    String h = pair ? resize(l == 0 ? in[k] : v("lshr i32 " + in[k] + ", 16"), 32, 16, false) : in[k];
                    a[k] = v("bitcast i16 " + h + " to " + ty);
                }
                String r = halfArith(op, ty, sf, a);
                if (r == null) {
                    String fn = x.has(Flag.NAN) ? (op == Opcode.MIN ? "minimum" : "maximum") : (op == Opcode.MIN ? "minnum" : "maxnum");
                    r = call(ty, "llvm." + fn + "." + sf, ty + ", " + ty, ty + " " + a[0] + ", " + ty + " " + a[1]);
                }
                String b = v("bitcast " + ty + " " + r + " to i16");
                if ((op == Opcode.NEG || op == Opcode.ABS) && (pair || target.amd())) {
                    // a NaN becomes 0x7fff (recorded data, conformance/h200)
                    String nan = v("fcmp uno " + ty + " " + r + ", " + r);
                    b = v("select i1 " + nan + ", i16 32767, i16 " + b);
                }
                result = withLane(result, b, pair, l);
            }
            write(x.op(0), result, bits, false);
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
        void halfModified(Ins x, PtxType t) {
            Opcode op = base(x.opcode());
            Rounding rnd = rounding(x);
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
            for (int k = 0; k < n; k++) in[k] = read(x.op(k + 1), bits, false);
            String result = null;
            for (int l = 0; l < (pair ? 2 : 1); l++) {
                String[] h = new String[n], a = new String[n];
                for (int k = 0; k < n; k++) {
                    h[k] = pair ? resize(l == 0 ? in[k] : v("lshr i32 " + in[k] + ", 16"), 32, 16, false) : in[k];
                    if (ftz) {
                        // a subnormal input (exponent field 0) becomes zero of its sign
                        String z = v("icmp eq i16 " + v("and i16 " + h[k] + ", " + expMask) + ", 0");
                        h[k] = v("select i1 " + z + ", i16 " + v("and i16 " + h[k] + ", -32768") + ", i16 " + h[k]);
                    }
                    a[k] = v("bitcast i16 " + h[k] + " to " + ty);
                }
                String r = halfArith(op, ty, sf, a);
                if (r == null) {
                    String fn = x.has(Flag.NAN) ? (op == Opcode.MIN ? "minimum" : "maximum") : (op == Opcode.MIN ? "minnum" : "maxnum");
                    String p = a[0], q = a[1];
                    if (xorsign) {
                        p = call(ty, "llvm.fabs." + sf, ty, ty + " " + p);
                        q = call(ty, "llvm.fabs." + sf, ty, ty + " " + q);
                    }
                    r = call(ty, "llvm." + fn + "." + sf, ty + ", " + ty, ty + " " + p + ", " + ty + " " + q);
                }
                if (ftz && n >= 2 && op != Opcode.MIN && op != Opcode.MAX) {
                    // the exact result in double (exact for two or three halves near the normal range)
                    String[] d = new String[n];
                    for (int k = 0; k < n; k++) d[k] = v("fpext " + ty + " " + a[k] + " to double");
                    String e = switch (op) {
                        case ADD -> v("fadd double " + d[0] + ", " + d[1]);
                        case SUB -> v("fsub double " + d[0] + ", " + d[1]);
                        case MUL -> v("fmul double " + d[0] + ", " + d[1]);
                        default -> v("fadd double " + v("fmul double " + d[0] + ", " + d[1]) + ", " + d[2]);
                    };
                    String tiny = v("fcmp olt double " + call("double", "llvm.fabs.f64", "double", "double " + e) + ", " + minNormal);
                    String zero = call(ty, "llvm.copysign." + sf, ty + ", " + ty, ty + " 0.0, " + ty + " " + r);
                    r = v("select i1 " + tiny + ", " + ty + " " + zero + ", " + ty + " " + r);
                }
                if (x.has(Flag.RELU)) r = v("select i1 " + v("fcmp ole " + ty + " " + r + ", 0.0") + ", " + ty + " 0.0, " + ty + " " + r);
                if (x.has(Flag.SAT)) r = sat(r, lane);
                String b = v("bitcast " + ty + " " + r + " to i16");
                if (xorsign) {
                    String sign = v("and i16 " + v("xor i16 " + h[0] + ", " + h[1]) + ", -32768");
                    b = v("or i16 " + b + ", " + sign);
                }
                String nan = v("fcmp uno " + ty + " " + r + ", " + r);
                b = v("select i1 " + nan + ", i16 32767, i16 " + b);
                result = withLane(result, b, pair, l);
            }
            write(x.op(0), result, bits, false);
        }

        /**
         * The result so far with lane {@code l}'s 16 bits {@code b} added: {@code b} itself for a scalar; for an x2
         * pair, lane 0 in bits 15..0 and lane 1 in bits 31..16 (PTX ISA 9.0, 5.2.5 packed data).
         */
        String withLane(String result, String b, boolean pair, int l) {
            if (!pair) return b;
            String w = resize(b, 16, 32, false);
            return l == 0 ? w : v("or i32 " + result + ", " + v("shl i32 " + w + ", 16"));
        }

        /** set.cmp.dtype.stype (PTX ISA 9.7.7.1): 0xffffffff or 1.0f when the comparison holds, else 0. */
        void set(Ins x) {
            PtxType d = x.type(0), s = x.type(1);
            if (d == null || s == null || x.has(BoolOp.AND) || x.has(BoolOp.OR) || x.has(BoolOp.XOR)) throw new Unsupported(x.i.form() + " is not supported");
            // the comparison as setp into a predicate of its own: set's modifiers without its destination type
            List<Mod> mods = new ArrayList<>(x.mods.list());
            mods.remove(Mod.Type.of(d));
            List<String> words = new ArrayList<>();
            for (Mod m : mods) words.add(m.text());
            Ast.Instruction src = new Ast.Instruction(null, "setp", words, List.of(), x.i.loc());
            Instr setp = new Instr(Opcode.SETP, null, false, new Modifiers(mods), List.of(new Unknown("%set.p"), x.op(1), x.op(2)), src);
            Reg tmpPred = regs.computeIfAbsent("%set.p", k -> newReg("i1", 1, PtxType.PRED));
            setp(new Ins(setp));
            String p = v("load i1, " + allocaAs() + " " + tmpPred.ptr);
            String one = d == PtxType.F32 ? "1065353216" : "-1";
            write(x.op(0), v("select i1 " + p + ", i32 " + one + ", i32 0"), 32, false);
        }

        /** mul24 / mad24 (PTX ISA 9.7.1.5-6): the 48-bit product of the low 24 bits; .lo its low 32 bits, .hi bits 16..47. */
        void mul24(Ins x) {
            PtxType t = x.type(0);
            if (t == PtxType.S32 && x.opcode() == Opcode.MAD24 && x.has(Flag.HI) && x.has(Flag.SAT) && x.mods.distinctCount() == 3) {
                // mad24.hi.sat.s32 (PTX ISA 9.0, mad24): bits 47..16 of the 48-bit product of a's and b's low 24 bits
                // (signed), plus c, saturated to .s32
                String a = resize(v("trunc i32 " + read(x.op(1), 32, false) + " to i24"), 24, 64, true);
                String b = resize(v("trunc i32 " + read(x.op(2), 32, false) + " to i24"), 24, 64, true);
                String hi = resize(v("ashr i64 " + v("mul i64 " + a + ", " + b) + ", 16"), 64, 32, false);
                write(x.op(0), call("i32", "llvm.sadd.sat.i32", "i32, i32", "i32 " + hi + ", i32 " + read(x.op(3), 32, false)), 32, false);
                return;
            }
            if (t == null || t.size() != 4 || x.has(Flag.SAT)) throw new Unsupported(x.i.form() + " is not supported");
            boolean s = t.kind() == PtxType.Kind.SIGNED;
            String a = read(x.op(1), 32, false), b = read(x.op(2), 32, false);
            String a24 = v("trunc i32 " + a + " to i24"), b24 = v("trunc i32 " + b + " to i24");
            String a64 = resize(a24, 24, 64, s), b64 = resize(b24, 24, 64, s);
            String p = v("mul i64 " + a64 + ", " + b64);
            String r = x.has(Flag.HI) ? resize(v("lshr i64 " + p + ", 16"), 64, 32, false) : resize(p, 64, 32, false);
            if (x.opcode() == Opcode.MAD24) r = v("add i32 " + r + ", " + read(x.op(3), 32, false));
            write(x.op(0), r, 32, false);
        }

        boolean directed(Rounding rnd) {
            return rnd != null && rnd != Rounding.RN;
        }

        /**
         * add/sub/mul/fma/div with .rz/.rm/.rp: NVPTX has them as intrinsics; elsewhere ({@code !nvvmMath()}) they
         * are lowered in target-neutral IR by {@link SoftRounding}.
         */
        String directedRounding(Ins x, PtxType t, Opcode op, Rounding rnd, boolean ftz, String[] a) {
            if (!target.nvvmMath()) return new SoftRounding(new SoftRounding.Ir() {
                public String v(String rhs) { return Fn.this.v(rhs); }
                public String call(String r, String fn, String decl, String args) { return Fn.this.call(r, fn, decl, args); }
            }).lower(op, t, rnd, ftz, a);
            String ty = fty(t);
            String suffix = nvvm(rnd) + (ftz ? ".ftz" : "") + (t == PtxType.F32 ? ".f" : ".d");
            return switch (op) {
                case ADD -> call(ty, "llvm.nvvm.add." + suffix, ty + ", " + ty, ty + " " + a[0] + ", " + ty + " " + a[1]);
                case SUB -> {
                    String nb = v("fneg " + ty + " " + a[1]);
                    yield call(ty, "llvm.nvvm.add." + suffix, ty + ", " + ty, ty + " " + a[0] + ", " + ty + " " + nb);
                }
                case MUL -> call(ty, "llvm.nvvm.mul." + suffix, ty + ", " + ty, ty + " " + a[0] + ", " + ty + " " + a[1]);
                case DIV -> call(ty, "llvm.nvvm.div." + suffix, ty + ", " + ty, ty + " " + a[0] + ", " + ty + " " + a[1]);
                default -> call(ty, "llvm.nvvm.fma." + suffix, ty + ", " + ty + ", " + ty, ty + " " + a[0] + ", " + ty + " " + a[1] + ", " + ty + " " + a[2]);
            };
        }

        void divApprox(Ins x, PtxType t, boolean ftz) {
            if (t != PtxType.F32) throw new Unsupported(x.i.form() + " is not supported");
            String a = readF(x.op(1), t), b = readF(x.op(2), t);
            String r;
            if (!target.amd()) {
                r = call("float", "llvm.nvvm.div.approx" + (ftz ? ".ftz" : "") + ".f", "float, float", "float " + a + ", float " + b);
            } else {
                throw new Unsupported(x.i.form() + " is not supported on AMD GPUs yet");
            }
            writeF(x.op(0), r, t);
        }

        void unaryFloat(Ins x) {
            if (FloatFormLowering.approx(this, x)) return;
            PtxType t = x.type(0);
            if (t != PtxType.F32 && t != PtxType.F64) throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
            Opcode op = x.opcode();
            String ty = fty(t);
            boolean ftz = x.has(Flag.FTZ) && t == PtxType.F32;
            Rounding rnd = rounding(x);
            String a = readF(x.op(1), t);
            String r;
            if (x.has(Flag.APPROX)) {
                if (target.amd()) throw new Unsupported(x.i.form() + " (.approx) is not supported on AMD GPUs yet");
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
                r = call(ty, "llvm.nvvm." + base, ty, ty + " " + a);
            } else {
                if (rnd == null || !(op == Opcode.RCP || op == Opcode.SQRT)) throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
                if (directed(rnd)) {
                    if (!target.nvvmMath()) {
                        r = directedRounding(x, t, op, rnd, ftz, new String[] {a});
                    } else {
                        String suffix = nvvm(rnd) + (ftz ? ".ftz" : "") + (t == PtxType.F32 ? ".f" : ".d");
                        r = call(ty, "llvm.nvvm." + (op == Opcode.RCP ? "rcp" : "sqrt") + "." + suffix, ty, ty + " " + a);
                    }
                } else {
                    if (ftz) a = flush(a, t);
                    r = op == Opcode.RCP ? v("fdiv " + ty + " 1.0, " + a) : call(ty, "llvm.sqrt." + sfx(t), ty, ty + " " + a);
                    if (ftz) r = flush(r, t);
                }
            }
            writeF(x.op(0), r, t);
        }

        void copysign(Ins x) {
            PtxType t = x.type(0);
            if (t != PtxType.F32 && t != PtxType.F64) throw new Unsupported(x.i.form() + " is not supported");
            String ty = fty(t);
            // copysign d, a, b: b's magnitude with a's sign (PTX ISA 9.7.3.3)
            String a = readF(x.op(1), t), b = readF(x.op(2), t);
            writeF(x.op(0), call(ty, "llvm.copysign." + sfx(t), ty + ", " + ty, ty + " " + b + ", " + ty + " " + a), t);
        }

        void testp(Ins x) {
            PtxType t = x.type(0);
            if (t != PtxType.F32 && t != PtxType.F64) throw new Unsupported(x.i.form() + " is not supported");
            int bits = t.size() * 8;
            String ty = ity(bits);
            String b = read(x.op(1), bits, false);
            long absMask = bits == 32 ? 0x7fffffffL : Long.MAX_VALUE;
            long inf = bits == 32 ? 0x7f800000L : 0x7ff0000000000000L;
            long minNormal = bits == 32 ? 0x00800000L : 0x0010000000000000L;
            String abs = v("and " + ty + " " + b + ", " + absMask);
            if (!(x.mods.get(0) instanceof TestClass tc)) throw new Unsupported(x.i.form() + " is not supported");
            String r = switch (tc) {
                case FINITE -> v("icmp ult " + ty + " " + abs + ", " + inf);
                case INFINITE -> v("icmp eq " + ty + " " + abs + ", " + inf);
                case NUMBER -> v("icmp ule " + ty + " " + abs + ", " + inf);
                case NOTANUMBER -> v("icmp ugt " + ty + " " + abs + ", " + inf);
                // ±0 count as normal on an H200 (recorded data, conformance/h200)
                case NORMAL -> v("and i1 " + v("icmp ult " + ty + " " + abs + ", " + inf) + ", "
                        + v("or i1 " + v("icmp uge " + ty + " " + abs + ", " + minNormal) + ", " + v("icmp eq " + ty + " " + abs + ", 0")));
                case SUBNORMAL -> v("and i1 " + v("icmp ne " + ty + " " + abs + ", 0") + ", " + v("icmp ult " + ty + " " + abs + ", " + minNormal));
            };
            writePred(x.op(0), r);
        }

        // -------------------------------------------------------------- conversions

        /** Rounding conversions in plain integer IR ({@link CvtRounding}), emitted into this function. */
        final CvtRounding cvtRounding = new CvtRounding(new CvtRounding.Ir() {
            @Override public String v(String rhs) { return Fn.this.v(rhs); }
            @Override public String call(String retTy, String fn, String argDecl, String args) { return Fn.this.call(retTy, fn, argDecl, args); }
        });

        /** The rounding modifiers the general cvt lowering takes, in the order the last one written wins. */
        static final List<Rounding> CVT_ROUNDING = List.of(Rounding.RN, Rounding.RZ, Rounding.RM, Rounding.RP, Rounding.RNI,
                Rounding.RZI, Rounding.RMI, Rounding.RPI);

        void cvt(Ins x) {
            PtxType d = x.type(0), s = x.type(1);
            if (d == null || s == null) throw new Unsupported(x.i.form() + " is not supported");
            boolean di = isInt(d), si = isInt(s);
            boolean ftz = x.has(Flag.FTZ);
            if (x.has(Flag.PACK)) {
                cvtPack(x);
                return;
            }
            if (isFp8(d) || isFp8(s)) {
                cvtFp8(x, d, s);
                return;
            }
            if (x.has(Rounding.RNA) || x.has(Flag.RELU) || x.has(Flag.SATFINITE) || d == PtxType.F16X2 || d == PtxType.BF16X2 || d == PtxType.TF32) {
                cvtRounded16(x, d, s);
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
                String a = read(x.op(1), sbits, ss);
                String r;
                if (x.has(Flag.SAT)) {
                    // clamp the source value to the destination's range
                    int w = 72;
                    String wide = resize(a, sbits, w, ss);
                    long lo = ds ? -(1L << (dbits - 1)) : 0;
                    String hiC = ds ? Long.toString((1L << (dbits - 1)) - 1) : dbits == 64 ? "18446744073709551615" : Long.toString((1L << dbits) - 1);
                    String c1 = call("i72", "llvm.smax.i72", "i72, i72", "i72 " + wide + ", i72 " + lo);
                    String c2 = call("i72", "llvm.smin.i72", "i72, i72", "i72 " + c1 + ", i72 " + hiC);
                    r = resize(c2, w, dbits, false);
                } else {
                    r = resize(a, sbits, dbits, ss);
                }
                writeCvtInt(x.op(0), r, dbits, ds);
                return;
            }
            if (!si && !di) {
                if (!isFloatType(d) || !isFloatType(s)) throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
                String a = readF(x.op(1), s);
                if (ftz && s == PtxType.F32) a = flush(a, s);
                String r;
                if (d == s && rnd == null && x.has(Flag.SAT)) {
                    r = a;                                   // cvt.sat.f32.f32: only the clamp (and .ftz)
                } else if (d == s) {
                    if (rnd == null) throw new Unsupported(x.i.form() + " needs an integer rounding modifier");
                    String fn = switch (rnd) { case RNI -> "roundeven"; case RZI -> "trunc"; case RMI -> "floor"; case RPI -> "ceil";
                        default -> throw new Unsupported(x.i.form() + " is not supported"); };
                    r = call(fty(d), "llvm." + fn + "." + sfx(d), fty(d), fty(d) + " " + a);
                } else if (d.size() > s.size()) {
                    if (rnd != null) throw new Unsupported(x.i.form() + ": a widening conversion takes no rounding modifier");
                    r = v("fpext " + fty(s) + " " + a + " to " + fty(d));
                    if (ftz && s == PtxType.F32 && d == PtxType.F64) {
                        // with .ftz an H200 gives the canonical f32 NaN widened (recorded data, conformance/h200)
                        String nan = v("fcmp uno double " + r + ", 0.0");
                        r = v("select i1 " + nan + ", double 0x7FFFFFFFE0000000, double " + r);
                    }
                } else {
                    if (rnd == null) throw new Unsupported(x.i.form() + " needs a rounding modifier");
                    if (rnd == Rounding.RN) {
                        if (s.size() == d.size()) {
                            // f16 <-> bf16: exact to f32, then one rounding
                            a = v("fpext " + fty(s) + " " + a + " to float");
                            r = v("fptrunc float " + a + " to " + fty(d));
                        } else {
                            r = v("fptrunc " + fty(s) + " " + a + " to " + fty(d));
                        }
                    } else if (target.nvvmMath() && s == PtxType.F64 && d == PtxType.F32 && !rnd.integral()) {
                        r = call("float", "llvm.nvvm.d2f." + nvvm(rnd) + (ftz ? ".ftz" : ""), "double", "double " + a);
                    } else if (CvtRounding.mode(rnd) && s.size() > d.size() && (s == PtxType.F32 || s == PtxType.F64)) {
                        // directed f32/f64 -> f16/bf16 (every target), f64 -> f32 (where NVPTX's intrinsics are not used)
                        String bits = cvtRounding.fromFloat(read(x.op(1), sbits, false), CvtRounding.Format.of(s), CvtRounding.Format.of(d),
                                rnd, false, s == PtxType.F32);
                        r = v("bitcast " + ity(dbits) + " " + resize(bits, 64, dbits, false) + " to " + fty(d));
                    } else {
                        throw new Unsupported(x.i.form() + ": rounding mode " + rnd.text() + " is not supported" + (target.amd() ? " on AMD GPUs (only .rn)" : ""));
                    }
                }
                if (ftz && d == PtxType.F32) r = flush(r, d);
                if (x.has(Flag.SAT)) r = sat(r, d);
                writeF(x.op(0), r, d);
                return;
            }
            if (!si) {
                // float to integer: round as asked, then saturate; NaN gives 0 (PTX ISA 9.7.9.21)
                boolean bf64 = s == PtxType.BF16 && dbits == 64 && !ftz && !x.has(Flag.SAT);
                if (!isFloatType(s) || (s == PtxType.BF16 && !bf64)) throw new Unsupported(x.i.form() + " is not supported");
                String a = readF(x.op(1), s);
                if (bf64) {
                    // bf16 to a 64-bit integer: exact in f32, rounded there as asked
                    a = v("fpext bfloat " + a + " to float");
                    s = PtxType.F32;
                }
                if (ftz && s == PtxType.F32) a = flush(a, s);
                if (rnd == null) throw new Unsupported(x.i.form() + " needs an integer rounding modifier");
                String fn = switch (rnd) { case RNI -> "roundeven"; case RZI -> "trunc"; case RMI -> "floor"; case RPI -> "ceil";
                    default -> throw new Unsupported(x.i.form() + ": float to integer takes .rni .rzi .rmi .rpi"); };
                String rounded = call(fty(s), "llvm." + fn + "." + sfx(s), fty(s), fty(s) + " " + a);
                String it = ity(dbits);
                boolean f64 = s == PtxType.F64;
                if (s == PtxType.F16) {
                    rounded = v("fpext half " + rounded + " to float");
                    s = PtxType.F32;
                }
                String r = call(it, "llvm.fpto" + (ds ? "s" : "u") + "i.sat." + it + "." + sfx(s), fty(s), fty(s) + " " + rounded);
                if (f64 || dbits == 64) {
                    // NaN (measured on an H200): from .f64 the most negative signed value of the destination's width,
                    // also for unsigned destinations; into 64 bits 1 << 63 (fptoi.sat gives 0, as from narrower formats)
                    String nan = v("fcmp uno " + fty(s) + " " + rounded + ", 0.0");
                    r = v("select i1 " + nan + ", " + it + " " + constant(1L << (dbits - 1), dbits) + ", " + it + " " + r);
                }
                writeCvtInt(x.op(0), r, dbits, ds);
                return;
            }
            // integer to float
            if (d == PtxType.BF16 && sbits == 64 && rnd != null && !rnd.integral() && x.mods.size() == 3) {
                writeF(x.op(0), i64ToBf16(read(x.op(1), 64, false), ss, rnd), d);
                return;
            }
            if (CvtRounding.mode(rnd) && directed(rnd) && (d == PtxType.F16 || (!target.nvvmMath() && (d == PtxType.F32 || d == PtxType.F64)))) {
                // directed integer -> f16 (every target), -> f32/f64 (where NVPTX's intrinsics are not used)
                String bits = cvtRounding.fromInt(resize(read(x.op(1), sbits, ss), sbits, 64, ss), ss, CvtRounding.Format.of(d), rnd);
                String r = v("bitcast " + ity(dbits) + " " + resize(bits, 64, dbits, false) + " to " + fty(d));
                if (x.has(Flag.SAT)) r = sat(r, d);
                writeF(x.op(0), r, d);
                return;
            }
            if (!isFloatType(d) || d == PtxType.BF16) throw new Unsupported(x.i.form() + " is not supported");
            String a = read(x.op(1), sbits, ss);
            String r;
            if (rnd == null || rnd == Rounding.RN) {
                if (rnd == null) throw new Unsupported(x.i.form() + " needs a rounding modifier");
                r = v((ss ? "sitofp " : "uitofp ") + ity(sbits) + " " + a + " to " + fty(d));
            } else if (!target.amd() && (d == PtxType.F32 || d == PtxType.F64) && sbits <= 64 && !rnd.integral()) {
                if (sbits < 32) {                            // 8- and 16-bit values convert exactly through 32 bits
                    a = resize(a, sbits, 32, ss);
                    sbits = 32;
                }
                String src = sbits == 32 ? (ss ? "i" : "ui") : (ss ? "ll" : "ull");
                String dst = d == PtxType.F32 ? "f" : "d";
                r = call(fty(d), "llvm.nvvm." + src + "2" + dst + "." + nvvm(rnd), ity(sbits), ity(sbits) + " " + a);
            } else {
                throw new Unsupported(x.i.form() + ": rounding mode " + rnd.text() + " is not supported" + (target.amd() ? " on AMD GPUs (only .rn)" : ""));
            }
            if (x.has(Flag.SAT)) r = sat(r, d);
            writeF(x.op(0), r, d);
        }

        /**
         * {@code cvt.{rn,rz,rm,rp}.bf16.{s64,u64}} (PTX ISA 9.0, 9.7.9.21): the 64-bit integer {@code a} rounded once to
         * bf16 in the given mode ({@link CvtRounding#fromInt}); 0 gives +0. Returns the result as {@code bfloat}.
         */
        String i64ToBf16(String a, boolean signed, Rounding rnd) {
            String bits = cvtRounding.fromInt(a, signed, CvtRounding.Format.BF16, rnd);
            return v("bitcast i16 " + resize(bits, 64, 16, false) + " to bfloat");
        }

        /**
         * {@code cvt.pack.sat.T.s32.b32 d, a, b, c} for T = u8, s8 and {@code cvt.pack.sat.T.s32 d, a, b} for T = u16,
         * s16 (PTX ISA 9.0, 9.7.9.22): a and b (s32) are clamped to T's range; 8-bit T gives
         * d = c[15:0] << 16 | a << 8 | b, 16-bit T gives d = a << 16 | b. Plain integer IR, the same for every target.
         */
        void cvtPack(Ins x) {
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
                String a = read(x.op(k + 1), 32, true);
                String c1 = call("i32", "llvm.smax.i32", "i32, i32", "i32 " + a + ", i32 " + lo);
                String c2 = call("i32", "llvm.smin.i32", "i32, i32", "i32 " + c1 + ", i32 " + hi);
                v[k] = v("and i32 " + c2 + ", " + ((1L << bits) - 1));
            }
            String r = v("or i32 " + v("shl i32 " + v[0] + ", " + bits) + ", " + v[1]);
            if (byte8) {
                String c = read(x.op(3), 32, false);
                r = v("or i32 " + r + ", " + v("shl i32 " + c + ", 16"));
            }
            write(x.op(0), r, 32, false);
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
        void cvtRounded16(Ins x, PtxType d, PtxType s) {
            boolean relu = x.has(Flag.RELU), satfinite = x.has(Flag.SATFINITE);
            if (d == PtxType.TF32 && s == PtxType.F32 && (x.has(Rounding.RN) || x.has(Rounding.RZ)) && !satfinite && x.types.size() == 2
                    && x.mods.size() == (relu ? 4 : 3) && x.i.arity() == 2) {
                write(x.op(0), cvtRounding.tf32(read(x.op(1), 32, false), x.has(Rounding.RN) ? Rounding.RN : Rounding.RZ, relu), 32, false);
                return;
            }
            if (d == PtxType.TF32 && s == PtxType.F32 && x.has(Rounding.RNA) && !relu && x.types.size() == 2
                    && x.mods.size() == (satfinite ? 4 : 3) && x.i.arity() == 2) {
                String a = read(x.op(1), 32, false);
                String nan = v("fcmp uno float " + v("bitcast i32 " + a + " to float") + ", 0.0");
                String rounded = v("add i32 " + a + ", 4096");
                String t = v("and i32 " + v("select i1 " + nan + ", i32 " + a + ", i32 " + rounded) + ", -8192");
                if (satfinite) {
                    String big = v("icmp uge i32 " + v("and i32 " + t + ", 2147483647") + ", 2139095040");
                    t = v("select i1 " + big + ", i32 " + v("sub i32 " + t + ", 8192") + ", i32 " + t);
                }
                write(x.op(0), t, 32, false);
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
                    String a = read(x.op(k), 32, false);
                    if (relu) a = v("select i1 " + v("icmp ugt i32 " + a + ", 2147483647") + ", i32 "
                            + v("select i1 " + v("icmp ule i32 " + a + ", 4286578688") + ", i32 0, i32 " + a) + ", i32 " + a);
                    String b = resize(cvtRounding.fromFloat(a, CvtRounding.Format.F32, CvtRounding.Format.of(lane), Rounding.RZ, satfinite, true), 64, 16, false);
                    String w = resize(b, 16, 32, false);
                    result = k == 1 ? v("shl i32 " + w + ", 16") : v("or i32 " + result + ", " + w);
                    continue;
                }
                String r = v("fptrunc float " + readF(x.op(k), PtxType.F32) + " to " + ty);
                if (relu) r = v("select i1 " + v("fcmp ole " + ty + " " + r + ", 0.0") + ", " + ty + " 0.0, " + ty + " " + r);
                String b = v("bitcast " + ty + " " + r + " to i16");
                if (satfinite) {
                    // infinity minus one in the bits is the largest finite value of the same sign
                    String isInf = v("icmp eq i16 " + v("and i16 " + b + ", 32767") + ", " + inf);
                    b = v("select i1 " + isInf + ", i16 " + v("sub i16 " + b + ", 1") + ", i16 " + b);
                }
                b = v("select i1 " + v("fcmp uno " + ty + " " + r + ", 0.0") + ", i16 32767, i16 " + b);
                if (!pair) result = b;
                else {
                    String w = resize(b, 16, 32, false);
                    result = k == 1 ? v("shl i32 " + w + ", 16") : v("or i32 " + result + ", " + w);
                }
            }
            write(x.op(0), result, pair ? 32 : 16, false);
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
        void cvtFp8(Ins x, PtxType d, PtxType s) {
            boolean relu = x.has(Flag.RELU), satfinite = x.has(Flag.SATFINITE);
            boolean toFp8 = isFp8(d) && (s == PtxType.F32 || s == PtxType.F16X2), fromFp8 = d == PtxType.F16X2 && isFp8(s);
            if (!x.has(Rounding.RN) || x.types.size() != 2 || (!toFp8 && !fromFp8) || satfinite != toFp8
                    || x.mods.size() != 3 + (relu ? 1 : 0) + (satfinite ? 1 : 0)
                    || x.i.arity() != (toFp8 && s == PtxType.F32 ? 3 : 2)) {
                throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
            }
            boolean e4 = (toFp8 ? d : s) == PtxType.E4M3X2;
            if (fromFp8) {
                String a = read(x.op(1), 16, false);
                String result = null;
                for (int k = 1; k >= 0; k--) {
                    String b = k == 1 ? v("lshr i16 " + a + ", 8") : a;
                    b = v("and i16 " + b + ", 255");
                    String mag = v("and i16 " + b + ", 127");
                    String neg = v("icmp uge i16 " + b + ", 128");
                    String nan, h;
                    if (e4) {
                        nan = v("icmp eq i16 " + mag + ", 127");
                        // normal: the exponent rebiased from 7 to 15; subnormal m * 2^-9 through f32's bits
                        String normal = v("add i16 " + v("shl i16 " + mag + ", 7") + ", 8192");
                        String f = v("bitcast float " + v("uitofp i16 " + mag + " to float") + " to i32");
                        String sub = v("trunc i32 " + v("sub i32 " + v("lshr i32 " + f + ", 13") + ", 123904") + " to i16");
                        sub = v("select i1 " + v("icmp eq i16 " + mag + ", 0") + ", i16 0, i16 " + sub);
                        h = v("select i1 " + v("icmp ult i16 " + mag + ", 8") + ", i16 " + sub + ", i16 " + normal);
                        h = v("or i16 " + h + ", " + v("select i1 " + neg + ", i16 -32768, i16 0"));
                    } else {
                        nan = v("icmp ugt i16 " + mag + ", 124");
                        h = v("shl i16 " + b + ", 8");
                    }
                    if (relu) h = v("select i1 " + neg + ", i16 0, i16 " + h);
                    h = v("select i1 " + nan + ", i16 32767, i16 " + h);
                    String w = resize(h, 16, 32, false);
                    result = k == 1 ? v("shl i32 " + w + ", 16") : v("or i32 " + result + ", " + w);
                }
                write(x.op(0), result, 32, false);
                return;
            }
            String[] in = new String[2];
            if (s == PtxType.F32) {
                in[0] = read(x.op(1), 32, false);
                in[1] = read(x.op(2), 32, false);
            } else {
                String a = read(x.op(1), 32, false);
                for (int k = 0; k < 2; k++) {
                    String half = v("trunc i32 " + (k == 0 ? v("lshr i32 " + a + ", 16") : a) + " to i16");
                    in[k] = v("bitcast float " + v("fpext half " + v("bitcast i16 " + half + " to half") + " to float") + " to i32");
                }
            }
            long minNormal = e4 ? 0x3c800000L : 0x38800000L;         // 2^-6, 2^-14
            String scale = e4 ? "0x4080000000000000" : "0x40F0000000000000"; // 2^9, 2^16: the subnormal quantum's inverse
            int shift = e4 ? 20 : 21, rebias = e4 ? (127 - 7) << 3 : (127 - 15) << 2, max = e4 ? 0x7e : 0x7b;
            String result = null;
            for (int k = 0; k < 2; k++) {
                String a = in[k];
                String mag = v("and i32 " + a + ", 2147483647");
                String neg = v("icmp slt i32 " + a + ", 0");
                String nan = v("icmp ugt i32 " + mag + ", 2139095040");
                // subnormal results: |a| scaled so that the quantum is 1, rounded to an integer (an f32 subnormal gives 0)
                String scaled = v("fmul float " + v("bitcast i32 " + mag + " to float") + ", " + scale);
                String sub = v("fptoui float " + call("float", "llvm.roundeven.f32", "float", "float " + scaled) + " to i32");
                // normal results: the f32 bits rounded to nearest even at the fp8 mantissa, rebiased; past max saturated
                String odd = v("and i32 " + v("lshr i32 " + mag + ", " + shift) + ", 1");
                String r = v("lshr i32 " + v("add i32 " + v("add i32 " + mag + ", " + ((1 << (shift - 1)) - 1)) + ", " + odd) + ", " + shift);
                String normal = call("i32", "llvm.umin.i32", "i32, i32", "i32 " + v("sub i32 " + r + ", " + rebias) + ", i32 " + max);
                String bits = v("select i1 " + v("icmp ult i32 " + mag + ", " + minNormal) + ", i32 " + sub + ", i32 " + normal);
                bits = v("or i32 " + bits + ", " + v("select i1 " + neg + ", i32 128, i32 0"));
                if (relu) bits = v("select i1 " + neg + ", i32 0, i32 " + bits);
                bits = v("select i1 " + nan + ", i32 127, i32 " + bits);
                result = k == 0 ? v("shl i32 " + bits + ", 8") : v("or i32 " + result + ", " + bits);
            }
            write(x.op(0), resize(result, 32, 16, false), 16, false);
        }

        /** An integer result of cvt: 8-bit destinations are extended to the register by their own signedness. */
        void writeCvtInt(Operand dst, String r, int dbits, boolean ds) {
            write(dst, r, dbits, ds);
        }

        void cvta(Ins x) {
            // cvta.space.size d, a (generic from space) / cvta.to.space.size d, a (space from generic)
            boolean to = x.has(Flag.TO);
            StateSpace space = null;
            for (StateSpace m : x.mods.all(StateSpace.class)) if (spaceOf(m) != 0 && spaceOf(m) != 101) space = m;
            PtxType t = x.type(0);
            if (space == null || t == null) throw new Unsupported(x.i.form() + " is not supported");
            int bits = t.size() * 8;
            int as = spaceOf(space);
            String a = read(x.op(1), bits, false);
            if (as == 1) {                       // global and generic addresses are equal
                write(x.op(0), a, bits, false);
                return;
            }
            String r;
            if (to) {
                String p = v("inttoptr " + ity(bits) + " " + a + " to ptr");
                String q = v("addrspacecast ptr " + p + " to " + as(as));
                r = v("ptrtoint " + as(as) + " " + q + " to " + ity(bits));
            } else {
                String p = v("inttoptr " + ity(bits) + " " + a + " to " + as(as));
                String q = v("addrspacecast " + as(as) + " " + p + " to ptr");
                r = v("ptrtoint ptr " + q + " to " + ity(bits));
            }
            write(x.op(0), r, bits, false);
        }

        // -------------------------------------------------------------- memory

        int space(Ins x) {
            for (StateSpace m : x.mods.all(StateSpace.class)) {
                int s = spaceOf(m);
                if (s != 0 || m == StateSpace.GENERIC) return s;
            }
            return 0;
        }

        /** The address of {@code [a]} as a pointer into address space {@code as}. */
        String address(Operand op, int as) {
            if (op instanceof Malformed m && m.address() && m.source() instanceof Ast.AddressOperand ao) {
                Ast.Operand e = ao.elements().getFirst();
                while (e instanceof Ast.Paren p) e = p.inner();
                throw new Unsupported("operand is not supported: " + e);
            }
            if (!(op instanceof Address ad)) throw new Unsupported("address operand expected");
            long off = ad.offset();
            String n = ad.base() == null ? null : name(ad.base());
            String p;
            if (n != null && reg(n) == null && !n.startsWith("%")) {
                Global g = symbol(n);
                if (g == null) throw new Unsupported("unknown name " + n);
                p = g.ptr;
                int gs = g.space;
                if (as == 101) as = gs;          // ld.param: wherever the parameter lives
                if (gs != as) {
                    if (as != 0) throw new Unsupported(n + " is not in this state space");
                    p = v("addrspacecast " + as(gs) + " " + p + " to ptr");
                }
            } else {
                if (as == 101) throw new Unsupported("ld.param/st.param through a register is not supported");
                Reg r = n != null ? reg(n) : null;
                int bits = r != null ? r.bits : 64;
                String a;
                if (ad.base() == null) {
                    a = constant(off, bits);    // an absolute address
                    off = 0;
                } else {
                    a = read(ad.base(), bits, false);
                }
                p = v("inttoptr " + ity(bits) + " " + a + " to " + as(as));
            }
            if (off != 0) p = v("getelementptr i8, " + as(as) + " " + p + ", i64 " + off);
            return as + ":" + p;
        }

        /** The elements of a data operand as {@link dev.zluda.ptx.ir.pass.VectorOperands} placed them; a scalar is one at 0. */
        List<Lane> lanes(Operand o, int bits) {
            return o instanceof Vec v ? v.lanes() : List.of(new Lane(o, bits, 0));
        }

        void ld(Ins x) {
            int as = space(x);
            PtxType t = x.type(0);
            if (t == null || x.has(MemOrder.ACQUIRE) || x.has(MemOrder.RELAXED) || x.has(MemOrder.MMIO)) throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
            String ap = address(x.op(1), as);
            int pas = Integer.parseInt(ap.substring(0, ap.indexOf(':')));
            String p = ap.substring(ap.indexOf(':') + 1);
            boolean vol = x.has(MemOrder.VOLATILE);
            int bits = t.size() * 8;
            boolean s = t.kind() == PtxType.Kind.SIGNED;
            List<Lane> dsts = lanes(x.op(0), bits);
            for (int k = 0; k < dsts.size(); k++) {
                Lane l = dsts.get(k);
                String q = k == 0 ? p : v("getelementptr i8, " + as(pas) + " " + p + ", i64 " + l.offset());
                String val = v("load " + (vol ? "volatile " : "") + ity(bits) + ", " + as(pas) + " " + q + ", align " + (k == 0 ? t.size() * dsts.size() : t.size()));
                if (t == PtxType.PRED) throw new Unsupported("ld of .pred");
                write(l.value(), val, bits, s);
            }
        }

        void st(Ins x) {
            int as = space(x);
            PtxType t = x.type(0);
            if (t == null || x.has(MemOrder.RELEASE) || x.has(MemOrder.RELAXED) || x.has(MemOrder.MMIO)) throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
            String ap = address(x.op(0), as);
            int pas = Integer.parseInt(ap.substring(0, ap.indexOf(':')));
            String p = ap.substring(ap.indexOf(':') + 1);
            boolean vol = x.has(MemOrder.VOLATILE);
            int bits = t.size() * 8;
            List<Lane> srcs = lanes(x.op(1), bits);
            for (int k = 0; k < srcs.size(); k++) {
                Lane l = srcs.get(k);
                String q = k == 0 ? p : v("getelementptr i8, " + as(pas) + " " + p + ", i64 " + l.offset());
                String val = read(l.value(), bits, false);
                line("store " + (vol ? "volatile " : "") + ity(bits) + " " + val + ", " + as(pas) + " " + q + ", align " + (k == 0 ? t.size() * srcs.size() : t.size()));
            }
        }

        /** The operations of atom and red, in the order the last one written wins. */
        static final List<ReduceOp> ATOM_OPS = List.of(ReduceOp.ADD, ReduceOp.MIN, ReduceOp.MAX, ReduceOp.EXCH, ReduceOp.CAS,
                ReduceOp.AND, ReduceOp.OR, ReduceOp.XOR, ReduceOp.INC, ReduceOp.DEC);

        void atom(Ins x) {
            boolean red = x.opcode() == Opcode.RED || x.opcode() == Opcode.RED_ASYNC;
            int as = space(x);
            if (as != 0 && as != 1 && as != 3) throw new Unsupported(x.i.form() + ": atomics in this state space are not supported");
            PtxType t = x.type(0);
            Mod.Scope scope = x.has(Mod.Scope.CTA) ? Mod.Scope.CTA : x.has(Mod.Scope.SYS) ? Mod.Scope.SYS : Mod.Scope.GPU;
            String order = x.has(MemOrder.ACQUIRE) ? "acquire" : x.has(MemOrder.RELEASE) ? "release" : x.has(MemOrder.ACQ_REL) ? "acq_rel" : "monotonic";
            ReduceOp op = null;
            for (ReduceOp m : ATOM_OPS) if (x.has(m)) op = m;
            if (op == ReduceOp.ADD && WarpAtomicLowering.halfType(t)) {
                WarpAtomicLowering.halfAdd(this, x, as, scope, order);
                return;
            }
            if (op == null || t == null || x.has(Flag.NOFTZ) && t != PtxType.F32 || t.size() > 8 || x.has(V2) || x.has(V4)) {
                throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
            }
            int bits = t.size() * 8;
            if (bits < 32) throw new Unsupported(x.i.form() + ": 16-bit atomics are not supported");
            boolean fl = t.kind() == PtxType.Kind.FLOAT, s = t.kind() == PtxType.Kind.SIGNED;
            int base = red ? 0 : 1;
            String ap = address(x.op(base), as);
            int pas = Integer.parseInt(ap.substring(0, ap.indexOf(':')));
            String p = ap.substring(ap.indexOf(':') + 1);
            String ss = target.syncScope(scope);
            String ty = fl ? fty(t) : ity(bits);
            String res;
            if (op == ReduceOp.CAS) {
                String cmp = read(x.op(base + 1), bits, false), nv = read(x.op(base + 2), bits, false);
                String pair = v("cmpxchg " + as(pas) + " " + p + ", " + ity(bits) + " " + cmp + ", " + ity(bits) + " " + nv + ss + " "
                        + order + " " + (order.equals("release") || order.equals("monotonic") ? "monotonic" : "acquire"));
                res = v("extractvalue {" + ity(bits) + ", i1} " + pair + ", 0");
                if (!red) write(x.op(0), res, bits, false);
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
            String val = fl ? readF(x.op(base + 1), t) : read(x.op(base + 1), bits, s);
            if (fl && rmw.equals("xchg")) { ty = ity(bits); val = v("bitcast " + fty(t) + " " + val + " to " + ty); }
            res = v("atomicrmw " + rmw + " " + as(pas) + " " + p + ", " + ty + " " + val + ss + " " + order);
            if (!red) {
                if (fl && rmw.equals("fadd")) writeF(x.op(0), res, t);
                else write(x.op(0), res, bits, s);
            }
        }

        void bar(Ins x) {
            boolean bar = x.opcode() == Opcode.BAR || x.opcode() == Opcode.BAR_WARP_SYNC;
            boolean sync = x.has(Flag.SYNC) || (bar && x.mods.size() == 0);
            if (bar && x.has(Flag.WARP) && x.has(Flag.SYNC)) {
                if (!target.amd()) call("void", "llvm.nvvm.bar.warp.sync", "i32", "i32 " + read(x.op(0), 32, false));
                else {
                    requireWave32(x.i.form());
                    call("void", "llvm.amdgcn.wave.barrier", "", "");
                }
                return;
            }
            if (!sync || x.i.arity() != 1 || !"0".equals(constStr(x.op(0))) || x.has(Flag.ALIGNED) && false) {
                throw new Unsupported(x.i.form() + " is supported only as bar.sync 0 / barrier.sync 0 (all threads of the block)");
            }
            barrier();
        }

        String constStr(Operand op) {
            return op instanceof IntImm c ? Long.toString(c.value()) : null;
        }

        void fence(Ins x) {
            Mod.Scope scope = x.has(Mod.Scope.CTA) ? Mod.Scope.CTA : x.has(Mod.Scope.SYS) ? Mod.Scope.SYS : Mod.Scope.GPU;
            if (x.opcode() == Opcode.FENCE && (x.has(Flag.PROXY) || x.has(Flag.MBARRIER_INIT))) throw new Unsupported(x.i.form() + " is not supported");
            line("fence" + target.syncScope(scope) + " seq_cst");
        }

        /** shfl.sync (PTX ISA 9.7.8.6): source lane and validity computed here; the target reads the lane. */
        void shfl(Ins x) {
            if (!x.has(Flag.SYNC) || !x.has(PtxType.B32)) throw new Unsupported(x.i.form() + " is not supported (only shfl.sync.*.b32)");
            requireWave32(x.i.form());
            ShflMode mode = x.has(ShflMode.UP) ? ShflMode.UP : x.has(ShflMode.DOWN) ? ShflMode.DOWN : x.has(ShflMode.BFLY) ? ShflMode.BFLY
                    : x.has(ShflMode.IDX) ? ShflMode.IDX : null;
            if (mode == null) throw new Unsupported(x.i.form() + " is not supported");
            String a = read(x.op(1), 32, false), b = read(x.op(2), 32, false), c = read(x.op(3), 32, false);
            String mask = read(x.op(4), 32, false);
            String lane = laneId();
            String bval = v("and i32 " + b + ", 31");
            String cval = v("and i32 " + c + ", 31");
            String seg = v("and i32 " + v("lshr i32 " + c + ", 8") + ", 31");
            String nseg = v("xor i32 " + seg + ", -1");
            String maxLane = v("or i32 " + v("and i32 " + lane + ", " + seg) + ", " + v("and i32 " + cval + ", " + nseg));
            String minLane = v("and i32 " + lane + ", " + seg);
            String j, ok;
            switch (mode) {
                case UP -> { j = v("sub i32 " + lane + ", " + bval); ok = v("icmp sge i32 " + j + ", " + maxLane); }
                case DOWN -> { j = v("add i32 " + lane + ", " + bval); ok = v("icmp sle i32 " + j + ", " + maxLane); }
                case BFLY -> { j = v("xor i32 " + lane + ", " + bval); ok = v("icmp sle i32 " + j + ", " + maxLane); }
                default -> { j = v("or i32 " + minLane + ", " + v("and i32 " + bval + ", " + nseg)); ok = v("icmp sle i32 " + j + ", " + maxLane); }
            }
            String src = v("select i1 " + ok + ", i32 " + j + ", i32 " + lane);
            String r = readLane(a, src, mask);
            Operand d = x.op(0);
            if (d instanceof PredPair pp) {
                write(pp.first(), r, 32, false);
                writePred(pp.second(), ok);
            } else {
                write(d, r, 32, false);
            }
        }

        /** vote.sync (PTX ISA 9.7.13.5) in terms of the target's ballot. */
        void vote(Ins x) {
            if (!x.has(Flag.SYNC)) throw new Unsupported(x.i.form() + " is not supported (only vote.sync)");
            requireWave32(x.i.form());
            String p = readPred(x.op(1));
            String mask = read(x.op(2), 32, false);
            String bal = v("and i32 " + ballot(p, mask) + ", " + mask);
            if (x.has(VoteMode.BALLOT)) {
                write(x.op(0), bal, 32, false);
                return;
            }
            String active = v("and i32 " + ballot("true", mask) + ", " + mask);
            String r;
            if (x.has(VoteMode.ALL)) r = v("icmp eq i32 " + bal + ", " + active);
            else if (x.has(VoteMode.ANY)) r = v("icmp ne i32 " + bal + ", 0");
            else if (x.has(VoteMode.UNI)) r = v("or i1 " + v("icmp eq i32 " + bal + ", " + active) + ", " + v("icmp eq i32 " + bal + ", 0"));
            else throw new Unsupported(x.i.form() + " is not supported");
            writePred(x.op(0), r);
        }
    }

    // ------------------------------------------------------------------ helpers

    /** The vector widths as modifiers. */
    static final Mod V2 = new Mod.Vector(2), V4 = new Mod.Vector(4), V8 = new Mod.Vector(8);

    /** An instruction of the IR with the accessors the lowering uses. */
    static final class Ins {
        final Instr i;
        final Modifiers mods;
        final List<PtxType> types;

        Ins(Instr i) {
            this.i = i;
            this.mods = i.mods();
            this.types = i.types();
        }

        boolean has(Mod m) { return mods.has(m); }

        boolean has(PtxType t) { return mods.has(Mod.Type.of(t)); }

        PtxType type(int k) { return k < types.size() ? types.get(k) : null; }

        Opcode opcode() { return i.opcode(); }

        Operand op(int k) {
            if (k >= i.arity()) throw new Unsupported(i.form() + ": missing operand " + (k + 1));
            return i.op(k);
        }
    }

    /** Thrown inside the lowering of one instruction; becomes an error diagnostic at the instruction. */
    static final class Unsupported extends RuntimeException {
        Unsupported(String m) { super(m, null, false, false); }
    }

    static String ity(int bits) {
        return "i" + bits;
    }

    static boolean isInt(PtxType t) {
        return (t.kind() == PtxType.Kind.SIGNED || t.kind() == PtxType.Kind.UNSIGNED || t.kind() == PtxType.Kind.BIT) && t.size() <= 8
                && !t.name().contains("X");
    }

    static boolean isFloatType(PtxType t) {
        return t == PtxType.F16 || t == PtxType.BF16 || t == PtxType.F32 || t == PtxType.F64;
    }

    static String fty(PtxType t) {
        return switch (t) {
            case F16 -> "half";
            case BF16 -> "bfloat";
            case F32 -> "float";
            case F64 -> "double";
            default -> throw new Unsupported("type " + t.ptxName() + " is not supported by the LLVM back end");
        };
    }

    static String sfx(PtxType t) {
        return switch (t) {
            case F16 -> "f16";
            case BF16 -> "bf16";
            case F32 -> "f32";
            default -> "f64";
        };
    }
}
