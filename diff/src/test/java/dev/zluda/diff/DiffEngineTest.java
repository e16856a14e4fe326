package dev.zluda.diff;

import dev.zluda.capture.CaptureFormat;
import dev.zluda.capture.DataItem;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The diff on the captures recorded on an NVIDIA H200 (samples/traces/h200), against themselves, against
 * copies with other handle and pointer values, and against copies with planted divergences.
 */
class DiffEngineTest {
    static final Path H200 = Path.of("..", "samples", "traces", "h200");
    static final Path VECTOR_ADD = H200.resolve("vectorAdd-replay");
    @TempDir
    static Path tmp;
    static Path remapped;

    @BeforeAll
    static void remappedCopy() throws Exception {
        remapped = Rewrite.copy(VECTOR_ADD, tmp.resolve("remapped"), Rewrite.remap());
    }

    static DiffResult diff(Path a, Path b) throws Exception {
        return DiffEngine.diff(a, b, DiffOptions.defaults());
    }

    @ParameterizedTest
    @ValueSource(strings = {"vectorAdd", "vectorAdd-replay", "matrixMul", "reduction", "histogram", "scan", "illegalAccess"})
    void aCaptureIsTheSameAsItself(String name) throws Exception {
        DiffResult r = diff(H200.resolve(name), H200.resolve(name));
        assertTrue(r.same(), () -> name + ": " + r.divergences());
        assertEquals(0, r.exitCode());
        assertNull(r.first());
        assertTrue(r.ignoredCounts().isEmpty(), () -> r.ignored().toString());
        assertEquals(r.a().calls(), r.matchedCalls());
    }

    @ParameterizedTest
    @ValueSource(strings = {"vectorAdd-replay", "scan", "matrixMul", "illegalAccess"})
    void otherHandleAndPointerValuesAreTheSame(String name) throws Exception {
        Path copy = name.equals("vectorAdd-replay") ? remapped : Rewrite.copy(H200.resolve(name), tmp.resolve("remapped-" + name), Rewrite.remap());
        DiffResult r = diff(H200.resolve(name), copy);
        assertTrue(r.same(), () -> name + ": " + r.divergences());
        // host addresses differ and are listed as ignored; with --strict they count
        assertTrue(r.ignoredCounts().getOrDefault(Expected.ADDRESS, 0L) > 0);
        DiffResult strict = DiffEngine.diff(H200.resolve(name), copy, DiffOptions.defaults().withStrict(true));
        assertFalse(strict.same());
    }

    /**
     * cudart_demo was traced on the H200 through the NVIDIA tracer, which records cudart's calls through
     * the export tables ({GUID}::slot N); zluda's driver serves those tables itself and records none. A
     * copy without them is the same by default (they are counted as ignored), and differs with --strict.
     */
    @Test
    void callsThroughExportTableSlotsAreIgnoredUnlessStrict() throws Exception {
        Path a = H200.resolve("cudart_demo");
        long[] dropped = {0};
        Path b = Rewrite.copy(a, tmp.resolve("no-slots"), new Rewrite.Editor() {
            @Override
            public void enter(Rewrite.Call c) {
                if (c.function.contains("}::slot ")) { c.drop = true; dropped[0]++; }
            }
        });
        assertTrue(dropped[0] > 0, "the H200 capture holds calls through export-table slots");
        DiffResult r = diff(a, b);
        assertTrue(r.same(), () -> r.divergences().toString());
        assertEquals(dropped[0], r.ignoredCounts().get(Expected.EXPORT_TABLE));
        DiffResult strict = DiffEngine.diff(a, b, DiffOptions.defaults().withStrict(true));
        assertFalse(strict.same());
    }

    /**
     * The vectorAdd capture recorded at level replay against a copy without the host buffers of its
     * three copies (what level calls keeps): with the copy's manifest saying level calls, the buffers
     * kept by one side only are not differences of the runs (ignored: capture level, and said in a note);
     * with --strict they count; and with both manifests saying replay, a missing buffer stays a divergence.
     */
    @Test
    void hostDataKeptByOneCaptureLevelOnlyIsSaidAndNotCounted() throws Exception {
        long[] dropped = {0};
        Rewrite.Editor noHostData = new Rewrite.Editor() {
            @Override
            public void enter(Rewrite.Call c) {
                if (c.function.startsWith("cuMemcpyHtoD")) { dropped[0] += c.in.size(); c.in.clear(); }
            }

            @Override
            public void leave(Rewrite.Call c) {
                if (c.function.startsWith("cuMemcpyDtoH")) { dropped[0] += c.out.size(); c.out.clear(); }
            }
        };
        Path lean = Rewrite.copy(remapped, tmp.resolve("lean"), noHostData);
        assertEquals(3, dropped[0], "two copies to the device, one back");
        DiffResult replayReplay = diff(lean, VECTOR_ADD);
        assertFalse(replayReplay.same(), "both say level replay: the missing buffers are divergences");
        assertEquals(3, replayReplay.counts().get(DiffKind.DATA));
        assertTrue(replayReplay.notes().isEmpty(), replayReplay.notes()::toString);

        Path manifest = lean.resolve("manifest.json");
        String m = Files.readString(manifest);
        assertTrue(m.contains("\"data\" : \"replay\"") || m.contains("\"data\": \"replay\""), m);
        Files.writeString(manifest, m.replaceFirst("\"data\"(\\s*):(\\s*)\"replay\"", "\"data\"$1:$2\"calls\""));
        DiffResult r = diff(lean, VECTOR_ADD);
        assertTrue(r.same(), () -> r.divergences().toString());
        assertEquals(3L, r.ignoredCounts().get(Expected.CAPTURE_LEVEL));
        assertEquals(List.of("A was recorded at level calls, B at level replay: host data (the bytes of host buffers the calls passed or got back)"
                + " is compared only where both have it; 3 buffers kept by B only left out (ignored: capture level; --strict counts them)"), r.notes());
        java.io.StringWriter text = new java.io.StringWriter();
        TextReport.write(r, new java.io.PrintWriter(text));
        assertTrue(text.toString().lines().toList().get(2).startsWith("Note: A was recorded at level calls, B at level replay"), text.toString());
        // the copies back to the host were kept by B only, and no kernel snapshot: no result was compared
        assertFalse(r.resultsCompared());
        assertTrue(text.toString().contains("\nSAME (calls and arguments only; result data was recorded on one side only): no divergence in "), text.toString());
        DiffResult strict = DiffEngine.diff(lean, VECTOR_ADD, DiffOptions.defaults().withStrict(true));
        assertEquals(3, strict.counts().get(DiffKind.DATA));
        assertTrue(strict.notes().getFirst().endsWith("3 buffers kept by B only counted as divergences (--strict)"), strict.notes()::toString);
        // the other way round: B is the side that lacks them
        DiffResult reverse = diff(VECTOR_ADD, lean);
        assertTrue(reverse.same(), () -> reverse.divergences().toString());
        assertTrue(reverse.notes().getFirst().startsWith("A was recorded at level replay, B at level calls"), reverse.notes()::toString);
    }

    /** vectorAdd 4096 on the H200 with and without a kernel snapshot: the report says so in its header. */
    @Test
    void kernelSnapshotsOnOneSideOnlyAreSaid() throws Exception {
        DiffResult r = diff(H200.resolve("vectorAdd-kernels"), H200.resolve("vectorAdd"));
        // both are at level calls (their manifests): that note comes first, then the one on snapshots
        assertEquals(2, r.notes().size(), r.notes()::toString);
        assertTrue(r.notes().getFirst().startsWith("both captures were recorded at level calls"), r.notes()::toString);
        assertEquals("A was recorded with kernel snapshots (--capture-kernels), B without: the kernels' buffers are compared only where both"
                + " have a snapshot (here nowhere); record both with --capture-kernels REGEX to compare them", r.notes().get(1));
        assertFalse(r.resultsCompared(), "no snapshot pair, no device-to-host data");
        assertTrue(diff(H200.resolve("vectorAdd-replay"), H200.resolve("vectorAdd-replay")).notes().isEmpty());
    }

    @Test
    void aComparisonStopsWhenCancelled() throws Exception {
        int[] asked = {0};
        try (var ca = dev.zluda.capture.Capture.open(VECTOR_ADD); var cb = dev.zluda.capture.Capture.open(VECTOR_ADD)) {
            DiffEngine e = new DiffEngine(DiffOptions.defaults()).cancelWhen(() -> ++asked[0] > 1);
            var x = assertThrows(java.util.concurrent.CancellationException.class, () -> e.diff(ca, cb));
            assertEquals("comparison cancelled", x.getMessage());
        }
        assertEquals(2, asked[0], "asked before reading, stopped after reading");
        try (var ca = dev.zluda.capture.Capture.open(VECTOR_ADD); var cb = dev.zluda.capture.Capture.open(VECTOR_ADD)) {
            assertTrue(new DiffEngine(DiffOptions.defaults()).cancelWhen(() -> false).diff(ca, cb).same());
        }
    }

    @Test
    void changedResult() throws Exception {
        Path b = Rewrite.copy(VECTOR_ADD, tmp.resolve("result"), new Rewrite.Editor() {
            @Override
            public void leave(Rewrite.Call c) {
                if (c.ordinal == 14) c.result = 700; // cuCtxSynchronize -> CUDA_ERROR_ILLEGAL_ADDRESS
            }
        });
        DiffResult r = diff(VECTOR_ADD, b);
        assertEquals(1, r.exitCode());
        assertEquals(1, r.divergingCalls());
        DiffResult.Divergence f = r.first();
        assertEquals(DiffKind.RESULT, f.kind());
        assertEquals(14, f.a().call());
        assertEquals(14, f.b().call());
        assertEquals("cuCtxSynchronize", f.function());
        assertEquals("CUDA_SUCCESS", f.differences().getFirst().a());
        assertEquals("CUDA_ERROR_ILLEGAL_ADDRESS", f.differences().getFirst().b());
        assertEquals(1L, r.counts().get(DiffKind.RESULT));
    }

    @Test
    void changedOutputValue() throws Exception {
        // on top of other handle values: cuDeviceGet answers device 1 instead of 0
        Path b = Rewrite.copy(remapped, tmp.resolve("output"), new Rewrite.Editor() {
            @Override
            public void leave(Rewrite.Call c) {
                if (c.ordinal == 2) c.out.set(0, new DataItem(0, CaptureFormat.ITEM_INLINE, new byte[] {1, 0, 0, 0}, 0, 4, -1));
            }
        });
        DiffResult r = diff(VECTOR_ADD, b);
        DiffResult.Divergence f = r.first();
        assertEquals(DiffKind.OUTPUT, f.kind());
        assertEquals(2, f.a().call());
        assertEquals(2, f.b().call());
        assertEquals("cuDeviceGet", f.function());
        DiffResult.Difference d = f.differences().getFirst();
        assertEquals("device (output)", d.what());
        assertEquals("0", d.a());
        assertEquals("1", d.b());
        assertEquals(1, r.divergingCalls());
    }

    @Test
    void changedHandleIsFoundWhereItIsUsed() throws Exception {
        // the launch names another function handle than the one cuModuleGetFunction returned
        Path b = Rewrite.copy(VECTOR_ADD, tmp.resolve("handle"), new Rewrite.Editor() {
            @Override
            public void enter(Rewrite.Call c) {
                if (c.ordinal == 13) c.args[0] += 0x100;
            }
        });
        DiffResult r = diff(VECTOR_ADD, b);
        DiffResult.Divergence f = r.first();
        assertEquals(DiffKind.ARGUMENT, f.kind());
        assertEquals(13, f.a().call());
        assertEquals("f", f.differences().getFirst().what());
        assertEquals("func#1", f.differences().getFirst().a());
        assertEquals("func#2", f.differences().getFirst().b());
    }

    @Test
    void changedDeviceToHostDataAtAKnownElement() throws Exception {
        Path b = Rewrite.copy(remapped, tmp.resolve("data"), Rewrite.editOutput(15, bb -> {
            bb.putFloat(100 * 4, bb.getFloat(100 * 4) + 0.5f);
            bb.putFloat(700 * 4, Float.NaN);
        }));
        DiffResult r = diff(VECTOR_ADD, b);
        assertEquals(1, r.divergingCalls(), () -> r.divergences().toString());
        DiffResult.Divergence f = r.first();
        assertEquals(DiffKind.DATA, f.kind());
        assertEquals(15, f.a().call());
        assertEquals(15, f.b().call());
        assertEquals("cuMemcpyDtoH_v2", f.function());
        DiffResult.DataDiff dd = f.data();
        assertNotNull(dd);
        assertEquals("f32", dd.elementType());
        assertEquals(100, dd.firstElement());
        assertEquals(400, dd.byteOffset());
        assertEquals(2, dd.differing());
        assertEquals(1024, dd.elements());
        assertEquals(0.5, dd.maxAbs(), 1e-3);
        assertEquals("dstHost ← srcDevice dptr#3", dd.buffer());
        assertNotNull(dd.heatmap());
        assertEquals(2, dd.heatmap().differingCells());
        // within a tolerance that covers 0.5 only the NaN is left
        DiffResult tol = DiffEngine.diff(VECTOR_ADD, b, DiffOptions.defaults().withTolerance(new Tolerance(0, 1, 0)));
        assertEquals(1, tol.first().data().differing());
        assertEquals(700, tol.first().data().firstElement());
    }

    @Test
    void dataWithinToleranceIsTheSame() throws Exception {
        Path b = Rewrite.copy(VECTOR_ADD, tmp.resolve("ulp"), Rewrite.editOutput(15, bb -> bb.putFloat(8, Math.nextUp(bb.getFloat(8)))));
        assertFalse(diff(VECTOR_ADD, b).same());
        DiffResult r = DiffEngine.diff(VECTOR_ADD, b, DiffOptions.defaults().withTolerance(new Tolerance(0, 0, 1)));
        assertTrue(r.same(), () -> r.divergences().toString());
        assertEquals(1, r.toleratedBuffers());
    }

    @Test
    void extraCall() throws Exception {
        Path b = Rewrite.copy(remapped, tmp.resolve("extra"), new Rewrite.Editor() {
            @Override
            public void enter(Rewrite.Call c) {
                if (c.ordinal == 12) c.before.add(new Rewrite.Synthetic("cuCtxSynchronize", new long[0], 0, List.of()));
            }
        });
        DiffResult r = diff(VECTOR_ADD, b);
        assertEquals(1, r.divergingCalls(), () -> r.divergences().toString());
        DiffResult.Divergence f = r.first();
        assertEquals(DiffKind.EXTRA, f.kind());
        assertFalse(f.a().present());
        assertEquals(11, f.a().after());
        assertEquals(12, f.b().call());
        assertEquals("cuCtxSynchronize", f.function());
        assertEquals(r.a().calls(), r.matchedCalls());
    }

    @Test
    void alignmentPutsTheCallsSideBySideWithGaps() throws Exception {
        // B: an extra call before A's 12 (B's 12), so A's 12..20 are B's 13..21; A's 14 fails, A's 15 copies other data
        Path b = PlantedPair.write(VECTOR_ADD, tmp.resolve("planted-pair"));
        try (var ca = dev.zluda.capture.Capture.open(VECTOR_ADD); var cb = dev.zluda.capture.Capture.open(b)) {
            DiffEngine e = new DiffEngine(DiffOptions.defaults());
            DiffResult r = e.diff(ca, cb);
            Alignment al = e.alignment();
            assertEquals(21, al.size());
            for (int row = 0; row < 11; row++) {
                assertEquals(row + 1, al.aCall(row));
                assertEquals(row + 1, al.bCall(row));
            }
            assertEquals(-1, al.aCall(11));
            assertEquals(12, al.bCall(11));
            assertNull(al.aFunction(11));
            assertEquals("cuCtxSynchronize", al.bFunction(11));
            for (int row = 12; row < 21; row++) {
                assertEquals(row, al.aCall(row));
                assertEquals(row + 1, al.bCall(row));
            }
            assertEquals("CUDA_SUCCESS", al.aResult(14));
            assertEquals("CUDA_ERROR_ILLEGAL_ADDRESS", al.bResult(14));
            assertEquals("cuMemcpyDtoH_v2", al.aFunction(15));
            assertEquals(3, r.divergingCalls(), () -> r.divergences().toString());
            assertEquals(List.of(11, 14, 15), r.divergences().stream().map(al::rowOf).toList());
            assertEquals(14, al.rowOfA(14));
            assertEquals(14, al.rowOfB(15));
            assertTrue(al.bText(14).startsWith("cuCtxSynchronize() -> CUDA_ERROR_ILLEGAL_ADDRESS"), al.bText(14));
        }
    }

    @Test
    void anExtraAllocationShiftsNoNumbers() throws Exception {
        // B allocates one more buffer before the three of A: its dptr#2..#4 are A's dptr#1..#3
        Path b = Rewrite.copy(remapped, tmp.resolve("extra-alloc"), new Rewrite.Editor() {
            @Override
            public void enter(Rewrite.Call c) {
                if (c.ordinal == 8) {
                    byte[] v = new byte[8];
                    long p = 0x7f00_0000_0000L;
                    for (int i = 0; i < 8; i++) v[i] = (byte) (p >>> (8 * i));
                    c.before.add(new Rewrite.Synthetic("cuMemAlloc_v2", new long[] {0x7ffd0000L, 256}, 0,
                            List.of(new DataItem(0, CaptureFormat.ITEM_INLINE, v, 0, 8, -1))));
                }
            }
        });
        DiffResult r = diff(VECTOR_ADD, b);
        assertEquals(1, r.divergingCalls(), () -> r.divergences().toString());
        assertEquals(DiffKind.EXTRA, r.first().kind());
        assertEquals(8, r.first().b().call());
        assertEquals(7, r.first().a().after());
        assertTrue(r.first().b().text().startsWith("cuMemAlloc_v2(dptr: dptr#1, bytesize: 256)"), r.first().b().text());
    }

    @Test
    void missingCall() throws Exception {
        Path b = Rewrite.copy(remapped, tmp.resolve("missing"), new Rewrite.Editor() {
            @Override
            public void enter(Rewrite.Call c) {
                if (c.ordinal == 16) c.drop = true; // the first cuMemFree_v2
            }
        });
        DiffResult r = diff(VECTOR_ADD, b);
        assertEquals(1, r.divergingCalls(), () -> r.divergences().toString());
        DiffResult.Divergence f = r.first();
        assertEquals(DiffKind.MISSING, f.kind());
        assertEquals(16, f.a().call());
        assertFalse(f.b().present());
        assertEquals(15, f.b().after());
        assertEquals("cuMemFree_v2", f.function());
        assertEquals(1L, r.counts().get(DiffKind.MISSING));
    }

    @Test
    void expectedDifferencesAreIgnoredUnlessStrict() throws Exception {
        Path b = Rewrite.copy(VECTOR_ADD, tmp.resolve("name"), new Rewrite.Editor() {
            @Override
            public void leave(Rewrite.Call c) {
                if (c.function.equals("cuDeviceGetName")) {
                    byte[] n = "ZLUDA emulator (CPU)".getBytes();
                    c.out.set(0, new DataItem(0, CaptureFormat.ITEM_INLINE, n, 0, n.length, -1));
                }
            }
        });
        DiffResult r = diff(VECTOR_ADD, b);
        assertTrue(r.same());
        assertEquals(1L, r.ignoredCounts().get(Expected.DEVICE_NAME));
        DiffResult.Ignored i = r.ignored().getFirst();
        assertEquals("\"NVIDIA H200\"", i.a());
        assertEquals("\"ZLUDA emulator (CPU)\"", i.b());
        DiffResult s = DiffEngine.diff(VECTOR_ADD, b, DiffOptions.defaults().withStrict(true));
        assertEquals(DiffKind.OUTPUT, s.first().kind());
        assertEquals(3, s.first().a().call());
    }

    @Test
    void differentProgramsAlignOnWhatTheyShare() throws Exception {
        DiffResult r = diff(H200.resolve("vectorAdd"), H200.resolve("matrixMul"));
        assertFalse(r.same());
        // vectorAdd uses the primary context, matrixMul creates one
        assertEquals(DiffKind.MISSING, r.first().kind());
        assertEquals("cuDevicePrimaryCtxRetain", r.first().function());
        assertTrue(r.warnings().stream().anyMatch(w -> w.contains("different programs")));
        // cuModuleGetFunction is paired and its kernel name differs
        assertTrue(r.divergences().stream().anyMatch(d -> d.function().equals("cuModuleGetFunction") && d.kind() == DiffKind.ARGUMENT
                && d.differences().getFirst().b().equals("\"matrixMul\"")));
    }

    @Test
    void badInputNamesTheFile() throws Exception {
        Path junk = Files.writeString(tmp.resolve("junk.zcap"), "not a capture");
        var e = assertThrows(dev.zluda.capture.CaptureException.class, () -> diff(VECTOR_ADD, junk));
        assertTrue(e.getMessage().contains("junk.zcap"), e.getMessage());
    }
}
