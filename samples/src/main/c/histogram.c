/*
 * histogram: 256-bin histogram of n bytes, with shared-memory atomics per block, then global
 * atomics; checked exactly against the CPU. The data are skewed on purpose: about a quarter of
 * the bytes are 'A' (heavy contention on one bin), the rest uniform in [0, 239], so bins
 * 240..255 stay empty.
 *
 * usage: histogram [n [blocks]]      n defaults to 1<<20; blocks to min(ceil(n/256), 240)
 * Kernel: histogram256 (src/main/cuda/histogram.cu), 256 threads a block. Context: cuCtxCreate.
 */
#include "common.h"

#define BINS 256
#define BLOCK 256

int main(int argc, char **argv)
{
    const char *usage = "[n [blocks]]";
    sample_start();
    int n = (int)arg_long(argc, argv, 1, 1L << 20, 1, 1L << 30, usage);
    long defaultBlocks = ceil_div(n, BLOCK) < 240 ? ceil_div(n, BLOCK) : 240;
    unsigned int grid = (unsigned int)arg_long(argc, argv, 2, defaultBlocks, 1, 65535, usage);
    const char *ptx_origin;
    const char *ptx = sample_ptx_image(&ptx_origin);

    printf("histogram: n=%d bins=%d grid=(%u,1,1) block=(%d,1,1) shared=%d (static) ptx=%s\n",
           n, BINS, grid, BLOCK, BINS * (int)sizeof(unsigned int), ptx_origin);

    unsigned char *data = malloc((size_t)n);
    if (data == NULL) {
        printf("ERROR: out of host memory\n");
        return EXIT_ERROR;
    }
    unsigned int expected[BINS] = { 0 }, bins[BINS];
    uint32_t seed = 0xdeadbeefu;
    for (int i = 0; i < n; ++i) {
        uint32_t r = rng_next(&seed);
        data[i] = (r & 3) == 0 ? 'A' : (unsigned char)((r >> 2) % 240);
        expected[data[i]]++;
    }
    memset(bins, 0xff, sizeof bins);

    CUdevice dev = sample_device();
    CUcontext ctx;
    CHECK(cuCtxCreate(&ctx, NULL, 0, dev));

    CUmodule module;
    CUfunction kernel;
    load_module_with_log(&module, ptx);
    CHECK(cuModuleGetFunction(&kernel, module, "histogram256"));

    CUdeviceptr d_data, d_bins;
    CHECK(cuMemAlloc(&d_data, (size_t)n));
    CHECK(cuMemAlloc(&d_bins, sizeof bins));
    CHECK(cuMemcpyHtoD(d_data, data, (size_t)n));
    CHECK(cuMemsetD8(d_bins, 0, sizeof bins));

    void *params[] = { &d_data, &d_bins, &n };
    CHECK(cuLaunchKernel(kernel, grid, 1, 1, BLOCK, 1, 1, 0, NULL, params, NULL));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(bins, d_bins, sizeof bins));

    CHECK(cuMemFree(d_data));
    CHECK(cuMemFree(d_bins));
    CHECK(cuModuleUnload(module));
    CHECK(cuCtxDestroy(ctx));

    for (int b = 0; b < BINS; ++b) {
        if (bins[b] != expected[b]) {
            printf("FAIL: bins[%d]: expected %u, got %u\n", b, expected[b], bins[b]);
            return EXIT_FAIL;
        }
    }
    printf("PASS\n");
    free(data);
    return EXIT_PASS;
}
