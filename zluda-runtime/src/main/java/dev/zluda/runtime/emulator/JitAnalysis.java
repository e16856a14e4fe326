package dev.zluda.runtime.emulator;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@link JitCompiler} needs to know of a {@link Program} before it emits code: which registers and predicates
 * each instruction reads and writes ({@link #effects}), which registers are live where ({@link #liveness}), which
 * slots hold constants or values uniform across a warp, and the regions of instructions worth compiling
 * ({@link #regions}; the class comment of {@link JitCompiler} says what a region is and why running it lane by lane
 * gives the interpreter's result).
 */
final class JitAnalysis {
    /** Fewest computing instructions of a region without a loop that is compiled ({@link #worthCompiling}). */
    static final int MIN_STRAIGHT_OPS = 16;
    /** Largest liveness problem (instructions × 64-bit words of slots and predicates) solved; above it every register counts as live. */
    static final long MAX_LIVENESS_WORDS = 1L << 23;

    final Program prog;
    final Op[] code;
    final int n;
    /** Register slots (slot index = slot / 32) and predicates. */
    final int nslots, npreds;
    final Fx[] fx;
    final boolean[] leader;
    /** Live registers (slot index) and predicates (nslots + index) at the start of each instruction; null: all live. */
    private long[][] liveIn;
    final int words;
    /** Constant slots (slot index → value) and slots of special registers with one value for the whole warp. */
    final Map<Integer, Long> constants = new HashMap<>();
    final BitSet uniform = new BitSet();

    JitAnalysis(Program prog) {
        this.prog = prog;
        this.code = prog.code;
        this.n = code.length;
        this.nslots = prog.slots;
        this.npreds = Math.max(1, prog.preds);
        this.fx = new Fx[n];
        for (int i = 0; i < n; i++) fx[i] = effects(code[i]);
        this.words = (nslots + npreds + 63) / 64;
        this.leader = new boolean[n + 1];
        for (int i = 0; i < prog.constSlots.length; i++) constants.put(prog.constSlots[i] / 32, prog.constValues[i]);
        for (int i = 0; i < prog.specialSlots.length; i++) {
            if (uniformSpecial(prog.specialKinds[i])) uniform.set(prog.specialSlots[i] / 32);
        }
        // a slot some instruction writes is neither constant nor uniform (the translator never does that; this makes sure)
        for (Fx f : fx) {
            for (int s : f.w) {
                constants.remove(s);
                uniform.clear(s);
            }
        }
    }

    /** Special registers whose value is the same in every lane of a warp (so read once per region). */
    private static boolean uniformSpecial(int kind) {
        return switch (kind) {
            case Specials.TID_X, Specials.TID_Y, Specials.TID_Z, Specials.LANEID, Specials.LANEMASK_EQ, Specials.LANEMASK_LE,
                 Specials.LANEMASK_LT, Specials.LANEMASK_GE, Specials.LANEMASK_GT -> false;
            default -> true;
        };
    }

    // ------------------------------------------------------------------ what each instruction reads and writes

    /** Registers (slot indices) and predicates an instruction reads and writes; {@code unknown}: it may read any. */
    static final class Fx {
        int[] r = new int[0], w = new int[0], pr = new int[0], pw = new int[0];
        boolean unknown, fusible;
    }

    private static int[] slots(int... s) {
        return Arrays.stream(s).filter(x -> x >= 0).map(x -> x / 32).toArray();
    }

    private static int[] preds(int... q) {
        return Arrays.stream(q).filter(x -> x >= 0).toArray();
    }

    private static int[] cat(int[] a, int... b) {
        int[] o = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, o, a.length, b.length);
        return o;
    }

    /**
     * The registers an instruction reads and writes, and whether a region may hold it ({@link Fx#fusible}): it must
     * compute per lane, touch nothing but its lane's registers, and at most read memory.
     */
    static Fx effects(Op op) {
        Fx f = new Fx();
        switch (op) {
            case Ops.Mov o -> { f.r = slots(o.a); f.w = slots(o.d); f.fusible = true; }
            case Ops.PredLogic o -> {
                f.pr = preds(o.kind == Ops.PredLogic.CONST ? -1 : o.a, o.b);
                f.pw = preds(o.d);
                f.fusible = true;
            }
            case Ops.PredToReg o -> { f.pr = preds(o.a); f.w = slots(o.d); f.fusible = true; }
            case Ops.Pack o -> { f.r = slots(o.parts); f.w = slots(o.d); f.fusible = true; }
            case Ops.Unpack o -> { f.r = slots(o.a); f.w = slots(o.parts); f.fusible = true; }
            case Ops.Nop o -> f.fusible = true;
            case Ops.Bra o -> f.fusible = true;
            case Ops.Exit o -> {}
            case Ops.Timer o -> f.w = slots(o.d);
            case Ops.Fence o -> {}
            case Ops.Trap o -> {}
            case Ops.Bar o -> {
                f.r = slots(o.id, o.count);
                f.pr = o.mode == Ops.Bar.RED_POPC || o.mode == Ops.Bar.RED_AND || o.mode == Ops.Bar.RED_OR ? preds(o.pred) : new int[0];
            }
            case IntOps.Alu o -> { f.r = slots(o.a, o.b, o.c, o.e); f.w = slots(o.d); f.fusible = true; }
            case IntOps.Carry o -> {
                f.r = slots(o.a, o.b, o.c, o.carryIn ? o.cc : -1);
                f.w = slots(o.d, o.carryOut ? o.cc : -1);
            }
            case IntOps.Lop3Pred o -> { f.r = slots(o.a, o.b, o.c, o.lut); f.pr = preds(o.q); f.w = slots(o.d); f.pw = preds(o.dp); }
            case FloatOps.Arith o -> { f.r = slots(o.a, o.b, o.c); f.w = slots(o.d); f.fusible = true; }
            case FloatOps.Half o -> { f.r = slots(o.a, o.b, o.c); f.w = slots(o.d); f.fusible = true; }
            case FloatOps.Setp o -> { f.r = slots(o.a, o.b); f.pr = preds(o.c); f.pw = preds(o.dp, o.dq); f.fusible = true; }
            case FloatOps.SetpX2 o -> { f.r = slots(o.a, o.b); f.pr = preds(o.c); f.pw = preds(o.dp, o.dq); }
            case FloatOps.SetHalf o -> { f.r = slots(o.a, o.b); f.pr = preds(o.c); f.w = slots(o.d); }
            case FloatOps.Set o -> { f.r = slots(o.a, o.b); f.pr = preds(o.c); f.w = slots(o.d); f.fusible = true; }
            case FloatOps.Selp o -> { f.r = slots(o.a, o.b); f.pr = preds(o.c); f.w = slots(o.d); f.fusible = true; }
            case FloatOps.Slct o -> { f.r = slots(o.a, o.b, o.c); f.w = slots(o.d); f.fusible = true; }
            case FloatOps.Testp o -> { f.r = slots(o.a); f.pw = preds(o.dp); f.fusible = true; }
            case ConvertOps.Cvt o -> { f.r = slots(o.a, o.b); f.w = slots(o.d); f.fusible = true; }
            case ConvertOps.CvtPack o -> { f.r = slots(o.a, o.b, o.c); f.w = slots(o.d); f.fusible = true; }
            case MemOps.Ld o -> { f.r = slots(o.base); f.w = slots(o.dst); f.fusible = !o.acquire; }
            case MemOps.St o -> f.r = cat(slots(o.base), slots(o.src));
            case MemOps.Atom o -> {
                f.r = cat(slots(o.base, o.b, o.c), o.bs == null ? new int[0] : slots(o.bs));
                f.w = cat(slots(o.d), o.ds == null ? new int[0] : slots(o.ds));
            }
            case MemOps.Cvta o -> { f.r = slots(o.a); f.w = slots(o.d); f.fusible = true; }
            case MemOps.IsSpace o -> { f.r = slots(o.a); f.pw = preds(o.dp); f.fusible = true; }
            case MemOps.CpAsync o -> { f.r = slots(o.dBase, o.sBase, o.srcSize); f.pr = preds(o.ignore); }
            case WarpOps.Shfl o -> { f.r = slots(o.a, o.b, o.c); f.w = slots(o.d); f.pw = preds(o.dp); }
            case WarpOps.Vote o -> {
                f.pr = preds(o.a);
                f.r = slots(o.mask);
                if (o.mode == WarpOps.BALLOT) f.w = slots(o.d);
                else f.pw = preds(o.d);
            }
            case WarpOps.ActiveMask o -> f.w = slots(o.d);
            case WarpOps.Match o -> { f.r = slots(o.a, o.mask); f.w = slots(o.d); f.pw = preds(o.dp); }
            case WarpOps.Redux o -> { f.r = slots(o.a, o.mask); f.w = slots(o.d); }
            case WarpOps.Elect o -> { f.r = slots(o.mask); f.w = slots(o.d); f.pw = preds(o.dp); }
            case CallOps.FrameAddress o -> { f.r = slots(o.fp); f.w = slots(o.d); f.fusible = true; }
            default -> f.unknown = true;
        }
        if (op.guard >= 0) f.pr = cat(f.pr, op.guard);
        return f;
    }

    // ------------------------------------------------------------------ analysis

    /** The instructions control may go to after {@code pc} (for the liveness of registers). */
    private int[] successors(int pc) {
        Op op = code[pc];
        return switch (op.kind) {
            case Op.BRA -> op.guard >= 0 ? new int[] {op.target, pc + 1} : new int[] {op.target};
            case Op.EXIT -> op.guard >= 0 ? new int[] {pc + 1} : new int[0];
            case Op.CALL -> {
                CallOps.Call c = (CallOps.Call) op;
                int[] s = Arrays.copyOf(c.entry, c.entry.length + 1);
                s[c.entry.length] = pc + 1;
                yield s;
            }
            case Op.RET -> new int[0]; // reads every register (unknown), so nothing after it matters here
            default -> new int[] {pc + 1};
        };
    }

    /**
     * Backward liveness of registers and predicates over the whole program (every lane follows some path of this
     * graph, so a register dead here is dead in every lane). An instruction the compiler does not model reads every
     * register; a write under a guard kills nothing.
     */
    void liveness() {
        if ((long) n * words > MAX_LIVENESS_WORDS) return;
        long[][] in = new long[n][words];
        long[] all = new long[words];
        for (int i = 0; i < nslots + npreds; i++) all[i >> 6] |= 1L << (i & 63);
        int[][] succ = new int[n][];
        for (int i = 0; i < n; i++) succ[i] = successors(i);
        long[] out = new long[words];
        boolean changed = true;
        while (changed) {
            changed = false;
            for (int pc = n - 1; pc >= 0; pc--) {
                Fx f = fx[pc];
                long[] li = in[pc];
                if (f.unknown) {
                    if (!Arrays.equals(li, all)) {
                        System.arraycopy(all, 0, li, 0, words);
                        changed = true;
                    }
                    continue;
                }
                Arrays.fill(out, 0);
                for (int s : succ[pc]) {
                    if (s < 0 || s >= n) continue;
                    long[] o = in[s];
                    for (int k = 0; k < words; k++) out[k] |= o[k];
                }
                if (code[pc].guard < 0) {
                    for (int s : f.w) out[s >> 6] &= ~(1L << (s & 63));
                    for (int q : f.pw) out[(nslots + q) >> 6] &= ~(1L << ((nslots + q) & 63));
                }
                for (int s : f.r) out[s >> 6] |= 1L << (s & 63);
                for (int q : f.pr) out[(nslots + q) >> 6] |= 1L << ((nslots + q) & 63);
                if (!Arrays.equals(li, out)) {
                    System.arraycopy(out, 0, li, 0, words);
                    changed = true;
                }
            }
        }
        liveIn = in;
    }

    boolean liveSlot(int pc, int s) {
        if (liveIn == null || pc < 0 || pc >= n) return liveIn == null || pc < n && pc >= 0;
        return (liveIn[pc][s >> 6] >>> (s & 63) & 1) != 0;
    }

    boolean livePred(int pc, int q) {
        return liveSlot(pc, nslots + q);
    }

    /** A region of instructions [lo, hi] and the entries (instructions where lanes may start it). */
    record Region(int lo, int hi, int[] entries) {}

    /** The regions of the program (see the class comment). */
    List<Region> regions() {
        // instructions where a running group may start: the first, branch targets, and what follows anything but a
        // plain instruction (lanes resume there after barriers, calls, exits of other lanes) or an instruction the
        // interpreter runs (it ends a region)
        leader[0] = true;
        for (int pc = 0; pc < n; pc++) {
            Op op = code[pc];
            if (op.kind == Op.BRA && op.target >= 0 && op.target <= n) leader[op.target] = true;
            if (op.kind != Op.NORMAL || !fx[pc].fusible) leader[pc + 1] = true;
        }
        if (prog.spSlot >= 0) {
            // out-of-line function entries
            for (Op op : code) if (op instanceof CallOps.Call c && c.entry != null) for (int e : c.entry) if (e >= 0 && e <= n) leader[e] = true;
        }
        List<Region> out = new ArrayList<>();
        int pc = 0;
        while (pc < n) {
            if (!fx[pc].fusible) {
                pc++;
                continue;
            }
            int lo = pc, hi = pc;
            while (hi + 1 < n && fx[hi + 1].fusible && hi + 1 - lo < JitCompiler.MAX_REGION_OPS) hi++;
            // a branch back to before lo ends the region before it
            for (int b = lo; b <= hi; b++) {
                Op op = code[b];
                if (op.kind == Op.BRA && op.target < lo) {
                    hi = b - 1;
                    break;
                }
            }
            if (hi < lo) {
                pc = lo + 1;
                continue;
            }
            // a region whose size was capped must end at a block boundary reachable from outside: leader[hi + 1]
            if (hi + 1 < n && fx[hi + 1].fusible) leader[hi + 1] = true;
            if (!hasLoop(lo, hi)) {
                // lanes entering at a later entry run only the rest: end the region before an entry with too little after it
                for (int e = lo + 1; e <= hi; e++) {
                    if (leader[e] && work(e, hi) < MIN_STRAIGHT_OPS) {
                        hi = e - 1;
                        break;
                    }
                }
            }
            if (worthCompiling(lo, hi)) {
                List<Integer> entries = new ArrayList<>();
                for (int b = lo; b <= hi; b++) if (leader[b]) entries.add(b);
                if (!leader[lo]) entries.addFirst(lo);
                leader[lo] = true;
                out.add(new Region(lo, hi, entries.stream().mapToInt(Integer::intValue).toArray()));
            }
            pc = hi + 1;
        }
        return out;
    }

    /**
     * Whether region [lo, hi] runs faster compiled: a compiled region pays a fixed cost per lane (its registers in and
     * out of locals, the lane's exit and count), which the interpreter's whole-warp loops beat for a few instructions.
     * Measured on the benchmark kernels (docs/benchmarks.md): a loop inside the region, or at least
     * {@link #MIN_STRAIGHT_OPS} instructions that compute.
     */
    private boolean worthCompiling(int lo, int hi) {
        return hasLoop(lo, hi) || work(lo, hi) >= MIN_STRAIGHT_OPS;
    }

    /** Whether a branch in [lo, hi] goes back to an instruction of [lo, hi]. */
    private boolean hasLoop(int lo, int hi) {
        for (int b = lo; b <= hi; b++) if (code[b].kind == Op.BRA && code[b].target >= lo && code[b].target <= b) return true;
        return false;
    }

    /** Instructions in [lo, hi] that compute (not branches, not nops). */
    private int work(int lo, int hi) {
        int work = 0;
        for (int b = lo; b <= hi; b++) if (!(code[b] instanceof Ops.Bra) && !(code[b] instanceof Ops.Nop)) work++;
        return work;
    }

    /** [lo, hi] cut before any branch back to before lo; null when nothing is left. */
    Region validated(int lo, int hi) {
        for (int b = lo; b <= hi; b++) {
            Op op = code[b];
            if (op.kind == Op.BRA && op.target < lo) {
                hi = b - 1;
                break;
            }
        }
        if (hi < lo) return null;
        List<Integer> entries = new ArrayList<>();
        for (int b = lo; b <= hi; b++) if (leader[b]) entries.add(b);
        if (!leader[lo]) entries.addFirst(lo);
        leader[lo] = true;
        if (hi + 1 < n && fx[hi + 1].fusible) leader[hi + 1] = true;
        return new Region(lo, hi, entries.stream().mapToInt(Integer::intValue).toArray());
    }

    /**
     * The warp regions ({@link JitWarpEmitter}): maximal runs of at least two instructions outside the lane regions
     * {@code lanes} that the interpreter's loop would run one after another ({@link Op#NORMAL} and {@link Op#BRA}),
     * each of at most {@code max} instructions. Their entries are the program's block starts (where a group may
     * begin to run); a run cut at {@code max} makes the next instruction one.
     */
    List<Region> warpRegions(List<Region> lanes, int max) {
        boolean[] covered = new boolean[n];
        for (Region r : lanes) for (int pc = r.lo(); pc <= r.hi(); pc++) covered[pc] = true;
        List<Region> out = new ArrayList<>();
        int pc = 0;
        while (pc < n) {
            if (covered[pc] || !warpable(code[pc])) {
                pc++;
                continue;
            }
            int lo = pc, hi = pc;
            while (hi + 1 < n && !covered[hi + 1] && warpable(code[hi + 1]) && hi + 1 - lo < max) hi++;
            if (hi > lo) {
                if (hi + 1 < n && !covered[hi + 1] && warpable(code[hi + 1])) leader[hi + 1] = true;
                out.add(warpRegion(lo, hi));
            }
            pc = hi + 1;
        }
        return out;
    }

    /** Warp region [lo, hi], {@code lo} made a block start; its entries are the block starts in it. */
    Region warpRegion(int lo, int hi) {
        leader[lo] = true;
        List<Integer> entries = new ArrayList<>();
        for (int b = lo; b <= hi; b++) if (leader[b]) entries.add(b);
        return new Region(lo, hi, entries.stream().mapToInt(Integer::intValue).toArray());
    }

    private static boolean warpable(Op op) {
        return op.kind == Op.NORMAL || op.kind == Op.BRA;
    }
}
