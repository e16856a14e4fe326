package dev.zluda.runtime.emulator;

/**
 * mbarrier objects in shared memory (PTX ISA 9.0, 9.7.13.15): the basic arrive/wait protocol without
 * transaction counts.
 *
 * <p>The object is 8 bytes, opaque to programs; the emulator keeps the pending arrival count in bits
 * 0-19, the expected arrival count in bits 32-51 and the current phase's parity in bit 63. A state
 * token (what {@code arrive} returns) is the object's value before the arrive, so
 * {@code pending_count} of a token is the number of arrivals the phase still lacked before it and
 * {@code test_wait} with a token holds once the object's phase differs from the token's.
 * {@code test_wait.parity p} holds once the phase of parity {@code p} has completed, i.e. while the
 * current phase's parity is not {@code p}. {@code try_wait} answers at once, as a try_wait whose time
 * limit ran out does (warps are scheduled in slices, so spin loops make progress).
 */
final class SyncOps {
    private SyncOps() {}

    static final long PENDING_MASK = 0xF_FFFFL;

    static long pending(long v) {
        return v & PENDING_MASK;
    }

    static long expected(long v) {
        return (v >>> 32) & PENDING_MASK;
    }

    static long phase(long v) {
        return v >>> 63;
    }

    static long make(long pending, long expected, long phase) {
        return (pending & PENDING_MASK) | (expected & PENDING_MASK) << 32 | phase << 63;
    }

    /** One mbarrier instruction. */
    static final class Mbarrier extends MemOps.Access {
        static final int INIT = 0, ARRIVE = 1, DROP = 2, TEST = 3, PENDING = 4, INVAL = 5;
        final int kind, dst, pdst, a;
        final boolean parity;

        /**
         * @param a the count operand (init, arrive), the state or parity (test/try_wait), the state (pending_count)
         */
        Mbarrier(int kind, int space, int base, boolean base32, long offset, int dst, int pdst, int a, boolean parity) {
            super(space, base, base32, offset);
            this.kind = kind;
            this.dst = dst;
            this.pdst = pdst;
            this.a = a;
            this.parity = parity;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            if (kind == PENDING) {
                for (int x = m; x != 0; x &= x - 1) {
                    int l = Integer.numberOfTrailingZeros(x);
                    r[dst + l] = pending(r[a + l]);
                }
                return;
            }
            int result = 0;
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long addr = resolve(w, address(r, l), 8, l, Warp.ATOMIC);
                long v = Mem.ALL.get(Mem.L, addr);
                switch (kind) {
                    case INIT -> {
                        long n = r[a + l] & 0xFFFF_FFFFL;
                        if (n < 1 || n > PENDING_MASK) throw new Fault(Errors.ILLEGAL_INSTRUCTION, l, "mbarrier.init count " + n + " outside 1.." + PENDING_MASK);
                        Mem.ALL.set(Mem.L, addr, make(n, n, 0));
                    }
                    case INVAL -> Mem.ALL.set(Mem.L, addr, 0L);
                    case ARRIVE, DROP -> {
                        long n = a < 0 ? 1 : r[a + l] & 0xFFFF_FFFFL;
                        long pend = pending(v), exp = expected(v), ph = phase(v);
                        if (n > pend) throw new Fault(Errors.ILLEGAL_INSTRUCTION, l, "mbarrier arrive of " + n + " with only " + pend + " arrivals pending");
                        if (kind == DROP) exp -= n;
                        pend -= n;
                        if (pend == 0) {
                            pend = exp;
                            ph ^= 1;
                        }
                        Mem.ALL.set(Mem.L, addr, make(pend, exp, ph));
                        if (dst >= 0) r[dst + l] = v;
                    }
                    default -> { // TEST
                        boolean done = parity ? phase(v) != (r[a + l] & 1) : phase(v) != phase(r[a + l]);
                        if (done) result |= 1 << l;
                    }
                }
            }
            if (kind == TEST) w.p[pdst] = (w.p[pdst] & ~m) | result;
        }
    }
}
