package dev.zluda.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zluda.capture.CaptureWriter;
import dev.zluda.capture.DataItems;
import dev.zluda.capture.FunctionDef;
import dev.zluda.capture.ThreadLog;
import dev.zluda.spec.CudaApi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static org.junit.jupiter.api.Assertions.*;

/** zluda dump, info, convert and pack on a capture written here with known calls. */
class CaptureCommandsTest {
    @TempDir
    static Path tmp;
    static Path dir;
    static final long TID = 4242, TID2 = 4343;

    static int id(String name) {
        return CudaApi.get().function(name).orElseThrow().id();
    }

    /**
     * The capture: cuInit(0); cuCtxCreate_v2 with flags SCHED_BLOCKING_SYNC|MAP_HOST (4|8) on device 0
     * returning context 0x5555aaaa0000; cuMemAlloc_v2 of 1024 bytes returning 0x7f3c00000000; a failing
     * cuMemAlloc_v2 of 1 TiB (CUDA_ERROR_OUT_OF_MEMORY = 2); cuMemcpyHtoD_v2 of 16 bytes with a nested
     * cuCtxGetCurrent; cuModuleGetFunction("vecAdd") returning 0x6000; two cuLaunchKernel of 0x6000
     * on thread 2; and a cuCtxSynchronize in flight when the capture ends (no close: a crash).
     */
    @BeforeAll
    static void write() throws IOException {
        dir = Files.createDirectories(tmp.resolve("app"));
        CaptureWriter w = CaptureWriter.create(dir.resolve("capture.zcap"),
                CaptureWriter.Options.defaults().withChunkSize(4096).withGrowStep(1 << 20), FunctionDef.fromSpec(CudaApi.get()));
        ThreadLog t = w.thread(TID), t2 = w.thread(TID2);
        DataItems d = new DataItems();
        long ts = System.nanoTime();
        long e = t.enter(id("cuInit"), 0, ts, new long[] {0}, null);
        t.leave(e, ts += 1000, 0, null);
        e = t.enter(id("cuCtxCreate_v2"), 0, ts += 10, new long[] {0x7ffd0010L, 4 | 8, 0}, null);
        t.leave(e, ts += 5000, 0, d.clear().inlineLong(0, 0x5555aaaa0000L));
        e = t.enter(id("cuMemAlloc_v2"), 0, ts += 10, new long[] {0x7ffd0020L, 1024}, null);
        t.leave(e, ts += 100, 0, d.clear().inlineLong(0, 0x7f3c00000000L));
        e = t.enter(id("cuMemAlloc_v2"), 0, ts += 10, new long[] {0x7ffd0020L, 1L << 40}, null);
        t.leave(e, ts += 100, 2, null);
        byte[] payload = "sixteen bytes!!!".getBytes();
        e = t.enter(id("cuMemcpyHtoD_v2"), 0, ts += 10, new long[] {0x7f3c00000000L, 0x7ffd0100L, 16}, d.clear().inline(1, payload, 0, 16));
        long n = t.enter(id("cuCtxGetCurrent"), 1, ts += 10, new long[] {0x7ffd0030L}, null);
        t.leave(n, ts += 10, 0, d.clear().inlineLong(0, 0x5555aaaa0000L));
        t.leave(e, ts += 100, 0, null);
        int s = w.internString(t, "vecAdd", ts += 1);
        e = t.enter(id("cuModuleGetFunction"), 0, ts += 10, new long[] {0x7ffd0040L, 0x5555bbbb0000L, 0x400123}, d.clear().string(2, s));
        t.leave(e, ts += 10, 0, d.clear().inlineLong(0, 0x6000));
        t2.threadName(TID2, "launcher", ts);
        for (int i = 0; i < 2; i++) {
            e = t2.enter(id("cuLaunchKernel"), 0, ts += 10, new long[] {0x6000, 64, 1, 1, 256, 1, 1, 0, 0, 0x7ffd0200L, 0}, null);
            t2.leave(e, ts += 3000, 0, null);
        }
        t.enter(id("cuCtxSynchronize"), 0, ts += 10, new long[0], null);
        Files.writeString(dir.resolve("manifest.json"), """
                {"formatVersion": "1.0", "program": "/home/alice/bin/app", "arguments": ["--data", "/home/alice/d.bin"],
                 "pid": 77, "host": "box", "environment": {"CUDA_VISIBLE_DEVICES": "0", "ZLUDA_LOG_DIR": "/tmp/z", "AWS_SECRET": "s3cr3t"},
                 "driver": {"name": "zluda", "version": 13000}, "devices": [{"index": 0, "name": "zluda emulator", "computeCapability": "8.6", "totalMemory": 8589934592}]}
                """);
        Files.writeString(dir.resolve("module_0001_01.ptx"), ".version 8.0\n");
        // no w.close(): the process "crashed" inside cuCtxSynchronize
    }

    @Test
    void dumpPrintsZludaStyleLines() {
        CliRun.Result r = CliRun.run("dump", dir.toString());
        assertEquals(0, r.code(), r.err());
        String[] l = r.lines();
        assertEquals("cuInit(Flags: 0) -> CUDA_SUCCESS", l[0]);
        // a CUdevice is a device ordinal: decimal, as cuDeviceGet's output shows it
        assertEquals("cuCtxCreate_v2(pctx: 0x5555aaaa0000, flags: CU_CTX_SCHED_BLOCKING_SYNC | CU_CTX_MAP_HOST, dev: 0) -> CUDA_SUCCESS", l[1]);
        assertEquals("cuMemAlloc_v2(dptr: 0x7f3c00000000, bytesize: 1024) -> CUDA_SUCCESS", l[2]);
        // failed: the driver wrote no dptr (0x7ffd0020 is only where it would have gone)
        assertEquals("cuMemAlloc_v2(dptr: (not written), bytesize: 1099511627776) -> CUDA_ERROR_OUT_OF_MEMORY", l[3]);
        assertTrue(l[4].startsWith("cuMemcpyHtoD_v2(dstDevice: 0x7f3c00000000, srcHost: <16 bytes: 73 69 78"), l[4]);
        assertEquals("  cuCtxGetCurrent(pctx: 0x5555aaaa0000) -> CUDA_SUCCESS", l[5]);
        assertEquals("cuModuleGetFunction(hfunc: 0x6000, hmod: 0x5555bbbb0000, name: \"vecAdd\") -> CUDA_SUCCESS", l[6]);
        assertTrue(l[7].startsWith("cuLaunchKernel(f: 0x6000, gridDimX: 64, gridDimY: 1, gridDimZ: 1, blockDimX: 256"), l[7]);
        assertEquals("cuCtxSynchronize() -> (in flight: the capture ends before this call returned)", l[9]);
        assertTrue(l[l.length - 1].startsWith("# capture ends while 1 call was in flight (entered, never returned): cuCtxSynchronize (call 10, thread " + TID + ")"), l[l.length - 1]);
    }

    @Test
    void dumpFilters() {
        CliRun.Result r = CliRun.run("dump", "--errors", dir.toString());
        assertEquals(2, r.lines().length - 1, r.out()); // the failed alloc and the call in flight, then the last line
        assertTrue(r.lines()[0].endsWith("-> CUDA_ERROR_OUT_OF_MEMORY"));
        r = CliRun.run("dump", "--function", "^cuMem", "--calls", "4..", dir.toString());
        assertTrue(r.lines()[0].contains("bytesize: 1099511627776"), r.out());
        assertTrue(r.lines()[1].startsWith("cuMemcpyHtoD_v2("), r.out());
        assertEquals(3, r.lines().length);
        r = CliRun.run("dump", "--threads", "--time", "--calls", "9", dir.toString());
        assertTrue(r.lines()[0].matches("\\[" + TID2 + "] \\+\\d+\\.\\d{6} cuLaunchKernel\\(.*"), r.out());
        assertEquals(2, CliRun.run("dump", "--calls", "x", dir.toString()).code());
        // a reversed range is a usage error; a selection nothing matches says so
        CliRun.Result rev = CliRun.run("dump", "--calls", "7..5", dir.toString());
        assertEquals(2, rev.code());
        assertTrue(rev.err().startsWith("zluda dump: error: --calls 7..5: FROM is after TO (calls are counted from 1; did you mean 5..7?)"), rev.err());
        r = CliRun.run("dump", "--calls", "30..40", dir.toString());
        assertEquals("# no calls match (--calls 30..40; the capture holds 10 calls)", r.lines()[0], r.out());
        r = CliRun.run("dump", "--function", "cuNoSuch", dir.toString());
        assertEquals("# no calls match (--function cuNoSuch; the capture holds 10 calls)", r.lines()[0], r.out());
        // filters together: what each matches alone (the fixture: cuLaunchKernel calls 8 and 9; call 4 failed, 10 never returned)
        r = CliRun.run("dump", "--errors", "--function", "cuLaunchKernel", dir.toString());
        assertEquals("# no calls match (--function cuLaunchKernel: 2 calls, --errors: 1 call failed and 1 never returned, none matches both;"
                + " the capture holds 10 calls)", r.lines()[0], r.out());
        r = CliRun.run("dump", "--errors", "--function", "cuMemAlloc", "--calls", "1..3", dir.toString());
        assertEquals("# no calls match (--calls 1..3: 3 calls, --function cuMemAlloc: 2 calls, --errors: 1 call failed and 1 never returned,"
                + " none matches all three; the capture holds 10 calls)", r.lines()[0], r.out());
        r = CliRun.run("dump", "--calls", "1..3", "--function", "cuNoSuch", dir.toString());
        assertEquals("# no calls match (--calls 1..3: 3 calls, --function cuNoSuch: no call, none matches both; the capture holds 10 calls)", r.lines()[0], r.out());
        // vectorAdd on the H200: every one of its 20 calls returned CUDA_SUCCESS
        r = CliRun.run("dump", "--errors", "../samples/traces/h200/vectorAdd");
        assertEquals(0, r.code(), r.err());
        assertEquals("# no calls match (--errors: no call failed; the capture holds 20 calls)", r.out().strip());
        assertEquals(2, CliRun.run("dump", "--function", "(", dir.toString()).code());
    }

    @Test
    void infoSummarises() {
        CliRun.Result r = CliRun.run("info", dir.toString());
        assertEquals(0, r.code(), r.err());
        String o = r.out();
        assertTrue(o.contains("process:   /home/alice/bin/app --data /home/alice/d.bin"), o);
        assertTrue(o.contains("device 0:  zluda emulator, compute capability 8.6, 8192 MiB"), o);
        assertTrue(o.contains("threads:   2"), o);
        assertTrue(o.contains("calls:     10 (1 returned an error, 1 in flight)"), o);
        assertTrue(o.matches("(?s).*\\n  cuMemAlloc_v2 +2  errors: CUDA_ERROR_OUT_OF_MEMORY ×1\\n.*"), o);
        assertTrue(o.matches("(?s).*\\n  vecAdd +2\\n.*"), o);
        assertTrue(o.contains("ended cleanly: no: no process end recorded (killed or crashed); 1 call(s) in flight"), o);
        // recorded on an H200 with one kernel snapshot
        o = CliRun.run("info", Path.of(System.getProperty("zluda.repo", "..")).resolve("samples/traces/h200/vectorAdd-kernels").toString()).out();
        assertTrue(o.contains("\nkernels launched: 1 (1 snapshot)\n"), o);
    }

    @Test
    void convertJsonlAndPerfetto() throws IOException {
        Path j = tmp.resolve("c.jsonl");
        assertEquals(0, CliRun.run("convert", dir.toString(), "--to", "jsonl", j.toString()).code());
        ObjectMapper om = new ObjectMapper();
        List<String> lines = Files.readAllLines(j).stream().filter(s -> !s.isBlank()).toList();
        long calls = 0;
        for (String s : lines) {
            JsonNode n = om.readTree(s);
            if (n.path("type").asText().equals("call")) {
                calls++;
                if (n.path("function").asText().equals("cuMemAlloc_v2") && n.path("result").asInt() == 2) {
                    assertEquals("CUDA_ERROR_OUT_OF_MEMORY", n.path("result_name").asText());
                    assertEquals(String.valueOf(1L << 40), n.path("raw_args").get(1).asText());
                }
            }
        }
        assertEquals(10, calls);
        Path p = tmp.resolve("c.json");
        assertEquals(0, CliRun.run("convert", dir.toString(), "--to", "perfetto", p.toString()).code());
        JsonNode root = om.readTree(p.toFile());
        long x = 0, names = 0;
        for (JsonNode ev : root.path("traceEvents")) {
            if (ev.path("ph").asText().equals("X")) {
                x++;
                assertTrue(ev.path("ts").asDouble() >= 0 && ev.path("dur").asDouble() >= 0);
                assertTrue(ev.has("pid") && ev.has("tid") && ev.has("name"));
            }
            if (ev.path("name").asText().equals("thread_name") && ev.path("args").path("name").asText().equals("launcher")) names++;
        }
        assertEquals(10, x);
        assertEquals(1, names);
        assertEquals(2, CliRun.run("convert", dir.toString(), "--to", "csv", p.toString()).code());
    }

    @Test
    void packIsAcceptedEverywhereAndRedacts() throws IOException {
        Path pack = tmp.resolve("bug.zip");
        CliRun.Result r = CliRun.run("pack", dir.toString(), "-o", pack.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(CliRun.run("dump", dir.toString()).out(), CliRun.run("dump", pack.toString()).out());
        Path red = tmp.resolve("red.zip");
        r = CliRun.run("pack", dir.toString(), "-o", red.toString(), "--redact", "data,env,paths");
        assertEquals(0, r.code(), r.err());
        String dump = CliRun.run("dump", red.toString()).out();
        assertTrue(dump.contains("srcHost: <16 bytes, xxh64 "), dump);
        assertFalse(dump.contains("73 69 78"), dump);
        assertTrue(dump.contains("cuMemAlloc_v2(dptr: 0x7f3c00000000, bytesize: 1024) -> CUDA_SUCCESS"), "handles stay: " + dump);
        String info = CliRun.run("info", red.toString()).out();
        assertTrue(info.contains("process:   ~/bin/app --data ~/d.bin"), info);
        try (var z = new java.util.zip.ZipFile(red.toFile())) {
            JsonNode m = new ObjectMapper().readTree(z.getInputStream(z.getEntry("manifest.json")));
            assertEquals("[\"data\",\"env\",\"paths\"]", m.path("redacted").toString());
            assertTrue(m.path("environment").has("CUDA_VISIBLE_DEVICES"));
            assertTrue(m.path("environment").has("ZLUDA_LOG_DIR"));
            assertFalse(m.path("environment").has("AWS_SECRET"));
            assertNotNull(z.getEntry("module_0001_01.ptx"));
            try (var plain = new java.util.zip.ZipFile(pack.toFile())) {
                long redacted = z.getEntry("capture.zcap").getSize(), whole = plain.getEntry("capture.zcap").getSize();
                assertTrue(redacted <= whole, "a capture without its data is no larger: " + redacted + " > " + whole + " bytes");
            }
        }
        // an existing pack is not replaced (here: the redacted one by an unredacted one) without --force
        long redactedSize = Files.size(red);
        r = CliRun.run("pack", dir.toString(), "-o", red.toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains(red + " exists; pass --force to replace it"), r.err());
        assertEquals(redactedSize, Files.size(red));
        assertEquals(0, CliRun.run("pack", dir.toString(), "-o", red.toString(), "--force").code());
        assertEquals(2, CliRun.run("pack", dir.toString(), "-o", red.toString(), "--force", "--redact", "everything").code());
    }

    /**
     * Redacting data does not grow a capture: recorded on an H200 by the NVIDIA tracer, whose
     * function table shares the application thread's chunk (a rewrite that put it in a chunk of its
     * own doubled vectorAdd's 262,208 bytes).
     */
    @Test
    void redactingAnH200CaptureDoesNotGrowIt() throws IOException {
        Path h200 = Path.of(System.getProperty("zluda.repo", "..")).resolve("samples/traces/h200/vectorAdd");
        Path red = tmp.resolve("h200-red.zip");
        CliRun.Result r = CliRun.run("pack", h200.toString(), "-o", red.toString(), "--redact", "data,env,paths");
        assertEquals(0, r.code(), r.err());
        try (var z = new java.util.zip.ZipFile(red.toFile())) {
            long whole = Files.size(h200.resolve("capture.zcap")), redacted = z.getEntry("capture.zcap").getSize();
            assertTrue(redacted <= whole, "redacted " + redacted + " > " + whole + " bytes");
        }
        assertEquals(CliRun.run("dump", h200.toString()).lines().length, CliRun.run("dump", red.toString()).lines().length, "every call kept");
    }

    @Test
    void unpackRefusesTraversalAndLinks() throws IOException {
        for (String bad : new String[] {"../evil", "/etc/passwd", "a/b", "..", "x\\y"}) {
            Path z = tmp.resolve("bad" + Math.abs(bad.hashCode()) + ".zip");
            try (ZipOutputStream zo = new ZipOutputStream(Files.newOutputStream(z))) {
                zo.putNextEntry(new ZipEntry(bad));
                zo.write(1);
                zo.closeEntry();
            }
            CliRun.Result r = CliRun.run("info", z.toString());
            assertEquals(2, r.code());
            assertTrue(r.err().contains("refusing entry"), r.err());
            assertFalse(Files.exists(tmp.resolve("evil")));
        }
        // a symbolic link entry: made by Unix (3), mode 0120777
        Path z = tmp.resolve("link.zip");
        try (ZipOutputStream zo = new ZipOutputStream(Files.newOutputStream(z))) {
            zo.putNextEntry(new ZipEntry("capture.zcap"));
            zo.write("/etc/passwd".getBytes());
            zo.closeEntry();
        }
        byte[] b = Files.readAllBytes(z);
        for (int i = 0; i + 46 < b.length; i++) {
            if (b[i] == 'P' && b[i + 1] == 'K' && b[i + 2] == 1 && b[i + 3] == 2) {
                b[i + 5] = 3;
                int mode = 0120777 << 16;
                for (int k = 0; k < 4; k++) b[i + 38 + k] = (byte) (mode >>> (8 * k));
            }
        }
        Files.write(z, b);
        CliRun.Result r = CliRun.run("dump", z.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("symbolic link"), r.err());
    }

    @Test
    void badCapturesSayWhereAndWhy() throws IOException {
        Path empty = Files.write(tmp.resolve("empty.zcap"), new byte[0]);
        CliRun.Result r = CliRun.run("dump", empty.toString());
        assertEquals(2, r.code());
        assertEquals("zluda dump: error: " + empty + ": byte 0: empty file (0 bytes): not a zluda capture", r.err().strip());
        r = CliRun.run("info", tmp.resolve("nope").toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("no such file or directory"), r.err());
    }

    /**
     * cudart's start-up (samples/traces/h200/cudart_demo: 440 cuGetProcAddress_v2 calls before anything else)
     * is one line in zluda dump; --unfold, and any filter, show each call.
     */
    @Test
    void cudartsStartUpIsFoldedIntoOneLine() {
        String cap = Path.of(System.getProperty("zluda.repo", "..")).resolve("samples/traces/h200/cudart_demo").toString();
        CliRun.Result folded = CliRun.run("dump", cap);
        assertEquals(0, folded.code(), folded.err());
        String[] lines = folded.out().split("\n");
        assertTrue(lines[0].startsWith("cuGetProcAddress_v2 \u00d7440 (calls 1..440: 440 CUDA_SUCCESS) looking up the driver's entry points"), lines[0]);
        assertTrue(lines[0].endsWith("--unfold shows each"), lines[0]);
        assertTrue(lines[1].startsWith("cuGetExportTable("), lines[1]);
        long procLines = folded.out().lines().filter(l -> l.startsWith("cuGetProcAddress")).count();
        CliRun.Result unfolded = CliRun.run("dump", cap, "--unfold");
        assertEquals(440 + procLines - 1, unfolded.out().lines().filter(l -> l.startsWith("cuGetProcAddress_v2(")).count());
        assertEquals(lines.length - 1 + 440, unfolded.out().split("\n").length, "the folded line stands for exactly those 440 lines");
        CliRun.Result filtered = CliRun.run("dump", cap, "--function", "cuGetProcAddress");
        assertTrue(filtered.out().lines().filter(l -> !l.startsWith("#")).allMatch(l -> l.startsWith("cuGetProcAddress_v2(")), "a filter shows what it selects one by one");
        assertEquals(3, CliRun.run("dump", cap, "--calls", "1..3").out().lines().filter(l -> !l.startsWith("#")).count());
    }

    /** cuModuleLoadDataEx's option values are printed by their keys: the log sizes NVIDIA wrote back (0) as numbers, the log buffers as addresses. */
    @Test
    void jitOptionValuesAreReadByTheirKeys() {
        String cap = Path.of(System.getProperty("zluda.repo", "..")).resolve("samples/traces/h200/matrixMul").toString();
        CliRun.Result r = CliRun.run("dump", cap, "--function", "cuModuleLoadDataEx");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().matches("(?s).*optionValues: \\[0x[0-9a-f]+, 0, 0x[0-9a-f]+, 0\\]\\) -> CUDA_SUCCESS.*"), r.out());
    }
}
