package dev.zluda.cli;

import dev.zluda.capture.CaptureFormat;
import dev.zluda.capture.CaptureHeader;
import dev.zluda.capture.CaptureReader;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.CaptureWriter;
import dev.zluda.capture.DataItem;
import dev.zluda.capture.DataItems;
import dev.zluda.capture.ThreadLog;

import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Test helper: copies a capture record by record with the packed parameter bytes of its kernel
 * snapshots (FORMAT.md §6.5) changed, as if the program had launched its kernels with other
 * arguments; every other record is copied as it is. The manifest and module files are copied too.
 */
final class KernelParamEdit {
    private KernelParamEdit() {}

    static Path copy(Path src, Path dst, UnaryOperator<byte[]> params) throws Exception {
        Files.createDirectories(dst);
        try (var files = Files.list(src)) {
            for (Path f : files.filter(f -> !f.getFileName().toString().equals(CaptureFormat.CAPTURE_FILE)).toList()) {
                if (Files.isRegularFile(f)) Files.copy(f, dst.resolve(f.getFileName()));
            }
        }
        try (CaptureReader r = CaptureReader.open(src.resolve(CaptureFormat.CAPTURE_FILE))) {
            CaptureHeader h = r.header();
            CaptureWriter w = CaptureWriter.create(dst.resolve(CaptureFormat.CAPTURE_FILE),
                    CaptureWriter.Options.defaults().withChunkSize(h.chunkSize()).withGrowStep(4L << 20), r.functions());
            Map<Long, ThreadLog> logs = new HashMap<>();
            Map<Long, Long> seqs = new HashMap<>();
            DataItems items = new DataItems();
            int endReason = CaptureFormat.END_CLOSED;
            long endStatus = 0;
            for (CaptureRecord rec : r) {
                ThreadLog t = logs.computeIfAbsent(rec.threadId(), w::thread);
                switch (rec) {
                    case CaptureRecord.Enter e -> {
                        items.clear();
                        for (DataItem d : e.data()) items.add(d);
                        seqs.put(e.seq(), t.enter(e.functionId(), e.depth(), e.ts(), e.args(), items));
                    }
                    case CaptureRecord.Leave l -> {
                        items.clear();
                        for (DataItem d : l.data()) items.add(d);
                        t.leave(seqs.get(l.enterSeq()), l.ts(), l.result(), items);
                    }
                    case CaptureRecord.Blob b -> {
                        byte[] stored = b.stored().toArray(ValueLayout.JAVA_BYTE);
                        t.rawBlob(b.hash(), b.size(), b.compression(), stored, 0, stored.length, b.ts());
                    }
                    case CaptureRecord.Kernel k -> t.kernel(seqs.get(k.launchSeq()), k.function(), k.name(), params.apply(k.params().clone()),
                            k.buffers(), k.launch(), k.ts());
                    case CaptureRecord.StringDef s -> t.stringDef(s.id(), s.text(), s.ts());
                    case CaptureRecord.ThreadName n -> t.threadName(n.namedThread(), n.name(), n.ts());
                    case CaptureRecord.Marker m -> t.marker(m.text(), m.ts());
                    case CaptureRecord.Module m -> t.module(m.library(), m.index(), m.kind(), m.imageHash(), m.size(), m.handle(), m.fileName(), m.ts());
                    case CaptureRecord.ProcessEnd p -> { endReason = p.reason(); endStatus = p.status(); }
                    default -> { }
                }
            }
            w.close(endReason, endStatus);
        }
        return dst;
    }
}
