package dev.zluda.capture.text;

import dev.zluda.capture.Call;
import dev.zluda.capture.CaptureFormat;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.DataItem;
import dev.zluda.spec.CudaApi;
import dev.zluda.spec.CudaEnum;
import dev.zluda.spec.CudaFunction;
import dev.zluda.spec.CudaParam;
import dev.zluda.spec.CudaRecord;
import dev.zluda.spec.FormatKind;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntFunction;

/**
 * Renders calls the way ZLUDA's {@code log.txt} does: {@code cuMemAlloc_v2(dptr: 0x7f3c00000000,
 * bytesize: 1024) -> CUDA_SUCCESS}. Arguments show their values after the call: a pointer with
 * recorded data shows the data (an output shows what the driver wrote), enums and flags by name,
 * handles and device pointers in hex as recorded, {@code CUdevice} ordinals in decimal, strings
 * quoted. An output pointer of a call that failed shows {@code (not written)}: outputs are recorded
 * after successful calls only.
 */
public final class CallFormatter {
    private final CudaApi api;
    private final IntFunction<CudaFunction> specOf;
    private final IntFunction<String> nameOf;
    private final Map<Integer, String> strings;
    private final CudaEnum results;

    /**
     * @param specOf the spec function of a capture function id (null when unknown)
     * @param nameOf the name of a capture function id
     * @param strings STRING records seen so far (read at format time)
     */
    public CallFormatter(IntFunction<CudaFunction> specOf, IntFunction<String> nameOf, Map<Integer, String> strings) {
        this.api = CudaApi.get();
        this.specOf = specOf;
        this.nameOf = nameOf;
        this.strings = strings;
        this.results = api.enumType("CUresult").orElse(null);
    }

    /** One line without indentation or prefixes: {@code name(arg: value, ...) -> RESULT}. */
    public String format(Call c) {
        StringBuilder sb = new StringBuilder();
        CaptureRecord.Enter e = c.enter();
        CudaFunction f = specOf.apply(e.functionId());
        sb.append(nameOf.apply(e.functionId())).append('(');
        long[] args = e.args();
        for (int i = 0; i < args.length; i++) {
            if (i > 0) sb.append(", ");
            CudaParam p = f != null && i < f.params().size() ? f.params().get(i) : null;
            sb.append(p != null ? p.name() : "arg" + i).append(": ");
            DataItem in = item(e.data(), i), out = c.leave() == null ? null : item(c.leave().data(), i);
            if (c.leave() != null && notWritten(p, args[i], out, c.leave().result())) {
                sb.append(NOT_WRITTEN);
                continue;
            }
            sb.append(value(f, p, args[i], e.data(), out != null ? out : in));
        }
        sb.append(") -> ");
        if (c.leave() == null) sb.append("(in flight: the capture ends before this call returned)");
        else if (f != null && returnsValue(f)) sb.append(returnValue(f, item(c.leave().data(), f.params().size())));
        else sb.append(f != null && !f.library().equals(CudaApi.DRIVER) ? result(f, c.leave().result()) : result(c.leave().result()));
        return sb.toString();
    }

    /**
     * One argument of a call of {@code f}, as {@link #value(CudaParam, long, DataItem)} renders it, except
     * the JIT option values, which are read by their keys in {@code enterData} (the call's ENTER data).
     */
    public String value(CudaFunction f, CudaParam p, long v, List<DataItem> enterData, DataItem d) {
        String keyed = p == null ? null : jitValues(f, p, enterData, d);
        return keyed != null ? keyed : value(p, v, d);
    }

    /**
     * JIT option values ({@code optionValues}, {@code jitOptionsValues}: {@code void *[]}) read by their
     * {@code CUjit_option} keys: the log buffers and name/symbol arrays as addresses, CU_JIT_WALL_TIME as
     * a float (ms), every other option (the *_LOG_BUFFER_SIZE_BYTES the driver writes back, counts,
     * levels) as an unsigned number; null when {@code p} is no such array or its keys were not recorded.
     */
    private String jitValues(CudaFunction f, CudaParam p, List<DataItem> enterData, DataItem values) {
        String keysName = switch (p.name()) {
            case "optionValues" -> "options";
            case "jitOptionsValues" -> "jitOptions";
            default -> null;
        };
        if (keysName == null || f == null || values == null || values.kind() != CaptureFormat.ITEM_INLINE) return null;
        CudaParam kp = f.param(keysName).orElse(null);
        DataItem keys = kp == null ? null : item(enterData, kp.index());
        if (keys == null || keys.kind() != CaptureFormat.ITEM_INLINE) return null;
        byte[] k = keys.bytes(), v = values.bytes();
        int n = Math.min(k.length / 4, v.length / 8);
        StringBuilder sb = new StringBuilder(n > 1 ? "[" : "");
        for (int i = 0; i < Math.min(n, 8); i++) {
            if (i > 0) sb.append(", ");
            int opt = (int) le(k, 4 * i, 4);
            long x = le(v, 8 * i, 8);
            switch (opt) {
                case 3, 5, 17, 18, 25, 27 -> sb.append(x == 0 ? "NULL" : hex(x)); // log buffers, symbol and name arrays
                case 2 -> sb.append(Float.intBitsToFloat((int) x)).append(" ms"); // CU_JIT_WALL_TIME
                default -> sb.append(Long.toUnsignedString(x & 0xFFFF_FFFFL));
            }
        }
        if (n > 8) sb.append(", …");
        if (n > 1) sb.append(']');
        return sb.toString();
    }

    /** A CUresult by name ({@code CUDA_SUCCESS}), or its number when the spec has no name for it. */
    public String result(int r) {
        if (results != null) {
            Optional<String> n = results.nameOf(Integer.toUnsignedLong(r));
            if (n.isPresent()) return n.get();
        }
        return Integer.toUnsignedString(r);
    }

    /**
     * The result of a call of {@code f} by name in the enum its return type names ({@code cublasStatus_t}:
     * {@code CUBLAS_STATUS_SUCCESS}), or its number; a library function that returns no status (a
     * {@code size_t}, a {@code const char *}) shows the raw value.
     */
    public String result(CudaFunction f, int r) {
        if (f.library().equals(CudaApi.DRIVER)) return result(r);
        CudaApi a = apiOf(f.library());
        Optional<CudaEnum> e = a.enumType(f.returnType());
        if (e.isPresent()) {
            Optional<String> n = e.get().nameOf(Integer.toUnsignedLong(r)).or(() -> e.get().nameOf(r));
            if (n.isPresent()) return n.get();
        }
        return Integer.toUnsignedString(r);
    }

    /**
     * Whether a library function returns a value rather than a status ({@code size_t cublasGetCudartVersion},
     * {@code const char *cublasGetStatusName}): its LEAVE result is 0 and the value is the data item of
     * parameter n, one past its last (FORMAT.md §6.10, "Library functions").
     */
    public boolean returnsValue(CudaFunction f) {
        if (f.library().equals(CudaApi.DRIVER)) return false;
        String t = f.returnType().replace("const ", "").trim();
        if (t.equals("void")) return false;
        CudaApi a = apiOf(f.library());
        return a.enumType(t).isEmpty() && !a.canonicalType(t).equals("enum") && !t.equals("int");
    }

    /** A returned value as its C type says: a number, a pointer in hex; "(not recorded)" when absent. */
    private String returnValue(CudaFunction f, DataItem d) {
        if (d == null || d.kind() != CaptureFormat.ITEM_INLINE) return "(not recorded)";
        byte[] b = d.bytes();
        String t = apiOf(f.library()).canonicalType(f.returnType());
        if (t.equals("pointer")) return hex(le(b, 0, Math.min(8, b.length)));
        if (t.equals("float") && b.length == 4) return Float.toString(Float.intBitsToFloat((int) le(b, 0, 4)));
        if (t.equals("double") && b.length == 8) return Double.toString(Double.longBitsToDouble(le(b, 0, 8)));
        return Long.toUnsignedString(le(b, 0, Math.min(8, b.length)));
    }

    /** The spec of an API by short name; the driver's when a library's cannot be loaded. */
    private CudaApi apiOf(String library) {
        if (library == null || library.equals(CudaApi.DRIVER)) return api;
        try {
            return CudaApi.library(library);
        } catch (RuntimeException e) {
            return api;
        }
    }

    private static DataItem item(List<DataItem> items, int param) {
        for (DataItem d : items) if (d.param() == param) return d;
        return null;
    }

    /** What an output of a failed call shows: {@link #notWritten}. */
    public static final String NOT_WRITTEN = "(not written)";

    /**
     * Whether argument {@code v} of parameter {@code p} is an output pointer of a call that failed
     * ({@code result} not 0) with nothing recorded behind it: the recorder keeps outputs of
     * successful calls only, so {@code v} is the out-parameter's own address, not anything the
     * driver wrote; shown as {@link #NOT_WRITTEN}.
     *
     * @param out the data item recorded at the call's LEAVE for this parameter, or null
     */
    public static boolean notWritten(CudaParam p, long v, DataItem out, int result) {
        return p != null && p.direction() == dev.zluda.spec.Direction.OUT && p.isPointer() && out == null && v != 0 && result != 0;
    }

    /**
     * Whether a C type is {@code CUdevice}: a device ordinal (CUDA Driver API, cuDeviceGet: "Returns
     * in *device a device handle given an ordinal"; the value is the ordinal on NVIDIA's driver and
     * zluda's), shown in decimal like the {@code device: 0} that cuDeviceGet writes.
     */
    private static boolean isDevice(String cType) {
        String t = cType.replace("const ", "").trim();
        return t.equals("CUdevice") || t.equals("CUdevice_v1");
    }

    /** One argument: the raw value {@code v} as its C type says, or the data behind it. */
    public String value(CudaParam p, long v, DataItem d) {
        if (p == null) return d != null ? data(api, null, d) : hex(v);
        CudaApi a = apiOf(p.library());
        return switch (p.format()) {
            case HANDLE -> isDevice(p.cType()) ? Integer.toString((int) v) : hex(v);
            case DEVICE_POINTER, FUNCTION_POINTER -> hex(v);
            case ENUM -> enumName(a, p.cType(), v);
            case FLAGS -> flags(a, p.flagsEnum(), v);
            case SIZE -> Long.toUnsignedString(v);
            case INTEGER -> integer(a, p.cType(), v);
            case FLOAT -> p.cType().contains("double") ? Double.toString(Double.longBitsToDouble(v)) : Float.toString(Float.intBitsToFloat((int) v));
            case STRING, POINTER -> {
                if (d != null) yield data(a, p, d);
                yield v == 0 ? "NULL" : hex(v);
            }
            case RECORD -> hex(v);
        };
    }

    private String data(CudaApi a, CudaParam p, DataItem d) {
        return switch (d.kind()) {
            case CaptureFormat.ITEM_STRING -> quote(strings.getOrDefault(d.stringId(), "<string #" + d.stringId() + ">"));
            case CaptureFormat.ITEM_BLOB -> String.format("<%d bytes, blob %016x>", d.size(), d.hash());
            case CaptureFormat.ITEM_HASH_ONLY -> String.format("<%d bytes, xxh64 %016x>", d.size(), d.hash());
            case CaptureFormat.ITEM_UNREADABLE -> "<unreadable>";
            case CaptureFormat.ITEM_TRUNCATED -> bytes(d.bytes()) + "…(" + d.size() + " bytes)";
            default -> p == null ? bytes(d.bytes()) : pointee(a, p, d.bytes());
        };
    }

    private String pointee(CudaApi a, CudaParam p, byte[] b) {
        if (p.string() || p.format() == FormatKind.STRING) {
            int n = 0;
            while (n < b.length && b[n] != 0) n++;
            return quote(new String(b, 0, n, StandardCharsets.UTF_8));
        }
        String t = p.pointeeType();
        long size = t == null ? -1 : a.sizeOfType(t);
        if (t == null || t.equals("void") || size <= 0 || b.length % size != 0 || size > b.length) return bytes(b);
        int n = (int) (b.length / size);
        StringBuilder sb = new StringBuilder();
        if (n > 1) sb.append('[');
        for (int i = 0; i < Math.min(n, 8); i++) {
            if (i > 0) sb.append(", ");
            sb.append(element(a, t, b, (int) (i * size), (int) size));
        }
        if (n > 8) sb.append(", …");
        if (n > 1) sb.append(']');
        return sb.toString();
    }

    /** One element of pointed-to data of C type {@code t}. */
    private String element(CudaApi a, String t, byte[] b, int off, int size) {
        Optional<CudaRecord> rec = a.record(t);
        if (rec.isPresent() && rec.get().name().equals("CUuuid") && size == 16) return guid(b, off);
        if (rec.isPresent() && !a.handleTypes().contains(t)) {
            StringBuilder sb = new StringBuilder("{");
            int k = 0;
            for (CudaRecord.Field f : rec.get().fields()) {
                if (k++ > 0) sb.append(", ");
                if (k > 12) { sb.append('…'); break; }
                sb.append(f.name()).append(": ");
                if (f.count() > 0 || !f.fields().isEmpty() || f.size() > 8 || f.offset() + f.size() > size) {
                    sb.append("…");
                } else {
                    sb.append(scalar(a, f.cType(), le(b, off + f.offset(), f.size()), f.size()));
                }
            }
            return sb.append('}').toString();
        }
        if (size > 8) return bytes(java.util.Arrays.copyOfRange(b, off, off + size));
        return scalar(a, t, le(b, off, size), size);
    }

    /**
     * A {@code CUuuid} (device UUIDs, export-table ids) as its 16 bytes in memory order, grouped
     * 8-4-4-4-12 hex digits in braces — how the NVIDIA tracer names export tables
     * ({@code {GUID}::slot N}) and zluda's driver prints them.
     */
    static String guid(byte[] b, int off) {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10) sb.append('-');
            sb.append(String.format("%02x", b[off + i] & 0xFF));
        }
        return sb.append('}').toString();
    }

    private String scalar(CudaApi a, String t, long v, int size) {
        if (a.handleTypes().contains(t.replace("const ", "").trim()) || t.startsWith("CUdeviceptr") || t.endsWith("*")) return hex(v);
        if (a.enumType(t).isPresent()) return enumName(a, t, v);
        if (t.equals("float")) return Float.toString(Float.intBitsToFloat((int) v));
        if (t.equals("double")) return Double.toString(Double.longBitsToDouble(v));
        if (t.equals("char") && size == 1) return quote(String.valueOf((char) (v & 0xFF)));
        return integer(t, v, size);
    }

    private static long le(byte[] b, int off, int n) {
        long v = 0;
        for (int i = n - 1; i >= 0; i--) v = (v << 8) | (b[off + i] & 0xFF);
        return v;
    }

    private String integer(CudaApi a, String cType, long v) {
        long size = a.sizeOfType(cType);
        return integer(cType, v, (int) (size > 0 ? size : 8));
    }

    private static String integer(String cType, long v, int size) {
        boolean unsigned = cType.contains("unsigned") || cType.startsWith("cuuint") || cType.equals("size_t") || cType.startsWith("uint");
        if (unsigned || size >= 8) return unsigned ? Long.toUnsignedString(v) : Long.toString(v);
        int bits = size * 8;
        long signed = (v << (64 - bits)) >> (64 - bits);
        return Long.toString(signed);
    }

    private String enumName(CudaApi a, String cType, long v) {
        Optional<CudaEnum> e = a.enumType(cType);
        if (e.isEmpty()) return Long.toString(v);
        long x = e.get().size() == 4 ? (int) v : v;
        return e.get().nameOf(x).or(() -> e.get().nameOf(v)).orElse(Long.toString(x));
    }

    private String flags(CudaApi a, String enumName, long v) {
        if (enumName == null) return v == 0 ? "0" : "0x" + Long.toHexString(v);
        Optional<CudaEnum> e = a.enumType(enumName);
        if (e.isEmpty()) return "0x" + Long.toHexString(v);
        if (v == 0) return e.get().nameOf(0).orElse("0");
        StringBuilder sb = new StringBuilder();
        long rest = v;
        for (CudaEnum.Member m : e.get().members()) {
            long bit = m.value();
            if (bit != 0 && Long.bitCount(bit) == 1 && (rest & bit) == bit) {
                if (!sb.isEmpty()) sb.append(" | ");
                sb.append(m.name());
                rest &= ~bit;
            }
        }
        if (rest != 0) {
            // multi-bit members (masks) or unknown bits
            Optional<String> whole = e.get().nameOf(v);
            if (whole.isPresent() && sb.isEmpty()) return whole.get();
            if (!sb.isEmpty()) sb.append(" | ");
            sb.append("0x").append(Long.toHexString(rest));
        }
        return sb.toString();
    }

    /** {@code 0x} and lower-case hex. */
    public static String hex(long v) {
        return "0x" + Long.toHexString(v);
    }

    private static String bytes(byte[] b) {
        StringBuilder sb = new StringBuilder("<").append(b.length).append(" bytes");
        if (b.length > 0) sb.append(':');
        for (int i = 0; i < Math.min(b.length, 16); i++) sb.append(' ').append(String.format(Locale.ROOT, "%02x", b[i] & 0xFF));
        if (b.length > 16) sb.append(" …");
        return sb.append('>').toString();
    }

    /** A C-escaped double-quoted string. */
    public static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) sb.append(String.format("\\x%02x", (int) c));
                    else sb.append(c);
                }
            }
        }
        return sb.append('"').toString();
    }
}
