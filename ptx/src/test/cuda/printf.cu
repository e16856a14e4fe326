// zluda ptx corpus: device-side printf (vprintf call, global string constants, local buffer).
#include <cstdio>
__global__ void hello(int value, double d) {
    printf("thread %d of block %d: value=%d d=%f\n", threadIdx.x, blockIdx.x, value, d);
}
