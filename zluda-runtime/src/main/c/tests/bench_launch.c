/*
 * bench_launch: the first launch of a samples' kernel in a process against its warm launches in the same process.
 * Loads the kernel's PTX (samples/src/main/ptx), makes its buffers, then times cuLaunchKernel + cuCtxSynchronize:
 * the first launch, then WARM more; prints the first, the median of the warm ones (the baseline) and their ratio.
 * Kernels and shapes (those of the sample programs, samples/src/main/c): vectorAdd (n = 2^20, 256 threads a block),
 * matrixMul (256 x 256 x 256, 16 x 16 tiles), reduceSum (n = 2^20, 1024 blocks of 256), histogram256 (n = 2^20 bytes,
 * 240 blocks of 256).
 * Usage: bench_launch PATH/TO/libcuda.so.1 PTX_DIR KERNEL [WARM]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_util.h"

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc(n + 1);
    if (s && fread(s, 1, n, f) != (size_t)n) { free(s); s = NULL; }
    if (s) s[n] = 0;
    fclose(f);
    return s;
}

/* One buffer of a kernel: bytes, and how it is filled ('f' 1.0f floats, 'i' ints in [-50, 50], 'b' bytes, 'z' zeros). */
typedef struct { size_t bytes; char fill; } buffer;
typedef struct {
    const char *name, *ptx;
    buffer bufs[3];
    int nbufs;
    int ints[3], nints;
    unsigned grid[2], block[2];
} kernel;

static const kernel KERNELS[] = {
    {"vectorAdd", "vectorAdd.ptx", {{4u << 20, 'f'}, {4u << 20, 'f'}, {4u << 20, 'z'}}, 3, {1 << 20}, 1, {4096, 1}, {256, 1}},
    {"matrixMul", "matrixMul.ptx", {{4u << 16, 'f'}, {4u << 16, 'f'}, {4u << 16, 'z'}}, 3, {256, 256, 256}, 3, {16, 16}, {16, 16}},
    {"reduceSum", "reduction.ptx", {{4u << 20, 'i'}, {4, 'z'}}, 2, {1 << 20}, 1, {1024, 1}, {256, 1}},
    {"histogram256", "histogram.ptx", {{1u << 20, 'b'}, {1024, 'z'}}, 2, {1 << 20}, 1, {240, 1}, {256, 1}},
};

#define SYM(v, name) do { *(void **)&v = dlsym(h, name); if (!v) { fprintf(stderr, "bench_launch: no %s\n", name); return 1; } } while (0)
#define CK(call) do { int r_ = (call); if (r_ != 0) { fprintf(stderr, "bench_launch: %s -> %d\n", #call, r_); return 1; } } while (0)

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: bench_launch PATH/TO/libcuda.so.1 PTX_DIR KERNEL [WARM]\n"); return 2; }
    int warm = argc > 4 ? atoi(argv[4]) : 10;
    if (warm < 1 || warm > 1000) warm = 10;
    const kernel *k = NULL;
    for (size_t i = 0; i < sizeof KERNELS / sizeof KERNELS[0]; i++) if (strcmp(KERNELS[i].name, argv[3]) == 0) k = &KERNELS[i];
    if (!k) { fprintf(stderr, "bench_launch: no kernel %s (vectorAdd, matrixMul, reduceSum, histogram256)\n", argv[3]); return 2; }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", argv[2], k->ptx);
    char *ptx = read_file(path);
    if (!ptx) { fprintf(stderr, "bench_launch: cannot read %s\n", path); return 1; }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "bench_launch: %s\n", dlerror()); return 1; }
    int (*cuInit)(unsigned); int (*retain)(void **, int); int (*setCurrent)(void *);
    int (*load)(void **, const void *); int (*getFunction)(void **, void *, const char *);
    int (*alloc)(uint64_t *, size_t); int (*htod)(uint64_t, const void *, size_t); int (*sync)(void);
    int (*launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **, void **);
    SYM(cuInit, "cuInit"); SYM(retain, "cuDevicePrimaryCtxRetain"); SYM(setCurrent, "cuCtxSetCurrent");
    SYM(load, "cuModuleLoadData"); SYM(getFunction, "cuModuleGetFunction"); SYM(alloc, "cuMemAlloc_v2");
    SYM(htod, "cuMemcpyHtoD_v2"); SYM(sync, "cuCtxSynchronize"); SYM(launch, "cuLaunchKernel");
    void *ctx, *module, *fn;
    CK(cuInit(0));
    CK(retain(&ctx, 0));
    CK(setCurrent(ctx));
    CK(load(&module, ptx));
    CK(getFunction(&fn, module, k->name));
    uint64_t dev[3];
    int ints[3];
    void *params[6];
    int np = 0;
    for (int b = 0; b < k->nbufs; b++) {
        size_t n = k->bufs[b].bytes;
        unsigned char *host = calloc(1, n);
        for (size_t i = 0; i < n / 4; i++) {
            if (k->bufs[b].fill == 'f') { float one = 1.0f; memcpy(host + 4 * i, &one, 4); }
            else if (k->bufs[b].fill == 'i') { int v = (int)(i % 101) - 50; memcpy(host + 4 * i, &v, 4); }
            else if (k->bufs[b].fill == 'b') { for (int j = 0; j < 4; j++) host[4 * i + j] = (unsigned char)((4 * i + j) * 7); }
        }
        CK(alloc(&dev[b], n));
        CK(htod(dev[b], host, n));
        free(host);
        params[np++] = &dev[b];
    }
    for (int i = 0; i < k->nints; i++) { ints[i] = k->ints[i]; params[np++] = &ints[i]; }
    double *t = calloc(warm + 1, sizeof(double));
    for (int i = 0; i <= warm; i++) {
        double a = now_ms();
        CK(launch(fn, k->grid[0], k->grid[1], 1, k->block[0], k->block[1], 1, 0, NULL, params, NULL));
        CK(sync());
        t[i] = now_ms() - a;
    }
    double first = t[0];
    qsort(t + 1, warm, sizeof(double), cmp);
    double median = t[1 + warm / 2];
    printf("%-13s first launch %8.1f ms, warm %8.1f ms (median of %d; range %.1f-%.1f), first/warm %.2f\n", k->name, first,
           median, warm, t[1], t[warm], first / median);
    return 0;
}
