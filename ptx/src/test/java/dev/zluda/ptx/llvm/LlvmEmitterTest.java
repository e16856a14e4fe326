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
}
