package dev.zluda.runtime.driver;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static dev.zluda.runtime.driver.CuResult.*;
import static dev.zluda.runtime.driver.Native.at;
import static dev.zluda.runtime.driver.Native.getInt;
import static dev.zluda.runtime.driver.Native.getLong;
import static dev.zluda.runtime.driver.Native.putInt;
import static dev.zluda.runtime.driver.Native.putLong;

/**
 * Libraries (CUDA Driver API group CUDA_LIBRARY): context-independent modules and their kernels (CUkernel). A
 * library keeps its PTX and is loaded as a module ({@link ModuleArea#compile}) in each context that uses it, on
 * first use; at load it is compiled once in the current context, so that an unsupported instruction is reported at
 * once.
 */
final class LibraryArea {
    /** A context-independent library (CUlibrary): its PTX, loaded as a module in each context that uses it. */
    static final class Library {
        final long handle;
        final String ptx;
        final String source;
        final List<String> kernelNames;
        final Map<Context, ModuleArea.Module> modules = new ConcurrentHashMap<>();
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

    private final DriverState state;
    private final ModuleArea modules;
    final Handles<Library> libraries = new Handles<>(6);
    final Handles<LibKernel> libKernels = new Handles<>(7);

    LibraryArea(DriverState state, ModuleArea modules) {
        this.state = state;
        this.modules = modules;
    }

    // ---------------------------------------------------------------- libraries

    /** The library's module in the current context, loaded on first use. */
    ModuleArea.Module libraryModule(Library lib) throws LoadFailure {
        Context c = state.current();
        if (c == null) return null;
        ModuleArea.Module m = lib.modules.get(c);
        if (m != null && !m.unloaded) return m;
        synchronized (lib) {
            m = lib.modules.get(c);
            if (m != null && !m.unloaded) return m;
            m = modules.compile(lib.ptx, lib.source, lib);
            lib.modules.put(c, m);
            return m;
        }
    }

    private int loadLibrary(long library, String via, ModuleArea.PtxSource src, long jitOptions, long jitValues, int numJit) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (library == 0) return INVALID_VALUE;
        JitLog log = JitLog.parse(numJit, jitOptions, jitValues);
        if (log == null) return INVALID_VALUE;
        long t0 = System.nanoTime();
        try {
            String ptx = src.get();
            List<String> names = new ArrayList<>();
            var parsed = dev.zluda.ptx.Ptx.parse(ptx, src.name());
            if (!parsed.ok()) throw new LoadFailure(ModuleArea.ERROR_INVALID_PTX, String.join("\n", parsed.diagnostics().stream().map(Object::toString).toList()));
            var model = dev.zluda.ptx.Semantics.analyze(parsed.module(), src.name());
            if (!model.ok()) throw new LoadFailure(ModuleArea.ERROR_INVALID_PTX, String.join("\n", model.diagnostics().stream().map(Object::toString).toList()));
            for (var k : model.kernels()) if (k.defined()) names.add(k.name());
            long h = libraries.reserve();
            Library lib = new Library(h, ptx, src.name(), names);
            String info = "";
            if (state.current() != null) {
                ModuleArea.Module m = libraryModule(lib); // a full load now reports unsupported instructions at once
                info = m.infoLog();
            }
            libraries.put(h, lib);
            JitLog.finish(log, "", info, System.nanoTime() - t0);
            state.event(String.format(java.util.Locale.ROOT, "library compiled: %s, %d kernel(s) (%s), %.3f ms", src.name(), names.size(),
                    String.join(", ", names), (System.nanoTime() - t0) / 1e6));
            putLong(library, h);
            return SUCCESS;
        } catch (LoadFailure f) {
            JitLog.finish(log, f.getMessage(), "", System.nanoTime() - t0);
            state.event("library compile failed with " + CuResult.name(f.error) + ": " + f.getMessage());
            System.err.println("[ZLUDA] " + via + " failed with " + CuResult.name(f.error) + ":");
            for (String line : f.getMessage().split("\n")) System.err.println("[ZLUDA]   " + line);
            ModuleArea.untracedHint(f.getMessage());
            return f.error;
        }
    }

    public int cuLibraryLoadData(long library, long code, long jitOptions, long jitOptionsValues, int numJitOptions, long libraryOptions,
                                 long libraryOptionValues, int numLibraryOptions) {
        if (code == 0) return state.initialized ? INVALID_VALUE : NOT_INITIALIZED;
        return loadLibrary(library, "cuLibraryLoadData", modules.fromImage(code), jitOptions, jitOptionsValues, numJitOptions);
    }

    public int cuLibraryLoadFromFile(long library, long fileName, long jitOptions, long jitOptionsValues, int numJitOptions,
                                     long libraryOptions, long libraryOptionValues, int numLibraryOptions) {
        if (fileName == 0) return state.initialized ? INVALID_VALUE : NOT_INITIALIZED;
        return loadLibrary(library, "cuLibraryLoadFromFile", modules.fromFile(fileName), jitOptions, jitOptionsValues, numJitOptions);
    }

    public int cuLibraryUnload(long library) {
        if (!state.initialized) return NOT_INITIALIZED;
        Library lib = libraries.remove(library);
        if (lib == null) return INVALID_HANDLE;
        for (ModuleArea.Module m : List.copyOf(lib.modules.values())) modules.unload(m);
        for (LibKernel k : lib.kernels.values()) libKernels.remove(k.handle);
        return SUCCESS;
    }

    public int cuLibraryGetKernel(long pKernel, long library, long name) {
        if (!state.initialized) return NOT_INITIALIZED;
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

    public int cuLibraryGetKernelCount(long count, long lib) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (count == 0) return INVALID_VALUE;
        Library l = libraries.get(lib);
        if (l == null) return INVALID_HANDLE;
        putInt(count, l.kernelNames.size());
        return SUCCESS;
    }

    public int cuLibraryEnumerateKernels(long kernels, int numKernels, long lib) {
        if (!state.initialized) return NOT_INITIALIZED;
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

    private int withLibraryModule(long library, java.util.function.ToIntFunction<ModuleArea.Module> action) {
        int r = state.checkContext();
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

    public int cuLibraryGetModule(long pMod, long library) {
        if (pMod == 0) return state.initialized ? INVALID_VALUE : NOT_INITIALIZED;
        return withLibraryModule(library, m -> {
            putLong(pMod, m.handle);
            return SUCCESS;
        });
    }

    public int cuLibraryGetGlobal(long dptr, long bytes, long library, long name) {
        if (name == 0) return state.initialized ? INVALID_VALUE : NOT_INITIALIZED;
        return withLibraryModule(library, m -> modules.cuModuleGetGlobal_v2(dptr, bytes, m.handle, name));
    }

    public int cuKernelGetFunction(long pFunc, long kernel) {
        if (pFunc == 0) return state.initialized ? INVALID_VALUE : NOT_INITIALIZED;
        LibKernel k = libKernels.get(kernel);
        if (k == null) return state.initialized ? INVALID_HANDLE : NOT_INITIALIZED;
        return withLibraryModule(k.library.handle, m -> {
            ModuleArea.Function f = m.functions.get(k.name);
            if (f == null) return NOT_FOUND;
            putLong(pFunc, f.handle);
            return SUCCESS;
        });
    }

    public int cuKernelGetLibrary(long pLib, long kernel) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (pLib == 0) return INVALID_VALUE;
        LibKernel k = libKernels.get(kernel);
        if (k == null) return INVALID_HANDLE;
        putLong(pLib, k.library.handle);
        return SUCCESS;
    }

    public int cuKernelGetName(long name, long hfunc) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (name == 0) return INVALID_VALUE;
        LibKernel k = libKernels.get(hfunc);
        if (k == null) return INVALID_HANDLE;
        putLong(name, k.cName.address());
        return SUCCESS;
    }
}
