package dev.zluda.replay;

import dev.zluda.runtime.driver.ZludaDriver;
import dev.zluda.spec.CudaApi;

import java.lang.foreign.MemorySegment;

/**
 * zluda's driver in this process: a fresh {@link ZludaDriver} (the CPU emulator), called directly
 * rather than through {@code dist/lib/libcuda.so.1} (that library boots a JVM of its own, which a
 * process that already runs one cannot do). Same semantics as the library: it is the code behind it.
 */
public final class JavaDriver implements Driver {
    private final ZludaDriver d = new ZludaDriver(CudaApi.get(), MemorySegment.NULL);

    private static final java.util.regex.Pattern TARGET = java.util.regex.Pattern.compile("(?m)^\\s*\\.target\\s+sm_(\\d+)(\\d)[af]?\\b");

    /**
     * A driver whose emulated device can run {@code ptx}: when the PTX's {@code .target sm_XY} is newer
     * than the emulator's default compute capability (8.6) and {@code ZLUDA_OVERRIDE_COMPUTE_CAPABILITY}
     * is not set, the device reports X.Y (a kernel compiled for an H200 by NVRTC says {@code sm_90}),
     * and a note says so.
     *
     * @param ptx the module's PTX text, or null
     * @param notes where the note goes
     */
    static JavaDriver forTarget(String ptx, java.util.List<String> notes) {
        if (ptx == null || System.getenv("ZLUDA_OVERRIDE_COMPUTE_CAPABILITY") != null) return new JavaDriver();
        java.util.regex.Matcher m = TARGET.matcher(ptx);
        if (!m.find()) return new JavaDriver();
        int major = Integer.parseInt(m.group(1)), minor = Integer.parseInt(m.group(2));
        int[] def = dev.zluda.runtime.driver.DeviceAttributes.computeCapability(null);
        if (major * 10 + minor <= def[0] * 10 + def[1]) return new JavaDriver();
        String prop = dev.zluda.runtime.driver.DeviceAttributes.COMPUTE_CAPABILITY_PROPERTY;
        String old = System.getProperty(prop);
        System.setProperty(prop, major + "." + minor);
        try {
            notes.add("the emulated device reports compute capability " + major + "." + minor + ", the PTX's .target");
            return new JavaDriver();
        } finally {
            if (old == null) System.clearProperty(prop); else System.setProperty(prop, old);
        }
    }

    @Override public String describe() { return "zluda (the CPU emulator, in-process)"; }
    @Override public String kind() { return "zluda"; }
    @Override public int cuInit(int flags) { return d.cuInit(flags); }
    @Override public int cuDriverGetVersion(long p) { return d.cuDriverGetVersion(p); }
    @Override public int cuDeviceGet(long p, int ordinal) { return d.cuDeviceGet(p, ordinal); }
    @Override public int cuDeviceGetName(long name, int len, int dev) { return d.cuDeviceGetName(name, len, dev); }
    @Override public int cuDevicePrimaryCtxRetain(long p, int dev) { return d.cuDevicePrimaryCtxRetain(p, dev); }
    @Override public int cuDevicePrimaryCtxRelease_v2(int dev) { return d.cuDevicePrimaryCtxRelease_v2(dev); }
    @Override public int cuCtxSetCurrent(long ctx) { return d.cuCtxSetCurrent(ctx); }
    @Override public int cuCtxSynchronize() { return d.cuCtxSynchronize(); }
    @Override public int cuModuleLoadDataEx(long p, long image, int n, long o, long v) { return d.cuModuleLoadDataEx(p, image, n, o, v); }
    @Override public int cuModuleGetFunction(long p, long m, long name) { return d.cuModuleGetFunction(p, m, name); }
    @Override public int cuModuleUnload(long m) { return d.cuModuleUnload(m); }
    @Override public int cuMemAlloc_v2(long p, long bytes) { return d.cuMemAlloc_v2(p, bytes); }
    @Override public int cuMemFree_v2(long p) { return d.cuMemFree_v2(p); }
    @Override public int cuMemcpyHtoD_v2(long dst, long src, long n) { return d.cuMemcpyHtoD_v2(dst, src, n); }
    @Override public int cuMemcpyDtoH_v2(long dst, long src, long n) { return d.cuMemcpyDtoH_v2(dst, src, n); }

    @Override
    public int cuLaunchKernel(long f, int gx, int gy, int gz, int bx, int by, int bz, int shared, long stream, long params, long extra) {
        return d.cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra);
    }

    @Override public int cuGetErrorName(int e, long p) { return d.cuGetErrorName(e, p); }

    @Override
    public int call(dev.zluda.spec.CudaFunction f, long[] args) {
        try (java.lang.foreign.Arena a = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment words = a.allocate(8L * Math.max(1, dev.zluda.runtime.api.CudaDispatcher.MAX_PARAMS), 8);
            for (int i = 0; i < args.length; i++) words.setAtIndex(java.lang.foreign.ValueLayout.JAVA_LONG, i, args[i]);
            return dev.zluda.runtime.api.CudaDispatcher.dispatch(d, f.id(), words);
        }
    }
}
