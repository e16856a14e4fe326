package dev.zluda.runtime.emulator;

/**
 * Warp-level instructions (PTX ISA 9.0, 9.7.9.6 shfl.sync, 9.7.13.8 vote, 9.7.13.9 match.sync,
 * 9.7.13.10 activemask, 9.7.13.11 redux.sync, 9.7.13.12 elect.sync). The participating lanes are
 * those executing the instruction (the running group, less lanes whose guard is false) that are
 * in {@code membermask}.
 */
final class WarpOps {
    private WarpOps() {}

    static final int UP = 0, DOWN = 1, BFLY = 2, IDX = 3;

    /**
     * shfl.sync.mode.b32 d[|p], a, b, c, membermask: lane j's {@code a}, with j computed from the
     * lane offset/index {@code b} and the clamp/segment word {@code c} exactly as the ISA's
     * pseudo-code; out-of-range j reads the lane's own {@code a} and sets p false.
     */
    static final class Shfl extends Op {
        final int mode, d, a, b, c, dp;

        Shfl(int mode, int d, int a, int b, int c, int dp) {
            super(NORMAL);
            this.mode = mode;
            this.d = d;
            this.a = a;
            this.b = b;
            this.c = c;
            this.dp = dp;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r, tmp = w.tmp;
            int pbits = 0;
            for (int x = m; x != 0; x &= x - 1) {
                int lane = Integer.numberOfTrailingZeros(x);
                int bval = (int) r[b + lane] & 31;
                int cw = (int) r[c + lane];
                int cval = cw & 31, seg = (cw >>> 8) & 31;
                int maxLane = (lane & seg) | (cval & ~seg);
                int minLane = lane & seg;
                int j;
                boolean pval;
                switch (mode) {
                    case UP -> { j = lane - bval; pval = j >= maxLane; }
                    case DOWN -> { j = lane + bval; pval = j <= maxLane; }
                    case BFLY -> { j = lane ^ bval; pval = j <= maxLane; }
                    default -> { j = minLane | (bval & ~seg); pval = j <= maxLane; }
                }
                if (!pval) j = lane;
                // a source lane that does not execute the shfl (outside the member mask, diverged or exited) gives 0
                // on an H200 (the ISA leaves it undefined; conformance sweep, partial member masks)
                tmp[lane] = (m >>> j & 1) != 0 ? r[a + j] : 0;
                if (pval) pbits |= 1 << lane;
            }
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                r[d + l] = tmp[l];
            }
            if (dp >= 0) w.p[dp] = (w.p[dp] & ~m) | (pbits & m);
        }
    }

    static final int ALL = 0, ANY = 1, UNI = 2, BALLOT = 3;

    /** vote.sync (.all/.any/.uni into a predicate, .ballot.b32 into a register). */
    static final class Vote extends Op {
        final int mode, d, a, mask;
        final boolean aNeg;

        Vote(int mode, int d, int a, boolean aNeg, int mask) {
            super(NORMAL);
            this.mode = mode;
            this.d = d;
            this.a = a;
            this.aNeg = aNeg;
            this.mask = mask;
        }

        @Override
        void exec(Warp w, int m) {
            int members = m & (mask >= 0 ? (int) w.r[mask + Integer.numberOfTrailingZeros(m)] : -1);
            int src = (aNeg ? ~w.p[a] : w.p[a]) & members;
            if (mode == BALLOT) {
                long v = src & 0xFFFF_FFFFL;
                for (int x = m; x != 0; x &= x - 1) w.r[d + Integer.numberOfTrailingZeros(x)] = v;
                return;
            }
            boolean res = switch (mode) {
                case ALL -> src == members;
                case ANY -> src != 0;
                default -> src == 0 || src == members;
            };
            w.p[d] = res ? w.p[d] | m : w.p[d] & ~m;
        }
    }

    /** activemask.b32 d: the lanes executing it. */
    static final class ActiveMask extends Op {
        final int d;

        ActiveMask(int d) {
            super(NORMAL);
            this.d = d;
        }

        @Override
        void exec(Warp w, int m) {
            for (int x = m; x != 0; x &= x - 1) w.r[d + Integer.numberOfTrailingZeros(x)] = m & 0xFFFF_FFFFL;
        }
    }

    /** match.any.sync / match.all.sync on .b32 or .b64 values. */
    static final class Match extends Op {
        final boolean all;
        final int bits, d, dp, a, mask;

        Match(boolean all, int bits, int d, int dp, int a, int mask) {
            super(NORMAL);
            this.all = all;
            this.bits = bits;
            this.d = d;
            this.dp = dp;
            this.a = a;
            this.mask = mask;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            int members = m & (int) r[mask + Integer.numberOfTrailingZeros(m)];
            long mk = IntOps.mask(bits);
            boolean allSame = true;
            long first = r[a + Integer.numberOfTrailingZeros(m)] & mk;
            for (int x = members; x != 0; x &= x - 1) if ((r[a + Integer.numberOfTrailingZeros(x)] & mk) != first) allSame = false;
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                int same;
                if (all) {
                    same = allSame ? members : 0;
                } else {
                    same = 0;
                    long v = r[a + l] & mk;
                    for (int y = members; y != 0; y &= y - 1) {
                        int k = Integer.numberOfTrailingZeros(y);
                        if ((r[a + k] & mk) == v) same |= 1 << k;
                    }
                }
                r[d + l] = same & 0xFFFF_FFFFL;
            }
            if (dp >= 0) w.p[dp] = allSame ? w.p[dp] | m : w.p[dp] & ~m;
        }
    }

    static final int R_ADD = 0, R_MIN = 1, R_MAX = 2, R_AND = 3, R_OR = 4, R_XOR = 5;

    /** redux.sync: a reduction over the members, broadcast to each of them. */
    static final class Redux extends Op {
        final int op, d, a, mask;
        final boolean signed;

        Redux(int op, boolean signed, int d, int a, int mask) {
            super(NORMAL);
            this.op = op;
            this.signed = signed;
            this.d = d;
            this.a = a;
            this.mask = mask;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            int members = m & (int) r[mask + Integer.numberOfTrailingZeros(m)];
            long acc = switch (op) {
                case R_MIN -> signed ? Integer.MAX_VALUE : 0xFFFF_FFFFL;
                case R_MAX -> signed ? Integer.MIN_VALUE : 0;
                case R_AND -> 0xFFFF_FFFFL;
                default -> 0;
            };
            for (int x = members; x != 0; x &= x - 1) {
                long v = IntOps.ext(r[a + Integer.numberOfTrailingZeros(x)], 32, signed);
                acc = switch (op) {
                    case R_ADD -> acc + v;
                    case R_MIN -> Math.min(acc, v);
                    case R_MAX -> Math.max(acc, v);
                    case R_AND -> acc & v;
                    case R_OR -> acc | v;
                    default -> acc ^ v;
                };
            }
            for (int x = m; x != 0; x &= x - 1) r[d + Integer.numberOfTrailingZeros(x)] = acc & 0xFFFF_FFFFL;
        }
    }

    /** elect.sync d|p, membermask: the lowest member lane is the leader. */
    static final class Elect extends Op {
        final int d, dp, mask;

        Elect(int d, int dp, int mask) {
            super(NORMAL);
            this.d = d;
            this.dp = dp;
            this.mask = mask;
        }

        @Override
        void exec(Warp w, int m) {
            int members = m & (int) w.r[mask + Integer.numberOfTrailingZeros(m)];
            int leader = members == 0 ? -1 : Integer.numberOfTrailingZeros(members);
            if (d >= 0) for (int x = m; x != 0; x &= x - 1) w.r[d + Integer.numberOfTrailingZeros(x)] = leader & 0xFFFF_FFFFL;
            if (dp >= 0) {
                int bit = leader < 0 ? 0 : 1 << leader;
                w.p[dp] = (w.p[dp] & ~m) | (bit & m);
            }
        }
    }
}
