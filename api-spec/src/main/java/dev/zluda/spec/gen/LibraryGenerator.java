package dev.zluda.spec.gen;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zluda.spec.CudaApi;
import dev.zluda.spec.CudaFunction;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Generates, from the library specs, what zluda's own cuBLAS and cuBLASLt (libraries/) are built with:
 *
 * <ul>
 * <li>C headers for programs and for the libraries themselves, where NVIDIA's are not installed:
 *     {@code library_types.h}, {@code cublas_api.h}, {@code cublas_v2.h} (cublas_api.h plus the
 *     redirecting macros {@code cublasSgemm} → {@code cublasSgemm_v2}) and {@code cublasLt.h}: the
 *     enums, typedefs, records and prototypes the specs hold, in their headers' order. Types of other
 *     headers the functions take ({@code cudaStream_t}, {@code __half}, {@code cuComplex}) are declared
 *     with the right size and alignment but without members. The legacy API of cublas.h and cublasXt.h
 *     are not declared (the libraries export them, answering "not supported").
 * <li>{@code <library>_stubs.c}: for every function NVIDIA's library exports
 *     ({@code <library>-exports.txt}), a weak definition that writes one line to stderr naming the
 *     function (once per process) and returns the library's "not supported" status; the functions the
 *     library implements are strong definitions in its own sources and take precedence at link time,
 *     so {@code nm -D} tells implemented ({@code T}) from not ({@code W}).
 * <li>{@code <soname>.map}: a version script that exports exactly those names under the version node
 *     NVIDIA's library uses ({@code libcublas.so.13}), so programs linked against NVIDIA's library load ours.
 * </ul>
 *
 * <p>Usage: {@code LibraryGenerator OUT_DIR} writes {@code OUT_DIR/include/*.h} and {@code OUT_DIR/gen/*}.
 */
public final class LibraryGenerator {
    /** The libraries zluda implements, by short name. */
    public static final List<String> IMPLEMENTED = List.of("cublas", "cublasLt");

    private final StringBuilder out = new StringBuilder();
    private final Set<String> declared = new HashSet<>();

    private LibraryGenerator() {}

    private static JsonNode spec(String library) {
        try (InputStream in = CudaApi.class.getResourceAsStream("/dev/zluda/spec/" + library + "-api.json")) {
            if (in == null) throw new IOException(library + "-api.json is not on the class path");
            return new ObjectMapper().readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code library_types.h}: the enums and typedefs of that header that the cuBLAS and cuBLASLt specs carry. */
    public static String libraryTypesH() {
        LibraryGenerator g = new LibraryGenerator();
        g.out.append(banner("library_types.h", "CUDA's library_types.h (data types, library properties)"));
        g.out.append("#ifndef __LIBRARY_TYPES_H__\n#define __LIBRARY_TYPES_H__\n\n");
        Map<String, JsonNode> enums = new LinkedHashMap<>(), typedefs = new LinkedHashMap<>();
        for (String lib : IMPLEMENTED) {
            JsonNode s = spec(lib);
            for (JsonNode e : s.path("enums")) if (e.path("header").asText().equals("library_types.h")) enums.putIfAbsent(e.path("name").asText(), e);
            for (JsonNode t : s.path("typedefs")) if (t.path("header").asText().equals("library_types.h")) typedefs.putIfAbsent(t.path("name").asText(), t);
        }
        g.emitHeader(enums.values(), typedefs.values(), List.of(), enums);
        g.out.append("\n#endif\n");
        return g.out.toString();
    }

    /** {@code cublas_api.h}: cuBLAS's types and the v2 API's prototypes. */
    public static String cublasApiH() {
        LibraryGenerator g = new LibraryGenerator();
        JsonNode s = spec("cublas");
        g.out.append(banner("cublas_api.h", "cuBLAS's cublas_api.h (CUBLAS_VERSION " + s.path("source").path("version").asInt() + ")"));
        g.out.append("#ifndef CUBLAS_API_H_\n#define CUBLAS_API_H_\n#include <stddef.h>\n#include <stdint.h>\n#include \"library_types.h\"\n");
        g.out.append("#ifdef __cplusplus\nextern \"C\" {\n#endif\n");
        int v = s.path("source").path("version").asInt();
        g.out.append("#define CUBLAS_VER_MAJOR ").append(v / 10000).append("\n#define CUBLAS_VER_MINOR ").append(v / 100 % 100)
                .append("\n#define CUBLAS_VER_PATCH ").append(v % 100).append("\n#define CUBLAS_VERSION ").append(v).append("\n\n");
        g.foreignTypes(s);
        g.emitSpec(s, "cublas_api.h");
        g.out.append("#ifdef __cplusplus\n}\n#endif\n#endif\n");
        return g.out.toString();
    }

    /** {@code cublas_v2.h}: cublas_api.h and the macros that name the v2 functions. */
    public static String cublasV2H() {
        JsonNode s = spec("cublas");
        StringBuilder sb = new StringBuilder(banner("cublas_v2.h", "cuBLAS's cublas_v2.h"));
        sb.append("#ifndef CUBLAS_V2_H_\n#define CUBLAS_V2_H_\n#include \"cublas_api.h\"\n\n");
        var it = s.path("macros").fields();
        while (it.hasNext()) {
            var e = it.next();
            sb.append("#define ").append(e.getKey()).append(' ').append(e.getValue().path("default").asText()).append('\n');
        }
        sb.append("\n#endif\n");
        return sb.toString();
    }

    /** {@code cublasLt.h}: cuBLASLt's types and prototypes (its cuBLAS types come from cublas_api.h). */
    public static String cublasLtH() {
        LibraryGenerator g = new LibraryGenerator();
        JsonNode s = spec("cublasLt");
        g.out.append(banner("cublasLt.h", "cuBLASLt's cublasLt.h"));
        g.out.append("#ifndef CUBLAS_LT_H_\n#define CUBLAS_LT_H_\n#include <stdio.h>\n#include \"cublas_api.h\"\n");
        g.out.append("#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
        g.foreignTypes(s);
        g.emitSpec(s, "cublasLt.h");
        g.out.append("#ifdef __cplusplus\n}\n#endif\n#endif\n");
        return g.out.toString();
    }

    private static String banner(String file, String what) {
        return "/* " + file + " generated by dev.zluda.spec.gen.LibraryGenerator from zluda's API spec of " + what + ";\n"
                + " * do not edit. For building programs (and zluda's own libraries) where NVIDIA's headers are not\n"
                + " * installed. Types of other headers are declared with their size and alignment only. */\n";
    }

    /** Types of other headers that the spec's functions take: declared once, guarded, with size and alignment. */
    private void foreignTypes(JsonNode s) {
        Set<String> covered = new HashSet<>();
        for (JsonNode h : s.path("source").path("headers")) covered.add(h.asText());
        for (JsonNode h : s.path("source").path("typeHeaders")) covered.add(h.asText());
        List<JsonNode> aliases = new ArrayList<>();
        for (JsonNode t : s.path("typedefs")) {
            String name = t.path("name").asText(), header = t.path("header").asText();
            if (covered.contains(header) || t.has("line")) continue;
            String guard = "ZLUDA_TYPE_" + name.toUpperCase(java.util.Locale.ROOT);
            switch (t.path("category").asText()) {
                case "handle" -> out.append("#ifndef ").append(guard).append("\n#define ").append(guard).append("\ntypedef ")
                        .append(t.path("type").asText()).append(name).append(";\n#endif\n");
                case "record" -> {
                    long size = t.path("size").asLong();
                    out.append("#ifndef ").append(guard).append("\n#define ").append(guard).append("\ntypedef struct ").append(name)
                            .append(" { unsigned char _zluda_opaque[").append(size).append("]; } __attribute__((aligned(")
                            .append(Long.highestOneBit(Math.max(1, Math.min(16, size)))).append("))) ").append(name).append(";\n#endif\n");
                }
                case "alias" -> {
                    if (!name.matches("u?int\\d+_t")) aliases.add(t);
                }
                default -> { }
            }
            declared.add(name);
        }
        // aliases after what they name (cuComplex -> cuFloatComplex -> float2)
        List<JsonNode> left = new ArrayList<>(aliases);
        for (int guard = 0; guard < 8 && !left.isEmpty(); guard++) {
            for (var it = left.iterator(); it.hasNext(); ) {
                JsonNode t = it.next();
                String target = t.path("type").asText();
                boolean ready = left.stream().noneMatch(o -> o.path("name").asText().equals(target));
                if (!ready) continue;
                String name = t.path("name").asText(), g = "ZLUDA_TYPE_" + name.toUpperCase(java.util.Locale.ROOT);
                out.append("#ifndef ").append(g).append("\n#define ").append(g).append("\ntypedef ").append(target).append(' ').append(name).append(";\n#endif\n");
                it.remove();
            }
        }
        out.append('\n');
    }

    private void emitSpec(JsonNode s, String header) {
        List<JsonNode> enums = new ArrayList<>(), typedefs = new ArrayList<>(), functions = new ArrayList<>();
        Map<String, JsonNode> enumsByName = new LinkedHashMap<>();
        for (JsonNode e : s.path("enums")) {
            enumsByName.put(e.path("name").asText(), e);
            if (e.path("header").asText().equals(header)) enums.add(e);
        }
        for (JsonNode t : s.path("typedefs")) if (t.path("header").asText().equals(header) && t.has("line")) typedefs.add(t);
        for (JsonNode r : s.path("records")) if (r.path("header").asText().equals(header)) records.put(r.path("name").asText(), r);
        for (JsonNode f : s.path("functions")) if (f.path("header").asText().equals(header)) functions.add(f);
        emitHeader(enums, typedefs, functions, enumsByName);
    }

    private final Map<String, JsonNode> records = new LinkedHashMap<>();

    private void emitHeader(Iterable<JsonNode> enums, Iterable<JsonNode> typedefs, List<JsonNode> functions, Map<String, JsonNode> enumsByName) {
        record Item(int line, JsonNode node, String kind) {}
        List<Item> items = new ArrayList<>();
        for (JsonNode e : enums) if (e.has("tag")) items.add(new Item(e.path("line").asInt(), e, "enum"));
        for (JsonNode t : typedefs) items.add(new Item(t.path("line").asInt(), t, "typedef"));
        items.sort(Comparator.comparingInt(Item::line));
        for (Item i : items) {
            if (i.kind.equals("enum")) defineEnum(i.node, null);
            else typedef(i.node, enumsByName);
        }
        out.append('\n');
        for (JsonNode f : functions) {
            List<String> params = new ArrayList<>();
            for (JsonNode p : f.path("params")) params.add(declarator(p.path("type").asText(), p.path("name").asText()));
            out.append(f.path("returns").asText()).append(' ').append(f.path("name").asText()).append('(')
                    .append(params.isEmpty() ? "void" : String.join(", ", params)).append(");\n");
        }
    }

    /** {@code enum TAG {...};} once, or with a name: {@code typedef enum {...} NAME;} for an untagged one. */
    private void defineEnum(JsonNode e, String typedefName) {
        String tag = e.path("tag").asText(null);
        if (tag != null && !declared.add("enum " + tag)) return;
        out.append(tag == null ? "typedef enum {\n" : "enum " + tag + " {\n");
        for (JsonNode m : e.path("members")) out.append("    ").append(m.path("name").asText()).append(" = ").append(m.path("value").asLong()).append(",\n");
        out.append(tag == null ? "} " + typedefName + ";\n" : "};\n");
    }

    private void typedef(JsonNode t, Map<String, JsonNode> enumsByName) {
        String name = t.path("name").asText(), type = t.path("type").asText();
        if (!declared.add(name)) return;
        switch (t.path("category").asText()) {
            case "enum" -> {
                JsonNode e = enumsByName.get(name);
                if (e != null && !e.has("tag")) {
                    defineEnum(e, name);
                    return;
                }
                String tag = type.startsWith("enum ") ? type.substring(5) : type;
                JsonNode te = enumsByName.values().stream().filter(x -> tag.equals(x.path("tag").asText())).findFirst().orElse(null);
                if (te != null) defineEnum(te, null);
                out.append("typedef enum ").append(tag).append(' ').append(name).append(";\n");
            }
            case "record" -> {
                JsonNode r = records.get(name);
                String tag = type.startsWith("struct ") ? type.substring(7) : null;
                out.append("typedef struct ").append(tag != null && !tag.equals(name) ? tag + " " : "").append("{\n");
                if (r != null) {
                    for (JsonNode f : r.path("fields")) out.append("    ").append(member(f.path("type").asText(), f.path("name").asText())).append(";\n");
                }
                out.append("} ").append(name).append(";\n");
            }
            case "handle", "pointer", "builtin", "alias" -> out.append("typedef ").append(declarator(type, name)).append(";\n");
            case "function" -> out.append("typedef ").append(declarator(type, name)).append(";\n");
            case "opaque" -> out.append("typedef ").append(type).append(' ').append(name).append(";\n");
            default -> out.append("/* ").append(name).append(": ").append(type).append(" (not emitted) */\n");
        }
    }

    private static String member(String type, String name) {
        return HeaderGenerator.member(type, name);
    }

    /** As {@link HeaderGenerator#member}, but a function pointer's parentheses come before an array's brackets. */
    private static String declarator(String type, String name) {
        return type.contains("(*)") ? HeaderGenerator.declarator(type, name) : HeaderGenerator.member(type, name);
    }

    /**
     * The weak "not supported" definitions of every export of a library (see the class comment). A
     * function the spec declares returns its declared type: the status enum returns the library's
     * NOT_SUPPORTED value, {@code void} nothing, numbers 0, pointers NULL; an export no header declares
     * returns the status value as an int.
     */
    public static String stubsC(String library) {
        CudaApi api = CudaApi.library(library);
        int notSupported = (int) api.statusEnum().orElseThrow().members().stream()
                .filter(m -> m.name().endsWith("_NOT_SUPPORTED")).findFirst().orElseThrow().value();
        StringBuilder sb = new StringBuilder();
        sb.append("/* Generated by dev.zluda.spec.gen.LibraryGenerator from the ").append(library)
                .append(" spec and NVIDIA's export list; do not edit.\n")
                .append(" * Every export of ").append(api.soname()).append(" as a weak definition that says it is not supported;\n")
                .append(" * the functions zluda implements are strong definitions elsewhere and replace these at link time. */\n");
        sb.append("#include <stddef.h>\n#include <stdint.h>\n\n");
        sb.append("void zl_unsupported(const char *library, const char *function, const char *status);\n\n");
        String status = api.statusEnum().orElseThrow().members().stream().filter(m -> m.value() == notSupported).findFirst().orElseThrow().name();
        for (String name : api.exports()) {
            CudaFunction f = api.function(name).orElse(null);
            String ret = f == null ? "int" : f.returnType();
            String cRet, value;
            String canonical = f == null ? "int" : api.canonicalType(ret);
            if (f == null || ret.equals(api.statusEnum().get().name()) || canonical.equals("enum")) {
                cRet = "int";
                value = Integer.toString(notSupported);
            } else if (canonical.equals("void")) {
                cRet = "void";
                value = null;
            } else if (canonical.equals("pointer")) {
                cRet = "void *";
                value = "NULL";
            } else if (canonical.equals("float") || canonical.equals("double")) {
                cRet = canonical;
                value = "0";
            } else if (canonical.equals("record")) {
                // legacy cublasCdotu & co. return cuComplex/cuDoubleComplex by value: 16 bytes of zeros
                cRet = "struct zl_complex16";
                value = null;
            } else {
                cRet = "uint64_t";
                value = "0";
            }
            if (cRet.equals("struct zl_complex16") && !sb.toString().contains("struct zl_complex16 {")) {
                sb.insert(sb.indexOf("void zl_unsupported"), "struct zl_complex16 { double re, im; };\n");
            }
            sb.append("__attribute__((weak, visibility(\"default\"))) ").append(cRet).append(' ').append(name).append("(void) {\n");
            sb.append("    zl_unsupported(\"").append(library).append("\", \"").append(name).append("\", \"")
                    .append(f == null || value != null && value.equals(Integer.toString(notSupported)) ? status : "").append("\");\n");
            if (cRet.equals("struct zl_complex16")) sb.append("    struct zl_complex16 z = {0, 0};\n    return z;\n");
            else if (value != null) sb.append("    return ").append(value).append(";\n");
            sb.append("}\n");
        }
        return sb.toString();
    }

    /** A GNU ld version script: exactly NVIDIA's exports, under the node named like the soname. */
    public static String versionScript(String library) {
        CudaApi api = CudaApi.library(library);
        StringBuilder sb = new StringBuilder(api.soname()).append(" {\n  global:\n");
        for (String n : api.exports()) sb.append("    ").append(n).append(";\n");
        sb.append("  local: *;\n};\n");
        return sb.toString();
    }

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        if (!Files.exists(file) || !Files.readString(file).equals(text)) Files.writeString(file, text);
    }

    /**
     * @param args {@code OUT_DIR}
     * @throws IOException when a file cannot be written
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: LibraryGenerator OUT_DIR");
            System.exit(2);
        }
        Path dir = Path.of(args[0]);
        write(dir.resolve("include/cuda.h"), HeaderGenerator.generate());
        write(dir.resolve("include/library_types.h"), libraryTypesH());
        write(dir.resolve("include/cublas_api.h"), cublasApiH());
        write(dir.resolve("include/cublas_v2.h"), cublasV2H());
        write(dir.resolve("include/cublasLt.h"), cublasLtH());
        for (String lib : IMPLEMENTED) {
            write(dir.resolve("gen/" + lib + "_stubs.c"), stubsC(lib));
            write(dir.resolve("gen/" + CudaApi.SONAMES.get(lib) + ".map"), versionScript(lib));
        }
    }
}
