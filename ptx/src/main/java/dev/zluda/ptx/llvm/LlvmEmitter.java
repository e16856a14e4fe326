package dev.zluda.ptx.llvm;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.Ast.Loc;
import dev.zluda.ptx.Diagnostic;
import dev.zluda.ptx.FunctionInfo;
import dev.zluda.ptx.ModuleModel;
import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.Semantics;
import dev.zluda.ptx.VariableInfo;
import dev.zluda.ptx.ir.Instr;
import dev.zluda.ptx.ir.IrPipeline;
import dev.zluda.ptx.ir.IrFunction;
import dev.zluda.ptx.ir.IrModule;
import dev.zluda.ptx.ir.Mod;
import dev.zluda.ptx.ir.Mod.StateSpace;
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
 * few target hooks in {@link LlvmTarget} and {@link TargetHooks}.
 *
 * <p>It reads the module as the typed IR ({@link dev.zluda.ptx.ir.IrPipeline}): opcodes, typed modifiers and resolved
 * operands, never modifier strings. This class lowers the module (variables, kernels, the device functions they
 * call) and holds a function's context ({@link Fn}: registers, operands, the IR text being built); the instruction
 * families are lowered in {@link IntLowering}, {@link FloatLowering} (with {@link FloatFormLowering}),
 * {@link ConvertLowering}, {@link MemoryLowering}, {@link SyncLowering}, {@link WarpAtomicLowering} and
 * {@link CallLowering}.
 *
 * <p>What is not lowered is reported, never guessed: every instruction form the lowering does not know, and every
 * form the target cannot do (directed rounding and {@code .approx} functions on AMD GPUs, warp-level operations on
 * 64-lane CDNA waves), becomes an error {@link Diagnostic} at the instruction's line and column, and then no IR is
 * produced.
 *
 * <p>Device functions ({@code .func}) are lowered when a kernel calls them (direct {@code call}, PTX ISA 9.0 §9.7.12.3),
 * with the {@code .param} ABI as PTX states it: the caller declares {@code .param} variables in its body, stores
 * the arguments there ({@code st.param}), calls, and loads the results ({@code ld.param}); the callee reads its
 * parameters and writes its return parameters with {@code ld.param}/{@code st.param}; the layout is
 * {@link dev.zluda.ptx.ir.pass.ParamAbi}'s. Each {@code .param}
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
    record Global(String ptr, int space) {}

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
    static int spaceOf(StateSpace space) {
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
                List<Long> maxntid = info.maxntid();
                List<Long> reqntid = info.reqntid();
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

        /** The module's function of this name, or null. */
        FunctionInfo function(String name) {
            return model.function(name);
        }

        /** Queues a device function a call needs, to be lowered once after the kernels. */
        void needFunction(String name) {
            if (!emittedFuncs.contains(name) && !pendingFuncs.contains(name)) pendingFuncs.add(name);
        }

        /** The LLVM name of a device function (kept apart from kernels and variables of the same PTX name). */
        String funcName(String ptxName) {
            return "@" + quote(ptxName);
        }

        void globalsAttr(StringBuilder fn, long maxThreads) {
            String features = target.waveSize() == 32 ? "+wavefrontsize32" : "+wavefrontsize64";
            metadata.append("attributes #").append(metaId++).append(" = { \"amdgpu-flat-work-group-size\"=\"1,")
                    .append(maxThreads).append("\" \"target-cpu\"=\"").append(target.cpu()).append("\" \"target-features\"=\"")
                    .append(features).append("\" \"uniform-work-group-size\"=\"true\" }\n");
        }

        void declareRegister(VariableInfo r) {
            if (StateSpace.of(r.space()) != StateSpace.REG) return;
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
                        for (VariableInfo x : d.variables()) {
                            localVariable(d, x);
                            Global g = syms.get(x.name());
                            if (g != null) blockSyms.computeIfAbsent(b, k -> new LinkedHashMap<>()).put(x.name(), g);
                        }
                    }
                    default -> {}
                }
            }
        }

        /** A function-scope variable: {@code .shared} becomes an internal global, {@code .local} and {@code .param} a stack slot. */
        void localVariable(Stmt.Decl d, VariableInfo var) {
            PtxType type = var.type();
            int vec = var.vectorWidth();
            long elem = type == null ? 1 : (long) type.size() * vec, count = 1, align = var.alignment();
            boolean unsized = false;
            for (long n : var.dims()) {
                if (n < 0) unsized = true;
                else count *= n;
            }
            int as = spaceOf(d.space());
            String gname = "@" + quote(info.name() + "." + var.name());
            switch (as) {
                case 3 -> {
                    long size = unsized ? 0 : elem * count;
                    VariableInfo v = new VariableInfo(var.name(), var.space(), type, vec, unsized ? List.of(-1L) : List.of(), size, align, 0, false, null, 0, var.loc());
                    globals.append(variableDefinition(gname, v, 3, false)).append('\n');
                    syms.put(var.name(), new Global(gname, 3));
                }
                case 5, 101 -> {            // .local, and a caller's .param variables of a call: stack slots
                    String p = "%loc" + (tmp++);
                    entry.append("  ").append(p).append(" = alloca [").append(elem * count).append(" x i8], align ").append(align)
                            .append(target.allocaSpace() == 0 ? "" : ", addrspace(" + target.allocaSpace() + ")").append('\n');
                    syms.put(var.name(), new Global(p, target.allocaSpace()));
                }
                default -> {
                    error(var.loc(), "function-scope " + var.space() + " variable " + var.name() + " is not supported");
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
            String p = readPredName(i.guard().name(), i.guardNegated());
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
            String n = op == null ? null : op.name();
            if (n != null && labels.containsKey(n)) return labels.get(n);
            throw new Unsupported("branch target must be a label of this function");
        }

        void instruction(Instr i) {
            Ins x = new Ins(i);
            switch (i.opcode()) {
                case BRA -> terminate("br label %" + label(i.op(0)));
                case RET, EXIT -> terminate("ret void");
                case TRAP -> { call("void", "llvm.trap", "", ""); terminate("unreachable"); }
                case MOV -> IntLowering.mov(this, x);
                case ADD, ADD_CC, SUB, SUB_CC, MUL, MAD, MAD_CC, DIV, REM, MIN, MAX, ABS, NEG, FMA, SAD -> IntLowering.arith(this, x);
                case ADDC, SUBC, MADC -> IntLowering.carryOp(this, x);
                case AND, OR, XOR, NOT, CNOT -> IntLowering.logic(this, x);
                case SHL, SHR -> IntLowering.shift(this, x);
                case POPC, CLZ, BREV -> IntLowering.bits(this, x);
                case SET -> FloatLowering.set(this, x);
                case MUL24, MAD24 -> IntLowering.mul24(this, x);
                case SELP -> IntLowering.selp(this, x);
                case LOP3 -> IntLowering.lop3(this, x);
                case BFE -> IntLowering.bfe(this, x);
                case BFI -> IntLowering.bfi(this, x);
                case BFIND -> IntLowering.bfind(this, x);
                case BMSK -> IntLowering.bmsk(this, x);
                case SZEXT -> IntLowering.szext(this, x);
                case SHF -> IntLowering.shf(this, x);
                case PRMT -> IntLowering.prmt(this, x);
                case FNS -> IntLowering.fns(this, x);
                case SLCT -> IntLowering.slct(this, x);
                case DP4A, DP2A -> IntLowering.dot(this, x);
                case SETP -> FloatLowering.setp(this, x);
                case CVT, CVT_PACK -> ConvertLowering.cvt(this, x);
                case CVTA -> ConvertLowering.cvta(this, x);
                case LD -> MemoryLowering.ld(this, x);
                case ST, ST_ASYNC, ST_BULK -> MemoryLowering.st(this, x);
                case ATOM, RED, RED_ASYNC -> MemoryLowering.atom(this, x);
                case MATCH -> WarpAtomicLowering.match(this, x);
                case REDUX -> WarpAtomicLowering.redux(this, x);
                case BAR, BARRIER, BAR_WARP_SYNC, BARRIER_CLUSTER -> SyncLowering.bar(this, x);
                case MEMBAR, FENCE -> SyncLowering.fence(this, x);
                case SHFL -> SyncLowering.shfl(this, x);
                case VOTE -> SyncLowering.vote(this, x);
                case ACTIVEMASK -> write(x.op(0), TargetHooks.ballot(this, Boolean.TRUE.toString()), 32, false);
                case RCP, SQRT, RSQRT, SIN, COS, LG2, EX2, TANH -> FloatLowering.unaryFloat(this, x);
                case COPYSIGN -> FloatLowering.copysign(this, x);
                case TESTP -> FloatLowering.testp(this, x);
                case CALL -> CallLowering.callInstr(this, x);
                default -> throw new Unsupported(i.form() + " is not supported by the LLVM back end");
            }
        }

        // -------------------------------------------------------------- operands

        /** Reads an operand as an {@code bits}-bit integer (registers narrowed or widened, zero- or sign-extended). */
        String read(Operand op, int bits, boolean signed) {
            String n = op.name();
            if (n != null) {
                Reg r = reg(n);
                if (r != null) {
                    if (r.bits == 1) throw new Unsupported("predicate " + n + " used as a value");
                    String x = v("load " + r.ty + ", " + allocaAs() + " " + r.ptr);
                    return resize(x, r.bits, bits, signed);
                }
                if (n.startsWith("%")) {
                    String x = TargetHooks.special(this, op);
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
            String n = dst.name();
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
            if (op instanceof Not n && n.inner().name() != null) return readPredName(n.inner().name(), true);
            String n = op.name();
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
            String n = dst.name();
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

        // -------------------------------------------------------------- instructions

        // ------------------------------------------------ bit-field, byte, dot-product and select instructions (PTX ISA 9.0)

        String sel(String c, String ty, String a, String b) {
            return v("select i1 " + c + ", " + ty + " " + a + ", " + ty + " " + b);
        }

        String umin(String ty, String a, String b) {
            return call(ty, "llvm.umin." + ty, ty + ", " + ty, ty + " " + a + ", " + ty + " " + b);
        }

        // -------------------------------------------------------------- floating point

        // -------------------------------------------------------------- conversions

        /** Directed rounding in target-neutral IR ({@link SoftRounding}), emitted into this function. */
        final SoftRounding softRounding = new SoftRounding(new SoftRounding.Ir() {
            @Override public String v(String rhs) { return Fn.this.v(rhs); }
            @Override public String call(String r, String fn, String decl, String args) { return Fn.this.call(r, fn, decl, args); }
        });

        /** Rounding conversions in plain integer IR ({@link CvtRounding}), emitted into this function. */
        final CvtRounding cvtRounding = new CvtRounding(new CvtRounding.Ir() {
            @Override public String v(String rhs) { return Fn.this.v(rhs); }
            @Override public String call(String retTy, String fn, String argDecl, String args) { return Fn.this.call(retTy, fn, argDecl, args); }
        });

        // -------------------------------------------------------------- memory

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
