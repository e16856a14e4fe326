package dev.zluda.runtime.emulator;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.Ast.*;
import dev.zluda.ptx.FunctionInfo;
import dev.zluda.ptx.InstructionTable;
import dev.zluda.ptx.ParamInfo;
import dev.zluda.ptx.PtxType;

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
 * Translates one kernel from the AST into a {@link Program}: registers become slots, immediates
 * and special registers become preloaded slots, labels become instruction indices, addresses of
 * variables become constants, and calls of device functions are inlined (their registers, locals
 * and parameters get slots and local memory of their own per call site). Anything the emulator
 * cannot execute is reported with its position; the translation then fails as a whole
 * ({@link Errors#NOT_SUPPORTED}), so an unsupported instruction never runs as something else.
 */
final class Translator {
    /** Upper bound on decoded instructions of one kernel (after inlining). */
    static final int MAX_OPS = 2_000_000;

    private final ModuleContext mc;
    private final FunctionInfo kernel;
    private final List<Op> code = new ArrayList<>();
    private int slots;
    private int preds;
    private final Map<Long, Integer> consts = new LinkedHashMap<>();
    private final Map<Integer, Integer> specials = new LinkedHashMap<>();
    private int truePred = -1, falsePred = -1, sinkSlot = -1, sinkPred = -1, ccSlot = -1;
    private final Map<Declarator, Long> sharedOffsets = new IdentityHashMap<>();
    private long staticShared, dynamicOffset;
    private long frame;
    private final Deque<String> callStack = new ArrayDeque<>();
    private int regs32;
    private Scope moduleScope;
    /** Whether .local/.param variables being declared live in the frame of an out-of-line function (FP-relative). */
    private boolean rel;
    /** Largest alignment of the out-of-line function's frame being laid out. */
    private long frameAlign = 8;
    /** High-water mark of {@link #frame} in an out-of-line function (whose nested blocks reuse their space). */
    private long frameHigh;
    private int spSlot = -1, fpSlot = -1;
    /** Out-of-line functions of this kernel ({@link CallOps}), by name; those still to translate. */
    private final Map<String, OutFn> outFns = new LinkedHashMap<>();
    private final Deque<OutFn> pendingFns = new ArrayDeque<>();
    /** The out-of-line function being translated, null for the kernel. */
    private OutFn current;
    /** Calls to resolve once every function is translated: {Call, NextFrame, List<OutFn> targets, OutFn caller}. */
    private final List<Object[]> callFixups = new ArrayList<>();

    /** An out-of-line function: where its code starts, its frame, its registers. */
    private static final class OutFn {
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

    private enum SymKind { REG, PRED, SHARED, LOCAL, GLOBAL, KPARAM, FPARAM }

    /** A resolved name: a register (slot or predicate index) or a variable with its address. */
    private record Sym_(SymKind kind, int slot, long address, PtxType type, int vector, boolean rel) {
        Sym_(SymKind kind, int slot, long address, PtxType type, int vector) {
            this(kind, slot, address, type, vector, false);
        }
    }

    /** A register declaration whose slots are assigned on first use. */
    private final class RegDecl {
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

    private static final class Scope {
        final Scope parent;
        final Map<String, Object> names = new HashMap<>();   // Sym_ or RegDecl
        final Map<String, Object[]> ranges = new HashMap<>(); // prefix -> {RegDecl, count}
        final Map<String, Statement> protos = new HashMap<>(); // label -> CallPrototype or CallTargets

        Scope(Scope parent) {
            this.parent = parent;
        }
    }

    /** One inlined function body (or the kernel itself): labels, return target. */
    private final class Instance {
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

    private Sym_ lookup(Scope s, String name) {
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

    private final class Unsupported extends RuntimeException {
        Unsupported(Loc loc, String message) {
            super(message, null, false, false);
            this.loc = loc;
        }

        final Loc loc;
    }

    private Unsupported unsupported(Loc loc, String message) {
        return new Unsupported(loc, message);
    }

    private void report(Loc loc, String message) {
        mc.error(loc == null ? Loc.NONE : loc, message);
    }

    // ------------------------------------------------------------------ slots

    private int constSlot(long value) {
        return consts.computeIfAbsent(value, v -> 32 * slots++);
    }

    private int specialSlot(int kind) {
        return specials.computeIfAbsent(kind, k -> 32 * slots++);
    }

    private int tempSlot() {
        return 32 * slots++;
    }

    private int truePred() {
        if (truePred < 0) truePred = preds++;
        return truePred;
    }

    private int falsePred() {
        if (falsePred < 0) falsePred = preds++;
        return falsePred;
    }

    private int sink() {
        if (sinkSlot < 0) sinkSlot = tempSlot();
        return sinkSlot;
    }

    private int sinkPred() {
        if (sinkPred < 0) sinkPred = preds++;
        return sinkPred;
    }

    private int spSlot() {
        if (spSlot < 0) {
            spSlot = tempSlot();
            fpSlot = tempSlot();
        }
        return spSlot;
    }

    private int fpSlot() {
        spSlot();
        return fpSlot;
    }

    private int cc() {
        if (ccSlot < 0) ccSlot = tempSlot();
        return ccSlot;
    }

    private long allocFrame(long size, long align) {
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
        for (ParamInfo p : kernel.params()) top.names.put(p.name(), new Sym_(SymKind.KPARAM, -1, p.offset(), p.variable().type(), 1));
        Instance inst = new Instance(f.name(), true);
        callStack.push(f.name());
        try {
            body(f.body(), top, inst);
            code.add(withLoc(new Ops.Exit(), f.loc(), "ret (end of kernel)"));
            finish(inst);
            while (!pendingFns.isEmpty()) translateOutOfLine(pendingFns.pop());
            resolveCalls();
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
        List<Long> r = kernel.directives().get(".reqntid");
        if (r != null && !r.isEmpty()) {
            req = new int[] {1, 1, 1};
            for (int k = 0; k < r.size() && k < 3; k++) req[k] = (int) (long) r.get(k);
            maxThreads = Math.min(maxThreads, req[0] * req[1] * req[2]);
        }
        List<Long> mx = kernel.directives().get(".maxntid");
        if (mx != null && !mx.isEmpty()) {
            long prod = 1;
            for (Long v : mx) prod *= v;
            maxThreads = (int) Math.min(maxThreads, prod);
        }
        return new Kernel(kernel.name(), kernel, prog, staticShared, frameBytes, maxThreads, req, Math.max(1, Math.min(255, regs32)));
    }

    private void finish(Instance inst) {
        for (Object[] fx : inst.fixups) {
            Op op = (Op) fx[0];
            Integer t = inst.labels.get((String) fx[1]);
            if (t == null) throw unsupported((Loc) fx[2], "undefined label '" + fx[1] + "'");
            op.target = t;
        }
    }

    /** Static shared memory: module-level variables, then every function-level one reachable from the kernel. */
    private void layoutShared(Function f) {
        long off = 0;
        long externAlign = 16;
        for (Decl d : mc.moduleShared()) {
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
        List<Decl> fnShared = new ArrayList<>();
        java.util.Set<String> seenFns = new java.util.HashSet<>();
        collectShared(f, fnShared, seenFns);
        for (String t : mc.addressTaken()) collectShared(mc.function(t), fnShared, seenFns);
        for (Decl d : fnShared) {
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

    private void collectShared(Function f, List<Decl> out, java.util.Set<String> seen) {
        if (f == null || f.body() == null || !seen.add(f.name())) return;
        collectShared(f.body(), out, seen);
    }

    private void collectShared(Block b, List<Decl> out, java.util.Set<String> seen) {
        for (Statement s : b.statements()) {
            switch (s) {
                case Decl d when d.space().equals(".shared") -> out.add(d);
                case Block inner -> collectShared(inner, out, seen);
                case Instruction i when i.opcode().equals("call") -> {
                    for (Operand o : i.operands()) {
                        if (o instanceof Ast.Sym sym) {
                            collectShared(mc.function(sym.name()), out, seen);
                            break;
                        }
                    }
                }
                default -> {}
            }
        }
    }

    // ------------------------------------------------------------------ declarations

    static PtxType typeOf(Decl d) {
        for (DeclAttr a : d.attrs()) if (a instanceof Word w && PtxType.fromName(w.text()) != null) return PtxType.fromName(w.text());
        return null;
    }

    static int vectorOf(Decl d) {
        for (DeclAttr a : d.attrs()) {
            if (a instanceof Word w && w.text().matches("\\.v[248]")) return w.text().charAt(2) - '0';
        }
        return 1;
    }

    static long alignOf(Decl d) {
        boolean ptr = false;
        for (DeclAttr a : d.attrs()) {
            if (a instanceof Word w && w.text().equals(".ptr")) ptr = true;
            if (a instanceof Align al && !ptr) return al.bytes();
        }
        PtxType t = typeOf(d);
        return Math.max(1, (t == null ? 1 : t.size()) * vectorOf(d));
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

    private void declare(Decl d, Scope scope, Instance inst) {
        PtxType t = typeOf(d);
        int vec = vectorOf(d);
        switch (d.space()) {
            case ".reg" -> {
                RegDecl rd = new RegDecl(t, vec);
                for (Declarator dc : d.declarators()) {
                    if (!dc.dims().isEmpty()) throw unsupported(dc.loc(), "register arrays are not supported by the emulator");
                    if (dc.rangeCount() != null) scope.ranges.put(dc.name(), new Object[] {rd, dc.rangeCount()});
                    else scope.names.put(dc.name(), rd);
                }
            }
            case ".shared" -> {
                for (Declarator dc : d.declarators()) {
                    boolean ext = d.linkage().contains(Linkage.EXTERN);
                    Long off = ext ? Long.valueOf(dynamicOffset) : sharedOffsets.get(dc);
                    if (off == null) throw unsupported(dc.loc(), "shared variable '" + dc.name() + "' has no layout");
                    scope.names.put(dc.name(), new Sym_(SymKind.SHARED, -1, off, t, vec));
                }
            }
            case ".local" -> {
                for (Declarator dc : d.declarators()) {
                    if (dc.init() != null) throw unsupported(dc.loc(), "initialized .local variables are not supported");
                    scope.names.put(dc.name(), new Sym_(SymKind.LOCAL, -1, allocFrame(sizeOf(d, dc), alignOf(d)), t, vec, rel));
                }
            }
            case ".param" -> {
                for (Declarator dc : d.declarators()) {
                    // out-of-line functions: natural size and alignment, so that a frame takes no more stack than it needs
                    long off = rel ? allocFrame(sizeOf(d, dc), alignOf(d)) : allocFrame(Math.max(sizeOf(d, dc), 8), Math.max(alignOf(d), 8));
                    scope.names.put(dc.name(), new Sym_(SymKind.FPARAM, -1, off, t, vec, rel));
                }
            }
            case ".global", ".const" -> {
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

    private void body(Block b, Scope parent, Instance inst) {
        Scope scope = new Scope(parent);
        Statement prev = null;
        for (Statement s : b.statements()) {
            if (s instanceof Decl d) declare(d, scope, inst);
            if ((s instanceof CallPrototype || s instanceof CallTargets) && prev instanceof Label l) scope.protos.put(l.name(), s);
            prev = s;
        }
        for (Statement s : b.statements()) {
            switch (s) {
                case Label l -> inst.labels.put(l.name(), code.size());
                case Block inner -> {
                    // in an out-of-line function, a block's .param/.local space (a call sequence's) is free again after it
                    long before = frame;
                    body(inner, scope, inst);
                    if (rel) frame = before;
                }
                case Instruction ins -> {
                    try {
                        instruction(ins, scope, inst);
                    } catch (Unsupported u) {
                        report(u.loc, u.getMessage());
                    }
                    if (code.size() > MAX_OPS) throw unsupported(ins.loc(), "kernel too large after inlining (more than " + MAX_OPS + " instructions)");
                }
                case BranchTargets bt -> {}
                default -> {}
            }
        }
    }

    private <T extends Op> T withLoc(T op, Loc loc, String form) {
        op.line = loc == null ? 0 : loc.line();
        op.form = form;
        return op;
    }

    private void emit(Op op, Instruction ins, int guard, boolean guardNeg) {
        op.line = ins.loc().line();
        op.form = ins.form();
        op.guard = guard;
        op.guardNeg = guardNeg;
        code.add(op);
    }

    // ------------------------------------------------------------------ operands

    /** An address {@code [base + offset]} or a symbol plus offset. */
    private record Addr(Sym_ symbol, int base, boolean base32, long offset) {}

    private Addr address(Operand o, Scope scope, Loc loc) {
        if (!(o instanceof AddressOperand a) || a.elements().size() != 1 || !(a.elements().getFirst() instanceof Expr e)) {
            throw unsupported(loc, "unsupported address operand");
        }
        Object[] acc = {null, 0L}; // Sym_ term, offset
        term(e, 1, scope, acc, loc);
        Sym_ s = (Sym_) acc[0];
        long off = (Long) acc[1];
        if (s == null) return new Addr(null, -1, false, off);
        if (s.kind == SymKind.REG) return new Addr(null, s.slot, s.type != null && s.type.size() <= 4, off);
        return new Addr(s, -1, false, off);
    }

    private void term(Expr e, int sign, Scope scope, Object[] acc, Loc loc) {
        switch (e) {
            case Ast.Sym s -> {
                if (acc[0] != null || sign < 0) throw unsupported(loc, "unsupported address expression");
                Sym_ v = lookup(scope, s.name());
                if (v == null) throw unsupported(loc, "undefined symbol '" + s.name() + "'");
                if (s.component() != null && v.kind == SymKind.REG) {
                    v = new Sym_(SymKind.REG, v.slot + 32 * component(s.component(), loc), 0, v.type, 1);
                }
                acc[0] = v;
            }
            case Paren p -> term(p.inner(), sign, scope, acc, loc);
            case Binary b when b.op().equals("+") || b.op().equals("-") -> {
                Long l = ModuleContext.constant(b.left()), r = ModuleContext.constant(b.right());
                if (l != null && r != null) {
                    acc[1] = (Long) acc[1] + sign * (b.op().equals("+") ? l + r : l - r);
                    return;
                }
                term(b.left(), sign, scope, acc, loc);
                term(b.right(), b.op().equals("-") ? -sign : sign, scope, acc, loc);
            }
            default -> {
                Long c = ModuleContext.constant(e);
                if (c == null) throw unsupported(loc, "unsupported address expression");
                acc[1] = (Long) acc[1] + sign * c;
            }
        }
    }

    private static int component(String c, Loc loc) {
        return switch (c) {
            case ".x", ".r" -> 0;
            case ".y", ".g" -> 1;
            case ".z", ".b" -> 2;
            case ".w", ".a" -> 3;
            default -> 0;
        };
    }

    /** The state-space address of a variable symbol, as a value (mov r, sym). */
    private long symbolValue(Sym_ s, Loc loc) {
        return switch (s.kind) {
            case SHARED, LOCAL, GLOBAL, KPARAM, FPARAM -> s.address;
            default -> throw unsupported(loc, "not a variable");
        };
    }

    /** Slot of a value operand of type {@code t}. */
    private int src(Operand o, PtxType t, Scope scope, Instruction ins) {
        Loc loc = ins.loc();
        if (o instanceof Ast.Sym s) {
            if (s.name().startsWith("%")) {
                int timer = timer(s.name());
                if (timer >= 0) {
                    int tmp = tempSlot();
                    Op op = new Ops.Timer(tmp, timer);
                    op.line = loc.line();
                    op.form = ins.form();
                    code.add(op);
                    return tmp;
                }
                int k = Specials.kind(s.name(), s.component());
                if (k >= 0 && lookup(scope, s.name()) == null) return specialSlot(k);
            }
            Sym_ v = lookup(scope, s.name());
            if (v == null) {
                if (s.name().equals("WARP_SZ")) return constSlot(32);
                if (mc.function(s.name()) != null) return constSlot(mc.functionAddress(s.name()));
                throw unsupported(loc, "undefined symbol '" + s.name() + "'");
            }
            return switch (v.kind) {
                case REG -> s.component() != null ? v.slot + 32 * component(s.component(), loc) : v.slot;
                case PRED -> throw unsupported(loc, "predicate '" + s.name() + "' used as a value");
                default -> v.rel ? frameAddress(v.address, ins) : constSlot(symbolValue(v, loc));
            };
        }
        if (o instanceof Expr e) {
            Object[] relSym = relSymbolExpr(e, scope, loc);
            if (relSym != null) return frameAddress(((Sym_) relSym[0]).address + (Long) relSym[1], ins);
            Long sym = symbolExpr(e, scope, loc);
            if (sym != null) return constSlot(sym);
            return constSlot(immediate(e, t, loc));
        }
        throw unsupported(loc, "unsupported operand in " + ins.form());
    }

    /** A temporary slot holding FP + {@code offset}: an address in the running out-of-line function's frame. */
    private int frameAddress(long offset, Instruction ins) {
        int t = tempSlot();
        addOp(new CallOps.FrameAddress(t, fpSlot(), offset), ins);
        return t;
    }

    /** {@code sym + c} for a variable of an out-of-line function's frame: {Sym_, offset}, else null. */
    private Object[] relSymbolExpr(Expr e, Scope scope, Loc loc) {
        if (!(e instanceof Binary) && !(e instanceof Paren) && !(e instanceof Call)) return null;
        if (e instanceof Call c && c.function().equals("generic")) e = c.arg();
        try {
            Object[] acc = {null, 0L};
            term(e, 1, scope, acc, loc);
            if (acc[0] instanceof Sym_ s && s.rel) return acc;
        } catch (Unsupported u) {
            return null;
        }
        return null;
    }

    /** {@code sym + c} as a constant address, or null when {@code e} names no variable. */
    private Long symbolExpr(Expr e, Scope scope, Loc loc) {
        if (!(e instanceof Binary) && !(e instanceof Paren) && !(e instanceof Call)) return null;
        if (e instanceof Call c && c.function().equals("generic")) e = c.arg();
        try {
            Object[] acc = {null, 0L};
            term(e, 1, scope, acc, loc);
            if (acc[0] instanceof Sym_ s && s.kind != SymKind.REG && s.kind != SymKind.PRED) return symbolValue(s, loc) + (Long) acc[1];
        } catch (Unsupported u) {
            return null;
        }
        return null;
    }

    private static int timer(String name) {
        return switch (name) {
            case "%clock" -> Ops.Timer.CLOCK;
            case "%clock_hi" -> Ops.Timer.CLOCK_HI;
            case "%clock64" -> Ops.Timer.CLOCK64;
            case "%globaltimer" -> Ops.Timer.GLOBALTIMER;
            case "%globaltimer_lo" -> Ops.Timer.GLOBALTIMER_LO;
            case "%globaltimer_hi" -> Ops.Timer.GLOBALTIMER_HI;
            default -> -1;
        };
    }

    /** The bits of an immediate for an operand of type {@code t} (PTX ISA 4.5). */
    private long immediate(Expr e, PtxType t, Loc loc) {
        boolean isFloat = t != null && t.kind() == PtxType.Kind.FLOAT;
        Expr inner = e;
        boolean neg = false;
        while (inner instanceof Paren p) inner = p.inner();
        if (inner instanceof Unary u && u.op().equals("-") && (u.operand() instanceof FloatLit || u.operand() instanceof HexFloat)) {
            neg = true;
            inner = u.operand();
        }
        if (inner instanceof HexFloat h) {
            if (!isFloat) {
                long bits = h.bits();
                return neg ? bits ^ (h.dbl() ? Long.MIN_VALUE : 0x8000_0000L) : bits;
            }
            double v = neg ? -h.value() : h.value();
            return floatBits(v, t, h.dbl() ? -1 : (int) h.bits(), neg);
        }
        if (inner instanceof FloatLit f) {
            double v = neg ? -f.value() : f.value();
            if (!isFloat) return (long) v;
            return floatBits(v, t, -1, false);
        }
        Long c = ModuleContext.constant(e);
        if (c == null) throw unsupported(loc, "unsupported immediate operand");
        boolean half = t == PtxType.F16 || t == PtxType.BF16 || t == PtxType.F16X2 || t == PtxType.BF16X2;
        if (isFloat && !half) return floatBits(c, t, -1, false);
        return c;
    }

    private static long floatBits(double v, PtxType t, int exactF32Bits, boolean neg) {
        return switch (t) {
            case F64 -> Double.doubleToRawLongBits(v);
            case F16, F16X2 -> FloatMath.toHalf((float) v, FloatMath.RN);
            case BF16, BF16X2 -> FloatMath.toBf16((float) v, FloatMath.RN);
            default -> exactF32Bits != -1 ? (exactF32Bits ^ (neg ? 0x8000_0000 : 0)) & 0xFFFF_FFFFL : Float.floatToRawIntBits((float) v) & 0xFFFF_FFFFL;
        };
    }

    /** Slot of a destination register; {@code _} is a sink. */
    private int dst(Operand o, Scope scope, Instruction ins) {
        if (o instanceof Ast.Sym s) {
            if (s.name().equals("_")) return sink();
            Sym_ v = lookup(scope, s.name());
            if (v == null) throw unsupported(ins.loc(), "undefined symbol '" + s.name() + "'");
            if (v.kind == SymKind.REG) return s.component() != null ? v.slot + 32 * component(s.component(), ins.loc()) : v.slot;
        }
        throw unsupported(ins.loc(), "destination of " + ins.form() + " must be a register");
    }

    private Sym_ regSym(Operand o, Scope scope) {
        if (o instanceof Ast.Sym s && !s.name().equals("_")) {
            Sym_ v = lookup(scope, s.name());
            if (v != null && (v.kind == SymKind.REG || v.kind == SymKind.PRED)) return v;
        }
        return null;
    }

    private boolean isPred(Operand o, Scope scope) {
        if (o instanceof NegPred) return true;
        Sym_ v = regSym(o, scope);
        return v != null && v.kind == SymKind.PRED;
    }

    /** A predicate source: index and negation ({@code !p}); immediates 0/1 are constant predicates. */
    private int[] predSrc(Operand o, Scope scope, Instruction ins) {
        if (o instanceof NegPred n) {
            Sym_ v = lookup(scope, n.name());
            if (v == null || v.kind != SymKind.PRED) throw unsupported(ins.loc(), "'" + n.name() + "' is not a predicate");
            return new int[] {v.slot, 1};
        }
        if (o instanceof Ast.Sym s) {
            Sym_ v = lookup(scope, s.name());
            if (v != null && v.kind == SymKind.PRED) return new int[] {v.slot, 0};
        }
        if (o instanceof Expr e) {
            Long c = ModuleContext.constant(e);
            if (c != null) return new int[] {c != 0 ? truePred() : falsePred(), 0};
        }
        throw unsupported(ins.loc(), "expected a predicate operand in " + ins.form());
    }

    private int predDst(Operand o, Scope scope, Instruction ins) {
        if (o instanceof Ast.Sym s) {
            if (s.name().equals("_")) return sinkPred();
            Sym_ v = lookup(scope, s.name());
            if (v != null && v.kind == SymKind.PRED) return v.slot;
        }
        throw unsupported(ins.loc(), "expected a predicate destination in " + ins.form());
    }

    // ------------------------------------------------------------------ instructions

    private static final Set<String> SPACES = Set.of(".global", ".shared", ".local", ".param", ".const", ".shared::cta",
            ".shared::cluster", ".param::entry", ".param::func");

    private void instruction(Instruction ins, Scope scope, Instance inst) {
        int guard = -1;
        boolean gNeg = false;
        if (ins.guard() != null) {
            Sym_ g = lookup(scope, ins.guard().predicate());
            if (g == null || g.kind != SymKind.PRED) throw unsupported(ins.loc(), "guard is not a predicate");
            guard = g.slot;
            gNeg = ins.guard().negated();
        }
        InstructionTable.Family fam = InstructionTable.lookup(ins);
        String key = fam == null ? ins.opcode() : fam.key();
        List<String> mods = ins.modifiers();
        // mad.lo.cc / mad.hi.cc (PTX ISA 9.7.2.5): the family key needs .cc first, the ISA writes it after .lo/.hi
        if (key.equals("mad") && mods.contains(".cc")) key = "mad.cc";
        List<Operand> ops = ins.operands();
        List<PtxType> types = new ArrayList<>();
        for (String m : mods) {
            PtxType t = PtxType.fromName(m);
            if (t != null) types.add(t);
        }
        PtxType t = types.isEmpty() ? null : types.getLast();
        Op op;
        switch (key) {
            case "mov" -> op = mov(ins, scope, t);
            case "ld", "ldu" -> op = load(ins, scope, inst, t);
            case "st" -> op = store(ins, scope, inst, t);
            case "add", "sub", "mul", "mad", "div", "rem", "abs", "neg", "min", "max", "mul24", "mad24", "sad", "fma",
                 "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh", "copysign" -> op = arith(ins, key, scope, t);
            case "add.cc", "addc", "sub.cc", "subc", "mad.cc", "madc" -> op = carry(ins, key, scope, t);
            case "and", "or", "xor", "not", "cnot", "shl", "shr", "popc", "clz", "brev", "bfind", "bfe", "bfi", "prmt",
                 "lop3", "shf", "bmsk", "szext", "fns", "dp4a", "dp2a" -> op = logic(ins, key, scope, t);
            case "setp" -> op = setp(ins, scope, t);
            case "set" -> op = set(ins, scope, types);
            case "selp" -> {
                need(ins, 4);
                int[] c = predSrc(ops.get(3), scope, ins);
                op = new FloatOps.Selp(dst(ops.get(0), scope, ins), src(ops.get(1), t, scope, ins), src(ops.get(2), t, scope, ins), c[0], c[1] != 0);
            }
            case "slct" -> {
                need(ins, 4);
                boolean cf = t == PtxType.F32;
                op = new FloatOps.Slct(dst(ops.get(0), scope, ins), src(ops.get(1), types.getFirst(), scope, ins),
                        src(ops.get(2), types.getFirst(), scope, ins), src(ops.get(3), t, scope, ins), cf, mods.contains(".ftz"));
            }
            case "testp" -> {
                need(ins, 2);
                int kind = mods.contains(".finite") ? FloatOps.Testp.FINITE : mods.contains(".infinite") ? FloatOps.Testp.INFINITE
                        : mods.contains(".number") ? FloatOps.Testp.NUMBER : mods.contains(".notanumber") ? FloatOps.Testp.NOTANUMBER
                        : mods.contains(".normal") ? FloatOps.Testp.NORMAL_ : FloatOps.Testp.SUBNORMAL;
                op = new FloatOps.Testp(kind, t == PtxType.F64, predDst(ops.get(0), scope, ins), src(ops.get(1), t, scope, ins));
            }
            case "cvt" -> op = cvt(ins, scope, types);
            case "cvt.pack" -> {
                // cvt.pack.sat.{u8,s8,u16,s16}.s32{.b32} d, a, b{, c} (PTX ISA 9.0, 9.7.9.22)
                if (types.size() < 2 || !mods.contains(".sat")) throw unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
                PtxType ct = types.getFirst();
                if (ct != PtxType.U8 && ct != PtxType.S8 && ct != PtxType.U16 && ct != PtxType.S16) {
                    throw unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
                }
                need(ins, ops.size() == 4 ? 4 : 3);
                op = new FloatOps.CvtPack(ct, dst(ops.get(0), scope, ins), src(ops.get(1), PtxType.S32, scope, ins), src(ops.get(2), PtxType.S32, scope, ins),
                        ops.size() == 4 ? src(ops.get(3), PtxType.B32, scope, ins) : -1);
            }
            case "cvta" -> {
                need(ins, 2);
                boolean to = mods.contains(".to");
                int space = space(mods, ins);
                op = new MemOps.Cvta(dst(ops.get(0), scope, ins), src(ops.get(1), t, scope, ins), space, to, t != null && t.size() == 4);
            }
            case "isspacep" -> {
                need(ins, 2);
                op = new MemOps.IsSpace(predDst(ops.get(0), scope, ins), src(ops.get(1), PtxType.U64, scope, ins), space(mods, ins));
            }
            case "atom", "red" -> op = atom(ins, key.equals("red"), scope, inst, t);
            case "shfl" -> op = shfl(ins, scope);
            case "vote" -> op = vote(ins, scope);
            case "activemask" -> {
                need(ins, 1);
                op = new WarpOps.ActiveMask(dst(ops.get(0), scope, ins));
            }
            case "match" -> {
                boolean all = mods.contains(".all");
                Operand d0 = ops.get(0);
                int d, dp = -1;
                if (d0 instanceof PredPair pp) {
                    d = dst(new Ast.Sym(pp.first(), null), scope, ins);
                    dp = predDst(new Ast.Sym(pp.second(), null), scope, ins);
                } else {
                    d = dst(d0, scope, ins);
                }
                op = new WarpOps.Match(all, t == PtxType.B64 ? 64 : 32, d, dp, src(ops.get(1), t, scope, ins), src(ops.get(2), PtxType.B32, scope, ins));
            }
            case "redux" -> {
                need(ins, 3);
                if (t == PtxType.F32) throw unsupported(ins.loc(), "redux.sync on .f32 is not supported by the emulator");
                int rop = mods.contains(".add") ? WarpOps.R_ADD : mods.contains(".min") ? WarpOps.R_MIN : mods.contains(".max") ? WarpOps.R_MAX
                        : mods.contains(".and") ? WarpOps.R_AND : mods.contains(".or") ? WarpOps.R_OR : WarpOps.R_XOR;
                op = new WarpOps.Redux(rop, t == PtxType.S32, dst(ops.get(0), scope, ins), src(ops.get(1), t, scope, ins), src(ops.get(2), PtxType.B32, scope, ins));
            }
            case "elect" -> {
                Operand d0 = ops.get(0);
                int d = -1, dp;
                if (d0 instanceof PredPair pp) {
                    d = pp.first().equals("_") ? -1 : dst(new Ast.Sym(pp.first(), null), scope, ins);
                    dp = predDst(new Ast.Sym(pp.second(), null), scope, ins);
                } else {
                    dp = predDst(d0, scope, ins);
                }
                op = new WarpOps.Elect(d, dp, src(ops.get(1), PtxType.B32, scope, ins));
            }
            case "bar", "barrier" -> op = barrier(ins, scope);
            case "bar.warp.sync", "membar" -> op = key.equals("membar") ? new Ops.Fence() : new Ops.Nop();
            case "fence" -> op = mods.contains(".proxy") || mods.stream().anyMatch(m -> m.startsWith(".proxy")) ? new Ops.Nop() : new Ops.Fence();
            case "bra" -> {
                if (ops.size() != 1 || !(ops.getFirst() instanceof Ast.Sym target)) throw unsupported(ins.loc(), "bra needs a label");
                Op b = new Ops.Bra();
                inst.fixups.add(new Object[] {b, target.name(), ins.loc()});
                op = b;
            }
            case "ret" -> {
                if (inst.isKernel) {
                    op = new Ops.Exit();
                } else {
                    Op b = new Ops.Bra();
                    inst.returns.add(b);
                    op = b;
                }
            }
            case "exit" -> op = new Ops.Exit();
            case "alloca" -> {
                // alloca.type ptr, size{, immAlign} (PTX ISA 9.0, 9.7.17.3): immAlign defaults to 8
                need(ins, 2);
                long align = 8;
                if (ops.size() > 2) {
                    Long al = ops.get(2) instanceof Expr e ? ModuleContext.constant(e) : null;
                    if (al == null || al <= 0 || Long.bitCount(al) != 1) throw unsupported(ins.loc(), "alloca alignment must be a constant power of two");
                    align = al;
                }
                op = new CallOps.Alloca(dst(ops.get(0), scope, ins), src(ops.get(1), t, scope, ins), align, spSlot(), t == PtxType.U32);
            }
            case "stacksave" -> {
                need(ins, 1);
                op = new CallOps.StackSave(dst(ops.get(0), scope, ins), spSlot());
            }
            case "stackrestore" -> {
                need(ins, 1);
                op = new CallOps.StackRestore(src(ops.get(0), t, scope, ins), spSlot(), fpSlot(), t == PtxType.U32);
            }
            case "trap" -> op = new Ops.Trap(Errors.LAUNCH_FAILED, "trap instruction executed");
            case "brkpt" -> op = new Ops.Trap(Errors.ILLEGAL_INSTRUCTION, "brkpt instruction executed (no debugger attached)");
            case "call" -> {
                call(ins, scope, inst, guard, gNeg);
                return;
            }
            case "nanosleep", "prefetch", "prefetchu", "pmevent", "applypriority", "discard", "griddepcontrol", "setmaxnreg",
                 "cp.async.commit_group", "cp.async.wait_group", "cp.async.wait_all" -> op = new Ops.Nop();
            case "cp.async" -> op = cpAsync(ins, scope, inst);
            case "mma", "ldmatrix", "stmatrix", "wmma.load", "wmma.store", "wmma.mma" -> op = matrix(ins, key, scope, inst);
            case "createpolicy" -> op = new Ops.Mov(dst(ops.get(0), scope, ins), constSlot(0));
            case "tex", "tld4", "suld", "sust" -> op = texture(ins, key, scope);
            case "mbarrier.init", "mbarrier.arrive", "mbarrier.arrive_drop", "mbarrier.test_wait", "mbarrier.try_wait",
                 "mbarrier.pending_count", "mbarrier.inval" -> op = mbarrier(ins, key, scope, inst);
            default -> throw unsupported(ins.loc(), "instruction '" + ins.form() + "' is not supported by the emulator"
                    + (fam != null ? " (PTX ISA " + InstructionTable.isaSection(fam, mods) + ")" : ""));
        }
        emit(op, ins, guard, gNeg);
    }

    private void need(Instruction ins, int n) {
        if (ins.operands().size() < n) throw unsupported(ins.loc(), ins.form() + " needs " + n + " operands");
    }

    private int space(List<String> mods, Instruction ins) {
        for (String m : mods) {
            switch (m) {
                case ".global", ".const" -> { return MemOps.GLOBAL; }
                case ".shared", ".shared::cta", ".shared::cluster" -> { return MemOps.SHARED; }
                case ".local" -> { return MemOps.LOCAL; }
                case ".param", ".param::entry", ".param::func" -> { return MemOps.PARAM; }
                default -> {}
            }
        }
        return MemOps.GENERIC;
    }

    private Op mov(Instruction ins, Scope scope, PtxType t) {
        need(ins, 2);
        Operand d = ins.operands().get(0), a = ins.operands().get(1);
        if (t == PtxType.PRED) {
            int pd = predDst(d, scope, ins);
            if (a instanceof Expr e && ModuleContext.constant(e) != null) {
                return new Ops.PredLogic(Ops.PredLogic.CONST, pd, 0, false, -1, false, ModuleContext.constant(e) != 0);
            }
            int[] ps = predSrc(a, scope, ins);
            return new Ops.PredLogic(Ops.PredLogic.MOV, pd, ps[0], ps[1] != 0, -1, false, false);
        }
        if (t == null) throw unsupported(ins.loc(), "mov without a type");
        if (d instanceof VectorOperand v) {
            int[] parts = new int[v.elements().size()];
            for (int i = 0; i < parts.length; i++) {
                Operand e = v.elements().get(i);
                parts[i] = e instanceof Ast.Sym s && s.name().equals("_") ? -1 : dst(e, scope, ins);
            }
            return new Ops.Unpack(src(a, t, scope, ins), t.size() * 8 / parts.length, parts);
        }
        if (a instanceof VectorOperand v) {
            int[] parts = new int[v.elements().size()];
            int bits = t.size() * 8 / parts.length;
            PtxType pt = switch (bits) {
                case 8 -> PtxType.B8;
                case 16 -> PtxType.B16;
                case 32 -> PtxType.B32;
                default -> PtxType.B64;
            };
            for (int i = 0; i < parts.length; i++) {
                Operand e = v.elements().get(i);
                parts[i] = e instanceof Ast.Sym s && s.name().equals("_") ? -1 : src(e, pt, scope, ins);
            }
            return new Ops.Pack(dst(d, scope, ins), bits, parts);
        }
        if (a instanceof Ast.Sym s && timer(s.name()) >= 0) return new Ops.Timer(dst(d, scope, ins), timer(s.name()));
        if (isPred(a, scope)) {
            throw unsupported(ins.loc(), "mov of a predicate into a ." + t.name().toLowerCase() + " register");
        }
        return new Ops.Mov(dst(d, scope, ins), src(a, t, scope, ins));
    }

    /** The memory space and address of ld/st/atom; symbols pick the space they live in. */
    private record MemRef(int space, int base, boolean base32, long offset) {}

    private MemRef memRef(Instruction ins, Operand addrOp, Scope scope, Instance inst, int how) {
        int space = space(ins.modifiers(), ins);
        Addr a = address(addrOp, scope, ins.loc());
        if (a.symbol == null) {
            if (space == MemOps.PARAM && !inst.isKernel) {
                throw unsupported(ins.loc(), "ld/st.param through a register inside a device function is not supported by the emulator");
            }
            if (space == MemOps.PARAM && how != Warp.READ) {
                throw unsupported(ins.loc(), "writing kernel parameters is not supported by the emulator");
            }
            return new MemRef(space, a.base, a.base32 || space == MemOps.SHARED || space == MemOps.LOCAL || space == MemOps.PARAM, a.offset);
        }
        Sym_ s = a.symbol;
        long addr = s.address + a.offset;
        if (s.rel) {
            if (space == MemOps.GENERIC) return new MemRef(MemOps.GENERIC, frameAddress(Mem.LOCAL_WINDOW + addr, ins), false, 0);
            if (space != MemOps.LOCAL && space != MemOps.PARAM) {
                throw unsupported(ins.loc(), "'" + ins.form() + "' names a variable of another state space (local)");
            }
            return new MemRef(MemOps.LOCAL, fpSlot(), false, addr);
        }
        int symSpace = switch (s.kind) {
            case SHARED -> MemOps.SHARED;
            case LOCAL, FPARAM -> MemOps.LOCAL;
            case KPARAM -> MemOps.PARAM;
            default -> MemOps.GLOBAL;
        };
        if (space == MemOps.GENERIC) {
            long generic = switch (symSpace) {
                case MemOps.SHARED -> Mem.SHARED_WINDOW + addr;
                case MemOps.LOCAL -> Mem.LOCAL_WINDOW + addr;
                case MemOps.PARAM -> Mem.PARAM_WINDOW + addr;
                default -> addr;
            };
            return new MemRef(MemOps.GENERIC, -1, false, generic);
        }
        if (space == MemOps.PARAM && s.kind == SymKind.KPARAM && how != Warp.READ) {
            throw unsupported(ins.loc(), "writing kernel parameters is not supported by the emulator");
        }
        boolean compatible = space == symSpace || (space == MemOps.PARAM && symSpace == MemOps.LOCAL)
                || (space == MemOps.GLOBAL && symSpace == MemOps.GLOBAL);
        if (!compatible) {
            throw unsupported(ins.loc(), "'" + ins.form() + "' names a variable of another state space (" + MemOps.spaceName(symSpace) + ")");
        }
        return new MemRef(symSpace, -1, false, addr);
    }

    private static boolean hasAny(List<String> mods, String... words) {
        for (String w : words) if (mods.contains(w)) return true;
        return false;
    }

    private static int vectorWidth(List<String> mods) {
        for (String m : mods) {
            if (m.equals(".v2")) return 2;
            if (m.equals(".v4")) return 4;
            if (m.equals(".v8")) return 8;
        }
        return 1;
    }

    private Op load(Instruction ins, Scope scope, Instance inst, PtxType t) {
        need(ins, 2);
        if (t == null || t.size() == 0 || t.size() > 8) throw unsupported(ins.loc(), "'" + ins.form() + "': type not supported by the emulator");
        MemRef ref = memRef(ins, ins.operands().get(1), scope, inst, Warp.READ);
        Operand d = ins.operands().get(0);
        int[] dsts;
        if (d instanceof VectorOperand v) {
            dsts = new int[v.elements().size()];
            for (int i = 0; i < dsts.length; i++) {
                Operand e = v.elements().get(i);
                dsts[i] = e instanceof Ast.Sym s && s.name().equals("_") ? -1 : dst(e, scope, ins);
            }
        } else {
            if (isPred(d, scope)) throw unsupported(ins.loc(), "ld into a predicate");
            dsts = new int[] {dst(d, scope, ins)};
        }
        if (vectorWidth(ins.modifiers()) != dsts.length) throw unsupported(ins.loc(), "vector width does not match the operand");
        boolean acquire = hasAny(ins.modifiers(), ".acquire", ".volatile");
        return new MemOps.Ld(ref.space, ref.base, ref.base32, ref.offset, t.size(), t.kind() == PtxType.Kind.SIGNED, dsts, acquire);
    }

    private Op store(Instruction ins, Scope scope, Instance inst, PtxType t) {
        need(ins, 2);
        if (t == null || t.size() == 0 || t.size() > 8) throw unsupported(ins.loc(), "'" + ins.form() + "': type not supported by the emulator");
        MemRef ref = memRef(ins, ins.operands().get(0), scope, inst, Warp.WRITE);
        Operand v = ins.operands().get(1);
        int[] srcs;
        if (v instanceof VectorOperand vo) {
            srcs = new int[vo.elements().size()];
            for (int i = 0; i < srcs.length; i++) srcs[i] = src(vo.elements().get(i), t, scope, ins);
        } else {
            if (isPred(v, scope)) throw unsupported(ins.loc(), "st of a predicate");
            srcs = new int[] {src(v, t, scope, ins)};
        }
        if (vectorWidth(ins.modifiers()) != srcs.length) throw unsupported(ins.loc(), "vector width does not match the operand");
        boolean release = hasAny(ins.modifiers(), ".release", ".volatile");
        return new MemOps.St(ref.space, ref.base, ref.base32, ref.offset, t.size(), srcs, release);
    }

    private Op atom(Instruction ins, boolean red, Scope scope, Instance inst, PtxType t) {
        List<String> mods = ins.modifiers();
        List<Operand> ops = ins.operands();
        boolean halfT = t == PtxType.F16 || t == PtxType.BF16 || t == PtxType.F16X2 || t == PtxType.BF16X2;
        // atom.cas.b16 (PTX ISA 9.0, §9.7.13.5, sm_70+): the one 16-bit integer atomic
        boolean cas16 = t == PtxType.B16 && mods.contains(".cas") && !red;
        if (t == PtxType.B128) throw unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator (.b128 atomics: the emulator has no 128-bit registers)");
        if (t == null || (t.size() != 4 && t.size() != 8 && !halfT && !cas16)) {
            throw unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator (only 32- and 64-bit atomics, atom.cas.b16 and half-precision adds)");
        }
        int vec = vectorWidth(mods);
        if (vec != 1) return vectorAtom(ins, red, scope, inst, t, vec);
        if (halfT && !mods.contains(".add")) throw unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
        int aop = mods.contains(".add") ? MemOps.A_ADD : mods.contains(".min") ? MemOps.A_MIN : mods.contains(".max") ? MemOps.A_MAX
                : mods.contains(".inc") ? MemOps.A_INC : mods.contains(".dec") ? MemOps.A_DEC : mods.contains(".and") ? MemOps.A_AND
                : mods.contains(".or") ? MemOps.A_OR : mods.contains(".xor") ? MemOps.A_XOR : mods.contains(".exch") ? MemOps.A_EXCH
                : mods.contains(".cas") ? MemOps.A_CAS : -1;
        if (aop < 0) throw unsupported(ins.loc(), "'" + ins.form() + "': unknown atomic operation");
        int type = switch (t.kind()) {
            case SIGNED -> MemOps.T_S;
            case FLOAT -> MemOps.T_F;
            case BIT -> MemOps.T_B;
            default -> MemOps.T_U;
        };
        if (type == MemOps.T_F && aop != MemOps.A_ADD && aop != MemOps.A_EXCH) throw unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
        int i = red ? 0 : 1;
        need(ins, i + 2 + (aop == MemOps.A_CAS ? 1 : 0));
        MemRef ref = memRef(ins, ops.get(i), scope, inst, Warp.ATOMIC);
        if (ref.space == MemOps.PARAM) throw unsupported(ins.loc(), "atomics on parameters");
        int d = red ? -1 : dst(ops.get(0), scope, ins);
        int b = src(ops.get(i + 1), t, scope, ins);
        int c = aop == MemOps.A_CAS ? src(ops.get(i + 2), t, scope, ins) : -1;
        MemOps.Atom atom = new MemOps.Atom(ref.space, ref.base, ref.base32, ref.offset, aop, type, t.size() * 8, d, b, c);
        if (halfT) atom.half = t == PtxType.F16 || t == PtxType.F16X2 ? 1 : 2;
        return atom;
    }

    /**
     * Vector atom/red (PTX ISA 9.0 §9.7.13.5, §9.7.13.6, sm_90): {@code .add .v2/.v4 .f32},
     * {@code .add/.min/.max.noftz .v2/.v4/.v8 .f16/.bf16} and {@code .v2/.v4 .f16x2/.bf16x2}, on
     * {@code .global} or a generic address of global memory; d and b are brace-enclosed vectors of
     * {@code vec} elements (d's may be {@code _}). Each element is its own atomic on its own address.
     */
    private Op vectorAtom(Instruction ins, boolean red, Scope scope, Instance inst, PtxType t, int vec) {
        List<String> mods = ins.modifiers();
        List<Operand> ops = ins.operands();
        boolean f32 = t == PtxType.F32, half = t == PtxType.F16 || t == PtxType.BF16, packed = t == PtxType.F16X2 || t == PtxType.BF16X2;
        int aop = mods.contains(".add") ? MemOps.A_ADD : mods.contains(".min") ? MemOps.A_MIN : mods.contains(".max") ? MemOps.A_MAX : -1;
        boolean ok = (f32 && aop == MemOps.A_ADD && vec <= 4) || (half && aop >= 0) || (packed && aop >= 0 && vec <= 4);
        if (!ok) {
            throw unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator (vector atomics: .add .v2/.v4 .f32, "
                    + ".add/.min/.max .v2/.v4/.v8 .f16/.bf16, .v2/.v4 .f16x2/.bf16x2)");
        }
        int i = red ? 0 : 1;
        need(ins, i + 2);
        MemRef ref = memRef(ins, ops.get(i), scope, inst, Warp.ATOMIC);
        if (ref.space != MemOps.GLOBAL && ref.space != MemOps.GENERIC) {
            throw unsupported(ins.loc(), "'" + ins.form() + "': vector atomics exist only for .global (PTX ISA 9.0 §9.7.13.5)");
        }
        if (!(ops.get(i + 1) instanceof VectorOperand bv) || bv.elements().size() != vec) {
            throw unsupported(ins.loc(), "'" + ins.form() + "': b must be a vector of " + vec + " elements");
        }
        int[] bs = new int[vec];
        for (int e = 0; e < vec; e++) bs[e] = src(bv.elements().get(e), t, scope, ins);
        int[] ds = null;
        if (!red) {
            if (!(ops.get(0) instanceof VectorOperand dv) || dv.elements().size() != vec) {
                throw unsupported(ins.loc(), "'" + ins.form() + "': d must be a vector of " + vec + " elements");
            }
            ds = new int[vec];
            for (int e = 0; e < vec; e++) {
                Operand o = dv.elements().get(e);
                ds[e] = o instanceof Ast.Sym s && s.name().equals("_") ? -1 : dst(o, scope, ins);
            }
        }
        MemOps.Atom atom = new MemOps.Atom(ref.space, ref.base, ref.base32, ref.offset, aop, MemOps.T_F, t.size() * 8, -1, -1, -1);
        atom.ds = ds;
        atom.bs = bs;
        if (!f32) atom.half = t == PtxType.F16 || t == PtxType.F16X2 ? 1 : 2;
        return atom;
    }

    /**
     * cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size | , ignore-src}{, cache-policy}
     * (PTX ISA 9.7.9.25.3): the copy is done at once, so commit_group/wait_group have nothing to wait for.
     */
    private Op cpAsync(Instruction ins, Scope scope, Instance inst) {
        List<String> mods = ins.modifiers();
        List<Operand> ops = new ArrayList<>(ins.operands());
        if (mods.contains(".L2::cache_hint") && ops.size() > 3) ops.removeLast();
        if (ops.size() < 3) throw unsupported(ins.loc(), ins.form() + " needs a destination, a source and a size");
        Addr d = address(ops.get(0), scope, ins.loc());
        Addr s = address(ops.get(1), scope, ins.loc());
        Long size = ops.get(2) instanceof Expr e ? ModuleContext.constant(e) : null;
        if (size == null || (size != 4 && size != 8 && size != 16)) throw unsupported(ins.loc(), "cp.async size must be 4, 8 or 16");
        int srcSize = -1, ignore = -1;
        boolean ignoreNeg = false;
        if (ops.size() > 3) {
            if (isPred(ops.get(3), scope)) {
                int[] p = predSrc(ops.get(3), scope, ins);
                ignore = p[0];
                ignoreNeg = p[1] != 0;
            } else {
                srcSize = src(ops.get(3), PtxType.U32, scope, ins);
            }
        }
        long dOff = d.symbol != null ? d.symbol.address + d.offset : d.offset;
        long sOff = s.symbol != null ? s.symbol.address + s.offset : s.offset;
        if (d.symbol != null && d.symbol.kind != SymKind.SHARED) throw unsupported(ins.loc(), "cp.async destination must be shared memory");
        return new MemOps.CpAsync(d.base, dOff, s.base, sOff, (int) (long) size, srcSize, ignore, ignoreNeg);
    }

    private static int rounding(List<String> mods) {
        for (String m : mods) {
            switch (m) {
                case ".rn", ".rni", ".rna" -> { return FloatMath.RN; }
                case ".rz", ".rzi" -> { return FloatMath.RZ; }
                case ".rm", ".rmi" -> { return FloatMath.RM; }
                case ".rp", ".rpi" -> { return FloatMath.RP; }
                default -> {}
            }
        }
        return FloatMath.RN;
    }

    private static PtxType widen(PtxType t) {
        return switch (t) {
            case U16 -> PtxType.U32;
            case U32 -> PtxType.U64;
            case S16 -> PtxType.S32;
            case S32 -> PtxType.S64;
            default -> t;
        };
    }

    private Op arith(Instruction ins, String key, Scope scope, PtxType t) {
        List<String> mods = ins.modifiers();
        List<Operand> ops = ins.operands();
        if (t == null) throw unsupported(ins.loc(), ins.form() + " without a type");
        boolean unary = switch (key) {
            case "abs", "neg", "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh" -> true;
            default -> false;
        };
        boolean ternary = key.equals("mad") || key.equals("fma") || key.equals("mad24") || key.equals("sad");
        need(ins, unary ? 2 : ternary ? 4 : 3);
        if (t == PtxType.F32 || t == PtxType.F64) {
            boolean f64 = t == PtxType.F64;
            int kind = switch (key) {
                case "add" -> FloatOps.ADD;
                case "sub" -> FloatOps.SUB;
                case "mul" -> FloatOps.MUL;
                case "mad", "fma" -> FloatOps.FMA;
                case "div" -> mods.contains(".approx") ? FloatOps.DIV_APPROX : mods.contains(".full") ? FloatOps.DIV_FULL : FloatOps.DIV;
                case "abs" -> FloatOps.ABS;
                case "neg" -> FloatOps.NEG;
                case "min" -> FloatOps.MIN;
                case "max" -> FloatOps.MAX;
                case "sqrt" -> FloatOps.SQRT;
                case "rsqrt" -> FloatOps.RSQRT;
                case "rcp" -> mods.contains(".approx") ? FloatOps.RCP_APPROX : FloatOps.RCP;
                case "sin" -> FloatOps.SIN;
                case "cos" -> FloatOps.COS;
                case "lg2" -> FloatOps.LG2;
                case "ex2" -> FloatOps.EX2;
                case "tanh" -> FloatOps.TANH;
                case "copysign" -> FloatOps.COPYSIGN;
                default -> throw unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
            };
            boolean xorsign = mods.contains(".xorsign");
            if (mods.contains(".relu") || (xorsign && (f64 || !mods.contains(".abs") || (kind != FloatOps.MIN && kind != FloatOps.MAX)))) {
                throw unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
            }
            int d = dst(ops.get(0), scope, ins);
            int a = src(ops.get(1), t, scope, ins);
            int b = unary ? -1 : src(ops.get(2), t, scope, ins);
            int c = ternary ? src(ops.get(3), t, scope, ins) : -1;
            FloatOps.Arith ar = new FloatOps.Arith(kind, f64, rounding(mods), mods.contains(".ftz"), mods.contains(".sat"), mods.contains(".NaN"), d, a, b, c);
            ar.xorsign = xorsign;
            return ar;
        }
        if (t == PtxType.F16 || t == PtxType.BF16 || t == PtxType.F16X2 || t == PtxType.BF16X2) {
            int kind = switch (key) {
                case "add" -> FloatOps.ADD;
                case "sub" -> FloatOps.SUB;
                case "mul" -> FloatOps.MUL;
                case "fma", "mad" -> FloatOps.FMA;
                case "neg" -> FloatOps.NEG;
                case "abs" -> FloatOps.ABS;
                case "min" -> FloatOps.MIN;
                case "max" -> FloatOps.MAX;
                case "ex2" -> FloatOps.EX2;
                case "tanh" -> FloatOps.TANH;
                default -> throw unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
            };
            boolean xorsign = mods.contains(".xorsign");
            if ((xorsign && (!mods.contains(".abs") || (kind != FloatOps.MIN && kind != FloatOps.MAX))) || mods.contains(".rz") || mods.contains(".rm")
                    || mods.contains(".rp") || mods.contains(".oob") || mods.contains(".satfinite")) {
                throw unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
            }
            int d = dst(ops.get(0), scope, ins);
            int a = src(ops.get(1), t, scope, ins);
            int b = unary ? -1 : src(ops.get(2), t, scope, ins);
            int c = ternary ? src(ops.get(3), t, scope, ins) : -1;
            boolean bf = t == PtxType.BF16 || t == PtxType.BF16X2;
            FloatOps.Half h = new FloatOps.Half(kind, bf, t == PtxType.F16X2 || t == PtxType.BF16X2, mods.contains(".ftz"), mods.contains(".sat"),
                    mods.contains(".relu"), mods.contains(".NaN"), d, a, b, c);
            h.xorsign = xorsign;
            return h;
        }
        if (t.kind() == PtxType.Kind.FLOAT) throw unsupported(ins.loc(), "'" + ins.form() + "' (" + t.ptxName() + " arithmetic) is not supported by the emulator");
        boolean packed = t == PtxType.U16X2 || t == PtxType.S16X2;
        boolean signed = t.kind() == PtxType.Kind.SIGNED;
        int bits = packed ? 32 : t.size() * 8;
        boolean wide = mods.contains(".wide"), hi = mods.contains(".hi"), sat = mods.contains(".sat"), relu = mods.contains(".relu");
        int kind = switch (key) {
            case "add" -> packed ? IntOps.ADD16X2 : sat ? IntOps.ADD_SAT : IntOps.ADD;
            case "sub" -> packed ? IntOps.SUB16X2 : sat ? IntOps.SUB_SAT : IntOps.SUB;
            case "mul" -> wide ? IntOps.MUL_WIDE : hi ? IntOps.MUL_HI : IntOps.MUL_LO;
            case "mad" -> wide ? IntOps.MAD_WIDE : hi ? (sat ? IntOps.MAD_HI_SAT : IntOps.MAD_HI) : IntOps.MAD_LO;
            case "mul24" -> hi ? IntOps.MUL24_HI : IntOps.MUL24_LO;
            case "mad24" -> hi ? (sat ? IntOps.MAD24_HI_SAT : IntOps.MAD24_HI) : IntOps.MAD24_LO;
            case "sad" -> IntOps.SAD;
            case "div" -> IntOps.DIV;
            case "rem" -> IntOps.REM;
            case "abs" -> IntOps.ABS;
            case "neg" -> IntOps.NEG;
            case "min" -> packed ? IntOps.MIN16X2 : IntOps.MIN;
            case "max" -> packed ? IntOps.MAX16X2 : IntOps.MAX;
            default -> throw unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
        };
        PtxType wt = wide ? widen(t) : t;
        int d = dst(ops.get(0), scope, ins);
        int a = src(ops.get(1), t, scope, ins);
        int b = unary ? -1 : src(ops.get(2), t, scope, ins);
        int c = ternary ? src(ops.get(3), (wide && key.equals("mad")) ? wt : t, scope, ins) : -1;
        IntOps.Alu alu = new IntOps.Alu(kind, bits, signed, d, a, b, c, -1);
        if (relu) alu.mode = 1;
        return alu;
    }

    private Op carry(Instruction ins, String key, Scope scope, PtxType t) {
        List<Operand> ops = ins.operands();
        List<String> mods = ins.modifiers();
        if (t == null || (t.size() != 4 && t.size() != 8)) throw unsupported(ins.loc(), "'" + ins.form() + "': type not supported");
        boolean mad = key.startsWith("mad");
        need(ins, mad ? 4 : 3);
        boolean sub = key.startsWith("sub");
        boolean carryIn = key.equals("addc") || key.equals("subc") || key.equals("madc");
        boolean carryOut = key.endsWith(".cc") || mods.contains(".cc");
        return new IntOps.Carry(dst(ops.get(0), scope, ins), src(ops.get(1), t, scope, ins), src(ops.get(2), t, scope, ins),
                mad ? src(ops.get(3), t, scope, ins) : -1, cc(), t.size() * 8, sub, carryIn, carryOut, mad, mods.contains(".hi"),
                t.kind() == PtxType.Kind.SIGNED);
    }

    private Op logic(Instruction ins, String key, Scope scope, PtxType t) {
        List<Operand> ops = ins.operands();
        List<String> mods = ins.modifiers();
        if (t == PtxType.PRED) {
            int d = predDst(ops.get(0), scope, ins);
            int[] a = predSrc(ops.get(1), scope, ins);
            int kind = switch (key) {
                case "and" -> Ops.PredLogic.AND;
                case "or" -> Ops.PredLogic.OR;
                case "xor" -> Ops.PredLogic.XOR;
                case "not" -> Ops.PredLogic.NOT;
                default -> throw unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
            };
            int[] b = kind == Ops.PredLogic.NOT ? new int[] {-1, 0} : predSrc(ops.get(2), scope, ins);
            return new Ops.PredLogic(kind, d, a[0], a[1] != 0, b[0], b[1] != 0, false);
        }
        if (t == null) throw unsupported(ins.loc(), ins.form() + " without a type");
        int bits = t.size() * 8;
        boolean signed = t.kind() == PtxType.Kind.SIGNED;
        java.util.function.IntFunction<Integer> s = i -> src(ops.get(i), t, scope, ins);
        java.util.function.IntFunction<Integer> u32 = i -> src(ops.get(i), PtxType.U32, scope, ins);
        if (key.equals("lop3") && ops.getFirst() instanceof PredPair pp) {
            // lop3.BoolOp.b32 d|p, a, b, c, immLut, q (PTX ISA 9.0, §9.7.8.6): p = (d != 0) BoolOp q
            boolean and = mods.contains(".and");
            if (ops.size() != 6 || !(and || mods.contains(".or"))) {
                throw unsupported(ins.loc(), "'" + ins.form() + "': the predicate form needs .and or .or and six operands (d|p, a, b, c, immLut, q)");
            }
            int dd = pp.first().equals("_") ? sink() : dst(new Ast.Sym(pp.first(), null), scope, ins);
            int dp = predDst(new Ast.Sym(pp.second(), null), scope, ins);
            int[] q = predSrc(ops.get(5), scope, ins);
            return new IntOps.Lop3Pred(dd, s.apply(1), s.apply(2), s.apply(3), u32.apply(4), dp, and, q[0], q[1] != 0);
        }
        int d = dst(ops.get(0), scope, ins);
        switch (key) {
            case "and", "or", "xor" -> {
                need(ins, 3);
                int kind = key.equals("and") ? IntOps.AND : key.equals("or") ? IntOps.OR : IntOps.XOR;
                return new IntOps.Alu(kind, bits, signed, d, s.apply(1), s.apply(2), -1, -1);
            }
            case "not", "cnot" -> {
                need(ins, 2);
                return new IntOps.Alu(key.equals("not") ? IntOps.NOT : IntOps.CNOT, bits, signed, d, s.apply(1), -1, -1, -1);
            }
            case "shl", "shr" -> {
                need(ins, 3);
                return new IntOps.Alu(key.equals("shl") ? IntOps.SHL : IntOps.SHR, bits, signed, d, s.apply(1), u32.apply(2), -1, -1);
            }
            case "popc", "clz", "brev" -> {
                need(ins, 2);
                int kind = key.equals("popc") ? IntOps.POPC : key.equals("clz") ? IntOps.CLZ : IntOps.BREV;
                return new IntOps.Alu(kind, bits, signed, d, s.apply(1), -1, -1, -1);
            }
            case "bfind" -> {
                need(ins, 2);
                IntOps.Alu alu = new IntOps.Alu(IntOps.BFIND, bits, signed, d, s.apply(1), -1, -1, -1);
                if (mods.contains(".shiftamt")) alu.mode = 1;
                return alu;
            }
            case "bfe" -> {
                need(ins, 4);
                return new IntOps.Alu(IntOps.BFE, bits, signed, d, s.apply(1), u32.apply(2), u32.apply(3), -1);
            }
            case "bfi" -> {
                need(ins, 5);
                return new IntOps.Alu(IntOps.BFI, bits, signed, d, s.apply(1), s.apply(2), u32.apply(3), u32.apply(4));
            }
            case "prmt" -> {
                need(ins, 4);
                IntOps.Alu alu = new IntOps.Alu(IntOps.PRMT, 32, false, d, s.apply(1), s.apply(2), s.apply(3), -1);
                alu.mode = mods.contains(".f4e") ? 1 : mods.contains(".b4e") ? 2 : mods.contains(".rc8") ? 3 : mods.contains(".ecl") ? 4
                        : mods.contains(".ecr") ? 5 : mods.contains(".rc16") ? 6 : 0;
                return alu;
            }
            case "lop3" -> {
                need(ins, 5);
                return new IntOps.Alu(IntOps.LOP3, 32, false, d, s.apply(1), s.apply(2), s.apply(3), u32.apply(4));
            }
            case "shf" -> {
                need(ins, 4);
                IntOps.Alu alu = new IntOps.Alu(mods.contains(".l") ? IntOps.SHF_L : IntOps.SHF_R, 32, false, d, s.apply(1), s.apply(2), u32.apply(3), -1);
                alu.mode = mods.contains(".clamp") ? 1 : 0;
                return alu;
            }
            case "bmsk" -> {
                need(ins, 3);
                IntOps.Alu alu = new IntOps.Alu(IntOps.BMSK, 32, false, d, u32.apply(1), u32.apply(2), -1, -1);
                alu.mode = mods.contains(".clamp") ? 1 : 0;
                return alu;
            }
            case "szext" -> {
                need(ins, 3);
                IntOps.Alu alu = new IntOps.Alu(IntOps.SZEXT, 32, signed, d, s.apply(1), u32.apply(2), -1, -1);
                alu.mode = mods.contains(".clamp") ? 1 : 0;
                return alu;
            }
            case "fns" -> {
                need(ins, 4);
                return new IntOps.Alu(IntOps.FNS, 32, false, d, s.apply(1), u32.apply(2), src(ops.get(3), PtxType.S32, scope, ins), -1);
            }
            case "dp4a", "dp2a" -> {
                need(ins, 4);
                List<PtxType> ts = new ArrayList<>();
                for (String m : mods) if (PtxType.fromName(m) != null) ts.add(PtxType.fromName(m));
                if (ts.size() != 2) throw unsupported(ins.loc(), ins.form() + " needs two types");
                IntOps.Alu alu = new IntOps.Alu(key.equals("dp4a") ? IntOps.DP4A : IntOps.DP2A, 32, ts.get(0) == PtxType.S32, d,
                        s.apply(1), s.apply(2), s.apply(3), -1);
                alu.signedB = ts.get(1) == PtxType.S32;
                alu.mode = mods.contains(".hi") ? 1 : 0;
                return alu;
            }
            default -> throw unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
        }
    }

    private static int cmpKind(PtxType t) {
        return switch (t) {
            case F32 -> FloatOps.K_F32;
            case F64 -> FloatOps.K_F64;
            case F16 -> FloatOps.K_F16;
            case BF16 -> FloatOps.K_BF16;
            default -> FloatOps.K_INT;
        };
    }

    private int[] cmpAndBool(Instruction ins) {
        int cmp = -1, bool = FloatOps.BOOL_NONE;
        for (String m : ins.modifiers()) {
            int c = FloatOps.cmp(m);
            if (c >= 0 && cmp < 0) cmp = c;
            else if (m.equals(".and")) bool = FloatOps.BOOL_AND;
            else if (m.equals(".or")) bool = FloatOps.BOOL_OR;
            else if (m.equals(".xor")) bool = FloatOps.BOOL_XOR;
        }
        if (cmp < 0) throw unsupported(ins.loc(), ins.form() + " without a comparison");
        return new int[] {cmp, bool};
    }

    private Op setp(Instruction ins, Scope scope, PtxType t) {
        List<Operand> ops = ins.operands();
        need(ins, 3);
        if (t == null) throw unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
        int[] cb = cmpAndBool(ins);
        if (t == PtxType.F16X2 || t == PtxType.BF16X2) {
            if (!(ops.get(0) instanceof PredPair pp)) throw unsupported(ins.loc(), "'" + ins.form() + "' needs two destination predicates p|q");
            int c = -1;
            boolean cNeg = false;
            if (cb[1] != FloatOps.BOOL_NONE) {
                need(ins, 4);
                int[] ps = predSrc(ops.get(3), scope, ins);
                c = ps[0];
                cNeg = ps[1] != 0;
            }
            return new FloatOps.SetpX2(cb[0], t == PtxType.F16X2 ? FloatOps.K_F16 : FloatOps.K_BF16, ins.modifiers().contains(".ftz"), cb[1],
                    predDst(new Ast.Sym(pp.first(), null), scope, ins), predDst(new Ast.Sym(pp.second(), null), scope, ins),
                    src(ops.get(1), t, scope, ins), src(ops.get(2), t, scope, ins), c, cNeg);
        }
        int dp, dq = -1;
        if (ops.get(0) instanceof PredPair pp) {
            dp = predDst(new Ast.Sym(pp.first(), null), scope, ins);
            dq = predDst(new Ast.Sym(pp.second(), null), scope, ins);
        } else {
            dp = predDst(ops.get(0), scope, ins);
        }
        int c = -1;
        boolean cNeg = false;
        if (cb[1] != FloatOps.BOOL_NONE) {
            need(ins, 4);
            int[] ps = predSrc(ops.get(3), scope, ins);
            c = ps[0];
            cNeg = ps[1] != 0;
        }
        return new FloatOps.Setp(cb[0], cmpKind(t), t.size() * 8, t.kind() == PtxType.Kind.SIGNED, ins.modifiers().contains(".ftz"), cb[1],
                dp, dq, src(ops.get(1), t, scope, ins), src(ops.get(2), t, scope, ins), c, cNeg);
    }

    private Op set(Instruction ins, Scope scope, List<PtxType> types) {
        List<Operand> ops = ins.operands();
        need(ins, 3);
        if (types.size() != 2) throw unsupported(ins.loc(), ins.form() + " needs a destination and a source type");
        PtxType dt = types.get(0), st = types.get(1);
        int[] cb = cmpAndBool(ins);
        int c = -1;
        boolean cNeg = false;
        if (cb[1] != FloatOps.BOOL_NONE) {
            need(ins, 4);
            int[] ps = predSrc(ops.get(3), scope, ins);
            c = ps[0];
            cNeg = ps[1] != 0;
        }
        boolean halfSrc = st == PtxType.F16 || st == PtxType.BF16 || st == PtxType.F16X2 || st == PtxType.BF16X2;
        boolean halfDst = dt == PtxType.F16 || dt == PtxType.BF16 || dt == PtxType.F16X2 || dt == PtxType.BF16X2;
        if (halfSrc && (halfDst || dt == PtxType.U16 || dt == PtxType.S16 || dt == PtxType.U32 || dt == PtxType.S32)) {
            int elements = st == PtxType.F16X2 || st == PtxType.BF16X2 ? 2 : 1;
            int one = dt == PtxType.F16 || dt == PtxType.F16X2 ? 0x3C00 : dt == PtxType.BF16 || dt == PtxType.BF16X2 ? 0x3F80 : -1;
            int kind = st == PtxType.F16 || st == PtxType.F16X2 ? FloatOps.K_F16 : FloatOps.K_BF16;
            return new FloatOps.SetHalf(cb[0], kind, ins.modifiers().contains(".ftz"), cb[1], dst(ops.get(0), scope, ins),
                    src(ops.get(1), st, scope, ins), src(ops.get(2), st, scope, ins), c, cNeg, elements, one, dt.size() * 8);
        }
        if ((dt.kind() == PtxType.Kind.FLOAT && dt != PtxType.F32) || halfSrc || halfDst) {
            throw unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
        }
        return new FloatOps.Set(cb[0], cmpKind(st), st.size() * 8, st.kind() == PtxType.Kind.SIGNED, ins.modifiers().contains(".ftz"), cb[1],
                dst(ops.get(0), scope, ins), src(ops.get(1), st, scope, ins), src(ops.get(2), st, scope, ins), c, cNeg, dt == PtxType.F32);
    }

    private static boolean convertible(PtxType t) {
        return switch (t) {
            case U8, U16, U32, U64, S8, S16, S32, S64, B8, B16, B32, B64, F16, F32, F64, BF16 -> true;
            default -> false;
        };
    }

    private Op cvt(Instruction ins, Scope scope, List<PtxType> types) {
        List<Operand> ops = ins.operands();
        List<String> mods = ins.modifiers();
        need(ins, 2);
        if (types.size() != 2) throw unsupported(ins.loc(), ins.form() + " needs two types");
        PtxType dt = types.get(0), st = types.get(1);
        boolean intRound = hasAny(mods, ".rni", ".rzi", ".rmi", ".rpi");
        boolean satfinite = mods.contains(".satfinite");
        if (mods.contains(".rs") || (mods.contains(".rna") && dt != PtxType.TF32)) {
            throw unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
        }
        if (satfinite && dt != PtxType.F16 && dt != PtxType.BF16 && dt != PtxType.F16X2 && dt != PtxType.BF16X2 && dt != PtxType.TF32
                && dt != PtxType.E4M3X2 && dt != PtxType.E5M2X2) {
            throw unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
        }
        int rnd = mods.contains(".rna") ? FloatMath.RNA : rounding(mods);
        if ((dt == PtxType.F16X2 || dt == PtxType.BF16X2 || dt == PtxType.E4M3X2 || dt == PtxType.E5M2X2) && st == PtxType.F32 && ops.size() == 3) {
            FloatOps.Cvt c = new FloatOps.Cvt(dt, st, rnd, false, mods.contains(".ftz"), mods.contains(".sat"), mods.contains(".relu"),
                    dst(ops.get(0), scope, ins), src(ops.get(1), st, scope, ins), src(ops.get(2), st, scope, ins));
            c.satfinite = satfinite;
            return c;
        }
        boolean fp8 = ((dt == PtxType.E4M3X2 || dt == PtxType.E5M2X2) && st == PtxType.F16X2)
                || (dt == PtxType.F16X2 && (st == PtxType.E4M3X2 || st == PtxType.E5M2X2));
        if (fp8 || (dt == PtxType.TF32 && st == PtxType.F32)) {
            FloatOps.Cvt c = new FloatOps.Cvt(dt, st, rnd, false, false, false, mods.contains(".relu"), dst(ops.get(0), scope, ins),
                    src(ops.get(1), st, scope, ins), -1);
            c.satfinite = satfinite;
            return c;
        }
        if (!convertible(dt) || !convertible(st)) throw unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
        if (st == PtxType.PRED || isPred(ops.get(1), scope)) throw unsupported(ins.loc(), "cvt of a predicate");
        FloatOps.Cvt c = new FloatOps.Cvt(dt, st, rounding(mods), intRound, mods.contains(".ftz"), mods.contains(".sat"), mods.contains(".relu"),
                dst(ops.get(0), scope, ins), src(ops.get(1), st, scope, ins), -1);
        c.satfinite = satfinite;
        return c;
    }

    private Op shfl(Instruction ins, Scope scope) {
        List<String> mods = ins.modifiers();
        List<Operand> ops = ins.operands();
        need(ins, 4);
        int mode = mods.contains(".up") ? WarpOps.UP : mods.contains(".down") ? WarpOps.DOWN : mods.contains(".bfly") ? WarpOps.BFLY : WarpOps.IDX;
        int d, dp = -1;
        if (ops.get(0) instanceof PredPair pp) {
            d = dst(new Ast.Sym(pp.first(), null), scope, ins);
            dp = predDst(new Ast.Sym(pp.second(), null), scope, ins);
        } else {
            d = dst(ops.get(0), scope, ins);
        }
        return new WarpOps.Shfl(mode, d, src(ops.get(1), PtxType.B32, scope, ins), src(ops.get(2), PtxType.B32, scope, ins),
                src(ops.get(3), PtxType.B32, scope, ins), dp);
    }

    private Op vote(Instruction ins, Scope scope) {
        List<String> mods = ins.modifiers();
        List<Operand> ops = ins.operands();
        need(ins, 2);
        int mode = mods.contains(".all") ? WarpOps.ALL : mods.contains(".any") ? WarpOps.ANY : mods.contains(".uni") ? WarpOps.UNI : WarpOps.BALLOT;
        int[] a = predSrc(ops.get(1), scope, ins);
        int mask = ops.size() > 2 ? src(ops.get(2), PtxType.B32, scope, ins) : -1;
        int d = mode == WarpOps.BALLOT ? dst(ops.get(0), scope, ins) : predDst(ops.get(0), scope, ins);
        return new WarpOps.Vote(mode, d, a[0], a[1] != 0, mask);
    }

    private Op barrier(Instruction ins, Scope scope) {
        List<String> mods = ins.modifiers();
        List<Operand> ops = ins.operands();
        if (mods.contains(".warp")) return new Ops.Nop();
        if (mods.contains(".cluster") || mods.stream().anyMatch(m -> m.startsWith(".cluster"))) {
            throw unsupported(ins.loc(), "'" + ins.form() + "' (cluster barriers) is not supported by the emulator");
        }
        if (mods.contains(".red")) {
            int mode = mods.contains(".popc") ? Ops.Bar.RED_POPC : mods.contains(".and") ? Ops.Bar.RED_AND : Ops.Bar.RED_OR;
            need(ins, 3);
            int dst = mode == Ops.Bar.RED_POPC ? dst(ops.get(0), scope, ins) : predDst(ops.get(0), scope, ins);
            int id = src(ops.get(1), PtxType.U32, scope, ins);
            int count = ops.size() == 4 ? src(ops.get(2), PtxType.U32, scope, ins) : -1;
            int[] c = predSrc(ops.getLast(), scope, ins);
            return new Ops.Bar(mode, id, count, dst, c[0], c[1] != 0);
        }
        boolean arrive = mods.contains(".arrive");
        int id = ops.isEmpty() ? -1 : src(ops.get(0), PtxType.U32, scope, ins);
        int count = ops.size() > 1 ? src(ops.get(1), PtxType.U32, scope, ins) : -1;
        return new Ops.Bar(arrive ? Ops.Bar.ARRIVE : Ops.Bar.SYNC, id, count, -1, -1, false);
    }

    // ------------------------------------------------------------------ calls (inlined)

    private void call(Instruction ins, Scope scope, Instance inst, int guard, boolean gNeg) {
        List<Operand> ops = ins.operands();
        int i = 0;
        List<Operand> rets = List.of(), args = List.of();
        if (i < ops.size() && ops.get(i) instanceof TupleOperand t) {
            rets = t.elements();
            i++;
        }
        if (i >= ops.size() || !(ops.get(i) instanceof Ast.Sym fn)) throw unsupported(ins.loc(), "call needs a function or a register holding its address");
        i++;
        if (i < ops.size() && ops.get(i) instanceof TupleOperand t) {
            args = t.elements();
            i++;
        }
        Sym_ local = lookup(scope, fn.name());
        boolean indirect = local != null && local.kind == SymKind.REG;
        Statement proto = null;
        if (i < ops.size()) {
            if (!indirect || !(ops.get(i) instanceof Ast.Sym ps) || i + 1 != ops.size()) throw unsupported(ins.loc(), "unsupported call operands");
            for (Scope sc = scope; sc != null && proto == null; sc = sc.parent) proto = sc.protos.get(ps.name());
            if (proto == null) throw unsupported(ins.loc(), "'" + ps.name() + "' is not a .callprototype or .calltargets label");
        }
        if (indirect && proto == null) throw unsupported(ins.loc(), "an indirect call needs a .callprototype or .calltargets label (PTX ISA 9.0, 9.7.12.3)");
        Function callee = indirect ? null : mc.function(fn.name());
        Ops.Bra skip = null;
        if (guard >= 0) {
            // @p call f  ==>  @!p bra after; <inlined f or the call sequence>; after:
            skip = new Ops.Bra();
            skip.guard = guard;
            skip.guardNeg = !gNeg;
            skip.line = ins.loc().line();
            skip.form = ins.form();
            code.add(skip);
        }
        if (indirect) {
            callIndirect(ins, local.slot + (fn.component() != null ? 32 * component(fn.component(), ins.loc()) : 0), proto, rets, args, scope);
        } else if (callee == null || callee.body() == null) {
            builtin(ins, fn.name(), rets, args, scope);
        } else if (mc.outOfLine(callee.name())) {
            FunctionInfo fi = mc.info(callee.name());
            checkArity(ins, callee.name(), fi, rets, args);
            callOutOfLine(ins, -1, List.of(outFn(callee)), abi(fi), rets, args, scope);
        } else {
            inline(ins, callee, rets, args, scope);
        }
        if (skip != null) skip.target = code.size();
    }

    private void checkArity(Instruction ins, String name, FunctionInfo fi, List<Operand> rets, List<Operand> args) {
        if (fi.params().size() != args.size() || fi.returnParams().size() != rets.size()) {
            throw unsupported(ins.loc(), "call of '" + name + "' with " + args.size() + " arguments and " + rets.size()
                    + " results, the function has " + fi.params().size() + " and " + fi.returnParams().size());
        }
    }

    // ------------------------------------------------------------------ calls (out of line, CallOps)

    /** The out-of-line function of this name, queued for translation on first use. */
    private OutFn outFn(Function f) {
        OutFn o = outFns.get(f.name());
        if (o == null) {
            o = new OutFn(f.name(), f);
            outFns.put(f.name(), o);
            pendingFns.add(o);
        }
        return o;
    }

    /**
     * A call's parameter layout in the callee's frame: return parameters, then parameters, each at the
     * next multiple of its alignment. Rows: {offset, size, type (PtxType or null)}, results first.
     */
    private record Abi(long[] offset, long[] size, PtxType[] type, int results, long end) {}

    private static Abi abi(List<long[]> sizeAlign, List<PtxType> types, int results) {
        int n = sizeAlign.size();
        long[] off = new long[n], size = new long[n];
        long cur = 0;
        for (int k = 0; k < n; k++) {
            long sz = Math.max(1, sizeAlign.get(k)[0]), al = Math.max(1, sizeAlign.get(k)[1]);
            cur = (cur + al - 1) / al * al;
            off[k] = cur;
            size[k] = sz;
            cur += sz;
        }
        return new Abi(off, size, types.toArray(new PtxType[0]), results, cur);
    }

    private static Abi abi(FunctionInfo fi) {
        List<long[]> sa = new ArrayList<>();
        List<PtxType> ts = new ArrayList<>();
        for (ParamInfo p : fi.returnParams()) {
            sa.add(new long[] {p.size(), p.alignment()});
            ts.add(p.variable().type());
        }
        for (ParamInfo p : fi.params()) {
            sa.add(new long[] {p.size(), p.alignment()});
            ts.add(p.variable().type());
        }
        return abi(sa, ts, fi.returnParams().size());
    }

    private static Abi abi(CallPrototype cp) {
        List<long[]> sa = new ArrayList<>();
        List<PtxType> ts = new ArrayList<>();
        int results = 0;
        for (List<Decl> list : java.util.Arrays.asList(cp.returnParams() == null ? List.<Decl>of() : cp.returnParams(), cp.params())) {
            for (Decl d : list) {
                for (Declarator dc : d.declarators()) {
                    long size = sizeOf(d, dc);
                    sa.add(new long[] {size, d.space().equals(".reg") ? Math.max(1, size) : alignOf(d)});
                    ts.add(typeOf(d));
                }
            }
            if (results == 0 && list != cp.params()) results = sa.size();
        }
        return abi(sa, ts, results);
    }

    /** {@code call (rets), %rd, (args), proto;}: targets are the listed functions or every address-taken one. */
    private void callIndirect(Instruction ins, int targetSlot, Statement proto, List<Operand> rets, List<Operand> args, Scope scope) {
        List<OutFn> targets = new ArrayList<>();
        Abi abi;
        if (proto instanceof CallTargets ct) {
            for (String n : ct.functions()) {
                Function f = mc.function(n);
                if (f == null || f.body() == null) throw unsupported(ins.loc(), ".calltargets names '" + n + "', which this module does not define");
                targets.add(outFn(f));
            }
            FunctionInfo fi = mc.info(ct.functions().getFirst());
            checkArity(ins, ct.functions().getFirst(), fi, rets, args);
            abi = abi(fi);
        } else {
            CallPrototype cp = (CallPrototype) proto;
            for (String n : mc.addressTaken()) targets.add(outFn(mc.function(n)));
            abi = abi(cp);
            if (abi.results != rets.size() || abi.offset.length - abi.results != args.size()) {
                throw unsupported(ins.loc(), "call with " + args.size() + " arguments and " + rets.size() + " results through a prototype of "
                        + (abi.offset.length - abi.results) + " and " + abi.results);
            }
        }
        callOutOfLine(ins, targetSlot, targets, abi, rets, args, scope);
    }

    /**
     * The call sequence of an out-of-line call: the new frame's address, the arguments copied into it,
     * the {@link CallOps.Call}, the results copied out of it (PTX ISA 9.0, 9.7.12.3: arguments are passed
     * by value, results copied back at the return).
     */
    private void callOutOfLine(Instruction ins, int targetSlot, List<OutFn> targets, Abi abi, List<Operand> rets, List<Operand> args, Scope scope) {
        int nfp = tempSlot();
        CallOps.NextFrame nf = new CallOps.NextFrame(nfp, spSlot());
        addOp(nf, ins);
        int fp = rel ? fpSlot() : -1;
        for (int k = 0; k < args.size(); k++) {
            int row = abi.results + k;
            Operand actual = args.get(k);
            Sym_ a = actual instanceof Ast.Sym s ? lookup(scope, s.name()) : null;
            if (a != null && (a.kind == SymKind.FPARAM || a.kind == SymKind.LOCAL)) {
                addOp(new MemOps.LocalCopy(abi.offset[row], a.address, abi.size[row], nfp, a.rel ? fp : -1), ins);
            } else {
                PtxType t = abi.type[row];
                if (t == null || t == PtxType.PRED || abi.size[row] > 8) throw unsupported(ins.loc(), "call argument " + (k + 1) + " must be a .param variable");
                addOp(new MemOps.St(MemOps.LOCAL, nfp, false, abi.offset[row], (int) abi.size[row], new int[] {src(actual, t, scope, ins)}, false), ins);
            }
        }
        CallOps.Call c = new CallOps.Call(targetSlot, nfp);
        addOp(c, ins);
        callFixups.add(new Object[] {c, nf, targets, current});
        for (int k = 0; k < rets.size(); k++) {
            Operand actual = rets.get(k);
            Sym_ a = actual instanceof Ast.Sym s ? lookup(scope, s.name()) : null;
            if (a != null && (a.kind == SymKind.FPARAM || a.kind == SymKind.LOCAL)) {
                addOp(new MemOps.LocalCopy(a.address, abi.offset[k], abi.size[k], a.rel ? fp : -1, nfp), ins);
            } else {
                PtxType t = abi.type[k];
                if (t == null || t == PtxType.PRED || abi.size[k] > 8) throw unsupported(ins.loc(), "call result " + (k + 1) + " must be a .param variable");
                addOp(new MemOps.Ld(MemOps.LOCAL, nfp, false, abi.offset[k], (int) abi.size[k], false, new int[] {dst(actual, scope, ins)}, false), ins);
            }
        }
    }

    /**
     * Translates an out-of-line function once for this kernel: its parameters and locals in its own
     * frame (FP-relative), its registers in slots of its own, {@code .reg} parameters loaded from the
     * frame at entry and {@code .reg} results stored there before {@link CallOps.Ret}.
     */
    private void translateOutOfLine(OutFn f) {
        FunctionInfo fi = mc.info(f.name);
        Function fn = f.ast;
        long savedFrame = frame;
        boolean savedRel = rel;
        frame = 0;
        rel = true;
        frameAlign = 8;
        current = f;
        f.slotLo = slots;
        f.predLo = preds;
        f.entry = code.size();
        int fp = fpSlot();
        Abi abi = abi(fi);
        frame = abi.end;
        frameHigh = frame;
        Scope cs = new Scope(moduleScope);
        List<int[]> regResults = new ArrayList<>(); // {slot, row}
        int nres = fi.returnParams().size();
        for (int row = 0; row < abi.offset.length; row++) {
            ParamInfo p = row < nres ? fi.returnParams().get(row) : fi.params().get(row - nres);
            String space = declSpace(row < nres ? fn.returnParamsOrEmpty() : fn.paramsOrEmpty(), p.name());
            PtxType t = p.variable().type();
            if (space.equals(".reg")) {
                if (t == PtxType.PRED || abi.size[row] > 8) throw unsupported(fn.loc(), "predicate or wide .reg parameters of a recursive or address-taken function are not supported by the emulator");
                int slot = tempSlot();
                cs.names.put(p.name(), new Sym_(SymKind.REG, slot, 0, t, 1));
                if (row < nres) {
                    regResults.add(new int[] {slot, row});
                } else {
                    code.add(withLoc(new MemOps.Ld(MemOps.LOCAL, fp, false, abi.offset[row], (int) abi.size[row], false, new int[] {slot}, false),
                            fn.loc(), "(parameter " + p.name() + " of " + f.name + ")"));
                }
            } else {
                cs.names.put(p.name(), new Sym_(SymKind.FPARAM, -1, abi.offset[row], t, 1, true));
            }
        }
        Instance ci = new Instance(f.name, false);
        callStack.push(f.name);
        try {
            body(fn.body(), cs, ci);
        } finally {
            callStack.pop();
        }
        int epilogue = code.size();
        for (int[] rr : regResults) {
            code.add(withLoc(new MemOps.St(MemOps.LOCAL, fp, false, abi.offset[rr[1]], (int) abi.size[rr[1]], new int[] {rr[0]}, false),
                    fn.loc(), "(result of " + f.name + ")"));
        }
        code.add(withLoc(new CallOps.Ret(), fn.loc(), "ret (end of " + f.name + ")"));
        for (Op r : ci.returns) r.target = epilogue;
        finish(ci);
        f.frame = (frameHigh + 7) / 8 * 8 + CallOps.CALL_OVERHEAD;
        f.align = frameAlign;
        f.slotHi = slots;
        f.predHi = preds;
        frame = savedFrame;
        rel = savedRel;
        current = null;
    }

    /** Fills in every call's targets and the caller's registers to save, now that all functions are laid out. */
    @SuppressWarnings("unchecked")
    private void resolveCalls() {
        for (Object[] fx : callFixups) {
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
                c.addr[k] = mc.functionAddress(t.name);
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

    private long frameOf(Operand o, Scope scope, Instruction ins) {
        if (o instanceof Ast.Sym s) {
            Sym_ v = lookup(scope, s.name());
            if (v != null && (v.kind == SymKind.FPARAM || v.kind == SymKind.LOCAL)) return v.address;
        }
        throw unsupported(ins.loc(), "call argument '" + o + "' must be a .param variable");
    }

    private void builtin(Instruction ins, String name, List<Operand> rets, List<Operand> args, Scope scope) {
        switch (name) {
            case "vprintf" -> {
                if (args.size() != 2) throw unsupported(ins.loc(), "vprintf takes two arguments");
                long ret = rets.isEmpty() ? -1 : frameOf(rets.getFirst(), scope, ins);
                Ops.Printf op = new Ops.Printf(frameOf(args.get(0), scope, ins), frameOf(args.get(1), scope, ins), ret);
                if (rel) op.frameBase = fpSlot();
                op.line = ins.loc().line();
                op.form = ins.form();
                code.add(op);
            }
            case "__assertfail" -> {
                if (args.size() < 4) throw unsupported(ins.loc(), "__assertfail takes five arguments");
                Ops.AssertFail op = new Ops.AssertFail(frameOf(args.get(0), scope, ins), frameOf(args.get(1), scope, ins),
                        frameOf(args.get(2), scope, ins), frameOf(args.get(3), scope, ins));
                if (rel) op.frameBase = fpSlot();
                op.line = ins.loc().line();
                op.form = ins.form();
                code.add(op);
            }
            case "cudaGraphSetConditional" -> {
                if (args.size() != 2) throw unsupported(ins.loc(), "cudaGraphSetConditional takes two arguments");
                Ops.SetConditional op = new Ops.SetConditional(frameOf(args.get(0), scope, ins), frameOf(args.get(1), scope, ins));
                if (rel) op.frameBase = fpSlot();
                op.line = ins.loc().line();
                op.form = ins.form();
                code.add(op);
            }
            default -> throw unsupported(ins.loc(), "call of '" + name + "', which the module does not define, is not supported by the emulator");
        }
    }

    private void inline(Instruction ins, Function callee, List<Operand> rets, List<Operand> args, Scope scope) {
        if (callStack.contains(callee.name())) {
            throw unsupported(ins.loc(), "recursive call of '" + callee.name() + "' is not supported by the emulator");
        }
        FunctionInfo fi = mc.info(callee.name());
        if (fi == null) throw unsupported(ins.loc(), "unknown function '" + callee.name() + "'");
        if (fi.params().size() != args.size() || fi.returnParams().size() != rets.size()) {
            throw unsupported(ins.loc(), "call of '" + callee.name() + "' with " + args.size() + " arguments and " + rets.size()
                    + " results, the function has " + fi.params().size() + " and " + fi.returnParams().size());
        }
        Scope cs = new Scope(moduleScope);
        // parameters: .param ones live in local memory, .reg ones in fresh registers
        for (int k = 0; k < args.size(); k++) bindParam(ins, fi.params().get(k), callee.paramsOrEmpty(), args.get(k), cs, scope, true);
        List<Object[]> results = new ArrayList<>();
        for (int k = 0; k < rets.size(); k++) results.add(bindParam(ins, fi.returnParams().get(k), callee.returnParamsOrEmpty(), rets.get(k), cs, scope, false));
        Instance ci = new Instance(callee.name(), false);
        callStack.push(callee.name());
        try {
            body(callee.body(), cs, ci);
        } finally {
            callStack.pop();
        }
        int end = code.size();
        for (Op r : ci.returns) r.target = end;
        finish(ci);
        for (Object[] r : results) copyBack(ins, r);
    }

    private static String declSpace(List<Decl> decls, String name) {
        for (Decl d : decls) for (Declarator dc : d.declarators()) if (dc.name().equals(name)) return d.space();
        return ".param";
    }

    /** Binds one callee parameter; for arguments emits the copy in, for results returns what to copy back. */
    private Object[] bindParam(Instruction ins, ParamInfo p, List<Decl> decls, Operand actual, Scope callee, Scope caller, boolean in) {
        String space = declSpace(decls, p.name());
        PtxType t = p.variable().type();
        if (space.equals(".reg")) {
            if (t == PtxType.PRED) {
                int idx = preds++;
                callee.names.put(p.name(), new Sym_(SymKind.PRED, idx, 0, t, 1));
                if (in) {
                    int[] s = predSrc(actual, caller, ins);
                    addOp(new Ops.PredLogic(Ops.PredLogic.MOV, idx, s[0], s[1] != 0, -1, false, false), ins);
                    return null;
                }
                return new Object[] {"pred", idx, predDst(actual, caller, ins)};
            }
            int slot = tempSlot();
            callee.names.put(p.name(), new Sym_(SymKind.REG, slot, 0, t, 1));
            if (in) {
                addOp(new Ops.Mov(slot, src(actual, t, caller, ins)), ins);
                return null;
            }
            return new Object[] {"reg", slot, dst(actual, caller, ins)};
        }
        long size = Math.max(p.size(), 1);
        long off = allocFrame(Math.max(size, 8), Math.max(p.alignment(), 8));
        callee.names.put(p.name(), new Sym_(SymKind.FPARAM, -1, off, t, 1, rel));
        Sym_ a = actual instanceof Ast.Sym s ? lookup(caller, s.name()) : null;
        int fp = rel ? fpSlot() : -1;
        if (in) {
            if (a != null && (a.kind == SymKind.FPARAM || a.kind == SymKind.LOCAL)) {
                addOp(new MemOps.LocalCopy(off, a.address, size, fp, a.rel ? fp : -1), ins);
            } else {
                if (t == null || size > 8) throw unsupported(ins.loc(), "call argument must be a .param variable");
                addOp(new MemOps.St(MemOps.LOCAL, fp, false, off, (int) size, new int[] {src(actual, t, caller, ins)}, false), ins);
            }
            return null;
        }
        if (a != null && (a.kind == SymKind.FPARAM || a.kind == SymKind.LOCAL)) return new Object[] {"mem", off, a.address, size, fp, a.rel ? fp : -1};
        if (t == null || size > 8) throw unsupported(ins.loc(), "call result must be a .param variable");
        return new Object[] {"ld", off, dst(actual, caller, ins), size, fp};
    }

    private void copyBack(Instruction ins, Object[] r) {
        if (r == null) return;
        switch ((String) r[0]) {
            case "pred" -> addOp(new Ops.PredLogic(Ops.PredLogic.MOV, (Integer) r[2], (Integer) r[1], false, -1, false, false), ins);
            case "reg" -> addOp(new Ops.Mov((Integer) r[2], (Integer) r[1]), ins);
            case "mem" -> addOp(new MemOps.LocalCopy((Long) r[2], (Long) r[1], (Long) r[3], (Integer) r[5], (Integer) r[4]), ins);
            default -> addOp(new MemOps.Ld(MemOps.LOCAL, (Integer) r[4], false, (Long) r[1], (int) (long) (Long) r[3], false, new int[] {(Integer) r[2]}, false), ins);
        }
    }

    // ------------------------------------------------------------------ warp-level matrix instructions (MatrixOps)

    /** The register slots of a vector operand {@code {r0, r1, ...}} (or one register); {@code _} is -1 for destinations. */
    private int[] regVector(Operand o, boolean dest, Scope scope, Instruction ins) {
        List<Operand> els = o instanceof VectorOperand v ? v.elements() : List.of(o);
        int[] out = new int[els.size()];
        for (int i = 0; i < out.length; i++) {
            Operand e = els.get(i);
            out[i] = dest ? (e instanceof Ast.Sym s && s.name().equals("_") ? -1 : dst(e, scope, ins)) : src(e, PtxType.B32, scope, ins);
        }
        return out;
    }

    private static int matrixFormat(String m) {
        return switch (m) {
            case ".f16" -> MatrixOps.F16;
            case ".bf16" -> MatrixOps.BF16;
            case ".tf32" -> MatrixOps.TF32;
            case ".f32" -> MatrixOps.F32;
            case ".s8" -> MatrixOps.S8;
            case ".u8" -> MatrixOps.U8;
            case ".s32" -> MatrixOps.S32;
            default -> -1;
        };
    }

    /**
     * mma.sync.aligned (m16n8k8 f16/bf16/tf32, m16n8k16 f16/bf16, m16n8k32 s8/u8; .row.col), ldmatrix and
     * stmatrix (.m8n8 .b16), wmma.load/store/mma (.m16n16k16 f16/bf16 with f16/f32 accumulators): PTX ISA 9.0,
     * §9.7.14. Other shapes and types are rejected with the instruction named.
     */
    private Op matrix(Instruction ins, String key, Scope scope, Instance inst) {
        List<String> mods = ins.modifiers();
        List<Operand> ops = ins.operands();
        java.util.function.Supplier<Unsupported> no = () -> unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator (PTX ISA 9.7.14: "
                + "mma.sync m16n8k8/m16n8k16 f16, bf16, m16n8k8 tf32 and m16n8k32 s8/u8 with .row.col, ldmatrix/stmatrix .m8n8 .b16, "
                + "wmma m16n16k16 f16/bf16 are)");
        List<Integer> fmts = new ArrayList<>();
        for (String m : mods) if (matrixFormat(m) >= 0) fmts.add(matrixFormat(m));
        switch (key) {
            case "mma" -> {
                need(ins, 4);
                if (!mods.contains(".row") || !mods.contains(".col") || fmts.size() != 4 || mods.stream().anyMatch(m -> m.startsWith(".sp") || m.startsWith(".block_scale") || m.startsWith(".kind"))) {
                    throw no.get();
                }
                int fd = fmts.get(0), fa = fmts.get(1), fb = fmts.get(2), fc = fmts.get(3);
                int k = mods.contains(".m16n8k8") ? 8 : mods.contains(".m16n8k16") ? 16 : mods.contains(".m16n8k32") ? 32 : -1;
                boolean half = fa == MatrixOps.F16 || fa == MatrixOps.BF16, i8 = fa == MatrixOps.S8 || fa == MatrixOps.U8;
                boolean ok = switch (k) {
                    case 8 -> (half || fa == MatrixOps.TF32) && fb == fa;
                    case 16 -> half && fb == fa;
                    case 32 -> i8 && (fb == MatrixOps.S8 || fb == MatrixOps.U8);
                    default -> false;
                };
                if (ok && fa == MatrixOps.F16) ok = (fd == MatrixOps.F32 || fd == MatrixOps.F16) && fc == fd;
                else if (ok && i8) ok = fd == MatrixOps.S32 && fc == MatrixOps.S32;
                else if (ok) ok = fd == MatrixOps.F32 && fc == MatrixOps.F32;
                if (!ok || (mods.contains(".satfinite") && !i8)) throw no.get();
                int[] d = regVector(ops.get(0), true, scope, ins), a = regVector(ops.get(1), false, scope, ins);
                int[] b = regVector(ops.get(2), false, scope, ins), c = regVector(ops.get(3), false, scope, ins);
                int ba = MatrixOps.bits(fa), bc = MatrixOps.bits(fc), bd = MatrixOps.bits(fd);
                if (a.length != 16 * k * ba / 32 / 32 || b.length != 8 * k * ba / 32 / 32 || c.length != 128 * bc / 32 / 32 || d.length != 128 * bd / 32 / 32) {
                    throw unsupported(ins.loc(), "'" + ins.form() + "': wrong number of registers in an operand");
                }
                return new MatrixOps.Mma(16, 8, k, fa, fb, fc, fd, mods.contains(".satfinite"), d, a, b, c);
            }
            case "ldmatrix", "stmatrix" -> {
                need(ins, 2);
                if (!mods.contains(".m8n8") || !mods.contains(".b16")) throw no.get();
                int x = mods.contains(".x4") ? 4 : mods.contains(".x2") ? 2 : 1;
                boolean ld = key.equals("ldmatrix");
                MemRef ref = memRef(ins, ops.get(ld ? 1 : 0), scope, inst, ld ? Warp.READ : Warp.WRITE);
                if (ref.space() != MemOps.SHARED && ref.space() != MemOps.GENERIC) throw no.get();
                int[] regs = regVector(ops.get(ld ? 0 : 1), ld, scope, ins);
                if (regs.length != x) throw unsupported(ins.loc(), "'" + ins.form() + "': .x" + x + " needs " + x + " registers");
                return ld ? new MatrixOps.Ldmatrix(ref.space(), ref.base(), ref.base32(), ref.offset(), regs, mods.contains(".trans"))
                        : new MatrixOps.Stmatrix(ref.space(), ref.base(), ref.base32(), ref.offset(), regs, mods.contains(".trans"));
            }
            default -> {
                if (!mods.contains(".m16n16k16") || fmts.isEmpty()) throw no.get();
                if (key.equals("wmma.mma")) {
                    need(ins, 4);
                    boolean bf = fmts.size() == 4 && fmts.get(1) == MatrixOps.BF16;
                    int fd = fmts.get(0), fc = fmts.getLast();
                    if (!(bf ? fmts.equals(List.of(MatrixOps.F32, MatrixOps.BF16, MatrixOps.BF16, MatrixOps.F32)) : fmts.size() == 2
                            && (fd == MatrixOps.F16 || fd == MatrixOps.F32) && (fc == MatrixOps.F16 || fc == MatrixOps.F32)) || mods.contains(".satfinite")) {
                        throw no.get();
                    }
                    int fab = bf ? MatrixOps.BF16 : MatrixOps.F16;
                    int[] d = regVector(ops.get(0), true, scope, ins), a = regVector(ops.get(1), false, scope, ins);
                    int[] b = regVector(ops.get(2), false, scope, ins), c = regVector(ops.get(3), false, scope, ins);
                    int nab = bf ? 4 : 8;
                    if (a.length != nab || b.length != nab || c.length != (fc == MatrixOps.F32 ? 8 : 4) || d.length != (fd == MatrixOps.F32 ? 8 : 4)) {
                        throw unsupported(ins.loc(), "'" + ins.form() + "': wrong number of registers in an operand");
                    }
                    return new MatrixOps.WmmaMma(fab, fc, fd, d, a, b, c);
                }
                boolean load = key.equals("wmma.load");
                need(ins, 2);
                int fmt = fmts.getFirst();
                boolean abOp = mods.contains(".a") || mods.contains(".b");
                if (load && !abOp && !mods.contains(".c")) throw no.get();
                if (abOp ? fmt != MatrixOps.F16 && fmt != MatrixOps.BF16 : fmt != MatrixOps.F16 && fmt != MatrixOps.F32) throw no.get();
                MemRef ref = memRef(ins, ops.get(load ? 1 : 0), scope, inst, load ? Warp.READ : Warp.WRITE);
                if (ref.space() == MemOps.PARAM || ref.space() == MemOps.LOCAL) throw no.get();
                int[] regs = regVector(ops.get(load ? 0 : 1), load, scope, ins);
                int want = abOp ? (fmt == MatrixOps.BF16 ? 4 : 8) : fmt == MatrixOps.F32 ? 8 : 4;
                if (regs.length != want) throw unsupported(ins.loc(), "'" + ins.form() + "': a fragment of " + want + " registers is expected");
                int stride = ops.size() > 2 ? src(ops.get(2), PtxType.U32, scope, ins) : -1;
                boolean col = mods.contains(".col");
                if (!col && !mods.contains(".row")) throw no.get();
                return load ? new MatrixOps.WmmaLoad(ref.space(), ref.base(), ref.base32(), ref.offset(), regs, fmt, col, stride)
                        : new MatrixOps.WmmaStore(ref.space(), ref.base(), ref.base32(), ref.offset(), regs, fmt, col, stride);
            }
        }
    }

    private void addOp(Op op, Instruction ins) {
        op.line = ins.loc().line();
        op.form = ins.form();
        code.add(op);
    }

    // ------------------------------------------------------------------ textures, surfaces, mbarrier

    private static int geometry(List<String> mods) {
        return mods.contains(".1d") ? 1 : mods.contains(".2d") ? 2 : mods.contains(".3d") ? 3 : 0;
    }

    /** The registers of a vector operand ({@code {a, b}}) or of a single register; {@code _} gives -1. */
    private int[] regs(Operand o, PtxType t, Scope scope, Instruction ins, boolean dst, int min) {
        List<Operand> el = o instanceof VectorOperand v ? v.elements() : List.of(o);
        if (el.size() < min) throw unsupported(ins.loc(), ins.form() + " needs " + min + " coordinates or values");
        int[] out = new int[el.size()];
        for (int i = 0; i < out.length; i++) {
            Operand e = el.get(i);
            out[i] = dst ? (e instanceof Ast.Sym s && s.name().equals("_") ? -1 : dst(e, scope, ins)) : src(e, t, scope, ins);
        }
        return out;
    }

    /**
     * tex, tld4 (PTX ISA 9.0, 9.7.10.3 and 9.7.10.4) on texture objects and suld.b, sust.b (9.7.11.1 and
     * 9.7.11.2) on surface objects; see {@link TexOps}. Texture references, samplers, arrays, cube maps,
     * mipmaps (.level/.grad), depth compare and formatted stores (sust.p) are reported unsupported.
     */
    private Op texture(Instruction ins, String key, Scope scope) {
        List<String> mods = ins.modifiers();
        List<Operand> ops = ins.operands();
        int dims = geometry(mods);
        String no = "'" + ins.form() + "' is not supported by the emulator";
        if (dims == 0) throw unsupported(ins.loc(), no + " (only .1d, .2d and .3d geometries)");
        boolean load = !key.equals("sust");
        need(ins, 2);
        Operand addr = load ? ops.get(1) : ops.get(0);
        if (!(addr instanceof AddressOperand a) || a.elements().size() != 2) {
            throw unsupported(ins.loc(), no + " (only [object, coordinates] with texture/surface objects; no samplers)");
        }
        int obj = src(a.elements().get(0), PtxType.U64, scope, ins);
        if (key.equals("tex") || key.equals("tld4")) {
            if (ops.size() != 2 || ins.operands().getFirst() instanceof PredPair) throw unsupported(ins.loc(), no + " (no .level/.grad, offsets, depth compare or residency predicate)");
            if (!mods.contains(".v4")) throw unsupported(ins.loc(), no + " (only .v4 results)");
            List<PtxType> types = new ArrayList<>();
            for (String m : mods) {
                PtxType t = PtxType.fromName(m);
                if (t != null) types.add(t);
            }
            if (types.size() != 2) throw unsupported(ins.loc(), no);
            PtxType dt = types.get(0), ct = types.get(1);
            int rt = dt == PtxType.F32 ? TexOps.F32 : dt == PtxType.S32 ? TexOps.S32 : dt == PtxType.U32 ? TexOps.U32 : -1;
            if (rt < 0 || (ct != PtxType.F32 && ct != PtxType.S32)) throw unsupported(ins.loc(), no + " (results .f32/.s32/.u32, coordinates .f32/.s32)");
            int gather = -1;
            if (key.equals("tld4")) {
                gather = mods.contains(".r") ? 0 : mods.contains(".g") ? 1 : mods.contains(".b") ? 2 : mods.contains(".a") ? 3 : -1;
                if (gather < 0 || dims != 2 || ct != PtxType.F32) throw unsupported(ins.loc(), no);
            }
            int[] coords = regs(a.elements().get(1), ct, scope, ins, false, dims);
            int[] d = regs(ops.get(0), dt, scope, ins, true, 4);
            return new TexOps.Tex(obj, dims, coords, ct == PtxType.F32, rt, gather, d);
        }
        if (!mods.contains(".b")) throw unsupported(ins.loc(), no + " (only .b surface accesses; no formatted .p)");
        int mode = mods.contains(".clamp") ? TexOps.CLAMP : mods.contains(".zero") ? TexOps.ZERO : TexOps.TRAP;
        int bytes = mods.contains(".b8") ? 1 : mods.contains(".b16") ? 2 : mods.contains(".b32") ? 4 : mods.contains(".b64") ? 8 : 0;
        if (bytes == 0) throw unsupported(ins.loc(), no);
        PtxType bt = bytes == 8 ? PtxType.B64 : bytes == 2 ? PtxType.B16 : PtxType.B32;
        int[] coords = regs(a.elements().get(1), PtxType.B32, scope, ins, false, dims);
        int[] v = load ? regs(ops.get(0), bt, scope, ins, true, 1) : regs(ops.get(1), bt, scope, ins, false, 1);
        if (v.length != vectorWidth(mods)) throw unsupported(ins.loc(), "vector width does not match the operand");
        return load ? new TexOps.Suld(obj, dims, coords, bytes, mode, v) : new TexOps.Sust(obj, dims, coords, bytes, mode, v);
    }

    /**
     * mbarrier basics on shared memory (PTX ISA 9.0, 9.7.13.15): init, arrive (count), arrive_drop, test_wait,
     * try_wait (with .parity), pending_count, inval; see {@link SyncOps.Mbarrier}. Transaction counts
     * (expect_tx, complete_tx), .noComplete, cluster scope and remote arrives are reported unsupported.
     */
    private Op mbarrier(Instruction ins, String key, Scope scope, Instance inst) {
        List<String> mods = ins.modifiers();
        List<Operand> ops = ins.operands();
        String no = "'" + ins.form() + "' is not supported by the emulator";
        if (mods.contains(".expect_tx") || mods.contains(".noComplete") || mods.contains(".shared::cluster") || mods.contains(".cluster")) {
            throw unsupported(ins.loc(), no + " (only basic arrive/wait on .shared::cta)");
        }
        if (key.equals("mbarrier.pending_count")) {
            need(ins, 2);
            return new SyncOps.Mbarrier(SyncOps.Mbarrier.PENDING, MemOps.SHARED, -1, false, 0, dst(ops.get(0), scope, ins), -1, src(ops.get(1), PtxType.B64, scope, ins), false);
        }
        int memIdx = switch (key) {
            case "mbarrier.init", "mbarrier.inval" -> 0;
            default -> 1;
        };
        need(ins, memIdx + 1);
        MemRef ref = memRef(ins, ops.get(memIdx), scope, inst, Warp.ATOMIC);
        if (ref.space != MemOps.SHARED && ref.space != MemOps.GENERIC) throw unsupported(ins.loc(), no + " (mbarrier objects live in shared memory)");
                switch (key) {
            case "mbarrier.init" -> {
                need(ins, 2);
                return new SyncOps.Mbarrier(SyncOps.Mbarrier.INIT, ref.space, ref.base, ref.base32, ref.offset, -1, -1, src(ops.get(1), PtxType.B32, scope, ins), false);
            }
            case "mbarrier.inval" -> {
                return new SyncOps.Mbarrier(SyncOps.Mbarrier.INVAL, ref.space, ref.base, ref.base32, ref.offset, -1, -1, -1, false);
            }
            case "mbarrier.arrive", "mbarrier.arrive_drop" -> {
                int d = ops.get(0) instanceof Ast.Sym s && s.name().equals("_") ? -1 : dst(ops.get(0), scope, ins);
                int count = ops.size() > 2 ? src(ops.get(2), PtxType.B32, scope, ins) : -1;
                return new SyncOps.Mbarrier(key.equals("mbarrier.arrive") ? SyncOps.Mbarrier.ARRIVE : SyncOps.Mbarrier.DROP, ref.space, ref.base, ref.base32, ref.offset,
                        d, -1, count, false);
            }
            default -> { // test_wait, try_wait
                need(ins, 3);
                boolean parity = mods.contains(".parity");
                int pd = predDst(ops.get(0), scope, ins);
                int state = src(ops.get(2), parity ? PtxType.B32 : PtxType.B64, scope, ins);
                return new SyncOps.Mbarrier(SyncOps.Mbarrier.TEST, ref.space, ref.base, ref.base32, ref.offset, -1, pd, state, parity);
            }
        }
    }
}
