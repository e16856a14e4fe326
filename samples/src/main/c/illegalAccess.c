/*
 * illegalAccess: a kernel that writes far outside its allocation, on purpose.
 *
 * One block of 32 threads stores to p[offset + threadIdx.x], offset chosen so that the
 * addresses lie 1 TiB past the start of a 4 KiB allocation, where nothing is mapped.
 * Expected, as NVIDIA's driver behaves: cuLaunchKernel returns CUDA_SUCCESS (launches are
 * asynchronous), and the next synchronizing call, cuCtxSynchronize, returns
 * CUDA_ERROR_ILLEGAL_ADDRESS (700). That is PASS (exit 0); any other outcome is FAIL (exit 1).
 *
 * NOTE: on NVIDIA hardware the error is "sticky": after it the context is unusable, and every
 * later call on it (cuMemFree, cuModuleUnload, launches, copies, ...) returns
 * CUDA_ERROR_ILLEGAL_ADDRESS too; only destroying the context (cuCtxDestroy, or
 * cuDevicePrimaryCtxReset for a primary context) recovers the device. This program therefore
 * does nothing useful after the error: it makes the usual clean-up calls and prints what they
 * return, for the trace, without judging them.
 *
 * usage: illegalAccess
 * Kernel: writeOutOfBounds (src/main/cuda/illegalAccess.cu). Context: cuCtxCreate.
 */
#include "common.h"

#define ALLOC_BYTES 4096
#define THREADS 32

int main(int argc, char **argv)
{
    sample_start();
    if (argc != 1) {
        printf("usage: %s\n", argv[0]);
        return EXIT_ERROR;
    }
    const char *ptx_origin;
    const char *ptx = sample_ptx_image(&ptx_origin);
    unsigned long long offset = (1ULL << 40) / sizeof(int); /* elements: 1 TiB */

    printf("illegalAccess: grid=(1,1,1) block=(%d,1,1) shared=0 alloc=%d bytes, "
           "writes 1 TiB past its start, expects CUDA_ERROR_ILLEGAL_ADDRESS ptx=%s\n",
           THREADS, ALLOC_BYTES, ptx_origin);

    CUdevice dev = sample_device();
    CUcontext ctx;
    CHECK(cuCtxCreate(&ctx, NULL, 0, dev));

    CUmodule module;
    CUfunction kernel;
    CHECK(cuModuleLoadData(&module, ptx));
    CHECK(cuModuleGetFunction(&kernel, module, "writeOutOfBounds"));

    CUdeviceptr d_p;
    CHECK(cuMemAlloc(&d_p, ALLOC_BYTES));
    CHECK(cuMemsetD32(d_p, 0, ALLOC_BYTES / sizeof(int)));
    CHECK(cuCtxSynchronize()); /* everything before the bad kernel has succeeded */

    printf("allocation at 0x%llx, the kernel writes at 0x%llx..\n", (unsigned long long)d_p,
           (unsigned long long)d_p + offset * sizeof(int));

    void *params[] = { &d_p, &offset };
    CUresult launch = cuLaunchKernel(kernel, 1, 1, 1, THREADS, 1, 1, 0, NULL, params, NULL);
    if (launch == CUDA_ERROR_ILLEGAL_ADDRESS) {
        printf("FAIL: cuLaunchKernel returned %s (%d); NVIDIA's driver returns CUDA_SUCCESS there "
               "and reports the fault from the next synchronizing call\n",
               cu_error_name(launch), (int)launch);
        return EXIT_FAIL;
    }
    CHECK(launch);

    CUresult sync = cuCtxSynchronize();
    printf("cuCtxSynchronize() -> %s (%d)\n", cu_error_name(sync), (int)sync);

    /* Informational only: on NVIDIA's driver these return CUDA_ERROR_ILLEGAL_ADDRESS too. */
    CUresult r = cuMemFree(d_p);
    printf("after the fault: cuMemFree -> %s", cu_error_name(r));
    r = cuModuleUnload(module);
    printf(", cuModuleUnload -> %s", cu_error_name(r));
    r = cuCtxDestroy(ctx);
    printf(", cuCtxDestroy -> %s\n", cu_error_name(r));

    if (sync != CUDA_ERROR_ILLEGAL_ADDRESS) {
        printf("FAIL: cuCtxSynchronize: expected CUDA_ERROR_ILLEGAL_ADDRESS (700), got %s (%d)\n",
               cu_error_name(sync), (int)sync);
        return EXIT_FAIL;
    }
    printf("PASS\n");
    return EXIT_PASS;
}
