// zluda ptx corpus: half and bfloat16 precision arithmetic and conversions.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
__global__ void half_axpy(const __half *x, __half *y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __hfma(__float2half(a), x[i], y[i]);
}

__global__ void half2_ops(const __half2 *x, __half2 *y, __nv_bfloat16 *z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half2 v = __hmul2(x[i], y[i]);
        v = __hadd2(v, __hneg2(x[i]));
        y[i] = __hmax2(v, x[i]);
        z[i] = __float2bfloat16(__half2float(__low2half(v)) * 3.0f);
    }
}
