package dev.zluda.libraries;

import dev.zluda.spec.CudaApi;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What zluda's libraries export, read back from the built files with {@code nm -D}: exactly the names
 * NVIDIA's library exports (the spec's exports list), under NVIDIA's version node; the implemented
 * functions are the strong definitions ({@code T}), every other one a generated weak stub
 * ({@code W}); and docs/support.md lists exactly the implemented ones.
 */
class ExportsTest {
    private static final Pattern LIST = Pattern.compile("<!-- (\\w+)-implemented -->(.*?)<!-- end -->", Pattern.DOTALL);

    @ParameterizedTest
    @ValueSource(strings = {"cublas", "cublasLt"})
    void exportsAreNvidiasAndTheImplementedOnesAreThoseDocumented(String library) throws Exception {
        Path lib = Path.of(System.getenv().getOrDefault("ZLUDA_LIBRARIES_NATIVE", "target/native"), "lib", CudaApi.SONAMES.get(library));
        Assumptions.assumeTrue(Files.isRegularFile(lib), "SKIPPED: " + lib + " is not built");
        Process p = new ProcessBuilder("nm", "-D", "--defined-only", lib.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, out);
        Set<String> exported = new TreeSet<>(), strong = new TreeSet<>();
        for (String line : out.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 3) continue;
            String name = f[2].replaceFirst("@.*$", "");
            if (f[1].equals("A")) continue; // the version node itself
            exported.add(name);
            assertTrue(f[2].endsWith("@@" + CudaApi.SONAMES.get(library)), "exported under NVIDIA's version node: " + line);
            if (f[1].equals("T")) strong.add(name);
            else assertEquals("W", f[1], line);
        }
        assertEquals(new TreeSet<>(CudaApi.library(library).exports()), exported, "the exports of " + lib);
        Path doc = Path.of(System.getProperty("zluda.repo", "..")).resolve("docs/support.md");
        Matcher m = LIST.matcher(Files.readString(doc));
        Set<String> documented = new TreeSet<>();
        while (m.find()) {
            if (!m.group(1).equals(library)) continue;
            for (String w : m.group(2).split("[^A-Za-z0-9_]+")) {
                if (w.length() > library.length() && w.startsWith(library) && CudaApi.libraryOf(w).equals(library)) documented.add(w);
            }
        }
        assertEquals(strong, documented, "docs/support.md's list of the " + library + " functions zluda implements vs. the strong definitions in " + lib);
        assertTrue(strong.size() > (library.equals("cublas") ? 80 : 30), strong.size() + " implemented");
    }

    /**
     * The library tracers (nvidia-capture: dist/lib/trace) export every name NVIDIA's library exports (the
     * spec's exports list, read with {@code nm -D} from NVIDIA's files on an H200 machine), as functions,
     * under NVIDIA's version node (none for NVML), plus their own two: a real library that NEEDs its
     * sibling (NVIDIA's libcublas NEEDs libcublasLt) is bound to the sibling's tracer, so a missing name
     * would be an undefined symbol there.
     */
    @ParameterizedTest
    @ValueSource(strings = {"cublas", "cublasLt", "cufft", "cusparse", "cudnn", "nvml"})
    void tracersExportEveryNameOfNvidiasLibrary(String library) throws Exception {
        Path repo = Path.of(System.getProperty("zluda.repo", "..")).toAbsolutePath().normalize();
        Path lib = repo.resolve("nvidia-capture/target/native/trace").resolve(CudaApi.SONAMES.get(library));
        Assumptions.assumeTrue(Files.isRegularFile(lib), "SKIPPED: " + lib + " is not built");
        Process p = new ProcessBuilder("nm", "-D", "--defined-only", lib.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, out);
        Set<String> functions = new TreeSet<>(), other = new TreeSet<>();
        boolean versioned = !library.equals("nvml");
        for (String line : out.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 3 || f[1].equals("A")) continue;
            if (versioned) assertTrue(f[2].endsWith("@@" + CudaApi.SONAMES.get(library)), "exported under NVIDIA's version node: " + line);
            else assertFalse(f[2].contains("@"), "unversioned, as NVIDIA's: " + line);
            (f[1].equals("T") ? functions : other).add(f[2].replaceFirst("@.*$", ""));
        }
        Set<String> expected = new TreeSet<>(CudaApi.library(library).exports());
        expected.add("zluda_library_tracer_real");
        assertEquals(expected, functions, "the functions " + lib + " exports");
        assertEquals(Set.of("zluda_library_tracer_marker"), other, "the data " + lib + " exports");
    }

    /**
     * What NVIDIA's libcublas.so.13 imports from libcublasLt.so.13 (recorded on an H200:
     * src/test/resources/h200/libcublas-imports-from-libcublasLt.txt) is all in the cuBLASLt exports list,
     * so the cuBLASLt tracer, which the loader gives NVIDIA's libcublas as its libcublasLt, has every one
     * under NVIDIA's version node.
     */
    @org.junit.jupiter.api.Test
    void everythingNvidiasCublasImportsFromCublasLtIsInTheList() throws Exception {
        Set<String> exports = new TreeSet<>(CudaApi.library("cublasLt").exports()), missing = new TreeSet<>();
        int n = 0;
        try (var in = ExportsTest.class.getResourceAsStream("/h200/libcublas-imports-from-libcublasLt.txt")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isBlank() || line.startsWith("#")) continue;
                assertTrue(line.endsWith("@libcublasLt.so.13"), line);
                n++;
                if (!exports.contains(line.replaceFirst("@.*$", ""))) missing.add(line);
            }
        }
        assertEquals(76, n);
        assertEquals(Set.of(), missing);
    }
}
