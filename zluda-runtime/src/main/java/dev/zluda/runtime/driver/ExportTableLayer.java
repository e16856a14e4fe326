package dev.zluda.runtime.driver;

import dev.zluda.runtime.image.ModuleImage;
import dev.zluda.runtime.image.ModuleImageException;
import dev.zluda.spec.CudaApi;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static dev.zluda.runtime.driver.CuResult.*;
import static dev.zluda.runtime.driver.Native.at;
import static dev.zluda.runtime.driver.Native.putLong;

/**
 * {@code cuGetExportTable} and the undocumented tables ("dark API") the CUDA runtime relies on.
 * Which tables and slots exist and what they mean: shared/reference/cuda-facts.md, "Export tables".
 *
 * <p>The tables are C arrays of C function pointers in {@code libcuda.so.1}
 * (zluda-runtime/src/main/c/export_tables.c). The first {@code cuGetExportTable} finds them
 * through the library's {@code zluda_export_tables} function and registers an FFM upcall,
 * {@link #ext}, through which the slots that need the driver's state enter Java; slots that return
 * constants are answered in C. Served tables: CUDART_INTERFACE (modules from fatbins, the primary
 * context, "load compilers"), TOOLS_RUNTIME_CALLBACK_HOOKS, TOOLS_TLS, CONTEXT_LOCAL_STORAGE,
 * INTEGRITY_CHECK and CONTEXT_CHECKS. Any other table is {@code CUDA_ERROR_NOT_FOUND}, with one
 * {@code [ZLUDA]} line per GUID on stderr (except the one cudart 13 asks first and is known to
 * tolerate missing); a slot without known meaning prints one line and returns
 * {@code CUDA_ERROR_NOT_SUPPORTED}.
 */
abstract class ExportTableLayer implements dev.zluda.runtime.api.CudaDriverApi {
    /** CUDA_ERROR_INVALID_IMAGE: a module image that is malformed. */
    static final int INVALID_IMAGE = 200;
    /** CUDA_ERROR_NO_BINARY_FOR_GPU: an image without PTX the device can run. */
    static final int NO_BINARY_FOR_GPU = 209;

    /** Table numbers: the order in which export_tables.c's {@code zluda_export_tables} lists them. */
    static final int T_CUDART_INTERFACE = 0, T_TOOLS_RUNTIME_CALLBACK_HOOKS = 1, T_TOOLS_TLS = 2,
            T_CONTEXT_LOCAL_STORAGE = 3, T_INTEGRITY_CHECK = 4, T_CONTEXT_CHECKS = 5;
    /** Names of the served tables, by table number. */
    static final List<String> TABLE_NAMES = List.of("CUDART_INTERFACE", "TOOLS_RUNTIME_CALLBACK_HOOKS", "TOOLS_TLS",
            "CONTEXT_LOCAL_STORAGE", "INTEGRITY_CHECK", "CONTEXT_CHECKS");
    /** GUIDs of the served tables (16 bytes in memory order, as hex), by table number. */
    static final List<String> TABLE_GUIDS = List.of(
            "6bd5fb6c5bf4e74a8987d93912fd9df9",
            "a094798c2e742e7493f20800200c0a66",
            "42d85a8123f6cb478298f6e78a3aecdc",
            "c693336e1121df11a8c368f355d89593",
            "d4082055bde6704b8d34ba123c66e1f2",
            "263e88607cd2614392f6bbd5006dfa7e");
    /** Tables known by name that zluda does not serve (CUDA_ERROR_NOT_FOUND). */
    static final Map<String, String> UNSERVED = Map.of(
            "0ca50b8c1004929a89a7d0df10e77286", "CTX_CREATE_BYPASS",
            "195bcbf4d67d024aacc51d29cea631ae", "HEAP_ACCESS",
            "b10541e1f7c7c74a9f64f223be99f1e2", "DEVICE_EXTENDED_RT",
            "dd9e98a4f410484499b0e2aeb7b432b5", "HYBRID_CUDART (Windows)");
    /** Asked for first by cudart 13; answering "not found" is tolerated, so it is not reported. */
    static final String CUDART13_PROBE = "f8cff95121468b4eb9e2fb469e7c0dd9";

    private static final HexFormat HEX = HexFormat.of();

    private final Object tablesLock = new Object();
    /** Table addresses by table number; null until found; empty when there is no native library. */
    private volatile long[] tables;
    private final Set<String> reportedGuids = ConcurrentHashMap.newKeySet();
    private final Set<String> reportedSlots = ConcurrentHashMap.newKeySet();
    /** Context-local storage: per context, key → (value, destructor), in insertion order. */
    private final Map<Context, Map<Long, ClsEntry>> storage = new ConcurrentHashMap<>();
    /** PTX texts handed to cuModuleLoadData, by image address; never freed while the process runs. */
    private final Map<Long, MemorySegment> ptxTexts = new ConcurrentHashMap<>();
    private static volatile MethodHandle destructorCall;

    private record ClsEntry(long value, long destructor) {}

    /** The shared driver state. */
    final DriverState state;
    final DeviceArea deviceArea;
    final ContextArea contextArea;
    final MemoryArea memoryArea;
    final StreamArea streamArea;
    final EventArea eventArea;
    final CopyArea copyArea;
    final ModuleArea moduleArea;
    final LibraryArea libraryArea;
    final FunctionArea functionArea;
    final LaunchArea launchArea;
    /** The contexts, streams and events by handle (their areas' tables). */
    final Handles<Context> contexts;
    final Handles<StreamArea.Stream> streams;
    final Handles<EventArea.Event> events;

    // ---------------------------------------------------------------- moved to areas (transitional forwarders)
    @Override public int cuInit(int flags) { return deviceArea.cuInit(flags); }
    @Override public int cuDriverGetVersion(long driverVersion) { return deviceArea.cuDriverGetVersion(driverVersion); }
    @Override public int cuModuleGetLoadingMode(long mode) { return deviceArea.cuModuleGetLoadingMode(mode); }
    @Override public int cuDeviceGetCount(long count) { return deviceArea.cuDeviceGetCount(count); }
    @Override public int cuDeviceGet(long device, int ordinal) { return deviceArea.cuDeviceGet(device, ordinal); }
    @Override public int cuDeviceGetName(long name, int len, int dev) { return deviceArea.cuDeviceGetName(name, len, dev); }
    @Override public int cuDeviceTotalMem_v2(long bytes, int dev) { return deviceArea.cuDeviceTotalMem_v2(bytes, dev); }
    @Override public int cuDeviceTotalMem(long bytes, int dev) { return deviceArea.cuDeviceTotalMem(bytes, dev); }
    @Override public int cuDeviceGetAttribute(long pi, int attrib, int dev) { return deviceArea.cuDeviceGetAttribute(pi, attrib, dev); }
    @Override public int cuDeviceComputeCapability(long major, long minor, int dev) { return deviceArea.cuDeviceComputeCapability(major, minor, dev); }
    @Override public int cuDeviceGetUuid(long uuid, int dev) { return deviceArea.cuDeviceGetUuid(uuid, dev); }
    @Override public int cuDeviceGetPCIBusId(long pciBusId, int len, int dev) { return deviceArea.cuDeviceGetPCIBusId(pciBusId, len, dev); }
    @Override public int cuDeviceGetByPCIBusId(long dev, long pciBusId) { return deviceArea.cuDeviceGetByPCIBusId(dev, pciBusId); }
    @Override public int cuDeviceCanAccessPeer(long canAccessPeer, int dev, int peerDev) { return deviceArea.cuDeviceCanAccessPeer(canAccessPeer, dev, peerDev); }
    @Override public int cuDeviceGetProperties(long prop, int dev) { return deviceArea.cuDeviceGetProperties(prop, dev); }
    @Override public int cuGetErrorName(int error, long pStr) { return deviceArea.cuGetErrorName(error, pStr); }
    @Override public int cuGetErrorString(int error, long pStr) { return deviceArea.cuGetErrorString(error, pStr); }
    @Override public int cuGetProcAddress_v2(long symbol, long pfn, int cudaVersion, long flags, long symbolStatus) { return deviceArea.cuGetProcAddress_v2(symbol, pfn, cudaVersion, flags, symbolStatus); }
    @Override public int cuGetProcAddress(long symbol, long pfn, int cudaVersion, long flags) { return deviceArea.cuGetProcAddress(symbol, pfn, cudaVersion, flags); }
    @Override public int cuDeviceGetUuid_v2(long uuid, int dev) { return cuDeviceGetUuid(uuid, dev); }
    @Override public int cuCtxCreate_v2(long pctx, int flags, int dev) { return contextArea.cuCtxCreate_v2(pctx, flags, dev); }
    @Override public int cuCtxCreate_v3(long pctx, long paramsArray, int numParams, int flags, int dev) { return contextArea.cuCtxCreate_v3(pctx, paramsArray, numParams, flags, dev); }
    @Override public int cuCtxCreate_v4(long pctx, long ctxCreateParams, int flags, int dev) { return contextArea.cuCtxCreate_v4(pctx, ctxCreateParams, flags, dev); }
    @Override public int cuCtxDestroy_v2(long ctx) { return contextArea.cuCtxDestroy_v2(ctx); }
    @Override public int cuCtxPushCurrent_v2(long ctx) { return contextArea.cuCtxPushCurrent_v2(ctx); }
    @Override public int cuCtxPopCurrent_v2(long pctx) { return contextArea.cuCtxPopCurrent_v2(pctx); }
    @Override public int cuCtxSetCurrent(long ctx) { return contextArea.cuCtxSetCurrent(ctx); }
    @Override public int cuCtxGetCurrent(long pctx) { return contextArea.cuCtxGetCurrent(pctx); }
    @Override public int cuCtxGetDevice(long device) { return contextArea.cuCtxGetDevice(device); }
    @Override public int cuCtxGetDevice_v2(long device, long ctx) { return contextArea.cuCtxGetDevice_v2(device, ctx); }
    @Override public int cuCtxGetFlags(long flags) { return contextArea.cuCtxGetFlags(flags); }
    @Override public int cuCtxSetFlags(int flags) { return contextArea.cuCtxSetFlags(flags); }
    @Override public int cuCtxGetId(long ctx, long ctxId) { return contextArea.cuCtxGetId(ctx, ctxId); }
    @Override public int cuCtxGetApiVersion(long ctx, long version) { return contextArea.cuCtxGetApiVersion(ctx, version); }
    @Override public int cuCtxSynchronize() { return contextArea.cuCtxSynchronize(); }
    @Override public int cuCtxSynchronize_v2(long ctx) { return contextArea.cuCtxSynchronize_v2(ctx); }
    @Override public int cuCtxGetLimit(long pvalue, int limit) { return contextArea.cuCtxGetLimit(pvalue, limit); }
    @Override public int cuCtxSetLimit(int limit, long value) { return contextArea.cuCtxSetLimit(limit, value); }
    @Override public int cuCtxGetCacheConfig(long pconfig) { return contextArea.cuCtxGetCacheConfig(pconfig); }
    @Override public int cuCtxSetCacheConfig(int config) { return contextArea.cuCtxSetCacheConfig(config); }
    @Override public int cuCtxGetStreamPriorityRange(long leastPriority, long greatestPriority) { return contextArea.cuCtxGetStreamPriorityRange(leastPriority, greatestPriority); }
    @Override public int cuCtxGetSharedMemConfig(long pConfig) { return contextArea.cuCtxGetSharedMemConfig(pConfig); }
    @Override public int cuCtxSetSharedMemConfig(int config) { return contextArea.cuCtxSetSharedMemConfig(config); }
    @Override public int cuDevicePrimaryCtxRetain(long pctx, int dev) { return contextArea.cuDevicePrimaryCtxRetain(pctx, dev); }
    @Override public int cuDevicePrimaryCtxRelease_v2(int dev) { return contextArea.cuDevicePrimaryCtxRelease_v2(dev); }
    @Override public int cuDevicePrimaryCtxReset_v2(int dev) { return contextArea.cuDevicePrimaryCtxReset_v2(dev); }
    @Override public int cuDevicePrimaryCtxGetState(int dev, long flags, long active) { return contextArea.cuDevicePrimaryCtxGetState(dev, flags, active); }
    @Override public int cuDevicePrimaryCtxSetFlags_v2(int dev, int flags) { return contextArea.cuDevicePrimaryCtxSetFlags_v2(dev, flags); }
    @Override public int cuCtxCreate(long pctx, int flags, int dev) { return cuCtxCreate_v2(pctx, flags, dev); }
    @Override public int cuCtxDestroy(long ctx) { return cuCtxDestroy_v2(ctx); }
    @Override public int cuCtxPushCurrent(long ctx) { return cuCtxPushCurrent_v2(ctx); }
    @Override public int cuCtxPopCurrent(long pctx) { return cuCtxPopCurrent_v2(pctx); }
    @Override public int cuDevicePrimaryCtxRelease(int dev) { return cuDevicePrimaryCtxRelease_v2(dev); }
    @Override public int cuDevicePrimaryCtxReset(int dev) { return cuDevicePrimaryCtxReset_v2(dev); }
    @Override public int cuDevicePrimaryCtxSetFlags(int dev, int flags) { return cuDevicePrimaryCtxSetFlags_v2(dev, flags); }
    @Override public int cuMemAlloc_v2(long dptr, long bytesize) { return memoryArea.cuMemAlloc_v2(dptr, bytesize); }
    @Override public int cuMemFree_v2(long dptr) { return memoryArea.cuMemFree_v2(dptr); }
    @Override public int cuMemAllocPitch_v2(long dptr, long pPitch, long WidthInBytes, long Height, int ElementSizeBytes) { return memoryArea.cuMemAllocPitch_v2(dptr, pPitch, WidthInBytes, Height, ElementSizeBytes); }
    @Override public int cuMemAllocManaged(long dptr, long bytesize, int flags) { return memoryArea.cuMemAllocManaged(dptr, bytesize, flags); }
    @Override public int cuMemGetInfo_v2(long free, long total) { return memoryArea.cuMemGetInfo_v2(free, total); }
    @Override public int cuMemGetAddressRange_v2(long pbase, long psize, long dptr) { return memoryArea.cuMemGetAddressRange_v2(pbase, psize, dptr); }
    @Override public int cuMemAllocHost_v2(long pp, long bytesize) { return memoryArea.cuMemAllocHost_v2(pp, bytesize); }
    @Override public int cuMemHostAlloc(long pp, long bytesize, int Flags) { return memoryArea.cuMemHostAlloc(pp, bytesize, Flags); }
    @Override public int cuMemFreeHost(long p) { return memoryArea.cuMemFreeHost(p); }
    @Override public int cuMemHostGetDevicePointer_v2(long pdptr, long p, int Flags) { return memoryArea.cuMemHostGetDevicePointer_v2(pdptr, p, Flags); }
    @Override public int cuMemHostGetFlags(long pFlags, long p) { return memoryArea.cuMemHostGetFlags(pFlags, p); }
    @Override public int cuMemHostRegister_v2(long p, long bytesize, int Flags) { return memoryArea.cuMemHostRegister_v2(p, bytesize, Flags); }
    @Override public int cuMemHostUnregister(long p) { return memoryArea.cuMemHostUnregister(p); }
    @Override public int cuPointerGetAttribute(long data, int attribute, long ptr) { return memoryArea.cuPointerGetAttribute(data, attribute, ptr); }
    @Override public int cuPointerGetAttributes(int numAttributes, long attributes, long data, long ptr) { return memoryArea.cuPointerGetAttributes(numAttributes, attributes, data, ptr); }
    @Override public int cuPointerSetAttribute(long value, int attribute, long ptr) { return memoryArea.cuPointerSetAttribute(value, attribute, ptr); }
    @Override public int cuMemHostRegister(long p, long bytesize, int Flags) { return cuMemHostRegister_v2(p, bytesize, Flags); }
    @Override public int cuMemcpyHtoD_v2(long dstDevice, long srcHost, long ByteCount) { return copyArea.cuMemcpyHtoD_v2(dstDevice, srcHost, ByteCount); }
    @Override public int cuMemcpyDtoH_v2(long dstHost, long srcDevice, long ByteCount) { return copyArea.cuMemcpyDtoH_v2(dstHost, srcDevice, ByteCount); }
    @Override public int cuMemcpyDtoD_v2(long dstDevice, long srcDevice, long ByteCount) { return copyArea.cuMemcpyDtoD_v2(dstDevice, srcDevice, ByteCount); }
    @Override public int cuMemcpy(long dst, long src, long ByteCount) { return copyArea.cuMemcpy(dst, src, ByteCount); }
    @Override public int cuMemcpyPeer(long dstDevice, long dstContext, long srcDevice, long srcContext, long ByteCount) { return copyArea.cuMemcpyPeer(dstDevice, dstContext, srcDevice, srcContext, ByteCount); }
    @Override public int cuMemcpyHtoDAsync_v2(long dstDevice, long srcHost, long ByteCount, long hStream) { return copyArea.cuMemcpyHtoDAsync_v2(dstDevice, srcHost, ByteCount, hStream); }
    @Override public int cuMemcpyDtoHAsync_v2(long dstHost, long srcDevice, long ByteCount, long hStream) { return copyArea.cuMemcpyDtoHAsync_v2(dstHost, srcDevice, ByteCount, hStream); }
    @Override public int cuMemcpyDtoDAsync_v2(long dstDevice, long srcDevice, long ByteCount, long hStream) { return copyArea.cuMemcpyDtoDAsync_v2(dstDevice, srcDevice, ByteCount, hStream); }
    @Override public int cuMemcpyAsync(long dst, long src, long ByteCount, long hStream) { return copyArea.cuMemcpyAsync(dst, src, ByteCount, hStream); }
    @Override public int cuMemcpyPeerAsync(long dstDevice, long dstContext, long srcDevice, long srcContext, long ByteCount, long hStream) { return copyArea.cuMemcpyPeerAsync(dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream); }
    @Override public int cuMemcpy2D_v2(long pCopy) { return copyArea.cuMemcpy2D_v2(pCopy); }
    @Override public int cuMemcpy3D_v2(long pCopy) { return copyArea.cuMemcpy3D_v2(pCopy); }
    @Override public int cuMemcpy2DAsync_v2(long pCopy, long hStream) { return copyArea.cuMemcpy2DAsync_v2(pCopy, hStream); }
    @Override public int cuMemcpy3DAsync_v2(long pCopy, long hStream) { return copyArea.cuMemcpy3DAsync_v2(pCopy, hStream); }
    @Override public int cuMemsetD8_v2(long dstDevice, int uc, long N) { return copyArea.cuMemsetD8_v2(dstDevice, uc, N); }
    @Override public int cuMemsetD16_v2(long dstDevice, int us, long N) { return copyArea.cuMemsetD16_v2(dstDevice, us, N); }
    @Override public int cuMemsetD32_v2(long dstDevice, int ui, long N) { return copyArea.cuMemsetD32_v2(dstDevice, ui, N); }
    @Override public int cuMemsetD2D8_v2(long dstDevice, long dstPitch, int uc, long Width, long Height) { return copyArea.cuMemsetD2D8_v2(dstDevice, dstPitch, uc, Width, Height); }
    @Override public int cuMemsetD2D16_v2(long dstDevice, long dstPitch, int us, long Width, long Height) { return copyArea.cuMemsetD2D16_v2(dstDevice, dstPitch, us, Width, Height); }
    @Override public int cuMemsetD2D32_v2(long dstDevice, long dstPitch, int ui, long Width, long Height) { return copyArea.cuMemsetD2D32_v2(dstDevice, dstPitch, ui, Width, Height); }
    @Override public int cuMemsetD8Async(long d, int v, long n, long st) { return copyArea.cuMemsetD8Async(d, v, n, st); }
    @Override public int cuMemsetD16Async(long d, int v, long n, long st) { return copyArea.cuMemsetD16Async(d, v, n, st); }
    @Override public int cuMemsetD32Async(long d, int v, long n, long st) { return copyArea.cuMemsetD32Async(d, v, n, st); }
    @Override public int cuMemsetD2D8Async(long d, long p, int v, long w, long h, long st) { return copyArea.cuMemsetD2D8Async(d, p, v, w, h, st); }
    @Override public int cuMemsetD2D16Async(long d, long p, int v, long w, long h, long st) { return copyArea.cuMemsetD2D16Async(d, p, v, w, h, st); }
    @Override public int cuMemsetD2D32Async(long d, long p, int v, long w, long h, long st) { return copyArea.cuMemsetD2D32Async(d, p, v, w, h, st); }
    @Override public int cuMemcpy2DUnaligned_v2(long pCopy) { return cuMemcpy2D_v2(pCopy); }
    @Override public int cuMemcpy2DAsync_v2_ptsz(long pCopy, long hStream) { return cuMemcpy2DAsync_v2(pCopy, hStream); }
    @Override public int cuMemcpy2DUnaligned_v2_ptds(long pCopy) { return cuMemcpy2DUnaligned_v2(pCopy); }
    @Override public int cuMemcpy2D_v2_ptds(long pCopy) { return cuMemcpy2D_v2(pCopy); }
    @Override public int cuMemcpy3DAsync_v2_ptsz(long pCopy, long hStream) { return cuMemcpy3DAsync_v2(pCopy, hStream); }
    @Override public int cuMemcpy3D_v2_ptds(long pCopy) { return cuMemcpy3D_v2(pCopy); }
    @Override public int cuMemcpyAsync_ptsz(long dst, long src, long ByteCount, long hStream) { return cuMemcpyAsync(dst, src, ByteCount, hStream); }
    @Override public int cuMemcpyDtoDAsync_v2_ptsz(long dstDevice, long srcDevice, long ByteCount, long hStream) { return cuMemcpyDtoDAsync_v2(dstDevice, srcDevice, ByteCount, hStream); }
    @Override public int cuMemcpyDtoD_v2_ptds(long dstDevice, long srcDevice, long ByteCount) { return cuMemcpyDtoD_v2(dstDevice, srcDevice, ByteCount); }
    @Override public int cuMemcpyDtoHAsync_v2_ptsz(long dstHost, long srcDevice, long ByteCount, long hStream) { return cuMemcpyDtoHAsync_v2(dstHost, srcDevice, ByteCount, hStream); }
    @Override public int cuMemcpyDtoH_v2_ptds(long dstHost, long srcDevice, long ByteCount) { return cuMemcpyDtoH_v2(dstHost, srcDevice, ByteCount); }
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
    @Override public int cuStreamCreate(long phStream, int Flags) { return streamArea.cuStreamCreate(phStream, Flags); }
    @Override public int cuStreamCreateWithPriority(long phStream, int flags, int priority) { return streamArea.cuStreamCreateWithPriority(phStream, flags, priority); }
    @Override public int cuStreamDestroy_v2(long hStream) { return streamArea.cuStreamDestroy_v2(hStream); }
    @Override public int cuStreamSynchronize(long hStream) { return streamArea.cuStreamSynchronize(hStream); }
    @Override public int cuStreamQuery(long hStream) { return streamArea.cuStreamQuery(hStream); }
    @Override public int cuStreamGetFlags(long hStream, long flags) { return streamArea.cuStreamGetFlags(hStream, flags); }
    @Override public int cuStreamGetPriority(long hStream, long priority) { return streamArea.cuStreamGetPriority(hStream, priority); }
    @Override public int cuStreamGetId(long hStream, long streamId) { return streamArea.cuStreamGetId(hStream, streamId); }
    @Override public int cuStreamGetCtx(long hStream, long pctx) { return streamArea.cuStreamGetCtx(hStream, pctx); }
    @Override public int cuStreamGetDevice(long hStream, long device) { return streamArea.cuStreamGetDevice(hStream, device); }
    @Override public int cuLaunchHostFunc(long hStream, long fn, long userData) { return streamArea.cuLaunchHostFunc(hStream, fn, userData); }
    @Override public int cuStreamAddCallback(long hStream, long callback, long userData, int flags) { return streamArea.cuStreamAddCallback(hStream, callback, userData, flags); }
    @Override public int cuStreamGetAttribute(long hStream, int attr, long value) { return streamArea.cuStreamGetAttribute(hStream, attr, value); }
    @Override public int cuStreamSetAttribute(long hStream, int attr, long param) { return streamArea.cuStreamSetAttribute(hStream, attr, param); }
    @Override public int cuStreamCopyAttributes(long dstStream, long srcStream) { return streamArea.cuStreamCopyAttributes(dstStream, srcStream); }
    @Override public int cuStreamGetCtx_v2(long hStream, long pCtx, long pGreenCtx) { return streamArea.cuStreamGetCtx_v2(hStream, pCtx, pGreenCtx); }
    @Override public int cuStreamIsCapturing(long hStream, long captureStatus) { return streamArea.cuStreamIsCapturing(hStream, captureStatus); }
    @Override public int cuThreadExchangeStreamCaptureMode(long mode) { return streamArea.cuThreadExchangeStreamCaptureMode(mode); }
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
    @Override public int cuEventCreate(long phEvent, int Flags) { return eventArea.cuEventCreate(phEvent, Flags); }
    @Override public int cuEventDestroy_v2(long hEvent) { return eventArea.cuEventDestroy_v2(hEvent); }
    @Override public int cuEventRecord(long hEvent, long hStream) { return eventArea.cuEventRecord(hEvent, hStream); }
    @Override public int cuEventRecordWithFlags(long hEvent, long hStream, int flags) { return eventArea.cuEventRecordWithFlags(hEvent, hStream, flags); }
    @Override public int cuEventQuery(long hEvent) { return eventArea.cuEventQuery(hEvent); }
    @Override public int cuEventSynchronize(long hEvent) { return eventArea.cuEventSynchronize(hEvent); }
    @Override public int cuEventElapsedTime(long pMilliseconds, long hStart, long hEnd) { return eventArea.cuEventElapsedTime(pMilliseconds, hStart, hEnd); }
    @Override public int cuStreamWaitEvent(long hStream, long hEvent, int Flags) { return eventArea.cuStreamWaitEvent(hStream, hEvent, Flags); }
    @Override public int cuCtxRecordEvent(long hCtx, long hEvent) { return eventArea.cuCtxRecordEvent(hCtx, hEvent); }
    @Override public int cuCtxWaitEvent(long hCtx, long hEvent) { return eventArea.cuCtxWaitEvent(hCtx, hEvent); }
    @Override public int cuEventDestroy(long hEvent) { return cuEventDestroy_v2(hEvent); }
    @Override public int cuEventElapsedTime_v2(long pMilliseconds, long hStart, long hEnd) { return cuEventElapsedTime(pMilliseconds, hStart, hEnd); }
    @Override public int cuEventRecordWithFlags_ptsz(long hEvent, long hStream, int flags) { return cuEventRecordWithFlags(hEvent, hStream, flags); }
    @Override public int cuEventRecord_ptsz(long hEvent, long hStream) { return cuEventRecord(hEvent, hStream); }
    @Override public int cuStreamWaitEvent_ptsz(long hStream, long hEvent, int Flags) { return cuStreamWaitEvent(hStream, hEvent, Flags); }
    @Override public int cuModuleLoadData(long module, long image) { return moduleArea.cuModuleLoadData(module, image); }
    @Override public int cuModuleLoadDataEx(long module, long image, int numOptions, long options, long optionValues) { return moduleArea.cuModuleLoadDataEx(module, image, numOptions, options, optionValues); }
    @Override public int cuModuleLoadFatBinary(long module, long fatCubin) { return moduleArea.cuModuleLoadFatBinary(module, fatCubin); }
    @Override public int cuModuleLoad(long module, long fname) { return moduleArea.cuModuleLoad(module, fname); }
    @Override public int cuModuleUnload(long hmod) { return moduleArea.cuModuleUnload(hmod); }
    @Override public int cuModuleGetFunction(long hfunc, long hmod, long name) { return moduleArea.cuModuleGetFunction(hfunc, hmod, name); }
    @Override public int cuModuleGetFunctionCount(long count, long mod) { return moduleArea.cuModuleGetFunctionCount(count, mod); }
    @Override public int cuModuleEnumerateFunctions(long functionsOut, int numFunctions, long mod) { return moduleArea.cuModuleEnumerateFunctions(functionsOut, numFunctions, mod); }
    @Override public int cuModuleGetGlobal_v2(long dptr, long bytes, long hmod, long name) { return moduleArea.cuModuleGetGlobal_v2(dptr, bytes, hmod, name); }
    @Override public int cuLibraryLoadData(long library, long code, long jitOptions, long jitOptionsValues, int numJitOptions, long libraryOptions, long libraryOptionValues, int numLibraryOptions) { return libraryArea.cuLibraryLoadData(library, code, jitOptions, jitOptionsValues, numJitOptions, libraryOptions, libraryOptionValues, numLibraryOptions); }
    @Override public int cuLibraryLoadFromFile(long library, long fileName, long jitOptions, long jitOptionsValues, int numJitOptions, long libraryOptions, long libraryOptionValues, int numLibraryOptions) { return libraryArea.cuLibraryLoadFromFile(library, fileName, jitOptions, jitOptionsValues, numJitOptions, libraryOptions, libraryOptionValues, numLibraryOptions); }
    @Override public int cuLibraryUnload(long library) { return libraryArea.cuLibraryUnload(library); }
    @Override public int cuLibraryGetKernel(long pKernel, long library, long name) { return libraryArea.cuLibraryGetKernel(pKernel, library, name); }
    @Override public int cuLibraryGetKernelCount(long count, long lib) { return libraryArea.cuLibraryGetKernelCount(count, lib); }
    @Override public int cuLibraryEnumerateKernels(long kernels, int numKernels, long lib) { return libraryArea.cuLibraryEnumerateKernels(kernels, numKernels, lib); }
    @Override public int cuLibraryGetModule(long pMod, long library) { return libraryArea.cuLibraryGetModule(pMod, library); }
    @Override public int cuLibraryGetGlobal(long dptr, long bytes, long library, long name) { return libraryArea.cuLibraryGetGlobal(dptr, bytes, library, name); }
    @Override public int cuKernelGetFunction(long pFunc, long kernel) { return libraryArea.cuKernelGetFunction(pFunc, kernel); }
    @Override public int cuKernelGetLibrary(long pLib, long kernel) { return libraryArea.cuKernelGetLibrary(pLib, kernel); }
    @Override public int cuKernelGetName(long name, long hfunc) { return libraryArea.cuKernelGetName(name, hfunc); }
    @Override public int cuKernelGetParamInfo(long kernel, long paramIndex, long paramOffset, long paramSize) { return functionArea.cuKernelGetParamInfo(kernel, paramIndex, paramOffset, paramSize); }
    @Override public int cuKernelGetAttribute(long pi, int attrib, long kernel, int dev) { return functionArea.cuKernelGetAttribute(pi, attrib, kernel, dev); }
    @Override public int cuKernelSetAttribute(int attrib, int val, long kernel, int dev) { return functionArea.cuKernelSetAttribute(attrib, val, kernel, dev); }
    @Override public int cuKernelSetCacheConfig(long kernel, int config, int dev) { return functionArea.cuKernelSetCacheConfig(kernel, config, dev); }
    @Override public int cuFuncGetAttribute(long pi, int attrib, long hfunc) { return functionArea.cuFuncGetAttribute(pi, attrib, hfunc); }
    @Override public int cuFuncSetAttribute(long hfunc, int attrib, int value) { return functionArea.cuFuncSetAttribute(hfunc, attrib, value); }
    @Override public int cuFuncSetCacheConfig(long hfunc, int config) { return functionArea.cuFuncSetCacheConfig(hfunc, config); }
    @Override public int cuFuncSetSharedMemConfig(long hfunc, int config) { return functionArea.cuFuncSetSharedMemConfig(hfunc, config); }
    @Override public int cuFuncGetModule(long hmod, long hfunc) { return functionArea.cuFuncGetModule(hmod, hfunc); }
    @Override public int cuFuncGetName(long name, long hfunc) { return functionArea.cuFuncGetName(name, hfunc); }
    @Override public int cuFuncGetParamInfo(long func, long paramIndex, long paramOffset, long paramSize) { return functionArea.cuFuncGetParamInfo(func, paramIndex, paramOffset, paramSize); }
    @Override public int cuFuncIsLoaded(long pState, long function) { return functionArea.cuFuncIsLoaded(pState, function); }
    @Override public int cuFuncLoad(long function) { return functionArea.cuFuncLoad(function); }
    @Override public int cuOccupancyMaxActiveBlocksPerMultiprocessor(long numBlocks, long func, int blockSize, long dynamicSMemSize) { return functionArea.cuOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, func, blockSize, dynamicSMemSize); }
    @Override public int cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(long numBlocks, long func, int blockSize, long dynamicSMemSize, int flags) { return functionArea.cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize, flags); }
    @Override public int cuOccupancyMaxPotentialBlockSize(long minGridSize, long blockSize, long func, long blockSizeToDynamicSMemSize, long dynamicSMemSize, int blockSizeLimit) { return functionArea.cuOccupancyMaxPotentialBlockSize(minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize, blockSizeLimit); }
    @Override public int cuOccupancyMaxPotentialBlockSizeWithFlags(long minGridSize, long blockSize, long func, long blockSizeToDynamicSMemSize, long dynamicSMemSize, int blockSizeLimit, int flags) { return functionArea.cuOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize, blockSizeLimit, flags); }
    @Override public int cuOccupancyAvailableDynamicSMemPerBlock(long dynamicSmemSize, long func, int numBlocks, int blockSize) { return functionArea.cuOccupancyAvailableDynamicSMemPerBlock(dynamicSmemSize, func, numBlocks, blockSize); }
    @Override public int cuLaunchKernel(long f, int gridDimX, int gridDimY, int gridDimZ, int blockDimX, int blockDimY, int blockDimZ, int sharedMemBytes, long hStream, long kernelParams, long extra) { return launchArea.cuLaunchKernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams, extra); }
    @Override public int cuLaunchKernelEx(long config, long f, long kernelParams, long extra) { return launchArea.cuLaunchKernelEx(config, f, kernelParams, extra); }
    @Override public int cuFuncSetBlockShape(long hfunc, int x, int y, int z) { return launchArea.cuFuncSetBlockShape(hfunc, x, y, z); }
    @Override public int cuFuncSetSharedSize(long hfunc, int bytes) { return launchArea.cuFuncSetSharedSize(hfunc, bytes); }
    @Override public int cuParamSetSize(long hfunc, int numbytes) { return launchArea.cuParamSetSize(hfunc, numbytes); }
    @Override public int cuParamSeti(long hfunc, int offset, int value) { return launchArea.cuParamSeti(hfunc, offset, value); }
    @Override public int cuParamSetf(long hfunc, int offset, float value) { return launchArea.cuParamSetf(hfunc, offset, value); }
    @Override public int cuParamSetv(long hfunc, int offset, long ptr, int numbytes) { return launchArea.cuParamSetv(hfunc, offset, ptr, numbytes); }
    @Override public int cuLaunch(long f) { return launchArea.cuLaunch(f); }
    @Override public int cuLaunchGrid(long f, int grid_width, int grid_height) { return launchArea.cuLaunchGrid(f, grid_width, grid_height); }
    @Override public int cuLaunchGridAsync(long f, int grid_width, int grid_height, long hStream) { return launchArea.cuLaunchGridAsync(f, grid_width, grid_height, hStream); }
    @Override public int cuLaunchKernelEx_ptsz(long config, long f, long kernelParams, long extra) { return cuLaunchKernelEx(config, f, kernelParams, extra); }
    @Override public int cuLaunchKernel_ptsz(long f, int gridDimX, int gridDimY, int gridDimZ, int blockDimX, int blockDimY, int blockDimZ, int sharedMemBytes, long hStream, long kernelParams, long extra) { return cuLaunchKernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams, extra); }

    @Override
    public int unsupported(int functionId) {
        return state.unsupported(functionId);
    }

    dev.zluda.runtime.backend.Backend backend() {
        return state.backend();
    }

    int checkDevice(int dev) {
        return deviceArea.checkDevice(dev);
    }

    int checkContext() {
        return contextArea.checkContext();
    }

    Context current() {
        return contextArea.current();
    }

    Context primaryContext() {
        return contextArea.primaryContext();
    }

    int checkStream(long hStream) {
        return streamArea.checkStream(hStream);
    }

    int streamDone(long hStream) {
        return streamArea.streamDone(hStream);
    }

    Allocation find(long p, long bytes) {
        return memoryArea.find(p, bytes);
    }

    /** Sets who is told of the driver's own events (the trace layer's MARKER records); null: nobody. */
    public void driverEvents(java.util.function.Consumer<String> sink) {
        state.events(sink);
    }

    /** Sets who sees every kernel launch before and after it runs (the trace layer's kernel snapshots); null: nobody. */
    public void launchObserver(LaunchObserver observer) {
        launchArea.observer(observer);
    }

    final int nextModuleNumber() {
        return moduleArea.nextModuleNumber();
    }

    static String moduleFileName(int number, int entry) {
        return ModuleArea.moduleFileName(number, entry);
    }

    ExportTableLayer(CudaApi api, MemorySegment exports) {
        this.state = new DriverState(api, exports);
        this.deviceArea = new DeviceArea(state);
        this.contextArea = new ContextArea(state, deviceArea);
        this.memoryArea = new MemoryArea(state, contextArea);
        this.streamArea = new StreamArea(state, contextArea);
        this.eventArea = new EventArea(state, contextArea, streamArea);
        this.copyArea = new CopyArea(state, contextArea, memoryArea, streamArea);
        this.moduleArea = new ModuleArea(state, contextArea, memoryArea);
        this.libraryArea = new LibraryArea(state, contextArea, moduleArea);
        this.functionArea = new FunctionArea(state, deviceArea, contextArea, moduleArea, libraryArea);
        this.launchArea = new LaunchArea(state, contextArea, memoryArea, streamArea, eventArea, functionArea);
        this.contexts = contextArea.contexts;
        this.streams = streamArea.streams;
        this.events = eventArea.events;
        contextArea.onRelease(this::release);
    }

    // ------------------------------------------------------------------------- cuGetExportTable

    /**
     * Looks a table up by GUID. No cuInit is needed (cudart asks before it).
     *
     * @param ppExportTable {@code const void**}: receives the table's address, NULL when not found
     * @param pExportTableId {@code const CUuuid*}: 16 bytes
     * @return CUDA_SUCCESS; CUDA_ERROR_INVALID_VALUE for a NULL argument; CUDA_ERROR_NOT_FOUND
     *     for a table zluda does not serve; CUDA_ERROR_NOT_SUPPORTED when the driver runs without
     *     its native library (tables are native code)
     */
    @Override
    public int cuGetExportTable(long ppExportTable, long pExportTableId) {
        if (ppExportTable == 0 || pExportTableId == 0) return INVALID_VALUE;
        String guid = HEX.formatHex(at(pExportTableId, 16).toArray(ValueLayout.JAVA_BYTE));
        int t = TABLE_GUIDS.indexOf(guid);
        if (t < 0) {
            putLong(ppExportTable, 0);
            if (!guid.equals(CUDART13_PROBE) && reportedGuids.add(guid)) {
                String name = UNSERVED.get(guid);
                System.err.println("[ZLUDA] cuGetExportTable: table " + formatGuid(guid) + (name != null ? " (" + name + ")" : " (unknown)")
                        + " is not provided: returning CUDA_ERROR_NOT_FOUND");
            }
            return NOT_FOUND;
        }
        long[] tb = tables();
        if (tb.length == 0) {
            putLong(ppExportTable, 0);
            if (reportedGuids.add(guid)) System.err.println("[ZLUDA] cuGetExportTable: export tables need the native libcuda.so.1: returning CUDA_ERROR_NOT_SUPPORTED");
            return NOT_SUPPORTED;
        }
        putLong(ppExportTable, tb[t]);
        return SUCCESS;
    }

    /** A GUID as hex in memory order, grouped 4-2-2-2-6 like a UUID string. */
    static String formatGuid(String hex) {
        return hex.substring(0, 8) + "-" + hex.substring(8, 12) + "-" + hex.substring(12, 16) + "-" + hex.substring(16, 20) + "-" + hex.substring(20);
    }

    /** The native tables' addresses, found on first use. */
    long[] tables() {
        long[] tb = tables;
        if (tb == null) {
            synchronized (tablesLock) {
                if (tables == null) tables = locateNativeTables();
                tb = tables;
            }
        }
        return tb;
    }

    /** For tests without libcuda.so.1: serve tables at these addresses (by table number). */
    void useTables(long[] addresses) {
        tables = addresses.clone();
    }

    /**
     * Finds {@code zluda_export_tables} in the libcuda.so.1 this driver's exports live in (dladdr of
     * an export, then a lookup in that file, which the loader resolves to the loaded library), and
     * registers {@link #ext} as the upcall of the stateful slots.
     */
    private long[] locateNativeTables() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment pfn = a.allocate(8);
            long fn;
            try {
                if (cuGetProcAddress_v2(a.allocateFrom("cuInit").address(), pfn.address(), 13000, 0, 0) != SUCCESS) return new long[0];
                fn = pfn.get(ValueLayout.JAVA_LONG, 0);
            } catch (RuntimeException noNativeExports) {
                return new long[0]; // a driver made without libcuda.so.1 (tests)
            }
            if (fn == 0) return new long[0];
            Linker linker = Linker.nativeLinker();
            MethodHandle dladdr = linker.downcallHandle(linker.defaultLookup().find("dladdr").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
            StructLayout dlInfo = java.lang.foreign.MemoryLayout.structLayout(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS);
            MemorySegment info = a.allocate(dlInfo);
            if ((int) dladdr.invokeExact(MemorySegment.ofAddress(fn), info) == 0) throw new IllegalStateException("dladdr found no library for cuInit");
            String file = info.get(ValueLayout.ADDRESS, 0).reinterpret(4096).getString(0, StandardCharsets.UTF_8);
            MemorySegment register = SymbolLookup.libraryLookup(Path.of(file), Arena.global()).find("zluda_export_tables")
                    .orElseThrow(() -> new IllegalStateException(file + " lacks zluda_export_tables"));
            MethodHandle reg = linker.downcallHandle(register, FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
            MethodHandle target = MethodHandles.lookup().findVirtual(ExportTableLayer.class, "ext",
                    MethodType.methodType(int.class, int.class, int.class, MemorySegment.class)).bindTo(this);
            MemorySegment stub = linker.upcallStub(target, FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS), Arena.global());
            MemorySegment out = a.allocate(8L * TABLE_NAMES.size());
            int n = (int) reg.invokeExact(stub, out, TABLE_NAMES.size());
            if (n != TABLE_NAMES.size()) throw new IllegalStateException(file + " serves " + n + " export tables, the Java driver expects " + TABLE_NAMES.size());
            return out.toArray(ValueLayout.JAVA_LONG);
        } catch (Throwable t) {
            System.err.println("[ZLUDA] cannot find the export tables in libcuda.so.1: " + t);
            return new long[0];
        }
    }

    // ------------------------------------------------------------------------ slots from C

    /**
     * Entry of the stateful slots from export_tables.c: {@code int (*)(int table, int slot, uint64_t *words)}.
     * Catches every Throwable (returning CUDA_ERROR_UNKNOWN): nothing may cross into C.
     */
    private int ext(int table, int slot, MemorySegment words) {
        try {
            MemorySegment w = words.address() == 0 ? MemorySegment.NULL : words.reinterpret(8 * 5);
            return switch (table) {
                case T_CUDART_INTERFACE -> switch (slot) {
                    case 1 -> cudartModuleFromWrapper(word(w, 0), word(w, 1));
                    case 2 -> cudartPrimaryContext(word(w, 0), (int) word(w, 1));
                    case 6 -> cudartModuleExt(6, word(w, 0), word(w, 1), word(w, 2), word(w, 3), (int) word(w, 4));
                    case 8 -> cudartModuleExt(8, word(w, 1), word(w, 0), word(w, 2), word(w, 3), (int) word(w, 4));
                    default -> unknownSlot(table, slot);
                };
                case T_CONTEXT_LOCAL_STORAGE -> switch (slot) {
                    case 0 -> clsPut(word(w, 0), word(w, 1), word(w, 2), word(w, 3));
                    case 1 -> clsDelete(word(w, 0), word(w, 1));
                    case 2 -> clsGet(word(w, 0), word(w, 1), word(w, 2));
                    default -> unknownSlot(table, slot);
                };
                case T_INTEGRITY_CHECK -> slot == 1
                        ? integrityCheck((int) word(w, 0), word(w, 1), word(w, 2), (int) word(w, 3), (int) word(w, 4))
                        : unknownSlot(table, slot);
                default -> unknownSlot(table, slot);
            };
        } catch (Throwable t) {
            try {
                System.err.println("[ZLUDA] internal error in export table " + tableName(table) + " slot " + slot + ", returning CUDA_ERROR_UNKNOWN: " + t);
                if (System.getenv("ZLUDA_DEBUG") != null) t.printStackTrace();
            } catch (Throwable ignored) {
                // nothing may escape into native code
            }
            return UNKNOWN;
        }
    }

    private static long word(MemorySegment w, int i) {
        return w.get(ValueLayout.JAVA_LONG, 8L * i);
    }

    private static String tableName(int table) {
        return table >= 0 && table < TABLE_NAMES.size() ? TABLE_NAMES.get(table) : "#" + table;
    }

    /** A slot without known meaning: one stderr line per slot, CUDA_ERROR_NOT_SUPPORTED. */
    int unknownSlot(int table, int slot) {
        if (reportedSlots.add(table + "/" + slot)) {
            System.err.println("[ZLUDA] export table " + tableName(table) + " slot " + slot + " is not supported yet: returning CUDA_ERROR_NOT_SUPPORTED");
        }
        return NOT_SUPPORTED;
    }

    // -------------------------------------------------------------------- CUDART_INTERFACE

    /**
     * CUDART_INTERFACE slot 1: loads the module of a fatbin wrapper (what cudart registered for one
     * translation unit) by handing the best PTX for the device to {@code cuModuleLoadData}.
     *
     * @param pmodule {@code CUmodule*} receiving the module
     * @param wrapper the fatbin wrapper (24 bytes, magic 0x466243B1)
     * @return what cuModuleLoadData returns; CUDA_ERROR_INVALID_VALUE for NULL arguments;
     *     CUDA_ERROR_INVALID_IMAGE for a malformed image; CUDA_ERROR_NO_BINARY_FOR_GPU when it has
     *     no PTX for the device or when it holds several fatbins (relocatable device code, which
     *     needs linking)
     */
    int cudartModuleFromWrapper(long pmodule, long wrapper) {
        if (pmodule == 0 || wrapper == 0) return INVALID_VALUE;
        return loadImage(pmodule, wrapper, "CUDART_INTERFACE slot 1");
    }

    /**
     * CUDART_INTERFACE slots 6 (wrapper) and 8 (fatbin header): slot 1 with three more arguments,
     * which are zero in practice; others are refused with CUDA_ERROR_NOT_SUPPORTED.
     */
    int cudartModuleExt(int slot, long pmodule, long image, long a3, long a4, int a5) {
        if (a3 != 0 || a4 != 0 || a5 != 0) {
            if (reportedSlots.add("args/" + slot)) {
                System.err.println("[ZLUDA] export table CUDART_INTERFACE slot " + slot + " with non-zero extra arguments (0x" + Long.toHexString(a3)
                        + ", 0x" + Long.toHexString(a4) + ", " + a5 + ") is not supported yet: returning CUDA_ERROR_NOT_SUPPORTED");
            }
            return NOT_SUPPORTED;
        }
        if (pmodule == 0 || image == 0) return INVALID_VALUE;
        return loadImage(pmodule, image, "CUDART_INTERFACE slot " + slot);
    }

    private volatile ModuleImageObserver moduleImages;

    /**
     * Sets who sees each module image loaded through the export tables (the trace layer's MODULE
     * records); null: nobody.
     */
    public void moduleImageObserver(ModuleImageObserver observer) {
        this.moduleImages = observer;
    }

    private int loadImage(long pmodule, long image, String via) {
        int r = loadImageText(pmodule, image, via);
        ModuleImageObserver o = moduleImages;
        if (o != null) {
            try {
                o.loaded(via, image, r == SUCCESS ? Native.getLong(pmodule) : 0);
            } catch (RuntimeException e) {
                if (System.getenv("ZLUDA_DEBUG") != null) e.printStackTrace();
            }
        }
        return r;
    }

    private int loadImageText(long pmodule, long image, String via) {
        int number = nextModuleNumber(); // as the trace layer numbers this load's dump files
        MemorySegment text;
        int entry;
        try {
            ModuleImage img = ModuleImage.fromAddress(image);
            text = ptxFor(image, img);
            entry = img.entries().indexOf(img.bestPtx(state.attributes.major(), state.attributes.minor())) + 1;
        } catch (ModuleImageException e) {
            System.err.println("[ZLUDA] " + via + ": cannot load the module image @0x" + Long.toHexString(image) + ": " + e.getMessage());
            return switch (e.reason()) {
                case MALFORMED -> INVALID_IMAGE;
                case NO_BINARY_FOR_DEVICE -> NO_BINARY_FOR_GPU;
                case UNSUPPORTED -> NOT_SUPPORTED;
            };
        }
        moduleArea.nextImageName.set(moduleFileName(number, entry));
        try {
            return cuModuleLoadData(pmodule, text.address());
        } finally {
            moduleArea.nextImageName.remove();
        }
    }

    /**
     * The PTX of a module image for this device, NUL-terminated in native memory that lives as long
     * as the process (one copy per image address and text).
     *
     * @param image a fatbin wrapper, fatbin header, or anything {@link ModuleImage#fromAddress} reads
     * @throws ModuleImageException when the image is malformed, has no PTX for the device, or holds
     *     several fatbins (relocatable device code, which needs linking)
     */
    MemorySegment ptxFor(long image) throws ModuleImageException {
        return ptxFor(image, ModuleImage.fromAddress(image));
    }

    private MemorySegment ptxFor(long image, ModuleImage img) throws ModuleImageException {
        if (img.fatbinCount() > 1) {
            throw new ModuleImageException("the image holds " + img.fatbinCount()
                    + " fatbins (relocatable device code, nvcc -rdc), which need linking: not supported yet", ModuleImageException.Reason.UNSUPPORTED);
        }
        byte[] ptx = img.bestPtx(state.attributes.major(), state.attributes.minor()).content();
        return ptxTexts.compute(image, (k, old) -> old != null && sameText(old, ptx) ? old : nulTerminated(ptx));
    }

    private static MemorySegment nulTerminated(byte[] text) {
        MemorySegment s = Arena.global().allocate(text.length + 1L);
        MemorySegment.copy(text, 0, s, ValueLayout.JAVA_BYTE, 0, text.length);
        return s;
    }

    private static boolean sameText(MemorySegment kept, byte[] text) {
        return kept.byteSize() == text.length + 1L && MemorySegment.mismatch(kept, 0, text.length, MemorySegment.ofArray(text), 0, text.length) < 0;
    }

    /**
     * CUDART_INTERFACE slot 2: the device's primary context, created if needed but neither retained
     * nor made current (so cuDevicePrimaryCtxGetState still reports it inactive; ZLUDA's tests).
     *
     * @param pctx {@code CUcontext*} receiving the handle
     * @param dev the device ordinal
     * @return CUDA_SUCCESS, CUDA_ERROR_NOT_INITIALIZED, CUDA_ERROR_INVALID_DEVICE or CUDA_ERROR_INVALID_VALUE
     */
    int cudartPrimaryContext(long pctx, int dev) {
        int r = checkDevice(dev);
        if (r != SUCCESS) return r;
        if (pctx == 0) return INVALID_VALUE;
        putLong(pctx, primaryContext().handle);
        return SUCCESS;
    }

    // --------------------------------------------------------------- CONTEXT_LOCAL_STORAGE

    private Context clsContext(long ctx) {
        if (ctx == 0) return current();
        Context c = contexts.get(ctx);
        return c == null || c.destroyed ? null : c;
    }

    /**
     * CONTEXT_LOCAL_STORAGE slot 0: stores {@code value} under {@code key} in a context, replacing
     * an earlier value (whose destructor is then not called).
     *
     * @param ctx the context; 0 for the current one
     * @param key any pointer-sized key
     * @param value any pointer-sized value
     * @param destructor {@code void (*)(CUcontext, void *key, void *value)} called when the context
     *     is reset or destroyed, or 0
     * @return CUDA_SUCCESS, CUDA_ERROR_NOT_INITIALIZED or CUDA_ERROR_INVALID_CONTEXT
     */
    int clsPut(long ctx, long key, long value, long destructor) {
        if (!state.initialized) return NOT_INITIALIZED;
        Context c = clsContext(ctx);
        if (c == null) return INVALID_CONTEXT;
        Map<Long, ClsEntry> m = storage.computeIfAbsent(c, x -> new LinkedHashMap<>());
        synchronized (m) {
            m.put(key, new ClsEntry(value, destructor));
        }
        return SUCCESS;
    }

    /** CONTEXT_LOCAL_STORAGE slot 1: removes a key (no destructor call); absent keys are no error. Same results as {@link #clsPut}. */
    int clsDelete(long ctx, long key) {
        if (!state.initialized) return NOT_INITIALIZED;
        Context c = clsContext(ctx);
        if (c == null) return INVALID_CONTEXT;
        Map<Long, ClsEntry> m = storage.get(c);
        if (m != null) {
            synchronized (m) {
                m.remove(key);
            }
        }
        return SUCCESS;
    }

    /**
     * CONTEXT_LOCAL_STORAGE slot 2: reads a key.
     *
     * @param pvalue {@code void**} receiving the value
     * @return CUDA_SUCCESS; CUDA_ERROR_INVALID_HANDLE when the key is absent (cuda-facts.md);
     *     CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_NOT_INITIALIZED, CUDA_ERROR_INVALID_CONTEXT
     */
    int clsGet(long pvalue, long ctx, long key) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (pvalue == 0) return INVALID_VALUE;
        Context c = clsContext(ctx);
        if (c == null) return INVALID_CONTEXT;
        Map<Long, ClsEntry> m = storage.get(c);
        ClsEntry e;
        if (m == null) return INVALID_HANDLE;
        synchronized (m) {
            e = m.get(key);
        }
        if (e == null) return INVALID_HANDLE;
        putLong(pvalue, e.value());
        return SUCCESS;
    }

    /** Runs the context-local-storage destructors of a context being reset or destroyed, then frees the rest. */
    void release(Context c) {
        Map<Long, ClsEntry> m = storage.remove(c);
        if (m != null) {
            List<Map.Entry<Long, ClsEntry>> entries;
            synchronized (m) {
                entries = new ArrayList<>(m.entrySet());
            }
            for (Map.Entry<Long, ClsEntry> e : entries) {
                if (e.getValue().destructor() != 0) callDestructor(e.getValue().destructor(), c.handle, e.getKey(), e.getValue().value());
            }
        }
        memoryArea.release(c);
        streamArea.release(c);
        eventArea.release(c);
        moduleArea.release(c);
    }

    private static void callDestructor(long fn, long ctx, long key, long value) {
        try {
            MethodHandle h = destructorCall;
            if (h == null) {
                h = Linker.nativeLinker().downcallHandle(FunctionDescriptor.ofVoid(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
                destructorCall = h;
            }
            h.invokeExact(MemorySegment.ofAddress(fn), ctx, key, value);
        } catch (Throwable t) {
            System.err.println("[ZLUDA] context-local-storage destructor 0x" + Long.toHexString(fn) + " failed: " + t);
        }
    }

    // --------------------------------------------------------------------- INTEGRITY_CHECK

    /**
     * INTEGRITY_CHECK slot 1 ({@link IntegrityCheck}), computed over the addresses of this
     * driver's own tables and function.
     *
     * @param version the caller's version argument
     * @param unixSeconds the caller's time argument
     * @param out {@code u64[2]} receiving the answer
     * @param pid the process id (from C)
     * @param tid {@code pthread_self()} truncated to 32 bits (from C)
     * @return CUDA_SUCCESS or CUDA_ERROR_INVALID_VALUE (NULL out)
     */
    int integrityCheck(int version, long unixSeconds, long out, int pid, int tid) {
        if (out == 0) return INVALID_VALUE;
        long[] tb = tables();
        long cudart = tb.length > T_INTEGRITY_CHECK ? tb[T_CUDART_INTERFACE] : 0;
        long table = tb.length > T_INTEGRITY_CHECK ? tb[T_INTEGRITY_CHECK] : 0;
        long fn = table != 0 ? at(table, 16).get(ValueLayout.JAVA_LONG_UNALIGNED, 8) : 0;
        long[] r = IntegrityCheck.compute(version, unixSeconds, DeviceArea.DRIVER_VERSION, pid, tid, cudart, table, fn, devicesForIntegrity());
        putLong(out, r[0]);
        putLong(out + 8, r[1]);
        return SUCCESS;
    }

    /** Device 0 as the integrity check covers it: its UUID and PCI domain, bus and device ids. */
    List<IntegrityCheck.Device> devicesForIntegrity() {
        var a = state.attributes.byName();
        return List.of(new IntegrityCheck.Device(Arrays.copyOf(DeviceArea.DEVICE_UUID, 16), a.get("PCI_DOMAIN_ID"), a.get("PCI_BUS_ID"), a.get("PCI_DEVICE_ID")));
    }
}
