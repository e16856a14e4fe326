package dev.zluda.runtime.emulator.conformance;

import dev.zluda.runtime.emulator.conformance.Sweep.Form;
import dev.zluda.runtime.emulator.conformance.SweepValues.Cls;
import dev.zluda.runtime.emulator.conformance.SweepValues.Plan;

import java.util.ArrayList;
import java.util.List;

/**
 * The warp-level matrix forms of the sweep (PTX ISA 9.0, §9.7.14): {@code mma.sync} of every shape and type
 * combination its syntax allows for sm_90 (the emulator executes some: the others are "not supported"),
 * {@code ldmatrix} and {@code stmatrix} (every count, {@code .trans}, state space and kind of address, unused
 * lanes' addresses outside every allocation), {@code wmma} load → mma → store in every layout, accumulator type and
 * state space. Every warp of every CTA works on inputs of its own; {@code "#twice"} forms execute the instruction
 * a second time on the first one's result, and the scenarios of a real kernel are included: a loop, a divergent
 * prologue, warp 0 leaving early.
 *
 * <p>Tuple layout: 64 bytes per thread (16 32-bit words: the lane's registers of A, B and C in order, or the data and
 * addresses of ldmatrix/stmatrix), 16 or 32 output bytes per thread (the lane's registers of D, or the bytes of the
 * warp's matrix in memory).
 */
final class SweepMatrix {
    private SweepMatrix() {}

    private record Ty(String name, int bits, Cls cls, long narrow, long dense) {}

    private static final Ty F16 = new Ty("f16", 16, SweepValues.cls("f16x2"), 0xBFFFBFFFL, 0x20002000L);
    private static final Ty BF16 = new Ty("bf16", 16, SweepValues.cls("bf16x2"), 0xBFFFBFFFL, 0x20002000L);
    private static final Ty TF32 = new Ty("tf32", 32, SweepValues.cls("f32"), 0xBFFFFFFFL, 0x20000000L);
    private static final Ty F32 = new Ty("f32", 32, SweepValues.cls("f32"), 0xBFFFFFFFL, 0x20000000L);
    private static final Ty S8 = new Ty("s8", 8, SweepValues.cls("any32"), 0xFFFFFFFFL, 0);
    private static final Ty U8 = new Ty("u8", 8, SweepValues.cls("any32"), 0xFFFFFFFFL, 0);
    private static final Ty S32 = new Ty("s32", 32, SweepValues.cls("i32"), 0xFFFFFFFFL, 0);
    private static final Ty E4M3 = new Ty("e4m3", 8, SweepValues.cls("any32"), 0xFFFFFFFFL, 0);
    private static final Ty E5M2 = new Ty("e5m2", 8, SweepValues.cls("any32"), 0xFFFFFFFFL, 0);
    private static final Ty S4 = new Ty("s4", 4, SweepValues.cls("any32"), 0xFFFFFFFFL, 0);

    private static Form form(String name, String family, List<String> subject, String ptx, Plan plan, int outStride, boolean optional) {
        return new Form(name, family, subject, ptx, plan, outStride, null, plan.tuples(), optional);
    }

    private static Plan plan(String name, int tuples, Cls... words) {
        return new Plan(Plan.RAND, Sweep.seed(name), words, new boolean[words.length], 64, 4, tuples);
    }

    /**
     * The register holding an ldmatrix/stmatrix row address of the given form ("r32": %r1, "r64": %l1, "generic": %l2),
     * appending, for "generic", the cvta.shared of %l1 into %l2 (and the out-of-every-allocation address for unused lanes).
     */
    private static String rowAddress(StringBuilder sb, String addr) {
        if (addr.equals("generic")) sb.append("cvta.shared.u64 %l2, %l1;\n@%p3 mov.u64 %l2, 0xfffffffffff0fff0;\n");
        return switch (addr) {
            case "r32" -> "%r1";
            case "r64" -> "%l1";
            default -> "%l2";
        };
    }

    private static String regList(String p, int from, int n) {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < n; i++) sb.append(i == 0 ? "" : ", ").append(p).append(from + i);
        return sb.append('}').toString();
    }

    static void all(List<Form> out) {
        mma(out);
        ldst(out);
        wmma(out);
    }

    // ------------------------------------------------------------------ mma

    private static void mma(List<Form> out) {
        List<Object[]> combos = new ArrayList<>();
        Ty[] floatsAcc = {F16, F32};
        for (Ty d : floatsAcc) for (Ty c : floatsAcc) {
            combos.add(new Object[] {"m16n8k8", d, F16, F16, c});
            combos.add(new Object[] {"m16n8k16", d, F16, F16, c});
        }
        combos.add(new Object[] {"m16n8k8", F32, BF16, BF16, F32});
        combos.add(new Object[] {"m16n8k16", F32, BF16, BF16, F32});
        combos.add(new Object[] {"m16n8k8", F32, TF32, TF32, F32});
        combos.add(new Object[] {"m16n8k4", F32, TF32, TF32, F32});
        for (Ty a : new Ty[] {S8, U8}) for (Ty b : new Ty[] {S8, U8}) {
            combos.add(new Object[] {"m16n8k32", S32, a, b, S32});
            combos.add(new Object[] {"m16n8k16", S32, a, b, S32});
        }
        for (Ty a : new Ty[] {E4M3, E5M2}) for (Ty b : new Ty[] {E4M3, E5M2}) {
            combos.add(new Object[] {"m16n8k32", F32, a, b, F32});
            combos.add(new Object[] {"m16n8k32", F16, a, b, F16});
        }
        combos.add(new Object[] {"m16n8k64", S32, S4, S4, S32});
        for (Object[] c : combos) {
            String shape = (String) c[0];
            Ty d = (Ty) c[1], a = (Ty) c[2], b = (Ty) c[3], cc = (Ty) c[4];
            int k = Integer.parseInt(shape.substring(shape.indexOf('k') + 1));
            boolean integer = a == S8 || a == U8 || a == S4;
            for (boolean sat : integer ? new boolean[] {false, true} : new boolean[] {false}) {
                String instr = "mma.sync.aligned." + shape + ".row.col" + (sat ? ".satfinite" : "") + "." + d.name + "." + a.name + "." + b.name + "." + cc.name;
                int na = 16 * k * a.bits / 32 / 32, nb = k * 8 * b.bits / 32 / 32, nc = 128 * cc.bits / 32 / 32, nd = 128 * d.bits / 32 / 32;
                if (na + nb + nc > 16) continue;
                String[] variants = a.narrow == 0xFFFFFFFFL ? new String[] {"", " #twice", " #loop", " #divergent prologue", " #warp 0 exits"}
                        : new String[] {"", " #narrow", " #dense", " #twice", " #loop", " #divergent prologue", " #warp 0 exits"};
                for (String v : variants) {
                    String name = instr + v;
                    Cls[] words = new Cls[na + nb + nc + 1];
                    for (int i = 0; i < na; i++) words[i] = a.cls;
                    for (int i = 0; i < nb; i++) words[na + i] = b.cls;
                    for (int i = 0; i < nc; i++) words[na + nb + i] = cc.cls;
                    words[na + nb + nc] = SweepValues.range(4);
                    StringBuilder sb = new StringBuilder(Sweep.prologue(name, 64, 16, ""));
                    sb.append(".reg .b32 %a<16>;\n.reg .b32 %d<8>;\n");
                    for (int i = 0; i < na + nb + nc; i++) sb.append("ld.global.b32 %a").append(i).append(", [%q2+").append(4 * i).append("];\n");
                    boolean narrow = v.contains("narrow") || v.contains("twice") || v.contains("loop") || v.contains("divergent") || v.contains("exits");
                    boolean dense = v.contains("dense");
                    if ((narrow || dense) && a.narrow != 0xFFFFFFFFL) {
                        for (int i = 0; i < na + nb + nc; i++) {
                            Ty t = i < na ? a : i < na + nb ? b : cc;
                            sb.append("and.b32 %a").append(i).append(", %a").append(i).append(", ").append(t.narrow).append(";\n");
                            if (dense) sb.append("or.b32 %a").append(i).append(", %a").append(i).append(", ").append(t.dense).append(";\n");
                        }
                    }
                    String A = regList("%a", 0, na), B = regList("%a", na, nb), C = regList("%a", na + nb, nc), D = regList("%d", 0, nd);
                    String one = instr + " " + D + ", " + A + ", " + B + ", " + C + ";\n";
                    String again = nd == nc && d == cc ? instr + " " + D + ", " + A + ", " + B + ", " + D + ";\n" : "";
                    if (v.contains("twice")) {
                        sb.append(one).append(again);
                    } else if (v.contains("loop")) {
                        // accumulate over a loop of 3 trips whose branch every lane takes alike
                        sb.append("mov.u32 %t7, 0;\n");
                        for (int i = 0; i < nd; i++) sb.append("mov.b32 %d").append(i).append(", ").append(i < nc && d == cc ? "%a" + (na + nb + i) : "0").append(";\n");
                        sb.append("LOOP:\n").append(d == cc ? instr + " " + D + ", " + A + ", " + B + ", " + D + ";\n" : one)
                                .append("add.u32 %t7, %t7, 1;\nsetp.lt.u32 %p0, %t7, 3;\n@%p0 bra LOOP;\n");
                    } else if (v.contains("divergent")) {
                        // lanes take different paths on their data first, then meet again before the mma
                        sb.append("and.b32 %t7, %a0, 1;\nsetp.eq.u32 %p0, %t7, 0;\n@%p0 bra EVEN;\nxor.b32 %a0, %a0, 0;\nbra JOIN;\nEVEN:\nor.b32 %a0, %a0, 0;\nJOIN:\n")
                                .append(one).append(again);
                    } else if (v.contains("exits")) {
                        sb.append("mov.u32 %t7, %tid.x;\nshr.u32 %t7, %t7, 5;\nsetp.eq.u32 %p0, %t7, 0;\n@%p0 exit;\n").append(one).append(again);
                    } else {
                        sb.append(one);
                    }
                    for (int i = 0; i < nd; i++) sb.append("st.global.b32 [%q3+").append(4 * i).append("], %d").append(i).append(";\n");
                    sb.append(Sweep.EPILOGUE);
                    out.add(form(name, "mma", List.of(instr), sb.toString(), plan(name, 256 * 128, words), 16, true));
                }
            }
        }
    }

    // ------------------------------------------------------------------ ldmatrix / stmatrix

    /** The warp's 1 KiB of shared memory: 32-bit address in %t6, 64-bit in %l6; this lane's 32 bytes at %t8 / %l7. */
    private static final String REGION = "mov.u32 %t4, %tid.x;\nshr.u32 %t6, %t4, 5;\nmov.u32 %t7, sm;\nmad.lo.u32 %t6, %t6, 1024, %t7;\n"
            + "and.b32 %t5, %t4, 31;\nshl.b32 %t8, %t5, 5;\nadd.u32 %t8, %t6, %t8;\ncvt.u64.u32 %l6, %t6;\ncvt.u64.u32 %l7, %t8;\n";

    private static void ldst(List<Form> out) {
        Cls any = SweepValues.cls("any32");
        for (String shape : new String[] {".m8n8", ".m16n16", ".m8n16"}) {
            for (int x : new int[] {1, 2, 4}) {
                for (String tr : new String[] {"", ".trans"}) {
                    for (String sp : new String[] {".shared", ".shared::cta", ""}) {
                        for (String ty : new String[] {".b16", ".b8"}) {
                            boolean main = shape.equals(".m8n8") && ty.equals(".b16");
                            String[] addrs = sp.equals(".shared") ? new String[] {"r32", "r64"} : sp.isEmpty() ? new String[] {"generic"} : new String[] {"r32"};
                            for (String addr : addrs) {
                                String ld = "ldmatrix.sync.aligned" + shape + ".x" + x + tr + sp + ty;
                                for (String v : main ? new String[] {"", " #twice"} : new String[] {""}) {
                                    String name = ld + " #" + addr + v;
                                    Cls[] words = new Cls[11];
                                    for (int i = 0; i < 8; i++) words[i] = any;
                                    words[8] = SweepValues.range(64);
                                    words[9] = any;
                                    words[10] = SweepValues.range(64);
                                    StringBuilder sb = new StringBuilder(Sweep.prologue(name, 64, 32, ".shared .align 16 .b8 sm[4096];\n"));
                                    sb.append(".reg .b32 %d<8>;\n").append(REGION);
                                    for (int i = 0; i < 8; i++) sb.append("ld.global.b32 %r0, [%q2+").append(4 * i).append("];\nst.shared.b32 [%t8+").append(4 * i).append("], %r0;\n");
                                    sb.append("bar.warp.sync -1;\n");
                                    // the row address: rows given by lanes 8x and up are unused: those lanes give an address outside every allocation
                                    sb.append("ld.global.u32 %r1, [%q2+32];\nshl.b32 %r1, %r1, 4;\nadd.u32 %r1, %r1, %t6;\nsetp.ge.u32 %p3, %t5, ").append(8 * x).append(";\n")
                                            .append("@%p3 mov.u32 %r1, 0xfff0fff0;\ncvt.u64.u32 %l1, %r1;\n@%p3 mov.u64 %l1, 0xfffffffffff0fff0;\n");
                                    String a = rowAddress(sb, addr);
                                    sb.append(ld).append(' ').append(regList("%d", 0, x)).append(", [").append(a).append("];\n");
                                    if (v.contains("twice")) {
                                        sb.append("ld.global.u32 %r2, [%q2+40];\nshl.b32 %r2, %r2, 4;\nadd.u32 %r1, %r2, %t6;\n@%p3 mov.u32 %r1, 0xfff0fff0;\ncvt.u64.u32 %l1, %r1;\n"
                                                + "@%p3 mov.u64 %l1, 0xfffffffffff0fff0;\n");
                                        rowAddress(sb, addr);
                                        sb.append(ld).append(' ').append(regList("%d", 4, x)).append(", [").append(a).append("];\n");
                                    }
                                    for (int i = 0; i < x; i++) sb.append("st.global.b32 [%q3+").append(4 * i).append("], %d").append(i).append(";\n");
                                    if (v.contains("twice")) for (int i = 0; i < x; i++) sb.append("st.global.b32 [%q3+").append(16 + 4 * i).append("], %d").append(4 + i).append(";\n");
                                    sb.append(Sweep.EPILOGUE);
                                    out.add(form(name, "ldmatrix", List.of(ld), sb.toString(), plan(name, 128 * 128, words), 32, true));
                                }
                                // stmatrix: rows (lane * odd + offset) mod 64 are distinct; the warp's region read back
                                String st = "stmatrix.sync.aligned" + shape + ".x" + x + tr + sp + ty;
                                String sname = st + " #" + addr;
                                Cls[] words = new Cls[11];
                                for (int i = 0; i < 8; i++) words[i] = any;
                                words[8] = SweepValues.range(32);
                                words[9] = SweepValues.range(64);
                                words[10] = any;
                                Plan p = new Plan(Plan.RAND, Sweep.seed(sname), words, new boolean[] {false, false, false, false, false, false, false, false, true, true, false},
                                        64, 4, 128 * 128);
                                StringBuilder sb = new StringBuilder(Sweep.prologue(sname, 64, 32, ".shared .align 16 .b8 sm[4096];\n"));
                                sb.append(".reg .b32 %d<8>;\n").append(REGION);
                                for (int i = 0; i < 8; i++) sb.append("st.shared.b32 [%t8+").append(4 * i).append("], 0;\n");
                                sb.append("bar.warp.sync -1;\n");
                                for (int i = 0; i < x; i++) sb.append("ld.global.b32 %d").append(i).append(", [%q2+").append(4 * i).append("];\n");
                                sb.append("ld.global.u32 %r1, [%q2+32];\nshl.b32 %r1, %r1, 1;\nadd.u32 %r1, %r1, 1;\nld.global.u32 %r2, [%q2+36];\nmad.lo.u32 %r1, %t5, %r1, %r2;\n"
                                        + "and.b32 %r1, %r1, 63;\nshl.b32 %r1, %r1, 4;\nadd.u32 %r1, %r1, %t6;\nsetp.ge.u32 %p3, %t5, ").append(8 * x).append(";\n")
                                        .append("@%p3 mov.u32 %r1, 0xfff0fff0;\ncvt.u64.u32 %l1, %r1;\n@%p3 mov.u64 %l1, 0xfffffffffff0fff0;\n");
                                String a = rowAddress(sb, addr);
                                sb.append(st).append(" [").append(a).append("], ").append(regList("%d", 0, x)).append(";\nbar.warp.sync -1;\n");
                                for (int i = 0; i < 8; i++) sb.append("ld.shared.b32 %r0, [%t8+").append(4 * i).append("];\nst.global.b32 [%q3+").append(4 * i).append("], %r0;\n");
                                sb.append(Sweep.EPILOGUE);
                                out.add(form(sname, "stmatrix", List.of(st), sb.toString(), p, 32, true));
                            }
                        }
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------------ wmma

    private static void wmma(List<Form> out) {
        Cls f16 = SweepValues.cls("f16x2"), bf16 = SweepValues.cls("bf16x2");
        String[] L = {"row", "col"};
        List<String[]> types = new ArrayList<>();
        for (String d : new String[] {"f16", "f32"}) for (String c : new String[] {"f16", "f32"}) types.add(new String[] {"f16", d, c});
        types.add(new String[] {"bf16", "f32", "f32"});
        for (String shape : new String[] {"m16n16k16", "m32n8k16", "m8n32k16"}) {
            for (String[] t : types) {
                for (String la : L) for (String lb : L) for (String lc : L) {
                    for (String sp : new String[] {".global", ".shared", ""}) {
                        boolean main = shape.equals("m16n16k16");
                        if (!main && !(sp.equals(".global") && lc.equals("row"))) continue;
                        String ab = t[0], d = t[1], c = t[2];
                        String name = "wmma." + shape + "." + la + "." + lb + "." + d + "." + c + (ab.equals("bf16") ? ".bf16" : "") + " c/d:" + lc
                                + (sp.isEmpty() ? " generic" : " " + sp.substring(1));
                        int nab = ab.equals("bf16") ? 4 : 8, nc = c.equals("f32") ? 8 : 4, nd = d.equals("f32") ? 8 : 4;
                        int ldc = c.equals("f16") ? 32 : 16, ldd = d.equals("f16") ? 32 : 16;
                        String la_ = "wmma.load.a.sync.aligned." + la + "." + shape + sp + "." + ab;
                        String lb_ = "wmma.load.b.sync.aligned." + lb + "." + shape + sp + "." + ab;
                        String lc_ = "wmma.load.c.sync.aligned." + lc + "." + shape + sp + "." + c;
                        String mm = "wmma.mma.sync.aligned." + la + "." + lb + "." + shape + "." + d + "." + c;
                        if (ab.equals("bf16")) mm = "wmma.mma.sync.aligned." + la + "." + lb + "." + shape + ".f32.bf16.bf16.f32";
                        String sd = "wmma.store.d.sync.aligned." + lc + "." + shape + sp + "." + d;
                        Cls[] words = new Cls[16];
                        for (int i = 0; i < 16; i++) words[i] = ab.equals("bf16") ? bf16 : f16;
                        StringBuilder sb = new StringBuilder(Sweep.prologue(name, 64, 32, ".shared .align 32 .b8 sm[8192];\n"));
                        sb.append(".reg .b32 %a<8>;\n.reg .b32 %b<8>;\n.reg .b32 %c<8>;\n.reg .b32 %d<8>;\n");
                        // the warp's 2 KiB of inputs and 1 KiB of outputs
                        sb.append("mov.u32 %t4, %tid.x;\nand.b32 %t5, %t4, 31;\nshr.u32 %t6, %t4, 5;\ncvt.u64.u32 %q4, %t5;\nmul.lo.u64 %q5, %q4, 64;\nsub.s64 %l0, %q2, %q5;\n"
                                + "mul.lo.u64 %q5, %q4, 32;\nsub.s64 %l1, %q3, %q5;\n");
                        String inA = "%l0", inO = "%l1";
                        if (sp.equals(".shared") || sp.isEmpty()) {
                            sb.append("mov.u32 %t7, sm;\nmad.lo.u32 %t7, %t6, 2048, %t7;\ncvt.u64.u32 %l2, %t7;\nmul.lo.u64 %q5, %q4, 64;\nadd.s64 %l3, %l2, %q5;\n");
                            // through shared memory the values are made narrow (|x| < 2, no inf or NaN): sums that do not overflow
                            for (int i = 0; i < 8; i++) {
                                sb.append("ld.global.b64 %l9, [%q2+").append(8 * i).append("];\nand.b64 %l9, %l9, 0xBFFFBFFFBFFFBFFF;\nst.shared.b64 [%l3+").append(8 * i)
                                        .append("], %l9;\n");
                            }
                            sb.append("bar.warp.sync -1;\n");
                            inA = "%l2";
                            inO = "%l2";
                            if (sp.isEmpty()) sb.append("cvta.shared.u64 %l4, %l2;\n");
                            if (sp.isEmpty()) {
                                inA = "%l4";
                                inO = "%l4";
                            }
                        }
                        sb.append(la_).append(' ').append(regList("%a", 0, nab)).append(", [").append(inA).append("], 16;\n");
                        sb.append(lb_).append(' ').append(regList("%b", 0, nab)).append(", [").append(inA).append("+512], 16;\n");
                        sb.append(lc_).append(' ').append(regList("%c", 0, nc)).append(", [").append(inA).append("+1024], ").append(ldc).append(";\n");
                        sb.append(mm).append(' ').append(regList("%d", 0, nd)).append(", ").append(regList("%a", 0, nab)).append(", ").append(regList("%b", 0, nab))
                                .append(", ").append(regList("%c", 0, nc)).append(";\n");
                        if (sp.equals(".global")) {
                            sb.append(sd).append(" [").append(inO).append("], ").append(regList("%d", 0, nd)).append(", ").append(ldd).append(";\n");
                        } else {
                            sb.append("bar.warp.sync -1;\n").append(sd).append(" [").append(inO).append("], ").append(regList("%d", 0, nd)).append(", ").append(ldd)
                                    .append(";\nbar.warp.sync -1;\nmul.lo.u64 %q5, %q4, 32;\nadd.s64 %l3, %l2, %q5;\n");
                            for (int i = 0; i < 4; i++) sb.append("ld.shared.b64 %l9, [%l3+").append(8 * i).append("];\nst.global.b64 [%q3+").append(8 * i).append("], %l9;\n");
                        }
                        sb.append(Sweep.EPILOGUE);
                        out.add(form(name, "wmma.mma", List.of(la_, lb_, lc_, mm, sd), sb.toString(), plan(name, 64 * 128, words), 32, true));
                    }
                }
            }
        }
    }
}
