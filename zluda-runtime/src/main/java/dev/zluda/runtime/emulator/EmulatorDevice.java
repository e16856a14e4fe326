package dev.zluda.runtime.emulator;

import dev.zluda.runtime.backend.Backend;
import dev.zluda.runtime.backend.BackendException;
import dev.zluda.runtime.backend.HostMemory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The CPU emulator as the driver's backend: device memory is native memory of the process (so a device pointer is
 * a host address and a copy is a memory copy), kernels are PTX translated at load ({@link EmulatorModule}) and run
 * to completion by an {@link Emulator} this device owns before {@code cuLaunchKernel} returns. Every operation has
 * completed when its call returns, which is a valid schedule under the CUDA stream semantics: streams and events
 * need no native objects, and an event's time is the host's monotonic clock when it was recorded.
 */
public final class EmulatorDevice implements Backend {
    /** The name of device 0, chosen so that users see the device is zluda's. */
    public static final String DEVICE_NAME = "ZLUDA emulator (CPU)";
    /** CUresult values this backend returns (cuda.h). */
    static final int SUCCESS = 0, OUT_OF_MEMORY = 2, NOT_FOUND = 500, INVALID_PTX = 218, NOT_SUPPORTED = 801,
            LAUNCH_OUT_OF_RESOURCES = 701;
    /** {@code ZLUDA_EMULATOR_STATS}: print one line per launch (time, thread-instructions, rate) on stderr. */
    static final boolean STATS = System.getenv("ZLUDA_EMULATOR_STATS") != null;

    private final long totalMemory = hostMemory() / 2;
    private final Object emulatorLock = new Object();
    private volatile Emulator emulator;

    /** Half of the host's physical memory is what the emulator reports as device memory. */
    private static long hostMemory() {
        var os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) return sun.getTotalMemorySize();
        return 16L << 30;
    }

    /** The kernel executor, made on the first launch with {@link Emulator#configuredThreads()} threads. */
    private Emulator emulator() {
        Emulator e = emulator;
        if (e == null) {
            synchronized (emulatorLock) {
                if (emulator == null) emulator = new Emulator(Emulator.configuredThreads());
                e = emulator;
            }
        }
        return e;
    }

    @Override public String kind() { return "emulator"; }
    @Override public String deviceName() { return DEVICE_NAME; }
    @Override public long totalMemory() { return totalMemory; }
    @Override public Map<String, Integer> attributes(Iterable<String> cudaNames) { return Map.of(); }
    @Override public boolean deviceSeesHostMemory() { return true; }
    @Override public boolean supportsTextures() { return true; }
    @Override public boolean synchronous() { return true; }
    @Override public boolean supportsGroupedLaunches() { return true; }

    // ---------------------------------------------------------------- memory

    @Override
    public DeviceMemory allocate(long bytes) throws BackendException {
        HostMemory.Block b = bytes < 0 ? null : HostMemory.allocateZeroed(bytes, 256);
        if (b == null) throw new BackendException(OUT_OF_MEMORY, "out of memory for " + Long.toUnsignedString(bytes) + " bytes");
        return new DeviceMemory(b.address, b::free);
    }

    @Override
    public int copy(long dst, boolean dstOnDevice, long src, boolean srcOnDevice, long bytes) {
        HostMemory.copy(dst, src, bytes);
        return SUCCESS;
    }

    @Override
    public int memset(long dst, long pitch, long value, long width, long height, int elementSize, boolean onDevice) {
        HostMemory.fill(dst, pitch, value, width, height, elementSize);
        return SUCCESS;
    }

    @Override
    public byte[] read(long address, long bytes, boolean onDevice) {
        return HostMemory.at(address, bytes).toArray(ValueLayout.JAVA_BYTE);
    }

    // ---------------------------------------------------------------- streams and events: all work is done already

    @Override public int synchronize() { return SUCCESS; }
    @Override public long createStream(int flags, int priority) { return 0; }
    @Override public int destroyStream(long stream) { return SUCCESS; }
    @Override public int synchronizeStream(long stream) { return SUCCESS; }
    @Override public int queryStream(long stream) { return SUCCESS; }
    @Override public int streamWaitEvent(long stream, long event) { return SUCCESS; }
    @Override public long createEvent(int flags) { return 0; }
    @Override public int destroyEvent(long event) { return SUCCESS; }
    @Override public int recordEvent(long event, long stream) { return SUCCESS; }
    @Override public int queryEvent(long event) { return SUCCESS; }
    @Override public int synchronizeEvent(long event) { return SUCCESS; }

    @Override
    public int elapsedTime(long start, long startNanos, long end, long endNanos, float[] out) {
        out[0] = (float) ((endNanos - startNanos) / 1e6);
        return SUCCESS;
    }

    // ---------------------------------------------------------------- modules and launches

    @Override
    public LoadedModule load(String ptx, String source, VariableAllocator variables) throws BackendException {
        EmulatorModule em;
        try {
            em = EmulatorModule.load(ptx, source, new EmulatorModule.Allocator() {
                @Override
                public long allocate(String name, long size, long align) {
                    return variables.allocate(name, size, align);
                }

                @Override
                public void free(long address) {
                    variables.free(address);
                }
            });
        } catch (PtxLoadException e) {
            throw new BackendException(e.error() == Errors.INVALID_PTX ? INVALID_PTX : NOT_SUPPORTED, e.log());
        } catch (OutOfMemoryError e) {
            throw new BackendException(OUT_OF_MEMORY, source + ": out of memory while loading the module: " + e.getMessage());
        } catch (RuntimeException e) {
            if (System.getenv("ZLUDA_DEBUG") != null) e.printStackTrace();
            throw new BackendException(NOT_SUPPORTED, source + ": internal error of the PTX translator: " + e);
        }
        List<LoadedKernel> kernels = new ArrayList<>();
        for (Kernel k : em.kernels().values()) kernels.add(new LoadedKernel(k, 0));
        return new LoadedModule() {
            @Override public List<LoadedKernel> kernels() { return kernels; }
            @Override public String infoLog() { return em.infoLog(); }
            @Override public int constBytes(LoadedKernel kernel) { return (int) em.constBytes(); }
            @Override public int ptxVersion() { return em.ptxVersion(); }
            @Override public void unload() {}

            @Override
            public long[] global(String name) throws BackendException {
                EmulatorModule.Variable v = em.variables().get(name);
                if (v == null) throw new BackendException(NOT_FOUND, name + ": no such variable");
                return new long[] {v.address(), v.size()};
            }
        };
    }

    @Override
    public LaunchOutcome launch(LaunchRequest r) {
        Kernel k = r.kernel().kernel();
        int[] g = r.grid(), b = r.block();
        long t0 = System.nanoTime();
        LaunchResult res;
        try {
            res = emulator().launch(k, g, b, r.sharedBytes(), MemorySegment.ofArray(r.params()), r.memory(), r.multiprocessors(), r.stackBytes(),
                    r.grouping() == null ? Emulator.Grouping.NONE : r.grouping());
        } catch (OutOfMemoryError e) {
            return new LaunchOutcome(LAUNCH_OUT_OF_RESOURCES, 0, "", null);
        } catch (RuntimeException e) {
            if (System.getenv("ZLUDA_DEBUG") != null) e.printStackTrace();
            res = new LaunchResult(Errors.LAUNCH_FAILED, "kernel " + k.name() + ": internal emulator error: " + e, 0);
        }
        double ms = (System.nanoTime() - t0) / 1e6;
        LaunchResult done = res;
        if (STATS) {
            System.err.printf(Locale.ROOT, "[ZLUDA] launch %s grid=(%d,%d,%d) block=(%d,%d,%d) shared=%d: %.3f ms, %d thread-instructions, %.1f M/s%n",
                    k.name(), g[0], g[1], g[2], b[0], b[1], b[2], r.sharedBytes(), ms, res.threadInstructions(), res.threadInstructions() / ms / 1e3);
        }
        return new LaunchOutcome(SUCCESS, res.error(), res.message(), () -> String.format(Locale.ROOT,
                "kernel %s grid=(%d,%d,%d) block=(%d,%d,%d) shared=%d: %d CTAs, %d thread-instructions, %.3f ms%s",
                k.name(), g[0], g[1], g[2], b[0], b[1], b[2], r.sharedBytes(), (long) g[0] * g[1] * g[2], done.threadInstructions(), ms,
                done.ok() ? "" : ", " + done.message()));
    }

    // ---------------------------------------------------------------- textures, device printf

    @Override
    public void registerTexture(long handle, TextureObject object) {
        TextureObject.register(handle, object);
    }

    @Override
    public void unregisterTexture(long handle) {
        TextureObject.unregister(handle);
    }

    @Override
    public void flushDeviceOutput() {
        DevicePrintf.flush();
    }
}
