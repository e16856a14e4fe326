package dev.zluda.runtime.driver;

import dev.zluda.runtime.api.CudaDriverApi;
import dev.zluda.runtime.backend.Backend;
import dev.zluda.spec.CudaApi;
import dev.zluda.spec.Role;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

/**
 * The zluda CUDA driver, as native callers see it through {@code libcuda.so.1} and Java callers through
 * {@link CudaDriverApi}'s methods (CUDA 13.0 semantics). Every call takes one way: {@link #call} wraps it in the
 * interceptors registered for its function's {@link Role}, outermost first, then the generated dispatch table
 * ({@code DriverTable}, from cuda-api-driver.yaml) hands it to the method of the same name in the area that serves
 * it ({@link Areas}); what no area serves returns {@code CUDA_ERROR_NOT_SUPPORTED} and is reported once on stderr.
 * docs/support.md lists what is served ({@link Support}).
 *
 * <p>The driver's own interceptors, innermost: the device printf flush points (CUDA Programming Guide, "Formatted
 * Output": before a kernel launch, a context's destruction or reset and a host function; after a synchronisation,
 * a copy, a module load or unload), kernel snapshots for a {@link #launchObserver} and driver events for a
 * {@link #driverEvents} sink. The trace layer adds its own outermost ({@link #intercept}).
 */
public final class ZludaDriver implements CudaDriverApi {
    /** The version {@code cuDriverGetVersion} reports. */
    public static final int DRIVER_VERSION = DeviceArea.DRIVER_VERSION;
    /** The name of device 0. */
    public static final String DEVICE_NAME = DeviceArea.DEVICE_NAME;
    /** Roles whose calls print the device printf output before they run. */
    static final Set<Role> FLUSH_BEFORE = EnumSet.of(Role.KERNEL_LAUNCH, Role.GRAPH_LAUNCH, Role.CONTEXT_DESTROY, Role.HOST_CALLBACK);
    /** Roles whose calls print the device printf output after they ran. */
    static final Set<Role> FLUSH_AFTER = EnumSet.of(Role.CONTEXT_SYNC, Role.STREAM_SYNC, Role.EVENT_SYNC, Role.COPY,
            Role.MODULE_LOAD, Role.MODULE_UNLOAD);

    final DriverState state;
    final Areas areas;
    private final int moduleLoadData;
    private final Object interceptorsLock = new Object();
    /** Per function id: its interceptors, outermost first (copy on write). */
    private volatile Registered[][] chains;
    private volatile Consumer<String> eventSink;
    private volatile LaunchObserver launchObserver;

    private record Registered(Interceptor interceptor, boolean internal) {}

    /**
     * @param api the spec
     * @param exports {@code zl_functions[]}: the native export of every spec function, by id; may be
     *     {@link MemorySegment#NULL} when no native library is loaded (tests), then
     *     cuGetProcAddress returns null pointers
     */
    public ZludaDriver(CudaApi api, MemorySegment exports) {
        this(() -> api, exports);
    }

    /**
     * A driver that loads the spec only when a call needs more of it than the build generated into the dispatch table
     * (names, roles, the enums the areas read): what {@code libcuda.so.1} starts, so that a program's first call does
     * not wait for the spec to be read.
     *
     * @param api the spec, asked for at most once, on first need ({@code CudaApi::get})
     * @param exports as {@link #ZludaDriver(CudaApi, MemorySegment)}
     */
    public ZludaDriver(java.util.function.Supplier<CudaApi> api, MemorySegment exports) {
        this.state = new DriverState(api, exports);
        this.moduleLoadData = DriverState.id("cuModuleLoadData");
        this.areas = new Areas(state, (pmodule, image) -> callInternal(moduleLoadData, new long[] {pmodule, image}));
        this.chains = new Registered[DriverState.functionCount()][0];
        intercept(EnumSet.of(Role.MODULE_LOAD, Role.KERNEL_LAUNCH, Role.GRAPH_LAUNCH), true, false, (call, next) -> {
            Consumer<String> sink = eventSink;
            if (sink != null) call.onEvent(sink);
            return next.getAsInt();
        });
        intercept(EnumSet.of(Role.KERNEL_LAUNCH, Role.GRAPH_LAUNCH), true, false, (call, next) -> {
            LaunchObserver o = launchObserver;
            if (o != null) call.observeLaunches(o);
            return next.getAsInt();
        });
        // calls that conflict with a stream capture (StreamCapture's class comment)
        intercept(EnumSet.of(Role.ALLOCATION, Role.FREE, Role.CONTEXT_SYNC, Role.STREAM_SYNC, Role.STREAM_QUERY, Role.COPY, Role.MEMSET,
                Role.KERNEL_LAUNCH, Role.HOST_CALLBACK, Role.EVENT_RECORD, Role.EVENT_WAIT), true, false, areas.capture::guard);
        Set<Role> flushing = EnumSet.copyOf(FLUSH_BEFORE);
        flushing.addAll(FLUSH_AFTER);
        intercept(flushing, true, false, (call, next) -> {
            if (FLUSH_BEFORE.contains(call.role())) state.flushDeviceOutput();
            int r = next.getAsInt();
            if (FLUSH_AFTER.contains(call.role())) state.flushDeviceOutput();
            return r;
        });
    }

    /**
     * Adds an interceptor around the calls of the functions with these roles.
     *
     * @param roles the roles it applies to ({@code EnumSet.allOf(Role.class)} for every call)
     * @param internal whether it also sees the calls the driver makes itself ({@link Call#internal()})
     * @param outermost whether it goes outside every interceptor registered so far (else inside them)
     */
    public void intercept(Set<Role> roles, boolean internal, boolean outermost, Interceptor interceptor) {
        synchronized (interceptorsLock) {
            Registered[][] next = chains.clone();
            for (int id = 0; id < next.length; id++) {
                if (!roles.contains(DriverState.role(id))) continue;
                List<Registered> l = new ArrayList<>(List.of(next[id]));
                if (outermost) l.addFirst(new Registered(interceptor, internal));
                else l.add(new Registered(interceptor, internal));
                next[id] = l.toArray(Registered[]::new);
            }
            chains = next;
            refreshFastPath();
        }
    }

    /** Connects the native entry's fast path ({@link NativeFastPath#attach}). */
    void fastPath(NativeFastPath f) {
        synchronized (interceptorsLock) {
            state.fastPath = f;
            refreshFastPath();
        }
    }

    /** The native fast path answers a function only while it has no interceptor and the driver was not deinitialised. */
    private void refreshFastPath() {
        NativeFastPath f = state.fastPath;
        if (f == null) return;
        if (state.deinitialized) f.disable();
        else f.refresh(id -> chains[id].length == 0);
    }

    /**
     * One call of a CUDA function: through its interceptors to the area that serves it.
     *
     * @param functionId the spec function id
     * @param args the arguments, one 64-bit word each ({@link CudaDriverApi#call})
     * @return the CUresult; CUDA_ERROR_INVALID_VALUE for an unknown id
     */
    @Override
    public int call(int functionId, long[] args) {
        return call(functionId, args, false);
    }

    /** A call the driver makes itself (export-table slots): interceptors registered without {@code internal} skip it. */
    int callInternal(int functionId, long[] args) {
        return call(functionId, args, true);
    }

    private int call(int id, long[] args, boolean internal) {
        if (id < 0 || id >= chains.length) return CuResult.INVALID_VALUE;
        Registered[] chain = chains[id];
        if (chain.length == 0) return serve(id, args);
        Call c = new Call(id, DriverState.role(id), state, args, internal, state.call());
        Call outer = state.enter(c);
        try {
            return proceed(c, chain, 0);
        } finally {
            state.leave(outer);
        }
    }

    private int proceed(Call c, Registered[] chain, int i) {
        for (; i < chain.length; i++) {
            if (!c.internal() || chain[i].internal()) {
                int next = i + 1;
                IntSupplier rest = () -> proceed(c, chain, next);
                return chain[i].interceptor().around(c, rest);
            }
        }
        return serve(c.functionId(), c.args());
    }

    /** The area's answer, or CUDA_ERROR_DEINITIALIZED once the driver was deinitialised (the interceptors still see the call). */
    private int serve(int id, long[] args) {
        return state.deinitialized ? CuResult.DEINITIALIZED : DriverTable.call(areas, id, args);
    }

    /**
     * Deinitialises the driver at process exit (the native entry's exit handler): from now on every call returns
     * CUDA_ERROR_DEINITIALIZED, as NVIDIA's driver answers once its own exit handler ran — what cudart's teardown
     * ({@code cuLibraryUnload}, {@code cuDevicePrimaryCtxRelease}) meets, since its handler runs after the driver's.
     * The interceptors still see those calls (the trace layer records them).
     */
    public void deinitialize() {
        state.deinitialized = true;
        synchronized (interceptorsLock) {
            refreshFastPath();
        }
    }

    /** The backend cuInit chose, or null before. */
    Backend backend() {
        return state.backend();
    }

    /**
     * Sets who is told of the driver's own events, one line each (the trace layer's MARKER records): every module
     * compile with its result, every launch's execution; null: nobody. Events come from calls of the roles
     * MODULE_LOAD and KERNEL_LAUNCH.
     */
    public void driverEvents(Consumer<String> sink) {
        this.eventSink = sink;
    }

    /** Sets who sees every kernel launch before and after it runs (the trace layer's kernel snapshots); null: nobody. */
    public void launchObserver(LaunchObserver observer) {
        this.launchObserver = observer;
    }

    /** Sets who sees each module image loaded through the export tables (the trace layer's MODULE records); null: nobody. */
    public void moduleImageObserver(ModuleImageObserver observer) {
        areas.exportTable.moduleImageObserver(observer);
    }
}
