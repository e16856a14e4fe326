package dev.zluda.runtime.emulator;

import java.math.BigDecimal;
import java.math.MathContext;

/**
 * IEEE 754 arithmetic with the four rounding modes of PTX ({@code .rn .rz .rm .rp}, PTX ISA 9.0,
 * 9.7.3 "Floating-Point Instructions" and 6.5 "Rounding Modifiers"), flush-to-zero and saturation.
 *
 * <p>Round-to-nearest uses Java's own operations (IEEE round-to-nearest-even; {@link Math#fma} is
 * correctly rounded). The directed modes compute the result rounded to nearest together with the
 * exact error of that rounding (TwoSum, an FMA residual), and move to the neighbouring value when
 * the error points away from the rounding direction. Single precision goes through double, which is
 * exact for products and, for the other operations, a rounding that is innocuous since
 * 53 ≥ 2·24 + 2.
 */
final class FloatMath {
    private FloatMath() {}

    static final int RN = 0, RZ = 1, RM = 2, RP = 3, RNA = 4;
    /** The NaN NVIDIA GPUs produce for single precision (PTX: "canonical NaN"). */
    static final int CANONICAL_NAN_F32 = 0x7FFF_FFFF;
    /** The NaN NVIDIA GPUs produce for half precision. */
    static final int CANONICAL_NAN_F16 = 0x7FFF;

    /** Flushes a subnormal single to a zero of the same sign ({@code .ftz}). */
    static float ftz(float x) {
        return Math.abs(x) < Float.MIN_NORMAL ? Math.copySign(0f, x) : x;
    }

    /** Result bits of a single-precision operation: NaN becomes the canonical NaN. */
    static long bits(float x) {
        return x != x ? CANONICAL_NAN_F32 : Float.floatToRawIntBits(x) & 0xFFFF_FFFFL;
    }

    /** Clamps to [0, 1]; NaN becomes 0 ({@code .sat}, PTX ISA 6.5.? "Saturation"). */
    static float sat(float x) {
        return x != x ? 0f : x <= 0f ? 0f : Math.min(x, 1f);
    }

    static double sat(double x) {
        return x != x ? 0d : x <= 0d ? 0d : Math.min(x, 1d);
    }

    /**
     * Rounds the exact value {@code s + err} (where {@code s} is that value rounded to nearest double
     * and {@code |err|} is at most half an ulp of {@code s}) to single precision.
     */
    static float round(double s, double err, int mode) {
        if (!Double.isFinite(s) || err != err) return (float) s;
        float f = (float) s;
        switch (mode) {
            case RN -> {
                double fd = f;
                if (fd != s && err != 0 && Float.isFinite(f)) {
                    float other = fd < s ? Math.nextUp(f) : Math.nextDown(f);
                    if (Float.isFinite(other) && (fd + (double) other) / 2 == s) {
                        return err > 0 ? Math.max(f, other) : Math.min(f, other);
                    }
                }
                return f;
            }
            case RM -> {
                if ((double) f > s || ((double) f == s && err < 0)) f = Math.nextDown(f);
                return f;
            }
            case RP -> {
                if ((double) f < s || ((double) f == s && err > 0)) f = Math.nextUp(f);
                return f;
            }
            default -> {
                boolean positive = s > 0 || (s == 0 && err > 0);
                return round(s, err, positive ? RM : RP);
            }
        }
    }

    /**
     * Rounds the exact value {@code s + err} (as {@link #round}) for an instruction with {@code .ftz}: as an NVIDIA
     * GPU does, to 24 significant bits as if the exponent had no lower bound, then a result below the smallest
     * normal becomes zero of its sign (recorded on an H200, conformance sweep: {@code mul.rn.ftz}
     * 0x3f7fffff * -0x1p-126 gives -0, its exact value being representable just below the smallest normal;
     * {@code fma.rn.ftz} of a value a hair below the smallest normal gives the smallest normal). Results in the
     * normal range round as {@link #round} does.
     */
    static float roundFtz(double s, double err, int mode) {
        if (s != s || !(Math.abs(s) < 0x1p-125)) return ftz(round(s, err, mode));
        if (s == 0 && err == 0) return (float) s;
        float g = round(s * 0x1p64, err * 0x1p64, mode);
        double back = g * 0x1p-64;
        if (Math.abs(back) < Float.MIN_NORMAL) return Math.copySign(0f, s != 0 ? (float) s : (float) err);
        return (float) back;
    }

    /** Rounds the exact value {@code s + err} ({@code s} rounded to nearest) to double in a directed mode. */
    static double roundD(double s, double err, int mode) {
        if (mode == RN || err == 0 || err != err || !Double.isFinite(s)) return s;
        return switch (mode) {
            case RM -> err < 0 ? Math.nextDown(s) : s;
            case RP -> err > 0 ? Math.nextUp(s) : s;
            default -> (s > 0 && err < 0) ? Math.nextDown(s) : (s < 0 && err > 0) ? Math.nextUp(s) : s;
        };
    }

    /** The error of {@code s = a + b} rounded to nearest (Knuth's TwoSum): a + b == s + err exactly. */
    static double twoSumErr(double a, double b, double s) {
        double bb = s - a;
        return (a - (s - bb)) + (b - bb);
    }

    /** An exact zero result: +0, or -0 when both addends are -0, or with .rm (IEEE 754 6.3). */
    private static double zeroSum(double a, double b, int mode) {
        if (a == 0 && b == 0 && Math.copySign(1, a) == Math.copySign(1, b)) return a;
        return mode == RM ? -0.0 : 0.0;
    }

    /** Overflow of a directed rounding: ±Inf or the largest finite value. */
    private static double overflow(double rnResult, int mode) {
        boolean pos = rnResult > 0;
        boolean toInf = mode == RN || (pos ? mode == RP : mode == RM);
        return toInf ? rnResult : (pos ? Double.MAX_VALUE : -Double.MAX_VALUE);
    }

    // ------------------------------------------------------------------ single precision

    static float add(float a, float b, int mode) {
        if (mode == RN) return a + b;
        double s = (double) a + (double) b;
        if (s == 0) return (float) zeroSum(a, b, mode);
        return round(s, twoSumErr(a, b, s), mode);
    }

    static float mul(float a, float b, int mode) {
        if (mode == RN) return a * b;
        return round((double) a * (double) b, 0, mode);
    }

    static float fma(float a, float b, float c, int mode) {
        if (mode == RN) return Math.fma(a, b, c);
        double p = (double) a * (double) b;
        double s = p + c;
        if (s == 0) {
            double err = twoSumErr(p, c, s);
            if (err == 0) return (float) zeroSum(p, c, mode);
            return round(s, err, mode);
        }
        return round(s, twoSumErr(p, c, s), mode);
    }

    static float div(float a, float b, int mode) {
        double q = (double) a / (double) b;
        if (mode == RN || !Double.isFinite(q) || q == 0) return (float) q;
        double r = Math.fma(-q, b, a);
        return round(q, r / b, mode);
    }

    static float sqrt(float a, int mode) {
        double s = Math.sqrt(a);
        if (mode == RN || !Double.isFinite(s) || s == 0) return (float) s;
        return round(s, Math.fma(-s, s, a), mode);
    }

    // ------------------------------------------------------------------ double precision

    static double add(double a, double b, int mode) {
        double s = a + b;
        if (mode == RN) return s;
        if (s == 0) return twoSumErr(a, b, s) == 0 ? zeroSum(a, b, mode) : s;
        if (Double.isInfinite(s) && Double.isFinite(a) && Double.isFinite(b)) return overflow(s, mode);
        return roundD(s, twoSumErr(a, b, s), mode);
    }

    static double mul(double a, double b, int mode) {
        double s = a * b;
        if (mode == RN || !Double.isFinite(a) || !Double.isFinite(b)) return s;
        if (Double.isInfinite(s)) return overflow(s, mode);
        if (a == 0 || b == 0) return s;
        // the sign of (exact - s), computed exactly (an fma residue is inexact for subnormal results)
        int c = new BigDecimal(a).multiply(new BigDecimal(b)).compareTo(new BigDecimal(s));
        return directed(s, c, mode);
    }

    /**
     * The result in a directed mode, given the result {@code s} rounded to nearest and the sign {@code c}
     * of (exact value - s).
     */
    static double directed(double s, int c, int mode) {
        if (c == 0 || mode == RN) return s;
        if (s == 0) {
            return switch (mode) {
                case RP -> c > 0 ? Double.MIN_VALUE : s;
                case RM -> c < 0 ? -Double.MIN_VALUE : s;
                default -> s;
            };
        }
        return switch (mode) {
            case RM -> c < 0 ? Math.nextDown(s) : s;
            case RP -> c > 0 ? Math.nextUp(s) : s;
            default -> (s > 0 && c < 0) ? Math.nextDown(s) : (s < 0 && c > 0) ? Math.nextUp(s) : s;
        };
    }

    static double fma(double a, double b, double c, int mode) {
        double s = Math.fma(a, b, c);
        if (mode == RN || !Double.isFinite(a) || !Double.isFinite(b) || !Double.isFinite(c)) return s;
        BigDecimal exact = new BigDecimal(a).multiply(new BigDecimal(b)).add(new BigDecimal(c));
        if (exact.signum() == 0) return zeroSum(a * b, c, mode);
        return exact(exact, mode);
    }

    static double div(double a, double b, int mode) {
        double q = a / b;
        if (mode == RN || !Double.isFinite(a) || !Double.isFinite(b) || b == 0 || a == 0) return q;
        if (Double.isInfinite(q)) return overflow(q, mode);
        // exact - q = (a - q*b) / b
        int c = new BigDecimal(a).subtract(new BigDecimal(q).multiply(new BigDecimal(b))).signum() * (b > 0 ? 1 : -1);
        return directed(q, c, mode);
    }

    static double sqrt(double a, int mode) {
        double s = Math.sqrt(a);
        if (mode == RN || !Double.isFinite(s) || s == 0) return s;
        BigDecimal bs = new BigDecimal(s);
        return directed(s, new BigDecimal(a).compareTo(bs.multiply(bs)), mode);
    }

    /** Rounds an exact decimal value to double in any mode. */
    static double exact(BigDecimal v, int mode) {
        double s = v.doubleValue();
        if (mode == RN || Double.isInfinite(s)) return Double.isInfinite(s) ? overflow(s, mode) : s;
        int c = new BigDecimal(s).compareTo(v);
        if (c == 0) return s;
        return roundD(s, c > 0 ? -Double.MIN_VALUE : Double.MIN_VALUE, mode);
    }

    /** An integer (signed, or unsigned 64-bit when {@code unsigned}) to double in any mode. */
    static double fromLong(long x, boolean unsigned, int mode) {
        BigDecimal v = unsigned && x < 0 ? new BigDecimal(new java.math.BigInteger(Long.toUnsignedString(x))) : BigDecimal.valueOf(x);
        if (mode == RN) return unsigned && x < 0 ? v.doubleValue() : (double) x;
        return exact(v, mode);
    }

    /** An integer (signed, or unsigned 64-bit when {@code unsigned}) to single precision in any mode. */
    static float fromLongF(long x, boolean unsigned, int mode) {
        if (mode == RN && !(unsigned && x < 0)) return (float) x;
        BigDecimal v = unsigned && x < 0 ? new BigDecimal(new java.math.BigInteger(Long.toUnsignedString(x))) : BigDecimal.valueOf(x);
        double s = v.doubleValue();
        int c = new BigDecimal(s).compareTo(v);
        return round(s, c == 0 ? 0 : c > 0 ? -Double.MIN_VALUE : Double.MIN_VALUE, mode);
    }

    /** Rounds to an integral value: {@code .rni .rzi .rmi .rpi} (PTX cvt). */
    static double integral(double x, int mode) {
        return switch (mode) {
            case RZ -> x < 0 ? Math.ceil(x) : Math.floor(x);
            case RM -> Math.floor(x);
            case RP -> Math.ceil(x);
            default -> Math.rint(x);
        };
    }

    // ------------------------------------------------------------------ any binary format

    /**
     * Rounds a finite non-zero double, once, to a binary floating-point format with {@code expBits}
     * exponent bits and {@code mantBits} stored significand bits in the IEEE 754 layout (bias
     * 2^(expBits-1)-1, gradual underflow), in mode RN, RZ, RM, RP or RNA (nearest, ties away from zero).
     *
     * @return the magnitude bits (exponent and significand fields, no sign); a value above the format's
     *         largest finite encoding means overflow, which the caller resolves (infinity, largest finite, NaN)
     */
    static long roundBits(double v, int expBits, int mantBits, int mode) {
        boolean neg = v < 0;
        double a = Math.abs(v);
        int bias = (1 << (expBits - 1)) - 1;
        int qe = Math.max(Math.getExponent(a), 1 - bias) - mantBits;
        double n = Math.scalb(a, -qe);
        double fl = Math.floor(n), frac = n - fl;
        long m = (long) fl;
        boolean up = switch (mode) {
            case RZ -> false;
            case RM -> neg && frac > 0;
            case RP -> !neg && frac > 0;
            case RNA -> frac >= 0.5;
            default -> frac > 0.5 || (frac == 0.5 && (m & 1) == 1);
        };
        if (up) m++;
        if (m == 0) return 0;
        int msb = 63 - Long.numberOfLeadingZeros(m);
        int exp = qe + msb;
        if (exp < 1 - bias) return m; // subnormal
        long mask = (1L << mantBits) - 1;
        long mant = msb >= mantBits ? (m >>> (msb - mantBits)) & mask : (m << (mantBits - msb)) & mask;
        return ((long) (exp + bias) << mantBits) | mant;
    }

    /**
     * A double to a format of {@link #roundBits} whose top exponent holds infinities and NaNs (f16,
     * bf16, e5m2): overflow gives infinity or the largest finite value as IEEE 754 says for the mode, or
     * always the largest finite value with {@code satfinite}; NaN gives {@code nan}.
     */
    static int toFormat(double v, int expBits, int mantBits, int mode, boolean satfinite, int nan) {
        int signBit = 1 << (expBits + mantBits);
        int inf = ((1 << expBits) - 1) << mantBits, max = inf - 1;
        if (v != v) return nan;
        int sign = (Double.doubleToRawLongBits(v) < 0) ? signBit : 0;
        if (v == 0) return sign;
        if (Double.isInfinite(v)) return sign | (satfinite ? max : inf);
        long bits = roundBits(v, expBits, mantBits, mode);
        if (bits > max) {
            boolean toInf = !satfinite && (mode == RN || mode == RNA || (sign == 0 ? mode == RP : mode == RM));
            return sign | (toInf ? inf : max);
        }
        return sign | (int) bits;
    }

    // ------------------------------------------------------------------ half and bfloat16

    /** Single → IEEE half bits in any rounding mode (NaN → the canonical half NaN). */
    static int toHalf(float x, int mode) {
        if (x != x) return CANONICAL_NAN_F16;
        int h = Float.floatToFloat16(x) & 0xFFFF;
        if (mode == RN) return h;
        float back = Float.float16ToFloat((short) h);
        if (back == x) return h;
        boolean neg = (h & 0x8000) != 0 || (back == 0 && x < 0);
        int sign = neg ? 0x8000 : 0, mag = h & 0x7FFF;
        boolean magnitudeDown = switch (mode) {
            case RZ -> Math.abs(back) > Math.abs(x);
            case RM -> back > x && !neg;
            default -> back < x && neg;
        };
        boolean magnitudeUp = switch (mode) {
            case RM -> back > x && neg;
            case RP -> back < x && !neg;
            default -> false;
        };
        if (magnitudeDown && mag > 0) mag--;
        else if (magnitudeUp) mag++;
        return sign | mag;
    }

    static float fromHalf(long bits) {
        return Float.float16ToFloat((short) bits);
    }

    /** Single → bfloat16 bits (round to nearest even, or toward zero). */
    static int toBf16(float x, int mode) {
        if (x != x) return 0x7FFF;
        int b = Float.floatToRawIntBits(x);
        if (mode == RZ) return b >>> 16;
        if (mode == RN) return (b + 0x7FFF + ((b >>> 16) & 1)) >>> 16;
        int t = b >>> 16;
        boolean exact = (b & 0xFFFF) == 0;
        boolean neg = b < 0;
        if (!exact && ((mode == RP && !neg) || (mode == RM && neg))) t++;
        return t & 0xFFFF;
    }

    static float fromBf16(long bits) {
        return Float.intBitsToFloat((int) (bits & 0xFFFF) << 16);
    }
}
