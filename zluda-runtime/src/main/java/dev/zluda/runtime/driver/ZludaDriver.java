package dev.zluda.runtime.driver;

import dev.zluda.runtime.api.CudaDriverApi;
import dev.zluda.spec.CudaApi;
import dev.zluda.spec.ErrorStrings;
import dev.zluda.spec.CudaFunction;
import dev.zluda.spec.ProcAddressTable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The zluda CUDA driver, as native callers see it through {@code libcuda.so.1}. Every method
 * implements the CUDA Driver API function of the same name (CUDA 13.0 semantics); what is not
 * overridden here returns {@code CUDA_ERROR_NOT_SUPPORTED} and is reported once on stderr.
 *
 * <p>Implemented so far: initialization and version ({@code cuInit}, {@code cuDriverGetVersion}),
 * device enumeration and identity ({@code cuDeviceGetCount}, {@code cuDeviceGet},
 * {@code cuDeviceGetName}, {@code cuDeviceTotalMem}), error names and descriptions
 * ({@code cuGetErrorName}, {@code cuGetErrorString}, NVIDIA's texts as measured) and
 * driver entry points ({@code cuGetProcAddress}, {@code _v2}) answered from the table measured on
 * NVIDIA's driver.
 */
public final class ZludaDriver implements CudaDriverApi {
    /** CUresult values used here (CUDA Driver API, enum cudaError_enum). */
    static final int SUCCESS = 0, INVALID_VALUE = 1, NOT_INITIALIZED = 3, INVALID_DEVICE = 101;
    /** The version {@code cuDriverGetVersion} reports: cudart 13 stops with cudaErrorInsufficientDriver below 13000. */
    public static final int DRIVER_VERSION = 13000;
    /** The name of device 0, chosen so that users see the device is zluda's. */
    public static final String DEVICE_NAME = "ZLUDA emulator (CPU)";

    private final CudaApi api;
    private final MemorySegment exports;
    private final ProcAddressTable procTable;
    private final ErrorStrings errors = ErrorStrings.load();
    private final Map<Integer, MemorySegment> errorNames = new ConcurrentHashMap<>();
    private final Map<Integer, MemorySegment> errorDescriptions = new ConcurrentHashMap<>();
    private final Set<Integer> reportedUnsupported = ConcurrentHashMap.newKeySet();
    private volatile boolean initialized;

    /**
     * @param api the spec
     * @param exports {@code zl_functions[]}: the native export of every spec function, by id
     */
    public ZludaDriver(CudaApi api, MemorySegment exports) {
        this.api = api;
        this.exports = exports;
        this.procTable = api.procAddress();
    }

    @Override
    public int unsupported(int functionId) {
        if (reportedUnsupported.add(functionId)) {
            System.err.println("[ZLUDA] " + api.function(functionId).name() + " is not supported yet: returning CUDA_ERROR_NOT_SUPPORTED");
        }
        return CUDA_ERROR_NOT_SUPPORTED;
    }

    private static MemorySegment at(long address, long bytes) {
        return MemorySegment.ofAddress(address).reinterpret(bytes);
    }

    // ---------------------------------------------------------------- initialization, version

    @Override
    public int cuInit(int flags) {
        if (flags != 0) return INVALID_VALUE;
        initialized = true;
        return SUCCESS;
    }

    @Override
    public int cuDriverGetVersion(long driverVersion) {
        if (driverVersion == 0) return INVALID_VALUE;
        at(driverVersion, 4).set(ValueLayout.JAVA_INT, 0, DRIVER_VERSION);
        return SUCCESS;
    }

    // ---------------------------------------------------------------- device

    @Override
    public int cuDeviceGetCount(long count) {
        if (!initialized) return NOT_INITIALIZED;
        if (count == 0) return INVALID_VALUE;
        at(count, 4).set(ValueLayout.JAVA_INT, 0, 1);
        return SUCCESS;
    }

    @Override
    public int cuDeviceGet(long device, int ordinal) {
        if (!initialized) return NOT_INITIALIZED;
        if (device == 0) return INVALID_VALUE;
        if (ordinal != 0) return INVALID_DEVICE;
        at(device, 4).set(ValueLayout.JAVA_INT, 0, 0);
        return SUCCESS;
    }

    @Override
    public int cuDeviceGetName(long name, int len, int dev) {
        if (!initialized) return NOT_INITIALIZED;
        if (name == 0 || len <= 0) return INVALID_VALUE;
        if (dev != 0) return INVALID_DEVICE;
        byte[] b = DEVICE_NAME.getBytes(StandardCharsets.US_ASCII);
        int n = Math.min(b.length, len - 1);
        MemorySegment out = at(name, len);
        MemorySegment.copy(b, 0, out, ValueLayout.JAVA_BYTE, 0, n);
        out.set(ValueLayout.JAVA_BYTE, n, (byte) 0);
        return SUCCESS;
    }

    /** Device memory the emulator reports: half of the host's physical memory. */
    static long totalMemory() {
        var os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) return sun.getTotalMemorySize() / 2;
        return 8L << 30;
    }

    @Override
    public int cuDeviceTotalMem_v2(long bytes, int dev) {
        if (!initialized) return NOT_INITIALIZED;
        if (bytes == 0) return INVALID_VALUE;
        if (dev != 0) return INVALID_DEVICE;
        at(bytes, 8).set(ValueLayout.JAVA_LONG, 0, totalMemory());
        return SUCCESS;
    }

    @Override
    public int cuDeviceTotalMem(long bytes, int dev) {
        // the legacy variant reports an unsigned int
        if (!initialized) return NOT_INITIALIZED;
        if (bytes == 0) return INVALID_VALUE;
        if (dev != 0) return INVALID_DEVICE;
        at(bytes, 4).set(ValueLayout.JAVA_INT, 0, (int) Math.min(totalMemory(), 0xFFFF_FFFFL));
        return SUCCESS;
    }

    // ---------------------------------------------------------------- errors

    @Override
    public int cuGetErrorName(int error, long pStr) {
        return errorText(errors.name(error).orElse(null), error, pStr, errorNames);
    }

    @Override
    public int cuGetErrorString(int error, long pStr) {
        return errorText(errors.description(error).orElse(null), error, pStr, errorDescriptions);
    }

    /** Writes a pointer to a NUL-terminated string that lives as long as the process (as NVIDIA's do). */
    private static int errorText(String text, int error, long pStr, Map<Integer, MemorySegment> cache) {
        if (pStr == 0) return INVALID_VALUE;
        if (text == null) {
            at(pStr, 8).set(ValueLayout.ADDRESS, 0, MemorySegment.NULL);
            return INVALID_VALUE;
        }
        MemorySegment s = cache.computeIfAbsent(error, e -> Arena.global().allocateFrom(text));
        at(pStr, 8).set(ValueLayout.ADDRESS, 0, s);
        return SUCCESS;
    }

    // ---------------------------------------------------------------- driver entry points

    @Override
    public int cuGetProcAddress_v2(long symbol, long pfn, int cudaVersion, long flags, long symbolStatus) {
        return procAddress(symbol, pfn, cudaVersion, flags, symbolStatus);
    }

    /** CUDA_ERROR_NOT_FOUND: what the status-less cuGetProcAddress returns for a symbol it cannot give. */
    static final int NOT_FOUND = 500;

    @Override
    public int cuGetProcAddress(long symbol, long pfn, int cudaVersion, long flags) {
        // Measured on NVIDIA's driver: without a status argument, a symbol it cannot give is
        // CUDA_ERROR_NOT_FOUND with *pfn left unchanged.
        if (pfn == 0) return INVALID_VALUE;
        MemorySegment before = at(pfn, 8).get(ValueLayout.ADDRESS, 0);
        int r = procAddress(symbol, pfn, cudaVersion, flags, 0);
        if (r == SUCCESS && at(pfn, 8).get(ValueLayout.ADDRESS, 0).address() == 0) {
            at(pfn, 8).set(ValueLayout.ADDRESS, 0, before);
            return NOT_FOUND;
        }
        return r;
    }

    private int procAddress(long symbol, long pfn, int cudaVersion, long flags, long symbolStatus) {
        if (symbol == 0 || pfn == 0) return INVALID_VALUE;
        String name = MemorySegment.ofAddress(symbol).reinterpret(4096).getString(0, StandardCharsets.US_ASCII);
        ProcAddressTable.Answer a = procTable.lookup(name, cudaVersion, flags);
        MemorySegment fn = MemorySegment.NULL;
        int status = a.symbolStatus();
        if (a.symbol() != null) {
            CudaFunction f = api.function(a.symbol()).orElse(null);
            if (f != null) {
                fn = exports.getAtIndex(ValueLayout.ADDRESS, f.id());
            } else {
                status = ProcAddressTable.SYMBOL_NOT_FOUND; // a function NVIDIA has and the spec lacks (GL/EGL/VDPAU interop)
            }
        }
        if (a.result() != SUCCESS) return a.result();
        at(pfn, 8).set(ValueLayout.ADDRESS, 0, fn);
        if (symbolStatus != 0) at(symbolStatus, 4).set(ValueLayout.JAVA_INT, 0, status);
        return SUCCESS;
    }
}
