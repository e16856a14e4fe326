package dev.zluda.runtime.emulator;

import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.Opcode;
import java.lang.classfile.TypeKind;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.DynamicConstantDesc;
import java.lang.constant.MethodTypeDesc;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.zluda.runtime.emulator.JitAnalysis.Fx;
import dev.zluda.runtime.emulator.JitAnalysis.Region;

import static dev.zluda.runtime.emulator.JitCompiler.*;
import static java.lang.constant.ConstantDescs.CD_boolean;
import static java.lang.constant.ConstantDescs.CD_double;
import static java.lang.constant.ConstantDescs.CD_float;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

/**
 * Emits the method of one region of a kernel ({@link JitCompiler}): {@code static int rK(Warp w, int entry, int
 * startPc, int budget)}, which runs the region for the warp's running group one lane at a time with the lane's
 * registers in JVM locals, and returns as {@link JitKernel#run} says.
 */
final class JitRegionEmitter {
    private final JitCompiler jc;
    private final JitAnalysis an;
    private final Program prog;
    private final Op[] code;
    private final Fx[] fx;
    private final boolean[] leader;
    private final Map<Integer, Long> constants;
    private final BitSet uniform;
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

    JitRegionEmitter(JitCompiler jc, JitAnalysis an, Region reg, CodeBuilder cob) {
        this.jc = jc;
        this.prog = an.prog;
        this.code = an.code;
        this.fx = an.fx;
        this.leader = an.leader;
        this.an = an;
        this.constants = an.constants;
        this.uniform = an.uniform;
        this.reg = reg;
        this.cob = cob;
    }

    private DynamicConstantDesc<?> constant(Object o) {
        return jc.constant(o);
    }

    private boolean liveSlot(int pc, int s) {
        return an.liveSlot(pc, s);
    }

    private boolean livePred(int pc, int q) {
        return an.livePred(pc, q);
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
        for (int pc = reg.lo(); pc <= reg.hi(); pc++) if (code[pc] instanceof MemOps.Ld ld && ld.space == MemOps.SHARED) sharedLoads = true;
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
        for (int pc = reg.lo(); pc <= reg.hi(); pc++) {
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
        block = new Label[reg.hi() - reg.lo() + 2];
        for (int pc = reg.lo(); pc <= reg.hi(); pc++) if (isBlockStart(pc)) block[pc - reg.lo()] = cob.newLabel();

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
        if (reg.entries().length == 1) {
            cob.goto_(block[reg.entries()[0] - reg.lo()]);
        } else {
            List<java.lang.classfile.instruction.SwitchCase> sc = new ArrayList<>();
            for (int e = 0; e < reg.entries().length; e++) sc.add(java.lang.classfile.instruction.SwitchCase.of(e, block[reg.entries()[e] - reg.lo()]));
            cob.iload(ENTRY).tableswitch(0, reg.entries().length - 1, block[reg.entries()[0] - reg.lo()], sc);
        }
        for (int pc = reg.lo(); pc <= reg.hi(); pc++) {
            if (block[pc - reg.lo()] != null) {
                cob.labelBinding(block[pc - reg.lo()]);
                cob.iinc(CNT, blockLength(pc));
            }
            instruction(pc);
        }
        // falling off the end: the lane leaves at hi + 1
        exitTo(reg.hi() + 1);

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
        if (pc == reg.lo() || leader[pc]) return true;
        Op prev = code[pc - 1];
        return prev.kind == Op.BRA;
    }

    /** Instructions from block start {@code pc} up to the next block start (a lane runs all of them). */
    private int blockLength(int pc) {
        int e = pc + 1;
        while (e <= reg.hi() && !isBlockStart(e)) e++;
        return e - pc;
    }

    /** Reads, writes, and what to write back: registers written here that are live where a lane may leave. */
    private void analyse() {
        List<Integer> exits = new ArrayList<>();
        exits.add(reg.hi() + 1);
        for (int pc = reg.lo(); pc <= reg.hi(); pc++) {
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
    /**
     * Calls instruction {@code o}'s own per-lane method {@code lane(long...)}, returning {@code ret}: the instruction
     * (a class constant), then each register operand as a long (0 for a register number below 0, an absent operand).
     */
    private void laneCall(Object o, ClassDesc ret, int... slots) {
        cob.loadConstant(constant(o));
        ClassDesc[] params = new ClassDesc[slots.length];
        for (int i = 0; i < slots.length; i++) {
            loadOr0(slots[i]);
            params[i] = CD_long;
        }
        cob.invokevirtual(desc(o.getClass()), "lane", MethodTypeDesc.of(ret, params));
    }

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
                if (t >= reg.lo() && t <= reg.hi()) {
                    if (t <= pc) {
                        // a loop: the lane stops (resumes there later) once it has run the slice's budget
                        Label go = cob.newLabel();
                        cob.iload(CNT).iload(BUDGET).if_icmplt(go);
                        exitTo(t);
                        cob.labelBinding(go);
                    }
                    cob.goto_(block[t - reg.lo()]);
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
                laneCall(o, CD_long, o.a, o.b, o.c);
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
                laneCall(o, CD_long, o.a, o.b, o.c);
                store(o.d);
            }
            case FloatOps.Testp o -> {
                laneCall(o, CD_boolean, o.a);
                storePred(o.dp);
            }
            case ConvertOps.Cvt o -> {
                laneCall(o, CD_long, o.a, o.b);
                store(o.d);
            }
            case ConvertOps.CvtPack o -> {
                laneCall(o, CD_long, o.a, o.b, o.c);
                store(o.d);
            }
            case MemOps.Ld o -> ld(o, pc);
            case MemOps.Cvta o -> {
                load(o.a);
                o.emit(cob);
                store(o.d);
            }
            case MemOps.IsSpace o -> {
                laneCall(o, CD_boolean, o.a);
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

    /** Whether {@code o} is add/mul/fma.rn.f32 without .ftz or .sat ({@link #rnF32} emits it). */
    static boolean isRnF32(FloatOps.Arith o) {
        return !o.f64 && !o.ftz && !o.sat && o.rnd == FloatMath.RN && (o.kind == FloatOps.ADD || o.kind == FloatOps.MUL || o.kind == FloatOps.FMA);
    }

    /**
     * For add/mul/fma.rn.f32 ({@link #isRnF32}): pushes the operands with {@code load} (given a slot) and calls
     * {@code FloatOps.addRn}/{@code mulRn}/{@code fmaRn}, which compute what {@code FloatOps.Arith} does; false
     * (nothing emitted) for any other arithmetic.
     */
    static boolean rnF32(FloatOps.Arith o, CodeBuilder cob, java.util.function.IntConsumer load) {
        if (!isRnF32(o)) return false;
        String m = o.kind == FloatOps.ADD ? "addRn" : o.kind == FloatOps.MUL ? "mulRn" : "fmaRn";
        load.accept(o.a);
        load.accept(o.b);
        if (o.kind == FloatOps.FMA) {
            load.accept(o.c);
            cob.invokestatic(CD_FLOATOPS, m, MethodTypeDesc.of(CD_long, CD_long, CD_long, CD_long));
        } else {
            cob.invokestatic(CD_FLOATOPS, m, MethodTypeDesc.of(CD_long, CD_long, CD_long));
        }
        return true;
    }

    private void arith(FloatOps.Arith o) {
        if (!o.f64) {
            if (rnF32(o, cob, this::load)) {
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
