// structs_demo: a cudart program whose driver calls pass structs in memory, for whole-capture
// replay (docs/replay.md): cudaMemcpy2D (device to device, device to host) and cudaMemcpy3D reach
// the driver as cuMemcpy2D/cuMemcpy3D with a CUDA_MEMCPY2D/CUDA_MEMCPY3D descriptor,
// cudaLaunchKernelEx as cuLaunchKernelEx with a CUlaunchConfig, cudaPointerGetAttributes as
// cuPointerGetAttributes. Prints PASS when every value is what the host computes.
//   nvcc -O2 -o structs_demo structs_demo.cu && ./structs_demo
#include <cstdio>
#include <vector>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

__global__ void fill(float *p, size_t pitch, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h) ((float *)((char *)p + y * pitch))[x] = y * 1000.0f + x;
}

__global__ void scale(float *p, size_t pitch, int w, int h, float s) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h) ((float *)((char *)p + y * pitch))[x] *= s;
}

int main() {
    const int w = 100, h = 37;
    float *a, *b;
    size_t pa, pb;
    CHECK(cudaMallocPitch((void **)&a, &pa, w * sizeof(float), h));
    CHECK(cudaMallocPitch((void **)&b, &pb, w * sizeof(float), h));
    fill<<<dim3((w + 127) / 128, h), 128>>>(a, pa, w, h);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy2D(b, pb, a, pa, w * sizeof(float), h, cudaMemcpyDeviceToDevice));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((w + 127) / 128, h);
    cfg.blockDim = dim3(128);
    CHECK(cudaLaunchKernelEx(&cfg, scale, b, pb, w, h, 2.0f));
    std::vector<float> rows(w * h);
    CHECK(cudaMemcpy2D(rows.data(), w * sizeof(float), b, pb, w * sizeof(float), h, cudaMemcpyDeviceToHost));
    cudaPitchedPtr c;
    CHECK(cudaMalloc3D(&c, make_cudaExtent(w * sizeof(float), h, 1)));
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(b, pb, w * sizeof(float), h);
    p.dstPtr = c;
    p.extent = make_cudaExtent(w * sizeof(float), h, 1);
    p.kind = cudaMemcpyDeviceToDevice;
    CHECK(cudaMemcpy3D(&p));
    std::vector<float> flat(c.pitch / sizeof(float) * h);
    CHECK(cudaMemcpy(flat.data(), c.ptr, c.pitch * h, cudaMemcpyDeviceToHost));
    cudaPointerAttributes attr;
    CHECK(cudaPointerGetAttributes(&attr, a));
    int wrong = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float want = 2.0f * (y * 1000.0f + x);
            wrong += rows[y * w + x] != want;
            wrong += flat[y * (c.pitch / sizeof(float)) + x] != want;
        }
    wrong += attr.type != cudaMemoryTypeDevice;
    CHECK(cudaFree(a)); CHECK(cudaFree(b)); CHECK(cudaFree(c.ptr));
    printf("structs_demo: %dx%d, %d wrong, %s\n", w, h, wrong, wrong ? "FAIL" : "PASS");
    return wrong != 0;
}
