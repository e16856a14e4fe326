package dev.zluda.diff;

import dev.zluda.capture.CaptureFormat;
import dev.zluda.capture.CaptureHeader;
import dev.zluda.capture.CaptureReader;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.CaptureWriter;
import dev.zluda.capture.DataItem;
import dev.zluda.capture.DataItems;
import dev.zluda.capture.ThreadLog;
import dev.zluda.spec.CudaApi;
import dev.zluda.spec.CudaFunction;
import dev.zluda.spec.CudaParam;
import dev.zluda.spec.FormatKind;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Test helper: copies a capture record by record, letting an {@link Editor} change arguments,
 * results and data, drop calls or insert calls. Call numbers are counted like {@code zluda dump}
 * counts them (ENTER records in sequence order, from 1).
 */
final class Rewrite {
    private Rewrite() {}

    /** One call while it is copied; fields may be changed by the editor. */
    static final class Call {
        final long ordinal;
        final String function;
        long[] args;
        int result;
        final List<DataItem> in;
        List<DataItem> out = new ArrayList<>();
        boolean drop;
        final List<Synthetic> before = new ArrayList<>();
        ThreadLog log;
        long ts;
        Map<Long, byte[]> blobs;

        Call(long ordinal, String function, long[] args, List<DataItem> in) {
            this.ordinal = ordinal;
            this.function = function;
            this.args = args;
            this.in = new ArrayList<>(in);
        }

        /** Writes a blob and returns a data item naming it. */
        DataItem blob(int param, byte[] data) {
            long h = log.blob(data, 0, data.length, CaptureFormat.COMPRESSION_NONE, ts);
            return new DataItem(param, CaptureFormat.ITEM_BLOB, null, h, data.length, -1);
        }
    }

    /** A call to insert: function, arguments, result, output items, input items. */
    record Synthetic(String function, long[] args, int result, List<DataItem> out, List<DataItem> in) {
        Synthetic(String function, long[] args, int result, List<DataItem> out) {
            this(function, args, result, out, List.of());
        }
    }

    /** Changes calls while they are copied. */
    interface Editor {
        /** At the call's ENTER (arguments, input data, drop, insertions before it). */
        default void enter(Call c) {}

        /** At the call's LEAVE (result, output data). */
        default void leave(Call c) {}

        /** A kernel snapshot's packed parameter bytes (FORMAT.md §6.5), as they are to be copied. */
        default byte[] kernelParams(String kernel, byte[] params) {
            return params;
        }
    }

    /** Copies {@code src} (a capture directory) into the new directory {@code dst}. */
    static Path copy(Path src, Path dst, Editor editor) throws Exception {
        Files.createDirectories(dst);
        if (Files.exists(src.resolve("manifest.json"))) Files.copy(src.resolve("manifest.json"), dst.resolve("manifest.json"));
        CudaApi api = CudaApi.get();
        try (CaptureReader r = CaptureReader.open(src.resolve("capture.zcap"))) {
            CaptureHeader h = r.header();
            CaptureWriter w = CaptureWriter.create(dst.resolve("capture.zcap"),
                    CaptureWriter.Options.defaults().withChunkSize(h.chunkSize()).withGrowStep(4L << 20), r.functions());
            Map<Long, ThreadLog> logs = new HashMap<>();
            Map<Long, Long> seqs = new HashMap<>();
            Map<Long, Call> open = new HashMap<>();
            Set<Long> dropped = new HashSet<>();
            Map<Long, byte[]> blobs = new HashMap<>();
            DataItems items = new DataItems();
            long ordinal = 0;
            int endReason = CaptureFormat.END_CLOSED;
            long endStatus = 0;
            for (CaptureRecord rec : r) {
                ThreadLog t = logs.computeIfAbsent(rec.threadId(), w::thread);
                switch (rec) {
                    case CaptureRecord.Enter e -> {
                        Call c = new Call(++ordinal, r.functions().get(e.functionId()).name(), e.args().clone(), e.data());
                        c.log = t;
                        c.ts = e.ts();
                        c.blobs = blobs;
                        editor.enter(c);
                        for (Synthetic s : c.before) {
                            int fid = id(r, s.function());
                            DataItems inItems = null;
                            if (!s.in().isEmpty()) {
                                inItems = new DataItems();
                                for (DataItem d : s.in()) inItems.add(d);
                            }
                            long seq = t.enter(fid, e.depth(), e.ts(), s.args(), inItems);
                            items.clear();
                            for (DataItem d : s.out()) items.add(d);
                            t.leave(seq, e.ts(), s.result(), items);
                        }
                        if (c.drop) {
                            dropped.add(e.seq());
                            continue;
                        }
                        items.clear();
                        for (DataItem d : c.in) items.add(d);
                        seqs.put(e.seq(), t.enter(e.functionId(), e.depth(), e.ts(), c.args, items));
                        open.put(e.seq(), c);
                    }
                    case CaptureRecord.Leave l -> {
                        if (dropped.contains(l.enterSeq())) continue;
                        Call c = open.remove(l.enterSeq());
                        c.result = l.result();
                        c.out = new ArrayList<>(l.data());
                        c.ts = l.ts();
                        c.log = t;
                        editor.leave(c);
                        items.clear();
                        for (DataItem d : c.out) items.add(d);
                        t.leave(seqs.get(l.enterSeq()), l.ts(), c.result, items);
                    }
                    case CaptureRecord.Blob b -> {
                        byte[] stored = b.stored().toArray(ValueLayout.JAVA_BYTE);
                        if (b.compression() == CaptureFormat.COMPRESSION_NONE) blobs.put(b.hash(), stored);
                        t.rawBlob(b.hash(), b.size(), b.compression(), stored, 0, stored.length, b.ts());
                    }
                    case CaptureRecord.StringDef s -> t.stringDef(s.id(), s.text(), s.ts());
                    case CaptureRecord.ThreadName n -> t.threadName(n.namedThread(), n.name(), n.ts());
                    case CaptureRecord.Marker m -> t.marker(m.text(), m.ts());
                    case CaptureRecord.Module m -> t.module(m.library(), m.index(), m.kind(), m.imageHash(), m.size(), m.handle(), m.fileName(), m.ts());
                    case CaptureRecord.Kernel k -> {
                        Long launch = seqs.get(k.launchSeq());
                        if (launch != null) {
                            t.kernel(launch, k.function(), k.name(), editor.kernelParams(k.name(), k.params().clone()), k.buffers(), k.launch(), k.ts());
                        }
                    }
                    case CaptureRecord.ProcessEnd p -> { endReason = p.reason(); endStatus = p.status(); }
                    default -> { }
                }
            }
            w.close(endReason, endStatus);
        }
        return dst;
    }

    private static int id(CaptureReader r, String name) {
        for (int i = 0; i < r.functions().size(); i++) if (r.functions().get(i).name().equals(name)) return i;
        throw new IllegalArgumentException("no function " + name);
    }

    /**
     * An editor that gives every handle, device pointer and host pointer another value, the way
     * another run (or another driver) would: handles XOR a constant, device pointers and host
     * addresses shifted.
     */
    static Editor remap() {
        CudaApi api = CudaApi.get();
        return new Editor() {
            @Override
            public void enter(Call c) {
                keys = null;
                CudaFunction f = api.function(c.function).orElse(null);
                if (f == null) return;
                for (CudaParam p : f.params()) c.args[p.index()] = value(p.format(), p.cType(), c.args[p.index()]);
                remapItems(f, c.in);
            }

            @Override
            public void leave(Call c) {
                CudaFunction f = api.function(c.function).orElse(null);
                if (f != null) remapItems(f, c.out);
            }

            /** The CUjit_option keys of this call's option values (an option's value is a pointer or a number, by its key). */
            int[] keys;

            void remapItems(CudaFunction f, List<DataItem> items) {
                for (DataItem d : items) {
                    if (d.isInline() && d.param() < f.params().size() && f.params().get(d.param()).name().matches("options|jitOptions")) {
                        keys = new int[d.bytes().length / 4];
                        for (int j = 0; j < keys.length; j++) keys[j] = (int) Normaliser.le(d.bytes(), 4 * j, 4);
                    }
                }
                for (int k = 0; k < items.size(); k++) {
                    DataItem d = items.get(k);
                    if (!d.isInline() || d.param() >= f.params().size()) continue;
                    CudaParam p = f.params().get(d.param());
                    if (keys != null && p.name().matches("optionValues|jitOptionsValues")) {
                        // another run passes the same sizes and counts: only the option values that are pointers move
                        byte[] b = d.bytes().clone();
                        for (int o = 0; o + 8 <= b.length && o / 8 < keys.length; o += 8) {
                            if (!Normaliser.jitPointerOption(keys[o / 8])) continue;
                            long nv = value(FormatKind.POINTER, "void *", Normaliser.le(b, o, 8));
                            for (int i = 0; i < 8; i++) b[o + i] = (byte) (nv >>> (8 * i));
                        }
                        items.set(k, new DataItem(d.param(), d.kind(), b, d.hash(), b.length, d.stringId()));
                        continue;
                    }
                    String t = p.pointeeType() == null ? "" : p.pointeeType().replace("const ", "").trim();
                    FormatKind kind = t.endsWith("*") ? FormatKind.POINTER : t.equals("CUdeviceptr") ? FormatKind.DEVICE_POINTER
                            : api.handleTypes().contains(t) ? FormatKind.HANDLE : null;
                    if (kind == null || d.bytes().length % 8 != 0) continue;
                    byte[] b = d.bytes().clone();
                    for (int o = 0; o < b.length; o += 8) {
                        long v = Normaliser.le(b, o, 8);
                        long nv = value(kind, t, v);
                        for (int i = 0; i < 8; i++) b[o + i] = (byte) (nv >>> (8 * i));
                    }
                    items.set(k, new DataItem(d.param(), d.kind(), b, d.hash(), b.length, d.stringId()));
                }
            }
        };
    }

    static long value(FormatKind kind, String cType, long v) {
        if (v == 0) return 0;
        String t = cType.replace("const ", "").trim();
        return switch (kind) {
            case HANDLE -> t.equals("CUdevice") ? v : v ^ 0x0000_0ab0_0000_1230L;
            case DEVICE_POINTER -> v + 0x10_0000_0000L;
            case POINTER, STRING, FUNCTION_POINTER -> v + 0x1_0000_0040L;
            default -> v;
        };
    }

    /**
     * An editor that changes the first output buffer of call {@code ordinal} (stored as a blob): {@code edit}
     * rewrites a copy of its bytes, seen as a little-endian buffer.
     */
    static Editor editOutput(long ordinal, java.util.function.Consumer<java.nio.ByteBuffer> edit) {
        return new Editor() {
            @Override
            public void leave(Call c) {
                if (c.ordinal == ordinal) editFirstOutput(c, edit);
            }
        };
    }

    /** Replaces the call's first output blob by a copy that {@code edit} rewrote (little-endian). */
    static void editFirstOutput(Call c, java.util.function.Consumer<java.nio.ByteBuffer> edit) {
        try {
            byte[] x = blobBytes(c, c.out.getFirst()).clone();
            edit.accept(java.nio.ByteBuffer.wrap(x).order(java.nio.ByteOrder.LITTLE_ENDIAN));
            c.out.set(0, c.blob(0, x));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static byte[] blobBytes(Call c, DataItem d) throws IOException {
        byte[] b = c.blobs.get(d.hash());
        if (b == null) throw new IOException("blob " + Long.toHexString(d.hash()) + " not stored uncompressed");
        return b;
    }
}
