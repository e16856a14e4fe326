package dev.zluda.replay;

import dev.zluda.ptx.FunctionInfo;
import dev.zluda.ptx.Ptx;
import dev.zluda.ptx.Semantics;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The instrumented PTX of every sample kernel parses, keeps the kernel's instructions in order,
 * and is accepted by NVIDIA's {@code ptxas} (CUDA 13.0, sm_90: the H200's architecture) where the
 * toolkit is installed, so the instrumented kernel also loads on NVIDIA's driver.
 */
class PtxInstrumenterTest {
    private static final Path PTX = Path.of(System.getProperty("zluda.repo", "..")).toAbsolutePath().normalize().resolve("samples/src/main/ptx");

    @Test
    void everySampleKernelInstrumentsToValidPtx() throws Exception {
        Path ptxas = Path.of(System.getenv().getOrDefault("CUDA_HOME", "/usr/local/cuda"), "bin/ptxas");
        List<String> checked = new ArrayList<>();
        try (var files = Files.list(PTX)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".ptx")).sorted().toList()) {
                String text = Files.readString(f);
                for (FunctionInfo k : Semantics.analyze(Ptx.parseOrThrow(text, f.toString()), f.toString()).kernels()) {
                    List<PtxInstrumenter.Site> sites = PtxInstrumenter.sites(text, k.name());
                    assertEquals(k.instructions(), sites.size(), f + " " + k.name());
                    PtxInstrumenter.Result v = PtxInstrumenter.values(text, k.name(), 0x7f0000001000L, new int[]{1, 0, 0, 5, 0, 0}, 64);
                    PtxInstrumenter.Result s = PtxInstrumenter.stores(text, k.name(), 0x7f0000002000L, new long[]{4, 1, 1, 256, 1, 1}, 8);
                    for (String out : List.of(v.ptx(), s.ptx())) {
                        assertTrue(Ptx.parse(out, "instrumented").ok(), out);
                        // the kernel's own instructions, in order
                        int at = 0;
                        for (PtxInstrumenter.Site site : sites) {
                            int i = out.indexOf(site.text(), at);
                            assertTrue(i >= 0, f + ": " + site.text() + " missing after offset " + at);
                            at = i + site.text().length();
                        }
                        if (Files.isExecutable(ptxas)) {
                            Path tmp = Files.createTempFile("instrumented", ".ptx");
                            Files.writeString(tmp, out);
                            Process p = new ProcessBuilder(ptxas.toString(), "-arch=sm_90", "-o", "/dev/null", tmp.toString()).redirectErrorStream(true).start();
                            String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
                            Files.delete(tmp);
                            assertEquals(0, p.exitValue(), f + " " + k.name() + ":\n" + log + "\n" + out);
                        }
                    }
                    checked.add(k.name());
                }
            }
        }
        assertTrue(checked.size() >= 6, checked.toString());
    }
}
