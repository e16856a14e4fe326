package dev.zluda.runtime.backend;

import dev.zluda.runtime.emulator.Emulator;
import dev.zluda.runtime.emulator.Kernel;
import dev.zluda.runtime.emulator.MemoryMap;
import dev.zluda.runtime.emulator.TextureObject;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What executes the work of the CUDA driver: device 0's memory, streams, events, modules and kernel launches.
 * The driver's areas ({@code dev.zluda.runtime.driver}) keep the CUDA objects, their handles and every argument
 * check; a backend only does what was checked. Chosen once, by {@code cuInit}
 * ({@code dev.zluda.runtime.hip.HipBackend#select}): the CPU emulator ({@code dev.zluda.runtime.emulator.EmulatorDevice},
 * which runs anywhere) or an AMD GPU through HIP ({@code dev.zluda.runtime.hip.HipDevice}).
 *
 * <p>Results are CUresult values (cuda.h; 0 is CUDA_SUCCESS). Native handles of streams and events are the
 * backend's own ({@code hipStream_t}, {@code hipEvent_t}); 0 stands for the default (null) stream and for a
 * backend that has none. Every method may be called from several host threads at once.
 */
public interface Backend {
    /** {@code "emulator"} or {@code "hip"}: what {@code ZLUDA_BACKEND} and the logs call the backend. */
    String kind();

    /** The name {@code cuDeviceGetName} reports for device 0. */
    String deviceName();

    /** Bytes of device memory ({@code cuDeviceTotalMem}, {@code cuMemGetInfo}'s total). */
    long totalMemory();

    /**
     * The device's own answers for CUdevice_attribute names (without {@code CU_DEVICE_ATTRIBUTE_}), which replace the
     * emulator's defaults; attributes left out keep them. Empty for the emulator, which is the default.
     *
     * @param cudaNames every attribute name the driver knows
     */
    Map<String, Integer> attributes(Iterable<String> cudaNames);

    /**
     * Whether kernels see host memory at its own address: then managed memory, host registration and device
     * pointers of page-locked host memory are served (the emulator); otherwise those calls are
     * CUDA_ERROR_NOT_SUPPORTED (HIP, whose device memory and the program's host memory are apart).
     */
    boolean deviceSeesHostMemory();

    /** Whether texture and surface objects can be read by kernels (else cuTexObjectCreate is CUDA_ERROR_NOT_SUPPORTED). */
    boolean supportsTextures();

    /**
     * Whether every operation has completed when the call that enqueued it returns (the emulator): then there is
     * nothing to wait for, and a kernel's memory may be read as soon as its launch returns.
     */
    boolean synchronous();

    // ---------------------------------------------------------------- memory

    /** Device memory the backend allocated: its address and how to give it back. */
    record DeviceMemory(long address, Runnable release) {}

    /**
     * Allocates {@code bytes} (≥ 1) of device memory, 256-byte aligned and zeroed where the backend can.
     *
     * @throws BackendException with CUDA_ERROR_OUT_OF_MEMORY (2) or the backend's error as a CUresult
     */
    DeviceMemory allocate(long bytes) throws BackendException;

    /**
     * Copies {@code bytes} between two checked ranges; a side is device memory of this backend when its flag says so
     * (its allocation is {@link #allocate}'s), else host memory.
     *
     * @return the CUresult
     */
    int copy(long dst, boolean dstOnDevice, long src, boolean srcOnDevice, long bytes);

    /**
     * Sets {@code height} rows of {@code width} elements of {@code elementSize} (1, 2 or 4) bytes, rows {@code pitch}
     * bytes apart, to {@code value} (its low bytes); the range was checked.
     *
     * @param onDevice whether the range is device memory of this backend
     * @return the CUresult
     */
    int memset(long dst, long pitch, long value, long width, long height, int elementSize, boolean onDevice);

    /**
     * The current content of {@code [address, address+bytes)} of device memory (for kernel snapshots), after the
     * work enqueued before has completed as far as {@link #synchronizeStream} made it.
     *
     * @throws BackendException when the backend cannot read it
     */
    byte[] read(long address, long bytes, boolean onDevice) throws BackendException;

    // ---------------------------------------------------------------- synchronisation, streams, events

    /** Waits for all work of the device ({@code cuCtxSynchronize}). */
    int synchronize();

    /**
     * Creates a stream.
     *
     * @param flags CU_STREAM_DEFAULT (0) or CU_STREAM_NON_BLOCKING (1)
     * @param priority clamped to the device's range already
     * @return the native stream handle (0 for a backend without streams)
     * @throws BackendException with the CUresult when the backend refuses
     */
    long createStream(int flags, int priority) throws BackendException;

    /** Destroys a native stream ({@link #createStream}'s). */
    int destroyStream(long stream);

    /** Waits until the work enqueued on a native stream (0: the default stream) has completed. */
    int synchronizeStream(long stream);

    /** CUDA_SUCCESS when the stream's work has completed, else CUDA_ERROR_NOT_READY (600). */
    int queryStream(long stream);

    /** Makes later work on {@code stream} wait for {@code event} ({@code cuStreamWaitEvent}). */
    int streamWaitEvent(long stream, long event);

    /**
     * Creates an event with CU_EVENT_* flags (the values CUDA and HIP share).
     *
     * @return the native event handle (0 for a backend without events)
     */
    long createEvent(int flags) throws BackendException;

    /** Destroys a native event. */
    int destroyEvent(long event);

    /** Records a native event on a native stream. */
    int recordEvent(long event, long stream);

    /** CUDA_SUCCESS when the event completed, else CUDA_ERROR_NOT_READY. */
    int queryEvent(long event);

    /** Waits for the event. */
    int synchronizeEvent(long event);

    /**
     * Milliseconds between two recorded events.
     *
     * @param startNanos, endNanos the host clock ({@link System#nanoTime()}) when each was recorded, for a backend
     *     whose events are the host's
     * @param out receives the time in {@code out[0]}
     * @return the CUresult
     */
    int elapsedTime(long start, long startNanos, long end, long endNanos, float[] out);

    // ---------------------------------------------------------------- modules and launches

    /** Device memory for a module's {@code .global} and {@code .const} variables, which the driver registers. */
    interface VariableAllocator {
        /** @return the address of {@code size} zeroed bytes aligned to {@code align} (a power of two) */
        long allocate(String name, long size, long align);

        /** Frees what {@link #allocate} returned (a failed load, an unloaded module). */
        void free(long address);
    }

    /** A kernel of a loaded module and the backend's handle of it ({@code hipFunction_t}; 0 on the emulator). */
    record LoadedKernel(Kernel kernel, long handle) {}

    /** A module loaded by the backend. */
    interface LoadedModule {
        /** The kernels it defines, in PTX order. */
        List<LoadedKernel> kernels();

        /** What the JIT info log receives. */
        String infoLog();

        /**
         * A module variable: {@code {address, bytes}}.
         *
         * @throws BackendException CUDA_ERROR_NOT_FOUND (500) when the module has none of that name, or the backend's error
         */
        long[] global(String name) throws BackendException;

        /** CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES of one of its kernels. */
        int constBytes(LoadedKernel kernel);

        /** CU_FUNC_ATTRIBUTE_PTX_VERSION of its kernels (the PTX target, e.g. 86). */
        int ptxVersion();

        /** Gives the module back (its variables are the driver's to free). */
        void unload();
    }

    /**
     * Compiles PTX for the device and loads it.
     *
     * @param ptx the PTX text
     * @param source the name diagnostics use ({@code module_0001_01.ptx}, a file name)
     * @throws BackendException CUDA_ERROR_INVALID_PTX (218), CUDA_ERROR_NOT_SUPPORTED (801), CUDA_ERROR_OUT_OF_MEMORY
     *     or the backend's error, with the log ({@code file:line:col: error: ...} lines)
     */
    LoadedModule load(String ptx, String source, VariableAllocator variables) throws BackendException;

    /**
     * One checked kernel launch.
     *
     * @param kernel the kernel
     * @param grid grid dimensions (CTAs)
     * @param block block dimensions (threads)
     * @param sharedBytes dynamic shared memory per CTA
     * @param stream the native stream (0: the default stream)
     * @param params the parameter buffer laid out at the PTX offsets, {@link Kernel#paramBytes()} long
     * @param fromKernelParams whether {@code params} was packed from {@code kernelParams} (else it is the caller's
     *     {@code extra} buffer as given)
     * @param memory every allocation of the driver (the emulator checks accesses against it)
     * @param multiprocessors what {@code %nsmid} reports
     * @param stackBytes each thread's stack (the context's CU_LIMIT_STACK_SIZE)
     * @param grouping a cooperative launch, cluster dimensions ({@link Emulator.Grouping}; checked by the driver, and
     *     only given to a backend that {@link #supportsGroupedLaunches})
     */
    record LaunchRequest(LoadedKernel kernel, int[] grid, int[] block, int sharedBytes, long stream, byte[] params,
                         boolean fromKernelParams, MemoryMap memory, int multiprocessors, long stackBytes, Emulator.Grouping grouping) {
        /** A plain launch: no cooperative grid, no clusters. */
        public LaunchRequest(LoadedKernel kernel, int[] grid, int[] block, int sharedBytes, long stream, byte[] params,
                             boolean fromKernelParams, MemoryMap memory, int multiprocessors, long stackBytes) {
            this(kernel, grid, block, sharedBytes, stream, params, fromKernelParams, memory, multiprocessors, stackBytes, Emulator.Grouping.NONE);
        }
    }

    /**
     * Whether the backend runs cooperative launches (all CTAs resident, a grid workspace for grid-wide barriers) and
     * thread-block clusters (cluster barrier, distributed shared memory). The driver refuses both with
     * CUDA_ERROR_NOT_SUPPORTED elsewhere.
     */
    default boolean supportsGroupedLaunches() {
        return false;
    }

    /**
     * How a launch went.
     *
     * @param result the CUresult of the launch call itself
     * @param kernelError on a synchronous backend, the error the kernel stopped with (CUDA_ERROR_ILLEGAL_ADDRESS …),
     *     which the context keeps as its sticky error; 0 when it ran to the end or on an asynchronous backend
     * @param message one line naming kernel, CTA, thread, PTX line and address when {@code kernelError} is set
     * @param event the driver event for this launch (one line), made only when asked for
     */
    record LaunchOutcome(int result, int kernelError, String message, Supplier<String> event) {}

    /** Runs (or enqueues) a launch. Never throws: an internal failure is an outcome. */
    LaunchOutcome launch(LaunchRequest request);

    // ---------------------------------------------------------------- textures, device output

    /** Makes a texture or surface object readable by kernels under its handle. */
    void registerTexture(long handle, TextureObject object);

    /** Forgets a texture or surface object. */
    void unregisterTexture(long handle);

    /**
     * Prints what kernels wrote with device-side {@code printf} since the last flush (CUDA Programming Guide,
     * "Formatted Output": at launches, synchronisations, blocking copies, module loads and unloads, context
     * destruction). A backend whose device prints by itself does nothing.
     */
    void flushDeviceOutput();
}
