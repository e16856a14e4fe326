package dev.zluda.replay;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.Ast.*;
import dev.zluda.ptx.FunctionInfo;
import dev.zluda.ptx.ModuleModel;
import dev.zluda.ptx.ParseResult;
import dev.zluda.ptx.Ptx;
import dev.zluda.ptx.PtxPrinter;
import dev.zluda.ptx.Semantics;
import dev.zluda.ptx.VariableInfo;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Rewrites one kernel of a PTX module (an AST rewrite through the ptx module, printed back with
 * {@link PtxPrinter}) so that it writes what it computes into a trace buffer in device memory,
 * whose address is baked into the code as an immediate (the kernel's parameters are unchanged).
 *
 * <p>Two kinds of trace:
 * <ul>
 *   <li>{@link #values}: one chosen thread (CTA and thread index) records, after every instruction
 *       whose first operand is a declared register (the destination; PTX ISA 9.0 §9.1: destination
 *       operands come first), the destination's bits. Buffer layout: a 16-byte header whose first
 *       u32 counts the results the thread produced (also those past the limit), then records of 16
 *       bytes: u32 instruction index (0-based, in source order of the kernel's body), u32 element of
 *       a vector destination, u64 value (zero-extended raw bits; predicates 0/1).</li>
 *   <li>{@link #stores}: every thread records the addresses of its first {@code slots} {@code st}
 *       instructions: thread {@code g} (linear over the grid, CTA-major, x fastest) owns
 *       {@code slots} records of 16 bytes at {@code 16·slots·g}: u32 instruction index + 1 (0: slot
 *       unused), u32 pad, u64 generic/global address.</li>
 * </ul>
 * A guarded instruction is recorded only when its guard held (the guard is copied before it runs).
 * Destinations of 1 or 16 bytes, and registers of device functions the kernel calls, are not traced.
 */
public final class PtxInstrumenter {
    /** Prefix of every name the instrumentation declares. */
    static final String P = "%__zl_";

    /** One traceable instruction of the kernel: index, source line, text, destination register names and types. */
    public record Site(int index, int line, String text, List<String> dests, List<String> types) {}

    /** The instrumented module and the kernel's instructions (index → site). */
    public record Result(String ptx, List<Site> sites, boolean hasCalls) {}

    private final FunctionInfo fi;
    private final Ast.Module module;
    private final List<Site> sites = new ArrayList<>();
    private int label;
    private boolean hasCalls;

    private PtxInstrumenter(Ast.Module module, FunctionInfo fi) {
        this.module = module;
        this.fi = fi;
    }

    private static FunctionInfo kernel(Ast.Module m, String kernel) throws ReplayException {
        ModuleModel mm = Semantics.analyze(m, "module");
        FunctionInfo fi = mm.function(kernel);
        if (fi == null || fi.ast().body() == null) throw new ReplayException("the module's PTX has no kernel body for " + kernel + ": nothing to instrument");
        return fi;
    }

    private static Ast.Module parse(String ptx) throws ReplayException {
        ParseResult pr = Ptx.parse(ptx, "module");
        if (pr.module() == null) throw new ReplayException("the module's PTX does not parse: " + pr.diagnostics());
        return pr.module();
    }

    /**
     * The kernel's traceable instructions, without instrumenting.
     *
     * @throws ReplayException when the PTX does not parse or has no body for {@code kernel}
     */
    public static List<Site> sites(String ptx, String kernel) throws ReplayException {
        return values(ptx, kernel, 0, new int[6], 1).sites();
    }

    /**
     * Value trace of one thread.
     *
     * @param base  device address of the trace buffer ({@code 16 + 16·limit} bytes)
     * @param who   ctaid.x, .y, .z, tid.x, .y, .z of the traced thread
     * @param limit records the buffer holds
     */
    public static Result values(String ptx, String kernel, long base, int[] who, int limit) throws ReplayException {
        Ast.Module m = parse(ptx);
        PtxInstrumenter in = new PtxInstrumenter(m, kernel(m, kernel));
        StringBuilder pro = new StringBuilder();
        pro.append("mov.u64 ").append(P).append("base, ").append(base).append(";\n");
        pro.append("mov.u32 ").append(P).append("n, 0;\n");
        pro.append("setp.ne.u32 ").append(P).append("q, ").append(P).append("n, 0;\n");
        String[] sr = {"%ctaid.x", "%ctaid.y", "%ctaid.z", "%tid.x", "%tid.y", "%tid.z"};
        for (int i = 0; i < 6; i++) {
            pro.append("mov.u32 ").append(P).append("s, ").append(sr[i]).append(";\n");
            if (i == 0) pro.append("setp.eq.u32 ").append(P).append("t, ").append(P).append("s, ").append(who[i]).append(";\n");
            else pro.append("setp.eq.and.u32 ").append(P).append("t, ").append(P).append("s, ").append(who[i]).append(", ").append(P).append("t;\n");
        }
        return in.rewrite(pro.toString(), (site, ins) -> {
            StringBuilder s = new StringBuilder();
            for (int e = 0; e < site.dests().size(); e++) {
                String v = in.toBits(site.dests().get(e), site.types().get(e));
                if (v == null) continue;
                s.append(v);
                s.append("@").append(P).append("t setp.lt.u32 ").append(P).append("q, ").append(P).append("n, ").append(limit).append(";\n");
                s.append("@").append(P).append("q mad.wide.u32 ").append(P).append("a, ").append(P).append("n, 16, ").append(P).append("base;\n");
                s.append("@").append(P).append("q mov.u32 ").append(P).append("i, ").append(site.index()).append(";\n");
                s.append("@").append(P).append("q mov.u32 ").append(P).append("e, ").append(e).append(";\n");
                s.append("@").append(P).append("q st.global.v2.u32 [").append(P).append("a+16], {").append(P).append("i, ").append(P).append("e};\n");
                s.append("@").append(P).append("q st.global.u64 [").append(P).append("a+24], ").append(P).append("v;\n");
                s.append("@").append(P).append("t add.u32 ").append(P).append("n, ").append(P).append("n, 1;\n");
                s.append("@").append(P).append("t st.global.u32 [").append(P).append("base], ").append(P).append("n;\n");
            }
            return s.toString();
        }, false);
    }

    /**
     * Store-address trace of every thread.
     *
     * @param grid  gridDim x, y, z and blockDim x, y, z of the launch
     * @param slots records per thread
     */
    public static Result stores(String ptx, String kernel, long base, long[] grid, int slots) throws ReplayException {
        Ast.Module m = parse(ptx);
        PtxInstrumenter in = new PtxInstrumenter(m, kernel(m, kernel));
        String s = P + "s", w = P + "w";
        StringBuilder pro = new StringBuilder();
        pro.append("mov.u32 ").append(s).append(", %ctaid.z;\nmov.u32 ").append(w).append(", %ctaid.y;\n");
        pro.append("mad.lo.u32 ").append(s).append(", ").append(s).append(", ").append(grid[1]).append(", ").append(w).append(";\n");
        pro.append("mov.u32 ").append(w).append(", %ctaid.x;\n");
        pro.append("mad.lo.u32 ").append(s).append(", ").append(s).append(", ").append(grid[0]).append(", ").append(w).append(";\n");
        pro.append("mov.u32 ").append(P).append("n, %tid.z;\nmov.u32 ").append(w).append(", %tid.y;\n");
        pro.append("mad.lo.u32 ").append(P).append("n, ").append(P).append("n, ").append(grid[4]).append(", ").append(w).append(";\n");
        pro.append("mov.u32 ").append(w).append(", %tid.x;\n");
        pro.append("mad.lo.u32 ").append(P).append("n, ").append(P).append("n, ").append(grid[3]).append(", ").append(w).append(";\n");
        pro.append("mad.lo.u32 ").append(s).append(", ").append(s).append(", ").append(grid[3] * grid[4] * grid[5]).append(", ").append(P).append("n;\n");
        pro.append("mul.wide.u32 ").append(P).append("a, ").append(s).append(", ").append(16L * slots).append(";\n");
        pro.append("add.u64 ").append(P).append("base, ").append(P).append("a, ").append(base).append(";\n");
        pro.append("mov.u32 ").append(P).append("n, 0;\n");
        return in.rewrite(pro.toString(), (site, ins) -> {
            if (!ins.opcode().equals("st") || ins.operands().isEmpty() || !(ins.operands().getFirst() instanceof AddressOperand a)
                    || a.elements().size() != 1 || !(a.elements().getFirst() instanceof Expr e)) return "";
            String reg;
            long off = 0;
            if (e instanceof Sym r) reg = r.name();
            else if (e instanceof Binary b && b.op().equals("+") && b.left() instanceof Sym r && b.right() instanceof IntLit lit) { reg = r.name(); off = lit.value(); }
            else if (e instanceof Binary b && b.op().equals("-") && b.left() instanceof Sym r && b.right() instanceof IntLit lit) { reg = r.name(); off = -lit.value(); }
            else return "";
            VariableInfo v = in.register(reg);
            if (v == null || v.type() == null || v.type().size() != 8) return "";
            return "add.s64 " + P + "v, " + reg + ", " + off + ";\n"
                    + "setp.lt.u32 " + P + "q, " + P + "n, " + slots + ";\n"
                    + "@" + P + "q mad.wide.u32 " + P + "a, " + P + "n, 16, " + P + "base;\n"
                    + "@" + P + "q mov.u32 " + P + "i, " + (site.index() + 1) + ";\n"
                    + "@" + P + "q st.global.u32 [" + P + "a], " + P + "i;\n"
                    + "@" + P + "q st.global.u64 [" + P + "a+8], " + P + "v;\n"
                    + "add.u32 " + P + "n, " + P + "n, 1;\n";
        }, true);
    }

    private interface Emit {
        String after(Site site, Instruction ins) throws ReplayException;
    }

    /** The register declared under this name (a {@code %r<N>} range under its prefix), or null. */
    private VariableInfo register(String name) {
        VariableInfo v = fi.registers().get(name);
        if (v != null) return v.space().equals(".reg") ? v : null;
        int i = name.length();
        while (i > 0 && Character.isDigit(name.charAt(i - 1))) i--;
        if (i == name.length()) return null;
        v = fi.registers().get(name.substring(0, i));
        return v != null && v.rangeCount() > 0 && v.space().equals(".reg") ? v : null;
    }

    /** Code that leaves {@code reg}'s bits in {@code %__zl_v}, or null when its size is not traced. */
    private String toBits(String reg, String type) {
        return switch (type) {
            case ".pred" -> "selp.u64 " + P + "v, 1, 0, " + reg + ";\n";
            case "16" -> "mov.b16 " + P + "h, " + reg + ";\ncvt.u64.u16 " + P + "v, " + P + "h;\n";
            case "32" -> "mov.b32 " + P + "w, " + reg + ";\ncvt.u64.u32 " + P + "v, " + P + "w;\n";
            case "64" -> "mov.b64 " + P + "v, " + reg + ";\n";
            default -> null;
        };
    }

    /** The destination registers of an instruction (first operand), with their size class, or an empty site. */
    private Site site(int index, Instruction ins) {
        List<String> names = new ArrayList<>(), types = new ArrayList<>();
        if (!ins.operands().isEmpty() && !ins.opcode().equals("st") && !ins.opcode().equals("red")) {
            Operand first = ins.operands().getFirst();
            List<String> cand = new ArrayList<>();
            switch (first) {
                case Sym s when s.component() == null -> cand.add(s.name());
                case PredPair pp -> { cand.add(pp.first()); if (pp.second() != null) cand.add(pp.second()); }
                case VectorOperand vo -> { for (Operand o : vo.elements()) if (o instanceof Sym s && s.component() == null) cand.add(s.name()); }
                default -> {}
            }
            for (String c : cand) {
                VariableInfo v = register(c);
                if (v == null || v.type() == null) continue;
                String t = v.type() == dev.zluda.ptx.PtxType.PRED ? ".pred" : Integer.toString(v.type().size() * 8);
                names.add(c);
                types.add(t);
            }
        }
        return new Site(index, ins.loc().line(), PtxPrinter.print(ins), names, types);
    }

    private Result rewrite(String prologue, Emit emit, boolean storesOnly) throws ReplayException {
        Ast.Function f = fi.ast();
        StringBuilder decl = new StringBuilder();
        decl.append(".reg .pred ").append(P).append("t, ").append(P).append("q, ").append(P).append("g;\n");
        decl.append(".reg .u32 ").append(P).append("n, ").append(P).append("w, ").append(P).append("s, ").append(P).append("i, ").append(P).append("e;\n");
        decl.append(".reg .b16 ").append(P).append("h;\n");
        decl.append(".reg .u64 ").append(P).append("v, ").append(P).append("a, ").append(P).append("base;\n");
        List<Statement> body = new ArrayList<>(statements(decl + prologue));
        body.addAll(block(f.body().statements(), emit, storesOnly));
        Ast.Function nf = new Ast.Function(f.linkage(), f.entry(), f.attributes(), f.returnParams(), f.name(), f.params(), f.directives(),
                new Block(body, f.body().loc()), f.loc());
        List<ModuleItem> items = new ArrayList<>();
        for (ModuleItem it : module.items()) items.add(it == f ? nf : it);
        return new Result(PtxPrinter.print(new Ast.Module(items)), List.copyOf(sites), hasCalls);
    }

    private List<Statement> block(List<Statement> in, Emit emit, boolean storesOnly) throws ReplayException {
        List<Statement> out = new ArrayList<>();
        for (Statement st : in) {
            if (st instanceof Block b) {
                out.add(new Block(block(b.statements(), emit, storesOnly), b.loc()));
                continue;
            }
            if (!(st instanceof Instruction ins)) {
                out.add(st);
                continue;
            }
            if (ins.opcode().equals("call")) hasCalls = true;
            Site site = site(sites.size(), ins);
            sites.add(site);
            String code = emit.after(site, ins);
            if (code.isEmpty() || (!storesOnly && site.dests().isEmpty())) {
                out.add(st);
                continue;
            }
            if (ins.guard() != null) {
                String g = ins.guard().predicate();
                out.addAll(statements((ins.guard().negated() ? "not.pred " : "mov.pred ") + P + "g, " + g + ";\n"));
                out.add(st);
                String l = "$__zl_skip_" + (label++);
                out.addAll(statements("@!" + P + "g bra " + l + ";\n" + code + l + ":\n"));
            } else {
                out.add(st);
                out.addAll(statements(code));
            }
        }
        return out;
    }

    /** Parses statements of a kernel body. */
    private static List<Statement> statements(String code) throws ReplayException {
        String text = ".version 7.0\n.target sm_50\n.address_size 64\n.visible .entry __zl() {\n" + code + "}\n";
        ParseResult pr = Ptx.parse(text, "instrumentation");
        if (pr.module() == null) throw new ReplayException("internal: the instrumentation does not parse: " + pr.diagnostics() + "\n" + text);
        return pr.module().functions().getFirst().body().statements();
    }

    /** {@code 0x3f800000 (1.0)} for a value of the given size class. */
    static String show(long bits, String type) {
        return switch (type) {
            case ".pred" -> bits != 0 ? "true" : "false";
            case "32" -> String.format(Locale.ROOT, "0x%08x (%d / %s)", bits, (int) bits, Float.intBitsToFloat((int) bits));
            case "64" -> String.format(Locale.ROOT, "0x%016x (%d / %s)", bits, bits, Double.longBitsToDouble(bits));
            default -> String.format(Locale.ROOT, "0x%x (%d)", bits, bits);
        };
    }
}
