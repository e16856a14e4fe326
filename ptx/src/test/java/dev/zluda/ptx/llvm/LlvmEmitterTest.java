package dev.zluda.ptx.llvm;

import dev.zluda.ptx.Diagnostic;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The lowering without LLVM's tools: what it accepts, and that what it refuses is reported at the PTX line. */
class LlvmEmitterTest {
    static String kernel(String body) {
        return ".version 8.0\n.target sm_80\n.address_size 64\n"
                + ".visible .entry k(.param .u64 p)\n{\n.reg .pred %p<4>;\n.reg .b32 %r<8>;\n.reg .f32 %f<8>;\n.reg .b64 %rd<4>;\n"
                + "ld.param.u64 %rd1, [p];\n" + body + "ret;\n}\n";
    }

    @Test
    void everySampleLowersForEveryRdnaTargetAndNvptx() throws IOException {
        for (Path f : AmdCodeObjectTest.samplePtx()) {
            for (LlvmTarget t : List.of(LlvmTarget.GFX1030, LlvmTarget.GFX1100, LlvmTarget.SM_90)) {
                PtxCompiler.Lowered l = PtxCompiler.lower(dev.zluda.ptx.Ptx.readPtx(f), f.toString(), t);
                assertTrue(l.ok(), f + " for " + t.cpu() + ": " + l.errors());
                assertTrue(l.ir().contains("target triple = \"" + t.triple() + "\""));
            }
        }
    }

    @Test
    void warpInstructionsAreRefusedForWave64WithTheirLine() {
        String ptx = kernel("mov.u32 %r1, %tid.x;\nshfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;\nst.global.u32 [%rd1], %r2;\n");
        PtxCompiler.Lowered l = PtxCompiler.lower(ptx, "w.ptx", LlvmTarget.GFX942);
        assertFalse(l.ok());
        Diagnostic d = l.errors().get(0);
        assertEquals(12, d.line(), d.format());      // the shfl: second line of the body
        assertTrue(d.message().contains("64-lane"), d.message());
        assertTrue(PtxCompiler.lower(ptx, "w.ptx", LlvmTarget.GFX1100).ok());
    }

    @Test
    void directedRoundingIsRefusedOnAmdAndLoweredForNvptx() {
        String ptx = kernel("mov.f32 %f1, 0f3F800000;\nadd.rz.f32 %f2, %f1, %f1;\nmov.b32 %r1, %f2;\nst.global.u32 [%rd1], %r1;\n");
        PtxCompiler.Lowered amd = PtxCompiler.lower(ptx, "r.ptx", LlvmTarget.GFX1100);
        assertFalse(amd.ok());
        assertEquals(12, amd.errors().get(0).line());
        assertTrue(amd.errors().get(0).message().contains("add.rz.f32"), amd.errors().get(0).message());
        PtxCompiler.Lowered nv = PtxCompiler.lower(ptx, "r.ptx", LlvmTarget.SM_90);
        assertTrue(nv.ok(), nv.errors().toString());
        assertTrue(nv.ir().contains("@llvm.nvvm.add.rz.f("), nv.ir());
    }

    @Test
    void unknownInstructionsAreReportedWithLineAndColumnAndAllAtOnce() {
        String ptx = kernel("mov.u32 %r1, 1;\n  brkpt;\nnanosleep.u32 %r1;\n");
        PtxCompiler.Lowered l = PtxCompiler.lower(ptx, "u.ptx", LlvmTarget.GFX1030);
        assertFalse(l.ok());
        assertEquals(2, l.errors().size(), l.errors().toString());
        assertEquals("u.ptx:12:3: error: brkpt is not supported by the LLVM back end", l.errors().get(0).format());
        assertEquals(13, l.errors().get(1).line());
    }

    @Test
    void undefinedLlvmCasesAreGuardedAsPtxDefinesThem() {
        // shifts past the width and division by zero are defined in PTX and poison in LLVM
        String ptx = kernel("mov.u32 %r1, 40;\nshl.b32 %r2, %r1, %r1;\ndiv.u32 %r3, %r1, %r2;\nst.global.u32 [%rd1], %r3;\n");
        PtxCompiler.Lowered l = PtxCompiler.lower(ptx, "s.ptx", LlvmTarget.GFX1100);
        assertTrue(l.ok(), l.errors().toString());
        assertTrue(l.ir().contains("icmp ugt i32"), "shift amount clamp expected");
        assertTrue(l.ir().contains("icmp eq i32") && l.ir().contains("select i1"), "division-by-zero guard expected");
    }

    /** nvcc's call sequence (PTX ISA 9.0 §9.7.12.3, the .param ABI): a .func with two .b32 parameters and a result. */
    static final String CALL = """
            .version 8.0
            .target sm_80
            .address_size 64
            .func (.param .b32 func_retval0) madd(.param .b32 a, .param .b32 b)
            {
            .reg .b32 %r<4>;
            ld.param.b32 %r1, [a];
            ld.param.b32 %r2, [b];
            mad.lo.s32 %r3, %r1, %r2, 1;
            st.param.b32 [func_retval0], %r3;
            ret;
            }
            .func twice(.param .b64 q, .param .align 4 .b8 pair[8])
            {
            .reg .b32 %r<4>;
            .reg .b64 %rd<2>;
            ld.param.b64 %rd1, [q];
            ld.param.b32 %r1, [pair];
            ld.param.b32 %r2, [pair+4];
            sub.s32 %r3, %r1, %r2;
            st.u32 [%rd1+4], %r3;
            ret;
            }
            .visible .entry k(.param .u64 p)
            {
            .reg .b32 %r<4>;
            .reg .b64 %rd<3>;
            ld.param.u64 %rd1, [p];
            cvta.to.global.u64 %rd2, %rd1;
            mov.u32 %r1, 3;
            {
            .param .b32 param0;
            st.param.b32 [param0], %r1;
            .param .b32 param1;
            st.param.b32 [param1], 4;
            .param .b32 retval0;
            call.uni (retval0), madd, (param0, param1);
            ld.param.b32 %r2, [retval0];
            }
            st.global.u32 [%rd2], %r2;
            {
            .param .b64 param0;
            st.param.b64 [param0], %rd2;
            .param .align 4 .b8 param1[8];
            st.param.b32 [param1], 50;
            st.param.b32 [param1+4], 8;
            call.uni twice, (param0, param1);
            }
            ret;
            }
            """;

    @Test
    void deviceFunctionsAndCallsLowerWithTheParamAbi() throws IOException, InterruptedException {
        for (LlvmTarget t : List.of(LlvmTarget.GFX1100, LlvmTarget.SM_90)) {
            PtxCompiler.Lowered l = PtxCompiler.lower(CALL, "c.ptx", t);
            assertTrue(l.ok(), t + ": " + l.errors());
            String sp = t.amd() ? "ptr addrspace(5)" : "ptr";
            assertTrue(l.ir().contains("define internal void @\"madd\"(" + sp + " noundef %\"func_retval0\", " + sp + " noundef %\"a\", " + sp
                    + " noundef %\"b\")"), l.ir());
            assertTrue(l.ir().contains("call void @\"madd\"("), l.ir());
            assertTrue(l.ir().contains("call void @\"twice\"("), l.ir());
        }
        // what the calls compute, seen through LLVM's optimizer: inlined and folded, 3 * 4 + 1 = 13 is stored at
        // p, and 50 - 8 = 42 at p + 4 (the values follow from the PTX alone)
        LlvmTools tools = LlvmTools.find();
        if (tools == null && System.getenv("ZLUDA_REQUIRE_LLVM") != null) throw new AssertionError(LlvmTools.missingMessage());
        org.junit.jupiter.api.Assumptions.assumeTrue(tools != null, LlvmTools.missingMessage());
        for (LlvmTarget t : List.of(LlvmTarget.GFX1100, LlvmTarget.SM_90)) {
            java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("zluda-call");
            java.nio.file.Path ll = dir.resolve("in.ll");
            java.nio.file.Files.writeString(ll, PtxCompiler.lower(CALL, "c.ptx", t).ir());
            Process p = new ProcessBuilder(tools.path("opt").toString(), "-O2", "-S", "-mtriple=" + t.triple(), "-mcpu=" + t.cpu(), ll.toString())
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            assertEquals(0, p.waitFor(), out);
            assertTrue(out.contains("store i32 13,"), t + ": " + out);
            assertTrue(out.contains("store i32 42,"), t + ": " + out);
            assertFalse(out.contains("call void @madd") || out.contains("call void @twice"), t + ": inlined");
            byte[] code = PtxCompiler.codegen(PtxCompiler.lower(CALL, "c.ptx", t), t, tools);
            assertTrue(code.length > 0);
        }
    }

    @Test
    void callsTheLoweringCannotServeAreRefusedWithTheirLine() {
        String ptx = ".version 8.0\n.target sm_80\n.address_size 64\n"
                + ".extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);\n"
                + ".visible .entry k()\n{\n.reg .b32 %r<2>;\n{\n.param .b64 p0;\n.param .b64 p1;\n.param .b32 r0;\n"
                + "call.uni (r0), vprintf, (p0, p1);\n}\nret;\n}\n";
        PtxCompiler.Lowered l = PtxCompiler.lower(ptx, "v.ptx", LlvmTarget.GFX1100);
        assertFalse(l.ok());
        assertEquals(12, l.errors().get(0).line(), l.errors().toString());
        assertTrue(l.errors().get(0).message().contains("vprintf, which this module does not define"), l.errors().toString());
    }
}
