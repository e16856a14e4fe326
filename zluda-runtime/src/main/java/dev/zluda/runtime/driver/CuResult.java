package dev.zluda.runtime.driver;

import dev.zluda.spec.ErrorStrings;

/** The CUresult values the driver returns (CUDA Driver API, enum cudaError_enum; values from cuda.h). */
public final class CuResult {
    private CuResult() {}

    public static final int SUCCESS = 0;
    public static final int INVALID_VALUE = 1;
    public static final int OUT_OF_MEMORY = 2;
    public static final int NOT_INITIALIZED = 3;
    public static final int DEINITIALIZED = 4;
    public static final int INVALID_DEVICE = 101;
    public static final int INVALID_CONTEXT = 201;
    public static final int CONTEXT_ALREADY_CURRENT = 202;
    public static final int INVALID_HANDLE = 400;
    public static final int NOT_FOUND = 500;
    public static final int NOT_READY = 600;
    public static final int ILLEGAL_ADDRESS = 700;
    public static final int PEER_ACCESS_UNSUPPORTED = 217;
    public static final int HOST_MEMORY_ALREADY_REGISTERED = 712;
    public static final int HOST_MEMORY_NOT_REGISTERED = 713;
    public static final int PRIMARY_CONTEXT_ACTIVE = 708;
    public static final int CONTEXT_IS_DESTROYED = 709;
    public static final int NOT_PERMITTED = 800;
    public static final int NOT_SUPPORTED = 801;
    public static final int UNKNOWN = 999;

    /**
     * The CUDA name of a code, e.g. {@code CUDA_ERROR_INVALID_PTX}: NVIDIA's {@code cuGetErrorName} as measured
     * ({@link ErrorStrings}); {@code CUresult N} for a code it does not name.
     */
    static String name(int code) {
        return Names.TABLE.name(code).orElse("CUresult " + code);
    }

    /** The measured table, read on the first use. */
    private static final class Names {
        static final ErrorStrings TABLE = ErrorStrings.load();
    }
}
