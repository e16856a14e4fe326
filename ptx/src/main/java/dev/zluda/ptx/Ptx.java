package dev.zluda.ptx;

import dev.zluda.ptx.parser.PtxLexer;
import dev.zluda.ptx.parser.PtxParser;
import org.antlr.v4.runtime.BailErrorStrategy;
import org.antlr.v4.runtime.BaseErrorListener;
import org.antlr.v4.runtime.CharStreams;
import org.antlr.v4.runtime.CommonTokenStream;
import org.antlr.v4.runtime.DefaultErrorStrategy;
import org.antlr.v4.runtime.RecognitionException;
import org.antlr.v4.runtime.Recognizer;
import org.antlr.v4.runtime.Token;
import org.antlr.v4.runtime.atn.PredictionMode;
import org.antlr.v4.runtime.misc.ParseCancellationException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Entry point of the PTX front end: text → {@link Ast.Module}.
 *
 * <p>How it parses: the text is first cut, by a cheap scan that understands comments, strings and
 * bracket nesting, into chunks that end after a top-level {@code { ... }} (a function body or a
 * {@code .section}). Each chunk is lexed and parsed on its own with ANTLR in SLL mode with a bailing
 * error strategy; only a chunk that fails there is parsed again in full LL mode with error recovery,
 * which produces the diagnostics. Before all that, {@link FastParser}, a hand-written lexer and
 * recursive-descent parser for the common subset of the grammar that builds the AST directly, tries
 * the whole text in one pass (enforcing the chunker's limits itself); where it is not sure, the
 * chunks from the one holding that item on are parsed as above (each again tried by the fast path
 * first). ANTLR's grammar stays the reference for what is valid and for every diagnostic. Chunking keeps memory bounded by the largest function rather than
 * the whole file, and lets one bad function not hide errors in the others. Positions in diagnostics
 * and AST nodes are those of the whole text.
 *
 * <p>Bad input never escapes as an exception other than {@link PtxParseException} (from
 * {@link #parseOrThrow}): nesting deeper than {@value #MAX_NESTING} brackets and expressions with more than
 * {@value #MAX_OPERATORS} operators are reported as diagnostics instead of risking the stack.
 *
 * <p>Files are read as ISO-8859-1 so that any byte sequence lexes (non-ASCII bytes outside strings
 * and comments are errors with a position) and printing writes the same bytes back.
 */
public final class Ptx {
    /** Brackets ({@code ( [ {}) may nest at most this deep. */
    public static final int MAX_NESTING = 128;
    /** A statement, initializer element or section item may contain at most this many operator
     * characters (keeps expression trees shallow enough for recursive walks). */
    public static final int MAX_OPERATORS = 1000;
    /** At most this many diagnostics are reported per text; a last one says more were dropped. */
    public static final int MAX_DIAGNOSTICS = 200;

    private Ptx() {}

    /**
     * Parses PTX text.
     *
     * @param text       the whole module's text
     * @param sourceName the name diagnostics are reported under (usually the file path)
     * @return the module and the syntax errors (never throws for bad input)
     */
    public static ParseResult parse(CharSequence text, String sourceName) {
        return parse(text, sourceName, true);
    }

    /**
     * Parses PTX text with ANTLR alone, without the hand-written fast path ({@link FastParser}):
     * the reference the fast path is tested against, and the baseline of the parse benchmark.
     * Same results as {@link #parse(CharSequence, String)}.
     */
    public static ParseResult parseWithAntlrOnly(CharSequence text, String sourceName) {
        return parse(text, sourceName, false);
    }

    static ParseResult parse(CharSequence text, String sourceName, boolean fastPath) {
        String s = text.toString();
        List<Ast.ModuleItem> items = new ArrayList<>();
        List<Diagnostic> diags = new ArrayList<>();
        java.util.Map<String, String> strings = new java.util.HashMap<>();
        FastParser fast = fastPath ? new FastParser(s) : null;
        int from = 0;
        if (fast != null) {
            // the whole text in one pass; where the fast path gives up, chunks take over from the
            // chunk that holds the item it gave up on (the items before it are kept)
            int failAt = fast.parseAll(items);
            if (failAt < 0) return new ParseResult(new Ast.Module(items), diags);
            List<Chunk> cs = chunks(s, sourceName, diags);
            for (Chunk c : cs) if (c.end <= failAt) from = c.end;
            int keep = 0;
            while (keep < items.size() && fast.itemStart(keep) < from) keep++;
            items.subList(keep, items.size()).clear();
            parseChunks(s, cs, from, fast, sourceName, items, diags, strings);
        } else {
            parseChunks(s, chunks(s, sourceName, diags), 0, null, sourceName, items, diags, strings);
        }
        diags.sort((a, b) -> a.line() != b.line() ? Integer.compare(a.line(), b.line()) : Integer.compare(a.column(), b.column()));
        if (diags.size() > MAX_DIAGNOSTICS) {
            Diagnostic last = diags.get(MAX_DIAGNOSTICS - 1);
            diags.subList(MAX_DIAGNOSTICS, diags.size()).clear();
            diags.add(new Diagnostic(sourceName, last.line(), last.column(), Diagnostic.Severity.ERROR,
                    "too many errors, stopped after " + MAX_DIAGNOSTICS));
        }
        return new ParseResult(new Ast.Module(items), diags);
    }

    /**
     * Parses PTX text and throws when it has syntax errors.
     *
     * @throws PtxParseException with every diagnostic when the text is not valid PTX syntax
     */
    public static Ast.Module parseOrThrow(CharSequence text, String sourceName) {
        ParseResult r = parse(text, sourceName);
        if (!r.ok()) throw new PtxParseException(r.diagnostics());
        return r.module();
    }

    /**
     * Reads (as ISO-8859-1) and parses a file; diagnostics are reported under {@code file.toString()}.
     *
     * @throws IOException when the file cannot be read
     */
    public static ParseResult parseFile(Path file) throws IOException {
        return parse(readPtx(file), file.toString());
    }

    /** Reads a PTX file the way {@link #parseFile} does (ISO-8859-1, every byte one character). */
    public static String readPtx(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.ISO_8859_1);
    }

    /**
     * How much of {@code text} the fast path takes: {chunks, chunks {@link FastParser} accepted}
     * (for tests and benchmarks; rejected chunks are counted as not accepted).
     */
    static int[] fastPathCoverage(String text) {
        FastParser fast = new FastParser(text);
        if (fast.parseAll(new ArrayList<>()) < 0) {
            int n = chunks(text, "coverage", new ArrayList<>()).size();
            return new int[] {n, n};
        }
        int n = 0, ok = 0;
        for (Chunk c : chunks(text, "coverage", new ArrayList<>())) {
            n++;
            if (!c.rejected && fast.parseChunk(c.start, c.end, c.line, c.column) != null) ok++;
        }
        return new int[] {n, ok};
    }

    /** Parses the chunks that start at or after offset {@code from}: each with the fast path when given, else (or when it gives up) with ANTLR. */
    private static void parseChunks(String s, List<Chunk> chunks, int from, FastParser fast, String sourceName,
                                    List<Ast.ModuleItem> items, List<Diagnostic> diags, java.util.Map<String, String> strings) {
        for (Chunk c : chunks) {
            if (c.rejected || c.start < from) continue;
            if (fast != null) {
                List<Ast.ModuleItem> quick = fast.parseChunk(c.start, c.end, c.line, c.column);
                if (quick != null) {
                    items.addAll(quick);
                    continue;
                }
            }
            parseChunk(s.substring(c.start, c.end), c.line, c.column, sourceName, items, diags, strings);
            if (diags.size() >= MAX_DIAGNOSTICS) break;
        }
    }

    // ------------------------------------------------------------------ chunking

    private record Chunk(int start, int end, int line, int column, boolean rejected) {}

    /**
     * Cuts the text after each top-level closing brace that is not followed by {@code ;} or
     * {@code ,} (those close initializers). Also enforces the nesting and operator limits.
     */
    private static List<Chunk> chunks(String s, String source, List<Diagnostic> diags) {
        List<Chunk> out = new ArrayList<>();
        int n = s.length();
        int line = 1, col = 0;                 // position of s[i]; col 0-based
        int start = 0, startLine = 1, startCol = 0;
        int depth = 0, ops = 0;
        boolean rejected = false;
        int pendPos = -1, pendLine = 0, pendCol = 0;
        for (int i = 0; i < n; i++) {
            char ch = s.charAt(i);
            if (ch == '\n') {
                line++; col = 0;
                continue;
            }
            if (ch == '/' && i + 1 < n && s.charAt(i + 1) == '/') {          // line comment
                while (i + 1 < n && s.charAt(i + 1) != '\n') { i++; col++; }
                col++;
                continue;
            }
            if (ch == '/' && i + 1 < n && s.charAt(i + 1) == '*') {          // block comment
                int close = s.indexOf("*/", i + 2);
                int stop = close < 0 ? n : close + 2;
                for (int j = i; j < stop; j++) {
                    if (s.charAt(j) == '\n') { line++; col = 0; } else col++;
                }
                i = stop - 1;
                continue;
            }
            if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f') { col++; continue; }
            // a significant character: settle a pending cut
            if (pendPos >= 0) {
                if (ch != ';' && ch != ',') {
                    out.add(new Chunk(start, pendPos, startLine, startCol, rejected));
                    start = pendPos; startLine = pendLine; startCol = pendCol;
                    rejected = false;
                }
                pendPos = -1;
            }
            if (ch == '"') {                                                   // string (ends at newline like the lexer)
                i++; col++;
                while (i < n && s.charAt(i) != '"' && s.charAt(i) != '\n') {
                    if (s.charAt(i) == '\\' && i + 1 < n && s.charAt(i + 1) != '\n') { i++; col++; }
                    i++; col++;
                }
                if (i < n && s.charAt(i) == '\n') { i--; }                      // let the loop count the newline
                else col++;
                continue;
            }
            switch (ch) {
                case '{', '(', '[' -> {
                    depth++;
                    ops = 0;
                    if (depth == MAX_NESTING + 1 && !rejected) {
                        rejected = true;
                        diags.add(new Diagnostic(source, line, col + 1, Diagnostic.Severity.ERROR,
                                "brackets nested deeper than " + MAX_NESTING + " levels"));
                    }
                }
                case '}', ')', ']' -> {
                    ops = 0;
                    if (depth > 0) depth--;
                    if (depth == 0 && ch == '}') { pendPos = i + 1; pendLine = line; pendCol = col + 1; }
                }
                case ';', ',' -> ops = 0;
                case '.' -> {           // a directive or type word starts a new item (.b32 in a .section)
                    char prev = i > 0 ? s.charAt(i - 1) : '\n';
                    if (prev == ' ' || prev == '\t' || prev == '\n' || prev == '\r') ops = 0;
                }
                case '-', '+', '!', '~', '*', '/', '%', '&', '|', '^', '<', '>', '?', '=' -> {
                    if (++ops == MAX_OPERATORS + 1 && !rejected) {
                        rejected = true;
                        diags.add(new Diagnostic(source, line, col + 1, Diagnostic.Severity.ERROR,
                                "more than " + MAX_OPERATORS + " operators in one expression"));
                    }
                }
                default -> {}
            }
            col++;
        }
        if (start < n || out.isEmpty()) out.add(new Chunk(start, n, startLine, startCol, rejected));
        return out;
    }

    // ------------------------------------------------------------------ ANTLR

    /**
     * Turns ANTLR's syntax errors into diagnostics, one per statement: after an error, the parser's
     * recovery (a token deleted or conjured, tokens skipped) often makes the rest of the same
     * statement fail again; those follow-on errors, up to the statement's {@code ;}, are not
     * reported, and the next statement is checked afresh. A missing token is reported where it is
     * missing, after the token before it ({@code missing ';' after '%tid.x'}), not at the next line's
     * first token.
     */
    private static final class Collector extends BaseErrorListener {
        final String source;
        final List<Diagnostic> out;
        /** Index of the last token of the statement an error was reported in; errors up to it are follow-on errors. */
        private int suppressUntil = -1;

        Collector(String source, List<Diagnostic> out) {
            this.source = source;
            this.out = out;
        }

        @Override
        public void syntaxError(Recognizer<?, ?> recognizer, Object offending, int line, int col, String msg,
                                RecognitionException e) {
            String m = msg;
            if (offending instanceof Token t) {
                if (t.getType() == PtxLexer.ERROR_CHAR) {
                    m = "unexpected character " + describeChar(t.getText());
                } else if (t.getType() == Token.EOF && m.contains("<EOF>")) {
                    m = m.replace("<EOF>", "end of input");
                }
                if (recognizer instanceof org.antlr.v4.runtime.Parser p && p.getInputStream() instanceof org.antlr.v4.runtime.BufferedTokenStream ts
                        && t.getTokenIndex() >= 0) {
                    int at = t.getTokenIndex();
                    if (at <= suppressUntil) return;
                    Token prev = at > 0 ? ts.get(at - 1) : null;
                    boolean missing = m.startsWith("missing ") && m.contains(" at ") && prev != null && prev.getType() != Token.EOF;
                    if (!missing && prev != null && prev.getType() != Token.EOF && prev.getType() != PtxLexer.SEMI
                            && t.getLine() > prev.getLine() && expects(p, PtxLexer.SEMI)) {
                        // a statement that ends with its line but has no ';': the error is there, not at the next line's token
                        m = "missing ';' at " + t.getText();
                        missing = true;
                    }
                    if (missing) {
                        // the parser conjured the token and goes on at t: say where it is missing, after the word before it
                        int from = at - 1;
                        while (from > 0 && ts.get(from - 1).getStopIndex() + 1 == ts.get(from).getStartIndex()
                                && ts.get(from - 1).getLine() == prev.getLine() && ts.get(from - 1).getType() != PtxLexer.SEMI
                                && ts.get(from - 1).getType() != PtxLexer.COMMA) from--;
                        StringBuilder word = new StringBuilder();
                        for (int i = from; i < at; i++) word.append(ts.get(i).getText());
                        m = m.substring(0, m.indexOf(" at ")) + " after '" + word + "'";
                        line = prev.getLine();
                        col = prev.getCharPositionInLine() + prev.getText().length();
                    }
                    // a token missing at the end of a line ends the statement there; any other error leaves the
                    // rest of its statement unreliable
                    if (!missing || t.getLine() == prev.getLine()) {
                        // the rest of this statement: up to its ';' (never dropped by the recovery, StatementRecovery),
                        // or up to a '}' that ends the block
                        ts.fill();
                        int end = at;
                        for (int i = at; i < ts.size(); i++) {
                            int type = ts.get(i).getType();
                            end = i;
                            if (type == PtxLexer.SEMI || type == Token.EOF) break;
                            if (type == PtxLexer.RBRACE) { end = i - 1; break; }
                        }
                        suppressUntil = end;
                    }
                }
            }
            m = shortenExpecting(m);
            out.add(new Diagnostic(source, line, col + 1, Diagnostic.Severity.ERROR, m));
        }
    }

    /**
     * ANTLR's recovery, except that it never drops a {@code ;} or {@code }} as an extraneous token: a
     * statement with an error then ends at its own {@code ;} and the next one is parsed afresh,
     * instead of the two being read as one (and the next one's errors lost or garbled).
     */
    private static final class StatementRecovery extends DefaultErrorStrategy {
        @Override
        protected Token singleTokenDeletion(org.antlr.v4.runtime.Parser recognizer) {
            int la = recognizer.getInputStream().LA(1);
            if (la == PtxLexer.SEMI || la == PtxLexer.RBRACE) return null;
            return super.singleTokenDeletion(recognizer);
        }
    }

    /** Whether the parser, where it stopped, could have gone on with a token of this type. */
    private static boolean expects(org.antlr.v4.runtime.Parser p, int type) {
        try {
            return p.getExpectedTokens().contains(type);
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static String describeChar(String text) {
        if (text.isEmpty()) return "''";
        char c = text.charAt(0);
        if (c >= 0x20 && c < 0x7f) return "'" + c + "'";
        return String.format("0x%02X", (int) c);
    }

    /**
     * ANTLR's wording in plain words, on one readable line: {@code unexpected '%r1'; expecting ';'} for
     * "extraneous/mismatched input", token kinds as words (a name, a number), at most six of the
     * expected tokens.
     */
    private static String shortenExpecting(String m) {
        m = m.replaceFirst("^(extraneous|mismatched) input (.*) expecting ", "unexpected $2; expecting ");
        int k = m.indexOf("expecting ");
        if (k < 0) return m;
        String list = m.substring(k + "expecting ".length());
        boolean set = list.startsWith("{") && list.endsWith("}");
        if (set) list = list.substring(1, list.length() - 1);
        java.util.LinkedHashSet<String> items = new java.util.LinkedHashSet<>();
        for (String item : list.split(", ")) {
            items.add(switch (item) {
                case "ID" -> "a name";
                case "INT_LIT", "FLOAT_LIT", "HEXFLOAT_LIT" -> "a number";
                case "STRING" -> "a string";
                case "DOTID" -> "a .modifier";
                default -> item;
            });
        }
        if (items.contains("a name") && items.contains("a number")) return m.substring(0, k) + "expecting an operand";
        List<String> all = new ArrayList<>(items);
        String head = m.substring(0, k);
        if (all.size() == 1) return head + "expecting " + all.getFirst();
        if (all.size() <= 6) return head + "expecting one of " + String.join(", ", all);
        return head + "expecting one of " + String.join(", ", all.subList(0, 6)) + ", ...";
    }

    private static void parseChunk(String text, int line, int column, String source,
                                   List<Ast.ModuleItem> items, List<Diagnostic> diags, java.util.Map<String, String> strings) {
        PtxLexer lexer = new PtxLexer(CharStreams.fromString(text, source));
        lexer.setLine(line);
        lexer.setCharPositionInLine(column);
        lexer.removeErrorListeners();
        Collector collector = new Collector(source, diags);
        lexer.addErrorListener(collector);
        CommonTokenStream tokens = new CommonTokenStream(lexer);
        PtxParser parser = new PtxParser(tokens);
        parser.removeErrorListeners();
        parser.getInterpreter().setPredictionMode(PredictionMode.SLL);
        parser.setErrorHandler(new BailErrorStrategy());
        int before = diags.size();
        try {
            PtxParser.ModuleContext tree;
            try {
                tree = parser.module();
            } catch (ParseCancellationException bail) {
                tokens.seek(0);
                parser.reset();
                parser.addErrorListener(collector);
                parser.setErrorHandler(new StatementRecovery());
                parser.getInterpreter().setPredictionMode(PredictionMode.LL);
                tree = parser.module();
            }
            if (diags.size() > before) return;      // the tree has error nodes; no AST for this chunk
            AstBuilder b = new AstBuilder(source, strings);
            List<Ast.ModuleItem> chunkItems = new ArrayList<>();
            b.module(tree, chunkItems);
            diags.addAll(b.problems);
            items.addAll(chunkItems);
        } catch (StackOverflowError e) {
            diags.add(new Diagnostic(source, line, column + 1, Diagnostic.Severity.ERROR,
                    "input nested too deeply to parse"));
        }
    }
}
