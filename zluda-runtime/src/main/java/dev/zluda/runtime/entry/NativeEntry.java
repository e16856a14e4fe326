package dev.zluda.runtime.entry;

import dev.zluda.runtime.api.CudaDispatcher;
import dev.zluda.runtime.driver.NativeFastPath;
import dev.zluda.runtime.driver.ZludaDriver;
import dev.zluda.runtime.trace.CallTracer;
import dev.zluda.spec.CudaApi;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Where native code enters the Java driver. {@code dist/lib/libcuda.so.1} (zluda-runtime/src/main/c/entry.c) boots a
 * JVM on the first CUDA call and calls {@link #boot} through JNI; the calls after that come through JNI
 * ({@link #call}) on the booting thread's first calls, then through the FFM upcall stub {@link #upcallStub} makes on
 * first need (its classes are spun at run time, which costs a short program's start more than its calls cost through
 * JNI), both to {@link #dispatch}. {@code cuCtxGetCurrent} and {@code cuCtxGetDevice} are answered in C while the
 * answer this side published holds ({@link NativeFastPath}).
 *
 * <p>The driver reads the spec on first need, not at boot ({@link ZludaDriver#ZludaDriver(java.util.function.Supplier,
 * MemorySegment)}). With {@code ZLUDA_LOG_DIR} set, every call is recorded by a {@link CallTracer}, the driver's
 * outermost interceptor, and with {@code ZLUDA_CAPTURE_KERNELS} also kernel snapshots of the launches it names, on every
 * backend.
 *
 * <p>No Java exception ever reaches native code: {@link #dispatch} turns every {@link Throwable}
 * into {@code CUDA_ERROR_UNKNOWN} (999) and one line on stderr.
 */
public final class NativeEntry {
    /** CUDA_ERROR_UNKNOWN: what a native caller gets when the Java driver fails internally. */
    public static final int CUDA_ERROR_UNKNOWN = 999;

    private static volatile ZludaDriver driver;
    private static volatile CallTracer tracer;
    private static volatile NativeFastPath fast;
    private static MemorySegment stub;
    /** The id the native entry passes at process exit (atexit), to end the capture. */
    public static final int PROCESS_EXIT = -1;

    private NativeEntry() {}

    /**
     * Called once by the native entry (JNI) on the thread of the first CUDA call.
     *
     * @param functionTable address of {@code zl_functions[]}: the native export of each spec function by id
     * @param count number of entries; must equal the spec's function count
     * @param fastPath address of the native entry's {@code struct zl_fast} ({@link NativeFastPath})
     * @return whether the driver started (the reason it did not is printed on stderr)
     */
    public static boolean boot(long functionTable, int count, long fastPath) {
        try {
            if (count != CudaDispatcher.COUNT) {
                System.err.println("[ZLUDA] libcuda.so.1 was built from a different API spec (" + count + " functions, the jars have "
                        + CudaDispatcher.COUNT + "): rebuild dist/ with mvn package");
                return false;
            }
            MemorySegment table = MemorySegment.ofAddress(functionTable).reinterpret((long) count * ValueLayout.ADDRESS.byteSize());
            // the spec is read when a call needs it, not here (ZludaDriver's lazy constructor)
            ZludaDriver d = new ZludaDriver(CudaApi::get, table);
            CallTracer t = CallTracer.fromEnvironment(CudaApi::get);
            if (t != null) t.attach(d);
            tracer = t;
            if (fastPath != 0) fast = NativeFastPath.attach(d, fastPath);
            driver = d;
            return true;
        } catch (Throwable t) {
            System.err.println("[ZLUDA] the Java driver failed to start: " + t);
            t.printStackTrace();
            return false;
        }
    }

    /**
     * The FFM upcall stub {@code int (*)(int id, uint64_t *words)} to {@link #dispatch}, made on the first call of this
     * (the native entry calls it once, through JNI).
     *
     * @return its address, or 0 when it cannot be made (the reason is printed on stderr)
     */
    public static synchronized long upcallStub() {
        try {
            if (stub == null) {
                var handle = MethodHandles.lookup().findStatic(NativeEntry.class, "dispatch",
                        MethodType.methodType(int.class, int.class, MemorySegment.class));
                stub = Linker.nativeLinker().upcallStub(handle,
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS), Arena.global());
            }
            return stub.address();
        } catch (Throwable t) {
            System.err.println("[ZLUDA] cannot make the driver's upcall stub: " + t);
            return 0;
        }
    }

    /**
     * One CUDA call from native code through JNI ({@link #dispatch}'s contract).
     *
     * @param id spec function id
     * @param words address of the arguments, 8 bytes each
     * @return the CUresult
     */
    static int call(int id, long words) {
        try {
            if (id == PROCESS_EXIT) return processExit();
            if (id < 0 || id >= CudaDispatcher.COUNT) return 1; // CUDA_ERROR_INVALID_VALUE, as CudaDispatcher answers
            // the words through a byte buffer: a memory segment's layout accessors spin classes on first use, which
            // the first calls of a short program would pay for
            int n = CudaDispatcher.params(id);
            NativeFastPath f = fast;
            boolean publish = f != null && f.handles(id);
            long[] w = new long[n + (publish ? 1 : 0)];
            if (w.length > 0) {
                MemorySegment.ofAddress(words).reinterpret(8L * w.length).asByteBuffer().order(ByteOrder.nativeOrder()).asLongBuffer().get(w);
            }
            if (!publish) return driver.call(id, w);
            long epoch = f.epoch();
            int r = driver.call(id, Arrays.copyOf(w, n));
            f.publish(w[n], epoch);
            return r;
        } catch (Throwable t) {
            return failed(id, t);
        }
    }

    /** At process exit: the capture ends, and the driver answers later calls with CUDA_ERROR_DEINITIALIZED. */
    private static int processExit() {
        // the driver answers what exit handlers registered before ours call (cudart's teardown) as NVIDIA's does, with
        // CUDA_ERROR_DEINITIALIZED; those calls are recorded after the PROCESS_END, each followed by another
        // (CallTracer.exit)
        CallTracer t = tracer;
        if (t != null) t.exit(0);
        ZludaDriver d = driver;
        if (d != null) d.deinitialize();
        return 0;
    }

    /** An internal error: one line on stderr, CUDA_ERROR_UNKNOWN to the caller. */
    private static int failed(int id, Throwable t) {
        try {
            String name = id >= 0 && id < CudaDispatcher.COUNT ? CudaApi.get().function(id).name() : "function #" + id;
            System.err.println("[ZLUDA] internal error in " + name + ", returning CUDA_ERROR_UNKNOWN: " + t);
            if (System.getenv("ZLUDA_DEBUG") != null) t.printStackTrace();
        } catch (Throwable ignored) {
            // nothing may escape into native code
        }
        return CUDA_ERROR_UNKNOWN;
    }

    /**
     * One CUDA call from native code.
     *
     * @param id spec function id
     * @param words the arguments, 8 bytes each (EntryGenerator's packing)
     * @return the CUresult
     */
    static int dispatch(int id, MemorySegment words) {
        try {
            if (id == PROCESS_EXIT) return processExit();
            MemorySegment w = words.reinterpret(8L * Math.max(2, CudaDispatcher.MAX_PARAMS));
            NativeFastPath f = fast;
            if (f != null && f.handles(id)) {
                // a function the native entry answers when it can: the word after its one argument is the calling
                // thread's slot, where its answer is published for the next call (epoch read before the answer)
                long epoch = f.epoch();
                int r = CudaDispatcher.dispatch(driver, id, w);
                f.publish(w.get(ValueLayout.JAVA_LONG, 8), epoch);
                return r;
            }
            return CudaDispatcher.dispatch(driver, id, w);
        } catch (Throwable t) {
            return failed(id, t);
        }
    }
}
