package dev.zluda.diff;

import dev.zluda.spec.CudaApi;
import dev.zluda.spec.CudaFunction;
import dev.zluda.spec.CudaParam;
import dev.zluda.spec.CudaRecord;
import dev.zluda.spec.FormatKind;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * How the diff treats each C type of the API spec: handles and device pointers become symbols,
 * host pointers are addresses, structs are compared field by field when they hold any of those,
 * everything else byte for byte. Shared by both sides (thread-safe); also the registry of symbol
 * kinds ({@code ctx}, {@code mod}, {@code dptr}, ...).
 */
final class Types {
    static final int PLAIN = 0, HANDLE = 1, DEVPTR = 2, ADDR = 3, RECORD = 4, DEVICE = 5;

    /** A classified type. */
    record Info(String cType, int cls, int kind, int size, List<Field> fields) {}

    /**
     * A field of a record compared on its own; {@code bytes}: an array or nested record, compared as bytes. A member
     * of a union that a sibling field selects is in use only when that field ({@code when}, an index into the
     * record's fields, -1: always in use) holds {@code whenValue}; its name is the path ({@code res.pitch2D.devPtr}).
     */
    record Field(String name, int offset, int size, Info type, boolean bytes, int when, long whenValue) {
        Field(String name, int offset, int size, Info type, boolean bytes) {
            this(name, offset, size, type, bytes, -1, 0);
        }
    }

    /** A union of a record whose member a sibling field selects: {@code union} the union field, {@code selector} the field, member by value. */
    private record Selected(String union, String selector, Map<Long, String> members) {}

    /**
     * A union a call's argument selects: parameter {@code param} points to a {@code union}, whose member the value of
     * parameter {@code selector} names.
     */
    record ArgSelected(int param, int selector, String union, Map<Long, String> members) {}

    /** CUlaunchAttributeValue's member by CUlaunchAttributeID (cuda.h). */
    private static final Map<Long, String> LAUNCH_ATTRIBUTE_MEMBERS = Map.ofEntries(Map.entry(1L, "accessPolicyWindow"),
            Map.entry(2L, "cooperative"), Map.entry(3L, "syncPolicy"), Map.entry(4L, "clusterDim"),
            Map.entry(5L, "clusterSchedulingPolicyPreference"), Map.entry(6L, "programmaticStreamSerializationAllowed"),
            Map.entry(7L, "programmaticEvent"), Map.entry(8L, "priority"), Map.entry(9L, "memSyncDomainMap"),
            Map.entry(10L, "memSyncDomain"), Map.entry(11L, "preferredClusterDim"), Map.entry(12L, "launchCompletionEvent"),
            Map.entry(13L, "deviceUpdatableKernelNode"), Map.entry(14L, "sharedMemCarveout"), Map.entry(16L, "nvlinkUtilCentricScheduling"));

    /**
     * The unions an argument selects, by function base name: the stream and kernel-node attribute values
     * (CUstreamAttrValue, CUkernelNodeAttrValue: CUlaunchAttributeValue) by {@code attr}; the bytes of the other
     * members (a 64-byte union, of which programs set the one they mean) are not compared.
     */
    static final Map<String, ArgSelected> ARG_SELECTED;

    static {
        // (handle, attr, value): parameter 2 points to the value, parameter 1 names its member
        ArgSelected attrValue = new ArgSelected(2, 1, "CUlaunchAttributeValue", LAUNCH_ATTRIBUTE_MEMBERS);
        ARG_SELECTED = Map.of("cuStreamSetAttribute", attrValue, "cuStreamGetAttribute", attrValue,
                "cuGraphKernelNodeSetAttribute", attrValue, "cuGraphKernelNodeGetAttribute", attrValue);
    }

    private final Map<String, java.util.Optional<Info>> members = new ConcurrentHashMap<>();

    /**
     * How member {@code member} of union {@code union} is compared: a named type as that type, an anonymous struct
     * field by field; empty when the union or member is not in the spec.
     */
    java.util.Optional<Info> member(String union, String member) {
        return members.computeIfAbsent(union + "." + member, k -> {
            var rec = api.record(union);
            if (rec.isEmpty()) return java.util.Optional.empty();
            for (CudaRecord.Field f : rec.get().fields()) {
                if (!f.name().equals(member)) continue;
                if (f.fields().isEmpty()) {
                    Info t = f.count() > 0 ? new Info(f.cType(), PLAIN, 0, f.size(), List.of()) : info(f.cType());
                    return java.util.Optional.of(t.size() == f.size() ? t : new Info(f.cType(), PLAIN, 0, f.size(), List.of()));
                }
                List<Field> leaves = new ArrayList<>();
                for (CudaRecord.Field leaf : f.fields()) {
                    CudaRecord.Field rel = new CudaRecord.Field(leaf.name(), leaf.cType(), leaf.offset() - f.offset(), leaf.size(), leaf.count(), leaf.fields());
                    leaves.add(leaf(leaf.name(), rel, 1, -1, 0));
                }
                return java.util.Optional.of(new Info(f.cType(), RECORD, 0, f.size(), List.copyOf(leaves)));
            }
            return java.util.Optional.empty();
        });
    }

    /**
     * The unions whose member another field selects (cuda.h), by record tag: CUDA_RESOURCE_DESC's {@code res} by
     * {@code resType} (CU_RESOURCE_TYPE_ARRAY, _MIPMAPPED_ARRAY, _LINEAR, _PITCH2D); the bytes of the other members
     * are not defined and are not compared.
     */
    private static final Map<String, Selected> SELECTED = Map.of(
            "CUDA_RESOURCE_DESC_st", new Selected("res", "resType", Map.of(0L, "array", 1L, "mipmap", 2L, "linear", 3L, "pitch2D")));

    final CudaApi api;
    private final Set<String> handleTypes = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final Set<String> devptrTypes = new HashSet<>(Set.of("CUdeviceptr", "CUdeviceptr_v1", "CUdeviceptr_v2"));
    private final Map<String, Info> cache = new ConcurrentHashMap<>();
    private final List<String> kinds = new CopyOnWriteArrayList<>();
    private final Map<String, Integer> kindIds = new ConcurrentHashMap<>();
    final int dptrKind;

    Types(CudaApi api) {
        this.api = api;
        handleTypes.addAll(api.handleTypes());
        for (CudaFunction f : api.functions()) {
            for (CudaParam p : f.params()) {
                if (p.format() == FormatKind.HANDLE) handleTypes.add(strip(p.cType()));
                if (p.format() == FormatKind.DEVICE_POINTER) devptrTypes.add(strip(p.cType()));
            }
        }
        kinds.add("?"); // kind 0 is unused
        dptrKind = kind("dptr");
    }

    /**
     * Adds the handle types of the libraries whose calls either capture holds (FORMAT.md §6.10,
     * "Library functions"): {@code cublasHandle_t}, {@code cudnnTensorDescriptor_t}, ... become symbols
     * like the driver's handles, so two runs' library calls pair whatever the handles' values. Only the
     * specs of libraries that appear are loaded. Call before the captures are indexed.
     */
    void addLibraries(dev.zluda.capture.Capture... caps) {
        Set<String> libs = new java.util.TreeSet<>();
        for (dev.zluda.capture.Capture c : caps) {
            for (dev.zluda.capture.FunctionDef f : c.reader().functions()) {
                String l = CudaApi.libraryOf(f.name());
                if (!l.equals(CudaApi.DRIVER)) libs.add(l);
            }
        }
        for (String l : libs) {
            CudaApi lib;
            try {
                lib = CudaApi.library(l);
            } catch (RuntimeException e) {
                continue;
            }
            handleTypes.addAll(lib.handleTypes());
            for (CudaFunction f : lib.functions()) {
                for (CudaParam p : f.params()) if (p.format() == FormatKind.HANDLE) handleTypes.add(strip(p.cType()));
            }
        }
        cache.clear();
    }

    static String strip(String t) {
        String s = t.replace("const ", "").trim();
        if (s.endsWith(" const")) s = s.substring(0, s.length() - 6).trim();
        return s;
    }

    static boolean isDevice(String t) {
        return t.equals("CUdevice") || t.equals("CUdevice_v1");
    }

    /** The id of a symbol kind name. */
    int kind(String name) {
        return kindIds.computeIfAbsent(name, n -> {
            synchronized (kinds) {
                kinds.add(n);
                return kinds.size() - 1;
            }
        });
    }

    /** The name of a kind id. */
    String kindName(int id) {
        return id > 0 && id < kinds.size() ? kinds.get(id) : "handle";
    }

    /** The kind name of a handle type: {@code CUcontext} → {@code ctx}. */
    static String kindNameOf(String type) {
        String s = strip(type).replaceFirst("_v\\d+$", "").replaceFirst("_st$", "");
        return switch (s) {
            case "CUcontext" -> "ctx";
            case "CUmodule" -> "mod";
            case "CUfunction" -> "func";
            case "CUdeviceptr" -> "dptr";
            case "CUdevice" -> "dev";
            case "CUlibrary" -> "lib";
            case "CUkernel" -> "kernel";
            case "CUstream" -> "stream";
            case "CUevent" -> "event";
            case "CUmemoryPool" -> "pool";
            case "CUgraph" -> "graph";
            case "CUgraphExec" -> "graphExec";
            case "CUgraphNode" -> "node";
            case "CUarray" -> "array";
            case "CUmipmappedArray" -> "mipmap";
            case "CUtexref" -> "texref";
            case "CUsurfref" -> "surfref";
            case "CUtexObject" -> "tex";
            case "CUsurfObject" -> "surf";
            case "CUlinkState" -> "link";
            case "CUmemGenericAllocationHandle" -> "memHandle";
            case "CUexternalMemory" -> "extMem";
            case "CUexternalSemaphore" -> "extSem";
            case "CUgraphicsResource" -> "gfx";
            case "CUgreenCtx" -> "greenCtx";
            default -> {
                String t = s.startsWith("CU") ? s.substring(2) : s;
                yield t.isEmpty() ? "handle" : Character.toLowerCase(t.charAt(0)) + t.substring(1);
            }
        };
    }

    /** Classifies a C type (a pointee, a field). */
    Info info(String cType) {
        String t = strip(cType);
        Info i = cache.get(t);
        if (i == null) {
            i = classify(t, 0);
            cache.put(t, i);
        }
        return i;
    }

    private Info classify(String t, int depth) {
        if (t.endsWith("*") || t.contains("(*")) return new Info(t, ADDR, 0, 8, List.of());
        if (t.equals("void")) return new Info(t, PLAIN, 0, -1, List.of());
        long size = api.sizeOfType(t);
        if (isDevice(t)) return new Info(t, DEVICE, 0, (int) size, List.of());
        if (devptrTypes.contains(t)) return new Info(t, DEVPTR, dptrKind, (int) (size > 0 ? size : 8), List.of());
        if (handleTypes.contains(t)) return new Info(t, HANDLE, kind(kindNameOf(t)), (int) (size > 0 ? size : 8), List.of());
        String canon = api.canonicalType(t);
        if (canon.equals("pointer")) return new Info(t, ADDR, 0, 8, List.of());
        if (canon.equals("record") && depth < 4) {
            var rec = api.record(t);
            if (rec.isPresent() && !rec.get().union() && !overlaps(rec.get())) {
                List<Field> fields = new ArrayList<>();
                boolean special = false;
                int covered = 0;
                Selected sel = SELECTED.get(rec.get().tag());
                for (CudaRecord.Field f : rec.get().fields()) {
                    if (sel != null && f.name().equals(sel.union()) && f.cType().equals("union")) {
                        int selector = -1;
                        for (int k = 0; k < fields.size(); k++) if (fields.get(k).name().equals(sel.selector())) selector = k;
                        if (selector < 0) throw new IllegalStateException(rec.get().tag() + ": the selector " + sel.selector() + " does not precede " + f.name());
                        for (CudaRecord.Field m : f.fields()) {
                            for (var e : sel.members().entrySet()) {
                                if (!e.getValue().equals(m.name())) continue;
                                for (CudaRecord.Field leaf : m.fields()) {
                                    fields.add(leaf(f.name() + "." + m.name() + "." + leaf.name(), leaf, depth, selector, e.getKey()));
                                }
                            }
                        }
                        special = true;
                        covered += f.size();
                        continue;
                    }
                    Field fd = leaf(f.name(), f, depth, -1, 0);
                    if (fd.type().cls != PLAIN) special = true;
                    fields.add(fd);
                    covered += f.size();
                }
                // padding (CUDA_ARRAY3D_DESCRIPTOR's last 4 bytes) is not defined: such a record is compared field by field
                if (covered < rec.get().size()) special = true;
                if (special) return new Info(t, RECORD, 0, rec.get().size(), List.copyOf(fields));
            }
        }
        return new Info(t, PLAIN, 0, (int) size, List.of());
    }

    /** A field as compared: arrays, anonymous structs and unions as bytes, anything else by its type. */
    private Field leaf(String name, CudaRecord.Field f, int depth, int when, long whenValue) {
        boolean bytes = f.count() > 0 || !f.fields().isEmpty() || f.size() > 8 || f.cType().equals("struct") || f.cType().equals("union");
        Info ft = bytes ? new Info(f.cType(), PLAIN, 0, f.size(), List.of()) : classify(strip(f.cType()), depth + 1);
        return new Field(name, f.offset(), f.size(), ft, bytes, when, whenValue);
    }

    private static boolean overlaps(CudaRecord r) {
        int end = 0;
        for (CudaRecord.Field f : r.fields()) {
            if (f.offset() < end) return true;
            end = f.offset() + f.size();
        }
        return false;
    }
}
