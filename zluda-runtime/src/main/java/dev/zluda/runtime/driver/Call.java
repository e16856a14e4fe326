package dev.zluda.runtime.driver;

import dev.zluda.spec.CudaFunction;
import dev.zluda.spec.Role;

import java.util.function.Consumer;

/**
 * One call of a CUDA function as it passes the driver's interceptors on its way to the area that serves it: the
 * function, its role, its arguments (one 64-bit word each, {@code CudaDriverApi#call}'s packing), and whether the
 * driver made it itself (an export-table slot loading its module through {@code cuModuleLoadData}) rather than the
 * program. An interceptor may attach listeners for what the call does inside ({@link #observeLaunches},
 * {@link #onEvent}); the areas find the innermost call of their thread through {@link DriverState#call()}.
 * Confined to the calling thread.
 */
public final class Call {
    private final int functionId;
    private final Role role;
    private final DriverState state;
    private final long[] args;
    private final boolean internal;
    final Call outer;
    private LaunchObserver launchObserver;
    private Consumer<String> events;

    Call(int functionId, Role role, DriverState state, long[] args, boolean internal, Call outer) {
        this.functionId = functionId;
        this.role = role;
        this.state = state;
        this.args = args;
        this.internal = internal;
        this.outer = outer;
    }

    /** The function called (its spec entry: the first call of this loads the spec if nothing did before). */
    public CudaFunction function() { return state.api().function(functionId); }

    /** The spec id of the function called. */
    public int functionId() { return functionId; }

    /** What the function does (from the spec). */
    public Role role() { return role; }

    /** The arguments, one 64-bit word each; an interceptor must not change them. */
    public long[] args() { return args; }

    /** Whether the driver made this call itself, not the program (the trace layer records only the program's). */
    public boolean internal() { return internal; }

    /** Makes the kernel launches of this call seen by an observer (kernel snapshots); one observer per call. */
    public void observeLaunches(LaunchObserver observer) {
        this.launchObserver = observer;
    }

    /** Sends the driver's events during this call (module compiles, kernel executions) to a sink, one line each. */
    public void onEvent(Consumer<String> sink) {
        this.events = sink;
    }

    /** The observer of this call's kernel launches, or of the call it is made within; null when none. */
    LaunchObserver launchObserver() {
        for (Call c = this; c != null; c = c.outer) if (c.launchObserver != null) return c.launchObserver;
        return null;
    }

    /** Where this call's driver events go (or those of the call it is made within); null when nowhere. */
    Consumer<String> events() {
        for (Call c = this; c != null; c = c.outer) if (c.events != null) return c.events;
        return null;
    }
}
