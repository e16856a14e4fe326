/*
 * Ground truth for cuLaunchCooperativeKernelMultiDevice on one device, recorded on an NVIDIA GPU through the
 * driver API (no cudart). Usage:
 *   multidevice_h200 coop_kernels.ptx OUTPUTS
 * Prints "key<TAB>CUresult" lines on stdout for each probe (a launch that fits, the NULL stream, no list, zero
 * devices, more devices than exist, unknown flags, a grid one CTA past the resident limit, the two sync flags) and
 * writes the outputs of gridRounds (src/test/resources/coop/coop_kernels.cu) after the launch that fits to OUTPUTS
 * as "name: v0 v1 ...". Build: gcc -std=gnu11 -I$CUDA_HOME/include multidevice_h200.c -lcuda.
 */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "probe.h"


int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc != 3) { printf("usage: multidevice_h200 coop_kernels.ptx OUTPUTS\n"); return 2; }
    FILE *outputs = fopen(argv[2], "w");
    CUcontext ctx;
    CUdevice dev = primary_context(&ctx);
    int v, count;
    CHECK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH, dev));
    printf("attribute.96\t%d\n", v);
    CHECK(cuDeviceGetCount(&count));
    printf("devices\t%d\n", count);
    CUmodule m;
    CUfunction f;
    CHECK(cuModuleLoadData(&m, slurp(argv[1])));
    CHECK(cuModuleGetFunction(&f, m, "gridRounds"));
    CUstream s;
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    const int blocks = 6, block = 96, n = blocks * block - 5, rounds = 5;
    CUdeviceptr cur, out;
    CHECK(cuMemAlloc(&cur, 4 * n));
    CHECK(cuMemAlloc(&out, 4 * (n + 1)));
    CHECK(cuMemsetD32(out, 0, n + 1));
    int nn = n, rr = rounds;
    void *args[] = {&cur, &out, &nn, &rr};
    CUDA_LAUNCH_PARAMS p;
    memset(&p, 0, sizeof p);
    p.function = f;
    p.gridDimX = blocks; p.gridDimY = 1; p.gridDimZ = 1;
    p.blockDimX = block; p.blockDimY = 1; p.blockDimZ = 1;
    p.hStream = s;
    p.kernelParams = args;
    PROBE("multi.fits", cuLaunchCooperativeKernelMultiDevice(&p, 1, 0));
    CHECK(cuStreamSynchronize(s));
    int *h = malloc(4 * (n + 1));
    CHECK(cuMemcpyDtoH(h, out, 4 * (n + 1)));
    fprintf(outputs, "gridRoundsMultiDevice:");
    for (int i = 0; i <= n; i++) fprintf(outputs, " %d", h[i]);
    fprintf(outputs, "\n");
    fclose(outputs);
    PROBE("multi.flags.noPre", cuLaunchCooperativeKernelMultiDevice(&p, 1, CUDA_COOPERATIVE_LAUNCH_MULTI_DEVICE_NO_PRE_LAUNCH_SYNC));
    PROBE("multi.flags.noPost", cuLaunchCooperativeKernelMultiDevice(&p, 1, CUDA_COOPERATIVE_LAUNCH_MULTI_DEVICE_NO_POST_LAUNCH_SYNC));
    PROBE("multi.flags.both", cuLaunchCooperativeKernelMultiDevice(&p, 1, 3));
    PROBE("multi.flags.4", cuLaunchCooperativeKernelMultiDevice(&p, 1, 4));
    CHECK(cuStreamSynchronize(s));
    PROBE("multi.list.null", cuLaunchCooperativeKernelMultiDevice(NULL, 1, 0));
    PROBE("multi.devices.0", cuLaunchCooperativeKernelMultiDevice(&p, 0, 0));
    CUDA_LAUNCH_PARAMS two[2] = {p, p};
    PROBE("multi.devices.2same", cuLaunchCooperativeKernelMultiDevice(two, 2, 0));
    CHECK(cuStreamSynchronize(s));
    CUDA_LAUNCH_PARAMS q = p;
    q.hStream = NULL;
    PROBE("multi.stream.null", cuLaunchCooperativeKernelMultiDevice(&q, 1, 0));
    q.hStream = CU_STREAM_LEGACY;
    PROBE("multi.stream.legacy", cuLaunchCooperativeKernelMultiDevice(&q, 1, 0));
    q.hStream = CU_STREAM_PER_THREAD;
    PROBE("multi.stream.perThread", cuLaunchCooperativeKernelMultiDevice(&q, 1, 0));
    q = p;
    q.function = NULL;
    PROBE("multi.function.null", cuLaunchCooperativeKernelMultiDevice(&q, 1, 0));
    int sms, perSm;
    CHECK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, f, block, 0));
    q = p;
    q.gridDimX = sms * perSm + 1;
    printf("resident\t%d\n", sms * perSm);
    PROBE("multi.oneMore", cuLaunchCooperativeKernelMultiDevice(&q, 1, 0));
    q = p;
    q.gridDimX = 0;
    PROBE("multi.grid.0", cuLaunchCooperativeKernelMultiDevice(&q, 1, 0));
    q = p;
    q.blockDimX = 2048;
    PROBE("multi.block.2048", cuLaunchCooperativeKernelMultiDevice(&q, 1, 0));
    PROBE("sync", cuStreamSynchronize(s));
    PROBE("ctx.sync", cuCtxSynchronize());
    return 0;
}
