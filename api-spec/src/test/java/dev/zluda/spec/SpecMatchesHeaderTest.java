package dev.zluda.spec;

import dev.zluda.spec.gen.LayoutProbe;
import dev.zluda.spec.gen.SpecGenerator;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The committed spec against cuda.h as gcc sees it: the generator used clang, these tests use gcc,
 * so a wrong number needs both compilers to agree on it.
 */
class SpecMatchesHeaderTest {
    private final CudaApi api = CudaApi.load();

    @Test
    void functionsAreExactlyThoseGccSeesDeclared(@TempDir Path tmp) throws Exception {
        Path inc = CudaHeaders.includeDirOrSkip();
        Path src = tmp.resolve("decls.c");
        StringBuilder sb = new StringBuilder();
        SpecGenerator.PRELUDE.forEach(l -> sb.append(l).append('\n'));
        SpecGenerator.INCLUDES.forEach(h -> sb.append("#include <").append(h).append(">\n"));
        Files.writeString(src, sb);
        Path aux = tmp.resolve("aux.txt");
        Process p = new ProcessBuilder("gcc", "-I" + inc, "-aux-info", aux.toString(), "-c", src.toString(), "-o", tmp.resolve("decls.o").toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0, "gcc failed: " + out);
        // gcc -aux-info writes one prototype per declaration: /* FILE:LINE:NC */ extern CUresult NAME (...);
        Pattern decl = Pattern.compile("^/\\* \\S*/(" + String.join("|", SpecGenerator.HEADERS).replace(".", "\\.") + "):(\\d+):\\w+ \\*/ .*?\\b(cu\\w+) \\(");
        Map<String, String> gccDecls = new TreeMap<>();
        for (String line : Files.readAllLines(aux)) {
            Matcher m = decl.matcher(line);
            if (m.find()) gccDecls.putIfAbsent(m.group(3), m.group(1) + ":" + m.group(2));
        }
        Map<String, String> specDecls = new TreeMap<>();
        for (CudaFunction f : api.functions()) specDecls.put(f.name(), f.header() + ":" + f.line());
        assertEquals(gccDecls.keySet(), specDecls.keySet(), "function names of the spec vs. gcc -aux-info");
        assertEquals(gccDecls, specDecls, "declaration lines of the spec vs. gcc -aux-info");
        long core = api.functions().stream().filter(f -> f.header().equals("cuda.h") || f.header().equals("cudaProfiler.h")).count();
        if (api.cudaVersion() == 13000) {
            assertEquals(637, core, "CUDA 13.0's cuda.h + cudaProfiler.h declare 637 cu* functions");
            assertEquals(637 + 35, specDecls.size(), "the GL, EGL and VDPAU interop headers declare 35 more");
        }
    }

    @Test
    void enumValuesAndRecordLayoutsEqualWhatGccComputes(@TempDir Path tmp) throws Exception {
        Path inc = CudaHeaders.includeDirOrSkip();
        Assumptions.assumeTrue(CudaHeaders.onPath("gcc"), "SKIPPED: no gcc on PATH");
        LayoutProbe probe = new LayoutProbe(SpecGenerator.PRELUDE, SpecGenerator.INCLUDES);
        Map<String, Long> expected = new TreeMap<>();
        for (CudaEnum e : api.enums()) {
            String cType = e.tag() != null ? "enum " + e.tag() : e.name();
            probe.sizeOf("sizeof(" + cType + ")", cType);
            expected.put("sizeof(" + cType + ")", (long) e.size());
            for (CudaEnum.Member m : e.members()) {
                probe.value(m.name(), m.name());
                expected.put(m.name(), m.value());
            }
        }
        for (CudaRecord r : api.records()) {
            String cType = r.tag() != null ? (r.union() ? "union " : "struct ") + r.tag() : r.name();
            probe.sizeOf("sizeof(" + cType + ")", cType);
            probe.alignOf("_Alignof(" + cType + ")", cType);
            expected.put("sizeof(" + cType + ")", (long) r.size());
            expected.put("_Alignof(" + cType + ")", (long) r.align());
            addFields(probe, expected, cType, "", 0, r.fields());
        }
        Map<String, Long> gcc = probe.run("gcc", List.of(inc), tmp);
        List<String> wrong = new ArrayList<>();
        for (var e : expected.entrySet()) {
            if (!e.getValue().equals(gcc.get(e.getKey()))) wrong.add(e.getKey() + ": spec " + e.getValue() + ", gcc " + gcc.get(e.getKey()));
        }
        assertTrue(wrong.isEmpty(), wrong.size() + " numbers differ from gcc's:\n" + String.join("\n", wrong));
        assertTrue(expected.size() > 2000, "checked " + expected.size() + " numbers");
    }

    private static void addFields(LayoutProbe probe, Map<String, Long> expected, String cType, String prefix, int base,
                                  List<CudaRecord.Field> fields) {
        for (CudaRecord.Field f : fields) {
            String path = prefix + f.name();
            probe.offsetOf("offsetof(" + cType + ", " + path + ")", cType, path);
            probe.memberSize("sizeof(" + cType + "." + path + ")", cType, path);
            expected.put("offsetof(" + cType + ", " + path + ")", (long) base + f.offset());
            expected.put("sizeof(" + cType + "." + path + ")", (long) f.size());
            if (!f.fields().isEmpty()) {
                String elem = f.count() > 0 ? path + "[0]" : path;
                addFields(probe, expected, cType, elem + ".", base, f.fields());
            }
        }
    }

    @Test
    void regeneratingFromTheHeaderGivesTheCommittedSpec(@TempDir Path tmp) throws Exception {
        Path inc = CudaHeaders.includeDirOrSkip();
        Assumptions.assumeTrue(CudaHeaders.onPath("clang-22"),
                "SKIPPED: no clang-22 on PATH (apt-get install clang-22) — could not check that cuda-api.json is up to date");
        Path repo = Path.of(System.getProperty("zluda.repo", "..")).toAbsolutePath();
        Path committed = repo.resolve("api-spec/src/main/resources/dev/zluda/spec/cuda-api.json");
        Path fresh = tmp.resolve("cuda-api.json");
        SpecGenerator.writePretty(new SpecGenerator(inc, "clang-22").generate(), fresh);
        assertEquals(Files.readString(committed), Files.readString(fresh),
                "cuda-api.json is stale: run api-spec/gen-spec.sh and commit the result");
    }
}
