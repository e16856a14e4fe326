package dev.zluda.replay;

import dev.zluda.capture.Capture;
import dev.zluda.capture.KernelSnapshots;
import dev.zluda.image.ModuleImage;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Localisation on a program built with nvcc (a fatbin module): {@code src/test/data/fastmath}, recorded
 * on the emulator with snapshots (replayer/src/test/cuda/fastmath.cu). In the {@code exact} kernel the
 * immediate 1.5 ({@code 0f3FC00000}) moved into a register is planted as 2.0 ({@code 0f40000000}) on
 * the reference side ({@code againstPtx}); the tool must name that {@code mov} line with both bit
 * patterns, and find nothing in the unchanged kernels.
 */
class LocateFatbinTest {
    private static final Path DATA = Path.of("src/test/data/fastmath");

    @Test
    void anImmediateChangedInAnNvccKernelIsLocatedAtItsLine() throws Exception {
        try (Capture cap = Capture.open(DATA)) {
            KernelSnapshots ks = KernelSnapshots.read(cap);
            byte[] img = ks.blob(ks.list().get(1).record().launch().moduleHash(), "module");
            String ptx = ModuleImage.of(img).bestPtx(10, 0).ptx();
            String[] lines = ptx.split("\n", -1);
            int line = 0;
            for (int i = 0; i < lines.length; i++) if (lines[i].contains("0f3FC00000")) { assertEquals(0, line, "one line holds 1.5"); line = i + 1; }
            assertTrue(line > 0 && lines[line - 1].strip().startsWith("mov.f32"), ptx);
            String planted = ptx.replace("0f3FC00000", "0f40000000");

            Locate.Result r = Locate.run(cap, "2", new Locate.Options("zluda", null, "zluda", planted, null, 4096, null));
            String t = r.text();
            assertTrue(r.found(), t);
            assertTrue(t.contains("FIRST DIVERGENCE: line " + line + ": mov.f32"), t);
            assertTrue(Pattern.compile("\n  zluda \\(recorded PTX\\): 0x3fc00000 \\(\\d+ / 1\\.5\\)").matcher(t).find(), t);
            assertTrue(Pattern.compile("\n  zluda \\(given PTX\\): 0x40000000 \\(\\d+ / 2\\.0\\)").matcher(t).find(), t);

            for (String k : new String[]{"1", "2"}) {
                Locate.Result same = Locate.run(cap, k, new Locate.Options("zluda", null, "zluda", null, null, 4096, null));
                assertFalse(same.found(), same.text());
                assertEquals(0, same.exitCode(), same.text());
            }
        }
    }
}
