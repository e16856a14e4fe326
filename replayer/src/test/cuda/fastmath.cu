// Kernels whose results depend on how a driver implements PTX's approximate instructions
// (sin.approx, ex2.approx, rsqrt.approx with -use_fast_math) next to exact ones (fma.rn, add):
// recorded on zluda's emulator with --capture-kernels and replayed on an NVIDIA GPU (docs/replay.md).
// Build: nvcc -O2 -use_fast_math -arch=sm_80 -o fastmath fastmath.cu
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void approx(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __sinf(x[i]) * __expf(0.25f * x[i]) + rsqrtf(x[i] * x[i] + 2.0f);
}

__global__ void exact(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __fmaf_rn(x[i], 1.5f, -0.25f) + x[i] * x[i];
}

#define CHECK(c) do { cudaError_t e = (c); if (e != cudaSuccess) { printf("ERROR: %s: %s\n", #c, cudaGetErrorString(e)); return 2; } } while (0)

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    float *hx = (float *)malloc(n * sizeof(float)), *hy = (float *)malloc(n * sizeof(float));
    unsigned s = 12345;
    for (int i = 0; i < n; i++) { s = s * 1103515245u + 12345u; hx[i] = ((s >> 8) & 0xFFFF) / 4096.0f - 8.0f; }
    float *dx, *dy;
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMalloc(&dy, n * sizeof(float)));
    CHECK(cudaMemcpy(dx, hx, n * sizeof(float), cudaMemcpyHostToDevice));
    approx<<<(n + 255) / 256, 256>>>(dx, dy, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hy, dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    double sum = 0;
    for (int i = 0; i < n; i++) sum += hy[i];
    exact<<<(n + 127) / 128, 128>>>(dx, dy, n);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(hy, dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) sum += hy[i];
    printf("fastmath: n=%d checksum=%.6f\nPASS\n", n, sum);
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
    return 0;
}
