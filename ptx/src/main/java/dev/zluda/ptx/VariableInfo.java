package dev.zluda.ptx;

import java.util.List;

/**
 * What a declaration ({@link Ast.Decl}) declares for one name, resolved per PTX ISA 9.0 section 5.4
 * "Variables" (5.4.3 vectors, 5.4.4 arrays, 5.4.5 alignment).
 *
 * @param name        the name; for a {@code %r<N>} range, the prefix ({@code "%r"}) and {@code rangeCount} N
 * @param space       the state space with its dot ({@code ".reg"}, {@code ".global"}, ...)
 * @param type        the element type, {@code null} when the declaration had none (an error was reported)
 * @param vectorWidth 1 for scalars, 2/4/8 for {@code .v2/.v4/.v8}
 * @param dims        array dimensions, outermost first; {@code -1} for an unsized {@code []}; empty for scalars
 * @param size        total size in bytes: element size × vector width × all dimensions (0 when a
 *                    dimension is unsized, or for {@code .pred})
 * @param alignment   alignment in bytes: the {@code .align} value when given, otherwise the natural
 *                    alignment of the element (type size × vector width, at least 1)
 * @param rangeCount  {@code N} for a {@code name<N>} parameterized register declaration, else 0
 * @param pointer     {@code .ptr} was given (kernel parameters, ISA 5.1.6.1)
 * @param pointeeSpace the state space after {@code .ptr}, or {@code null}
 * @param pointeeAlign the {@code .align} after {@code .ptr}, or 0
 * @param loc         where the name is declared
 */
public record VariableInfo(String name, String space, PtxType type, int vectorWidth, List<Long> dims, long size,
                           long alignment, long rangeCount, boolean pointer, String pointeeSpace, long pointeeAlign,
                           Ast.Loc loc) {
    public VariableInfo {
        dims = List.copyOf(dims);
    }

    /** Size in bytes of one element (type size × vector width). */
    public long elementSize() {
        return type == null ? 0 : (long) type.size() * vectorWidth;
    }
}
