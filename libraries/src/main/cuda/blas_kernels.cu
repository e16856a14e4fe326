// Kernels of zluda's cuBLAS and cuBLASLt (libraries/src/main/c): compiled to PTX by
// libraries/gen-ptx.sh (nvcc -ptx -arch=sm_75) and embedded in libcublas.so.13 and libcublasLt.so.13,
// which load them with cuModuleLoadData on whichever driver they run on (zluda's or NVIDIA's).
//
// Accumulation order (what a result is bit for bit, documented in docs/support.md):
//  - GEMM/GEMV: each output element is its own sum (GEMM: a thread computes a 4 x 4 block of them);
//    the products are accumulated in order of k from 0 with fused multiply-adds into an accumulator of
//    the compute type (fp32 for fp32, fp16 and bf16
//    inputs; fp64 for fp64): acc = fma(a(i,k), b(k,j), acc). Then r = alpha * acc; if beta != 0,
//    r = fma(beta, c, r) (C is not read when beta == 0, as BLAS says); with a bias or an epilogue, r is
//    rounded to the output type first, as NVIDIA's cuBLASLt does (docs/support.md: on an H200 its fp16
//    and bf16 results with a bias, ReLU or GELU are those of round(ep(round(r) + bias))); then + bias[i],
//    then the epilogue (ReLU: r > 0 ? r : 0; GELU: 0.5 r (1 + tanh(sqrt(2/pi) (r + 0.044715 r^3)))), then one
//    rounding to the output type (round to nearest even).
//  - dot, asum, nrm2, amax: one CTA of 256 threads; thread t takes elements t, t+256, t+512, ... in
//    order; the 256 partial results are combined pairwise in shared memory (t with t+128, then with
//    t+64, ... down to t+1). Snrm2 accumulates the squares in fp64; Dnrm2 keeps a scaled sum of squares
//    (LAPACK's dnrm2: scale, ssq) per thread.
//  - axpy: y = fma(alpha, x, y); scal: x = alpha * x.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

typedef long long i64;

template <typename T> __device__ __forceinline__ float tof(T v);
template <> __device__ __forceinline__ float tof<float>(float v) { return v; }
template <> __device__ __forceinline__ float tof<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float tof<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T> __device__ __forceinline__ T fromf(float v);
template <> __device__ __forceinline__ float fromf<float>(float v) { return v; }
template <> __device__ __forceinline__ __half fromf<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 fromf<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

// Scalars (alpha, beta) given by pointer in device pointer mode: kind 0 fp32, 1 fp64, 2 fp16.
__device__ __forceinline__ double scalar(const void *p, int kind, double host) {
    if (!p) return host;
    if (kind == 1) return *(const double *)p;
    if (kind == 2) return (double)__half2float(*(const __half *)p);
    return (double)*(const float *)p;
}

// Bias element: kind 0 fp32, 2 fp16, 3 bf16.
__device__ __forceinline__ float bias_at(const void *b, int kind, i64 i) {
    if (kind == 2) return __half2float(((const __half *)b)[i]);
    if (kind == 3) return __bfloat162float(((const __nv_bfloat16 *)b)[i]);
    return ((const float *)b)[i];
}

__device__ __forceinline__ float epilogue(float r, int ep) {
    if (ep == 1) return r > 0.0f ? r : 0.0f;
    if (ep == 2) {
        const float k0 = 0.7978845608028654f, k1 = 0.044715f;
        return 0.5f * r * (1.0f + tanhf(k0 * (r + k1 * r * r * r)));
    }
    return r;
}
__device__ __forceinline__ double epilogue(double r, int ep) {
    if (ep == 1) return r > 0.0 ? r : 0.0;
    if (ep == 2) return 0.5 * r * (1.0 + tanh(0.7978845608028654 * (r + 0.044715 * r * r * r)));
    return r;
}

// Geometry of one GEMM: D(i,j) = ep(alpha * sum_p opA(i,p) opB(p,j) + beta * C(i,j) + bias(i)).
// Every operand by element strides: op(A)(i,p) = A[i*a_rs + p*a_ks], op(B)(p,j) = B[p*b_ks + j*b_cs],
// C(i,j) = C[i*c_rs + j*c_cs], D(i,j) = D[i*d_rs + j*d_cs] (column-major, row-major and transposes
// are all strides chosen by the host). Batch z adds z * the batch stride of each operand.
struct Gemm {
    int m, n, k, ep, scalarKind, biasKind;
    i64 a_rs, a_ks, b_ks, b_cs, c_rs, c_cs, d_rs, d_cs;
    i64 a_bs, b_bs, c_bs, d_bs, bias_bs;
    double alpha, beta;
    const void *alphaPtr, *betaPtr, *bias;
};

// Each thread computes a 4 x 4 block of D: rows i0 + 16 r and columns j0 + 16 c (r, c = 0..3), so a
// 16 x 16 CTA covers 64 x 64 elements; per k it loads 4 values of op(A) and 4 of op(B) once and does 16
// fused multiply-adds. Every element is still its own sum in order of k, so the results are those of
// one thread per element bit for bit; only the instructions per multiply-add drop (about 2 instead of
// 6.5). Rows and columns past the matrix read a valid element (clamped) and are not stored.
#define TILE 4
#define STEP 16

// The end of one element: + beta C, the rounding to TC where a bias or an epilogue follows (nothing for
// fp32), + bias, the epilogue, the rounding to TC. Not inlined: the 16 call sites of a thread's block
// would otherwise each carry the epilogue's code (GELU's tanh).
template <typename TC>
__device__ __noinline__ void store_f32(TC *D, i64 di, const TC *C, i64 ci, float v, float beta, const void *bias, int biasKind, i64 bi, int ep) {
    if (beta != 0.0f) v = fmaf(beta, tof<TC>(C[ci]), v);
    if (bias || ep) v = tof<TC>(fromf<TC>(v));
    if (bias) v += bias_at(bias, biasKind, bi);
    D[di] = fromf<TC>(epilogue(v, ep));
}

__device__ __noinline__ void store_f64(double *D, i64 di, const double *C, i64 ci, double v, double beta, const double *bias, i64 bi, int ep) {
    if (beta != 0.0) v = fma(beta, C[ci], v);
    if (bias) v += bias[bi];
    D[di] = epilogue(v, ep);
}

template <typename TA, typename TC>
__device__ __forceinline__ void gemm_f32acc(const Gemm &g, const TA *A, const TA *B, const TC *C, TC *D) {
    int i0 = blockIdx.x * (STEP * TILE) + threadIdx.x;
    int j0 = blockIdx.y * (STEP * TILE) + threadIdx.y;
    if (i0 >= g.m || j0 >= g.n) return;
    const TA *a[TILE], *b[TILE];
    #pragma unroll
    for (int r = 0; r < TILE; r++) {
        int i = min(i0 + STEP * r, g.m - 1), j = min(j0 + STEP * r, g.n - 1);
        a[r] = A + i * g.a_rs;
        b[r] = B + j * g.b_cs;
    }
    float acc[TILE][TILE];
    #pragma unroll
    for (int r = 0; r < TILE; r++)
        #pragma unroll
        for (int c = 0; c < TILE; c++) acc[r][c] = 0.0f;
    i64 ak = 0, bk = 0;
    for (int p = 0; p < g.k; p++) {
        float av[TILE], bv[TILE];
        #pragma unroll
        for (int r = 0; r < TILE; r++) { av[r] = tof<TA>(a[r][ak]); bv[r] = tof<TA>(b[r][bk]); }
        #pragma unroll
        for (int r = 0; r < TILE; r++)
            #pragma unroll
            for (int c = 0; c < TILE; c++) acc[r][c] = fmaf(av[r], bv[c], acc[r][c]);
        ak += g.a_ks;
        bk += g.b_ks;
    }
    float alpha = (float)scalar(g.alphaPtr, g.scalarKind, g.alpha);
    float beta = (float)scalar(g.betaPtr, g.scalarKind, g.beta);
    #pragma unroll
    for (int r = 0; r < TILE; r++) {
        int i = i0 + STEP * r;
        if (i >= g.m) continue;
        #pragma unroll
        for (int c = 0; c < TILE; c++) {
            int j = j0 + STEP * c;
            if (j >= g.n) continue;
            store_f32<TC>(D, i * g.d_rs + j * g.d_cs, C, i * g.c_rs + j * g.c_cs, alpha * acc[r][c], beta, g.bias, g.biasKind,
                          i + (i64)blockIdx.z * g.bias_bs, g.ep);
        }
    }
}

__device__ __forceinline__ void gemm_f64(const Gemm &g, const double *A, const double *B, const double *C, double *D) {
    int i0 = blockIdx.x * (STEP * TILE) + threadIdx.x;
    int j0 = blockIdx.y * (STEP * TILE) + threadIdx.y;
    if (i0 >= g.m || j0 >= g.n) return;
    const double *a[TILE], *b[TILE];
    #pragma unroll
    for (int r = 0; r < TILE; r++) {
        int i = min(i0 + STEP * r, g.m - 1), j = min(j0 + STEP * r, g.n - 1);
        a[r] = A + i * g.a_rs;
        b[r] = B + j * g.b_cs;
    }
    double acc[TILE][TILE];
    #pragma unroll
    for (int r = 0; r < TILE; r++)
        #pragma unroll
        for (int c = 0; c < TILE; c++) acc[r][c] = 0.0;
    i64 ak = 0, bk = 0;
    for (int p = 0; p < g.k; p++) {
        double av[TILE], bv[TILE];
        #pragma unroll
        for (int r = 0; r < TILE; r++) { av[r] = a[r][ak]; bv[r] = b[r][bk]; }
        #pragma unroll
        for (int r = 0; r < TILE; r++)
            #pragma unroll
            for (int c = 0; c < TILE; c++) acc[r][c] = fma(av[r], bv[c], acc[r][c]);
        ak += g.a_ks;
        bk += g.b_ks;
    }
    double alpha = scalar(g.alphaPtr, g.scalarKind, g.alpha);
    double beta = scalar(g.betaPtr, g.scalarKind, g.beta);
    #pragma unroll
    for (int r = 0; r < TILE; r++) {
        int i = i0 + STEP * r;
        if (i >= g.m) continue;
        #pragma unroll
        for (int c = 0; c < TILE; c++) {
            int j = j0 + STEP * c;
            if (j >= g.n) continue;
            store_f64(D, i * g.d_rs + j * g.d_cs, C, i * g.c_rs + j * g.c_cs, alpha * acc[r][c], beta, (const double *)g.bias,
                      i + (i64)blockIdx.z * g.bias_bs, g.ep);
        }
    }
}

// One entry point per (input type, output type): _s strided batches, _p arrays of pointers.
#define GEMM_F32ACC(NAME, TA, TC)                                                                        \
    extern "C" __global__ void NAME##_s(Gemm g, const TA *A, const TA *B, const TC *C, TC *D) {         \
        i64 z = blockIdx.z;                                                                              \
        gemm_f32acc<TA, TC>(g, A + z * g.a_bs, B + z * g.b_bs, C + z * g.c_bs, D + z * g.d_bs);          \
    }                                                                                                    \
    extern "C" __global__ void NAME##_p(Gemm g, const TA *const *A, const TA *const *B, const TC *const *C, \
                                        TC *const *D) {                                                  \
        int z = blockIdx.z;                                                                              \
        gemm_f32acc<TA, TC>(g, A[z], B[z], C[z], D[z]);                                                  \
    }

GEMM_F32ACC(zl_gemm_sss, float, float)
GEMM_F32ACC(zl_gemm_hhs, __half, __half)
GEMM_F32ACC(zl_gemm_hss, __half, float)
GEMM_F32ACC(zl_gemm_bbs, __nv_bfloat16, __nv_bfloat16)
GEMM_F32ACC(zl_gemm_bss, __nv_bfloat16, float)

extern "C" __global__ void zl_gemm_ddd_s(Gemm g, const double *A, const double *B, const double *C, double *D) {
    i64 z = blockIdx.z;
    gemm_f64(g, A + z * g.a_bs, B + z * g.b_bs, C + z * g.c_bs, D + z * g.d_bs);
}
extern "C" __global__ void zl_gemm_ddd_p(Gemm g, const double *const *A, const double *const *B, const double *const *C,
                                         double *const *D) {
    int z = blockIdx.z;
    gemm_f64(g, A[z], B[z], C[z], D[z]);
}

// ---------------------------------------------------------------- level 2: y = alpha op(A) x + beta y
// op(A)(i,j) = A[i*a_rs + j*a_cs]; x and y by element steps (negative steps: the host passes the
// address of element 0). One thread per element of y, j in order from 0.
template <typename T>
__device__ __forceinline__ void gemv(int m, int n, const T *A, i64 a_rs, i64 a_cs, const T *x, i64 incx, T *y, i64 incy,
                                     T alpha, T beta, const T *alphaPtr, const T *betaPtr) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    const T *a = A + i * a_rs;
    T acc = 0;
    for (int j = 0; j < n; j++) {
        acc = fma(*a, x[j * incx], acc);
        a += a_cs;
    }
    if (alphaPtr) alpha = *alphaPtr;
    if (betaPtr) beta = *betaPtr;
    T r = alpha * acc;
    if (beta != (T)0) r = fma(beta, y[i * incy], r);
    y[i * incy] = r;
}
extern "C" __global__ void zl_sgemv(int m, int n, const float *A, i64 a_rs, i64 a_cs, const float *x, i64 incx, float *y, i64 incy,
                                    float alpha, float beta, const float *alphaPtr, const float *betaPtr) {
    gemv<float>(m, n, A, a_rs, a_cs, x, incx, y, incy, alpha, beta, alphaPtr, betaPtr);
}
extern "C" __global__ void zl_dgemv(int m, int n, const double *A, i64 a_rs, i64 a_cs, const double *x, i64 incx, double *y, i64 incy,
                                    double alpha, double beta, const double *alphaPtr, const double *betaPtr) {
    gemv<double>(m, n, A, a_rs, a_cs, x, incx, y, incy, alpha, beta, alphaPtr, betaPtr);
}

// ---------------------------------------------------------------- level 1, elementwise
template <typename T>
__device__ __forceinline__ void axpy(int n, T alpha, const T *alphaPtr, const T *x, i64 incx, T *y, i64 incy) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (alphaPtr) alpha = *alphaPtr;
    y[i * incy] = fma(alpha, x[i * incx], y[i * incy]);
}
extern "C" __global__ void zl_saxpy(int n, float alpha, const float *alphaPtr, const float *x, i64 incx, float *y, i64 incy) {
    axpy<float>(n, alpha, alphaPtr, x, incx, y, incy);
}
extern "C" __global__ void zl_daxpy(int n, double alpha, const double *alphaPtr, const double *x, i64 incx, double *y, i64 incy) {
    axpy<double>(n, alpha, alphaPtr, x, incx, y, incy);
}

template <typename T>
__device__ __forceinline__ void scal(int n, T alpha, const T *alphaPtr, T *x, i64 incx) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (alphaPtr) alpha = *alphaPtr;
    x[i * incx] = alpha * x[i * incx];
}
extern "C" __global__ void zl_sscal(int n, float alpha, const float *alphaPtr, float *x, i64 incx) { scal<float>(n, alpha, alphaPtr, x, incx); }
extern "C" __global__ void zl_dscal(int n, double alpha, const double *alphaPtr, double *x, i64 incx) { scal<double>(n, alpha, alphaPtr, x, incx); }

template <typename T>
__device__ __forceinline__ void copy(int n, const T *x, i64 incx, T *y, i64 incy) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i * incy] = x[i * incx];
}
extern "C" __global__ void zl_scopy(int n, const float *x, i64 incx, float *y, i64 incy) { copy<float>(n, x, incx, y, incy); }
extern "C" __global__ void zl_dcopy(int n, const double *x, i64 incx, double *y, i64 incy) { copy<double>(n, x, incx, y, incy); }

template <typename T>
__device__ __forceinline__ void swap(int n, T *x, i64 incx, T *y, i64 incy) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    T t = x[i * incx];
    x[i * incx] = y[i * incy];
    y[i * incy] = t;
}
extern "C" __global__ void zl_sswap(int n, float *x, i64 incx, float *y, i64 incy) { swap<float>(n, x, incx, y, incy); }
extern "C" __global__ void zl_dswap(int n, double *x, i64 incx, double *y, i64 incy) { swap<double>(n, x, incx, y, incy); }

// ---------------------------------------------------------------- level 1, reductions (one CTA of 256)
#define RT 256

template <typename T, typename ACC>
__device__ __forceinline__ void reduce_sum_store(ACC acc, T *out) {
    __shared__ ACC sh[RT];
    int t = threadIdx.x;
    sh[t] = acc;
    __syncthreads();
    for (int s = RT / 2; s > 0; s >>= 1) {
        if (t < s) sh[t] = sh[t] + sh[t + s];
        __syncthreads();
    }
    if (t == 0) *out = (T)sh[0];
}

extern "C" __global__ void zl_sdot(int n, const float *x, i64 incx, const float *y, i64 incy, float *out) {
    float acc = 0.0f;
    for (int i = threadIdx.x; i < n; i += RT) acc = fmaf(x[i * incx], y[i * incy], acc);
    reduce_sum_store<float, float>(acc, out);
}
extern "C" __global__ void zl_ddot(int n, const double *x, i64 incx, const double *y, i64 incy, double *out) {
    double acc = 0.0;
    for (int i = threadIdx.x; i < n; i += RT) acc = fma(x[i * incx], y[i * incy], acc);
    reduce_sum_store<double, double>(acc, out);
}
extern "C" __global__ void zl_sasum(int n, const float *x, i64 incx, float *out) {
    float acc = 0.0f;
    for (int i = threadIdx.x; i < n; i += RT) acc += fabsf(x[i * incx]);
    reduce_sum_store<float, float>(acc, out);
}
extern "C" __global__ void zl_dasum(int n, const double *x, i64 incx, double *out) {
    double acc = 0.0;
    for (int i = threadIdx.x; i < n; i += RT) acc += fabs(x[i * incx]);
    reduce_sum_store<double, double>(acc, out);
}
// Snrm2: squares summed in fp64, one square root, rounded to fp32
extern "C" __global__ void zl_snrm2(int n, const float *x, i64 incx, float *out) {
    __shared__ double sh[RT];
    double acc = 0.0;
    for (int i = threadIdx.x; i < n; i += RT) {
        double v = x[i * incx];
        acc = fma(v, v, acc);
    }
    int t = threadIdx.x;
    sh[t] = acc;
    __syncthreads();
    for (int s = RT / 2; s > 0; s >>= 1) {
        if (t < s) sh[t] = sh[t] + sh[t + s];
        __syncthreads();
    }
    if (t == 0) *out = (float)sqrt(sh[0]);
}
// Dnrm2: per thread (scale, ssq) as LAPACK's dnrm2 keeps them; pairs combined at the larger scale
extern "C" __global__ void zl_dnrm2(int n, const double *x, i64 incx, double *out) {
    __shared__ double shs[RT], shq[RT];
    double scale = 0.0, ssq = 1.0;
    for (int i = threadIdx.x; i < n; i += RT) {
        double v = fabs(x[i * incx]);
        if (v != 0.0) {
            if (scale < v) {
                double r = scale / v;
                ssq = 1.0 + ssq * r * r;
                scale = v;
            } else {
                double r = v / scale;
                ssq = ssq + r * r;
            }
        }
    }
    int t = threadIdx.x;
    shs[t] = scale;
    shq[t] = scale == 0.0 ? 0.0 : ssq;
    __syncthreads();
    for (int s = RT / 2; s > 0; s >>= 1) {
        if (t < s) {
            double s1 = shs[t], q1 = shq[t], s2 = shs[t + s], q2 = shq[t + s];
            if (s2 != 0.0) {
                if (s1 < s2) {
                    double r = s1 / s2;
                    shq[t] = q2 + q1 * r * r;
                    shs[t] = s2;
                } else {
                    double r = s2 / s1;
                    shq[t] = q1 + q2 * r * r;
                }
            }
        }
        __syncthreads();
    }
    if (t == 0) *out = shs[0] * sqrt(shq[0]);
}
// I?amax: the smallest 1-based index of an element of largest |x|; 0 when n < 1
template <typename T>
__device__ __forceinline__ void iamax(int n, const T *x, i64 incx, int *out) {
    __shared__ T shv[RT];
    __shared__ int shi[RT];
    T best = -1;
    int bi = 0;
    for (int i = threadIdx.x; i < n; i += RT) {
        T v = fabs(x[i * incx]);
        if (v > best) { best = v; bi = i + 1; }
    }
    int t = threadIdx.x;
    shv[t] = best;
    shi[t] = bi;
    __syncthreads();
    for (int s = RT / 2; s > 0; s >>= 1) {
        if (t < s) {
            T v2 = shv[t + s];
            int i2 = shi[t + s];
            if (i2 != 0 && (shi[t] == 0 || v2 > shv[t] || (v2 == shv[t] && i2 < shi[t]))) {
                shv[t] = v2;
                shi[t] = i2;
            }
        }
        __syncthreads();
    }
    if (t == 0) *out = shi[0];
}
extern "C" __global__ void zl_isamax(int n, const float *x, i64 incx, int *out) { iamax<float>(n, x, incx, out); }
extern "C" __global__ void zl_idamax(int n, const double *x, i64 incx, int *out) { iamax<double>(n, x, incx, out); }
