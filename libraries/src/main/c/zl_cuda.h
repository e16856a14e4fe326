/*
 * The CUDA driver API as zluda's libraries (libcublas.so.13, libcublasLt.so.13) use it: every driver
 * function is looked up in libcuda.so.1 by dlopen/dlsym (the loader's search: zluda's driver under
 * `zluda run`, NVIDIA's, or a tracer in front of either), the libraries' kernels are PTX
 * (blas_kernels.ptx, embedded) loaded once per context with cuModuleLoadData and launched with
 * cuLaunchKernel, so the driver records, snapshots and diffs them like any program's kernels.
 */
#ifndef ZL_CUDA_H
#define ZL_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "cuda.h"

#define ZL_EXPORT __attribute__((visibility("default")))

/* The driver functions used, as pointers filled by zl_driver(). */
typedef struct {
    CUresult (*cuInit)(unsigned int);
    CUresult (*cuDeviceGet)(CUdevice *, int);
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*cuCtxGetCurrent)(CUcontext *);
    CUresult (*cuCtxSetCurrent)(CUcontext);
    CUresult (*cuCtxPushCurrent)(CUcontext);
    CUresult (*cuCtxPopCurrent)(CUcontext *);
    CUresult (*cuModuleLoadData)(CUmodule *, const void *);
    CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void **, void **);
    CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
    CUresult (*cuMemFree)(CUdeviceptr);
    CUresult (*cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
    CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
    CUresult (*cuMemcpy2D)(const CUDA_MEMCPY2D *);
    CUresult (*cuMemcpy2DAsync)(const CUDA_MEMCPY2D *, CUstream);
    CUresult (*cuStreamSynchronize)(CUstream);
    CUresult (*cuGetErrorName)(CUresult, const char **);
} zl_driver_api;

extern zl_driver_api zl_cu;

/* Loads libcuda.so.1 and fills zl_cu; 0 on success, -1 (said on stderr once) when it cannot. */
int zl_driver(const char *library);

/* The kernels of blas_kernels.ptx, by index. */
enum zl_kernel {
    ZK_GEMM_SSS_S, ZK_GEMM_SSS_P, ZK_GEMM_DDD_S, ZK_GEMM_DDD_P, ZK_GEMM_HHS_S, ZK_GEMM_HHS_P, ZK_GEMM_HSS_S, ZK_GEMM_HSS_P,
    ZK_GEMM_BBS_S, ZK_GEMM_BBS_P, ZK_GEMM_BSS_S, ZK_GEMM_BSS_P,
    ZK_SGEMV, ZK_DGEMV, ZK_SAXPY, ZK_DAXPY, ZK_SSCAL, ZK_DSCAL, ZK_SCOPY, ZK_DCOPY, ZK_SSWAP, ZK_DSWAP,
    ZK_SDOT, ZK_DDOT, ZK_SASUM, ZK_DASUM, ZK_SNRM2, ZK_DNRM2, ZK_ISAMAX, ZK_IDAMAX, ZK_STRSM_P, ZK_DTRSM_P,
    ZK_COUNT
};

/*
 * The context a handle binds to at creation: the current one, else device 0's primary context made
 * current (as cudart does on a program's first call). CUDA_SUCCESS or the driver's error.
 */
CUresult zl_context(CUcontext *ctx);

/* Launches kernel k in context ctx (made current for the call when it is not) on stream s. */
CUresult zl_launch(CUcontext ctx, enum zl_kernel k, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   CUstream s, void **args);

/* The geometry of one GEMM, laid out as struct Gemm of blas_kernels.cu (a kernel parameter). */
typedef struct {
    int m, n, k, ep, scalarKind, biasKind;
    int64_t a_rs, a_ks, b_ks, b_cs, c_rs, c_cs, d_rs, d_cs;
    int64_t a_bs, b_bs, c_bs, d_bs, bias_bs;
    double alpha, beta;
    CUdeviceptr alphaPtr, betaPtr, bias;
} zl_gemm;

/* Scalar kinds of zl_gemm.scalarKind; bias kinds of zl_gemm.biasKind (3: bf16). */
enum { ZL_F32 = 0, ZL_F64 = 1, ZL_F16 = 2, ZL_BF16 = 3 };

/*
 * Launches GEMM kernel k (a *_S or *_P entry) over `batch` problems: with arrays, A..D are device
 * arrays of `batch` pointers; else base addresses, batch z at z times the strides in g (elements of
 * esize_in / esize_out bytes). Splits batches over 65535 launches.
 */
CUresult zl_gemm_launch(CUcontext ctx, CUstream s, enum zl_kernel k, zl_gemm *g, CUdeviceptr A, CUdeviceptr B, CUdeviceptr C,
                        CUdeviceptr D, int64_t batch, int arrays, size_t esize_in, size_t esize_out);

/* fp16 / bf16 bits to float and back (round to nearest even), on the host. */
float zl_half_to_float(uint16_t h);
float zl_bf16_to_float(uint16_t h);

/* The name of a cublasStatus_t ("CUBLAS_STATUS_INVALID_VALUE"; "CUBLAS_STATUS_UNKNOWN" for another value): what
 * cublasGetStatusName and cublasLtGetStatusName return. */
const char *zl_cublas_status_name(int status);
/* cuBLAS's version part `type` (MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL) in *value: what cublasGetProperty and
 * cublasLtGetProperty answer (a cublasStatus_t: CUBLAS_STATUS_INVALID_VALUE for a null value or another type). */
int zl_cublas_property(int type, int *value);
/* One line on stderr for a function that is not supported, once per name and process. */
void zl_unsupported(const char *library, const char *function, const char *status);
/* One line on stderr saying why a call is answered "not supported" (a type combination, an attribute). */
void zl_say(const char *library, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
