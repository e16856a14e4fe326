package dev.zluda.diff;

import dev.zluda.capture.CaptureWriter;
import dev.zluda.capture.DataItems;
import dev.zluda.capture.FunctionDef;
import dev.zluda.capture.ThreadLog;
import dev.zluda.spec.CudaApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Alignment at scale: two generated captures of N calls (100,000 by default; 1,000,000 with
 * {@code -Dzluda.diff.scale=1000000}, the figure in docs/benchmarks.md) with different handle and
 * pointer values and four planted divergences: a changed result, an extra call (cuStreamQuery), a missing call (cuLaunchKernel)
 * and a changed element of device-to-host data. The diff must find exactly those, at the right
 * call numbers, within 5 s.
 */
class ScaleTest {
    static final int N = Integer.getInteger("zluda.diff.scale", 100_000);

    @TempDir
    Path tmp;

    /** Planted divergences: call numbers in A and B. */
    record Planted(long resultA, long resultB, long extraB, long extraAfterA, long missingA, long missingAfterB, long dataA, long dataB) {}

    static int id(String name) {
        return CudaApi.get().function(name).orElseThrow().id();
    }

    /**
     * Writes A and B: groups of five calls (cuMemAlloc_v2, cuLaunchKernel, cuCtxSynchronize,
     * cuMemcpyDtoH_v2 of 64 bytes, cuMemFree_v2) on one thread, plus a second thread that
     * queries the current context every 1000 groups.
     */
    static Planted write(Path a, Path b, int calls) throws IOException {
        int groups = calls / 5;
        int gResult = groups / 5, gExtra = 2 * groups / 5, gMissing = 3 * groups / 5, gData = 4 * groups / 5;
        int fAlloc = id("cuMemAlloc_v2"), fLaunch = id("cuLaunchKernel"), fSync = id("cuCtxSynchronize"), fDtoH = id("cuMemcpyDtoH_v2"),
                fFree = id("cuMemFree_v2"), fCur = id("cuCtxGetCurrent"), fQuery = id("cuStreamQuery");
        Files.createDirectories(a);
        Files.createDirectories(b);
        var opts = CaptureWriter.Options.defaults().withGrowStep(64L << 20);
        var fns = FunctionDef.fromSpec(CudaApi.get());
        long rA = 0, rB = 0, xB = 0, xA = 0, mA = 0, mB = 0, dA = 0, dB = 0;
        try (CaptureWriter wa = CaptureWriter.create(a.resolve("capture.zcap"), opts, fns);
             CaptureWriter wb = CaptureWriter.create(b.resolve("capture.zcap"), opts, fns)) {
            ThreadLog ta = wa.thread(100), tb = wb.thread(200), ta2 = wa.thread(101), tb2 = wb.thread(201);
            DataItems d = new DataItems();
            long[] ord = new long[2];
            byte[] buf = new byte[64];
            long ts = 1;
            for (int g = 0; g < groups; g++) {
                for (int side = 0; side < 2; side++) {
                    ThreadLog t = side == 0 ? ta : tb;
                    long hmask = side == 0 ? 0 : 0x0000_0ab0_0000_1230L, dshift = side == 0 ? 0 : 0x10_0000_0000L, pshift = side == 0 ? 0 : 0x40;
                    long dptr = 0x7f00_0000_0000L + (long) (g % 1000) * 0x10000 + dshift;
                    long ctx = 0x5555_0000_1000L ^ hmask, func = 0x5555_0000_2000L ^ hmask;
                    long e = t.enter(fAlloc, 0, ts, new long[] {0x7ffd_0000_0000L + pshift, 4096}, null);
                    t.leave(e, ts + 1, 0, d.clear().inlineLong(0, dptr));
                    ord[side]++;
                    if (!(side == 1 && g == gMissing)) {
                        e = t.enter(fLaunch, 0, ts, new long[] {func, 4, 1, 1, 256, 1, 1, 0, 0, 0x7ffd_0000_1000L + pshift, 0}, null);
                        t.leave(e, ts + 1, 0, null);
                        ord[side]++;
                        if (side == 0 && g == gMissing) mA = ord[0];
                    } else {
                        mB = ord[1];
                    }
                    e = t.enter(fSync, 0, ts, new long[0], null);
                    int result = side == 1 && g == gResult ? 700 : 0;
                    t.leave(e, ts + 1, result, null);
                    ord[side]++;
                    if (g == gResult) { if (side == 0) rA = ord[0]; else rB = ord[1]; }
                    if (side == 0 && g == gExtra) xA = ord[0];
                    if (side == 1 && g == gExtra) {
                        e = t.enter(fQuery, 0, ts, new long[] {0}, null);
                        t.leave(e, ts + 1, 0, null);
                        xB = ++ord[1];
                    }
                    for (int k = 0; k < 16; k++) {
                        int v = Float.floatToIntBits(g * 0.5f + k);
                        for (int i = 0; i < 4; i++) buf[k * 4 + i] = (byte) (v >>> (8 * i));
                    }
                    if (side == 1 && g == gData) buf[7 * 4 + 3] ^= 0x40; // element 7
                    e = t.enter(fDtoH, 0, ts, new long[] {0x6000_0000L + pshift, dptr + 64, 64}, null);
                    t.leave(e, ts + 1, 0, d.clear().inline(0, buf, 0, 64));
                    ord[side]++;
                    if (g == gData) { if (side == 0) dA = ord[0]; else dB = ord[1]; }
                    e = t.enter(fFree, 0, ts, new long[] {dptr}, null);
                    t.leave(e, ts + 1, 0, null);
                    ord[side]++;
                    if (g % 1000 == 0) {
                        ThreadLog t2 = side == 0 ? ta2 : tb2;
                        e = t2.enter(fCur, 0, ts, new long[] {0x7ffe_0000_0000L + pshift}, null);
                        t2.leave(e, ts + 1, 0, d.clear().inlineLong(0, ctx));
                        ord[side]++;
                    }
                }
                ts += 2;
            }
        }
        return new Planted(rA, rB, xB, xA, mA, mB, dA, dB);
    }

    @Test
    void fourPlantedDivergencesInLargeCaptures() throws Exception {
        Path a = tmp.resolve("a"), b = tmp.resolve("b");
        Planted p = write(a, b, N);
        long t0 = System.nanoTime();
        DiffResult r = DiffEngine.diff(a, b, DiffOptions.defaults());
        double seconds = (System.nanoTime() - t0) / 1e9;
        Runtime rt = Runtime.getRuntime();
        System.out.printf("ScaleTest: %,d + %,d calls diffed in %.2f s (heap in use after: %d MiB)%n", r.a().calls(), r.b().calls(), seconds,
                (rt.totalMemory() - rt.freeMemory()) >> 20);
        assertEquals(4, r.divergingCalls(), () -> r.divergences().toString());
        var d = r.divergences();
        assertEquals(DiffKind.RESULT, d.get(0).kind());
        assertEquals(p.resultA(), d.get(0).a().call());
        assertEquals(p.resultB(), d.get(0).b().call());
        assertEquals(DiffKind.EXTRA, d.get(1).kind());
        assertEquals(p.extraB(), d.get(1).b().call());
        assertEquals(p.extraAfterA(), d.get(1).a().after());
        assertEquals(DiffKind.MISSING, d.get(2).kind());
        assertEquals(p.missingA(), d.get(2).a().call());
        assertEquals(p.missingAfterB(), d.get(2).b().after());
        assertEquals("cuLaunchKernel", d.get(2).function());
        assertEquals(DiffKind.DATA, d.get(3).kind());
        assertEquals(p.dataA(), d.get(3).a().call());
        assertEquals(p.dataB(), d.get(3).b().call());
        assertEquals(7, d.get(3).data().firstElement());
        assertEquals(28, d.get(3).data().byteOffset());
        assertTrue(seconds <= 5, "took " + seconds + " s");
    }
}
