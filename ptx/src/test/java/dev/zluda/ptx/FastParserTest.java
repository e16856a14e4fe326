package dev.zluda.ptx;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The hand-written fast path ({@link FastParser}) against the reference (ANTLR grammar +
 * {@link AstBuilder}): on every corpus file and on fuzz mutants of them, {@link Ptx#parse} with the
 * fast path gives the same module — positions included, compared through the records' text, in
 * which every {@code Loc} and {@code Sym} position appears — and the same diagnostics as
 * {@link Ptx#parseWithAntlrOnly}.
 */
class FastParserTest {
    private static void assertSame(String text, String what) {
        ParseResult ref = Ptx.parseWithAntlrOnly(text, "t");
        ParseResult fast = Ptx.parse(text, "t");
        assertEquals(ref.diagnostics(), fast.diagnostics(), () -> what + ": diagnostics differ");
        assertEquals(ref.module().toString(), fast.module().toString(), () -> what + ": module differs");
    }

    @TestFactory
    Stream<DynamicTest> corpusGivesTheSameModule() {
        return Corpus.files().stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(),
                () -> assertSame(Corpus.read(f), f.toString())));
    }

    /** Where it matters for speed, the fast path takes the whole text (else this test would pass vacuously). */
    @Test
    void fastPathTakesTheCommonCorpus() {
        int chunks = 0, accepted = 0;
        for (Path f : Corpus.files()) {
            int[] c = Ptx.fastPathCoverage(Corpus.read(f));
            chunks += c[0];
            accepted += c[1];
            String n = f.getFileName().toString();
            if (n.startsWith("double_math") || n.startsWith("vector_add.sm_90") || n.startsWith("reduction")) {
                assertEquals(c[0], c[1], n + ": the fast path gave up on a chunk");
            }
        }
        assertTrue(accepted * 10 >= chunks * 9, "fast path took only " + accepted + " of " + chunks + " chunks");
    }

    @Test
    void handPickedEdgesGiveTheSameModule() {
        String head = ".version 8.0\n.target sm_90\n.address_size 64\n";
        String[] bodies = {
                "call.uni (retval0), f, (param0, param1);",
                "call.uni (x), f, (p);",
                "mov.u32 %r1, (%r2);",
                "add.s32 %r1, (%r2) + 1, 2;",
                "setp.lt.s32 %p1|%p2, %r1, -5;",
                "@!%p1 bra $L__BB0_2;",
                "$L__BB0_2:\n ret;",
                "mov.b32 %r1, 0f3F800000;",
                "mov.b64 %rd1, 0d3FF0000000000000;",
                "mov.u64 %rd1, 0xFFFFFFFFFFFFFFFF;",
                "mov.u64 %rd1, 0x1FFFFFFFFFFFFFFFF;",
                "mov.u32 %r1, 0777;",
                "mov.u32 %r1, 0789;",
                "mov.u32 %r1, 0b1011U;",
                "mov.f32 %f1, 1.5e3;",
                "mov.f32 %f1, 1.5e;",
                "mov.u32 %r1, 1 ? 2 : 3 + 4 * 5 << 1 | 3 & 1 ^ 2 || 0 && 1 == 2 != 3 <= 4;",
                "mov.u32 %r1, - ~ ! %r2;",
                ".loc 1 2 3\n mov.u32 %r1, %r2;",
                ".loc 1 2 3, function_name $L__info_string0, inlined_at 1 4 5\n mov.u32 %r1, %r2;",
                ".loc 1 2 3, inlined_at 1 4 5\n$L__x:\n ret;",
                ".loc 1 2 3, inlined_at 1 4 -5\n ret;",
                ".reg .b32 %r<10>, %x[4][2], %y[] = {1, 2};",
                ".shared .align 4 .b8 buf[16] = {1, 2, {3}};",
                "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex, {%f5, %f6}];",
                "ld.global.nc.v4.u32 {%r1, _, %r3, %r4}, [%rd1+8];",
                "mov.u32 %r1, %tid.x;",
                "mov.u64 %rd1, generic(sym);",
                ".pragma \"nounroll\";",
                "{ .reg .b32 %q; mov.u32 %q, 1; }",
                "mov.u32 %r1, \"str\\\"x\";",
                "mov.u32 %r1, %r2 /* comment\n spanning */ ;",
                "// line comment\n ret;",
                "mov.u32 %r1, 99999999999999999999;",
                "mov.u32 %r1, 1.x;",
                "mov.u32 %r1 %r2;",
                "mov.u32 %r1, ;",
                ".callprototype (.param .b32 _) _ (.param .b32 _);",
                "bra.uni $L;\n$L:",
        };
        for (String b : bodies) {
            String text = head + ".visible .entry k(.param .u64 k_p0, .param .align 8 .b8 k_p1[16])\n.maxntid 256, 1, 1\n{\n" + b + "\n}\n";
            assertSame(text, b);
        }
        // the chunker's limits, at and past them
        for (int n : new int[] {127, 128, 129, 140}) {
            String body = "mov.u32 %r1, " + "(".repeat(n - 2) + "1" + ")".repeat(n - 2) + ";";
            assertSame(head + ".entry k()\n{\n" + body + "\n}\n", "nesting " + n);
        }
        for (int n : new int[] {998, 999, 1000, 1001, 1200}) {
            assertSame(head + ".entry k()\n{\n add.u32 %r1, " + "1+".repeat(n) + "1;\n}\n", n + " operators");
            assertSame(head + ".entry k()\n{\n add.u32 %r1, %r2" + "|%r3".repeat(n / 2) + ";\n}\n", n + " operators with registers");
        }
        assertSame(head + ".entry k()\n{\n ret;\n}\n.section .debug_str { $L__x:\n.b8 65,0 }\n.entry j()\n{\n ret;\n}\n", "a section between functions");
        assertSame(head + ".entry k()\n{\n ret;\n}\n.entry j()\n{\n ret\n}\n.entry i()\n{\n ret;\n}\n", "an error in the middle");
        assertSame(head + ".global .align 8 .u64 g[2] = {generic(a), generic(b)+8};\n.extern .func (.param .b32 r) f(.param .b32 x);\n", "decls");
        assertSame(head + ".file 1 \"a.cu\", 123, 456\n.file 2 \"b.cu\"\n.pragma \"x\", \"y\";\n", "file");
        assertSame(head + ".weak .func f() .noreturn;\n.func (.param .b32 r) g()\n{\n ret;\n}\n", "func");
    }

    @Test
    void mutantsGiveTheSameResult() {
        long seed = Long.getLong("zluda.fuzz.seed", 0xFA57L);
        long seconds = Long.getLong("zluda.fuzz.seconds", 6);
        Random rnd = new Random(seed);
        List<String> inputs = Corpus.fuzzInputs();
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        int iterations = 0;
        while (System.nanoTime() < deadline && iterations < 100_000) {
            String mutated = FuzzTest.mutate(inputs.get(rnd.nextInt(inputs.size())), rnd);
            iterations++;
            int it = iterations;
            try {
                assertSame(mutated, "mutant " + it + " (seed " + seed + ")");
            } catch (AssertionError e) {
                fail(e.getMessage() + "\n" + (mutated.length() > 3000 ? mutated.substring(0, 3000) : mutated), e);
            }
        }
        assertTrue(iterations > 50, "only " + iterations + " mutants");
    }
}
