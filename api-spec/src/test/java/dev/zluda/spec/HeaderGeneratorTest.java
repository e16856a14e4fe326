package dev.zluda.spec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zluda.spec.gen.HeaderGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cuda.h generated for machines without CUDA's toolkit: it compiles, the driver-API samples
 * build with it, and where the toolkit is present it says what the toolkit's cuda.h says — the
 * same entry point for every name a program may call, and the same size, alignment and member
 * offsets for every record both declare.
 */
class HeaderGeneratorTest {
    @TempDir
    Path tmp;

    private Path generated() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("zinc"));
        Files.writeString(dir.resolve("cuda.h"), HeaderGenerator.generate());
        return dir;
    }

    private static String run(List<String> cmd, Path dir) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "timed out: " + cmd);
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + ":\n" + out);
        return out;
    }

    @Test
    void compilesCleanAndBuildsTheDriverApiSamples() throws Exception {
        Path inc = generated();
        for (String mode : new String[] {"-DZLUDA_PLAIN", "-DCUDA_API_PER_THREAD_DEFAULT_STREAM"}) {
            run(List.of("gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", mode, "-fsyntax-only", "-x", "c", inc.resolve("cuda.h").toString()), tmp);
            run(List.of("g++", "-std=c++17", "-Wall", "-Werror", mode, "-fsyntax-only", "-x", "c++", inc.resolve("cuda.h").toString()), tmp);
        }
        Path samples = Path.of("..", "samples", "src", "main", "c").toAbsolutePath().normalize();
        int n = 0;
        try (var s = Files.list(samples)) {
            for (Path c : s.filter(p -> p.toString().endsWith(".c")).sorted().toList()) {
                run(List.of("gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-I" + inc, "-c", c.toString(), "-o", tmp.resolve(n + ".o").toString()), tmp);
                n++;
            }
        }
        assertTrue(n >= 6, "the six driver-API samples: " + n);
    }

    @Test
    void namesResolveToTheToolkitsEntryPoints() throws Exception {
        Path toolkit = CudaHeaders.includeDirOrSkip();
        Path inc = generated();
        TreeSet<String> names = new TreeSet<>();
        Matcher m = Pattern.compile("(?m)^\\s*#\\s*define\\s+(cu[A-Z]\\w*)\\s").matcher(Files.readString(toolkit.resolve("cuda.h"), StandardCharsets.ISO_8859_1));
        while (m.find()) names.add(m.group(1));
        for (JsonNode f : spec().path("functions")) {
            String h = f.path("header").asText();
            if (h.equals("cuda.h") || h.equals("cudaProfiler.h")) names.add(f.path("name").asText());
        }
        StringBuilder src = new StringBuilder("#include <cuda.h>\nZLUDA_BEGIN\n");
        for (String n : names) src.append("ZL ").append(n).append('\n');
        Path c = Files.writeString(tmp.resolve("names.c"), src);
        for (String mode : new String[] {"-DZLUDA_PLAIN", "-DCUDA_API_PER_THREAD_DEFAULT_STREAM"}) {
            String want = run(List.of("gcc", mode, "-E", "-P", "-I" + toolkit, c.toString()), tmp);
            String got = run(List.of("gcc", mode, "-E", "-P", "-I" + inc, c.toString()), tmp);
            assertEquals(tail(want), tail(got), "what each of " + names.size() + " names expands to (" + mode + ")");
        }
    }

    @Test
    void recordsHaveTheToolkitsLayout() throws Exception {
        Path toolkit = CudaHeaders.includeDirOrSkip();
        Path inc = generated();
        String header = Files.readString(inc.resolve("cuda.h"));
        StringBuilder src = new StringBuilder("#include <stdio.h>\n#include <stddef.h>\n#include <cuda.h>\nint main(void) {\n");
        int records = 0;
        for (JsonNode r : spec().path("records")) {
            String tag = r.path("tag").asText(), kind = r.path("kind").asText();
            if (!header.contains(kind + " " + tag + " {\n")) continue; // opaque or not emitted
            String t = kind + " " + tag;
            src.append("printf(\"%s %zu %zu\\n\", \"").append(t).append("\", sizeof(").append(t).append("), _Alignof(").append(t).append("));\n");
            for (JsonNode f : r.path("fields")) {
                String fn = f.path("name").asText();
                if (fn.isEmpty()) continue;
                src.append("printf(\"  .").append(fn).append(" %zu\\n\", offsetof(").append(t).append(", ").append(fn).append("));\n");
            }
            records++;
        }
        src.append("return 0; }\n");
        Path c = Files.writeString(tmp.resolve("layout.c"), src);
        List<String> outs = new ArrayList<>();
        for (Path i : new Path[] {toolkit, inc}) {
            Path exe = tmp.resolve("layout" + outs.size());
            run(List.of("gcc", "-std=gnu11", "-I" + i, c.toString(), "-o", exe.toString()), tmp);
            outs.add(run(List.of(exe.toString()), tmp));
        }
        assertTrue(records > 60, "records with members in the generated header: " + records);
        assertEquals(outs.get(0), outs.get(1), "sizes, alignments and member offsets: toolkit vs generated");
    }

    private static String tail(String preprocessed) {
        return preprocessed.substring(preprocessed.indexOf("ZLUDA_BEGIN"));
    }

    private static JsonNode spec() throws IOException {
        try (InputStream in = CudaApi.class.getResourceAsStream("/dev/zluda/spec/cuda-api.json")) {
            return new ObjectMapper().readTree(in);
        }
    }
}
