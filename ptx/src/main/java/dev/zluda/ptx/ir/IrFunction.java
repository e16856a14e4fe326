package dev.zluda.ptx.ir;

import dev.zluda.ptx.FunctionInfo;

/**
 * A function ({@code .entry} or {@code .func}) in the IR.
 *
 * @param info the front end's view (parameters with their layout, registers, directives)
 * @param body the body, null for a declaration without one
 */
public record IrFunction(FunctionInfo info, Stmt.Block body) {
    /** The function's name. */
    public String name() { return info.name(); }
}
