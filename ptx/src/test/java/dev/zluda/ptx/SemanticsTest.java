package dev.zluda.ptx;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

class SemanticsTest {

    private static ModuleModel analyze(String ptx) {
        return Semantics.analyze(Ptx.parseOrThrow(ptx, "t.ptx"), "t.ptx");
    }

    private static final String HEADER = ".version 9.0\n.target sm_90\n.address_size 64\n";

    @TestFactory
    Stream<DynamicTest> corpusHasNoSemanticErrors() {
        return Corpus.files().stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> {
            ModuleModel m = Semantics.analyze(Ptx.parseOrThrow(Corpus.read(f), f.toString()), f.toString());
            assertEquals(List.of(), m.diagnostics());
            assertFalse(m.kernels().isEmpty(), "no kernel found");
        }));
    }

    /**
     * Forms ptxas accepts for sm_90 that the conformance sweep ran on an NVIDIA H200: membar/fence.proxy.alias (PTX
     * ISA 9.0, 9.7.13.4), a negated predicate as the source of mov.pred, a float loaded into a wider bit-size
     * register (6.4.1); both parsers agree. A float stored from a wider register stays an error (the H200's result
     * is neither the low half nor a conversion: docs/support.md).
     */
    @Test
    void formsPtxasAcceptsThatTheSweepRan() {
        String body = ".visible .entry k(.param .u64 a)\n{\n.reg .pred %p<3>;\n.reg .b64 %rd<3>;\n"
                + "ld.param.u64 %rd1, [a];\nmembar.proxy.alias;\nfence.proxy.alias;\nsetp.ne.u64 %p1, %rd1, 0;\nmov.pred %p2, !%p1;\n"
                + "ld.global.f32 %rd2, [%rd1];\nld.global.v2.f32 {%rd2, %rd1}, [%rd1];\nret;\n}\n";
        for (boolean fast : new boolean[] {true, false}) {
            ParseResult r = fast ? Ptx.parse(HEADER + body, "t.ptx") : Ptx.parseWithAntlrOnly(HEADER + body, "t.ptx");
            assertTrue(r.ok(), r.diagnostics().toString());
            assertEquals(List.of(), Semantics.analyze(r.module(), "t.ptx").diagnostics(), fast ? "fast parser" : "ANTLR parser");
        }
        ModuleModel st = analyze(HEADER + body.replace("ret;", "st.global.f32 [%rd1], %rd2;\nret;"));
        assertEquals(1, st.diagnostics().size(), st.diagnostics().toString());
        assertTrue(st.diagnostics().getFirst().message().contains("of st.global.f32 is a .b64 register"), st.diagnostics().toString());
    }

    /**
     * call_kernel(float *out, Pair p, Big big, char c, short s, long long l, double d, int select)
     * with struct Pair { char; double; } and struct Big { int a[5]; short s; }. Expected offsets and
     * sizes follow the C ABI the CUDA launch uses (each argument aligned like a struct field):
     * Pair is 16 bytes aligned 8, Big is 24 bytes aligned 4.
     */
    @Test
    void kernelParameterLayoutFollowsTheCudaAbi() {
        for (String arch : List.of("sm_75", "sm_86", "sm_90")) {
            var f = Corpus.dir().resolve("device_call." + arch + ".ptx");
            ModuleModel m = Semantics.analyze(Ptx.parseOrThrow(Corpus.read(f), f.toString()), f.toString());
            FunctionInfo k = m.function("call_kernel");
            assertNotNull(k);
            assertTrue(k.entry());
            long[][] expected = {   // offset, size, alignment
                    {0, 8, 8},      // float *out
                    {8, 16, 8},     // Pair p
                    {24, 24, 4},    // Big big
                    {48, 1, 1},     // char c
                    {50, 2, 2},     // short s
                    {56, 8, 8},     // long long l
                    {64, 8, 8},     // double d
                    {72, 4, 4},     // int select
            };
            assertEquals(expected.length, k.params().size());
            for (int i = 0; i < expected.length; i++) {
                ParamInfo p = k.params().get(i);
                assertEquals(i, p.index());
                assertArrayEquals(expected[i], new long[]{p.offset(), p.size(), p.alignment()}, "param " + i + " " + p.name());
            }
            assertEquals(76, k.paramSize());
        }
    }

    @Test
    void layoutOfHandWrittenParameters() {
        ModuleModel m = analyze(HEADER + """
                .visible .entry k(
                    .param .u8 a,
                    .param .align 16 .b8 b[20],
                    .param .u16 c,
                    .param .u64 .ptr .global .align 16 d,
                    .param .v2 .f32 e,
                    .param .align 2 .b8 f[3],
                    .param .f64 g
                )
                { ret; }
                """);
        assertEquals(List.of(), m.diagnostics());
        FunctionInfo k = m.function("k");
        long[][] expected = {
                {0, 1, 1},      // .u8
                {16, 20, 16},   // .align 16 .b8 [20]
                {36, 2, 2},     // .u16
                {40, 8, 8},     // .u64 .ptr: the .align 16 belongs to the pointee
                {48, 8, 8},     // .v2 .f32: vectors align to their total size
                {56, 3, 2},     // .align 2 .b8 [3]
                {64, 8, 8},     // .f64
        };
        for (int i = 0; i < expected.length; i++) {
            ParamInfo p = k.params().get(i);
            assertArrayEquals(expected[i], new long[]{p.offset(), p.size(), p.alignment()}, p.name());
        }
        assertEquals(72, k.paramSize());
        VariableInfo d = k.params().get(3).variable();
        assertTrue(d.pointer());
        assertEquals(".global", d.pointeeSpace());
        assertEquals(16, d.pointeeAlign());
    }

    @Test
    void registerRangesResolveInsideTheirBounds() {
        ModuleModel m = analyze(HEADER + """
                .visible .entry k()
                {
                    .reg .b32 %r<3>;
                    mov.u32 %r0, 1;
                    mov.u32 %r2, %r0;
                    mov.u32 %r3, 0;
                    mov.u32 %r02, 0;
                    ret;
                }
                """);
        assertEquals(2, m.diagnostics().size(), m.diagnostics().toString());
        Diagnostic d0 = m.diagnostics().get(0), d1 = m.diagnostics().get(1);
        assertEquals(9, d0.line());
        assertEquals(13, d0.column());
        assertTrue(d0.message().contains("undefined symbol '%r3'"), d0.message());
        assertEquals(10, d1.line());
        assertTrue(d1.message().contains("'%r02'"), d1.message());
        assertEquals(3, m.function("k").registers().get("%r").rangeCount());
    }

    @Test
    void blockScopesHideInnerDeclarations() {
        ModuleModel m = analyze(HEADER + """
                .visible .entry k()
                {
                    {
                        .reg .b32 inner;
                        mov.b32 inner, 1;
                    }
                    mov.b32 inner, 2;
                    ret;
                }
                """);
        assertEquals(1, m.diagnostics().size(), m.diagnostics().toString());
        assertEquals(10, m.diagnostics().getFirst().line());
    }

    @Test
    void labelsFunctionsAndGlobalsResolve() {
        ModuleModel m = analyze(HEADER + """
                .global .align 4 .u32 g[2] = {1, 2};
                .global .u64 p = generic(g);
                .func (.param .b32 r) f(.param .b32 x) { ret; }
                .visible .entry k()
                {
                    .reg .pred %p<2>;
                    .reg .b32 %r<2>;
                    .reg .b64 %rd<2>;
                    mov.u64 %rd0, g;
                    @%p0 bra LATER;
                    @!%p1 bra.uni nowhere;
                    {
                        .param .b32 a;
                        .param .b32 b;
                        call.uni (b), f, (a);
                        call.uni (b), missing_fn, (a);
                    }
                LATER:
                    ret;
                }
                """);
        List<String> msgs = m.diagnostics().stream().map(Diagnostic::format).toList();
        assertEquals(List.of("t.ptx:14:19: error: undefined symbol 'nowhere'",
                "t.ptx:19:23: error: undefined symbol 'missing_fn'"), msgs);
    }

    @Test
    void operandTypesAreCheckedWithRelaxedRules() {
        ModuleModel m = analyze(HEADER + """
                .visible .entry k(.param .u64 in)
                {
                    .reg .pred %p<2>;
                    .reg .b16 %rs<2>;
                    .reg .f32 %f<3>;
                    .reg .b32 %r<3>;
                    .reg .s32 %s<2>;
                    .reg .b64 %rd<3>;
                    .reg .f64 %fd<2>;
                    add.s32 %r0, %r1, %s1;
                    add.f32 %f0, %f1, %r2;
                    add.f32 %f0, %f1, %s1;
                    add.u32 %r0, %f1, %r2;
                    ld.param.u64 %rd0, [in];
                    ld.global.u8 %rs0, [%rd0];
                    ld.global.u8 %r0, [%rd0];
                    ld.global.f32 %fd0, [%rd0];
                    mul.wide.s32 %rd1, %r0, %r1;
                    mul.wide.s32 %r2, %r0, %r1;
                    setp.lt.s32 %p0, %r0, %r1;
                    setp.lt.s32 %r0, %r0, %r1;
                    selp.f32 %f0, %f1, %f2, %p1;
                    shl.b64 %rd2, %rd1, %r0;
                    @%r0 bra DONE;
                DONE:
                    ret;
                }
                """);
        List<Integer> lines = m.diagnostics().stream().map(Diagnostic::line).toList();
        // 15: .f32 add with .s32 register; 16: .u32 add with .f32 register;
        // 20: ld.f32 into .f64 (no widening for floats); 22: mul.wide.s32 into 32-bit register;
        // 24: setp destination not .pred; 27: guard not .pred
        assertEquals(List.of(15, 16, 20, 22, 24, 27), lines, m.diagnostics().toString());
    }

    @Test
    void declarationErrors() {
        ModuleModel m = analyze(HEADER + """
                .global .align 3 .u32 a;
                .global .u32 b;
                .global .f32 b;
                .global .b8 c[n];
                .visible .entry k(.reg .u32 x) { frobnicate.u32 x, x; ret; }
                """);
        List<String> msgs = m.diagnostics().stream().map(Diagnostic::message).toList();
        assertEquals(6, msgs.size(), msgs.toString());
        assertTrue(msgs.get(0).contains(".align must be a power of two"));
        assertTrue(msgs.get(1).contains("'b' is already declared at 5:14"));
        assertTrue(msgs.get(2).contains("not a non-negative integer constant"));
        assertTrue(msgs.get(3).contains("undefined symbol 'n'"));
        assertTrue(msgs.get(4).contains("kernel parameters must be in .param space"));
        assertTrue(msgs.get(5).contains("unknown instruction 'frobnicate'"));
    }

    @Test
    void modifiersAreCheckedForEnumeratedFamilies() {
        ModuleModel m = analyze(HEADER + """
                .visible .entry k()
                {
                    .reg .b32 %r<3>;
                    .reg .pred %p;
                    add.u32.sat.ftz %r0, %r1, %r2;
                    add.u32.wrap %r0, %r1, %r2;
                    setp.lt.and.u32 %p, %r1, %r2, %p;
                    setp.below.u32 %p, %r1, %r2;
                    ld.global.L2::whatever.u32 %r0, [%r1];
                    bra.uni.sometimes DONE;
                DONE:
                    ret;
                }
                """);
        // line 9 (.wrap), 11 (.below), 13 (.sometimes); ld's modifiers are not enumerated in the table
        List<String> msgs = m.diagnostics().stream().map(d -> d.line() + ": " + d.message()).toList();
        assertEquals(List.of("9: '.wrap' is not a modifier of add (PTX ISA 9.7.1)",
                "11: '.below' is not a modifier of setp (PTX ISA 9.7.6)",
                "13: '.sometimes' is not a modifier of bra (PTX ISA 9.7.12)"), msgs);
    }

    @Test
    void missingModuleDirectives() {
        ModuleModel m = Semantics.analyze(Ptx.parseOrThrow(".entry k() { ret; }", "x"), "x");
        assertEquals(2, m.diagnostics().size());
        assertEquals(32, m.addressSize());
    }

    @Test
    void directivesAreRecorded() {
        var f = Corpus.dir().resolve("reduction.sm_86.ptx");
        ModuleModel m = Semantics.analyze(Ptx.parseOrThrow(Corpus.read(f), f.toString()), f.toString());
        FunctionInfo k = m.kernels().stream().filter(x -> x.name().contains("scale_dynamic")).findFirst().orElseThrow();
        // __launch_bounds__(128, 2)
        assertEquals(List.of(128L), k.directives().get(".maxntid").subList(0, 1));
        assertEquals(List.of(2L), k.directives().get(".minnctapersm"));
        assertEquals(9, m.versionMajor());
        assertEquals(64, m.addressSize());
        assertEquals(List.of("sm_86"), m.targets());
    }
}
