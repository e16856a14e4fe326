// Warp intrinsics: __shfl_sync, __shfl_up_sync, __shfl_down_sync, __shfl_xor_sync (with a width),
// __ballot_sync, __all_sync, __any_sync, __activemask, in full warps, in a partial warp and under
// divergence; a warp-level inclusive scan and a butterfly reduction.
#include "common.cuh"

struct Lane {
    int bcast, up, down, xorv, width8, scan, reduce;
    unsigned ballot, active, ballotOdd;
    int all, any, allOdd;
};

__global__ void warpOps(const int *in, Lane *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    if (i >= n) return;  // the last warp is partial: only the lanes below n take part
    unsigned mask = __activemask();
    int v = in[i];
    Lane r;
    r.active = mask;
    r.bcast = __shfl_sync(mask, v, 3);
    r.up = __shfl_up_sync(mask, v, 1);
    r.down = __shfl_down_sync(mask, v, 2);
    r.xorv = __shfl_xor_sync(mask, v, 5);
    r.width8 = __shfl_sync(mask, v, 1, 8);  // lane 1 of each group of 8
    int s = v;
    for (int d = 1; d < 32; d *= 2) {
        int t = __shfl_up_sync(mask, s, d);
        if (lane >= d) s += t;
    }
    r.scan = s;
    int sum = v;
    for (int d = 16; d > 0; d /= 2) sum += __shfl_xor_sync(mask, sum, d);
    r.reduce = sum;
    r.ballot = __ballot_sync(mask, v > 0);
    r.all = __all_sync(mask, v > -100);
    r.any = __any_sync(mask, v == 7);
    r.ballotOdd = 0;
    r.allOdd = -1;
    if (lane & 1) {  // divergence: only the odd lanes
        unsigned odd = __activemask();
        r.ballotOdd = __ballot_sync(odd, v > 0);
        r.allOdd = __all_sync(odd, v > 0);
    }
    out[i] = r;
}

int main() {
    start("warp");
    const int full = 64, n = 64;  // two full warps
    int h[n];
    for (int i = 0; i < n; i++) h[i] = (i * 7) % 23 - 11;  // some positive, some not
    int *d;
    Lane *o;
    CHECK(cudaMalloc(&d, sizeof h));
    CHECK(cudaMalloc(&o, n * sizeof(Lane)));
    CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    warpOps<<<1, full>>>(d, o, n);
    CHECK(cudaGetLastError());
    Lane r[n];
    CHECK(cudaMemcpy(r, o, sizeof r, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        int w = i / 32 * 32, lane = i % 32;
        int scan = 0, sum = 0;
        unsigned ballot = 0, ballotOdd = 0;
        bool all = true, any = false, allOdd = true;
        for (int k = 0; k < 32; k++) {
            if (k <= lane) scan += h[w + k];
            sum += h[w + k];
            if (h[w + k] > 0) ballot |= 1u << k;
            if ((k & 1) && h[w + k] > 0) ballotOdd |= 1u << k;
            if ((k & 1) && !(h[w + k] > 0)) allOdd = false;
            all = all && h[w + k] > -100;
            any = any || h[w + k] == 7;
        }
        const Lane &g = r[i];
        EXPECT(g.active == 0xFFFFFFFFu, "lane %d: __activemask = %#x", i, g.active);
        EXPECT(g.bcast == h[w + 3], "lane %d: __shfl_sync(.., 3) = %d, expected %d", i, g.bcast, h[w + 3]);
        EXPECT(g.up == (lane >= 1 ? h[i - 1] : h[i]), "lane %d: __shfl_up_sync(1) = %d", i, g.up);
        EXPECT(g.down == (lane + 2 < 32 ? h[i + 2] : h[i]), "lane %d: __shfl_down_sync(2) = %d", i, g.down);
        EXPECT(g.xorv == h[w + (lane ^ 5)], "lane %d: __shfl_xor_sync(5) = %d", i, g.xorv);
        EXPECT(g.width8 == h[w + lane / 8 * 8 + 1], "lane %d: __shfl_sync(.., 1, 8) = %d, expected %d", i, g.width8, h[w + lane / 8 * 8 + 1]);
        EXPECT(g.scan == scan, "lane %d: warp scan = %d, expected %d", i, g.scan, scan);
        EXPECT(g.reduce == sum, "lane %d: butterfly sum = %d, expected %d", i, g.reduce, sum);
        EXPECT(g.ballot == ballot, "lane %d: __ballot_sync = %#x, expected %#x", i, g.ballot, ballot);
        EXPECT(g.all == (int)all && g.any == (int)any, "lane %d: __all_sync %d __any_sync %d, expected %d %d", i, g.all, g.any, all, any);
        if (lane & 1) {
            EXPECT(g.ballotOdd == ballotOdd, "lane %d: __ballot_sync among odd lanes = %#x, expected %#x", i, g.ballotOdd, ballotOdd);
            EXPECT((g.allOdd != 0) == allOdd, "lane %d: __all_sync among odd lanes = %d, expected %d", i, g.allOdd, allOdd);
        }
        if (g_failures > 10) break;
    }
    printf("full warps: shuffles, scan, reduction, votes ok\n");

    // a partial warp: 40 threads, the second warp has 8 lanes
    const int m = 40;
    warpOps<<<1, 64>>>(d, o, m);
    CHECK(cudaMemcpy(r, o, m * sizeof(Lane), cudaMemcpyDeviceToHost));
    unsigned wantActive = 0xFFu;
    unsigned ballot = 0;
    for (int k = 0; k < 8; k++)
        if (h[32 + k] > 0) ballot |= 1u << k;
    for (int i = 32; i < m; i++) {
        EXPECT(r[i].active == wantActive, "partial warp lane %d: __activemask = %#x, expected %#x", i, r[i].active, wantActive);
        EXPECT(r[i].ballot == ballot, "partial warp lane %d: __ballot_sync = %#x, expected %#x", i, r[i].ballot, ballot);
        EXPECT(r[i].bcast == h[35], "partial warp lane %d: __shfl_sync(.., 3) = %d, expected %d", i, r[i].bcast, h[35]);
    }
    printf("partial warp: activemask %#x, ballot %#x\n", r[32].active, r[32].ballot);
    CHECK(cudaFree(d));
    CHECK(cudaFree(o));
    return finish("warp");
}
