/*
 * entry_smoke: loads a libcuda.so.1 with dlopen, as cudart does, and checks what the zluda entry
 * must do before any kernel runs: cuInit, cuDriverGetVersion, device enumeration, error names,
 * cuGetProcAddress returning working exports, and CUDA_ERROR_NOT_SUPPORTED for an unimplemented
 * function. Prints one line per check and "N passed, M failed"; exit 0 only if all pass.
 * Usage: entry_smoke PATH/TO/libcuda.so.1
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int passed, failed;
#define CHECK(cond, ...) do { if (cond) { passed++; printf("ok   "); } else { failed++; printf("FAIL "); } printf(__VA_ARGS__); printf("\n"); } while (0)

typedef int (*i_u)(unsigned);
typedef int (*i_pi)(int *);
typedef int (*i_pi_i)(int *, int);
typedef int (*i_s_i_i)(char *, int, int);
typedef int (*i_pz_i)(size_t *, int);
typedef int (*i_i_ps)(int, const char **);
typedef int (*gpa_t)(const char *, void **, int, uint64_t, int *);
typedef int (*i_pp_u)(void **, unsigned);

int main(int argc, char **argv) {
    const char *lib = argc > 1 ? argv[1] : "libcuda.so.1";
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) { printf("FAIL dlopen %s: %s\n0 passed, 1 failed\n", lib, dlerror()); return 1; }
    int r = ((i_u)dlsym(h, "cuInit"))(0);
    CHECK(r == 0, "cuInit(0) -> %d", r);
    int v = 0;
    r = ((i_pi)dlsym(h, "cuDriverGetVersion"))(&v);
    CHECK(r == 0 && v >= 13000, "cuDriverGetVersion -> %d, version %d (cudart 13 needs >= 13000)", r, v);
    int n = -1;
    r = ((i_pi)dlsym(h, "cuDeviceGetCount"))(&n);
    CHECK(r == 0 && n == 1, "cuDeviceGetCount -> %d, count %d", r, n);
    int dev = -1;
    r = ((i_pi_i)dlsym(h, "cuDeviceGet"))(&dev, 0);
    CHECK(r == 0 && dev == 0, "cuDeviceGet(0) -> %d, device %d", r, dev);
    r = ((i_pi_i)dlsym(h, "cuDeviceGet"))(&dev, 1);
    CHECK(r == 101, "cuDeviceGet(1) -> %d (CUDA_ERROR_INVALID_DEVICE is 101)", r);
    char name[256] = {0};
    r = ((i_s_i_i)dlsym(h, "cuDeviceGetName"))(name, sizeof name, 0);
    CHECK(r == 0 && strstr(name, "ZLUDA") != NULL, "cuDeviceGetName -> %d, \"%s\"", r, name);
    char small[6];
    memset(small, 'x', sizeof small);
    r = ((i_s_i_i)dlsym(h, "cuDeviceGetName"))(small, sizeof small, 0);
    CHECK(r == 0 && small[5] == 0, "cuDeviceGetName into 6 bytes is NUL-terminated -> \"%s\"", small);
    size_t mem = 0;
    r = ((i_pz_i)dlsym(h, "cuDeviceTotalMem_v2"))(&mem, 0);
    CHECK(r == 0 && mem > 0, "cuDeviceTotalMem_v2 -> %d, %zu bytes", r, mem);
    const char *s = NULL;
    r = ((i_i_ps)dlsym(h, "cuGetErrorName"))(801, &s);
    CHECK(r == 0 && s && strcmp(s, "CUDA_ERROR_NOT_SUPPORTED") == 0, "cuGetErrorName(801) -> %d, %s", r, s ? s : "(null)");
    r = ((i_i_ps)dlsym(h, "cuGetErrorString"))(1, &s);
    CHECK(r == 0 && s && strcmp(s, "invalid argument") == 0, "cuGetErrorString(1) -> %d, \"%s\" (NVIDIA's text)", r, s ? s : "(null)");
    r = ((i_i_ps)dlsym(h, "cuGetErrorName"))(123456, &s);
    CHECK(r == 1, "cuGetErrorName(123456) -> %d (CUDA_ERROR_INVALID_VALUE)", r);
    gpa_t gpa = (gpa_t)dlsym(h, "cuGetProcAddress_v2");
    void *fn = NULL;
    int status = -1;
    r = gpa("cuDeviceGetCount", &fn, 13000, 0, &status);
    CHECK(r == 0 && status == 0 && fn == dlsym(h, "cuDeviceGetCount"), "cuGetProcAddress_v2(cuDeviceGetCount) -> %d, status %d, the export", r, status);
    r = gpa("cuMemcpyHtoD", &fn, 12000, 2, &status);
    CHECK(r == 0 && fn == dlsym(h, "cuMemcpyHtoD_v2_ptds"), "cuGetProcAddress_v2(cuMemcpyHtoD, 12000, PER_THREAD) -> cuMemcpyHtoD_v2_ptds");
    r = gpa("cuNoSuchFunction", &fn, 13000, 0, &status);
    CHECK(r == 0 && status == 1 && fn == NULL, "cuGetProcAddress_v2(cuNoSuchFunction) -> %d, status %d (SYMBOL_NOT_FOUND)", r, status);
    typedef int (*gpa1_t)(const char *, void **, int, uint64_t);
    fn = (void *)&passed;
    r = ((gpa1_t)dlsym(h, "cuGetProcAddress"))("cuNoSuchFunction", &fn, 13000, 0);
    CHECK(r == 500 && fn == (void *)&passed, "cuGetProcAddress(cuNoSuchFunction) -> %d (CUDA_ERROR_NOT_FOUND), pfn unchanged", r);
    void *p = NULL;
    r = ((i_pp_u)dlsym(h, "cuCtxAttach"))(&p, 0);
    CHECK(r == 801, "an unimplemented function (cuCtxAttach) -> %d (CUDA_ERROR_NOT_SUPPORTED)", r);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
