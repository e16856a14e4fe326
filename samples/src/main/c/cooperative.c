/*
 * cooperative: grid-wide synchronisation (cooperative_groups' grid.sync()) in cooperative launches.
 * The grid is the largest the device keeps resident at once, capped at `blocks` CTAs:
 * cuOccupancyMaxActiveBlocksPerMultiprocessor x CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT. It runs
 * through cuLaunchCooperativeKernel and through cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
 * each result is checked against the CPU. A grid one CTA larger than the device keeps resident must be
 * refused with CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE by both.
 *
 * usage: cooperative [blocks [rounds]]   blocks defaults to 16 (at most what is resident), rounds to 5
 * Kernel: gridRounds (src/main/cuda/cooperative.cu), blocks of 128 threads. Context: the primary one.
 */
#include "common.h"

static int check(const char *how, const int *got, int n, int rounds, int blocks)
{
    int *v = malloc(n * sizeof(int)), *next = malloc(n * sizeof(int)), bad = 0;
    for (int t = 0; t < n; t++) v[t] = t;
    for (int r = 0; r < rounds; r++) {
        for (int t = 0; t < n; t++) next[t] = v[(t + 1 + r * 7) % n] + 1;
        int *s = v; v = next; next = s;
    }
    for (int t = 0; t < n && !bad; t++) {
        if (got[t] != v[t]) {
            printf("FAIL: %s: thread %d: expected %d, got %d\n", how, t, v[t], got[t]);
            bad = 1;
        }
    }
    if (!bad && got[n] != blocks) {
        printf("FAIL: %s: grid.num_blocks() = %d, expected %d\n", how, got[n], blocks);
        bad = 1;
    }
    free(v);
    free(next);
    return bad;
}

int main(int argc, char **argv)
{
    const char *usage = "[blocks [rounds]]";
    sample_start();
    int want = (int)arg_long(argc, argv, 1, 16, 1, 1 << 20, usage);
    int rounds = (int)arg_long(argc, argv, 2, 5, 1, 1000, usage);
    const int block = 128;
    const char *origin;
    const char *ptx = sample_ptx_image(&origin);

    CUdevice dev = sample_device();
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    int coop = 0, sms = 0, perSm = 0;
    CHECK(cuDeviceGetAttribute(&coop, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, dev));
    CHECK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    if (coop != 1) {
        printf("ERROR: CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH is %d: the device has no cooperative launches\n", coop);
        return EXIT_ERROR;
    }
    CUmodule module;
    CUfunction f;
    CHECK(cuModuleLoadData(&module, ptx));
    CHECK(cuModuleGetFunction(&f, module, "gridRounds"));
    CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, f, block, 0));
    int resident = perSm * sms, blocks = want < resident ? want : resident;
    int n = blocks * block - 3;
    printf("cooperative: grid=(%d,1,1) block=(%d,1,1) rounds=%d; %d multiprocessors x %d CTAs resident = %d ptx=%s\n",
           blocks, block, rounds, sms, perSm, resident, origin);

    CUdeviceptr cur, out;
    CHECK(cuMemAlloc(&cur, n * sizeof(int)));
    CHECK(cuMemAlloc(&out, (n + 1) * sizeof(int)));
    int *h = malloc((n + 1) * sizeof(int));
    void *params[] = { &cur, &out, &n, &rounds };
    int failed = 0;

    CHECK(cuMemsetD32(out, 0, n + 1));
    CHECK(cuLaunchCooperativeKernel(f, blocks, 1, 1, block, 1, 1, 0, NULL, params));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(h, out, (n + 1) * sizeof(int)));
    failed |= check("cuLaunchCooperativeKernel", h, n, rounds, blocks);

    CUlaunchAttribute attr;
    memset(&attr, 0, sizeof attr);
    attr.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    attr.value.cooperative = 1;
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = blocks; cfg.gridDimY = 1; cfg.gridDimZ = 1;
    cfg.blockDimX = block; cfg.blockDimY = 1; cfg.blockDimZ = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    CHECK(cuMemsetD32(out, 0, n + 1));
    CHECK(cuLaunchKernelEx(&cfg, f, params, NULL));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(h, out, (n + 1) * sizeof(int)));
    failed |= check("cuLaunchKernelEx (CU_LAUNCH_ATTRIBUTE_COOPERATIVE)", h, n, rounds, blocks);

    /* one CTA more than the device keeps resident: refused before anything runs */
    int tooMany = resident + 1;
    CUresult r = cuLaunchCooperativeKernel(f, tooMany, 1, 1, block, 1, 1, 0, NULL, params);
    printf("a cooperative grid of %d CTAs: %s\n", tooMany, cu_error_name(r));
    if (r != CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE) {
        printf("FAIL: cuLaunchCooperativeKernel of %d CTAs: %s, expected CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE\n", tooMany, cu_error_name(r));
        failed = 1;
    }
    cfg.gridDimX = tooMany;
    r = cuLaunchKernelEx(&cfg, f, params, NULL);
    if (r != CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE) {
        printf("FAIL: cuLaunchKernelEx (cooperative) of %d CTAs: %s, expected CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE\n", tooMany, cu_error_name(r));
        failed = 1;
    }
    CHECK(cuCtxSynchronize());

    CHECK(cuMemFree(cur));
    CHECK(cuMemFree(out));
    CHECK(cuModuleUnload(module));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    free(h);
    if (failed) return EXIT_FAIL;
    printf("PASS\n");
    return EXIT_PASS;
}
