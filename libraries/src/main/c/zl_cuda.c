/* The driver access and kernel launches shared by zluda's libcublas.so.13 and libcublasLt.so.13 (zl_cuda.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cublas_api.h"
#include "zl_cuda.h"

zl_driver_api zl_cu;

/* blas_kernels.ptx, NUL-terminated (ptx_embed.S) */
extern const char zl_blas_ptx[];

static const char *const kernel_names[ZK_COUNT] = {
    "zl_gemm_sss_s", "zl_gemm_sss_p", "zl_gemm_ddd_s", "zl_gemm_ddd_p", "zl_gemm_hhs_s", "zl_gemm_hhs_p", "zl_gemm_hss_s", "zl_gemm_hss_p",
    "zl_gemm_bbs_s", "zl_gemm_bbs_p", "zl_gemm_bss_s", "zl_gemm_bss_p",
    "zl_sgemv", "zl_dgemv", "zl_saxpy", "zl_daxpy", "zl_sscal", "zl_dscal", "zl_scopy", "zl_dcopy", "zl_sswap", "zl_dswap",
    "zl_sdot", "zl_ddot", "zl_sasum", "zl_dasum", "zl_snrm2", "zl_dnrm2", "zl_isamax", "zl_idamax", "zl_strsm_p", "zl_dtrsm_p",
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int driver_state; /* 0 not tried, 1 loaded, -1 failed */

int zl_driver(const char *library) {
    pthread_mutex_lock(&lock);
    if (driver_state == 0) {
        void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
        if (!h) {
            fprintf(stderr, "[ZLUDA] %s: cannot load libcuda.so.1 (%s): every call fails\n", library, dlerror());
            driver_state = -1;
        } else {
            struct { void **slot; const char *name; } fns[] = {
                {(void **)&zl_cu.cuInit, "cuInit"},
                {(void **)&zl_cu.cuDeviceGet, "cuDeviceGet"},
                {(void **)&zl_cu.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"},
                {(void **)&zl_cu.cuCtxGetCurrent, "cuCtxGetCurrent"},
                {(void **)&zl_cu.cuCtxSetCurrent, "cuCtxSetCurrent"},
                {(void **)&zl_cu.cuCtxPushCurrent, "cuCtxPushCurrent_v2"},
                {(void **)&zl_cu.cuCtxPopCurrent, "cuCtxPopCurrent_v2"},
                {(void **)&zl_cu.cuModuleLoadData, "cuModuleLoadData"},
                {(void **)&zl_cu.cuModuleGetFunction, "cuModuleGetFunction"},
                {(void **)&zl_cu.cuLaunchKernel, "cuLaunchKernel"},
                {(void **)&zl_cu.cuMemAlloc, "cuMemAlloc_v2"},
                {(void **)&zl_cu.cuMemFree, "cuMemFree_v2"},
                {(void **)&zl_cu.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2"},
                {(void **)&zl_cu.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"},
                {(void **)&zl_cu.cuMemcpy2D, "cuMemcpy2D_v2"},
                {(void **)&zl_cu.cuMemcpy2DAsync, "cuMemcpy2DAsync_v2"},
                {(void **)&zl_cu.cuStreamSynchronize, "cuStreamSynchronize"},
                {(void **)&zl_cu.cuGetErrorName, "cuGetErrorName"},
            };
            driver_state = 1;
            for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
                *fns[i].slot = dlsym(h, fns[i].name);
                if (!*fns[i].slot) {
                    fprintf(stderr, "[ZLUDA] %s: libcuda.so.1 lacks %s: every call fails\n", library, fns[i].name);
                    driver_state = -1;
                }
            }
        }
    }
    int ok = driver_state;
    pthread_mutex_unlock(&lock);
    return ok == 1 ? 0 : -1;
}

CUresult zl_context(CUcontext *ctx) {
    CUresult r = zl_cu.cuCtxGetCurrent(ctx);
    if (r == CUDA_SUCCESS && *ctx) return r;
    if (r != CUDA_SUCCESS && r != CUDA_ERROR_NOT_INITIALIZED) return r;
    if ((r = zl_cu.cuInit(0)) != CUDA_SUCCESS) return r;
    CUdevice dev;
    if ((r = zl_cu.cuDeviceGet(&dev, 0)) != CUDA_SUCCESS) return r;
    if ((r = zl_cu.cuDevicePrimaryCtxRetain(ctx, dev)) != CUDA_SUCCESS) return r;
    return zl_cu.cuCtxSetCurrent(*ctx);
}

/* One module of blas_kernels.ptx per context, its functions looked up on first use. */
#define MAX_CONTEXTS 64
static struct {
    CUcontext ctx;
    CUmodule module;
    CUfunction fn[ZK_COUNT];
} modules[MAX_CONTEXTS];

/* The function in ctx, which must be current. */
static CUresult function(CUcontext ctx, enum zl_kernel k, CUfunction *out) {
    pthread_mutex_lock(&lock);
    int slot = -1;
    for (int i = 0; i < MAX_CONTEXTS; i++) {
        if (modules[i].ctx == ctx && modules[i].module) { slot = i; break; }
        if (slot < 0 && !modules[i].module) slot = i;
    }
    CUresult r = CUDA_SUCCESS;
    if (slot < 0) {
        r = CUDA_ERROR_OUT_OF_MEMORY;
    } else {
        if (!modules[slot].module) {
            r = zl_cu.cuModuleLoadData(&modules[slot].module, zl_blas_ptx);
            if (r == CUDA_SUCCESS) {
                modules[slot].ctx = ctx;
                memset(modules[slot].fn, 0, sizeof modules[slot].fn);
            } else {
                modules[slot].module = NULL;
            }
        }
        if (r == CUDA_SUCCESS && !modules[slot].fn[k]) r = zl_cu.cuModuleGetFunction(&modules[slot].fn[k], modules[slot].module, kernel_names[k]);
        if (r == CUDA_SUCCESS) *out = modules[slot].fn[k];
    }
    pthread_mutex_unlock(&lock);
    return r;
}

CUresult zl_launch(CUcontext ctx, enum zl_kernel k, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   CUstream s, void **args) {
    CUcontext cur = NULL;
    zl_cu.cuCtxGetCurrent(&cur);
    int pushed = 0;
    CUresult r;
    if (ctx && cur != ctx) {
        if ((r = zl_cu.cuCtxPushCurrent(ctx)) != CUDA_SUCCESS) return r;
        pushed = 1;
    }
    CUfunction f;
    r = function(ctx ? ctx : cur, k, &f);
    if (r == CUDA_SUCCESS) r = zl_cu.cuLaunchKernel(f, gx, gy, gz, bx, by, bz, 0, s, args, NULL);
    if (pushed) {
        CUcontext dummy;
        zl_cu.cuCtxPopCurrent(&dummy);
    }
    return r;
}

CUresult zl_gemm_launch(CUcontext ctx, CUstream s, enum zl_kernel k, zl_gemm *g, CUdeviceptr A, CUdeviceptr B, CUdeviceptr C,
                        CUdeviceptr D, int64_t batch, int arrays, size_t esize_in, size_t esize_out) {
    /* a 16 x 16 CTA covers 64 x 64 elements of D (blas_kernels.cu: 4 x 4 per thread) */
    unsigned gx = (unsigned)((g->m + 63) / 64), gy = (unsigned)((g->n + 63) / 64);
    for (int64_t z0 = 0; z0 < batch; z0 += 65535) {
        int64_t nz = batch - z0 < 65535 ? batch - z0 : 65535;
        CUdeviceptr a, b, c, d;
        if (arrays) {
            a = A + (CUdeviceptr)(z0 * 8); b = B + (CUdeviceptr)(z0 * 8); c = C + (CUdeviceptr)(z0 * 8); d = D + (CUdeviceptr)(z0 * 8);
        } else {
            a = A + (CUdeviceptr)(z0 * g->a_bs * (int64_t)esize_in);
            b = B + (CUdeviceptr)(z0 * g->b_bs * (int64_t)esize_in);
            c = C + (CUdeviceptr)(z0 * g->c_bs * (int64_t)esize_out);
            d = D + (CUdeviceptr)(z0 * g->d_bs * (int64_t)esize_out);
        }
        void *args[] = {g, &a, &b, &c, &d};
        CUresult r = zl_launch(ctx, k, gx, gy, (unsigned)nz, 16, 16, 1, s, args);
        if (r != CUDA_SUCCESS) return r;
    }
    return CUDA_SUCCESS;
}

float zl_half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1F, man = h & 0x3FF, bits;
    if (exp == 0x1F) {
        bits = sign | 0x7F800000 | (man << 13);
    } else if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else {
            int e = -1;
            do { man <<= 1; e++; } while (!(man & 0x400));
            bits = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3FF) << 13);
        }
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

float zl_bf16_to_float(uint16_t h) {
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

#define MAX_SAID 256
static const char *said[MAX_SAID];
static int nsaid;

void zl_unsupported(const char *library, const char *function, const char *status) {
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nsaid; i++) {
        if (said[i] == function) { pthread_mutex_unlock(&lock); return; }
    }
    if (nsaid < MAX_SAID) said[nsaid++] = function;
    pthread_mutex_unlock(&lock);
    fprintf(stderr, "[ZLUDA] %s: %s is not supported by zluda's %s%s%s%s\n", library, function, library,
            status && *status ? " (returns " : "", status && *status ? status : "", status && *status ? ")" : "");
}

void zl_say(const char *library, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[ZLUDA] %s: ", library);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

const char *zl_cublas_status_name(int status) {
    switch (status) {
        case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
        case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
        case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
        case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
        case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
        case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
        case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
        case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
        case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
        case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
        default: return "CUBLAS_STATUS_UNKNOWN";
    }
}

int zl_cublas_property(int type, int *value) {
    if (!value) return CUBLAS_STATUS_INVALID_VALUE;
    switch (type) {
        case MAJOR_VERSION: *value = CUBLAS_VER_MAJOR; return CUBLAS_STATUS_SUCCESS;
        case MINOR_VERSION: *value = CUBLAS_VER_MINOR; return CUBLAS_STATUS_SUCCESS;
        case PATCH_LEVEL: *value = CUBLAS_VER_PATCH; return CUBLAS_STATUS_SUCCESS;
        default: return CUBLAS_STATUS_INVALID_VALUE;
    }
}
