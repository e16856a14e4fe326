package dev.zluda.runtime.emulator;

import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.ir.Instr;
import dev.zluda.ptx.ir.Mod;
import dev.zluda.ptx.ir.Mod.Flag;
import dev.zluda.ptx.ir.Mod.Fragment;
import dev.zluda.ptx.ir.Mod.Layout;
import dev.zluda.ptx.ir.Mod.ReduceOp;
import dev.zluda.ptx.ir.Mod.Shape;
import dev.zluda.ptx.ir.Mod.ShflMode;
import dev.zluda.ptx.ir.Mod.StateSpace;
import dev.zluda.ptx.ir.Mod.VoteMode;
import dev.zluda.ptx.ir.Modifiers;
import dev.zluda.ptx.ir.Opcode;
import dev.zluda.ptx.ir.Operand;
import java.util.ArrayList;
import java.util.List;
import dev.zluda.runtime.emulator.Translator.*;

/**
 * Translates the warp-level and synchronising instructions: shfl, vote, bar/barrier, the matrix instructions and
 * mbarrier (PTX ISA 9.0, 9.7.9.6, 9.7.13, 9.7.14) into {@link WarpOps}, {@link Ops.Bar}, {@link MatrixOps} and
 * {@link SyncOps}; the instruction comes from the typed IR, operands are resolved through the {@link Translator}.
 */
final class WarpTranslation {
    private WarpTranslation() {}

    static Op shfl(Translator tr, Instr ins, Scope scope) {
        Modifiers mods = ins.mods();
        List<Operand> ops = ins.operands();
        tr.need(ins, 4);
        int mode = mods.has(ShflMode.UP) ? WarpOps.UP : mods.has(ShflMode.DOWN) ? WarpOps.DOWN : mods.has(ShflMode.BFLY) ? WarpOps.BFLY : WarpOps.IDX;
        int d, dp = -1;
        if (ops.get(0) instanceof Operand.PredPair pp) {
            d = tr.dst(pp.first(), scope, ins);
            dp = tr.predDst(pp.second(), scope, ins);
        } else {
            d = tr.dst(ops.get(0), scope, ins);
        }
        return new WarpOps.Shfl(mode, d, tr.src(ops.get(1), PtxType.B32, scope, ins), tr.src(ops.get(2), PtxType.B32, scope, ins),
                tr.src(ops.get(3), PtxType.B32, scope, ins), dp);
    }

    static Op vote(Translator tr, Instr ins, Scope scope) {
        Modifiers mods = ins.mods();
        List<Operand> ops = ins.operands();
        tr.need(ins, 2);
        int mode = mods.has(VoteMode.ALL) ? WarpOps.ALL : mods.has(VoteMode.ANY) ? WarpOps.ANY : mods.has(VoteMode.UNI) ? WarpOps.UNI : WarpOps.BALLOT;
        int[] a = tr.predSrc(ops.get(1), scope, ins);
        int mask = ops.size() > 2 ? tr.src(ops.get(2), PtxType.B32, scope, ins) : -1;
        int d = mode == WarpOps.BALLOT ? tr.dst(ops.get(0), scope, ins) : tr.predDst(ops.get(0), scope, ins);
        return new WarpOps.Vote(mode, d, a[0], a[1] != 0, mask);
    }

    static Op barrier(Translator tr, Instr ins, Scope scope) {
        Modifiers mods = ins.mods();
        List<Operand> ops = ins.operands();
        if (mods.has(Flag.WARP)) return new Ops.Nop();
        if (ins.opcode() == Opcode.BARRIER_CLUSTER) {
            // barrier.cluster.arrive{.release|.relaxed}{.aligned}, barrier.cluster.wait{.acquire}{.aligned} (PTX ISA 9.0, 9.7.13.2):
            // the CTAs of a cluster run on one host thread, so every order the ISA asks for holds
            if (mods.has(Flag.ARRIVE) == mods.has(Flag.WAIT)) {
                throw tr.unsupported(ins.loc(), "'" + ins.form() + "' is neither barrier.cluster.arrive nor barrier.cluster.wait");
            }
            return new Ops.Bar(mods.has(Flag.ARRIVE) ? Ops.Bar.CLUSTER_ARRIVE : Ops.Bar.CLUSTER_WAIT, -1, -1, -1, -1, false);
        }
        if (mods.has(Mod.Scope.CLUSTER)) {
            throw tr.unsupported(ins.loc(), "'" + ins.form() + "' (cluster barriers) is not supported by the emulator");
        }
        if (mods.has(Flag.RED)) {
            int mode = mods.has(ReduceOp.POPC) ? Ops.Bar.RED_POPC : mods.has(ReduceOp.AND) ? Ops.Bar.RED_AND : Ops.Bar.RED_OR;
            tr.need(ins, 3);
            int dst = mode == Ops.Bar.RED_POPC ? tr.dst(ops.get(0), scope, ins) : tr.predDst(ops.get(0), scope, ins);
            int id = tr.src(ops.get(1), PtxType.U32, scope, ins);
            int count = ops.size() == 4 ? tr.src(ops.get(2), PtxType.U32, scope, ins) : -1;
            int[] c = tr.predSrc(ops.getLast(), scope, ins);
            return new Ops.Bar(mode, id, count, dst, c[0], c[1] != 0);
        }
        boolean arrive = mods.has(Flag.ARRIVE);
        int id = ops.isEmpty() ? -1 : tr.src(ops.get(0), PtxType.U32, scope, ins);
        int count = ops.size() > 1 ? tr.src(ops.get(1), PtxType.U32, scope, ins) : -1;
        return new Ops.Bar(arrive ? Ops.Bar.ARRIVE : Ops.Bar.SYNC, id, count, -1, -1, false);
    }

    static int matrixFormat(PtxType m) {
        return switch (m) {
            case F16 -> MatrixOps.F16;
            case BF16 -> MatrixOps.BF16;
            case TF32 -> MatrixOps.TF32;
            case F32 -> MatrixOps.F32;
            case S8 -> MatrixOps.S8;
            case U8 -> MatrixOps.U8;
            case S32 -> MatrixOps.S32;
            default -> -1;
        };
    }

    /**
     * mma.sync.aligned (m16n8k8 f16/bf16/tf32, m16n8k16 f16/bf16/s8/u8, m16n8k32 s8/u8; .row.col), ldmatrix and
     * stmatrix (.m8n8 .b16), movmatrix (.m8n8.trans.b16), wmma.load/store/mma (.m16n16k16 f16/bf16 with f16/f32
     * accumulators): PTX ISA 9.0, §9.7.14. Other shapes and types are rejected with the instruction named.
     */
    static Op matrix(Translator tr, Instr ins, Opcode key, Scope scope, Instance inst) {
        Modifiers mods = ins.mods();
        List<Operand> ops = ins.operands();
        java.util.function.Supplier<Unsupported> no = () -> tr.unsupported(ins.loc(), "'" + ins.form() + "' is not supported by the emulator (PTX ISA 9.7.14: "
                + "mma.sync m16n8k8/m16n8k16 f16, bf16, m16n8k8 tf32 and m16n8k16/m16n8k32 s8/u8 with .row.col, ldmatrix/stmatrix .m8n8 .b16, "
                + "movmatrix .m8n8.trans.b16, wmma m16n16k16 f16/bf16 are)");
        List<Integer> fmts = new ArrayList<>();
        for (PtxType m : mods.types()) if (matrixFormat(m) >= 0) fmts.add(matrixFormat(m));
        switch (key) {
            case MMA -> {
                tr.need(ins, 4);
                if (!mods.has(Layout.ROW) || !mods.has(Layout.COL) || fmts.size() != 4 || mods.hasAny(Flag.SP, Flag.SP_ORDERED_METADATA, Flag.BLOCK_SCALE) || mods.hasKind(Mod.MmaKind.class)) {
                    throw no.get();
                }
                int fd = fmts.get(0), fa = fmts.get(1), fb = fmts.get(2), fc = fmts.get(3);
                int k = mods.has(Shape.M16N8K8) ? 8 : mods.has(Shape.M16N8K16) ? 16 : mods.has(Shape.M16N8K32) ? 32 : -1;
                boolean half = fa == MatrixOps.F16 || fa == MatrixOps.BF16, i8 = fa == MatrixOps.S8 || fa == MatrixOps.U8;
                boolean ok = switch (k) {
                    case 8 -> (half || fa == MatrixOps.TF32) && fb == fa;
                    case 16 -> half && fb == fa || i8 && (fb == MatrixOps.S8 || fb == MatrixOps.U8);
                    case 32 -> i8 && (fb == MatrixOps.S8 || fb == MatrixOps.U8);
                    default -> false;
                };
                if (ok && fa == MatrixOps.F16) ok = (fd == MatrixOps.F32 || fd == MatrixOps.F16) && fc == fd;
                else if (ok && i8) ok = fd == MatrixOps.S32 && fc == MatrixOps.S32;
                else if (ok) ok = fd == MatrixOps.F32 && fc == MatrixOps.F32;
                if (!ok || (mods.has(Flag.SATFINITE) && !i8)) throw no.get();
                int[] d = tr.slots(ops.get(0), PtxType.B32, scope, ins, true), a = tr.slots(ops.get(1), PtxType.B32, scope, ins, false);
                int[] b = tr.slots(ops.get(2), PtxType.B32, scope, ins, false), c = tr.slots(ops.get(3), PtxType.B32, scope, ins, false);
                int ba = MatrixOps.bits(fa), bc = MatrixOps.bits(fc), bd = MatrixOps.bits(fd);
                if (a.length != 16 * k * ba / 32 / 32 || b.length != 8 * k * ba / 32 / 32 || c.length != 128 * bc / 32 / 32 || d.length != 128 * bd / 32 / 32) {
                    throw tr.unsupported(ins.loc(), "'" + ins.form() + "': wrong number of registers in an operand");
                }
                return new MatrixOps.Mma(16, 8, k, fa, fb, fc, fd, mods.has(Flag.SATFINITE), d, a, b, c);
            }
            case MOVMATRIX -> {
                tr.need(ins, 2);
                if (!mods.has(Shape.M8N8) || !mods.has(Flag.TRANS) || !mods.has(Mod.Type.of(PtxType.B16))) throw no.get();
                int[] dst = tr.slots(ops.get(0), PtxType.B32, scope, ins, true), src = tr.slots(ops.get(1), PtxType.B32, scope, ins, false);
                if (dst.length != 1 || src.length != 1) throw tr.unsupported(ins.loc(), "'" + ins.form() + "': one register in each operand is expected");
                return new MatrixOps.Movmatrix(dst[0], src[0]);
            }
            case LDMATRIX, STMATRIX -> {
                tr.need(ins, 2);
                if (!mods.has(Shape.M8N8) || !mods.has(Mod.Type.of(PtxType.B16))) throw no.get();
                int x = mods.has(new Mod.Count(4)) ? 4 : mods.has(new Mod.Count(2)) ? 2 : 1;
                boolean ld = key == Opcode.LDMATRIX;
                MemRef ref = MemoryTranslation.memRef(tr, ins, ops.get(ld ? 1 : 0), scope, inst, ld ? Warp.READ : Warp.WRITE);
                if (ref.space() != MemOps.SHARED && ref.space() != MemOps.GENERIC) throw no.get();
                int[] regs = tr.slots(ops.get(ld ? 0 : 1), PtxType.B32, scope, ins, ld);
                if (regs.length != x) throw tr.unsupported(ins.loc(), "'" + ins.form() + "': .x" + x + " needs " + x + " registers");
                return ld ? new MatrixOps.Ldmatrix(ref.space(), ref.base(), ref.base32(), ref.offset(), regs, mods.has(Flag.TRANS))
                        : new MatrixOps.Stmatrix(ref.space(), ref.base(), ref.base32(), ref.offset(), regs, mods.has(Flag.TRANS));
            }
            default -> {
                if (!mods.has(Shape.M16N16K16) || fmts.isEmpty()) throw no.get();
                if (key == Opcode.WMMA_MMA) {
                    tr.need(ins, 4);
                    boolean bf = fmts.size() == 4 && fmts.get(1) == MatrixOps.BF16;
                    int fd = fmts.get(0), fc = fmts.getLast();
                    if (!(bf ? fmts.equals(List.of(MatrixOps.F32, MatrixOps.BF16, MatrixOps.BF16, MatrixOps.F32)) : fmts.size() == 2
                            && (fd == MatrixOps.F16 || fd == MatrixOps.F32) && (fc == MatrixOps.F16 || fc == MatrixOps.F32)) || mods.has(Flag.SATFINITE)) {
                        throw no.get();
                    }
                    int fab = bf ? MatrixOps.BF16 : MatrixOps.F16;
                    int[] d = tr.slots(ops.get(0), PtxType.B32, scope, ins, true), a = tr.slots(ops.get(1), PtxType.B32, scope, ins, false);
                    int[] b = tr.slots(ops.get(2), PtxType.B32, scope, ins, false), c = tr.slots(ops.get(3), PtxType.B32, scope, ins, false);
                    int nab = bf ? 4 : 8;
                    if (a.length != nab || b.length != nab || c.length != (fc == MatrixOps.F32 ? 8 : 4) || d.length != (fd == MatrixOps.F32 ? 8 : 4)) {
                        throw tr.unsupported(ins.loc(), "'" + ins.form() + "': wrong number of registers in an operand");
                    }
                    return new MatrixOps.WmmaMma(fab, fc, fd, d, a, b, c);
                }
                boolean load = key == Opcode.WMMA_LOAD;
                tr.need(ins, 2);
                int fmt = fmts.getFirst();
                boolean abOp = mods.has(Fragment.A) || mods.has(Fragment.B);
                if (load && !abOp && !mods.has(Fragment.C)) throw no.get();
                if (abOp ? fmt != MatrixOps.F16 && fmt != MatrixOps.BF16 : fmt != MatrixOps.F16 && fmt != MatrixOps.F32) throw no.get();
                MemRef ref = MemoryTranslation.memRef(tr, ins, ops.get(load ? 1 : 0), scope, inst, load ? Warp.READ : Warp.WRITE);
                if (ref.space() == MemOps.PARAM || ref.space() == MemOps.LOCAL) throw no.get();
                int[] regs = tr.slots(ops.get(load ? 0 : 1), PtxType.B32, scope, ins, load);
                int want = abOp ? (fmt == MatrixOps.BF16 ? 4 : 8) : fmt == MatrixOps.F32 ? 8 : 4;
                if (regs.length != want) throw tr.unsupported(ins.loc(), "'" + ins.form() + "': a fragment of " + want + " registers is expected");
                int stride = ops.size() > 2 ? tr.src(ops.get(2), PtxType.U32, scope, ins) : -1;
                boolean col = mods.has(Layout.COL);
                if (!col && !mods.has(Layout.ROW)) throw no.get();
                return load ? new MatrixOps.WmmaLoad(ref.space(), ref.base(), ref.base32(), ref.offset(), regs, fmt, col, stride)
                        : new MatrixOps.WmmaStore(ref.space(), ref.base(), ref.base32(), ref.offset(), regs, fmt, col, stride);
            }
        }
    }

    /**
     * mbarrier basics on shared memory (PTX ISA 9.0, 9.7.13.15): init, arrive (count), arrive_drop, test_wait,
     * try_wait (with .parity), pending_count, inval; see {@link SyncOps.Mbarrier}. Transaction counts
     * (expect_tx, complete_tx), .noComplete, cluster scope and remote arrives are reported unsupported.
     */
    static Op mbarrier(Translator tr, Instr ins, Opcode key, Scope scope, Instance inst) {
        Modifiers mods = ins.mods();
        List<Operand> ops = ins.operands();
        String no = "'" + ins.form() + "' is not supported by the emulator";
        if (mods.has(Flag.EXPECT_TX) || mods.has(Flag.NO_COMPLETE) || mods.has(StateSpace.SHARED_CLUSTER) || mods.has(Mod.Scope.CLUSTER)) {
            throw tr.unsupported(ins.loc(), no + " (only basic arrive/wait on .shared::cta)");
        }
        if (key == Opcode.MBARRIER_PENDING_COUNT) {
            tr.need(ins, 2);
            return new SyncOps.Mbarrier(SyncOps.Mbarrier.PENDING, MemOps.SHARED, -1, false, 0, tr.dst(ops.get(0), scope, ins), -1, tr.src(ops.get(1), PtxType.B64, scope, ins), false);
        }
        int memIdx = switch (key) {
            case MBARRIER_INIT, MBARRIER_INVAL -> 0;
            default -> 1;
        };
        tr.need(ins, memIdx + 1);
        MemRef ref = MemoryTranslation.memRef(tr, ins, ops.get(memIdx), scope, inst, Warp.ATOMIC);
        if (ref.space() != MemOps.SHARED && ref.space() != MemOps.GENERIC) throw tr.unsupported(ins.loc(), no + " (mbarrier objects live in shared memory)");
                switch (key) {
            case MBARRIER_INIT -> {
                tr.need(ins, 2);
                return new SyncOps.Mbarrier(SyncOps.Mbarrier.INIT, ref.space(), ref.base(), ref.base32(), ref.offset(), -1, -1, tr.src(ops.get(1), PtxType.B32, scope, ins), false);
            }
            case MBARRIER_INVAL -> {
                return new SyncOps.Mbarrier(SyncOps.Mbarrier.INVAL, ref.space(), ref.base(), ref.base32(), ref.offset(), -1, -1, -1, false);
            }
            case MBARRIER_ARRIVE, MBARRIER_ARRIVE_DROP -> {
                int d = ops.get(0) instanceof Operand.Sink ? -1 : tr.dst(ops.get(0), scope, ins);
                int count = ops.size() > 2 ? tr.src(ops.get(2), PtxType.B32, scope, ins) : -1;
                return new SyncOps.Mbarrier(key == Opcode.MBARRIER_ARRIVE ? SyncOps.Mbarrier.ARRIVE : SyncOps.Mbarrier.DROP, ref.space(), ref.base(), ref.base32(), ref.offset(),
                        d, -1, count, false);
            }
            default -> { // test_wait, try_wait
                tr.need(ins, 3);
                boolean parity = mods.has(Flag.PARITY);
                int pd = tr.predDst(ops.get(0), scope, ins);
                int state = tr.src(ops.get(2), parity ? PtxType.B32 : PtxType.B64, scope, ins);
                return new SyncOps.Mbarrier(SyncOps.Mbarrier.TEST, ref.space(), ref.base(), ref.base32(), ref.offset(), -1, pd, state, parity);
            }
        }
    }
}
