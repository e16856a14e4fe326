package dev.zluda.diff;

import dev.zluda.capture.Varint;

import java.util.Arrays;

/**
 * The normalised values of one call ("facts"), encoded compactly into a {@link FactStore} and
 * decoded into reusable arrays. A fact is one value of one parameter: the argument as passed
 * ({@link #ARG}), or an element or struct field of the data behind a pointer as read
 * ({@link #IN}) or written ({@link #OUT}) by the driver. Facts are kept in the order of
 * {@link #order}: inputs (by parameter, role, element, field), then outputs.
 */
final class Facts {
    static final int ARG = 0, IN = 1, OUT = 2;
    /** NULL pointer or handle. */
    static final int T_NULL = 0;
    /** A handle or device pointer: v1 kind, v2 symbol number, v3 offset. */
    static final int T_SYM = 1;
    /** A plain value: v1. */
    static final int T_VALUE = 2;
    /** A host address (not null): v1. */
    static final int T_ADDR = 3;
    /** Data bytes: v1 hash (XXH64), v2 size, v3 item kind; bytes when kept. */
    static final int T_DATA = 4;
    /** A C string: bytes. */
    static final int T_STRING = 5;
    /** The pointer could not be read. */
    static final int T_UNREADABLE = 6;

    // decoded
    int n;
    int[] param = new int[16], role = new int[16], type = new int[16], elem = new int[16], field = new int[16], cat = new int[16];
    long[] v1 = new long[16], v2 = new long[16], v3 = new long[16];
    int[] bOff = new int[16], bLen = new int[16];
    byte[] page;

    private int pos;

    /** Decodes the facts at a store address. */
    Facts decode(FactStore store, long addr) {
        byte[] b = store.page(addr);
        page = b;
        pos = FactStore.position(addr);
        int count = (int) uv(b);
        ensure(count);
        n = count;
        for (int i = 0; i < count; i++) {
            param[i] = (int) uv(b);
            int rt = b[pos++] & 0xFF;
            role[i] = rt & 3;
            int t = rt >>> 2;
            type[i] = t;
            elem[i] = (int) uv(b);
            field[i] = (int) uv(b);
            cat[i] = b[pos++] & 0xFF;
            switch (t) {
                case T_SYM -> { v1[i] = uv(b); v2[i] = uv(b); v3[i] = uv(b); }
                case T_VALUE, T_ADDR -> v1[i] = uv(b);
                case T_DATA -> {
                    v3[i] = b[pos++] & 0xFF;
                    long h = 0;
                    for (int k = 7; k >= 0; k--) h = (h << 8) | (b[pos + k] & 0xFF);
                    pos += 8;
                    v1[i] = h;
                    v2[i] = uv(b);
                    int len = (int) uv(b);
                    bLen[i] = len;
                    bOff[i] = pos;
                    pos += len;
                }
                case T_STRING -> {
                    int len = (int) uv(b);
                    bLen[i] = len;
                    bOff[i] = pos;
                    pos += len;
                }
                default -> { }
            }
        }
        return this;
    }

    private long uv(byte[] b) {
        int x = b[pos++];
        if (x >= 0) return x;
        long v = x & 0x7F;
        int shift = 7;
        while (true) {
            x = b[pos++];
            v |= (long) (x & 0x7F) << shift;
            if (x >= 0) return v;
            shift += 7;
        }
    }

    private void ensure(int c) {
        if (c <= param.length) return;
        int m = Math.max(c, param.length * 2);
        param = Arrays.copyOf(param, m); role = Arrays.copyOf(role, m); type = Arrays.copyOf(type, m);
        elem = Arrays.copyOf(elem, m); field = Arrays.copyOf(field, m); cat = Arrays.copyOf(cat, m);
        v1 = Arrays.copyOf(v1, m); v2 = Arrays.copyOf(v2, m); v3 = Arrays.copyOf(v3, m);
        bOff = Arrays.copyOf(bOff, m); bLen = Arrays.copyOf(bLen, m);
    }

    /** The bytes of fact {@code i} (data or string), copied. */
    byte[] bytes(int i) {
        return Arrays.copyOfRange(page, bOff[i], bOff[i] + bLen[i]);
    }

    /** Sort key of fact {@code i}: outputs after inputs, then parameter, role, element, field. */
    long order(int i) {
        return order(param[i], role[i], elem[i], field[i]);
    }

    static long order(int param, int role, int elem, int field) {
        return ((long) (role == OUT ? 1 : 0) << 62) | ((long) param << 52) | ((long) role << 50)
                | ((long) Math.min(elem, (1 << 30) - 1) << 20) | Math.min(field, (1 << 20) - 1);
    }

    /** Builds the facts of one call, in order, and the call's alignment key. */
    static final class Writer {
        byte[] buf = new byte[512];
        int len;
        int count;
        long key;
        /** The symbols of the inputs, in order (see {@link #ident()}). */
        long symbols;

        void begin(long seed) {
            len = 0;
            count = 0;
            key = mix(0x5DEECE66DL, seed);
            symbols = 0x27BB2EE687B0B0FDL;
        }

        /** The key with the identity of the input symbols: calls that pass other handles differ. */
        long ident() {
            return mix(key, symbols);
        }

        private void room(int n) {
            if (len + n > buf.length) buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + n));
        }

        private void head(int param, int role, int type, int elem, int field, int cat) {
            room(32);
            len = Varint.put(buf, len, param);
            buf[len++] = (byte) (role | (type << 2));
            len = Varint.put(buf, len, elem);
            len = Varint.put(buf, len, field);
            buf[len++] = (byte) cat;
            count++;
            if (role != OUT && cat == 0) key = mix(key, ((long) param << 40) ^ ((long) role << 36) ^ ((long) type << 32) ^ ((long) elem << 12) ^ field);
        }

        void nul(int param, int role, int elem, int field, int cat) {
            head(param, role, T_NULL, elem, field, cat);
        }

        void sym(int param, int role, int elem, int field, int cat, int kind, int sym, long offset) {
            head(param, role, T_SYM, elem, field, cat);
            room(30);
            len = Varint.put(buf, len, kind);
            len = Varint.put(buf, len, sym);
            len = Varint.put(buf, len, offset);
            if (role != OUT && cat == 0) {
                key = mix(key, ((long) kind << 48) ^ offset);
                symbols = mix(symbols, ((long) kind << 32) | sym);
            }
        }

        void value(int param, int role, int elem, int field, int cat, long v) {
            head(param, role, T_VALUE, elem, field, cat);
            room(10);
            len = Varint.put(buf, len, v);
            if (role != OUT && cat == 0) key = mix(key, v);
        }

        void addr(int param, int role, int elem, int field, int cat, long v) {
            head(param, role, T_ADDR, elem, field, cat);
            room(10);
            len = Varint.put(buf, len, v);
        }

        void data(int param, int role, int elem, int field, int cat, int itemKind, long hash, long size, byte[] b, int off, int n) {
            head(param, role, T_DATA, elem, field, cat);
            room(30 + n);
            buf[len++] = (byte) itemKind;
            len = Varint.putLong(buf, len, hash);
            len = Varint.put(buf, len, size);
            len = Varint.put(buf, len, n);
            if (n > 0) System.arraycopy(b, off, buf, len, n);
            len += n;
            if (role != OUT && cat == 0) key = mix(key, size);
        }

        void string(int param, int role, int elem, int field, int cat, byte[] b, int off, int n) {
            head(param, role, T_STRING, elem, field, cat);
            room(10 + n);
            len = Varint.put(buf, len, n);
            System.arraycopy(b, off, buf, len, n);
            len += n;
            if (role != OUT && cat == 0) {
                long h = 0xcbf29ce484222325L;
                for (int i = off; i < off + n; i++) h = (h ^ (b[i] & 0xFF)) * 0x100000001b3L;
                key = mix(key, h);
            }
        }

        void unreadable(int param, int role, int elem, int field, int cat) {
            head(param, role, T_UNREADABLE, elem, field, cat);
        }
    }

    static long mix(long h, long v) {
        h ^= v * 0xC2B2AE3D27D4EB4FL;
        h = Long.rotateLeft(h, 31) * 0x9E3779B97F4A7C15L;
        return h ^ (h >>> 29);
    }
}
