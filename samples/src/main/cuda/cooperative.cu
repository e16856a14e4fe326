// Kernel of the cooperative sample (samples/src/main/c/cooperative.c): rounds of grid-wide
// synchronisation through cooperative_groups, which needs a cooperative launch.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Each round every thread publishes its value, the grid synchronises, and each thread takes the value
// a thread of another CTA published (7 further on each round): wrong without a working grid barrier.
// out[n] = the number of CTAs grid_group counts.
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
