package dev.zluda.runtime.driver;

import dev.zluda.runtime.api.CudaStructs.CUdevprop;
import dev.zluda.runtime.emulator.EmulatorDevice;
import dev.zluda.runtime.hip.HipBackend;
import dev.zluda.spec.ErrorStrings;
import dev.zluda.spec.ProcAddressTable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static dev.zluda.runtime.driver.CuResult.*;
import static dev.zluda.runtime.driver.Native.at;
import static dev.zluda.runtime.driver.Native.putInt;
import static dev.zluda.runtime.driver.Native.putLong;

/**
 * Initialization, version, device identity and attributes, error strings and driver entry points
 * (CUDA Driver API groups CUDA_INITIALIZE, CUDA_VERSION, CUDA_DEVICE, CUDA_ERROR,
 * CUDA_DRIVER_ENTRY_POINT). One device, ordinal 0: the emulator, or on the hip backend HIP's device 0.
 */
final class DeviceArea {
    /** The version {@code cuDriverGetVersion} reports: cudart 13 stops with cudaErrorInsufficientDriver below 13000. */
    public static final int DRIVER_VERSION = 13000;
    /** The name of device 0, chosen so that users see the device is zluda's. */
    public static final String DEVICE_NAME = EmulatorDevice.DEVICE_NAME;
    /** Device 0's UUID: fixed, so that captures of two runs compare equal. "ZLUDA-emulator\0\0" in ASCII. */
    static final byte[] DEVICE_UUID = "ZLUDA-emulator\0\0".getBytes(StandardCharsets.US_ASCII);

    private final DriverState state;
    /** cuGetProcAddress's answers (measured on NVIDIA's driver), read on the first cuGetProcAddress. */
    private volatile ProcAddressTable procTable;
    /** The error names and texts, read on the first cuGetErrorName or cuGetErrorString. */
    private volatile ErrorStrings errors;
    private final Map<Integer, MemorySegment> errorNames = new ConcurrentHashMap<>();
    private final Map<Integer, MemorySegment> errorDescriptions = new ConcurrentHashMap<>();
    private volatile int initFailure = SUCCESS;

    DeviceArea(DriverState state) {
        this.state = state;
    }

    private ProcAddressTable procTable() {
        ProcAddressTable t = procTable;
        if (t == null) procTable = t = ProcAddressTable.load(); // a second thread at the same time reads the same table
        return t;
    }

    private ErrorStrings errors() {
        ErrorStrings e = errors;
        if (e == null) errors = e = ErrorStrings.load();
        return e;
    }

    private int checkDevice(int dev) {
        return state.checkDevice(dev);
    }

    // ---------------------------------------------------------------- initialization, version

    /**
     * cuInit: chooses the backend once ({@link HipBackend#select}: {@code ZLUDA_BACKEND=hip|emulator}, else HIP when
     * an AMD GPU is present, else the emulator) and says which on stderr in one line whenever HIP was considered
     * (a variable asked, or an AMD GPU driver is present) or {@code ZLUDA_DEBUG} is set. A failed choice is
     * returned again by every later cuInit.
     */
    public int cuInit(int flags) {
        if (flags != 0) return INVALID_VALUE;
        synchronized (this) {
            if (!state.initialized) {
                if (initFailure != SUCCESS) return initFailure;
                String want = HipBackend.requested();
                var sel = HipBackend.select(want);
                boolean quiet = want == null && sel.device() == null && sel.reason().startsWith("no AMD GPU driver");
                if (!quiet || System.getenv("ZLUDA_DEBUG") != null) {
                    System.err.println("[ZLUDA] backend " + sel.backend() + ": " + sel.reason());
                }
                if (sel.cuInitResult() != SUCCESS) {
                    initFailure = sel.cuInitResult();
                    return initFailure;
                }
                state.use(sel.device() != null ? sel.device() : new EmulatorDevice());
            }
            state.initialized = true;
        }
        return SUCCESS;
    }

    public int cuDriverGetVersion(long driverVersion) {
        if (driverVersion == 0) return INVALID_VALUE;
        putInt(driverVersion, DRIVER_VERSION);
        return SUCCESS;
    }

    /**
     * The module loading mode (cuda.h: "controlled by CUDA_MODULE_LOADING env variable"):
     * CU_MODULE_EAGER_LOADING (1) when CUDA_MODULE_LOADING is EAGER, else CU_MODULE_LAZY_LOADING
     * (2), NVIDIA's default since CUDA 12.2. cudart asks at start-up.
     */
    public int cuModuleGetLoadingMode(long mode) {
        if (mode == 0) return INVALID_VALUE;
        putInt(mode, "EAGER".equalsIgnoreCase(System.getenv("CUDA_MODULE_LOADING")) ? 1 : 2);
        return SUCCESS;
    }

    // ---------------------------------------------------------------- device

    public int cuDeviceGetCount(long count) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (count == 0) return INVALID_VALUE;
        putInt(count, 1);
        return SUCCESS;
    }

    public int cuDeviceGet(long device, int ordinal) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (device == 0) return INVALID_VALUE;
        if (ordinal != 0) return INVALID_DEVICE;
        putInt(device, 0);
        return SUCCESS;
    }

    public int cuDeviceGetName(long name, int len, int dev) {
        int r = checkDevice(dev);
        if (r != SUCCESS) return r;
        if (name == 0 || len <= 0) return INVALID_VALUE;
        byte[] b = state.backend().deviceName().getBytes(StandardCharsets.US_ASCII);
        int n = Math.min(b.length, len - 1);
        MemorySegment out = at(name, len);
        MemorySegment.copy(b, 0, out, ValueLayout.JAVA_BYTE, 0, n);
        out.set(ValueLayout.JAVA_BYTE, n, (byte) 0);
        return SUCCESS;
    }

    public int cuDeviceTotalMem_v2(long bytes, int dev) {
        int r = checkDevice(dev);
        if (r != SUCCESS) return r;
        if (bytes == 0) return INVALID_VALUE;
        putLong(bytes, state.totalMemory);
        return SUCCESS;
    }

    public int cuDeviceTotalMem(long bytes, int dev) {
        // the legacy variant reports an unsigned int
        int r = checkDevice(dev);
        if (r != SUCCESS) return r;
        if (bytes == 0) return INVALID_VALUE;
        putInt(bytes, (int) Math.min(state.totalMemory, 0xFFFF_FFFFL));
        return SUCCESS;
    }

    public int cuDeviceGetAttribute(long pi, int attrib, int dev) {
        int r = checkDevice(dev);
        if (r != SUCCESS) return r;
        if (pi == 0) return INVALID_VALUE;
        Integer v = state.attributes.get(attrib);
        if (v == null) return INVALID_VALUE;
        putInt(pi, v);
        return SUCCESS;
    }

    public int cuDeviceComputeCapability(long major, long minor, int dev) {
        int r = checkDevice(dev);
        if (r != SUCCESS) return r;
        if (major == 0 || minor == 0) return INVALID_VALUE;
        putInt(major, state.attributes.major());
        putInt(minor, state.attributes.minor());
        return SUCCESS;
    }

    public int cuDeviceGetUuid(long uuid, int dev) {
        int r = checkDevice(dev);
        if (r != SUCCESS) return r;
        if (uuid == 0) return INVALID_VALUE;
        MemorySegment.copy(DEVICE_UUID, 0, at(uuid, 16), ValueLayout.JAVA_BYTE, 0, 16);
        return SUCCESS;
    }

    public int cuDeviceGetPCIBusId(long pciBusId, int len, int dev) {
        int r = checkDevice(dev);
        if (r != SUCCESS) return r;
        if (pciBusId == 0 || len <= 0) return INVALID_VALUE;
        // domain:bus:device.function, as NVIDIA formats it
        byte[] b = "00000000:00:00.0".getBytes(StandardCharsets.US_ASCII);
        int n = Math.min(b.length, len - 1);
        MemorySegment.copy(b, 0, at(pciBusId, len), ValueLayout.JAVA_BYTE, 0, n);
        at(pciBusId, len).set(ValueLayout.JAVA_BYTE, n, (byte) 0);
        return SUCCESS;
    }

    public int cuDeviceGetByPCIBusId(long dev, long pciBusId) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (dev == 0 || pciBusId == 0) return INVALID_VALUE;
        String id = at(pciBusId, 64).getString(0, StandardCharsets.US_ASCII).trim();
        // accepted forms: [domain]:[bus]:[device].[function], [domain]:[bus]:[device], [bus]:[device].[function] (hex)
        if (!id.matches("(?i)(0{1,8}:)?0{1,2}:0{1,2}(\\.0)?")) return INVALID_DEVICE;
        putInt(dev, 0);
        return SUCCESS;
    }

    /**
     * Peer access (cuda.h, cuDeviceCanAccessPeer): there is one device, so no peer; 0 is written,
     * also for {@code dev == peerDev} (NVIDIA's driver answers 0 for a device and itself).
     */
    public int cuDeviceCanAccessPeer(long canAccessPeer, int dev, int peerDev) {
        int r = checkDevice(dev);
        if (r == SUCCESS) r = checkDevice(peerDev);
        if (r != SUCCESS) return r;
        if (canAccessPeer == 0) return INVALID_VALUE;
        putInt(canAccessPeer, 0);
        return SUCCESS;
    }

    public int cuDeviceGetProperties(long prop, int dev) {
        int r = checkDevice(dev);
        if (r != SUCCESS) return r;
        if (prop == 0) return INVALID_VALUE;
        var a = state.attributes.byName();
        CUdevprop.maxThreadsPerBlock(prop, a.get("MAX_THREADS_PER_BLOCK"));
        CUdevprop.maxThreadsDim(prop, 0, a.get("MAX_BLOCK_DIM_X"));
        CUdevprop.maxThreadsDim(prop, 1, a.get("MAX_BLOCK_DIM_Y"));
        CUdevprop.maxThreadsDim(prop, 2, a.get("MAX_BLOCK_DIM_Z"));
        CUdevprop.maxGridSize(prop, 0, a.get("MAX_GRID_DIM_X"));
        CUdevprop.maxGridSize(prop, 1, a.get("MAX_GRID_DIM_Y"));
        CUdevprop.maxGridSize(prop, 2, a.get("MAX_GRID_DIM_Z"));
        CUdevprop.sharedMemPerBlock(prop, a.get("MAX_SHARED_MEMORY_PER_BLOCK"));
        CUdevprop.totalConstantMemory(prop, a.get("TOTAL_CONSTANT_MEMORY"));
        CUdevprop.SIMDWidth(prop, a.get("WARP_SIZE"));
        CUdevprop.memPitch(prop, a.get("MAX_PITCH"));
        CUdevprop.regsPerBlock(prop, a.get("MAX_REGISTERS_PER_BLOCK"));
        CUdevprop.clockRate(prop, a.get("CLOCK_RATE"));
        CUdevprop.textureAlign(prop, a.get("TEXTURE_ALIGNMENT"));
        return SUCCESS;
    }

    // ---------------------------------------------------------------- errors

    public int cuGetErrorName(int error, long pStr) {
        return errorText(errors().name(error).orElse(null), error, pStr, errorNames);
    }

    public int cuGetErrorString(int error, long pStr) {
        return errorText(errors().description(error).orElse(null), error, pStr, errorDescriptions);
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

    public int cuGetProcAddress_v2(long symbol, long pfn, int cudaVersion, long flags, long symbolStatus) {
        return procAddress(symbol, pfn, cudaVersion, flags, symbolStatus);
    }

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
        ProcAddressTable.Answer a = procTable().lookup(name, cudaVersion, flags);
        MemorySegment fn = MemorySegment.NULL;
        int status = a.symbolStatus();
        if (a.symbol() != null) {
            int id = DriverState.indexedId(a.symbol());
            if (id >= 0) {
                fn = state.exports.getAtIndex(ValueLayout.ADDRESS, id);
            } else {
                status = ProcAddressTable.SYMBOL_NOT_FOUND; // exported by NVIDIA, declared in no public header
            }
        }
        if (a.result() != SUCCESS) return a.result();
        at(pfn, 8).set(ValueLayout.ADDRESS, 0, fn);
        if (symbolStatus != 0) putInt(symbolStatus, status);
        return SUCCESS;
    }
}
