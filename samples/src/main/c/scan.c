/*
 * scan: exclusive prefix sum of n ints in [-8, 8]: out[0] = 0, out[i] = in[0] + ... + in[i-1];
 * checked exactly against the CPU.
 *
 * Pass 1, scanBlocks: every block scans its tile of B elements in dynamic shared memory and
 * writes the tile's total to a block-sums array. The block sums are scanned the same way
 * (recursively, while there are more than B of them), and pass 2, addBlockOffsets, adds each
 * tile's scanned offset to its elements. All launches go to one stream, with asynchronous copies;
 * one cuStreamSynchronize at the end.
 *
 * usage: scan [n [B]]     n defaults to 1<<20, B (threads a block = elements a tile, a power of
 *                         two) to 512; 1<<20 makes three levels: 1048576 -> 2048 -> 4 sums
 * Kernels: scanBlocks, addBlockOffsets (src/main/cuda/scan.cu). Context: the primary one.
 */
#include "common.h"

#define MAX_LEVELS 32

struct level {
    int n;              /* elements scanned at this level */
    unsigned int grid;  /* tiles */
    CUdeviceptr in, out;
    CUdeviceptr sums;   /* grid tile totals (0 at the top level, which is one tile) */
};

int main(int argc, char **argv)
{
    const char *usage = "[n [B]]";
    sample_start();
    int n = (int)arg_long(argc, argv, 1, 1L << 20, 1, 1L << 26, usage);
    int B = (int)arg_long(argc, argv, 2, 512, 2, 1024, usage);
    if ((B & (B - 1)) != 0) {
        printf("usage: %s %s\n  B must be a power of two\n", argv[0], usage);
        return EXIT_ERROR;
    }
    unsigned int shared = (unsigned int)(B * sizeof(int));
    const char *ptx_origin;
    const char *ptx = sample_ptx_image(&ptx_origin);

    /* The plan: level 0 scans the input, level l+1 scans level l's tile totals. */
    struct level lv[MAX_LEVELS];
    int levels = 0;
    for (int m = n;; m = (int)ceil_div(m, B)) {
        lv[levels].n = m;
        lv[levels].grid = ceil_div(m, B);
        levels++;
        if (lv[levels - 1].grid == 1) {
            break;
        }
    }

    char plan[512];
    int len = snprintf(plan, sizeof plan, "%d", lv[0].n);
    for (int l = 1; l < levels; ++l) {
        len += snprintf(plan + len, sizeof plan - (size_t)len, "->%d", lv[l].n);
    }
    printf("scan: n=%d block=(%d,1,1) shared=%u (dynamic) levels=%d (%s elements) "
           "launches: scanBlocks grid", n, B, shared, levels, plan);
    for (int l = 0; l < levels; ++l) {
        printf("%s%u", l == 0 ? "=" : ",", lv[l].grid);
    }
    printf(" then addBlockOffsets grid");
    for (int l = levels - 2; l >= 0; --l) {
        printf("%s%u", l == levels - 2 ? "=" : ",", lv[l].grid);
    }
    if (levels == 1) {
        printf("=none");
    }
    printf(" ptx=%s\n", ptx_origin);

    int *in = malloc((size_t)n * sizeof(int)), *out = malloc((size_t)n * sizeof(int));
    if (in == NULL || out == NULL) {
        printf("ERROR: out of host memory\n");
        return EXIT_ERROR;
    }
    uint32_t seed = 0x0badc0deu;
    for (int i = 0; i < n; ++i) {
        in[i] = (int)(rng_next(&seed) % 17) - 8;
        out[i] = 0x7fffffff;
    }

    CUdevice dev = sample_device();
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));

    CUmodule module;
    CUfunction scanBlocks, addBlockOffsets;
    load_module_with_log(&module, ptx);
    CHECK(cuModuleGetFunction(&scanBlocks, module, "scanBlocks"));
    CHECK(cuModuleGetFunction(&addBlockOffsets, module, "addBlockOffsets"));

    CUstream stream;
    CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

    /* Buffers: level l reads lv[l].in and writes lv[l].out; its tile totals lv[l].sums are the
     * input of level l+1, whose output holds the offsets that pass 2 adds to lv[l].out. */
    CHECK(cuMemAlloc(&lv[0].in, (size_t)n * sizeof(int)));
    for (int l = 0; l < levels; ++l) {
        if (l > 0) {
            lv[l].in = lv[l - 1].sums;
        }
        CHECK(cuMemAlloc(&lv[l].out, (size_t)lv[l].n * sizeof(int)));
        lv[l].sums = 0;
        if (l + 1 < levels) {
            CHECK(cuMemAlloc(&lv[l].sums, (size_t)lv[l].grid * sizeof(int)));
        }
    }

    CHECK(cuMemcpyHtoDAsync(lv[0].in, in, (size_t)n * sizeof(int), stream));
    for (int l = 0; l < levels; ++l) {
        void *params[] = { &lv[l].in, &lv[l].out, &lv[l].sums, &lv[l].n };
        CHECK(cuLaunchKernel(scanBlocks, lv[l].grid, 1, 1, B, 1, 1, shared, stream, params, NULL));
    }
    for (int l = levels - 2; l >= 0; --l) {
        void *params[] = { &lv[l].out, &lv[l + 1].out, &lv[l].n };
        CHECK(cuLaunchKernel(addBlockOffsets, lv[l].grid, 1, 1, B, 1, 1, 0, stream, params, NULL));
    }
    CHECK(cuMemcpyDtoHAsync(out, lv[0].out, (size_t)n * sizeof(int), stream));
    CHECK(cuStreamSynchronize(stream));

    CHECK(cuMemFree(lv[0].in));
    for (int l = 0; l < levels; ++l) {
        CHECK(cuMemFree(lv[l].out));
        if (lv[l].sums != 0) {
            CHECK(cuMemFree(lv[l].sums));
        }
    }
    CHECK(cuStreamDestroy(stream));
    CHECK(cuModuleUnload(module));
    CHECK(cuDevicePrimaryCtxRelease(dev));

    int expected = 0;
    for (int i = 0; i < n; ++i) {
        if (out[i] != expected) {
            printf("FAIL: out[%d]: expected %d, got %d\n", i, expected, out[i]);
            return EXIT_FAIL;
        }
        expected += in[i];
    }
    printf("total = %d\n", expected);
    printf("PASS\n");
    free(in);
    free(out);
    return EXIT_PASS;
}
