package dev.zluda.ptx;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The printer's output is accepted by NVIDIA's {@code ptxas}. Skipped (assumption) when no
 * {@code ptxas} is found on PATH or in /usr/local/cuda/bin.
 */
class PtxasTest {
    @TempDir
    Path tmp;

    /** The ptxas executable, or {@code null} when the CUDA toolkit is absent. */
    static Path ptxas() {
        List<Path> candidates = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) for (String d : path.split(":")) if (!d.isEmpty()) candidates.add(Path.of(d, "ptxas"));
        candidates.add(Path.of("/usr/local/cuda/bin/ptxas"));
        for (Path p : candidates) if (Files.isExecutable(p)) return p;
        return null;
    }

    /** Runs ptxas on a file for the given sm_XX, returns exit code and output. */
    static ProcessResult runPtxas(Path ptxas, Path ptx, String arch, Path out, String... extra) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(ptxas.toString(), "-arch=" + arch, "-o", out.toString()));
        cmd.addAll(List.of(extra));
        cmd.add(ptx.toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return new ProcessResult(-1, "timeout\n" + output);
        }
        return new ProcessResult(p.exitValue(), output);
    }

    record ProcessResult(int exit, String output) {}

    static String targetArch(Ast.Module m) {
        for (Ast.ModuleItem it : m.items()) {
            if (it instanceof Ast.Target t) {
                for (String n : t.names()) if (n.startsWith("sm_")) return n;
            }
        }
        throw new AssertionError("no .target sm_XX");
    }

    @TestFactory
    Stream<DynamicTest> printedCorpusAssembles() {
        Path ptxas = ptxas();
        assumeTrue(ptxas != null, "ptxas not found (no CUDA toolkit on PATH or in /usr/local/cuda/bin): skipping ptxas acceptance of printed PTX");
        // one arch per source program keeps the test fast on two cores; all archs are covered by RoundTripTest
        return Corpus.files().stream()
                .filter(f -> f.getFileName().toString().contains(".sm_90.") || f.getFileName().toString().contains(".debug."))
                .map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> {
                    Ast.Module m = Ptx.parseOrThrow(Corpus.read(f), f.toString());
                    Path printed = tmp.resolve(f.getFileName().toString().replace(".ptx", ".printed.ptx"));
                    Files.writeString(printed, PtxPrinter.print(m), StandardCharsets.ISO_8859_1);
                    ProcessResult r = runPtxas(ptxas, printed, targetArch(m), tmp.resolve("out.cubin"));
                    assertEquals(0, r.exit(), () -> "ptxas rejected printed " + f + ":\n" + r.output());
                    assertTrue(Files.size(tmp.resolve("out.cubin")) > 0);
                }));
    }
}
