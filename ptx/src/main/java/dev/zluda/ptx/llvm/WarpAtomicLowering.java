package dev.zluda.ptx.llvm;

import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.ir.Mod;
import dev.zluda.ptx.ir.Mod.Flag;
import dev.zluda.ptx.ir.Mod.ReduceOp;
import dev.zluda.ptx.ir.Mod.VoteMode;
import dev.zluda.ptx.ir.Opcode;
import dev.zluda.ptx.ir.Operand;
import dev.zluda.ptx.ir.Operand.PredPair;
import dev.zluda.ptx.llvm.LlvmEmitter.Fn;
import dev.zluda.ptx.llvm.LlvmEmitter.Ins;
import dev.zluda.ptx.llvm.LlvmEmitter.Unsupported;

/**
 * The lowering of {@code match.sync}, {@code redux.sync} and the half-precision atomic adds for {@link LlvmEmitter}.
 *
 * <p>The warp instructions are target-neutral: built from the emitter's two warp hooks, reading another lane's
 * value ({@link Fn#readLane}: {@code ds.bpermute} on AMDGPU, {@code shfl.sync.idx} on NVPTX) and the ballot
 * ({@link Fn#ballot}: {@code llvm.amdgcn.ballot.i32}, {@code vote.ballot.sync}). They honour the member mask as
 * PTX ISA 9.0 defines it for {@code match.sync} and {@code redux.sync}: only the non-exited lanes of
 * {@code membermask} are compared or reduced (the mask ANDed with the ballot of the lanes executing); a lane's
 * value is read from every lane and the members selected afterwards, so the code has no branch on the mask.
 * They need 32-lane waves (refused for CDNA's wave64, like {@code shfl} and {@code vote}).
 *
 * <p>{@code atom/red .add.noftz} on {@code .f16 .bf16 .f16x2 .bf16x2} (PTX ISA 9.0, atom and red: round to nearest
 * even, subnormals kept) become {@code atomicrmw fadd} on {@code half}, {@code bfloat} or their two-lane vectors;
 * LLVM expands it to a compare-and-swap loop where a target has no such instruction.
 */
final class WarpAtomicLowering {
    private WarpAtomicLowering() {}

    /**
     * {@code match.any.sync.b32 d, a, membermask} — d = the lanes of membermask whose {@code a} equals this lane's —
     * and {@code match.all.sync.b32 d[|p], a, membermask} — d = membermask when every lane of it has the same
     * {@code a}, else 0, p = whether they do (PTX ISA 9.0, match.sync). {@code .b64} is refused.
     *
     * @throws Unsupported for other types, a missing {@code .sync}, or 64-lane waves
     */
    static void match(Fn f, Ins x) {
        boolean any = x.has(VoteMode.ANY), all = x.has(VoteMode.ALL);
        if (!x.has(Flag.SYNC) || !x.has(PtxType.B32) || any == all || x.mods.distinctCount() != 3) {
            throw new Unsupported(x.i.form() + " is not supported by the LLVM back end (only match.{any,all}.sync.b32)");
        }
        TargetHooks.requireWave32(f, x.i.form());
        String a = f.read(x.op(1), 32, false), mask = members(f, f.read(x.op(2), 32, false));
        if (all) {
            // every member equals the lowest member's value exactly when the ballot of "equal to it" is the mask
            String lead = f.call("i32", "llvm.cttz.i32", "i32, i1", "i32 " + mask + ", i1 false");
            String first = TargetHooks.readLane(f, a, f.v("and i32 " + lead + ", 31"), mask);
            String eq = f.v("icmp eq i32 " + a + ", " + first);
            String same = f.v("icmp eq i32 " + f.v("and i32 " + TargetHooks.ballot(f, eq, mask) + ", " + mask) + ", " + mask);
            Operand d = x.op(0);
            if (d instanceof PredPair pp) {
                f.write(pp.first(), f.sel(same, "i32", mask, "0"), 32, false);
                f.writePred(pp.second(), same);
            } else {
                f.write(d, f.sel(same, "i32", mask, "0"), 32, false);
            }
            return;
        }
        String acc = "0";
        for (int lane = 0; lane < 32; lane++) {
            String other = TargetHooks.readLane(f, a, Integer.toString(lane), mask);
            String eq = f.v("icmp eq i32 " + a + ", " + other);
            acc = f.v("or i32 " + acc + ", " + f.sel(eq, "i32", Integer.toString(1 << lane), "0"));
        }
        f.write(x.op(0), f.v("and i32 " + acc + ", " + mask), 32, false);
    }

    /**
     * {@code redux.sync.op.type d, a, membermask} (PTX ISA 9.0, redux.sync): d = the reduction of {@code a} over the
     * lanes of membermask, the same in every member; {@code .add .min .max} on {@code .u32 .s32} (add modulo
     * 2^32), {@code .and .or .xor} on {@code .b32}. The {@code .f32} forms (sm_100a) are refused.
     *
     * @throws Unsupported for other operations or types, or 64-lane waves
     */
    static void redux(Fn f, Ins x) {
        ReduceOp op = null;
        for (ReduceOp m : new ReduceOp[] {ReduceOp.ADD, ReduceOp.MIN, ReduceOp.MAX, ReduceOp.AND, ReduceOp.OR, ReduceOp.XOR}) if (x.has(m)) op = m;
        PtxType t = x.type(0);
        boolean arith = op == ReduceOp.ADD || op == ReduceOp.MIN || op == ReduceOp.MAX;
        boolean ok = op != null && x.has(Flag.SYNC) && x.mods.distinctCount() == 3
                && (arith ? t == PtxType.U32 || t == PtxType.S32 : t == PtxType.B32);
        if (!ok) throw new Unsupported(x.i.form() + " is not supported by the LLVM back end");
        TargetHooks.requireWave32(f, x.i.form());
        boolean s = t == PtxType.S32;
        String identity = switch (op) {
            case AND -> "-1";
            case MIN -> s ? Integer.toString(Integer.MAX_VALUE) : "-1";
            case MAX -> s ? Integer.toString(Integer.MIN_VALUE) : "0";
            default -> "0";
        };
        String a = f.read(x.op(1), 32, false), mask = members(f, f.read(x.op(2), 32, false));
        String acc = identity;
        for (int lane = 0; lane < 32; lane++) {
            String other = TargetHooks.readLane(f, a, Integer.toString(lane), mask);
            String member = f.v("icmp ne i32 " + f.v("and i32 " + mask + ", " + (1 << lane)) + ", 0");
            String val = f.sel(member, "i32", other, identity);
            acc = switch (op) {
                case MIN, MAX -> f.call("i32", "llvm." + (s ? "s" : "u") + (op == ReduceOp.MIN ? "min" : "max") + ".i32", "i32, i32",
                        "i32 " + acc + ", i32 " + val);
                case AND -> f.v("and i32 " + acc + ", " + val);
                case OR -> f.v("or i32 " + acc + ", " + val);
                case XOR -> f.v("xor i32 " + acc + ", " + val);
                default -> f.v("add i32 " + acc + ", " + val);
            };
        }
        f.write(x.op(0), acc, 32, false);
    }

    /** The lanes of {@code mask} that execute the instruction (exited lanes take no part). */
    private static String members(Fn f, String mask) {
        return f.v("and i32 " + mask + ", " + TargetHooks.ballot(f, "true", mask));
    }

    /** {@code true} for the types of {@code atom/red .add.noftz} lowered here: f16, bf16, f16x2, bf16x2. */
    static boolean halfType(PtxType t) {
        return t == PtxType.F16 || t == PtxType.BF16 || t == PtxType.F16X2 || t == PtxType.BF16X2;
    }

    /**
     * {@code atom{.sem}{.scope}{.space}.add.noftz.type d, [a], b} and {@code red...} for the half types (PTX ISA 9.0
     * atom and red): the location becomes [a] + b, rounded to nearest even with subnormals kept, each
     * 16-bit lane on its own for the x2 types; {@code atom} returns the old value.
     *
     * @param as    the LLVM address space of the instruction's state space (0 generic, 1 global, 3 shared)
     * @param scope {@code .cta}, {@code .gpu} or {@code .sys}
     * @param order the LLVM ordering of the instruction's semantics
     * @throws Unsupported without {@code .noftz}, or with a vector ({@code .v2 .v4 .v8}) form
     */
    static void halfAdd(Fn f, Ins x, int as, Mod.Scope scope, String order) {
        PtxType t = x.type(0);
        if (!x.has(Flag.NOFTZ) || x.has(LlvmEmitter.V2) || x.has(LlvmEmitter.V4) || x.has(LlvmEmitter.V8)) {
            throw new Unsupported(x.i.form() + " is not supported by the LLVM back end (16-bit atomics: only .add.noftz)");
        }
        boolean red = x.opcode() == Opcode.RED || x.opcode() == Opcode.RED_ASYNC;
        boolean pair = t == PtxType.F16X2 || t == PtxType.BF16X2;
        String lane = t == PtxType.F16 || t == PtxType.F16X2 ? "half" : "bfloat";
        String ty = pair ? "<2 x " + lane + ">" : lane;
        int bits = pair ? 32 : 16;
        int base = red ? 0 : 1;
        MemoryLowering.Ptr ap = MemoryLowering.address(f, x.op(base), as);
        int pas = ap.space();
        String p = ap.value();
        String val = f.v("bitcast " + LlvmEmitter.ity(bits) + " " + f.read(x.op(base + 1), bits, false) + " to " + ty);
        String old = f.v("atomicrmw fadd " + f.as(pas) + " " + p + ", " + ty + " " + val + f.target().syncScope(scope) + " " + order
                + ", align " + bits / 8);
        if (!red) f.write(x.op(0), f.v("bitcast " + ty + " " + old + " to " + LlvmEmitter.ity(bits)), bits, false);
    }
}
