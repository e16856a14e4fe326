package dev.zluda.replay;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@code libcuda.so} loaded into this process and called through the JDK's foreign-function API
 * ({@code java.lang.foreign}, x86-64 System V: pointers pass as 64-bit integers). {@code nvidia}
 * loads {@code libcuda.so.1} by the dynamic loader's search, as a CUDA program would, and refuses
 * zluda's own library; a path loads that file.
 */
public final class NativeDriver implements Driver {
    private static final ValueLayout.OfInt I = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong J = ValueLayout.JAVA_LONG;

    private final String kind;
    private final String describe;
    private final Map<String, MethodHandle> handles = new HashMap<>();
    private final SymbolLookup lib;

    private NativeDriver(SymbolLookup lib, String kind, String describe) {
        this.kind = kind;
        this.describe = describe;
        this.lib = lib;
        Linker l = Linker.nativeLinker();
        Map<String, FunctionDescriptor> sigs = new HashMap<>();
        sigs.put("cuInit", FunctionDescriptor.of(I, I));
        sigs.put("cuDriverGetVersion", FunctionDescriptor.of(I, J));
        sigs.put("cuDeviceGet", FunctionDescriptor.of(I, J, I));
        sigs.put("cuDeviceGetName", FunctionDescriptor.of(I, J, I, I));
        sigs.put("cuDevicePrimaryCtxRetain", FunctionDescriptor.of(I, J, I));
        sigs.put("cuDevicePrimaryCtxRelease_v2", FunctionDescriptor.of(I, I));
        sigs.put("cuCtxSetCurrent", FunctionDescriptor.of(I, J));
        sigs.put("cuCtxSynchronize", FunctionDescriptor.of(I));
        sigs.put("cuModuleLoadDataEx", FunctionDescriptor.of(I, J, J, I, J, J));
        sigs.put("cuModuleGetFunction", FunctionDescriptor.of(I, J, J, J));
        sigs.put("cuModuleUnload", FunctionDescriptor.of(I, J));
        sigs.put("cuMemAlloc_v2", FunctionDescriptor.of(I, J, J));
        sigs.put("cuMemFree_v2", FunctionDescriptor.of(I, J));
        sigs.put("cuMemcpyHtoD_v2", FunctionDescriptor.of(I, J, J, J));
        sigs.put("cuMemcpyDtoH_v2", FunctionDescriptor.of(I, J, J, J));
        sigs.put("cuLaunchKernel", FunctionDescriptor.of(I, J, I, I, I, I, I, I, I, J, J, J));
        sigs.put("cuGetErrorName", FunctionDescriptor.of(I, I, J));
        for (var e : sigs.entrySet()) {
            MemorySegment sym = lib.find(e.getKey())
                    .orElseThrow(() -> new IllegalStateException(describe + " does not export " + e.getKey()));
            handles.put(e.getKey(), l.downcallHandle(sym, e.getValue()));
        }
    }

    /**
     * Loads a driver.
     *
     * @param which {@code nvidia} (the loader's {@code libcuda.so.1}) or a path to a {@code libcuda.so}
     * @param zludaHome zluda's installation ({@code dist/}), whose own library {@code nvidia} must not
     *     pick up; may be null
     * @throws IllegalStateException with the reason when it cannot be loaded or lacks a function
     */
    public static NativeDriver load(String which, Path zludaHome) {
        boolean nvidia = which.equals("nvidia");
        Arena a = Arena.global(); // a driver stays loaded for the life of the process, as with a CUDA program
        SymbolLookup lib;
        try {
            if (nvidia) {
                lib = SymbolLookup.libraryLookup("libcuda.so.1", a);
            } else {
                Path p = Path.of(which).toAbsolutePath();
                if (!Files.isRegularFile(p)) throw new IllegalStateException(which + ": no such file");
                lib = SymbolLookup.libraryLookup(p, a);
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(nvidia
                    ? "cannot load NVIDIA's libcuda.so.1 (is there an NVIDIA driver on this machine? Without one, replay with --on zluda,"
                            + " and give --locate another reference with --against zluda --against-ptx FILE): " + e.getMessage()
                    : "cannot load " + which + ": " + e.getMessage());
        }
        if (lib.find("zluda_export_tables").isPresent()) {
            throw new IllegalStateException(which + " is zluda's own driver, which boots a JVM of its own: replay on it with --on zluda "
                    + "(the same driver, run in this process)");
        }
        String path = mappedPath(nvidia ? "libcuda.so" : Path.of(which).getFileName().toString());
        if (nvidia && path != null && zludaHome != null && path.startsWith(zludaHome.toAbsolutePath().normalize().toString())) {
            throw new IllegalStateException("the loader found zluda's own " + path + " as libcuda.so.1 (LD_LIBRARY_PATH?): "
                    + "--on nvidia needs NVIDIA's driver; use --on zluda for zluda's");
        }
        return new NativeDriver(lib, nvidia ? "nvidia" : "library", (nvidia ? "NVIDIA's driver " : "") + (path != null ? path : which));
    }

    /** The file of the first mapping in /proc/self/maps whose name starts with {@code prefix}, or null. */
    private static String mappedPath(String prefix) {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/self/maps"));
            for (String l : lines) {
                int slash = l.indexOf('/');
                if (slash < 0) continue;
                String p = l.substring(slash).trim();
                if (Path.of(p).getFileName().toString().startsWith(prefix)) return Path.of(p).toRealPath().toString();
            }
        } catch (IOException | RuntimeException e) {
            // unknown
        }
        return null;
    }

    private int call(String name, Object... args) {
        try {
            return (int) handles.get(name).invokeWithArguments(args);
        } catch (Throwable t) {
            throw new IllegalStateException(name + " failed in " + describe + ": " + t, t);
        }
    }

    @Override
    public int call(dev.zluda.spec.CudaFunction f, long[] args) {
        MethodHandle h = handles.computeIfAbsent("#" + f.name(), k -> generic(f));
        Object[] a = new Object[args.length];
        for (dev.zluda.spec.CudaParam p : f.params()) {
            long v = args[p.index()];
            a[p.index()] = switch (layout(p)) {
                case ValueLayout.OfInt x -> (int) v;
                case ValueLayout.OfByte x -> (byte) v;
                case ValueLayout.OfShort x -> (short) v;
                case ValueLayout.OfFloat x -> Float.intBitsToFloat((int) v);
                case ValueLayout.OfDouble x -> Double.longBitsToDouble(v);
                default -> v;
            };
        }
        try {
            return (int) h.invokeWithArguments(a);
        } catch (Throwable t) {
            throw new IllegalStateException(f.name() + " failed in " + describe + ": " + t, t);
        }
    }

    private MethodHandle generic(dev.zluda.spec.CudaFunction f) {
        MemorySegment sym = lib.find(f.name()).orElseThrow(() -> new IllegalStateException(describe + " does not export " + f.name()));
        java.lang.foreign.MemoryLayout[] ps = new java.lang.foreign.MemoryLayout[f.params().size()];
        for (dev.zluda.spec.CudaParam p : f.params()) {
            if (p.format() == dev.zluda.spec.FormatKind.RECORD) throw new IllegalStateException(f.name() + " takes a struct by value (" + p.cType() + "): not replayed");
            ps[p.index()] = layout(p);
        }
        return Linker.nativeLinker().downcallHandle(sym, FunctionDescriptor.of(I, ps));
    }

    /** The C ABI class of a parameter: 32-bit integers and enums, float, double, else 64 bits. */
    private static ValueLayout layout(dev.zluda.spec.CudaParam p) {
        String c = dev.zluda.spec.CudaApi.get().canonicalType(p.cType());
        return switch (c) {
            case "enum", "int", "signed int", "unsigned int", "uint32_t", "cuuint32_t", "int32_t", "CUdevice" -> I;
            case "float" -> ValueLayout.JAVA_FLOAT;
            case "char", "signed char", "unsigned char" -> ValueLayout.JAVA_BYTE;
            case "short", "unsigned short" -> ValueLayout.JAVA_SHORT;
            case "double" -> ValueLayout.JAVA_DOUBLE;
            default -> J;
        };
    }

    @Override public String describe() { return describe; }
    @Override public String kind() { return kind; }
    @Override public int cuInit(int flags) { return call("cuInit", flags); }
    @Override public int cuDriverGetVersion(long p) { return call("cuDriverGetVersion", p); }
    @Override public int cuDeviceGet(long p, int ordinal) { return call("cuDeviceGet", p, ordinal); }
    @Override public int cuDeviceGetName(long name, int len, int dev) { return call("cuDeviceGetName", name, len, dev); }
    @Override public int cuDevicePrimaryCtxRetain(long p, int dev) { return call("cuDevicePrimaryCtxRetain", p, dev); }
    @Override public int cuDevicePrimaryCtxRelease_v2(int dev) { return call("cuDevicePrimaryCtxRelease_v2", dev); }
    @Override public int cuCtxSetCurrent(long ctx) { return call("cuCtxSetCurrent", ctx); }
    @Override public int cuCtxSynchronize() { return call("cuCtxSynchronize"); }
    @Override public int cuModuleLoadDataEx(long p, long image, int n, long o, long v) { return call("cuModuleLoadDataEx", p, image, n, o, v); }
    @Override public int cuModuleGetFunction(long p, long m, long name) { return call("cuModuleGetFunction", p, m, name); }
    @Override public int cuModuleUnload(long m) { return call("cuModuleUnload", m); }
    @Override public int cuMemAlloc_v2(long p, long bytes) { return call("cuMemAlloc_v2", p, bytes); }
    @Override public int cuMemFree_v2(long p) { return call("cuMemFree_v2", p); }
    @Override public int cuMemcpyHtoD_v2(long dst, long src, long n) { return call("cuMemcpyHtoD_v2", dst, src, n); }
    @Override public int cuMemcpyDtoH_v2(long dst, long src, long n) { return call("cuMemcpyDtoH_v2", dst, src, n); }

    @Override
    public int cuLaunchKernel(long f, int gx, int gy, int gz, int bx, int by, int bz, int shared, long stream, long params, long extra) {
        return call("cuLaunchKernel", f, gx, gy, gz, bx, by, bz, shared, stream, params, extra);
    }

    @Override public int cuGetErrorName(int e, long p) { return call("cuGetErrorName", e, p); }
}
