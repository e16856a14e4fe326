package dev.zluda.replay;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.ParamInfo;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The element type of the memory each pointer parameter of a kernel reaches, inferred from its PTX:
 * a register loaded from parameter {@code p} ({@code ld.param}) carries {@code p}; {@code mov},
 * {@code cvta}, {@code add}, {@code sub}, {@code mad} and {@code selp} pass it on to their
 * destination (iterated to a fixed point, for pointers advanced in loops); a global or generic
 * {@code ld}, {@code st}, {@code atom} or {@code red} whose address register carries {@code p} says
 * the type of {@code p}'s elements (its type modifier, PTX ISA 9.0 §9.7.9). Calls into device
 * functions are not followed. When one parameter is accessed as several types, a typed one wins
 * over a bit type ({@code .f32} over {@code .b32}) and a float over an integer of the same size;
 * mixed sizes leave it unknown.
 */
public final class PtxTypes {
    private static final Set<String> PASS = Set.of("mov", "cvta", "add", "sub", "mad", "selp");
    private static final Set<String> ACCESS = Set.of("ld", "st", "atom", "red");
    private static final Set<String> OTHER_SPACES = Set.of(".param", ".shared", ".local", ".const", ".tex");

    private PtxTypes() {}

    /** Element type by parameter index, for the parameters whose memory the kernel accesses. */
    public static Map<Integer, ElementType> infer(Ast.Function kernel, List<ParamInfo> params) {
        Map<String, Integer> paramIndex = new HashMap<>();
        for (ParamInfo p : params) paramIndex.put(p.name(), p.index());
        List<Ast.Instruction> code = new ArrayList<>();
        if (kernel.body() != null) flatten(kernel.body(), code);
        Map<String, Set<Integer>> carries = new HashMap<>();
        Map<Integer, Set<ElementType>> seen = new HashMap<>();
        boolean changed = true;
        for (int round = 0; changed && round < 20; round++) {
            changed = false;
            for (Ast.Instruction ins : code) {
                List<Ast.Operand> ops = ins.operands();
                if (ops.isEmpty()) continue;
                String op = ins.opcode();
                if (op.equals("ld") && ins.modifiers().contains(".param") && ops.size() >= 2 && ops.get(0) instanceof Ast.Sym d
                        && ops.get(1) instanceof Ast.AddressOperand a) {
                    String base = baseName(a);
                    Integer pi = base == null ? null : paramIndex.get(base);
                    if (pi != null) changed |= carries.computeIfAbsent(d.name(), k -> new HashSet<>()).add(pi);
                } else if (PASS.contains(op) && ops.get(0) instanceof Ast.Sym d) {
                    for (int i = 1; i < ops.size(); i++) {
                        for (String r : names(ops.get(i))) {
                            Set<Integer> c = carries.get(r);
                            if (c != null && !c.isEmpty()) changed |= carries.computeIfAbsent(d.name(), k -> new HashSet<>()).addAll(c);
                        }
                    }
                } else if (ACCESS.contains(op) && ins.modifiers().stream().noneMatch(OTHER_SPACES::contains)) {
                    for (Ast.Operand o : ops) {
                        if (!(o instanceof Ast.AddressOperand a)) continue;
                        String base = baseName(a);
                        Set<Integer> c = base == null ? null : carries.get(base);
                        ElementType t = type(ins);
                        if (c == null || t == null) continue;
                        for (int p : c) changed |= seen.computeIfAbsent(p, k -> new LinkedHashSet<>()).add(t);
                    }
                }
            }
        }
        Map<Integer, ElementType> out = new HashMap<>();
        for (var e : seen.entrySet()) {
            ElementType t = resolve(e.getValue());
            if (t != null) out.put(e.getKey(), t);
        }
        return out;
    }

    /** One type for several: see the class comment; null when they disagree in size. */
    static ElementType resolve(Set<ElementType> types) {
        if (types.size() == 1) return types.iterator().next();
        int size = types.iterator().next().size;
        for (ElementType t : types) if (t.size != size) return null;
        for (ElementType t : types) if (t.floating) return t;
        for (ElementType t : types) if (t.name().startsWith("S")) return t;
        return types.iterator().next();
    }

    /** The last type modifier of an access ({@code ld.global.nc.v4.f32} → f32; {@code atom.global.add.u32} → u32). */
    private static ElementType type(Ast.Instruction ins) {
        ElementType t = null;
        for (String m : ins.modifiers()) {
            ElementType x = ElementType.ofPtx(m);
            if (x != null) t = x;
        }
        return t;
    }

    /** The register or symbol an address is based on: {@code [%rd1+8]} → {@code %rd1}. */
    private static String baseName(Ast.AddressOperand a) {
        if (a.elements().isEmpty()) return null;
        List<String> n = names(a.elements().getFirst());
        return n.isEmpty() ? null : n.getFirst();
    }

    /** The names an operand mentions, left to right. */
    private static List<String> names(Ast.Operand o) {
        List<String> out = new ArrayList<>();
        collect(o, out);
        return out;
    }

    private static void collect(Ast.Operand o, List<String> out) {
        switch (o) {
            case Ast.Sym s -> out.add(s.name());
            case Ast.Binary b -> { collect(b.left(), out); collect(b.right(), out); }
            case Ast.Unary u -> collect(u.operand(), out);
            case Ast.Paren p -> collect(p.inner(), out);
            case Ast.AddressOperand a -> { for (Ast.Operand e : a.elements()) collect(e, out); }
            case Ast.VectorOperand v -> { for (Ast.Operand e : v.elements()) collect(e, out); }
            default -> { }
        }
    }

    private static void flatten(Ast.Block b, List<Ast.Instruction> out) {
        for (Ast.Statement s : b.statements()) {
            if (s instanceof Ast.Instruction i) out.add(i);
            else if (s instanceof Ast.Block inner) flatten(inner, out);
        }
    }
}
