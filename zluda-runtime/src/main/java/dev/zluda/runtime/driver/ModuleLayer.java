package dev.zluda.runtime.driver;

import dev.zluda.ptx.ParamInfo;
import dev.zluda.runtime.backend.Backend;
import dev.zluda.runtime.backend.BackendException;
import dev.zluda.runtime.emulator.Kernel;
import dev.zluda.runtime.emulator.MemoryMap;
import dev.zluda.runtime.image.ModuleImage;
import dev.zluda.runtime.image.ModuleImageException;
import dev.zluda.spec.CudaApi;
import dev.zluda.spec.CudaRecord;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static dev.zluda.runtime.driver.CuResult.*;
import static dev.zluda.runtime.driver.Native.at;
import static dev.zluda.runtime.driver.Native.getInt;
import static dev.zluda.runtime.driver.Native.getLong;
import static dev.zluda.runtime.driver.Native.putInt;
import static dev.zluda.runtime.driver.Native.putLong;

/**
 * Modules, functions, libraries and kernel launches (CUDA Driver API groups CUDA_MODULE,
 * CUDA_LIBRARY, CUDA_EXEC, CUDA_OCCUPANCY), on the backend cuInit chose ({@link Backend}).
 *
 * <p>Loading: the image (PTX text, a fatbin, a fatbin wrapper, an ELF carrying fatbins) is read by
 * {@link ModuleImage}, which picks the PTX for the device; the PTX is parsed, checked and
 * compiled by the backend at load ({@link Backend#load}). Invalid PTX is
 * CUDA_ERROR_INVALID_PTX (218), PTX the emulator cannot execute CUDA_ERROR_NOT_SUPPORTED (801), a
 * malformed image CUDA_ERROR_INVALID_IMAGE (200), an image without usable PTX
 * CUDA_ERROR_NO_BINARY_FOR_GPU (209); the reasons go to the JIT error log and to stderr as
 * {@code file:line:col: error: ...} lines. Module {@code .global}/{@code .const} variables are
 * device allocations of the module's context, initialised at load.
 *
 * <p>Launching: the shape is checked against the device and the function (CUDA_ERROR_INVALID_VALUE
 * for a zero or too large dimension, too many threads, too much shared memory, missing or
 * conflicting parameters; CUDA_ERROR_INVALID_HANDLE for an unknown function), then the kernel runs
 * to completion before {@code cuLaunchKernel} returns. A kernel that fails (an access outside every
 * allocation, a misaligned access, {@code trap}, a failed device assertion) makes the launch
 * itself succeed, as on NVIDIA hardware, prints {@code [ZLUDA] kernel ...: CTA, thread, PTX line,
 * address} on stderr and leaves the error sticky on the context: every later call that checks the
 * context (the next synchronisation first of all) returns it, until the context is destroyed or,
 * for a primary context, reset.
 *
 * <p>On the hip backend the PTX is compiled for the AMD device's architecture into a code object
 * ({@code HipDevice#compile}: errors of the PTX are CUDA_ERROR_INVALID_PTX, what the lowering refuses
 * CUDA_ERROR_NOT_SUPPORTED, each with its PTX line) and loaded with {@code hipModuleLoadData}; kernels are
 * {@code hipModuleGetFunction}'s, their attributes {@code hipFuncGetAttribute}'s, module variables
 * {@code hipModuleGetGlobal}'s. A launch is checked as above, its parameters packed at their PTX offsets
 * ({@code KernelArgs#pack}) and given to {@code hipModuleLaunchKernel} on the stream's HIP stream; it runs
 * asynchronously, and a fault shows at the next synchronisation as HIP reports it. Kernel snapshots
 * ({@link LaunchObserver}) are not taken there.
 */
abstract class ModuleLayer implements dev.zluda.runtime.api.CudaDriverApi {
    /** CUresult values of this layer (cuda.h). */
    static final int ERROR_INVALID_IMAGE = 200, ERROR_NO_BINARY_FOR_GPU = 209, ERROR_INVALID_PTX = 218,
            ERROR_FILE_NOT_FOUND = 301, ERROR_LAUNCH_OUT_OF_RESOURCES = 701;
    /** CUjit_option values the loader reads (cuda.h). */
    static final int JIT_WALL_TIME = 2, JIT_INFO_LOG_BUFFER = 3, JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4, JIT_ERROR_LOG_BUFFER = 5,
            JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6, JIT_NUM_OPTIONS = 35;
    /** {@code CU_LAUNCH_PARAM_END}, {@code CU_LAUNCH_PARAM_BUFFER_POINTER}, {@code CU_LAUNCH_PARAM_BUFFER_SIZE} (cuda.h). */
    static final long LAUNCH_PARAM_END = 0, LAUNCH_PARAM_BUFFER_POINTER = 1, LAUNCH_PARAM_BUFFER_SIZE = 2;
    /** Dynamic shared memory a function may use without opting in (48 KiB, every GPU since Kepler). */
    static final int DEFAULT_SHARED_LIMIT = 48 << 10;

    /** A loaded module: in one context, its variables allocated there. */
    static final class Module {
        final long handle;
        final Context context;
        /** What the backend made of it. */
        final Backend.LoadedModule code;
        final Map<String, Function> functions = new LinkedHashMap<>();
        final List<Allocation> variables = new ArrayList<>();
        final Library library;
        /** The PTX text compiled, for kernel snapshots. */
        final String ptx;
        volatile boolean unloaded;

        Module(long handle, Context context, Backend.LoadedModule code, Library library, String ptx) {
            this.handle = handle;
            this.context = context;
            this.code = code;
            this.library = library;
            this.ptx = ptx;
        }

        String infoLog() {
            return code.infoLog();
        }
    }

    /** A kernel of a loaded module (CUfunction), with its settable attributes. */
    static final class Function {
        final long handle;
        final Module module;
        final Kernel kernel;
        final MemorySegment cName;
        volatile int maxDynamicShared;
        volatile int carveout = -1;
        volatile int cacheConfig;
        /** The kernel as the backend loaded it. */
        final Backend.LoadedKernel loaded;

        Function(long handle, Module module, Backend.LoadedKernel loaded) {
            this.handle = handle;
            this.module = module;
            this.kernel = loaded.kernel();
            this.loaded = loaded;
            this.cName = Arena.ofAuto().allocateFrom(kernel.name());
            this.maxDynamicShared = (int) Math.max(0, DEFAULT_SHARED_LIMIT - kernel.staticShared());
        }
    }

    /** A context-independent library (CUlibrary): its PTX, loaded as a module in each context that uses it. */
    static final class Library {
        final long handle;
        final String ptx;
        final String source;
        final List<String> kernelNames;
        final Map<Context, Module> modules = new ConcurrentHashMap<>();
        final Map<String, LibKernel> kernels = new ConcurrentHashMap<>();

        Library(long handle, String ptx, String source, List<String> kernelNames) {
            this.handle = handle;
            this.ptx = ptx;
            this.source = source;
            this.kernelNames = kernelNames;
        }
    }

    /** A kernel of a library (CUkernel). */
    static final class LibKernel {
        final long handle;
        final Library library;
        final String name;
        final MemorySegment cName;

        LibKernel(long handle, Library library, String name) {
            this.handle = handle;
            this.library = library;
            this.name = name;
            this.cName = Arena.ofAuto().allocateFrom(name);
        }
    }

    final Handles<Module> modules = new Handles<>(4);
    final Handles<Function> functions = new Handles<>(5);
    final Handles<Library> libraries = new Handles<>(6);
    final Handles<LibKernel> libKernels = new Handles<>(7);
    /**
     * Counts module loads from 1 as the trace layer numbers its dump files ({@code module_NNNN_NN.ptx},
     * trace-format/FORMAT.md §6.4): every load call with a non-NULL image or file name, successful
     * or not, so that an error message names the file a capture holds.
     */
    private final AtomicInteger moduleNumbers = new AtomicInteger();
    /** The name the next {@link #fromImage} on this thread gives its PTX (set by the export-table loads), else null. */
    final ThreadLocal<String> nextImageName = new ThreadLocal<>();
    private final AtomicLong variableBufferIds = new AtomicLong(1L << 40);
    private final CudaRecord launchConfig, launchAttribute;
    private final Map<String, Integer> functionAttribute = new ConcurrentHashMap<>();
    private final MemoryMap memoryMap = this::findForKernel;
    private volatile LaunchObserver launchObserver;
    private static final MethodHandle CALL_B2DSIZE = Linker.nativeLinker().downcallHandle(
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));

    /** The shared driver state. */
    final DriverState state;
    final DeviceArea deviceArea;
    final ContextArea contextArea;
    final MemoryArea memoryArea;
    final StreamArea streamArea;
    final EventArea eventArea;
    final CopyArea copyArea;
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

    @Override
    public int unsupported(int functionId) {
        return state.unsupported(functionId);
    }

    Backend backend() {
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

    long nativeStream(long hStream) {
        return streamArea.nativeStream(hStream);
    }

    Allocation find(long p, long bytes) {
        return memoryArea.find(p, bytes);
    }

    java.util.concurrent.ConcurrentSkipListMap<Long, Allocation> allocations() {
        return memoryArea.allocations();
    }

    ModuleLayer(CudaApi api, MemorySegment exports) {
        this.state = new DriverState(api, exports);
        this.deviceArea = new DeviceArea(state);
        this.contextArea = new ContextArea(state, deviceArea);
        this.memoryArea = new MemoryArea(state, contextArea);
        this.streamArea = new StreamArea(state, contextArea);
        this.eventArea = new EventArea(state, contextArea, streamArea);
        this.copyArea = new CopyArea(state, contextArea, memoryArea, streamArea);
        this.contexts = contextArea.contexts;
        this.streams = streamArea.streams;
        this.events = eventArea.events;
        contextArea.onRelease(this::release);
        launchConfig = api.record("CUlaunchConfig").orElseThrow();
        launchAttribute = api.record("CUlaunchAttribute").orElseThrow();
        for (var m : api.enumType("CUfunction_attribute").orElseThrow().members()) {
            functionAttribute.put(m.name().substring("CU_FUNC_ATTRIBUTE_".length()), (int) m.value());
        }
    }

    private boolean findForKernel(long address, long[] out) {
        var e = allocations().floorEntry(address);
        if (e == null || !e.getValue().contains(address, 1)) return false;
        out[0] = e.getValue().address;
        out[1] = e.getValue().size;
        return true;
    }

    private volatile java.util.function.Consumer<String> driverEvents;

    /**
     * Sets who is told of the driver's own events, one line of text each (the trace layer writes them
     * as MARKER records, FORMAT.md §6): every module compile with its result and log, every launch's
     * execution (CTAs, thread-instructions executed, wall time in ms, the fault if any); null: nobody.
     */
    public void driverEvents(java.util.function.Consumer<String> sink) {
        this.driverEvents = sink;
    }

    /** Tells the driver-events sink, never failing the call that caused the event. */
    private void event(String text) {
        java.util.function.Consumer<String> sink = driverEvents;
        if (sink == null) return;
        try {
            sink.accept(text);
        } catch (RuntimeException e) {
            if (System.getenv("ZLUDA_DEBUG") != null) e.printStackTrace();
        }
    }

    /** Sets who sees every kernel launch before and after it runs (the trace layer's kernel snapshots); null: nobody. */
    public void launchObserver(LaunchObserver observer) {
        this.launchObserver = observer;
    }

    /** The allocations the parameter buffer's aligned 8-byte words point into, each once, in order of first mention. */
    private List<LaunchObserver.Region> pointedTo(byte[] params) {
        Map<Long, LaunchObserver.Region> found = new LinkedHashMap<>();
        MemorySegment s = MemorySegment.ofArray(params);
        for (long off = 0; off + 8 <= params.length; off += 8) {
            long v = s.get(ValueLayout.JAVA_LONG_UNALIGNED, off);
            if (v == 0) continue;
            var e = allocations().floorEntry(v);
            if (e == null || !e.getValue().contains(v, 1)) continue;
            Allocation a = e.getValue();
            found.putIfAbsent(a.address, new LaunchObserver.Region(a.address, a.size));
        }
        return List.copyOf(found.values());
    }

    /** Frees what a context owns: its allocations, streams, events and modules; the layers above add theirs. */
    void release(Context c) {
        memoryArea.release(c);
        streamArea.release(c);
        eventArea.release(c);
        for (Module m : modules.values()) if (m.context == c) unload(m);
    }

    // ---------------------------------------------------------------- loading

    /** Parsed JIT options of cuModuleLoadDataEx / cuLibraryLoadData. */
    private static final class JitLog {
        long errorBuffer, errorSize, infoBuffer, infoSize;
        int errorSizeSlot = -1, infoSizeSlot = -1, wallTimeSlot = -1;
        long values;
    }

    /** Reads CUjit_option / value arrays; null for invalid options (CUDA_ERROR_INVALID_VALUE). */
    private static JitLog jitOptions(int n, long options, long values) {
        JitLog log = new JitLog();
        if (n == 0) return log;
        if (n < 0 || options == 0 || values == 0) return null;
        log.values = values;
        for (int i = 0; i < n; i++) {
            int opt = getInt(options + 4L * i);
            long v = getLong(values + 8L * i);
            switch (opt) {
                case JIT_ERROR_LOG_BUFFER -> log.errorBuffer = v;
                case JIT_ERROR_LOG_BUFFER_SIZE_BYTES -> { log.errorSize = v & 0xFFFF_FFFFL; log.errorSizeSlot = i; }
                case JIT_INFO_LOG_BUFFER -> log.infoBuffer = v;
                case JIT_INFO_LOG_BUFFER_SIZE_BYTES -> { log.infoSize = v & 0xFFFF_FFFFL; log.infoSizeSlot = i; }
                case JIT_WALL_TIME -> log.wallTimeSlot = i;
                default -> {
                    if (opt < 0 || opt >= JIT_NUM_OPTIONS) return null;
                }
            }
        }
        return log;
    }

    /** Writes a log into a caller buffer of {@code size} bytes, NUL-terminated; returns bytes written with the NUL. */
    private static long writeLog(long buffer, long size, String text) {
        if (buffer == 0 || size <= 0) return 0;
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        int n = (int) Math.min(b.length, size - 1);
        MemorySegment out = at(buffer, size);
        MemorySegment.copy(b, 0, out, ValueLayout.JAVA_BYTE, 0, n);
        out.set(ValueLayout.JAVA_BYTE, n, (byte) 0);
        return n + 1;
    }

    private static void finishLog(JitLog log, String error, String info, long nanos) {
        if (log == null) return;
        long e = writeLog(log.errorBuffer, log.errorSize, error);
        long i = writeLog(log.infoBuffer, log.infoSize, info);
        if (log.errorSizeSlot >= 0) putLong(log.values + 8L * log.errorSizeSlot, e);
        if (log.infoSizeSlot >= 0) putLong(log.values + 8L * log.infoSizeSlot, i);
        if (log.wallTimeSlot >= 0) {
            putLong(log.values + 8L * log.wallTimeSlot, 0);
            Native.putFloat(log.values + 8L * log.wallTimeSlot, nanos / 1e6f);
        }
    }

    /** Thrown inside the loader with the CUresult and the log lines. */
    /** Each thread's stack for the emulator: the current context's CU_LIMIT_STACK_SIZE (limit 0). */
    private long stackLimit() {
        Context c = current();
        return c == null ? dev.zluda.runtime.emulator.Emulator.DEFAULT_STACK_BYTES : c.limit(0);
    }

    private static final class LoadFailure extends Exception {
        final int error;

        LoadFailure(int error, String log) {
            super(log, null, false, false);
            this.error = error;
        }
    }

    /** The PTX of a module image at an address (PTX text, fatbin, wrapper, ELF with fatbins). */
    private String ptxOf(byte[] image) throws LoadFailure {
        try {
            ModuleImage img = ModuleImage.of(image);
            return img.bestPtx(state.attributes.major(), state.attributes.minor()).ptx();
        } catch (ModuleImageException e) {
            throw imageFailure(e);
        }
    }

    private static LoadFailure imageFailure(ModuleImageException e) {
        int code = switch (e.reason()) {
            case NO_BINARY_FOR_DEVICE -> ERROR_NO_BINARY_FOR_GPU;
            case UNSUPPORTED -> NOT_SUPPORTED;
            default -> ERROR_INVALID_IMAGE;
        };
        return new LoadFailure(code, e.getMessage());
    }

    /** Compiles PTX into a module of the current context, through the backend. */
    private Module compile(String ptx, String source, Library library) throws LoadFailure {
        Context ctx = current();
        List<Allocation> vars = new ArrayList<>();
        Backend.VariableAllocator alloc = new Backend.VariableAllocator() {
            @Override
            public long allocate(String name, long size, long align) {
                Arena arena = Arena.ofShared();
                long address = arena.allocate(size, Math.max(256, align)).address();
                Allocation a = new Allocation(Allocation.Kind.DEVICE, address, size, ctx, 0, variableBufferIds.incrementAndGet(), arena);
                allocations().put(address, a);
                vars.add(a);
                return address;
            }

            @Override
            public void free(long address) {
                Allocation a = allocations().remove(address);
                if (a != null) a.free();
                vars.removeIf(v -> v.address == address);
            }
        };
        Backend.LoadedModule code;
        try {
            code = backend().load(ptx, source, alloc);
        } catch (BackendException e) {
            throw new LoadFailure(e.cuResult, e.getMessage());
        }
        long h = modules.reserve();
        Module m = new Module(h, ctx, code, library, ptx);
        m.variables.addAll(vars);
        for (Backend.LoadedKernel k : code.kernels()) {
            long fh = functions.reserve();
            Function f = new Function(fh, m, k);
            m.functions.put(k.kernel().name(), f);
            functions.put(fh, f);
        }
        modules.put(h, m);
        return m;
    }

    private void unload(Module m) {
        if (m.unloaded) return;
        m.unloaded = true;
        m.code.unload();
        modules.remove(m.handle);
        for (Function f : m.functions.values()) functions.remove(f.handle);
        for (Allocation a : m.variables) {
            if (allocations().remove(a.address, a)) a.free();
        }
        if (m.library != null) m.library.modules.remove(m.context, m);
    }

    private int loadModule(long pModule, String via, JitLog log, PtxSource src) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        long t0 = System.nanoTime();
        try {
            String ptx = src.get();
            String source = src.name();
            Module m = compile(ptx, source, null);
            finishLog(log, "", m.infoLog(), System.nanoTime() - t0);
            putLong(pModule, m.handle);
            event(String.format(java.util.Locale.ROOT, "module compiled: %s, %d kernel(s) (%s), %.3f ms", source, m.functions.size(),
                    String.join(", ", m.functions.keySet()), (System.nanoTime() - t0) / 1e6));
            return SUCCESS;
        } catch (LoadFailure f) {
            finishLog(log, f.getMessage(), "", System.nanoTime() - t0);
            event("module compile failed with " + errorName(f.error) + ": " + f.getMessage());
            System.err.println("[ZLUDA] " + via + " failed with " + errorName(f.error) + ":");
            for (String line : f.getMessage().split("\n")) System.err.println("[ZLUDA]   " + line);
            untracedHint(f.getMessage());
            return f.error;
        }
    }

    /**
     * After a load error that names {@code module_NNNN_NN.ptx}: without a capture (no {@code ZLUDA_LOG_DIR},
     * which {@code zluda run --zluda-trace} sets) no such file is written, so say how to get it.
     */
    private static void untracedHint(String message) {
        String logDir = System.getenv("ZLUDA_LOG_DIR");
        if ((logDir == null || logDir.isBlank()) && message != null && message.contains("module_")) {
            System.err.println("[ZLUDA]   (nothing is recorded in this run, so that file is not written: zluda run --zluda-trace keeps it in the capture)");
        }
    }

    private String errorName(int code) {
        return switch (code) {
            case ERROR_INVALID_IMAGE -> "CUDA_ERROR_INVALID_IMAGE";
            case ERROR_NO_BINARY_FOR_GPU -> "CUDA_ERROR_NO_BINARY_FOR_GPU";
            case ERROR_INVALID_PTX -> "CUDA_ERROR_INVALID_PTX";
            case ERROR_FILE_NOT_FOUND -> "CUDA_ERROR_FILE_NOT_FOUND";
            case NOT_SUPPORTED -> "CUDA_ERROR_NOT_SUPPORTED";
            default -> "CUresult " + code;
        };
    }

    /** Where PTX comes from, for the loader. */
    private interface PtxSource {
        String get() throws LoadFailure;

        String name();
    }

    /**
     * The next module number (see {@link #moduleNumbers}), for a load that names its PTX itself
     * through {@link #nextImageName}.
     */
    final int nextModuleNumber() {
        return moduleNumbers.incrementAndGet();
    }

    /**
     * The dump file name the trace layer gives entry {@code entry} (from 1) of module load
     * {@code number}: {@code module_NNNN_NN.ptx} (trace-format/FORMAT.md §6.4).
     */
    static String moduleFileName(int number, int entry) {
        return String.format(java.util.Locale.ROOT, "module_%04d_%02d.ptx", number, entry);
    }

    private PtxSource fromImage(long image) {
        String given = nextImageName.get();
        nextImageName.remove();
        int number = given == null ? moduleNumbers.incrementAndGet() : 0;
        return new PtxSource() {
            private String name = given != null ? given : moduleFileName(number, 1);

            @Override
            public String get() throws LoadFailure {
                try {
                    ModuleImage img = ModuleImage.fromAddress(image);
                    ModuleImage.Entry best = img.bestPtx(state.attributes.major(), state.attributes.minor());
                    if (given == null) name = moduleFileName(number, img.entries().indexOf(best) + 1);
                    return best.ptx();
                } catch (ModuleImageException e) {
                    throw imageFailure(e);
                }
            }

            @Override
            public String name() {
                return name;
            }
        };
    }

    private PtxSource fromFile(long fname) {
        String path = at(fname, 4096).getString(0, StandardCharsets.UTF_8);
        moduleNumbers.incrementAndGet(); // the trace layer dumps the file's content under this number
        return new PtxSource() {
            @Override
            public String get() throws LoadFailure {
                try {
                    return ptxOf(Files.readAllBytes(Path.of(path)));
                } catch (NoSuchFileException e) {
                    throw new LoadFailure(ERROR_FILE_NOT_FOUND, path + ": no such file");
                } catch (java.io.IOException | java.nio.file.InvalidPathException e) {
                    throw new LoadFailure(ERROR_FILE_NOT_FOUND, path + ": " + e.getMessage());
                }
            }

            @Override
            public String name() {
                return path;
            }
        };
    }

    @Override
    public int cuModuleLoadData(long module, long image) {
        if (module == 0 || image == 0) return state.initialized ? INVALID_VALUE : NOT_INITIALIZED;
        return loadModule(module, "cuModuleLoadData", null, fromImage(image));
    }

    @Override
    public int cuModuleLoadDataEx(long module, long image, int numOptions, long options, long optionValues) {
        if (module == 0 || image == 0) return state.initialized ? INVALID_VALUE : NOT_INITIALIZED;
        PtxSource src = fromImage(image); // numbered before the options are checked, as the trace layer counts the call
        JitLog log = jitOptions(numOptions, options, optionValues);
        if (log == null) return INVALID_VALUE;
        return loadModule(module, "cuModuleLoadDataEx", log, src);
    }

    @Override
    public int cuModuleLoadFatBinary(long module, long fatCubin) {
        if (module == 0 || fatCubin == 0) return state.initialized ? INVALID_VALUE : NOT_INITIALIZED;
        return loadModule(module, "cuModuleLoadFatBinary", null, fromImage(fatCubin));
    }

    @Override
    public int cuModuleLoad(long module, long fname) {
        if (module == 0 || fname == 0) return state.initialized ? INVALID_VALUE : NOT_INITIALIZED;
        return loadModule(module, "cuModuleLoad", null, fromFile(fname));
    }

    @Override
    public int cuModuleUnload(long hmod) {
        if (!state.initialized) return NOT_INITIALIZED;
        Module m = modules.get(hmod);
        if (m == null || m.library != null) return INVALID_HANDLE;
        int sticky = m.context.stickyError(); // measured on the H200: CUDA_ERROR_ILLEGAL_ADDRESS after a fault
        if (sticky != SUCCESS) return sticky;
        unload(m);
        return SUCCESS;
    }

    private Module module(long hmod) {
        Module m = modules.get(hmod);
        return m == null || m.unloaded || m.context.destroyed ? null : m;
    }

    @Override
    public int cuModuleGetFunction(long hfunc, long hmod, long name) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (hfunc == 0 || name == 0) return INVALID_VALUE;
        Module m = module(hmod);
        if (m == null) return INVALID_HANDLE;
        Function f = m.functions.get(at(name, 65536).getString(0, StandardCharsets.UTF_8));
        if (f == null) return NOT_FOUND;
        putLong(hfunc, f.handle);
        return SUCCESS;
    }

    @Override
    public int cuModuleGetFunctionCount(long count, long mod) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (count == 0) return INVALID_VALUE;
        Module m = module(mod);
        if (m == null) return INVALID_HANDLE;
        putInt(count, m.functions.size());
        return SUCCESS;
    }

    @Override
    public int cuModuleEnumerateFunctions(long functionsOut, int numFunctions, long mod) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (functionsOut == 0) return INVALID_VALUE;
        Module m = module(mod);
        if (m == null) return INVALID_HANDLE;
        int i = 0;
        for (Function f : m.functions.values()) {
            if (i >= Integer.toUnsignedLong(numFunctions)) break;
            putLong(functionsOut + 8L * i++, f.handle);
        }
        return SUCCESS;
    }

    @Override
    public int cuModuleGetGlobal_v2(long dptr, long bytes, long hmod, long name) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (name == 0) return INVALID_VALUE;
        Module m = module(hmod);
        if (m == null) return INVALID_HANDLE;
        long[] g;
        try {
            g = m.code.global(at(name, 65536).getString(0, StandardCharsets.UTF_8));
        } catch (BackendException e) {
            return e.cuResult;
        }
        if (dptr != 0) putLong(dptr, g[0]);
        if (bytes != 0) putLong(bytes, g[1]);
        return SUCCESS;
    }

    // ---------------------------------------------------------------- functions

    /** A CUfunction, or a CUkernel resolved to its function in the current context; null when unknown. */
    private Function function(long handle) {
        Function f = functions.get(handle);
        if (f != null) return f.module.unloaded ? null : f;
        LibKernel k = libKernels.get(handle);
        if (k == null) return null;
        try {
            Module m = libraryModule(k.library);
            return m == null ? null : m.functions.get(k.name);
        } catch (LoadFailure e) {
            return null;
        }
    }

    private int attributeValue(Function f, int attrib) {
        Kernel k = f.kernel;
        String name = null;
        for (var e : functionAttribute.entrySet()) if (e.getValue() == attrib) name = e.getKey();
        if (name == null) return Integer.MIN_VALUE;
        return switch (name) {
            case "MAX_THREADS_PER_BLOCK" -> k.maxThreads();
            case "SHARED_SIZE_BYTES" -> (int) k.staticShared();
            case "CONST_SIZE_BYTES" -> f.module.code.constBytes(f.loaded);
            case "LOCAL_SIZE_BYTES" -> (int) k.localBytes();
            case "NUM_REGS" -> k.numRegs();
            case "PTX_VERSION" -> f.module.code.ptxVersion();
            case "BINARY_VERSION" -> state.attributes.major() * 10 + state.attributes.minor();
            case "CACHE_MODE_CA" -> 0;
            case "MAX_DYNAMIC_SHARED_SIZE_BYTES" -> f.maxDynamicShared;
            case "PREFERRED_SHARED_MEMORY_CARVEOUT" -> f.carveout;
            case "CLUSTER_SIZE_MUST_BE_SET", "REQUIRED_CLUSTER_WIDTH", "REQUIRED_CLUSTER_HEIGHT", "REQUIRED_CLUSTER_DEPTH",
                 "NON_PORTABLE_CLUSTER_SIZE_ALLOWED", "CLUSTER_SCHEDULING_POLICY_PREFERENCE" -> 0;
            default -> Integer.MIN_VALUE;
        };
    }

    @Override
    public int cuFuncGetAttribute(long pi, int attrib, long hfunc) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (pi == 0) return INVALID_VALUE;
        Function f = function(hfunc);
        if (f == null) return INVALID_HANDLE;
        int v = attributeValue(f, attrib);
        if (v == Integer.MIN_VALUE) return INVALID_VALUE;
        putInt(pi, v);
        return SUCCESS;
    }

    @Override
    public int cuFuncSetAttribute(long hfunc, int attrib, int value) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        Function f = function(hfunc);
        if (f == null) return INVALID_HANDLE;
        if (attrib == functionAttribute.get("MAX_DYNAMIC_SHARED_SIZE_BYTES")) {
            long optin = state.attributes.byName().get("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN");
            if (value < 0 || value + f.kernel.staticShared() > optin) return INVALID_VALUE;
            f.maxDynamicShared = value;
            return SUCCESS;
        }
        if (attrib == functionAttribute.get("PREFERRED_SHARED_MEMORY_CARVEOUT")) {
            if (value < -1 || value > 100) return INVALID_VALUE;
            f.carveout = value;
            return SUCCESS;
        }
        if (attrib == functionAttribute.get("REQUIRED_CLUSTER_WIDTH") || attrib == functionAttribute.get("REQUIRED_CLUSTER_HEIGHT")
                || attrib == functionAttribute.get("REQUIRED_CLUSTER_DEPTH") || attrib == functionAttribute.get("NON_PORTABLE_CLUSTER_SIZE_ALLOWED")
                || attrib == functionAttribute.get("CLUSTER_SCHEDULING_POLICY_PREFERENCE")) {
            return value == 0 || value == 1 && attrib != functionAttribute.get("NON_PORTABLE_CLUSTER_SIZE_ALLOWED") ? SUCCESS : NOT_SUPPORTED;
        }
        return INVALID_VALUE;
    }

    @Override
    public int cuFuncSetCacheConfig(long hfunc, int config) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        Function f = function(hfunc);
        if (f == null) return INVALID_HANDLE;
        if (config < 0 || config > 3) return INVALID_VALUE;
        f.cacheConfig = config;
        return SUCCESS;
    }

    @Override
    public int cuFuncSetSharedMemConfig(long hfunc, int config) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (function(hfunc) == null) return INVALID_HANDLE;
        return config < 0 || config > 2 ? INVALID_VALUE : SUCCESS;
    }

    @Override
    public int cuFuncGetModule(long hmod, long hfunc) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (hmod == 0) return INVALID_VALUE;
        Function f = function(hfunc);
        if (f == null) return INVALID_HANDLE;
        putLong(hmod, f.module.handle);
        return SUCCESS;
    }

    @Override
    public int cuFuncGetName(long name, long hfunc) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (name == 0) return INVALID_VALUE;
        Function f = function(hfunc);
        if (f == null) return INVALID_HANDLE;
        putLong(name, f.cName.address());
        return SUCCESS;
    }

    @Override
    public int cuFuncGetParamInfo(long func, long paramIndex, long paramOffset, long paramSize) {
        if (!state.initialized) return NOT_INITIALIZED;
        Function f = function(func);
        if (f == null) return INVALID_HANDLE;
        List<ParamInfo> ps = f.kernel.info().params();
        if (paramIndex < 0 || paramIndex >= ps.size()) return INVALID_VALUE;
        ParamInfo p = ps.get((int) paramIndex);
        if (paramOffset != 0) putLong(paramOffset, p.offset());
        if (paramSize != 0) putLong(paramSize, p.size());
        return SUCCESS;
    }

    @Override
    public int cuFuncIsLoaded(long pState, long function) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (pState == 0) return INVALID_VALUE;
        if (function(function) == null) return INVALID_HANDLE;
        putInt(pState, 1); // CU_FUNCTION_LOADING_STATE_LOADED
        return SUCCESS;
    }

    @Override
    public int cuFuncLoad(long function) {
        if (!state.initialized) return NOT_INITIALIZED;
        return function(function) == null ? INVALID_HANDLE : SUCCESS;
    }

    // ---------------------------------------------------------------- launches

    /** The per-CTA shared memory a function may use with its current attributes. */
    private long sharedLimit(Function f) {
        return f.kernel.staticShared() + f.maxDynamicShared;
    }

    /**
     * Validates a launch and runs it. Grid and block dimensions are unsigned; CUDA's rules
     * (cuLaunchKernel): every dimension ≥ 1; block ≤ MAX_BLOCK_DIM_{X,Y,Z} and ≤ the function's
     * MAX_THREADS_PER_BLOCK in total; grid ≤ MAX_GRID_DIM_{X,Y,Z}; static + dynamic shared memory
     * within the function's limit — otherwise CUDA_ERROR_INVALID_VALUE.
     */
    private int launch(long f, long gx, long gy, long gz, long bx, long by, long bz, long shared, long hStream, long kernelParams,
                       long extra) {
        int r = checkStream(hStream);
        if (r != SUCCESS) return r;
        Function fn = function(f);
        if (fn == null) return INVALID_HANDLE;
        Map<String, Integer> a = state.attributes.byName();
        if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0) return INVALID_VALUE;
        if (gx > a.get("MAX_GRID_DIM_X") || gy > a.get("MAX_GRID_DIM_Y") || gz > a.get("MAX_GRID_DIM_Z")) return INVALID_VALUE;
        if (bx > a.get("MAX_BLOCK_DIM_X") || by > a.get("MAX_BLOCK_DIM_Y") || bz > a.get("MAX_BLOCK_DIM_Z")) return INVALID_VALUE;
        long threads = bx * by * bz;
        if (threads > a.get("MAX_THREADS_PER_BLOCK") || threads > fn.kernel.maxThreads()) return INVALID_VALUE;
        int[] req = fn.kernel.reqntid();
        if (req != null && (bx != req[0] || by != req[1] || bz != req[2])) return INVALID_VALUE;
        if (fn.kernel.staticShared() + shared > sharedLimit(fn)) return INVALID_VALUE;
        long paramBytes = fn.kernel.paramBytes();
        byte[] buffer = new byte[(int) paramBytes];
        MemorySegment params = MemorySegment.ofArray(buffer);
        if (kernelParams != 0 && extra != 0) return INVALID_VALUE;
        if (kernelParams != 0) {
            for (ParamInfo p : fn.kernel.info().params()) {
                long ptr = getLong(kernelParams + 8L * p.index());
                if (ptr == 0) return INVALID_VALUE;
                MemorySegment.copy(at(ptr, p.size()), 0, params, p.offset(), p.size());
            }
        } else if (extra != 0) {
            long bufferPtr = 0, sizePtr = 0;
            for (int i = 0; ; i += 2) {
                if (i > 64) return INVALID_VALUE;
                long key = getLong(extra + 8L * i);
                if (key == LAUNCH_PARAM_END) break;
                long value = getLong(extra + 8L * (i + 1));
                if (key == LAUNCH_PARAM_BUFFER_POINTER) bufferPtr = value;
                else if (key == LAUNCH_PARAM_BUFFER_SIZE) sizePtr = value;
                else return INVALID_VALUE;
            }
            if (paramBytes > 0) {
                if (bufferPtr == 0 || sizePtr == 0) return INVALID_VALUE;
                long size = getLong(sizePtr);
                if (size < paramBytes) return INVALID_VALUE;
                MemorySegment.copy(at(bufferPtr, paramBytes), 0, params, 0, paramBytes);
            }
        } else if (paramBytes > 0) {
            return INVALID_VALUE;
        }
        Backend b = backend();
        int[] grid = {(int) gx, (int) gy, (int) gz}, block = {(int) bx, (int) by, (int) bz};
        LaunchObserver obs = launchObserver;
        LaunchObserver.KernelLaunch seen = null;
        Object token = null;
        if (obs != null && b.synchronous()) {
            try {
                if (obs.wants(fn.kernel.name())) {
                    seen = new LaunchObserver.KernelLaunch(f, fn.kernel.name(), fn.module.ptx, new long[] {gx, gy, gz}, new long[] {bx, by, bz},
                            shared, buffer.clone(), pointedTo(buffer));
                    token = obs.before(seen);
                }
            } catch (RuntimeException e) {
                seen = null; // a failing observer never stops the launch
            }
        }
        Backend.LaunchOutcome out = b.launch(new Backend.LaunchRequest(fn.loaded, grid, block, (int) shared, nativeStream(hStream), buffer,
                kernelParams != 0, memoryMap, state.attributes.byName().get("MULTIPROCESSOR_COUNT"), stackLimit()));
        if (driverEvents != null && out.event() != null) event(out.event().get());
        if (out.result() != SUCCESS) return out.result();
        if (out.kernelError() != SUCCESS) {
            System.err.println("[ZLUDA] " + out.message());
            current().fault(out.kernelError());
        }
        if (seen != null) {
            try {
                obs.after(token, seen, out.kernelError());
            } catch (RuntimeException e) {
                // the observer's failure is its own
            }
        }
        return SUCCESS;
    }

    private static long u(int v) {
        return Integer.toUnsignedLong(v);
    }

    @Override
    public int cuLaunchKernel(long f, int gridDimX, int gridDimY, int gridDimZ, int blockDimX, int blockDimY, int blockDimZ,
                              int sharedMemBytes, long hStream, long kernelParams, long extra) {
        return launch(f, u(gridDimX), u(gridDimY), u(gridDimZ), u(blockDimX), u(blockDimY), u(blockDimZ), u(sharedMemBytes), hStream,
                kernelParams, extra);
    }

    @Override
    public int cuLaunchKernel_ptsz(long f, int gridDimX, int gridDimY, int gridDimZ, int blockDimX, int blockDimY, int blockDimZ,
                                   int sharedMemBytes, long hStream, long kernelParams, long extra) {
        return cuLaunchKernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams, extra);
    }

    private static long field(CudaRecord r, long base, String name) {
        for (CudaRecord.Field f : r.fields()) {
            if (f.name().equals(name)) return f.size() == 8 ? getLong(base + f.offset()) : getInt(base + f.offset()) & 0xFFFF_FFFFL;
        }
        throw new IllegalStateException(r.name() + " has no field " + name);
    }

    private static long offset(CudaRecord r, String name) {
        for (CudaRecord.Field f : r.fields()) if (f.name().equals(name)) return f.offset();
        throw new IllegalStateException(r.name() + " has no field " + name);
    }

    /**
     * cuLaunchKernelEx: the CUlaunchConfig record as the spec lays it out. Attributes: cooperative
     * launches and clusters larger than one CTA are CUDA_ERROR_NOT_SUPPORTED; a launch-completion or
     * programmatic event is recorded when the kernel has run; priority, access policy,
     * synchronisation policy, memory sync domains, carve-out and scheduling hints are accepted and
     * have no effect; an unknown attribute id is CUDA_ERROR_INVALID_VALUE.
     */
    @Override
    public int cuLaunchKernelEx(long config, long f, long kernelParams, long extra) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (config == 0) return INVALID_VALUE;
        long attrs = field(launchConfig, config, "attrs");
        long numAttrs = field(launchConfig, config, "numAttrs");
        if (numAttrs > 0 && attrs == 0) return INVALID_VALUE;
        long valueOff = offset(launchAttribute, "value");
        List<Long> events = new ArrayList<>();
        for (long i = 0; i < numAttrs; i++) {
            long at = attrs + i * launchAttribute.size();
            int id = getInt(at);
            long v = at + valueOff;
            switch (id) {
                case 0, 1, 3, 5, 6, 8, 9, 10, 11, 13, 14, 16 -> {}
                case 2 -> {
                    if (getInt(v) != 0) return NOT_SUPPORTED; // cooperative launch
                }
                case 4 -> {
                    if (getInt(v) > 1 || getInt(v + 4) > 1 || getInt(v + 8) > 1) return NOT_SUPPORTED; // cluster dimension
                }
                case 7, 12 -> events.add(getLong(v)); // programmatic event, launch completion event
                default -> {
                    return INVALID_VALUE;
                }
            }
        }
        long stream = field(launchConfig, config, "hStream");
        int r = launch(f, field(launchConfig, config, "gridDimX"), field(launchConfig, config, "gridDimY"),
                field(launchConfig, config, "gridDimZ"), field(launchConfig, config, "blockDimX"), field(launchConfig, config, "blockDimY"),
                field(launchConfig, config, "blockDimZ"), field(launchConfig, config, "sharedMemBytes"), stream, kernelParams, extra);
        if (r == SUCCESS) for (long e : events) if (e != 0) cuEventRecord(e, stream);
        return r;
    }

    @Override
    public int cuLaunchKernelEx_ptsz(long config, long f, long kernelParams, long extra) {
        return cuLaunchKernelEx(config, f, kernelParams, extra);
    }

    // ---------------------------------------------------------------- occupancy

    /** CTAs of {@code blockSize} threads using {@code smem} bytes that fit on one multiprocessor. */
    private int occupancy(Function f, long blockSize, long smem) {
        Map<String, Integer> a = state.attributes.byName();
        if (blockSize <= 0 || blockSize > f.kernel.maxThreads()) return 0;
        long warps = (blockSize + 31) / 32;
        long byThreads = a.get("MAX_THREADS_PER_MULTIPROCESSOR") / (warps * 32);
        long shared = f.kernel.staticShared() + smem;
        long bySmem = shared == 0 ? Long.MAX_VALUE : a.get("MAX_SHARED_MEMORY_PER_MULTIPROCESSOR") / (shared + a.get("RESERVED_SHARED_MEMORY_PER_BLOCK"));
        return (int) Math.min(a.get("MAX_BLOCKS_PER_MULTIPROCESSOR"), Math.min(byThreads, bySmem));
    }

    @Override
    public int cuOccupancyMaxActiveBlocksPerMultiprocessor(long numBlocks, long func, int blockSize, long dynamicSMemSize) {
        return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize, 0);
    }

    @Override
    public int cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(long numBlocks, long func, int blockSize, long dynamicSMemSize, int flags) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (numBlocks == 0 || (flags & ~1) != 0) return INVALID_VALUE;
        Function f = function(func);
        if (f == null) return INVALID_HANDLE;
        putInt(numBlocks, occupancy(f, blockSize, dynamicSMemSize));
        return SUCCESS;
    }

    @Override
    public int cuOccupancyMaxPotentialBlockSize(long minGridSize, long blockSize, long func, long blockSizeToDynamicSMemSize,
                                                long dynamicSMemSize, int blockSizeLimit) {
        return cuOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize, blockSizeLimit, 0);
    }

    @Override
    public int cuOccupancyMaxPotentialBlockSizeWithFlags(long minGridSize, long blockSize, long func, long blockSizeToDynamicSMemSize,
                                                         long dynamicSMemSize, int blockSizeLimit, int flags) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (minGridSize == 0 || blockSize == 0 || (flags & ~1) != 0) return INVALID_VALUE;
        Function f = function(func);
        if (f == null) return INVALID_HANDLE;
        int limit = f.kernel.maxThreads();
        if (blockSizeLimit > 0) limit = Math.min(limit, blockSizeLimit);
        int bestBlock = 0, bestBlocks = 0;
        long bestThreads = -1;
        for (int b = (limit / 32) * 32; b >= 32 || (b > 0 && bestBlock == 0); b = b >= 64 ? b - 32 : (b == 32 ? Math.min(limit, 31) : 0)) {
            long smem = dynamicSMemSize;
            if (blockSizeToDynamicSMemSize != 0) {
                try {
                    smem = (long) CALL_B2DSIZE.invokeExact(MemorySegment.ofAddress(blockSizeToDynamicSMemSize), b);
                } catch (Throwable t) {
                    return UNKNOWN;
                }
            }
            int n = occupancy(f, b, smem);
            long threads = (long) n * b;
            if (threads > bestThreads) {
                bestThreads = threads;
                bestBlock = b;
                bestBlocks = n;
            }
            if (b < 32) break;
        }
        putInt(blockSize, bestBlock);
        putInt(minGridSize, bestBlocks * state.attributes.byName().get("MULTIPROCESSOR_COUNT"));
        return SUCCESS;
    }

    @Override
    public int cuOccupancyAvailableDynamicSMemPerBlock(long dynamicSmemSize, long func, int numBlocks, int blockSize) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (dynamicSmemSize == 0 || numBlocks <= 0 || blockSize <= 0) return INVALID_VALUE;
        Function f = function(func);
        if (f == null) return INVALID_HANDLE;
        Map<String, Integer> a = state.attributes.byName();
        long perBlock = a.get("MAX_SHARED_MEMORY_PER_MULTIPROCESSOR") / numBlocks - a.get("RESERVED_SHARED_MEMORY_PER_BLOCK") - f.kernel.staticShared();
        putLong(dynamicSmemSize, Math.max(0, Math.min(perBlock, f.maxDynamicShared)));
        return SUCCESS;
    }

    // ---------------------------------------------------------------- libraries

    /** The library's module in the current context, loaded on first use. */
    private Module libraryModule(Library lib) throws LoadFailure {
        Context c = current();
        if (c == null) return null;
        Module m = lib.modules.get(c);
        if (m != null && !m.unloaded) return m;
        synchronized (lib) {
            m = lib.modules.get(c);
            if (m != null && !m.unloaded) return m;
            m = compile(lib.ptx, lib.source, lib);
            lib.modules.put(c, m);
            return m;
        }
    }

    private int loadLibrary(long library, PtxSource src, long jitOptions, long jitValues, int numJit) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (library == 0) return INVALID_VALUE;
        JitLog log = jitOptions(numJit, jitOptions, jitValues);
        if (log == null) return INVALID_VALUE;
        long t0 = System.nanoTime();
        try {
            String ptx = src.get();
            List<String> names = new ArrayList<>();
            var parsed = dev.zluda.ptx.Ptx.parse(ptx, src.name());
            if (!parsed.ok()) throw new LoadFailure(ERROR_INVALID_PTX, String.join("\n", parsed.diagnostics().stream().map(Object::toString).toList()));
            var model = dev.zluda.ptx.Semantics.analyze(parsed.module(), src.name());
            if (!model.ok()) throw new LoadFailure(ERROR_INVALID_PTX, String.join("\n", model.diagnostics().stream().map(Object::toString).toList()));
            for (var k : model.kernels()) if (k.defined()) names.add(k.name());
            long h = libraries.reserve();
            Library lib = new Library(h, ptx, src.name(), names);
            String info = "";
            if (current() != null) {
                Module m = libraryModule(lib); // a full load now reports unsupported instructions at once
                info = m.infoLog();
            }
            libraries.put(h, lib);
            finishLog(log, "", info, System.nanoTime() - t0);
            event(String.format(java.util.Locale.ROOT, "library compiled: %s, %d kernel(s) (%s), %.3f ms", src.name(), names.size(),
                    String.join(", ", names), (System.nanoTime() - t0) / 1e6));
            putLong(library, h);
            return SUCCESS;
        } catch (LoadFailure f) {
            finishLog(log, f.getMessage(), "", System.nanoTime() - t0);
            event("library compile failed with " + errorName(f.error) + ": " + f.getMessage());
            System.err.println("[ZLUDA] cuLibraryLoad failed with " + errorName(f.error) + ":");
            for (String line : f.getMessage().split("\n")) System.err.println("[ZLUDA]   " + line);
            untracedHint(f.getMessage());
            return f.error;
        }
    }

    @Override
    public int cuLibraryLoadData(long library, long code, long jitOptions, long jitOptionsValues, int numJitOptions, long libraryOptions,
                                 long libraryOptionValues, int numLibraryOptions) {
        if (code == 0) return state.initialized ? INVALID_VALUE : NOT_INITIALIZED;
        return loadLibrary(library, fromImage(code), jitOptions, jitOptionsValues, numJitOptions);
    }

    @Override
    public int cuLibraryLoadFromFile(long library, long fileName, long jitOptions, long jitOptionsValues, int numJitOptions,
                                     long libraryOptions, long libraryOptionValues, int numLibraryOptions) {
        if (fileName == 0) return state.initialized ? INVALID_VALUE : NOT_INITIALIZED;
        return loadLibrary(library, fromFile(fileName), jitOptions, jitOptionsValues, numJitOptions);
    }

    @Override
    public int cuLibraryUnload(long library) {
        if (!state.initialized) return NOT_INITIALIZED;
        Library lib = libraries.remove(library);
        if (lib == null) return INVALID_HANDLE;
        for (Module m : List.copyOf(lib.modules.values())) unload(m);
        for (LibKernel k : lib.kernels.values()) libKernels.remove(k.handle);
        return SUCCESS;
    }

    @Override
    public int cuLibraryGetKernel(long pKernel, long library, long name) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (pKernel == 0 || name == 0) return INVALID_VALUE;
        Library lib = libraries.get(library);
        if (lib == null) return INVALID_HANDLE;
        String n = at(name, 65536).getString(0, StandardCharsets.UTF_8);
        if (!lib.kernelNames.contains(n)) return NOT_FOUND;
        LibKernel k = lib.kernels.computeIfAbsent(n, x -> {
            long h = libKernels.reserve();
            LibKernel lk = new LibKernel(h, lib, x);
            libKernels.put(h, lk);
            return lk;
        });
        putLong(pKernel, k.handle);
        return SUCCESS;
    }

    @Override
    public int cuLibraryGetKernelCount(long count, long lib) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (count == 0) return INVALID_VALUE;
        Library l = libraries.get(lib);
        if (l == null) return INVALID_HANDLE;
        putInt(count, l.kernelNames.size());
        return SUCCESS;
    }

    @Override
    public int cuLibraryEnumerateKernels(long kernels, int numKernels, long lib) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (kernels == 0) return INVALID_VALUE;
        Library l = libraries.get(lib);
        if (l == null) return INVALID_HANDLE;
        MemorySegment tmp = Arena.ofAuto().allocate(8);
        for (int i = 0; i < l.kernelNames.size() && i < Integer.toUnsignedLong(numKernels); i++) {
            MemorySegment n = Arena.ofAuto().allocateFrom(l.kernelNames.get(i));
            int r = cuLibraryGetKernel(tmp.address(), lib, n.address());
            if (r != SUCCESS) return r;
            putLong(kernels + 8L * i, tmp.get(ValueLayout.JAVA_LONG, 0));
        }
        return SUCCESS;
    }

    private int withLibraryModule(long library, java.util.function.ToIntFunction<Module> action) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        Library lib = libraries.get(library);
        if (lib == null) return INVALID_HANDLE;
        try {
            return action.applyAsInt(libraryModule(lib));
        } catch (LoadFailure f) {
            System.err.println("[ZLUDA] loading library " + lib.source + " into the context failed: " + f.getMessage());
            return f.error;
        }
    }

    @Override
    public int cuLibraryGetModule(long pMod, long library) {
        if (pMod == 0) return state.initialized ? INVALID_VALUE : NOT_INITIALIZED;
        return withLibraryModule(library, m -> {
            putLong(pMod, m.handle);
            return SUCCESS;
        });
    }

    @Override
    public int cuLibraryGetGlobal(long dptr, long bytes, long library, long name) {
        if (name == 0) return state.initialized ? INVALID_VALUE : NOT_INITIALIZED;
        return withLibraryModule(library, m -> cuModuleGetGlobal_v2(dptr, bytes, m.handle, name));
    }

    @Override
    public int cuKernelGetFunction(long pFunc, long kernel) {
        if (pFunc == 0) return state.initialized ? INVALID_VALUE : NOT_INITIALIZED;
        LibKernel k = libKernels.get(kernel);
        if (k == null) return state.initialized ? INVALID_HANDLE : NOT_INITIALIZED;
        return withLibraryModule(k.library.handle, m -> {
            Function f = m.functions.get(k.name);
            if (f == null) return NOT_FOUND;
            putLong(pFunc, f.handle);
            return SUCCESS;
        });
    }

    @Override
    public int cuKernelGetLibrary(long pLib, long kernel) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (pLib == 0) return INVALID_VALUE;
        LibKernel k = libKernels.get(kernel);
        if (k == null) return INVALID_HANDLE;
        putLong(pLib, k.library.handle);
        return SUCCESS;
    }

    @Override
    public int cuKernelGetName(long name, long hfunc) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (name == 0) return INVALID_VALUE;
        LibKernel k = libKernels.get(hfunc);
        if (k == null) return INVALID_HANDLE;
        putLong(name, k.cName.address());
        return SUCCESS;
    }

    @Override
    public int cuKernelGetParamInfo(long kernel, long paramIndex, long paramOffset, long paramSize) {
        if (libKernels.get(kernel) == null) return state.initialized ? INVALID_HANDLE : NOT_INITIALIZED;
        return cuFuncGetParamInfo(kernel, paramIndex, paramOffset, paramSize);
    }

    @Override
    public int cuKernelGetAttribute(long pi, int attrib, long kernel, int dev) {
        int r = checkDevice(dev);
        if (r != SUCCESS) return r;
        if (libKernels.get(kernel) == null) return INVALID_HANDLE;
        return cuFuncGetAttribute(pi, attrib, kernel);
    }

    @Override
    public int cuKernelSetAttribute(int attrib, int val, long kernel, int dev) {
        int r = checkDevice(dev);
        if (r != SUCCESS) return r;
        if (libKernels.get(kernel) == null) return INVALID_HANDLE;
        return cuFuncSetAttribute(kernel, attrib, val);
    }

    @Override
    public int cuKernelSetCacheConfig(long kernel, int config, int dev) {
        int r = checkDevice(dev);
        if (r != SUCCESS) return r;
        if (libKernels.get(kernel) == null) return INVALID_HANDLE;
        return cuFuncSetCacheConfig(kernel, config);
    }
}
