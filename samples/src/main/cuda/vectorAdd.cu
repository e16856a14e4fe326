// vectorAdd: c[i] = a[i] + b[i] for i < n.
// Launch: 1-D grid of ceil(n / blockDim.x) blocks; the bounds check handles an n that is
// not a multiple of the block size.
extern "C" __global__ void vectorAdd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
