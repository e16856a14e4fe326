package dev.zluda.runtime.driver;

import dev.zluda.runtime.api.CudaStructs.CUDA_LAUNCH_PARAMS;
import dev.zluda.runtime.api.CudaStructs.CUlaunchAttribute;
import dev.zluda.runtime.api.CudaStructs.CUlaunchConfig;
import dev.zluda.runtime.api.CudaStructs.CUstreamAttrValue;
import dev.zluda.spec.CudaApi;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Cooperative launches, cluster launches and the persisting-L2 settings through the driver, on the kernels of
 * src/test/resources/coop/coop_kernels.cu (nvcc 13.0, sm_90). The result codes are those an NVIDIA H200 returned for
 * the same calls (src/test/resources/coop/h200/results.tsv, recorded by src/test/device/coop-h200.sh).
 */
class GroupedLaunchLayerTest extends DriverTestBase {
    static final int SUCCESS = 0, INVALID_VALUE = 1, NOT_SUPPORTED = 801, TOO_LARGE = 720, INVALID_CLUSTER_SIZE = 912;
    static final int ATTR_COOPERATIVE = 2, ATTR_CLUSTER_DIMENSION = 4, ATTR_ACCESS_POLICY_WINDOW = 1;

    long module;

    long load() {
        return module = loadResource("/coop/coop_kernels.ptx");
    }

    long function(String name) {
        return function(module, name);
    }

    int attribute(String name) {
        MemorySegment v = mem(4);
        int id = CudaApi.get().enumType("CUdevice_attribute").orElseThrow().valueOf("CU_DEVICE_ATTRIBUTE_" + name).orElseThrow().intValue();
        assertEquals(SUCCESS, d.cuDeviceGetAttribute(addr(v), id, 0));
        return i32(v);
    }

    /** A CUlaunchConfig of a (gx, gy, 1) grid of (bx, 1, 1) blocks with the given attributes (id, then its value words). */
    long config(int gx, int gy, int bx, int[]... attrs) {
        MemorySegment c = mem(CUlaunchConfig.SIZE), a = mem((long) CUlaunchAttribute.SIZE * Math.max(1, attrs.length));
        long p = addr(c);
        CUlaunchConfig.gridDimX(p, gx);
        CUlaunchConfig.gridDimY(p, gy);
        CUlaunchConfig.gridDimZ(p, 1);
        CUlaunchConfig.blockDimX(p, bx);
        CUlaunchConfig.blockDimY(p, 1);
        CUlaunchConfig.blockDimZ(p, 1);
        for (int i = 0; i < attrs.length; i++) {
            long at = addr(a) + (long) i * CUlaunchAttribute.SIZE;
            CUlaunchAttribute.id(at, attrs[i][0]);
            for (int w = 1; w < attrs[i].length; w++) MemorySegment.ofAddress(at).reinterpret(CUlaunchAttribute.SIZE)
                    .set(ValueLayout.JAVA_INT, CUlaunchAttribute.OFF_value + 4L * (w - 1), attrs[i][w]);
        }
        CUlaunchConfig.attrs(p, addr(a));
        CUlaunchConfig.numAttrs(p, attrs.length);
        return p;
    }

    /** A fresh driver that reports compute capability 9.0, an H200's limits. */
    void asAnH200() {
        String before = System.getProperty(DeviceAttributes.COMPUTE_CAPABILITY_PROPERTY);
        System.setProperty(DeviceAttributes.COMPUTE_CAPABILITY_PROPERTY, "9.0");
        try {
            d = new ZludaDriver(CudaApi.get(), MemorySegment.NULL);
        } finally {
            if (before == null) System.clearProperty(DeviceAttributes.COMPUTE_CAPABILITY_PROPERTY);
            else System.setProperty(DeviceAttributes.COMPUTE_CAPABILITY_PROPERTY, before);
        }
    }

    @Test
    void cooperativeLaunchesUpToTheResidentGrid() throws IOException {
        asAnH200();
        initWithContext();
        load();
        long f = function("gridRounds");
        assertEquals(1, attribute("COOPERATIVE_LAUNCH"));
        int sms = attribute("MULTIPROCESSOR_COUNT");
        long out = alloc(1 << 16), cur = alloc(1 << 16);
        MemorySegment perSm = mem(4);
        for (int block : new int[] {32, 128, 1024}) {
            assertEquals(SUCCESS, d.cuOccupancyMaxActiveBlocksPerMultiprocessor(addr(perSm), f, block, 0));
            // the H200's occupancy of this kernel: 32 CTAs of 32 or 64 threads, then 2048 threads' worth
            assertEquals(Math.min(32, 2048 / block), i32(perSm), "occupancy at " + block + " threads");
            int fit = i32(perSm) * sms;
            long p = wordParams(cur, out, 1, 1);
            assertEquals(SUCCESS, d.cuLaunchCooperativeKernel(f, fit, 1, 1, block, 1, 1, 0, 0, p), "a grid of " + fit + " CTAs of " + block);
            assertEquals(TOO_LARGE, d.cuLaunchCooperativeKernel(f, fit + 1, 1, 1, block, 1, 1, 0, 0, p), "one CTA more");
            assertEquals(TOO_LARGE, d.cuLaunchKernelEx(config(fit + 1, 1, block, new int[] {ATTR_COOPERATIVE, 1}), f, p, 0));
        }
        // grid.num_blocks() as the kernel sees it, through cuLaunchKernelEx
        int blocks = Math.min(6, 32 * sms), n = blocks * 96 - 5;
        assertEquals(SUCCESS, d.cuLaunchKernelEx(config(blocks, 1, 96, new int[] {ATTR_COOPERATIVE, 1}), f,
                wordParams(cur, out, n, 2), 0));
        MemorySegment h = mem(4);
        assertEquals(SUCCESS, d.cuMemcpyDtoH_v2(addr(h), out + 4L * n, 4));
        assertEquals(blocks, i32(h));

        // grid.sync() in a plain launch of a grid the device keeps resident: it synchronises, as on the H200
        assertEquals(SUCCESS, d.cuMemsetD32_v2(out, 0, n + 1));
        assertEquals(SUCCESS, d.cuLaunchKernel(f, blocks, 1, 1, 96, 1, 1, 0, 0, wordParams(cur, out, n, 2), 0));
        assertEquals(SUCCESS, d.cuCtxSynchronize());
        assertEquals(SUCCESS, d.cuMemcpyDtoH_v2(addr(h), out + 4L * n, 4));
        assertEquals(blocks, i32(h), "grid.is_valid() in a plain launch");
        // a plain grid larger than that gets no grid workspace: cooperative_groups traps instead of waiting forever
        int fit = 32 * sms;
        assertEquals(SUCCESS, d.cuLaunchKernel(f, fit + 1, 1, 1, 32, 1, 1, 0, 0, wordParams(cur, out, 1, 1), 0));
        assertEquals(719, d.cuCtxSynchronize_v2(0), "CUDA_ERROR_LAUNCH_FAILED: trap, sticky");
    }

    /** The CUresults an H200 returned for the probes of src/test/device/multidevice_h200.c (resources coop/h200/multidevice.tsv). */
    static java.util.Map<String, Integer> multiDeviceH200() throws IOException {
        java.util.Map<String, Integer> m = new java.util.HashMap<>();
        try (InputStream in = GroupedLaunchLayerTest.class.getResourceAsStream("/coop/h200/multidevice.tsv")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                String[] kv = line.split("\t");
                if (kv.length == 2 && kv[1].matches("-?[0-9]+")) m.put(kv[0], Integer.parseInt(kv[1]));
            }
        }
        return m;
    }

    @Test
    void cooperativeMultiDeviceLaunchOnTheOneDevice() throws IOException {
        var h200 = multiDeviceH200();
        asAnH200();
        initWithContext();
        load();
        long f = function("gridRounds");
        assertEquals(h200.get("attribute.96"), attribute("COOPERATIVE_MULTI_DEVICE_LAUNCH"));
        MemorySegment sp = mem(8);
        assertEquals(SUCCESS, d.cuStreamCreate(addr(sp), 1));
        long stream = i64(sp);
        int blocks = 6, block = 96, n = blocks * block - 5;
        long cur = alloc(4L * n), out = alloc(4L * (n + 1));
        // CUDA_LAUNCH_PARAMS: function, grid x y z, block x y z, sharedMemBytes, hStream, kernelParams (the spec's layout)
        MemorySegment lp = mem(CUDA_LAUNCH_PARAMS.SIZE * 2L);
        java.util.function.BiConsumer<Long, long[]> fill = (at, v) -> {
            CUDA_LAUNCH_PARAMS.function(at, v[0]);
            CUDA_LAUNCH_PARAMS.gridDimX(at, (int) v[1]);
            CUDA_LAUNCH_PARAMS.gridDimY(at, (int) v[2]);
            CUDA_LAUNCH_PARAMS.gridDimZ(at, (int) v[3]);
            CUDA_LAUNCH_PARAMS.blockDimX(at, (int) v[4]);
            CUDA_LAUNCH_PARAMS.blockDimY(at, (int) v[5]);
            CUDA_LAUNCH_PARAMS.blockDimZ(at, (int) v[6]);
            CUDA_LAUNCH_PARAMS.sharedMemBytes(at, 0);
            CUDA_LAUNCH_PARAMS.hStream(at, v[7]);
            CUDA_LAUNCH_PARAMS.kernelParams(at, v[8]);
        };
        long p = wordParams(cur, out, n, 5), list = addr(lp);
        long[] ok = {f, blocks, 1, 1, block, 1, 1, stream, p};
        fill.accept(list, ok);
        fill.accept(list + CUDA_LAUNCH_PARAMS.SIZE, ok);
        assertEquals(h200.get("multi.fits"), d.cuLaunchCooperativeKernelMultiDevice(list, 1, 0));
        assertEquals(SUCCESS, d.cuStreamSynchronize(stream));
        MemorySegment h = mem(4L * (n + 1));
        assertEquals(SUCCESS, d.cuMemcpyDtoH_v2(addr(h), out, 4L * (n + 1)));
        String want = new String(GroupedLaunchLayerTest.class.getResourceAsStream("/coop/h200/multidevice-outputs.txt").readAllBytes(),
                StandardCharsets.UTF_8).trim();
        StringBuilder got = new StringBuilder("gridRoundsMultiDevice:");
        for (int i = 0; i <= n; i++) got.append(' ').append(h.getAtIndex(ValueLayout.JAVA_INT, i));
        assertEquals(want, got.toString(), "the kernel's outputs as the H200 computed them");
        assertEquals(h200.get("multi.flags.noPre"), d.cuLaunchCooperativeKernelMultiDevice(list, 1, 1));
        assertEquals(h200.get("multi.flags.noPost"), d.cuLaunchCooperativeKernelMultiDevice(list, 1, 2));
        assertEquals(h200.get("multi.flags.both"), d.cuLaunchCooperativeKernelMultiDevice(list, 1, 3));
        assertEquals(h200.get("multi.flags.4"), d.cuLaunchCooperativeKernelMultiDevice(list, 1, 4));
        assertEquals(h200.get("multi.list.null"), d.cuLaunchCooperativeKernelMultiDevice(0, 1, 0));
        assertEquals(h200.get("multi.devices.0"), d.cuLaunchCooperativeKernelMultiDevice(list, 0, 0));
        assertEquals(h200.get("multi.devices.2same"), d.cuLaunchCooperativeKernelMultiDevice(list, 2, 0));
        long[][] bad = {
            {f, blocks, 1, 1, block, 1, 1, 0, p}, {f, blocks, 1, 1, block, 1, 1, 1, p}, {f, blocks, 1, 1, block, 1, 1, 2, p},
            {0, blocks, 1, 1, block, 1, 1, stream, p}, {f, 0, 1, 1, block, 1, 1, stream, p}, {f, blocks, 1, 1, 2048, 1, 1, stream, p}};
        String[] keys = {"multi.stream.null", "multi.stream.legacy", "multi.stream.perThread", "multi.function.null", "multi.grid.0", "multi.block.2048"};
        for (int i = 0; i < bad.length; i++) {
            fill.accept(list, bad[i]);
            assertEquals(h200.get(keys[i]), d.cuLaunchCooperativeKernelMultiDevice(list, 1, 0), keys[i]);
        }
        MemorySegment perSm = mem(4);
        assertEquals(SUCCESS, d.cuOccupancyMaxActiveBlocksPerMultiprocessor(addr(perSm), f, block, 0));
        fill.accept(list, new long[] {f, (long) i32(perSm) * attribute("MULTIPROCESSOR_COUNT") + 1, 1, 1, block, 1, 1, stream, p});
        assertEquals(h200.get("multi.oneMore"), d.cuLaunchCooperativeKernelMultiDevice(list, 1, 0), "one CTA past the resident grid");
        assertEquals(h200.get("sync"), d.cuStreamSynchronize(stream));
        assertEquals(h200.get("ctx.sync"), d.cuCtxSynchronize());
    }

    @Test
    void clustersNeedComputeCapability9() throws IOException {
        initWithContext();
        load();
        assertEquals(0, attribute("CLUSTER_LAUNCH"), "8.6, the emulator's default");
        long f = function("clusterExchange");
        long out = alloc(1 << 16), counts = alloc(256);
        assertEquals(NOT_SUPPORTED, d.cuLaunchKernelEx(config(8, 1, 128, new int[] {ATTR_CLUSTER_DIMENSION, 4, 1, 1}), f,
                wordParams(out, counts), 0), "said out loud below 9.0");
    }

    @Test
    void clusterLaunchesAsTheH200ChecksThem() throws IOException {
        asAnH200();
        initWithContext();
        load();
        assertEquals(1, attribute("CLUSTER_LAUNCH"));
        long exch = function("clusterExchange"), fixed = function("clusterFixed");
        long out = alloc(1 << 16), counts = alloc(256);
        long p = wordParams(out, counts);
        assertEquals(SUCCESS, d.cuLaunchKernelEx(config(12, 1, 128, new int[] {ATTR_CLUSTER_DIMENSION, 4, 1, 1}), exch, p, 0));
        MemorySegment c = mem(12);
        assertEquals(SUCCESS, d.cuMemcpyDtoH_v2(addr(c), counts, 12));
        for (int i = 0; i < 3; i++) assertEquals(4 * 128, c.getAtIndex(ValueLayout.JAVA_INT, i), "cluster " + i);
        assertEquals(INVALID_CLUSTER_SIZE, d.cuLaunchKernelEx(config(6, 1, 128, new int[] {ATTR_CLUSTER_DIMENSION, 4, 1, 1}), exch, p, 0),
                "4 does not divide 6");
        assertEquals(INVALID_CLUSTER_SIZE, d.cuLaunchKernelEx(config(9, 1, 128, new int[] {ATTR_CLUSTER_DIMENSION, 9, 1, 1}), exch, p, 0),
                "more than 8 CTAs");
        assertEquals(INVALID_CLUSTER_SIZE, d.cuLaunchKernelEx(config(8, 1, 128, new int[] {ATTR_CLUSTER_DIMENSION, 4, 1, 1}), fixed, p, 0),
                "not the shape of __cluster_dims__(2, 1, 1)");
        assertEquals(SUCCESS, d.cuLaunchKernelEx(config(8, 1, 128, new int[] {ATTR_CLUSTER_DIMENSION, 2, 1, 1}), fixed, p, 0));
        assertEquals(SUCCESS, d.cuLaunchKernel(fixed, 6, 1, 1, 128, 1, 1, 0, 0, p, 0), "the kernel's own shape");
        MemorySegment v = mem(4);
        var fa = CudaApi.get().enumType("CUfunction_attribute").orElseThrow();
        int mustBeSet = fa.valueOf("CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET").orElseThrow().intValue();
        int width = fa.valueOf("CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH").orElseThrow().intValue();
        int nonPortable = fa.valueOf("CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED").orElseThrow().intValue();
        assertEquals(SUCCESS, d.cuFuncGetAttribute(addr(v), mustBeSet, fixed));
        assertEquals(1, i32(v));
        assertEquals(SUCCESS, d.cuFuncGetAttribute(addr(v), width, fixed));
        assertEquals(2, i32(v));
        assertEquals(INVALID_VALUE, d.cuFuncSetAttribute(fixed, width, 4), "fixed at compile time (cuda.h says NOT_PERMITTED; the H200 answers this)");
        // 16 CTAs: with the non-portable attribute only
        assertEquals(INVALID_CLUSTER_SIZE, d.cuLaunchKernelEx(config(16, 1, 128, new int[] {ATTR_CLUSTER_DIMENSION, 16, 1, 1}), exch, p, 0));
        MemorySegment k = mem(4);
        long cfg = config(12, 1, 128, new int[] {ATTR_CLUSTER_DIMENSION, 4, 1, 1});
        assertEquals(SUCCESS, d.cuOccupancyMaxPotentialClusterSize(addr(k), exch, cfg));
        assertEquals(8, i32(k), "the portable maximum");
        assertEquals(SUCCESS, d.cuFuncSetAttribute(exch, nonPortable, 1));
        assertEquals(SUCCESS, d.cuOccupancyMaxPotentialClusterSize(addr(k), exch, cfg));
        assertEquals(16, i32(k), "the non-portable maximum");
        assertEquals(SUCCESS, d.cuLaunchKernelEx(config(16, 1, 128, new int[] {ATTR_CLUSTER_DIMENSION, 16, 1, 1}), exch, p, 0));
        assertEquals(SUCCESS, d.cuCtxSynchronize());
    }

    @Test
    void persistingL2SettingsAreKeptAndChecked() throws IOException {
        initWithContext();
        assertEquals(62914560, attribute("L2_CACHE_SIZE"));
        assertEquals(39321600, attribute("MAX_PERSISTING_L2_CACHE_SIZE"));
        assertEquals(134217728, attribute("MAX_ACCESS_POLICY_WINDOW_SIZE"));
        int limit = 6; // CU_LIMIT_PERSISTING_L2_CACHE_SIZE
        MemorySegment v = mem(8);
        assertEquals(SUCCESS, d.cuCtxGetLimit(addr(v), limit));
        assertEquals(11796480, i64(v), "a fresh context's, as the H200's");
        assertEquals(SUCCESS, d.cuCtxSetLimit(limit, 30L << 20));
        assertEquals(SUCCESS, d.cuCtxGetLimit(addr(v), limit));
        assertEquals(30L << 20, i64(v));
        assertEquals(SUCCESS, d.cuCtxSetLimit(limit, 1_000_000));
        assertEquals(SUCCESS, d.cuCtxGetLimit(addr(v), limit));
        assertEquals(3932160, i64(v), "rounded up as the H200 rounds it");
        assertEquals(INVALID_VALUE, d.cuCtxSetLimit(limit, 100L << 20), "more than MAX_PERSISTING_L2_CACHE_SIZE");
        assertEquals(SUCCESS, d.cuCtxGetLimit(addr(v), limit));
        assertEquals(3932160, i64(v), "unchanged by the refused value");
        assertEquals(SUCCESS, d.cuCtxResetPersistingL2Cache());

        long buf = alloc(1 << 20);
        MemorySegment w = mem(CUstreamAttrValue.SIZE), back = mem(CUstreamAttrValue.SIZE);
        CUstreamAttrValue.accessPolicyWindow_base_ptr(addr(w), buf);
        CUstreamAttrValue.accessPolicyWindow_num_bytes(addr(w), 1 << 20);
        CUstreamAttrValue.accessPolicyWindow_hitRatio(addr(w), 0.6f);
        CUstreamAttrValue.accessPolicyWindow_hitProp(addr(w), 2); // CU_ACCESS_PROPERTY_PERSISTING
        CUstreamAttrValue.accessPolicyWindow_missProp(addr(w), 1); // CU_ACCESS_PROPERTY_STREAMING
        MemorySegment s = mem(8);
        assertEquals(SUCCESS, d.cuStreamCreate(addr(s), 1));
        long stream = i64(s);
        assertEquals(SUCCESS, d.cuStreamSetAttribute(stream, ATTR_ACCESS_POLICY_WINDOW, addr(w)));
        assertEquals(SUCCESS, d.cuStreamGetAttribute(stream, ATTR_ACCESS_POLICY_WINDOW, addr(back)));
        assertEquals(-1, w.asSlice(0, 32).mismatch(back.asSlice(0, 32)), "read back as set");
        CUstreamAttrValue.accessPolicyWindow_num_bytes(addr(w), 134217728 + 1);
        assertEquals(INVALID_VALUE, d.cuStreamSetAttribute(stream, ATTR_ACCESS_POLICY_WINDOW, addr(w)), "past the largest window");
        CUstreamAttrValue.accessPolicyWindow_num_bytes(addr(w), 1 << 20);
        CUstreamAttrValue.accessPolicyWindow_hitRatio(addr(w), 1.5f);
        assertEquals(INVALID_VALUE, d.cuStreamSetAttribute(stream, ATTR_ACCESS_POLICY_WINDOW, addr(w)), "hit ratio above 1");
        assertEquals(SUCCESS, d.cuStreamGetAttribute(stream, ATTR_ACCESS_POLICY_WINDOW, addr(back)));
        assertEquals(1 << 20, CUstreamAttrValue.accessPolicyWindow_num_bytes(addr(back)), "a refused window changes nothing");
        CUstreamAttrValue.accessPolicyWindow_hitRatio(addr(w), 0.5f);
        CUstreamAttrValue.accessPolicyWindow_hitProp(addr(w), 7);
        assertEquals(SUCCESS, d.cuStreamSetAttribute(stream, ATTR_ACCESS_POLICY_WINDOW, addr(w)), "the H200 does not check hitProp");
    }
}
