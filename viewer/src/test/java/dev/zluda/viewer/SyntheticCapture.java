package dev.zluda.viewer;

import dev.zluda.capture.CaptureFormat;
import dev.zluda.capture.CaptureWriter;
import dev.zluda.capture.DataItems;
import dev.zluda.capture.FunctionDef;
import dev.zluda.capture.ThreadLog;
import dev.zluda.spec.CudaApi;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Writes a capture like a small CUDA program's, of any size, with {@link CaptureWriter}: a PTX
 * module (MODULE record and an LZ4 blob, no dump file), {@code cuModuleLoadData},
 * {@code cuModuleGetFunction}, then rounds of allocate / copy (the payload as a blob) / launch (with
 * a nested call) / synchronize / free spread over several threads, every 997th synchronize failing
 * with {@code CUDA_ERROR_ILLEGAL_ADDRESS}. Used by the tests (small) and by the viewer benchmark
 * (docs/benchmarks.md):
 *
 * <pre>java -cp ... dev.zluda.viewer.SyntheticCapture DIR CALLS [THREADS]</pre>
 */
public final class SyntheticCapture {
    /** The module's PTX. */
    public static final String PTX = """
            //
            // vectorAdd, as nvcc 13.0 compiles it
            //
            .version 9.0
            .target sm_75
            .address_size 64

            /* a block comment
               over two lines */
            .visible .entry vectorAdd(
            \t.param .u64 vectorAdd_param_0,
            \t.param .u64 vectorAdd_param_1,
            \t.param .u64 vectorAdd_param_2,
            \t.param .u32 vectorAdd_param_3
            )
            {
            \t.reg .pred \t%p<2>;
            \t.reg .f32 \t%f<4>;
            \t.reg .b32 \t%r<6>;
            \t.reg .b64 \t%rd<11>;

            \tld.param.u64 \t%rd1, [vectorAdd_param_0];
            \tld.param.u64 \t%rd2, [vectorAdd_param_1];
            \tld.param.u64 \t%rd3, [vectorAdd_param_2];
            \tld.param.u32 \t%r2, [vectorAdd_param_3];
            \tmov.u32 \t%r3, %ctaid.x;
            \tmov.u32 \t%r4, %ntid.x;
            \tmov.u32 \t%r5, %tid.x;
            \tmad.lo.s32 \t%r1, %r3, %r4, %r5;
            \tsetp.ge.s32 \t%p1, %r1, %r2;
            \t@%p1 bra \t$L__BB0_2;
            \tcvta.to.global.u64 \t%rd4, %rd1;
            \tmul.wide.s32 \t%rd5, %r1, 4;
            \tadd.s64 \t%rd6, %rd4, %rd5;
            \tcvta.to.global.u64 \t%rd7, %rd2;
            \tadd.s64 \t%rd8, %rd7, %rd5;
            \tld.global.f32 \t%f1, [%rd8];
            \tld.global.f32 \t%f2, [%rd6];
            \tadd.f32 \t%f3, %f2, %f1;
            \tcvta.to.global.u64 \t%rd9, %rd3;
            \tadd.s64 \t%rd10, %rd9, %rd5;
            \tst.global.f32 \t[%rd10], %f3;

            $L__BB0_2:
            \tret;

            }
            """;

    /** The module handle and the function handle the capture's calls return. */
    public static final long MODULE = 0x55d6afe6ca40L, FUNCTION = 0x55d6afc3c600L;
    /** Elements of the copied buffer (f32 i * 0.5). */
    public static final int ELEMENTS = 1024;

    private SyntheticCapture() {}

    /** Writes {@code DIR/capture.zcap} and {@code DIR/manifest.json}: {@code CALLS} calls over {@code THREADS} threads (default 4). */
    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: SyntheticCapture DIR CALLS [THREADS]");
            System.exit(2);
        }
        long t0 = System.nanoTime();
        long n = write(Path.of(args[0]), Long.parseLong(args[1].replace("_", "")), args.length > 2 ? Integer.parseInt(args[2]) : 4);
        Path f = Path.of(args[0]).resolve(CaptureFormat.CAPTURE_FILE);
        System.out.printf(Locale.ROOT, "wrote %,d calls to %s (%,d bytes) in %.1f s%n", n, f, Files.size(f), (System.nanoTime() - t0) / 1e9);
    }

    private static int id(String name) {
        return CudaApi.get().function(name).orElseThrow().id();
    }

    /** Writes the capture into {@code dir} (created); returns the number of calls written (at least {@code calls}). */
    public static long write(Path dir, long calls, int threads) throws IOException {
        Files.createDirectories(dir);
        CudaApi api = CudaApi.get();
        int init = id("cuInit"), load = id("cuModuleLoadData"), getFn = id("cuModuleGetFunction"), alloc = id("cuMemAlloc_v2"),
                htod = id("cuMemcpyHtoD_v2"), launch = id("cuLaunchKernel"), current = id("cuCtxGetCurrent"),
                sync = id("cuCtxSynchronize"), free = id("cuMemFree_v2");
        CaptureWriter w = CaptureWriter.create(dir.resolve(CaptureFormat.CAPTURE_FILE),
                CaptureWriter.Options.defaults().withGrowStep(calls > 1_000_000 ? 256L << 20 : 8L << 20), FunctionDef.fromSpec(api));
        ThreadLog[] logs = new ThreadLog[threads];
        for (int t = 0; t < threads; t++) logs[t] = w.thread(1000 + t);
        long ts = System.nanoTime();
        DataItems items = new DataItems();
        ThreadLog main = logs[0];
        main.threadName(1000, "main", ts);
        byte[] ptx = PTX.getBytes(StandardCharsets.UTF_8);
        long ptxHash = main.blob(ptx, 0, ptx.length, CaptureFormat.COMPRESSION_LZ4, ts);
        main.module(1, 1, CaptureFormat.MODULE_PTX, ptxHash, ptx.length, MODULE, "module_0001_01.ptx", ts);
        ByteBuffer payload = ByteBuffer.allocate(ELEMENTS * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < ELEMENTS; i++) payload.putFloat(i * 0.5f);
        long dataHash = main.blob(payload.array(), 0, ELEMENTS * 4, CaptureFormat.COMPRESSION_NONE, ts);

        long n = 0;
        long e = main.enter(init, 0, ts += 2_000, new long[] {0}, null);
        main.leave(e, ts += 200_000, 0, null);
        n++;
        e = main.enter(load, 0, ts += 1_000, new long[] {0x7ffc734aa000L, 0x55d67888e410L}, items.clear().blob(1, ptxHash, ptx.length));
        main.leave(e, ts += 90_000, 0, items.clear().inlineLong(0, MODULE));
        n++;
        e = main.enter(getFn, 0, ts += 1_000, new long[] {0x7ffc734aa008L, MODULE, 0x55d678001000L}, items.clear().inlineString(2, "vectorAdd"));
        main.leave(e, ts += 3_000, 0, items.clear().inlineLong(0, FUNCTION));
        n++;
        long[] allocArgs = new long[2], htodArgs = new long[3], launchArgs = new long[11], one = new long[1], none = new long[0];
        long round = 0;
        while (n < calls) {
            for (int t = 0; t < threads && n < calls; t++) {
                ThreadLog log = logs[t];
                long ptr = 0x7f6a13e00000L + ((round * threads + t) % 4096) * 0x4000L;
                allocArgs[0] = 0x7ffc734ab000L + t * 64;
                allocArgs[1] = ELEMENTS * 4;
                e = log.enter(alloc, 0, ts += 150, allocArgs, null);
                log.leave(e, ts += 900, 0, items.clear().inlineLong(0, ptr));
                htodArgs[0] = ptr;
                htodArgs[1] = 0x55d6aec772b0L + t * 0x10000;
                htodArgs[2] = ELEMENTS * 4;
                e = log.enter(htod, 0, ts += 120, htodArgs, items.clear().blob(1, dataHash, ELEMENTS * 4));
                log.leave(e, ts += 2_500, 0, null);
                launchArgs[0] = FUNCTION;
                launchArgs[1] = 16;
                launchArgs[2] = 1;
                launchArgs[3] = 1;
                launchArgs[4] = 256;
                launchArgs[5] = 1;
                launchArgs[6] = 1;
                launchArgs[9] = 0x7ffc734aa860L;
                e = log.enter(launch, 0, ts += 130, launchArgs, null);
                one[0] = 0x7ffc734aa900L;
                long inner = log.enter(current, 1, ts += 40, one, null);
                log.leave(inner, ts += 30, 0, items.clear().inlineLong(0, 0x55d6aecc6dd0L));
                log.leave(e, ts += 3_200, 0, null);
                boolean fail = round % 997 == 996 && t == 0;
                e = log.enter(sync, 0, ts += 100, none, null);
                log.leave(e, ts += 9_000, fail ? 700 : 0, null);
                one[0] = ptr;
                e = log.enter(free, 0, ts += 90, one, null);
                log.leave(e, ts += 800, fail ? 700 : 0, null);
                n += 6;
            }
            round++;
        }
        w.close();
        String manifest = """
                {"formatVersion": "1.0", "program": "/tmp/synthetic", "arguments": [], "pid": %d, "host": "test",
                 "driver": {"name": "synthetic", "version": 13000}, "tool": {"name": "SyntheticCapture", "version": "0"},
                 "capture": {"data": "replay", "chunkSize": 262144}}
                """.formatted(ProcessHandle.current().pid());
        Files.writeString(dir.resolve(CaptureFormat.MANIFEST_FILE), manifest);
        return n;
    }
}
