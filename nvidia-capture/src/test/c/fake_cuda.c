/*
 * A small stand-in for NVIDIA's libcuda.so.1, for testing the tracer where no NVIDIA GPU exists:
 * a handful of driver functions with plausible behaviour (device memory is malloc'd host memory).
 * It is a test fixture, not a driver.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
EXPORT int cuPointerGetAttribute(void *data, int attr, uint64_t p) { if (attr != 11) return 1; *(uint64_t *)data = p & ~(uint64_t)63; return 0; }
EXPORT int cuMemAlloc_v2(uint64_t *p, size_t n) { if (!inited) return 3; if (!n) return 1; *p = (uint64_t)(uintptr_t)malloc(n); return 0; }
EXPORT int cuMemFree_v2(uint64_t p) { free((void *)(uintptr_t)p); return 0; }
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
