// zluda ptx corpus: warp-synchronous primitives (shuffles, votes, ballot, match, redux).
__global__ void warp_reduce(const float *in, float *out) {
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    float b = __shfl_sync(0xffffffffu, v, 0);
    float x = __shfl_xor_sync(0xffffffffu, b, 1);
    float u = __shfl_up_sync(0xffffffffu, x, 2);
    unsigned ballot = __ballot_sync(0xffffffffu, u > 0.0f);
    int all = __all_sync(0xffffffffu, u > 1.0f);
    int any = __any_sync(0xffffffffu, u < -1.0f);
    if ((threadIdx.x & 31) == 0) out[blockIdx.x * blockDim.x / 32 + threadIdx.x / 32] = v + ballot + all + any;
}

__global__ void warp_int(const unsigned *in, unsigned *out) {
    unsigned v = in[threadIdx.x];
    unsigned m = __activemask();
#if __CUDA_ARCH__ >= 700
    unsigned same = __match_any_sync(m, v);
#else
    unsigned same = m;
#endif
#if __CUDA_ARCH__ >= 800
    unsigned s = __reduce_add_sync(m, v);
#else
    unsigned s = v;
#endif
    out[threadIdx.x] = same ^ s ^ __popc(v) ^ __clz(v) ^ __brev(v) ^ __ffs(v);
}
