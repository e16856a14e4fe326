package dev.zluda.runtime.driver;

import dev.zluda.runtime.api.CudaStructs.CUmemAccessDesc;
import dev.zluda.runtime.api.CudaStructs.CUmemLocation;
import dev.zluda.runtime.api.CudaStructs.CUmemPoolProps;

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
 * Memory pools and stream-ordered allocation (CUDA Driver API group CUDA_MALLOC_ASYNC): a device's default and
 * current pool, pools created by the program, their attributes and access, and {@code cuMemAllocAsync},
 * {@code cuMemAllocFromPoolAsync}, {@code cuMemFreeAsync}. Allocations from a pool are ordinary device allocations
 * ({@link MemoryArea}); the memory is usable at once, since the work of every stream has completed when its call
 * returns.
 */
final class PoolArea {
    private final DriverState state;
    private final MemoryArea memory;
    private final StreamArea streams;

    private final StreamCapture capture;

    PoolArea(DriverState state, MemoryArea memory, StreamArea streams, StreamCapture capture) {
        this.state = state;
        this.capture = capture;
        this.memory = memory;
        this.streams = streams;
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
    public int cuDeviceGetDefaultMemPool(long poolOut, int dev) {
        return answerPool(poolOut, dev, false);
    }

    /** The device's current pool: the default one until cuDeviceSetMemPool names another. */
    public int cuDeviceGetMemPool(long pool, int dev) {
        return answerPool(pool, dev, true);
    }

    /** Writes a device's default or current pool (checked: the device, the output). */
    private int answerPool(long out, int dev, boolean current) {
        int r = state.checkDevice(dev);
        if (r != SUCCESS) return r;
        if (out == 0) return INVALID_VALUE;
        Pool p = current ? currentPools.get(dev) : null;
        putLong(out, (p != null && pools.get(p.handle) != null ? p : defaultPool(dev)).handle);
        return SUCCESS;
    }

    /** cuDeviceSetMemPool: the pool must belong to the device (CUDA_ERROR_INVALID_DEVICE otherwise). */
    public int cuDeviceSetMemPool(int dev, long pool) {
        if (!state.initialized) return NOT_INITIALIZED;
        int r = state.checkDevice(dev);
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
    public int cuMemPoolCreate(long pool, long poolPropsPtr) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (pool == 0 || poolPropsPtr == 0) return INVALID_VALUE;
        int allocType = CUmemPoolProps.allocType(poolPropsPtr);
        int handleTypes = CUmemPoolProps.handleTypes(poolPropsPtr);
        int locType = CUmemPoolProps.location_type(poolPropsPtr);
        int locId = CUmemPoolProps.location_id(poolPropsPtr);
        if (allocType != ALLOCATION_TYPE_PINNED || locType != LOCATION_TYPE_DEVICE) return INVALID_VALUE;
        int r = state.checkDevice(locId);
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
    public int cuMemPoolDestroy(long pool) {
        if (!state.initialized) return NOT_INITIALIZED;
        Pool p = pools.get(pool);
        if (p == null || p.isDefault) return INVALID_VALUE;
        pools.remove(pool);
        currentPools.remove(p.device, p);
        return SUCCESS;
    }

    /** cuMemPoolGetAttribute: reuse flags (int), release threshold and memory figures (cuuint64_t, bytes). */
    public int cuMemPoolGetAttribute(long pool, int attr, long value) {
        return poolAttribute(pool, attr, value, false);
    }

    /**
     * cuMemPoolSetAttribute: reuse flags and release threshold are stored; the high-water marks may
     * only be reset (to 0, which sets them to the current figure); the current figures are read-only
     * (CUDA_ERROR_INVALID_VALUE).
     */
    public int cuMemPoolSetAttribute(long pool, int attr, long value) {
        return poolAttribute(pool, attr, value, true);
    }

    /** cuMemPoolGetAttribute ({@code set} false) and cuMemPoolSetAttribute ({@code set} true) of {@code value}'s cell. */
    private int poolAttribute(long pool, int attr, long value, boolean set) {
        if (!state.initialized) return NOT_INITIALIZED;
        Pool p = pools.get(pool);
        if (p == null || value == 0) return INVALID_VALUE;
        synchronized (p) {
            switch (attr) {
                case POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES, POOL_REUSE_ALLOW_OPPORTUNISTIC, POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES -> {
                    if (set) p.reuse[attr - 1] = getInt(value) != 0 ? 1 : 0;
                    else putInt(value, p.reuse[attr - 1]);
                }
                case POOL_RELEASE_THRESHOLD -> {
                    if (set) p.releaseThreshold = getLong(value);
                    else putLong(value, p.releaseThreshold);
                }
                case POOL_RESERVED_MEM_CURRENT, POOL_USED_MEM_CURRENT -> {
                    if (set) return INVALID_VALUE;
                    putLong(value, p.used);
                }
                case POOL_RESERVED_MEM_HIGH, POOL_USED_MEM_HIGH -> {
                    if (!set) putLong(value, p.usedHigh);
                    else if (getLong(value) != 0) return INVALID_VALUE;
                    else p.usedHigh = p.used;
                }
                default -> {
                    return INVALID_VALUE;
                }
            }
        }
        return SUCCESS;
    }

    /** cuMemPoolTrimTo: the pool holds no unused memory, so there is nothing to release. */
    public int cuMemPoolTrimTo(long pool, long minBytesToKeep) {
        if (!state.initialized) return NOT_INITIALIZED;
        return pools.get(pool) == null ? INVALID_VALUE : SUCCESS;
    }

    /**
     * cuMemPoolSetAccess: the only device is the pool's own, which always has read-write access;
     * asking for anything else for it is CUDA_ERROR_INVALID_VALUE, as is an unknown device.
     */
    public int cuMemPoolSetAccess(long pool, long map, long count) {
        if (!state.initialized) return NOT_INITIALIZED;
        Pool p = pools.get(pool);
        if (p == null || (count > 0 && map == 0) || count < 0) return INVALID_VALUE;
        long size = CUmemAccessDesc.SIZE;
        for (long i = 0; i < count; i++) {
            long d = map + i * size;
            int type = CUmemAccessDesc.location_type(d), id = CUmemAccessDesc.location_id(d);
            int flags = CUmemAccessDesc.flags(d);
            if (type != LOCATION_TYPE_DEVICE || state.checkDevice(id) != SUCCESS) return INVALID_VALUE;
            if (id == p.device && flags != ACCESS_READWRITE) return INVALID_VALUE;
        }
        return SUCCESS;
    }

    /** cuMemPoolGetAccess: read-write for the pool's device, none for any other location. */
    public int cuMemPoolGetAccess(long flags, long memPool, long location) {
        if (!state.initialized) return NOT_INITIALIZED;
        Pool p = pools.get(memPool);
        if (p == null || flags == 0 || location == 0) return INVALID_VALUE;
        int type = CUmemLocation.type(location), id = CUmemLocation.id(location);
        putInt(flags, type == LOCATION_TYPE_DEVICE && id == p.device ? ACCESS_READWRITE : 0);
        return SUCCESS;
    }

    private int allocFromPool(long dptr, long bytesize, Pool p, long hStream) {
        int r = streams.checkStream(hStream);
        if (r != SUCCESS) return r;
        if (p == null || dptr == 0) return INVALID_VALUE;
        if (bytesize == 0) return INVALID_VALUE;
        if (capture.capturing(hStream)) return capture.allocate(hStream, dptr, bytesize); // a mem alloc node
        r = memory.cuMemAlloc_v2(dptr, bytesize);
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
    public int cuMemAllocAsync(long dptr, long bytesize, long hStream) {
        if (!state.initialized) return NOT_INITIALIZED;
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        Pool p = currentPools.get(state.current().device);
        return allocFromPool(dptr, bytesize, p != null && pools.get(p.handle) != null ? p : defaultPool(state.current().device), hStream);
    }

    /** cuMemAllocFromPoolAsync: as cuMemAllocAsync, from the given pool. */
    public int cuMemAllocFromPoolAsync(long dptr, long bytesize, long pool, long hStream) {
        if (!state.initialized) return NOT_INITIALIZED;
        return allocFromPool(dptr, bytesize, pools.get(pool), hStream);
    }

    /**
     * cuMemFreeAsync: frees memory from cuMemAllocAsync/FromPoolAsync (or cuMemAlloc) once the
     * stream's earlier work is done, which here is at once. CUDA_ERROR_INVALID_VALUE for a pointer
     * that is not the start of a device allocation.
     */
    public int cuMemFreeAsync(long dptr, long hStream) {
        int r = streams.checkStream(hStream);
        if (r != SUCCESS) return r;
        if (dptr == 0) return INVALID_VALUE;
        if (capture.capturing(hStream)) return capture.free(hStream, dptr); // a mem free node
        r = streams.streamDone(hStream);
        if (r != SUCCESS) return r;
        r = memory.cuMemFree_v2(dptr);
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

}
