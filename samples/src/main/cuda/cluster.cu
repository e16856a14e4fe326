// ptx-arch: sm_90
// Kernels of the cluster sample (samples/src/main/c/cluster.c): thread-block clusters need sm_90.
#include <cooperative_groups.h>
#include "cluster_exchange.cuh"
namespace cg = cooperative_groups;

// One row of 8 words per CTA (linear CTA index): %clusterid.x/.y, %cluster_ctaid.x/.y,
// %cluster_nctaid.x/.y, %cluster_ctarank, %cluster_nctarank.
extern "C" __global__ void clusterRegisters(unsigned *out) {
    cg::cluster_group cluster = cg::this_cluster();
    unsigned cta = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned v[8];
    asm("mov.u32 %0, %%clusterid.x;" : "=r"(v[0]));
    asm("mov.u32 %0, %%clusterid.y;" : "=r"(v[1]));
    dim3 idx = cluster.block_index(), dims = cluster.dim_blocks();
    v[2] = idx.x;
    v[3] = idx.y;
    v[4] = dims.x;
    v[5] = dims.y;
    v[6] = cluster.block_rank();
    v[7] = cluster.num_blocks();
    if (threadIdx.x < 8) out[cta * 8 + threadIdx.x] = v[threadIdx.x];
}

// Distributed shared memory (cluster_exchange.cuh).
extern "C" __global__ void clusterExchange(int *out, int *counts) {
    __shared__ int data[256];
    __shared__ int counter;
    clusterExchangeBody(data, &counter, out, counts);
}
