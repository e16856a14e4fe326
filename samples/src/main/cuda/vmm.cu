// Kernels of the virtual memory sample (samples/src/main/c/vmm.c).

// p[i] = i * 2654435761 + salt, grid-stride.
extern "C" __global__ void fill(unsigned *p, unsigned long long n, unsigned salt) {
    for (unsigned long long i = blockIdx.x * (unsigned long long) blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long) gridDim.x * blockDim.x)
        p[i] = (unsigned) i * 2654435761u + salt;
}

// dst[i] = src[i] + 1, grid-stride.
extern "C" __global__ void addOne(unsigned *dst, const unsigned *src, unsigned long long n) {
    for (unsigned long long i = blockIdx.x * (unsigned long long) blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long) gridDim.x * blockDim.x)
        dst[i] = src[i] + 1;
}
