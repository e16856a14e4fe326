package dev.zluda.runtime.emulator;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.Ast.*;
import dev.zluda.ptx.FunctionInfo;
import dev.zluda.ptx.ModuleModel;
import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.ir.IrFunction;
import dev.zluda.ptx.ir.IrModule;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What the translation of a module's kernels shares: functions, variables, the error list. */
final class ModuleContext {
    /** A module variable in device memory. */
    record GlobalVar(String name, String space, long address, long size, PtxType type) {}

    final String source;
    final ModuleModel model;
    /** The module's instructions in the typed IR, built once ({@link dev.zluda.ptx.ir.IrBuilder}). */
    final IrModule ir;
    private final Map<String, Function> functions = new LinkedHashMap<>();
    private final Map<String, GlobalVar> globals = new LinkedHashMap<>();
    private final List<Decl> moduleShared = new ArrayList<>();
    private final List<String> errors = new ArrayList<>();
    private final Ast.Module module;
    private java.util.Set<String> addressTaken, outOfLine;

    ModuleContext(String source, IrModule ir) {
        this.source = source;
        this.ir = ir;
        this.model = ir.model();
        this.module = ir.ast();
        for (Function f : module.functions()) {
            if (f.body() != null || !functions.containsKey(f.name())) functions.put(f.name(), f);
        }
    }

    void error(Loc loc, String message) {
        errors.add(source + ":" + loc.line() + ":" + loc.column() + ": error: " + message);
    }

    int errorCount() {
        return errors.size();
    }

    List<String> errors() {
        return errors;
    }

    /** The function of this name (its definition when there is one), or null. */
    Function function(String name) {
        return functions.get(name);
    }

    FunctionInfo info(String name) {
        return model.function(name);
    }

    /** The IR of the function of this name (its definition when there is one), or null. */
    IrFunction ir(String name) {
        return ir.function(name);
    }

    Map<String, GlobalVar> globals() {
        return globals;
    }

    Long globalAddress(String name) {
        GlobalVar g = globals.get(name);
        return g == null ? null : g.address();
    }

    void addGlobal(GlobalVar g) {
        globals.put(g.name(), g);
    }

    /** The address ranges of the module's .const variables: {@code [lo0, hi0), [lo1, hi1), ...} as pairs. */
    long[] constRanges() {
        long[] out = new long[2 * globals.size()];
        int n = 0;
        for (GlobalVar g : globals.values()) {
            if (!g.space().equals(".const")) continue;
            out[n++] = g.address();
            out[n++] = g.address() + g.size();
        }
        return java.util.Arrays.copyOf(out, n);
    }

    List<Decl> moduleShared() {
        return moduleShared;
    }

    /**
     * The value of a function's address ({@code mov.u64 %rd, f;}, or {@code f} in an initializer): a
     * number in a window no memory access can reach, unique per function of the module.
     */
    long functionAddress(String name) {
        int i = 0;
        for (String n : functions.keySet()) {
            if (n.equals(name)) return FUNCTION_WINDOW + 16L * (i + 1);
            i++;
        }
        throw new IllegalArgumentException(name);
    }

    /** Base of the values of function addresses ({@link #functionAddress}). */
    static final long FUNCTION_WINDOW = 0xFFFB_0000_0000_0000L;

    /**
     * The defined functions whose address is taken (an operand other than a call's callee, an
     * initializer element, a {@code .calltargets} entry): the targets an indirect call may reach.
     */
    java.util.Set<String> addressTaken() {
        analyzeCalls();
        return addressTaken;
    }

    /**
     * Whether calls of this function run as real calls (its own registers and frame per activation,
     * {@link CallOps}) rather than inlined: it is recursive (it can reach itself through direct calls)
     * or its address is taken.
     */
    boolean outOfLine(String name) {
        analyzeCalls();
        return outOfLine.contains(name);
    }

    private void analyzeCalls() {
        if (outOfLine != null) return;
        java.util.Set<String> taken = new java.util.TreeSet<>();
        Map<String, java.util.Set<String>> callees = new LinkedHashMap<>();
        for (ModuleItem item : module.items()) {
            if (item instanceof Decl d) for (Declarator dc : d.declarators()) if (dc.init() != null) namesIn(dc.init(), taken);
        }
        for (Function f : functions.values()) {
            java.util.Set<String> out = new java.util.LinkedHashSet<>();
            callees.put(f.name(), out);
            if (f.body() != null) scan(f.body(), out, taken);
        }
        taken.removeIf(n -> functions.get(n) == null || functions.get(n).body() == null);
        java.util.Set<String> ool = new java.util.HashSet<>(taken);
        for (String f : callees.keySet()) {
            java.util.Deque<String> todo = new java.util.ArrayDeque<>(callees.get(f));
            java.util.Set<String> seen = new java.util.HashSet<>();
            while (!todo.isEmpty()) {
                String g = todo.pop();
                if (g.equals(f)) {
                    ool.add(f);
                    break;
                }
                if (seen.add(g) && callees.containsKey(g)) todo.addAll(callees.get(g));
            }
        }
        addressTaken = taken;
        outOfLine = ool;
    }

    private void namesIn(Initializer init, java.util.Set<String> out) {
        switch (init) {
            case ListInit li -> { for (Initializer e : li.elements()) namesIn(e, out); }
            case ExprInit ei -> namesIn(ei.expr(), out);
            default -> {}
        }
    }

    private void namesIn(Operand o, java.util.Set<String> out) {
        switch (o) {
            case Ast.Sym s -> { if (functions.containsKey(s.name())) out.add(s.name()); }
            case Unary u -> namesIn(u.operand(), out);
            case Binary b -> { namesIn(b.left(), out); namesIn(b.right(), out); }
            case Paren p -> namesIn(p.inner(), out);
            case Call c -> namesIn(c.arg(), out);
            case VectorOperand v -> { for (Operand e : v.elements()) namesIn(e, out); }
            case AddressOperand a -> { for (Operand e : a.elements()) namesIn(e, out); }
            case TupleOperand t -> { for (Operand e : t.elements()) namesIn(e, out); }
            default -> {}
        }
    }

    private void scan(Block b, java.util.Set<String> callees, java.util.Set<String> taken) {
        for (Statement st : b.statements()) {
            switch (st) {
                case Block inner -> scan(inner, callees, taken);
                case CallTargets ct -> taken.addAll(ct.functions());
                case Instruction ins when ins.opcode().equals("call") -> {
                    for (Operand o : ins.operands()) {
                        if (o instanceof Ast.Sym s) {
                            if (functions.containsKey(s.name())) callees.add(s.name());
                            break;
                        }
                    }
                }
                case Instruction ins -> { for (Operand o : ins.operands()) namesIn(o, taken); }
                default -> {}
            }
        }
    }

    /** Value of a constant integer expression (PTX ISA 4.6), or null when it is not one: the PTX front end's. */
    static Long constant(Expr e) {
        return dev.zluda.ptx.Semantics.constant(e);
    }
}
