// reduction: *result += sum of in[0..n-1] (ints).
// Each thread sums a grid-stride slice, each warp reduces with __shfl_down_sync (shfl.sync.down),
// warp sums meet in shared memory, the first warp reduces those, and thread 0 of each block adds
// the block's sum to *result with atomicAdd (atom.global.add / red.global.add).
// *result must be zeroed before the launch. blockDim.x must be a multiple of 32, at most 1024.
#define FULL_MASK 0xffffffffu

__device__ __forceinline__ int warpReduceSum(int v)
{
    for (int offset = 16; offset > 0; offset >>= 1) {
        v += __shfl_down_sync(FULL_MASK, v, offset);
    }
    return v;
}

extern "C" __global__ void reduceSum(const int *in, int *result, int n)
{
    __shared__ int warpSums[32];

    int sum = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        sum += in[i];
    }

    int lane = threadIdx.x & 31;
    int warp = threadIdx.x >> 5;
    sum = warpReduceSum(sum);
    if (lane == 0) {
        warpSums[warp] = sum;
    }
    __syncthreads();

    if (warp == 0) {
        int nwarps = blockDim.x >> 5;
        sum = (lane < nwarps) ? warpSums[lane] : 0;
        sum = warpReduceSum(sum);
        if (lane == 0) {
            atomicAdd(result, sum);
        }
    }
}
