package dev.zluda.ptx;

import java.util.List;

/**
 * What {@link Ptx#parse} returns.
 *
 * @param module      the module; when there were syntax errors it holds the top-level items of the
 *                    parts of the file that parsed (each function and section is parsed on its own,
 *                    so one bad function does not hide the others)
 * @param diagnostics syntax errors in source order, empty when the text is valid PTX syntax
 */
public record ParseResult(Ast.Module module, List<Diagnostic> diagnostics) {
    public ParseResult {
        diagnostics = List.copyOf(diagnostics);
    }

    /** {@code true} when no error was found. */
    public boolean ok() {
        return diagnostics.stream().noneMatch(Diagnostic::isError);
    }
}
