package dev.zluda.runtime;

import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureFormat;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.DataItem;
import dev.zluda.capture.KernelSnapshots;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Kernel snapshots of zluda's trace layer ({@code ZLUDA_CAPTURE_KERNELS}), checked against what the
 * same capture recorded independently at level {@code replay}: the before-image of every input
 * buffer must equal the bytes the program copied there with cuMemcpyHtoD, the after-image of the
 * output buffer the bytes it copied back with cuMemcpyDtoH, and the parameter words must be the
 * pointers cuMemAlloc returned. Runs the vectorAdd and scan samples on this module's libcuda.so.1;
 * skipped like {@link SamplesTest} when they cannot be built.
 */
class KernelSnapshotTest {
    private static Path bin, nativeDir;

    @BeforeAll
    static void build() throws Exception {
        nativeDir = NativeTests.nativeDir();
        bin = NativeTests.driverSamples();
    }

    private Capture record(Path logs, String regex, String... command) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(command));
        cmd.set(0, bin.resolve(cmd.getFirst()).toString());
        ProcessBuilder pb = NativeTests.onDriver(new ProcessBuilder(cmd).redirectErrorStream(true), nativeDir.toString());
        pb.environment().put("ZLUDA_LOG_DIR", logs.toString());
        pb.environment().put("ZLUDA_CAPTURE_LEVEL", "replay");
        pb.environment().put("ZLUDA_CAPTURE_KERNELS", regex);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.lines().anyMatch("PASS"::equals), out);
        return Capture.open(logs.resolve(command[0]));
    }

    /**
     * The driver's own events in the capture (MARKER records): the module compile and the launch's
     * execution — vectorAdd 5000 with 128 threads per CTA runs 40 CTAs — and zluda dump shows each
     * under the call that caused it.
     */
    @Test
    void theDriversOwnEventsAreInTheCapture(@TempDir Path tmp) throws Exception {
        try (Capture cap = record(tmp, "^$", "vectorAdd", "5000", "128")) {
            List<String> markers = new ArrayList<>();
            cap.reader().forEachRecord(r -> { if (r instanceof CaptureRecord.Marker m) markers.add(m.text()); });
            assertTrue(markers.stream().anyMatch(m -> m.startsWith("module compiled: ") && m.contains("1 kernel(s) (vectorAdd)")), markers::toString);
            String launch = markers.stream().filter(m -> m.startsWith("kernel vectorAdd ")).findFirst().orElseThrow(() -> new AssertionError(markers));
            assertTrue(launch.startsWith("kernel vectorAdd grid=(40,1,1) block=(128,1,1) shared=0: 40 CTAs, "), launch);
            long ti = Long.parseLong(launch.replaceAll(".*CTAs, (\\d+) thread-instructions.*", "$1"));
            assertTrue(ti >= 5000 * 5L, "each of the 5000 active threads executes several instructions: " + launch);
            java.io.StringWriter w = new java.io.StringWriter();
            dev.zluda.capture.text.Dump.dump(cap, dev.zluda.capture.text.Dump.Options.all(), new java.io.PrintWriter(w));
            List<String> lines = w.toString().lines().toList();
            int at = -1;
            for (int i = 0; i < lines.size(); i++) if (lines.get(i).startsWith("cuLaunchKernel(")) at = i;
            assertTrue(at >= 0 && lines.get(at + 1).startsWith("  # kernel vectorAdd grid=(40,1,1)"), w::toString);
        }
    }

    @Test
    void vectorAddSnapshotHoldsWhatTheProgramCopiedInAndOut(@TempDir Path tmp) throws Exception {
        try (Capture cap = record(tmp, "vectorAdd", "vectorAdd", "5000", "128")) {
            KernelSnapshots ks = KernelSnapshots.read(cap);
            assertEquals(1, ks.list().size());
            CaptureRecord.Kernel k = ks.list().getFirst().record();
            assertEquals("vectorAdd", k.name());
            assertEquals("cuLaunchKernel", ks.list().getFirst().launchFunction());
            CaptureRecord.KernelLaunch l = k.launch();
            assertNotNull(l);
            assertArrayEquals(new long[] {40, 1, 1, 128, 1, 1, 0, 0},
                    new long[] {l.gridX(), l.gridY(), l.gridZ(), l.blockX(), l.blockY(), l.blockZ(), l.sharedMemBytes(), l.result()});
            String ptx = new String(ks.blob(l.moduleHash(), "module"), StandardCharsets.UTF_8);
            assertTrue(ptx.contains(".entry vectorAdd("), ptx);

            // what the program did, from the calls recorded at level replay
            List<Long> allocs = new ArrayList<>();
            Map<Long, byte[]> copiedIn = new HashMap<>();
            byte[][] copiedOut = new byte[1][];
            long[] copiedOutFrom = new long[1];
            Map<Long, CaptureRecord.Enter> enters = new HashMap<>();
            for (CaptureRecord r : cap.reader()) {
                if (r instanceof CaptureRecord.Enter e) {
                    enters.put(e.seq(), e);
                    if (cap.functionName(e.functionId()).equals("cuMemcpyHtoD_v2")) copiedIn.put(e.args()[0], data(ks, e.data(), 1));
                } else if (r instanceof CaptureRecord.Leave lv) {
                    CaptureRecord.Enter e = enters.get(lv.enterSeq());
                    String fn = cap.functionName(e.functionId());
                    if (fn.equals("cuMemAlloc_v2")) allocs.add(le64(data(ks, lv.data(), 0), 0));
                    if (fn.equals("cuMemcpyDtoH_v2")) { copiedOut[0] = data(ks, lv.data(), 0); copiedOutFrom[0] = e.args()[1]; }
                }
            }
            assertEquals(3, allocs.size());
            assertEquals(2, copiedIn.size());
            // parameters: a, b, c pointers then n, as the PTX lays them out
            assertEquals(28, k.params().length);
            for (int i = 0; i < 3; i++) assertEquals(allocs.get(i), le64(k.params(), 8 * i), "parameter " + i);
            assertEquals(5000, ByteBuffer.wrap(k.params()).order(ByteOrder.LITTLE_ENDIAN).getInt(24));
            assertEquals(3, k.buffers().size());
            for (int i = 0; i < 3; i++) {
                CaptureRecord.KernelBuffer b = k.buffers().get(i);
                assertEquals(allocs.get(i), b.devicePointer());
                assertEquals(20000, b.size());
                byte[] before = ks.blob(b.before(), "before"), after = ks.blob(b.after(), "after");
                if (i < 2) {
                    assertArrayEquals(copiedIn.get(b.devicePointer()), before, "input " + i + " before the kernel");
                    assertArrayEquals(before, after, "input " + i + " is not written");
                } else {
                    assertEquals(copiedOutFrom[0], b.devicePointer());
                    assertArrayEquals(copiedOut[0], after, "the output after the kernel is what the program copied back");
                    assertFalse(Arrays.equals(before, after));
                }
            }
        }
    }

    @Test
    void onlyTheKernelsTheRegexFindsAreSnapshotted(@TempDir Path tmp) throws Exception {
        try (Capture cap = record(tmp, "^addBlock", "scan", "5000", "64")) {
            KernelSnapshots ks = KernelSnapshots.read(cap);
            long launches = 0, addLaunches = 0;
            Map<Long, String> names = new HashMap<>();
            for (CaptureRecord r : cap.reader()) {
                if (r instanceof CaptureRecord.Enter e && cap.functionName(e.functionId()).equals("cuLaunchKernel")) launches++;
            }
            for (KernelSnapshots.Snapshot s : ks.list()) {
                assertEquals("addBlockOffsets", s.name());
                names.put(s.record().launchSeq(), s.name());
                addLaunches++;
            }
            // scan 5000 64: levels 5000 -> 79 -> 2, scanBlocks on every level, addBlockOffsets on all but the last
            assertTrue(addLaunches >= 1 && addLaunches < launches, addLaunches + " of " + launches);
            assertEquals(addLaunches, names.size(), "one snapshot per launch");
        }
    }

    private static byte[] data(KernelSnapshots ks, List<DataItem> items, int param) throws Exception {
        for (DataItem d : items) {
            if (d.param() != param) continue;
            if (d.kind() == CaptureFormat.ITEM_INLINE) return d.bytes();
            if (d.kind() == CaptureFormat.ITEM_BLOB) return ks.blob(d.hash(), "data of parameter " + param);
        }
        throw new AssertionError("no data for parameter " + param + " in " + items);
    }

    private static long le64(byte[] b, int off) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong(off);
    }
}
