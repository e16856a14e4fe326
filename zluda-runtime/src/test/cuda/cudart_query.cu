// An unmodified CUDA runtime program that needs no kernel: device queries and memory copies.
// zluda-runtime's CudartProgramTest builds it with nvcc (static and shared cudart) and runs it on
// the zluda driver. It prints one line per check and "cudart_query: N passed, M failed" at the end;
// the exit status is 0 only when every check passed.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

static int passed = 0, failed = 0;

static bool check(const char *what, cudaError_t e) {
    if (e == cudaSuccess) {
        passed++;
        printf("ok   %s\n", what);
        return true;
    }
    failed++;
    printf("FAIL %s: %s (%s, %d)\n", what, cudaGetErrorName(e), cudaGetErrorString(e), (int)e);
    return false;
}

static void expect(const char *what, bool ok) {
    if (ok) passed++; else failed++;
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
}

int main() {
    int count = -1;
    if (check("cudaGetDeviceCount", cudaGetDeviceCount(&count))) {
        printf("devices: %d\n", count);
        expect("at least one device", count >= 1);
    }
    cudaDeviceProp prop;
    memset(&prop, 0, sizeof prop);
    if (check("cudaGetDeviceProperties", cudaGetDeviceProperties(&prop, 0))) {
        printf("device 0: %s, compute capability %d.%d, %d multiprocessors, warp size %d, %zu MiB\n",
               prop.name, prop.major, prop.minor, prop.multiProcessorCount, prop.warpSize,
               (size_t)(prop.totalGlobalMem >> 20));
        expect("warp size is 32", prop.warpSize == 32);
    }
    check("cudaSetDevice", cudaSetDevice(0));

    const int n = 1 << 16;
    static int host_in[1 << 16], host_out[1 << 16];
    for (int i = 0; i < n; i++) host_in[i] = i * 7 + 3;
    int *dev_a = nullptr, *dev_b = nullptr;
    check("cudaMalloc a", cudaMalloc(&dev_a, n * sizeof(int)));
    check("cudaMalloc b", cudaMalloc(&dev_b, n * sizeof(int)));
    check("cudaMemcpy host to device", cudaMemcpy(dev_a, host_in, n * sizeof(int), cudaMemcpyHostToDevice));
    check("cudaMemcpy device to device", cudaMemcpy(dev_b, dev_a, n * sizeof(int), cudaMemcpyDeviceToDevice));
    check("cudaMemset", cudaMemset(dev_a, 0, n * sizeof(int)));
    check("cudaMemcpy device to host", cudaMemcpy(host_out, dev_b, n * sizeof(int), cudaMemcpyDeviceToHost));
    expect("round trip keeps every value", memcmp(host_in, host_out, sizeof host_in) == 0);
    check("cudaDeviceSynchronize", cudaDeviceSynchronize());

    // pinned memory, a stream, asynchronous copies and events
    int *pinned = nullptr;
    cudaStream_t stream;
    cudaEvent_t start, stop;
    check("cudaMallocHost", cudaMallocHost(&pinned, n * sizeof(int)));
    check("cudaStreamCreate", cudaStreamCreate(&stream));
    check("cudaEventCreate start", cudaEventCreate(&start));
    check("cudaEventCreate stop", cudaEventCreate(&stop));
    check("cudaEventRecord start", cudaEventRecord(start, stream));
    check("cudaMemsetAsync", cudaMemsetAsync(dev_a, 0xab, n * sizeof(int), stream));
    check("cudaMemcpyAsync device to host", cudaMemcpyAsync(pinned, dev_a, n * sizeof(int), cudaMemcpyDeviceToHost, stream));
    check("cudaEventRecord stop", cudaEventRecord(stop, stream));
    check("cudaStreamSynchronize", cudaStreamSynchronize(stream));
    expect("cudaMemsetAsync wrote every byte", pinned[0] == (int)0xabababab && pinned[n - 1] == (int)0xabababab);
    float ms = -1;
    check("cudaEventElapsedTime", cudaEventElapsedTime(&ms, start, stop));
    expect("elapsed time is not negative", ms >= 0);
    cudaPointerAttributes attributes;
    if (check("cudaPointerGetAttributes", cudaPointerGetAttributes(&attributes, dev_b)))
        expect("device memory is cudaMemoryTypeDevice", attributes.type == cudaMemoryTypeDevice && attributes.device == 0);
    int peer = -1;
    check("cudaDeviceCanAccessPeer", cudaDeviceCanAccessPeer(&peer, 0, 0));
    check("cudaEventDestroy start", cudaEventDestroy(start));
    check("cudaEventDestroy stop", cudaEventDestroy(stop));
    check("cudaStreamDestroy", cudaStreamDestroy(stream));
    check("cudaFreeHost", cudaFreeHost(pinned));
    size_t free_mem = 0, total_mem = 0;
    check("cudaMemGetInfo", cudaMemGetInfo(&free_mem, &total_mem));
    check("cudaFree a", cudaFree(dev_a));
    check("cudaFree b", cudaFree(dev_b));
    expect("cudaGetErrorString names errors",
           strcmp(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument") == 0);
    expect("an invalid copy is refused",
           cudaMemcpy(host_out, host_in, sizeof(int), (cudaMemcpyKind)42) != cudaSuccess);
    cudaGetLastError();
    int version = 0;
    check("cudaDriverGetVersion", cudaDriverGetVersion(&version));
    printf("driver version %d\n", version);
    check("cudaDeviceReset", cudaDeviceReset());
    printf("cudart_query: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
