package dev.zluda.replay;

import dev.zluda.spec.Role;
import dev.zluda.capture.CaptureFormat;
import dev.zluda.capture.CaptureWriter;
import dev.zluda.capture.DataItems;
import dev.zluda.capture.FunctionDef;
import dev.zluda.capture.ThreadLog;
import dev.zluda.spec.CudaApi;
import dev.zluda.spec.CudaFunction;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.function.IntSupplier;

/**
 * A {@link Driver} that records every call it forwards into a capture (trace-format/FORMAT.md), the
 * way the trace layers do at level {@code replay}: raw argument values, handles and values returned
 * through out-parameters inline, the host side of every copy as a BLOB, the kernel name as a string.
 * So a replay is itself a capture that {@code zluda dump}, {@code info} and {@code diff} read.
 */
final class RecordingDriver implements Driver {
    private final Driver d;
    private final CaptureWriter w;
    private final ThreadLog log;
    private final CudaApi api = CudaApi.get();
    private final DataItems in = new DataItems(), out = new DataItems();
    /** The ENTER seq of the last cuLaunchKernel, for the KERNEL record. */
    long lastLaunchSeq = -1;

    RecordingDriver(Driver d, Path captureFile) throws IOException {
        this.d = d;
        this.w = CaptureWriter.create(captureFile, CaptureWriter.Options.defaults().withChunkSize(64 << 10), FunctionDef.fromSpec(api));
        this.log = w.currentThread();
    }

    /** The thread log, for BLOB, MODULE and KERNEL records of the replay. */
    ThreadLog log() {
        return log;
    }

    /** Ends the capture (PROCESS_END with the replay's exit code). */
    void finish(int status) throws IOException {
        w.close(CaptureFormat.END_EXIT, status);
    }

    private interface Outputs {
        void write(DataItems out);
    }

    private int rec(String name, long[] args, Outputs outputs, IntSupplier body) {
        CudaFunction f = api.function(name).orElseThrow(() -> new IllegalStateException("the spec has no " + name));
        long seq = log.enter(f.id(), 0, System.nanoTime(), args, in);
        if (f.is(Role.KERNEL_LAUNCH)) lastLaunchSeq = seq;
        in.clear();
        int r = body.getAsInt();
        out.clear();
        if (r == 0 && outputs != null) outputs.write(out);
        log.leave(seq, System.nanoTime(), r, out);
        out.clear();
        return r;
    }

    private static long u(int v) {
        return Integer.toUnsignedLong(v);
    }

    private static long i64(long address) {
        return MemorySegment.ofAddress(address).reinterpret(8).get(ValueLayout.JAVA_LONG, 0);
    }

    private static int i32(long address) {
        return MemorySegment.ofAddress(address).reinterpret(4).get(ValueLayout.JAVA_INT, 0);
    }

    private long hostBlob(long address, long bytes) {
        byte[] b = MemorySegment.ofAddress(address).reinterpret(bytes).toArray(ValueLayout.JAVA_BYTE);
        return log.blob(b, 0, b.length, CaptureFormat.COMPRESSION_LZ4, System.nanoTime());
    }

    @Override public String describe() { return d.describe(); }
    @Override public String kind() { return d.kind(); }
    @Override public int cuInit(int flags) { return rec("cuInit", new long[] {u(flags)}, null, () -> d.cuInit(flags)); }

    @Override
    public int cuDriverGetVersion(long p) {
        return rec("cuDriverGetVersion", new long[] {p}, o -> o.inlineInt(0, i32(p)), () -> d.cuDriverGetVersion(p));
    }

    @Override
    public int cuDeviceGet(long p, int ordinal) {
        return rec("cuDeviceGet", new long[] {p, u(ordinal)}, o -> o.inlineInt(0, i32(p)), () -> d.cuDeviceGet(p, ordinal));
    }

    @Override
    public int cuDeviceGetName(long name, int len, int dev) {
        return rec("cuDeviceGetName", new long[] {name, u(len), u(dev)},
                o -> o.inlineString(0, MemorySegment.ofAddress(name).reinterpret(len).getString(0)), () -> d.cuDeviceGetName(name, len, dev));
    }

    @Override
    public int cuDevicePrimaryCtxRetain(long p, int dev) {
        return rec("cuDevicePrimaryCtxRetain", new long[] {p, u(dev)}, o -> o.inlineLong(0, i64(p)), () -> d.cuDevicePrimaryCtxRetain(p, dev));
    }

    @Override
    public int cuDevicePrimaryCtxRelease_v2(int dev) {
        return rec("cuDevicePrimaryCtxRelease_v2", new long[] {u(dev)}, null, () -> d.cuDevicePrimaryCtxRelease_v2(dev));
    }

    @Override public int cuCtxSetCurrent(long ctx) { return rec("cuCtxSetCurrent", new long[] {ctx}, null, () -> d.cuCtxSetCurrent(ctx)); }
    @Override public int cuCtxSynchronize() { return rec("cuCtxSynchronize", new long[0], null, d::cuCtxSynchronize); }

    @Override
    public int cuModuleLoadDataEx(long p, long image, int n, long o, long v) {
        return rec("cuModuleLoadDataEx", new long[] {p, image, u(n), o, v}, x -> x.inlineLong(0, i64(p)), () -> d.cuModuleLoadDataEx(p, image, n, o, v));
    }

    @Override
    public int cuModuleGetFunction(long p, long m, long name) {
        in.inlineString(2, MemorySegment.ofAddress(name).reinterpret(4096).getString(0));
        return rec("cuModuleGetFunction", new long[] {p, m, name}, o -> o.inlineLong(0, i64(p)), () -> d.cuModuleGetFunction(p, m, name));
    }

    @Override public int cuModuleUnload(long m) { return rec("cuModuleUnload", new long[] {m}, null, () -> d.cuModuleUnload(m)); }

    @Override
    public int cuMemAlloc_v2(long p, long bytes) {
        return rec("cuMemAlloc_v2", new long[] {p, bytes}, o -> o.inlineLong(0, i64(p)), () -> d.cuMemAlloc_v2(p, bytes));
    }

    @Override public int cuMemFree_v2(long p) { return rec("cuMemFree_v2", new long[] {p}, null, () -> d.cuMemFree_v2(p)); }

    @Override
    public int cuMemcpyHtoD_v2(long dst, long src, long n) {
        in.blob(1, hostBlob(src, n), n);
        return rec("cuMemcpyHtoD_v2", new long[] {dst, src, n}, null, () -> d.cuMemcpyHtoD_v2(dst, src, n));
    }

    @Override
    public int cuMemcpyDtoH_v2(long dst, long src, long n) {
        return rec("cuMemcpyDtoH_v2", new long[] {dst, src, n}, o -> o.blob(0, hostBlob(dst, n), n), () -> d.cuMemcpyDtoH_v2(dst, src, n));
    }

    @Override
    public int cuLaunchKernel(long f, int gx, int gy, int gz, int bx, int by, int bz, int shared, long stream, long params, long extra) {
        return rec("cuLaunchKernel", new long[] {f, u(gx), u(gy), u(gz), u(bx), u(by), u(bz), u(shared), stream, params, extra}, null,
                () -> d.cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra));
    }

    @Override
    public int cuGetErrorName(int e, long p) {
        return rec("cuGetErrorName", new long[] {u(e), p}, null, () -> d.cuGetErrorName(e, p));
    }

    @Override
    public int call(CudaFunction f, long[] args) {
        return call(f, args, java.util.Map.of(), java.util.Map.of());
    }

    /**
     * A generic call, recorded with the given input data and, after a successful call, the memory
     * of the given output regions.
     *
     * @param inData bytes behind input pointer parameters, by parameter index
     * @param outRegions {address, bytes} of output pointer parameters, by parameter index
     */
    int call(CudaFunction f, long[] args, java.util.Map<Integer, byte[]> inData, java.util.Map<Integer, long[]> outRegions) {
        for (var e : inData.entrySet()) item(in, e.getKey(), e.getValue());
        return rec(f.name(), args, o -> {
            for (var e : outRegions.entrySet()) {
                long[] r = e.getValue();
                item(o, e.getKey(), MemorySegment.ofAddress(r[0]).reinterpret(r[1]).toArray(ValueLayout.JAVA_BYTE));
            }
        }, () -> d.call(f, args));
    }

    private void item(DataItems items, int param, byte[] b) {
        if (b.length <= 4096) items.inline(param, b, 0, b.length);
        else items.blob(param, log.blob(b, 0, b.length, CaptureFormat.COMPRESSION_LZ4, System.nanoTime()), b.length);
    }

    @Override
    public void close() {
        d.close();
    }
}
