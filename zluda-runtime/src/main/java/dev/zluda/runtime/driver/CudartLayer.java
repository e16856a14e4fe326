package dev.zluda.runtime.driver;

import dev.zluda.runtime.emulator.DevicePrintf;
import dev.zluda.spec.CudaApi;

import java.lang.foreign.MemorySegment;

/**
 * What programs built with nvcc need on top of the other layers: the points where device-side
 * {@code printf} output is printed ({@link DevicePrintf#flush()}). CUDA prints a kernel's output
 * when the host next reaches one of these (CUDA Programming Guide, "Formatted Output"): the start
 * of a kernel launch, {@code cuCtxSynchronize}, {@code cuStreamSynchronize},
 * {@code cuEventSynchronize}, a blocking {@code cuMemcpy*}, module loading and unloading, context
 * destruction or reset, and before a stream callback runs. Here every operation completes when its
 * call returns, so the asynchronous copies (which call the blocking ones) flush too.
 */
abstract class CudartLayer extends ExportTableLayer {
    CudartLayer(CudaApi api, MemorySegment exports) {
        super(api, exports);
    }

    private static int flushed(int result) {
        DevicePrintf.flush();
        return result;
    }

    // ---------------------------------------------------------------- device printf flush points

    @Override
    public int cuLaunchKernel(long f, int gridDimX, int gridDimY, int gridDimZ, int blockDimX, int blockDimY, int blockDimZ,
                              int sharedMemBytes, long hStream, long kernelParams, long extra) {
        DevicePrintf.flush();
        return super.cuLaunchKernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams, extra);
    }

    @Override
    public int cuLaunchKernelEx(long config, long f, long kernelParams, long extra) {
        DevicePrintf.flush();
        return super.cuLaunchKernelEx(config, f, kernelParams, extra);
    }

    @Override
    public int cuCtxSynchronize_v2(long ctx) {
        return flushed(super.cuCtxSynchronize_v2(ctx));
    }

    @Override
    public int cuCtxSynchronize() {
        return flushed(super.cuCtxSynchronize());
    }

    @Override
    public int cuStreamSynchronize(long hStream) {
        return flushed(super.cuStreamSynchronize(hStream));
    }

    @Override
    public int cuEventSynchronize(long hEvent) {
        return flushed(super.cuEventSynchronize(hEvent));
    }

    @Override
    public int cuMemcpyHtoD_v2(long dstDevice, long srcHost, long ByteCount) {
        return flushed(super.cuMemcpyHtoD_v2(dstDevice, srcHost, ByteCount));
    }

    @Override
    public int cuMemcpyDtoH_v2(long dstHost, long srcDevice, long ByteCount) {
        return flushed(super.cuMemcpyDtoH_v2(dstHost, srcDevice, ByteCount));
    }

    @Override
    public int cuMemcpyDtoD_v2(long dstDevice, long srcDevice, long ByteCount) {
        return flushed(super.cuMemcpyDtoD_v2(dstDevice, srcDevice, ByteCount));
    }

    @Override
    public int cuMemcpy(long dst, long src, long ByteCount) {
        return flushed(super.cuMemcpy(dst, src, ByteCount));
    }

    @Override
    public int cuMemcpy2D_v2(long pCopy) {
        return flushed(super.cuMemcpy2D_v2(pCopy));
    }

    @Override
    public int cuMemcpy3D_v2(long pCopy) {
        return flushed(super.cuMemcpy3D_v2(pCopy));
    }

    @Override
    public int cuModuleLoadData(long module, long image) {
        return flushed(super.cuModuleLoadData(module, image));
    }

    @Override
    public int cuModuleLoadDataEx(long module, long image, int numOptions, long options, long optionValues) {
        return flushed(super.cuModuleLoadDataEx(module, image, numOptions, options, optionValues));
    }

    @Override
    public int cuModuleUnload(long hmod) {
        return flushed(super.cuModuleUnload(hmod));
    }

    @Override
    public int cuLibraryLoadData(long library, long code, long jitOptions, long jitOptionsValues, int numJitOptions,
                                 long libraryOptions, long libraryOptionValues, int numLibraryOptions) {
        return flushed(super.cuLibraryLoadData(library, code, jitOptions, jitOptionsValues, numJitOptions, libraryOptions,
                libraryOptionValues, numLibraryOptions));
    }

    @Override
    public int cuLibraryUnload(long library) {
        return flushed(super.cuLibraryUnload(library));
    }

    @Override
    public int cuCtxDestroy_v2(long ctx) {
        DevicePrintf.flush();
        return super.cuCtxDestroy_v2(ctx);
    }

    @Override
    public int cuDevicePrimaryCtxReset_v2(int dev) {
        DevicePrintf.flush();
        return super.cuDevicePrimaryCtxReset_v2(dev);
    }

    @Override
    public int cuLaunchHostFunc(long hStream, long fn, long userData) {
        DevicePrintf.flush();
        return super.cuLaunchHostFunc(hStream, fn, userData);
    }

    @Override
    public int cuStreamAddCallback(long hStream, long callback, long userData, int flags) {
        DevicePrintf.flush();
        return super.cuStreamAddCallback(hStream, callback, userData, flags);
    }
}
