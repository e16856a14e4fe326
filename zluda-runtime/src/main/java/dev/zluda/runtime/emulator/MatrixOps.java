package dev.zluda.runtime.emulator;

/**
 * Warp-level matrix instructions (PTX ISA 9.0, §9.7.14): {@code mma.sync} (9.7.14.5.14), {@code ldmatrix}
 * (9.7.14.5.15), {@code stmatrix} (9.7.14.5.16), {@code movmatrix} (9.7.14.5.17) and {@code wmma.load/store/mma} (9.7.14.4). Each is executed
 * by the whole warp at once: the operands of all 32 lanes are gathered into logical matrices by the
 * fragment layouts of §9.7.14.5.x, the result is computed and scattered back. These instructions are
 * {@code .sync.aligned}: a warp that does not execute them with all 32 lanes stops the kernel with
 * CUDA_ERROR_ILLEGAL_INSTRUCTION (the hardware's behaviour is undefined there).
 *
 * <p>Numerics of the floating-point {@code mma}/{@code wmma} ({@link #dotFloat}) are not in the ISA; they were
 * derived from results recorded on an NVIDIA H200 (conformance family {@code matrix}, see
 * {@code zluda-runtime/src/test/resources/conformance/h200/README.md}) and match all of them bit for bit.
 */
final class MatrixOps {
    private MatrixOps() {}

    /** Element formats of matrix operands. */
    static final int F16 = 0, BF16 = 1, TF32 = 2, F32 = 3, S8 = 4, U8 = 5, S32 = 6;

    /** Bits of one element of a format. */
    static int bits(int fmt) {
        return switch (fmt) {
            case F16, BF16 -> 16;
            case S8, U8 -> 8;
            default -> 32;
        };
    }

    private static int expBits(int fmt) {
        return fmt == F16 ? 5 : 8;
    }

    private static int mantBits(int fmt) {
        return switch (fmt) {
            case F16, TF32 -> 10;
            case BF16 -> 7;
            default -> 23;
        };
    }

    // ------------------------------------------------------------------ numerics

    /**
     * One element of a floating-point mma: {@code c + sum(a[i] * b[i])} as the H200's tensor cores compute it
     * (the model below reproduces every result recorded on the H200: 22 016 elements of 43 mma forms with f16, bf16
     * and tf32 inputs and f16/f32 accumulators, and 14 336 of 14 wmma forms, including NaN, ±inf, ±0, subnormals and overflow):
     * <ul>
     * <li>every product is exact; f16 and bf16 subnormal inputs are used as they are; a tf32 operand is the
     * top 19 bits of its 32-bit register (the low 13 bits are ignored);</li>
     * <li>each term (the k products and c) has an alignment exponent: for a product {@code ea + eb + 1}, for
     * c {@code ec + 1} ({@code e} the unbiased exponent, subnormals at the format's minimum); with E the
     * largest alignment exponent of the non-zero terms, every term is truncated toward zero to a multiple of
     * 2^(E-26), and the truncated terms are added exactly;</li>
     * <li>the sum is rounded toward zero to an f32 result, to nearest-even to an f16 result; a sum of
     * magnitude 2^128 or more gives ±inf even toward zero (2^16 for f16); a zero result is always +0 (also when every term is -0, unlike IEEE 754);</li>
     * <li>a NaN operand gives the canonical NaN (0x7fffffff, f16 0x7fff), as do inf × 0 and inf - inf; else
     * an infinite product or c gives that infinity.</li>
     * </ul>
     *
     * @param fab format of a and b ({@link #F16}, {@link #BF16}, {@link #TF32}), raw bits
     * @param k   number of products
     * @param fc  format of c ({@link #F16} or {@link #F32})
     * @param fd  format of the result ({@link #F16} or {@link #F32})
     * @return the result's bits
     */
    static long dotFloat(int fab, long[] a, long[] b, int k, int fc, long c, int fd) {
        boolean nan = false, pinf = false, ninf = false;
        int cc = cls(fc, c);
        if (cc == NAN) nan = true;
        else if (cc == INF) {
            if (sign(fc, c)) ninf = true;
            else pinf = true;
        }
        for (int i = 0; i < k; i++) {
            int ca = cls(fab, a[i]), cb = cls(fab, b[i]);
            if (ca == NAN || cb == NAN) {
                nan = true;
            } else if (ca == INF || cb == INF) {
                if (ca == ZERO || cb == ZERO) nan = true;
                else if (sign(fab, a[i]) ^ sign(fab, b[i])) ninf = true;
                else pinf = true;
            }
        }
        boolean f16 = fd == F16;
        if (nan || (pinf && ninf)) return f16 ? 0x7fffL : 0x7fff_ffffL;
        if (pinf) return f16 ? 0x7c00L : 0x7f80_0000L;
        if (ninf) return f16 ? 0xfc00L : 0xff80_0000L;

        // terms: significand (integer), exponent of its lowest bit, alignment exponent, sign
        long[] sig = new long[k + 1];
        int[] lo = new int[k + 1];
        boolean[] neg = new boolean[k + 1];
        int e = Integer.MIN_VALUE;
        int mab = mantBits(fab), mc = mantBits(fc);
        long[] t = new long[2];
        for (int i = 0; i < k; i++) {
            int ea = decode(fab, a[i], t);
            long sa = t[0];
            int eb = decode(fab, b[i], t);
            long sb = t[0];
            sig[i] = sa * sb;
            lo[i] = ea + eb;
            neg[i] = sign(fab, a[i]) ^ sign(fab, b[i]);
            if (sig[i] != 0) e = Math.max(e, ea + mab + eb + mab + 1);
        }
        lo[k] = decode(fc, c, t);
        sig[k] = t[0];
        neg[k] = sign(fc, c);
        if (sig[k] != 0) e = Math.max(e, lo[k] + mc + 1);
        if (e == Integer.MIN_VALUE) return 0; // every term ±0: +0, whatever the signs (recorded on the H200)
        int lsb = e - 26;
        long s = 0;
        for (int i = 0; i <= k; i++) {
            if (sig[i] == 0) continue;
            int sh = lsb - lo[i];
            long v = sh <= 0 ? sig[i] << -sh : sh >= 63 ? 0 : sig[i] >>> sh;
            s += neg[i] ? -v : v;
        }
        if (s == 0) return 0;
        return f16 ? round(s < 0, Math.abs(s), lsb, 5, 10, true) : round(s < 0, Math.abs(s), lsb, 8, 23, false);
    }

    private static final int ZERO = 0, FINITE = 1, INF = 2, NAN = 3;

    private static long raw(int fmt, long bits) {
        return fmt == TF32 ? (bits & 0xFFFF_FFFFL) >>> 13 : bits & (fmt == F32 ? 0xFFFF_FFFFL : 0xFFFFL);
    }

    private static int cls(int fmt, long bits) {
        long v = raw(fmt, bits);
        int eb = expBits(fmt), mb = mantBits(fmt);
        long ex = (v >>> mb) & ((1L << eb) - 1), m = v & ((1L << mb) - 1);
        if (ex == (1L << eb) - 1) return m == 0 ? INF : NAN;
        return ex == 0 && m == 0 ? ZERO : FINITE;
    }

    private static boolean sign(int fmt, long bits) {
        long v = raw(fmt, bits);
        return ((v >>> (expBits(fmt) + mantBits(fmt))) & 1) != 0;
    }

    /** Significand (into {@code out[0]}) and exponent of its lowest bit of a finite value. */
    private static int decode(int fmt, long bits, long[] out) {
        long v = raw(fmt, bits);
        int eb = expBits(fmt), mb = mantBits(fmt);
        int bias = (1 << (eb - 1)) - 1;
        int ex = (int) ((v >>> mb) & ((1L << eb) - 1));
        long m = v & ((1L << mb) - 1);
        if (ex == 0) {
            out[0] = m;
            return 1 - bias - mb;
        }
        out[0] = m | 1L << mb;
        return ex - bias - mb;
    }

    /**
     * {@code ±mag × 2^lsb} rounded to a binary format (to nearest even, or toward zero); ±inf when too
     * large, +0 when it rounds to zero.
     */
    static long round(boolean neg, long mag, int lsb, int eb, int mb, boolean nearest) {
        int bias = (1 << (eb - 1)) - 1, emin = 1 - bias;
        int lead = 63 - Long.numberOfLeadingZeros(mag);
        int ex = lead + lsb;
        int shift = (Math.max(ex, emin) - mb) - lsb;
        long q;
        if (shift <= 0) {
            q = mag << -shift;
        } else if (shift >= 63) {
            q = 0;
        } else {
            q = mag >>> shift;
            long rem = mag & ((1L << shift) - 1), half = 1L << (shift - 1);
            if (nearest && (rem > half || (rem == half && (q & 1) == 1))) q++;
        }
        long v = ex < emin ? q : ((long) (ex + bias) << mb) + q - (1L << mb);
        long inf = ((1L << eb) - 1) << mb;
        if (v >= inf) v = inf;
        if (v == 0) return 0;
        return v | (neg ? 1L << (eb + mb) : 0);
    }

    /** One element of an integer mma (s8/u8 inputs, s32 accumulator): wraps modulo 2^32, or saturates with {@code .satfinite}. */
    static long dotInt(int fa, int fb, long[] a, long[] b, int k, long c, boolean satfinite) {
        long s = (int) c;
        for (int i = 0; i < k; i++) {
            long x = fa == S8 ? (byte) a[i] : a[i] & 0xff, y = fb == S8 ? (byte) b[i] : b[i] & 0xff;
            s += x * y;
        }
        if (satfinite) s = Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, s));
        return s & 0xFFFF_FFFFL;
    }

    // ------------------------------------------------------------------ fragments of mma (PTX ISA 9.0, 9.7.14.5.x)

    /**
     * (row, column) of element {@code i} (register order, low bits first) of lane {@code lane}'s fragment of
     * operand 'a', 'b' or 'c' (C and D) of {@code mma.m16n8k*}: §9.7.14.5.7 (m16n8k8 f16/bf16), §9.7.14.5.8
     * (m16n8k16 f16/bf16), §9.7.14.5.6 (m16n8k8 tf32), §9.7.14.5.9 (m16n8k16 s8/u8: the first k-half of
     * m16n8k32's layout, i &lt; 8 for A and i &lt; 4 for B), §9.7.14.5.10 (m16n8k32 s8/u8).
     */
    static int[] coord(int k, int fab, char which, int lane, int i) {
        int g = lane >> 2, t = lane & 3;
        boolean tf32 = fab == TF32, i8 = fab == S8 || fab == U8;
        return switch (which) {
            case 'a' -> tf32 ? new int[] {g + 8 * (i & 1), t + 4 * (i >> 1)}
                    : i8 ? new int[] {g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >> 3)}
                    : k == 8 ? new int[] {g + 8 * (i >> 1), 2 * t + (i & 1)}
                    : new int[] {g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)};
            case 'b' -> tf32 ? new int[] {t + 4 * i, g}
                    : i8 ? new int[] {4 * t + (i & 3) + 16 * (i >> 2), g}
                    : k == 8 ? new int[] {2 * t + i, g}
                    : new int[] {2 * t + (i & 1) + 8 * (i >> 1), g};
            default -> new int[] {g + 8 * (i >> 1), 2 * t + (i & 1)};
        };
    }

    static Fault partialWarp(Op op, int m) {
        return new Fault(Errors.ILLEGAL_INSTRUCTION, Integer.numberOfTrailingZeros(~m),
                "'" + op.form + "' (.sync.aligned) executed by lanes " + String.format("0x%08x", m) + ", not by the whole warp");
    }

    /**
     * {@code mma.sync.aligned.m16n8k{8,16,32}.row.col} d, a, b, c: D = A·B + C with A m×k (row), B k×n (col),
     * C and D m×n, operands spread over the warp's registers by the fragment layouts ({@link #coord}).
     */
    static final class Mma extends Op {
        final int m, n, k, fa, fb, fc, fd;
        final boolean satfinite;
        final int[] d, a, b, c;

        Mma(int m, int n, int k, int fa, int fb, int fc, int fd, boolean satfinite, int[] d, int[] a, int[] b, int[] c) {
            super(NORMAL);
            this.m = m;
            this.n = n;
            this.k = k;
            this.fa = fa;
            this.fb = fb;
            this.fc = fc;
            this.fd = fd;
            this.satfinite = satfinite;
            this.d = d;
            this.a = a;
            this.b = b;
            this.c = c;
        }

        private void gather(long[] r, int[] regs, int fmt, char which, long[][] out) {
            int bt = bits(fmt), per = 32 / bt;
            for (int lane = 0; lane < 32; lane++) {
                for (int j = 0; j < regs.length; j++) {
                    long w = r[regs[j] + lane];
                    for (int e = 0; e < per; e++) {
                        int[] rc = coord(k, fa, which, lane, j * per + e);
                        out[rc[0]][rc[1]] = (w >>> (bt * e)) & ((1L << bt) - 1);
                    }
                }
            }
        }

        @Override
        void exec(Warp w, int mask) {
            if (mask != -1) throw partialWarp(this, mask);
            long[] r = w.r;
            long[][] am = new long[m][k], bm = new long[k][n], cm = new long[m][n];
            gather(r, a, fa, 'a', am);
            gather(r, b, fb, 'b', bm);
            gather(r, c, fc, 'c', cm);
            long[][] dm = new long[m][n];
            long[] col = new long[k];
            boolean integer = fa == S8 || fa == U8;
            for (int j = 0; j < n; j++) {
                for (int q = 0; q < k; q++) col[q] = bm[q][j];
                for (int i = 0; i < m; i++) {
                    dm[i][j] = integer ? dotInt(fa, fb, am[i], col, k, cm[i][j], satfinite) : dotFloat(fa, am[i], col, k, fc, cm[i][j], fd);
                }
            }
            int bt = bits(fd), per = 32 / bt;
            for (int lane = 0; lane < 32; lane++) {
                for (int j = 0; j < d.length; j++) {
                    long v = 0;
                    for (int e = 0; e < per; e++) {
                        int[] rc = coord(k, fa, 'c', lane, j * per + e);
                        v |= dm[rc[0]][rc[1]] << (bt * e);
                    }
                    if (d[j] >= 0) r[d[j] + lane] = v;
                }
            }
        }
    }

    /**
     * {@code ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].b16} d, [p]: lanes 8i..8i+7 give the addresses of the
     * eight 16-byte rows of matrix i; lane l receives in d[i] the elements (l/4, 2(l%4)) and (l/4, 2(l%4)+1)
     * of matrix i, or with {@code .trans} (2(l%4), l/4) and (2(l%4)+1, l/4).
     */
    static final class Ldmatrix extends MemOps.Access {
        final int[] d;
        final boolean trans;

        Ldmatrix(int space, int base, boolean base32, long offset, int[] d, boolean trans) {
            super(space, base, base32, offset);
            this.d = d;
            this.trans = trans;
        }

        @Override
        void exec(Warp w, int mask) {
            if (mask != -1) throw partialWarp(this, mask);
            long[] r = w.r;
            int[][] mat = new int[8][8];
            for (int i = 0; i < d.length; i++) {
                for (int row = 0; row < 8; row++) {
                    int lane = 8 * i + row;
                    long abs = resolve(w, address(r, lane), 16, lane, Warp.READ);
                    for (int col = 0; col < 8; col++) mat[row][col] = (int) Mem.load(abs + 2L * col, 2, false);
                }
                for (int lane = 0; lane < 32; lane++) {
                    int g = lane >> 2, t = 2 * (lane & 3);
                    long lo = trans ? mat[t][g] : mat[g][t], hi = trans ? mat[t + 1][g] : mat[g][t + 1];
                    if (d[i] >= 0) r[d[i] + lane] = lo | hi << 16;
                }
            }
        }
    }

    /**
     * {@code movmatrix.sync.aligned.m8n8.trans.b16} d, a: the 8×8 matrix of b16 elements whose row l/4 holds in
     * columns 2(l%4) and 2(l%4)+1 the low and high halves of lane l's {@code a} (the fragment {@link Ldmatrix}
     * writes), transposed: lane l receives elements (2(l%4), l/4) and (2(l%4)+1, l/4) in {@code d}.
     */
    static final class Movmatrix extends Op {
        final int d, a;

        Movmatrix(int d, int a) {
            super(NORMAL);
            this.d = d;
            this.a = a;
        }

        @Override
        void exec(Warp w, int mask) {
            if (mask != -1) throw partialWarp(this, mask);
            long[] r = w.r;
            int[][] mat = new int[8][8];
            for (int lane = 0; lane < 32; lane++) {
                long v = r[a + lane];
                int g = lane >> 2, t = 2 * (lane & 3);
                mat[g][t] = (int) (v & 0xffff);
                mat[g][t + 1] = (int) (v >>> 16 & 0xffff);
            }
            if (d < 0) return;
            for (int lane = 0; lane < 32; lane++) {
                int g = lane >> 2, t = 2 * (lane & 3);
                r[d + lane] = (long) mat[t][g] | (long) mat[t + 1][g] << 16;
            }
        }
    }

    /** {@code stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].b16} [p], s: the inverse of {@link Ldmatrix}. */
    static final class Stmatrix extends MemOps.Access {
        final int[] s;
        final boolean trans;

        Stmatrix(int space, int base, boolean base32, long offset, int[] s, boolean trans) {
            super(space, base, base32, offset);
            this.s = s;
            this.trans = trans;
        }

        @Override
        void exec(Warp w, int mask) {
            if (mask != -1) throw partialWarp(this, mask);
            long[] r = w.r;
            int[][] mat = new int[8][8];
            for (int i = 0; i < s.length; i++) {
                for (int lane = 0; lane < 32; lane++) {
                    int g = lane >> 2, t = 2 * (lane & 3);
                    long v = r[s[i] + lane];
                    int lo = (int) (v & 0xffff), hi = (int) (v >>> 16 & 0xffff);
                    if (trans) {
                        mat[t][g] = lo;
                        mat[t + 1][g] = hi;
                    } else {
                        mat[g][t] = lo;
                        mat[g][t + 1] = hi;
                    }
                }
                for (int row = 0; row < 8; row++) {
                    int lane = 8 * i + row;
                    long abs = resolve(w, address(r, lane), 16, lane, Warp.WRITE);
                    for (int col = 0; col < 8; col++) Mem.store(abs + 2L * col, 2, mat[row][col]);
                }
            }
        }
    }

    // ------------------------------------------------------------------ wmma (PTX ISA 9.0, 9.7.14.4)

    /**
     * The emulator's wmma fragment layout for 16×16 matrices (the ISA leaves it unspecified: a program can
     * only rely on load → mma → store and on element-wise operations). A fragment of {@code per} elements per
     * lane holds matrix element {@code 8*lane + (e % 8)} (row-major index) in its element e; A and B fragments
     * of f16 (16 elements per lane) hold every element twice, as the hardware's do.
     */
    static int wmmaIndex(int lane, int e) {
        return 8 * lane + (e & 7);
    }

    /**
     * {@code wmma.load.{a,b,c}.sync.aligned.layout.m16n16k16[.space].type} r, [p], stride: reads the 16×16
     * matrix at p (row-major: element (i,j) at p + (i·stride + j)·size, col-major: p + (j·stride + i)·size),
     * p and stride taken from the lowest lane.
     */
    static final class WmmaLoad extends MemOps.Access {
        final int[] d;
        final int fmt, stride;
        final boolean col;

        WmmaLoad(int space, int base, boolean base32, long offset, int[] d, int fmt, boolean col, int stride) {
            super(space, base, base32, offset);
            this.d = d;
            this.fmt = fmt;
            this.col = col;
            this.stride = stride;
        }

        @Override
        void exec(Warp w, int mask) {
            if (mask != -1) throw partialWarp(this, mask);
            long[] r = w.r;
            int size = bits(fmt) / 8;
            long p = address(r, 0);
            long ld = stride >= 0 ? r[stride] & 0xFFFF_FFFFL : 16;
            long[] m = new long[256];
            for (int i = 0; i < 16; i++) {
                for (int j = 0; j < 16; j++) {
                    long a = p + (col ? j * ld + i : i * ld + j) * size;
                    m[i * 16 + j] = Mem.load(resolve(w, a, size, 0, Warp.READ), size, false);
                }
            }
            int per = 32 / (size * 8);
            for (int lane = 0; lane < 32; lane++) {
                for (int j = 0; j < d.length; j++) {
                    long v = 0;
                    for (int e = 0; e < per; e++) v |= m[wmmaIndex(lane, j * per + e)] << (size * 8 * e);
                    if (d[j] >= 0) r[d[j] + lane] = v;
                }
            }
        }
    }

    /** {@code wmma.store.d.sync.aligned.layout.m16n16k16[.space].type} [p], r, stride: the inverse of {@link WmmaLoad}. */
    static final class WmmaStore extends MemOps.Access {
        final int[] s;
        final int fmt, stride;
        final boolean col;

        WmmaStore(int space, int base, boolean base32, long offset, int[] s, int fmt, boolean col, int stride) {
            super(space, base, base32, offset);
            this.s = s;
            this.fmt = fmt;
            this.col = col;
            this.stride = stride;
        }

        @Override
        void exec(Warp w, int mask) {
            if (mask != -1) throw partialWarp(this, mask);
            long[] r = w.r;
            int size = bits(fmt) / 8, per = 32 / (size * 8);
            long[] m = new long[256];
            for (int lane = 0; lane < 32; lane++) {
                for (int j = 0; j < s.length; j++) {
                    long v = r[s[j] + lane];
                    for (int e = 0; e < per; e++) m[wmmaIndex(lane, j * per + e)] = (v >>> (size * 8 * e)) & ((1L << (size * 8)) - 1);
                }
            }
            long p = address(r, 0);
            long ld = stride >= 0 ? r[stride] & 0xFFFF_FFFFL : 16;
            for (int i = 0; i < 16; i++) {
                for (int j = 0; j < 16; j++) {
                    long a = p + (col ? j * ld + i : i * ld + j) * size;
                    Mem.store(resolve(w, a, size, 0, Warp.WRITE), size, m[i * 16 + j]);
                }
            }
        }
    }

    /**
     * {@code wmma.mma.sync.aligned.alayout.blayout.m16n16k16.dtype.ctype} d, a, b, c (and the .bf16 form):
     * D = A·B + C on 16×16 matrices, each element computed as by {@code mma.m16n8k16} ({@link #dotFloat}).
     */
    static final class WmmaMma extends Op {
        final int fab, fc, fd;
        final int[] d, a, b, c;

        WmmaMma(int fab, int fc, int fd, int[] d, int[] a, int[] b, int[] c) {
            super(NORMAL);
            this.fab = fab;
            this.fc = fc;
            this.fd = fd;
            this.d = d;
            this.a = a;
            this.b = b;
            this.c = c;
        }

        /**
         * One element. With mixed accumulator types the H200 converts: an f16 C to f32 first (exactly; an f16
         * subnormal becomes a normal f32 and aligns as one), an f32 result to f16 last (cvt.rn.f16.f32: -0
         * stays -0), as the recorded data shows.
         */
        private long element(long[] row, long[] col, long c) {
            if (fc == F16 && fd == F32) return dotFloat(fab, row, col, 16, F32, Float.floatToRawIntBits(Float.float16ToFloat((short) c)) & 0xFFFF_FFFFL, F32);
            if (fc == F32 && fd == F16) return FloatMath.toHalf(Float.intBitsToFloat((int) dotFloat(fab, row, col, 16, F32, c, F32)), FloatMath.RN) & 0xFFFFL;
            return dotFloat(fab, row, col, 16, fc, c, fd);
        }

        private static long[] gather(long[] r, int[] regs, int fmt) {
            int bt = bits(fmt), per = 32 / bt;
            long[] m = new long[256];
            for (int lane = 0; lane < 32; lane++) {
                for (int j = 0; j < regs.length; j++) {
                    long v = r[regs[j] + lane];
                    for (int e = 0; e < per; e++) {
                        int idx = wmmaIndex(lane, j * per + e);
                        if (j * per + e < 8) m[idx] = (v >>> (bt * e)) & ((1L << bt) - 1);
                    }
                }
            }
            return m;
        }

        @Override
        void exec(Warp w, int mask) {
            if (mask != -1) throw partialWarp(this, mask);
            long[] r = w.r;
            long[] am = gather(r, a, fab), bm = gather(r, b, fab), cm = gather(r, c, fc);
            long[] row = new long[16], col = new long[16];
            long[] dm = new long[256];
            for (int i = 0; i < 16; i++) {
                System.arraycopy(am, i * 16, row, 0, 16);
                for (int j = 0; j < 16; j++) {
                    for (int q = 0; q < 16; q++) col[q] = bm[q * 16 + j];
                    dm[i * 16 + j] = element(row, col, cm[i * 16 + j]);
                }
            }
            int bt = bits(fd), per = 32 / bt;
            for (int lane = 0; lane < 32; lane++) {
                for (int j = 0; j < d.length; j++) {
                    long v = 0;
                    for (int e = 0; e < per; e++) v |= dm[wmmaIndex(lane, j * per + e)] << (bt * e);
                    if (d[j] >= 0) r[d[j] + lane] = v;
                }
            }
        }
    }
}
