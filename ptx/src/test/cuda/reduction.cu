// zluda ptx corpus: block sum reduction with shared memory and __syncthreads.
#define BLOCK 256
__global__ void block_sum(const int *in, int *out, unsigned n) {
    __shared__ int partial[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x * 2 + tid;
    int v = 0;
    if (i < n) v += in[i];
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    partial[tid] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = partial[0];
}

extern __shared__ float dynamic_smem[];
__global__ void __launch_bounds__(128, 2) scale_dynamic(float *data, float k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    dynamic_smem[threadIdx.x] = i < n ? data[i] : 0.0f;
    __syncthreads();
    if (i < n) data[i] = dynamic_smem[blockDim.x - 1 - threadIdx.x] * k;
}
