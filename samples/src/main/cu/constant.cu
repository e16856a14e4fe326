// __constant__ memory and __device__ globals: written and read with cudaMemcpyToSymbol /
// cudaMemcpyFromSymbol (also at an offset and asynchronously), their addresses and sizes
// (cudaGetSymbolAddress, cudaGetSymbolSize), initialised values, and kernels that read them.
#include "common.cuh"

__constant__ float coeffs[16];
__constant__ int offsetTable[4] = {10, 20, 30, 40};
__device__ int counter = 1000;
__device__ float scratch[64];

__global__ void polynomial(const float *x, float *y, int n, int degree) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0;
    for (int k = degree; k >= 0; k--) acc = acc * x[i] + coeffs[k];  // Horner
    y[i] = acc + offsetTable[i % 4];
    atomicAdd(&counter, 1);
}

__global__ void fillScratch() {
    scratch[threadIdx.x] = threadIdx.x * 0.5f + offsetTable[threadIdx.x % 4];
}

int main() {
    start("constant");
    const int n = 500, degree = 3;
    // y = 1 + 2x - x^2 + 0.5x^3, x small integers / 2: exact in float
    float c[16] = {1, 2, -1, 0.5f};
    CHECK(cudaMemcpyToSymbol(coeffs, c, sizeof c));
    int init = -1;
    CHECK(cudaMemcpyFromSymbol(&init, counter, sizeof(int)));
    EXPECT(init == 1000, "__device__ int counter = 1000 reads back as %d", init);
    int table[4] = {0, 0, 0, 0};
    CHECK(cudaMemcpyFromSymbol(table, offsetTable, sizeof table));
    EXPECT(table[0] == 10 && table[3] == 40, "__constant__ offsetTable initialiser reads back as %d..%d", table[0], table[3]);
    // change one element in the middle
    int thirty3 = 33;
    CHECK(cudaMemcpyToSymbol(offsetTable, &thirty3, sizeof(int), 2 * sizeof(int)));

    float hx[n], hy[n];
    for (int i = 0; i < n; i++) hx[i] = (i % 11 - 5) * 0.5f;
    float *dx, *dy;
    CHECK(cudaMalloc(&dx, sizeof hx));
    CHECK(cudaMalloc(&dy, sizeof hy));
    CHECK(cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice));
    polynomial<<<(n + 127) / 128, 128>>>(dx, dy, n, degree);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hy, dy, sizeof hy, cudaMemcpyDeviceToHost));
    const int offs[4] = {10, 20, 33, 40};
    for (int i = 0; i < n; i++) {
        float x = hx[i];
        float want = 1 + 2 * x - x * x + 0.5f * x * x * x + offs[i % 4];
        if (hy[i] != want) {
            EXPECT(false, "polynomial[%d] (x=%g) = %g, expected %g", i, x, hy[i], want);
            break;
        }
    }
    int count = 0;
    CHECK(cudaMemcpyFromSymbol(&count, counter, sizeof(int)));
    EXPECT(count == 1000 + n, "counter after the kernel = %d, expected %d", count, 1000 + n);
    printf("polynomial from __constant__ coefficients: ok, counter %d\n", count);

    // addresses and sizes
    void *addr = nullptr;
    size_t size = 0;
    CHECK(cudaGetSymbolAddress(&addr, scratch));
    CHECK(cudaGetSymbolSize(&size, scratch));
    EXPECT(addr != nullptr && size == 64 * sizeof(float), "scratch: address %p, size %zu (expected 256)", addr, size);
    CHECK(cudaGetSymbolSize(&size, coeffs));
    EXPECT(size == 16 * sizeof(float), "coeffs: size %zu (expected 64)", size);
    fillScratch<<<1, 64>>>();
    float back[64];
    CHECK(cudaMemcpy(back, addr, sizeof back, cudaMemcpyDeviceToHost));  // through the address
    for (int i = 0; i < 64; i++) {
        float want = i * 0.5f + offs[i % 4];
        if (back[i] != want) {
            EXPECT(false, "scratch[%d] = %g, expected %g", i, back[i], want);
            break;
        }
    }
    // asynchronous symbol copies on a stream
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    float twice[64];
    for (int i = 0; i < 64; i++) twice[i] = 2.0f * i;
    CHECK(cudaMemcpyToSymbolAsync(scratch, twice, sizeof twice, 0, cudaMemcpyHostToDevice, s));
    float got[32];
    CHECK(cudaMemcpyFromSymbolAsync(got, scratch, sizeof got, 32 * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    EXPECT(got[0] == 64.0f && got[31] == 126.0f, "cudaMemcpyFromSymbolAsync at offset 128: %g..%g, expected 64..126", got[0], got[31]);
    printf("symbol addresses, sizes and async copies: ok\n");
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
    return finish("constant");
}
