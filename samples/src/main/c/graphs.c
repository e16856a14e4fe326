/*
 * graphs: CUDA graphs through the driver API, checked exactly against the CPU (every value is a small
 * integer in float). Five parts:
 *
 *  1. A graph built node by node: memset, memcpy host-to-device, two kernels, an empty node, a child
 *     graph, a host node, an event record node and a memcpy device-to-host; its nodes, edges and root
 *     nodes counted, a kernel node's parameters read back, written as DOT; instantiated and launched
 *     twice; a kernel node's parameters changed in the executable graph (cuGraphExecKernelNodeSetParams);
 *     the executable graph updated from an edited clone (cuGraphClone, cuGraphNodeFindInClone,
 *     cuGraphExecUpdate).
 *  2. The same work captured from two streams (cuStreamBeginCapture, a fork and a join through events,
 *     a host function), instantiated and launched three times.
 *  3. The rules of stream capture: a potentially unsafe call (cuMemAlloc) in global mode, and in relaxed
 *     mode and with the thread's mode exchanged; synchronising a capturing stream; a synchronous copy on
 *     the legacy stream while a blocking stream captures; a fork not joined back. The sample prints what
 *     each call returned and checks only that the forbidden ones failed and ended their capture.
 *  4. Graph memory: a mem alloc node, a memset into it, a kernel reading it and a mem free node; the same
 *     captured from cuMemAllocAsync / cuMemFreeAsync.
 *  5. Capture into an existing graph (cuStreamBeginCaptureToGraph) after one of its nodes.
 *
 * usage: graphs [n]     n floats per array, default 4096
 * Kernels: axpb, addInto (src/main/cuda/graphs.cu). Context: the primary one.
 */
#include "common.h"

#define BLOCK 256

static CUfunction axpb, addInto;
static int n;
static unsigned int grid;

static void bump(void *counter)
{
    ++*(int *)counter;
}

/* Kernel node parameters of axpb(y, x, a, b, n): the argument values live in *args. */
struct axpb_args { CUdeviceptr y, x; float a, b; int n; void *p[5]; };
struct add_args { CUdeviceptr y, x; int n; void *p[3]; };

static CUDA_KERNEL_NODE_PARAMS axpb_node(struct axpb_args *args, CUdeviceptr y, CUdeviceptr x, float a, float b)
{
    args->y = y; args->x = x; args->a = a; args->b = b; args->n = n;
    args->p[0] = &args->y; args->p[1] = &args->x; args->p[2] = &args->a; args->p[3] = &args->b; args->p[4] = &args->n;
    CUDA_KERNEL_NODE_PARAMS k;
    memset(&k, 0, sizeof k);
    k.func = axpb;
    k.gridDimX = grid; k.gridDimY = 1; k.gridDimZ = 1;
    k.blockDimX = BLOCK; k.blockDimY = 1; k.blockDimZ = 1;
    k.kernelParams = args->p;
    return k;
}

static CUDA_KERNEL_NODE_PARAMS add_node(struct add_args *args, CUdeviceptr y, CUdeviceptr x)
{
    args->y = y; args->x = x; args->n = n;
    args->p[0] = &args->y; args->p[1] = &args->x; args->p[2] = &args->n;
    CUDA_KERNEL_NODE_PARAMS k;
    memset(&k, 0, sizeof k);
    k.func = addInto;
    k.gridDimX = grid; k.gridDimY = 1; k.gridDimZ = 1;
    k.blockDimX = BLOCK; k.blockDimY = 1; k.blockDimZ = 1;
    k.kernelParams = args->p;
    return k;
}

static CUDA_MEMCPY3D copy_1d(int to_device, void *host, CUdeviceptr dev, size_t bytes)
{
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    if (to_device) {
        c.srcMemoryType = CU_MEMORYTYPE_HOST; c.srcHost = host;
        c.dstMemoryType = CU_MEMORYTYPE_DEVICE; c.dstDevice = dev;
    } else {
        c.srcMemoryType = CU_MEMORYTYPE_DEVICE; c.srcDevice = dev;
        c.dstMemoryType = CU_MEMORYTYPE_HOST; c.dstHost = host;
    }
    c.WidthInBytes = bytes; c.Height = 1; c.Depth = 1;
    return c;
}

/* Compares out[i] with a * x[i] + b; prints the first difference. */
static int expect(const char *what, const float *out, const float *x, float a, float b)
{
    for (int i = 0; i < n; i++) {
        float want = a * x[i] + b;
        if (out[i] != want) {
            printf("FAIL: %s: element %d is %g, expected %g\n", what, i, out[i], want);
            return 1;
        }
    }
    printf("%s: %d elements as expected (%g * x + %g)\n", what, n, a, b);
    return 0;
}

static const char *status_name(CUstreamCaptureStatus s)
{
    return s == CU_STREAM_CAPTURE_STATUS_NONE ? "NONE" : s == CU_STREAM_CAPTURE_STATUS_ACTIVE ? "ACTIVE" : "INVALIDATED";
}

int main(int argc, char **argv)
{
    sample_start();
    n = (int)arg_long(argc, argv, 1, 4096, 1, 1L << 24, "[n]");
    grid = ceil_div(n, BLOCK);
    const char *origin;
    const char *ptx = sample_ptx_image(&origin);
    printf("graphs: n=%d grid=(%u,1,1) block=(%d,1,1) shared=0 ptx=%s\n", n, grid, BLOCK, origin);
    CUdevice dev = sample_device();
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CUmodule mod;
    CHECK(cuModuleLoadData(&mod, ptx));
    CHECK(cuModuleGetFunction(&axpb, mod, "axpb"));
    CHECK(cuModuleGetFunction(&addInto, mod, "addInto"));

    size_t bytes = (size_t)n * sizeof(float);
    float *hx = malloc(bytes), *hout = malloc(bytes);
    for (int i = 0; i < n; i++) hx[i] = (float)(i % 17);
    CUdeviceptr dA, dB, dC;
    CHECK(cuMemAlloc(&dA, bytes));
    CHECK(cuMemAlloc(&dB, bytes));
    CHECK(cuMemAlloc(&dC, bytes));
    CUstream s1, s2;
    CHECK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    CHECK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    CUevent e1, e2, ev;
    CHECK(cuEventCreate(&e1, CU_EVENT_DISABLE_TIMING));
    CHECK(cuEventCreate(&e2, CU_EVENT_DISABLE_TIMING));
    CHECK(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING));
    int failures = 0, counter = 0;

    /* ---- 1. a graph built node by node */
    CUgraph g, child;
    CHECK(cuGraphCreate(&g, 0));
    CUgraphNode nMemset, nCopyIn, nScale, nAdd, nEmpty, nChild, nHost, nRecord, nCopyOut, kChild;
    CUDA_MEMSET_NODE_PARAMS ms;
    memset(&ms, 0, sizeof ms);
    ms.dst = dB; ms.value = 0; ms.elementSize = 4; ms.width = (size_t)n; ms.height = 1; ms.pitch = bytes;
    CHECK(cuGraphAddMemsetNode(&nMemset, g, NULL, 0, &ms, ctx));
    CUDA_MEMCPY3D in = copy_1d(1, hx, dA, bytes);
    CHECK(cuGraphAddMemcpyNode(&nCopyIn, g, NULL, 0, &in, ctx));
    struct axpb_args scaleArgs;
    CUDA_KERNEL_NODE_PARAMS kScale = axpb_node(&scaleArgs, dC, dA, 2.0f, 1.0f);
    CHECK(cuGraphAddKernelNode(&nScale, g, &nCopyIn, 1, &kScale));
    struct add_args addArgs;
    CUDA_KERNEL_NODE_PARAMS kAdd = add_node(&addArgs, dB, dC);
    CUgraphNode addDeps[] = {nMemset, nScale};
    CHECK(cuGraphAddKernelNode(&nAdd, g, addDeps, 2, &kAdd));
    CHECK(cuGraphAddEmptyNode(&nEmpty, g, &nAdd, 1));
    CHECK(cuGraphCreate(&child, 0));
    struct add_args childArgs;
    CUDA_KERNEL_NODE_PARAMS kChildP = add_node(&childArgs, dB, dA);
    CHECK(cuGraphAddKernelNode(&kChild, child, NULL, 0, &kChildP));
    CHECK(cuGraphAddChildGraphNode(&nChild, g, &nEmpty, 1, child));
    CHECK(cuGraphDestroy(child)); /* the node holds its own copy */
    CUDA_HOST_NODE_PARAMS hp = {bump, &counter};
    CHECK(cuGraphAddHostNode(&nHost, g, &nChild, 1, &hp));
    CHECK(cuGraphAddEventRecordNode(&nRecord, g, &nHost, 1, ev));
    CUDA_MEMCPY3D out = copy_1d(0, hout, dB, bytes);
    CHECK(cuGraphAddMemcpyNode(&nCopyOut, g, &nChild, 1, &out, ctx));

    size_t count = 0, edges = 0, roots = 0;
    CHECK(cuGraphGetNodes(g, NULL, &count));
    CHECK(cuGraphGetEdges(g, NULL, NULL, NULL, &edges));
    CHECK(cuGraphGetRootNodes(g, NULL, &roots));
    printf("graph 1: %zu nodes, %zu edges, %zu root nodes\n", count, edges, roots);
    if (count != 9 || edges != 8 || roots != 2) { printf("FAIL: expected 9 nodes, 8 edges, 2 root nodes\n"); failures++; }
    CUgraphNode listed[16];
    size_t room = 16;
    CHECK(cuGraphGetNodes(g, listed, &room));
    if (room != 9 || listed[2] != nScale || listed[9] != NULL) { printf("FAIL: cuGraphGetNodes listed %zu nodes\n", room); failures++; }
    CUgraphNode from[16], to[16];
    size_t nedges = 16;
    CHECK(cuGraphGetEdges_v2(g, from, to, NULL, &nedges));
    int found = 0;
    for (size_t i = 0; i < nedges; i++) found += from[i] == nCopyIn && to[i] == nScale;
    if (nedges != 8 || found != 1) { printf("FAIL: cuGraphGetEdges listed %zu edges, copy-in -> scale %d times\n", nedges, found); failures++; }
    CUgraphNodeType type;
    CHECK(cuGraphNodeGetType(nChild, &type));
    if (type != CU_GRAPH_NODE_TYPE_GRAPH) { printf("FAIL: the child node's type is %d\n", (int)type); failures++; }
    CUDA_KERNEL_NODE_PARAMS got;
    CHECK(cuGraphKernelNodeGetParams(nScale, &got));
    if (got.func != axpb || got.gridDimX != grid || got.blockDimX != BLOCK || *(float *)got.kernelParams[2] != 2.0f) {
        printf("FAIL: the scale node's parameters read back wrong\n");
        failures++;
    }
    char dot[512];
    const char *tmp = getenv("TMPDIR");
    snprintf(dot, sizeof dot, "%s/zluda-graphs-sample.dot", tmp && *tmp ? tmp : "/tmp");
    CHECK(cuGraphDebugDotPrint(g, dot, CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE));
    FILE *df = fopen(dot, "r");
    if (df == NULL) { printf("FAIL: cuGraphDebugDotPrint wrote no %s\n", dot); failures++; }
    else { fclose(df); remove(dot); printf("graph 1 written as DOT\n"); }

    CUgraphExec exec;
    CHECK(cuGraphInstantiate(&exec, g, 0));
    for (int r = 0; r < 2; r++) CHECK(cuGraphLaunch(exec, s1));
    CHECK(cuStreamSynchronize(s1));
    CHECK(cuEventQuery(ev));
    failures += expect("graph 1, launched twice", hout, hx, 3.0f, 1.0f);
    if (counter != 2) { printf("FAIL: the host node ran %d times, not 2\n", counter); failures++; }

    struct axpb_args newArgs;
    CUDA_KERNEL_NODE_PARAMS kNew = axpb_node(&newArgs, dC, dA, 3.0f, 0.0f);
    CHECK(cuGraphExecKernelNodeSetParams(exec, nScale, &kNew));
    CHECK(cuGraphLaunch(exec, s1));
    CHECK(cuStreamSynchronize(s1));
    failures += expect("graph 1 after cuGraphExecKernelNodeSetParams", hout, hx, 4.0f, 0.0f);

    CUgraph clone;
    CUgraphNode cScale;
    CHECK(cuGraphClone(&clone, g));
    CHECK(cuGraphNodeFindInClone(&cScale, nScale, clone));
    struct axpb_args cloneArgs;
    CUDA_KERNEL_NODE_PARAMS kClone = axpb_node(&cloneArgs, dC, dA, 1.0f, 5.0f);
    CHECK(cuGraphKernelNodeSetParams(cScale, &kClone));
    CUgraphExecUpdateResultInfo info;
    CHECK(cuGraphExecUpdate(exec, clone, &info));
    if (info.result != CU_GRAPH_EXEC_UPDATE_SUCCESS) { printf("FAIL: cuGraphExecUpdate result %d\n", (int)info.result); failures++; }
    CHECK(cuGraphLaunch(exec, s1));
    CHECK(cuStreamSynchronize(s1));
    failures += expect("graph 1 after cuGraphExecUpdate", hout, hx, 2.0f, 5.0f);
    CHECK(cuGraphExecDestroy(exec));
    CHECK(cuGraphDestroy(clone));
    CHECK(cuGraphDestroy(g));

    /* ---- 2. stream capture over two streams */
    CUstreamCaptureStatus status;
    CHECK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CHECK(cuStreamIsCapturing(s1, &status));
    printf("capture 2: s1 is %s\n", status_name(status));
    if (status != CU_STREAM_CAPTURE_STATUS_ACTIVE) failures++;
    CHECK(cuMemsetD32Async(dB, 0, (size_t)n, s1));
    CHECK(cuMemcpyHtoDAsync(dA, hx, bytes, s1));
    cuuint64_t captureId = 0;
    CUgraph capturing = NULL;
    const CUgraphNode *deps = NULL;
    size_t ndeps = 0;
    CHECK(cuStreamGetCaptureInfo(s1, &status, &captureId, &capturing, &deps, NULL, &ndeps));
    printf("capture 2: %s, %zu dependenc%s, into a graph: %s\n", status_name(status), ndeps, ndeps == 1 ? "y" : "ies",
           capturing != NULL ? "yes" : "no");
    if (ndeps != 1 || capturing == NULL) failures++;
    CHECK(cuEventRecord(e1, s1));
    CHECK(cuStreamWaitEvent(s2, e1, 0));
    CHECK(cuStreamIsCapturing(s2, &status));
    printf("capture 2: s2 joined, %s\n", status_name(status));
    float a2 = 2.0f, b0 = 0.0f;
    void *scale2[] = {&dC, &dA, &a2, &b0, &n};
    CHECK(cuLaunchKernel(axpb, grid, 1, 1, BLOCK, 1, 1, 0, s2, scale2, NULL));
    CHECK(cuEventRecord(e2, s2));
    void *add2[] = {&dB, &dA, &n};
    CHECK(cuLaunchKernel(addInto, grid, 1, 1, BLOCK, 1, 1, 0, s1, add2, NULL));
    CHECK(cuStreamWaitEvent(s1, e2, 0));
    void *add3[] = {&dB, &dC, &n};
    CHECK(cuLaunchKernel(addInto, grid, 1, 1, BLOCK, 1, 1, 0, s1, add3, NULL));
    CHECK(cuLaunchHostFunc(s1, bump, &counter));
    CHECK(cuMemcpyDtoHAsync(hout, dB, bytes, s1));
    CUgraph captured;
    CHECK(cuStreamEndCapture(s1, &captured));
    CHECK(cuStreamIsCapturing(s2, &status));
    CHECK(cuGraphGetNodes(captured, NULL, &count));
    CHECK(cuGraphGetEdges(captured, NULL, NULL, NULL, &edges));
    printf("capture 2: %zu nodes, %zu edges; s2 after the capture: %s\n", count, edges, status_name(status));
    if (count != 7 || status != CU_STREAM_CAPTURE_STATUS_NONE) { printf("FAIL: expected 7 nodes and s2 released\n"); failures++; }
    CHECK(cuGraphInstantiate(&exec, captured, 0));
    counter = 0;
    for (int r = 0; r < 3; r++) CHECK(cuGraphLaunch(exec, s1));
    CHECK(cuStreamSynchronize(s1));
    failures += expect("capture 2, launched three times", hout, hx, 3.0f, 0.0f);
    if (counter != 3) { printf("FAIL: the captured host function ran %d times, not 3\n", counter); failures++; }
    CHECK(cuGraphExecDestroy(exec));
    CHECK(cuGraphDestroy(captured));

    /* ---- 3. the rules of stream capture */
    CUdeviceptr tmpPtr = 0;
    CUgraph ended = NULL;
    CHECK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CUresult unsafe = cuMemAlloc(&tmpPtr, 256);
    CHECK(cuStreamIsCapturing(s1, &status));
    CUresult after = cuMemsetD32Async(dB, 0, (size_t)n, s1);
    CUresult end = cuStreamEndCapture(s1, &ended);
    printf("capture 3a (global): cuMemAlloc -> %s, then the stream is %s, a memset -> %s, cuStreamEndCapture -> %s, graph %s\n",
           cu_error_name(unsafe), status_name(status), cu_error_name(after), cu_error_name(end), ended ? "made" : "NULL");
    if (unsafe == CUDA_SUCCESS || end == CUDA_SUCCESS || ended != NULL) { printf("FAIL: cuMemAlloc was allowed during a global capture\n"); failures++; }
    if (unsafe == CUDA_SUCCESS) CHECK(cuMemFree(tmpPtr));

    CHECK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_RELAXED));
    unsafe = cuMemAlloc(&tmpPtr, 256);
    if (unsafe == CUDA_SUCCESS) CHECK(cuMemFree(tmpPtr));
    end = cuStreamEndCapture(s1, &ended);
    printf("capture 3b (relaxed): cuMemAlloc -> %s, cuStreamEndCapture -> %s\n", cu_error_name(unsafe), cu_error_name(end));
    if (unsafe != CUDA_SUCCESS || end != CUDA_SUCCESS) failures++;
    if (end == CUDA_SUCCESS && ended != NULL) CHECK(cuGraphDestroy(ended));

    CHECK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    CHECK(cuThreadExchangeStreamCaptureMode(&mode));
    unsafe = cuMemAlloc(&tmpPtr, 256);
    if (unsafe == CUDA_SUCCESS) CHECK(cuMemFree(tmpPtr));
    CHECK(cuThreadExchangeStreamCaptureMode(&mode));
    end = cuStreamEndCapture(s1, &ended);
    printf("capture 3c (global, thread relaxed): cuMemAlloc -> %s, the mode given back %d, cuStreamEndCapture -> %s\n",
           cu_error_name(unsafe), (int)mode, cu_error_name(end));
    if (unsafe != CUDA_SUCCESS || end != CUDA_SUCCESS || mode != CU_STREAM_CAPTURE_MODE_RELAXED) failures++;
    if (end == CUDA_SUCCESS && ended != NULL) CHECK(cuGraphDestroy(ended));

    CHECK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CUresult sync = cuStreamSynchronize(s1);
    end = cuStreamEndCapture(s1, &ended);
    printf("capture 3d: cuStreamSynchronize of the capturing stream -> %s, cuStreamEndCapture -> %s\n", cu_error_name(sync), cu_error_name(end));
    if (sync == CUDA_SUCCESS || end == CUDA_SUCCESS) failures++;

    CUstream blocking;
    CHECK(cuStreamCreate(&blocking, CU_STREAM_DEFAULT));
    CHECK(cuStreamBeginCapture(blocking, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CUresult implicit = cuMemcpyHtoD(dA, hx, bytes);
    end = cuStreamEndCapture(blocking, &ended);
    printf("capture 3e: a copy on the legacy stream while a blocking stream captures -> %s, cuStreamEndCapture -> %s\n",
           cu_error_name(implicit), cu_error_name(end));
    if (implicit == CUDA_SUCCESS || end == CUDA_SUCCESS) failures++;
    CHECK(cuStreamDestroy(blocking));

    CHECK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CHECK(cuEventRecord(e1, s1));
    CHECK(cuStreamWaitEvent(s2, e1, 0));
    CHECK(cuLaunchKernel(addInto, grid, 1, 1, BLOCK, 1, 1, 0, s2, add3, NULL));
    end = cuStreamEndCapture(s1, &ended);
    CHECK(cuStreamIsCapturing(s2, &status));
    printf("capture 3f: a fork not joined back: cuStreamEndCapture -> %s, graph %s, s2 %s\n", cu_error_name(end), ended ? "made" : "NULL",
           status_name(status));
    if (end == CUDA_SUCCESS) failures++;
    if (status != CU_STREAM_CAPTURE_STATUS_NONE) CHECK(cuStreamEndCapture(s2, &ended));

    /* ---- 4. graph memory */
    CHECK(cuGraphCreate(&g, 0));
    CUDA_MEM_ALLOC_NODE_PARAMS ap;
    memset(&ap, 0, sizeof ap);
    ap.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    ap.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    ap.poolProps.location.id = 0;
    ap.bytesize = bytes;
    CUgraphNode nAlloc, nFill, nUse, nFree, nZero, nOut;
    CHECK(cuGraphAddMemAllocNode(&nAlloc, g, NULL, 0, &ap));
    CUdeviceptr dTmp = ap.dptr;
    memset(&ms, 0, sizeof ms);
    ms.dst = dTmp; ms.value = 0x40400000u; /* 3.0f */ ms.elementSize = 4; ms.width = (size_t)n; ms.height = 1; ms.pitch = bytes;
    CHECK(cuGraphAddMemsetNode(&nFill, g, &nAlloc, 1, &ms, ctx));
    memset(&ms, 0, sizeof ms);
    ms.dst = dB; ms.value = 0; ms.elementSize = 4; ms.width = (size_t)n; ms.height = 1; ms.pitch = bytes;
    CHECK(cuGraphAddMemsetNode(&nZero, g, NULL, 0, &ms, ctx));
    struct add_args useArgs;
    CUDA_KERNEL_NODE_PARAMS kUse = add_node(&useArgs, dB, dTmp);
    CUgraphNode useDeps[] = {nFill, nZero};
    CHECK(cuGraphAddKernelNode(&nUse, g, useDeps, 2, &kUse));
    CHECK(cuGraphAddMemFreeNode(&nFree, g, &nUse, 1, dTmp));
    out = copy_1d(0, hout, dB, bytes);
    CHECK(cuGraphAddMemcpyNode(&nOut, g, &nUse, 1, &out, ctx));
    CHECK(cuGraphInstantiate(&exec, g, 0));
    CHECK(cuGraphLaunch(exec, s1));
    CHECK(cuGraphLaunch(exec, s1));
    CHECK(cuStreamSynchronize(s1));
    failures += expect("graph memory, built node by node", hout, hx, 0.0f, 3.0f);
    CHECK(cuGraphExecDestroy(exec));
    CHECK(cuGraphDestroy(g));

    CHECK(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CUdeviceptr dAsync = 0;
    CHECK(cuMemAllocAsync(&dAsync, bytes, s1));
    CHECK(cuMemcpyHtoDAsync(dAsync, hx, bytes, s1));
    CHECK(cuMemsetD32Async(dB, 0, (size_t)n, s1));
    void *add4[] = {&dB, &dAsync, &n};
    CHECK(cuLaunchKernel(addInto, grid, 1, 1, BLOCK, 1, 1, 0, s1, add4, NULL));
    CHECK(cuLaunchKernel(addInto, grid, 1, 1, BLOCK, 1, 1, 0, s1, add4, NULL));
    CHECK(cuMemFreeAsync(dAsync, s1));
    CHECK(cuMemcpyDtoHAsync(hout, dB, bytes, s1));
    CHECK(cuStreamEndCapture(s1, &captured));
    CHECK(cuGraphGetNodes(captured, NULL, &count));
    printf("graph memory, captured: %zu nodes\n", count);
    CHECK(cuGraphInstantiate(&exec, captured, 0));
    CHECK(cuGraphLaunch(exec, s1));
    CHECK(cuStreamSynchronize(s1));
    failures += expect("graph memory, captured", hout, hx, 2.0f, 0.0f);
    CHECK(cuGraphExecDestroy(exec));
    CHECK(cuGraphDestroy(captured));

    /* ---- 5. capture into an existing graph */
    CHECK(cuGraphCreate(&g, 0));
    CUgraphNode first;
    CHECK(cuGraphAddEmptyNode(&first, g, NULL, 0));
    CHECK(cuStreamBeginCaptureToGraph(s1, g, &first, NULL, 1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CHECK(cuMemcpyHtoDAsync(dA, hx, bytes, s1));
    void *scale5[] = {&dB, &dA, &a2, &b0, &n};
    CHECK(cuLaunchKernel(axpb, grid, 1, 1, BLOCK, 1, 1, 0, s1, scale5, NULL));
    CHECK(cuMemcpyDtoHAsync(hout, dB, bytes, s1));
    CHECK(cuStreamEndCapture(s1, &captured));
    CHECK(cuGraphGetNodes(g, NULL, &count));
    CHECK(cuGraphGetRootNodes(g, NULL, &roots));
    printf("capture into a graph: %zu nodes, %zu root node%s, the same graph back: %s\n", count, roots, roots == 1 ? "" : "s",
           captured == g ? "yes" : "no");
    if (count != 4 || roots != 1 || captured != g) failures++;
    CHECK(cuGraphInstantiate(&exec, g, 0));
    CHECK(cuGraphLaunch(exec, s1));
    CHECK(cuStreamSynchronize(s1));
    failures += expect("capture into a graph", hout, hx, 2.0f, 0.0f);
    CHECK(cuGraphExecDestroy(exec));
    CHECK(cuGraphDestroy(g));

    CHECK(cuEventDestroy(e1));
    CHECK(cuEventDestroy(e2));
    CHECK(cuEventDestroy(ev));
    CHECK(cuStreamDestroy(s1));
    CHECK(cuStreamDestroy(s2));
    CHECK(cuMemFree(dA));
    CHECK(cuMemFree(dB));
    CHECK(cuMemFree(dC));
    CHECK(cuModuleUnload(mod));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    free(hx);
    free(hout);
    if (failures) {
        printf("FAIL: %d checks failed\n", failures);
        return EXIT_FAIL;
    }
    printf("PASS\n");
    return EXIT_PASS;
}
