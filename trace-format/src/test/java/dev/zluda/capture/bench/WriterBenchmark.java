package dev.zluda.capture.bench;

import dev.zluda.capture.CaptureWriter;
import dev.zluda.capture.DataItems;
import dev.zluda.capture.FunctionDef;
import dev.zluda.capture.ThreadLog;
import dev.zluda.spec.CudaApi;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Java capture writer throughput, one thread: one operation = one call (ENTER + LEAVE) written
 * into a mapped capture file. Run: see docs/benchmarks.md.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class WriterBenchmark {
    CaptureWriter w;
    ThreadLog t;
    Path file;
    final DataItems out = new DataItems();
    final long[] ctxArgs = {0x7ffd12345670L};
    final long[] launchArgs = {0x55d0c0a81230L, 64, 1, 1, 256, 1, 1, 0, 0, 0x7ffd12345700L, 0};
    int ctxGetCurrent, launchKernel;
    long ts;

    @Setup(Level.Iteration)
    public void open() throws Exception {
        CudaApi api = CudaApi.get();
        ctxGetCurrent = api.function("cuCtxGetCurrent").orElseThrow().id();
        launchKernel = api.function("cuLaunchKernel").orElseThrow().id();
        file = Files.createTempFile(Path.of(System.getProperty("bench.dir", System.getProperty("java.io.tmpdir"))), "bench", ".zcap");
        w = CaptureWriter.create(file, CaptureWriter.Options.defaults(), FunctionDef.fromSpec(api));
        t = w.currentThread();
        ts = System.nanoTime();
    }

    @TearDown(Level.Iteration)
    public void close() throws Exception {
        w.close();
        Files.deleteIfExists(file);
    }

    /** cuCtxGetCurrent: one pointer argument, the 8-byte CUcontext as output data; timestamps given. */
    @Benchmark
    public long ctxGetCurrent() {
        long e = t.enter(ctxGetCurrent, 0, ts += 40, ctxArgs, null);
        return t.leave(e, ts += 20, 0, out.clear().inlineLong(0, 0x55d0c0a80000L));
    }

    /** cuLaunchKernel: 11 arguments (kernel parameters not followed), no output data. */
    @Benchmark
    public long launchKernel() {
        long e = t.enter(launchKernel, 0, ts += 3000, launchArgs, null);
        return t.leave(e, ts += 500, 0, null);
    }

    /** cuCtxGetCurrent with System.nanoTime() taken at enter and leave, as a tracer would. */
    @Benchmark
    public long ctxGetCurrentWithClock() {
        long e = t.enter(ctxGetCurrent, 0, System.nanoTime(), ctxArgs, null);
        return t.leave(e, System.nanoTime(), 0, out.clear().inlineLong(0, 0x55d0c0a80000L));
    }
}
