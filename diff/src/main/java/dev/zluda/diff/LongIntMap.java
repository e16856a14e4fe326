package dev.zluda.diff;

import java.util.Arrays;

/** An open-addressing hash map from long to int without boxing (linear probing, backward-shift removal). */
final class LongIntMap {
    private long[] keys;
    private int[] values;
    private boolean[] used;
    private int size;
    private int mask;

    LongIntMap(int expected) {
        int cap = Integer.highestOneBit(Math.max(16, expected * 2 - 1)) << 1;
        keys = new long[cap];
        values = new int[cap];
        used = new boolean[cap];
        mask = cap - 1;
    }

    static int hash(long k) {
        long h = k * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }

    /** The value for {@code k}, or {@code missing}. */
    int get(long k, int missing) {
        int i = hash(k) & mask;
        while (used[i]) {
            if (keys[i] == k) return values[i];
            i = (i + 1) & mask;
        }
        return missing;
    }

    void put(long k, int v) {
        int i = hash(k) & mask;
        while (used[i]) {
            if (keys[i] == k) {
                values[i] = v;
                return;
            }
            i = (i + 1) & mask;
        }
        used[i] = true;
        keys[i] = k;
        values[i] = v;
        if (++size * 2 > keys.length) grow();
    }

    /** Adds {@code d} to the value of {@code k} (0 when absent); returns the new value. */
    int add(long k, int d) {
        int i = hash(k) & mask;
        while (used[i]) {
            if (keys[i] == k) return values[i] += d;
            i = (i + 1) & mask;
        }
        used[i] = true;
        keys[i] = k;
        values[i] = d;
        if (++size * 2 > keys.length) grow();
        return d;
    }

    void remove(long k) {
        int i = hash(k) & mask;
        while (used[i]) {
            if (keys[i] == k) break;
            i = (i + 1) & mask;
        }
        if (!used[i]) return;
        // backward-shift deletion
        int j = i;
        while (true) {
            j = (j + 1) & mask;
            if (!used[j]) break;
            int home = hash(keys[j]) & mask;
            // move j to i when home is not cyclically in (i, j]
            boolean inRange = i <= j ? (home > i && home <= j) : (home > i || home <= j);
            if (!inRange) {
                keys[i] = keys[j];
                values[i] = values[j];
                i = j;
            }
        }
        used[i] = false;
        size--;
    }

    int size() {
        return size;
    }

    private void grow() {
        long[] ok = keys;
        int[] ov = values;
        boolean[] ou = used;
        int cap = ok.length * 2;
        keys = new long[cap];
        values = new int[cap];
        used = new boolean[cap];
        mask = cap - 1;
        size = 0;
        for (int i = 0; i < ok.length; i++) if (ou[i]) put(ok[i], ov[i]);
    }

    void clear() {
        Arrays.fill(used, false);
        size = 0;
    }
}
