package dev.zluda.ptx.ir;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.PtxType;

import java.util.List;

/**
 * One PTX instruction in the typed IR: its family ({@link Opcode}), guard, typed modifiers and resolved operands,
 * produced by {@link IrBuilder} from a checked {@link Ast.Instruction}. Both back ends (the emulator's translator
 * and the LLVM lowering) read instructions only through this.
 *
 * @param opcode       the instruction family
 * @param guard        {@code @p}'s predicate ({@link Operand.Reg} of type {@code .pred}, or what the name resolved to),
 *                     null without a guard
 * @param guardNegated {@code @!p}
 * @param mods         the modifiers, typed, in source order
 * @param operands     the operands, resolved, in order
 * @param source       the instruction as parsed (position and spelling for diagnostics)
 */
public record Instr(Opcode opcode, Operand guard, boolean guardNegated, Modifiers mods, List<Operand> operands,
                    Ast.Instruction source) implements Stmt {
    public Instr {
        operands = List.copyOf(operands);
    }

    /** Where the instruction is (1-based line and column). */
    public Ast.Loc loc() { return source.loc(); }

    /** The instruction as written without operands, e.g. {@code "ld.global.nc.v4.u32"}. */
    public String form() { return source.form(); }

    /** The {@code k}-th operand, or null past the end. */
    public Operand op(int k) { return k < operands.size() ? operands.get(k) : null; }

    /** Number of operands. */
    public int arity() { return operands.size(); }

    /** Whether modifier {@code m} is present. */
    public boolean has(Mod m) { return mods.has(m); }

    /** The {@code k}-th type modifier, or null. */
    public PtxType type(int k) { return mods.type(k); }

    /** The type modifiers in order. */
    public List<PtxType> types() { return mods.types(); }
}
