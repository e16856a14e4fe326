package dev.zluda.runtime.emulator.conformance;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The input generator of the exhaustive instruction sweep ({@link Sweep}): value classes (their special values
 * and random distributions) and the function that maps a tuple index to the operands of a form. It is a pure
 * function of (form seed, tuple index, operand), counter-based, so that any block of a form's inputs can be made
 * without the others; {@code zluda-runtime/src/test/conformance/sweep_harness.c} implements the same function in
 * C (the GPU machine generates the inputs itself instead of receiving gigabytes of them), and
 * {@code SweepTest} checks the two agree (CRC of every form's inputs, computed by both and recorded).
 *
 * <p>Tuple layout: {@link Plan#stride} bytes per tuple, operand j at byte {@code j * wordBytes}, little endian,
 * {@code wordBytes} 8 (one 8-byte slot per operand, the value in its low bits) or 4 (32-bit words: the per-lane
 * registers of the matrix forms).
 *
 * <p>Segments of a {@link Plan#STD} plan with k operands (S_j specials of operand j's class; a class of 16 bits
 * or less is "exhaustible"):
 * <ol>
 * <li>A: one operand of at most 16 bits: every value (2^bits tuples, nothing else). Otherwise every combination of
 * specials when there are at most {@link #PRODUCT_CAP}, else every pair of operands with every pair of their
 * specials (the other operands a random special).</li>
 * <li>X: for each exhaustible operand of a form with k ≥ 2: 65536 tuples with that operand running through every
 * value, the others random (a special with probability 1/4): the stratified sample of binary 16-bit forms.</li>
 * <li>E: for each other operand of a form with k ≥ 2: every special crossed with {@link #CROSS} random tuples of
 * the other operands.</li>
 * <li>R: at least {@link #RANDOM} random tuples (each operand a special with probability 1/8), filling the last
 * block of {@link #BLOCK} tuples.</li>
 * </ol>
 * A {@link Plan#RAND} plan (warp-level and matrix forms) has segment R only, and operands of the {@code ENUM}
 * kinds that run through a range or a table by (warp) index; a {@link Plan#LIGHT} plan segments A and R (for the
 * variants of a form, such as the {@code .and/.or/.xor} and destination-type variants of {@code set}, whose base
 * form has the full plan).
 */
public final class SweepValues {
    private SweepValues() {}

    /** Tuples per hashed block (outputs are hashed per block: {@link Sweep} and the harness). */
    public static final int BLOCK = 1024;
    /** Largest product of specials enumerated in full (segment A). */
    public static final int PRODUCT_CAP = 8192;
    /** Random partners of each special (segment E). */
    public static final int CROSS = 128;
    /** Random tuples at least (segment R). */
    public static final int RANDOM = 16384;

    /** Value kinds (the C harness switches on the same numbers). */
    public static final int INT = 0, FLOAT = 1, PAIR = 2, SH = 3, BF = 4, BOOL = 5, SEL = 6, ANY = 7, RANGE = 8, ENUM = 9, ENUMSPEC = 10;

    /**
     * A value class.
     *
     * @param id       index in {@link #classes()}
     * @param name     its name
     * @param bits     significant bits (8, 16, 32, 64)
     * @param kind     how random values are drawn ({@link #INT} ...)
     * @param expBits  FLOAT: exponent bits; PAIR: the id of the class of each 16-bit half; RANGE/ENUM: the range;
     *                 ENUMSPEC: unused
     * @param div      ENUM/ENUMSPEC: the index is divided by this before taking it modulo the range / table size
     * @param specials the special values (bits), drawn from in every segment
     */
    public record Cls(int id, String name, int bits, int kind, int expBits, long div, long[] specials) {
        long mask() {
            return bits == 64 ? -1L : (1L << bits) - 1;
        }

        boolean exhaustible() {
            return bits <= 16 && (kind == INT || kind == FLOAT || kind == ANY);
        }
    }

    private static final List<Cls> CLASSES = new ArrayList<>();
    private static final Map<String, Cls> BY_NAME = new LinkedHashMap<>();

    /** Every class, by id. */
    public static List<Cls> classes() {
        return CLASSES;
    }

    /** The class of a name; throws for an unknown one. */
    public static Cls cls(String name) {
        Cls c = BY_NAME.get(name);
        if (c == null) throw new IllegalArgumentException("no value class " + name);
        return c;
    }

    static Cls define(String name, int bits, int kind, int param, long div, long[] specials) {
        Cls old = BY_NAME.get(name);
        if (old != null) return old;
        long m = bits == 64 ? -1L : (1L << bits) - 1;
        long[] s = java.util.Arrays.stream(specials).map(v -> v & m).distinct().toArray();
        Cls c = new Cls(CLASSES.size(), name, bits, kind, param, div, s);
        CLASSES.add(c);
        BY_NAME.put(name, c);
        return c;
    }

    /** An ENUM class: value = (index / div) mod range. */
    public static Cls enumCls(int range, long div) {
        return define("enum" + range + "/" + div, 32, ENUM, range, div, new long[] {0});
    }

    /** An ENUMSPEC class: value = table[(index / div) mod table size]. */
    public static Cls enumTable(String name, long div, long... table) {
        return define(name + "/" + div, 32, ENUMSPEC, 0, div, table);
    }

    /** A RANGE class: uniform in [0, range). */
    public static Cls range(int range) {
        return define("range" + range, 32, RANGE, range, 1, new long[] {0, range - 1});
    }

    // ------------------------------------------------------------------ specials

    private static long[] intSpecials(int bits) {
        long m = bits == 64 ? -1L : (1L << bits) - 1;
        List<Long> v = new ArrayList<>(List.of(0L, 1L, 2L, 3L, 5L, 7L, 10L, m, m - 1, m - 2, -7L, -10L, 0x7fL, 0x80L, 0xffL, 0x7fffL, 0x8000L, 0xffffL,
                0x55555555_55555555L, 0xaaaaaaaa_aaaaaaaaL, 0x12345678_9abcdef0L, 0xfedcba98_76543210L, 0x0f0f0f0f_0f0f0f0fL, 0x80000000L, 0x7fffffffL,
                0xffffffffL, 0x1_00000000L));
        long min = 1L << (bits - 1);
        v.addAll(List.of(min, min - 1, min + 1, -min));
        for (int k = 0; k < bits; k++) {
            v.add(1L << k);            // powers of two
            v.add(-(1L << k));         // their negatives
            if (k % 4 == 3 || k >= bits - 2) v.add((1L << k) - 1 + (1L << k)); // 2^(k+1) - 1: all ones below
        }
        return v.stream().mapToLong(x -> x & m).toArray();
    }

    /** Float specials: ±0, subnormals, smallest/largest normal, ±inf, NaNs with payloads (quiet and signalling), ±1, powers of two, ties. */
    private static long[] floatSpecials(int bits, int e) {
        int f = bits - 1 - e;
        long sign = 1L << (bits - 1), expMask = ((1L << e) - 1) << f, fm = (1L << f) - 1;
        int bias = (1 << (e - 1)) - 1;
        List<Long> mags = new ArrayList<>();
        mags.add(0L);                                      // 0
        mags.add(1L);                                      // smallest subnormal
        mags.add(2L);
        mags.add(1L << (f - 1));                           // a mid subnormal
        mags.add(fm);                                      // largest subnormal
        mags.add(1L << f);                                 // smallest normal
        mags.add((1L << f) | 1);
        mags.add(expMask - 1);                             // largest finite
        mags.add(expMask - 2);
        mags.add(expMask);                                 // inf
        for (int x : new int[] {-1, 0, 1}) {
            long one = (long) (bias + x) << f;
            mags.add(one);                                 // 0.5, 1, 2
            mags.add(one + 1);                             // just above
            mags.add(one - 1);                             // just below
            mags.add(one | 1L << (f - 1));                 // 0.75, 1.5, 3: ties for the integer roundings
        }
        mags.add((long) (bias + 1) << f | 1L << (f - 2));  // 2.5
        for (int p : new int[] {f, f + 1, 15, 16, 31, 32, 63, 64, 127, -f, -bias + 1, bias, bias - 1, -f - bias + 1 + f / 2}) {
            long ex = bias + p;                             // powers of two: integer and overflow boundaries
            if (ex > 0 && ex < (1L << e) - 1) {
                mags.add(ex << f);
                mags.add((ex << f) - 1);                    // the largest value below
            }
        }
        mags.add(1L << f | fm);                             // the smallest normal's largest sibling
        List<Long> v = new ArrayList<>();
        for (long m : mags) {
            v.add(m);
            v.add(m | sign);
        }
        // NaNs: canonical quiet, all-ones, signalling with the lowest payload, quiet and signalling payloads, negative
        long q = expMask | 1L << (f - 1);
        v.addAll(List.of(q, expMask | fm, expMask | 1, q | 0x45, expMask | 0x2a, q | sign | 1, expMask | sign | 0x15, expMask | sign | fm));
        return v.stream().mapToLong(Long::longValue).toArray();
    }

    private static long[] halfSpecials(int e) {
        return floatSpecials(16, e);
    }

    static {
        define("i16", 16, INT, 0, 1, intSpecials(16));
        define("i32", 32, INT, 0, 1, intSpecials(32));
        define("i64", 64, INT, 0, 1, intSpecials(64));
        Cls f16 = define("f16", 16, FLOAT, 5, 1, halfSpecials(5));
        Cls bf16 = define("bf16", 16, FLOAT, 8, 1, halfSpecials(8));
        define("f32", 32, FLOAT, 8, 1, floatSpecials(32, 8));
        define("f64", 64, FLOAT, 11, 1, floatSpecials(64, 11));
        define("f16x2", 32, PAIR, f16.id(), 1, pairs(f16.specials()));
        define("bf16x2", 32, PAIR, bf16.id(), 1, pairs(bf16.specials()));
        define("bool", 32, BOOL, 0, 1, new long[] {0, 1});
        define("sh", 32, SH, 0, 1, new long[] {0, 1, 2, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256, 0xffffffffL, 0x80000000L, 0x80000001L});
        define("bf", 32, BF, 0, 1, new long[] {0, 1, 2, 3, 4, 7, 8, 15, 16, 24, 31, 32, 33, 63, 64, 65, 255, 256, 257, 0xffffffffL, 0x80000000L});
        define("sel", 32, SEL, 0, 1, new long[] {0x3210, 0x7654, 0x0123, 0x4567, 0x0000, 0xffff, 0x8888, 0x1111, 0xfedc, 0x89ab, 0x0f0f, 0xf0f0, 0x1234,
                0x5678, 0x0004, 0x0040, 0x00ff, 0xff00, 0xffffffffL, 0x12340000L});
        define("any16", 16, ANY, 0, 1, new long[] {0, 0xffff, 0x8000, 0x7fff, 1});
        define("any32", 32, ANY, 0, 1, new long[] {0, 0xffffffffL, 0x80000000L, 0x7fffffffL, 1});
        define("any64", 64, ANY, 0, 1, new long[] {0, -1L, 0x8000000000000000L, 0x7fffffffffffffffL, 1});
    }

    /** Packed specials: each half special in the low lane, paired with a half special in the high lane (a fixed permutation). */
    private static long[] pairs(long[] h) {
        long[] out = new long[h.length];
        for (int i = 0; i < h.length; i++) out[i] = h[i] | h[(int) ((i * 7L + 3) % h.length)] << 16;
        return out;
    }

    // ------------------------------------------------------------------ the generator

    /** SplitMix64's finalizer. */
    public static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /** Draw {@code k} of operand {@code j} of tuple {@code i}. */
    static long draw(long seed, long i, int j, int k) {
        return mix64(seed + i * 0x9E3779B97F4A7C15L + (long) (j * 64 + k + 1) * 0xD1B54A32D192ED03L);
    }

    private static long rem(long a, long n) {
        return Long.remainderUnsigned(a, n);
    }

    /**
     * A random value of a class (no specials): operand j of tuple i, draws from {@code sub}; {@code prev} is the previous
     * operand's value and {@code prevCls} its class id (-1: none), for the floats' "near the previous operand" draws.
     */
    static long random(Cls c, long seed, long i, int j, int sub, long prev, int prevCls) {
        long r0 = draw(seed, i, j, sub), r1 = draw(seed, i, j, sub + 1), r2 = draw(seed, i, j, sub + 2);
        long m = c.mask();
        switch (c.kind()) {
            case INT -> {
                long s = rem(r0, 4);
                if (s == 0) return (rem(r1, 512) - 256) & m;
                if (s == 1) return (r1 & m) >>> rem(r2, c.bits());
                return r1 & m;
            }
            case FLOAT -> {
                int e = c.expBits(), f = c.bits() - 1 - e;
                long fm = (1L << f) - 1, sign = (draw(seed, i, j, sub + 3) & 1) != 0 ? 1L << (c.bits() - 1) : 0;
                long r4 = draw(seed, i, j, sub + 4);
                long bias = (1L << (e - 1)) - 1, emax = (1L << e) - 1;
                switch ((int) rem(r0, 6)) {
                    case 0 -> {
                        return r1 & m;
                    }
                    case 1 -> {
                        long ex = Math.max(0, Math.min(emax, bias + rem(r2, 33) - 16));
                        return sign | ex << f | (r1 & fm);
                    }
                    case 2 -> {
                        long ex = rem(r2, 3);
                        return sign | ex << f | (r1 & fm) >>> rem(r4, f);
                    }
                    case 3 -> {
                        long ex = Math.max(1, Math.min(emax - 1, bias + rem(r2, 61) - 30));
                        long keep = Math.max(0, f - 1 - rem(r4, 6));
                        return sign | ex << f | (r1 & fm) & ~((1L << keep) - 1);
                    }
                    case 4 -> {
                        long ex = emax - 1 - rem(r2, Math.min(70, bias));
                        return sign | ex << f | (r1 & fm);
                    }
                    default -> {
                        if (prevCls != c.id()) return r1 & m;
                        long sb = 1L << (c.bits() - 1);
                        long d = rem(r4, 5) - 2;
                        return switch ((int) rem(r2, 3)) {
                            case 0 -> prev ^ sb;
                            case 1 -> ((prev ^ sb) + d) & m;
                            default -> (prev + d) & m;
                        };
                    }
                }
            }
            case PAIR -> {
                Cls h = CLASSES.get(c.expBits());
                int pc = prevCls == c.id() ? h.id() : -1;
                long lo = random(h, seed, i, j, sub, prev & 0xffff, pc);
                long hi = random(h, seed, i, j, sub + 16, prev >>> 16 & 0xffff, pc);
                return lo | hi << 16;
            }
            case SH -> {
                return rem(r0, 4) == 0 ? r1 & 0xffffffffL : rem(r1, 80);
            }
            case BF -> {
                return rem(r0, 8) == 0 ? r1 & 0xffffffffL : rem(r1, 70);
            }
            case BOOL -> {
                return r1 & 1;
            }
            case SEL -> {
                return rem(r0, 3) == 0 ? r1 & 0xffffffffL : r1 & 0xffff;
            }
            case RANGE -> {
                return rem(r1, c.expBits());
            }
            default -> {
                return r1 & m;
            }
        }
    }

    /** A special of the class chosen by draw {@code k}. */
    private static long special(Cls c, long seed, long i, int j, int k) {
        return c.specials()[(int) rem(draw(seed, i, j, k), c.specials().length)];
    }

    /** A random operand that is a special with probability 1/{@code oneIn}. */
    private static long mixed(Cls c, long seed, long i, int j, int oneIn, long prev, int prevCls) {
        if (rem(draw(seed, i, j, 41), oneIn) == 0) return special(c, seed, i, j, 40);
        return random(c, seed, i, j, 0, prev, prevCls);
    }

    /**
     * The operands of one form: their classes, the tuple layout, and which operands are the same in every lane of a
     * warp (their index is {@code i >> 5}).
     *
     * @param mode      {@link #STD}, {@link #RAND} or {@link #LIGHT}
     * @param seed      the form's seed
     * @param classes   operand classes
     * @param uniform   per operand: warp-uniform
     * @param stride    bytes per tuple
     * @param wordBytes bytes per operand slot (8 or 4)
     * @param minTuples RAND: the number of tuples (rounded up to a block); STD: ignored
     */
    public record Plan(int mode, long seed, Cls[] classes, boolean[] uniform, int stride, int wordBytes, int minTuples) {
        /** Segments A, X, E, R. */
        public static final int STD = 0;
        /** Segment R only. */
        public static final int RAND = 1;
        /** Segments A and R (the variants of a form whose base form has the full {@link #STD} plan). */
        public static final int LIGHT = 2;

        int k() {
            return classes.length;
        }

        /** Sizes of segments A, X, E, R (R before rounding). */
        long[] segments() {
            int k = k();
            if (mode == RAND) return new long[] {0, 0, 0, Math.max(1, minTuples)};
            if (k == 0) return new long[] {0, 0, 0, BLOCK};
            if (k == 1 && classes[0].exhaustible()) return new long[] {1L << classes[0].bits(), 0, 0, 0};
            long prod = 1;
            for (Cls c : classes) prod = Math.min(Long.MAX_VALUE / 1024, prod * c.specials().length);
            long a;
            if (prod <= PRODUCT_CAP) a = prod;
            else {
                a = 0;
                for (int p = 0; p < k; p++) for (int q = p + 1; q < k; q++) a += (long) classes[p].specials().length * classes[q].specials().length;
            }
            long x = 0, e = 0;
            if (k >= 2 && mode == STD) {
                for (Cls c : classes) {
                    if (c.exhaustible()) x += 1L << 16;
                    else e += (long) c.specials().length * CROSS;
                }
            }
            return new long[] {a, x, e, RANDOM};
        }

        /** Tuples of the form: the segments, rounded up to a whole block. */
        public long tuples() {
            long[] s = segments();
            long t = s[0] + s[1] + s[2] + s[3];
            return (t + BLOCK - 1) / BLOCK * BLOCK;
        }

        /** Whether segment A is the full product of specials. */
        boolean fullProduct() {
            long prod = 1;
            for (Cls c : classes) prod = Math.min(Long.MAX_VALUE / 1024, prod * c.specials().length);
            return prod <= PRODUCT_CAP;
        }
    }

    /** The operands of tuple {@code i} of a plan (each operand's bits in the low bits of a long). */
    public static long[] tuple(Plan p, long i) {
        int k = p.k();
        long[] v = new long[k];
        long[] seg = p.segments();
        long t = i;
        int which = 3;
        for (int s = 0; s < 4; s++) {
            if (t < seg[s] || s == 3) {
                which = s;
                break;
            }
            t -= seg[s];
        }
        long seed = p.seed();
        long prev = 0;
        int prevCls = -1;
        switch (which) {
            case 0 -> {
                if (k == 1 && p.classes()[0].exhaustible()) {
                    v[0] = t;
                } else if (p.fullProduct()) {
                    long r = t;
                    for (int j = 0; j < k; j++) {
                        long[] sp = p.classes()[j].specials();
                        v[j] = sp[(int) (r % sp.length)];
                        r /= sp.length;
                    }
                } else {
                    int pp = -1, qq = -1;
                    long r = t;
                    outer:
                    for (int a = 0; a < k; a++) {
                        for (int b = a + 1; b < k; b++) {
                            long n = (long) p.classes()[a].specials().length * p.classes()[b].specials().length;
                            if (r < n) {
                                pp = a;
                                qq = b;
                                break outer;
                            }
                            r -= n;
                        }
                    }
                    for (int j = 0; j < k; j++) {
                        long[] sp = p.classes()[j].specials();
                        if (j == pp) v[j] = sp[(int) (r % sp.length)];
                        else if (j == qq) v[j] = sp[(int) (r / p.classes()[pp].specials().length)];
                        else v[j] = special(p.classes()[j], seed, i, j, 40);
                    }
                }
            }
            case 1 -> {
                int sel = -1;
                long r = t;
                for (int j = 0; j < k; j++) {
                    if (!p.classes()[j].exhaustible()) continue;
                    if (r < 65536) {
                        sel = j;
                        break;
                    }
                    r -= 65536;
                }
                for (int j = 0; j < k; j++) {
                    Cls c = p.classes()[j];
                    v[j] = j == sel ? r : mixed(c, seed, i, j, 4, prev, prevCls);
                    prev = v[j];
                    prevCls = c.id();
                }
            }
            case 2 -> {
                int sel = -1;
                long r = t;
                for (int j = 0; j < k; j++) {
                    Cls c = p.classes()[j];
                    if (c.exhaustible()) continue;
                    long n = (long) c.specials().length * CROSS;
                    if (r < n) {
                        sel = j;
                        break;
                    }
                    r -= n;
                }
                for (int j = 0; j < k; j++) {
                    Cls c = p.classes()[j];
                    v[j] = j == sel ? c.specials()[(int) (r / CROSS)] : mixed(c, seed, i, j, 8, prev, prevCls);
                    prev = v[j];
                    prevCls = c.id();
                }
            }
            default -> {
                for (int j = 0; j < k; j++) {
                    Cls c = p.classes()[j];
                    long idx = p.uniform()[j] ? i >> 5 : i;
                    if (c.kind() == ENUM) v[j] = (idx / c.div()) % c.expBits();
                    else if (c.kind() == ENUMSPEC) v[j] = c.specials()[(int) ((idx / c.div()) % c.specials().length)];
                    else v[j] = mixed(c, seed, idx, j, 8, prev, prevCls);
                    prev = v[j];
                    prevCls = c.id();
                }
            }
        }
        return v;
    }

    /** Writes tuples [from, from + count) of a plan into {@code out} (count × stride bytes, little endian). */
    public static void fill(Plan p, long from, int count, byte[] out) {
        ByteBuffer bb = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
        java.util.Arrays.fill(out, 0, count * p.stride(), (byte) 0);
        for (int n = 0; n < count; n++) {
            long[] v = tuple(p, from + n);
            int base = n * p.stride();
            for (int j = 0; j < v.length; j++) {
                if (p.wordBytes() == 8) bb.putLong(base + 8 * j, v[j]);
                else bb.putInt(base + 4 * j, (int) v[j]);
            }
        }
    }
}
