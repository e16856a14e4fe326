package dev.zluda.viewer;

import dev.zluda.spec.Role;
import dev.zluda.capture.CaptureReader;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.DataItem;
import dev.zluda.capture.text.CallFormatter;
import dev.zluda.spec.CudaFunction;
import dev.zluda.spec.CudaParam;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes and formats single calls of an indexed capture on demand: it finds a call's ENTER and
 * LEAVE records in the mapped file through {@link CaptureReader#chunkRecords} (a small cache keeps
 * the last chunks decoded, so the rows on screen cost one chunk decode or two) and renders them as
 * {@code zluda dump} does ({@link CallFormatter}). Formatted argument texts are cached for the rows
 * being scrolled. Thread-safe.
 */
public final class CallDecoder {
    private static final int CHUNKS = 16, TEXTS = 4096;

    /** A call's records: the LEAVE is null while the call is in flight. */
    public record Decoded(int call, CaptureRecord.Enter enter, CaptureRecord.Leave leave) {}

    /**
     * One argument of a call, for the details view.
     *
     * @param index position in the C signature
     * @param name parameter name ({@code argN} when the spec does not know the function)
     * @param cType C type, or "" when unknown
     * @param direction {@code in}, {@code out} or {@code inout} for data pointers, "" for values
     * @param raw the raw 64-bit value recorded
     * @param atEntry the value as the call received it (with its input data)
     * @param afterCall the value after the call (with its output data), "" when the call has none
     * @param in input data item, or null
     * @param out output data item, or null
     */
    public record Argument(int index, String name, String cType, String direction, long raw, String atEntry,
                           String afterCall, DataItem in, DataItem out) {}

    private final CallIndex index;
    private final CaptureReader reader;
    private final CallFormatter formatter;
    private final Chunk[] chunks = new Chunk[CHUNKS];
    private int nextSlot;
    private final Map<Integer, String> texts = new LinkedHashMap<>(TEXTS * 2, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, String> e) {
            return size() > TEXTS;
        }
    };

    /** A decoder over the index's capture. */
    public CallDecoder(CallIndex index) {
        this.index = index;
        this.reader = index.capture().reader();
        this.formatter = new CallFormatter(index.capture()::specFunction, index::functionName, index.strings());
    }

    /** The formatter used (results by name, values as {@code zluda dump} shows them). */
    public CallFormatter formatter() {
        return formatter;
    }

    /** A decoded chunk: its records sorted by frame offset. */
    private record Chunk(long first, long last, long[] offsets, CaptureRecord[] records) {}

    /** The record whose frame is at this offset, or null. */
    public synchronized CaptureRecord record(long offset) {
        for (Chunk c : chunks) {
            if (c != null && offset >= c.first && offset <= c.last) return find(c, offset);
        }
        List<CaptureRecord> rs = reader.chunkRecords(offset);
        if (rs.isEmpty()) return null;
        long[] offs = new long[rs.size()];
        for (int i = 0; i < offs.length; i++) offs[i] = rs.get(i).offset();
        Chunk c = new Chunk(offs[0], offs[offs.length - 1], offs, rs.toArray(new CaptureRecord[0]));
        chunks[nextSlot] = c;
        nextSlot = (nextSlot + 1) % CHUNKS;
        return find(c, offset);
    }

    private static CaptureRecord find(Chunk c, long offset) {
        int k = java.util.Arrays.binarySearch(c.offsets, offset);
        return k >= 0 ? c.records[k] : null;
    }

    /** The call's ENTER and (when it returned) LEAVE. */
    public Decoded decode(int call) {
        CaptureRecord e = record(index.enterOffset(call));
        long lo = index.leaveOffset(call);
        CaptureRecord l = lo < 0 ? null : record(lo);
        return new Decoded(call, e instanceof CaptureRecord.Enter en ? en : null, l instanceof CaptureRecord.Leave lv ? lv : null);
    }

    /** The call as one line, exactly as {@code zluda dump} prints it: {@code name(arg: value, ...) -> RESULT}. */
    public String line(int call) {
        return index.functionName(index.function(call)) + "(" + arguments(call) + ") -> " + result(call);
    }

    /** The result column's text: the CUresult's name, or {@code (in flight)}. */
    public String result(int call) {
        if (index.inFlight(call)) {
            return index.isComplete() ? "(in flight: the capture ends before this call returned)" : "(in flight)";
        }
        String name = index.functionName(index.function(call));
        if (!dev.zluda.spec.CudaApi.libraryOf(name).equals(dev.zluda.spec.CudaApi.DRIVER)) {
            // a library call: its status by its library's enum (CUBLAS_STATUS_SUCCESS), or its returned value
            var lf = dev.zluda.spec.CudaApi.anyFunction(name);
            if (lf.isPresent()) return formatter.returnsValue(lf.get()) ? "(a value)" : formatter.result(lf.get(), index.result(call));
        }
        return formatter.result(index.result(call));
    }

    /** The arguments as {@code zluda dump} shows them, without the function name and parentheses. */
    public String arguments(int call) {
        synchronized (this) {
            String s = texts.get(call);
            if (s != null) return s;
        }
        Decoded d = decode(call);
        if (d.enter() == null) return "<the ENTER record at byte " + index.enterOffset(call) + " cannot be read>";
        StringBuilder sb = new StringBuilder();
        CudaFunction f = index.capture().specFunction(d.enter().functionId());
        long[] args = d.enter().args();
        for (int i = 0; i < args.length; i++) {
            if (i > 0) sb.append(", ");
            CudaParam p = f != null && i < f.params().size() ? f.params().get(i) : null;
            sb.append(p != null ? p.name() : "arg" + i).append(": ");
            DataItem in = item(d.enter().data(), i), out = d.leave() == null ? null : item(d.leave().data(), i);
            if (d.leave() != null && CallFormatter.notWritten(p, args[i], out, d.leave().result())) sb.append(CallFormatter.NOT_WRITTEN);
            else sb.append(formatter.value(f, p, args[i], d.enter().data(), out != null ? out : in));
        }
        String s = sb.toString();
        if (d.leave() != null || index.isComplete()) {
            synchronized (this) {
                texts.put(call, s);
            }
        }
        return s;
    }

    /** Every argument of a decoded call, with its value at entry and after the call. */
    public List<Argument> arguments(Decoded d) {
        List<Argument> out = new ArrayList<>();
        if (d.enter() == null) return out;
        CudaFunction f = index.capture().specFunction(d.enter().functionId());
        long[] args = d.enter().args();
        for (int i = 0; i < args.length; i++) {
            CudaParam p = f != null && i < f.params().size() ? f.params().get(i) : null;
            DataItem in = item(d.enter().data(), i), o = d.leave() == null ? null : item(d.leave().data(), i);
            String dir = p != null && p.isPointer() ? p.direction().name().toLowerCase(java.util.Locale.ROOT) : "";
            String entry = formatter.value(f, p, args[i], d.enter().data(), in);
            String after = o != null ? formatter.value(f, p, args[i], d.enter().data(), o) : "";
            out.add(new Argument(i, p != null ? p.name() : "arg" + i, p != null ? p.cType() : "", dir, args[i], entry, after, in, o));
        }
        return out;
    }

    /** The data item recorded for a parameter, or null. */
    public static DataItem item(List<DataItem> items, int param) {
        for (DataItem d : items) if (d.param() == param) return d;
        return null;
    }

    /** The CUfunction (or CUkernel) handle a launch call passes, or 0 when the call is no launch. */
    public long launchedFunction(Decoded d) {
        if (d.enter() == null) return 0;
        CudaFunction f = index.capture().specFunction(d.enter().functionId());
        if (Role.of(f) != Role.KERNEL_LAUNCH) return 0;
        CudaParam p = f.param("f").or(() -> f.param("kernel")).orElse(null);
        if (p != null && p.index() < d.enter().args().length) return d.enter().args()[p.index()];
        return 0;
    }
}
