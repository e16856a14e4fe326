package dev.zluda.runtime.emulator;

import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.Opcode;
import java.lang.classfile.TypeKind;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.DynamicConstantDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static java.lang.constant.ConstantDescs.CD_boolean;
import static java.lang.constant.ConstantDescs.CD_char;
import static java.lang.constant.ConstantDescs.CD_double;
import static java.lang.constant.ConstantDescs.CD_float;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

/**
 * Compiles a kernel's {@link Program} to JVM bytecode (the JDK's ClassFile API, {@code java.lang.classfile}): one
 * hidden class per kernel ({@link JitKernel}), defined in this package.
 *
 * <p><b>Why the translated program and not the PTX IR.</b> The {@link Translator} has already resolved every operand
 * to a register slot, inlined device functions, laid out frames and decided each instruction's semantics in one
 * {@link Op} object. Compiling from those objects keeps one source of truth for what an instruction computes: the
 * compiled code calls the same per-lane methods of the same objects the interpreter runs ({@code IntOps.Alu.compute},
 * {@code FloatOps.Arith.f32}, {@code ConvertOps.Cvt.lane}, the memory checks of {@link Warp}), and inlines only the
 * simplest ones (integer add, f32 fma, 32-bit compares, moves) in the same Java expressions; any instruction it does
 * not compile keeps running as its {@link Op}, so nothing the interpreter executes is lost.
 *
 * <p><b>Regions.</b> A region is a range of instructions {@code [lo, hi]} that only compute into registers and
 * predicates or read memory ({@code ld} without {@code .acquire}, {@code cvta}, {@code mov}, integer, float, compare
 * and conversion instructions) and branch among themselves: every branch goes to an instruction at or after
 * {@code lo}, either inside the region or past {@code hi}. The compiled code runs a region for the warp's running
 * group one lane at a time, each lane along its own path with its registers in JVM locals (loaded at the start,
 * written back at the end where they are live, {@link #liveness}), as if it were one thread of a C program. That is
 * the interpreter's result because such a region has no effect other lanes can see: its reads of memory cannot
 * observe each other, and as every exit lies past the region, the interpreter (which always runs the lowest program
 * counter first) would also have run every lane through the whole region before anything else. The lanes are
 * regrouped afterwards exactly as the interpreter would ({@link Warp#afterRegion}), so divergence, reconvergence and
 * the warp-level instructions after a region see the same groups. A lane counts its instructions as the interpreter
 * counts thread-instructions; a loop in a region stops a lane when it has run a slice's budget of instructions (so
 * spin loops still yield). A fault (a bad address) in a region hands the lanes that did not finish back to the
 * interpreter from the start of the region ({@link Warp#regionFault}), so the fault reported — kernel, thread,
 * instruction — is the one the interpreter reports.
 *
 * <p>Everything else — stores, atomics, warp-level instructions, barriers, calls, {@code exit}, textures — runs as
 * the interpreter runs it, between regions ({@link Warp#run}).
 */
final class JitCompiler {
    /** Most instructions in one region (so that its method stays under HotSpot's 8000-byte limit for compiling). */
    static final int MAX_REGION_OPS = 150;
    /** Fewest computing instructions of a region without a loop that is compiled ({@link #worthCompiling}). */
    static final int MIN_STRAIGHT_OPS = 16;
    /**
     * Largest bytecode of one region method. HotSpot does not compile methods above 8000 bytes (HugeMethodLimit), and
     * in a method of several thousand it stops inlining the small helpers ({@code FloatOps.fmaRn}, {@code Mem.load}):
     * the tiled SGEMM of docs/benchmarks.md ran 20-25 % faster with its tile product in three methods of at most 2500
     * bytes than in one of 7800 (and slower again at 1200, with twice as many region boundaries).
     */
    static final int MAX_METHOD_BYTES = 2500;
    /** Largest liveness problem (instructions × 64-bit words of slots and predicates) solved; above it every register counts as live. */
    static final long MAX_LIVENESS_WORDS = 1L << 23;

    private static final AtomicLong IDS = new AtomicLong();

    static final ClassDesc CD_WARP = desc(Warp.class), CD_KERNEL = desc(JitKernel.class), CD_MEM = desc(Mem.class),
            CD_FAULT = desc(Fault.class), CD_CTA = desc(CtaRunner.class), CD_LAUNCH = desc(Launch.class),
            CD_FLOATOPS = desc(FloatOps.class), CD_SETP = desc(FloatOps.Setp.class), CD_LONGS = CD_long.arrayType(),
            CD_INTS = CD_int.arrayType(), CD_INTOPS = desc(IntOps.class);

    private static ClassDesc desc(Class<?> c) {
        return ClassDesc.of(c.getName());
    }

    /** The product of compiling one program: the hidden class's instance and the code array with region entries. */
    record Result(JitKernel kernel, Op[] code, int regions, int compiledOps) {}

    private final Program prog;
    private final Op[] code;
    private final int n;
    /** Register slots (slot index = slot / 32) and predicates. */
    private final int nslots, npreds;
    private final Fx[] fx;
    private final boolean[] leader;
    /** Live registers (slot index) and predicates (nslots + index) at the start of each instruction; null: all live. */
    private long[][] liveIn;
    private final int words;
    /** Constant slots (slot index → value) and slots of special registers with one value for the whole warp. */
    private final Map<Integer, Long> constants = new HashMap<>();
    private final BitSet uniform = new BitSet();
    /** The objects the compiled code calls, in the hidden class's class data. */
    private final List<Object> classData = new ArrayList<>();
    private final Map<Object, Integer> dataIndex = new java.util.IdentityHashMap<>();

    private JitCompiler(Program prog) {
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

    /**
     * Compiles {@code prog}; null when it has no region worth compiling (then the interpreter runs it as it is).
     *
     * @throws RuntimeException when the compiler fails (the caller runs the interpreter and says why with ZLUDA_DEBUG)
     */
    static Result compile(Program prog) {
        return new JitCompiler(prog).build();
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
    private void liveness() {
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

    private boolean liveSlot(int pc, int s) {
        if (liveIn == null || pc < 0 || pc >= n) return liveIn == null || pc < n && pc >= 0;
        return (liveIn[pc][s >> 6] >>> (s & 63) & 1) != 0;
    }

    private boolean livePred(int pc, int q) {
        return liveSlot(pc, nslots + q);
    }

    /** A region of instructions [lo, hi] and the entries (instructions where lanes may start it). */
    private record Region(int lo, int hi, int[] entries) {}

    /** The regions of the program (see the class comment). */
    private List<Region> regions() {
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
            while (hi + 1 < n && fx[hi + 1].fusible && hi + 1 - lo < MAX_REGION_OPS) hi++;
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

    // ------------------------------------------------------------------ code generation

    private Result build() {
        liveness();
        List<Region> regions = regions();
        if (regions.isEmpty()) return null;
        // split regions whose method would be too large for HotSpot's optimizing compiler
        List<Region> fitted = new ArrayList<>();
        for (Region r : regions) fit(r, fitted);
        Op[] jit = code.clone();
        int ops = 0;
        for (int k = 0; k < fitted.size(); k++) {
            Region r = fitted.get(k);
            for (int e = 0; e < r.entries.length; e++) jit[r.entries[e]] = new JitKernel.Entry(k, e, code[r.entries[e]]);
            ops += r.hi - r.lo + 1;
        }
        String name = "dev.zluda.runtime.emulator.JitKernel$" + sanitize(prog.name) + "$" + IDS.incrementAndGet();
        ClassDesc self = ClassDesc.of(name);
        byte[] bytes = classFile().build(self, clb -> {
            clb.withFlags(ClassFile.ACC_FINAL | ClassFile.ACC_SUPER);
            clb.withSuperclass(CD_KERNEL);
            clb.withMethodBody(ConstantDescs.INIT_NAME, ConstantDescs.MTD_void, ClassFile.ACC_PUBLIC,
                    cob -> cob.aload(0).invokespecial(CD_KERNEL, ConstantDescs.INIT_NAME, ConstantDescs.MTD_void).return_());
            MethodTypeDesc regionType = MethodTypeDesc.of(CD_int, CD_WARP, CD_int, CD_int, CD_int);
            clb.withMethodBody("run", MethodTypeDesc.of(CD_int, CD_int, CD_int, CD_int, CD_WARP, CD_int), ClassFile.ACC_FINAL, cob -> {
                Label[] cases = new Label[fitted.size()];
                List<java.lang.classfile.instruction.SwitchCase> sc = new ArrayList<>();
                for (int k = 0; k < cases.length; k++) {
                    cases[k] = cob.newLabel();
                    sc.add(java.lang.classfile.instruction.SwitchCase.of(k, cases[k]));
                }
                Label dflt = cob.newLabel();
                cob.iload(1).tableswitch(0, cases.length - 1, dflt, sc);
                for (int k = 0; k < cases.length; k++) {
                    cob.labelBinding(cases[k]);
                    cob.aload(4).iload(2).iload(3).iload(5).invokestatic(self, "r" + k, regionType).ireturn();
                }
                cob.labelBinding(dflt);
                cob.iconst_m1().ireturn();
            });
            for (int k = 0; k < fitted.size(); k++) {
                Region r = fitted.get(k);
                clb.withMethodBody("r" + k, regionType, ClassFile.ACC_STATIC | ClassFile.ACC_PRIVATE, cob -> new RegionEmitter(r, cob).emit());
            }
        });
        try {
            MethodHandles.Lookup lk = MethodHandles.lookup().defineHiddenClassWithClassData(bytes, List.copyOf(classData), true);
            JitKernel k = (JitKernel) lk.findConstructor(lk.lookupClass(), MethodType.methodType(void.class)).invoke();
            return new Result(k, jit, fitted.size(), ops);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("cannot define the compiled class of kernel " + prog.name + ": " + t, t);
        }
    }

    private static String sanitize(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && b.length() < 60; i++) {
            char c = s.charAt(i);
            b.append(Character.isJavaIdentifierPart(c) ? c : '_');
        }
        return b.toString();
    }

    private static ClassFile classFile() {
        return ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(
                ClassHierarchyResolver.defaultResolver().orElse(ClassHierarchyResolver.ofClassLoading(JitCompiler.class.getClassLoader()))));
    }

    /** Adds {@code r} to {@code out}, split at block boundaries until each part's method is small enough. */
    private void fit(Region r, List<Region> out) {
        int size = trialSize(r);
        if (size <= MAX_METHOD_BYTES || r.hi == r.lo) {
            out.add(r);
            return;
        }
        int mid = (r.lo + r.hi + 1) / 2;
        // the second part begins at a block boundary: make mid a leader (lanes may enter there)
        leader[mid] = true;
        Region a = validated(r.lo, mid - 1), b = validated(mid, r.hi);
        if (a != null) fit(a, out);
        if (b != null) fit(b, out);
    }

    /** [lo, hi] cut before any branch back to before lo; null when nothing is left. */
    private Region validated(int lo, int hi) {
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

    private int trialSize(Region r) {
        int mark = classData.size();
        Map<Object, Integer> savedIndex = new java.util.IdentityHashMap<>(dataIndex);
        int[] size = {0};
        var model = ClassFile.of().parse(classFile().build(ClassDesc.of("dev.zluda.runtime.emulator.JitTrial"), clb -> clb.withMethodBody("r",
                MethodTypeDesc.of(CD_int, CD_WARP, CD_int, CD_int, CD_int), ClassFile.ACC_STATIC, cob -> new RegionEmitter(r, cob).emit())));
        size[0] = ((java.lang.classfile.attribute.CodeAttribute) model.methods().getFirst().code().orElseThrow()).codeLength();
        while (classData.size() > mark) classData.removeLast();
        dataIndex.clear();
        dataIndex.putAll(savedIndex);
        return size[0];
    }

    /** The class-data constant for object {@code o} (an {@link Op} the compiled code calls), typed as its class. */
    private DynamicConstantDesc<?> constant(Object o) {
        int i = dataIndex.computeIfAbsent(o, x -> {
            classData.add(x);
            return classData.size() - 1;
        });
        return DynamicConstantDesc.ofNamed(ConstantDescs.BSM_CLASS_DATA_AT, ConstantDescs.DEFAULT_NAME, desc(o.getClass()), i);
    }

    /** Emits the method of one region: {@code static int rK(Warp w, int entry, int startPc, int budget)}. */
    private final class RegionEmitter {
        final Region reg;
        final CodeBuilder cob;
        // fixed locals
        static final int W = 0, ENTRY = 1, START = 2, BUDGET = 3;
        int R, P, M, X, L, CNT, TOTAL, MAX, EXIT, LANEPC, FIRST, DIV, SH_BASE = -1, SH_BYTES = -1;

        private int sharedBaseLocal() {
            return SH_BASE;
        }

        private int sharedBytesLocal() {
            return SH_BYTES;
        }
        /** JVM local of each register slot and predicate used in the region, and of the uniform values. */
        final Map<Integer, Integer> slotLocal = new HashMap<>(), predLocal = new HashMap<>(), uniformLocal = new HashMap<>();
        /** ld.param at constant offsets, read once per region: instruction → local. */
        final Map<Integer, Integer> paramLocal = new HashMap<>();
        final BitSet reads = new BitSet(), writes = new BitSet(), predReads = new BitSet(), predWrites = new BitSet();
        final BitSet writeBack = new BitSet(), predWriteBack = new BitSet();
        Label[] block;
        Label writeBackLabel;

        RegionEmitter(Region reg, CodeBuilder cob) {
            this.reg = reg;
            this.cob = cob;
        }

        void emit() {
            analyse();
            R = cob.allocateLocal(TypeKind.REFERENCE);
            P = cob.allocateLocal(TypeKind.REFERENCE);
            LANEPC = cob.allocateLocal(TypeKind.REFERENCE);
            M = cob.allocateLocal(TypeKind.INT);
            X = cob.allocateLocal(TypeKind.INT);
            L = cob.allocateLocal(TypeKind.INT);
            CNT = cob.allocateLocal(TypeKind.INT);
            TOTAL = cob.allocateLocal(TypeKind.LONG);
            MAX = cob.allocateLocal(TypeKind.INT);
            EXIT = cob.allocateLocal(TypeKind.INT);
            FIRST = cob.allocateLocal(TypeKind.INT);
            DIV = cob.allocateLocal(TypeKind.INT);
            cob.aload(W).getfield(CD_WARP, "r", CD_LONGS).astore(R);
            cob.aload(W).getfield(CD_WARP, "p", CD_INTS).astore(P);
            cob.aload(W).getfield(CD_WARP, "lanePc", CD_INTS).astore(LANEPC);
            cob.aload(W).getfield(CD_WARP, "active", CD_int).istore(M);
            cob.lconst_0().lstore(TOTAL);
            boolean sharedLoads = false;
            for (int pc = reg.lo; pc <= reg.hi; pc++) if (code[pc] instanceof MemOps.Ld ld && ld.space == MemOps.SHARED) sharedLoads = true;
            if (sharedLoads) {
                SH_BASE = cob.allocateLocal(TypeKind.LONG);
                SH_BYTES = cob.allocateLocal(TypeKind.LONG);
                cob.aload(W).getfield(CD_WARP, "cta", CD_CTA).getfield(CD_CTA, "sharedBase", CD_long).lstore(SH_BASE);
                cob.aload(W).getfield(CD_WARP, "cta", CD_CTA).getfield(CD_CTA, "sharedBytes", CD_long).lstore(SH_BYTES);
            }
            cob.iconst_0().istore(MAX);
            cob.iconst_m1().istore(FIRST);
            cob.iconst_0().istore(DIV);
            // values the same in every lane, read once: special registers, kernel parameters at constant offsets
            for (int s = uniform.nextSetBit(0); s >= 0; s = uniform.nextSetBit(s + 1)) {
                if (!reads.get(s)) continue;
                int loc = cob.allocateLocal(TypeKind.LONG);
                uniformLocal.put(s, loc);
                cob.aload(R).loadConstant(s * 32).laload().lstore(loc);
            }
            for (int pc = reg.lo; pc <= reg.hi; pc++) {
                if (code[pc] instanceof MemOps.Ld ld && hoistableParam(ld)) {
                    int loc = cob.allocateLocal(TypeKind.LONG);
                    paramLocal.put(pc, loc);
                    // the parameter buffer does not change during a launch, and this offset is inside it (checked here)
                    cob.aload(W).getfield(CD_WARP, "cta", CD_CTA).getfield(CD_CTA, "launch", CD_LAUNCH).getfield(CD_LAUNCH, "paramBase", CD_long)
                            .loadConstant(ld.offset).ladd().loadConstant(ld.size).loadConstant(ld.signed ? 1 : 0)
                            .invokestatic(CD_MEM, "load", MethodTypeDesc.of(CD_long, CD_long, CD_int, CD_boolean)).lstore(loc);
                }
            }
            for (int s = reads.nextSetBit(0); s >= 0; s = reads.nextSetBit(s + 1)) local(s);
            for (int s = writes.nextSetBit(0); s >= 0; s = writes.nextSetBit(s + 1)) local(s);
            for (int q = predReads.nextSetBit(0); q >= 0; q = predReads.nextSetBit(q + 1)) predLocal.computeIfAbsent(q, x -> cob.allocateLocal(TypeKind.INT));
            for (int q = predWrites.nextSetBit(0); q >= 0; q = predWrites.nextSetBit(q + 1)) predLocal.computeIfAbsent(q, x -> cob.allocateLocal(TypeKind.INT));

            Label loop = cob.newLabel(), done = cob.newLabel(), tryStart = cob.newLabel(), tryEnd = cob.newLabel(), handler = cob.newLabel();
            writeBackLabel = cob.newLabel();
            block = new Label[reg.hi - reg.lo + 2];
            for (int pc = reg.lo; pc <= reg.hi; pc++) if (isBlockStart(pc)) block[pc - reg.lo] = cob.newLabel();

            cob.iload(M).istore(X);
            cob.labelBinding(loop);
            cob.iload(X).ifeq(done);
            cob.labelBinding(tryStart);
            cob.iload(X).invokestatic(ConstantDescs.CD_Integer, "numberOfTrailingZeros", MethodTypeDesc.of(CD_int, CD_int)).istore(L);
            cob.iconst_0().istore(CNT);
            cob.iconst_0().istore(EXIT);
            // registers of this lane into locals
            for (var e : slotLocal.entrySet()) {
                int s = e.getKey();
                if (reads.get(s) || writeBack.get(s)) {
                    cob.aload(R).loadConstant(s * 32).iload(L).iadd().laload().lstore(e.getValue());
                } else {
                    cob.lconst_0().lstore(e.getValue());
                }
            }
            for (var e : predLocal.entrySet()) {
                int q = e.getKey();
                if (predReads.get(q) || predWriteBack.get(q)) {
                    cob.aload(P).loadConstant(q).iaload().iload(L).iushr().iconst_1().iand().istore(e.getValue());
                } else {
                    cob.iconst_0().istore(e.getValue());
                }
            }
            // the entry block
            if (reg.entries.length == 1) {
                cob.goto_(block[reg.entries[0] - reg.lo]);
            } else {
                List<java.lang.classfile.instruction.SwitchCase> sc = new ArrayList<>();
                for (int e = 0; e < reg.entries.length; e++) sc.add(java.lang.classfile.instruction.SwitchCase.of(e, block[reg.entries[e] - reg.lo]));
                cob.iload(ENTRY).tableswitch(0, reg.entries.length - 1, block[reg.entries[0] - reg.lo], sc);
            }
            for (int pc = reg.lo; pc <= reg.hi; pc++) {
                if (block[pc - reg.lo] != null) {
                    cob.labelBinding(block[pc - reg.lo]);
                    cob.iinc(CNT, blockLength(pc));
                }
                instruction(pc);
            }
            // falling off the end: the lane leaves at hi + 1
            exitTo(reg.hi + 1);

            // write back the live registers of this lane and where it goes next
            cob.labelBinding(writeBackLabel);
            for (int s = writeBack.nextSetBit(0); s >= 0; s = writeBack.nextSetBit(s + 1)) {
                cob.aload(R).loadConstant(s * 32).iload(L).iadd().lload(slotLocal.get(s)).lastore();
            }
            for (int q = predWriteBack.nextSetBit(0); q >= 0; q = predWriteBack.nextSetBit(q + 1)) {
                // p[q] = p[q] & ~(1 << l) | v << l
                cob.aload(P).loadConstant(q).aload(P).loadConstant(q).iaload().iconst_1().iload(L).ishl().iconst_m1().ixor().iand()
                        .iload(predLocal.get(q)).iload(L).ishl().ior().iastore();
            }
            cob.aload(LANEPC).iload(L).iload(EXIT).iastore();
            cob.labelBinding(tryEnd);
            // total += cnt; max = max(max, cnt); first/diverged exit
            cob.lload(TOTAL).iload(CNT).i2l().ladd().lstore(TOTAL);
            cob.iload(MAX).iload(CNT).invokestatic(ClassDesc.of("java.lang.Math"), "max", MethodTypeDesc.of(CD_int, CD_int, CD_int)).istore(MAX);
            Label notFirst = cob.newLabel(), same = cob.newLabel();
            cob.iload(FIRST).ifge(notFirst);
            cob.iload(EXIT).istore(FIRST).goto_(same);
            cob.labelBinding(notFirst);
            cob.iload(EXIT).iload(FIRST).if_icmpeq(same);
            cob.iconst_1().istore(DIV);
            cob.labelBinding(same);
            cob.iload(X).iload(X).iconst_1().isub().iand().istore(X);
            cob.goto_(loop);

            cob.labelBinding(done);
            cob.aload(W).dup().getfield(CD_WARP, "executed", CD_long).lload(TOTAL).ladd().putfield(CD_WARP, "executed", CD_long);
            Label uni = cob.newLabel(), call = cob.newLabel();
            cob.aload(W).iload(M);
            cob.iload(DIV).ifeq(uni);
            cob.iconst_m1().goto_(call);
            cob.labelBinding(uni);
            cob.iload(FIRST);
            cob.labelBinding(call);
            cob.invokevirtual(CD_WARP, "afterRegion", MethodTypeDesc.of(CD_void, CD_int, CD_int));
            cob.iload(MAX).ireturn();

            // a fault: the interpreter runs the lanes that did not finish from the start of the region
            cob.labelBinding(handler);
            cob.pop();
            cob.aload(W).iload(M).iload(X).iload(START).lload(TOTAL)
                    .invokevirtual(CD_WARP, "regionFault", MethodTypeDesc.of(CD_void, CD_int, CD_int, CD_int, CD_long));
            cob.iconst_m1().ireturn();
            cob.exceptionCatch(tryStart, tryEnd, handler, CD_FAULT);
        }

        private int local(int s) {
            if (constants.containsKey(s) || uniformLocal.containsKey(s)) return -1;
            return slotLocal.computeIfAbsent(s, x -> cob.allocateLocal(TypeKind.LONG));
        }

        private boolean isBlockStart(int pc) {
            if (pc == reg.lo || leader[pc]) return true;
            Op prev = code[pc - 1];
            return prev.kind == Op.BRA;
        }

        /** Instructions from block start {@code pc} up to the next block start (a lane runs all of them). */
        private int blockLength(int pc) {
            int e = pc + 1;
            while (e <= reg.hi && !isBlockStart(e)) e++;
            return e - pc;
        }

        /** Reads, writes, and what to write back: registers written here that are live where a lane may leave. */
        private void analyse() {
            List<Integer> exits = new ArrayList<>();
            exits.add(reg.hi + 1);
            for (int pc = reg.lo; pc <= reg.hi; pc++) {
                Fx f = fx[pc];
                for (int s : f.r) reads.set(s);
                for (int s : f.w) writes.set(s);
                for (int q : f.pr) predReads.set(q);
                for (int q : f.pw) predWrites.set(q);
                Op op = code[pc];
                if (op.kind == Op.BRA) exits.add(op.target); // outside: a way out; inside and backward: where a lane stops for the budget
            }
            for (int s = writes.nextSetBit(0); s >= 0; s = writes.nextSetBit(s + 1)) {
                for (int e : exits) if (liveSlot(e, s)) { writeBack.set(s); break; }
            }
            for (int q = predWrites.nextSetBit(0); q >= 0; q = predWrites.nextSetBit(q + 1)) {
                for (int e : exits) if (livePred(e, q)) { predWriteBack.set(q); break; }
            }
        }

        private boolean hoistableParam(MemOps.Ld ld) {
            if (ld.space != MemOps.PARAM || ld.base >= 0 || ld.count != 1 || ld.dst[0] < 0) return false;
            long total = (long) ld.size * ld.count;
            return ld.offset >= 0 && (ld.offset & (total - 1)) == 0 && ld.offset + total <= prog.paramBytes;
        }

        // --------------------------------------------------------------- operands

        private void load(int slot) {
            int s = slot / 32;
            Long c = constants.get(s);
            if (c != null) {
                cob.loadConstant(c.longValue());
                return;
            }
            Integer u = uniformLocal.get(s);
            if (u != null) {
                cob.lload(u);
                return;
            }
            cob.lload(slotLocal.get(s));
        }

        /** Loads slot {@code slot}, or 0 when it is -1 (an absent operand). */
        private void loadOr0(int slot) {
            if (slot < 0) cob.lconst_0();
            else load(slot);
        }

        private void store(int slot) {
            cob.lstore(slotLocal.get(slot / 32));
        }

        private void loadPred(int q) {
            cob.iload(predLocal.get(q));
        }

        private void storePred(int q) {
            cob.istore(predLocal.get(q));
        }

        private void l2iLoad(int slot) {
            load(slot);
            cob.l2i();
        }

        // --------------------------------------------------------------- instructions

        private void exitTo(int target) {
            cob.loadConstant(target).istore(EXIT).goto_(writeBackLabel);
        }

        private void instruction(int pc) {
            Op op = code[pc];
            Label skip = null;
            if (op.guard >= 0) {
                skip = cob.newLabel();
                loadPred(op.guard);
                if (op.guardNeg) cob.ifne(skip);
                else cob.ifeq(skip);
            }
            switch (op) {
                case Ops.Bra b -> {
                    int t = b.target;
                    if (t >= reg.lo && t <= reg.hi) {
                        if (t <= pc) {
                            // a loop: the lane stops (resumes there later) once it has run the slice's budget
                            Label go = cob.newLabel();
                            cob.iload(CNT).iload(BUDGET).if_icmplt(go);
                            exitTo(t);
                            cob.labelBinding(go);
                        }
                        cob.goto_(block[t - reg.lo]);
                    } else {
                        exitTo(t);
                    }
                }
                case Ops.Nop o -> {}
                case Ops.Mov o -> { load(o.a); store(o.d); }
                case Ops.PredLogic o -> predLogic(o);
                case Ops.PredToReg o -> { loadPred(o.a); cob.i2l(); store(o.d); }
                case Ops.Pack o -> {
                    long mk = IntOps.mask(o.bits);
                    cob.lconst_0();
                    for (int i = 0; i < o.parts.length; i++) {
                        if (o.parts[i] < 0) continue;
                        load(o.parts[i]);
                        cob.loadConstant(mk).land().loadConstant(o.bits * i).lshl().lor();
                    }
                    store(o.d);
                }
                case Ops.Unpack o -> {
                    long mk = IntOps.mask(o.bits);
                    int tmp = cob.allocateLocal(TypeKind.LONG);
                    load(o.a);
                    cob.lstore(tmp);
                    for (int i = 0; i < o.parts.length; i++) {
                        if (o.parts[i] < 0) continue;
                        cob.lload(tmp).loadConstant(o.bits * i).lushr().loadConstant(mk).land();
                        store(o.parts[i]);
                    }
                }
                case IntOps.Alu o -> alu(o);
                case FloatOps.Arith o -> arith(o);
                case FloatOps.Half o -> {
                    cob.loadConstant(constant(o));
                    load(o.a);
                    loadOr0(o.b);
                    loadOr0(o.c);
                    cob.invokevirtual(desc(o.getClass()), "lane", MethodTypeDesc.of(CD_long, CD_long, CD_long, CD_long));
                    store(o.d);
                }
                case FloatOps.Setp o -> setp(o);
                case FloatOps.Set o -> set(o);
                case FloatOps.Selp o -> {
                    Label a = cob.newLabel(), end = cob.newLabel();
                    loadPred(o.c);
                    if (o.cNeg) cob.ifeq(a);
                    else cob.ifne(a);
                    load(o.b);
                    cob.goto_(end);
                    cob.labelBinding(a);
                    load(o.a);
                    cob.labelBinding(end);
                    store(o.d);
                }
                case FloatOps.Slct o -> {
                    cob.loadConstant(constant(o));
                    load(o.a);
                    load(o.b);
                    load(o.c);
                    cob.invokevirtual(desc(o.getClass()), "lane", MethodTypeDesc.of(CD_long, CD_long, CD_long, CD_long));
                    store(o.d);
                }
                case FloatOps.Testp o -> {
                    cob.loadConstant(constant(o));
                    load(o.a);
                    cob.invokevirtual(desc(o.getClass()), "lane", MethodTypeDesc.of(CD_boolean, CD_long));
                    storePred(o.dp);
                }
                case ConvertOps.Cvt o -> {
                    cob.loadConstant(constant(o));
                    load(o.a);
                    loadOr0(o.b);
                    cob.invokevirtual(desc(o.getClass()), "lane", MethodTypeDesc.of(CD_long, CD_long, CD_long));
                    store(o.d);
                }
                case ConvertOps.CvtPack o -> {
                    cob.loadConstant(constant(o));
                    load(o.a);
                    load(o.b);
                    loadOr0(o.c);
                    cob.invokevirtual(desc(o.getClass()), "lane", MethodTypeDesc.of(CD_long, CD_long, CD_long, CD_long));
                    store(o.d);
                }
                case MemOps.Ld o -> ld(o, pc);
                case MemOps.Cvta o -> {
                    long window = switch (o.space) {
                        case MemOps.SHARED -> Mem.SHARED_WINDOW;
                        case MemOps.LOCAL -> Mem.LOCAL_WINDOW;
                        case MemOps.PARAM -> Mem.PARAM_WINDOW;
                        default -> 0;
                    };
                    load(o.a);
                    if (window != 0) {
                        if (o.toSpace) cob.loadConstant(window).lsub();
                        else cob.loadConstant(0xFFFF_FFFFL).land().loadConstant(window).ladd();
                    }
                    if (o.narrow) cob.loadConstant(0xFFFF_FFFFL).land();
                    store(o.d);
                }
                case MemOps.IsSpace o -> {
                    cob.loadConstant(constant(o));
                    load(o.a);
                    cob.invokevirtual(desc(o.getClass()), "lane", MethodTypeDesc.of(CD_boolean, CD_long));
                    storePred(o.dp);
                }
                case CallOps.FrameAddress o -> {
                    load(o.fp);
                    cob.loadConstant(o.offset).ladd();
                    store(o.d);
                }
                default -> throw new IllegalStateException("not compilable: " + op.getClass().getSimpleName());
            }
            if (skip != null) cob.labelBinding(skip);
        }

        private void predLogic(Ops.PredLogic o) {
            // bits 0/1: NOT x is x ^ 1
            switch (o.kind) {
                case Ops.PredLogic.CONST -> cob.loadConstant(o.value ? 1 : 0);
                default -> {
                    predOperand(o.a, o.aNeg);
                    switch (o.kind) {
                        case Ops.PredLogic.AND -> { predOperandB(o); cob.iand(); }
                        case Ops.PredLogic.OR -> { predOperandB(o); cob.ior(); }
                        case Ops.PredLogic.XOR -> { predOperandB(o); cob.ixor(); }
                        case Ops.PredLogic.NOT -> cob.iconst_1().ixor();
                        default -> {}
                    }
                }
            }
            storePred(o.d);
        }

        private void predOperandB(Ops.PredLogic o) {
            if (o.b >= 0) predOperand(o.b, o.bNeg);
            else cob.iconst_0();
        }

        private void predOperand(int q, boolean neg) {
            loadPred(q);
            if (neg) cob.iconst_1().ixor();
        }

        private void alu(IntOps.Alu o) {
            switch (o.kind) {
                case IntOps.ADD -> { load(o.a); load(o.b); cob.ladd(); }
                case IntOps.SUB -> { load(o.a); load(o.b); cob.lsub(); }
                case IntOps.MUL_LO -> { load(o.a); load(o.b); cob.lmul(); }
                case IntOps.MAD_LO -> { load(o.a); load(o.b); cob.lmul(); load(o.c); cob.ladd(); }
                case IntOps.AND -> { load(o.a); load(o.b); cob.land(); }
                case IntOps.OR -> { load(o.a); load(o.b); cob.lor(); }
                case IntOps.XOR -> { load(o.a); load(o.b); cob.lxor(); }
                case IntOps.NOT -> { load(o.a); cob.loadConstant(-1L).lxor(); }
                case IntOps.NEG -> { load(o.a); cob.lneg(); }
                case IntOps.MUL_WIDE -> {
                    load(o.a);
                    load(o.b);
                    cob.loadConstant(o.bits).loadConstant(o.signed ? 1 : 0)
                            .invokestatic(CD_INTOPS, "mulWide", MethodTypeDesc.of(CD_long, CD_long, CD_long, CD_int, CD_boolean));
                }
                case IntOps.SHL -> {
                    load(o.a);
                    load(o.b);
                    cob.loadConstant(o.bits).invokestatic(CD_INTOPS, "shl", MethodTypeDesc.of(CD_long, CD_long, CD_long, CD_int));
                }
                case IntOps.SHR -> {
                    load(o.a);
                    load(o.b);
                    cob.loadConstant(o.bits).loadConstant(o.signed ? 1 : 0)
                            .invokestatic(CD_INTOPS, "shr", MethodTypeDesc.of(CD_long, CD_long, CD_long, CD_int, CD_boolean));
                }
                default -> {
                    cob.loadConstant(constant(o));
                    load(o.a);
                    loadOr0(o.b);
                    loadOr0(o.c);
                    loadOr0(o.e);
                    cob.invokevirtual(desc(o.getClass()), "compute", MethodTypeDesc.of(CD_long, CD_long, CD_long, CD_long, CD_long));
                }
            }
            store(o.d);
        }

        private void arith(FloatOps.Arith o) {
            if (!o.f64) {
                if (!o.ftz && !o.sat && o.rnd == FloatMath.RN && (o.kind == FloatOps.ADD || o.kind == FloatOps.MUL || o.kind == FloatOps.FMA)) {
                    String m = o.kind == FloatOps.ADD ? "addRn" : o.kind == FloatOps.MUL ? "mulRn" : "fmaRn";
                    load(o.a);
                    load(o.b);
                    if (o.kind == FloatOps.FMA) {
                        load(o.c);
                        cob.invokestatic(CD_FLOATOPS, m, MethodTypeDesc.of(CD_long, CD_long, CD_long, CD_long));
                    } else {
                        cob.invokestatic(CD_FLOATOPS, m, MethodTypeDesc.of(CD_long, CD_long, CD_long));
                    }
                    store(o.d);
                    return;
                }
                cob.loadConstant(constant(o));
                l2iLoad(o.a);
                if (o.b >= 0) l2iLoad(o.b); else cob.iconst_0();
                if (o.c >= 0) l2iLoad(o.c); else cob.iconst_0();
                cob.invokevirtual(desc(o.getClass()), "f32", MethodTypeDesc.of(CD_long, CD_int, CD_int, CD_int));
                store(o.d);
                return;
            }
            cob.loadConstant(constant(o));
            load(o.a);
            cob.invokestatic(ConstantDescs.CD_Double, "longBitsToDouble", MethodTypeDesc.of(CD_double, CD_long));
            if (o.b >= 0) { load(o.b); cob.invokestatic(ConstantDescs.CD_Double, "longBitsToDouble", MethodTypeDesc.of(CD_double, CD_long)); } else cob.dconst_0();
            if (o.c >= 0) { load(o.c); cob.invokestatic(ConstantDescs.CD_Double, "longBitsToDouble", MethodTypeDesc.of(CD_double, CD_long)); } else cob.dconst_0();
            load(o.a);
            loadOr0(o.b);
            loadOr0(o.c);
            cob.invokevirtual(desc(o.getClass()), "f64", MethodTypeDesc.of(CD_long, CD_double, CD_double, CD_double, CD_long, CD_long, CD_long));
            store(o.d);
        }

        /** Pushes the comparison bit (0/1) of setp/set {@code a cmp b}, as {@link FloatOps#test} decides it. */
        private void compare(int cmp, int kind, int bits, boolean signed, boolean ftz, int a, int b) {
            boolean unsignedCmp = cmp >= FloatOps.LO && cmp <= FloatOps.HS || (!signed && cmp <= FloatOps.GE);
            if (kind == FloatOps.K_INT && bits == 32 && (unsignedCmp || signed && cmp <= FloatOps.GE)) {
                // 32-bit integers: unsigned order is the signed order of the values with their top bit flipped
                int c = cmp >= FloatOps.LO ? cmp - FloatOps.LO + FloatOps.LT : cmp;
                l2iLoad(a);
                if (unsignedCmp) cob.loadConstant(Integer.MIN_VALUE).ixor();
                l2iLoad(b);
                if (unsignedCmp) cob.loadConstant(Integer.MIN_VALUE).ixor();
                Opcode jump = switch (c) {
                    case FloatOps.EQ -> Opcode.IF_ICMPEQ;
                    case FloatOps.NE -> Opcode.IF_ICMPNE;
                    case FloatOps.LT -> Opcode.IF_ICMPLT;
                    case FloatOps.LE -> Opcode.IF_ICMPLE;
                    case FloatOps.GT -> Opcode.IF_ICMPGT;
                    default -> Opcode.IF_ICMPGE;
                };
                Label t = cob.newLabel(), end = cob.newLabel();
                cob.branch(jump, t);
                cob.iconst_0().goto_(end);
                cob.labelBinding(t);
                cob.iconst_1();
                cob.labelBinding(end);
                return;
            }
            if (kind == FloatOps.K_F32 && !ftz && cmp <= FloatOps.GE) {
                cob.loadConstant(cmp);
                l2iLoad(a);
                cob.invokestatic(ConstantDescs.CD_Float, "intBitsToFloat", MethodTypeDesc.of(CD_float, CD_int));
                l2iLoad(b);
                cob.invokestatic(ConstantDescs.CD_Float, "intBitsToFloat", MethodTypeDesc.of(CD_float, CD_int));
                cob.invokestatic(CD_SETP, "f32Compare", MethodTypeDesc.of(CD_boolean, CD_int, CD_float, CD_float));
                return;
            }
            cob.loadConstant(cmp).loadConstant(kind).loadConstant(bits).loadConstant(signed ? 1 : 0).loadConstant(ftz ? 1 : 0);
            load(a);
            load(b);
            cob.invokestatic(CD_FLOATOPS, "test", MethodTypeDesc.of(CD_boolean, CD_int, CD_int, CD_int, CD_boolean, CD_boolean, CD_long, CD_long));
        }

        /** With the comparison bit t on the stack, replaces it by {@code combine(bool, t, c)} (bits 0/1). */
        private void combine(int bool, int c, boolean cNeg) {
            if (bool == FloatOps.BOOL_NONE) return;
            if (c >= 0) predOperand(c, cNeg);
            else cob.iconst_0();
            switch (bool) {
                case FloatOps.BOOL_AND -> cob.iand();
                case FloatOps.BOOL_OR -> cob.ior();
                default -> cob.ixor();
            }
        }

        private void setp(FloatOps.Setp o) {
            int t = cob.allocateLocal(TypeKind.INT);
            compare(o.cmp, o.kind, o.bits, o.signed, o.ftz, o.a, o.b);
            cob.istore(t);
            if (o.dp >= 0) {
                cob.iload(t);
                combine(o.bool, o.c, o.cNeg);
                storePred(o.dp);
            }
            if (o.dq >= 0) {
                cob.iload(t).iconst_1().ixor();
                combine(o.bool, o.c, o.cNeg);
                storePred(o.dq);
            }
        }

        private void set(FloatOps.Set o) {
            Label one = cob.newLabel(), end = cob.newLabel();
            compare(o.cmp, o.kind, o.bits, o.signed, o.ftz, o.a, o.b);
            combine(o.bool, o.c, o.cNeg);
            cob.ifne(one);
            cob.lconst_0().goto_(end);
            cob.labelBinding(one);
            cob.loadConstant(o.one);
            cob.labelBinding(end);
            store(o.d);
        }

        private void ld(MemOps.Ld o, int pc) {
            Integer hoisted = paramLocal.get(pc);
            if (hoisted != null) {
                cob.lload(hoisted);
                store(o.dst[0]);
                return;
            }
            int total = o.size * o.count;
            int abs = cob.allocateLocal(TypeKind.LONG);
            // the address, then the state space's check (Warp.global, shared, ...), which names this lane in a fault
            cob.aload(W);
            if (o.base < 0) {
                cob.loadConstant(o.offset);
            } else {
                load(o.base);
                if (o.offset != 0) cob.loadConstant(o.offset).ladd();
                if (o.base32) cob.loadConstant(0xFFFF_FFFFL).land(); // as MemOps.Access.address: modulo 2^32 after the addition
            }
            if (o.space == MemOps.SHARED) {
                // Warp.shared's checks inline, with the CTA's shared memory in locals; anything they would refuse goes
                // to Warp.shared itself, which throws the fault the interpreter throws
                int off = cob.allocateLocal(TypeKind.LONG);
                Label slow = cob.newLabel(), ok = cob.newLabel();
                cob.lstore(off);
                cob.pop(); // the warp, pushed above for the call
                cob.lload(off).loadConstant((long) total - 1).land().lconst_0().lcmp().ifne(slow);
                cob.lload(off).lconst_0().lcmp().iflt(slow);
                cob.lload(off).lload(sharedBytesLocal()).loadConstant((long) total).lsub().lcmp().ifgt(slow);
                cob.lload(sharedBaseLocal()).lload(off).ladd().lstore(abs).goto_(ok);
                cob.labelBinding(slow);
                cob.aload(W).lload(off).loadConstant(total).iload(L).iconst_0()
                        .invokevirtual(CD_WARP, "shared", MethodTypeDesc.of(CD_long, CD_long, CD_int, CD_int, CD_int)).lstore(abs);
                cob.labelBinding(ok);
                loadElements(o, abs);
                return;
            }
            cob.loadConstant(total).iload(L).iconst_0(); // Warp.READ
            String check = switch (o.space) {
                case MemOps.GLOBAL -> "global";
                case MemOps.SHARED -> "shared";
                case MemOps.LOCAL -> "local";
                case MemOps.PARAM -> "param";
                default -> "generic";
            };
            cob.invokevirtual(CD_WARP, check, MethodTypeDesc.of(CD_long, CD_long, CD_int, CD_int, CD_int)).lstore(abs);
            loadElements(o, abs);
        }

        /** The elements of {@code o} from checked native address {@code abs} into their registers. */
        private void loadElements(MemOps.Ld o, int abs) {
            for (int e = 0; e < o.count; e++) {
                if (o.dst[e] < 0) continue;
                cob.lload(abs);
                if (e != 0) cob.loadConstant((long) e * o.size).ladd();
                cob.loadConstant(o.size).loadConstant(o.signed ? 1 : 0).invokestatic(CD_MEM, "load", MethodTypeDesc.of(CD_long, CD_long, CD_int, CD_boolean));
                store(o.dst[e]);
            }
        }
    }
}
