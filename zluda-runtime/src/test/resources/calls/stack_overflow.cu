// Which error does an H200 report when a recursion overflows the per-thread stack?
#include <cstdio>
#include <cuda.h>
__device__ int deep(int n, volatile int *p) {
    int a[16];
    for (int i = 0; i < 16; i++) a[i] = p[i] + n;
    if (n == 0) return a[3];
    return deep(n - 1, p) + a[n & 15];
}
__global__ void k(int n, int *out, volatile int *p) { *out = deep(n, p); }
int main() {
    int *o, *p;
    cudaMalloc(&o, 4); cudaMalloc(&p, 64); cudaMemset(p, 0, 64);
    size_t s; cudaDeviceGetLimit(&s, cudaLimitStackSize);
    printf("stack limit %zu bytes\n", s);
    int ns[] = {1, 10, 100, 1000, 100000};
    for (int n : ns) {
        k<<<1, 1>>>(n, o, p);
        cudaError_t l = cudaGetLastError();
        cudaError_t e = cudaDeviceSynchronize();
        int v = -1; cudaError_t c = cudaMemcpy(&v, o, 4, cudaMemcpyDeviceToHost);
        printf("n=%d launch=%d sync=%d %s copy=%d value=%d\n", n, (int)l, (int)e, cudaGetErrorName(e), (int)c, v);
        if (e) { cudaDeviceReset(); cudaMalloc(&o, 4); cudaMalloc(&p, 64); cudaMemset(p, 0, 64); }
    }
    // the driver API's view of the same error code
    const char *nm; cuGetErrorName((CUresult)714, &nm); printf("CUresult 714 = %s\n", nm);
    return 0;
}
