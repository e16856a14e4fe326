/*
 * bench_calls: what a traced driver call costs, traced and untraced in the same process.
 *
 * Loads the driver as libcuda.so.1 through the loader's search (LD_LIBRARY_PATH must not name the
 * tracer's directory) and, when TRACER is given, the tracer by its path; the tracer forwards to the
 * same already-loaded driver (ZLUDA_CUDA_LIB or its own search). Creates a context (through the
 * tracer when there is one) and times cheap calls — cuCtxGetCurrent, cuPointerGetAttribute on a
 * device allocation, an empty kernel launch (PTX given inline, no synchronisation) — in rounds that
 * alternate untraced and traced loops of CALLS calls, so both see the same machine state. Prints,
 * per call, the median ns/call of each side and the median of the per-round differences.
 *
 * Usage: bench_calls [CALLS_PER_ROUND [TRACER]]      e.g. bench_calls 200000 dist/lib/trace/libcuda.so.1
 * BENCH_CLOCK=thread times with the thread's CPU time instead of the wall clock (on a busy machine:
 * time spent descheduled is left out; page faults and system calls of the thread are counted).
 * BENCH_EVICT=KB writes one byte of every 64-byte line of a KB-kilobyte buffer after each call, in
 * both loops: what a real program's own work between two driver calls does to the caches (the
 * tracer's state is then no longer in L1/L2 when the next call comes).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static clockid_t bench_clock = CLOCK_MONOTONIC;

static double now(void) {
    struct timespec ts;
    clock_gettime(bench_clock, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static const char *PTX =
    ".version 7.0\n.target sm_52\n.address_size 64\n.visible .entry empty()\n{\n ret;\n}\n";

#define ROUNDS 11

typedef struct {
    int (*init)(unsigned);
    int (*dev_get)(int *, int);
    int (*ctx_create)(void **, unsigned, int);
    int (*ctx_get)(void **);
    int (*alloc)(uint64_t *, size_t);
    int (*ptr_attr)(void *, int, uint64_t);
    int (*load)(void **, const void *);
    int (*get_fn)(void **, void *, const char *);
    int (*launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **, void **);
    int (*sync)(void);
} api;

static int bind(void *h, api *a) {
    a->init = (int (*)(unsigned))dlsym(h, "cuInit");
    a->dev_get = (int (*)(int *, int))dlsym(h, "cuDeviceGet");
    a->ctx_create = (int (*)(void **, unsigned, int))dlsym(h, "cuCtxCreate_v2");
    a->ctx_get = (int (*)(void **))dlsym(h, "cuCtxGetCurrent");
    a->alloc = (int (*)(uint64_t *, size_t))dlsym(h, "cuMemAlloc_v2");
    a->ptr_attr = (int (*)(void *, int, uint64_t))dlsym(h, "cuPointerGetAttribute");
    a->load = (int (*)(void **, const void *))dlsym(h, "cuModuleLoadData");
    a->get_fn = (int (*)(void **, void *, const char *))dlsym(h, "cuModuleGetFunction");
    a->launch = (int (*)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **, void **))dlsym(h, "cuLaunchKernel");
    a->sync = (int (*)(void))dlsym(h, "cuCtxSynchronize");
    return a->init && a->dev_get && a->ctx_create && a->ctx_get && a->alloc && a->ptr_attr;
}

static void *cur, *fn;
static uint64_t p, start;

static volatile unsigned char *evict_buf;
static size_t evict_bytes;

static void evict(void) {
    for (size_t o = 0; o < evict_bytes; o += 64) evict_buf[o]++;
}

static void loop(const api *a, int which, long n) {
    switch (which) {
    case 0: for (long i = 0; i < n; i++) { a->ctx_get(&cur); evict(); } break;
    case 1: for (long i = 0; i < n; i++) { a->ptr_attr(&start, 11 /* RANGE_START_ADDR */, p + 64); evict(); } break;
    default: for (long i = 0; i < n; i++) { a->launch(fn, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL); evict(); } if (a->sync) a->sync(); break;
    }
}

static void report(const char *name, double *u, double *t, int traced) {
    double d[ROUNDS];
    for (int k = 0; k < ROUNDS; k++) d[k] = t[k] - u[k];
    qsort(u, ROUNDS, sizeof u[0], cmp);
    if (!traced) {
        printf("%-28s %8.1f ns/call (median of %d rounds; min %.1f)\n", name, u[ROUNDS / 2], ROUNDS, u[0]);
        return;
    }
    qsort(t, ROUNDS, sizeof t[0], cmp);
    qsort(d, ROUNDS, sizeof d[0], cmp);
    printf("%-28s untraced %8.1f  traced %8.1f  added %7.1f ns/call (medians of %d paired rounds; added min %.1f max %.1f)\n",
           name, u[ROUNDS / 2], t[ROUNDS / 2], d[ROUNDS / 2], ROUNDS, d[0], d[ROUNDS - 1]);
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 200000;
    const char *bc = getenv("BENCH_CLOCK");
    if (bc && strcmp(bc, "thread") == 0) bench_clock = CLOCK_THREAD_CPUTIME_ID;
    const char *ev = getenv("BENCH_EVICT");
    if (ev && atol(ev) > 0) {
        evict_bytes = (size_t)atol(ev) * 1024;
        evict_buf = calloc(evict_bytes, 1);
        if (!evict_buf) return 2;
        printf("after each call: %zu KiB of other memory written (BENCH_EVICT)\n", evict_bytes / 1024);
    }
    const char *tracer = argc > 2 ? argv[2] : NULL;
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "bench_calls: %s\n", dlerror()); return 2; }
    void *ht = tracer ? dlopen(tracer, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (tracer && !ht) { fprintf(stderr, "bench_calls: %s\n", dlerror()); return 2; }
    Dl_info info;
    api u, t;
    if (!bind(h, &u) || (ht && !bind(ht, &t))) { fprintf(stderr, "bench_calls: the driver lacks a function this benchmark needs\n"); return 2; }
    dladdr((void *)u.init, &info);
    printf("driver (untraced): %s\n", info.dli_fname);
    if (ht) {
        dladdr((void *)t.init, &info);
        printf("tracer:            %s\n", info.dli_fname);
        if (t.init == u.init) { fprintf(stderr, "bench_calls: the tracer and the driver are the same library (LD_LIBRARY_PATH names the tracer?)\n"); return 2; }
    }
    const api *setup = ht ? &t : &u;
    int dev;
    void *ctx, *mod = NULL;
    if (setup->init(0) || setup->dev_get(&dev, 0) || setup->ctx_create(&ctx, 0, dev) || setup->alloc(&p, 1 << 20)) {
        fprintf(stderr, "bench_calls: setup failed\n");
        return 3;
    }
    int launches = setup->load && setup->get_fn && setup->launch && setup->load(&mod, PTX) == 0 && setup->get_fn(&fn, mod, "empty") == 0;
    static const char *const names[] = {"cuCtxGetCurrent", "cuPointerGetAttribute", "cuLaunchKernel (empty, 1x1)"};
    for (int which = 0; which < 3; which++) {
        if (which == 2 && !launches) { printf("%-28s skipped (no module support)\n", names[2]); continue; }
        long calls = which == 2 ? (n / 10 > 0 ? n / 10 : 1) : n;
        double ru[ROUNDS], rt[ROUNDS];
        loop(&u, which, calls / 10 + 1);       /* warm-up */
        if (ht) loop(&t, which, calls / 10 + 1);
        for (int k = 0; k < ROUNDS; k++) {
            double t0 = now();
            loop(&u, which, calls);
            ru[k] = (now() - t0) / calls;
            if (ht) {
                t0 = now();
                loop(&t, which, calls);
                rt[k] = (now() - t0) / calls;
            }
        }
        report(names[which], ru, rt, ht != NULL);
    }
    return 0;
}
