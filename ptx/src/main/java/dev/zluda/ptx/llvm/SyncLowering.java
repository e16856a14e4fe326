package dev.zluda.ptx.llvm;

import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.ir.Mod;
import dev.zluda.ptx.ir.Mod.Flag;
import dev.zluda.ptx.ir.Mod.ShflMode;
import dev.zluda.ptx.ir.Mod.VoteMode;
import dev.zluda.ptx.ir.Opcode;
import dev.zluda.ptx.ir.Operand;
import dev.zluda.ptx.ir.Operand.*;
import dev.zluda.ptx.llvm.LlvmEmitter.Fn;
import dev.zluda.ptx.llvm.LlvmEmitter.Ins;
import dev.zluda.ptx.llvm.LlvmEmitter.Unsupported;

import static dev.zluda.ptx.llvm.LlvmEmitter.*;

/**
 * Barriers, fences, shfl.sync and vote.sync (PTX ISA 9.0, 9.7.13.1-4, 9.7.9.6, 9.7.13.9), lowered for {@link
 * LlvmEmitter} through its function context {@link Fn}.
 */
final class SyncLowering {
    private SyncLowering() {}

    static void bar(Fn f, Ins x) {
        boolean bar = x.opcode() == Opcode.BAR || x.opcode() == Opcode.BAR_WARP_SYNC;
        boolean sync = x.has(Flag.SYNC) || (bar && x.mods.size() == 0);
        if (bar && x.has(Flag.WARP) && x.has(Flag.SYNC)) {
            if (!f.target().amd()) f.call("void", "llvm.nvvm.bar.warp.sync", "i32", "i32 " + f.read(x.op(0), 32, false));
            else {
                TargetHooks.requireWave32(f, x.i.form());
                f.call("void", "llvm.amdgcn.wave.barrier", "", "");
            }
            return;
        }
        if (!sync || x.i.arity() != 1 || !"0".equals(constStr(f, x.op(0))) || x.has(Flag.ALIGNED) && false) {
            throw new Unsupported(x.i.form() + " is supported only as bar.sync 0 / barrier.sync 0 (all threads of the block)");
        }
        TargetHooks.barrier(f);
    }

    static String constStr(Fn f, Operand op) {
        return op instanceof IntImm c ? Long.toString(c.value()) : null;
    }

    static void fence(Fn f, Ins x) {
        Mod.Scope scope = x.has(Mod.Scope.CTA) ? Mod.Scope.CTA : x.has(Mod.Scope.SYS) ? Mod.Scope.SYS : Mod.Scope.GPU;
        if (x.opcode() == Opcode.FENCE && (x.has(Flag.PROXY) || x.has(Flag.MBARRIER_INIT))) throw new Unsupported(x.i.form() + " is not supported");
        f.line("fence" + f.target().syncScope(scope) + " seq_cst");
    }

    /** shfl.sync (PTX ISA 9.7.8.6): source lane and validity computed here; the target reads the lane. */
    static void shfl(Fn f, Ins x) {
        if (!x.has(Flag.SYNC) || !x.has(PtxType.B32)) throw new Unsupported(x.i.form() + " is not supported (only shfl.sync.*.b32)");
        TargetHooks.requireWave32(f, x.i.form());
        ShflMode mode = x.has(ShflMode.UP) ? ShflMode.UP : x.has(ShflMode.DOWN) ? ShflMode.DOWN : x.has(ShflMode.BFLY) ? ShflMode.BFLY
                : x.has(ShflMode.IDX) ? ShflMode.IDX : null;
        if (mode == null) throw new Unsupported(x.i.form() + " is not supported");
        String a = f.read(x.op(1), 32, false), b = f.read(x.op(2), 32, false), c = f.read(x.op(3), 32, false);
        String mask = f.read(x.op(4), 32, false);
        String lane = TargetHooks.laneId(f);
        String bval = f.v("and i32 " + b + ", 31");
        String cval = f.v("and i32 " + c + ", 31");
        String seg = f.v("and i32 " + f.v("lshr i32 " + c + ", 8") + ", 31");
        String nseg = f.v("xor i32 " + seg + ", -1");
        String maxLane = f.v("or i32 " + f.v("and i32 " + lane + ", " + seg) + ", " + f.v("and i32 " + cval + ", " + nseg));
        String minLane = f.v("and i32 " + lane + ", " + seg);
        String j, ok;
        switch (mode) {
            case UP -> { j = f.v("sub i32 " + lane + ", " + bval); ok = f.v("icmp sge i32 " + j + ", " + maxLane); }
            case DOWN -> { j = f.v("add i32 " + lane + ", " + bval); ok = f.v("icmp sle i32 " + j + ", " + maxLane); }
            case BFLY -> { j = f.v("xor i32 " + lane + ", " + bval); ok = f.v("icmp sle i32 " + j + ", " + maxLane); }
            default -> { j = f.v("or i32 " + minLane + ", " + f.v("and i32 " + bval + ", " + nseg)); ok = f.v("icmp sle i32 " + j + ", " + maxLane); }
        }
        String src = f.v("select i1 " + ok + ", i32 " + j + ", i32 " + lane);
        String r = TargetHooks.readLane(f, a, src, mask);
        Operand d = x.op(0);
        if (d instanceof PredPair pp) {
            f.write(pp.first(), r, 32, false);
            f.writePred(pp.second(), ok);
        } else {
            f.write(d, r, 32, false);
        }
    }

    /** vote.sync (PTX ISA 9.7.13.5) in terms of the target's ballot. */
    static void vote(Fn f, Ins x) {
        if (!x.has(Flag.SYNC)) throw new Unsupported(x.i.form() + " is not supported (only vote.sync)");
        TargetHooks.requireWave32(f, x.i.form());
        String p = f.readPred(x.op(1));
        String mask = f.read(x.op(2), 32, false);
        String bal = f.v("and i32 " + TargetHooks.ballot(f, p, mask) + ", " + mask);
        if (x.has(VoteMode.BALLOT)) {
            f.write(x.op(0), bal, 32, false);
            return;
        }
        String active = f.v("and i32 " + TargetHooks.ballot(f, "true", mask) + ", " + mask);
        String r;
        if (x.has(VoteMode.ALL)) r = f.v("icmp eq i32 " + bal + ", " + active);
        else if (x.has(VoteMode.ANY)) r = f.v("icmp ne i32 " + bal + ", 0");
        else if (x.has(VoteMode.UNI)) r = f.v("or i1 " + f.v("icmp eq i32 " + bal + ", " + active) + ", " + f.v("icmp eq i32 " + bal + ", 0"));
        else throw new Unsupported(x.i.form() + " is not supported");
        f.writePred(x.op(0), r);
    }
}
