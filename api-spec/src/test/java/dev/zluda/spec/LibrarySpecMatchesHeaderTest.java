package dev.zluda.spec;

import dev.zluda.spec.gen.LayoutProbe;
import dev.zluda.spec.gen.SpecGenerator;
import dev.zluda.spec.gen.SpecSource;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The committed library specs against NVIDIA's headers, where they are installed: regenerating with
 * clang-22 gives the committed file byte for byte, and every enum value, size, alignment and field
 * offset equals what gcc (g++ for cuBLAS, whose spec comes from a C++ unit) computes. The headers are
 * looked for in {@code ZLUDA_LIBRARY_INCLUDE} (':'-separated directories), else in
 * {@code $CUDA_HOME/include} (default /usr/local/cuda/include) and /usr/include/x86_64-linux-gnu
 * (cuDNN's Debian packages); a library whose headers are absent is SKIPPED with the reason.
 */
class LibrarySpecMatchesHeaderTest {
    static List<Path> includeDirs() {
        List<Path> dirs = new ArrayList<>();
        String env = System.getenv("ZLUDA_LIBRARY_INCLUDE");
        if (env != null && !env.isBlank()) {
            for (String d : env.split(":")) if (!d.isEmpty()) dirs.add(Path.of(d));
        }
        String home = System.getenv().getOrDefault("CUDA_HOME", "/usr/local/cuda");
        dirs.add(Path.of(home, "include"));
        dirs.add(Path.of("/usr/include/x86_64-linux-gnu"));
        return dirs;
    }

    static SpecSource sourceOrSkip(String library) {
        SpecSource src = SpecSource.library(library).orElseThrow();
        String first = src.headers().getFirst();
        Assumptions.assumeTrue(includeDirs().stream().anyMatch(d -> Files.isRegularFile(d.resolve(first))),
                "SKIPPED: no " + first + " in " + includeDirs() + " (install " + library + "'s headers or set ZLUDA_LIBRARY_INCLUDE)"
                        + " — the " + library + " spec was not compared with its header");
        return src;
    }

    @ParameterizedTest
    @ValueSource(strings = {"cublas", "cublasLt", "cufft", "cusparse", "cudnn", "nvml"})
    void regeneratingFromTheHeadersGivesTheCommittedSpec(String library, @TempDir Path tmp) throws Exception {
        SpecSource src = sourceOrSkip(library);
        Assumptions.assumeTrue(CudaHeaders.onPath("clang-22"),
                "SKIPPED: no clang-22 on PATH — could not check that " + src.resource() + " is up to date");
        Path repo = Path.of(System.getProperty("zluda.repo", "..")).toAbsolutePath();
        Path committed = repo.resolve("api-spec/src/main/resources/dev/zluda/spec/" + src.resource());
        Path fresh = tmp.resolve(src.resource());
        SpecGenerator.writePretty(new SpecGenerator(includeDirs(), "clang-22", src).generate(), fresh);
        assertEquals(Files.readString(committed), Files.readString(fresh),
                src.resource() + " is stale: run api-spec/gen-library-specs.sh and commit the result");
    }

    @ParameterizedTest
    @ValueSource(strings = {"cublas", "cublasLt", "cufft", "cusparse", "cudnn", "nvml"})
    void enumValuesAndRecordLayoutsEqualWhatGccComputes(String library, @TempDir Path tmp) throws Exception {
        SpecSource src = sourceOrSkip(library);
        String compiler = src.cxx() ? "g++" : "gcc";
        Assumptions.assumeTrue(CudaHeaders.onPath(compiler), "SKIPPED: no " + compiler + " on PATH");
        CudaApi api = CudaApi.library(library);
        LayoutProbe probe = new LayoutProbe(src.tu(), src.cxx());
        Map<String, Long> expected = new TreeMap<>();
        for (CudaEnum e : api.enums()) {
            for (CudaEnum.Member m : e.members()) {
                probe.value(m.name(), m.name());
                expected.put(m.name(), m.value());
            }
            String cType = e.tag() != null ? "enum " + e.tag() : e.name();
            probe.sizeOf("sizeof(" + cType + ")", cType);
            expected.put("sizeof(" + cType + ")", (long) e.size());
        }
        for (CudaRecord r : api.records()) {
            String cType = r.tag() != null ? (r.union() ? "union " : "struct ") + r.tag() : r.name();
            probe.sizeOf("sizeof(" + cType + ")", cType);
            probe.alignOf("alignof(" + cType + ")", cType);
            expected.put("sizeof(" + cType + ")", (long) r.size());
            expected.put("alignof(" + cType + ")", (long) r.align());
            for (CudaRecord.Field f : r.fields()) {
                probe.offsetOf("offsetof(" + cType + ", " + f.name() + ")", cType, f.name());
                expected.put("offsetof(" + cType + ", " + f.name() + ")", (long) f.offset());
            }
        }
        Map<String, Long> gcc = probe.run(compiler, includeDirs(), tmp);
        List<String> wrong = new ArrayList<>();
        for (var e : expected.entrySet()) {
            if (!e.getValue().equals(gcc.get(e.getKey()))) wrong.add(e.getKey() + ": spec " + e.getValue() + ", " + compiler + " " + gcc.get(e.getKey()));
        }
        assertTrue(wrong.isEmpty(), wrong.size() + " numbers differ from " + compiler + "'s:\n" + String.join("\n", wrong));
        assertTrue(expected.size() > 20, "checked " + expected.size() + " numbers");
    }
}
