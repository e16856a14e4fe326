// Kernels for the emulator's cooperative-launch and cluster tests (zluda-runtime's CooperativeClusterTest).
// PTX: nvcc -ptx -arch=sm_90 coop_kernels.cu -o coop_kernels.ptx (nvcc 13.0)
// gridRounds: the cooperative sample's kernel (rounds of grid-wide synchronisation).
#include "../../../../../samples/src/main/cuda/cooperative.cu"
#include "../../../../../samples/src/main/cuda/cluster_exchange.cuh"

static __device__ unsigned sreg(int which) {
    unsigned v = 0;
    switch (which) {
    case 0: asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(v)); break;
    case 1: asm volatile("mov.u32 %0, %%clusterid.y;" : "=r"(v)); break;
    case 2: asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(v)); break;
    case 3: asm volatile("mov.u32 %0, %%nclusterid.y;" : "=r"(v)); break;
    case 4: asm volatile("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(v)); break;
    case 5: asm volatile("mov.u32 %0, %%cluster_ctaid.y;" : "=r"(v)); break;
    case 6: asm volatile("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(v)); break;
    case 7: asm volatile("mov.u32 %0, %%cluster_nctaid.y;" : "=r"(v)); break;
    case 8: asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(v)); break;
    case 9: asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(v)); break;
    default: {
        unsigned p;
        asm volatile("{ .reg .pred p; mov.pred p, %%is_explicit_cluster; selp.u32 %0, 1, 0, p; }" : "=r"(p));
        v = p;
    }
    }
    return v;
}

// One row of 11 words per CTA (linear CTA index): the cluster special registers.
extern "C" __global__ void clusterRegisters(unsigned *out) {
    unsigned cta = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    if (threadIdx.x < 11) out[cta * 11 + threadIdx.x] = sreg(threadIdx.x);
}

// Distributed shared memory (the cluster sample's, samples/src/main/cuda/cluster_exchange.cuh), with the
// cluster shape chosen at launch and with it fixed at compile time (.reqnctapercluster, .explicitcluster).
extern "C" __global__ void clusterExchange(int *out, int *counts) {
    __shared__ int data[128];
    __shared__ int counter;
    clusterExchangeBody(data, &counter, out, counts);
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) clusterFixed(int *out, int *counts) {
    __shared__ int data[128];
    __shared__ int counter;
    clusterExchangeBody(data, &counter, out, counts);
}
