package dev.zluda.runtime.emulator;

import dev.zluda.ptx.Ast.CallPrototype;
import dev.zluda.ptx.Ast.CallTargets;
import dev.zluda.ptx.Ast.Decl;
import dev.zluda.ptx.Ast.DeclAttr;
import dev.zluda.ptx.Ast.Declarator;
import dev.zluda.ptx.Ast.Dim;
import dev.zluda.ptx.Ast.Function;
import dev.zluda.ptx.Ast.Linkage;
import dev.zluda.ptx.Ast.ListInit;
import dev.zluda.ptx.Ast.Loc;
import dev.zluda.ptx.Ast.Align;
import dev.zluda.ptx.Ast.Word;
import dev.zluda.ptx.FunctionInfo;
import dev.zluda.ptx.InstructionTable;
import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.Semantics;
import dev.zluda.ptx.ir.Instr;
import dev.zluda.ptx.ir.IrFunction;
import dev.zluda.ptx.ir.Mod.Flag;
import dev.zluda.ptx.ir.Mod.ReduceOp;
import dev.zluda.ptx.ir.Mod.StateSpace;
import dev.zluda.ptx.ir.Mod.TestClass;
import dev.zluda.ptx.ir.Mod.VoteMode;
import dev.zluda.ptx.ir.Modifiers;
import dev.zluda.ptx.ir.Opcode;
import dev.zluda.ptx.ir.Operand;
import dev.zluda.ptx.ir.SpecialReg;
import dev.zluda.ptx.ir.Stmt;
import dev.zluda.ptx.ir.pass.ParamAbi;
import java.util.ArrayList;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Translates one kernel from the typed IR ({@link dev.zluda.ptx.ir.IrPipeline}) into a {@link Program}: registers
 * become slots, immediates and special registers become preloaded slots, labels become instruction indices, addresses
 * of variables become constants, and calls of device functions are inlined (their registers, locals and parameters
 * get slots and local memory of their own per call site). Anything the emulator cannot execute is reported with its
 * position; the translation then fails as a whole ({@link Errors#NOT_SUPPORTED}), so an unsupported instruction never
 * runs as something else.
 *
 * <p>This class holds the translation's state (slots, scopes, the frame) and resolves operands; the instruction
 * families are translated by {@link ArithTranslation}, {@link MemoryTranslation}, {@link WarpTranslation},
 * {@link TextureTranslation} and {@link CallTranslation}.
 */
final class Translator {
    /** Upper bound on decoded instructions of one kernel (after inlining). */
    static final int MAX_OPS = 2_000_000;

    final ModuleContext mc;
    final FunctionInfo kernel;
    final List<Op> code = new ArrayList<>();
    int slots;
    int preds;
    final Map<Long, Integer> consts = new LinkedHashMap<>();
    final Map<Integer, Integer> specials = new LinkedHashMap<>();
    int truePred = -1, falsePred = -1, sinkSlot = -1, sinkPred = -1, ccSlot = -1;
    final Map<Declarator, Long> sharedOffsets = new IdentityHashMap<>();
    long staticShared, dynamicOffset;
    long frame;
    final Deque<String> callStack = new ArrayDeque<>();
    int regs32;
    Scope moduleScope;
    /** Whether .local/.param variables being declared live in the frame of an out-of-line function (FP-relative). */
    boolean rel;
    /** Largest alignment of the out-of-line function's frame being laid out. */
    long frameAlign = 8;
    /** High-water mark of {@link #frame} in an out-of-line function (whose nested blocks reuse their space). */
    long frameHigh;
    int spSlot = -1, fpSlot = -1;
    /** Out-of-line functions of this kernel ({@link CallOps}), by name; those still to translate. */
    final Map<String, OutFn> outFns = new LinkedHashMap<>();
    final Deque<OutFn> pendingFns = new ArrayDeque<>();
    /** The out-of-line function being translated, null for the kernel. */
    OutFn current;
    /** Calls to resolve once every function is translated: {Call, NextFrame, List<OutFn> targets, OutFn caller}. */
    final List<Object[]> callFixups = new ArrayList<>();

    /** An out-of-line function: where its code starts, its frame, its registers. */
    static final class OutFn {
        final String name;
        final Function ast;
        int entry = -1;
        long frame, align = 8;
        int slotLo, slotHi, predLo, predHi;

        OutFn(String name, Function ast) {
            this.name = name;
            this.ast = ast;
        }
    }

    Translator(ModuleContext mc, FunctionInfo kernel) {
        this.mc = mc;
        this.kernel = kernel;
    }

    // ------------------------------------------------------------------ symbols

    enum SymKind { REG, PRED, SHARED, LOCAL, GLOBAL, KPARAM, FPARAM }

    /** A resolved name: a register (slot or predicate index) or a variable with its address. */
    record Sym_(SymKind kind, int slot, long address, PtxType type, int vector, boolean rel) {
        Sym_(SymKind kind, int slot, long address, PtxType type, int vector) {
            this(kind, slot, address, type, vector, false);
        }
    }

    /** A register declaration whose slots are assigned on first use. */
    final class RegDecl {
        final PtxType type;
        final int vector;
        final Map<String, Sym_> assigned = new HashMap<>();

        RegDecl(PtxType type, int vector) {
            this.type = type;
            this.vector = Math.max(1, vector);
        }

        Sym_ get(String name) {
            return assigned.computeIfAbsent(name, n -> {
                if (type == PtxType.PRED) return new Sym_(SymKind.PRED, preds++, 0, type, 1);
                int s = slots;
                slots += vector;
                regs32 += Math.max(1, type == null ? 1 : (type.size() + 3) / 4) * vector;
                return new Sym_(SymKind.REG, s * 32, 0, type, vector);
            });
        }
    }

    static final class Scope {
        final Scope parent;
        final Map<String, Object> names = new HashMap<>();   // Sym_ or RegDecl
        final Map<String, Object[]> ranges = new HashMap<>(); // prefix -> {RegDecl, count}
        final Map<String, dev.zluda.ptx.Ast.Statement> protos = new HashMap<>(); // label -> CallPrototype or CallTargets

        Scope(Scope parent) {
            this.parent = parent;
        }
    }

    /** One inlined function body (or the kernel itself): labels, return target. */
    final class Instance {
        final String function;
        final boolean isKernel;
        final Map<String, Integer> labels = new HashMap<>();
        final List<Object[]> fixups = new ArrayList<>(); // {Op, label, Loc}
        final List<Op> returns = new ArrayList<>();

        Instance(String function, boolean isKernel) {
            this.function = function;
            this.isKernel = isKernel;
        }
    }

    Sym_ lookup(Scope s, String name) {
        for (Scope sc = s; sc != null; sc = sc.parent) {
            Object o = sc.names.get(name);
            if (o instanceof Sym_ v) return v;
            if (o instanceof RegDecl rd) return rd.get(name);
            if (!sc.ranges.isEmpty()) {
                int i = name.length();
                while (i > 0 && Character.isDigit(name.charAt(i - 1))) i--;
                if (i < name.length() && i > 0) {
                    Object[] r = sc.ranges.get(name.substring(0, i));
                    if (r != null) {
                        String digits = name.substring(i);
                        if (digits.length() <= 9 && (digits.length() == 1 || digits.charAt(0) != '0')
                                && Long.parseLong(digits) < (Long) r[1]) {
                            return ((RegDecl) r[0]).get(name);
                        }
                    }
                }
            }
        }
        return null;
    }

    // ------------------------------------------------------------------ errors

    final class Unsupported extends RuntimeException {
        Unsupported(Loc loc, String message) {
            super(message, null, false, false);
            this.loc = loc;
        }

        final Loc loc;
    }

    Unsupported unsupported(Loc loc, String message) {
        return new Unsupported(loc, message);
    }

    void report(Loc loc, String message) {
        mc.error(loc == null ? Loc.NONE : loc, message);
    }

    // ------------------------------------------------------------------ slots

    int constSlot(long value) {
        return consts.computeIfAbsent(value, v -> 32 * slots++);
    }

    int specialSlot(int kind) {
        return specials.computeIfAbsent(kind, k -> 32 * slots++);
    }

    int tempSlot() {
        return 32 * slots++;
    }

    int truePred() {
        if (truePred < 0) truePred = preds++;
        return truePred;
    }

    int falsePred() {
        if (falsePred < 0) falsePred = preds++;
        return falsePred;
    }

    int sink() {
        if (sinkSlot < 0) sinkSlot = tempSlot();
        return sinkSlot;
    }

    int sinkPred() {
        if (sinkPred < 0) sinkPred = preds++;
        return sinkPred;
    }

    int spSlot() {
        if (spSlot < 0) {
            spSlot = tempSlot();
            fpSlot = tempSlot();
        }
        return spSlot;
    }

    int fpSlot() {
        spSlot();
        return fpSlot;
    }

    int cc() {
        if (ccSlot < 0) ccSlot = tempSlot();
        return ccSlot;
    }

    long allocFrame(long size, long align) {
        align = Math.max(1, align);
        if (rel) frameAlign = Math.max(frameAlign, align);
        frame = (frame + align - 1) / align * align;
        long off = frame;
        frame += Math.max(size, 1);
        frameHigh = Math.max(frameHigh, frame);
        return off;
    }

    // ------------------------------------------------------------------ entry

    /** Translates the kernel; on failure the problems are in the module context and null is returned. */
    Kernel translate() {
        int errorsBefore = mc.errorCount();
        Function f = kernel.ast();
        layoutShared(f);
        moduleScope = new Scope(null);
        for (var g : mc.globals().entrySet()) {
            moduleScope.names.put(g.getKey(), new Sym_(SymKind.GLOBAL, -1, g.getValue().address(), g.getValue().type(), 1));
        }
        for (Decl d : mc.moduleShared()) {
            for (Declarator dc : d.declarators()) {
                long off = d.linkage().contains(Linkage.EXTERN) ? dynamicOffset : sharedOffsets.get(dc);
                moduleScope.names.put(dc.name(), new Sym_(SymKind.SHARED, -1, off, typeOf(d), vectorOf(d)));
            }
        }
        Scope top = new Scope(moduleScope);
        for (ParamAbi.Slot p : ParamAbi.kernel(kernel).params()) top.names.put(p.name(), new Sym_(SymKind.KPARAM, -1, p.offset(), p.type(), 1));
        Instance inst = new Instance(f.name(), true);
        callStack.push(f.name());
        try {
            body(mc.ir(f.name()).body(), top, inst);
            code.add(withLoc(new Ops.Exit(), f.loc(), "ret (end of kernel)"));
            finish(inst);
            while (!pendingFns.isEmpty()) CallTranslation.translateOutOfLine(this, pendingFns.pop());
            CallTranslation.resolveCalls(this);
        } catch (Unsupported u) {
            report(u.loc, u.getMessage());
        }
        if (mc.errorCount() > errorsBefore) return null;
        int n = consts.size();
        int[] cs = new int[n];
        long[] cv = new long[n];
        int i = 0;
        for (var e : consts.entrySet()) {
            cs[i] = e.getValue();
            cv[i++] = e.getKey();
        }
        int[] ss = new int[specials.size()], sk = new int[specials.size()];
        i = 0;
        for (var e : specials.entrySet()) {
            sk[i] = e.getKey();
            ss[i++] = e.getValue();
        }
        long frameBytes = (frame + 15) / 16 * 16;
        Program prog = new Program(kernel.name(), mc.source, code.toArray(new Op[0]), slots, preds, cs, cv, ss, sk, truePred,
                staticShared, dynamicOffset, frameBytes, kernel.paramSize());
        prog.spSlot = spSlot;
        prog.fpSlot = fpSlot;
        StringBuilder frames = new StringBuilder();
        for (OutFn o : outFns.values()) frames.append(frames.isEmpty() ? "" : ", ").append(o.name).append(' ').append(o.frame);
        prog.callFrames = frames.toString();
        int maxThreads = 1024;
        int[] req = null;
        List<Long> r = kernel.reqntid();
        if (r != null && !r.isEmpty()) {
            req = new int[] {1, 1, 1};
            for (int k = 0; k < r.size() && k < 3; k++) req[k] = (int) (long) r.get(k);
            maxThreads = Math.min(maxThreads, req[0] * req[1] * req[2]);
        }
        List<Long> mx = kernel.maxntid();
        if (mx != null && !mx.isEmpty()) {
            long prod = 1;
            for (Long v : mx) prod *= v;
            maxThreads = (int) Math.min(maxThreads, prod);
        }
        return new Kernel(kernel.name(), kernel, prog, staticShared, frameBytes, maxThreads, req, Math.max(1, Math.min(255, regs32)));
    }

    void finish(Instance inst) {
        for (Object[] fx : inst.fixups) {
            Op op = (Op) fx[0];
            Integer t = inst.labels.get((String) fx[1]);
            if (t == null) throw unsupported((Loc) fx[2], "undefined label '" + fx[1] + "'");
            op.target = t;
        }
    }

    /** Static shared memory: module-level variables, then every function-level one reachable from the kernel. */
    void layoutShared(Function f) {
        List<Decl> all = new ArrayList<>(mc.moduleShared());
        java.util.Set<String> seenFns = new java.util.HashSet<>();
        collectShared(mc.ir(f.name()), all, seenFns);
        for (String t : mc.addressTaken()) collectShared(mc.ir(t), all, seenFns);
        long off = 0;
        long externAlign = 16;
        for (Decl d : all) {
            long align = alignOf(d);
            for (Declarator dc : d.declarators()) {
                if (d.linkage().contains(Linkage.EXTERN)) {
                    externAlign = Math.max(externAlign, align);
                    continue;
                }
                off = (off + align - 1) / align * align;
                sharedOffsets.put(dc, off);
                off += Math.max(0, sizeOf(d, dc));
            }
        }
        staticShared = off;
        dynamicOffset = (off + externAlign - 1) / externAlign * externAlign;
    }

    void collectShared(IrFunction f, List<Decl> out, java.util.Set<String> seen) {
        if (f == null || f.body() == null || !seen.add(f.name())) return;
        collectShared(f.body(), out, seen);
    }

    void collectShared(Stmt.Block b, List<Decl> out, java.util.Set<String> seen) {
        for (Stmt s : b.statements()) {
            switch (s) {
                case Stmt.Decl d when d.space() == StateSpace.SHARED -> out.add(d.source());
                case Stmt.Block inner -> collectShared(inner, out, seen);
                case Instr i when i.opcode() == Opcode.CALL -> {
                    for (Operand o : i.operands()) {
                        String n = o.name();
                        if (n != null) {
                            collectShared(mc.ir(n), out, seen);
                            break;
                        }
                    }
                }
                default -> {}
            }
        }
    }

    // ------------------------------------------------------------------ declarations

    /** The element type of a declaration ({@link Semantics#variables}), null without one. */
    static PtxType typeOf(Decl d) {
        return Semantics.variables(d).getFirst().type();
    }

    /** The vector width of a declaration: 1, or 2, 4, 8 for {@code .v2 .v4 .v8}. */
    static int vectorOf(Decl d) {
        return Semantics.variables(d).getFirst().vectorWidth();
    }

    /** The alignment of a declaration in bytes: its {@code .align} (not the pointee's), else the element size. */
    static long alignOf(Decl d) {
        return Semantics.variables(d).getFirst().alignment();
    }

    /** Size in bytes of one declared name; unsized arrays take their size from the initializer. */
    static long sizeOf(Decl d, Declarator dc) {
        PtxType t = typeOf(d);
        long elem = (long) (t == null ? 0 : t.size()) * vectorOf(d);
        long count = 1;
        for (int i = 0; i < dc.dims().size(); i++) {
            Dim dim = dc.dims().get(i);
            Long n = dim.size() == null ? null : ModuleContext.constant(dim.size());
            if (n == null) {
                if (i == 0 && dc.init() instanceof ListInit li) n = (long) li.elements().size();
                else n = 0L;
            }
            count *= n;
        }
        return elem * count;
    }

    void declare(Decl d, Scope scope, Instance inst) {
        PtxType t = typeOf(d);
        int vec = vectorOf(d);
        StateSpace space = StateSpace.of(d.space());
        switch (space == null ? StateSpace.GENERIC : space) {
            case REG -> {
                RegDecl rd = new RegDecl(t, vec);
                for (Declarator dc : d.declarators()) {
                    if (!dc.dims().isEmpty()) throw unsupported(dc.loc(), "register arrays are not supported by the emulator");
                    if (dc.rangeCount() != null) scope.ranges.put(dc.name(), new Object[] {rd, dc.rangeCount()});
                    else scope.names.put(dc.name(), rd);
                }
            }
            case SHARED -> {
                for (Declarator dc : d.declarators()) {
                    boolean ext = d.linkage().contains(Linkage.EXTERN);
                    Long off = ext ? Long.valueOf(dynamicOffset) : sharedOffsets.get(dc);
                    if (off == null) throw unsupported(dc.loc(), "shared variable '" + dc.name() + "' has no layout");
                    scope.names.put(dc.name(), new Sym_(SymKind.SHARED, -1, off, t, vec));
                }
            }
            case LOCAL -> {
                for (Declarator dc : d.declarators()) {
                    if (dc.init() != null) throw unsupported(dc.loc(), "initialized .local variables are not supported");
                    scope.names.put(dc.name(), new Sym_(SymKind.LOCAL, -1, allocFrame(sizeOf(d, dc), alignOf(d)), t, vec, rel));
                }
            }
            case PARAM -> {
                for (Declarator dc : d.declarators()) {
                    // out-of-line functions: natural size and alignment, so that a frame takes no more stack than it needs
                    long off = rel ? allocFrame(sizeOf(d, dc), alignOf(d)) : allocFrame(Math.max(sizeOf(d, dc), 8), Math.max(alignOf(d), 8));
                    scope.names.put(dc.name(), new Sym_(SymKind.FPARAM, -1, off, t, vec, rel));
                }
            }
            case GLOBAL, CONST -> {
                for (Declarator dc : d.declarators()) {
                    Long a = mc.globalAddress(dc.name());
                    if (a == null) throw unsupported(dc.loc(), "function-scope " + d.space() + " variable '" + dc.name() + "' is not supported");
                    scope.names.put(dc.name(), new Sym_(SymKind.GLOBAL, -1, a, t, vec));
                }
            }
            default -> throw unsupported(d.loc(), d.space() + " variables are not supported by the emulator");
        }
    }

    // ------------------------------------------------------------------ statements

    void body(Stmt.Block b, Scope parent, Instance inst) {
        Scope scope = new Scope(parent);
        Stmt prev = null;
        for (Stmt s : b.statements()) {
            if (s instanceof Stmt.Decl d) declare(d.source(), scope, inst);
            if (s instanceof Stmt.Directive dir && (dir.source() instanceof CallPrototype || dir.source() instanceof CallTargets)
                    && prev instanceof Stmt.Label l) {
                scope.protos.put(l.name(), dir.source());
            }
            prev = s;
        }
        for (Stmt s : b.statements()) {
            switch (s) {
                case Stmt.Label l -> inst.labels.put(l.name(), code.size());
                case Stmt.Block inner -> {
                    // in an out-of-line function, a block's .param/.local space (a call sequence's) is free again after it
                    long before = frame;
                    body(inner, scope, inst);
                    if (rel) frame = before;
                }
                case Instr ins -> {
                    try {
                        instruction(ins, scope, inst);
                    } catch (Unsupported u) {
                        report(u.loc, u.getMessage());
                    }
                    if (code.size() > MAX_OPS) throw unsupported(ins.loc(), "kernel too large after inlining (more than " + MAX_OPS + " instructions)");
                }
                default -> {}
            }
        }
    }

    <T extends Op> T withLoc(T op, Loc loc, String form) {
        op.line = loc == null ? 0 : loc.line();
        op.form = form;
        return op;
    }

    void emit(Op op, Instr ins, int guard, boolean guardNeg) {
        op.line = ins.loc().line();
        op.form = ins.form();
        op.guard = guard;
        op.guardNeg = guardNeg;
        code.add(op);
    }

    // ------------------------------------------------------------------ operands

    /** The slot of register {@code v} for an operand with a component ({@code %v.y}: the next slot up). */
    static int slotOf(Sym_ v, Operand o) {
        return o instanceof Operand.Reg r && r.component() >= 0 ? v.slot + 32 * r.component() : v.slot;
    }

    /** An address {@code [base + offset]} or a symbol plus offset. */
    record Addr(Sym_ symbol, int base, boolean base32, long offset) {}

    Addr address(Operand o, Scope scope, Loc loc) {
        if (o instanceof Operand.Malformed m && m.address()) throw unsupported(loc, "unsupported address expression");
        if (!(o instanceof Operand.Address a)) throw unsupported(loc, "unsupported address operand");
        if (a.base() == null) return new Addr(null, -1, false, a.offset());
        String n = a.base().name();
        Sym_ s = n == null ? null : lookup(scope, n);
        if (s == null) throw unsupported(loc, "undefined symbol '" + n + "'");
        if (s.kind == SymKind.REG) return new Addr(null, slotOf(s, a.base()), s.type != null && s.type.size() <= 4, a.offset());
        return new Addr(s, -1, false, a.offset());
    }

    /** The state-space address of a variable symbol, as a value (mov r, sym). */
    long symbolValue(Sym_ s, Loc loc) {
        return switch (s.kind) {
            case SHARED, LOCAL, GLOBAL, KPARAM, FPARAM -> s.address;
            default -> throw unsupported(loc, "not a variable");
        };
    }

    /** Slot of a value operand of type {@code t}. */
    int src(Operand o, PtxType t, Scope scope, Instr ins) {
        Loc loc = ins.loc();
        if (o instanceof Operand.Special sp) {
            int timer = timer(sp.reg());
            if (timer >= 0) {
                int tmp = tempSlot();
                Op op = new Ops.Timer(tmp, timer);
                op.line = loc.line();
                op.form = ins.form();
                code.add(op);
                return tmp;
            }
            int k = Specials.kind(sp.reg(), sp.index(), sp.component());
            if (k >= 0) return specialSlot(k);
            if (sp.reg() == SpecialReg.WARP_SZ) return constSlot(32);
        }
        String n = o.name();
        if (n != null) {
            Sym_ v = lookup(scope, n);
            if (v == null) {
                if (mc.function(n) != null) return constSlot(mc.functionAddress(n));
                throw unsupported(loc, "undefined symbol '" + n + "'");
            }
            return switch (v.kind) {
                case REG -> slotOf(v, o);
                case PRED -> throw unsupported(loc, "predicate '" + n + "' used as a value");
                default -> v.rel ? frameAddress(v.address, ins) : constSlot(symbolValue(v, loc));
            };
        }
        switch (o) {
            case Operand.Sum sum -> {
                // sym + c, generic(sym): the variable's address (in a frame of an out-of-line function: FP-relative)
                String bn = sum.base().name();
                Sym_ v = bn == null ? null : lookup(scope, bn);
                if (v != null && v.kind != SymKind.REG && v.kind != SymKind.PRED) {
                    return v.rel ? frameAddress(v.address + sum.offset(), ins) : constSlot(symbolValue(v, loc) + sum.offset());
                }
                throw unsupported(loc, "unsupported immediate operand");
            }
            case Operand.IntImm i -> { return constSlot(immediate(o, t, loc)); }
            case Operand.FloatImm f -> { return constSlot(immediate(o, t, loc)); }
            case Operand.Malformed m -> throw unsupported(loc, "unsupported immediate operand");
            default -> throw unsupported(loc, "unsupported operand in " + ins.form());
        }
    }

    /** A temporary slot holding FP + {@code offset}: an address in the running out-of-line function's frame. */
    int frameAddress(long offset, Instr ins) {
        int t = tempSlot();
        addOp(new CallOps.FrameAddress(t, fpSlot(), offset), ins);
        return t;
    }

    static int timer(SpecialReg r) {
        return switch (r) {
            case CLOCK -> Ops.Timer.CLOCK;
            case CLOCK_HI -> Ops.Timer.CLOCK_HI;
            case CLOCK64 -> Ops.Timer.CLOCK64;
            case GLOBALTIMER -> Ops.Timer.GLOBALTIMER;
            case GLOBALTIMER_LO -> Ops.Timer.GLOBALTIMER_LO;
            case GLOBALTIMER_HI -> Ops.Timer.GLOBALTIMER_HI;
            default -> -1;
        };
    }

    /** The bits of an immediate ({@link Operand.IntImm} or {@link Operand.FloatImm}) for an operand of type {@code t} (PTX ISA 4.5). */
    long immediate(Operand o, PtxType t, Loc loc) {
        boolean isFloat = t != null && t.kind() == PtxType.Kind.FLOAT;
        if (o instanceof Operand.FloatImm f && f.kind() != Operand.FloatImm.Kind.DECIMAL) {
            boolean dbl = f.kind() == Operand.FloatImm.Kind.HEX_F64;
            if (!isFloat) {
                long bits = f.bits();
                return f.negated() ? bits ^ (dbl ? Long.MIN_VALUE : 0x8000_0000L) : bits;
            }
            double v = f.negated() ? -f.value() : f.value();
            return floatBits(v, t, dbl ? -1 : (int) f.bits(), f.negated());
        }
        if (o instanceof Operand.FloatImm f) {
            double v = f.negated() ? -f.value() : f.value();
            if (!isFloat) return (long) v;
            return floatBits(v, t, -1, false);
        }
        if (!(o instanceof Operand.IntImm i)) throw unsupported(loc, "unsupported immediate operand");
        long c = i.value();
        boolean half = t == PtxType.F16 || t == PtxType.BF16 || t == PtxType.F16X2 || t == PtxType.BF16X2;
        if (isFloat && !half) return floatBits(c, t, -1, false);
        return c;
    }

    static long floatBits(double v, PtxType t, int exactF32Bits, boolean neg) {
        return switch (t) {
            case F64 -> Double.doubleToRawLongBits(v);
            case F16, F16X2 -> FloatMath.toHalf((float) v, FloatMath.RN);
            case BF16, BF16X2 -> FloatMath.toBf16((float) v, FloatMath.RN);
            default -> exactF32Bits != -1 ? (exactF32Bits ^ (neg ? 0x8000_0000 : 0)) & 0xFFFF_FFFFL : Float.floatToRawIntBits((float) v) & 0xFFFF_FFFFL;
        };
    }

    /** Slot of a destination register; {@code _} is a sink. */
    int dst(Operand o, Scope scope, Instr ins) {
        if (o instanceof Operand.Sink) return sink();
        String n = o.name();
        if (n != null) {
            Sym_ v = lookup(scope, n);
            if (v == null) throw unsupported(ins.loc(), "undefined symbol '" + n + "'");
            if (v.kind == SymKind.REG) return slotOf(v, o);
        }
        throw unsupported(ins.loc(), "destination of " + ins.form() + " must be a register");
    }

    /**
     * The slots of an operand's elements — each element of a vector {@code {a, b, ...}}, or the operand itself —
     * as destinations ({@code dst}; {@code _} is -1) or as sources of type {@code t}, in order.
     */
    int[] slots(Operand o, PtxType t, Scope scope, Instr ins, boolean dst) {
        List<Operand> el = o instanceof Operand.Vec v ? v.elements() : List.of(o);
        int[] out = new int[el.size()];
        for (int i = 0; i < out.length; i++) {
            Operand e = el.get(i);
            out[i] = dst ? (e instanceof Operand.Sink ? -1 : dst(e, scope, ins)) : src(e, t, scope, ins);
        }
        return out;
    }

    boolean isPred(Operand o, Scope scope) {
        if (o instanceof Operand.Not) return true;
        String n = o.name();
        if (n == null || o instanceof Operand.Sink) return false;
        Sym_ v = lookup(scope, n);
        return v != null && v.kind == SymKind.PRED;
    }

    /** A predicate source: index and negation ({@code !p}); immediates 0/1 are constant predicates. */
    int[] predSrc(Operand o, Scope scope, Instr ins) {
        if (o instanceof Operand.Not not) {
            String n = not.inner().name();
            Sym_ v = n == null ? null : lookup(scope, n);
            if (v == null || v.kind != SymKind.PRED) throw unsupported(ins.loc(), "'" + n + "' is not a predicate");
            return new int[] {v.slot, 1};
        }
        String n = o.name();
        if (n != null) {
            Sym_ v = lookup(scope, n);
            if (v != null && v.kind == SymKind.PRED) return new int[] {v.slot, 0};
        }
        if (o instanceof Operand.IntImm c) return new int[] {c.value() != 0 ? truePred() : falsePred(), 0};
        throw unsupported(ins.loc(), "expected a predicate operand in " + ins.form());
    }

    int predDst(Operand o, Scope scope, Instr ins) {
        if (o instanceof Operand.Sink) return sinkPred();
        String n = o.name();
        if (n != null) {
            Sym_ v = lookup(scope, n);
            if (v != null && v.kind == SymKind.PRED) return v.slot;
        }
        throw unsupported(ins.loc(), "expected a predicate destination in " + ins.form());
    }

    // ------------------------------------------------------------------ instructions

    void instruction(Instr ins, Scope scope, Instance inst) {
        int guard = -1;
        boolean gNeg = false;
        if (ins.guard() != null) {
            String gn = ins.guard().name();
            Sym_ g = gn == null ? null : lookup(scope, gn);
            if (g == null || g.kind != SymKind.PRED) throw unsupported(ins.loc(), "guard is not a predicate");
            guard = g.slot;
            gNeg = ins.guardNegated();
        }
        Opcode key = ins.opcode();
        Modifiers mods = ins.mods();
        List<Operand> ops = ins.operands();
        List<PtxType> types = mods.types();
        PtxType t = mods.lastType();
        Op op;
        switch (key) {
            case MOV -> op = MemoryTranslation.mov(this, ins, scope, t);
            case LD, LDU -> op = MemoryTranslation.load(this, ins, scope, inst, t);
            case ST -> op = MemoryTranslation.store(this, ins, scope, inst, t);
            case ADD, SUB, MUL, MAD, DIV, REM, ABS, NEG, MIN, MAX, MUL24, MAD24, SAD, FMA, RCP, SQRT, RSQRT, SIN, COS, LG2, EX2, TANH, COPYSIGN -> op = ArithTranslation.arith(this, ins, key, scope, t);
            case ADD_CC, ADDC, SUB_CC, SUBC, MAD_CC, MADC -> op = ArithTranslation.carry(this, ins, key, scope, t);
            case AND, OR, XOR, NOT, CNOT, SHL, SHR, POPC, CLZ, BREV, BFIND, BFE, BFI, PRMT, LOP3, SHF, BMSK, SZEXT, FNS, DP4A, DP2A -> op = ArithTranslation.logic(this, ins, key, scope, t);
            case SETP -> op = ArithTranslation.setp(this, ins, scope, t);
            case SET -> op = ArithTranslation.set(this, ins, scope, types);
            case SELP -> {
                need(ins, 4);
                int[] c = predSrc(ops.get(3), scope, ins);
                op = new FloatOps.Selp(dst(ops.get(0), scope, ins), src(ops.get(1), t, scope, ins), src(ops.get(2), t, scope, ins), c[0], c[1] != 0);
            }
            case SLCT -> {
                need(ins, 4);
                boolean cf = t == PtxType.F32;
                op = new FloatOps.Slct(dst(ops.get(0), scope, ins), src(ops.get(1), types.getFirst(), scope, ins),
                        src(ops.get(2), types.getFirst(), scope, ins), src(ops.get(3), t, scope, ins), cf, mods.has(Flag.FTZ));
            }
            case TESTP -> {
                need(ins, 2);
                int kind = mods.has(TestClass.FINITE) ? FloatOps.Testp.FINITE : mods.has(TestClass.INFINITE) ? FloatOps.Testp.INFINITE
                        : mods.has(TestClass.NUMBER) ? FloatOps.Testp.NUMBER : mods.has(TestClass.NOTANUMBER) ? FloatOps.Testp.NOTANUMBER
                        : mods.has(TestClass.NORMAL) ? FloatOps.Testp.NORMAL_ : FloatOps.Testp.SUBNORMAL;
                op = new FloatOps.Testp(kind, t == PtxType.F64, predDst(ops.get(0), scope, ins), src(ops.get(1), t, scope, ins));
            }
            case CVT -> op = ArithTranslation.cvt(this, ins, scope, types);
            case CVT_PACK -> {
                // cvt.pack.sat.{u8,s8,u16,s16}.s32{.b32} d, a, b{, c} (PTX ISA 9.0, 9.7.9.22)
                if (types.size() < 2 || !mods.has(Flag.SAT)) throw unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
                PtxType ct = types.getFirst();
                if (ct != PtxType.U8 && ct != PtxType.S8 && ct != PtxType.U16 && ct != PtxType.S16) {
                    throw unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
                }
                need(ins, ops.size() == 4 ? 4 : 3);
                op = new ConvertOps.CvtPack(ct, dst(ops.get(0), scope, ins), src(ops.get(1), PtxType.S32, scope, ins), src(ops.get(2), PtxType.S32, scope, ins),
                        ops.size() == 4 ? src(ops.get(3), PtxType.B32, scope, ins) : -1);
            }
            case CVTA -> {
                need(ins, 2);
                boolean to = mods.has(Flag.TO);
                int space = space(mods, ins);
                op = new MemOps.Cvta(dst(ops.get(0), scope, ins), src(ops.get(1), t, scope, ins), space, to, t != null && t.size() == 4);
            }
            case ISSPACEP -> {
                need(ins, 2);
                MemOps.IsSpace is = new MemOps.IsSpace(predDst(ops.get(0), scope, ins), src(ops.get(1), PtxType.U64, scope, ins), space(mods, ins),
                        mods.has(StateSpace.SHARED_CLUSTER));
                is.constSpace = mods.has(StateSpace.CONST);
                is.consts = mc.constRanges();
                op = is;
            }
            case MAPA -> {
                need(ins, 3);
                boolean generic = !mods.has(StateSpace.SHARED_CLUSTER);
                op = new MemOps.Mapa(dst(ops.get(0), scope, ins), src(ops.get(1), t, scope, ins), src(ops.get(2), PtxType.U32, scope, ins),
                        generic, t != null && t.size() == 4);
            }
            case GETCTARANK -> {
                need(ins, 2);
                op = new MemOps.GetCtaRank(dst(ops.get(0), scope, ins), src(ops.get(1), t, scope, ins), !mods.has(StateSpace.SHARED_CLUSTER));
            }
            case ATOM, RED -> op = MemoryTranslation.atom(this, ins, key == Opcode.RED, scope, inst, t);
            case SHFL -> op = WarpTranslation.shfl(this, ins, scope);
            case VOTE -> op = WarpTranslation.vote(this, ins, scope);
            case ACTIVEMASK -> {
                need(ins, 1);
                op = new WarpOps.ActiveMask(dst(ops.get(0), scope, ins));
            }
            case MATCH -> {
                boolean all = mods.has(VoteMode.ALL);
                Operand d0 = ops.get(0);
                int d, dp = -1;
                if (d0 instanceof Operand.PredPair pp) {
                    d = dst(pp.first(), scope, ins);
                    dp = predDst(pp.second(), scope, ins);
                } else {
                    d = dst(d0, scope, ins);
                }
                op = new WarpOps.Match(all, t == PtxType.B64 ? 64 : 32, d, dp, src(ops.get(1), t, scope, ins), src(ops.get(2), PtxType.B32, scope, ins));
            }
            case REDUX -> {
                need(ins, 3);
                if (t == PtxType.F32) throw unsupported(ins.loc(), "redux.sync on .f32 is not supported by the emulator");
                int rop = mods.has(ReduceOp.ADD) ? WarpOps.R_ADD : mods.has(ReduceOp.MIN) ? WarpOps.R_MIN : mods.has(ReduceOp.MAX) ? WarpOps.R_MAX
                        : mods.has(ReduceOp.AND) ? WarpOps.R_AND : mods.has(ReduceOp.OR) ? WarpOps.R_OR : WarpOps.R_XOR;
                op = new WarpOps.Redux(rop, t == PtxType.S32, dst(ops.get(0), scope, ins), src(ops.get(1), t, scope, ins), src(ops.get(2), PtxType.B32, scope, ins));
            }
            case ELECT -> {
                Operand d0 = ops.get(0);
                int d = -1, dp;
                if (d0 instanceof Operand.PredPair pp) {
                    d = pp.first() instanceof Operand.Sink ? -1 : dst(pp.first(), scope, ins);
                    dp = predDst(pp.second(), scope, ins);
                } else {
                    dp = predDst(d0, scope, ins);
                }
                op = new WarpOps.Elect(d, dp, src(ops.get(1), PtxType.B32, scope, ins));
            }
            case BAR, BARRIER, BARRIER_CLUSTER -> op = WarpTranslation.barrier(this, ins, scope);
            case BAR_WARP_SYNC, MEMBAR -> op = key == Opcode.MEMBAR ? new Ops.Fence() : new Ops.Nop();
            case FENCE -> op = mods.has(Flag.PROXY) ? new Ops.Nop() : new Ops.Fence();
            case BRA -> {
                String target = ops.size() == 1 ? ops.getFirst().name() : null;
                if (target == null) throw unsupported(ins.loc(), "bra needs a label");
                Op b = new Ops.Bra();
                inst.fixups.add(new Object[] {b, target, ins.loc()});
                op = b;
            }
            case RET -> {
                if (inst.isKernel) {
                    op = new Ops.Exit();
                } else {
                    Op b = new Ops.Bra();
                    inst.returns.add(b);
                    op = b;
                }
            }
            case EXIT -> op = new Ops.Exit();
            case ALLOCA -> {
                // alloca.type ptr, size{, immAlign} (PTX ISA 9.0, 9.7.17.3): immAlign defaults to 8
                need(ins, 2);
                long align = 8;
                if (ops.size() > 2) {
                    Long al = ops.get(2) instanceof Operand.IntImm imm ? Long.valueOf(imm.value()) : null;
                    if (al == null || al <= 0 || Long.bitCount(al) != 1) throw unsupported(ins.loc(), "alloca alignment must be a constant power of two");
                    align = al;
                }
                op = new CallOps.Alloca(dst(ops.get(0), scope, ins), src(ops.get(1), t, scope, ins), align, spSlot(), t == PtxType.U32);
            }
            case STACKSAVE -> {
                need(ins, 1);
                op = new CallOps.StackSave(dst(ops.get(0), scope, ins), spSlot());
            }
            case STACKRESTORE -> {
                need(ins, 1);
                op = new CallOps.StackRestore(src(ops.get(0), t, scope, ins), spSlot(), fpSlot(), t == PtxType.U32);
            }
            case TRAP -> op = new Ops.Trap(Errors.LAUNCH_FAILED, "trap instruction executed");
            // on an H200 without a debugger the launch fails and leaves CUDA_ERROR_LAUNCH_FAILED (conformance/sweep/README.md)
            case BRKPT -> op = new Ops.Trap(Errors.LAUNCH_FAILED, "brkpt instruction executed (no debugger attached)");
            case CALL -> {
                CallTranslation.call(this, ins, scope, inst, guard, gNeg);
                return;
            }
            case NANOSLEEP, PREFETCH, PREFETCHU, PMEVENT, APPLYPRIORITY, DISCARD, GRIDDEPCONTROL, SETMAXNREG, CP_ASYNC_COMMIT_GROUP, CP_ASYNC_WAIT_GROUP, CP_ASYNC_WAIT_ALL -> op = new Ops.Nop();
            case CP_ASYNC -> op = MemoryTranslation.cpAsync(this, ins, scope, inst);
            case MMA, LDMATRIX, STMATRIX, MOVMATRIX, WMMA_LOAD, WMMA_STORE, WMMA_MMA -> op = WarpTranslation.matrix(this, ins, key, scope, inst);
            case CREATEPOLICY -> op = new Ops.Mov(dst(ops.get(0), scope, ins), constSlot(0));
            case TEX, TLD4, SULD, SUST -> op = TextureTranslation.texture(this, ins, key, scope);
            case MBARRIER_INIT, MBARRIER_ARRIVE, MBARRIER_ARRIVE_DROP, MBARRIER_TEST_WAIT, MBARRIER_TRY_WAIT, MBARRIER_PENDING_COUNT, MBARRIER_INVAL -> op = WarpTranslation.mbarrier(this, ins, key, scope, inst);
            default -> throw unsupported(ins.loc(), "instruction '" + ins.form() + "' is not supported by the emulator"
                    + " (PTX ISA " + InstructionTable.isaSection(key.family(), ins.source().modifiers()) + ")");
        }
        emit(op, ins, guard, gNeg);
    }

    void need(Instr ins, int n) {
        if (ins.operands().size() < n) throw unsupported(ins.loc(), ins.form() + " needs " + n + " operands");
    }

    /** The emulator's memory space of the first state-space modifier; generic without one. */
    int space(Modifiers mods, Instr ins) {
        for (StateSpace m : mods.all(StateSpace.class)) {
            switch (m) {
                case GLOBAL, CONST -> { return MemOps.GLOBAL; }
                case SHARED, SHARED_CTA, SHARED_CLUSTER -> { return MemOps.SHARED; }
                case LOCAL -> { return MemOps.LOCAL; }
                case PARAM, PARAM_ENTRY, PARAM_FUNC -> { return MemOps.PARAM; }
                default -> {}
            }
        }
        return MemOps.GENERIC;
    }

    /** The memory space and address of ld/st/atom; symbols pick the space they live in. */
    record MemRef(int space, int base, boolean base32, long offset) {}

    // ------------------------------------------------------------------ calls (inlined)

    // ------------------------------------------------------------------ calls (out of line, CallOps)

    // ------------------------------------------------------------------ warp-level matrix instructions (MatrixOps)

    void addOp(Op op, Instr ins) {
        op.line = ins.loc().line();
        op.form = ins.form();
        code.add(op);
    }

    // ------------------------------------------------------------------ textures, surfaces, mbarrier

}
