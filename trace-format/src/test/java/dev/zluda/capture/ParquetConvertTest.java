package dev.zluda.capture;

import dev.zluda.capture.convert.ParquetConverter;
import dev.zluda.capture.text.CallFormatter;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@code zluda convert --to parquet}: the tables read back with parquet-java's own decoders and the
 * example Group API ({@link ParquetRead}, without Hadoop, like the writer), checked against
 * what {@link CaptureReader} and {@link CallAssembler} see. DuckDB, an independent reader, is
 * {@link ParquetDuckDbTest}.
 */
class ParquetConvertTest {
    @TempDir
    Path dir;

    @Test
    void generatedCaptureReadsBackCallByCall() throws Exception {
        Path f = dir.resolve("c.zcap");
        List<TestCaptures.Written> written = TestCaptures.write(f, 4096, 3, 300, true, true);
        Path out = dir.resolve("pq");
        ParquetConverter.Result res;
        Map<Long, Call> bySeq = new HashMap<>();
        String[] formatted;
        try (Capture cap = Capture.open(f)) {
            res = ParquetConverter.write(cap, out);
        }
        // what the capture holds, through the reader and the assembler
        List<Call> flat = new ArrayList<>();
        CallFormatter fmt;
        try (Capture cap = Capture.open(f)) {
            CallAssembler asm = new CallAssembler(c -> collect(c, flat));
            fmt = new CallFormatter(cap::specFunction, cap::functionName, asm.strings());
            for (CaptureRecord r : cap.reader()) asm.accept(r);
            asm.finish();
            formatted = flat.stream().map(fmt::format).toArray(String[]::new);
        }
        for (Call c : flat) bySeq.put(c.enter().seq(), c);
        assertEquals(written.size(), flat.size());
        assertEquals(flat.size(), res.calls());
        for (String t : ParquetConverter.TABLES) assertTrue(Files.isRegularFile(out.resolve(t)), t);

        List<Group> calls = read(out.resolve(ParquetConverter.CALLS));
        assertEquals(flat.size(), calls.size());
        Map<Long, Group> callRow = new HashMap<>();
        int inFlight = 0;
        for (Group g : calls) {
            long seq = g.getLong("seq", 0);
            Call c = bySeq.get(seq);
            assertNotNull(c, "call at seq " + seq);
            callRow.put(seq, g);
            assertEquals(c.ordinal(), g.getLong("call", 0));
            assertEquals(c.threadId(), g.getLong("thread", 0));
            assertEquals(c.enter().depth(), g.getInteger("depth", 0));
            assertEquals(TestCaptures.FUNCS.get(c.enter().functionId()).name(), g.getString("function", 0));
            assertEquals(c.enter().functionId(), g.getInteger("function_id", 0));
            assertEquals(c.inFlight(), g.getBoolean("in_flight", 0));
            if (c.inFlight()) {
                inFlight++;
                assertEquals(0, g.getFieldRepetitionCount("duration_ns"));
                assertEquals(0, g.getFieldRepetitionCount("result"));
                assertEquals(0, g.getFieldRepetitionCount("leave_seq"));
            } else {
                assertEquals(c.leave().seq(), g.getLong("leave_seq", 0));
                assertEquals(c.durationNs(), g.getLong("duration_ns", 0));
                assertEquals(Integer.toUnsignedLong(c.leave().result()), g.getLong("result", 0));
                assertEquals(fmt.result(c.leave().result()), g.getString("result_name", 0));
            }
            if (c.enter().depth() == 0) assertEquals(0, g.getFieldRepetitionCount("parent_seq"));
            else assertTrue(bySeq.get(g.getLong("parent_seq", 0)).children().contains(c), "parent of " + seq);
        }
        assertEquals(1, inFlight);
        // start_ns is relative to the header's start: equal offsets give equal differences
        Call a = flat.get(0), b = flat.get(flat.size() - 1);
        assertEquals(b.enter().ts() - a.enter().ts(),
                callRow.get(b.enter().seq()).getLong("start_ns", 0) - callRow.get(a.enter().seq()).getLong("start_ns", 0));

        // arguments: raw values, and texts that put together give zluda dump's line for the call
        List<Group> args = read(out.resolve(ParquetConverter.ARGUMENTS));
        assertEquals(flat.stream().mapToLong(c -> c.enter().args().length).sum(), args.size());
        assertEquals(args.size(), res.arguments());
        Map<Long, List<Group>> argsOf = new HashMap<>();
        for (Group g : args) argsOf.computeIfAbsent(g.getLong("call_seq", 0), k -> new ArrayList<>()).add(g);
        for (int i = 0; i < flat.size(); i++) {
            Call c = flat.get(i);
            List<Group> as = argsOf.getOrDefault(c.enter().seq(), List.of());
            StringBuilder sb = new StringBuilder(TestCaptures.FUNCS.get(c.enter().functionId()).name()).append('(');
            for (int p = 0; p < as.size(); p++) {
                Group g = as.get(p);
                assertEquals(p, g.getInteger("param", 0));
                assertEquals(c.enter().args()[p], g.getLong("value", 0));
                if (p > 0) sb.append(", ");
                sb.append(g.getString("name", 0)).append(": ").append(g.getString("text", 0));
            }
            String expect = formatted[i];
            assertEquals(expect.substring(0, expect.lastIndexOf(") -> ") + 1), sb.append(')').toString());
        }
        List<Group> blobs = read(out.resolve(ParquetConverter.BLOBS));
        assertEquals(1, blobs.size());
        assertEquals(String.format("%016x", Hashing.xxh64(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9}, 0, 9)), blobs.get(0).getString("hash", 0));
        assertEquals(9, blobs.get(0).getLong("size", 0));
        assertEquals("none", blobs.get(0).getString("compression_name", 0));

        // launches: every cuLaunchKernel, dims from its arguments
        List<Group> launches = read(out.resolve(ParquetConverter.KERNEL_LAUNCHES));
        List<Call> expected = flat.stream().filter(c -> c.enter().functionId() == 3).toList();
        assertEquals(expected.size(), launches.size());
        for (Group g : launches) {
            Call c = bySeq.get(g.getLong("call_seq", 0));
            long[] x = c.enter().args();
            assertEquals("cuLaunchKernel", g.getString("function", 0));
            assertEquals(x[0], g.getLong("kernel", 0));
            // unsigned int parameters: the low 32 bits (the generator's values are wider)
            assertEquals(x[1] & 0xFFFF_FFFFL, g.getLong("grid_x", 0));
            assertEquals(x[6] & 0xFFFF_FFFFL, g.getLong("block_z", 0));
            assertEquals(x[7] & 0xFFFF_FFFFL, g.getLong("shared_mem_bytes", 0));
            assertEquals(x[8], g.getLong("stream", 0));
        }
        assertEquals(0, read(out.resolve(ParquetConverter.MODULES)).size());

        // the footer: ZSTD pages, the capture's facts
        ParquetMetadata footer = ParquetRead.footer(out.resolve(ParquetConverter.CALLS));
        for (BlockMetaData bm : footer.getBlocks()) {
            for (ColumnChunkMetaData cc : bm.getColumns()) assertEquals(CompressionCodecName.ZSTD, cc.getCodec());
        }
        assertEquals("true", footer.getFileMetaData().getKeyValueMetaData().get("zluda.capture.ended_cleanly"));
    }

    /** Module records, kernel names from cuModuleGetFunction, and cuLaunchKernelEx's dims from its CUlaunchConfig. */
    @Test
    void modulesAndLaunchesWithNames() throws Exception {
        Path f = dir.resolve("k.zcap");
        List<FunctionDef> fns = List.of(new FunctionDef("cuModuleGetFunction", 3), new FunctionDef("cuLaunchKernel", 11),
                new FunctionDef("cuLaunchKernelEx", 4));
        long hmod = 0x5500_0000_1000L, hfunc = 0x5500_0000_2000L, stream = 0x5500_0000_3000L;
        try (CaptureWriter w = CaptureWriter.create(f, TestCaptures.options(4096), fns)) {
            ThreadLog t = w.thread(7);
            DataItems d = new DataItems();
            long ts = 1000;
            byte[] ptx = "// ptx".getBytes();
            long img = t.blob(ptx, 0, ptx.length, CaptureFormat.COMPRESSION_NONE, ts++);
            t.module(1, 1, CaptureFormat.MODULE_PTX, img, ptx.length, hmod, "module_0001_01.ptx", ts++);
            long e = t.enter(0, 0, ts++, new long[] {0x7ffd_0000_0010L, hmod, 0x7ffd_0000_0100L}, d.clear().inlineString(2, "_Z6vecAddPfS_S_i"));
            t.leave(e, ts++, 0, d.clear().inlineLong(0, hfunc));
            e = t.enter(1, 0, ts++, new long[] {hfunc, 4, 2, 1, 256, 1, 1, 48, stream, 0x7ffd_0000_0200L, 0}, null);
            t.leave(e, ts++, 0, null);
            // CUlaunchConfig: 7 unsigned ints, padding, hStream, attrs, numAttrs
            ByteBuffer cfg = ByteBuffer.allocate(56).order(ByteOrder.LITTLE_ENDIAN);
            cfg.putInt(0, 8).putInt(4, 3).putInt(8, 2).putInt(12, 128).putInt(16, 2).putInt(20, 1).putInt(24, 1024).putLong(32, stream);
            e = t.enter(2, 0, ts++, new long[] {0x7ffd_0000_0300L, hfunc, 0x7ffd_0000_0200L, 0}, d.clear().inline(0, cfg.array(), 0, 56));
            t.leave(e, ts++, 0, null);
        }
        Path out = dir.resolve("pq");
        try (Capture cap = Capture.open(f)) {
            ParquetConverter.Result r = ParquetConverter.write(cap, out);
            assertEquals(new ParquetConverter.Result(cap.reader().status(), 3, 18, 1, 1, 2), r);
        }
        List<Group> mods = read(out.resolve(ParquetConverter.MODULES));
        assertEquals(1, mods.size());
        Group m = mods.get(0);
        assertEquals("ptx", m.getString("kind_name", 0));
        assertEquals(hmod, m.getLong("handle", 0));
        assertEquals("module_0001_01.ptx", m.getString("file_name", 0));
        assertEquals(String.format("%016x", Hashing.xxh64("// ptx".getBytes())), m.getString("image_hash", 0));
        List<Group> ls = read(out.resolve(ParquetConverter.KERNEL_LAUNCHES));
        assertEquals(2, ls.size());
        for (Group g : ls) {
            assertEquals("_Z6vecAddPfS_S_i", g.getString("kernel_name", 0));
            assertEquals(hfunc, g.getLong("kernel", 0));
            assertEquals(stream, g.getLong("stream", 0));
        }
        Group ex = ls.get(1);
        assertEquals("cuLaunchKernelEx", ex.getString("function", 0));
        assertEquals(List.of(8L, 3L, 2L, 128L, 2L, 1L, 1024L), List.of(ex.getLong("grid_x", 0), ex.getLong("grid_y", 0), ex.getLong("grid_z", 0),
                ex.getLong("block_x", 0), ex.getLong("block_y", 0), ex.getLong("block_z", 0), ex.getLong("shared_mem_bytes", 0)));
        Group args = read(out.resolve(ParquetConverter.ARGUMENTS)).get(2);
        assertEquals("name", args.getString("name", 0));
        assertEquals("\"_Z6vecAddPfS_S_i\"", args.getString("text", 0));
    }

    /** The real captures recorded on the H200: every table has the rows the reader sees. */
    @Test
    void committedH200CapturesConvertCompletely() throws Exception {
        Path root = Path.of(System.getProperty("zluda.repo", "..")).resolve("samples/traces/h200");
        List<Path> caps;
        try (Stream<Path> s = Files.list(root)) {
            caps = s.filter(p -> Files.isRegularFile(p.resolve(CaptureFormat.CAPTURE_FILE))).sorted().toList();
        }
        assertFalse(caps.isEmpty(), "no captures under " + root);
        for (Path c : caps) {
            Counts want = count(c);
            Path out = dir.resolve(c.getFileName().toString());
            ParquetConverter.Result res;
            try (Capture cap = Capture.open(c)) {
                res = ParquetConverter.write(cap, out);
            }
            String what = c.getFileName().toString();
            assertEquals(want.calls, res.calls(), what);
            assertEquals(want.calls, rows(out.resolve(ParquetConverter.CALLS)), what + " calls");
            assertEquals(want.args, rows(out.resolve(ParquetConverter.ARGUMENTS)), what + " arguments");
            assertEquals(want.blobs, rows(out.resolve(ParquetConverter.BLOBS)), what + " blobs");
            assertEquals(want.modules, rows(out.resolve(ParquetConverter.MODULES)), what + " modules");
            assertEquals(want.launches, rows(out.resolve(ParquetConverter.KERNEL_LAUNCHES)), what + " launches");
            // and per function, through the Group API
            Map<String, Integer> byFn = new TreeMap<>();
            for (Group g : read(out.resolve(ParquetConverter.CALLS))) byFn.merge(g.getString("function", 0), 1, Integer::sum);
            assertEquals(want.byFunction, byFn, what);
        }
    }

    /** What the capture holds, counted from the reader's records (not from the converter). */
    record Counts(long calls, long args, long blobs, long modules, long launches, Map<String, Integer> byFunction) {}

    static Counts count(Path capture) throws CaptureException {
        long calls = 0, args = 0, blobs = 0, modules = 0, launches = 0;
        Map<String, Integer> byFn = new TreeMap<>();
        try (CaptureReader r = CaptureReader.open(capture.resolve(CaptureFormat.CAPTURE_FILE))) {
            for (CaptureRecord rec : r) {
                switch (rec) {
                    case CaptureRecord.Enter e -> {
                        calls++;
                        args += e.args().length;
                        String n = r.functions().get(e.functionId()).name();
                        byFn.merge(n, 1, Integer::sum);
                        if (n.startsWith("cuLaunchKernel") || n.startsWith("cuLaunchCooperativeKernel")) launches++;
                    }
                    case CaptureRecord.Blob b -> blobs++;
                    case CaptureRecord.Module m -> modules++;
                    default -> { }
                }
            }
        }
        return new Counts(calls, args, blobs, modules, launches, byFn);
    }

    private static void collect(Call c, List<Call> out) {
        out.add(c);
        for (Call k : c.children()) collect(k, out);
    }

    static List<Group> read(Path p) throws IOException {
        return ParquetRead.groups(p);
    }

    static long rows(Path p) throws IOException {
        return ParquetRead.rows(p);
    }
}
