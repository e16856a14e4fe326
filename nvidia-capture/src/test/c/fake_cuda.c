/*
 * A small stand-in for NVIDIA's libcuda.so.1, for testing the tracer where no NVIDIA GPU exists:
 * a handful of driver functions with plausible behaviour (device memory is malloc'd host memory),
 * and export tables laid out as NVIDIA's are (shared/reference/cuda-facts.md): CUDART_INTERFACE
 * (sized), INTEGRITY_CHECK (answering the HMAC-MD2 over its own tables), CONTEXT_LOCAL_STORAGE
 * (no size slot, NULL-terminated) and one table of a GUID nobody knows, whose slot 1 takes eight
 * integer and two double arguments (some on the stack) and returns a double.
 * It is a test fixture, not a driver.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "md2.h"

#define EXPORT __attribute__((visibility("default")))

static int inited;

EXPORT int cuInit(unsigned flags) { if (flags) return 1; inited = 1; return 0; }
EXPORT int cuDriverGetVersion(int *v) { if (!v) return 1; *v = 13000; return 0; }
EXPORT int cuDeviceGetCount(int *n) { if (!inited) return 3; *n = 1; return 0; }
EXPORT int cuDeviceGet(int *d, int ordinal) { if (!inited) return 3; if (ordinal) return 101; *d = 0; return 0; }
EXPORT int cuDeviceGetName(char *name, int len, int dev) {
    if (!inited) return 3;
    if (dev) return 101;
    strncpy(name, "Fake CUDA device", (size_t)len);
    if (len > 0) name[len - 1] = 0;
    return 0;
}
static int the_context;
EXPORT int cuCtxCreate_v2(void **ctx, unsigned flags, int dev) { (void)flags; if (!inited) return 3; if (dev) return 101; *ctx = &the_context; return 0; }
EXPORT int cuCtxGetCurrent(void **ctx) { *ctx = &the_context; return 0; }
EXPORT int cuProfilerStart(void) { return 0; }
EXPORT int cuProfilerStop(void) { return 0; }
/* allocations, so that address ranges can be answered */
#define MAX_ALLOCS 4096
static struct { uint64_t base, size; } allocs[MAX_ALLOCS];
static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static int find_alloc(uint64_t p, uint64_t *base, uint64_t *size) {
    int found = 0;
    pthread_mutex_lock(&alloc_lock);
    for (int i = 0; i < MAX_ALLOCS && !found; i++) {
        if (allocs[i].size && p >= allocs[i].base && p < allocs[i].base + allocs[i].size) { *base = allocs[i].base; *size = allocs[i].size; found = 1; }
    }
    pthread_mutex_unlock(&alloc_lock);
    return found;
}
EXPORT int cuPointerGetAttribute(void *data, int attr, uint64_t p) {
    uint64_t base, size;
    if ((attr != 11 && attr != 12) || !find_alloc(p, &base, &size)) return 1;
    *(uint64_t *)data = attr == 11 ? base : size;
    return 0;
}
EXPORT int cuMemGetAddressRange_v2(uint64_t *pbase, size_t *psize, uint64_t p) {
    uint64_t base, size;
    if (!find_alloc(p, &base, &size)) return 1;
    if (pbase) *pbase = base;
    if (psize) *psize = size;
    return 0;
}
EXPORT int cuMemAlloc_v2(uint64_t *p, size_t n) {
    if (!inited) return 3;
    if (!n) return 1;
    *p = (uint64_t)(uintptr_t)malloc(n);
    pthread_mutex_lock(&alloc_lock);
    for (int i = 0; i < MAX_ALLOCS; i++) if (!allocs[i].size) { allocs[i].base = *p; allocs[i].size = n; break; }
    pthread_mutex_unlock(&alloc_lock);
    return 0;
}
EXPORT int cuMemFree_v2(uint64_t p) {
    pthread_mutex_lock(&alloc_lock);
    for (int i = 0; i < MAX_ALLOCS; i++) if (allocs[i].size && allocs[i].base == p) allocs[i].size = 0;
    pthread_mutex_unlock(&alloc_lock);
    free((void *)(uintptr_t)p);
    return 0;
}
EXPORT int cuMemcpyHtoD_v2(uint64_t dst, const void *src, size_t n) { memcpy((void *)(uintptr_t)dst, src, n); return 0; }
EXPORT int cuMemcpyDtoH_v2(void *dst, uint64_t src, size_t n) { memcpy(dst, (void *)(uintptr_t)src, n); return 0; }
static int the_module;
EXPORT int cuModuleLoadData(void **module, const void *image) { if (!inited) return 3; if (!image) return 1; *module = &the_module; return 0; }
EXPORT int cuGetErrorName(int e, const char **s) { *s = e == 0 ? "CUDA_SUCCESS" : "CUDA_ERROR_INVALID_VALUE"; return 0; }
EXPORT int cuGetProcAddress_v2(const char *sym, void **pfn, int version, uint64_t flags, int *status) {
    (void)version; (void)flags;
    *pfn = dlsym(RTLD_DEFAULT, sym);
    /* only this library's own symbols */
    Dl_info a, b;
    if (*pfn && (!dladdr(*pfn, &a) || !dladdr((void *)&cuInit, &b) || a.dli_fbase != b.dli_fbase)) *pfn = NULL;
    if (status) *status = *pfn ? 0 : 1;
    return 0;
}

EXPORT int cuDeviceGetUuid_v2(unsigned char *uuid, int dev) { if (dev) return 101; memcpy(uuid, "fake-device-0001", 16); return 0; }
EXPORT int cuDeviceGetUuid(unsigned char *uuid, int dev) { return cuDeviceGetUuid_v2(uuid, dev); }
EXPORT int cuDeviceGetAttribute(int *v, int attr, int dev) {
    if (dev) return 101;
    switch (attr) {
    case 50: *v = 0; return 0;      /* PCI domain */
    case 33: *v = 0x1b; return 0;   /* PCI bus */
    case 34: *v = 0; return 0;      /* PCI device */
    case 75: *v = 9; return 0; case 76: *v = 0; return 0;   /* compute capability 9.0 */
    default: *v = 1; return 0;
    }
}

/* ------------------------------------------------------------------ export tables */

static int cudart_module_from_wrapper(void **pmodule, const void *wrapper) {
    if (!pmodule || !wrapper || *(const uint32_t *)wrapper != 0x466243B1u) return 1;
    *pmodule = &the_module;
    return 0;
}
static int cudart_primary_context(void **pctx, int dev) { if (dev) return 101; *pctx = &the_context; return 0; }
static void cudart_noop(uintptr_t x) { (void)x; }
static int cudart_load_compilers(void) { return 0; }
static int unknown_slot(void) { return 801; }

static void *cudart_interface[13] = {
    (void *)(uintptr_t)(13 * sizeof(void *)), (void *)cudart_module_from_wrapper, (void *)cudart_primary_context,
    (void *)unknown_slot, (void *)unknown_slot, (void *)unknown_slot, (void *)unknown_slot, (void *)cudart_noop,
    (void *)unknown_slot, (void *)unknown_slot, (void *)unknown_slot, (void *)unknown_slot, (void *)cudart_load_compilers,
};

static int integrity_check(uint32_t version, uint64_t seconds, uint64_t out[2]);
static void *integrity_table[3] = {(void *)(uintptr_t)(3 * sizeof(void *)), (void *)integrity_check, (void *)unknown_slot};

static int integrity_check(uint32_t version, uint64_t seconds, uint64_t out[2]) {
    if (!out) return 1;
    zt_integrity_device d;
    cuDeviceGetUuid_v2(d.uuid, 0);
    cuDeviceGetAttribute(&d.pci_domain, 50, 0);
    cuDeviceGetAttribute(&d.pci_bus, 33, 0);
    cuDeviceGetAttribute(&d.pci_device, 34, 0);
    zt_integrity_answer(version, seconds, 13000, (uint32_t)getpid(), (uint32_t)(uintptr_t)pthread_self(),
                        (uint64_t)(uintptr_t)cudart_interface, (uint64_t)(uintptr_t)integrity_table,
                        (uint64_t)(uintptr_t)integrity_table[1], &d, 1, out);
    return 0;
}

static struct { uint64_t key, value; } cls[16];
static int cls_put(void *ctx, uint64_t key, uint64_t value, void *dtor) {
    (void)ctx; (void)dtor;
    for (int i = 0; i < 16; i++) if (!cls[i].key || cls[i].key == key) { cls[i].key = key; cls[i].value = value; return 0; }
    return 2;
}
static int cls_delete(void *ctx, uint64_t key) { (void)ctx; for (int i = 0; i < 16; i++) if (cls[i].key == key) cls[i].key = 0; return 0; }
static int cls_get(uint64_t *value, void *ctx, uint64_t key) {
    (void)ctx;
    for (int i = 0; i < 16; i++) if (cls[i].key == key && key) { *value = cls[i].value; return 0; }
    return 400; /* CUDA_ERROR_INVALID_HANDLE */
}
/* no size slot: the table ends at the first NULL */
static void *context_local_storage[5] = {(void *)cls_put, (void *)cls_delete, (void *)cls_get, (void *)unknown_slot, NULL};

/* slot 1 of a table nobody knows: 8 integer arguments (two on the stack) and two doubles */
static double mystery_mix(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f, uint64_t g, uint64_t h, double x, double y) {
    return (double)(a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h) + x * 0.5 + y * 0.25;
}
static long mystery_data = 42;
static void *mystery_table[4] = {(void *)(uintptr_t)(4 * sizeof(void *)), (void *)mystery_mix, (void *)&mystery_data, (void *)unknown_slot};

static const unsigned char GUID_CUDART[16] = {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9};
static const unsigned char GUID_INTEGRITY[16] = {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2};
static const unsigned char GUID_CLS[16] = {0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93};
static const unsigned char GUID_MYSTERY[16] = "zluda-test-table";

EXPORT int cuGetExportTable(const void **pp, const unsigned char *guid) {
    if (!pp || !guid) return 1;
    *pp = NULL;
    if (!memcmp(guid, GUID_CUDART, 16)) *pp = cudart_interface;
    else if (!memcmp(guid, GUID_INTEGRITY, 16)) *pp = integrity_table;
    else if (!memcmp(guid, GUID_CLS, 16)) *pp = context_local_storage;
    else if (!memcmp(guid, GUID_MYSTERY, 16)) *pp = mystery_table;
    return *pp ? 0 : 500; /* CUDA_ERROR_NOT_FOUND */
}

/* ------------------------------------------------------------------ kernels */
/* "scale"(float *data, int n, float factor): data[i] *= factor; "bump"(int *p): *p += 1. Run at launch. */
struct fake_fn { const char *name; int nparams; size_t off[3], size[3]; };
static const struct fake_fn fn_scale = {"scale", 3, {0, 8, 12}, {8, 4, 4}};
static const struct fake_fn fn_bump = {"bump", 1, {0}, {8}};
EXPORT int cuModuleGetFunction(const struct fake_fn **f, void *mod, const char *name) {
    if (mod != &the_module || !f || !name) return 1;
    if (!strcmp(name, "scale")) *f = &fn_scale;
    else if (!strcmp(name, "bump")) *f = &fn_bump;
    else return 500;
    return 0;
}
/* "scale" as a CUkernel (what cuLibraryGetKernel gives cudart): only the cuKernel* queries know it */
static const struct fake_fn kernel_scale = {"scale", 3, {0, 8, 12}, {8, 4, 4}};
EXPORT int cuLibraryGetKernel(const struct fake_fn **k, void *lib, const char *name) {
    (void)lib;
    if (!k || !name || strcmp(name, "scale")) return 500;
    *k = &kernel_scale;
    return 0;
}
EXPORT int cuKernelGetName(const char **name, const struct fake_fn *k) { if (!name || k != &kernel_scale) return 400; *name = k->name; return 0; }
EXPORT int cuKernelGetParamInfo(const struct fake_fn *k, size_t i, size_t *off, size_t *size) {
    if (k != &kernel_scale || (int)i >= k->nparams) return 1;
    if (off) *off = k->off[i];
    if (size) *size = k->size[i];
    return 0;
}
EXPORT int cuFuncGetName(const char **name, const struct fake_fn *f) { if (!name || !f || f == &kernel_scale) return 400; *name = f->name; return 0; }
EXPORT int cuFuncGetParamInfo(const struct fake_fn *f, size_t i, size_t *off, size_t *size) {
    if (!f || f == &kernel_scale || (int)i >= f->nparams) return 1;
    if (off) *off = f->off[i];
    if (size) *size = f->size[i];
    return 0;
}
EXPORT int cuCtxSynchronize(void) { return 0; }
EXPORT int cuStreamSynchronize(void *s) { (void)s; return 0; }
static int run_kernel(const struct fake_fn *f, void **params, void **extra) {
    unsigned char buf[16] = {0};
    if (params) {
        for (int i = 0; i < f->nparams; i++) memcpy(buf + f->off[i], params[i], f->size[i]);
    } else if (extra && extra[0] == (void *)1 && extra[2] == (void *)2) {
        size_t n = *(size_t *)extra[3];
        memcpy(buf, extra[1], n < sizeof buf ? n : sizeof buf);
    } else {
        return 1;
    }
    uint64_t p;
    memcpy(&p, buf, 8);
    if (f == &fn_scale) {
        int n;
        float factor;
        memcpy(&n, buf + 8, 4);
        memcpy(&factor, buf + 12, 4);
        for (int i = 0; i < n; i++) ((float *)(uintptr_t)p)[i] *= factor;
    } else {
        ++*(int *)(uintptr_t)p;
    }
    return 0;
}
EXPORT int cuLaunchKernel(const struct fake_fn *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                          unsigned shared, void *stream, void **params, void **extra) {
    (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)shared; (void)stream;
    if (f == &kernel_scale) f = &fn_scale;
    if (f != &fn_scale && f != &fn_bump) return 400;
    return run_kernel(f, params, extra);
}
EXPORT int cuLaunchKernelEx(const void *config, const struct fake_fn *f, void **params, void **extra) {
    if (!config) return 1;
    if (f != &fn_scale && f != &fn_bump) return 400;
    return run_kernel(f, params, extra);
}
