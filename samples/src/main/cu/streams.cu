// Streams, events and asynchronous copies: work split over several streams (page-locked host
// memory, cudaMemcpyAsync both ways, a kernel per chunk, cudaMemsetAsync), a dependency between
// streams through an event (cudaStreamWaitEvent), event timing, host functions and callbacks on
// streams, stream flags and priorities.
#include "common.cuh"
#include <cstring>

__global__ void scaleAdd(int *data, int n, int mul, int add) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = data[i] * mul + add;
}

__global__ void addFrom(int *dst, const int *src, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] += src[i];
}

static volatile int hostFuncCalls = 0;
static void CUDART_CB hostFunc(void *arg) {
    hostFuncCalls++;
    *(int *)arg = 42;
}

static volatile int callbackCalls = 0;
static cudaError_t callbackStatus = cudaErrorUnknown;
static void CUDART_CB callback(cudaStream_t, cudaError_t status, void *arg) {
    callbackCalls++;
    callbackStatus = status;
    *(int *)arg = 7;
}

int main() {
    start("streams");
    const int nStreams = 4, chunk = 2048, n = nStreams * chunk;
    int *host, *dev, *other;
    CHECK(cudaMallocHost(&host, n * sizeof(int)));
    CHECK(cudaMalloc(&dev, n * sizeof(int)));
    CHECK(cudaMalloc(&other, n * sizeof(int)));
    for (int i = 0; i < n; i++) host[i] = i;

    cudaStream_t s[nStreams];
    for (int k = 0; k < nStreams; k++) CHECK(cudaStreamCreate(&s[k]));
    cudaEvent_t start_, stop_;
    CHECK(cudaEventCreate(&start_));
    CHECK(cudaEventCreate(&stop_));

    // each stream: copy its chunk in, scale it by (k+2) and add k, copy it back
    CHECK(cudaEventRecord(start_, 0));
    for (int k = 0; k < nStreams; k++) {
        int off = k * chunk;
        CHECK(cudaMemcpyAsync(dev + off, host + off, chunk * sizeof(int), cudaMemcpyHostToDevice, s[k]));
        scaleAdd<<<chunk / 256, 256, 0, s[k]>>>(dev + off, chunk, k + 2, k);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(host + off, dev + off, chunk * sizeof(int), cudaMemcpyDeviceToHost, s[k]));
    }
    CHECK(cudaEventRecord(stop_, 0));
    CHECK(cudaEventSynchronize(stop_));
    for (int k = 0; k < nStreams; k++) CHECK(cudaStreamSynchronize(s[k]));
    for (int i = 0; i < n; i++) {
        int k = i / chunk, want = i * (k + 2) + k;
        if (host[i] != want) {
            EXPECT(false, "chunk %d: host[%d] = %d, expected %d", k, i, host[i], want);
            break;
        }
    }
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    EXPECT(ms >= 0, "cudaEventElapsedTime = %f ms", ms);
    EXPECT(cudaEventQuery(stop_) == cudaSuccess, "cudaEventQuery after synchronisation");
    for (int k = 0; k < nStreams; k++) EXPECT(cudaStreamQuery(s[k]) == cudaSuccess, "cudaStreamQuery(s[%d]) after synchronisation", k);
    printf("four streams: copies and kernels ok\n");

    // s[1] waits for an event recorded on s[0]: other = 5 (memset on s[0]), then dev += other on s[1]
    cudaEvent_t ready;
    CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    CHECK(cudaMemsetAsync(other, 0, n * sizeof(int), s[0]));
    scaleAdd<<<n / 256, 256, 0, s[0]>>>(other, n, 1, 5);
    CHECK(cudaEventRecord(ready, s[0]));
    CHECK(cudaStreamWaitEvent(s[1], ready, 0));
    CHECK(cudaMemcpyAsync(dev, host, n * sizeof(int), cudaMemcpyHostToDevice, s[1]));
    addFrom<<<n / 256, 256, 0, s[1]>>>(dev, other, n);
    CHECK(cudaMemcpyAsync(host, dev, n * sizeof(int), cudaMemcpyDeviceToHost, s[1]));
    CHECK(cudaStreamSynchronize(s[1]));
    for (int i = 0; i < n; i++) {
        int k = i / chunk, want = i * (k + 2) + k + 5;
        if (host[i] != want) {
            EXPECT(false, "after the cross-stream wait: host[%d] = %d, expected %d", i, host[i], want);
            break;
        }
    }
    printf("cudaStreamWaitEvent: ok\n");

    // host functions and callbacks run after the work before them
    int hostValue = 0, callbackValue = 0;
    CHECK(cudaLaunchHostFunc(s[2], hostFunc, &hostValue));
    CHECK(cudaStreamAddCallback(s[3], callback, &callbackValue, 0));
    CHECK(cudaDeviceSynchronize());
    EXPECT(hostFuncCalls == 1 && hostValue == 42, "cudaLaunchHostFunc: %d calls, value %d", hostFuncCalls, hostValue);
    EXPECT(callbackCalls == 1 && callbackValue == 7 && callbackStatus == cudaSuccess, "cudaStreamAddCallback: %d calls, value %d, status %d",
           callbackCalls, callbackValue, (int)callbackStatus);
    printf("host function and callback: ok\n");

    // flags and priorities
    int least = 0, greatest = 0;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    cudaStream_t nb, prio;
    CHECK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithPriority(&prio, cudaStreamDefault, greatest));
    unsigned flags = 99;
    int p = 99;
    CHECK(cudaStreamGetFlags(nb, &flags));
    EXPECT(flags == cudaStreamNonBlocking, "cudaStreamGetFlags = %u, expected %u", flags, cudaStreamNonBlocking);
    CHECK(cudaStreamGetPriority(prio, &p));
    EXPECT(p == greatest, "cudaStreamGetPriority = %d, expected %d (range %d..%d)", p, greatest, least, greatest);
    int *small;
    CHECK(cudaMalloc(&small, 256 * sizeof(int)));
    CHECK(cudaMemsetAsync(small, 0, 256 * sizeof(int), nb));
    scaleAdd<<<1, 256, 0, nb>>>(small, 256, 3, 9);
    int back[256];
    CHECK(cudaMemcpyAsync(back, small, sizeof back, cudaMemcpyDeviceToHost, nb));  // pageable: returns when done
    CHECK(cudaStreamSynchronize(nb));
    for (int i = 0; i < 256; i++) {
        if (back[i] != 9) {
            EXPECT(false, "non-blocking stream: back[%d] = %d, expected 9", i, back[i]);
            break;
        }
    }
    printf("stream flags and priority: ok (priorities %d..%d)\n", least, greatest);

    CHECK(cudaStreamDestroy(nb));
    CHECK(cudaStreamDestroy(prio));
    for (int k = 0; k < nStreams; k++) CHECK(cudaStreamDestroy(s[k]));
    CHECK(cudaEventDestroy(start_));
    CHECK(cudaEventDestroy(stop_));
    CHECK(cudaEventDestroy(ready));
    CHECK(cudaFree(small));
    CHECK(cudaFree(dev));
    CHECK(cudaFree(other));
    CHECK(cudaFreeHost(host));
    return finish("streams");
}
