package dev.zluda.ptx;

import dev.zluda.ptx.Ast.*;

import java.util.List;
import java.util.Locale;

/**
 * AST → PTX text. For any module produced by {@link Ptx#parse}, parsing the printed text yields an
 * equal module ({@code equals}, positions aside), and the text is accepted by {@code ptxas} when the
 * original was. Layout follows nvcc's (one statement per line, tab indentation); comments are not
 * kept. Integer literals keep their radix (hex digits come out lower case); floating-point literals
 * keep their form ({@code 0f}/{@code 0d} bit patterns upper case, decimal ones as written).
 *
 * <p>Expressions are printed with the fewest parentheses that keep their tree: an AST built by hand
 * without {@link Paren} nodes prints correctly and parses back with {@code Paren} nodes where they
 * were needed.
 */
public final class PtxPrinter {
    private final StringBuilder sb = new StringBuilder(1 << 12);

    private PtxPrinter() {}

    /** Prints a whole module. */
    public static String print(Ast.Module module) {
        PtxPrinter p = new PtxPrinter();
        for (ModuleItem item : module.items()) p.moduleItem(item);
        return p.sb.toString();
    }

    /** Prints one instruction without indentation or trailing newline, e.g. {@code @%p1 bra $L__BB0_2;}. */
    public static String print(Instruction ins) {
        PtxPrinter p = new PtxPrinter();
        p.instruction(ins);
        return p.sb.toString();
    }

    /** Prints one expression. */
    public static String print(Expr e) {
        PtxPrinter p = new PtxPrinter();
        p.expr(e);
        return p.sb.toString();
    }

    // ------------------------------------------------------------------ module level

    private void moduleItem(ModuleItem item) {
        switch (item) {
            case Version v -> sb.append(".version ").append(v.major()).append('.').append(v.minor()).append('\n');
            case Target t -> sb.append(".target ").append(String.join(", ", t.names())).append('\n');
            case AddressSize a -> sb.append(".address_size ").append(a.bits()).append("\n\n");
            case FileDirective f -> {
                sb.append(".file\t").append(f.index()).append(" \"").append(f.name()).append('"');
                if (f.timestamp() != null) sb.append(", ").append(f.timestamp()).append(", ").append(f.size());
                sb.append('\n');
            }
            case Section s -> section(s);
            case Alias a -> sb.append(".alias ").append(a.alias()).append(", ").append(a.target()).append(";\n");
            case Pragma p -> { pragma(p); sb.append('\n'); }
            case Function f -> function(f);
            case Decl d -> { decl(d); sb.append(";\n"); }
        }
    }

    private void pragma(Pragma p) {
        sb.append(".pragma ");
        for (int i = 0; i < p.strings().size(); i++) {
            if (i > 0) sb.append(", ");
            sb.append('"').append(p.strings().get(i)).append('"');
        }
        sb.append(';');
    }

    private void section(Section s) {
        sb.append(".section\t").append(s.name()).append("\n{\n");
        for (SectionItem it : s.items()) {
            switch (it) {
                case SectionLabel l -> sb.append(l.name()).append(":\n");
                case SectionData d -> {
                    sb.append('\t').append(d.type()).append(' ');
                    for (int i = 0; i < d.values().size(); i++) {
                        if (i > 0) sb.append(',');
                        switch (d.values().get(i)) {
                            case SectionRef r -> {
                                sb.append(r.section());
                                if (r.op() != null) { sb.append(r.op()); expr(r.offset()); }
                            }
                            case SectionExpr e -> expr(e.expr());
                        }
                    }
                    sb.append('\n');
                }
            }
        }
        sb.append("}\n");
    }

    private void function(Function f) {
        for (Linkage l : f.linkage()) sb.append(l.text()).append(' ');
        sb.append(f.entry() ? ".entry " : ".func ");
        for (AttributeClause a : f.attributes()) { attributeClause(a); sb.append(' '); }
        if (f.returnParams() != null) { params(f.returnParams()); sb.append(' '); }
        sb.append(f.name());
        if (f.params() != null) params(f.params());
        sb.append('\n');
        for (FunctionDirective d : f.directives()) {
            switch (d) {
                case PerfDirective p -> {
                    sb.append(p.name());
                    for (int i = 0; i < p.values().size(); i++) sb.append(i == 0 ? " " : ", ").append(p.values().get(i));
                }
                case Pragma p -> pragma(p);
            }
            sb.append('\n');
        }
        if (f.body() == null) sb.append(";\n\n");
        else { block(f.body(), 0); sb.append('\n'); }
    }

    private void params(List<Decl> params) {
        sb.append('(');
        for (int i = 0; i < params.size(); i++) {
            sb.append(i == 0 ? "\n\t" : ",\n\t");
            decl(params.get(i));
        }
        sb.append(params.isEmpty() ? ")" : "\n)");
    }

    private void attributeClause(AttributeClause a) {
        sb.append(".attribute(");
        for (int i = 0; i < a.items().size(); i++) {
            if (i > 0) sb.append(", ");
            Attribute at = a.items().get(i);
            sb.append(at.name());
            if (!at.args().isEmpty()) {
                sb.append('(');
                for (int j = 0; j < at.args().size(); j++) {
                    if (j > 0) sb.append(", ");
                    expr(at.args().get(j));
                }
                sb.append(')');
            }
        }
        sb.append(')');
    }

    // ------------------------------------------------------------------ declarations

    private void decl(Decl d) {
        for (Linkage l : d.linkage()) sb.append(l.text()).append(' ');
        sb.append(d.space());
        for (DeclAttr a : d.attrs()) {
            sb.append(' ');
            switch (a) {
                case Align al -> sb.append(".align ").append(al.bytes());
                case Word w -> sb.append(w.text());
                case SpaceAttr s -> sb.append(s.space());
                case AttributeClause ac -> attributeClause(ac);
            }
        }
        sb.append(d.attrs().isEmpty() ? " " : "\t");
        for (int i = 0; i < d.declarators().size(); i++) {
            if (i > 0) sb.append(", ");
            declarator(d.declarators().get(i));
        }
    }

    private void declarator(Declarator d) {
        sb.append(d.name());
        if (d.rangeCount() != null) sb.append('<').append(d.rangeCount()).append('>');
        for (Dim dim : d.dims()) {
            sb.append('[');
            if (dim.size() != null) expr(dim.size());
            sb.append(']');
        }
        if (d.init() != null) { sb.append(" = "); initializer(d.init()); }
    }

    private void initializer(Initializer init) {
        switch (init) {
            case ExprInit e -> expr(e.expr());
            case ListInit l -> {
                sb.append('{');
                for (int i = 0; i < l.elements().size(); i++) {
                    if (i > 0) sb.append(", ");
                    initializer(l.elements().get(i));
                }
                sb.append('}');
            }
            case SamplerInit s -> {
                sb.append("{ ");
                for (int i = 0; i < s.fields().size(); i++) {
                    if (i > 0) sb.append(", ");
                    sb.append(s.fields().get(i).name()).append(" = ");
                    expr(s.fields().get(i).value());
                }
                sb.append(" }");
            }
        }
    }

    // ------------------------------------------------------------------ statements

    private void indent(int depth) {
        for (int i = 0; i < depth; i++) sb.append('\t');
    }

    private void block(Block b, int depth) {
        indent(depth);
        sb.append("{\n");
        for (Statement s : b.statements()) statement(s, depth + 1);
        indent(depth);
        sb.append("}\n");
    }

    private void statement(Statement s, int depth) {
        switch (s) {
            case Label l -> sb.append(l.name()).append(":\n");
            case Instruction i -> { indent(depth); instruction(i); sb.append('\n'); }
            case Decl d -> { indent(depth); decl(d); sb.append(";\n"); }
            case Block b -> block(b, depth);
            case LocDirective l -> {
                indent(depth);
                sb.append(".loc\t").append(l.file()).append(' ').append(l.line()).append(' ').append(l.column());
                for (LocAttr a : l.attrs()) {
                    sb.append(", ").append(a.name());
                    for (Expr e : a.values()) { sb.append(' '); expr(e); }
                }
                sb.append('\n');
            }
            case Pragma p -> { indent(depth); pragma(p); sb.append('\n'); }
            case CallPrototype c -> {
                indent(depth);
                sb.append(".callprototype ");
                if (c.returnParams() != null) { inlineParams(c.returnParams()); sb.append(' '); }
                sb.append(c.name()).append(' ');
                inlineParams(c.params());
                if (c.noreturn()) sb.append(" .noreturn");
                sb.append(";\n");
            }
            case BranchTargets b -> { indent(depth); sb.append(".branchtargets ").append(String.join(", ", b.labels())).append(";\n"); }
            case CallTargets c -> { indent(depth); sb.append(".calltargets ").append(String.join(", ", c.functions())).append(";\n"); }
        }
    }

    private void inlineParams(List<Decl> params) {
        sb.append('(');
        for (int i = 0; i < params.size(); i++) {
            if (i > 0) sb.append(", ");
            decl(params.get(i));
        }
        sb.append(')');
    }

    private void instruction(Instruction ins) {
        if (ins.guard() != null) {
            sb.append('@');
            if (ins.guard().negated()) sb.append('!');
            sb.append(ins.guard().predicate()).append(' ');
        }
        sb.append(ins.opcode());
        for (String m : ins.modifiers()) sb.append(m);
        List<Operand> ops = ins.operands();
        for (int i = 0; i < ops.size(); i++) {
            sb.append(i == 0 ? " \t" : ", ");
            operand(ops.get(i));
        }
        sb.append(';');
    }

    private void operand(Operand o) {
        switch (o) {
            case Expr e -> expr(e);
            case AddressOperand a -> list('[', a.elements(), ']');
            case VectorOperand v -> list('{', v.elements(), '}');
            case TupleOperand t -> list('(', t.elements(), ')');
            case PredPair p -> sb.append(p.first()).append('|').append(p.second());
            case NegPred n -> sb.append('!').append(n.name());
        }
    }

    private void list(char open, List<Operand> elems, char close) {
        sb.append(open);
        for (int i = 0; i < elems.size(); i++) {
            if (i > 0) sb.append(", ");
            operand(elems.get(i));
        }
        sb.append(close);
    }

    // ------------------------------------------------------------------ expressions

    /** Binding strength, higher binds tighter; matches the grammar's precedence levels. */
    private static int precedence(Expr e) {
        return switch (e) {
            case Binary b -> binaryPrecedence(b.op());
            case Cond c -> 1;
            case Unary u -> 20;
            default -> 30;
        };
    }

    /** The parser's precedence table, so that printing and parsing cannot disagree. */
    private static int binaryPrecedence(String op) {
        return AstBuilder.precedence(op);
    }

    private void exprAtLeast(Expr e, int minPrecedence) {
        if (precedence(e) < minPrecedence) {
            sb.append('(');
            expr(e);
            sb.append(')');
        } else {
            expr(e);
        }
    }

    private void expr(Expr e) {
        switch (e) {
            case Sym s -> {
                sb.append(s.name());
                if (s.component() != null) sb.append(s.component());
            }
            case IntLit i -> intLit(i);
            case FloatLit f -> sb.append(f.text());
            case HexFloat h -> sb.append(h.dbl()
                    ? String.format(Locale.ROOT, "0d%016X", h.bits())
                    : String.format(Locale.ROOT, "0f%08X", h.bits() & 0xFFFF_FFFFL));
            case Unary u -> { sb.append(u.op()); exprAtLeast(u.operand(), 20); }
            case Binary b -> {
                int p = binaryPrecedence(b.op());
                exprAtLeast(b.left(), p);
                // "a%b" would lex as "a" and the register name "%b"
                if (b.op().equals("%")) sb.append(" % "); else sb.append(b.op());
                exprAtLeast(b.right(), p + 1);
            }
            case Cond c -> {
                exprAtLeast(c.cond(), 2);
                sb.append(" ? ");
                expr(c.ifTrue());
                sb.append(" : ");
                exprAtLeast(c.ifFalse(), 1);
            }
            case Call c -> { sb.append(c.function()).append('('); expr(c.arg()); sb.append(')'); }
            case Paren p -> { sb.append('('); expr(p.inner()); sb.append(')'); }
        }
    }

    private void intLit(IntLit i) {
        long v = i.value();
        switch (i.radix()) {
            case DECIMAL -> sb.append(Long.toUnsignedString(v));
            case HEX -> sb.append("0x").append(Long.toHexString(v));
            case OCTAL -> sb.append('0').append(Long.toOctalString(v));
            case BINARY -> sb.append("0b").append(Long.toBinaryString(v));
        }
        if (i.unsigned()) sb.append('U');
    }
}
