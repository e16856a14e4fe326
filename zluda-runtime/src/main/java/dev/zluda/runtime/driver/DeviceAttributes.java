package dev.zluda.runtime.driver;

import dev.zluda.spec.CudaApi;
import dev.zluda.spec.CudaEnum;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The emulator device's answer to every {@code cuDeviceGetAttribute} attribute (CUdevice_attribute
 * of cuda.h), for a compute capability.
 *
 * <p>Limits that follow from the compute capability come from the CUDA C++ Programming Guide,
 * "Technical Specifications per Compute Capability" (threads, blocks, shared memory, registers per
 * multiprocessor); with capability 9.0 they equal what an NVIDIA H200 reports (recorded in
 * nvidia-capture/measured/h200-580.159.04/device.tsv, checked by a test). Properties of the
 * machine (multiprocessor count = host cores, clocks, PCI ids) describe the emulator itself, and
 * features the driver does not implement (IPC, stream memory operations, ...) are reported as
 * absent (0) so that programs take their fallback paths instead of failing later. Cooperative
 * launches and virtual memory management are implemented (1); cluster launches from capability
 * 9.0, as on NVIDIA hardware. The L2 cache figures are an H200's (the emulator has no cache; the
 * persisting-L2 and access-policy settings are hints it accepts and stores), from capability 8.0,
 * the first with persisting accesses.
 */
public final class DeviceAttributes {
    /** Compute capabilities with a known limits table: major*10+minor. */
    static final int[] KNOWN = {75, 80, 86, 87, 89, 90, 100, 120};

    private final int major, minor;
    private final Map<Integer, Integer> values = new LinkedHashMap<>();
    private final Map<Integer, String> names = new LinkedHashMap<>();

    /**
     * @param major compute capability major, e.g. 8
     * @param minor compute capability minor, e.g. 6
     * @param multiprocessors number of multiprocessors to report
     * @throws IllegalArgumentException for a capability outside {@link #KNOWN}
     */
    public DeviceAttributes(CudaApi api, int major, int minor, int multiprocessors) {
        this(api.enumType("CUdevice_attribute").orElseThrow(), major, minor, multiprocessors);
    }

    /**
     * The attributes of a device with this compute capability, over the members of {@code CUdevice_attribute}.
     *
     * @param attributes the enum {@code CUdevice_attribute} of the spec
     * @param major compute capability major, e.g. 8
     * @param minor compute capability minor, e.g. 6
     * @param multiprocessors number of multiprocessors to report
     * @throws IllegalArgumentException for a capability outside {@link #KNOWN}
     */
    public DeviceAttributes(CudaEnum attributes, int major, int minor, int multiprocessors) {
        int cc = major * 10 + minor;
        boolean known = false;
        for (int k : KNOWN) known |= k == cc;
        if (!known) throw new IllegalArgumentException("compute capability " + major + "." + minor + " has no limits table; known: 7.5, 8.0, 8.6, 8.7, 8.9, 9.0, 10.0, 12.0");
        this.major = major;
        this.minor = minor;
        for (CudaEnum.Member m : attributes.members()) {
            int id = (int) m.value();
            if (names.containsKey(id) || m.name().endsWith("_MAX")) continue;
            String n = m.name().substring("CU_DEVICE_ATTRIBUTE_".length());
            names.put(id, n);
            values.put(id, value(n, cc, multiprocessors));
        }
    }

    private DeviceAttributes(DeviceAttributes base, Map<String, Integer> overrides) {
        this.major = base.major;
        this.minor = base.minor;
        this.names.putAll(base.names);
        this.values.putAll(base.values);
        names.forEach((id, n) -> {
            Integer v = overrides.get(n);
            if (v != null) values.put(id, v);
        });
    }

    /**
     * These attributes with some values replaced (the hip backend's answers from the AMD device).
     *
     * @param overrides values by attribute name (without {@code CU_DEVICE_ATTRIBUTE_}); names that are not
     *     attributes are ignored
     */
    public DeviceAttributes with(Map<String, Integer> overrides) {
        return new DeviceAttributes(this, overrides);
    }

    /**
     * System property with the same meaning as {@code ZLUDA_OVERRIDE_COMPUTE_CAPABILITY} ("M.m"), read
     * when that variable is not set, by drivers created after it is set: for programs that run the
     * driver in their own JVM (zluda replay) and cannot change their environment.
     */
    public static final String COMPUTE_CAPABILITY_PROPERTY = "zluda.overrideComputeCapability";

    /** Parses {@code ZLUDA_OVERRIDE_COMPUTE_CAPABILITY} ("M.m"); default 8.6. Throws IllegalArgumentException naming the bad value. */
    public static int[] computeCapability(String override) {
        if (override == null || override.isBlank()) return new int[] {8, 6};
        String[] p = override.trim().split("\\.");
        try {
            if (p.length == 2) return new int[] {Integer.parseInt(p[0]), Integer.parseInt(p[1])};
        } catch (NumberFormatException ignored) {
            // fall through
        }
        throw new IllegalArgumentException("ZLUDA_OVERRIDE_COMPUTE_CAPABILITY must look like 8.6, not '" + override + "'");
    }

    public int major() {
        return major;
    }

    public int minor() {
        return minor;
    }

    /** The value for an attribute id, or null for an id that is not a CUdevice_attribute. */
    public Integer get(int attribute) {
        return values.get(attribute);
    }

    /** Every attribute id with its name (without {@code CU_DEVICE_ATTRIBUTE_}) and value, in enum order. */
    public Map<String, Integer> byName() {
        Map<String, Integer> out = new LinkedHashMap<>();
        names.forEach((id, n) -> out.put(n, values.get(id)));
        return out;
    }

    /** Bytes of shared memory per multiprocessor (Programming Guide table). */
    static int sharedPerSm(int cc) {
        return switch (cc) {
            case 75 -> 64 << 10;
            case 80, 87 -> 164 << 10;
            case 86, 89, 120 -> 100 << 10;
            default -> 228 << 10; // 9.0, 10.0
        };
    }

    /** Bytes of shared memory a block may opt in to (Programming Guide table). */
    static int sharedOptin(int cc) {
        return switch (cc) {
            case 75 -> 64 << 10;
            case 80, 87 -> 163 << 10;
            case 86, 89, 120 -> 99 << 10;
            default -> 227 << 10;
        };
    }

    static int threadsPerSm(int cc) {
        return switch (cc) {
            case 75 -> 1024;
            case 86, 89, 120 -> 1536;
            default -> 2048;
        };
    }

    static int blocksPerSm(int cc) {
        return switch (cc) {
            case 75, 86, 87 -> 16;
            case 89 -> 24;
            default -> 32;
        };
    }

    /**
     * An NVIDIA H200's L2 figures (driver 580.159.04, device.tsv): CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
     * MAX_PERSISTING_L2_CACHE_SIZE (also the largest CU_LIMIT_PERSISTING_L2_CACHE_SIZE) and
     * MAX_ACCESS_POLICY_WINDOW_SIZE, in bytes.
     */
    static final int H200_L2_CACHE_SIZE = 62914560, H200_MAX_PERSISTING_L2_CACHE_SIZE = 39321600,
            H200_MAX_ACCESS_POLICY_WINDOW_SIZE = 134217728;

    private int value(String n, int cc, int sms) {
        return switch (n) {
            // limits of the compute capability
            case "MAX_THREADS_PER_BLOCK", "MAX_BLOCK_DIM_X", "MAX_BLOCK_DIM_Y" -> 1024;
            case "MAX_BLOCK_DIM_Z" -> 64;
            case "MAX_GRID_DIM_X" -> Integer.MAX_VALUE;
            case "MAX_GRID_DIM_Y", "MAX_GRID_DIM_Z" -> 65535;
            case "MAX_SHARED_MEMORY_PER_BLOCK" -> 48 << 10;
            case "TOTAL_CONSTANT_MEMORY" -> 64 << 10;
            case "WARP_SIZE" -> 32;
            case "MAX_PITCH" -> Integer.MAX_VALUE;
            case "MAX_REGISTERS_PER_BLOCK", "MAX_REGISTERS_PER_MULTIPROCESSOR" -> 64 << 10;
            case "MAX_THREADS_PER_MULTIPROCESSOR" -> threadsPerSm(cc);
            case "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR" -> sharedPerSm(cc);
            case "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN" -> sharedOptin(cc);
            case "RESERVED_SHARED_MEMORY_PER_BLOCK" -> cc >= 80 ? 1024 : 0;
            case "MAX_BLOCKS_PER_MULTIPROCESSOR" -> blocksPerSm(cc);
            case "COMPUTE_CAPABILITY_MAJOR" -> major;
            case "COMPUTE_CAPABILITY_MINOR" -> minor;
            case "TEXTURE_ALIGNMENT", "SURFACE_ALIGNMENT" -> 512;
            case "TEXTURE_PITCH_ALIGNMENT" -> 32;
            // the emulator as a machine
            case "MULTIPROCESSOR_COUNT" -> sms;
            case "CLOCK_RATE" -> 1_000_000; // kHz, nominal
            case "MEMORY_CLOCK_RATE" -> 1_000_000;
            case "GLOBAL_MEMORY_BUS_WIDTH" -> 64;
            // an H200's (device.tsv): programs size their access-policy windows by them
            case "L2_CACHE_SIZE" -> H200_L2_CACHE_SIZE;
            case "MAX_PERSISTING_L2_CACHE_SIZE" -> cc >= 80 ? H200_MAX_PERSISTING_L2_CACHE_SIZE : 0;
            case "MAX_ACCESS_POLICY_WINDOW_SIZE" -> cc >= 80 ? H200_MAX_ACCESS_POLICY_WINDOW_SIZE : 0;
            case "CLUSTER_LAUNCH" -> cc >= 90 ? 1 : 0;
            case "PCI_BUS_ID", "PCI_DEVICE_ID", "PCI_DOMAIN_ID" -> 0;
            case "GPU_PCI_DEVICE_ID", "GPU_PCI_SUBSYSTEM_ID" -> 0;
            case "COMPUTE_MODE" -> 0; // CU_COMPUTEMODE_DEFAULT
            case "ASYNC_ENGINE_COUNT" -> 0;
            case "SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO" -> 2;
            case "NUMA_ID" -> -1;
            case "HOST_NUMA_ID" -> -1;
            // Kernels reach the driver's allocations only (device, page-locked, managed and registered host memory), whose
            // bounds the emulator checks; the program's own pageable memory (malloc, the stack) is not device memory, as on
            // the H200 (device.tsv: 0 for both). Admitting any mapped host page would leave an access past the end of a
            // device allocation (the C heap, like malloc's memory) unchecked.
            case "PAGEABLE_MEMORY_ACCESS", "PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES" -> 0;
            // what the driver implements
            case "UNIFIED_ADDRESSING", "CAN_MAP_HOST_MEMORY", "MANAGED_MEMORY", "CONCURRENT_KERNELS", "GPU_OVERLAP",
                 "HOST_REGISTER_SUPPORTED", "CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM", "STREAM_PRIORITIES_SUPPORTED",
                 "GLOBAL_L1_CACHE_SUPPORTED", "LOCAL_L1_CACHE_SUPPORTED", "DIRECT_MANAGED_MEM_ACCESS_FROM_HOST",
                 "CONCURRENT_MANAGED_ACCESS", "HOST_NATIVE_ATOMIC_SUPPORTED", "INTEGRATED", "UNIFIED_FUNCTION_POINTERS",
                 "MEMORY_POOLS_SUPPORTED", "COOPERATIVE_LAUNCH", "COOPERATIVE_MULTI_DEVICE_LAUNCH", "VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED", "HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED",
                 "VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED" -> 1;
            default -> n.startsWith("MAXIMUM_TEXTURE") || n.startsWith("MAXIMUM_SURFACE") ? textureLimit(n) : 0;
        };
    }

    /** Texture and surface size limits, the same for 7.5 … 12.0 (Programming Guide table); textures themselves are not implemented. */
    private static int textureLimit(String n) {
        return switch (n) {
            case "MAXIMUM_TEXTURE1D_WIDTH", "MAXIMUM_TEXTURE2D_WIDTH", "MAXIMUM_TEXTURE2D_LINEAR_WIDTH", "MAXIMUM_SURFACE2D_WIDTH" -> 131072;
            case "MAXIMUM_TEXTURE2D_HEIGHT", "MAXIMUM_SURFACE2D_HEIGHT" -> 65536;
            case "MAXIMUM_TEXTURE2D_LINEAR_HEIGHT" -> 65000;
            case "MAXIMUM_TEXTURE2D_LINEAR_PITCH" -> 2097120;
            case "MAXIMUM_TEXTURE3D_WIDTH", "MAXIMUM_TEXTURE3D_HEIGHT", "MAXIMUM_TEXTURE3D_DEPTH", "MAXIMUM_SURFACE3D_WIDTH",
                 "MAXIMUM_SURFACE3D_HEIGHT", "MAXIMUM_SURFACE3D_DEPTH" -> 16384;
            case "MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE", "MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE" -> 8192;
            case "MAXIMUM_TEXTURE1D_LINEAR_WIDTH" -> 1 << 28;
            case "MAXIMUM_TEXTURE2D_LAYERED_LAYERS", "MAXIMUM_TEXTURE1D_LAYERED_LAYERS", "MAXIMUM_SURFACE1D_LAYERED_LAYERS",
                 "MAXIMUM_SURFACE2D_LAYERED_LAYERS" -> 2048;
            case "MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS", "MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS" -> 2046;
            default -> 32768;
        };
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "compute capability %d.%d, %d attributes", major, minor, values.size());
    }
}
