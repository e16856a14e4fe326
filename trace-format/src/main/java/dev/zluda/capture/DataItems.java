package dev.zluda.capture;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A reusable builder of the data items of one ENTER or LEAVE record (FORMAT.md §6.13). Not
 * thread-safe: keep one per thread and {@link #clear()} it before each record.
 */
public final class DataItems {
    byte[] buf = new byte[256];
    int len;

    /** Empties the builder; returns it. */
    public DataItems clear() {
        len = 0;
        return this;
    }

    /** Encoded size in bytes. */
    public int length() {
        return len;
    }

    private void room(int n) {
        if (len + n > buf.length) buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + n));
    }

    private void head(int param, int kind) {
        if (param < 0 || param > 255) throw new IllegalArgumentException("parameter index out of range: " + param);
        room(20);
        len = Varint.put(buf, len, ((long) param << 3) | kind);
    }

    /** The bytes behind parameter {@code param}, kept inline. */
    public DataItems inline(int param, byte[] b, int off, int n) {
        head(param, CaptureFormat.ITEM_INLINE);
        room(10 + n);
        len = Varint.put(buf, len, n);
        System.arraycopy(b, off, buf, len, n);
        len += n;
        return this;
    }

    /** The bytes of a segment, kept inline. */
    public DataItems inline(int param, MemorySegment s) {
        int n = Math.toIntExact(s.byteSize());
        head(param, CaptureFormat.ITEM_INLINE);
        room(10 + n);
        len = Varint.put(buf, len, n);
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, 0, buf, len, n);
        len += n;
        return this;
    }

    /** A 64-bit value behind the pointer (e.g. a returned handle or CUdeviceptr), little-endian, inline. */
    public DataItems inlineLong(int param, long v) {
        head(param, CaptureFormat.ITEM_INLINE);
        room(9);
        buf[len++] = 8;
        len = Varint.putLong(buf, len, v);
        return this;
    }

    /** A 32-bit value behind the pointer (an int or enum output), little-endian, inline. */
    public DataItems inlineInt(int param, int v) {
        head(param, CaptureFormat.ITEM_INLINE);
        room(5);
        buf[len++] = 4;
        for (int i = 0; i < 4; i++) buf[len++] = (byte) (v >>> (8 * i));
        return this;
    }

    /** A C string, inline (UTF-8, no NUL). */
    public DataItems inlineString(int param, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return inline(param, b, 0, b.length);
    }

    /** The data is the BLOB with this hash ({@code size} bytes). */
    public DataItems blob(int param, long hash, long size) {
        head(param, CaptureFormat.ITEM_BLOB);
        room(18);
        len = Varint.putLong(buf, len, hash);
        len = Varint.put(buf, len, size);
        return this;
    }

    /** A C string given by STRING id. */
    public DataItems string(int param, int id) {
        head(param, CaptureFormat.ITEM_STRING);
        len = Varint.put(buf, len, id);
        return this;
    }

    /** Only the hash and size of the data are kept. */
    public DataItems hashOnly(int param, long hash, long size) {
        head(param, CaptureFormat.ITEM_HASH_ONLY);
        len = Varint.putLong(buf, len, hash);
        len = Varint.put(buf, len, size);
        return this;
    }

    /** The pointer was not null but could not be read. */
    public DataItems unreadable(int param) {
        head(param, CaptureFormat.ITEM_UNREADABLE);
        return this;
    }

    /** The first {@code n} of {@code size} bytes. */
    public DataItems truncated(int param, long size, byte[] b, int off, int n) {
        head(param, CaptureFormat.ITEM_TRUNCATED);
        room(20 + n);
        len = Varint.put(buf, len, size);
        len = Varint.put(buf, len, n);
        System.arraycopy(b, off, buf, len, n);
        len += n;
        return this;
    }

    /** Appends an item as the reader delivered it (used when rewriting a capture). */
    public DataItems add(DataItem d) {
        switch (d.kind()) {
            case CaptureFormat.ITEM_INLINE -> inline(d.param(), d.bytes(), 0, d.bytes().length);
            case CaptureFormat.ITEM_BLOB -> blob(d.param(), d.hash(), d.size());
            case CaptureFormat.ITEM_STRING -> string(d.param(), d.stringId());
            case CaptureFormat.ITEM_HASH_ONLY -> hashOnly(d.param(), d.hash(), d.size());
            case CaptureFormat.ITEM_UNREADABLE -> unreadable(d.param());
            case CaptureFormat.ITEM_TRUNCATED -> truncated(d.param(), d.size(), d.bytes(), 0, d.bytes().length);
            default -> throw new IllegalArgumentException("unknown data item kind " + d.kind());
        }
        return this;
    }
}
