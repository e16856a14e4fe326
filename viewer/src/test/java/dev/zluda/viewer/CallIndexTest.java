package dev.zluda.viewer;

import dev.zluda.diff.CallIndex;
import dev.zluda.capture.Call;
import dev.zluda.capture.CallAssembler;
import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.text.CallFormatter;
import dev.zluda.capture.text.Dump;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;

/** The index and the on-demand decoding, without a window. */
class CallIndexTest {
    @TempDir
    Path dir;

    private static CallIndex load(Capture cap) {
        CallIndex idx = new CallIndex(cap);
        idx.load(null, null);
        assertTrue(idx.isComplete());
        return idx;
    }

    @Test
    void everyRecordedCallIndexesAndFormatsAsTheAssemblerAndDumpSeeIt() throws Exception {
        SyntheticCapture.write(dir, 3000, 3);
        try (Capture cap = Capture.open(dir)) {
            CallIndex idx = load(cap);
            List<Call> calls = new ArrayList<>();
            CallAssembler asm = new CallAssembler(new CallAssembler.Listener() {
                @Override
                public void call(Call c) {
                    add(c);
                }

                void add(Call c) {
                    calls.add(c);
                    c.children().forEach(this::add);
                }
            });
            try (Capture again = Capture.open(dir)) {
                for (CaptureRecord r : again.reader()) asm.accept(r);
                asm.finish();
                calls.sort(Comparator.comparingLong(Call::ordinal));
                CallFormatter fmt = new CallFormatter(again::specFunction, again::functionName, asm.strings());
                long start = again.reader().header().startMonotonicNs();
                assertEquals(calls.size(), idx.size());
                CallDecoder dec = new CallDecoder(idx);
                for (int i = 0; i < calls.size(); i++) {
                    Call c = calls.get(i);
                    assertEquals(c.enter().functionId(), idx.function(i), "function of call " + i);
                    assertEquals(c.threadId(), idx.threadId(i));
                    assertEquals(c.enter().ts() - start, idx.start(i));
                    assertEquals(c.durationNs(), idx.duration(i));
                    assertEquals(c.leave().result(), idx.result(i));
                    assertEquals(c.enter().depth(), idx.depth(i));
                    assertEquals(fmt.format(c), dec.line(i), "text of call " + i);
                    assertEquals(c.children().size(), idx.children(i, 100).size());
                }
            }
            // the nested cuCtxGetCurrent of the first launch knows its parent
            int launch = firstOf(idx, "cuLaunchKernel");
            assertEquals(List.of(launch + 1), idx.children(launch, 10));
            assertEquals(launch, idx.parent(launch + 1));
            assertEquals("vectorAdd", idx.kernelName(SyntheticCapture.FUNCTION).name());
            assertEquals(SyntheticCapture.MODULE, idx.kernelName(SyntheticCapture.FUNCTION).module());
            assertEquals(1, idx.modules().size());
            assertEquals(2, idx.blobs().size());
            assertEquals(3, idx.threadCount());
            assertEquals("main", idx.threadName(1000));
            // the module's image comes back from its LZ4 blob
            List<CaptureContent.Module> mods = CaptureContent.modules(idx);
            assertEquals(1, mods.size());
            assertEquals(SyntheticCapture.PTX, new String(CaptureContent.bytes(idx, mods.getFirst()), java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    static int firstOf(CallIndex idx, String fn) {
        for (int i = 0; i < idx.size(); i++) if (idx.functionName(idx.function(i)).equals(fn)) return i;
        throw new AssertionError("no " + fn);
    }

    @Test
    void realCapturesReadAsZludaDumpPrintsThem() throws Exception {
        for (String s : new String[] {"vectorAdd", "matrixMul", "reduction", "histogram", "scan", "illegalAccess", "vectorAdd-replay"}) {
            StringWriter sw = new StringWriter();
            try (Capture cap = Capture.open(Fx.sample(s))) {
                Dump.dump(cap, Dump.Options.all(), new PrintWriter(sw));
            }
            List<String> lines = Arrays.stream(sw.toString().split("\n")).filter(l -> !l.startsWith("#") && !l.isEmpty()).toList();
            try (Capture cap = Capture.open(Fx.sample(s))) {
                CallIndex idx = load(cap);
                CallDecoder dec = new CallDecoder(idx);
                assertEquals(lines.size(), idx.size(), s);
                for (int i = 0; i < lines.size(); i++) assertEquals(lines.get(i), dec.line(i), s + " call " + (i + 1));
            }
        }
    }

    @Test
    void filtersSelectByFunctionThreadErrorsAndTime() throws Exception {
        SyntheticCapture.write(dir, 12_000, 2);
        try (Capture cap = Capture.open(dir)) {
            CallIndex idx = load(cap);
            CallRows all = new CallRows(idx, CallFilter.ALL);
            all.refresh();
            assertEquals(idx.size(), all.size());
            CallRows mem = new CallRows(idx, new CallFilter(Pattern.compile("^cuMem"), null, false, Long.MIN_VALUE, Long.MAX_VALUE));
            mem.refresh();
            long expected = 0;
            for (int i = 0; i < idx.size(); i++) if (idx.functionName(idx.function(i)).startsWith("cuMem")) expected++;
            assertEquals(expected, mem.size());
            assertTrue(mem.size() > 0);
            CallRows errors = new CallRows(idx, new CallFilter(null, null, true, Long.MIN_VALUE, Long.MAX_VALUE));
            errors.refresh();
            assertEquals(idx.errors(), errors.size());
            assertTrue(errors.size() >= 2, "errors " + errors.size());
            for (int r = 0; r < errors.size(); r++) assertTrue(idx.failed(errors.callAt(r)));
            CallRows t1 = new CallRows(idx, new CallFilter(null, 1001L, false, Long.MIN_VALUE, Long.MAX_VALUE));
            t1.refresh();
            for (int r = 0; r < t1.size(); r++) assertEquals(1001L, idx.threadId(t1.callAt(r)));
            long mid = idx.start(idx.size() / 2);
            CallRows late = new CallRows(idx, new CallFilter(null, null, false, mid, Long.MAX_VALUE));
            late.refresh();
            assertEquals(idx.size() - idx.firstStartingAtOrAfter(mid), late.size());
            assertEquals(late.rowOf(late.callAt(3)), 3);
            assertEquals(-1, late.rowOf(0));
        }
    }

    @Test
    void aCancelledLoadKeepsTheCallsReadSoFar() throws Exception {
        SyntheticCapture.write(dir, 60_000, 2);
        try (Capture cap = Capture.open(dir)) {
            CallIndex idx = new CallIndex(cap);
            assertNull(idx.load(null, () -> true));
            assertTrue(idx.isCancelled());
            assertFalse(idx.isComplete());
            assertTrue(idx.size() > 0 && idx.size() < 60_000, "size " + idx.size());
            assertEquals("cuInit", idx.functionName(idx.function(0)));
        }
    }

    /** A library function that returns a value rather than a status shows the value, as zluda dump prints it (H200 PyTorch capture). */
    @Test
    void aLibraryFunctionsReturnedValueIsShownAsDumpShowsIt() throws Exception {
        try (Capture cap = Capture.open(Path.of("../samples/traces/h200/torch_libs.zip"))) {
            CallIndex idx = load(cap);
            CallDecoder dec = new CallDecoder(idx);
            StringWriter sw = new StringWriter();
            Dump.dump(cap, Dump.Options.all(), new PrintWriter(sw));
            List<String> dumped = sw.toString().lines().map(String::strip).filter(l -> l.startsWith("cublasLtGetVersion(")).toList();
            assertFalse(dumped.isEmpty(), "the capture holds cublasLtGetVersion");
            assertTrue(dumped.getFirst().matches("cublasLtGetVersion\\(\\) -> [1-9][0-9]+"), dumped.getFirst());
            int found = 0;
            for (int call = 0; call < idx.size(); call++) {
                if (!idx.functionName(idx.function(call)).equals("cublasLtGetVersion")) continue;
                assertEquals(dumped.get(found++), dec.line(call));
            }
            assertEquals(dumped.size(), found);
        }
    }
}
