package dev.zluda.capture;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Small deterministic captures for tests, with what was written kept alongside. */
final class TestCaptures {
    private TestCaptures() {}

    /** A tiny function table: ids 0..4. */
    static final List<FunctionDef> FUNCS = List.of(
            new FunctionDef("cuInit", 1), new FunctionDef("cuCtxGetCurrent", 1), new FunctionDef("cuMemAlloc_v2", 2),
            new FunctionDef("cuLaunchKernel", 11), new FunctionDef("cuModuleGetFunction", 3));

    /** One call as the test wrote it. */
    record Written(long tid, int fid, int depth, long[] args, byte[] inData, int result, byte[] outData, boolean left) {}

    static CaptureWriter.Options options(int chunkSize) {
        return CaptureWriter.Options.defaults().withChunkSize(chunkSize).withGrowStep(1 << 20);
    }

    /**
     * Writes {@code calls} calls spread over {@code threads} thread logs, interleaved from one Java
     * thread (deterministic), with a nested call every 7th call, a blob, a marker, a string; the last
     * call of thread 0 is left in flight when {@code leaveOneOpen}.
     */
    static List<Written> write(Path file, int chunkSize, int threads, int calls, boolean leaveOneOpen, boolean close) throws IOException {
        return write(file, chunkSize, threads, calls, leaveOneOpen, close, w -> { });
    }

    /** Like {@link #write(Path, int, int, int, boolean, boolean)}, handing the writer to {@code inspect} before closing it. */
    static List<Written> write(Path file, int chunkSize, int threads, int calls, boolean leaveOneOpen, boolean close,
                               java.util.function.Consumer<CaptureWriter> inspect) throws IOException {
        List<Written> out = new ArrayList<>();
        CaptureWriter w = CaptureWriter.create(file, options(chunkSize), FUNCS);
        ThreadLog[] logs = new ThreadLog[threads];
        for (int t = 0; t < threads; t++) logs[t] = w.thread(1000 + t);
        DataItems items = new DataItems();
        long ts = 1_000_000;
        logs[0].marker("start", ts);
        logs[0].threadName(1000, "main", ts);
        long h = logs[0].blob(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9}, 0, 9, CaptureFormat.COMPRESSION_NONE, ts);
        for (int i = 0; i < calls; i++) {
            int t = i % threads;
            ThreadLog log = logs[t];
            int fid = i % 5;
            long[] args = new long[FUNCS.get(fid).paramCount()];
            for (int a = 0; a < args.length; a++) args[a] = (i * 31L + a * 7L) % 5 == 0 ? 0x7ffd_0000_1000L + a * 8 : (i + a) % 300;
            items.clear();
            byte[] in = null;
            if (fid == 4) {
                in = ("kernel" + (i % 3)).getBytes();
                items.inline(2, in, 0, in.length);
            }
            long e = log.enter(fid, 0, ts += 100, args, in == null ? null : items);
            int slot = out.size();
            out.add(null);
            if (i % 7 == 3) {
                long[] nargs = {i};
                long ne = log.enter(0, 1, ts += 10, nargs, null);
                log.leave(ne, ts += 10, 0, null);
                out.add(new Written(1000 + t, 0, 1, nargs, null, 0, null, true));
            }
            if (leaveOneOpen && i == calls - 1) {
                out.set(slot, new Written(1000 + t, fid, 0, args, in, -1, null, false));
                break;
            }
            items.clear();
            byte[] o = null;
            if (fid == 1 || fid == 2) {
                o = new byte[8];
                for (int k = 0; k < 8; k++) o[k] = (byte) (i + k);
                items.inline(0, o, 0, 8);
            } else if (fid == 3) {
                items.blob(9, h, 9);
            }
            int result = i % 11 == 0 ? 1 : 0;
            log.leave(e, ts += 50, result, items.length() == 0 ? null : items);
            out.set(slot, new Written(1000 + t, fid, 0, args, in, result, o, true));
        }
        inspect.accept(w);
        if (close) w.close();
        return out;
    }

    static byte[] bytes(int chunkSize, int threads, int calls, boolean leaveOneOpen, boolean close) throws IOException {
        Path f = Files.createTempFile("zcap", ".zcap");
        try {
            write(f, chunkSize, threads, calls, leaveOneOpen, close);
            return Files.readAllBytes(f);
        } finally {
            Files.deleteIfExists(f);
        }
    }

    /** The u32 length word at {@code off} of a capture image, per FORMAT.md §3.3. */
    static long frameEnd(byte[] b, long off) {
        int o = (int) off;
        long len = (b[o] & 0xFFL) | (b[o + 1] & 0xFFL) << 8 | (b[o + 2] & 0xFFL) << 16 | (b[o + 3] & 0xFFL) << 24;
        return off + 4 + len;
    }
}
