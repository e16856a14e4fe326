package dev.zluda.ptx.ir;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.PtxType;
import dev.zluda.ptx.VariableInfo;

import java.util.List;

/**
 * An instruction operand (PTX ISA 9.0, chapter 6), its names resolved in the instruction's scope by
 * {@link IrBuilder}: a register with its declared type, a variable with its state space, a special register, a
 * function, a label, an immediate with its literal kind, an address as base plus byte offset, a vector, a
 * predicate pair, a call's list.
 */
public sealed interface Operand
        permits Operand.Reg, Operand.Var, Operand.Special, Operand.Func, Operand.Label, Operand.Sink, Operand.Unknown,
        Operand.IntImm, Operand.FloatImm, Operand.Sum, Operand.Not, Operand.Address, Operand.AddressList,
        Operand.Vec, Operand.PredPair, Operand.Tuple, Operand.Malformed {

    /**
     * The name an operand is written as — a register (without its component), variable, special register, function,
     * label, unresolved name, or {@code _} — which a back end looks its own storage up by; null for immediates,
     * sums, addresses and groups.
     */
    default String name() {
        return null;
    }

    /** Whether this is a register of type {@code .pred}. */
    default boolean isPred() {
        return this instanceof Reg r && r.type() == PtxType.PRED;
    }

    // ------------------------------------------------------------------ names

    /**
     * A register ({@code .reg}, PTX ISA 9.0, 5.1.1), or one element of a vector register ({@code %v.y}).
     *
     * @param name      the name as written ({@code %r12}; for a {@code %r<N>} range the member's own name)
     * @param var       the declaration (for a range: the range, {@code rangeCount} N)
     * @param component the vector element ({@code .x .r} 0, {@code .y .g} 1, {@code .z .b} 2, {@code .w .a} 3), or -1
     */
    record Reg(String name, VariableInfo var, int component) implements Operand {
        /** The declared type ({@code .pred} for predicates), null when the declaration had none. */
        public PtxType type() { return var.type(); }

        /** Size in bits of the declared type (0 for predicates). */
        public int bits() { return var.type() == null ? 0 : var.type().size() * 8; }
    }

    /**
     * A variable of a memory state space ({@code .global .const .shared .local .param .tex}), a kernel or function
     * parameter declared in {@code .param}, used by name (its address).
     *
     * @param space  its state space
     * @param module declared at module scope
     */
    record Var(String name, VariableInfo var, Mod.StateSpace space, boolean module) implements Operand {}

    /**
     * A special register (PTX ISA 9.0, chapter 10), or the predefined constant {@code WARP_SZ}.
     *
     * @param reg       which one
     * @param index     the N of {@code %envregN}, {@code %pmN}, {@code %pmN_64} and {@code %reserved_smem_offset_N}, else 0
     * @param component {@code .x .y .z} as 0, 1, 2, or -1 without one
     */
    record Special(SpecialReg reg, int index, int component) implements Operand {
        /** The name as written, without the component ({@code %tid}, {@code %envreg3}). */
        public String name() { return reg.name(index); }
    }

    /** A function ({@code .entry}, {@code .func}, or an {@code .alias}): a call's target or an address taken. */
    record Func(String name) implements Operand {}

    /** A label of the function (a branch target, or the label of a {@code .callprototype}/{@code .calltargets}). */
    record Label(String name) implements Operand {}

    /** {@code _}: a destination whose value is discarded (PTX ISA 9.0, 6.5). */
    record Sink() implements Operand {
        @Override public String name() { return "_"; }
    }

    /** A name that resolves to nothing (the front end reports it; a back end refuses it). */
    record Unknown(String name) implements Operand {}

    // ------------------------------------------------------------------ values

    /** An integer constant expression folded to 64 bits (PTX ISA 9.0, 4.5.1 and 4.6). */
    record IntImm(long value) implements Operand {}

    /**
     * A floating-point literal (PTX ISA 9.0, 4.5.2), possibly written with a leading minus.
     *
     * @param kind    how it was written
     * @param bits    {@link Kind#HEX_F32}: the 32 bits; {@link Kind#HEX_F64}: the 64 bits; {@link Kind#DECIMAL}:
     *                the double's bits
     * @param negated written as {@code -literal}
     * @param source  the expression as written (for diagnostics)
     */
    record FloatImm(Kind kind, long bits, boolean negated, Ast.Expr source) implements Operand {
        /** How a float literal was written. */
        public enum Kind { DECIMAL, HEX_F32, HEX_F64 }

        /** The literal's value as a double, without the minus (a single-precision literal widened exactly). */
        public double value() {
            return switch (kind) {
                case DECIMAL, HEX_F64 -> Double.longBitsToDouble(bits);
                case HEX_F32 -> Float.intBitsToFloat((int) bits);
            };
        }
    }

    /**
     * A name plus a constant ({@code sym+8}, {@code generic(sym)}, {@code %rd1-4}) used as a value.
     *
     * @param base    the name
     * @param offset  the constant, in bytes for a variable
     * @param generic written as {@code generic(sym)} (PTX ISA 9.0, 5.4.4)
     * @param source  the expression as written (for diagnostics)
     */
    record Sum(Operand base, long offset, boolean generic, Ast.Expr source) implements Operand {}

    /** {@code !p}: a negated predicate source (PTX ISA 9.0, 9.7.6.1). */
    record Not(Operand inner) implements Operand {}

    // ------------------------------------------------------------------ memory and groups

    /**
     * {@code [base+offset]} (PTX ISA 9.0, 6.4.1): a register, a variable or none (an absolute address), plus a byte
     * offset.
     */
    record Address(Operand base, long offset) implements Operand {}

    /** {@code [a, b, ...]} of texture, surface and tensor instructions ({@code [tex, {x, y}]}). */
    record AddressList(List<Operand> elements) implements Operand {
        public AddressList { elements = List.copyOf(elements); }
    }

    /**
     * {@code {a, b, c, d}} (PTX ISA 9.0, 6.4.2): elements in order ({@link Sink} for {@code _}). After
     * {@link dev.zluda.ptx.ir.pass.VectorOperands} each element knows its width and place ({@code lanes}); before it
     * {@code lanes} is empty.
     */
    record Vec(List<Operand> elements, List<Lane> lanes) implements Operand {
        public Vec {
            elements = List.copyOf(elements);
            lanes = List.copyOf(lanes);
        }

        public Vec(List<Operand> elements) { this(elements, List.of()); }
    }

    /**
     * One element of a vector operand as {@link dev.zluda.ptx.ir.pass.VectorOperands} places it.
     *
     * @param value  the element
     * @param bits   its width in bits
     * @param offset its place: the byte offset from the address for memory instructions, the bit offset in the
     *               packed value for {@code mov}
     */
    record Lane(Operand value, int bits, long offset) {}

    /** {@code p|q} (setp, shfl, lop3, match, elect: PTX ISA 9.0, 9.7.6.1): two destinations, either may be {@code _}. */
    record PredPair(Operand first, Operand second) implements Operand {}

    /** {@code (a, b)}: a call's results or arguments (PTX ISA 9.0, 9.7.12.3). */
    record Tuple(List<Operand> elements) implements Operand {
        public Tuple { elements = List.copyOf(elements); }
    }

    /**
     * An operand of a shape no back end takes ({@code [%r1*4]}, {@code 2*sym}, a non-constant expression).
     *
     * @param source  the operand as written
     * @param address it was written in brackets
     */
    record Malformed(Ast.Operand source, boolean address) implements Operand {}
}
