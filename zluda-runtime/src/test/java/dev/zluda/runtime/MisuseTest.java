package dev.zluda.runtime;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The driver API misuse suite (samples/src/main/c/misuse.c) on zluda's libcuda.so.1, case by case against what
 * NVIDIA's driver answered on an H200 (samples/traces/h200/misuse/misuse-nvidia.txt, recorded with the command in
 * that folder's README). Every case must get NVIDIA's answer — the same CUresult, or the same signal where NVIDIA's
 * driver faulted and zluda cannot check (an out-parameter in unmapped memory: the fault is the program's own) —
 * unless zluda-differences.tsv lists the case with NVIDIA's answer, zluda's and why; a listed case must then give
 * exactly the listed answer, so the list cannot go stale. No case may take the JVM down with a banner or leave an
 * {@code hs_err} file in the program's directory. Skipped, with the reason, when cuda.h or the built
 * libcuda.so.1 is missing, as {@link SamplesTest}.
 */
class MisuseTest {
    private static Path misuse;
    private static Path nativeDir;
    private static Path truth;

    @BeforeAll
    static void build() throws Exception {
        nativeDir = NativeTests.nativeDir();
        truth = NativeTests.repo().resolve("samples/traces/h200/misuse");
        misuse = NativeTests.driverSamples().resolve("misuse");
        Assumptions.assumeTrue(Files.isExecutable(misuse), "SKIPPED: the misuse suite was not built");
    }

    /** {@code case -> answer} of a table the suite printed ("# ..." lines skipped). */
    static Map<String, String> table(String text) {
        Map<String, String> rows = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            line = line.strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            String[] f = line.split("\\s+", 2);
            rows.put(f[0], f.length > 1 ? f[1].strip().replaceAll("\\s+", " ") : "");
        }
        return rows;
    }

    /** One row of zluda-differences.tsv. */
    record Difference(String nvidia, String zluda, String why) {}

    static Map<String, Difference> differences(Path tsv) throws Exception {
        Map<String, Difference> rows = new LinkedHashMap<>();
        for (String line : Files.readAllLines(tsv, StandardCharsets.UTF_8)) {
            if (line.isBlank() || line.startsWith("#")) continue;
            String[] f = line.split("\t");
            assertEquals(4, f.length, "zluda-differences.tsv: 4 tab-separated fields (case, NVIDIA, zluda, why): " + line);
            assertFalse(f[3].isBlank(), "zluda-differences.tsv: " + f[0] + " says no why");
            rows.put(f[0], new Difference(f[1], f[2], f[3]));
        }
        return rows;
    }

    @Test
    void everyCaseGetsNvidiasAnswerOrItsRowSaysWhy(@TempDir Path cwd) throws Exception {
        Map<String, String> nvidia = table(Files.readString(truth.resolve("misuse-nvidia.txt")));
        Map<String, Difference> differ = differences(truth.resolve("zluda-differences.tsv"));
        // one process for all cases (a new one after a crash): the H200's sequential run shows the cases do not
        // disturb each other (misuse-nvidia-sequential.txt)
        ProcessBuilder pb = new ProcessBuilder(misuse.toString(), "--timeout", "90").directory(cwd.toFile());
        pb.environment().put("LD_LIBRARY_PATH", nativeDir.toString());
        pb.environment().put("ZLUDA_JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("ZLUDA_CLASSPATH", System.getProperty("java.class.path"));
        pb.environment().putIfAbsent("ZLUDA_JVM_OPTS", "-XX:TieredStopAtLevel=1");
        Path err = cwd.resolve("stderr.txt");
        pb.redirectError(err.toFile());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(600, TimeUnit.SECONDS), "timed out:\n" + out);
        String stderr = Files.readString(err);
        assertEquals(0, p.exitValue(), "every case must produce a result:\n" + out);
        Map<String, String> zluda = table(out);
        assertEquals(List.copyOf(nvidia.keySet()), List.copyOf(zluda.keySet()), "the suite's cases and the H200's recording");

        List<String> wrong = new ArrayList<>();
        for (var e : nvidia.entrySet()) {
            String name = e.getKey(), theirs = e.getValue(), ours = zluda.get(name);
            Difference d = differ.get(name);
            if (d == null) {
                if (!ours.equals(theirs)) wrong.add(name + ": NVIDIA " + theirs + ", zluda " + ours);
            } else {
                if (!d.nvidia().equals(theirs)) wrong.add(name + ": zluda-differences.tsv says NVIDIA answers " + d.nvidia() + ", the recording " + theirs);
                if (!d.zluda().equals(ours)) wrong.add(name + ": zluda-differences.tsv says zluda answers " + d.zluda() + ", zluda " + ours);
                if (d.nvidia().equals(d.zluda())) wrong.add(name + ": listed in zluda-differences.tsv with the same answer on both");
            }
        }
        for (String name : differ.keySet()) if (!nvidia.containsKey(name)) wrong.add(name + ": in zluda-differences.tsv but not a case");
        assertTrue(wrong.isEmpty(), String.join("\n", wrong) + "\n\nzluda's table:\n" + out);

        assertFalse(stderr.contains("A fatal error has been detected by the Java Runtime Environment"), "a JVM crash banner:\n" + stderr);
        try (Stream<Path> files = Files.list(cwd)) {
            List<String> hsErr = files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("hs_err")).toList();
            assertTrue(hsErr.isEmpty(), "hs_err files in the program's directory: " + hsErr);
        }
    }
}
