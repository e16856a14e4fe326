/*
 * matrixMul: C (M x N) = A (M x K) * B (K x N), row-major floats in [-1, 1), with 16 x 16
 * shared-memory tiles and bar.sync.
 *
 * usage: matrixMul [n]  or  matrixMul M N K       default 256 x 256 x 256; any sizes >= 1 (the
 *                                                  kernel pads partial tiles with zeros)
 * Check: the reference is computed in double. Tolerance, per element:
 *     |C_gpu[i][j] - C_ref[i][j]| <= K * FLT_EPSILON * sum_k |A[i][k] * B[k][j]|
 * i.e. twice the worst-case rounding error of a K-term float dot product (gamma_K ~ K * 2^-24),
 * whatever the order of the additions and whether they are fused (nvcc emits fma.rn.f32).
 * A wrong element, tile or partial sum is off by far more than that.
 * Kernel: matrixMul (src/main/cuda/matrixMul.cu). Context: cuCtxCreate (not the primary one).
 */
#include "common.h"

#include <float.h>
#include <math.h>

#define TILE 16

int main(int argc, char **argv)
{
    const char *usage = "[n] | M N K";
    sample_start();
    if (argc != 1 && argc != 2 && argc != 4) {
        printf("usage: %s %s\n", argv[0], usage);
        return EXIT_ERROR;
    }
    int M = (int)arg_long(argc, argv, 1, 256, 1, 4096, usage);
    int N = argc == 4 ? (int)arg_long(argc, argv, 2, 256, 1, 4096, usage) : M;
    int K = argc == 4 ? (int)arg_long(argc, argv, 3, 256, 1, 4096, usage) : M;
    unsigned int gridX = ceil_div(N, TILE), gridY = ceil_div(M, TILE);
    const char *ptx_origin;
    const char *ptx = sample_ptx_image(&ptx_origin);

    printf("matrixMul: M=%d N=%d K=%d grid=(%u,%u,1) block=(%d,%d,1) shared=%d (static) "
           "tolerance=K*FLT_EPSILON*sum|a*b| ptx=%s\n",
           M, N, K, gridX, gridY, TILE, TILE, 2 * TILE * TILE * (int)sizeof(float), ptx_origin);

    size_t bytesA = (size_t)M * K * sizeof(float);
    size_t bytesB = (size_t)K * N * sizeof(float);
    size_t bytesC = (size_t)M * N * sizeof(float);
    float *A = malloc(bytesA), *B = malloc(bytesB), *C = malloc(bytesC);
    if (A == NULL || B == NULL || C == NULL) {
        printf("ERROR: out of host memory\n");
        return EXIT_ERROR;
    }
    uint32_t seed = 0x2545f491u;
    for (size_t i = 0; i < (size_t)M * K; ++i) {
        A[i] = rng_float(&seed);
    }
    for (size_t i = 0; i < (size_t)K * N; ++i) {
        B[i] = rng_float(&seed);
    }
    for (size_t i = 0; i < (size_t)M * N; ++i) {
        C[i] = NAN;
    }

    CUdevice dev = sample_device();
    CUcontext ctx;
    CHECK(cuCtxCreate(&ctx, NULL, 0, dev));

    CUmodule module;
    CUfunction kernel;
    load_module_with_log(&module, ptx);
    CHECK(cuModuleGetFunction(&kernel, module, "matrixMul"));

    CUdeviceptr dA, dB, dC;
    CHECK(cuMemAlloc(&dA, bytesA));
    CHECK(cuMemAlloc(&dB, bytesB));
    CHECK(cuMemAlloc(&dC, bytesC));
    CHECK(cuMemcpyHtoD(dA, A, bytesA));
    CHECK(cuMemcpyHtoD(dB, B, bytesB));

    void *params[] = { &dA, &dB, &dC, &M, &N, &K };
    CHECK(cuLaunchKernel(kernel, gridX, gridY, 1, TILE, TILE, 1, 0, NULL, params, NULL));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(C, dC, bytesC));

    CHECK(cuMemFree(dA));
    CHECK(cuMemFree(dB));
    CHECK(cuMemFree(dC));
    CHECK(cuModuleUnload(module));
    CHECK(cuCtxDestroy(ctx));

    double worst = 0.0; /* largest |error| / tolerance seen */
    for (int i = 0; i < M; ++i) {
        for (int j = 0; j < N; ++j) {
            double ref = 0.0, magnitude = 0.0;
            for (int k = 0; k < K; ++k) {
                double p = (double)A[(size_t)i * K + k] * (double)B[(size_t)k * N + j];
                ref += p;
                magnitude += fabs(p);
            }
            double tol = (double)K * FLT_EPSILON * magnitude;
            float got = C[(size_t)i * N + j];
            double err = fabs((double)got - ref);
            if (!(err <= tol)) { /* also catches NaN */
                printf("FAIL: C[%d][%d] (index %zu): expected %.9g, got %.9g (|error| %.3g > tolerance %.3g)\n",
                       i, j, (size_t)i * N + j, ref, got, err, tol);
                return EXIT_FAIL;
            }
            if (tol > 0.0 && err / tol > worst) {
                worst = err / tol;
            }
        }
    }
    printf("largest error: %.3g of the tolerance\n", worst);
    printf("PASS\n");
    free(A);
    free(B);
    free(C);
    return EXIT_PASS;
}
