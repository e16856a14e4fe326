/*
 * The plain C baselines of the emulator's benchmarks (EmulatorVsC, docs/benchmarks.md): each function is
 * the algorithm of one benchmark kernel, written as a C programmer would for one CPU core, and computes the
 * same bits as the kernel (fmaf is the fused multiply-add of PTX's fma.rn.f32; int sums wrap as add.s32 does).
 * Built with gcc -O2 -mfma into libemubench.so (zluda-runtime/src/main/c/Makefile) and called through the
 * FFM API from the same JMH run as the emulator.
 */
#include <math.h>
#include <stdint.h>

/* saxpy.ptx: z[i] = fma(a, x[i], y[i]) for i < n. */
__attribute__((visibility("default"))) void emu_saxpy(int n, float a, const float *x, const float *y, float *z) {
    for (int i = 0; i < n; i++) z[i] = fmaf(a, x[i], y[i]);
}

#define TILE 16

/*
 * matrixMul.ptx (samples): C = A * B with A m x k, B k x n, C m x n, row-major, by 16 x 16 tiles copied to
 * local arrays (the kernel's shared memory), each element's products added in the kernel's order
 * (acc = fma(A[row][t], B[t][col], acc) for t = 0, 1, ...). Sizes are multiples of 16 here.
 */
__attribute__((visibility("default"))) void emu_sgemm_tiled(int m, int n, int k, const float *A, const float *B, float *C) {
    float As[TILE][TILE], Bs[TILE][TILE], acc[TILE][TILE];
    for (int by = 0; by < m; by += TILE) {
        for (int bx = 0; bx < n; bx += TILE) {
            for (int y = 0; y < TILE; y++) for (int x = 0; x < TILE; x++) acc[y][x] = 0;
            for (int t = 0; t < k; t += TILE) {
                for (int y = 0; y < TILE; y++) {
                    for (int x = 0; x < TILE; x++) {
                        As[y][x] = A[(int64_t) (by + y) * k + t + x];
                        Bs[y][x] = B[(int64_t) (t + y) * n + bx + x];
                    }
                }
                for (int y = 0; y < TILE; y++)
                    for (int kk = 0; kk < TILE; kk++)
                        for (int x = 0; x < TILE; x++) acc[y][x] = fmaf(As[y][kk], Bs[kk][x], acc[y][x]);
            }
            for (int y = 0; y < TILE; y++) for (int x = 0; x < TILE; x++) C[(int64_t) (by + y) * n + bx + x] = acc[y][x];
        }
    }
}

/* reduction.ptx (samples, reduceSum): the sum of n ints, wrapping as the kernel's add.s32 and atom.add.u32. */
__attribute__((visibility("default"))) uint32_t emu_reduce_sum(const uint32_t *x, int n) {
    uint32_t s = 0;
    for (int i = 0; i < n; i++) s += x[i];
    return s;
}
