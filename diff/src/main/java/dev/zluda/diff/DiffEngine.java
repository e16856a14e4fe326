package dev.zluda.diff;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zluda.capture.Call;
import dev.zluda.capture.CallAssembler;
import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureException;
import dev.zluda.capture.CaptureFormat;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.DataItem;
import dev.zluda.capture.KernelSnapshots;
import dev.zluda.capture.ReadStatus;
import dev.zluda.replay.KernelReplay;
import dev.zluda.spec.CudaApi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The differential debugger's engine: compares two captures call by call.
 *
 * <ol>
 * <li>Each capture is read once (both at the same time) into a compact index: per call a 64-bit
 *     key (function, nesting depth and the arguments after normalisation, without symbol numbers
 *     or data contents) and its normalised facts (see {@link Normaliser}).</li>
 * <li>Threads are paired by their order of creation and the functions they call.</li>
 * <li>Each pair of threads is aligned on the keys ({@link Aligner}); calls left over are then
 *     paired by function where they sit between the same aligned calls (a call whose arguments
 *     changed), and the rest are calls present on one side only.</li>
 * <li>Paired calls are compared: result, arguments, outputs, data. Symbols compare equal when they
 *     correspond: the first time two symbols meet in paired calls they are tied to each other, and
 *     from then on each must meet only its partner. Differences of the {@link Expected} kinds are
 *     counted as ignored unless {@link DiffOptions#strict()}.</li>
 * <li>Data buffers whose hashes differ are compared element by element ({@link ElementType}) when
 *     both captures hold the bytes; within the tolerance they count as equal.</li>
 * <li>Kernel snapshots (FORMAT.md §6.5) of paired launch calls are compared buffer by buffer: the
 *     after-images whose hashes differ element by element, typed by the kernel's PTX
 *     ({@link KernelReplay#bufferTypes}) where it says, else as {@link DiffOptions#elementType()};
 *     a difference beyond the tolerance (or another kernel result) makes the launch call diverge
 *     with kind {@link DiffKind#KERNEL} and is listed in {@link DiffResult#kernels()}.</li>
 * </ol>
 *
 * <p>Capture A is the reference (usually NVIDIA's), B the one under test. Memory: about 60 bytes per
 * call and side plus the normalised values (and inline data up to 256 MiB per side).
 */
public final class DiffEngine {
    private static final int MASK_DATA_CANDIDATE = 1 << 16;
    private static final boolean TIMING = Boolean.getBoolean("zluda.diff.timing");

    private final DiffOptions options;
    private final CudaApi api = CudaApi.get();
    private Types types;
    private CallFacts sa, sb;
    private Links links;
    private final Facts fa = new Facts(), fb = new Facts();
    private final Map<Expected, Long> ignoredCounts = new EnumMap<>(Expected.class);
    private final List<DiffResult.Ignored> ignored = new ArrayList<>();
    private final Map<Expected, Integer> ignoredExamples = new EnumMap<>(Expected.class);
    private final Map<Long, byte[]> refetchedA = new HashMap<>(), refetchedB = new HashMap<>();
    private Render ra, rb;
    private int[] partnerA, partnerB;
    private java.util.function.BooleanSupplier cancelled = () -> false;

    /** An engine with these options. */
    public DiffEngine(DiffOptions options) {
        this.options = options;
    }

    /**
     * Opens two captures (directories, {@code .zcap} files or packs) and compares them.
     *
     * @throws CaptureException naming the file and the problem when one cannot be read
     */
    public static DiffResult diff(Path a, Path b, DiffOptions options) throws CaptureException {
        try (Capture ca = Capture.open(a); Capture cb = Capture.open(b)) {
            return new DiffEngine(options).diff(ca, cb);
        }
    }

    /** One diverging call or pair (internal, compact). */
    private static final class Div {
        int a = -1, b = -1;
        long aAfter, bAfter;
        long pos;
        int mask;
        List<Long> candidates;
        Map<Long, DiffResult.DataDiff> data;
        List<DiffResult.Difference> kernel;
    }

    /**
     * Makes {@link #diff(Capture, Capture)} stop, throwing {@link java.util.concurrent.CancellationException},
     * once {@code cancelled} says so: it is asked while both captures are read (every 65,536 records)
     * and between the steps of the comparison. For a viewer's Cancel button. Returns this engine.
     */
    public DiffEngine cancelWhen(java.util.function.BooleanSupplier cancelled) {
        this.cancelled = cancelled;
        return this;
    }

    private void checkCancelled() {
        if (cancelled.getAsBoolean()) throw new java.util.concurrent.CancellationException("comparison cancelled");
    }

    /**
     * Compares two open captures (both stay open; the engine is used once).
     *
     * @throws java.util.concurrent.CancellationException when {@link #cancelWhen} said to stop
     */
    public DiffResult diff(Capture ca, Capture cb) {
        if (types != null) throw new IllegalStateException("a DiffEngine compares one pair of captures");
        long t0 = System.nanoTime();
        types = new Types(api);
        types.addLibraries(ca, cb);
        CallFacts.Names names = new CallFacts.Names();
        boolean strict = options.strict();
        checkCancelled();
        java.util.function.BooleanSupplier stop = cancelled;
        boolean internals = options.comparesLibraryInternals();
        CompletableFuture<CallFacts> fbFuture = CompletableFuture.supplyAsync(() -> CallFacts.build(cb, types, names, strict, internals, stop));
        try {
            sa = CallFacts.build(ca, types, names, strict, internals, stop);
        } catch (java.util.concurrent.CancellationException e) {
            fbFuture.cancel(false);
            throw e;
        }
        try {
            sb = fbFuture.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            throw e;
        }
        long t1 = System.nanoTime();
        checkCancelled();
        ra = new Render(sa);
        rb = new Render(sb);
        levelA = level(ca);
        levelB = level(cb);

        // 1. threads, alignment, comparison. Fast path: align on the keys with the side-local symbol
        // numbers; when the comparison then tied every symbol to the one with the same number, the
        // numbering agrees and the alignment stands.
        List<int[]> threadPairs = matchThreads();
        int[] partnerA = new int[sa.n], partnerB = new int[sb.n];
        alignAll(threadPairs, sa.ident, sb.ident, partnerA, partnerB);
        long t2 = System.nanoTime();
        checkCancelled();
        List<Div> divs = compareAll(threadPairs, partnerA, partnerB);
        if (!links.identity()) {
            // the numbers are shifted (a handle created on one side only, ...): align without the
            // identity of handles, tie the symbols of the calls paired that way, and align again with
            // B's symbols translated into A's numbers, so that calls passing other handles do not pair
            alignAll(threadPairs, sa.key, sb.key, partnerA, partnerB);
            Links pre = new Links();
            for (int[] tp : threadPairs) if (tp[0] >= 0 && tp[1] >= 0) tie(pre, tp[0], tp[1], partnerA);
            alignAll(threadPairs, sa.ident, translate(pre), partnerA, partnerB);
            divs = compareAll(threadPairs, partnerA, partnerB);
        }
        this.partnerA = partnerA;
        this.partnerB = partnerB;
        long matched = 0;
        for (int p : partnerA) if (p >= 0) matched++;
        for (int p : reorderA) if (p >= 0) matched++;
        long t3 = System.nanoTime();
        checkCancelled();
        // 3. data buffers, typed
        long tolerated = evaluateData(divs);
        DiffResult.Kernels kernels = compareKernels(ca, cb, divs);
        if (TIMING) System.err.printf("zluda diff: read %.0f ms, align %.0f ms, compare %.0f ms, data %.0f ms, %s%n", (t1 - t0) / 1e6, (t2 - t1) / 1e6,
                (t3 - t2) / 1e6, (System.nanoTime() - t3) / 1e6, links.identity() ? "numbering agrees" : "numbering shifted: aligned twice more");
        divs.removeIf(d -> d.mask == 0);
        divs.sort((x, y) -> {
            int c = Long.compare(x.pos, y.pos);
            if (c != 0) return c;
            long xb = x.b >= 0 ? sb.ordinal(x.b) : x.bAfter, yb = y.b >= 0 ? sb.ordinal(y.b) : y.bAfter;
            return Long.compare(xb, yb);
        });

        // 4. the result
        Map<DiffKind, Long> counts = new EnumMap<>(DiffKind.class);
        for (DiffKind k : DiffKind.values()) counts.put(k, 0L);
        for (Div d : divs) for (DiffKind k : DiffKind.values()) if ((d.mask & (1 << k.ordinal())) != 0) counts.merge(k, 1L, Long::sum);
        List<DiffResult.Divergence> list = new ArrayList<>();
        int heat = options.heatmaps();
        for (int i = 0; i < Math.min(divs.size(), options.limit()); i++) {
            Div d = divs.get(i);
            boolean withHeat = false;
            if (heat > 0 && (d.mask & (1 << DiffKind.DATA.ordinal())) != 0) {
                withHeat = true;
                heat--;
            }
            list.add(detail(i + 1, d, withHeat));
        }
        List<String> manifestWarnings = manifestDifferences(ca, cb);
        List<DiffResult.ThreadPair> tps = new ArrayList<>();
        for (int[] tp : threadPairs) {
            tps.add(new DiffResult.ThreadPair(tp[0] >= 0 ? sa.threadIds.get(tp[0]) : -1, tp[1] >= 0 ? sb.threadIds.get(tp[1]) : -1,
                    tp[0] >= 0 ? sa.threadCalls.get(tp[0]).size() : 0, tp[1] >= 0 ? sb.threadCalls.get(tp[1]).size() : 0));
        }
        List<String> warnings = new ArrayList<>(manifestWarnings);
        warnings(sa, "A", warnings);
        warnings(sb, "B", warnings);
        String pa = program(ca), pb = program(cb);
        if (!pa.isEmpty() && !pb.isEmpty() && !pa.equals(pb)) {
            String na = pa.split(" ", 2)[0], nb = pb.split(" ", 2)[0];
            warnings.add(na.equals(nb) ? "the captures ran " + na + " with other arguments: A ran " + pa + ", B ran " + pb
                    : "the captures are of different programs: A ran " + pa + ", B ran " + pb);
        }
        Map<Expected, Long> ic = new LinkedHashMap<>();
        ignoredCounts.entrySet().stream().sorted((x, y) -> Long.compare(y.getValue(), x.getValue())).forEach(e -> ic.put(e.getKey(), e.getValue()));
        return new DiffResult(side(ca, sa), side(cb, sb), list.isEmpty() ? null : list.getFirst(), counts, divs.size(), List.copyOf(list),
                ic, List.copyOf(ignored), tolerated, List.copyOf(tps), List.copyOf(warnings), notes(kernels), matched, options, kernels,
                resultsCompared(kernels));
    }

    /** The capture levels of A and B (the manifest's {@code capture.data}: {@code calls}, {@code replay}; "" when it does not say). */
    private String levelA = "", levelB = "";
    /** One-sided host data left out because of the capture levels (counted under {@link Expected#CAPTURE_LEVEL}, or, strict, as divergences). */
    private long levelOnly;

    /** A capture's level: {@code calls} (no host data kept), {@code replay} (host data kept), or "" when its manifest does not say. */
    static String level(Capture c) {
        return c.manifest().path("capture").path("data").asText("");
    }

    /**
     * Whether one-sided host data at {@code inA}'s side is there only because that side was
     * recorded at level {@code replay} and the other at level {@code calls}.
     */
    private boolean levelGap(boolean inA) {
        String mine = inA ? levelA : levelB, other = inA ? levelB : levelA;
        return mine.equals("replay") && other.equals("calls");
    }

    /**
     * Whether anything carrying results was compared: host data both captures keep (neither at level
     * {@code calls}), or a pair of kernel snapshots.
     */
    private boolean resultsCompared(DiffResult.Kernels k) {
        return k.compared() > 0 || !levelA.equals("calls") && !levelB.equals("calls");
    }

    /** What the captures hold differently (capture levels, kernel snapshots), or both lack, said in the report's header. */
    private List<String> notes(DiffResult.Kernels k) {
        List<String> notes = new ArrayList<>();
        if (levelA.equals("calls") && levelB.equals("calls")) {
            notes.add("both captures were recorded at level calls: device-to-host data was not recorded, so results copied back were"
                    + " not compared" + (k.compared() > 0 ? " (the snapshotted kernels' after-images were)" : "")
                    + "; record with --level replay (zluda run --zluda-trace --level replay -- APP) to compare them"
                    + (k.compared() > 0 ? "" : ", and with --capture-kernels REGEX to compare kernel parameters and the buffers kernels write"));
        }
        if (!levelA.isEmpty() && !levelB.isEmpty() && !levelA.equals(levelB)) {
            StringBuilder sb = new StringBuilder("A was recorded at level " + levelA + ", B at level " + levelB
                    + ": host data (the bytes of host buffers the calls passed or got back) is compared only where both have it");
            if (levelOnly > 0) {
                sb.append("; ").append(levelOnly).append(levelOnly == 1 ? " buffer" : " buffers").append(" kept by ")
                        .append(levelA.equals("replay") ? "A" : "B").append(" only ")
                        .append(options.strict() ? "counted as divergences (--strict)" : "left out (ignored: capture level; --strict counts them)");
            }
            notes.add(sb.toString());
        }
        if (k.snapshotsA() > 0 && k.snapshotsB() == 0 || k.snapshotsA() == 0 && k.snapshotsB() > 0) {
            boolean inA = k.snapshotsA() > 0;
            notes.add((inA ? "A" : "B") + " was recorded with kernel snapshots (--capture-kernels), " + (inA ? "B" : "A")
                    + " without: the kernels' buffers are compared only where both have a snapshot (here nowhere); record both with"
                    + " --capture-kernels REGEX to compare them");
        }
        return List.copyOf(notes);
    }

    /**
     * The calls of both captures side by side as this engine aligned them, for a viewer; after
     * {@link #diff(Capture, Capture)}, while both captures are still open.
     *
     * @throws IllegalStateException before {@code diff}
     */
    public Alignment alignment() {
        if (partnerA == null) throw new IllegalStateException("alignment() before diff()");
        int[] aOrder = inOrder(sa), bOrder = inOrder(sb);
        long[] bPos = positionsOfB(partnerB);
        int rows = sa.n;
        for (int j = 0; j < sb.n; j++) if (partnerB[j] < 0) rows++;
        long[] aCall = new long[rows], bCall = new long[rows];
        int[] aIdx = new int[rows], bIdx = new int[rows];
        int r = 0, k = 0;
        for (int i = 0; i <= aOrder.length; i++) {
            long ord = i < aOrder.length ? sa.ordinal(aOrder[i]) : Long.MAX_VALUE;
            // B's calls without a partner that belong before this call of A (their position only grows in B's order)
            for (; k < bOrder.length; k++) {
                int y = bOrder[k];
                if (partnerB[y] >= 0) continue;
                if (bPos[y] >= ord) break;
                aCall[r] = -1;
                aIdx[r] = -1;
                bCall[r] = sb.ordinal(y);
                bIdx[r++] = y;
            }
            if (i == aOrder.length) break;
            int x = aOrder[i], y = partnerA[x];
            aCall[r] = ord;
            aIdx[r] = x;
            bCall[r] = y >= 0 ? sb.ordinal(y) : -1;
            bIdx[r++] = y;
        }
        Render rA = new Render(sa), rB = new Render(sb);
        return new Alignment(aCall, bCall, aIdx, bIdx, new Alignment.SideTexts(sa::function, rA::result, rA::text),
                new Alignment.SideTexts(sb::function, rB::result, rB::text));
    }

    /** A side's call indexes in order of their numbers. */
    private static int[] inOrder(CallFacts s) {
        long[] packed = new long[s.n];
        for (int i = 0; i < s.n; i++) packed[i] = (s.ordinal(i) << 32) | i;
        Arrays.sort(packed);
        int[] out = new int[s.n];
        for (int i = 0; i < s.n; i++) out[i] = (int) packed[i];
        return out;
    }

    // ------------------------------------------------------------------ threads and alignment

    /** Pairs of thread indexes (A, B); -1 for a thread on one side only. In order of A's threads, then B's leftovers. */
    private List<int[]> matchThreads() {
        int na = sa.threadIds.size(), nb = sb.threadIds.size();
        List<int[]> out = new ArrayList<>();
        if (na == 1 && nb == 1 || na > 512 || nb > 512) {
            for (int i = 0; i < Math.max(na, nb); i++) out.add(new int[] {i < na ? i : -1, i < nb ? i : -1});
            return out;
        }
        int[][] sigA = new int[na][], sigB = new int[nb][];
        for (int i = 0; i < na; i++) sigA[i] = signature(sa, i);
        for (int j = 0; j < nb; j++) sigB[j] = signature(sb, j);
        boolean[] used = new boolean[nb];
        for (int i = 0; i < na; i++) {
            int best = -1;
            double bestScore = 0.2;
            for (int j = 0; j < nb; j++) {
                if (used[j]) continue;
                double s = similarity(sigA[i], sigB[j]) + (i == j ? 0.25 : 0) - 0.001 * Math.abs(i - j);
                if (s > bestScore) {
                    bestScore = s;
                    best = j;
                }
            }
            if (best >= 0) used[best] = true;
            out.add(new int[] {i, best});
        }
        for (int j = 0; j < nb; j++) if (!used[j]) out.add(new int[] {-1, j});
        return out;
    }

    private static int[] signature(CallFacts s, int t) {
        IntList calls = s.threadCalls.get(t);
        int[] sig = new int[Math.min(256, calls.size())];
        for (int k = 0; k < sig.length; k++) sig[k] = s.weak[calls.get(k)];
        Arrays.sort(sig);
        return sig;
    }

    private static double similarity(int[] x, int[] y) {
        if (x.length == 0 && y.length == 0) return 1;
        int i = 0, j = 0, common = 0;
        while (i < x.length && j < y.length) {
            if (x[i] == y[j]) { common++; i++; j++; }
            else if (x[i] < y[j]) i++;
            else j++;
        }
        return (double) common / Math.max(x.length, y.length);
    }

    /**
     * Destroys paired out of order, outside the alignment (A call → B call, B call → A call; -1: none): see
     * {@link #pairReorderedDestroys}.
     */
    private int[] reorderA = new int[0], reorderB = new int[0];

    private void alignAll(List<int[]> threadPairs, long[] keyA, long[] keyB, int[] partnerA, int[] partnerB) {
        Arrays.fill(partnerA, -1);
        Arrays.fill(partnerB, -1);
        reorderA = new int[sa.n];
        reorderB = new int[sb.n];
        Arrays.fill(reorderA, -1);
        Arrays.fill(reorderB, -1);
        for (int[] tp : threadPairs) if (tp[0] >= 0 && tp[1] >= 0) alignThreads(tp[0], tp[1], keyA, keyB, partnerA, partnerB);
    }

    /** Ties the symbols of paired calls (as the comparison would), walking a pair of threads. */
    private void tie(Links l, int ta, int tb, int[] partnerA) {
        IntList ca = sa.threadCalls.get(ta);
        for (int k = 0; k < ca.size(); k++) {
            int x = ca.get(k), y = partnerA[x];
            if (y < 0) continue;
            fa.decode(sa.store, sa.facts[x]);
            fb.decode(sb.store, sb.facts[y]);
            int i = 0, j = 0;
            while (i < fa.n && j < fb.n) {
                long oa = fa.order(i), ob = fb.order(j);
                if (oa < ob) i++;
                else if (ob < oa) j++;
                else {
                    if (fa.type[i] == Facts.T_SYM && fb.type[j] == Facts.T_SYM && fa.v1[i] == fb.v1[j]) {
                        l.same((int) fa.v1[i], (int) fa.v2[i], (int) fb.v2[j], true);
                    }
                    i++;
                    j++;
                }
            }
        }
    }

    /** B's identity keys with every symbol replaced by its tied partner in A (an untied one by a mark of its own). */
    private long[] translate(Links l) {
        long[] out = new long[sb.n];
        for (int y = 0; y < sb.n; y++) {
            fb.decode(sb.store, sb.facts[y]);
            long sym = 0x27BB2EE687B0B0FDL;
            for (int j = 0; j < fb.n; j++) {
                if (fb.type[j] != Facts.T_SYM || fb.role[j] == Facts.OUT || fb.cat[j] != 0) continue;
                int kind = (int) fb.v1[j], t = (int) fb.v2[j];
                int a = l.partnerOfB(kind, t);
                sym = Facts.mix(sym, ((long) kind << 32) | (a != 0 ? a : (t | 0x8000_0000L)));
            }
            out[y] = Facts.mix(sb.key[y], sym);
        }
        return out;
    }

    private void alignThreads(int ta, int tb, long[] keyA, long[] keyB, int[] partnerA, int[] partnerB) {
        IntList ca = sa.threadCalls.get(ta), cb = sb.threadCalls.get(tb);
        int n = ca.size(), m = cb.size();
        long[] ka = new long[n], kb = new long[m];
        for (int i = 0; i < n; i++) ka[i] = keyA[ca.get(i)];
        for (int j = 0; j < m; j++) kb[j] = keyB[cb.get(j)];
        int[] match = Aligner.align(ka, kb);
        long[] identA = ka.clone(), identB = kb.clone();
        // pair leftovers by function between the same aligned calls
        for (int i = 0; i < n; i++) ka[i] = sa.weak[ca.get(i)];
        for (int j = 0; j < m; j++) kb[j] = sb.weak[cb.get(j)];
        int pa = 0, pb = 0;
        for (int i = 0; i <= n; i++) {
            if (i < n && match[i] < 0) continue;
            int nb = i < n ? match[i] : m;
            if (i > pa && nb > pb) Aligner.align(ka, pa, i, kb, pb, nb, match);
            pa = i + 1;
            pb = nb + 1;
        }
        if (!options.strict()) pairReorderedDestroys(ca, cb, identA, identB, match);
        for (int i = 0; i < n; i++) {
            if (match[i] >= 0) {
                partnerA[ca.get(i)] = cb.get(match[i]);
                partnerB[cb.get(match[i])] = ca.get(i);
            }
        }
    }

    /** Whether a call destroys what one of its parameters names (the spec's {@code destroys}: cuMemFree, cuLibraryUnload, ...). */
    private boolean destroys(CallFacts s, int x) {
        return (s == sa ? destroysA : destroysB).computeIfAbsent(s.function(x), f -> {
            Normaliser.Plan p = s.plan(x);
            return p != null && p.anyDestroys;
        });
    }

    /** {@link #destroys} by function name, per side. */
    private final Map<String, Boolean> destroysA = new HashMap<>(), destroysB = new HashMap<>();

    /**
     * Pairs the destroys that the two sides make in another order. A run of consecutive destroys (frees, unloads,
     * destroys of streams and events: each of another object) has no order the program can observe, and two drivers'
     * runtimes may walk their own lists in another order (cudart's teardown unloads its libraries in the order of its
     * own hash table). For each run of A with a call the alignment left unpaired, B's run is the one that starts right
     * after the B partner of the last paired call before A's run; an unpaired call of A's run is paired with an
     * unpaired call of B's run with the same key (function, arguments, the identity of the handles), first come.
     * Such pairs are compared as any pair and counted under {@link Expected#DESTROY_ORDER}; {@code --strict} leaves
     * them unpaired (missing and extra).
     *
     * @param ka A's keys with handle identity, in thread order; {@code kb} B's
     * @param match the alignment (index into A's thread calls → index into B's, -1), not changed
     */
    private void pairReorderedDestroys(IntList ca, IntList cb, long[] ka, long[] kb, int[] match) {
        int n = ca.size(), m = cb.size();
        boolean[] usedB = new boolean[m];
        for (int i = 0; i < n; i++) if (match[i] >= 0) usedB[match[i]] = true;
        int i = 0;
        while (i < n) {
            if (!destroys(sa, ca.get(i))) {
                i++;
                continue;
            }
            int s = i;
            boolean open = false;
            while (i < n && destroys(sa, ca.get(i))) open |= match[i++] < 0;
            if (!open) continue;
            int before = s - 1;
            while (before >= 0 && match[before] < 0) before--;
            int jb = before >= 0 ? match[before] + 1 : 0, je = jb;
            while (je < m && destroys(sb, cb.get(je))) je++;
            for (int k = s; k < i; k++) {
                if (match[k] >= 0) continue;
                for (int j = jb; j < je; j++) {
                    if (usedB[j] || kb[j] != ka[k]) continue;
                    usedB[j] = true;
                    reorderA[ca.get(k)] = cb.get(j);
                    reorderB[cb.get(j)] = ca.get(k);
                    break;
                }
            }
        }
    }

    /** For every call of B: the largest A call number paired with a B call that entered before it. */
    private long[] positionsOfB(int[] partnerB) {
        long maxOrd = 0;
        for (int j = 0; j < sb.n; j++) maxOrd = Math.max(maxOrd, sb.ordinal(j));
        int[] byOrd = new int[(int) Math.min(Integer.MAX_VALUE - 8, maxOrd + 1)];
        Arrays.fill(byOrd, -1);
        for (int j = 0; j < sb.n; j++) if (sb.ordinal(j) < byOrd.length) byOrd[(int) sb.ordinal(j)] = j;
        long[] pos = new long[sb.n];
        long run = 0;
        for (int o = 0; o < byOrd.length; o++) {
            int j = byOrd[o];
            if (j < 0) continue;
            pos[j] = run;
            if (partnerB[j] >= 0) run = Math.max(run, sa.ordinal(partnerB[j]));
        }
        return pos;
    }

    // ------------------------------------------------------------------ comparison

    /** Compares every pair of threads (fresh ties, fresh counts of ignored differences). */
    private List<Div> compareAll(List<int[]> threadPairs, int[] partnerA, int[] partnerB) {
        links = new Links();
        ignoredCounts.clear();
        levelOnly = 0;
        ignored.clear();
        ignoredExamples.clear();
        long[] bPos = positionsOfB(partnerB);
        List<Div> divs = new ArrayList<>();
        teardownLeftA = sa.libraryRetains;
        teardownLeftB = sb.libraryRetains;
        for (int[] tp : threadPairs) walk(tp[0], tp[1], partnerA, bPos, divs);
        return divs;
    }

    /** How many more unpaired primary-context releases at exit each side may leave out as its libraries' (CallFacts.libraryTeardown). */
    private int teardownLeftA, teardownLeftB;

    /**
     * Whether unpaired call {@code x} of one side is a release of a library's own CUDA runtime at exit,
     * to be counted as {@link Expected#LIBRARY_INTERNALS} rather than listed: a candidate (CallFacts)
     * while that side's libraries retained the primary context more often than such releases were left out.
     */
    private boolean libraryTeardown(boolean sideA, int x) {
        CallFacts s = sideA ? sa : sb;
        if (!s.libraryTeardown(x) || (sideA ? teardownLeftA : teardownLeftB) <= 0) return false;
        if (sideA) teardownLeftA--;
        else teardownLeftB--;
        ignoredCounts.merge(Expected.LIBRARY_INTERNALS, 1L, Long::sum);
        int shown = ignoredExamples.getOrDefault(Expected.LIBRARY_INTERNALS, 0);
        if (shown < Math.min(options.limit(), 20) && ignored.size() < options.limit()) {
            ignoredExamples.put(Expected.LIBRARY_INTERNALS, shown + 1);
            ignored.add(new DiffResult.Ignored(Expected.LIBRARY_INTERNALS, sideA ? sa.ordinal(x) : -1, sideA ? -1 : sb.ordinal(x), s.function(x),
                    "a library's own CUDA runtime releasing at exit the primary context it retained inside a library call",
                    sideA ? "(present)" : "(absent)", sideA ? "(absent)" : "(present)"));
        }
        return true;
    }

    /** Compares paired calls x (in A) and y (in B); a divergence, with the candidates pending since the last pair, goes to divs. */
    private void comparePaired(int x, int y, List<Div> divs) {
        int mask = compare(x, y, null);
        if (mask != 0) {
            Div d = new Div();
            d.a = x;
            d.b = y;
            d.mask = mask;
            d.pos = sa.ordinal(x) * 2;
            d.candidates = pendingCandidates;
            divs.add(d);
        }
        pendingCandidates = null;
    }

    private void walk(int ta, int tb, int[] partnerA, long[] bPos, List<Div> divs) {
        int[] ca = ta >= 0 ? sa.threadCalls.get(ta).toArray() : new int[0];
        int[] cb = tb >= 0 ? sb.threadCalls.get(tb).toArray() : new int[0];
        int i = 0, j = 0;
        long lastA = -1, lastB = 0;
        while (i < ca.length || j < cb.length) {
            int x = i < ca.length ? ca[i] : -1, y = j < cb.length ? cb[j] : -1;
            if (x >= 0 && y >= 0 && partnerA[x] == y) {
                comparePaired(x, y, divs);
                lastA = sa.ordinal(x);
                lastB = sb.ordinal(y);
                i++;
                j++;
            } else if (x >= 0 && partnerA[x] < 0 && reorderA[x] >= 0) {
                // a destroy B makes at another place of the same run of destroys (pairReorderedDestroys)
                int yr = reorderA[x];
                comparePaired(x, yr, divs);
                reordered(x, yr);
                lastA = sa.ordinal(x);
                i++;
            } else if (x >= 0 && partnerA[x] < 0) {
                if (libraryTeardown(true, x)) {
                    lastA = sa.ordinal(x);
                    i++;
                    continue;
                }
                divs.add(missing(x, lastB));
                lastA = sa.ordinal(x);
                i++;
            } else if (y >= 0 && reorderB[y] >= 0) {
                // paired with a destroy of A in the same run, compared when that one comes
                lastB = sb.ordinal(y);
                j++;
            } else if (y >= 0) {
                if (libraryTeardown(false, y)) {
                    lastB = sb.ordinal(y);
                    j++;
                    continue;
                }
                Div d = new Div();
                d.b = y;
                long after = lastA >= 0 ? lastA : bPos[y];
                d.aAfter = after;
                d.mask = 1 << DiffKind.EXTRA.ordinal();
                d.pos = lastA >= 0 ? after * 2 + 1 : bPos[y] * 2 + 1;
                divs.add(d);
                lastB = sb.ordinal(y);
                j++;
            } else {
                // x is paired with a call of B not in this thread pair (cannot happen): treat as missing
                divs.add(missing(x, lastB));
                i++;
            }
        }
    }

    /** Counts a pair of destroys made in another order ({@link Expected#DESTROY_ORDER}), with an example in the listing. */
    private void reordered(int x, int y) {
        ignoredCounts.merge(Expected.DESTROY_ORDER, 1L, Long::sum);
        int shown = ignoredExamples.getOrDefault(Expected.DESTROY_ORDER, 0);
        if (shown < Math.min(options.limit(), 20) && ignored.size() < options.limit()) {
            ignoredExamples.put(Expected.DESTROY_ORDER, shown + 1);
            ignored.add(new DiffResult.Ignored(Expected.DESTROY_ORDER, sa.ordinal(x), sb.ordinal(y), sa.function(x),
                    "destroyed at another place of the same run of destroys: paired and compared (--strict: missing and extra)",
                    "A call " + sa.ordinal(x), "B call " + sb.ordinal(y)));
        }
    }

    /** A's call {@code x} has no partner in B: a MISSING divergence placed after B's call {@code bAfter}. */
    private Div missing(int x, long bAfter) {
        Div d = new Div();
        d.a = x;
        d.bAfter = bAfter;
        d.mask = 1 << DiffKind.MISSING.ordinal();
        d.pos = sa.ordinal(x) * 2;
        return d;
    }

    private List<Long> pendingCandidates;

    /** Collects the differences of a paired call, for the listing. */
    private final class Detail {
        final List<DiffResult.Difference> diffs = new ArrayList<>();
        Div div;
        boolean heat;
    }

    /**
     * Compares call {@code x} of A with call {@code y} of B. Returns the mask of kinds that differ
     * ({@code 1 << kind.ordinal()}, plus {@link #MASK_DATA_CANDIDATE} for buffers to compare by
     * element). With {@code detail}, also describes every difference (and does not tie symbols).
     */
    private int compare(int x, int y, Detail detail) {
        int mask = 0;
        boolean fx = sa.inFlight(x), fy = sb.inFlight(y);
        if (fx != fy || (!fx && sa.result(x) != sb.result(y))) {
            Expected e = fx == fy ? Expected.ofResult(dev.zluda.spec.CudaApi.baseName(sa.function(x))) : null;
            if (e != null && !options.strict()) {
                if (detail == null) ignoreResult(e, x, y);
            } else {
                mask |= 1 << DiffKind.RESULT.ordinal();
                if (detail != null) detail.diffs.add(new DiffResult.Difference(DiffKind.RESULT, "result", ra.result(x), rb.result(y), null));
            }
        }
        fa.decode(sa.store, sa.facts[x]);
        fb.decode(sb.store, sb.facts[y]);
        int i = 0, j = 0;
        while (i < fa.n || j < fb.n) {
            long oa = i < fa.n ? fa.order(i) : Long.MAX_VALUE, ob = j < fb.n ? fb.order(j) : Long.MAX_VALUE;
            if (oa == ob) {
                mask |= compareFact(x, y, i, j, detail);
                i++;
                j++;
            } else if (oa < ob) {
                mask |= oneSided(x, y, true, i, detail);
                i++;
            } else {
                mask |= oneSided(x, y, false, j, detail);
                j++;
            }
        }
        return mask;
    }

    private int kindOf(Facts f, int i, boolean data) {
        if (data) return DiffKind.DATA.ordinal();
        return f.role[i] == Facts.OUT ? DiffKind.OUTPUT.ordinal() : DiffKind.ARGUMENT.ordinal();
    }

    private int oneSided(int x, int y, boolean inA, int i, Detail detail) {
        Facts f = inA ? fa : fb;
        int cat = f.cat[i];
        if (cat == 0 && f.type[i] == Facts.T_DATA && levelGap(inA)) {
            // host data the other side's capture level does not keep: not a difference of the runs
            if (detail == null) levelOnly++;
            cat = Expected.CAPTURE_LEVEL.ordinal() + 1;
        }
        if (cat != 0 && !options.strict()) {
            if (detail == null) ignore(cat, x, y, inA ? i : -1, inA ? -1 : i);
            return 0;
        }
        int k = kindOf(f, i, f.type[i] == Facts.T_DATA);
        if (detail != null) {
            String what = (inA ? ra : rb).what(inA ? x : y, f, i);
            String v = (inA ? ra : rb).value(inA ? x : y, f, i);
            detail.diffs.add(new DiffResult.Difference(DiffKind.values()[k], what, inA ? v : "(absent)", inA ? "(absent)" : v, null));
        }
        return 1 << k;
    }

    private int compareFact(int x, int y, int i, int j, Detail detail) {
        int ta = fa.type[i], tb = fb.type[j];
        int cat = fa.cat[i] != 0 ? fa.cat[i] : fb.cat[j];
        boolean equal;
        boolean candidate = false;
        if (ta != tb) {
            equal = false;
            // a NULL where the other side passes a pointer is a real difference, also for addresses
            if ((ta == Facts.T_NULL || tb == Facts.T_NULL) && cat == Expected.ADDRESS.ordinal() + 1) cat = 0;
        } else {
            switch (ta) {
                case Facts.T_NULL, Facts.T_UNREADABLE -> equal = true;
                case Facts.T_SYM -> equal = fa.v1[i] == fb.v1[j] && fa.v3[i] == fb.v3[j]
                        && links.same((int) fa.v1[i], (int) fa.v2[i], (int) fb.v2[j], detail == null);
                case Facts.T_VALUE, Facts.T_ADDR -> equal = fa.v1[i] == fb.v1[j];
                case Facts.T_STRING -> equal = Arrays.equals(fa.page, fa.bOff[i], fa.bOff[i] + fa.bLen[i], fb.page, fb.bOff[j], fb.bOff[j] + fb.bLen[j]);
                case Facts.T_DATA -> {
                    equal = fa.v1[i] == fb.v1[j] && fa.v2[i] == fb.v2[j];
                    candidate = !equal && fa.v2[i] == fb.v2[j];
                }
                default -> equal = true;
            }
        }
        if (equal) return 0;
        if (cat != 0 && !options.strict()) {
            if (detail == null) ignore(cat, x, y, i, j);
            return 0;
        }
        boolean data = ta == Facts.T_DATA && tb == Facts.T_DATA;
        if (candidate) {
            long key = fa.order(i);
            if (detail == null) {
                if (pendingCandidates == null) pendingCandidates = new ArrayList<>(2);
                pendingCandidates.add(key);
                return MASK_DATA_CANDIDATE;
            }
            DiffResult.DataDiff dd = detail.div.data == null ? null : detail.div.data.get(key);
            if (dd == null) return 0; // within the tolerance
            if (detail.heat && dd.heatmap() == null) dd = evaluate(x, y, i, j, true);
            if (dd == null) return 0;
            detail.diffs.add(new DiffResult.Difference(DiffKind.DATA, ra.what(x, fa, i), ra.value(x, fa, i), rb.value(y, fb, j), dd));
            return 1 << DiffKind.DATA.ordinal();
        }
        int k = kindOf(fa, i, data);
        if (detail != null) {
            DiffResult.DataDiff dd = null;
            if (data) {
                String note = fa.v2[i] != fb.v2[j] ? "sizes differ: " + fa.v2[i] + " bytes in A, " + fb.v2[j] + " in B" : null;
                dd = new DiffResult.DataDiff(ra.buffer(x, fa, i), "hash", fa.v2[i], -1, -1, -1, -1,
                        String.format("xxh64 %016x", fa.v1[i]), String.format("xxh64 %016x", fb.v1[j]), Double.NaN, -1, note, null);
                if (note == null) dd = null;
            }
            detail.diffs.add(new DiffResult.Difference(DiffKind.values()[k], ra.what(x, fa, i), ra.value(x, fa, i), rb.value(y, fb, j), dd));
        }
        return 1 << k;
    }

    /** An expected difference of two paired calls' results (e.g. an export table one driver provides and the other does not). */
    private void ignoreResult(Expected e, int x, int y) {
        ignoredCounts.merge(e, 1L, Long::sum);
        int shown = ignoredExamples.getOrDefault(e, 0);
        if (shown < Math.min(options.limit(), 20) && ignored.size() < options.limit()) {
            ignoredExamples.put(e, shown + 1);
            ignored.add(new DiffResult.Ignored(e, sa.ordinal(x), sb.ordinal(y), sa.function(x), "result", ra.result(x), rb.result(y)));
        }
    }

    /** Counts an expected difference between fact {@code i} of A and {@code j} of B (-1: absent on that side). */
    private void ignore(int cat, int x, int y, int i, int j) {
        Expected e = Expected.values()[cat - 1];
        ignoredCounts.merge(e, 1L, Long::sum);
        int shown = ignoredExamples.getOrDefault(e, 0);
        if (shown < Math.min(options.limit(), 20) && ignored.size() < options.limit()) {
            ignoredExamples.put(e, shown + 1);
            String what = i >= 0 ? ra.what(x, fa, i) : rb.what(y, fb, j);
            ignored.add(new DiffResult.Ignored(e, sa.ordinal(x), sb.ordinal(y), sa.function(x), what,
                    i >= 0 ? ra.value(x, fa, i) : "(absent)", j >= 0 ? rb.value(y, fb, j) : "(absent)"));
        }
    }

    /** Ties of symbols between the sides, per kind. */
    private static final class Links {
        private int[][] aToB = new int[16][], bToA = new int[16][];

        boolean same(int kind, int a, int b, boolean tie) {
            int[] ab = row(true, kind, a), ba = row(false, kind, b);
            int pa = a < ab.length ? ab[a] : 0;
            if (pa == b) return true;
            int pb = b < ba.length ? ba[b] : 0;
            if (pa == 0 && pb == 0 && tie) {
                ab = grow(true, kind, a);
                ba = grow(false, kind, b);
                ab[a] = b;
                ba[b] = a;
                return true;
            }
            return false;
        }

        /** The A symbol tied to B's symbol {@code b}, or 0. */
        int partnerOfB(int kind, int b) {
            int[] r = row(false, kind, b);
            return b < r.length ? r[b] : 0;
        }

        /** Whether every tie pairs equal numbers. */
        boolean identity() {
            for (int[] r : aToB) {
                if (r == null) continue;
                for (int a = 0; a < r.length; a++) if (r[a] != 0 && r[a] != a) return false;
            }
            return true;
        }

        private int[] row(boolean a, int kind, int s) {
            int[][] t = a ? aToB : bToA;
            if (kind >= t.length || t[kind] == null) return new int[0];
            return t[kind];
        }

        private int[] grow(boolean a, int kind, int s) {
            int[][] t = a ? aToB : bToA;
            if (kind >= t.length) {
                t = Arrays.copyOf(t, Math.max(kind + 1, t.length * 2));
                if (a) aToB = t;
                else bToA = t;
            }
            int[] r = t[kind];
            if (r == null) r = new int[Math.max(64, s + 1)];
            if (s >= r.length) r = Arrays.copyOf(r, Math.max(s + 1, r.length * 2));
            t[kind] = r;
            return r;
        }
    }

    // ------------------------------------------------------------------ data buffers

    /** Compares the buffers of every candidate by element; returns how many were within the tolerance. */
    private long evaluateData(List<Div> divs) {
        // inline data not kept in memory is read again, once per side
        Map<Long, List<long[]>> wantA = new HashMap<>(), wantB = new HashMap<>();
        for (Div d : divs) {
            if (d.candidates == null) continue;
            fa.decode(sa.store, sa.facts[d.a]);
            fb.decode(sb.store, sb.facts[d.b]);
            for (long key : d.candidates) {
                int i = find(fa, key), j = find(fb, key);
                if (needsRefetch(fa, i)) wantA.computeIfAbsent(sa.ordinal(d.a), k -> new ArrayList<>()).add(new long[] {fa.param[i], fa.role[i]});
                if (needsRefetch(fb, j)) wantB.computeIfAbsent(sb.ordinal(d.b), k -> new ArrayList<>()).add(new long[] {fb.param[j], fb.role[j]});
            }
        }
        if (!wantA.isEmpty()) refetch(sa, wantA, refetchedA);
        if (!wantB.isEmpty()) refetch(sb, wantB, refetchedB);
        long tolerated = 0;
        for (Div d : divs) {
            if (d.candidates == null) continue;
            d.mask &= ~MASK_DATA_CANDIDATE;
            for (long key : d.candidates) {
                fa.decode(sa.store, sa.facts[d.a]);
                fb.decode(sb.store, sb.facts[d.b]);
                DiffResult.DataDiff dd = evaluate(d.a, d.b, find(fa, key), find(fb, key), false);
                if (dd == null) {
                    tolerated++;
                    continue;
                }
                if (d.data == null) d.data = new HashMap<>();
                d.data.put(key, dd);
                d.mask |= 1 << DiffKind.DATA.ordinal();
            }
        }
        return tolerated;
    }

    private static int find(Facts f, long key) {
        for (int i = 0; i < f.n; i++) if (f.order(i) == key) return i;
        throw new IllegalStateException("fact not found");
    }

    private static boolean needsRefetch(Facts f, int i) {
        int kind = (int) f.v3[i];
        return f.bLen[i] != f.v2[i] && (kind == CaptureFormat.ITEM_INLINE);
    }

    private static long refetchKey(long ordinal, long param, long role) {
        return ordinal * 1024 + param * 4 + role;
    }

    private static void refetch(CallFacts s, Map<Long, List<long[]>> want, Map<Long, byte[]> out) {
        CallAssembler asm = new CallAssembler(new CallAssembler.Listener() {
            @Override
            public void call(Call c) {
                Call.walk(c, (k, level, parent) -> visit(k));
            }

            void visit(Call c) {
                List<long[]> w = want.get(c.ordinal());
                if (w != null) {
                    for (long[] pr : w) {
                        List<DataItem> items = pr[1] == Facts.OUT ? (c.leave() == null ? List.of() : c.leave().data()) : c.enter().data();
                        for (DataItem d : items) {
                            if (d.param() == pr[0] && d.isInline()) out.put(refetchKey(c.ordinal(), pr[0], pr[1]), d.bytes());
                        }
                    }
                }
            }
        });
        for (CaptureRecord r : s.cap.reader()) asm.accept(r);
        asm.finish();
    }

    private byte[] bytesOf(CallFacts s, int call, Facts f, int i) {
        if (f.bLen[i] == f.v2[i] && f.v3[i] != CaptureFormat.ITEM_TRUNCATED) return f.bytes(i);
        int kind = (int) f.v3[i];
        if (kind == CaptureFormat.ITEM_BLOB) {
            CaptureRecord.Blob b = s.blob(f.v1[i]);
            return b == null ? null : Blobs.bytes(b);
        }
        if (kind == CaptureFormat.ITEM_INLINE) {
            return (s == sa ? refetchedA : refetchedB).get(refetchKey(s.ordinal(call), f.param[i], f.role[i]));
        }
        return null;
    }

    /** Compares one pair of buffers; null when equal within the tolerance. */
    private DiffResult.DataDiff evaluate(int x, int y, int i, int j, boolean heat) {
        byte[] ba = bytesOf(sa, x, fa, i), bb = bytesOf(sb, y, fb, j);
        String buffer = ra.buffer(x, fa, i);
        if (ba == null || bb == null) {
            String why = ba == null && bb == null ? "neither capture holds the bytes" : (ba == null ? "capture A" : "capture B") + " holds only a hash";
            return new DiffResult.DataDiff(buffer, "hash", fa.v2[i], -1, -1, -1, -1, String.format("xxh64 %016x", fa.v1[i]),
                    String.format("xxh64 %016x", fb.v1[j]), Double.NaN, -1, why + ": compared by hash", null);
        }
        ElementType t = ra.elementType(x, fa, i);
        if (t == null) t = options.elementType();
        return compareBuffers(buffer, ba, bb, t, heat);
    }

    // ------------------------------------------------------------------ kernel snapshots

    private final Map<Integer, Integer> kernelPartners = new HashMap<>();

    /**
     * After {@link #diff(Capture, Capture)}: B's snapshot number paired with A's snapshot {@code aNumber}
     * (both 1-based, as {@code zluda replay --kernel N} counts), or empty when A's launch has no partner
     * in B with a snapshot.
     */
    public OptionalInt kernelPartner(int aNumber) {
        Integer b = kernelPartners.get(aNumber);
        return b == null ? OptionalInt.empty() : OptionalInt.of(b);
    }

    /** Compares the snapshots of paired launches; attaches the differences to the launch calls' divergences. */
    private DiffResult.Kernels compareKernels(Capture ca, Capture cb, List<Div> divs) {
        if (sa.kernelBuffers.isEmpty() && sb.kernelBuffers.isEmpty()) return DiffResult.Kernels.NONE;
        KernelSnapshots ka = sa.kernelBuffers.isEmpty() ? null : KernelSnapshots.read(ca);
        KernelSnapshots kb = sb.kernelBuffers.isEmpty() ? null : KernelSnapshots.read(cb);
        List<KernelSnapshots.Snapshot> la = ka == null ? List.of() : ka.list(), lb = kb == null ? List.of() : kb.list();
        // a call may hold several snapshots (a graph launch: one per kernel node, in the order the nodes ran): the
        // k-th snapshot of A's call pairs with the k-th of B's
        Map<Long, List<KernelSnapshots.Snapshot>> bByCall = new HashMap<>();
        for (KernelSnapshots.Snapshot t : lb) if (t.launchCall() > 0) bByCall.computeIfAbsent(t.launchCall(), c -> new ArrayList<>()).add(t);
        Map<Long, Integer> taken = new HashMap<>();
        Set<Long> launchCalls = new HashSet<>();
        for (KernelSnapshots.Snapshot t : la) if (t.launchCall() > 0) launchCalls.add(t.launchCall());
        Map<Long, Integer> aIdx = new HashMap<>();
        for (int i = 0; i < sa.n; i++) if (launchCalls.contains(sa.ordinal(i))) aIdx.put(sa.ordinal(i), i);
        Map<Integer, Div> byA = new HashMap<>();
        for (Div d : divs) if (d.a >= 0 && d.b >= 0) byA.put(d.a, d);
        int compared = 0, unpairedA = 0, usedB = 0, count = 0;
        long tolerated = 0;
        int[] heat = {options.heatmaps()};
        List<DiffResult.KernelDivergence> list = new ArrayList<>();
        for (KernelSnapshots.Snapshot s : la) {
            Integer x = aIdx.get(s.launchCall());
            int y = x == null ? -1 : partnerA[x];
            KernelSnapshots.Snapshot t = null;
            if (y >= 0) {
                List<KernelSnapshots.Snapshot> candidates = bByCall.getOrDefault(sb.ordinal(y), List.of());
                int k = taken.merge(s.launchCall(), 1, Integer::sum) - 1;
                if (k < candidates.size()) t = candidates.get(k);
            }
            if (t == null) {
                unpairedA++;
                continue;
            }
            compared++;
            usedB++;
            kernelPartners.put(s.number(), t.number());
            long[] tol = {0};
            KernelPair kp = compareKernel(ka, kb, s, t, x, y, heat, tol);
            tolerated += tol[0];
            if (kp == null) continue;
            count++;
            if (list.size() < options.limit()) list.add(kp.divergence);
            Div d = byA.get(x);
            if (d == null) {
                d = new Div();
                d.a = x;
                d.b = y;
                d.pos = sa.ordinal(x) * 2;
                divs.add(d);
                byA.put(x, d);
            }
            for (DiffResult.Difference df : kp.differences) d.mask |= 1 << df.kind().ordinal();
            d.kernel = kp.differences;
        }
        return new DiffResult.Kernels(la.size(), lb.size(), compared, unpairedA, lb.size() - usedB, tolerated, List.copyOf(list), count);
    }

    /**
     * B's snapshot with the parameter words that hold the same texture or surface object as A's word at that offset
     * ({@code tex#N} on both sides: the N-th object created, counting from the start of each capture) given A's
     * bytes, so that the object handles compare by what they are and not by the numbers the drivers chose.
     */
    private CaptureRecord.Kernel sameObjects(CaptureRecord.Kernel k, CaptureRecord.Kernel kt) {
        String[] oa = sa.kernelParamObjects.get(k.seq()), ob = sb.kernelParamObjects.get(kt.seq());
        if (oa == null || ob == null || Arrays.equals(k.params(), kt.params())) return kt;
        byte[] pb = kt.params().clone();
        boolean changed = false;
        for (int i = 0; i < Math.min(oa.length, ob.length); i++) {
            if (oa[i] == null || !oa[i].equals(ob[i])) continue;
            System.arraycopy(k.params(), 8 * i, pb, 8 * i, 8);
            changed = true;
        }
        return changed ? new CaptureRecord.Kernel(kt.seq(), kt.ts(), kt.threadId(), kt.offset(), kt.launchSeq(), kt.function(), kt.name(),
                pb, kt.buffers(), kt.launch()) : kt;
    }

    private record KernelPair(DiffResult.KernelDivergence divergence, List<DiffResult.Difference> differences) {}

    /** Compares the snapshots of one pair of launches ({@code x}, {@code y}: the calls); null when they agree. */
    private KernelPair compareKernel(KernelSnapshots ka, KernelSnapshots kb, KernelSnapshots.Snapshot s, KernelSnapshots.Snapshot t, int x, int y,
                                     int[] heat, long[] tolerated) {
        CaptureRecord.Kernel k = s.record(), kt = t.record();
        String tag = "kernel #" + s.number() + " " + k.name();
        List<DiffResult.Difference> diffs = new ArrayList<>();
        List<DiffResult.KernelBuffer> bufs = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        dev.zluda.capture.text.CallFormatter fmt = new dev.zluda.capture.text.CallFormatter(i -> null, i -> "?", Map.of());
        if (!k.name().equals(kt.name())) diffs.add(new DiffResult.Difference(DiffKind.KERNEL, tag + " name", k.name(), kt.name(), null));
        int resA = k.launch() == null ? 0 : k.launch().result(), resB = kt.launch() == null ? 0 : kt.launch().result();
        if (resA != resB) diffs.add(new DiffResult.Difference(DiffKind.KERNEL, tag + " result", fmt.result(resA), fmt.result(resB), null));
        int n = Math.min(k.buffers().size(), kt.buffers().size());
        if (k.buffers().size() != kt.buffers().size()) {
            notes.add("A's snapshot holds " + k.buffers().size() + " buffers, B's " + kt.buffers().size() + ": the first " + n + " compared");
        }
        List<String> parameters = new ArrayList<>();
        CaptureRecord.Kernel ktp = sameObjects(k, kt);
        if (!Arrays.equals(k.params(), ktp.params())) {
            for (KernelReplay.ParamDifference p : KernelReplay.parameterDifferences(k, ktp, function(ka, k))) {
                parameters.add(p.describe());
                diffs.add(new DiffResult.Difference(DiffKind.ARGUMENT, tag + " " + (p.index() >= 0 ? "parameter " + p.index() + " (" + p.name()
                        + (p.type().isEmpty() ? "" : ", " + p.type()) + ")" : p.name()), p.a(), p.b(), null));
            }
        }
        String[] symA = sa.kernelBuffers.get(k.seq()), symB = sb.kernelBuffers.get(kt.seq());
        List<KernelReplay.BufferTyping> typing = null;
        for (int i = 0; i < n; i++) {
            CaptureRecord.KernelBuffer ba = k.buffers().get(i), bb = kt.buffers().get(i);
            if (ba.after() == bb.after() && ba.size() == bb.size()) continue;
            String symbol = symA != null && symA[i] != null ? symA[i] : "0x" + Long.toHexString(ba.devicePointer());
            String bSymbol = symB != null && symB[i] != null ? symB[i] : "0x" + Long.toHexString(bb.devicePointer());
            if (ba.after() == 0 || bb.after() == 0 || !ka.hasBlob(ba.after()) || !kb.hasBlob(bb.after())) {
                notes.add("buffer " + (i + 1) + " " + symbol + ": " + (ba.after() == 0 || !ka.hasBlob(ba.after()) ? "A" : "B")
                        + " kept no after-image (a redacted pack?): not compared");
                continue;
            }
            if (typing == null) typing = typing(ka, k);
            KernelReplay.BufferTyping bt = i < typing.size() ? typing.get(i) : null;
            ElementType et = bt == null ? null : ElementTypes.forPtx(bt.type().ptx()).orElse(null);
            boolean typed = et != null;
            if (et == null) et = options.elementType();
            String label = "buffer " + (i + 1) + " " + symbol + (bt == null || bt.params().isEmpty() ? "" : " (" + String.join(", ", bt.params()) + ")");
            byte[] xa, xb;
            try {
                xa = ka.blob(ba.after(), "the after-image of buffer " + (i + 1) + " of " + tag);
                xb = kb.blob(bb.after(), "the after-image of buffer " + (i + 1) + " of B's kernel #" + t.number());
            } catch (dev.zluda.capture.CaptureException e) {
                notes.add(label + ": " + e.getMessage());
                continue;
            }
            DiffResult.DataDiff dd = compareBuffers(label, xa, xb, et, heat[0] > 0);
            if (dd == null) {
                tolerated[0]++;
                continue;
            }
            if (dd.heatmap() != null) heat[0]--;
            if (!typed) {
                String why = "element type not known from the PTX: compared as " + et.name() + " (--type)";
                dd = new DiffResult.DataDiff(dd.buffer(), dd.elementType(), dd.bytes(), dd.elements(), dd.differing(), dd.firstElement(), dd.byteOffset(),
                        dd.a(), dd.b(), dd.maxAbs(), dd.maxRel(), dd.maxUlps(), dd.note() == null ? why : dd.note() + "; " + why, dd.heatmap());
            }
            boolean inputs = ba.before() != 0 && bb.before() != 0 && ba.before() != bb.before();
            String bName = bSymbol.equals(symbol) ? null : bSymbol;
            bufs.add(new DiffResult.KernelBuffer(i + 1, symbol, bName, bt == null ? List.of() : bt.params(), typed, inputs, dd,
                    ba.before(), ba.after(), bb.before(), bb.after()));
            diffs.add(new DiffResult.Difference(DiffKind.KERNEL, tag + " " + label + " after-image" + (inputs ? " (its before-images differ too)" : ""),
                    String.format("<%d bytes, xxh64 %016x>", ba.size(), ba.after()), String.format("<%d bytes, xxh64 %016x>", bb.size(), bb.after()), dd));
        }
        for (int i = n; i < Math.max(k.buffers().size(), kt.buffers().size()); i++) {
            boolean inA = i < k.buffers().size();
            CaptureRecord.KernelBuffer b = inA ? k.buffers().get(i) : kt.buffers().get(i);
            diffs.add(new DiffResult.Difference(DiffKind.KERNEL, tag + " buffer " + (i + 1),
                    inA ? b.size() + " bytes" : "(absent)", inA ? "(absent)" : b.size() + " bytes", null));
        }
        if (diffs.isEmpty()) return null;
        CaptureRecord.KernelLaunch l = k.launch();
        String shape = l == null ? "" : String.format(java.util.Locale.ROOT, "grid=(%d,%d,%d) block=(%d,%d,%d) shared=%d", l.gridX(), l.gridY(), l.gridZ(),
                l.blockX(), l.blockY(), l.blockZ(), l.sharedMemBytes());
        DiffResult.KernelDivergence kd = new DiffResult.KernelDivergence(s.number(), t.number(), k.name(), k.name().equals(kt.name()) ? null : kt.name(),
                module(ka, k), shape, ra.ref(x), rb.ref(y), resA, resB, List.copyOf(bufs), List.copyOf(parameters), notes.isEmpty() ? null : String.join("; ", notes),
                "zluda diff " + shellQuote(sa.cap.source().toString()) + " " + shellQuote(sb.cap.source().toString()) + " --kernel " + s.number() + " --locate");
        return new KernelPair(kd, List.copyOf(diffs));
    }

    private final Map<String, List<KernelReplay.BufferTyping>> typings = new HashMap<>();

    /** The typing of a snapshot's buffers from its module's PTX (parsed once per module, kernel and parameter bytes). */
    private List<KernelReplay.BufferTyping> typing(KernelSnapshots ks, CaptureRecord.Kernel k) {
        CaptureRecord.KernelLaunch l = k.launch();
        long module = l == null ? 0 : l.moduleHash();
        String key = module + "/" + k.name() + "/" + Arrays.hashCode(k.params()) + "/" + k.buffers().hashCode();
        return typings.computeIfAbsent(key, kk -> {
            byte[] image = null;
            if (module != 0 && ks.hasBlob(module)) {
                try {
                    image = ks.blob(module, "the module of kernel " + k.name());
                } catch (dev.zluda.capture.CaptureException e) {
                    image = null;
                }
            }
            return KernelReplay.bufferTypes(k, image);
        });
    }

    private final Map<String, Optional<dev.zluda.ptx.FunctionInfo>> functions = new HashMap<>();

    /** The kernel's PTX function from its snapshot's module (parsed once per module and kernel), or null. */
    private dev.zluda.ptx.FunctionInfo function(KernelSnapshots ks, CaptureRecord.Kernel k) {
        CaptureRecord.KernelLaunch l = k.launch();
        long module = l == null ? 0 : l.moduleHash();
        return functions.computeIfAbsent(module + "/" + k.name(), kk -> {
            if (module == 0 || !ks.hasBlob(module)) return Optional.empty();
            try {
                return Optional.ofNullable(KernelReplay.kernelFunction(k, ks.blob(module, "the module of kernel " + k.name())));
            } catch (dev.zluda.capture.CaptureException | RuntimeException e) {
                return Optional.empty();
            }
        }).orElse(null);
    }

    /** A's module of a snapshot: its file in the capture directory, else kind, size and hash. */
    private String module(KernelSnapshots ks, CaptureRecord.Kernel k) {
        CaptureRecord.KernelLaunch l = k.launch();
        if (l == null || l.moduleHash() == 0) return "(not kept)";
        String file = sa.moduleFiles.get(l.moduleHash());
        if (file != null) return file;
        CaptureRecord.Blob b = sa.blob(l.moduleHash());
        return String.format("module image, %s, xxh64 %016x", b == null ? "not in the capture" : b.size() + " bytes", l.moduleHash());
    }

    /** A path as a shell word: as it is when plain, else in single quotes. */
    static String shellQuote(String s) {
        if (s.matches("[A-Za-z0-9_./:@%+=,-]+")) return s;
        return "'" + s.replace("'", "'\\''") + "'";
    }

    /** Element-wise comparison of two buffers; null when they are equal within the tolerance. */
    DiffResult.DataDiff compareBuffers(String buffer, byte[] ba, byte[] bb, ElementType t, boolean heat) {
        return compareBuffers(buffer, ba, bb, t, options.tolerance(), false, heat);
    }

    /**
     * Element-wise comparison of two buffers, A the reference: the count of differing elements, the
     * first with both values, the largest |a − b|, relative error and distance in ULPs — what every
     * report of {@code zluda diff} (and {@code zluda replay}'s, {@link ReplayBuffers}) shows of a buffer.
     *
     * @param tol     elements within it are equal (unless {@code bitwise})
     * @param bitwise an element differs exactly when its bits differ ({@code +0} against {@code −0}, two
     *                NaNs with other payloads included), whatever {@code tol} says
     * @param heat    whether to build a heatmap
     * @return null when no element differs and the trailing bytes are equal
     */
    static DiffResult.DataDiff compareBuffers(String buffer, byte[] ba, byte[] bb, ElementType t, Tolerance tol, boolean bitwise, boolean heat) {
        int common = Math.min(ba.length, bb.length);
        int es = t.size();
        int elements = common / es;
        ByteBuffer x = ByteBuffer.wrap(ba).order(ByteOrder.LITTLE_ENDIAN), y = ByteBuffer.wrap(bb).order(ByteOrder.LITTLE_ENDIAN);
        ElementType.Delta delta = new ElementType.Delta();
        long differing = 0, first = -1;
        double maxAbs = Double.NaN;
        long maxUlps = -1;
        double maxRel = Double.NaN;
        Heatmap.Builder hm = heat ? new Heatmap.Builder(Math.max(1, (Math.max(ba.length, bb.length) + es - 1) / es)) : null;
        for (int k = 0; k < elements; k++) {
            if (bitwise) {
                if (Arrays.equals(ba, k * es, k * es + es, bb, k * es, k * es + es)) continue;
                delta.set(Double.NaN, -1, 1);        // left so when both are NaN
                t.differs(x, y, k, Tolerance.EXACT, delta);
            } else if (!t.differs(x, y, k, tol, delta)) {
                continue;
            }
            differing++;
            if (first < 0) first = k;
            if (!Double.isNaN(delta.abs) && (Double.isNaN(maxAbs) || delta.abs > maxAbs)) maxAbs = delta.abs;
            if (delta.ulps > maxUlps) maxUlps = delta.ulps;
            if (!Double.isNaN(delta.rel) && (Double.isNaN(maxRel) || delta.rel > maxRel)) maxRel = delta.rel;
            if (hm != null) hm.mark(k, delta.magnitude);
        }
        // trailing bytes that do not fill an element, and bytes past the shorter buffer
        boolean tailDiffers = !Arrays.equals(ba, elements * es, ba.length, bb, elements * es, bb.length);
        String note = null;
        if (ba.length != bb.length) note = "sizes differ: " + ba.length + " bytes in A, " + bb.length + " in B";
        else if (tailDiffers) note = "the last " + (ba.length - elements * es) + " bytes (not a whole " + t.name() + ") differ";
        if (differing == 0 && !tailDiffers) return null;
        if (hm != null && tailDiffers) {
            for (long k = elements; k < (Math.max(ba.length, bb.length) + es - 1) / es; k++) hm.mark(k, 1);
        }
        String va = first >= 0 ? t.format(x, (int) first) : "-", vb = first >= 0 ? t.format(y, (int) first) : "-";
        if (first < 0) {
            first = elements;
            differing = 0;
        }
        return new DiffResult.DataDiff(buffer, t.name(), ba.length, elements, differing, first, first * es, va, vb, maxAbs, maxRel, maxUlps, note,
                hm == null ? null : hm.build());
    }

    // ------------------------------------------------------------------ listing

    private DiffResult.Divergence detail(int number, Div d, boolean heat) {
        DiffKind kind = null;
        for (DiffKind k : DiffKind.values()) if ((d.mask & (1 << k.ordinal())) != 0) { kind = k; break; }
        DiffResult.CallRef a = d.a >= 0 ? ra.ref(d.a) : new DiffResult.CallRef(-1, d.aAfter, -1, null, null);
        DiffResult.CallRef b = d.b >= 0 ? rb.ref(d.b) : new DiffResult.CallRef(-1, d.bAfter, -1, null, null);
        List<DiffResult.Difference> diffs = List.of();
        if (d.a >= 0 && d.b >= 0) {
            Detail det = new Detail();
            det.div = d;
            det.heat = heat;
            compare(d.a, d.b, det);
            if (d.kernel != null) det.diffs.addAll(d.kernel);
            diffs = List.copyOf(det.diffs);
        } else if (d.a >= 0) {
            diffs = List.of(new DiffResult.Difference(DiffKind.MISSING, "call", a.text(), "(absent)", null));
        } else {
            diffs = List.of(new DiffResult.Difference(DiffKind.EXTRA, "call", "(absent)", b.text(), null));
        }
        return new DiffResult.Divergence(number, kind, a, b, diffs);
    }

    /** Driver and device of the manifests: ignored differences, or (strict) warnings. */
    private List<String> manifestDifferences(Capture ca, Capture cb) {
        List<String> strict = new ArrayList<>();
        JsonNode ma = ca.manifest(), mb = cb.manifest();
        String da = driver(ma), db = driver(mb);
        if (!da.isEmpty() && !db.isEmpty() && !da.equals(db)) manifestDiff(Expected.DRIVER_VERSION, "driver", da, db, strict);
        String va = device(ma), vb = device(mb);
        if (!va.isEmpty() && !vb.isEmpty() && !va.equals(vb)) manifestDiff(Expected.DEVICE_NAME, "devices[0].name", va, vb, strict);
        if (sa.exportTableCalls + sb.exportTableCalls > 0) {
            // calls through export-table slots: the NVIDIA tracer records them, zluda's driver serves the
            // tables itself; they were left out of the alignment (CallFacts) and are only counted here
            ignoredCounts.merge(Expected.EXPORT_TABLE, sa.exportTableCalls + sb.exportTableCalls, Long::sum);
            if (ignored.size() < options.limit()) {
                ignored.add(new DiffResult.Ignored(Expected.EXPORT_TABLE, -1, -1, "{GUID}::slot N", "calls through export-table slots (left out; --strict aligns them)",
                        Long.toString(sa.exportTableCalls), Long.toString(sb.exportTableCalls)));
            }
        }
        if (sa.libraryInternalCalls + sb.libraryInternalCalls > 0) {
            // calls made inside library calls, and on the modules the libraries loaded there: the
            // libraries' own business (another cuBLAS makes other driver calls), left out (CallFacts)
            ignoredCounts.merge(Expected.LIBRARY_INTERNALS, sa.libraryInternalCalls + sb.libraryInternalCalls, Long::sum);
            if (ignored.size() < options.limit()) {
                ignored.add(new DiffResult.Ignored(Expected.LIBRARY_INTERNALS, -1, -1, "(inside library calls)",
                        "calls made inside library calls and on the modules the libraries loaded (left out; --library-internals aligns them)",
                        Long.toString(sa.libraryInternalCalls), Long.toString(sb.libraryInternalCalls)));
            }
        }
        return strict;
    }

    private void manifestDiff(Expected e, String what, String a, String b, List<String> strict) {
        if (options.strict()) {
            strict.add("the manifests differ (" + e.label() + "): " + what + " is " + a + " in A, " + b + " in B");
            return;
        }
        ignoredCounts.merge(e, 1L, Long::sum);
        if (ignored.size() < options.limit()) ignored.add(new DiffResult.Ignored(e, -1, -1, "manifest", what, a, b));
    }

    private static String driver(JsonNode m) {
        JsonNode d = m.path("driver");
        if (d.isMissingNode()) return "";
        String name = d.path("name").asText(""), version = d.path("version").asText("");
        String lib = d.path("library").asText("");
        String v = (name + " " + version).trim();
        if (lib.matches(".*\\.so\\.\\d+(\\.\\d+)+$")) v += " (" + lib.substring(lib.lastIndexOf(".so.") + 4) + ")";
        return v;
    }

    private static String device(JsonNode m) {
        JsonNode d = m.path("devices");
        return d.isArray() && !d.isEmpty() ? d.get(0).path("name").asText("") : "";
    }

    private static String program(Capture c) {
        JsonNode m = c.manifest();
        String p = m.path("program").asText("");
        if (p.isEmpty()) return "";
        p = p.substring(p.lastIndexOf('/') + 1);
        StringBuilder sb = new StringBuilder(p);
        for (JsonNode a : m.path("arguments")) sb.append(' ').append(a.asText());
        return sb.toString();
    }

    private static void warnings(CallFacts s, String label, List<String> out) {
        ReadStatus st = s.status;
        if (st != null && st.stoppedEarly()) out.add("capture " + label + " is " + st.summary() + " (records not read are not compared)");
        if (s.inFlight > 0) out.add("capture " + label + " ends with " + s.inFlight + (s.inFlight == 1 ? " call" : " calls") + " in flight (entered, never returned)");
    }

    private static DiffResult.Side side(Capture c, CallFacts s) {
        JsonNode m = c.manifest();
        String note = null;
        ReadStatus st = s.status;
        if (st != null && st.stoppedEarly()) note = st.summary();
        else if (st != null && !st.endedCleanly()) note = "no process end (killed, crashed, or written without one)";
        String device = device(m);
        if (device.isEmpty() && s.deviceName != null) device = s.deviceName; // manifests name no device: the one the program asked about
        return new DiffResult.Side(c.source().toString(), program(c), driver(m), device, s.n, s.threadIds.size(), note, level(c));
    }

    // ------------------------------------------------------------------ rendering

    /** Renders calls and values of one side with normalised symbols. */
    private final class Render {
        private final CallFacts s;
        private final Facts f = new Facts();
        private final dev.zluda.capture.text.CallFormatter fmt;

        Render(CallFacts s) {
            this.s = s;
            this.fmt = new dev.zluda.capture.text.CallFormatter(k -> null, k -> "?", s.strings);
        }

        String result(int call) {
            if (s.inFlight(call)) return "(in flight)";
            String name = s.function(call);
            if (!CudaApi.libraryOf(name).equals(CudaApi.DRIVER)) {
                // a library call: its status by its library's enum (CUBLAS_STATUS_SUCCESS)
                var lf = CudaApi.anyFunction(name);
                if (lf.isPresent()) return fmt.returnsValue(lf.get()) ? "(a value)" : fmt.result(lf.get(), s.result(call));
            }
            return fmt.result(s.result(call));
        }

        DiffResult.CallRef ref(int call) {
            return new DiffResult.CallRef(s.ordinal(call), -1, s.threadId(call), s.function(call), text(call));
        }

        /** {@code name(arg: value, ...) -> RESULT} with symbols. */
        String text(int call) {
            f.decode(s.store, s.facts[call]);
            Normaliser.Plan plan = s.plan(call);
            StringBuilder sb = new StringBuilder(s.function(call)).append('(');
            int np = plan.params.length;
            for (int p = 0; p < np; p++) {
                if (p > 0) sb.append(", ");
                sb.append(plan.params[p].name).append(": ");
                int role = hasRole(p, Facts.OUT) ? Facts.OUT : hasRole(p, Facts.IN) ? Facts.IN : Facts.ARG;
                sb.append(group(call, p, role));
            }
            sb.append(") -> ").append(result(call));
            return sb.toString();
        }

        private boolean hasRole(int p, int role) {
            for (int i = 0; i < f.n; i++) if (f.param[i] == p && f.role[i] == role) return true;
            return false;
        }

        private String group(int call, int p, int role) {
            List<Integer> idx = new ArrayList<>();
            for (int i = 0; i < f.n; i++) if (f.param[i] == p && f.role[i] == role) idx.add(i);
            if (idx.isEmpty()) return "?";
            if (idx.size() == 1 && f.field[idx.getFirst()] == 0) return value(call, f, idx.getFirst());
            StringBuilder sb = new StringBuilder();
            int elems = 0;
            int lastElem = -1;
            boolean fields = false;
            for (int i : idx) {
                if (f.elem[i] != lastElem) {
                    if (lastElem >= 0) sb.append(fields ? "}, " : ", ");
                    elems++;
                    if (elems > 8) {
                        sb.append("…");
                        fields = false;
                        break;
                    }
                    lastElem = f.elem[i];
                    fields = f.field[i] > 0;
                    if (fields) sb.append('{');
                } else {
                    sb.append(", ");
                }
                if (f.field[i] > 0) sb.append(fieldName(call, f, i)).append(": ");
                sb.append(value(call, f, i));
            }
            if (fields) sb.append('}');
            boolean many = idx.stream().map(k -> f.elem[k]).distinct().count() > 1;
            return many ? "[" + sb + "]" : sb.toString();
        }

        private String fieldName(int call, Facts g, int i) {
            Normaliser.Plan plan = s.plan(call);
            int p = g.param[i];
            if (p < plan.params.length && plan.params[p].data != null) {
                List<Types.Field> fs = plan.params[p].data.fields();
                int k = g.field[i] - 1;
                if (k >= 0 && k < fs.size()) return fs.get(k).name();
            }
            return "field" + g.field[i];
        }

        /** Which value a fact is: {@code pctx (output)}, {@code pCopy.srcDevice}, {@code optionValues[1] (input)}. */
        String what(int call, Facts g, int i) {
            Normaliser.Plan plan = s.plan(call);
            int p = g.param[i];
            StringBuilder sb = new StringBuilder(p < plan.params.length ? plan.params[p].name : "arg" + p);
            if (g.role[i] != Facts.ARG) {
                boolean many = false;
                for (int k = 0; k < g.n; k++) if (g.param[k] == p && g.role[k] == g.role[i] && g.elem[k] != 0) many = true;
                if (many) sb.append('[').append(g.elem[i]).append(']');
                if (g.field[i] > 0) sb.append('.').append(fieldName(call, g, i));
                String r = g.role[i] == Facts.OUT ? "output" : "input";
                String key = jitOptionName(call, g, i);
                sb.append(" (").append(key != null ? key + ", " : "").append(r).append(g.type[i] == Facts.T_DATA ? " data" : "").append(')');
            }
            return sb.toString();
        }

        /** A buffer for reports: {@code dstHost ← srcDevice dptr#3+0x0}. */
        String buffer(int call, Facts g, int i) {
            String what = what(call, g, i).replaceFirst(" \\(.*\\)$", "");
            Normaliser.Plan plan = s.plan(call);
            StringBuilder dev = new StringBuilder();
            for (int k = 0; k < g.n; k++) {
                if (g.role[k] == Facts.ARG && g.type[k] == Facts.T_SYM && g.v1[k] == types.dptrKind) {
                    int p = g.param[k];
                    dev.append(p < plan.params.length ? plan.params[p].name : "arg" + p).append(' ').append(value(call, g, k));
                    break;
                }
            }
            if (dev.isEmpty()) return what;
            return g.role[i] == Facts.OUT ? what + " ← " + dev : what + " → " + dev;
        }

        /** The element type the spec gives a buffer's pointee, or null ({@code void}). */
        ElementType elementType(int call, Facts g, int i) {
            if (g.field[i] > 0) return ElementTypes.U8;
            Normaliser.Plan plan = s.plan(call);
            int p = g.param[i];
            if (p >= plan.params.length || plan.params[p].spec == null) return null;
            return ElementTypes.forCType(plan.params[p].spec.pointeeType()).orElse(null);
        }

        String value(int call, Facts g, int i) {
            return switch (g.type[i]) {
                case Facts.T_NULL -> "NULL";
                case Facts.T_SYM -> types.kindName((int) g.v1[i]) + "#" + g.v2[i] + (g.v1[i] == types.dptrKind && g.v3[i] != 0 ? "+0x" + Long.toHexString(g.v3[i]) : "");
                case Facts.T_ADDR -> "0x" + Long.toHexString(g.v1[i]);
                case Facts.T_STRING -> dev.zluda.capture.text.CallFormatter.quote(new String(g.page, g.bOff[i], g.bLen[i], java.nio.charset.StandardCharsets.UTF_8));
                case Facts.T_UNREADABLE -> "<unreadable>";
                case Facts.T_VALUE -> plainValue(call, g, i);
                case Facts.T_DATA -> dataValue(call, g, i);
                default -> "?";
            };
        }

        /** The CUjit_option key of a JIT option value ({@code optionValues[k]}): its number, or -1. */
        private int jitOption(int call, Facts g, int i) {
            Normaliser.Plan plan = s.plan(call);
            int p = g.param[i];
            if (p >= plan.params.length || plan.params[p].jitKeys < 0 || g.role[i] == Facts.ARG) return -1;
            int keys = plan.params[p].jitKeys;
            for (int k = 0; k < g.n; k++) {
                if (g.param[k] != keys || g.role[k] != Facts.IN) continue;
                if (g.type[k] == Facts.T_VALUE && g.elem[k] == g.elem[i]) return (int) g.v1[k];
                // the CUjit_option array kept as bytes: element elem is the int at 4 * elem
                if (g.type[k] == Facts.T_DATA && g.bLen[k] >= 4 * (g.elem[i] + 1)) return (int) Normaliser.le(g.page, g.bOff[k] + 4 * g.elem[i], 4);
            }
            return -1;
        }

        /** {@code CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES} for a JIT option value, or null. */
        private String jitOptionName(int call, Facts g, int i) {
            int opt = jitOption(call, g, i);
            if (opt < 0) return null;
            return api.enumType("CUjit_option").flatMap(e -> e.nameOf(opt)).orElse("CUjit_option " + opt);
        }

        private String plainValue(int call, Facts g, int i) {
            Normaliser.Plan plan = s.plan(call);
            int p = g.param[i];
            Normaliser.Param pp = p < plan.params.length ? plan.params[p] : null;
            long v = g.v1[i];
            if (pp != null && pp.jitKeys >= 0 && g.role[i] != Facts.ARG) {
                // a JIT option's value: a number (sizes, counts, levels), CU_JIT_WALL_TIME a float in ms
                return jitOption(call, g, i) == Normaliser.JIT_WALL_TIME
                        ? Float.intBitsToFloat((int) v) + " ms" : Long.toUnsignedString(v);
            }
            if (g.role[i] == Facts.ARG && pp != null && pp.spec != null) return fmt.value(pp.spec, v, null);
            if (g.field[i] > 0 && pp != null && pp.data != null && g.field[i] - 1 < pp.data.fields().size()) {
                Types.Field fd = pp.data.fields().get(g.field[i] - 1);
                return scalar(fd.type().cType(), v, fd.size());
            }
            if (pp != null && pp.data != null) return scalar(pp.data.cType(), v, pp.data.size());
            return Long.toString(v);
        }

        private String scalar(String cType, long v, int size) {
            var e = api.enumType(cType);
            if (e.isPresent()) return e.get().nameOf(size == 4 ? (int) v : v).orElse(Long.toString(v));
            if (cType.equals("float")) return Float.toString(Float.intBitsToFloat((int) v));
            if (cType.equals("double")) return Double.toString(Double.longBitsToDouble(v));
            boolean unsigned = cType.contains("unsigned") || cType.startsWith("cuuint") || cType.equals("size_t") || cType.startsWith("uint");
            if (unsigned || size >= 8) return unsigned ? Long.toUnsignedString(v) : Long.toString(v);
            int bits = size * 8;
            return bits > 0 ? Long.toString((v << (64 - bits)) >> (64 - bits)) : Long.toString(v);
        }

        private String dataValue(int call, Facts g, int i) {
            long size = g.v2[i];
            int kind = (int) g.v3[i];
            Normaliser.Plan plan = s.plan(call);
            int p = g.param[i];
            Normaliser.Param pp = p < plan.params.length ? plan.params[p] : null;
            if (g.bLen[i] == size && kind == CaptureFormat.ITEM_INLINE && size <= 64 && pp != null && pp.spec != null && g.field[i] == 0) {
                return fmt.value(pp.spec, 1, new DataItem(p, CaptureFormat.ITEM_INLINE, g.bytes(i), 0, size, -1));
            }
            String how = switch (kind) {
                case CaptureFormat.ITEM_HASH_ONLY -> "hash only, ";
                case CaptureFormat.ITEM_TRUNCATED -> "truncated, ";
                default -> "";
            };
            return String.format("<%d bytes, %sxxh64 %016x>", size, how, g.v1[i]);
        }
    }
}
