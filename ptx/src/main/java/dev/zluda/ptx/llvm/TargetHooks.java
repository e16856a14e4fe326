package dev.zluda.ptx.llvm;

import dev.zluda.ptx.ir.Operand;
import dev.zluda.ptx.ir.Operand.*;
import dev.zluda.ptx.ir.SpecialReg;
import dev.zluda.ptx.llvm.LlvmEmitter.Fn;
import dev.zluda.ptx.llvm.LlvmEmitter.Unsupported;

import static dev.zluda.ptx.llvm.LlvmEmitter.*;

/**
 * The target hooks of the otherwise target-neutral lowering: special registers, lane id, reading another lane, the
 * warp ballot and the block barrier (PTX ISA 9.0, chapter 10, 9.7.9.6, 9.7.13.9, 9.7.13.1; AMDGPU and NVPTX
 * intrinsics), lowered for {@link LlvmEmitter} through its function context {@link Fn}.
 */
final class TargetHooks {
    private TargetHooks() {}

    /** A special register's value (i32, or i64 for {@code %clock64} and {@code %globaltimer}). */
    static String special(Fn f, Operand op) {
        String name = op.name();
        if (!(op instanceof Special sp)) {
            throw new Unsupported("special register " + name + (f.target().amd() ? " has no AMD GPU equivalent" : " is not supported"));
        }
        if (sp.component() > 2) throw new Unsupported(name + " with this component is not supported");
        int dim = Math.max(0, sp.component());
        String xyz = "xyz".substring(dim, dim + 1);
        SpecialReg r = sp.reg();
        if (!f.target().amd()) {
            String sreg = switch (r) {
                case TID, NTID, CTAID, NCTAID -> name.substring(1) + "." + xyz;
                case LANEID, WARPID, NWARPID, SMID, NSMID, CLOCK, CLOCK64, GLOBALTIMER,
                     LANEMASK_EQ, LANEMASK_LT, LANEMASK_LE, LANEMASK_GT, LANEMASK_GE -> name.substring(1);
                default -> throw new Unsupported("special register " + name + " is not supported");
            };
            String ty = r == SpecialReg.CLOCK64 || r == SpecialReg.GLOBALTIMER ? "i64" : "i32";
            return f.call(ty, "llvm.nvvm.read.ptx.sreg." + sreg, "", "");
        }
        switch (r) {
            case TID -> { return f.call("i32", "llvm.amdgcn.workitem.id." + xyz, "", ""); }
            case CTAID -> { return f.call("i32", "llvm.amdgcn.workgroup.id." + xyz, "", ""); }
            case NTID, NCTAID -> {
                // code object v5 hidden kernel arguments: block counts (u32) at 0/4/8, group sizes (u16) at 12/14/16
                String p = f.call("ptr addrspace(4)", "llvm.amdgcn.implicitarg.ptr", "", "");
                boolean n = r == SpecialReg.NTID;
                String q = f.v("getelementptr i8, ptr addrspace(4) " + p + ", i64 " + (n ? 12 + 2 * dim : 4 * dim));
                if (!n) return f.v("load i32, ptr addrspace(4) " + q + ", align 4, !invariant.load !{}");
                String h = f.v("load i16, ptr addrspace(4) " + q + ", align 2, !invariant.load !{}");
                return f.v("zext i16 " + h + " to i32");
            }
            case LANEID -> { return laneId(f); }
            case LANEMASK_EQ, LANEMASK_LT, LANEMASK_LE, LANEMASK_GT, LANEMASK_GE -> {
                String l = laneId(f);
                String eq = f.v("shl i32 1, " + l);
                String lt = f.v("sub i32 " + eq + ", 1");
                String le = f.v("or i32 " + lt + ", " + eq);
                return switch (r) {
                    case LANEMASK_EQ -> eq;
                    case LANEMASK_LT -> lt;
                    case LANEMASK_LE -> le;
                    case LANEMASK_GT -> f.v("xor i32 " + le + ", -1");
                    default -> f.v("xor i32 " + lt + ", -1");
                };
            }
            case CLOCK, CLOCK64 -> {
                String c = f.call("i64", "llvm.readcyclecounter", "", "");
                return r == SpecialReg.CLOCK ? f.v("trunc i64 " + c + " to i32") : c;
            }
            default -> throw new Unsupported("special register " + name + " has no AMD GPU equivalent");
        }
    }

    static void requireWave32(Fn f, String what) {
        if (f.target().waveSize() != 32) {
            throw new Unsupported(what + " assumes 32-lane warps; " + f.target().cpu() + " runs 64-lane waves only");
        }
    }

    static String laneId(Fn f) {
        if (!f.target().amd()) return f.call("i32", "llvm.nvvm.read.ptx.sreg.laneid", "", "");
        requireWave32(f, "%laneid");
        return f.call("i32", "llvm.amdgcn.mbcnt.lo", "i32, i32", "i32 -1, i32 0");
    }

    /** Lane {@code lane}'s value of {@code val} (i32), every lane of {@code mask} taking part (target hook). */
    static String readLane(Fn f, String val, String lane, String mask) {
        if (!f.target().amd()) {
            return f.call("i32", "llvm.nvvm.shfl.sync.idx.i32", "i32, i32, i32, i32", "i32 " + mask + ", i32 " + val + ", i32 " + lane + ", i32 31");
        }
        String addr = f.v("shl i32 " + lane + ", 2");
        return f.call("i32", "llvm.amdgcn.ds.bpermute", "i32, i32", "i32 " + addr + ", i32 " + val);
    }

    /** The 32-bit mask of lanes whose predicate is true (target hook). */
    static String ballot(Fn f, String pred) {
        return ballot(f, pred, "-1");
    }

    static String ballot(Fn f, String pred, String mask) {
        if (!f.target().amd()) {
            return f.call("i32", "llvm.nvvm.vote.ballot.sync", "i32, i1", "i32 " + mask + ", i1 " + pred);
        }
        requireWave32(f, "warp vote");
        return f.call("i32", "llvm.amdgcn.ballot.i32", "i1", "i1 " + pred);
    }

    /** {@code bar.sync 0} / {@code barrier.sync 0}: all threads of the block, shared memory made visible (target hook). */
    static void barrier(Fn f) {
        if (!f.target().amd()) {
            f.call("void", "llvm.nvvm.barrier0", "", "");
            return;
        }
        f.line("fence syncscope(\"workgroup\") release");
        f.call("void", "llvm.amdgcn.s.barrier", "", "");
        f.line("fence syncscope(\"workgroup\") acquire");
    }
}
