// graphs: small kernels for the CUDA graph sample (graphs.c), each one pass over n floats.
//
// axpb: y[i] = a * x[i] + b (x and y may be the same array).
// addInto: y[i] += x[i].
// Launch: grid ceil(n / blockDim.x), any block size, no shared memory.
extern "C" __global__ void axpb(float *y, const float *x, float a, float b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + b;
    }
}

extern "C" __global__ void addInto(float *y, const float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] += x[i];
    }
}
