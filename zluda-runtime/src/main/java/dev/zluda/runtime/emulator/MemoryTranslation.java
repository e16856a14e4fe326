package dev.zluda.runtime.emulator;

import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.ir.Instr;
import dev.zluda.ptx.ir.Mod.CacheHint;
import dev.zluda.ptx.ir.Mod.MemOrder;
import dev.zluda.ptx.ir.Mod.ReduceOp;
import dev.zluda.ptx.ir.Modifiers;
import dev.zluda.ptx.ir.Operand;
import java.util.ArrayList;
import java.util.List;
import dev.zluda.runtime.emulator.Translator.*;

/**
 * Translates mov, ld, st, atom, red and cp.async (PTX ISA 9.0, 9.7.9.1, 9.7.9.8, 9.7.9.10, 9.7.13.5-6, 9.7.9.25.3):
 * state spaces and addresses resolved into {@link MemOps} operations; the instruction comes from the typed IR,
 * operands are resolved through the {@link Translator}.
 */
final class MemoryTranslation {
    private MemoryTranslation() {}

    /** The width of a vector operand's elements as {@link dev.zluda.ptx.ir.pass.VectorOperands} placed them. */
    static int laneBits(Operand.Vec v, PtxType t) {
        return v.lanes().isEmpty() ? t.size() * 8 / v.elements().size() : v.lanes().getFirst().bits();
    }

    static Op mov(Translator tr, Instr ins, Scope scope, PtxType t) {
        tr.need(ins, 2);
        Operand d = ins.operands().get(0), a = ins.operands().get(1);
        if (t == PtxType.PRED) {
            int pd = tr.predDst(d, scope, ins);
            if (a instanceof Operand.IntImm c) {
                return new Ops.PredLogic(Ops.PredLogic.CONST, pd, 0, false, -1, false, c.value() != 0);
            }
            int[] ps = tr.predSrc(a, scope, ins);
            return new Ops.PredLogic(Ops.PredLogic.MOV, pd, ps[0], ps[1] != 0, -1, false, false);
        }
        if (t == null) throw tr.unsupported(ins.loc(), "mov without a type");
        if (d instanceof Operand.Vec v) {
            int[] parts = new int[v.elements().size()];
            for (int i = 0; i < parts.length; i++) {
                Operand e = v.elements().get(i);
                parts[i] = e instanceof Operand.Sink ? -1 : tr.dst(e, scope, ins);
            }
            return new Ops.Unpack(tr.src(a, t, scope, ins), laneBits(v, t), parts);
        }
        if (a instanceof Operand.Vec v) {
            int[] parts = new int[v.elements().size()];
            int bits = laneBits(v, t);
            PtxType pt = switch (bits) {
                case 8 -> PtxType.B8;
                case 16 -> PtxType.B16;
                case 32 -> PtxType.B32;
                default -> PtxType.B64;
            };
            for (int i = 0; i < parts.length; i++) {
                Operand e = v.elements().get(i);
                parts[i] = e instanceof Operand.Sink ? -1 : tr.src(e, pt, scope, ins);
            }
            return new Ops.Pack(tr.dst(d, scope, ins), bits, parts);
        }
        if (a instanceof Operand.Special sp && Translator.timer(sp.reg()) >= 0) return new Ops.Timer(tr.dst(d, scope, ins), Translator.timer(sp.reg()));
        if (tr.isPred(a, scope)) {
            throw tr.unsupported(ins.loc(), "mov of a predicate into a ." + t.name().toLowerCase() + " register");
        }
        return new Ops.Mov(tr.dst(d, scope, ins), tr.src(a, t, scope, ins));
    }

    static MemRef memRef(Translator tr, Instr ins, Operand addrOp, Scope scope, Instance inst, int how) {
        int space = tr.space(ins.mods(), ins);
        Addr a = tr.address(addrOp, scope, ins.loc());
        if (a.symbol() == null) {
            if (space == MemOps.PARAM && !inst.isKernel) {
                throw tr.unsupported(ins.loc(), "ld/st.param through a register inside a device function is not supported by the emulator");
            }
            if (space == MemOps.PARAM && how != Warp.READ) {
                throw tr.unsupported(ins.loc(), "writing kernel parameters is not supported by the emulator");
            }
            return new MemRef(space, a.base(), a.base32() || space == MemOps.SHARED || space == MemOps.LOCAL || space == MemOps.PARAM, a.offset());
        }
        Sym_ s = a.symbol();
        long addr = s.address() + a.offset();
        if (s.rel()) {
            if (space == MemOps.GENERIC) return new MemRef(MemOps.GENERIC, tr.frameAddress(Mem.LOCAL_WINDOW + addr, ins), false, 0);
            if (space != MemOps.LOCAL && space != MemOps.PARAM) {
                throw tr.unsupported(ins.loc(), "'" + ins.form() + "' names a variable of another state space (local)");
            }
            return new MemRef(MemOps.LOCAL, tr.fpSlot(), false, addr);
        }
        int symSpace = switch (s.kind()) {
            case SHARED -> MemOps.SHARED;
            case LOCAL, FPARAM -> MemOps.LOCAL;
            case KPARAM -> MemOps.PARAM;
            default -> MemOps.GLOBAL;
        };
        if (space == MemOps.GENERIC) {
            long generic = switch (symSpace) {
                case MemOps.SHARED -> Mem.SHARED_WINDOW + addr;
                case MemOps.LOCAL -> Mem.LOCAL_WINDOW + addr;
                case MemOps.PARAM -> Mem.PARAM_WINDOW + addr;
                default -> addr;
            };
            return new MemRef(MemOps.GENERIC, -1, false, generic);
        }
        if (space == MemOps.PARAM && s.kind() == SymKind.KPARAM && how != Warp.READ) {
            throw tr.unsupported(ins.loc(), "writing kernel parameters is not supported by the emulator");
        }
        boolean compatible = space == symSpace || (space == MemOps.PARAM && symSpace == MemOps.LOCAL)
                || (space == MemOps.GLOBAL && symSpace == MemOps.GLOBAL);
        if (!compatible) {
            throw tr.unsupported(ins.loc(), "'" + ins.form() + "' names a variable of another state space (" + MemOps.spaceName(symSpace) + ")");
        }
        return new MemRef(symSpace, -1, false, addr);
    }

    static Op load(Translator tr, Instr ins, Scope scope, Instance inst, PtxType t) {
        return access(tr, ins, scope, inst, t, true);
    }

    static Op store(Translator tr, Instr ins, Scope scope, Instance inst, PtxType t) {
        return access(tr, ins, scope, inst, t, false);
    }

    /** ld ({@code load}) or st: the address, then the data operand's element slots (ld's destinations, st's sources). */
    private static Op access(Translator tr, Instr ins, Scope scope, Instance inst, PtxType t, boolean load) {
        tr.need(ins, 2);
        if (t == null || t.size() == 0 || t.size() > 8) throw tr.unsupported(ins.loc(), "'" + ins.form() + "': type not supported by the emulator");
        MemRef ref = memRef(tr, ins, ins.operands().get(load ? 1 : 0), scope, inst, load ? Warp.READ : Warp.WRITE);
        Operand data = ins.operands().get(load ? 0 : 1);
        if (!(data instanceof Operand.Vec) && tr.isPred(data, scope)) throw tr.unsupported(ins.loc(), load ? "ld into a predicate" : "st of a predicate");
        // a lone _ destination is the sink register; _ in a vector is no destination
        int[] slots = load && !(data instanceof Operand.Vec) ? new int[] {tr.dst(data, scope, ins)} : tr.slots(data, t, scope, ins, load);
        if (ins.mods().vector() != slots.length) throw tr.unsupported(ins.loc(), "vector width does not match the operand");
        if (load) {
            boolean acquire = ins.mods().hasAny(MemOrder.ACQUIRE, MemOrder.VOLATILE);
            return new MemOps.Ld(ref.space(), ref.base(), ref.base32(), ref.offset(), t.size(), t.kind() == PtxType.Kind.SIGNED, slots, acquire);
        }
        boolean release = ins.mods().hasAny(MemOrder.RELEASE, MemOrder.VOLATILE);
        return new MemOps.St(ref.space(), ref.base(), ref.base32(), ref.offset(), t.size(), slots, release);
    }

    static Op atom(Translator tr, Instr ins, boolean red, Scope scope, Instance inst, PtxType t) {
        Modifiers mods = ins.mods();
        List<Operand> ops = ins.operands();
        boolean halfT = t == PtxType.F16 || t == PtxType.BF16 || t == PtxType.F16X2 || t == PtxType.BF16X2;
        // atom.cas.b16 (PTX ISA 9.0, §9.7.13.5, sm_70+): the one 16-bit integer atomic
        boolean cas16 = t == PtxType.B16 && mods.has(ReduceOp.CAS) && !red;
        if (t == PtxType.B128) throw tr.unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator (.b128 atomics: the emulator has no 128-bit registers)");
        if (t == null || (t.size() != 4 && t.size() != 8 && !halfT && !cas16)) {
            throw tr.unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator (only 32- and 64-bit atomics, atom.cas.b16 and half-precision adds)");
        }
        int vec = mods.vector();
        if (vec != 1) return vectorAtom(tr, ins, red, scope, inst, t, vec);
        if (halfT && !mods.has(ReduceOp.ADD)) throw tr.unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
        int aop = mods.has(ReduceOp.ADD) ? MemOps.A_ADD : mods.has(ReduceOp.MIN) ? MemOps.A_MIN : mods.has(ReduceOp.MAX) ? MemOps.A_MAX
                : mods.has(ReduceOp.INC) ? MemOps.A_INC : mods.has(ReduceOp.DEC) ? MemOps.A_DEC : mods.has(ReduceOp.AND) ? MemOps.A_AND
                : mods.has(ReduceOp.OR) ? MemOps.A_OR : mods.has(ReduceOp.XOR) ? MemOps.A_XOR : mods.has(ReduceOp.EXCH) ? MemOps.A_EXCH
                : mods.has(ReduceOp.CAS) ? MemOps.A_CAS : -1;
        if (aop < 0) throw tr.unsupported(ins.loc(), "'" + ins.form() + "': unknown atomic operation");
        int type = switch (t.kind()) {
            case SIGNED -> MemOps.T_S;
            case FLOAT -> MemOps.T_F;
            case BIT -> MemOps.T_B;
            default -> MemOps.T_U;
        };
        if (type == MemOps.T_F && aop != MemOps.A_ADD && aop != MemOps.A_EXCH) throw tr.unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator");
        int i = red ? 0 : 1;
        tr.need(ins, i + 2 + (aop == MemOps.A_CAS ? 1 : 0));
        MemRef ref = memRef(tr, ins, ops.get(i), scope, inst, Warp.ATOMIC);
        if (ref.space() == MemOps.PARAM) throw tr.unsupported(ins.loc(), "atomics on parameters");
        int d = red ? -1 : tr.dst(ops.get(0), scope, ins);
        int b = tr.src(ops.get(i + 1), t, scope, ins);
        int c = aop == MemOps.A_CAS ? tr.src(ops.get(i + 2), t, scope, ins) : -1;
        MemOps.Atom atom = new MemOps.Atom(ref.space(), ref.base(), ref.base32(), ref.offset(), aop, type, t.size() * 8, d, b, c);
        if (halfT) atom.half = t == PtxType.F16 || t == PtxType.F16X2 ? 1 : 2;
        return atom;
    }

    /**
     * Vector atom/red (PTX ISA 9.0 §9.7.13.5, §9.7.13.6, sm_90): {@code .add .v2/.v4 .f32},
     * {@code .add/.min/.max.noftz .v2/.v4/.v8 .f16/.bf16} and {@code .v2/.v4 .f16x2/.bf16x2}, on
     * {@code .global} or a generic address of global memory; d and b are brace-enclosed vectors of
     * {@code vec} elements (d's may be {@code _}). Each element is its own atomic on its own address.
     */
    static Op vectorAtom(Translator tr, Instr ins, boolean red, Scope scope, Instance inst, PtxType t, int vec) {
        Modifiers mods = ins.mods();
        List<Operand> ops = ins.operands();
        boolean f32 = t == PtxType.F32, half = t == PtxType.F16 || t == PtxType.BF16, packed = t == PtxType.F16X2 || t == PtxType.BF16X2;
        int aop = mods.has(ReduceOp.ADD) ? MemOps.A_ADD : mods.has(ReduceOp.MIN) ? MemOps.A_MIN : mods.has(ReduceOp.MAX) ? MemOps.A_MAX : -1;
        boolean ok = (f32 && aop == MemOps.A_ADD && vec <= 4) || (half && aop >= 0) || (packed && aop >= 0 && vec <= 4);
        if (!ok) {
            throw tr.unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator (vector atomics: .add .v2/.v4 .f32, "
                    + ".add/.min/.max .v2/.v4/.v8 .f16/.bf16, .v2/.v4 .f16x2/.bf16x2)");
        }
        int i = red ? 0 : 1;
        tr.need(ins, i + 2);
        MemRef ref = memRef(tr, ins, ops.get(i), scope, inst, Warp.ATOMIC);
        if (ref.space() != MemOps.GLOBAL && ref.space() != MemOps.GENERIC) {
            throw tr.unsupported(ins.loc(), "'" + ins.form() + "': vector atomics exist only for .global (PTX ISA 9.0 §9.7.13.5)");
        }
        if (!(ops.get(i + 1) instanceof Operand.Vec bv) || bv.elements().size() != vec) {
            throw tr.unsupported(ins.loc(), "'" + ins.form() + "': b must be a vector of " + vec + " elements");
        }
        int[] bs = new int[vec];
        for (int e = 0; e < vec; e++) bs[e] = tr.src(bv.elements().get(e), t, scope, ins);
        int[] ds = null;
        if (!red) {
            if (!(ops.get(0) instanceof Operand.Vec dv) || dv.elements().size() != vec) {
                throw tr.unsupported(ins.loc(), "'" + ins.form() + "': d must be a vector of " + vec + " elements");
            }
            ds = new int[vec];
            for (int e = 0; e < vec; e++) {
                Operand o = dv.elements().get(e);
                ds[e] = o instanceof Operand.Sink ? -1 : tr.dst(o, scope, ins);
            }
        }
        MemOps.Atom atom = new MemOps.Atom(ref.space(), ref.base(), ref.base32(), ref.offset(), aop, MemOps.T_F, t.size() * 8, -1, -1, -1);
        atom.ds = ds;
        atom.bs = bs;
        if (!f32) atom.half = t == PtxType.F16 || t == PtxType.F16X2 ? 1 : 2;
        return atom;
    }

    /**
     * cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size | , ignore-src}{, cache-policy}
     * (PTX ISA 9.7.9.25.3): the copy is done at once, so commit_group/wait_group have nothing to wait for.
     */
    static Op cpAsync(Translator tr, Instr ins, Scope scope, Instance inst) {
        Modifiers mods = ins.mods();
        List<Operand> ops = new ArrayList<>(ins.operands());
        if (mods.has(CacheHint.L2_CACHE_HINT) && ops.size() > 3) ops.removeLast();
        if (ops.size() < 3) throw tr.unsupported(ins.loc(), ins.form() + " needs a destination, a source and a size");
        Addr d = tr.address(ops.get(0), scope, ins.loc());
        Addr s = tr.address(ops.get(1), scope, ins.loc());
        Long size = ops.get(2) instanceof Operand.IntImm imm ? Long.valueOf(imm.value()) : null;
        if (size == null || (size != 4 && size != 8 && size != 16)) throw tr.unsupported(ins.loc(), "cp.async size must be 4, 8 or 16");
        int srcSize = -1, ignore = -1;
        boolean ignoreNeg = false;
        if (ops.size() > 3) {
            if (tr.isPred(ops.get(3), scope)) {
                int[] p = tr.predSrc(ops.get(3), scope, ins);
                ignore = p[0];
                ignoreNeg = p[1] != 0;
            } else {
                srcSize = tr.src(ops.get(3), PtxType.U32, scope, ins);
            }
        }
        long dOff = d.symbol() != null ? d.symbol().address() + d.offset() : d.offset();
        long sOff = s.symbol() != null ? s.symbol().address() + s.offset() : s.offset();
        if (d.symbol() != null && d.symbol().kind() != SymKind.SHARED) throw tr.unsupported(ins.loc(), "cp.async destination must be shared memory");
        return new MemOps.CpAsync(d.base(), dOff, s.base(), sOff, (int) (long) size, srcSize, ignore, ignoreNeg);
    }
}
