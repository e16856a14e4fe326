package dev.zluda.runtime.driver;

import dev.zluda.runtime.backend.Backend;
import dev.zluda.spec.CudaApi;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What every area of the driver shares, handed to each explicitly: the API spec, the native exports, device 0's
 * attributes and memory size, whether {@code cuInit} succeeded, the {@link Backend} it chose, and the contexts with
 * each host thread's stack of current contexts — what every call is checked against ({@link #checkDevice},
 * {@link #checkContext}). {@link ContextArea} serves the context API over them; the other areas own their own
 * handle tables. Thread-safe: the fields that change after construction are volatile and change only inside
 * {@code cuInit}; the context table is concurrent, the stacks per thread.
 */
final class DriverState {
    /** Where the spec comes from: loaded on first use ({@link #api()}), never at start. */
    private final java.util.function.Supplier<CudaApi> apiSource;
    private volatile CudaApi api;
    /** {@code zl_functions[]}: the native export of every spec function by id, or {@link MemorySegment#NULL} (tests). */
    final MemorySegment exports;
    private final Set<Integer> reportedUnsupported = ConcurrentHashMap.newKeySet();
    /** The device's attributes: the emulator's, or on the hip backend the AMD device's over them. */
    volatile DeviceAttributes attributes;
    /** Bytes of device memory reported (cuDeviceTotalMem, cuMemGetInfo); set by cuInit. */
    volatile long totalMemory;
    /** Whether cuInit succeeded. */
    volatile boolean initialized;
    /**
     * Whether the driver was deinitialised at process exit ({@link ZludaDriver#deinitialize}): every later call
     * answers CUDA_ERROR_DEINITIALIZED, as NVIDIA's driver answers the calls cudart's exit handlers make after its.
     */
    volatile boolean deinitialized;
    private volatile Backend backend;
    /** The native entry's fast path (cuCtxGetCurrent, cuCtxGetDevice answered in C), or null (no native entry). */
    volatile NativeFastPath fastPath;
    private final ThreadLocal<Call> calls = new ThreadLocal<>();
    /** The contexts by handle (CUcontext). */
    final Handles<Context> contexts = new Handles<>(1);
    private final ThreadLocal<ArrayDeque<Context>> stack = ThreadLocal.withInitial(ArrayDeque::new);

    /**
     * @param api the spec, asked for on first use: the driver starts from what the build generated of it
     *     ({@code DriverTable}: names, roles, the enums it reads) and loads it only for what needs more (cuGetProcAddress,
     *     a stream capture's checks, the trace layer)
     */
    DriverState(java.util.function.Supplier<CudaApi> api, MemorySegment exports) {
        this.apiSource = api;
        this.exports = exports;
        // the environment variable, else the system property an in-process user (zluda replay) sets
        String override = System.getenv("ZLUDA_OVERRIDE_COMPUTE_CAPABILITY");
        if (override == null) override = System.getProperty(DeviceAttributes.COMPUTE_CAPABILITY_PROPERTY);
        int[] cc = DeviceAttributes.computeCapability(override);
        this.attributes = new DeviceAttributes(enumType("CUdevice_attribute"), cc[0], cc[1], Runtime.getRuntime().availableProcessors());
    }

    /** The spec the driver was generated from (loaded on the first call of this). */
    CudaApi api() {
        CudaApi a = api;
        if (a == null) {
            synchronized (this) {
                if (api == null) api = apiSource.get();
                a = api;
            }
        }
        return a;
    }

    /** A function's name by spec id, without loading the spec. */
    static String name(int functionId) {
        return Names.NAME[functionId];
    }

    /** A function's spec id by name (the generated table, without loading the spec); -1 when the spec has none. */
    static int id(String name) {
        Names n = names;
        if (n != null) return n.id(name);
        // the few names the driver asks about as it starts: counted in the one string, no table built yet
        int at = DriverTable.NAMES.indexOf("\n" + name + "\n");
        if (at < 0) return -1;
        int id = 0;
        for (int i = DriverTable.NAMES.indexOf('\n', 1); i >= 0 && i <= at; i = DriverTable.NAMES.indexOf('\n', i + 1)) id++;
        return id;
    }

    private static volatile Names names;

    /** The names as a table and an index, made on first need (cuGetProcAddress, a message naming a function). */
    private static final class Names {
        static final String[] NAME = DriverTable.NAMES.substring(1, DriverTable.NAMES.length() - 1).split("\n");
        private final java.util.Map<String, Integer> ids = new java.util.HashMap<>(NAME.length * 2);

        Names() {
            for (int i = 0; i < NAME.length; i++) ids.put(NAME[i], i);
        }

        int id(String name) {
            Integer id = ids.get(name);
            return id == null ? -1 : id;
        }
    }

    /** A function's spec id by name, through the index (for callers that look up many names: cuGetProcAddress). */
    static int indexedId(String name) {
        Names n = names;
        if (n == null) names = n = new Names(); // two threads may both build it: the same table
        return n.id(name);
    }

    /** A function's role by spec id, without loading the spec. */
    static dev.zluda.spec.Role role(int functionId) {
        return ROLES[DriverTable.ROLES.charAt(functionId) - 'A'];
    }

    private static final dev.zluda.spec.Role[] ROLES = dev.zluda.spec.Role.values();

    /** The number of spec functions. */
    static int functionCount() {
        return DriverTable.ROLES.length();
    }

    /**
     * An enum of cuda.h the driver reads: from the generated table when it is one of those read at start, else from
     * the spec.
     */
    dev.zluda.spec.CudaEnum enumType(String name) {
        Object[] e = DriverTable.ENUMS.get(name);
        if (e == null) return api().enumType(name).orElseThrow();
        String[] names = (String[]) e[0];
        long[] values = (long[]) e[1];
        java.util.List<dev.zluda.spec.CudaEnum.Member> members = new java.util.ArrayList<>(names.length);
        for (int i = 0; i < names.length; i++) members.add(new dev.zluda.spec.CudaEnum.Member(names[i], values[i]));
        return new dev.zluda.spec.CudaEnum(name, null, 4, java.util.List.copyOf(members));
    }

    /** NOT_INITIALIZED before cuInit, INVALID_DEVICE for any ordinal but 0, else SUCCESS. */
    int checkDevice(int dev) {
        if (!initialized) return CuResult.NOT_INITIALIZED;
        return dev == 0 ? CuResult.SUCCESS : CuResult.INVALID_DEVICE;
    }

    /**
     * Says that what some thread's cuCtxGetCurrent or cuCtxGetDevice answers may have changed by another thread's doing
     * (a context destroyed, released or reset; a sticky error): the native entry's published answers are stale.
     * Call it after the change.
     */
    void contextsChanged() {
        NativeFastPath f = fastPath;
        if (f != null) f.invalidate();
    }

    /** The calling thread's stack of current contexts, the current one on top. */
    ArrayDeque<Context> stack() {
        return stack.get();
    }

    /** The calling thread's current context, or null. */
    Context current() {
        Context c = stack.get().peek();
        return c == null || c.destroyed ? null : c;
    }

    /**
     * NOT_INITIALIZED, INVALID_CONTEXT when no context is current, the current context's sticky error after a
     * kernel fault (as NVIDIA's driver answers every call that checks the context), else SUCCESS.
     */
    int checkContext() {
        if (!initialized) return CuResult.NOT_INITIALIZED;
        Context c = current();
        return c == null ? CuResult.INVALID_CONTEXT : c.stickyError();
    }

    /** A live context by handle, or null. */
    Context lookup(long handle) {
        Context c = contexts.get(handle);
        return c == null || c.destroyed ? null : c;
    }

    /** The backend cuInit chose; null before a successful cuInit (every caller checks {@link #initialized} first). */
    Backend backend() {
        return backend;
    }

    /** Makes a backend serve: its attributes over the emulator's, its memory size (cuInit, once). */
    void use(Backend b) {
        java.util.List<String> names = new java.util.ArrayList<>(attributes.byName().keySet());
        var over = b.attributes(names);
        if (!over.isEmpty()) attributes = attributes.with(over);
        totalMemory = b.totalMemory();
        backend = b;
    }

    /**
     * What a function no area serves returns: CUDA_ERROR_NOT_SUPPORTED, said once per function on stderr.
     *
     * @param functionId the spec function id
     */
    int unsupported(int functionId) {
        if (reportedUnsupported.add(functionId)) {
            System.err.println("[ZLUDA] " + name(functionId) + " is not supported yet: returning CUDA_ERROR_NOT_SUPPORTED");
        }
        return CuResult.NOT_SUPPORTED;
    }

    private final java.util.Set<String> notes = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * Says on stderr, once per distinct text, why a call that the driver serves refuses this use of it
     * ({@code [ZLUDA] text}), beside the CUDA_ERROR_NOT_SUPPORTED it returns.
     */
    void note(String text) {
        if (notes.add(text)) System.err.println("[ZLUDA] " + text);
    }

    /** The innermost call of this thread that is passing the driver, or null (an area used directly). */
    Call call() {
        return calls.get();
    }

    /** Makes {@code c} this thread's innermost call; returns the one it replaces, for {@link #leave}. */
    Call enter(Call c) {
        Call outer = calls.get();
        calls.set(c);
        return outer;
    }

    /** Ends the innermost call: {@code outer} is current again. */
    void leave(Call outer) {
        if (outer == null) calls.remove();
        else calls.set(outer);
    }

    /** Whether the current call's driver events are wanted (so that a caller need not format one for nobody). */
    boolean wantsEvents() {
        Call c = calls.get();
        return c != null && c.events() != null;
    }

    /** Who sees the kernel launches of the current call (kernel snapshots), or null. */
    LaunchObserver launchObserver() {
        Call c = calls.get();
        return c == null ? null : c.launchObserver();
    }

    /**
     * Tells the current call's driver-events sink (the trace layer writes them as MARKER records, FORMAT.md §6):
     * every module compile with its result and log, every launch's execution. Never fails the call that caused it.
     */
    void event(String text) {
        Call c = calls.get();
        java.util.function.Consumer<String> sink = c == null ? null : c.events();
        if (sink == null) return;
        try {
            sink.accept(text);
        } catch (RuntimeException e) {
            if (System.getenv("ZLUDA_DEBUG") != null) e.printStackTrace();
        }
    }

    /** Prints the device printf output kernels left (the backend's; nothing before cuInit). */
    void flushDeviceOutput() {
        Backend b = backend;
        if (b != null) b.flushDeviceOutput();
    }
}
