package dev.zluda.runtime.backend;

/**
 * A backend operation failed; {@link #cuResult} is what the CUDA call returns, the message (for a module load, the
 * compile log of {@code file:line:col: error: ...} lines) what the user is told.
 */
public final class BackendException extends Exception {
    /** The CUresult (cuda.h). */
    public final int cuResult;

    /**
     * @param cuResult the CUresult the CUDA call returns
     * @param message what went wrong, for the user (may be empty)
     */
    public BackendException(int cuResult, String message) {
        super(message, null, false, false);
        this.cuResult = cuResult;
    }
}
