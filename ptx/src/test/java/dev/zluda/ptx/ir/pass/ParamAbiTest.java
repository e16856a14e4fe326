package dev.zluda.ptx.ir.pass;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.ir.IrModule;
import dev.zluda.ptx.ir.Stmt;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.zluda.ptx.ir.IrBuilderTest.HEADER;
import static dev.zluda.ptx.ir.IrBuilderTest.build;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The .param ABI pass on hand-written declarations, the expected offsets worked out from PTX ISA 9.0, 5.4.5 (natural
 * alignment: element size × vector width; {@code .align} overrides it) and 5.1.6.1 (each parameter at the next multiple
 * of its alignment, in declaration order; a device function's return parameters before its parameters).
 */
class ParamAbiTest {
    private static final String PTX = HEADER + """
            .func (.param .b32 r, .reg .b64 q) f(.param .b8 x, .reg .u16 y, .param .align 8 .b8 z[12])
            {
              ret;
            }
            .visible .entry k(.param .u8 a, .param .u64 b, .param .align 16 .b8 s[24], .param .f32 c, .param .v2 .u32 v)
            {
              {
              proto: .callprototype (.param .b32 _) _ (.reg .b64 _, .reg .u16 _, .param .align 16 .b8 _[20]);
              }
              ret;
            }
            """;

    private static List<String> rows(List<ParamAbi.Slot> slots) {
        List<String> out = new ArrayList<>();
        for (ParamAbi.Slot s : slots) {
            out.add(s.name() + " " + s.space().text() + " @" + s.offset() + " size " + s.size() + " align " + s.align() + (s.scalar() ? " scalar" : ""));
        }
        return out;
    }

    @Test
    void kernelParameterBuffer() {
        IrModule ir = build(PTX);
        ParamAbi.Layout k = ParamAbi.kernel(ir.function("k").info());
        assertEquals(List.of(
                "a .param @0 size 1 align 1 scalar",
                "b .param @8 size 8 align 8 scalar",
                "s .param @16 size 24 align 16",          // an array: in memory
                "c .param @40 size 4 align 4 scalar",
                "v .param @48 size 8 align 8"),           // a vector: in memory
                rows(k.params()));
        assertEquals(56, k.end());
        assertEquals(List.of(), k.results());
    }

    @Test
    void deviceFunctionFrame() {
        ParamAbi.Layout f = ParamAbi.function(build(PTX).function("f").info());
        assertEquals(List.of("r .param @0 size 4 align 4", "q .reg @8 size 8 align 8"), rows(f.results()));
        assertEquals(List.of("x .param @16 size 1 align 1", "y .reg @18 size 2 align 2", "z .param @24 size 12 align 8"), rows(f.params()));
        assertEquals(36, f.end());
    }

    @Test
    void callPrototypeFrame() {
        Stmt.Block inner = (Stmt.Block) build(PTX).function("k").body().statements().getFirst();
        Ast.CallPrototype cp = null;
        for (Stmt s : inner.statements()) if (s instanceof Stmt.Directive d && d.source() instanceof Ast.CallPrototype p) cp = p;
        ParamAbi.Layout p = ParamAbi.prototype(cp);
        assertEquals(List.of("_ .param @0 size 4 align 4"), rows(p.results()));
        // a .reg parameter of a prototype is aligned to its own size
        assertEquals(List.of("_ .reg @8 size 8 align 8", "_ .reg @16 size 2 align 2", "_ .param @32 size 20 align 16"), rows(p.params()));
        assertEquals(52, p.end());
    }
}
