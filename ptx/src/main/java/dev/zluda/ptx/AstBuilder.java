package dev.zluda.ptx;

import dev.zluda.ptx.Ast.*;
import dev.zluda.ptx.parser.PtxParser;
import dev.zluda.ptx.parser.PtxParser.*;
import org.antlr.v4.runtime.ParserRuleContext;
import org.antlr.v4.runtime.Token;
import org.antlr.v4.runtime.tree.ParseTree;
import org.antlr.v4.runtime.tree.TerminalNode;

import java.util.ArrayList;
import java.util.List;

/**
 * Turns an error-free ANTLR parse tree into {@link Ast} records. Walks each context's children once
 * (the generated {@code ctx.ID(i)} accessors rescan the children on every call). Literal values
 * that do not fit their form (an integer above 64 bits) are reported through {@link #problems}.
 */
final class AstBuilder {
    /** Problems found while building (malformed literal values); reported by {@link Ptx}. */
    final List<Diagnostic> problems = new ArrayList<>();
    private final String source;
    /** Interning table shared by all chunks of one text: register names, opcodes and modifiers repeat a lot. */
    private final java.util.Map<String, String> strings;

    AstBuilder(String source, java.util.Map<String, String> strings) {
        this.source = source;
        this.strings = strings;
    }

    private String intern(String s) {
        String prev = strings.putIfAbsent(s, s);
        return prev == null ? s : prev;
    }

    private String intern(Token t) {
        return intern(t.getText());
    }

    private static Loc loc(Token t) {
        return new Loc(t.getLine(), t.getCharPositionInLine() + 1);
    }

    private static Loc loc(ParserRuleContext c) {
        return loc(c.getStart());
    }

    private static int type(ParseTree t) {
        return t instanceof TerminalNode n ? n.getSymbol().getType() : -1;
    }

    private static String stringContents(TerminalNode n) {
        String s = n.getText();
        return s.substring(1, s.length() - 1);
    }

    // ---------------------------------------------------------------- module

    void module(ModuleContext ctx, List<ModuleItem> out) {
        for (ParseTree ch : ctx.children) {
            if (ch instanceof ModuleItemContext mi) out.add(moduleItem(mi));
        }
    }

    private ModuleItem moduleItem(ModuleItemContext mi) {
        ParseTree c = mi.getChild(0);
        return switch (c) {
            case VersionDirectiveContext v -> version(v);
            case TargetDirectiveContext t -> {
                List<String> names = new ArrayList<>();
                for (ParseTree ch : t.children) if (type(ch) == PtxParser.ID) names.add(ch.getText());
                yield new Target(names, loc(t));
            }
            case AddressSizeDirectiveContext a -> new AddressSize((int) intValue(a.INT_LIT()), loc(a));
            case FileDirectiveContext f -> {
                List<TerminalNode> ints = f.INT_LIT();
                yield new FileDirective(intValue(ints.get(0)), stringContents(f.STRING()),
                        ints.size() > 1 ? intValue(ints.get(1)) : null,
                        ints.size() > 2 ? intValue(ints.get(2)) : null, loc(f));
            }
            case SectionDirectiveContext s -> section(s);
            case AliasDirectiveContext a -> new Alias(a.ID(0).getText(), a.ID(1).getText(), loc(a));
            case PragmaDirectiveContext p -> new Pragma(strings(p), loc(p));
            case FunctionContext f -> function(f);
            case VariableDeclContext v -> decl(v);
            default -> throw new IllegalStateException("unexpected module item " + c.getClass());
        };
    }

    private Version version(VersionDirectiveContext v) {
        String text = v.FLOAT_LIT().getText();
        int dot = text.indexOf('.');
        int major = 0, minor = 0;
        try {
            major = Integer.parseInt(text.substring(0, dot));
            minor = Integer.parseInt(text.substring(dot + 1));
        } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
            problem(v.FLOAT_LIT().getSymbol(), "malformed .version '" + text + "', expected major.minor");
        }
        return new Version(major, minor, loc(v));
    }

    private static List<String> strings(ParserRuleContext p) {
        List<String> out = new ArrayList<>();
        for (ParseTree ch : p.children) if (type(ch) == PtxParser.STRING) out.add(stringContents((TerminalNode) ch));
        return out;
    }

    private Section section(SectionDirectiveContext s) {
        List<SectionItem> items = new ArrayList<>();
        for (ParseTree ch : s.children) {
            if (ch instanceof SectionLabelContext l) {
                items.add(new SectionLabel(l.ID().getText(), loc(l)));
            } else if (ch instanceof SectionDataContext d) {
                List<SectionValue> values = new ArrayList<>();
                for (ParseTree v : d.children) {
                    if (v instanceof SectionRefValueContext r) {
                        values.add(new SectionRef(r.DOTID().getText(), r.op == null ? null : r.op.getText(),
                                r.expr() == null ? null : expr(r.expr())));
                    } else if (v instanceof SectionExprValueContext e) {
                        values.add(new SectionExpr(expr(e.expr())));
                    }
                }
                items.add(new SectionData(d.DOTID().getText(), values, loc(d)));
            }
        }
        return new Section(s.DOTID().getText(), items, loc(s));
    }

    private static Linkage linkage(LinkageContext l) {
        return switch (l.getStart().getType()) {
            case PtxParser.VISIBLE -> Linkage.VISIBLE;
            case PtxParser.EXTERN -> Linkage.EXTERN;
            case PtxParser.WEAK -> Linkage.WEAK;
            default -> Linkage.COMMON;
        };
    }

    private Function function(FunctionContext f) {
        List<Linkage> linkage = new ArrayList<>();
        List<AttributeClause> attrs = new ArrayList<>();
        List<Decl> ret = null, params = null;
        List<FunctionDirective> directives = new ArrayList<>();
        String name = null;
        Block body = null;
        List<Decl> pending = null;  // parameter list being collected
        boolean inParens = false;
        for (ParseTree ch : f.children) {
            switch (ch) {
                case LinkageContext l -> linkage.add(linkage(l));
                case AttributeClauseContext a -> attrs.add(attributeClause(a));
                case ParamListContext pl -> pending.addAll(paramList(pl));
                case FunctionDirectiveContext d -> directives.add(functionDirective(d));
                case BlockContext b -> body = block(b);
                default -> {
                    int t = type(ch);
                    if (t == PtxParser.LPAREN) {
                        pending = new ArrayList<>();
                        inParens = true;
                    } else if (t == PtxParser.RPAREN) {
                        if (name == null) ret = pending; else params = pending;
                        inParens = false;
                    } else if (t == PtxParser.ID && !inParens) {
                        name = ch.getText();
                    }
                }
            }
        }
        return new Function(linkage, f.kind.getType() == PtxParser.ENTRY, attrs, ret, name, params,
                directives, body, loc(f));
    }

    private List<Decl> paramList(ParamListContext pl) {
        List<Decl> out = new ArrayList<>();
        for (ParseTree ch : pl.children) if (ch instanceof ParamDeclContext p) out.add(paramDecl(p));
        return out;
    }

    private Decl paramDecl(ParamDeclContext p) {
        String space = null;
        List<DeclAttr> attrs = new ArrayList<>();
        Declarator d = null;
        for (ParseTree ch : p.children) {
            switch (ch) {
                case StateSpaceContext s -> space = s.getText();
                case DeclAttrContext a -> attrs.add(declAttr(a));
                case DeclaratorContext dc -> d = declarator(dc);
                default -> {}
            }
        }
        return new Decl(List.of(), space, attrs, List.of(d), loc(p));
    }

    private FunctionDirective functionDirective(FunctionDirectiveContext d) {
        if (d.perfKw == null) return new Pragma(strings(d), loc(d));
        List<Long> values = new ArrayList<>();
        for (ParseTree ch : d.children) if (type(ch) == PtxParser.INT_LIT) values.add(intValue((TerminalNode) ch));
        return new PerfDirective(d.perfKw.getText(), values, loc(d));
    }

    private AttributeClause attributeClause(AttributeClauseContext a) {
        List<Attribute> items = new ArrayList<>();
        for (ParseTree ch : a.children) {
            if (ch instanceof AttributeItemContext it) {
                List<Expr> args = new ArrayList<>();
                for (ParseTree e : it.children) if (e instanceof ExprContext ec) args.add(expr(ec));
                items.add(new Attribute(it.DOTID().getText(), args));
            }
        }
        return new AttributeClause(items);
    }

    // ---------------------------------------------------------------- declarations

    private DeclAttr declAttr(DeclAttrContext a) {
        ParseTree c = a.getChild(0);
        if (c instanceof StateSpaceContext s) return new SpaceAttr(s.getText());
        if (c instanceof AttributeClauseContext ac) return attributeClause(ac);
        TerminalNode t = (TerminalNode) c;
        if (t.getSymbol().getType() == PtxParser.ALIGN) return new Align(intValue(a.INT_LIT()));
        return new Word(t.getText());
    }

    private Decl decl(VariableDeclContext v) {
        List<Linkage> linkage = new ArrayList<>();
        String space = null;
        List<DeclAttr> attrs = new ArrayList<>();
        List<Declarator> ds = new ArrayList<>();
        for (ParseTree ch : v.children) {
            switch (ch) {
                case LinkageContext l -> linkage.add(linkage(l));
                case StateSpaceContext s -> space = s.getText();
                case DeclAttrContext a -> attrs.add(declAttr(a));
                case DeclaratorContext d -> ds.add(declarator(d));
                default -> {}
            }
        }
        return new Decl(linkage, space, attrs, ds, loc(v));
    }

    private Declarator declarator(DeclaratorContext d) {
        String name = null;
        Long range = null;
        List<Dim> dims = new ArrayList<>();
        Initializer init = null;
        boolean inBracket = false, dimHasExpr = false;
        for (ParseTree ch : d.children) {
            switch (ch) {
                case ExprContext e -> {
                    dims.add(new Dim(expr(e)));
                    dimHasExpr = true;
                }
                case InitializerContext i -> init = initializer(i);
                default -> {
                    int t = type(ch);
                    if (t == PtxParser.ID) name = ch.getText();
                    else if (t == PtxParser.INT_LIT) range = intValue((TerminalNode) ch);
                    else if (t == PtxParser.LBRACK) {
                        inBracket = true;
                        dimHasExpr = false;
                    } else if (t == PtxParser.RBRACK) {
                        if (inBracket && !dimHasExpr) dims.add(new Dim(null));
                        inBracket = false;
                    }
                }
            }
        }
        return new Declarator(name, range, dims, init, loc(d));
    }

    private Initializer initializer(InitializerContext i) {
        return switch (i) {
            case ExprInitContext e -> new ExprInit(expr(e.expr()));
            case ListInitContext l -> {
                List<Initializer> elems = new ArrayList<>();
                for (ParseTree ch : l.children) if (ch instanceof InitializerContext ic) elems.add(initializer(ic));
                yield new ListInit(elems);
            }
            case SamplerInitContext s -> {
                List<SamplerField> fields = new ArrayList<>();
                String pendingName = null;
                for (ParseTree ch : s.children) {
                    if (type(ch) == PtxParser.ID) pendingName = ch.getText();
                    else if (ch instanceof ExprContext e) fields.add(new SamplerField(pendingName, expr(e)));
                }
                yield new SamplerInit(fields);
            }
            default -> throw new IllegalStateException("unexpected initializer " + i.getClass());
        };
    }

    // ---------------------------------------------------------------- statements

    Block block(BlockContext b) {
        List<Statement> stmts = new ArrayList<>(b.getChildCount());
        for (ParseTree ch : b.children) {
            if (ch instanceof StatementContext s) stmts.add(statement(s));
        }
        return new Block(stmts, loc(b));
    }

    private Statement statement(StatementContext s) {
        return switch (s) {
            case IdStmtContext i -> i.getChildCount() == 2 && type(i.getChild(1)) == PtxParser.COLON
                    ? new Label(intern(i.getStart().getText()), loc(i))
                    : instruction(i);
            case GuardedStmtContext g -> instruction(g);
            case DeclStmtContext d -> decl((VariableDeclContext) d.getChild(0));
            case BlockStmtContext b -> block((BlockContext) b.getChild(0));
            case LocStmtContext l -> {
                List<TerminalNode> ints = l.INT_LIT();
                List<LocAttr> attrs = new ArrayList<>();
                for (ParseTree ch : l.children) {
                    if (ch instanceof LocAttrContext a) {
                        List<Expr> values = new ArrayList<>();
                        for (ParseTree e : a.children) if (e instanceof ExprContext ec) values.add(expr(ec));
                        attrs.add(new LocAttr(a.ID().getText(), values));
                    }
                }
                yield new LocDirective(intValue(ints.get(0)), intValue(ints.get(1)), intValue(ints.get(2)), attrs, loc(l));
            }
            case PragmaStmtContext p -> new Pragma(strings(p), loc(p));
            case ProtoStmtContext p -> {
                List<Decl> ret = null, params = null, pending = null;
                String name = null;
                for (ParseTree ch : p.children) {
                    if (ch instanceof ParamListContext pl) pending.addAll(paramList(pl));
                    else if (type(ch) == PtxParser.LPAREN) pending = new ArrayList<>();
                    else if (type(ch) == PtxParser.RPAREN) {
                        if (name == null) ret = pending; else params = pending;
                    } else if (type(ch) == PtxParser.ID) name = ch.getText();
                }
                yield new CallPrototype(ret, name, params, p.NORETURN() != null, loc(p));
            }
            case BranchTargetsStmtContext b -> new BranchTargets(ids(b), loc(b));
            case CallTargetsStmtContext c -> new CallTargets(ids(c), loc(c));
            default -> throw new IllegalStateException("unexpected statement " + s.getClass());
        };
    }

    private static List<String> ids(ParserRuleContext c) {
        List<String> out = new ArrayList<>();
        for (ParseTree ch : c.children) if (type(ch) == PtxParser.ID) out.add(ch.getText());
        return out;
    }

    private Instruction instruction(StatementContext ic) {
        Guard guard = null;
        String opcode = null;
        List<String> mods = new ArrayList<>(4);
        List<Operand> ops = new ArrayList<>(4);
        for (ParseTree ch : ic.children) {
            switch (ch) {
                case GuardContext g -> {
                    TerminalNode id = g.ID();
                    guard = new Guard(g.NOT() != null, intern(id.getSymbol()), loc(id.getSymbol()));
                }
                case ModifierContext m -> mods.add(intern(m.getStart()));
                case OperandListContext ol -> {
                    for (ParseTree o : ol.children) if (o instanceof OperandContext oc) ops.add(operand(oc));
                }
                default -> {
                    if (type(ch) == PtxParser.ID) opcode = intern(((TerminalNode) ch).getSymbol());
                }
            }
        }
        return new Instruction(guard, opcode, mods, ops, loc(ic));
    }

    /**
     * An operand. {@code a|b} becomes a
     * {@link PredPair} and {@code !a} a {@link NegPred} (the grammar parses both as expressions).
     */
    private Operand operand(OperandContext o) {
        return switch (o) {
            case ExprOperandContext e -> {
                Expr x = expr(e.expr());
                if (x instanceof Binary(String op, Sym a, Sym b) && op.equals("|") && a.component() == null && b.component() == null) {
                    yield new PredPair(a.name(), b.name(), a.loc());
                }
                if (x instanceof Unary(String op, Sym a) && op.equals("!") && a.component() == null) {
                    yield new NegPred(a.name(), a.loc());
                }
                yield x;
            }
            case AddressOperandContext a -> new AddressOperand(operands(a));
            case VectorOperandContext v -> new VectorOperand(operands(v));
            case TupleOperandContext t -> new TupleOperand(operands(t));
            default -> throw new IllegalStateException("unexpected operand " + o.getClass());
        };
    }

    private List<Operand> operands(ParserRuleContext c) {
        List<Operand> out = new ArrayList<>();
        for (ParseTree ch : c.children) if (ch instanceof OperandContext o) out.add(operand(o));
        return out;
    }

    // ---------------------------------------------------------------- expressions

    /** Expression: the grammar gives a flat chain {@code unary (binop unary)* (? expr : expr)?};
     * C precedence and left associativity are applied here by precedence climbing. */
    Expr expr(ExprContext e) {
        List<ParseTree> ch = e.children;
        int n = ch.size();
        if (n == 1) return unary((UnaryContext) ch.get(0));
        int chainEnd = n;
        for (int i = 0; i < n; i++) if (type(ch.get(i)) == PtxParser.QUESTION) { chainEnd = i; break; }
        int[] pos = {0};
        Expr chain = climb(ch, pos, chainEnd, 0);
        if (chainEnd == n) return chain;
        return new Cond(chain, expr((ExprContext) ch.get(chainEnd + 1)), expr((ExprContext) ch.get(chainEnd + 3)));
    }

    private Expr climb(List<ParseTree> ch, int[] pos, int end, int minPrec) {
        Expr left = unary((UnaryContext) ch.get(pos[0]));
        pos[0]++;
        while (pos[0] < end) {
            String op = ch.get(pos[0]).getText();
            int prec = precedence(op);
            if (prec < minPrec) break;
            pos[0]++;
            Expr right = climb(ch, pos, end, prec + 1);
            left = new Binary(op, left, right);
        }
        return left;
    }

    /** C binary operator precedence, higher binds tighter; the printer uses this table too. */
    static int precedence(String op) {
        return switch (op) {
            case "*", "/", "%" -> 12;
            case "+", "-" -> 11;
            case "<<", ">>" -> 10;
            case "<", ">", "<=", ">=" -> 9;
            case "==", "!=" -> 8;
            case "&" -> 7;
            case "^" -> 6;
            case "|" -> 5;
            case "&&" -> 4;
            case "||" -> 3;
            default -> throw new IllegalArgumentException("unknown operator " + op);
        };
    }

    private Expr unary(UnaryContext u) {
        List<ParseTree> ch = u.children;
        Expr x = primary((PrimaryContext) ch.getLast());
        for (int i = ch.size() - 2; i >= 0; i--) x = new Unary(ch.get(i).getText(), x);
        return x;
    }

    private Expr primary(PrimaryContext p) {
        return switch (p) {
            case SymbolPrimaryContext s -> {
                Token id = s.getStart();
                if (s.getChildCount() == 1) yield new Sym(intern(id), null, id.getLine(), id.getCharPositionInLine() + 1);
                if (s.getChildCount() == 2) yield new Sym(intern(id), intern(((TerminalNode) s.getChild(1)).getSymbol()), id.getLine(), id.getCharPositionInLine() + 1);
                yield new Call(intern(id), expr((ExprContext) s.getChild(2)), loc(id));
            }
            case IntPrimaryContext i -> intLit(i.INT_LIT());
            case FloatPrimaryContext f -> new FloatLit(f.getText());
            case HexFloatPrimaryContext h -> {
                String t = h.getText();
                boolean dbl = t.charAt(1) == 'd' || t.charAt(1) == 'D';
                yield new HexFloat(dbl, Long.parseUnsignedLong(t.substring(2), 16));
            }
            case ParenPrimaryContext q -> new Paren(expr(q.expr()));
            default -> throw new IllegalStateException("unexpected primary " + p.getClass());
        };
    }

    private long intValue(TerminalNode n) {
        return intLit(n).value();
    }

    /** Parses an INT_LIT token: 0x.., 0b.., 0[0-7].., decimal; optional U suffix; 64-bit wrap-around rejected. */
    IntLit intLit(TerminalNode n) {
        String t = n.getText();
        boolean unsigned = t.endsWith("U");
        String body = unsigned ? t.substring(0, t.length() - 1) : t;
        Radix radix;
        String digits;
        int base;
        if (body.length() > 1 && (body.charAt(1) == 'x' || body.charAt(1) == 'X')) {
            radix = Radix.HEX; digits = body.substring(2); base = 16;
        } else if (body.length() > 1 && (body.charAt(1) == 'b' || body.charAt(1) == 'B')) {
            radix = Radix.BINARY; digits = body.substring(2); base = 2;
        } else if (body.length() > 1 && body.charAt(0) == '0') {
            radix = Radix.OCTAL; digits = body.substring(1); base = 8;
        } else {
            radix = Radix.DECIMAL; digits = body; base = 10;
        }
        long value;
        try {
            value = Long.parseUnsignedLong(digits, base);
        } catch (NumberFormatException ex) {
            problem(n.getSymbol(), "integer literal '" + t + "' does not fit in 64 bits");
            value = 0;
        }
        return new IntLit(value, radix, unsigned);
    }

    private void problem(Token t, String message) {
        problems.add(new Diagnostic(source, t.getLine(), t.getCharPositionInLine() + 1, Diagnostic.Severity.ERROR, message));
    }
}
