/*
 * blas_test: calls cuBLAS and cuBLASLt the way programs do (driver API for memory, cublas_v2.h and
 * cublasLt.h for the math) and checks every result against a reference computed on the CPU here.
 *
 * With zluda's libcublas/libcublasLt (on zluda's driver or on NVIDIA's) the reference follows the
 * documented accumulation order (libraries/src/main/cuda/blas_kernels.cu) and results must be equal
 * bit for bit; GELU, whose tanh is the GPU's, within 4 ulp of fp32. With another implementation
 * (NVIDIA's cuBLAS: BLAS_TEST_BOUND=1) every result must lie within the documented bound of that
 * reference (docs/support.md, "zluda's cuBLAS"): for a dot product of length k in unit roundoff u,
 * |got - ref| <= 2 k u sum|a b| |alpha| + 2 u (|alpha sum a b| + |beta c|), plus one rounding of the
 * output type, 2 k u_16 sum|a b| for fp16 accumulation; cublasLtMatmul with a 16-bit D and a bias or
 * an epilogue rounds D to its type before them (NVIDIA's order, recorded on an H200), one more rounding
 * of the output type at that magnitude, and may sum K in parts kept in D's type, u_out |alpha| sum|a b|.
 *
 * Environment:
 *   BLAS_TEST_BOUND=1        compare within the bound (another implementation), not bit for bit
 *   BLAS_TEST_DUMP=FILE      write every result buffer to FILE (u32 name length, name, u64 size, bytes)
 *   BLAS_TEST_SAME=FILE      results must equal FILE's bit for bit (the same library elsewhere); GELU's
 *                            within its 4 ulp, its tanhf being the GPU's (ex2.approx)
 *   BLAS_TEST_WITHIN=FILE    FILE's results (another implementation's dump) must lie within the bound
 *   BLAS_TEST_ZLUDA=1        also check zluda-only behaviour (what is answered "not supported")
 * Prints one line per case (PASS/FAIL name) and PASS at the end; exits 1 when a case fails.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"
#include "cublas_v2.h"
#include "cublasLt.h"

static int failures, bound_mode, zluda_only;
/* GELU in bit-for-bit mode: tanhf is the GPU's (or the emulator's) on one side and the C library's on
 * the other, so each element may differ by 4 ulp of the pre-activation value (GELU's derivative is at
 * most 1.13) */
static const double *gelu_tol;
static FILE *dump;
static unsigned char *same_data, *within_data;
static size_t same_len, within_len;
static const double U32 = 5.9604644775390625e-08, U64 = 1.1102230246251565e-16, U16 = 4.8828125e-04, UBF = 3.90625e-03;

#define CU(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { printf("FAIL %s:%d: %s -> CUresult %d\n", __FILE__, __LINE__, #x, r_); exit(1); } } while (0)
#define CB(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { printf("FAIL %s:%d: %s -> %s\n", __FILE__, __LINE__, #x, cublasGetStatusName(s_)); failures++; return; } } while (0)

/* ------------------------------------------------------------------ inputs and conversions */

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static float frand(void) { /* uniform in [-1, 1) with 24 significant bits */
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((int32_t)(rng >> 40) - (1 << 23)) / (float)(1 << 23);
}
static void fill(float *p, size_t n) { for (size_t i = 0; i < n; i++) p[i] = frand(); }
static void filld(double *p, size_t n) { for (size_t i = 0; i < n; i++) p[i] = (double)frand() + (double)frand() * 1e-7; }

static uint16_t f2h(float f) { /* round to nearest even */
    uint32_t x; memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000; int32_t e = (int32_t)((x >> 23) & 0xFF) - 127 + 15; uint32_t m = x & 0x7FFFFF;
    if (((x >> 23) & 0xFF) == 0xFF) return (uint16_t)(sign | 0x7C00 | (m ? 0x200 : 0));
    if (e >= 31) return (uint16_t)(sign | 0x7C00);
    if (e <= 0) {
        if (e < -10) return (uint16_t)sign;
        m |= 0x800000; uint32_t shift = (uint32_t)(14 - e); uint32_t h = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1))) h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)e << 10) | (m >> 13), rem = m & 0x1FFF;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) h++;
    return (uint16_t)(sign | h);
}
static float h2f(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1F, m = h & 0x3FF, x;
    if (e == 0x1F) x = sign | 0x7F800000 | (m << 13);
    else if (e == 0) { if (!m) x = sign; else { int k = -1; do { m <<= 1; k++; } while (!(m & 0x400)); x = sign | ((uint32_t)(112 - k) << 23) | ((m & 0x3FF) << 13); } }
    else x = sign | ((e + 112) << 23) | (m << 13);
    float f; memcpy(&f, &x, 4); return f;
}
static uint16_t f2b(float f) { uint32_t x; memcpy(&x, &f, 4); uint32_t r = x + 0x7FFF + ((x >> 16) & 1); return (uint16_t)(r >> 16); }
static float b2f(uint16_t b) { uint32_t x = (uint32_t)b << 16; float f; memcpy(&f, &x, 4); return f; }

/* ------------------------------------------------------------------ device memory */

static CUdeviceptr dalloc(size_t n) { CUdeviceptr p; CU(cuMemAlloc(&p, n ? n : 1)); return p; }
static CUdeviceptr dput(const void *h, size_t n) { CUdeviceptr p = dalloc(n); CU(cuMemcpyHtoD(p, h, n)); return p; }
static void dget(void *h, CUdeviceptr p, size_t n) { CU(cuCtxSynchronize()); CU(cuMemcpyDtoH(h, p, n)); }

/* ------------------------------------------------------------------ dumps */

static const unsigned char *find(const unsigned char *data, size_t len, const char *name, size_t *size) {
    size_t off = 0;
    while (data && off + 4 <= len) {
        uint32_t nl; memcpy(&nl, data + off, 4); off += 4;
        const char *n = (const char *)data + off; off += nl;
        uint64_t sz; memcpy(&sz, data + off, 8); off += 8;
        if (nl == strlen(name) && memcmp(n, name, nl) == 0) { *size = sz; return data + off; }
        off += sz;
    }
    return NULL;
}

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) { printf("FAIL cannot read %s\n", path); exit(1); }
    fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n + 1);
    if (fread(b, 1, (size_t)n, f) != (size_t)n) { printf("FAIL short read %s\n", path); exit(1); }
    fclose(f); *len = (size_t)n; return b;
}

/*
 * Checks one result: `got` (what the library computed) against `ref` (the CPU reference in the
 * documented order) element by element, kind 'f' fp32, 'd' fp64, 'h' fp16, 'b' bf16, 'i' int32;
 * tol[i] the bound for element i in bound mode (or NULL: exact even there), gelu: up to 4 ulp.
 * Also dumps `got`, and compares it with the same case in BLAS_TEST_SAME / BLAS_TEST_WITHIN.
 */
static int check(const char *name, char kind, const void *got, const void *ref, const double *tol, size_t n, int gelu) {
    size_t es = kind == 'd' ? 8 : kind == 'h' || kind == 'b' ? 2 : 4;
    if (dump) {
        uint32_t nl = (uint32_t)strlen(name); uint64_t sz = n * es;
        fwrite(&nl, 4, 1, dump); fwrite(name, 1, nl, dump); fwrite(&sz, 8, 1, dump); fwrite(got, 1, sz, dump);
    }
    int bad = 0;
    for (int pass = 0; pass < 3; pass++) {
        /* pass 0: got vs ref; 1: got vs BLAS_TEST_SAME (bit for bit); 2: BLAS_TEST_WITHIN vs ref (bound) */
        const void *a = got, *b = ref;
        const char *what = "reference";
        int exact = !bound_mode;
        if (pass == 1) {
            if (!same_data) continue;
            size_t sz; const unsigned char *o = find(same_data, same_len, name, &sz);
            if (!o || sz != n * es) { printf("FAIL %s: not in BLAS_TEST_SAME's dump\n", name); return ++failures, 0; }
            if (gelu) {
                /* GELU's tanhf runs on ex2.approx.ftz.f32, whose results differ by an ulp between the
                 * H200 and the emulator (docs/support.md, conformance): within the GELU bound instead */
                a = o; b = got; what = "BLAS_TEST_SAME's result vs this run's"; exact = 1;
            } else {
                if (memcmp(o, got, sz) != 0) {
                    size_t i = 0; while (i < sz && ((const unsigned char *)o)[i] == ((const unsigned char *)got)[i]) i++;
                    printf("FAIL %s: differs from BLAS_TEST_SAME's dump first at element %zu\n", name, i / es);
                    return ++failures, 0;
                }
                continue;
            }
        }
        if (pass == 2) {
            if (!within_data) continue;
            size_t sz; const unsigned char *o = find(within_data, within_len, name, &sz);
            if (!o) continue; /* a case the other implementation did not run (zluda-only) */
            if (sz != n * es) { printf("FAIL %s: BLAS_TEST_WITHIN's dump has %zu bytes, not %zu\n", name, sz, n * es); return ++failures, 0; }
            a = o; what = "BLAS_TEST_WITHIN's result vs reference"; exact = 0;
        }
        for (size_t i = 0; i < n && !bad; i++) {
            double g, r;
            switch (kind) {
                case 'f': g = ((const float *)a)[i]; r = ((const float *)b)[i]; break;
                case 'd': g = ((const double *)a)[i]; r = ((const double *)b)[i]; break;
                case 'h': g = h2f(((const uint16_t *)a)[i]); r = h2f(((const uint16_t *)b)[i]); break;
                case 'b': g = b2f(((const uint16_t *)a)[i]); r = b2f(((const uint16_t *)b)[i]); break;
                default: g = ((const int32_t *)a)[i]; r = ((const int32_t *)b)[i]; break;
            }
            int ok;
            if (isnan(r)) ok = isnan(g);
            else if (exact && !gelu) ok = memcmp((const char *)a + i * es, (const char *)b + i * es, es) == 0;
            else if (exact) ok = fabs(g - r) <= (gelu_tol ? gelu_tol[i] : 4 * U32 * fabs(r)) + 1e-37;
            else ok = fabs(g - r) <= (tol ? tol[i] : 0) + (gelu ? 1e-5 * (fabs(r) + 1e-3) : 0) + 1e-300;
            if (!ok) {
                printf("FAIL %s: element %zu: %.9g, %s %.9g (|diff| %.3g, allowed %.3g)\n", name, i, g, what, r, fabs(g - r),
                       exact ? 0.0 : (tol ? tol[i] : 0));
                bad = 1;
            }
        }
    }
    if (bad) { failures++; return 0; }
    printf("PASS %s\n", name);
    return 1;
}

/* ------------------------------------------------------------------ GEMM reference */

/* op(X)(i,p) of a column-major X with leading dimension ld */
#define AT(X, t, i, p, ld) ((t) == CUBLAS_OP_N ? (X)[(size_t)(i) + (size_t)(p) * (ld)] : (X)[(size_t)(p) + (size_t)(i) * (ld)])

/* fp32 accumulation: out[i + j*ldc] and the bound of each element */
static void ref_sgemm(int ta, int tb, int m, int n, int k, float alpha, const float *A, int lda, const float *B, int ldb, float beta,
                      const float *C, int ldc, float *out, double *tol, double uacc, double uout) {
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            float acc = 0; double mag = 0;
            if (alpha != 0)
                for (int p = 0; p < k; p++) { float a = AT(A, ta, i, p, lda), b = AT(B, tb, p, j, ldb); acc = fmaf(a, b, acc); mag += fabs((double)a * b); }
            float r = alpha * acc;
            if (beta != 0) r = fmaf(beta, C[i + (size_t)j * ldc], r);
            out[i + (size_t)j * ldc] = r;
            if (tol) tol[i + (size_t)j * ldc] = 2 * k * uacc * mag * fabs(alpha) + 2 * uout * (fabs((double)alpha * acc) + (beta != 0 ? fabs((double)beta * C[i + (size_t)j * ldc]) : 0)) + 1e-30;
        }
}

static double *tolbuf(size_t n) { return calloc(n ? n : 1, sizeof(double)); }

static void test_sgemm(cublasHandle_t h, const char *name, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, int lda, int ldb,
                       int ldc, float alpha, float beta, int nanC) {
    int ar = ta == CUBLAS_OP_N ? m : k, ac = ta == CUBLAS_OP_N ? k : m, br = tb == CUBLAS_OP_N ? k : n, bc = tb == CUBLAS_OP_N ? n : k;
    (void)ar; (void)br;
    size_t na = (size_t)lda * ac, nb = (size_t)ldb * bc, nc = (size_t)ldc * n;
    float *A = malloc(na * 4), *B = malloc(nb * 4), *C = malloc(nc * 4), *R = malloc(nc * 4), *G = malloc(nc * 4);
    fill(A, na); fill(B, nb); fill(C, nc);
    if (nanC) for (size_t i = 0; i < nc; i++) C[i] = NAN;
    if (alpha == 0) A[0] = NAN;
    memcpy(R, C, nc * 4);
    double *tol = tolbuf(nc);
    ref_sgemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, R, tol, U32, U32);
    CUdeviceptr dA = dput(A, na * 4), dB = dput(B, nb * 4), dC = dput(C, nc * 4);
    CB(cublasSgemm(h, ta, tb, m, n, k, &alpha, (float *)dA, lda, (float *)dB, ldb, &beta, (float *)dC, ldc));
    dget(G, dC, nc * 4);
    check(name, 'f', G, R, tol, nc, 0);
    cuMemFree(dA); cuMemFree(dB); cuMemFree(dC); free(A); free(B); free(C); free(R); free(G); free(tol);
}

static void test_dgemm(cublasHandle_t h) {
    int m = 23, n = 17, k = 31, lda = 23, ldb = 17, ldc = 25;
    size_t na = (size_t)lda * k, nb = (size_t)ldb * k, nc = (size_t)ldc * n;
    double *A = malloc(na * 8), *B = malloc(nb * 8), *C = malloc(nc * 8), *R = malloc(nc * 8), *G = malloc(nc * 8), *tol = tolbuf(nc);
    filld(A, na); filld(B, nb); filld(C, nc);
    memcpy(R, C, nc * 8);
    double alpha = 0.75, beta = 1.5;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double acc = 0, mag = 0;
            for (int p = 0; p < k; p++) { double a = A[i + (size_t)p * lda], b = B[j + (size_t)p * ldb]; acc = fma(a, b, acc); mag += fabs(a * b); }
            double r = alpha * acc;
            r = fma(beta, C[i + (size_t)j * ldc], r);
            R[i + (size_t)j * ldc] = r;
            tol[i + (size_t)j * ldc] = 2 * k * U64 * mag * alpha + 2 * U64 * (fabs(alpha * acc) + fabs(beta * C[i + (size_t)j * ldc])) + 1e-300;
        }
    CUdeviceptr dA = dput(A, na * 8), dB = dput(B, nb * 8), dC = dput(C, nc * 8);
    CB(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &alpha, (double *)dA, lda, (double *)dB, ldb, &beta, (double *)dC, ldc));
    dget(G, dC, nc * 8);
    check("dgemm NT 23x17x31", 'd', G, R, tol, nc, 0);
    cuMemFree(dA); cuMemFree(dB); cuMemFree(dC); free(A); free(B); free(C); free(R); free(G); free(tol);
}

/* GEMMs of 16-bit inputs: fp16 or bf16 (kind 'h'/'b'), output of type out ('h', 'b' or 'f'), through
 * cublasHgemm (hgemm != 0) or cublasGemmEx; batch > 1: cublasGemmStridedBatchedEx. */
static void test_gemm16(cublasHandle_t h, const char *name, char in, char out, int hgemm, int batch, cublasComputeType_t compute) {
    int m = 24, n = 20, k = 36, lda = 24, ldb = 36, ldc = 24;
    size_t na = (size_t)lda * k, nb = (size_t)ldb * n, nc = (size_t)ldc * n;
    size_t oes = out == 'f' ? 4 : 2;
    uint16_t *A = malloc(na * 2 * batch), *B = malloc(nb * 2 * batch);
    float *Af = malloc(na * 4 * batch), *Bf = malloc(nb * 4 * batch), *Cf = malloc(nc * 4 * batch);
    void *C = malloc(nc * oes * batch), *R = malloc(nc * oes * batch), *G = malloc(nc * oes * batch);
    double *tol = tolbuf(nc * batch);
    for (size_t i = 0; i < na * batch; i++) { A[i] = in == 'h' ? f2h(frand()) : f2b(frand()); Af[i] = in == 'h' ? h2f(A[i]) : b2f(A[i]); }
    for (size_t i = 0; i < nb * batch; i++) { B[i] = in == 'h' ? f2h(frand()) : f2b(frand()); Bf[i] = in == 'h' ? h2f(B[i]) : b2f(B[i]); }
    for (size_t i = 0; i < nc * batch; i++) {
        float v = frand();
        if (out == 'f') { ((float *)C)[i] = v; Cf[i] = v; }
        else { uint16_t c = out == 'h' ? f2h(v) : f2b(v); ((uint16_t *)C)[i] = c; Cf[i] = out == 'h' ? h2f(c) : b2f(c); }
    }
    float alpha = 1.5f, beta = -0.25f;
    double uacc = compute == CUBLAS_COMPUTE_16F ? U16 : U32, uout = out == 'h' ? U16 : out == 'b' ? UBF : U32;
    float *Rf = malloc(nc * 4);
    for (int z = 0; z < batch; z++) {
        ref_sgemm(CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, Af + z * na, lda, Bf + z * nb, ldb, beta, Cf + z * nc, ldc, Rf, tol + z * nc, uacc, uout);
        for (size_t i = 0; i < nc; i++) {
            if (out == 'f') ((float *)R)[z * nc + i] = Rf[i];
            else ((uint16_t *)R)[z * nc + i] = out == 'h' ? f2h(Rf[i]) : f2b(Rf[i]);
        }
    }
    CUdeviceptr dA = dput(A, na * 2 * batch), dB = dput(B, nb * 2 * batch), dC = dput(C, nc * oes * batch);
    cudaDataType ti = in == 'h' ? CUDA_R_16F : CUDA_R_16BF, to = out == 'f' ? CUDA_R_32F : out == 'h' ? CUDA_R_16F : CUDA_R_16BF;
    uint16_t ah = f2h(alpha), bh = f2h(beta);
    const void *pa = compute == CUBLAS_COMPUTE_16F ? (const void *)&ah : (const void *)&alpha;
    const void *pb = compute == CUBLAS_COMPUTE_16F ? (const void *)&bh : (const void *)&beta;
    if (hgemm)
        CB(cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, (const __half *)&ah, (const __half *)dA, lda, (const __half *)dB, ldb,
                       (const __half *)&bh, (__half *)dC, ldc));
    else if (batch == 1)
        CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, pa, (void *)dA, ti, lda, (void *)dB, ti, ldb, pb, (void *)dC, to, ldc, compute,
                        CUBLAS_GEMM_DEFAULT));
    else
        CB(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, pa, (void *)dA, ti, lda, (long long)na, (void *)dB, ti, ldb,
                                      (long long)nb, pb, (void *)dC, to, ldc, (long long)nc, batch, compute, CUBLAS_GEMM_DEFAULT));
    dget(G, dC, nc * oes * batch);
    check(name, out, G, R, tol, nc * batch, 0);
    cuMemFree(dA); cuMemFree(dB); cuMemFree(dC);
    free(A); free(B); free(Af); free(Bf); free(Cf); free(C); free(R); free(G); free(tol); free(Rf);
}

static void test_batched(cublasHandle_t h) {
    int m = 19, n = 13, k = 21, batch = 3;
    size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
    float *A = malloc(na * 4 * batch), *B = malloc(nb * 4 * batch), *C = malloc(nc * 4 * batch), *R = malloc(nc * 4 * batch), *G = malloc(nc * 4 * batch);
    double *tol = tolbuf(nc * batch);
    fill(A, na * batch); fill(B, nb * batch); fill(C, nc * batch);
    float alpha = -1.0f, beta = 0.5f;
    for (int z = 0; z < batch; z++)
        ref_sgemm(CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, alpha, A + z * na, k, B + z * nb, k, beta, C + z * nc, m, R + z * nc, tol + z * nc, U32, U32);
    /* cublasSgemmStridedBatched: A is k x m (op T) */
    CUdeviceptr dA = dput(A, na * 4 * batch), dB = dput(B, nb * 4 * batch), dC = dput(C, nc * 4 * batch);
    CB(cublasSgemmStridedBatched(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, (float *)dA, k, (long long)na, (float *)dB, k, (long long)nb, &beta,
                                 (float *)dC, m, (long long)nc, batch));
    dget(G, dC, nc * 4 * batch);
    check("sgemmStridedBatched TN 19x13x21 x3", 'f', G, R, tol, nc * batch, 0);
    /* cublasGemmBatchedEx with arrays of device pointers (batches in reverse order) */
    CUdeviceptr dC2 = dput(C, nc * 4 * batch);
    CUdeviceptr pa[3], pb[3], pc[3];
    for (int z = 0; z < batch; z++) { pa[z] = dA + (batch - 1 - z) * na * 4; pb[z] = dB + (batch - 1 - z) * nb * 4; pc[z] = dC2 + (batch - 1 - z) * nc * 4; }
    CUdeviceptr dpa = dput(pa, sizeof pa), dpb = dput(pb, sizeof pb), dpc = dput(pc, sizeof pc);
    CB(cublasGemmBatchedEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, (const void *const *)dpa, CUDA_R_32F, k, (const void *const *)dpb, CUDA_R_32F, k,
                           &beta, (void *const *)dpc, CUDA_R_32F, m, batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    dget(G, dC2, nc * 4 * batch);
    check("gemmBatchedEx TN 19x13x21 x3", 'f', G, R, tol, nc * batch, 0);
    cuMemFree(dA); cuMemFree(dB); cuMemFree(dC); cuMemFree(dC2); cuMemFree(dpa); cuMemFree(dpb); cuMemFree(dpc);
    free(A); free(B); free(C); free(R); free(G); free(tol);
}

/* alpha and beta in device memory (CUBLAS_POINTER_MODE_DEVICE) */
static void test_device_scalars(cublasHandle_t h) {
    int m = 16, n = 12, k = 10;
    float A[160], B[120], C[192], R[192], G[192], ab[2] = {2.0f, -1.0f};
    double tol[192];
    fill(A, 160); fill(B, 120); fill(C, 192);
    memcpy(R, C, sizeof C);
    ref_sgemm(CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, ab[0], A, m, B, k, ab[1], C, m, R, tol, U32, U32);
    CUdeviceptr dA = dput(A, sizeof A), dB = dput(B, sizeof B), dC = dput(C, sizeof C), dab = dput(ab, sizeof ab);
    CB(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
    cublasStatus_t s = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, (float *)dab, (float *)dA, m, (float *)dB, k, (float *)dab + 1, (float *)dC, m);
    cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST);
    CB(s);
    dget(G, dC, sizeof G);
    check("sgemm device pointer mode 16x12x10", 'f', G, R, tol, 192, 0);
    cuMemFree(dA); cuMemFree(dB); cuMemFree(dC); cuMemFree(dab);
}

/* ------------------------------------------------------------------ GEMV */

static void test_gemv(cublasHandle_t h, int dbl, cublasOperation_t t, int incx, const char *name) {
    int m = 37, n = 29, lda = 40;
    int xl = t == CUBLAS_OP_N ? n : m, yl = t == CUBLAS_OP_N ? m : n;
    int ax = abs(incx);
    size_t na = (size_t)lda * n, nx = (size_t)xl * ax, ny = (size_t)yl;
    double *A = malloc(na * 8), *X = malloc(nx * 8), *Y = malloc(ny * 8), *R = malloc(ny * 8), *tol = tolbuf(ny);
    for (size_t i = 0; i < na; i++) A[i] = frand();
    for (size_t i = 0; i < nx; i++) X[i] = frand();
    for (size_t i = 0; i < ny; i++) Y[i] = frand();
    double alpha = 1.25, beta = 0.5;
    for (int i = 0; i < yl; i++) {
        double acc = 0, mag = 0;
        float facc = 0;
        for (int j = 0; j < xl; j++) {
            double a = t == CUBLAS_OP_N ? A[i + (size_t)j * lda] : A[j + (size_t)i * lda];
            double x = incx > 0 ? X[(size_t)j * ax] : X[(size_t)(xl - 1 - j) * ax];
            if (dbl) acc = fma(a, x, acc); else facc = fmaf((float)a, (float)x, facc);
            mag += fabs(a * x);
        }
        if (dbl) R[i] = fma(beta, Y[i], alpha * acc);
        else R[i] = fmaf((float)beta, (float)Y[i], (float)alpha * facc);
        tol[i] = 2 * xl * (dbl ? U64 : U32) * mag * alpha + 2 * (dbl ? U64 : U32) * (fabs(R[i]) + fabs(beta * Y[i])) + 1e-30;
    }
    size_t es = dbl ? 8 : 4;
    void *hA = malloc(na * es), *hX = malloc(nx * es), *hY = malloc(ny * es), *hR = malloc(ny * es), *hG = malloc(ny * es);
    for (size_t i = 0; i < na; i++) { if (dbl) ((double *)hA)[i] = A[i]; else ((float *)hA)[i] = (float)A[i]; }
    for (size_t i = 0; i < nx; i++) { if (dbl) ((double *)hX)[i] = X[i]; else ((float *)hX)[i] = (float)X[i]; }
    for (size_t i = 0; i < ny; i++) { if (dbl) { ((double *)hY)[i] = Y[i]; ((double *)hR)[i] = R[i]; } else { ((float *)hY)[i] = (float)Y[i]; ((float *)hR)[i] = (float)R[i]; } }
    CUdeviceptr dA = dput(hA, na * es), dX = dput(hX, nx * es), dY = dput(hY, ny * es);
    if (dbl) CB(cublasDgemv(h, t, m, n, &alpha, (double *)dA, lda, (double *)dX, incx, &beta, (double *)dY, 1));
    else { float fa = (float)alpha, fb = (float)beta; CB(cublasSgemv(h, t, m, n, &fa, (float *)dA, lda, (float *)dX, incx, &fb, (float *)dY, 1)); }
    dget(hG, dY, ny * es);
    check(name, dbl ? 'd' : 'f', hG, hR, tol, ny, 0);
    cuMemFree(dA); cuMemFree(dX); cuMemFree(dY);
    free(A); free(X); free(Y); free(R); free(tol); free(hA); free(hX); free(hY); free(hR); free(hG);
}

/* ------------------------------------------------------------------ level 1 */

#define RT 256
/* the kernels' reduction: per thread in order, then pairs t, t + s for s = 128 .. 1 */
static double tree(double *v) { for (int s = RT / 2; s > 0; s >>= 1) for (int t = 0; t < s; t++) v[t] = v[t] + v[t + s]; return v[0]; }
static float treef(float *v) { for (int s = RT / 2; s > 0; s >>= 1) for (int t = 0; t < s; t++) v[t] = v[t] + v[t + s]; return v[0]; }

static void test_level1(cublasHandle_t h) {
    enum { N = 1000 };
    float x[2 * N], y[2 * N], r[2 * N], g[2 * N], part[RT], fr, fg;
    double xd[N], yd[N], rd[N], gd[N], pd[RT], dr, dg, tol[2 * N];
    fill(x, 2 * N); fill(y, 2 * N);
    for (int i = 0; i < N; i++) { xd[i] = x[i] * 3.0 + 1e-9 * i; yd[i] = y[i]; }
    x[7] = 1.5f; x[700] = -1.5f; /* a tie for I?amax: the first wins */
    CUdeviceptr dx = dput(x, sizeof x), dy = dput(y, sizeof y), dxd = dput(xd, sizeof xd), dyd = dput(yd, sizeof yd);
    /* axpy, increments 2 (x) and -1 (y: backwards) */
    float a = 0.5f;
    double ad = -2.0;
    memcpy(r, y, sizeof y);
    for (int i = 0; i < N; i++) r[N - 1 - i] = fmaf(a, x[2 * i], y[N - 1 - i]);
    for (int i = 0; i < 2 * N; i++) tol[i] = 0;
    for (int i = 0; i < N; i++) tol[N - 1 - i] = 2 * U32 * (fabs(a * x[2 * i]) + fabs(y[N - 1 - i])) + 1e-30;
    CB(cublasSaxpy(h, N, &a, (float *)dx, 2, (float *)dy, -1));
    dget(g, dy, sizeof y);
    check("saxpy n=1000 incx=2 incy=-1", 'f', g, r, tol, 2 * N, 0);
    CU(cuMemcpyHtoD(dy, y, sizeof y));
    for (int i = 0; i < N; i++) { rd[i] = fma(ad, xd[i], yd[i]); tol[i] = 2 * U64 * (fabs(ad * xd[i]) + fabs(yd[i])); }
    CB(cublasDaxpy(h, N, &ad, (double *)dxd, 1, (double *)dyd, 1));
    dget(gd, dyd, sizeof yd);
    check("daxpy n=1000", 'd', gd, rd, tol, N, 0);
    CU(cuMemcpyHtoD(dyd, yd, sizeof yd));
    /* scal */
    CUdeviceptr ds = dput(x, sizeof x);
    memcpy(r, x, sizeof x);
    for (int i = 0; 3 * i < 2 * N; i++) r[3 * i] = -0.75f * x[3 * i];
    float sa = -0.75f;
    CB(cublasSscal(h, (2 * N + 2) / 3, &sa, (float *)ds, 3));
    dget(g, ds, sizeof x);
    check("sscal n=667 incx=3", 'f', g, r, NULL, 2 * N, 0);
    double da = 1.0 / 3;
    CUdeviceptr dsd = dput(xd, sizeof xd);
    for (int i = 0; i < N; i++) rd[i] = da * xd[i];
    CB(cublasDscal(h, N, &da, (double *)dsd, 1));
    dget(gd, dsd, sizeof xd);
    check("dscal n=1000", 'd', gd, rd, NULL, N, 0);
    /* dot */
    double mag = 0;
    for (int t = 0; t < RT; t++) { part[t] = 0; for (int i = t; i < N; i += RT) { part[t] = fmaf(x[i], y[i], part[t]); } }
    for (int i = 0; i < N; i++) mag += fabs((double)x[i] * y[i]);
    fr = treef(part);
    double ft = 2 * N * U32 * mag + 1e-30;
    CB(cublasSdot(h, N, (float *)dx, 1, (float *)dy, 1, &fg));
    check("sdot n=1000", 'f', &fg, &fr, &ft, 1, 0);
    mag = 0;
    for (int t = 0; t < RT; t++) { pd[t] = 0; for (int i = t; i < N; i += RT) pd[t] = fma(xd[i], yd[i], pd[t]); }
    for (int i = 0; i < N; i++) mag += fabs(xd[i] * yd[i]);
    dr = tree(pd);
    double dt = 2 * N * U64 * mag;
    CB(cublasDdot(h, N, (double *)dxd, 1, (double *)dyd, 1, &dg));
    check("ddot n=1000", 'd', &dg, &dr, &dt, 1, 0);
    /* dot with the result in device memory */
    CUdeviceptr dres = dalloc(8);
    CB(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
    cublasStatus_t s = cublasSdot(h, N, (float *)dx, 1, (float *)dy, 1, (float *)dres);
    cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST);
    CB(s);
    dget(&fg, dres, 4);
    check("sdot n=1000 device pointer mode", 'f', &fg, &fr, &ft, 1, 0);
    /* nrm2 */
    for (int t = 0; t < RT; t++) { pd[t] = 0; for (int i = t; i < N; i += RT) pd[t] = fma((double)x[i], (double)x[i], pd[t]); }
    fr = (float)sqrt(tree(pd));
    ft = 2 * N * U32 * fr + 1e-30;
    CB(cublasSnrm2(h, N, (float *)dx, 1, &fg));
    check("snrm2 n=1000", 'f', &fg, &fr, &ft, 1, 0);
    {
        double sc[RT], sq[RT];
        for (int t = 0; t < RT; t++) {
            double scale = 0, ssq = 1;
            for (int i = t; i < N; i += RT) {
                double v = fabs(xd[i]);
                if (v != 0) { if (scale < v) { double q = scale / v; ssq = 1 + ssq * q * q; scale = v; } else { double q = v / scale; ssq = ssq + q * q; } }
            }
            sc[t] = scale; sq[t] = scale == 0 ? 0 : ssq;
        }
        for (int st = RT / 2; st > 0; st >>= 1)
            for (int t = 0; t < st; t++) {
                double s1 = sc[t], q1 = sq[t], s2 = sc[t + st], q2 = sq[t + st];
                if (s2 != 0) { if (s1 < s2) { double q = s1 / s2; sq[t] = q2 + q1 * q * q; sc[t] = s2; } else { double q = s2 / s1; sq[t] = q1 + q2 * q * q; } }
            }
        dr = sc[0] * sqrt(sq[0]);
        dt = 2 * N * U64 * dr;
        CB(cublasDnrm2(h, N, (double *)dxd, 1, &dg));
        check("dnrm2 n=1000", 'd', &dg, &dr, &dt, 1, 0);
    }
    /* asum */
    for (int t = 0; t < RT; t++) { part[t] = 0; for (int i = t; i < N; i += RT) part[t] += fabsf(x[i]); }
    fr = treef(part);
    ft = 2 * N * U32 * fr;
    CB(cublasSasum(h, N, (float *)dx, 1, &fg));
    check("sasum n=1000", 'f', &fg, &fr, &ft, 1, 0);
    for (int t = 0; t < RT; t++) { pd[t] = 0; for (int i = t; i < N; i += RT) pd[t] += fabs(xd[i]); }
    dr = tree(pd);
    dt = 2 * N * U64 * dr;
    CB(cublasDasum(h, N, (double *)dxd, 1, &dg));
    check("dasum n=1000", 'd', &dg, &dr, &dt, 1, 0);
    /* amax: 1-based, first of equals */
    int ir = 0, ig = -1;
    float best = -1;
    for (int i = 0; i < N; i++) if (fabsf(x[i]) > best) { best = fabsf(x[i]); ir = i + 1; }
    CB(cublasIsamax(h, N, (float *)dx, 1, &ig));
    check("isamax n=1000 (a tie)", 'i', &ig, &ir, NULL, 1, 0);
    double bd = -1;
    ir = 0;
    for (int i = 0; i < N; i++) if (fabs(xd[i]) > bd) { bd = fabs(xd[i]); ir = i + 1; }
    CB(cublasIdamax(h, N, (double *)dxd, 1, &ig));
    check("idamax n=1000", 'i', &ig, &ir, NULL, 1, 0);
    /* quick returns: n = 0 */
    fg = 7;
    CB(cublasSnrm2(h, 0, (float *)dx, 1, &fg));
    fr = 0;
    check("snrm2 n=0 is 0", 'f', &fg, &fr, NULL, 1, 0);
    cuMemFree(dx); cuMemFree(dy); cuMemFree(dxd); cuMemFree(dyd); cuMemFree(ds); cuMemFree(dsd); cuMemFree(dres);
}

/* ------------------------------------------------------------------ cuBLASLt */

static float gelu(float r) { return 0.5f * r * (1.0f + tanhf(0.7978845608028654f * (r + 0.044715f * r * r * r))); }

/* One cublasLtMatmul: D (m x n) = ep(alpha op(A) op(B) + beta C + bias); row != 0: every layout row-major. */
static void test_lt(cublasLtHandle_t lt, const char *name, cublasOperation_t ta, cublasOperation_t tb, int row, cublasLtEpilogue_t ep, int batch,
                    char type) {
    int m = 33, n = 27, k = 19;
    int ar = ta == CUBLAS_OP_N ? m : k, ac = ta == CUBLAS_OP_N ? k : m, br = tb == CUBLAS_OP_N ? k : n, bc = tb == CUBLAS_OP_N ? n : k;
    int lda = row ? ac : ar, ldb = row ? bc : br, ldc = row ? n : m;
    size_t na = (size_t)ar * ac, nb = (size_t)br * bc, nc = (size_t)m * n;
    size_t es = type == 'f' ? 4 : 2;
    float *A = malloc(na * 4 * batch), *B = malloc(nb * 4 * batch), *C = malloc(nc * 4 * batch), *bias = malloc(m * 4);
    void *hA = malloc(na * es * batch), *hB = malloc(nb * es * batch), *hC = malloc(nc * es * batch), *hbias = malloc(m * es);
    void *R = malloc(nc * es * batch), *G = malloc(nc * es * batch);
    double *tol = tolbuf(nc * batch), *gtol = tolbuf(nc * batch);
#define CONV(dst, src, cnt) for (size_t i_ = 0; i_ < (cnt); i_++) { float v_ = frand(); if (type == 'f') { ((float *)dst)[i_] = v_; src[i_] = v_; } \
        else { uint16_t h_ = type == 'h' ? f2h(v_) : f2b(v_); ((uint16_t *)dst)[i_] = h_; src[i_] = type == 'h' ? h2f(h_) : b2f(h_); } }
    CONV(hA, A, na * batch) CONV(hB, B, nb * batch) CONV(hC, C, nc * batch) CONV(hbias, bias, (size_t)m)
    float alpha = 1.25f, beta = 0.5f;
    int hasBias = ep == CUBLASLT_EPILOGUE_BIAS || ep == CUBLASLT_EPILOGUE_RELU_BIAS || ep == CUBLASLT_EPILOGUE_GELU_BIAS;
    int relu = ep == CUBLASLT_EPILOGUE_RELU || ep == CUBLASLT_EPILOGUE_RELU_BIAS, isgelu = ep == CUBLASLT_EPILOGUE_GELU || ep == CUBLASLT_EPILOGUE_GELU_BIAS;
    double uout = type == 'h' ? U16 : type == 'b' ? UBF : U32;
    for (int z = 0; z < batch; z++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                float acc = 0; double mag = 0;
                for (int p = 0; p < k; p++) {
                    /* stored A is ar x ac; element (r, c) at r + c*lda (column-major) or r*lda + c (row-major) */
                    int r1 = ta == CUBLAS_OP_N ? i : p, c1 = ta == CUBLAS_OP_N ? p : i, r2 = tb == CUBLAS_OP_N ? p : j, c2 = tb == CUBLAS_OP_N ? j : p;
                    float a = A[z * na + (row ? (size_t)r1 * lda + c1 : r1 + (size_t)c1 * lda)], b = B[z * nb + (row ? (size_t)r2 * ldb + c2 : r2 + (size_t)c2 * ldb)];
                    acc = fmaf(a, b, acc); mag += fabs((double)a * b);
                }
                size_t ci = z * nc + (row ? (size_t)i * ldc + j : i + (size_t)j * ldc);
                float r = alpha * acc;
                r = fmaf(beta, C[ci], r);
                double t = 2 * k * U32 * mag * alpha + 2 * U32 * (fabs(alpha * acc) + fabs(beta * C[ci])) + 1e-30;
                /* NVIDIA's heuristic may split K and keep the partial sums in D's type (on the H200: bf16 TN
                 * gelu+bias, K = 16 + 3): each partial rounds once, at most u_out |alpha| sum|a b| in all */
                if (type != 'f') t += uout * mag * alpha;
                /* a 16-bit D is rounded to its type before the bias and the epilogue, as NVIDIA's cuBLASLt does
                 * (docs/support.md): another accumulation order may round to the neighbour there */
                if (type != 'f' && (hasBias || relu || isgelu)) {
                    t += 2 * uout * fabs(r);
                    r = type == 'h' ? h2f(f2h(r)) : b2f(f2b(r));
                }
                if (hasBias) { r += bias[i]; t += U32 * fabs(r); }
                if (relu) r = r > 0 ? r : 0;
                if (isgelu) {
                    gtol[ci] = 4 * U32 * fabs(r) * 1.13 + 1e-30;
                    r = gelu(r);
                    t = t * 1.2 + 1e-6;
                    /* GELU's tanh differs by a few fp32 ulp between implementations: a 16-bit result may round to the neighbour */
                    if (type != 'f') gtol[ci] += 2 * uout * fabs(r);
                }
                t += 2 * uout * fabs(r);
                tol[ci] = t;
                if (type == 'f') ((float *)R)[ci] = r; else ((uint16_t *)R)[ci] = type == 'h' ? f2h(r) : f2b(r);
            }
    CUdeviceptr dA = dput(hA, na * es * batch), dB = dput(hB, nb * es * batch), dC = dput(hC, nc * es * batch), dD = dalloc(nc * es * batch), db = dput(hbias, m * es);
    cudaDataType dt = type == 'f' ? CUDA_R_32F : type == 'h' ? CUDA_R_16F : CUDA_R_16BF;
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t la, lb, lc;
    CB(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CB(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CB(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    CB(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &ep, sizeof ep));
    if (hasBias) CB(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &db, sizeof db));
    CB(cublasLtMatrixLayoutCreate(&la, dt, ar, ac, lda));
    CB(cublasLtMatrixLayoutCreate(&lb, dt, br, bc, ldb));
    CB(cublasLtMatrixLayoutCreate(&lc, dt, m, n, ldc));
    cublasLtOrder_t order = CUBLASLT_ORDER_ROW;
    cublasLtMatrixLayout_t ls[3] = {la, lb, lc};
    int64_t strides[3] = {(int64_t)na, (int64_t)nb, (int64_t)nc};
    for (int i = 0; i < 3; i++) {
        if (row) CB(cublasLtMatrixLayoutSetAttribute(ls[i], CUBLASLT_MATRIX_LAYOUT_ORDER, &order, sizeof order));
        if (batch > 1) {
            int32_t bcnt = batch;
            CB(cublasLtMatrixLayoutSetAttribute(ls[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &bcnt, sizeof bcnt));
            CB(cublasLtMatrixLayoutSetAttribute(ls[i], CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &strides[i], sizeof strides[i]));
        }
    }
    cublasLtMatmulPreference_t pref;
    uint64_t ws = 1 << 22;
    CB(cublasLtMatmulPreferenceCreate(&pref));
    CB(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    cublasLtMatmulHeuristicResult_t res[4];
    int count = 0;
    CB(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, lc, pref, 4, res, &count));
    if (count < 1) { printf("FAIL %s: the heuristic returned no algorithm\n", name); failures++; return; }
    CUdeviceptr work = res[0].workspaceSize ? dalloc(res[0].workspaceSize) : 0;
    CB(cublasLtMatmul(lt, desc, &alpha, (void *)dA, la, (void *)dB, lb, &beta, (void *)dC, lc, (void *)dD, lc, &res[0].algo, (void *)work,
                      res[0].workspaceSize, 0));
    dget(G, dD, nc * es * batch);
    gelu_tol = isgelu ? gtol : NULL;
    check(name, type, G, R, tol, nc * batch, isgelu);
    gelu_tol = NULL;
    free(gtol);
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(la); cublasLtMatrixLayoutDestroy(lb); cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatmulDescDestroy(desc);
    cuMemFree(dA); cuMemFree(dB); cuMemFree(dC); cuMemFree(dD); cuMemFree(db); if (work) cuMemFree(work);
    free(A); free(B); free(C); free(bias); free(hA); free(hB); free(hC); free(hbias); free(R); free(G); free(tol);
}

/* ------------------------------------------------------------------ errors and what zluda answers "not supported" */

static void test_errors(cublasHandle_t h, cublasLtHandle_t lt) {
    float one = 1;
    cublasStatus_t s = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, NULL, 4, NULL, 8, &one, NULL, 8);
    if (s == CUBLAS_STATUS_INVALID_VALUE) printf("PASS sgemm lda < m is CUBLAS_STATUS_INVALID_VALUE\n");
    else { printf("FAIL sgemm lda < m: %s\n", cublasGetStatusName(s)); failures++; }
    int v = 0;
    if (cublasGetVersion(h, &v) == CUBLAS_STATUS_SUCCESS && v >= 130000) printf("PASS cublasGetVersion %d\n", v);
    else { printf("FAIL cublasGetVersion %d\n", v); failures++; }
    size_t cv = cublasGetCudartVersion();
    if (cv >= 13000) printf("PASS cublasGetCudartVersion %zu\n", cv);
    else { printf("FAIL cublasGetCudartVersion %zu\n", cv); failures++; }
    if (!zluda_only) return;
    /* a function zluda does not implement: CUBLAS_STATUS_NOT_SUPPORTED and one line on stderr */
    s = cublasStrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, 4, 4, &one, NULL, 4, NULL, 4);
    if (s == CUBLAS_STATUS_NOT_SUPPORTED) printf("PASS cublasStrsm is CUBLAS_STATUS_NOT_SUPPORTED\n");
    else { printf("FAIL cublasStrsm: %s\n", cublasGetStatusName(s)); failures++; }
    /* a type combination zluda does not implement: complex */
    s = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, NULL, CUDA_C_32F, 4, NULL, CUDA_C_32F, 4, &one, NULL, CUDA_C_32F, 4, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (s == CUBLAS_STATUS_NOT_SUPPORTED) printf("PASS cublasGemmEx CUDA_C_32F is CUBLAS_STATUS_NOT_SUPPORTED\n");
    else { printf("FAIL cublasGemmEx CUDA_C_32F: %s\n", cublasGetStatusName(s)); failures++; }
    /* an epilogue zluda does not implement: the heuristic finds nothing */
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t l;
    cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    cublasLtEpilogue_t ep = CUBLASLT_EPILOGUE_DGELU;
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &ep, sizeof ep);
    cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, 8, 8, 8);
    cublasLtMatmulPreference_t pref;
    cublasLtMatmulPreferenceCreate(&pref);
    cublasLtMatmulHeuristicResult_t res;
    int count = -1;
    s = cublasLtMatmulAlgoGetHeuristic(lt, desc, l, l, l, l, pref, 1, &res, &count);
    if (s == CUBLAS_STATUS_NOT_SUPPORTED && count == 0) printf("PASS cublasLtMatmulAlgoGetHeuristic DGELU is CUBLAS_STATUS_NOT_SUPPORTED\n");
    else { printf("FAIL cublasLtMatmulAlgoGetHeuristic DGELU: %s, %d algorithms\n", cublasGetStatusName(s), count); failures++; }
    cublasLtMatmulPreferenceDestroy(pref); cublasLtMatrixLayoutDestroy(l); cublasLtMatmulDescDestroy(desc);
}

int main(void) {
    bound_mode = getenv("BLAS_TEST_BOUND") && atoi(getenv("BLAS_TEST_BOUND"));
    zluda_only = getenv("BLAS_TEST_ZLUDA") && atoi(getenv("BLAS_TEST_ZLUDA"));
    if (getenv("BLAS_TEST_DUMP")) dump = fopen(getenv("BLAS_TEST_DUMP"), "wb");
    if (getenv("BLAS_TEST_SAME")) same_data = slurp(getenv("BLAS_TEST_SAME"), &same_len);
    if (getenv("BLAS_TEST_WITHIN")) within_data = slurp(getenv("BLAS_TEST_WITHIN"), &within_len);
    CU(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CU(cuDeviceGet(&dev, 0));
    CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU(cuCtxSetCurrent(ctx));
    char devname[128] = "";
    cuDeviceGetName(devname, sizeof devname, dev);
    printf("device 0: %s; mode: %s\n", devname, bound_mode ? "within the documented bound" : "bit for bit (zluda's accumulation order)");
    cublasHandle_t h;
    cublasLtHandle_t lt;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS || cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS) { printf("FAIL cannot create the handles\n"); return 1; }

    test_sgemm(h, "sgemm NN 37x29x41 lda=40", CUBLAS_OP_N, CUBLAS_OP_N, 37, 29, 41, 40, 45, 39, 1.25f, -0.5f, 0);
    test_sgemm(h, "sgemm NT 20x30x17", CUBLAS_OP_N, CUBLAS_OP_T, 20, 30, 17, 20, 30, 20, 1.0f, 1.0f, 0);
    test_sgemm(h, "sgemm TN 31x9x64", CUBLAS_OP_T, CUBLAS_OP_N, 31, 9, 64, 64, 64, 31, 0.5f, 2.0f, 0);
    test_sgemm(h, "sgemm TT 8x40x12", CUBLAS_OP_T, CUBLAS_OP_T, 8, 40, 12, 12, 40, 8, -1.0f, 0.25f, 0);
    test_sgemm(h, "sgemm beta=0 ignores NaN in C", CUBLAS_OP_N, CUBLAS_OP_N, 17, 15, 13, 17, 13, 17, 1.0f, 0.0f, 1);
    test_sgemm(h, "sgemm alpha=0 ignores NaN in A", CUBLAS_OP_N, CUBLAS_OP_N, 17, 15, 13, 17, 13, 17, 0.0f, 2.0f, 0);
    test_sgemm(h, "sgemm NN 64x64x64", CUBLAS_OP_N, CUBLAS_OP_N, 64, 64, 64, 64, 64, 64, 1.0f, 0.0f, 0);
    test_dgemm(h);
    test_gemm16(h, "hgemm NN 24x20x36", 'h', 'h', 1, 1, CUBLAS_COMPUTE_16F);
    test_gemm16(h, "gemmEx 16F x 16F -> 32F compute 32F", 'h', 'f', 0, 1, CUBLAS_COMPUTE_32F);
    test_gemm16(h, "gemmEx 16F x 16F -> 16F compute 32F", 'h', 'h', 0, 1, CUBLAS_COMPUTE_32F);
    test_gemm16(h, "gemmEx 16BF x 16BF -> 16BF compute 32F", 'b', 'b', 0, 1, CUBLAS_COMPUTE_32F);
    test_gemm16(h, "gemmStridedBatchedEx 16F -> 16F compute 32F x2", 'h', 'h', 0, 2, CUBLAS_COMPUTE_32F);
    test_batched(h);
    test_device_scalars(h);
    test_gemv(h, 0, CUBLAS_OP_N, 1, "sgemv N 37x29");
    test_gemv(h, 0, CUBLAS_OP_T, 2, "sgemv T 37x29 incx=2");
    test_gemv(h, 1, CUBLAS_OP_N, 1, "dgemv N 37x29");
    test_gemv(h, 1, CUBLAS_OP_T, -1, "dgemv T 37x29 incx=-1");
    test_level1(h);
    test_lt(lt, "ltMatmul fp32 NN", CUBLAS_OP_N, CUBLAS_OP_N, 0, CUBLASLT_EPILOGUE_DEFAULT, 1, 'f');
    test_lt(lt, "ltMatmul fp32 TN bias", CUBLAS_OP_T, CUBLAS_OP_N, 0, CUBLASLT_EPILOGUE_BIAS, 1, 'f');
    test_lt(lt, "ltMatmul fp32 NT relu", CUBLAS_OP_N, CUBLAS_OP_T, 0, CUBLASLT_EPILOGUE_RELU, 1, 'f');
    test_lt(lt, "ltMatmul fp32 NN relu+bias", CUBLAS_OP_N, CUBLAS_OP_N, 0, CUBLASLT_EPILOGUE_RELU_BIAS, 1, 'f');
    test_lt(lt, "ltMatmul fp32 NN gelu", CUBLAS_OP_N, CUBLAS_OP_N, 0, CUBLASLT_EPILOGUE_GELU, 1, 'f');
    test_lt(lt, "ltMatmul fp32 TN gelu+bias", CUBLAS_OP_T, CUBLAS_OP_N, 0, CUBLASLT_EPILOGUE_GELU_BIAS, 1, 'f');
    test_lt(lt, "ltMatmul fp32 row-major NN", CUBLAS_OP_N, CUBLAS_OP_N, 1, CUBLASLT_EPILOGUE_DEFAULT, 1, 'f');
    test_lt(lt, "ltMatmul fp32 NN strided batch x2", CUBLAS_OP_N, CUBLAS_OP_N, 0, CUBLASLT_EPILOGUE_DEFAULT, 2, 'f');
    test_lt(lt, "ltMatmul fp16 TN bias", CUBLAS_OP_T, CUBLAS_OP_N, 0, CUBLASLT_EPILOGUE_BIAS, 1, 'h');
    test_lt(lt, "ltMatmul bf16 NN relu+bias", CUBLAS_OP_N, CUBLAS_OP_N, 0, CUBLASLT_EPILOGUE_RELU_BIAS, 1, 'b');
    test_lt(lt, "ltMatmul fp16 NN gelu", CUBLAS_OP_N, CUBLAS_OP_N, 0, CUBLASLT_EPILOGUE_GELU, 1, 'h');
    test_lt(lt, "ltMatmul bf16 TN gelu+bias", CUBLAS_OP_T, CUBLAS_OP_N, 0, CUBLASLT_EPILOGUE_GELU_BIAS, 1, 'b');
    test_errors(h, lt);

    cublasLtDestroy(lt);
    cublasDestroy(h);
    if (dump) fclose(dump);
    if (failures) printf("FAIL (%d cases)\n", failures);
    else printf("PASS\n");
    return failures ? 1 : 0;
}
