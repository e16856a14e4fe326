package dev.zluda.runtime.driver;

/** A module or library load failed: the CUresult it returns and the log lines ({@code file:line:col: error: ...}). */
final class LoadFailure extends Exception {
    /** The CUresult of the load. */
    final int error;

    LoadFailure(int error, String log) {
        super(log, null, false, false);
        this.error = error;
    }
}
