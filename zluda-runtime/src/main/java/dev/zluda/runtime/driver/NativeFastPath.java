package dev.zluda.runtime.driver;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.lang.invoke.VarHandle;

/**
 * What the native entry ({@code libcuda.so.1}, zluda-runtime/src/main/c/entry.c, {@code fast_call}) needs to answer
 * {@code cuCtxGetCurrent} and {@code cuCtxGetDevice} without entering the JVM, and the rules that keep those answers the
 * ones the driver would give (CUDA Driver API: the current context is per host thread).
 *
 * <ul>
 *   <li>After the driver answers one of the two for a thread, it publishes that thread's answer into the thread's native
 *       slot ({@link #publish}): its current context (0 when none), the context's device, whether {@code cuCtxGetDevice}
 *       may be answered (a context is current and has no sticky error), and the global epoch read <em>before</em> the
 *       answer was computed. Nothing is published before {@code cuInit} succeeded or after the driver was
 *       deinitialised (the native side then always asks Java, which answers NOT_INITIALIZED or DEINITIALIZED).</li>
 *   <li>The native side uses a slot only while its epoch is the global one. The driver bumps the epoch
 *       ({@link #invalidate}) after every change another thread can make to a thread's answer: a context destroyed,
 *       released or reset, a kernel fault's sticky error, deinitialisation. A thread's own calls of any other function
 *       forget its slot in C (they may change its current context).</li>
 *   <li>A function is answered natively only while no interceptor is registered on it ({@link ZludaDriver#intercept}):
 *       with the trace layer on, every call is Java's and is recorded.</li>
 * </ul>
 *
 * <p>Layouts (entry.c's {@code struct zl_fast} and {@code struct zl_fast_tls}): shared {epoch u64 at 0, enabled byte
 * array pointer at 8}; per thread {ctx u64 at 0, device s32 at 8, usable s32 at 12, epoch u64 at 16}.
 */
public final class NativeFastPath {
    static final long SHARED_EPOCH = 0, SHARED_ENABLED = 8, SHARED_SIZE = 16;
    static final long TLS_CTX = 0, TLS_DEVICE = 8, TLS_USABLE = 12, TLS_EPOCH = 16, TLS_SIZE = 24;
    /** The last epoch written (under this object's lock: epochs only grow). */
    private long epochs = 1;

    private final ZludaDriver driver;
    // byte buffers over the native memory, not memory segments' layout accessors: those spin classes at run time on first
    // use, which the driver's start would pay for (no AOT cache keeps them)
    private final ByteBuffer shared;
    private final ByteBuffer enabled;
    private final int ctxGetCurrent = DriverState.id("cuCtxGetCurrent");
    private final int ctxGetDevice = DriverState.id("cuCtxGetDevice");

    private NativeFastPath(ZludaDriver driver, ByteBuffer shared, ByteBuffer enabled) {
        this.driver = driver;
        this.shared = shared;
        this.enabled = enabled;
    }

    /**
     * Connects the native entry's shared state to a driver (its per-function switches, allocated by the native entry)
     * and turns on the functions that have no interceptor.
     *
     * @param driver the driver the native entry calls
     * @param sharedAddress address of entry.c's {@code struct zl_fast}
     * @return the fast path, also kept by the driver (whose state changes bump its epoch); null when the native entry
     *     has no switches (then nothing is answered natively)
     */
    public static NativeFastPath attach(ZludaDriver driver, long sharedAddress) {
        ByteBuffer shared = buffer(sharedAddress, SHARED_SIZE);
        long switches = shared.getLong((int) SHARED_ENABLED);
        if (switches == 0) return null; // the native entry could not allocate them: every call goes to Java
        ByteBuffer enabled = buffer(switches, DriverState.functionCount());
        NativeFastPath f = new NativeFastPath(driver, shared, enabled);
        driver.fastPath(f);
        return f;
    }

    /** Whether the native entry may answer function {@code id} (it has no interceptor), as its switch says now. */
    boolean enabled(int id) {
        boolean on = enabled.get(id) != 0;
        VarHandle.acquireFence();
        return on;
    }

    /** Sets the native switches of the two functions: on while {@code quiet} says the function has no interceptor. */
    void refresh(java.util.function.IntPredicate quiet) {
        VarHandle.releaseFence();
        for (int id : new int[] {ctxGetCurrent, ctxGetDevice}) {
            if (id >= 0) enabled.put(id, (byte) (quiet.test(id) ? 1 : 0));
        }
        VarHandle.fullFence();
    }

    /** Turns the native answers off for good (the driver was deinitialised). */
    void disable() {
        for (int id : new int[] {ctxGetCurrent, ctxGetDevice}) if (id >= 0) enabled.put(id, (byte) 0);
        VarHandle.fullFence();
        invalidate();
    }

    /** Makes every thread's published answer stale (the next call of each asks Java again). */
    synchronized void invalidate() {
        // fences, not a VarHandle: a VarHandle's classes are spun at run time, which the driver's start would pay for
        VarHandle.releaseFence(); // the change this bump announces is visible before the new epoch
        shared.putLong((int) SHARED_EPOCH, ++epochs); // one aligned 8-byte store
        VarHandle.fullFence();
    }

    private static ByteBuffer buffer(long address, long bytes) {
        return MemorySegment.ofAddress(address).reinterpret(bytes).asByteBuffer().order(ByteOrder.nativeOrder());
    }

    /** Whether function {@code id} is one the native entry may answer (it then passes its thread's slot after the arguments). */
    public boolean handles(int id) {
        return id == ctxGetCurrent || id == ctxGetDevice;
    }

    /** The global epoch, read before a call whose answer is then published with it. */
    public long epoch() {
        long e = shared.getLong((int) SHARED_EPOCH);
        VarHandle.acquireFence(); // the driver's state is read after the epoch
        return e;
    }

    /**
     * Publishes the calling thread's answers into its native slot, stamped with {@code epoch} (read by the caller before
     * the driver computed the answer); nothing when the driver is not initialised or was deinitialised.
     *
     * @param tlsAddress the calling thread's {@code struct zl_fast_tls}
     * @param epoch {@link #epoch()} as read before the call
     */
    public void publish(long tlsAddress, long epoch) {
        DriverState s = driver.state;
        if (tlsAddress == 0 || !s.initialized || s.deinitialized) return;
        ByteBuffer tls = buffer(tlsAddress, TLS_SIZE);
        Context c = s.current();
        tls.putLong((int) TLS_CTX, c == null ? 0 : c.handle);
        tls.putInt((int) TLS_DEVICE, c == null ? 0 : c.device);
        tls.putInt((int) TLS_USABLE, c != null && c.stickyError() == 0 ? 1 : 0);
        // the same thread reads the slot afterwards: program order suffices; the epoch last
        tls.putLong((int) TLS_EPOCH, epoch);
    }
}
