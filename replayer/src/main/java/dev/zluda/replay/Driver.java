package dev.zluda.replay;

/**
 * The CUDA driver functions a replay calls, with C semantics: every pointer argument is the
 * address of native memory (a {@code long}), every method returns the CUresult (CUDA Driver API,
 * CUDA 13.0). Implemented by zluda's Java driver in-process ({@link JavaDriver}) and by any
 * {@code libcuda.so} through the JDK's foreign-function API ({@link NativeDriver}).
 */
public interface Driver extends AutoCloseable {
    /** What this driver is, for reports: e.g. {@code zluda (in-process emulator)} or a library path. */
    String describe();

    /** The short name written into a replay's manifest: {@code zluda}, {@code nvidia} or {@code library}. */
    String kind();

    int cuInit(int flags);

    int cuDriverGetVersion(long pVersion);

    int cuDeviceGet(long pDevice, int ordinal);

    int cuDeviceGetName(long name, int len, int dev);

    int cuDevicePrimaryCtxRetain(long pCtx, int dev);

    int cuDevicePrimaryCtxRelease_v2(int dev);

    int cuCtxSetCurrent(long ctx);

    int cuCtxSynchronize();

    int cuModuleLoadDataEx(long pModule, long image, int numOptions, long options, long optionValues);

    int cuModuleGetFunction(long pFunction, long module, long name);

    int cuModuleUnload(long module);

    int cuMemAlloc_v2(long pDptr, long bytes);

    int cuMemFree_v2(long dptr);

    int cuMemcpyHtoD_v2(long dst, long srcHost, long bytes);

    int cuMemcpyDtoH_v2(long dstHost, long src, long bytes);

    int cuLaunchKernel(long f, int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ, int sharedMemBytes,
                       long stream, long kernelParams, long extra);

    int cuGetErrorName(int error, long pStr);

    /**
     * Calls any function of the API spec with its arguments as raw 64-bit values (32-bit integers
     * and floats in the low bits), as a capture records them.
     *
     * @throws IllegalStateException when this driver cannot make that call (a struct passed by
     *     value, a function the library does not export)
     */
    int call(dev.zluda.spec.CudaFunction f, long[] args);

    /** Releases what loading the driver took (nothing for most). */
    @Override
    default void close() {}
}
