package dev.zluda.ptx.llvm;

import dev.zluda.ptx.Diagnostic;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
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
                if (AmdCodeObjectTest.refusedAsExpected(f, l)) continue;
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
    void directedRoundingIsLoweredInPlainIrOnAmdAndWithIntrinsicsForNvptx() {
        String ptx = kernel("mov.f32 %f1, 0f3F800000;\nadd.rz.f32 %f2, %f1, %f1;\nsqrt.rp.f32 %f3, %f2;\nmov.b32 %r1, %f3;\nst.global.u32 [%rd1], %r1;\n");
        for (LlvmTarget t : List.of(LlvmTarget.GFX1030, LlvmTarget.GFX1100, LlvmTarget.GFX942, LlvmTarget.SM_90_AS_AMD)) {
            PtxCompiler.Lowered l = PtxCompiler.lower(ptx, "r.ptx", t);
            assertTrue(l.ok(), t + ": " + l.errors());
            assertFalse(l.ir().contains("llvm.nvvm"), t + ": " + l.ir());
        }
        PtxCompiler.Lowered nv = PtxCompiler.lower(ptx, "r.ptx", LlvmTarget.SM_90);
        assertTrue(nv.ok(), nv.errors().toString());
        assertTrue(nv.ir().contains("@llvm.nvvm.add.rz.f(") && nv.ir().contains("@llvm.nvvm.sqrt.rp.f("), nv.ir());
    }

    /**
     * Directed rounding of f32/f64 arithmetic (PTX ISA 9.0, 9.7.3: the exact result rounded once toward zero, -inf
     * or +inf), as in {@link #BIT_CASES}: %r1 %r2 %r4 hold f32 bits, %rd2 %rd3 f64 bits, %r3 receives the f32 result
     * or the f64 result's low word (high word where stated). The expected values are IEEE 754's, as an x86-64 CPU
     * computes them under {@code fesetround}.
     */
    static final String[][] DIRECTED_CASES = {
        // 1 + 2^-30: 1.0 toward zero, 1 + 2^-23 toward +inf; 1 + (-1) is -0 toward -inf, +0 toward zero
        {"add_rz_f32", "mov.b32 %r1, 0x3F800000;\nmov.b32 %r2, 0x30800000;\nadd.rz.f32 %r3, %r1, %r2;", "1065353216"},
        {"add_rp_f32", "mov.b32 %r1, 0x3F800000;\nmov.b32 %r2, 0x30800000;\nadd.rp.f32 %r3, %r1, %r2;", "1065353217"},
        {"add_rm_f32_zero", "mov.b32 %r1, 0x3F800000;\nmov.b32 %r2, 0xBF800000;\nadd.rm.f32 %r3, %r1, %r2;", "-2147483648"},
        {"sub_rz_f32_zero", "mov.b32 %r1, 0x3F800000;\nsub.rz.f32 %r3, %r1, %r1;", "0"},
        // MAX * 2 overflows: MAX toward zero, +inf toward +inf; -MAX * 2 is -inf toward -inf
        {"mul_rz_f32_ovf", "mov.b32 %r1, 0x7F7FFFFF;\nmov.b32 %r2, 0x40000000;\nmul.rz.f32 %r3, %r1, %r2;", "2139095039"},
        {"mul_rp_f32_ovf", "mov.b32 %r1, 0x7F7FFFFF;\nmov.b32 %r2, 0x40000000;\nmul.rp.f32 %r3, %r1, %r2;", "2139095040"},
        {"mul_rm_f32_ovf", "mov.b32 %r1, 0xFF7FFFFF;\nmov.b32 %r2, 0x40000000;\nmul.rm.f32 %r3, %r1, %r2;", "-8388608"},
        // 2^-149 * 0.5 = 2^-150 toward +inf: 2^-149; 2^-100 * 2^-30 = 2^-130, a subnormal, flushed with .ftz
        {"mul_rp_f32_sub", "mov.b32 %r1, 0x00000001;\nmov.b32 %r2, 0x3F000000;\nmul.rp.f32 %r3, %r1, %r2;", "1"},
        {"mul_rp_f32_sub2", "mov.b32 %r1, 0x0D800000;\nmov.b32 %r2, 0x30800000;\nmul.rp.f32 %r3, %r1, %r2;", "524288"},
        {"mul_rp_ftz_f32", "mov.b32 %r1, 0x0D800000;\nmov.b32 %r2, 0x30800000;\nmul.rp.ftz.f32 %r3, %r1, %r2;", "0"},
        // 1/3, rcp(3), sqrt(2)
        {"div_rz_f32", "mov.b32 %r1, 0x3F800000;\nmov.b32 %r2, 0x40400000;\ndiv.rz.f32 %r3, %r1, %r2;", "1051372202"},
        {"div_rp_f32", "mov.b32 %r1, 0x3F800000;\nmov.b32 %r2, 0x40400000;\ndiv.rp.f32 %r3, %r1, %r2;", "1051372203"},
        {"rcp_rm_f32", "mov.b32 %r1, 0x40400000;\nrcp.rm.f32 %r3, %r1;", "1051372202"},
        {"sqrt_rp_f32", "mov.b32 %r1, 0x40000000;\nsqrt.rp.f32 %r3, %r1;", "1068827892"},
        {"sqrt_rz_f32", "mov.b32 %r1, 0x40000000;\nsqrt.rz.f32 %r3, %r1;", "1068827891"},
        // 1 * 1 + 2^-60: 1 + 2^-23 toward +inf (rounding the sum to nearest double first would give 1.0);
        // 1 * 1 - 2^-60: 1 - 2^-24 toward -inf; 1 * 1 - 1: -0 toward -inf
        {"fma_rp_f32", "mov.b32 %r1, 0x3F800000;\nmov.b32 %r4, 0x21800000;\nfma.rp.f32 %r3, %r1, %r1, %r4;", "1065353217"},
        {"fma_rm_f32", "mov.b32 %r1, 0x3F800000;\nmov.b32 %r4, 0xA1800000;\nfma.rm.f32 %r3, %r1, %r1, %r4;", "1065353215"},
        {"fma_rm_f32_zero", "mov.b32 %r1, 0x3F800000;\nmov.b32 %r4, 0xBF800000;\nfma.rm.f32 %r3, %r1, %r1, %r4;", "-2147483648"},
        // f64: 1 + 2^-60 toward +inf and toward zero (low words 1, 0)
        {"add_rp_f64", "mov.b64 %rd2, 0x3FF0000000000000;\nmov.b64 %rd3, 0x3C30000000000000;\nadd.rp.f64 %rd3, %rd2, %rd3;\ncvt.u32.u64 %r3, %rd3;", "1"},
        {"add_rz_f64", "mov.b64 %rd2, 0x3FF0000000000000;\nmov.b64 %rd3, 0x3C30000000000000;\nadd.rz.f64 %rd3, %rd2, %rd3;\ncvt.u32.u64 %r3, %rd3;", "0"},
        // 1 * 1 + 2^-200 toward +inf: 1 + 2^-52; 1 * 1 - 2^-200 toward -inf: 1 - 2^-53 (low word all ones)
        {"fma_rp_f64", "mov.b64 %rd2, 0x3FF0000000000000;\nmov.b64 %rd3, 0x3370000000000000;\nfma.rp.f64 %rd3, %rd2, %rd2, %rd3;\ncvt.u32.u64 %r3, %rd3;", "1"},
        {"fma_rm_f64", "mov.b64 %rd2, 0x3FF0000000000000;\nmov.b64 %rd3, 0xB370000000000000;\nfma.rm.f64 %rd3, %rd2, %rd2, %rd3;\ncvt.u32.u64 %r3, %rd3;", "-1"},
        // a product past the f64 range less MAX: (2^512 (1 + 2^-52))^2 - MAX = 2^973 + 2^971 + 2^920, one ulp up toward +inf
        {"fma_rp_f64_huge", "mov.b64 %rd2, 0x5FF0000000000001;\nmov.b64 %rd3, 0xFFEFFFFFFFFFFFFF;\nfma.rp.f64 %rd3, %rd2, %rd2, %rd3;\ncvt.u32.u64 %r3, %rd3;", "1"},
        {"fma_rz_f64_huge", "mov.b64 %rd2, 0x5FF0000000000001;\nmov.b64 %rd3, 0xFFEFFFFFFFFFFFFF;\nfma.rz.f64 %rd3, %rd2, %rd2, %rd3;\ncvt.u32.u64 %r3, %rd3;", "0"},
        // 2^-1074 * 0.5 + 0 = 2^-1075: 2^-1074 toward +inf, 0 toward zero
        {"fma_rp_f64_tiny", "mov.b64 %rd2, 1;\nmov.b64 %rd3, 0x3FE0000000000000;\nfma.rp.f64 %rd3, %rd2, %rd3, 0d0000000000000000;\ncvt.u32.u64 %r3, %rd3;", "1"},
        {"fma_rz_f64_tiny", "mov.b64 %rd2, 1;\nmov.b64 %rd3, 0x3FE0000000000000;\nfma.rz.f64 %rd3, %rd2, %rd3, 0d0000000000000000;\ncvt.u32.u64 %r3, %rd3;", "0"},
        {"div_rz_f64", "mov.b64 %rd2, 0x3FF0000000000000;\nmov.b64 %rd3, 0x4008000000000000;\ndiv.rz.f64 %rd3, %rd2, %rd3;\ncvt.u32.u64 %r3, %rd3;", "1431655765"},
        {"div_rp_f64", "mov.b64 %rd2, 0x3FF0000000000000;\nmov.b64 %rd3, 0x4008000000000000;\ndiv.rp.f64 %rd3, %rd2, %rd3;\ncvt.u32.u64 %r3, %rd3;", "1431655766"},
        {"sqrt_rp_f64", "mov.b64 %rd2, 0x4000000000000000;\nsqrt.rp.f64 %rd3, %rd2;\ncvt.u32.u64 %r3, %rd3;", "1719614413"},
        {"sqrt_rz_f64", "mov.b64 %rd2, 0x4000000000000000;\nsqrt.rz.f64 %rd3, %rd2;\ncvt.u32.u64 %r3, %rd3;", "1719614412"},
        // MAX * 2: high word 0x7ff00000 (+inf) toward +inf, 0x7fefffff (MAX) toward zero
        {"mul_rp_f64_ovf", "mov.b64 %rd2, 0x7FEFFFFFFFFFFFFF;\nmov.b64 %rd3, 0x4000000000000000;\nmul.rp.f64 %rd3, %rd2, %rd3;\nshr.u64 %rd3, %rd3, 32;\ncvt.u32.u64 %r3, %rd3;", "2146435072"},
        {"mul_rz_f64_ovf", "mov.b64 %rd2, 0x7FEFFFFFFFFFFFFF;\nmov.b64 %rd3, 0x4000000000000000;\nmul.rz.f64 %rd3, %rd2, %rd3;\nshr.u64 %rd3, %rd3, 32;\ncvt.u32.u64 %r3, %rd3;", "2146435071"},
    };

    @Test
    void directedRoundingComputesWhatThePtxIsaDefines() throws IOException, InterruptedException {
        foldsTo(DIRECTED_CASES, "zluda-round", List.of(LlvmTarget.GFX1100, LlvmTarget.SM_90_AS_AMD));
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

    /**
     * Bit-field, byte-permute, dot-product and select instructions, each in a kernel of its own with constant
     * operands; LLVM's optimizer folds each to the value the PTX ISA (9.0) defines, which the kernel stores.
     * {name, PTX computing %r3 from %r1 %r2 %r4 %r5, expected value as a signed i32}
     */
    static final String[][] BIT_CASES = {
        // bfe: bits [4, 12) of 0xF0F0F0F0, zero-extended
        {"bfe_u32", "mov.b32 %r1, 0xF0F0F0F0;\nbfe.u32 %r3, %r1, 4, 8;", "15"},
        // signed: bits [0, 8) = 0xF0, sign bit 1
        {"bfe_s32", "mov.b32 %r1, 0xF0F0F0F0;\nbfe.s32 %r3, %r1, 0, 8;", "-16"},
        // position past the msb: filled with the sign bit (bit 31)
        {"bfe_s32_past", "mov.b32 %r1, 0x80000000;\nmov.b32 %r2, 40;\nbfe.s32 %r3, %r1, %r2, 4;", "-1"},
        // bfi: 0xA into bits [4, 8) of 0xFFFF0000 = 0xFFFF00A0
        {"bfi", "mov.b32 %r1, 0xA;\nmov.b32 %r2, 0xFFFF0000;\nbfi.b32 %r3, %r1, %r2, 4, 4;", Integer.toString(0xFFFF00A0)},
        // bfind: highest set bit of 0x10000 is 16; .shiftamt 15; no non-sign bit in -1
        {"bfind_u32", "mov.b32 %r1, 0x10000;\nbfind.u32 %r3, %r1;", "16"},
        {"bfind_shiftamt", "mov.b32 %r1, 0x10000;\nbfind.shiftamt.u32 %r3, %r1;", "15"},
        {"bfind_s32_none", "mov.b32 %r1, -1;\nbfind.s32 %r3, %r1;", "-1"},
        // prmt on b:a = 0x88776655:44332211: selectors 4,3,2,1 -> 0x22334455
        {"prmt", "mov.b32 %r1, 0x44332211;\nmov.b32 %r2, 0x88776655;\nprmt.b32 %r3, %r1, %r2, 0x1234;", Integer.toString(0x22334455)},
        // selector 0xC: byte 4 (0x55) with its sign (0) replicated; the rest byte 0
        {"prmt_sign", "mov.b32 %r1, 0x44332211;\nmov.b32 %r2, 0x88776655;\nprmt.b32 %r3, %r1, %r2, 0x000C;", Integer.toString(0x11111100)},
        // .b4e with c = 0: bytes 5 6 7 0 (d.b3 .. d.b0)
        {"prmt_b4e", "mov.b32 %r1, 0x44332211;\nmov.b32 %r2, 0x88776655;\nprmt.b32.b4e %r3, %r1, %r2, 0;", Integer.toString(0x66778811)},
        // shf: .clamp shifts 1:0x80000000 left by min(40, 32), keeping the high word
        {"shf_l_clamp", "mov.b32 %r1, 0x80000000;\nmov.b32 %r2, 1;\nshf.l.clamp.b32 %r3, %r1, %r2, 40;", Integer.toString(0x80000000)},
        // .wrap shifts 1:0 right by 36 mod 32 = 4
        {"shf_r_wrap", "mov.b32 %r1, 0;\nmov.b32 %r2, 1;\nshf.r.wrap.b32 %r3, %r1, %r2, 36;", Integer.toString(0x10000000)},
        // bmsk: 8 bits from bit 4; .wrap takes 36 as 4
        {"bmsk_clamp", "mov.b32 %r1, 4;\nbmsk.clamp.b32 %r3, %r1, 8;", "4080"},
        {"bmsk_wrap", "mov.b32 %r1, 4;\nbmsk.wrap.b32 %r3, %r1, 36;", "240"},
        // szext: the low 8 bits of 0xFF sign-extended; .wrap takes 40 as 8
        {"szext_s32", "mov.b32 %r1, 0xFF;\nszext.clamp.s32 %r3, %r1, 8;", "-1"},
        {"szext_u32", "mov.b32 %r1, 0x1FF;\nszext.wrap.u32 %r3, %r1, 40;", "255"},
        // fns: mask 0b10110: the 2nd set bit from bit 0 up is bit 2; the 1st from bit 3 down is bit 2
        {"fns_up", "mov.b32 %r1, 22;\nfns.b32 %r3, %r1, 0, 2;", "2"},
        {"fns_down", "mov.b32 %r1, 22;\nfns.b32 %r3, %r1, 3, -1;", "2"},
        // dp4a: bytes (4,3,2,1) unsigned . (-1,2,1,-1) signed + 100 = 103
        {"dp4a", "mov.b32 %r1, 0x01020304;\nmov.b32 %r2, 0xFF0102FF;\ndp4a.u32.s32 %r3, %r1, %r2, 100;", "103"},
        // dp2a.hi: halves (2, -1) signed . bytes 2,3 (4, 3) unsigned = 5
        {"dp2a_hi", "mov.b32 %r1, 0xFFFF0002;\nmov.b32 %r2, 0x03040000;\ndp2a.hi.s32.u32 %r3, %r1, %r2, 0;", "5"},
        // slct: c = -0.0 >= 0 selects a; a NaN c selects b
        {"slct_negzero", "mov.b32 %r1, 1;\nmov.b32 %r2, 2;\nmov.b32 %r4, 0x80000000;\nslct.b32.f32 %r3, %r1, %r2, %r4;", "1"},
        {"slct_nan", "mov.b32 %r1, 1;\nmov.b32 %r2, 2;\nmov.b32 %r4, 0x7FC00000;\nslct.b32.f32 %r3, %r1, %r2, %r4;", "2"},
        // min.relu: min(-5, 3) = -5, clamped to 0; max.u16x2 per half
        {"min_relu", "mov.b32 %r1, -5;\nmin.relu.s32 %r3, %r1, 3;", "0"},
        {"max_u16x2", "mov.b32 %r1, 0x0001FFFF;\nmov.b32 %r2, 0xFFFF0002;\nmax.u16x2 %r3, %r1, %r2;", "-1"},
        {"max_s16x2", "mov.b32 %r1, 0x0001FFFF;\nmov.b32 %r2, 0xFFFF0002;\nmax.s16x2 %r3, %r1, %r2;", Integer.toString(0x00010002)},
    };

    /**
     * The lowerings fixed after the exhaustive sweep, as in {@link #BIT_CASES} with the values an H200 computed there
     * (zluda-runtime conformance/sweep, llvm-differ.txt of the first recording: native outputs): CC.CF is the carry of
     * {@code a + ~b + 1} after {@code sub.cc} and {@code subc} adds {@code ~b + CF}; set with a half destination writes
     * 1.0 of its type; set.ftz compares a subnormal half as zero; cvt.ftz.f32.bf16 of a NaN is 0x7FFFFFFF, and a
     * directed cvt.ftz.bf16.f32 flushes a subnormal source to zero of its sign.
     */
    static final String[][] SWEEP_FIXED_CASES = {
        // add.cc 0 + 0: CF = 0; subc 0 - 0 is 0 + ~0 + 0 = 0xffffffff (the H200's subc.u32 %r11, 0, 0 after it)
        {"subc_after_add", "add.cc.u32 %r1, 0, 0;\nsubc.u32 %r3, 0, 0;", "-1"},
        // sub.cc 0 - 0 is 0 + ~0 + 1: carry out 1; addc 0 + 0 + CF = 1
        {"addc_after_sub", "sub.cc.u32 %r1, 0, 0;\naddc.u32 %r3, 0, 0;", "1"},
        // sub.cc 0 - 1 borrows: CF = 0; subc.cc 0 - 0 - borrow = 0xffffffff, CF = 0 again; addc 0xffffffff + 0 + CF
        {"sub_chain", "mov.b32 %r1, 1;\nsub.cc.u32 %r2, 0, %r1;\nsubc.cc.u32 %r4, 0, 0;\naddc.u32 %r3, %r4, 0;", "-1"},
        {"set_f16_dest", "mov.b32 %r1, 1;\nset.lt.f16.s32 %h3, %r1, 2;\ncvt.u32.u16 %r3, %h3;", "15360"},
        {"set_bf16_dest", "mov.b32 %r1, 1;\nset.lt.bf16.s32 %h3, %r1, 2;\ncvt.u32.u16 %r3, %h3;", "16256"},
        {"set_ftz_f16", "mov.b16 %h1, 0x0001;\nmov.b16 %h2, 0x0000;\nset.eq.ftz.u32.f16 %r3, %h1, %h2;", "-1"},
        {"cvt_ftz_f32_bf16_nan", "mov.b16 %h1, 0x7F81;\ncvt.ftz.f32.bf16 %r3, %h1;", "2147483647"},
        // 0x80400000 (a negative f32 subnormal) to bf16 toward zero: -0 (0x8000)
        {"cvt_rz_ftz_bf16_f32", "mov.b32 %r1, 0x80400000;\ncvt.rz.ftz.bf16.f32 %h3, %r1;\ncvt.u32.u16 %r3, %h3;", "32768"},
    };

    @Test
    void loweringsFixedAfterTheSweepFoldToTheH200sValues() throws IOException, InterruptedException {
        foldsTo(SWEEP_FIXED_CASES, "zluda-sweep-fixed");
    }

    /** Forms of {@link LlvmForms} are refused with the instruction and its line, for their targets only. */
    @Test
    void formsTheSweepFoundWrongAreRefusedWithTheirLine() {
        String local = kernel("mov.u32 %r1, 7;\nst.local.u32 [%rd1], %r1;\n");
        for (LlvmTarget t : List.of(LlvmTarget.GFX1100, LlvmTarget.GFX942, LlvmTarget.SM_90)) {
            PtxCompiler.Lowered l = PtxCompiler.lower(local, "l.ptx", t);
            assertFalse(l.ok(), t.cpu());
            assertEquals(12, l.errors().get(0).line(), l.errors().toString());
            assertTrue(l.errors().get(0).message().startsWith("instruction 'st.local.u32' is not supported by the LLVM back end for " + t.cpu()), l.errors().toString());
            assertTrue(PtxCompiler.lower(local, "l.ptx", t, false).ok(), t.cpu());
        }
        // refused as lowered for AMD (the AMD sequence rounds at the subnormal boundary unlike the H200), not for sm_90
        String fma = kernel("mov.b32 %f1, 0f3F800000;\nfma.rp.ftz.f32 %f2, %f1, %f1, %f1;\nmov.b32 %r1, %f2;\nst.global.u32 [%rd1], %r1;\n");
        assertTrue(PtxCompiler.lower(fma, "f.ptx", LlvmTarget.SM_90).ok());
        for (LlvmTarget t : List.of(LlvmTarget.GFX1030, LlvmTarget.SM_90_AS_AMD)) {
            PtxCompiler.Lowered l = PtxCompiler.lower(fma, "f.ptx", t);
            assertFalse(l.ok(), t.toString());
            assertEquals(12, l.errors().get(0).line(), l.errors().toString());
            assertTrue(l.errors().get(0).message().contains("'fma.rp.ftz.f32'"), l.errors().toString());
        }
        assertEquals("amd", LlvmForms.list().get("fma.rp.ftz.f32").targets());
        assertEquals("all", LlvmForms.list().get("ld.local.u32").targets());
        assertNull(LlvmForms.list().get("add.cc.u32"));
    }

    /**
     * Half-precision forms with .ftz, .sat, .relu and .xorsign.abs (PTX ISA 9.0, 9.7.4), as in {@link #BIT_CASES}:
     * %h1..%h3 are .b16 registers, %r3 receives the result (zero-extended for scalars).
     */
    static final String[][] HALF_CASES = {
        // 1.0 + 1.0 = 2.0, clamped to 1.0 (0x3c00); a NaN operand gives +0
        {"add_sat_f16", "mov.b16 %h1, 0x3C00;\nadd.sat.f16 %h3, %h1, %h1;\ncvt.u32.u16 %r3, %h3;", "15360"},
        {"add_sat_nan", "mov.b16 %h1, 0x7E01;\nmov.b16 %h2, 0x3C00;\nadd.sat.f16 %h3, %h1, %h2;\ncvt.u32.u16 %r3, %h3;", "0"},
        // (2^-14 + 2^-24) - 2^-14 = 2^-24, a subnormal: flushed to +0
        {"sub_ftz_f16", "mov.b16 %h1, 0x0401;\nmov.b16 %h2, 0x0400;\nsub.ftz.f16 %h3, %h1, %h2;\ncvt.u32.u16 %r3, %h3;", "0"},
        // (1 - 2^-11) * 2^-14 = 2^-14 - 2^-25 rounds to the smallest normal 0x0400, but is below it before rounding: +0
        {"mul_ftz_f16_tiny", "mov.b16 %h1, 0x3BFF;\nmov.b16 %h2, 0x0400;\nmul.ftz.f16 %h3, %h1, %h2;\ncvt.u32.u16 %r3, %h3;", "0"},
        {"mul_f16_tiny", "mov.b16 %h1, 0x3BFF;\nmov.b16 %h2, 0x0400;\nmul.rn.f16 %h3, %h1, %h2;\ncvt.u32.u16 %r3, %h3;", "1024"},
        // neg.ftz of the subnormal 2^-24: -0 (0x8000)
        {"neg_ftz_f16", "mov.b16 %h1, 0x0001;\nneg.ftz.f16 %h3, %h1;\ncvt.u32.u16 %r3, %h3;", "32768"},
        // fma.relu: 1 * -1 + 0 = -1, clamped to +0; a NaN result is the canonical NaN 0x7fff
        {"fma_relu_bf16", "mov.b16 %h1, 0x3F80;\nmov.b16 %h2, 0xBF80;\nmov.b16 %h4, 0;\nfma.rn.relu.bf16 %h3, %h1, %h2, %h4;\ncvt.u32.u16 %r3, %h3;", "0"},
        {"fma_relu_nan", "mov.b16 %h1, 0x7E01;\nmov.b16 %h2, 0x3C00;\nmov.b16 %h4, 0;\nfma.rn.relu.f16 %h3, %h1, %h2, %h4;\ncvt.u32.u16 %r3, %h3;", "32767"},
        // min.xorsign.abs(-2, 3) = -2 (0xc000); .x2: max(|2|,|-3|) with sign 1 = -3 (low), max(|-2|,|-3|) sign 0 = 3 (high)
        {"min_xorsign_f16", "mov.b16 %h1, 0xC000;\nmov.b16 %h2, 0x4200;\nmin.xorsign.abs.f16 %h3, %h1, %h2;\ncvt.u32.u16 %r3, %h3;", "49152"},
        {"max_xorsign_f16x2", "mov.b32 %r1, 0xC0004000;\nmov.b32 %r2, 0xC200C200;\nmax.xorsign.abs.f16x2 %r3, %r1, %r2;", Integer.toString(0x4200C200)},
    };

    /**
     * cvt with .relu, .satfinite, .pack and .rna to tf32 (PTX ISA 9.0, 9.7.9.21 and 9.7.9.22), as in
     * {@link #BIT_CASES}: %r1 %r2 hold f32 bits or s32 values, %h3 a 16-bit result zero-extended into %r3.
     */
    static final String[][] CVT_CASES = {
        // .relu: -1.5 gives +0; a NaN gives the canonical NaN 0x7fff
        {"cvt_relu_f16", "mov.b32 %r1, 0xBFC00000;\ncvt.rn.relu.f16.f32 %h3, %r1;\ncvt.u32.u16 %r3, %h3;", "0"},
        {"cvt_relu_f16_nan", "mov.b32 %r1, 0x7FC00001;\ncvt.rn.relu.f16.f32 %h3, %r1;\ncvt.u32.u16 %r3, %h3;", "32767"},
        // .satfinite: 1e6 is past f16's largest finite value 65504 (0x7bff); -inf gives -65504 (0xfbff)
        {"cvt_satfinite_f16", "mov.b32 %r1, 0x49742400;\ncvt.rn.satfinite.f16.f32 %h3, %r1;\ncvt.u32.u16 %r3, %h3;", "31743"},
        {"cvt_satfinite_f16_ninf", "mov.b32 %r1, 0xFF800000;\ncvt.rn.satfinite.f16.f32 %h3, %r1;\ncvt.u32.u16 %r3, %h3;", "64511"},
        // bf16's largest finite value is 0x7f7f
        {"cvt_satfinite_bf16_inf", "mov.b32 %r1, 0x7F800000;\ncvt.rn.satfinite.bf16.f32 %h3, %r1;\ncvt.u32.u16 %r3, %h3;", "32639"},
        // pairs: a (1.0) to the upper half, b (-2.0) to the lower; .relu clamps -1.0 to +0, keeps 3.0 (0x4040)
        {"cvt_f16x2", "mov.b32 %r1, 0x3F800000;\nmov.b32 %r2, 0xC0000000;\ncvt.rn.f16x2.f32 %r3, %r1, %r2;", Integer.toString(0x3C00C000)},
        {"cvt_relu_bf16x2", "mov.b32 %r1, 0xBF800000;\nmov.b32 %r2, 0x40400000;\ncvt.rn.relu.bf16x2.f32 %r3, %r1, %r2;", "16448"},
        // cvt.pack: 300 -> 255, -5 -> 0 (u8), c's low half 0x1234 on top; -40000 -> -32768, 40000 -> 32767 (s16)
        {"cvt_pack_u8", "mov.b32 %r1, 300;\nmov.b32 %r2, -5;\nmov.b32 %r4, 0xABCD1234;\ncvt.pack.sat.u8.s32.b32 %r3, %r1, %r2, %r4;", Integer.toString(0x1234FF00)},
        {"cvt_pack_s16", "mov.b32 %r1, -40000;\nmov.b32 %r2, 40000;\ncvt.pack.sat.s16.s32 %r3, %r1, %r2;", Integer.toString(0x80007FFF)},
        // tf32 .rna: 1 + 2^-11 is half a tf32 ulp above 1.0, rounded away from zero to 1 + 2^-10 (0x3f802000)
        {"cvt_rna_tf32", "mov.b32 %r1, 0x3F801000;\ncvt.rna.tf32.f32 %r3, %r1;", Integer.toString(0x3F802000)},
        // .satfinite: a value that rounds past the largest finite tf32 gives it, 0x7f7fe000
        {"cvt_rna_satfinite_tf32", "mov.b32 %r1, 0x7F7FF000;\ncvt.rna.satfinite.tf32.f32 %r3, %r1;", Integer.toString(0x7F7FE000)},
    };

    /**
     * The fp8 cvt forms and those between bf16 and 64-bit integers (PTX ISA 9.0, 9.7.9.21; e4m3: bias 7, largest finite 448 = 0x7e, no infinities, NaN 0x7f;
     * e5m2: bias 15, largest finite 57344 = 0x7b), as in {@link #BIT_CASES}; a goes to the upper byte or half.
     */
    static final String[][] FP8_CASES = {
        // 448.0 -> 0x7e, 1.0 -> 0x38; .satfinite: 1e6 -> 0x7e, -inf -> 0xfe
        {"cvt_e4m3x2", "mov.b32 %r1, 0x43E00000;\nmov.b32 %r2, 0x3F800000;\ncvt.rn.satfinite.e4m3x2.f32 %h3, %r1, %r2;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0x7E38)},
        {"cvt_e4m3x2_sat", "mov.b32 %r1, 0x49742400;\nmov.b32 %r2, 0xFF800000;\ncvt.rn.satfinite.e4m3x2.f32 %h3, %r1, %r2;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0x7EFE)},
        // subnormals (quantum 2^-9): 1.5 * 2^-9 is a tie, to even 2 * 2^-9 (0x02); 2^-9 -> 0x01
        {"cvt_e4m3x2_sub", "mov.b32 %r1, 0x3B400000;\nmov.b32 %r2, 0x3B000000;\ncvt.rn.satfinite.e4m3x2.f32 %h3, %r1, %r2;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0x0201)},
        // e5m2 .relu: -1.0 -> +0, 1.5 -> 0x3e; a NaN -> 0x7f, 1e6 -> 0x7b
        {"cvt_relu_e5m2x2", "mov.b32 %r1, 0xBF800000;\nmov.b32 %r2, 0x3FC00000;\ncvt.rn.satfinite.relu.e5m2x2.f32 %h3, %r1, %r2;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0x003E)},
        {"cvt_e5m2x2_nan", "mov.b32 %r1, 0x7FC00000;\nmov.b32 %r2, 0x49742400;\ncvt.rn.satfinite.e5m2x2.f32 %h3, %r1, %r2;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0x7F7B)},
        // from f16x2: 1.0 -> 0x38, -2.0 -> 0xc0
        {"cvt_e4m3x2_f16x2", "mov.b32 %r1, 0x3C00C000;\ncvt.rn.satfinite.e4m3x2.f16x2 %h3, %r1;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0x38C0)},
        // to f16x2: e4m3 0x7f is NaN (0x7fff), 0x01 is 2^-9 (0x1800); e5m2 .relu: 0xbc (-1.0) -> +0, 0x3c -> 0x3c00
        {"cvt_f16x2_e4m3x2", "mov.b16 %h1, 0x7F01;\ncvt.rn.f16x2.e4m3x2 %r3, %h1;", Integer.toString(0x7FFF1800)},
        {"cvt_relu_f16x2_e5m2x2", "mov.b16 %h1, 0xBC3C;\ncvt.rn.relu.f16x2.e5m2x2 %r3, %h1;", Integer.toString(0x3C00)},
        // 64-bit integers to bf16 (8 significant bits): 385 is a tie between 384 (0x43c0) and 386 (0x43c1), to even
        // with .rn; 387 a tie to 388 (0x43c2); .rp 385 -> 386, .rm -385 -> -386 (0xc3c1); 2^64 - 1 rounds to 2^64 (0x5f80)
        {"cvt_rn_bf16_s64", "mov.b64 %rd2, 385;\ncvt.rn.bf16.s64 %h3, %rd2;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0x43C0)},
        {"cvt_rn_bf16_s64_odd", "mov.b64 %rd2, 387;\ncvt.rn.bf16.s64 %h3, %rd2;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0x43C2)},
        {"cvt_rp_bf16_u64", "mov.b64 %rd2, 385;\ncvt.rp.bf16.u64 %h3, %rd2;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0x43C1)},
        {"cvt_rm_bf16_s64", "mov.b64 %rd2, -385;\ncvt.rm.bf16.s64 %h3, %rd2;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0xC3C1)},
        {"cvt_rz_bf16_s64", "mov.b64 %rd2, -385;\ncvt.rz.bf16.s64 %h3, %rd2;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0xC3C0)},
        {"cvt_rn_bf16_u64_max", "mov.b64 %rd2, -1;\ncvt.rn.bf16.u64 %h3, %rd2;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0x5F80)},
        // bf16 to 64-bit integers: -2.5 (0xc020) -> -2 (.rzi), -3 (.rmi); 2.5 (0x4020) -> 3 (.rpi), 2 (.rni)
        {"cvt_rzi_s64_bf16", "mov.b16 %h1, 0xC020;\ncvt.rzi.s64.bf16 %rd2, %h1;\ncvt.u32.u64 %r3, %rd2;", "-2"},
        {"cvt_rmi_s64_bf16", "mov.b16 %h1, 0xC020;\ncvt.rmi.s64.bf16 %rd2, %h1;\ncvt.u32.u64 %r3, %rd2;", "-3"},
        {"cvt_rpi_u64_bf16", "mov.b16 %h1, 0x4020;\ncvt.rpi.u64.bf16 %rd2, %h1;\ncvt.u32.u64 %r3, %rd2;", "3"},
        {"cvt_rni_u64_bf16", "mov.b16 %h1, 0x4020;\ncvt.rni.u64.bf16 %rd2, %h1;\ncvt.u32.u64 %r3, %rd2;", "2"},
    };

    /**
     * Directed-rounding cvt to f16/bf16/f16x2/bf16x2 and tf32 .rn/.rz (PTX ISA 9.0, 9.7.9.21; IEEE 754 rounding: f16 has
     * 11 significant bits, largest finite 65504 = 0x7bff, smallest subnormal 2^-24 = 0x0001), as in {@link #BIT_CASES}.
     */
    static final String[][] ROUNDING_CASES = {
        // 2049 lies between 2048 (0x6800) and 2050 (0x6801): .rz and .rm down, .rp up; -2049 .rm to -2050 (0xe801)
        {"cvt_rz_f16_u32", "mov.b32 %r1, 2049;\ncvt.rz.f16.u32 %h3, %r1;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0x6800)},
        {"cvt_rp_f16_s16", "mov.b16 %h1, 2049;\ncvt.rp.f16.s16 %h3, %h1;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0x6801)},
        {"cvt_rm_f16_s64", "mov.b64 %rd2, -2049;\ncvt.rm.f16.s64 %h3, %rd2;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0xE801)},
        // past 65504: .rz gives 65504, .rp infinity (0x7c00); .rm of a negative one -infinity (0xfc00), .rp -65504 (0xfbff)
        {"cvt_rz_f16_u64_big", "mov.b64 %rd2, -1;\ncvt.rz.f16.u64 %h3, %rd2;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0x7BFF)},
        {"cvt_rp_f16_u32_big", "mov.b32 %r1, 65505;\ncvt.rp.f16.u32 %h3, %r1;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0x7C00)},
        {"cvt_rm_f16_s32_big", "mov.b32 %r1, -65505;\ncvt.rm.f16.s32 %h3, %r1;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0xFC00)},
        {"cvt_rp_f16_s32_big", "mov.b32 %r1, -65505;\ncvt.rp.f16.s32 %h3, %r1;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0xFBFF)},
        // f32 1 + 2^-11 (0x3f801000) between 1.0 (0x3c00) and 1 + 2^-10 (0x3c01); 2^-30 below f16's smallest subnormal
        {"cvt_rm_f16_f32", "mov.b32 %r1, 0x3F801000;\ncvt.rm.f16.f32 %h3, %r1;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0x3C00)},
        {"cvt_rp_f16_f32", "mov.b32 %r1, 0x3F801000;\ncvt.rp.f16.f32 %h3, %r1;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0x3C01)},
        {"cvt_rp_f16_f32_tiny", "mov.b32 %r1, 0x30800000;\ncvt.rp.f16.f32 %h3, %r1;\ncvt.u32.u16 %r3, %h3;", "1"},
        {"cvt_rz_f16_f32_tiny", "mov.b32 %r1, 0x30800000;\ncvt.rz.f16.f32 %h3, %r1;\ncvt.u32.u16 %r3, %h3;", "0"},
        // f32 infinity .rz stays infinity; 1e6 .rz gives 65504; .sat clamps 2.0 to 1.0
        {"cvt_rz_f16_f32_inf", "mov.b32 %r1, 0x7F800000;\ncvt.rz.f16.f32 %h3, %r1;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0x7C00)},
        {"cvt_rz_f16_f32_big", "mov.b32 %r1, 0x49742400;\ncvt.rz.f16.f32 %h3, %r1;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0x7BFF)},
        {"cvt_rp_sat_f16_f32", "mov.b32 %r1, 0x40000000;\ncvt.rp.sat.f16.f32 %h3, %r1;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0x3C00)},
        // bf16 keeps 8 significant bits: 0x3f80ffff .rz to 0x3f80, .rp to 0x3f81; f64 -(1 + 2^-20) .rm to -(1 + 2^-10) (0xbc01)
        {"cvt_rz_bf16_f32", "mov.b32 %r1, 0x3F80FFFF;\ncvt.rz.bf16.f32 %h3, %r1;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0x3F80)},
        {"cvt_rp_bf16_f32", "mov.b32 %r1, 0x3F80FFFF;\ncvt.rp.bf16.f32 %h3, %r1;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0x3F81)},
        {"cvt_rm_f16_f64", "mov.b64 %rd2, 0xBFF0000100000000;\ncvt.rm.f16.f64 %h3, %rd2;\ncvt.u32.u16 %r3, %h3;", Integer.toString(0xBC01)},
        // pairs .rz: a (infinity, .satfinite: 65504) to the upper half, b (1.0) to the lower; .relu: -1.0 to +0
        {"cvt_rz_satfinite_f16x2", "mov.b32 %r1, 0x7F800000;\nmov.b32 %r2, 0x3F800000;\ncvt.rz.satfinite.f16x2.f32 %r3, %r1, %r2;", Integer.toString(0x7BFF3C00)},
        {"cvt_rz_relu_bf16x2", "mov.b32 %r1, 0xBF800000;\nmov.b32 %r2, 0x3F80FFFF;\ncvt.rz.relu.bf16x2.f32 %r3, %r1, %r2;", Integer.toString(0x3F80)},
        // tf32 (10 stored bits, the low 13 of the f32 bits zero): 1 + 2^-11 is a tie, to even 1.0; 1 + 3 * 2^-11 to 1 + 2^-9
        {"cvt_rn_tf32", "mov.b32 %r1, 0x3F801000;\ncvt.rn.tf32.f32 %r3, %r1;", Integer.toString(0x3F800000)},
        {"cvt_rn_tf32_odd", "mov.b32 %r1, 0x3F803000;\ncvt.rn.tf32.f32 %r3, %r1;", Integer.toString(0x3F804000)},
        {"cvt_rz_tf32", "mov.b32 %r1, 0x3F801FFF;\ncvt.rz.tf32.f32 %r3, %r1;", Integer.toString(0x3F800000)},
        {"cvt_rn_relu_tf32", "mov.b32 %r1, 0xBF800000;\ncvt.rn.relu.tf32.f32 %r3, %r1;", "0"},
    };

    /**
     * Directed-rounding cvt between integers and f32/f64 and from f64 to f32 (PTX ISA 9.0, 9.7.9.21), which NVPTX
     * lowers with {@code llvm.nvvm.*} intrinsics and AMD targets in integer IR: checked folded for gfx1100 and for
     * {@link LlvmTarget#SM_90_AS_AMD}, as in {@link #BIT_CASES}.
     */
    static final String[][] AMD_ROUNDING_CASES = {
        // 2^24 + 1 between 2^24 (0x4b800000) and 2^24 + 2 (0x4b800001)
        {"cvt_rz_f32_u32", "mov.b32 %r1, 16777217;\ncvt.rz.f32.u32 %r3, %r1;", Integer.toString(0x4B800000)},
        {"cvt_rp_f32_s32", "mov.b32 %r1, 16777217;\ncvt.rp.f32.s32 %r3, %r1;", Integer.toString(0x4B800001)},
        {"cvt_rm_f32_s64", "mov.b64 %rd2, -16777217;\ncvt.rm.f32.s64 %r3, %rd2;", Integer.toString(0xCB800001)},
        // 2^53 + 1 .rp to 2^53 + 2: the high word of 0x4340000000000001
        {"cvt_rp_f64_u64", "mov.b64 %rd2, 9007199254740993;\ncvt.rp.f64.u64 %rd3, %rd2;\nmov.b64 {%r4, %r3}, %rd3;", Integer.toString(0x43400000)},
        {"cvt_rp_f64_u64_lo", "mov.b64 %rd2, 9007199254740993;\ncvt.rp.f64.u64 %rd3, %rd2;\nmov.b64 {%r3, %r4}, %rd3;", "1"},
        // f64 1 + 2^-29 .rz to 1.0, .rp to 1 + 2^-23; 1e300 .rz to f32's largest finite value, .rp to infinity
        {"cvt_rz_f32_f64", "mov.b64 %rd2, 0x3FF0000000800000;\ncvt.rz.f32.f64 %r3, %rd2;", Integer.toString(0x3F800000)},
        {"cvt_rp_f32_f64", "mov.b64 %rd2, 0x3FF0000000800000;\ncvt.rp.f32.f64 %r3, %rd2;", Integer.toString(0x3F800001)},
        {"cvt_rz_f32_f64_big", "mov.b64 %rd2, 0x7E37E43C8800759C;\ncvt.rz.f32.f64 %r3, %rd2;", Integer.toString(0x7F7FFFFF)},
        {"cvt_rp_f32_f64_big", "mov.b64 %rd2, 0x7E37E43C8800759C;\ncvt.rp.f32.f64 %r3, %rd2;", Integer.toString(0x7F800000)},
    };

    @Test
    void cvtDirectedRoundingComputesWhatThePtxIsaDefines() throws IOException, InterruptedException {
        foldsTo(ROUNDING_CASES, "zluda-rounding");
    }

    @Test
    void cvtDirectedRoundingBetweenIntegersAndF32F64AsForAmdComputesWhatThePtxIsaDefines() throws IOException, InterruptedException {
        foldsTo(AMD_ROUNDING_CASES, "zluda-amd-rounding", List.of(LlvmTarget.GFX1100, LlvmTarget.SM_90_AS_AMD));
    }

    /**
     * setp on f16x2/bf16x2, f32 min/max .xorsign.abs, mul.ftz.f32 and div.full.f32 (PTX ISA 9.0: setp, min, max,
     * mul, div), as in {@link #BIT_CASES}: %r1 %r2 hold the operands' bits, %p1 %p2 the two predicates of setp.
     */
    static final String[][] FLOAT_CASES = {
        // lower halves -2.0 < 0 (p), upper halves 1.0 < 0 not (q): 1 + 0
        {"setp_lt_f16x2", "mov.b32 %r1, 0x3C00C000;\nmov.b32 %r2, 0;\nsetp.lt.f16x2 %p1|%p2, %r1, %r2;\nselp.u32 %r4, 1, 0, %p1;\n"
                + "selp.u32 %r5, 2, 0, %p2;\nor.b32 %r3, %r4, %r5;", "1"},
        // upper half NaN, lower 1.0 against 1.0: .nan holds for the upper only: 0 + 2
        {"setp_nan_bf16x2", "mov.b32 %r1, 0x7FC13F80;\nmov.b32 %r2, 0x3F803F80;\nsetp.nan.bf16x2 %p1|%p2, %r1, %r2;\nselp.u32 %r4, 1, 0, %p1;\n"
                + "selp.u32 %r5, 2, 0, %p2;\nor.b32 %r3, %r4, %r5;", "2"},
        // .ftz: the subnormals 2^-24 and -2^-24 compare equal to -0 and +0
        {"setp_eq_ftz_f16x2", "mov.b32 %r1, 0x80010001;\nmov.b32 %r2, 0x00008000;\nsetp.eq.ftz.f16x2 %p1|%p2, %r1, %r2;\nselp.u32 %r4, 1, 0, %p1;\n"
                + "selp.u32 %r5, 2, 0, %p2;\nor.b32 %r3, %r4, %r5;", "3"},
        // .and with a false c: both false
        {"setp_gtu_and_f16x2", "mov.b32 %r1, 0x7E004000;\nmov.b32 %r2, 0;\nsetp.eq.u32 %p3, %r2, 1;\nsetp.gtu.and.f16x2 %p1|%p2, %r1, %r2, %p3;\n"
                + "selp.u32 %r4, 1, 0, %p1;\nselp.u32 %r5, 2, 0, %p2;\nor.b32 %r3, %r4, %r5;", "0"},
        // min(|-2|, |3|) = 2 with sign 1 ^ 0: -2.0
        {"min_xorsign_f32", "mov.b32 %r1, 0xC0000000;\nmov.b32 %r2, 0x40400000;\nmin.xorsign.abs.f32 %r3, %r1, %r2;", Integer.toString(0xC0000000)},
        // a NaN operand: ignored without .NaN (|-3| with sign 1 ^ 1: +3.0), the canonical NaN with it
        {"max_xorsign_nan_f32", "mov.b32 %r1, 0xFFC00000;\nmov.b32 %r2, 0xC0400000;\nmax.xorsign.abs.f32 %r3, %r1, %r2;", Integer.toString(0x40400000)},
        {"max_NaN_xorsign_f32", "mov.b32 %r1, 0x7FC00001;\nmov.b32 %r2, 0x3F800000;\nmax.NaN.xorsign.abs.f32 %r3, %r1, %r2;", Integer.toString(0x7FFFFFFF)},
        // .ftz: the subnormal 2^-149 is 0, so min(|2^-149|, |-1|) = 0 with sign 0 ^ 1: -0
        {"min_ftz_xorsign_f32", "mov.b32 %r1, 1;\nmov.b32 %r2, 0xBF800000;\nmin.ftz.NaN.xorsign.abs.f32 %r3, %r1, %r2;", Integer.toString(0x80000000)},
        // (1 - 2^-24) * -2^-126 rounds to -2^-126 but is below it in magnitude before rounding: .ftz gives -0
        {"mul_ftz_f32_tiny", "mov.b32 %r1, 0x3F7FFFFF;\nmov.b32 %r2, 0x80800000;\nmul.ftz.f32 %r3, %r1, %r2;", Integer.toString(0x80000000)},
        {"mul_rn_f32_tiny", "mov.b32 %r1, 0x3F7FFFFF;\nmov.b32 %r2, 0x80800000;\nmul.rn.f32 %r3, %r1, %r2;", Integer.toString(0x80800000)},
        // exactly 2^-126 stays; .sat clamps 0.5 * 4 to 1.0
        {"mul_ftz_f32_min", "mov.b32 %r1, 0x3F800000;\nmov.b32 %r2, 0x00800000;\nmul.rn.ftz.f32 %r3, %r1, %r2;", Integer.toString(0x00800000)},
        {"mul_ftz_sat_f32", "mov.b32 %r1, 0x3F000000;\nmov.b32 %r2, 0x40800000;\nmul.rn.ftz.sat.f32 %r3, %r1, %r2;", Integer.toString(0x3F800000)},
    };

    @Test
    void halfPairSetpXorsignAndMulFtzComputeWhatThePtxIsaDefines() throws IOException, InterruptedException {
        foldsTo(FLOAT_CASES, "zluda-float");
    }

    /** match.sync, redux.sync and half-precision atomic adds (PTX ISA 9.0: match.sync, redux.sync, atom, red). */
    static final String WARP_ATOMICS = """
            .version 8.0
            .target sm_90
            .address_size 64
            .visible .entry k(.param .u64 p)
            {
            .reg .pred %p<2>;
            .reg .b16 %h<4>;
            .reg .b32 %r<8>;
            .reg .b64 %rd<2>;
            .shared .align 4 .b8 s[64];
            ld.param.u64 %rd1, [p];
            mov.u32 %r1, %tid.x;
            match.any.sync.b32 %r2, %r1, -1;
            match.all.sync.b32 %r3|%p1, %r1, 0xffff;
            redux.sync.min.s32 %r4, %r1, -1;
            redux.sync.xor.b32 %r5, %r1, 0x0f0f0f0f;
            atom.global.add.noftz.f16x2 %r6, [%rd1], %r2;
            mov.b16 %h1, 0x3C00;
            atom.shared.add.noftz.bf16 %h2, [s], %h1;
            red.global.add.noftz.f16 [%rd1+4], %h1;
            st.global.u32 [%rd1+8], %r3;
            st.global.u32 [%rd1+12], %r4;
            st.global.u32 [%rd1+16], %r5;
            st.global.u32 [%rd1+20], %r6;
            st.global.u16 [%rd1+24], %h2;
            ret;
            }
            """;

    @Test
    void warpMatchReduxAndHalfAtomicsLowerForWave32AndNvptx() throws IOException, InterruptedException {
        for (LlvmTarget t : List.of(LlvmTarget.GFX1030, LlvmTarget.GFX1100, LlvmTarget.SM_90)) {
            // redux.sync.min.s32 is refused (LlvmForms: ptxas could not compile its lowering for the H200, so it was
            // never checked there): the error names it and its line; the lowering itself is still what it was
            PtxCompiler.Lowered refused = PtxCompiler.lower(WARP_ATOMICS, "w.ptx", t);
            assertFalse(refused.ok(), t.cpu());
            assertEquals(15, refused.errors().get(0).line(), refused.errors().toString());
            assertTrue(refused.errors().get(0).message().contains("'redux.sync.min.s32' is not supported by the LLVM back end"), refused.errors().toString());
            PtxCompiler.Lowered l = PtxCompiler.lower(WARP_ATOMICS, "w.ptx", t, false);
            assertTrue(l.ok(), t + ": " + l.errors());
            String ir = l.ir();
            assertTrue(ir.contains(t.amd() ? "@llvm.amdgcn.ballot.i32(" : "@llvm.nvvm.vote.ballot.sync("), ir);
            assertTrue(ir.contains(t.amd() ? "@llvm.amdgcn.ds.bpermute(" : "@llvm.nvvm.shfl.sync.idx.i32("), ir);
            assertTrue(ir.contains("atomicrmw fadd ptr addrspace(1) ") && ir.contains(", <2 x half> "), ir);
            assertTrue(ir.contains("atomicrmw fadd ptr addrspace(3) ") && ir.contains(", bfloat "), ir);
        }
        PtxCompiler.Lowered wave64 = PtxCompiler.lower(WARP_ATOMICS, "w.ptx", LlvmTarget.GFX942);
        assertFalse(wave64.ok());
        assertEquals(13, wave64.errors().get(0).line(), wave64.errors().toString());     // the match.any
        assertTrue(wave64.errors().get(0).message().contains("64-lane"), wave64.errors().toString());
        LlvmTools tools = LlvmTools.find();
        if (tools == null && System.getenv("ZLUDA_REQUIRE_LLVM") != null) throw new AssertionError(LlvmTools.missingMessage());
        org.junit.jupiter.api.Assumptions.assumeTrue(tools != null, LlvmTools.missingMessage());
        for (LlvmTarget t : List.of(LlvmTarget.GFX1100, LlvmTarget.SM_90)) {
            assertTrue(PtxCompiler.codegen(PtxCompiler.lower(WARP_ATOMICS, "w.ptx", t, false), t, tools).length > 0, t.cpu());
        }
    }

    @Test
    void divFullAndNvptxOnlyApproxFormsFollowTheTarget() {
        String ptx = kernel("mov.b32 %f1, 0f40C00000;\ndiv.full.ftz.f32 %f2, %f1, %f1;\nmov.b32 %r1, %f2;\nst.global.u32 [%rd1], %r1;\n");
        PtxCompiler.Lowered nv = PtxCompiler.lower(ptx, "d.ptx", LlvmTarget.SM_90);
        assertTrue(nv.ok() && nv.ir().contains("@llvm.nvvm.div.full.ftz("), nv.toString());
        // div.full.ftz.f32 as lowered for AMD rounds at the subnormal boundary unlike the H200 (conformance sweep): refused
        // there with its line (LlvmForms); the lowering itself stays target-neutral
        PtxCompiler.Lowered refused = PtxCompiler.lower(ptx, "d.ptx", LlvmTarget.GFX1100);
        assertFalse(refused.ok());
        assertTrue(refused.errors().get(0).line() > 0 && refused.errors().get(0).message().contains("'div.full.ftz.f32' is not supported by the LLVM back end for gfx1100"),
                refused.errors().toString());
        PtxCompiler.Lowered amd = PtxCompiler.lower(ptx, "d.ptx", LlvmTarget.GFX1100, false);
        assertTrue(amd.ok() && amd.ir().contains("fdiv float") && !amd.ir().contains("nvvm"), amd.toString());
        String half = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n.reg .b16 %h<4>;\n"
                + ".reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\nmov.b16 %h1, 0x3C00;\ntanh.approx.bf16 %h2, %h1;\n"
                + "st.global.u16 [%rd1], %h2;\nret;\n}\n";
        PtxCompiler.Lowered hnv = PtxCompiler.lower(half, "h.ptx", LlvmTarget.SM_90);
        assertTrue(hnv.ok() && hnv.ir().contains("asm \"tanh.approx.bf16 $0, $1;\""), hnv.toString());
        PtxCompiler.Lowered hamd = PtxCompiler.lower(half, "h.ptx", LlvmTarget.GFX1030);
        assertTrue(hamd.ok() && !hamd.ir().contains("nvvm") && !hamd.ir().contains("asm"), hamd.toString());
    }

    /**
     * sin, cos, lg2, ex2 and tanh .approx on AMD targets (PTX ISA 9.0, 9.7.3 and 9.7.4: target-neutral IR,
     * no math library), as in {@link #BIT_CASES} (%h1 holds half bits, %r3 receives f32 bits or the half result
     * zero-extended), folded for gfx1100 and for NVPTX lowered as for AMD. The expected values are exact: those the
     * PTX ISA and IEEE 754 give for these arguments (ex2(3) = 8, lg2(1) = 0, sin(0) = 0, ...).
     */
    static final String[][] AMD_TRANSCENDENTAL_CASES = {
        // ex2(3) = 8, ex2(-1) = 0.5, ex2(-inf) = +0, ex2(+inf) = +inf, ex2(NaN) = canonical NaN, ex2(-149) = 2^-149
        {"ex2_3", "mov.b32 %r1, 0x40400000;\nex2.approx.f32 %r3, %r1;", Integer.toString(0x41000000)},
        {"ex2_m1", "mov.b32 %r1, 0xBF800000;\nex2.approx.ftz.f32 %r3, %r1;", Integer.toString(0x3F000000)},
        {"ex2_minf", "mov.b32 %r1, 0xFF800000;\nex2.approx.f32 %r3, %r1;", "0"},
        {"ex2_inf", "mov.b32 %r1, 0x7F800000;\nex2.approx.f32 %r3, %r1;", Integer.toString(0x7F800000)},
        {"ex2_nan", "mov.b32 %r1, 0xFFC00001;\nex2.approx.f32 %r3, %r1;", Integer.toString(0x7FFFFFFF)},
        {"ex2_sub", "mov.b32 %r1, 0xC3150000;\nex2.approx.f32 %r3, %r1;", "1"},
        // .ftz: the subnormal 2^-149 is flushed to +0
        {"ex2_sub_ftz", "mov.b32 %r1, 0xC3150000;\nex2.approx.ftz.f32 %r3, %r1;", "0"},
        // lg2(1) = 0, lg2(8) = 3, lg2(0.25) = -2, lg2(2^-149) = -149, lg2(-0) = -inf, lg2(-1) = NaN, lg2(+inf) = +inf
        {"lg2_1", "mov.b32 %r1, 0x3F800000;\nlg2.approx.f32 %r3, %r1;", "0"},
        {"lg2_8", "mov.b32 %r1, 0x41000000;\nlg2.approx.ftz.f32 %r3, %r1;", Integer.toString(0x40400000)},
        {"lg2_q", "mov.b32 %r1, 0x3E800000;\nlg2.approx.f32 %r3, %r1;", Integer.toString(0xC0000000)},
        {"lg2_sub", "mov.b32 %r1, 1;\nlg2.approx.f32 %r3, %r1;", Integer.toString(0xC3150000)},
        {"lg2_sub_ftz", "mov.b32 %r1, 1;\nlg2.approx.ftz.f32 %r3, %r1;", Integer.toString(0xFF800000)},
        {"lg2_m0", "mov.b32 %r1, 0x80000000;\nlg2.approx.f32 %r3, %r1;", Integer.toString(0xFF800000)},
        {"lg2_neg", "mov.b32 %r1, 0xBF800000;\nlg2.approx.f32 %r3, %r1;", Integer.toString(0x7FFFFFFF)},
        {"lg2_inf", "mov.b32 %r1, 0x7F800000;\nlg2.approx.f32 %r3, %r1;", Integer.toString(0x7F800000)},
        // sin(0) = 0, sin(-0) = -0, cos(0) = 1, sin(+inf) = cos(-inf) = NaN
        {"sin_0", "mov.b32 %r1, 0;\nsin.approx.f32 %r3, %r1;", "0"},
        {"sin_m0", "mov.b32 %r1, 0x80000000;\nsin.approx.ftz.f32 %r3, %r1;", Integer.toString(0x80000000)},
        {"cos_0", "mov.b32 %r1, 0;\ncos.approx.f32 %r3, %r1;", Integer.toString(0x3F800000)},
        {"sin_inf", "mov.b32 %r1, 0x7F800000;\nsin.approx.f32 %r3, %r1;", Integer.toString(0x7FFFFFFF)},
        {"cos_minf", "mov.b32 %r1, 0xFF800000;\ncos.approx.ftz.f32 %r3, %r1;", Integer.toString(0x7FFFFFFF)},
        // tanh(0) = 0, tanh(-0) = -0, tanh(+inf) = 1, tanh(-inf) = -1, tanh(NaN) = NaN
        {"tanh_0", "mov.b32 %r1, 0;\ntanh.approx.f32 %r3, %r1;", "0"},
        {"tanh_m0", "mov.b32 %r1, 0x80000000;\ntanh.approx.f32 %r3, %r1;", Integer.toString(0x80000000)},
        {"tanh_inf", "mov.b32 %r1, 0x7F800000;\ntanh.approx.f32 %r3, %r1;", Integer.toString(0x3F800000)},
        {"tanh_minf", "mov.b32 %r1, 0xFF800000;\ntanh.approx.f32 %r3, %r1;", Integer.toString(0xBF800000)},
        {"tanh_nan", "mov.b32 %r1, 0x7FC00000;\ntanh.approx.f32 %r3, %r1;", Integer.toString(0x7FFFFFFF)},
        // halves: ex2.f16(1) = 2 (0x4000), ex2.f16(-24) = 2^-24 (0x0001), ex2.ftz.bf16(-1) = 0.5 (0x3f00),
        // ex2.ftz.bf16 of 2^-130 (subnormal, flushed) = 1 (0x3f80), tanh.f16(0) = 0, tanh.bf16(-inf) = -1 (0xbf80)
        {"ex2_f16", "mov.b16 %h1, 0x3C00;\nex2.approx.f16 %h2, %h1;\ncvt.u32.u16 %r3, %h2;", Integer.toString(0x4000)},
        {"ex2_f16_sub", "mov.b16 %h1, 0xCE00;\nex2.approx.f16 %h2, %h1;\ncvt.u32.u16 %r3, %h2;", "1"},
        {"ex2_bf16", "mov.b16 %h1, 0xBF80;\nex2.approx.ftz.bf16 %h2, %h1;\ncvt.u32.u16 %r3, %h2;", Integer.toString(0x3F00)},
        {"ex2_bf16_sub", "mov.b16 %h1, 0x0010;\nex2.approx.ftz.bf16 %h2, %h1;\ncvt.u32.u16 %r3, %h2;", Integer.toString(0x3F80)},
        {"tanh_f16", "mov.b16 %h1, 0x0000;\ntanh.approx.f16 %h2, %h1;\ncvt.u32.u16 %r3, %h2;", "0"},
        {"tanh_bf16", "mov.b16 %h1, 0xFF80;\ntanh.approx.bf16 %h2, %h1;\ncvt.u32.u16 %r3, %h2;", Integer.toString(0xBF80)},
        // pairs, lane by lane: ex2.f16x2 {1, 3} = {2, 8} (0x48004000), tanh.bf16x2 {NaN, +inf} = {0x7fff, 1}
        {"ex2_f16x2", "mov.b32 %r1, 0x42003C00;\nex2.approx.f16x2 %r3, %r1;", Integer.toString(0x48004000)},
        {"tanh_bf16x2", "mov.b32 %r1, 0x7F807FC1;\ntanh.approx.bf16x2 %r3, %r1;", Integer.toString(0x3F807FFF)},
    };

    @Test
    void transcendentalApproxFormsOnAmdComputeExactValuesAtExactPoints() throws IOException, InterruptedException {
        foldsTo(AMD_TRANSCENDENTAL_CASES, "zluda-transcendental", List.of(LlvmTarget.GFX1030, LlvmTarget.GFX1100, LlvmTarget.SM_90_AS_AMD),
                List.of(LlvmTarget.GFX1100, LlvmTarget.SM_90_AS_AMD));
        String ptx = kernel("mov.f32 %f1, 0f3F800000;\nsin.approx.f32 %f2, %f1;\nmov.b32 %r1, %f2;\nst.global.u32 [%rd1], %r1;\n");
        for (LlvmTarget t : List.of(LlvmTarget.GFX1030, LlvmTarget.GFX1100, LlvmTarget.SM_90_AS_AMD)) {
            PtxCompiler.Lowered l = PtxCompiler.lower(ptx, "s.ptx", t);
            assertTrue(l.ok() && !l.ir().contains("llvm.nvvm") && !l.ir().contains("@sin"), t + ": " + l);
        }
        assertTrue(PtxCompiler.lower(ptx, "s.ptx", LlvmTarget.SM_90).ir().contains("@llvm.nvvm.sin.approx.f("));
    }

    /**
     * The .approx forms AMD targets lower in IEEE operations (rcp, sqrt, rsqrt, div.approx; PTX ISA 9.0), as in
     * {@link #BIT_CASES}, folded for gfx1100 and for NVPTX lowered as for AMD (sm_90 runs NVIDIA's own instructions).
     */
    static final String[][] AMD_APPROX_CASES = {
        // 1/4 = 0.25, sqrt(2.25) = 1.5, 1/sqrt(4) = 0.5
        {"rcp_approx", "mov.b32 %r1, 0x40800000;\nrcp.approx.f32 %r3, %r1;", Integer.toString(0x3E800000)},
        {"sqrt_approx", "mov.b32 %r1, 0x40100000;\nsqrt.approx.ftz.f32 %r3, %r1;", Integer.toString(0x3FC00000)},
        {"rsqrt_approx", "mov.b32 %r1, 0x40800000;\nrsqrt.approx.f32 %r3, %r1;", Integer.toString(0x3F000000)},
        // .ftz: the subnormal 2^-149 is flushed to -0: 1/-0 = -inf, 1/sqrt(-0) = -inf; without .ftz 1/2^-149 overflows
        {"rcp_approx_ftz", "mov.b32 %r1, 0x80000001;\nrcp.approx.ftz.f32 %r3, %r1;", Integer.toString(0xFF800000)},
        {"rsqrt_approx_ftz", "mov.b32 %r1, 0x80000001;\nrsqrt.approx.ftz.f32 %r3, %r1;", Integer.toString(0xFF800000)},
        {"rcp_approx_sub", "mov.b32 %r1, 1;\nrcp.approx.f32 %r3, %r1;", Integer.toString(0x7F800000)},
        // div.approx: 6 / 3 = 2; for 2^126 < |b| < 2^128 the quotient is 0 with the sign of a * b
        {"div_approx", "mov.b32 %r1, 0x40C00000;\nmov.b32 %r2, 0x40400000;\ndiv.approx.f32 %r3, %r1, %r2;", Integer.toString(0x40000000)},
        {"div_approx_big", "mov.b32 %r1, 0x3F800000;\nmov.b32 %r2, 0xFF000000;\ndiv.approx.f32 %r3, %r1, %r2;", Integer.toString(0x80000000)},
        // rcp.approx.ftz.f64 of 3: 1/3 = 0x3fd5555555555555 rounded to its upper word, 0x3fd55555 (low word 0)
        {"rcp_approx_ftz_f64", "mov.b64 %rd2, 0x4008000000000000;\nrcp.approx.ftz.f64 %rd3, %rd2;\nmov.b64 {%r4, %r3}, %rd3;", Integer.toString(0x3FD55555)},
        {"rcp_approx_ftz_f64_lo", "mov.b64 %rd2, 0x4008000000000000;\nrcp.approx.ftz.f64 %rd3, %rd2;\nmov.b64 {%r3, %r4}, %rd3;", "0"},
    };

    @Test
    void approxFormsOnAmdComputeIeeeResults() throws IOException, InterruptedException {
        foldsTo(AMD_APPROX_CASES, "zluda-approx", List.of(LlvmTarget.GFX1030, LlvmTarget.GFX1100, LlvmTarget.SM_90_AS_AMD),
                List.of(LlvmTarget.GFX1100, LlvmTarget.SM_90_AS_AMD));
    }

    @Test
    void cvtFp8AndBf16Int64ComputeWhatThePtxIsaDefines() throws IOException, InterruptedException {
        foldsTo(FP8_CASES, "zluda-fp8");
    }

    @Test
    void cvtReluSatfinitePackAndTf32ComputeWhatThePtxIsaDefines() throws IOException, InterruptedException {
        foldsTo(CVT_CASES, "zluda-cvt");
    }

    @Test
    void halfPrecisionModifiersComputeWhatThePtxIsaDefines() throws IOException, InterruptedException {
        foldsTo(HALF_CASES, "zluda-half");
    }

    @Test
    void bitFieldAndByteInstructionsComputeWhatThePtxIsaDefines() throws IOException, InterruptedException {
        foldsTo(BIT_CASES, "zluda-bits");
    }

    /** Each case in a kernel of its own; the lowering accepts all for gfx1030, gfx1100, sm_90; opt -O2 folds each to c[2]. */
    static void foldsTo(String[][] cases, String tmp) throws IOException, InterruptedException {
        foldsTo(cases, tmp, List.of(LlvmTarget.GFX1030, LlvmTarget.GFX1100, LlvmTarget.SM_90), List.of(LlvmTarget.GFX1100, LlvmTarget.SM_90));
    }

    /** As {@link #foldsTo(String[][], String)}, lowered for gfx1030, gfx1100, sm_90 and {@code folded}, folded by opt -O2 for {@code folded}. */
    static void foldsTo(String[][] cases, String tmp, List<LlvmTarget> folded) throws IOException, InterruptedException {
        List<LlvmTarget> lowered = new java.util.ArrayList<>(List.of(LlvmTarget.GFX1030, LlvmTarget.GFX1100, LlvmTarget.SM_90));
        for (LlvmTarget t : folded) if (!lowered.contains(t)) lowered.add(t);
        foldsTo(cases, tmp, lowered, folded);
    }

    /** {@link #foldsTo(String[][], String)} for the targets given: lowered for {@code lowered}, folded for {@code folded}. */
    static void foldsTo(String[][] cases, String tmp, List<LlvmTarget> lowered, List<LlvmTarget> folded) throws IOException, InterruptedException {
        StringBuilder ptx = new StringBuilder(".version 8.0\n.target sm_80\n.address_size 64\n");
        for (String[] c : cases) {
            ptx.append(".visible .entry ").append(c[0]).append("(.param .u64 p)\n{\n.reg .pred %p<4>;\n.reg .b32 %r<8>;\n.reg .b16 %h<8>;\n.reg .b64 %rd<4>;\n")
                    .append("ld.param.u64 %rd1, [p];\n").append(c[1]).append("\nst.global.u32 [%rd1], %r3;\nret;\n}\n");
        }
        for (LlvmTarget t : lowered) {
            PtxCompiler.Lowered l = PtxCompiler.lower(ptx.toString(), "b.ptx", t);
            assertTrue(l.ok(), t + ": " + l.errors());
        }
        LlvmTools tools = LlvmTools.find();
        if (tools == null && System.getenv("ZLUDA_REQUIRE_LLVM") != null) throw new AssertionError(LlvmTools.missingMessage());
        org.junit.jupiter.api.Assumptions.assumeTrue(tools != null, LlvmTools.missingMessage());
        for (LlvmTarget t : folded) {
            java.nio.file.Path ll = java.nio.file.Files.createTempDirectory(tmp).resolve("in.ll");
            java.nio.file.Files.writeString(ll, PtxCompiler.lower(ptx.toString(), "b.ptx", t).ir());
            Process p = new ProcessBuilder(tools.path("opt").toString(), "-O2", "-S", "-mtriple=" + t.triple(), "-mcpu=" + t.cpu(), ll.toString())
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            assertEquals(0, p.waitFor(), out);
            for (String[] c : cases) {
                int at = out.indexOf("@" + c[0] + "(");
                assertTrue(at >= 0, t + ": no kernel " + c[0] + " in\n" + out);
                String fn = out.substring(at, out.indexOf("\n}\n", at));
                assertTrue(fn.contains("store i32 " + c[2] + ","), t + " " + c[0] + ": expected " + c[2] + " in\n" + fn);
            }
            assertTrue(PtxCompiler.codegen(PtxCompiler.lower(ptx.toString(), "b.ptx", t), t, tools).length > 0);
        }
    }
}
