#include <cstdint>
// device alloca (CUDA Programming Guide, "Dynamic Global Memory Allocation and Operations" / alloca)
extern "C" __global__ void alloca_kernel(const int* in, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n = in[i] % 13 + 1;
    int* p = (int*) alloca(n * sizeof(int));
    for (int k = 0; k < n; k++) p[k] = in[i] * (k + 1) - k * k;
    int s = 0;
    for (int k = n - 1; k >= 0; k -= 2) s += p[k] ^ k;
    out[i] = s * 1000 + (int) (((uintptr_t) p) & 7);
}
