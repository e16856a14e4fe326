package dev.zluda.diff;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.Writer;
import java.util.Map;

/**
 * The report for scripts, one JSON object: {@code same}, {@code resultsCompared} (false: the captures
 * hold calls and arguments only, no result data), {@code a}, {@code b}, {@code counts}
 * (per kind), {@code divergingCalls}, {@code firstDivergence}, {@code divergences} (each with
 * {@code kind}, {@code a}/{@code b} call refs and {@code differences}), {@code ignoredCounts},
 * {@code ignored}, {@code toleratedBuffers}, {@code threads}, {@code warnings}, {@code notes}, {@code options},
 * {@code kernels} (snapshot counts and the diverging kernels: {@code number} — what {@code --kernel N}
 * names —, {@code kernel}, {@code module}, {@code shape}, launch calls {@code aCall}/{@code bCall},
 * results, {@code parameters} (the kernel parameters whose values differ), {@code buffers} with {@code index}, {@code buffer} (dptr#N), {@code params}, {@code data},
 * and {@code locate}, the command that localises the first differing instruction).
 * Call numbers are 1-based in order of entry; an absent side has {@code "call": null} and
 * {@code "after"}. Heatmaps are not included (see the HTML report).
 */
public final class JsonReport {
    private JsonReport() {}

    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** The report as a JSON tree. */
    public static ObjectNode tree(DiffResult r) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("same", r.same());
        o.put("resultsCompared", r.resultsCompared());
        o.set("a", side(r.a()));
        o.set("b", side(r.b()));
        ObjectNode counts = o.putObject("counts");
        for (Map.Entry<DiffKind, Long> e : r.counts().entrySet()) counts.put(e.getKey().label(), e.getValue());
        o.put("divergingCalls", r.divergingCalls());
        o.put("matchedCalls", r.matchedCalls());
        if (r.first() != null) o.set("firstDivergence", divergence(r.first()));
        else o.putNull("firstDivergence");
        ArrayNode list = o.putArray("divergences");
        for (DiffResult.Divergence d : r.divergences()) list.add(divergence(d));
        o.put("listed", r.divergences().size());
        ObjectNode ic = o.putObject("ignoredCounts");
        for (Map.Entry<Expected, Long> e : r.ignoredCounts().entrySet()) ic.put(e.getKey().label(), e.getValue());
        ArrayNode ig = o.putArray("ignored");
        for (DiffResult.Ignored i : r.ignored()) {
            ObjectNode n = ig.addObject();
            n.put("category", i.category().label());
            if (i.aCall() >= 0) n.put("aCall", i.aCall()); else n.putNull("aCall");
            if (i.bCall() >= 0) n.put("bCall", i.bCall()); else n.putNull("bCall");
            n.put("function", i.function());
            n.put("what", i.what());
            n.put("a", i.a());
            n.put("b", i.b());
        }
        o.put("toleratedBuffers", r.toleratedBuffers());
        ArrayNode th = o.putArray("threads");
        for (DiffResult.ThreadPair t : r.threads()) {
            ObjectNode n = th.addObject();
            if (t.aThread() >= 0) n.put("a", t.aThread()); else n.putNull("a");
            if (t.bThread() >= 0) n.put("b", t.bThread()); else n.putNull("b");
            n.put("aCalls", t.aCalls());
            n.put("bCalls", t.bCalls());
        }
        ArrayNode w = o.putArray("warnings");
        r.warnings().forEach(w::add);
        ArrayNode nt = o.putArray("notes");
        r.notes().forEach(nt::add);
        o.set("kernels", kernels(r.kernels()));
        ObjectNode opt = o.putObject("options");
        opt.put("strict", r.options().strict());
        opt.put("elementType", r.options().elementType().name());
        opt.put("rtol", r.options().tolerance().rtol());
        opt.put("atol", r.options().tolerance().atol());
        opt.put("ulp", r.options().tolerance().ulp());
        return o;
    }

    /** Writes the report. */
    public static void write(DiffResult r, Writer out) throws IOException {
        MAPPER.writeValue(new NonClosing(out), tree(r));
        out.write('\n');
        out.flush();
    }

    private static ObjectNode side(DiffResult.Side s) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("path", s.path());
        n.put("program", s.program());
        n.put("driver", s.driver());
        n.put("device", s.device());
        n.put("calls", s.calls());
        n.put("threads", s.threads());
        if (s.note() != null) n.put("note", s.note());
        return n;
    }

    private static ObjectNode divergence(DiffResult.Divergence d) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("number", d.number());
        n.put("kind", d.kind().label());
        n.put("function", d.function());
        n.set("a", ref(d.a()));
        n.set("b", ref(d.b()));
        ArrayNode diffs = n.putArray("differences");
        for (DiffResult.Difference x : d.differences()) {
            ObjectNode e = diffs.addObject();
            e.put("kind", x.kind().label());
            e.put("what", x.what());
            e.put("a", x.a());
            e.put("b", x.b());
            if (x.data() != null) e.set("data", data(x.data()));
        }
        return n;
    }

    private static ObjectNode kernels(DiffResult.Kernels k) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("snapshotsA", k.snapshotsA());
        n.put("snapshotsB", k.snapshotsB());
        n.put("compared", k.compared());
        n.put("unpairedA", k.unpairedA());
        n.put("unpairedB", k.unpairedB());
        n.put("toleratedBuffers", k.toleratedBuffers());
        n.put("divergingCount", k.divergingCount());
        ArrayNode list = n.putArray("diverging");
        for (DiffResult.KernelDivergence kd : k.diverging()) {
            ObjectNode e = list.addObject();
            e.put("number", kd.number());
            e.put("bNumber", kd.bNumber());
            e.put("kernel", kd.kernel());
            if (kd.bKernel() != null) e.put("bKernel", kd.bKernel());
            e.put("module", kd.module());
            e.put("shape", kd.shape());
            e.put("aCall", kd.a().call());
            e.put("bCall", kd.b().call());
            e.put("resultA", kd.resultA());
            e.put("resultB", kd.resultB());
            ArrayNode bufs = e.putArray("buffers");
            for (DiffResult.KernelBuffer b : kd.buffers()) {
                ObjectNode x = bufs.addObject();
                x.put("index", b.index());
                x.put("buffer", b.buffer());
                if (b.bBuffer() != null) x.put("bBuffer", b.bBuffer());
                ArrayNode ps = x.putArray("params");
                b.params().forEach(ps::add);
                x.put("typedFromPtx", b.typedFromPtx());
                x.put("inputsDiffer", b.inputsDiffer());
                x.set("data", data(b.data()));
                x.put("aAfter", String.format("%016x", b.aAfter()));
                x.put("bAfter", String.format("%016x", b.bAfter()));
            }
            ArrayNode pd = e.putArray("parameters");
            kd.parameters().forEach(pd::add);
            if (kd.note() != null) e.put("note", kd.note());
            e.put("locate", kd.locate());
        }
        return n;
    }

    private static ObjectNode ref(DiffResult.CallRef c) {
        ObjectNode n = MAPPER.createObjectNode();
        if (c.present()) {
            n.put("call", c.call());
            n.put("thread", c.thread());
            n.put("function", c.function());
            n.put("text", c.text());
        } else {
            n.putNull("call");
            n.put("after", c.after());
        }
        return n;
    }

    private static ObjectNode data(DiffResult.DataDiff dd) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("buffer", dd.buffer());
        n.put("elementType", dd.elementType());
        n.put("bytes", dd.bytes());
        if (dd.elements() >= 0) n.put("elements", dd.elements());
        if (dd.differing() >= 0) n.put("differing", dd.differing());
        if (dd.firstElement() >= 0) n.put("firstElement", dd.firstElement());
        if (dd.byteOffset() >= 0) n.put("byteOffset", dd.byteOffset());
        n.put("a", dd.a());
        n.put("b", dd.b());
        if (!Double.isNaN(dd.maxAbs())) n.put("maxAbs", dd.maxAbs());
        if (!Double.isNaN(dd.maxRel())) n.put("maxRel", dd.maxRel());
        if (dd.maxUlps() >= 0) n.put("maxUlps", dd.maxUlps());
        if (dd.note() != null) n.put("note", dd.note());
        return n;
    }

    /** Keeps Jackson from closing the caller's writer. */
    private static final class NonClosing extends java.io.FilterWriter {
        NonClosing(Writer w) {
            super(w);
        }

        @Override
        public void close() throws IOException {
            flush();
        }
    }
}
