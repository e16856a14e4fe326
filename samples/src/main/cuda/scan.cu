// scan: exclusive prefix sum of ints, out[i] = in[0] + ... + in[i-1], out[0] = 0.
//
// scanBlocks: each block scans blockDim.x consecutive elements in dynamic shared memory
// (Hillis-Steele, log2(blockDim.x) steps with bar.sync between reading and writing), writes the
// exclusive scan of its tile to out, and the tile's total to blockSums[blockIdx.x] (if blockSums
// is not null). Launch: grid ceil(n / blockDim.x), block B (a power of two), B * 4 bytes of
// dynamic shared memory.
//
// addBlockOffsets: the second pass: out[i] += offsets[blockIdx.x], where offsets is the exclusive
// scan of blockSums (computed by scanning blockSums with scanBlocks, recursively when there are
// more than B blocks). Launch: same grid and block as scanBlocks, no shared memory.
extern "C" __global__ void scanBlocks(const int *in, int *out, int *blockSums, int n)
{
    extern __shared__ int temp[];

    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    int x = (i < n) ? in[i] : 0;
    temp[tid] = x;
    __syncthreads();

    for (int offset = 1; offset < blockDim.x; offset <<= 1) {
        int t = (tid >= offset) ? temp[tid - offset] : 0;
        __syncthreads();
        temp[tid] += t;
        __syncthreads();
    }

    // temp now holds the inclusive scan of the tile.
    if (i < n) {
        out[i] = temp[tid] - x;
    }
    if (blockSums != 0 && tid == blockDim.x - 1) {
        blockSums[blockIdx.x] = temp[tid];
    }
}

extern "C" __global__ void addBlockOffsets(int *out, const int *offsets, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] += offsets[blockIdx.x];
    }
}
