/*
 * gemm_bench: fp32 GEMM (C = A B, column-major, n x n x n) through cublasSgemm on whichever driver
 * libcuda.so.1 is (zluda's: the emulator), against the same GEMM as plain C in the same process:
 * the same products in the same order (fma over k from 0, one output at a time), so the two results
 * must be equal bit for bit, which is checked. Prints GFLOP/s (2 n^3 / seconds of wall clock) of each,
 * for every size given (default 512 1024), the cuBLAS call timed from the call to the end of
 * cuCtxSynchronize, REPEAT times (default 2: the first includes loading and translating the module).
 *   gemm_bench [N...]        (zluda run -- gemm_bench 512 1024)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda.h"
#include "cublas_v2.h"

#define CU(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { printf("FAIL %s -> %d\n", #x, r_); exit(1); } } while (0)

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* the order blas_kernels.cu documents: acc = fma(a(i,p), b(p,j), acc) for p from 0; C = 1 * acc */
static void plain_sgemm(int n, const float *A, const float *B, float *C) {
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            float acc = 0;
            for (int p = 0; p < n; p++) acc = fmaf(A[i + (size_t)p * n], B[p + (size_t)j * n], acc);
            C[i + (size_t)j * n] = 1.0f * acc;
        }
}

int main(int argc, char **argv) {
    int sizes[8] = {512, 1024}, ns = 2;
    if (argc > 1) { ns = 0; for (int i = 1; i < argc && ns < 8; i++) sizes[ns++] = atoi(argv[i]); }
    int repeat = getenv("REPEAT") ? atoi(getenv("REPEAT")) : 2;
    CU(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CU(cuDeviceGet(&dev, 0));
    CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU(cuCtxSetCurrent(ctx));
    char name[128] = "";
    cuDeviceGetName(name, sizeof name, dev);
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) { printf("FAIL cublasCreate\n"); return 1; }
    printf("device 0: %s\n", name);
    int bad = 0;
    for (int s = 0; s < ns; s++) {
        int n = sizes[s];
        size_t bytes = (size_t)n * n * sizeof(float);
        float *A = malloc(bytes), *B = malloc(bytes), *C = malloc(bytes), *R = malloc(bytes);
        uint64_t x = 42;
        for (size_t i = 0; i < (size_t)n * n; i++) { x = x * 6364136223846793005ull + 1; A[i] = (float)((int)(x >> 40) % 2001 - 1000) / 1024.0f; }
        for (size_t i = 0; i < (size_t)n * n; i++) { x = x * 6364136223846793005ull + 1; B[i] = (float)((int)(x >> 40) % 2001 - 1000) / 1024.0f; }
        CUdeviceptr dA, dB, dC;
        CU(cuMemAlloc(&dA, bytes)); CU(cuMemAlloc(&dB, bytes)); CU(cuMemAlloc(&dC, bytes));
        CU(cuMemcpyHtoD(dA, A, bytes)); CU(cuMemcpyHtoD(dB, B, bytes));
        float one = 1, zero = 0;
        double flop = 2.0 * n * n * n;
        for (int r = 0; r < repeat; r++) {
            double t0 = now();
            if (cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, (float *)dA, n, (float *)dB, n, &zero, (float *)dC, n) != CUBLAS_STATUS_SUCCESS) {
                printf("FAIL cublasSgemm\n");
                return 1;
            }
            CU(cuCtxSynchronize());
            double t = now() - t0;
            printf("n=%d cublasSgemm (%s) run %d: %.3f s, %.3f GFLOP/s\n", n, name, r + 1, t, flop / t * 1e-9);
        }
        CU(cuMemcpyDtoH(C, dC, bytes));
        double t0 = now();
        plain_sgemm(n, A, B, R);
        double t = now() - t0;
        printf("n=%d plain C (gcc, one thread, same order): %.3f s, %.3f GFLOP/s\n", n, t, flop / t * 1e-9);
        int same = memcmp(C, R, bytes) == 0;
        printf("n=%d results %s\n", n, same ? "equal bit for bit" : "DIFFER");
        bad |= !same;
        cuMemFree(dA); cuMemFree(dB); cuMemFree(dC);
        free(A); free(B); free(C); free(R);
    }
    cublasDestroy(h);
    printf(bad ? "FAIL\n" : "PASS\n");
    return bad;
}
