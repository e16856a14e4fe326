package dev.zluda.cli;

import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.DataItem;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The native writer (recorder-native's zcap, driven by its zcap_demo program) and the Java reader
 * agree: every value the demo documents is read back, in one total order, and a capture of a
 * process killed with SIGKILL inside a call keeps every completed call and shows that one in flight.
 */
class NativeCaptureInteropTest {
    @TempDir
    Path tmp;

    static Path demo() {
        Path repo = Path.of(System.getProperty("zluda.repo", ".."));
        Path d = repo.resolve("recorder-native/target/native/zcap_demo");
        Assumptions.assumeTrue(Files.isExecutable(d), "SKIPPED: " + d + " is not built (build recorder-native first: mvn -pl recorder-native compile)");
        return d;
    }

    int runDemo(Path out, int threads, int calls, String mode) throws Exception {
        Process p = new ProcessBuilder(demo().toString(), out.toString(), "" + threads, "" + calls, mode).redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "zcap_demo hangs");
        return p.exitValue();
    }

    static long u64(DataItem d) {
        return ByteBuffer.wrap(d.bytes()).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /** Checks every call of every thread against the pattern zcap_demo.c documents. */
    static void check(Capture cap, int threads, int calls, boolean killed) {
        Map<Long, Integer> next = new HashMap<>();
        Map<Long, Long> tIndex = new HashMap<>(); // OS tid -> demo thread index, learned from cuCtxGetCurrent's pctx
        Map<Long, CaptureRecord.Enter> open = new HashMap<>();
        Map<Integer, String> strings = new HashMap<>();
        long lastSeq = -1, blobs = 0, leaves = 0;
        List<Long> tids = new ArrayList<>();
        for (CaptureRecord r : cap.reader()) {
            assertTrue(r.seq() > lastSeq);
            lastSeq = r.seq();
            if (r instanceof CaptureRecord.StringDef s) strings.put(s.id(), s.text());
            if (r instanceof CaptureRecord.Blob b) {
                blobs++;
                assertEquals("shared blob", new String(b.stored().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)));
            }
            if (r instanceof CaptureRecord.Enter e) {
                assertNull(open.put(e.threadId(), e), "calls do not nest in the demo");
                String fn = cap.functionName(e.functionId());
                int i = next.getOrDefault(e.threadId(), 0);
                if (!tids.contains(e.threadId())) tids.add(e.threadId());
                if (killed && i == calls) {
                    assertEquals("cuInit", fn);
                    assertEquals(999, e.args()[0]);
                    continue;
                }
                switch (i % 4) {
                    case 0 -> { assertEquals("cuInit", fn); assertEquals(i, e.args()[0]); }
                    case 1 -> {
                        assertEquals("cuCtxGetCurrent", fn);
                        long t = (e.args()[0] - 0x7ffc0000L) / 16;
                        assertTrue(t >= 0 && t < threads);
                        Long prev = tIndex.put(e.threadId(), t);
                        assertTrue(prev == null || prev == t);
                    }
                    case 2 -> {
                        assertEquals("cuMemAlloc_v2", fn);
                        assertEquals(0x7ffc1000L + 16 * tIndex.get(e.threadId()), e.args()[0]);
                        assertEquals(1024L * (i + 1), e.args()[1]);
                    }
                    default -> {
                        assertEquals("cuModuleGetFunction", fn);
                        assertEquals(0x5556000000L + tIndex.get(e.threadId()), e.args()[1]);
                        assertEquals(0x400000L + i % 3, e.args()[2]);
                        assertEquals("kernel_" + i % 3, strings.get(e.data().get(0).stringId()));
                    }
                }
            }
            if (r instanceof CaptureRecord.Leave l) {
                CaptureRecord.Enter e = open.remove(l.threadId());
                assertNotNull(e);
                assertEquals(e.seq(), l.enterSeq());
                int i = next.merge(l.threadId(), 1, Integer::sum) - 1;
                long t = tIndex.getOrDefault(l.threadId(), -1L);
                switch (i % 4) {
                    case 1 -> assertEquals(0x5555000000L + t, u64(l.data().get(0)));
                    case 2 -> {
                        assertEquals(0x7f0000000000L + (t << 32) + 4096L * i, u64(l.data().get(0)));
                        assertEquals(i % 10 == 6 ? 2 : 0, l.result());
                    }
                    case 3 -> assertEquals(0x5557000000L + i % 3, u64(l.data().get(0)));
                    default -> assertEquals(0, l.result());
                }
                leaves++;
            }
        }
        assertEquals(threads, tids.size());
        assertEquals(1, blobs);
        for (long tid : tids) assertEquals(calls, next.get(tid));
        assertEquals((long) threads * calls, leaves);
        assertEquals(killed ? 1 : 0, open.size());
        assertEquals(!killed, cap.reader().status().endedCleanly(), cap.reader().status().toString());
    }

    @Test
    void closedCaptureFromFourThreads() throws Exception {
        Path f = tmp.resolve("n.zcap");
        assertEquals(0, runDemo(f, 4, 20_000, "close"));
        try (Capture cap = Capture.open(f)) {
            check(cap, 4, 20_000, false);
        }
    }

    @Test
    void killedInsideACallKeepsEveryCompletedCall() throws Exception {
        Path f = tmp.resolve("k.zcap");
        assertEquals(128 + 9, runDemo(f, 3, 3000, "kill"), "zcap_demo kill mode dies of SIGKILL");
        try (Capture cap = Capture.open(f)) {
            check(cap, 3, 3000, true);
        }
        CliRun.Result r = CliRun.run("dump", f.toString());
        assertEquals(0, r.code(), r.err());
        String[] l = r.lines();
        assertEquals("cuInit(Flags: 0x3e7) -> (in flight: the capture ends before this call returned)", l[l.length - 2]);
        assertTrue(l[l.length - 1].startsWith("# capture ends while 1 call was in flight (entered, never returned): cuInit"), l[l.length - 1]);
        assertTrue(CliRun.run("info", f.toString()).out().contains("calls:     9001 (450 returned an error, 1 in flight)"));
    }
}
