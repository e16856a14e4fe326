package dev.zluda.runtime.emulator.conformance;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

/**
 * The warp-level matrix family of the conformance suite (PTX ISA 9.0, §9.7.14): {@code ldmatrix},
 * {@code stmatrix}, {@code movmatrix}, {@code mma.sync} and {@code wmma.load/mma/store}. These instructions work on a whole
 * warp's registers, so one thread's 32-byte input tuple of {@link Conformance} cannot hold an operand;
 * this family keeps {@link Conformance}'s kernel signature, launch, buffer sizes and data format but reads
 * the buffers per warp:
 *
 * <p>The kernel {@code k(in, out, n)} runs on {@link Conformance#N} = 256 threads (2 CTAs of 128, as the
 * harness launches every form). Global warp {@code w} (0..7) works when {@code w} is even and idles when
 * it is odd, so each working warp owns the 2048 input bytes at {@code in + 1024*w} and the 1024 output
 * bytes at {@code out + 512*w} (the idle warps' shares of the buffers). Inside a working warp's input
 * block, 32-bit register {@code j} of lane {@code l} is the word at {@code 128*j + 4*l}; outputs are laid
 * out the same way (mma, ldmatrix), or are the bytes of the matrix in memory (stmatrix: the warp's 1 KiB of
 * shared memory afterwards; wmma: the 16×16 result matrix as {@code wmma.store} wrote it). Bytes nobody
 * writes stay zero.
 *
 * <p>Inputs are a pure function of {@link Conformance#SEED} and the form's name: logical matrices are drawn
 * per working warp from a distribution (random, wide exponent range, cancelling sums, edge values — NaN
 * payloads, ±0, ±inf, subnormals — tiny and huge values, sparse rows that probe the accumulator's width,
 * results at the accumulator's subnormal range and overflow edge, zero sums of ±0 terms)
 * and packed into registers by the fragment layouts of PTX ISA 9.0 §9.7.14.5.x, or into memory for wmma.
 * The distributions exist to expose the tensor cores' undocumented accumulation numerics; the layout used
 * to pack them only decides which probe lands where, never what is expected.
 */
public final class MatrixConformance {
    private MatrixConformance() {}

    /** The family name (data file {@code matrix.bin.gz}). */
    public static final String FAMILY = "matrix";

    /** Input and output bytes of one working warp. */
    public static final int WARP_IN = 2048, WARP_OUT = 1024;

    /** The working warps' global indices. */
    public static final int[] WARPS = {0, 2, 4, 6};

    /** Element formats. */
    public enum Fmt {
        F16(5, 10, 16), BF16(8, 7, 16), TF32(8, 10, 32), F32(8, 23, 32), S8(0, 0, 8), U8(0, 0, 8), S32(0, 0, 32), B16(0, 0, 16);

        final int exp, mant, bits;

        Fmt(int exp, int mant, int bits) {
            this.exp = exp;
            this.mant = mant;
            this.bits = bits;
        }

        boolean isFloat() {
            return exp > 0;
        }
    }

    /** Input distributions of a working warp. */
    public enum Dist { RAND, WIDE, CANCEL, EDGE, TINY, HUGE, SPARSE, DIRTY, NOC, CANCEL2, SUBRES, ZEROS, MAXEDGE }

    /** Kinds of kernels. */
    public enum Kind { MMA, LDMATRIX, STMATRIX, WMMA, MOVMATRIX }

    /**
     * One form.
     *
     * @param name  unique name: the instruction as written, plus a {@code " #variant"} when the same
     *              instruction is recorded with several input distributions
     * @param kind  kernel shape
     * @param instr the instruction as written (without operands)
     * @param m     rows of A / D
     * @param n     columns of B / D
     * @param k     the reduction dimension
     * @param a     A's element format ({@link Fmt#B16} for ldmatrix/stmatrix)
     * @param b     B's element format
     * @param c     C's element format
     * @param d     D's element format
     * @param dists the distribution of each of the four working warps
     * @param lay   wmma: layouts of A, B, C/D as "row"/"col"; ldmatrix/stmatrix: count (1, 2, 4) and ".trans"
     */
    public record Form(String name, Kind kind, String instr, int m, int n, int k, Fmt a, Fmt b, Fmt c, Fmt d, Dist[] dists, String[] lay) {
        /** The family every matrix form belongs to. */
        public String family() {
            return FAMILY;
        }
    }

    private static final List<Form> FORMS = new ArrayList<>();
    private static final Map<String, Form> BY_NAME = new LinkedHashMap<>();

    private static void add(Form f) {
        if (BY_NAME.putIfAbsent(f.name(), f) != null) throw new IllegalStateException("duplicate form " + f.name());
        FORMS.add(f);
    }

    private static final Dist[][] FLOAT_SETS = {
            {Dist.RAND, Dist.WIDE, Dist.CANCEL, Dist.EDGE},
            {Dist.TINY, Dist.HUGE, Dist.SPARSE, Dist.RAND},
            {Dist.CANCEL, Dist.SPARSE, Dist.WIDE, Dist.DIRTY},
            {Dist.SPARSE, Dist.CANCEL, Dist.TINY, Dist.EDGE},
            {Dist.SPARSE, Dist.SPARSE, Dist.CANCEL, Dist.CANCEL},
            {Dist.WIDE, Dist.SPARSE, Dist.RAND, Dist.CANCEL},
            {Dist.NOC, Dist.CANCEL2, Dist.NOC, Dist.CANCEL2},
            {Dist.CANCEL2, Dist.NOC, Dist.EDGE, Dist.TINY},
    };

    private static void mma(String shape, int m, int n, int k, Fmt d, Fmt ab, Fmt c, boolean satfinite, Fmt bOverride, int variants) {
        Fmt b = bOverride != null ? bOverride : ab;
        String instr = "mma.sync.aligned." + shape + ".row.col" + (satfinite ? ".satfinite" : "") + "." + tn(d) + "." + tn(ab) + "." + tn(b) + "." + tn(c);
        for (int v = 0; v < variants; v++) {
            Dist[] ds = ab.isFloat() ? FLOAT_SETS[v % FLOAT_SETS.length]
                    : new Dist[] {Dist.RAND, Dist.HUGE, v == 0 ? Dist.EDGE : Dist.WIDE, Dist.RAND};
            add(new Form(instr + (v == 0 ? "" : " #" + v), Kind.MMA, instr, m, n, k, ab, b, c, d, ds, null));
        }
    }

    static String tn(Fmt f) {
        return f.name().toLowerCase();
    }

    static {
        // mma.sync (PTX ISA 9.0, 9.7.14.5.14): the shapes cuBLAS-style kernels use
        mma("m16n8k16", 16, 8, 16, Fmt.F32, Fmt.F16, Fmt.F32, false, null, 8);
        mma("m16n8k16", 16, 8, 16, Fmt.F16, Fmt.F16, Fmt.F16, false, null, 4);
        mma("m16n8k16", 16, 8, 16, Fmt.F32, Fmt.BF16, Fmt.F32, false, null, 8);
        mma("m16n8k8", 16, 8, 8, Fmt.F32, Fmt.TF32, Fmt.F32, false, null, 8);
        mma("m16n8k8", 16, 8, 8, Fmt.F32, Fmt.F16, Fmt.F32, false, null, 3);
        mma("m16n8k8", 16, 8, 8, Fmt.F16, Fmt.F16, Fmt.F16, false, null, 2);
        mma("m16n8k8", 16, 8, 8, Fmt.F32, Fmt.BF16, Fmt.F32, false, null, 2);
        for (boolean sat : new boolean[] {false, true}) {
            mma("m16n8k32", 16, 8, 32, Fmt.S32, Fmt.S8, Fmt.S32, sat, null, 2);
            mma("m16n8k32", 16, 8, 32, Fmt.S32, Fmt.U8, Fmt.S32, sat, null, 2);
            mma("m16n8k32", 16, 8, 32, Fmt.S32, Fmt.S8, Fmt.S32, sat, Fmt.U8, 1);
            mma("m16n8k32", 16, 8, 32, Fmt.S32, Fmt.U8, Fmt.S32, sat, Fmt.S8, 1);
        }
        // third recording: m16n8k16 with s8/u8 (llama.cpp's quantised matrix multiply uses the s8.s8 form)
        for (boolean sat : new boolean[] {false, true}) {
            mma("m16n8k16", 16, 8, 16, Fmt.S32, Fmt.S8, Fmt.S32, sat, null, 2);
            mma("m16n8k16", 16, 8, 16, Fmt.S32, Fmt.U8, Fmt.S32, sat, null, 2);
            mma("m16n8k16", 16, 8, 16, Fmt.S32, Fmt.S8, Fmt.S32, sat, Fmt.U8, 1);
            mma("m16n8k16", 16, 8, 16, Fmt.S32, Fmt.U8, Fmt.S32, sat, Fmt.S8, 1);
        }
        // movmatrix (9.7.14.5.17): the one form, the transpose of an 8x8 matrix of b16 held one row pair per lane
        String mv = "movmatrix.sync.aligned.m8n8.trans.b16";
        add(new Form(mv, Kind.MOVMATRIX, mv, 8, 8, 0, Fmt.B16, Fmt.B16, Fmt.B16, Fmt.B16, new Dist[] {Dist.RAND, Dist.RAND, Dist.RAND, Dist.RAND}, null));
        // second recording: results in the subnormal range of the accumulator, signs of zero sums, the overflow edge
        Dist[][] probes = {{Dist.SUBRES, Dist.ZEROS, Dist.MAXEDGE, Dist.SUBRES}, {Dist.ZEROS, Dist.MAXEDGE, Dist.SUBRES, Dist.MAXEDGE}};
        String[][] probed = {{"m16n8k16", "f32", "f16", "f32"}, {"m16n8k16", "f16", "f16", "f16"}, {"m16n8k16", "f32", "bf16", "f32"}, {"m16n8k8", "f32", "tf32", "f32"}};
        for (String[] p : probed) {
            Fmt d = Fmt.valueOf(p[1].toUpperCase()), ab = Fmt.valueOf(p[2].toUpperCase()), c = Fmt.valueOf(p[3].toUpperCase());
            int k = p[0].equals("m16n8k16") ? 16 : 8;
            String instr = "mma.sync.aligned." + p[0] + ".row.col." + p[1] + "." + p[2] + "." + p[2] + "." + p[3];
            for (int v = 0; v < probes.length; v++) add(new Form(instr + " #probe" + (v + 1), Kind.MMA, instr, 16, 8, k, ab, ab, c, d, probes[v], null));
        }
        // ldmatrix / stmatrix (9.7.14.5.15, 9.7.14.5.16)
        for (String sp : new String[] {".shared", ".shared::cta"}) {
            for (int x : new int[] {1, 2, 4}) {
                for (String tr : new String[] {"", ".trans"}) {
                    if (sp.equals(".shared::cta") && x != 4) continue;
                    String ld = "ldmatrix.sync.aligned.m8n8.x" + x + tr + sp + ".b16";
                    add(new Form(ld, Kind.LDMATRIX, ld, 8, 8, 0, Fmt.B16, Fmt.B16, Fmt.B16, Fmt.B16, new Dist[] {Dist.RAND, Dist.RAND, Dist.RAND, Dist.RAND},
                            new String[] {String.valueOf(x), tr}));
                    String st = "stmatrix.sync.aligned.m8n8.x" + x + tr + sp + ".b16";
                    add(new Form(st, Kind.STMATRIX, st, 8, 8, 0, Fmt.B16, Fmt.B16, Fmt.B16, Fmt.B16, new Dist[] {Dist.RAND, Dist.RAND, Dist.RAND, Dist.RAND},
                            new String[] {String.valueOf(x), tr}));
                }
            }
        }
        // wmma m16n16k16 (9.7.14.4): load -> mma -> store, every layout of A and B, C/D row or col
        String[] L = {"row", "col"};
        int v = 0;
        for (String[] dc : new String[][] {{"f32", "f32"}, {"f16", "f16"}, {"f32", "f16"}, {"f16", "f32"}}) {
            for (String la : L) {
                for (String lb : L) {
                    String lc = L[(v++) % 2];
                    if (!dc[0].equals(dc[1]) && !(la.equals("row") && lb.equals("col")) && !(la.equals("col") && lb.equals("row"))) continue;
                    Fmt d = dc[0].equals("f32") ? Fmt.F32 : Fmt.F16, c = dc[1].equals("f32") ? Fmt.F32 : Fmt.F16;
                    String name = "wmma.m16n16k16." + la + "." + lb + "." + dc[0] + "." + dc[1] + " c/d:" + lc;
                    Dist[] ds = FLOAT_SETS[v % FLOAT_SETS.length];
                    add(new Form(name, Kind.WMMA, "wmma.mma.sync.aligned." + la + "." + lb + ".m16n16k16." + dc[0] + "." + dc[1], 16, 16, 16,
                            Fmt.F16, Fmt.F16, c, d, ds, new String[] {la, lb, lc}));
                }
            }
        }
        for (String[] l : new String[][] {{"row", "col", "row"}, {"col", "row", "col"}}) {
            String name = "wmma.m16n16k16." + l[0] + "." + l[1] + ".f32.bf16 c/d:" + l[2];
            add(new Form(name, Kind.WMMA, "wmma.mma.sync.aligned." + l[0] + "." + l[1] + ".m16n16k16.f32.bf16.bf16.f32", 16, 16, 16, Fmt.BF16, Fmt.BF16,
                    Fmt.F32, Fmt.F32, FLOAT_SETS[0], l));
        }
    }

    /** Every matrix form. */
    public static List<Form> forms() {
        return FORMS;
    }

    /** The form of a name, or null. */
    public static Form byName(String name) {
        return BY_NAME.get(name);
    }

    // ------------------------------------------------------------------ fragment layouts (PTX ISA 9.0, 9.7.14.5.x)

    /** Registers per lane of an mma operand: 'a', 'b', 'c' (C and D). */
    public static int regs(Form f, char which) {
        Fmt t = which == 'a' ? f.a() : which == 'b' ? f.b() : f.c();
        int elems = switch (which) {
            case 'a' -> f.m() * f.k() / 32;
            case 'b' -> f.k() * f.n() / 32;
            default -> f.m() * f.n() / 32;
        };
        return elems * t.bits / 32;
    }

    /** Registers per lane of D. */
    public static int regsD(Form f) {
        return f.m() * f.n() / 32 * f.d().bits / 32;
    }

    /**
     * (row, column) of element {@code i} (in register order, lowest bits first) of lane {@code lane}'s
     * fragment of operand {@code which} ('a', 'b' or 'c' for C/D) of an mma form.
     */
    public static int[] mmaCoord(Form f, char which, int lane, int i) {
        int g = lane >> 2, t = lane & 3;
        boolean tf32 = f.a() == Fmt.TF32, i8 = f.a() == Fmt.S8 || f.a() == Fmt.U8;
        switch (which) {
            case 'a' -> {
                if (tf32) return new int[] {g + 8 * (i & 1), t + 4 * (i >> 1)};
                if (i8) return new int[] {g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >> 3)};
                if (f.k() == 8) return new int[] {g + 8 * (i >> 1), 2 * t + (i & 1)};
                return new int[] {g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)};
            }
            case 'b' -> {
                if (tf32) return new int[] {t + 4 * i, g};
                if (i8) return new int[] {4 * t + (i & 3) + 16 * (i >> 2), g};
                if (f.k() == 8) return new int[] {2 * t + i, g};
                return new int[] {2 * t + (i & 1) + 8 * (i >> 1), g};
            }
            default -> {
                return new int[] {g + 8 * (i >> 1), 2 * t + (i & 1)};
            }
        }
    }

    // ------------------------------------------------------------------ PTX

    private static String regList(String prefix, int from, int count) {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < count; i++) sb.append(i == 0 ? "" : ", ").append(prefix).append(from + i);
        return sb.append('}').toString();
    }

    /** The PTX module (PTX ISA 9.0, sm_90) of one form: kernel {@code k} as described in the class comment. */
    public static String ptx(Form f) {
        StringBuilder sb = Sweep.entry(f.name(), "");
        sb.append(".reg .pred %pq;\n.reg .b32 %t<12>;\n.reg .b64 %q<8>;\n.reg .b32 %r<24>;\n.reg .b32 %d<8>;\n");
        sb.append(".shared .align 16 .b8 sm[4096];\n");
        sb.append(Sweep.THREAD_INDEX);
        sb.append("shr.u32 %t3, %t0, 5;\nand.b32 %t4, %t3, 1;\nsetp.ne.u32 %pq, %t4, 0;\n@%pq bra DONE;\n");
        sb.append("and.b32 %t5, %t0, 31;\n");
        sb.append("ld.param.u64 %q0, [pin];\nld.param.u64 %q1, [pout];\n");
        sb.append("mul.wide.u32 %q2, %t3, 1024;\nadd.s64 %q2, %q0, %q2;\n");   // the warp's input block
        sb.append("mul.wide.u32 %q3, %t3, 512;\nadd.s64 %q3, %q1, %q3;\n");    // the warp's output block
        sb.append("mul.wide.u32 %q4, %t5, 4;\nadd.s64 %q5, %q2, %q4;\nadd.s64 %q6, %q3, %q4;\n"); // this lane's words
        sb.append("shr.u32 %t6, %t2, 5;\nmov.u32 %t7, sm;\nmad.lo.u32 %t6, %t6, 1024, %t7;\n"); // the warp's 1 KiB of shared memory
        sb.append("shl.b32 %t8, %t5, 2;\nadd.u32 %t8, %t6, %t8;\n");                            // ... this lane's word in it
        switch (f.kind()) {
            case MMA -> {
                int na = regs(f, 'a'), nb = regs(f, 'b'), nc = regs(f, 'c'), nd = regsD(f);
                for (int j = 0; j < na + nb + nc; j++) sb.append("ld.global.b32 %r").append(j).append(", [%q5+").append(128 * j).append("];\n");
                sb.append(f.instr()).append(' ').append(regList("%d", 0, nd)).append(", ").append(regList("%r", 0, na)).append(", ")
                        .append(regList("%r", na, nb)).append(", ").append(regList("%r", na + nb, nc)).append(";\n");
                for (int j = 0; j < nd; j++) sb.append("st.global.b32 [%q6+").append(128 * j).append("], %d").append(j).append(";\n");
            }
            case LDMATRIX -> {
                int x = Integer.parseInt(f.lay()[0]);
                for (int j = 0; j < 8; j++) {
                    sb.append("ld.global.b32 %r0, [%q5+").append(128 * j).append("];\nst.shared.b32 [%t8+").append(128 * j).append("], %r0;\n");
                }
                sb.append("bar.warp.sync -1;\n");
                sb.append("ld.global.b32 %r1, [%q5+1024];\nand.b32 %r1, %r1, 63;\nshl.b32 %r1, %r1, 4;\nadd.u32 %r1, %r1, %t6;\n");
                sb.append(f.instr()).append(' ').append(regList("%d", 0, x)).append(", [%r1];\n");
                for (int j = 0; j < x; j++) sb.append("st.global.b32 [%q6+").append(128 * j).append("], %d").append(j).append(";\n");
            }
            case MOVMATRIX -> {
                sb.append("ld.global.b32 %r0, [%q5];\n");
                sb.append(f.instr()).append(" %d0, %r0;\n");
                sb.append("st.global.b32 [%q6], %d0;\n");
            }
            case STMATRIX -> {
                int x = Integer.parseInt(f.lay()[0]);
                for (int j = 0; j < 8; j++) sb.append("st.shared.b32 [%t8+").append(128 * j).append("], 0;\n");
                sb.append("bar.warp.sync -1;\n");
                for (int j = 0; j < x; j++) sb.append("ld.global.b32 %r").append(j + 2).append(", [%q5+").append(128 * j).append("];\n");
                sb.append("ld.global.b32 %r1, [%q5+1024];\nand.b32 %r1, %r1, 63;\nshl.b32 %r1, %r1, 4;\nadd.u32 %r1, %r1, %t6;\n");
                sb.append(f.instr()).append(" [%r1], ").append(regList("%r", 2, x)).append(";\n");
                sb.append("bar.warp.sync -1;\n");
                for (int j = 0; j < 8; j++) {
                    sb.append("ld.shared.b32 %r0, [%t8+").append(128 * j).append("];\nst.global.b32 [%q6+").append(128 * j).append("], %r0;\n");
                }
            }
            case WMMA -> {
                String la = f.lay()[0], lb = f.lay()[1], lc = f.lay()[2];
                boolean bf = f.a() == Fmt.BF16;
                int nab = bf ? 4 : 8;
                int nc = f.c() == Fmt.F32 ? 8 : 4, nd = f.d() == Fmt.F32 ? 8 : 4;
                String at = bf ? "bf16" : "f16";
                sb.append("add.s64 %q4, %q2, 512;\nadd.s64 %q7, %q2, 1024;\n");
                sb.append("wmma.load.a.sync.aligned.").append(la).append(".m16n16k16.global.").append(at).append(' ').append(regList("%r", 0, nab)).append(", [%q2], 16;\n");
                sb.append("wmma.load.b.sync.aligned.").append(lb).append(".m16n16k16.global.").append(at).append(' ').append(regList("%r", 8, nab)).append(", [%q4], 16;\n");
                sb.append("wmma.load.c.sync.aligned.").append(lc).append(".m16n16k16.global.").append(tn(f.c())).append(' ').append(regList("%r", 16, nc))
                        .append(", [%q7], ").append(strideC(f)).append(";\n");
                sb.append(f.instr()).append(' ').append(regList("%d", 0, nd)).append(", ").append(regList("%r", 0, nab)).append(", ")
                        .append(regList("%r", 8, nab)).append(", ").append(regList("%r", 16, nc)).append(";\n");
                sb.append("wmma.store.d.sync.aligned.").append(lc).append(".m16n16k16.global.").append(tn(f.d())).append(" [%q3], ")
                        .append(regList("%d", 0, nd)).append(", ").append(strideD(f)).append(";\n");
            }
        }
        sb.append("DONE:\nret;\n}\n");
        return sb.toString();
    }

    /** wmma: the leading dimension (elements) of C in memory: 16, or 32 for f16 (so that strides are tested). */
    public static int strideC(Form f) {
        return f.c() == Fmt.F16 ? 32 : 16;
    }

    /** wmma: the leading dimension (elements) of D in memory. */
    public static int strideD(Form f) {
        return f.d() == Fmt.F16 ? 32 : 16;
    }

    // ------------------------------------------------------------------ inputs

    static final long[] F16_EDGE = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x0001, 0x8001, 0x03ff, 0x83ff, 0x0400, 0x8400, 0x7bff, 0xfbff, 0x7c00, 0xfc00,
            0x7e00, 0x7fff, 0x7c01, 0xfe00, 0xfd23, 0x7d55, 0x0200};
    static final long[] BF16_EDGE = {0x0000, 0x8000, 0x3f80, 0xbf80, 0x0001, 0x8001, 0x007f, 0x807f, 0x0080, 0x8080, 0x7f7f, 0xff7f, 0x7f80, 0xff80,
            0x7fc0, 0x7fff, 0x7f81, 0xffc0, 0xff91, 0x7fa5, 0x0040};
    static final long[] F32_EDGE = {0x00000000L, 0x80000000L, 0x3f800000L, 0xbf800000L, 0x00000001L, 0x80000001L, 0x007fffffL, 0x807fffffL,
            0x00800000L, 0x80800000L, 0x7f7fffffL, 0xff7fffffL, 0x7f800000L, 0xff800000L, 0x7fc00000L, 0x7fffffffL, 0x7f800001L, 0xffc00001L,
            0x7fc12345L, 0xff812345L, 0x00400000L};
    static final long[] TF32_EDGE = {0x00000000L, 0x80000000L, 0x3f800000L, 0xbf800000L, 0x00002000L, 0x80002000L, 0x007fe000L, 0x807fe000L,
            0x00800000L, 0x80800000L, 0x7f7fe000L, 0xff7fe000L, 0x7f800000L, 0xff800000L, 0x7fc00000L, 0x7fffe000L, 0x7f802000L, 0xffc02000L,
            0x7fc12000L, 0xff812000L, 0x00400000L, 0x7f800001L, 0x3f800fffL, 0x3f801000L, 0x3f801001L};

    /** A float of format {@code f} with the given sign, unbiased exponent (clamped to the format) and random mantissa. */
    private static long flt(Fmt f, SplittableRandom r, int e, boolean neg) {
        int bias = (1 << (f.exp - 1)) - 1;
        int be = Math.max(0, Math.min((1 << f.exp) - 2, e + bias));
        long mant = r.nextLong() & ((1L << f.mant) - 1);
        long bits = (long) be << f.mant | mant;
        if (neg) bits |= 1L << (f.exp + f.mant);
        if (f == Fmt.TF32) bits <<= 13;
        return bits;
    }

    private static int maxExp(Fmt f) {
        return (1 << (f.exp - 1)) - 1;
    }

    /** One element of format {@code f} drawn from {@code d} ({@code acc}: it is an accumulator C). */
    private static long elem(Fmt f, Dist d, SplittableRandom r, boolean acc) {
        if (!f.isFloat()) {
            long mask = (1L << f.bits) - 1;
            return switch (d) {
                case HUGE -> f == Fmt.S32 ? (r.nextBoolean() ? 0x7fffffffL - r.nextInt(1 << 20) : 0x80000000L + r.nextInt(1 << 20))
                        : f == Fmt.S8 ? (r.nextBoolean() ? 0x7f : 0x80) : r.nextInt(4) == 0 ? r.nextInt(256) : 0xff;
                case EDGE -> f == Fmt.S32 ? new long[] {0, 1, 0xffffffffL, 0x7fffffffL, 0x80000000L, 0x7fff0000L, 0x80010000L}[r.nextInt(7)]
                        : new long[] {0, 1, 0x7f, 0x80, 0xff, 0x81, 0x7e}[r.nextInt(7)];
                case WIDE -> f == Fmt.S32 ? (r.nextLong() & 0xffffffffL) >>> r.nextInt(32) ^ (r.nextBoolean() ? 0xffffffffL : 0) : r.nextLong() & mask;
                default -> f == Fmt.S32 ? (r.nextInt(1 << 16) - (1 << 15)) & 0xffffffffL : r.nextLong() & mask;
            };
        }
        boolean neg = r.nextBoolean();
        int mx = maxExp(f);
        return switch (d) {
            case RAND, CANCEL, SPARSE, NOC, CANCEL2, SUBRES, ZEROS, MAXEDGE -> flt(f, r, r.nextInt(acc ? 17 : 13) - (acc ? 8 : 6), neg);
            case WIDE -> flt(f, r, acc ? r.nextInt(81) - 40 : f == Fmt.F16 ? r.nextInt(29) - 14 : r.nextInt(61) - 30, neg);
            case TINY -> {
                // subnormals and the smallest normals of the format (an f32 accumulator: of f32)
                int minE = 1 - mx;
                int e = minE - r.nextInt(3);
                long v = flt(f, r, e + 1, neg);
                if (r.nextInt(3) == 0) {
                    // a subnormal: exponent field 0
                    long expMask = ((1L << f.exp) - 1) << f.mant << (f == Fmt.TF32 ? 13 : 0);
                    v &= ~expMask;
                    v = v & ~(((1L << f.mant) - 1) << (f == Fmt.TF32 ? 13 : 0)) | ((r.nextLong() & ((1L << f.mant) - 1)) >>> r.nextInt(f.mant)) << (f == Fmt.TF32 ? 13 : 0);
                }
                yield v;
            }
            case HUGE -> flt(f, r, mx - r.nextInt(acc ? 3 : 4), neg);
            case EDGE -> r.nextInt(5) == 0 ? pick(r, f == Fmt.F16 ? F16_EDGE : f == Fmt.BF16 ? BF16_EDGE : f == Fmt.TF32 ? TF32_EDGE : F32_EDGE)
                    : flt(f, r, r.nextInt(13) - 6, neg);
            case DIRTY -> {
                long v = flt(f, r, r.nextInt(13) - 6, neg);
                // tf32 operands with the low 13 bits (which tf32 ignores or rounds) set at random
                yield f == Fmt.TF32 ? v | (r.nextLong() & 0x1fff) : v;
            }
        };
    }

    private static long pick(SplittableRandom r, long[] e) {
        return e[r.nextInt(e.length)];
    }

    /** The logical matrices of one working warp: A[m][k], B[k][n], C[m][n] as element bits. */
    public record Mats(long[][] a, long[][] b, long[][] c) {}

    static Mats mats(Form f, Dist d, SplittableRandom r) {
        long[][] a = new long[f.m()][f.k()], b = new long[f.k()][f.n()], c = new long[f.m()][f.n()];
        for (int i = 0; i < f.m(); i++) for (int j = 0; j < f.k(); j++) a[i][j] = elem(f.a(), d, r, false);
        for (int i = 0; i < f.k(); i++) for (int j = 0; j < f.n(); j++) b[i][j] = elem(f.b(), d, r, false);
        for (int i = 0; i < f.m(); i++) for (int j = 0; j < f.n(); j++) c[i][j] = elem(f.c(), d, r, true);
        if (!f.a().isFloat()) return new Mats(a, b, c);
        int half = f.k() / 2;
        long sb = signBit(f.b()), sc = signBit(f.c());
        switch (d) {
            case CANCEL -> {
                // A's second half repeats the first with a few low bits changed, B's second half is the first
                // negated: each dot product nearly cancels, leaving the low-order bits of the products
                for (int i = 0; i < f.m(); i++) {
                    for (int j = 0; j < half; j++) a[i][j + half] = r.nextInt(3) == 0 ? a[i][j] : a[i][j] ^ lowBits(f.a(), r);
                }
                for (int j = 0; j < half; j++) for (int n = 0; n < f.n(); n++) b[j + half][n] = b[j][n] ^ sb;
                for (int i = 0; i < f.m(); i++) {
                    for (int n = 0; n < f.n(); n++) {
                        int w = r.nextInt(4);
                        c[i][n] = w == 0 ? 0 : w == 1 ? sc : flt(f.c(), r, r.nextInt(30) - 40, r.nextBoolean());
                    }
                }
            }
            case CANCEL2 -> {
                // neighbouring products cancel (A[2j+1] ~ A[2j], B[2j+1] = -B[2j]); C small or zero
                for (int i = 0; i < f.m(); i++) {
                    for (int j = 0; j < f.k(); j += 2) a[i][j + 1] = r.nextInt(3) == 0 ? a[i][j] : a[i][j] ^ lowBits(f.a(), r);
                }
                for (int j = 0; j < f.k(); j += 2) for (int n = 0; n < f.n(); n++) b[j + 1][n] = b[j][n] ^ sb;
                for (int i = 0; i < f.m(); i++) {
                    for (int n = 0; n < f.n(); n++) {
                        int w = r.nextInt(3);
                        c[i][n] = w == 0 ? 0 : w == 1 ? sc : flt(f.c(), r, r.nextInt(40) - 45, r.nextBoolean());
                    }
                }
            }
            case NOC -> {
                // two to four non-zero products per row, C = +-0: how products are aligned and summed among themselves
                for (int i = 0; i < f.m(); i++) {
                    java.util.Arrays.fill(a[i], 0);
                    int cnt = 2 + r.nextInt(3);
                    for (int q = 0; q < cnt; q++) {
                        int e = -r.nextInt(f.a() == Fmt.F16 ? 24 : 36);
                        a[i][r.nextInt(f.k())] = flt(f.a(), r, e, r.nextBoolean());
                    }
                    for (int n = 0; n < f.n(); n++) c[i][n] = r.nextBoolean() ? 0 : sc;
                }
                for (int k = 0; k < f.k(); k++) for (int n = 0; n < f.n(); n++) b[k][n] = flt(f.b(), r, r.nextInt(3) - 1, r.nextBoolean());
            }
            case SUBRES -> {
                // products and C around the smallest normal of the result format: subnormal results
                int outMin = f.d() == Fmt.F16 ? -14 : -126;
                for (int i = 0; i < f.m(); i++) {
                    for (int q = 0; q < f.k(); q++) {
                        int t = outMin - 12 + r.nextInt(16);
                        int eb = f.a() == Fmt.F16 ? -r.nextInt(8) : -40 - r.nextInt(20);
                        a[i][q] = r.nextInt(4) == 0 ? 0 : flt(f.a(), r, t - eb, r.nextBoolean());
                    }
                }
                for (int q = 0; q < f.k(); q++) {
                    for (int n = 0; n < f.n(); n++) b[q][n] = flt(f.b(), r, f.b() == Fmt.F16 ? -r.nextInt(8) : -40 - r.nextInt(20), r.nextBoolean());
                }
                for (int i = 0; i < f.m(); i++) {
                    for (int n = 0; n < f.n(); n++) {
                        int w = r.nextInt(3);
                        c[i][n] = w == 0 ? (r.nextBoolean() ? 0 : sc) : flt(f.c(), r, (f.c() == Fmt.F16 ? -14 : -126) - 4 + r.nextInt(8), r.nextBoolean());
                    }
                }
            }
            case ZEROS -> {
                // rows of +0, of -0 or mixed, columns of one sign or mixed, C = +-0: the sign of a zero sum
                for (int i = 0; i < f.m(); i++) {
                    int mode = r.nextInt(4);
                    for (int q = 0; q < f.k(); q++) {
                        a[i][q] = switch (mode) {
                            case 0 -> 0;
                            case 1 -> signBit(f.a());
                            case 2 -> r.nextBoolean() ? 0 : signBit(f.a());
                            default -> r.nextInt(3) == 0 ? flt(f.a(), r, r.nextInt(5) - 2, r.nextBoolean()) : r.nextBoolean() ? 0 : signBit(f.a());
                        };
                    }
                }
                for (int n = 0; n < f.n(); n++) {
                    int mode = r.nextInt(3);
                    for (int q = 0; q < f.k(); q++) b[q][n] = flt(f.b(), r, r.nextInt(5) - 2, mode == 0 ? false : mode == 1 || r.nextBoolean());
                }
                for (int i = 0; i < f.m(); i++) for (int n = 0; n < f.n(); n++) c[i][n] = r.nextBoolean() ? 0 : sc;
            }
            case MAXEDGE -> {
                // C at the largest finite values of its format, products that push the sum over or keep it under
                int cMax = maxExp(f.c());
                for (int i = 0; i < f.m(); i++) {
                    for (int q = 0; q < f.k(); q++) {
                        int t = f.d() == Fmt.F16 ? 4 + r.nextInt(12) : f.a() == Fmt.F16 ? 20 + r.nextInt(12) : 100 + r.nextInt(28);
                        int eb = r.nextInt(3);
                        a[i][q] = r.nextInt(3) == 0 ? 0 : flt(f.a(), r, t - eb, r.nextBoolean());
                    }
                }
                for (int q = 0; q < f.k(); q++) for (int n = 0; n < f.n(); n++) b[q][n] = flt(f.b(), r, r.nextInt(3), r.nextBoolean());
                for (int i = 0; i < f.m(); i++) {
                    for (int n = 0; n < f.n(); n++) {
                        long v = flt(f.c(), r, cMax - r.nextInt(2), r.nextBoolean());
                        if (r.nextBoolean()) v |= f.c() == Fmt.F16 ? 0x3ff : 0x7fffff; // the largest finite value
                        c[i][n] = v;
                    }
                }
            }
            case SPARSE -> {
                // one to three non-zero products per row of A at magnitudes far below C (or C zero):
                // where the bits of a small addend fall off the accumulator, and how the sum is rounded
                int mx = maxExp(f.a());
                for (int i = 0; i < f.m(); i++) {
                    java.util.Arrays.fill(a[i], 0);
                    int cnt = 1 + r.nextInt(3);
                    for (int q = 0; q < cnt; q++) {
                        int e = -r.nextInt(Math.min(mx + 10, f.a() == Fmt.F16 ? 24 : 40));
                        a[i][r.nextInt(f.k())] = flt(f.a(), r, e, r.nextBoolean());
                    }
                    for (int n = 0; n < f.n(); n++) {
                        int w = r.nextInt(6);
                        c[i][n] = w == 0 ? 0 : flt(f.c(), r, r.nextInt(5) - 2, r.nextBoolean());
                        if (w == 1) c[i][n] &= ~((1L << (f.c().mant / 2)) - 1); // a short mantissa
                    }
                }
                for (int k = 0; k < f.k(); k++) for (int n = 0; n < f.n(); n++) b[k][n] = flt(f.b(), r, r.nextInt(3) - 1, r.nextBoolean());
            }
            default -> {}
        }
        return new Mats(a, b, c);
    }

    private static long signBit(Fmt f) {
        return f == Fmt.TF32 || f == Fmt.F32 ? 0x80000000L : 0x8000L;
    }

    private static long lowBits(Fmt f, SplittableRandom r) {
        long m = 1 + r.nextInt(7);
        return f == Fmt.TF32 ? m << 13 : m;
    }

    /**
     * The inputs of a form: {@link Conformance#N} × {@link Conformance#IN_BYTES} bytes, little endian, laid out
     * as the class comment says; a pure function of the seed and the name.
     */
    public static byte[] inputs(Form f) {
        SplittableRandom r = new SplittableRandom(Conformance.SEED ^ (long) f.name().hashCode() * 0x9E3779B97F4A7C15L);
        ByteBuffer bb = ByteBuffer.allocate(Conformance.N * Conformance.IN_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (int wi = 0; wi < WARPS.length; wi++) {
            int base = WARPS[wi] * 1024;
            Dist d = f.dists()[wi];
            switch (f.kind()) {
                case MMA -> {
                    Mats mt = mats(f, d, r);
                    int na = regs(f, 'a'), nb = regs(f, 'b');
                    pack(bb, base, 0, f, 'a', f.a(), mt.a(), false);
                    pack(bb, base, na, f, 'b', f.b(), mt.b(), false);
                    pack(bb, base, na + nb, f, 'c', f.c(), mt.c(), false);
                }
                case MOVMATRIX -> {
                    for (int j = 0; j < 256; j++) bb.putInt(base + 4 * j, r.nextInt());
                }
                case LDMATRIX, STMATRIX -> {
                    for (int j = 0; j < 256; j++) bb.putInt(base + 4 * j, r.nextInt());
                    // row addresses: ldmatrix may repeat rows; stmatrix rows must be distinct
                    int[] perm = new int[64];
                    for (int i = 0; i < 64; i++) perm[i] = i;
                    for (int i = 63; i > 0; i--) {
                        int j = r.nextInt(i + 1), t = perm[i];
                        perm[i] = perm[j];
                        perm[j] = t;
                    }
                    for (int l = 0; l < 32; l++) {
                        int row = f.kind() == Kind.STMATRIX ? perm[l] : r.nextInt(4) == 0 ? r.nextInt(64) : perm[l];
                        bb.putInt(base + 1024 + 4 * l, row | (r.nextInt(1 << 20) << 6));
                    }
                }
                case WMMA -> {
                    Mats mt = mats(f, d, r);
                    // A (16x16 at +0, ld 16), B (at +512, ld 16), C (at +1024, ld strideC), in the layouts the form names
                    int es = f.a().bits / 8;
                    for (int i = 0; i < 16; i++) {
                        for (int j = 0; j < 16; j++) {
                            int ia = f.lay()[0].equals("row") ? i * 16 + j : j * 16 + i;
                            bb.putShort(base + ia * es, (short) mt.a()[i][j]);
                            int ib = f.lay()[1].equals("row") ? i * 16 + j : j * 16 + i;
                            bb.putShort(base + 512 + ib * es, (short) mt.b()[i][j]);
                            int ldc = strideC(f);
                            int ic = f.lay()[2].equals("row") ? i * ldc + j : j * ldc + i;
                            if (f.c() == Fmt.F32) bb.putInt(base + 1024 + ic * 4, (int) mt.c()[i][j]);
                            else bb.putShort(base + 1024 + ic * 2, (short) mt.c()[i][j]);
                        }
                    }
                }
            }
        }
        return bb.array();
    }

    /** Packs a logical matrix into the registers of operand {@code which}, starting at register {@code reg0}. */
    private static void pack(ByteBuffer bb, int base, int reg0, Form f, char which, Fmt t, long[][] mat, boolean unused) {
        int n = which == 'a' ? regs(f, 'a') : which == 'b' ? regs(f, 'b') : regs(f, 'c');
        int per = 32 / t.bits;
        for (int lane = 0; lane < 32; lane++) {
            for (int j = 0; j < n; j++) {
                long w = 0;
                for (int e = 0; e < per; e++) {
                    int[] rc = mmaCoord(f, which, lane, j * per + e);
                    w |= (mat[rc[0]][rc[1]] & ((1L << t.bits) - 1)) << (t.bits * e);
                }
                bb.putInt(base + 128 * (reg0 + j) + 4 * lane, (int) w);
            }
        }
    }

    /** CRC-32 of {@link #inputs}. */
    public static long inputCrc(Form f) {
        CRC32 c = new CRC32();
        c.update(inputs(f));
        return c.getValue();
    }
}
