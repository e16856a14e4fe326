package dev.zluda.runtime.emulator;

import dev.zluda.ptx.ir.Mod;

import static dev.zluda.runtime.emulator.FloatMath.RN;

/**
 * Floating-point arithmetic (PTX ISA 9.0, 9.7.3, and half precision, 9.7.4). Single-precision values are the
 * low 32 bits of a slot, double the whole slot, half and bfloat16 the low 16 bits; comparison and selection
 * (9.7.6, 9.7.7). Conversions are {@link ConvertOps}'.
 */
final class FloatOps {
    private FloatOps() {}

    static final int ADD = 0, SUB = 1, MUL = 2, FMA = 3, DIV = 4, ABS = 5, NEG = 6, MIN = 7, MAX = 8, SQRT = 9,
            RSQRT = 10, RCP = 11, SIN = 12, COS = 13, LG2 = 14, EX2 = 15, TANH = 16, COPYSIGN = 17, DIV_APPROX = 18,
            RCP_APPROX = 19, DIV_FULL = 20;

    private static final double LN2 = Math.log(2);

    /**
     * One arithmetic instruction on .f32 or .f64: {@code d = op(a, b, c)} with rounding mode
     * {@code rnd} ({@link FloatMath}), {@code .ftz} (f32 subnormal inputs and results become zero of
     * the same sign), {@code .sat} (result clamped to [0, 1], NaN to 0) and, for min/max,
     * {@code .NaN} (any NaN input gives the canonical NaN; without it a NaN input is ignored).
     */
    static final class Arith extends Op {
        final int kind, d, a, b, c, rnd;
        final boolean f64, ftz, sat, nan;
        /** {@code min/max.xorsign.abs} (.f32): |result| = min/max(|a|, |b|), sign = sign(a) ^ sign(b). */
        boolean xorsign;

        Arith(int kind, boolean f64, int rnd, boolean ftz, boolean sat, boolean nan, int d, int a, int b, int c) {
            super(NORMAL);
            this.kind = kind;
            this.f64 = f64;
            this.rnd = rnd;
            this.ftz = ftz;
            this.sat = sat;
            this.nan = nan;
            this.d = d;
            this.a = a;
            this.b = b;
            this.c = c;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            final int d = this.d, a = this.a, b = this.b, c = this.c;
            if (f64) {
                for (int x = m; x != 0; x &= x - 1) {
                    int l = Integer.numberOfTrailingZeros(x);
                    double A = Double.longBitsToDouble(r[a + l]);
                    double B = b >= 0 ? Double.longBitsToDouble(r[b + l]) : 0, C = c >= 0 ? Double.longBitsToDouble(r[c + l]) : 0;
                    r[d + l] = f64(A, B, C, r[a + l], b >= 0 ? r[b + l] : 0, c >= 0 ? r[c + l] : 0);
                }
                return;
            }
            if (m == -1 && !ftz && !sat && rnd == RN && (kind == ADD || kind == MUL || kind == FMA)) {
                // a whole warp: counted loops the JIT unrolls (same results as the paths below)
                switch (kind) {
                    case ADD -> {
                        for (int l = 0; l < 32; l++) {
                            float v = Float.intBitsToFloat((int) r[a + l]) + Float.intBitsToFloat((int) r[b + l]);
                            r[d + l] = v != v ? FloatMath.CANONICAL_NAN_F32 : Float.floatToRawIntBits(v) & 0xFFFF_FFFFL;
                        }
                    }
                    case MUL -> {
                        for (int l = 0; l < 32; l++) {
                            float v = Float.intBitsToFloat((int) r[a + l]) * Float.intBitsToFloat((int) r[b + l]);
                            r[d + l] = v != v ? FloatMath.CANONICAL_NAN_F32 : Float.floatToRawIntBits(v) & 0xFFFF_FFFFL;
                        }
                    }
                    default -> {
                        for (int l = 0; l < 32; l++) {
                            float v = Math.fma(Float.intBitsToFloat((int) r[a + l]), Float.intBitsToFloat((int) r[b + l]), Float.intBitsToFloat((int) r[c + l]));
                            r[d + l] = v != v ? FloatMath.CANONICAL_NAN_F32 : Float.floatToRawIntBits(v) & 0xFFFF_FFFFL;
                        }
                    }
                }
                return;
            }
            if (kind == ADD && !ftz && !sat && rnd == RN) {
                for (int x = m; x != 0; x &= x - 1) {
                    int l = Integer.numberOfTrailingZeros(x);
                    float v = Float.intBitsToFloat((int) r[a + l]) + Float.intBitsToFloat((int) r[b + l]);
                    r[d + l] = v != v ? FloatMath.CANONICAL_NAN_F32 : Float.floatToRawIntBits(v) & 0xFFFF_FFFFL;
                }
                return;
            }
            if (kind == FMA && !ftz && !sat && rnd == RN) {
                for (int x = m; x != 0; x &= x - 1) {
                    int l = Integer.numberOfTrailingZeros(x);
                    float v = Math.fma(Float.intBitsToFloat((int) r[a + l]), Float.intBitsToFloat((int) r[b + l]), Float.intBitsToFloat((int) r[c + l]));
                    r[d + l] = v != v ? FloatMath.CANONICAL_NAN_F32 : Float.floatToRawIntBits(v) & 0xFFFF_FFFFL;
                }
                return;
            }
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                r[d + l] = f32((int) r[a + l], b >= 0 ? (int) r[b + l] : 0, c >= 0 ? (int) r[c + l] : 0);
            }
        }

        long f32(int ab, int bb, int cb) {
            float A = Float.intBitsToFloat(ab), B = Float.intBitsToFloat(bb), C = Float.intBitsToFloat(cb);
            if (ftz) {
                A = FloatMath.ftz(A);
                B = FloatMath.ftz(B);
                C = FloatMath.ftz(C);
            }
            float v;
            switch (kind) {
                case ADD -> v = FloatMath.add(A, B, rnd);
                case SUB -> v = FloatMath.add(A, -B, rnd);
                case MUL -> v = FloatMath.mul(A, B, rnd);
                case FMA -> v = FloatMath.fma(A, B, C, rnd);
                case DIV -> v = FloatMath.div(A, B, rnd);
                case DIV_FULL -> v = A / B;
                case DIV_APPROX -> {
                    // a * (1/b); for 2^126 < |b| < 2^128 the reciprocal is flushed: 0, or NaN for an infinite a
                    // (PTX ISA 9.0, 9.7.3.8)
                    float ab2 = Math.abs(B);
                    if (ab2 > 0x1p126f && ab2 <= Float.MAX_VALUE) v = Float.isInfinite(A) ? Float.NaN : A * Math.copySign(0f, B);
                    else v = A / B;
                }
                case ABS -> {
                    // a NaN becomes the canonical NaN (measured on an H200)
                    return A != A ? FloatMath.CANONICAL_NAN_F32 : (Float.floatToRawIntBits(A) & 0x7FFF_FFFF) & 0xFFFF_FFFFL;
                }
                case NEG -> {
                    return A != A ? FloatMath.CANONICAL_NAN_F32 : (Float.floatToRawIntBits(A) ^ 0x8000_0000) & 0xFFFF_FFFFL;
                }
                case MIN, MAX -> {
                    boolean neg = xorsign && ((ab ^ bb) < 0);
                    if (xorsign) {
                        A = Math.abs(A);
                        B = Math.abs(B);
                    }
                    boolean an = A != A, bn = B != B;
                    if ((an && bn) || (nan && (an || bn))) return FloatMath.CANONICAL_NAN_F32;
                    v = an ? B : bn ? A : kind == MIN ? Math.min(A, B) : Math.max(A, B);
                    if (neg) v = -v;
                }
                case SQRT -> v = FloatMath.sqrt(A, rnd);
                case RSQRT -> v = (float) (1.0 / Math.sqrt(A));
                case RCP -> v = FloatMath.div(1f, A, rnd);
                case RCP_APPROX -> v = 1f / A;
                case SIN -> v = (float) sinTurns(revolutions(A));
                case COS -> v = (float) sinTurns(revolutions(A) == revolutions(A) ? 0.25 - Math.abs(revolutions(A)) : Double.NaN);
                case LG2 -> v = (float) (Math.log(A) / LN2);
                case EX2 -> v = (float) Math.pow(2, A);
                case TANH -> v = (float) Math.tanh(A);
                case COPYSIGN -> {
                    return (Float.floatToRawIntBits(B) & 0x7FFF_FFFF | Float.floatToRawIntBits(A) & 0x8000_0000) & 0xFFFF_FFFFL;
                }
                default -> throw new IllegalStateException("float op " + kind);
            }
            if (ftz) {
                // .ftz (recorded on an H200, conformance sweep): div (also .full and .approx) flushes a result whose exact
                // value is below the smallest normal (div.rm.ftz of -0x1p-126 by 1.0000001 gives -0, although it rounds
                // to -0x1p-126);
                // add, sub, mul, fma and mad round a result near the subnormal range as if the exponent had no lower
                // bound and flush it if that is below the smallest normal (FloatMath.roundFtz)
                if ((kind == DIV || kind == DIV_FULL || kind == DIV_APPROX) && Math.abs(v) <= Float.MIN_NORMAL && v == v) {
                    if (Math.abs((double) A) < Float.MIN_NORMAL * Math.abs((double) B)) v = Math.copySign(0f, v);
                    v = FloatMath.ftz(v);
                } else if (Math.abs(v) <= Float.MIN_NORMAL && v == v && kind <= FMA) {
                    double s, err;
                    switch (kind) {
                        case ADD, SUB -> {
                            double addend = kind == SUB ? -(double) B : B;
                            s = (double) A + addend;
                            err = FloatMath.twoSumErr(A, addend, s);
                        }
                        case MUL -> {
                            s = (double) A * (double) B;
                            err = 0;
                        }
                        default -> {
                            double p = (double) A * (double) B;
                            s = p + C;
                            err = FloatMath.twoSumErr(p, C, s);
                        }
                    }
                    if (s == 0 && err == 0) v = FloatMath.ftz(v); // an exact zero keeps the sign IEEE rounding gave it
                    else v = FloatMath.roundFtz(s, err, rnd);
                } else {
                    v = FloatMath.ftz(v);
                }
            }
            if (sat) v = FloatMath.sat(v);
            return FloatMath.bits(v);
        }

        /**
         * rcp/rsqrt.approx.ftz.f64 as an H200 computes them: from the upper 32 bits of the operand only (a
         * NaN whose payload is in the low word is an infinity), subnormal operands and results flushed, the
         * result's lower 32 bits zero.
         */
        private static long approxHigh(long ab, boolean rsqrt) {
            double x = Double.longBitsToDouble(ab & 0xFFFF_FFFF_0000_0000L);
            if (Math.abs(x) < Double.MIN_NORMAL) x = Math.copySign(0.0, x);
            double v = rsqrt ? 1.0 / Math.sqrt(x) : 1.0 / x;
            if (Math.abs(v) < Double.MIN_NORMAL) v = Math.copySign(0.0, v);
            long bits = Double.doubleToRawLongBits(v);
            return v != v ? 0xFFF8_0000_0000_0000L : Double.isInfinite(v) ? bits : (bits + 0x8000_0000L) & 0xFFFF_FFFF_0000_0000L;
        }

        private static final double TWO_PI = 2 * Math.PI;

        /**
         * sin/cos.approx.f32 reduce their operand like the hardware: multiplied by 1/(2π) in single
         * precision (subnormals flushed), then the fraction of a turn in fixed point; huge operands become
         * whole turns (sin 0, cos 1), as on an H200. A model, not NVIDIA's algorithm: the distance from the
         * H200 is measured by ConformanceTest (docs/support.md).
         */
        private static double revolutions(float a) {
            float t = FloatMath.ftz(FloatMath.ftz(a) * 0.15915494f);
            if (Float.isInfinite(t) || t != t) return Double.NaN;
            double f = t - Math.rint(t);
            f = Math.copySign(Math.floor(Math.abs(f) * Q) / Q, f); // the fixed-point fraction of a turn
            return f == 0 ? Math.copySign(0.0, t) : f;
        }

        /** Resolution of the reduced operand: 2^-24 of a turn (closest to an H200 of 2^-24, 2^-28, 2^-32). */
        private static final double Q = 0x1p24;

        /** sin(2π f) for f in [-0.5, 0.5], reduced to a quarter turn first (exact: sin of a half turn is 0). */
        private static double sinTurns(double f) {
            if (f > 0.25) f = 0.5 - f;
            else if (f < -0.25) f = -0.5 - f;
            return Math.sin(TWO_PI * f);
        }

        long f64(double A, double B, double C, long ab, long bb, long cb) {
            double v;
            if (A != A || B != B || C != C) {
                // NaN operands propagate quieted, sign and payload kept (measured on an H200, ConformanceTest):
                // add/sub/mul/fma take b first, then c, then a (sub does not negate a NaN b), div a then b;
                // abs and neg give the NaN quieted, sign kept; min/max of two NaNs give b
                switch (kind) {
                    case ADD, SUB, MUL, FMA -> {
                        return (B != B ? bb : C != C ? cb : ab) | 0x0008_0000_0000_0000L;
                    }
                    case DIV -> {
                        return (A != A ? ab : bb) | 0x0008_0000_0000_0000L;
                    }
                    case ABS, NEG -> {
                        return ab | 0x0008_0000_0000_0000L;
                    }
                    case MIN, MAX -> {
                        if (A != A && B != B) return bb | 0x0008_0000_0000_0000L;
                    }
                    default -> {}
                }
            }
            switch (kind) {
                case ADD -> v = FloatMath.add(A, B, rnd);
                case SUB -> v = FloatMath.add(A, -B, rnd);
                case MUL -> v = FloatMath.mul(A, B, rnd);
                case FMA -> v = FloatMath.fma(A, B, C, rnd);
                case DIV -> v = FloatMath.div(A, B, rnd);
                case DIV_APPROX, DIV_FULL -> v = A / B;
                case ABS -> {
                    return ab & Long.MAX_VALUE;
                }
                case NEG -> {
                    return ab ^ Long.MIN_VALUE;
                }
                case MIN, MAX -> {
                    boolean an = A != A, bn = B != B;
                    if ((an && bn) || (nan && (an || bn))) return Double.doubleToRawLongBits(Double.NaN);
                    v = an ? B : bn ? A : kind == MIN ? Math.min(A, B) : Math.max(A, B);
                }
                case SQRT -> v = FloatMath.sqrt(A, rnd);
                case RSQRT -> {
                    if (ftz) return approxHigh(ab, true);
                    v = 1.0 / Math.sqrt(A);
                }
                case RCP -> v = FloatMath.div(1.0, A, rnd);
                case RCP_APPROX -> {
                    if (ftz) return approxHigh(ab, false);
                    v = 1.0 / A;
                }
                case SIN -> v = Math.sin(A);
                case COS -> v = Math.cos(A);
                case LG2 -> v = Math.log(A) / LN2;
                case EX2 -> v = Math.pow(2, A);
                case TANH -> v = Math.tanh(A);
                case COPYSIGN -> {
                    return (bb & Long.MAX_VALUE) | (ab & Long.MIN_VALUE);
                }
                default -> throw new IllegalStateException("float op " + kind);
            }
            if (sat) v = FloatMath.sat(v);
            return Double.doubleToRawLongBits(v);
        }
    }

    // ------------------------------------------------------------------ half precision (9.7.4)

    /**
     * Half-precision arithmetic (PTX ISA 9.0, 9.7.4): .f16 and .bf16 scalars in the low 16 bits,
     * .f16x2 and .bf16x2 as two independent halves of 32 bits. Each result is computed exactly in
     * double precision (products and sums of 11- or 8-bit significands are exact there) and rounded
     * once to the format, to nearest even; {@code .ftz} flushes subnormal inputs and results,
     * {@code .sat} clamps to [0, 1], {@code .relu} clamps negative results to 0; NaN results are
     * the canonical NaN 0x7fff.
     */
    static final class Half extends Op {
        final int kind, d, a, b, c;
        final boolean bf, pair, ftz, sat, relu, nan;
        /** {@code min/max.xorsign.abs}: |result| = min/max(|a|, |b|), sign = sign(a) ^ sign(b). */
        boolean xorsign;

        Half(int kind, boolean bf, boolean pair, boolean ftz, boolean sat, boolean relu, boolean nan, int d, int a, int b, int c) {
            super(NORMAL);
            this.kind = kind;
            this.bf = bf;
            this.pair = pair;
            this.ftz = ftz;
            this.sat = sat;
            this.relu = relu;
            this.nan = nan;
            this.d = d;
            this.a = a;
            this.b = b;
            this.c = c;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long A = r[a + l], B = b >= 0 ? r[b + l] : 0, C = c >= 0 ? r[c + l] : 0;
                long lo = one((int) A & 0xFFFF, (int) B & 0xFFFF, (int) C & 0xFFFF);
                if (!pair) {
                    r[d + l] = lo;
                } else {
                    long hi = one((int) (A >>> 16) & 0xFFFF, (int) (B >>> 16) & 0xFFFF, (int) (C >>> 16) & 0xFFFF);
                    r[d + l] = (hi << 16) | lo;
                }
            }
        }

        private double value(int h) {
            double v = bf ? FloatMath.fromBf16(h) : FloatMath.fromHalf(h);
            return ftz && isSubnormal(h) ? Math.copySign(0.0, v) : v;
        }

        private boolean isSubnormal(int h) {
            int expMask = bf ? 0x7F80 : 0x7C00;
            return (h & expMask) == 0 && (h & ~expMask & 0x7FFF) != 0;
        }

        private boolean isNaN(int h) {
            int expMask = bf ? 0x7F80 : 0x7C00;
            return (h & expMask) == expMask && (h & ~expMask & 0x7FFF) != 0;
        }

        private long one(int ha, int hb, int hc) {
            switch (kind) {
                // a NaN becomes 0x7fff, .ftz flushes a subnormal input first (measured on an H200)
                case NEG -> {
                    if (isNaN(ha)) return 0x7FFF;
                    return (ftz && isSubnormal(ha) ? ha & 0x8000 : ha) ^ 0x8000;
                }
                case ABS -> {
                    if (isNaN(ha)) return 0x7FFF;
                    return (ftz && isSubnormal(ha) ? 0 : ha) & 0x7FFF;
                }
                default -> {}
            }
            double A = value(ha), B = value(hb), C = value(hc);
            double err = 0;
            double v = switch (kind) {
                case ADD -> {
                    double t = A + B;
                    err = FloatMath.twoSumErr(A, B, t);
                    yield t;
                }
                case SUB -> {
                    double t = A - B;
                    err = FloatMath.twoSumErr(A, -B, t);
                    yield t;
                }
                case MUL -> A * B;
                case FMA -> {
                    double p = A * B, t = p + C; // the product of two halves is exact in double
                    err = Double.isFinite(t) ? FloatMath.twoSumErr(p, C, t) : 0;
                    yield t;
                }
                case MIN, MAX -> {
                    if (xorsign) {
                        boolean neg = ((ha ^ hb) & 0x8000) != 0;
                        A = Math.abs(A);
                        B = Math.abs(B);
                        boolean an = A != A, bn = B != B;
                        if ((an && bn) || (nan && (an || bn))) yield Double.NaN;
                        double m = an ? B : bn ? A : kind == MIN ? Math.min(A, B) : Math.max(A, B);
                        yield neg ? -m : m;
                    }
                    boolean an = A != A, bn = B != B;
                    if ((an && bn) || (nan && (an || bn))) yield Double.NaN;
                    yield an ? B : bn ? A : kind == MIN ? Math.min(A, B) : Math.max(A, B);
                }
                case EX2 -> Math.pow(2, A);
                case TANH -> Math.tanh(A);
                default -> throw new IllegalStateException("half op " + kind);
            };
            if (relu && (v < 0 || v == 0)) v = 0;
            if (sat) v = FloatMath.sat(v);
            double min = bf ? 0x1p-126 : 0x1p-14;
            if (ftz && v != 0 && Math.abs(v) < 2 * min && (kind == ADD || kind == SUB || kind == MUL || kind == FMA)) {
                // .ftz: rounded as if the exponent had no lower bound, then flushed if below the smallest normal
                // (recorded on an H200: mul.rn.ftz.f16 0x3bb3 * 0x8428 gives 0x8400, fma.rn.ftz.f16 -0.5 * 0x07ff + 0
                // gives -0: its exact value is representable just below the smallest normal)
                int k = bf ? 126 : 14;
                int h = round(Math.scalb(v, k), Math.scalb(err, k), bf);
                double back = Math.scalb(val(h & 0x7FFF, bf), -k);
                if (back < min) return Math.copySign(1.0, v) < 0 ? 0x8000 : 0;
                return round(Math.copySign(back, v), bf);
            }
            int h = round(v, err, bf);
            if (ftz && isSubnormal(h)) h &= 0x8000;
            return h;
        }

        /** A double to half or bfloat16 bits, rounded to nearest even; NaN is 0x7fff. */
        static int round(double v, boolean bf) {
            return round(v, 0, bf);
        }

        /**
         * The exact value {@code v + err} ({@code v} the nearest double, {@code err} what it lost) to half or
         * bfloat16 bits, rounded once to nearest even; NaN is 0x7fff.
         */
        static int round(double v, double err, boolean bf) {
            if (v != v) return 0x7FFF;
            if (err != 0 && Double.isFinite(v) && v != 0) {
                // v is the double nearest to the exact value v + err: both round alike unless v is exactly the midpoint
                // between two neighbours of the format (midpoints are doubles), where the lost part decides: then move
                // v off the midpoint by far less than an ulp of the format, toward the exact value
                double t = Math.abs(v);
                int h = roundNE(t, bf) & 0x7FFF;
                double near = val(h, bf);
                if (near != t) {
                    int o = t > near ? h + 1 : h - 1;
                    if (o >= 0 && t == (near + val(o, bf)) / 2) {
                        double n = (err > 0) == (v > 0) ? Math.nextUp(t) : Math.nextDown(t);
                        v = Math.copySign(n, v);
                    }
                }
            }
            return roundNE(v, bf);
        }

        private static int roundNE(double v, boolean bf) {
            if (v != v) return 0x7FFF;
            int sign = Math.copySign(1.0, v) < 0 ? 0x8000 : 0;
            double mag = Math.abs(v);
            int inf = bf ? 0x7F80 : 0x7C00;
            double maxFinite = bf ? FloatMath.fromBf16(0x7F7F) : 65504.0;
            double halfUlpAboveMax = bf ? Math.scalb(1.0, 127 - 8) : 16.0;
            if (mag >= maxFinite + halfUlpAboveMax) return sign | inf;
            int h = (bf ? FloatMath.toBf16((float) mag, FloatMath.RN) : Float.floatToFloat16((float) mag) & 0xFFFF) & 0x7FFF;
            int best = h;
            double bestErr = Math.abs(val(h, bf) - mag);
            for (int cand : new int[] {h - 1, h + 1}) {
                if (cand < 0 || cand >= inf) continue;
                double err = Math.abs(val(cand, bf) - mag);
                if (err < bestErr || (err == bestErr && (cand & 1) == 0)) {
                    best = cand;
                    bestErr = err;
                }
            }
            return sign | best;
        }

        private static double val(int h, boolean bf) {
            return bf ? FloatMath.fromBf16(h) : FloatMath.fromHalf(h);
        }
    }

    // ------------------------------------------------------------------ comparison

    static final int EQ = 0, NE = 1, LT = 2, LE = 3, GT = 4, GE = 5, LO = 6, LS = 7, HI = 8, HS = 9, EQU = 10, NEU = 11,
            LTU = 12, LEU = 13, GTU = 14, GEU = 15, NUM = 16, NAN = 17;

    /** The comparison operator of a setp/set comparison ({@link Mod.Compare#LT} → {@link #LT}). */
    static int cmp(Mod.Compare c) {
        return switch (c) {
            case EQ -> EQ; case NE -> NE; case LT -> LT; case LE -> LE; case GT -> GT; case GE -> GE;
            case LO -> LO; case LS -> LS; case HI -> HI; case HS -> HS; case EQU -> EQU; case NEU -> NEU;
            case LTU -> LTU; case LEU -> LEU; case GTU -> GTU; case GEU -> GEU; case NUM -> NUM; case NAN -> NAN;
        };
    }

    static final int BOOL_NONE = 0, BOOL_AND = 1, BOOL_OR = 2, BOOL_XOR = 3;

    /** A half-precision value (16 bits of {@code h}) with a subnormal flushed to zero of the same sign. */
    static long ftzHalf(long h, boolean bf) {
        int expMask = bf ? 0x7F80 : 0x7C00;
        return (h & expMask) == 0 ? h & 0x8000 : h & 0xFFFF;
    }

    /** Operand kinds of a comparison: integer (with width and signedness) or a float format. */
    static final int K_INT = 0, K_F32 = 1, K_F64 = 2, K_F16 = 3, K_BF16 = 4;

    /** One comparison {@code a cmp b} on raw slot values. */
    static boolean test(int cmp, int kind, int bits, boolean signed, boolean ftz, long x, long y) {
        if (kind == K_INT) {
            int c;
            boolean unsignedOrder = cmp == LO || cmp == LS || cmp == HI || cmp == HS || !signed;
            if (unsignedOrder && bits == 64) c = Long.compareUnsigned(x, y);
            else if (unsignedOrder) c = Long.compare(IntOps.ext(x, bits, false), IntOps.ext(y, bits, false));
            else c = Long.compare(IntOps.ext(x, bits, true), IntOps.ext(y, bits, true));
            return switch (cmp) {
                case EQ -> c == 0;
                case NE -> c != 0;
                case LT, LO -> c < 0;
                case LE, LS -> c <= 0;
                case GT, HI -> c > 0;
                default -> c >= 0;
            };
        }
        double A, B;
        switch (kind) {
            case K_F64 -> { A = Double.longBitsToDouble(x); B = Double.longBitsToDouble(y); }
            // .ftz on half-precision comparisons flushes subnormal operands too (set/setp.ftz on .f16 and .f16x2,
            // recorded on an H200: set.eq.ftz.f16.f16 0x0001, 0x0000 is true)
            case K_F16 -> { A = FloatMath.fromHalf(ftz ? ftzHalf(x, false) : x); B = FloatMath.fromHalf(ftz ? ftzHalf(y, false) : y); }
            case K_BF16 -> { A = FloatMath.fromBf16(ftz ? ftzHalf(x, true) : x); B = FloatMath.fromBf16(ftz ? ftzHalf(y, true) : y); }
            default -> {
                float a = Float.intBitsToFloat((int) x), b = Float.intBitsToFloat((int) y);
                if (ftz) { a = FloatMath.ftz(a); b = FloatMath.ftz(b); }
                A = a;
                B = b;
            }
        }
        boolean un = A != A || B != B;
        return switch (cmp) {
            case EQ -> !un && A == B;
            case NE -> !un && A != B;
            case LT -> !un && A < B;
            case LE -> !un && A <= B;
            case GT -> !un && A > B;
            case GE -> !un && A >= B;
            case EQU -> un || A == B;
            case NEU -> un || A != B;
            case LTU -> un || A < B;
            case LEU -> un || A <= B;
            case GTU -> un || A > B;
            case GEU -> un || A >= B;
            case NUM -> !un;
            default -> un; // NAN
        };
    }

    static int combine(int bool, int t, int c) {
        return switch (bool) {
            case BOOL_AND -> t & c;
            case BOOL_OR -> t | c;
            case BOOL_XOR -> t ^ c;
            default -> t;
        };
    }

    /**
     * setp (PTX ISA 9.7.6.1): {@code p = (a cmp b) bool c}, {@code q = !(a cmp b) bool c}
     * ({@code dq} -1 without {@code |q}); {@code c} is a predicate index or -1, negated with {@code cNeg}.
     */
    static final class Setp extends Op {
        final int cmp, kind, bits, bool, dp, dq, a, b, c;
        final boolean signed, ftz, cNeg;

        Setp(int cmp, int kind, int bits, boolean signed, boolean ftz, int bool, int dp, int dq, int a, int b, int c, boolean cNeg) {
            super(NORMAL);
            this.cmp = cmp;
            this.kind = kind;
            this.bits = bits;
            this.signed = signed;
            this.ftz = ftz;
            this.bool = bool;
            this.dp = dp;
            this.dq = dq;
            this.a = a;
            this.b = b;
            this.c = c;
            this.cNeg = cNeg;
            boolean unsignedCmp = cmp >= LO && cmp <= HS || (!signed && cmp <= GE);
            if (kind == K_INT && bits == 32 && (unsignedCmp || signed && cmp <= GE)) {
                fast = FAST_INT32;
                fastCmp = cmp >= LO ? cmp - LO + LT : cmp;
                // unsigned order = signed order of the values with their top bit flipped
                fastBias = unsignedCmp ? Integer.MIN_VALUE : 0;
            } else if (kind == K_F32 && !ftz && cmp <= GE) {
                fast = FAST_F32;
                fastCmp = cmp;
                fastBias = 0;
            } else {
                fast = fastCmp = fastBias = 0;
            }
        }

        private static final int FAST_INT32 = 1, FAST_F32 = 2;
        /** Whole-warp paths: {@link #FAST_INT32} or {@link #FAST_F32} (else 0), comparison EQ..GE, and the int bias. */
        private final int fast, fastCmp, fastBias;

        /** {@code a cmp b} of 32-bit integers (the values xor {@link #fastBias}) for all 32 lanes, as a mask. */
        private int int32All(long[] r) {
            final int a = this.a, b = this.b, k = fastBias;
            int t = 0;
            switch (fastCmp) {
                case EQ -> { for (int l = 0; l < 32; l++) t |= ((int) r[a + l] == (int) r[b + l] ? 1 : 0) << l; }
                case NE -> { for (int l = 0; l < 32; l++) t |= ((int) r[a + l] != (int) r[b + l] ? 1 : 0) << l; }
                case LT -> { for (int l = 0; l < 32; l++) t |= (((int) r[a + l] ^ k) < ((int) r[b + l] ^ k) ? 1 : 0) << l; }
                case LE -> { for (int l = 0; l < 32; l++) t |= (((int) r[a + l] ^ k) <= ((int) r[b + l] ^ k) ? 1 : 0) << l; }
                case GT -> { for (int l = 0; l < 32; l++) t |= (((int) r[a + l] ^ k) > ((int) r[b + l] ^ k) ? 1 : 0) << l; }
                default -> { for (int l = 0; l < 32; l++) t |= (((int) r[a + l] ^ k) >= ((int) r[b + l] ^ k) ? 1 : 0) << l; }
            }
            return t;
        }

        /** {@code a cmp b} for the ordered comparisons EQ..GE of .f32 values (PTX ISA 9.0, setp: NE is false when either is NaN). */
        private static boolean f32Compare(int cmp, float a, float b) {
            return switch (cmp) {
                case EQ -> a == b;
                case NE -> a != b && a == a && b == b;
                case LT -> a < b;
                case LE -> a <= b;
                case GT -> a > b;
                default -> a >= b;
            };
        }

        /** {@code a cmp b} of .f32 values (ordered; NE false for NaN) for all 32 lanes, as a mask. */
        private int f32All(long[] r) {
            final int a = this.a, b = this.b;
            int t = 0;
            for (int l = 0; l < 32; l++) {
                boolean v = f32Compare(fastCmp, Float.intBitsToFloat((int) r[a + l]), Float.intBitsToFloat((int) r[b + l]));
                t |= (v ? 1 : 0) << l;
            }
            return t;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            final int[] p = w.p;
            int t = 0;
            boolean unsignedCmp = cmp >= LO && cmp <= HS || (!signed && cmp <= GE);
            if (m == -1 && fast == FAST_INT32) {
                t = int32All(r);
            } else if (m == -1 && fast == FAST_F32) {
                t = f32All(r);
            } else if (kind == K_INT && bits == 32 && unsignedCmp) {
                final int c = cmp >= LO ? cmp - LO + LT : cmp; // lo/ls/hi/hs as lt/le/gt/ge
                for (int x = m; x != 0; x &= x - 1) {
                    int l = Integer.numberOfTrailingZeros(x);
                    int k = Integer.compareUnsigned((int) r[a + l], (int) r[b + l]);
                    boolean v = switch (c) {
                        case EQ -> k == 0;
                        case NE -> k != 0;
                        case LT -> k < 0;
                        case LE -> k <= 0;
                        case GT -> k > 0;
                        default -> k >= 0;
                    };
                    if (v) t |= 1 << l;
                }
            } else if (kind == K_F32 && !ftz && cmp <= GE) {
                for (int x = m; x != 0; x &= x - 1) {
                    int l = Integer.numberOfTrailingZeros(x);
                    if (f32Compare(cmp, Float.intBitsToFloat((int) r[a + l]), Float.intBitsToFloat((int) r[b + l]))) t |= 1 << l;
                }
            } else if (kind == K_INT && bits == 32 && signed && cmp <= GE) {
                for (int x = m; x != 0; x &= x - 1) {
                    int l = Integer.numberOfTrailingZeros(x);
                    int A = (int) r[a + l], B = (int) r[b + l];
                    boolean v = switch (cmp) {
                        case EQ -> A == B;
                        case NE -> A != B;
                        case LT -> A < B;
                        case LE -> A <= B;
                        case GT -> A > B;
                        default -> A >= B;
                    };
                    if (v) t |= 1 << l;
                }
            } else {
                for (int x = m; x != 0; x &= x - 1) {
                    int l = Integer.numberOfTrailingZeros(x);
                    if (test(cmp, kind, bits, signed, ftz, r[a + l], r[b + l])) t |= 1 << l;
                }
            }
            int cv = c >= 0 ? (cNeg ? ~p[c] : p[c]) : 0;
            int P = combine(bool, t, cv), Q = combine(bool, ~t, cv);
            if (dp >= 0) p[dp] = (p[dp] & ~m) | (P & m);
            if (dq >= 0) p[dq] = (p[dq] & ~m) | (Q & m);
        }
    }

    /**
     * setp on .f16x2/.bf16x2 (PTX ISA 9.0, 9.7.7.1): {@code p = (a.lo cmp b.lo) bool c}, {@code q = (a.hi cmp b.hi) bool c}.
     */
    static final class SetpX2 extends Op {
        final int cmp, kind, bool, dp, dq, a, b, c;
        final boolean ftz, cNeg;

        SetpX2(int cmp, int kind, boolean ftz, int bool, int dp, int dq, int a, int b, int c, boolean cNeg) {
            super(NORMAL);
            this.cmp = cmp;
            this.kind = kind;
            this.ftz = ftz;
            this.bool = bool;
            this.dp = dp;
            this.dq = dq;
            this.a = a;
            this.b = b;
            this.c = c;
            this.cNeg = cNeg;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            final int[] p = w.p;
            int lo = 0, hi = 0;
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long A = r[a + l], B = r[b + l];
                if (test(cmp, kind, 16, false, ftz, A & 0xFFFF, B & 0xFFFF)) lo |= 1 << l;
                if (test(cmp, kind, 16, false, ftz, A >>> 16 & 0xFFFF, B >>> 16 & 0xFFFF)) hi |= 1 << l;
            }
            int cv = c >= 0 ? (cNeg ? ~p[c] : p[c]) : 0;
            int P = combine(bool, lo, cv), Q = combine(bool, hi, cv);
            if (dp >= 0) p[dp] = (p[dp] & ~m) | (P & m);
            if (dq >= 0) p[dq] = (p[dq] & ~m) | (Q & m);
        }
    }

    /**
     * set on half precision (PTX ISA 9.0, §9.7.4.x "Half Precision Comparison Instructions: set"):
     * {@code set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, {!}c}} with a .f16/.bf16 or .f16x2/.bf16x2
     * source, compared element by element (the low half first); each element of {@code d} is, where
     * {@code (a cmp b) BoolOp c} holds, 1.0 of a half dtype (0x3C00 for .f16/.f16x2, 0x3F80 for
     * .bf16/.bf16x2) or all ones of an integer dtype's element width, else 0.
     *
     * @param elements 1 for a scalar source, 2 for an x2 source
     * @param one      the 16-bit pattern of "true" for a half dtype, or -1 for an integer dtype
     * @param dbits    width of the integer dtype (16 or 32), split evenly over the elements
     */
    static final class SetHalf extends Op {
        final int cmp, kind, bool, d, a, b, c, elements, one, dbits;
        final boolean ftz, cNeg;

        SetHalf(int cmp, int kind, boolean ftz, int bool, int d, int a, int b, int c, boolean cNeg, int elements, int one, int dbits) {
            super(NORMAL);
            this.cmp = cmp;
            this.kind = kind;
            this.ftz = ftz;
            this.bool = bool;
            this.d = d;
            this.a = a;
            this.b = b;
            this.c = c;
            this.cNeg = cNeg;
            this.elements = elements;
            this.one = one;
            this.dbits = dbits;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            int cv = c >= 0 ? (cNeg ? ~w.p[c] : w.p[c]) : 0;
            int ebits = elements == 2 ? 16 : dbits;
            long t = one >= 0 ? one : (ebits == 64 ? -1L : (1L << ebits) - 1);
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long A = r[a + l], B = r[b + l], v = 0;
                for (int e = 0; e < elements; e++) {
                    int bit = test(cmp, kind, 16, false, ftz, A >>> (16 * e) & 0xFFFF, B >>> (16 * e) & 0xFFFF) ? 1 << l : 0;
                    if ((combine(bool, bit, cv) & (1 << l)) != 0) v |= t << (16 * e);
                }
                r[d + l] = v;
            }
        }
    }

    /** set (PTX ISA 9.7.6.2): {@code d = ((a cmp b) bool c) ? (1.0f or 0xFFFFFFFF) : 0}. */
    static final class Set extends Op {
        final int cmp, kind, bits, bool, d, a, b, c;
        final boolean signed, ftz, cNeg;
        /** The destination's "true": all ones for .u32/.s32, 1.0 for .f32 (0x3F800000), .f16 (0x3C00) or .bf16 (0x3F80). */
        final long one;

        Set(int cmp, int kind, int bits, boolean signed, boolean ftz, int bool, int d, int a, int b, int c, boolean cNeg, boolean floatResult) {
            this(cmp, kind, bits, signed, ftz, bool, d, a, b, c, cNeg, floatResult ? Float.floatToRawIntBits(1f) : 0xFFFF_FFFFL);
        }

        /**
         * {@code set} with the value {@code one} for true: also a half-precision destination of a non-half comparison
         * ({@code set.lt.f16.s32}: 1.0 as .f16, PTX ISA 9.0, 9.7.6; as on the H200, conformance sweep).
         */
        Set(int cmp, int kind, int bits, boolean signed, boolean ftz, int bool, int d, int a, int b, int c, boolean cNeg, long one) {
            super(NORMAL);
            this.cmp = cmp;
            this.kind = kind;
            this.bits = bits;
            this.signed = signed;
            this.ftz = ftz;
            this.bool = bool;
            this.d = d;
            this.a = a;
            this.b = b;
            this.c = c;
            this.cNeg = cNeg;
            this.one = one;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            int cv = c >= 0 ? (cNeg ? ~w.p[c] : w.p[c]) : 0;
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                int t = test(cmp, kind, bits, signed, ftz, r[a + l], r[b + l]) ? -1 : 0;
                boolean v = (combine(bool, t, cv) >>> l & 1) != 0;
                r[d + l] = v ? one : 0;
            }
        }
    }

    /** selp (PTX ISA 9.7.6.3): {@code d = c ? a : b} with predicate {@code c}. */
    static final class Selp extends Op {
        final int d, a, b, c;
        final boolean cNeg;

        Selp(int d, int a, int b, int c, boolean cNeg) {
            super(NORMAL);
            this.d = d;
            this.a = a;
            this.b = b;
            this.c = c;
            this.cNeg = cNeg;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            int cv = cNeg ? ~w.p[c] : w.p[c];
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                r[d + l] = ((cv >>> l) & 1) != 0 ? r[a + l] : r[b + l];
            }
        }
    }

    /** slct (PTX ISA 9.7.6.4): {@code d = (c >= 0) ? a : b} with {@code c} .s32 or .f32. */
    static final class Slct extends Op {
        final int d, a, b, c;
        final boolean cFloat, ftz;

        Slct(int d, int a, int b, int c, boolean cFloat, boolean ftz) {
            super(NORMAL);
            this.d = d;
            this.a = a;
            this.b = b;
            this.c = c;
            this.cFloat = cFloat;
            this.ftz = ftz;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                boolean ge;
                if (cFloat) {
                    float f = Float.intBitsToFloat((int) r[c + l]);
                    if (ftz) f = FloatMath.ftz(f);
                    ge = f >= 0f;
                } else {
                    ge = (int) r[c + l] >= 0;
                }
                r[d + l] = ge ? r[a + l] : r[b + l];
            }
        }
    }

    /** testp (PTX ISA 9.7.3.1): classifies a float into a predicate. */
    static final class Testp extends Op {
        static final int FINITE = 0, INFINITE = 1, NUMBER = 2, NOTANUMBER = 3, NORMAL_ = 4, SUBNORMAL = 5;
        final int op, dp, a;
        final boolean f64;

        Testp(int op, boolean f64, int dp, int a) {
            super(NORMAL);
            this.op = op;
            this.f64 = f64;
            this.dp = dp;
            this.a = a;
        }

        @Override
        void exec(Warp w, int m) {
            int t = 0;
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                double v = f64 ? Double.longBitsToDouble(w.r[a + l]) : Float.intBitsToFloat((int) w.r[a + l]);
                double min = f64 ? Double.MIN_NORMAL : Float.MIN_NORMAL;
                boolean res = switch (op) {
                    case FINITE -> Double.isFinite(v);
                    case INFINITE -> Double.isInfinite(v);
                    case NUMBER -> v == v;
                    case NOTANUMBER -> v != v;
                    case NORMAL_ -> Double.isFinite(v) && (Math.abs(v) >= min || v == 0); // ±0 count as normal on an H200
                    default -> v != 0 && Math.abs(v) < min;
                };
                if (res) t |= 1 << l;
            }
            w.p[dp] = (w.p[dp] & ~m) | (t & m);
        }
    }

    // ------------------------------------------------------------------ conversion
}
