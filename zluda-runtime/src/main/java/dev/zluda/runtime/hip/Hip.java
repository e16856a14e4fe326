package dev.zluda.runtime.hip;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A binding of AMD's HIP runtime ({@code libamdhip64.so}, HIP 5.x and 6.x; HIP Runtime API reference, "Device
 * Management", "Memory Management", "Module Management", "Stream Management", "Event Management") through Java's
 * foreign function API (FFM, {@code java.lang.foreign}), as the rest of the driver calls native code: no JNA, no
 * extra dependency, and the downcalls are bound once as method handles. Every function returns HIP's
 * {@code hipError_t} (0 = hipSuccess); {@link #errorString} names it.
 *
 * <p>Only the entry points are here; {@link HipBackend} decides whether HIP serves the CUDA driver.
 */
public final class Hip {
    /** The library names tried in order: the unversioned name (ROCm, dev packages), then HIP 6 and HIP 5 sonames. */
    public static final List<String> LIBRARIES = List.of("libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5");

    private final String library;
    private final SymbolLookup lookup;
    private final Linker linker = Linker.nativeLinker();

    private Hip(String library, SymbolLookup lookup) {
        this.library = library;
        this.lookup = lookup;
    }

    /**
     * Names a HIP library to load instead of {@link #LIBRARIES}: the environment variable {@code ZLUDA_HIP_LIBRARY}
     * (a path or a soname), else this system property (for programs that run the driver in their own JVM, and
     * tests that point the binding at a stand-in library).
     */
    public static final String LIBRARY_PROPERTY = "zluda.hipLibrary";

    /** The library {@code ZLUDA_HIP_LIBRARY} / {@link #LIBRARY_PROPERTY} names, or null. */
    public static String libraryOverride() {
        String v = System.getenv("ZLUDA_HIP_LIBRARY");
        if (v == null || v.isBlank()) v = System.getProperty(LIBRARY_PROPERTY);
        return v == null || v.isBlank() ? null : v.trim();
    }

    /**
     * Loads the HIP runtime: the library {@link #libraryOverride()} names, else the first of {@link #LIBRARIES}.
     *
     * @throws UnsatisfiedLinkError naming every library tried when none loads
     */
    public static Hip load() {
        String only = libraryOverride();
        StringBuilder why = new StringBuilder();
        for (String name : only != null ? List.of(only) : LIBRARIES) {
            try {
                return new Hip(name, SymbolLookup.libraryLookup(name, Arena.global()));
            } catch (IllegalArgumentException e) {
                if (!why.isEmpty()) why.append(", ");
                why.append(name);
            }
        }
        throw new UnsatisfiedLinkError("HIP runtime not found (tried " + why + ")");
    }

    /** The library name that loaded. */
    public String library() { return library; }

    private MethodHandle fn(String name, FunctionDescriptor d) {
        MemorySegment sym = lookup.find(name).orElseThrow(() -> new UnsatisfiedLinkError(library + " has no " + name));
        return linker.downcallHandle(sym, d);
    }

    private static final FunctionDescriptor I_P = FunctionDescriptor.of(JAVA_INT, ADDRESS);

    private MethodHandle getDeviceCount, getErrorString, runtimeGetVersion, driverGetVersion, deviceGetName,
            deviceGetAttribute, malloc, free, memcpyHtoD, memcpyDtoH, moduleLoadData, moduleGetFunction, moduleLaunchKernel,
            deviceSynchronize, streamCreate, streamSynchronize, streamDestroy, eventCreate, eventRecord, eventSynchronize,
            eventElapsedTime, eventDestroy;

    /** {@code hipGetDeviceCount(int*)}: {error, count}. */
    public int[] getDeviceCount() {
        try (Arena a = Arena.ofConfined()) {
            if (getDeviceCount == null) getDeviceCount = fn("hipGetDeviceCount", I_P);
            MemorySegment n = a.allocate(JAVA_INT);
            int err = (int) getDeviceCount.invokeExact(n);
            return new int[] {err, err == 0 ? n.get(JAVA_INT, 0) : 0};
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code hipGetErrorString(hipError_t)}: e.g. "no ROCm-capable device is detected". */
    public String errorString(int error) {
        try {
            if (getErrorString == null) getErrorString = fn("hipGetErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT));
            MemorySegment s = (MemorySegment) getErrorString.invokeExact(error);
            return s.equals(MemorySegment.NULL) ? "hipError " + error : s.reinterpret(4096).getString(0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code hipRuntimeGetVersion(int*)}: {error, version} (e.g. 50724050 for HIP 5.7). */
    public int[] runtimeGetVersion() {
        try (Arena a = Arena.ofConfined()) {
            if (runtimeGetVersion == null) runtimeGetVersion = fn("hipRuntimeGetVersion", I_P);
            MemorySegment n = a.allocate(JAVA_INT);
            int err = (int) runtimeGetVersion.invokeExact(n);
            return new int[] {err, n.get(JAVA_INT, 0)};
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code hipDeviceGetName(char*, int, hipDevice_t)}: the device's marketing name, or null on error. */
    public String deviceName(int device) {
        try (Arena a = Arena.ofConfined()) {
            if (deviceGetName == null) deviceGetName = fn("hipDeviceGetName", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
            MemorySegment buf = a.allocate(256);
            int err = (int) deviceGetName.invokeExact(buf, 256, device);
            return err == 0 ? buf.getString(0) : null;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code hipDeviceGetAttribute(int*, hipDeviceAttribute_t, int)}: {error, value}. */
    public int[] deviceAttribute(int attribute, int device) {
        try (Arena a = Arena.ofConfined()) {
            if (deviceGetAttribute == null) deviceGetAttribute = fn("hipDeviceGetAttribute", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
            MemorySegment v = a.allocate(JAVA_INT);
            int err = (int) deviceGetAttribute.invokeExact(v, attribute, device);
            return new int[] {err, v.get(JAVA_INT, 0)};
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code hipMalloc(void**, size_t)}: {error, device pointer}. */
    public long[] malloc(long bytes) {
        try (Arena a = Arena.ofConfined()) {
            if (malloc == null) malloc = fn("hipMalloc", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
            MemorySegment p = a.allocate(ADDRESS);
            int err = (int) malloc.invokeExact(p, bytes);
            return new long[] {err, p.get(JAVA_LONG, 0)};
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code hipFree(void*)}. */
    public int free(long devicePtr) {
        try {
            if (free == null) free = fn("hipFree", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
            return (int) free.invokeExact(devicePtr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code hipMemcpyHtoD(hipDeviceptr_t dst, void* src, size_t)}. */
    public int memcpyHtoD(long dst, MemorySegment src, long bytes) {
        try {
            if (memcpyHtoD == null) memcpyHtoD = fn("hipMemcpyHtoD", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, JAVA_LONG));
            return (int) memcpyHtoD.invokeExact(dst, src, bytes);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code hipMemcpyDtoH(void* dst, hipDeviceptr_t src, size_t)}. */
    public int memcpyDtoH(MemorySegment dst, long src, long bytes) {
        try {
            if (memcpyDtoH == null) memcpyDtoH = fn("hipMemcpyDtoH", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
            return (int) memcpyDtoH.invokeExact(dst, src, bytes);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code hipModuleLoadData(hipModule_t*, const void* image)} of a code object: {error, module}. */
    public long[] moduleLoadData(MemorySegment image) {
        try (Arena a = Arena.ofConfined()) {
            if (moduleLoadData == null) moduleLoadData = fn("hipModuleLoadData", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
            MemorySegment m = a.allocate(ADDRESS);
            int err = (int) moduleLoadData.invokeExact(m, image);
            return new long[] {err, m.get(JAVA_LONG, 0)};
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code hipModuleGetFunction(hipFunction_t*, hipModule_t, const char*)}: {error, function}. */
    public long[] moduleGetFunction(long module, String name) {
        try (Arena a = Arena.ofConfined()) {
            if (moduleGetFunction == null) moduleGetFunction = fn("hipModuleGetFunction", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
            MemorySegment f = a.allocate(ADDRESS);
            int err = (int) moduleGetFunction.invokeExact(f, module, a.allocateFrom(name));
            return new long[] {err, f.get(JAVA_LONG, 0)};
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code hipModuleLaunchKernel} with the arguments packed in one buffer ({@code extra} =
     * {HIP_LAUNCH_PARAM_BUFFER_POINTER, buf, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END}), laid out as
     * {@link KernelArgs#pack} does.
     */
    public int moduleLaunchKernel(long function, int[] grid, int[] block, int sharedBytes, long stream, MemorySegment args, long argBytes) {
        try (Arena a = Arena.ofConfined()) {
            if (moduleLaunchKernel == null) {
                moduleLaunchKernel = fn("hipModuleLaunchKernel", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT,
                        JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS, ADDRESS));
            }
            MemorySegment size = a.allocate(JAVA_LONG);
            size.set(JAVA_LONG, 0, argBytes);
            MemorySegment extra = a.allocate(ADDRESS, 5);
            extra.setAtIndex(JAVA_LONG, 0, 1);                 // HIP_LAUNCH_PARAM_BUFFER_POINTER
            extra.setAtIndex(ADDRESS, 1, args);
            extra.setAtIndex(JAVA_LONG, 2, 2);                 // HIP_LAUNCH_PARAM_BUFFER_SIZE
            extra.setAtIndex(ADDRESS, 3, size);
            extra.setAtIndex(JAVA_LONG, 4, 3);                 // HIP_LAUNCH_PARAM_END
            return (int) moduleLaunchKernel.invokeExact(function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                    sharedBytes, stream, MemorySegment.NULL, extra);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code hipDeviceSynchronize()}. */
    public int deviceSynchronize() {
        try {
            if (deviceSynchronize == null) deviceSynchronize = fn("hipDeviceSynchronize", FunctionDescriptor.of(JAVA_INT));
            return (int) deviceSynchronize.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code hipStreamCreate(hipStream_t*)}: {error, stream}. */
    public long[] streamCreate() {
        try (Arena a = Arena.ofConfined()) {
            if (streamCreate == null) streamCreate = fn("hipStreamCreate", I_P);
            MemorySegment s = a.allocate(ADDRESS);
            int err = (int) streamCreate.invokeExact(s);
            return new long[] {err, s.get(JAVA_LONG, 0)};
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code hipStreamSynchronize(hipStream_t)}. */
    public int streamSynchronize(long stream) {
        try {
            if (streamSynchronize == null) streamSynchronize = fn("hipStreamSynchronize", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
            return (int) streamSynchronize.invokeExact(stream);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code hipStreamDestroy(hipStream_t)}. */
    public int streamDestroy(long stream) {
        try {
            if (streamDestroy == null) streamDestroy = fn("hipStreamDestroy", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
            return (int) streamDestroy.invokeExact(stream);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code hipEventCreate(hipEvent_t*)}: {error, event}. */
    public long[] eventCreate() {
        try (Arena a = Arena.ofConfined()) {
            if (eventCreate == null) eventCreate = fn("hipEventCreate", I_P);
            MemorySegment e = a.allocate(ADDRESS);
            int err = (int) eventCreate.invokeExact(e);
            return new long[] {err, e.get(JAVA_LONG, 0)};
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code hipEventRecord(hipEvent_t, hipStream_t)}. */
    public int eventRecord(long event, long stream) {
        try {
            if (eventRecord == null) eventRecord = fn("hipEventRecord", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
            return (int) eventRecord.invokeExact(event, stream);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code hipEventSynchronize(hipEvent_t)}. */
    public int eventSynchronize(long event) {
        try {
            if (eventSynchronize == null) eventSynchronize = fn("hipEventSynchronize", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
            return (int) eventSynchronize.invokeExact(event);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code hipEventElapsedTime(float* ms, start, stop)}: milliseconds, or NaN with the error in {@code err[0]}. */
    public float eventElapsedTime(long start, long stop, int[] err) {
        try (Arena a = Arena.ofConfined()) {
            if (eventElapsedTime == null) eventElapsedTime = fn("hipEventElapsedTime", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
            MemorySegment ms = a.allocate(JAVA_FLOAT);
            err[0] = (int) eventElapsedTime.invokeExact(ms, start, stop);
            return err[0] == 0 ? ms.get(JAVA_FLOAT, 0) : Float.NaN;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code hipEventDestroy(hipEvent_t)}. */
    public int eventDestroy(long event) {
        try {
            if (eventDestroy == null) eventDestroy = fn("hipEventDestroy", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
            return (int) eventDestroy.invokeExact(event);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---------------------------------------------------------------- what the hip backend of the driver adds

    private final java.util.concurrent.ConcurrentHashMap<String, MethodHandle> handles = new java.util.concurrent.ConcurrentHashMap<>();

    /** Calls a HIP function that returns hipError_t, binding it on first use. */
    private int call(String name, FunctionDescriptor d, Object... args) {
        try {
            MethodHandle h = handles.computeIfAbsent(name, n -> fn(n, d));
            return (int) h.invokeWithArguments(args);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code true} when the library exports {@code name}. */
    public boolean has(String name) {
        return lookup.find(name).isPresent();
    }

    /** {@code hipInit(0)}. */
    public int init() {
        return call("hipInit", FunctionDescriptor.of(JAVA_INT, JAVA_INT), 0);
    }

    /** {@code hipSetDevice(int)}: makes {@code device} the calling thread's device. */
    public int setDevice(int device) {
        return call("hipSetDevice", FunctionDescriptor.of(JAVA_INT, JAVA_INT), device);
    }

    /**
     * {@code hipGetDeviceProperties}: the raw {@code hipDeviceProp_t} of {@code device} in {@code out} (at least
     * 4096 bytes). HIP 6 changed the structure (ROCm 6.0: {@code hipDeviceProp_tR0600}, 1472 bytes, filled by
     * {@code hipGetDevicePropertiesR0600}); HIP 5's is 792 bytes, filled by {@code hipGetDeviceProperties}
     * (layouts from the public {@code hip_runtime_api.h} of ROCm 5.0–5.7 and 6.0–6.2).
     *
     * @param hip6 {@code true} for a HIP 6 runtime ({@code hipRuntimeGetVersion} ≥ 60000000)
     */
    public int deviceProperties(MemorySegment out, int device, boolean hip6) {
        return call(hip6 ? "hipGetDevicePropertiesR0600" : "hipGetDeviceProperties", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), out, device);
    }

    /** {@code hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t)}. */
    public int memcpyDtoD(long dst, long src, long bytes) {
        return call("hipMemcpyDtoD", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG), dst, src, bytes);
    }

    /** {@code hipMemsetD8/D16/D32(hipDeviceptr_t, value, count)}: {@code count} elements of 1, 2 or 4 bytes. */
    public int memsetD(int elementBytes, long dst, int value, long count) {
        String name = switch (elementBytes) {
            case 1 -> "hipMemsetD8";
            case 2 -> "hipMemsetD16";
            case 4 -> "hipMemsetD32";
            default -> throw new IllegalArgumentException("element of " + elementBytes + " bytes");
        };
        // the value is unsigned char / unsigned short / int in C; all pass as a 32-bit register
        return call(name, FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG), dst, value, count);
    }

    /** {@code hipModuleUnload(hipModule_t)}. */
    public int moduleUnload(long module) {
        return call("hipModuleUnload", FunctionDescriptor.of(JAVA_INT, JAVA_LONG), module);
    }

    /** {@code hipModuleGetGlobal(hipDeviceptr_t*, size_t*, hipModule_t, const char*)}: {error, address, bytes}. */
    public long[] moduleGetGlobal(long module, String name) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(JAVA_LONG), n = a.allocate(JAVA_LONG);
            int err = call("hipModuleGetGlobal", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS), p, n, module, a.allocateFrom(name));
            return new long[] {err, p.get(JAVA_LONG, 0), n.get(JAVA_LONG, 0)};
        }
    }

    /** {@code hipFuncGetAttribute(int*, hipFunction_attribute, hipFunction_t)}: {error, value}. */
    public int[] funcAttribute(int attribute, long function) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_INT);
            int err = call("hipFuncGetAttribute", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG), v, attribute, function);
            return new int[] {err, v.get(JAVA_INT, 0)};
        }
    }

    /** {@code hipStreamCreateWithPriority(hipStream_t*, unsigned flags, int priority)}: {error, stream}. */
    public long[] streamCreate(int flags, int priority) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(ADDRESS);
            int err = call("hipStreamCreateWithPriority", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), s, flags, priority);
            return new long[] {err, s.get(JAVA_LONG, 0)};
        }
    }

    /** {@code hipStreamQuery(hipStream_t)}: hipSuccess, or hipErrorNotReady (600) while work is pending. */
    public int streamQuery(long stream) {
        return call("hipStreamQuery", FunctionDescriptor.of(JAVA_INT, JAVA_LONG), stream);
    }

    /** {@code hipStreamWaitEvent(hipStream_t, hipEvent_t, unsigned flags)}. */
    public int streamWaitEvent(long stream, long event, int flags) {
        return call("hipStreamWaitEvent", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT), stream, event, flags);
    }

    /** {@code hipEventCreateWithFlags(hipEvent_t*, unsigned flags)}: {error, event}. */
    public long[] eventCreate(int flags) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment e = a.allocate(ADDRESS);
            int err = call("hipEventCreateWithFlags", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), e, flags);
            return new long[] {err, e.get(JAVA_LONG, 0)};
        }
    }

    /** {@code hipEventQuery(hipEvent_t)}: hipSuccess, or hipErrorNotReady (600) before the event completed. */
    public int eventQuery(long event) {
        return call("hipEventQuery", FunctionDescriptor.of(JAVA_INT, JAVA_LONG), event);
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) return r;
        if (t instanceof Error e) throw e;
        return new IllegalStateException(t);
    }
}
