package dev.zluda.runtime.emulator.conformance;

import dev.zluda.ptx.InstructionTable;
import dev.zluda.runtime.emulator.conformance.SweepValues.Cls;
import dev.zluda.runtime.emulator.conformance.SweepValues.Plan;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The exhaustive instruction sweep: for every family of {@link InstructionTable} that the emulator executes, every
 * combination of types and modifiers its PTX ISA 9.0 syntax allows ({@link #SYNTAX}, one or more templates per
 * family, expanded in full), each as a kernel applying the form to generated inputs ({@link SweepValues}).
 *
 * <p>The candidates are filtered twice: by the emulator (a candidate its translator refuses is "not supported" and
 * listed as such) and by {@code ptxas -arch=sm_90} of CUDA 13.0 (a candidate NVIDIA's compiler refuses is not PTX
 * and is dropped; {@link SweepCandidates} does both and keeps the result in {@code conformance/sweep/forms.tsv}).
 * What is left is run on an NVIDIA H200 (natively and through the LLVM lowering retargeted to NVPTX) and on the
 * emulator, and compared: {@code conformance/sweep/README.md} says how.
 *
 * <p>Kernel shape (every form): {@code .entry k(.param .u64 in, .param .u64 out, .param .u32 n)}, launched as
 * ceil(n / 128) CTAs of 128 threads; thread i &lt; n reads its input tuple at {@code in + inStride * i} (the
 * {@link Plan}'s layout) and writes its output record at {@code out + outStride * i}; the output buffer is zero
 * before the launch. A scalar form's record is slot 0 (8 bytes) the main result, slot 1 a second result (a
 * carry, a second predicate), predicates as the 32-bit values 0 or 1.
 */
public final class Sweep {
    private Sweep() {}

    /** Seed of every form's inputs (the form's seed mixes in its name). */
    public static final long SEED = 0x5357_4545_5031L; // "SWEEP1"

    /**
     * One form of the sweep.
     *
     * @param name      unique: the instruction as written, with a {@code " #variant"} suffix when one form has several kernels
     * @param family    the {@link InstructionTable} family of the instruction under test
     * @param subject   the instruction forms this kernel is about (their differences are blamed on them)
     * @param ptx       the module
     * @param plan      the inputs
     * @param outStride output bytes per tuple
     * @param approx    null: bit for bit; else the format in which the distance from the H200 is measured
     * @param tuples    threads (tuples) of the launch
     * @param optional  a candidate that ptxas may refuse (then it is not PTX and is dropped); false for a kernel
     *                  that must compile (a refusal is a bug of the kernel)
     */
    public record Form(String name, String family, List<String> subject, String ptx, Plan plan, int outStride, Conformance.Ulp approx, long tuples,
                       boolean optional) {
        /** Hashed blocks of outputs. */
        public int blocks() {
            return (int) ((tuples + SweepValues.BLOCK - 1) / SweepValues.BLOCK);
        }
    }

    /** A form's seed: {@link #SEED} mixed with its name. */
    public static long seed(String name) {
        long h = SEED;
        for (int i = 0; i < name.length(); i++) h = SweepValues.mix64(h ^ name.charAt(i));
        return h;
    }

    // ------------------------------------------------------------------ templates (PTX ISA 9.0 syntax, chapter 9.7)

    /** Named groups of alternatives, expanded in templates as {@code $NAME}. */
    static final Map<String, String> GROUPS = Map.ofEntries(
            Map.entry("INT", ".u16|.u32|.u64|.s16|.s32|.s64"),
            Map.entry("SINT", ".s16|.s32|.s64"),
            Map.entry("BIT", ".b16|.b32|.b64"),
            Map.entry("FLT", ".f32|.f64"),
            Map.entry("HALF", ".f16|.f16x2|.bf16|.bf16x2"),
            Map.entry("RND", ".rn|.rz|.rm|.rp"),
            Map.entry("IRND", ".rni|.rzi|.rmi|.rpi"),
            Map.entry("CMP", ".eq|.ne|.lt|.le|.gt|.ge|.lo|.ls|.hi|.hs|.equ|.neu|.ltu|.leu|.gtu|.geu|.num|.nan"),
            Map.entry("FCMP", ".eq|.ne|.lt|.le|.gt|.ge|.equ|.neu|.ltu|.leu|.gtu|.geu|.num|.nan"),
            Map.entry("ICMP", ".eq|.ne|.lt|.le|.gt|.ge|.lo|.ls|.hi|.hs"),
            Map.entry("BOOL", ".and|.or|.xor"),
            Map.entry("CVT", ".u8|.u16|.u32|.u64|.s8|.s16|.s32|.s64|.f16|.bf16|.f32|.f64|.tf32|.f16x2|.bf16x2|.e4m3x2|.e5m2x2"),
            Map.entry("ALLT", ".b16|.b32|.b64|.u16|.u32|.u64|.s16|.s32|.s64|.f16|.bf16|.f16x2|.bf16x2|.f32|.f64"));

    /**
     * Expands a template: {@code {a|b}} is an optional choice (nothing, a or b), {@code [a|b]} a required one,
     * {@code $NAME} a {@link #GROUPS} group inside either. Returns every form, in order.
     */
    public static List<String> expand(String template) {
        List<String> out = new ArrayList<>();
        expand(template, 0, "", out);
        return out;
    }

    private static void expand(String t, int at, String prefix, List<String> out) {
        int open = -1;
        for (int i = at; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c == '{' || c == '[') {
                open = i;
                break;
            }
        }
        if (open < 0) {
            out.add(prefix + t.substring(at));
            return;
        }
        char close = t.charAt(open) == '{' ? '}' : ']';
        int end = t.indexOf(close, open);
        String head = prefix + t.substring(at, open);
        List<String> alts = new ArrayList<>();
        for (String a : t.substring(open + 1, end).split("\\|")) {
            if (a.startsWith("$")) alts.addAll(List.of(GROUPS.get(a.substring(1)).split("\\|")));
            else alts.add(a);
        }
        if (t.charAt(open) == '{') expand(t, end + 1, head, out);
        for (String a : alts) expand(t, end + 1, head + a, out);
    }

    /**
     * The templates of each family the emulator executes, as the PTX ISA 9.0 writes its syntax (chapter 9.7),
     * generously: a template may produce forms the ISA does not allow; ptxas removes them. Families whose kernels
     * need more than one instruction or a special shape are built by {@link SweepKernels} and listed there.
     */
    static final Map<String, List<String>> SYNTAX = new LinkedHashMap<>();

    private static void syntax(String family, String... templates) {
        SYNTAX.computeIfAbsent(family, k -> new ArrayList<>()).addAll(List.of(templates));
    }

    static {
        // 9.7.1 integer arithmetic, 9.7.3/9.7.4 floating point
        for (String op : new String[] {"add", "sub"}) {
            syntax(op, op + "{.sat}[$INT|.u16x2|.s16x2]", op + "{$RND}{.ftz}{.sat}[$FLT]", op + "{$RND}{.ftz}{.sat}[$HALF]");
        }
        syntax("mul", "mul[.hi|.lo|.wide][$INT]", "mul{$RND}{.ftz}{.sat}[$FLT]", "mul{$RND}{.ftz}{.sat}[$HALF]");
        syntax("mad", "mad[.hi|.lo|.wide]{.sat}[$INT]", "mad{$RND}{.ftz}{.sat}[$FLT]");
        syntax("mul24", "mul24[.hi|.lo][.u32|.s32]");
        syntax("mad24", "mad24[.hi|.lo]{.sat}[.u32|.s32]");
        syntax("sad", "sad[$INT]");
        syntax("div", "div[$INT]", "div{.approx|.full|$RND}{.ftz}[$FLT]");
        syntax("rem", "rem[$INT]");
        syntax("abs", "abs[$INT]", "abs{.ftz}[$FLT|$HALF]");
        syntax("neg", "neg[$INT]", "neg{.ftz}[$FLT|$HALF]");
        for (String op : new String[] {"min", "max"}) {
            syntax(op, op + "{.relu}[$INT|.u16x2|.s16x2]", op + "{.ftz}{.NaN}{.xorsign.abs}[$FLT|$HALF]");
        }
        syntax("popc", "popc[.b32|.b64]");
        syntax("clz", "clz[.b32|.b64]");
        syntax("brev", "brev[.b32|.b64]");
        syntax("bfind", "bfind{.shiftamt}[.u32|.u64|.s32|.s64]");
        syntax("bfe", "bfe[.u32|.u64|.s32|.s64]");
        syntax("bfi", "bfi[.b32|.b64]");
        syntax("fns", "fns.b32");
        syntax("szext", "szext[.wrap|.clamp][.u32|.s32]");
        syntax("bmsk", "bmsk[.wrap|.clamp].b32");
        syntax("dp4a", "dp4a[.u32|.s32][.u32|.s32]");
        syntax("dp2a", "dp2a[.lo|.hi][.u32|.s32][.u32|.s32]");
        syntax("testp", "testp[.finite|.infinite|.number|.notanumber|.normal|.subnormal][$FLT]");
        syntax("copysign", "copysign[$FLT]");
        syntax("fma", "fma[$RND]{.ftz}{.sat}[$FLT]", "fma.rn{.ftz}{.sat|.relu|.oob|.oob.relu}[$HALF]");
        syntax("rcp", "rcp[.approx|$RND]{.ftz}[$FLT]");
        syntax("sqrt", "sqrt[.approx|$RND]{.ftz}[$FLT]");
        syntax("rsqrt", "rsqrt.approx{.ftz}[$FLT]");
        for (String op : new String[] {"sin", "cos", "lg2"}) syntax(op, op + ".approx{.ftz}.f32");
        syntax("ex2", "ex2.approx{.ftz}[.f32|$HALF]");
        syntax("tanh", "tanh.approx[.f32|$HALF]");
        // 9.7.6 comparison and selection (9.7.7 half precision)
        syntax("setp", "setp[$CMP]{$BOOL}{.ftz}[$FLT|.f16|.bf16|.f16x2|.bf16x2]", "setp[$CMP]{$BOOL}[$INT|$BIT]");
        syntax("set", "set[$CMP]{$BOOL}{.ftz}[.u32|.s32|.f32|.u16|.s16|.f16|.bf16|.f16x2|.bf16x2][$FLT|$INT|$BIT|.f16|.bf16|.f16x2|.bf16x2]");
        syntax("selp", "selp[$ALLT]");
        syntax("slct", "slct{.ftz}[$BIT|$INT|.f32|.f64|.f16|.bf16][.s32|.f32]");
        // 9.7.8 logic and shift
        for (String op : new String[] {"and", "or", "xor"}) syntax(op, op + "[.pred|$BIT]");
        syntax("not", "not[.pred|$BIT]");
        syntax("cnot", "cnot[$BIT]");
        syntax("shl", "shl[$BIT]");
        syntax("shr", "shr[$BIT|$INT]");
        syntax("shf", "shf[.l|.r][.wrap|.clamp].b32");
        syntax("lop3", "lop3.b32", "lop3[.and|.or].b32");
        // 9.7.9 data movement and conversion
        syntax("mov", "mov[.pred|$ALLT]");
        syntax("prmt", "prmt.b32{.f4e|.b4e|.rc8|.ecl|.ecr|.rc16}");
        syntax("cvt", "cvt{$RND|.rna|.rs|$IRND}{.ftz}{.sat}{.relu}{.satfinite}[$CVT][$CVT]");
        syntax("cvt.pack", "cvt.pack.sat[.u8|.s8|.u16|.s16|.u4|.s4].s32{.b32}");
    }

    // ------------------------------------------------------------------ signatures of scalar forms

    /** Register kind of a value class: {@code h} (16 bits), {@code r} (32), {@code l} (64), {@code p} (predicate). */
    static String reg(Cls c) {
        return c.name().equals("bool") ? "p" : c.bits() <= 16 ? "h" : c.bits() == 32 ? "r" : "l";
    }

    /** The value class of an operand of type {@code t} (8-bit integers in 16-bit registers). */
    static Cls clsOf(String t) {
        return switch (t) {
            case ".u8", ".s8", ".b8", ".u16", ".s16", ".b16" -> SweepValues.cls("i16");
            case ".u32", ".s32", ".b32", ".u16x2", ".s16x2" -> SweepValues.cls("i32");
            case ".u64", ".s64", ".b64" -> SweepValues.cls("i64");
            case ".f16" -> SweepValues.cls("f16");
            case ".bf16" -> SweepValues.cls("bf16");
            case ".f32", ".tf32" -> SweepValues.cls("f32");
            case ".f64" -> SweepValues.cls("f64");
            case ".f16x2" -> SweepValues.cls("f16x2");
            case ".bf16x2" -> SweepValues.cls("bf16x2");
            case ".e4m3x2", ".e5m2x2" -> SweepValues.cls("any16");
            case ".pred" -> SweepValues.cls("bool");
            default -> throw new IllegalArgumentException("no class for " + t);
        };
    }

    /** The register kind of a destination of type {@code t}. */
    static String kindOf(String t) {
        return switch (t) {
            case ".pred" -> "p";
            case ".u8", ".s8", ".b8", ".u16", ".s16", ".b16", ".f16", ".bf16", ".e4m3x2", ".e5m2x2" -> "h";
            case ".u64", ".s64", ".b64", ".f64" -> "l";
            default -> "r";
        };
    }

    private static String wider(String t) {
        return switch (t) {
            case ".u16" -> ".u32";
            case ".s16" -> ".s32";
            case ".u32" -> ".u64";
            case ".s32" -> ".s64";
            default -> t;
        };
    }

    /**
     * A scalar form: body with {@code {d} {e}} results and {@code {a} {b} {c} {x}} operands.
     *
     * @param body  the PTX body
     * @param dst   the kind of {@code {d}} (h, r, l, p)
     * @param dst2  the kind of {@code {e}}, or null
     * @param ops   operand classes
     */
    record Sig(String body, String dst, String dst2, Cls[] ops) {}

    private static Sig one(String form, String dst, Cls... ops) {
        StringBuilder b = new StringBuilder(form).append(" {d}");
        String[] ph = {"{a}", "{b}", "{c}", "{x}"};
        for (int i = 0; i < ops.length; i++) b.append(", ").append(ph[i]);
        return new Sig(b.append(';').toString(), dst, null, ops);
    }

    static List<String> types(List<String> mods) {
        List<String> t = new ArrayList<>();
        for (String m : mods) if (dev.zluda.ptx.PtxType.fromName(m) != null) t.add(m);
        return t;
    }

    static List<String> mods(String form) {
        List<String> m = new ArrayList<>();
        int i = form.indexOf('.');
        while (i >= 0 && i < form.length()) {
            int j = form.indexOf('.', i + 1);
            if (j < 0) j = form.length();
            m.add(form.substring(i, j));
            i = j;
        }
        return m;
    }

    /** The family of a form string (InstructionTable's lookup). */
    static String familyOf(String form) {
        int dot = form.indexOf('.');
        String op = dot < 0 ? form : form.substring(0, dot);
        InstructionTable.Family f = InstructionTable.lookup(op, dot < 0 ? List.of() : mods(form));
        return f == null ? op : f.key();
    }

    private static final Cls I32 = SweepValues.cls("i32"), BOOLC = SweepValues.cls("bool"), SH = SweepValues.cls("sh"), BF = SweepValues.cls("bf"),
            SEL = SweepValues.cls("sel"), ANY32 = SweepValues.cls("any32");

    /** Offsets of fns: small signed values. */
    private static final Cls FNSOFF = SweepValues.define("fnsoff", 32, SweepValues.BF, 0, 1,
            new long[] {0, 1, 2, 3, 16, 31, 32, 33, 64, -1, -2, -3, -16, -31, -32, -33, -64, 0x7fffffff, 0x80000000L});

    /**
     * The signature of a scalar form, or null when the family's forms are built otherwise ({@link SweepKernels}).
     */
    static Sig signature(String family, String form) {
        List<String> mods = mods(form);
        List<String> ts = types(mods);
        if (ts.isEmpty()) return null;
        String t = ts.getLast();
        String k = kindOf(t);
        Cls c = clsOf(t);
        return switch (family) {
            case "add", "sub", "div", "rem", "min", "max", "copysign" -> one(form, k, c, c);
            case "mul" -> mods.contains(".wide") ? one(form, kindOf(wider(t)), c, c) : one(form, k, c, c);
            case "mad" -> mods.contains(".wide") ? one(form, kindOf(wider(t)), c, c, clsOf(wider(t))) : one(form, k, c, c, c);
            case "mul24" -> one(form, k, c, c);
            case "mad24", "sad", "fma" -> one(form, k, c, c, c);
            case "abs", "neg", "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh" -> one(form, k, c);
            case "popc", "clz" -> one(form, "r", c);
            case "brev", "not", "cnot" -> t.equals(".pred") ? null : one(form, k, c);
            case "bfind" -> one(form, "r", c);
            case "bfe" -> one(form, k, c, BF, BF);
            case "bfi" -> one(form, k, c, c, BF, BF);
            case "fns" -> one(form, "r", I32, BF, FNSOFF);
            case "szext" -> one(form, "r", I32, BF);
            case "bmsk" -> one(form, "r", BF, BF);
            case "dp4a", "dp2a" -> one(form, "r", I32, I32, I32);
            case "testp" -> one(form, "p", c);
            case "and", "or", "xor" -> t.equals(".pred") ? null : one(form, k, c, c);
            case "shl", "shr" -> one(form, k, c, SH);
            case "shf" -> one(form, "r", I32, I32, SH);
            case "prmt" -> one(form, "r", I32, I32, SEL);
            case "mov" -> t.equals(".pred") ? null : one(form, k, c);
            case "selp" -> new Sig(form + " {d}, {a}, {b}, {c};", k, null, new Cls[] {c, c, BOOLC});
            case "slct" -> ts.size() != 2 ? null : one(form, kindOf(ts.get(0)), clsOf(ts.get(0)), clsOf(ts.get(0)), clsOf(ts.get(1)));
            case "setp" -> {
                boolean bool = mods.contains(".and") || mods.contains(".or") || mods.contains(".xor");
                String args = bool ? "{a}, {b}, {c}" : "{a}, {b}";
                Cls[] ops = bool ? new Cls[] {c, c, BOOLC} : new Cls[] {c, c};
                yield new Sig(form + " {d}|{e}, " + args + ";", "p", "p", ops);
            }
            case "set" -> {
                if (ts.size() != 2) yield null;
                boolean bool = mods.contains(".and") || mods.contains(".or") || mods.contains(".xor");
                Cls s = clsOf(ts.get(1));
                yield bool ? one(form, kindOf(ts.get(0)), s, s, BOOLC) : one(form, kindOf(ts.get(0)), s, s);
            }
            case "cvt" -> cvtSig(form, ts);
            case "cvt.pack" -> mods.contains(".b32") ? one(form, "r", I32, I32, I32) : one(form, "r", I32, I32);
            case "lop3" -> null; // SweepKernels: one form per LUT
            default -> null;
        };
    }

    private static Sig cvtSig(String form, List<String> ts) {
        if (ts.size() != 2) return null;
        String d = ts.get(0), a = ts.get(1);
        boolean twoF32 = (d.equals(".f16x2") || d.equals(".bf16x2") || d.equals(".e4m3x2") || d.equals(".e5m2x2")) && a.equals(".f32");
        if (twoF32) return one(form, kindOf(d), clsOf(a), clsOf(a));
        return one(form, kindOf(d), clsOf(a));
    }

    /**
     * Whether a form is a variant whose base form has the full plan: {@code set} with a boolean operation or a
     * destination other than {@code .u32}, {@code setp} with a boolean operation.
     */
    static boolean light(String family, String form) {
        List<String> mods = mods(form);
        boolean bool = mods.contains(".and") || mods.contains(".or") || mods.contains(".xor");
        return switch (family) {
            case "set" -> bool || !types(mods).get(0).equals(".u32");
            case "setp" -> bool;
            default -> false;
        };
    }

    /** The ULP format of an approximate form, or null. */
    static Conformance.Ulp approx(String family, String form) {
        List<String> mods = mods(form);
        boolean approxMod = mods.contains(".approx") || mods.contains(".full");
        if (!approxMod) return null;
        List<String> ts = types(mods);
        return switch (ts.getLast()) {
            case ".f64" -> Conformance.Ulp.F64;
            case ".f16" -> Conformance.Ulp.F16;
            case ".bf16" -> Conformance.Ulp.BF16;
            case ".f16x2" -> Conformance.Ulp.F16X2;
            case ".bf16x2" -> Conformance.Ulp.BF16X2;
            default -> Conformance.Ulp.F32;
        };
    }

    // ------------------------------------------------------------------ PTX

    static final String HEADER = ".version 9.0\n.target sm_90\n.address_size 64\n\n";

    /** The prologue of every kernel: %t0 = thread index, exits past n, %q2 = its input tuple, %q3 = its output record. */
    static String prologue(String comment, int inStride, int outStride, String decls) {
        StringBuilder sb = entry(comment.replace('\n', ' '), decls);
        sb.append(".reg .pred %p<8>;\n.reg .b16 %h<12>;\n.reg .b32 %r<16>;\n.reg .b64 %l<12>;\n");
        sb.append(".reg .b32 %t<10>;\n.reg .b64 %q<10>;\n.reg .pred %pq;\n");
        sb.append(THREAD_INDEX);
        return tupleAddresses(sb, inStride, outStride).toString();
    }

    /**
     * The module up to the kernel's opening brace: {@link #HEADER}, {@code // comment} (one line), the module-scope
     * {@code decls}, and {@code .visible .entry k(.param .u64 pin, .param .u64 pout, .param .u32 pn)}.
     */
    static StringBuilder entry(String comment, String decls) {
        return new StringBuilder(HEADER).append("// ").append(comment).append('\n').append(decls)
                .append(".visible .entry k(.param .u64 pin, .param .u64 pout, .param .u32 pn)\n{\n");
    }

    /** %t0 = the thread's index in the grid; threads at n (.param pn) and past it branch to DONE. Needs %t0..2 and %pq. */
    static final String THREAD_INDEX = "mov.u32 %t0, %ctaid.x;\nmov.u32 %t1, %ntid.x;\nmov.u32 %t2, %tid.x;\nmad.lo.u32 %t0, %t0, %t1, %t2;\n"
            + "ld.param.u32 %t1, [pn];\nsetp.ge.u32 %pq, %t0, %t1;\n@%pq bra DONE;\n";

    /** Appends %q2 = the thread's input tuple ({@code inStride} bytes each) and %q3 = its output record; needs %q0..3. */
    static StringBuilder tupleAddresses(StringBuilder sb, int inStride, int outStride) {
        sb.append("ld.param.u64 %q0, [pin];\nld.param.u64 %q1, [pout];\n");
        sb.append("mul.wide.u32 %q2, %t0, ").append(inStride).append(";\nadd.s64 %q2, %q0, %q2;\n");
        return sb.append("mul.wide.u32 %q3, %t0, ").append(outStride).append(";\nadd.s64 %q3, %q1, %q3;\n");
    }

    static final String EPILOGUE = "DONE:\nret;\n}\n";

    /** Loads operand j (8-byte slots) into register {@code r} of kind {@code kind}. */
    static String load(String kind, String r, int j) {
        int off = 8 * j;
        return switch (kind) {
            case "p" -> "ld.global.b32 %t3, [%q2+" + off + "];\nsetp.ne.b32 " + r + ", %t3, 0;\n";
            case "h" -> "ld.global.b16 " + r + ", [%q2+" + off + "];\n";
            case "r" -> "ld.global.b32 " + r + ", [%q2+" + off + "];\n";
            default -> "ld.global.b64 " + r + ", [%q2+" + off + "];\n";
        };
    }

    /** Stores register {@code r} of kind {@code kind} at byte {@code off} of the output record. */
    static String store(String kind, String r, int off) {
        return switch (kind) {
            case "p" -> "selp.u32 %t3, 1, 0, " + r + ";\nst.global.b32 [%q3+" + off + "], %t3;\n";
            case "h" -> "st.global.b16 [%q3+" + off + "], " + r + ";\n";
            case "r" -> "st.global.b32 [%q3+" + off + "], " + r + ";\n";
            default -> "st.global.b64 [%q3+" + off + "], " + r + ";\n";
        };
    }

    /** The kernel of a scalar signature. */
    static String scalarPtx(String name, Sig s) {
        StringBuilder sb = new StringBuilder(prologue(name, 32, 16, ""));
        String body = s.body();
        String[] ph = {"{a}", "{b}", "{c}", "{x}"};
        for (int i = 0; i < s.ops().length; i++) {
            String kind = reg(s.ops()[i]);
            String r = "%" + kind + i;
            sb.append(load(kind, r, i));
            body = body.replace(ph[i], r);
        }
        String d = "%" + s.dst() + "7";
        body = body.replace("{d}", d);
        String e = s.dst2() == null ? null : "%" + s.dst2() + "6";
        if (e != null) body = body.replace("{e}", e);
        sb.append(body).append('\n');
        sb.append(store(s.dst(), d, 0));
        if (e != null) sb.append(store(s.dst2(), e, 8));
        sb.append(EPILOGUE);
        return sb.toString();
    }

    /** A scalar form from a signature. */
    static Form scalar(String family, String form, Sig s) {
        Plan plan = new Plan(light(family, form) ? Plan.LIGHT : Plan.STD, seed(form), s.ops(), new boolean[s.ops().length], 32, 8, 0);
        return new Form(form, family, List.of(form), scalarPtx(form, s), plan, 16, approx(family, form), plan.tuples(), true);
    }

    // ------------------------------------------------------------------ the candidates

    private static final Set<String> INT_T = Set.of(".u8", ".u16", ".u32", ".u64", ".s8", ".s16", ".s32", ".s64");
    private static final Set<String> FLOAT_T = Set.of(".f16", ".bf16", ".f32", ".f64");
    private static final Set<String> PACKED_T = Set.of(".f16x2", ".bf16x2", ".e4m3x2", ".e5m2x2");

    /**
     * Rules of the ISA's syntax sections that the generous templates do not express, applied before ptxas sees a
     * candidate (to keep the candidates few): for {@code cvt} (§9.7.9.21) at most the modifiers each pair of types
     * may take; for {@code set} (§9.7.6.1, §9.7.7.1) the comparisons of the source type's kind and {@code .ftz}
     * only on floating-point sources. What these rules let through, ptxas decides.
     */
    static boolean plausible(String family, String form) {
        List<String> mods = mods(form);
        List<String> ts = types(mods);
        switch (family) {
            case "cvt" -> {
                String d = ts.get(0), a = ts.get(1);
                boolean irnd = mods.stream().anyMatch(m -> m.matches("\\.r[nzmp]i"));
                boolean frnd = mods.stream().anyMatch(m -> m.matches("\\.r[nzmp]"));
                if (a.equals(".tf32")) return false;
                if (irnd && !FLOAT_T.contains(a)) return false;
                if (mods.contains(".relu") || mods.contains(".satfinite")) {
                    if (!(Set.of(".f16", ".bf16", ".tf32").contains(d) || PACKED_T.contains(d))) return false;
                }
                if (mods.contains(".rs") && !(d.equals(".f16x2") || d.equals(".bf16x2"))) return false;
                if (mods.contains(".rna") && !d.equals(".tf32")) return false;
                if (d.equals(".tf32") && !a.equals(".f32")) return false;
                if (PACKED_T.contains(d) && !(a.equals(".f32") || a.equals(".f16x2") || a.equals(".bf16x2"))) return false;
                if (PACKED_T.contains(a) && !(d.equals(".f16x2") || PACKED_T.contains(d))) return false;
                if (mods.contains(".ftz") && !(d.equals(".f32") || a.equals(".f32") || d.equals(".f16") || a.equals(".f16"))) return false;
                if (frnd && INT_T.contains(d) && INT_T.contains(a)) return false;
                if (irnd && !(INT_T.contains(d) || d.equals(a))) return false;
                return true;
            }
            case "set" -> {
                String s = ts.get(1);
                String cmp = mods.get(0);
                boolean unsignedCmp = Set.of(".lo", ".ls", ".hi", ".hs").contains(cmp);
                boolean nanCmp = cmp.endsWith("u") && cmp.length() == 4 || cmp.equals(".num") || cmp.equals(".nan");
                boolean fl = s.startsWith(".f") || s.startsWith(".bf");
                if (fl && unsignedCmp) return false;
                if (!fl && nanCmp) return false;
                if (s.startsWith(".b") && !s.startsWith(".bf") && !(cmp.equals(".eq") || cmp.equals(".ne"))) return false;
                if (mods.contains(".ftz") && !(s.equals(".f32") || s.startsWith(".f16"))) return false;
                return true;
            }
            case "setp" -> {
                String s = ts.getLast();
                String cmp = mods.get(0);
                boolean fl = s.startsWith(".f") || s.startsWith(".bf");
                boolean unsignedCmp = Set.of(".lo", ".ls", ".hi", ".hs").contains(cmp);
                if (fl && unsignedCmp) return false;
                if (mods.contains(".ftz") && !fl) return false;
                return true;
            }
            default -> {
                return true;
            }
        }
    }

    /**
     * Every candidate form: the expanded templates of {@link #SYNTAX} with a scalar signature, then the kernels of
     * {@link SweepKernels}; in a fixed order, names unique.
     */
    public static List<Form> candidates() {
        Map<String, Form> out = new LinkedHashMap<>();
        for (var e : SYNTAX.entrySet()) {
            for (String tpl : e.getValue()) {
                for (String form : expand(tpl)) {
                    String fam = familyOf(form);
                    if (!plausible(fam, form)) continue;
                    Sig s = signature(fam, form);
                    if (s == null) continue;
                    out.putIfAbsent(form, scalar(fam, form, s));
                }
            }
        }
        for (Form f : SweepKernels.all()) {
            if (out.putIfAbsent(f.name(), f) != null) throw new IllegalStateException("duplicate form " + f.name());
        }
        return new ArrayList<>(out.values());
    }

    /** The families of {@link InstructionTable} that the emulator executes and that the sweep has no kernels for. */
    public static Set<String> uncoveredFamilies(List<Form> forms) {
        Set<String> covered = new LinkedHashSet<>();
        for (Form f : forms) covered.add(f.family());
        Set<String> out = new LinkedHashSet<>();
        for (InstructionTable.Family f : InstructionTable.families()) if (f.emulator() && !covered.contains(f.key())) out.add(f.key());
        return out;
    }
}
