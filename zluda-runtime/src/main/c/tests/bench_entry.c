/*
 * bench_entry: what entering the Java driver costs a native caller.
 *   boot:      wall time of the first call (cuInit), which starts the JVM and loads the driver
 *   per call:  cuDriverGetVersion through libcuda.so.1 (C export -> FFM upcall -> Java -> back),
 *              median of 15 rounds of 200,000 calls, against a baseline measured in the same run:
 *              the same work (store 13000 through a pointer) in a C function called through a pointer;
 *              cuCtxGetCurrent and cuCtxGetDevice with the primary context current (answered in C by the native
 *              fast path unless the trace layer is on: ZLUDA_LOG_DIR), the same way.
 * Usage: bench_entry PATH/TO/libcuda.so.1 [CALLS_PER_ROUND]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "bench_util.h"

static int __attribute__((noinline)) baseline(int *v) { *v = 13000; return 0; }

int main(int argc, char **argv) {
    const char *lib = argc > 1 ? argv[1] : "libcuda.so.1";
    long calls = argc > 2 ? atol(argv[2]) : 200000;
    double t0 = now_ns();
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "bench_entry: %s\n", dlerror()); return 1; }
    int (*init)(unsigned) = (int (*)(unsigned))dlsym(h, "cuInit");
    int (*ver)(int *) = (int (*)(int *))dlsym(h, "cuDriverGetVersion");
    int r = init(0);
    double boot = now_ns() - t0;
    if (r != 0) { fprintf(stderr, "bench_entry: cuInit -> %d\n", r); return 1; }
    printf("boot (dlopen + first cuInit, JVM start included): %.1f ms\n", boot / 1e6);
    int (*volatile base)(int *) = baseline;
    enum { ROUNDS = 15 };
    double zl[ROUNDS], bl[ROUNDS];
    int v = 0;
    for (long i = 0; i < calls; i++) ver(&v); /* warm-up: JIT the dispatch path */
    for (int k = 0; k < ROUNDS; k++) {
        double a = now_ns();
        for (long i = 0; i < calls; i++) ver(&v);
        zl[k] = (now_ns() - a) / calls;
        a = now_ns();
        for (long i = 0; i < calls; i++) base(&v);
        bl[k] = (now_ns() - a) / calls;
    }
    qsort(zl, ROUNDS, sizeof zl[0], cmp);
    qsort(bl, ROUNDS, sizeof bl[0], cmp);
    printf("cuDriverGetVersion through the zluda entry: %.1f ns/call (median of %d rounds of %ld calls; min %.1f, max %.1f)\n",
           zl[ROUNDS / 2], ROUNDS, calls, zl[0], zl[ROUNDS - 1]);
    printf("baseline, the same work in a C function:     %.1f ns/call\n", bl[ROUNDS / 2]);

    int (*retain)(void **, int) = (int (*)(void **, int))dlsym(h, "cuDevicePrimaryCtxRetain");
    int (*set)(void *) = (int (*)(void *))dlsym(h, "cuCtxSetCurrent");
    int (*get)(void **) = (int (*)(void **))dlsym(h, "cuCtxGetCurrent");
    int (*getdev)(int *) = (int (*)(int *))dlsym(h, "cuCtxGetDevice");
    void *ctx = NULL, *seen = NULL;
    if (retain(&ctx, 0) != 0 || set(ctx) != 0) { fprintf(stderr, "bench_entry: no primary context\n"); return 1; }
    for (long i = 0; i < calls; i++) { get(&seen); getdev(&v); }
    double gc[ROUNDS], gd[ROUNDS];
    for (int k = 0; k < ROUNDS; k++) {
        double a = now_ns();
        for (long i = 0; i < calls; i++) get(&seen);
        gc[k] = (now_ns() - a) / calls;
        a = now_ns();
        for (long i = 0; i < calls; i++) getdev(&v);
        gd[k] = (now_ns() - a) / calls;
        a = now_ns();
        for (long i = 0; i < calls; i++) base(&v);
        bl[k] = (now_ns() - a) / calls;
    }
    if (seen != ctx) { fprintf(stderr, "bench_entry: cuCtxGetCurrent gave %p, not %p\n", seen, ctx); return 1; }
    qsort(gc, ROUNDS, sizeof gc[0], cmp);
    qsort(gd, ROUNDS, sizeof gd[0], cmp);
    qsort(bl, ROUNDS, sizeof bl[0], cmp);
    const char *traced = getenv("ZLUDA_LOG_DIR");
    printf("cuCtxGetCurrent%s: %.1f ns/call (median of %d rounds of %ld calls; min %.1f, max %.1f)\n",
           traced && *traced ? " (traced)" : "", gc[ROUNDS / 2], ROUNDS, calls, gc[0], gc[ROUNDS - 1]);
    printf("cuCtxGetDevice%s:  %.1f ns/call (min %.1f, max %.1f)\n", traced && *traced ? " (traced)" : "", gd[ROUNDS / 2], gd[0], gd[ROUNDS - 1]);
    printf("baseline, the same work in a C function:     %.1f ns/call\n", bl[ROUNDS / 2]);
    return 0;
}
