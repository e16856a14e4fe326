package dev.zluda.runtime.emulator;

import dev.zluda.spec.ErrorStrings;

/** The CUresult values the emulator reports (cuda.h, enum cudaError_enum). */
public final class Errors {
    private Errors() {}

    /** CUDA_SUCCESS. */
    public static final int SUCCESS = 0;
    /** CUDA_ERROR_INVALID_PTX: the PTX text has syntax or semantic errors. */
    public static final int INVALID_PTX = 218;
    /** CUDA_ERROR_ASSERT: a device-side assertion ({@code __assertfail}) failed. */
    public static final int ASSERT = 710;
    /** CUDA_ERROR_ILLEGAL_ADDRESS: a load, store or atomic outside every allocation / its state space. */
    public static final int ILLEGAL_ADDRESS = 700;
    /** CUDA_ERROR_HARDWARE_STACK_ERROR: call stack overflow. */
    public static final int HARDWARE_STACK_ERROR = 714;
    /** CUDA_ERROR_ILLEGAL_INSTRUCTION: {@code trap}, or an instruction that cannot run. */
    public static final int ILLEGAL_INSTRUCTION = 715;
    /** CUDA_ERROR_MISALIGNED_ADDRESS: an access not aligned to its size. */
    public static final int MISALIGNED_ADDRESS = 716;
    /** CUDA_ERROR_LAUNCH_FAILED: any other failure of a running kernel (barrier deadlock, internal error). */
    public static final int LAUNCH_FAILED = 719;
    /** CUDA_ERROR_NOT_SUPPORTED: the PTX uses an instruction or feature the emulator does not execute. */
    public static final int NOT_SUPPORTED = 801;

    /**
     * The CUDA name of a code the emulator produces, e.g. {@code CUDA_ERROR_ILLEGAL_ADDRESS}: NVIDIA's
     * {@code cuGetErrorName} as measured ({@link ErrorStrings}); {@code CUresult N} for a code it does not name.
     */
    public static String name(int error) {
        return Names.TABLE.name(error).orElse("CUresult " + error);
    }

    /** The measured table, read on the first fault message. */
    private static final class Names {
        static final ErrorStrings TABLE = ErrorStrings.load();
    }
}
