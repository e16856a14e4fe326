// Atomic operations on global and shared memory: add (int, unsigned, unsigned long long, float,
// double), sub, exch, min, max, inc, dec, CAS (a lock-free float maximum), and, or, xor. Every
// input is chosen so the result does not depend on the order of the operations.
#include "common.cuh"

struct Results {
    int addInt, subInt, minInt, maxInt, exchCount;
    unsigned addU, incU, decU, andU, orU, xorU;
    unsigned long long addULL;
    float addF, casMaxF;
    double addD;
    int sharedHist[16];
};

__device__ float atomicMaxFloat(float *addr, float v) {
    int *a = (int *)addr;
    int old = *a, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= v) break;
        old = atomicCAS(a, assumed, __float_as_int(v));
    } while (old != assumed);
    return __int_as_float(old);
}

__global__ void atomics(Results *r, int n, int *exchSlot) {
    __shared__ int hist[16];
    if (threadIdx.x < 16) hist[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&r->addInt, i % 7 - 3);
        atomicSub(&r->subInt, 2);
        atomicMin(&r->minInt, (i * 37) % 1001 - 500);
        atomicMax(&r->maxInt, (i * 37) % 1001 - 500);
        atomicAdd(&r->addU, 3u);
        atomicInc(&r->incU, 100u);        // wraps to 0 after 100
        atomicDec(&r->decU, 0xFFFFFFFFu);  // counts down, never wraps here
        atomicAnd(&r->andU, ~(1u << (i % 32)));
        atomicOr(&r->orU, 1u << (i % 29));
        atomicXor(&r->xorU, 1u << (i % 3));
        atomicAdd(&r->addULL, 1ull << 33);
        atomicAdd(&r->addF, 0.25f);
        atomicAdd(&r->addD, 0.5);
        atomicMaxFloat(&r->casMaxF, (float)((i * 53) % 997) * 0.5f);
        int prev = atomicExch(exchSlot, i);
        if (prev >= 0) atomicAdd(&r->exchCount, 1);
        atomicAdd(&hist[i % 16], 1);
    }
    __syncthreads();
    if (threadIdx.x < 16) atomicAdd(&r->sharedHist[threadIdx.x], hist[threadIdx.x]);
}

int main() {
    start("atomics");
    const int n = 5000, block = 128;
    Results init = {};
    init.minInt = 1 << 30;
    init.maxInt = -(1 << 30);
    init.decU = 1000000;
    init.andU = 0xFFFFFFFFu;
    init.casMaxF = -1.0f;
    Results *d;
    int *slot;
    CHECK(cudaMalloc(&d, sizeof(Results)));
    CHECK(cudaMalloc(&slot, sizeof(int)));
    CHECK(cudaMemcpy(d, &init, sizeof init, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(slot, 0xFF, sizeof(int)));  // -1: the first exchange sees no previous value
    atomics<<<(n + block - 1) / block, block>>>(d, n, slot);
    CHECK(cudaGetLastError());
    Results r;
    CHECK(cudaMemcpy(&r, d, sizeof r, cudaMemcpyDeviceToHost));

    Results w = init;
    float maxF = -1.0f;
    int hist[16] = {};
    for (int i = 0; i < n; i++) {
        w.addInt += i % 7 - 3;
        w.subInt -= 2;
        int v = (i * 37) % 1001 - 500;
        if (v < w.minInt) w.minInt = v;
        if (v > w.maxInt) w.maxInt = v;
        w.addU += 3;
        w.incU = w.incU >= 100 ? 0 : w.incU + 1;
        w.decU -= 1;
        w.andU &= ~(1u << (i % 32));
        w.orU |= 1u << (i % 29);
        w.xorU ^= 1u << (i % 3);
        w.addULL += 1ull << 33;
        w.addF += 0.25f;
        w.addD += 0.5;
        float f = (float)((i * 53) % 997) * 0.5f;
        if (f > maxF) maxF = f;
        hist[i % 16]++;
    }
    EXPECT(r.addInt == w.addInt, "atomicAdd int = %d, expected %d", r.addInt, w.addInt);
    EXPECT(r.subInt == w.subInt, "atomicSub = %d, expected %d", r.subInt, w.subInt);
    EXPECT(r.minInt == w.minInt, "atomicMin = %d, expected %d", r.minInt, w.minInt);
    EXPECT(r.maxInt == w.maxInt, "atomicMax = %d, expected %d", r.maxInt, w.maxInt);
    EXPECT(r.addU == w.addU, "atomicAdd unsigned = %u, expected %u", r.addU, w.addU);
    EXPECT(r.incU == w.incU, "atomicInc(100) = %u, expected %u", r.incU, w.incU);
    EXPECT(r.decU == w.decU, "atomicDec = %u, expected %u", r.decU, w.decU);
    EXPECT(r.andU == w.andU, "atomicAnd = %#x, expected %#x", r.andU, w.andU);
    EXPECT(r.orU == w.orU, "atomicOr = %#x, expected %#x", r.orU, w.orU);
    EXPECT(r.xorU == w.xorU, "atomicXor = %#x, expected %#x", r.xorU, w.xorU);
    EXPECT(r.addULL == w.addULL, "atomicAdd unsigned long long = %llu, expected %llu", r.addULL, w.addULL);
    EXPECT(r.addF == w.addF, "atomicAdd float = %g, expected %g", r.addF, w.addF);
    EXPECT(r.addD == w.addD, "atomicAdd double = %g, expected %g", r.addD, w.addD);
    EXPECT(r.casMaxF == maxF, "atomicCAS float maximum = %g, expected %g", r.casMaxF, maxF);
    EXPECT(r.exchCount == n - 1, "atomicExch saw a previous value %d times, expected %d", r.exchCount, n - 1);
    for (int b = 0; b < 16; b++) EXPECT(r.sharedHist[b] == hist[b], "shared-memory histogram bin %d = %d, expected %d", b, r.sharedHist[b], hist[b]);
    int last = -2;
    CHECK(cudaMemcpy(&last, slot, sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT(last >= 0 && last < n, "atomicExch left %d, expected a thread index", last);
    printf("atomics: n=%d, add %d, min %d, max %d, inc %u, float max %g\n", n, r.addInt, r.minInt, r.maxInt, r.incU, r.casMaxF);
    CHECK(cudaFree(d));
    CHECK(cudaFree(slot));
    return finish("atomics");
}
