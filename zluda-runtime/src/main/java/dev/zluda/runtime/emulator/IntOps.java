package dev.zluda.runtime.emulator;

/**
 * Integer arithmetic, logic and bit-manipulation instructions (PTX ISA 9.0, 9.7.1 "Integer
 * Arithmetic Instructions", 9.7.2 "Extended-Precision Integer Arithmetic", 9.7.8 "Logic and Shift
 * Instructions"). Operands are read from 64-bit slots and extended to the instruction type as needed;
 * results are written with their low bits significant.
 */
final class IntOps {
    private IntOps() {}

    /** Sign- or zero-extends the low {@code bits} of {@code x}. */
    static long ext(long x, int bits, boolean signed) {
        int s = 64 - bits;
        return signed ? (x << s) >> s : (x << s) >>> s;
    }

    static long mask(int bits) {
        return bits == 64 ? -1L : (1L << bits) - 1;
    }

    static final int ADD = 0, SUB = 1, MUL_LO = 2, MUL_HI = 3, MUL_WIDE = 4, MAD_LO = 5, MAD_HI = 6, MAD_WIDE = 7,
            DIV = 8, REM = 9, MIN = 10, MAX = 11, AND = 12, OR = 13, XOR = 14, SHL = 15, SHR = 16, ABS = 17,
            NEG = 18, NOT = 19, CNOT = 20, POPC = 21, CLZ = 22, BREV = 23, BFIND = 24, BFE = 25, BFI = 26,
            SAD = 27, MUL24_LO = 28, MUL24_HI = 29, MAD24_LO = 30, MAD24_HI = 31, PRMT = 32, LOP3 = 33,
            SHF_L = 34, SHF_R = 35, BMSK = 36, SZEXT = 37, DP4A = 38, DP2A = 39, FNS = 40, ADD_SAT = 41,
            SUB_SAT = 42, ADD16X2 = 43, SUB16X2 = 44, MIN16X2 = 45, MAX16X2 = 46, MAD_HI_SAT = 47, MAD24_HI_SAT = 48;

    /**
     * {@code d = op(a, b, c, e)}; unused sources are -1. Fields: {@code bits} (16, 32, 64 — the
     * instruction type's width; for {@code .wide} the source width), {@code signed}, and per kind:
     * {@code mode} (prmt mode, shf .clamp, bmsk/szext .clamp, bfind .shiftamt, dp2a .hi, relu),
     * {@code signedB} (dp4a/dp2a b type).
     */
    /**
     * {@code lop3.BoolOp.b32 d|p, a, b, c, immLut, q} (PTX ISA 9.0, §9.7.8.6): {@code d} is the
     * three-input function {@code immLut} of a, b and c bit by bit, and {@code p = (d != 0) BoolOp q},
     * BoolOp {@code .and} or {@code .or}; {@code q} may be negated ({@code !q}).
     */
    /** The three-input function {@code lut} (bit {@code 4a+2b+c} of its low byte) of a, b and c, bit by bit (§9.7.8.6). */
    static long lop3(long x, long y, long z, long lut) {
        int l = (int) lut;
        long out = 0;
        for (int i = 0; i < 8; i++) {
            if (((l >>> i) & 1) == 0) continue;
            out |= ((i & 4) != 0 ? x : ~x) & ((i & 2) != 0 ? y : ~y) & ((i & 1) != 0 ? z : ~z);
        }
        return out;
    }

    static final class Lop3Pred extends Op {
        final int d, a, b, c, lut, dp, q;
        final boolean and, qNeg;

        Lop3Pred(int d, int a, int b, int c, int lut, int dp, boolean and, int q, boolean qNeg) {
            super(NORMAL);
            this.d = d;
            this.a = a;
            this.b = b;
            this.c = c;
            this.lut = lut;
            this.dp = dp;
            this.and = and;
            this.q = q;
            this.qNeg = qNeg;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            int qv = qNeg ? ~w.p[q] : w.p[q];
            int nz = 0;
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long v = lop3(r[a + l], r[b + l], r[c + l], r[lut + l]) & 0xFFFF_FFFFL;
                r[d + l] = v;
                if (v != 0) nz |= 1 << l;
            }
            int res = and ? nz & qv : nz | qv;
            w.p[dp] = (w.p[dp] & ~m) | (res & m);
        }
    }

    static final class Alu extends Op {
        final int kind, bits, d, a, b, c, e;
        final boolean signed;
        int mode;
        boolean signedB;

        Alu(int kind, int bits, boolean signed, int d, int a, int b, int c, int e) {
            super(NORMAL);
            this.kind = kind;
            this.bits = bits;
            this.signed = signed;
            this.d = d;
            this.a = a;
            this.b = b;
            this.c = c;
            this.e = e;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            final int d = this.d, a = this.a, b = this.b, c = this.c;
            if (m == -1 && full(r, d, a, b, c)) return;
            switch (kind) {
                case ADD -> {
                    for (int x = m; x != 0; x &= x - 1) { int l = Integer.numberOfTrailingZeros(x); r[d + l] = r[a + l] + r[b + l]; }
                }
                case SUB -> {
                    for (int x = m; x != 0; x &= x - 1) { int l = Integer.numberOfTrailingZeros(x); r[d + l] = r[a + l] - r[b + l]; }
                }
                case MUL_LO -> {
                    for (int x = m; x != 0; x &= x - 1) { int l = Integer.numberOfTrailingZeros(x); r[d + l] = r[a + l] * r[b + l]; }
                }
                case MAD_LO -> {
                    for (int x = m; x != 0; x &= x - 1) { int l = Integer.numberOfTrailingZeros(x); r[d + l] = r[a + l] * r[b + l] + r[c + l]; }
                }
                case AND -> {
                    for (int x = m; x != 0; x &= x - 1) { int l = Integer.numberOfTrailingZeros(x); r[d + l] = r[a + l] & r[b + l]; }
                }
                case OR -> {
                    for (int x = m; x != 0; x &= x - 1) { int l = Integer.numberOfTrailingZeros(x); r[d + l] = r[a + l] | r[b + l]; }
                }
                case XOR -> {
                    for (int x = m; x != 0; x &= x - 1) { int l = Integer.numberOfTrailingZeros(x); r[d + l] = r[a + l] ^ r[b + l]; }
                }
                case MUL_WIDE -> {
                    final int s = 64 - bits;
                    if (signed) {
                        for (int x = m; x != 0; x &= x - 1) { int l = Integer.numberOfTrailingZeros(x); r[d + l] = ((r[a + l] << s) >> s) * ((r[b + l] << s) >> s); }
                    } else {
                        for (int x = m; x != 0; x &= x - 1) { int l = Integer.numberOfTrailingZeros(x); r[d + l] = ((r[a + l] << s) >>> s) * ((r[b + l] << s) >>> s); }
                    }
                }
                case SHL -> {
                    final int n = bits;
                    for (int x = m; x != 0; x &= x - 1) {
                        int l = Integer.numberOfTrailingZeros(x);
                        long k = r[b + l] & 0xFFFF_FFFFL;
                        r[d + l] = k >= n ? 0 : r[a + l] << k;
                    }
                }
                default -> {
                    final int e = this.e;
                    for (int x = m; x != 0; x &= x - 1) {
                        int l = Integer.numberOfTrailingZeros(x);
                        r[d + l] = compute(r[a + l], b >= 0 ? r[b + l] : 0, c >= 0 ? r[c + l] : 0, e >= 0 ? r[e + l] : 0);
                    }
                }
            }
        }

        /**
         * The commonest kinds for a whole warp (all 32 lanes): counted loops the JIT unrolls, with the
         * same results as the per-lane paths. False when the kind has none.
         */
        private boolean full(long[] r, int d, int a, int b, int c) {
            switch (kind) {
                case ADD -> { for (int l = 0; l < 32; l++) r[d + l] = r[a + l] + r[b + l]; }
                case SUB -> { for (int l = 0; l < 32; l++) r[d + l] = r[a + l] - r[b + l]; }
                case MUL_LO -> { for (int l = 0; l < 32; l++) r[d + l] = r[a + l] * r[b + l]; }
                case MAD_LO -> { for (int l = 0; l < 32; l++) r[d + l] = r[a + l] * r[b + l] + r[c + l]; }
                case AND -> { for (int l = 0; l < 32; l++) r[d + l] = r[a + l] & r[b + l]; }
                case OR -> { for (int l = 0; l < 32; l++) r[d + l] = r[a + l] | r[b + l]; }
                case XOR -> { for (int l = 0; l < 32; l++) r[d + l] = r[a + l] ^ r[b + l]; }
                case MUL_WIDE -> {
                    final int s = 64 - bits;
                    if (signed) {
                        for (int l = 0; l < 32; l++) r[d + l] = ((r[a + l] << s) >> s) * ((r[b + l] << s) >> s);
                    } else {
                        for (int l = 0; l < 32; l++) r[d + l] = ((r[a + l] << s) >>> s) * ((r[b + l] << s) >>> s);
                    }
                }
                case SHL -> {
                    final int n = bits;
                    for (int l = 0; l < 32; l++) {
                        long k = r[b + l] & 0xFFFF_FFFFL;
                        r[d + l] = k >= n ? 0 : r[a + l] << k;
                    }
                }
                case SHR -> {
                    // as compute(): the value extended from its type, shifted by b (unsigned, 32 bits)
                    final int n = bits, s = 64 - bits;
                    if (signed) {
                        for (int l = 0; l < 32; l++) r[d + l] = ((r[a + l] << s) >> s) >> Math.min(r[b + l] & 0xFFFF_FFFFL, 63);
                    } else {
                        for (int l = 0; l < 32; l++) {
                            long k = r[b + l] & 0xFFFF_FFFFL;
                            r[d + l] = k >= n ? 0 : ((r[a + l] << s) >>> s) >>> k;
                        }
                    }
                }
                case SHF_L, SHF_R -> {
                    if (mode != 0) return false; // .clamp: the per-lane path
                    // .wrap: the 64-bit value b:a shifted by c mod 32 (PTX ISA 9.7.8.8), as compute() does
                    if (kind == SHF_L) {
                        for (int l = 0; l < 32; l++) r[d + l] = (((r[b + l] << 32) | (r[a + l] & 0xFFFF_FFFFL)) << (r[c + l] & 31)) >>> 32;
                    } else {
                        for (int l = 0; l < 32; l++) r[d + l] = (((r[b + l] << 32) | (r[a + l] & 0xFFFF_FFFFL)) >>> (r[c + l] & 31)) & 0xFFFF_FFFFL;
                    }
                }
                default -> { return false; }
            }
            return true;
        }

        private long ext(long x) {
            return IntOps.ext(x, bits, signed);
        }

        private int cmp(long x, long y) {
            return bits == 64 && !signed ? Long.compareUnsigned(x, y) : Long.compare(ext(x), ext(y));
        }

        private long hi(long x, long y) {
            if (bits == 64) return signed ? Math.multiplyHigh(x, y) : Math.unsignedMultiplyHigh(x, y);
            return (ext(x) * ext(y)) >> bits;
        }

        private static long sat32(long v) {
            return Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, v));
        }

        long compute(long x, long y, long z, long w) {
            switch (kind) {
                case ADD: return x + y;
                case SUB: return x - y;
                case MUL_LO: return x * y;
                case MAD_LO: return x * y + z;
                case AND: return x & y;
                case OR: return x | y;
                case XOR: return x ^ y;
                case ADD_SAT: return sat32((long) (int) x + (int) y);
                case SUB_SAT: return sat32((long) (int) x - (int) y);
                case MUL_HI: return hi(x, y);
                case MUL_WIDE: return ext(x) * ext(y);
                case MAD_HI: return hi(x, y) + z;
                case MAD_HI_SAT: return sat32((long) (int) hi(x, y) + (int) z);
                case MAD_WIDE: return ext(x) * ext(y) + z;
                case DIV: {
                    if (bits == 64 && !signed) return y == 0 ? -1 : Long.divideUnsigned(x, y);
                    long X = ext(x), Y = ext(y);
                    return Y == 0 ? -1 : X / Y;
                }
                case REM: {
                    // by zero: all ones, as an H200 gives (ConformanceTest)
                    if (bits == 64 && !signed) return y == 0 ? -1 : Long.remainderUnsigned(x, y);
                    long X = ext(x), Y = ext(y);
                    return Y == 0 ? -1 : X % Y;
                }
                case MIN: {
                    long v = cmp(x, y) <= 0 ? x : y;
                    return mode != 0 && ext(v) < 0 ? 0 : v;
                }
                case MAX: {
                    long v = cmp(x, y) >= 0 ? x : y;
                    return mode != 0 && ext(v) < 0 ? 0 : v;
                }
                case SHL: {
                    long k = y & 0xFFFF_FFFFL;
                    return k >= bits ? 0 : x << k;
                }
                case SHR: {
                    long k = y & 0xFFFF_FFFFL;
                    long X = ext(x);
                    if (signed) return X >> Math.min(k, 63);
                    return k >= bits ? 0 : X >>> k;
                }
                case ABS: return Math.abs(ext(x));
                case NEG: return -x;
                case NOT: return ~x;
                case CNOT: return (x & mask(bits)) == 0 ? 1 : 0;
                case POPC: return Long.bitCount(x & mask(bits));
                case CLZ: return bits == 64 ? Long.numberOfLeadingZeros(x) : Integer.numberOfLeadingZeros((int) x);
                case BREV: return bits == 64 ? Long.reverse(x) : Integer.reverse((int) x) & 0xFFFF_FFFFL;
                case BFIND: {
                    int msb = bits - 1;
                    long v = x & mask(bits);
                    if (signed && ((v >>> msb) & 1) != 0) v = ~v & mask(bits);
                    if (v == 0) return 0xFFFF_FFFFL;
                    int pos = 63 - Long.numberOfLeadingZeros(v);
                    return mode != 0 ? msb - pos : pos;
                }
                case BFE: {
                    int msb = bits - 1;
                    // 32-bit: position and length are bits 7..0 of b and c (PTX ISA 9.7.1.18); 64-bit: the
                    // whole 32-bit values (measured on an H200)
                    long pos = bits == 64 ? y & 0xFFFF_FFFFL : y & 0xFF, len = bits == 64 ? z & 0xFFFF_FFFFL : z & 0xFF;
                    long sbit = (!signed || len == 0) ? 0 : (x >>> Math.min(pos + len - 1, msb)) & 1;
                    long out = 0;
                    for (int i = 0; i <= msb; i++) {
                        long bit = (i < len && pos + i <= msb) ? (x >>> (pos + i)) & 1 : sbit;
                        out |= bit << i;
                    }
                    return out;
                }
                case BFI: {
                    int msb = bits - 1;
                    long pos = bits == 64 ? z & 0xFFFF_FFFFL : z & 0xFF, len = bits == 64 ? w & 0xFFFF_FFFFL : w & 0xFF;
                    long f = y;
                    for (int i = 0; i < len && pos + i <= msb; i++) {
                        long bit = (x >>> i) & 1;
                        f = (f & ~(1L << (pos + i))) | (bit << (pos + i));
                    }
                    return f;
                }
                case SAD: {
                    int c = cmp(x, y);
                    return z + (c < 0 ? y - x : x - y);
                }
                case MUL24_LO: return e24(x) * e24(y);
                case MUL24_HI: return (e24(x) * e24(y)) >> 16;
                case MAD24_LO: return e24(x) * e24(y) + z;
                case MAD24_HI: return ((e24(x) * e24(y)) >> 16) + z;
                case MAD24_HI_SAT: return sat32((long) (int) ((e24(x) * e24(y)) >> 16) + (int) z);
                case PRMT: return prmt((int) x, (int) y, (int) z, mode) & 0xFFFF_FFFFL;
                case LOP3:
                    return lop3(x, y, z, w);
                case SHF_L: case SHF_R: {
                    long lo = x & 0xFFFF_FFFFL, hiw = y & 0xFFFF_FFFFL;
                    long cz = z & 0xFFFF_FFFFL;
                    int n = mode != 0 ? (int) Math.min(cz, 32) : (int) (cz & 31);
                    long cat = (hiw << 32) | lo;
                    return kind == SHF_L ? (cat << n) >>> 32 : (cat >>> n) & 0xFFFF_FFFFL;
                }
                case BMSK: {
                    long a0 = x & 0xFFFF_FFFFL, b0 = y & 0xFFFF_FFFFL;
                    int a1 = (int) (a0 & 0x1F), b1 = (int) (b0 & 0x1F);
                    int mask0 = -1 << a1;
                    int sum = a1 + b1;
                    int mask1 = sum >= 32 ? 0 : -1 << sum;
                    boolean posOver = false, widthOver = false;
                    if (mode != 0) {
                        if (a0 >= 32) { posOver = true; mask0 = 0; }
                        if (b0 >= 32) widthOver = true;
                    }
                    if (sum >= 32 || posOver || widthOver) mask1 = 0;
                    else if (b1 == 0) mask1 = -1;
                    return (mask0 & ~mask1) & 0xFFFF_FFFFL;
                }
                case SZEXT: {
                    long b0 = y & 0xFFFF_FFFFL;
                    int b1 = (int) (b0 & 0x1F);
                    boolean tooLarge = b0 >= 32 && mode != 0;
                    int msk = tooLarge ? 0 : -1 << b1;
                    int signPos = (b1 - 1) & 0x1F;
                    boolean sign = !(b1 == 0 || tooLarge || !signed) && (((int) x >>> signPos) & 1) != 0;
                    return (((int) x & ~msk) | (sign ? msk : 0)) & 0xFFFF_FFFFL;
                }
                case DP4A: {
                    long acc = z;
                    for (int i = 0; i < 4; i++) acc += byteOf(x, i, signed) * byteOf(y, i, signedB);
                    return acc;
                }
                case DP2A: {
                    long acc = z;
                    int sel = mode != 0 ? 2 : 0;
                    for (int i = 0; i < 2; i++) {
                        long va = signed ? (short) (x >>> (16 * i)) : (x >>> (16 * i)) & 0xFFFF;
                        acc += va * byteOf(y, sel + i, signedB);
                    }
                    return acc;
                }
                case FNS: {
                    int msk = (int) x, base = (int) y, offset = (int) z;
                    if (offset == Integer.MIN_VALUE) return 0; // what an H200 gives (ConformanceTest)
                    if (offset == 0) return base >= 0 && base < 32 && ((msk >>> base) & 1) != 0 ? base : 0xFFFF_FFFFL;
                    int pos = base, count = Math.abs(offset) - 1, inc = offset > 0 ? 1 : -1;
                    while (pos >= 0 && pos < 32) {
                        if (((msk >>> pos) & 1) != 0) {
                            if (count == 0) return pos;
                            count--;
                        }
                        pos += inc;
                    }
                    return 0xFFFF_FFFFL;
                }
                case ADD16X2: case SUB16X2: case MIN16X2: case MAX16X2: {
                    long out = 0;
                    for (int i = 0; i < 2; i++) {
                        long p = IntOps.ext(x >>> (16 * i), 16, signed), q = IntOps.ext(y >>> (16 * i), 16, signed);
                        long v = switch (kind) {
                            case ADD16X2 -> p + q;
                            case SUB16X2 -> p - q;
                            case MIN16X2 -> Math.min(p, q);
                            default -> Math.max(p, q);
                        };
                        if (mode != 0 && (short) v < 0) v = 0;
                        out |= (v & 0xFFFF) << (16 * i);
                    }
                    return out;
                }
                default: throw new IllegalStateException("integer op " + kind);
            }
        }

        private long e24(long x) {
            return signed ? (x << 40) >> 40 : x & 0xFF_FFFFL;
        }

        private static long byteOf(long v, int i, boolean signed) {
            long b = (v >>> (8 * i)) & 0xFF;
            return signed ? (byte) b : b;
        }
    }

    /** The PTX prmt byte permute (PTX ISA 9.7.9.7); {@code mode} 0 generic, 1 f4e, 2 b4e, 3 rc8, 4 ecl, 5 ecr, 6 rc16. */
    static int prmt(int a, int b, int c, int mode) {
        long tmp = ((long) b << 32) | (a & 0xFFFF_FFFFL);
        int out = 0;
        if (mode == 0) {
            for (int i = 0; i < 4; i++) {
                int sel = (c >>> (4 * i)) & 0xF;
                int byteV = (int) (tmp >>> (8 * (sel & 7))) & 0xFF;
                if ((sel & 8) != 0) byteV = (byteV & 0x80) != 0 ? 0xFF : 0;
                out |= byteV << (8 * i);
            }
            return out;
        }
        int s = c & 3;
        int[] sel = new int[4];
        for (int i = 0; i < 4; i++) {
            sel[i] = switch (mode) {
                case 1 -> s + i;                      // f4e: forward 4 extract
                case 2 -> (s - i) & 7;                // b4e: backward 4 extract
                case 3 -> s;                          // rc8: replicate byte
                case 4 -> Math.max(i, s);             // ecl: edge clamp left
                case 5 -> Math.min(i, s);             // ecr: edge clamp right
                default -> 2 * (s & 1) + (i & 1);     // rc16: replicate half-word
            };
        }
        for (int i = 0; i < 4; i++) out |= ((int) (tmp >>> (8 * (sel[i] & 7))) & 0xFF) << (8 * i);
        return out;
    }

    /**
     * add.cc / addc / sub.cc / subc / mad.cc / madc (PTX ISA 9.7.2): integer addition with the carry
     * flag CC.CF, kept per lane in slot {@code cc}.
     *
     * <p>The flag is a carry, also for subtraction, as on NVIDIA hardware (recorded on an H200 with every producer
     * of the flag followed by every consumer, conformance sweep): {@code sub.cc} computes {@code a + ~b + 1} and sets
     * CF to its carry out (1 when there is no borrow), {@code subc} computes {@code a + ~b + CF}; the ISA's "borrow"
     * is {@code !CF}. A chain of subtractions alone gives what the ISA says; a subtraction's flag read by
     * {@code addc} (or an addition's by {@code subc}) gives the hardware's values, not those of a separate borrow.
     */
    static final class Carry extends Op {
        final int d, a, b, c, cc, bits;
        final boolean sub, carryIn, carryOut, mad, madHi, signed;

        Carry(int d, int a, int b, int c, int cc, int bits, boolean sub, boolean carryIn, boolean carryOut, boolean mad,
              boolean madHi, boolean signed) {
            super(NORMAL);
            this.d = d;
            this.a = a;
            this.b = b;
            this.c = c;
            this.cc = cc;
            this.bits = bits;
            this.sub = sub;
            this.carryIn = carryIn;
            this.carryOut = carryOut;
            this.mad = mad;
            this.madHi = madHi;
            this.signed = signed;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            final long mk = mask(bits);
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long p, q;
                if (mad) {
                    long A = r[a + l], B = r[b + l];
                    if (madHi) {
                        p = bits == 64 ? (signed ? Math.multiplyHigh(A, B) : Math.unsignedMultiplyHigh(A, B))
                                : (ext(A, 32, signed) * ext(B, 32, signed)) >> 32;
                    } else {
                        p = A * B;
                    }
                    q = r[c + l];
                } else {
                    p = r[a + l];
                    q = r[b + l];
                }
                p &= mk;
                q &= mk;
                // a - b is a + ~b + 1; with a carry in, a + b + CF and a + ~b + CF
                long cin = carryIn ? r[cc + l] & 1 : sub ? 1 : 0;
                if (sub) q = ~q & mk;
                long res, out;
                if (bits == 32) {
                    long s = p + q + cin;
                    res = s;
                    out = (s >>> 32) & 1;
                } else {
                    long t = p + q;
                    long s = t + cin;
                    res = s;
                    out = (Long.compareUnsigned(t, p) < 0 || Long.compareUnsigned(s, t) < 0) ? 1 : 0;
                }
                r[d + l] = res & mk;
                if (carryOut) r[cc + l] = out;
            }
        }
    }
}
