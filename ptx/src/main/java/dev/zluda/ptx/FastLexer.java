package dev.zluda.ptx;

import dev.zluda.ptx.Ast.Loc;
import java.util.HashMap;
import java.util.Map;
import static dev.zluda.ptx.parser.PtxParser.*;

/**
 * The lexer of {@link FastParser}: tokens of the {@code Ptx.g4} grammar read straight from the text, the current
 * token's type (the generated {@code PtxParser} constants), bounds, line and column kept in fields, names interned.
 * It counts what {@link Ptx}'s chunker limits (bracket nesting, operators per expression) and gives up on anything
 * unusual by throwing {@link #BAIL}, so that ANTLR decides there.
 */
abstract class FastLexer {
    /** Thrown (without a stack trace) to abandon the chunk. */
    static final class Bail extends RuntimeException {
        Bail() {
            super(null, null, false, false);
        }
    }

    static final Bail BAIL = new Bail();
    static final Map<String, Integer> KEYWORDS = new HashMap<>();

    static {
        String[][] kw = {
                {".version", "" + VERSION}, {".target", "" + TARGET}, {".address_size", "" + ADDRESS_SIZE},
                {".visible", "" + VISIBLE}, {".extern", "" + EXTERN}, {".weak", "" + WEAK}, {".common", "" + COMMON},
                {".entry", "" + ENTRY}, {".func", "" + FUNC}, {".reg", "" + REG}, {".sreg", "" + SREG},
                {".const", "" + CONST}, {".global", "" + GLOBAL}, {".local", "" + LOCAL}, {".param", "" + PARAM},
                {".shared", "" + SHARED}, {".tex", "" + TEX}, {".align", "" + ALIGN}, {".file", "" + FILE},
                {".loc", "" + LOC}, {".section", "" + SECTION}, {".alias", "" + ALIAS}, {".pragma", "" + PRAGMA},
                {".callprototype", "" + CALLPROTOTYPE}, {".calltargets", "" + CALLTARGETS},
                {".branchtargets", "" + BRANCHTARGETS}, {".attribute", "" + ATTRIBUTE}, {".maxntid", "" + MAXNTID},
                {".reqntid", "" + REQNTID}, {".minnctapersm", "" + MINNCTAPERSM}, {".maxnctapersm", "" + MAXNCTAPERSM},
                {".maxnreg", "" + MAXNREG}, {".maxclusterrank", "" + MAXCLUSTERRANK},
                {".reqnctapercluster", "" + REQNCTAPERCLUSTER}, {".explicitcluster", "" + EXPLICITCLUSTER},
                {".blocksareclusters", "" + BLOCKSARECLUSTERS}, {".noreturn", "" + NORETURN},
                {".abi_preserve", "" + ABI_PRESERVE}, {".abi_preserve_control", "" + ABI_PRESERVE_CONTROL},
        };
        for (String[] k : kw) KEYWORDS.put(k[0], Integer.parseInt(k[1]));
    }

    /** The whole text being parsed. */
    final String s;
    // lexer position
    int p, end, line, lineStart;
    // current token: type, [start, stop), line, 0-based column
    int tt, ts, te, tl, tc;
    // String.hashCode of the current token's text, for ID and DOTID tokens
    int th;
    // the chunker's limits (Ptx.MAX_NESTING, Ptx.MAX_OPERATORS), counted as Ptx.chunks counts them
    int depth, ops;
    // interning table (open addressing over text regions): names, opcodes and modifiers repeat a lot
    String[] table = new String[1 << 12];
    int[] hashes = new int[1 << 12];
    int count;

    // ================================================================ lexer

    static boolean idChar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
    }

    static boolean hex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    char at(int i) {
        return i < end ? s.charAt(i) : '\0';
    }

    /** Advances to the next token (skipping whitespace and comments); EOF at the chunk's end. */
    void next() {
        int i = p;
        char c;
        while (true) {
            if (i >= end) {
                tt = EOF;
                ts = te = p = end;
                tl = line;
                tc = end - lineStart;
                return;
            }
            c = s.charAt(i);
            if (c == '\n') {
                line++;
                lineStart = ++i;
            } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
                i++;
            } else if (c == '/' && i + 1 < end && s.charAt(i + 1) == '/') {
                i += 2;
                while (i < end && s.charAt(i) != '\n' && s.charAt(i) != '\r') i++;
            } else if (c == '/' && i + 1 < end && s.charAt(i + 1) == '*') {
                int close = s.indexOf("*/", i + 2);
                if (close < 0 || close + 2 > end) throw BAIL;
                for (int j = i + 2; j < close; j++) {
                    if (s.charAt(j) == '\n') { line++; lineStart = j + 1; }
                }
                i = close + 2;
            } else {
                break;
            }
        }
        ts = i;
        tl = line;
        tc = i - lineStart;
        int j = i + 1;
        switch (c) {
            case '.' -> {
                if (!idChar(at(j))) throw BAIL;
                int h = c;
                char d;
                while (idChar(d = at(j))) { h = 31 * h + d; j++; }
                while (at(j) == ':' && at(j + 1) == ':' && idChar(at(j + 2))) {
                    h = 31 * (31 * h + ':') + ':';
                    j += 2;
                    while (idChar(d = at(j))) { h = 31 * h + d; j++; }
                }
                th = h;
                Integer k = KEYWORDS.get(intern(i, j, h));
                tt = k == null ? DOTID : k;
            }
            case '%' -> {
                if (idChar(at(j))) {
                    int h = c;
                    char d;
                    while (idChar(d = at(j))) { h = 31 * h + d; j++; }
                    th = h;
                    tt = ID;
                } else {
                    tt = PERCENT;
                }
            }
            case '"' -> {
                while (true) {
                    char d = at(j);
                    if (j >= end || d == '\r' || d == '\n') throw BAIL;
                    if (d == '"') { j++; break; }
                    if (d == '\\') {
                        char e = at(j + 1);
                        if (j + 1 >= end || e == '\r' || e == '\n') throw BAIL;
                        j += 2;
                    } else {
                        j++;
                    }
                }
                tt = STRING;
            }
            case '<' -> { if (at(j) == '<') { j++; tt = SHL; } else if (at(j) == '=') { j++; tt = LE; } else tt = LT; }
            case '>' -> { if (at(j) == '>') { j++; tt = SHR; } else if (at(j) == '=') { j++; tt = GE; } else tt = GT; }
            case '=' -> { if (at(j) == '=') { j++; tt = EQEQ; } else tt = EQ; }
            case '!' -> { if (at(j) == '=') { j++; tt = NE; } else tt = NOT; }
            case '&' -> { if (at(j) == '&') { j++; tt = ANDAND; } else tt = AMP; }
            case '|' -> { if (at(j) == '|') { j++; tt = OROR; } else tt = PIPE; }
            case '~' -> tt = TILDE;
            case '+' -> tt = PLUS;
            case '-' -> tt = MINUS;
            case '*' -> tt = STAR;
            case '/' -> tt = SLASH;
            case '^' -> tt = CARET;
            case '?' -> tt = QUESTION;
            case ':' -> tt = COLON;
            case ';' -> tt = SEMI;
            case ',' -> tt = COMMA;
            case '@' -> tt = AT;
            case '(' -> tt = LPAREN;
            case ')' -> tt = RPAREN;
            case '{' -> tt = LBRACE;
            case '}' -> tt = RBRACE;
            case '[' -> tt = LBRACK;
            case ']' -> tt = RBRACK;
            default -> {
                if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$') {
                    int h = c;
                    char d;
                    while (idChar(d = at(j))) { h = 31 * h + d; j++; }
                    th = h;
                    tt = ID;
                } else if (c >= '0' && c <= '9') {
                    j = number(i);
                    // a number glued to a word or a dot lexes in ways not worth copying here
                    if (idChar(at(j)) || at(j) == '.') throw BAIL;
                } else {
                    throw BAIL;       // ERROR_CHAR and anything unusual: ANTLR reports it
                }
            }
        }
        te = p = j;
        // the chunker's counts: brackets nest at most MAX_NESTING deep; at most MAX_OPERATORS
        // operator characters ('%' of a register name included) between , ; brackets and a
        // directive word that follows whitespace
        switch (tt) {
            case LBRACE, LPAREN, LBRACK -> {
                ops = 0;
                if (++depth > Ptx.MAX_NESTING) throw BAIL;
            }
            case RBRACE, RPAREN, RBRACK -> {
                ops = 0;
                if (depth > 0) depth--;
            }
            case COMMA, SEMI -> ops = 0;
            case ID -> {
                if (c == '%' && ++ops > Ptx.MAX_OPERATORS) throw BAIL;
            }
            case FLOAT_LIT -> {
                for (int k = ts; k < te; k++) {
                    char d = s.charAt(k);
                    if ((d == '+' || d == '-') && ++ops > Ptx.MAX_OPERATORS) throw BAIL;
                }
            }
            case INT_LIT, HEXFLOAT_LIT, STRING, COLON, AT -> { }
            default -> {
                if (c == '.') {
                    char b = ts > 0 ? s.charAt(ts - 1) : '\n';
                    if (b == ' ' || b == '\t' || b == '\n' || b == '\r') ops = 0;
                } else {
                    ops += te - ts;                 // an operator token: each of its characters
                    if (ops > Ptx.MAX_OPERATORS) throw BAIL;
                }
            }
        }
    }

    /** Lexes a number starting at {@code i} (a digit); sets {@link #tt}; returns its end. */
    int number(int i) {
        char c = s.charAt(i);
        char c1 = at(i + 1);
        if (c == '0' && (c1 == 'f' || c1 == 'F' || c1 == 'd' || c1 == 'D')) {
            int n = (c1 == 'f' || c1 == 'F') ? 8 : 16;
            for (int k = 0; k < n; k++) if (!hex(at(i + 2 + k))) throw BAIL;
            tt = HEXFLOAT_LIT;
            return i + 2 + n;
        }
        if (c == '0' && (c1 == 'x' || c1 == 'X')) {
            int j = i + 2;
            if (!hex(at(j))) throw BAIL;
            while (hex(at(j))) j++;
            if (at(j) == 'U') j++;
            tt = INT_LIT;
            return j;
        }
        if (c == '0' && (c1 == 'b' || c1 == 'B')) {
            int j = i + 2;
            if (at(j) != '0' && at(j) != '1') throw BAIL;
            while (at(j) == '0' || at(j) == '1') j++;
            if (at(j) == 'U') j++;
            tt = INT_LIT;
            return j;
        }
        int j = i + 1;
        while (at(j) >= '0' && at(j) <= '9') j++;
        char d = at(j);
        if (d == '.') {
            j++;
            while (at(j) >= '0' && at(j) <= '9') j++;
            j = exponent(j, true);
            tt = FLOAT_LIT;
            return j;
        }
        if (d == 'e' || d == 'E') {
            int k = exponent(j, false);
            tt = FLOAT_LIT;
            return k;
        }
        if (c == '0' && j > i + 1) {
            for (int k = i + 1; k < j; k++) if (s.charAt(k) > '7') throw BAIL;   // AstBuilder reports it
        }
        if (at(j) == 'U') j++;
        tt = INT_LIT;
        return j;
    }

    /** An optional ({@code optional}) or required exponent at {@code j}; returns its end. */
    int exponent(int j, boolean optional) {
        char e = at(j);
        if (e != 'e' && e != 'E') return j;
        int k = j + 1;
        if (at(k) == '+' || at(k) == '-') k++;
        if (!(at(k) >= '0' && at(k) <= '9')) {
            if (optional) throw BAIL;   // "1.5e" lexes as 1.5 and e: not worth copying
            throw BAIL;
        }
        while (at(k) >= '0' && at(k) <= '9') k++;
        return k;
    }

    /** The interned text of {@code s[from, to)}, whose String.hashCode is {@code h}. */
    String intern(int from, int to, int h) {
        int mask = table.length - 1;
        int idx = (h ^ (h >>> 15)) & mask;
        int len = to - from;
        while (true) {
            String e = table[idx];
            if (e == null) {
                String n = s.substring(from, to);
                table[idx] = n;
                hashes[idx] = h;
                if (++count * 2 > table.length) grow();
                return n;
            }
            if (hashes[idx] == h && e.length() == len && same(e, from, len)) return e;
            idx = (idx + 1) & mask;
        }
    }

    boolean same(String e, int from, int len) {
        for (int i = 0; i < len; i++) if (e.charAt(i) != s.charAt(from + i)) return false;
        return true;
    }

    void grow() {
        String[] ot = table;
        int[] oh = hashes;
        table = new String[ot.length * 2];
        hashes = new int[ot.length * 2];
        int mask = table.length - 1;
        for (int i = 0; i < ot.length; i++) {
            if (ot[i] == null) continue;
            int idx = (oh[i] ^ (oh[i] >>> 15)) & mask;
            while (table[idx] != null) idx = (idx + 1) & mask;
            table[idx] = ot[i];
            hashes[idx] = oh[i];
        }
    }

    /** The current token's text, interned; ID, DOTID and keyword tokens only (their hash is known). */
    String text() {
        return intern(ts, te, th);
    }

    Loc loc() {
        return new Loc(tl, tc + 1);
    }

    void expect(int type) {
        if (tt != type) throw BAIL;
        next();
    }

    // lookahead by saving and restoring the lexer
    int mp, ml, mls, mtt, mts, mte, mtl, mtc;

    void mark() {
        mp = p; ml = line; mls = lineStart; mtt = tt; mts = ts; mte = te; mtl = tl; mtc = tc;
    }

    void reset() {
        p = mp; line = ml; lineStart = mls; tt = mtt; ts = mts; te = mte; tl = mtl; tc = mtc;
    }

    FastLexer(String text) {
        this.s = text;
    }
}
