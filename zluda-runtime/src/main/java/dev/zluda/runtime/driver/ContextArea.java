package dev.zluda.runtime.driver;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicLong;

import static dev.zluda.runtime.driver.CuResult.*;
import static dev.zluda.runtime.driver.Native.putInt;
import static dev.zluda.runtime.driver.Native.putLong;

/**
 * Contexts (CUDA Driver API groups CUDA_CTX, CUDA_PRIMARY_CTX): created contexts, the device's
 * primary context with its retain count, and each host thread's stack of current contexts.
 * Handles are deterministic values (see {@link Handles}).
 */
final class ContextArea {
    /** CU_CTX_* flags that may be given (CU_CTX_SCHED_MASK | CU_CTX_MAP_HOST | CU_CTX_LMEM_RESIZE_TO_MAX | CU_CTX_COREDUMP_ENABLE | CU_CTX_USER_COREDUMP_ENABLE | CU_CTX_SYNC_MEMOPS). */
    static final int CTX_FLAGS_ALLOWED = 0x07 | 0x08 | 0x10 | 0x20 | 0x40 | 0x80;
    /** CU_CTX_MAP_HOST: always on since CUDA 12. */
    static final int CU_CTX_MAP_HOST = 0x08;
    /** The API version a context reports (cuCtxGetApiVersion): 3020, as for every context since CUDA 3.2. */
    static final int CONTEXT_API_VERSION = 3020;

    private final Handles<Context> contexts;
    private final AtomicLong contextIds = new AtomicLong();
    private volatile Context primary;
    private int primaryRetains;
    private int primaryFlags;
    private final Object primaryLock = new Object();

    private final DriverState state;
    /** What frees a context's objects when it is destroyed or reset, in order (wired by the driver). */
    private final java.util.List<java.util.function.Consumer<Context>> releasers = new java.util.concurrent.CopyOnWriteArrayList<>();

    ContextArea(DriverState state) {
        this.state = state;
        this.contexts = state.contexts;
    }

    /**
     * Adds what frees one kind of object of a context being destroyed or reset (its allocations, streams,
     * modules, context-local storage); they run in the order added.
     */
    void onRelease(java.util.function.Consumer<Context> releaser) {
        releasers.add(releaser);
    }

    /** Frees what a context owns (every releaser, in order) and forgets its sticky error. */
    void release(Context c) {
        for (var r : releasers) r.accept(c);
        c.clearStickyError();
        state.contextsChanged();
    }


    // ---------------------------------------------------------------- created contexts

    private int create(long pctx, int flags, int dev) {
        int r = state.checkDevice(dev);
        if (r != SUCCESS) return r;
        if (pctx == 0 || (flags & ~CTX_FLAGS_ALLOWED) != 0) return INVALID_VALUE;
        long h = contexts.reserve();
        Context c = new Context(h, contextIds.incrementAndGet(), dev, false, flags | CU_CTX_MAP_HOST);
        contexts.put(h, c);
        state.stack().push(c);
        putLong(pctx, h);
        return SUCCESS;
    }

    public int cuCtxCreate_v2(long pctx, int flags, int dev) {
        return create(pctx, flags, dev);
    }

    public int cuCtxCreate_v3(long pctx, long paramsArray, int numParams, int flags, int dev) {
        if (numParams != 0 || paramsArray != 0) return NOT_SUPPORTED; // execution affinity (SM count limits)
        return create(pctx, flags, dev);
    }

    public int cuCtxCreate_v4(long pctx, long ctxCreateParams, int flags, int dev) {
        if (ctxCreateParams != 0) return NOT_SUPPORTED; // execution affinity / CIG parameters
        return create(pctx, flags, dev);
    }

    /**
     * cuCtxDestroy: CUDA_ERROR_CONTEXT_IS_DESTROYED (709) for a context destroyed before, as recorded on the H200
     * (samples/traces/h200/misuse, destroyed_ctx_destroy_again); CUDA_ERROR_INVALID_CONTEXT for a primary context
     * or a handle that was never a context.
     */
    public int cuCtxDestroy_v2(long ctx) {
        if (!state.initialized) return NOT_INITIALIZED;
        Context c = state.lookup(ctx);
        if (c == null && ctx != 0 && contexts.get(ctx) == null && contexts.issued(ctx)) return CONTEXT_IS_DESTROYED;
        if (c == null || c.primary) return INVALID_CONTEXT;
        c.destroyed = true;
        contexts.remove(ctx);
        release(c);
        ArrayDeque<Context> s = state.stack();
        if (s.peek() == c) s.pop();
        return SUCCESS;
    }

    public int cuCtxPushCurrent_v2(long ctx) {
        if (!state.initialized) return NOT_INITIALIZED;
        Context c = state.lookup(ctx);
        if (c == null) return INVALID_CONTEXT;
        state.stack().push(c);
        return SUCCESS;
    }

    public int cuCtxPopCurrent_v2(long pctx) {
        if (!state.initialized) return NOT_INITIALIZED;
        ArrayDeque<Context> s = state.stack();
        if (s.isEmpty()) return INVALID_CONTEXT;
        Context c = s.pop();
        if (pctx != 0) putLong(pctx, c.handle);
        return SUCCESS;
    }

    public int cuCtxSetCurrent(long ctx) {
        if (!state.initialized) return NOT_INITIALIZED;
        ArrayDeque<Context> s = state.stack();
        if (ctx == 0) {
            if (!s.isEmpty()) s.pop();
            return SUCCESS;
        }
        Context c = state.lookup(ctx);
        if (c == null) return INVALID_CONTEXT;
        if (!s.isEmpty()) s.pop();
        s.push(c);
        return SUCCESS;
    }

    public int cuCtxGetCurrent(long pctx) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (pctx == 0) return INVALID_VALUE;
        Context c = state.current();
        putLong(pctx, c == null ? 0 : c.handle);
        return SUCCESS;
    }

    /** Writes a 4-byte property of the current context (checked first) to {@code out}. */
    private int aboutCurrent(long out, java.util.function.ToIntFunction<Context> property) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (out == 0) return INVALID_VALUE;
        putInt(out, property.applyAsInt(state.current()));
        return SUCCESS;
    }

    /**
     * Writes a property of a context given by handle (0: the current one) to {@code out}, 8 bytes when {@code wide};
     * CUDA_ERROR_INVALID_CONTEXT for an unknown or destroyed one.
     */
    private int aboutContext(long ctx, long out, java.util.function.ToLongFunction<Context> property, boolean wide) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (out == 0) return INVALID_VALUE;
        Context c = ctx == 0 ? state.current() : state.lookup(ctx);
        if (c == null) return INVALID_CONTEXT;
        if (wide) putLong(out, property.applyAsLong(c));
        else putInt(out, (int) property.applyAsLong(c));
        return SUCCESS;
    }

    public int cuCtxGetDevice(long device) {
        return aboutCurrent(device, c -> c.device);
    }

    public int cuCtxGetDevice_v2(long device, long ctx) {
        return aboutContext(ctx, device, c -> c.device, false);
    }

    public int cuCtxGetFlags(long flags) {
        return aboutCurrent(flags, c -> c.flags);
    }

    public int cuCtxSetFlags(int flags) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if ((flags & ~CTX_FLAGS_ALLOWED) != 0) return INVALID_VALUE;
        state.current().flags = flags | CU_CTX_MAP_HOST;
        return SUCCESS;
    }

    public int cuCtxGetId(long ctx, long ctxId) {
        return aboutContext(ctx, ctxId, c -> c.id, true);
    }

    public int cuCtxGetApiVersion(long ctx, long version) {
        return aboutContext(ctx, version, c -> CONTEXT_API_VERSION, false);
    }

    public int cuCtxSynchronize() {
        int r = state.checkContext();
        return r != SUCCESS ? r : state.backend().synchronize();
    }

    public int cuCtxSynchronize_v2(long ctx) {
        if (!state.initialized) return NOT_INITIALIZED;
        Context c = ctx == 0 ? state.current() : state.lookup(ctx);
        if (c == null) return INVALID_CONTEXT;
        int r = state.backend().synchronize();
        return r != SUCCESS ? r : c.stickyError();
    }

    public int cuCtxGetLimit(long pvalue, int limit) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (pvalue == 0 || limit < 0 || limit >= Context.DEFAULT_LIMITS.length) return INVALID_VALUE;
        Context c = state.current();
        if (limit == LIMIT_PERSISTING_L2_CACHE_SIZE && !c.limits.containsKey(limit)) {
            putLong(pvalue, persistingGranule() * 3); // an H200's context starts with 3 tenths of the maximum
            return SUCCESS;
        }
        putLong(pvalue, c.limit(limit));
        return SUCCESS;
    }

    /**
     * The step CU_LIMIT_PERSISTING_L2_CACHE_SIZE moves in: a tenth of MAX_PERSISTING_L2_CACHE_SIZE (0 below compute
     * capability 8.0). An H200 (src/test/resources/coop/h200/results.tsv) reads back 1,000,000 as 3,932,160 and
     * 31,457,280 as itself, and a fresh context's limit as 11,796,480: multiples of 3,932,160, rounded up.
     */
    private long persistingGranule() {
        return state.attributes.byName().get("MAX_PERSISTING_L2_CACHE_SIZE") / 10;
    }

    /** CU_LIMIT_PERSISTING_L2_CACHE_SIZE (cuda.h). */
    static final int LIMIT_PERSISTING_L2_CACHE_SIZE = 6;
    /** CUDA_ERROR_UNSUPPORTED_LIMIT. */
    static final int UNSUPPORTED_LIMIT = 215;

    /**
     * cuCtxSetLimit. Every limit is stored and read back by cuCtxGetLimit; the stack size sizes each thread's stack on
     * the emulator, the others change nothing. CU_LIMIT_PERSISTING_L2_CACHE_SIZE (a hint: the emulator has no cache)
     * needs compute capability 8.0 (CUDA_ERROR_UNSUPPORTED_LIMIT below); more than
     * CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE (an H200's figure, {@link DeviceAttributes}) is
     * CUDA_ERROR_INVALID_VALUE and changes nothing, and what is kept is rounded up to a tenth of it, as an H200 does.
     */
    public int cuCtxSetLimit(int limit, long value) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (limit < 0 || limit >= Context.DEFAULT_LIMITS.length) return INVALID_VALUE;
        if (limit == LIMIT_PERSISTING_L2_CACHE_SIZE) {
            long step = persistingGranule();
            if (step == 0) return UNSUPPORTED_LIMIT;
            if (value < 0 || value > step * 10) return INVALID_VALUE; // more than MAX_PERSISTING_L2_CACHE_SIZE, as the H200 answers
            value = (value + step - 1) / step * step;
        }
        state.current().limits.put(limit, value);
        return SUCCESS;
    }

    public int cuCtxGetCacheConfig(long pconfig) {
        return aboutCurrent(pconfig, c -> c.cacheConfig);
    }

    public int cuCtxSetCacheConfig(int config) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (config < 0 || config > 3) return INVALID_VALUE; // CU_FUNC_CACHE_PREFER_NONE … PREFER_EQUAL
        state.current().cacheConfig = config;
        return SUCCESS;
    }

    public int cuCtxGetStreamPriorityRange(long leastPriority, long greatestPriority) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        // as NVIDIA reports on compute capability 7.0 and later: 0 (lowest) … -5 (highest)
        if (leastPriority != 0) putInt(leastPriority, 0);
        if (greatestPriority != 0) putInt(greatestPriority, -5);
        return SUCCESS;
    }

    /**
     * Shared memory bank size (deprecated): fixed at four bytes, as on every GPU since compute
     * capability 5.0, so CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE (1) (cuda.h: "devices without
     * configurable shared memory ... return the fixed bank size").
     */
    public int cuCtxGetSharedMemConfig(long pConfig) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (pConfig == 0) return INVALID_VALUE;
        putInt(pConfig, 1);
        return SUCCESS;
    }

    /** Accepts CU_SHARED_MEM_CONFIG_* 0..2 and does nothing (cuda.h: "will do nothing on devices with fixed shared memory bank size"). */
    public int cuCtxSetSharedMemConfig(int config) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        return config < 0 || config > 2 ? INVALID_VALUE : SUCCESS;
    }

    // ---------------------------------------------------------------- primary context

    /** The device's primary context, created on first use; not retained (CUDART_INTERFACE slot 2 needs it). */
    Context primaryContext() {
        Context p = primary;
        if (p == null) {
            synchronized (primaryLock) {
                if (primary == null) {
                    long h = contexts.reserve();
                    Context c = new Context(h, contextIds.incrementAndGet(), 0, true, primaryFlags | CU_CTX_MAP_HOST);
                    contexts.put(h, c);
                    primary = c;
                }
                p = primary;
            }
        }
        return p;
    }

    public int cuDevicePrimaryCtxRetain(long pctx, int dev) {
        int r = state.checkDevice(dev);
        if (r != SUCCESS) return r;
        if (pctx == 0) return INVALID_VALUE;
        Context c = primaryContext();
        synchronized (primaryLock) {
            primaryRetains++;
        }
        putLong(pctx, c.handle);
        return SUCCESS;
    }

    public int cuDevicePrimaryCtxRelease_v2(int dev) {
        int r = state.checkDevice(dev);
        if (r != SUCCESS) return r;
        synchronized (primaryLock) {
            if (primaryRetains == 0) return INVALID_CONTEXT;
            if (--primaryRetains == 0 && primary != null) {
                // the last release destroys the primary context's resources; the handle stays the same
                release(primary);
            }
        }
        return SUCCESS;
    }

    public int cuDevicePrimaryCtxReset_v2(int dev) {
        int r = state.checkDevice(dev);
        if (r != SUCCESS) return r;
        synchronized (primaryLock) {
            if (primary != null) release(primary);
            primaryFlags = 0;
            if (primary != null) primary.flags = CU_CTX_MAP_HOST;
        }
        return SUCCESS;
    }

    public int cuDevicePrimaryCtxGetState(int dev, long flags, long active) {
        int r = state.checkDevice(dev);
        if (r != SUCCESS) return r;
        if (flags == 0 || active == 0) return INVALID_VALUE;
        synchronized (primaryLock) {
            putInt(flags, primaryFlags);
            putInt(active, primaryRetains > 0 ? 1 : 0);
        }
        return SUCCESS;
    }

    public int cuDevicePrimaryCtxSetFlags_v2(int dev, int flags) {
        int r = state.checkDevice(dev);
        if (r != SUCCESS) return r;
        if ((flags & ~CTX_FLAGS_ALLOWED) != 0) return INVALID_VALUE;
        synchronized (primaryLock) {
            primaryFlags = flags;
            if (primary != null) primary.flags = flags | CU_CTX_MAP_HOST;
        }
        return SUCCESS;
    }

}
