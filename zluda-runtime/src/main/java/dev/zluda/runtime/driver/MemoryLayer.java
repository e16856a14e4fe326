package dev.zluda.runtime.driver;

import dev.zluda.spec.CudaApi;
import dev.zluda.spec.CudaRecord;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

import dev.zluda.runtime.backend.Backend;
import dev.zluda.runtime.backend.BackendException;

import static dev.zluda.runtime.driver.CuResult.*;
import static dev.zluda.runtime.driver.Native.at;
import static dev.zluda.runtime.driver.Native.getInt;
import static dev.zluda.runtime.driver.Native.getLong;
import static dev.zluda.runtime.driver.Native.putInt;
import static dev.zluda.runtime.driver.Native.putLong;

/**
 * Memory (CUDA Driver API groups CUDA_MEM, CUDA_UNIFIED): device, page-locked host and managed
 * allocations, host registration, every memcpy and memset form on linear memory (1D, 2D, 3D, peer,
 * async), address ranges and pointer attributes.
 *
 * <p>Device pointers are real addresses of native memory (256-byte aligned, zeroed), so a copy is
 * a memory copy. Device-side ranges are checked against the known allocations: a copy that would
 * leave them returns CUDA_ERROR_INVALID_VALUE instead of touching memory. Host pointers the program
 * passes are its own business, as with NVIDIA's driver. CUDA arrays are not supported
 * (CUDA_ERROR_NOT_SUPPORTED). Every operation has completed when the call returns, which is a valid
 * schedule for the async forms too.
 *
 * <p>On the hip backend device memory is HIP's ({@code hipMalloc}/{@code hipFree}), copies that touch it are
 * {@code hipMemcpyHtoD/DtoH/DtoD} (2D and 3D copies row by row), memsets {@code hipMemsetD8/D16/D32}; an async
 * form first waits for the stream's earlier work ({@code hipStreamSynchronize}), then copies. Managed memory,
 * host registration and device pointers of host memory are CUDA_ERROR_NOT_SUPPORTED there.
 */
abstract class MemoryLayer implements dev.zluda.runtime.api.CudaDriverApi {
    /** CUmemorytype (cuda.h). */
    static final int MEMTYPE_HOST = 1, MEMTYPE_DEVICE = 2, MEMTYPE_ARRAY = 3, MEMTYPE_UNIFIED = 4;
    /** Row pitch alignment of cuMemAllocPitch, bytes (the device's TEXTURE_ALIGNMENT). */
    static final long PITCH_ALIGNMENT = 512;

    private final ConcurrentSkipListMap<Long, Allocation> allocations = new ConcurrentSkipListMap<>();
    private final AtomicLong used = new AtomicLong();
    private final AtomicLong bufferIds = new AtomicLong();
    private final Map<String, Integer> pointerAttribute = new HashMap<>();
    private final CudaRecord memcpy2d, memcpy3d;

    /** The shared driver state. */
    final DriverState state;
    final DeviceArea deviceArea;
    final ContextArea contextArea;
    /** The contexts by handle (the context area's table). */
    final Handles<Context> contexts;

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

    /** Frees what a context owns: here its allocations; the layers above add their objects. */
    void release(Context c) {
        for (Allocation a : c.allocations) freeAllocation(a);
        c.allocations.clear();
    }

    MemoryLayer(CudaApi api, MemorySegment exports) {
        this.state = new DriverState(api, exports);
        this.deviceArea = new DeviceArea(state);
        this.contextArea = new ContextArea(state, deviceArea);
        this.contexts = contextArea.contexts;
        contextArea.onRelease(this::release);
        for (var m : api.enumType("CUpointer_attribute").orElseThrow().members()) {
            pointerAttribute.put(m.name().substring("CU_POINTER_ATTRIBUTE_".length()), (int) m.value());
        }
        memcpy2d = api.record("CUDA_MEMCPY2D").orElseThrow();
        memcpy3d = api.record("CUDA_MEMCPY3D").orElseThrow();
    }

    /** Returns SUCCESS for a stream the calling context may use; the stream layer decides. */
    abstract int checkStream(long hStream);

    /**
     * As {@link #checkStream}, and on the hip backend waits until the stream's earlier work is done, so that an
     * async copy or memset done at once is ordered after it.
     */
    abstract int streamDone(long hStream);

    /** {@code true} when [p, p+bytes) is device memory of the backend ({@link Backend#allocate}'s). */
    boolean onDevice(long p, long bytes) {
        Allocation a = find(p, bytes);
        return a != null && a.kind == Allocation.Kind.DEVICE;
    }

    /** Copies bytes whose device-side ranges were checked, through the backend. */
    private int transfer(long dst, long src, long bytes) {
        return backend().copy(dst, onDevice(dst, bytes), src, onDevice(src, bytes), bytes);
    }

    /** The allocation that holds [p, p+bytes), or null. */
    Allocation find(long p, long bytes) {
        var e = allocations.floorEntry(p);
        if (e == null) return null;
        Allocation a = e.getValue();
        return a.contains(p, bytes) ? a : null;
    }

    /** Every live allocation, by address (the emulator checks memory accesses against it). */
    ConcurrentSkipListMap<Long, Allocation> allocations() {
        return allocations;
    }

    private int allocate(Allocation.Kind kind, long out, long bytes, int flags) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (out == 0 || bytes <= 0) return INVALID_VALUE;
        if (kind != Allocation.Kind.HOST_ALLOC && used.get() + bytes > state.totalMemory) return OUT_OF_MEMORY;
        Backend b = backend();
        if (!b.deviceSeesHostMemory() && kind == Allocation.Kind.MANAGED) return NOT_SUPPORTED;
        long[] address = new long[1];
        Arena arena = null;
        Runnable release = null;
        if (kind == Allocation.Kind.DEVICE) {
            try {
                Backend.DeviceMemory m = b.allocate(bytes);
                address[0] = m.address();
                release = m.release();
            } catch (BackendException e) {
                return e.cuResult;
            }
        } else {
            try {
                arena = Allocation.allocate(bytes, address);
            } catch (OutOfMemoryError | IllegalArgumentException e) {
                return OUT_OF_MEMORY;
            }
        }
        Context c = current();
        Allocation a = new Allocation(kind, address[0], bytes, c, flags, bufferIds.incrementAndGet(), arena, release);
        if (kind != Allocation.Kind.HOST_ALLOC) used.addAndGet(bytes);
        allocations.put(a.address, a);
        c.allocations.add(a);
        putLong(out, a.address);
        return SUCCESS;
    }

    void freeAllocation(Allocation a) {
        if (allocations.remove(a.address, a)) {
            if (a.kind != Allocation.Kind.HOST_ALLOC && a.kind != Allocation.Kind.HOST_REGISTERED) used.addAndGet(-a.size);
            a.free();
        }
    }

    private int free(long p, Allocation.Kind... kinds) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (p == 0) return SUCCESS;
        Allocation a = allocations.get(p);
        if (a == null || !java.util.List.of(kinds).contains(a.kind)) return INVALID_VALUE;
        // after a kernel fault NVIDIA's driver answers the sticky error (seen on the H200); the
        // memory goes with the context
        int sticky = a.context.stickyError();
        if (sticky != SUCCESS) return sticky;
        a.context.allocations.remove(a);
        freeAllocation(a);
        return SUCCESS;
    }

    // ---------------------------------------------------------------- allocation

    @Override
    public int cuMemAlloc_v2(long dptr, long bytesize) {
        return allocate(Allocation.Kind.DEVICE, dptr, bytesize, 0);
    }

    @Override
    public int cuMemFree_v2(long dptr) {
        return free(dptr, Allocation.Kind.DEVICE, Allocation.Kind.MANAGED);
    }

    @Override
    public int cuMemAllocPitch_v2(long dptr, long pPitch, long WidthInBytes, long Height, int ElementSizeBytes) {
        if (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16) return INVALID_VALUE;
        if (pPitch == 0 || WidthInBytes <= 0 || Height <= 0) return INVALID_VALUE;
        long pitch = (WidthInBytes + PITCH_ALIGNMENT - 1) / PITCH_ALIGNMENT * PITCH_ALIGNMENT;
        int r = allocate(Allocation.Kind.DEVICE, dptr, Math.multiplyExact(pitch, Height), 0);
        if (r == SUCCESS) putLong(pPitch, pitch);
        return r;
    }

    @Override
    public int cuMemAllocManaged(long dptr, long bytesize, int flags) {
        if (flags != 1 && flags != 2) return INVALID_VALUE; // CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST
        return allocate(Allocation.Kind.MANAGED, dptr, bytesize, flags);
    }

    @Override
    public int cuMemGetInfo_v2(long free, long total) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (free == 0 || total == 0) return INVALID_VALUE;
        putLong(free, Math.max(0, state.totalMemory - used.get()));
        putLong(total, state.totalMemory);
        return SUCCESS;
    }

    @Override
    public int cuMemGetAddressRange_v2(long pbase, long psize, long dptr) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        Allocation a = find(dptr, 0);
        if (a == null) return NOT_FOUND;
        if (pbase != 0) putLong(pbase, a.address);
        if (psize != 0) putLong(psize, a.size);
        return SUCCESS;
    }

    @Override
    public int cuMemAllocHost_v2(long pp, long bytesize) {
        return allocate(Allocation.Kind.HOST_ALLOC, pp, bytesize, 0);
    }

    @Override
    public int cuMemHostAlloc(long pp, long bytesize, int Flags) {
        if ((Flags & ~0x7) != 0) return INVALID_VALUE; // PORTABLE | DEVICEMAP | WRITECOMBINED
        return allocate(Allocation.Kind.HOST_ALLOC, pp, bytesize, Flags);
    }

    @Override
    public int cuMemFreeHost(long p) {
        if (p == 0) return INVALID_VALUE;
        return free(p, Allocation.Kind.HOST_ALLOC);
    }

    @Override
    public int cuMemHostGetDevicePointer_v2(long pdptr, long p, int Flags) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (pdptr == 0 || Flags != 0) return INVALID_VALUE;
        if (!backend().deviceSeesHostMemory()) return NOT_SUPPORTED; // device memory and the program's host memory are apart
        Allocation a = find(p, 0);
        if (a == null || (a.kind != Allocation.Kind.HOST_ALLOC && a.kind != Allocation.Kind.HOST_REGISTERED)) return INVALID_VALUE;
        putLong(pdptr, p); // unified addressing: the device sees host memory at the same address
        return SUCCESS;
    }

    @Override
    public int cuMemHostGetFlags(long pFlags, long p) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (pFlags == 0) return INVALID_VALUE;
        Allocation a = find(p, 0);
        if (a == null || a.kind != Allocation.Kind.HOST_ALLOC) return INVALID_VALUE;
        putInt(pFlags, a.flags | 0x2); // CU_MEMHOSTALLOC_DEVICEMAP is implied with unified addressing
        return SUCCESS;
    }

    @Override
    public int cuMemHostRegister_v2(long p, long bytesize, int Flags) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (p == 0 || bytesize <= 0 || (Flags & ~0xF) != 0) return INVALID_VALUE;
        if (!backend().deviceSeesHostMemory()) return NOT_SUPPORTED; // kernels on the device would not see it
        var below = allocations.floorEntry(p + bytesize - 1);
        if (below != null && below.getValue().address + below.getValue().size > p) return HOST_MEMORY_ALREADY_REGISTERED;
        Allocation a = new Allocation(Allocation.Kind.HOST_REGISTERED, p, bytesize, current(), Flags, bufferIds.incrementAndGet(), null);
        allocations.put(p, a);
        current().allocations.add(a);
        return SUCCESS;
    }

    @Override
    public int cuMemHostRegister(long p, long bytesize, int Flags) {
        return cuMemHostRegister_v2(p, bytesize, Flags);
    }

    @Override
    public int cuMemHostUnregister(long p) {
        if (!state.initialized) return NOT_INITIALIZED;
        Allocation a = allocations.get(p);
        if (a == null || a.kind != Allocation.Kind.HOST_REGISTERED) return HOST_MEMORY_NOT_REGISTERED;
        a.context.allocations.remove(a);
        freeAllocation(a);
        return SUCCESS;
    }

    // ---------------------------------------------------------------- copies

    /** Copies bytes after checking that each device-side range lies in one allocation. */
    private int copy(long dst, boolean dstDevice, long src, boolean srcDevice, long bytes) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (bytes == 0) return SUCCESS;
        if (bytes < 0 || dst == 0 || src == 0) return INVALID_VALUE;
        if (dstDevice && find(dst, bytes) == null) return INVALID_VALUE;
        if (srcDevice && find(src, bytes) == null) return INVALID_VALUE;
        return transfer(dst, src, bytes);
    }

    @Override
    public int cuMemcpyHtoD_v2(long dstDevice, long srcHost, long ByteCount) {
        return copy(dstDevice, true, srcHost, false, ByteCount);
    }

    @Override
    public int cuMemcpyDtoH_v2(long dstHost, long srcDevice, long ByteCount) {
        return copy(dstHost, false, srcDevice, true, ByteCount);
    }

    @Override
    public int cuMemcpyDtoD_v2(long dstDevice, long srcDevice, long ByteCount) {
        return copy(dstDevice, true, srcDevice, true, ByteCount);
    }

    @Override
    public int cuMemcpy(long dst, long src, long ByteCount) {
        // unified addressing: either side may be host or device memory
        return copy(dst, find(dst, 0) != null && ByteCount > 0, src, find(src, 0) != null && ByteCount > 0, ByteCount);
    }

    @Override
    public int cuMemcpyPeer(long dstDevice, long dstContext, long srcDevice, long srcContext, long ByteCount) {
        if (contexts.get(dstContext) == null || contexts.get(srcContext) == null) return INVALID_CONTEXT;
        return copy(dstDevice, true, srcDevice, true, ByteCount);
    }

    @Override
    public int cuMemcpyHtoDAsync_v2(long dstDevice, long srcHost, long ByteCount, long hStream) {
        int s = streamDone(hStream);
        return s != SUCCESS ? s : cuMemcpyHtoD_v2(dstDevice, srcHost, ByteCount);
    }

    @Override
    public int cuMemcpyDtoHAsync_v2(long dstHost, long srcDevice, long ByteCount, long hStream) {
        int s = streamDone(hStream);
        return s != SUCCESS ? s : cuMemcpyDtoH_v2(dstHost, srcDevice, ByteCount);
    }

    @Override
    public int cuMemcpyDtoDAsync_v2(long dstDevice, long srcDevice, long ByteCount, long hStream) {
        int s = streamDone(hStream);
        return s != SUCCESS ? s : cuMemcpyDtoD_v2(dstDevice, srcDevice, ByteCount);
    }

    @Override
    public int cuMemcpyAsync(long dst, long src, long ByteCount, long hStream) {
        int s = streamDone(hStream);
        return s != SUCCESS ? s : cuMemcpy(dst, src, ByteCount);
    }

    @Override
    public int cuMemcpyPeerAsync(long dstDevice, long dstContext, long srcDevice, long srcContext, long ByteCount, long hStream) {
        int s = streamDone(hStream);
        return s != SUCCESS ? s : cuMemcpyPeer(dstDevice, dstContext, srcDevice, srcContext, ByteCount);
    }

    // per-thread default stream variants: the same operations
    @Override public int cuMemcpyHtoD_v2_ptds(long d, long s, long n) { return cuMemcpyHtoD_v2(d, s, n); }
    @Override public int cuMemcpyDtoH_v2_ptds(long d, long s, long n) { return cuMemcpyDtoH_v2(d, s, n); }
    @Override public int cuMemcpyDtoD_v2_ptds(long d, long s, long n) { return cuMemcpyDtoD_v2(d, s, n); }
    @Override public int cuMemcpy_ptds(long d, long s, long n) { return cuMemcpy(d, s, n); }
    @Override public int cuMemcpyPeer_ptds(long d, long dc, long s, long sc, long n) { return cuMemcpyPeer(d, dc, s, sc, n); }
    @Override public int cuMemcpyHtoDAsync_v2_ptsz(long d, long s, long n, long st) { return cuMemcpyHtoDAsync_v2(d, s, n, st); }
    @Override public int cuMemcpyDtoHAsync_v2_ptsz(long d, long s, long n, long st) { return cuMemcpyDtoHAsync_v2(d, s, n, st); }
    @Override public int cuMemcpyDtoDAsync_v2_ptsz(long d, long s, long n, long st) { return cuMemcpyDtoDAsync_v2(d, s, n, st); }
    @Override public int cuMemcpyAsync_ptsz(long d, long s, long n, long st) { return cuMemcpyAsync(d, s, n, st); }
    @Override public int cuMemcpyPeerAsync_ptsz(long d, long dc, long s, long sc, long n, long st) { return cuMemcpyPeerAsync(d, dc, s, sc, n, st); }

    /** A field of a CUDA_MEMCPY2D/3D descriptor, read at the offset the spec gives for x86-64. */
    private static long field(CudaRecord r, long base, String name) {
        for (CudaRecord.Field f : r.fields()) {
            if (f.name().equals(name)) return f.size() == 8 ? getLong(base + f.offset()) : getInt(base + f.offset()) & 0xFFFF_FFFFL;
        }
        throw new IllegalStateException(r.name() + " has no field " + name);
    }

    /** CUDA Driver API, cuMemcpy2D / cuMemcpy3D: copies Depth × Height rows of WidthInBytes bytes between pitched linear memory. */
    private int copy3d(CudaRecord r, long p, boolean is3d) {
        int rc = checkContext();
        if (rc != SUCCESS) return rc;
        if (p == 0) return INVALID_VALUE;
        long width = field(r, p, "WidthInBytes"), height = field(r, p, "Height"), depth = is3d ? field(r, p, "Depth") : 1;
        int srcType = (int) field(r, p, "srcMemoryType"), dstType = (int) field(r, p, "dstMemoryType");
        if (srcType == MEMTYPE_ARRAY || dstType == MEMTYPE_ARRAY) return NOT_SUPPORTED;
        long src = srcType == MEMTYPE_HOST ? field(r, p, "srcHost") : field(r, p, "srcDevice");
        long dst = dstType == MEMTYPE_HOST ? field(r, p, "dstHost") : field(r, p, "dstDevice");
        long srcPitch = field(r, p, "srcPitch"), dstPitch = field(r, p, "dstPitch");
        long srcHeight = is3d ? field(r, p, "srcHeight") : height, dstHeight = is3d ? field(r, p, "dstHeight") : height;
        long srcX = field(r, p, "srcXInBytes"), srcY = field(r, p, "srcY"), dstX = field(r, p, "dstXInBytes"), dstY = field(r, p, "dstY");
        long srcZ = is3d ? field(r, p, "srcZ") : 0, dstZ = is3d ? field(r, p, "dstZ") : 0;
        if (width == 0 || height == 0 || depth == 0) return SUCCESS;
        if (srcPitch < width && height > 1 || dstPitch < width && height > 1) return INVALID_VALUE;
        long srcFirst = src + srcX + srcPitch * (srcY + srcHeight * srcZ);
        long dstFirst = dst + dstX + dstPitch * (dstY + dstHeight * dstZ);
        long srcSpan = srcPitch * (srcHeight * (depth - 1) + height - 1) + width;
        long dstSpan = dstPitch * (dstHeight * (depth - 1) + height - 1) + width;
        boolean srcDevice = srcType == MEMTYPE_DEVICE || srcType == MEMTYPE_UNIFIED && find(srcFirst, 0) != null;
        boolean dstDevice = dstType == MEMTYPE_DEVICE || dstType == MEMTYPE_UNIFIED && find(dstFirst, 0) != null;
        if (srcDevice && find(srcFirst, srcSpan) == null) return INVALID_VALUE;
        if (dstDevice && find(dstFirst, dstSpan) == null) return INVALID_VALUE;
        for (long z = 0; z < depth; z++) {
            for (long y = 0; y < height; y++) {
                long s = srcFirst + srcPitch * (y + srcHeight * z), d = dstFirst + dstPitch * (y + dstHeight * z);
                int e = transfer(d, s, width);
                if (e != SUCCESS) return e;
            }
        }
        return SUCCESS;
    }

    @Override public int cuMemcpy2D_v2(long pCopy) { return copy3d(memcpy2d, pCopy, false); }
    @Override public int cuMemcpy2DUnaligned_v2(long pCopy) { return copy3d(memcpy2d, pCopy, false); }
    @Override public int cuMemcpy3D_v2(long pCopy) { return copy3d(memcpy3d, pCopy, true); }
    @Override public int cuMemcpy2D_v2_ptds(long pCopy) { return cuMemcpy2D_v2(pCopy); }
    @Override public int cuMemcpy2DUnaligned_v2_ptds(long pCopy) { return cuMemcpy2DUnaligned_v2(pCopy); }
    @Override public int cuMemcpy3D_v2_ptds(long pCopy) { return cuMemcpy3D_v2(pCopy); }

    @Override
    public int cuMemcpy2DAsync_v2(long pCopy, long hStream) {
        int s = streamDone(hStream);
        return s != SUCCESS ? s : cuMemcpy2D_v2(pCopy);
    }

    @Override
    public int cuMemcpy3DAsync_v2(long pCopy, long hStream) {
        int s = streamDone(hStream);
        return s != SUCCESS ? s : cuMemcpy3D_v2(pCopy);
    }

    @Override public int cuMemcpy2DAsync_v2_ptsz(long pCopy, long hStream) { return cuMemcpy2DAsync_v2(pCopy, hStream); }
    @Override public int cuMemcpy3DAsync_v2_ptsz(long pCopy, long hStream) { return cuMemcpy3DAsync_v2(pCopy, hStream); }

    // ---------------------------------------------------------------- memset

    /** CUDA Driver API, cuMemsetD2D8/16/32: Height rows of Width elements of elementSize bytes, rows dstPitch apart. */
    private int memset(long dst, long pitch, long value, long width, long height, int elementSize) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (width == 0 || height == 0) return SUCCESS;
        if (dst % elementSize != 0 || (height > 1 && (pitch < width * elementSize || pitch % elementSize != 0))) return INVALID_VALUE;
        long rowBytes = width * elementSize;
        long span = pitch * (height - 1) + rowBytes;
        if (find(dst, span) == null) return INVALID_VALUE;
        return backend().memset(dst, pitch, value, width, height, elementSize, onDevice(dst, span));
    }

    @Override public int cuMemsetD8_v2(long dstDevice, int uc, long N) { return memset(dstDevice, N, uc, N, 1, 1); }
    @Override public int cuMemsetD16_v2(long dstDevice, int us, long N) { return memset(dstDevice, 2 * N, us, N, 1, 2); }
    @Override public int cuMemsetD32_v2(long dstDevice, int ui, long N) { return memset(dstDevice, 4 * N, ui, N, 1, 4); }
    @Override public int cuMemsetD2D8_v2(long dstDevice, long dstPitch, int uc, long Width, long Height) { return memset(dstDevice, dstPitch, uc, Width, Height, 1); }
    @Override public int cuMemsetD2D16_v2(long dstDevice, long dstPitch, int us, long Width, long Height) { return memset(dstDevice, dstPitch, us, Width, Height, 2); }
    @Override public int cuMemsetD2D32_v2(long dstDevice, long dstPitch, int ui, long Width, long Height) { return memset(dstDevice, dstPitch, ui, Width, Height, 4); }
    @Override public int cuMemsetD8_v2_ptds(long d, int v, long n) { return cuMemsetD8_v2(d, v, n); }
    @Override public int cuMemsetD16_v2_ptds(long d, int v, long n) { return cuMemsetD16_v2(d, v, n); }
    @Override public int cuMemsetD32_v2_ptds(long d, int v, long n) { return cuMemsetD32_v2(d, v, n); }
    @Override public int cuMemsetD2D8_v2_ptds(long d, long p, int v, long w, long h) { return cuMemsetD2D8_v2(d, p, v, w, h); }
    @Override public int cuMemsetD2D16_v2_ptds(long d, long p, int v, long w, long h) { return cuMemsetD2D16_v2(d, p, v, w, h); }
    @Override public int cuMemsetD2D32_v2_ptds(long d, long p, int v, long w, long h) { return cuMemsetD2D32_v2(d, p, v, w, h); }

    private int memsetAsync(long hStream, java.util.function.IntSupplier op) {
        int s = streamDone(hStream);
        return s != SUCCESS ? s : op.getAsInt();
    }

    @Override public int cuMemsetD8Async(long d, int v, long n, long st) { return memsetAsync(st, () -> cuMemsetD8_v2(d, v, n)); }
    @Override public int cuMemsetD16Async(long d, int v, long n, long st) { return memsetAsync(st, () -> cuMemsetD16_v2(d, v, n)); }
    @Override public int cuMemsetD32Async(long d, int v, long n, long st) { return memsetAsync(st, () -> cuMemsetD32_v2(d, v, n)); }
    @Override public int cuMemsetD2D8Async(long d, long p, int v, long w, long h, long st) { return memsetAsync(st, () -> cuMemsetD2D8_v2(d, p, v, w, h)); }
    @Override public int cuMemsetD2D16Async(long d, long p, int v, long w, long h, long st) { return memsetAsync(st, () -> cuMemsetD2D16_v2(d, p, v, w, h)); }
    @Override public int cuMemsetD2D32Async(long d, long p, int v, long w, long h, long st) { return memsetAsync(st, () -> cuMemsetD2D32_v2(d, p, v, w, h)); }
    @Override public int cuMemsetD8Async_ptsz(long d, int v, long n, long st) { return cuMemsetD8Async(d, v, n, st); }
    @Override public int cuMemsetD16Async_ptsz(long d, int v, long n, long st) { return cuMemsetD16Async(d, v, n, st); }
    @Override public int cuMemsetD32Async_ptsz(long d, int v, long n, long st) { return cuMemsetD32Async(d, v, n, st); }
    @Override public int cuMemsetD2D8Async_ptsz(long d, long p, int v, long w, long h, long st) { return cuMemsetD2D8Async(d, p, v, w, h, st); }
    @Override public int cuMemsetD2D16Async_ptsz(long d, long p, int v, long w, long h, long st) { return cuMemsetD2D16Async(d, p, v, w, h, st); }
    @Override public int cuMemsetD2D32Async_ptsz(long d, long p, int v, long w, long h, long st) { return cuMemsetD2D32Async(d, p, v, w, h, st); }

    // ---------------------------------------------------------------- pointer attributes

    /**
     * Writes one attribute of the memory at ptr (CUDA Driver API, cuPointerGetAttribute). Booleans
     * and enums are 4 bytes; handles, pointers, sizes and ids 8.
     *
     * @return SUCCESS, INVALID_VALUE for memory the driver does not know (when {@code strict}) or an
     *     attribute it does not have
     */
    private int pointerAttribute(long data, int attribute, long ptr, boolean strict) {
        Allocation a = find(ptr, 0);
        String name = null;
        for (var e : pointerAttribute.entrySet()) if (e.getValue() == attribute) name = e.getKey();
        if (name == null) return INVALID_VALUE;
        if (a == null) {
            if (strict) return INVALID_VALUE;
            // cuPointerGetAttributes: unknown memory gets zero values
            boolean wide = switch (name) {
                case "CONTEXT", "DEVICE_POINTER", "HOST_POINTER", "BUFFER_ID", "RANGE_START_ADDR", "RANGE_SIZE",
                     "ALLOWED_HANDLE_TYPES", "MEMPOOL_HANDLE", "MAPPING_SIZE", "MAPPING_BASE_ADDR", "MEMORY_BLOCK_ID", "P2P_TOKENS" -> true;
                default -> false;
            };
            if (name.equals("DEVICE_ORDINAL")) putInt(data, -2);
            else if (wide) putLong(data, 0);
            else putInt(data, 0);
            return SUCCESS;
        }
        boolean host = a.kind == Allocation.Kind.HOST_ALLOC || a.kind == Allocation.Kind.HOST_REGISTERED;
        switch (name) {
            case "CONTEXT" -> putLong(data, a.context.handle);
            case "MEMORY_TYPE" -> putInt(data, a.memoryType());
            case "DEVICE_POINTER" -> putLong(data, ptr);
            case "HOST_POINTER" -> {
                // device memory has no host mapping: an error for cuPointerGetAttribute, NULL for
                // cuPointerGetAttributes (cuda.h: "attributes are assigned default NULL values"; cudart relies on it)
                if (a.kind == Allocation.Kind.DEVICE && strict) return INVALID_VALUE;
                putLong(data, a.kind == Allocation.Kind.DEVICE ? 0 : ptr);
            }
            case "SYNC_MEMOPS" -> putInt(data, 1);
            case "BUFFER_ID" -> putLong(data, a.bufferId);
            case "IS_MANAGED" -> putInt(data, a.kind == Allocation.Kind.MANAGED ? 1 : 0);
            case "DEVICE_ORDINAL" -> putInt(data, host ? -1 : a.context.device);
            case "IS_LEGACY_CUDA_IPC_CAPABLE", "IS_GPU_DIRECT_RDMA_CAPABLE", "IS_HW_DECOMPRESS_CAPABLE" -> putInt(data, 0);
            case "RANGE_START_ADDR" -> putLong(data, a.address);
            case "RANGE_SIZE" -> putLong(data, a.size);
            case "MAPPED" -> putInt(data, 1);
            case "ALLOWED_HANDLE_TYPES" -> putLong(data, 0);
            case "ACCESS_FLAGS" -> putInt(data, 3); // CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE
            case "MEMPOOL_HANDLE" -> putLong(data, 0);
            case "MAPPING_SIZE" -> putLong(data, a.size);
            case "MAPPING_BASE_ADDR" -> putLong(data, a.address);
            case "MEMORY_BLOCK_ID" -> putLong(data, a.bufferId);
            default -> {
                return strict ? INVALID_VALUE : SUCCESS; // P2P_TOKENS: no peer-to-peer
            }
        }
        return SUCCESS;
    }

    @Override
    public int cuPointerGetAttribute(long data, int attribute, long ptr) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (data == 0) return INVALID_VALUE;
        return pointerAttribute(data, attribute, ptr, true);
    }

    @Override
    public int cuPointerGetAttributes(int numAttributes, long attributes, long data, long ptr) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (numAttributes <= 0 || attributes == 0 || data == 0) return INVALID_VALUE;
        for (int i = 0; i < numAttributes; i++) {
            int attr = getInt(attributes + 4L * i);
            long slot = getLong(data + 8L * i);
            if (slot == 0) continue;
            int r = pointerAttribute(slot, attr, ptr, false);
            if (r != SUCCESS) return r;
        }
        return SUCCESS;
    }

    @Override
    public int cuPointerSetAttribute(long value, int attribute, long ptr) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (attribute != pointerAttribute.get("SYNC_MEMOPS") || value == 0) return INVALID_VALUE;
        return find(ptr, 0) == null ? INVALID_VALUE : SUCCESS; // every operation is synchronous already
    }
}
