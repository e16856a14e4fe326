/*
 * trace_smoke: a CUDA driver-API program for the tracer's tests. It loads libcuda.so.1 as cudart
 * does (dlopen), makes a known sequence of calls, some through a pointer from cuGetProcAddress_v2,
 * and with an argument "threads N" repeats cuCtxGetCurrent from N threads; with "crash" it kills
 * itself with SIGKILL right after cuMemcpyHtoD_v2 returns.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int (*ctx_get_current)(void **);
static long per_thread = 1000;

static void *worker(void *arg) {
    (void)arg;
    void *c;
    for (long i = 0; i < per_thread; i++) ctx_get_current(&c);
    return NULL;
}

int main(int argc, char **argv) {
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "trace_smoke: %s\n", dlerror()); return 2; }
    int (*init)(unsigned) = (int (*)(unsigned))dlsym(h, "cuInit");
    int (*ver)(int *) = (int (*)(int *))dlsym(h, "cuDriverGetVersion");
    int (*gpa)(const char *, void **, int, uint64_t, int *) = (int (*)(const char *, void **, int, uint64_t, int *))dlsym(h, "cuGetProcAddress_v2");
    int (*alloc)(uint64_t *, size_t) = (int (*)(uint64_t *, size_t))dlsym(h, "cuMemAlloc_v2");
    int (*htod)(uint64_t, const void *, size_t) = (int (*)(uint64_t, const void *, size_t))dlsym(h, "cuMemcpyHtoD_v2");
    int (*dtoh)(void *, uint64_t, size_t) = (int (*)(void *, uint64_t, size_t))dlsym(h, "cuMemcpyDtoH_v2");
    int (*mfree)(uint64_t) = (int (*)(uint64_t))dlsym(h, "cuMemFree_v2");
    ctx_get_current = (int (*)(void **))dlsym(h, "cuCtxGetCurrent");
    int (*load)(void **, const void *) = (int (*)(void **, const void *))dlsym(h, "cuModuleLoadData");
    int v = 0;
    if (init(0) || ver(&v)) return 3;
    void *mod = NULL;
    static const char ptx[] = ".version 7.0\n.target sm_52\n.address_size 64\n.visible .entry smoke()\n{\n ret;\n}\n";
    if (load(&mod, ptx)) return 9;
    int (*dev_get)(int *, int) = NULL;
    int status = -1;
    gpa("cuDeviceGet", (void **)&dev_get, 13000, 0, &status);
    if (!dev_get || status != 0) { fprintf(stderr, "trace_smoke: no cuDeviceGet from cuGetProcAddress\n"); return 4; }
    int d = -1;
    if (dev_get(&d, 0)) return 5;
    if (dev_get(&d, 7) != 101) return 6;   /* an error, recorded as such */
    uint64_t p = 0;
    char msg[64] = "hello, zluda capture";
    if (alloc(&p, sizeof msg)) return 7;
    htod(p, msg, sizeof msg);
    if (argc > 1 && strcmp(argv[1], "crash") == 0) raise(SIGKILL);
    char back[64] = {0};
    dtoh(back, p, sizeof back);
    mfree(p);
    if (argc > 2 && strcmp(argv[1], "threads") == 0) {
        int n = atoi(argv[2]);
        if (argc > 3) per_thread = atol(argv[3]);
        pthread_t t[256];
        for (int i = 0; i < n && i < 256; i++) pthread_create(&t[i], NULL, worker, NULL);
        for (int i = 0; i < n && i < 256; i++) pthread_join(t[i], NULL);
    }
    printf("trace_smoke: %s\n", strcmp(back, msg) == 0 ? "ok" : "data mismatch");
    return strcmp(back, msg) == 0 ? 0 : 8;
}
