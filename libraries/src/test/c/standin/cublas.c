/*
 * A stand-in for NVIDIA's libcublas.so.13 with the dependency shape of the real one: it NEEDs
 * libcublasLt.so.13 (in a traced process, the loader binds that to the libcublasLt tracer already
 * loaded, by soname) and calls into it: cublasLtCreate (in cublasLt.h) and cublasLtACCMatmul (exported,
 * declared nowhere); built with -DUNLISTED also cublasLtStandInUnlisted, an export the tracer does not
 * have. It reaches the driver as the real one does, through dlopen("libcuda.so.1"). Its functions answer
 * 0 (CUBLAS_STATUS_SUCCESS) when every call inside succeeded, 7 (CUBLAS_STATUS_INVALID_VALUE) or 13
 * (CUBLAS_STATUS_EXECUTION_FAILED) otherwise. A test fixture for LibraryTracerTest, not a library.
 */
#include <dlfcn.h>
#include <stddef.h>

#define EXPORT __attribute__((visibility("default")))

int cublasLtCreate(void **h);
int cublasLtDestroy(void *h);
int cublasLtACCMatmul(void);
#ifdef UNLISTED
int cublasLtStandInUnlisted(void);
#endif

struct handle { void *lt; };
static struct handle the_handle;

/* the first function of the tracer's list: how a tracer tells the real library from another file */
EXPORT int cublasAlloc(int n, int size, void **p) { (void)n; (void)size; (void)p; return 0; }

EXPORT int cublasCreate_v2(struct handle **h) {
    if (!h) return 7;
    void *drv = dlopen("libcuda.so.1", RTLD_NOW);
    int (*init)(unsigned) = drv ? (int (*)(unsigned))dlsym(drv, "cuInit") : NULL;
    int (*version)(int *) = drv ? (int (*)(int *))dlsym(drv, "cuDriverGetVersion") : NULL;
    int v = 0;
    if (!init || init(0) != 0 || !version || version(&v) != 0 || v < 13000) return 13;
    if (cublasLtCreate(&the_handle.lt) != 0 || cublasLtACCMatmul() != 1042) return 13;
#ifdef UNLISTED
    if (cublasLtStandInUnlisted() != 2042) return 13;
#endif
    *h = &the_handle;
    return 0;
}

EXPORT int cublasDestroy_v2(struct handle *h) {
    if (h != &the_handle) return 7;
    return cublasLtDestroy(h->lt) == 0 ? 0 : 13;
}
