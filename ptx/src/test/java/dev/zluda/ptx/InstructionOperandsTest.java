package dev.zluda.ptx;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Operand count and kind checks ({@link InstructionOperands}). The malformed forms are ones {@code ptxas}
 * rejects ("Arguments mismatch for instruction"): each takes a different number of operands than its syntax
 * in PTX ISA 9.0 chapter 9.7 says, or an operand of the wrong kind (a register where the ISA writes
 * {@code [a]}, an immediate as a destination). The well-formed ones are the variable-arity forms of the ISA.
 */
class InstructionOperandsTest {
    @TempDir
    Path tmp;

    private static final String HEAD = """
            .version 9.0
            .target sm_90
            .address_size 64
            .visible .entry k(.param .u64 k_p)
            {
            .reg .pred %p<4>; .reg .f32 %f<8>; .reg .b32 %r<8>; .reg .b64 %rd<8>;
            """;

    /** Diagnostics of one instruction, on line 7, inside a kernel with registers declared. */
    private static List<Diagnostic> diagnose(String line) {
        String text = HEAD + "\t" + line + "\n$L:\n\tret;\n}\n";
        ParseResult r = Ptx.parse(text, "t.ptx");
        assertTrue(r.ok(), () -> line + ": " + r.diagnostics());
        return Semantics.analyze(r.module(), "t.ptx").diagnostics();
    }

    private static Path vectorAdd() {
        Path p = Path.of("../samples/src/main/ptx/vectorAdd.ptx");
        return Files.exists(p) ? p : Path.of("samples/src/main/ptx/vectorAdd.ptx");
    }

    /** The report: vectorAdd.ptx with its line 46 ({@code add.f32 %f3, %f2, %f1;}) given four, then two operands. */
    @Test
    void vectorAddWithWrongOperandCountFailsTheCheckAtItsLine() throws Exception {
        List<String> lines = Files.readAllLines(vectorAdd());
        assertEquals("\tadd.f32 \t%f3, %f2, %f1;", lines.get(45), "line 46 of the sample moved");
        String[][] cases = {{"\tadd.f32 %f1, %f3, %f2, %f1;", "found 4"}, {"\tadd.f32 %r1, %r2;", "found 2"}};
        for (String[] c : cases) {
            List<String> edited = new ArrayList<>(lines);
            edited.set(45, c[0]);
            Path f = tmp.resolve("vectorAdd.ptx");
            Files.write(f, edited);
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            int exit = PtxCheck.run(List.of(f), new PrintStream(bytes, true, StandardCharsets.UTF_8));
            String out = bytes.toString(StandardCharsets.UTF_8);
            assertEquals(PtxCheck.ERRORS, exit, out);
            assertTrue(out.contains(f + ":46:2: error: add.f32 takes 3 operands (d, a, b), " + c[1]), out);
            assertEquals(1, out.lines().filter(l -> l.contains("error:")).count(), out);
        }
        // and the sample as shipped is clean
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        assertEquals(PtxCheck.OK, PtxCheck.run(List.of(vectorAdd()), new PrintStream(bytes, true, StandardCharsets.UTF_8)), bytes.toString());
    }

    @Test
    void everyFamilyHasAnOperandForm() {
        for (InstructionTable.Family f : InstructionTable.families())
            assertTrue(InstructionOperands.covers(f.key()), f.key());
        assertTrue(InstructionOperands.exact("add"));
        assertFalse(InstructionOperands.exact("tex"));
    }

    @TestFactory
    Stream<DynamicTest> wellFormedVariableArityFormsPass() {
        return Stream.of(
                "add.f32 %f1, %f2, %f3;", "mad.lo.s32 %r1, %r2, %r3, %r4;", "mad.cc.u32 %r1, %r2, %r3, %r4;",
                "mul.wide.s32 %rd1, %r1, 4;", "min.f32 %f1, %f2, %f3, %f4;", "bfi.b32 %r1, %r2, %r3, %r4, %r5;",
                "setp.lt.f32 %p1, %f1, %f2;", "setp.lt.f32 %p1|%p2, %f1, %f2;", "setp.lt.and.f32 %p1|%p2, %f1, %f2, !%p3;",
                "set.lt.and.u32.f32 %r1, %f1, %f2, %p3;", "selp.b32 %r1, %r2, 7, %p1;",
                "ld.global.f32 %f1, [%rd1];", "ld.global.L2::cache_hint.f32 %f1, [%rd1], %rd2;",
                "ld.global.v2.f32 {%f1, %f2}, [%rd1+8];", "st.global.f32 [%rd1], %f1;", "st.global.u32 [%rd1], 0;",
                "st.global.v2.f32 [%rd1], {%f1, %f2};", "mov.u32 %r1, %tid.x;", "mov.u32 %r1, 5;",
                "mov.b64 %rd1, {%r1, %r2};", "mov.b64 {%r1, %r2}, %rd1;", "bar.sync 0;", "bar.sync 1, 64;",
                "barrier.sync.aligned 0;", "bar.arrive 1, 64;", "bar.red.popc.u32 %r1, 0, %p1;",
                "shfl.sync.idx.b32 %r1|%p1, %r2, 0, 31, -1;", "shfl.sync.down.b32 %r1, %r2, 1, 31, -1;",
                "vote.sync.ballot.b32 %r1, %p1, -1;", "vote.sync.all.pred %p1, !%p2, -1;",
                "atom.global.add.u32 %r1, [%rd1], 1;", "atom.global.cas.b32 %r1, [%rd1], %r2, %r3;",
                "red.global.add.u32 [%rd1], 1;", "cvt.pack.sat.u8.s32.b32 %r1, %r2, %r3, %r4;",
                "cvt.pack.sat.u16.s32 %r1, %r2, %r3;", "prmt.b32 %r1, %r2, %r3, %r4;", "lop3.b32 %r1, %r2, %r3, %r4, 0x96;",
                "dp4a.u32.u32 %r1, %r2, %r3, %r4;", "cvt.rn.f32.s32 %f1, %r1;", "cvt.rn.f16x2.f32 %r1, %f1, %f2;",
                "@%p1 bra $L;", "bra.uni $L;", "membar.gl;", "exit;", "activemask.b32 %r1;")
                .map(line -> DynamicTest.dynamicTest(line, () -> assertEquals(List.of(), diagnose(line))));
    }

    @TestFactory
    Stream<DynamicTest> malformedFormsAreErrorsAtTheInstruction() {
        String[][] cases = {
                {"add.f32 %f1, %f2, %f3, %f1;", "7:2", "add.f32 takes 3 operands (d, a, b), found 4"},
                {"mad.lo.s32 %r1, %r2, %r3;", "7:2", "mad.lo.s32 takes 4 operands (d, a, b, c), found 3"},
                {"setp.lt.f32 %p1, %f1, %f2, %p2;", "7:2", "setp.lt.f32 takes 3 operands (p|q, a, b), found 4"},
                {"setp.lt.and.f32 %p1, %f1, %f2;", "7:2", "setp.lt.and.f32 takes 4 operands (p|q, a, b, c), found 3"},
                {"@%p1 ld.global.f32 %f1, [%rd1], %rd2, %rd3;", "7:2", "ld.global.f32 takes 2 to 3 operands ({d}, [a], cache-policy?), found 4"},
                {"ld.global.f32 %f1, %rd1;", "7:21", "operand 2 ([a]) of ld.global.f32 is a register '%rd1', expected an address [...]"},
                {"st.global.f32 %f1, [%rd1];", "7:16", "operand 1 ([a]) of st.global.f32 is a register '%f1', expected an address [...]"},
                {"add.f32 %f1, [%rd1], %f2;", "7:2", "operand 2 (a) of add.f32 is an address [...], expected a register or immediate"},
                {"mov.u32 5, %r1;", "7:2", "operand 1 ({d}) of mov.u32 is an immediate, expected a register or a vector {...}"},
                {"bar.sync;", "7:2", "bar.sync takes 1 to 2 operands (a, b?), found 0"},
                {"bar.sync 0, 32, 1;", "7:2", "bar.sync takes 1 to 2 operands (a, b?), found 3"},
                {"shfl.sync.idx.b32 %r1, %r2, 0, 31;", "7:2", "shfl.sync.idx.b32 takes 5 operands (d|p, a, b, c, membermask), found 4"},
                {"atom.global.cas.b32 %r1, [%rd1], %r2;", "7:2", "atom.global.cas.b32 takes 4 to 5 operands ({d}, [a], b, c, cache-policy?), found 3"},
                {"atom.global.add.u32 %r1, [%rd1];", "7:2", "atom.global.add.u32 takes 3 to 4 operands ({d}, [a], {b}, cache-policy?), found 2"},
                {"lop3.b32 %r1, %r2, %r3, %r4;", "7:2", "lop3.b32 takes 5 operands (d, a, b, c, immLut), found 4"},
                {"min.s32 %r1, %r2, %r3, %r4;", "7:2", "min.s32 takes 3 operands (d, a, b), found 4"},
                {"prmt.b32 %r1, %r2, %r3;", "7:2", "prmt.b32 takes 4 operands (d, a, b, c), found 3"},
                {"dp4a.u32.u32 %r1, %r2, %r3;", "7:2", "dp4a.u32.u32 takes 4 operands (d, a, b, c), found 3"},
                {"cvt.pack.sat.u8.s32.b32 %r1, %r2;", "7:2", "cvt.pack.sat.u8.s32.b32 takes 3 to 4 operands (d, a, b, c?), found 2"},
                {"vote.sync.ballot.b32 %r1, %p1;", "7:2", "vote.sync.ballot.b32 takes 3 operands (d, a, membermask), found 2"},
                {"ret %r1;", "7:2", "ret takes 0 operands, found 1"},
                {"bra;", "7:2", "bra takes 1 operand (label), found 0"},
                {"bra 3;", "7:2", "operand 1 (label) of bra is an immediate, expected a register or name"},
                {"cvt.rn.f32.s32 %f1;", "7:2", "cvt.rn.f32.s32 takes 2 to 4 operands, found 1"},
                {"tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4};", "7:2", "tex.2d.v4.f32.f32 takes 2 to 6 operands, found 1"},
        };
        return Stream.of(cases).map(c -> DynamicTest.dynamicTest(c[0], () -> {
            List<Diagnostic> d = diagnose(c[0]);
            assertEquals(1, d.size(), d::toString);
            assertEquals("t.ptx:" + c[1] + ": error: " + c[2], d.getFirst().format());
        }));
    }
}
