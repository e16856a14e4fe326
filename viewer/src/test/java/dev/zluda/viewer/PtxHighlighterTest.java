package dev.zluda.viewer;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class PtxHighlighterTest {
    private static String styleOf(String line, String token, boolean inComment) {
        int at = line.indexOf(token);
        for (PtxHighlighter.Span s : PtxHighlighter.spans(line, inComment)) {
            if (s.start() <= at && at < s.end()) return s.style();
        }
        return null;
    }

    @Test
    void tokensGetTheirStyles() {
        String l = "\t@%p1 bra \t$L__BB0_2; // done";
        assertEquals("ptx-register", styleOf(l, "%p1", false));
        assertEquals("ptx-opcode", styleOf(l, "bra", false));
        assertEquals("ptx-plain", styleOf(l, "$L__BB0_2", false));
        assertEquals("ptx-comment", styleOf(l, "// done", false));
        String ld = "\tld.global.f32 \t%f1, [%rd8+4];";
        assertEquals("ptx-opcode", styleOf(ld, "ld.global.f32", false));
        assertEquals("ptx-register", styleOf(ld, "%rd8", false));
        assertEquals("ptx-number", styleOf(ld, "4]", false));
        assertEquals("ptx-directive", styleOf(".visible .entry vectorAdd(", ".entry", false));
        assertEquals("ptx-label", styleOf("$L__BB0_2:", "$L__BB0_2", false));
        assertEquals("ptx-register", styleOf("\tmov.u32 \t%r5, %tid.x;", "%tid.x", false));
        // the spans cover the line without gaps
        int end = 0;
        for (PtxHighlighter.Span s : PtxHighlighter.spans(ld, false)) {
            assertEquals(end, s.start());
            end = s.end();
        }
        assertEquals(ld.length(), end);
    }

    @Test
    void blockCommentsSpanLinesAndEntriesAreFound() {
        List<String> lines = Arrays.asList(SyntheticCapture.PTX.split("\n"));
        boolean[] in = PtxHighlighter.blockCommentStates(lines);
        int second = lines.indexOf("   over two lines */");
        assertTrue(in[second]);
        assertFalse(in[second + 1]);
        assertEquals("ptx-comment", styleOf(lines.get(second), "over", true));
        assertEquals(List.of("vectorAdd"), PtxHighlighter.entries(lines));
        assertTrue(lines.get(PtxHighlighter.entryLine(lines, "vectorAdd")).contains(".entry vectorAdd("));
        assertEquals(-1, PtxHighlighter.entryLine(lines, "vector"));
    }
}
