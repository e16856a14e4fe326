package dev.zluda.runtime.emulator;

/**
 * How a kernel launch on the emulator ended.
 *
 * @param error   {@link Errors#SUCCESS} or the CUresult the kernel stopped with:
 *                {@link Errors#ILLEGAL_ADDRESS} (700), {@link Errors#MISALIGNED_ADDRESS} (716),
 *                {@link Errors#ILLEGAL_INSTRUCTION} (715), {@link Errors#ASSERT} (710),
 *                {@link Errors#LAUNCH_FAILED} (719)
 * @param message one line for the user: kernel, CTA, thread, PTX line, address; empty on success
 * @param threadInstructions thread-instructions executed (the sum over warps of active lanes per
 *                executed instruction), for throughput figures
 */
public record LaunchResult(int error, String message, long threadInstructions) {
    /** {@code true} when the kernel ran to the end. */
    public boolean ok() {
        return error == Errors.SUCCESS;
    }
}
