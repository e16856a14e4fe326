package dev.zluda.spec;

import java.util.Locale;

/**
 * What a CUDA driver function does, as far as the tools that read calls care: the diff engine, the viewer, the
 * replayer and the driver's interceptors decide by role rather than by function name, so that every versioned
 * variant ({@code _v2}, {@code _ptds}, {@code _ptsz}) and every function of a family is treated alike. Assigned by
 * base name in {@code cuda-api-driver.yaml} (api-spec/SPEC.md, "Roles and driver areas"); {@link #NONE} for a
 * function no role names.
 */
public enum Role {
    /** No role given. */
    NONE,
    /** {@code cuInit}. */
    INIT,
    /** {@code cuDriverGetVersion}. */
    VERSION,
    /** Device identity and properties ({@code cuDeviceGet*}, {@code cuDeviceTotalMem}, {@code cuDeviceCanAccessPeer}). */
    DEVICE,
    /** {@code cuGetErrorName}, {@code cuGetErrorString}. */
    ERROR_TEXT,
    /** Entry points handed out by the driver: {@code cuGetProcAddress}, {@code cuGetExportTable}. */
    ENTRY_POINT,
    /** Contexts and the primary context, except their destruction and synchronisation. */
    CONTEXT,
    /** Destroys or resets a context and everything it owns ({@code cuCtxDestroy}, {@code cuDevicePrimaryCtxReset}). */
    CONTEXT_DESTROY,
    /** Waits for all work of a context ({@code cuCtxSynchronize}). */
    CONTEXT_SYNC,
    /** Allocates memory or registers host memory ({@code cuMemAlloc}, {@code cuMemHostRegister}, {@code cuMemAllocAsync}, …). */
    ALLOCATION,
    /** Frees memory or unregisters host memory. */
    FREE,
    /** Copies memory: every {@code cuMemcpy*}, synchronous or not, linear memory or CUDA arrays. */
    COPY,
    /** Sets memory: every {@code cuMemset*}. */
    MEMSET,
    /** Asks about memory ({@code cuMemGetInfo}, {@code cuPointerGetAttribute}, …). */
    MEMORY_QUERY,
    /** Advice and prefetches that change no content ({@code cuMemAdvise}, {@code cuMemPrefetchAsync}, …). */
    MEMORY_HINT,
    /** Memory pools ({@code cuMemPool*}, a device's current and default pool). */
    POOL,
    /** Streams: creation, destruction, properties, attributes, stream capture and its status. */
    STREAM,
    /** Waits for a stream's work ({@code cuStreamSynchronize}). */
    STREAM_SYNC,
    /** Asks whether a stream's work is done ({@code cuStreamQuery}). */
    STREAM_QUERY,
    /** Events: creation and destruction. */
    EVENT,
    /** Records an event ({@code cuEventRecord}, {@code cuCtxRecordEvent}). */
    EVENT_RECORD,
    /** Makes later work wait for an event ({@code cuStreamWaitEvent}, {@code cuCtxWaitEvent}). */
    EVENT_WAIT,
    /** Waits for an event ({@code cuEventSynchronize}). */
    EVENT_SYNC,
    /** Asks whether an event completed ({@code cuEventQuery}). */
    EVENT_QUERY,
    /** Time between two events ({@code cuEventElapsedTime}). */
    EVENT_TIMING,
    /** Loads a module or library from an image or a file. */
    MODULE_LOAD,
    /** Unloads a module or library. */
    MODULE_UNLOAD,
    /** Looks a kernel up by name in a module or library ({@code cuModuleGetFunction}, {@code cuLibraryGetKernel}). */
    FUNCTION_LOOKUP,
    /** Asks about modules, libraries and their kernels (globals, counts, names, owners). */
    MODULE_QUERY,
    /** Reads or sets a kernel's attributes ({@code cuFuncGetAttribute}, {@code cuKernelSetAttribute}, …). */
    FUNCTION_ATTRIBUTE,
    /** Launches a kernel: {@code cuLaunchKernel(Ex)}, cooperative launches and the legacy {@code cuLaunch*}. */
    KERNEL_LAUNCH,
    /** Prepares a legacy launch ({@code cuFuncSetBlockShape}, {@code cuParamSet*}). */
    LAUNCH_SETUP,
    /** Runs host code in stream order ({@code cuLaunchHostFunc}, {@code cuStreamAddCallback}). */
    HOST_CALLBACK,
    /** Launches a graph ({@code cuGraphLaunch}): its kernel nodes' snapshots hang on this call (FORMAT.md §6.5). */
    GRAPH_LAUNCH,
    /**
     * Builds, queries, edits, instantiates, updates or destroys CUDA graphs and executable graphs, their nodes,
     * conditional handles, user objects and graph memory ({@code cuGraph*} but {@code cuGraphLaunch}).
     */
    GRAPH,
    /** Occupancy calculations ({@code cuOccupancy*}). */
    OCCUPANCY,
    /** CUDA arrays ({@code cuArrayCreate}, {@code cuArray3DCreate}, …). */
    ARRAY,
    /** Texture and surface objects. */
    TEXTURE,
    /** Profiler control ({@code cuProfilerStart}, {@code cuProfilerStop}). */
    PROFILER;

    /** The name {@code cuda-api-driver.yaml} uses: lower case, words joined by '-' ({@code kernel-launch}). */
    public String key() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The role of a function, {@link #NONE} for null (a capture's pseudo-function such as an export-table slot). */
    public static Role of(CudaFunction f) {
        return f == null ? NONE : f.role();
    }

    /** The role of the function with this exact name in the shared spec, {@link #NONE} when it has none or is unknown. */
    public static Role of(String functionName) {
        return functionName == null ? NONE : CudaApi.get().function(functionName).map(CudaFunction::role).orElse(NONE);
    }

    /** The role a {@link #key()} names, or null. */
    public static Role ofKey(String key) {
        for (Role r : values()) if (r.key().equals(key)) return r;
        return null;
    }
}
