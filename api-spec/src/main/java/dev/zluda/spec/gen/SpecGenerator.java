package dev.zluda.spec.gen;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Generates a machine-readable API spec from NVIDIA's own headers: the CUDA driver API's
 * ({@code cuda-api.json}, {@link SpecSource#DRIVER}) and those of the libraries on top of it
 * ({@code cublas-api.json}, ..., {@link SpecSource#LIBRARIES}).
 *
 * <p>The declarations come from clang's JSON AST dump ({@code -Xclang -ast-dump=json}) of a
 * translation unit that includes the headers; for the driver it defines
 * {@code __CUDA_API_VERSION_INTERNAL}, so every versioned name ({@code _v2}, {@code _ptds},
 * {@code _ptsz}, and the legacy unversioned forms) is declared. All numbers (enum values, sizes,
 * alignments, field offsets for x86-64 Linux) are computed by the same compiler through a
 * {@link LayoutProbe}. Groups are the Doxygen {@code \defgroup} blocks of the headers. The dump is
 * read one top-level declaration at a time (a C++ translation unit such as cuBLAS's dumps to a
 * quarter of a gigabyte), keeping only what the spec needs.
 *
 * <p>Usage: {@code SpecGenerator CUDA_INCLUDE_DIR OUTPUT_JSON [CLANG]} for the driver;
 * {@code SpecGenerator --library NAME INCLUDE_DIRS OUTPUT_JSON [CLANG]} for a library, INCLUDE_DIRS
 * ':'-separated (the library's headers and CUDA's). Exit code 1 with a message when clang or the
 * headers are missing.
 */
public final class SpecGenerator {
    /** The headers the driver spec covers (every cu* function, enum, record and typedef declared in them). */
    public static final List<String> HEADERS = SpecSource.DRIVER.headers();
    /**
     * What the driver's translation unit includes, in order: the headers the spec covers and the system
     * headers the interop headers need first (Debian: libgl-dev, libegl-dev, libvdpau-dev).
     */
    public static final List<String> INCLUDES = SpecSource.DRIVER.tu().stream().filter(l -> l.startsWith("#include"))
            .map(l -> l.substring(l.indexOf('<') + 1, l.indexOf('>'))).toList();
    /** Prelude that makes cuda.h declare every versioned name. */
    public static final List<String> PRELUDE = List.of("#define __CUDA_API_VERSION_INTERNAL 1");

    private static final Pattern VERSION_MACRO = Pattern.compile("#define\\s+CUDA_VERSION\\s+(\\d+)");
    private static final Pattern DEFGROUP = Pattern.compile("\\\\defgroup\\s+(\\w+)");
    private static final Pattern CLOSEGROUP = Pattern.compile("/\\*\\*\\s*@}\\s*\\*/");
    private static final Pattern ARRAY = Pattern.compile("^(.*)\\[(\\d+)]$");

    private final List<Path> includeDirs;
    private final String clang;
    private final SpecSource source;
    private final ObjectMapper json = new ObjectMapper();

    private final Map<String, String> headerText = new HashMap<>();
    private final Map<String, int[]> lineStarts = new HashMap<>();

    /** The driver's generator: cuda.h and the headers beside it in {@code includeDir}. */
    public SpecGenerator(Path includeDir, String clang) {
        this(List.of(includeDir), clang, SpecSource.DRIVER);
    }

    /**
     * @param includeDirs where the headers are, searched in order (a library's own, then CUDA's)
     * @param clang the compiler, e.g. {@code clang-22}
     * @param source what to generate
     */
    public SpecGenerator(List<Path> includeDirs, String clang, SpecSource source) {
        this.includeDirs = List.copyOf(includeDirs);
        this.clang = clang;
        this.source = source;
    }

    public static void main(String[] args) throws Exception {
        if (args.length >= 1 && args[0].equals("--library")) {
            if (args.length < 4) {
                System.err.println("usage: SpecGenerator --library NAME INCLUDE_DIRS OUTPUT_JSON [CLANG]");
                System.exit(2);
            }
            SpecSource src = SpecSource.library(args[1]).orElse(null);
            if (src == null) {
                System.err.println("spec generator: unknown library " + args[1] + "; known: "
                        + SpecSource.LIBRARIES.stream().map(SpecSource::library).toList());
                System.exit(2);
            }
            List<Path> dirs = new ArrayList<>();
            for (String d : args[2].split(":")) if (!d.isEmpty()) dirs.add(Path.of(d));
            String first = src.headers().getFirst();
            if (dirs.stream().noneMatch(d -> Files.isRegularFile(d.resolve(first)))) {
                System.err.println("spec generator: no " + first + " in " + dirs + " (pass the directory that holds " + src.library() + "'s headers)");
                System.exit(1);
            }
            ObjectNode spec = new SpecGenerator(dirs, args.length > 4 ? args[4] : "clang-22", src).generate();
            Path out = Path.of(args[3]);
            Files.createDirectories(out.toAbsolutePath().getParent());
            writePretty(spec, out);
            System.out.println("wrote " + out + ": " + spec.get("functions").size() + " functions, "
                    + spec.get("enums").size() + " enums, " + spec.get("records").size() + " records, "
                    + spec.get("typedefs").size() + " typedefs");
            return;
        }
        if (args.length < 2) {
            System.err.println("usage: SpecGenerator CUDA_INCLUDE_DIR OUTPUT_JSON [CLANG]");
            System.exit(2);
        }
        Path inc = Path.of(args[0]);
        if (!Files.isRegularFile(inc.resolve("cuda.h"))) {
            System.err.println("spec generator: no cuda.h in " + inc + " (install the CUDA toolkit or pass its include directory)");
            System.exit(1);
        }
        String clang = args.length > 2 ? args[2] : "clang-22";
        ObjectNode spec = new SpecGenerator(inc, clang).generate();
        Path out = Path.of(args[1]);
        Files.createDirectories(out.toAbsolutePath().getParent());
        writePretty(spec, out);
        System.out.println("wrote " + out + ": " + spec.get("functions").size() + " functions, "
                + spec.get("enums").size() + " enums, " + spec.get("records").size() + " records, "
                + spec.get("typedefs").size() + " typedefs");
    }

    /** Writes JSON with two-space indentation and a final newline, so the committed file diffs well. */
    public static void writePretty(JsonNode node, Path out) throws IOException {
        DefaultPrettyPrinter pp = new DefaultPrettyPrinter().withArrayIndenter(DefaultIndenter.SYSTEM_LINEFEED_INSTANCE.withLinefeed("\n"))
                .withObjectIndenter(DefaultIndenter.SYSTEM_LINEFEED_INSTANCE.withLinefeed("\n"));
        String text = new ObjectMapper().writer(pp).writeValueAsString(node);
        Files.writeString(out, text + "\n");
    }

    // ---------------------------------------------------------------- AST

    private record Decl(JsonNode node, String file, long offset) {}

    private final List<Decl> decls = new ArrayList<>();
    private String currentFile = "";

    /** Runs clang and returns the spec. */
    public ObjectNode generate() throws IOException, InterruptedException {
        for (String h : textHeaders()) {
            Path file = find(h);
            if (file == null) continue;
            String text = Files.readString(file, StandardCharsets.ISO_8859_1);
            headerText.put(h, text);
            List<Integer> starts = new ArrayList<>();
            starts.add(0);
            for (int i = 0; i < text.length(); i++) if (text.charAt(i) == '\n') starts.add(i + 1);
            lineStarts.put(h, starts.stream().mapToInt(Integer::intValue).toArray());
        }
        Path work = Files.createTempDirectory("zluda-spec");
        Path tu = work.resolve(source.cxx() ? "tu.cpp" : "tu.c");
        StringBuilder src = new StringBuilder();
        source.tu().forEach(l -> src.append(l).append('\n'));
        Files.writeString(tu, src);
        List<String> cmd = new ArrayList<>(List.of(clang, "-x", source.cxx() ? "c++" : "c", source.cxx() ? "-std=gnu++17" : "-std=gnu11",
                "-fsyntax-only", "-Xclang", "-ast-dump=json"));
        for (Path d : includeDirs) cmd.add("-I" + d);
        cmd.add(tu.toString());
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        // one top-level declaration at a time: the whole dump of a C++ unit does not fit a small heap
        try (InputStream in = p.getInputStream(); JsonParser jp = json.getFactory().createParser(in)) {
            if (jp.nextToken() != JsonToken.START_OBJECT) throw new IOException(clang + " printed no JSON for " + tu);
            while (jp.nextToken() == JsonToken.FIELD_NAME) {
                String field = jp.currentName();
                JsonToken t = jp.nextToken();
                if (field.equals("inner") && t == JsonToken.START_ARRAY) {
                    while (jp.nextToken() == JsonToken.START_OBJECT) {
                        JsonNode top = json.readTree(jp);
                        walkTop(top);
                    }
                } else if (field.equals("loc") || field.equals("range")) {
                    scanFiles(json.readTree(jp));
                } else {
                    jp.skipChildren();
                }
            }
            in.transferTo(OutputStream.nullOutputStream());
        }
        if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(clang + " failed on " + tu);
        }
        return build(work);
    }

    /** Headers whose text is read (for line numbers and Doxygen groups): the covered ones and the type headers. */
    private List<String> textHeaders() {
        List<String> all = new ArrayList<>(source.headers());
        for (String h : source.typeHeaders()) if (!all.contains(h)) all.add(h);
        return all;
    }

    private Path find(String header) {
        for (Path d : includeDirs) {
            Path f = d.resolve(header);
            if (Files.isRegularFile(f)) return f;
        }
        return null;
    }

    /**
     * One top-level declaration. The children of an {@code extern "C"} block (C++) are top-level
     * declarations too. What the spec cannot use is dropped once its locations have been followed.
     */
    private void walkTop(JsonNode top) {
        if (top.path("kind").asText().equals("LinkageSpecDecl")) {
            var it = top.fields();
            while (it.hasNext()) {
                var e = it.next();
                if (e.getKey().equals("loc") || e.getKey().equals("range")) scanFiles(e.getValue());
                else if (e.getKey().equals("inner")) for (JsonNode c : e.getValue()) walkTop(c);
            }
            return;
        }
        int before = decls.size();
        walkLocations(top, true);
        if (decls.size() == before + 1) {
            Decl d = decls.get(before);
            String kind = top.path("kind").asText();
            boolean keep = source.coversTypes(d.file) || kind.equals("TypedefDecl");
            if (!keep && (kind.equals("RecordDecl") || kind.equals("CXXRecordDecl")) && top.path("completeDefinition").asBoolean(false)) {
                // a record of another header that a function may take (__half): its name and where, not its members
                ObjectNode slim = json.createObjectNode();
                for (String k : List.of("id", "kind", "name", "tagUsed", "completeDefinition")) if (top.has(k)) slim.set(k, top.get(k));
                decls.set(before, new Decl(slim, d.file, d.offset));
                keep = true;
            }
            if (!keep) decls.remove(before);
        }
    }

    /** Follows clang's JSON emission order, where "file" is printed only when it changes. */
    private void walkLocations(JsonNode node, boolean top) {
        long offset = -1;
        var it = node.fields();
        while (it.hasNext()) {
            var e = it.next();
            String k = e.getKey();
            if (k.equals("loc") || k.equals("range")) {
                long o = scanFiles(e.getValue());
                if (k.equals("loc")) {
                    offset = o;
                    if (top) decls.add(new Decl(node, baseName(currentFile), offset));
                }
            } else if (k.equals("inner")) {
                for (JsonNode c : e.getValue()) walkLocations(c, false);
            }
        }
        if (top && offset < 0) decls.add(new Decl(node, baseName(currentFile), -1));
    }

    private long scanFiles(JsonNode loc) {
        long off = -1;
        if (loc.isObject()) {
            var it = loc.fields();
            while (it.hasNext()) {
                var e = it.next();
                switch (e.getKey()) {
                    case "file" -> currentFile = e.getValue().asText();
                    case "offset" -> { if (off < 0) off = e.getValue().asLong(); }
                    case "includedFrom" -> { }
                    default -> {
                        long o = scanFiles(e.getValue());
                        // prefer the expansion location: it is where the declaration sits in the header
                        if (e.getKey().equals("expansionLoc") && o >= 0) off = o;
                        else if (off < 0) off = o;
                    }
                }
            }
        }
        return off;
    }

    private static String baseName(String file) {
        int slash = file.lastIndexOf('/');
        return slash < 0 ? file : file.substring(slash + 1);
    }

    private int line(String file, long offset) {
        int[] starts = lineStarts.get(file);
        if (starts == null || offset < 0) return 0;
        int lo = 0, hi = starts.length - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (starts[mid] <= offset) lo = mid; else hi = mid - 1;
        }
        return lo + 1;
    }

    // ---------------------------------------------------------------- spec

    private ObjectNode build(Path work) throws IOException, InterruptedException {
        ObjectNode spec = json.createObjectNode();
        ObjectNode sourceNode = spec.putObject("source");
        LayoutProbe probe = new LayoutProbe(source.tu(), source.cxx());
        if (source.driver()) {
            Matcher vm = VERSION_MACRO.matcher(headerText.get("cuda.h"));
            int cudaVersion = vm.find() ? Integer.parseInt(vm.group(1)) : 0;
            sourceNode.put("cudaVersion", cudaVersion);
        } else {
            sourceNode.put("library", source.library());
            sourceNode.put("soname", source.soname());
            if (source.versionMacro() != null) probe.value("source.version", source.versionMacro());
        }
        ArrayNode hs = sourceNode.putArray("headers");
        source.headers().stream().filter(headerText::containsKey).forEach(hs::add);
        if (!source.typeHeaders().isEmpty()) {
            ArrayNode ths = sourceNode.putArray("typeHeaders");
            source.typeHeaders().forEach(ths::add);
        }
        sourceNode.put("defines", String.join("; ", source.tu().stream().filter(l -> l.startsWith("#define")).toList()));
        if (!source.driver()) sourceNode.put("language", source.cxx() ? "c++" : "c");
        sourceNode.put("compiler", compilerVersion());
        sourceNode.put("abi", "x86_64-linux-gnu");
        sourceNode.put("generatedBy", source.driver() ? "dev.zluda.spec.gen.SpecGenerator (api-spec/gen-spec.sh)"
                : "dev.zluda.spec.gen.SpecGenerator --library " + source.library() + " (api-spec/gen-library-specs.sh)");
        String ungroupedName = source.driver() ? "CUDA_UNGROUPED" : source.library().toUpperCase(java.util.Locale.ROOT) + "_UNGROUPED";

        // Groups: Doxygen \defgroup ... /** @} */ /* END name */ ranges in each header.
        record GroupRange(String header, int from, int to, String name) {}
        List<GroupRange> groupRanges = new ArrayList<>();
        for (String h : source.headers()) {
            if (!headerText.containsKey(h)) continue;
            // \defgroup NAME names the group that the next "@{" opens; "@}" closes the innermost one
            String pending = null;
            int pendingLine = 0;
            java.util.ArrayDeque<GroupRange> open = new java.util.ArrayDeque<>();
            String[] lines = headerText.get(h).split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                Matcher d = DEFGROUP.matcher(lines[i]);
                if (d.find()) {
                    pending = d.group(1);
                    pendingLine = i + 1;
                }
                if (lines[i].contains("@{")) {
                    open.push(new GroupRange(h, pending != null ? pendingLine : i + 1, 0, pending != null ? pending : ungroupedName));
                    pending = null;
                }
                if (CLOSEGROUP.matcher(lines[i]).find() && !open.isEmpty()) {
                    GroupRange g = open.pop();
                    groupRanges.add(new GroupRange(h, g.from, i + 1, g.name));
                }
            }
        }

        for (Decl d : decls) if (isRecord(d.node) && d.node.path("completeDefinition").asBoolean(false)) completeRecordIds.add(d.node.path("id").asText());
        Map<String, JsonNode> recordsById = new HashMap<>();
        Map<String, String> typedefOfRecordId = new HashMap<>();
        for (Decl d : decls) {
            if (!source.coversTypes(d.file)) continue;
            JsonNode n = d.node;
            if (n.path("kind").asText().equals("TypedefDecl")) {
                JsonNode t = n.path("inner").path(0);
                if (t.path("kind").asText().equals("RecordType") || t.path("kind").asText().equals("EnumType")) {
                    typedefOfRecordId.putIfAbsent(t.path("decl").path("id").asText(), n.path("name").asText());
                }
            }
            if (isRecord(n)) recordsById.put(n.path("id").asText(), n);
        }

        ArrayNode functions = spec.putArray("functions");
        ArrayNode enums = spec.putArray("enums");
        ArrayNode records = spec.putArray("records");
        ArrayNode typedefs = spec.putArray("typedefs");
        Map<String, String> groupOfBase = new HashMap<>();
        List<ObjectNode> ungrouped = new ArrayList<>();
        Map<String, Boolean> seenFunction = new HashMap<>();
        Map<String, Boolean> seenRecord = new HashMap<>();
        Map<String, Boolean> seenEnum = new HashMap<>();

        // Typedefs of the system headers the interop functions use (GLuint, EGLImageKHR, VdpDevice...).
        Map<String, Decl> foreignTypedefs = new HashMap<>();
        for (Decl d : decls) {
            if (!source.coversTypes(d.file) && d.node.path("kind").asText().equals("TypedefDecl")) {
                foreignTypedefs.putIfAbsent(d.node.path("name").asText(), d);
            }
        }
        // Records of other headers that functions take by their tag alone (C++: const __half *).
        Map<String, Decl> foreignRecords = new HashMap<>();
        java.util.Set<String> coveredNames = new java.util.HashSet<>();
        for (Decl d : decls) {
            if (source.coversTypes(d.file)) coveredNames.add(d.node.path("name").asText(""));
            else if (isRecord(d.node) && d.node.path("completeDefinition").asBoolean(false) && !d.node.path("name").asText("").isEmpty()) {
                foreignRecords.putIfAbsent(d.node.path("name").asText(), d);
            }
        }
        java.util.Set<String> usedForeign = new java.util.TreeSet<>();
        java.util.Set<String> usedForeignRecords = new java.util.TreeSet<>();
        for (Decl d : decls) {
            if (!source.covers(d.file) || !d.node.path("kind").asText().equals("FunctionDecl")) continue;
            if (!source.owns(d.node.path("name").asText())) continue;
            for (JsonNode c : d.node.path("inner")) {
                String t = c.path("type").path("qualType").asText();
                for (String word : t.split("[^A-Za-z0-9_]+")) {
                    if (!source.driver() && !foreignTypedefs.containsKey(word) && !coveredNames.contains(word) && foreignRecords.containsKey(word)) {
                        usedForeignRecords.add(word);
                    }
                    while (foreignTypedefs.containsKey(word) && usedForeign.add(word)) {
                        word = foreignTypedefs.get(word).node.path("type").path("qualType").asText().replaceAll("[^A-Za-z0-9_].*$", "");
                    }
                }
            }
        }
        for (String name : usedForeign) {
            Decl d = foreignTypedefs.get(name);
            ObjectNode t = typedefs.addObject();
            t.put("name", name);
            t.put("type", d.node.path("type").path("qualType").asText());
            t.put("category", typedefCategory(d.node.path("inner").path(0), recordsById));
            t.put("header", d.file);
            if (!t.get("category").asText().equals("function") && !t.get("category").asText().equals("void") && !t.get("category").asText().equals("opaque")) {
                probe.sizeOf("typedef." + name + ".size", name);
            }
        }
        for (String name : usedForeignRecords) {
            Decl d = foreignRecords.get(name);
            ObjectNode t = typedefs.addObject();
            t.put("name", name);
            t.put("type", d.node.path("tagUsed").asText("struct") + " " + name);
            t.put("category", "record");
            t.put("header", d.file);
            probe.sizeOf("typedef." + name + ".size", name);
        }

        for (Decl d : decls) {
            if (!source.coversTypes(d.file)) continue;
            JsonNode n = d.node;
            String kind = n.path("kind").asText();
            String name = n.path("name").asText("");
            int line = line(d.file, d.offset);
            switch (kind) {
                case "FunctionDecl" -> {
                    if (!source.covers(d.file) || !source.owns(name) || seenFunction.put(name, true) != null) continue;
                    // a library header's static inline helpers (cublasLtMatmulDescInit) are not exported: not API entry points
                    if (!source.driver() && n.path("inline").asBoolean(false)) continue;
                    ObjectNode f = functions.addObject();
                    f.put("name", name);
                    f.put("header", d.file);
                    f.put("line", line);
                    // the innermost group that holds the declaration
                    String group = null;
                    int groupStart = -1;
                    for (GroupRange r : groupRanges) {
                        if (r.header.equals(d.file) && line >= r.from && line <= r.to && r.from > groupStart) {
                            group = r.name;
                            groupStart = r.from;
                        }
                    }
                    String qual = n.path("type").path("qualType").asText();
                    f.put("returns", qual.substring(0, qual.indexOf('(')).trim());
                    boolean deprecated = false;
                    ArrayNode params = f.putArray("params");
                    for (JsonNode c : n.path("inner")) {
                        String ck = c.path("kind").asText();
                        if (ck.equals("ParmVarDecl")) {
                            ObjectNode p = params.addObject();
                            p.put("name", c.path("name").asText(""));
                            p.put("type", c.path("type").path("qualType").asText());
                            if (c.path("type").has("desugaredQualType")) {
                                p.put("canonical", c.path("type").path("desugaredQualType").asText());
                            }
                        } else if (ck.equals("DeprecatedAttr")) {
                            deprecated = true;
                        }
                    }
                    if (deprecated) f.put("deprecated", true);
                    if (group != null) {
                        f.put("group", group);
                        groupOfBase.putIfAbsent(baseFunctionName(name), group);
                    } else {
                        ungrouped.add(f);
                    }
                }
                case "TypedefDecl" -> {
                    ObjectNode t = typedefs.addObject();
                    t.put("name", name);
                    t.put("type", n.path("type").path("qualType").asText());
                    t.put("category", typedefCategory(n.path("inner").path(0), recordsById));
                    if (!source.driver() && t.get("category").asText().equals("pointer")
                            && t.get("type").asText().matches("(struct )?\\w+Opaque_t \\*")) {
                        // cublasLtMatmulDesc_t: a pointer to a struct whose members are opaque storage: a handle
                        t.put("category", "handle");
                    }
                    t.put("line", line);
                    if (!source.driver()) t.put("header", d.file);
                    if (!t.get("category").asText().equals("function") && !t.get("category").asText().equals("void") && !t.get("category").asText().equals("opaque")) {
                        probe.sizeOf("typedef." + name + ".size", name);
                    }
                }
                case "EnumDecl" -> {
                    String id = n.path("id").asText();
                    String tag = name;
                    String typedefName = typedefOfRecordId.get(id);
                    String key = tag.isEmpty() ? typedefName : tag;
                    if (key == null || seenEnum.put(key, true) != null) continue;
                    ObjectNode e = enums.addObject();
                    e.put("name", typedefName != null ? typedefName : tag);
                    if (!tag.isEmpty()) e.put("tag", tag);
                    e.put("line", line);
                    if (!source.driver()) e.put("header", d.file);
                    String cType = !tag.isEmpty() ? "enum " + tag : typedefName;
                    probe.sizeOf("enum." + key + ".size", cType);
                    ArrayNode members = e.putArray("members");
                    for (JsonNode c : n.path("inner")) {
                        if (!c.path("kind").asText().equals("EnumConstantDecl")) continue;
                        String m = c.path("name").asText();
                        members.addObject().put("name", m);
                        probe.value("const." + m, m);
                    }
                }
                case "RecordDecl", "CXXRecordDecl" -> {
                    if (!n.path("completeDefinition").asBoolean(false)) continue;
                    String id = n.path("id").asText();
                    String typedefName = typedefOfRecordId.get(id);
                    String key = name.isEmpty() ? typedefName : name;
                    if (key == null || seenRecord.put(key, true) != null) continue;
                    ObjectNode r = records.addObject();
                    r.put("name", typedefName != null ? typedefName : name);
                    if (!name.isEmpty()) r.put("tag", name);
                    r.put("kind", n.path("tagUsed").asText());
                    r.put("line", line);
                    if (!source.driver()) r.put("header", d.file);
                    String cType = !name.isEmpty() ? n.path("tagUsed").asText() + " " + name : typedefName;
                    r.put("cType", cType);
                    probe.sizeOf("record." + key + ".size", cType);
                    probe.alignOf("record." + key + ".align", cType);
                    r.set("fields", fields(n, cType, "", "record." + key, probe));
                }
                default -> { }
            }
        }
        for (ObjectNode f : ungrouped) {
            String g = groupOfBase.get(baseFunctionName(f.get("name").asText()));
            f.put("group", g != null ? g : ungroupedName);
        }

        // Handles: typedefs that are pointers to structs the headers never define.
        ArrayNode handles = spec.putArray("handles");
        for (JsonNode t : typedefs) if (t.get("category").asText().equals("handle")) handles.add(t.get("name").asText());

        // Numbers from the compiler.
        Map<String, Long> answers = probe.run(clang, includeDirs, work.resolve("probe"));
        if (answers.containsKey("source.version")) {
            // after "soname", as the generator wrote the source block
            ObjectNode reordered = json.createObjectNode();
            var it = sourceNode.fields();
            while (it.hasNext()) {
                var e = it.next();
                reordered.set(e.getKey(), e.getValue());
                if (e.getKey().equals("soname")) reordered.put("version", answers.get("source.version"));
            }
            sourceNode.removeAll();
            sourceNode.setAll(reordered);
        }
        for (JsonNode t : typedefs) {
            Long s = answers.get("typedef." + t.get("name").asText() + ".size");
            if (s != null) ((ObjectNode) t).put("size", s);
        }
        for (JsonNode e : enums) {
            String key = e.has("tag") ? e.get("tag").asText() : e.get("name").asText();
            ((ObjectNode) e).put("size", answers.get("enum." + key + ".size"));
            for (JsonNode m : e.get("members")) ((ObjectNode) m).put("value", answers.get("const." + m.get("name").asText()));
        }
        for (JsonNode r : records) {
            String key = r.has("tag") ? r.get("tag").asText() : r.get("name").asText();
            ObjectNode ro = (ObjectNode) r;
            ro.put("size", answers.get("record." + key + ".size"));
            ro.put("align", answers.get("record." + key + ".align"));
            fillFieldNumbers(r.get("fields"), "record." + key, answers);
        }
        // Stable field order in every object: name first, as written above.
        sortTypedefs(typedefs);
        spec.set("macros", source.driver() ? macros(work) : libraryMacros(work));
        return spec;
    }

    private static boolean isRecord(JsonNode n) {
        String k = n.path("kind").asText();
        return k.equals("RecordDecl") || k.equals("CXXRecordDecl");
    }

    private void sortTypedefs(ArrayNode typedefs) {
        TreeMap<String, JsonNode> sorted = new TreeMap<>();
        for (JsonNode t : typedefs) sorted.putIfAbsent(t.get("name").asText(), t);
        typedefs.removeAll();
        sorted.values().forEach(typedefs::add);
    }

    /** Fields of a record, recursing into records defined inline; anonymous members are flattened as C11 does. */
    private ArrayNode fields(JsonNode record, String cType, String pathPrefix, String keyPrefix, LayoutProbe probe) {
        ArrayNode out = json.createArrayNode();
        JsonNode pendingInline = null;
        for (JsonNode c : record.path("inner")) {
            String ck = c.path("kind").asText();
            if (ck.equals("RecordDecl") || ck.equals("CXXRecordDecl")) {
                pendingInline = c;
                continue;
            }
            if (!ck.equals("FieldDecl")) continue;
            String fname = c.path("name").asText("");
            String type = c.path("type").path("qualType").asText();
            boolean inline = type.contains("(unnamed") || type.contains("(anonymous");
            if (fname.isEmpty() && inline && pendingInline != null) {
                // anonymous struct/union member: its fields belong to the enclosing record
                for (JsonNode f : fields(pendingInline, cType, pathPrefix, keyPrefix, probe)) out.add(f);
                pendingInline = null;
                continue;
            }
            ObjectNode f = out.addObject();
            f.put("name", fname);
            String path = pathPrefix + fname;
            String key = keyPrefix + "." + fname;
            Matcher am = ARRAY.matcher(type);
            String elementPath = path;
            if (am.matches()) {
                f.put("count", Long.parseLong(am.group(2)));
                elementPath = path + "[0]";
            }
            if (inline && pendingInline != null) {
                f.put("type", pendingInline.path("tagUsed").asText());
                f.set("fields", fields(pendingInline, cType, elementPath + ".", key, probe));
                pendingInline = null;
            } else {
                f.put("type", type);
            }
            probe.offsetOf(key + ".offset", cType, path);
            probe.memberSize(key + ".size", cType, path);
        }
        return out;
    }

    private void fillFieldNumbers(JsonNode fields, String keyPrefix, Map<String, Long> answers) {
        for (JsonNode f : fields) {
            String key = keyPrefix + "." + f.get("name").asText();
            ObjectNode fo = (ObjectNode) f;
            fo.put("offset", answers.get(key + ".offset"));
            fo.put("size", answers.get(key + ".size"));
            if (f.has("fields")) fillFieldNumbers(f.get("fields"), key, answers);
        }
    }

    /** Ids of every complete struct/union of the unit (library specs: a typedef of an incomplete one has no size). */
    private final java.util.Set<String> completeRecordIds = new java.util.HashSet<>();

    private String typedefCategory(JsonNode t, Map<String, JsonNode> recordsById) {
        if (!source.driver() && t.path("kind").asText().equals("RecordType")
                && !completeRecordIds.contains(t.path("decl").path("id").asText())) {
            return "opaque";
        }
        return switch (t.path("kind").asText()) {
            case "PointerType" -> {
                JsonNode pointee = t.path("inner").path(0);
                String pk = pointee.path("kind").asText();
                if (pk.equals("ParenType") || pk.equals("FunctionProtoType")) yield "function";
                if (pk.equals("RecordType")) {
                    JsonNode rec = recordsById.get(pointee.path("decl").path("id").asText());
                    yield rec == null || !rec.path("completeDefinition").asBoolean(false) ? "handle" : "pointer";
                }
                yield "pointer";
            }
            case "EnumType" -> "enum";
            case "RecordType" -> "record";
            case "TypedefType" -> "alias";
            case "BuiltinType" -> t.path("type").path("qualType").asText().equals("void") ? "void" : "builtin";
            case "ConstantArrayType" -> "array";
            case "FunctionProtoType", "FunctionNoProtoType", "ParenType" -> "function";
            default -> t.path("kind").asText();
        };
    }

    /** {@code cuMemcpyHtoD_v2_ptds} → {@code cuMemcpyHtoD}: the name cuGetProcAddress is asked for. */
    public static String baseFunctionName(String name) {
        return name.replaceFirst("(_ptds|_ptsz)$", "").replaceFirst("_v\\d+$", "");
    }

    private static final Pattern CU_DEFINE = Pattern.compile("^\\s*#\\s*define\\s+(cu[A-Z]\\w*)\\s+\\S", Pattern.MULTILINE);

    /**
     * cuda.h's redirecting macros ({@code #define cuMemAlloc cuMemAlloc_v2}, and the
     * {@code __CUDA_API_PTDS}/{@code __CUDA_API_PTSZ} forms), as the preprocessor expands them for a
     * program: without {@code __CUDA_API_VERSION_INTERNAL}, once plain ("default") and once with
     * {@code CUDA_API_PER_THREAD_DEFAULT_STREAM} ("perThreadDefaultStream"). Only names that expand
     * to another name in either mode are listed.
     */
    private ObjectNode macros(Path work) throws IOException, InterruptedException {
        java.util.TreeSet<String> names = new java.util.TreeSet<>();
        for (String h : List.of("cuda.h", "cudaProfiler.h")) {
            Matcher m = CU_DEFINE.matcher(headerText.get(h));
            while (m.find()) names.add(m.group(1));
        }
        Map<String, String[]> expanded = new java.util.TreeMap<>();
        String[] modes = {null, "-DCUDA_API_PER_THREAD_DEFAULT_STREAM"};
        for (int mode = 0; mode < 2; mode++) {
            StringBuilder src = new StringBuilder("#include <cuda.h>\n#include <cudaProfiler.h>\nZLUDA_MACROS_BEGIN\n");
            for (String n : names) src.append("ZLUDA_MACRO ").append(n).append(" = ").append(n).append('\n');
            Path tu = work.resolve("macros" + mode + ".c");
            Files.writeString(tu, src);
            List<String> cmd = new ArrayList<>(List.of(clang, "-E", "-P", "-x", "c", "-I" + includeDirs.getFirst()));
            if (modes[mode] != null) cmd.add(modes[mode]);
            cmd.add(tu.toString());
            String out = LayoutProbe.exec(cmd, work);
            String[] lines = out.substring(out.indexOf("ZLUDA_MACROS_BEGIN")).split("\n");
            List<String> got = new ArrayList<>();
            for (String l : lines) if (l.startsWith("ZLUDA_MACRO ")) got.add(l.substring("ZLUDA_MACRO ".length()).trim());
            int k = 0;
            for (String n : names) {
                String[] parts = got.get(k++).split("\\s*=\\s*");
                expanded.computeIfAbsent(n, x -> new String[2])[mode] = parts[parts.length - 1].trim();
            }
        }
        ObjectNode result = json.createObjectNode();
        for (Map.Entry<String, String[]> e : expanded.entrySet()) {
            String n = e.getKey(), a = e.getValue()[0], b = e.getValue()[1];
            if (a.equals(n) && b.equals(n)) continue;
            ObjectNode o = result.putObject(n);
            o.put("default", a);
            o.put("perThreadDefaultStream", b);
        }
        return result;
    }

    /**
     * A library's redirecting macros ({@code #define cublasSgemm cublasSgemm_v2} in cublas_v2.h,
     * {@code #define nvmlInit nvmlInit_v2} in nvml.h): every {@code #define} of the library's
     * function prefix in its macro headers, expanded by the preprocessor in {@link SpecSource#macroTu()};
     * only names that expand to another name are listed, as {@code {"default": NAME}}.
     */
    private ObjectNode libraryMacros(Path work) throws IOException, InterruptedException {
        ObjectNode result = json.createObjectNode();
        if (source.macroTu().isEmpty()) return result;
        java.util.TreeSet<String> names = new java.util.TreeSet<>();
        for (String h : source.macroHeaders()) {
            Path file = find(h);
            if (file == null) continue;
            Matcher m = Pattern.compile("^\\s*#\\s*define\\s+(\\w+)\\s+(\\w+)\\s*$", Pattern.MULTILINE)
                    .matcher(Files.readString(file, StandardCharsets.ISO_8859_1));
            while (m.find()) if (source.owns(m.group(1)) && source.owns(m.group(2))) names.add(m.group(1));
        }
        StringBuilder src = new StringBuilder();
        source.macroTu().forEach(l -> src.append(l).append('\n'));
        src.append("ZLUDA_MACROS_BEGIN\n");
        for (String n : names) src.append("ZLUDA_MACRO ").append(n).append('\n');
        Path tu = work.resolve(source.cxx() ? "macros.cpp" : "macros.c");
        Files.writeString(tu, src);
        List<String> cmd = new ArrayList<>(List.of(clang, "-E", "-P", "-x", source.cxx() ? "c++" : "c"));
        for (Path d : includeDirs) cmd.add("-I" + d);
        cmd.add(tu.toString());
        String out = LayoutProbe.exec(cmd, work);
        List<String> got = new ArrayList<>();
        for (String l : out.substring(out.indexOf("ZLUDA_MACROS_BEGIN")).split("\n")) {
            if (l.startsWith("ZLUDA_MACRO ")) got.add(l.substring("ZLUDA_MACRO ".length()).trim());
        }
        int k = 0;
        for (String n : names) {
            String e = got.get(k++);
            if (!e.equals(n)) result.putObject(n).put("default", e);
        }
        return result;
    }

    private String compilerVersion() throws IOException, InterruptedException {
        String out = LayoutProbe.exec(List.of(clang, "--version"), Path.of("."));
        return out.lines().findFirst().orElse(clang).trim();
    }

    @SuppressWarnings("unused")
    private static Map<String, Object> linked() {
        return new LinkedHashMap<>();
    }
}
