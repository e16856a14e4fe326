/*
 * reduction: the sum of n ints in [-50, 50], by warp shuffles (shfl.sync.down), shared memory
 * and one atomicAdd per block; checked exactly against the CPU. n is capped so that no partial
 * sum can overflow an int.
 *
 * usage: reduction [n [blocks]]      n defaults to 1<<20; blocks to min(ceil(n/256), 1024), so
 *                                    each thread sums several elements (grid-stride loop)
 * Kernel: reduceSum (src/main/cuda/reduction.cu), 256 threads a block. Context: the primary one.
 */
#include "common.h"

#define BLOCK 256

int main(int argc, char **argv)
{
    const char *usage = "[n [blocks]]";
    sample_start();
    int n = (int)arg_long(argc, argv, 1, 1L << 20, 1, 1L << 25, usage);
    long defaultBlocks = ceil_div(n, BLOCK) < 1024 ? ceil_div(n, BLOCK) : 1024;
    unsigned int grid = (unsigned int)arg_long(argc, argv, 2, defaultBlocks, 1, 65535, usage);
    const char *ptx_origin;
    const char *ptx = sample_ptx_image(&ptx_origin);

    printf("reduction: n=%d grid=(%u,1,1) block=(%d,1,1) shared=%d (static) ptx=%s\n",
           n, grid, BLOCK, 32 * (int)sizeof(int), ptx_origin);

    int *in = malloc((size_t)n * sizeof(int));
    if (in == NULL) {
        printf("ERROR: out of host memory\n");
        return EXIT_ERROR;
    }
    uint32_t seed = 0x9e3779b9u;
    long long expected = 0;
    for (int i = 0; i < n; ++i) {
        in[i] = (int)(rng_next(&seed) % 101) - 50;
        expected += in[i];
    }

    CUdevice dev = sample_device();
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));

    CUmodule module;
    CUfunction kernel;
    load_module_with_log(&module, ptx);
    CHECK(cuModuleGetFunction(&kernel, module, "reduceSum"));

    CUdeviceptr d_in, d_result;
    CHECK(cuMemAlloc(&d_in, (size_t)n * sizeof(int)));
    CHECK(cuMemAlloc(&d_result, sizeof(int)));
    CHECK(cuMemcpyHtoD(d_in, in, (size_t)n * sizeof(int)));
    CHECK(cuMemsetD32(d_result, 0, 1));

    void *params[] = { &d_in, &d_result, &n };
    CHECK(cuLaunchKernel(kernel, grid, 1, 1, BLOCK, 1, 1, 0, NULL, params, NULL));
    CHECK(cuCtxSynchronize());
    int got = -1;
    CHECK(cuMemcpyDtoH(&got, d_result, sizeof(int)));

    CHECK(cuMemFree(d_in));
    CHECK(cuMemFree(d_result));
    CHECK(cuModuleUnload(module));
    CHECK(cuDevicePrimaryCtxRelease(dev));

    if ((long long)got != expected) {
        printf("FAIL: result[0]: expected %lld, got %d\n", expected, got);
        return EXIT_FAIL;
    }
    printf("sum = %d\n", got);
    printf("PASS\n");
    free(in);
    return EXIT_PASS;
}
