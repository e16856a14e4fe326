package dev.zluda.runtime.emulator;

import java.util.List;

/**
 * A module the emulator cannot load: invalid PTX ({@link Errors#INVALID_PTX}), or PTX that uses
 * instructions or features the emulator does not execute ({@link Errors#NOT_SUPPORTED}). The log
 * has one {@code file:line:col: error: message} line per problem, as a JIT error log does.
 */
public final class PtxLoadException extends Exception {
    private final int error;
    private final List<String> lines;

    /**
     * @param error CUDA_ERROR_INVALID_PTX (218) or CUDA_ERROR_NOT_SUPPORTED (801)
     * @param lines the problems, one {@code file:line:col: error: message} each
     */
    public PtxLoadException(int error, List<String> lines) {
        super(lines.isEmpty() ? Errors.name(error) : lines.getFirst());
        this.error = error;
        this.lines = List.copyOf(lines);
    }

    /** The CUresult for the load: CUDA_ERROR_INVALID_PTX (218) or CUDA_ERROR_NOT_SUPPORTED (801). */
    public int error() {
        return error;
    }

    /** The problems, one {@code file:line:col: error: message} per entry. */
    public List<String> lines() {
        return lines;
    }

    /** The problems joined by newlines, as the JIT error log gets them. */
    public String log() {
        return String.join("\n", lines);
    }
}
