// zluda ptx corpus: kernels compiled by clang's NVPTX back end (clang --cuda-device-only -nocudainc),
// so they use clang builtins instead of the CUDA headers.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))

__device__ __attribute__((noinline)) float scale(float x, float k) { return x * k + 1.0f; }

extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
    int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
    if (i < n) y[i] = scale(x[i], a) + y[i];
}

extern "C" __global__ void block_sum(const int *in, int *out) {
    __shared__ int partial[256];
    unsigned tid = __nvvm_read_ptx_sreg_tid_x();
    partial[tid] = in[__nvvm_read_ptx_sreg_ctaid_x() * 256 + tid];
    __nvvm_barrier_sync(0);
    for (unsigned s = 128; s > 0; s >>= 1) {
        if (tid < s) partial[tid] += partial[tid + s];
        __nvvm_barrier_sync(0);
    }
    if (tid == 0) __atomic_fetch_add(out, partial[0], __ATOMIC_RELAXED);
}

extern "C" __global__ void warp_ops(const float *in, float *out, double *d, unsigned long long *c) {
    float v = in[__nvvm_read_ptx_sreg_tid_x()];
    for (int off = 16; off > 0; off /= 2) v += __nvvm_shfl_sync_down_f32(0xffffffffu, v, off, 0x1f);
    unsigned ballot = __nvvm_vote_ballot_sync(0xffffffffu, v > 0.0f);
    out[__nvvm_read_ptx_sreg_tid_x()] = v + (float)ballot;
    __atomic_fetch_add(c, 1ull, __ATOMIC_SEQ_CST);
    d[0] = __builtin_sqrt(d[1]) + __builtin_fma(d[2], d[3], d[4]);
}

struct Pair { char tag; double value; };
extern "C" __global__ void by_value(Pair p, char c, short s, long long l, double *out) {
    out[0] = p.value + p.tag + c + s + (double)l;
}
