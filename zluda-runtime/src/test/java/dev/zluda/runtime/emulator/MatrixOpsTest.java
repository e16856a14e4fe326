package dev.zluda.runtime.emulator;

import dev.zluda.ptx.Ptx;
import dev.zluda.ptx.PtxCheck;
import dev.zluda.runtime.emulator.conformance.MatrixConformance;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Warp-level matrix instructions beyond the recorded conformance data: a product whose result follows
 * from the fragment layouts of the PTX ISA alone (9.7.14.5.8, m16n8k16 f16), the refusal of forms the
 * emulator does not execute, and a warp that executes a .sync.aligned instruction with some lanes only.
 */
class MatrixOpsTest {
    private static final String HEAD = PtxRun.HEADER + ".visible .entry k(.param .u64 pout)\n{\n"
            + ".reg .pred %p;\n.reg .b32 %r<24>;\n.reg .b32 %d<8>;\n.reg .b64 %q<4>;\n"
            + "mov.u32 %r20, %tid.x;\nld.param.u64 %q0, [pout];\nmul.wide.u32 %q1, %r20, 16;\nadd.s64 %q1, %q0, %q1;\n";

    /**
     * A = the 16×16 matrix with A[i][i] = 1 (f16 0x3c00) and zero elsewhere, B[k][n] = k + 16n, C = 0.5:
     * D[i][n] = B[i][n] + 0.5 for i < 16. Lane l's a0..a7 lie at rows g, g+8 and columns 2t, 2t+1, 2t+8,
     * 2t+9 (g = l/4, t = l%4); its b0..b3 at rows 2t, 2t+1, 2t+8, 2t+9 of column g; its c0..c3 at (g, 2t),
     * (g, 2t+1), (g+8, 2t), (g+8, 2t+1) — PTX ISA 9.0, 9.7.14.5.8.
     */
    @Test
    void mmaFollowsTheIsaFragmentLayout() throws Exception {
        StringBuilder sb = new StringBuilder(HEAD);
        sb.append("shr.u32 %r21, %r20, 2;\nand.b32 %r22, %r20, 3;\n"); // g, t
        // A registers: {a0,a1} row g cols 2t,2t+1; {a2,a3} row g+8; {a4,a5} row g cols 2t+8..; {a6,a7} row g+8 cols 2t+8..
        // the diagonal element (i, i) is in lane (i%8)*4 + (i%8)/2 ... computed here: element (row, col) is 1 when row == col
        for (int reg = 0; reg < 4; reg++) {
            int rowOff = (reg & 1) * 8, colOff = (reg >> 1) * 8;
            for (int half = 0; half < 2; half++) {
                // row = g + rowOff, col = 2t + half + colOff: equal when g + rowOff == 2t + half + colOff
                sb.append("shl.b32 %r23, %r22, 1;\nadd.u32 %r23, %r23, ").append(half + colOff).append(";\n");
                sb.append("add.u32 %r19, %r21, ").append(rowOff).append(";\n");
                sb.append("setp.eq.u32 %p, %r19, %r23;\nselp.b32 %r").append(10 + half).append(", 0x3c00, 0, %p;\n");
            }
            sb.append("shl.b32 %r11, %r11, 16;\nor.b32 %r").append(reg).append(", %r10, %r11;\n");
        }
        // B: b0,b1 at rows 2t, 2t+1 of column g; b2,b3 at rows 2t+8, 2t+9; value k + 16 n (exact in f16)
        for (int reg = 0; reg < 2; reg++) {
            for (int half = 0; half < 2; half++) {
                sb.append("shl.b32 %r23, %r22, 1;\nadd.u32 %r23, %r23, ").append(half + 8 * reg).append(";\n");
                sb.append("mad.lo.u32 %r23, %r21, 16, %r23;\ncvt.rn.f16.u32 %rs").append(half).append(", %r23;\n");
            }
            sb.append("mov.b32 %r").append(4 + reg).append(", {%rs0, %rs1};\n");
        }
        sb.append("mov.b32 %r6, 1056964608;\nmov.b32 %r7, %r6;\nmov.b32 %r8, %r6;\nmov.b32 %r9, %r6;\n");
        sb.append("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%d0, %d1, %d2, %d3}, {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%r6, %r7, %r8, %r9};\n");
        sb.append("st.global.v4.b32 [%q1], {%d0, %d1, %d2, %d3};\nret;\n}\n");
        String ptx = sb.toString().replace(".reg .b64 %q<4>;", ".reg .b64 %q<4>;\n.reg .b16 %rs<2>;");
        try (PtxRun run = new PtxRun(1)) {
            MemorySegment out = run.buffer(32 * 16);
            LaunchResult r = run.launch(run.load(ptx).kernels().get("k"), new int[] {1, 1, 1}, new int[] {32, 1, 1}, 0, out.address());
            assertTrue(r.ok(), r.message());
            for (int lane = 0; lane < 32; lane++) {
                int g = lane >> 2, t = lane & 3;
                for (int i = 0; i < 4; i++) {
                    int row = g + 8 * (i >> 1), col = 2 * t + (i & 1);
                    float want = row + 16 * col + 0.5f;
                    assertEquals(want, out.get(ValueLayout.JAVA_FLOAT, lane * 16L + 4 * i), "lane " + lane + " c" + i);
                }
            }
        }
    }

    @Test
    void formsTheEmulatorDoesNotExecuteFailTheLoad() {
        String[] forms = {
                "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%d0, %d1, %d2, %d3, %d4, %d5, %d6, %d7}, {%r0, %r1}, {%r2, %r3}, {%r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11};",
                "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%d0, %d1, %d2, %d3}, {%r0, %r1, %r2, %r3}, {%r4, %r5}, {%r6, %r7, %r8, %r9};",
                "wmma.load.a.sync.aligned.row.m16n16k8.global.tf32 {%r0, %r1, %r2, %r3}, [%q1], 8;",
                "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r0, %r1}, [%r2];",
        };
        try (PtxRun run = new PtxRun(1)) {
            for (String f : forms) {
                PtxLoadException e = assertThrows(PtxLoadException.class, () -> run.load(HEAD + f + "\nret;\n}\n"), f);
                assertTrue(e.getMessage().contains("not supported by the emulator"), e.getMessage());
                // zluda ptx check says the same (InstructionTable.emulatorExecutes mirrors the translator)
                var uses = PtxCheck.formUses(Ptx.parse(HEAD + f + "\nret;\n}\n", "t.ptx").module());
                assertTrue(uses.stream().anyMatch(u -> f.startsWith(u.form()) && !u.emulator()), f + ": " + uses);
            }
        }
    }

    /** Every matrix form of the conformance suite (which the emulator executes) is reported as executed by zluda ptx check. */
    @Test
    void ptxCheckAgreesOnTheFormsTheEmulatorExecutes() {
        for (MatrixConformance.Form f : MatrixConformance.forms()) {
            for (PtxCheck.FormUse u : PtxCheck.formUses(Ptx.parse(MatrixConformance.ptx(f), "t.ptx").module())) {
                assertTrue(u.emulator(), f.name() + ": " + u.form());
            }
        }
    }

    @Test
    void partOfAWarpIsAnIllegalInstruction() throws Exception {
        String ptx = HEAD + "setp.lt.u32 %p, %r20, 16;\n@%p ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r1}, [%r2];\nret;\n}\n";
        try (PtxRun run = new PtxRun(1)) {
            MemorySegment out = run.buffer(32 * 16);
            LaunchResult r = run.launch(run.load(ptx).kernels().get("k"), new int[] {1, 1, 1}, new int[] {32, 1, 1}, 0, out.address());
            assertEquals(Errors.ILLEGAL_INSTRUCTION, r.error(), r.message());
            assertTrue(r.message().contains("not by the whole warp"), r.message());
        }
    }
}
