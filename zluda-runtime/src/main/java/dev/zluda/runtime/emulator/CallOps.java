package dev.zluda.runtime.emulator;

/**
 * Real (not inlined) calls and the per-thread stack: {@code call} of a recursive or address-taken
 * {@code .func}, direct or through a function pointer (PTX ISA 9.0, 9.7.12.3 "call"), its
 * {@code ret}, and {@code alloca} / {@code stacksave} / {@code stackrestore} (9.7.17).
 *
 * <p>The stack: every thread's local memory is the kernel's static frame (its own and its inlined
 * functions' {@code .local} and {@code .param} variables, at fixed offsets), then a stack of
 * {@link Launch#stackBytes} bytes (the context's {@code CU_LIMIT_STACK_SIZE}, 1024 by default as on
 * the H200). Two per-lane registers hold the frame pointer FP (the local address of the running
 * function's frame; 0 in the kernel) and the stack pointer SP (the first free byte). A call's frame
 * holds the callee's parameters (its return parameters, then its parameters, each at the next multiple
 * of its alignment: the same layout at every call site and in the callee), then its {@code .local}
 * and {@code .param} variables; it starts at SP rounded up to the callee's alignment, and the call
 * takes {@link #CALL_OVERHEAD} more bytes for its return address. A call or an {@code alloca} that
 * would pass the end of the stack stops the kernel with CUDA_ERROR_ILLEGAL_ADDRESS, which is what an
 * NVIDIA H200 reports for a recursion past the stack limit (test data calls/h200-stack-overflow.txt).
 *
 * <p>Registers: an out-of-line function's registers have slots of their own; a call from such a
 * function saves the caller's slots and predicates of the calling lanes (with FP, SP and the return
 * PC) on the lane's call stack in {@link Warp}, and {@code ret} restores them, so every activation of
 * a recursive function has its own registers.
 */
final class CallOps {
    private CallOps() {}

    /** Bytes a call takes on the stack besides the callee's frame (its return address). */
    static final long CALL_OVERHEAD = 8;

    /**
     * {@code call} of an out-of-line function: each lane of the mask pushes its return PC and the caller's
     * registers, takes the frame at {@code r[nfp]} and jumps to the entry of its target (the same for all
     * lanes, or for an indirect call the function whose address is in {@code r[targetSlot]}: lanes may call
     * different functions). The frame of the caller's arguments was filled before, at {@code r[nfp]}.
     */
    static final class Call extends Op {
        /** Slot of the target address (indirect), or -1 (direct: {@code entry[0]}). */
        final int targetSlot;
        /** Slot holding the new frame's local address ({@link NextFrame}). */
        final int nfp;
        /** The caller's register slots [saveLo, saveHi) (multiples of 32) and predicates [predLo, predHi) to save; empty in a kernel. */
        int saveLo, saveHi, predLo, predHi;
        /** Possible targets: function address, entry instruction, frame bytes (callee frame + overhead). */
        long[] addr;
        int[] entry;
        long[] frame;
        String[] names;

        Call(int targetSlot, int nfp) {
            super(CALL);
            this.targetSlot = targetSlot;
            this.nfp = nfp;
        }

        /** Index in the target table of function address {@code a}, or -1. */
        int find(long a) {
            for (int i = 0; i < addr.length; i++) if (addr[i] == a) return i;
            return -1;
        }
    }

    /** {@code ret} from an out-of-line function: each lane pops its frame and returns. */
    static final class Ret extends Op {
        Ret() {
            super(RET);
        }
    }

    /** {@code r[d] = r[fp] + offset}: the address of a variable of the running function's frame. */
    static final class FrameAddress extends Op {
        final int d, fp;
        final long offset;

        FrameAddress(int d, int fp, long offset) {
            super(NORMAL);
            this.d = d;
            this.fp = fp;
            this.offset = offset;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                r[d + l] = r[fp + l] + offset;
            }
        }
    }

    /** {@code r[d] = SP rounded up to align}: where the frame of the next call starts. */
    static final class NextFrame extends Op {
        final int d, sp;
        /** Set when every possible callee is translated: their largest alignment (at least 8). */
        long align = 8;
        /** Set likewise: the smallest frame of the possible callees (at least the arguments), checked before they are copied in. */
        long need;
        String callee = "";

        NextFrame(int d, int sp) {
            super(NORMAL);
            this.d = d;
            this.sp = sp;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            final long a = align;
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long f = (r[sp + l] + a - 1) & -a;
                if (f + need > w.stackEnd) {
                    throw new Fault(Errors.ILLEGAL_ADDRESS, l, "stack overflow: the call of " + callee + " at call depth " + w.depth(l)
                            + " needs stack bytes up to offset " + (f + need - w.stackBase) + " of the thread's " + (w.stackEnd - w.stackBase)
                            + "-byte stack (CU_LIMIT_STACK_SIZE)");
                }
                r[d + l] = f;
            }
        }
    }

    /**
     * {@code alloca.u64 ptr, size{, immAlign}} (PTX ISA 9.0, 9.7.17.3): {@code size} bytes of the stack,
     * at SP rounded up to {@code align}; {@code ptr} is their local-space address. Freed when the
     * function returns or by {@code stackrestore}.
     */
    static final class Alloca extends Op {
        final int d, size, sp;
        final long align;
        final boolean u32;

        Alloca(int d, int size, long align, int sp, boolean u32) {
            super(NORMAL);
            this.d = d;
            this.size = size;
            this.align = align;
            this.sp = sp;
            this.u32 = u32;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long n = r[size + l];
                if (u32) n &= 0xFFFF_FFFFL;
                long p = (r[sp + l] + align - 1) & -align;
                if (n < 0 || n > w.stackEnd - p) {
                    throw new Fault(Errors.ILLEGAL_ADDRESS, l, "stack overflow: alloca of " + Long.toUnsignedString(n) + " bytes at stack offset "
                            + (p - w.stackBase) + " passes the end of the thread's " + (w.stackEnd - w.stackBase)
                            + "-byte stack (CU_LIMIT_STACK_SIZE)");
                }
                r[d + l] = p;
                r[sp + l] = p + n;
            }
        }
    }

    /** {@code stacksave.type d} (PTX ISA 9.0, 9.7.17.1): d = SP. */
    static final class StackSave extends Op {
        final int d, sp;

        StackSave(int d, int sp) {
            super(NORMAL);
            this.d = d;
            this.sp = sp;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                r[d + l] = r[sp + l];
            }
        }
    }

    /**
     * {@code stackrestore.type a} (PTX ISA 9.0, 9.7.17.2): SP = a, a value {@code stacksave} returned in
     * the running function; one outside the running function's part of the stack is a fault.
     */
    static final class StackRestore extends Op {
        final int a, sp, fp;
        final boolean u32;

        StackRestore(int a, int sp, int fp, boolean u32) {
            super(NORMAL);
            this.a = a;
            this.sp = sp;
            this.fp = fp;
            this.u32 = u32;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long v = r[a + l];
                if (u32) v &= 0xFFFF_FFFFL;
                long lo = Math.max(w.stackBase, r[fp + l]);
                if (v < lo || v > w.stackEnd) {
                    throw new Fault(Errors.HARDWARE_STACK_ERROR, l, "stackrestore to local address " + Mem.hex(v)
                            + ", which is not inside the running function's part of the stack [" + Mem.hex(lo) + ", " + Mem.hex(w.stackEnd) + "]");
                }
                r[sp + l] = v;
            }
        }
    }
}
