package dev.zluda.runtime.emulator;

import java.lang.invoke.VarHandle;

/**
 * Memory instructions (PTX ISA 9.0, 9.7.9.8 ld, 9.7.9.9 ldu, 9.7.9.10 st, 9.7.13.5 atom,
 * 9.7.13.6 red, 9.7.9.16 cvta, 9.7.9.15 isspacep). Every access is checked before it happens:
 * alignment to its size (vectors: the whole vector), and the address against the state space
 * ({@link Warp#global} and friends); a bad access stops the kernel with
 * CUDA_ERROR_ILLEGAL_ADDRESS or CUDA_ERROR_MISALIGNED_ADDRESS.
 */
final class MemOps {
    private MemOps() {}

    static final int GLOBAL = 0, SHARED = 1, LOCAL = 2, PARAM = 3, GENERIC = 4;

    static String spaceName(int space) {
        return switch (space) {
            case GLOBAL -> "global";
            case SHARED -> "shared";
            case LOCAL -> "local";
            case PARAM -> "param";
            default -> "generic";
        };
    }

    /** An instruction with an address operand {@code [base + offset]}. */
    abstract static class Access extends Op {
        final int space, base;
        final boolean base32;
        final long offset;

        Access(int space, int base, boolean base32, long offset) {
            super(NORMAL);
            this.space = space;
            this.base = base;
            this.base32 = base32;
            this.offset = offset;
        }

        /**
         * The address lane {@code l} accesses: register plus offset, added in the register's width and, for a
         * 32-bit address (a 32-bit register, or a state space whose addresses are 32 bits: shared, local,
         * param), taken modulo 2^32 after the addition (PTX ISA 9.0, "Addresses as Operands"), so that a 64-bit register below
         * the window's start plus a positive offset (llama.cpp's ssm_conv: {@code [%rd93+12]} with
         * {@code %rd93 = %SPL - 12}) is the address inside it.
         */
        final long address(long[] r, int l) {
            if (base < 0) return offset;
            long a = r[base + l] + offset;
            return base32 ? a & 0xFFFF_FFFFL : a;
        }

        /**
         * For a 4-byte access by all 32 lanes of a shared or global instruction: puts the lanes'
         * addresses in {@code t} and tells whether every one is aligned and inside the CTA's shared
         * memory ({@code limit}: its size - 4) or inside the global allocation the warp hit last, so
         * that none needs a check of its own. False: some lane needs the per-lane path (which reports
         * the fault, if any, for the lowest such lane, as before).
         */
        final boolean wholeWarp(Warp w, long[] r, long[] t, boolean shared, long limit) {
            long or = 0, lo = Long.MAX_VALUE, hi = Long.MIN_VALUE;
            for (int l = 0; l < 32; l++) {
                long a = address(r, l);
                t[l] = a;
                or |= a;
                lo = Math.min(lo, a);
                hi = Math.max(hi, a);
            }
            if ((or & 3) != 0) return false;
            return shared ? lo >= 0 && hi <= limit : w.globalCovers(lo, hi, 4);
        }

        final long resolve(Warp w, long a, int size, int l, int how) {
            return switch (space) {
                case GLOBAL -> w.global(a, size, l, how);
                case SHARED -> w.shared(a, size, l, how);
                case LOCAL -> w.local(a, size, l, how);
                case PARAM -> w.param(a, size, l, how);
                default -> w.generic(a, size, l, how);
            };
        }
    }

    /** ld / ldu: {@code count} elements of {@code size} bytes into slots {@code dst} (-1: discarded). */
    static final class Ld extends Access {
        final int size, count, d0;
        final int[] dst;
        final boolean signed, acquire;

        Ld(int space, int base, boolean base32, long offset, int size, boolean signed, int[] dst, boolean acquire) {
            super(space, base, base32, offset);
            this.size = size;
            this.signed = signed;
            this.dst = dst;
            this.count = dst.length;
            this.d0 = dst[0];
            this.acquire = acquire;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            final int size = this.size;
            if (base < 0 && space == PARAM) {
                // a kernel parameter at a constant offset: the same value for every lane
                int l0 = Integer.numberOfTrailingZeros(m);
                long abs = w.param(offset, size * count, l0, Warp.READ);
                for (int e = 0; e < count; e++) {
                    if (dst[e] < 0) continue;
                    long v = Mem.load(abs + (long) e * size, size, signed);
                    final int d = dst[e];
                    for (int x = m; x != 0; x &= x - 1) r[d + Integer.numberOfTrailingZeros(x)] = v;
                }
                return;
            }
            if (count == 1 && size == 4 && d0 >= 0 && (space == SHARED || space == GLOBAL)) {
                // the common case, with the checks of Warp.shared / Warp.global inlined
                final int d = d0;
                final boolean shared = space == SHARED;
                final long lo = shared ? 0 : Long.MIN_VALUE, limit = shared ? w.cta.sharedBytes - 4 : 0, sbase = w.cta.sharedBase;
                if (m == -1) {
                    final long[] t = w.addr;
                    if (wholeWarp(w, r, t, shared, limit)) {
                        final long add = shared ? sbase : 0;
                        if (signed) {
                            for (int l = 0; l < 32; l++) r[d + l] = Mem.ALL.get(Mem.I, add + t[l]);
                        } else {
                            for (int l = 0; l < 32; l++) r[d + l] = Mem.ALL.get(Mem.I, add + t[l]) & 0xFFFF_FFFFL;
                        }
                        if (acquire) VarHandle.acquireFence();
                        return;
                    }
                }
                for (int x = m; x != 0; x &= x - 1) {
                    int l = Integer.numberOfTrailingZeros(x);
                    long a = address(r, l);
                    long abs;
                    if (shared && (a & 3) == 0 && a >= lo && a <= limit) abs = sbase + a;
                    else abs = resolve(w, a, 4, l, Warp.READ);
                    int v = Mem.ALL.get(Mem.I, abs);
                    r[d + l] = signed ? v : v & 0xFFFF_FFFFL;
                }
                if (acquire) VarHandle.acquireFence();
                return;
            }
            if (count == 1) {
                final int d = d0;
                for (int x = m; x != 0; x &= x - 1) {
                    int l = Integer.numberOfTrailingZeros(x);
                    long abs = resolve(w, address(r, l), size, l, Warp.READ);
                    long v = Mem.load(abs, size, signed);
                    if (d >= 0) r[d + l] = v;
                }
            } else {
                int total = size * count;
                for (int x = m; x != 0; x &= x - 1) {
                    int l = Integer.numberOfTrailingZeros(x);
                    long abs = resolve(w, address(r, l), total, l, Warp.READ);
                    for (int e = 0; e < count; e++) {
                        long v = Mem.load(abs + (long) e * size, size, signed);
                        if (dst[e] >= 0) r[dst[e] + l] = v;
                    }
                }
            }
            if (acquire) VarHandle.acquireFence();
        }
    }

    /** st: {@code count} elements of {@code size} bytes from slots {@code src}. */
    static final class St extends Access {
        final int size, count;
        final int[] src;
        final boolean release;

        St(int space, int base, boolean base32, long offset, int size, int[] src, boolean release) {
            super(space, base, base32, offset);
            this.size = size;
            this.src = src;
            this.count = src.length;
            this.release = release;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            if (release) VarHandle.releaseFence();
            if (count == 1 && size == 4 && (space == SHARED || space == GLOBAL)) {
                // the common case, as in Ld: shared checks inlined, one 32-bit store
                final int v = src[0];
                final boolean shared = space == SHARED;
                final long limit = shared ? w.cta.sharedBytes - 4 : 0, sbase = w.cta.sharedBase;
                if (m == -1) {
                    final long[] t = w.addr;
                    if (wholeWarp(w, r, t, shared, limit)) {
                        final long add = shared ? sbase : 0;
                        for (int l = 0; l < 32; l++) Mem.ALL.set(Mem.I, add + t[l], (int) r[v + l]);
                        return;
                    }
                }
                for (int x = m; x != 0; x &= x - 1) {
                    int l = Integer.numberOfTrailingZeros(x);
                    long a = address(r, l);
                    long abs;
                    if (shared && (a & 3) == 0 && a >= 0 && a <= limit) abs = sbase + a;
                    else abs = resolve(w, a, 4, l, Warp.WRITE);
                    Mem.ALL.set(Mem.I, abs, (int) r[v + l]);
                }
                return;
            }
            int total = size * count;
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long abs = resolve(w, address(r, l), total, l, Warp.WRITE);
                for (int e = 0; e < count; e++) Mem.store(abs + (long) e * size, size, r[src[e] + l]);
            }
        }
    }

    static final int A_ADD = 0, A_MIN = 1, A_MAX = 2, A_INC = 3, A_DEC = 4, A_AND = 5, A_OR = 6, A_XOR = 7, A_EXCH = 8, A_CAS = 9;
    /** Value types of atomics. */
    static final int T_U = 0, T_S = 1, T_F = 2, T_B = 3;

    /**
     * atom / red: {@code d = *a; *a = op(*a, b[, c])} per lane, lanes in ascending order. Global
     * memory (also through a generic address) is updated with real atomics, since CTAs run on several
     * threads; shared and local memory belong to one host thread and are updated in place.
     * {@code atom.add.f32} flushes subnormal inputs and results to zero (PTX ISA 9.7.13.5). Vector
     * forms ({@link #bs}) do one such atomic per element, in element order, and need a global address.
     */
    static final class Atom extends Access {
        final int op, type, bits, d, b, c;
        /** Half-precision adds ({@code .f16}, {@code .bf16} and their x2 forms): 0 none, 1 f16, 2 bf16. */
        int half;
        /**
         * Vector atomics ({@code .v2 .v4 .v8}, PTX ISA 9.0 §9.7.13.5): the slots of d's elements (-1: none)
         * and of b's elements, element {@code e} at byte {@code e * bits / 8}; null for a scalar atomic.
         */
        int[] ds, bs;

        Atom(int space, int base, boolean base32, long offset, int op, int type, int bits, int d, int b, int c) {
            super(space, base, base32, offset);
            this.op = op;
            this.type = type;
            this.bits = bits;
            this.d = d;
            this.b = b;
            this.c = c;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            final int size = bits / 8;
            final int count = bs == null ? 1 : bs.length;
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long a = address(r, l);
                boolean real = space == GLOBAL || (space == GENERIC && Warp.isGlobal(a));
                long abs = resolve(w, a, size * count, l, Warp.ATOMIC);
                if (bs == null) {
                    // atom.cas d, [a], b, c: *a = (*a == b) ? c : *a
                    long v = op == A_CAS ? r[c + l] : r[b + l], cmpV = op == A_CAS ? r[b + l] : 0;
                    long old = one(abs, v, cmpV, real);
                    if (d >= 0) r[d + l] = old;
                    continue;
                }
                // a vector: one atomic per element, each on its own address (the vector is not one atomic access)
                if (!real) {
                    throw new Fault(Errors.ILLEGAL_ADDRESS, l, "vector atom/red at " + Mem.hex(a)
                            + ", which is not a global address (PTX ISA 9.0 §9.7.13.5 allows .global only)");
                }
                for (int e = 0; e < count; e++) {
                    long old = one(abs + (long) e * size, r[bs[e] + l], 0, true);
                    if (ds != null && ds[e] >= 0) r[ds[e] + l] = old;
                }
            }
        }

        /** One atomic on the element at {@code abs}; the old value (raw bits, zero-extended). */
        private long one(long abs, long v, long cmpV, boolean real) {
            final int size = bits / 8;
            long old;
            if (!real) {
                old = Mem.load(abs, size, false);
                Mem.store(abs, size, apply(old, v, cmpV, false));
            } else if (bits == 16) {
                // a 16-bit location: compare-and-swap on the aligned 32-bit word that holds it
                long word = abs & ~3L;
                int shift = (int) (abs & 2) * 8;
                while (true) {
                    int ow = (int) Mem.I32.getVolatile(Mem.ALL, word);
                    old = (ow >>> shift) & 0xFFFF;
                    int nw = (ow & ~(0xFFFF << shift)) | (int) ((apply(old, v, cmpV, true) & 0xFFFF) << shift);
                    if ((boolean) Mem.I32.compareAndSet(Mem.ALL, word, ow, nw)) break;
                }
            } else if (bits == 32) {
                old = atomic32(abs, (int) v, (int) cmpV) & 0xFFFF_FFFFL;
            } else {
                old = atomic64(abs, v, cmpV);
            }
            return old;
        }

        private int atomic32(long abs, int v, int cmpV) {
            switch (op) {
                case A_ADD:
                    if (type != T_F && half == 0) return (int) Mem.I32.getAndAdd(Mem.ALL, abs, v);
                    break;
                case A_AND: return (int) Mem.I32.getAndBitwiseAnd(Mem.ALL, abs, v);
                case A_OR: return (int) Mem.I32.getAndBitwiseOr(Mem.ALL, abs, v);
                case A_XOR: return (int) Mem.I32.getAndBitwiseXor(Mem.ALL, abs, v);
                case A_EXCH: return (int) Mem.I32.getAndSet(Mem.ALL, abs, v);
                case A_CAS: return (int) Mem.I32.compareAndExchange(Mem.ALL, abs, cmpV, v);
                default: break;
            }
            while (true) {
                int old = (int) Mem.I32.getVolatile(Mem.ALL, abs);
                int nv = (int) apply(old, v, cmpV, true);
                if ((boolean) Mem.I32.compareAndSet(Mem.ALL, abs, old, nv)) return old;
            }
        }

        private long atomic64(long abs, long v, long cmpV) {
            switch (op) {
                case A_ADD:
                    if (type != T_F) return (long) Mem.I64.getAndAdd(Mem.ALL, abs, v);
                    break;
                case A_AND: return (long) Mem.I64.getAndBitwiseAnd(Mem.ALL, abs, v);
                case A_OR: return (long) Mem.I64.getAndBitwiseOr(Mem.ALL, abs, v);
                case A_XOR: return (long) Mem.I64.getAndBitwiseXor(Mem.ALL, abs, v);
                case A_EXCH: return (long) Mem.I64.getAndSet(Mem.ALL, abs, v);
                case A_CAS: return (long) Mem.I64.compareAndExchange(Mem.ALL, abs, cmpV, v);
                default: break;
            }
            while (true) {
                long old = (long) Mem.I64.getVolatile(Mem.ALL, abs);
                long nv = apply(old, v, cmpV, true);
                if ((boolean) Mem.I64.compareAndSet(Mem.ALL, abs, old, nv)) return old;
            }
        }

        /** One 16-bit half-precision add, rounded once to nearest even; a NaN gives 0x7fff (as on an H200). */
        private long halfAdd(long a, long b) {
            if (half == 1) return FloatMath.toFormat((double) FloatMath.fromHalf(a) + FloatMath.fromHalf(b), 5, 10, FloatMath.RN, false, 0x7FFF);
            return FloatMath.toFormat((double) FloatMath.fromBf16(a) + FloatMath.fromBf16(b), 8, 7, FloatMath.RN, false, 0x7FFF);
        }

        /**
         * One 16-bit half-precision min/max (semantics of min, max on .f16/.bf16, PTX ISA 9.0
         * §9.7.4.7, §9.7.4.8): a NaN operand gives the other one, two NaNs the canonical NaN 0x7fff;
         * -0.0 is less than +0.0. The
         * result is one of the operands, so nothing is rounded.
         */
        private long halfMinMax(long a, long b) {
            double A = half == 1 ? FloatMath.fromHalf(a) : FloatMath.fromBf16(a), B = half == 1 ? FloatMath.fromHalf(b) : FloatMath.fromBf16(b);
            boolean an = A != A, bn = B != B;
            if (an && bn) return 0x7FFF;
            if (an) return b;
            if (bn) return a;
            double m = op == A_MIN ? Math.min(A, B) : Math.max(A, B);
            return Double.doubleToRawLongBits(m) == Double.doubleToRawLongBits(A) ? a : b;
        }

        /** {@link #halfAdd} or {@link #halfMinMax} on the low 16 bits, and on the high 16 bits too for an x2 type. */
        private long halfOp(long old, long v) {
            long lo = op == A_ADD ? halfAdd(old & 0xFFFF, v & 0xFFFF) : halfMinMax(old & 0xFFFF, v & 0xFFFF);
            if (bits == 16) return lo;
            long hi = op == A_ADD ? halfAdd(old >>> 16 & 0xFFFF, v >>> 16 & 0xFFFF) : halfMinMax(old >>> 16 & 0xFFFF, v >>> 16 & 0xFFFF);
            return hi << 16 | lo;
        }

        /**
         * The new value of the location (raw bits, low {@code bits} significant). {@code global}: f32 adds
         * flush subnormals there (PTX ISA 9.7.13.5); an H200 does not flush them in shared memory.
         */
        long apply(long old, long v, long cmpV, boolean global) {
            boolean signed = type == T_S;
            if (half != 0 && (op == A_ADD || op == A_MIN || op == A_MAX)) return halfOp(old, v);
            long o = IntOps.ext(old, bits, signed), x = IntOps.ext(v, bits, signed);
            switch (op) {
                case A_ADD:
                    if (type == T_F) {
                        if (bits == 32) {
                            float A = Float.intBitsToFloat((int) old), B = Float.intBitsToFloat((int) v);
                            return FloatMath.bits(global ? FloatMath.ftz(FloatMath.ftz(A) + FloatMath.ftz(B)) : A + B);
                        }
                        // NaN operands (measured on an H200): in global memory kept as they are, the operand's
                        // first; in shared memory quieted, the location's first (two NaNs: the location's, quieted)
                        double A = Double.longBitsToDouble(old), B = Double.longBitsToDouble(v);
                        if (global) {
                            if (B != B) return v;
                            if (A != A) return old;
                        } else {
                            if (A != A) return old | 0x0008_0000_0000_0000L;
                            if (B != B) return v | 0x0008_0000_0000_0000L;
                        }
                        return Double.doubleToRawLongBits(A + B);
                    }
                    return old + v;
                case A_MIN: return (bits == 64 && !signed ? Long.compareUnsigned(o, x) <= 0 : o <= x) ? o : x;
                case A_MAX: return (bits == 64 && !signed ? Long.compareUnsigned(o, x) >= 0 : o >= x) ? o : x;
                case A_INC: {
                    long uo = IntOps.ext(old, bits, false), uv = IntOps.ext(v, bits, false);
                    return (bits == 64 ? Long.compareUnsigned(uo, uv) >= 0 : uo >= uv) ? 0 : uo + 1;
                }
                case A_DEC: {
                    long uo = IntOps.ext(old, bits, false), uv = IntOps.ext(v, bits, false);
                    return (uo == 0 || (bits == 64 ? Long.compareUnsigned(uo, uv) > 0 : uo > uv)) ? uv : uo - 1;
                }
                case A_AND: return old & v;
                case A_OR: return old | v;
                case A_XOR: return old ^ v;
                case A_EXCH: return v;
                default: return IntOps.ext(old, bits, false) == IntOps.ext(cmpV, bits, false) ? v : old; // cas
            }
        }
    }

    /** cvta (PTX ISA 9.7.9.16): state-space address ↔ generic address. */
    static final class Cvta extends Op {
        final int d, a, space;
        final boolean toSpace, narrow;

        Cvta(int d, int a, int space, boolean toSpace, boolean narrow) {
            super(NORMAL);
            this.d = d;
            this.a = a;
            this.space = space;
            this.toSpace = toSpace;
            this.narrow = narrow;
        }

        /** Where the state space's window starts in the generic space (0: global, whose addresses are generic ones). */
        long window() {
            return switch (space) {
                case SHARED -> Mem.SHARED_WINDOW;
                case LOCAL -> Mem.LOCAL_WINDOW;
                case PARAM -> Mem.PARAM_WINDOW;
                default -> 0;
            };
        }

        /**
         * Emits, for compiled code, what {@link #exec} computes of one lane's value on the stack (a long): the
         * address converted and, with {@code narrow}, cut to 32 bits.
         */
        void emit(java.lang.classfile.CodeBuilder cob) {
            long window = window();
            if (window != 0) {
                if (toSpace) cob.loadConstant(window).lsub();
                else cob.loadConstant(0xFFFF_FFFFL).land().loadConstant(window).ladd();
            }
            if (narrow) cob.loadConstant(0xFFFF_FFFFL).land();
        }

        @Override
        void exec(Warp w, int m) {
            long window = window();
            final long[] r = w.r;
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long v = r[a + l];
                if (window != 0) v = toSpace ? v - window : window + (v & 0xFFFF_FFFFL);
                r[d + l] = narrow ? v & 0xFFFF_FFFFL : v;
            }
        }
    }

    /**
     * isspacep (PTX ISA 9.7.9.15): whether a generic address is in a state space. {@code .shared::cluster} holds for
     * every shared address ({@link ClusterGroup}), {@code .shared} / {@code .shared::cta} for the executing CTA's own.
     */
    static final class IsSpace extends Op {
        final int dp, a, space;
        final boolean cluster;
        /**
         * {@code isspacep.const} rather than {@code .global}, and the module's .const variables ({@code [lo, hi)}
         * pairs): their generic addresses lie among global ones in the emulator, but the H200 tells them apart
         * (isspacep.global of a .const variable's generic address is false, isspacep.const true; conformance sweep).
         */
        boolean constSpace;
        long[] consts = new long[0];

        IsSpace(int dp, int a, int space) {
            this(dp, a, space, false);
        }

        IsSpace(int dp, int a, int space, boolean cluster) {
            super(NORMAL);
            this.dp = dp;
            this.a = a;
            this.space = space;
            this.cluster = cluster;
        }

        @Override
        void exec(Warp w, int m) {
            int t = 0;
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                if (lane(w.r[a + l])) t |= 1 << l;
            }
            w.p[dp] = (w.p[dp] & ~m) | (t & m);
        }

        /** One lane: whether generic address {@code g} is in the space; also what compiled code calls ({@link JitCompiler}). */
        boolean lane(long g) {
            char want = switch (space) {
                case SHARED -> 'S';
                case LOCAL -> 'L';
                case PARAM -> 'P';
                default -> 'G';
            };
            boolean in = Mem.window(g) == want;
            if (want == 'G') {
                boolean isConst = false;
                for (int i = 0; i < consts.length; i += 2) if (g >= consts[i] && g < consts[i + 1]) isConst = true;
                in = in && isConst == constSpace;
            }
            // .shared / .shared::cta: only the executing CTA's own window, not another CTA's shared::cluster address
            if (want == 'S' && !cluster && ((g & 0xFFFF_FFFFL) >>> ClusterGroup.RANK_SHIFT) != 0) in = false;
            return in;
        }
    }

    /** A shared or shared::cluster address of lane {@code l}: its 32-bit shared::cluster form, or a fault naming the operand. */
    private static long clusterOffset(Warp w, long v, boolean generic, int l, String what) {
        if (!generic) return v & 0xFFFF_FFFFL;
        if (Mem.window(v) != 'S') {
            throw new Fault(Errors.ILLEGAL_ADDRESS, l, what + " of generic address " + Mem.hex(v) + ", which is not a shared memory address");
        }
        return v - Mem.SHARED_WINDOW;
    }

    /**
     * mapa (PTX ISA 9.0, 9.7.9.22): the address of the same byte of shared memory in the CTA of rank {@code b} of the
     * cluster; generic in, generic out, or shared::cluster in and out ({@code .shared::cluster}). A rank outside the
     * cluster (undefined in the ISA) stops the kernel with CUDA_ERROR_ILLEGAL_ADDRESS.
     */
    static final class Mapa extends Op {
        final int d, a, b;
        final boolean generic, narrow;

        Mapa(int d, int a, int b, boolean generic, boolean narrow) {
            super(NORMAL);
            this.d = d;
            this.a = a;
            this.b = b;
            this.generic = generic;
            this.narrow = narrow;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            int size = w.cta.cluster.members.length;
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long off = clusterOffset(w, r[a + l], generic, l, "mapa") & ClusterGroup.OFFSET_MASK;
                long rank = r[b + l] & 0xFFFF_FFFFL;
                if (rank >= size) {
                    throw new Fault(Errors.ILLEGAL_ADDRESS, l, "mapa to CTA rank " + rank + ", outside the cluster of " + size + " CTAs");
                }
                long v = ClusterGroup.address((int) rank, off);
                if (generic) v += Mem.SHARED_WINDOW;
                r[d + l] = narrow ? v & 0xFFFF_FFFFL : v;
            }
        }
    }

    /** getctarank (PTX ISA 9.0, 9.7.9.23): the rank in the cluster of the CTA whose shared memory an address is in. */
    static final class GetCtaRank extends Op {
        final int d, a;
        final boolean generic;

        GetCtaRank(int d, int a, boolean generic) {
            super(NORMAL);
            this.d = d;
            this.a = a;
            this.generic = generic;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long off = clusterOffset(w, r[a + l], generic, l, "getctarank");
                long hi = off >>> ClusterGroup.RANK_SHIFT;
                r[d + l] = hi == 0 ? w.cta.rank : hi - 1;
            }
        }
    }

    /** cp.async (shared ← global), done at once; bytes past {@code srcSize} (or all, with ignore-src) are zero. */
    static final class CpAsync extends Op {
        final int dBase, sBase, size, srcSize, ignore;
        final long dOff, sOff;
        final boolean ignoreNeg;

        CpAsync(int dBase, long dOff, int sBase, long sOff, int size, int srcSize, int ignore, boolean ignoreNeg) {
            super(NORMAL);
            this.dBase = dBase;
            this.dOff = dOff;
            this.sBase = sBase;
            this.sOff = sOff;
            this.size = size;
            this.srcSize = srcSize;
            this.ignore = ignore;
            this.ignoreNeg = ignoreNeg;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            int ign = ignore < 0 ? 0 : ignoreNeg ? ~w.p[ignore] : w.p[ignore];
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long d = (dBase >= 0 ? r[dBase + l] & 0xFFFF_FFFFL : 0) + dOff;
                long s = (sBase >= 0 ? r[sBase + l] : 0) + sOff;
                int n = ((ign >>> l) & 1) != 0 ? 0 : srcSize >= 0 ? (int) Math.min(size, r[srcSize + l] & 0xFFFF_FFFFL) : size;
                long dst = w.shared(d, size, l, Warp.WRITE);
                if (n > 0) {
                    long src = n == size ? w.global(s, size, l, Warp.READ) : w.global(s, 1, l, Warp.READ);
                    if (n != size) w.global(s + n - 1, 1, l, Warp.READ);
                    java.lang.foreign.MemorySegment.copy(Mem.ALL, src, Mem.ALL, dst, n);
                }
                if (n < size) Mem.ALL.asSlice(dst + n, size - n).fill((byte) 0);
            }
        }
    }

    /** Copies {@code bytes} of local memory per lane (call arguments and results of inlined functions). */
    static final class LocalCopy extends Op {
        final long dst, src, bytes;
        /** Slots whose per-lane value is added to {@code dst} / {@code src} (a frame pointer, {@link CallOps}), or -1. */
        final int dstBase, srcBase;

        LocalCopy(long dst, long src, long bytes) {
            this(dst, src, bytes, -1, -1);
        }

        LocalCopy(long dst, long src, long bytes, int dstBase, int srcBase) {
            super(NORMAL);
            this.dst = dst;
            this.src = src;
            this.bytes = bytes;
            this.dstBase = dstBase;
            this.srcBase = srcBase;
        }

        @Override
        void exec(Warp w, int m) {
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long src = this.src + (srcBase < 0 ? 0 : w.r[srcBase + l]), dst = this.dst + (dstBase < 0 ? 0 : w.r[dstBase + l]);
                long s = w.local(src, 1, l, Warp.READ), d = w.local(dst, 1, l, Warp.WRITE);
                w.local(src + bytes - 1, 1, l, Warp.READ);
                w.local(dst + bytes - 1, 1, l, Warp.WRITE);
                java.lang.foreign.MemorySegment.copy(Mem.ALL, s, Mem.ALL, d, bytes);
            }
        }
    }
}
