package dev.zluda.ptx.ir;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.Diagnostic;
import dev.zluda.ptx.FunctionInfo;
import dev.zluda.ptx.InstructionTable;
import dev.zluda.ptx.ModuleModel;
import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.Semantics;
import dev.zluda.ptx.VariableInfo;
import dev.zluda.ptx.ir.Mod.*;
import dev.zluda.ptx.ir.Operand.*;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Builds the typed IR ({@link IrModule}) from a parsed and checked module — once, for both back ends. Every modifier
 * word becomes a {@link Mod} by what it means for its opcode ({@link #decode}); every operand becomes an
 * {@link Operand} with its names resolved as {@link Semantics} scopes them (block scoping, PTX ISA 9.0, 9.7.12.1;
 * {@code %r<N>} ranges, 5.1.1; labels function-wide; functions, variables and aliases module-wide; special
 * registers, chapter 10, unless a declaration of the same name is in scope).
 *
 * <p>Run it on a module {@link Semantics#analyze} accepted: what it cannot decode (an opcode no family has) is a
 * diagnostic at the instruction's line and column, and the instruction is left out.
 */
public final class IrBuilder {
    private final String source;
    private final List<Diagnostic> diags = new ArrayList<>();
    private final Names moduleScope = new Names(null);

    private IrBuilder(String source) {
        this.source = source;
    }

    /**
     * The IR of a module.
     *
     * @param ast    the parsed module
     * @param model  {@link Semantics#analyze}'s result for it
     * @param source the name diagnostics carry (the PTX file's path)
     */
    public static IrModule build(Ast.Module ast, ModuleModel model, String source) {
        return new IrBuilder(source).run(ast, model);
    }

    /**
     * The IR of a module from the front end's model alone (module variables from {@link ModuleModel#globals()},
     * no {@code .alias}es); {@link IrModule#ast()} is then null.
     */
    public static IrModule build(ModuleModel model, String source) {
        return new IrBuilder(source).run(null, model);
    }

    private IrModule run(Ast.Module ast, ModuleModel model) {
        if (ast != null) {
            for (Ast.ModuleItem item : ast.items()) {
                switch (item) {
                    case Ast.Function f -> moduleScope.names.putIfAbsent(f.name(), new Func(f.name()));
                    case Ast.Alias a -> moduleScope.names.putIfAbsent(a.alias(), new Func(a.alias()));
                    case Ast.Decl d -> declare(d, moduleScope, true);
                    default -> {}
                }
            }
        } else {
            for (String f : model.functions().keySet()) moduleScope.names.putIfAbsent(f, new Func(f));
            for (VariableInfo v : model.globals().values()) {
                moduleScope.names.putIfAbsent(v.name(), new Var(v.name(), v, StateSpace.of(v.space()), true));
            }
        }
        Map<String, IrFunction> functions = new LinkedHashMap<>();
        for (FunctionInfo fi : model.functions().values()) {
            Ast.Function f = fi.ast();
            Stmt.Block body = null;
            if (f.body() != null) {
                Names fs = new Names(moduleScope);
                for (Ast.Decl d : f.returnParamsOrEmpty()) declare(d, fs, false);
                for (Ast.Decl d : f.paramsOrEmpty()) declare(d, fs, false);
                labels(f.body(), fs);
                body = block(f.body(), fs);
            }
            functions.put(fi.name(), new IrFunction(fi, body));
        }
        return new IrModule(ast, model, functions, diags);
    }

    // ------------------------------------------------------------------ scopes

    private static final class Names {
        final Names parent;
        final Map<String, Operand> names = new HashMap<>();
        final Map<String, VariableInfo> ranges = new HashMap<>();

        Names(Names parent) {
            this.parent = parent;
        }
    }

    private List<VariableInfo> declare(Ast.Decl d, Names scope, boolean module) {
        List<VariableInfo> vars = Semantics.variables(d);
        StateSpace space = StateSpace.of(d.space());
        for (VariableInfo v : vars) {
            if (v.name().equals("_")) continue;
            if (space == StateSpace.REG) {
                if (v.rangeCount() > 0) scope.ranges.putIfAbsent(v.name(), v);
                else scope.names.putIfAbsent(v.name(), new Reg(v.name(), v, -1));
            } else {
                scope.names.putIfAbsent(v.name(), new Var(v.name(), v, space, module));
            }
        }
        return vars;
    }

    private void labels(Ast.Block b, Names fs) {
        for (Ast.Statement s : b.statements()) {
            if (s instanceof Ast.Label l) fs.names.putIfAbsent(l.name(), new Label(l.name()));
            else if (s instanceof Ast.Block inner) labels(inner, fs);
        }
    }

    /** A name in scope: a register (with {@code component}), variable, label or function; null when not declared. */
    private static Operand lookup(Names scope, String name, int component) {
        for (Names s = scope; s != null; s = s.parent) {
            Operand o = s.names.get(name);
            if (o != null) return o instanceof Reg r ? new Reg(name, r.var(), component) : o;
            if (!s.ranges.isEmpty()) {
                int i = name.length();
                while (i > 0 && Character.isDigit(name.charAt(i - 1))) i--;
                if (i < name.length() && i > 0) {
                    VariableInfo v = s.ranges.get(name.substring(0, i));
                    String digits = name.substring(i);
                    if (v != null && digits.length() <= 9 && (digits.length() == 1 || digits.charAt(0) != '0')
                            && Long.parseLong(digits) < v.rangeCount()) {
                        return new Reg(name, v, component);
                    }
                }
            }
        }
        return null;
    }

    /** What a name denotes in {@code scope}, {@code component} the suffix written after it ({@code .x}) or null. */
    private static Operand resolve(Names scope, String name, String component) {
        if (name.equals("_")) return new Sink();
        Operand o = lookup(scope, name, regComponent(component));
        if (o != null) return o;
        Object[] sp = SpecialReg.of(name);
        if (sp != null) return new Special((SpecialReg) sp[0], (Integer) sp[1], specialComponent(component));
        return new Unknown(name);
    }

    private static int regComponent(String c) {
        if (c == null) return -1;
        return switch (c) {
            case ".y", ".g" -> 1;
            case ".z", ".b" -> 2;
            case ".w", ".a" -> 3;
            default -> 0;
        };
    }

    private static int specialComponent(String c) {
        if (c == null) return -1;
        return switch (c) {
            case ".x" -> 0;
            case ".y" -> 1;
            case ".z" -> 2;
            default -> 3;
        };
    }

    // ------------------------------------------------------------------ statements

    private Stmt.Block block(Ast.Block b, Names parent) {
        Names scope = new Names(parent);
        Map<Ast.Decl, List<VariableInfo>> decls = new HashMap<>();
        for (Ast.Statement s : b.statements()) {
            if (s instanceof Ast.Decl d) decls.put(d, declare(d, scope, false));
        }
        List<Stmt> out = new ArrayList<>();
        for (Ast.Statement s : b.statements()) {
            switch (s) {
                case Ast.Decl d -> out.add(new Stmt.Decl(d, decls.get(d)));
                case Ast.Label l -> out.add(new Stmt.Label(l.name(), l.loc()));
                case Ast.Block inner -> out.add(block(inner, scope));
                case Ast.Instruction i -> {
                    Instr x = instruction(i, scope);
                    if (x != null) out.add(x);
                }
                default -> out.add(new Stmt.Directive(s));
            }
        }
        return new Stmt.Block(out, b);
    }

    /** The IR of one instruction in {@code scope}, or null (and a diagnostic) when its opcode is no PTX instruction. */
    private Instr instruction(Ast.Instruction i, Names scope) {
        InstructionTable.Family fam = InstructionTable.lookup(i);
        Opcode op = fam == null ? null : Opcode.of(fam.key());
        if (op == null) {
            diags.add(new Diagnostic(source, i.loc().line(), i.loc().column(), Diagnostic.Severity.ERROR,
                    "unknown instruction '" + i.form() + "'"));
            return null;
        }
        // mad.lo.cc / mad.hi.cc (PTX ISA 9.0, 9.7.2.5): the family key needs .cc first, the ISA writes it after .lo/.hi
        if (op == Opcode.MAD && i.modifiers().contains(".cc")) op = Opcode.MAD_CC;
        List<Mod> mods = new ArrayList<>();
        for (String m : i.modifiers()) mods.add(decode(op, m));
        List<Operand> ops = new ArrayList<>();
        for (Ast.Operand o : i.operands()) ops.add(operand(o, scope));
        Operand guard = i.guard() == null ? null : resolve(scope, i.guard().predicate(), null);
        return new Instr(op, guard, i.guard() != null && i.guard().negated(), new Modifiers(mods), ops, i);
    }

    // ------------------------------------------------------------------ modifiers

    private static final Map<String, Mod> FIXED = new HashMap<>();
    private static final Pattern VECTOR = Pattern.compile("\\.v(\\d+)");
    private static final Pattern SHAPE = Pattern.compile("\\.m(\\d+)n(\\d+)(?:k(\\d+))?");
    private static final Pattern COUNT = Pattern.compile("\\.x(\\d+)");

    static {
        List<Mod> fixed = new ArrayList<>();
        fixed.addAll(List.of(Rounding.values()));
        fixed.addAll(List.of(StateSpace.values()));
        fixed.addAll(List.of(MemOrder.values()));
        fixed.addAll(List.of(Mod.Scope.values()));
        fixed.addAll(List.of(CacheOp.values()));
        fixed.addAll(List.of(CacheHint.values()));
        fixed.addAll(List.of(ShflMode.values()));
        fixed.addAll(List.of(Layout.values()));
        fixed.addAll(List.of(Geometry.values()));
        fixed.addAll(List.of(PrmtMode.values()));
        fixed.addAll(List.of(TestClass.values()));
        fixed.addAll(List.of(Flag.values()));
        fixed.addAll(List.of(ReduceOp.values()));
        fixed.addAll(List.of(Compare.values()));
        fixed.addAll(List.of(VoteMode.values()));
        for (Mod m : fixed) FIXED.put(m.text(), m);
        // words whose meaning depends on the opcode are decided in decode()
        for (String w : List.of(".and", ".or", ".xor", ".hi", ".lo", ".uni", ".r", ".l", ".g", ".a", ".b", ".c", ".d", ".p",
                ".clamp", ".wrap", ".trap", ".zero")) {
            FIXED.remove(w);
        }
    }

    /**
     * What modifier word {@code w} means for {@code op}: a type wherever it names one, the words of several meanings
     * by opcode ({@code .and .or .xor}: Boolean operator of setp, set and lop3, else a reduction; {@code .hi .lo}:
     * comparisons of setp and set, else the half of a product; {@code .r .g .b .a}: tld4's component; {@code .a .b
     * .c .d}: wmma's fragment; {@code .b .p .trap .clamp .zero}: suld/sust/sured's access and out-of-bounds mode;
     * {@code .l .r .wrap .clamp}: shf/bmsk/szext's direction and mode; {@code .uni}: vote's mode, else bra's
     * uniformity), {@link Mod.Other} for a word no back end interprets.
     */
    public static Mod decode(Opcode op, String w) {
        PtxType t = PtxType.fromName(w);
        if (t != null) return Mod.Type.of(t);
        boolean surface = op == Opcode.SULD || op == Opcode.SUST || op == Opcode.SURED;
        boolean wmma = op == Opcode.WMMA_LOAD || op == Opcode.WMMA_STORE || op == Opcode.WMMA_MMA;
        switch (w) {
            case ".and", ".or", ".xor" -> {
                if (op == Opcode.SETP || op == Opcode.SET || op == Opcode.LOP3) {
                    return w.equals(".and") ? BoolOp.AND : w.equals(".or") ? BoolOp.OR : BoolOp.XOR;
                }
                return w.equals(".and") ? ReduceOp.AND : w.equals(".or") ? ReduceOp.OR : ReduceOp.XOR;
            }
            case ".hi", ".lo" -> {
                if (op == Opcode.SETP || op == Opcode.SET) return w.equals(".hi") ? Compare.HI : Compare.LO;
                return w.equals(".hi") ? Flag.HI : Flag.LO;
            }
            case ".uni" -> { return op == Opcode.VOTE ? VoteMode.UNI : Flag.UNI; }
            case ".r" -> {
                if (op == Opcode.TLD4) return Component.R;
                if (op == Opcode.SHF) return ShiftDir.R;
            }
            case ".l" -> { if (op == Opcode.SHF) return ShiftDir.L; }
            case ".g" -> { if (op == Opcode.TLD4) return Component.G; }
            case ".a" -> {
                if (op == Opcode.TLD4) return Component.A;
                if (wmma) return Fragment.A;
            }
            case ".b" -> {
                if (op == Opcode.TLD4) return Component.B;
                if (wmma) return Fragment.B;
                if (surface) return SurfaceAccess.B;
            }
            case ".c" -> { if (wmma) return Fragment.C; }
            case ".d" -> { if (wmma) return Fragment.D; }
            case ".p" -> { if (surface) return SurfaceAccess.P; }
            case ".clamp" -> { return surface ? SurfaceOob.CLAMP : ShiftMode.CLAMP; }
            case ".wrap" -> { return ShiftMode.WRAP; }
            case ".trap" -> { if (surface) return SurfaceOob.TRAP; }
            case ".zero" -> { if (surface) return SurfaceOob.ZERO; }
            default -> {
                Mod m = FIXED.get(w);
                if (m != null) return m;
                Matcher v = VECTOR.matcher(w);
                if (v.matches() && v.group(1).length() <= 3) return new Mod.Vector(Integer.parseInt(v.group(1)));
                Matcher s = SHAPE.matcher(w);
                if (s.matches() && w.length() <= 16) {
                    return new Shape(Integer.parseInt(s.group(1)), Integer.parseInt(s.group(2)),
                            s.group(3) == null ? 0 : Integer.parseInt(s.group(3)));
                }
                Matcher c = COUNT.matcher(w);
                if (c.matches() && c.group(1).length() <= 3) return new Count(Integer.parseInt(c.group(1)));
                if (w.startsWith(".kind::")) return new MmaKind(w.substring(".kind::".length()));
            }
        }
        return new Other(w);
    }

    // ------------------------------------------------------------------ operands

    private Operand operand(Ast.Operand o, Names scope) {
        return switch (o) {
            case Ast.PredPair p -> new PredPair(resolve(scope, p.first(), null), resolve(scope, p.second(), null));
            case Ast.NegPred n -> new Not(resolve(scope, n.name(), null));
            case Ast.VectorOperand v -> {
                List<Operand> el = new ArrayList<>();
                for (Ast.Operand e : v.elements()) el.add(operand(e, scope));
                yield new Vec(el);
            }
            case Ast.TupleOperand t -> {
                List<Operand> el = new ArrayList<>();
                for (Ast.Operand e : t.elements()) el.add(operand(e, scope));
                yield new Tuple(el);
            }
            case Ast.AddressOperand a -> {
                if (a.elements().size() == 1 && a.elements().getFirst() instanceof Ast.Expr e) {
                    Term term = new Term();
                    yield term.walk(e, 1, scope) ? new Address(term.base, term.offset) : new Malformed(a, true);
                }
                List<Operand> el = new ArrayList<>();
                for (Ast.Operand e : a.elements()) el.add(operand(e, scope));
                yield new AddressList(el);
            }
            case Ast.Expr e -> value(e, scope);
        };
    }

    /** An expression operand: a name, an immediate, or a name plus a constant. */
    private Operand value(Ast.Expr e, Names scope) {
        Long c = Semantics.constant(e);
        if (c != null) return new IntImm(c);
        Ast.Expr inner = e;
        while (inner instanceof Ast.Paren p) inner = p.inner();
        boolean neg = false;
        Ast.Expr lit = inner;
        if (inner instanceof Ast.Unary u && u.op().equals("-") && (u.operand() instanceof Ast.FloatLit || u.operand() instanceof Ast.HexFloat)) {
            neg = true;
            lit = u.operand();
        }
        if (lit instanceof Ast.FloatLit f) return new FloatImm(FloatImm.Kind.DECIMAL, Double.doubleToRawLongBits(f.value()), neg, e);
        if (lit instanceof Ast.HexFloat h) return new FloatImm(h.dbl() ? FloatImm.Kind.HEX_F64 : FloatImm.Kind.HEX_F32, h.bits(), neg, e);
        if (inner instanceof Ast.Sym s) return resolve(scope, s.name(), s.component());
        boolean generic = false;
        Ast.Expr walked = e;
        if (e instanceof Ast.Call call && call.function().equals("generic")) {
            generic = true;
            walked = call.arg();
        }
        if (walked instanceof Ast.Binary || walked instanceof Ast.Paren || generic) {
            Term term = new Term();
            if (term.walk(walked, 1, scope) && term.base != null) return new Sum(term.base, term.offset, generic, e);
        }
        return new Malformed(e, false);
    }

    /** A sum of at most one name and constants ({@code sym+8}, {@code %rd1-4}, {@code 16+sym}), as an address is. */
    private static final class Term {
        Operand base;
        long offset;

        boolean walk(Ast.Expr e, int sign, Names scope) {
            switch (e) {
                case Ast.Sym s -> {
                    if (base != null || sign < 0) return false;
                    base = resolve(scope, s.name(), s.component());
                    return true;
                }
                case Ast.Paren p -> { return walk(p.inner(), sign, scope); }
                case Ast.Binary b when b.op().equals("+") || b.op().equals("-") -> {
                    Long l = Semantics.constant(b.left()), r = Semantics.constant(b.right());
                    if (l != null && r != null) {
                        offset += sign * (b.op().equals("+") ? l + r : l - r);
                        return true;
                    }
                    return walk(b.left(), sign, scope) && walk(b.right(), b.op().equals("-") ? -sign : sign, scope);
                }
                default -> {
                    Long c = Semantics.constant(e);
                    if (c == null) return false;
                    offset += sign * c;
                    return true;
                }
            }
        }
    }
}
