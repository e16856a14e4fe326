package dev.zluda.runtime.entry;

import dev.zluda.runtime.api.CudaDispatcher;
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

/**
 * Where native code enters the Java driver. {@code dist/lib/libcuda.so.1} (zluda-runtime/src/main/c)
 * boots a JVM on the first CUDA call and calls {@link #boot(long, int)} through JNI; every call after
 * that goes through the FFM upcall stub {@code boot} returns, straight to {@link #dispatch}.
 *
 * <p>With {@code ZLUDA_LOG_DIR} set, every call is recorded by a {@link CallTracer}, the driver's
 * outermost interceptor, and with {@code ZLUDA_CAPTURE_KERNELS} also kernel snapshots of the launches
 * it names, on every backend.
 *
 * <p>No Java exception ever reaches native code: {@link #dispatch} turns every {@link Throwable}
 * into {@code CUDA_ERROR_UNKNOWN} (999) and one line on stderr.
 */
public final class NativeEntry {
    /** CUDA_ERROR_UNKNOWN: what a native caller gets when the Java driver fails internally. */
    public static final int CUDA_ERROR_UNKNOWN = 999;

    private static volatile ZludaDriver driver;
    private static volatile CallTracer tracer;
    /** The id the native entry passes at process exit (atexit), to end the capture. */
    public static final int PROCESS_EXIT = -1;

    private NativeEntry() {}

    /**
     * Called once by the native entry (JNI) on the thread of the first CUDA call.
     *
     * @param functionTable address of {@code zl_functions[]}: the native export of each spec function by id
     * @param count number of entries; must equal the spec's function count
     * @return the address of an upcall stub {@code int (*)(int id, uint64_t *words)}, or 0 on failure
     *     (the reason is printed on stderr)
     */
    public static long boot(long functionTable, int count) {
        try {
            if (count != CudaDispatcher.COUNT) {
                System.err.println("[ZLUDA] libcuda.so.1 was built from a different API spec (" + count + " functions, the jars have "
                        + CudaDispatcher.COUNT + "): rebuild dist/ with mvn package");
                return 0;
            }
            MemorySegment table = MemorySegment.ofAddress(functionTable).reinterpret((long) count * ValueLayout.ADDRESS.byteSize());
            // the spec is read when a call needs it, not here (ZludaDriver's lazy constructor)
            driver = new ZludaDriver(CudaApi::get, table);
            tracer = CallTracer.fromEnvironment(CudaApi::get);
            if (tracer != null) tracer.attach(driver);
            var handle = MethodHandles.lookup().findStatic(NativeEntry.class, "dispatch",
                    MethodType.methodType(int.class, int.class, MemorySegment.class));
            MemorySegment stub = Linker.nativeLinker().upcallStub(handle,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS), Arena.global());
            return stub.address();
        } catch (Throwable t) {
            System.err.println("[ZLUDA] the Java driver failed to start: " + t);
            t.printStackTrace();
            return 0;
        }
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
            if (id == PROCESS_EXIT) {
                // the process exits: the capture ends, and the driver answers what exit handlers registered before
                // ours call (cudart's teardown) as NVIDIA's does, with CUDA_ERROR_DEINITIALIZED; those calls are
                // recorded after the PROCESS_END, each followed by another (CallTracer.exit)
                CallTracer t = tracer;
                if (t != null) t.exit(0);
                ZludaDriver d = driver;
                if (d != null) d.deinitialize();
                return 0;
            }
            MemorySegment w = words.reinterpret(8L * Math.max(1, CudaDispatcher.MAX_PARAMS));
            return CudaDispatcher.dispatch(driver, id, w);
        } catch (Throwable t) {
            try {
                String name = id >= 0 && id < CudaDispatcher.COUNT ? CudaApi.get().function(id).name() : "function #" + id;
                System.err.println("[ZLUDA] internal error in " + name + ", returning CUDA_ERROR_UNKNOWN: " + t);
                if (System.getenv("ZLUDA_DEBUG") != null) t.printStackTrace();
            } catch (Throwable ignored) {
                // nothing may escape into native code
            }
            return CUDA_ERROR_UNKNOWN;
        }
    }
}
