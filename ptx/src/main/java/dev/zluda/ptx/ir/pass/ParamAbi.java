package dev.zluda.ptx.ir.pass;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.FunctionInfo;
import dev.zluda.ptx.ParamInfo;
import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.Semantics;
import dev.zluda.ptx.VariableInfo;
import dev.zluda.ptx.ir.Mod.StateSpace;

import java.util.ArrayList;
import java.util.List;

/**
 * Pass: the {@code .param} ABI — where each parameter of a kernel or device function lives, for both back ends.
 *
 * <ul>
 *   <li>{@link #kernel}: the kernel parameter buffer (PTX ISA 9.0, 5.1.6.1): each parameter at the next multiple of
 *   its alignment, as {@code cuLaunchKernel} copies {@code kernelParams} ({@link ParamInfo}); a parameter is
 *   {@linkplain Slot#scalar() scalar} when it is one value of at most 8 bytes no more aligned than its size (no
 *   array, no vector, not {@code .pred}): the LLVM lowering passes those by value, the others in memory.</li>
 *   <li>{@link #function}: the frame of a device function called out of line (PTX ISA 9.0, 9.7.12.3: parameters are
 *   passed by value, results copied back): return parameters first, then parameters, each at the next multiple of
 *   its alignment, sizes and alignments at least 1; {@code .reg} parameters keep their space (the emulator loads
 *   them into registers at entry).</li>
 *   <li>{@link #prototype}: the same frame for an indirect call through a {@code .callprototype} (11.3.4), where a
 *   {@code .reg} parameter is aligned to its own size.</li>
 * </ul>
 */
public final class ParamAbi {
    private ParamAbi() {}

    /**
     * One parameter's place.
     *
     * @param name   its name ({@code _} for an anonymous prototype parameter)
     * @param space  {@link StateSpace#PARAM} or {@link StateSpace#REG}
     * @param type   its element type (null when it had none)
     * @param offset byte offset in the kernel parameter buffer or the callee's frame
     * @param size   bytes it occupies (at least 1 in a frame)
     * @param align  its alignment in bytes
     * @param scalar one value of at most 8 bytes that a kernel can take by value (see the class comment)
     * @param info   the front end's view of it, null for a prototype's
     */
    public record Slot(String name, StateSpace space, PtxType type, long offset, long size, long align, boolean scalar, ParamInfo info) {}

    /**
     * A parameter layout.
     *
     * @param results the return parameters in order (empty for a kernel)
     * @param params  the parameters in order
     * @param end     the first byte past the last parameter
     */
    public record Layout(List<Slot> results, List<Slot> params, long end) {
        public Layout {
            results = List.copyOf(results);
            params = List.copyOf(params);
        }

        /** Results then parameters: the order a call passes them in. */
        public List<Slot> all() {
            List<Slot> out = new ArrayList<>(results);
            out.addAll(params);
            return out;
        }
    }

    /** A kernel's parameter buffer. */
    public static Layout kernel(FunctionInfo f) {
        List<Slot> ps = new ArrayList<>();
        for (ParamInfo p : f.params()) {
            VariableInfo v = p.variable();
            boolean scalar = v.dims().isEmpty() && v.vectorWidth() == 1 && v.type() != null && v.type() != PtxType.PRED
                    && p.alignment() <= p.size() && p.size() <= 8;
            ps.add(new Slot(p.name(), StateSpace.of(v.space()), v.type(), p.offset(), p.size(), p.alignment(), scalar, p));
        }
        return new Layout(List.of(), ps, f.paramSize());
    }

    /** A device function's frame for an out-of-line call: results, then parameters. */
    public static Layout function(FunctionInfo f) {
        Frame frame = new Frame();
        List<Slot> rs = new ArrayList<>(), ps = new ArrayList<>();
        for (ParamInfo p : f.returnParams()) rs.add(frame.place(p.name(), p.variable(), p.size(), p.alignment(), p));
        for (ParamInfo p : f.params()) ps.add(frame.place(p.name(), p.variable(), p.size(), p.alignment(), p));
        return new Layout(rs, ps, frame.end);
    }

    /** The frame a call through a {@code .callprototype} sets up: results, then parameters. */
    public static Layout prototype(Ast.CallPrototype cp) {
        Frame frame = new Frame();
        List<Slot> rs = new ArrayList<>(), ps = new ArrayList<>();
        for (Ast.Decl d : cp.returnParams() == null ? List.<Ast.Decl>of() : cp.returnParams()) frame.decl(d, rs);
        for (Ast.Decl d : cp.params()) frame.decl(d, ps);
        return new Layout(rs, ps, frame.end);
    }

    private static final class Frame {
        long end;

        Slot place(String name, VariableInfo v, long size, long align, ParamInfo info) {
            long sz = Math.max(1, size), al = Math.max(1, align);
            end = (end + al - 1) / al * al;
            Slot s = new Slot(name, StateSpace.of(v.space()), v.type(), end, sz, al, false, info);
            end += sz;
            return s;
        }

        void decl(Ast.Decl d, List<Slot> out) {
            for (VariableInfo v : Semantics.variables(d)) {
                long align = StateSpace.of(d.space()) == StateSpace.REG ? Math.max(1, v.size()) : v.alignment();
                out.add(place(v.name(), v, v.size(), align, null));
            }
        }
    }
}
