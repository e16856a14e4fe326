package dev.zluda.ptx;

import dev.zluda.ptx.Ast.*;
import dev.zluda.ptx.Ast.Module;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class ParserTest {
    private static final String HEADER = ".version 9.0\n.target sm_90a, texmode_independent, debug\n.address_size 64\n";

    private static Module parse(String s) {
        return Ptx.parseOrThrow(s, "t.ptx");
    }

    /** The instructions of the first function's body, in order. */
    private static List<Instruction> body(String stmts) {
        Module m = parse(HEADER + ".entry k()\n{\n" + stmts + "\n}\n");
        return m.functions().getFirst().body().statements().stream()
                .filter(Instruction.class::isInstance).map(Instruction.class::cast).toList();
    }

    private static Expr onlyOperandExpr(String stmt) {
        Instruction i = body(stmt).getFirst();
        return (Expr) i.operands().get(1);
    }

    @Test
    void moduleDirectives() {
        Module m = parse(HEADER);
        assertEquals(new Version(9, 0, Loc.NONE), m.items().get(0));
        assertEquals(List.of("sm_90a", "texmode_independent", "debug"), ((Target) m.items().get(1)).names());
        assertEquals(64, ((AddressSize) m.items().get(2)).bits());
        Loc l = m.items().get(1).loc();
        assertEquals(2, l.line());
        assertEquals(1, l.column());
    }

    @Test
    void immediatesOfEveryForm() {
        // 0f3F800000 is 1.0f; 0d4000000000000000 is 2.0
        HexFloat f = (HexFloat) onlyOperandExpr("mov.f32 %f1, 0f3F800000;");
        assertEquals(1.0, f.value());
        assertFalse(f.dbl());
        HexFloat d = (HexFloat) onlyOperandExpr("mov.f64 %fd1, 0d4000000000000000;");
        assertEquals(2.0, d.value());
        assertEquals(new IntLit(255, Radix.HEX, false), onlyOperandExpr("mov.u32 %r1, 0xFF;"));
        assertEquals(new IntLit(8, Radix.OCTAL, false), onlyOperandExpr("mov.u32 %r1, 010;"));
        assertEquals(new IntLit(5, Radix.BINARY, true), onlyOperandExpr("mov.u32 %r1, 0b101U;"));
        assertEquals(new IntLit(42, Radix.DECIMAL, false), onlyOperandExpr("mov.u32 %r1, 42;"));
        assertEquals(new IntLit(0, Radix.DECIMAL, false), onlyOperandExpr("mov.u32 %r1, 0;"));
        assertEquals(-1L, ((IntLit) onlyOperandExpr("mov.u64 %rd1, 0xFFFFFFFFFFFFFFFF;")).value());
        assertEquals(new Unary("-", new IntLit(1, Radix.DECIMAL, false)), onlyOperandExpr("mov.s32 %r1, -1;"));
        assertEquals(1.5e3, ((FloatLit) onlyOperandExpr("mov.f32 %f1, 1.5e3;")).value());
        assertEquals(new Binary("+", new IntLit(1, Radix.DECIMAL, false),
                        new Binary("*", new IntLit(2, Radix.DECIMAL, false), new IntLit(3, Radix.DECIMAL, false))),
                onlyOperandExpr("mov.u32 %r1, 1+2*3;"));
    }

    @Test
    void operandsGuardsVectorsAddresses() {
        List<Instruction> ins = body("""
                @!%p1 ld.global.nc.L1::no_allocate.v4.u32 {%r1, %r2, _, %r4}, [%rd1+-16];
                shfl.sync.bfly.b32 %r1|%p2, %r2, 1, 31, -1;
                setp.eq.and.s32 %p1, %r1, 0, !%p3;
                tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex, {%f5, %f6}];
                call.uni (retval0), vprintf, (param0, param1);
                mov.u32 %r1, %tid.x;
                cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4];
                tcgen05.ld.sync.aligned.16x64b.x2.b32 {%r1, %r2}, [%r3];
                """);
        Instruction ld = ins.get(0);
        assertEquals(new Guard(true, "%p1", Loc.NONE), ld.guard());
        assertEquals("ld", ld.opcode());
        assertEquals(List.of(".global", ".nc", ".L1::no_allocate", ".v4", ".u32"), ld.modifiers());
        VectorOperand v = (VectorOperand) ld.operands().get(0);
        assertEquals(4, v.elements().size());
        assertEquals("_", ((Sym) v.elements().get(2)).name());
        AddressOperand a = (AddressOperand) ld.operands().get(1);
        assertEquals(new Binary("+", new Sym("%rd1", null), new Unary("-", new IntLit(16, Radix.DECIMAL, false))),
                a.elements().getFirst());
        assertEquals(new PredPair("%r1", "%p2", Loc.NONE), ins.get(1).operands().get(0));
        assertEquals(new NegPred("%p3", Loc.NONE), ins.get(2).operands().get(3));
        AddressOperand texAddr = (AddressOperand) ins.get(3).operands().get(1);
        assertInstanceOf(VectorOperand.class, texAddr.elements().get(1));
        assertInstanceOf(TupleOperand.class, ins.get(4).operands().get(0));
        assertEquals(new Sym("%tid", ".x"), ins.get(5).operands().get(1));
        assertEquals(".mbarrier::complete_tx::bytes", ins.get(6).modifiers().getLast());
        assertEquals("cp.async.bulk.tensor", InstructionTable.lookup(ins.get(6)).key());
        assertEquals(".16x64b", ins.get(7).modifiers().get(3));
        assertEquals("tcgen05.ld", InstructionTable.lookup(ins.get(7)).key());
    }

    @Test
    void functionsWithDirectivesAndDeclarations() {
        Module m = parse(HEADER + """
                .extern .func (.param .b32 func_retval0) vprintf(.param .b64 a, .param .b64 b);
                .weak .func .attribute(.unified(0x1, 0x2)) f(.reg .b32 x) .noreturn { ret; }
                .common .global .align 8 .b8 common_buf[16];
                .visible .global .samplerref smp = { filter_mode = nearest, addr_mode_0 = wrap };
                .global .attribute(.managed) .align 4 .u32 managed_var;
                .global .u32 arr2d[2][3] = {{1, 2, 3}, {4, 5, 6}};
                .extern .shared .align 16 .b8 dyn[];
                .alias f2, f;
                .pragma "nounroll";
                .visible .entry k(.param .u64 .ptr .global .align 16 p)
                .maxntid 256, 1, 1
                .minnctapersm 2
                .maxnreg 64
                .maxclusterrank 8
                .reqnctapercluster 2, 1, 1
                .explicitcluster
                .pragma "nounroll";
                {
                    .reg .b32 %r<100>;
                    .local .align 8 .b8 depot[32];
                    .loc 1 10 3, function_name $L__info_string0, inlined_at 1 4 7
                $L__BB0_1:
                    ts: .branchtargets $L__BB0_1, $L__BB0_2;
                    brx.idx %r1, ts;
                $L__BB0_2:
                    proto: .callprototype (.param .b32 _) _ (.param .b32 _);
                    ct: .calltargets f;
                    .pragma "nounroll";
                    ret;
                }
                .file 1 "/tmp/a b.cu", 1700000000, 1234
                .section .debug_info
                {
                    .b32 $L__end - $L__start
                    .b8 1, 2, 0x41
                    .b32 .debug_abbrev
                    .b64 .debug_loc+8
                $L__start:
                $L__end:
                }
                """);
        List<Function> fs = m.functions();
        assertEquals(3, fs.size());
        Function vprintf = fs.get(0);
        assertEquals(List.of(Linkage.EXTERN), vprintf.linkage());
        assertNull(vprintf.body());
        assertEquals(1, vprintf.returnParams().size());
        Function f = fs.get(1);
        assertEquals(".unified", f.attributes().getFirst().items().getFirst().name());
        assertEquals(new PerfDirective(".noreturn", List.of(), Loc.NONE), f.directives().getFirst());
        Function k = fs.get(2);
        assertTrue(k.entry());
        assertEquals(new PerfDirective(".maxntid", List.of(256L, 1L, 1L), Loc.NONE), k.directives().getFirst());
        assertEquals(7, k.directives().size());
        Decl regs = (Decl) k.body().statements().getFirst();
        assertEquals(100L, regs.declarators().getFirst().rangeCount());
        Section sec = (Section) m.items().stream().filter(Section.class::isInstance).findFirst().orElseThrow();
        assertEquals(".debug_info", sec.name());
        assertEquals(6, sec.items().size());
        FileDirective fd = (FileDirective) m.items().stream().filter(FileDirective.class::isInstance).findFirst().orElseThrow();
        assertEquals("/tmp/a b.cu", fd.name());
        assertEquals(1234L, fd.size());
        // the printer round-trips all of it
        assertEquals(m, parse(PtxPrinter.print(m)));
        assertEquals(List.of(), Semantics.analyze(m, "t.ptx").diagnostics());
    }

    @Test
    void syntaxErrorsCarryLineAndColumn() {
        ParseResult r = Ptx.parse(HEADER + ".entry k()\n{\n\tmov.u32 %r1 %r2;\n}\n", "bad.ptx");
        assertFalse(r.ok());
        Diagnostic d = r.diagnostics().getFirst();
        assertEquals("bad.ptx", d.source());
        assertEquals(6, d.line());
        assertEquals(14, d.column());   // tab is one column: "\tmov.u32 %r1 " -> %r2 at 14
        assertTrue(d.format().startsWith("bad.ptx:6:14: error: "), d.format());
    }

    /**
     * Every statement with a syntax error is reported once, at the error, and the next statement is
     * parsed afresh: a ';' missing at the end of a line is reported there (not at the next line's first
     * token), a ';' where an operand is missing is not dropped (which would read the next statement as part
     * of this one), and the follow-on errors of a statement are not listed.
     */
    @Test
    void everyBadStatementIsReportedOnceAndTheNextIsParsedAfresh() {
        ParseResult r = Ptx.parse(HEADER + ".entry k()\n{\n"
                + "\tmov.u32 %r1, %tid.x\n"              // line 6: no ';'
                + "\tadd.u32 %r2, %r1, ;\n"              // line 7: no third operand
                + "\tmul.lo.u32 %r3, %r2 %r1;\n"         // line 8: no ','
                + "\tsub.u32 %r4, %r3, %r1;\n"           // line 9: fine
                + "\tst.global.u32 [%rd1] %r3;\n"        // line 10: no ','
                + "\tret;\n}\n", "bad.ptx");
        List<String> where = r.diagnostics().stream().map(d -> d.line() + ":" + d.column() + " " + d.message()).toList();
        assertEquals(4, where.size(), where.toString());
        assertEquals("6:21 missing ';' after '%tid.x'", where.get(0));
        assertTrue(where.get(1).startsWith("7:20 unexpected ';'; expecting an operand"), where.toString());
        assertTrue(where.get(2).startsWith("8:22 unexpected '%r1'"), where.toString());
        assertTrue(where.get(3).startsWith("10:23 unexpected '%r3'"), where.toString());
    }

    @Test
    void oneBadFunctionDoesNotHideTheOthers() {
        String src = HEADER + """
                .entry a() { ret }
                .entry b() { ret; }
                .entry c() { # }
                """;
        ParseResult r = Ptx.parse(src, "x");
        assertEquals(2, r.diagnostics().size(), r.diagnostics().toString());
        assertEquals(4, r.diagnostics().get(0).line());
        assertEquals(6, r.diagnostics().get(1).line());
        assertEquals(14, r.diagnostics().get(1).column());
        assertTrue(r.diagnostics().get(1).message().contains("unexpected character '#'"));
        assertEquals(List.of("b"), r.module().functions().stream().map(Function::name).toList());
        PtxParseException e = assertThrows(PtxParseException.class, () -> Ptx.parseOrThrow(src, "x"));
        assertEquals(2, e.diagnostics().size());
        assertTrue(e.getMessage().startsWith("x:4:"), e.getMessage());
    }

    @Test
    void deepNestingIsADiagnosticNotAStackOverflow() {
        String deep = HEADER + ".entry k() { mov.u32 %r1, " + "(".repeat(20_000) + "1" + ")".repeat(20_000) + "; }";
        ParseResult r = Ptx.parse(deep, "deep");
        assertFalse(r.ok());
        assertTrue(r.diagnostics().getFirst().message().contains("nested deeper"), r.diagnostics().toString());
        String ops = HEADER + ".entry k() { mov.u32 %r1, " + "-".repeat(20_000) + "1; }";
        ParseResult r2 = Ptx.parse(ops, "ops");
        assertFalse(r2.ok());
        assertEquals(4, r2.diagnostics().getFirst().line());
    }

    @Test
    void longSectionsAreFineButHugeExpressionsAreRejected() {
        StringBuilder sec = new StringBuilder(HEADER + ".section .debug_info\n{\n");
        for (int i = 0; i < 5000; i++) sec.append("\t.b32 $L__b").append(i).append("-$L__a").append(i).append('\n');
        sec.append("}\n");
        assertTrue(Ptx.parse(sec, "sec").ok());
        StringBuilder expr = new StringBuilder(HEADER + ".entry k()\n{\n\tmov.u32 %r1, 1");
        for (int i = 0; i < 2000; i++) expr.append("\n+1");
        expr.append(";\n}\n");
        ParseResult r = Ptx.parse(expr, "expr");
        assertFalse(r.ok());
        assertTrue(r.diagnostics().getFirst().message().contains("operators"), r.diagnostics().toString());
    }

    @Test
    void unterminatedInputPointsAtItsEnd() {
        ParseResult r = Ptx.parse(HEADER + ".entry k()\n{\n\tret;\n", "t");
        assertFalse(r.ok());
        Diagnostic d = r.diagnostics().getFirst();
        assertTrue(d.message().contains("end of input"), d.message());
        assertEquals(7, d.line());
    }
}
