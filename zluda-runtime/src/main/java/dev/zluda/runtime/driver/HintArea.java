package dev.zluda.runtime.driver;

import dev.zluda.runtime.api.CudaStructs.CUmemLocation;

import static dev.zluda.runtime.driver.CuResult.*;
import static dev.zluda.runtime.driver.Native.at;
import static dev.zluda.runtime.driver.Native.getInt;
import static dev.zluda.runtime.driver.Native.getLong;
import static dev.zluda.runtime.driver.Native.putInt;
import static dev.zluda.runtime.driver.Native.putLong;

/**
 * Calls that tell the driver something it has no use for here, checked and answered as NVIDIA's driver answers
 * them: memory advice and prefetches (device and host share one memory on the emulator, and every operation has
 * completed when its call returns), attaching managed memory to a stream, profiler start and stop (no profiler is
 * attached), and resetting the persisting L2 cache lines (there is no L2 cache).
 */
final class HintArea {
    /** CU_MEM_LOCATION_TYPE_DEVICE (cuda.h, CUmemLocationType). */
    static final int LOCATION_TYPE_DEVICE = 1;

    private final DriverState state;
    private final StreamArea streams;

    HintArea(DriverState state, StreamArea streams) {
        this.state = state;
        this.streams = streams;
    }

    /** CUmem_advise values 1..6 (SET/UNSET_READ_MOSTLY, PREFERRED_LOCATION, ACCESSED_BY). */
    private static boolean validAdvice(int advice) {
        return advice >= 1 && advice <= 6;
    }

    /** A range the device can address: any host or device memory (pageable memory access is reported). */
    private int checkRange(long devPtr, long count) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        return devPtr == 0 || count <= 0 ? INVALID_VALUE : SUCCESS;
    }

    /**
     * cuMemAdvise: device and host share one memory here, so advice has no effect; the arguments are
     * checked (advice 1..6, device an ordinal or CU_DEVICE_CPU = -1; CUDA_ERROR_INVALID_VALUE /
     * CUDA_ERROR_INVALID_DEVICE).
     */
    public int cuMemAdvise(long devPtr, long count, int advice, int device) {
        int r = checkRange(devPtr, count);
        if (r != SUCCESS) return r;
        if (!validAdvice(advice)) return INVALID_VALUE;
        return device == -1 ? SUCCESS : state.checkDevice(device);
    }

    /** cuMemAdvise_v2: as cuMemAdvise, the location a CUmemLocation (DEVICE with an ordinal, HOST, HOST_NUMA*). */
    public int cuMemAdvise_v2(long devPtr, long count, int advice, long location) {
        int r = checkRange(devPtr, count);
        if (r != SUCCESS) return r;
        if (!validAdvice(advice) || location == 0) return INVALID_VALUE;
        return checkLocation(location);
    }

    /** CUmemLocationType: DEVICE 1 (id an ordinal), HOST 2, HOST_NUMA 3, HOST_NUMA_CURRENT 4. */
    private int checkLocation(long location) {
        int type = CUmemLocation.type(location), id = CUmemLocation.id(location);
        if (type == LOCATION_TYPE_DEVICE) return state.checkDevice(id) == SUCCESS ? SUCCESS : INVALID_DEVICE;
        return type >= 2 && type <= 4 ? SUCCESS : INVALID_VALUE;
    }

    /** cuMemPrefetchAsync: nothing to move (one memory); arguments and stream checked. */
    public int cuMemPrefetchAsync(long devPtr, long count, int dstDevice, long hStream) {
        int r = streams.checkStream(hStream);
        if (r == SUCCESS) r = checkRange(devPtr, count);
        if (r != SUCCESS) return r;
        return dstDevice == -1 ? SUCCESS : state.checkDevice(dstDevice);
    }

    /** cuMemPrefetchAsync_v2: as cuMemPrefetchAsync, to a CUmemLocation; flags must be 0. */
    public int cuMemPrefetchAsync_v2(long devPtr, long count, long location, int flags, long hStream) {
        int r = streams.checkStream(hStream);
        if (r == SUCCESS) r = checkRange(devPtr, count);
        if (r != SUCCESS) return r;
        if (location == 0 || flags != 0) return INVALID_VALUE;
        return checkLocation(location);
    }

    /** cuStreamAttachMemAsync: managed memory is visible to every stream and the host; flags GLOBAL 1, HOST 2, SINGLE 4. */
    public int cuStreamAttachMemAsync(long hStream, long dptr, long length, int flags) {
        int r = streams.checkStream(hStream);
        if (r != SUCCESS) return r;
        if (dptr == 0 || (flags != 1 && flags != 2 && flags != 4)) return INVALID_VALUE;
        return SUCCESS;
    }

    /** cuProfilerStart: no profiler is attached to the emulator; success, as NVIDIA's driver without one. */
    public int cuProfilerStart() {
        return state.checkContext();
    }

    /** cuProfilerStop: see {@link #cuProfilerStart()}. */
    public int cuProfilerStop() {
        return state.checkContext();
    }

    /** cuCtxResetPersistingL2Cache: the emulator has no L2 cache to reset. */
    public int cuCtxResetPersistingL2Cache() {
        return state.checkContext();
    }

}
