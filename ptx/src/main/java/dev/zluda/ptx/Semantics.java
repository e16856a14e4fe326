package dev.zluda.ptx;

import dev.zluda.ptx.Ast.*;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The semantic layer: builds a {@link ModuleModel} from a parsed {@link Ast.Module} and checks it.
 *
 * <p>What is checked, with the PTX ISA 9.0 section each rule comes from:
 * <ul>
 *   <li>module directives: {@code .version} and {@code .target} present (11.2);</li>
 *   <li>declarations: a type is given, {@code .align} is a power of two, array sizes are constant
 *       (5.4); kernel parameters are in {@code .param} space and kernels have no return values (11.3.1);</li>
 *   <li>symbols: every name an instruction uses resolves — registers (including {@code %r<N>} ranges),
 *       variables and parameters in the enclosing scopes (block scoping, 9.7.12.1), labels of the
 *       function, functions and variables of the module, special registers (chapter 10);
 *       redeclaration in one scope is an error;</li>
 *   <li>instructions: the opcode is a PTX instruction ({@link InstructionTable}); the guard is a
 *       {@code .pred}; the operand count (and, for most families, each operand's kind: register,
 *       immediate, vector, address, predicate pair) fits the family's syntax in 9.7 ({@link InstructionOperands},
 *       which says which families are checked exactly and which by bounds only); for the arithmetic, logic, comparison, selection, move and load/store families,
 *       each register operand's declared type fits the instruction type under the type-checking rules
 *       of 6.4 (equal size; {@code .b} takes any kind; {@code .s}/{@code .u} take integer and bit;
 *       {@code .f} takes float and bit) and, for {@code ld}/{@code st}/{@code ldu}, the relaxed rule
 *       that an integer or bit register may be wider than the instruction type; an integer constant where the
 *       operand type is a floating-point type is an error, as ptxas makes it (4.5.1, 4.5.2).</li>
 * </ul>
 * Parameter layouts are computed as described in {@link ParamInfo}.
 */
public final class Semantics {

    /** Special registers (chapter 10); the value says whether they take a .x/.y/.z component. */
    private static final Map<String, Boolean> SPECIAL = new HashMap<>();

    static {
        for (String s : List.of("%tid", "%ntid", "%ctaid", "%nctaid", "%clusterid", "%nclusterid",
                "%cluster_ctaid", "%cluster_nctaid")) SPECIAL.put(s, true);
        for (String s : List.of("%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%gridid",
                "%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge", "%lanemask_gt",
                "%clock", "%clock_hi", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi",
                "%total_smem_size", "%aggr_smem_size", "%dynamic_smem_size", "%reserved_smem_offset_begin",
                "%reserved_smem_offset_end", "%reserved_smem_offset_cap", "%current_graph_exec",
                "%is_explicit_cluster", "%cluster_ctarank", "%cluster_nctarank")) SPECIAL.put(s, false);
        for (int i = 0; i < 8; i++) { SPECIAL.put("%pm" + i, false); SPECIAL.put("%pm" + i + "_64", false); }
        for (int i = 0; i < 32; i++) SPECIAL.put("%envreg" + i, false);
        for (int i = 0; i < 2; i++) SPECIAL.put("%reserved_smem_offset_" + i, false);
    }

    /** Families whose register operands all carry the instruction type (after the special cases below). */
    private static final Set<String> TYPED = Set.of("add", "sub", "mul", "mad", "fma", "min", "max", "and", "or",
            "xor", "not", "neg", "abs", "mov", "selp", "setp", "div", "rem", "shl", "shr", "sin", "cos", "ex2",
            "lg2", "rcp", "sqrt", "rsqrt", "add.cc", "addc", "sub.cc", "subc", "mad.cc", "madc", "lop3",
            "copysign", "mul24", "mad24", "ld", "st", "ldu");

    /** Families whose constant operands are checked against their operand types, beside {@link #TYPED}. */
    private static final Set<String> CONSTANTS_CHECKED = Set.of("cvt", "set", "slct", "testp", "atom", "red");

    private enum Kind { REGISTER, VARIABLE, FUNCTION, LABEL }

    private record Symbol(Kind kind, String name, VariableInfo var, Loc loc) {}

    private static final class Scope {
        final Scope parent;
        final Map<String, Symbol> names = new HashMap<>();
        final Map<String, Symbol> ranges = new HashMap<>();   // %r<N>: prefix -> symbol

        Scope(Scope parent) { this.parent = parent; }

        Symbol lookup(String name) {
            for (Scope s = this; s != null; s = s.parent) {
                Symbol sym = s.names.get(name);
                if (sym != null) return sym;
                if (!s.ranges.isEmpty()) {
                    sym = s.rangeLookup(name);
                    if (sym != null) return sym;
                }
            }
            return null;
        }

        private Symbol rangeLookup(String name) {
            int i = name.length();
            while (i > 0 && Character.isDigit(name.charAt(i - 1))) i--;
            if (i == name.length() || i == 0) return null;
            String digits = name.substring(i);
            if (digits.length() > 1 && digits.charAt(0) == '0') return null;
            Symbol sym = ranges.get(name.substring(0, i));
            if (sym == null) return null;
            if (digits.length() > 10) return null;
            long n = Long.parseLong(digits);
            return n < sym.var().rangeCount() ? sym : null;
        }
    }

    private final String source;
    private final List<Diagnostic> diags = new ArrayList<>();
    private final Scope moduleScope = new Scope(null);
    private final Map<String, VariableInfo> globals = new LinkedHashMap<>();

    private Semantics(String source) {
        this.source = source;
    }

    /**
     * Analyzes a parsed module.
     *
     * @param module the AST (from {@link Ptx#parse}; a partial module from a file with syntax errors is fine)
     * @param source the name diagnostics are reported under
     */
    public static ModuleModel analyze(Ast.Module module, String source) {
        return new Semantics(source).run(module);
    }

    private void error(Loc loc, String message) {
        diags.add(new Diagnostic(source, loc.line(), loc.column(), Diagnostic.Severity.ERROR, message));
    }

    private ModuleModel run(Ast.Module module) {
        int major = 0, minor = 0, addressSize = 32;
        List<String> targets = new ArrayList<>();
        boolean sawVersion = false, sawTarget = false;
        Map<String, FunctionInfo> functions = new LinkedHashMap<>();
        Map<String, Function> definedFunctions = new HashMap<>();

        // pass 1: module-scope names (functions may be used before they are defined)
        for (ModuleItem item : module.items()) {
            switch (item) {
                case Version v -> { sawVersion = true; major = v.major(); minor = v.minor(); }
                case Target t -> { sawTarget = true; targets.addAll(t.names()); }
                case AddressSize a -> {
                    addressSize = a.bits();
                    if (a.bits() != 32 && a.bits() != 64) error(a.loc(), ".address_size must be 32 or 64, not " + a.bits());
                }
                case Function f -> {
                    Symbol prev = moduleScope.names.get(f.name());
                    if (prev != null && prev.kind() != Kind.FUNCTION) {
                        error(f.loc(), "'" + f.name() + "' is already declared at " + prev.loc());
                    } else if (f.body() != null) {
                        Function other = definedFunctions.putIfAbsent(f.name(), f);
                        if (other != null) error(f.loc(), "function '" + f.name() + "' is already defined at " + other.loc());
                    }
                    if (prev == null) moduleScope.names.put(f.name(), new Symbol(Kind.FUNCTION, f.name(), null, f.loc()));
                }
                case Decl d -> {
                    for (VariableInfo v : declare(d, moduleScope)) globals.put(v.name(), v);
                }
                case Alias a -> {
                    if (!moduleScope.names.containsKey(a.alias()))
                        moduleScope.names.put(a.alias(), new Symbol(Kind.FUNCTION, a.alias(), null, a.loc()));
                }
                default -> {}
            }
        }
        Loc start = module.items().isEmpty() ? new Loc(1, 1) : module.items().getFirst().loc();
        if (!sawVersion) error(start, "missing .version directive");
        if (!sawTarget) error(start, "missing .target directive");

        // pass 2: initializers, aliases, functions
        for (ModuleItem item : module.items()) {
            switch (item) {
                case Decl d -> checkInitializers(d, moduleScope);
                case Alias a -> {
                    Symbol t = moduleScope.lookup(a.target());
                    if (t == null || t.kind() != Kind.FUNCTION) error(a.loc(), "alias target '" + a.target() + "' is not a function");
                }
                case Function f -> {
                    FunctionInfo info = function(f);
                    FunctionInfo prev = functions.get(f.name());
                    if (prev == null || (!prev.defined() && info.defined())) functions.put(f.name(), info);
                }
                default -> {}
            }
        }
        diags.sort((a, b) -> a.line() != b.line() ? Integer.compare(a.line(), b.line()) : Integer.compare(a.column(), b.column()));
        return new ModuleModel(major, minor, targets, addressSize, functions, globals, diags);
    }

    // ------------------------------------------------------------------ declarations

    /**
     * What a declaration declares, one {@link VariableInfo} per name, resolved as {@link #analyze} does (its
     * problems are {@link #analyze}'s to report; here they are ignored).
     */
    public static List<VariableInfo> variables(Decl d) {
        return new Semantics("").declare(d, new Scope(null));
    }

    /** Resolves a declaration and enters its names into {@code scope}; returns one info per name. */
    private List<VariableInfo> declare(Decl d, Scope scope) {
        List<VariableInfo> out = new ArrayList<>();
        PtxType type = null;
        int vec = 1;
        long align = 0, pointeeAlign = 0;
        boolean ptr = false;
        String pointeeSpace = null;
        for (DeclAttr a : d.attrs()) {
            switch (a) {
                case Align al -> {
                    if (al.bytes() <= 0 || Long.bitCount(al.bytes()) != 1)
                        error(d.loc(), ".align must be a power of two, not " + al.bytes());
                    if (ptr) pointeeAlign = al.bytes(); else align = al.bytes();
                }
                case Word w -> {
                    String t = w.text();
                    PtxType pt = PtxType.fromName(t);
                    if (pt != null) {
                        if (type != null) error(d.loc(), "more than one type in declaration (" + type.ptxName() + " and " + t + ")");
                        type = pt;
                    } else if (t.equals(".v2") || t.equals(".v4") || t.equals(".v8")) {
                        vec = t.charAt(2) - '0';
                    } else if (t.equals(".ptr")) {
                        ptr = true;
                    } else {
                        error(d.loc(), "unknown type or attribute '" + t + "' in declaration");
                    }
                }
                case SpaceAttr s -> {
                    if (ptr && pointeeSpace == null) pointeeSpace = s.space();
                    else error(d.loc(), "unexpected state space " + s.space() + " in declaration");
                }
                case AttributeClause ac -> {}
            }
        }
        if (type == null) error(d.loc(), "declaration without a type");
        if (type == PtxType.PRED && !d.space().equals(".reg")) error(d.loc(), ".pred is only allowed in .reg declarations");
        long elem = type == null ? 0 : (long) type.size() * vec;
        long natural = Math.max(1, elem);
        for (Declarator dc : d.declarators()) {
            List<Long> dims = new ArrayList<>();
            long count = 1;
            for (Dim dim : dc.dims()) {
                if (dim.size() == null) { dims.add(-1L); count = 0; continue; }
                Long n = constant(dim.size());
                if (n == null || n < 0) {
                    error(dc.loc(), "array size of '" + dc.name() + "' is not a non-negative integer constant");
                    n = 0L;
                }
                dims.add(n);
                count = Math.multiplyHigh(count, n) != 0 ? Long.MAX_VALUE : count * n;
            }
            long range = dc.rangeCount() == null ? 0 : dc.rangeCount();
            if (dc.rangeCount() != null && !d.space().equals(".reg"))
                error(dc.loc(), "parameterized names " + dc.name() + "<N> are only allowed for .reg");
            VariableInfo v = new VariableInfo(dc.name(), d.space(), type, vec, dims, elem * count,
                    align != 0 ? align : natural, range, ptr, pointeeSpace, pointeeAlign, dc.loc());
            Kind kind = d.space().equals(".reg") ? Kind.REGISTER : Kind.VARIABLE;
            Symbol sym = new Symbol(kind, dc.name(), v, dc.loc());
            Map<String, Symbol> table = range > 0 ? scope.ranges : scope.names;
            Symbol prev = dc.name().equals("_") ? null : table.get(dc.name());   // "_" is an anonymous parameter
            if (dc.name().equals("_")) {
                // not entered: may repeat (.callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _))
            } else if (prev != null) {
                boolean externPair = d.linkage().contains(Linkage.EXTERN) || prev.var() == null;
                if (!externPair) error(dc.loc(), "'" + dc.name() + "' is already declared at " + prev.loc());
            } else {
                table.put(dc.name(), sym);
            }
            out.add(v);
        }
        return out;
    }

    private void checkInitializers(Decl d, Scope scope) {
        for (Declarator dc : d.declarators()) {
            if (dc.init() != null) initializer(dc.init(), scope);
            for (Dim dim : dc.dims()) if (dim.size() != null) resolveExpr(dim.size(), scope);
        }
    }

    private void initializer(Initializer init, Scope scope) {
        switch (init) {
            case ExprInit e -> resolveExpr(e.expr(), scope);
            case ListInit l -> { for (Initializer i : l.elements()) initializer(i, scope); }
            case SamplerInit s -> {}
        }
    }

    /**
     * Value of a constant integer expression (PTX ISA 9.0, 4.6 "Constant Expressions": integer
     * literals, unary {@code - + ~ !}, the C binary operators and {@code ?:}, evaluated in 64 bits),
     * or {@code null} when it is not one (a symbol, a float, a division by zero).
     */
    public static Long constant(Expr e) {
        return switch (e) {
            case IntLit i -> i.value();
            case Paren p -> constant(p.inner());
            case Unary u -> {
                Long v = constant(u.operand());
                if (v == null) yield null;
                yield switch (u.op()) {
                    case "-" -> -v;
                    case "+" -> v;
                    case "~" -> ~v;
                    case "!" -> v == 0 ? 1L : 0L;
                    default -> null;
                };
            }
            case Binary b -> {
                Long l = constant(b.left()), r = constant(b.right());
                if (l == null || r == null) yield null;
                yield switch (b.op()) {
                    case "+" -> l + r;
                    case "-" -> l - r;
                    case "*" -> l * r;
                    case "/" -> r == 0 ? null : l / r;
                    case "%" -> r == 0 ? null : l % r;
                    case "<<" -> l << r;
                    case ">>" -> l >> r;
                    case "&" -> l & r;
                    case "|" -> l | r;
                    case "^" -> l ^ r;
                    case "<" -> l < r ? 1L : 0L;
                    case ">" -> l > r ? 1L : 0L;
                    case "<=" -> l <= r ? 1L : 0L;
                    case ">=" -> l >= r ? 1L : 0L;
                    case "==" -> l.equals(r) ? 1L : 0L;
                    case "!=" -> !l.equals(r) ? 1L : 0L;
                    case "&&" -> (l != 0 && r != 0) ? 1L : 0L;
                    case "||" -> (l != 0 || r != 0) ? 1L : 0L;
                    default -> null;
                };
            }
            case Cond c -> {
                Long cv = constant(c.cond());
                yield cv == null ? null : constant(cv != 0 ? c.ifTrue() : c.ifFalse());
            }
            default -> null;
        };
    }

    // ------------------------------------------------------------------ functions

    private List<ParamInfo> layout(List<Decl> decls, Scope scope, boolean kernel) {
        List<ParamInfo> out = new ArrayList<>();
        long offset = 0;
        for (Decl d : decls) {
            if (kernel && !d.space().equals(".param"))
                error(d.loc(), "kernel parameters must be in .param space, not " + d.space());
            for (VariableInfo v : declare(d, scope)) {
                long a = v.alignment();
                offset = (offset + a - 1) / a * a;
                out.add(new ParamInfo(out.size(), v.name(), offset, v.size(), a, v));
                offset += v.size();
            }
        }
        return out;
    }

    private FunctionInfo function(Function f) {
        Scope fs = new Scope(moduleScope);
        if (f.entry() && f.returnParams() != null && !f.returnParams().isEmpty())
            error(f.loc(), "a kernel (.entry) cannot have return parameters");
        List<ParamInfo> ret = layout(f.returnParamsOrEmpty(), fs, false);
        List<ParamInfo> params = layout(f.paramsOrEmpty(), fs, f.entry());
        long paramSize = params.isEmpty() ? 0 : params.getLast().offset() + params.getLast().size();
        Map<String, List<Long>> directives = new LinkedHashMap<>();
        for (FunctionDirective d : f.directives()) {
            if (d instanceof PerfDirective p) {
                directives.put(p.name(), p.values());
                switch (p.name()) {
                    case ".maxntid", ".reqntid", ".reqnctapercluster" -> {
                        if (p.values().isEmpty() || p.values().size() > 3)
                            error(p.loc(), p.name() + " takes 1 to 3 dimensions, not " + p.values().size());
                        if (!f.entry()) error(p.loc(), p.name() + " is only allowed on .entry");
                    }
                    case ".minnctapersm", ".maxnctapersm", ".maxnreg", ".maxclusterrank" -> {
                        if (p.values().size() != 1) error(p.loc(), p.name() + " takes one value");
                    }
                    default -> {}
                }
            }
        }
        Map<String, VariableInfo> registers = new LinkedHashMap<>();
        int[] instructions = {0};
        if (f.body() != null) {
            // labels are visible in the whole function body
            collectLabels(f.body(), fs);
            block(f.body(), fs, registers, instructions);
        }
        return new FunctionInfo(f.name(), f.entry(), f.body() != null, params, paramSize, ret, registers,
                directives, instructions[0], f);
    }

    private void collectLabels(Block b, Scope fs) {
        for (Statement s : b.statements()) {
            if (s instanceof Label l) {
                Symbol prev = fs.names.get(l.name());
                if (prev != null) error(l.loc(), "label '" + l.name() + "' is already defined at " + prev.loc());
                else fs.names.put(l.name(), new Symbol(Kind.LABEL, l.name(), null, l.loc()));
            } else if (s instanceof Block inner) {
                collectLabels(inner, fs);
            }
        }
    }

    private void block(Block b, Scope parent, Map<String, VariableInfo> registers, int[] instructions) {
        Scope scope = new Scope(parent);
        // declarations anywhere in a block are visible in the whole block
        for (Statement s : b.statements()) {
            if (s instanceof Decl d) {
                for (VariableInfo v : declare(d, scope)) {
                    if (v.space().equals(".reg")) registers.putIfAbsent(v.name(), v);
                }
            }
        }
        for (Statement s : b.statements()) {
            switch (s) {
                case Instruction i -> { instructions[0]++; instruction(i, scope); }
                case Block inner -> block(inner, scope, registers, instructions);
                case Decl d -> checkInitializers(d, scope);
                case BranchTargets t -> { for (String l : t.labels()) requireKind(l, Kind.LABEL, t.loc(), scope); }
                case CallTargets t -> { for (String fn : t.functions()) requireKind(fn, Kind.FUNCTION, t.loc(), scope); }
                case CallPrototype p -> {
                    Scope ps = new Scope(null);
                    if (p.returnParams() != null) layout(p.returnParams(), ps, false);
                    layout(p.params(), ps, false);
                }
                default -> {}
            }
        }
    }

    private void requireKind(String name, Kind kind, Loc loc, Scope scope) {
        Symbol s = scope.lookup(name);
        if (s == null) error(loc, "undefined " + kind.name().toLowerCase() + " '" + name + "'");
        else if (s.kind() != kind) error(loc, "'" + name + "' is not a " + kind.name().toLowerCase());
    }

    // ------------------------------------------------------------------ instructions

    private void instruction(Instruction ins, Scope scope) {
        InstructionTable.Family fam = InstructionTable.lookup(ins);
        if (fam == null) error(ins.loc(), "unknown instruction '" + ins.opcode() + "'");
        else for (InstructionOperands.Problem p : InstructionOperands.check(fam, ins)) error(p.loc(), p.message());
        if (fam != null && fam.modifiers() != null) {
            List<String> mods = ins.modifiers();
            for (int i = fam.keyModifiers(); i < mods.size(); i++) {
                if (!fam.modifiers().contains(mods.get(i)))
                    error(ins.loc(), "'" + mods.get(i) + "' is not a modifier of " + fam.key() + " (PTX ISA " + fam.isaSection() + ")");
            }
        }
        if (ins.guard() != null) {
            Symbol g = scope.lookup(ins.guard().predicate());
            if (g == null) error(ins.guard().loc(), "undefined symbol '" + ins.guard().predicate() + "'");
            else if (g.kind() != Kind.REGISTER || g.var().type() != PtxType.PRED)
                error(ins.guard().loc(), "guard '" + ins.guard().predicate() + "' is not a .pred register");
        }
        for (Operand o : ins.operands()) resolveOperand(o, scope);
        if (fam != null && TYPED.contains(fam.key())) typeCheck(ins, fam.key(), scope);
        if (fam != null && CONSTANTS_CHECKED.contains(fam.key())) constantOperands(ins, fam.key());
    }

    private void resolveOperand(Operand o, Scope scope) {
        switch (o) {
            case Expr e -> resolveExpr(e, scope);
            case AddressOperand a -> { for (Operand x : a.elements()) resolveOperand(x, scope); }
            case VectorOperand v -> { for (Operand x : v.elements()) resolveOperand(x, scope); }
            case TupleOperand t -> { for (Operand x : t.elements()) resolveOperand(x, scope); }
            case PredPair p -> { resolveName(p.first(), null, p.loc(), scope); resolveName(p.second(), null, p.loc(), scope); }
            case NegPred n -> resolveName(n.name(), null, n.loc(), scope);
        }
    }

    private void resolveExpr(Expr e, Scope scope) {
        switch (e) {
            case Sym s -> resolveName(s.name(), s.component(), s.loc(), scope);
            case Unary u -> resolveExpr(u.operand(), scope);
            case Binary b -> { resolveExpr(b.left(), scope); resolveExpr(b.right(), scope); }
            case Cond c -> { resolveExpr(c.cond(), scope); resolveExpr(c.ifTrue(), scope); resolveExpr(c.ifFalse(), scope); }
            case Paren p -> resolveExpr(p.inner(), scope);
            case Call c -> resolveExpr(c.arg(), scope);
            default -> {}
        }
    }

    private void resolveName(String name, String component, Loc loc, Scope scope) {
        if (name.equals("_") || name.equals("WARP_SZ")) return;
        Boolean special = SPECIAL.get(name);
        if (special != null) {
            if (component != null && !special) error(loc, "special register " + name + " has no component " + component);
            if (component != null && special && !(component.equals(".x") || component.equals(".y") || component.equals(".z")))
                error(loc, "special register " + name + " has no component " + component + " (expected .x, .y or .z)");
            return;
        }
        if (scope.lookup(name) == null) error(loc, "undefined symbol '" + name + "'");
    }

    /** The register an operand names directly (a bare register name), or {@code null}. */
    private static VariableInfo register(Operand o, Scope scope) {
        if (o instanceof Sym s && s.component() == null) {
            Symbol sym = scope.lookup(s.name());
            if (sym != null && sym.kind() == Kind.REGISTER && sym.var().vectorWidth() == 1) return sym.var();
        }
        return null;
    }

    private static Loc locOf(Operand o) {
        return o instanceof Sym s ? s.loc() : Loc.NONE;
    }

    private void typeCheck(Instruction ins, String family, Scope scope) {
        PtxType t = null;
        boolean wide = false;
        for (String m : ins.modifiers()) {
            PtxType pt = PtxType.fromName(m);
            if (pt != null) t = pt;
            if (m.equals(".wide")) wide = true;
        }
        if (t == null) return;
        List<Operand> ops = ins.operands();
        switch (family) {
            case "ld", "ldu" -> { if (!ops.isEmpty()) memoryData(ins, ops.getFirst(), t, scope); }
            case "st" -> { if (ops.size() > 1) memoryData(ins, ops.get(1), t, scope); }
            case "setp" -> {
                for (int i = 0; i < ops.size(); i++) {
                    if (i == 0 || i == 3) expect(ins, ops.get(i), PtxType.PRED, scope);
                    else expect(ins, ops.get(i), t, scope);
                }
            }
            case "selp" -> {
                for (int i = 0; i < ops.size(); i++) expect(ins, ops.get(i), i == 3 ? PtxType.PRED : t, scope);
            }
            case "shl", "shr" -> {
                for (int i = 0; i < ops.size(); i++) expect(ins, ops.get(i), i == 2 ? PtxType.U32 : t, scope);
            }
            case "lop3" -> {
                // lop3.b32 d, a, b, c, immLut or lop3.BoolOp.b32 d|p, a, b, c, immLut, q (§9.7.8.6)
                for (int i = 0; i < ops.size(); i++) {
                    if (i == 0 && ops.get(0) instanceof PredPair pp) {
                        if (!pp.first().equals("_")) expect(ins, new Sym(pp.first(), null, pp.loc().line(), pp.loc().column()), t, scope);
                        expect(ins, new Sym(pp.second(), null, pp.loc().line(), pp.loc().column()), PtxType.PRED, scope);
                    } else if (i == 5) {
                        expect(ins, ops.get(i), PtxType.PRED, scope);
                    } else {
                        expect(ins, ops.get(i), t, scope);
                    }
                }
            }
            default -> {
                PtxType doubled = wide ? t.widened() : t;
                for (int i = 0; i < ops.size(); i++) {
                    boolean isWideOperand = wide && (i == 0 || (i == 3 && family.startsWith("mad")));
                    expect(ins, ops.get(i), isWideOperand ? doubled : t, scope);
                }
            }
        }
    }

    private void expect(Instruction ins, Operand o, PtxType want, Scope scope) {
        if (o instanceof PredPair p) {
            for (String n : List.of(p.first(), p.second())) {
                Symbol s = scope.lookup(n);
                if (s != null && s.kind() == Kind.REGISTER && s.var().type() != PtxType.PRED)
                    error(p.loc(), "'" + n + "' is not a .pred register");
            }
            return;
        }
        if (o instanceof NegPred n) {
            Symbol s = scope.lookup(n.name());
            if (s != null && s.kind() == Kind.REGISTER && s.var().type() != PtxType.PRED)
                error(n.loc(), "'" + n.name() + "' is not a .pred register");
            return;
        }
        constantKind(ins, o, want, ins.loc());
        VariableInfo r = register(o, scope);
        if (r == null || r.type() == null) return;
        if (!want.acceptsRegister(r.type())) {
            error(locOf(o), "operand '" + r.name() + "' of " + ins.form() + " is a " + r.type().ptxName()
                    + " register, expected one compatible with " + want.ptxName());
        }
    }

    /** ld/st data operand: relaxed rule, integer/bit registers may be wider than the instruction type. */
    private void memoryData(Instruction ins, Operand o, PtxType t, Scope scope) {
        List<Operand> elems = o instanceof VectorOperand v ? v.elements() : List.of(o);
        for (Operand e : elems) {
            constantKind(ins, e, t, ins.loc());
            VariableInfo r = register(e, scope);
            if (r == null || r.type() == null) continue;
            PtxType rt = r.type();
            boolean ok = t.acceptsRegister(rt);
            if (!ok && rt.size() > t.size() && t.kind() != PtxType.Kind.FLOAT && t.kind() != PtxType.Kind.PREDICATE
                    && (rt.kind() == PtxType.Kind.BIT || rt.kind() == PtxType.Kind.UNSIGNED || rt.kind() == PtxType.Kind.SIGNED)) {
                ok = true;
            }
            // a floating-point load into a wider bit-size register (ld.global.f32 into a .b64: PTX ISA 9.0, 6.4.1,
            // "Operand Size Exceeding Instruction-Type Size"; ptxas accepts it, and on an NVIDIA H200 the register gets
            // the value zero-extended, as the emulator does: the conformance sweep's probes). The store from a wider
            // register stays refused: the H200 stores neither its low half nor its conversion (the sweep's probe)
            if (!ok && rt.size() > t.size() && t.kind() == PtxType.Kind.FLOAT && rt.kind() == PtxType.Kind.BIT
                    && (ins.opcode().equals("ld") || ins.opcode().equals("ldu"))) {
                ok = true;
            }
            if (!ok) {
                error(locOf(e), "operand '" + r.name() + "' of " + ins.form() + " is a " + rt.ptxName()
                        + " register, expected one compatible with " + t.ptxName());
            }
        }
    }

    /**
     * A constant whose kind the operand type does not take is an error, as ptxas makes it ("Arguments mismatch for
     * instruction"; recorded with ptxas 13.0 in ptx/src/test/resources/ptxas/constant-operands.txt). An
     * integer constant (a literal, or an expression of literals only: {@code 1}, {@code 0x3f800000}, {@code 1U},
     * {@code 1+1}) has type .s64 or .u64 (PTX ISA 9.0, 4.5.1) and is no operand of a floating-point type: that
     * takes a floating-point literal (4.5.2: {@code 1.0}, {@code 0f3F800000}, {@code 0d3FF0000000000000}). A
     * floating-point literal is no operand of a signed or unsigned integer type, and a bit-size type takes only the
     * hexadecimal form, as the bits it spells ({@code mov.b32 %r1, 0f3F800000}; {@code mov.b32 %r1, 1.0} is refused).
     */
    private void constantKind(Instruction ins, Operand o, PtxType want, Loc loc) {
        if (want == null || !(o instanceof Expr e)) return;
        String what = null;
        if (want.kind() == PtxType.Kind.FLOAT && integerConstant(e)) {
            what = "a floating-point operand needs a floating-point literal (e.g. 1.0 or 0f3F800000; PTX ISA 9.0, 4.5.2)";
        } else if ((want.kind() == PtxType.Kind.SIGNED || want.kind() == PtxType.Kind.UNSIGNED) && floatLiteral(e, true)) {
            what = "an integer operand needs an integer constant (PTX ISA 9.0, 4.5.1)";
        } else if (want.kind() == PtxType.Kind.BIT && floatLiteral(e, false)) {
            what = "a bit-size operand takes a floating-point value only in hexadecimal form (0f..., 0d...; PTX ISA 9.0, 4.5.2)";
        }
        if (what == null) return;
        String kind = integerConstant(e) ? "integer constant" : "floating-point literal";
        error(loc, kind + " '" + PtxPrinter.print(e) + "' as a " + want.ptxName() + " operand of " + ins.form() + ": " + what);
    }

    /** Whether an expression is made of integer literals only. */
    private static boolean integerConstant(Expr e) {
        return switch (e) {
            case IntLit i -> true;
            case Unary u -> integerConstant(u.operand());
            case Binary b -> integerConstant(b.left()) && integerConstant(b.right());
            case Cond c -> integerConstant(c.cond()) && integerConstant(c.ifTrue()) && integerConstant(c.ifFalse());
            case Paren p -> integerConstant(p.inner());
            default -> false;
        };
    }

    /** Whether an expression is a floating-point literal (possibly negated), decimal only unless {@code hexToo}. */
    private static boolean floatLiteral(Expr e, boolean hexToo) {
        return switch (e) {
            case FloatLit f -> true;
            case HexFloat h -> hexToo;
            case Unary u -> u.op().equals("-") && floatLiteral(u.operand(), hexToo);
            case Paren p -> floatLiteral(p.inner(), hexToo);
            default -> false;
        };
    }

    /**
     * The constant operands of the families {@link #typeCheck} does not check, by the type each takes: {@code cvt}'s
     * source ({@code cvt.rn.f32.f64 %f1, 1} is refused), {@code set}'s compared operands, {@code slct}'s selected
     * values and its selector, {@code testp}'s operand, and the data operands of {@code atom} and {@code red}.
     */
    private void constantOperands(Instruction ins, String family) {
        List<PtxType> types = new ArrayList<>();
        for (String m : ins.modifiers()) {
            PtxType pt = PtxType.fromName(m);
            if (pt != null) types.add(pt);
        }
        if (types.isEmpty()) return;
        List<Operand> ops = ins.operands();
        PtxType first = types.getFirst(), last = types.getLast();
        for (int i = 1; i < ops.size(); i++) {
            PtxType want = switch (family) {
                case "cvt", "set" -> last;
                case "slct" -> i == 3 ? last : first;
                case "testp" -> first;
                case "atom" -> i >= 2 ? first : null;
                case "red" -> i >= 1 ? first : null;
                default -> null;
            };
            constantKind(ins, ops.get(i), want, ins.loc());
        }
    }
}
