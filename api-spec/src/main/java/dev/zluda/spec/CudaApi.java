package dev.zluda.spec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * An API model: every function, enum, struct and handle type of the CUDA driver API (cuda.h and
 * cudaProfiler.h, CUDA 13.0; {@link #get()}) or of one of the libraries on top of it (cuBLAS,
 * cuBLASLt, cuFFT, cuSPARSE, cuDNN, NVML; {@link #library(String)}), with the directions and sizes
 * a tracer needs.
 *
 * <p>The driver's is loaded from four classpath resources in {@code dev/zluda/spec/}:
 * {@code cuda-api.json} (generated from the headers by {@link dev.zluda.spec.gen.SpecGenerator},
 * never edited by hand), {@code cuda-api-overlay.yaml} (hand-maintained: pointer directions, sizes,
 * handle lifetimes), {@code cuda-api-driver.yaml} (hand-maintained: each function's {@link Role}, and
 * where zluda's driver serves it, {@link DriverDispatch}) and {@code cu-get-proc-address.tsv} (measured
 * on NVIDIA's driver, see {@link ProcAddressTable}). A library's from {@code <library>-api.json}
 * (generated the same way), {@code <library>-exports.txt} (the functions NVIDIA's library exports) and,
 * where there is one, {@code <library>-api-overlay.yaml}; where its overlay says nothing about a pointer
 * parameter, {@link #libraryPointer rules} decide its direction and whether a tracer may follow it
 * (SPEC.md, "Library specs"); a library's functions have no role and no driver area. Instances are
 * immutable and thread-safe.
 */
public final class CudaApi {
    /** Groups whose every pointer parameter must carry a direction and size in the overlay. */
    public static final Set<String> ANNOTATED_GROUPS = Set.of(
            "CUDA_ERROR", "CUDA_INITIALIZE", "CUDA_VERSION", "CUDA_DEVICE", "CUDA_DEVICE_DEPRECATED",
            "CUDA_PRIMARY_CTX", "CUDA_CTX", "CUDA_CTX_DEPRECATED", "CUDA_MODULE", "CUDA_MODULE_DEPRECATED",
            "CUDA_LIBRARY", "CUDA_MEM", "CUDA_UNIFIED", "CUDA_MALLOC_ASYNC", "CUDA_STREAM", "CUDA_EVENT",
            "CUDA_EXEC", "CUDA_EXEC_DEPRECATED", "CUDA_OCCUPANCY", "CUDA_DRIVER_ENTRY_POINT", "CUDA_VA", "CUDA_GRAPH");
    /** Functions outside {@link #ANNOTATED_GROUPS} that are annotated all the same. */
    public static final Set<String> ANNOTATED_EXTRA = Set.of("cuGetExportTable", "cuGraphInstantiate", "cuGraphInstantiate_v2");

    private static final String RES = "/dev/zluda/spec/";
    private static volatile CudaApi shared;
    private static final Map<String, CudaApi> sharedLibraries = new java.util.concurrent.ConcurrentHashMap<>();

    /** The driver API's short name, as {@link CudaFunction#library()} gives it. */
    public static final String DRIVER = "cuda";
    /**
     * The libraries with a spec, by short name, with the function-name prefix that marks their
     * functions (most specific first: {@code cublasLt} before {@code cublas}).
     */
    public static final List<String> LIBRARIES = List.of("cublasLt", "cublas", "cufft", "cusparse", "cudnn", "nvml");
    /** The shared library (soname) that exports each library's functions. */
    public static final Map<String, String> SONAMES = Map.of("cublas", "libcublas.so.13", "cublasLt", "libcublasLt.so.13",
            "cufft", "libcufft.so.12", "cusparse", "libcusparse.so.12", "cudnn", "libcudnn.so.9", "nvml", "libnvidia-ml.so.1",
            DRIVER, "libcuda.so.1");

    private final String library;
    private final List<String> exports;
    private final JsonNode macros;

    private final JsonNode source;
    private final List<CudaFunction> functions;
    private final Map<String, CudaFunction> byName = new HashMap<>();
    private final Map<String, List<CudaFunction>> byBase = new LinkedHashMap<>();
    private final Map<String, CudaEnum> enums = new LinkedHashMap<>();
    private final Map<String, CudaRecord> records = new LinkedHashMap<>();
    private final Map<String, JsonNode> typedefs = new LinkedHashMap<>();
    private final Set<String> handles = new HashSet<>();
    private final Set<String> valueHandles = new HashSet<>();
    private final List<String> overlayProblems = new ArrayList<>();
    private final ProcAddressTable procAddress;
    private final Map<String, Role> roleOfBase = new HashMap<>();
    private final DriverDispatch dispatch;

    /** The shared instance, loaded from the classpath on first use. */
    public static CudaApi get() {
        CudaApi a = shared;
        if (a == null) {
            synchronized (CudaApi.class) {
                if (shared == null) shared = load();
                a = shared;
            }
        }
        return a;
    }

    /**
     * The shared model of an API by short name: {@code cuda} (the driver, {@link #get()}) or one of
     * {@link #LIBRARIES}; throws IllegalArgumentException for another name and UncheckedIOException
     * when its resources are missing or malformed.
     */
    public static CudaApi library(String name) {
        if (name.equals(DRIVER)) return get();
        if (!LIBRARIES.contains(name)) throw new IllegalArgumentException("no API spec named " + name + "; known: cuda, " + LIBRARIES);
        return sharedLibraries.computeIfAbsent(name, CudaApi::loadLibrary);
    }

    /**
     * The API a function name belongs to, by its prefix ({@code cublasLtMatmul} → {@code cublasLt},
     * {@code cublasSgemm_v2} → {@code cublas}, {@code cudnnCreate} → {@code cudnn}, {@code nvmlInit_v2}
     * → {@code nvml}); {@code cuda} for anything else. Export-table slot names ({@code {GUID}::slot N})
     * are the driver's.
     */
    public static String libraryOf(String functionName) {
        for (String l : LIBRARIES) if (functionName.startsWith(l)) return l;
        return DRIVER;
    }

    /** A function of any API by name (the API found by {@link #libraryOf}); empty when that spec does not declare it. */
    public static Optional<CudaFunction> anyFunction(String name) {
        try {
            return library(libraryOf(name)).function(name);
        } catch (UncheckedIOException e) {
            return Optional.empty();
        }
    }

    /** Loads a library's model from its classpath resources. */
    private static CudaApi loadLibrary(String name) {
        try {
            ObjectMapper jsonMapper = new ObjectMapper();
            JsonNode spec = jsonMapper.readTree(resource(name + "-api.json"));
            JsonNode overlay;
            try (InputStream in = CudaApi.class.getResourceAsStream(RES + name + "-api-overlay.yaml")) {
                overlay = in == null ? jsonMapper.createObjectNode() : new ObjectMapper(new YAMLFactory()).readTree(in);
            }
            List<String> exports = new ArrayList<>();
            try (InputStream in = CudaApi.class.getResourceAsStream(RES + name + "-exports.txt")) {
                if (in != null) {
                    for (String l : new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).split("\n")) {
                        if (!l.isBlank() && !l.startsWith("#")) exports.add(l.trim());
                    }
                }
            }
            return new CudaApi(name, spec, overlay == null ? jsonMapper.createObjectNode() : overlay, jsonMapper.createObjectNode(), null, exports);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot load the " + name + " API spec: " + e.getMessage(), e);
        }
    }

    /** Loads a fresh instance of the driver's model from the classpath resources; throws UncheckedIOException when one is missing or malformed. */
    public static CudaApi load() {
        try {
            ObjectMapper jsonMapper = new ObjectMapper();
            JsonNode spec = jsonMapper.readTree(resource("cuda-api.json"));
            JsonNode overlay = new ObjectMapper(new YAMLFactory()).readTree(resource("cuda-api-overlay.yaml"));
            JsonNode driver = new ObjectMapper(new YAMLFactory()).readTree(resource("cuda-api-driver.yaml"));
            ProcAddressTable proc;
            try (InputStream in = CudaApi.class.getResourceAsStream(RES + "cu-get-proc-address.tsv")) {
                proc = in == null ? null : new ProcAddressTable(in);
            }
            return new CudaApi(DRIVER, spec, overlay, driver, proc, List.of());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot load the CUDA API spec: " + e.getMessage(), e);
        }
    }

    private static InputStream resource(String name) throws IOException {
        InputStream in = CudaApi.class.getResourceAsStream(RES + name);
        if (in == null) throw new IOException("missing classpath resource " + RES + name);
        return in;
    }

    private CudaApi(String library, JsonNode spec, JsonNode overlay, JsonNode driver, ProcAddressTable proc, List<String> exports) {
        this.library = library;
        this.exports = List.copyOf(exports);
        this.source = spec.path("source");
        this.macros = spec.path("macros");
        for (JsonNode t : spec.path("typedefs")) typedefs.put(t.path("name").asText(), t);
        for (JsonNode h : spec.path("handles")) handles.add(h.asText());
        for (JsonNode h : overlay.path("valueHandles")) valueHandles.add(h.asText());
        for (JsonNode e : spec.path("enums")) {
            List<CudaEnum.Member> members = new ArrayList<>();
            for (JsonNode m : e.path("members")) members.add(new CudaEnum.Member(m.path("name").asText(), m.path("value").asLong()));
            CudaEnum en = new CudaEnum(e.path("name").asText(), e.has("tag") ? e.path("tag").asText() : null,
                    e.path("size").asInt(), List.copyOf(members));
            enums.put(en.name(), en);
            if (en.tag() != null) enums.putIfAbsent("enum " + en.tag(), en);
        }
        for (JsonNode r : spec.path("records")) {
            CudaRecord rec = new CudaRecord(r.path("name").asText(), r.has("tag") ? r.path("tag").asText() : null,
                    r.path("kind").asText().equals("union"), r.path("size").asInt(), r.path("align").asInt(), fields(r.path("fields")));
            records.put(rec.name(), rec);
            if (rec.tag() != null) records.putIfAbsent((rec.union() ? "union " : "struct ") + rec.tag(), rec);
        }
        Set<String> bases = new HashSet<>();
        for (JsonNode f : spec.path("functions")) bases.add(baseName(f.path("name").asText()));
        var roleKeys = driver.path("roles").fieldNames();
        while (roleKeys.hasNext()) {
            String key = roleKeys.next();
            Role role = Role.ofKey(key);
            if (role == null || role == Role.NONE) {
                overlayProblems.add("cuda-api-driver.yaml: no role " + key);
                continue;
            }
            for (String b : strings(driver.path("roles").path(key))) {
                if (!bases.contains(b)) overlayProblems.add("cuda-api-driver.yaml: role " + key + " names " + b + ", which is no base name of cuda.h");
                else if (roleOfBase.put(b, role) != null) overlayProblems.add("cuda-api-driver.yaml: " + b + " has two roles");
            }
        }
        JsonNode overlayFunctions = overlay.path("functions");
        Set<String> known = new HashSet<>();
        List<CudaFunction> fs = new ArrayList<>();
        int id = 0;
        for (JsonNode f : spec.path("functions")) {
            String name = f.path("name").asText();
            known.add(name);
            JsonNode ov = overlayFunctions.path(name);
            fs.add(function(id++, f, ov));
        }
        var it = overlayFunctions.fieldNames();
        while (it.hasNext()) {
            String n = it.next();
            if (!known.contains(n)) overlayProblems.add("overlay names function " + n + ", which " + (library.equals(DRIVER) ? "cuda.h" : library + "'s headers") + " does not declare");
        }
        this.functions = List.copyOf(fs);
        for (CudaFunction f : functions) {
            byName.put(f.name(), f);
            byBase.computeIfAbsent(f.baseName(), k -> new ArrayList<>()).add(f);
        }
        this.procAddress = proc;
        this.dispatch = dispatch(driver);
    }

    /** Reads {@code areas} and {@code served-as} of cuda-api-driver.yaml (see {@link DriverDispatch}). */
    private DriverDispatch dispatch(JsonNode driver) {
        Map<Integer, DriverDispatch.Entry> entries = new HashMap<>();
        List<String> areas = new ArrayList<>();
        var it = driver.path("areas").fieldNames();
        while (it.hasNext()) {
            String area = it.next();
            areas.add(area);
            for (String n : strings(driver.path("areas").path(area))) {
                CudaFunction f = byName.get(n);
                if (f == null) overlayProblems.add("cuda-api-driver.yaml: area " + area + " names " + n + ", which cuda.h does not declare");
                else if (entries.put(f.id(), new DriverDispatch.Entry(f, area, f)) != null) overlayProblems.add("cuda-api-driver.yaml: " + n + " is served twice");
            }
        }
        var as = driver.path("served-as").fields();
        List<Map.Entry<CudaFunction, CudaFunction>> aliases = new ArrayList<>();
        while (as.hasNext()) {
            var e = as.next();
            CudaFunction f = byName.get(e.getKey()), to = byName.get(e.getValue().asText());
            if (f == null || to == null) {
                overlayProblems.add("cuda-api-driver.yaml: served-as " + e.getKey() + ": " + e.getValue().asText() + " names a function cuda.h does not declare");
            } else if (!sameParameters(f, to)) {
                overlayProblems.add("cuda-api-driver.yaml: " + f.name() + " cannot be served as " + to.name() + ": the parameter types differ");
            } else {
                aliases.add(Map.entry(f, to));
            }
        }
        for (var a : aliases) {
            DriverDispatch.Entry target = entries.get(a.getValue().id());
            if (target == null) overlayProblems.add("cuda-api-driver.yaml: " + a.getKey().name() + " is served as " + a.getValue().name() + ", which no area serves");
            else if (entries.put(a.getKey().id(), new DriverDispatch.Entry(a.getKey(), target.area(), target.handler())) != null) {
                overlayProblems.add("cuda-api-driver.yaml: " + a.getKey().name() + " is served twice");
            }
        }
        // per-thread default stream variants are served like the function without the suffix
        for (CudaFunction f : functions) {
            String plain = f.name().replaceFirst("_(ptds|ptsz)$", "");
            if (plain.equals(f.name()) || entries.containsKey(f.id())) continue;
            CudaFunction p = byName.get(plain);
            DriverDispatch.Entry target = p == null ? null : entries.get(p.id());
            if (target != null && sameParameters(f, p)) entries.put(f.id(), new DriverDispatch.Entry(f, target.area(), target.handler()));
        }
        for (DriverDispatch.Entry e : entries.values()) {
            if (e.function().role() == Role.NONE) overlayProblems.add("cuda-api-driver.yaml: " + e.function().name() + " is served but has no role");
        }
        List<String> views = strings(driver.path("views"));
        for (String v : views) if (record(v).isEmpty()) overlayProblems.add("cuda-api-driver.yaml: views names " + v + ", which is no struct of cuda.h");
        return new DriverDispatch(entries, areas, views);
    }

    /** Whether two functions take parameters of the same types, in the same order (after typedefs). */
    private boolean sameParameters(CudaFunction a, CudaFunction b) {
        if (a.params().size() != b.params().size()) return false;
        for (int i = 0; i < a.params().size(); i++) {
            if (!normalType(a.params().get(i).cType()).equals(normalType(b.params().get(i).cType()))) return false;
        }
        return true;
    }

    /** A C type with {@code const} dropped and typedef aliases followed, level by level of pointers. */
    private String normalType(String type) {
        String t = type.trim();
        if (t.endsWith("*")) return normalType(t.substring(0, t.length() - 1)) + "*";
        return resolveTypedefName(t);
    }

    private static List<CudaRecord.Field> fields(JsonNode fs) {
        List<CudaRecord.Field> out = new ArrayList<>();
        for (JsonNode f : fs) {
            out.add(new CudaRecord.Field(f.path("name").asText(), f.path("type").asText(), f.path("offset").asInt(),
                    f.path("size").asInt(), f.path("count").asInt(0), fields(f.path("fields"))));
        }
        return List.copyOf(out);
    }

    private CudaFunction function(int id, JsonNode f, JsonNode ov) {
        String name = f.path("name").asText();
        List<CudaParam> params = new ArrayList<>();
        JsonNode ovParams = ov.path("params");
        currentParams = f.path("params");
        Set<String> paramNames = new HashSet<>();
        int index = 0;
        for (JsonNode p : f.path("params")) {
            String pname = p.path("name").asText();
            paramNames.add(pname);
            params.add(param(name, index++, pname, p.path("type").asText(), ovParams.path(pname)));
        }
        var it = ovParams.fieldNames();
        while (it.hasNext()) {
            String pn = it.next();
            if (!paramNames.contains(pn)) overlayProblems.add(name + ": overlay names parameter " + pn + ", which the function does not have");
        }
        List<String> creates = strings(ov.path("creates"));
        List<String> destroys = strings(ov.path("destroys"));
        if (!library.equals(DRIVER) && !ov.has("creates") && !ov.has("destroys")) {
            // library rule: cublasCreate_v2(cublasHandle_t *handle) creates, cudnnDestroy(cudnnHandle_t) destroys
            for (CudaParam p : params) {
                if (name.contains("Create") && p.isPointer() && p.direction() == Direction.OUT && handles.contains(p.pointeeType())) creates = List.of(p.name());
                if (name.contains("Destroy") && destroys.isEmpty() && p.format() == FormatKind.HANDLE && handles.contains(stripConst(p.cType()))) destroys = List.of(p.name());
            }
        }
        for (String c : creates) if (!paramNames.contains(c)) overlayProblems.add(name + ": creates names unknown parameter " + c);
        for (String c : destroys) if (!paramNames.contains(c)) overlayProblems.add(name + ": destroys names unknown parameter " + c);
        for (CudaParam p : params) {
            if (p.size() == null) continue;
            for (String ref : p.size().expr().references()) {
                if (!paramNames.contains(ref)) overlayProblems.add(name + "." + p.name() + ": size expression refers to unknown parameter " + ref);
            }
            for (String t : p.size().expr().sizeofTypes()) {
                if (sizeOfType(t) <= 0) overlayProblems.add(name + "." + p.name() + ": sizeof(" + t + ") is not a known type");
            }
        }
        return new CudaFunction(id, name, baseName(name), f.path("group").asText(), f.path("header").asText(),
                f.path("line").asInt(), f.path("returns").asText(), List.copyOf(params), f.path("deprecated").asBoolean(false),
                creates, destroys, library, roleOfBase.getOrDefault(baseName(name), Role.NONE));
    }

    private static List<String> strings(JsonNode n) {
        List<String> out = new ArrayList<>();
        if (n.isTextual()) out.add(n.asText());
        for (JsonNode e : n) if (e.isTextual()) out.add(e.asText());
        return List.copyOf(out);
    }

    private CudaParam param(String fn, int index, String name, String cType, JsonNode ov) {
        boolean annotated = !ov.isMissingNode() && !ov.isNull();
        String t = cType.trim();
        FormatKind format;
        String pointee = null;
        Direction dir = Direction.IN;
        CudaParam.SizeSpec size = null;
        boolean string = false, opaque = false;
        String flagsEnum = null;
        if (t.contains("(*")) {
            format = FormatKind.FUNCTION_POINTER;
        } else if (t.endsWith("*")) {
            String pointeeRaw = t.substring(0, t.length() - 1).trim();
            pointee = stripConst(pointeeRaw);
            // const applies to the pointee itself: "const char *" yes, "const char **" no (its pointee is a pointer)
            boolean constPointee = pointeeRaw.contains("*") ? pointeeRaw.endsWith("const")
                    : pointeeRaw.startsWith("const ") || pointeeRaw.endsWith(" const");
            string = pointee.equals("char") && constPointee;
            format = string ? FormatKind.STRING : FormatKind.POINTER;
            JsonNode o = ov.isTextual() ? null : ov;
            try {
                if (ov.isTextual()) dir = Direction.parse(ov.asText());
                if (o != null && o.has("dir")) dir = Direction.parse(o.path("dir").asText());
            } catch (IllegalArgumentException e) {
                overlayProblems.add(fn + "." + name + ": " + e.getMessage());
            }
            if (o != null) {
                if (o.path("string").asBoolean(false)) string = true;
                opaque = o.path("opaque").asBoolean(false);
                try {
                    if (o.has("bytes")) size = new CudaParam.SizeSpec(SizeExpr.parse(o.path("bytes").asText()), true);
                    else if (o.has("count")) size = new CudaParam.SizeSpec(SizeExpr.parse(o.path("count").asText()), false);
                } catch (IllegalArgumentException e) {
                    overlayProblems.add(fn + "." + name + ": " + e.getMessage());
                }
            }
            if (!annotated && !library.equals(DRIVER)) {
                PointerRule rule = libraryPointer(fn, name, pointee, constPointee, string);
                dir = rule.dir;
                opaque = rule.opaque;
                string = rule.string;
                size = rule.size;
            }
            if (string) format = FormatKind.STRING;
            if (size == null && !opaque && !string && !pointee.equals("void")) {
                size = new CudaParam.SizeSpec(SizeExpr.parse("1"), false);
            }
            if (annotated && constPointee && dir != Direction.IN) {
                overlayProblems.add(fn + "." + name + ": a pointer to const data cannot be " + dir.name().toLowerCase(Locale.ROOT));
            }
        } else {
            format = valueFormat(t, name);
            if (format == FormatKind.FLAGS && ov.has("enum")) flagsEnum = ov.path("enum").asText();
            if (!ov.isMissingNode() && ov.has("format")) format = FormatKind.valueOf(ov.path("format").asText().toUpperCase(Locale.ROOT));
            if (ov.has("enum")) flagsEnum = ov.path("enum").asText();
            if (flagsEnum != null && !enums.containsKey(flagsEnum)) overlayProblems.add(fn + "." + name + ": enum " + flagsEnum + " does not exist");
        }
        return new CudaParam(index, name, cType, format, dir, pointee, size, string, opaque, flagsEnum, annotated, library);
    }

    /** The parameters (spec JSON) of the function being built, for rules that look at its other parameters. */
    private JsonNode currentParams;

    private record PointerRule(Direction dir, boolean opaque, boolean string, CudaParam.SizeSpec size) {}

    /**
     * What a library's pointer parameter points to, where its overlay says nothing (SPEC.md, "Library
     * specs"). Libraries take device memory and host memory through the same C types, and which one a
     * scalar pointer is can depend on the handle's pointer mode ({@code cublasSdot_v2}'s
     * {@code result}), so a pointer is followed only where it is host memory for certain:
     * <ul>
     * <li>NVML: every pointer (NVML has no device memory); {@code char *} outputs are strings bounded
     *     by the integer parameter that follows them ({@code length}, {@code size}, ...);
     * <li>a pointer to a handle ({@code cublasHandle_t *}), an enum ({@code cublasPointerMode_t *}), a
     *     record of the library's own headers ({@code cublasLtMatmulAlgo_t *}), {@code size_t} or an
     *     integer typedef of the library ({@code cufftHandle *}): host memory, one element;
     * <li>a pointer to another integer, to a pointer, or a {@code char *}: host memory in a getter
     *     (a name with {@code Get}: {@code cublasGetVersion_v2(handle, int *version)}), else not followed;
     * <li>anything else ({@code float *}, {@code void *}, {@code __half *}, {@code cuComplex *}): device
     *     memory or dependent on the pointer mode: not followed.
     * </ul>
     * Non-const pointers are outputs, pointers to const inputs.
     */
    private PointerRule libraryPointer(String fn, String name, String pointee, boolean constPointee, boolean string) {
        CudaParam.SizeSpec one = new CudaParam.SizeSpec(SizeExpr.parse("1"), false);
        Direction dir = constPointee ? Direction.IN : Direction.OUT;
        boolean getter = fn.contains("Get") || fn.contains("get");
        boolean nvml = library.equals("nvml");
        if (string) return new PointerRule(Direction.IN, false, true, null);
        if (pointee.equals("char")) {
            if (!(nvml || getter) || constPointee) return new PointerRule(dir, true, false, null);
            String bound = null;
            boolean after = false;
            for (JsonNode p : currentParams) {
                String pn = p.path("name").asText();
                if (pn.equals(name)) { after = true; continue; }
                if (after && !p.path("type").asText().contains("*") && pn.toLowerCase(Locale.ROOT).matches(".*(length|len|size)")) { bound = pn; break; }
                if (after) break;
            }
            return bound == null ? new PointerRule(dir, true, false, null)
                    : new PointerRule(Direction.OUT, false, true, new CudaParam.SizeSpec(SizeExpr.parse(bound), true));
        }
        if (nvml) {
            boolean known = pointee.contains("*") || sizeOfType(pointee) > 0;
            return known ? new PointerRule(dir, false, false, pointee.equals("void") ? null : one) : new PointerRule(dir, true, false, null);
        }
        if (pointee.contains("*")) return getter && !constPointee ? new PointerRule(dir, false, false, one) : new PointerRule(dir, true, false, null);
        String t = pointee;
        boolean viaOwnTypedef = false;
        for (int guard = 0; guard < 16; guard++) {
            if (handles.contains(t) || valueHandles.contains(t)) return new PointerRule(dir, false, false, one);
            if (t.equals("size_t")) return new PointerRule(dir, false, false, one);
            if (t.startsWith("enum ")) return new PointerRule(dir, false, false, one);
            if (records.containsKey(t)) return new PointerRule(dir, false, false, one);
            JsonNode td = typedefs.get(t);
            if (td == null) break;
            String cat = td.path("category").asText();
            if (cat.equals("enum")) return new PointerRule(dir, false, false, one);
            if (cat.equals("handle")) return new PointerRule(dir, false, false, one);
            if (cat.equals("record")) return new PointerRule(dir, true, false, null); // foreign: float2, __half
            if (td.has("line") && !td.path("header").asText().isEmpty() && (cat.equals("builtin") || cat.equals("alias"))) {
                viaOwnTypedef = viaOwnTypedef || !isNumericElement(t);
            }
            t = stripConst(td.path("type").asText());
        }
        boolean integer = t.matches("(unsigned |signed )?(char|short|int|long|long long|long int|unsigned)") || t.matches("u?int\\d+_t|__u?int\\d+_t");
        if (integer && (viaOwnTypedef || (getter && !constPointee))) return new PointerRule(dir, false, false, one);
        return new PointerRule(dir, true, false, null);
    }

    /** Library typedefs that name a number type of matrix elements rather than a handle or count. */
    private static boolean isNumericElement(String typedefName) {
        return typedefName.matches("(cu|cufft)(Complex|DoubleComplex|FloatComplex|Real|DoubleReal)|__half|__nv_bfloat16|half");
    }

    private static String stripConst(String t) {
        String s = t.replace("const ", "").trim();
        if (s.endsWith(" const")) s = s.substring(0, s.length() - 6).trim();
        return s;
    }

    private FormatKind valueFormat(String type, String paramName) {
        String t = stripConst(type);
        if (valueHandles.contains(t)) return FormatKind.HANDLE;
        String lower = paramName.toLowerCase(Locale.ROOT);
        for (int guard = 0; guard < 16; guard++) {
            if (handles.contains(t)) return FormatKind.HANDLE;
            if (t.equals("CUdeviceptr") || t.equals("CUdeviceptr_v2") || t.equals("CUdeviceptr_v1")) return FormatKind.DEVICE_POINTER;
            if (valueHandles.contains(t)) return FormatKind.HANDLE;
            if (t.equals("size_t")) return lower.contains("flags") ? FormatKind.FLAGS : FormatKind.SIZE;
            if (t.equals("float") || t.equals("double")) return FormatKind.FLOAT;
            if (t.startsWith("struct ") || t.startsWith("union ")) return FormatKind.RECORD;
            if (t.startsWith("enum ")) return FormatKind.ENUM;
            JsonNode td = typedefs.get(t);
            if (td == null) break;
            switch (td.path("category").asText()) {
                case "handle": return FormatKind.HANDLE;
                case "enum": return FormatKind.ENUM;
                case "record": return FormatKind.RECORD;
                case "function": return FormatKind.FUNCTION_POINTER;
                case "pointer": return FormatKind.POINTER;
                default: t = stripConst(td.path("type").asText());
            }
        }
        return lower.endsWith("flags") ? FormatKind.FLAGS : FormatKind.INTEGER;
    }

    /** {@code cuMemcpyHtoD_v2_ptds} → {@code cuMemcpyHtoD}: the symbol {@code cuGetProcAddress} is asked for. */
    public static String baseName(String name) {
        return name.replaceFirst("(_ptds|_ptsz)$", "").replaceFirst("_v\\d+$", "");
    }

    // ------------------------------------------------------------------ look-ups

    /** Every function in header declaration order; a function's {@link CudaFunction#id()} is its index. */
    public List<CudaFunction> functions() {
        return functions;
    }

    /** The function with this exact name. */
    public Optional<CudaFunction> function(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    /** The function with this id; throws IndexOutOfBoundsException for an unknown id. */
    public CudaFunction function(int id) {
        return functions.get(id);
    }

    /** Every versioned function that shares a base name, e.g. {@code cuCtxCreate} → {@code cuCtxCreate, _v2, _v3, _v4}. */
    public List<CudaFunction> variants(String baseName) {
        return byBase.getOrDefault(baseName, List.of());
    }

    /** The base names, in declaration order of their first variant. */
    public Set<String> baseNames() {
        return Collections.unmodifiableSet(byBase.keySet());
    }

    /** An enum by typedef name ({@code CUresult}) or {@code enum tag}. */
    public Optional<CudaEnum> enumType(String name) {
        return Optional.ofNullable(enums.get(resolveTypedefName(name)));
    }

    /** Every enum, once each. */
    public List<CudaEnum> enums() {
        return enums.entrySet().stream().filter(e -> !e.getKey().startsWith("enum ")).map(Map.Entry::getValue).toList();
    }

    /** A struct or union by typedef name ({@code CUDA_MEMCPY2D}, following aliases) or {@code struct tag}. */
    public Optional<CudaRecord> record(String name) {
        return Optional.ofNullable(records.get(resolveTypedefName(name)));
    }

    /** Every struct and union, once each. */
    public List<CudaRecord> records() {
        return records.entrySet().stream().filter(e -> !e.getKey().startsWith("struct ") && !e.getKey().startsWith("union "))
                .map(Map.Entry::getValue).toList();
    }

    /** The opaque handle typedefs (pointers to structs the headers never define), e.g. {@code CUcontext}. */
    public Set<String> handleTypes() {
        return Collections.unmodifiableSet(handles);
    }

    /** Follows typedef aliases ({@code CUDA_MEMCPY2D} → {@code CUDA_MEMCPY2D_v2}) to the name an enum or record is filed under. */
    private String resolveTypedefName(String name) {
        String t = stripConst(name);
        for (int guard = 0; guard < 16; guard++) {
            if (enums.containsKey(t) || records.containsKey(t)) return t;
            JsonNode td = typedefs.get(t);
            if (td == null) return t;
            t = stripConst(td.path("type").asText());
        }
        return t;
    }

    /**
     * The C type after following typedefs: a builtin ({@code unsigned int}, {@code float}, ...),
     * {@code pointer} (data pointers, handles and function pointers alike), {@code enum},
     * or {@code record} (a struct or union passed by value). Used to generate ABI-compatible
     * entry points without including cuda.h.
     */
    public String canonicalType(String type) {
        String t = stripConst(type);
        for (int guard = 0; guard < 16; guard++) {
            if (t.endsWith("*") || t.contains("(*")) return "pointer";
            if (t.startsWith("enum ")) return "enum";
            if (t.startsWith("struct ") || t.startsWith("union ")) return "record";
            JsonNode td = typedefs.get(t);
            if (td == null) return t;
            switch (td.path("category").asText()) {
                case "handle", "function", "pointer": return "pointer";
                case "enum": return "enum";
                case "record": return "record";
                default: t = stripConst(td.path("type").asText());
            }
        }
        return t;
    }

    /**
     * {@code sizeof} a C type in bytes on x86-64 Linux: builtins, pointers, and every typedef,
     * enum and record of the headers; -1 when unknown.
     */
    public long sizeOfType(String type) {
        String t = stripConst(type);
        if (t.endsWith("*")) return 8;
        switch (t) {
            case "char", "signed char", "unsigned char": return 1;
            case "short", "unsigned short": return 2;
            case "int", "unsigned int", "float": return 4;
            case "long", "unsigned long", "long long", "unsigned long long", "double", "size_t": return 8;
            default: break;
        }
        JsonNode td = typedefs.get(t);
        if (td != null && td.has("size")) return td.path("size").asLong();
        CudaEnum e = enums.get(t);
        if (e != null) return e.size();
        CudaRecord r = records.get(t);
        if (r != null) return r.size();
        return -1;
    }

    /** What the overlay says that does not match the header (unknown functions, parameters, types); empty when consistent. */
    public List<String> overlayProblems() {
        return List.copyOf(overlayProblems);
    }

    /** Whether the overlay must annotate this function completely. */
    public static boolean mustBeAnnotated(CudaFunction f) {
        return ANNOTATED_GROUPS.contains(f.group()) || ANNOTATED_EXTRA.contains(f.name());
    }

    /**
     * What a name expands to in a program built against the headers, by their redirecting macros
     * ({@code cublasSgemm} → {@code cublasSgemm_v2}, {@code cuMemAlloc} → {@code cuMemAlloc_v2}); empty
     * when no macro renames it.
     */
    public Optional<String> macro(String name) {
        JsonNode m = macros.path(name).path("default");
        return m.isTextual() ? Optional.of(m.asText()) : Optional.empty();
    }

    /** The API's short name: {@code cuda} for the driver, else one of {@link #LIBRARIES}. */
    public String name() {
        return library;
    }

    /** The shared library that exports the API's functions ({@code libcuda.so.1}, {@code libcublas.so.13}, ...). */
    public String soname() {
        return SONAMES.getOrDefault(library, library);
    }

    /**
     * The functions NVIDIA's library exports ({@code <library>-exports.txt}), in name order: the spec's
     * functions and the exports its headers do not declare (internal entry points such as
     * {@code cublasLt_for_cublas_SSS}); empty for the driver.
     */
    public List<String> exports() {
        return exports;
    }

    /**
     * The status enum most of the API's functions return ({@code CUresult}, {@code cublasStatus_t},
     * {@code cufftResult}, {@code cusparseStatus_t}, {@code cudnnStatus_t}, {@code nvmlReturn_t}).
     */
    public Optional<CudaEnum> statusEnum() {
        Map<String, Integer> counts = new HashMap<>();
        for (CudaFunction f : functions) counts.merge(f.returnType(), 1, Integer::sum);
        return counts.entrySet().stream().max(Map.Entry.comparingByValue()).flatMap(e -> enumType(e.getKey()));
    }

    /** The library's version number from its header ({@code CUBLAS_VERSION}, ...), 0 for the driver ({@link #cudaVersion()}). */
    public int libraryVersion() {
        return source.path("version").asInt();
    }

    /** The measured cuGetProcAddress table; throws IllegalStateException when the resource is absent. */
    public ProcAddressTable procAddress() {
        if (procAddress == null) throw new IllegalStateException("cu-get-proc-address.tsv is not on the classpath");
        return procAddress;
    }

    /** Where zluda's driver serves each function (cuda-api-driver.yaml): the source of the driver's dispatch table. */
    public DriverDispatch dispatch() {
        return dispatch;
    }

    /** The functions with a role, in id order. */
    public List<CudaFunction> functions(Role role) {
        return functions.stream().filter(f -> f.role() == role).toList();
    }

    /** CUDA version of the headers the spec was generated from, e.g. 13000. */
    public int cudaVersion() {
        return source.path("cudaVersion").asInt();
    }

    /** Where the spec came from: headers, compiler, ABI, as one line. */
    public String provenance() {
        if (!library.equals(DRIVER)) {
            return library + " " + libraryVersion() + " headers " + source.path("headers") + ", " + source.path("compiler").asText()
                    + ", " + source.path("abi").asText();
        }
        return "CUDA " + cudaVersion() / 1000 + "." + (cudaVersion() % 1000) / 10 + " headers "
                + source.path("headers") + ", " + source.path("compiler").asText() + ", " + source.path("abi").asText();
    }
}
