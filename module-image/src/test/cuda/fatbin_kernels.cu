// Device code for the fatbin test resources (make-fatbins.sh): two kernels, a device function
// and a constant, so that the PTX has more than one entry point and some module-scope state.
__constant__ float scale = 2.0f;

__device__ float twice(float x) { return scale * x; }

extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void saxpy_twice(float alpha, const float *x, float *y, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        y[i] = alpha * twice(x[i]) + y[i];
    }
}
