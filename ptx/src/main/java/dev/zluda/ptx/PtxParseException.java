package dev.zluda.ptx;

import java.util.List;

/**
 * Thrown by {@link Ptx#parseOrThrow} when PTX text has syntax errors. Carries every diagnostic
 * found (at least one error), each with line and column; the message is the first one in
 * {@code file:line:col: error: message} form. Never wraps an ANTLR exception or stack trace.
 */
public final class PtxParseException extends RuntimeException {
    private final transient List<Diagnostic> diagnostics;

    /** @param diagnostics the problems found, not empty */
    public PtxParseException(List<Diagnostic> diagnostics) {
        super(diagnostics.isEmpty() ? "PTX parse error" : diagnostics.getFirst().format()
                + (diagnostics.size() > 1 ? " (and " + (diagnostics.size() - 1) + " more)" : ""), null, false, false);
        this.diagnostics = List.copyOf(diagnostics);
    }

    /** All diagnostics, in source order. */
    public List<Diagnostic> diagnostics() {
        return diagnostics;
    }
}
