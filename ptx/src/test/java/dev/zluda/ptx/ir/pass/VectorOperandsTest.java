package dev.zluda.ptx.ir.pass;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.ModuleModel;
import dev.zluda.ptx.Ptx;
import dev.zluda.ptx.Semantics;
import dev.zluda.ptx.ir.IrBuilder;
import dev.zluda.ptx.ir.IrModule;
import dev.zluda.ptx.ir.IrPrinter;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.zluda.ptx.ir.IrBuilderTest.HEADER;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The vector-operand pass: input PTX, and the IR before and after it, each element's width and place worked out from PTX
 * ISA 9.0, 6.4.2 and 9.7.9.1 (a vector access reads consecutive elements of the instruction type; {@code mov} packs
 * element 0 into the least significant bits).
 */
class VectorOperandsTest {
    @Test
    void elementsArePlaced() {
        String ptx = HEADER + """
                .visible .entry k()
                {
                  .reg .b16 %h<3>;
                  .reg .b32 %r<3>;
                  .reg .f32 %f<5>;
                  .reg .b64 %rd<2>;
                  ld.global.v4.f32 {%f1, %f2, _, %f4}, [%rd1+16];
                  st.global.v2.u16 [%rd1], {%h1, %h2};
                  mov.b64 {%r1, %r2}, %rd1;
                  mov.b32 %r1, {%h1, %h2};
                  mov.b64 %rd1, {%h1, %h2, %h1, %h2};
                  add.u32 %r1, %r1, %r2;
                  ret;
                }
                """;
        Ast.Module ast = Ptx.parseOrThrow(ptx, "t.ptx");
        ModuleModel m = Semantics.analyze(ast, "t.ptx");
        IrModule before = IrBuilder.build(ast, m, "t.ptx");
        IrModule after = VectorOperands.run(before);
        assertEquals(List.of(
                "LD .global/statespace .v4/vector .f32/type | {%f1:f32, %f2:f32, _, %f4:f32}, [%rd1:b64+16]",
                "ST .global/statespace .v2/vector .u16/type | [%rd1:b64], {%h1:b16, %h2:b16}",
                "MOV .b64/type | {%r1:b32, %r2:b32}, %rd1:b64",
                "MOV .b32/type | %r1:b32, {%h1:b16, %h2:b16}",
                "MOV .b64/type | %rd1:b64, {%h1:b16, %h2:b16, %h1:b16, %h2:b16}",
                "ADD .u32/type | %r1:b32, %r1:b32, %r2:b32",
                "RET"), List.of(IrPrinter.print(before.function("k").body()).split("\n")));
        assertEquals(List.of(
                // byte offsets from the address, 32-bit elements
                "LD .global/statespace .v4/vector .f32/type | {%f1:f32@0/32, %f2:f32@4/32, _@8/32, %f4:f32@12/32}, [%rd1:b64+16]",
                "ST .global/statespace .v2/vector .u16/type | [%rd1:b64], {%h1:b16@0/16, %h2:b16@2/16}",
                // bit offsets in the packed value
                "MOV .b64/type | {%r1:b32@0/32, %r2:b32@32/32}, %rd1:b64",
                "MOV .b32/type | %r1:b32, {%h1:b16@0/16, %h2:b16@16/16}",
                "MOV .b64/type | %rd1:b64, {%h1:b16@0/16, %h2:b16@16/16, %h1:b16@32/16, %h2:b16@48/16}",
                "ADD .u32/type | %r1:b32, %r1:b32, %r2:b32",
                "RET"), List.of(IrPrinter.print(after.function("k").body()).split("\n")));
    }
}
