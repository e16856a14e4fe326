package dev.zluda.runtime.emulator.conformance;

import dev.zluda.runtime.emulator.conformance.Sweep.Form;
import dev.zluda.runtime.emulator.conformance.SweepValues.Cls;
import dev.zluda.runtime.emulator.conformance.SweepValues.Plan;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The kernels of the sweep ({@link Sweep}) that are more than one instruction between a load and a store:
 * extended-precision chains (every producer of the carry flag with every consumer), predicate logic,
 * {@code lop3} with every function table, vector packing, loads and stores in every state space, vector width and
 * type (and with every cache, eviction and memory-order qualifier once), atomics and reductions (per thread and
 * contended), address conversion, {@code cp.async}, barriers, fences, warp-level instructions (shfl, vote, match,
 * redux, activemask, elect: with partial member masks, run by every warp and twice per kernel), the warp-level
 * matrix instructions (every layout and type the emulator accepts, by every warp, twice per kernel), control flow,
 * the stack, miscellaneous instructions, the video instructions (ground truth only: the emulator does not execute
 * them), and probes of operand forms (vector operands of another width, wider registers, vector registers,
 * {@code .local} and function-scope {@code .global} variables).
 */
final class SweepKernels {
    private SweepKernels() {}

    private static final Cls I16 = SweepValues.cls("i16"), I32 = SweepValues.cls("i32"), I64 = SweepValues.cls("i64"), F32 = SweepValues.cls("f32"),
            BOOL = SweepValues.cls("bool"), ANY32 = SweepValues.cls("any32"), ANY64 = SweepValues.cls("any64");

    private static final List<Form> OUT = new ArrayList<>();

    /** Every form of this class, in a fixed order. */
    static List<Form> all() {
        if (OUT.isEmpty()) {
            predicates();
            lop3();
            carry();
            pack();
            memory();
            atomics();
            addresses();
            asyncCopies();
            noEffect();
            barriers();
            warp();
            matrix();
            control();
            misc();
            video();
            probes();
        }
        return OUT;
    }

    // ------------------------------------------------------------------ helpers

    static Plan std(String name, Cls... ops) {
        return new Plan(Plan.STD, Sweep.seed(name), ops, new boolean[ops.length], 32, 8, 0);
    }

    static Plan rand(String name, int tuples, int stride, int wordBytes, Cls[] ops, boolean[] uniform) {
        return new Plan(Plan.RAND, Sweep.seed(name), ops, uniform, stride, wordBytes, tuples);
    }

    static Plan rand(String name, int tuples, Cls... ops) {
        return rand(name, tuples, 32, 8, ops, new boolean[ops.length]);
    }

    private static void add(String name, String family, List<String> subject, String ptx, Plan plan, int outStride, boolean optional) {
        OUT.add(new Form(name, family, subject, ptx, plan, outStride, null, plan.tuples(), optional));
    }

    /** Adds a form whose kernel is {@link Sweep#prologue} + body + {@link Sweep#EPILOGUE}. */
    private static void kernel(String name, String family, List<String> subject, Plan plan, int outStride, boolean optional, String decls, String body) {
        String ptx = Sweep.prologue(name, plan.stride(), outStride, decls) + body + Sweep.EPILOGUE;
        add(name, family, subject, ptx, plan, outStride, optional);
    }

    private static String loads(Cls... ops) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < ops.length; i++) sb.append(Sweep.load(Sweep.reg(ops[i]), "%" + Sweep.reg(ops[i]) + i, i));
        return sb.toString();
    }

    /** The forms (opcode and modifiers) of the instructions of a PTX text, in order of first appearance. */
    static List<String> formsIn(String ptx) {
        Set<String> out = new LinkedHashSet<>();
        for (String line : ptx.split("\n")) {
            String l = line.strip();
            if (l.isEmpty() || l.startsWith("//") || l.startsWith(".") || l.endsWith(":") || l.startsWith("{") || l.startsWith("}")) continue;
            if (l.startsWith("@")) l = l.substring(l.indexOf(' ') + 1).strip();
            for (String stmt : l.split(";")) {
                String s = stmt.strip();
                if (s.isEmpty()) continue;
                if (s.startsWith("@")) s = s.substring(s.indexOf(' ') + 1).strip();
                int sp = s.indexOf(' ');
                String op = sp < 0 ? s : s.substring(0, sp);
                if (!op.isEmpty() && Character.isLetter(op.charAt(0))) out.add(op);
            }
        }
        return new ArrayList<>(out);
    }

    // ------------------------------------------------------------------ predicates, lop3, carry, packing

    private static void predicates() {
        for (String op : new String[] {"and", "or", "xor"}) {
            for (String neg : new String[] {"", "!"}) {
                String form = op + ".pred";
                String name = form + (neg.isEmpty() ? "" : " #neg");
                kernel(name, op, List.of(form), std(name, BOOL, BOOL), 16, !neg.isEmpty(), "",
                        loads(BOOL, BOOL) + form + " %p7, " + neg + "%p0, %p1;\n" + Sweep.store("p", "%p7", 0));
            }
        }
        kernel("not.pred", "not", List.of("not.pred"), std("not.pred", BOOL), 16, false, "", loads(BOOL) + "not.pred %p7, %p0;\n" + Sweep.store("p", "%p7", 0));
        kernel("mov.pred", "mov", List.of("mov.pred"), std("mov.pred", BOOL), 16, false, "", loads(BOOL) + "mov.pred %p7, %p0;\n" + Sweep.store("p", "%p7", 0));
        kernel("mov.pred #neg", "mov", List.of("mov.pred"), std("mov.pred #neg", BOOL), 16, true, "", loads(BOOL) + "mov.pred %p7, !%p0;\n" + Sweep.store("p", "%p7", 0));
        kernel("selp.b32 #negated-predicate", "selp", List.of("selp.b32"), std("selp.b32 #negated-predicate", I32, I32, BOOL), 16, false, "",
                loads(I32, I32, BOOL) + "selp.b32 %r7, %r0, %r1, !%p2;\n" + Sweep.store("r", "%r7", 0));
    }

    private static void lop3() {
        for (int lut = 0; lut < 256; lut++) {
            String name = String.format("lop3.b32 0x%02x", lut);
            kernel(name, "lop3", List.of("lop3.b32"), std(name, ANY32, ANY32, ANY32), 16, false, "",
                    loads(ANY32, ANY32, ANY32) + String.format("lop3.b32 %%r7, %%r0, %%r1, %%r2, 0x%02x;\n", lut) + Sweep.store("r", "%r7", 0));
        }
        for (String b : new String[] {".and", ".or"}) {
            for (int lut : new int[] {0x00, 0xff, 0x96, 0xe8, 0x80, 0xfe, 0x3c, 0x5a, 0xca, 0x01}) {
                String form = "lop3" + b + ".b32";
                String name = String.format("%s 0x%02x", form, lut);
                kernel(name, "lop3", List.of(form), std(name, ANY32, ANY32, ANY32, BOOL), 16, false, "",
                        loads(ANY32, ANY32, ANY32, BOOL) + String.format("%s %%r7|%%p7, %%r0, %%r1, %%r2, 0x%02x, %%p3;\n", form, lut)
                                + Sweep.store("r", "%r7", 0) + Sweep.store("p", "%p7", 8));
            }
        }
    }

    /**
     * Extended precision (PTX ISA 9.0, §9.7.2): the carry flag set from an input by {@code add.cc} (CF = c) or by
     * {@code sub.cc} (a borrow of c), then the instruction under test, then CF read by both {@code addc.u32 e, 0, 0}
     * and {@code subc.u32 f, 0, 0}: output slot 0 the result, slot 1 {@code e | f << 32}. Every producer of the flag
     * is so combined with both consumers, and every consumer with both producers.
     */
    private static void carry() {
        String[] xs = {"add.cc", "sub.cc", "addc", "addc.cc", "subc", "subc.cc", "mad.lo.cc", "mad.hi.cc", "madc.lo", "madc.hi", "madc.lo.cc", "madc.hi.cc"};
        for (String t : new String[] {".u32", ".s32", ".u64", ".s64"}) {
            boolean w = t.endsWith("64");
            Cls v = w ? I64 : I32;
            String k = w ? "l" : "r";
            for (String x : xs) {
                boolean in = x.startsWith("addc") || x.startsWith("subc") || x.startsWith("madc");
                boolean mad = x.startsWith("mad");
                List<String[]> setters = new ArrayList<>();
                setters.add(new String[] {"add", t});
                if (in) {
                    setters.add(new String[] {"sub", t});
                    if (w) {
                        setters.add(new String[] {"add", ".u32"});
                        setters.add(new String[] {"sub", ".u32"});
                    }
                }
                for (String[] st : setters) {
                    String form = x + t;
                    String name = form + (in ? " #cf=" + st[0] + st[1].substring(2) : "");
                    boolean sw = st[1].endsWith("64");
                    String s = sw ? "%l9" : "%r9";
                    String bits = sw ? ".b64" : ".b32";
                    String ut = sw ? ".u64" : ".u32";
                    Cls[] ops = mad ? new Cls[] {v, v, v, BOOL} : new Cls[] {v, v, BOOL};
                    int cIdx = mad ? 3 : 2;
                    String set = "selp" + bits + " " + s + ", 1, 0, %p" + cIdx + ";\n"
                            + (st[0].equals("add") ? "add.cc" + ut + " " + s + ", " + s + ", -1;\n" : "sub.cc" + ut + " " + s + ", 0, " + s + ";\n");
                    String args = mad ? "%" + k + "0, %" + k + "1, %" + k + "2" : "%" + k + "0, %" + k + "1";
                    String body = loads(ops) + set + form + " %" + k + "7, " + args + ";\n"
                            + "addc.u32 %r10, 0, 0;\nsubc.u32 %r11, 0, 0;\n"
                            + Sweep.store(k, "%" + k + "7", 0) + "st.global.b32 [%q3+8], %r10;\nst.global.b32 [%q3+12], %r11;\n";
                    List<String> subject = List.of(form, (st[0].equals("add") ? "add.cc" : "sub.cc") + ut, "addc.u32", "subc.u32");
                    String fam = x.startsWith("mad.") ? "mad.cc" : x.startsWith("madc") ? "madc" : x.replace(".cc", "").equals(x) ? x : x.startsWith("add.") ? "add.cc"
                            : x.startsWith("sub.") ? "sub.cc" : x.substring(0, x.indexOf('.'));
                    kernel(name, fam, subject, std(name, ops), 16, false, ".reg .b32 %r<16>;\n".isEmpty() ? "" : "", body);
                }
            }
        }
        // a 64-bit add and subtract in 32-bit halves: the chains compilers emit
        for (String[] ch : new String[][] {{"add.cc.u32", "addc.cc.u32", "addc.u32"}, {"sub.cc.u32", "subc.cc.u32", "subc.u32"},
                {"add.cc.u32", "addc.cc.u32", "subc.u32"}, {"sub.cc.u32", "subc.cc.u32", "addc.u32"}}) {
            String name = String.join("; ", ch) + " #chain";
            String body = loads(I64, I64) + "mov.b64 {%r0, %r1}, %l0;\nmov.b64 {%r2, %r3}, %l1;\n"
                    + ch[0] + " %r4, %r0, %r2;\n" + ch[1] + " %r5, %r1, %r3;\n" + ch[2] + " %r6, 0, 0;\n"
                    + "mov.b64 %l7, {%r4, %r5};\n" + Sweep.store("l", "%l7", 0) + "st.global.b32 [%q3+8], %r6;\n";
            kernel(name, ch[1].startsWith("addc") ? "addc" : "subc", List.of(ch), std(name, I64, I64), 16, false, "", body);
        }
    }

    private static void pack() {
        kernel("mov.b32 {h, h} -> r", "mov", List.of("mov.b32"), std("mov.b32 {h, h} -> r", I16, I16), 16, false, "",
                loads(I16, I16) + "mov.b32 %r7, {%h0, %h1};\n" + Sweep.store("r", "%r7", 0));
        kernel("mov.b64 {r, r} -> l", "mov", List.of("mov.b64"), std("mov.b64 {r, r} -> l", I32, I32), 16, false, "",
                loads(I32, I32) + "mov.b64 %l7, {%r0, %r1};\n" + Sweep.store("l", "%l7", 0));
        kernel("mov.b64 {h, h, h, h} -> l", "mov", List.of("mov.b64"), rand("mov.b64 {h, h, h, h} -> l", 16384, I16, I16, I16, I16), 16, false, "",
                loads(I16, I16, I16, I16) + "mov.b64 %l7, {%h0, %h1, %h2, %h3};\n" + Sweep.store("l", "%l7", 0));
        kernel("mov.b32 r -> {h, h}", "mov", List.of("mov.b32"), std("mov.b32 r -> {h, h}", I32), 16, false, "",
                loads(I32) + "mov.b32 {%h6, %h7}, %r0;\n" + Sweep.store("h", "%h6", 0) + Sweep.store("h", "%h7", 8));
        kernel("mov.b64 l -> {r, r}", "mov", List.of("mov.b64"), std("mov.b64 l -> {r, r}", I64), 16, false, "",
                loads(I64) + "mov.b64 {%r6, %r7}, %l0;\n" + Sweep.store("r", "%r6", 0) + Sweep.store("r", "%r7", 8));
        kernel("mov.b64 l -> {h, h, h, h}", "mov", List.of("mov.b64"), std("mov.b64 l -> {h, h, h, h}", I64), 16, false, "",
                loads(I64) + "mov.b64 {%h4, %h5, %h6, %h7}, %l0;\n" + Sweep.store("h", "%h4", 0) + Sweep.store("h", "%h5", 2) + Sweep.store("h", "%h6", 4)
                        + Sweep.store("h", "%h7", 6));
        kernel("mov.b64 l -> {_, r}", "mov", List.of("mov.b64"), std("mov.b64 l -> {_, r}", I64), 16, false, "",
                loads(I64) + "mov.b64 {_, %r7}, %l0;\n" + Sweep.store("r", "%r7", 0));
        kernel("mov.b32 r -> {h, _}", "mov", List.of("mov.b32"), std("mov.b32 r -> {h, _}", I32), 16, false, "",
                loads(I32) + "mov.b32 {%h7, _}, %r0;\n" + Sweep.store("h", "%h7", 0));
        // immediates of every kind into registers of every type
        String body = "mov.u32 %r6, 0x12345678;\nmov.s32 %r7, -5;\nmov.f32 %r8, 0f3FC00000;\nmov.f64 %l6, 0d4002000000000000;\nmov.b16 %h6, 0x8001;\n"
                + "mov.u64 %l7, 0xFFFFFFFF00000001;\nmov.f32 %r9, 0fFF812345;\n"
                + "add.u32 %r6, %r6, %r7;\nxor.b32 %r6, %r6, %r8;\nxor.b32 %r6, %r6, %r9;\ncvt.u32.u16 %r10, %h6;\nxor.b32 %r6, %r6, %r10;\n"
                + "xor.b64 %l6, %l6, %l7;\n" + Sweep.store("r", "%r6", 0) + Sweep.store("l", "%l6", 8);
        kernel("mov immediates", "mov", List.of("mov.u32", "mov.s32", "mov.f32", "mov.f64", "mov.b16", "mov.u64"), rand("mov immediates", 1024), 16, false, "",
                body);
    }

    // ------------------------------------------------------------------ loads and stores

    private static final String[] MEM_TYPES = {".b8", ".b16", ".b32", ".b64", ".u8", ".u16", ".u32", ".u64", ".s8", ".s16", ".s32", ".s64", ".f16", ".bf16",
            ".f32", ".f64"};

    private static int size(String t) {
        return switch (t) {
            case ".b8", ".u8", ".s8" -> 1;
            case ".b16", ".u16", ".s16", ".f16", ".bf16" -> 2;
            case ".b64", ".u64", ".s64", ".f64" -> 8;
            default -> 4;
        };
    }

    /** Register kind of a loaded element: 8- and 16-bit values in 16-bit registers. */
    private static String rk(String t) {
        int s = size(t);
        return s <= 2 ? "h" : s == 4 ? "r" : "l";
    }

    private static String vecRegs(String t, int vec, int first) {
        String k = rk(t);
        StringBuilder sb = new StringBuilder(vec > 1 ? "{" : "");
        for (int e = 0; e < vec; e++) sb.append(e == 0 ? "" : ", ").append('%').append(k).append(first + e);
        return sb.append(vec > 1 ? "}" : "").toString();
    }

    /** Stores registers first.. of a loaded vector at their natural offsets of the output record (register size each). */
    private static String storeVec(String t, int vec, int first) {
        StringBuilder sb = new StringBuilder();
        String k = rk(t);
        int rs = k.equals("h") ? 2 : k.equals("r") ? 4 : 8;
        for (int e = 0; e < vec; e++) sb.append(Sweep.store(k, "%" + k + (first + e), rs * e));
        return sb.toString();
    }

    private static int outFor(String t, int vec) {
        String k = rk(t);
        int rs = k.equals("h") ? 2 : k.equals("r") ? 4 : 8;
        return rs * vec > 16 ? 32 : 16;
    }

    /** Copies the thread's 32-byte input tuple to the address in %l8 of state space {@code space}. */
    private static String copyTuple(String space) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 4; i++) sb.append("ld.global.b64 %l9, [%q2+").append(8 * i).append("];\nst").append(space).append(".b64 [%l8+").append(8 * i)
                .append("], %l9;\n");
        return sb.toString();
    }

    private static final String SMEM = ".shared .align 32 .b8 sm[4096];\n";
    private static final String SMEM_ADDR = "mov.u64 %l8, sm;\nmov.u32 %t4, %tid.x;\nmul.wide.u32 %q4, %t4, 32;\nadd.s64 %l8, %l8, %q4;\n";

    /** Constant data of the const-space loads: a fixed pattern (the same on every device). */
    private static String constData() {
        StringBuilder sb = new StringBuilder(".const .align 32 .b8 cdata[4096] = {");
        long x = 0x1234_5678_9abc_def1L;
        for (int i = 0; i < 4096; i++) {
            x = SweepValues.mix64(x + i);
            sb.append(i == 0 ? "" : ", ").append(x & 0xff);
        }
        return sb.append("};\n").toString();
    }

    private static void memory() {
        int[] vecs = {1, 2, 4};
        // spaces: the address in %l8 (or a 32-bit one in %t5 for .shared), set up by a prologue
        String[][] spaces = {
                {"global", ".global", "mov.b64 %l8, %q2;\n", ""},
                {"shared", ".shared", SMEM_ADDR + copyTuple(".shared"), SMEM},
                {"shared::cta", ".shared::cta", SMEM_ADDR + copyTuple(".shared"), SMEM},
                {"local", ".local", "mov.u64 %l8, lbuf;\n" + copyTuple(".local"), ""},
                {"const", ".const", "ld.global.b32 %t5, [%q2];\nand.b32 %t5, %t5, 4064;\ncvt.u64.u32 %q5, %t5;\nmov.u64 %l8, cdata;\nadd.s64 %l8, %l8, %q5;\n", null},
                {"generic global", "", "mov.b64 %l8, %q2;\n", ""},
                {"generic shared", "", SMEM_ADDR + copyTuple(".shared") + "cvta.shared.u64 %l8, %l8;\n", SMEM},
                {"generic local", "", "mov.u64 %l8, lbuf;\n" + copyTuple(".local") + "cvta.local.u64 %l8, %l8;\n", ""},
        };
        String cdata = constData();
        for (String[] sp : spaces) {
            for (int vec : vecs) {
                for (String t : MEM_TYPES) {
                    String form = "ld" + sp[1] + (vec > 1 ? ".v" + vec : "") + t;
                    String name = form + (sp[0].startsWith("generic") ? " #" + sp[0] : "");
                    String decls = sp[3] == null ? cdata : sp[3];
                    String lbuf = sp[0].endsWith("local") ? ".local .align 32 .b8 lbuf[32];\n" : "";
                    String body = lbuf + sp[2] + form + " " + vecRegs(t, vec, 0) + ", [%l8];\n" + storeVec(t, vec, 0);
                    kernel(name, "ld", List.of(form), rand(name, 1024, ANY64, ANY64, ANY64, ANY64), outFor(t, vec), true, decls, body);
                    if (sp[0].equals("global")) {
                        String uf = "ldu.global" + (vec > 1 ? ".v" + vec : "") + t;
                        kernel(uf, "ldu", List.of(uf), rand(uf, 1024, ANY64, ANY64, ANY64, ANY64), outFor(t, vec), true, "",
                                sp[2] + uf + " " + vecRegs(t, vec, 0) + ", [%l8];\n" + storeVec(t, vec, 0));
                    }
                    if (sp[0].equals("const")) continue;
                    // stores: the values loaded from the tuple (ld.global of the same shape), stored, read back as bytes
                    String sf = "st" + sp[1] + (vec > 1 ? ".v" + vec : "") + t;
                    String sname = sf + (sp[0].startsWith("generic") ? " #" + sp[0] : "");
                    String ldg = "ld.global" + (vec > 1 ? ".v" + vec : "") + t + " " + vecRegs(t, vec, 0) + ", [%q2];\n";
                    String zero = "";
                    String setup;
                    if (sp[0].equals("global") || sp[0].equals("generic global")) {
                        setup = "mov.b64 %l8, %q3;\n";
                    } else {
                        // clear the destination first (so unwritten bytes read back as zero), store, copy the 32 bytes out
                        setup = sp[2].replace(copyTuple(sp[1].isEmpty() ? (sp[0].contains("shared") ? ".shared" : ".local") : sp[1].equals(".shared::cta") ? ".shared" : sp[1]), "");
                        String raw = sp[0].contains("shared") ? ".shared" : ".local";
                        String base = sp[0].startsWith("generic") ? "%l7" : "%l8";
                        if (sp[0].startsWith("generic")) setup = setup.replace("cvta." + raw.substring(1) + ".u64 %l8, %l8;\n", "cvta." + raw.substring(1) + ".u64 %l7, %l8;\n");
                        StringBuilder z = new StringBuilder();
                        for (int i = 0; i < 4; i++) z.append("st").append(raw).append(".b64 [%l8+").append(8 * i).append("], 0;\n");
                        zero = z.toString();
                        StringBuilder back = new StringBuilder();
                        for (int i = 0; i < 4; i++) back.append("ld").append(raw).append(".b64 %l9, [%l8+").append(8 * i).append("];\nst.global.b64 [%q3+").append(8 * i)
                                .append("], %l9;\n");
                        String sbody = lbuf + setup + zero + ldg + sf + " [" + base + "], " + vecRegs(t, vec, 0) + ";\n" + back;
                        kernel(sname, "st", List.of(sf), rand(sname, 1024, ANY64, ANY64, ANY64, ANY64), 32, true, decls, sbody);
                        continue;
                    }
                    kernel(sname, "st", List.of(sf), rand(sname, 1024, ANY64, ANY64, ANY64, ANY64), 32, true, decls,
                            setup + ldg + sf + " [%l8], " + vecRegs(t, vec, 0) + ";\n");
                }
            }
        }
        // .param: a device function reads its argument and returns it
        for (int vec : vecs) {
            for (String t : MEM_TYPES) {
                String lf = "ld.param" + (vec > 1 ? ".v" + vec : "") + t, sf = "st.param" + (vec > 1 ? ".v" + vec : "") + t;
                String name = lf + "; " + sf + " #function";
                String k = rk(t);
                String func = ".func (.param .align 32 .b8 fr[32]) f(.param .align 32 .b8 fx[32])\n{\n.reg .b16 %h<8>;\n.reg .b32 %r<8>;\n.reg .b64 %l<8>;\n"
                        + lf + " " + vecRegs(t, vec, 0) + ", [fx];\n" + sf + " [fr], " + vecRegs(t, vec, 0) + ";\nret;\n}\n";
                StringBuilder body = new StringBuilder("{\n.param .align 32 .b8 pa[32];\n");
                for (int i = 0; i < 4; i++) body.append("ld.global.b64 %l9, [%q2+").append(8 * i).append("];\nst.param.b64 [pa+").append(8 * i).append("], %l9;\n");
                body.append(".param .align 32 .b8 pr[32];\ncall.uni (pr), f, (pa);\n").append(lf).append(' ').append(vecRegs(t, vec, 0)).append(", [pr];\n}\n")
                        .append(storeVec(t, vec, 0));
                kernel(name, "ld", List.of(lf, sf, "st.param.b64", "call.uni"), rand(name, 1024, ANY64, ANY64, ANY64, ANY64), outFor(t, vec), true,
                        func, body.toString().replace("%" + k + "0", "%" + k + "0"));
            }
        }
        // every cache, eviction and memory-order qualifier once (on a 32-bit and a vector access)
        String[] ldq = {".ca", ".cg", ".cs", ".lu", ".cv", ".nc", ".L1::evict_normal", ".L1::evict_unchanged", ".L1::evict_first", ".L1::evict_last",
                ".L1::no_allocate", ".L2::64B", ".L2::128B", ".L2::256B", ".L1::evict_last.L2::256B", ".nc.L1::no_allocate.L2::128B", ".nc.L2::64B"};
        for (String q : ldq) {
            for (String shape : new String[] {".u32", ".v4.f32"}) {
                String form = "ld.global" + q + shape;
                int vec = shape.startsWith(".v4") ? 4 : 1;
                String t = shape.substring(shape.lastIndexOf('.'));
                kernel(form, "ld", List.of(form), rand(form, 1024, ANY64, ANY64, ANY64, ANY64), outFor(t, vec), true, "",
                        form + " " + vecRegs(t, vec, 0) + ", [%q2];\n" + storeVec(t, vec, 0));
            }
        }
        String[] orders = {".weak", ".volatile", ".relaxed.cta", ".relaxed.gpu", ".relaxed.sys", ".relaxed.cluster", ".acquire.cta", ".acquire.gpu", ".acquire.sys",
                ".acquire.cluster", ".mmio.relaxed.sys"};
        for (String q : orders) {
            for (String[] sp : new String[][] {{".global", "mov.b64 %l8, %q2;\n", ""}, {".shared", SMEM_ADDR + copyTuple(".shared"), SMEM}, {"", "mov.b64 %l8, %q2;\n", ""}}) {
                String form = "ld" + q + sp[0] + ".u32";
                kernel(form, "ld", List.of(form), rand(form, 1024, ANY64, ANY64, ANY64, ANY64), 16, true, sp[2], sp[1] + form + " %r0, [%l8];\n" + Sweep.store("r", "%r0", 0));
            }
        }
        String[] stq = {".wb", ".cg", ".cs", ".wt", ".L1::evict_normal", ".L1::evict_unchanged", ".L1::evict_first", ".L1::evict_last", ".L1::no_allocate"};
        for (String q : stq) {
            String form = "st.global" + q + ".u32";
            kernel(form, "st", List.of(form), rand(form, 1024, ANY64), 16, true, "", "ld.global.u32 %r0, [%q2];\n" + form + " [%q3], %r0;\n");
        }
        String[] sorders = {".weak", ".volatile", ".relaxed.cta", ".relaxed.gpu", ".relaxed.sys", ".relaxed.cluster", ".release.cta", ".release.gpu", ".release.sys",
                ".release.cluster", ".mmio.relaxed.sys"};
        for (String q : sorders) {
            for (String sp : new String[] {".global", ""}) {
                String form = "st" + q + sp + ".u32";
                kernel(form, "st", List.of(form), rand(form, 1024, ANY64), 16, true, "", "ld.global.u32 %r0, [%q2];\n" + form + " [%q3], %r0;\n");
            }
        }
        // a cache policy operand (L2::cache_hint) from createpolicy
        String pol = "createpolicy.fractional.L2::evict_last.b64 %l10, 1.0;\n";
        kernel("ld.global.L2::cache_hint.u32", "ld", List.of("ld.global.L2::cache_hint.u32", "createpolicy.fractional.L2::evict_last.b64"),
                rand("ld.global.L2::cache_hint.u32", 1024, ANY64), 16, true, "", pol + "ld.global.L2::cache_hint.u32 %r0, [%q2], %l10;\n" + Sweep.store("r", "%r0", 0));
        kernel("st.global.L2::cache_hint.u32", "st", List.of("st.global.L2::cache_hint.u32", "createpolicy.fractional.L2::evict_last.b64"),
                rand("st.global.L2::cache_hint.u32", 1024, ANY64), 16, true, "", pol + "ld.global.u32 %r0, [%q2];\nst.global.L2::cache_hint.u32 [%q3], %r0, %l10;\n");
        // addresses: a symbol plus an offset, a register plus a negative offset, 32-bit shared addresses
        kernel("ld.global.u32 [sym+off]", "ld", List.of("ld.global.u32"), rand("ld.global.u32 [sym+off]", 1024, ANY64), 16, false,
                ".global .align 8 .b32 gsym[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n", "ld.global.u32 %r0, [gsym+12];\nld.global.u32 %r1, [%q2+4];\nadd.u32 %r0, %r0, %r1;\n"
                        + "add.s64 %l0, %q2, 16;\nld.global.u32 %r2, [%l0+-12];\nst.global.v2.u32 [%q3], {%r0, %r2};\n");
        kernel("ld.shared.u32 [r32]", "ld", List.of("ld.shared.u32", "st.shared.u32"), rand("ld.shared.u32 [r32]", 1024, ANY64), 16, false, SMEM,
                "mov.u32 %t4, sm;\nmov.u32 %t5, %tid.x;\nshl.b32 %t5, %t5, 2;\nadd.u32 %t4, %t4, %t5;\nld.global.u32 %r0, [%q2];\nst.shared.u32 [%t4], %r0;\n"
                        + "bar.sync 0;\nxor.b32 %t5, %t5, 4;\nmov.u32 %t4, sm;\nadd.u32 %t4, %t4, %t5;\nld.shared.u32 %r1, [%t4+0];\nst.global.u32 [%q3], %r1;\n");
    }

    // ------------------------------------------------------------------ atomics

    private static Cls atomCls(String t) {
        return switch (t) {
            case ".b64", ".u64", ".s64" -> I64;
            case ".f32" -> F32;
            case ".f64" -> SweepValues.cls("f64");
            case ".f16" -> SweepValues.cls("f16");
            case ".bf16" -> SweepValues.cls("bf16");
            case ".f16x2" -> SweepValues.cls("f16x2");
            case ".bf16x2" -> SweepValues.cls("bf16x2");
            case ".b16" -> I16;
            default -> I32;
        };
    }

    private static void atomics() {
        String[] ops = {".and", ".or", ".xor", ".cas", ".exch", ".add", ".inc", ".dec", ".min", ".max", ".add.noftz", ".min.noftz", ".max.noftz"};
        String[] types = {".b16", ".b32", ".b64", ".u32", ".s32", ".u64", ".s64", ".f16", ".bf16", ".f16x2", ".bf16x2", ".f32", ".f64"};
        String[][] spaces = {{"global", ".global"}, {"shared", ".shared"}, {"shared::cta", ".shared::cta"}, {"generic global", ""}, {"generic shared", ""}};
        for (String op : ops) {
            for (String t : types) {
                Cls c = atomCls(t);
                String k = Sweep.reg(c);
                int sz = size(t.replace("x2", "").equals(t) ? t : ".b32");
                String bt = sz == 2 ? ".b16" : sz == 4 ? ".b32" : ".b64";
                boolean cas = op.equals(".cas");
                boolean small = op.equals(".inc") || op.equals(".dec");
                for (String[] sp : spaces) {
                    for (boolean red : new boolean[] {false, true}) {
                        if (red && (cas || op.equals(".exch"))) continue;
                        String form = (red ? "red" : "atom") + sp[1] + op + t;
                        String name = form + (sp[0].startsWith("generic") ? " #" + sp[0] : "");
                        Cls b = small ? SweepValues.cls("sh") : c;
                        Cls[] in = cas ? new Cls[] {c, c, c} : new Cls[] {c, b};
                        String addr, setup, back;
                        String decls = "";
                        if (sp[0].contains("shared")) {
                            decls = SMEM;
                            setup = "mov.u64 %l8, sm;\nmov.u32 %t4, %tid.x;\nmul.wide.u32 %q4, %t4, 8;\nadd.s64 %l8, %l8, %q4;\n";
                            if (sp[0].startsWith("generic")) setup += "cvta.shared.u64 %l7, %l8;\n";
                            back = "ld.shared" + bt + " %" + k + "9, [%l8];\n" + Sweep.store(k, "%" + k + "9", 8);
                            addr = sp[0].startsWith("generic") ? "%l7" : "%l8";
                            setup += "st.shared" + bt + " [%l8], %" + k + "0;\n";
                        } else {
                            setup = "add.s64 %l8, %q3, 8;\nst.global" + bt + " [%l8], %" + k + "0;\n";
                            back = "";
                            addr = "%l8";
                        }
                        String args = cas ? "%" + k + "1, %" + k + "2" : "%" + k + "1";
                        String ins = red ? form + " [" + addr + "], " + args + ";\n" : form + " %" + k + "7, [" + addr + "], " + args + ";\n" + Sweep.store(k, "%" + k + "7", 0);
                        String body = loads(in) + setup + ins + back;
                        List<String> subject = List.of(form);
                        kernel(name, red ? "red" : "atom", subject, std(name, in), 16, true, decls.isEmpty() ? "" : decls,
                                body.replace("%p", "%p"));
                    }
                }
            }
        }
        // memory-order and scope qualifiers, each once
        for (String q : new String[] {".relaxed.cta", ".relaxed.gpu", ".relaxed.sys", ".relaxed.cluster", ".acquire.gpu", ".release.gpu", ".acq_rel.gpu", ".acq_rel.sys",
                ".acquire.cta", ".release.cluster", ".gpu", ".cta", ".sys"}) {
            for (boolean red : new boolean[] {false, true}) {
                if (red && q.startsWith(".acq")) continue;
                String form = (red ? "red" : "atom") + q + ".global.add.u32";
                String ins = red ? form + " [%l8], %r1;\n" : form + " %r7, [%l8], %r1;\n" + Sweep.store("r", "%r7", 0);
                kernel(form, red ? "red" : "atom", List.of(form), std(form, I32, I32), 16, true, "",
                        loads(I32, I32) + "add.s64 %l8, %q3, 8;\nst.global.b32 [%l8], %r0;\n" + ins);
            }
        }
        // vector atomics (sm_90): .v2/.v4 .f32 add, .v2/.v4/.v8 .f16/.bf16 add/min/max, .v2/.v4 .f16x2/.bf16x2; the
        // operation before the vector (the ISA's syntax) and after it (as compilers also write it)
        for (String op : new String[] {".add", ".min", ".max"}) {
            for (String t : new String[] {".f32", ".f16", ".bf16", ".f16x2", ".bf16x2"}) {
                for (int vec : new int[] {2, 4, 8}) {
                    boolean half = t.equals(".f16") || t.equals(".bf16");
                    int es = half ? 2 : 4;
                    if (vec * es > 16) continue;
                    String noftz = t.equals(".f32") ? "" : ".noftz";
                    for (boolean opFirst : new boolean[] {true, false}) {
                        for (boolean red : new boolean[] {false, true}) {
                            String form = (red ? "red" : "atom") + ".global" + (opFirst ? op + noftz + ".v" + vec + t : ".v" + vec + t + op + noftz);
                            String bt = half ? ".b16" : ".b32";
                            String k = half ? "hv" : "rv";
                            // memory: the first 16 input bytes; operand b: the next 16; the old values to the output record
                            StringBuilder b = new StringBuilder(".reg " + bt + " %" + k + "<16>;\n");
                            b.append("add.s64 %l8, %q3, 16;\nld.global.v2.b64 {%l0, %l1}, [%q2];\nst.global.v2.b64 [%l8], {%l0, %l1};\n");
                            StringBuilder dv = new StringBuilder("{"), bv = new StringBuilder("{"), st = new StringBuilder();
                            for (int e = 0; e < vec; e++) {
                                b.append("ld.global").append(bt).append(" %").append(k).append(e).append(", [%q2+").append(16 + es * e).append("];\n");
                                bv.append(e == 0 ? "" : ", ").append('%').append(k).append(e);
                                dv.append(e == 0 ? "" : ", ").append('%').append(k).append(8 + e);
                                st.append("st.global").append(bt).append(" [%q3+").append(es * e).append("], %").append(k).append(8 + e).append(";\n");
                            }
                            bv.append('}');
                            dv.append('}');
                            String ins = red ? form + " [%l8], " + bv + ";\n" : form + " " + dv + ", [%l8], " + bv + ";\n" + st;
                            kernel(form, red ? "red" : "atom", List.of(form), rand(form, 2048, ANY64, ANY64, ANY64, ANY64), 32, true, "", b + ins);
                        }
                    }
                }
            }
        }
        // contended: every thread of a CTA on one shared and one global location; thread 0 writes the final values
        for (String op : new String[] {".add", ".and", ".or", ".xor", ".min", ".max", ".inc", ".dec"}) {
            for (String t : new String[] {".u32", ".s32", ".u64", ".b32", ".b64", ".s64"}) {
                boolean inc = op.equals(".inc") || op.equals(".dec");
                if (inc && !t.equals(".u32")) continue;
                String form = "atom.shared" + op + t, gform = "red.global" + op + t;
                boolean w = t.endsWith("64");
                String k = w ? "l" : "r", bt = w ? ".b64" : ".b32";
                String name = form + "; " + gform + " #contended";
                String b = inc ? "100" : "%" + k + "0";
                String body = (inc ? "" : loads(w ? I64 : I32)) + "mov.u32 %t4, %tid.x;\nsetp.ne.u32 %p6, %t4, 0;\n"
                        + "mov.u64 %l8, sm;\nmov.u32 %t5, %ctaid.x;\nmul.wide.u32 %q5, %t5, 2048;\nadd.s64 %q6, %q1, %q5;\nadd.s64 %q6, %q6, 8;\n"
                        + "@!%p6 st.shared" + bt + " [%l8], 7;\n@!%p6 st.global" + bt + " [%q6], 7;\nbar.sync 0;\n"
                        + form + " %" + k + "7, [%l8], " + b + ";\n" + gform + " [%q6], " + b + ";\nbar.sync 0;\nmembar.gl;\nbar.sync 0;\n"
                        + "@%p6 bra DONE;\nld.shared" + bt + " %" + k + "9, [%l8];\n" + Sweep.store(k, "%" + k + "9", 0);
                kernel(name, "atom", List.of(form, gform), rand(name, 2048, w ? I64 : I32), 16, true, SMEM, body);
            }
        }
    }

    // ------------------------------------------------------------------ addresses

    private static void addresses() {
        // cvta between generic and each space; the output is data read through the converted address
        kernel("cvta.to.global.u64; cvta.global.u64", "cvta", List.of("cvta.to.global.u64", "cvta.global.u64"), rand("cvta global", 1024, ANY64), 16, false, "",
                "cvta.to.global.u64 %l0, %q2;\nld.global.u64 %l1, [%l0];\ncvta.global.u64 %l2, %l0;\nld.u64 %l3, [%l2+8];\n" + Sweep.store("l", "%l1", 0)
                        + Sweep.store("l", "%l3", 8));
        for (String w : new String[] {".u64", ".u32"}) {
            String cv = "cvta.shared" + w, to = "cvta.to.shared" + w;
            String r = w.equals(".u64") ? "%l" : "%r";
            String body = "mov" + w + " " + r + "0, sm;\nmov.u32 %t4, %tid.x;\nshl.b32 %t4, %t4, 3;\n"
                    + (w.equals(".u64") ? "cvt.u64.u32 %q4, %t4;\nadd.s64 %l0, %l0, %q4;\n" : "add.u32 %r0, %r0, %t4;\n")
                    + "ld.global.u64 %l5, [%q2];\nst.shared.u64 [" + r + "0], %l5;\n"
                    + (w.equals(".u64") ? cv + " %l1, %l0;\nld.u64 %l6, [%l1];\n" + to + " %l2, %l1;\nld.shared.u64 %l7, [%l2];\n"
                    : "cvt.u64.u32 %l3, %r0;\ncvta.shared.u64 %l1, %l3;\nld.u64 %l6, [%l1];\n" + to + " %r2, %l1;\nld.shared.u64 %l7, [%r2];\n")
                    + Sweep.store("l", "%l6", 0) + Sweep.store("l", "%l7", 8);
            kernel(cv + "; " + to, "cvta", List.of(w.equals(".u64") ? cv : "cvta.shared.u64", to), rand("cvta shared" + w, 1024, ANY64), 16, true, SMEM, body);
        }
        kernel("cvta.local.u64; cvta.to.local.u64", "cvta", List.of("cvta.local.u64", "cvta.to.local.u64"), rand("cvta local", 1024, ANY64), 16, false, "",
                ".local .align 8 .b8 lbuf[16];\nmov.u64 %l0, lbuf;\nld.global.u64 %l5, [%q2];\nst.local.u64 [%l0], %l5;\ncvta.local.u64 %l1, %l0;\nld.u64 %l6, [%l1];\n"
                        + "cvta.to.local.u64 %l2, %l1;\nld.local.u64 %l7, [%l2];\n" + Sweep.store("l", "%l6", 0) + Sweep.store("l", "%l7", 8));
        kernel("cvta.const.u64; cvta.to.const.u64", "cvta", List.of("cvta.const.u64", "cvta.to.const.u64"), rand("cvta const", 1024, ANY64), 16, false, constData(),
                "ld.global.b32 %t5, [%q2];\nand.b32 %t5, %t5, 4088;\ncvt.u64.u32 %q5, %t5;\nmov.u64 %l0, cdata;\nadd.s64 %l0, %l0, %q5;\ncvta.const.u64 %l1, %l0;\n"
                        + "ld.u64 %l6, [%l1];\ncvta.to.const.u64 %l2, %l1;\nld.const.u64 %l7, [%l2];\n" + Sweep.store("l", "%l6", 0) + Sweep.store("l", "%l7", 8));
        kernel("cvta.param.u64", "cvta", List.of("cvta.param.u64"), rand("cvta param", 1024, ANY64), 16, true, "",
                "mov.u64 %l0, pn;\ncvta.param.u64 %l1, %l0;\nld.u32 %r6, [%l1];\n" + Sweep.store("r", "%r6", 0));
        // isspacep on a pointer of each space
        StringBuilder b = new StringBuilder(".local .align 8 .b8 lbuf[8];\nmov.u64 %l0, sm;\ncvta.shared.u64 %l0, %l0;\nmov.u64 %l1, lbuf;\ncvta.local.u64 %l1, %l1;\n"
                + "mov.u64 %l2, cdata;\ncvta.const.u64 %l2, %l2;\nmov.b64 %l3, %q2;\nmov.u32 %t6, 0;\n");
        String[] regs = {"%l3", "%l0", "%l1", "%l2"};
        int bit = 0;
        List<String> subj = new ArrayList<>();
        for (String sp : new String[] {".global", ".shared", ".local", ".const", ".shared::cta", ".param"}) {
            String f = "isspacep" + sp;
            subj.add(f);
            for (String r : regs) {
                b.append(f).append(" %p7, ").append(r).append(";\nselp.u32 %t7, 1, 0, %p7;\nshl.b32 %t7, %t7, ").append(bit++).append(";\nor.b32 %t6, %t6, %t7;\n");
            }
        }
        b.append("st.global.u32 [%q3], %t6;\n");
        kernel("isspacep", "isspacep", subj, rand("isspacep", 1024, ANY64), 16, true, SMEM + constData(), b.toString());
    }

    private static void asyncCopies() {
        // cp.async into shared memory, then read back: every size, src-size (zero fill), ignore-src, prefetch sizes, a cache policy
        String[][] v = {
                {"cp.async.ca.shared.global", "4", ""}, {"cp.async.ca.shared.global", "8", ""}, {"cp.async.ca.shared.global", "16", ""},
                {"cp.async.cg.shared.global", "16", ""}, {"cp.async.ca.shared::cta.global", "16", ""}, {"cp.async.cg.shared::cta.global", "16", ""},
                {"cp.async.ca.shared.global", "16", ", %t7"}, {"cp.async.cg.shared.global", "16", ", %t7"}, {"cp.async.ca.shared.global", "8", ", 3"},
                {"cp.async.ca.shared.global", "16", ", %p7"}, {"cp.async.ca.shared.global.L2::64B", "16", ""}, {"cp.async.ca.shared.global.L2::128B", "16", ""},
                {"cp.async.cg.shared.global.L2::256B", "16", ""}, {"cp.async.ca.shared.global.L2::cache_hint", "16", ", %l10"},
                {"cp.async.cg.shared.global.L2::cache_hint.L2::128B", "16", ", 16, %l10"},
        };
        for (String[] x : v) {
            for (String wait : new String[] {"cp.async.commit_group;\ncp.async.wait_group 0;\n", "cp.async.wait_all;\n"}) {
                String name = x[0] + " " + x[1] + x[2].replace("%t7", "src-size").replace("%p7", "ignore-src").replace("%l10", "policy") + (wait.contains("all") ? " #wait_all" : "");
                String body = "createpolicy.fractional.L2::evict_first.b64 %l10, 1.0;\nld.global.u32 %t7, [%q2+24];\nand.b32 %t7, %t7, 15;\n"
                        + "ld.global.u32 %t8, [%q2+28];\nand.b32 %t8, %t8, 1;\nsetp.ne.u32 %p7, %t8, 0;\n" + SMEM_ADDR
                        + "st.shared.v2.b64 [%l8], {%l11, %l11};\n".replace("%l11", "0") + x[0] + " [%l8], [%q2], " + x[1] + x[2] + ";\n" + wait
                        + "ld.shared.v2.b64 {%l0, %l1}, [%l8];\n" + Sweep.store("l", "%l0", 0) + Sweep.store("l", "%l1", 8);
                List<String> subj = new ArrayList<>(List.of(x[0]));
                subj.addAll(wait.contains("all") ? List.of("cp.async.wait_all") : List.of("cp.async.commit_group", "cp.async.wait_group"));
                kernel(name, "cp.async", subj, rand(name, 1024, ANY64, ANY64, ANY64, ANY64), 16, true, SMEM, body);
            }
        }
    }

    /** Instructions without a result of their own: the data around them must come out unchanged. */
    private static void noEffect() {
        String[] ins = {"prefetch.global.L1 [%q2];", "prefetch.global.L2 [%q2];", "prefetch.L1 [%q2];", "prefetch.L2 [%q2];", "prefetch.local.L1 [%l9];",
                "prefetch.global.L2::evict_last [%q2];", "prefetch.global.L2::evict_normal [%q2];", "prefetchu.L1 [%q2];",
                "applypriority.global.L2::evict_normal [%l11], 128;", "discard.global.L2 [%l11], 128;",
                "createpolicy.fractional.L2::evict_last.b64 %l10, 0.5;", "createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %l10, 0.25;",
                "createpolicy.fractional.L2::evict_normal.b64 %l10;", "createpolicy.range.L2::evict_last.L2::evict_first.b64 %l10, [%q2], 32, 64;",
                "nanosleep.u32 100;", "nanosleep.u32 %t6;", "pmevent 1;", "pmevent.mask 3;", "griddepcontrol.launch_dependents;", "griddepcontrol.wait;",
                "membar.cta;", "membar.gl;", "membar.sys;", "membar.proxy.alias;", "fence.sc.cta;", "fence.sc.gpu;", "fence.sc.sys;", "fence.sc.cluster;",
                "fence.acq_rel.cta;", "fence.acq_rel.gpu;", "fence.acq_rel.sys;", "fence.acq_rel.cluster;", "fence.proxy.alias;", "fence.proxy.async;",
                "fence.proxy.async.global;", "fence.proxy.async.shared::cta;", "fence.proxy.async.shared::cluster;", "fence.mbarrier_init.release.cluster;",
                "bar.warp.sync -1;", "bar.warp.sync %t9;", "trap; //never",
        };
        for (String i : ins) {
            String form = i.substring(0, i.indexOf(i.contains(" ") && i.indexOf(' ') < i.indexOf(';') ? ' ' : ';'));
            String name = i.replace(";", "").replace(" //never", " #not executed").strip();
            String fam = Sweep.familyOf(form);
            String use = i.startsWith("trap") ? "setp.eq.u32 %p6, %t0, 0xffffffff;\n@%p6 trap;\n" : i + "\n";
            String body = ".local .align 8 .b8 lbuf[8];\nmov.u64 %l9, lbuf;\nmov.u32 %t6, 50;\nmov.u32 %t9, -1;\n"
                    + "ld.global.v2.b64 {%l0, %l1}, [%q2];\nadd.s64 %l11, %q1, 0;\nmul.wide.u32 %q4, %t0, 128;\nadd.s64 %l11, %l11, %q4;\n" + use
                    + "st.global.v2.b64 [%l11], {%l0, %l1};\n";
            kernel(name, fam, List.of(form), rand(name, 1024, ANY64, ANY64, ANY64, ANY64), 128, true, "", body);
        }
    }

    // ------------------------------------------------------------------ barriers

    private static void barriers() {
        // each thread publishes a value in shared memory, synchronises, reads another thread's
        String pub = "ld.global.u32 %r0, [%q2];\nmov.u32 %t4, %tid.x;\nshl.b32 %t5, %t4, 2;\nmov.u32 %t6, sm;\nadd.u32 %t7, %t6, %t5;\nst.shared.u32 [%t7], %r0;\n";
        String read = "mad.lo.u32 %t8, %t4, 37, 5;\nand.b32 %t8, %t8, 127;\nshl.b32 %t8, %t8, 2;\nadd.u32 %t8, %t6, %t8;\nld.shared.u32 %r1, [%t8];\nst.global.u32 [%q3], %r1;\n";
        for (String sync : new String[] {"bar.sync 0;", "bar.sync 0, 128;", "bar.sync %t9;", "barrier.sync 0;", "barrier.sync.aligned 0;", "barrier.sync 3, 128;",
                "bar.cta.sync 0;", "barrier.cta.sync 0;", "barrier.cta.sync.aligned 0;", "bar.sync 15;"}) {
            String form = sync.substring(0, sync.indexOf(' '));
            String name = sync.replace(";", "");
            kernel(name, Sweep.familyOf(form), List.of(form), rand(name, 2048, I32), 16, true, SMEM, "mov.u32 %t9, 1;\n" + pub + sync + "\n" + read);
        }
        // arrive: warps 0 and 1 produce, warps 2 and 3 wait
        for (String[] ar : new String[][] {{"bar.arrive 1, 128;", "bar.sync 1, 128;"}, {"barrier.arrive 2, 128;", "barrier.sync 2, 128;"},
                {"barrier.arrive.aligned 1, 128;", "barrier.sync.aligned 1, 128;"}, {"bar.cta.arrive 1, 128;", "bar.cta.sync 1, 128;"}}) {
            String name = ar[0] + " " + ar[1];
            String body = pub + "setp.lt.u32 %p5, %t4, 64;\n@%p5 bra PROD;\n" + ar[1] + "\n" + read.replace("and.b32 %t8, %t8, 127;", "and.b32 %t8, %t8, 63;")
                    + "bra DONE;\nPROD:\n" + ar[0] + "\nst.global.u32 [%q3], %r0;\n";
            kernel(name, Sweep.familyOf(ar[0].substring(0, ar[0].indexOf(' '))), List.of(ar[0].substring(0, ar[0].indexOf(' ')), ar[1].substring(0, ar[1].indexOf(' '))),
                    rand(name, 2048, I32), 16, true, SMEM, body);
        }
        // reductions over the CTA
        for (String red : new String[] {"bar.red.popc.u32 %r7, 0, %p0;", "bar.red.and.pred %p7, 0, %p0;", "bar.red.or.pred %p7, 0, %p0;",
                "bar.red.popc.u32 %r7, 1, 128, %p0;", "barrier.red.popc.u32 %r7, 0, %p0;", "barrier.red.and.pred %p7, 0, %p0;", "barrier.red.or.pred %p7, 0, %p0;",
                "barrier.red.popc.aligned.u32 %r7, 0, %p0;", "barrier.red.and.aligned.pred %p7, 0, !%p0;", "bar.red.popc.u32 %r7, 0, !%p0;",
                "barrier.cta.red.popc.u32 %r7, 0, %p0;", "bar.cta.red.or.pred %p7, 0, %p0;"}) {
            String form = red.substring(0, red.indexOf(' '));
            String name = red.replace(";", "");
            boolean popc = red.contains("popc");
            // the predicate: random per thread, or uniform over the CTA (then and/or see all-true and all-false CTAs)
            String body = "ld.global.u32 %t3, [%q2];\nld.global.u32 %t7, [%q2+8];\nmov.u32 %t8, %ctaid.x;\nand.b32 %t8, %t8, 3;\n"
                    + "setp.eq.u32 %p5, %t8, 1;\n@%p5 mov.u32 %t3, 1;\nsetp.eq.u32 %p5, %t8, 2;\n@%p5 mov.u32 %t3, 0;\nsetp.ne.b32 %p0, %t3, 0;\n" + red + "\n"
                    + (popc ? Sweep.store("r", "%r7", 0) : Sweep.store("p", "%p7", 0));
            kernel(name, Sweep.familyOf(form), List.of(form), rand(name, 4096, BOOL, I32), 16, true, "", body);
        }
    }

    // ------------------------------------------------------------------ warp-level

    /** Member masks of the partial-warp forms. */
    static final long[] MASKS = {0xffffffffL, 0x0000ffffL, 0xffff0000L, 0x55555555L, 0xaaaaaaaaL, 0x00000001L, 0x80000000L, 0x0f0f0f0fL, 0x12345678L,
            0xfedcba98L, 0x000000ffL, 0xff000000L, 0x7fffffffL, 0xfffffffeL, 0x00ff00ffL, 0x33333333L};

    /** Runs the lines of {@code body} only in the lanes of the mask in %r3 (lanes outside leave their output zero). */
    private static String inMask(String body) {
        return "mov.u32 %t4, %laneid;\nshr.b32 %t5, %r3, %t4;\nand.b32 %t5, %t5, 1;\nsetp.eq.u32 %p5, %t5, 0;\n@%p5 bra DONE;\n" + body;
    }

    private static void warp() {
        Cls masks = SweepValues.enumTable("masks", 1, MASKS);
        long[] cTable = new long[1024];
        for (int i = 0; i < 1024; i++) cTable[i] = (i & 31) | (long) (i >> 5) << 8;
        for (String mode : new String[] {".up", ".down", ".bfly", ".idx"}) {
            String form = "shfl.sync" + mode + ".b32";
            String twice = "mov.b32 %r7, %r0;\nmov.b32 %r8, %r0;\n";
            String body = form + " %r7|%p6, %r0, %r1, %r2, %r3;\n" + form + " %r8|%p7, %r7, %r1, %r2, %r3;\n"
                    + Sweep.store("r", "%r7", 0) + Sweep.store("p", "%p6", 4) + Sweep.store("r", "%r8", 8) + Sweep.store("p", "%p7", 12);
            // every lane/delta (0..33) with every clamp and segment mask, full warps
            Cls b = SweepValues.enumCls(34, 1), c = SweepValues.enumTable("shfl-c", 34, cTable);
            String n1 = form + " #all b, c";
            kernel(n1, "shfl", List.of(form), rand(n1, 34 * 1024 * 32, 32, 8, new Cls[] {I32, b, c, SweepValues.enumTable("full", 1, 0xffffffffL)},
                    new boolean[] {false, true, true, true}), 16, false, "", loads(I32, I32, I32, I32) + twice + body);
            // partial member masks (only the lanes of the mask execute), random b and c per warp
            String n2 = form + " #member masks";
            kernel(n2, "shfl", List.of(form), rand(n2, 4096 * 32, 32, 8, new Cls[] {I32, SweepValues.range(40), SweepValues.enumTable("shfl-c", 1, cTable), masks},
                    new boolean[] {false, true, true, true}), 16, false, "", loads(I32, I32, I32, I32) + twice + inMask(body));
            // b and c different in each lane
            String n3 = form + " #per-lane b, c";
            kernel(n3, "shfl", List.of(form), rand(n3, 2048 * 32, 32, 8, new Cls[] {I32, SweepValues.range(40), SweepValues.enumTable("shfl-c", 1, cTable),
                    SweepValues.enumTable("full", 1, 0xffffffffL)}, new boolean[] {false, false, false, true}), 16, false, "", loads(I32, I32, I32, I32) + twice + body);
            // the immediate forms compilers emit: full mask, clamp 0x1f / 0
            String n4 = form + " #immediates";
            String imm = form + " %r7|%p6, %r0, 1, " + (mode.equals(".up") ? "0" : "0x1f") + ", -1;\n" + form + " %r8, %r7, 16, " + (mode.equals(".up") ? "0x1000" : "0x101f")
                    + ", 0xffffffff;\n" + Sweep.store("r", "%r7", 0) + Sweep.store("p", "%p6", 4) + Sweep.store("r", "%r8", 8);
            kernel(n4, "shfl", List.of(form), rand(n4, 4096, I32), 16, false, "", loads(I32) + imm);
        }
        // the predicate of vote/bar/etc.: random per lane, or (by the warp's pattern operand) all true, all false, lanes < 16
        String pattern = "ld.global.u32 %t3, [%q2];\nld.global.u32 %t7, [%q2+8];\nsetp.eq.u32 %p5, %t7, 1;\n@%p5 mov.u32 %t3, 1;\nsetp.eq.u32 %p5, %t7, 2;\n"
                + "@%p5 mov.u32 %t3, 0;\nmov.u32 %t8, %laneid;\nsetp.eq.u32 %p5, %t7, 3;\nsetp.lt.u32 %p4, %t8, 16;\nselp.u32 %t8, 1, 0, %p4;\n@%p5 mov.u32 %t3, %t8;\n"
                + "and.b32 %t3, %t3, 1;\nsetp.ne.b32 %p0, %t3, 0;\nld.global.u32 %r3, [%q2+24];\n";
        Cls[] vcls = {BOOL, SweepValues.range(4), I32, masks};
        boolean[] vuni = {false, true, false, true};
        for (String v : new String[] {"vote.sync.all.pred %p7, %p0, %r3;", "vote.sync.any.pred %p7, %p0, %r3;", "vote.sync.uni.pred %p7, %p0, %r3;",
                "vote.sync.ballot.b32 %r7, %p0, %r3;", "vote.sync.all.pred %p7, !%p0, %r3;", "vote.sync.ballot.b32 %r7, !%p0, 0xffffffff;",
                "vote.all.pred %p7, %p0;", "vote.any.pred %p7, %p0;", "vote.uni.pred %p7, %p0;", "vote.ballot.b32 %r7, %p0;",
                // the order nvcc writes: the mode before .sync
                "vote.ballot.sync.b32 %r7, %p0, %r3;", "vote.all.sync.pred %p7, %p0, %r3;", "vote.any.sync.pred %p7, %p0, %r3;", "vote.uni.sync.pred %p7, %p0, %r3;",
                "vote.ballot.sync.b32 %r7, %p0, -1;"}) {
            String form = v.substring(0, v.indexOf(' '));
            String name = v.replace(";", "");
            String out = v.contains("ballot") ? Sweep.store("r", "%r7", 0) : Sweep.store("p", "%p7", 0);
            boolean sync = v.contains(".sync");
            String exec = v + "\n" + out;
            kernel(name, "vote", List.of(form), rand(name, 4096 * 32, 32, 8, vcls, vuni), 16, !sync, "",
                    pattern + (sync && v.contains("%r3") ? inMask(exec) : exec));
        }
        // match: small values so that lanes match; all equal in some warps
        Cls small = SweepValues.range(4);
        String mval = "ld.global.u32 %r0, [%q2];\nld.global.u32 %t7, [%q2+8];\nsetp.eq.u32 %p5, %t7, 1;\n@%p5 mov.u32 %r0, 2;\nld.global.u32 %r3, [%q2+24];\n"
                + "cvt.u64.u32 %l0, %r0;\nmul.lo.u64 %l0, %l0, 0x100000001;\n";
        for (String m : new String[] {"match.any.sync.b32 %r7, %r0, %r3;", "match.all.sync.b32 %r7|%p7, %r0, %r3;", "match.any.sync.b64 %r7, %l0, %r3;",
                "match.all.sync.b64 %r7|%p7, %l0, %r3;", "match.all.sync.b32 %r7, %r0, %r3;", "match.any.sync.b32 %r7, %r0, 0xffffffff;"}) {
            String form = m.substring(0, m.indexOf(' '));
            String name = m.replace(";", "");
            String out = Sweep.store("r", "%r7", 0) + (m.contains("|") ? Sweep.store("p", "%p7", 8) : "");
            kernel(name, "match", List.of(form), rand(name, 2048 * 32, 32, 8, new Cls[] {small, SweepValues.range(3), I32, masks}, new boolean[] {false, true, false, true}),
                    16, false, "", mval + (m.contains("%r3") ? inMask(m + "\n" + out) : m + "\n" + out));
        }
        for (String r : new String[] {".add.u32", ".add.s32", ".min.u32", ".min.s32", ".max.u32", ".max.s32", ".and.b32", ".or.b32", ".xor.b32"}) {
            String form = "redux.sync" + r;
            String name = form;
            kernel(name, "redux", List.of(form), rand(name, 4096 * 32, 32, 8, new Cls[] {I32, SweepValues.range(1), I32, masks}, new boolean[] {false, true, false, true}),
                    16, false, "", "ld.global.u32 %r0, [%q2];\nld.global.u32 %r3, [%q2+24];\n" + inMask(form + " %r7, %r0, %r3;\n" + form + " %r8, %r7, %r3;\n"
                            + Sweep.store("r", "%r7", 0) + Sweep.store("r", "%r8", 8)));
        }
        // activemask and elect under divergence: the lanes of the mask take one path
        kernel("activemask.b32", "activemask", List.of("activemask.b32"), rand("activemask.b32", 1024 * 32, 32, 8, new Cls[] {I32, I32, I32, masks},
                new boolean[] {false, false, false, true}), 16, false, "",
                "ld.global.u32 %r3, [%q2+24];\nmov.u32 %t4, %laneid;\nshr.b32 %t5, %r3, %t4;\nand.b32 %t5, %t5, 1;\nsetp.eq.u32 %p5, %t5, 0;\n@%p5 bra OTHER;\n"
                        + "activemask.b32 %r7;\nst.global.u32 [%q3], %r7;\nbra DONE;\nOTHER:\nactivemask.b32 %r8;\nst.global.u32 [%q3+8], %r8;\n");
        for (String e : new String[] {"elect.sync %r7|%p7, %r3;", "elect.sync _|%p7, %r3;", "elect.sync %r7|%p7, 0xffffffff;"}) {
            String name = e.replace(";", "");
            kernel(name, "elect", List.of("elect.sync"), rand(name, 1024 * 32, 32, 8, new Cls[] {I32, I32, I32, masks}, new boolean[] {false, false, false, true}), 16, false,
                    "", "mov.u32 %r7, 0;\nld.global.u32 %r3, [%q2+24];\n" + (e.contains("%r3") ? inMask(e + "\n" + Sweep.store("r", "%r7", 0) + Sweep.store("p", "%p7", 8))
                            : e + "\n" + Sweep.store("r", "%r7", 0) + Sweep.store("p", "%p7", 8)));
        }
    }

    // ------------------------------------------------------------------ matrix

    private static void matrix() {
        SweepMatrix.all(OUT);
    }

    // ------------------------------------------------------------------ control flow, stack, miscellaneous

    private static void control() {
        kernel("bra.uni", "bra", List.of("bra.uni"), std("bra.uni", I32), 16, false, "",
                loads(I32) + "mov.u32 %r7, %r0;\nbra.uni L1;\nadd.u32 %r7, %r7, 1;\nL1:\n" + Sweep.store("r", "%r7", 0));
        kernel("bra #divergent", "bra", List.of("bra"), std("bra #divergent", I32), 16, false, "",
                loads(I32) + "and.b32 %r1, %r0, 3;\nmov.u32 %r7, 0;\nL0:\nsetp.eq.u32 %p0, %r1, 0;\n@%p0 bra L1;\nadd.u32 %r7, %r7, %r0;\nsub.u32 %r1, %r1, 1;\nbra L0;\nL1:\n"
                        + Sweep.store("r", "%r7", 0));
        String f = ".func (.reg .b32 fr) fsq(.reg .b32 fa)\n{\nmul.lo.u32 fr, fa, fa;\nret;\n}\n"
                + ".func (.param .b32 pr) fpar(.param .b32 pa)\n{\n.reg .b32 %x;\nld.param.b32 %x, [pa];\nadd.u32 %x, %x, 3;\nst.param.b32 [pr], %x;\nret.uni;\n}\n"
                + ".func (.param .b32 rr) frec(.param .b32 ra)\n{\n.reg .b32 %x<3>;\n.reg .pred %c;\nld.param.b32 %x0, [ra];\nsetp.eq.u32 %c, %x0, 0;\n"
                + "@%c bra BASE;\nsub.u32 %x1, %x0, 1;\n{\n.param .b32 a;\nst.param.b32 [a], %x1;\n.param .b32 r;\ncall.uni (r), frec, (a);\nld.param.b32 %x2, [r];\n}\n"
                + "add.u32 %x0, %x0, %x2;\nBASE:\nst.param.b32 [rr], %x0;\nret;\n}\n";
        String body = loads(I32) + "and.b32 %r1, %r0, 15;\n{\n.param .b32 a;\nst.param.b32 [a], %r0;\n.param .b32 r;\ncall (r), fpar, (a);\nld.param.b32 %r2, [r];\n}\n"
                + "{\n.param .b32 a;\nst.param.b32 [a], %r1;\n.param .b32 r;\ncall.uni (r), frec, (a);\nld.param.b32 %r3, [r];\n}\n"
                + "call (%r4), fsq, (%r0);\n" + Sweep.store("r", "%r2", 0) + Sweep.store("r", "%r3", 4) + Sweep.store("r", "%r4", 8);
        kernel("call; call.uni; ret; ret.uni", "call", List.of("call", "call.uni", "ret", "ret.uni"), std("call", I32), 16, false, f, body);
        String proto = ".func (.param .b32 r) fa(.param .b32 a)\n{\n.reg .b32 %x;\nld.param.b32 %x, [a];\nadd.u32 %x, %x, 100;\nst.param.b32 [r], %x;\nret;\n}\n"
                + ".func (.param .b32 r) fb(.param .b32 a)\n{\n.reg .b32 %x;\nld.param.b32 %x, [a];\nxor.b32 %x, %x, 0x5555;\nst.param.b32 [r], %x;\nret;\n}\n";
        String ib = loads(I32) + "and.b32 %r1, %r0, 1;\nsetp.eq.u32 %p0, %r1, 0;\nmov.u64 %l0, fa;\nmov.u64 %l1, fb;\nselp.b64 %l2, %l0, %l1, %p0;\n"
                + "{\nPROTO: .callprototype (.param .b32 _) _ (.param .b32 _);\n.param .b32 a;\nst.param.b32 [a], %r0;\n.param .b32 r;\ncall (r), %l2, (a), PROTO;\n"
                + "ld.param.b32 %r7, [r];\n}\n" + Sweep.store("r", "%r7", 0);
        kernel("call indirect", "call", List.of("call"), std("call indirect", I32), 16, false, proto, ib);
        kernel("exit", "exit", List.of("exit"), std("exit", I32), 16, false, "",
                loads(I32) + "and.b32 %r1, %r0, 1;\nsetp.eq.u32 %p0, %r1, 0;\n@%p0 exit;\nst.global.u32 [%q3], %r0;\n");
        kernel("alloca.u64; stacksave.u64; stackrestore.u64", "alloca", List.of("alloca.u64", "stacksave.u64", "stackrestore.u64"), rand("alloca", 1024, ANY64, ANY64), 16,
                true, "", "ld.global.u64 %l0, [%q2];\nld.global.u64 %l1, [%q2+8];\nstacksave.u64 %l5;\nalloca.u64 %l2, 16;\nst.local.u64 [%l2], %l0;\nst.local.u64 [%l2+8], %l1;\n"
                        + "alloca.u64 %l3, 32, 16;\nst.local.u64 [%l3], %l1;\nld.local.u64 %l6, [%l2+8];\nld.local.u64 %l7, [%l3];\nstackrestore.u64 %l5;\n"
                        + Sweep.store("l", "%l6", 0) + Sweep.store("l", "%l7", 8));
        // trap and brkpt stop the launch: what counts is the launch's result (recorded), not the outputs
        kernel("trap #executed", "trap", List.of("trap"), rand("trap #executed", 1024, I32), 16, false, "", "setp.eq.u32 %p6, %t0, 77;\n@%p6 trap;\nst.global.u32 [%q3], 1;\n");
        kernel("brkpt #executed", "brkpt", List.of("brkpt"), rand("brkpt #executed", 1024, I32), 16, true, "", "setp.eq.u32 %p6, %t0, 77;\n@%p6 brkpt;\nst.global.u32 [%q3], 1;\n");
    }

    private static void misc() {
        for (String sp : new String[] {".shared", ".shared::cta"}) mbarrier(sp);
    }

    private static void mbarrier(String sp) {
        // an mbarrier per thread in shared memory: init with a count, arrive some times, test, pending count
        String body = SMEM_ADDR + "ld.global.u32 %t6, [%q2];\nand.b32 %t6, %t6, 7;\nadd.u32 %t6, %t6, 1;\nld.global.u32 %t7, [%q2+8];\nrem.u32 %t7, %t7, %t6;\n"
                + "mbarrier.init.shared.b64 [%l8], %t6;\nmov.u32 %t8, 0;\nLOOP:\nsetp.ge.u32 %p0, %t8, %t7;\n@%p0 bra END;\nmbarrier.arrive.shared.b64 %l0, [%l8];\n"
                + "add.u32 %t8, %t8, 1;\nbra LOOP;\nEND:\nmbarrier.arrive.shared.b64 %l1, [%l8];\nmbarrier.pending_count.b64 %r7, %l1;\n"
                + "mbarrier.test_wait.shared.b64 %p7, [%l8], %l1;\nselp.u32 %r8, 1, 0, %p7;\nmbarrier.try_wait.parity.shared.b64 %p6, [%l8], 0;\nselp.u32 %r9, 1, 0, %p6;\n"
                + "mbarrier.arrive_drop.shared.b64 %l2, [%l8];\nmbarrier.inval.shared.b64 [%l8];\n"
                + "st.global.u32 [%q3], %r7;\nst.global.u32 [%q3+4], %r8;\nst.global.u32 [%q3+8], %r9;\n";
        body = body.replace(".shared.b64", sp + ".b64");
        String name = "mbarrier per thread" + (sp.equals(".shared") ? "" : " " + sp);
        kernel(name, "mbarrier.init", List.of("mbarrier.init" + sp + ".b64", "mbarrier.arrive" + sp + ".b64", "mbarrier.pending_count.b64",
                        "mbarrier.test_wait" + sp + ".b64", "mbarrier.try_wait.parity" + sp + ".b64", "mbarrier.arrive_drop" + sp + ".b64", "mbarrier.inval" + sp + ".b64"),
                rand(name, 2048, ANY64, ANY64), 16, true, SMEM, body);
    }

    // ------------------------------------------------------------------ video (ground truth only)

    private static void video() {
        String[][] types = {{".u32", ".u32", ".u32"}, {".s32", ".s32", ".s32"}, {".s32", ".u32", ".s32"}, {".u32", ".s32", ".u32"}};
        for (String op : new String[] {"vadd", "vsub", "vabsdiff", "vmin", "vmax"}) {
            for (String[] t : types) {
                for (String sat : new String[] {"", ".sat"}) {
                    for (String op2 : new String[] {"", ".add", ".min", ".max"}) {
                        String form = op + t[0] + t[1] + t[2] + sat + op2;
                        Cls[] ops = op2.isEmpty() ? new Cls[] {I32, I32} : new Cls[] {I32, I32, I32};
                        String args = op2.isEmpty() ? "%r0, %r1" : "%r0, %r1, %r2";
                        kernel(form, op, List.of(form), std(form, ops), 16, true, "", loads(ops) + form + " %r7, " + args + ";\n" + Sweep.store("r", "%r7", 0));
                    }
                }
            }
            String sel = op + ".u32.u32.u32.sat.add";
            String name = sel + " #byte selects";
            kernel(name, op, List.of(sel), std(name, I32, I32, I32), 16, true, "", loads(I32, I32, I32) + sel + " %r7, %r0.b1, %r1.h1, %r2;\n" + Sweep.store("r", "%r7", 0));
        }
        for (String op : new String[] {"vshl", "vshr"}) {
            for (String[] t : new String[][] {{".u32", ".u32"}, {".s32", ".s32"}, {".u32", ".s32"}}) {
                for (String sat : new String[] {"", ".sat"}) {
                    for (String mode : new String[] {".clamp", ".wrap"}) {
                        for (String op2 : new String[] {"", ".add", ".min", ".max"}) {
                            String form = op + t[0] + t[1] + ".u32" + sat + mode + op2;
                            Cls[] ops = op2.isEmpty() ? new Cls[] {I32, SweepValues.cls("sh")} : new Cls[] {I32, SweepValues.cls("sh"), I32};
                            String args = op2.isEmpty() ? "%r0, %r1" : "%r0, %r1, %r2";
                            kernel(form, op, List.of(form), std(form, ops), 16, true, "", loads(ops) + form + " %r7, " + args + ";\n" + Sweep.store("r", "%r7", 0));
                        }
                    }
                }
            }
        }
        for (String op : new String[] {"vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4"}) {
            for (String t : new String[] {".u32.u32.u32", ".s32.s32.s32"}) {
                for (String sat : new String[] {"", ".sat", ".add"}) {
                    String form = op + t + sat;
                    Cls[] ops = {I32, I32, I32};
                    kernel(form, op, List.of(form), std(form, ops), 16, true, "", loads(ops) + form + " %r7, %r0, %r1, %r2;\n" + Sweep.store("r", "%r7", 0));
                }
            }
        }
    }

    // ------------------------------------------------------------------ operand forms

    /**
     * Operand forms a CUDA compiler or a hand writer uses that are valid PTX: vector operands whose registers are wider
     * or narrower than the instruction's element type, data registers wider than a float access, vector registers and
     * their elements, {@code .local} variables of a function (a debug build's spill area), function-scope
     * {@code .global} variables, cp.async with immediate sizes.
     */
    private static void probes() {
        String p = "probe: ";
        kernel(p + "ld.global.v4.u32 into .b64 registers", "ld", List.of("ld.global.v4.u32"), rand(p + "ld v4 wide", 1024, ANY64, ANY64), 32, true, "",
                "ld.global.v4.u32 {%l0, %l1, %l2, %l3}, [%q2];\nst.global.v4.b64 [%q3], {%l0, %l1, %l2, %l3};\n");
        kernel(p + "ld.global.v4.s16 into .b32 registers", "ld", List.of("ld.global.v4.s16"), rand(p + "ld v4 s16 wide", 1024, ANY64), 16, true, "",
                "ld.global.v4.s16 {%r0, %r1, %r2, %r3}, [%q2];\nst.global.v4.b32 [%q3], {%r0, %r1, %r2, %r3};\n");
        kernel(p + "st.global.v4.u16 from .b32 registers", "st", List.of("st.global.v4.u16"), rand(p + "st v4 narrow", 1024, ANY64, ANY64), 16, true, "",
                "ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%q2];\nst.global.v4.u16 [%q3], {%r0, %r1, %r2, %r3};\n");
        kernel(p + "st.global.v2.u32 from .b64 registers", "st", List.of("st.global.v2.u32"), rand(p + "st v2 narrow", 1024, ANY64, ANY64), 16, true, "",
                "ld.global.v2.b64 {%l0, %l1}, [%q2];\nst.global.v2.u32 [%q3], {%l0, %l1};\n");
        kernel(p + "ld.global.f32 into a .b64 register", "ld", List.of("ld.global.f32"), rand(p + "ld f32 b64", 1024, ANY64), 16, true, "",
                "mov.b64 %l0, -1;\nld.global.f32 %l0, [%q2];\nst.global.b64 [%q3], %l0;\n");
        kernel(p + "st.global.f32 from a .b64 register", "st", List.of("st.global.f32"), rand(p + "st f32 b64", 1024, ANY64), 16, true, "",
                "ld.global.b64 %l0, [%q2];\nst.global.f32 [%q3], %l0;\n");
        kernel(p + "ld.global.v2.f32 into .b64 registers", "ld", List.of("ld.global.v2.f32"), rand(p + "ld v2 f32 b64", 1024, ANY64), 16, true, "",
                "ld.global.v2.f32 {%l0, %l1}, [%q2];\nst.global.v2.b64 [%q3], {%l0, %l1};\n");
        kernel(p + "ld.global.f32 into a .b32 register", "ld", List.of("ld.global.f32"), rand(p + "ld f32 b32", 1024, ANY64), 16, true, "",
                "ld.global.f32 %r0, [%q2];\nst.global.b32 [%q3], %r0;\n");
        kernel(p + "ld.global.u8 into .b32 and .b64 registers", "ld", List.of("ld.global.u8", "ld.global.s8"), rand(p + "ld u8 wide", 1024, ANY64), 16, true, "",
                "ld.global.u8 %r0, [%q2];\nld.global.s8 %l1, [%q2+1];\nst.global.b32 [%q3], %r0;\nst.global.b64 [%q3+8], %l1;\n");
        kernel(p + "cvt.u32.u16 from a .b32 register", "cvt", List.of("cvt.u32.u16", "cvt.s64.s8"), rand(p + "cvt wide", 1024, ANY64), 16, true, "",
                "ld.global.b32 %r0, [%q2];\ncvt.u32.u16 %r1, %r0;\nld.global.b32 %r2, [%q2+4];\ncvt.s64.s8 %l3, %r2;\nst.global.b32 [%q3], %r1;\nst.global.b64 [%q3+8], %l3;\n");
        kernel(p + "vector registers and their elements", "mov", List.of("ld.global.v4.b32", "mov.b32", "add.s64"), rand(p + "vector registers", 1024, ANY64, ANY64), 16,
                true, "", ".reg .v4 .b32 %v;\n.reg .v2 .b64 %w;\nld.global.v4.b32 %v, [%q2];\nmov.b32 %r0, %v.z;\nmov.b32 %r1, %v.x;\nld.global.v2.b64 %w, [%q2+16];\n"
                        + "add.s64 %l0, %w.x, %w.y;\nadd.u32 %r0, %r0, %v.w;\nst.global.v2.b32 [%q3], {%r0, %r1};\nst.global.b64 [%q3+8], %l0;\n");
        kernel(p + "mov.v2.u32 between vector registers", "mov", List.of("mov.v2.u32", "mov.v4.u16"), rand(p + "mov vector", 1024, ANY64, ANY64), 16, true, "",
                ".reg .v2 .u32 %v<2>;\n.reg .v4 .u16 %w;\nld.global.v2.u32 %v0, [%q2];\nmov.v2.u32 %v1, %v0;\nld.global.v4.u16 %w, [%q2+8];\nmov.v4.u16 %w, %w;\n"
                        + "st.global.v2.u32 [%q3], %v1;\nst.global.v4.u16 [%q3+8], %w;\n");
        kernel(p + "mov.b64 {h, h, h, h} from a .b64 (unpack as .v4.u16)", "mov", List.of("mov.b64"), rand(p + "mov v4u16", 1024, ANY64), 16, true, "",
                "ld.global.b64 %l0, [%q2];\nmov.b64 {%h0, %h1, %h2, %h3}, %l0;\nst.global.v4.b16 [%q3], {%h3, %h2, %h1, %h0};\n");
        kernel(p + "a .local spill area (debug build)", "ld", List.of("ld.u32", "st.local.u32", "cvta.local.u64"), rand(p + "local depot", 1024, ANY64), 16, true, "",
                ".local .align 8 .b8 __local_depot0[16];\n.reg .b64 %SP;\n.reg .b64 %SPL;\nmov.u64 %SPL, __local_depot0;\ncvta.local.u64 %SP, %SPL;\n"
                        + "ld.global.u32 %r0, [%q2];\nst.local.u32 [%SPL+4], %r0;\nld.u32 %r1, [%SP+4];\nadd.u32 %r1, %r1, 1;\nst.u32 [%SP+8], %r1;\nld.local.u32 %r2, [%SPL+8];\n"
                        + "st.global.u32 [%q3], %r2;\n");
        kernel(p + "a .local variable at module scope", "ld", List.of("ld.local.u32", "st.local.u32"), rand(p + "module local", 1024, ANY64), 16, true,
                ".local .align 4 .b8 mlocal[16];\n", "ld.global.u32 %r0, [%q2];\nst.local.u32 [mlocal+4], %r0;\nld.local.u32 %r1, [mlocal+4];\nst.global.u32 [%q3], %r1;\n");
        // one word per thread of the launch (1024 tuples): no two threads share one
        kernel(p + "a function-scope .global variable", "ld", List.of("st.global.u32", "ld.global.u32"), rand(p + "function global", 1024, ANY64), 16, true, "",
                ".global .align 4 .b32 fglob[1024];\nmul.wide.u32 %q4, %t0, 4;\nmov.u64 %l0, fglob;\nadd.s64 %l0, %l0, %q4;\n"
                        + "ld.global.u32 %r0, [%q2];\nst.global.u32 [%l0], %r0;\nld.global.u32 %r1, [%l0];\nst.global.u32 [%q3], %r1;\n");
        kernel(p + "cp.async with an immediate src-size", "cp.async", List.of("cp.async.ca.shared.global"), rand(p + "cp.async immediate", 1024, ANY64, ANY64, ANY64,
                ANY64), 16, true, SMEM, SMEM_ADDR + "st.shared.v2.b64 [%l8], {0, 0};\ncp.async.ca.shared.global [%l8], [%q2], 16, 5;\ncp.async.wait_all;\n"
                + "ld.shared.v2.b64 {%l0, %l1}, [%l8];\nst.global.v2.b64 [%q3], {%l0, %l1};\n");
        kernel(p + "ld.global through an address in a .b32 pair (mov.b64)", "ld", List.of("ld.global.f32"), rand(p + "address pair", 1024, ANY64), 16, true, "",
                "mov.b64 {%r4, %r5}, %q2;\nmov.b64 %l4, {%r4, %r5};\nld.global.f32 %r0, [%l4];\nst.global.f32 [%q3], %r0;\n");
        kernel(p + "setp with an immediate first operand", "setp", List.of("setp.lt.s32"), std(p + "setp imm", I32), 16, true, "",
                loads(I32) + "setp.lt.s32 %p7, 5, %r0;\n" + Sweep.store("p", "%p7", 0));
    }
}
