package dev.zluda.libraries;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zluda.capture.Pack;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PyTorch and CuPy programs recorded on an NVIDIA H200 with the library tracers in front of NVIDIA's
 * libraries (samples/traces/h200/torch_libs.zip and cupy_libs.zip, samples/traces/README.md): the
 * library calls are at depth 0 with the driver calls they make nested inside them (a cuBLAS GEMM's and
 * cuDNN's convolution's kernel launches, cuDNN's calls into cuBLASLt), and CUPTI's count of the same
 * run's driver calls (the committed .cupti.tsv) is what capture_counts.py predicts from the capture
 * for every function; so it is for the earlier cudart_demo and torch_train captures.
 */
class H200ProgramLibraryCaptureTest {
    private static final Path REPO = Path.of(System.getProperty("zluda.repo", "..")).toAbsolutePath().normalize();
    private static final Path H200 = REPO.resolve("samples/traces/h200");

    @Test
    void pytorchsLibraryCallsHoldTheirDriverCalls(@TempDir Path tmp) throws Exception {
        List<String[]> calls = H200LibraryCaptureTest.calls(H200.resolve("torch_libs.zip"), tmp);
        assertEquals(List.of("cublas", "cublasLt", "cufft", "cudnn", "nvml"), libraries(tmp));
        // torch_libs.py: fp32 matmul (cublasSgemm_v2), linear+GELU (cublasLtMatmul with an epilogue),
        // fp16 matmul (cublasGemmEx), conv2d (cuDNN's backend API): each launches its kernels inside
        for (String f : List.of("cublasSgemm_v2", "cublasLtMatmul", "cublasGemmEx", "cudnnBackendExecute")) {
            List<List<String>> children = childrenOf(calls, f);
            assertEquals(1, children.size(), f + " calls at depth 0");
            assertTrue(children.getFirst().stream().anyMatch(c -> c.startsWith("cuLaunchKernel")), f + " holds no launch: " + children);
        }
        // cuDNN uses cuBLASLt: its calls are nested in the cuDNN call that made them
        assertTrue(calls.stream().anyMatch(c -> c[0].equals("1") && c[1].equals("cublasLtCreate")), "cublasLtCreate nested in a cuDNN call");
        Set<String> libs = new TreeSet<>();
        for (String[] c : calls) if (c[0].equals("0") && H200LibraryCaptureTest.isLibrary(c[1])) libs.add(dev.zluda.spec.CudaApi.libraryOf(c[1]));
        assertEquals(Set.of("cublas", "cublasLt", "cudnn", "cufft", "nvml"), libs, "the program called each library");
        assertTrue(H200LibraryCaptureTest.insideLibraryCalls(calls) > 1000, "driver calls nested in library calls");
    }

    @Test
    void cupysCublasCallsHoldTheirDriverCalls(@TempDir Path tmp) throws Exception {
        List<String[]> calls = H200LibraryCaptureTest.calls(H200.resolve("cupy_libs.zip"), tmp);
        assertEquals(List.of("cublas", "cufft"), libraries(tmp));
        // cupy_libs.py: fp32 and fp64 matmul and a matrix-vector product, all through cublasGemmEx
        List<List<String>> gemms = childrenOf(calls, "cublasGemmEx");
        assertEquals(3, gemms.size());
        for (List<String> g : gemms) assertTrue(g.stream().anyMatch(c -> c.startsWith("cuLaunchKernel")), "a GEMM without its launch: " + g);
    }

    @Test
    void cuptiCountsWhatTheCapturePredicts(@TempDir Path tmp) throws Exception {
        Path python = Path.of("/usr/bin/python3");
        Assumptions.assumeTrue(Files.isExecutable(python), "SKIPPED: no /usr/bin/python3 to run capture_counts.py");
        // the two library captures (packed), and the two earlier captures recorded with CUPTI counting (without library tracers)
        for (String name : List.of("torch_libs", "cupy_libs", "cudart_demo", "torch_train")) {
            Path dir = H200.resolve(name), tsv = dir.resolve("cupti_counts.tsv");
            if (!Files.isDirectory(dir)) {
                dir = tmp.resolve(name);
                Files.createDirectories(dir);
                Pack.unpack(H200.resolve(name + ".zip"), dir);
                tsv = H200.resolve(name + ".cupti.tsv");
            }
            Process p = new ProcessBuilder(python.toString(), REPO.resolve("nvidia-capture/src/test/device/capture_counts.py").toString(),
                    dir.toString(), tsv.toString()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), out);
            assertEquals(0, p.exitValue(), out);
            assertTrue(out.contains("; differing: 0;"), name + ": a function's CUPTI count is not what the capture predicts:\n" + out);
            assertTrue(out.matches("(?s).*functions whose CUPTI count is what the capture predicts: [1-9][0-9]+;.*"), out);
        }
    }

    private static List<String> libraries(Path dir) throws Exception {
        JsonNode m = new ObjectMapper().readTree(dir.resolve("manifest.json").toFile());
        assertEquals("nvidia", m.path("driver").path("name").asText(), m.toString());
        List<String> out = new ArrayList<>();
        for (JsonNode l : m.path("libraries")) out.add(l.path("name").asText());
        return out;
    }

    /** For each depth-0 call of {@code function}: the functions of the calls nested in it (any depth). */
    private static List<List<String>> childrenOf(List<String[]> calls, String function) {
        List<List<String>> out = new ArrayList<>();
        List<String> cur = null;
        for (String[] c : calls) {
            if (c[0].equals("0")) {
                cur = null;
                if (c[1].equals(function)) out.add(cur = new ArrayList<>());
            } else if (cur != null) cur.add(c[1]);
        }
        return out;
    }
}
