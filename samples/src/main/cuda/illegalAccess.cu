// illegalAccess: writes far outside its allocation on purpose.
// Every thread stores to p[offset + threadIdx.x]; the host passes an offset that puts the
// address about 1 TiB past the end of a small allocation, where nothing is mapped. On NVIDIA's
// driver the launch returns CUDA_SUCCESS and the next synchronizing call returns
// CUDA_ERROR_ILLEGAL_ADDRESS (700); the context is unusable afterwards.
extern "C" __global__ void writeOutOfBounds(int *p, unsigned long long offset)
{
    p[offset + threadIdx.x] = 0x0badf00d;
}
