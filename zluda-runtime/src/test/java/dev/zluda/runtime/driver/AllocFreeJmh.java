package dev.zluda.runtime.driver;

import dev.zluda.spec.CudaApi;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

/**
 * JMH: {@code cuMemAlloc_v2} + {@code cuMemFree_v2} pairs per second on the emulator device, from 1 and from 16 host
 * threads at once, each thread with the same primary context current (the driver called directly, as the native
 * entry calls it). One operation is one pair of {@code bytes} bytes. Scaling means the 16-thread figure is not far
 * below the 1-thread one on a machine with fewer cores than threads, and above it where there are more.
 *
 * <p>The baseline, in the same run ({@code sharedArena1}, {@code sharedArena16}): what each allocation cost before
 * the driver took its memory from the C heap ({@code HostMemory.allocateZeroed}): a shared {@link Arena} per
 * allocation, whose {@code close()} is a handshake with every Java thread, so frees from many threads wait for each
 * other. Run as docs/benchmarks.md ("Allocation from many threads") says; never by {@code mvn verify}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 4, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx1g"})
public class AllocFreeJmh {
    /** Bytes per allocation. */
    @Param({"4096"})
    public long bytes;

    ZludaDriver driver;
    long context;

    @Setup
    public void setUp() {
        driver = new ZludaDriver(CudaApi.get(), MemorySegment.NULL);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ctx = a.allocate(8);
            check(driver.cuInit(0), "cuInit");
            check(driver.cuDevicePrimaryCtxRetain(ctx.address(), 0), "cuDevicePrimaryCtxRetain");
            context = ctx.get(ValueLayout.JAVA_LONG, 0);
        }
    }

    /** Each thread's out-parameter, with the context made current on that thread. */
    @State(Scope.Thread)
    public static class PerThread {
        final Arena arena = Arena.ofConfined();
        final MemorySegment out = arena.allocate(8, 8);
        boolean current;

        void ensureCurrent(AllocFreeJmh b) {
            if (!current) {
                check(b.driver.cuCtxSetCurrent(b.context), "cuCtxSetCurrent");
                current = true;
            }
        }

        @TearDown
        public void close() {
            arena.close();
        }
    }

    private static void check(int r, String call) {
        if (r != 0) throw new IllegalStateException(call + " returned " + r);
    }

    private long allocFree(PerThread t) {
        t.ensureCurrent(this);
        int r = driver.cuMemAlloc_v2(t.out.address(), bytes);
        if (r != 0) throw new IllegalStateException("cuMemAlloc_v2 returned " + r);
        long p = t.out.get(ValueLayout.JAVA_LONG, 0);
        r = driver.cuMemFree_v2(p);
        if (r != 0) throw new IllegalStateException("cuMemFree_v2 returned " + r);
        return p;
    }

    private long sharedArena() {
        Arena a = Arena.ofShared();
        long p = a.allocate(bytes, 256).address();
        a.close();
        return p;
    }

    @Benchmark
    @Threads(1)
    public long allocFree1(PerThread t) {
        return allocFree(t);
    }

    @Benchmark
    @Threads(16)
    public long allocFree16(PerThread t) {
        return allocFree(t);
    }

    @Benchmark
    @Threads(1)
    public long sharedArena1() {
        return sharedArena();
    }

    @Benchmark
    @Threads(16)
    public long sharedArena16() {
        return sharedArena();
    }

    /** Runs this class's benchmarks (only these) with JMH's command-line options. */
    public static void main(String[] args) throws Exception {
        new Runner(new OptionsBuilder().parent(new CommandLineOptions(args)).include(AllocFreeJmh.class.getName()).build()).run();
    }
}
