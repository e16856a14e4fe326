package dev.zluda.runtime.emulator;

import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.TypeKind;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.util.ArrayList;
import java.util.List;

import dev.zluda.runtime.emulator.JitAnalysis.Region;

import static dev.zluda.runtime.emulator.JitCompiler.CD_CTA;
import static dev.zluda.runtime.emulator.JitCompiler.CD_FLOATOPS;
import static dev.zluda.runtime.emulator.JitCompiler.CD_MEM;
import static dev.zluda.runtime.emulator.JitCompiler.CD_INTS;
import static dev.zluda.runtime.emulator.JitCompiler.CD_LAUNCH;
import static dev.zluda.runtime.emulator.JitCompiler.CD_LONGS;
import static dev.zluda.runtime.emulator.JitCompiler.CD_WARP;
import static dev.zluda.runtime.emulator.JitCompiler.desc;
import static java.lang.constant.ConstantDescs.CD_boolean;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

/**
 * Emits the method of one <em>warp region</em> of a kernel ({@link JitCompiler}): {@code static int wK(Warp w, int
 * entry, int startPc, int budget)}, which runs instructions {@code [lo, hi]} for the warp's running group in lockstep,
 * exactly as {@link Warp#run}'s interpreter loop does, with the loop's per-instruction dispatch resolved here: each
 * instruction is a direct call of its {@link Op#exec} (a class known to the JIT, so HotSpot may inline it) with the
 * running group's mask and the guard applied, and each {@code bra} is a bytecode branch while the whole group takes
 * it (or none of it does).
 *
 * <p>What stays the interpreter's, so that divergence and reconvergence follow the same rules: a branch that splits
 * the group ({@link Warp#branch}), reaching the program counter of a parked group ({@link Warp#regroup}, checked
 * after every instruction against {@link Warp#minParked}, which no instruction of a warp region changes), and every
 * instruction that is not {@link Op#NORMAL} or {@link Op#BRA} ({@code exit}, barriers, calls, {@code ret}: a warp
 * region ends before them). A backward branch taken after {@code budget} warp-instructions leaves the region, so that
 * spin loops still yield to the other warps. A fault (or any exception) thrown by an instruction leaves {@link Warp#pc}
 * at that instruction, so the kernel, thread and instruction reported are the interpreter's. Thread-instructions are
 * counted as the interpreter counts them: the running group's lanes for every instruction.
 *
 * <p><b>Whole warps inline.</b> When the running group is the whole warp (all 32 lanes, the common case) the simplest
 * instructions run here as counted 32-lane loops over the warp's lane-strided registers ({@code r[slot + lane]}) with
 * their slots as constants, which HotSpot unrolls: {@code mov}, integer {@code add}/{@code sub}/{@code mul.lo}/
 * {@code mad.lo}/{@code and}/{@code or}/{@code xor}/{@code mul.wide}, {@code add}/{@code mul}/{@code fma.rn.f32},
 * {@code cvta}, 32-bit integer {@code setp}, and 4-byte {@code ld}/{@code st} of global and shared memory, whose 32
 * addresses are checked once before any is touched (all aligned; lowest and highest inside the CTA's shared memory,
 * or inside one allocation the warp used recently: {@link Warp#globalCovers}); an access that fails that check runs
 * the instruction's own code, which checks lane by lane and names the first bad lane. Each loop computes what the
 * instruction's own whole-warp path computes ({@code IntOps.Alu.full}, {@code FloatOps.Arith.exec},
 * {@code FloatOps.Setp.int32All}, {@code MemOps.Ld.exec}, ...), bit for bit. A {@code ld.param} at a constant offset
 * that lies inside the kernel's parameters (checked at compile time) reads the value once for all lanes.
 * {@code -Dzluda.jit.inline=false} turns this off (every instruction through {@link Op#exec}).
 *
 * @return (of the emitted method) the warp-instructions executed, at least one
 */
final class JitWarpEmitter {
    private final JitCompiler jc;
    private final Op[] code;
    private final boolean[] leader;
    private final Region reg;
    private final CodeBuilder cob;

    private static final int W = 0, ENTRY = 1, BUDGET = 3;
    /**
     * Locals: running group, its lane count (long), warp-instructions run, lowest parked PC, exit PC, predicates,
     * taken lanes (or a setp's mask), registers, lane counter, and an access's address or, lowest, highest address
     * and base.
     */
    private int a, pop, n, lim, exitPc, p, taken, r, lane, orA, minA, maxA, addr, base;
    private static final ClassDesc CD_MATH = ClassDesc.of("java.lang.Math"), CD_SEGMENT = ClassDesc.of("java.lang.foreign.MemorySegment"),
            CD_OFINT = ClassDesc.of("java.lang.foreign.ValueLayout$OfInt");
    private Label[] block;
    private Label plain, regroup, fault;
    /** Out-of-line code emitted after the body: exits and exception handlers of single instructions. */
    private final List<Runnable> stubs = new ArrayList<>();

    JitWarpEmitter(JitCompiler jc, JitAnalysis an, Region reg, CodeBuilder cob) {
        this.jc = jc;
        this.code = an.code;
        this.leader = an.leader;
        this.reg = reg;
        this.cob = cob;
    }

    void emit() {
        a = cob.allocateLocal(TypeKind.INT);
        pop = cob.allocateLocal(TypeKind.LONG);
        n = cob.allocateLocal(TypeKind.INT);
        lim = cob.allocateLocal(TypeKind.INT);
        exitPc = cob.allocateLocal(TypeKind.INT);
        p = cob.allocateLocal(TypeKind.REFERENCE);
        taken = cob.allocateLocal(TypeKind.INT);
        r = cob.allocateLocal(TypeKind.REFERENCE);
        lane = cob.allocateLocal(TypeKind.INT);
        orA = cob.allocateLocal(TypeKind.LONG);
        minA = cob.allocateLocal(TypeKind.LONG);
        maxA = cob.allocateLocal(TypeKind.LONG);
        addr = cob.allocateLocal(TypeKind.LONG);
        base = cob.allocateLocal(TypeKind.LONG);
        plain = cob.newLabel();
        regroup = cob.newLabel();
        fault = cob.newLabel();
        cob.aload(W).getfield(CD_WARP, "active", CD_int).istore(a);
        cob.iload(a).invokestatic(ConstantDescs.CD_Integer, "bitCount", MethodTypeDesc.of(CD_int, CD_int)).i2l().lstore(pop);
        cob.aload(W).getfield(CD_WARP, "minParked", CD_int).istore(lim);
        cob.aload(W).getfield(CD_WARP, "p", CD_INTS).astore(p);
        cob.aload(W).getfield(CD_WARP, "r", CD_LONGS).astore(r);
        cob.iconst_0().istore(lane);
        cob.iconst_0().istore(n);
        cob.iconst_0().istore(taken);
        cob.iconst_0().istore(exitPc);
        int lo = reg.lo(), hi = reg.hi();
        block = new Label[hi - lo + 1];
        for (int pc = lo; pc <= hi; pc++) if (pc == lo || leader[pc]) block[pc - lo] = cob.newLabel();
        int[] entries = reg.entries();
        if (entries.length == 1) {
            cob.goto_(block[entries[0] - lo]);
        } else {
            List<java.lang.classfile.instruction.SwitchCase> sc = new ArrayList<>();
            for (int e = 0; e < entries.length; e++) sc.add(java.lang.classfile.instruction.SwitchCase.of(e, block[entries[e] - lo]));
            cob.iload(ENTRY).tableswitch(0, entries.length - 1, block[entries[0] - lo], sc);
        }
        for (int pc = lo; pc <= hi; pc++) {
            if (block[pc - lo] != null) cob.labelBinding(block[pc - lo]);
            Label start = cob.newLabel(), end = cob.newLabel(), handler = cob.newLabel();
            cob.labelBinding(start);
            instruction(pc);
            cob.labelBinding(end);
            final int at = pc;
            stubs.add(() -> {
                // the exception is on the stack: the warp's PC names the instruction that threw it
                cob.labelBinding(handler);
                cob.aload(W).loadConstant(at).putfield(CD_WARP, "pc", CD_int).goto_(fault);
            });
            cob.exceptionCatchAll(start, end, handler);
        }
        // falling off the end: the group goes on at hi + 1 (the last instruction checked the parked groups)
        cob.loadConstant(hi + 1).istore(exitPc).goto_(plain);

        cob.labelBinding(plain);
        leave();
        cob.iload(n).ireturn();
        cob.labelBinding(regroup);
        leave();
        cob.aload(W).invokevirtual(CD_WARP, "regroup", MethodTypeDesc.of(CD_void));
        cob.iload(n).ireturn();
        for (Runnable s : stubs) s.run();
        cob.labelBinding(fault);
        count();
        cob.athrow();
    }

    /** w.pc = exitPc, and the thread-instructions counted. */
    private void leave() {
        cob.aload(W).iload(exitPc).putfield(CD_WARP, "pc", CD_int);
        count();
    }

    /** w.executed += n * (lanes of the running group). */
    private void count() {
        cob.aload(W).dup().getfield(CD_WARP, "executed", CD_long).iload(n).i2l().lload(pop).lmul().ladd().putfield(CD_WARP, "executed", CD_long);
    }

    /** The group goes on at {@code next}: the interpreter's {@code if (pc >= minParked) regroup()}. */
    private void checkParked(int next) {
        Label stub = cob.newLabel();
        cob.iload(lim).loadConstant(next).if_icmple(stub);
        stubs.add(() -> {
            cob.labelBinding(stub);
            cob.loadConstant(next).istore(exitPc).goto_(regroup);
        });
    }

    /** Pushes the lanes of the running group whose guard holds. */
    private void guarded(Op op) {
        cob.aload(p).loadConstant(op.guard).iaload();
        if (op.guardNeg) cob.iconst_m1().ixor();
        cob.iload(a).iand();
    }

    private void instruction(int pc) {
        Op op = code[pc];
        cob.iinc(n, 1);
        if (op.kind == Op.BRA) {
            branch(op, pc);
            return;
        }
        MethodTypeDesc exec = MethodTypeDesc.of(CD_void, CD_WARP, CD_int);
        if (op.guard >= 0) {
            Label after = cob.newLabel();
            guarded(op);
            cob.dup().istore(taken).ifeq(after);
            cob.loadConstant(jc.constant(op)).aload(W).iload(taken).invokevirtual(desc(op.getClass()), "exec", exec);
            cob.labelBinding(after);
        } else if (INLINE && op instanceof MemOps.Ld ld && uniformParam(ld)) {
            // a kernel parameter at a constant offset inside the parameters (checked here): one value for every lane
            cob.aload(W).getfield(CD_WARP, "cta", CD_CTA).getfield(CD_CTA, "launch", CD_LAUNCH).getfield(CD_LAUNCH, "paramBase", CD_long)
                    .loadConstant(ld.offset).ladd().loadConstant(ld.size).loadConstant(ld.signed ? 1 : 0)
                    .invokestatic(CD_MEM, "load", MethodTypeDesc.of(CD_long, CD_long, CD_int, CD_boolean)).lstore(addr);
            Label top = cob.newLabel(), next = cob.newLabel();
            cob.iload(a).istore(taken);
            cob.labelBinding(top);
            cob.iload(taken).ifeq(next);
            cob.aload(r).loadConstant(ld.d0).iload(taken).invokestatic(ConstantDescs.CD_Integer, "numberOfTrailingZeros", MethodTypeDesc.of(CD_int, CD_int))
                    .iadd().lload(addr).lastore();
            cob.iload(taken).iload(taken).iconst_1().isub().iand().istore(taken).goto_(top);
            cob.labelBinding(next);
        } else if (INLINE && op instanceof FloatOps.Setp sp && int32Setp(sp)) {
            wholeWarpOrExec(op, part -> setp(sp));
        } else if (INLINE && op instanceof MemOps.Access acc && wholeWarpAccess(acc)) {
            wholeWarpOrExec(op, part -> access(acc, part));
        } else if (INLINE && wholeWarpValue(op, true)) {
            // the instruction's 32-lane loop here, with its slots as constants
            wholeWarpOrExec(op, part -> {
                Label top = cob.newLabel();
                cob.iconst_0().istore(lane);
                cob.labelBinding(top);
                cob.aload(r).loadConstant(dest(op)).iload(lane).iadd();
                wholeWarpValue(op, false);
                cob.lastore();
                cob.iinc(lane, 1).iload(lane).loadConstant(32).if_icmplt(top);
            });
        } else {
            cob.loadConstant(jc.constant(op)).aload(W).iload(a).invokevirtual(desc(op.getClass()), "exec", exec);
        }
        checkParked(pc + 1);
    }

    /**
     * For a whole warp (the common case) the code {@code inline} emits, which may jump to the label it is given
     * when it finds it cannot run the instruction (no effect done yet); otherwise the instruction's own
     * {@link Op#exec} for the running group.
     */
    private void wholeWarpOrExec(Op op, java.util.function.Consumer<Label> inline) {
        Label part = cob.newLabel(), after = cob.newLabel();
        cob.iload(a).iconst_m1().if_icmpne(part);
        inline.accept(part);
        cob.goto_(after);
        cob.labelBinding(part);
        cob.loadConstant(jc.constant(op)).aload(W).iload(a).invokevirtual(desc(op.getClass()), "exec", MethodTypeDesc.of(CD_void, CD_WARP, CD_int));
        cob.labelBinding(after);
    }

    /** Whether {@code -Dzluda.jit.inline=false} is absent: whole-warp loops of the simplest instructions inline. */
    static final boolean INLINE = !"false".equals(System.getProperty("zluda.jit.inline"));

    private static int dest(Op op) {
        return switch (op) {
            case IntOps.Alu o -> o.d;
            case FloatOps.Arith o -> o.d;
            case MemOps.Cvta o -> o.d;
            default -> ((Ops.Mov) op).d;
        };
    }

    /**
     * Whether {@code op} is a 4-byte global or shared ld/st with a register address and no ordering, which
     * {@link #access} runs for a whole warp as {@code MemOps.Ld.exec} / {@code MemOps.St.exec} do.
     */
    private static boolean wholeWarpAccess(MemOps.Access acc) {
        if (acc.base < 0 || acc.space != MemOps.GLOBAL && acc.space != MemOps.SHARED) return false;
        return switch (acc) {
            case MemOps.Ld o -> o.count == 1 && o.size == 4 && o.d0 >= 0 && !o.acquire;
            case MemOps.St o -> o.count == 1 && o.size == 4 && o.src[0] >= 0 && !o.release;
            default -> false;
        };
    }

    /** Pushes lane {@code lane}'s address of {@code acc} ({@code MemOps.Access.address}). */
    private void address(MemOps.Access acc) {
        lane(acc.base);
        if (acc.offset != 0) cob.loadConstant(acc.offset).ladd();
        if (acc.base32) cob.loadConstant(0xFFFF_FFFFL).land(); // modulo 2^32 after the addition, as the interpreter
    }

    /**
     * A whole warp's 4-byte access ({@link #wholeWarpAccess}): the 32 addresses checked at once as
     * {@code MemOps.Access.wholeWarp} checks them (all aligned; lowest and highest inside the CTA's shared memory or
     * inside one allocation the warp used recently), then 32 plain loads or stores; to {@code part} (the
     * instruction's own code, which checks lane by lane and names the first bad lane) when the check fails.
     */
    private void access(MemOps.Access acc, Label part) {
        boolean shared = acc.space == MemOps.SHARED;
        cob.lconst_0().lstore(orA).loadConstant(Long.MAX_VALUE).lstore(minA).loadConstant(Long.MIN_VALUE).lstore(maxA);
        Label top = cob.newLabel();
        cob.iconst_0().istore(lane);
        cob.labelBinding(top);
        address(acc);
        cob.lstore(addr);
        cob.lload(orA).lload(addr).lor().lstore(orA);
        cob.lload(minA).lload(addr).invokestatic(CD_MATH, "min", MethodTypeDesc.of(CD_long, CD_long, CD_long)).lstore(minA);
        cob.lload(maxA).lload(addr).invokestatic(CD_MATH, "max", MethodTypeDesc.of(CD_long, CD_long, CD_long)).lstore(maxA);
        cob.iinc(lane, 1).iload(lane).loadConstant(32).if_icmplt(top);
        cob.lload(orA).loadConstant(3L).land().lconst_0().lcmp().ifne(part);
        if (shared) {
            cob.lload(minA).lconst_0().lcmp().iflt(part);
            cob.lload(maxA).aload(W).getfield(CD_WARP, "cta", CD_CTA).getfield(CD_CTA, "sharedBytes", CD_long).loadConstant(4L).lsub().lcmp().ifgt(part);
            cob.aload(W).getfield(CD_WARP, "cta", CD_CTA).getfield(CD_CTA, "sharedBase", CD_long).lstore(base);
        } else {
            cob.aload(W).lload(minA).lload(maxA).iconst_4().invokevirtual(CD_WARP, "globalCovers", MethodTypeDesc.of(CD_boolean, CD_long, CD_long, CD_int)).ifeq(part);
            cob.lconst_0().lstore(base);
        }
        Label top2 = cob.newLabel();
        cob.iconst_0().istore(lane);
        cob.labelBinding(top2);
        if (acc instanceof MemOps.Ld ld) {
            cob.aload(r).loadConstant(ld.d0).iload(lane).iadd();
            cob.getstatic(CD_MEM, "ALL", CD_SEGMENT).getstatic(CD_MEM, "I", CD_OFINT);
            cob.lload(base);
            address(acc);
            cob.ladd().invokeinterface(CD_SEGMENT, "get", MethodTypeDesc.of(CD_int, CD_OFINT, CD_long)).i2l();
            if (!ld.signed) cob.loadConstant(0xFFFF_FFFFL).land();
            cob.lastore();
        } else {
            MemOps.St st = (MemOps.St) acc;
            cob.getstatic(CD_MEM, "ALL", CD_SEGMENT).getstatic(CD_MEM, "I", CD_OFINT);
            cob.lload(base);
            address(acc);
            cob.ladd();
            lane(st.src[0]);
            cob.l2i().invokeinterface(CD_SEGMENT, "set", MethodTypeDesc.of(CD_void, CD_OFINT, CD_long, CD_int));
        }
        cob.iinc(lane, 1).iload(lane).loadConstant(32).if_icmplt(top2);
    }

    /** Whether {@code ld} reads one kernel parameter at a constant offset that lies inside the parameters. */
    private boolean uniformParam(MemOps.Ld ld) {
        if (ld.space != MemOps.PARAM || ld.base >= 0 || ld.count != 1 || ld.d0 < 0) return false;
        long total = ld.size;
        return ld.offset >= 0 && (ld.offset & (total - 1)) == 0 && ld.offset + total <= jc.paramBytes();
    }

    /** Whether {@code o} compares 32-bit integers, which {@code FloatOps.Setp.int32All} does for a whole warp. */
    private static boolean int32Setp(FloatOps.Setp o) {
        boolean unsignedCmp = o.cmp >= FloatOps.LO && o.cmp <= FloatOps.HS || (!o.signed && o.cmp <= FloatOps.GE);
        return o.kind == FloatOps.K_INT && o.bits == 32 && (unsignedCmp || o.signed && o.cmp <= FloatOps.GE);
    }

    /**
     * A whole warp's 32-bit integer setp, as {@code FloatOps.Setp.exec} computes it: the comparison's lane mask
     * ({@code int32All}: unsigned order as the signed order of the values with their top bit flipped), then
     * {@code p = t bool c}, {@code q = ~t bool c} for all lanes.
     */
    private void setp(FloatOps.Setp o) {
        boolean unsignedCmp = o.cmp >= FloatOps.LO && o.cmp <= FloatOps.HS || (!o.signed && o.cmp <= FloatOps.GE);
        int c = o.cmp >= FloatOps.LO ? o.cmp - FloatOps.LO + FloatOps.LT : o.cmp;
        boolean bias = unsignedCmp && c != FloatOps.EQ && c != FloatOps.NE;
        java.lang.classfile.Opcode jump = switch (c) {
            case FloatOps.EQ -> java.lang.classfile.Opcode.IF_ICMPEQ;
            case FloatOps.NE -> java.lang.classfile.Opcode.IF_ICMPNE;
            case FloatOps.LT -> java.lang.classfile.Opcode.IF_ICMPLT;
            case FloatOps.LE -> java.lang.classfile.Opcode.IF_ICMPLE;
            case FloatOps.GT -> java.lang.classfile.Opcode.IF_ICMPGT;
            default -> java.lang.classfile.Opcode.IF_ICMPGE;
        };
        Label top = cob.newLabel();
        cob.iconst_0().istore(taken);
        cob.iconst_0().istore(lane);
        cob.labelBinding(top);
        Label yes = cob.newLabel(), bit = cob.newLabel();
        cob.iload(taken);
        lane(o.a);
        cob.l2i();
        if (bias) cob.loadConstant(Integer.MIN_VALUE).ixor();
        lane(o.b);
        cob.l2i();
        if (bias) cob.loadConstant(Integer.MIN_VALUE).ixor();
        cob.branch(jump, yes);
        cob.iconst_0().goto_(bit);
        cob.labelBinding(yes);
        cob.iconst_1();
        cob.labelBinding(bit);
        cob.iload(lane).ishl().ior().istore(taken);
        cob.iinc(lane, 1).iload(lane).loadConstant(32).if_icmplt(top);
        MethodTypeDesc combine = MethodTypeDesc.of(CD_int, CD_int, CD_int, CD_int);
        for (int k = 0; k < 2; k++) {
            int dst = k == 0 ? o.dp : o.dq;
            if (dst < 0) continue;
            cob.aload(p).loadConstant(dst).loadConstant(o.bool).iload(taken);
            if (k == 1) cob.iconst_m1().ixor();
            if (o.c >= 0) {
                cob.aload(p).loadConstant(o.c).iaload();
                if (o.cNeg) cob.iconst_m1().ixor();
            } else {
                cob.iconst_0();
            }
            cob.invokestatic(CD_FLOATOPS, "combine", combine).iastore();
        }
    }

    /** Pushes lane {@code lane}'s value of slot {@code s}. */
    private void lane(int s) {
        cob.aload(r).loadConstant(s).iload(lane).iadd().laload();
    }

    /**
     * The value lane {@code lane} of a whole warp writes, computed as the instruction's own whole-warp loop computes
     * it ({@code IntOps.Alu.full}, {@code FloatOps.Arith.exec}, {@code Ops.Mov.exec}); with {@code test}, only
     * whether this instruction has such a loop here (nothing emitted).
     */
    private boolean wholeWarpValue(Op op, boolean test) {
        switch (op) {
            case Ops.Mov o -> {
                if (!test) lane(o.a);
                return true;
            }
            case MemOps.Cvta o -> {
                if (test) return true;
                lane(o.a);
                o.emit(cob);
                return true;
            }
            case IntOps.Alu o -> {
                switch (o.kind) {
                    case IntOps.ADD, IntOps.SUB, IntOps.MUL_LO, IntOps.AND, IntOps.OR, IntOps.XOR -> {
                        if (test) return true;
                        lane(o.a);
                        lane(o.b);
                        switch (o.kind) {
                            case IntOps.ADD -> cob.ladd();
                            case IntOps.SUB -> cob.lsub();
                            case IntOps.MUL_LO -> cob.lmul();
                            case IntOps.AND -> cob.land();
                            case IntOps.OR -> cob.lor();
                            default -> cob.lxor();
                        }
                        return true;
                    }
                    case IntOps.MAD_LO -> {
                        if (test) return true;
                        lane(o.a);
                        lane(o.b);
                        cob.lmul();
                        lane(o.c);
                        cob.ladd();
                        return true;
                    }
                    case IntOps.MUL_WIDE -> {
                        if (test) return true;
                        int sh = 64 - o.bits;
                        lane(o.a);
                        cob.loadConstant(sh).lshl().loadConstant(sh);
                        if (o.signed) cob.lshr(); else cob.lushr();
                        lane(o.b);
                        cob.loadConstant(sh).lshl().loadConstant(sh);
                        if (o.signed) cob.lshr(); else cob.lushr();
                        cob.lmul();
                        return true;
                    }
                    default -> {
                        return false;
                    }
                }
            }
            case FloatOps.Arith o -> {
                return test ? JitRegionEmitter.isRnF32(o) : JitRegionEmitter.rnF32(o, cob, this::lane);
            }
            default -> {
                return false;
            }
        }
    }

    private void branch(Op op, int pc) {
        int t = op.target;
        if (op.guard < 0) {
            jump(t, pc);
            return;
        }
        Label none = cob.newLabel(), split = cob.newLabel();
        guarded(op);
        cob.dup().istore(taken).ifeq(none);
        cob.iload(taken).iload(a).if_icmpne(split);
        jump(t, pc);
        cob.labelBinding(none);
        checkParked(pc + 1);
        stubs.add(() -> {
            // the group splits: the interpreter's branch parks both parts and picks the lowest
            cob.labelBinding(split);
            cob.loadConstant(pc).istore(exitPc);
            leave();
            cob.aload(W).iload(taken).loadConstant(t).invokevirtual(CD_WARP, "branch", MethodTypeDesc.of(CD_void, CD_int, CD_int));
            cob.iload(n).ireturn();
        });
    }

    /** The whole group goes to {@code t}. */
    private void jump(int t, int pc) {
        checkParked(t);
        if (t >= reg.lo() && t <= reg.hi() && block[t - reg.lo()] != null) {
            if (t <= pc) {
                Label out = cob.newLabel();
                cob.iload(n).iload(BUDGET).if_icmpge(out);
                stubs.add(() -> {
                    cob.labelBinding(out);
                    cob.loadConstant(t).istore(exitPc).goto_(plain);
                });
            }
            cob.goto_(block[t - reg.lo()]);
        } else {
            cob.loadConstant(t).istore(exitPc).goto_(plain);
        }
    }
}
