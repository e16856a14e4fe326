package dev.zluda.diff;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/** The aligner against a dynamic-programming LCS on small random sequences, and its fallbacks. */
class AlignerTest {
    static int lcs(long[] a, long[] b) {
        int[][] t = new int[a.length + 1][b.length + 1];
        for (int i = a.length - 1; i >= 0; i--)
            for (int j = b.length - 1; j >= 0; j--)
                t[i][j] = a[i] == b[j] ? t[i + 1][j + 1] + 1 : Math.max(t[i + 1][j], t[i][j + 1]);
        return t[0][0];
    }

    static int check(long[] a, long[] b, int[] m) {
        int n = 0, last = -1;
        for (int i = 0; i < a.length; i++) {
            if (m[i] < 0) continue;
            assertTrue(m[i] > last, "pairs must increase");
            assertEquals(a[i], b[m[i]], "pairs must have equal keys");
            last = m[i];
            n++;
        }
        return n;
    }

    @Test
    void findsALongestCommonSubsequence() {
        Random rnd = new Random(42);
        for (int round = 0; round < 300; round++) {
            int n = rnd.nextInt(60), alphabet = 1 + rnd.nextInt(6);
            long[] a = new long[n];
            for (int i = 0; i < n; i++) a[i] = rnd.nextInt(alphabet);
            // b: a with some edits
            long[] b = new long[n + 10];
            int k = 0;
            for (int i = 0; i < n; i++) {
                int r = rnd.nextInt(10);
                if (r == 0) continue;
                if (r == 1 && k < b.length) b[k++] = rnd.nextInt(alphabet);
                if (k < b.length) b[k++] = a[i];
            }
            b = java.util.Arrays.copyOf(b, k);
            assertEquals(lcs(a, b), check(a, b, Aligner.align(a, b)), "round " + round);
        }
    }

    @Test
    void fallbacksStayValidWhenTheSequencesDifferTooMuch() {
        Random rnd = new Random(7);
        int n = 20_000;
        long[] a = new long[n], b = new long[n];
        for (int i = 0; i < n; i++) {
            a[i] = rnd.nextInt(1000);
            b[i] = rnd.nextInt(1000);
        }
        // every 100th element shared and unique: anchors; the rest random (Myers gives up)
        for (int i = 0; i < n; i += 100) a[i] = b[i] = 1_000_000 + i;
        int[] m = Aligner.align(a, b);
        int pairs = check(a, b, m);
        assertTrue(pairs >= n / 100, "anchors are paired: " + pairs);
    }
}
