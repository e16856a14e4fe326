package dev.zluda.runtime.emulator;

import static dev.zluda.runtime.emulator.FloatMath.RN;

/**
 * Floating-point arithmetic (PTX ISA 9.0, 9.7.3, and half precision, 9.7.4). Single-precision values are the
 * low 32 bits of a slot, double the whole slot, half and bfloat16 the low 16 bits. Comparisons are
 * {@link CompareOps}', conversions {@link ConvertOps}'.
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
                // .ftz flushes results that are subnormal before rounding (an H200 gives -0 for
                // 0x3f7fffff * -0x1p-126, whose exact value rounds up to -0x1p-126)
                if (Math.abs(v) == Float.MIN_NORMAL && kind <= FMA) {
                    double exact = switch (kind) {
                        case ADD -> (double) A + (double) B;
                        case SUB -> (double) A - (double) B;
                        case MUL -> (double) A * (double) B;
                        default -> Math.fma((double) A, (double) B, (double) C);
                    };
                    if (Math.abs(exact) < Float.MIN_NORMAL) v = Math.copySign(0f, v);
                }
                v = FloatMath.ftz(v);
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
            // .ftz flushes results that are subnormal before rounding
            if (ftz && Math.abs(v) < (bf ? 0x1p-126 : 0x1p-14) && (kind == ADD || kind == SUB || kind == MUL || kind == FMA)) v = Math.copySign(0.0, v);
            if (relu && (v < 0 || v == 0)) v = 0;
            if (sat) v = FloatMath.sat(v);
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
                // a tie of v is decided by the lost part: nudge v by far less than an ulp of the format
                long bits = FloatMath.roundBits(v, bf ? 8 : 5, bf ? 7 : 10, FloatMath.RN);
                double t = Math.abs(v), other = bf ? FloatMath.fromBf16(bits) : FloatMath.fromHalf(bits);
                if (t != other) {
                    double n = (err > 0) == (v > 0) ? Math.nextUp(t) : Math.nextDown(t);
                    v = Math.copySign(n, v);
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
}
