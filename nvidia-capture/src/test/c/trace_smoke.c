/*
 * trace_smoke: a CUDA driver-API program for the tracer's tests. It loads libcuda.so.1 as cudart
 * does (dlopen), makes a known sequence of calls, some through a pointer from cuGetProcAddress_v2,
 * and with an argument "threads N" repeats cuCtxGetCurrent from N threads; with "crash" it kills
 * itself with SIGKILL right after cuMemcpyHtoD_v2 returns. With "range" it then makes one cuCtxGetCurrent, a
 * cuProfilerStart, two cuCtxGetCurrent, a cuProfilerStop and one more cuCtxGetCurrent (a capture range). With "export" it then uses the export
 * tables as the CUDA runtime does (fake_cuda.c serves them) and checks every answer, the integrity
 * check's HMAC-MD2 over the tables it was given included. With "kernels" it launches the stand-in
 * driver's kernels "scale" (through kernelParams, through `extra`, and with cuLaunchKernelEx) and
 * "bump", then "scale" again as a CUkernel, and checks their results. With "segv" it makes the stand-in driver crash inside
 * cuMemcpyHtoD_v2 (a device pointer of 0x10). It always makes one more cuCtxGetCurrent from an
 * atexit handler registered before the driver was loaded (as cudart's teardown does).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "md2.h"

static int (*ctx_get_current)(void **);
static long per_thread = 1000;

static void *worker(void *arg) {
    (void)arg;
    void *c;
    for (long i = 0; i < per_thread; i++) ctx_get_current(&c);
    return NULL;
}

static const unsigned char GUID_CUDART[16] = {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9};
static const unsigned char GUID_INTEGRITY[16] = {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2};
static const unsigned char GUID_CLS[16] = {0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93};
static const unsigned char GUID_MYSTERY[16] = "zluda-test-table";

#define CHECK(cond, code) do { if (!(cond)) { fprintf(stderr, "trace_smoke export: %s failed (line %d)\n", #cond, __LINE__); return code; } } while (0)

/* A fatbin with one plain PTX entry (layout: cuda-facts.md "Fatbins"), and its wrapper. */
static const char FATBIN_PTX[] = ".version 7.0\n.target sm_52\n.address_size 64\n.visible .entry from_fatbin()\n{\n ret;\n}\n";
static struct { uint32_t magic; uint16_t version, header; uint64_t size; uint8_t entry[64]; char ptx[sizeof FATBIN_PTX]; } fatbin;
static struct { uint32_t magic, version; const void *data, *extra; } wrapper;

static int export_checks(void *h) {
    int (*get)(const void **, const unsigned char *) = (int (*)(const void **, const unsigned char *))dlsym(h, "cuGetExportTable");
    CHECK(get != NULL, 20);
    void *const *cudart = NULL, *const *integ = NULL, *const *cls = NULL, *const *myst = NULL;
    CHECK(get((const void **)&cudart, GUID_CUDART) == 0 && cudart, 21);
    CHECK(get((const void **)&integ, GUID_INTEGRITY) == 0 && integ, 21);
    CHECK(get((const void **)&cls, GUID_CLS) == 0 && cls, 21);
    CHECK(get((const void **)&myst, GUID_MYSTERY) == 0 && myst, 21);
    void *const *again = NULL;
    CHECK(get((const void **)&again, GUID_CUDART) == 0 && again == cudart, 22);   /* the same table each time */
    CHECK((uintptr_t)cudart[0] == 13 * 8, 23);                                     /* the size slot is kept */

    /* CUDART_INTERFACE [1]: a module from a fatbin wrapper */
    fatbin.magic = 0xBA55ED50u; fatbin.version = 1; fatbin.header = 16; fatbin.size = 64 + sizeof FATBIN_PTX;
    uint16_t kind = 1, ver = 0x0101;
    uint32_t ehs = 64, payload = sizeof FATBIN_PTX, sm = 52;
    uint64_t flags = 0x11;
    memcpy(fatbin.entry, &kind, 2); memcpy(fatbin.entry + 2, &ver, 2); memcpy(fatbin.entry + 4, &ehs, 4);
    memcpy(fatbin.entry + 8, &payload, 4); memcpy(fatbin.entry + 28, &sm, 4); memcpy(fatbin.entry + 40, &flags, 8);
    memcpy(fatbin.ptx, FATBIN_PTX, sizeof FATBIN_PTX);
    wrapper.magic = 0x466243B1u; wrapper.version = 1; wrapper.data = &fatbin;
    void *mod = NULL;
    CHECK(((int (*)(void **, const void *))cudart[1])(&mod, &wrapper) == 0 && mod, 24);
    void *pctx = NULL;
    CHECK(((int (*)(void **, int))cudart[2])(&pctx, 0) == 0 && pctx, 25);
    ((void (*)(uintptr_t))cudart[7])(5);
    CHECK(((int (*)(void))cudart[12])() == 0, 26);
    CHECK(((int (*)(int, int))cudart[3])(1, 2) == 801, 27);   /* a slot nobody knows: forwarded as is */

    /* INTEGRITY_CHECK [1]: what cudart computes itself over the tables it got */
    int (*check)(uint32_t, uint64_t, uint64_t *) = (int (*)(uint32_t, uint64_t, uint64_t *))integ[1];
    uint64_t out[2] = {0, 0}, expect[2];
    CHECK(check(13000, 1764460800u, out) == 0 && out[0] == 0x3341181C03CB675Cull, 28);
    CHECK(check(13002, 1764460800u, out) == 0, 29);
    int (*uuid)(unsigned char *, int) = (int (*)(unsigned char *, int))dlsym(h, "cuDeviceGetUuid_v2");
    int (*attr)(int *, int, int) = (int (*)(int *, int, int))dlsym(h, "cuDeviceGetAttribute");
    int (*drv)(int *) = (int (*)(int *))dlsym(h, "cuDriverGetVersion");
    zt_integrity_device d;
    int dv = 0;
    CHECK(uuid(d.uuid, 0) == 0 && attr(&d.pci_domain, 50, 0) == 0 && attr(&d.pci_bus, 33, 0) == 0 && attr(&d.pci_device, 34, 0) == 0 && drv(&dv) == 0, 30);
    zt_integrity_answer(13002, 1764460800u, (uint32_t)dv, (uint32_t)getpid(), (uint32_t)(uintptr_t)pthread_self(),
                        (uint64_t)(uintptr_t)cudart, (uint64_t)(uintptr_t)integ, (uint64_t)(uintptr_t)integ[1], &d, 1, expect);
    if (out[0] != expect[0] || out[1] != expect[1]) {
        fprintf(stderr, "trace_smoke export: integrity answer %016llx %016llx, expected %016llx %016llx\n",
                (unsigned long long)out[0], (unsigned long long)out[1], (unsigned long long)expect[0], (unsigned long long)expect[1]);
        return 31;
    }

    /* CONTEXT_LOCAL_STORAGE: no size slot, NULL-terminated */
    uint64_t v = 0;
    CHECK(((int (*)(void *, uint64_t, uint64_t, void *))cls[0])(NULL, 7, 99, NULL) == 0, 32);
    CHECK(((int (*)(uint64_t *, void *, uint64_t))cls[2])(&v, NULL, 7) == 0 && v == 99, 33);
    CHECK(((int (*)(void *, uint64_t))cls[1])(NULL, 7) == 0, 34);
    CHECK(((int (*)(uint64_t *, void *, uint64_t))cls[2])(&v, NULL, 7) == 400, 35);
    CHECK(cls[3] != NULL && cls[4] == NULL, 36);

    /* a table nobody knows: eight integers (two on the stack) and two doubles through the generic forwarder */
    double (*mix)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, double, double) =
        (double (*)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, double, double))myst[1];
    double m = mix(1, 2, 3, 4, 5, 6, 7, 8, 2.0, 4.0);
    CHECK(m == 206.0, 37);
    CHECK(*(const long *)myst[2] == 42, 38);   /* a data entry is passed through unwrapped */
    printf("trace_smoke: export tables ok\n");
    return 0;
}

static int kernel_checks(void *h) {
    int (*alloc)(uint64_t *, size_t) = (int (*)(uint64_t *, size_t))dlsym(h, "cuMemAlloc_v2");
    int (*htod)(uint64_t, const void *, size_t) = (int (*)(uint64_t, const void *, size_t))dlsym(h, "cuMemcpyHtoD_v2");
    int (*dtoh)(void *, uint64_t, size_t) = (int (*)(void *, uint64_t, size_t))dlsym(h, "cuMemcpyDtoH_v2");
    int (*load)(void **, const void *) = (int (*)(void **, const void *))dlsym(h, "cuModuleLoadData");
    int (*getfn)(void **, void *, const char *) = (int (*)(void **, void *, const char *))dlsym(h, "cuModuleGetFunction");
    int (*launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **, void **) =
        (int (*)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **, void **))dlsym(h, "cuLaunchKernel");
    int (*launch_ex)(const void *, void *, void **, void **) = (int (*)(const void *, void *, void **, void **))dlsym(h, "cuLaunchKernelEx");
    CHECK(alloc && htod && dtoh && load && getfn && launch && launch_ex, 40);
    uint64_t data = 0, counter = 0;
    float host[16];
    for (int i = 0; i < 16; i++) host[i] = (float)(i + 1);
    int zero = 0;
    CHECK(alloc(&data, sizeof host) == 0 && alloc(&counter, sizeof zero) == 0, 41);
    CHECK(htod(data, host, sizeof host) == 0 && htod(counter, &zero, sizeof zero) == 0, 42);
    void *mod = NULL, *scale = NULL, *bump = NULL;
    CHECK(load(&mod, ".version 7.0\n") == 0 && getfn(&scale, mod, "scale") == 0 && getfn(&bump, mod, "bump") == 0, 43);
    int n = 16;
    float factor = 3.0f;
    void *args[] = {&data, &n, &factor};
    CHECK(launch(scale, 1, 1, 1, 16, 1, 1, 0, NULL, args, NULL) == 0, 44);        /* data = 3 * (i + 1) */
    void *bargs[] = {&counter};
    CHECK(launch(bump, 1, 1, 1, 1, 1, 1, 0, NULL, bargs, NULL) == 0, 45);         /* not snapshotted by "^scale$" */
    struct { uint64_t p; int n; float f; } packed = {data, 8, 0.5f};
    size_t packed_size = sizeof packed;
    void *extra[] = {(void *)1, &packed, (void *)2, &packed_size, NULL};
    CHECK(launch(scale, 1, 1, 1, 8, 1, 1, 0, NULL, NULL, extra) == 0, 46);        /* first 8 halved */
    struct { unsigned g[3], b[3], shared; uint32_t pad; uint64_t stream; void *attrs; unsigned nattrs; } config = {{1, 1, 1}, {4, 1, 1}, 0, 0, 0, NULL, 0};
    int four = 4;
    float two = 2.0f;
    void *exargs[] = {&data, &four, &two};
    CHECK(launch_ex(&config, scale, exargs, NULL) == 0, 47);                      /* first 4 doubled */
    int (*lib_kernel)(void **, void *, const char *) = (int (*)(void **, void *, const char *))dlsym(h, "cuLibraryGetKernel");
    void *kscale = NULL;
    float one = 1.0f;
    void *kargs[] = {&data, &n, &one};
    CHECK(lib_kernel && lib_kernel(&kscale, NULL, "scale") == 0, 51);
    CHECK(launch(kscale, 1, 1, 1, 16, 1, 1, 0, NULL, kargs, NULL) == 0, 52);      /* a CUkernel, as cudart launches: x1 */
    float back[16];
    int count = 0;
    CHECK(dtoh(back, data, sizeof back) == 0 && dtoh(&count, counter, sizeof count) == 0, 48);
    for (int i = 0; i < 16; i++) {
        float expect = 3.0f * (float)(i + 1) * (i < 8 ? 0.5f : 1.0f) * (i < 4 ? 2.0f : 1.0f);
        CHECK(back[i] == expect, 49);
    }
    CHECK(count == 1, 50);
    printf("trace_smoke: kernels ok\n");
    return 0;
}

static void last_call(void) {
    void *c;
    if (ctx_get_current) ctx_get_current(&c);
}

int main(int argc, char **argv) {
    atexit(last_call);
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
    if (argc > 1 && strcmp(argv[1], "segv") == 0) htod(0x10, msg, sizeof msg);   /* dies inside the driver */
    char back[64] = {0};
    dtoh(back, p, sizeof back);
    mfree(p);
    if (argc > 1 && strcmp(argv[1], "range") == 0) {
        int (*start)(void) = (int (*)(void))dlsym(h, "cuProfilerStart");
        int (*stop)(void) = (int (*)(void))dlsym(h, "cuProfilerStop");
        void *c;
        ctx_get_current(&c);
        if (start() != 0) return 10;
        ctx_get_current(&c);
        ctx_get_current(&c);
        if (stop() != 0) return 11;
        ctx_get_current(&c);
    }
    if (argc > 1 && strcmp(argv[1], "export") == 0) {
        int rc = export_checks(h);
        if (rc) return rc;
    }
    if (argc > 1 && strcmp(argv[1], "kernels") == 0) {
        int rc = kernel_checks(h);
        if (rc) return rc;
    }
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
