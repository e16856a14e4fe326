package dev.zluda.libraries;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zluda.capture.Call;
import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.text.CallFormatter;
import dev.zluda.spec.CudaFunction;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The library tracers (nvidia-capture: dist/lib/trace/libcublas.so.13, libcublasLt.so.13) in front of
 * a real cuBLAS, with the driver tracer in front of a real driver, record library calls and the
 * driver calls they make, nested, into one capture. Here the "real" libraries are zluda's own
 * (found on LD_LIBRARY_PATH after the tracers) and the "real" driver is zluda's (ZLUDA_CUDA_LIB), so
 * the stack runs without an NVIDIA GPU; on one, the same tracers sit in front of NVIDIA's libraries.
 */
class LibraryTracerTest {
    @Test
    void libraryCallsAreRecordedWithTheDriverCallsTheyMakeNestedInside(@TempDir Path tmp) throws Exception {
        Path repo = Path.of(System.getProperty("zluda.repo", "..")).toAbsolutePath().normalize();
        Path traceDir = repo.resolve("nvidia-capture/target/native/trace");
        Path driver = repo.resolve("zluda-runtime/target/native/libcuda.so.1");
        Assumptions.assumeTrue(Files.isRegularFile(traceDir.resolve("libcublas.so.13")) && Files.isRegularFile(traceDir.resolve("libcuda.so.1")),
                "SKIPPED: the tracers are not built in " + traceDir);
        Assumptions.assumeTrue(Files.isRegularFile(driver), "SKIPPED: zluda's libcuda.so.1 is not built");
        Path nativeDir = Path.of(System.getenv().getOrDefault("ZLUDA_LIBRARIES_NATIVE", "target/native")).toAbsolutePath();
        Path gen = Path.of(System.getenv().getOrDefault("ZLUDA_LIBRARIES_GEN", "target/generated-sources/zluda")).toAbsolutePath();
        Process make = new ProcessBuilder("make", "-s", "-C", repo.resolve("libraries/src/main/c").toString(), "BUILD=" + nativeDir, "GEN=" + gen, "tests")
                .redirectErrorStream(true).start();
        String mout = new String(make.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Assumptions.assumeTrue(make.waitFor(300, TimeUnit.SECONDS) && make.exitValue() == 0, "SKIPPED: building blas_test failed:\n" + mout);

        Path cap = traced(nativeDir, traceDir, driver, tmp.resolve("run1"));
        // a second run of the same program: its capture pairs with the first call by call, library calls
        // included (handles and descriptors as symbols, the bias pointer attribute as a device pointer)
        Path cap2 = traced(nativeDir, traceDir, driver, tmp.resolve("run2"));
        try (Capture a = Capture.open(cap); Capture b = Capture.open(cap2)) {
            dev.zluda.diff.DiffResult d = new dev.zluda.diff.DiffEngine(dev.zluda.diff.DiffOptions.defaults()).diff(a, b);
            java.io.StringWriter report = new java.io.StringWriter();
            dev.zluda.diff.TextReport.write(d, new java.io.PrintWriter(report));
            assertTrue(d.same(), "two runs of blas_test differ:\n" + report);
            assertTrue(report.toString().contains("library choice"), report.toString());
        }
        try (Capture c = Capture.open(cap)) {
            CallFormatter fmt = new CallFormatter(c::specFunction, c::functionName, new java.util.HashMap<>());
            int sgemm = 0, nestedLaunches = 0, ltMatmuls = 0, topLevelLaunches = 0, cudartVersion = 0, heuristic = 0, setAttr = 0;
            String open = null;
            int openDepth = -1;
            List<Call> all = new ArrayList<>();
            dev.zluda.capture.CallAssembler asm = new dev.zluda.capture.CallAssembler(top -> flatten(top, all));
            for (CaptureRecord r : c.reader()) asm.accept(r);
            asm.finish();
            for (Call call : all) {
                CaptureRecord.Enter e = call.enter();
                String name = c.functionName(e.functionId());
                CudaFunction f = c.specFunction(e.functionId());
                if (name.startsWith("cublas")) {
                    assertNotNull(f, name + " resolves to its library's spec");
                    assertEquals(name.startsWith("cublasLt") ? "cublasLt" : "cublas", f.library());
                    assertEquals(0, e.depth(), name + " is called by the program");
                    open = name;
                    openDepth = e.depth();
                }
                if (name.equals("cublasSgemm_v2")) {
                    sgemm++;
                    if (sgemm == 1) {
                        String line = fmt.format(call);
                        assertTrue(line.startsWith("cublasSgemm_v2(handle: 0x"), line);
                        assertTrue(line.contains("transa: CUBLAS_OP_N, transb: CUBLAS_OP_N, m: 37, n: 29, k: 41"), line);
                        assertTrue(line.endsWith("-> CUBLAS_STATUS_SUCCESS"), line);
                    }
                }
                if (name.equals("cublasLtMatmul")) ltMatmuls++;
                if (name.equals("cublasGetCudartVersion")) {
                    // a value, not a status: result 0, the value in the item one past the parameters
                    assertEquals("cublasGetCudartVersion() -> 13000", fmt.format(call));
                    cudartVersion++;
                }
                if (name.equals("cublasLtMatmulAlgoGetHeuristic") && heuristic++ == 0) {
                    String line = fmt.format(call);
                    assertTrue(line.contains("requestedAlgoCount: 4"), line);
                    assertTrue(line.contains("returnAlgoCount: 1"), line);
                }
                if (name.equals("cublasLtMatmulDescSetAttribute") && setAttr++ == 2) {
                    // the third attribute set by the first matmul: the epilogue, recorded as the bytes behind buf
                    String line = fmt.format(call);
                    assertTrue(line.contains("attr: CUBLASLT_MATMUL_DESC_EPILOGUE, buf: <4 bytes: 01 00 00 00>"), line);
                }
                if (name.equals("cuLaunchKernel")) {
                    if (e.depth() == 1 && open != null && openDepth == 0) nestedLaunches++;
                    if (e.depth() == 0) topLevelLaunches++;
                }
            }
            assertTrue(sgemm >= 7, sgemm + " cublasSgemm_v2 calls");
            assertEquals(1, cudartVersion);
            assertTrue(ltMatmuls >= 10, ltMatmuls + " cublasLtMatmul calls");
            assertEquals(0, topLevelLaunches, "every kernel launch was made by a library call");
            assertTrue(nestedLaunches >= 40, nestedLaunches + " launches nested in library calls");
        }
    }

    /** Runs the stand-in program on stand-in set {@code which}; it must exit 0 having created and destroyed both handles. */
    private static Run runCreatingAndDestroyingHandles(Standins s, String which, Path tmp) throws Exception {
        Run r = s.run(which, tmp, Map.of());
        assertEquals(0, r.exit(), r.output());
        assertTrue(r.output().contains("cublasCreate_v2 -> 0, cublasDestroy_v2 -> 0, cublasLtCreate -> 0, cublasLtDestroy -> 0"), r.output());
        return r;
    }

    /**
     * NVIDIA's libcublas.so.13 NEEDs libcublasLt.so.13; in a traced process the loader binds that, by
     * soname, to the libcublasLt tracer already loaded. The libcublas tracer must still take the real
     * libcublas (the tracer marker it finds through the dependency is not the candidate's own), and the
     * real libcublas's calls into cuBLASLt — through exports the header declares and through exports only
     * NVIDIA's list has — go through the cuBLASLt tracer to the real cuBLASLt, recorded nested in the
     * cuBLAS call with the driver calls it makes. The stand-ins (libraries/src/test/c/standin) have that
     * shape; the driver is nvidia-capture's stand-in.
     */
    @Test
    void aRealCublasThatNeedsCublasLtLoadsThroughTheCublasLtTracer(@TempDir Path tmp) throws Exception {
        Standins s = Standins.build();
        Run r = runCreatingAndDestroyingHandles(s, "real", tmp);
        assertFalse(r.output().contains("[ZLUDA_TRACE] cublas"), "no tracer complains:\n" + r.output());
        Path cap = s.capture(tmp);
        JsonNode m = new ObjectMapper().readTree(cap.resolve("manifest.json").toFile());
        List<String> libs = new ArrayList<>();
        for (JsonNode l : m.path("libraries")) libs.add(l.path("name").asText() + " " + Path.of(l.path("library").asText()));
        assertEquals(List.of("cublas " + s.dir().resolve("standin/real/libcublas.so.13"), "cublasLt " + s.dir().resolve("standin/real/libcublasLt.so.13")),
                libs, m.toString());
        List<String> tree = new ArrayList<>();
        try (Capture c = Capture.open(cap)) {
            List<Call> all = new ArrayList<>();
            dev.zluda.capture.CallAssembler asm = new dev.zluda.capture.CallAssembler(top -> flatten(top, all));
            for (CaptureRecord rec : c.reader()) asm.accept(rec);
            asm.finish();
            for (Call call : all) tree.add("  ".repeat(call.enter().depth()) + c.functionName(call.enter().functionId()) + " -> " + call.leave().result());
        }
        // cublasLtACCMatmul (no declaration in cublasLt.h) is forwarded unrecorded
        assertEquals(List.of("cublasCreate_v2 -> 0", "  cuInit -> 0", "  cuDriverGetVersion -> 0", "  cublasLtCreate -> 0",
                "cublasDestroy_v2 -> 0", "  cublasLtDestroy -> 0", "cublasLtCreate -> 0", "cublasLtDestroy -> 0"), tree);
    }

    /**
     * A real libcublas that needs an export of libcublasLt that the cuBLASLt tracer does not have (a
     * newer cuBLASLt than the exports list the tracers were generated from): the tracer says so with the
     * loader's reason and loads it with the real cuBLASLt made global, rather than answering
     * "not supported" for all of cuBLAS.
     */
    @Test
    void aRealCublasNeedingAnExportTheTracerLacksIsStillLoaded(@TempDir Path tmp) throws Exception {
        Standins s = Standins.build();
        Run r = runCreatingAndDestroyingHandles(s, "unlisted", tmp);
        assertTrue(r.output().contains("undefined symbol: cublasLtStandInUnlisted"), r.output());
        assertTrue(r.output().contains("loaded with the real dependencies made global"), r.output());
    }

    /** A candidate that is not taken is reported with why: the loader's reason, or what it is. */
    @Test
    void aRejectedRealLibraryIsReportedWithTheReason(@TempDir Path tmp) throws Exception {
        Standins s = Standins.build();
        Path junk = Files.writeString(tmp.resolve("libcublas.so.13"), "not an ELF file\n".repeat(20));
        Run r = s.run("real", tmp.resolve("a"), Map.of("ZLUDA_CUBLAS_LIB", junk.toString()));
        assertEquals(1, r.exit(), r.output());
        assertTrue(r.output().contains("cublasCreate_v2 -> 15"), r.output());
        assertTrue(r.output().contains("[ZLUDA_TRACE] cublas: ZLUDA_CUBLAS_LIB=" + junk + " is not taken as the real libcublas.so.13:\n    " + junk
                + ": invalid ELF header"), r.output());
        Path ltTracer = s.trace().resolve("libcublasLt.so.13");
        r = s.run("real", tmp.resolve("b"), Map.of("ZLUDA_CUBLAS_LIB", ltTracer.toString()));
        assertTrue(r.output().contains(ltTracer + ": a zluda library tracer, not the real library"), r.output());
        r = s.run("real", tmp.resolve("c"), Map.of("ZLUDA_CUBLAS_LIB", s.dir().resolve("standin/real/libcublasLt.so.13").toString()));
        assertTrue(r.output().contains("libcublasLt.so.13: does not define cublasAlloc: not libcublas.so.13"), r.output());
    }

    private record Run(int exit, String output) {}

    /** The stand-ins built by the libraries Makefile (target tests), the tracers and the stand-in driver. */
    private record Standins(Path dir, Path trace, Path driver) {
        static Standins build() throws Exception {
            Path repo = Path.of(System.getProperty("zluda.repo", "..")).toAbsolutePath().normalize();
            Path trace = repo.resolve("nvidia-capture/target/native/trace");
            Path driver = repo.resolve("nvidia-capture/target/native/test/fake/libcuda.so.1");
            Assumptions.assumeTrue(Files.isRegularFile(trace.resolve("libcublas.so.13")) && Files.isRegularFile(driver),
                    "SKIPPED: the tracers and the stand-in driver are not built in nvidia-capture/target/native");
            Path nativeDir = Path.of(System.getenv().getOrDefault("ZLUDA_LIBRARIES_NATIVE", "target/native")).toAbsolutePath();
            Path gen = Path.of(System.getenv().getOrDefault("ZLUDA_LIBRARIES_GEN", "target/generated-sources/zluda")).toAbsolutePath();
            Process make = new ProcessBuilder("make", "-s", "-C", repo.resolve("libraries/src/main/c").toString(), "BUILD=" + nativeDir, "GEN=" + gen, "tests")
                    .redirectErrorStream(true).start();
            String out = new String(make.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(make.waitFor(300, TimeUnit.SECONDS), out);
            assertEquals(0, make.exitValue(), "building the stand-ins:\n" + out);
            return new Standins(nativeDir, trace, driver);
        }

        /** standin_program with the tracers first on LD_LIBRARY_PATH, then standin/&lt;variant&gt;, recording into log. */
        Run run(String variant, Path log, Map<String, String> env) throws Exception {
            ProcessBuilder pb = new ProcessBuilder(dir.resolve("bin/standin_program").toString()).redirectErrorStream(true);
            pb.environment().put("LD_LIBRARY_PATH", trace + ":" + dir.resolve("standin").resolve(variant));
            pb.environment().put("ZLUDA_CUDA_LIB", driver.toString());
            pb.environment().put("ZLUDA_LOG_DIR", log.toString());
            pb.environment().remove("ZLUDA_CUBLAS_LIB");
            pb.environment().remove("ZLUDA_CUBLASLT_LIB");
            pb.environment().putAll(env);
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
            return new Run(p.exitValue(), out);
        }

        /** The one capture under log. */
        Path capture(Path log) throws Exception {
            try (Stream<Path> dirs = Files.list(log)) {
                List<Path> caps = dirs.filter(d -> Files.isRegularFile(d.resolve("manifest.json"))).toList();
                assertEquals(1, caps.size(), caps.toString());
                return caps.get(0);
            }
        }
    }

    /**
     * Runs blas_test with the tracers in front of zluda's libraries and driver, recording into dir;
     * returns the tracer's capture (zluda's driver, with ZLUDA_LOG_DIR set, writes one of its own beside
     * it), after checking that its manifest names the real libraries.
     */
    private static Path traced(Path nativeDir, Path traceDir, Path driver, Path dir) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(nativeDir.resolve("bin/blas_test").toString()).redirectErrorStream(true);
        LibraryDirs.onZluda(pb, traceDir + ":" + nativeDir.resolve("lib"));
        pb.environment().put("ZLUDA_CUDA_LIB", driver.toString());
        pb.environment().put("ZLUDA_LOG_DIR", dir.toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        Path cap = null;
        try (Stream<Path> dirs = Files.list(dir)) {
            for (Path d : dirs.toList()) {
                JsonNode m = new ObjectMapper().readTree(d.resolve("manifest.json").toFile());
                if (m.path("tool").path("name").asText().equals("zluda nvidia-capture")) {
                    cap = d;
                    List<String> libs = new ArrayList<>();
                    for (JsonNode l : m.path("libraries")) libs.add(l.path("name").asText() + " " + Path.of(l.path("library").asText()).getFileName());
                    assertEquals(List.of("cublas libcublas.so.13", "cublasLt libcublasLt.so.13"), libs, m.toString());
                }
            }
        }
        assertNotNull(cap, "no capture of the tracer in " + dir);
        return cap;
    }

    /** A call and its subtree, in order of their ENTERs. */
    private static void flatten(Call c, List<Call> out) {
        out.add(c);
        for (Call k : c.children()) flatten(k, out);
    }
}
