package dev.zluda.diff;

import java.util.Arrays;

/** A growable int array. */
final class IntList {
    int[] a;
    int n;

    IntList(int cap) {
        a = new int[Math.max(4, cap)];
    }

    void add(int v) {
        if (n == a.length) a = Arrays.copyOf(a, a.length * 2);
        a[n++] = v;
    }

    int get(int i) {
        return a[i];
    }

    int size() {
        return n;
    }

    int[] toArray() {
        return Arrays.copyOf(a, n);
    }
}
