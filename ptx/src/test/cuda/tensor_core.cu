// zluda ptx corpus: warp matrix multiply (wmma), asynchronous copies, texture fetches.
#include <mma.h>
#include <cuda_pipeline.h>
using namespace nvcuda;

__global__ void wmma_gemm(const half *a, const half *b, float *c) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

__global__ void async_copy(const int4 *src, int4 *dst) {
    __shared__ int4 buf[128];
    __pipeline_memcpy_async(&buf[threadIdx.x], &src[blockIdx.x * 128 + threadIdx.x], sizeof(int4));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    dst[blockIdx.x * 128 + threadIdx.x] = buf[127 - threadIdx.x];
}

__global__ void texture_fetch(cudaTextureObject_t tex, float *out, int w) {
    int x = threadIdx.x, y = blockIdx.x;
    out[y * w + x] = tex2D<float>(tex, x + 0.5f, y + 0.5f) + tex1Dfetch<float>(tex, x);
}
