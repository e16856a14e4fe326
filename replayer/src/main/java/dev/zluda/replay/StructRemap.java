package dev.zluda.replay;

import dev.zluda.spec.CudaApi;
import dev.zluda.spec.CudaRecord;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongUnaryOperator;

/**
 * Makes the recorded bytes of a struct passed by pointer ({@code CUDA_MEMCPY2D}, {@code CUDA_MEMCPY3D},
 * {@code CUDA_MEMCPY3D_PEER}, {@code CUlaunchConfig}, ...) fit for a replay: every member the API
 * spec types as a handle ({@code CUarray}, {@code CUcontext}, {@code CUstream}, ...) or as a
 * {@code CUdeviceptr} is rewritten to the replay's value. Layouts (offsets, sizes, nested and array
 * members) come from the spec's records (api-spec/SPEC.md, {@code records[]}, computed by the
 * compiler), never from offsets written here.
 *
 * <p>Host pointer members point into the recorded process; a capture keeps a struct's bytes, not
 * what its pointer members point to. They are resolved by the members beside them, by name:
 * <ul>
 *   <li>{@code xxxHost} with a {@code xxxMemoryType} member (the copy descriptors, CUDA Driver API
 *       {@code cuMemcpy2D}/{@code cuMemcpy3D}): when the memory type is not
 *       {@code CU_MEMORYTYPE_HOST} the driver does not read the pointer, which is cleared; a host
 *       destination gets fresh host memory as large as the copy can reach (its bytes are not in
 *       the capture, so they are not compared); a host source is missing data;</li>
 *   <li>a pointer member {@code xxx} with a count member {@code numXxx} of 0 ({@code attrs} of
 *       {@code CUlaunchConfig}) is cleared;</li>
 *   <li>any other non-null pointer member is missing data.</li>
 * </ul>
 * Unions are copied as recorded (which member is live is not known), as are members of other types.
 */
final class StructRemap {
    private StructRemap() {}

    /** How recorded values become the replay's. */
    interface Mapper {
        /** The replay's handle for a recorded one of C type {@code type}; null when no replayed call made it. */
        Long handle(String type, long recorded);

        /** The replay's address for a recorded device address (unchanged when outside every replayed allocation). */
        long devicePointer(long recorded);
    }

    /**
     * The result.
     *
     * @param bytes the struct(s) for the replay, or null when {@code problem} says why not
     * @param kind {@code missing} (the capture lacks data the call needs) or {@code unsupported}; null when fine
     * @param problem what stands in the way, naming the member; null when fine
     * @param remapped members rewritten (handles, device pointers, cleared or replaced host pointers)
     */
    record Outcome(byte[] bytes, String kind, String problem, int remapped) {}

    private record HostRef(List<CudaRecord.Field> siblings, CudaRecord.Field field, long at, String path) {}

    /**
     * Remaps {@code recorded}: {@code recorded.length / sizeof(r)} consecutive structs of type {@code r}.
     *
     * @param what how the parameter is named in problems, e.g. {@code pCopy}
     * @param hostScratch allocates zeroed host memory of the given size in bytes, returns its address
     */
    static Outcome remap(CudaApi api, CudaRecord r, byte[] recorded, String what, Mapper m, LongUnaryOperator hostScratch) {
        byte[] out = recorded.clone();
        MemorySegment s = MemorySegment.ofArray(out);
        int n = Math.max(1, out.length / Math.max(1, r.size()));
        int[] count = {0};
        for (int i = 0; i < n && (long) (i + 1) * r.size() <= out.length; i++) {
            List<HostRef> refs = new ArrayList<>();
            String base = n > 1 ? what + "[" + i + "]" : what;
            String problem = walk(api, r.union(), r.fields(), s, (long) i * r.size(), base, m, refs, count);
            if (problem != null) return new Outcome(null, "unsupported", problem, count[0]);
            for (HostRef h : refs) {
                String p = host(api, h, s, (long) i * r.size(), hostScratch, count);
                if (p != null) return new Outcome(null, "missing", p, count[0]);
            }
        }
        return new Outcome(out, null, null, count[0]);
    }

    private static String stripConst(String t) {
        return t.replace("const ", "").replace(" const", "").trim();
    }

    /** Walks members at {@code base} (offsets of {@code fields} are from {@code base}); returns a problem or null. */
    private static String walk(CudaApi api, boolean union, List<CudaRecord.Field> fields, MemorySegment s, long base, String path,
                               Mapper m, List<HostRef> refs, int[] count) {
        if (union) return null; // which member is live is not known: copied as recorded
        for (CudaRecord.Field f : fields) {
            String t = stripConst(f.cType());
            String name = path + "." + f.name();
            if (!f.fields().isEmpty()) {
                if (t.equals("union")) continue;
                int elems = Math.max(1, f.count());
                long elemSize = f.size() / elems;
                for (int e = 0; e < elems; e++) {
                    String p = walk(api, false, f.fields(), s, base + e * elemSize, name, m, refs, count);
                    if (p != null) return p;
                }
                continue;
            }
            String elem = t.replaceAll("\\[\\d+]$", "").trim();
            int elems = Math.max(1, f.count());
            long elemSize = f.size() / elems;
            for (int e = 0; e < elems; e++) {
                long at = base + f.offset() + e * elemSize;
                String ename = f.count() > 0 ? name + "[" + e + "]" : name;
                if (api.handleTypes().contains(elem) && elemSize == 8) {
                    long v = s.get(ValueLayout.JAVA_LONG_UNALIGNED, at);
                    Long h = m.handle(elem, v);
                    if (h == null) return ename + " holds " + elem + " " + hex(v) + ", which no replayed call made";
                    if (h != v) { s.set(ValueLayout.JAVA_LONG_UNALIGNED, at, h); count[0]++; }
                } else if ((elem.equals("CUdeviceptr") || elem.equals("CUdeviceptr_v2")) && elemSize == 8) {
                    long v = s.get(ValueLayout.JAVA_LONG_UNALIGNED, at);
                    long w = m.devicePointer(v);
                    if (w != v) { s.set(ValueLayout.JAVA_LONG_UNALIGNED, at, w); count[0]++; }
                } else if (api.canonicalType(elem).equals("pointer") && elemSize == 8) {
                    if (s.get(ValueLayout.JAVA_LONG_UNALIGNED, at) != 0) refs.add(new HostRef(fields, f, at, ename));
                } else if (api.canonicalType(elem).equals("record")) {
                    var nested = api.record(elem);
                    if (nested.isPresent()) {
                        // a nested record's member offsets are from its own start
                        String p = walk(api, nested.get().union(), nested.get().fields(), s, at, ename, m, refs, count);
                        if (p != null) return p;
                    }
                }
            }
        }
        return null;
    }

    private static CudaRecord.Field sibling(List<CudaRecord.Field> fields, String name) {
        for (CudaRecord.Field f : fields) if (f.name().equals(name)) return f;
        return null;
    }

    private static long read(MemorySegment s, long base, CudaRecord.Field f) {
        return switch (f.size()) {
            case 1 -> Byte.toUnsignedLong(s.get(ValueLayout.JAVA_BYTE, base + f.offset()));
            case 2 -> Short.toUnsignedLong(s.get(ValueLayout.JAVA_SHORT_UNALIGNED, base + f.offset()));
            case 4 -> Integer.toUnsignedLong(s.get(ValueLayout.JAVA_INT_UNALIGNED, base + f.offset()));
            default -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, base + f.offset());
        };
    }

    private static long field(List<CudaRecord.Field> fields, MemorySegment s, long base, String name) {
        CudaRecord.Field f = sibling(fields, name);
        return f == null ? 0 : read(s, base, f);
    }

    /** Resolves one non-null host pointer member; returns a problem or null. */
    private static String host(CudaApi api, HostRef h, MemorySegment s, long base, LongUnaryOperator scratch, int[] count) {
        String name = h.field().name();
        List<CudaRecord.Field> fs = h.siblings();
        if (name.endsWith("Host")) {
            String side = name.substring(0, name.length() - 4);
            CudaRecord.Field type = sibling(fs, side + "MemoryType");
            if (type != null) {
                long host = api.enumType(stripConst(type.cType())).flatMap(e -> e.valueOf("CU_MEMORYTYPE_HOST")).orElse(1L);
                if (read(s, base, type) != host) { // the driver does not read it
                    s.set(ValueLayout.JAVA_LONG_UNALIGNED, h.at(), 0L);
                    count[0]++;
                    return null;
                }
                if (h.field().cType().contains("const")) {
                    return "the host memory behind " + h.path() + " (the copy's source) is not in the capture: a capture keeps the "
                            + "descriptor's bytes, not the host rows it points to";
                }
                long bytes = extent(fs, s, base, side);
                if (bytes <= 0 || bytes > (1L << 30)) return h.path() + ": the copy's host destination would span " + bytes + " bytes";
                s.set(ValueLayout.JAVA_LONG_UNALIGNED, h.at(), scratch.applyAsLong(bytes));
                count[0]++;
                return null;
            }
        }
        CudaRecord.Field num = sibling(fs, "num" + Character.toUpperCase(name.charAt(0)) + name.substring(1));
        if (num != null && read(s, base, num) == 0) {
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, h.at(), 0L);
            count[0]++;
            return null;
        }
        return "the memory behind " + h.path() + " is not in the capture: a capture keeps a struct's bytes, not what its "
                + "pointer members point to";
    }

    /** Bytes a 2D/3D copy can touch from its {@code side} (src/dst) host pointer, from the descriptor's own members. */
    private static long extent(List<CudaRecord.Field> fs, MemorySegment s, long base, String side) {
        long width = field(fs, s, base, "WidthInBytes"), height = Math.max(1, field(fs, s, base, "Height"));
        long depth = sibling(fs, "Depth") == null ? 1 : Math.max(1, field(fs, s, base, "Depth"));
        long x = field(fs, s, base, side + "XInBytes"), y = field(fs, s, base, side + "Y"), z = field(fs, s, base, side + "Z");
        long pitch = Math.max(field(fs, s, base, side + "Pitch"), x + width);
        long sliceRows = Math.max(field(fs, s, base, side + "Height"), y + height);
        try {
            long rows = Math.addExact(Math.multiplyExact(z + depth - 1, sliceRows), y + height);
            return Math.multiplyExact(rows, pitch);
        } catch (ArithmeticException e) {
            return -1;
        }
    }

    static String hex(long v) {
        return "0x" + Long.toHexString(v).toLowerCase(Locale.ROOT);
    }
}
