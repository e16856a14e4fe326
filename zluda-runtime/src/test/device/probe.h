/*
 * Shared by the device probes in this folder (programs that record ground truth on an NVIDIA GPU through
 * the driver API): CHECK stops the probe with "fatal<TAB>call -> CUresult at line N" on stdout (exit 2),
 * PROBE prints "key<TAB>CUresult", primary_context makes device 0's primary context current, slurp reads a whole
 * file (a PTX image) into a NUL-terminated buffer.
 */
#ifndef ZLUDA_DEVICE_PROBE_H
#define ZLUDA_DEVICE_PROBE_H
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { \
    printf("fatal\t%s -> %d at line %d\n", #call, (int) r_, __LINE__); exit(2); } } while (0)
#define PROBE(key, call) printf("%s\t%d\n", key, (int) (call))

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) { printf("fatal\tcannot open %s\n", path); exit(2); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc(n + 1);
    if (fread(b, 1, n, f) != (size_t) n) exit(2);
    b[n] = 0;
    fclose(f);
    return b;
}

/* cuInit, device 0's primary context retained and made current (into *ctx); device 0. */
static CUdevice primary_context(CUcontext *ctx) {
    CUdevice dev;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(ctx, dev));
    CHECK(cuCtxSetCurrent(*ctx));
    return dev;
}
#endif
