// Kernel of GraphLayerTest's conditional node test; conditional.ptx is `nvcc -ptx -arch=sm_75 conditional.cu` (nvcc 13.0).
#include <cuda_runtime.h>
extern "C" __global__ void countdown(int *counter, cudaGraphConditionalHandle handle) {
    if (threadIdx.x == 0 && blockIdx.x == 0) { int c = --*counter; cudaGraphSetConditional(handle, c > 0 ? 1 : 0); }
}
