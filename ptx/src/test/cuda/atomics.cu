// zluda ptx corpus: global and shared atomics of several types.
__global__ void histogram(const unsigned char *data, unsigned *bins, int n) {
    __shared__ unsigned local_bins[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) local_bins[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local_bins[data[i]], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&bins[i], local_bins[i]);
}

__global__ void atomic_mix(int *ip, unsigned long long *lp, float *fp, double *dp) {
    atomicMax(ip, (int)threadIdx.x);
    atomicMin(ip + 1, -(int)threadIdx.x);
    atomicCAS(ip + 2, 0, 1);
    atomicExch(ip + 3, 7);
    atomicAnd(ip + 4, 0xf0);
    atomicOr(ip + 5, 1);
    atomicXor(ip + 6, 3);
    atomicInc((unsigned *)ip + 7, 100u);
    atomicAdd(lp, 1ull);
    atomicCAS(lp + 1, 0ull, 5ull);
    atomicAdd(fp, 1.5f);
    atomicAdd(dp, 2.5);
}
