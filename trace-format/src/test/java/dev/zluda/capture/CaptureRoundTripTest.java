package dev.zluda.capture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.*;

class CaptureRoundTripTest {
    @TempDir
    Path dir;

    @Test
    void everyCallReadsBackAsWritten() throws Exception {
        Path f = dir.resolve("c.zcap");
        List<TestCaptures.Written> written = TestCaptures.write(f, 4096, 3, 500, false, true);
        try (CaptureReader r = CaptureReader.open(f)) {
            assertEquals(TestCaptures.FUNCS, r.functions());
            Map<Long, List<CaptureRecord.Enter>> enters = new HashMap<>();
            Map<Long, CaptureRecord.Leave> leaves = new HashMap<>();
            long lastSeq = -1;
            int markers = 0, blobs = 0, names = 0, ends = 0;
            for (CaptureRecord rec : r) {
                assertTrue(rec.seq() > lastSeq, "sequence order");
                lastSeq = rec.seq();
                switch (rec) {
                    case CaptureRecord.Enter e -> enters.computeIfAbsent(e.threadId(), k -> new ArrayList<>()).add(e);
                    case CaptureRecord.Leave l -> leaves.put(l.enterSeq(), l);
                    case CaptureRecord.Marker m -> { assertEquals("start", m.text()); markers++; }
                    case CaptureRecord.ThreadName t -> { assertEquals("main", t.name()); assertEquals(1000, t.namedThread()); names++; }
                    case CaptureRecord.Blob b -> {
                        assertEquals(9, b.size());
                        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9}, b.stored().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
                        blobs++;
                    }
                    case CaptureRecord.ProcessEnd p -> { assertEquals(CaptureFormat.END_CLOSED, p.reason()); ends++; }
                    default -> { }
                }
            }
            assertEquals(1, markers);
            assertEquals(1, blobs);
            assertEquals(1, names);
            assertEquals(1, ends);
            ReadStatus st = r.status();
            assertTrue(st.endedCleanly(), st.toString());
            assertFalse(st.stoppedEarly());
            // per thread, in order: what was written
            Map<Long, Integer> idx = new HashMap<>();
            int count = 0;
            for (TestCaptures.Written w : written) {
                List<CaptureRecord.Enter> es = enters.get(w.tid());
                int i = idx.merge(w.tid(), 1, Integer::sum) - 1;
                CaptureRecord.Enter e = es.get(i);
                assertEquals(w.fid(), e.functionId());
                assertEquals(w.depth(), e.depth());
                assertArrayEquals(w.args(), e.args());
                if (w.inData() != null) assertArrayEquals(w.inData(), e.data().get(0).bytes());
                CaptureRecord.Leave l = leaves.get(e.seq());
                assertNotNull(l, "leave of " + e);
                assertEquals(w.result(), l.result());
                assertEquals(e.threadId(), l.threadId());
                if (w.outData() != null) assertArrayEquals(w.outData(), l.data().get(0).bytes());
                if (w.fid() == 3) assertEquals(CaptureFormat.ITEM_BLOB, l.data().get(0).kind());
                count++;
            }
            assertEquals(count, enters.values().stream().mapToInt(List::size).sum());
        }
    }

    @Test
    void threadsWritingAtOnceGiveOneTotalOrder() throws Exception {
        Path f = dir.resolve("mt.zcap");
        int threads = 4, calls = 20_000;
        try (CaptureWriter w = CaptureWriter.create(f, TestCaptures.options(4096), TestCaptures.FUNCS)) {
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                final long tid = 7000 + t;
                ts.add(Thread.ofPlatform().start(() -> {
                    ThreadLog log = w.thread(tid);
                    try { go.await(); } catch (InterruptedException e) { throw new RuntimeException(e); }
                    long[] args = new long[1];
                    for (int i = 0; i < calls; i++) {
                        args[0] = i;
                        long e = log.enter(0, 0, System.nanoTime(), args, null);
                        log.leave(e, System.nanoTime(), i, null);
                    }
                }));
            }
            go.countDown();
            for (Thread t : ts) t.join();
        }
        try (CaptureReader r = CaptureReader.open(f)) {
            long last = -1;
            Map<Long, Long> expectNext = new HashMap<>();
            Map<Long, Long> open = new HashMap<>();
            long n = 0;
            for (CaptureRecord rec : r) {
                assertTrue(rec.seq() > last);
                last = rec.seq();
                if (rec instanceof CaptureRecord.Enter e) {
                    long want = expectNext.getOrDefault(e.threadId(), 0L);
                    assertEquals(want, e.args()[0], "thread " + e.threadId() + " calls in order");
                    expectNext.put(e.threadId(), want + 1);
                    assertNull(open.put(e.threadId(), e.seq()));
                    n++;
                } else if (rec instanceof CaptureRecord.Leave l) {
                    assertEquals(open.remove(l.threadId()), l.enterSeq());
                    assertEquals(expectNext.get(l.threadId()) - 1, l.result());
                }
            }
            assertEquals((long) threads * calls, n);
            assertTrue(r.status().endedCleanly());
            // seq numbers are dense: function table 0 .. process end
            assertEquals(2L * threads * calls + 1, last);
        }
    }

    @Test
    void largeRecordsGetSpanChunksAndSpecTableWorks() throws Exception {
        Path f = dir.resolve("big.zcap");
        byte[] big = new byte[3 * 4096 + 17];
        new java.util.Random(1).nextBytes(big);
        long hash;
        try (CaptureWriter w = CaptureWriter.create(f, TestCaptures.options(4096), FunctionDef.fromSpec(dev.zluda.spec.CudaApi.get()))) {
            ThreadLog t = w.currentThread();
            hash = t.blob(big, 0, big.length, CaptureFormat.COMPRESSION_NONE, 5);
            assertEquals(hash, t.blob(big, 0, big.length, CaptureFormat.COMPRESSION_NONE, 6), "same content, same hash");
            t.module(1, 1, CaptureFormat.MODULE_PTX, hash, big.length, 0x5555_0000L, "module_0001_01.ptx", 7);
            t.kernel(1, 0x99, "_Z3addPfS_", new byte[] {1, 2}, List.of(new CaptureRecord.KernelBuffer(0x7f00_0000_0000L, 1024, 11, 12)), 8);
        }
        try (CaptureReader r = CaptureReader.open(f)) {
            int blobs = 0;
            for (CaptureRecord rec : r) {
                if (rec instanceof CaptureRecord.Blob b) {
                    blobs++;
                    assertEquals(hash, b.hash());
                    assertEquals(Hashing.xxh64(big), Hashing.xxh64(b.stored()));
                } else if (rec instanceof CaptureRecord.Module m) {
                    assertEquals("module_0001_01.ptx", m.fileName());
                    assertEquals(0x5555_0000L, m.handle());
                } else if (rec instanceof CaptureRecord.Kernel k) {
                    assertEquals("_Z3addPfS_", k.name());
                    assertEquals(1024, k.buffers().get(0).size());
                }
            }
            assertEquals(1, blobs);
            assertEquals(dev.zluda.spec.CudaApi.get().functions().size(), r.functions().size());
            assertTrue(r.status().endedCleanly(), r.status().toString());
        }
    }

    @Test
    void inMemoryImageReadsLikeTheFile() throws Exception {
        byte[] img = TestCaptures.bytes(4096, 2, 50, false, true);
        try (CaptureReader r = CaptureReader.open(Path.of("mem"), MemorySegment.ofArray(img))) {
            assertTrue(r.forEachRecord(x -> { }).endedCleanly());
        }
    }

    @Test
    void chunkRecordsDecodeLikeTheFullPass() throws Exception {
        Path f = dir.resolve("ra.zcap");
        TestCaptures.write(f, 4096, 3, 400, false, true);
        try (CaptureReader r = CaptureReader.open(f)) {
            int checked = 0;
            for (CaptureRecord x : r) {
                if (!(x instanceof CaptureRecord.Enter e)) continue;
                CaptureRecord.Enter y = (CaptureRecord.Enter) r.chunkRecords(e.offset()).stream()
                        .filter(z -> z.offset() == e.offset()).findFirst().orElseThrow();
                assertEquals(e.seq(), y.seq());
                assertEquals(e.ts(), y.ts());
                assertArrayEquals(e.args(), y.args());
                checked++;
            }
            assertTrue(checked > 400, "checked " + checked);
            assertTrue(r.chunkRecords(10).isEmpty());
        }
    }
}
