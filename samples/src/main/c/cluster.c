/*
 * cluster: thread-block clusters (compute capability 9.0 and newer) through cuLaunchKernelEx with
 * CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION: the cluster special registers of every CTA of a 4x6 grid
 * in 2x3 clusters, and distributed shared memory (each CTA reads the next CTA's shared array and
 * counts itself in rank 0's shared counter, cluster.sync() between) in clusters of 4. Both checked
 * against the CPU. A cluster shape that does not divide the grid must be refused with
 * CUDA_ERROR_INVALID_CLUSTER_SIZE. cuOccupancyMaxActiveClusters is printed.
 *
 * usage: cluster [clusters]    clusters of 4 CTAs in the exchange, default 3
 * Kernels: clusterRegisters, clusterExchange (src/main/cuda/cluster.cu, PTX for sm_90).
 * On zluda's driver the device reports compute capability 8.6 unless ZLUDA_OVERRIDE_COMPUTE_CAPABILITY=9.0.
 */
#include "common.h"

static CUresult launch(CUfunction f, unsigned gx, unsigned gy, unsigned block, unsigned cx, unsigned cy, void **params)
{
    CUlaunchAttribute attr;
    memset(&attr, 0, sizeof attr);
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = cx;
    attr.value.clusterDim.y = cy;
    attr.value.clusterDim.z = 1;
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = gx; cfg.gridDimY = gy; cfg.gridDimZ = 1;
    cfg.blockDimX = block; cfg.blockDimY = 1; cfg.blockDimZ = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    return cuLaunchKernelEx(&cfg, f, params, NULL);
}

int main(int argc, char **argv)
{
    sample_start();
    int clusters = (int)arg_long(argc, argv, 1, 3, 1, 1 << 16, "[clusters]");
    const char *origin;
    const char *ptx = sample_ptx_image(&origin);
    const unsigned gx = 4, gy = 6, cx = 2, cy = 3, size = 4, block = 256;
    printf("cluster: registers grid=(%u,%u,1) cluster=(%u,%u,1); exchange grid=(%u,1,1) cluster=(%u,1,1) block=(%u,1,1) ptx=%s\n",
           gx, gy, cx, cy, clusters * size, size, block, origin);

    CUdevice dev = sample_device();
    int major = 0, minor = 0, can = 0;
    CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    CHECK(cuDeviceGetAttribute(&can, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, dev));
    if (can != 1) {
        printf("ERROR: CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH is %d (compute capability %d.%d): clusters need 9.0 or newer"
               " (on zluda: ZLUDA_OVERRIDE_COMPUTE_CAPABILITY=9.0)\n", can, major, minor);
        return EXIT_ERROR;
    }
    CUcontext ctx;
    CHECK(cuCtxCreate(&ctx, NULL, 0, dev));
    CUmodule module;
    CUfunction regs, exch;
    CHECK(cuModuleLoadData(&module, ptx));
    CHECK(cuModuleGetFunction(&regs, module, "clusterRegisters"));
    CHECK(cuModuleGetFunction(&exch, module, "clusterExchange"));
    int failed = 0;

    /* the cluster special registers */
    CUdeviceptr out, counts;
    size_t outInts = (size_t)clusters * size * block > 8 * gx * gy ? (size_t)clusters * size * block : 8 * gx * gy;
    CHECK(cuMemAlloc(&out, outInts * sizeof(int)));
    CHECK(cuMemAlloc(&counts, clusters * sizeof(int)));
    unsigned *h = malloc(outInts * sizeof(int));
    void *p1[] = { &out };
    CHECK(launch(regs, gx, gy, 32, cx, cy, p1));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(h, out, 8 * gx * gy * sizeof(int)));
    static const char *names[] = { "clusterid.x", "clusterid.y", "cluster_ctaid.x", "cluster_ctaid.y", "cluster_nctaid.x",
                                   "cluster_nctaid.y", "cluster_ctarank", "cluster_nctarank" };
    for (unsigned y = 0; y < gy && !failed; y++) {
        for (unsigned x = 0; x < gx && !failed; x++) {
            unsigned want[8] = { x / cx, y / cy, x % cx, y % cy, cx, cy, x % cx + cx * (y % cy), cx * cy };
            for (int i = 0; i < 8; i++) {
                unsigned got = h[(x + gx * y) * 8 + i];
                if (got != want[i]) {
                    printf("FAIL: CTA (%u,%u): %%%s = %u, expected %u\n", x, y, names[i], got, want[i]);
                    failed = 1;
                    break;
                }
            }
        }
    }

    /* distributed shared memory */
    void *p2[] = { &out, &counts };
    CHECK(cuMemsetD32(counts, 0, clusters));
    CHECK(launch(exch, clusters * size, 1, block, size, 1, p2));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(h, out, (size_t)clusters * size * block * sizeof(int)));
    for (unsigned b = 0; b < clusters * size && !failed; b++) {
        unsigned peer = (b % size + 1) % size;
        for (unsigned t = 0; t < block; t++) {
            int want = (int)(peer * 1000 + (t + 1) % block), got = (int)h[b * block + t];
            if (got != want) {
                printf("FAIL: CTA %u thread %u read %d from the next CTA's shared memory, expected %d\n", b, t, got, want);
                failed = 1;
                break;
            }
        }
    }
    int *c = malloc(clusters * sizeof(int));
    CHECK(cuMemcpyDtoH(c, counts, clusters * sizeof(int)));
    for (int i = 0; i < clusters && !failed; i++) {
        if (c[i] != (int)(size * block)) {
            printf("FAIL: cluster %d: rank 0's shared counter is %d, expected %u\n", i, c[i], size * block);
            failed = 1;
        }
    }

    /* the occupancy of clusters, and a shape that does not divide the grid */
    CUlaunchAttribute attr;
    memset(&attr, 0, sizeof attr);
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = size; attr.value.clusterDim.y = 1; attr.value.clusterDim.z = 1;
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = clusters * size; cfg.gridDimY = 1; cfg.gridDimZ = 1;
    cfg.blockDimX = block; cfg.blockDimY = 1; cfg.blockDimZ = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    int active = 0;
    CHECK(cuOccupancyMaxActiveClusters(&active, exch, &cfg));
    printf("cuOccupancyMaxActiveClusters: %d clusters of %u CTAs of %u threads\n", active, size, block);
    if (active < 1) {
        printf("FAIL: cuOccupancyMaxActiveClusters = %d\n", active);
        failed = 1;
    }
    CUresult r = launch(exch, size + 2, 1, block, size, 1, p2);
    if (r != CUDA_ERROR_INVALID_CLUSTER_SIZE) {
        printf("FAIL: a grid of %u CTAs in clusters of %u: %s, expected CUDA_ERROR_INVALID_CLUSTER_SIZE\n", size + 2, size, cu_error_name(r));
        failed = 1;
    }
    CHECK(cuCtxSynchronize());

    CHECK(cuMemFree(out));
    CHECK(cuMemFree(counts));
    CHECK(cuCtxDestroy(ctx));
    free(h);
    free(c);
    if (failed) return EXIT_FAIL;
    printf("PASS\n");
    return EXIT_PASS;
}
