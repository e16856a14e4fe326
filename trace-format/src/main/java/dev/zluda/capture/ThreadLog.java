package dev.zluda.capture;

import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * One thread's writer into a capture (FORMAT.md): it owns the chunk it writes into and encodes
 * records there, publishing each record's length word last. Not thread-safe: one thread uses it
 * at a time. Every method returns the record's sequence number, or -1 when the capture is full or
 * closed (the record is dropped).
 *
 * <p>Timestamps are monotonic ns ({@link System#nanoTime()}); a timestamp below the thread's
 * previous one is recorded as equal to it.
 */
public final class ThreadLog {
    private static final int SLOTS = 64, SLOT_VALUES = 16;
    private static final java.lang.invoke.VarHandle LONG_ARRAY =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final LZ4Compressor LZ4 = LZ4Factory.fastestInstance().fastCompressor();

    private final CaptureWriter w;
    private final long threadId;
    private final boolean explicit;
    private MemorySegment chunk;
    private Arena chunkArena;
    private long chunkSize; // bytes of the current chunk
    private long pos, limit;
    private long prevSeq, prevTs;
    long lastTs;
    private long explicitSeq = -1;
    private final int[] cacheFid = new int[SLOTS];
    private final long[] cacheVal = new long[SLOTS * SLOT_VALUES];
    /** Staging buffer of the record being encoded; always 8 bytes longer than the largest payload
     * {@link #begin} was asked for, so that {@link #commit} can copy whole 8-byte words. */
    private byte[] buf = new byte[512];
    private boolean finished;

    ThreadLog(CaptureWriter w, long threadId) {
        this.w = w;
        this.threadId = threadId;
        this.explicit = w.options.explicitSeq();
    }

    /** The thread id written in this log's chunk headers. */
    public long threadId() {
        return threadId;
    }

    /** Rewriting mode only: the sequence number of the next record (must exceed every earlier one). */
    public void nextSeq(long seq) {
        explicitSeq = seq;
    }

    // ---------------------------------------------------------------- records

    /**
     * A call begins.
     *
     * @param functionId index into the function table (the spec id)
     * @param depth nesting depth, 0 for a call made by the application
     * @param ts monotonic ns
     * @param args raw argument values (zero-extended C bits); exactly the function's parameter count are used
     * @param items input data, or null
     * @return the ENTER's sequence number (pass it to {@link #leave})
     */
    public long enter(int functionId, int depth, long ts, long[] args, DataItems items) {
        int n = w.paramCounts[functionId];
        if (args.length < n) throw new IllegalArgumentException("function " + functionId + " takes " + n + " arguments, got " + args.length);
        int itemsLen = items == null ? 0 : items.len;
        long seq = begin(32 + n * 10 + itemsLen, ts);
        if (seq < 0) return -1;
        byte[] b = buf;
        int p;
        if (depth < 15) {
            b[0] = (byte) (CaptureFormat.ENTER | (depth << 4));
            p = seqTs(b, 1, seq, ts);
        } else {
            b[0] = (byte) (CaptureFormat.ENTER | (15 << 4));
            p = seqTs(b, 1, seq, ts);
            p = Varint.put(b, p, depth);
        }
        p = Varint.put(b, p, functionId);
        int slot = functionId & (SLOTS - 1);
        int base = slot * SLOT_VALUES;
        long[] cv = cacheVal;
        int cached = Math.min(n, SLOT_VALUES);
        if (cacheFid[slot] == functionId) {
            // the slot's values past n are already 0 (same function, same parameter count)
            for (int i = 0; i < cached; i++) {
                long v = args[i];
                p = Varint.put(b, p, Varint.zigzag(v - cv[base + i]));
                cv[base + i] = v;
            }
            for (int i = cached; i < n; i++) p = Varint.put(b, p, Varint.zigzag(args[i]));
        } else {
            for (int i = 0; i < n; i++) p = Varint.put(b, p, Varint.zigzag(args[i]));
            cacheFid[slot] = functionId;
            for (int i = 0; i < cached; i++) cv[base + i] = args[i];
            for (int i = cached; i < SLOT_VALUES; i++) cv[base + i] = 0;
        }
        if (itemsLen > 0) {
            System.arraycopy(items.buf, 0, b, p, itemsLen);
            p += itemsLen;
        }
        commit(p);
        return seq;
    }

    /**
     * A call returns.
     *
     * @param enterSeq what {@link #enter} returned
     * @param result the CUresult
     * @param items output data, or null
     */
    public long leave(long enterSeq, long ts, int result, DataItems items) {
        int itemsLen = items == null ? 0 : items.len;
        long seq = begin(40 + itemsLen, ts);
        if (seq < 0) return -1;
        byte[] b = buf;
        b[0] = CaptureFormat.LEAVE;
        int p = seqTs(b, 1, seq, ts);
        p = Varint.put(b, p, seq - enterSeq);
        p = Varint.put(b, p, result & 0xFFFFFFFFL);
        if (itemsLen > 0) {
            System.arraycopy(items.buf, 0, b, p, itemsLen);
            p += itemsLen;
        }
        commit(p);
        return seq;
    }

    /**
     * Stores {@code data} as a BLOB unless this capture already holds its hash; returns the hash
     * (refer to it with {@link DataItems#blob}).
     *
     * @param compression {@code CaptureFormat.COMPRESSION_NONE} or {@code COMPRESSION_LZ4} (kept uncompressed when that is not smaller)
     */
    public long blob(byte[] data, int off, int len, int compression, long ts) {
        long hash = Hashing.xxh64(data, off, len);
        if (!w.blobsWritten.add(hash)) return hash;
        byte[] stored = data;
        int so = off, sl = len, comp = CaptureFormat.COMPRESSION_NONE;
        if (compression == CaptureFormat.COMPRESSION_LZ4 && len > 64) {
            byte[] c = new byte[LZ4.maxCompressedLength(len)];
            int cl = LZ4.compress(data, off, len, c, 0, c.length);
            if (cl < len) { stored = c; so = 0; sl = cl; comp = CaptureFormat.COMPRESSION_LZ4; }
        } else if (compression == CaptureFormat.COMPRESSION_ZSTD && len > 64) {
            byte[] c = com.github.luben.zstd.Zstd.compress(Arrays.copyOfRange(data, off, off + len), 3);
            if (c.length < len) { stored = c; so = 0; sl = c.length; comp = CaptureFormat.COMPRESSION_ZSTD; }
        }
        rawBlob(hash, len, comp, stored, so, sl, ts);
        return hash;
    }

    /** Writes a BLOB record as given (already compressed; used when rewriting). Does not deduplicate. */
    public long rawBlob(long hash, long size, int compression, byte[] stored, int off, int len, long ts) {
        long seq = begin(40 + len, ts);
        if (seq < 0) return -1;
        byte[] b = buf;
        int p = 0;
        b[p++] = CaptureFormat.BLOB;
        p = seqTs(b, p, seq, ts);
        p = Varint.putLong(b, p, hash);
        p = Varint.put(b, p, size);
        b[p++] = (byte) compression;
        System.arraycopy(stored, off, b, p, len);
        commit(p + len);
        w.blobsWritten.add(hash);
        return seq;
    }

    /** A MODULE record (FORMAT.md §6.4). */
    public long module(int library, int index, int kind, long imageHash, long size, long handle, String fileName, long ts) {
        byte[] name = fileName.getBytes(StandardCharsets.UTF_8);
        long seq = begin(80 + name.length, ts);
        if (seq < 0) return -1;
        byte[] b = buf;
        int p = 0;
        b[p++] = CaptureFormat.MODULE;
        p = seqTs(b, p, seq, ts);
        p = Varint.put(b, p, library);
        p = Varint.put(b, p, index);
        b[p++] = (byte) kind;
        p = Varint.putLong(b, p, imageHash);
        p = Varint.put(b, p, size);
        p = Varint.put(b, p, handle);
        p = str(b, p, name);
        commit(p);
        return seq;
    }

    /** A KERNEL snapshot record (FORMAT.md §6.5) without the launch section. */
    public long kernel(long launchSeq, long function, String kernelName, byte[] params, List<CaptureRecord.KernelBuffer> buffers, long ts) {
        return kernel(launchSeq, function, kernelName, params, buffers, null, ts);
    }

    /**
     * A KERNEL snapshot record (FORMAT.md §6.5). The BLOBs the buffers and the launch name should be
     * written first ({@link #blob}).
     *
     * @param launchSeq the sequence number of the launch's ENTER (an earlier record)
     * @param launch the launch section, or null to leave it out
     */
    public long kernel(long launchSeq, long function, String kernelName, byte[] params, List<CaptureRecord.KernelBuffer> buffers,
                       CaptureRecord.KernelLaunch launch, long ts) {
        byte[] name = kernelName.getBytes(StandardCharsets.UTF_8);
        long seq = begin(64 + name.length + params.length + buffers.size() * 36 + 90, ts);
        if (seq < 0) return -1;
        if (launchSeq < 0 || launchSeq >= seq) throw new IllegalArgumentException("launch seq " + launchSeq + " is not an earlier record");
        byte[] b = buf;
        int p = 0;
        b[p++] = CaptureFormat.KERNEL;
        p = seqTs(b, p, seq, ts);
        p = Varint.put(b, p, seq - launchSeq);
        p = Varint.put(b, p, function);
        p = str(b, p, name);
        p = str(b, p, params);
        p = Varint.put(b, p, buffers.size());
        for (CaptureRecord.KernelBuffer kb : buffers) {
            p = Varint.put(b, p, kb.devicePointer());
            p = Varint.put(b, p, kb.size());
            p = Varint.putLong(b, p, kb.before());
            p = Varint.putLong(b, p, kb.after());
        }
        if (launch != null) {
            p = Varint.putLong(b, p, launch.moduleHash());
            p = Varint.put(b, p, launch.gridX());
            p = Varint.put(b, p, launch.gridY());
            p = Varint.put(b, p, launch.gridZ());
            p = Varint.put(b, p, launch.blockX());
            p = Varint.put(b, p, launch.blockY());
            p = Varint.put(b, p, launch.blockZ());
            p = Varint.put(b, p, launch.sharedMemBytes());
            p = Varint.put(b, p, launch.result() & 0xFFFFFFFFL);
        }
        commit(p);
        return seq;
    }

    /** A THREAD_NAME record. */
    public long threadName(long namedThread, String name, long ts) {
        byte[] s = name.getBytes(StandardCharsets.UTF_8);
        long seq = begin(40 + s.length, ts);
        if (seq < 0) return -1;
        int p = 0;
        buf[p++] = CaptureFormat.THREAD_NAME;
        p = seqTs(buf, p, seq, ts);
        p = Varint.put(buf, p, namedThread);
        p = str(buf, p, s);
        commit(p);
        return seq;
    }

    /** A MARKER record. */
    public long marker(String text, long ts) {
        byte[] s = text.getBytes(StandardCharsets.UTF_8);
        long seq = begin(32 + s.length, ts);
        if (seq < 0) return -1;
        int p = 0;
        buf[p++] = CaptureFormat.MARKER;
        p = seqTs(buf, p, seq, ts);
        p = str(buf, p, s);
        commit(p);
        return seq;
    }

    /** A PROCESS_END record (reason {@code CaptureFormat.END_*}). */
    public long processEnd(int reason, long status, long ts) {
        long seq = begin(40, ts);
        if (seq < 0) return -1;
        int p = 0;
        buf[p++] = CaptureFormat.PROCESS_END;
        p = seqTs(buf, p, seq, ts);
        buf[p++] = (byte) reason;
        p = Varint.put(buf, p, Varint.zigzag(status));
        p = Varint.put(buf, p, w.ticket.get() >>> CaptureFormat.SEQ_BITS);
        commit(p);
        return seq;
    }

    /** A STRING record; use {@link CaptureWriter#internString} rather than this, except when rewriting. */
    public long stringDef(int id, String text, long ts) {
        byte[] s = text.getBytes(StandardCharsets.UTF_8);
        long seq = begin(32 + s.length, ts);
        if (seq < 0) return -1;
        int p = 0;
        buf[p++] = CaptureFormat.STRING;
        p = seqTs(buf, p, seq, ts);
        p = Varint.put(buf, p, id);
        p = str(buf, p, s);
        commit(p);
        return seq;
    }

    long functionTable(List<FunctionDef> fs, long ts) {
        int size = 32;
        for (FunctionDef f : fs) size += 12 + f.name().length() * 3;
        long seq = begin(size, ts);
        if (seq < 0) throw new IllegalStateException("capture full at its first record");
        int p = 0;
        buf[p++] = CaptureFormat.FUNCTION_TABLE;
        p = seqTs(buf, p, seq, ts);
        p = Varint.put(buf, p, fs.size());
        for (FunctionDef f : fs) {
            if (f.paramCount() < 0 || f.paramCount() > 255) throw new IllegalArgumentException(f.name() + ": parameter count " + f.paramCount());
            p = str(buf, p, f.name().getBytes(StandardCharsets.UTF_8));
            buf[p++] = (byte) f.paramCount();
        }
        commit(p);
        return seq;
    }

    // ---------------------------------------------------------------- framing

    private static int str(byte[] b, int p, byte[] s) {
        p = Varint.put(b, p, s.length);
        System.arraycopy(s, 0, b, p, s.length);
        return p + s.length;
    }

    private int seqTs(byte[] b, int p, long seq, long ts) {
        p = Varint.put(b, p, seq - prevSeq);
        long d = ts - prevTs;
        if (d < 0) { d = 0; ts = prevTs; }
        p = Varint.put(b, p, d);
        prevSeq = seq;
        prevTs = ts;
        lastTs = ts;
        return p;
    }

    /** Makes room for a payload of at most {@code max} bytes and takes the record's sequence number. */
    private long begin(int max, long ts) {
        if (finished || w.full) return -1;
        if (buf.length < max + 8) buf = new byte[Math.max(max + 8, buf.length * 2)];
        long need = 4 + ((max + 3) & ~3L);
        if (chunk == null || pos + need > limit) {
            if (!newChunk(need, ts)) return -1;
        }
        if (explicit) {
            if (explicitSeq < prevSeq || (explicitSeq == prevSeq && pos > CaptureFormat.CHUNK_HEADER_SIZE)) {
                throw new IllegalStateException("sequence number " + explicitSeq + " does not increase");
            }
            return explicitSeq;
        }
        long t = w.ticket.getAndIncrement();
        long seq = t & CaptureFormat.SEQ_MASK;
        if (seq == CaptureFormat.SEQ_MASK) {
            w.full = true;
            return -1;
        }
        return seq;
    }

    /**
     * Copies the staged payload of {@code len} bytes into the chunk in whole little-endian 8-byte
     * words (the bytes past {@code len} are zeroed first, so the frame's padding is zero and the
     * at most 4 bytes written past the padded frame are the next frame's length word, still 0),
     * then publishes the length word with a release store.
     */
    private void commit(int len) {
        byte[] b = buf;
        MemorySegment c = chunk;
        long at = pos;
        int end = (len + 7) & ~7;
        for (int i = len; i < end; i++) b[i] = 0;
        for (int i = 0; i < end; i += 8) c.set(CaptureWriter.LONG, at + 4 + i, (long) LONG_ARRAY.get(b, i));
        CaptureWriter.INT_HANDLE.setRelease(c, at, len);
        pos = at + 4 + ((len + 3) & ~3L);
    }

    private boolean newChunk(long need, long ts) {
        seal();
        long cs = w.chunkSize;
        long bytes = CaptureFormat.CHUNK_HEADER_SIZE + need + CaptureFormat.SEAL_RESERVE;
        int span = (int) ((bytes + cs - 1) / cs);
        long t = w.reserve(span);
        if (t < 0) return false;
        long unit = t >>> CaptureFormat.SEQ_BITS;
        w.reservedUpTo(unit + span);
        long seqBase = explicit ? explicitSeq : t & CaptureFormat.SEQ_MASK;
        Arena[] own = new Arena[1];
        try {
            chunk = w.chunkSegment(unit, span, own);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot map chunk at unit " + unit + " of " + w.file, e);
        }
        chunkArena = own[0];
        chunkSize = (long) span * cs;
        if (ts < lastTs) ts = lastTs;
        chunk.set(CaptureWriter.INT_U, 4, span);
        chunk.set(CaptureWriter.LONG, 8, threadId);
        chunk.set(CaptureWriter.LONG, 16, seqBase);
        chunk.set(CaptureWriter.LONG, 24, ts);
        long check = Hashing.xxh64(chunk.asSlice(4, 28));
        chunk.set(CaptureWriter.INT_U, 32, (int) check);
        CaptureWriter.INT_HANDLE.setRelease(chunk, 0L, CaptureFormat.CHUNK_MAGIC);
        pos = CaptureFormat.CHUNK_HEADER_SIZE;
        limit = chunkSize - CaptureFormat.SEAL_RESERVE;
        prevSeq = seqBase;
        prevTs = ts;
        Arrays.fill(cacheFid, -1);
        return true;
    }

    private void seal() {
        if (chunk == null) return;
        long h = Hashing.xxh64(chunk.asSlice(CaptureFormat.CHUNK_HEADER_SIZE, pos - CaptureFormat.CHUNK_HEADER_SIZE));
        chunk.set(ValueLayout.JAVA_BYTE, pos + 4, (byte) CaptureFormat.SEAL);
        chunk.set(CaptureWriter.LONG, pos + 5, h);
        CaptureWriter.INT_HANDLE.setRelease(chunk, pos, 9);
        chunk = null;
        if (chunkArena != null) {
            chunkArena.close();
            chunkArena = null;
        }
    }

    /** Seals the current chunk; the log takes no more records. Called by {@link CaptureWriter#close()}. */
    void finish() {
        if (finished) return;
        seal();
        finished = true;
    }
}
