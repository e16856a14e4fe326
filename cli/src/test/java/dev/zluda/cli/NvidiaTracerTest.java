package dev.zluda.cli;

import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureFormat;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.ReadStatus;
import dev.zluda.capture.text.Dump;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pass-through tracer (nvidia-capture's dist/lib/trace/libcuda.so.1) in front of a stand-in
 * driver: a C program's calls are forwarded, recorded, and read back by the Java reader.
 */
class NvidiaTracerTest {
    private static final Path NATIVE = Path.of(System.getProperty("zluda.repo", "..")).resolve("nvidia-capture/target/native");

    private static Path nativeOrSkip(String rel) {
        Path p = NATIVE.resolve(rel);
        Assumptions.assumeTrue(Files.exists(p), "SKIPPED: " + p + " not built (mvn package builds it)");
        return p;
    }

    /** stdout and stderr of the last traced run. */
    private static String lastOutput = "";

    /** Runs trace_smoke through the tracer; returns the capture directory. */
    private static Path trace(Path logDir, int expectedExit, String... args) throws Exception {
        return trace(logDir, Map.of(), expectedExit, args);
    }

    /** The same with more environment variables. */
    private static Path trace(Path logDir, Map<String, String> env, int expectedExit, String... args) throws Exception {
        Path smoke = nativeOrSkip("test/trace_smoke");
        Path fake = nativeOrSkip("test/fake/libcuda.so.1");
        Path tracer = nativeOrSkip("trace/libcuda.so.1");
        var cmd = new java.util.ArrayList<String>();
        cmd.add(smoke.toString());
        cmd.addAll(java.util.List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("LD_LIBRARY_PATH", tracer.getParent().toString());
        pb.environment().put("ZLUDA_CUDA_LIB", fake.toString());
        pb.environment().put("ZLUDA_LOG_DIR", logDir.toString());
        pb.environment().remove("ZLUDA_CAPTURE_KERNELS");
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        lastOutput = out;
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(expectedExit, p.exitValue(), out);
        Path dir = logDir.resolve("trace_smoke");
        assertTrue(Files.isRegularFile(dir.resolve("capture.zcap")), "capture written in ZLUDA's layout: " + dir);
        return dir;
    }

    private static String dump(Path dir) throws Exception {
        try (Capture c = Capture.open(dir)) {
            StringWriter s = new StringWriter();
            ReadStatus st = Dump.dump(c, Dump.Options.all(), new PrintWriter(s));
            return s + "\n" + st;
        }
    }

    @Test
    void callsAreForwardedRecordedAndReadBack(@TempDir Path tmp) throws Exception {
        Path dir = trace(tmp, 0);
        String text = dump(dir);
        assertTrue(text.contains("cuInit(Flags: 0) -> CUDA_SUCCESS"), text);
        assertTrue(text.contains("cuDriverGetVersion(driverVersion: 13000) -> CUDA_SUCCESS"), text);
        // cuDeviceGet was called through the pointer cuGetProcAddress_v2 returned: the tracer handed out its wrapper
        assertTrue(text.contains("cuDeviceGet(device: 0, ordinal: 0) -> CUDA_SUCCESS"), text);
        assertTrue(text.contains("ordinal: 7) -> CUDA_ERROR_INVALID_DEVICE"), text);
        assertTrue(text.contains("cuMemcpyHtoD_v2(") && text.contains("ByteCount: 64) -> CUDA_SUCCESS"), text);
        assertTrue(text.contains("endedCleanly=true"), text);
        // the module image given to cuModuleLoadData: a MODULE record, a blob, and ZLUDA's dump file
        assertTrue(text.contains("cuModuleLoadData("), text);
        assertTrue(Files.readString(dir.resolve("module_0001_01.ptx")).contains(".visible .entry smoke()"), "module dump");
        long modules = 0;
        try (Capture c = Capture.open(dir)) {
            long[] n = {0};
            c.reader().forEachRecord(r -> { if (r instanceof CaptureRecord.Module) n[0]++; });
            modules = n[0];
        }
        assertEquals(1, modules, "one MODULE record");
        String manifest = Files.readString(dir.resolve("manifest.json"));
        assertTrue(manifest.contains("\"program\"") && manifest.contains("trace_smoke"), manifest);
    }

    @Test
    void exportTablesAreWrappedRecordedAndTheIntegrityCheckStillHolds(@TempDir Path tmp) throws Exception {
        // trace_smoke "export" uses the stand-in driver's export tables as cudart does and checks every
        // answer itself, the integrity check's HMAC-MD2 over the (wrapped) tables it was given included
        Path dir = trace(tmp, 0, "export");
        String text = dump(dir);
        String cudart = "{6bd5fb6c-5bf4-e74a-8987-d93912fd9df9}::slot ", integrity = "{d4082055-bde6-704b-8d34-ba123c66e1f2}::slot ";
        assertTrue(text.contains(cudart + "1(arg0: <8 bytes:") && text.contains(cudart + "2(arg0: <8 bytes:"), text);
        assertTrue(text.contains(cudart + "7(arg0: 0x5) -> CUDA_SUCCESS"), "a slot returning void: " + text);
        assertTrue(text.contains(cudart + "12() -> CUDA_SUCCESS"), text);
        // a slot of a known table without known arguments: the six argument registers, the target's result
        assertTrue(text.contains(cudart + "3(arg0: 0x1, arg1: 0x2, ") && text.contains("-> CUDA_ERROR_NOT_SUPPORTED"), text);
        // the integrity check: version 13002 decoded, the 16-byte answer the program saw recorded
        assertTrue(text.contains(integrity + "1(arg0: 0x32ca, arg1: 0x692b8900, arg2: <16 bytes:"), text);
        // context-local storage (a table without a size slot)
        assertTrue(text.contains("{c693336e-1121-df11-a8c3-68f355d89593}::slot 2(arg0: <8 bytes: 63 00 00 00 00 00 00 00>, arg1: 0x0, arg2: 0x7) -> CUDA_SUCCESS"), text);
        assertTrue(text.contains("{c693336e-1121-df11-a8c3-68f355d89593}::slot 2(") && text.contains("-> CUDA_ERROR_INVALID_HANDLE"), text);
        // a table nobody knows: "{?}::slot N", the table's GUID as the first argument's data, then the registers
        assertTrue(text.contains("{?}::slot 1(arg0: <16 bytes: 7a 6c 75 64 61 2d 74 65 73 74 2d 74 61 62 6c 65>, arg1: 0x1, arg2: 0x2, arg3: 0x3, arg4: 0x4, arg5: 0x5, arg6: 0x6)"), text);
        assertTrue(text.contains("endedCleanly=true"), text);
        long modules = 0;
        boolean reproduced = false;
        try (Capture c = Capture.open(dir)) {
            long[] n = {0};
            boolean[] m = {false};
            c.reader().forEachRecord(r -> {
                if (r instanceof CaptureRecord.Module) n[0]++;
                if (r instanceof CaptureRecord.Marker mk && mk.text().contains("integrity check (version 13002): the driver's answer was reproduced")) m[0] = true;
            });
            modules = n[0];
            reproduced = m[0];
        }
        assertEquals(2, modules, "cuModuleLoadData and CUDART_INTERFACE slot 1 each store their image");
        assertTrue(reproduced, "the tracer's recomputation over the driver's own tables reproduced the driver's answer");
        assertTrue(Files.readString(dir.resolve("module_0002_01.ptx")).contains(".visible .entry from_fatbin()"), "the fatbin's PTX dumped");
    }

    @Test
    void onlyPtxImagesAreStoredWithCaptureModulesPtx(@TempDir Path tmp) throws Exception {
        // ZLUDA_CAPTURE_MODULES=ptx: the PTX text given to cuModuleLoadData keeps its image, the fatbin
        // CUDART_INTERFACE slot 1 registers is recorded as a MODULE without one
        Path dir = trace(tmp, Map.of("ZLUDA_CAPTURE_MODULES", "ptx"), 0, "export");
        java.util.List<CaptureRecord.Module> modules = new java.util.ArrayList<>();
        try (Capture c = Capture.open(dir)) {
            c.reader().forEachRecord(r -> { if (r instanceof CaptureRecord.Module m) modules.add(m); });
        }
        assertEquals(2, modules.size(), modules.toString());
        assertEquals(CaptureFormat.MODULE_PTX, modules.get(0).kind());
        assertNotEquals(0, modules.get(0).imageHash(), "the PTX module's image is stored");
        assertEquals(CaptureFormat.MODULE_FATBIN, modules.get(1).kind());
        assertEquals(0, modules.get(1).imageHash(), "the fatbin's image is not");
        assertTrue(Files.isRegularFile(dir.resolve("module_0001_01.ptx")));
        assertFalse(Files.exists(dir.resolve("module_0002_01.ptx")));
    }

    @Test
    void aCaptureRangeRecordsOnlyFromCuProfilerStartToCuProfilerStop(@TempDir Path tmp) throws Exception {
        // trace_smoke "range": cuCtxGetCurrent, cuProfilerStart, 2 x cuCtxGetCurrent, cuProfilerStop, cuCtxGetCurrent,
        // after the usual calls (cuInit, ...) and before the atexit handler's cuCtxGetCurrent
        Path dir = trace(tmp, Map.of("ZLUDA_CAPTURE_RANGE", "profiler"), 0, "range");
        String text = dump(dir);
        assertFalse(text.contains("cuInit("), "nothing before the range: " + text);
        assertFalse(text.contains("cuModuleLoadData("), text);
        assertEquals(2, text.split("cuCtxGetCurrent\\(", -1).length - 1, "only the calls inside the range: " + text);
        assertTrue(text.contains("cuProfilerStart() -> CUDA_SUCCESS"), text);
        assertTrue(text.contains("cuProfilerStop() -> CUDA_SUCCESS"), text);
        assertTrue(text.contains("recording from this cuProfilerStart"), text);
        assertTrue(text.contains("not recording after this cuProfilerStop"), text);
        assertTrue(Files.readString(dir.resolve("manifest.json")).contains("\"range\": \"profiler\""));
        // without the variable every call is recorded
        Path all = trace(tmp.resolve("all"), 0, "range");
        String full = dump(all);
        assertTrue(full.contains("cuInit("), full);
        assertEquals(5, full.split("cuCtxGetCurrent\\(", -1).length - 1, full);
    }

    private static float[] floats(byte[] b) {
        java.nio.FloatBuffer f = java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
        float[] out = new float[f.remaining()];
        f.get(out);
        return out;
    }

    @Test
    void kernelSnapshotsOfMatchingLaunches(@TempDir Path tmp) throws Exception {
        // trace_smoke "kernels": scale(data, 16, 3) through kernelParams, bump(counter), scale(data, 8, 0.5)
        // through `extra`, scale(data, 4, 2) through cuLaunchKernelEx, scale(data, 16, 1) as a CUkernel;
        // the stand-in driver runs them on the host
        Path dir = trace(tmp, Map.of("ZLUDA_CAPTURE_KERNELS", "^scale$"), 0, "kernels");
        List<CaptureRecord.Kernel> kernels = new ArrayList<>();
        Map<Long, byte[]> blobs = new HashMap<>();
        Map<Long, CaptureRecord.Enter> enters = new HashMap<>();
        try (Capture c = Capture.open(dir)) {
            ReadStatus st = c.reader().forEachRecord(r -> {
                if (r instanceof CaptureRecord.Kernel k) kernels.add(k);
                if (r instanceof CaptureRecord.Enter e) enters.put(e.seq(), e);
                if (r instanceof CaptureRecord.Blob b) {
                    assertEquals(0, b.compression());
                    blobs.put(b.hash(), b.stored().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
                }
            });
            assertTrue(st.endedCleanly(), st.toString());
            // the last one launches a CUkernel (cuLibraryGetKernel), named only by cuKernelGetName
            assertEquals(4, kernels.size(), "the four launches of scale, not bump");
            String[] launchFns = {"cuLaunchKernel", "cuLaunchKernel", "cuLaunchKernelEx", "cuLaunchKernel"};
            int[] counts = {16, 8, 4, 16};
            float[] factors = {3f, 0.5f, 2f, 1f};
            float[] expect = new float[16];
            for (int i = 0; i < 16; i++) expect[i] = i + 1;
            for (int k = 0; k < 4; k++) {
                CaptureRecord.Kernel kr = kernels.get(k);
                CaptureRecord.Enter launch = enters.get(kr.launchSeq());
                assertEquals(launchFns[k], c.functionName(launch.functionId()), "KERNEL " + k + " refers to its launch's ENTER");
                assertEquals("scale", kr.name());
                assertEquals(launch.args()[launchFns[k].equals("cuLaunchKernel") ? 0 : 1], kr.function());
                // the packed parameter buffer: float *data @0, int n @8, float factor @12 (cuFuncGetParamInfo / extra)
                java.nio.ByteBuffer p = java.nio.ByteBuffer.wrap(kr.params()).order(java.nio.ByteOrder.LITTLE_ENDIAN);
                assertEquals(16, kr.params().length);
                assertEquals(counts[k], p.getInt(8));
                assertEquals(factors[k], p.getFloat(12));
                assertEquals(1, kr.buffers().size(), "one allocation behind the one pointer");
                CaptureRecord.KernelBuffer b = kr.buffers().get(0);
                assertEquals(p.getLong(0), b.devicePointer(), "the allocation's start (cuMemGetAddressRange)");
                assertEquals(64, b.size());
                assertArrayEquals(expect, floats(blobs.get(b.before())), "before image of launch " + k);
                for (int i = 0; i < counts[k]; i++) expect[i] *= factors[k];
                assertArrayEquals(expect, floats(blobs.get(b.after())), "after image of launch " + k);
            }
        }
    }

    @Test
    void aCaptureThatCannotGrowWarnsOnceAndCallsKeepFlowing(@TempDir Path tmp) throws Exception {
        // 1 MiB of capture holds about 30,000 calls; the program makes 4 x 20,000 and must still finish normally
        Path dir = trace(tmp, Map.of("ZLUDA_CAPTURE_MAX_BYTES", "1048576"), 0, "threads", "4", "20000");
        assertTrue(lastOutput.contains("trace_smoke: ok"), lastOutput);
        long warnings = lastOutput.lines().filter(l -> l.contains("cannot grow any more")).count();
        assertEquals(1, warnings, "one warning:\n" + lastOutput);
        assertTrue(Files.size(dir.resolve("capture.zcap")) <= 1048576, "the file stays within its bound");
        long[] enters = {0};
        try (Capture c = Capture.open(dir)) {
            ReadStatus st = c.reader().forEachRecord(r -> { if (r instanceof CaptureRecord.Enter) enters[0]++; });
            assertTrue(st.stopReason() == null, "what was written reads back without damage: " + st);
        }
        // the first thread that finds no room stops the recording for all (FORMAT.md §4): what came before is kept
        assertTrue(enters[0] > 1_000 && enters[0] < 80_000, "the calls up to the bound are there: " + enters[0]);
    }

    @Test
    void aProgramThatCrashesInsideTheDriverHasItsLastCallInTheCapture(@TempDir Path tmp) throws Exception {
        Path dir = trace(tmp, 139, "segv"); // SIGSEGV inside the stand-in driver's cuMemcpyHtoD_v2
        String text = dump(dir);
        assertTrue(text.contains("cuMemcpyHtoD_v2(dstDevice: 0x10, ") && text.contains("(in flight: the capture ends before this call returned)"),
                "the call that crashed is there, entered and not returned:\n" + text);
        assertTrue(text.contains("endedCleanly=false"), text);
    }

    @Test
    void sixtyFourThreadsTimesAHundredThousandCalls(@TempDir Path tmp) throws Exception {
        int threads = 64, perThread = 100_000;
        Path dir = trace(tmp, 0, "threads", Integer.toString(threads), Integer.toString(perThread));
        int ctxGetCurrent = dev.zluda.spec.CudaApi.get().function("cuCtxGetCurrent").orElseThrow().id();
        java.util.BitSet seqs = new java.util.BitSet();
        Map<Long, long[]> perTid = new HashMap<>();   // thread id -> {enters of cuCtxGetCurrent, leaves, open enter seq, last seq}
        long[] dup = {0}, torn = {0};
        try (Capture c = Capture.open(dir)) {
            ReadStatus st = c.reader().forEachRecord(r -> {
                if (!(r instanceof CaptureRecord.Enter) && !(r instanceof CaptureRecord.Leave)) return;
                long seq = r instanceof CaptureRecord.Enter e ? e.seq() : ((CaptureRecord.Leave) r).seq();
                long tid = r instanceof CaptureRecord.Enter e ? e.threadId() : ((CaptureRecord.Leave) r).threadId();
                if (seqs.get((int) seq)) dup[0]++;
                seqs.set((int) seq);
                long[] t = perTid.computeIfAbsent(tid, k -> new long[] {0, 0, -1, -1});
                if (seq <= t[3]) torn[0]++;             // a thread's records come in its own order
                t[3] = seq;
                if (r instanceof CaptureRecord.Enter e) {
                    if (e.functionId() == ctxGetCurrent) t[0]++;
                    t[2] = seq;
                } else {
                    CaptureRecord.Leave l = (CaptureRecord.Leave) r;
                    if (l.enterSeq() != t[2]) torn[0]++;   // every LEAVE closes its thread's open ENTER
                    t[1]++;
                }
            });
            assertTrue(st.endedCleanly(), st.toString());
        }
        assertEquals(0, dup[0], "sequence numbers are unique: one total order of every thread's records");
        assertEquals(0, torn[0], "no record out of its thread's order, every LEAVE matches its ENTER");
        long full = perTid.values().stream().filter(t -> t[0] == perThread).count();
        assertEquals(threads, full, "64 threads with 100,000 cuCtxGetCurrent each");
    }

    @Test
    void aKilledProcessKeepsEveryCompletedCall(@TempDir Path tmp) throws Exception {
        Path dir = trace(tmp, 137, "crash"); // SIGKILL right after cuMemcpyHtoD_v2 returned
        String text = dump(dir);
        assertTrue(text.contains("cuMemcpyHtoD_v2("), "the last completed call survives kill -9:\n" + text);
        assertFalse(text.contains("cuMemcpyDtoH_v2("), text);
        assertTrue(text.contains("endedCleanly=false"), text);
    }

    @Test
    void manyThreadsGiveOneTotalOrderWithNothingLost(@TempDir Path tmp) throws Exception {
        int threads = 16, perThread = 5000;
        Path dir = trace(tmp, 0, "threads", Integer.toString(threads), Integer.toString(perThread));
        Map<Integer, Integer> calls = new HashMap<>();
        Set<Long> seqs = new HashSet<>();
        Set<Long> tids = new HashSet<>();
        long[] enters = {0}, leaves = {0};
        try (Capture c = Capture.open(dir)) {
            ReadStatus st = c.reader().forEachRecord(r -> {
                if (r instanceof CaptureRecord.Enter e) {
                    enters[0]++;
                    assertTrue(seqs.add(e.seq()), "sequence numbers are unique");
                    calls.merge(e.functionId(), 1, Integer::sum);
                    tids.add(e.threadId());
                } else if (r instanceof CaptureRecord.Leave l) {
                    leaves[0]++;
                    assertTrue(seqs.add(l.seq()), "sequence numbers are unique");
                }
            });
            assertTrue(st.endedCleanly(), st.toString());
            int ctxGetCurrent = dev.zluda.spec.CudaApi.get().function("cuCtxGetCurrent").orElseThrow().id();
            // + 1: trace_smoke's atexit handler makes one more after the program's end
            assertEquals(threads * perThread + 1, calls.get(ctxGetCurrent), "every cuCtxGetCurrent of every thread");
            assertEquals(enters[0], leaves[0]);
            assertTrue(tids.size() >= threads, "thread ids: " + tids.size());
        }
    }
}
