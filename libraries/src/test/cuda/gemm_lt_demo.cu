// gemm_lt_demo: a CUDA runtime program that multiplies matrices the way llama.cpp and PyTorch do, with
// cublasGemmEx (fp16 inputs, fp32 output and accumulation) and cublasLtMatmul (fp32, transposed A, a bias
// and GELU epilogue, chosen by the heuristic), and checks both against a CPU reference within the
// bound of any accumulation order (2 k u sum|a b| plus the output's rounding; GELU 1e-5 relative).
// Built with nvcc: nvcc -O2 -o gemm_lt_demo gemm_lt_demo.cu -lcublasLt -lcublas
// It runs unmodified on NVIDIA's libraries and driver and on zluda's (zluda run -- ./gemm_lt_demo).
// Prints PASS and exits 0 when every result is within the bound.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("FAIL %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)
#define BLAS(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { printf("FAIL %s: %s\n", #x, cublasGetStatusName(s_)); exit(1); } } while (0)

static uint64_t rng = 12345;
static float frand() {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((int32_t)(rng >> 40) - (1 << 23)) / (float)(1 << 23);
}

static int check(const char *what, const std::vector<float> &got, const std::vector<double> &ref, const std::vector<double> &tol) {
    for (size_t i = 0; i < got.size(); i++) {
        if (!(std::fabs(got[i] - ref[i]) <= tol[i])) {
            printf("FAIL %s: element %zu is %.9g, the reference %.9g (allowed %.3g)\n", what, i, got[i], ref[i], tol[i]);
            return 0;
        }
    }
    printf("%s: %zu results within the bound\n", what, got.size());
    return 1;
}

int main() {
    const int m = 96, n = 64, k = 80;
    const double u32 = 5.9604644775390625e-08;
    int ok = 1;
    cublasHandle_t h;
    BLAS(cublasCreate(&h));

    // ---- cublasGemmEx: C (m x n, fp32) = A (m x k, fp16) B (k x n, fp16), column-major
    std::vector<__half> A(m * k), B(k * n);
    std::vector<float> Af(m * k), Bf(k * n), C(m * n);
    for (int i = 0; i < m * k; i++) { A[i] = __float2half(frand()); Af[i] = __half2float(A[i]); }
    for (int i = 0; i < k * n; i++) { B[i] = __float2half(frand()); Bf[i] = __half2float(B[i]); }
    __half *dA, *dB;
    float *dC;
    CUDA(cudaMalloc(&dA, m * k * sizeof(__half)));
    CUDA(cudaMalloc(&dB, k * n * sizeof(__half)));
    CUDA(cudaMalloc(&dC, m * n * sizeof(float)));
    CUDA(cudaMemcpy(dA, A.data(), m * k * sizeof(__half), cudaMemcpyHostToDevice));
    CUDA(cudaMemcpy(dB, B.data(), k * n * sizeof(__half), cudaMemcpyHostToDevice));
    float one = 1.0f, zero = 0.0f;
    BLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, dA, CUDA_R_16F, m, dB, CUDA_R_16F, k, &zero, dC, CUDA_R_32F, m,
                      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    CUDA(cudaMemcpy(C.data(), dC, m * n * sizeof(float), cudaMemcpyDeviceToHost));
    std::vector<double> ref(m * n), tol(m * n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double s = 0, mag = 0;
            for (int p = 0; p < k; p++) { s += (double)Af[i + p * m] * Bf[p + j * k]; mag += std::fabs((double)Af[i + p * m] * Bf[p + j * k]); }
            ref[i + j * m] = s;
            tol[i + j * m] = 2 * k * u32 * mag + 2 * u32 * std::fabs(s) + 1e-30;
        }
    ok &= check("cublasGemmEx fp16 x fp16 -> fp32", C, ref, tol);

    // ---- cublasLtMatmul: D (m x n) = GELU(A^T B + bias), A stored k x m, fp32, through the heuristic
    cublasLtHandle_t lt;
    BLAS(cublasLtCreate(&lt));
    std::vector<float> A2(k * m), B2(k * n), bias(m), D(m * n);
    for (auto &v : A2) v = frand();
    for (auto &v : B2) v = frand();
    for (auto &v : bias) v = frand();
    float *dA2, *dB2, *dbias, *dD;
    CUDA(cudaMalloc(&dA2, k * m * sizeof(float)));
    CUDA(cudaMalloc(&dB2, k * n * sizeof(float)));
    CUDA(cudaMalloc(&dbias, m * sizeof(float)));
    CUDA(cudaMalloc(&dD, m * n * sizeof(float)));
    CUDA(cudaMemcpy(dA2, A2.data(), k * m * sizeof(float), cudaMemcpyHostToDevice));
    CUDA(cudaMemcpy(dB2, B2.data(), k * n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA(cudaMemcpy(dbias, bias.data(), m * sizeof(float), cudaMemcpyHostToDevice));
    cublasLtMatmulDesc_t desc;
    BLAS(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    cublasLtEpilogue_t ep = CUBLASLT_EPILOGUE_GELU_BIAS;
    BLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    BLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    BLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &ep, sizeof ep));
    BLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &dbias, sizeof dbias));
    cublasLtMatrixLayout_t la, lb, ld;
    BLAS(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, k, m, k));
    BLAS(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, k, n, k));
    BLAS(cublasLtMatrixLayoutCreate(&ld, CUDA_R_32F, m, n, m));
    cublasLtMatmulPreference_t pref;
    size_t wsSize = 1 << 22;
    BLAS(cublasLtMatmulPreferenceCreate(&pref));
    BLAS(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsSize, sizeof wsSize));
    cublasLtMatmulHeuristicResult_t res;
    int found = 0;
    BLAS(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, ld, ld, pref, 1, &res, &found));
    if (found < 1) { printf("FAIL the heuristic found no algorithm\n"); return 1; }
    void *ws = nullptr;
    if (res.workspaceSize) CUDA(cudaMalloc(&ws, res.workspaceSize));
    cudaStream_t stream;
    CUDA(cudaStreamCreate(&stream));
    BLAS(cublasLtMatmul(lt, desc, &one, dA2, la, dB2, lb, &zero, dD, ld, dD, ld, &res.algo, ws, res.workspaceSize, stream));
    CUDA(cudaStreamSynchronize(stream));
    CUDA(cudaMemcpy(D.data(), dD, m * n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double s = 0, mag = 0;
            for (int p = 0; p < k; p++) { s += (double)A2[p + i * k] * B2[p + j * k]; mag += std::fabs((double)A2[p + i * k] * B2[p + j * k]); }
            s += bias[i];
            double g = 0.5 * s * (1 + std::tanh(0.7978845608028654 * (s + 0.044715 * s * s * s)));
            ref[i + j * m] = g;
            tol[i + j * m] = 1.2 * (2 * k * u32 * mag + 4 * u32 * std::fabs(s)) + 1e-5 * (std::fabs(g) + 1e-3);
        }
    ok &= check("cublasLtMatmul fp32 TN bias+GELU", D, ref, tol);

    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(ld);
    cublasLtMatmulDescDestroy(desc);
    cublasLtDestroy(lt);
    cublasDestroy(h);
    cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dA2); cudaFree(dB2); cudaFree(dbias); cudaFree(dD);
    if (ws) cudaFree(ws);
    cudaStreamDestroy(stream);
    printf(ok ? "PASS\n" : "FAIL\n");
    return ok ? 0 : 1;
}
