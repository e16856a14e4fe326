package dev.zluda.diff;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Real pairs: the same nvcc-built runtime-API programs (samples/src/main/cu, built once on the GPU
 * machine) traced on an NVIDIA H200 through the NVIDIA tracer and here on zluda's emulator with
 * {@code zluda run --zluda-trace} (samples/traces/pairs, README there). The two captures line up call
 * by call apart from expected differences; what still diverges is listed here, each for a reason
 * docs/support.md gives, so any other divergence — a kernel computing another value, a call zluda
 * answers differently — fails the test.
 */
class RealPairTest {
    static final Path PAIRS = Path.of("..", "samples", "traces", "pairs");

    /** Functions whose divergence is known and explained (docs/support.md, "Known differences from an NVIDIA run"). */
    static final Map<String, Set<DiffKind>> KNOWN = Map.of(
            // one export table cudart asks for that zluda does not provide; cudart goes on without it
            "cuGetExportTable", Set.of(DiffKind.RESULT),
            // register counts and the SASS version are the compiler's and the device's (ptxas for sm_90 vs the emulator)
            "cuKernelGetAttribute", Set.of(DiffKind.DATA),
            // occupancy follows from the register counts: cudaOccupancyMaxPotentialBlockSize probes other block sizes
            "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", Set.of(DiffKind.DATA, DiffKind.EXTRA, DiffKind.MISSING),
            // cudart's teardown after the driver's exit handler: NVIDIA answers CUDA_ERROR_DEINITIALIZED, zluda records none
            "cuLibraryUnload", Set.of(DiffKind.MISSING),
            "cuDevicePrimaryCtxRelease", Set.of(DiffKind.MISSING));

    @ParameterizedTest
    @ValueSource(strings = {"templates", "warp", "constant", "printf"})
    void anNvccProgramOnTheH200AndOnZludaLinesUp(String name) throws Exception {
        DiffResult r = DiffEngine.diff(PAIRS.resolve(name + "-h200.zip"), PAIRS.resolve(name + "-zluda.zip"), DiffOptions.defaults());
        assertTrue(r.a().calls() > 500 && r.b().calls() > 500, "whole runs: " + r.a().calls() + " / " + r.b().calls());
        assertTrue(r.matchedCalls() >= r.a().calls() - 12, "calls paired: " + r.matchedCalls() + " of " + r.a().calls());
        assertTrue(r.ignoredCounts().getOrDefault(Expected.EXPORT_TABLE, 0L) > 0, "the tracer's export-table calls are set aside");
        assertEquals(java.util.List.of(), unexplained(r));
    }

    /** The divergences {@link #KNOWN} does not explain, one line each; any device-to-host copy that differs is one. */
    static java.util.List<String> unexplained(DiffResult r) {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (DiffResult.Divergence d : r.divergences()) {
            Set<DiffKind> ok = KNOWN.get(d.function());
            if (ok == null || !ok.contains(d.kind())) {
                out.add(d.kind() + " in " + d.function() + " (A call " + d.a().call() + ", B call " + d.b().call() + "): " + d.differences());
            }
        }
        return out;
    }

    @Test
    void aKernelResultThatDiffersIsNotExplainedAway(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        // the zluda side with one element of the warp kernel's results changed in the copy to the host
        Path zluda = tmp.resolve("warp-zluda");
        java.nio.file.Files.createDirectories(zluda);
        dev.zluda.capture.Pack.unpack(PAIRS.resolve("warp-zluda.zip"), zluda);
        boolean[] planted = {false};
        Path b = Rewrite.copy(zluda, tmp.resolve("planted"), new Rewrite.Editor() {
            @Override
            public void leave(Rewrite.Call c) {
                if (planted[0] || !c.function.startsWith("cuMemcpyDtoH") || c.out.isEmpty()) return;
                try {
                    byte[] x = (c.out.getFirst().isInline() ? c.out.getFirst().bytes() : Rewrite.blobBytes(c, c.out.getFirst())).clone();
                    x[0] ^= 1;
                    c.out.set(0, c.out.getFirst().isInline()
                            ? new dev.zluda.capture.DataItem(0, dev.zluda.capture.CaptureFormat.ITEM_INLINE, x, 0, x.length, -1) : c.blob(0, x));
                    planted[0] = true;
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            }
        });
        assertTrue(planted[0], "the warp program copies its results to the host");
        java.util.List<String> u = unexplained(DiffEngine.diff(PAIRS.resolve("warp-h200.zip"), b, DiffOptions.defaults()));
        assertEquals(1, u.size(), u::toString);
        assertTrue(u.getFirst().contains("cuMemcpyDtoH"), u::toString);
    }
}
