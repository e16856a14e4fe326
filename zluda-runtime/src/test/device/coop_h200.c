/*
 * Ground truth for cooperative launches, thread-block clusters, virtual memory management and the
 * persisting-L2 settings, recorded on an NVIDIA GPU through the driver API (no cudart). Usage:
 *   coop_h200 coop_kernels.ptx OUTPUTS
 * Prints "key<TAB>value" lines on stdout (attributes, occupancy, the CUresult of each probe) and writes
 * the kernels' outputs to OUTPUTS, one line per launch: "name: v0 v1 ...". The launches are those of
 * zluda-runtime's CooperativeClusterTest (src/test/resources/coop/coop_kernels.cu, nvcc 13.0, sm_90).
 * Build: gcc -std=c11 -I$CUDA_HOME/include coop_h200.c -lcuda (zluda-runtime/src/test/device/coop-h200.sh).
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "probe.h"
#include <unistd.h>

static FILE *outputs;


static void dump(const char *name, CUdeviceptr p, size_t ints) {
    int *h = malloc(ints * 4);
    CHECK(cuMemcpyDtoH(h, p, ints * 4));
    fprintf(outputs, "%s:", name);
    for (size_t i = 0; i < ints; i++) fprintf(outputs, " %d", h[i]);
    fprintf(outputs, "\n");
    free(h);
}

static CUresult launchEx(CUfunction f, unsigned gx, unsigned gy, unsigned bx, int cooperative, unsigned cx, unsigned cy,
                         unsigned cz, void **args) {
    CUlaunchAttribute at[2];
    int n = 0;
    memset(at, 0, sizeof at);
    if (cooperative) { at[n].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE; at[n].value.cooperative = 1; n++; }
    if (cx) { at[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION; at[n].value.clusterDim.x = cx; at[n].value.clusterDim.y = cy;
              at[n].value.clusterDim.z = cz; n++; }
    CUlaunchConfig c;
    memset(&c, 0, sizeof c);
    c.gridDimX = gx; c.gridDimY = gy; c.gridDimZ = 1;
    c.blockDimX = bx; c.blockDimY = 1; c.blockDimZ = 1;
    c.attrs = at; c.numAttrs = n;
    return cuLaunchKernelEx(&c, f, args, NULL);
}

static const int ATTRS[] = {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH,
    CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE,
    CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
    CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR,
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR};

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc != 3) { printf("usage: coop_h200 coop_kernels.ptx OUTPUTS\n"); return 2; }
    outputs = fopen(argv[2], "w");
    CUcontext ctx;
    CUdevice dev = primary_context(&ctx);
    char name[256];
    CHECK(cuDeviceGetName(name, sizeof name, dev));
    printf("device\t%s\n", name);
    for (unsigned i = 0; i < sizeof ATTRS / sizeof ATTRS[0]; i++) {
        int v;
        CHECK(cuDeviceGetAttribute(&v, ATTRS[i], dev));
        printf("attribute.%d\t%d\n", ATTRS[i], v);
    }
    int sms;
    CHECK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));

    CUmodule mod;
    CHECK(cuModuleLoadData(&mod, slurp(argv[1])));
    CUfunction gridRounds, regs, exch, fixed;
    CHECK(cuModuleGetFunction(&gridRounds, mod, "gridRounds"));
    CHECK(cuModuleGetFunction(&regs, mod, "clusterRegisters"));
    CHECK(cuModuleGetFunction(&exch, mod, "clusterExchange"));
    CHECK(cuModuleGetFunction(&fixed, mod, "clusterFixed"));

    /* ---- cooperative launches */
    int blocks = 6, block = 96, n = blocks * block - 5, rounds = 5;
    CUdeviceptr cur, out, counts;
    CHECK(cuMemAlloc(&cur, 1 << 20));
    CHECK(cuMemAlloc(&out, 1 << 20));
    CHECK(cuMemAlloc(&counts, 4096));
    void *args[] = {&cur, &out, &n, &rounds};
    CHECK(cuMemsetD8(out, 0, 1 << 20));
    CHECK(cuLaunchCooperativeKernel(gridRounds, blocks, 1, 1, block, 1, 1, 0, NULL, args));
    CHECK(cuCtxSynchronize());
    dump("gridRounds", out, n + 1);
    CHECK(cuMemsetD8(out, 0, 1 << 20));
    CHECK(launchEx(gridRounds, blocks, 1, block, 1, 0, 0, 0, args));
    CHECK(cuCtxSynchronize());
    dump("gridRoundsEx", out, n + 1);
    for (int b = 32; b <= 1024; b *= 2) {
        int perSm;
        CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, gridRounds, b, 0));
        printf("occupancy.gridRounds.%d\t%d\n", b, perSm);
        int fit = perSm * sms, big = fit + 1, small = 1;
        void *a2[] = {&cur, &out, &small, &small};
        char k[64];
        snprintf(k, sizeof k, "cooperative.%d.fits(%d)", b, fit);
        PROBE(k, cuLaunchCooperativeKernel(gridRounds, fit, 1, 1, b, 1, 1, 0, NULL, a2));
        CHECK(cuCtxSynchronize());
        snprintf(k, sizeof k, "cooperative.%d.oneMore(%d)", b, big);
        PROBE(k, cuLaunchCooperativeKernel(gridRounds, big, 1, 1, b, 1, 1, 0, NULL, a2));
        snprintf(k, sizeof k, "cooperativeEx.%d.oneMore(%d)", b, big);
        PROBE(k, launchEx(gridRounds, big, 1, b, 1, 0, 0, 0, a2));
    }
    {
        /* grid.sync() in a plain launch: cooperative_groups traps */
        int small = 64, one = 1;
        void *a2[] = {&cur, &out, &small, &one};
        PROBE("plainGridSync.launch", cuLaunchKernel(gridRounds, 2, 1, 1, 32, 1, 1, 0, NULL, a2, NULL));
        PROBE("plainGridSync.sync", cuCtxSynchronize());
    }
    /* after a sticky error the context is gone: a fresh primary context for the rest */
    cuDevicePrimaryCtxRelease(dev);
    CHECK(cuDevicePrimaryCtxReset(dev));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuModuleLoadData(&mod, slurp(argv[1])));
    CHECK(cuModuleGetFunction(&gridRounds, mod, "gridRounds"));
    CHECK(cuModuleGetFunction(&regs, mod, "clusterRegisters"));
    CHECK(cuModuleGetFunction(&exch, mod, "clusterExchange"));
    CHECK(cuModuleGetFunction(&fixed, mod, "clusterFixed"));
    CHECK(cuMemAlloc(&out, 1 << 20));
    CHECK(cuMemAlloc(&counts, 4096));

    /* ---- clusters */
    {
        void *a[] = {&out};
        CHECK(cuMemsetD8(out, 0, 1 << 20));
        CHECK(launchEx(regs, 4, 6, 32, 0, 2, 3, 1, a));
        CHECK(cuCtxSynchronize());
        dump("clusterRegisters", out, 11 * 24);
        CHECK(cuMemsetD8(out, 0, 1 << 20));
        CHECK(cuLaunchKernel(regs, 4, 6, 1, 32, 1, 1, 0, NULL, a, NULL));
        CHECK(cuCtxSynchronize());
        dump("clusterRegistersPlain", out, 11 * 24);
        void *b[] = {&out, &counts};
        CHECK(cuMemsetD8(out, 0, 1 << 20));
        CHECK(cuMemsetD8(counts, 0, 4096));
        CHECK(launchEx(exch, 12, 1, 128, 0, 4, 1, 1, b));
        CHECK(cuCtxSynchronize());
        dump("clusterExchange", out, 12 * 128);
        dump("clusterExchangeCounts", counts, 3);
        CHECK(cuMemsetD8(out, 0, 1 << 20));
        CHECK(cuMemsetD8(counts, 0, 4096));
        CHECK(cuLaunchKernel(fixed, 6, 1, 1, 128, 1, 1, 0, NULL, b, NULL));
        CHECK(cuCtxSynchronize());
        dump("clusterFixed", out, 6 * 128);
        dump("clusterFixedCounts", counts, 3);
        /* refusals */
        PROBE("cluster.notDividing(grid 6, cluster 4)", launchEx(exch, 6, 1, 128, 0, 4, 1, 1, b));
        PROBE("cluster.size9", launchEx(exch, 9, 1, 128, 0, 9, 1, 1, b));
        PROBE("cluster.size16.portable", launchEx(exch, 16, 1, 128, 0, 16, 1, 1, b));
        cuCtxSynchronize();
        PROBE("cluster.fixed.otherShape(4)", launchEx(fixed, 8, 1, 128, 0, 4, 1, 1, b));
        PROBE("cluster.fixed.sameShape(2)", launchEx(fixed, 8, 1, 128, 0, 2, 1, 1, b));
        cuCtxSynchronize();
        PROBE("cluster.exchange.noCluster.launch", cuLaunchKernel(exch, 4, 1, 1, 128, 1, 1, 0, NULL, b, NULL));
        PROBE("cluster.exchange.noCluster.sync", cuCtxSynchronize());
        int v;
        PROBE("cluster.attr.fixed.CLUSTER_SIZE_MUST_BE_SET", cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET, fixed));
        printf("cluster.attr.fixed.CLUSTER_SIZE_MUST_BE_SET.value\t%d\n", v);
        cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, fixed);
        printf("cluster.attr.fixed.REQUIRED_CLUSTER_WIDTH.value\t%d\n", v);
        cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, fixed);
        printf("cluster.attr.fixed.REQUIRED_CLUSTER_HEIGHT.value\t%d\n", v);
        cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET, exch);
        printf("cluster.attr.exch.CLUSTER_SIZE_MUST_BE_SET.value\t%d\n", v);
        cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, exch);
        printf("cluster.attr.exch.NON_PORTABLE_CLUSTER_SIZE_ALLOWED.value\t%d\n", v);
        PROBE("cluster.attr.fixed.setWidth", cuFuncSetAttribute(fixed, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, 4));
        CUlaunchAttribute at;
        memset(&at, 0, sizeof at);
        at.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        at.value.clusterDim.x = 4; at.value.clusterDim.y = 1; at.value.clusterDim.z = 1;
        CUlaunchConfig c;
        memset(&c, 0, sizeof c);
        c.gridDimX = 12; c.gridDimY = 1; c.gridDimZ = 1; c.blockDimX = 128; c.blockDimY = 1; c.blockDimZ = 1;
        c.attrs = &at; c.numAttrs = 1;
        int k = -1;
        PROBE("cluster.maxPotentialClusterSize", cuOccupancyMaxPotentialClusterSize(&k, exch, &c));
        printf("cluster.maxPotentialClusterSize.value\t%d\n", k);
        PROBE("cluster.maxActiveClusters(4)", cuOccupancyMaxActiveClusters(&k, exch, &c));
        printf("cluster.maxActiveClusters(4).value\t%d\n", k);
        PROBE("cluster.setNonPortable", cuFuncSetAttribute(exch, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1));
        PROBE("cluster.maxPotentialClusterSize.nonPortable", cuOccupancyMaxPotentialClusterSize(&k, exch, &c));
        printf("cluster.maxPotentialClusterSize.nonPortable.value\t%d\n", k);
        PROBE("cluster.size16.nonPortable", launchEx(exch, 16, 1, 128, 0, 16, 1, 1, b));
        PROBE("cluster.size16.nonPortable.sync", cuCtxSynchronize());
        int perSm;
        CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, exch, 128, 0));
        printf("occupancy.clusterExchange.128\t%d\n", perSm);
    }

    /* ---- virtual memory management */
    {
        CUmemAllocationProp p;
        memset(&p, 0, sizeof p);
        p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        p.location.id = 0;
        size_t g = 0;
        CHECK(cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        printf("vmm.granularity.minimum\t%zu\n", g);
        CHECK(cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        printf("vmm.granularity.recommended\t%zu\n", g);
        p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        CHECK(cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        printf("vmm.granularity.fd\t%zu\n", g);
        CUmemGenericAllocationHandle a, b, h2;
        PROBE("vmm.create.notMultiple", cuMemCreate(&a, g + 4096, &p, 0));
        CHECK(cuMemCreate(&a, 2 * g, &p, 0));
        p.requestedHandleTypes = 0;
        CHECK(cuMemCreate(&b, 2 * g, &p, 0));
        CUdeviceptr va = 0, vb = 0;
        CHECK(cuMemAddressReserve(&va, 4 * g, 0, 0, 0));
        printf("vmm.reserve.alignedToGranularity\t%d\n", va % g == 0);
        char hbuf[64] = {0};
        PROBE("vmm.copy.unmapped", cuMemcpyHtoD(va, hbuf, 16));
        CHECK(cuMemMap(va, 2 * g, 0, a, 0));
        CHECK(cuMemMap(va + 2 * g, 2 * g, 0, b, 0));
        PROBE("vmm.map.again", cuMemMap(va, 2 * g, 0, b, 0));
        PROBE("vmm.map.misaligned", cuMemMap(va + 4096, g, 0, b, 0));
        PROBE("vmm.copy.noAccess", cuMemcpyHtoD(va, hbuf, 16));
        CUmemAccessDesc d;
        memset(&d, 0, sizeof d);
        d.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        d.location.id = 0;
        d.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        PROBE("vmm.setAccess.partOfMapping", cuMemSetAccess(va, g, &d, 1));
        CHECK(cuMemSetAccess(va, 4 * g, &d, 1));
        unsigned long long flags = 99;
        CUmemLocation loc = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
        CHECK(cuMemGetAccess(&flags, &loc, va + 2 * g + 100));
        printf("vmm.getAccess\t%llu\n", flags);
        /* one copy across the seam, a memset, back */
        size_t n2 = 2u << 20;
        unsigned *src = malloc(n2), *back = malloc(n2);
        for (size_t i = 0; i < n2 / 4; i++) src[i] = (unsigned) i * 2654435761u;
        PROBE("vmm.copy.acrossSeam", cuMemcpyHtoD(va + 2 * g - n2 / 2, src, n2));
        PROBE("vmm.copyBack.acrossSeam", cuMemcpyDtoH(back, va + 2 * g - n2 / 2, n2));
        printf("vmm.acrossSeam.same\t%d\n", memcmp(src, back, n2) == 0);
        PROBE("vmm.memset.acrossSeam", cuMemsetD32(va + 2 * g - 8, 7, 4));
        CUmemGenericAllocationHandle r;
        CHECK(cuMemRetainAllocationHandle(&r, (void *) (uintptr_t) (va + 3 * g + 5)));
        printf("vmm.retain.isSecond\t%d\n", r == b);
        PROBE("vmm.release.retained", cuMemRelease(r));
        unsigned long long v = 0;
        PROBE("vmm.pointer.memoryType", cuPointerGetAttribute(&v, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, va + 10));
        printf("vmm.pointer.memoryType.value\t%llu\n", v & 0xffffffff);
        v = 0;
        PROBE("vmm.pointer.rangeSize", cuPointerGetAttribute(&v, CU_POINTER_ATTRIBUTE_RANGE_SIZE, va + 10));
        printf("vmm.pointer.rangeSize.value\t%llu\n", v);
        v = 0;
        PROBE("vmm.pointer.rangeStart", cuPointerGetAttribute(&v, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, va + 2 * g + 10));
        printf("vmm.pointer.rangeStart.offset\t%lld\n", (long long) (v - va));
        v = 0;
        PROBE("vmm.pointer.handleTypes", cuPointerGetAttribute(&v, CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES, va + 10));
        printf("vmm.pointer.handleTypes.value\t%llu\n", v);
        d.flags = CU_MEM_ACCESS_FLAGS_PROT_READ;
        PROBE("vmm.setAccess.readOnly", cuMemSetAccess(va, 2 * g, &d, 1));
        CHECK(cuMemGetAccess(&flags, &loc, va + 100));
        printf("vmm.getAccess.afterReadOnly\t%llu\n", flags);
        d.flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
        PROBE("vmm.setAccess.none", cuMemSetAccess(va, 2 * g, &d, 1));
        /* export / import */
        int fd = -1;
        PROBE("vmm.export.notRequested", cuMemExportToShareableHandle(&fd, b, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
        PROBE("vmm.export.fd", cuMemExportToShareableHandle(&fd, a, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
        PROBE("vmm.import.fd", cuMemImportFromShareableHandle(&h2, (void *) (uintptr_t) fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
        printf("vmm.import.sameHandle\t%d\n", h2 == a);
        CUmemAllocationProp q;
        memset(&q, 0, sizeof q);
        PROBE("vmm.props", cuMemGetAllocationPropertiesFromHandle(&q, h2));
        printf("vmm.props.type\t%d\nvmm.props.locationType\t%d\nvmm.props.handleTypes\t%d\n", q.type, q.location.type, q.requestedHandleTypes);
        CHECK(cuMemAddressReserve(&vb, 2 * g, 0, 0, 0));
        PROBE("vmm.map.imported", cuMemMap(vb, 2 * g, 0, h2, 0));
        d.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        PROBE("vmm.setAccess.imported", cuMemSetAccess(vb, 2 * g, &d, 1));
        PROBE("vmm.copyBack.imported", cuMemcpyDtoH(back, vb + 2 * g - n2 / 2, n2 / 2));
        printf("vmm.imported.same\t%d\n", memcmp(src, back, n2 / 2 - 8) == 0); /* the memset wrote the last 8 bytes */
        PROBE("vmm.unmap.imported", cuMemUnmap(vb, 2 * g));
        PROBE("vmm.release.imported", cuMemRelease(h2));
        close(fd);
        PROBE("vmm.addressFree.withMappings", cuMemAddressFree(va, 4 * g));
        PROBE("vmm.unmap.partOfMapping", cuMemUnmap(va, g));
        PROBE("vmm.unmap.all", cuMemUnmap(va, 4 * g));
        PROBE("vmm.copy.afterUnmap", cuMemcpyDtoH(back, va, 16));
        PROBE("vmm.release.a", cuMemRelease(a));
        PROBE("vmm.release.b", cuMemRelease(b));
        PROBE("vmm.release.again", cuMemRelease(b));
        PROBE("vmm.addressFree.part", cuMemAddressFree(va, 2 * g));
        PROBE("vmm.addressFree", cuMemAddressFree(va, 4 * g));
        PROBE("vmm.addressFree.b", cuMemAddressFree(vb, 2 * g));
        p.location.type = CU_MEM_LOCATION_TYPE_HOST;
        PROBE("vmm.granularity.host", cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        printf("vmm.granularity.host.value\t%zu\n", g);
    }

    /* ---- persisting L2 */
    {
        size_t v = 12345;
        PROBE("l2.getLimit.default", cuCtxGetLimit(&v, CU_LIMIT_PERSISTING_L2_CACHE_SIZE));
        printf("l2.getLimit.default.value\t%zu\n", v);
        PROBE("l2.setLimit.30MiB", cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 30u << 20));
        cuCtxGetLimit(&v, CU_LIMIT_PERSISTING_L2_CACHE_SIZE);
        printf("l2.getLimit.30MiB.value\t%zu\n", v);
        PROBE("l2.setLimit.1000000", cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 1000000));
        cuCtxGetLimit(&v, CU_LIMIT_PERSISTING_L2_CACHE_SIZE);
        printf("l2.getLimit.1000000.value\t%zu\n", v);
        PROBE("l2.setLimit.100MiB", cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 100u << 20));
        cuCtxGetLimit(&v, CU_LIMIT_PERSISTING_L2_CACHE_SIZE);
        printf("l2.getLimit.100MiB.value\t%zu\n", v);
        PROBE("l2.reset", cuCtxResetPersistingL2Cache());
        CUstream s;
        CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
        CUstreamAttrValue w, back;
        memset(&w, 0, sizeof w);
        w.accessPolicyWindow.base_ptr = (void *) (uintptr_t) out;
        w.accessPolicyWindow.num_bytes = 1 << 20;
        w.accessPolicyWindow.hitRatio = 0.6f;
        w.accessPolicyWindow.hitProp = CU_ACCESS_PROPERTY_PERSISTING;
        w.accessPolicyWindow.missProp = CU_ACCESS_PROPERTY_STREAMING;
        PROBE("l2.stream.window", cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, &w));
        memset(&back, 0, sizeof back);
        PROBE("l2.stream.window.get", cuStreamGetAttribute(s, CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, &back));
        printf("l2.stream.window.get.same\t%d\n", memcmp(&w.accessPolicyWindow, &back.accessPolicyWindow, sizeof w.accessPolicyWindow) == 0);
        printf("l2.stream.window.get.numBytes\t%zu\n", back.accessPolicyWindow.num_bytes);
        w.accessPolicyWindow.num_bytes = 134217728 + 1;
        PROBE("l2.stream.window.tooLarge", cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, &w));
        w.accessPolicyWindow.num_bytes = 1 << 20;
        w.accessPolicyWindow.hitRatio = 1.5f;
        PROBE("l2.stream.window.hitRatio1.5", cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, &w));
        w.accessPolicyWindow.hitRatio = 0.5f;
        w.accessPolicyWindow.hitProp = 7;
        PROBE("l2.stream.window.hitProp7", cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, &w));
        memset(&back, 0, sizeof back);
        cuStreamGetAttribute(s, CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, &back);
        printf("l2.stream.window.afterRefusals.numBytes\t%zu\n", back.accessPolicyWindow.num_bytes);
        /* a launch with an access policy window attribute */
        CUlaunchAttribute at;
        memset(&at, 0, sizeof at);
        at.id = CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW;
        at.value.accessPolicyWindow.base_ptr = (void *) (uintptr_t) out;
        at.value.accessPolicyWindow.num_bytes = 1 << 20;
        at.value.accessPolicyWindow.hitRatio = 1.0f;
        at.value.accessPolicyWindow.hitProp = CU_ACCESS_PROPERTY_PERSISTING;
        at.value.accessPolicyWindow.missProp = CU_ACCESS_PROPERTY_STREAMING;
        CUlaunchConfig c;
        memset(&c, 0, sizeof c);
        c.gridDimX = 4; c.gridDimY = 6; c.gridDimZ = 1; c.blockDimX = 32; c.blockDimY = 1; c.blockDimZ = 1;
        c.hStream = s; c.attrs = &at; c.numAttrs = 1;
        void *a[] = {&out};
        PROBE("l2.launch.window", cuLaunchKernelEx(&c, regs, a, NULL));
        PROBE("l2.launch.window.sync", cuStreamSynchronize(s));
        at.value.accessPolicyWindow.num_bytes = 134217728 + 1;
        PROBE("l2.launch.window.tooLarge", cuLaunchKernelEx(&c, regs, a, NULL));
        cuStreamSynchronize(s);
        at.value.accessPolicyWindow.num_bytes = 1 << 20;
        at.value.accessPolicyWindow.hitRatio = 2.0f;
        PROBE("l2.launch.window.hitRatio2", cuLaunchKernelEx(&c, regs, a, NULL));
        PROBE("l2.final.sync", cuCtxSynchronize());
    }
    fclose(outputs);
    printf("done\t1\n");
    return 0;
}
