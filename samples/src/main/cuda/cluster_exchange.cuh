// Distributed shared memory across a thread-block cluster, shared by the cluster sample (cluster.cu) and
// zluda-runtime's cluster tests (src/test/resources/coop/coop_kernels.cu): each CTA fills its shared array
// `data` (one int per thread), the cluster synchronises, each thread reads the next CTA's array into
// out[global thread index] and counts itself in rank 0's shared `counter` with an atomic; rank 0 then writes
// the count to counts[cluster index]. The caller declares `data` and `counter` as __shared__.
#pragma once
#include <cooperative_groups.h>

static __device__ __forceinline__ void clusterExchangeBody(int *data, int *counter, int *out, int *counts) {
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    if (threadIdx.x == 0) *counter = 0;
    data[threadIdx.x] = (int) (rank * 1000 + threadIdx.x);
    cluster.sync();
    int *peer = cluster.map_shared_rank(data, (rank + 1) % cluster.num_blocks());
    int *root = cluster.map_shared_rank(counter, 0);
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    out[g] = peer[(threadIdx.x + 1) % blockDim.x];
    atomicAdd(root, 1);
    cluster.sync();
    if (threadIdx.x == 0 && rank == 0) counts[blockIdx.x / cluster.num_blocks()] = *counter;
}
