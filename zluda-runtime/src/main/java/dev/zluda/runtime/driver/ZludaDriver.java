package dev.zluda.runtime.driver;

import dev.zluda.runtime.backend.Backend;
import dev.zluda.spec.CudaApi;

import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

/**
 * The zluda CUDA driver, as native callers see it through {@code libcuda.so.1}. Every method implements the CUDA
 * Driver API function of the same name (CUDA 13.0 semantics) by handing it to the area that serves it
 * ({@link Areas}); what no area implements returns {@code CUDA_ERROR_NOT_SUPPORTED} and is reported once on
 * stderr; docs/support.md lists what is implemented ({@link Support}). Device printf output is printed where CUDA
 * prints it (CUDA Programming Guide, "Formatted Output"): the start of a kernel launch, synchronisations, blocking
 * copies, module loading and unloading, context destruction or reset, and before a host function runs.
 */
public final class ZludaDriver implements dev.zluda.runtime.api.CudaDriverApi {
    /** The version {@code cuDriverGetVersion} reports. */
    public static final int DRIVER_VERSION = DeviceArea.DRIVER_VERSION;
    /** The name of device 0. */
    public static final String DEVICE_NAME = DeviceArea.DEVICE_NAME;

    final DriverState state;
    final Areas areas;

    /**
     * @param api the spec
     * @param exports {@code zl_functions[]}: the native export of every spec function, by id; may be
     *     {@link MemorySegment#NULL} when no native library is loaded (tests), then
     *     cuGetProcAddress returns null pointers
     */
    public ZludaDriver(CudaApi api, MemorySegment exports) {
        this.state = new DriverState(api, exports);
        this.areas = new Areas(state, this::cuModuleLoadData);
    }

    /** The backend cuInit chose, or null before. */
    Backend backend() {
        return state.backend();
    }

    /** Sets who is told of the driver's own events (the trace layer's MARKER records); null: nobody. */
    public void driverEvents(Consumer<String> sink) {
        state.events(sink);
    }

    /** Sets who sees every kernel launch before and after it runs (the trace layer's kernel snapshots); null: nobody. */
    public void launchObserver(LaunchObserver observer) {
        areas.launch.observer(observer);
    }

    /** Sets who sees each module image loaded through the export tables (the trace layer's MODULE records); null: nobody. */
    public void moduleImageObserver(ModuleImageObserver observer) {
        areas.exportTable.moduleImageObserver(observer);
    }

    @Override
    public int unsupported(int functionId) {
        return state.unsupported(functionId);
    }

    private int flushed(int result) {
        state.flushDeviceOutput();
        return result;
    }

    private void flush() {
        state.flushDeviceOutput();
    }

    // ---------------------------------------------------------------- the areas' functions (forwarders until the table is generated)
    @Override public int cuInit(int flags) { return areas.device.cuInit(flags); }
    @Override public int cuDriverGetVersion(long driverVersion) { return areas.device.cuDriverGetVersion(driverVersion); }
    @Override public int cuModuleGetLoadingMode(long mode) { return areas.device.cuModuleGetLoadingMode(mode); }
    @Override public int cuDeviceGetCount(long count) { return areas.device.cuDeviceGetCount(count); }
    @Override public int cuDeviceGet(long device, int ordinal) { return areas.device.cuDeviceGet(device, ordinal); }
    @Override public int cuDeviceGetName(long name, int len, int dev) { return areas.device.cuDeviceGetName(name, len, dev); }
    @Override public int cuDeviceTotalMem_v2(long bytes, int dev) { return areas.device.cuDeviceTotalMem_v2(bytes, dev); }
    @Override public int cuDeviceTotalMem(long bytes, int dev) { return areas.device.cuDeviceTotalMem(bytes, dev); }
    @Override public int cuDeviceGetAttribute(long pi, int attrib, int dev) { return areas.device.cuDeviceGetAttribute(pi, attrib, dev); }
    @Override public int cuDeviceComputeCapability(long major, long minor, int dev) { return areas.device.cuDeviceComputeCapability(major, minor, dev); }
    @Override public int cuDeviceGetUuid(long uuid, int dev) { return areas.device.cuDeviceGetUuid(uuid, dev); }
    @Override public int cuDeviceGetPCIBusId(long pciBusId, int len, int dev) { return areas.device.cuDeviceGetPCIBusId(pciBusId, len, dev); }
    @Override public int cuDeviceGetByPCIBusId(long dev, long pciBusId) { return areas.device.cuDeviceGetByPCIBusId(dev, pciBusId); }
    @Override public int cuDeviceCanAccessPeer(long canAccessPeer, int dev, int peerDev) { return areas.device.cuDeviceCanAccessPeer(canAccessPeer, dev, peerDev); }
    @Override public int cuDeviceGetProperties(long prop, int dev) { return areas.device.cuDeviceGetProperties(prop, dev); }
    @Override public int cuGetErrorName(int error, long pStr) { return areas.device.cuGetErrorName(error, pStr); }
    @Override public int cuGetErrorString(int error, long pStr) { return areas.device.cuGetErrorString(error, pStr); }
    @Override public int cuGetProcAddress_v2(long symbol, long pfn, int cudaVersion, long flags, long symbolStatus) { return areas.device.cuGetProcAddress_v2(symbol, pfn, cudaVersion, flags, symbolStatus); }
    @Override public int cuGetProcAddress(long symbol, long pfn, int cudaVersion, long flags) { return areas.device.cuGetProcAddress(symbol, pfn, cudaVersion, flags); }
    @Override public int cuDeviceGetUuid_v2(long uuid, int dev) { return cuDeviceGetUuid(uuid, dev); }
    @Override public int cuCtxCreate_v2(long pctx, int flags, int dev) { return areas.context.cuCtxCreate_v2(pctx, flags, dev); }
    @Override public int cuCtxCreate_v3(long pctx, long paramsArray, int numParams, int flags, int dev) { return areas.context.cuCtxCreate_v3(pctx, paramsArray, numParams, flags, dev); }
    @Override public int cuCtxCreate_v4(long pctx, long ctxCreateParams, int flags, int dev) { return areas.context.cuCtxCreate_v4(pctx, ctxCreateParams, flags, dev); }
    @Override public int cuCtxDestroy_v2(long ctx) { flush(); return areas.context.cuCtxDestroy_v2(ctx); }
    @Override public int cuCtxPushCurrent_v2(long ctx) { return areas.context.cuCtxPushCurrent_v2(ctx); }
    @Override public int cuCtxPopCurrent_v2(long pctx) { return areas.context.cuCtxPopCurrent_v2(pctx); }
    @Override public int cuCtxSetCurrent(long ctx) { return areas.context.cuCtxSetCurrent(ctx); }
    @Override public int cuCtxGetCurrent(long pctx) { return areas.context.cuCtxGetCurrent(pctx); }
    @Override public int cuCtxGetDevice(long device) { return areas.context.cuCtxGetDevice(device); }
    @Override public int cuCtxGetDevice_v2(long device, long ctx) { return areas.context.cuCtxGetDevice_v2(device, ctx); }
    @Override public int cuCtxGetFlags(long flags) { return areas.context.cuCtxGetFlags(flags); }
    @Override public int cuCtxSetFlags(int flags) { return areas.context.cuCtxSetFlags(flags); }
    @Override public int cuCtxGetId(long ctx, long ctxId) { return areas.context.cuCtxGetId(ctx, ctxId); }
    @Override public int cuCtxGetApiVersion(long ctx, long version) { return areas.context.cuCtxGetApiVersion(ctx, version); }
    @Override public int cuCtxSynchronize() { return flushed(areas.context.cuCtxSynchronize()); }
    @Override public int cuCtxSynchronize_v2(long ctx) { return flushed(areas.context.cuCtxSynchronize_v2(ctx)); }
    @Override public int cuCtxGetLimit(long pvalue, int limit) { return areas.context.cuCtxGetLimit(pvalue, limit); }
    @Override public int cuCtxSetLimit(int limit, long value) { return areas.context.cuCtxSetLimit(limit, value); }
    @Override public int cuCtxGetCacheConfig(long pconfig) { return areas.context.cuCtxGetCacheConfig(pconfig); }
    @Override public int cuCtxSetCacheConfig(int config) { return areas.context.cuCtxSetCacheConfig(config); }
    @Override public int cuCtxGetStreamPriorityRange(long leastPriority, long greatestPriority) { return areas.context.cuCtxGetStreamPriorityRange(leastPriority, greatestPriority); }
    @Override public int cuCtxGetSharedMemConfig(long pConfig) { return areas.context.cuCtxGetSharedMemConfig(pConfig); }
    @Override public int cuCtxSetSharedMemConfig(int config) { return areas.context.cuCtxSetSharedMemConfig(config); }
    @Override public int cuDevicePrimaryCtxRetain(long pctx, int dev) { return areas.context.cuDevicePrimaryCtxRetain(pctx, dev); }
    @Override public int cuDevicePrimaryCtxRelease_v2(int dev) { return areas.context.cuDevicePrimaryCtxRelease_v2(dev); }
    @Override public int cuDevicePrimaryCtxReset_v2(int dev) { flush(); return areas.context.cuDevicePrimaryCtxReset_v2(dev); }
    @Override public int cuDevicePrimaryCtxGetState(int dev, long flags, long active) { return areas.context.cuDevicePrimaryCtxGetState(dev, flags, active); }
    @Override public int cuDevicePrimaryCtxSetFlags_v2(int dev, int flags) { return areas.context.cuDevicePrimaryCtxSetFlags_v2(dev, flags); }
    @Override public int cuCtxCreate(long pctx, int flags, int dev) { return cuCtxCreate_v2(pctx, flags, dev); }
    @Override public int cuCtxDestroy(long ctx) { return cuCtxDestroy_v2(ctx); }
    @Override public int cuCtxPushCurrent(long ctx) { return cuCtxPushCurrent_v2(ctx); }
    @Override public int cuCtxPopCurrent(long pctx) { return cuCtxPopCurrent_v2(pctx); }
    @Override public int cuDevicePrimaryCtxRelease(int dev) { return cuDevicePrimaryCtxRelease_v2(dev); }
    @Override public int cuDevicePrimaryCtxReset(int dev) { return cuDevicePrimaryCtxReset_v2(dev); }
    @Override public int cuDevicePrimaryCtxSetFlags(int dev, int flags) { return cuDevicePrimaryCtxSetFlags_v2(dev, flags); }
    @Override public int cuMemAlloc_v2(long dptr, long bytesize) { return areas.memory.cuMemAlloc_v2(dptr, bytesize); }
    @Override public int cuMemFree_v2(long dptr) { return areas.memory.cuMemFree_v2(dptr); }
    @Override public int cuMemAllocPitch_v2(long dptr, long pPitch, long WidthInBytes, long Height, int ElementSizeBytes) { return areas.memory.cuMemAllocPitch_v2(dptr, pPitch, WidthInBytes, Height, ElementSizeBytes); }
    @Override public int cuMemAllocManaged(long dptr, long bytesize, int flags) { return areas.memory.cuMemAllocManaged(dptr, bytesize, flags); }
    @Override public int cuMemGetInfo_v2(long free, long total) { return areas.memory.cuMemGetInfo_v2(free, total); }
    @Override public int cuMemGetAddressRange_v2(long pbase, long psize, long dptr) { return areas.memory.cuMemGetAddressRange_v2(pbase, psize, dptr); }
    @Override public int cuMemAllocHost_v2(long pp, long bytesize) { return areas.memory.cuMemAllocHost_v2(pp, bytesize); }
    @Override public int cuMemHostAlloc(long pp, long bytesize, int Flags) { return areas.memory.cuMemHostAlloc(pp, bytesize, Flags); }
    @Override public int cuMemFreeHost(long p) { return areas.memory.cuMemFreeHost(p); }
    @Override public int cuMemHostGetDevicePointer_v2(long pdptr, long p, int Flags) { return areas.memory.cuMemHostGetDevicePointer_v2(pdptr, p, Flags); }
    @Override public int cuMemHostGetFlags(long pFlags, long p) { return areas.memory.cuMemHostGetFlags(pFlags, p); }
    @Override public int cuMemHostRegister_v2(long p, long bytesize, int Flags) { return areas.memory.cuMemHostRegister_v2(p, bytesize, Flags); }
    @Override public int cuMemHostUnregister(long p) { return areas.memory.cuMemHostUnregister(p); }
    @Override public int cuPointerGetAttribute(long data, int attribute, long ptr) { return areas.memory.cuPointerGetAttribute(data, attribute, ptr); }
    @Override public int cuPointerGetAttributes(int numAttributes, long attributes, long data, long ptr) { return areas.memory.cuPointerGetAttributes(numAttributes, attributes, data, ptr); }
    @Override public int cuPointerSetAttribute(long value, int attribute, long ptr) { return areas.memory.cuPointerSetAttribute(value, attribute, ptr); }
    @Override public int cuMemHostRegister(long p, long bytesize, int Flags) { return cuMemHostRegister_v2(p, bytesize, Flags); }
    @Override public int cuMemcpyHtoD_v2(long dstDevice, long srcHost, long ByteCount) { return flushed(areas.copy.cuMemcpyHtoD_v2(dstDevice, srcHost, ByteCount)); }
    @Override public int cuMemcpyDtoH_v2(long dstHost, long srcDevice, long ByteCount) { return flushed(areas.copy.cuMemcpyDtoH_v2(dstHost, srcDevice, ByteCount)); }
    @Override public int cuMemcpyDtoD_v2(long dstDevice, long srcDevice, long ByteCount) { return flushed(areas.copy.cuMemcpyDtoD_v2(dstDevice, srcDevice, ByteCount)); }
    @Override public int cuMemcpy(long dst, long src, long ByteCount) { return flushed(areas.copy.cuMemcpy(dst, src, ByteCount)); }
    @Override public int cuMemcpyPeer(long dstDevice, long dstContext, long srcDevice, long srcContext, long ByteCount) { return areas.copy.cuMemcpyPeer(dstDevice, dstContext, srcDevice, srcContext, ByteCount); }
    @Override public int cuMemcpyHtoDAsync_v2(long dstDevice, long srcHost, long ByteCount, long hStream) { return areas.copy.cuMemcpyHtoDAsync_v2(dstDevice, srcHost, ByteCount, hStream); }
    @Override public int cuMemcpyDtoHAsync_v2(long dstHost, long srcDevice, long ByteCount, long hStream) { return areas.copy.cuMemcpyDtoHAsync_v2(dstHost, srcDevice, ByteCount, hStream); }
    @Override public int cuMemcpyDtoDAsync_v2(long dstDevice, long srcDevice, long ByteCount, long hStream) { return areas.copy.cuMemcpyDtoDAsync_v2(dstDevice, srcDevice, ByteCount, hStream); }
    @Override public int cuMemcpyAsync(long dst, long src, long ByteCount, long hStream) { return areas.copy.cuMemcpyAsync(dst, src, ByteCount, hStream); }
    @Override public int cuMemcpyPeerAsync(long dstDevice, long dstContext, long srcDevice, long srcContext, long ByteCount, long hStream) { return areas.copy.cuMemcpyPeerAsync(dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream); }
    @Override public int cuMemcpy2DAsync_v2(long pCopy, long hStream) { return areas.copy.cuMemcpy2DAsync_v2(pCopy, hStream); }
    @Override public int cuMemcpy3DAsync_v2(long pCopy, long hStream) { return areas.copy.cuMemcpy3DAsync_v2(pCopy, hStream); }
    @Override public int cuMemcpy2D_v2(long pCopy) { return flushed(areas.copy.cuMemcpy2D_v2(pCopy)); }
    @Override public int cuMemcpy3D_v2(long pCopy) { return flushed(areas.copy.cuMemcpy3D_v2(pCopy)); }
    @Override public int cuMemcpyHtoA_v2(long dstArray, long dstOffset, long srcHost, long ByteCount) { return areas.copy.cuMemcpyHtoA_v2(dstArray, dstOffset, srcHost, ByteCount); }
    @Override public int cuMemcpyAtoH_v2(long dstHost, long srcArray, long srcOffset, long ByteCount) { return areas.copy.cuMemcpyAtoH_v2(dstHost, srcArray, srcOffset, ByteCount); }
    @Override public int cuMemcpyDtoA_v2(long dstArray, long dstOffset, long srcDevice, long ByteCount) { return areas.copy.cuMemcpyDtoA_v2(dstArray, dstOffset, srcDevice, ByteCount); }
    @Override public int cuMemcpyAtoD_v2(long dstDevice, long srcArray, long srcOffset, long ByteCount) { return areas.copy.cuMemcpyAtoD_v2(dstDevice, srcArray, srcOffset, ByteCount); }
    @Override public int cuMemcpyAtoA_v2(long dstArray, long dstOffset, long srcArray, long srcOffset, long ByteCount) { return areas.copy.cuMemcpyAtoA_v2(dstArray, dstOffset, srcArray, srcOffset, ByteCount); }
    @Override public int cuMemcpyHtoAAsync_v2(long dstArray, long dstOffset, long srcHost, long ByteCount, long hStream) { return areas.copy.cuMemcpyHtoAAsync_v2(dstArray, dstOffset, srcHost, ByteCount, hStream); }
    @Override public int cuMemcpyAtoHAsync_v2(long dstHost, long srcArray, long srcOffset, long ByteCount, long hStream) { return areas.copy.cuMemcpyAtoHAsync_v2(dstHost, srcArray, srcOffset, ByteCount, hStream); }
    @Override public int cuMemcpyHtoA(long a, int o, long h, int n) { return areas.copy.cuMemcpyHtoA(a, o, h, n); }
    @Override public int cuMemcpyAtoH(long h, long a, int o, int n) { return areas.copy.cuMemcpyAtoH(h, a, o, n); }
    @Override public int cuMemcpyAtoA(long da, int dof, long sa, int sof, int n) { return areas.copy.cuMemcpyAtoA(da, dof, sa, sof, n); }
    @Override public int cuMemcpyHtoAAsync(long a, int o, long h, int n, long s) { return areas.copy.cuMemcpyHtoAAsync(a, o, h, n, s); }
    @Override public int cuMemcpyAtoHAsync(long h, long a, int o, int n, long s) { return areas.copy.cuMemcpyAtoHAsync(h, a, o, n, s); }
    @Override public int cuMemsetD8_v2(long dstDevice, int uc, long N) { return areas.copy.cuMemsetD8_v2(dstDevice, uc, N); }
    @Override public int cuMemsetD16_v2(long dstDevice, int us, long N) { return areas.copy.cuMemsetD16_v2(dstDevice, us, N); }
    @Override public int cuMemsetD32_v2(long dstDevice, int ui, long N) { return areas.copy.cuMemsetD32_v2(dstDevice, ui, N); }
    @Override public int cuMemsetD2D8_v2(long dstDevice, long dstPitch, int uc, long Width, long Height) { return areas.copy.cuMemsetD2D8_v2(dstDevice, dstPitch, uc, Width, Height); }
    @Override public int cuMemsetD2D16_v2(long dstDevice, long dstPitch, int us, long Width, long Height) { return areas.copy.cuMemsetD2D16_v2(dstDevice, dstPitch, us, Width, Height); }
    @Override public int cuMemsetD2D32_v2(long dstDevice, long dstPitch, int ui, long Width, long Height) { return areas.copy.cuMemsetD2D32_v2(dstDevice, dstPitch, ui, Width, Height); }
    @Override public int cuMemsetD8Async(long d, int v, long n, long st) { return areas.copy.cuMemsetD8Async(d, v, n, st); }
    @Override public int cuMemsetD16Async(long d, int v, long n, long st) { return areas.copy.cuMemsetD16Async(d, v, n, st); }
    @Override public int cuMemsetD32Async(long d, int v, long n, long st) { return areas.copy.cuMemsetD32Async(d, v, n, st); }
    @Override public int cuMemsetD2D8Async(long d, long p, int v, long w, long h, long st) { return areas.copy.cuMemsetD2D8Async(d, p, v, w, h, st); }
    @Override public int cuMemsetD2D16Async(long d, long p, int v, long w, long h, long st) { return areas.copy.cuMemsetD2D16Async(d, p, v, w, h, st); }
    @Override public int cuMemsetD2D32Async(long d, long p, int v, long w, long h, long st) { return areas.copy.cuMemsetD2D32Async(d, p, v, w, h, st); }
    @Override public int cuMemcpy2DUnaligned_v2(long pCopy) { return cuMemcpy2D_v2(pCopy); }
    @Override public int cuMemcpy2DAsync_v2_ptsz(long pCopy, long hStream) { return cuMemcpy2DAsync_v2(pCopy, hStream); }
    @Override public int cuMemcpy2DUnaligned_v2_ptds(long pCopy) { return cuMemcpy2DUnaligned_v2(pCopy); }
    @Override public int cuMemcpy2D_v2_ptds(long pCopy) { return cuMemcpy2D_v2(pCopy); }
    @Override public int cuMemcpy3DAsync_v2_ptsz(long pCopy, long hStream) { return cuMemcpy3DAsync_v2(pCopy, hStream); }
    @Override public int cuMemcpy3D_v2_ptds(long pCopy) { return cuMemcpy3D_v2(pCopy); }
    @Override public int cuMemcpyAsync_ptsz(long dst, long src, long ByteCount, long hStream) { return cuMemcpyAsync(dst, src, ByteCount, hStream); }
    @Override public int cuMemcpyAtoA_v2_ptds(long dstArray, long dstOffset, long srcArray, long srcOffset, long ByteCount) { return cuMemcpyAtoA_v2(dstArray, dstOffset, srcArray, srcOffset, ByteCount); }
    @Override public int cuMemcpyAtoD_v2_ptds(long dstDevice, long srcArray, long srcOffset, long ByteCount) { return cuMemcpyAtoD_v2(dstDevice, srcArray, srcOffset, ByteCount); }
    @Override public int cuMemcpyAtoHAsync_v2_ptsz(long dstHost, long srcArray, long srcOffset, long ByteCount, long hStream) { return cuMemcpyAtoHAsync_v2(dstHost, srcArray, srcOffset, ByteCount, hStream); }
    @Override public int cuMemcpyAtoH_v2_ptds(long dstHost, long srcArray, long srcOffset, long ByteCount) { return cuMemcpyAtoH_v2(dstHost, srcArray, srcOffset, ByteCount); }
    @Override public int cuMemcpyDtoA_v2_ptds(long dstArray, long dstOffset, long srcDevice, long ByteCount) { return cuMemcpyDtoA_v2(dstArray, dstOffset, srcDevice, ByteCount); }
    @Override public int cuMemcpyDtoDAsync_v2_ptsz(long dstDevice, long srcDevice, long ByteCount, long hStream) { return cuMemcpyDtoDAsync_v2(dstDevice, srcDevice, ByteCount, hStream); }
    @Override public int cuMemcpyDtoD_v2_ptds(long dstDevice, long srcDevice, long ByteCount) { return cuMemcpyDtoD_v2(dstDevice, srcDevice, ByteCount); }
    @Override public int cuMemcpyDtoHAsync_v2_ptsz(long dstHost, long srcDevice, long ByteCount, long hStream) { return cuMemcpyDtoHAsync_v2(dstHost, srcDevice, ByteCount, hStream); }
    @Override public int cuMemcpyDtoH_v2_ptds(long dstHost, long srcDevice, long ByteCount) { return cuMemcpyDtoH_v2(dstHost, srcDevice, ByteCount); }
    @Override public int cuMemcpyHtoAAsync_v2_ptsz(long dstArray, long dstOffset, long srcHost, long ByteCount, long hStream) { return cuMemcpyHtoAAsync_v2(dstArray, dstOffset, srcHost, ByteCount, hStream); }
    @Override public int cuMemcpyHtoA_v2_ptds(long dstArray, long dstOffset, long srcHost, long ByteCount) { return cuMemcpyHtoA_v2(dstArray, dstOffset, srcHost, ByteCount); }
    @Override public int cuMemcpyHtoDAsync_v2_ptsz(long dstDevice, long srcHost, long ByteCount, long hStream) { return cuMemcpyHtoDAsync_v2(dstDevice, srcHost, ByteCount, hStream); }
    @Override public int cuMemcpyHtoD_v2_ptds(long dstDevice, long srcHost, long ByteCount) { return cuMemcpyHtoD_v2(dstDevice, srcHost, ByteCount); }
    @Override public int cuMemcpyPeerAsync_ptsz(long dstDevice, long dstContext, long srcDevice, long srcContext, long ByteCount, long hStream) { return cuMemcpyPeerAsync(dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream); }
    @Override public int cuMemcpyPeer_ptds(long dstDevice, long dstContext, long srcDevice, long srcContext, long ByteCount) { return cuMemcpyPeer(dstDevice, dstContext, srcDevice, srcContext, ByteCount); }
    @Override public int cuMemcpy_ptds(long dst, long src, long ByteCount) { return cuMemcpy(dst, src, ByteCount); }
    @Override public int cuMemsetD16Async_ptsz(long d, int v, long n, long st) { return cuMemsetD16Async(d, v, n, st); }
    @Override public int cuMemsetD16_v2_ptds(long dstDevice, int us, long N) { return cuMemsetD16_v2(dstDevice, us, N); }
    @Override public int cuMemsetD2D16Async_ptsz(long d, long p, int v, long w, long h, long st) { return cuMemsetD2D16Async(d, p, v, w, h, st); }
    @Override public int cuMemsetD2D16_v2_ptds(long dstDevice, long dstPitch, int us, long Width, long Height) { return cuMemsetD2D16_v2(dstDevice, dstPitch, us, Width, Height); }
    @Override public int cuMemsetD2D32Async_ptsz(long d, long p, int v, long w, long h, long st) { return cuMemsetD2D32Async(d, p, v, w, h, st); }
    @Override public int cuMemsetD2D32_v2_ptds(long dstDevice, long dstPitch, int ui, long Width, long Height) { return cuMemsetD2D32_v2(dstDevice, dstPitch, ui, Width, Height); }
    @Override public int cuMemsetD2D8Async_ptsz(long d, long p, int v, long w, long h, long st) { return cuMemsetD2D8Async(d, p, v, w, h, st); }
    @Override public int cuMemsetD2D8_v2_ptds(long dstDevice, long dstPitch, int uc, long Width, long Height) { return cuMemsetD2D8_v2(dstDevice, dstPitch, uc, Width, Height); }
    @Override public int cuMemsetD32Async_ptsz(long d, int v, long n, long st) { return cuMemsetD32Async(d, v, n, st); }
    @Override public int cuMemsetD32_v2_ptds(long dstDevice, int ui, long N) { return cuMemsetD32_v2(dstDevice, ui, N); }
    @Override public int cuMemsetD8Async_ptsz(long d, int v, long n, long st) { return cuMemsetD8Async(d, v, n, st); }
    @Override public int cuMemsetD8_v2_ptds(long dstDevice, int uc, long N) { return cuMemsetD8_v2(dstDevice, uc, N); }
    @Override public int cuStreamCreate(long phStream, int Flags) { return areas.stream.cuStreamCreate(phStream, Flags); }
    @Override public int cuStreamCreateWithPriority(long phStream, int flags, int priority) { return areas.stream.cuStreamCreateWithPriority(phStream, flags, priority); }
    @Override public int cuStreamDestroy_v2(long hStream) { return areas.stream.cuStreamDestroy_v2(hStream); }
    @Override public int cuStreamSynchronize(long hStream) { return flushed(areas.stream.cuStreamSynchronize(hStream)); }
    @Override public int cuStreamQuery(long hStream) { return areas.stream.cuStreamQuery(hStream); }
    @Override public int cuStreamGetFlags(long hStream, long flags) { return areas.stream.cuStreamGetFlags(hStream, flags); }
    @Override public int cuStreamGetPriority(long hStream, long priority) { return areas.stream.cuStreamGetPriority(hStream, priority); }
    @Override public int cuStreamGetId(long hStream, long streamId) { return areas.stream.cuStreamGetId(hStream, streamId); }
    @Override public int cuStreamGetCtx(long hStream, long pctx) { return areas.stream.cuStreamGetCtx(hStream, pctx); }
    @Override public int cuStreamGetDevice(long hStream, long device) { return areas.stream.cuStreamGetDevice(hStream, device); }
    @Override public int cuLaunchHostFunc(long hStream, long fn, long userData) { flush(); return areas.stream.cuLaunchHostFunc(hStream, fn, userData); }
    @Override public int cuStreamAddCallback(long hStream, long callback, long userData, int flags) { flush(); return areas.stream.cuStreamAddCallback(hStream, callback, userData, flags); }
    @Override public int cuStreamGetAttribute(long hStream, int attr, long value) { return areas.stream.cuStreamGetAttribute(hStream, attr, value); }
    @Override public int cuStreamSetAttribute(long hStream, int attr, long param) { return areas.stream.cuStreamSetAttribute(hStream, attr, param); }
    @Override public int cuStreamCopyAttributes(long dstStream, long srcStream) { return areas.stream.cuStreamCopyAttributes(dstStream, srcStream); }
    @Override public int cuStreamGetCtx_v2(long hStream, long pCtx, long pGreenCtx) { return areas.stream.cuStreamGetCtx_v2(hStream, pCtx, pGreenCtx); }
    @Override public int cuStreamIsCapturing(long hStream, long captureStatus) { return areas.stream.cuStreamIsCapturing(hStream, captureStatus); }
    @Override public int cuThreadExchangeStreamCaptureMode(long mode) { return areas.stream.cuThreadExchangeStreamCaptureMode(mode); }
    @Override public int cuStreamDestroy(long hStream) { return cuStreamDestroy_v2(hStream); }
    @Override public int cuLaunchHostFunc_ptsz(long hStream, long fn, long userData) { return cuLaunchHostFunc(hStream, fn, userData); }
    @Override public int cuStreamAddCallback_ptsz(long hStream, long callback, long userData, int flags) { return cuStreamAddCallback(hStream, callback, userData, flags); }
    @Override public int cuStreamCopyAttributes_ptsz(long dstStream, long srcStream) { return cuStreamCopyAttributes(dstStream, srcStream); }
    @Override public int cuStreamGetAttribute_ptsz(long hStream, int attr, long value) { return cuStreamGetAttribute(hStream, attr, value); }
    @Override public int cuStreamGetCtx_ptsz(long hStream, long pctx) { return cuStreamGetCtx(hStream, pctx); }
    @Override public int cuStreamGetCtx_v2_ptsz(long hStream, long pCtx, long pGreenCtx) { return cuStreamGetCtx_v2(hStream, pCtx, pGreenCtx); }
    @Override public int cuStreamGetDevice_ptsz(long hStream, long device) { return cuStreamGetDevice(hStream, device); }
    @Override public int cuStreamGetFlags_ptsz(long hStream, long flags) { return cuStreamGetFlags(hStream, flags); }
    @Override public int cuStreamGetId_ptsz(long hStream, long streamId) { return cuStreamGetId(hStream, streamId); }
    @Override public int cuStreamGetPriority_ptsz(long hStream, long priority) { return cuStreamGetPriority(hStream, priority); }
    @Override public int cuStreamIsCapturing_ptsz(long hStream, long captureStatus) { return cuStreamIsCapturing(hStream, captureStatus); }
    @Override public int cuStreamQuery_ptsz(long hStream) { return cuStreamQuery(hStream); }
    @Override public int cuStreamSetAttribute_ptsz(long hStream, int attr, long param) { return cuStreamSetAttribute(hStream, attr, param); }
    @Override public int cuStreamSynchronize_ptsz(long hStream) { return cuStreamSynchronize(hStream); }
    @Override public int cuEventCreate(long phEvent, int Flags) { return areas.event.cuEventCreate(phEvent, Flags); }
    @Override public int cuEventDestroy_v2(long hEvent) { return areas.event.cuEventDestroy_v2(hEvent); }
    @Override public int cuEventRecord(long hEvent, long hStream) { return areas.event.cuEventRecord(hEvent, hStream); }
    @Override public int cuEventRecordWithFlags(long hEvent, long hStream, int flags) { return areas.event.cuEventRecordWithFlags(hEvent, hStream, flags); }
    @Override public int cuEventQuery(long hEvent) { return areas.event.cuEventQuery(hEvent); }
    @Override public int cuEventSynchronize(long hEvent) { return flushed(areas.event.cuEventSynchronize(hEvent)); }
    @Override public int cuEventElapsedTime(long pMilliseconds, long hStart, long hEnd) { return areas.event.cuEventElapsedTime(pMilliseconds, hStart, hEnd); }
    @Override public int cuStreamWaitEvent(long hStream, long hEvent, int Flags) { return areas.event.cuStreamWaitEvent(hStream, hEvent, Flags); }
    @Override public int cuCtxRecordEvent(long hCtx, long hEvent) { return areas.event.cuCtxRecordEvent(hCtx, hEvent); }
    @Override public int cuCtxWaitEvent(long hCtx, long hEvent) { return areas.event.cuCtxWaitEvent(hCtx, hEvent); }
    @Override public int cuEventDestroy(long hEvent) { return cuEventDestroy_v2(hEvent); }
    @Override public int cuEventElapsedTime_v2(long pMilliseconds, long hStart, long hEnd) { return cuEventElapsedTime(pMilliseconds, hStart, hEnd); }
    @Override public int cuEventRecordWithFlags_ptsz(long hEvent, long hStream, int flags) { return cuEventRecordWithFlags(hEvent, hStream, flags); }
    @Override public int cuEventRecord_ptsz(long hEvent, long hStream) { return cuEventRecord(hEvent, hStream); }
    @Override public int cuStreamWaitEvent_ptsz(long hStream, long hEvent, int Flags) { return cuStreamWaitEvent(hStream, hEvent, Flags); }
    @Override public int cuArrayCreate_v2(long pHandle, long desc) { return areas.array.cuArrayCreate_v2(pHandle, desc); }
    @Override public int cuArrayCreate(long pHandle, long desc) { return areas.array.cuArrayCreate(pHandle, desc); }
    @Override public int cuArray3DCreate_v2(long pHandle, long desc) { return areas.array.cuArray3DCreate_v2(pHandle, desc); }
    @Override public int cuArray3DCreate(long pHandle, long desc) { return areas.array.cuArray3DCreate(pHandle, desc); }
    @Override public int cuArrayDestroy(long hArray) { return areas.array.cuArrayDestroy(hArray); }
    @Override public int cuArrayGetDescriptor_v2(long desc, long hArray) { return areas.array.cuArrayGetDescriptor_v2(desc, hArray); }
    @Override public int cuArrayGetDescriptor(long desc, long hArray) { return areas.array.cuArrayGetDescriptor(desc, hArray); }
    @Override public int cuArray3DGetDescriptor_v2(long desc, long hArray) { return areas.array.cuArray3DGetDescriptor_v2(desc, hArray); }
    @Override public int cuArray3DGetDescriptor(long desc, long hArray) { return areas.array.cuArray3DGetDescriptor(desc, hArray); }
    @Override public int cuModuleLoadData(long module, long image) { return flushed(areas.module.cuModuleLoadData(module, image)); }
    @Override public int cuModuleLoadDataEx(long module, long image, int numOptions, long options, long optionValues) { return flushed(areas.module.cuModuleLoadDataEx(module, image, numOptions, options, optionValues)); }
    @Override public int cuModuleLoadFatBinary(long module, long fatCubin) { return areas.module.cuModuleLoadFatBinary(module, fatCubin); }
    @Override public int cuModuleLoad(long module, long fname) { return areas.module.cuModuleLoad(module, fname); }
    @Override public int cuModuleUnload(long hmod) { return flushed(areas.module.cuModuleUnload(hmod)); }
    @Override public int cuModuleGetFunction(long hfunc, long hmod, long name) { return areas.module.cuModuleGetFunction(hfunc, hmod, name); }
    @Override public int cuModuleGetFunctionCount(long count, long mod) { return areas.module.cuModuleGetFunctionCount(count, mod); }
    @Override public int cuModuleEnumerateFunctions(long functionsOut, int numFunctions, long mod) { return areas.module.cuModuleEnumerateFunctions(functionsOut, numFunctions, mod); }
    @Override public int cuModuleGetGlobal_v2(long dptr, long bytes, long hmod, long name) { return areas.module.cuModuleGetGlobal_v2(dptr, bytes, hmod, name); }
    @Override public int cuLibraryLoadData(long library, long code, long jitOptions, long jitOptionsValues, int numJitOptions, long libraryOptions, long libraryOptionValues, int numLibraryOptions) { return flushed(areas.library.cuLibraryLoadData(library, code, jitOptions, jitOptionsValues, numJitOptions, libraryOptions, libraryOptionValues, numLibraryOptions)); }
    @Override public int cuLibraryLoadFromFile(long library, long fileName, long jitOptions, long jitOptionsValues, int numJitOptions, long libraryOptions, long libraryOptionValues, int numLibraryOptions) { return areas.library.cuLibraryLoadFromFile(library, fileName, jitOptions, jitOptionsValues, numJitOptions, libraryOptions, libraryOptionValues, numLibraryOptions); }
    @Override public int cuLibraryUnload(long library) { return flushed(areas.library.cuLibraryUnload(library)); }
    @Override public int cuLibraryGetKernel(long pKernel, long library, long name) { return areas.library.cuLibraryGetKernel(pKernel, library, name); }
    @Override public int cuLibraryGetKernelCount(long count, long lib) { return areas.library.cuLibraryGetKernelCount(count, lib); }
    @Override public int cuLibraryEnumerateKernels(long kernels, int numKernels, long lib) { return areas.library.cuLibraryEnumerateKernels(kernels, numKernels, lib); }
    @Override public int cuLibraryGetModule(long pMod, long library) { return areas.library.cuLibraryGetModule(pMod, library); }
    @Override public int cuLibraryGetGlobal(long dptr, long bytes, long library, long name) { return areas.library.cuLibraryGetGlobal(dptr, bytes, library, name); }
    @Override public int cuKernelGetFunction(long pFunc, long kernel) { return areas.library.cuKernelGetFunction(pFunc, kernel); }
    @Override public int cuKernelGetLibrary(long pLib, long kernel) { return areas.library.cuKernelGetLibrary(pLib, kernel); }
    @Override public int cuKernelGetName(long name, long hfunc) { return areas.library.cuKernelGetName(name, hfunc); }
    @Override public int cuFuncGetAttribute(long pi, int attrib, long hfunc) { return areas.function.cuFuncGetAttribute(pi, attrib, hfunc); }
    @Override public int cuFuncSetAttribute(long hfunc, int attrib, int value) { return areas.function.cuFuncSetAttribute(hfunc, attrib, value); }
    @Override public int cuFuncSetCacheConfig(long hfunc, int config) { return areas.function.cuFuncSetCacheConfig(hfunc, config); }
    @Override public int cuFuncSetSharedMemConfig(long hfunc, int config) { return areas.function.cuFuncSetSharedMemConfig(hfunc, config); }
    @Override public int cuFuncGetModule(long hmod, long hfunc) { return areas.function.cuFuncGetModule(hmod, hfunc); }
    @Override public int cuFuncGetName(long name, long hfunc) { return areas.function.cuFuncGetName(name, hfunc); }
    @Override public int cuFuncGetParamInfo(long func, long paramIndex, long paramOffset, long paramSize) { return areas.function.cuFuncGetParamInfo(func, paramIndex, paramOffset, paramSize); }
    @Override public int cuFuncIsLoaded(long pState, long function) { return areas.function.cuFuncIsLoaded(pState, function); }
    @Override public int cuFuncLoad(long function) { return areas.function.cuFuncLoad(function); }
    @Override public int cuOccupancyMaxActiveBlocksPerMultiprocessor(long numBlocks, long func, int blockSize, long dynamicSMemSize) { return areas.function.cuOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, func, blockSize, dynamicSMemSize); }
    @Override public int cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(long numBlocks, long func, int blockSize, long dynamicSMemSize, int flags) { return areas.function.cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize, flags); }
    @Override public int cuOccupancyMaxPotentialBlockSize(long minGridSize, long blockSize, long func, long blockSizeToDynamicSMemSize, long dynamicSMemSize, int blockSizeLimit) { return areas.function.cuOccupancyMaxPotentialBlockSize(minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize, blockSizeLimit); }
    @Override public int cuOccupancyMaxPotentialBlockSizeWithFlags(long minGridSize, long blockSize, long func, long blockSizeToDynamicSMemSize, long dynamicSMemSize, int blockSizeLimit, int flags) { return areas.function.cuOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize, blockSizeLimit, flags); }
    @Override public int cuOccupancyAvailableDynamicSMemPerBlock(long dynamicSmemSize, long func, int numBlocks, int blockSize) { return areas.function.cuOccupancyAvailableDynamicSMemPerBlock(dynamicSmemSize, func, numBlocks, blockSize); }
    @Override public int cuKernelGetParamInfo(long kernel, long paramIndex, long paramOffset, long paramSize) { return areas.function.cuKernelGetParamInfo(kernel, paramIndex, paramOffset, paramSize); }
    @Override public int cuKernelGetAttribute(long pi, int attrib, long kernel, int dev) { return areas.function.cuKernelGetAttribute(pi, attrib, kernel, dev); }
    @Override public int cuKernelSetAttribute(int attrib, int val, long kernel, int dev) { return areas.function.cuKernelSetAttribute(attrib, val, kernel, dev); }
    @Override public int cuKernelSetCacheConfig(long kernel, int config, int dev) { return areas.function.cuKernelSetCacheConfig(kernel, config, dev); }
    @Override public int cuLaunchKernel(long f, int gridDimX, int gridDimY, int gridDimZ, int blockDimX, int blockDimY, int blockDimZ, int sharedMemBytes, long hStream, long kernelParams, long extra) { flush(); return areas.launch.cuLaunchKernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams, extra); }
    @Override public int cuLaunchKernelEx(long config, long f, long kernelParams, long extra) { flush(); return areas.launch.cuLaunchKernelEx(config, f, kernelParams, extra); }
    @Override public int cuFuncSetBlockShape(long hfunc, int x, int y, int z) { return areas.launch.cuFuncSetBlockShape(hfunc, x, y, z); }
    @Override public int cuFuncSetSharedSize(long hfunc, int bytes) { return areas.launch.cuFuncSetSharedSize(hfunc, bytes); }
    @Override public int cuParamSetSize(long hfunc, int numbytes) { return areas.launch.cuParamSetSize(hfunc, numbytes); }
    @Override public int cuParamSeti(long hfunc, int offset, int value) { return areas.launch.cuParamSeti(hfunc, offset, value); }
    @Override public int cuParamSetf(long hfunc, int offset, float value) { return areas.launch.cuParamSetf(hfunc, offset, value); }
    @Override public int cuParamSetv(long hfunc, int offset, long ptr, int numbytes) { return areas.launch.cuParamSetv(hfunc, offset, ptr, numbytes); }
    @Override public int cuLaunch(long f) { return areas.launch.cuLaunch(f); }
    @Override public int cuLaunchGrid(long f, int grid_width, int grid_height) { return areas.launch.cuLaunchGrid(f, grid_width, grid_height); }
    @Override public int cuLaunchGridAsync(long f, int grid_width, int grid_height, long hStream) { return areas.launch.cuLaunchGridAsync(f, grid_width, grid_height, hStream); }
    @Override public int cuLaunchKernelEx_ptsz(long config, long f, long kernelParams, long extra) { return cuLaunchKernelEx(config, f, kernelParams, extra); }
    @Override public int cuLaunchKernel_ptsz(long f, int gridDimX, int gridDimY, int gridDimZ, int blockDimX, int blockDimY, int blockDimZ, int sharedMemBytes, long hStream, long kernelParams, long extra) { return cuLaunchKernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams, extra); }
    @Override public int cuDeviceGetDefaultMemPool(long poolOut, int dev) { return areas.pool.cuDeviceGetDefaultMemPool(poolOut, dev); }
    @Override public int cuDeviceGetMemPool(long pool, int dev) { return areas.pool.cuDeviceGetMemPool(pool, dev); }
    @Override public int cuDeviceSetMemPool(int dev, long pool) { return areas.pool.cuDeviceSetMemPool(dev, pool); }
    @Override public int cuMemPoolCreate(long pool, long poolPropsPtr) { return areas.pool.cuMemPoolCreate(pool, poolPropsPtr); }
    @Override public int cuMemPoolDestroy(long pool) { return areas.pool.cuMemPoolDestroy(pool); }
    @Override public int cuMemPoolGetAttribute(long pool, int attr, long value) { return areas.pool.cuMemPoolGetAttribute(pool, attr, value); }
    @Override public int cuMemPoolSetAttribute(long pool, int attr, long value) { return areas.pool.cuMemPoolSetAttribute(pool, attr, value); }
    @Override public int cuMemPoolTrimTo(long pool, long minBytesToKeep) { return areas.pool.cuMemPoolTrimTo(pool, minBytesToKeep); }
    @Override public int cuMemPoolSetAccess(long pool, long map, long count) { return areas.pool.cuMemPoolSetAccess(pool, map, count); }
    @Override public int cuMemPoolGetAccess(long flags, long memPool, long location) { return areas.pool.cuMemPoolGetAccess(flags, memPool, location); }
    @Override public int cuMemAllocAsync(long dptr, long bytesize, long hStream) { return areas.pool.cuMemAllocAsync(dptr, bytesize, hStream); }
    @Override public int cuMemAllocFromPoolAsync(long dptr, long bytesize, long pool, long hStream) { return areas.pool.cuMemAllocFromPoolAsync(dptr, bytesize, pool, hStream); }
    @Override public int cuMemFreeAsync(long dptr, long hStream) { return areas.pool.cuMemFreeAsync(dptr, hStream); }
    @Override public int cuMemAllocAsync_ptsz(long dptr, long bytesize, long hStream) { return cuMemAllocAsync(dptr, bytesize, hStream); }
    @Override public int cuMemAllocFromPoolAsync_ptsz(long dptr, long bytesize, long pool, long hStream) { return cuMemAllocFromPoolAsync(dptr, bytesize, pool, hStream); }
    @Override public int cuMemFreeAsync_ptsz(long dptr, long hStream) { return cuMemFreeAsync(dptr, hStream); }
    @Override public int cuMemAdvise(long devPtr, long count, int advice, int device) { return areas.hint.cuMemAdvise(devPtr, count, advice, device); }
    @Override public int cuMemAdvise_v2(long devPtr, long count, int advice, long location) { return areas.hint.cuMemAdvise_v2(devPtr, count, advice, location); }
    @Override public int cuMemPrefetchAsync(long devPtr, long count, int dstDevice, long hStream) { return areas.hint.cuMemPrefetchAsync(devPtr, count, dstDevice, hStream); }
    @Override public int cuMemPrefetchAsync_v2(long devPtr, long count, long location, int flags, long hStream) { return areas.hint.cuMemPrefetchAsync_v2(devPtr, count, location, flags, hStream); }
    @Override public int cuStreamAttachMemAsync(long hStream, long dptr, long length, int flags) { return areas.hint.cuStreamAttachMemAsync(hStream, dptr, length, flags); }
    @Override public int cuProfilerStart() { return areas.hint.cuProfilerStart(); }
    @Override public int cuProfilerStop() { return areas.hint.cuProfilerStop(); }
    @Override public int cuCtxResetPersistingL2Cache() { return areas.hint.cuCtxResetPersistingL2Cache(); }
    @Override public int cuMemPrefetchAsync_ptsz(long devPtr, long count, int dstDevice, long hStream) { return cuMemPrefetchAsync(devPtr, count, dstDevice, hStream); }
    @Override public int cuMemPrefetchAsync_v2_ptsz(long devPtr, long count, long location, int flags, long hStream) { return cuMemPrefetchAsync_v2(devPtr, count, location, flags, hStream); }
    @Override public int cuStreamAttachMemAsync_ptsz(long hStream, long dptr, long length, int flags) { return cuStreamAttachMemAsync(hStream, dptr, length, flags); }
    @Override public int cuTexObjectCreate(long pTexObject, long pResDesc, long pTexDesc, long pResViewDesc) { return areas.texture.cuTexObjectCreate(pTexObject, pResDesc, pTexDesc, pResViewDesc); }
    @Override public int cuTexObjectDestroy(long texObject) { return areas.texture.cuTexObjectDestroy(texObject); }
    @Override public int cuTexObjectGetResourceDesc(long pResDesc, long texObject) { return areas.texture.cuTexObjectGetResourceDesc(pResDesc, texObject); }
    @Override public int cuTexObjectGetTextureDesc(long pTexDesc, long texObject) { return areas.texture.cuTexObjectGetTextureDesc(pTexDesc, texObject); }
    @Override public int cuSurfObjectCreate(long pSurfObject, long pResDesc) { return areas.texture.cuSurfObjectCreate(pSurfObject, pResDesc); }
    @Override public int cuSurfObjectDestroy(long surfObject) { return areas.texture.cuSurfObjectDestroy(surfObject); }
    @Override public int cuSurfObjectGetResourceDesc(long pResDesc, long surfObject) { return areas.texture.cuSurfObjectGetResourceDesc(pResDesc, surfObject); }
    @Override public int cuGetExportTable(long ppExportTable, long pExportTableId) { return areas.exportTable.cuGetExportTable(ppExportTable, pExportTableId); }
}
