package dev.zluda.ptx;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class PtxCheckTest {
    @TempDir
    Path tmp;

    private record Run(int exit, String out) {}

    private static Run check(List<Path> files) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int exit = PtxCheck.run(files, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return new Run(exit, bytes.toString(StandardCharsets.UTF_8));
    }

    /**
     * A 400 KB instruction name (an unknown instruction on a 400 KB line): the table pads every row to
     * it, as before; each row is written whole (docs/benchmarks.md has the time and the write(2) count
     * of zluda ptx check on such a file).
     */
    @Test
    void aFourHundredKilobyteFormPadsTheTableAsBefore() throws Exception {
        String longName = "a".repeat(400_000);
        Path f = tmp.resolve("long.ptx");
        Files.writeString(f, ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n " + longName + ";\n ret;\n}\n");
        Run r = check(List.of(f));
        assertEquals(PtxCheck.ERRORS, r.exit());
        List<String> rows = r.out().lines().filter(l -> l.startsWith("form ") || l.startsWith("ret ") || l.startsWith(longName)).toList();
        assertEquals(3, rows.size(), r.out().substring(0, 300));
        for (String row : rows) assertTrue(row.length() > 400_000, "padded to the longest form: " + row.length());
        assertTrue(r.out().contains(f + ":6:2: error: unknown instruction '" + longName + "'"));
    }

    @Test
    void validFileListsFormsWithSupportColumns() {
        Path f = Corpus.dir().resolve("vector_add.sm_90.ptx");
        Run r = check(List.of(f));
        assertEquals(PtxCheck.OK, r.exit(), r.out());
        assertFalse(r.out().contains("error:"), r.out());
        // vector_add: c[i] = a[i] + b[i] is one add.f32 and two global loads of f32
        String addLine = r.out().lines().filter(l -> l.startsWith("add.f32 ")).findFirst().orElseThrow();
        assertTrue(addLine.matches("add\\.f32\\s+1\\s+add\\s+9\\.7\\.3\\s+yes\\s+yes\\s*"), addLine);
        String ldLine = r.out().lines().filter(l -> l.startsWith("ld.global.")).findFirst().orElseThrow();
        assertTrue(ldLine.matches("ld\\.global\\.\\S*f32\\s+2\\s+ld\\s+9\\.7\\.9\\s+yes\\s+yes\\s*"), ldLine);
        assertTrue(r.out().lines().anyMatch(l -> l.matches("form\\s+count\\s+family\\s+ISA\\s+emulator\\s+gfx1100\\s*")), r.out());
        assertTrue(r.out().contains("emulator: the CPU emulator behind zluda's driver"), r.out());
        assertTrue(r.out().contains("gfx1100:  the AMD back end lowers this form to LLVM IR for gfx1100"), r.out());
        assertTrue(r.out().contains("1 of 1 file(s) checked without errors lower completely"), r.out());
    }

    /**
     * The gfx1100 column is the AMD back end's own verdict on these files: bfe is refused (docs/amd.md, "Refused"),
     * add, mov and redux.sync are lowered, bar.sync with a barrier other than 0 is not; a device function with .param parameters is lowered where it is
     * called, the call of one with .reg parameters is refused and its instructions are not tried; a file with
     * errors is not tried.
     */
    @Test
    void compileColumnIsTheBackEndsVerdict() throws Exception {
        Path k = tmp.resolve("k.ptx");
        Files.writeString(k, """
                .version 9.0
                .target sm_90
                .address_size 64
                .func (.reg .b32 r) twice(.reg .b32 x)
                {
                	shl.b32 r, x, 1;
                	ret;
                }
                .func (.param .b32 r) thrice(.param .b32 x)
                {
                	.reg .b32 %t<2>;
                	ld.param.b32 %t0, [x];
                	mul.lo.s32 %t1, %t0, 3;
                	st.param.b32 [r], %t1;
                	ret;
                }
                .visible .entry k(.param .u64 p)
                {
                	.reg .b32 %r<4>;
                	.reg .b64 %rd<2>;
                	ld.param.u64 %rd1, [p];
                	mov.u32 %r1, 7;
                	redux.sync.add.u32 %r2, %r1, -1;
                	bar.sync 1;
                	{
                	.param .b32 a;
                	.param .b32 b;
                	st.param.b32 [a], %r1;
                	call (b), thrice, (a);
                	ld.param.b32 %r1, [b];
                	}
                	{
                	.param .b32 c;
                	call (c), twice, (%r1);
                	}
                	add.s32 %r3, %r2, %r1;
                	add.s32 %r3, %r3, %r1;
                	st.global.u32 [%rd1], %r3;
                	ret;
                }
                """);
        Path bad = tmp.resolve("bad.ptx");
        Files.writeString(bad, ".version 9.0\n.target sm_90\n.address_size 64\n.entry b()\n{\n\tmov.u32 %r1, 1;\n\tret;\n}\n");
        Run r = check(List.of(k));
        assertEquals(PtxCheck.OK, r.exit(), r.out());
        assertTrue(line(r, "redux.sync.add.u32").matches("redux\\.sync\\.add\\.u32\\s+1\\s+\\S+\\s+\\S+\\s+\\S+\\s+yes\\s*"), r.out());
        assertTrue(line(r, "bar.sync").matches("bar\\.sync\\s+1\\s+\\S+\\s+\\S+\\s+\\S+\\s+no\\s*"), r.out());
        assertTrue(line(r, "add.s32").matches("add\\.s32\\s+2\\s+\\S+\\s+\\S+\\s+\\S+\\s+yes\\s*"), r.out());
        // twice has .reg parameters: its call is refused, so nothing of it is lowered (not tried)
        assertTrue(line(r, "call").endsWith(" 1/2"), r.out());
        assertTrue(line(r, "shl.b32").endsWith(" -"), r.out());
        assertTrue(line(r, "ret").matches("ret\\s+3\\s+\\S+\\s+\\S+\\s+\\S+\\s+2/3\\s*"), "the ret of twice is not lowered: " + r.out());
        assertTrue(line(r, "mul.lo.s32").endsWith(" yes"), r.out());
        assertTrue(r.out().contains("0 of 1 file(s) checked without errors lower completely"), r.out());
        Run both = check(List.of(bad));
        assertTrue(line(both, "mov.u32").matches("mov\\.u32\\s+1\\s+\\S+\\s+\\S+\\s+\\S+\\s+-\\s*"), both.out());
    }

    private static String line(Run r, String form) {
        return r.out().lines().filter(l -> l.startsWith(form + " ")).findFirst().orElseThrow(() -> new AssertionError(form + " not in " + r.out())).stripTrailing();
    }

    /**
     * vabsdiff4 (PTX ISA 9.0, §9.7.18, SIMD video instructions) parses and checks, but the emulator does not
     * execute it (ptx/docs/support.md): a warning at its line and column and exit 3, so that a script does not
     * take the file for one zluda's driver loads (it refuses it with CUDA_ERROR_NOT_SUPPORTED).
     */
    @Test
    void anInstructionTheEmulatorLacksIsAWarningAtItsLineAndExitThree() throws Exception {
        Path v = tmp.resolve("v.ptx");
        Files.writeString(v, ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n\t.reg .b32 %r<4>;\n"
                + "\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [p];\n\tmov.u32 %r1, 7;\n\tvabsdiff4.u32.u32.u32.add %r2, %r1, %r1, %r1;\n"
                + "\tst.global.u32 [%rd1], %r2;\n\tret;\n}\n");
        Run r = check(List.of(v));
        assertEquals(PtxCheck.UNSUPPORTED, r.exit(), r.out());
        assertEquals(3, PtxCheck.UNSUPPORTED);
        assertTrue(r.out().contains(v + ":10:2: warning: vabsdiff4.u32.u32.u32.add is not supported by the emulator (CUDA_ERROR_NOT_SUPPORTED at load)"), r.out());
        assertEquals(1, r.out().lines().filter(l -> l.contains(": warning: ")).count(), "only the one instruction: " + r.out());
        // errors take precedence
        Path bad = tmp.resolve("bad.ptx");
        Files.writeString(bad, ".version 9.0\n.target sm_90\n.address_size 64\n.entry k()\n{\n\tmov.u32 %r1, 1;\n\tret;\n}\n");
        assertEquals(PtxCheck.ERRORS, check(List.of(v, bad)).exit());
    }

    @Test
    void errorsAreReportedWithPositionAndExitOne() throws Exception {
        Path bad = tmp.resolve("bad.ptx");
        Files.writeString(bad, ".version 9.0\n.target sm_90\n.address_size 64\n.entry k()\n{\n\tmov.u32 %r1, 1;\n\tret;\n}\n");
        Path syntax = tmp.resolve("syntax.ptx");
        Files.writeString(syntax, ".version 9.0\n.target sm_90\n.entry k() {\n  ret\n}\n");
        Run r = check(List.of(bad, syntax));
        assertEquals(PtxCheck.ERRORS, r.exit());
        assertTrue(r.out().contains(bad + ":6:10: error: undefined symbol '%r1'"), r.out());
        assertTrue(r.out().contains(syntax + ":4:6: error: missing ';' after 'ret'"), "at the end of the line that lacks it: " + r.out());
    }

    @Test
    void unreadableFileExitsTwo() {
        Run r = check(List.of(tmp.resolve("missing.ptx"), Corpus.dir().resolve("vector_add.sm_90.ptx")));
        assertEquals(PtxCheck.UNREADABLE, r.exit());
        assertTrue(r.out().contains("missing.ptx: error: cannot read file"), r.out());
    }

    @Test
    void unknownOpcodeIsAnErrorAndMarkedInTheTable() throws Exception {
        Path f = tmp.resolve("u.ptx");
        Files.writeString(f, ".version 9.0\n.target sm_90\n.entry k() { frob.b32; ret; }\n");
        Run r = check(List.of(f));
        assertEquals(PtxCheck.ERRORS, r.exit());
        assertTrue(r.out().contains(":3:14: error: unknown instruction 'frob'"), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.matches("frob\\.b32\\s+1\\s+\\?\\s+-.*")), r.out());
    }

    @Test
    void summaryOfADirectoryGivesTotalsFirstErrorsAndMissingForms() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("corpus/sub"));
        Files.copy(Corpus.dir().resolve("vector_add.sm_90.ptx"), dir.resolve("a.ptx"));
        // two errors in one file: only the first is printed, the second counted
        Files.writeString(dir.resolve("b.ptx"), ".version 9.0\n.target sm_90\n.entry k()\n{\n\tmov.u32 %r1, 1;\n\tmov.u32 %r2, 2;\n\tret;\n}\n");
        Files.writeString(dir.resolve("notes.txt"), "not PTX");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int exit = PtxCheck.run(List.of(tmp.resolve("corpus")), new PrintStream(bytes, true, StandardCharsets.UTF_8), true);
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(PtxCheck.ERRORS, exit, out);
        assertTrue(out.contains("b.ptx:5:10: error: undefined symbol '%r1'"), out);
        assertFalse(out.contains("'%r2'"), out);
        assertTrue(out.contains("b.ptx: (1 more error(s))"), out);
        assertTrue(out.contains("2 file(s), "), out);
        assertTrue(out.contains("1 file(s) with errors; "), out);
        assertTrue(out.contains("MB/s, one thread)"), out);
        assertTrue(out.contains("0 form(s) the emulator does not support, used 0 time(s)"), out);
        assertFalse(out.contains("add.f32 "), "no full table in a summary: " + out);
    }
}
