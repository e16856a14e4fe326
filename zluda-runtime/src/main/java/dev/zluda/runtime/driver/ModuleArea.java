package dev.zluda.runtime.driver;

import dev.zluda.runtime.backend.Backend;
import dev.zluda.runtime.backend.BackendException;
import dev.zluda.runtime.backend.HostMemory;
import dev.zluda.runtime.emulator.Kernel;
import dev.zluda.image.ModuleImage;
import dev.zluda.image.ModuleImageException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static dev.zluda.runtime.driver.CuResult.*;
import static dev.zluda.runtime.driver.Native.at;
import static dev.zluda.runtime.driver.Native.getInt;
import static dev.zluda.runtime.driver.Native.getLong;
import static dev.zluda.runtime.driver.Native.putInt;
import static dev.zluda.runtime.driver.Native.putLong;

/**
 * Modules (CUDA Driver API group CUDA_MODULE): loading PTX and module images, unloading, and a module's kernels and
 * variables by name.
 *
 * <p>Loading: the image (PTX text, a fatbin, an ELF carrying fatbins; a fatbin wrapper too, except through
 * cuModuleLoadData and cuModuleLoadDataEx, which refuse it as NVIDIA's do) is read by {@link ModuleImage}, which probes
 * the program's memory before each read and picks the PTX for the device; the PTX is parsed, checked and compiled by the backend
 * at load ({@link Backend#load}: translated for the emulator, or lowered to an AMD code object and loaded with
 * {@code hipModuleLoadData} on the hip backend). Invalid PTX is CUDA_ERROR_INVALID_PTX (218), PTX the backend
 * cannot execute CUDA_ERROR_NOT_SUPPORTED (801), a malformed image CUDA_ERROR_INVALID_IMAGE (200), an image without
 * usable PTX CUDA_ERROR_NO_BINARY_FOR_GPU (209); the reasons go to the JIT error log and to stderr as
 * {@code file:line:col: error: ...} lines, naming the PTX as the trace layer dumps it ({@code module_NNNN_NN.ptx}).
 * Module {@code .global}/{@code .const} variables are device allocations of the module's context, initialised at
 * load.
 */
final class ModuleArea {
    /** CUresult values of module loading (cuda.h). */
    static final int ERROR_INVALID_IMAGE = 200, ERROR_NO_BINARY_FOR_GPU = 209, ERROR_INVALID_PTX = 218,
            ERROR_FILE_NOT_FOUND = 301;
    /** Dynamic shared memory a function may use without opting in (48 KiB, every GPU since Kepler). */
    static final int DEFAULT_SHARED_LIMIT = 48 << 10;

    /** A loaded module: in one context, its variables allocated there. */
    static final class Module {
        final long handle;
        final Context context;
        /** What the backend made of it. */
        final Backend.LoadedModule code;
        final Map<String, Function> functions = new LinkedHashMap<>();
        final List<Allocation> variables = new ArrayList<>();
        final LibraryArea.Library library;
        /** The PTX text compiled, for kernel snapshots. */
        final String ptx;
        volatile boolean unloaded;

        Module(long handle, Context context, Backend.LoadedModule code, LibraryArea.Library library, String ptx) {
            this.handle = handle;
            this.context = context;
            this.code = code;
            this.library = library;
            this.ptx = ptx;
        }

        String infoLog() {
            return code.infoLog();
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
        /** CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH/HEIGHT/DEPTH set at run time (all 0: none). */
        final int[] requiredCluster = new int[3];
        /** CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, CLUSTER_SCHEDULING_POLICY_PREFERENCE. */
        volatile boolean nonPortableClusterSize;
        volatile int clusterSchedulingPolicy;
        /** The kernel as the backend loaded it. */
        final Backend.LoadedKernel loaded;

        Function(long handle, Module module, Backend.LoadedKernel loaded) {
            this.handle = handle;
            this.module = module;
            this.kernel = loaded.kernel();
            this.loaded = loaded;
            this.cName = Arena.ofAuto().allocateFrom(kernel.name());
            this.maxDynamicShared = (int) Math.max(0, DEFAULT_SHARED_LIMIT - kernel.staticShared());
        }
    }

    private final DriverState state;
    private final MemoryArea memory;
    final Handles<Module> modules = new Handles<>(4);
    final Handles<Function> functions = new Handles<>(5);
    /**
     * Counts module loads from 1 as the trace layer numbers its dump files ({@code module_NNNN_NN.ptx},
     * trace-format/FORMAT.md §6.4): every load call with a non-NULL image or file name, successful
     * or not, so that an error message names the file a capture holds.
     */
    private final AtomicInteger moduleNumbers = new AtomicInteger();
    /** The name the next {@link #fromImage} on this thread gives its PTX (set by the export-table loads), else null. */
    final ThreadLocal<String> nextImageName = new ThreadLocal<>();
    private final AtomicLong variableBufferIds = new AtomicLong(1L << 40);

    ModuleArea(DriverState state, MemoryArea memory) {
        this.state = state;
        this.memory = memory;
    }

    /** Unloads the modules of a context being destroyed or reset. */
    void release(Context c) {
        for (Module m : modules.values()) if (m.context == c) unload(m);
    }

    /** The PTX of a module image at an address (PTX text, fatbin, wrapper, ELF with fatbins). */
    private String ptxOf(byte[] image) throws LoadFailure {
        try {
            ModuleImage img = ModuleImage.of(image);
            return img.ptxToRun(state.attributes.major(), state.attributes.minor()).ptx();
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

    /** Compiles PTX into a module of the current context, through the backend. */
    Module compile(String ptx, String source, LibraryArea.Library library) throws LoadFailure {
        Context ctx = state.current();
        List<Allocation> vars = new ArrayList<>();
        Backend.VariableAllocator alloc = new Backend.VariableAllocator() {
            @Override
            public long allocate(String name, long size, long align) {
                long alignment = Math.max(256, align);
                if (Long.bitCount(alignment) != 1) alignment = Long.highestOneBit(alignment) << 1;
                HostMemory.Block block = HostMemory.allocateZeroed(size, alignment);
                if (block == null) throw new OutOfMemoryError("module variable " + name + ": " + size + " bytes");
                long address = block.address;
                Allocation a = new Allocation(Allocation.Kind.DEVICE, address, size, ctx, 0, variableBufferIds.incrementAndGet(), null, block::free);
                memory.allocations().put(address, a);
                vars.add(a);
                return address;
            }

            @Override
            public void free(long address) {
                Allocation a = memory.allocations().remove(address);
                if (a != null) a.free();
                vars.removeIf(v -> v.address == address);
            }
        };
        Backend.LoadedModule code;
        try {
            code = state.backend().load(ptx, source, alloc);
        } catch (BackendException e) {
            throw new LoadFailure(e.cuResult, e.getMessage());
        }
        long h = modules.reserve();
        Module m = new Module(h, ctx, code, library, ptx);
        m.variables.addAll(vars);
        for (Backend.LoadedKernel k : code.kernels()) {
            long fh = functions.reserve();
            Function f = new Function(fh, m, k);
            m.functions.put(k.kernel().name(), f);
            functions.put(fh, f);
        }
        modules.put(h, m);
        return m;
    }

    void unload(Module m) {
        if (m.unloaded) return;
        m.unloaded = true;
        m.code.unload();
        modules.remove(m.handle);
        for (Function f : m.functions.values()) functions.remove(f.handle);
        for (Allocation a : m.variables) {
            if (memory.allocations().remove(a.address, a)) a.free();
        }
        if (m.library != null) m.library.modules.remove(m.context, m);
    }

    private int loadModule(long pModule, String via, JitLog log, PtxSource src) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        long t0 = System.nanoTime();
        try {
            String ptx = src.get();
            String source = src.name();
            Module m = compile(ptx, source, null);
            JitLog.finish(log, "", m.infoLog(), System.nanoTime() - t0);
            putLong(pModule, m.handle);
            state.event(String.format(java.util.Locale.ROOT, "module compiled: %s, %d kernel(s) (%s), %.3f ms", source, m.functions.size(),
                    String.join(", ", m.functions.keySet()), (System.nanoTime() - t0) / 1e6));
            return SUCCESS;
        } catch (LoadFailure f) {
            JitLog.finish(log, f.getMessage(), "", System.nanoTime() - t0);
            state.event("module compile failed with " + CuResult.name(f.error) + ": " + f.getMessage());
            System.err.println("[ZLUDA] " + via + " failed with " + CuResult.name(f.error) + ":");
            for (String line : f.getMessage().split("\n")) System.err.println("[ZLUDA]   " + line);
            untracedHint(f.getMessage());
            return f.error;
        }
    }

    /**
     * After a load error that names {@code module_NNNN_NN.ptx}: without a capture (no {@code ZLUDA_LOG_DIR},
     * which {@code zluda run --zluda-trace} sets) no such file is written, so say how to get it.
     */
    static void untracedHint(String message) {
        String logDir = System.getenv("ZLUDA_LOG_DIR");
        if ((logDir == null || logDir.isBlank()) && message != null && message.contains("module_")) {
            System.err.println("[ZLUDA]   (nothing is recorded in this run, so that file is not written: zluda run --zluda-trace keeps it in the capture)");
        }
    }

    /** Where PTX comes from, for the loader. */
    interface PtxSource {
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

    PtxSource fromImage(long image) {
        return fromImage(image, true);
    }

    /**
     * The PTX of an image the program passes by address. {@code wrapperAllowed} false: a fatbin wrapper (what the CUDA
     * runtime registers, {@link ModuleImage.Format#FATBIN_WRAPPER}) is CUDA_ERROR_INVALID_IMAGE, as NVIDIA's
     * cuModuleLoadData and cuModuleLoadDataEx answer (recorded on the H200: samples/traces/h200/misuse, image_wrapper_ok).
     */
    PtxSource fromImage(long image, boolean wrapperAllowed) {
        String given = nextImageName.get();
        nextImageName.remove();
        int number = given == null ? moduleNumbers.incrementAndGet() : 0;
        return new PtxSource() {
            private String name = given != null ? given : moduleFileName(number, 1);

            @Override
            public String get() throws LoadFailure {
                try {
                    ModuleImage img = ModuleImage.fromAddress(image);
                    if (!wrapperAllowed && img.format() == ModuleImage.Format.FATBIN_WRAPPER) {
                        throw new LoadFailure(ERROR_INVALID_IMAGE, "image @0x" + Long.toHexString(image)
                                + " is a fatbin wrapper (magic 0x466243b1): cuModuleLoadData takes the fatbin it points to, PTX text or an ELF");
                    }
                    ModuleImage.Entry best = img.ptxToRun(state.attributes.major(), state.attributes.minor());
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

    PtxSource fromFile(long fname) {
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

    public int cuModuleLoadData(long module, long image) {
        if (module == 0 || image == 0) return state.initialized ? INVALID_VALUE : NOT_INITIALIZED;
        return loadModule(module, "cuModuleLoadData", null, fromImage(image, false));
    }

    public int cuModuleLoadDataEx(long module, long image, int numOptions, long options, long optionValues) {
        if (module == 0 || image == 0) return state.initialized ? INVALID_VALUE : NOT_INITIALIZED;
        PtxSource src = fromImage(image, false); // numbered before the options are checked, as the trace layer counts the call
        JitLog log = JitLog.parse(numOptions, options, optionValues);
        if (log == null) return INVALID_VALUE;
        return loadModule(module, "cuModuleLoadDataEx", log, src);
    }

    public int cuModuleLoadFatBinary(long module, long fatCubin) {
        if (module == 0 || fatCubin == 0) return state.initialized ? INVALID_VALUE : NOT_INITIALIZED;
        return loadModule(module, "cuModuleLoadFatBinary", null, fromImage(fatCubin));
    }

    public int cuModuleLoad(long module, long fname) {
        if (module == 0 || fname == 0) return state.initialized ? INVALID_VALUE : NOT_INITIALIZED;
        return loadModule(module, "cuModuleLoad", null, fromFile(fname));
    }

    public int cuModuleUnload(long hmod) {
        if (!state.initialized) return NOT_INITIALIZED;
        Module m = modules.get(hmod);
        if (m == null || m.library != null) return INVALID_HANDLE;
        int sticky = m.context.stickyError(); // measured on the H200: CUDA_ERROR_ILLEGAL_ADDRESS after a fault
        if (sticky != SUCCESS) return sticky;
        unload(m);
        return SUCCESS;
    }

    private Module module(long hmod) {
        Module m = modules.get(hmod);
        return m == null || m.unloaded || m.context.destroyed ? null : m;
    }

    public int cuModuleGetFunction(long hfunc, long hmod, long name) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (hfunc == 0 || name == 0) return INVALID_VALUE;
        Module m = module(hmod);
        if (m == null) return INVALID_HANDLE;
        Function f = m.functions.get(at(name, 65536).getString(0, StandardCharsets.UTF_8));
        if (f == null) return NOT_FOUND;
        putLong(hfunc, f.handle);
        return SUCCESS;
    }

    public int cuModuleGetFunctionCount(long count, long mod) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (count == 0) return INVALID_VALUE;
        Module m = module(mod);
        if (m == null) return INVALID_HANDLE;
        putInt(count, m.functions.size());
        return SUCCESS;
    }

    public int cuModuleEnumerateFunctions(long functionsOut, int numFunctions, long mod) {
        int r = state.checkContext();
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

    public int cuModuleGetGlobal_v2(long dptr, long bytes, long hmod, long name) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (name == 0) return INVALID_VALUE;
        Module m = module(hmod);
        if (m == null) return INVALID_HANDLE;
        long[] g;
        try {
            g = m.code.global(at(name, 65536).getString(0, StandardCharsets.UTF_8));
        } catch (BackendException e) {
            return e.cuResult;
        }
        if (dptr != 0) putLong(dptr, g[0]);
        if (bytes != 0) putLong(bytes, g[1]);
        return SUCCESS;
    }

}
