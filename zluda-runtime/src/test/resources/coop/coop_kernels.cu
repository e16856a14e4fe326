// Kernels for the emulator's cooperative-launch and cluster tests (zluda-runtime's CooperativeClusterTest).
// PTX: nvcc -ptx -arch=sm_90 coop_kernels.cu -o coop_kernels.ptx (nvcc 13.0)
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Each round every thread publishes its value, the grid synchronises, and each thread takes a value another
// CTA published: without a working grid barrier the result differs from the host's.
extern "C" __global__ void gridRounds(int *cur, int *out, int n, int rounds) {
    cg::grid_group grid = cg::this_grid();
    unsigned t = (unsigned) grid.thread_rank();
    int v = (int) t;
    for (int r = 0; r < rounds; r++) {
        if (t < n) cur[t] = v;
        grid.sync();
        if (t < n) v = cur[(t + 1 + r * 7) % n] + 1;
        grid.sync();
    }
    if (t < n) out[t] = v;
    if (t == 0) out[n] = grid.is_valid() ? (int) grid.num_blocks() : -1;
}

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

// Distributed shared memory: each CTA fills its shared array, the cluster synchronises, each thread reads the
// next CTA's array and adds into rank 0's counter with a shared::cluster atomic.
extern "C" __global__ void clusterExchange(int *out, int *counts) {
    __shared__ int data[128];
    __shared__ int counter;
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    if (threadIdx.x == 0) counter = 0;
    data[threadIdx.x] = (int) (rank * 1000 + threadIdx.x);
    cluster.sync();
    int *peer = cluster.map_shared_rank(data, (rank + 1) % cluster.num_blocks());
    int *root = cluster.map_shared_rank(&counter, 0);
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    out[g] = peer[(threadIdx.x + 1) % blockDim.x];
    atomicAdd(root, 1);
    cluster.sync();
    if (threadIdx.x == 0 && rank == 0) counts[blockIdx.x / cluster.num_blocks()] = counter;
}

// The same with its cluster shape fixed at compile time (.reqnctapercluster, .explicitcluster).
extern "C" __global__ void __cluster_dims__(2, 1, 1) clusterFixed(int *out, int *counts) {
    __shared__ int data[128];
    __shared__ int counter;
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    if (threadIdx.x == 0) counter = 0;
    data[threadIdx.x] = (int) (rank * 1000 + threadIdx.x);
    cluster.sync();
    int *peer = cluster.map_shared_rank(data, (rank + 1) % cluster.num_blocks());
    int *root = cluster.map_shared_rank(&counter, 0);
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    out[g] = peer[(threadIdx.x + 1) % blockDim.x];
    atomicAdd(root, 1);
    cluster.sync();
    if (threadIdx.x == 0 && rank == 0) counts[blockIdx.x / cluster.num_blocks()] = counter;
}
