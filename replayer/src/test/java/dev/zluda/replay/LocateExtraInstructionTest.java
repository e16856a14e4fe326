package dev.zluda.replay;

import dev.zluda.capture.Capture;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@code zluda replay --locate --against zluda --against-ptx FILE} where FILE is the recorded
 * vectorAdd PTX (samples/traces/h200/vectorAdd-kernels, recorded on an NVIDIA H200) with one
 * {@code add.f32} inserted after the kernel's own: the traced thread computes one result more on that
 * side, and the report names that instruction with its line in FILE (found here by searching FILE),
 * not only the two counts.
 */
class LocateExtraInstructionTest {
    static final Path A = Path.of("..", "samples", "traces", "h200", "vectorAdd-kernels");

    /** 1-based line of the only line of {@code text} containing {@code what}. */
    static int lineOf(String text, String what) {
        String[] lines = text.split("\n", -1);
        int found = -1;
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].contains(what)) {
                assertEquals(-1, found, what + " is on one line only");
                found = i + 1;
            }
        }
        assertTrue(found > 0, what);
        return found;
    }

    static Locate.Result locate(String againstPtx) throws Exception {
        try (Capture cap = Capture.open(A)) {
            return Locate.run(cap, "1", new Locate.Options("zluda", null, "zluda", againstPtx, new int[6], 4096, null, null, "extra.ptx"));
        }
    }

    /**
     * The recorded PTX with {@code add.f32 %f3, %f3, 0f00000000} (a no-op on the value: only the instruction count
     * changes) inserted after the first line matching {@code lineRegex}, which must match.
     */
    static String withExtraAddAfter(String ptx, String lineRegex) {
        String extra = ptx.replaceFirst("(" + lineRegex + "\n)", "$1\tadd.f32 \t%f3, %f3, 0f00000000;\n");
        assertNotEquals(ptx, extra);
        return extra;
    }

    /** What Locate says of the extra PTX against the recorded one, which must have found a divergence. */
    static String locateFound(String extra) throws Exception {
        Locate.Result r = locate(extra);
        assertTrue(r.found(), r.text());
        return r.text();
    }

    /** In the middle: the traced thread's next result comes from it on one side only. */
    @Test
    void anInsertedInstructionIsNamedWithItsLineInTheFileItIsIn() throws Exception {
        String ptx = Files.readString(A.resolve("module_0001_01.ptx"));
        String extra = withExtraAddAfter(ptx, "\tadd\\.f32\\s+%f3, %f2, %f1;");
        int line = lineOf(extra, "0f00000000");
        assertEquals(lineOf(ptx, "add.f32") + 1, line, "right after the recorded add.f32");
        String t = locateFound(extra);
        assertTrue(t.contains("comes, on zluda (extra.ptx) only, from line " + line + " of extra.ptx: add.f32"), t);
        assertTrue(t.contains("VERDICT: DIVERGENCE at line " + line + " of extra.ptx"), t);
    }

    /** After the thread's last result: the counts differ, and the first result without a counterpart is named. */
    @Test
    void anInstructionAddedAtTheEndIsNamedToo() throws Exception {
        String ptx = Files.readString(A.resolve("module_0001_01.ptx"));
        String extra = withExtraAddAfter(ptx, "\tst\\.global\\.f32\\s+\\[%rd10\\], %f3;");
        int line = lineOf(extra, "0f00000000");
        String t = locateFound(extra);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("computed (\\d+) results on zluda \\(recorded PTX\\) and (\\d+) on zluda \\(extra.ptx\\)").matcher(t);
        assertTrue(m.find(), t);
        int na = Integer.parseInt(m.group(1));
        assertEquals(na + 1, Integer.parseInt(m.group(2)), t);
        assertTrue(t.contains("result " + (na + 1) + ", on zluda (extra.ptx) only: line " + line + " of extra.ptx: add.f32"), t);
    }
}
