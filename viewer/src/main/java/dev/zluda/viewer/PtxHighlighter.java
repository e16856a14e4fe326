package dev.zluda.viewer;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Simple syntax highlighting of PTX, line by line: comments, directives ({@code .entry},
 * {@code .reg}), the instruction of each statement ({@code ld.global.f32}), registers ({@code %rd1},
 * {@code %tid.x}), numbers, labels and strings. Style classes are {@code ptx-comment},
 * {@code ptx-directive}, {@code ptx-opcode}, {@code ptx-register}, {@code ptx-number},
 * {@code ptx-label}, {@code ptx-string}, {@code ptx-plain}.
 */
public final class PtxHighlighter {
    private PtxHighlighter() {}

    /**
     * A run of characters of one style.
     *
     * @param start first character (inclusive)
     * @param end last character (exclusive)
     * @param style the style class
     */
    public record Span(int start, int end, String style) {}

    private static final Pattern TOKEN = Pattern.compile(
            "(?<lc>//.*)|(?<bc>/\\*)|(?<str>\"(?:[^\"\\\\]|\\\\.)*\"?)|(?<reg>%[A-Za-z_$][\\w$]*(?:\\.[xyzw])?)"
                    + "|(?<dir>\\.[A-Za-z_][\\w]*)|(?<num>0[xX][0-9a-fA-F]+U?|0[fFdD][0-9a-fA-F]{8,16}|\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?U?)"
                    + "|(?<id>[A-Za-z_$][\\w$]*(?:\\.[\\w$]+)*)(?<colon>:)?");

    /** Whether each line starts inside a block comment ({@code /* ... *}{@code /} spanning lines). */
    public static boolean[] blockCommentStates(List<String> lines) {
        boolean[] in = new boolean[lines.size()];
        boolean state = false;
        for (int i = 0; i < lines.size(); i++) {
            in[i] = state;
            state = endsInComment(lines.get(i), state);
        }
        return in;
    }

    private static boolean endsInComment(String line, boolean inComment) {
        int p = 0;
        while (p < line.length()) {
            if (inComment) {
                int e = line.indexOf("*/", p);
                if (e < 0) return true;
                inComment = false;
                p = e + 2;
            } else {
                int lc = line.indexOf("//", p), bc = line.indexOf("/*", p), q = line.indexOf('"', p);
                if (bc < 0 || (lc >= 0 && lc < bc)) return false;
                if (q >= 0 && q < bc) {
                    int qe = line.indexOf('"', q + 1);
                    if (qe < 0) return false;
                    p = qe + 1;
                    continue;
                }
                inComment = true;
                p = bc + 2;
            }
        }
        return inComment;
    }

    /** The spans of one line, given whether it starts inside a block comment. Spans cover the line. */
    public static List<Span> spans(String line, boolean inComment) {
        List<Span> out = new ArrayList<>();
        int p = 0;
        boolean statementStart = true;
        if (inComment) {
            int e = line.indexOf("*/");
            if (e < 0) {
                out.add(new Span(0, line.length(), "ptx-comment"));
                return out;
            }
            out.add(new Span(0, e + 2, "ptx-comment"));
            p = e + 2;
        }
        Matcher m = TOKEN.matcher(line);
        while (p < line.length()) {
            if (!m.find(p)) {
                out.add(new Span(p, line.length(), "ptx-plain"));
                break;
            }
            if (m.start() > p) {
                String gap = line.substring(p, m.start());
                out.add(new Span(p, m.start(), "ptx-plain"));
                if (gap.indexOf(';') >= 0 || gap.indexOf('{') >= 0 || gap.indexOf('}') >= 0) statementStart = true;
            }
            String style;
            int end = m.end();
            if (m.group("lc") != null) {
                style = "ptx-comment";
            } else if (m.group("bc") != null) {
                int e = line.indexOf("*/", m.end());
                end = e < 0 ? line.length() : e + 2;
                style = "ptx-comment";
            } else if (m.group("str") != null) {
                style = "ptx-string";
            } else if (m.group("reg") != null) {
                // a guard predicate (@%p1) keeps the statement start for the instruction after it
                boolean guard = m.start() > 0 && (line.charAt(m.start() - 1) == '@' || line.charAt(m.start() - 1) == '!');
                style = "ptx-register";
                if (!guard) statementStart = false;
            } else if (m.group("dir") != null) {
                style = "ptx-directive";
                statementStart = false;
            } else if (m.group("num") != null) {
                style = "ptx-number";
                statementStart = false;
            } else if (m.group("colon") != null && statementStart) {
                style = "ptx-label";
            } else {
                style = statementStart ? "ptx-opcode" : "ptx-plain";
                statementStart = false;
            }
            out.add(new Span(m.start(), end, style));
            p = end;
        }
        return out;
    }

    /** The 0-based line that declares {@code .entry NAME} (or {@code .func NAME}), or -1. */
    public static int entryLine(List<String> lines, String name) {
        Pattern entry = Pattern.compile("\\.(entry|func)\\s+(\\([^)]*\\)\\s*)?" + Pattern.quote(name) + "\\s*(\\(|$)");
        for (int i = 0; i < lines.size(); i++) if (entry.matcher(lines.get(i)).find()) return i;
        return -1;
    }

    /** The names of the kernels ({@code .entry}) the text declares, in order. */
    public static List<String> entries(List<String> lines) {
        Pattern entry = Pattern.compile("\\.entry\\s+([A-Za-z_$][\\w$]*)");
        List<String> out = new ArrayList<>();
        for (String l : lines) {
            Matcher m = entry.matcher(l);
            if (m.find()) out.add(m.group(1));
        }
        return out;
    }
}
