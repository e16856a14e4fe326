package dev.zluda.spec.gen;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Asks a real C compiler for the numbers of a header: enum constant values, {@code sizeof} and
 * {@code _Alignof} of types, and {@code offsetof}/{@code sizeof} of struct fields. It writes a C
 * program that prints one line per question ({@code KEY<TAB>VALUE}), compiles it with the given
 * compiler for the host (x86-64 Linux) and runs it.
 *
 * <p>The generator asks clang; the spec tests ask gcc the same questions about the committed spec,
 * so the two compilers check each other.
 */
public final class LayoutProbe {
    private final List<String> includes = new ArrayList<>();
    private final List<String> prelude = new ArrayList<>();
    private final Map<String, String> questions = new LinkedHashMap<>();
    private final List<String> tu = new ArrayList<>();
    private boolean cxx;

    /**
     * @param prelude lines placed before the {@code #include}s, e.g. {@code #define __CUDA_API_VERSION_INTERNAL 1}
     * @param includes header names, written as {@code #include <name>}
     */
    public LayoutProbe(List<String> prelude, List<String> includes) {
        this.prelude.addAll(prelude);
        this.includes.addAll(includes);
    }

    /**
     * A probe over a translation unit given line by line ({@code #define}s and {@code #include}s in
     * the order they must come), compiled as C, or as C++ when {@code cxx}.
     */
    public LayoutProbe(List<String> tuLines, boolean cxx) {
        this.tu.addAll(tuLines);
        this.cxx = cxx;
    }

    /** Asks for the value of an integer constant expression, e.g. an enum member. Key: the answer's name. */
    public void value(String key, String cExpression) {
        questions.put(key, "(long long)(" + cExpression + ")");
    }

    /** Asks for {@code sizeof(type)} in bytes. */
    public void sizeOf(String key, String cType) {
        questions.put(key, "(long long)sizeof(" + cType + ")");
    }

    /** Asks for {@code _Alignof(type)} in bytes. */
    public void alignOf(String key, String cType) {
        questions.put(key, "(long long)ZLUDA_ALIGNOF(" + cType + ")");
    }

    /** Asks for {@code offsetof(type, memberPath)} in bytes; memberPath may use dots through nested members. */
    public void offsetOf(String key, String cType, String memberPath) {
        questions.put(key, "(long long)__builtin_offsetof(" + cType + ", " + memberPath + ")");
    }

    /** Asks for the size in bytes of a member, {@code sizeof(((type*)0)->memberPath)}. */
    public void memberSize(String key, String cType, String memberPath) {
        questions.put(key, "(long long)sizeof(((" + cType + "*)0)->" + memberPath + ")");
    }

    /** The number of questions asked so far. */
    public int size() {
        return questions.size();
    }

    /** The C program that answers the questions. */
    public String program() {
        StringBuilder sb = new StringBuilder();
        for (String p : prelude) sb.append(p).append('\n');
        for (String i : includes) sb.append("#include <").append(i).append(">\n");
        for (String l : tu) sb.append(l).append('\n');
        sb.append("#include <stdio.h>\n#include <stddef.h>\n");
        sb.append(cxx ? "#define ZLUDA_ALIGNOF(t) ((long long)alignof(t))\n" : "#define ZLUDA_ALIGNOF(t) ((long long)_Alignof(t))\n");
        sb.append("int main(void) {\n");
        for (var q : questions.entrySet()) {
            sb.append("  printf(\"%s\\t%lld\\n\", \"").append(q.getKey()).append("\", ").append(q.getValue()).append(");\n");
        }
        sb.append("  return 0;\n}\n");
        return sb.toString();
    }

    /**
     * Compiles and runs the program.
     *
     * @param compiler e.g. {@code gcc} or {@code clang-22}
     * @param includeDirs passed as {@code -I}
     * @param work a scratch directory
     * @return answers by key
     * @throws IOException when the compiler fails (its output is in the message) or the program fails
     */
    public Map<String, Long> run(String compiler, List<Path> includeDirs, Path work) throws IOException, InterruptedException {
        Files.createDirectories(work);
        Path src = work.resolve(cxx ? "probe.cpp" : "probe.c");
        Path exe = work.resolve("probe");
        Files.writeString(src, program());
        List<String> cmd = new ArrayList<>(cxx ? List.of(compiler, "-x", "c++", "-std=gnu++17", "-w", "-o", exe.toString(), src.toString())
                : List.of(compiler, "-std=gnu11", "-w", "-o", exe.toString(), src.toString()));
        for (Path d : includeDirs) cmd.add("-I" + d);
        String compileOut = exec(cmd, work);
        Process p = new ProcessBuilder(exe.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("layout probe " + exe + " failed: " + out);
        }
        Map<String, Long> answers = new LinkedHashMap<>();
        for (String line : out.split("\n")) {
            if (line.isEmpty()) continue;
            int tab = line.indexOf('\t');
            answers.put(line.substring(0, tab), Long.parseLong(line.substring(tab + 1)));
        }
        if (answers.size() != questions.size()) {
            throw new IOException("layout probe answered " + answers.size() + " of " + questions.size() + " questions; compiler said: " + compileOut);
        }
        return answers;
    }

    static String exec(List<String> cmd, Path dir) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed:\n" + out);
        }
        return out;
    }
}
