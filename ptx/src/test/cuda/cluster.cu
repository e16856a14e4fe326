// zluda ptx corpus: thread block clusters and distributed shared memory (sm_90 paths guarded).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#if __CUDA_ARCH__ >= 900
#define CLUSTER2 __cluster_dims__(2, 1, 1)
#else
#define CLUSTER2
#endif
__global__ void CLUSTER2 cluster_exchange(int *out) {
    __shared__ int value;
#if __CUDA_ARCH__ >= 900
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    if (threadIdx.x == 0) value = rank * 10;
    cluster.sync();
    int *peer = cluster.map_shared_rank(&value, rank ^ 1);
    out[blockIdx.x * blockDim.x + threadIdx.x] = *peer;
    cluster.sync();
#else
    if (threadIdx.x == 0) value = blockIdx.x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = value;
#endif
}

__global__ void grid_sync_kernel(int *data) {
    cg::grid_group grid = cg::this_grid();
    data[grid.thread_rank()] += 1;
    grid.sync();
    data[grid.thread_rank()] *= 2;
}
