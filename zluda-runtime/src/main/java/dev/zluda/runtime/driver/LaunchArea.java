package dev.zluda.runtime.driver;

import dev.zluda.image.UserMemory;
import dev.zluda.ptx.ParamInfo;
import dev.zluda.runtime.backend.Backend;
import dev.zluda.runtime.emulator.DeviceHeap;
import dev.zluda.runtime.emulator.MemoryMap;
import dev.zluda.runtime.api.CudaStructs.CUlaunchAttribute;
import dev.zluda.runtime.api.CudaStructs.CUDA_LAUNCH_PARAMS;
import dev.zluda.runtime.api.CudaStructs.CUlaunchConfig;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
 * Kernel launches (CUDA Driver API group CUDA_EXEC): {@code cuLaunchKernel}, {@code cuLaunchKernelEx} and the
 * legacy launch API ({@code cuFuncSetBlockShape}, {@code cuParamSet*}, {@code cuLaunch}, {@code cuLaunchGrid}).
 *
 * <p>The shape is checked against the device and the function (CUDA_ERROR_INVALID_VALUE for a zero or too large
 * dimension, too many threads, too much shared memory, missing or conflicting parameters; CUDA_ERROR_INVALID_HANDLE
 * for an unknown function), the parameters are packed at their PTX offsets, and the backend runs the kernel
 * ({@link Backend#launch}). On the emulator it runs to completion before {@code cuLaunchKernel} returns; a kernel
 * that fails (an access outside every allocation, a misaligned access, {@code trap}, a failed device assertion)
 * makes the launch itself succeed, as on NVIDIA hardware, prints {@code [ZLUDA] kernel ...: CTA, thread, PTX line,
 * address} on stderr and leaves the error sticky on the context ({@link Context#fault}): every later call that
 * checks the context returns it, until the context is destroyed or, for a primary context, reset. On the hip
 * backend the launch is enqueued on the stream's HIP stream and a fault shows at the next synchronisation, as HIP
 * reports it.
 */
final class LaunchArea {
    /** CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES. */
    static final int ERROR_LAUNCH_OUT_OF_RESOURCES = 701;
    /** {@code CU_LAUNCH_PARAM_END}, {@code CU_LAUNCH_PARAM_BUFFER_POINTER}, {@code CU_LAUNCH_PARAM_BUFFER_SIZE} (cuda.h). */
    static final long LAUNCH_PARAM_END = 0, LAUNCH_PARAM_BUFFER_POINTER = 1, LAUNCH_PARAM_BUFFER_SIZE = 2;

    private final DriverState state;
    private final MemoryArea memory;
    private final StreamArea streams;
    private final EventArea events;
    private final FunctionArea functions;
    private final MemoryMap memoryMap = this::findForKernel;

    private final StreamCapture capture;

    LaunchArea(DriverState state, MemoryArea memory, StreamArea streams, EventArea events, FunctionArea functions, StreamCapture capture) {
        this.capture = capture;
        this.state = state;
        this.memory = memory;
        this.streams = streams;
        this.events = events;
        this.functions = functions;
        // the heap of device-side malloc: zeroed memory from the C heap, made when a kernel first allocates and
        // registered so that kernels may touch it (cuMemFree refuses it: it is no cuMemAlloc allocation)
        DeviceHeap.install(bytes -> {
            dev.zluda.runtime.backend.HostMemory.Block b = dev.zluda.runtime.backend.HostMemory.allocateZeroed(bytes, 256);
            if (b == null) return 0;
            memory.register(Allocation.Kind.VIRTUAL, b.address, bytes, null, 0);
            return b.address;
        });
    }

    /** CU_LIMIT_MALLOC_HEAP_SIZE. */
    private static final int LIMIT_MALLOC_HEAP_SIZE = 2;

    private boolean findForKernel(long address, long[] out) {
        var e = memory.allocations().floorEntry(address);
        if (e == null || !e.getValue().contains(address, 1)) return false;
        out[0] = e.getValue().address;
        out[1] = e.getValue().size;
        return true;
    }

    /** Each thread's stack for the emulator: the current context's CU_LIMIT_STACK_SIZE (limit 0). */
    private long stackLimit() {
        Context c = state.current();
        return c == null ? dev.zluda.runtime.emulator.Emulator.DEFAULT_STACK_BYTES : c.limit(0);
    }

    /** The allocations the parameter buffer's aligned 8-byte words point into, each once, in order of first mention. */
    private List<LaunchObserver.Region> pointedTo(byte[] params) {
        Map<Long, LaunchObserver.Region> found = new LinkedHashMap<>();
        MemorySegment s = MemorySegment.ofArray(params);
        for (long off = 0; off + 8 <= params.length; off += 8) {
            long v = s.get(ValueLayout.JAVA_LONG_UNALIGNED, off);
            if (v == 0) continue;
            var e = memory.allocations().floorEntry(v);
            if (e == null || !e.getValue().contains(v, 1)) continue;
            Allocation a = e.getValue();
            found.putIfAbsent(a.address, new LaunchObserver.Region(a.address, a.size));
        }
        return List.copyOf(found.values());
    }

    // ---------------------------------------------------------------- launches

    /** The per-CTA shared memory a function may use with its current attributes. */
    private long sharedLimit(ModuleArea.Function f) {
        return f.kernel.staticShared() + f.maxDynamicShared;
    }

    /**
     * A launch checked against the device and the function, its parameters packed at their PTX offsets: what a
     * launch runs, and what a graph's kernel node holds.
     *
     * @param f the CUfunction or CUkernel handle the program gave
     * @param fn the function it names
     * @param grid grid dimensions in blocks (x, y, z)
     * @param block block dimensions in threads (x, y, z)
     * @param shared dynamic shared memory per block, bytes
     * @param params the packed parameter buffer (the PTX parameter layout)
     * @param fromKernelParams whether it was packed from {@code kernelParams} (else it is the {@code extra} buffer)
     * @param grouping how the launch groups its CTAs ({@link #grouping}: cooperative, clusters, or neither)
     */
    record Packed(long f, ModuleArea.Function fn, long[] grid, long[] block, long shared, byte[] params, boolean fromKernelParams,
                  dev.zluda.runtime.emulator.Emulator.Grouping grouping) {}

    /**
     * Checks a launch's function, shape and parameters and packs them, without running anything. Grid and block
     * dimensions are unsigned; CUDA's rules (cuLaunchKernel): every dimension ≥ 1; block ≤ MAX_BLOCK_DIM_{X,Y,Z}
     * and ≤ the function's MAX_THREADS_PER_BLOCK in total; grid ≤ MAX_GRID_DIM_{X,Y,Z}; static + dynamic shared
     * memory within the function's limit; exactly one of kernelParams and extra for a kernel with parameters —
     * otherwise CUDA_ERROR_INVALID_VALUE; CUDA_ERROR_INVALID_HANDLE for an unknown function or one of another
     * context.
     *
     * @param out receives the packed launch on CUDA_SUCCESS
     */
    int pack(long f, long gx, long gy, long gz, long bx, long by, long bz, long shared, long kernelParams, long extra, Packed[] out) {
        return pack(f, gx, gy, gz, bx, by, bz, shared, kernelParams, extra, false, null, out);
    }

    /**
     * {@link #pack(long, long, long, long, long, long, long, long, long, long, Packed[])} of a cooperative launch
     * and/or one with cluster dimensions from a launch attribute ({@code clusterAttr}, null without one): see
     * {@link #grouping}, whose CUresult it returns when it refuses the grouping.
     */
    int pack(long f, long gx, long gy, long gz, long bx, long by, long bz, long shared, long kernelParams, long extra,
             boolean cooperative, int[] clusterAttr, Packed[] out) {
        ModuleArea.Function fn = functions.function(f);
        if (fn == null) return INVALID_HANDLE;
        // a function of another context: CUDA_ERROR_INVALID_HANDLE, as recorded on the H200
        // (samples/traces/h200/misuse, wrong_ctx_launch)
        if (fn.module.context != state.current()) return INVALID_HANDLE;
        Map<String, Integer> a = state.attributes.byName();
        if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0) return INVALID_VALUE;
        if (gx > a.get("MAX_GRID_DIM_X") || gy > a.get("MAX_GRID_DIM_Y") || gz > a.get("MAX_GRID_DIM_Z")) return INVALID_VALUE;
        if (bx > a.get("MAX_BLOCK_DIM_X") || by > a.get("MAX_BLOCK_DIM_Y") || bz > a.get("MAX_BLOCK_DIM_Z")) return INVALID_VALUE;
        long threads = bx * by * bz;
        if (threads > a.get("MAX_THREADS_PER_BLOCK") || threads > fn.kernel.maxThreads()) return INVALID_VALUE;
        int[] req = fn.kernel.reqntid();
        if (req != null && (bx != req[0] || by != req[1] || bz != req[2])) return INVALID_VALUE;
        if (fn.kernel.staticShared() + shared > sharedLimit(fn)) return INVALID_VALUE;
        Object grouping = grouping(fn, new long[] {gx, gy, gz}, threads, shared, cooperative, clusterAttr);
        if (grouping instanceof Integer error) return error;
        long paramBytes = fn.kernel.paramBytes();
        byte[] buffer = new byte[(int) paramBytes];
        MemorySegment params = MemorySegment.ofArray(buffer);
        if (kernelParams != 0 && extra != 0) return INVALID_VALUE;
        // every pointer the program passes is probed before it is read (UserMemory): an array shorter than the
        // kernel's parameters that ends before unmapped memory, or a parameter pointer into no mapping, is
        // CUDA_ERROR_INVALID_VALUE where NVIDIA's driver faults (docs/support.md, "Driver API misuse")
        if (kernelParams != 0) {
            List<ParamInfo> ps = fn.kernel.info().params();
            if (!UserMemory.readable(kernelParams, 8L * ps.size())) return INVALID_VALUE;
            for (ParamInfo p : ps) {
                long ptr = getLong(kernelParams + 8L * p.index());
                if (ptr == 0 || !UserMemory.readable(ptr, p.size())) return INVALID_VALUE;
                MemorySegment.copy(at(ptr, p.size()), 0, params, p.offset(), p.size());
            }
        } else if (extra != 0) {
            long bufferPtr = 0, sizePtr = 0;
            for (int i = 0; ; i += 2) {
                if (i > 64) return INVALID_VALUE;
                if (!UserMemory.readable(extra + 8L * i, 8)) return INVALID_VALUE;
                long key = getLong(extra + 8L * i);
                if (key == LAUNCH_PARAM_END) break;
                if (!UserMemory.readable(extra + 8L * (i + 1), 8)) return INVALID_VALUE;
                long value = getLong(extra + 8L * (i + 1));
                if (key == LAUNCH_PARAM_BUFFER_POINTER) bufferPtr = value;
                else if (key == LAUNCH_PARAM_BUFFER_SIZE) sizePtr = value;
                else return INVALID_VALUE;
            }
            if (paramBytes > 0) {
                if (bufferPtr == 0 || sizePtr == 0 || !UserMemory.readable(sizePtr, 8)) return INVALID_VALUE;
                long size = getLong(sizePtr);
                // a buffer smaller than the kernel's parameters launches, as on the H200 (samples/traces/h200/misuse,
                // extra_buffer_too_small): zluda reads only the bytes the program declared, the rest are zero
                long n = Long.compareUnsigned(size, paramBytes) < 0 ? size : paramBytes;
                if (!UserMemory.readable(bufferPtr, n)) return INVALID_VALUE;
                if (n > 0) MemorySegment.copy(at(bufferPtr, n), 0, params, 0, n);
            }
        } else if (paramBytes > 0) {
            return INVALID_VALUE;
        }
        out[0] = new Packed(f, fn, new long[] {gx, gy, gz}, new long[] {bx, by, bz}, shared, buffer, kernelParams != 0,
                (dev.zluda.runtime.emulator.Emulator.Grouping) grouping);
        return SUCCESS;
    }

    /**
     * Validates a launch and runs it ({@link #pack}, then {@link #run}); on a capturing stream it becomes a kernel
     * node of the capture's graph instead ({@link StreamCapture}).
     */
    private int launch(long f, long gx, long gy, long gz, long bx, long by, long bz, long shared, long hStream, long kernelParams,
                       long extra) {
        return launch(f, gx, gy, gz, bx, by, bz, shared, hStream, kernelParams, extra, false, null);
    }

    /**
     * {@link #launch(long, long, long, long, long, long, long, long, long, long, long)} as a cooperative launch
     * and/or with cluster dimensions from a launch attribute ({@code clusterAttr}, null without one): see
     * {@link #grouping}.
     */
    private int launch(long f, long gx, long gy, long gz, long bx, long by, long bz, long shared, long hStream, long kernelParams,
                       long extra, boolean cooperative, int[] clusterAttr) {
        int r = streams.checkStream(hStream);
        if (r != SUCCESS) return r;
        ModuleArea.Function fn = functions.function(f);
        if (fn == null) return INVALID_HANDLE;
        // a function or a stream of another context: CUDA_ERROR_INVALID_HANDLE, as recorded on the H200
        // (samples/traces/h200/misuse, wrong_ctx_launch, wrong_ctx_stream_launch)
        Context current = state.current();
        if (fn.module.context != current || streams.contextOf(hStream) != current) return INVALID_HANDLE;
        Packed[] p = new Packed[1];
        r = pack(f, gx, gy, gz, bx, by, bz, shared, kernelParams, extra, cooperative, clusterAttr, p);
        if (r != SUCCESS) return r;
        if (capture.capturing(hStream)) return capture.add(hStream, new Graph.Kernel(p[0], 0));
        return run(p[0], hStream, true);
    }

    /**
     * What a kernel snapshot sees of a packed launch: function, name, module PTX, shape, parameters, the
     * allocations the parameters point into now, and a reader of device memory.
     */
    LaunchObserver.KernelLaunch describe(Packed p) {
        return new LaunchObserver.KernelLaunch(p.f(), p.fn().kernel.name(), p.fn().module.ptx, p.grid().clone(), p.block().clone(), p.shared(),
                p.params().clone(), pointedTo(p.params()), this::read);
    }

    /**
     * Runs a packed launch on a stream whose handle was checked. A kernel fault becomes the current context's
     * sticky error (the launch itself succeeds).
     *
     * @param observe whether the call's {@link LaunchObserver} snapshots this launch (a graph launch takes its
     *     snapshots around the whole graph, {@link GraphExecArea})
     */
    int run(Packed p, long hStream, boolean observe) {
        Backend b = state.backend();
        Context ctx = state.current();
        if (ctx != null) DeviceHeap.requestSize(ctx.limit(LIMIT_MALLOC_HEAP_SIZE));
        long stream = streams.nativeStream(hStream);
        int[] grid = {(int) p.grid()[0], (int) p.grid()[1], (int) p.grid()[2]}, block = {(int) p.block()[0], (int) p.block()[1], (int) p.block()[2]};
        LaunchObserver obs = observe ? state.launchObserver() : null;
        LaunchObserver.KernelLaunch seen = null;
        Object token = null;
        if (obs != null) {
            try {
                if (obs.wants(p.fn().kernel.name())) {
                    // on an asynchronous backend the before-images are read once the stream's earlier work is done
                    if (!b.synchronous()) b.synchronizeStream(stream);
                    seen = describe(p);
                    token = obs.before(seen);
                }
            } catch (RuntimeException e) {
                seen = null; // a failing observer never stops the launch
            }
        }
        Backend.LaunchOutcome out = b.launch(new Backend.LaunchRequest(p.fn().loaded, grid, block, (int) p.shared(), stream, p.params(),
                p.fromKernelParams(), memoryMap, state.attributes.byName().get("MULTIPROCESSOR_COUNT"), stackLimit(), p.grouping()));
        if (state.wantsEvents() && out.event() != null) state.event(out.event().get());
        if (out.result() != SUCCESS) return out.result();
        if (out.kernelError() != SUCCESS) {
            System.err.println("[ZLUDA] " + out.message());
            String source = PtxSourceLine.forFault(p.fn().module.ptx, out.message());
            if (source != null) System.err.println("[ZLUDA]   " + source);
            ModuleArea.untracedHint(out.message());
            state.current().fault(out.kernelError());
            state.contextsChanged();
        }
        if (seen != null) {
            // a snapshotted launch on an asynchronous backend waits for the kernel: its result is the wait's
            int result = b.synchronous() ? out.kernelError() : b.synchronizeStream(stream);
            try {
                obs.after(token, seen, result);
            } catch (RuntimeException e) {
                // the observer's failure is its own
            }
        }
        return SUCCESS;
    }

    /** CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, CUDA_ERROR_INVALID_CLUSTER_SIZE. */
    static final int COOPERATIVE_LAUNCH_TOO_LARGE = 720, INVALID_CLUSTER_SIZE = 912;

    /**
     * How a launch groups its CTAs, or the CUresult that refuses it (an {@code Integer}).
     *
     * <p>Clusters (CUDA Programming Guide, "Thread Block Clusters"; cuda.h, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_*): the
     * shape comes from the launch's CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION ({@code clusterAttr}) or from the kernel
     * (its {@code .reqnctapercluster}, or the REQUIRED_CLUSTER_* attributes set at run time); a kernel with
     * {@code .explicitcluster} (CLUSTER_SIZE_MUST_BE_SET) needs one. CUDA_ERROR_INVALID_CLUSTER_SIZE when the two
     * disagree, when none is given to a kernel that must have one, when a dimension is 0 or does not divide the grid's,
     * or when a cluster has more than 8 CTAs (16 with CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED).
     * Below compute capability 9.0 a cluster shape is CUDA_ERROR_NOT_SUPPORTED, with a line on stderr.
     *
     * <p>Cooperative launches (cuLaunchCooperativeKernel): at most cuOccupancyMaxActiveBlocksPerMultiprocessor ×
     * MULTIPROCESSOR_COUNT CTAs, else CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE. A backend that runs neither (hip) makes
     * either CUDA_ERROR_NOT_SUPPORTED. A plain launch of a kernel that reads the grid workspace (grid.sync()) runs
     * as a cooperative one when its grid fits, as it synchronises on an H200.
     */
    private Object grouping(ModuleArea.Function fn, long[] grid, long threads, long shared, boolean cooperativeLaunch, int[] clusterAttr) {
        boolean cooperative = cooperativeLaunch;
        int[] compiled = functions.requiredCluster(fn);
        int[] dims = clusterAttr != null ? clusterAttr : compiled;
        if (clusterAttr != null && compiled != null && !java.util.Arrays.equals(clusterAttr, compiled)) return INVALID_CLUSTER_SIZE;
        if (dims == null && functions.clusterSizeMustBeSet(fn)) return INVALID_CLUSTER_SIZE;
        Backend b = state.backend();
        if ((dims != null || cooperative) && !b.supportsGroupedLaunches()) {
            System.err.println("[ZLUDA] kernel " + fn.kernel.name() + ": " + (cooperative ? "cooperative" : "cluster")
                    + " launches are not supported by the " + b.kind() + " backend");
            return NOT_SUPPORTED;
        }
        if (dims != null) {
            if (state.attributes.get(CLUSTER_LAUNCH_ATTRIBUTE) == 0) {
                System.err.println("[ZLUDA] kernel " + fn.kernel.name() + ": thread-block clusters need compute capability 9.0 or newer; the device reports "
                        + state.attributes.major() + "." + state.attributes.minor() + " (ZLUDA_OVERRIDE_COMPUTE_CAPABILITY=9.0 selects 9.0)");
                return NOT_SUPPORTED;
            }
            long size = 1;
            for (int i = 0; i < 3; i++) {
                if (dims[i] <= 0 || grid[i] % dims[i] != 0) return INVALID_CLUSTER_SIZE;
                size *= dims[i];
            }
            if (size > (fn.nonPortableClusterSize ? 16 : 8)) return INVALID_CLUSTER_SIZE;
        }
        long resident = (long) functions.occupancy(fn, threads, shared) * state.attributes.byName().get("MULTIPROCESSOR_COUNT");
        long ctas = grid[0] * grid[1] * grid[2];
        if (cooperative && ctas > resident) return COOPERATIVE_LAUNCH_TOO_LARGE;
        if (!cooperative && b.supportsGroupedLaunches() && fn.kernel.readsGridWorkspace()) {
            // grid.sync() in a plain launch: NVIDIA's driver gives the kernel its grid workspace all the same, and a grid
            // the device keeps resident synchronises (an H200 runs it); the emulator makes such a grid resident. A larger
            // one gets none, so cooperative_groups traps rather than wait for CTAs that cannot run.
            if (ctas <= resident) {
                cooperative = true;
            } else {
                state.note("kernel " + fn.kernel.name() + " uses a grid-wide barrier (cooperative_groups grid_group) in a plain launch of "
                        + ctas + " CTAs, more than the " + resident + " the device keeps resident: no grid workspace is given, so grid.sync() traps;"
                        + " cuLaunchCooperativeKernel says CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE for such a grid");
            }
        }
        if (dims == null && !cooperative) return dev.zluda.runtime.emulator.Emulator.Grouping.NONE;
        return new dev.zluda.runtime.emulator.Emulator.Grouping(cooperative, dims == null ? new int[] {1, 1, 1} : dims.clone(), dims != null);
    }

    /** CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH. */
    private static final int CLUSTER_LAUNCH_ATTRIBUTE = 120;

    /** The bytes of a region a launch's parameters point into, read through the backend (kernel snapshots). */
    private byte[] read(long address, long size) {
        try {
            return state.backend().read(address, size, memory.onDevice(address, size));
        } catch (dev.zluda.runtime.backend.BackendException e) {
            throw new IllegalStateException("cannot read " + size + " bytes at 0x" + Long.toHexString(address) + ": " + e.getMessage(), e);
        }
    }

    private static long u(int v) {
        return Integer.toUnsignedLong(v);
    }

    public int cuLaunchKernel(long f, int gridDimX, int gridDimY, int gridDimZ, int blockDimX, int blockDimY, int blockDimZ,
                              int sharedMemBytes, long hStream, long kernelParams, long extra) {
        return launch(f, u(gridDimX), u(gridDimY), u(gridDimZ), u(blockDimX), u(blockDimY), u(blockDimZ), u(sharedMemBytes), hStream,
                kernelParams, extra);
    }

    /**
     * cuLaunchCooperativeKernel: a launch whose CTAs are all resident at once, so that they can synchronise grid-wide
     * (cooperative_groups' {@code grid_group::sync}); parameters only through {@code kernelParams}. Checks as
     * cuLaunchKernel's, then those of {@link #grouping} (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE).
     */
    public int cuLaunchCooperativeKernel(long f, int gridDimX, int gridDimY, int gridDimZ, int blockDimX, int blockDimY, int blockDimZ,
                                         int sharedMemBytes, long hStream, long kernelParams) {
        return launch(f, u(gridDimX), u(gridDimY), u(gridDimZ), u(blockDimX), u(blockDimY), u(blockDimZ), u(sharedMemBytes), hStream,
                kernelParams, 0, true, null);
    }

    /** CUDA_COOPERATIVE_LAUNCH_MULTI_DEVICE_NO_PRE_LAUNCH_SYNC | _NO_POST_LAUNCH_SYNC: the flags there are. */
    static final int MULTI_DEVICE_FLAGS = 0x3;

    /**
     * cuLaunchCooperativeKernelMultiDevice (deprecated in cuda.h) on the one device there is: the list must hold exactly
     * one CUDA_LAUNCH_PARAMS, which launches as {@link #cuLaunchCooperativeKernel} does on its stream. The answers an
     * H200 gave (src/test/resources/coop/h200/multidevice.tsv): no list, 0 devices, more devices than there are (the
     * same device twice) or an unknown flag bit: CUDA_ERROR_INVALID_VALUE; the NULL stream, CU_STREAM_LEGACY,
     * CU_STREAM_PER_THREAD or no function: CUDA_ERROR_INVALID_HANDLE; a grid past the resident limit:
     * CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE; a zero grid or an oversized block: CUDA_ERROR_INVALID_VALUE. The sync
     * flags change nothing here: the work of a stream is done when its call returns.
     *
     * @param launchParamsList numDevices CUDA_LAUNCH_PARAMS records
     * @param numDevices       1 (the device count)
     * @param flags            CUDA_COOPERATIVE_LAUNCH_MULTI_DEVICE_NO_PRE_LAUNCH_SYNC (1), _NO_POST_LAUNCH_SYNC (2)
     */
    public int cuLaunchCooperativeKernelMultiDevice(long launchParamsList, int numDevices, int flags) {
        if (!state.initialized) return NOT_INITIALIZED;
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        if (launchParamsList == 0 || numDevices != 1 || (flags & ~MULTI_DEVICE_FLAGS) != 0) return INVALID_VALUE;
        long lp = launchParamsList;
        if (!UserMemory.readable(lp, CUDA_LAUNCH_PARAMS.SIZE)) return INVALID_VALUE;
        long f = CUDA_LAUNCH_PARAMS.function(lp), hStream = CUDA_LAUNCH_PARAMS.hStream(lp);
        if (f == 0 || hStream == 0 || hStream == StreamArea.CU_STREAM_LEGACY || hStream == StreamArea.CU_STREAM_PER_THREAD) return INVALID_HANDLE;
        return launch(f, u(CUDA_LAUNCH_PARAMS.gridDimX(lp)), u(CUDA_LAUNCH_PARAMS.gridDimY(lp)), u(CUDA_LAUNCH_PARAMS.gridDimZ(lp)),
                u(CUDA_LAUNCH_PARAMS.blockDimX(lp)), u(CUDA_LAUNCH_PARAMS.blockDimY(lp)), u(CUDA_LAUNCH_PARAMS.blockDimZ(lp)),
                u(CUDA_LAUNCH_PARAMS.sharedMemBytes(lp)), hStream, CUDA_LAUNCH_PARAMS.kernelParams(lp), 0, true, null);
    }

    /**
     * cuLaunchKernelEx: the CUlaunchConfig record as the spec lays it out. Attributes: a nonzero cooperative value makes
     * a cooperative launch and cluster dimensions (all 0: none) a cluster launch ({@link #grouping}); a
     * launch-completion or programmatic event is recorded when the kernel has run; an access policy window is checked
     * as cuStreamSetAttribute checks one (CUDA_ERROR_INVALID_VALUE) and, like priority, synchronisation policy, memory
     * sync domains, carve-out, preferred cluster dimensions (the regular clusters are always used, as the device may)
     * and scheduling hints, has no effect; an unknown attribute id is CUDA_ERROR_INVALID_VALUE.
     */
    public int cuLaunchKernelEx(long config, long f, long kernelParams, long extra) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (config == 0 || !UserMemory.readable(config, CUlaunchConfig.SIZE)) return INVALID_VALUE;
        long attrs = CUlaunchConfig.attrs(config);
        long numAttrs = Integer.toUnsignedLong(CUlaunchConfig.numAttrs(config));
        if (numAttrs > 0 && (attrs == 0 || !UserMemory.readable(attrs, numAttrs * CUlaunchAttribute.SIZE))) return INVALID_VALUE;
        List<Long> completion = new ArrayList<>();
        boolean cooperative = false;
        int[] cluster = null;
        for (long i = 0; i < numAttrs; i++) {
            long at = attrs + i * CUlaunchAttribute.SIZE;
            switch (CUlaunchAttribute.id(at)) {
                case 0, 3, 5, 6, 8, 9, 10, 11, 13, 14, 16 -> {}
                case 1 -> {
                    // the value union starts 8 bytes into the attribute, as CUstreamAttrValue's access policy window
                    if (!StreamArea.validAccessPolicyWindow(state, at + CUlaunchAttribute.OFF_value)) return INVALID_VALUE;
                }
                case 2 -> cooperative = CUlaunchAttribute.value_cooperative(at) != 0;
                case 4 -> {
                    int x = CUlaunchAttribute.value_clusterDim_x(at), y = CUlaunchAttribute.value_clusterDim_y(at),
                            z = CUlaunchAttribute.value_clusterDim_z(at);
                    cluster = x == 0 && y == 0 && z == 0 ? null : new int[] {x, y, z};
                }
                // programmatic event, launch completion event: the event is the union's first member
                case 7 -> completion.add(CUlaunchAttribute.value_programmaticEvent_event(at));
                case 12 -> completion.add(CUlaunchAttribute.value_launchCompletionEvent_event(at));
                default -> {
                    return INVALID_VALUE;
                }
            }
        }
        long stream = CUlaunchConfig.hStream(config);
        int r = launch(f, u(CUlaunchConfig.gridDimX(config)), u(CUlaunchConfig.gridDimY(config)), u(CUlaunchConfig.gridDimZ(config)),
                u(CUlaunchConfig.blockDimX(config)), u(CUlaunchConfig.blockDimY(config)), u(CUlaunchConfig.blockDimZ(config)),
                u(CUlaunchConfig.sharedMemBytes(config)), stream, kernelParams, extra, cooperative, cluster);
        if (r == SUCCESS) for (long e : completion) if (e != 0) events.cuEventRecord(e, stream);
        return r;
    }

    // ---------------------------------------------------------------- legacy launch API (deprecated in cuda.h)

    /** Block shape, shared memory and parameter bytes set with cuFuncSetBlockShape / cuParamSet*. */
    private static final class LegacyLaunch {
        int bx = 1, by = 1, bz = 1, shared;
        byte[] params = new byte[0];
    }

    private final Map<Long, LegacyLaunch> legacy = new ConcurrentHashMap<>();

    /** The legacy state of a valid function (CUfunction or CUkernel), or null for a bad handle. */
    private LegacyLaunch legacy(long f) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(4);
            if (functions.cuFuncGetAttribute(v.address(), 0, f) != SUCCESS) return null; // MAX_THREADS_PER_BLOCK: validates f
        }
        return legacy.computeIfAbsent(f, k -> new LegacyLaunch());
    }

    /** cuFuncSetBlockShape: the block of later cuLaunch/cuLaunchGrid calls; each dimension ≥ 1. */
    public int cuFuncSetBlockShape(long hfunc, int x, int y, int z) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        LegacyLaunch l = legacy(hfunc);
        if (l == null) return INVALID_HANDLE;
        if (x < 1 || y < 1 || z < 1) return INVALID_VALUE;
        l.bx = x;
        l.by = y;
        l.bz = z;
        return SUCCESS;
    }

    /** cuFuncSetSharedSize: dynamic shared memory bytes of later legacy launches. */
    public int cuFuncSetSharedSize(long hfunc, int bytes) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        LegacyLaunch l = legacy(hfunc);
        if (l == null) return INVALID_HANDLE;
        if (bytes < 0) return INVALID_VALUE;
        l.shared = bytes;
        return SUCCESS;
    }

    /** cuParamSetSize: the size in bytes of the parameter buffer, at most 32764 (the kernel parameter limit since CUDA 12.1). */
    public int cuParamSetSize(long hfunc, int numbytes) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        LegacyLaunch l = legacy(hfunc);
        if (l == null) return INVALID_HANDLE;
        if (numbytes < 0 || numbytes > 32764) return INVALID_VALUE;
        l.params = java.util.Arrays.copyOf(l.params, numbytes);
        return SUCCESS;
    }

    private int setParam(long hfunc, int offset, byte[] bytes) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        LegacyLaunch l = legacy(hfunc);
        if (l == null) return INVALID_HANDLE;
        if (offset < 0 || (long) offset + bytes.length > l.params.length) return INVALID_VALUE;
        System.arraycopy(bytes, 0, l.params, offset, bytes.length);
        return SUCCESS;
    }

    /** cuParamSeti: a 32-bit integer at a byte offset of the parameter buffer (inside cuParamSetSize's size). */
    public int cuParamSeti(long hfunc, int offset, int value) {
        return setParam(hfunc, offset, java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(value).array());
    }

    /** cuParamSetf: a float at a byte offset of the parameter buffer. */
    public int cuParamSetf(long hfunc, int offset, float value) {
        return setParam(hfunc, offset, java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putFloat(value).array());
    }

    /** cuParamSetv: numbytes bytes from host memory at a byte offset of the parameter buffer. */
    public int cuParamSetv(long hfunc, int offset, long ptr, int numbytes) {
        if (numbytes < 0 || (numbytes > 0 && (ptr == 0 || !UserMemory.readable(ptr, numbytes)))) return INVALID_VALUE;
        return setParam(hfunc, offset, numbytes == 0 ? new byte[0] : at(ptr, numbytes).toArray(ValueLayout.JAVA_BYTE));
    }

    /** A legacy launch: the stored block, shared size and parameters, through cuLaunchKernel's {@code extra} buffer. */
    private int legacyLaunch(long f, int gw, int gh, long hStream) {
        int r = state.checkContext();
        if (r != SUCCESS) return r;
        LegacyLaunch l = legacy(f);
        if (l == null) return INVALID_HANDLE;
        try (Arena a = Arena.ofConfined()) {
            byte[] p = l.params;
            MemorySegment buf = a.allocate(Math.max(1, p.length), 16);
            MemorySegment.copy(p, 0, buf, ValueLayout.JAVA_BYTE, 0, p.length);
            MemorySegment size = a.allocate(8);
            size.set(ValueLayout.JAVA_LONG, 0, p.length);
            MemorySegment extra = a.allocate(5 * 8L);
            extra.setAtIndex(ValueLayout.JAVA_LONG, 0, 1); // CU_LAUNCH_PARAM_BUFFER_POINTER
            extra.setAtIndex(ValueLayout.JAVA_LONG, 1, buf.address());
            extra.setAtIndex(ValueLayout.JAVA_LONG, 2, 2); // CU_LAUNCH_PARAM_BUFFER_SIZE
            extra.setAtIndex(ValueLayout.JAVA_LONG, 3, size.address());
            extra.setAtIndex(ValueLayout.JAVA_LONG, 4, 0); // CU_LAUNCH_PARAM_END
            return cuLaunchKernel(f, gw, gh, 1, l.bx, l.by, l.bz, l.shared, hStream, 0, p.length == 0 ? 0 : extra.address());
        }
    }

    /** cuLaunch: a grid of one block. */
    public int cuLaunch(long f) {
        return legacyLaunch(f, 1, 1, 0);
    }

    /** cuLaunchGrid: a grid_width × grid_height grid on the default stream. */
    public int cuLaunchGrid(long f, int grid_width, int grid_height) {
        return legacyLaunch(f, grid_width, grid_height, 0);
    }

    /** cuLaunchGridAsync: as cuLaunchGrid, on a stream. */
    public int cuLaunchGridAsync(long f, int grid_width, int grid_height, long hStream) {
        int r = streams.checkStream(hStream);
        return r != SUCCESS ? r : legacyLaunch(f, grid_width, grid_height, hStream);
    }

}
