package dev.zluda.runtime.driver;

import java.util.List;

/**
 * Sees kernel launches of the zluda driver, before and after the kernel runs: how the trace layer
 * takes kernel snapshots (trace-format/FORMAT.md §6.5, {@code ZLUDA_CAPTURE_KERNELS}). Both calls
 * happen on the launching thread, inside the launch call, while the kernel's memory is quiescent: the
 * emulator runs every launch to completion before {@code cuLaunchKernel} returns, and on an
 * asynchronous backend (HIP) the driver waits for the stream before each. The kernel's memory is read
 * through {@link KernelLaunch#memory()}, which reaches device memory on every backend. Attached to a
 * launch call by an {@link Interceptor} of role KERNEL_LAUNCH ({@link Call#observeLaunches}). An
 * observer must not throw; the driver ignores what it throws and launches anyway.
 */
public interface LaunchObserver {
    /** Whether launches of the kernel with this (mangled) name are observed; called on every launch. */
    boolean wants(String kernelName);

    /** Before the kernel runs; what it returns is handed to {@link #after}. */
    Object before(KernelLaunch launch);

    /**
     * After the kernel ran.
     *
     * @param result CUDA_SUCCESS (0), or the error the kernel stopped with (700 CUDA_ERROR_ILLEGAL_ADDRESS,
     *     716, 715, 710, 719), which the context now holds as its sticky error; on an asynchronous backend,
     *     what the wait for the kernel's stream returned
     */
    void after(Object token, KernelLaunch launch, int result);

    /**
     * One launch as the driver runs it.
     *
     * @param function the CUfunction handle (a CUkernel handle when the program launched one)
     * @param name the kernel's mangled name
     * @param ptx the PTX text of the kernel's module as the driver compiled it
     * @param grid grid dimensions in blocks (x, y, z)
     * @param block block dimensions in threads (x, y, z)
     * @param sharedMemBytes dynamic shared memory per block, bytes
     * @param params the packed parameter buffer (the PTX parameter layout, cuFuncGetParamInfo's offsets)
     * @param regions the allocations the parameters point into: every aligned 8-byte word of
     *     {@code params} that lies inside a live allocation names that whole allocation, once
     * @param memory reads the current bytes of a region (through the backend: host memory on the
     *     emulator, HIP's copies on the hip backend)
     */
    record KernelLaunch(long function, String name, String ptx, long[] grid, long[] block, long sharedMemBytes, byte[] params,
                        List<Region> regions, Memory memory) {}

    /** Reads device memory for a snapshot. */
    @FunctionalInterface
    interface Memory {
        /**
         * @return the {@code size} bytes at {@code address}
         * @throws RuntimeException when the backend cannot read them
         */
        byte[] read(long address, long size);
    }

    /** An allocation: base address (a device pointer; on the emulator also a host address) and size, bytes. */
    record Region(long address, long size) {}
}
