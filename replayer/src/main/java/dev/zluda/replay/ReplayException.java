package dev.zluda.replay;

/** A replay that cannot be done: the message says what is missing or failed, and what to do (exit code 2). */
public final class ReplayException extends Exception {
    public ReplayException(String message) {
        super(message);
    }

    public ReplayException(String message, Throwable cause) {
        super(message, cause);
    }
}
