package dev.zluda.ptx.ir;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.ModuleModel;
import dev.zluda.ptx.ParseResult;
import dev.zluda.ptx.Ptx;
import dev.zluda.ptx.Semantics;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The IR builder on PTX input with the expected IR written out by hand from the PTX ISA 9.0 meaning of each word:
 * which modifier is a type, a rounding, a comparison, a Boolean operator or a reduction; what each name resolves to.
 */
public class IrBuilderTest {
    public static IrModule build(String ptx) {
        ParseResult pr = Ptx.parse(ptx, "t.ptx");
        assertTrue(pr.ok(), pr.diagnostics().toString());
        ModuleModel m = Semantics.analyze(pr.module(), "t.ptx");
        assertTrue(m.ok(), m.diagnostics().toString());
        IrModule ir = IrBuilder.build(pr.module(), m, "t.ptx");
        assertTrue(ir.ok(), ir.diagnostics().toString());
        return ir;
    }

    public static final String HEADER = ".version 9.0\n.target sm_90\n.address_size 64\n";

    @Test
    void modifiersAreTypedByOpcode() {
        IrModule ir = build(HEADER + """
                .visible .entry k(.param .u64 p)
                {
                  .reg .pred %p<3>;
                  .reg .b32 %r<5>;
                  .reg .f32 %f<3>;
                  .reg .b64 %rd<3>;
                  setp.hi.and.u32 %p1|%p2, %r1, %r2, !%p0;
                  mul.hi.u32 %r3, %r1, %r2;
                  atom.global.and.b32 %r4, [%rd1+8], %r2;
                  lop3.or.b32 %r3|%p1, %r1, %r2, %r3, 0x80, %p2;
                  add.rn.ftz.sat.f32 %f1, %f2, 0f3F800000;
                  cvt.rzi.s32.f32 %r1, %f1;
                  shf.r.clamp.b32 %r1, %r2, %r3, %r4;
                  ld.global.nc.L1::evict_last.v2.f32 {%f1, _}, [p];
                  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f1, %f2}, {%r1, %r2, %r3, %r4}, {%r1, %r2}, {%f1, %f2, %f1, %f2};
                  ret;
                }
                """);
        assertEquals(List.of(
                "SETP .hi/compare .and/boolop .u32/type | %p1:pred|%p2:pred, %r1:b32, %r2:b32, !%p0:pred",
                "MUL .hi/flag .u32/type | %r3:b32, %r1:b32, %r2:b32",
                "ATOM .global/statespace .and/reduceop .b32/type | %r4:b32, [%rd1:b64+8], %r2:b32",
                "LOP3 .or/boolop .b32/type | %r3:b32|%p1:pred, %r1:b32, %r2:b32, %r3:b32, 128, %p2:pred",
                "ADD .rn/rounding .ftz/flag .sat/flag .f32/type | %f1:f32, %f2:f32, 0f3F800000",
                "CVT .rzi/rounding .s32/type .f32/type | %r1:b32, %f1:f32",
                "SHF .r/shiftdir .clamp/shiftmode .b32/type | %r1:b32, %r2:b32, %r3:b32, %r4:b32",
                "LD .global/statespace .nc/flag .L1::evict_last/cachehint .v2/vector .f32/type | {%f1:f32, _}, [p@param]",
                "MMA .sync/flag .aligned/flag .m16n8k16/shape .row/layout .col/layout .f32/type .f16/type .f16/type .f32/type"
                        + " | {%f1:f32, %f2:f32, %f1:f32, %f2:f32}, {%r1:b32, %r2:b32, %r3:b32, %r4:b32}, {%r1:b32, %r2:b32},"
                        + " {%f1:f32, %f2:f32, %f1:f32, %f2:f32}",
                "RET"), lines(ir, "k"));
    }

    @Test
    void namesResolveInTheirScope() {
        IrModule ir = build(HEADER + """
                .global .align 4 .b8 g[16];
                .func (.param .b32 r) f(.param .b32 a)
                {
                  .reg .b32 %x;
                  ld.param.b32 %x, [a];
                  st.param.b32 [r], %x;
                  ret;
                }
                .visible .entry k()
                {
                  .reg .b32 %r<2>;
                  .reg .b64 %rd;
                  .reg .v4 .b32 %v;
                  .reg .pred %p;
                  .shared .align 8 .b8 sm[64];
                  mov.u32 %r1, %tid.y;
                  mov.u64 %rd, g+4;
                  mov.u64 %rd, generic(sm);
                  mov.b32 %r0, %v.z;
                  mov.u32 %r0, WARP_SZ;
                  {
                    .reg .f32 %r1;
                    .param .b32 pa;
                    .param .b32 pr;
                    st.param.f32 [pa], %r1;
                    call (pr), f, (pa);
                  }
                  @!%p bra L;
                L:
                  st.shared.u32 [sm+-4], %r1;
                  ld.u32 %r0, [16];
                  ret;
                }
                """);
        assertEquals(List.of(
                "LD .param/statespace .b32/type | %x:b32, [a@param]",
                "ST .param/statespace .b32/type | [r@param], %x:b32",
                "RET"), lines(ir, "f"));
        assertEquals(List.of(
                "MOV .u32/type | %r1:b32, sreg:%tid.y",
                "MOV .u64/type | %rd:b64, g@global+4",
                "MOV .u64/type | %rd:b64, generic(sm@shared)",
                "MOV .b32/type | %r0:b32, %v.z:b32",
                "MOV .u32/type | %r0:b32, sreg:WARP_SZ",
                "{",
                "  ST .param/statespace .f32/type | [pa@param], %r1:f32",
                "  CALL | (pr@param), fn:f, (pa@param)",
                "}",
                "@!%p:pred BRA | label:L",
                "L:",
                "ST .shared/statespace .u32/type | [sm@shared-4], %r1:b32",
                "LD .u32/type | %r0:b32, [16]",
                "RET"), lines(ir, "k"));
    }

    /** Float literals keep how they were written; {@code mad.lo.cc} is the carry family although {@code .cc} comes second. */
    @Test
    void floatLiteralsAndCarryForms() {
        IrModule ir = build(HEADER + """
                .visible .entry k()
                {
                  .reg .f64 %d;
                  .reg .f32 %f;
                  .reg .b32 %r<4>;
                  mov.f32 %f, 0fBF800000;
                  mov.f64 %d, 0d3FF0000000000000;
                  mov.f32 %f, -(0f3F800000);
                  mov.f64 %d, 1.5;
                  mov.b32 %f, -2;
                  mad.lo.cc.u32 %r0, %r1, %r2, %r3;
                  madc.hi.u32 %r0, %r1, %r2, %r3;
                  ret;
                }
                """);
        assertEquals(List.of(
                "MOV .f32/type | %f:f32, 0fBF800000",
                "MOV .f64/type | %d:f64, 0d3FF0000000000000",
                "MOV .f32/type | %f:f32, <malformed Unary[op=-, operand=Paren[inner=HexFloat[dbl=false, bits=1065353216]]]>",
                "MOV .f64/type | %d:f64, dec:1.5",
                "MOV .b32/type | %f:f32, -2",
                "MAD_CC .lo/flag .cc/flag .u32/type | %r0:b32, %r1:b32, %r2:b32, %r3:b32",
                "MADC .hi/flag .u32/type | %r0:b32, %r1:b32, %r2:b32, %r3:b32",
                "RET"), lines(ir, "k"));
    }

    /** Every instruction of the nvcc and clang corpus decodes, and no word a back end reads is left untyped. */
    @Test
    void corpusDecodes() throws Exception {
        List<String> untyped = new ArrayList<>();
        int n = 0;
        try (var files = Files.list(Path.of("src/test/resources/corpus"))) {
            for (Path p : files.filter(f -> f.toString().endsWith(".ptx")).sorted().toList()) {
                IrModule ir = build(Files.readString(p));
                for (IrFunction f : ir.functions().values()) {
                    if (f.body() == null) continue;
                    for (Instr x : instructions(f.body())) {
                        n++;
                        // the words of the family's key (wmma.load's .load) are no modifiers of their own
                        int key = x.opcode().family().keyModifiers();
                        for (int i = key; i < x.mods().size(); i++) {
                            if (x.mods().get(i) instanceof Mod.Other o && !untyped.contains(x.opcode() + " " + o.text())) untyped.add(x.opcode() + " " + o.text());
                        }
                    }
                }
            }
        }
        assertTrue(n > 4_000, "corpus instructions: " + n);
        assertEquals(List.of(), untyped);
    }

    static List<Instr> instructions(Stmt.Block b) {
        List<Instr> out = new ArrayList<>();
        for (Stmt s : b.statements()) {
            if (s instanceof Instr x) out.add(x);
            else if (s instanceof Stmt.Block inner) out.addAll(instructions(inner));
        }
        return out;
    }

    static List<String> lines(IrModule ir, String fn) {
        return List.of(IrPrinter.print(ir.function(fn).body()).split("\n"));
    }
}
