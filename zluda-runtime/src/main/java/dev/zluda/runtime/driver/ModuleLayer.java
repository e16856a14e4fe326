package dev.zluda.runtime.driver;

import dev.zluda.ptx.ParamInfo;
import dev.zluda.runtime.emulator.Emulator;
import dev.zluda.runtime.emulator.EmulatorModule;
import dev.zluda.runtime.emulator.Errors;
import dev.zluda.runtime.emulator.Kernel;
import dev.zluda.runtime.emulator.LaunchResult;
import dev.zluda.runtime.emulator.MemoryMap;
import dev.zluda.runtime.emulator.PtxLoadException;
import dev.zluda.runtime.hip.HipDevice;
import dev.zluda.runtime.hip.KernelArgs;
import dev.zluda.runtime.image.ModuleImage;
import dev.zluda.runtime.image.ModuleImageException;
import dev.zluda.spec.CudaApi;
import dev.zluda.spec.CudaRecord;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static dev.zluda.runtime.driver.CuResult.*;
import static dev.zluda.runtime.driver.Native.at;
import static dev.zluda.runtime.driver.Native.getInt;
import static dev.zluda.runtime.driver.Native.getLong;
import static dev.zluda.runtime.driver.Native.putInt;
import static dev.zluda.runtime.driver.Native.putLong;

/**
 * Modules, functions, libraries and kernel launches (CUDA Driver API groups CUDA_MODULE,
 * CUDA_LIBRARY, CUDA_EXEC, CUDA_OCCUPANCY), on the CPU emulator ({@link Emulator}).
 *
 * <p>Loading: the image (PTX text, a fatbin, a fatbin wrapper, an ELF carrying fatbins) is read by
 * {@link ModuleImage}, which picks the PTX for the device; the PTX is parsed, checked and
 * translated for the emulator at load ({@link EmulatorModule}). Invalid PTX is
 * CUDA_ERROR_INVALID_PTX (218), PTX the emulator cannot execute CUDA_ERROR_NOT_SUPPORTED (801), a
 * malformed image CUDA_ERROR_INVALID_IMAGE (200), an image without usable PTX
 * CUDA_ERROR_NO_BINARY_FOR_GPU (209); the reasons go to the JIT error log and to stderr as
 * {@code file:line:col: error: ...} lines. Module {@code .global}/{@code .const} variables are
 * device allocations of the module's context, initialised at load.
 *
 * <p>Launching: the shape is checked against the device and the function (CUDA_ERROR_INVALID_VALUE
 * for a zero or too large dimension, too many threads, too much shared memory, missing or
 * conflicting parameters; CUDA_ERROR_INVALID_HANDLE for an unknown function), then the kernel runs
 * to completion before {@code cuLaunchKernel} returns. A kernel that fails (an access outside every
 * allocation, a misaligned access, {@code trap}, a failed device assertion) makes the launch
 * itself succeed, as on NVIDIA hardware, prints {@code [ZLUDA] kernel ...: CTA, thread, PTX line,
 * address} on stderr and leaves the error sticky on the context: every later call that checks the
 * context (the next synchronisation first of all) returns it, until the context is destroyed or,
 * for a primary context, reset.
 *
 * <p>On the hip backend the PTX is compiled for the AMD device's architecture into a code object
 * ({@link HipDevice#compile}: errors of the PTX are CUDA_ERROR_INVALID_PTX, what the lowering refuses
 * CUDA_ERROR_NOT_SUPPORTED, each with its PTX line) and loaded with {@code hipModuleLoadData}; kernels are
 * {@code hipModuleGetFunction}'s, their attributes {@code hipFuncGetAttribute}'s, module variables
 * {@code hipModuleGetGlobal}'s. A launch is checked as above, its parameters packed at their PTX offsets
 * ({@link KernelArgs#pack}) and given to {@code hipModuleLaunchKernel} on the stream's HIP stream; it runs
 * asynchronously, and a fault shows at the next synchronisation as HIP reports it. Kernel snapshots
 * ({@link LaunchObserver}) are not taken there.
 */
abstract class ModuleLayer extends StreamLayer {
    /** CUresult values of this layer (cuda.h). */
    static final int ERROR_INVALID_IMAGE = 200, ERROR_NO_BINARY_FOR_GPU = 209, ERROR_INVALID_PTX = 218,
            ERROR_FILE_NOT_FOUND = 301, ERROR_LAUNCH_OUT_OF_RESOURCES = 701;
    /** CUjit_option values the loader reads (cuda.h). */
    static final int JIT_WALL_TIME = 2, JIT_INFO_LOG_BUFFER = 3, JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4, JIT_ERROR_LOG_BUFFER = 5,
            JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6, JIT_LOG_VERBOSE = 12, JIT_NUM_OPTIONS = 35;
    /** {@code CU_LAUNCH_PARAM_END}, {@code CU_LAUNCH_PARAM_BUFFER_POINTER}, {@code CU_LAUNCH_PARAM_BUFFER_SIZE} (cuda.h). */
    static final long LAUNCH_PARAM_END = 0, LAUNCH_PARAM_BUFFER_POINTER = 1, LAUNCH_PARAM_BUFFER_SIZE = 2;
    /** Dynamic shared memory a function may use without opting in (48 KiB, every GPU since Kepler). */
    static final int DEFAULT_SHARED_LIMIT = 48 << 10;
    /** {@code ZLUDA_EMULATOR_STATS}: print one line per launch (time, thread-instructions, rate) on stderr. */
    static final boolean STATS = System.getenv("ZLUDA_EMULATOR_STATS") != null;

    /** A loaded module: in one context, its variables allocated there. */
    static final class Module {
        final long handle;
        final Context context;
        final EmulatorModule code;
        final Map<String, Function> functions = new LinkedHashMap<>();
        final List<Allocation> variables = new ArrayList<>();
        final Library library;
        /** The PTX text compiled, for kernel snapshots. */
        final String ptx;
        volatile boolean unloaded;
        /** On the hip backend (then {@code code} is null): the hipModule_t and the code object's PTX model. */
        final long hipModule;
        final HipDevice.CodeObject hipCode;

        Module(long handle, Context context, EmulatorModule code, Library library, String ptx) {
            this(handle, context, code, library, ptx, 0, null);
        }

        Module(long handle, Context context, EmulatorModule code, Library library, String ptx, long hipModule, HipDevice.CodeObject hipCode) {
            this.handle = handle;
            this.context = context;
            this.code = code;
            this.library = library;
            this.ptx = ptx;
            this.hipModule = hipModule;
            this.hipCode = hipCode;
        }

        String infoLog() {
            return code != null ? code.infoLog() : hipCode.infoLog();
        }
    }

    /** A kernel of a loaded module (CUfunction), with its settable attributes. */
    static final class Function {
        final long handle;
        final Module module;
        final Kernel kernel;
        final MemorySegment cName;
        volatile int maxDynamicShared;
        volatile int carveout = -1;
        volatile int cacheConfig;
        /** The hipFunction_t on the hip backend, else 0. */
        final long hipFunction;

        Function(long handle, Module module, Kernel kernel) {
            this(handle, module, kernel, 0);
        }

        Function(long handle, Module module, Kernel kernel, long hipFunction) {
            this.handle = handle;
            this.module = module;
            this.kernel = kernel;
            this.hipFunction = hipFunction;
            this.cName = Arena.ofAuto().allocateFrom(kernel.name());
            this.maxDynamicShared = (int) Math.max(0, DEFAULT_SHARED_LIMIT - kernel.staticShared());
        }
    }

    /** A context-independent library (CUlibrary): its PTX, loaded as a module in each context that uses it. */
    static final class Library {
        final long handle;
        final String ptx;
        final String source;
        final List<String> kernelNames;
        final Map<Context, Module> modules = new ConcurrentHashMap<>();
        final Map<String, LibKernel> kernels = new ConcurrentHashMap<>();

        Library(long handle, String ptx, String source, List<String> kernelNames) {
            this.handle = handle;
            this.ptx = ptx;
            this.source = source;
            this.kernelNames = kernelNames;
        }
    }

    /** A kernel of a library (CUkernel). */
    static final class LibKernel {
        final long handle;
        final Library library;
        final String name;
        final MemorySegment cName;

        LibKernel(long handle, Library library, String name) {
            this.handle = handle;
            this.library = library;
            this.name = name;
            this.cName = Arena.ofAuto().allocateFrom(name);
        }
    }

    final Handles<Module> modules = new Handles<>(4);
    final Handles<Function> functions = new Handles<>(5);
    final Handles<Library> libraries = new Handles<>(6);
    final Handles<LibKernel> libKernels = new Handles<>(7);
    private final Map<Context, Integer> sticky = new ConcurrentHashMap<>();
    /**
     * Counts module loads from 1 as the trace layer numbers its dump files ({@code module_NNNN_NN.ptx},
     * trace-format/FORMAT.md §6.4): every load call with a non-NULL image or file name, successful
     * or not, so that an error message names the file a capture holds.
     */
    private final AtomicInteger moduleNumbers = new AtomicInteger();
    /** The name the next {@link #fromImage} on this thread gives its PTX (set by the export-table loads), else null. */
    final ThreadLocal<String> nextImageName = new ThreadLocal<>();
    private final AtomicLong variableBufferIds = new AtomicLong(1L << 40);
    private final CudaRecord launchConfig, launchAttribute;
    private final Map<String, Integer> functionAttribute = new ConcurrentHashMap<>();
    private final MemoryMap memoryMap = this::findForKernel;
    private volatile LaunchObserver launchObserver;
    private static final MethodHandle CALL_B2DSIZE = Linker.nativeLinker().downcallHandle(
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));

    ModuleLayer(CudaApi api, MemorySegment exports) {
        super(api, exports);
        launchConfig = api.record("CUlaunchConfig").orElseThrow();
        launchAttribute = api.record("CUlaunchAttribute").orElseThrow();
        for (var m : api.enumType("CUfunction_attribute").orElseThrow().members()) {
            functionAttribute.put(m.name().substring("CU_FUNC_ATTRIBUTE_".length()), (int) m.value());
        }
    }

    private boolean findForKernel(long address, long[] out) {
        var e = allocations().floorEntry(address);
        if (e == null || !e.getValue().contains(address, 1)) return false;
        out[0] = e.getValue().address;
        out[1] = e.getValue().size;
        return true;
    }

    private volatile java.util.function.Consumer<String> driverEvents;

    /**
     * Sets who is told of the driver's own events, one line of text each (the trace layer writes them
     * as MARKER records, FORMAT.md §6): every module compile with its result and log, every launch's
     * execution (CTAs, thread-instructions executed, wall time in ms, the fault if any); null: nobody.
     */
    public void driverEvents(java.util.function.Consumer<String> sink) {
        this.driverEvents = sink;
    }

    /** Tells the driver-events sink, never failing the call that caused the event. */
    private void event(String text) {
        java.util.function.Consumer<String> sink = driverEvents;
        if (sink == null) return;
        try {
            sink.accept(text);
        } catch (RuntimeException e) {
            if (System.getenv("ZLUDA_DEBUG") != null) e.printStackTrace();
        }
    }

    /** Sets who sees every kernel launch before and after it runs (the trace layer's kernel snapshots); null: nobody. */
    public void launchObserver(LaunchObserver observer) {
        this.launchObserver = observer;
    }

    /** The allocations the parameter buffer's aligned 8-byte words point into, each once, in order of first mention. */
    private List<LaunchObserver.Region> pointedTo(byte[] params) {
        Map<Long, LaunchObserver.Region> found = new LinkedHashMap<>();
        MemorySegment s = MemorySegment.ofArray(params);
        for (long off = 0; off + 8 <= params.length; off += 8) {
            long v = s.get(ValueLayout.JAVA_LONG_UNALIGNED, off);
            if (v == 0) continue;
            var e = allocations().floorEntry(v);
            if (e == null || !e.getValue().contains(v, 1)) continue;
            Allocation a = e.getValue();
            found.putIfAbsent(a.address, new LaunchObserver.Region(a.address, a.size));
        }
        return List.copyOf(found.values());
    }

    // ---------------------------------------------------------------- sticky errors

    /** The sticky error of a context (a kernel fault), or SUCCESS. */
    @Override
    int stickyError(Context c) {
        Integer e = c == null ? null : sticky.get(c);
        return e == null ? SUCCESS : e;
    }

    /** As ContextLayer's, and a context with a sticky kernel error answers that error (as NVIDIA's does). */
    @Override
    int checkContext() {
        int r = super.checkContext();
        return r != SUCCESS ? r : stickyError(current());
    }

    @Override
    public int cuCtxSynchronize_v2(long ctx) {
        int r = super.cuCtxSynchronize_v2(ctx);
        if (r != SUCCESS) return r;
        return stickyError(ctx == 0 ? current() : contexts.get(ctx));
    }

    @Override
    public int cuEventSynchronize(long hEvent) {
        int r = super.cuEventSynchronize(hEvent);
        Event e = events.get(hEvent);
        return r != SUCCESS || e == null ? r : stickyError(e.context);
    }

    @Override
    void release(Context c) {
        super.release(c);
        for (Module m : modules.values()) if (m.context == c) unload(m);
        sticky.remove(c);
    }

    // ---------------------------------------------------------------- loading

    /** Parsed JIT options of cuModuleLoadDataEx / cuLibraryLoadData. */
    private static final class JitLog {
        long errorBuffer, errorSize, infoBuffer, infoSize;
        int errorSizeSlot = -1, infoSizeSlot = -1, wallTimeSlot = -1;
        long values;
        /** CU_JIT_LOG_VERBOSE given non-zero: the info log gets the per-kernel lines, as ptxas -v prints them on NVIDIA's. */
        boolean verbose;
    }

    /** Reads CUjit_option / value arrays; null for invalid options (CUDA_ERROR_INVALID_VALUE). */
    private static JitLog jitOptions(int n, long options, long values) {
        JitLog log = new JitLog();
        if (n == 0) return log;
        if (n < 0 || options == 0 || values == 0) return null;
        log.values = values;
        for (int i = 0; i < n; i++) {
            int opt = getInt(options + 4L * i);
            long v = getLong(values + 8L * i);
            switch (opt) {
                case JIT_ERROR_LOG_BUFFER -> log.errorBuffer = v;
                case JIT_ERROR_LOG_BUFFER_SIZE_BYTES -> { log.errorSize = v & 0xFFFF_FFFFL; log.errorSizeSlot = i; }
                case JIT_INFO_LOG_BUFFER -> log.infoBuffer = v;
                case JIT_INFO_LOG_BUFFER_SIZE_BYTES -> { log.infoSize = v & 0xFFFF_FFFFL; log.infoSizeSlot = i; }
                case JIT_WALL_TIME -> log.wallTimeSlot = i;
                case JIT_LOG_VERBOSE -> log.verbose = (int) v != 0;
                default -> {
                    if (opt < 0 || opt >= JIT_NUM_OPTIONS) return null;
                }
            }
        }
        return log;
    }

    /**
     * Writes a log into a caller buffer of {@code size} bytes, NUL-terminated; returns the bytes written
     * with the NUL, or 0 for an empty log: what NVIDIA's driver writes into the *_LOG_BUFFER_SIZE_BYTES
     * slot after a load that logged nothing (0 for both logs of cuModuleLoadDataEx in the H200 captures
     * samples/traces/h200/{matrixMul,reduction,histogram,scan}, which passed 8192 in).
     */
    private static long writeLog(long buffer, long size, String text) {
        if (buffer == 0 || size <= 0) return 0;
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        if (b.length == 0) {
            at(buffer, 1).set(ValueLayout.JAVA_BYTE, 0, (byte) 0);
            return 0;
        }
        int n = (int) Math.min(b.length, size - 1);
        MemorySegment out = at(buffer, size);
        MemorySegment.copy(b, 0, out, ValueLayout.JAVA_BYTE, 0, n);
        out.set(ValueLayout.JAVA_BYTE, n, (byte) 0);
        return n + 1;
    }

    private static void finishLog(JitLog log, String error, String info, long nanos) {
        if (log == null) return;
        long e = writeLog(log.errorBuffer, log.errorSize, error);
        // NVIDIA's JIT writes its info log (ptxas info lines) only with CU_JIT_LOG_VERBOSE
        long i = writeLog(log.infoBuffer, log.infoSize, log.verbose ? info : "");
        if (log.errorSizeSlot >= 0) putLong(log.values + 8L * log.errorSizeSlot, e);
        if (log.infoSizeSlot >= 0) putLong(log.values + 8L * log.infoSizeSlot, i);
        if (log.wallTimeSlot >= 0) {
            putLong(log.values + 8L * log.wallTimeSlot, 0);
            Native.putFloat(log.values + 8L * log.wallTimeSlot, nanos / 1e6f);
        }
    }

    /** Thrown inside the loader with the CUresult and the log lines. */
    /** Each thread's stack for the emulator: the current context's CU_LIMIT_STACK_SIZE (limit 0). */
    private long stackLimit() {
        Context c = current();
        return c == null ? dev.zluda.runtime.emulator.Emulator.DEFAULT_STACK_BYTES : c.limit(0);
    }

    private static final class LoadFailure extends Exception {
        final int error;

        LoadFailure(int error, String log) {
            super(log, null, false, false);
            this.error = error;
        }
    }

    /** The PTX of a module image at an address (PTX text, fatbin, wrapper, ELF with fatbins). */
    private String ptxOf(byte[] image) throws LoadFailure {
        try {
            ModuleImage img = ModuleImage.of(image);
            return img.bestPtx(attributes.major(), attributes.minor()).ptx();
        } catch (ModuleImageException e) {
            throw imageFailure(e);
        }
    }

    private static LoadFailure imageFailure(ModuleImageException e) {
        int code = switch (e.reason()) {
            case NO_BINARY_FOR_DEVICE -> ERROR_NO_BINARY_FOR_GPU;
            case UNSUPPORTED -> NOT_SUPPORTED;
            default -> ERROR_INVALID_IMAGE;
        };
        return new LoadFailure(code, e.getMessage());
    }

    /** Compiles PTX into a module of the current context. */
    private Module compile(String ptx, String source, Library library) throws LoadFailure {
        if (hip != null) return compileHip(hip, ptx, source, library);
        Context ctx = current();
        List<Allocation> vars = new ArrayList<>();
        EmulatorModule.Allocator alloc = new EmulatorModule.Allocator() {
            @Override
            public long allocate(String name, long size, long align) {
                Arena arena = Arena.ofShared();
                long address = arena.allocate(size, Math.max(256, align)).address();
                Allocation a = new Allocation(Allocation.Kind.DEVICE, address, size, ctx, 0, variableBufferIds.incrementAndGet(), arena);
                allocations().put(address, a);
                vars.add(a);
                return address;
            }

            @Override
            public void free(long address) {
                Allocation a = allocations().remove(address);
                if (a != null) a.free();
                vars.removeIf(v -> v.address == address);
            }
        };
        EmulatorModule em;
        try {
            em = EmulatorModule.load(ptx, source, alloc);
        } catch (PtxLoadException e) {
            throw new LoadFailure(e.error() == Errors.INVALID_PTX ? ERROR_INVALID_PTX : NOT_SUPPORTED, e.log());
        } catch (OutOfMemoryError e) {
            throw new LoadFailure(OUT_OF_MEMORY, source + ": out of memory while loading the module: " + e.getMessage());
        } catch (RuntimeException e) {
            if (System.getenv("ZLUDA_DEBUG") != null) e.printStackTrace();
            throw new LoadFailure(NOT_SUPPORTED, source + ": internal error of the PTX translator: " + e);
        }
        long h = modules.reserve();
        Module m = new Module(h, ctx, em, library, ptx);
        m.variables.addAll(vars);
        for (Kernel k : em.kernels().values()) {
            long fh = functions.reserve();
            Function f = new Function(fh, m, k);
            m.functions.put(k.name(), f);
            functions.put(fh, f);
        }
        modules.put(h, m);
        return m;
    }

    /** hipFunction_attribute values (hip/driver_types.h; the same order as CUfunction_attribute). */
    private static final int HIP_FUNC_MAX_THREADS = 0, HIP_FUNC_SHARED = 1, HIP_FUNC_CONST = 2, HIP_FUNC_LOCAL = 3, HIP_FUNC_REGS = 4;

    /** A function attribute of a HIP kernel, or {@code fallback} when HIP does not answer. */
    private static int hipFuncAttribute(HipDevice h, long function, int attribute, int fallback) {
        int[] r = h.hip().funcAttribute(attribute, function);
        return r[0] == 0 ? r[1] : fallback;
    }

    /** The hip backend's loader: PTX → code object for the device's architecture → hipModuleLoadData. */
    private Module compileHip(HipDevice h, String ptx, String source, Library library) throws LoadFailure {
        Context ctx = current();
        HipDevice.CodeObject co;
        try {
            co = h.compile(ptx, source);
        } catch (HipDevice.CompileFailure f) {
            throw new LoadFailure(f.cuResult, f.getMessage());
        }
        long hm;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment image = a.allocate(co.elf().length, 16);
            MemorySegment.copy(co.elf(), 0, image, ValueLayout.JAVA_BYTE, 0, co.elf().length);
            long[] r = h.hip().moduleLoadData(image);
            if (r[0] != 0) {
                throw new LoadFailure(HipDevice.cuResult((int) r[0]), source + ": hipModuleLoadData of the " + h.target().cpu() + " code object failed: "
                        + h.hip().errorString((int) r[0]) + " (hipError " + r[0] + ")");
            }
            hm = r[1];
        }
        long mh = modules.reserve();
        Module m = new Module(mh, ctx, null, library, ptx, hm, co);
        List<Function> made = new ArrayList<>();
        for (dev.zluda.ptx.FunctionInfo info : co.kernels()) {
            long[] f = h.hip().moduleGetFunction(hm, info.name());
            if (f[0] != 0) {
                h.hip().moduleUnload(hm);
                throw new LoadFailure(HipDevice.cuResult((int) f[0]), source + ": hipModuleGetFunction(" + info.name() + "): "
                        + h.hip().errorString((int) f[0]));
            }
            int maxThreads = 1024;
            int[] req = null;
            List<Long> rq = info.directives().get(".reqntid");
            if (rq != null && !rq.isEmpty()) {
                req = new int[] {1, 1, 1};
                for (int k = 0; k < rq.size() && k < 3; k++) req[k] = (int) (long) rq.get(k);
                maxThreads = Math.min(maxThreads, req[0] * req[1] * req[2]);
            }
            List<Long> mx = info.directives().get(".maxntid");
            if (mx != null && !mx.isEmpty()) {
                long prod = 1;
                for (Long v : mx) prod *= v;
                maxThreads = (int) Math.min(maxThreads, prod);
            }
            int hipMax = hipFuncAttribute(h, f[1], HIP_FUNC_MAX_THREADS, 0);
            if (hipMax > 0) maxThreads = Math.min(maxThreads, hipMax);
            Kernel k = new Kernel(info.name(), info, null, hipFuncAttribute(h, f[1], HIP_FUNC_SHARED, 0), hipFuncAttribute(h, f[1], HIP_FUNC_LOCAL, 0),
                    maxThreads, req, Math.max(1, hipFuncAttribute(h, f[1], HIP_FUNC_REGS, 1)));
            made.add(new Function(functions.reserve(), m, k, f[1]));
        }
        for (Function f : made) {
            m.functions.put(f.kernel.name(), f);
            functions.put(f.handle, f);
        }
        modules.put(mh, m);
        return m;
    }

    private void unload(Module m) {
        if (m.unloaded) return;
        m.unloaded = true;
        if (m.hipModule != 0 && hip != null) hip.hip().moduleUnload(m.hipModule);
        modules.remove(m.handle);
        for (Function f : m.functions.values()) functions.remove(f.handle);
        for (Allocation a : m.variables) {
            if (allocations().remove(a.address, a)) a.free();
        }
        if (m.library != null) m.library.modules.remove(m.context, m);
    }

    private int loadModule(long pModule, String via, JitLog log, PtxSource src) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        long t0 = System.nanoTime();
        try {
            String ptx = src.get();
            String source = src.name();
            Module m = compile(ptx, source, null);
            finishLog(log, "", m.infoLog(), System.nanoTime() - t0);
            putLong(pModule, m.handle);
            event(String.format(java.util.Locale.ROOT, "module compiled: %s, %d kernel(s) (%s), %.3f ms", source, m.functions.size(),
                    String.join(", ", m.functions.keySet()), (System.nanoTime() - t0) / 1e6));
            return SUCCESS;
        } catch (LoadFailure f) {
            finishLog(log, f.getMessage(), "", System.nanoTime() - t0);
            event("module compile failed with " + errorName(f.error) + ": " + f.getMessage());
            System.err.println("[ZLUDA] " + via + " failed with " + errorName(f.error) + ":");
            for (String line : f.getMessage().split("\n")) System.err.println("[ZLUDA]   " + line);
            untracedHint(f.getMessage());
            return f.error;
        }
    }

    /**
     * After a load error that names {@code module_NNNN_NN.ptx}: without a capture (no {@code ZLUDA_LOG_DIR},
     * which {@code zluda run --zluda-trace} sets) no such file is written, so say how to get it.
     */
    private static void untracedHint(String message) {
        String logDir = System.getenv("ZLUDA_LOG_DIR");
        if ((logDir == null || logDir.isBlank()) && message != null && message.contains("module_")) {
            System.err.println("[ZLUDA]   (nothing is recorded in this run, so that file is not written: zluda run --zluda-trace keeps it in the capture)");
        }
    }

    private String errorName(int code) {
        return switch (code) {
            case ERROR_INVALID_IMAGE -> "CUDA_ERROR_INVALID_IMAGE";
            case ERROR_NO_BINARY_FOR_GPU -> "CUDA_ERROR_NO_BINARY_FOR_GPU";
            case ERROR_INVALID_PTX -> "CUDA_ERROR_INVALID_PTX";
            case ERROR_FILE_NOT_FOUND -> "CUDA_ERROR_FILE_NOT_FOUND";
            case NOT_SUPPORTED -> "CUDA_ERROR_NOT_SUPPORTED";
            default -> "CUresult " + code;
        };
    }

    /** Where PTX comes from, for the loader. */
    private interface PtxSource {
        String get() throws LoadFailure;

        String name();
    }

    /**
     * The next module number (see {@link #moduleNumbers}), for a load that names its PTX itself
     * through {@link #nextImageName}.
     */
    final int nextModuleNumber() {
        return moduleNumbers.incrementAndGet();
    }

    /**
     * The dump file name the trace layer gives entry {@code entry} (from 1) of module load
     * {@code number}: {@code module_NNNN_NN.ptx} (trace-format/FORMAT.md §6.4).
     */
    static String moduleFileName(int number, int entry) {
        return String.format(java.util.Locale.ROOT, "module_%04d_%02d.ptx", number, entry);
    }

    private PtxSource fromImage(long image) {
        String given = nextImageName.get();
        nextImageName.remove();
        int number = given == null ? moduleNumbers.incrementAndGet() : 0;
        return new PtxSource() {
            private String name = given != null ? given : moduleFileName(number, 1);

            @Override
            public String get() throws LoadFailure {
                try {
                    ModuleImage img = ModuleImage.fromAddress(image);
                    ModuleImage.Entry best = img.bestPtx(attributes.major(), attributes.minor());
                    if (given == null) name = moduleFileName(number, img.entries().indexOf(best) + 1);
                    return best.ptx();
                } catch (ModuleImageException e) {
                    throw imageFailure(e);
                }
            }

            @Override
            public String name() {
                return name;
            }
        };
    }

    private PtxSource fromFile(long fname) {
        String path = at(fname, 4096).getString(0, StandardCharsets.UTF_8);
        moduleNumbers.incrementAndGet(); // the trace layer dumps the file's content under this number
        return new PtxSource() {
            @Override
            public String get() throws LoadFailure {
                try {
                    return ptxOf(Files.readAllBytes(Path.of(path)));
                } catch (NoSuchFileException e) {
                    throw new LoadFailure(ERROR_FILE_NOT_FOUND, path + ": no such file");
                } catch (java.io.IOException | java.nio.file.InvalidPathException e) {
                    throw new LoadFailure(ERROR_FILE_NOT_FOUND, path + ": " + e.getMessage());
                }
            }

            @Override
            public String name() {
                return path;
            }
        };
    }

    @Override
    public int cuModuleLoadData(long module, long image) {
        if (module == 0 || image == 0) return initialized ? INVALID_VALUE : NOT_INITIALIZED;
        return loadModule(module, "cuModuleLoadData", null, fromImage(image));
    }

    @Override
    public int cuModuleLoadDataEx(long module, long image, int numOptions, long options, long optionValues) {
        if (module == 0 || image == 0) return initialized ? INVALID_VALUE : NOT_INITIALIZED;
        PtxSource src = fromImage(image); // numbered before the options are checked, as the trace layer counts the call
        JitLog log = jitOptions(numOptions, options, optionValues);
        if (log == null) return INVALID_VALUE;
        return loadModule(module, "cuModuleLoadDataEx", log, src);
    }

    @Override
    public int cuModuleLoadFatBinary(long module, long fatCubin) {
        if (module == 0 || fatCubin == 0) return initialized ? INVALID_VALUE : NOT_INITIALIZED;
        return loadModule(module, "cuModuleLoadFatBinary", null, fromImage(fatCubin));
    }

    @Override
    public int cuModuleLoad(long module, long fname) {
        if (module == 0 || fname == 0) return initialized ? INVALID_VALUE : NOT_INITIALIZED;
        return loadModule(module, "cuModuleLoad", null, fromFile(fname));
    }

    @Override
    public int cuModuleUnload(long hmod) {
        if (!initialized) return NOT_INITIALIZED;
        Module m = modules.get(hmod);
        if (m == null || m.library != null) return INVALID_HANDLE;
        int sticky = stickyError(m.context); // measured on the H200: CUDA_ERROR_ILLEGAL_ADDRESS after a fault
        if (sticky != SUCCESS) return sticky;
        unload(m);
        return SUCCESS;
    }

    private Module module(long hmod) {
        Module m = modules.get(hmod);
        return m == null || m.unloaded || m.context.destroyed ? null : m;
    }

    @Override
    public int cuModuleGetFunction(long hfunc, long hmod, long name) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (hfunc == 0 || name == 0) return INVALID_VALUE;
        Module m = module(hmod);
        if (m == null) return INVALID_HANDLE;
        Function f = m.functions.get(at(name, 65536).getString(0, StandardCharsets.UTF_8));
        if (f == null) return NOT_FOUND;
        putLong(hfunc, f.handle);
        return SUCCESS;
    }

    @Override
    public int cuModuleGetFunctionCount(long count, long mod) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (count == 0) return INVALID_VALUE;
        Module m = module(mod);
        if (m == null) return INVALID_HANDLE;
        putInt(count, m.functions.size());
        return SUCCESS;
    }

    @Override
    public int cuModuleEnumerateFunctions(long functionsOut, int numFunctions, long mod) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (functionsOut == 0) return INVALID_VALUE;
        Module m = module(mod);
        if (m == null) return INVALID_HANDLE;
        int i = 0;
        for (Function f : m.functions.values()) {
            if (i >= Integer.toUnsignedLong(numFunctions)) break;
            putLong(functionsOut + 8L * i++, f.handle);
        }
        return SUCCESS;
    }

    @Override
    public int cuModuleGetGlobal_v2(long dptr, long bytes, long hmod, long name) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (name == 0) return INVALID_VALUE;
        Module m = module(hmod);
        if (m == null) return INVALID_HANDLE;
        if (m.code == null) {
            long[] g = hip.hip().moduleGetGlobal(m.hipModule, at(name, 65536).getString(0, StandardCharsets.UTF_8));
            if (g[0] != 0) return HipDevice.cuResult((int) g[0]);
            if (dptr != 0) putLong(dptr, g[1]);
            if (bytes != 0) putLong(bytes, g[2]);
            return SUCCESS;
        }
        EmulatorModule.Variable v = m.code.variables().get(at(name, 65536).getString(0, StandardCharsets.UTF_8));
        if (v == null) return NOT_FOUND;
        if (dptr != 0) putLong(dptr, v.address());
        if (bytes != 0) putLong(bytes, v.size());
        return SUCCESS;
    }

    // ---------------------------------------------------------------- functions

    /** A CUfunction, or a CUkernel resolved to its function in the current context; null when unknown. */
    private Function function(long handle) {
        Function f = functions.get(handle);
        if (f != null) return f.module.unloaded ? null : f;
        LibKernel k = libKernels.get(handle);
        if (k == null) return null;
        try {
            Module m = libraryModule(k.library);
            return m == null ? null : m.functions.get(k.name);
        } catch (LoadFailure e) {
            return null;
        }
    }

    private int attributeValue(Function f, int attrib) {
        Kernel k = f.kernel;
        String name = null;
        for (var e : functionAttribute.entrySet()) if (e.getValue() == attrib) name = e.getKey();
        if (name == null) return Integer.MIN_VALUE;
        return switch (name) {
            case "MAX_THREADS_PER_BLOCK" -> k.maxThreads();
            case "SHARED_SIZE_BYTES" -> (int) k.staticShared();
            case "CONST_SIZE_BYTES" -> f.module.code != null ? (int) f.module.code.constBytes() : hipFuncAttribute(hip, f.hipFunction, HIP_FUNC_CONST, 0);
            case "LOCAL_SIZE_BYTES" -> (int) k.localBytes();
            case "NUM_REGS" -> k.numRegs();
            case "PTX_VERSION" -> f.module.code != null ? f.module.code.ptxVersion() : EmulatorModule.targetArchitecture(f.module.hipCode.model());
            case "BINARY_VERSION" -> attributes.major() * 10 + attributes.minor();
            case "CACHE_MODE_CA" -> 0;
            case "MAX_DYNAMIC_SHARED_SIZE_BYTES" -> f.maxDynamicShared;
            case "PREFERRED_SHARED_MEMORY_CARVEOUT" -> f.carveout;
            case "CLUSTER_SIZE_MUST_BE_SET", "REQUIRED_CLUSTER_WIDTH", "REQUIRED_CLUSTER_HEIGHT", "REQUIRED_CLUSTER_DEPTH",
                 "NON_PORTABLE_CLUSTER_SIZE_ALLOWED", "CLUSTER_SCHEDULING_POLICY_PREFERENCE" -> 0;
            default -> Integer.MIN_VALUE;
        };
    }

    @Override
    public int cuFuncGetAttribute(long pi, int attrib, long hfunc) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (pi == 0) return INVALID_VALUE;
        Function f = function(hfunc);
        if (f == null) return INVALID_HANDLE;
        int v = attributeValue(f, attrib);
        if (v == Integer.MIN_VALUE) return INVALID_VALUE;
        putInt(pi, v);
        return SUCCESS;
    }

    @Override
    public int cuFuncSetAttribute(long hfunc, int attrib, int value) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        Function f = function(hfunc);
        if (f == null) return INVALID_HANDLE;
        if (attrib == functionAttribute.get("MAX_DYNAMIC_SHARED_SIZE_BYTES")) {
            long optin = attributes.byName().get("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN");
            if (value < 0 || value + f.kernel.staticShared() > optin) return INVALID_VALUE;
            f.maxDynamicShared = value;
            return SUCCESS;
        }
        if (attrib == functionAttribute.get("PREFERRED_SHARED_MEMORY_CARVEOUT")) {
            if (value < -1 || value > 100) return INVALID_VALUE;
            f.carveout = value;
            return SUCCESS;
        }
        if (attrib == functionAttribute.get("REQUIRED_CLUSTER_WIDTH") || attrib == functionAttribute.get("REQUIRED_CLUSTER_HEIGHT")
                || attrib == functionAttribute.get("REQUIRED_CLUSTER_DEPTH") || attrib == functionAttribute.get("NON_PORTABLE_CLUSTER_SIZE_ALLOWED")
                || attrib == functionAttribute.get("CLUSTER_SCHEDULING_POLICY_PREFERENCE")) {
            return value == 0 || value == 1 && attrib != functionAttribute.get("NON_PORTABLE_CLUSTER_SIZE_ALLOWED") ? SUCCESS : NOT_SUPPORTED;
        }
        return INVALID_VALUE;
    }

    @Override
    public int cuFuncSetCacheConfig(long hfunc, int config) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        Function f = function(hfunc);
        if (f == null) return INVALID_HANDLE;
        if (config < 0 || config > 3) return INVALID_VALUE;
        f.cacheConfig = config;
        return SUCCESS;
    }

    @Override
    public int cuFuncSetSharedMemConfig(long hfunc, int config) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (function(hfunc) == null) return INVALID_HANDLE;
        return config < 0 || config > 2 ? INVALID_VALUE : SUCCESS;
    }

    @Override
    public int cuFuncGetModule(long hmod, long hfunc) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (hmod == 0) return INVALID_VALUE;
        Function f = function(hfunc);
        if (f == null) return INVALID_HANDLE;
        putLong(hmod, f.module.handle);
        return SUCCESS;
    }

    @Override
    public int cuFuncGetName(long name, long hfunc) {
        if (!initialized) return NOT_INITIALIZED;
        if (name == 0) return INVALID_VALUE;
        Function f = function(hfunc);
        if (f == null) return INVALID_HANDLE;
        putLong(name, f.cName.address());
        return SUCCESS;
    }

    @Override
    public int cuFuncGetParamInfo(long func, long paramIndex, long paramOffset, long paramSize) {
        if (!initialized) return NOT_INITIALIZED;
        Function f = function(func);
        if (f == null) return INVALID_HANDLE;
        List<ParamInfo> ps = f.kernel.info().params();
        if (paramIndex < 0 || paramIndex >= ps.size()) return INVALID_VALUE;
        ParamInfo p = ps.get((int) paramIndex);
        if (paramOffset != 0) putLong(paramOffset, p.offset());
        if (paramSize != 0) putLong(paramSize, p.size());
        return SUCCESS;
    }

    @Override
    public int cuFuncIsLoaded(long state, long function) {
        if (!initialized) return NOT_INITIALIZED;
        if (state == 0) return INVALID_VALUE;
        if (function(function) == null) return INVALID_HANDLE;
        putInt(state, 1); // CU_FUNCTION_LOADING_STATE_LOADED
        return SUCCESS;
    }

    @Override
    public int cuFuncLoad(long function) {
        if (!initialized) return NOT_INITIALIZED;
        return function(function) == null ? INVALID_HANDLE : SUCCESS;
    }

    // ---------------------------------------------------------------- launches

    /** The per-CTA shared memory a function may use with its current attributes. */
    private long sharedLimit(Function f) {
        return f.kernel.staticShared() + f.maxDynamicShared;
    }

    /**
     * Validates a launch and runs it. Grid and block dimensions are unsigned; CUDA's rules
     * (cuLaunchKernel): every dimension ≥ 1; block ≤ MAX_BLOCK_DIM_{X,Y,Z} and ≤ the function's
     * MAX_THREADS_PER_BLOCK in total; grid ≤ MAX_GRID_DIM_{X,Y,Z}; static + dynamic shared memory
     * within the function's limit — otherwise CUDA_ERROR_INVALID_VALUE.
     */
    private int launch(long f, long gx, long gy, long gz, long bx, long by, long bz, long shared, long hStream, long kernelParams,
                       long extra) {
        int r = checkStream(hStream);
        if (r != SUCCESS) return r;
        Function fn = function(f);
        if (fn == null) return INVALID_HANDLE;
        Map<String, Integer> a = attributes.byName();
        if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0) return INVALID_VALUE;
        if (gx > a.get("MAX_GRID_DIM_X") || gy > a.get("MAX_GRID_DIM_Y") || gz > a.get("MAX_GRID_DIM_Z")) return INVALID_VALUE;
        if (bx > a.get("MAX_BLOCK_DIM_X") || by > a.get("MAX_BLOCK_DIM_Y") || bz > a.get("MAX_BLOCK_DIM_Z")) return INVALID_VALUE;
        long threads = bx * by * bz;
        if (threads > a.get("MAX_THREADS_PER_BLOCK") || threads > fn.kernel.maxThreads()) return INVALID_VALUE;
        int[] req = fn.kernel.reqntid();
        if (req != null && (bx != req[0] || by != req[1] || bz != req[2])) return INVALID_VALUE;
        if (fn.kernel.staticShared() + shared > sharedLimit(fn)) return INVALID_VALUE;
        long paramBytes = fn.kernel.paramBytes();
        byte[] buffer = new byte[(int) paramBytes];
        MemorySegment params = MemorySegment.ofArray(buffer);
        if (kernelParams != 0 && extra != 0) return INVALID_VALUE;
        if (kernelParams != 0) {
            for (ParamInfo p : fn.kernel.info().params()) {
                long ptr = getLong(kernelParams + 8L * p.index());
                if (ptr == 0) return INVALID_VALUE;
                MemorySegment.copy(at(ptr, p.size()), 0, params, p.offset(), p.size());
            }
        } else if (extra != 0) {
            long bufferPtr = 0, sizePtr = 0;
            for (int i = 0; ; i += 2) {
                if (i > 64) return INVALID_VALUE;
                long key = getLong(extra + 8L * i);
                if (key == LAUNCH_PARAM_END) break;
                long value = getLong(extra + 8L * (i + 1));
                if (key == LAUNCH_PARAM_BUFFER_POINTER) bufferPtr = value;
                else if (key == LAUNCH_PARAM_BUFFER_SIZE) sizePtr = value;
                else return INVALID_VALUE;
            }
            if (paramBytes > 0) {
                if (bufferPtr == 0 || sizePtr == 0) return INVALID_VALUE;
                long size = getLong(sizePtr);
                if (size < paramBytes) return INVALID_VALUE;
                MemorySegment.copy(at(bufferPtr, paramBytes), 0, params, 0, paramBytes);
            }
        } else if (paramBytes > 0) {
            return INVALID_VALUE;
        }
        HipDevice h = hip;
        if (h != null) return launchHip(h, fn, new long[] {gx, gy, gz}, new long[] {bx, by, bz}, shared, hStream, kernelParams, buffer);
        LaunchObserver obs = launchObserver;
        LaunchObserver.KernelLaunch seen = null;
        Object token = null;
        if (obs != null) {
            try {
                if (obs.wants(fn.kernel.name())) {
                    seen = new LaunchObserver.KernelLaunch(f, fn.kernel.name(), fn.module.ptx, new long[] {gx, gy, gz}, new long[] {bx, by, bz},
                            shared, buffer.clone(), pointedTo(buffer));
                    token = obs.before(seen);
                }
            } catch (RuntimeException e) {
                seen = null; // a failing observer never stops the launch
            }
        }
        long t0 = System.nanoTime();
        LaunchResult res;
        try {
            res = Emulator.get().launch(fn.kernel, new int[] {(int) gx, (int) gy, (int) gz},
                    new int[] {(int) bx, (int) by, (int) bz}, (int) shared, params, memoryMap, attributes.byName().get("MULTIPROCESSOR_COUNT"),
                    stackLimit());
        } catch (OutOfMemoryError e) {
            return ERROR_LAUNCH_OUT_OF_RESOURCES;
        } catch (RuntimeException e) {
            if (System.getenv("ZLUDA_DEBUG") != null) e.printStackTrace();
            res = new LaunchResult(Errors.LAUNCH_FAILED, "kernel " + fn.kernel.name() + ": internal emulator error: " + e, 0);
        }
        if (driverEvents != null) {
            event(String.format(java.util.Locale.ROOT, "kernel %s grid=(%d,%d,%d) block=(%d,%d,%d) shared=%d: %d CTAs, %d thread-instructions, %.3f ms%s",
                    fn.kernel.name(), gx, gy, gz, bx, by, bz, shared, (long) gx * gy * gz, res.threadInstructions(), (System.nanoTime() - t0) / 1e6,
                    res.ok() ? "" : ", " + res.message()));
        }
        if (STATS) {
            double ms = (System.nanoTime() - t0) / 1e6;
            System.err.printf(java.util.Locale.ROOT, "[ZLUDA] launch %s grid=(%d,%d,%d) block=(%d,%d,%d) shared=%d: %.3f ms, %d thread-instructions, %.1f M/s%n",
                    fn.kernel.name(), gx, gy, gz, bx, by, bz, shared, ms, res.threadInstructions(), res.threadInstructions() / ms / 1e3);
        }
        if (!res.ok()) {
            System.err.println("[ZLUDA] " + res.message());
            sticky.putIfAbsent(current(), res.error());
        }
        if (seen != null) {
            try {
                obs.after(token, seen, res.error());
            } catch (RuntimeException e) {
                // the observer's failure is its own
            }
        }
        return SUCCESS;
    }

    /**
     * A checked launch on the hip backend: the parameters packed at their PTX offsets ({@link KernelArgs#pack};
     * the {@code extra} buffer as given), then {@code hipModuleLaunchKernel} on the stream's HIP stream.
     */
    private int launchHip(HipDevice h, Function fn, long[] grid, long[] block, long shared, long hStream, long kernelParams, byte[] buffer) {
        byte[] args = buffer;
        if (kernelParams != 0) {
            List<ParamInfo> ps = fn.kernel.info().params();
            List<byte[]> values = new ArrayList<>(ps.size());
            for (ParamInfo p : ps) values.add(at(getLong(kernelParams + 8L * p.index()), p.size()).toArray(ValueLayout.JAVA_BYTE));
            args = KernelArgs.pack(ps, values);
        }
        long t0 = System.nanoTime();
        int e;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(Math.max(1, args.length), 16);
            MemorySegment.copy(args, 0, buf, ValueLayout.JAVA_BYTE, 0, args.length);
            e = h.hip().moduleLaunchKernel(fn.hipFunction, new int[] {(int) grid[0], (int) grid[1], (int) grid[2]},
                    new int[] {(int) block[0], (int) block[1], (int) block[2]}, (int) shared, hipStream(hStream), buf, args.length);
        }
        if (driverEvents != null) {
            event(String.format(java.util.Locale.ROOT, "kernel %s grid=(%d,%d,%d) block=(%d,%d,%d) shared=%d: launched through HIP in %.3f ms%s",
                    fn.kernel.name(), grid[0], grid[1], grid[2], block[0], block[1], block[2], shared, (System.nanoTime() - t0) / 1e6,
                    e == 0 ? "" : ", hipModuleLaunchKernel: " + h.hip().errorString(e)));
        }
        return HipDevice.cuResult(e);
    }

    private static long u(int v) {
        return Integer.toUnsignedLong(v);
    }

    @Override
    public int cuLaunchKernel(long f, int gridDimX, int gridDimY, int gridDimZ, int blockDimX, int blockDimY, int blockDimZ,
                              int sharedMemBytes, long hStream, long kernelParams, long extra) {
        return launch(f, u(gridDimX), u(gridDimY), u(gridDimZ), u(blockDimX), u(blockDimY), u(blockDimZ), u(sharedMemBytes), hStream,
                kernelParams, extra);
    }

    @Override
    public int cuLaunchKernel_ptsz(long f, int gridDimX, int gridDimY, int gridDimZ, int blockDimX, int blockDimY, int blockDimZ,
                                   int sharedMemBytes, long hStream, long kernelParams, long extra) {
        return cuLaunchKernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams, extra);
    }

    private static long field(CudaRecord r, long base, String name) {
        for (CudaRecord.Field f : r.fields()) {
            if (f.name().equals(name)) return f.size() == 8 ? getLong(base + f.offset()) : getInt(base + f.offset()) & 0xFFFF_FFFFL;
        }
        throw new IllegalStateException(r.name() + " has no field " + name);
    }

    private static long offset(CudaRecord r, String name) {
        for (CudaRecord.Field f : r.fields()) if (f.name().equals(name)) return f.offset();
        throw new IllegalStateException(r.name() + " has no field " + name);
    }

    /**
     * cuLaunchKernelEx: the CUlaunchConfig record as the spec lays it out. Attributes: cooperative
     * launches and clusters larger than one CTA are CUDA_ERROR_NOT_SUPPORTED; a launch-completion or
     * programmatic event is recorded when the kernel has run; priority, access policy,
     * synchronisation policy, memory sync domains, carve-out and scheduling hints are accepted and
     * have no effect; an unknown attribute id is CUDA_ERROR_INVALID_VALUE.
     */
    @Override
    public int cuLaunchKernelEx(long config, long f, long kernelParams, long extra) {
        if (!initialized) return NOT_INITIALIZED;
        if (config == 0) return INVALID_VALUE;
        long attrs = field(launchConfig, config, "attrs");
        long numAttrs = field(launchConfig, config, "numAttrs");
        if (numAttrs > 0 && attrs == 0) return INVALID_VALUE;
        long valueOff = offset(launchAttribute, "value");
        List<Long> events = new ArrayList<>();
        for (long i = 0; i < numAttrs; i++) {
            long at = attrs + i * launchAttribute.size();
            int id = getInt(at);
            long v = at + valueOff;
            switch (id) {
                case 0, 1, 3, 5, 6, 8, 9, 10, 11, 13, 14, 16 -> {}
                case 2 -> {
                    if (getInt(v) != 0) return NOT_SUPPORTED; // cooperative launch
                }
                case 4 -> {
                    if (getInt(v) > 1 || getInt(v + 4) > 1 || getInt(v + 8) > 1) return NOT_SUPPORTED; // cluster dimension
                }
                case 7, 12 -> events.add(getLong(v)); // programmatic event, launch completion event
                default -> {
                    return INVALID_VALUE;
                }
            }
        }
        long stream = field(launchConfig, config, "hStream");
        int r = launch(f, field(launchConfig, config, "gridDimX"), field(launchConfig, config, "gridDimY"),
                field(launchConfig, config, "gridDimZ"), field(launchConfig, config, "blockDimX"), field(launchConfig, config, "blockDimY"),
                field(launchConfig, config, "blockDimZ"), field(launchConfig, config, "sharedMemBytes"), stream, kernelParams, extra);
        if (r == SUCCESS) for (long e : events) if (e != 0) cuEventRecord(e, stream);
        return r;
    }

    @Override
    public int cuLaunchKernelEx_ptsz(long config, long f, long kernelParams, long extra) {
        return cuLaunchKernelEx(config, f, kernelParams, extra);
    }

    // ---------------------------------------------------------------- occupancy

    /** CTAs of {@code blockSize} threads using {@code smem} bytes that fit on one multiprocessor. */
    private int occupancy(Function f, long blockSize, long smem) {
        Map<String, Integer> a = attributes.byName();
        if (blockSize <= 0 || blockSize > f.kernel.maxThreads()) return 0;
        long warps = (blockSize + 31) / 32;
        long byThreads = a.get("MAX_THREADS_PER_MULTIPROCESSOR") / (warps * 32);
        long shared = f.kernel.staticShared() + smem;
        long bySmem = shared == 0 ? Long.MAX_VALUE : a.get("MAX_SHARED_MEMORY_PER_MULTIPROCESSOR") / (shared + a.get("RESERVED_SHARED_MEMORY_PER_BLOCK"));
        return (int) Math.min(a.get("MAX_BLOCKS_PER_MULTIPROCESSOR"), Math.min(byThreads, bySmem));
    }

    @Override
    public int cuOccupancyMaxActiveBlocksPerMultiprocessor(long numBlocks, long func, int blockSize, long dynamicSMemSize) {
        return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize, 0);
    }

    @Override
    public int cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(long numBlocks, long func, int blockSize, long dynamicSMemSize, int flags) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (numBlocks == 0 || (flags & ~1) != 0) return INVALID_VALUE;
        Function f = function(func);
        if (f == null) return INVALID_HANDLE;
        putInt(numBlocks, occupancy(f, blockSize, dynamicSMemSize));
        return SUCCESS;
    }

    @Override
    public int cuOccupancyMaxPotentialBlockSize(long minGridSize, long blockSize, long func, long blockSizeToDynamicSMemSize,
                                                long dynamicSMemSize, int blockSizeLimit) {
        return cuOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize, blockSizeLimit, 0);
    }

    @Override
    public int cuOccupancyMaxPotentialBlockSizeWithFlags(long minGridSize, long blockSize, long func, long blockSizeToDynamicSMemSize,
                                                         long dynamicSMemSize, int blockSizeLimit, int flags) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (minGridSize == 0 || blockSize == 0 || (flags & ~1) != 0) return INVALID_VALUE;
        Function f = function(func);
        if (f == null) return INVALID_HANDLE;
        int limit = f.kernel.maxThreads();
        if (blockSizeLimit > 0) limit = Math.min(limit, blockSizeLimit);
        int bestBlock = 0, bestBlocks = 0;
        long bestThreads = -1;
        for (int b = (limit / 32) * 32; b >= 32 || (b > 0 && bestBlock == 0); b = b >= 64 ? b - 32 : (b == 32 ? Math.min(limit, 31) : 0)) {
            long smem = dynamicSMemSize;
            if (blockSizeToDynamicSMemSize != 0) {
                try {
                    smem = (long) CALL_B2DSIZE.invokeExact(MemorySegment.ofAddress(blockSizeToDynamicSMemSize), b);
                } catch (Throwable t) {
                    return UNKNOWN;
                }
            }
            int n = occupancy(f, b, smem);
            long threads = (long) n * b;
            if (threads > bestThreads) {
                bestThreads = threads;
                bestBlock = b;
                bestBlocks = n;
            }
            if (b < 32) break;
        }
        putInt(blockSize, bestBlock);
        putInt(minGridSize, bestBlocks * attributes.byName().get("MULTIPROCESSOR_COUNT"));
        return SUCCESS;
    }

    @Override
    public int cuOccupancyAvailableDynamicSMemPerBlock(long dynamicSmemSize, long func, int numBlocks, int blockSize) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        if (dynamicSmemSize == 0 || numBlocks <= 0 || blockSize <= 0) return INVALID_VALUE;
        Function f = function(func);
        if (f == null) return INVALID_HANDLE;
        Map<String, Integer> a = attributes.byName();
        long perBlock = a.get("MAX_SHARED_MEMORY_PER_MULTIPROCESSOR") / numBlocks - a.get("RESERVED_SHARED_MEMORY_PER_BLOCK") - f.kernel.staticShared();
        putLong(dynamicSmemSize, Math.max(0, Math.min(perBlock, f.maxDynamicShared)));
        return SUCCESS;
    }

    // ---------------------------------------------------------------- libraries

    /** The library's module in the current context, loaded on first use. */
    private Module libraryModule(Library lib) throws LoadFailure {
        Context c = current();
        if (c == null) return null;
        Module m = lib.modules.get(c);
        if (m != null && !m.unloaded) return m;
        synchronized (lib) {
            m = lib.modules.get(c);
            if (m != null && !m.unloaded) return m;
            m = compile(lib.ptx, lib.source, lib);
            lib.modules.put(c, m);
            return m;
        }
    }

    private int loadLibrary(long library, PtxSource src, long jitOptions, long jitValues, int numJit) {
        if (!initialized) return NOT_INITIALIZED;
        if (library == 0) return INVALID_VALUE;
        JitLog log = jitOptions(numJit, jitOptions, jitValues);
        if (log == null) return INVALID_VALUE;
        long t0 = System.nanoTime();
        try {
            String ptx = src.get();
            List<String> names = new ArrayList<>();
            var parsed = dev.zluda.ptx.Ptx.parse(ptx, src.name());
            if (!parsed.ok()) throw new LoadFailure(ERROR_INVALID_PTX, String.join("\n", parsed.diagnostics().stream().map(Object::toString).toList()));
            var model = dev.zluda.ptx.Semantics.analyze(parsed.module(), src.name());
            if (!model.ok()) throw new LoadFailure(ERROR_INVALID_PTX, String.join("\n", model.diagnostics().stream().map(Object::toString).toList()));
            for (var k : model.kernels()) if (k.defined()) names.add(k.name());
            long h = libraries.reserve();
            Library lib = new Library(h, ptx, src.name(), names);
            String info = "";
            if (current() != null) {
                Module m = libraryModule(lib); // a full load now reports unsupported instructions at once
                info = m.infoLog();
            }
            libraries.put(h, lib);
            finishLog(log, "", info, System.nanoTime() - t0);
            event(String.format(java.util.Locale.ROOT, "library compiled: %s, %d kernel(s) (%s), %.3f ms", src.name(), names.size(),
                    String.join(", ", names), (System.nanoTime() - t0) / 1e6));
            putLong(library, h);
            return SUCCESS;
        } catch (LoadFailure f) {
            finishLog(log, f.getMessage(), "", System.nanoTime() - t0);
            event("library compile failed with " + errorName(f.error) + ": " + f.getMessage());
            System.err.println("[ZLUDA] cuLibraryLoad failed with " + errorName(f.error) + ":");
            for (String line : f.getMessage().split("\n")) System.err.println("[ZLUDA]   " + line);
            untracedHint(f.getMessage());
            return f.error;
        }
    }

    @Override
    public int cuLibraryLoadData(long library, long code, long jitOptions, long jitOptionsValues, int numJitOptions, long libraryOptions,
                                 long libraryOptionValues, int numLibraryOptions) {
        if (code == 0) return initialized ? INVALID_VALUE : NOT_INITIALIZED;
        return loadLibrary(library, fromImage(code), jitOptions, jitOptionsValues, numJitOptions);
    }

    @Override
    public int cuLibraryLoadFromFile(long library, long fileName, long jitOptions, long jitOptionsValues, int numJitOptions,
                                     long libraryOptions, long libraryOptionValues, int numLibraryOptions) {
        if (fileName == 0) return initialized ? INVALID_VALUE : NOT_INITIALIZED;
        return loadLibrary(library, fromFile(fileName), jitOptions, jitOptionsValues, numJitOptions);
    }

    @Override
    public int cuLibraryUnload(long library) {
        if (!initialized) return NOT_INITIALIZED;
        Library lib = libraries.remove(library);
        if (lib == null) return INVALID_HANDLE;
        for (Module m : List.copyOf(lib.modules.values())) unload(m);
        for (LibKernel k : lib.kernels.values()) libKernels.remove(k.handle);
        return SUCCESS;
    }

    @Override
    public int cuLibraryGetKernel(long pKernel, long library, long name) {
        if (!initialized) return NOT_INITIALIZED;
        if (pKernel == 0 || name == 0) return INVALID_VALUE;
        Library lib = libraries.get(library);
        if (lib == null) return INVALID_HANDLE;
        String n = at(name, 65536).getString(0, StandardCharsets.UTF_8);
        if (!lib.kernelNames.contains(n)) return NOT_FOUND;
        LibKernel k = lib.kernels.computeIfAbsent(n, x -> {
            long h = libKernels.reserve();
            LibKernel lk = new LibKernel(h, lib, x);
            libKernels.put(h, lk);
            return lk;
        });
        putLong(pKernel, k.handle);
        return SUCCESS;
    }

    @Override
    public int cuLibraryGetKernelCount(long count, long lib) {
        if (!initialized) return NOT_INITIALIZED;
        if (count == 0) return INVALID_VALUE;
        Library l = libraries.get(lib);
        if (l == null) return INVALID_HANDLE;
        putInt(count, l.kernelNames.size());
        return SUCCESS;
    }

    @Override
    public int cuLibraryEnumerateKernels(long kernels, int numKernels, long lib) {
        if (!initialized) return NOT_INITIALIZED;
        if (kernels == 0) return INVALID_VALUE;
        Library l = libraries.get(lib);
        if (l == null) return INVALID_HANDLE;
        MemorySegment tmp = Arena.ofAuto().allocate(8);
        for (int i = 0; i < l.kernelNames.size() && i < Integer.toUnsignedLong(numKernels); i++) {
            MemorySegment n = Arena.ofAuto().allocateFrom(l.kernelNames.get(i));
            int r = cuLibraryGetKernel(tmp.address(), lib, n.address());
            if (r != SUCCESS) return r;
            putLong(kernels + 8L * i, tmp.get(ValueLayout.JAVA_LONG, 0));
        }
        return SUCCESS;
    }

    private int withLibraryModule(long library, java.util.function.ToIntFunction<Module> action) {
        int r = checkContext();
        if (r != SUCCESS) return r;
        Library lib = libraries.get(library);
        if (lib == null) return INVALID_HANDLE;
        try {
            return action.applyAsInt(libraryModule(lib));
        } catch (LoadFailure f) {
            System.err.println("[ZLUDA] loading library " + lib.source + " into the context failed: " + f.getMessage());
            return f.error;
        }
    }

    @Override
    public int cuLibraryGetModule(long pMod, long library) {
        if (pMod == 0) return initialized ? INVALID_VALUE : NOT_INITIALIZED;
        return withLibraryModule(library, m -> {
            putLong(pMod, m.handle);
            return SUCCESS;
        });
    }

    @Override
    public int cuLibraryGetGlobal(long dptr, long bytes, long library, long name) {
        if (name == 0) return initialized ? INVALID_VALUE : NOT_INITIALIZED;
        return withLibraryModule(library, m -> cuModuleGetGlobal_v2(dptr, bytes, m.handle, name));
    }

    @Override
    public int cuKernelGetFunction(long pFunc, long kernel) {
        if (pFunc == 0) return initialized ? INVALID_VALUE : NOT_INITIALIZED;
        LibKernel k = libKernels.get(kernel);
        if (k == null) return initialized ? INVALID_HANDLE : NOT_INITIALIZED;
        return withLibraryModule(k.library.handle, m -> {
            Function f = m.functions.get(k.name);
            if (f == null) return NOT_FOUND;
            putLong(pFunc, f.handle);
            return SUCCESS;
        });
    }

    @Override
    public int cuKernelGetLibrary(long pLib, long kernel) {
        if (!initialized) return NOT_INITIALIZED;
        if (pLib == 0) return INVALID_VALUE;
        LibKernel k = libKernels.get(kernel);
        if (k == null) return INVALID_HANDLE;
        putLong(pLib, k.library.handle);
        return SUCCESS;
    }

    @Override
    public int cuKernelGetName(long name, long hfunc) {
        if (!initialized) return NOT_INITIALIZED;
        if (name == 0) return INVALID_VALUE;
        LibKernel k = libKernels.get(hfunc);
        if (k == null) return INVALID_HANDLE;
        putLong(name, k.cName.address());
        return SUCCESS;
    }

    @Override
    public int cuKernelGetParamInfo(long kernel, long paramIndex, long paramOffset, long paramSize) {
        if (libKernels.get(kernel) == null) return initialized ? INVALID_HANDLE : NOT_INITIALIZED;
        return cuFuncGetParamInfo(kernel, paramIndex, paramOffset, paramSize);
    }

    @Override
    public int cuKernelGetAttribute(long pi, int attrib, long kernel, int dev) {
        int r = checkDevice(dev);
        if (r != SUCCESS) return r;
        if (libKernels.get(kernel) == null) return INVALID_HANDLE;
        return cuFuncGetAttribute(pi, attrib, kernel);
    }

    @Override
    public int cuKernelSetAttribute(int attrib, int val, long kernel, int dev) {
        int r = checkDevice(dev);
        if (r != SUCCESS) return r;
        if (libKernels.get(kernel) == null) return INVALID_HANDLE;
        return cuFuncSetAttribute(kernel, attrib, val);
    }

    @Override
    public int cuKernelSetCacheConfig(long kernel, int config, int dev) {
        int r = checkDevice(dev);
        if (r != SUCCESS) return r;
        if (libKernels.get(kernel) == null) return INVALID_HANDLE;
        return cuFuncSetCacheConfig(kernel, config);
    }
}
