package dev.zluda.diff;

import dev.zluda.capture.Varint;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The normalised facts of every call of one side, in pages of bytes (an address is
 * {@code page << 32 | position}); one call's facts never span two pages.
 */
final class FactStore {
    private static final int PAGE = 4 << 20;
    private final List<byte[]> pages = new ArrayList<>();
    private byte[] cur;
    private int pos;
    private long bytes;

    /** Appends {@code varint count} and {@code len} bytes of {@code body}; returns the address. */
    long append(int count, byte[] body, int len) {
        int need = len + 5;
        if (cur == null || pos + need > cur.length) {
            cur = new byte[Math.max(PAGE, need)];
            pages.add(cur);
            pos = 0;
        }
        long addr = ((long) (pages.size() - 1) << 32) | pos;
        pos = Varint.put(cur, pos, count);
        System.arraycopy(body, 0, cur, pos, len);
        pos += len;
        bytes += need;
        return addr;
    }

    byte[] page(long addr) {
        return pages.get((int) (addr >>> 32));
    }

    static int position(long addr) {
        return (int) addr;
    }

    long bytes() {
        return bytes;
    }

    /** Drops unused space at the end of the last page. */
    void trim() {
        if (cur != null && pos < cur.length) {
            byte[] t = Arrays.copyOf(cur, pos);
            pages.set(pages.size() - 1, t);
            cur = t;
        }
    }
}
