package dev.zluda.runtime.emulator;

import dev.zluda.ptx.ir.Mod;

/**
 * Comparison and selection (PTX ISA 9.0, 9.7.6 and the half-precision 9.7.7): setp, set, selp, slct and testp on
 * raw slot values. Single-precision values are the low 32 bits of a slot, double the whole slot, half and bfloat16
 * the low 16 bits.
 */
final class CompareOps {
    private CompareOps() {}

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
            case K_F16 -> { A = FloatMath.fromHalf(x); B = FloatMath.fromHalf(y); }
            case K_BF16 -> { A = FloatMath.fromBf16(x); B = FloatMath.fromBf16(y); }
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
        final boolean signed, ftz, cNeg, floatResult;

        Set(int cmp, int kind, int bits, boolean signed, boolean ftz, int bool, int d, int a, int b, int c, boolean cNeg, boolean floatResult) {
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
            this.floatResult = floatResult;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            int cv = c >= 0 ? (cNeg ? ~w.p[c] : w.p[c]) : 0;
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                int t = test(cmp, kind, bits, signed, ftz, r[a + l], r[b + l]) ? -1 : 0;
                boolean v = (combine(bool, t, cv) >>> l & 1) != 0;
                r[d + l] = v ? (floatResult ? Float.floatToRawIntBits(1f) : 0xFFFF_FFFFL) : 0;
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
