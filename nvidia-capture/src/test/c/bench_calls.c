/*
 * bench_calls: what a traced driver call costs. Loads libcuda.so.1 through the loader's search
 * (so LD_LIBRARY_PATH decides whether the tracer sits in front of the driver), creates a context
 * and times cheap calls: cuCtxGetCurrent, cuPointerGetAttribute on a device allocation, and an
 * empty kernel launch + no sync (PTX given inline). Median of 11 rounds; ns per call.
 * Usage: bench_calls [CALLS_PER_ROUND]     (run once with and once without the tracer)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static const char *PTX =
    ".version 7.0\n.target sm_52\n.address_size 64\n.visible .entry empty()\n{\n ret;\n}\n";

#define ROUNDS 11
#define T(name, body) do { \
    double r[ROUNDS]; \
    for (int k = 0; k < ROUNDS; k++) { double t0 = now(); for (long i = 0; i < n; i++) { body; } r[k] = (now() - t0) / n; } \
    qsort(r, ROUNDS, sizeof r[0], cmp); \
    printf("%-28s %8.1f ns/call (median of %d rounds of %ld; min %.1f)\n", name, r[ROUNDS / 2], ROUNDS, n, r[0]); \
} while (0)

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 200000;
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "bench_calls: %s\n", dlerror()); return 2; }
    Dl_info info;
    int (*init)(unsigned) = (int (*)(unsigned))dlsym(h, "cuInit");
    dladdr((void *)init, &info);
    printf("libcuda.so.1 = %s\n", info.dli_fname);
    int (*dev_get)(int *, int) = dlsym(h, "cuDeviceGet");
    int (*ctx_create)(void **, unsigned, int) = dlsym(h, "cuCtxCreate_v2");
    int (*ctx_get)(void **) = dlsym(h, "cuCtxGetCurrent");
    int (*alloc)(uint64_t *, size_t) = dlsym(h, "cuMemAlloc_v2");
    int (*ptr_attr)(void *, int, uint64_t) = dlsym(h, "cuPointerGetAttribute");
    int (*load)(void **, const void *) = dlsym(h, "cuModuleLoadData");
    int (*get_fn)(void **, void *, const char *) = dlsym(h, "cuModuleGetFunction");
    int (*launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **, void **) = dlsym(h, "cuLaunchKernel");
    int (*sync)(void) = dlsym(h, "cuCtxSynchronize");
    if (!dev_get || !ctx_create || !ctx_get || !alloc || !ptr_attr) { fprintf(stderr, "bench_calls: the driver lacks a function this benchmark needs\n"); return 2; }
    int dev;
    void *ctx, *cur, *mod = NULL, *fn = NULL;
    uint64_t p;
    if (init(0) || dev_get(&dev, 0) || ctx_create(&ctx, 0, dev) || alloc(&p, 1 << 20)) { fprintf(stderr, "bench_calls: setup failed\n"); return 3; }
    T("cuCtxGetCurrent", ctx_get(&cur));
    uint64_t start;
    T("cuPointerGetAttribute", ptr_attr(&start, 11 /* RANGE_START_ADDR */, p + 64));
    if (load && get_fn && launch && load(&mod, PTX) == 0 && get_fn(&fn, mod, "empty") == 0) {
        long keep = n;
        n = n / 10 > 0 ? n / 10 : 1;
        T("cuLaunchKernel (empty, 1x1)", launch(fn, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
        sync();
        n = keep;
    } else {
        printf("%-28s skipped (no module support)\n", "cuLaunchKernel");
    }
    return 0;
}
