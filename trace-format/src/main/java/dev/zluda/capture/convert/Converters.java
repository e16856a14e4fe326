package dev.zluda.capture.convert;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.zluda.capture.Call;
import dev.zluda.capture.CallAssembler;
import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.ReadStatus;
import dev.zluda.capture.text.CallFormatter;
import dev.zluda.spec.CudaFunction;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Conversions of a capture for other tools, streaming (memory does not grow with the capture):
 * <ul>
 * <li>{@link #jsonl}: JSON Lines, one object per call ({@code "type":"call"}) with raw and rendered
 * arguments, and one per other record (module, blob, kernel, marker, thread, end);</li>
 * <li>{@link #perfetto}: the Chrome/Perfetto trace-event JSON ({@code {"traceEvents": [...]}}) —
 * one complete event ({@code "ph":"X"}) per call on its thread's track, timestamps in µs since the
 * capture began; opens in ui.perfetto.dev and chrome://tracing.</li>
 * </ul>
 */
public final class Converters {
    private Converters() {}

    private static final JsonFactory JSON = new JsonFactory();

    /** Writes JSON Lines to {@code out}; returns how reading ended. */
    public static ReadStatus jsonl(Capture cap, Path out) throws IOException {
        try (OutputStream os = Files.newOutputStream(out);
             JsonGenerator g = JSON.createGenerator(os, JsonEncoding.UTF8)) {
            g.setRootValueSeparator(new com.fasterxml.jackson.core.io.SerializedString("\n"));
            CallAssembler[] asm = new CallAssembler[1];
            CallFormatter[] fmt = new CallFormatter[1];
            asm[0] = new CallAssembler(new CallAssembler.Listener() {
                @Override
                public void call(Call c) {
                    try {
                        Call.walk(c, (k, level, parent) -> write(k, level));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }

                void write(Call c, int level) throws IOException {
                    CaptureRecord.Enter e = c.enter();
                    CudaFunction f = cap.specFunction(e.functionId());
                    g.writeStartObject();
                    g.writeStringField("type", "call");
                    g.writeNumberField("call", c.ordinal());
                    g.writeNumberField("seq", e.seq());
                    g.writeNumberField("thread", e.threadId());
                    g.writeNumberField("depth", e.depth());
                    g.writeStringField("function", cap.functionName(e.functionId()));
                    g.writeNumberField("enter_ns", e.ts());
                    if (!c.inFlight()) {
                        g.writeNumberField("leave_ns", c.leave().ts());
                        g.writeNumberField("duration_ns", c.durationNs());
                        g.writeNumberField("result", Integer.toUnsignedLong(c.leave().result()));
                        g.writeStringField("result_name", fmt[0].result(c.leave().result()));
                    } else {
                        g.writeBooleanField("in_flight", true);
                    }
                    g.writeArrayFieldStart("raw_args");
                    for (long a : e.args()) g.writeString(Long.toUnsignedString(a));
                    g.writeEndArray();
                    g.writeStringField("text", fmt[0].format(c));
                    g.writeEndObject();
                }

                @Override
                public void record(CaptureRecord r) {
                    try {
                        other(g, cap, r);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            });
            fmt[0] = new CallFormatter(cap::specFunction, cap::functionName, asm[0].strings());
            try {
                for (CaptureRecord r : cap.reader()) asm[0].accept(r);
                asm[0].finish();
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
            g.writeRaw('\n');
        }
        return cap.reader().status();
    }

    private static void other(JsonGenerator g, Capture cap, CaptureRecord r) throws IOException {
        String type = switch (r) {
            case CaptureRecord.Blob b -> "blob";
            case CaptureRecord.Module m -> "module";
            case CaptureRecord.Kernel k -> "kernel";
            case CaptureRecord.Marker m -> "marker";
            case CaptureRecord.ThreadName t -> "thread_name";
            case CaptureRecord.ProcessEnd p -> "process_end";
            default -> null;
        };
        if (type == null) return;
        g.writeStartObject();
        g.writeStringField("type", type);
        g.writeNumberField("seq", r.seq());
        g.writeNumberField("thread", r.threadId());
        g.writeNumberField("ts_ns", r.ts());
        switch (r) {
            case CaptureRecord.Blob b -> {
                g.writeStringField("hash", String.format("%016x", b.hash()));
                g.writeNumberField("size", b.size());
                g.writeNumberField("stored", b.stored().byteSize());
                g.writeNumberField("compression", b.compression());
            }
            case CaptureRecord.Module m -> {
                g.writeStringField("file", m.fileName());
                g.writeNumberField("kind", m.kind());
                g.writeNumberField("size", m.size());
                g.writeStringField("handle", CallFormatter.hex(m.handle()));
                g.writeStringField("image_hash", String.format("%016x", m.imageHash()));
            }
            case CaptureRecord.Kernel k -> {
                g.writeStringField("name", k.name());
                g.writeNumberField("launch_seq", k.launchSeq());
                g.writeNumberField("buffers", k.buffers().size());
                if (k.launch() != null) {
                    CaptureRecord.KernelLaunch l = k.launch();
                    g.writeStringField("module_hash", String.format("%016x", l.moduleHash()));
                    g.writeArrayFieldStart("grid");
                    g.writeNumber(l.gridX()); g.writeNumber(l.gridY()); g.writeNumber(l.gridZ());
                    g.writeEndArray();
                    g.writeArrayFieldStart("block");
                    g.writeNumber(l.blockX()); g.writeNumber(l.blockY()); g.writeNumber(l.blockZ());
                    g.writeEndArray();
                    g.writeNumberField("shared_mem_bytes", l.sharedMemBytes());
                    g.writeNumberField("result", l.result());
                }
            }
            case CaptureRecord.Marker m -> g.writeStringField("text", m.text());
            case CaptureRecord.ThreadName t -> {
                g.writeNumberField("named_thread", t.namedThread());
                g.writeStringField("name", t.name());
            }
            case CaptureRecord.ProcessEnd p -> {
                g.writeNumberField("reason", p.reason());
                g.writeNumberField("status", p.status());
            }
            default -> { }
        }
        g.writeEndObject();
    }

    /** Writes the Chrome/Perfetto trace-event JSON to {@code out}; returns how reading ended. */
    public static ReadStatus perfetto(Capture cap, Path out) throws IOException {
        long start = cap.reader().header().startMonotonicNs();
        int pid = cap.reader().header().pid();
        long[] lastTs = {start};
        try (OutputStream os = Files.newOutputStream(out);
             JsonGenerator g = JSON.createGenerator(os, JsonEncoding.UTF8)) {
            g.writeStartObject();
            g.writeStringField("displayTimeUnit", "ns");
            g.writeArrayFieldStart("traceEvents");
            g.writeStartObject();
            g.writeStringField("ph", "M");
            g.writeStringField("name", "process_name");
            g.writeNumberField("pid", pid);
            g.writeObjectFieldStart("args");
            g.writeStringField("name", cap.manifest().path("program").asText("pid " + pid));
            g.writeEndObject();
            g.writeEndObject();
            CallAssembler[] asm = new CallAssembler[1];
            CallFormatter[] fmt = new CallFormatter[1];
            java.util.List<Call> flying = new java.util.ArrayList<>();
            asm[0] = new CallAssembler(new CallAssembler.Listener() {
                @Override
                public void call(Call c) {
                    if (c.inFlight()) {
                        flying.add(c);
                        return;
                    }
                    try {
                        write(c);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }

                void write(Call c) throws IOException {
                    writeCall(g, cap, fmt[0], c, start, pid, lastTs[0]);
                }

                @Override
                public void record(CaptureRecord r) {
                    try {
                        if (r instanceof CaptureRecord.ThreadName t) {
                            g.writeStartObject();
                            g.writeStringField("ph", "M");
                            g.writeStringField("name", "thread_name");
                            g.writeNumberField("pid", pid);
                            g.writeNumberField("tid", t.namedThread() != 0 ? t.namedThread() : t.threadId());
                            g.writeObjectFieldStart("args");
                            g.writeStringField("name", t.name());
                            g.writeEndObject();
                            g.writeEndObject();
                        } else if (r instanceof CaptureRecord.Marker m) {
                            g.writeStartObject();
                            g.writeStringField("name", m.text());
                            g.writeStringField("ph", "i");
                            g.writeStringField("s", "t");
                            g.writeNumberField("ts", (m.ts() - start) / 1000.0);
                            g.writeNumberField("pid", pid);
                            g.writeNumberField("tid", m.threadId());
                            g.writeEndObject();
                        }
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            });
            fmt[0] = new CallFormatter(cap::specFunction, cap::functionName, asm[0].strings());
            try {
                for (CaptureRecord r : cap.reader()) {
                    lastTs[0] = Math.max(lastTs[0], r.ts());
                    asm[0].accept(r);
                }
                asm[0].finish();
                // calls in flight at the end: drawn up to the last timestamp of the capture
                for (Call c : flying) writeCall(g, cap, fmt[0], c, start, pid, lastTs[0]);
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        return cap.reader().status();
    }

    private static void writeCall(JsonGenerator g, Capture cap, CallFormatter fmt, Call root, long start, int pid, long end) throws IOException {
        Call.walk(root, (c, level, parent) -> writeOne(g, cap, fmt, c, start, pid, end));
    }

    private static void writeOne(JsonGenerator g, Capture cap, CallFormatter fmt, Call c, long start, int pid, long end) throws IOException {
        CaptureRecord.Enter e = c.enter();
        long stop = c.inFlight() ? end : c.leave().ts();
        g.writeStartObject();
        g.writeStringField("name", cap.functionName(e.functionId()));
        g.writeStringField("cat", "cuda");
        g.writeStringField("ph", "X");
        g.writeNumberField("ts", (e.ts() - start) / 1000.0);
        g.writeNumberField("dur", Math.max(0, stop - e.ts()) / 1000.0);
        g.writeNumberField("pid", pid);
        g.writeNumberField("tid", e.threadId());
        g.writeObjectFieldStart("args");
        g.writeNumberField("call", c.ordinal());
        g.writeStringField("result", c.inFlight() ? "in flight" : fmt.result(c.leave().result()));
        g.writeStringField("text", fmt.format(c));
        g.writeEndObject();
        g.writeEndObject();
    }
}
