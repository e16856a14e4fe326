/*
 * l2persist: the persisting-L2 settings a program makes before it relies on them, as NVIDIA's
 * documentation shows them: the device's L2 figures, CU_LIMIT_PERSISTING_L2_CACHE_SIZE set and read
 * back, an access policy window on a stream (CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, read back) and
 * on one launch (CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW), cuCtxResetPersistingL2Cache. They are
 * hints: the results must not change, and they are checked against the CPU. A window larger than
 * CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE must be refused with CUDA_ERROR_INVALID_VALUE.
 *
 * usage: l2persist [n]     n keys, default 1<<18; a table of 4096 ints
 * Kernel: lookup (src/main/cuda/l2persist.cu). Context: cuCtxCreate.
 */
#include "common.h"

#ifndef CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW
/* cuda.h defines the stream attribute as the launch attribute (CUstreamAttrID is CUlaunchAttributeID); a header
 * generated from the API's declarations alone may lack the macro */
#define CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW
#endif

int main(int argc, char **argv)
{
    sample_start();
    int n = (int)arg_long(argc, argv, 1, 1L << 18, 1, 1L << 26, "[n]");
    const int tableSize = 4096, block = 256;
    unsigned grid = ceil_div(n, block);
    if (grid > 1024) grid = 1024;
    const char *origin;
    const char *ptx = sample_ptx_image(&origin);
    printf("l2persist: n=%d table=%d grid=(%u,1,1) block=(%d,1,1) ptx=%s\n", n, tableSize, grid, block, origin);

    CUdevice dev = sample_device();
    int l2 = 0, maxPersist = 0, maxWindow = 0;
    CHECK(cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev));
    CHECK(cuDeviceGetAttribute(&maxPersist, CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, dev));
    CHECK(cuDeviceGetAttribute(&maxWindow, CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE, dev));
    printf("L2 %d bytes, at most %d persisting, access policy windows up to %d bytes\n", l2, maxPersist, maxWindow);
    if (maxPersist <= 0 || maxWindow <= 0) {
        printf("ERROR: the device does not support persisting L2 accesses (compute capability 8.0 or newer)\n");
        return EXIT_ERROR;
    }
    CUcontext ctx;
    CHECK(cuCtxCreate(&ctx, NULL, 0, dev));
    int failed = 0;

    size_t persist = (size_t)maxPersist / 2;
    CHECK(cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, persist));
    size_t got = 0;
    CHECK(cuCtxGetLimit(&got, CU_LIMIT_PERSISTING_L2_CACHE_SIZE));
    printf("CU_LIMIT_PERSISTING_L2_CACHE_SIZE: set %zu, read back %zu\n", persist, got);
    if (got == 0 || got > (size_t)maxPersist) {
        printf("FAIL: CU_LIMIT_PERSISTING_L2_CACHE_SIZE read back as %zu (set %zu, at most %d)\n", got, persist, maxPersist);
        failed = 1;
    }

    CUmodule module;
    CUfunction f;
    CHECK(cuModuleLoadData(&module, ptx));
    CHECK(cuModuleGetFunction(&f, module, "lookup"));
    int *table = malloc(tableSize * sizeof(int)), *keys = malloc(n * sizeof(int)), *out = malloc(n * sizeof(int));
    uint32_t seed = 0xc0ffee;
    for (int i = 0; i < tableSize; i++) table[i] = (int)(rng_next(&seed) % 100000);
    for (int i = 0; i < n; i++) keys[i] = (int)(rng_next(&seed) % 1000000);
    CUdeviceptr dTable, dKeys, dOut;
    CHECK(cuMemAlloc(&dTable, tableSize * sizeof(int)));
    CHECK(cuMemAlloc(&dKeys, n * sizeof(int)));
    CHECK(cuMemAlloc(&dOut, n * sizeof(int)));
    CHECK(cuMemcpyHtoD(dTable, table, tableSize * sizeof(int)));
    CHECK(cuMemcpyHtoD(dKeys, keys, n * sizeof(int)));

    CUstream s;
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUstreamAttrValue w, back;
    memset(&w, 0, sizeof w);
    w.accessPolicyWindow.base_ptr = (void *)(uintptr_t)dTable;
    w.accessPolicyWindow.num_bytes = tableSize * sizeof(int);
    w.accessPolicyWindow.hitRatio = 0.6f;
    w.accessPolicyWindow.hitProp = CU_ACCESS_PROPERTY_PERSISTING;
    w.accessPolicyWindow.missProp = CU_ACCESS_PROPERTY_STREAMING;
    CHECK(cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, &w));
    memset(&back, 0, sizeof back);
    CHECK(cuStreamGetAttribute(s, CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, &back));
    if (memcmp(&w.accessPolicyWindow, &back.accessPolicyWindow, sizeof w.accessPolicyWindow) != 0) {
        printf("FAIL: the stream's access policy window read back differs from the one set\n");
        failed = 1;
    }
    void *params[] = { &dOut, &dTable, &dKeys, (void *)&tableSize, &n };
    CHECK(cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, s, params, NULL));
    CHECK(cuStreamSynchronize(s));
    CHECK(cuMemcpyDtoH(out, dOut, n * sizeof(int)));
    for (int i = 0; i < n && !failed; i++) {
        int want = table[keys[i] % tableSize] * 3 + keys[i];
        if (out[i] != want) {
            printf("FAIL: a stream with an access policy window: out[%d] = %d, expected %d\n", i, out[i], want);
            failed = 1;
        }
    }

    /* the same window on one launch, through cuLaunchKernelEx */
    CUlaunchAttribute attr;
    memset(&attr, 0, sizeof attr);
    attr.id = CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW;
    attr.value.accessPolicyWindow = w.accessPolicyWindow;
    attr.value.accessPolicyWindow.hitRatio = 1.0f;
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = grid; cfg.gridDimY = 1; cfg.gridDimZ = 1;
    cfg.blockDimX = block; cfg.blockDimY = 1; cfg.blockDimZ = 1;
    cfg.hStream = s;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    CHECK(cuMemsetD32(dOut, 0, n));
    CHECK(cuLaunchKernelEx(&cfg, f, params, NULL));
    CHECK(cuStreamSynchronize(s));
    CHECK(cuMemcpyDtoH(out, dOut, n * sizeof(int)));
    for (int i = 0; i < n && !failed; i++) {
        int want = table[keys[i] % tableSize] * 3 + keys[i];
        if (out[i] != want) {
            printf("FAIL: a launch with an access policy window: out[%d] = %d, expected %d\n", i, out[i], want);
            failed = 1;
        }
    }

    /* a window larger than the device allows */
    w.accessPolicyWindow.num_bytes = (size_t)maxWindow + 1;
    CUresult r = cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, &w);
    if (r != CUDA_ERROR_INVALID_VALUE) {
        printf("FAIL: an access policy window of %zu bytes: %s, expected CUDA_ERROR_INVALID_VALUE\n",
               w.accessPolicyWindow.num_bytes, cu_error_name(r));
        failed = 1;
    }
    /* the window back off, the persisting lines reset */
    w.accessPolicyWindow.num_bytes = 0;
    CHECK(cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, &w));
    CHECK(cuCtxResetPersistingL2Cache());
    CHECK(cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 0));

    CHECK(cuStreamDestroy(s));
    CHECK(cuMemFree(dTable));
    CHECK(cuMemFree(dKeys));
    CHECK(cuMemFree(dOut));
    CHECK(cuCtxDestroy(ctx));
    free(table);
    free(keys);
    free(out);
    if (failed) return EXIT_FAIL;
    printf("PASS\n");
    return EXIT_PASS;
}
