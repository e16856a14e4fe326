package dev.zluda.runtime.driver;

import java.util.function.IntSupplier;

/**
 * Code around the calls of the functions with some roles, between the entry and the dispatch table: the trace
 * layer's recording, kernel snapshots, the device printf flush points, the driver's events. It applies to every
 * backend, since it runs before any area. Registered with {@link ZludaDriver#intercept}.
 */
@FunctionalInterface
public interface Interceptor {
    /**
     * Runs around one call.
     *
     * @param call the call: function, role, arguments
     * @param next the rest of the way (inner interceptors, then the area); call it once, or not at all to answer
     *     without the driver
     * @return the CUresult the caller gets: normally what {@code next} returned
     */
    int around(Call call, IntSupplier next);
}
