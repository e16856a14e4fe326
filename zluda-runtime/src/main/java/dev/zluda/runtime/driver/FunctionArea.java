package dev.zluda.runtime.driver;

import dev.zluda.ptx.ParamInfo;
import dev.zluda.runtime.api.CudaStructs.CUlaunchAttribute;
import dev.zluda.runtime.api.CudaStructs.CUlaunchConfig;
import dev.zluda.runtime.emulator.Kernel;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
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
 * Kernels as functions (CUDA Driver API groups CUDA_EXEC, CUDA_OCCUPANCY and the CUkernel calls of CUDA_LIBRARY):
 * a CUfunction, or a CUkernel resolved to its function in the current context ({@link #function}); its attributes
 * (the backend's figures: threads, registers, shared, local and constant bytes), settable limits (dynamic shared
 * memory, carve-out, cache configuration), parameter layout (the PTX's, {@code cuFuncGetParamInfo}) and the
 * occupancy calculations over the device's attributes.
 */
final class FunctionArea {
    private final DriverState state;
    private final ModuleArea modules;
    private final LibraryArea libraries;
    private final Map<String, Integer> functionAttribute = new ConcurrentHashMap<>();
    /** Made on first use, not when the driver starts (a downcall handle costs the start-up a class). */
    private static final class Calls {
        static final MethodHandle CALL_B2DSIZE = Linker.nativeLinker().downcallHandle(
                FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    }

    FunctionArea(DriverState state, ModuleArea modules, LibraryArea libraries) {
        this.state = state;
        this.modules = modules;
        this.libraries = libraries;
        for (var m : state.enumType("CUfunction_attribute").members()) {
            functionAttribute.put(m.name().substring("CU_FUNC_ATTRIBUTE_".length()), (int) m.value());
        }
    }

    // ---------------------------------------------------------------- functions

    /** A CUfunction, or a CUkernel resolved to its function in the current context; null when unknown. */
    ModuleArea.Function function(long handle) {
        ModuleArea.Function f = modules.functions.get(handle);
        if (f != null) return f.module.unloaded ? null : f;
        LibraryArea.LibKernel k = libraries.libKernels.get(handle);
        if (k == null) return null;
        try {
            ModuleArea.Module m = libraries.libraryModule(k.library);
            return m == null ? null : m.functions.get(k.name);
        } catch (LoadFailure e) {
            return null;
        }
    }

    private int attributeValue(ModuleArea.Function f, int attrib) {
        Kernel k = f.kernel;
        String name = null;
        for (var e : functionAttribute.entrySet()) if (e.getValue() == attrib) name = e.getKey();
        if (name == null) return Integer.MIN_VALUE;
        return switch (name) {
            case "MAX_THREADS_PER_BLOCK" -> k.maxThreads();
            case "SHARED_SIZE_BYTES" -> (int) k.staticShared();
            case "CONST_SIZE_BYTES" -> f.module.code.constBytes(f.loaded);
            case "LOCAL_SIZE_BYTES" -> (int) k.localBytes();
            case "NUM_REGS" -> k.numRegs();
            case "PTX_VERSION" -> f.module.code.ptxVersion();
            case "BINARY_VERSION" -> state.attributes.major() * 10 + state.attributes.minor();
            case "CACHE_MODE_CA" -> 0;
            case "MAX_DYNAMIC_SHARED_SIZE_BYTES" -> f.maxDynamicShared;
            case "PREFERRED_SHARED_MEMORY_CARVEOUT" -> f.carveout;
            case "CLUSTER_SIZE_MUST_BE_SET" -> clusterSizeMustBeSet(f) ? 1 : 0;
            case "REQUIRED_CLUSTER_WIDTH", "REQUIRED_CLUSTER_HEIGHT", "REQUIRED_CLUSTER_DEPTH" -> {
                int i = name.endsWith("WIDTH") ? 0 : name.endsWith("HEIGHT") ? 1 : 2;
                int[] c = compiledCluster(f);
                yield c != null ? c[i] : f.requiredCluster[i];
            }
            case "NON_PORTABLE_CLUSTER_SIZE_ALLOWED" -> f.nonPortableClusterSize ? 1 : 0;
            case "CLUSTER_SCHEDULING_POLICY_PREFERENCE" -> f.clusterSchedulingPolicy;
            default -> Integer.MIN_VALUE;
        };
    }

    public int cuFuncGetAttribute(long pi, int attrib, long hfunc) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (pi == 0) return INVALID_VALUE;
        ModuleArea.Function f = function(hfunc);
        if (f == null) return INVALID_HANDLE;
        int v = attributeValue(f, attrib);
        if (v == Integer.MIN_VALUE) return INVALID_VALUE;
        putInt(pi, v);
        return SUCCESS;
    }

    public int cuFuncSetAttribute(long hfunc, int attrib, int value) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        ModuleArea.Function f = function(hfunc);
        if (f == null) return INVALID_HANDLE;
        if (attrib == functionAttribute.get("MAX_DYNAMIC_SHARED_SIZE_BYTES")) {
            long optin = state.attributes.byName().get("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN");
            if (value < 0 || value + f.kernel.staticShared() > optin) return INVALID_VALUE;
            f.maxDynamicShared = value;
            return SUCCESS;
        }
        if (attrib == functionAttribute.get("PREFERRED_SHARED_MEMORY_CARVEOUT")) {
            if (value < -1 || value > 100) return INVALID_VALUE;
            f.carveout = value;
            return SUCCESS;
        }
        String name = null;
        for (var e : functionAttribute.entrySet()) if (e.getValue() == attrib) name = e.getKey();
        if (name != null && name.startsWith("REQUIRED_CLUSTER_")) {
            // set at compile time (.reqnctapercluster): cuda.h says CUDA_ERROR_NOT_PERMITTED, an H200 answers
            // CUDA_ERROR_INVALID_VALUE (src/test/resources/coop/h200/results.tsv)
            if (compiledCluster(f) != null) return INVALID_VALUE;
            if (value < 0) return INVALID_VALUE;
            f.requiredCluster[name.endsWith("WIDTH") ? 0 : name.endsWith("HEIGHT") ? 1 : 2] = value;
            return SUCCESS;
        }
        if ("NON_PORTABLE_CLUSTER_SIZE_ALLOWED".equals(name)) {
            if (value != 0 && value != 1) return INVALID_VALUE;
            f.nonPortableClusterSize = value == 1;
            return SUCCESS;
        }
        if ("CLUSTER_SCHEDULING_POLICY_PREFERENCE".equals(name)) {
            if (value < 0 || value > 2) return INVALID_VALUE; // CUclusterSchedulingPolicy
            f.clusterSchedulingPolicy = value;
            return SUCCESS;
        }
        return INVALID_VALUE;
    }

    public int cuFuncSetCacheConfig(long hfunc, int config) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        ModuleArea.Function f = function(hfunc);
        if (f == null) return INVALID_HANDLE;
        if (config < 0 || config > 3) return INVALID_VALUE;
        f.cacheConfig = config;
        return SUCCESS;
    }

    public int cuFuncSetSharedMemConfig(long hfunc, int config) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (function(hfunc) == null) return INVALID_HANDLE;
        return config < 0 || config > 2 ? INVALID_VALUE : SUCCESS;
    }

    public int cuFuncGetModule(long hmod, long hfunc) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (hmod == 0) return INVALID_VALUE;
        ModuleArea.Function f = function(hfunc);
        if (f == null) return INVALID_HANDLE;
        putLong(hmod, f.module.handle);
        return SUCCESS;
    }

    public int cuFuncGetName(long name, long hfunc) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (name == 0) return INVALID_VALUE;
        ModuleArea.Function f = function(hfunc);
        if (f == null) return INVALID_HANDLE;
        putLong(name, f.cName.address());
        return SUCCESS;
    }

    public int cuFuncGetParamInfo(long func, long paramIndex, long paramOffset, long paramSize) {
        if (!state.initialized) return NOT_INITIALIZED;
        ModuleArea.Function f = function(func);
        if (f == null) return INVALID_HANDLE;
        List<ParamInfo> ps = f.kernel.info().params();
        if (paramIndex < 0 || paramIndex >= ps.size()) return INVALID_VALUE;
        ParamInfo p = ps.get((int) paramIndex);
        if (paramOffset != 0) putLong(paramOffset, p.offset());
        if (paramSize != 0) putLong(paramSize, p.size());
        return SUCCESS;
    }

    public int cuFuncIsLoaded(long pState, long function) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (pState == 0) return INVALID_VALUE;
        if (function(function) == null) return INVALID_HANDLE;
        putInt(pState, 1); // CU_FUNCTION_LOADING_STATE_LOADED
        return SUCCESS;
    }

    public int cuFuncLoad(long function) {
        if (!state.initialized) return NOT_INITIALIZED;
        return function(function) == null ? INVALID_HANDLE : SUCCESS;
    }

    // ---------------------------------------------------------------- clusters

    /** The cluster shape the kernel's {@code .reqnctapercluster} fixes (PTX ISA 9.0, 11.4.8; missing dimensions 1), or null. */
    static int[] compiledCluster(ModuleArea.Function f) {
        List<Long> v = f.kernel.info().directives().get(".reqnctapercluster");
        if (v == null || v.isEmpty()) return null;
        int[] c = {1, 1, 1};
        for (int i = 0; i < Math.min(3, v.size()); i++) c[i] = (int) (long) v.get(i);
        return c;
    }

    /**
     * The cluster shape every launch of the function must have: its {@code .reqnctapercluster}, else the
     * REQUIRED_CLUSTER_* attributes set at run time (all 0: none; some 0, the others not: {0, 0, 0}, which the launch
     * refuses), else null.
     */
    int[] requiredCluster(ModuleArea.Function f) {
        int[] c = compiledCluster(f);
        if (c != null) return c;
        int[] r = f.requiredCluster.clone();
        if (r[0] == 0 && r[1] == 0 && r[2] == 0) return null;
        return r[0] > 0 && r[1] > 0 && r[2] > 0 ? r : new int[3];
    }

    /** CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET: the kernel has {@code .explicitcluster} (PTX ISA 9.0, 11.4.9). */
    static boolean clusterSizeMustBeSet(ModuleArea.Function f) {
        return f.kernel.info().directives().containsKey(".explicitcluster");
    }

    // ---------------------------------------------------------------- occupancy

    /**
     * CTAs of {@code blockSize} threads using {@code smem} bytes of dynamic shared memory that fit on one
     * multiprocessor, by its thread, block and shared-memory limits (the emulator allocates no registers, so they
     * limit nothing); what a cooperative launch may have per multiprocessor.
     */
    int occupancy(ModuleArea.Function f, long blockSize, long smem) {
        Map<String, Integer> a = state.attributes.byName();
        if (blockSize <= 0 || blockSize > f.kernel.maxThreads()) return 0;
        long warps = (blockSize + 31) / 32;
        long byThreads = a.get("MAX_THREADS_PER_MULTIPROCESSOR") / (warps * 32);
        long shared = f.kernel.staticShared() + smem;
        long bySmem = shared == 0 ? Long.MAX_VALUE : a.get("MAX_SHARED_MEMORY_PER_MULTIPROCESSOR") / (shared + a.get("RESERVED_SHARED_MEMORY_PER_BLOCK"));
        return (int) Math.min(a.get("MAX_BLOCKS_PER_MULTIPROCESSOR"), Math.min(byThreads, bySmem));
    }

    public int cuOccupancyMaxActiveBlocksPerMultiprocessor(long numBlocks, long func, int blockSize, long dynamicSMemSize) {
        return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize, 0);
    }

    public int cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(long numBlocks, long func, int blockSize, long dynamicSMemSize, int flags) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (numBlocks == 0 || (flags & ~1) != 0) return INVALID_VALUE;
        ModuleArea.Function f = function(func);
        if (f == null) return INVALID_HANDLE;
        putInt(numBlocks, occupancy(f, blockSize, dynamicSMemSize));
        return SUCCESS;
    }

    public int cuOccupancyMaxPotentialBlockSize(long minGridSize, long blockSize, long func, long blockSizeToDynamicSMemSize,
                                                long dynamicSMemSize, int blockSizeLimit) {
        return cuOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize, blockSizeLimit, 0);
    }

    public int cuOccupancyMaxPotentialBlockSizeWithFlags(long minGridSize, long blockSize, long func, long blockSizeToDynamicSMemSize,
                                                         long dynamicSMemSize, int blockSizeLimit, int flags) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (minGridSize == 0 || blockSize == 0 || (flags & ~1) != 0) return INVALID_VALUE;
        ModuleArea.Function f = function(func);
        if (f == null) return INVALID_HANDLE;
        int limit = f.kernel.maxThreads();
        if (blockSizeLimit > 0) limit = Math.min(limit, blockSizeLimit);
        int bestBlock = 0, bestBlocks = 0;
        long bestThreads = -1;
        for (int b = (limit / 32) * 32; b >= 32 || (b > 0 && bestBlock == 0); b = b >= 64 ? b - 32 : (b == 32 ? Math.min(limit, 31) : 0)) {
            long smem = dynamicSMemSize;
            if (blockSizeToDynamicSMemSize != 0) {
                try {
                    smem = (long) Calls.CALL_B2DSIZE.invokeExact(MemorySegment.ofAddress(blockSizeToDynamicSMemSize), b);
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
        putInt(minGridSize, bestBlocks * state.attributes.byName().get("MULTIPROCESSOR_COUNT"));
        return SUCCESS;
    }

    /** The cluster dimensions of a CUlaunchConfig's CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION (null: none, or all 0). */
    private static int[] configCluster(long config) {
        long attrs = CUlaunchConfig.attrs(config);
        int n = CUlaunchConfig.numAttrs(config);
        int[] c = null;
        for (int i = 0; attrs != 0 && i < n; i++) {
            long at = attrs + (long) i * CUlaunchAttribute.SIZE;
            if (CUlaunchAttribute.id(at) != 4) continue;
            int x = CUlaunchAttribute.value_clusterDim_x(at), y = CUlaunchAttribute.value_clusterDim_y(at), z = CUlaunchAttribute.value_clusterDim_z(at);
            c = x == 0 && y == 0 && z == 0 ? null : new int[] {x, y, z};
        }
        return c;
    }

    private int clusterCheck(long out, long func, long config) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (out == 0 || config == 0) return INVALID_VALUE;
        if (function(func) == null) return INVALID_HANDLE;
        return state.attributes.byName().get("CLUSTER_LAUNCH") == 0 ? NOT_SUPPORTED : SUCCESS;
    }

    /** CTAs of the config's block shape and dynamic shared memory resident on the whole device. */
    private long resident(ModuleArea.Function f, long config) {
        long threads = (long) CUlaunchConfig.blockDimX(config) * CUlaunchConfig.blockDimY(config) * CUlaunchConfig.blockDimZ(config);
        return (long) occupancy(f, threads, Integer.toUnsignedLong(CUlaunchConfig.sharedMemBytes(config)))
                * state.attributes.byName().get("MULTIPROCESSOR_COUNT");
    }

    /**
     * cuOccupancyMaxPotentialClusterSize: the kernel's required cluster size when it has one, else the largest portable
     * size (8; 16 with CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED), at most the CTAs of the config's shape
     * resident on the device; the config's cluster dimensions are ignored. Compute capability 9.0 or newer, else
     * CUDA_ERROR_NOT_SUPPORTED.
     */
    public int cuOccupancyMaxPotentialClusterSize(long clusterSize, long func, long config) {
        int r = clusterCheck(clusterSize, func, config);
        if (r != SUCCESS) return r;
        ModuleArea.Function f = function(func);
        int[] req = requiredCluster(f);
        long size = req != null ? (long) req[0] * req[1] * req[2] : f.nonPortableClusterSize ? 16 : 8;
        putInt(clusterSize, (int) Math.min(size, resident(f, config)));
        return SUCCESS;
    }

    /**
     * cuOccupancyMaxActiveClusters: how many clusters of the config's shape (its cluster dimensions, or the kernel's
     * required ones; CUDA_ERROR_INVALID_CLUSTER_SIZE when neither or both differ) are resident on the device at once:
     * the resident CTAs (occupancy × multiprocessors) divided by the cluster size. Compute capability 9.0 or newer.
     */
    public int cuOccupancyMaxActiveClusters(long numClusters, long func, long config) {
        int r = clusterCheck(numClusters, func, config);
        if (r != SUCCESS) return r;
        ModuleArea.Function f = function(func);
        int[] req = requiredCluster(f), given = configCluster(config);
        if (req != null && given != null && !java.util.Arrays.equals(req, given)) return LaunchArea.INVALID_CLUSTER_SIZE;
        int[] c = req != null ? req : given;
        if (c == null || c[0] <= 0 || c[1] <= 0 || c[2] <= 0) return LaunchArea.INVALID_CLUSTER_SIZE;
        long size = (long) c[0] * c[1] * c[2];
        if (size > (f.nonPortableClusterSize ? 16 : 8)) return LaunchArea.INVALID_CLUSTER_SIZE;
        putInt(numClusters, (int) (resident(f, config) / size));
        return SUCCESS;
    }

    public int cuOccupancyAvailableDynamicSMemPerBlock(long dynamicSmemSize, long func, int numBlocks, int blockSize) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (dynamicSmemSize == 0 || numBlocks <= 0 || blockSize <= 0) return INVALID_VALUE;
        ModuleArea.Function f = function(func);
        if (f == null) return INVALID_HANDLE;
        Map<String, Integer> a = state.attributes.byName();
        long perBlock = a.get("MAX_SHARED_MEMORY_PER_MULTIPROCESSOR") / numBlocks - a.get("RESERVED_SHARED_MEMORY_PER_BLOCK") - f.kernel.staticShared();
        putLong(dynamicSmemSize, Math.max(0, Math.min(perBlock, f.maxDynamicShared)));
        return SUCCESS;
    }

    public int cuKernelGetParamInfo(long kernel, long paramIndex, long paramOffset, long paramSize) {
        if (libraries.libKernels.get(kernel) == null) return state.initialized ? INVALID_HANDLE : NOT_INITIALIZED;
        return cuFuncGetParamInfo(kernel, paramIndex, paramOffset, paramSize);
    }

    public int cuKernelGetAttribute(long pi, int attrib, long kernel, int dev) {
        int r = state.checkDevice(dev);
        if (r != SUCCESS) return r;
        if (libraries.libKernels.get(kernel) == null) return INVALID_HANDLE;
        return cuFuncGetAttribute(pi, attrib, kernel);
    }

    public int cuKernelSetAttribute(int attrib, int val, long kernel, int dev) {
        int r = state.checkDevice(dev);
        if (r != SUCCESS) return r;
        if (libraries.libKernels.get(kernel) == null) return INVALID_HANDLE;
        return cuFuncSetAttribute(kernel, attrib, val);
    }

    public int cuKernelSetCacheConfig(long kernel, int config, int dev) {
        int r = state.checkDevice(dev);
        if (r != SUCCESS) return r;
        if (libraries.libKernels.get(kernel) == null) return INVALID_HANDLE;
        return cuFuncSetCacheConfig(kernel, config);
    }
}
