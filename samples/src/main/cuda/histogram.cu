// histogram: bins[v] += number of bytes equal to v in data[0..n-1], 256 bins.
// Each block keeps a private histogram in shared memory (atomicAdd on shared memory,
// atom.shared.add), then adds its non-zero bins to the global histogram (atomicAdd on global
// memory). bins must be zeroed before the launch. blockDim.x must be 256 (one bin per thread
// for clearing and merging).
#define NUM_BINS 256

extern "C" __global__ void histogram256(const unsigned char *data, unsigned int *bins, int n)
{
    __shared__ unsigned int local[NUM_BINS];

    local[threadIdx.x] = 0;
    __syncthreads();

    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        atomicAdd(&local[data[i]], 1u);
    }
    __syncthreads();

    unsigned int count = local[threadIdx.x];
    if (count != 0) {
        atomicAdd(&bins[threadIdx.x], count);
    }
}
