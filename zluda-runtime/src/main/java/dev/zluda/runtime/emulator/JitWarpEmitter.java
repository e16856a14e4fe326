package dev.zluda.runtime.emulator;

import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.TypeKind;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.util.ArrayList;
import java.util.List;

import dev.zluda.runtime.emulator.JitAnalysis.Region;

import static dev.zluda.runtime.emulator.JitCompiler.CD_INTS;
import static dev.zluda.runtime.emulator.JitCompiler.CD_WARP;
import static dev.zluda.runtime.emulator.JitCompiler.desc;
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
 * @return (of the emitted method) the warp-instructions executed, at least one
 */
final class JitWarpEmitter {
    private final JitCompiler jc;
    private final Op[] code;
    private final boolean[] leader;
    private final Region reg;
    private final CodeBuilder cob;

    private static final int W = 0, ENTRY = 1, BUDGET = 3;
    /** Locals: running group, its lane count (long), warp-instructions run, lowest parked PC, exit PC, predicates, taken lanes. */
    private int a, pop, n, lim, exitPc, p, taken;
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
        plain = cob.newLabel();
        regroup = cob.newLabel();
        fault = cob.newLabel();
        cob.aload(W).getfield(CD_WARP, "active", CD_int).istore(a);
        cob.iload(a).invokestatic(ConstantDescs.CD_Integer, "bitCount", MethodTypeDesc.of(CD_int, CD_int)).i2l().lstore(pop);
        cob.aload(W).getfield(CD_WARP, "minParked", CD_int).istore(lim);
        cob.aload(W).getfield(CD_WARP, "p", CD_INTS).astore(p);
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
        } else {
            cob.loadConstant(jc.constant(op)).aload(W).iload(a).invokevirtual(desc(op.getClass()), "exec", exec);
        }
        checkParked(pc + 1);
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
