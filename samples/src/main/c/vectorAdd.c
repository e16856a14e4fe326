/*
 * vectorAdd: c = a + b over n floats, checked exactly against the CPU (a single IEEE float
 * addition rounds the same way on both).
 *
 * usage: vectorAdd [n [blockSize]]     n defaults to 1<<20, blockSize to 256; n need not be a
 *                                      multiple of blockSize (the kernel checks i < n).
 * Kernel: vectorAdd (src/main/cuda/vectorAdd.cu). Context: the device's primary context.
 */
#include "common.h"

int main(int argc, char **argv)
{
    const char *usage = "[n [blockSize]]";
    sample_start();
    int n = (int)arg_long(argc, argv, 1, 1L << 20, 1, 1L << 28, usage);
    int block = (int)arg_long(argc, argv, 2, 256, 1, 1024, usage);
    unsigned int grid = ceil_div(n, block);
    size_t bytes = (size_t)n * sizeof(float);
    const char *ptx_origin;
    const char *ptx = sample_ptx_image(&ptx_origin);

    printf("vectorAdd: n=%d grid=(%u,1,1) block=(%d,1,1) shared=0 ptx=%s\n", n, grid, block, ptx_origin);

    float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    if (a == NULL || b == NULL || c == NULL) {
        printf("ERROR: out of host memory\n");
        return EXIT_ERROR;
    }
    uint32_t seed = 0x12345678u;
    for (int i = 0; i < n; ++i) {
        a[i] = rng_float(&seed);
        b[i] = rng_float(&seed);
        c[i] = -12345.0f;
    }

    CUdevice dev = sample_device();
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));

    CUmodule module;
    CUfunction kernel;
    CHECK(cuModuleLoadData(&module, ptx));
    CHECK(cuModuleGetFunction(&kernel, module, "vectorAdd"));

    CUdeviceptr d_a, d_b, d_c;
    CHECK(cuMemAlloc(&d_a, bytes));
    CHECK(cuMemAlloc(&d_b, bytes));
    CHECK(cuMemAlloc(&d_c, bytes));
    CHECK(cuMemcpyHtoD(d_a, a, bytes));
    CHECK(cuMemcpyHtoD(d_b, b, bytes));

    void *params[] = { &d_a, &d_b, &d_c, &n };
    CHECK(cuLaunchKernel(kernel, grid, 1, 1, block, 1, 1, 0, NULL, params, NULL));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(c, d_c, bytes));

    CHECK(cuMemFree(d_a));
    CHECK(cuMemFree(d_b));
    CHECK(cuMemFree(d_c));
    CHECK(cuModuleUnload(module));
    CHECK(cuDevicePrimaryCtxRelease(dev));

    for (int i = 0; i < n; ++i) {
        float expected = a[i] + b[i];
        if (c[i] != expected) {
            printf("FAIL: c[%d]: expected %.9g (a=%.9g + b=%.9g), got %.9g\n", i, expected, a[i], b[i], c[i]);
            return EXIT_FAIL;
        }
    }
    printf("PASS\n");
    free(a);
    free(b);
    free(c);
    return EXIT_PASS;
}
