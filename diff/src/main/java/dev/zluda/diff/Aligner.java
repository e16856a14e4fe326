package dev.zluda.diff;

import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * Aligns two sequences of 64-bit keys: finds a long common subsequence, so that what is left over
 * are the elements present on one side only. Steps, on every range still to align: the common
 * prefix and suffix are matched; then Myers' O(ND) greedy algorithm runs with a budget of work;
 * when a range differs too much for that budget, keys that occur exactly once on each side are
 * matched (the longest increasing run of them, as patience diff does) and the ranges between
 * them are aligned the same way; a range without such anchors is matched greedily, looking a
 * bounded distance ahead on each side. Exact (a longest common subsequence) whenever Myers
 * finishes; linear-time-ish and linear memory otherwise.
 */
public final class Aligner {
    /** Most differences Myers explores in one range (its trace takes O(D²) ints). */
    static final int MAX_D = 2048;
    /** How far the greedy fallback looks ahead on each side. */
    static final int WINDOW = 64;

    private Aligner() {}

    /**
     * Aligns {@code a} with {@code b}.
     *
     * @return for each index of {@code a}, the index of {@code b} it is paired with, or -1; pairs
     *     are increasing on both sides and pair equal keys
     */
    public static int[] align(long[] a, long[] b) {
        int[] match = new int[a.length];
        Arrays.fill(match, -1);
        align(a, 0, a.length, b, 0, b.length, match);
        return match;
    }

    /**
     * Aligns {@code a[aLo, aHi)} with {@code b[bLo, bHi)}, writing pairs into {@code match}
     * (indexed by {@code a}'s index, holding {@code b}'s index); entries outside the ranges are left alone.
     */
    public static void align(long[] a, int aLo, int aHi, long[] b, int bLo, int bHi, int[] match) {
        ArrayDeque<int[]> work = new ArrayDeque<>();
        work.push(new int[] {aLo, aHi, bLo, bHi});
        // total work allowed for Myers and anchoring over all ranges; past it, ranges are matched greedily
        long left = 64L * ((aHi - aLo) + (bHi - bLo)) + 20_000_000L;
        long[] spent = new long[1];
        while (!work.isEmpty()) {
            int[] r = work.pop();
            int al = r[0], ah = r[1], bl = r[2], bh = r[3];
            while (al < ah && bl < bh && a[al] == b[bl]) match[al++] = bl++;
            while (al < ah && bl < bh && a[ah - 1] == b[bh - 1]) match[--ah] = --bh;
            if (al == ah || bl == bh) continue;
            if (left > 0) {
                long budget = Math.min(left, 32L * ((ah - al) + (bh - bl)) + 1_000_000L);
                spent[0] = 0;
                boolean done = myers(a, al, ah, b, bl, bh, match, budget, spent);
                left -= spent[0];
                if (done) continue;
                left -= 4L * ((ah - al) + (bh - bl));
                if (anchors(a, al, ah, b, bl, bh, match, work)) continue;
            }
            greedy(a, al, ah, b, bl, bh, match);
        }
    }

    /** Myers' greedy forward algorithm with traceback; false (nothing written) when over budget. */
    static boolean myers(long[] a, int al, int ah, long[] b, int bl, int bh, int[] match, long budget, long[] spent) {
        int n = ah - al, m = bh - bl;
        int max = Math.min(n + m, MAX_D);
        int off = max + 1;
        int[] v = new int[2 * max + 3];
        int[][] trace = new int[max + 1][];
        long work = 0;
        int found = -1;
        outer:
        for (int d = 0; d <= max; d++) {
            // snapshot of v before step d, for k in [-d, d]
            trace[d] = Arrays.copyOfRange(v, off - d, off + d + 1);
            for (int k = -d; k <= d; k += 2) {
                int x;
                if (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) x = v[off + k + 1];
                else x = v[off + k - 1] + 1;
                int y = x - k;
                int sx = x;
                while (x < n && y < m && a[al + x] == b[bl + y]) { x++; y++; }
                work += 1 + (x - sx);
                v[off + k] = x;
                if (x >= n && y >= m) { found = d; break outer; }
            }
            if (work > budget) { spent[0] = work; return false; }
        }
        spent[0] = work;
        if (found < 0) return false;
        // traceback
        int x = n, y = m;
        for (int d = found; d > 0; d--) {
            int[] pv = trace[d]; // state before step d: index k + d
            int k = x - y;
            int prevK;
            if (k == -d || (k != d && get(pv, d, k - 1) < get(pv, d, k + 1))) prevK = k + 1;
            else prevK = k - 1;
            int px = get(pv, d, prevK), py = px - prevK;
            while (x > px && y > py) { x--; y--; match[al + x] = bl + y; }
            x = px;
            y = py;
        }
        while (x > 0 && y > 0) { x--; y--; match[al + x] = bl + y; }
        return true;
    }

    private static int get(int[] snapshot, int d, int k) {
        int i = k + d;
        return i >= 0 && i < snapshot.length ? snapshot[i] : 0;
    }

    /** Matches keys unique on both sides (their longest increasing run) and queues the gaps; false when there are none. */
    static boolean anchors(long[] a, int al, int ah, long[] b, int bl, int bh, int[] match, ArrayDeque<int[]> work) {
        LongIntMap ca = new LongIntMap(ah - al), cb = new LongIntMap(bh - bl);
        for (int i = al; i < ah; i++) ca.add(a[i], 1);
        for (int j = bl; j < bh; j++) cb.add(b[j], 1);
        LongIntMap posB = new LongIntMap(64);
        for (int j = bl; j < bh; j++) if (cb.get(b[j], 0) == 1 && ca.get(b[j], 0) == 1) posB.put(b[j], j);
        if (posB.size() == 0) return false;
        int[] ai = new int[posB.size()], bj = new int[posB.size()];
        int k = 0;
        for (int i = al; i < ah; i++) {
            int j = posB.get(a[i], -1);
            if (j >= 0 && ca.get(a[i], 0) == 1) { ai[k] = i; bj[k] = j; k++; }
        }
        // longest increasing subsequence of bj (patience sorting)
        int[] tails = new int[k], prev = new int[k];
        int len = 0;
        for (int i = 0; i < k; i++) {
            int lo = 0, hi = len;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (bj[tails[mid]] < bj[i]) lo = mid + 1;
                else hi = mid;
            }
            prev[i] = lo > 0 ? tails[lo - 1] : -1;
            tails[lo] = i;
            if (lo == len) len++;
        }
        int[] chain = new int[len];
        for (int i = len - 1, t = tails[len - 1]; i >= 0; i--, t = prev[t]) chain[i] = t;
        int pa = al, pb = bl;
        for (int c : chain) {
            match[ai[c]] = bj[c];
            if (ai[c] > pa && bj[c] > pb) work.push(new int[] {pa, ai[c], pb, bj[c]});
            pa = ai[c] + 1;
            pb = bj[c] + 1;
        }
        if (pa < ah && pb < bh) work.push(new int[] {pa, ah, pb, bh});
        return true;
    }

    /** Walks both ranges, pairing equal keys and skipping ahead at most {@link #WINDOW} on either side. */
    static void greedy(long[] a, int al, int ah, long[] b, int bl, int bh, int[] match) {
        int i = al, j = bl;
        while (i < ah && j < bh) {
            if (a[i] == b[j]) { match[i++] = j++; continue; }
            boolean found = false;
            for (int k = 1; k <= WINDOW; k++) {
                if (i + k < ah && a[i + k] == b[j]) { i += k; found = true; break; }
                if (j + k < bh && a[i] == b[j + k]) { j += k; found = true; break; }
            }
            if (!found) { i++; j++; }
        }
    }
}
