package dev.zluda.runtime.driver;

import dev.zluda.runtime.api.CudaStructs.CUDA_CONDITIONAL_NODE_PARAMS;
import dev.zluda.runtime.api.CudaStructs.CUDA_KERNEL_NODE_PARAMS_v2;
import dev.zluda.runtime.api.CudaStructs.CUDA_MEMCPY3D;
import dev.zluda.runtime.api.CudaStructs.CUDA_MEMSET_NODE_PARAMS_v1;
import dev.zluda.runtime.api.CudaStructs.CUDA_MEM_ALLOC_NODE_PARAMS_v1;
import dev.zluda.runtime.api.CudaStructs.CUgraphExecUpdateResultInfo_v1;
import dev.zluda.runtime.api.CudaStructs.CUgraphNodeParams;
import dev.zluda.runtime.api.CudaStructs.CUmemPoolProps;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CUDA graphs and stream capture on the driver (CUDA Driver API, Graph Management and Stream Capture): graphs built
 * node by node and captured, their queries, instantiation, launches, updates; the rules of stream capture; graph
 * memory; conditional nodes; kernel snapshots of graph launches; calls after the driver was deinitialised. The kernels
 * are the graphs sample's (samples/src/main/ptx/graphs.ptx: axpb y = a*x + b, addInto y += x) and one conditional
 * kernel (src/test/resources/graphs/conditional.ptx, nvcc-generated).
 */
class GraphLayerTest extends DriverTestBase {
    static final int N = 256;
    /** CUresults of stream capture (cuda.h). */
    static final int ILLEGAL_STATE = 401, UNSUPPORTED = 900, INVALIDATED = 901, MERGE = 902, UNJOINED = 904, IMPLICIT = 906,
            CAPTURED_EVENT = 907, WRONG_THREAD = 908, UPDATE_FAILURE = 910;
    long axpb, addInto;

    /** A context, the graphs sample's module, its two kernels. */
    void setUpKernels() throws IOException {
        initWithContext();
        long m = load(Files.readString(Path.of("../samples/src/main/ptx/graphs.ptx")));
        axpb = function(m, "axpb");
        addInto = function(m, "addInto");
    }

    /** kernelParams: each argument's bytes in caller memory. */
    long params(MemorySegment... values) {
        MemorySegment arr = mem(8L * Math.max(1, values.length));
        for (int i = 0; i < values.length; i++) arr.setAtIndex(ValueLayout.JAVA_LONG, i, addr(values[i]));
        return addr(arr);
    }

    MemorySegment u64(long v) {
        MemorySegment s = mem(8);
        s.set(ValueLayout.JAVA_LONG, 0, v);
        return s;
    }

    MemorySegment u32(int v) {
        MemorySegment s = mem(4);
        s.set(ValueLayout.JAVA_INT, 0, v);
        return s;
    }

    MemorySegment f32(float v) {
        MemorySegment s = mem(4);
        s.set(ValueLayout.JAVA_FLOAT, 0, v);
        return s;
    }

    /** CUDA_KERNEL_NODE_PARAMS (v2) of a launch of N threads in blocks of 64. */
    long kernelNode(long f, long kernelParams) {
        long p = addr(mem(CUDA_KERNEL_NODE_PARAMS_v2.SIZE));
        CUDA_KERNEL_NODE_PARAMS_v2.func(p, f);
        CUDA_KERNEL_NODE_PARAMS_v2.gridDimX(p, N / 64);
        CUDA_KERNEL_NODE_PARAMS_v2.gridDimY(p, 1);
        CUDA_KERNEL_NODE_PARAMS_v2.gridDimZ(p, 1);
        CUDA_KERNEL_NODE_PARAMS_v2.blockDimX(p, 64);
        CUDA_KERNEL_NODE_PARAMS_v2.blockDimY(p, 1);
        CUDA_KERNEL_NODE_PARAMS_v2.blockDimZ(p, 1);
        CUDA_KERNEL_NODE_PARAMS_v2.kernelParams(p, kernelParams);
        return p;
    }

    long axpbParams(long y, long x, float a, float b) {
        return params(u64(y), u64(x), f32(a), f32(b), u32(N));
    }

    long graph() {
        MemorySegment g = mem(8);
        assertEquals(0, d.cuGraphCreate(addr(g), 0));
        return i64(g);
    }

    /** Adds a node with the given dependencies through {@code add(phNode, deps, n)}; returns its handle. */
    long node(NodeAdder add, long... deps) {
        MemorySegment n = mem(8), dd = mem(8L * Math.max(1, deps.length));
        for (int i = 0; i < deps.length; i++) dd.setAtIndex(ValueLayout.JAVA_LONG, i, deps[i]);
        assertEquals(0, add.add(addr(n), deps.length == 0 ? 0 : addr(dd), deps.length));
        return i64(n);
    }

    interface NodeAdder {
        int add(long phNode, long deps, long n);
    }

    long instantiate(long g) {
        MemorySegment e = mem(8);
        assertEquals(0, d.cuGraphInstantiateWithFlags(addr(e), g, 0));
        return i64(e);
    }

    float[] read(long dptr) {
        MemorySegment h = mem(4L * N);
        assertEquals(0, d.cuMemcpyDtoH_v2(addr(h), dptr, 4L * N));
        return h.toArray(ValueLayout.JAVA_FLOAT);
    }

    void write(long dptr, float[] v) {
        MemorySegment h = mem(4L * v.length);
        MemorySegment.copy(v, 0, h, ValueLayout.JAVA_FLOAT, 0, v.length);
        assertEquals(0, d.cuMemcpyHtoD_v2(dptr, addr(h), 4L * v.length));
    }

    static float[] ramp() {
        float[] x = new float[N];
        for (int i = 0; i < N; i++) x[i] = i % 13;
        return x;
    }

    void assertValues(long dptr, float a, float b) {
        float[] got = read(dptr), x = ramp();
        for (int i = 0; i < N; i++) assertEquals(a * x[i] + b, got[i], "element " + i);
    }

    @Test
    void aGraphBuiltNodeByNodeRunsInDependencyOrderAndCanBeEdited() throws IOException {
        setUpKernels();
        long x = alloc(4L * N), y = alloc(4L * N), z = alloc(4L * N);
        write(x, ramp());
        long g = graph();
        long ms = addr(mem(CUDA_MEMSET_NODE_PARAMS_v1.SIZE));
        CUDA_MEMSET_NODE_PARAMS_v1.dst(ms, z);
        CUDA_MEMSET_NODE_PARAMS_v1.elementSize(ms, 4);
        CUDA_MEMSET_NODE_PARAMS_v1.width(ms, N);
        CUDA_MEMSET_NODE_PARAMS_v1.height(ms, 1);
        CUDA_MEMSET_NODE_PARAMS_v1.value(ms, Float.floatToIntBits(1f));
        long nSet = node((p, dd, n) -> d.cuGraphAddMemsetNode(p, g, dd, n, ms, 0));
        long kScale = kernelNode(axpb, axpbParams(y, x, 2f, 0f));
        long nScale = node((p, dd, n) -> d.cuGraphAddKernelNode_v2(p, g, dd, n, kScale));
        long kAdd = kernelNode(addInto, params(u64(z), u64(y), u32(N)));
        long nAdd = node((p, dd, n) -> d.cuGraphAddKernelNode_v2(p, g, dd, n, kAdd), nSet, nScale);
        MemorySegment count = mem(8);
        assertEquals(0, d.cuGraphGetNodes(g, 0, addr(count)));
        assertEquals(3, i64(count));
        assertEquals(0, d.cuGraphGetEdges_v2(g, 0, 0, 0, addr(count)));
        assertEquals(2, i64(count));
        MemorySegment roots = mem(8 * 4);
        count.set(ValueLayout.JAVA_LONG, 0, 4);
        assertEquals(0, d.cuGraphGetRootNodes(g, addr(roots), addr(count)));
        assertEquals(2, i64(count));
        assertEquals(List.of(nSet, nScale, 0L, 0L), List.of(roots.getAtIndex(ValueLayout.JAVA_LONG, 0), roots.getAtIndex(ValueLayout.JAVA_LONG, 1),
                roots.getAtIndex(ValueLayout.JAVA_LONG, 2), roots.getAtIndex(ValueLayout.JAVA_LONG, 3)), "the room left over is NULL");
        MemorySegment t = mem(4);
        assertEquals(0, d.cuGraphNodeGetType(nAdd, addr(t)));
        assertEquals(Graph.KERNEL, i32(t));
        long got = addr(mem(CUDA_KERNEL_NODE_PARAMS_v2.SIZE));
        assertEquals(0, d.cuGraphKernelNodeGetParams_v2(nScale, got));
        assertEquals(axpb, CUDA_KERNEL_NODE_PARAMS_v2.func(got));
        long arg2 = MemorySegment.ofAddress(CUDA_KERNEL_NODE_PARAMS_v2.kernelParams(got)).reinterpret(40).getAtIndex(ValueLayout.JAVA_LONG, 2);
        assertEquals(2f, MemorySegment.ofAddress(arg2).reinterpret(4).get(ValueLayout.JAVA_FLOAT, 0), "the node's own copy of a");

        long e = instantiate(g);
        assertEquals(0, d.cuGraphLaunch(e, 0));
        assertValues(z, 2f, 1f);
        // the graph can change; the executable graph does not
        long kOther = kernelNode(axpb, axpbParams(y, x, 5f, 0f));
        assertEquals(0, d.cuGraphKernelNodeSetParams_v2(nScale, kOther));
        assertEquals(0, d.cuGraphLaunch(e, 0));
        assertValues(z, 2f, 1f);
        // the executable graph's copy changes
        long kThree = kernelNode(axpb, axpbParams(y, x, 3f, 0f));
        assertEquals(0, d.cuGraphExecKernelNodeSetParams_v2(e, nScale, kThree));
        assertEquals(0, d.cuGraphLaunch(e, 0));
        assertValues(z, 3f, 1f);
        // an update from the edited graph (same topology)
        long info = addr(mem(CUgraphExecUpdateResultInfo_v1.SIZE));
        assertEquals(0, d.cuGraphExecUpdate_v2(e, g, info));
        assertEquals(0, CUgraphExecUpdateResultInfo_v1.result(info));
        assertEquals(0, d.cuGraphLaunch(e, 0));
        assertValues(z, 5f, 1f);
        // a node more: the topology changed
        node((p, dd, n) -> d.cuGraphAddEmptyNode(p, g, dd, n), nAdd);
        assertEquals(UPDATE_FAILURE, d.cuGraphExecUpdate_v2(e, g, info));
        assertEquals(2, CUgraphExecUpdateResultInfo_v1.result(info), "CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED");
        // a disabled kernel node does nothing
        assertEquals(0, d.cuGraphNodeSetEnabled(e, nAdd, 0));
        assertEquals(0, d.cuGraphNodeGetEnabled(e, nAdd, addr(t)));
        assertEquals(0, i32(t));
        assertEquals(0, d.cuGraphLaunch(e, 0));
        assertValues(z, 0f, 1f);
        assertEquals(0, d.cuGraphExecDestroy(e));
        assertEquals(1, d.cuGraphLaunch(e, 0), "CUDA_ERROR_INVALID_VALUE after cuGraphExecDestroy");
        assertEquals(0, d.cuGraphDestroy(g));
        assertEquals(1, d.cuGraphGetNodes(g, 0, addr(count)));
    }

    @Test
    void aCycleIsRefusedAtInstantiation() throws IOException {
        setUpKernels();
        long g = graph();
        long a = node((p, dd, n) -> d.cuGraphAddEmptyNode(p, g, dd, n));
        long b = node((p, dd, n) -> d.cuGraphAddEmptyNode(p, g, dd, n), a);
        assertEquals(0, d.cuGraphAddDependencies_v2(g, addr(u64(b)), addr(u64(a)), 0, 1));
        MemorySegment e = mem(8), err = mem(8);
        assertEquals(1, d.cuGraphInstantiate_v2(addr(e), g, addr(err), 0, 0));
        assertTrue(i64(err) == a || i64(err) == b, "the error node is on the cycle");
        assertEquals(0, d.cuGraphRemoveDependencies_v2(g, addr(u64(b)), addr(u64(a)), 0, 1));
        assertEquals(0, d.cuGraphInstantiate_v2(addr(e), g, addr(err), 0, 0));
        assertEquals(0, i64(err));
    }

    @Test
    void workOnACapturingStreamBecomesAGraphWithForksAndJoins() throws IOException {
        setUpKernels();
        long x = alloc(4L * N), y = alloc(4L * N), z = alloc(4L * N);
        MemorySegment s = mem(8), s2 = mem(8), ev = mem(8), ev2 = mem(8), st = mem(4), graph = mem(8);
        assertEquals(0, d.cuStreamCreate(addr(s), 1));
        assertEquals(0, d.cuStreamCreate(addr(s2), 1));
        assertEquals(0, d.cuEventCreate(addr(ev), 2));
        assertEquals(0, d.cuEventCreate(addr(ev2), 2));
        long h = i64(s), h2 = i64(s2);
        MemorySegment host = mem(4L * N);
        MemorySegment.copy(ramp(), 0, host, ValueLayout.JAVA_FLOAT, 0, N);
        assertEquals(0, d.cuStreamBeginCapture_v2(h, StreamCapture.MODE_GLOBAL));
        assertEquals(ILLEGAL_STATE, d.cuStreamBeginCapture_v2(h, StreamCapture.MODE_GLOBAL), "a capture is going on");
        assertEquals(0, d.cuMemcpyHtoDAsync_v2(x, addr(host), 4L * N, h));
        assertEquals(0, d.cuMemsetD32Async(z, 0, N, h));
        assertEquals(0, d.cuEventRecord(i64(ev), h));
        assertEquals(0, d.cuStreamWaitEvent(h2, i64(ev), 0));
        assertEquals(0, d.cuStreamIsCapturing(h2, addr(st)));
        assertEquals(StreamCapture.STATUS_ACTIVE, i32(st), "the waiting stream joined the capture");
        assertEquals(0, d.cuLaunchKernel(axpb, N / 64, 1, 1, 64, 1, 1, 0, h2, axpbParams(y, x, 4f, 0f), 0));
        assertEquals(0, d.cuEventRecord(i64(ev2), h2));
        assertEquals(CAPTURED_EVENT, d.cuEventQuery(i64(ev2)));
        assertEquals(0, d.cuStreamWaitEvent(h, i64(ev2), 0));
        assertEquals(0, d.cuLaunchKernel(addInto, N / 64, 1, 1, 64, 1, 1, 0, h, params(u64(z), u64(y), u32(N)), 0));
        float[] before = read(y);
        assertEquals(0f, before[5], "nothing ran while capturing");
        assertEquals(0, d.cuStreamEndCapture(h, addr(graph)));
        assertEquals(0, d.cuStreamIsCapturing(h2, addr(st)));
        assertEquals(StreamCapture.STATUS_NONE, i32(st));
        MemorySegment count = mem(8);
        assertEquals(0, d.cuGraphGetNodes(i64(graph), 0, addr(count)));
        assertEquals(4, i64(count), "copy, memset, axpb, addInto");
        assertEquals(0, d.cuGraphGetEdges(i64(graph), 0, 0, addr(count)));
        assertEquals(4, i64(count), "copy->memset, memset->axpb, memset->addInto, axpb->addInto");
        long e = instantiate(i64(graph));
        assertEquals(0, d.cuGraphLaunch(e, h));
        assertEquals(0, d.cuGraphLaunch(e, h));
        assertValues(z, 4f, 0f);
    }

    @Test
    void aForkNotJoinedBackFailsTheCapture() throws IOException {
        setUpKernels();
        long y = alloc(4L * N);
        MemorySegment s = mem(8), s2 = mem(8), ev = mem(8), graph = mem(8), st = mem(4);
        assertEquals(0, d.cuStreamCreate(addr(s), 1));
        assertEquals(0, d.cuStreamCreate(addr(s2), 1));
        assertEquals(0, d.cuEventCreate(addr(ev), 2));
        long h = i64(s), h2 = i64(s2);
        assertEquals(0, d.cuStreamBeginCapture_v2(h, StreamCapture.MODE_GLOBAL));
        assertEquals(0, d.cuEventRecord(i64(ev), h));
        assertEquals(0, d.cuStreamWaitEvent(h2, i64(ev), 0));
        assertEquals(0, d.cuMemsetD32Async(y, 0, N, h2));
        assertEquals(StreamCapture.STREAM_CAPTURE_UNMATCHED, d.cuStreamEndCapture(h2, addr(graph)), "s2 did not begin the capture");
        graph.set(ValueLayout.JAVA_LONG, 0, -1);
        assertEquals(UNJOINED, d.cuStreamEndCapture(h, addr(graph)));
        assertEquals(0, i64(graph), "no graph");
        assertEquals(0, d.cuStreamIsCapturing(h2, addr(st)));
        assertEquals(StreamCapture.STATUS_NONE, i32(st), "the forked stream is released");
    }

    @Test
    void potentiallyUnsafeCallsFollowEachThreadsCaptureMode() throws Exception {
        setUpKernels();
        MemorySegment s = mem(8), graph = mem(8), st = mem(4), p = mem(8), mode = mem(4);
        assertEquals(0, d.cuStreamCreate(addr(s), 1));
        long h = i64(s), y = alloc(64);
        // global: this thread may not allocate; the capture is invalidated
        assertEquals(0, d.cuStreamBeginCapture_v2(h, StreamCapture.MODE_GLOBAL));
        assertEquals(UNSUPPORTED, d.cuMemAlloc_v2(addr(p), 64));
        assertEquals(0, d.cuStreamIsCapturing(h, addr(st)));
        assertEquals(StreamCapture.STATUS_INVALIDATED, i32(st));
        assertEquals(INVALIDATED, d.cuMemsetD8Async(y, 0, 64, h), "an invalidated capture takes no more work");
        assertEquals(INVALIDATED, d.cuStreamEndCapture(h, addr(graph)));
        // relaxed: allowed
        assertEquals(0, d.cuStreamBeginCapture_v2(h, StreamCapture.MODE_RELAXED));
        assertEquals(0, d.cuMemAlloc_v2(addr(p), 64));
        assertEquals(0, d.cuMemFree_v2(i64(p)));
        assertEquals(0, d.cuStreamEndCapture(h, addr(graph)));
        // another thread captures in global mode: this thread is held to it in global mode, not in thread-local mode
        AtomicInteger begun = new AtomicInteger(-1), ended = new AtomicInteger(-1);
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1), done = new java.util.concurrent.CountDownLatch(1);
        long ctx = i64(ctxOf());
        Thread other = new Thread(() -> {
            try (var a = java.lang.foreign.Arena.ofConfined()) {
                d.cuCtxSetCurrent(ctx);
                begun.set(d.cuStreamBeginCapture_v2(h, StreamCapture.MODE_GLOBAL));
                started.countDown();
                done.await();
                MemorySegment gg = a.allocate(8);
                ended.set(d.cuStreamEndCapture(h, gg.address()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        other.start();
        started.await();
        assertEquals(0, begun.get());
        mode.set(ValueLayout.JAVA_INT, 0, StreamCapture.MODE_THREAD_LOCAL);
        assertEquals(0, d.cuThreadExchangeStreamCaptureMode(addr(mode)));
        assertEquals(StreamCapture.MODE_GLOBAL, i32(mode), "the mode given back");
        assertEquals(0, d.cuMemAlloc_v2(addr(p), 64), "thread-local mode ignores the other thread's capture");
        assertEquals(0, d.cuMemFree_v2(i64(p)));
        mode.set(ValueLayout.JAVA_INT, 0, StreamCapture.MODE_GLOBAL);
        assertEquals(0, d.cuThreadExchangeStreamCaptureMode(addr(mode)));
        assertEquals(UNSUPPORTED, d.cuMemAlloc_v2(addr(p), 64), "global mode does not");
        assertEquals(WRONG_THREAD, d.cuStreamEndCapture(h, addr(graph)), "a global capture ends on the thread that began it");
        done.countDown();
        other.join();
        assertEquals(INVALIDATED, ended.get(), "the unsafe call invalidated the other thread's capture");
    }

    private MemorySegment ctxOf() {
        MemorySegment c = mem(8);
        assertEquals(0, d.cuCtxGetCurrent(addr(c)));
        return c;
    }

    @Test
    void synchronisingACaptureOrTheLegacyStreamInvalidatesIt() throws IOException {
        setUpKernels();
        long y = alloc(4L * N);
        MemorySegment s = mem(8), blocking = mem(8), graph = mem(8), host = mem(4L * N);
        assertEquals(0, d.cuStreamCreate(addr(s), 1));
        assertEquals(0, d.cuStreamCreate(addr(blocking), 0));
        assertEquals(0, d.cuStreamBeginCapture_v2(i64(s), StreamCapture.MODE_GLOBAL));
        assertEquals(0, d.cuMemcpyHtoD_v2(y, addr(host), 4L * N), "a non-blocking stream captures: the legacy stream is free");
        assertEquals(UNSUPPORTED, d.cuStreamSynchronize(i64(s)));
        assertEquals(INVALIDATED, d.cuStreamEndCapture(i64(s), addr(graph)));
        assertEquals(0, d.cuStreamBeginCapture_v2(i64(blocking), StreamCapture.MODE_GLOBAL));
        assertEquals(IMPLICIT, d.cuMemcpyHtoD_v2(y, addr(host), 4L * N), "the legacy stream would wait for the capture");
        assertEquals(INVALIDATED, d.cuStreamEndCapture(i64(blocking), addr(graph)));
        assertEquals(UNSUPPORTED, d.cuStreamBeginCapture_v2(0, StreamCapture.MODE_GLOBAL), "the legacy stream cannot capture");
    }

    @Test
    void graphMemoryIsReservedWhenItsNodeIsMadeAndMappedWhileTheGraphRuns() throws IOException {
        setUpKernels();
        long y = alloc(4L * N);
        write(y, new float[N]);
        long g = graph();
        long ap = addr(mem(CUDA_MEM_ALLOC_NODE_PARAMS_v1.SIZE));
        long props = ap + CUDA_MEM_ALLOC_NODE_PARAMS_v1.OFF_poolProps;
        CUmemPoolProps.allocType(props, 1);
        CUmemPoolProps.location_type(props, 1);
        CUDA_MEM_ALLOC_NODE_PARAMS_v1.bytesize(ap, 4L * N);
        long nAlloc = node((p, dd, n) -> d.cuGraphAddMemAllocNode(p, g, dd, n, ap));
        long tmp = CUDA_MEM_ALLOC_NODE_PARAMS_v1.dptr(ap);
        assertNotEquals(0, tmp);
        long ms = addr(mem(CUDA_MEMSET_NODE_PARAMS_v1.SIZE));
        CUDA_MEMSET_NODE_PARAMS_v1.dst(ms, tmp);
        CUDA_MEMSET_NODE_PARAMS_v1.elementSize(ms, 4);
        CUDA_MEMSET_NODE_PARAMS_v1.width(ms, N);
        CUDA_MEMSET_NODE_PARAMS_v1.height(ms, 1);
        CUDA_MEMSET_NODE_PARAMS_v1.value(ms, Float.floatToIntBits(2f));
        long nSet = node((p, dd, n) -> d.cuGraphAddMemsetNode(p, g, dd, n, ms, 0), nAlloc);
        long k = kernelNode(addInto, params(u64(y), u64(tmp), u32(N)));
        long nAdd = node((p, dd, n) -> d.cuGraphAddKernelNode_v2(p, g, dd, n, k), nSet);
        node((p, dd, n) -> d.cuGraphAddMemFreeNode(p, g, dd, n, tmp), nAdd);
        MemorySegment v = mem(8);
        assertEquals(0, d.cuDeviceGetGraphMemAttribute(0, 2, addr(v)));
        assertEquals(4L * N, i64(v), "CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT");
        long e = instantiate(g);
        assertEquals(0, d.cuGraphDestroy(g));
        assertEquals(0, d.cuGraphLaunch(e, 0));
        assertEquals(0, d.cuGraphLaunch(e, 0));
        assertValues(y, 0f, 4f);
        assertEquals(0, d.cuDeviceGetGraphMemAttribute(0, 1, addr(v)));
        assertEquals(4L * N, i64(v), "CU_GRAPH_MEM_ATTR_USED_MEM_HIGH");
        assertEquals(0, d.cuDeviceGetGraphMemAttribute(0, 0, addr(v)));
        assertEquals(0, i64(v), "freed by the graph's free node");
        MemorySegment base = mem(8), size = mem(8);
        assertEquals(500, d.cuMemGetAddressRange_v2(addr(base), addr(size), tmp), "not accessible after its free node");
        assertEquals(0, d.cuGraphExecDestroy(e));
        assertEquals(0, d.cuDeviceGetGraphMemAttribute(0, 2, addr(v)));
        assertEquals(0, i64(v), "released with its last graph");
    }

    @Test
    void aWhileNodeRunsItsBodyUntilAKernelClearsTheCondition() throws IOException {
        initWithContext();
        long m = load(Files.readString(Path.of("src/test/resources/graphs/conditional.ptx")));
        long countdown = function(m, "countdown");
        long counter = alloc(4);
        long g = graph();
        MemorySegment handle = mem(8);
        assertEquals(0, d.cuGraphConditionalHandleCreate(addr(handle), g, 0, 1, GraphArea.COND_ASSIGN_DEFAULT));
        long np = addr(mem(CUgraphNodeParams.SIZE));
        CUgraphNodeParams.type(np, Graph.CONDITIONAL);
        long c = np + CUgraphNodeParams.OFF_kernel;
        CUDA_CONDITIONAL_NODE_PARAMS.handle(c, i64(handle));
        CUDA_CONDITIONAL_NODE_PARAMS.type(c, 1); // while
        CUDA_CONDITIONAL_NODE_PARAMS.size(c, 1);
        node((p, dd, n) -> d.cuGraphAddNode_v2(p, g, dd, 0, n, np));
        long body = MemorySegment.ofAddress(CUDA_CONDITIONAL_NODE_PARAMS.phGraph_out(c)).reinterpret(8).get(ValueLayout.JAVA_LONG, 0);
        long kp = addr(mem(CUDA_KERNEL_NODE_PARAMS_v2.SIZE));
        CUDA_KERNEL_NODE_PARAMS_v2.func(kp, countdown);
        CUDA_KERNEL_NODE_PARAMS_v2.gridDimX(kp, 1);
        CUDA_KERNEL_NODE_PARAMS_v2.gridDimY(kp, 1);
        CUDA_KERNEL_NODE_PARAMS_v2.gridDimZ(kp, 1);
        CUDA_KERNEL_NODE_PARAMS_v2.blockDimX(kp, 32);
        CUDA_KERNEL_NODE_PARAMS_v2.blockDimY(kp, 1);
        CUDA_KERNEL_NODE_PARAMS_v2.blockDimZ(kp, 1);
        CUDA_KERNEL_NODE_PARAMS_v2.kernelParams(kp, params(u64(counter), u64(i64(handle))));
        node((p, dd, n) -> d.cuGraphAddKernelNode_v2(p, body, dd, n, kp));
        long e = instantiate(g);
        MemorySegment h = mem(4);
        h.set(ValueLayout.JAVA_INT, 0, 5);
        assertEquals(0, d.cuMemcpyHtoD_v2(counter, addr(h), 4));
        assertEquals(0, d.cuGraphLaunch(e, 0));
        assertEquals(0, d.cuMemcpyDtoH_v2(addr(h), counter, 4));
        assertEquals(0, i32(h), "the body ran five times");
        h.set(ValueLayout.JAVA_INT, 0, 3);
        assertEquals(0, d.cuMemcpyHtoD_v2(counter, addr(h), 4));
        assertEquals(0, d.cuGraphLaunch(e, 0));
        assertEquals(0, d.cuMemcpyDtoH_v2(addr(h), counter, 4));
        assertEquals(0, i32(h), "the default value (1) was assigned again at the launch");
    }

    @Test
    void kernelSnapshotsOfAGraphLaunchBracketTheWholeGraph() throws IOException {
        setUpKernels();
        long x = alloc(4L * N), y = alloc(4L * N);
        write(x, ramp());
        long g = graph();
        long k1 = kernelNode(axpb, axpbParams(y, x, 2f, 0f));
        long n1 = node((p, dd, n) -> d.cuGraphAddKernelNode_v2(p, g, dd, n, k1));
        long k2 = kernelNode(addInto, params(u64(y), u64(x), u32(N)));
        node((p, dd, n) -> d.cuGraphAddKernelNode_v2(p, g, dd, n, k2), n1);
        long e = instantiate(g);
        List<String> seen = new ArrayList<>();
        d.launchObserver(new LaunchObserver() {
            @Override
            public boolean wants(String kernelName) {
                return true;
            }

            @Override
            public Object before(KernelLaunch launch) {
                float y3 = java.nio.ByteBuffer.wrap(launch.memory().read(y, 4L * N)).order(java.nio.ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(3);
                seen.add("before " + launch.name() + " y[3]=" + y3);
                return launch.name();
            }

            @Override
            public void after(Object token, KernelLaunch launch, int result) {
                float y3 = java.nio.ByteBuffer.wrap(launch.memory().read(y, 4L * N)).order(java.nio.ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(3);
                seen.add("after " + token + " y[3]=" + y3 + " result " + result);
            }
        });
        assertEquals(0, d.cuGraphLaunch(e, 0));
        assertEquals(List.of("before axpb y[3]=0.0", "before addInto y[3]=0.0", "after axpb y[3]=9.0 result 0", "after addInto y[3]=9.0 result 0"), seen,
                "both before-images before the graph ran, both after-images after it, in node order");
    }

    @Test
    void aGraphLaunchedWhileCapturingBecomesAChildGraphNode() throws IOException {
        setUpKernels();
        long y = alloc(4L * N), x = alloc(4L * N);
        write(x, ramp());
        long g = graph();
        long k = kernelNode(axpb, axpbParams(y, x, 1f, 7f));
        node((p, dd, n) -> d.cuGraphAddKernelNode_v2(p, g, dd, n, k));
        long e = instantiate(g);
        MemorySegment s = mem(8), outer = mem(8), nodes = mem(16), count = mem(8), t = mem(4);
        assertEquals(0, d.cuStreamCreate(addr(s), 1));
        assertEquals(0, d.cuStreamBeginCapture_v2(i64(s), StreamCapture.MODE_GLOBAL));
        assertEquals(0, d.cuGraphLaunch(e, i64(s)));
        assertEquals(0, d.cuStreamEndCapture(i64(s), addr(outer)));
        count.set(ValueLayout.JAVA_LONG, 0, 2);
        assertEquals(0, d.cuGraphGetNodes(i64(outer), addr(nodes), addr(count)));
        assertEquals(1, i64(count));
        assertEquals(0, d.cuGraphNodeGetType(nodes.get(ValueLayout.JAVA_LONG, 0), addr(t)));
        assertEquals(Graph.GRAPH, i32(t));
        assertValues(y, 0f, 0f);
        long e2 = instantiate(i64(outer));
        assertEquals(0, d.cuGraphLaunch(e2, i64(s)));
        assertValues(y, 1f, 7f);
    }

    @Test
    void aCaptureIntoTheProgramsGraphMayEndWithoutAGraphPointer() throws IOException {
        // graphConditionalNodes of the cuda-samples ends a cudaStreamBeginCaptureToGraph capture with
        // cudaStreamEndCapture(stream, nullptr), which NVIDIA's driver accepts; a capture of its own still needs phGraph
        setUpKernels();
        long y = alloc(4L * N), x = alloc(4L * N);
        write(x, ramp());
        long g = graph();
        MemorySegment s = mem(8), count = mem(8);
        assertEquals(0, d.cuStreamCreate(addr(s), 1));
        assertEquals(0, d.cuStreamBeginCapture_v2(i64(s), StreamCapture.MODE_GLOBAL));
        assertEquals(1, d.cuStreamEndCapture(i64(s), 0), "CUDA_ERROR_INVALID_VALUE: the capture's own graph has nowhere to go");
        assertEquals(StreamCapture.STATUS_ACTIVE, capturing(i64(s)), "a refused end leaves the capture going");
        MemorySegment own = mem(8);
        assertEquals(0, d.cuStreamEndCapture(i64(s), addr(own)));
        assertEquals(0, d.cuStreamBeginCaptureToGraph(i64(s), g, 0, 0, 0, StreamCapture.MODE_GLOBAL));
        assertEquals(0, d.cuLaunchKernel(axpb, N / 64, 1, 1, 64, 1, 1, 0, i64(s), axpbParams(y, x, 2f, 1f), 0));
        assertEquals(0, d.cuStreamEndCapture(i64(s), 0));
        assertEquals(StreamCapture.STATUS_NONE, capturing(i64(s)));
        assertEquals(0, d.cuGraphGetNodes(g, 0, addr(count)));
        assertEquals(1, i64(count), "the kernel went into the program's graph");
        assertEquals(0, d.cuGraphLaunch(instantiate(g), i64(s)));
        assertValues(y, 2f, 1f);
    }

    private int capturing(long stream) {
        MemorySegment st = mem(4);
        assertEquals(0, d.cuStreamIsCapturing(stream, addr(st)));
        return i32(st);
    }

    @Test
    void aGraphIsWrittenAsDot() throws IOException {
        setUpKernels();
        long g = graph();
        long k = kernelNode(axpb, axpbParams(alloc(4L * N), alloc(4L * N), 1f, 0f));
        long a = node((p, dd, n) -> d.cuGraphAddKernelNode_v2(p, g, dd, n, k));
        node((p, dd, n) -> d.cuGraphAddEmptyNode(p, g, dd, n), a);
        Path f = Files.createTempFile("graph", ".dot");
        try {
            assertEquals(0, d.cuGraphDebugDotPrint(g, cstr(f.toString()), 1));
            String dot = Files.readString(f);
            assertTrue(dot.startsWith("digraph dot {"), dot);
            assertTrue(dot.contains("KERNEL\\naxpb\\ngrid (4,1,1) block (64,1,1)"), dot);
            assertTrue(dot.contains("_node_0\" -> \""), dot);
        } finally {
            Files.deleteIfExists(f);
        }
    }

    @Test
    void callsAfterTheDriverWasDeinitialisedAnswerDeinitialized() {
        initWithContext();
        MemorySegment c = mem(8);
        assertEquals(0, d.cuCtxGetCurrent(addr(c)));
        d.deinitialize();
        assertEquals(CuResult.DEINITIALIZED, d.cuCtxGetCurrent(addr(c)));
        assertEquals(CuResult.DEINITIALIZED, d.cuDevicePrimaryCtxRelease_v2(0));
    }
}
