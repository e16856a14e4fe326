// Template kernels: one source, several instantiations (float, double, int; a block-size
// parameter; a functor parameter), and function attributes/occupancy of instantiations.
// Values are small integers, so every float result is exact whatever the rounding or fusion.
#include "common.cuh"
#include <vector>

template <typename T>
__global__ void axpy(T a, const T *x, T *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

template <typename T, int BLOCK>
__global__ void blockSum(const T *in, T *out, int n) {
    __shared__ T s[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : T(0);
    __syncthreads();
    for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

struct Square {
    __device__ __host__ int operator()(int v) const { return v * v; }
};
struct Negate {
    __device__ __host__ int operator()(int v) const { return -v; }
};

template <typename F>
__global__ void transform(const int *in, int *out, int n, F f) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = f(in[i]);
}

template <typename T>
static void testAxpy(const char *type, int n) {
    std::vector<T> x(n), y(n), r(n);
    for (int i = 0; i < n; i++) {
        x[i] = T(i % 13 - 6);
        y[i] = T(i % 7);
    }
    T *dx, *dy;
    CHECK(cudaMalloc(&dx, n * sizeof(T)));
    CHECK(cudaMalloc(&dy, n * sizeof(T)));
    CHECK(cudaMemcpy(dx, x.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dy, y.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    axpy<T><<<(n + 127) / 128, 128>>>(T(3), dx, dy, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(r.data(), dy, n * sizeof(T), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) {
        T want = T(3) * x[i] + y[i];
        if (r[i] != want && bad++ == 0) EXPECT(false, "axpy<%s>[%d] = %g, expected %g", type, i, (double)r[i], (double)want);
    }
    printf("axpy<%s>: n=%d %s\n", type, n, bad ? "differs" : "ok");
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
}

template <typename T, int BLOCK>
static void testBlockSum(const char *type, int n) {
    int blocks = (n + BLOCK - 1) / BLOCK;
    std::vector<T> in(n), out(blocks);
    for (int i = 0; i < n; i++) in[i] = T(i % 9 - 4);
    T *din, *dout;
    CHECK(cudaMalloc(&din, n * sizeof(T)));
    CHECK(cudaMalloc(&dout, blocks * sizeof(T)));
    CHECK(cudaMemcpy(din, in.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    blockSum<T, BLOCK><<<blocks, BLOCK>>>(din, dout, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), dout, blocks * sizeof(T), cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++) {
        T want = 0;
        for (int i = b * BLOCK; i < n && i < (b + 1) * BLOCK; i++) want += in[i];
        if (out[b] != want) {
            EXPECT(false, "blockSum<%s,%d>[%d] = %g, expected %g", type, BLOCK, b, (double)out[b], (double)want);
            break;
        }
    }
    printf("blockSum<%s,%d>: %d blocks ok\n", type, BLOCK, blocks);
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
}

template <typename F>
static void testTransform(const char *name, F f, int n) {
    std::vector<int> in(n), out(n);
    for (int i = 0; i < n; i++) in[i] = i - n / 2;
    int *din, *dout;
    CHECK(cudaMalloc(&din, n * sizeof(int)));
    CHECK(cudaMalloc(&dout, n * sizeof(int)));
    CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    transform<<<4, 64>>>(din, dout, n, f);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        if (out[i] != f(in[i])) {
            EXPECT(false, "transform<%s>[%d] = %d, expected %d", name, i, out[i], f(in[i]));
            break;
        }
    }
    printf("transform<%s>: ok\n", name);
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
}

int main() {
    start("templates");
    testAxpy<float>("float", 1000);
    testAxpy<double>("double", 777);
    testAxpy<int>("int", 513);
    testBlockSum<int, 64>("int", 1000);
    testBlockSum<float, 128>("float", 1000);
    testBlockSum<double, 256>("double", 600);
    testTransform("Square", Square(), 1000);
    testTransform("Negate", Negate(), 300);

    // attributes of two instantiations of the same template
    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, blockSum<int, 64>));
    EXPECT(fa.sharedSizeBytes == 64 * sizeof(int), "blockSum<int,64> static shared = %zu, expected %zu", fa.sharedSizeBytes, 64 * sizeof(int));
    EXPECT(fa.maxThreadsPerBlock >= 256, "maxThreadsPerBlock = %d", fa.maxThreadsPerBlock);
    CHECK(cudaFuncGetAttributes(&fa, blockSum<double, 256>));
    EXPECT(fa.sharedSizeBytes == 256 * sizeof(double), "blockSum<double,256> static shared = %zu, expected %zu", fa.sharedSizeBytes, 256 * sizeof(double));
    printf("attributes: blockSum<double,256> shared=%zu bytes, maxThreadsPerBlock=%d\n", fa.sharedSizeBytes, fa.maxThreadsPerBlock);
    CHECK(cudaFuncSetAttribute(axpy<float>, cudaFuncAttributeMaxDynamicSharedMemorySize, 32 * 1024));
    CHECK(cudaFuncGetAttributes(&fa, axpy<float>));
    EXPECT(fa.maxDynamicSharedSizeBytes == 32 * 1024, "maxDynamicSharedSizeBytes = %d after cudaFuncSetAttribute(32 KiB)", fa.maxDynamicSharedSizeBytes);
    int minGrid = 0, block = 0;
    CHECK(cudaOccupancyMaxPotentialBlockSize(&minGrid, &block, axpy<double>));
    EXPECT(block > 0 && block <= 1024 && block % 32 == 0, "cudaOccupancyMaxPotentialBlockSize block = %d", block);
    int active = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, blockSum<float, 128>, 128, 0));
    EXPECT(active >= 1, "cudaOccupancyMaxActiveBlocksPerMultiprocessor = %d", active);
    return finish("templates");
}
