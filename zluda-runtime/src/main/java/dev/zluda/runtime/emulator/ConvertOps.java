package dev.zluda.runtime.emulator;

import dev.zluda.ptx.PtxType;

import static dev.zluda.runtime.emulator.FloatMath.RN;

/**
 * Conversions: cvt (PTX ISA 9.0, 9.7.9.21) between integer and floating-point formats with every rounding and
 * saturation modifier the emulator executes, and cvt.pack (9.7.9.22). Values are the low bits of a slot.
 */
final class ConvertOps {
    private ConvertOps() {}

    /**
     * cvt (PTX ISA 9.7.9.21) between the integer types, .f16, .bf16, .f32 and .f64, with integer
     * rounding ({@code .rni .rzi .rmi .rpi}), float rounding ({@code .rn .rz .rm .rp}), {@code .ftz},
     * {@code .sat} and {@code .relu}; float-to-integer conversions saturate and turn NaN into 0.
     * With {@code b >= 0} it is the packing form {@code cvt.rn.f16x2.f32 d, a, b} (a in the upper half).
     */
    static final class Cvt extends Op {
        final PtxType dt, st;
        final int rnd, d, a, b;
        final boolean intRound, ftz, sat, relu;
        boolean satfinite;

        Cvt(PtxType dt, PtxType st, int rnd, boolean intRound, boolean ftz, boolean sat, boolean relu, int d, int a, int b) {
            super(NORMAL);
            this.dt = dt;
            this.st = st;
            this.rnd = rnd;
            this.intRound = intRound;
            this.ftz = ftz;
            this.sat = sat;
            this.relu = relu;
            this.d = d;
            this.a = a;
            this.b = b;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            if (dt == PtxType.E4M3X2 || dt == PtxType.E5M2X2 || (dt == PtxType.F16X2 && st != PtxType.F32)) {
                for (int x = m; x != 0; x &= x - 1) {
                    int l = Integer.numberOfTrailingZeros(x);
                    r[d + l] = fp8(r[a + l], b >= 0 ? r[b + l] : 0);
                }
                return;
            }
            if (b >= 0) {
                PtxType half = dt == PtxType.F16X2 ? PtxType.F16 : PtxType.BF16;
                for (int x = m; x != 0; x &= x - 1) {
                    int l = Integer.numberOfTrailingZeros(x);
                    long hiV = convert(r[a + l], half), loV = convert(r[b + l], half);
                    r[d + l] = ((hiV & 0xFFFF) << 16) | (loV & 0xFFFF);
                }
                return;
            }
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                r[d + l] = convert(r[a + l], dt);
            }
        }

        private static boolean isFloat(PtxType t) {
            return t.kind() == PtxType.Kind.FLOAT;
        }

        private static boolean signed(PtxType t) {
            return t.kind() == PtxType.Kind.SIGNED;
        }

        private double sourceValue(long x) {
            return switch (st) {
                case F64 -> Double.longBitsToDouble(x);
                case F16 -> FloatMath.fromHalf(x);
                case BF16 -> FloatMath.fromBf16(x);
                default -> {
                    float f = Float.intBitsToFloat((int) x);
                    yield ftz ? FloatMath.ftz(f) : f;
                }
            };
        }

        /**
         * The fp8 conversions (PTX ISA 9.0, 9.7.9.21): two f32 ({@code a} to the upper byte) or an f16x2 to
         * e4m3x2/e5m2x2 with .rn.satfinite, or e4m3x2/e5m2x2 to f16x2 (exact).
         */
        private long fp8(long x, long y) {
            boolean e4 = dt == PtxType.E4M3X2 || st == PtxType.E4M3X2;
            if (dt == PtxType.F16X2) {
                return (long) fp8ToHalf((int) (x >>> 8) & 0xFF, e4) << 16 | fp8ToHalf((int) x & 0xFF, e4);
            }
            double hi, lo;
            if (st == PtxType.F32) {
                hi = Float.intBitsToFloat((int) x);
                lo = Float.intBitsToFloat((int) y);
            } else {
                hi = FloatMath.fromHalf(x >>> 16);
                lo = FloatMath.fromHalf(x);
            }
            return (long) toFp8(hi, e4) << 8 | toFp8(lo, e4);
        }

        private int toFp8(double v, boolean e4) {
            if (relu && (v < 0 || (v == 0 && 1 / v < 0))) v = 0;
            if (e4) {
                // e4m3 has no infinities: the top encoding 0x7f is NaN, the largest finite value 448 (0x7e)
                if (v != v) return 0x7f;
                int sign = Double.doubleToRawLongBits(v) < 0 ? 0x80 : 0;
                if (v == 0) return sign;
                if (Double.isInfinite(v)) return sign | 0x7e;
                long bits = FloatMath.roundBits(v, 4, 3, FloatMath.RN);
                return sign | (int) Math.min(bits, 0x7e);
            }
            return FloatMath.toFormat(v, 5, 2, FloatMath.RN, true, 0x7f);
        }

        private int fp8ToHalf(int b, boolean e4) {
            int sign = (b & 0x80) << 8;
            int h;
            if (e4) {
                if ((b & 0x7f) == 0x7f) return 0x7fff;
                h = FloatMath.toHalf((float) Math.scalb((double) ((b & 7) | ((b & 0x78) != 0 ? 8 : 0)), Math.max((b >>> 3 & 15), 1) - 7 - 3), FloatMath.RN);
                h |= sign;
            } else {
                if ((b & 0x7c) == 0x7c && (b & 3) != 0) return 0x7fff;
                h = b << 8;
            }
            if (relu && (h & 0x8000) != 0) return 0;
            return h;
        }

        long convert(long x, PtxType dt) {
            int sb = st.size() * 8, db = dt.size() * 8;
            if (!isFloat(st) && !isFloat(dt)) {
                long v = IntOps.ext(x, sb, signed(st));
                if (sat) {
                    boolean hugeUnsigned = !signed(st) && sb == 64 && v < 0;
                    if (signed(dt)) {
                        long max = db == 64 ? Long.MAX_VALUE : (1L << (db - 1)) - 1, min = db == 64 ? Long.MIN_VALUE : -(1L << (db - 1));
                        v = hugeUnsigned ? max : Math.max(min, Math.min(max, v));
                    } else if (hugeUnsigned) {
                        v = db == 64 ? v : (1L << db) - 1;
                    } else {
                        long max = db == 64 ? Long.MAX_VALUE : (1L << db) - 1;
                        v = Math.max(0, Math.min(max, v));
                    }
                }
                return IntOps.ext(v, db, signed(dt));
            }
            if (isFloat(st) && !isFloat(dt)) {
                double v = sourceValue(x);
                // NaN (measured on an H200): from .f64 the most negative signed value of the destination's
                // width (also for unsigned destinations); from narrower formats 0, or 1 << 63 into 64 bits
                if (v != v) return st == PtxType.F64 || db == 64 ? IntOps.ext(1L << (db - 1), db, signed(dt)) : 0;
                v = FloatMath.integral(v, intRound ? rnd : FloatMath.RZ);
                long out;
                if (signed(dt)) {
                    double max = db == 64 ? 0x1p63 : Math.scalb(1.0, db - 1);
                    out = v >= max ? (db == 64 ? Long.MAX_VALUE : (long) max - 1) : v < -max ? (db == 64 ? Long.MIN_VALUE : -(long) max) : (long) v;
                } else {
                    double max = Math.scalb(1.0, db);
                    if (v <= 0) out = 0;
                    else if (v >= max) out = db == 64 ? -1L : (long) max - 1;
                    else if (v >= 0x1p63) out = (long) (v - 0x1p63) ^ Long.MIN_VALUE;
                    else out = (long) v;
                }
                return IntOps.ext(out, db, signed(dt));
            }
            if (!isFloat(st)) {
                long v = IntOps.ext(x, sb, signed(st));
                boolean u64 = !signed(st) && sb == 64;
                return switch (dt) {
                    case F64 -> Double.doubleToRawLongBits(satD(FloatMath.fromLong(v, u64, rnd)));
                    case F16 -> FloatMath.toHalf(satF(FloatMath.fromLongF(v, u64, rnd)), rnd);
                    case BF16 -> FloatMath.toBf16(satF(FloatMath.fromLongF(v, u64, rnd)), rnd);
                    default -> FloatMath.bits(satF(FloatMath.fromLongF(v, u64, rnd)));
                };
            }
            // a conversion to the same format without a modifier copies the bits, a signalling NaN too (recorded on
            // an H200: cvt.f32.f32 and cvt.f64.f64 of 0x7f800001 keep it)
            if (st == dt && !intRound && !ftz && !sat && !relu && !satfinite && (st == PtxType.F32 || st == PtxType.F64)) return x;
            // NaN sources (measured on an H200): .sat gives 0; .f64 gives a quiet NaN with the sign and the
            // top payload bits; .bf16 to .f32 keeps the bits; .f32 to .f64 widens the quieted NaN, with .ftz
            // the canonical f32 NaN
            if (st == PtxType.F64 && isNaN64(x)) {
                if (sat) return 0;
                long sign = x >>> 63, pay = x & 0x000F_FFFF_FFFF_FFFFL;
                return switch (dt) {
                    case F16 -> sign << 15 | 0x7e00 | pay >>> 42;
                    case BF16 -> sign << 15 | 0x7fc0 | pay >>> 45;
                    case F64 -> x | 0x0008_0000_0000_0000L;
                    default -> sign << 31 | 0x7fc0_0000L | pay >>> 29;
                };
            }
            // .bf16 to .f32: the bits widened; .ftz flushes a subnormal to zero of its sign (recorded on an H200)
            // (with .ftz a NaN becomes the canonical f32 NaN)
            if (st == PtxType.BF16 && dt == PtxType.F32) {
                if (ftz && (x & 0x7F80) == 0x7F80 && (x & 0x7F) != 0) return FloatMath.CANONICAL_NAN_F32;
                return ftz && (x & 0x7F80) == 0 ? (x & 0x8000) << 16 : (x & 0xFFFF) << 16;
            }
            if (st == PtxType.F32 && dt == PtxType.F64 && Float.isNaN(Float.intBitsToFloat((int) x))) {
                if (sat) return 0;
                if (ftz) return 0x7FFF_FFFF_E000_0000L;
                long sign = (x >>> 31) & 1, pay = x & 0x7F_FFFFL;
                return sign << 63 | 0x7FF8_0000_0000_0000L | pay << 29;
            }
            if (dt == PtxType.TF32) return tf32((int) x);
            // .ftz flushes an f32 subnormal source, except on the way to .f16 (both as recorded on an H200, conformance
            // sweep: cvt.rn.ftz.bf16.f32 of 0x00400000 gives 0)
            double v = dt == PtxType.F16 ? sourceValueNoFtz(x) : sourceValue(x);
            if (intRound) v = FloatMath.integral(v, rnd);
            if (relu && (v < 0 || (v == 0 && 1 / v < 0))) v = 0;
            switch (dt) {
                case F64 -> {
                    return Double.doubleToRawLongBits(satD(v));
                }
                case F16 -> {
                    if (st == PtxType.F64 || satfinite) {
                        if (v != v) return FloatMath.CANONICAL_NAN_F16;
                        return FloatMath.toFormat(satD(v), 5, 10, rnd, satfinite, FloatMath.CANONICAL_NAN_F16);
                    }
                    return FloatMath.toHalf(satF((float) v), rnd);
                }
                case BF16 -> {
                    if (st == PtxType.F64 || satfinite) {
                        if (v != v) return 0x7FFF;
                        return FloatMath.toFormat(satD(v), 8, 7, rnd, satfinite, 0x7FFF);
                    }
                    return FloatMath.toBf16(satF((float) v), rnd);
                }
                default -> {
                    float f = st == PtxType.F64 && !intRound ? FloatMath.round(v, 0, rnd) : (float) v;
                    if (ftz) f = FloatMath.ftz(f);
                    return FloatMath.bits(satF(f));
                }
            }
        }

        private static boolean isNaN64(long x) {
            return (x & 0x7FF0_0000_0000_0000L) == 0x7FF0_0000_0000_0000L && (x & 0x000F_FFFF_FFFF_FFFFL) != 0;
        }

        private double sourceValueNoFtz(long x) {
            return st == PtxType.F32 ? Float.intBitsToFloat((int) x) : sourceValue(x);
        }

        /** f32 to tf32 (.rna, .rn, .rz; {@code .satfinite}, {@code .relu}): an f32 whose low 13 bits are zero. */
        private long tf32(int x) {
            float f = Float.intBitsToFloat(x);
            if (rnd == FloatMath.RNA) {
                // as an H200 computes it: the bits rounded half away (NaN payloads truncated); with
                // .satfinite a result at or above infinity (NaN included) loses one tf32 ulp
                int t = f != f ? x & ~0x1FFF : (x + 0x1000) & ~0x1FFF;
                if (satfinite && (t & 0x7FFF_FFFF) >= 0x7F80_0000) t -= 0x2000;
                return t & 0xFFFF_FFFFL;
            }
            if (f != f) return 0x7FFF_E000L;
            if (relu && (f < 0 || (f == 0 && x < 0))) return 0;
            int sign = x & 0x8000_0000;
            if (f == 0) return sign & 0xFFFF_FFFFL;
            int bits = FloatMath.toFormat(f, 8, 10, rnd, satfinite, 0x7FFF);
            return ((long) (bits & 0x3FFFF) << 13 | (sign & 0xFFFF_FFFFL)) & 0xFFFF_FFFFL;
        }

        private float satF(float f) {
            return sat ? FloatMath.sat(f) : f;
        }

        private double satD(double f) {
            return sat ? FloatMath.sat(f) : f;
        }
    }

    /**
     * {@code cvt.pack.sat.T.s32.b32 d, a, b, c} (PTX ISA 9.0, 9.7.9.22): a and b saturated to T; for 8-bit T
     * d = c[15:0] << 16 | a << 8 | b, for 16-bit T d = a << 16 | b.
     */
    static final class CvtPack extends Op {
        final int d, a, b, c;
        final int bits;
        final boolean signed;

        CvtPack(PtxType t, int d, int a, int b, int c) {
            super(NORMAL);
            this.bits = t.size() * 8;
            this.signed = t.kind() == PtxType.Kind.SIGNED;
            this.d = d;
            this.a = a;
            this.b = b;
            this.c = c;
        }

        private long sat(long v) {
            long x = (int) v;
            long min = signed ? -(1L << (bits - 1)) : 0, max = signed ? (1L << (bits - 1)) - 1 : (1L << bits) - 1;
            return Math.max(min, Math.min(max, x)) & ((1L << bits) - 1);
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long lo = sat(r[a + l]) << bits | sat(r[b + l]);
                if (bits == 8) lo |= (c >= 0 ? r[c + l] & 0xFFFF : 0) << 16;
                r[d + l] = lo & 0xFFFF_FFFFL;
            }
        }
    }
}
