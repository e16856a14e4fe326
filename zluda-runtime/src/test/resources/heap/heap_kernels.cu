// Kernels for the driver's device-side malloc/free test (zluda-runtime's DeviceHeapTest).
// PTX: nvcc -ptx -arch=sm_75 heap_kernels.cu -o heap_kernels.ptx (nvcc 13.0)

// Each thread allocates bytes[t % 4] bytes, fills them with its index and keeps the pointer.
extern "C" __global__ void allocate(unsigned long long *ptrs, int n, int size) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int bytes = size + (t % 4) * 8;
    unsigned char *p = (unsigned char *) malloc(bytes);
    ptrs[t] = (unsigned long long) p;
    if (p) for (int i = 0; i < bytes; i++) p[i] = (unsigned char) t;
}

// In a later launch: each thread checks its block still holds its index (out[t] = 1), then frees it.
extern "C" __global__ void release(unsigned long long *ptrs, int *out, int n, int size) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    unsigned char *p = (unsigned char *) ptrs[t];
    int ok = p != 0;
    int bytes = size + (t % 4) * 8;
    if (p) for (int i = 0; i < bytes; i++) ok &= p[i] == (unsigned char) t;
    out[t] = ok;
    free(p);
}

// C++ new and delete in a kernel: they compile to malloc and free.
extern "C" __global__ void newDelete(int *out) {
    int *v = new int[4];
    for (int i = 0; i < 4; i++) v[i] = threadIdx.x * 10 + i;
    out[threadIdx.x] = v[0] + v[1] + v[2] + v[3];
    delete[] v;
}

// free of a pointer malloc never returned.
extern "C" __global__ void badFree(unsigned long long p) {
    free((void *) p);
}
