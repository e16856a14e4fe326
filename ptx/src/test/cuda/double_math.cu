// zluda ptx corpus: double precision math library calls and conversions.
__global__ void double_math(const double *x, double *y, long long *z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double v = x[i];
        y[i] = sin(v) * exp(v) + sqrt(fabs(v)) / (1.0 + v * v) + pow(v, 0.5) + rint(v);
        z[i] = (long long)floor(v) + __double2ll_rn(v * 1e10);
    }
}

__global__ void float_math(const float *x, float *y, unsigned *z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = __sinf(v) + __expf(v) + rsqrtf(v) + __fdividef(v, 3.0f) + fminf(v, 1.0f) + log2f(v);
        z[i] = __float_as_uint(v) >> 3 | (unsigned)(v * 16.0f);
    }
}
