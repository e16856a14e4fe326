package dev.zluda.runtime.emulator;

/**
 * One warp of 32 lanes executing a {@link Program} in lockstep, with per-lane control flow.
 *
 * <p>Divergence: the lanes that are not exited and not waiting at a barrier are split into groups
 * by program counter; the warp always executes the group with the lowest PC ({@link #active} at
 * {@link #pc}); the other lanes are parked with their own PC in {@link #lanePc}. When the running
 * group's PC reaches a parked lane's PC the lanes merge again (reconvergence); when it jumps past
 * one, the lowest group is chosen again. For structured code this re-converges at the immediate
 * post-dominator, as NVIDIA hardware does, and every lane always runs its own path.
 *
 * <p>Registers: slot {@code s} (a multiple of 32) of lane {@code l} is {@code r[s + l]}, 64 bits
 * (narrower values in the low bits; readers extend as their type says). Predicates are bit masks,
 * one int per predicate register, bit {@code l} for lane {@code l}.
 */
final class Warp {
    static final int NONE = Integer.MAX_VALUE;

    final CtaRunner cta;
    final Program prog;
    final Op[] code;
    /** The compiled program and its code with region entries ({@link JitCompiler}); null: the interpreter runs everything. */
    private final JitKernel jit;
    private final Op[] jitCode;
    final long[] r;
    final int[] p;
    /** Warp index in the CTA. */
    final int id;
    /** Lanes that are threads of the CTA (the last warp of a CTA may be partial). */
    final int valid;
    /** Native base of this warp's local memory: lane l's frame starts at localBase + l * frame. */
    final long localBase;
    final long frame;
    /** Local addresses of the thread's stack: [stackBase, stackEnd) ({@link CallOps}). */
    final long stackBase, stackEnd;
    /** Per lane, the call stack of out-of-line calls (saved registers, then a header), and its height; null without calls. */
    private long[][] calls;
    private int[] callTop;
    /** Most longs one lane's call stack may hold (the emulator's own bound, besides the stack size). */
    private static final int MAX_CALL_WORDS = 1 << 22;

    int pc;
    /** Lanes of the running group (all at {@link #pc}). */
    int active;
    /** Runnable lanes not in the running group, each at {@code lanePc[l]}. */
    int parked;
    /** Lanes waiting at a barrier (their resume PC in {@code lanePc[l]}). */
    int blocked;
    /** Lanes that have not exited. */
    int live;
    /** Lowest PC among parked lanes, or {@link #NONE}. */
    int minParked = NONE;
    final int[] lanePc = new int[32];
    /** Per barrier id, the lanes of this warp waiting on it; {@link ClusterGroup#BARRIER} is the cluster barrier. */
    final int[] barWait = new int[17];
    /** Per barrier id, where a bar.red result goes (slot, predicate index, or -1) and its kind. */
    final int[] barRedDst = new int[17];
    final int[] barRedKind = new int[17];
    /**
     * The cluster barrier: lanes that arrived and have not waited yet, and those of them whose arrival is in the
     * phase not yet complete.
     */
    int clPending, clCurrent;
    /** Thread-instructions executed. */
    long executed;
    /** Scratch values for instructions that read other lanes (shfl). */
    final long[] tmp = new long[32];
    /** Scratch addresses of a whole-warp memory access (MemOps). */
    final long[] addr = new long[32];

    // the last global allocations hit by this warp, the latest first: [cacheLo[i], cacheLo[i] + cacheLen[i])
    private static final int CACHED = 4;
    private final long[] cacheLo = new long[CACHED], cacheLen = new long[CACHED];
    private final long[] found = new long[2];

    Warp(CtaRunner cta, int id, int valid, long localBase) {
        this.cta = cta;
        this.prog = cta.launch.prog;
        this.code = prog.code;
        this.jit = cta.launch.jit == null ? null : cta.launch.jit.kernel();
        this.jitCode = jit == null ? null : cta.launch.jit.code();
        this.id = id;
        this.valid = valid;
        this.localBase = localBase;
        this.frame = cta.launch.localStride;
        this.stackBase = prog.frameBytes;
        this.stackEnd = frame;
        if (prog.usesStack()) {
            calls = new long[32][];
            callTop = new int[32];
        }
        this.r = new long[prog.slots * 32];
        this.p = new int[Math.max(1, prog.preds)];
        for (int i = 0; i < prog.constSlots.length; i++) java.util.Arrays.fill(r, prog.constSlots[i], prog.constSlots[i] + 32, prog.constValues[i]);
        if (prog.truePred >= 0) p[prog.truePred] = -1;
        Launch l = cta.launch;
        for (int i = 0; i < prog.specialSlots.length; i++) {
            int kind = prog.specialKinds[i], s = prog.specialSlots[i];
            if (Specials.perCta(kind)) continue;
            for (int lane = 0; lane < 32; lane++) {
                int t = id * 32 + lane;
                r[s + lane] = switch (kind) {
                    case Specials.TID_X -> t % l.bx;
                    case Specials.TID_Y -> t / l.bx % l.by;
                    case Specials.TID_Z -> t / (l.bx * l.by);
                    case Specials.NTID_X -> l.bx;
                    case Specials.NTID_Y -> l.by;
                    case Specials.NTID_Z -> l.bz;
                    case Specials.NCTAID_X -> l.gx;
                    case Specials.NCTAID_Y -> l.gy;
                    case Specials.NCTAID_Z -> l.gz;
                    case Specials.LANEID -> lane;
                    case Specials.WARPID -> id;
                    case Specials.NWARPID -> Specials.H200_NWARPID;
                    case Specials.NSMID -> Math.max(l.nsm, Specials.H200_NSMID);
                    case Specials.GRIDID -> l.gridId;
                    case Specials.LANEMASK_EQ -> 1L << lane;
                    case Specials.LANEMASK_LE -> (2L << lane) - 1;
                    case Specials.LANEMASK_LT -> (1L << lane) - 1;
                    case Specials.LANEMASK_GE -> 0xFFFF_FFFFL & (-1L << lane);
                    case Specials.LANEMASK_GT -> 0xFFFF_FFFFL & (-2L << lane);
                    case Specials.DYNAMIC_SMEM -> l.dynamicShared;
                    case Specials.TOTAL_SMEM -> (l.sharedBytes + Specials.SMEM_GRANULE - 1) / Specials.SMEM_GRANULE * Specials.SMEM_GRANULE;
                    case Specials.ONE -> 1;
                    case Specials.NCLUSTERID_X -> l.gx / l.cdx;
                    case Specials.NCLUSTERID_Y -> l.gy / l.cdy;
                    case Specials.NCLUSTERID_Z -> l.gz / l.cdz;
                    case Specials.CLUSTER_NCTAID_X -> l.cdx;
                    case Specials.CLUSTER_NCTAID_Y -> l.cdy;
                    case Specials.CLUSTER_NCTAID_Z -> l.cdz;
                    case Specials.CLUSTER_NCTARANK -> l.clusterSize;
                    case Specials.IS_EXPLICIT_CLUSTER -> l.explicitCluster ? 1 : 0;
                    case Specials.ENVREG1 -> l.workspace >>> 32;
                    case Specials.ENVREG2 -> l.workspace & 0xFFFF_FFFFL;
                    default -> 0;
                };
            }
        }
        java.util.Arrays.fill(barRedDst, -1);
    }

    /** Prepares the warp to run a new CTA. */
    void start(int cx, int cy, int cz) {
        for (int i = 0; i < prog.specialSlots.length; i++) {
            int kind = prog.specialKinds[i];
            if (!Specials.perCta(kind)) continue;
            Launch l = cta.launch;
            long v = switch (kind) {
                case Specials.CTAID_X -> cx;
                case Specials.CTAID_Y -> cy;
                case Specials.CTAID_Z -> cz;
                case Specials.CLUSTERID_X -> cx / l.cdx;
                case Specials.CLUSTERID_Y -> cy / l.cdy;
                case Specials.CLUSTERID_Z -> cz / l.cdz;
                case Specials.CLUSTER_CTAID_X -> cx % l.cdx;
                case Specials.CLUSTER_CTAID_Y -> cy % l.cdy;
                case Specials.CLUSTER_CTAID_Z -> cz % l.cdz;
                case Specials.CLUSTER_CTARANK -> cx % l.cdx + l.cdx * (cy % l.cdy + l.cdy * (cz % l.cdz));
                default -> cta.smid;
            };
            java.util.Arrays.fill(r, prog.specialSlots[i], prog.specialSlots[i] + 32, v);
        }
        if (calls != null) {
            java.util.Arrays.fill(r, prog.spSlot, prog.spSlot + 32, stackBase);
            java.util.Arrays.fill(r, prog.fpSlot, prog.fpSlot + 32, 0L);
            java.util.Arrays.fill(callTop, 0);
        }
        pc = 0;
        live = active = valid;
        parked = blocked = 0;
        minParked = NONE;
        java.util.Arrays.fill(barWait, 0);
        clPending = clCurrent = 0;
    }

    /** Whether some lane can make progress now. */
    boolean runnable() {
        return (active | parked) != 0;
    }

    /**
     * Runs until every lane has exited or waits at a barrier, or {@code budget} warp-instructions have been executed:
     * the program's code as compiled ({@link JitCompiler}), or every instruction interpreted when it was not.
     */
    void run(int budget) {
        run(budget, jit != null ? jitCode : code);
    }

    /**
     * The interpreter's loop over {@code code}: {@link #code} (every instruction interpreted, the reference the
     * compiled code is held to) or {@link #jitCode}, where a compiled region ({@link JitKernel}) runs from each of its
     * entries and charges the slice what it executed (a lane region: what its longest lane executed); every other
     * instruction runs here.
     */
    private void run(int budget, Op[] code) {
        final int[] p = this.p;
        while (budget > 0) {
            if (active == 0 && !pickGroup()) return;
            final Op op = code[pc];
            if (op.kind == Op.REGION) {
                JitKernel.Entry e = (JitKernel.Entry) op;
                int used = jit.run(e.region, e.entry, pc, this, budget);
                if (used < 0) {
                    // a lane faulted: the interpreter runs the region again for the lanes that did not finish and
                    // stops at the fault it finds first: within the 32 lanes' paths through the region, each at most
                    // the budget plus the region's length
                    run(32 * (budget + JitCompiler.MAX_REGION_OPS + 1), this.code);
                    return;
                }
                budget -= used;
                continue;
            }
            budget--;
            int m = active;
            executed += Integer.bitCount(m);
            if (op.guard >= 0) m &= op.guardNeg ? ~p[op.guard] : p[op.guard];
            switch (op.kind) {
                case Op.NORMAL -> {
                    if (m != 0) op.exec(this, m);
                    pc++;
                    if (pc >= minParked) regroup();
                }
                case Op.BRA -> branch(m, op.target);
                case Op.EXIT -> exit(m);
                case Op.BAR -> barrier((Ops.Bar) op, m);
                case Op.CALL -> call((CallOps.Call) op, m);
                default -> ret(m);
            }
        }
    }

    /**
     * After a compiled region ran the running group {@code m}: each lane waits at its {@code lanePc}; {@code pc} is
     * where all of them are, or -1 when they went different ways. Regroups as the interpreter would.
     */
    void afterRegion(int m, int pc) {
        if (pc >= 0) {
            this.pc = pc;
            if (pc >= minParked) regroup();
            return;
        }
        parked |= m;
        active = 0;
        pickGroup();
    }

    /**
     * A lane of a compiled region faulted: the lanes of {@code m} not in {@code rest} finished the region (each waits
     * at its {@code lanePc}); those of {@code rest} become the running group again at {@code startPc}, for the
     * interpreter to run. {@code executed}: thread-instructions of the finished lanes.
     */
    void regionFault(int m, int rest, int startPc, long executed) {
        this.executed += executed;
        int done = m & ~rest;
        parked |= done;
        for (int x = done; x != 0; x &= x - 1) minParked = Math.min(minParked, lanePc[Integer.numberOfTrailingZeros(x)]);
        active = rest;
        pc = startPc;
    }

    void branch(int taken, int target) {
        int stay = active & ~taken;
        if (stay == 0) {
            pc = target;
            if (pc >= minParked) regroup();
        } else if (taken == 0) {
            pc++;
            if (pc >= minParked) regroup();
        } else {
            int next = pc + 1;
            for (int m = taken; m != 0; m &= m - 1) lanePc[Integer.numberOfTrailingZeros(m)] = target;
            for (int m = stay; m != 0; m &= m - 1) lanePc[Integer.numberOfTrailingZeros(m)] = next;
            parked |= active;
            active = 0;
            pickGroup();
        }
    }

    private void exit(int m) {
        if (m != 0) {
            live &= ~m;
            active &= ~m;
            cta.exited(Integer.bitCount(m), Integer.bitCount(m & clCurrent));
            clCurrent &= ~m;
            clPending &= ~m;
        }
        if (active != 0) {
            pc++;
            if (pc >= minParked) regroup();
        }
    }

    private void barrier(Ops.Bar b, int m) {
        if (b.mode >= Ops.Bar.CLUSTER_ARRIVE) {
            clusterBarrier(b.mode == Ops.Bar.CLUSTER_ARRIVE, m);
            return;
        }
        if (m != 0) {
            int lane = Integer.numberOfTrailingZeros(m);
            int id = (int) (b.id >= 0 ? r[b.id + lane] : 0) & 15;
            int count = b.count >= 0 ? (int) r[b.count + lane] : -1;
            int contribution = 0;
            if (b.mode == Ops.Bar.RED_POPC || b.mode == Ops.Bar.RED_AND || b.mode == Ops.Bar.RED_OR) {
                int c = b.predNeg ? ~p[b.pred] : p[b.pred];
                contribution = c & m;
            }
            cta.arrive(id, m, count, b.mode, contribution);
            if (b.mode != Ops.Bar.ARRIVE) {
                int next = pc + 1;
                for (int x = m; x != 0; x &= x - 1) lanePc[Integer.numberOfTrailingZeros(x)] = next;
                blocked |= m;
                barWait[id] |= m;
                barRedDst[id] = b.mode == Ops.Bar.SYNC ? -1 : b.dst;
                barRedKind[id] = b.mode;
                active &= ~m;
                if (active == 0) return;
            }
        }
        pc++;
        if (pc >= minParked) regroup();
    }

    /**
     * barrier.cluster.arrive / barrier.cluster.wait (PTX ISA 9.0, 9.7.13.2) for the lanes of {@code m}. An arrival
     * counts once per phase: arriving again before waiting, or waiting without having arrived, is undefined in the
     * ISA and stops the kernel here (CUDA_ERROR_ILLEGAL_INSTRUCTION). A wait whose phase has completed passes.
     */
    private void clusterBarrier(boolean arrive, int m) {
        if (m != 0) {
            if (arrive) {
                int again = m & clPending;
                if (again != 0) {
                    throw new Fault(Errors.ILLEGAL_INSTRUCTION, Integer.numberOfTrailingZeros(again),
                            "barrier.cluster.arrive again before barrier.cluster.wait for the previous arrival");
                }
                clPending |= m;
                clCurrent |= m;
                cta.cluster.arrive(Integer.bitCount(m));
            } else {
                int none = m & ~clPending;
                if (none != 0) {
                    throw new Fault(Errors.ILLEGAL_INSTRUCTION, Integer.numberOfTrailingZeros(none),
                            "barrier.cluster.wait without a barrier.cluster.arrive before it");
                }
                int wait = m & clCurrent;
                clPending &= ~(m & ~wait);
                if (wait != 0) {
                    int next = pc + 1;
                    for (int x = wait; x != 0; x &= x - 1) lanePc[Integer.numberOfTrailingZeros(x)] = next;
                    blocked |= wait;
                    barWait[ClusterGroup.BARRIER] |= wait;
                    barRedDst[ClusterGroup.BARRIER] = -1;
                    active &= ~wait;
                    if (active == 0) return;
                }
            }
        }
        pc++;
        if (pc >= minParked) regroup();
    }

    /** The cluster barrier's phase completed: the waiting lanes go on, every arrival of this warp has been waited for or will pass. */
    void clusterPhaseComplete() {
        int m = barWait[ClusterGroup.BARRIER];
        clCurrent = 0;
        clPending &= ~m;
        if (m != 0) release(ClusterGroup.BARRIER, 0, false, false);
    }

    /** Releases the lanes waiting on barrier {@code id}; {@code red} is the bar.red result. */
    void release(int id, int redPopc, boolean redAll, boolean redAny) {
        int m = barWait[id];
        if (m == 0) return;
        barWait[id] = 0;
        blocked &= ~m;
        int dst = barRedDst[id];
        if (dst >= 0) {
            switch (barRedKind[id]) {
                case Ops.Bar.RED_POPC -> { for (int x = m; x != 0; x &= x - 1) r[dst + Integer.numberOfTrailingZeros(x)] = redPopc; }
                case Ops.Bar.RED_AND -> p[dst] = redAll ? p[dst] | m : p[dst] & ~m;
                default -> p[dst] = redAny ? p[dst] | m : p[dst] & ~m;
            }
        }
        parked |= m;
        for (int x = m; x != 0; x &= x - 1) minParked = Math.min(minParked, lanePc[Integer.numberOfTrailingZeros(x)]);
        if (active != 0 && pc >= minParked) regroup();
    }

    // ------------------------------------------------------------------ out-of-line calls (CallOps)

    /** {@link CallOps.Call}: the lanes of {@code m} enter their targets, the other running lanes go on. */
    private void call(CallOps.Call c, int m) {
        final long[] r = this.r;
        final int next = pc + 1, sp = prog.spSlot, fp = prog.fpSlot;
        for (int x = active & ~m; x != 0; x &= x - 1) lanePc[Integer.numberOfTrailingZeros(x)] = next;
        for (int x = m; x != 0; x &= x - 1) {
            int l = Integer.numberOfTrailingZeros(x);
            int k = 0;
            if (c.targetSlot >= 0) {
                long a = r[c.targetSlot + l];
                k = c.find(a);
                if (k < 0) {
                    throw new Fault(Errors.ILLEGAL_INSTRUCTION, l, "indirect call to " + Mem.hex(a)
                            + ", which is not the address of a function this call can reach (" + String.join(", ", c.names) + ")");
                }
            }
            long nfp = r[c.nfp + l], end = nfp + c.frame[k];
            if (nfp < stackBase || end > stackEnd) {
                throw new Fault(Errors.ILLEGAL_ADDRESS, l, "stack overflow: the call of " + c.names[k] + " at call depth " + depth(l)
                        + " needs stack bytes up to offset " + (end - stackBase) + " of the thread's " + (stackEnd - stackBase)
                        + "-byte stack (CU_LIMIT_STACK_SIZE)");
            }
            push(l, c, next);
            r[fp + l] = nfp;
            r[sp + l] = end;
            lanePc[l] = c.entry[k];
        }
        parked |= active;
        active = 0;
        pickGroup();
    }

    /** {@link CallOps.Ret}: the lanes of {@code m} return to their callers with their registers restored. */
    private void ret(int m) {
        final int next = pc + 1;
        for (int x = active & ~m; x != 0; x &= x - 1) lanePc[Integer.numberOfTrailingZeros(x)] = next;
        for (int x = m; x != 0; x &= x - 1) {
            int l = Integer.numberOfTrailingZeros(x);
            if (callTop[l] == 0) throw new Fault(Errors.HARDWARE_STACK_ERROR, l, "ret with an empty call stack");
            lanePc[l] = pop(l);
        }
        parked |= active;
        active = 0;
        pickGroup();
    }

    private static final int HEADER = 5;

    /** Lane {@code l}'s number of out-of-line calls not yet returned. */
    int depth(int l) {
        int d = 0;
        for (int t = callTop[l]; t > 0; d++) t = (int) calls[l][t - 1];
        return d;
    }

    private void push(int l, CallOps.Call c, int retPc) {
        int nregs = (c.saveHi - c.saveLo) >> 5, npred = c.predHi - c.predLo;
        int top = callTop[l], need = top + nregs + (npred + 63) / 64 + HEADER;
        long[] s = calls[l];
        if (s == null || need > s.length) {
            if (need > MAX_CALL_WORDS) {
                throw new Fault(Errors.ILLEGAL_ADDRESS, l, "stack overflow: call depth " + depth(l) + " saves more than "
                        + MAX_CALL_WORDS + " registers, the emulator's bound per thread");
            }
            s = calls[l] = java.util.Arrays.copyOf(s == null ? new long[0] : s, Math.max(need, Math.min(MAX_CALL_WORDS, Math.max(64, 2 * (s == null ? 0 : s.length)))));
        }
        final long[] r = this.r;
        final int start = top;
        for (int q = c.saveLo + l; q < c.saveHi; q += 32) s[top++] = r[q];
        for (int q = c.predLo; q < c.predHi; q += 64) {
            long bits = 0;
            for (int b = 0; b < 64 && q + b < c.predHi; b++) bits |= (long) ((p[q + b] >>> l) & 1) << b;
            s[top++] = bits;
        }
        s[top++] = r[prog.fpSlot + l];
        s[top++] = r[prog.spSlot + l];
        s[top++] = ((long) c.saveLo << 32) | (c.saveHi & 0xFFFF_FFFFL);
        s[top++] = ((long) c.predLo << 32) | (c.predHi & 0xFFFF_FFFFL) ;
        s[top++] = ((long) retPc << 32) | start;
        callTop[l] = top;
    }

    /** Pops lane {@code l}'s frame, restores what {@link #push} saved, and returns the return PC. */
    private int pop(int l) {
        long[] s = calls[l];
        int top = callTop[l];
        long h = s[top - 1];
        int start = (int) h, retPc = (int) (h >>> 32);
        int predLo = (int) (s[top - 2] >>> 32), predHi = (int) s[top - 2];
        int saveLo = (int) (s[top - 3] >>> 32), saveHi = (int) s[top - 3];
        final long[] r = this.r;
        r[prog.spSlot + l] = s[top - 4];
        r[prog.fpSlot + l] = s[top - 5];
        int i = start;
        for (int q = saveLo + l; q < saveHi; q += 32) r[q] = s[i++];
        final int bit = 1 << l;
        for (int q = predLo; q < predHi; q += 64) {
            long bits = s[i++];
            for (int b = 0; b < 64 && q + b < predHi; b++) p[q + b] = (bits >>> b & 1) != 0 ? p[q + b] | bit : p[q + b] & ~bit;
        }
        callTop[l] = start;
        return retPc;
    }

    /** Parks the running group and picks the lowest-PC group again. */
    void regroup() {
        for (int m = active; m != 0; m &= m - 1) lanePc[Integer.numberOfTrailingZeros(m)] = pc;
        parked |= active;
        active = 0;
        pickGroup();
    }

    /** Makes the lowest-PC parked lanes the running group; false when no lane is runnable. */
    private boolean pickGroup() {
        int cand = parked;
        if (cand == 0) {
            active = 0;
            minParked = NONE;
            return false;
        }
        int min = NONE;
        for (int m = cand; m != 0; m &= m - 1) min = Math.min(min, lanePc[Integer.numberOfTrailingZeros(m)]);
        int group = 0, next = NONE;
        for (int m = cand; m != 0; m &= m - 1) {
            int l = Integer.numberOfTrailingZeros(m);
            int lp = lanePc[l];
            if (lp == min) group |= 1 << l;
            else if (lp < next) next = lp;
        }
        active = group;
        parked = cand & ~group;
        minParked = next;
        pc = min;
        return true;
    }

    // ------------------------------------------------------------------ memory

    /** The PTX thread index of a lane, as "(x,y,z)". */
    String thread(int lane) {
        Launch l = cta.launch;
        int t = id * 32 + lane;
        return "(" + t % l.bx + "," + t / l.bx % l.by + "," + t / (l.bx * l.by) + ")";
    }

    static final int READ = 0, WRITE = 1, ATOMIC = 2;

    static String how(int how) {
        return how == READ ? "read" : how == WRITE ? "write" : "atomic access";
    }

    Fault misaligned(long a, int size, int lane, int how, String space) {
        return new Fault(Errors.MISALIGNED_ADDRESS, lane, "misaligned " + how(how) + " of " + size + " bytes at " + space + " address " + Mem.hex(a));
    }

    private Fault outside(long a, int size, int lane, int how, String what) {
        return new Fault(Errors.ILLEGAL_ADDRESS, lane, how(how) + " of " + size + " bytes at " + Mem.hex(a) + " " + what);
    }

    /** Checks a global access and returns its native address (PTX ISA 5.1.4). */
    long global(long a, int size, int lane, int how) {
        if ((a & (size - 1)) != 0) throw misaligned(a, size, lane, how, "global");
        final long[] lo = cacheLo, len = cacheLen;
        long off = a - lo[0];
        if (off >= 0 && off <= len[0] - size) return a;
        for (int i = 1; i < CACHED; i++) {
            off = a - lo[i];
            if (off >= 0 && off <= len[i] - size) {
                long l = lo[i], n = len[i];
                lo[i] = lo[0];
                len[i] = len[0];
                lo[0] = l;
                len[0] = n;
                return a;
            }
        }
        if (!cta.launch.memory.find(a, found)) throw outside(a, size, lane, how, "(global): not inside any allocation");
        if (a - found[0] > found[1] - size) {
            throw outside(a, size, lane, how, "(global): past the end of the allocation at " + Mem.hex(found[0]) + " of " + found[1] + " bytes");
        }
        System.arraycopy(lo, 0, lo, 1, CACHED - 1);
        System.arraycopy(len, 0, len, 1, CACHED - 1);
        lo[0] = found[0];
        len[0] = found[1];
        return a;
    }

    /**
     * Whether every {@code size}-byte global access at an address from {@code lo} to {@code hi} (signed
     * order) is inside one of the allocations this warp hit last, so that it needs no check of its own:
     * both ends pass the test of {@link #global} for the same allocation (one interval, so every address
     * between them passes too).
     */
    boolean globalCovers(long lo, long hi, int size) {
        for (int i = 0; i < CACHED; i++) {
            long a = lo - cacheLo[i], b = hi - cacheLo[i], max = cacheLen[i] - size;
            if (a >= 0 && a <= max && b >= 0 && b <= max) return true;
        }
        return false;
    }

    /**
     * Checks a shared-space access and returns its native address: an offset in the CTA's shared memory, or a
     * shared::cluster address of another CTA's ({@link ClusterGroup}).
     */
    long shared(long off, int size, int lane, int how) {
        if ((off & (size - 1)) != 0) throw misaligned(off, size, lane, how, "shared");
        if (off < 0 || off > cta.sharedBytes - size) {
            if ((off >>> ClusterGroup.RANK_SHIFT) != 0 && (off >>> 32) == 0) return cta.clusterShared(off, size, this, lane, how);
            throw outside(off, size, lane, how, "(shared): outside the CTA's " + cta.sharedBytes + " bytes of shared memory");
        }
        return cta.sharedBase + off;
    }

    /** Checks a local-space access (offset in the thread's local memory) and returns its native address. */
    long local(long off, int size, int lane, int how) {
        if ((off & (size - 1)) != 0) throw misaligned(off, size, lane, how, "local");
        if (off < 0 || off > frame - size) throw outside(off, size, lane, how, "(local): outside the thread's " + frame + " bytes of local memory");
        return localBase + lane * frame + off;
    }

    /** Checks a kernel-parameter-space access and returns its native address. */
    long param(long off, int size, int lane, int how) {
        if (how != READ) throw outside(off, size, lane, how, "(kernel parameter space is read-only)");
        if ((off & (size - 1)) != 0) throw misaligned(off, size, lane, how, "parameter");
        if (off < 0 || off > cta.launch.paramBytes - size) {
            throw outside(off, size, lane, how, "(param): outside the " + cta.launch.paramBytes + " bytes of kernel parameters");
        }
        return cta.launch.paramBase + off;
    }

    /** Resolves a generic address (PTX ISA 6.4.1.1) to a checked native address. */
    long generic(long a, int size, int lane, int how) {
        return switch (Mem.window(a)) {
            case 'S' -> shared(a - Mem.SHARED_WINDOW, size, lane, how);
            case 'L' -> local(a - Mem.LOCAL_WINDOW, size, lane, how);
            case 'P' -> param(a - Mem.PARAM_WINDOW, size, lane, how);
            default -> global(a, size, lane, how);
        };
    }

    /** Whether a generic address is a global one (atomics there must be real atomics). */
    static boolean isGlobal(long generic) {
        return Mem.window(generic) == 'G';
    }
}
