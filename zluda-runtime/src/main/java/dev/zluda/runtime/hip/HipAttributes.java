package dev.zluda.runtime.hip;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The table from CUDA's {@code CUdevice_attribute} (cuda.h, named here without {@code CU_DEVICE_ATTRIBUTE_}) to
 * HIP's {@code hipDeviceAttribute_t}, for {@code cuDeviceGetAttribute} on the hip backend.
 *
 * <p>Numbering: HIP 5.0 renumbered {@code hipDeviceAttribute_t} (HIP 4.x started with
 * {@code hipDeviceAttributeMaxThreadsPerBlock = 0}; 5.0 sorted the CUDA-compatible members by name from
 * {@code hipDeviceAttributeEccEnabled = 0}). From 5.0 to 6.2 and the current header the values used here are the
 * same: 6.0 renamed members it dropped ({@code Name}, {@code Uuid}, {@code Arch}, {@code GcnArch},
 * {@code GcnArchName} became {@code UnusedN}, keeping their values) and later versions only appended
 * (88 {@code MemoryPoolsSupported} in 5.2, 89 {@code VirtualMemoryManagementSupported} in 5.3, 90
 * {@code HostRegisterSupported} in 6.0). Facts from the public {@code include/hip/hip_runtime_api.h} of ROCm/HIP,
 * tags rocm-4.5.2, rocm-5.0.0 … rocm-5.7.1, rocm-6.0.0 … rocm-6.2.2. So the hip backend takes HIP 5 and 6 with this
 * one table ({@link #numberingSupported}) and refuses HIP 4.
 *
 * <p>Attributes not in the table: the compute capability is zluda's (what the PTX is chosen for, default 8.6,
 * {@code ZLUDA_OVERRIDE_COMPUTE_CAPABILITY}), not HIP's gfx version; features the driver does not implement on the
 * hip backend ({@link #ABSENT_ON_HIP}: managed and mapped host memory, host registration, cooperative launches,
 * ...) are 0 whatever the device could do; the rest keep the values zluda reports for its compute capability
 * (texture and surface limits, ...). An attribute HIP refuses (some are "Cuda only" in HIP's header) keeps that
 * value too.
 */
public final class HipAttributes {
    private HipAttributes() {}

    /** CUDA attribute name → hipDeviceAttribute_t value (HIP 5.0 and later). */
    public static final Map<String, Integer> TABLE;

    static {
        Map<String, Integer> t = new LinkedHashMap<>();
        t.put("ECC_ENABLED", 0);                          // hipDeviceAttributeEccEnabled
        t.put("MAX_ACCESS_POLICY_WINDOW_SIZE", 1);        // AccessPolicyMaxWindowSize
        t.put("ASYNC_ENGINE_COUNT", 2);                   // AsyncEngineCount
        t.put("CLOCK_RATE", 5);                           // ClockRate (kHz)
        t.put("COMPUTE_MODE", 6);                         // ComputeMode
        t.put("COMPUTE_PREEMPTION_SUPPORTED", 7);         // ComputePreemptionSupported
        t.put("CONCURRENT_KERNELS", 8);                   // ConcurrentKernels
        t.put("GPU_OVERLAP", 12);                         // DeviceOverlap
        t.put("GLOBAL_L1_CACHE_SUPPORTED", 14);           // GlobalL1CacheSupported
        t.put("HOST_NATIVE_ATOMIC_SUPPORTED", 15);        // HostNativeAtomicSupported
        t.put("INTEGRATED", 16);                          // Integrated
        t.put("MULTI_GPU_BOARD", 17);                     // IsMultiGpuBoard
        t.put("KERNEL_EXEC_TIMEOUT", 18);                 // KernelExecTimeout
        t.put("L2_CACHE_SIZE", 19);                       // L2CacheSize
        t.put("LOCAL_L1_CACHE_SUPPORTED", 20);            // LocalL1CacheSupported
        t.put("MAX_BLOCKS_PER_MULTIPROCESSOR", 25);       // MaxBlocksPerMultiProcessor
        t.put("MAX_BLOCK_DIM_X", 26);                     // MaxBlockDimX
        t.put("MAX_BLOCK_DIM_Y", 27);                     // MaxBlockDimY
        t.put("MAX_BLOCK_DIM_Z", 28);                     // MaxBlockDimZ
        t.put("MAX_GRID_DIM_X", 29);                      // MaxGridDimX
        t.put("MAX_GRID_DIM_Y", 30);                      // MaxGridDimY
        t.put("MAX_GRID_DIM_Z", 31);                      // MaxGridDimZ
        t.put("MAXIMUM_TEXTURE1D_WIDTH", 39);             // MaxTexture1DWidth
        t.put("MAXIMUM_TEXTURE2D_WIDTH", 43);             // MaxTexture2DWidth
        t.put("MAXIMUM_TEXTURE2D_HEIGHT", 44);            // MaxTexture2DHeight
        t.put("MAXIMUM_TEXTURE3D_WIDTH", 49);             // MaxTexture3DWidth
        t.put("MAXIMUM_TEXTURE3D_HEIGHT", 50);            // MaxTexture3DHeight
        t.put("MAXIMUM_TEXTURE3D_DEPTH", 51);             // MaxTexture3DDepth
        t.put("MAX_THREADS_PER_BLOCK", 56);               // MaxThreadsPerBlock
        t.put("MAX_THREADS_PER_MULTIPROCESSOR", 57);      // MaxThreadsPerMultiProcessor
        t.put("MAX_PITCH", 58);                           // MaxPitch
        t.put("GLOBAL_MEMORY_BUS_WIDTH", 59);             // MemoryBusWidth (bits)
        t.put("MEMORY_CLOCK_RATE", 60);                   // MemoryClockRate (kHz)
        t.put("MULTI_GPU_BOARD_GROUP_ID", 62);            // MultiGpuBoardGroupID
        t.put("MULTIPROCESSOR_COUNT", 63);                // MultiprocessorCount (compute units)
        t.put("PAGEABLE_MEMORY_ACCESS", 65);              // PageableMemoryAccess
        t.put("PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES", 66); // PageableMemoryAccessUsesHostPageTables
        t.put("PCI_BUS_ID", 67);                          // PciBusId
        t.put("PCI_DEVICE_ID", 68);                       // PciDeviceId
        t.put("PCI_DOMAIN_ID", 69);                       // PciDomainID
        t.put("MAX_PERSISTING_L2_CACHE_SIZE", 70);        // PersistingL2CacheMaxSize
        t.put("MAX_REGISTERS_PER_BLOCK", 71);             // MaxRegistersPerBlock
        t.put("MAX_REGISTERS_PER_MULTIPROCESSOR", 72);    // MaxRegistersPerMultiprocessor
        t.put("RESERVED_SHARED_MEMORY_PER_BLOCK", 73);    // ReservedSharedMemPerBlock
        t.put("MAX_SHARED_MEMORY_PER_BLOCK", 74);         // MaxSharedMemoryPerBlock
        t.put("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", 75);   // SharedMemPerBlockOptin
        t.put("MAX_SHARED_MEMORY_PER_MULTIPROCESSOR", 76); // SharedMemPerMultiprocessor
        t.put("SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO", 77); // SingleToDoublePrecisionPerfRatio
        t.put("STREAM_PRIORITIES_SUPPORTED", 78);         // StreamPrioritiesSupported
        t.put("SURFACE_ALIGNMENT", 79);                   // SurfaceAlignment
        t.put("TCC_DRIVER", 80);                          // TccDriver
        t.put("TEXTURE_ALIGNMENT", 81);                   // TextureAlignment
        t.put("TEXTURE_PITCH_ALIGNMENT", 82);             // TexturePitchAlignment
        t.put("TOTAL_CONSTANT_MEMORY", 83);               // TotalConstantMemory
        t.put("UNIFIED_ADDRESSING", 85);                  // UnifiedAddressing
        t.put("WARP_SIZE", 87);                           // WarpSize (32 on RDNA, 64 on CDNA)
        TABLE = java.util.Collections.unmodifiableMap(t);
    }

    /**
     * hipDeviceAttribute_t values of the AMD-specific range asked when the CUDA-compatible one is refused:
     * {@code MAX_SHARED_MEMORY_PER_MULTIPROCESSOR} → 10002 {@code hipDeviceAttributeMaxSharedMemoryPerMultiprocessor}.
     */
    public static final Map<String, Integer> AMD_FALLBACK = Map.of("MAX_SHARED_MEMORY_PER_MULTIPROCESSOR", 10002);

    /**
     * Features the driver does not implement on the hip backend, reported as absent (0) so that programs take
     * their fallback paths: managed memory, mapped and registered host memory (CUDA_ERROR_NOT_SUPPORTED there),
     * cooperative and cluster launches, stream memory operations, virtual memory management, IPC.
     */
    public static final Set<String> ABSENT_ON_HIP = Set.of("MANAGED_MEMORY", "CONCURRENT_MANAGED_ACCESS",
            "DIRECT_MANAGED_MEM_ACCESS_FROM_HOST", "CAN_MAP_HOST_MEMORY", "CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM",
            "HOST_REGISTER_SUPPORTED", "COOPERATIVE_LAUNCH", "COOPERATIVE_MULTI_DEVICE_LAUNCH",
            "VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED", "CAN_USE_STREAM_MEM_OPS_V1", "HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED",
            "IPC_EVENT_SUPPORTED", "UNIFIED_FUNCTION_POINTERS", "CLUSTER_LAUNCH");

    /** {@code hipRuntimeGetVersion} of HIP 5.0: the first with this table's numbering (major × 10^7 + minor × 10^5 + patch). */
    public static final int FIRST_VERSION = 50_000_000;

    /** {@code true} when a runtime of this {@code hipRuntimeGetVersion} numbers its attributes as {@link #TABLE} does. */
    public static boolean numberingSupported(int runtimeVersion) {
        return runtimeVersion >= FIRST_VERSION;
    }
}
