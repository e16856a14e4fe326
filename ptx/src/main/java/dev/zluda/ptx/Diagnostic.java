package dev.zluda.ptx;

/**
 * A problem found in PTX source: where it is and what it is.
 *
 * @param source   the file name or other label the text was parsed under (as given to {@link Ptx})
 * @param line     1-based line
 * @param column   1-based column, counting characters (a tab is one column)
 * @param severity error or warning
 * @param message  one line, no trailing period, no position prefix
 */
public record Diagnostic(String source, int line, int column, Severity severity, String message) {
    /** How bad a diagnostic is. An {@link #ERROR} makes {@code zluda ptx check} exit with 1. */
    public enum Severity { ERROR, WARNING }

    /** {@code source:line:column: error: message}, the form compilers use. */
    public String format() {
        return source + ":" + line + ":" + column + ": " + severity.name().toLowerCase(java.util.Locale.ROOT) + ": " + message;
    }

    @Override
    public String toString() {
        return format();
    }

    /** {@code true} for {@link Severity#ERROR}. */
    public boolean isError() {
        return severity == Severity.ERROR;
    }
}
