package dev.zluda.runtime.emulator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * One instruction at a time, with the values the PTX ISA 9.0 defines (section numbers in each test):
 * integer wrap-around and saturation, shifts by the width or more, IEEE rounding in all four modes,
 * flush-to-zero, NaN handling of min/max and comparisons, conversions with saturation.
 */
class InstructionSemanticsTest {
    @RegisterExtension
    static final PtxRun run = new PtxRun();

    // ------------------------------------------------------------------ helpers

    /**
     * {@code ins d, a[, b[, c]]} on registers {@code %<reg>1, 2, 4} loaded as {@code type} from the 8-byte input slots,
     * the result {@code %<reg>3} stored as {@code type}; returns that slot.
     */
    static long op(String type, String reg, String ins, long... inputs) throws Exception {
        String[] srcs = {"%" + reg + "1", "%" + reg + "2", "%" + reg + "4"};
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < inputs.length; i++) {
            sb.append(i == 0 ? "" : "; ").append("ld.global.").append(type).append(' ').append(srcs[i]).append(", [%rd30").append(i == 0 ? "" : "+" + 8 * i).append(']');
        }
        sb.append(";\n").append(ins).append(" %").append(reg).append('3');
        for (int i = 0; i < inputs.length; i++) sb.append(", ").append(srcs[i]);
        sb.append(";\nst.global.").append(type).append(" [%rd31], %").append(reg).append("3;");
        return run.exec(sb.toString(), inputs)[0];
    }

    /** {@code ins %r3, %r1[, %r2[, %r4]]} on 32-bit inputs; the 32-bit result, zero-extended. */
    static long r32(String ins, long... inputs) throws Exception {
        return op("b32", "r", ins, inputs);
    }

    /** {@code ins %rd3, %rd1, %rd2} on 64-bit inputs. */
    static long r64(String ins, long... inputs) throws Exception {
        return op("b64", "rd", ins, inputs);
    }

    static long f32(float x) {
        return Float.floatToRawIntBits(x) & 0xFFFF_FFFFL;
    }

    static long f64(double x) {
        return Double.doubleToRawLongBits(x);
    }

    static long hex(String h) {
        return Long.parseUnsignedLong(h, 16);
    }

    /** {@code ins %f3, %f1[, %f2[, %f4]]} (f32 operands as bits). */
    static long fop(String ins, long... inputs) throws Exception {
        return op("f32", "f", ins, inputs);
    }

    /** {@code ins %fd3, %fd1, %fd2[, %fd4]} (f64 operands as bits). */
    static long dop(String ins, long... inputs) throws Exception {
        return op("f64", "fd", ins, inputs);
    }

    /** A predicate computed by {@code ins %p1, a, b} on 32-bit inputs: 1 or 0. */
    static long pred32(String ins, long a, long b) throws Exception {
        return run.exec("ld.global.b32 %r1, [%rd30]; ld.global.b32 %r2, [%rd30+8];\n" + ins + " %p1, %r1, %r2;\nselp.u32 %r3, 1, 0, %p1;\nst.global.b32 [%rd31], %r3;", a, b)[0];
    }

    static long predF(String ins, long a, long b) throws Exception {
        return run.exec("ld.global.f32 %f1, [%rd30]; ld.global.f32 %f2, [%rd30+8];\n" + ins + " %p1, %f1, %f2;\nselp.u32 %r3, 1, 0, %p1;\nst.global.b32 [%rd31], %r3;", a, b)[0];
    }

    /** {@code cvt...} from a 32-bit source into a 64-bit slot (the register as stored). */
    static long cvt(String ins, String srcReg, String dstReg, long a) throws Exception {
        String ld = srcReg.startsWith("%fd") || srcReg.startsWith("%rd") ? "b64" : srcReg.startsWith("%h") ? "b16" : "b32";
        String st = dstReg.startsWith("%fd") || dstReg.startsWith("%rd") ? "b64" : dstReg.startsWith("%h") ? "b16" : "b32";
        return run.exec("ld.global." + ld + " " + srcReg + ", [%rd30];\n" + ins + " " + dstReg + ", " + srcReg + ";\nst.global." + st
                + " [%rd31], " + dstReg + ";", a)[0];
    }

    static final long NAN = f32(Float.NaN), CANONICAL_NAN = 0x7FFF_FFFFL;

    // ------------------------------------------------------------------ integer (9.7.1)

    @Test
    void integerAdditionWrapsAndSaturates() throws Exception {
        assertEquals(0x8000_0000L, r32("add.s32", 0x7FFF_FFFFL, 1));
        assertEquals(0, r32("add.u32", 0xFFFF_FFFFL, 1));
        assertEquals(0xFFFF_FFFFL, r32("sub.u32", 0, 1));
        assertEquals(0x7FFF_FFFFL, r32("add.sat.s32", 0x7FFF_FFFFL, 1), "add.sat.s32 clamps to MAXINT");
        assertEquals(0x8000_0000L, r32("sub.sat.s32", 0x8000_0000L, 1), "sub.sat.s32 clamps to MININT");
        assertEquals(0L, r64("add.u64", -1L, 1));
        assertEquals(0x0000_0000L, r32("add.u16x2", 0x0000_FFFFL, 0x0000_0001L), "no carry into the upper half");
        assertEquals(0x0003_0000L, r32("add.u16x2", 0x0001_FFFFL, 0x0002_0001L), "halves wrap independently");
        assertEquals(0x0000_7FFFL, r32("max.relu.s32", 0x7FFFL, 0x10L));
        assertEquals(0L, r32("max.relu.s32", -5 & 0xFFFF_FFFFL, -3 & 0xFFFF_FFFFL), ".relu clamps negative results to 0");
    }

    @Test
    void multiplicationHalvesAndWidening() throws Exception {
        assertEquals(0xFFFF_FFFEL, r32("mul.hi.u32", 0xFFFF_FFFFL, 0xFFFF_FFFFL));
        assertEquals(0L, r32("mul.hi.s32", 0xFFFF_FFFFL, 0xFFFF_FFFFL), "-1 * -1 = 1: high word 0");
        assertEquals(6L, r32("mul.lo.s32", 0xFFFF_FFFEL, 0xFFFF_FFFDL));
        long wide = run.exec("ld.global.b32 %r1, [%rd30]; ld.global.b32 %r2, [%rd30+8]; mul.wide.s32 %rd3, %r1, %r2; st.global.b64 [%rd31], %rd3;"
                + "mul.wide.u32 %rd4, %r1, %r2; st.global.b64 [%rd31+8], %rd4;", 0xFFFF_FFFEL, 3)[0];
        assertEquals(-6L, wide);
        assertEquals(0x2_FFFF_FFFAL, run.exec("ld.global.b32 %r1, [%rd30]; ld.global.b32 %r2, [%rd30+8]; mul.wide.u32 %rd4, %r1, %r2; st.global.b64 [%rd31], %rd4;",
                0xFFFF_FFFEL, 3)[0]);
        assertEquals(-1L, r64("mul.hi.s64", Long.MIN_VALUE, 2), "(-2^63 * 2) >> 64 = -1");
        assertEquals(1L, r64("mul.hi.u64", Long.MIN_VALUE, 2));
        assertEquals(7L + 2 * 3, r32("mad.lo.s32", 2, 3, 7));
        assertEquals((0xFFFF_FFFEL + 5) & 0xFFFF_FFFFL, r32("mad.hi.u32", 0xFFFF_FFFFL, 0xFFFF_FFFFL, 5));
        assertEquals(0x7FFF_FFFFL, r32("mad.hi.sat.s32", 0x7FFF_FFFFL, 0x7FFF_FFFFL, 0x7FFF_FFFFL), "mad.hi.sat.s32 saturates");
        // mul24: 24-bit operands; .hi gives bits 47..16 of the 48-bit product
        assertEquals(0xFFFF_FE00_0001L & 0xFFFF_FFFFL, r32("mul24.lo.u32", 0xFFFFFFL, 0xFFFFFFL));
        assertEquals((0xFFFFFFL * 0xFFFFFFL >>> 16) & 0xFFFF_FFFFL, r32("mul24.hi.u32", 0xFF_FFFFL, 0xFF_FFFFL));
        assertEquals(1L, r32("mul24.lo.s32", 0xFFFFFFL, 0xFFFFFFL), "as s32 the 24-bit operands are -1");
        assertEquals(10 + 4L, r32("sad.s32", 0xFFFF_FFFEL, 2, 10), "|(-2) - 2| + 10");
        assertEquals((10 + 0xFFFF_FFFCL) & 0xFFFF_FFFFL, r32("sad.u32", 0xFFFF_FFFEL, 2, 10), "unsigned |a - b| wraps when c is added");
    }

    @Test
    void divisionAndRemainder() throws Exception {
        assertEquals(-3L & 0xFFFF_FFFFL, r32("div.s32", -7 & 0xFFFF_FFFFL, 2), "truncates toward zero");
        assertEquals(-1L & 0xFFFF_FFFFL, r32("rem.s32", -7 & 0xFFFF_FFFFL, 2), "remainder has the dividend's sign");
        assertEquals(0x7FFF_FFFFL, r32("div.u32", 0xFFFF_FFFEL, 2));
        assertEquals(0x8000_0000L, r32("div.s32", 0x8000_0000L, 0xFFFF_FFFFL), "MININT / -1 wraps");
        // division by zero is unspecified by the ISA; an H200 gives all ones for div and rem (ConformanceTest data)
        assertEquals(0xFFFF_FFFFL, r32("div.u32", 5, 0));
        assertEquals(0xFFFF_FFFFL, r32("rem.u32", 5, 0));
        assertEquals(Long.divideUnsigned(-1L, 3), r64("div.u64", -1L, 3));
        assertEquals(Long.remainderUnsigned(-1L, 10), r64("rem.u64", -1L, 10));
    }

    @Test
    void shiftsClampAmountsAtTheWidth() throws Exception {
        // PTX ISA 9.7.8.7/8: shift amounts greater than the register width N are clamped to N
        assertEquals(0L, r32("shl.b32", 1, 32));
        assertEquals(0L, r32("shl.b32", 1, 40));
        assertEquals(0x8000_0000L, r32("shl.b32", 1, 31));
        assertEquals(0L, r32("shr.u32", 0x8000_0000L, 32));
        assertEquals(0xFFFF_FFFFL, r32("shr.s32", 0x8000_0000L, 40), "arithmetic shift by >= 32 fills with the sign");
        assertEquals(-4L & 0xFFFF_FFFFL, r32("shr.s32", -8 & 0xFFFF_FFFFL, 1));
        assertEquals(0x7FFF_FFFFL, r32("shr.u32", 0xFFFF_FFFFL, 1));
        assertEquals(0L, r32("shr.b32", 0xFFFF_FFFFL, 0xFFFF_FFFFL), "the amount is unsigned: 2^32-1 >= 32");
        assertEquals(Long.MIN_VALUE, run.exec("ld.global.b64 %rd1, [%rd30]; ld.global.b32 %r2, [%rd30+8]; shl.b64 %rd3, %rd1, %r2; st.global.b64 [%rd31], %rd3;", 1, 63)[0]);
        assertEquals(0L, run.exec("ld.global.b64 %rd1, [%rd30]; ld.global.b32 %r2, [%rd30+8]; shr.u64 %rd3, %rd1, %r2; st.global.b64 [%rd31], %rd3;", -1L, 64)[0]);
        assertEquals(-1L, run.exec("ld.global.b64 %rd1, [%rd30]; ld.global.b32 %r2, [%rd30+8]; shr.s64 %rd3, %rd1, %r2; st.global.b64 [%rd31], %rd3;", -2L, 100)[0]);
        // shf (9.7.8.6): funnel shift of {b, a}
        assertEquals(0xBCDE_F012L, r32("shf.l.wrap.b32", 0x1234_5678L, 0x9ABC_DEF0L, 8));
        assertEquals(0xF012_3456L, r32("shf.r.wrap.b32", 0x1234_5678L, 0x9ABC_DEF0L, 8));
        assertEquals(0xF012_3456L, r32("shf.r.wrap.b32", 0x1234_5678L, 0x9ABC_DEF0L, 40), ".wrap uses the amount mod 32");
        assertEquals(0x9ABC_DEF0L, r32("shf.r.clamp.b32", 0x1234_5678L, 0x9ABC_DEF0L, 40), ".clamp: n = 32 gives b");
        assertEquals(0x1234_5678L, r32("shf.l.clamp.b32", 0x1234_5678L, 0x9ABC_DEF0L, 33), ".clamp: n = 32 gives a");
    }

    @Test
    void minMaxAbsNeg() throws Exception {
        assertEquals(0xFFFF_FFFFL, r32("min.s32", 0xFFFF_FFFFL, 1));
        assertEquals(1L, r32("min.u32", 0xFFFF_FFFFL, 1));
        assertEquals(0xFFFF_FFFFL, r32("max.u32", 0xFFFF_FFFFL, 1));
        assertEquals(-1L, r64("min.s64", -1L, 1));
        assertEquals(-1L, r64("max.u64", -1L, 1));
        assertEquals(0x8000_0000L, r32("abs.s32", 0x8000_0000L), "abs(MININT) = MININT");
        assertEquals(5L, r32("abs.s32", -5 & 0xFFFF_FFFFL));
        assertEquals(0xFFFF_FFFBL, r32("neg.s32", 5));
    }

    @Test
    void bitManipulation() throws Exception {
        assertEquals(8L, r32("popc.b32", 0xF0F0));
        assertEquals(32L, r32("clz.b32", 0));
        assertEquals(31L, r32("clz.b32", 1));
        assertEquals(0x8000_0000L, r32("brev.b32", 1));
        assertEquals(0xFFFF_FFFFL, r32("bfind.u32", 0), "no bit set: 0xffffffff");
        assertEquals(4L, r32("bfind.u32", 0x10));
        assertEquals(27L, r32("bfind.shiftamt.u32", 0x10));
        assertEquals(0xFFFF_FFFFL, r32("bfind.s32", 0xFFFF_FFFFL), "-1: no non-sign bit");
        assertEquals(15L, r32("bfind.s32", 0xFFFF_0000L), "negative: the highest bit that differs from the sign");
        assertEquals(64L, run.exec("ld.global.b64 %rd1, [%rd30]; popc.b64 %r3, %rd1; st.global.b32 [%rd31], %r3;", -1L)[0]);
        assertEquals(63L, run.exec("ld.global.b64 %rd1, [%rd30]; clz.b64 %r3, %rd1; st.global.b32 [%rd31], %r3;", 1)[0]);
        // bfe (9.7.1.18)
        assertEquals(0x12L, r32("bfe.u32", 0xABCD_1234L, 8, 8));
        assertEquals(0xFFFF_FFFFL, r32("bfe.s32", 0x0000_F000L, 12, 4), "signed extract replicates bit pos+len-1");
        assertEquals(0L, r32("bfe.s32", 0xFFFF_FFFFL, 3, 0), "len 0 gives 0");
        assertEquals(0xFFFF_FFFFL, r32("bfe.s32", 0x8000_0000L, 40, 8), "pos past the msb: the sign bit a[31] everywhere");
        assertEquals(0x000F_FFFFL, r32("bfe.u32", 0xFFFF_FFFFL, 12, 200), "len clipped at the msb, zero-filled");
        // bfi (9.7.1.19): bfi.b32 f, a, b, c(pos), d(len)
        assertEquals(0xF0L, run.exec("ld.global.b32 %r1, [%rd30]; bfi.b32 %r3, %r1, 0, 4, 4; st.global.b32 [%rd31], %r3;", 0xFF)[0]);
        assertEquals(0x3FFF_FFFFL, run.exec("ld.global.b32 %r1, [%rd30]; bfi.b32 %r3, %r1, -1, 30, 8; st.global.b32 [%rd31], %r3;", 0)[0],
                "insertion stops at the msb: only bits 30 and 31 are replaced");
        // prmt (9.7.9.7)
        assertEquals(0x3322_1100L, r32("prmt.b32", 0x3322_1100L, 0x7766_5544L, 0x3210));
        assertEquals(0x7766_5544L, r32("prmt.b32", 0x3322_1100L, 0x7766_5544L, 0x7654));
        assertEquals(0x0011_2233L, r32("prmt.b32", 0x3322_1100L, 0x7766_5544L, 0x0123));
        assertEquals(0xFF00_0000L, r32("prmt.b32", 0x0000_0080L, 0, 0x8444), "msb of a selector replicates the byte's sign");
        assertEquals(0x4433_2211L, r32("prmt.b32.f4e", 0x3322_1100L, 0x7766_5544L, 1));
        assertEquals(0x1111_1111L, r32("prmt.b32.rc8", 0x3322_1100L, 0x7766_5544L, 1));
        assertEquals(0x1100_1100L, r32("prmt.b32.rc16", 0x3322_1100L, 0x7766_5544L, 0));
        assertEquals(0x3322_1111L, r32("prmt.b32.ecl", 0x3322_1100L, 0x7766_5544L, 1));
        assertEquals(0x1111_1100L, r32("prmt.b32.ecr", 0x3322_1100L, 0x7766_5544L, 1));
        assertEquals(0x0011_2233L, r32("prmt.b32.b4e", 0x3322_1100L, 0x7766_5544L, 3), "b4e, c=3: d.b3..b0 = bytes 0 1 2 3");
        assertEquals(0x5566_7700L, r32("prmt.b32.b4e", 0x3322_1100L, 0x7766_5544L, 0), "b4e, c=0: d.b3..b0 = bytes 5 6 7 0");
        // lop3 (9.7.8.6): immLut 0x96 is a ^ b ^ c, 0xE8 the majority
        assertEquals(0x1234L ^ 0x0F0FL ^ 0xFF00L, run.exec("ld.global.b32 %r1, [%rd30]; ld.global.b32 %r2, [%rd30+8]; ld.global.b32 %r4, [%rd30+16];"
                + "lop3.b32 %r3, %r1, %r2, %r4, 0x96; st.global.b32 [%rd31], %r3;", 0x1234, 0x0F0F, 0xFF00)[0]);
        assertEquals((0xC & 0xA) | (0xC & 0x6) | (0xA & 0x6), run.exec("ld.global.b32 %r1, [%rd30]; ld.global.b32 %r2, [%rd30+8]; ld.global.b32 %r4, [%rd30+16];"
                + "lop3.b32 %r3, %r1, %r2, %r4, 0xE8; st.global.b32 [%rd31], %r3;", 0xC, 0xA, 0x6)[0]);
        // lop3 with a predicate result (9.7.8.6): p = (d != 0) BoolOp q
        String lop3p = "ld.global.b32 %r1, [%rd30]; ld.global.b32 %r2, [%rd30+8]; ld.global.b32 %r4, [%rd30+16]; ld.global.b32 %r5, [%rd30+24];"
                + "setp.ne.u32 %p2, %r5, 0;"
                + "lop3.BOOLOP.b32 %r3|%p1, %r1, %r2, %r4, 0x80, %p2;"   // 0x80: a & b & c
                + "selp.u32 %r6, 1, 0, %p1; st.global.b32 [%rd31], %r3; st.global.b32 [%rd31+8], %r6;";
        long[] r = run.exec(lop3p.replace("BOOLOP", "or"), 0xF0, 0x3C, 0xFF, 0);
        assertEquals(0x30L, r[0], "a & b & c");
        assertEquals(1L, r[1], "or: d != 0");
        r = run.exec(lop3p.replace("BOOLOP", "or"), 0xF0, 0x0F, 0xFF, 0);
        assertEquals(0L, r[0]);
        assertEquals(0L, r[1], "or: d == 0 and q false");
        r = run.exec(lop3p.replace("BOOLOP", "or"), 0xF0, 0x0F, 0xFF, 7);
        assertEquals(1L, r[1], "or: q true");
        r = run.exec(lop3p.replace("BOOLOP", "and"), 0xF0, 0x3C, 0xFF, 0);
        assertEquals(0L, r[1], "and: q false");
        r = run.exec(lop3p.replace("BOOLOP", "and"), 0xF0, 0x3C, 0xFF, 1);
        assertEquals(1L, r[1], "and: d != 0 and q true");
        r = run.exec(lop3p.replace("BOOLOP", "and").replace("%r3|%p1", "_|%p1"), 0xF0, 0x3C, 0xFF, 1);
        assertEquals(1L, r[1], "and, d discarded");
        // ld/st .v8 (9.7.9.8/.9, 256-bit accesses) need sm_100: an H200 cannot run them, so they are not among the
        // forms checked against an NVIDIA GPU and the emulator refuses them at load, naming the instruction and line
        PtxLoadException v8 = org.junit.jupiter.api.Assertions.assertThrows(PtxLoadException.class, () -> run.exec(
                "ld.global.v8.b32 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd30];"
                + "st.global.v8.b32 [%rd31], {%r8, %r7, %r6, %r5, %r4, %r3, %r2, %r1};"));
        assertEquals(Errors.NOT_SUPPORTED, v8.error());
        org.junit.jupiter.api.Assertions.assertTrue(v8.log().contains("instruction 'ld.global.v8.b32' is not supported by the emulator"), v8.log());
        // set on half precision (9.7.4.x): per element, 1.0 of a half dtype or all ones of the integer element
        String setH = "ld.global.b32 %r1, [%rd30]; ld.global.b32 %r2, [%rd30+8]; FORM %r3, %r1, %r2; st.global.b32 [%rd31], %r3;";
        long one2 = 0x4000_3C00L, two1 = 0x3C00_4000L;   // {lo 1.0, hi 2.0} and {lo 2.0, hi 1.0} in f16
        assertEquals(0x0000_FFFFL, run.exec(setH.replace("FORM", "set.lt.u32.f16x2"), one2, two1)[0], "lo 1<2 true, hi 2<1 false");
        assertEquals(0x0000_3C00L, run.exec(setH.replace("FORM", "set.lt.f16x2.f16x2"), one2, two1)[0]);
        assertEquals(0x3C00_0000L, run.exec(setH.replace("FORM", "set.gt.f16x2.f16x2"), one2, two1)[0]);
        assertEquals(0xFFFF_FFFFL, run.exec(setH.replace("FORM", "set.ne.s32.f16x2"), one2, two1)[0]);
        long nanLo = 0x3C00_7E00L;                          // {lo NaN, hi 1.0}
        assertEquals(0xFFFF_0000L, run.exec(setH.replace("FORM", "set.eq.u32.f16x2"), nanLo, 0x3C00_3C00L)[0], "NaN == x is false");
        assertEquals(0xFFFF_FFFFL, run.exec(setH.replace("FORM", "set.equ.u32.f16x2"), nanLo, 0x3C00_3C00L)[0], "unordered or equal");
        assertEquals(0x0000_FFFFL, run.exec(setH.replace("FORM", "set.nan.u32.f16x2"), nanLo, 0x3C00_3C00L)[0]);
        long bOne2 = 0x4000_3F80L, bTwo1 = 0x3F80_4000L;  // the same in bf16
        assertEquals(0x0000_3F80L, run.exec(setH.replace("FORM", "set.lt.bf16x2.bf16x2"), bOne2, bTwo1)[0]);
        assertEquals(0xFFFF_0000L, run.exec(setH.replace("FORM", "set.ge.u32.bf16x2"), bOne2, bTwo1)[0]);
        assertEquals(0xFFFF_FFFFL, run.exec(setH.replace("FORM", "set.le.u32.f16"), 0x3C00, 0x4000)[0], "scalar f16 source, u32 dtype");
        assertEquals(0x3C00L, run.exec("ld.global.b32 %r1, [%rd30]; ld.global.b32 %r2, [%rd30+8]; mov.b32 {%h1, %h2}, %r1; mov.b32 {%h3, %h4}, %r2;"
                + "setp.ne.u32 %p1, %r1, 0; set.lt.and.f16.f16 %h5, %h1, %h3, %p1; cvt.u32.u16 %r3, %h5; st.global.b32 [%rd31], %r3;", 0x3C00, 0x4000)[0],
                "f16 dtype, .and with a true predicate");
        // atom.cas.b16 (9.7.13.5): the upper half-word of a 32-bit word, swapped only when it equals b
        String cas16 = "ld.global.b32 %r1, [%rd30]; st.global.b32 [%rd31], %r1; ld.global.b16 %h1, [%rd30+8]; mov.b16 %h2, 0x5555;"
                + "atom.global.cas.b16 %h3, [%rd31+2], %h1, %h2; cvt.u32.u16 %r2, %h3; st.global.b32 [%rd31+8], %r2;";
        r = run.exec(cas16, 0xAAAA_1234L, 0xAAAA);
        assertEquals(0x5555_1234L, r[0], "equal: swapped, the low half-word untouched");
        assertEquals(0xAAAAL, r[1], "the old value");
        r = run.exec(cas16, 0xAAAA_1234L, 0xAAAB);
        assertEquals(0xAAAA_1234L, r[0], "not equal: unchanged");
        assertEquals(0xAAAAL, r[1]);
        // dp4a (9.7.1.23)
        assertEquals((long) (-1 * 2 + 2 * 3 + 3 * 4 + 4 * 5) + 100, r32("dp4a.s32.s32", 0x0403_02FFL, 0x0504_0302L, 100));
        assertEquals(0x10L, r32("bmsk.clamp.b32", 4, 1), "bmsk: one bit at position 4");
        assertEquals(0xFFFF_FFF8L, r32("szext.wrap.s32", 0x18, 4), "szext: sign-extend the low 4 bits (1000b)");
        assertEquals(0x8L, r32("szext.wrap.u32", 0x18, 4));
        assertEquals(3L, r32("fns.b32", 0b1011_1010, 0, 2), "fns: the 2nd set bit from 0 is bit 3");
    }

    @Test
    void extendedPrecisionCarry() throws Exception {
        // add.cc / addc (9.7.2): a 64-bit addition from 32-bit halves
        long[] r = run.exec("""
                ld.global.b32 %r1, [%rd30]; ld.global.b32 %r2, [%rd30+8];
                add.cc.u32 %r3, %r1, %r1;
                addc.cc.u32 %r4, %r2, %r2;
                addc.u32 %r5, 0, 0;
                st.global.b32 [%rd31], %r3; st.global.b32 [%rd31+8], %r4; st.global.b32 [%rd31+16], %r5;
                sub.cc.u32 %r6, 0, 1;
                subc.u32 %r7, 5, 0;
                st.global.b32 [%rd31+24], %r6; st.global.b32 [%rd31+32], %r7;
                """, 0x8000_0001L, 0xFFFF_FFFFL);
        assertEquals(2L, r[0]);
        assertEquals(0xFFFF_FFFFL, r[1], "0xffffffff * 2 + carry-in 1 = 0x1ffffffff");
        assertEquals(1L, r[2], "the last carry out");
        assertEquals(0xFFFF_FFFFL, r[3]);
        assertEquals(4L, r[4], "subc subtracts the borrow of 0 - 1");
    }

    // ------------------------------------------------------------------ floating point (9.7.3, 6.5 rounding)

    @Test
    void singlePrecisionRoundingModes() throws Exception {
        long one = f32(1f), tiny = f32(0x1p-30f);
        assertEquals(one, fop("add.rn.f32", one, tiny));
        assertEquals(one, fop("add.rz.f32", one, tiny));
        assertEquals(one, fop("add.rm.f32", one, tiny));
        assertEquals(f32(Math.nextUp(1f)), fop("add.rp.f32", one, tiny));
        assertEquals(f32(-Math.nextUp(1f)), fop("add.rm.f32", f32(-1f), f32(-0x1p-30f)));
        assertEquals(f32(-1f), fop("add.rz.f32", f32(-1f), f32(-0x1p-30f)));
        assertEquals(f32(Math.nextDown(1f)), fop("sub.rm.f32", one, tiny));
        assertEquals(one, fop("add.rn.f32", one, f32(0x1p-24f)), "a tie rounds to even");
        assertEquals(f32(1f + 0x1p-22f), fop("add.rn.f32", f32(1f + 0x1p-23f), f32(0x1p-24f)), "a tie rounds to even (up)");
        assertEquals(0x8000_0000L, fop("sub.rm.f32", one, one), "x - x is -0 when rounding down");
        assertEquals(0L, fop("sub.rn.f32", one, one));
        long a = f32(1f + 0x1p-23f);
        assertEquals(0x3F80_0002L, fop("mul.rn.f32", a, a));
        assertEquals(0x3F80_0002L, fop("mul.rz.f32", a, a));
        assertEquals(0x3F80_0003L, fop("mul.rp.f32", a, a));
        assertEquals(0x3EAA_AAABL, fop("div.rn.f32", one, f32(3f)));
        assertEquals(0x3EAA_AAAAL, fop("div.rz.f32", one, f32(3f)));
        assertEquals(0x3EAA_AAAAL, fop("div.rm.f32", one, f32(3f)));
        assertEquals(0x3EAA_AAABL, fop("div.rp.f32", one, f32(3f)));
        assertEquals(0x3FB5_04F3L, fop("sqrt.rn.f32", f32(2f)));
        assertEquals(0x3FB5_04F3L, fop("sqrt.rz.f32", f32(2f)));
        assertEquals(0x3FB5_04F4L, fop("sqrt.rp.f32", f32(2f)));
        assertEquals(0x3EAA_AAABL, fop("rcp.rn.f32", f32(3f)));
        assertEquals(0x3EAA_AAAAL, fop("rcp.rz.f32", f32(3f)));
        assertEquals(f32(Float.MAX_VALUE), fop("mul.rz.f32", f32(Float.MAX_VALUE), f32(2f)), "overflow toward zero stays finite");
        assertEquals(f32(Float.POSITIVE_INFINITY), fop("mul.rn.f32", f32(Float.MAX_VALUE), f32(2f)));
    }

    @Test
    void fusedMultiplyAddRoundsOnce() throws Exception {
        long a = f32(1f + 0x1p-12f), c = f32(-(1f + 0x1p-11f));
        // exact a*a + c = 2^-24; rounding a*a first would give 0
        assertEquals(f32(0x1p-24f), fop("fma.rn.f32", a, a, c));
        assertEquals(f32(0x1p-24f), fop("mad.rn.f32", a, a, c));
        assertEquals(0L, run.exec("ld.global.f32 %f1, [%rd30]; ld.global.f32 %f2, [%rd30+8]; mul.rn.f32 %f3, %f1, %f1; add.rn.f32 %f3, %f3, %f2;"
                + "st.global.f32 [%rd31], %f3;", a, c)[0]);
        assertEquals(f32(Math.nextUp(1f)), fop("fma.rp.f32", f32(1f), f32(1f), f32(0x1p-40f)));
        assertEquals(f32(1f), fop("fma.rz.f32", f32(1f), f32(1f), f32(0x1p-40f)));
    }

    @Test
    void flushToZeroSaturationAndNaN() throws Exception {
        long sub = 1; // the smallest subnormal
        assertEquals(0L, fop("add.ftz.f32", sub, 0));
        assertEquals(1L, fop("add.f32", sub, 0), "without .ftz subnormals are kept");
        assertEquals(0x0008_0000L, fop("mul.rn.f32", f32(0x1p-100f), f32(0x1p-30f)), "2^-130 is subnormal");
        assertEquals(0L, fop("mul.rn.ftz.f32", f32(0x1p-100f), f32(0x1p-30f)), ".ftz flushes subnormal results");
        assertEquals(0x8000_0000L, fop("mul.rn.ftz.f32", f32(-0x1p-100f), f32(0x1p-30f)), "... to a zero of the same sign");
        assertEquals(f32(1f), fop("add.sat.f32", f32(0.75f), f32(0.5f)));
        assertEquals(0L, fop("add.sat.f32", f32(-1f), f32(0.5f)));
        assertEquals(0L, fop("add.sat.f32", NAN, f32(1f)), ".sat turns NaN into 0");
        assertEquals(CANONICAL_NAN, fop("add.f32", f32(Float.POSITIVE_INFINITY), f32(Float.NEGATIVE_INFINITY)), "invalid: canonical NaN");
        assertEquals(CANONICAL_NAN, fop("mul.rn.f32", 0, f32(Float.POSITIVE_INFINITY)));
        assertEquals(CANONICAL_NAN, fop("add.f32", 0x7FC0_1234L, f32(1f)), "NaN payloads are not propagated");
    }

    @Test
    void minMaxWithNaNAndSignedZero() throws Exception {
        long one = f32(1f);
        assertEquals(one, fop("min.f32", NAN, one), "a NaN operand is ignored");
        assertEquals(one, fop("max.f32", one, NAN));
        assertEquals(CANONICAL_NAN, fop("min.f32", NAN, NAN), "both NaN: canonical NaN");
        assertEquals(CANONICAL_NAN, fop("min.NaN.f32", NAN, one), ".NaN propagates");
        assertEquals(CANONICAL_NAN, fop("max.NaN.f32", one, NAN));
        assertEquals(0x8000_0000L, fop("min.f32", 0, 0x8000_0000L), "-0 < +0");
        assertEquals(0L, fop("max.f32", 0x8000_0000L, 0));
        assertEquals(f32(-2f), fop("min.f32", f32(-2f), f32(3f)));
        assertEquals(0L, fop("abs.f32", 0x8000_0000L));
        assertEquals(0x8000_0000L, fop("neg.f32", 0));
        assertEquals(f32(-2f), fop("copysign.f32", f32(-1f), f32(2f)), "copysign takes the sign of a, the magnitude of b");
        assertEquals(f64(1.0), dop("min.f64", f64(Double.NaN), f64(1.0)));
    }

    @Test
    void doublePrecision() throws Exception {
        long one = f64(1.0);
        assertEquals(one, dop("add.rn.f64", one, f64(0x1p-53)), "tie to even");
        assertEquals(f64(Math.nextUp(1.0)), dop("add.rp.f64", one, f64(0x1p-60)));
        assertEquals(f64(-Math.nextUp(1.0)), dop("add.rm.f64", f64(-1.0), f64(-0x1p-60)));
        assertEquals(one, dop("add.rz.f64", one, f64(0x1p-60)));
        assertEquals(0x3FD5_5555_5555_5555L, dop("div.rn.f64", one, f64(3.0)));
        assertEquals(0x3FD5_5555_5555_5555L, dop("div.rz.f64", one, f64(3.0)));
        assertEquals(0x3FD5_5555_5555_5556L, dop("div.rp.f64", one, f64(3.0)));
        assertEquals(f64(Math.nextUp(1.0)), dop("fma.rp.f64", one, one, f64(0x1p-80)));
        assertEquals(one, dop("fma.rm.f64", one, one, f64(0x1p-80)));
        assertEquals(f64(Math.nextDown(1.0)), dop("fma.rm.f64", one, one, f64(-0x1p-80)));
        assertEquals(f64(Math.sqrt(2.0)), run.exec("ld.global.f64 %fd1, [%rd30]; sqrt.rn.f64 %fd3, %fd1; st.global.f64 [%rd31], %fd3;", f64(2.0))[0]);
        // the double nearest to sqrt(2) is above it: .rp keeps it, .rm and .rz take the one below
        assertEquals(f64(Math.sqrt(2.0)), run.exec("ld.global.f64 %fd1, [%rd30]; sqrt.rp.f64 %fd3, %fd1; st.global.f64 [%rd31], %fd3;", f64(2.0))[0]);
        assertEquals(f64(Math.nextDown(Math.sqrt(2.0))), run.exec("ld.global.f64 %fd1, [%rd30]; sqrt.rm.f64 %fd3, %fd1; st.global.f64 [%rd31], %fd3;", f64(2.0))[0]);
        assertEquals(f64(Math.nextDown(Math.sqrt(2.0))), run.exec("ld.global.f64 %fd1, [%rd30]; sqrt.rz.f64 %fd3, %fd1; st.global.f64 [%rd31], %fd3;", f64(2.0))[0]);
        assertEquals(f64(Double.MAX_VALUE), dop("add.rz.f64", f64(Double.MAX_VALUE), f64(Double.MAX_VALUE)));
    }

    @Test
    void testpClassifies() throws Exception {
        String body = "ld.global.f32 %f1, [%rd30];\ntestp.OP.f32 %p1, %f1; selp.u32 %r3, 1, 0, %p1; st.global.b32 [%rd31], %r3;";
        assertEquals(1L, run.exec(body.replace("OP", "subnormal"), 1)[0]);
        assertEquals(0L, run.exec(body.replace("OP", "normal"), 1)[0]);
        assertEquals(1L, run.exec(body.replace("OP", "notanumber"), NAN)[0]);
        assertEquals(0L, run.exec(body.replace("OP", "finite"), f32(Float.POSITIVE_INFINITY))[0]);
        assertEquals(1L, run.exec(body.replace("OP", "infinite"), f32(Float.NEGATIVE_INFINITY))[0]);
        assertEquals(1L, run.exec(body.replace("OP", "number"), f32(-0f))[0]);
    }

    // ------------------------------------------------------------------ comparison and selection (9.7.6)

    @Test
    void integerComparisons() throws Exception {
        assertEquals(1L, pred32("setp.lt.s32", 0xFFFF_FFFFL, 1));
        assertEquals(0L, pred32("setp.lt.u32", 0xFFFF_FFFFL, 1));
        assertEquals(0L, pred32("setp.lo.u32", 0xFFFF_FFFFL, 1));
        assertEquals(1L, pred32("setp.hi.u32", 0xFFFF_FFFFL, 1));
        assertEquals(1L, pred32("setp.hs.u32", 7, 7));
        assertEquals(1L, pred32("setp.ls.u32", 7, 7));
        assertEquals(1L, pred32("setp.ge.s32", 7, 7));
        assertEquals(0L, pred32("setp.gt.s32", 7, 7));
        assertEquals(1L, pred32("setp.ne.b32", 1, 2));
        assertEquals(1L, pred32("setp.eq.b32", 0xFFFF_FFFFL, 0xFFFF_FFFFL));
        assertEquals(1L, run.exec("ld.global.b64 %rd1, [%rd30]; ld.global.b64 %rd2, [%rd30+8]; setp.gt.u64 %p1, %rd1, %rd2; selp.u32 %r3, 1, 0, %p1; st.global.b32 [%rd31], %r3;",
                -1L, 1)[0]);
        assertEquals(0L, run.exec("ld.global.b64 %rd1, [%rd30]; ld.global.b64 %rd2, [%rd30+8]; setp.gt.s64 %p1, %rd1, %rd2; selp.u32 %r3, 1, 0, %p1; st.global.b32 [%rd31], %r3;",
                -1L, 1)[0]);
    }

    @Test
    void floatComparisonsWithNaN() throws Exception {
        long one = f32(1f);
        assertEquals(0L, predF("setp.eq.f32", NAN, NAN));
        assertEquals(1L, predF("setp.equ.f32", NAN, NAN));
        assertEquals(0L, predF("setp.ne.f32", NAN, one), "ordered comparisons are false with NaN");
        assertEquals(1L, predF("setp.neu.f32", NAN, one));
        assertEquals(0L, predF("setp.lt.f32", NAN, one));
        assertEquals(1L, predF("setp.ltu.f32", NAN, one));
        assertEquals(1L, predF("setp.geu.f32", one, NAN));
        assertEquals(0L, predF("setp.leu.f32", f32(2f), one));
        assertEquals(1L, predF("setp.num.f32", one, f32(2f)));
        assertEquals(1L, predF("setp.nan.f32", one, NAN));
        assertEquals(1L, predF("setp.eq.f32", 0, 0x8000_0000L), "+0 == -0");
        assertEquals(0L, predF("setp.lt.ftz.f32", 0, 1), ".ftz: the subnormal compares as 0");
        assertEquals(1L, predF("setp.lt.f32", 0, 1));
    }

    @Test
    void combinedPredicatesAndSelection() throws Exception {
        // setp.lt.and.s32 p|q, a, b, c: p = (a < b) & c, q = !(a < b) & c
        String body = """
                ld.global.b32 %r1, [%rd30]; ld.global.b32 %r2, [%rd30+8]; ld.global.b32 %r4, [%rd30+16];
                setp.ne.s32 %p3, %r4, 0;
                setp.lt.%s.s32 %%p1|%%p2, %%r1, %%r2, %%p3;
                selp.u32 %%r5, 1, 0, %%p1; selp.u32 %%r6, 1, 0, %%p2;
                st.global.b32 [%%rd31], %%r5; st.global.b32 [%%rd31+8], %%r6;
                setp.lt.%s.s32 %%p1, %%r1, %%r2, !%%p3;
                selp.u32 %%r5, 1, 0, %%p1; st.global.b32 [%%rd31+16], %%r5;
                """.replace("%s", "%1$s").replace("%%", "%");
        long[] and1 = run.exec(body.replace("%1$s", "and"), 1, 2, 1);
        assertEquals(1L, and1[0]);
        assertEquals(0L, and1[1]);
        assertEquals(0L, and1[2]);
        long[] and0 = run.exec(body.replace("%1$s", "and"), 1, 2, 0);
        assertEquals(0L, and0[0]);
        assertEquals(0L, and0[1]);
        assertEquals(1L, and0[2], "!c");
        long[] or0 = run.exec(body.replace("%1$s", "or"), 3, 2, 0);
        assertEquals(0L, or0[0]);
        assertEquals(1L, or0[1]);
        long[] xor1 = run.exec(body.replace("%1$s", "xor"), 1, 2, 1);
        assertEquals(0L, xor1[0]);
        assertEquals(1L, xor1[1]);
        // set (9.7.6.2): integer destinations get 0xffffffff, float destinations 1.0
        assertEquals(0xFFFF_FFFFL, r32("set.lt.u32.s32", 0xFFFF_FFFFL, 0));
        assertEquals(0L, r32("set.lt.u32.u32", 0xFFFF_FFFFL, 0));
        assertEquals(f32(1f), r32("set.lt.f32.s32", 0xFFFF_FFFFL, 0));
        assertEquals(5L, r32("slct.s32.s32", 5, 6, 0));
        assertEquals(6L, r32("slct.s32.s32", 5, 6, 0xFFFF_FFFFL));
        assertEquals(5L, run.exec("ld.global.f32 %f1, [%rd30]; slct.u32.f32 %r3, 5, 6, %f1; st.global.b32 [%rd31], %r3;", 0x8000_0000L)[0], "-0.0 >= 0");
        assertEquals(6L, run.exec("ld.global.f32 %f1, [%rd30]; slct.u32.f32 %r3, 5, 6, %f1; st.global.b32 [%rd31], %r3;", NAN)[0]);
        // predicate logic
        assertEquals(1L, run.exec("setp.eq.s32 %p1, 1, 1; setp.eq.s32 %p2, 1, 2; xor.pred %p3, %p1, %p2; not.pred %p4, %p2; and.pred %p5, %p3, %p4;"
                + "selp.u32 %r3, 1, 0, %p5; st.global.b32 [%rd31], %r3;")[0]);
    }

    // ------------------------------------------------------------------ conversion (9.7.9.21)

    @Test
    void floatToIntegerRoundsAndSaturates() throws Exception {
        assertEquals(2L, cvt("cvt.rni.s32.f32", "%f1", "%r2", f32(2.5f)), "ties to even");
        assertEquals(4L, cvt("cvt.rni.s32.f32", "%f1", "%r2", f32(3.5f)));
        assertEquals(-2L & 0xFFFF_FFFFL, cvt("cvt.rni.s32.f32", "%f1", "%r2", f32(-2.5f)));
        assertEquals(-2L & 0xFFFF_FFFFL, cvt("cvt.rzi.s32.f32", "%f1", "%r2", f32(-2.7f)));
        assertEquals(-3L & 0xFFFF_FFFFL, cvt("cvt.rmi.s32.f32", "%f1", "%r2", f32(-2.2f)));
        assertEquals(3L, cvt("cvt.rpi.s32.f32", "%f1", "%r2", f32(2.1f)));
        assertEquals(0x7FFF_FFFFL, cvt("cvt.rzi.s32.f32", "%f1", "%r2", f32(3e9f)), "saturates");
        assertEquals(0x8000_0000L, cvt("cvt.rzi.s32.f32", "%f1", "%r2", f32(-3e9f)));
        assertEquals(0L, cvt("cvt.rzi.s32.f32", "%f1", "%r2", NAN), "NaN converts to 0");
        assertEquals(0L, cvt("cvt.rzi.u32.f32", "%f1", "%r2", f32(-1f)));
        assertEquals(0xFFFF_FFFFL, cvt("cvt.rzi.u32.f32", "%f1", "%r2", f32(5e9f)));
        assertEquals(Long.MAX_VALUE, cvt("cvt.rzi.s64.f64", "%fd1", "%rd2", f64(1e30)));
        assertEquals(-1L, cvt("cvt.rzi.u64.f64", "%fd1", "%rd2", f64(1e30)));
        assertEquals(0x8000_0000_0000_0000L, cvt("cvt.rzi.u64.f64", "%fd1", "%rd2", f64(0x1p63)));
    }

    @Test
    void integerToInteger() throws Exception {
        assertEquals(0x7FL, cvt("cvt.u8.u32", "%r1", "%r2", 0x17F), "truncates");
        assertEquals(0xFFL, cvt("cvt.sat.u8.u32", "%r1", "%r2", 0x17F), "saturates");
        assertEquals(0xFFFF_FFC8L, cvt("cvt.s8.s32", "%r1", "%r2", 200), "200 as s8 is -56, sign-extended in the register");
        assertEquals(0x7FL, cvt("cvt.sat.s8.s32", "%r1", "%r2", 200));
        assertEquals(0xFFFF_FF80L, cvt("cvt.sat.s8.s32", "%r1", "%r2", -200 & 0xFFFF_FFFFL));
        assertEquals(-1L, cvt("cvt.u64.s32", "%r1", "%rd2", 0xFFFF_FFFFL), "the source is sign-extended");
        assertEquals(0xFFFF_FFFFL, cvt("cvt.u64.u32", "%r1", "%rd2", 0xFFFF_FFFFL));
        assertEquals(0L, cvt("cvt.sat.u32.s32", "%r1", "%r2", 0xFFFF_FFFFL));
        assertEquals(0x7FFF_FFFFL, cvt("cvt.sat.s32.u32", "%r1", "%r2", 0xFFFF_FFFFL));
        assertEquals(0xFFFF_FFFFL, cvt("cvt.sat.u32.u64", "%rd1", "%r2", -1L));
    }

    @Test
    void integerToFloat() throws Exception {
        assertEquals(0x4B80_0000L, cvt("cvt.rn.f32.s32", "%r1", "%f2", 16777217), "2^24 + 1 ties to even");
        assertEquals(0x4B80_0001L, cvt("cvt.rp.f32.s32", "%r1", "%f2", 16777217));
        assertEquals(0x4F7F_FFFFL, cvt("cvt.rz.f32.u32", "%r1", "%f2", 0xFFFF_FFFFL));
        assertEquals(0x4F80_0000L, cvt("cvt.rn.f32.u32", "%r1", "%f2", 0xFFFF_FFFFL));
        assertEquals(f32(-1f), cvt("cvt.rn.f32.s32", "%r1", "%f2", 0xFFFF_FFFFL));
        assertEquals(f64(0x1p64 - 2048), cvt("cvt.rz.f64.u64", "%rd1", "%fd2", -1L));
        assertEquals(f64(0x1p64), cvt("cvt.rn.f64.u64", "%rd1", "%fd2", -1L));
    }

    @Test
    void floatToFloat() throws Exception {
        assertEquals(f32(1f), cvt("cvt.rn.f32.f64", "%fd1", "%f2", f64(1 + 0x1p-24)), "tie to even");
        assertEquals(f32(Math.nextUp(1f)), cvt("cvt.rn.f32.f64", "%fd1", "%f2", f64(1 + 0x1p-24 + 0x1p-40)));
        assertEquals(f32(1f), cvt("cvt.rz.f32.f64", "%fd1", "%f2", f64(1 + 0x1p-24 + 0x1p-40)));
        assertEquals(f32(Math.nextUp(1f)), cvt("cvt.rp.f32.f64", "%fd1", "%f2", f64(1 + 0x1p-40)));
        assertEquals(f64(0.1f), cvt("cvt.f64.f32", "%f1", "%fd2", f32(0.1f)), "widening is exact");
        assertEquals(0x3C00L, cvt("cvt.rn.f16.f32", "%f1", "%h2", f32(1f)));
        assertEquals(0x7C00L, cvt("cvt.rn.f16.f32", "%f1", "%h2", f32(65520f)), "the tie above the largest half rounds to infinity");
        assertEquals(0x7BFFL, cvt("cvt.rn.f16.f32", "%f1", "%h2", f32(65519f)));
        assertEquals(0x7BFFL, cvt("cvt.rz.f16.f32", "%f1", "%h2", f32(1e6f)), "toward zero stays finite");
        assertEquals(0x3C01L, cvt("cvt.rp.f16.f32", "%f1", "%h2", f32(1f + 0x1p-20f)));
        assertEquals(f32(1f), cvt("cvt.f32.f16", "%h1", "%f2", 0x3C00));
        assertEquals(f32(0x1p-24f), cvt("cvt.f32.f16", "%h1", "%f2", 0x0001), "half subnormals are exact in single");
        assertEquals(0x3F80L, cvt("cvt.rn.bf16.f32", "%f1", "%h2", f32(1.00390625f)), "bf16 tie to even (down)");
        assertEquals(0x3F82L, cvt("cvt.rn.bf16.f32", "%f1", "%h2", f32(1.01171875f)), "bf16 tie to even (up)");
        assertEquals(0x3F81L, cvt("cvt.rz.bf16.f32", "%f1", "%h2", f32(1.01171875f)));
        assertEquals(f32(1.0f), cvt("cvt.f32.bf16", "%h1", "%f2", 0x3F80));
        assertEquals(f32(1f), cvt("cvt.sat.f32.f32", "%f1", "%f2", f32(2f)));
        assertEquals(f32(-2f), cvt("cvt.rmi.f32.f32", "%f1", "%f2", f32(-1.5f)));
        assertEquals(f32(2f), cvt("cvt.rni.f32.f32", "%f1", "%f2", f32(2.5f)));
        assertEquals(0L, cvt("cvt.ftz.f32.f32", "%f1", "%f2", 1));
        assertEquals(0x3C00_4000L, run.exec("ld.global.f32 %f1, [%rd30]; ld.global.f32 %f2, [%rd30+8]; cvt.rn.f16x2.f32 %r3, %f1, %f2; st.global.b32 [%rd31], %r3;",
                f32(1f), f32(2f))[0], "a goes to the upper half");
    }

    /** {@code ins %h3, %h1, %h2} on 16-bit values. */
    static long h16(String ins, long a, long b) throws Exception {
        return run.exec("ld.global.b16 %h1, [%rd30]; ld.global.b16 %h2, [%rd30+8];\n" + ins + " %h3, %h1, %h2;\nst.global.b16 [%rd31], %h3;", a, b)[0];
    }

    @Test
    void halfPrecisionArithmetic() throws Exception {
        // PTX ISA 9.7.4: one rounding to nearest even per instruction
        assertEquals(0x3C00L, h16("add.f16", 0x3C00, 0x1000), "1 + 2^-11 ties to even (down)");
        assertEquals(0x3C02L, h16("add.f16", 0x3C01, 0x1000), "(1 + 2^-10) + 2^-11 ties to even (up)");
        assertEquals(0x7C00L, h16("add.f16", 0x7BFF, 0x4C00), "65504 + 16 = 65520 rounds to infinity");
        assertEquals(0x7BFFL, h16("add.f16", 0x7BFF, 0x4B80), "65504 + 15 stays 65504");
        assertEquals(0x7FFFL, h16("add.f16", 0x7C00, 0xFC00), "inf - inf: canonical NaN");
        assertEquals(1L, h16("add.f16", 1, 0));
        assertEquals(0L, h16("add.ftz.f16", 1, 0), ".ftz flushes half subnormals");
        assertEquals(0x3C00L, h16("add.sat.f16", 0x3C00, 0x3C00), ".sat clamps to 1");
        assertEquals(0x0C00L, run.exec("ld.global.b16 %h1, [%rd30]; ld.global.b16 %h2, [%rd30+8]; fma.rn.f16 %h3, %h1, %h1, %h2; st.global.b16 [%rd31], %h3;",
                0x3C10, 0xBC20)[0], "fma rounds once: (1 + 2^-6)^2 - (1 + 2^-5) = 2^-12");
        assertEquals(0L, run.exec("ld.global.b16 %h1, [%rd30]; ld.global.b16 %h2, [%rd30+8]; mul.rn.f16 %h3, %h1, %h1; add.rn.f16 %h3, %h3, %h2; st.global.b16 [%rd31], %h3;",
                0x3C10, 0xBC20)[0], "... where mul then add loses it");
        assertEquals(0x4000_4200L, r32("add.f16x2", 0x3C00_4000L, 0x3C00_3C00L), "the two halves are independent");
        assertEquals(0xBC00_3C00L, r32("neg.f16x2", 0x3C00_BC00L));
        assertEquals(0x3C00_4000L, r32("max.f16x2", 0x7E00_4000L, 0x3C00_3C00L), "max ignores a NaN half");
        assertEquals(0x7FFF_4000L, r32("max.NaN.f16x2", 0x7E00_4000L, 0x3C00_3C00L));
        assertEquals(0x0000_3C00L, r32("fma.rn.relu.f16x2", 0xBC00_3C00L, 0x3C00_3C00L, 0x0000_0000L), ".relu clamps the negative half");
        assertEquals(0x3F80L, h16("add.bf16", 0x3F80, 0x3B80), "bf16: 1 + 2^-8 ties to even");
        assertEquals(0x3B80L, run.exec("ld.global.b16 %h1, [%rd30]; ld.global.b16 %h2, [%rd30+8]; fma.rn.bf16 %h3, %h1, %h1, %h2; st.global.b16 [%rd31], %h3;",
                0x3F88, 0xBF90)[0], "bf16 fma rounds once: (1 + 2^-4)^2 - (1 + 2^-3) = 2^-8");
    }

    @Test
    void movesPackAndImmediates() throws Exception {
        long[] r = run.exec("""
                ld.global.b32 %r1, [%rd30]; ld.global.b32 %r2, [%rd30+8];
                mov.b64 %rd1, {%r1, %r2};
                st.global.b64 [%rd31], %rd1;
                mov.b64 {%r3, %r4}, %rd1;
                st.global.b32 [%rd31+8], %r4;
                mov.f32 %f1, 0f3F800000;
                st.global.f32 [%rd31+16], %f1;
                mov.f64 %fd1, 0d4000000000000000;
                st.global.f64 [%rd31+24], %fd1;
                mov.u32 %r5, -1;
                st.global.b32 [%rd31+32], %r5;
                mov.b32 {%h1, %h2}, %r1;
                st.global.b16 [%rd31+40], %h2;
                mov.u32 %r6, %laneid;
                st.global.b32 [%rd31+48], %r6;
                """, 0x1111_2222L, 0x3333_4444L);
        assertEquals(0x3333_4444_1111_2222L, r[0], "the first element is the low half");
        assertEquals(0x3333_4444L, r[1]);
        assertEquals(f32(1f), r[2]);
        assertEquals(f64(2.0), r[3]);
        assertEquals(0xFFFF_FFFFL, r[4]);
        assertEquals(0x1111L, r[5]);
        assertEquals(0L, r[6]);
    }
    /** Two 32-bit values in one 8-byte slot, {@code lo} first in memory. */
    static long pack(long lo, long hi) {
        return (lo & 0xFFFF_FFFFL) | hi << 32;
    }

    /** Four 16-bit values in one 8-byte slot, {@code h[0]} first in memory. */
    static long pack16(int... h) {
        return (h[0] & 0xFFFFL) | (h[1] & 0xFFFFL) << 16 | (h[2] & 0xFFFFL) << 32 | (long) (h[3] & 0xFFFF) << 48;
    }

    @Test
    void vectorAtomicsF32() throws Exception {
        // atom.global.v4.f32.add (PTX ISA 9.0, 9.7.13.5): each element its own add rounded to nearest even;
        // d gets the old values; in global memory subnormal inputs and results are flushed to +-0
        long[] r = run.exec("""
                ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd30]; st.global.v4.f32 [%rd31], {%f1, %f2, %f3, %f4};
                ld.global.v4.f32 {%f5, %f6, %f7, %f8}, [%rd30+16];
                atom.global.v4.f32.add {%f9, %f10, %f11, %f12}, [%rd31], {%f5, %f6, %f7, %f8};
                st.global.v4.f32 [%rd31+16], {%f9, %f10, %f11, %f12};
                """, pack(f32(1.5f), f32(-0.5f)), pack(f32(1f), 1), pack(f32(2.25f), f32(0.25f)), pack(f32(-3f), 1));
        assertEquals(pack(f32(3.75f), f32(-0.25f)), r[0], "1.5 + 2.25, -0.5 + 0.25");
        assertEquals(pack(f32(-2f), 0), r[1], "1 - 3; two subnormals flushed: +0");
        assertEquals(pack(f32(1.5f), f32(-0.5f)), r[2], "old values");
        assertEquals(pack(f32(1f), 1), r[3], "old values, the subnormal as it was");
        // red.global.v2.f32.add and atom with a discarded element (the generic-address form, atom.add.v2.f32, is not
        // among the forms checked against an NVIDIA GPU: refused at load)
        r = run.exec("""
                ld.global.v2.f32 {%f1, %f2}, [%rd30]; st.global.v2.f32 [%rd31], {%f1, %f2};
                ld.global.v2.f32 {%f5, %f6}, [%rd30+8];
                red.global.add.v2.f32 [%rd31], {%f5, %f6};
                atom.global.add.v2.f32 {_, %f10}, [%rd31], {%f5, %f6};
                st.global.f32 [%rd31+8], %f10;
                """, pack(f32(0.1f), f32(1e30f)), pack(f32(0.2f), f32(-1e30f)));
        assertEquals(pack(f32(0.1f + 0.2f + 0.2f), f32(-1e30f)), r[0], "(0.1 + 0.2) + 0.2 in float; 1e30 - 1e30 - 1e30");
        assertEquals(f32(0f), r[1], "the old second element after red: 1e30 - 1e30 = +0");
    }

    @Test
    void vectorAtomicsHalf() throws Exception {
        // atom.global.v8.f16.{min,max}.noftz (9.7.13.5) with the NaN rules of min/max.f16 (9.7.4.7, 9.7.4.8):
        // one NaN gives the other operand, two NaNs the canonical NaN 0x7fff, -0.0 < +0.0, subnormals kept
        String body = """
                ld.global.v4.b32 {%r1, %r2, %r3, %r4}, [%rd30]; st.global.v4.b32 [%rd31], {%r1, %r2, %r3, %r4};
                ld.global.v4.b32 {%r5, %r6, %r7, %r8}, [%rd30+16];
                mov.b32 {%h8, %h9}, %r5; mov.b32 {%h10, %h11}, %r6; mov.b32 {%h12, %h13}, %r7; mov.b32 {%h14, %h15}, %r8;
                atom.global.OP.noftz.v8.f16 {%h0, %h1, %h2, %h3, %h4, %h5, %h6, %h7}, [%rd31], {%h8, %h9, %h10, %h11, %h12, %h13, %h14, %h15};
                mov.b32 %r9, {%h0, %h1}; mov.b32 %r10, {%h2, %h3}; mov.b32 %r11, {%h4, %h5}; mov.b32 %r12, {%h6, %h7};
                st.global.v4.b32 [%rd31+16], {%r9, %r10, %r11, %r12};
                """;
        // memory: 1.0, NaN, 1.0, NaN, +0, subnormal 1, -1.0, inf; b: 2.0, 1.0, NaN, NaN, -0, subnormal 2, 0.5, 2.0
        long m0 = pack16(0x3C00, 0x7E00, 0x3C00, 0x7E00), m1 = pack16(0x0000, 0x0001, 0xBC00, 0x7C00);
        long b0 = pack16(0x4000, 0x3C00, 0x7E01, 0x7D00), b1 = pack16(0x8000, 0x0002, 0x3800, 0x4000);
        long[] r = run.exec(body.replace("OP", "min"), m0, m1, b0, b1);
        assertEquals(pack16(0x3C00, 0x3C00, 0x3C00, 0x7FFF), r[0], "min: 1, NaN->1, NaN->1, two NaNs->canonical");
        assertEquals(pack16(0x8000, 0x0001, 0xBC00, 0x4000), r[1], "min: -0, subnormal kept, -1, 2");
        assertEquals(m0, r[2], "old values");
        assertEquals(m1, r[3]);
        r = run.exec(body.replace("OP", "max"), m0, m1, b0, b1);
        assertEquals(pack16(0x4000, 0x3C00, 0x3C00, 0x7FFF), r[0], "max: 2, NaN->1, NaN->1, two NaNs->canonical");
        assertEquals(pack16(0x0000, 0x0002, 0x3800, 0x7C00), r[1], "max: +0, subnormal 2, 0.5, inf");
        // bf16 add, one rounding to nearest even: 1.5 + 2.25 = 3.75; 1 + 2^-8 is a tie between 1 and 1 + 2^-7 -> 1
        String bf = """
                ld.global.b32 %r1, [%rd30]; st.global.b32 [%rd31], %r1;
                ld.global.b32 %r2, [%rd30+8]; mov.b32 {%h8, %h9}, %r2;
                atom.global.v2.bf16.add.noftz {%h0, %h1}, [%rd31], {%h8, %h9};
                mov.b32 %r3, {%h0, %h1}; st.global.b32 [%rd31+8], %r3;
                """;
        r = run.exec(bf, 0x3F80_3FC0L, 0x3B80_4010L);
        assertEquals(0x3F80_4070L, r[0], "bf16: 3.75, and the tie 1 + 2^-8 rounded to even (1.0)");
        assertEquals(0x3F80_3FC0L, r[1], "old values");
        // red.global.v2.f16x2.max.noftz: four halves in two packed words
        r = run.exec("""
                ld.global.v2.b32 {%r1, %r2}, [%rd30]; st.global.v2.b32 [%rd31], {%r1, %r2};
                ld.global.v2.b32 {%r3, %r4}, [%rd30+8];
                red.global.max.noftz.v2.f16x2 [%rd31], {%r3, %r4};
                """, pack16(0x3C00, 0xBC00, 0x7E00, 0x8000), pack16(0x4000, 0xC000, 0x3800, 0x0000));
        assertEquals(pack16(0x4000, 0xBC00, 0x3800, 0x0000), r[0], "max per half: 2, -1, NaN->0.5, +0 over -0");
    }

    @Test
    void vectorAtomicsConcurrent() throws Exception {
        // 64 CTAs of 64 threads on 4 host threads: every element of a float4 is its own atomic, so each
        // ends at the exact sum, and the old values of element 0 are 0, 1, ..., 4095, each seen once
        try (PtxRun par = new PtxRun(4)) {
            String ptx = PtxRun.HEADER + """
                    .visible .entry k(.param .u64 pacc, .param .u64 pold, .param .u64 phalf)
                    {
                    .reg .b32 %r<8>;
                    .reg .b16 %h<20>;
                    .reg .b64 %rd<8>;
                    .reg .f32 %f<12>;
                    ld.param.u64 %rd1, [pacc]; ld.param.u64 %rd2, [pold]; ld.param.u64 %rd5, [phalf];
                    mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x;
                    mad.lo.u32 %r4, %r1, %r2, %r3;
                    mov.f32 %f1, 0f3F800000; mov.f32 %f2, 0f40000000; mov.f32 %f3, 0f3F000000; mov.f32 %f4, 0f3E800000;
                    atom.global.v4.f32.add {%f5, %f6, %f7, %f8}, [%rd1], {%f1, %f2, %f3, %f4};
                    cvt.rzi.u32.f32 %r5, %f5;
                    mul.wide.u32 %rd3, %r5, 4; add.u64 %rd4, %rd2, %rd3;
                    atom.global.add.u32 %r6, [%rd4], 1;
                    setp.lt.u32 %p1, %r4, 1024;
                    mov.b16 %h1, 0x3C00;
                    @%p1 red.global.add.noftz.v8.f16 [%rd5], {%h1, %h1, %h1, %h1, %h1, %h1, %h1, %h1};
                    ret;
                    }
                    """;
            ptx = ptx.replace(".reg .f32 %f<12>;", ".reg .f32 %f<12>;\n.reg .pred %p<2>;");
            java.lang.foreign.MemorySegment acc = par.buffer(16), old = par.buffer(4 * 4096), half = par.buffer(16);
            LaunchResult lr = par.launch(par.load(ptx).kernels().get("k"), new int[] {64, 1, 1}, new int[] {64, 1, 1}, 0,
                    acc.address(), old.address(), half.address());
            assertEquals(true, lr.ok(), lr.message());
            float[] want = {4096f, 8192f, 2048f, 1024f};
            for (int e = 0; e < 4; e++) assertEquals(want[e], acc.getAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, e), "element " + e);
            for (int i = 0; i < 4096; i++) assertEquals(1, old.getAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, i), "old value " + i + " seen once");
            // 1024 adds of 1.0 in f16: every partial sum up to 2048 is exact
            for (int e = 0; e < 8; e++) assertEquals((short) 0x6400, half.getAtIndex(java.lang.foreign.ValueLayout.JAVA_SHORT, e), "f16 element " + e + " = 1024");
        }
    }

    @Test
    void vectorAtomicsRefused() {
        // .b128, vector atomics outside .global and forms the PTX ISA does not define are refused by name
        for (String ins : new String[] {"atom.shared.v2.f32.add {%f1, %f2}, [%r1], {%f3, %f4};",
                "atom.global.v8.f16x2.add.noftz {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd30], {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8};",
                "atom.global.v2.f32.min {%f1, %f2}, [%rd30], {%f3, %f4};",
                "atom.global.exch.b128 %rd1, [%rd30], %rd2;"}) {
            Exception e = org.junit.jupiter.api.Assertions.assertThrows(Exception.class, () -> run.exec(ins));
            org.junit.jupiter.api.Assertions.assertTrue(String.valueOf(e.getMessage()).contains("not supported") || String.valueOf(e.getMessage()).contains("only for .global"),
                    ins + ": " + e.getMessage());
        }
    }
}
