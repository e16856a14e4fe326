/*
 * zluda's libcublasLt.so.13: cublasLtMatmul with the matrix layouts (column- and row-major, leading
 * dimensions, strided batches), transposes, the epilogues llama.cpp and PyTorch use (default, bias,
 * ReLU, GELU and their bias forms), host and device pointer modes, and the heuristic query, written on
 * the CUDA driver API (zl_cuda.h) with the GEMM kernels of blas_kernels.cu. Every other export is a
 * generated weak stub (cublasLt_stubs.c) returning CUBLAS_STATUS_NOT_SUPPORTED.
 *
 * Semantics: CUDA 13.0 cuBLASLt documentation: D = epilogue(alpha op(A) op(B) + beta C + bias), with
 * bias a vector of D's rows broadcast over its columns. Descriptors live in the opaque storage the
 * header gives them (cublasLtMatmulDescOpaque_t, ...), so cublasLt*Init works on the caller's memory
 * as it does with NVIDIA's library.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cublasLt.h"
#include "zl_cuda.h"

#define LIB "cuBLASLt"
#define HANDLE_MAGIC 0x7a6c4c74u
#define LAYOUT_MAGIC 0x4c61u
#define DESC_MAGIC 0x4465u
#define PREF_MAGIC 0x5072u

struct cublasLtContext {
    uint32_t magic;
    CUcontext ctx;
};

typedef struct {
    uint32_t magic;
    cudaDataType type;
    cublasLtOrder_t order;
    int32_t batchCount;
    uint64_t rows, cols;
    int64_t ld, batchStride, planeOffset;
    int32_t batchMode;
} layout_t;

/* attributes kept but not implemented: set to anything but 0, cublasLtMatmul answers NOT_SUPPORTED */
typedef struct {
    uint32_t magic;
    cublasComputeType_t compute;
    cudaDataType scaleType;
    int32_t pointerMode;
    int32_t transa, transb, transc, fillMode;
    uint32_t epilogue;
    int32_t biasType; /* -1: D's type */
    int32_t smCount;
    int8_t fastAccum;
    uint64_t bias;
    int64_t biasBatchStride;
    uint64_t unsupportedMask; /* bit i: attribute i was set to a non-zero value zluda does not implement */
} desc_t;

typedef struct {
    uint32_t magic;
    uint32_t searchMode;
    uint64_t maxWorkspace;
    uint32_t reductionMask;
    uint32_t align[4];
    float maxWaves;
    uint64_t implMask;
} pref_t;

_Static_assert(sizeof(layout_t) <= sizeof(cublasLtMatrixLayoutOpaque_t), "layout fits the opaque storage");
_Static_assert(sizeof(desc_t) <= sizeof(cublasLtMatmulDescOpaque_t), "descriptor fits the opaque storage");
_Static_assert(sizeof(pref_t) <= sizeof(cublasLtMatmulPreferenceOpaque_t), "preference fits the opaque storage");

static layout_t *L(cublasLtMatrixLayout_t p) { return (layout_t *)(void *)p; }
static desc_t *Dd(cublasLtMatmulDesc_t p) { return (desc_t *)(void *)p; }
static pref_t *P(cublasLtMatmulPreference_t p) { return (pref_t *)(void *)p; }

/* ------------------------------------------------------------------ handle, versions, status */

ZL_EXPORT cublasStatus_t cublasLtCreate(cublasLtHandle_t *lightHandle) {
    if (!lightHandle) return CUBLAS_STATUS_INVALID_VALUE;
    if (zl_driver(LIB) != 0) return CUBLAS_STATUS_NOT_INITIALIZED;
    CUcontext ctx;
    if (zl_context(&ctx) != CUDA_SUCCESS) return CUBLAS_STATUS_NOT_INITIALIZED;
    struct cublasLtContext *h = calloc(1, sizeof *h);
    if (!h) return CUBLAS_STATUS_ALLOC_FAILED;
    h->magic = HANDLE_MAGIC;
    h->ctx = ctx;
    *lightHandle = h;
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasLtDestroy(cublasLtHandle_t lightHandle) {
    if (!lightHandle || lightHandle->magic != HANDLE_MAGIC) return CUBLAS_STATUS_NOT_INITIALIZED;
    lightHandle->magic = 0;
    free(lightHandle);
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT size_t cublasLtGetVersion(void) { return CUBLAS_VERSION; }
ZL_EXPORT size_t cublasLtGetCudartVersion(void) { return 13000; }

ZL_EXPORT cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int *value) {
    return zl_cublas_property(type, value);
}

ZL_EXPORT const char *cublasLtGetStatusName(cublasStatus_t status) {
    return zl_cublas_status_name(status);
}

ZL_EXPORT const char *cublasLtGetStatusString(cublasStatus_t status) {
    switch (status) {
        case CUBLAS_STATUS_SUCCESS: return "success";
        case CUBLAS_STATUS_INVALID_VALUE: return "an invalid numeric value was used as an argument";
        case CUBLAS_STATUS_NOT_SUPPORTED: return "the functionality requested is not supported";
        case CUBLAS_STATUS_EXECUTION_FAILED: return "the GPU program failed to execute";
        default: return cublasLtGetStatusName(status);
    }
}

static size_t cache_capacity = 8192;
ZL_EXPORT cublasStatus_t cublasLtHeuristicsCacheGetCapacity(size_t *capacity) {
    if (!capacity) return CUBLAS_STATUS_INVALID_VALUE;
    *capacity = cache_capacity;
    return CUBLAS_STATUS_SUCCESS;
}
ZL_EXPORT cublasStatus_t cublasLtHeuristicsCacheSetCapacity(size_t capacity) {
    cache_capacity = capacity;
    return CUBLAS_STATUS_SUCCESS;
}

/* zluda's cuBLASLt logs nothing of its own (its calls are in the capture); the settings are accepted */
ZL_EXPORT cublasStatus_t cublasLtLoggerSetCallback(cublasLtLoggerCallback_t callback) { (void)callback; return CUBLAS_STATUS_SUCCESS; }
ZL_EXPORT cublasStatus_t cublasLtLoggerSetFile(FILE *file) { (void)file; return CUBLAS_STATUS_SUCCESS; }
ZL_EXPORT cublasStatus_t cublasLtLoggerOpenFile(const char *logFile) { (void)logFile; return CUBLAS_STATUS_SUCCESS; }
ZL_EXPORT cublasStatus_t cublasLtLoggerSetLevel(int level) { (void)level; return CUBLAS_STATUS_SUCCESS; }
ZL_EXPORT cublasStatus_t cublasLtLoggerSetMask(int mask) { (void)mask; return CUBLAS_STATUS_SUCCESS; }
ZL_EXPORT cublasStatus_t cublasLtLoggerForceDisable(void) { return CUBLAS_STATUS_SUCCESS; }

/* ------------------------------------------------------------------ attribute helpers */

/* Reads an attribute value of `size` bytes into a 64-bit integer (sign-extended for 4-byte ints when sgn). */
static int get_value(const void *buf, size_t sizeInBytes, size_t want, uint64_t *out) {
    if (!buf || sizeInBytes != want) return -1;
    uint64_t v = 0;
    memcpy(&v, buf, want);
    *out = v;
    return 0;
}

static cublasStatus_t put_value(void *buf, size_t sizeInBytes, size_t *sizeWritten, const void *v, size_t size) {
    if (sizeWritten) *sizeWritten = size;
    if (sizeInBytes == 0 && sizeWritten) return CUBLAS_STATUS_SUCCESS; /* a size query */
    if (!buf || sizeInBytes < size) return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(buf, v, size);
    return CUBLAS_STATUS_SUCCESS;
}

/* ------------------------------------------------------------------ matrix layouts */

ZL_EXPORT cublasStatus_t cublasLtMatrixLayoutInit_internal(cublasLtMatrixLayout_t matLayout, size_t size, cudaDataType type, uint64_t rows,
                                                           uint64_t cols, int64_t ld) {
    if (!matLayout || size < sizeof(layout_t)) return CUBLAS_STATUS_INVALID_VALUE;
    layout_t *l = L(matLayout);
    memset(l, 0, sizeof *l);
    l->magic = LAYOUT_MAGIC;
    l->type = type;
    l->order = CUBLASLT_ORDER_COL;
    l->rows = rows;
    l->cols = cols;
    l->ld = ld;
    l->batchCount = 1;
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *matLayout, cudaDataType type, uint64_t rows, uint64_t cols,
                                                    int64_t ld) {
    if (!matLayout) return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatrixLayout_t l = calloc(1, sizeof(cublasLtMatrixLayoutOpaque_t));
    if (!l) return CUBLAS_STATUS_ALLOC_FAILED;
    cublasLtMatrixLayoutInit_internal(l, sizeof(cublasLtMatrixLayoutOpaque_t), type, rows, cols, ld);
    *matLayout = l;
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t matLayout) {
    if (matLayout) {
        L(matLayout)->magic = 0;
        free(matLayout);
    }
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t matLayout, cublasLtMatrixLayoutAttribute_t attr,
                                                          const void *buf, size_t sizeInBytes) {
    if (!matLayout || L(matLayout)->magic != LAYOUT_MAGIC) return CUBLAS_STATUS_INVALID_VALUE;
    layout_t *l = L(matLayout);
    uint64_t v;
    switch (attr) {
        case CUBLASLT_MATRIX_LAYOUT_TYPE: if (get_value(buf, sizeInBytes, 4, &v)) return CUBLAS_STATUS_INVALID_VALUE; l->type = (cudaDataType)(int32_t)v; break;
        case CUBLASLT_MATRIX_LAYOUT_ORDER: if (get_value(buf, sizeInBytes, 4, &v)) return CUBLAS_STATUS_INVALID_VALUE; l->order = (cublasLtOrder_t)(int32_t)v; break;
        case CUBLASLT_MATRIX_LAYOUT_ROWS: if (get_value(buf, sizeInBytes, 8, &v)) return CUBLAS_STATUS_INVALID_VALUE; l->rows = v; break;
        case CUBLASLT_MATRIX_LAYOUT_COLS: if (get_value(buf, sizeInBytes, 8, &v)) return CUBLAS_STATUS_INVALID_VALUE; l->cols = v; break;
        case CUBLASLT_MATRIX_LAYOUT_LD: if (get_value(buf, sizeInBytes, 8, &v)) return CUBLAS_STATUS_INVALID_VALUE; l->ld = (int64_t)v; break;
        case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT: if (get_value(buf, sizeInBytes, 4, &v)) return CUBLAS_STATUS_INVALID_VALUE; l->batchCount = (int32_t)v; break;
        case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET: if (get_value(buf, sizeInBytes, 8, &v)) return CUBLAS_STATUS_INVALID_VALUE; l->batchStride = (int64_t)v; break;
        case CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET: if (get_value(buf, sizeInBytes, 8, &v)) return CUBLAS_STATUS_INVALID_VALUE; l->planeOffset = (int64_t)v; break;
        case CUBLASLT_MATRIX_LAYOUT_BATCH_MODE: if (get_value(buf, sizeInBytes, 4, &v)) return CUBLAS_STATUS_INVALID_VALUE; l->batchMode = (int32_t)v; break;
        default: return CUBLAS_STATUS_INVALID_VALUE;
    }
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t matLayout, cublasLtMatrixLayoutAttribute_t attr, void *buf,
                                                          size_t sizeInBytes, size_t *sizeWritten) {
    if (!matLayout || L(matLayout)->magic != LAYOUT_MAGIC) return CUBLAS_STATUS_INVALID_VALUE;
    layout_t *l = L(matLayout);
    int32_t i32;
    switch (attr) {
        case CUBLASLT_MATRIX_LAYOUT_TYPE: i32 = l->type; return put_value(buf, sizeInBytes, sizeWritten, &i32, 4);
        case CUBLASLT_MATRIX_LAYOUT_ORDER: i32 = l->order; return put_value(buf, sizeInBytes, sizeWritten, &i32, 4);
        case CUBLASLT_MATRIX_LAYOUT_ROWS: return put_value(buf, sizeInBytes, sizeWritten, &l->rows, 8);
        case CUBLASLT_MATRIX_LAYOUT_COLS: return put_value(buf, sizeInBytes, sizeWritten, &l->cols, 8);
        case CUBLASLT_MATRIX_LAYOUT_LD: return put_value(buf, sizeInBytes, sizeWritten, &l->ld, 8);
        case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT: return put_value(buf, sizeInBytes, sizeWritten, &l->batchCount, 4);
        case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET: return put_value(buf, sizeInBytes, sizeWritten, &l->batchStride, 8);
        case CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET: return put_value(buf, sizeInBytes, sizeWritten, &l->planeOffset, 8);
        case CUBLASLT_MATRIX_LAYOUT_BATCH_MODE: return put_value(buf, sizeInBytes, sizeWritten, &l->batchMode, 4);
        default: return CUBLAS_STATUS_INVALID_VALUE;
    }
}

/* ------------------------------------------------------------------ matmul descriptors */

ZL_EXPORT cublasStatus_t cublasLtMatmulDescInit_internal(cublasLtMatmulDesc_t matmulDesc, size_t size, cublasComputeType_t computeType,
                                                         cudaDataType_t scaleType) {
    if (!matmulDesc || size < sizeof(desc_t)) return CUBLAS_STATUS_INVALID_VALUE;
    desc_t *d = Dd(matmulDesc);
    memset(d, 0, sizeof *d);
    d->magic = DESC_MAGIC;
    d->compute = computeType;
    d->scaleType = scaleType;
    d->transa = d->transb = d->transc = CUBLAS_OP_N;
    d->fillMode = CUBLAS_FILL_MODE_FULL;
    d->epilogue = CUBLASLT_EPILOGUE_DEFAULT;
    d->biasType = -1;
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *matmulDesc, cublasComputeType_t computeType, cudaDataType_t scaleType) {
    if (!matmulDesc) return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatmulDesc_t d = calloc(1, sizeof(cublasLtMatmulDescOpaque_t));
    if (!d) return CUBLAS_STATUS_ALLOC_FAILED;
    cublasLtMatmulDescInit_internal(d, sizeof(cublasLtMatmulDescOpaque_t), computeType, scaleType);
    *matmulDesc = d;
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t matmulDesc) {
    if (matmulDesc) {
        Dd(matmulDesc)->magic = 0;
        free(matmulDesc);
    }
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t matmulDesc, cublasLtMatmulDescAttributes_t attr, const void *buf,
                                                        size_t sizeInBytes) {
    if (!matmulDesc || Dd(matmulDesc)->magic != DESC_MAGIC || !buf) return CUBLAS_STATUS_INVALID_VALUE;
    desc_t *d = Dd(matmulDesc);
    uint64_t v = 0;
    size_t want;
    switch (attr) {
        case CUBLASLT_MATMUL_DESC_BIAS_POINTER: case CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE: want = 8; break;
        case CUBLASLT_MATMUL_DESC_FAST_ACCUM: want = 1; break;
        default: want = sizeInBytes <= 8 ? sizeInBytes : 8; break;
    }
    if (get_value(buf, sizeInBytes, want, &v)) return CUBLAS_STATUS_INVALID_VALUE;
    switch (attr) {
        case CUBLASLT_MATMUL_DESC_COMPUTE_TYPE: d->compute = (cublasComputeType_t)(int32_t)v; break;
        case CUBLASLT_MATMUL_DESC_SCALE_TYPE: d->scaleType = (cudaDataType)(int32_t)v; break;
        case CUBLASLT_MATMUL_DESC_POINTER_MODE: d->pointerMode = (int32_t)v; break;
        case CUBLASLT_MATMUL_DESC_TRANSA: d->transa = (int32_t)v; break;
        case CUBLASLT_MATMUL_DESC_TRANSB: d->transb = (int32_t)v; break;
        case CUBLASLT_MATMUL_DESC_TRANSC: d->transc = (int32_t)v; break;
        case CUBLASLT_MATMUL_DESC_FILL_MODE: d->fillMode = (int32_t)v; break;
        case CUBLASLT_MATMUL_DESC_EPILOGUE: d->epilogue = (uint32_t)v; break;
        case CUBLASLT_MATMUL_DESC_BIAS_POINTER: d->bias = v; break;
        case CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE: d->biasBatchStride = (int64_t)v; break;
        case CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE: d->biasType = (int32_t)v; break;
        case CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET: d->smCount = (int32_t)v; break;
        case CUBLASLT_MATMUL_DESC_FAST_ACCUM: d->fastAccum = (int8_t)v; break; /* accumulation is always fp32 here */
        default:
            if ((unsigned)attr < 64) {
                if (v) d->unsupportedMask |= 1ull << attr; else d->unsupportedMask &= ~(1ull << attr);
            } else if (v) {
                return CUBLAS_STATUS_INVALID_VALUE;
            }
    }
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t matmulDesc, cublasLtMatmulDescAttributes_t attr, void *buf,
                                                        size_t sizeInBytes, size_t *sizeWritten) {
    if (!matmulDesc || Dd(matmulDesc)->magic != DESC_MAGIC) return CUBLAS_STATUS_INVALID_VALUE;
    desc_t *d = Dd(matmulDesc);
    int32_t i32;
    switch (attr) {
        case CUBLASLT_MATMUL_DESC_COMPUTE_TYPE: i32 = d->compute; return put_value(buf, sizeInBytes, sizeWritten, &i32, 4);
        case CUBLASLT_MATMUL_DESC_SCALE_TYPE: i32 = d->scaleType; return put_value(buf, sizeInBytes, sizeWritten, &i32, 4);
        case CUBLASLT_MATMUL_DESC_POINTER_MODE: return put_value(buf, sizeInBytes, sizeWritten, &d->pointerMode, 4);
        case CUBLASLT_MATMUL_DESC_TRANSA: return put_value(buf, sizeInBytes, sizeWritten, &d->transa, 4);
        case CUBLASLT_MATMUL_DESC_TRANSB: return put_value(buf, sizeInBytes, sizeWritten, &d->transb, 4);
        case CUBLASLT_MATMUL_DESC_TRANSC: return put_value(buf, sizeInBytes, sizeWritten, &d->transc, 4);
        case CUBLASLT_MATMUL_DESC_FILL_MODE: return put_value(buf, sizeInBytes, sizeWritten, &d->fillMode, 4);
        case CUBLASLT_MATMUL_DESC_EPILOGUE: return put_value(buf, sizeInBytes, sizeWritten, &d->epilogue, 4);
        case CUBLASLT_MATMUL_DESC_BIAS_POINTER: return put_value(buf, sizeInBytes, sizeWritten, &d->bias, 8);
        case CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE: return put_value(buf, sizeInBytes, sizeWritten, &d->biasBatchStride, 8);
        case CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE: return put_value(buf, sizeInBytes, sizeWritten, &d->biasType, 4);
        case CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET: return put_value(buf, sizeInBytes, sizeWritten, &d->smCount, 4);
        case CUBLASLT_MATMUL_DESC_FAST_ACCUM: return put_value(buf, sizeInBytes, sizeWritten, &d->fastAccum, 1);
        default: {
            uint64_t zero = 0;
            return put_value(buf, sizeInBytes, sizeWritten, &zero, sizeInBytes >= 8 ? 8 : (sizeInBytes ? sizeInBytes : 8));
        }
    }
}

/* ------------------------------------------------------------------ preferences */

ZL_EXPORT cublasStatus_t cublasLtMatmulPreferenceInit_internal(cublasLtMatmulPreference_t pref, size_t size) {
    if (!pref || size < sizeof(pref_t)) return CUBLAS_STATUS_INVALID_VALUE;
    memset(P(pref), 0, sizeof(pref_t));
    P(pref)->magic = PREF_MAGIC;
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref) {
    if (!pref) return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatmulPreference_t p = calloc(1, sizeof(cublasLtMatmulPreferenceOpaque_t));
    if (!p) return CUBLAS_STATUS_ALLOC_FAILED;
    cublasLtMatmulPreferenceInit_internal(p, sizeof(cublasLtMatmulPreferenceOpaque_t));
    *pref = p;
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref) {
    if (pref) {
        P(pref)->magic = 0;
        free(pref);
    }
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attr,
                                                              const void *buf, size_t sizeInBytes) {
    if (!pref || P(pref)->magic != PREF_MAGIC) return CUBLAS_STATUS_INVALID_VALUE;
    pref_t *p = P(pref);
    uint64_t v;
    switch (attr) {
        case CUBLASLT_MATMUL_PREF_SEARCH_MODE: if (get_value(buf, sizeInBytes, 4, &v)) return CUBLAS_STATUS_INVALID_VALUE; p->searchMode = (uint32_t)v; break;
        case CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES: if (get_value(buf, sizeInBytes, 8, &v)) return CUBLAS_STATUS_INVALID_VALUE; p->maxWorkspace = v; break;
        case CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK: if (get_value(buf, sizeInBytes, 4, &v)) return CUBLAS_STATUS_INVALID_VALUE; p->reductionMask = (uint32_t)v; break;
        case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES: case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES:
        case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES: case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES:
            if (get_value(buf, sizeInBytes, 4, &v)) return CUBLAS_STATUS_INVALID_VALUE;
            p->align[attr - CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES] = (uint32_t)v;
            break;
        case CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT: if (get_value(buf, sizeInBytes, 4, &v)) return CUBLAS_STATUS_INVALID_VALUE; memcpy(&p->maxWaves, &v, 4); break;
        case CUBLASLT_MATMUL_PREF_IMPL_MASK: if (get_value(buf, sizeInBytes, 8, &v)) return CUBLAS_STATUS_INVALID_VALUE; p->implMask = v; break;
        default: return CUBLAS_STATUS_INVALID_VALUE;
    }
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasLtMatmulPreferenceGetAttribute(cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attr, void *buf,
                                                              size_t sizeInBytes, size_t *sizeWritten) {
    if (!pref || P(pref)->magic != PREF_MAGIC) return CUBLAS_STATUS_INVALID_VALUE;
    pref_t *p = P(pref);
    switch (attr) {
        case CUBLASLT_MATMUL_PREF_SEARCH_MODE: return put_value(buf, sizeInBytes, sizeWritten, &p->searchMode, 4);
        case CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES: return put_value(buf, sizeInBytes, sizeWritten, &p->maxWorkspace, 8);
        case CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK: return put_value(buf, sizeInBytes, sizeWritten, &p->reductionMask, 4);
        case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES: case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES:
        case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES: case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES:
            return put_value(buf, sizeInBytes, sizeWritten, &p->align[attr - CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES], 4);
        case CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT: return put_value(buf, sizeInBytes, sizeWritten, &p->maxWaves, 4);
        case CUBLASLT_MATMUL_PREF_IMPL_MASK: return put_value(buf, sizeInBytes, sizeWritten, &p->implMask, 8);
        default: return CUBLAS_STATUS_INVALID_VALUE;
    }
}

/* ------------------------------------------------------------------ the matmul */

typedef struct {
    enum zl_kernel kernel;
    int scalarKind, biasKind, ep;
    size_t inSize, outSize;
    zl_gemm g;
    int64_t batch;
} plan_t;

static int kind_of(cudaDataType ab, cudaDataType cd, cublasComputeType_t compute, plan_t *p) {
    int c32 = compute == CUBLAS_COMPUTE_32F || compute == CUBLAS_COMPUTE_32F_PEDANTIC || compute == CUBLAS_COMPUTE_32F_FAST_16F
              || compute == CUBLAS_COMPUTE_32F_FAST_16BF || compute == CUBLAS_COMPUTE_32F_FAST_TF32;
    int c16 = compute == CUBLAS_COMPUTE_16F || compute == CUBLAS_COMPUTE_16F_PEDANTIC;
    int c64 = compute == CUBLAS_COMPUTE_64F || compute == CUBLAS_COMPUTE_64F_PEDANTIC;
    if (ab == CUDA_R_32F && cd == CUDA_R_32F && c32) { p->kernel = ZK_GEMM_SSS_S; p->scalarKind = ZL_F32; p->inSize = 4; p->outSize = 4; return 0; }
    if (ab == CUDA_R_64F && cd == CUDA_R_64F && c64) { p->kernel = ZK_GEMM_DDD_S; p->scalarKind = ZL_F64; p->inSize = 8; p->outSize = 8; return 0; }
    if (ab == CUDA_R_16F && cd == CUDA_R_16F && (c32 || c16)) { p->kernel = ZK_GEMM_HHS_S; p->scalarKind = c16 ? ZL_F16 : ZL_F32; p->inSize = 2; p->outSize = 2; return 0; }
    if (ab == CUDA_R_16F && cd == CUDA_R_32F && c32) { p->kernel = ZK_GEMM_HSS_S; p->scalarKind = ZL_F32; p->inSize = 2; p->outSize = 4; return 0; }
    if (ab == CUDA_R_16BF && cd == CUDA_R_16BF && c32) { p->kernel = ZK_GEMM_BBS_S; p->scalarKind = ZL_F32; p->inSize = 2; p->outSize = 2; return 0; }
    if (ab == CUDA_R_16BF && cd == CUDA_R_32F && c32) { p->kernel = ZK_GEMM_BSS_S; p->scalarKind = ZL_F32; p->inSize = 2; p->outSize = 4; return 0; }
    return -1;
}

/* Element strides (rows, columns) of a layout. */
static int strides(const layout_t *l, int64_t *rs, int64_t *cs) {
    if (l->order == CUBLASLT_ORDER_COL) { *rs = 1; *cs = l->ld; return 0; }
    if (l->order == CUBLASLT_ORDER_ROW) { *rs = l->ld; *cs = 1; return 0; }
    return -1;
}

/*
 * Checks a matmul and works out its kernel and geometry (no pointers involved): CUBLAS_STATUS_SUCCESS,
 * CUBLAS_STATUS_INVALID_VALUE for shapes that do not fit together, CUBLAS_STATUS_NOT_SUPPORTED (with a
 * line on stderr saying what) for what zluda does not implement.
 */
static cublasStatus_t plan(const char *fn, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc,
                           cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc, plan_t *p) {
    if (!desc || Dd(desc)->magic != DESC_MAGIC) return CUBLAS_STATUS_INVALID_VALUE;
    const desc_t *d = Dd(desc);
    const layout_t *a = Adesc ? L(Adesc) : NULL, *b = Bdesc ? L(Bdesc) : NULL, *c = Cdesc ? L(Cdesc) : NULL, *o = Ddesc ? L(Ddesc) : NULL;
    if (!a || !b || !c || a->magic != LAYOUT_MAGIC || b->magic != LAYOUT_MAGIC || c->magic != LAYOUT_MAGIC) return CUBLAS_STATUS_INVALID_VALUE;
    if (!o) o = c;
    if (o->magic != LAYOUT_MAGIC) return CUBLAS_STATUS_INVALID_VALUE;
    memset(p, 0, sizeof *p);
    if (d->unsupportedMask) {
        for (int i = 0; i < 64; i++) {
            if (d->unsupportedMask & (1ull << i)) {
                zl_say(LIB, "%s: matmul descriptor attribute %d (cublasLtMatmulDescAttributes_t) is set; zluda's cuBLASLt does not implement it (CUBLAS_STATUS_NOT_SUPPORTED)", fn, i);
                return CUBLAS_STATUS_NOT_SUPPORTED;
            }
        }
    }
    if (a->type != b->type || c->type != o->type || kind_of(a->type, o->type, d->compute, p) != 0) {
        zl_say(LIB, "%s: A type %d, B type %d, C type %d, D type %d with compute type %d is not supported (CUBLAS_STATUS_NOT_SUPPORTED)", fn,
               a->type, b->type, c->type, o->type, d->compute);
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    if (d->pointerMode != CUBLASLT_POINTER_MODE_HOST && d->pointerMode != CUBLASLT_POINTER_MODE_DEVICE) {
        zl_say(LIB, "%s: pointer mode %d is not supported (CUBLAS_STATUS_NOT_SUPPORTED)", fn, d->pointerMode);
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    int bias = 0;
    switch (d->epilogue) {
        case CUBLASLT_EPILOGUE_DEFAULT: p->ep = 0; break;
        case CUBLASLT_EPILOGUE_RELU: p->ep = 1; break;
        case CUBLASLT_EPILOGUE_BIAS: p->ep = 0; bias = 1; break;
        case CUBLASLT_EPILOGUE_RELU_BIAS: p->ep = 1; bias = 1; break;
        case CUBLASLT_EPILOGUE_GELU: p->ep = 2; break;
        case CUBLASLT_EPILOGUE_GELU_BIAS: p->ep = 2; bias = 1; break;
        default:
            zl_say(LIB, "%s: epilogue %u (cublasLtEpilogue_t) is not supported (CUBLAS_STATUS_NOT_SUPPORTED)", fn, d->epilogue);
            return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    if ((d->transa != CUBLAS_OP_N && d->transa != CUBLAS_OP_T) || (d->transb != CUBLAS_OP_N && d->transb != CUBLAS_OP_T) || d->transc != CUBLAS_OP_N) {
        zl_say(LIB, "%s: transa %d, transb %d, transc %d is not supported (CUBLAS_STATUS_NOT_SUPPORTED)", fn, d->transa, d->transb, d->transc);
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    int64_t ars, acs, brs, bcs, crs, ccs, drs, dcs;
    if (strides(a, &ars, &acs) || strides(b, &brs, &bcs) || strides(c, &crs, &ccs) || strides(o, &drs, &dcs) || a->planeOffset || b->planeOffset
        || c->planeOffset || o->planeOffset || a->batchMode || b->batchMode || c->batchMode || o->batchMode) {
        zl_say(LIB, "%s: a matrix layout with an order other than CUBLASLT_ORDER_COL or _ROW, a plane offset or pointer-array batches is not supported (CUBLAS_STATUS_NOT_SUPPORTED)", fn);
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    uint64_t m = o->rows, n = o->cols;
    uint64_t k = d->transa == CUBLAS_OP_N ? a->cols : a->rows;
    uint64_t am = d->transa == CUBLAS_OP_N ? a->rows : a->cols;
    uint64_t bk = d->transb == CUBLAS_OP_N ? b->rows : b->cols, bn = d->transb == CUBLAS_OP_N ? b->cols : b->rows;
    if (am != m || bk != k || bn != n || c->rows != m || c->cols != n) return CUBLAS_STATUS_INVALID_VALUE;
    if (m > 0x7fffffff || n > 0x7fffffff || k > 0x7fffffff) return CUBLAS_STATUS_NOT_SUPPORTED;
    int64_t batch = o->batchCount;
    if (batch < 1 || (a->batchCount != batch && a->batchCount != 1) || (b->batchCount != batch && b->batchCount != 1) || c->batchCount != batch)
        return CUBLAS_STATUS_INVALID_VALUE;
    zl_gemm *g = &p->g;
    g->m = (int)m; g->n = (int)n; g->k = (int)k; g->ep = p->ep; g->scalarKind = p->scalarKind;
    g->a_rs = d->transa == CUBLAS_OP_N ? ars : acs; g->a_ks = d->transa == CUBLAS_OP_N ? acs : ars;
    g->b_ks = d->transb == CUBLAS_OP_N ? brs : bcs; g->b_cs = d->transb == CUBLAS_OP_N ? bcs : brs;
    g->c_rs = crs; g->c_cs = ccs; g->d_rs = drs; g->d_cs = dcs;
    g->a_bs = a->batchCount == 1 ? 0 : a->batchStride; g->b_bs = b->batchCount == 1 ? 0 : b->batchStride;
    g->c_bs = c->batchStride; g->d_bs = o->batchStride;
    if (bias) {
        int bt = d->biasType >= 0 ? d->biasType : (int)o->type;
        if (p->kernel == ZK_GEMM_DDD_S) {
            if (bt != CUDA_R_64F) return CUBLAS_STATUS_NOT_SUPPORTED;
        } else if (bt == CUDA_R_32F) {
            p->biasKind = ZL_F32;
        } else if (bt == CUDA_R_16F) {
            p->biasKind = ZL_F16;
        } else if (bt == CUDA_R_16BF) {
            p->biasKind = ZL_BF16;
        } else {
            zl_say(LIB, "%s: bias data type %d is not supported (CUBLAS_STATUS_NOT_SUPPORTED)", fn, bt);
            return CUBLAS_STATUS_NOT_SUPPORTED;
        }
        g->biasKind = p->biasKind;
        g->bias = d->bias;
        g->bias_bs = d->biasBatchStride;
        if (!d->bias) return CUBLAS_STATUS_INVALID_VALUE;
    }
    p->batch = batch;
    return CUBLAS_STATUS_SUCCESS;
}

static double scalar_of(const void *p, int kind) {
    if (kind == ZL_F64) return *(const double *)p;
    if (kind == ZL_F16) return zl_half_to_float(*(const uint16_t *)p);
    return *(const float *)p;
}

ZL_EXPORT cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc, const void *alpha, const void *A,
                                        cublasLtMatrixLayout_t Adesc, const void *B, cublasLtMatrixLayout_t Bdesc, const void *beta,
                                        const void *C, cublasLtMatrixLayout_t Cdesc, void *D, cublasLtMatrixLayout_t Ddesc,
                                        const cublasLtMatmulAlgo_t *algo, void *workspace, size_t workspaceSizeInBytes, cudaStream_t stream) {
    (void)algo; (void)workspace; (void)workspaceSizeInBytes; /* one kernel, no workspace */
    if (!lightHandle || lightHandle->magic != HANDLE_MAGIC) return CUBLAS_STATUS_NOT_INITIALIZED;
    plan_t p;
    cublasStatus_t s = plan("cublasLtMatmul", computeDesc, Adesc, Bdesc, Cdesc, Ddesc, &p);
    if (s != CUBLAS_STATUS_SUCCESS) return s;
    if (!alpha || !beta || !D) return CUBLAS_STATUS_INVALID_VALUE;
    if (p.g.m == 0 || p.g.n == 0) return CUBLAS_STATUS_SUCCESS;
    if (Dd(computeDesc)->pointerMode == CUBLASLT_POINTER_MODE_HOST) {
        p.g.alpha = scalar_of(alpha, p.scalarKind);
        p.g.beta = scalar_of(beta, p.scalarKind);
        if (p.g.alpha == 0.0) p.g.k = 0; /* A and B are not read */
    } else {
        p.g.alphaPtr = (CUdeviceptr)alpha;
        p.g.betaPtr = (CUdeviceptr)beta;
    }
    if (!C) {
        if (p.g.betaPtr == 0 && p.g.beta != 0.0) return CUBLAS_STATUS_INVALID_VALUE;
        C = D;
        p.g.c_rs = p.g.d_rs; p.g.c_cs = p.g.d_cs; p.g.c_bs = p.g.d_bs;
    }
    CUresult r = zl_gemm_launch(lightHandle->ctx, (CUstream)stream, p.kernel, &p.g, (CUdeviceptr)A, (CUdeviceptr)B, (CUdeviceptr)C,
                                (CUdeviceptr)D, p.batch, 0, p.inSize, p.outSize);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) return CUBLAS_STATUS_ALLOC_FAILED;
    return r == CUDA_SUCCESS ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
}

/* ------------------------------------------------------------------ algorithms and the heuristic */

#define ALGO_ID 0
#define ALGO_TAG 0x7a6c7564614c74ull /* "zludaLt" */

static void fill_algo(cublasLtMatmulAlgo_t *algo) {
    memset(algo, 0, sizeof *algo);
    algo->data[0] = ALGO_TAG;
    algo->data[1] = ALGO_ID;
}

/*
 * The one algorithm zluda has (one thread per element of D, fp32 or fp64 accumulation in order of k,
 * no workspace), returned when the problem is supported; CUBLAS_STATUS_NOT_SUPPORTED and
 * *returnAlgoCount 0 when it is not, as NVIDIA's library answers when no algorithm fits.
 */
ZL_EXPORT cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc,
                                                        cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc, cublasLtMatrixLayout_t Cdesc,
                                                        cublasLtMatrixLayout_t Ddesc, cublasLtMatmulPreference_t preference,
                                                        int requestedAlgoCount, cublasLtMatmulHeuristicResult_t *heuristicResultsArray,
                                                        int *returnAlgoCount) {
    if (!lightHandle || lightHandle->magic != HANDLE_MAGIC) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (requestedAlgoCount < 1 || !heuristicResultsArray || !returnAlgoCount) return CUBLAS_STATUS_INVALID_VALUE;
    (void)preference; /* no workspace is needed, so any maximum fits */
    *returnAlgoCount = 0;
    plan_t p;
    cublasStatus_t s = plan("cublasLtMatmulAlgoGetHeuristic", operationDesc, Adesc, Bdesc, Cdesc, Ddesc, &p);
    if (s != CUBLAS_STATUS_SUCCESS) return s;
    memset(heuristicResultsArray, 0, sizeof *heuristicResultsArray);
    fill_algo(&heuristicResultsArray->algo);
    heuristicResultsArray->workspaceSize = 0;
    heuristicResultsArray->state = CUBLAS_STATUS_SUCCESS;
    heuristicResultsArray->wavesCount = 1.0f;
    *returnAlgoCount = 1;
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasLtMatmulAlgoGetIds(cublasLtHandle_t lightHandle, cublasComputeType_t computeType, cudaDataType_t scaleType,
                                                  cudaDataType_t Atype, cudaDataType_t Btype, cudaDataType_t Ctype, cudaDataType_t Dtype,
                                                  int requestedAlgoCount, int *algoIdsArray, int *returnAlgoCount) {
    (void)scaleType;
    if (!lightHandle || lightHandle->magic != HANDLE_MAGIC) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (requestedAlgoCount < 1 || !algoIdsArray || !returnAlgoCount) return CUBLAS_STATUS_INVALID_VALUE;
    plan_t p;
    *returnAlgoCount = 0;
    if (Atype != Btype || Ctype != Dtype || kind_of(Atype, Dtype, computeType, &p) != 0) return CUBLAS_STATUS_SUCCESS;
    algoIdsArray[0] = ALGO_ID;
    *returnAlgoCount = 1;
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasLtMatmulAlgoInit(cublasLtHandle_t lightHandle, cublasComputeType_t computeType, cudaDataType_t scaleType,
                                                cudaDataType_t Atype, cudaDataType_t Btype, cudaDataType_t Ctype, cudaDataType_t Dtype, int algoId,
                                                cublasLtMatmulAlgo_t *algo) {
    (void)scaleType;
    if (!lightHandle || lightHandle->magic != HANDLE_MAGIC) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!algo) return CUBLAS_STATUS_INVALID_VALUE;
    plan_t p;
    if (algoId != ALGO_ID || Atype != Btype || Ctype != Dtype || kind_of(Atype, Dtype, computeType, &p) != 0) return CUBLAS_STATUS_NOT_SUPPORTED;
    fill_algo(algo);
    return CUBLAS_STATUS_SUCCESS;
}

ZL_EXPORT cublasStatus_t cublasLtMatmulAlgoCheck(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc, cublasLtMatrixLayout_t Adesc,
                                                 cublasLtMatrixLayout_t Bdesc, cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
                                                 const cublasLtMatmulAlgo_t *algo, cublasLtMatmulHeuristicResult_t *result) {
    if (!lightHandle || lightHandle->magic != HANDLE_MAGIC) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!algo || !result) return CUBLAS_STATUS_INVALID_VALUE;
    if (algo->data[0] != ALGO_TAG) return CUBLAS_STATUS_INVALID_VALUE;
    plan_t p;
    cublasStatus_t s = plan("cublasLtMatmulAlgoCheck", operationDesc, Adesc, Bdesc, Cdesc, Ddesc, &p);
    if (s != CUBLAS_STATUS_SUCCESS) return s;
    memset(result, 0, sizeof *result);
    result->algo = *algo;
    result->state = CUBLAS_STATUS_SUCCESS;
    result->wavesCount = 1.0f;
    return CUBLAS_STATUS_SUCCESS;
}
