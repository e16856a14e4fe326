package dev.zluda.ptx.ir.pass;

import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.ir.Instr;
import dev.zluda.ptx.ir.IrFunction;
import dev.zluda.ptx.ir.Mod.StateSpace;
import dev.zluda.ptx.ir.Operand;
import dev.zluda.ptx.ir.Stmt;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Pass: pointer-type analysis — the element type of the memory each pointer parameter of a kernel reaches, from the
 * kernel's own instructions (what a replay compares a kernel's buffers as).
 *
 * <p>A register loaded from parameter {@code p} ({@code ld.param}) carries {@code p}; {@code mov}, {@code cvta},
 * {@code add}, {@code sub}, {@code mad} and {@code selp} pass it on to their destination (iterated to a fixed point,
 * for pointers advanced in loops); a global or generic {@code ld}, {@code st}, {@code atom} or {@code red} whose address
 * is based on a register that carries {@code p} says the type of {@code p}'s elements: its last type modifier (PTX ISA
 * 9.0, 9.7.9.8, 9.7.9.10, 9.7.13.5, 9.7.13.6), a bit type {@code .bN} read as {@code .uN}. Calls into device functions
 * are not followed. When one parameter is accessed as several types ({@link #resolve}), a float wins over an integer of
 * the same size and a signed type over an unsigned one; mixed sizes leave it unknown.
 */
public final class PointerTypes {
    private PointerTypes() {}

    /** Element type (float, signed or unsigned, never a bit type) by parameter index, for the parameters whose memory the kernel accesses. */
    public static Map<Integer, PtxType> infer(IrFunction kernel) {
        Map<String, Integer> paramIndex = new HashMap<>();
        for (var p : kernel.info().params()) paramIndex.put(p.name(), p.index());
        List<Instr> code = new ArrayList<>();
        if (kernel.body() != null) flatten(kernel.body(), code);
        Map<String, Set<Integer>> carries = new HashMap<>();
        Map<Integer, Set<PtxType>> seen = new HashMap<>();
        boolean changed = true;
        for (int round = 0; changed && round < 20; round++) {
            changed = false;
            for (Instr ins : code) {
                List<Operand> ops = ins.operands();
                if (ops.isEmpty()) continue;
                String dst = register(ops.get(0));
                if (ins.opcode() == dev.zluda.ptx.ir.Opcode.LD && ins.has(StateSpace.PARAM) && ops.size() >= 2 && dst != null
                        && ops.get(1) instanceof Operand.Address a) {
                    Integer pi = a.base() == null ? null : paramIndex.get(a.base().name());
                    if (pi != null) changed |= carries.computeIfAbsent(dst, k -> new HashSet<>()).add(pi);
                } else if (passes(ins) && dst != null) {
                    for (int i = 1; i < ops.size(); i++) {
                        for (String r : names(ops.get(i))) {
                            Set<Integer> c = carries.get(r);
                            if (c != null && !c.isEmpty()) changed |= carries.computeIfAbsent(dst, k -> new HashSet<>()).addAll(c);
                        }
                    }
                } else if (accesses(ins) && !ins.mods().hasAny(StateSpace.PARAM, StateSpace.SHARED, StateSpace.LOCAL, StateSpace.CONST, StateSpace.TEX)) {
                    for (Operand o : ops) {
                        if (!(o instanceof Operand.Address a) || a.base() == null) continue;
                        Set<Integer> c = carries.get(a.base().name());
                        PtxType t = elementType(ins);
                        if (c == null || t == null) continue;
                        for (int p : c) changed |= seen.computeIfAbsent(p, k -> new LinkedHashSet<>()).add(t);
                    }
                }
            }
        }
        Map<Integer, PtxType> out = new HashMap<>();
        for (var e : seen.entrySet()) {
            PtxType t = resolve(e.getValue());
            if (t != null) out.put(e.getKey(), t);
        }
        return out;
    }

    /**
     * One type for several accesses (in the order given): the first float, else the first signed type, else the first;
     * null when they differ in size.
     */
    public static PtxType resolve(Collection<PtxType> types) {
        PtxType first = types.iterator().next();
        if (types.size() == 1) return first;
        for (PtxType t : types) if (t.size() != first.size()) return null;
        for (PtxType t : types) if (t.kind() == PtxType.Kind.FLOAT) return t;
        for (PtxType t : types) if (t.kind() == PtxType.Kind.SIGNED) return t;
        return first;
    }

    private static boolean passes(Instr x) {
        return switch (x.opcode()) {
            case MOV, CVTA, ADD, ADD_CC, SUB, SUB_CC, MAD, MAD_CC, SELP -> true;
            default -> false;
        };
    }

    private static boolean accesses(Instr x) {
        return switch (x.opcode()) {
            case LD, ST, ST_ASYNC, ST_BULK, ATOM, RED, RED_ASYNC -> true;
            default -> false;
        };
    }

    /** The access's element type: its last type modifier that is a memory type ({@code .b32} read as {@code .u32}). */
    private static PtxType elementType(Instr x) {
        PtxType out = null;
        for (PtxType t : x.types()) {
            PtxType e = switch (t) {
                case B8 -> PtxType.U8;
                case B16 -> PtxType.U16;
                case B32 -> PtxType.U32;
                case B64 -> PtxType.U64;
                case F16, BF16, F32, F64, S8, S16, S32, S64, U8, U16, U32, U64 -> t;
                default -> null;
            };
            if (e != null) out = e;
        }
        return out;
    }

    /** The name of a destination written as a plain name ({@code %rd1}), else null. */
    private static String register(Operand o) {
        return o instanceof Operand.Reg || o instanceof Operand.Var || o instanceof Operand.Unknown ? o.name() : null;
    }


    /** The names an operand mentions, left to right. */
    private static List<String> names(Operand o) {
        List<String> out = new ArrayList<>();
        collect(o, out);
        return out;
    }

    private static void collect(Operand o, List<String> out) {
        switch (o) {
            case Operand.Sum s -> collect(s.base(), out);
            case Operand.Address a -> { if (a.base() != null) collect(a.base(), out); }
            case Operand.AddressList a -> { for (Operand e : a.elements()) collect(e, out); }
            case Operand.Vec v -> { for (Operand e : v.elements()) collect(e, out); }
            default -> {
                String n = o.name();
                if (n != null) out.add(n);
            }
        }
    }

    private static void flatten(Stmt.Block b, List<Instr> out) {
        for (Stmt s : b.statements()) {
            if (s instanceof Instr i) out.add(i);
            else if (s instanceof Stmt.Block inner) flatten(inner, out);
        }
    }
}
