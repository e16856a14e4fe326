// CUDA graphs through the runtime API: a graph captured from two streams (cudaStreamBeginCapture, a fork and
// a join through events, kernels, copies, a memset, a host function, stream-ordered allocation), one built
// node by node (cudaGraphAddKernelNode, memcpy and memset nodes, a child graph), both instantiated and
// launched several times; a kernel node's parameters changed in the executable graph
// (cudaGraphExecKernelNodeSetParams) and the executable graph updated from a captured twin
// (cudaGraphExecUpdate); a graph launched inside a capture becomes a child graph node.
#include "common.cuh"
#include <cstring>

__global__ void fill(int *data, int n, int value) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = value + i % 7;
}

__global__ void scaleAdd(int *data, int n, int mul, int add) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = data[i] * mul + add;
}

__global__ void addFrom(int *dst, const int *src, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] += src[i];
}

static int hostCalls = 0;
static void CUDART_CB countCall(void *arg) { ++*(int *)arg; }

static const int N = 4096, BLOCK = 256, GRID = N / BLOCK;

// What the captured graph computes: a = fill(3) * 2 + 1, b = fill(5) + a, c = b (copied back).
static int expected(int i) { return (3 + i % 7) * 2 + 1 + (5 + i % 7); }

// Captures the work of one iteration on s1 (with a fork onto s2) into a graph; with tmp NULL it allocates its
// scratch array in the graph (cudaMallocAsync / cudaFreeAsync: mem alloc and free nodes).
static cudaGraph_t capture(cudaStream_t s1, cudaStream_t s2, int *a, int *b, int *host, int mul, int *scratch) {
    cudaEvent_t forked, joined;
    CHECK(cudaEventCreateWithFlags(&forked, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&joined, cudaEventDisableTiming));
    CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    cudaStreamCaptureStatus status;
    CHECK(cudaStreamIsCapturing(s1, &status));
    EXPECT(status == cudaStreamCaptureStatusActive, "s1 is not capturing");
    int *tmp = scratch;
    if (!scratch) CHECK(cudaMallocAsync(&tmp, N * sizeof(int), s1));
    CHECK(cudaMemsetAsync(b, 0, N * sizeof(int), s1));
    CHECK(cudaEventRecord(forked, s1));
    CHECK(cudaStreamWaitEvent(s2, forked, 0));
    fill<<<GRID, BLOCK, 0, s2>>>(a, N, 3);
    scaleAdd<<<GRID, BLOCK, 0, s2>>>(a, N, mul, 1);
    CHECK(cudaEventRecord(joined, s2));
    fill<<<GRID, BLOCK, 0, s1>>>(tmp, N, 5);
    addFrom<<<GRID, BLOCK, 0, s1>>>(b, tmp, N);
    CHECK(cudaStreamWaitEvent(s1, joined, 0));
    addFrom<<<GRID, BLOCK, 0, s1>>>(b, a, N);
    if (!scratch) CHECK(cudaFreeAsync(tmp, s1));
    CHECK(cudaLaunchHostFunc(s1, countCall, &hostCalls));
    CHECK(cudaMemcpyAsync(host, b, N * sizeof(int), cudaMemcpyDeviceToHost, s1));
    cudaGraph_t g;
    CHECK(cudaStreamEndCapture(s1, &g));
    CHECK(cudaEventDestroy(forked));
    CHECK(cudaEventDestroy(joined));
    return g;
}

int main() {
    start("graphs");
    int *a, *b, *host;
    CHECK(cudaMalloc(&a, N * sizeof(int)));
    CHECK(cudaMalloc(&b, N * sizeof(int)));
    CHECK(cudaMallocHost(&host, N * sizeof(int)));
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));

    // a captured graph, launched three times
    cudaGraph_t g = capture(s1, s2, a, b, host, 2, nullptr);
    size_t nodes = 0;
    CHECK(cudaGraphGetNodes(g, nullptr, &nodes));
    printf("captured graph: %zu nodes\n", nodes);
    EXPECT(nodes == 10, "the captured graph has %zu nodes, not 10", nodes);
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, g, 0));
    for (int r = 0; r < 3; r++) CHECK(cudaGraphLaunch(exec, s1));
    CHECK(cudaStreamSynchronize(s1));
    int bad = 0;
    for (int i = 0; i < N; i++) bad += host[i] != expected(i);
    EXPECT(bad == 0, "captured graph: %d wrong elements (host[0] = %d, expected %d)", bad, host[0], expected(0));
    EXPECT(hostCalls == 3, "the host function ran %d times, not 3", hostCalls);
    CHECK(cudaDeviceGraphMemTrim(0));

    // the scale kernel node's parameters changed in the executable graph: a = fill(3) * 3 + 1
    cudaGraphNode_t list[32];
    size_t count = 32;
    CHECK(cudaGraphGetNodes(g, list, &count));
    cudaGraphNode_t scaleNode = nullptr;
    for (size_t k = 0; k < count; k++) {
        cudaGraphNodeType t;
        CHECK(cudaGraphNodeGetType(list[k], &t));
        if (t != cudaGraphNodeTypeKernel) continue;
        cudaKernelNodeParams p;
        CHECK(cudaGraphKernelNodeGetParams(list[k], &p));
        if (p.func == (void *)scaleAdd) scaleNode = list[k];
    }
    EXPECT(scaleNode != nullptr, "no scaleAdd node in the captured graph");
    if (scaleNode) {
        int *pa = a, n = N, mul = 3, add = 1;
        void *args[] = {&pa, &n, &mul, &add};
        cudaKernelNodeParams p = {};
        p.func = (void *)scaleAdd;
        p.gridDim = dim3(GRID);
        p.blockDim = dim3(BLOCK);
        p.kernelParams = args;
        CHECK(cudaGraphExecKernelNodeSetParams(exec, scaleNode, &p));
        CHECK(cudaGraphLaunch(exec, s1));
        CHECK(cudaStreamSynchronize(s1));
        bad = 0;
        for (int i = 0; i < N; i++) bad += host[i] != expected(i) + (3 + i % 7);
        EXPECT(bad == 0, "after cudaGraphExecKernelNodeSetParams: %d wrong elements", bad);
    }

    // a graph captured without graph memory, and its executable graph updated from a twin captured with mul = 4
    int *scratch;
    CHECK(cudaMalloc(&scratch, N * sizeof(int)));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(g));
    g = capture(s1, s2, a, b, host, 2, scratch);
    CHECK(cudaGraphInstantiate(&exec, g, 0));
    cudaGraph_t twin = capture(s1, s2, a, b, host, 4, scratch);
    cudaGraphExecUpdateResultInfo info;
    CHECK(cudaGraphExecUpdate(exec, twin, &info));
    EXPECT(info.result == cudaGraphExecUpdateSuccess, "cudaGraphExecUpdate: result %d", (int)info.result);
    CHECK(cudaGraphLaunch(exec, s1));
    CHECK(cudaStreamSynchronize(s1));
    bad = 0;
    for (int i = 0; i < N; i++) bad += host[i] != expected(i) + 2 * (3 + i % 7);
    EXPECT(bad == 0, "after cudaGraphExecUpdate: %d wrong elements", bad);

    // a graph built node by node: memset b, fill a, a child graph that scales a, b += a, copy b back
    cudaGraph_t built, child;
    CHECK(cudaGraphCreate(&built, 0));
    CHECK(cudaGraphCreate(&child, 0));
    int *pa = a, *pb = b, n = N, seven = 7, two = 2, zero = 0;
    void *fillArgs[] = {&pa, &n, &seven};
    void *scaleArgs[] = {&pa, &n, &two, &zero};
    void *addArgs[] = {&pb, &pa, &n};
    cudaKernelNodeParams kp = {};
    kp.gridDim = dim3(GRID);
    kp.blockDim = dim3(BLOCK);
    cudaGraphNode_t nSet, nFill, nChild, nAdd, nCopy, cScale;
    kp.func = (void *)scaleAdd;
    kp.kernelParams = scaleArgs;
    CHECK(cudaGraphAddKernelNode(&cScale, child, nullptr, 0, &kp));
    cudaMemsetParams ms = {};
    ms.dst = b;
    ms.elementSize = 4;
    ms.width = N;
    ms.height = 1;
    ms.value = 100;
    CHECK(cudaGraphAddMemsetNode(&nSet, built, nullptr, 0, &ms));
    kp.func = (void *)fill;
    kp.kernelParams = fillArgs;
    CHECK(cudaGraphAddKernelNode(&nFill, built, nullptr, 0, &kp));
    CHECK(cudaGraphAddChildGraphNode(&nChild, built, &nFill, 1, child));
    kp.func = (void *)addFrom;
    kp.kernelParams = addArgs;
    cudaGraphNode_t deps[] = {nSet, nChild};
    CHECK(cudaGraphAddKernelNode(&nAdd, built, deps, 2, &kp));
    CHECK(cudaGraphAddMemcpyNode1D(&nCopy, built, &nAdd, 1, host, b, N * sizeof(int), cudaMemcpyDeviceToHost));
    cudaGraphExec_t builtExec;
    CHECK(cudaGraphInstantiate(&builtExec, built, 0));
    for (int r = 0; r < 2; r++) CHECK(cudaGraphLaunch(builtExec, s2));
    CHECK(cudaStreamSynchronize(s2));
    bad = 0;
    for (int i = 0; i < N; i++) bad += host[i] != 100 + 2 * (7 + i % 7);
    EXPECT(bad == 0, "graph built node by node: %d wrong elements (host[0] = %d)", bad, host[0]);

    // a graph launched inside a capture becomes a child graph node
    cudaGraph_t outer;
    CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeThreadLocal));
    CHECK(cudaGraphLaunch(builtExec, s1));
    CHECK(cudaStreamEndCapture(s1, &outer));
    cudaGraphNode_t only[4];
    size_t outerNodes = 4;
    CHECK(cudaGraphGetNodes(outer, only, &outerNodes));
    cudaGraphNodeType t = cudaGraphNodeTypeEmpty;
    if (outerNodes == 1) CHECK(cudaGraphNodeGetType(only[0], &t));
    EXPECT(outerNodes == 1 && t == cudaGraphNodeTypeGraph, "a captured graph launch: %zu nodes, type %d", outerNodes, (int)t);
    cudaGraphExec_t outerExec;
    CHECK(cudaGraphInstantiate(&outerExec, outer, 0));
    memset(host, 0, N * sizeof(int));
    CHECK(cudaGraphLaunch(outerExec, s1));
    CHECK(cudaStreamSynchronize(s1));
    bad = 0;
    for (int i = 0; i < N; i++) bad += host[i] != 100 + 2 * (7 + i % 7);
    EXPECT(bad == 0, "a graph launched through a child graph node: %d wrong elements", bad);

    CHECK(cudaGraphExecDestroy(outerExec));
    CHECK(cudaGraphDestroy(outer));
    CHECK(cudaGraphExecDestroy(builtExec));
    CHECK(cudaGraphDestroy(child));
    CHECK(cudaGraphDestroy(built));
    CHECK(cudaGraphDestroy(twin));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaStreamDestroy(s2));
    CHECK(cudaFreeHost(host));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(scratch));
    return finish("graphs");
}
