package dev.zluda.ptx.ir.pass;

import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.ir.Instr;
import dev.zluda.ptx.ir.IrFunction;
import dev.zluda.ptx.ir.IrModule;
import dev.zluda.ptx.ir.Operand;
import dev.zluda.ptx.ir.Operand.Lane;
import dev.zluda.ptx.ir.Operand.Vec;
import dev.zluda.ptx.ir.Stmt;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Pass: vector operand expansion — every brace-enclosed vector operand of a data-moving instruction gets its elements
 * placed ({@link Operand.Lane}: width in bits and offset), so that no back end computes element widths and offsets of
 * its own (PTX ISA 9.0, 6.4.2 "Vector Operands", 9.7.9.1 and 9.7.9.3):
 *
 * <ul>
 *   <li>{@code ld ldu st atom red} with {@code .v2 .v4 .v8}: element k is the instruction type's width, at byte offset
 *   k × the type's size from the address;</li>
 *   <li>{@code mov} packing ({@code mov.b64 %rd, {%r1, %r2}}) or unpacking ({@code mov.b64 {%r1, %r2}, %rd}): the
 *   type's bits split evenly, element k at bit offset k × the element width (element 0 the least significant).</li>
 * </ul>
 * The element type is the instruction's first type modifier; an instruction without one keeps its vectors unplaced.
 */
public final class VectorOperands {
    private VectorOperands() {}

    /** The module with every vector operand of these instructions placed. */
    public static IrModule run(IrModule m) {
        Map<String, IrFunction> fns = new LinkedHashMap<>();
        for (var e : m.functions().entrySet()) {
            IrFunction f = e.getValue();
            fns.put(e.getKey(), f.body() == null ? f : new IrFunction(f.info(), block(f.body())));
        }
        return new IrModule(m.ast(), m.model(), fns, m.diagnostics());
    }

    private static Stmt.Block block(Stmt.Block b) {
        List<Stmt> out = new ArrayList<>(b.statements().size());
        for (Stmt s : b.statements()) {
            out.add(switch (s) {
                case Stmt.Block inner -> block(inner);
                case Instr x -> instruction(x);
                default -> s;
            });
        }
        return new Stmt.Block(out, b.source());
    }

    /** One instruction with its vector operands placed (the instruction itself when it has none to place). */
    public static Instr instruction(Instr x) {
        PtxType t = x.type(0);
        if (t == null) return x;
        List<Operand> ops = new ArrayList<>(x.operands());
        boolean changed = false;
        switch (x.opcode()) {
            case LD, LDU, ST, ST_ASYNC, ATOM, RED, RED_ASYNC -> {
                for (int i = 0; i < ops.size(); i++) {
                    if (ops.get(i) instanceof Vec v && v.lanes().isEmpty()) {
                        List<Lane> lanes = new ArrayList<>();
                        for (int k = 0; k < v.elements().size(); k++) lanes.add(new Lane(v.elements().get(k), t.size() * 8, (long) k * t.size()));
                        ops.set(i, new Vec(v.elements(), lanes));
                        changed = true;
                    }
                }
            }
            case MOV -> {
                for (int i = 0; i < ops.size() && i < 2; i++) {
                    if (ops.get(i) instanceof Vec v && v.lanes().isEmpty() && !v.elements().isEmpty()) {
                        int w = t.size() * 8 / v.elements().size();
                        List<Lane> lanes = new ArrayList<>();
                        for (int k = 0; k < v.elements().size(); k++) lanes.add(new Lane(v.elements().get(k), w, (long) k * w));
                        ops.set(i, new Vec(v.elements(), lanes));
                        changed = true;
                    }
                }
            }
            default -> {}
        }
        return changed ? new Instr(x.opcode(), x.guard(), x.guardNegated(), x.mods(), ops, x.source()) : x;
    }
}
