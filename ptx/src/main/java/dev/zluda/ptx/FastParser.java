package dev.zluda.ptx;

import dev.zluda.ptx.Ast.*;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import static dev.zluda.ptx.parser.PtxParser.*;

/**
 * The fast path of {@link Ptx#parse}: a hand-written lexer and recursive-descent parser for the
 * common subset of the grammar ({@code Ptx.g4}) that builds {@link Ast} nodes directly, without
 * ANTLR's token objects, parse tree and prediction. It accepts a chunk only when it is sure the
 * ANTLR grammar accepts the same text with the same tree: on anything else (a construct it does not
 * handle — {@code .section}, {@code .alias}, {@code .attribute}, {@code .callprototype},
 * {@code .branchtargets}, {@code .calltargets}, sampler initializers —, a lexical oddity, a syntax
 * error, a literal {@link AstBuilder} would report) it gives up on the chunk ({@link #parseChunk}
 * returns {@code null}) and {@link Ptx} parses that chunk with ANTLR, which reports the errors.
 *
 * <p>So the ANTLR grammar stays the reference: the fast path never produces a diagnostic, and
 * {@code FastParserTest} checks on the corpus and on fuzz mutants that wherever it accepts, the
 * module (positions included) equals what ANTLR and {@link AstBuilder} build.
 *
 * <p>Token types are the generated {@code PtxParser} constants; positions are ANTLR's (1-based
 * line, 0-based column counted in characters, a line ends at {@code '\n'}). The tokens come from
 * {@link FastLexer}; this class is the grammar.
 */
final class FastParser extends FastLexer {

    // start offsets of the items parseAll produced
    private int[] starts = new int[64];
    private int nStarts;
    // shared immutable nodes: small integer literals, initializers of them, modifier lists
    // (positions are not part of these nodes, and nothing keys on their identity)
    private final IntLit[] smallInts = new IntLit[Radix.values().length * 2 * SMALL];
    private final ExprInit[] smallInits = new ExprInit[Radix.values().length * 2 * SMALL];
    private static final int SMALL = 1024;
    private final Map<List<String>, List<String>> modifierLists = new HashMap<>();
    private final ArrayList<String> scratchMods = new ArrayList<>();
    FastParser(String text) {
        super(text);
    }

    /**
     * Parses {@code text[start, stop)}, whose first character is at {@code line}:{@code column}
     * (1-based line, 0-based column), as a sequence of module items.
     *
     * @return the items, or {@code null} when the fast path gives up on this chunk
     */
    List<ModuleItem> parseChunk(int start, int stop, int startLine, int column) {
        p = start;
        end = stop;
        line = startLine;
        lineStart = start - column;
        depth = 0;
        ops = 0;
        try {
            next();
            List<ModuleItem> out = new ArrayList<>();
            while (tt != EOF) out.add(moduleItem());
            return out;
        } catch (StackOverflowError | RuntimeException e) {   // Bail, or a bug: ANTLR decides
            return null;
        }
    }

    /**
     * Parses the whole text as one module, enforcing the limits {@link Ptx}'s chunker enforces
     * (bracket nesting, operators per expression) by giving up where it would reject.
     *
     * @param out receives the items parsed, in order
     * @return -1 when the whole text was parsed; else the offset where the item the fast path gave
     *     up on starts ({@link #itemStarts} gives the offsets of the items in {@code out})
     */
    int parseAll(List<ModuleItem> out) {
        p = 0;
        end = s.length();
        line = 1;
        lineStart = 0;
        depth = 0;
        ops = 0;
        nStarts = 0;
        int itemStart = 0;
        try {
            next();
            while (tt != EOF) {
                itemStart = ts;
                ModuleItem item = moduleItem();
                if (nStarts == starts.length) starts = java.util.Arrays.copyOf(starts, nStarts * 2);
                starts[nStarts++] = itemStart;
                out.add(item);
            }
            return -1;
        } catch (StackOverflowError | RuntimeException e) {   // Bail, or a bug: ANTLR decides
            while (out.size() > nStarts) out.removeLast();
            return itemStart;
        }
    }

    /** The start offset of item {@code i} of the last {@link #parseAll}. */
    int itemStart(int i) {
        return starts[i];
    }

    // ================================================================ module level

    private ModuleItem moduleItem() {
        Loc l = loc();
        switch (tt) {
            case VERSION -> {
                next();
                if (tt != FLOAT_LIT) throw BAIL;
                String text = s.substring(ts, te);
                next();
                int dot = text.indexOf('.');
                try {
                    return new Version(Integer.parseInt(text.substring(0, dot)), Integer.parseInt(text.substring(dot + 1)), l);
                } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
                    throw BAIL;
                }
            }
            case TARGET -> {
                next();
                List<String> names = new ArrayList<>();
                if (tt != ID) throw BAIL;
                names.add(text());
                next();
                while (tt == COMMA) {
                    next();
                    if (tt != ID) throw BAIL;
                    names.add(text());
                    next();
                }
                return new Target(names, l);
            }
            case ADDRESS_SIZE -> {
                next();
                return new AddressSize((int) intValue(), l);
            }
            case FILE -> {
                next();
                long index = intValue();
                String name = stringContents();
                Long ts2 = null, size = null;
                if (tt == COMMA) {
                    next();
                    ts2 = intValue();
                    expect(COMMA);
                    size = intValue();
                }
                return new FileDirective(index, name, ts2, size, l);
            }
            case PRAGMA -> {
                next();
                return new Pragma(pragmaStrings(), l);
            }
            case VISIBLE, EXTERN, WEAK, COMMON, ENTRY, FUNC, REG, SREG, CONST, GLOBAL, LOCAL, PARAM, SHARED, TEX -> {
                List<Linkage> linkage = linkages();
                if (tt == ENTRY || tt == FUNC) return function(linkage, l);
                Decl d = variableDecl(linkage, l);
                expect(SEMI);
                return d;
            }
            default -> throw BAIL;   // .section, .alias, errors
        }
    }

    /** {@code STRING (COMMA STRING)* SEMI}, the strings' contents. */
    private List<String> pragmaStrings() {
        List<String> out = new ArrayList<>();
        out.add(stringContents());
        while (tt == COMMA) {
            next();
            out.add(stringContents());
        }
        expect(SEMI);
        return out;
    }

    private String stringContents() {
        if (tt != STRING) throw BAIL;
        String v = s.substring(ts + 1, te - 1);
        next();
        return v;
    }

    private List<Linkage> linkages() {
        List<Linkage> out = new ArrayList<>(1);
        while (true) {
            switch (tt) {
                case VISIBLE -> out.add(Linkage.VISIBLE);
                case EXTERN -> out.add(Linkage.EXTERN);
                case WEAK -> out.add(Linkage.WEAK);
                case COMMON -> out.add(Linkage.COMMON);
                default -> { return out; }
            }
            next();
        }
    }

    private Function function(List<Linkage> linkage, Loc l) {
        boolean entry = tt == ENTRY;
        next();
        if (tt == ATTRIBUTE) throw BAIL;
        List<Decl> ret = null, params = null;
        if (tt == LPAREN) {
            next();
            ret = paramListUntilRparen();
        }
        if (tt != ID) throw BAIL;
        String name = text();
        next();
        if (tt == LPAREN) {
            next();
            params = paramListUntilRparen();
        }
        List<FunctionDirective> directives = new ArrayList<>();
        while (true) {
            switch (tt) {
                case MAXNTID, REQNTID, MINNCTAPERSM, MAXNCTAPERSM, MAXNREG, MAXCLUSTERRANK, REQNCTAPERCLUSTER,
                     EXPLICITCLUSTER, BLOCKSARECLUSTERS, NORETURN, ABI_PRESERVE, ABI_PRESERVE_CONTROL -> {
                    Loc dl = loc();
                    String dn = text();
                    next();
                    List<Long> values = new ArrayList<>();
                    if (tt == INT_LIT) {
                        values.add(intValue());
                        while (tt == COMMA) {
                            next();
                            values.add(intValue());
                        }
                    }
                    directives.add(new PerfDirective(dn, values, dl));
                }
                case PRAGMA -> {
                    Loc dl = loc();
                    next();
                    directives.add(new Pragma(pragmaStrings(), dl));
                }
                case LBRACE -> {
                    Block body = block();
                    return new Function(linkage, entry, List.of(), ret, name, params, directives, body, l);
                }
                case SEMI -> {
                    next();
                    return new Function(linkage, entry, List.of(), ret, name, params, directives, null, l);
                }
                default -> throw BAIL;
            }
        }
    }

    /** After {@code (}: {@code paramList? )}. */
    private List<Decl> paramListUntilRparen() {
        List<Decl> out = new ArrayList<>();
        if (tt == RPAREN) {
            next();
            return out;
        }
        out.add(paramDecl());
        while (tt == COMMA) {
            next();
            out.add(paramDecl());
        }
        expect(RPAREN);
        return out;
    }

    private static boolean stateSpace(int t) {
        return t >= REG && t <= TEX;
    }

    private Decl paramDecl() {
        Loc l = loc();
        if (!stateSpace(tt)) throw BAIL;
        String space = text();
        next();
        List<DeclAttr> attrs = declAttrs();
        Declarator d = declarator();
        return new Decl(List.of(), space, attrs, List.of(d), l);
    }

    private List<DeclAttr> declAttrs() {
        List<DeclAttr> attrs = new ArrayList<>(2);
        while (true) {
            if (tt == ALIGN) {
                next();
                attrs.add(new Align(intValue()));
            } else if (tt == DOTID) {
                attrs.add(new Word(text()));
                next();
            } else if (stateSpace(tt)) {
                attrs.add(new SpaceAttr(text()));
                next();
            } else if (tt == ATTRIBUTE) {
                throw BAIL;
            } else {
                return attrs;
            }
        }
    }

    private Decl variableDecl(List<Linkage> linkage, Loc l) {
        if (!stateSpace(tt)) throw BAIL;
        String space = text();
        next();
        List<DeclAttr> attrs = declAttrs();
        List<Declarator> ds = new ArrayList<>(1);
        ds.add(declarator());
        while (tt == COMMA) {
            next();
            ds.add(declarator());
        }
        return new Decl(linkage, space, attrs, ds, l);
    }

    private Declarator declarator() {
        if (tt != ID) throw BAIL;
        Loc l = loc();
        String name = text();
        next();
        Long range = null;
        if (tt == LT) {
            next();
            range = intValue();
            expect(GT);
        }
        List<Dim> dims = List.of();
        while (tt == LBRACK) {
            if (dims.isEmpty()) dims = new ArrayList<>(1);
            next();
            if (tt == RBRACK) {
                dims.add(new Dim(null));
            } else {
                dims.add(new Dim(expr()));
            }
            expect(RBRACK);
        }
        Initializer init = null;
        if (tt == EQ) {
            next();
            init = initializer();
        }
        return new Declarator(name, range, dims, init, l);
    }

    private Initializer initializer() {
        if (tt != LBRACE) {
            Expr x = expr();
            if (x instanceof IntLit i && i.value() >= 0 && i.value() < SMALL) {
                int k = smallIndex(i);
                ExprInit e = smallInits[k];
                if (e == null) smallInits[k] = e = new ExprInit(i);
                return e;
            }
            return new ExprInit(x);
        }
        mark();
        next();
        if (tt == ID) {
            next();
            if (tt == EQ) throw BAIL;          // sampler initializer
        }
        reset();
        next();
        List<Initializer> elems = new ArrayList<>();
        if (tt != RBRACE) {
            elems.add(initializer());
            while (tt == COMMA) {
                next();
                elems.add(initializer());
            }
        }
        expect(RBRACE);
        return new ListInit(elems);
    }

    // ================================================================ statements

    private Block block() {
        Loc l = loc();
        expect(LBRACE);
        List<Statement> stmts = new ArrayList<>();
        while (tt != RBRACE) stmts.add(statement());
        next();
        return new Block(stmts, l);
    }

    private Statement statement() {
        switch (tt) {
            case ID -> {
                Loc l = loc();
                String id = text();
                next();
                if (tt == COLON) {
                    next();
                    return new Label(id, l);
                }
                return instructionRest(null, id, l);
            }
            case AT -> {
                Loc l = loc();
                next();
                boolean neg = false;
                if (tt == NOT) {
                    neg = true;
                    next();
                }
                if (tt != ID) throw BAIL;
                Guard g = new Guard(neg, text(), loc());
                next();
                if (tt != ID) throw BAIL;
                String op = text();
                next();
                return instructionRest(g, op, l);
            }
            case LBRACE -> {
                return block();
            }
            case VISIBLE, EXTERN, WEAK, COMMON, REG, SREG, CONST, GLOBAL, LOCAL, PARAM, SHARED, TEX -> {
                Loc l = loc();
                Decl d = variableDecl(linkages(), l);
                expect(SEMI);
                return d;
            }
            case LOC -> {
                Loc l = loc();
                next();
                long a = intValue(), b = intValue(), c = intValue();
                List<LocAttr> attrs = new ArrayList<>(0);
                while (tt == COMMA) {
                    next();
                    if (tt != ID) throw BAIL;
                    String name = text();
                    next();
                    List<Expr> values = new ArrayList<>(3);
                    values.add(expr());
                    // further values only while they are literals: an identifier here may start the
                    // next statement, which ANTLR decides with full-context prediction
                    // more values while an expression follows; an identifier ends the list: it starts
                    // the next statement (a label or an instruction), which is how ANTLR's full-context
                    // prediction reads it (the next statement cannot be read as more values)
                    while (exprStart(tt) && tt != ID) values.add(expr());
                    attrs.add(new LocAttr(name, values));
                }
                return new LocDirective(a, b, c, attrs, l);
            }
            case PRAGMA -> {
                Loc l = loc();
                next();
                return new Pragma(pragmaStrings(), l);
            }
            default -> throw BAIL;     // .callprototype, .branchtargets, .calltargets, errors
        }
    }

    private static boolean exprStart(int t) {
        return t == MINUS || t == PLUS || t == NOT || t == TILDE || t == ID || t == INT_LIT || t == FLOAT_LIT
                || t == HEXFLOAT_LIT || t == LPAREN;
    }

    private static boolean modifier(int t) {
        return t == DOTID || (t >= REG && t <= TEX) || t == WEAK || t == ALIAS; // .alias: membar.proxy.alias
    }

    private Instruction instructionRest(Guard g, String opcode, Loc l) {
        List<String> mods;
        if (modifier(tt)) {
            ArrayList<String> m = scratchMods;
            m.clear();
            do {
                m.add(text());
                next();
            } while (modifier(tt));
            mods = modifierLists.get(m);
            if (mods == null) {
                mods = List.copyOf(m);
                modifierLists.put(mods, mods);
            }
        } else {
            mods = List.of();
        }
        List<Operand> ops;
        if (tt == SEMI) {
            ops = List.of();
        } else {
            ops = new ArrayList<>(4);
            ops.add(operand());
            while (tt == COMMA) {
                next();
                ops.add(operand());
            }
        }
        expect(SEMI);
        return new Instruction(g, opcode, mods, ops, l);
    }

    private Operand operand() {
        switch (tt) {
            case LBRACE -> {
                next();
                List<Operand> el = new ArrayList<>(4);
                if (tt != RBRACE) {
                    el.add(operand());
                    while (tt == COMMA) {
                        next();
                        el.add(operand());
                    }
                }
                expect(RBRACE);
                return new VectorOperand(el);
            }
            case LBRACK -> {
                next();
                List<Operand> el = new ArrayList<>(1);
                el.add(operand());
                while (tt == COMMA) {
                    next();
                    el.add(operand());
                }
                expect(RBRACK);
                return new AddressOperand(el);
            }
            case LPAREN -> {
                // "(x)" is both a tuple and a parenthesised expression: ANTLR takes the first
                // alternative (tuple) unless an operator follows, which only the expression allows
                next();
                List<Operand> el = new ArrayList<>(2);
                if (tt != RPAREN) {
                    el.add(operand());
                    while (tt == COMMA) {
                        next();
                        el.add(operand());
                    }
                }
                expect(RPAREN);
                if (binop(tt) != null || tt == QUESTION || tt == DOTID || tt == LPAREN) throw BAIL;
                return new TupleOperand(el);
            }
            default -> {
                Expr x = expr();
                if (x instanceof Binary(String op, Sym a, Sym b) && op.equals("|") && a.component() == null && b.component() == null) {
                    return new PredPair(a.name(), b.name(), a.loc());
                }
                if (x instanceof Unary(String op, Sym a) && op.equals("!") && a.component() == null) {
                    return new NegPred(a.name(), a.loc());
                }
                return x;
            }
        }
    }

    // ================================================================ expressions

    /** The operator text of a binop token, or null. */
    private static String binop(int t) {
        return switch (t) {
            case STAR -> "*";
            case SLASH -> "/";
            case PERCENT -> "%";
            case PLUS -> "+";
            case MINUS -> "-";
            case SHL -> "<<";
            case SHR -> ">>";
            case LT -> "<";
            case GT -> ">";
            case LE -> "<=";
            case GE -> ">=";
            case EQEQ -> "==";
            case NE -> "!=";
            case AMP -> "&";
            case CARET -> "^";
            case PIPE -> "|";
            case ANDAND -> "&&";
            case OROR -> "||";
            default -> null;
        };
    }

    /** {@code unary (binop unary)* (? expr : expr)?} with C precedence, as {@link AstBuilder#expr} builds it. */
    private Expr expr() {
        Expr chain = climb(0);
        if (tt != QUESTION) return chain;
        next();
        Expr a = expr();
        expect(COLON);
        Expr b = expr();
        return new Cond(chain, a, b);
    }

    private Expr climb(int minPrec) {
        Expr left = unary();
        while (true) {
            String op = binop(tt);
            if (op == null) return left;
            int prec = AstBuilder.precedence(op);
            if (prec < minPrec) return left;
            next();
            Expr right = climb(prec + 1);
            left = new Binary(op, left, right);
        }
    }

    private Expr unary() {
        String op = switch (tt) {
            case MINUS -> "-";
            case PLUS -> "+";
            case NOT -> "!";
            case TILDE -> "~";
            default -> null;
        };
        if (op == null) return primary();
        next();
        return new Unary(op, unary());
    }

    private Expr primary() {
        switch (tt) {
            case ID -> {
                int line0 = tl, col0 = tc;
                String name = text();
                next();
                if (tt == DOTID) {
                    String comp = text();
                    next();
                    return new Sym(name, comp, line0, col0 + 1);
                }
                if (tt == LPAREN) {
                    next();
                    Expr arg = expr();
                    expect(RPAREN);
                    return new Call(name, arg, new Loc(line0, col0 + 1));
                }
                return new Sym(name, null, line0, col0 + 1);
            }
            case INT_LIT -> {
                return intLit();
            }
            case FLOAT_LIT -> {
                String t = s.substring(ts, te);
                next();
                return new FloatLit(t);
            }
            case HEXFLOAT_LIT -> {
                boolean dbl = s.charAt(ts + 1) == 'd' || s.charAt(ts + 1) == 'D';
                long bits = 0;
                for (int i = ts + 2; i < te; i++) bits = (bits << 4) | Character.digit(s.charAt(i), 16);
                next();
                return new HexFloat(dbl, bits);
            }
            case LPAREN -> {
                next();
                Expr inner = expr();
                expect(RPAREN);
                return new Paren(inner);
            }
            default -> throw BAIL;
        }
    }

    private long intValue() {
        return intLit().value();
    }

    /** An INT_LIT as {@link AstBuilder#intLit} reads it; gives up on values above 64 bits (AstBuilder reports them). */
    private IntLit intLit() {
        if (tt != INT_LIT) throw BAIL;
        int a = ts, b = te;
        boolean unsigned = s.charAt(b - 1) == 'U';
        if (unsigned) b--;
        Radix radix;
        int base;
        char c1 = b - a > 1 ? s.charAt(a + 1) : '\0';
        if (c1 == 'x' || c1 == 'X') { radix = Radix.HEX; base = 16; a += 2; }
        else if (c1 == 'b' || c1 == 'B') { radix = Radix.BINARY; base = 2; a += 2; }
        else if (b - a > 1 && s.charAt(a) == '0') { radix = Radix.OCTAL; base = 8; a += 1; }
        else { radix = Radix.DECIMAL; base = 10; }
        long v;
        if ((base == 10 && b - a <= 18) || (base == 16 && b - a <= 15) || (base == 8 && b - a <= 20) || (base == 2 && b - a <= 63)) {
            v = 0;
            for (int i = a; i < b; i++) v = v * base + Character.digit(s.charAt(i), base);
        } else {
            try {
                v = Long.parseUnsignedLong(s, a, b, base);
            } catch (NumberFormatException e) {
                throw BAIL;
            }
        }
        next();
        if (v >= 0 && v < SMALL) {
            int k = (radix.ordinal() * 2 + (unsigned ? 1 : 0)) * SMALL + (int) v;
            IntLit c = smallInts[k];
            if (c == null) smallInts[k] = c = new IntLit(v, radix, unsigned);
            return c;
        }
        return new IntLit(v, radix, unsigned);
    }

    private static int smallIndex(IntLit i) {
        return (i.radix().ordinal() * 2 + (i.unsigned() ? 1 : 0)) * SMALL + (int) i.value();
    }
}
