package dev.zluda.spec.gen;

import dev.zluda.spec.CudaApi;
import dev.zluda.spec.CudaFunction;
import dev.zluda.spec.CudaParam;
import dev.zluda.spec.CudaRecord;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * Generates, from the spec, the code through which a native caller enters a Java CUDA driver:
 *
 * <ul>
 *   <li>{@code zluda_exports.c}: one exported C function per spec function, with parameters of
 *       ABI-identical fixed-width types (so cuda.h is not needed to build it), that packs its
 *       arguments into an array of 64-bit words and calls {@code zl_call(id, words)}; and
 *       {@code zl_functions[]}, the address of every export by function id (for
 *       {@code cuGetProcAddress});</li>
 *   <li>{@code CudaDriverApi.java}: an interface with one method per function for Java callers, each
 *       packing its arguments into 64-bit words as the C exports do and calling {@code call(id, args)};
 *       pointers, handles and 64-bit integers are {@code long}, 32-bit and smaller integers and enums
 *       {@code int}, floats {@code float}; a struct passed by value is the {@code long} address of a copy;</li>
 *   <li>{@code CudaDispatcher.java}: the function count, each function's parameter count, and
 *       {@code dispatch(api, id, words)} that reads a native caller's words and calls {@code call};</li>
 *   <li>{@code CudaStructs.java}: for each struct {@code cuda-api-driver.yaml} lists under {@code views}, its
 *       size, the offset of each member, and static accessors that read and write a member at an address
 *       (nested structs and unions flattened as {@code outer_inner}, arrays by index), from the spec's x86-64
 *       layout ({@link CudaRecord}), so that the driver never writes an offset by hand;</li>
 *   <li>with a fourth argument, the driver's dispatch table {@code DriverTable.java} in that package:
 *       function id → the method of the area that serves it ({@link CudaApi#dispatch()}, from
 *       {@code cuda-api-driver.yaml}), each argument unpacked to its Java type; every other id goes to
 *       {@code Areas.unsupported(id)}.</li>
 * </ul>
 *
 * Usage: {@code EntryGenerator C_OUT_DIR JAVA_OUT_DIR JAVA_PACKAGE [DRIVER_PACKAGE]}.
 */
public final class EntryGenerator {
    private static final Set<String> JAVA_KEYWORDS = Set.of("abstract", "assert", "boolean", "break", "byte", "case",
            "catch", "char", "class", "const", "continue", "default", "do", "double", "else", "enum", "extends", "final",
            "finally", "float", "for", "goto", "if", "implements", "import", "instanceof", "int", "interface", "long",
            "native", "new", "package", "private", "protected", "public", "return", "short", "static", "strictfp",
            "super", "switch", "synchronized", "this", "throw", "throws", "transient", "try", "void", "volatile", "while",
            "var", "record", "yield", "sealed", "permits");

    /** How one parameter crosses from C to Java. */
    enum Abi {
        POINTER("void *", "long"), U8("uint8_t", "int"), U16("uint16_t", "int"), I32("int32_t", "int"),
        U32("uint32_t", "int"), U64("uint64_t", "long"), F32("float", "float"), F64("double", "double"), RECORD(null, "long");

        final String c, java;

        Abi(String c, String java) {
            this.c = c;
            this.java = java;
        }
    }

    private final CudaApi api;

    public EntryGenerator(CudaApi api) {
        this.api = api;
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 3 && args.length != 4) {
            System.err.println("usage: EntryGenerator C_OUT_DIR JAVA_OUT_DIR JAVA_PACKAGE [DRIVER_PACKAGE]");
            System.exit(2);
        }
        CudaApi api = CudaApi.get();
        if (!api.overlayProblems().isEmpty()) {
            System.err.println("the spec is inconsistent:\n" + String.join("\n", api.overlayProblems()));
            System.exit(1);
        }
        EntryGenerator g = new EntryGenerator(api);
        Path c = Path.of(args[0]), java = Path.of(args[1]).resolve(args[2].replace('.', '/'));
        Files.createDirectories(c);
        Files.createDirectories(java);
        writeIfChanged(c.resolve("zluda_exports.c"), g.exportsC());
        writeIfChanged(java.resolve("CudaDriverApi.java"), g.driverApiJava(args[2]));
        writeIfChanged(java.resolve("CudaDispatcher.java"), g.dispatcherJava(args[2]));
        writeIfChanged(java.resolve("CudaStructs.java"), g.structsJava(args[2]));
        if (args.length == 4) {
            Path driver = Path.of(args[1]).resolve(args[3].replace('.', '/'));
            Files.createDirectories(driver);
            writeIfChanged(driver.resolve("DriverTable.java"), g.driverTableJava(args[3]));
        }
    }

    private static void writeIfChanged(Path p, String text) throws IOException {
        if (Files.exists(p) && Files.readString(p).equals(text)) return;
        Files.writeString(p, text);
    }

    Abi abi(CudaParam p) {
        String t = api.canonicalType(p.cType());
        return switch (t) {
            case "pointer" -> Abi.POINTER;
            case "enum", "int", "signed int" -> Abi.I32;
            case "unsigned int", "uint32_t", "cuuint32_t" -> Abi.U32;
            case "unsigned char", "uint8_t", "char", "signed char" -> Abi.U8;
            case "unsigned short", "uint16_t", "short" -> Abi.U16;
            case "size_t", "unsigned long long", "unsigned long", "uint64_t", "cuuint64_t", "long long", "long" -> Abi.U64;
            case "float" -> Abi.F32;
            case "double" -> Abi.F64;
            case "record" -> Abi.RECORD;
            default -> throw new IllegalStateException(p.cType() + " (" + t + "): no ABI mapping");
        };
    }

    private CudaRecord recordOf(CudaParam p) {
        return api.record(p.cType()).orElseThrow(() -> new IllegalStateException("no record " + p.cType()));
    }

    /** The C source of the exports. */
    public String exportsC() {
        StringBuilder sb = new StringBuilder();
        sb.append("/* Generated by dev.zluda.spec.gen.EntryGenerator from the CUDA driver API spec; do not edit. */\n");
        sb.append("#include <stdint.h>\n#include <string.h>\n#include \"zluda_entry.h\"\n\n");
        for (CudaFunction f : api.functions()) {
            for (CudaParam p : f.params()) {
                if (abi(p) == Abi.RECORD) {
                    CudaRecord r = recordOf(p);
                    if (r.size() <= 16 && hasFloat(r.fields())) {
                        throw new IllegalStateException(f.name() + "." + p.name() + ": small struct with floats passed by value: needs its real layout");
                    }
                    String tag = "zl_" + r.name();
                    if (sb.indexOf("struct " + tag + " {") < 0) {
                        // same size and alignment, INTEGER or MEMORY class like the real one
                        sb.append("struct ").append(tag).append(" { unsigned char b[").append(r.size())
                                .append("]; } __attribute__((aligned(").append(r.align()).append(")));\n");
                    }
                }
            }
        }
        sb.append('\n');
        for (CudaFunction f : api.functions()) {
            sb.append("ZL_EXPORT int ").append(f.name()).append('(');
            if (f.params().isEmpty()) sb.append("void");
            for (int i = 0; i < f.params().size(); i++) {
                CudaParam p = f.params().get(i);
                if (i > 0) sb.append(", ");
                Abi a = abi(p);
                sb.append(a == Abi.RECORD ? "struct zl_" + recordOf(p).name() : a.c).append(a == Abi.POINTER ? "" : " ").append("a").append(i);
            }
            sb.append(") {\n");
            int n = f.params().size();
            sb.append("    uint64_t w[").append(Math.max(1, n)).append("];\n");
            if (n == 0) sb.append("    w[0] = 0;\n");
            for (int i = 0; i < n; i++) {
                CudaParam p = f.params().get(i);
                switch (abi(p)) {
                    case POINTER -> sb.append("    w[").append(i).append("] = (uint64_t)(uintptr_t)a").append(i).append(";\n");
                    case RECORD -> sb.append("    w[").append(i).append("] = (uint64_t)(uintptr_t)&a").append(i).append(";\n");
                    case I32 -> sb.append("    w[").append(i).append("] = (uint64_t)(int64_t)a").append(i).append(";\n");
                    case F32 -> sb.append("    { uint32_t b; memcpy(&b, &a").append(i).append(", 4); w[").append(i).append("] = b; }\n");
                    case F64 -> sb.append("    memcpy(&w[").append(i).append("], &a").append(i).append(", 8);\n");
                    default -> sb.append("    w[").append(i).append("] = (uint64_t)a").append(i).append(";\n");
                }
            }
            sb.append("    return zl_call(").append(f.id()).append(", w);\n}\n\n");
        }
        sb.append("const int zl_function_count = ").append(api.functions().size()).append(";\n");
        sb.append("void *const zl_functions[] = {\n");
        for (CudaFunction f : api.functions()) sb.append("    (void *)").append(f.name()).append(",\n");
        sb.append("};\n");
        return sb.toString();
    }

    private static boolean hasFloat(java.util.List<CudaRecord.Field> fields) {
        for (CudaRecord.Field f : fields) {
            if (f.cType().contains("float") || f.cType().contains("double") || hasFloat(f.fields())) return true;
        }
        return false;
    }

    private static String javaName(String n) {
        return JAVA_KEYWORDS.contains(n) ? n + "_" : n;
    }

    /** The Java interface with one default method per function, each packing its arguments for {@code call}. */
    public String driverApiJava(String pkg) {
        StringBuilder sb = new StringBuilder();
        sb.append("package ").append(pkg).append(";\n\n");
        sb.append("/**\n * Every function of the CUDA driver API (CUDA ").append(api.cudaVersion() / 1000).append('.')
                .append(api.cudaVersion() % 1000 / 10).append(" cuda.h), for Java callers of a driver.\n")
                .append(" * Generated by dev.zluda.spec.gen.EntryGenerator from the spec; do not edit.\n")
                .append(" * Pointers, handles and 64-bit integers are {@code long}; 32-bit and smaller integers and enums\n")
                .append(" * {@code int}; a struct passed by value is the {@code long} address of a copy.\n")
                .append(" * Each method packs its arguments into 64-bit words as the native entry does (zluda_exports.c) and\n")
                .append(" * returns what {@link #call} returns: a CUresult.\n */\n");
        sb.append("public interface CudaDriverApi {\n");
        sb.append("    /** CUDA_ERROR_NOT_SUPPORTED. */\n    int CUDA_ERROR_NOT_SUPPORTED = 801;\n\n");
        sb.append("    /**\n     * Calls a function with its arguments, one 64-bit word each: pointers, handles and 64-bit integers as\n")
                .append("     * they are; signed 32-bit integers and enums sign-extended, unsigned ones zero-extended; a float's or\n")
                .append("     * double's bits (the float's zero-extended).\n     *\n")
                .append("     * @param functionId the spec function id\n     * @param args the arguments, at least as many as the function has\n")
                .append("     * @return the CUresult\n     */\n");
        sb.append("    int call(int functionId, long[] args);\n\n");
        for (CudaFunction f : api.functions()) {
            sb.append("    /** {@code ").append(f.prototype().replace("*/", "* /")).append("} — ").append(f.group())
                    .append(", ").append(f.header()).append(':').append(f.line()).append(" (id ").append(f.id()).append("). */\n");
            sb.append("    default int ").append(f.name()).append('(');
            for (int i = 0; i < f.params().size(); i++) {
                CudaParam p = f.params().get(i);
                if (i > 0) sb.append(", ");
                sb.append(abi(p).java).append(' ').append(javaName(p.name()));
            }
            sb.append(") {\n        return call(").append(f.id()).append(", new long[] {");
            for (int i = 0; i < f.params().size(); i++) {
                CudaParam p = f.params().get(i);
                if (i > 0) sb.append(", ");
                String n = javaName(p.name());
                sb.append(switch (abi(p)) {
                    case POINTER, U64, RECORD, I32 -> n;
                    case U8, U16, U32 -> "Integer.toUnsignedLong(" + n + ")";
                    case F32 -> "Integer.toUnsignedLong(Float.floatToRawIntBits(" + n + "))";
                    case F64 -> "Double.doubleToRawLongBits(" + n + ")";
                });
            }
            sb.append("});\n    }\n\n");
        }
        sb.append("}\n");
        return sb.toString();
    }

    /** The unpacking of argument word {@code i} of array {@code w} to the Java type of parameter {@code p}. */
    private String unpack(CudaParam p, String w, int i) {
        String word = w + "[" + i + "]";
        return switch (abi(p)) {
            case POINTER, U64, RECORD -> word;
            case F32 -> "Float.intBitsToFloat((int) " + word + ")";
            case F64 -> "Double.longBitsToDouble(" + word + ")";
            default -> "(int) " + word;
        };
    }

    /** The dispatcher from a native caller's (id, words) to {@code CudaDriverApi.call}. */
    public String dispatcherJava(String pkg) {
        StringBuilder sb = new StringBuilder();
        sb.append("package ").append(pkg).append(";\n\n");
        sb.append("import java.lang.foreign.MemorySegment;\nimport java.lang.foreign.ValueLayout;\n\n");
        sb.append("/**\n * Reads the 64-bit argument words of a native call and hands them to {@link CudaDriverApi#call}.\n")
                .append(" * Generated by dev.zluda.spec.gen.EntryGenerator; do not edit.\n */\n");
        sb.append("public final class CudaDispatcher {\n    private CudaDispatcher() {}\n\n");
        sb.append("    /** Number of functions: valid ids are 0 .. COUNT-1. */\n    public static final int COUNT = ")
                .append(api.functions().size()).append(";\n\n");
        sb.append("    /** The most parameters any function has: the native caller passes at most this many words. */\n    public static final int MAX_PARAMS = ")
                .append(api.functions().stream().mapToInt(f -> f.params().size()).max().orElse(0)).append(";\n\n");
        sb.append("    private static final byte[] PARAMS = {");
        for (CudaFunction f : api.functions()) sb.append(f.id() % 32 == 0 ? "\n            " : " ").append(f.params().size()).append(',');
        sb.append("\n    };\n\n");
        sb.append("    /** Number of parameters of function {@code id}. */\n    public static int params(int id) {\n        return PARAMS[id];\n    }\n\n");
        sb.append("    /**\n     * The argument words of function {@code id}, read from a native caller's array (8 bytes per parameter).\n")
                .append("     * @throws IndexOutOfBoundsException for an unknown id\n     */\n");
        sb.append("    public static long[] args(int id, MemorySegment words) {\n        long[] a = new long[PARAMS[id]];\n")
                .append("        for (int i = 0; i < a.length; i++) a[i] = words.getAtIndex(ValueLayout.JAVA_LONG, i);\n        return a;\n    }\n\n");
        sb.append("    /**\n     * Calls function {@code id} with the arguments in {@code words} (8 bytes per parameter).\n")
                .append("     * @return the CUresult; CUDA_ERROR_INVALID_VALUE (1) for an unknown id\n     */\n");
        sb.append("    public static int dispatch(CudaDriverApi api, int id, MemorySegment words) {\n")
                .append("        if (id < 0 || id >= COUNT) return 1;\n        return api.call(id, args(id, words));\n    }\n}\n");
        return sb.toString();
    }

    /** The enums whose members the driver's areas read at start (DriverTable.ENUMS). */
    static final java.util.List<String> DRIVER_ENUMS = java.util.List.of("CUdevice_attribute", "CUfunction_attribute", "CUpointer_attribute");

    /**
     * The driver's dispatch table (package {@code pkg}, next to its {@code Areas}): function id → the method of the
     * area that serves it, named after the function it is served as, with the arguments unpacked.
     */
    public String driverTableJava(String pkg) {
        StringBuilder sb = new StringBuilder();
        sb.append("package ").append(pkg).append(";\n\n");
        sb.append("/**\n * The dispatch table of the zluda driver: for each CUDA function id, the method of the area that serves it\n")
                .append(" * (cuda-api-driver.yaml, read by dev.zluda.spec.CudaApi#dispatch). An id no area serves goes to\n")
                .append(" * {@link Areas#unsupported}. Generated by dev.zluda.spec.gen.EntryGenerator; do not edit.\n */\n");
        sb.append("final class DriverTable {\n    private DriverTable() {}\n\n");
        var d = api.dispatch();
        sb.append("    /** What serves each function, by id (a class of its own: the driver's start does not initialise it). */\n")
                .append("    static final class Served {\n        private Served() {}\n\n");
        sb.append("    /** For each function id, the area that serves it, or null when none does. */\n    static final String[] AREA = {");
        for (CudaFunction f : api.functions()) {
            var e = d.entry(f);
            sb.append(f.id() % 8 == 0 ? "\n            " : " ").append(e.isPresent() ? "\"" + e.get().area() + "\"" : "null").append(',');
        }
        sb.append("\n    };\n\n");
        sb.append("    /** For each function id, the function whose area method serves it (itself, or the one it is served as), or null. */\n")
                .append("    static final String[] HANDLER = {");
        for (CudaFunction f : api.functions()) {
            var e = d.entry(f);
            sb.append(f.id() % 4 == 0 ? "\n            " : " ").append(e.isPresent() ? "\"" + e.get().handler().name() + "\"" : "null").append(',');
        }
        sb.append("\n    };\n    }\n\n");
        // what the driver needs of the spec at start, so that it starts without loading the spec (DriverState#api)
        // one string constant, not an array of them: the class initialiser stays one instruction (DriverState.name)
        sb.append("    /** Every function's name in id order, each between two newlines. */\n    static final String NAMES = \"\\n\"");
        for (CudaFunction f : api.functions()) sb.append("\n            + \"").append(f.name()).append("\\n\"");
        sb.append(";\n\n");
        sb.append("    /** For each function id, its {@link dev.zluda.spec.Role}: the character {@code 'A' + role.ordinal()}. */\n")
                .append("    static final String ROLES = \"");
        for (CudaFunction f : api.functions()) {
            char c = (char) ('A' + f.role().ordinal());
            if (c == '\\' || c == '"') sb.append('\\');
            sb.append(c);
        }
        sb.append("\";\n\n");
        sb.append("    /** The enums the driver reads its members of (names, then values), by enum name. */\n")
                .append("    static final java.util.Map<String, Object[]> ENUMS = java.util.Map.of(");
        String sep = "";
        for (String e : DRIVER_ENUMS) {
            dev.zluda.spec.CudaEnum en = api.enumType(e).orElseThrow(() -> new IllegalStateException("no enum " + e));
            sb.append(sep).append("\n            \"").append(e).append("\", new Object[] {new String[] {");
            for (int i = 0; i < en.members().size(); i++) sb.append(i % 4 == 0 ? "\n                    " : " ").append('"').append(en.members().get(i).name()).append("\",");
            sb.append("},\n                new long[] {");
            for (int i = 0; i < en.members().size(); i++) sb.append(i % 8 == 0 ? "\n                    " : " ").append(en.members().get(i).value()).append("L,");
            sb.append("}}");
            sep = ",";
        }
        sb.append(");\n\n");
        sb.append("    /**\n     * Calls the area method that serves function {@code id}.\n     *\n")
                .append("     * @param w the arguments, one 64-bit word each ({@code CudaDriverApi#call})\n     * @return the CUresult\n     */\n");
        sb.append("    static int call(Areas a, int id, long[] w) {\n        return switch (id) {\n");
        for (CudaFunction f : api.functions()) {
            var e = d.entry(f);
            if (e.isEmpty()) continue;
            CudaFunction h = e.get().handler();
            sb.append("            case ").append(f.id()).append(" -> a.").append(e.get().area()).append('.').append(h.name()).append('(');
            for (int i = 0; i < f.params().size(); i++) {
                if (i > 0) sb.append(", ");
                sb.append(unpack(h.params().get(i), "w", i));
            }
            sb.append(");").append(h == f ? "" : " // " + f.name()).append('\n');
        }
        sb.append("            default -> a.unsupported(id);\n        };\n    }\n}\n");
        return sb.toString();
    }

    /** The struct views of {@link dev.zluda.spec.DriverDispatch#views()}. */
    public String structsJava(String pkg) {
        StringBuilder sb = new StringBuilder();
        sb.append("package ").append(pkg).append(";\n\n");
        sb.append("import java.lang.foreign.MemorySegment;\nimport java.lang.foreign.ValueLayout;\n\n");
        sb.append("/**\n * Views of the CUDA structs the driver reads and writes, from the spec's x86-64 layouts (cuda.h; offsets\n")
                .append(" * measured by the compiler, api-spec/SPEC.md). Each struct has its {@code SIZE}, the offset of each member\n")
                .append(" * ({@code OFF_member}) and static accessors {@code member(address)} / {@code member(address, value)}; members\n")
                .append(" * of nested structs and unions are {@code outer_inner}, arrays take an index. Integers of 4 bytes or less are\n")
                .append(" * {@code int} as stored (unsigned ones are the caller's to widen). Generated by dev.zluda.spec.gen.EntryGenerator;\n")
                .append(" * do not edit.\n */\n");
        sb.append("public final class CudaStructs {\n    private CudaStructs() {}\n\n");
        sb.append("    private static MemorySegment at(long address, long bytes) {\n        return MemorySegment.ofAddress(address).reinterpret(bytes);\n    }\n\n");
        for (String v : api.dispatch().views()) {
            CudaRecord r = api.record(v).orElseThrow();
            sb.append("    /** {@code ").append(v).append("}").append(v.equals(r.name()) ? "" : " ({@code " + r.name() + "})")
                    .append(r.tag() != null ? ", {@code " + (r.union() ? "union " : "struct ") + r.tag() + "}" : "")
                    .append(": ").append(r.size()).append(" bytes, aligned to ").append(r.align()).append(". */\n");
            sb.append("    public static final class ").append(v).append(" {\n        private ").append(v).append("() {}\n\n");
            sb.append("        /** sizeof, bytes. */\n        public static final int SIZE = ").append(r.size()).append(";\n");
            java.util.List<String[]> members = new java.util.ArrayList<>();
            flatten(r.fields(), "", members);
            for (String[] m : members) {
                String name = m[0], cType = m[1];
                int off = Integer.parseInt(m[2]), size = Integer.parseInt(m[3]), count = Integer.parseInt(m[4]);
                sb.append("\n        /** {@code ").append(cType.replace("*/", "* /")).append(' ').append(name.replace('_', '.')).append("} at byte ").append(off).append(". */\n");
                sb.append("        public static final int OFF_").append(name).append(" = ").append(off).append(";\n");
                if (count < 0) continue; // a nested struct or union: its members follow
                int elem = count > 0 ? size / count : size;
                String type;
                String layout;
                boolean floating = cType.startsWith("float") || cType.startsWith("double");
                switch (elem) {
                    case 8 -> { type = floating ? "double" : "long"; layout = floating ? "JAVA_DOUBLE_UNALIGNED" : "JAVA_LONG_UNALIGNED"; }
                    case 4 -> { type = floating ? "float" : "int"; layout = floating ? "JAVA_FLOAT_UNALIGNED" : "JAVA_INT_UNALIGNED"; }
                    case 2 -> { type = "short"; layout = "JAVA_SHORT_UNALIGNED"; }
                    case 1 -> { type = "byte"; layout = "JAVA_BYTE"; }
                    default -> { type = null; layout = null; }
                }
                if (type == null) continue; // a blob (a union's padding, an opaque array): offset only
                String ret = type.equals("short") || type.equals("byte") ? "int" : type;
                String idx = count > 0 ? ", int i" : "";
                String addr = "address + " + off + (count > 0 ? " + " + elem + "L * i" : "");
                sb.append("        public static ").append(ret).append(' ').append(name).append("(long address").append(idx).append(") {\n")
                        .append("            return at(").append(addr).append(", ").append(elem).append(").get(ValueLayout.").append(layout).append(", 0);\n        }\n");
                sb.append("        public static void ").append(name).append("(long address").append(idx).append(", ").append(ret).append(" value) {\n")
                        .append("            at(").append(addr).append(", ").append(elem).append(").set(ValueLayout.").append(layout).append(", 0, ")
                        .append(ret.equals(type) ? "value" : "(" + type + ") value").append(");\n        }\n");
            }
            sb.append("    }\n\n");
        }
        sb.append("}\n");
        return sb.toString();
    }

    /** Members with scalar storage, flattened: {name, cType, offset, size, count}; a struct member by its type's members too. */
    private void flatten(java.util.List<CudaRecord.Field> fields, String prefix, java.util.List<String[]> out) {
        for (CudaRecord.Field f : fields) {
            String name = prefix + f.name();
            java.util.List<CudaRecord.Field> inner = f.fields();
            if (inner.isEmpty() && f.count() == 0 && api.canonicalType(f.cType()).equals("record")) {
                CudaRecord t = api.record(f.cType()).orElse(null);
                if (t != null) {
                    java.util.List<CudaRecord.Field> shifted = new java.util.ArrayList<>();
                    for (CudaRecord.Field g : t.fields()) shifted.add(shift(g, f.offset()));
                    inner = shifted;
                }
            }
            if (!inner.isEmpty() && f.count() == 0) {
                out.add(new String[] {name, f.cType(), Integer.toString(f.offset()), Integer.toString(f.size()), "-1"});
                flatten(inner, name + "_", out);
            } else {
                out.add(new String[] {name, f.cType(), Integer.toString(f.offset()), Integer.toString(f.size()), Integer.toString(f.count())});
            }
        }
    }

    private static CudaRecord.Field shift(CudaRecord.Field f, int by) {
        java.util.List<CudaRecord.Field> inner = new java.util.ArrayList<>();
        for (CudaRecord.Field g : f.fields()) inner.add(shift(g, by));
        return new CudaRecord.Field(f.name(), f.cType(), f.offset() + by, f.size(), f.count(), inner);
    }
}
