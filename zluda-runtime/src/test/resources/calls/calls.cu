// Recursion, function pointers and per-call local memory: ground truth for the emulator's calls.
#include <cstdint>

__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ __noinline__ unsigned ack(unsigned m, unsigned n) {
    if (m == 0) return n + 1;
    if (n == 0) return ack(m - 1, 1);
    return ack(m - 1, ack(m, n - 1));
}

// a local array per call, passed by pointer to the next level: every level's array must stay its own
__device__ __noinline__ int rsum(const int* prev, int d) {
    int buf[6];
    for (int k = 0; k < 6; k++) buf[k] = prev[(k + d) % 6] * 3 + d - k;
    if (d == 0) { int s = 0; for (int k = 0; k < 6; k++) s += buf[k]; return s; }
    int r = rsum(buf, d - 1);
    return r ^ (buf[d % 6] + prev[d % 6]);
}

__device__ __noinline__ float fa(float x, int k) { return x * 2.0f + k; }
__device__ __noinline__ float fb(float x, int k) { return x - k * 0.5f; }
__device__ __noinline__ float fc(float x, int k) { return k <= 0 ? x : fc(x * 1.5f, k - 1) + 1.0f; }
typedef float (*op_t)(float, int);
__device__ __noinline__ float fd(float x, int k);
__device__ op_t table[4] = {fa, fb, fc, fd};
// calls through the table again: indirect recursion
__device__ __noinline__ float fd(float x, int k) { return k <= 0 ? -x : table[(k * 3) & 3](x + 1.0f, k - 1) * 0.25f; }

extern "C" __global__ void fib_kernel(const int* in, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = fib(in[i]);
}

extern "C" __global__ void ack_kernel(const int* in, unsigned* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = ack(in[i] % 3, in[i] / 3 % 5);
}

extern "C" __global__ void rsum_kernel(const int* in, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int seed[6];
    for (int k = 0; k < 6; k++) seed[k] = in[i] + k * 7;
    out[i] = rsum(seed, in[i] % 9);
}

extern "C" __global__ void fptr_kernel(const int* in, float* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    op_t f = table[v & 3];
    out[i] = f((float) i * 0.75f, v % 7);
}

__device__ __noinline__ int deep(int n, volatile int* sink) {
    int local[16];
    for (int k = 0; k < 16; k++) local[k] = n + k;
    sink[n & 15] = local[n & 15];
    return n == 0 ? local[3] : deep(n - 1, sink) + local[n & 15];
}

extern "C" __global__ void overflow_kernel(int* out, int depth) {
    __shared__ int sink[16];
    out[threadIdx.x] = deep(depth, sink);
}
