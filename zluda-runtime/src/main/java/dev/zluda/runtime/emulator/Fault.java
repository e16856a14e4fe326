package dev.zluda.runtime.emulator;

/**
 * A kernel stopped by an error while it ran: a memory access outside every allocation, a misaligned
 * access, {@code trap}, a barrier that can never complete. Thrown inside the emulator and turned
 * into a {@link LaunchResult} by the CTA runner, which adds kernel, CTA, thread and PTX line; it
 * never leaves the emulator.
 */
final class Fault extends RuntimeException {
    /** The CUresult the launch reports (CUDA_ERROR_ILLEGAL_ADDRESS, ...). */
    final int error;
    /** The lane (0..31) that faulted, or -1 when the fault is not one thread's. */
    final int lane;

    Fault(int error, int lane, String message) {
        super(message, null, false, false);
        this.error = error;
        this.lane = lane;
    }
}
