package dev.zluda.runtime.emulator;

import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;

/**
 * Moves, predicate logic, timers, fences, traps, control flow and the device-side library calls
 * the emulator provides itself ({@code vprintf}, {@code __assertfail}).
 */
final class Ops {
    private Ops() {}

    /** mov (PTX ISA 9.7.9.1) between slots, also of constants and special registers. */
    static final class Mov extends Op {
        final int d, a;

        Mov(int d, int a) {
            super(NORMAL);
            this.d = d;
            this.a = a;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                r[d + l] = r[a + l];
            }
        }
    }

    /** Predicate logic (PTX ISA 9.7.8): and/or/xor/not/mov on .pred; {@code b} -1 for unary; -2 means constant. */
    static final class PredLogic extends Op {
        static final int MOV = 0, AND = 1, OR = 2, XOR = 3, NOT = 4, CONST = 5;
        final int kind, d, a, b;
        final boolean aNeg, bNeg, value;

        PredLogic(int kind, int d, int a, boolean aNeg, int b, boolean bNeg, boolean value) {
            super(NORMAL);
            this.kind = kind;
            this.d = d;
            this.a = a;
            this.aNeg = aNeg;
            this.b = b;
            this.bNeg = bNeg;
            this.value = value;
        }

        @Override
        void exec(Warp w, int m) {
            int[] p = w.p;
            int A = kind == CONST ? 0 : aNeg ? ~p[a] : p[a];
            int B = b >= 0 ? (bNeg ? ~p[b] : p[b]) : 0;
            int v = switch (kind) {
                case AND -> A & B;
                case OR -> A | B;
                case XOR -> A ^ B;
                case NOT -> ~A;
                case CONST -> value ? -1 : 0;
                default -> A;
            };
            p[d] = (p[d] & ~m) | (v & m);
        }
    }

    /** A register to a predicate: true where it is not 0 ({@code mov.pred p, %is_explicit_cluster}, PTX ISA 9.0, 10.21). */
    static final class RegToPred extends Op {
        final int d, a;

        RegToPred(int d, int a) {
            super(NORMAL);
            this.d = d;
            this.a = a;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            int v = 0;
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                if (r[a + l] != 0) v |= 1 << l;
            }
            w.p[d] = (w.p[d] & ~m) | v;
        }
    }

    /** A predicate to a register (selp-like, for mov/cvt of a predicate value): 1 or 0. */
    static final class PredToReg extends Op {
        final int d, a;

        PredToReg(int d, int a) {
            super(NORMAL);
            this.d = d;
            this.a = a;
        }

        @Override
        void exec(Warp w, int m) {
            int v = w.p[a];
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                w.r[d + l] = (v >>> l) & 1;
            }
        }
    }

    /** mov d, {a, b, ...}: packs {@code parts} values of {@code bits} each, the first in the low bits. */
    static final class Pack extends Op {
        final int d, bits;
        final int[] parts;

        Pack(int d, int bits, int[] parts) {
            super(NORMAL);
            this.d = d;
            this.bits = bits;
            this.parts = parts;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            long mk = IntOps.mask(bits);
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long v = 0;
                for (int i = 0; i < parts.length; i++) if (parts[i] >= 0) v |= (r[parts[i] + l] & mk) << (bits * i);
                r[d + l] = v;
            }
        }
    }

    /** mov {a, b, ...}, d: unpacks (the first part gets the low bits); -1 parts are sinks. */
    static final class Unpack extends Op {
        final int a, bits;
        final int[] parts;

        Unpack(int a, int bits, int[] parts) {
            super(NORMAL);
            this.a = a;
            this.bits = bits;
            this.parts = parts;
        }

        @Override
        void exec(Warp w, int m) {
            final long[] r = w.r;
            long mk = IntOps.mask(bits);
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long v = r[a + l];
                for (int i = 0; i < parts.length; i++) if (parts[i] >= 0) r[parts[i] + l] = (v >>> (bits * i)) & mk;
            }
        }
    }

    /** Reads of %clock, %clock64, %globaltimer (PTX ISA 10.x): nanoseconds of the host clocks. */
    static final class Timer extends Op {
        static final int CLOCK = 0, CLOCK_HI = 1, CLOCK64 = 2, GLOBALTIMER = 3, GLOBALTIMER_LO = 4, GLOBALTIMER_HI = 5;
        /** The last value read, so that every read is larger than the one before. */
        private static final java.util.concurrent.atomic.AtomicLong TICKS = new java.util.concurrent.atomic.AtomicLong();
        /** Wall-clock nanoseconds at System.nanoTime() 0. */
        private static final long EPOCH = System.currentTimeMillis() * 1_000_000L - System.nanoTime();
        final int d, which;

        Timer(int d, int which) {
            super(NORMAL);
            this.d = d;
            this.which = which;
        }

        @Override
        void exec(Warp w, int m) {
            // strictly increasing across reads (PTX ISA 10.8/10.24: both count up); %globaltimer is wall-clock ns
            long t = TICKS.updateAndGet(prev -> Math.max(prev + 1, System.nanoTime()));
            long ns = which >= GLOBALTIMER ? EPOCH + t : t;
            long v = switch (which) {
                case CLOCK, GLOBALTIMER_LO -> ns & 0xFFFF_FFFFL;
                case CLOCK_HI, GLOBALTIMER_HI -> ns >>> 32;
                default -> ns;
            };
            for (int x = m; x != 0; x &= x - 1) w.r[d + Integer.numberOfTrailingZeros(x)] = v;
        }
    }

    /** Instructions with no effect on the emulator (prefetch, nanosleep, bar.warp.sync, pmevent, ...). */
    static final class Nop extends Op {
        Nop() {
            super(NORMAL);
        }
    }

    /** membar / fence (PTX ISA 9.7.13.4): a full fence between the host threads running CTAs. */
    static final class Fence extends Op {
        Fence() {
            super(NORMAL);
        }

        @Override
        void exec(Warp w, int m) {
            VarHandle.fullFence();
        }
    }

    /** trap / brkpt: stops the kernel. */
    static final class Trap extends Op {
        final int error;
        final String what;

        Trap(int error, String what) {
            super(NORMAL);
            this.error = error;
            this.what = what;
        }

        @Override
        void exec(Warp w, int m) {
            throw new Fault(error, Integer.numberOfTrailingZeros(m), what);
        }
    }

    /** bra (target in {@link Op#target}). */
    static final class Bra extends Op {
        Bra() {
            super(BRA);
        }
    }

    /** exit, and ret from the kernel. */
    static final class Exit extends Op {
        Exit() {
            super(EXIT);
        }
    }

    /**
     * bar/barrier (PTX ISA 9.7.13.1): {@code bar.sync a{, b}}, {@code bar.arrive a, b},
     * {@code bar.red.popc.u32 d, a{, b}, {!}c}, {@code bar.red.{and,or}.pred p, a{, b}, {!}c}.
     * {@code id}/{@code count} are slots (-1: barrier 0 / all threads of the CTA).
     */
    static final class Bar extends Op {
        /** bar/barrier modes; CLUSTER_ARRIVE and CLUSTER_WAIT are barrier.cluster's (PTX ISA 9.0, 9.7.13.2), without operands. */
        static final int SYNC = 0, ARRIVE = 1, RED_POPC = 2, RED_AND = 3, RED_OR = 4, CLUSTER_ARRIVE = 5, CLUSTER_WAIT = 6;
        final int mode, id, count, dst, pred;
        final boolean predNeg;

        Bar(int mode, int id, int count, int dst, int pred, boolean predNeg) {
            super(BAR);
            this.mode = mode;
            this.id = id;
            this.count = count;
            this.dst = dst;
            this.pred = pred;
            this.predNeg = predNeg;
        }
    }

    // ------------------------------------------------------------------ device library calls

    /** Reads a NUL-terminated string at a generic address (at most 64 KiB). */
    static String cString(Warp w, long generic, int lane) {
        if (generic == 0) return "(null)";
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 65536; i++) {
            long abs = w.generic(generic + i, 1, lane, Warp.READ);
            byte b = Mem.ALL.get(Mem.B, abs);
            if (b == 0) break;
            sb.append((char) (b & 0xFF));
        }
        return new String(sb.toString().getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
    }

    /**
     * A call of a function the driver provides to kernels (vprintf, __assertfail, malloc, free, cudaGraphSetConditional):
     * its parameters and result are at local-memory offsets, relative to the calling function's frame in an
     * out-of-line function ({@link CallOps}).
     */
    abstract static class BuiltinCall extends Op {
        /** Slot of the frame pointer the offsets are relative to (in an out-of-line function), or -1. */
        int frameBase = -1;

        BuiltinCall() {
            super(NORMAL);
        }

        /** Lane {@code l}'s frame: the local address the parameter offsets are relative to (0 in a kernel). */
        final long frame(Warp w, int l) {
            return frameBase < 0 ? 0 : w.r[frameBase + l];
        }
    }

    /**
     * {@code vprintf(format, args)} (CUDA's device printf): format at a generic address, the
     * arguments packed in a buffer; one output per lane, lanes in order, formatted and buffered by
     * {@link DevicePrintf} (printed at the driver's next flush point). Returns the number of
     * arguments. {@code fmt}, {@code args}, {@code ret} are local-memory offsets of the call's
     * parameters ({@code ret} -1: no result).
     */
    static final class Printf extends BuiltinCall {
        final long fmt, args, ret;

        Printf(long fmt, long args, long ret) {
            this.fmt = fmt;
            this.args = args;
            this.ret = ret;
        }

        @Override
        void exec(Warp w, int m) {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long fb = frame(w, l);
                long f = Mem.load(w.local(fmt + fb, 8, l, Warp.READ), 8, false);
                long a = Mem.load(w.local(args + fb, 8, l, Warp.READ), 8, false);
                int[] n = {0};
                byte[] format = DevicePrintf.cBytes(w, f, l);
                out.writeBytes(DevicePrintf.format(w, l, format == null ? "(null)".getBytes(StandardCharsets.ISO_8859_1) : format, a, n));
                if (ret >= 0) Mem.store(w.local(ret + fb, 4, l, Warp.WRITE), 4, n[0]);
            }
            DevicePrintf.emit(out.toByteArray());
        }
    }

    /**
     * {@code cudaGraphSetConditional(handle, value)} (CUDA 12.3+, the device side of conditional graph nodes): each
     * lane that executes it sets the handle's value ({@link GraphConditionals}), lanes in order, so the last lane's
     * value stays, as any one lane's write may on NVIDIA's device. {@code handle} and {@code value} are
     * local-memory offsets of the call's parameters (.b64, .b32).
     */
    static final class SetConditional extends BuiltinCall {
        final long handle, value;

        SetConditional(long handle, long value) {
            this.handle = handle;
            this.value = value;
        }

        @Override
        void exec(Warp w, int m) {
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long fb = frame(w, l);
                long h = Mem.load(w.local(handle + fb, 8, l, Warp.READ), 8, false);
                long v = Mem.load(w.local(value + fb, 4, l, Warp.READ), 4, false);
                GraphConditionals.set(h, (int) v);
            }
        }
    }

    /**
     * {@code malloc(size)} in a kernel ({@link DeviceHeap}): each lane that executes it gets a block of its own (or
     * NULL), lanes in order. {@code size} and {@code ret} are local-memory offsets of the call's parameters (.b64).
     */
    static final class Malloc extends BuiltinCall {
        final long size, ret;

        Malloc(long size, long ret) {
            this.size = size;
            this.ret = ret;
        }

        @Override
        void exec(Warp w, int m) {
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long fb = frame(w, l);
                long n = Mem.load(w.local(size + fb, 8, l, Warp.READ), 8, false);
                Mem.store(w.local(ret + fb, 8, l, Warp.WRITE), 8, DeviceHeap.malloc(n));
            }
        }
    }

    /**
     * {@code free(p)} in a kernel ({@link DeviceHeap}): NULL does nothing; a pointer that is not a block malloc
     * returned and not yet freed is a fault, CUDA_ERROR_ILLEGAL_ADDRESS (undefined behaviour in C, said out loud
     * here). {@code ptr} is the local-memory offset of the call's parameter (.b64).
     */
    static final class Free extends BuiltinCall {
        final long ptr;

        Free(long ptr) {
            this.ptr = ptr;
        }

        @Override
        void exec(Warp w, int m) {
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long fb = frame(w, l);
                long p = Mem.load(w.local(ptr + fb, 8, l, Warp.READ), 8, false);
                if (!DeviceHeap.free(p)) {
                    throw new Fault(Errors.ILLEGAL_ADDRESS, l, "free(0x" + Long.toHexString(p) + "): not a block that device-side malloc returned (or freed already)");
                }
            }
        }
    }

    /**
     * {@code __assertfail(message, file, line, function, charSize)}: every lane that executes it
     * gets CUDA's message, {@code file:line: function: block: [x,y,z], thread: [x,y,z] Assertion
     * `cond` failed.}, kept with the device printf output and written to stderr at the driver's next
     * flush point (as NVIDIA prints it at the synchronisation); the kernel stops with
     * CUDA_ERROR_ASSERT (710), the first lane named in the fault. Arguments are local-memory offsets.
     */
    static final class AssertFail extends BuiltinCall {
        final long message, file, lineArg, function;

        AssertFail(long message, long file, long lineArg, long function) {
            this.message = message;
            this.file = file;
            this.lineArg = lineArg;
            this.function = function;
        }

        @Override
        void exec(Warp w, int m) {
            StringBuilder all = new StringBuilder();
            String first = null;
            for (int x = m; x != 0; x &= x - 1) {
                int l = Integer.numberOfTrailingZeros(x);
                long fb = frame(w, l);
                String msg = cString(w, Mem.load(w.local(message + fb, 8, l, Warp.READ), 8, false), l);
                String f = cString(w, Mem.load(w.local(file + fb, 8, l, Warp.READ), 8, false), l);
                long ln = Mem.load(w.local(lineArg + fb, 4, l, Warp.READ), 4, false);
                String fn = cString(w, Mem.load(w.local(function + fb, 8, l, Warp.READ), 8, false), l);
                CtaRunner c = w.cta;
                all.append(f).append(':').append(ln).append(": ").append(fn).append(": block: ")
                        .append(c.ctaString()).append(", thread: ").append(w.thread(l).replace('(', '[').replace(')', ']'))
                        .append(" Assertion `").append(msg).append("` failed.\n");
                if (first == null) first = "assertion `" + msg + "` failed at " + f + ":" + ln;
            }
            DevicePrintf.emitStderr(all.toString().getBytes(StandardCharsets.UTF_8));
            throw new Fault(Errors.ASSERT, Integer.numberOfTrailingZeros(m), first);
        }
    }
}
