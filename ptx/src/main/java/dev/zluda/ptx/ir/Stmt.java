package dev.zluda.ptx.ir;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.VariableInfo;

import java.util.List;

/**
 * A statement of a function body in the IR: an instruction ({@link Instr}), a nested block, a label, a declaration,
 * or another directive kept as the parser gave it ({@code .callprototype}, {@code .calltargets},
 * {@code .branchtargets}, {@code .loc}, {@code .pragma}).
 */
public sealed interface Stmt permits Instr, Stmt.Block, Stmt.Label, Stmt.Decl, Stmt.Directive {

    /**
     * {@code { ... }}: a function body or a nested scope (PTX ISA 9.0, 9.7.12.1); its declarations are visible in the
     * whole block.
     */
    record Block(List<Stmt> statements, Ast.Block source) implements Stmt {
        public Block { statements = List.copyOf(statements); }
    }

    /** {@code name:}. */
    record Label(String name, Ast.Loc loc) implements Stmt {}

    /** A declaration in a body, with what it declares (one {@link VariableInfo} per name, in order). */
    record Decl(Ast.Decl source, List<VariableInfo> variables) implements Stmt {
        public Decl { variables = List.copyOf(variables); }

        /** The declared state space. */
        public Mod.StateSpace space() { return Mod.StateSpace.of(source.space()); }
    }

    /** Any other statement, as parsed. */
    record Directive(Ast.Statement source) implements Stmt {}
}
