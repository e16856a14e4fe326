// cudart_demo: a runtime-API program (cudart, static by default) for tracing on an NVIDIA GPU:
// it reaches the driver only through cuGetProcAddress and the export tables (module registration,
// the integrity check). Adds two vectors on two streams with events, checks the result, prints PASS.
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void vectorAdd(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    std::vector<float> a(n), b(n), c(n);
    for (int i = 0; i < n; i++) { a[i] = i * 0.5f; b[i] = 1000.0f - i; }
    float *da, *db, *dc;
    CHECK(cudaMalloc(&da, n * sizeof(float)));
    CHECK(cudaMalloc(&db, n * sizeof(float)));
    CHECK(cudaMalloc(&dc, n * sizeof(float)));
    cudaStream_t s[2];
    cudaEvent_t start, stop;
    for (auto &x : s) CHECK(cudaStreamCreate(&x));
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaMemcpyAsync(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice, s[0]));
    CHECK(cudaMemcpyAsync(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice, s[1]));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventRecord(start, s[0]));
    vectorAdd<<<(n + 255) / 256, 256, 0, s[0]>>>(da, db, dc, n);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop, s[0]));
    CHECK(cudaMemcpyAsync(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost, s[0]));
    CHECK(cudaStreamSynchronize(s[0]));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += c[i] != a[i] + b[i];
    for (auto &x : s) CHECK(cudaStreamDestroy(x));
    CHECK(cudaFree(da)); CHECK(cudaFree(db)); CHECK(cudaFree(dc));
    printf("cudart_demo: n=%d, %d wrong, %s\n", n, bad, bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
