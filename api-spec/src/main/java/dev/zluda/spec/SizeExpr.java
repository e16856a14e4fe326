package dev.zluda.spec;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.ToLongFunction;

/**
 * The size of the data a pointer parameter points to, written as an expression of the call's other
 * parameters: integer literals, parameter names, {@code sizeof(TYPE)}, {@code + - *} and parentheses,
 * e.g. {@code ByteCount}, {@code WidthInBytes * Height}, {@code numAttributes}.
 *
 * <p>Instances are immutable; {@link #parse} throws {@link IllegalArgumentException} naming the
 * column of the first error.
 */
public final class SizeExpr {
    private sealed interface Node permits Lit, Ref, SizeOf, Bin {}
    private record Lit(long value) implements Node {}
    private record Ref(String name) implements Node {}
    private record SizeOf(String type) implements Node {}
    private record Bin(char op, Node left, Node right) implements Node {}

    private final String text;
    private final Node root;

    private SizeExpr(String text, Node root) {
        this.text = text;
        this.root = root;
    }

    /** Parses an expression; throws IllegalArgumentException with the column of the error. */
    public static SizeExpr parse(String text) {
        Parser p = new Parser(text);
        Node n = p.expr();
        p.skipSpace();
        if (p.pos != text.length()) throw p.error("unexpected '" + text.charAt(p.pos) + "'");
        return new SizeExpr(text, n);
    }

    /** The expression as written in the overlay. */
    public String text() {
        return text;
    }

    /** The parameter names the expression refers to. */
    public Set<String> references() {
        Set<String> out = new LinkedHashSet<>();
        collect(root, out);
        return out;
    }

    /** The {@code sizeof} type names the expression refers to. */
    public Set<String> sizeofTypes() {
        Set<String> out = new LinkedHashSet<>();
        collectTypes(root, out);
        return out;
    }

    private static void collect(Node n, Set<String> out) {
        if (n instanceof Ref r) out.add(r.name);
        else if (n instanceof Bin b) { collect(b.left, out); collect(b.right, out); }
    }

    private static void collectTypes(Node n, Set<String> out) {
        if (n instanceof SizeOf s) out.add(s.type);
        else if (n instanceof Bin b) { collectTypes(b.left, out); collectTypes(b.right, out); }
    }

    /**
     * Evaluates the expression.
     *
     * @param params value of each referenced parameter (as an unsigned 64-bit integer)
     * @param sizeOf size in bytes of a named C type
     */
    public long evaluate(ToLongFunction<String> params, ToLongFunction<String> sizeOf) {
        return eval(root, params, sizeOf);
    }

    private static long eval(Node n, ToLongFunction<String> params, ToLongFunction<String> sizeOf) {
        return switch (n) {
            case Lit l -> l.value;
            case Ref r -> params.applyAsLong(r.name);
            case SizeOf s -> sizeOf.applyAsLong(s.type);
            case Bin b -> {
                long l = eval(b.left, params, sizeOf), r = eval(b.right, params, sizeOf);
                yield switch (b.op) {
                    case '+' -> Math.addExact(l, r);
                    case '-' -> Math.subtractExact(l, r);
                    default -> Math.multiplyExact(l, r);
                };
            }
        };
    }

    @Override
    public String toString() {
        return text;
    }

    private static final class Parser {
        final String s;
        int pos;

        Parser(String s) {
            this.s = s;
        }

        IllegalArgumentException error(String what) {
            return new IllegalArgumentException("size expression '" + s + "', column " + (pos + 1) + ": " + what);
        }

        void skipSpace() {
            while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) pos++;
        }

        Node expr() {
            Node n = term();
            while (true) {
                skipSpace();
                if (pos < s.length() && (s.charAt(pos) == '+' || s.charAt(pos) == '-')) {
                    char op = s.charAt(pos++);
                    n = new Bin(op, n, term());
                } else {
                    return n;
                }
            }
        }

        Node term() {
            Node n = factor();
            while (true) {
                skipSpace();
                if (pos < s.length() && s.charAt(pos) == '*') {
                    pos++;
                    n = new Bin('*', n, factor());
                } else {
                    return n;
                }
            }
        }

        Node factor() {
            skipSpace();
            if (pos >= s.length()) throw error("expression ends early");
            char c = s.charAt(pos);
            if (c == '(') {
                pos++;
                Node n = expr();
                skipSpace();
                if (pos >= s.length() || s.charAt(pos) != ')') throw error("')' expected");
                pos++;
                return n;
            }
            if (Character.isDigit(c)) {
                int start = pos;
                while (pos < s.length() && Character.isLetterOrDigit(s.charAt(pos))) pos++;
                String lit = s.substring(start, pos);
                try {
                    return new Lit(lit.startsWith("0x") ? Long.parseLong(lit.substring(2), 16) : Long.parseLong(lit));
                } catch (NumberFormatException e) {
                    pos = start;
                    throw error("bad number '" + lit + "'");
                }
            }
            if (Character.isJavaIdentifierStart(c)) {
                int start = pos;
                while (pos < s.length() && Character.isJavaIdentifierPart(s.charAt(pos))) pos++;
                String id = s.substring(start, pos);
                if (id.equals("sizeof")) {
                    skipSpace();
                    if (pos >= s.length() || s.charAt(pos) != '(') throw error("'(' expected after sizeof");
                    int close = s.indexOf(')', pos);
                    if (close < 0) throw error("')' expected");
                    String type = s.substring(pos + 1, close).trim();
                    pos = close + 1;
                    return new SizeOf(type);
                }
                return new Ref(id);
            }
            throw error("unexpected '" + c + "'");
        }
    }
}
