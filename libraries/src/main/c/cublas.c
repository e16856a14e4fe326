/*
 * zluda's libcublas.so.13: the cuBLAS functions programs use most, written on the CUDA driver API
 * (zl_cuda.h) with PTX kernels (blas_kernels.cu), so they run on zluda's driver (the emulator) and on
 * NVIDIA's alike. Every other function NVIDIA's library exports is a generated weak stub
 * (cublas_stubs.c) that returns CUBLAS_STATUS_NOT_SUPPORTED and says so on stderr.
 *
 * Semantics: CUDA 13.0 cuBLAS documentation (docs.nvidia.com/cuda/cublas): column-major operands,
 * BLAS argument checks (CUBLAS_STATUS_INVALID_VALUE), quick returns, C not read when beta is 0, A and
 * B not read when alpha is 0 (host pointer mode), the handle's stream and pointer mode. The order in
 * which each result is accumulated is documented in blas_kernels.cu and docs/support.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cublas_api.h"
#include "zl_cuda.h"

#define LIB "cuBLAS"
#define HANDLE_MAGIC 0x7a6c4221u

struct cublasContext {
    uint32_t magic;
    CUcontext ctx;
    CUstream stream;
    cublasPointerMode_t pointerMode;
    cublasMath_t mathMode;
    cublasAtomicsMode_t atomicsMode;
    cublasEmulationStrategy_t emulation;
    cudaEmulationSpecialValuesSupport emulationSpecials;
    int smCountTarget;
    void *workspace;
    size_t workspaceSize;
    CUdeviceptr scratch; /* 16 bytes for level-1 results in host pointer mode */
};

static cublasLogCallback log_callback;

#define CHECK_HANDLE(h) do { if (!(h) || (h)->magic != HANDLE_MAGIC) return CUBLAS_STATUS_NOT_INITIALIZED; } while (0)

static cublasStatus_t status_of(CUresult r) {
    switch (r) {
        case CUDA_SUCCESS: return CUBLAS_STATUS_SUCCESS;
        case CUDA_ERROR_OUT_OF_MEMORY: return CUBLAS_STATUS_ALLOC_FAILED;
        case CUDA_ERROR_NOT_INITIALIZED: case CUDA_ERROR_DEINITIALIZED: case CUDA_ERROR_NO_DEVICE: return CUBLAS_STATUS_NOT_INITIALIZED;
        default: return CUBLAS_STATUS_EXECUTION_FAILED;
    }
}

/* ------------------------------------------------------------------ handle and stream management */

ZL_EXPORT cublasStatus_t cublasCreate_v2(cublasHandle_t *handle) {
    if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
    if (zl_driver(LIB) != 0) return CUBLAS_STATUS_NOT_INITIALIZED;
    CUcontext ctx;
    CUresult r = zl_context(&ctx);
    if (r != CUDA_SUCCESS) return CUBLAS_STATUS_NOT_INITIALIZED;
    struct cublasContext *h = calloc(1, sizeof *h);
    if (!h) return CUBLAS_STATUS_ALLOC_FAILED;
    h->magic = HANDLE_MAGIC;
    h->ctx = ctx;
    h->pointerMode = CUBLAS_POINTER_MODE_HOST;
    h->mathMode = CUBLAS_DEFAULT_MATH;
    h->atomicsMode = CUBLAS_ATOMICS_NOT_ALLOWED;
    h->emulation = CUBLAS_EMULATION_STRATEGY_DEFAULT;
    *handle = h;
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
    CHECK_HANDLE(handle);
    if (handle->scratch) zl_cu.cuMemFree(handle->scratch);
    handle->magic = 0;
    free(handle);
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasGetVersion_v2(cublasHandle_t handle, int *version) {
    CHECK_HANDLE(handle);
    if (!version) return CUBLAS_STATUS_INVALID_VALUE;
    *version = CUBLAS_VERSION;
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasGetProperty(libraryPropertyType type, int *value) {
    return zl_cublas_property(type, value);
}

ZL_EXPORT size_t cublasGetCudartVersion(void) { return 13000; }

ZL_EXPORT cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace, size_t workspaceSizeInBytes) {
    CHECK_HANDLE(handle);
    if (workspaceSizeInBytes > 0 && !workspace) return CUBLAS_STATUS_INVALID_VALUE;
    handle->workspace = workspace;
    handle->workspaceSize = workspaceSizeInBytes;
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId) {
    CHECK_HANDLE(handle);
    handle->stream = (CUstream)streamId;
    /* as NVIDIA's: setting a stream resets the workspace to the default (none, here) */
    handle->workspace = NULL;
    handle->workspaceSize = 0;
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *streamId) {
    CHECK_HANDLE(handle);
    if (!streamId) return CUBLAS_STATUS_INVALID_VALUE;
    *streamId = (cudaStream_t)handle->stream;
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t *mode) {
    CHECK_HANDLE(handle);
    if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->pointerMode;
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode) {
    CHECK_HANDLE(handle);
    if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE) return CUBLAS_STATUS_INVALID_VALUE;
    handle->pointerMode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasGetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t *mode) {
    CHECK_HANDLE(handle);
    if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->atomicsMode;
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasSetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t mode) {
    CHECK_HANDLE(handle);
    if (mode != CUBLAS_ATOMICS_NOT_ALLOWED && mode != CUBLAS_ATOMICS_ALLOWED) return CUBLAS_STATUS_INVALID_VALUE;
    handle->atomicsMode = mode; /* the kernels use no atomics either way: results are deterministic */
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode) {
    CHECK_HANDLE(handle);
    if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->mathMode;
    return CUBLAS_STATUS_SUCCESS;
}

/* Math modes are kept and reported; every mode computes as the default (fp32 products accumulated in
 * fp32 fused multiply-adds: no TF32, no reduced-precision reductions), which the modes allow. */
ZL_EXPORT cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
    CHECK_HANDLE(handle);
    handle->mathMode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasGetSmCountTarget(cublasHandle_t handle, int *smCountTarget) {
    CHECK_HANDLE(handle);
    if (!smCountTarget) return CUBLAS_STATUS_INVALID_VALUE;
    *smCountTarget = handle->smCountTarget;
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasSetSmCountTarget(cublasHandle_t handle, int smCountTarget) {
    CHECK_HANDLE(handle);
    if (smCountTarget < 0) return CUBLAS_STATUS_INVALID_VALUE;
    handle->smCountTarget = smCountTarget;
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasGetEmulationStrategy(cublasHandle_t handle, cublasEmulationStrategy_t *emulationStrategy) {
    CHECK_HANDLE(handle);
    if (!emulationStrategy) return CUBLAS_STATUS_INVALID_VALUE;
    *emulationStrategy = handle->emulation;
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasSetEmulationStrategy(cublasHandle_t handle, cublasEmulationStrategy_t emulationStrategy) {
    CHECK_HANDLE(handle);
    handle->emulation = emulationStrategy;
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasGetEmulationSpecialValuesSupport(cublasHandle_t handle, cudaEmulationSpecialValuesSupport *mask) {
    CHECK_HANDLE(handle);
    if (!mask) return CUBLAS_STATUS_INVALID_VALUE;
    *mask = handle->emulationSpecials;
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasSetEmulationSpecialValuesSupport(cublasHandle_t handle, cudaEmulationSpecialValuesSupport mask) {
    CHECK_HANDLE(handle);
    handle->emulationSpecials = mask;
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT const char *cublasGetStatusName(cublasStatus_t status) {
    return zl_cublas_status_name(status);
}

ZL_EXPORT const char *cublasGetStatusString(cublasStatus_t status) {
    switch (status) {
        case CUBLAS_STATUS_SUCCESS: return "success";
        case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
        case CUBLAS_STATUS_ALLOC_FAILED: return "the resource allocation failed";
        case CUBLAS_STATUS_INVALID_VALUE: return "an invalid numeric value was used as an argument";
        case CUBLAS_STATUS_ARCH_MISMATCH: return "an absent device architectural feature is required";
        case CUBLAS_STATUS_MAPPING_ERROR: return "an access to GPU memory space failed";
        case CUBLAS_STATUS_EXECUTION_FAILED: return "the GPU program failed to execute";
        case CUBLAS_STATUS_INTERNAL_ERROR: return "an internal operation failed";
        case CUBLAS_STATUS_NOT_SUPPORTED: return "the functionality requested is not supported";
        case CUBLAS_STATUS_LICENSE_ERROR: return "error detected trying to check the license";
        default: return "unknown error";
    }
}

ZL_EXPORT cublasStatus_t cublasLoggerConfigure(int logIsOn, int logToStdOut, int logToStdErr, const char *logFileName) {
    (void)logIsOn; (void)logToStdOut; (void)logToStdErr; (void)logFileName;
    return CUBLAS_STATUS_SUCCESS; /* zluda's cuBLAS logs nothing of its own: its calls are in the capture */
}

ZL_EXPORT cublasStatus_t cublasSetLoggerCallback(cublasLogCallback userCallback) {
    log_callback = userCallback;
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasGetLoggerCallback(cublasLogCallback *userCallback) {
    if (!userCallback) return CUBLAS_STATUS_INVALID_VALUE;
    *userCallback = log_callback;
    return CUBLAS_STATUS_SUCCESS;
}

/* ------------------------------------------------------------------ host <-> device copies */

static cublasStatus_t copy2d(int64_t rows, int64_t cols, int64_t elemSize, const void *src, int64_t srcPitchElems, int srcHost,
                             void *dst, int64_t dstPitchElems, CUstream stream, int async) {
    if (rows < 0 || cols < 0 || elemSize <= 0 || srcPitchElems <= 0 || dstPitchElems <= 0) return CUBLAS_STATUS_INVALID_VALUE;
    if (rows == 0 || cols == 0) return CUBLAS_STATUS_SUCCESS;
    if (zl_driver(LIB) != 0) return CUBLAS_STATUS_NOT_INITIALIZED;
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.WidthInBytes = (size_t)(rows * elemSize);
    c.Height = (size_t)cols;
    c.srcPitch = (size_t)(srcPitchElems * elemSize);
    c.dstPitch = (size_t)(dstPitchElems * elemSize);
    if (srcHost) {
        c.srcMemoryType = CU_MEMORYTYPE_HOST; c.srcHost = src;
        c.dstMemoryType = CU_MEMORYTYPE_DEVICE; c.dstDevice = (CUdeviceptr)dst;
    } else {
        c.srcMemoryType = CU_MEMORYTYPE_DEVICE; c.srcDevice = (CUdeviceptr)src;
        c.dstMemoryType = CU_MEMORYTYPE_HOST; c.dstHost = dst;
    }
    CUresult r = async ? zl_cu.cuMemcpy2DAsync(&c, stream) : zl_cu.cuMemcpy2D(&c);
    return r == CUDA_SUCCESS ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_MAPPING_ERROR;
}

#define COMMA ,

/* a vector with increment inc is a 2D copy of n rows of one element, pitch inc elements */
static cublasStatus_t vec(int64_t n, int64_t elemSize, const void *x, int64_t incx, int xHost, void *y, int64_t incy, CUstream s, int async) {
    if (incx <= 0 || incy <= 0) return CUBLAS_STATUS_INVALID_VALUE;
    return copy2d(1, n, elemSize, x, incx, xHost, y, incy, s, async);
}

#define VEC_API(NAME, T, HOST, ASYNC, STREAMP, STREAMV)                                                                     \
    ZL_EXPORT cublasStatus_t NAME(T n, T elemSize, const void *x, T incx, void *y, T incy STREAMP) {                     \
        return vec(n, elemSize, x, incx, HOST, y, incy, STREAMV, ASYNC);                                                      \
    }
VEC_API(cublasSetVector, int, 1, 0, , NULL)
VEC_API(cublasSetVector_64, int64_t, 1, 0, , NULL)
VEC_API(cublasGetVector, int, 0, 0, , NULL)
VEC_API(cublasGetVector_64, int64_t, 0, 0, , NULL)
VEC_API(cublasSetVectorAsync, int, 1, 1, COMMA cudaStream_t stream, (CUstream)stream)
VEC_API(cublasSetVectorAsync_64, int64_t, 1, 1, COMMA cudaStream_t stream, (CUstream)stream)
VEC_API(cublasGetVectorAsync, int, 0, 1, COMMA cudaStream_t stream, (CUstream)stream)
VEC_API(cublasGetVectorAsync_64, int64_t, 0, 1, COMMA cudaStream_t stream, (CUstream)stream)

#define MAT_API(NAME, T, HOST, ASYNC, STREAMP, STREAMV)                                                                     \
    ZL_EXPORT cublasStatus_t NAME(T rows, T cols, T elemSize, const void *A, T lda, void *B, T ldb STREAMP) {            \
        if (lda < (rows > 1 ? rows : 1) || ldb < (rows > 1 ? rows : 1)) return CUBLAS_STATUS_INVALID_VALUE;               \
        return copy2d(rows, cols, elemSize, A, lda, HOST, B, ldb, STREAMV, ASYNC);                                           \
    }
MAT_API(cublasSetMatrix, int, 1, 0, , NULL)
MAT_API(cublasSetMatrix_64, int64_t, 1, 0, , NULL)
MAT_API(cublasGetMatrix, int, 0, 0, , NULL)
MAT_API(cublasGetMatrix_64, int64_t, 0, 0, , NULL)
MAT_API(cublasSetMatrixAsync, int, 1, 1, COMMA cudaStream_t stream, (CUstream)stream)
MAT_API(cublasSetMatrixAsync_64, int64_t, 1, 1, COMMA cudaStream_t stream, (CUstream)stream)
MAT_API(cublasGetMatrixAsync, int, 0, 1, COMMA cudaStream_t stream, (CUstream)stream)
MAT_API(cublasGetMatrixAsync_64, int64_t, 0, 1, COMMA cudaStream_t stream, (CUstream)stream)

/* ------------------------------------------------------------------ GEMM */

/* The kernel for a combination of operand types and compute type, or -1. */
typedef struct {
    enum zl_kernel strided;
    int scalarKind;
    size_t inSize, outSize;
} gemm_kind;

static int gemm_kind_of(cudaDataType a, cudaDataType b, cudaDataType c, cublasComputeType_t compute, gemm_kind *out) {
    if (a != b) return -1;
    int c32 = compute == CUBLAS_COMPUTE_32F || compute == CUBLAS_COMPUTE_32F_PEDANTIC || compute == CUBLAS_COMPUTE_32F_FAST_16F
              || compute == CUBLAS_COMPUTE_32F_FAST_16BF || compute == CUBLAS_COMPUTE_32F_FAST_TF32;
    int c16 = compute == CUBLAS_COMPUTE_16F || compute == CUBLAS_COMPUTE_16F_PEDANTIC;
    int c64 = compute == CUBLAS_COMPUTE_64F || compute == CUBLAS_COMPUTE_64F_PEDANTIC;
    if (a == CUDA_R_32F && c == CUDA_R_32F && c32) { *out = (gemm_kind){ZK_GEMM_SSS_S, ZL_F32, 4, 4}; return 0; }
    if (a == CUDA_R_64F && c == CUDA_R_64F && c64) { *out = (gemm_kind){ZK_GEMM_DDD_S, ZL_F64, 8, 8}; return 0; }
    if (a == CUDA_R_16F && c == CUDA_R_16F && (c32 || c16)) { *out = (gemm_kind){ZK_GEMM_HHS_S, c16 ? ZL_F16 : ZL_F32, 2, 2}; return 0; }
    if (a == CUDA_R_16F && c == CUDA_R_32F && c32) { *out = (gemm_kind){ZK_GEMM_HSS_S, ZL_F32, 2, 4}; return 0; }
    if (a == CUDA_R_16BF && c == CUDA_R_16BF && c32) { *out = (gemm_kind){ZK_GEMM_BBS_S, ZL_F32, 2, 2}; return 0; }
    if (a == CUDA_R_16BF && c == CUDA_R_32F && c32) { *out = (gemm_kind){ZK_GEMM_BSS_S, ZL_F32, 2, 4}; return 0; }
    return -1;
}

static double host_scalar(const void *p, int kind) {
    if (kind == ZL_F64) return *(const double *)p;
    if (kind == ZL_F16) return zl_half_to_float(*(const uint16_t *)p);
    return *(const float *)p;
}

/*
 * Every GEMM entry point: D = C = alpha op(A) op(B) + beta C over `batch` problems, column-major,
 * strides in elements (strided batches) or arrays of device pointers (arrays != 0).
 */
static cublasStatus_t gemm(const char *fn, cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n, int64_t k,
                           const void *alpha, const void *A, cudaDataType at, int64_t lda, int64_t sa, const void *B, cudaDataType bt,
                           int64_t ldb, int64_t sb, const void *beta, void *C, cudaDataType ct, int64_t ldc, int64_t sc, int64_t batch,
                           cublasComputeType_t compute, int arrays) {
    CHECK_HANDLE(h);
    if ((ta != CUBLAS_OP_N && ta != CUBLAS_OP_T && ta != CUBLAS_OP_C) || (tb != CUBLAS_OP_N && tb != CUBLAS_OP_T && tb != CUBLAS_OP_C))
        return CUBLAS_STATUS_INVALID_VALUE;
    int64_t arows = ta == CUBLAS_OP_N ? m : k, brows = tb == CUBLAS_OP_N ? k : n;
    if (m < 0 || n < 0 || k < 0 || batch < 0 || lda < (arows > 1 ? arows : 1) || ldb < (brows > 1 ? brows : 1) || ldc < (m > 1 ? m : 1))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (m > 0x7fffffff || n > 0x7fffffff || k > 0x7fffffff) return CUBLAS_STATUS_NOT_SUPPORTED;
    if (m == 0 || n == 0 || batch == 0) return CUBLAS_STATUS_SUCCESS;
    if (!alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
    gemm_kind kind;
    if (gemm_kind_of(at, bt, ct, compute, &kind) != 0) {
        zl_say(LIB, "%s: A type %d, B type %d, C type %d with compute type %d is not supported (CUBLAS_STATUS_NOT_SUPPORTED)", fn, at, bt,
               ct, compute);
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    zl_gemm g;
    memset(&g, 0, sizeof g);
    g.m = (int)m; g.n = (int)n; g.k = (int)k;
    g.scalarKind = kind.scalarKind;
    /* complex conjugation does not apply to real types: C is T */
    g.a_rs = ta == CUBLAS_OP_N ? 1 : lda; g.a_ks = ta == CUBLAS_OP_N ? lda : 1;
    g.b_ks = tb == CUBLAS_OP_N ? 1 : ldb; g.b_cs = tb == CUBLAS_OP_N ? ldb : 1;
    g.c_rs = 1; g.c_cs = ldc; g.d_rs = 1; g.d_cs = ldc;
    g.a_bs = sa; g.b_bs = sb; g.c_bs = sc; g.d_bs = sc;
    if (h->pointerMode == CUBLAS_POINTER_MODE_HOST) {
        g.alpha = host_scalar(alpha, kind.scalarKind);
        g.beta = host_scalar(beta, kind.scalarKind);
        if (g.alpha == 0.0) {
            if (g.beta == 1.0) return CUBLAS_STATUS_SUCCESS; /* BLAS quick return */
            g.k = 0; /* A and B are not read */
        }
    } else {
        g.alphaPtr = (CUdeviceptr)alpha;
        g.betaPtr = (CUdeviceptr)beta;
    }
    enum zl_kernel kernel = (enum zl_kernel)(kind.strided + (arrays ? 1 : 0));
    CUresult r = zl_gemm_launch(h->ctx, h->stream, kernel, &g, (CUdeviceptr)A, (CUdeviceptr)B, (CUdeviceptr)C, (CUdeviceptr)C, batch, arrays,
                                kind.inSize, kind.outSize);
    return status_of(r);
}

#define OPS cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb

#define TYPED_GEMM(NAME, T, I, DT, CT)                                                                                           \
    ZL_EXPORT cublasStatus_t NAME(OPS, I m, I n, I k, const T *alpha, const T *A, I lda, const T *B, I ldb, const T *beta, T *C, \
                                  I ldc) {                                                                                       \
        return gemm(#NAME, handle, transa, transb, m, n, k, alpha, A, DT, lda, 0, B, DT, ldb, 0, beta, C, DT, ldc, 0, 1, CT, 0);   \
    }
TYPED_GEMM(cublasSgemm_v2, float, int, CUDA_R_32F, CUBLAS_COMPUTE_32F)
TYPED_GEMM(cublasSgemm_v2_64, float, int64_t, CUDA_R_32F, CUBLAS_COMPUTE_32F)
TYPED_GEMM(cublasDgemm_v2, double, int, CUDA_R_64F, CUBLAS_COMPUTE_64F)
TYPED_GEMM(cublasDgemm_v2_64, double, int64_t, CUDA_R_64F, CUBLAS_COMPUTE_64F)
/* Hgemm's compute type is CUBLAS_COMPUTE_16F: alpha and beta are __half; products accumulate in fp32 here */
TYPED_GEMM(cublasHgemm, __half, int, CUDA_R_16F, CUBLAS_COMPUTE_16F)
TYPED_GEMM(cublasHgemm_64, __half, int64_t, CUDA_R_16F, CUBLAS_COMPUTE_16F)

#define TYPED_GEMM_STRIDED(NAME, T, I, DT, CT)                                                                                    \
    ZL_EXPORT cublasStatus_t NAME(OPS, I m, I n, I k, const T *alpha, const T *A, I lda, long long strideA, const T *B, I ldb,     \
                                  long long strideB, const T *beta, T *C, I ldc, long long strideC, I batchCount) {              \
        return gemm(#NAME, handle, transa, transb, m, n, k, alpha, A, DT, lda, strideA, B, DT, ldb, strideB, beta, C, DT, ldc,     \
                    strideC, batchCount, CT, 0);                                                                                 \
    }
TYPED_GEMM_STRIDED(cublasSgemmStridedBatched, float, int, CUDA_R_32F, CUBLAS_COMPUTE_32F)
TYPED_GEMM_STRIDED(cublasSgemmStridedBatched_64, float, int64_t, CUDA_R_32F, CUBLAS_COMPUTE_32F)
TYPED_GEMM_STRIDED(cublasDgemmStridedBatched, double, int, CUDA_R_64F, CUBLAS_COMPUTE_64F)
TYPED_GEMM_STRIDED(cublasDgemmStridedBatched_64, double, int64_t, CUDA_R_64F, CUBLAS_COMPUTE_64F)
TYPED_GEMM_STRIDED(cublasHgemmStridedBatched, __half, int, CUDA_R_16F, CUBLAS_COMPUTE_16F)
TYPED_GEMM_STRIDED(cublasHgemmStridedBatched_64, __half, int64_t, CUDA_R_16F, CUBLAS_COMPUTE_16F)

#define TYPED_GEMM_BATCHED(NAME, T, I, DT, CT)                                                                                    \
    ZL_EXPORT cublasStatus_t NAME(OPS, I m, I n, I k, const T *alpha, const T *const *Aarray, I lda, const T *const *Barray,       \
                                  I ldb, const T *beta, T *const *Carray, I ldc, I batchCount) {                                \
        return gemm(#NAME, handle, transa, transb, m, n, k, alpha, Aarray, DT, lda, 0, Barray, DT, ldb, 0, beta, (void *)Carray, DT, ldc, \
                    0, batchCount, CT, 1);                                                                                       \
    }
TYPED_GEMM_BATCHED(cublasSgemmBatched, float, int, CUDA_R_32F, CUBLAS_COMPUTE_32F)
TYPED_GEMM_BATCHED(cublasSgemmBatched_64, float, int64_t, CUDA_R_32F, CUBLAS_COMPUTE_32F)
TYPED_GEMM_BATCHED(cublasDgemmBatched, double, int, CUDA_R_64F, CUBLAS_COMPUTE_64F)
TYPED_GEMM_BATCHED(cublasDgemmBatched_64, double, int64_t, CUDA_R_64F, CUBLAS_COMPUTE_64F)
TYPED_GEMM_BATCHED(cublasHgemmBatched, __half, int, CUDA_R_16F, CUBLAS_COMPUTE_16F)
TYPED_GEMM_BATCHED(cublasHgemmBatched_64, __half, int64_t, CUDA_R_16F, CUBLAS_COMPUTE_16F)

#define GEMM_EX(NAME, I)                                                                                                          \
    ZL_EXPORT cublasStatus_t NAME(OPS, I m, I n, I k, const void *alpha, const void *A, cudaDataType Atype, I lda, const void *B,   \
                                  cudaDataType Btype, I ldb, const void *beta, void *C, cudaDataType Ctype, I ldc,               \
                                  cublasComputeType_t computeType, cublasGemmAlgo_t algo) {                                      \
        (void)algo; /* every algorithm is the one kernel */                                                                      \
        return gemm(#NAME, handle, transa, transb, m, n, k, alpha, A, Atype, lda, 0, B, Btype, ldb, 0, beta, C, Ctype, ldc, 0, 1,   \
                    computeType, 0);                                                                                             \
    }
GEMM_EX(cublasGemmEx, int)
GEMM_EX(cublasGemmEx_64, int64_t)

#define GEMM_STRIDED_EX(NAME, I)                                                                                                  \
    ZL_EXPORT cublasStatus_t NAME(OPS, I m, I n, I k, const void *alpha, const void *A, cudaDataType Atype, I lda, long long strideA, \
                                  const void *B, cudaDataType Btype, I ldb, long long strideB, const void *beta, void *C,        \
                                  cudaDataType Ctype, I ldc, long long strideC, I batchCount, cublasComputeType_t computeType,   \
                                  cublasGemmAlgo_t algo) {                                                                       \
        (void)algo;                                                                                                              \
        return gemm(#NAME, handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb, strideB, beta, C, Ctype, \
                    ldc, strideC, batchCount, computeType, 0);                                                                   \
    }
GEMM_STRIDED_EX(cublasGemmStridedBatchedEx, int)
GEMM_STRIDED_EX(cublasGemmStridedBatchedEx_64, int64_t)

#define GEMM_BATCHED_EX(NAME, I)                                                                                                  \
    ZL_EXPORT cublasStatus_t NAME(OPS, I m, I n, I k, const void *alpha, const void *const *Aarray, cudaDataType Atype, I lda,     \
                                  const void *const *Barray, cudaDataType Btype, I ldb, const void *beta, void *const *Carray,   \
                                  cudaDataType Ctype, I ldc, I batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo) { \
        (void)algo;                                                                                                              \
        return gemm(#NAME, handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda, 0, Barray, Btype, ldb, 0, beta, (void *)Carray, \
                    Ctype, ldc, 0, batchCount, computeType, 1);                                                                  \
    }
GEMM_BATCHED_EX(cublasGemmBatchedEx, int)
GEMM_BATCHED_EX(cublasGemmBatchedEx_64, int64_t)

/* ------------------------------------------------------------------ GEMV */

/* Address of element 0 of a vector of n elements with increment inc (BLAS: negative increments run backwards). */
static CUdeviceptr vbase(const void *x, int64_t n, int64_t inc, size_t esize) {
    return (CUdeviceptr)x + (CUdeviceptr)(inc < 0 ? (1 - n) * inc * (int64_t)esize : 0);
}

static cublasStatus_t gemv(cublasHandle_t h, int dbl, cublasOperation_t trans, int64_t m, int64_t n, const void *alpha, const void *A,
                           int64_t lda, const void *x, int64_t incx, const void *beta, void *y, int64_t incy) {
    CHECK_HANDLE(h);
    if ((trans != CUBLAS_OP_N && trans != CUBLAS_OP_T && trans != CUBLAS_OP_C) || m < 0 || n < 0 || lda < (m > 1 ? m : 1) || incx == 0
        || incy == 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    if (m > 0x7fffffff || n > 0x7fffffff) return CUBLAS_STATUS_NOT_SUPPORTED;
    size_t es = dbl ? 8 : 4;
    int rows = (int)(trans == CUBLAS_OP_N ? m : n), cols = (int)(trans == CUBLAS_OP_N ? n : m);
    int64_t a_rs = trans == CUBLAS_OP_N ? 1 : lda, a_cs = trans == CUBLAS_OP_N ? lda : 1;
    CUdeviceptr pA = (CUdeviceptr)A, px = vbase(x, cols, incx, es), py = vbase(y, rows, incy, es);
    CUdeviceptr ap = 0, bp = 0;
    float af = 0, bf = 0;
    double ad = 0, bd = 0;
    if (h->pointerMode == CUBLAS_POINTER_MODE_HOST) {
        if (dbl) { ad = *(const double *)alpha; bd = *(const double *)beta; }
        else { af = *(const float *)alpha; bf = *(const float *)beta; }
        double a = dbl ? ad : af, b = dbl ? bd : bf;
        if (a == 0.0 && b == 1.0) return CUBLAS_STATUS_SUCCESS;
        if (a == 0.0) cols = 0; /* A and x are not read */
    } else {
        ap = (CUdeviceptr)alpha;
        bp = (CUdeviceptr)beta;
    }
    void *args[] = {&rows, &cols, &pA, &a_rs, &a_cs, &px, &incx, &py, &incy, dbl ? (void *)&ad : (void *)&af, dbl ? (void *)&bd : (void *)&bf,
                    &ap, &bp};
    return status_of(zl_launch(h->ctx, dbl ? ZK_DGEMV : ZK_SGEMV, (unsigned)((rows + 127) / 128), 1, 1, 128, 1, 1, h->stream, args));
}

#define GEMV(NAME, T, I, D)                                                                                                        \
    ZL_EXPORT cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t trans, I m, I n, const T *alpha, const T *A, I lda,        \
                                  const T *x, I incx, const T *beta, T *y, I incy) {                                                \
        return gemv(handle, D, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);                                                 \
    }
GEMV(cublasSgemv_v2, float, int, 0)
GEMV(cublasSgemv_v2_64, float, int64_t, 0)
GEMV(cublasDgemv_v2, double, int, 1)
GEMV(cublasDgemv_v2_64, double, int64_t, 1)

/* ------------------------------------------------------------------ TRSM, batched */

/*
 * cublas<t>trsmBatched (cuBLAS documentation, "cublas<t>trsmBatched()"): for each of `batch` problems,
 * op(A) X = alpha B (side left, A m x m) or X op(A) = alpha B (side right, A n x n), X (m x n,
 * column-major, leading dimension ldb) overwriting B; A and B are device arrays of `batch` device
 * pointers. CUBLAS_STATUS_INVALID_VALUE for a bad enum, m or n or batch < 0, lda < max(1, dim of A)
 * or ldb < max(1, m); CUBLAS_STATUS_NOT_SUPPORTED when a size does not fit the kernel's int or a
 * launch grid. Kernel: blas_kernels.cu zl_strsm_p / zl_dtrsm_p (one thread per column or row of X).
 */
static cublasStatus_t trsm_batched(cublasHandle_t h, int dbl, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t trans,
                                   cublasDiagType_t diag, int64_t m, int64_t n, const void *alpha, const void *const *A, int64_t lda,
                                   void *const *B, int64_t ldb, int64_t batch) {
    CHECK_HANDLE(h);
    if ((side != CUBLAS_SIDE_LEFT && side != CUBLAS_SIDE_RIGHT) || (uplo != CUBLAS_FILL_MODE_LOWER && uplo != CUBLAS_FILL_MODE_UPPER)
        || (trans != CUBLAS_OP_N && trans != CUBLAS_OP_T && trans != CUBLAS_OP_C) || (diag != CUBLAS_DIAG_NON_UNIT && diag != CUBLAS_DIAG_UNIT))
        return CUBLAS_STATUS_INVALID_VALUE;
    int left = side == CUBLAS_SIDE_LEFT;
    int64_t dim = left ? m : n, nvec = left ? n : m;
    if (m < 0 || n < 0 || batch < 0 || lda < (dim > 1 ? dim : 1) || ldb < (m > 1 ? m : 1)) return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0 || batch == 0) return CUBLAS_STATUS_SUCCESS;
    if (!alpha) return CUBLAS_STATUS_INVALID_VALUE;
    if (dim > 0x7fffffff || (nvec + 127) / 128 > 65535 || batch > 0x7fffffff) return CUBLAS_STATUS_NOT_SUPPORTED;
    /* the triangle one vector solves: T = op(A) (left) or op(A)^T (right) */
    int transposed = left ? trans != CUBLAS_OP_N : trans == CUBLAS_OP_N;
    int lower = (uplo == CUBLAS_FILL_MODE_LOWER) != transposed;
    int unit = diag == CUBLAS_DIAG_UNIT, idim = (int)dim, invec = (int)nvec;
    int64_t step = left ? ldb : 1, stride = left ? 1 : ldb;
    CUdeviceptr pA = (CUdeviceptr)A, pB = (CUdeviceptr)B, ap = 0;
    float af = 0;
    double ad = 0;
    if (h->pointerMode == CUBLAS_POINTER_MODE_HOST) {
        if (dbl) ad = *(const double *)alpha;
        else af = *(const float *)alpha;
    } else {
        ap = (CUdeviceptr)alpha;
    }
    void *args[] = {&idim, &invec, &lower, &transposed, &unit, dbl ? (void *)&ad : (void *)&af, &ap, &pA, &lda, &pB, &ldb, &step, &stride};
    return status_of(zl_launch(h->ctx, dbl ? ZK_DTRSM_P : ZK_STRSM_P, (unsigned)batch, (unsigned)((nvec + 127) / 128), 1, 128, 1, 1,
                               h->stream, args));
}

#define TRSM_BATCHED(NAME, T, I, D)                                                                                               \
    ZL_EXPORT cublasStatus_t NAME(cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t trans,     \
                                  cublasDiagType_t diag, I m, I n, const T *alpha, const T *const *A, I lda, T *const *B, I ldb,    \
                                  I batchCount) {                                                                                   \
        return trsm_batched(handle, D, side, uplo, trans, diag, m, n, alpha, (const void *const *)A, lda, (void *const *)B, ldb,    \
                            batchCount);                                                                                            \
    }
TRSM_BATCHED(cublasStrsmBatched, float, int, 0)
TRSM_BATCHED(cublasStrsmBatched_64, float, int64_t, 0)
TRSM_BATCHED(cublasDtrsmBatched, double, int, 1)
TRSM_BATCHED(cublasDtrsmBatched_64, double, int64_t, 1)

/* ------------------------------------------------------------------ level 1 */

static cublasStatus_t elementwise(cublasHandle_t h, enum zl_kernel k, void **args, int64_t n) {
    return status_of(zl_launch(h->ctx, k, (unsigned)((n + 255) / 256), 1, 1, 256, 1, 1, h->stream, args));
}

static cublasStatus_t axpy(cublasHandle_t h, int dbl, int64_t n, const void *alpha, const void *x, int64_t incx, void *y, int64_t incy) {
    CHECK_HANDLE(h);
    if (n <= 0) return CUBLAS_STATUS_SUCCESS;
    if (n > 0x7fffffff) return CUBLAS_STATUS_NOT_SUPPORTED;
    int nn = (int)n;
    size_t es = dbl ? 8 : 4;
    CUdeviceptr px = vbase(x, n, incx, es), py = vbase(y, n, incy, es), ap = 0;
    float af = 0;
    double ad = 0;
    if (h->pointerMode == CUBLAS_POINTER_MODE_HOST) {
        if (dbl) ad = *(const double *)alpha; else af = *(const float *)alpha;
        if ((dbl ? ad : af) == 0.0) return CUBLAS_STATUS_SUCCESS;
    } else {
        ap = (CUdeviceptr)alpha;
    }
    void *args[] = {&nn, dbl ? (void *)&ad : (void *)&af, &ap, &px, &incx, &py, &incy};
    return elementwise(h, dbl ? ZK_DAXPY : ZK_SAXPY, args, n);
}

static cublasStatus_t scal(cublasHandle_t h, int dbl, int64_t n, const void *alpha, void *x, int64_t incx) {
    CHECK_HANDLE(h);
    if (n <= 0 || incx <= 0) return CUBLAS_STATUS_SUCCESS;
    if (n > 0x7fffffff) return CUBLAS_STATUS_NOT_SUPPORTED;
    int nn = (int)n;
    CUdeviceptr px = (CUdeviceptr)x, ap = 0;
    float af = 0;
    double ad = 0;
    if (h->pointerMode == CUBLAS_POINTER_MODE_HOST) {
        if (dbl) ad = *(const double *)alpha; else af = *(const float *)alpha;
    } else {
        ap = (CUdeviceptr)alpha;
    }
    void *args[] = {&nn, dbl ? (void *)&ad : (void *)&af, &ap, &px, &incx};
    return elementwise(h, dbl ? ZK_DSCAL : ZK_SSCAL, args, n);
}

static cublasStatus_t copy_or_swap(cublasHandle_t h, enum zl_kernel k, size_t es, int64_t n, const void *x, int64_t incx, void *y,
                                   int64_t incy) {
    CHECK_HANDLE(h);
    if (n <= 0) return CUBLAS_STATUS_SUCCESS;
    if (n > 0x7fffffff) return CUBLAS_STATUS_NOT_SUPPORTED;
    int nn = (int)n;
    CUdeviceptr px = vbase(x, n, incx, es), py = vbase(y, n, incy, es);
    void *args[] = {&nn, &px, &incx, &py, &incy};
    return elementwise(h, k, args, n);
}

/*
 * A reduction into *result: written by the kernel where result points in device pointer mode; in host
 * pointer mode into the handle's scratch, then copied back once the handle's stream has finished (the
 * call blocks, as NVIDIA's does in host mode).
 */
static cublasStatus_t reduce(cublasHandle_t h, enum zl_kernel k, int64_t n, const void *x, int64_t incx, const void *y, int64_t incy,
                             void *result, size_t rsize, size_t es, int two) {
    CHECK_HANDLE(h);
    if (!result) return CUBLAS_STATUS_INVALID_VALUE;
    int nn = (int)(n > 0x7fffffff ? 0 : n);
    if (n > 0x7fffffff) return CUBLAS_STATUS_NOT_SUPPORTED;
    int none = n <= 0 || (!two && incx <= 0); /* BLAS: nrm2, asum and amax of n < 1 or incx <= 0 are 0 */
    if (none) nn = 0;
    CUdeviceptr out;
    if (h->pointerMode == CUBLAS_POINTER_MODE_DEVICE) {
        out = (CUdeviceptr)result;
    } else {
        if (!h->scratch) {
            CUresult r = zl_cu.cuMemAlloc(&h->scratch, 16);
            if (r != CUDA_SUCCESS) return CUBLAS_STATUS_ALLOC_FAILED;
        }
        out = h->scratch;
    }
    CUdeviceptr px = two ? vbase(x, n, incx, es) : (CUdeviceptr)x, py = two ? vbase(y, n, incy, es) : 0;
    void *args3[] = {&nn, &px, &incx, &out};
    void *args5[] = {&nn, &px, &incx, &py, &incy, &out};
    CUresult r = zl_launch(h->ctx, k, 1, 1, 1, 256, 1, 1, h->stream, two ? args5 : args3);
    if (r == CUDA_SUCCESS && h->pointerMode == CUBLAS_POINTER_MODE_HOST) {
        r = zl_cu.cuMemcpyDtoHAsync(result, out, rsize, h->stream);
        if (r == CUDA_SUCCESS) r = zl_cu.cuStreamSynchronize(h->stream);
    }
    return status_of(r);
}

#define L1(SUFFIX, I)                                                                                                              \
    ZL_EXPORT cublasStatus_t cublasSaxpy_v2##SUFFIX(cublasHandle_t handle, I n, const float *alpha, const float *x, I incx, float *y, \
                                                     I incy) { return axpy(handle, 0, n, alpha, x, incx, y, incy); }              \
    ZL_EXPORT cublasStatus_t cublasDaxpy_v2##SUFFIX(cublasHandle_t handle, I n, const double *alpha, const double *x, I incx,       \
                                                     double *y, I incy) { return axpy(handle, 1, n, alpha, x, incx, y, incy); }   \
    ZL_EXPORT cublasStatus_t cublasSscal_v2##SUFFIX(cublasHandle_t handle, I n, const float *alpha, float *x, I incx) {            \
        return scal(handle, 0, n, alpha, x, incx);                                                                                 \
    }                                                                                                                              \
    ZL_EXPORT cublasStatus_t cublasDscal_v2##SUFFIX(cublasHandle_t handle, I n, const double *alpha, double *x, I incx) {          \
        return scal(handle, 1, n, alpha, x, incx);                                                                                 \
    }                                                                                                                              \
    ZL_EXPORT cublasStatus_t cublasScopy_v2##SUFFIX(cublasHandle_t handle, I n, const float *x, I incx, float *y, I incy) {        \
        return copy_or_swap(handle, ZK_SCOPY, 4, n, x, incx, y, incy);                                                              \
    }                                                                                                                              \
    ZL_EXPORT cublasStatus_t cublasDcopy_v2##SUFFIX(cublasHandle_t handle, I n, const double *x, I incx, double *y, I incy) {      \
        return copy_or_swap(handle, ZK_DCOPY, 8, n, x, incx, y, incy);                                                              \
    }                                                                                                                              \
    ZL_EXPORT cublasStatus_t cublasSswap_v2##SUFFIX(cublasHandle_t handle, I n, float *x, I incx, float *y, I incy) {              \
        return copy_or_swap(handle, ZK_SSWAP, 4, n, x, incx, y, incy);                                                              \
    }                                                                                                                              \
    ZL_EXPORT cublasStatus_t cublasDswap_v2##SUFFIX(cublasHandle_t handle, I n, double *x, I incx, double *y, I incy) {            \
        return copy_or_swap(handle, ZK_DSWAP, 8, n, x, incx, y, incy);                                                              \
    }                                                                                                                              \
    ZL_EXPORT cublasStatus_t cublasSdot_v2##SUFFIX(cublasHandle_t handle, I n, const float *x, I incx, const float *y, I incy,     \
                                                    float *result) {                                                              \
        return reduce(handle, ZK_SDOT, n, x, incx, y, incy, result, 4, 4, 1);                                                      \
    }                                                                                                                              \
    ZL_EXPORT cublasStatus_t cublasDdot_v2##SUFFIX(cublasHandle_t handle, I n, const double *x, I incx, const double *y, I incy,   \
                                                    double *result) {                                                             \
        return reduce(handle, ZK_DDOT, n, x, incx, y, incy, result, 8, 8, 1);                                                      \
    }                                                                                                                              \
    ZL_EXPORT cublasStatus_t cublasSnrm2_v2##SUFFIX(cublasHandle_t handle, I n, const float *x, I incx, float *result) {           \
        return reduce(handle, ZK_SNRM2, n, x, incx, NULL, 0, result, 4, 4, 0);                                                     \
    }                                                                                                                              \
    ZL_EXPORT cublasStatus_t cublasDnrm2_v2##SUFFIX(cublasHandle_t handle, I n, const double *x, I incx, double *result) {         \
        return reduce(handle, ZK_DNRM2, n, x, incx, NULL, 0, result, 8, 8, 0);                                                     \
    }                                                                                                                              \
    ZL_EXPORT cublasStatus_t cublasSasum_v2##SUFFIX(cublasHandle_t handle, I n, const float *x, I incx, float *result) {           \
        return reduce(handle, ZK_SASUM, n, x, incx, NULL, 0, result, 4, 4, 0);                                                     \
    }                                                                                                                              \
    ZL_EXPORT cublasStatus_t cublasDasum_v2##SUFFIX(cublasHandle_t handle, I n, const double *x, I incx, double *result) {         \
        return reduce(handle, ZK_DASUM, n, x, incx, NULL, 0, result, 8, 8, 0);                                                     \
    }
L1(, int)
L1(_64, int64_t)

/* I?amax: a 1-based index; the _64 variants return it as int64_t */
ZL_EXPORT cublasStatus_t cublasIsamax_v2(cublasHandle_t handle, int n, const float *x, int incx, int *result) {
    return reduce(handle, ZK_ISAMAX, n, x, incx, NULL, 0, result, 4, 4, 0);
}
ZL_EXPORT cublasStatus_t cublasIdamax_v2(cublasHandle_t handle, int n, const double *x, int incx, int *result) {
    return reduce(handle, ZK_IDAMAX, n, x, incx, NULL, 0, result, 4, 8, 0);
}
