package dev.zluda.runtime.emulator;

import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.ir.Instr;
import dev.zluda.ptx.ir.Mod;
import dev.zluda.ptx.ir.Mod.Component;
import dev.zluda.ptx.ir.Mod.Geometry;
import dev.zluda.ptx.ir.Mod.SurfaceAccess;
import dev.zluda.ptx.ir.Mod.SurfaceOob;
import dev.zluda.ptx.ir.Modifiers;
import dev.zluda.ptx.ir.Opcode;
import dev.zluda.ptx.ir.Operand;
import java.util.List;

import dev.zluda.runtime.emulator.Translator.*;

/**
 * Translates tex, tld4, suld and sust on texture and surface objects (PTX ISA 9.0, 9.7.10, 9.7.11) into {@link
 * TexOps}; the instruction comes from the typed IR, operands are resolved through the {@link Translator}.
 */
final class TextureTranslation {
    private TextureTranslation() {}

    static int geometry(Modifiers mods) {
        return mods.has(Geometry.D1) ? 1 : mods.has(Geometry.D2) ? 2 : mods.has(Geometry.D3) ? 3 : 0;
    }

    /** The registers of a vector operand ({@code {a, b}}) or of a single register, at least {@code min}; {@code _} gives -1. */
    static int[] regs(Translator tr, Operand o, PtxType t, Scope scope, Instr ins, boolean dst, int min) {
        int n = o instanceof Operand.Vec v ? v.elements().size() : 1;
        if (n < min) throw tr.unsupported(ins.loc(), ins.form() + " needs " + min + " coordinates or values");
        return tr.slots(o, t, scope, ins, dst);
    }

    /**
     * tex, tld4 (PTX ISA 9.0, 9.7.10.3 and 9.7.10.4) on texture objects and suld.b, sust.b (9.7.11.1 and
     * 9.7.11.2) on surface objects; see {@link TexOps}. Texture references, samplers, arrays, cube maps,
     * mipmaps (.level/.grad), depth compare and formatted stores (sust.p) are reported unsupported.
     */
    static Op texture(Translator tr, Instr ins, Opcode key, Scope scope) {
        Modifiers mods = ins.mods();
        List<Operand> ops = ins.operands();
        int dims = geometry(mods);
        String no = "'" + ins.form() + "' is not supported by the emulator";
        if (dims == 0) throw tr.unsupported(ins.loc(), no + " (only .1d, .2d and .3d geometries)");
        boolean load = key != Opcode.SUST;
        tr.need(ins, 2);
        Operand addr = load ? ops.get(1) : ops.get(0);
        if (!(addr instanceof Operand.AddressList a) || a.elements().size() != 2) {
            throw tr.unsupported(ins.loc(), no + " (only [object, coordinates] with texture/surface objects; no samplers)");
        }
        int obj = tr.src(a.elements().get(0), PtxType.U64, scope, ins);
        if (key == Opcode.TEX || key == Opcode.TLD4) {
            if (ops.size() != 2 || ins.operands().getFirst() instanceof Operand.PredPair) throw tr.unsupported(ins.loc(), no + " (no .level/.grad, offsets, depth compare or residency predicate)");
            if (!mods.has(new Mod.Vector(4))) throw tr.unsupported(ins.loc(), no + " (only .v4 results)");
            List<PtxType> types = mods.types();
            if (types.size() != 2) throw tr.unsupported(ins.loc(), no);
            PtxType dt = types.get(0), ct = types.get(1);
            int rt = dt == PtxType.F32 ? TexOps.F32 : dt == PtxType.S32 ? TexOps.S32 : dt == PtxType.U32 ? TexOps.U32 : -1;
            if (rt < 0 || (ct != PtxType.F32 && ct != PtxType.S32)) throw tr.unsupported(ins.loc(), no + " (results .f32/.s32/.u32, coordinates .f32/.s32)");
            int gather = -1;
            if (key == Opcode.TLD4) {
                gather = mods.has(Component.R) ? 0 : mods.has(Component.G) ? 1 : mods.has(Component.B) ? 2 : mods.has(Component.A) ? 3 : -1;
                if (gather < 0 || dims != 2 || ct != PtxType.F32) throw tr.unsupported(ins.loc(), no);
            }
            int[] coords = regs(tr, a.elements().get(1), ct, scope, ins, false, dims);
            int[] d = regs(tr, ops.get(0), dt, scope, ins, true, 4);
            return new TexOps.Tex(obj, dims, coords, ct == PtxType.F32, rt, gather, d);
        }
        if (!mods.has(SurfaceAccess.B)) throw tr.unsupported(ins.loc(), no + " (only .b surface accesses; no formatted .p)");
        int mode = mods.has(SurfaceOob.CLAMP) ? TexOps.CLAMP : mods.has(SurfaceOob.ZERO) ? TexOps.ZERO : TexOps.TRAP;
        int bytes = mods.has(Mod.Type.of(PtxType.B8)) ? 1 : mods.has(Mod.Type.of(PtxType.B16)) ? 2 : mods.has(Mod.Type.of(PtxType.B32)) ? 4 : mods.has(Mod.Type.of(PtxType.B64)) ? 8 : 0;
        if (bytes == 0) throw tr.unsupported(ins.loc(), no);
        PtxType bt = bytes == 8 ? PtxType.B64 : bytes == 2 ? PtxType.B16 : PtxType.B32;
        int[] coords = regs(tr, a.elements().get(1), PtxType.B32, scope, ins, false, dims);
        int[] v = load ? regs(tr, ops.get(0), bt, scope, ins, true, 1) : regs(tr, ops.get(1), bt, scope, ins, false, 1);
        if (v.length != mods.vector()) throw tr.unsupported(ins.loc(), "vector width does not match the operand");
        return load ? new TexOps.Suld(obj, dims, coords, bytes, mode, v) : new TexOps.Sust(obj, dims, coords, bytes, mode, v);
    }
}
