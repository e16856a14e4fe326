package dev.zluda.ptx.ir.pass;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.ModuleModel;
import dev.zluda.ptx.Ptx;
import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.Semantics;
import dev.zluda.ptx.ir.IrPipeline;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The pointer-type pass: element types of pointer parameters, from the samples' nvcc PTX and hand-written PTX (types as
 * the PTX's loads and stores name them, bit types read as unsigned).
 */
class PointerTypesTest {
    private static Map<Integer, PtxType> infer(String ptx, String kernel) {
        Ast.Module ast = Ptx.parseOrThrow(ptx, "t.ptx");
        ModuleModel m = Semantics.analyze(ast, "t.ptx");
        return PointerTypes.infer(IrPipeline.build(ast, m, "t.ptx").function(kernel));
    }

    private static String sample(String name) throws Exception {
        Path repo = Path.of(System.getProperty("zluda.repo", "..")).toAbsolutePath().normalize();
        return Files.readString(repo.resolve("samples/src/main/ptx/" + name + ".ptx"));
    }

    @Test
    void samplesKernels() throws Exception {
        // vectorAdd(const float *a, const float *b, float *c, int n): ld.global.f32 / st.global.f32
        assertEquals(Map.of(0, PtxType.F32, 1, PtxType.F32, 2, PtxType.F32), infer(sample("vectorAdd"), "vectorAdd"));
        // histogram256(const unsigned char *data, unsigned int *bins, int n): ld.global.u8, atom.global.add.u32 (shared atomics are not the parameters')
        assertEquals(Map.of(0, PtxType.U8, 1, PtxType.U32), infer(sample("histogram"), "histogram256"));
        assertEquals(Map.of(0, PtxType.F32, 1, PtxType.F32, 2, PtxType.F32), infer(sample("matrixMul"), "matrixMul"));
        // nvcc loads and stores ints as .u32
        assertEquals(Map.of(0, PtxType.U32, 1, PtxType.U32, 2, PtxType.U32), infer(sample("scan"), "scanBlocks"));
        assertEquals(Map.of(0, PtxType.U32, 1, PtxType.U32), infer(sample("reduction"), "reduceSum"));
    }

    @Test
    void pointersAdvancedInLoopsAndMixedAccesses() {
        String ptx = """
                .version 8.0
                .target sm_80
                .address_size 64
                .visible .entry k(.param .u64 p0, .param .u64 p1, .param .u64 p2, .param .u64 p3, .param .u32 n)
                {
                  .reg .b64 %rd<12>;
                  .reg .b32 %r<4>;
                  .reg .f64 %fd<2>;
                  .reg .pred %p<2>;
                  ld.param.u64 %rd1, [p0];
                  ld.param.u64 %rd2, [p1];
                  ld.param.u64 %rd3, [p2];
                  ld.param.u64 %rd4, [p3];
                  mov.u32 %r1, 0;
                L:
                  ld.global.b32 %r2, [%rd5];
                  add.s64 %rd5, %rd1, 8;
                  st.global.f64 [%rd5+8], %fd1;
                  add.s64 %rd1, %rd1, 8;
                  ld.b32 %r3, [%rd2];
                  ld.f32 %r3, [%rd2+4];
                  ld.global.u8 %r3, [%rd3];
                  ld.global.u64 %rd6, [%rd3];
                  ld.global.s16 %r3, [%rd6];
                  add.s32 %r1, %r1, 1;
                  setp.lt.u32 %p1, %r1, 4;
                  @%p1 bra L;
                  ret;
                }
                """;
        // p0: .b32 reached only through %rd5 before it is assigned in the listing order, then .f64 through the advanced pointer:
        // the fixed point sees both; sizes differ, so it is left unknown. p1: .b32 and .f32, same size: f32.
        // p2: .u8 and .u64: unknown. p3: never accessed; %rd6 was loaded from memory, not derived from a parameter.
        assertEquals(Map.of(1, PtxType.F32), infer(ptx, "k"));
    }
}
