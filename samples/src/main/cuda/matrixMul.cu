// matrixMul: C (M x N) = A (M x K) * B (K x N), all row-major float.
// Classic shared-memory tiling with 16 x 16 tiles: each block computes one 16 x 16 tile of C,
// walking K in steps of 16; each step loads one tile of A and one of B into shared memory,
// synchronises (bar.sync), accumulates, and synchronises again before the tiles are overwritten.
// Out-of-range elements (M, N or K not multiples of 16) are loaded as 0 and not stored.
// Launch: grid (ceil(N/16), ceil(M/16)), block (16, 16).
#define TILE 16

extern "C" __global__ void matrixMul(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];

    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;

    for (int k0 = 0; k0 < K; k0 += TILE) {
        int ak = k0 + tx;  // column of A this thread loads
        int bk = k0 + ty;  // row of B this thread loads
        As[ty][tx] = (row < M && ak < K) ? A[row * K + ak] : 0.0f;
        Bs[ty][tx] = (bk < K && col < N) ? B[bk * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            acc += As[ty][k] * Bs[k][tx];
        }
        __syncthreads();
    }
    if (row < M && col < N) {
        C[row * N + col] = acc;
    }
}
