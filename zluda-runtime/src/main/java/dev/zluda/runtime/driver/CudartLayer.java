package dev.zluda.runtime.driver;

import dev.zluda.spec.CudaApi;
import dev.zluda.spec.CudaRecord;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static dev.zluda.runtime.driver.CuResult.*;
import static dev.zluda.runtime.driver.Native.at;
import static dev.zluda.runtime.driver.Native.getInt;
import static dev.zluda.runtime.driver.Native.getLong;
import static dev.zluda.runtime.driver.Native.putInt;
import static dev.zluda.runtime.driver.Native.putLong;

/**
 * What programs built with nvcc need on top of the other layers: stream-ordered allocation and
 * memory pools, CUDA arrays, stream attributes and capture status, the legacy launch API, hints that have no
 * effect on the emulator, and the points where device-side {@code printf} output is printed
 * ({@code Backend.flushDeviceOutput}). CUDA prints a kernel's output
 * when the host next reaches one of these (CUDA Programming Guide, "Formatted Output"): the start
 * of a kernel launch, {@code cuCtxSynchronize}, {@code cuStreamSynchronize},
 * {@code cuEventSynchronize}, a blocking {@code cuMemcpy*}, module loading and unloading, context
 * destruction or reset, and before a stream callback runs. Here every operation completes when its
 * call returns, so the asynchronous copies (which call the blocking ones) flush too.
 */
abstract class CudartLayer extends ExportTableLayer {
    private final CudaRecord poolProps, accessDesc, attrValue;

    CudartLayer(CudaApi api, MemorySegment exports) {
        super(api, exports);
        poolProps = api.record("CUmemPoolProps").orElseThrow();
        accessDesc = api.record("CUmemAccessDesc").orElseThrow();
        attrValue = api.record("CUstreamAttrValue").or(() -> api.record("CUlaunchAttributeValue")).orElseThrow();
    }

    /**
     * Offset of a field; "location.type" and "location.id" are the two ints of the nested
     * CUmemLocation ({CUmemLocationType type; int id}, 8 bytes, cuda.h).
     */
    static long offset(CudaRecord r, String path) {
        String[] parts = path.split("\\.");
        long off = -1;
        for (CudaRecord.Field f : r.fields()) if (f.name().equals(parts[0])) off = f.offset();
        if (off < 0) throw new IllegalStateException(r.name() + " has no field " + parts[0]);
        if (parts.length == 1) return off;
        return switch (parts[1]) {
            case "type" -> off;
            case "id" -> off + 4;
            default -> throw new IllegalStateException("CUmemLocation has no field " + parts[1]);
        };
    }

    private int flushed(int result) {
        flush();
        return result;
    }

    /** Prints the device printf output (the backend's, none before cuInit). */
    private void flush() {
        state.flushDeviceOutput();
    }

    // ---------------------------------------------------------------- device printf flush points

    @Override
    public int cuLaunchKernel(long f, int gridDimX, int gridDimY, int gridDimZ, int blockDimX, int blockDimY, int blockDimZ,
                              int sharedMemBytes, long hStream, long kernelParams, long extra) {
        flush();
        return super.cuLaunchKernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams, extra);
    }

    @Override
    public int cuLaunchKernelEx(long config, long f, long kernelParams, long extra) {
        flush();
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

    /** cuMemcpy2D_v2, also to and from CUDA arrays (their rows as pitched device memory). */
    @Override
    public int cuMemcpy2D_v2(long pCopy) {
        try (Arena a = Arena.ofConfined()) {
            long c = arraysAsDevice(pCopy, false, a);
            return flushed(c == 0 && pCopy != 0 ? INVALID_VALUE : super.cuMemcpy2D_v2(c));
        }
    }

    /** cuMemcpy2DUnaligned_v2, also to and from CUDA arrays. */
    @Override
    public int cuMemcpy2DUnaligned_v2(long pCopy) {
        try (Arena a = Arena.ofConfined()) {
            long c = arraysAsDevice(pCopy, false, a);
            return flushed(c == 0 && pCopy != 0 ? INVALID_VALUE : super.cuMemcpy2DUnaligned_v2(c));
        }
    }

    /** cuMemcpy3D_v2, also to and from CUDA arrays (their slices as pitched device memory). */
    @Override
    public int cuMemcpy3D_v2(long pCopy) {
        try (Arena a = Arena.ofConfined()) {
            long c = arraysAsDevice(pCopy, true, a);
            return flushed(c == 0 && pCopy != 0 ? INVALID_VALUE : super.cuMemcpy3D_v2(c));
        }
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
        flush();
        return super.cuCtxDestroy_v2(ctx);
    }

    @Override
    public int cuDevicePrimaryCtxReset_v2(int dev) {
        flush();
        return super.cuDevicePrimaryCtxReset_v2(dev);
    }

    @Override
    public int cuLaunchHostFunc(long hStream, long fn, long userData) {
        flush();
        return super.cuLaunchHostFunc(hStream, fn, userData);
    }

    @Override
    public int cuStreamAddCallback(long hStream, long callback, long userData, int flags) {
        flush();
        return super.cuStreamAddCallback(hStream, callback, userData, flags);
    }

    // ---------------------------------------------------------------- memory pools, stream-ordered allocation

    /** CUmemPool_attribute values (cuda.h). */
    static final int POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES = 1, POOL_REUSE_ALLOW_OPPORTUNISTIC = 2,
            POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES = 3, POOL_RELEASE_THRESHOLD = 4, POOL_RESERVED_MEM_CURRENT = 5,
            POOL_RESERVED_MEM_HIGH = 6, POOL_USED_MEM_CURRENT = 7, POOL_USED_MEM_HIGH = 8;
    /** CU_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_LOCATION_TYPE_DEVICE, CU_MEM_ACCESS_FLAGS_PROT_READWRITE. */
    static final int ALLOCATION_TYPE_PINNED = 1, LOCATION_TYPE_DEVICE = 1, ACCESS_READWRITE = 3;

    /**
     * A memory pool (CUmemoryPool). Allocations from it are ordinary device allocations; the pool
     * keeps no memory of its own (what it "reserves" is what is in use), so the release threshold
     * and trimming change nothing and the reuse policies have nothing to reuse.
     */
    static final class Pool {
        final long handle;
        final int device;
        final boolean isDefault;
        final int[] reuse = {1, 1, 1};
        volatile long releaseThreshold;
        long used, usedHigh;
        final Set<Long> allocations = ConcurrentHashMap.newKeySet();

        Pool(long handle, int device, boolean isDefault) {
            this.handle = handle;
            this.device = device;
            this.isDefault = isDefault;
        }
    }

    final Handles<Pool> pools = new Handles<>(0x20);
    private final Map<Integer, Pool> defaultPools = new ConcurrentHashMap<>();
    private final Map<Integer, Pool> currentPools = new ConcurrentHashMap<>();
    /** Pool of each live stream-ordered allocation, by address, with its size. */
    private final Map<Long, long[]> poolAllocations = new ConcurrentHashMap<>();

    private Pool defaultPool(int dev) {
        return defaultPools.computeIfAbsent(dev, d -> {
            long h = pools.reserve();
            Pool p = new Pool(h, d, true);
            pools.put(h, p);
            return p;
        });
    }

    /**
     * The device's default memory pool (CUDA Driver API, cuDeviceGetDefaultMemPool), created on first
     * use. CUDA_ERROR_INVALID_DEVICE for a bad ordinal, CUDA_ERROR_INVALID_VALUE for a NULL output.
     */
    @Override
    public int cuDeviceGetDefaultMemPool(long poolOut, int dev) {
        if (!state.initialized) return NOT_INITIALIZED;
        int r = checkDevice(dev);
        if (r != SUCCESS) return r;
        if (poolOut == 0) return INVALID_VALUE;
        putLong(poolOut, defaultPool(dev).handle);
        return SUCCESS;
    }

    /** The device's current pool: the default one until cuDeviceSetMemPool names another. */
    @Override
    public int cuDeviceGetMemPool(long pool, int dev) {
        if (!state.initialized) return NOT_INITIALIZED;
        int r = checkDevice(dev);
        if (r != SUCCESS) return r;
        if (pool == 0) return INVALID_VALUE;
        Pool p = currentPools.get(dev);
        putLong(pool, (p != null && pools.get(p.handle) != null ? p : defaultPool(dev)).handle);
        return SUCCESS;
    }

    /** cuDeviceSetMemPool: the pool must belong to the device (CUDA_ERROR_INVALID_DEVICE otherwise). */
    @Override
    public int cuDeviceSetMemPool(int dev, long pool) {
        if (!state.initialized) return NOT_INITIALIZED;
        int r = checkDevice(dev);
        if (r != SUCCESS) return r;
        Pool p = pools.get(pool);
        if (p == null) return INVALID_VALUE;
        if (p.device != dev) return INVALID_DEVICE;
        currentPools.put(dev, p);
        return SUCCESS;
    }

    /**
     * cuMemPoolCreate: page-locked device memory on a valid device, no shareable handle types (IPC
     * is not supported: CUDA_ERROR_NOT_SUPPORTED), any maximum size. Other allocation or location
     * types: CUDA_ERROR_INVALID_VALUE.
     */
    @Override
    public int cuMemPoolCreate(long pool, long poolPropsPtr) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (pool == 0 || poolPropsPtr == 0) return INVALID_VALUE;
        int allocType = getInt(poolPropsPtr + offset(poolProps, "allocType"));
        int handleTypes = getInt(poolPropsPtr + offset(poolProps, "handleTypes"));
        int locType = getInt(poolPropsPtr + offset(poolProps, "location.type"));
        int locId = getInt(poolPropsPtr + offset(poolProps, "location.id"));
        if (allocType != ALLOCATION_TYPE_PINNED || locType != LOCATION_TYPE_DEVICE) return INVALID_VALUE;
        int r = checkDevice(locId);
        if (r != SUCCESS) return r == INVALID_DEVICE ? INVALID_VALUE : r;
        if (handleTypes != 0) return NOT_SUPPORTED;
        long h = pools.reserve();
        pools.put(h, new Pool(h, locId, false));
        putLong(pool, h);
        return SUCCESS;
    }

    /**
     * cuMemPoolDestroy: a default pool cannot be destroyed (CUDA_ERROR_INVALID_VALUE); when the
     * destroyed pool was a device's current pool, the default pool becomes current again.
     * Allocations still live stay valid until freed, as CUDA specifies.
     */
    @Override
    public int cuMemPoolDestroy(long pool) {
        if (!state.initialized) return NOT_INITIALIZED;
        Pool p = pools.get(pool);
        if (p == null || p.isDefault) return INVALID_VALUE;
        pools.remove(pool);
        currentPools.remove(p.device, p);
        return SUCCESS;
    }

    /** cuMemPoolGetAttribute: reuse flags (int), release threshold and memory figures (cuuint64_t, bytes). */
    @Override
    public int cuMemPoolGetAttribute(long pool, int attr, long value) {
        if (!state.initialized) return NOT_INITIALIZED;
        Pool p = pools.get(pool);
        if (p == null || value == 0) return INVALID_VALUE;
        synchronized (p) {
            switch (attr) {
                case POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES, POOL_REUSE_ALLOW_OPPORTUNISTIC, POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES ->
                        putInt(value, p.reuse[attr - 1]);
                case POOL_RELEASE_THRESHOLD -> putLong(value, p.releaseThreshold);
                case POOL_RESERVED_MEM_CURRENT, POOL_USED_MEM_CURRENT -> putLong(value, p.used);
                case POOL_RESERVED_MEM_HIGH, POOL_USED_MEM_HIGH -> putLong(value, p.usedHigh);
                default -> {
                    return INVALID_VALUE;
                }
            }
        }
        return SUCCESS;
    }

    /**
     * cuMemPoolSetAttribute: reuse flags and release threshold are stored; the high-water marks may
     * only be reset (to 0, which sets them to the current figure); the current figures are read-only
     * (CUDA_ERROR_INVALID_VALUE).
     */
    @Override
    public int cuMemPoolSetAttribute(long pool, int attr, long value) {
        if (!state.initialized) return NOT_INITIALIZED;
        Pool p = pools.get(pool);
        if (p == null || value == 0) return INVALID_VALUE;
        synchronized (p) {
            switch (attr) {
                case POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES, POOL_REUSE_ALLOW_OPPORTUNISTIC, POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES ->
                        p.reuse[attr - 1] = getInt(value) != 0 ? 1 : 0;
                case POOL_RELEASE_THRESHOLD -> p.releaseThreshold = getLong(value);
                case POOL_RESERVED_MEM_HIGH, POOL_USED_MEM_HIGH -> {
                    if (getLong(value) != 0) return INVALID_VALUE;
                    p.usedHigh = p.used;
                }
                default -> {
                    return INVALID_VALUE;
                }
            }
        }
        return SUCCESS;
    }

    /** cuMemPoolTrimTo: the pool holds no unused memory, so there is nothing to release. */
    @Override
    public int cuMemPoolTrimTo(long pool, long minBytesToKeep) {
        if (!state.initialized) return NOT_INITIALIZED;
        return pools.get(pool) == null ? INVALID_VALUE : SUCCESS;
    }

    /**
     * cuMemPoolSetAccess: the only device is the pool's own, which always has read-write access;
     * asking for anything else for it is CUDA_ERROR_INVALID_VALUE, as is an unknown device.
     */
    @Override
    public int cuMemPoolSetAccess(long pool, long map, long count) {
        if (!state.initialized) return NOT_INITIALIZED;
        Pool p = pools.get(pool);
        if (p == null || (count > 0 && map == 0) || count < 0) return INVALID_VALUE;
        long size = accessDesc.size();
        for (long i = 0; i < count; i++) {
            long d = map + i * size;
            int type = getInt(d + offset(accessDesc, "location.type")), id = getInt(d + offset(accessDesc, "location.id"));
            int flags = getInt(d + offset(accessDesc, "flags"));
            if (type != LOCATION_TYPE_DEVICE || checkDevice(id) != SUCCESS) return INVALID_VALUE;
            if (id == p.device && flags != ACCESS_READWRITE) return INVALID_VALUE;
        }
        return SUCCESS;
    }

    /** cuMemPoolGetAccess: read-write for the pool's device, none for any other location. */
    @Override
    public int cuMemPoolGetAccess(long flags, long memPool, long location) {
        if (!state.initialized) return NOT_INITIALIZED;
        Pool p = pools.get(memPool);
        if (p == null || flags == 0 || location == 0) return INVALID_VALUE;
        int type = getInt(location), id = getInt(location + 4);
        putInt(flags, type == LOCATION_TYPE_DEVICE && id == p.device ? ACCESS_READWRITE : 0);
        return SUCCESS;
    }

    private int allocFromPool(long dptr, long bytesize, Pool p, long hStream) {
        int r = checkStream(hStream);
        if (r != SUCCESS) return r;
        if (p == null || dptr == 0) return INVALID_VALUE;
        if (bytesize == 0) return INVALID_VALUE;
        r = cuMemAlloc_v2(dptr, bytesize);
        if (r != SUCCESS) return r;
        long a = getLong(dptr);
        synchronized (p) {
            p.used += bytesize;
            p.usedHigh = Math.max(p.usedHigh, p.used);
        }
        p.allocations.add(a);
        poolAllocations.put(a, new long[] {p.handle, bytesize});
        return SUCCESS;
    }

    /**
     * cuMemAllocAsync (CUDA Driver API, Stream Ordered Memory Allocator): from the current pool of
     * the calling context's device; the memory is usable at once (work on every stream has
     * completed when its call returns).
     */
    @Override
    public int cuMemAllocAsync(long dptr, long bytesize, long hStream) {
        if (!state.initialized) return NOT_INITIALIZED;
        int r = checkContext();
        if (r != SUCCESS) return r;
        Pool p = currentPools.get(current().device);
        return allocFromPool(dptr, bytesize, p != null && pools.get(p.handle) != null ? p : defaultPool(current().device), hStream);
    }

    @Override
    public int cuMemAllocAsync_ptsz(long dptr, long bytesize, long hStream) {
        return cuMemAllocAsync(dptr, bytesize, hStream);
    }

    /** cuMemAllocFromPoolAsync: as cuMemAllocAsync, from the given pool. */
    @Override
    public int cuMemAllocFromPoolAsync(long dptr, long bytesize, long pool, long hStream) {
        if (!state.initialized) return NOT_INITIALIZED;
        return allocFromPool(dptr, bytesize, pools.get(pool), hStream);
    }

    @Override
    public int cuMemAllocFromPoolAsync_ptsz(long dptr, long bytesize, long pool, long hStream) {
        return cuMemAllocFromPoolAsync(dptr, bytesize, pool, hStream);
    }

    /**
     * cuMemFreeAsync: frees memory from cuMemAllocAsync/FromPoolAsync (or cuMemAlloc) once the
     * stream's earlier work is done, which here is at once. CUDA_ERROR_INVALID_VALUE for a pointer
     * that is not the start of a device allocation.
     */
    @Override
    public int cuMemFreeAsync(long dptr, long hStream) {
        int r = streamDone(hStream);
        if (r != SUCCESS) return r;
        if (dptr == 0) return INVALID_VALUE;
        r = cuMemFree_v2(dptr);
        if (r != SUCCESS) return r;
        long[] pa = poolAllocations.remove(dptr);
        if (pa != null) {
            Pool p = pools.get(pa[0]);
            if (p == null) p = defaultPools.values().stream().filter(x -> x.handle == pa[0]).findFirst().orElse(null);
            if (p != null) {
                synchronized (p) {
                    p.used -= pa[1];
                }
                p.allocations.remove(dptr);
            }
        }
        return SUCCESS;
    }

    @Override
    public int cuMemFreeAsync_ptsz(long dptr, long hStream) {
        return cuMemFreeAsync(dptr, hStream);
    }

    // ---------------------------------------------------------------- hints without effect on the emulator

    /** CUmem_advise values 1..6 (SET/UNSET_READ_MOSTLY, PREFERRED_LOCATION, ACCESSED_BY). */
    private static boolean validAdvice(int advice) {
        return advice >= 1 && advice <= 6;
    }

    /** A range the device can address: any host or device memory (pageable memory access is reported). */
    private int checkRange(long devPtr, long count) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        return devPtr == 0 || count <= 0 ? INVALID_VALUE : SUCCESS;
    }

    /**
     * cuMemAdvise: device and host share one memory here, so advice has no effect; the arguments are
     * checked (advice 1..6, device an ordinal or CU_DEVICE_CPU = -1; CUDA_ERROR_INVALID_VALUE /
     * CUDA_ERROR_INVALID_DEVICE).
     */
    @Override
    public int cuMemAdvise(long devPtr, long count, int advice, int device) {
        int r = checkRange(devPtr, count);
        if (r != SUCCESS) return r;
        if (!validAdvice(advice)) return INVALID_VALUE;
        return device == -1 ? SUCCESS : checkDevice(device);
    }

    /** cuMemAdvise_v2: as cuMemAdvise, the location a CUmemLocation (DEVICE with an ordinal, HOST, HOST_NUMA*). */
    @Override
    public int cuMemAdvise_v2(long devPtr, long count, int advice, long location) {
        int r = checkRange(devPtr, count);
        if (r != SUCCESS) return r;
        if (!validAdvice(advice) || location == 0) return INVALID_VALUE;
        return checkLocation(location);
    }

    /** CUmemLocationType: DEVICE 1 (id an ordinal), HOST 2, HOST_NUMA 3, HOST_NUMA_CURRENT 4. */
    private int checkLocation(long location) {
        int type = getInt(location), id = getInt(location + 4);
        if (type == LOCATION_TYPE_DEVICE) return checkDevice(id) == SUCCESS ? SUCCESS : INVALID_DEVICE;
        return type >= 2 && type <= 4 ? SUCCESS : INVALID_VALUE;
    }

    /** cuMemPrefetchAsync: nothing to move (one memory); arguments and stream checked. */
    @Override
    public int cuMemPrefetchAsync(long devPtr, long count, int dstDevice, long hStream) {
        int r = checkStream(hStream);
        if (r == SUCCESS) r = checkRange(devPtr, count);
        if (r != SUCCESS) return r;
        return dstDevice == -1 ? SUCCESS : checkDevice(dstDevice);
    }

    @Override
    public int cuMemPrefetchAsync_ptsz(long devPtr, long count, int dstDevice, long hStream) {
        return cuMemPrefetchAsync(devPtr, count, dstDevice, hStream);
    }

    /** cuMemPrefetchAsync_v2: as cuMemPrefetchAsync, to a CUmemLocation; flags must be 0. */
    @Override
    public int cuMemPrefetchAsync_v2(long devPtr, long count, long location, int flags, long hStream) {
        int r = checkStream(hStream);
        if (r == SUCCESS) r = checkRange(devPtr, count);
        if (r != SUCCESS) return r;
        if (location == 0 || flags != 0) return INVALID_VALUE;
        return checkLocation(location);
    }

    @Override
    public int cuMemPrefetchAsync_v2_ptsz(long devPtr, long count, long location, int flags, long hStream) {
        return cuMemPrefetchAsync_v2(devPtr, count, location, flags, hStream);
    }

    /** cuStreamAttachMemAsync: managed memory is visible to every stream and the host; flags GLOBAL 1, HOST 2, SINGLE 4. */
    @Override
    public int cuStreamAttachMemAsync(long hStream, long dptr, long length, int flags) {
        int r = checkStream(hStream);
        if (r != SUCCESS) return r;
        if (dptr == 0 || (flags != 1 && flags != 2 && flags != 4)) return INVALID_VALUE;
        return SUCCESS;
    }

    @Override
    public int cuStreamAttachMemAsync_ptsz(long hStream, long dptr, long length, int flags) {
        return cuStreamAttachMemAsync(hStream, dptr, length, flags);
    }

    /** cuProfilerStart: no profiler is attached to the emulator; success, as NVIDIA's driver without one. */
    @Override
    public int cuProfilerStart() {
        return checkContext();
    }

    /** cuProfilerStop: see {@link #cuProfilerStart()}. */
    @Override
    public int cuProfilerStop() {
        return checkContext();
    }

    /** cuCtxResetPersistingL2Cache: the emulator has no L2 cache to reset. */
    @Override
    public int cuCtxResetPersistingL2Cache() {
        return checkContext();
    }

    // ---------------------------------------------------------------- CUDA arrays

    /** CU_MEMORYTYPE_DEVICE, CU_MEMORYTYPE_ARRAY. */
    private static final int MEMTYPE_DEVICE = 2, MEMTYPE_ARRAY = 3;
    /** CUDA_ARRAY3D_SURFACE_LDST: the only flag accepted (the others need layered, cubemap or gather textures). */
    private static final int ARRAY3D_SURFACE_LDST = 0x02;

    /**
     * A CUDA array: here row-major linear device memory of width × max(height,1) × max(depth,1)
     * elements of {@code elementBytes} (format size × channels); textures and surfaces, which would
     * read it in other layouts, are not implemented.
     */
    static final class CuArray {
        final long handle, base, width, height, depth;
        final int format, channels, flags, elementBytes;

        CuArray(long handle, long base, long width, long height, long depth, int format, int channels, int flags, int elementBytes) {
            this.handle = handle;
            this.base = base;
            this.width = width;
            this.height = height;
            this.depth = depth;
            this.format = format;
            this.channels = channels;
            this.flags = flags;
            this.elementBytes = elementBytes;
        }

        long rowBytes() {
            return width * elementBytes;
        }

        long bytes() {
            return rowBytes() * Math.max(1, height) * Math.max(1, depth);
        }
    }

    final Handles<CuArray> arrays = new Handles<>(0x21);

    /** Bytes of one channel of a CUarray_format: (UNSIGNED/SIGNED_)INT8/16/32, HALF, FLOAT; -1 for the others. */
    static int formatBytes(int format) {
        return switch (format) {
            case 0x01, 0x08 -> 1;
            case 0x02, 0x09, 0x10 -> 2;
            case 0x03, 0x0a, 0x20 -> 4;
            default -> -1;
        };
    }

    private int createArray(long pHandle, long width, long height, long depth, int format, int channels, int flags) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (pHandle == 0 || width <= 0 || height < 0 || depth < 0 || (depth > 0 && height == 0)) return INVALID_VALUE;
        if (channels != 1 && channels != 2 && channels != 4) return INVALID_VALUE;
        int fb = formatBytes(format);
        if (fb < 0) return format > 0 ? NOT_SUPPORTED : INVALID_VALUE;
        if ((flags & ~ARRAY3D_SURFACE_LDST) != 0) return NOT_SUPPORTED;
        long elem = (long) fb * channels;
        long bytes;
        try {
            bytes = Math.multiplyExact(Math.multiplyExact(Math.multiplyExact(width, elem), Math.max(1, height)), Math.max(1, depth));
        } catch (ArithmeticException e) {
            return INVALID_VALUE;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(8);
            r = cuMemAlloc_v2(p.address(), bytes);
            if (r != SUCCESS) return r;
            long h = arrays.reserve();
            arrays.put(h, new CuArray(h, p.get(ValueLayout.JAVA_LONG, 0), width, height, depth, format, channels, flags, (int) elem));
            putLong(pHandle, h);
        }
        return SUCCESS;
    }

    /** cuArrayCreate_v2 (CUDA_ARRAY_DESCRIPTOR: Width, Height, Format, NumChannels): a 1D (Height 0) or 2D array. */
    @Override
    public int cuArrayCreate_v2(long pHandle, long desc) {
        if (desc == 0) return INVALID_VALUE;
        return createArray(pHandle, getLong(desc), getLong(desc + 8), 0, getInt(desc + 16), getInt(desc + 20), 0);
    }

    /** cuArrayCreate, the CUDA 3.1 form: CUDA_ARRAY_DESCRIPTOR_v1 with 32-bit Width and Height. */
    @Override
    public int cuArrayCreate(long pHandle, long desc) {
        if (desc == 0) return INVALID_VALUE;
        return createArray(pHandle, getInt(desc) & 0xFFFF_FFFFL, getInt(desc + 4) & 0xFFFF_FFFFL, 0, getInt(desc + 8), getInt(desc + 12), 0);
    }

    /** cuArray3DCreate_v2 (CUDA_ARRAY3D_DESCRIPTOR: Width, Height, Depth, Format, NumChannels, Flags). */
    @Override
    public int cuArray3DCreate_v2(long pHandle, long desc) {
        if (desc == 0) return INVALID_VALUE;
        return createArray(pHandle, getLong(desc), getLong(desc + 8), getLong(desc + 16), getInt(desc + 24), getInt(desc + 28), getInt(desc + 32));
    }

    /** cuArray3DCreate, the CUDA 3.1 form with 32-bit sizes (CUDA_ARRAY3D_DESCRIPTOR_v1). */
    @Override
    public int cuArray3DCreate(long pHandle, long desc) {
        if (desc == 0) return INVALID_VALUE;
        return createArray(pHandle, getInt(desc) & 0xFFFF_FFFFL, getInt(desc + 4) & 0xFFFF_FFFFL, getInt(desc + 8) & 0xFFFF_FFFFL,
                getInt(desc + 12), getInt(desc + 16), getInt(desc + 20));
    }

    private CuArray array(long h) {
        return h == 0 ? null : arrays.get(h);
    }

    /** cuArrayDestroy: frees the array's memory; CUDA_ERROR_INVALID_HANDLE for an unknown array. */
    @Override
    public int cuArrayDestroy(long hArray) {
        if (!state.initialized) return NOT_INITIALIZED;
        CuArray a = arrays.remove(hArray);
        if (a == null) return INVALID_HANDLE;
        return cuMemFree_v2(a.base);
    }

    /** cuArrayGetDescriptor_v2: Width, Height, Format, NumChannels as created (a 3D array's depth is not part of it). */
    @Override
    public int cuArrayGetDescriptor_v2(long desc, long hArray) {
        if (!state.initialized) return NOT_INITIALIZED;
        CuArray a = array(hArray);
        if (a == null) return INVALID_HANDLE;
        if (desc == 0) return INVALID_VALUE;
        putLong(desc, a.width);
        putLong(desc + 8, a.height);
        putInt(desc + 16, a.format);
        putInt(desc + 20, a.channels);
        return SUCCESS;
    }

    /** cuArrayGetDescriptor: the CUDA 3.1 form (32-bit Width and Height). */
    @Override
    public int cuArrayGetDescriptor(long desc, long hArray) {
        if (!state.initialized) return NOT_INITIALIZED;
        CuArray a = array(hArray);
        if (a == null) return INVALID_HANDLE;
        if (desc == 0) return INVALID_VALUE;
        putInt(desc, (int) a.width);
        putInt(desc + 4, (int) a.height);
        putInt(desc + 8, a.format);
        putInt(desc + 12, a.channels);
        return SUCCESS;
    }

    /** cuArray3DGetDescriptor_v2: Width, Height, Depth, Format, NumChannels, Flags as created. */
    @Override
    public int cuArray3DGetDescriptor_v2(long desc, long hArray) {
        if (!state.initialized) return NOT_INITIALIZED;
        CuArray a = array(hArray);
        if (a == null) return INVALID_HANDLE;
        if (desc == 0) return INVALID_VALUE;
        putLong(desc, a.width);
        putLong(desc + 8, a.height);
        putLong(desc + 16, a.depth);
        putInt(desc + 24, a.format);
        putInt(desc + 28, a.channels);
        putInt(desc + 32, a.flags);
        return SUCCESS;
    }

    /** cuArray3DGetDescriptor: the CUDA 3.1 form (32-bit sizes). */
    @Override
    public int cuArray3DGetDescriptor(long desc, long hArray) {
        if (!state.initialized) return NOT_INITIALIZED;
        CuArray a = array(hArray);
        if (a == null) return INVALID_HANDLE;
        if (desc == 0) return INVALID_VALUE;
        putInt(desc, (int) a.width);
        putInt(desc + 4, (int) a.height);
        putInt(desc + 8, (int) a.depth);
        putInt(desc + 12, a.format);
        putInt(desc + 16, a.channels);
        putInt(desc + 20, a.flags);
        return SUCCESS;
    }

    /** The device address of [offset, offset+bytes) of an array (row-major bytes), or 0 when it is not inside. */
    private static long inside(CuArray a, long offset, long bytes) {
        return a == null || offset < 0 || bytes < 0 || offset + bytes > a.bytes() ? 0 : a.base + offset;
    }

    /** cuMemcpyHtoA_v2: bytes from host memory to the array at a byte offset (row-major); outside the array: CUDA_ERROR_INVALID_VALUE. */
    @Override
    public int cuMemcpyHtoA_v2(long dstArray, long dstOffset, long srcHost, long ByteCount) {
        CuArray a = array(dstArray);
        if (a == null) return state.initialized ? INVALID_HANDLE : NOT_INITIALIZED;
        long d = inside(a, dstOffset, ByteCount);
        return d == 0 ? INVALID_VALUE : cuMemcpyHtoD_v2(d, srcHost, ByteCount);
    }

    /** cuMemcpyAtoH_v2: bytes from the array at a byte offset to host memory. */
    @Override
    public int cuMemcpyAtoH_v2(long dstHost, long srcArray, long srcOffset, long ByteCount) {
        CuArray a = array(srcArray);
        if (a == null) return state.initialized ? INVALID_HANDLE : NOT_INITIALIZED;
        long s = inside(a, srcOffset, ByteCount);
        return s == 0 ? INVALID_VALUE : cuMemcpyDtoH_v2(dstHost, s, ByteCount);
    }

    /** cuMemcpyDtoA_v2: bytes from device memory to the array at a byte offset. */
    @Override
    public int cuMemcpyDtoA_v2(long dstArray, long dstOffset, long srcDevice, long ByteCount) {
        CuArray a = array(dstArray);
        if (a == null) return state.initialized ? INVALID_HANDLE : NOT_INITIALIZED;
        long d = inside(a, dstOffset, ByteCount);
        return d == 0 ? INVALID_VALUE : cuMemcpyDtoD_v2(d, srcDevice, ByteCount);
    }

    /** cuMemcpyAtoD_v2: bytes from the array at a byte offset to device memory. */
    @Override
    public int cuMemcpyAtoD_v2(long dstDevice, long srcArray, long srcOffset, long ByteCount) {
        CuArray a = array(srcArray);
        if (a == null) return state.initialized ? INVALID_HANDLE : NOT_INITIALIZED;
        long s = inside(a, srcOffset, ByteCount);
        return s == 0 ? INVALID_VALUE : cuMemcpyDtoD_v2(dstDevice, s, ByteCount);
    }

    /** cuMemcpyAtoA_v2: bytes between two arrays at byte offsets. */
    @Override
    public int cuMemcpyAtoA_v2(long dstArray, long dstOffset, long srcArray, long srcOffset, long ByteCount) {
        CuArray da = array(dstArray), sa = array(srcArray);
        if (da == null || sa == null) return state.initialized ? INVALID_HANDLE : NOT_INITIALIZED;
        long d = inside(da, dstOffset, ByteCount), s = inside(sa, srcOffset, ByteCount);
        return d == 0 || s == 0 ? INVALID_VALUE : cuMemcpyDtoD_v2(d, s, ByteCount);
    }

    /** cuMemcpyHtoAAsync_v2: as cuMemcpyHtoA_v2, on a stream. */
    @Override
    public int cuMemcpyHtoAAsync_v2(long dstArray, long dstOffset, long srcHost, long ByteCount, long hStream) {
        int r = streamDone(hStream);
        return r != SUCCESS ? r : cuMemcpyHtoA_v2(dstArray, dstOffset, srcHost, ByteCount);
    }

    /** cuMemcpyAtoHAsync_v2: as cuMemcpyAtoH_v2, on a stream. */
    @Override
    public int cuMemcpyAtoHAsync_v2(long dstHost, long srcArray, long srcOffset, long ByteCount, long hStream) {
        int r = streamDone(hStream);
        return r != SUCCESS ? r : cuMemcpyAtoH_v2(dstHost, srcArray, srcOffset, ByteCount);
    }

    @Override public int cuMemcpyHtoA_v2_ptds(long a, long o, long h, long n) { return cuMemcpyHtoA_v2(a, o, h, n); }
    @Override public int cuMemcpyAtoH_v2_ptds(long h, long a, long o, long n) { return cuMemcpyAtoH_v2(h, a, o, n); }
    @Override public int cuMemcpyDtoA_v2_ptds(long a, long o, long d, long n) { return cuMemcpyDtoA_v2(a, o, d, n); }
    @Override public int cuMemcpyAtoD_v2_ptds(long d, long a, long o, long n) { return cuMemcpyAtoD_v2(d, a, o, n); }
    @Override public int cuMemcpyAtoA_v2_ptds(long da, long dof, long sa, long sof, long n) { return cuMemcpyAtoA_v2(da, dof, sa, sof, n); }
    @Override public int cuMemcpyHtoAAsync_v2_ptsz(long a, long o, long h, long n, long s) { return cuMemcpyHtoAAsync_v2(a, o, h, n, s); }
    @Override public int cuMemcpyAtoHAsync_v2_ptsz(long h, long a, long o, long n, long s) { return cuMemcpyAtoHAsync_v2(h, a, o, n, s); }

    /** The CUDA 3.1 forms with 32-bit offsets and sizes. */
    @Override public int cuMemcpyHtoA(long a, int o, long h, int n) { return cuMemcpyHtoA_v2(a, o & 0xFFFF_FFFFL, h, n & 0xFFFF_FFFFL); }
    @Override public int cuMemcpyAtoH(long h, long a, int o, int n) { return cuMemcpyAtoH_v2(h, a, o & 0xFFFF_FFFFL, n & 0xFFFF_FFFFL); }
    @Override public int cuMemcpyAtoA(long da, int dof, long sa, int sof, int n) { return cuMemcpyAtoA_v2(da, dof & 0xFFFF_FFFFL, sa, sof & 0xFFFF_FFFFL, n & 0xFFFF_FFFFL); }
    @Override public int cuMemcpyHtoAAsync(long a, int o, long h, int n, long s) { return cuMemcpyHtoAAsync_v2(a, o & 0xFFFF_FFFFL, h, n & 0xFFFF_FFFFL, s); }
    @Override public int cuMemcpyAtoHAsync(long h, long a, int o, int n, long s) { return cuMemcpyAtoHAsync_v2(h, a, o & 0xFFFF_FFFFL, n & 0xFFFF_FFFFL, s); }

    /**
     * A CUDA_MEMCPY2D/3D descriptor whose array sides are rewritten as device memory (the array's
     * base, its row pitch and, for 3D, its height), for the layers below, which copy between
     * pitched linear memory; {@code p} itself when no side is an array; 0 for an unknown array.
     */
    private long arraysAsDevice(long p, boolean is3d, Arena arena) {
        if (p == 0) return p;
        long srcType = is3d ? 32 : 16, dstType = is3d ? 120 : 72;
        int st = getInt(p + srcType), dt = getInt(p + dstType);
        if (st != MEMTYPE_ARRAY && dt != MEMTYPE_ARRAY) return p;
        int size = is3d ? 200 : 128;
        MemorySegment copy = arena.allocate(size, 8);
        MemorySegment.copy(at(p, size), 0, copy, 0, size);
        long c = copy.address();
        if (st == MEMTYPE_ARRAY) {
            CuArray a = array(getLong(p + (is3d ? 56 : 40)));
            if (a == null) return 0;
            putInt(c + srcType, MEMTYPE_DEVICE);
            putLong(c + (is3d ? 48 : 32), a.base);
            putLong(c + (is3d ? 72 : 48), a.rowBytes());
            if (is3d) putLong(c + 80, Math.max(1, a.height));
        }
        if (dt == MEMTYPE_ARRAY) {
            CuArray a = array(getLong(p + (is3d ? 144 : 96)));
            if (a == null) return 0;
            putInt(c + dstType, MEMTYPE_DEVICE);
            putLong(c + (is3d ? 136 : 88), a.base);
            putLong(c + (is3d ? 160 : 104), a.rowBytes());
            if (is3d) putLong(c + 168, Math.max(1, a.height));
        }
        return c;
    }
}
