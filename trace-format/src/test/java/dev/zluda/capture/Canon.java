package dev.zluda.capture;

import java.util.Arrays;
import java.util.stream.Collectors;

/** A canonical text of a record (arrays by content), to compare records read from two files. */
final class Canon {
    private Canon() {}

    static String of(CaptureRecord r) {
        String common = r.seq() + "@" + r.ts() + " t" + r.threadId() + " ";
        return common + switch (r) {
            case CaptureRecord.Enter e -> "E f" + e.functionId() + " d" + e.depth() + " " + Arrays.toString(e.args()) + items(e.data());
            case CaptureRecord.Leave l -> "L " + l.enterSeq() + " r" + l.result() + items(l.data());
            case CaptureRecord.Blob b -> "B " + b.hash() + " " + b.size() + " c" + b.compression() + " " + Hashing.xxh64(b.stored());
            case CaptureRecord.Kernel k -> "K " + k.launchSeq() + " " + k.name() + Arrays.toString(k.params()) + k.buffers() + k.launch();
            default -> r.toString().replaceAll("offset=\\d+", "");
        };
    }

    private static String items(java.util.List<DataItem> d) {
        return d.stream().map(i -> i.param() + ":" + i.kind() + ":" + (i.bytes() == null ? "" : Arrays.toString(i.bytes())) + ":" + i.hash() + ":" + i.size() + ":" + i.stringId())
                .collect(Collectors.joining(",", "{", "}"));
    }
}
