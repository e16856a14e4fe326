package dev.zluda.replay;

import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureException;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.KernelSnapshots;
import dev.zluda.ptx.FunctionInfo;
import dev.zluda.ptx.ParamInfo;
import dev.zluda.ptx.ParseResult;
import dev.zluda.ptx.Ptx;
import dev.zluda.ptx.Semantics;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Instruction-level localisation of a kernel divergence: which PTX instruction first computes a
 * different value on two drivers, for one snapshotted launch (trace-format/FORMAT.md §6.5).
 *
 * <p>Both sides start from the snapshot's before-images (fresh allocations, parameter words
 * relocated as in {@link KernelReplay}). Pass 1 runs the kernel on both sides instrumented to record
 * every thread's first {@value #STORE_SLOTS} {@code st} addresses ({@link PtxInstrumenter#stores});
 * the buffers it leaves are compared byte by byte, and the thread whose store covers the first
 * differing byte is the one traced (else the {@code thread} option, else thread (0,0,0) of CTA
 * (0,0,0)). Pass 2 runs the kernel on both sides instrumented to record that thread's destination
 * value after every instruction ({@link PtxInstrumenter#values}), at most {@code limit} of them;
 * the two sequences are compared in order and the first record that differs (instruction or value)
 * names the instruction.
 */
public final class Locate {
    static final int STORE_SLOTS = 8;
    /** Largest store-address trace (bytes) pass 1 allocates; beyond it the thread is not looked up. */
    static final long MAX_STORE_TRACE = 256L << 20;

    private Locate() {}

    /**
     * What to compare.
     *
     * @param on       the driver under test: zluda, nvidia or a path
     * @param onPtx    PTX to load on {@code on} instead of the recorded module, or null
     * @param against  the reference driver
     * @param againstPtx PTX to load on {@code against}, or null
     * @param thread   ctaid x,y,z and tid x,y,z of the thread to trace, or null (found from the buffers)
     * @param limit    instruction results recorded for the traced thread
     * @param zludaHome the distribution directory (for a native driver), or null
     * @param onPtxName what the report calls {@code onPtx} (its file name), or null: "given PTX"
     * @param againstPtxName what the report calls {@code againstPtx}, or null: "given PTX"
     */
    public record Options(String on, String onPtx, String against, String againstPtx, int[] thread, int limit, java.nio.file.Path zludaHome,
                          String onPtxName, String againstPtxName) {
        /** Options whose given PTX texts are called "given PTX" in the report. */
        public Options(String on, String onPtx, String against, String againstPtx, int[] thread, int limit, java.nio.file.Path zludaHome) {
            this(on, onPtx, against, againstPtx, thread, limit, zludaHome, null, null);
        }
    }

    /**
     * How the report names one side: the driver, with the PTX file it ran when it was given one
     * ({@code zluda (a.ptx)}, or {@code (given PTX)} without a name); on the same driver as the
     * other side, which was given PTX, {@code (recorded PTX)}: so that two runs on one driver can
     * be told apart.
     */
    static String label(String driver, String ptx, String ptxName, String otherDriver, String otherPtx) {
        if (ptx != null) return driver + " (" + (ptxName != null ? ptxName : "given PTX") + ")";
        return otherPtx != null && driver.equals(otherDriver) ? driver + " (recorded PTX)" : driver;
    }

    /**
     * Which instruction of B's PTX each instruction of A's is (-1: none), by their text: the longest
     * common subsequence of the two instruction lists (whitespace-insensitive), after the common
     * prefix and suffix; where the middle is too long for that (more than 4·10^6 pairs), by position.
     * An instruction changed in place (add.f32 → sub.f32) has no partner on either side.
     */
    static int[] partners(List<PtxInstrumenter.Site> a, List<PtxInstrumenter.Site> b) {
        int n = a.size(), m = b.size();
        int[] p = new int[n];
        java.util.Arrays.fill(p, -1);
        String[] ta = new String[n], tb = new String[m];
        for (int i = 0; i < n; i++) ta[i] = a.get(i).text().strip().replaceAll("\\s+", " ");
        for (int j = 0; j < m; j++) tb[j] = b.get(j).text().strip().replaceAll("\\s+", " ");
        int pre = 0;
        while (pre < n && pre < m && ta[pre].equals(tb[pre])) { p[pre] = pre; pre++; }
        int suf = 0;
        while (suf < n - pre && suf < m - pre && ta[n - 1 - suf].equals(tb[m - 1 - suf])) { p[n - 1 - suf] = m - 1 - suf; suf++; }
        int x = n - pre - suf, y = m - pre - suf;
        if (x == 0 || y == 0) return p;
        if ((long) x * y > 4_000_000L) {
            for (int i = 0; i < Math.min(x, y); i++) if (ta[pre + i].equals(tb[pre + i])) p[pre + i] = pre + i;
            return p;
        }
        int[][] l = new int[x + 1][y + 1];
        for (int i = x - 1; i >= 0; i--) {
            for (int j = y - 1; j >= 0; j--) {
                l[i][j] = ta[pre + i].equals(tb[pre + j]) ? l[i + 1][j + 1] + 1 : Math.max(l[i + 1][j], l[i][j + 1]);
            }
        }
        for (int i = 0, j = 0; i < x && j < y; ) {
            if (ta[pre + i].equals(tb[pre + j])) { p[pre + i] = pre + j; i++; j++; }
            else if (l[i + 1][j] >= l[i][j + 1]) i++;
            else j++;
        }
        return p;
    }

    /** The PTX a side ran, for a line number: its file name, {@code the given PTX} or {@code the recorded PTX}. */
    static String file(String ptx, String ptxName) {
        return ptx == null ? "the recorded PTX" : ptxName != null ? ptxName : "the given PTX";
    }

    /** One side's run: result, buffers after, trace bytes, fresh buffer addresses, device. */
    record Run(int result, List<byte[]> buffers, byte[] trace, List<Long> fresh, String driver) {}

    /**
     * The verdict.
     *
     * @param found    whether a divergence was found
     * @param exitCode 0 none, 1 found
     * @param lines    the report, line by line
     */
    public record Result(boolean found, int exitCode, List<String> lines) {
        /** Prints the report. */
        public void print(PrintWriter out) {
            for (String l : lines) out.println(l);
            out.flush();
        }

        /** The report as one string. */
        public String text() {
            return String.join("\n", lines) + "\n";
        }
    }

    /**
     * Localises the divergence of snapshot {@code which} between {@code o.on()} and {@code o.against()}.
     *
     * @throws ReplayException when the snapshot, its PTX or a driver is unusable, or a driver call fails
     */
    public static Result run(Capture cap, String which, Options o) throws ReplayException {
        KernelSnapshots ks = KernelSnapshots.read(cap);
        KernelSnapshots.Snapshot snap = KernelReplay.snapshot(ks, which);
        CaptureRecord.Kernel k = snap.record();
        CaptureRecord.KernelLaunch l = k.launch();
        if (l == null || l.moduleHash() == 0) throw new ReplayException("kernel snapshot #" + snap.number() + " kept no module image; record again with --capture-kernels");
        String recorded;
        try {
            byte[] img = ks.blob(l.moduleHash(), "the module image of kernel " + k.name());
            List<String> why = new ArrayList<>();
            recorded = KernelReplay.ptxOf(img, why); // PTX text, or the newest PTX in a fatbin/ELF
            if (recorded == null) throw new ReplayException("the module of kernel " + k.name() + " holds no PTX: --locate instruments PTX only ("
                    + String.join("; ", why) + ")");
        } catch (CaptureException e) {
            throw new ReplayException(e.getMessage(), e);
        }
        String ptxA = o.onPtx() != null ? o.onPtx() : recorded, ptxB = o.againstPtx() != null ? o.againstPtx() : recorded;
        ParseResult pr = Ptx.parse(ptxA, "module");
        if (pr.module() == null) throw new ReplayException("the PTX does not parse: " + pr.diagnostics());
        FunctionInfo fi = Semantics.analyze(pr.module(), "module").function(k.name());
        if (fi == null) throw new ReplayException("the PTX has no kernel " + k.name());
        List<PtxInstrumenter.Site> sitesA = PtxInstrumenter.sites(ptxA, k.name()), sitesB = PtxInstrumenter.sites(ptxB, k.name());
        String la = label(o.on(), o.onPtx(), o.onPtxName(), o.against(), o.againstPtx()),
                lb = label(o.against(), o.againstPtx(), o.againstPtxName(), o.on(), o.onPtx());
        List<String> lines = new ArrayList<>();
        lines.add("kernel snapshot " + snap.summary());
        lines.add("  localising: " + la + " against " + lb);
        if (sitesA.size() != sitesB.size()) lines.add("  note: the two PTX texts have " + sitesA.size() + " and " + sitesB.size() + " instructions; records are compared in execution order");

        long[] grid = {l.gridX(), l.gridY(), l.gridZ(), l.blockX(), l.blockY(), l.blockZ()};
        long threads = grid[0] * grid[1] * grid[2] * grid[3] * grid[4] * grid[5];
        int[] who = o.thread();
        if (who != null) {
            for (int i = 0; i < 6; i++) {
                if (who[i] < 0 || who[i] >= grid[i]) {
                    throw new ReplayException(String.format(Locale.ROOT, "--thread %d,%d,%d:%d,%d,%d is outside the launch: grid (%d,%d,%d), block (%d,%d,%d)",
                            who[0], who[1], who[2], who[3], who[4], who[5], grid[0], grid[1], grid[2], grid[3], grid[4], grid[5]));
                }
            }
        }
        boolean buffersDiffer = false;
        if (who == null) {
            long storeBytes = threads * STORE_SLOTS * 16L;
            if (storeBytes > MAX_STORE_TRACE) {
                lines.add("  note: " + threads + " threads: too many to map output elements to threads; tracing thread (0,0,0) of CTA (0,0,0) (choose one with --thread)");
                who = new int[6];
            } else {
                Run a = launch(o.on(), o.zludaHome(), ks, k, fi, storeBytes, base -> PtxInstrumenter.stores(ptxA, k.name(), base, grid, STORE_SLOTS).ptx());
                Run b = launch(o.against(), o.zludaHome(), ks, k, fi, storeBytes, base -> PtxInstrumenter.stores(ptxB, k.name(), base, grid, STORE_SLOTS).ptx());
                lines.add("  pass 1 (every thread's store addresses): kernel result " + KernelReplay.errorName(null, a.result()) + " on " + la
                        + ", " + KernelReplay.errorName(null, b.result()) + " on " + lb);
                who = wrongThread(a, b, k, grid, sitesA, lines);
                if (who == null && a.result() != b.result()) {
                    lines.add("  the kernel result differs, its buffers are unreadable after the fault: tracing thread (0,0,0) of CTA (0,0,0) (choose one with --thread)");
                    who = new int[6];
                }
                buffersDiffer = who != null;
                if (who == null) {
                    lines.add("VERDICT: no divergence: every buffer the kernel touched comes out the same on both drivers (pass 1)"
                            + (a.result() != 0 ? "; both faulted alike, leaving them unreadable" : ""));
                    return new Result(false, 0, lines);
                }
            }
        }
        int[] w = who;
        long traceBytes = 16L + 16L * o.limit();
        Run a = launch(o.on(), o.zludaHome(), ks, k, fi, traceBytes, base -> PtxInstrumenter.values(ptxA, k.name(), base, w, o.limit()).ptx());
        Run b = launch(o.against(), o.zludaHome(), ks, k, fi, traceBytes, base -> PtxInstrumenter.values(ptxB, k.name(), base, w, o.limit()).ptx());
        String thread = String.format(Locale.ROOT, "thread (%d,%d,%d) of CTA (%d,%d,%d)", w[3], w[4], w[5], w[0], w[1], w[2]);
        MemorySegment ta = MemorySegment.ofArray(a.trace()), tb = MemorySegment.ofArray(b.trace());
        int na = ta.get(ValueLayout.JAVA_INT_UNALIGNED, 0), nb = tb.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
        lines.add(String.format(Locale.ROOT, "  pass 2 (%s, every destination value): %d results on %s, %d on %s (limit %d)", thread, na, la, nb, lb, o.limit()));
        if (a.result() != 0 || b.result() != 0) {
            lines.add("  note: kernel result " + KernelReplay.errorName(null, a.result()) + " on " + la + ", " + KernelReplay.errorName(null, b.result()) + " on " + lb
                    + (a.result() != b.result() ? "" : "; a faulting kernel leaves no readable trace"));
        }
        int n = Math.min(Math.min(na, nb), o.limit());
        int[] partner = partners(sitesA, sitesB), partnerB = new int[sitesB.size()];
        java.util.Arrays.fill(partnerB, -1);
        for (int q = 0; q < partner.length; q++) if (partner[q] >= 0) partnerB[partner[q]] = q;
        for (int i = 0; i < n; i++) {
            int ia = ta.get(ValueLayout.JAVA_INT_UNALIGNED, 16 + 16L * i), ib = tb.get(ValueLayout.JAVA_INT_UNALIGNED, 16 + 16L * i);
            int ea = ta.get(ValueLayout.JAVA_INT_UNALIGNED, 20 + 16L * i), eb = tb.get(ValueLayout.JAVA_INT_UNALIGNED, 20 + 16L * i);
            long va = ta.get(ValueLayout.JAVA_LONG_UNALIGNED, 24 + 16L * i), vb = tb.get(ValueLayout.JAVA_LONG_UNALIGNED, 24 + 16L * i);
            // the same instruction on both sides: partners by text, or both changed in place (add.f32 → sub.f32)
            boolean aAlone = ia >= 0 && ia < partner.length && partner[ia] < 0, bAlone = ib >= 0 && ib < partnerB.length && partnerB[ib] < 0;
            boolean sameSite = ia >= 0 && ia < partner.length ? partner[ia] == ib || aAlone && bAlone : ia == ib;
            if (sameSite && ea == eb && (va == vb || (where(a, k, va) != null && where(a, k, va).equals(where(b, k, vb))))) continue;
            PtxInstrumenter.Site sa = site(sitesA, ia), sb = site(sitesB, ib);
            if (aAlone != bAlone) {
                // one side's result comes from an instruction the other PTX does not have (inserted, or left out)
                PtxInstrumenter.Site only = aAlone ? sa : sb;
                String onlyLabel = aAlone ? la : lb, onlyFile = aAlone ? file(o.onPtx(), o.onPtxName()) : file(o.againstPtx(), o.againstPtxName());
                lines.add(String.format(Locale.ROOT, "FIRST DIVERGENCE: result %d of the %s comes, on %s only, from line %d of %s: %s",
                        i + 1, thread, onlyLabel, only.line(), onlyFile, only.text()));
                lines.add("  (the other PTX has no such instruction here; " + (aAlone ? lb : la) + "'s result " + (i + 1) + " comes from line "
                        + (aAlone ? sb : sa).line() + " of " + (aAlone ? file(o.againstPtx(), o.againstPtxName()) : file(o.onPtx(), o.onPtxName()))
                        + ": " + (aAlone ? sb : sa).text() + ")");
                lines.add(String.format(Locale.ROOT, "VERDICT: DIVERGENCE at line %d of %s", only.line(), onlyFile));
                return new Result(true, 1, lines);
            }
            if (!sameSite || ea != eb) {
                lines.add("FIRST DIVERGENCE: control flow: result " + (i + 1) + " of the " + thread + " comes from");
                lines.add("  " + la + ": line " + sa.line() + ": " + sa.text());
                lines.add("  " + lb + ": line " + sb.line() + ": " + sb.text());
                if (i > 0) {
                    PtxInstrumenter.Site prev = site(sitesA, ta.get(ValueLayout.JAVA_INT_UNALIGNED, 16 + 16L * (i - 1)));
                    lines.add("  the last result both computed alike: line " + prev.line() + ": " + prev.text());
                }
            } else {
                String reg = ea < sa.dests().size() ? sa.dests().get(ea) : "?", type = ea < sa.types().size() ? sa.types().get(ea) : "64";
                lines.add(String.format(Locale.ROOT, "FIRST DIVERGENCE: line %d: %s", sa.line(), sa.text()));
                if (!sa.text().equals(sb.text()) || sa.line() != sb.line()) {
                    lines.add(String.format(Locale.ROOT, "  (line %d of %s; %s: line %d of %s: %s)", sa.line(), file(o.onPtx(), o.onPtxName()), lb, sb.line(),
                            file(o.againstPtx(), o.againstPtxName()), sb.text()));
                }
                lines.add(String.format(Locale.ROOT, "  %s (%s, result %d of the %s)", reg, type.equals(".pred") ? "predicate" : type + "-bit", i + 1, thread));
                lines.add("  " + la + ": " + PtxInstrumenter.show(va, type) + at(a, k, va, type));
                lines.add("  " + lb + ": " + PtxInstrumenter.show(vb, type) + at(b, k, vb, type));
            }
            lines.add("VERDICT: DIVERGENCE at line " + sa.line());
            return new Result(true, 1, lines);
        }
        if (na != nb) {
            lines.add("FIRST DIVERGENCE: the " + thread + " computed " + na + " results on " + la + " and " + nb + " on " + lb
                    + "; the first " + n + " are the same");
            if (n < o.limit()) {
                // the first result of the longer trace that the shorter one has no counterpart for: an inserted
                // instruction, or one the other side skipped
                boolean inA = na > nb;
                MemorySegment t = inA ? ta : tb;
                PtxInstrumenter.Site extra = site(inA ? sitesA : sitesB, t.get(ValueLayout.JAVA_INT_UNALIGNED, 16 + 16L * n));
                lines.add(String.format(Locale.ROOT, "  result %d, on %s only: line %d of %s: %s", n + 1, inA ? la : lb, extra.line(),
                        inA ? file(o.onPtx(), o.onPtxName()) : file(o.againstPtx(), o.againstPtxName()), extra.text()));
            }
            lines.add("VERDICT: DIVERGENCE after result " + n);
            return new Result(true, 1, lines);
        }
        if (na > o.limit()) {
            lines.add("VERDICT: no divergence in the first " + o.limit() + " of " + na + " results of the " + thread
                    + " (the kernel loops: the trace is full; raise --trace-limit to look further)");
            return new Result(false, 0, lines);
        }
        if (fiHasCalls(ptxA, k.name())) lines.add("  note: the kernel calls device functions; their instructions are not traced, only the values they return");
        if (buffersDiffer) {
            lines.add("VERDICT: NOT LOCATED: the buffers differ (pass 1) but all " + na + " results of the " + thread
                    + " are the same on both drivers; trace another thread with --thread");
            return new Result(false, 1, lines);
        }
        lines.add("VERDICT: no divergence: all " + na + " results of the " + thread + " are the same on both drivers");
        return new Result(false, 0, lines);
    }

    /**
     * A 64-bit value that points into (or one past) a buffer of this run, as "buffer N+OFF", or null:
     * the two runs' allocations lie at different addresses, so such values compare by buffer and offset.
     * An address inside a buffer wins over one past the end of another: NVIDIA's driver places
     * allocations back to back, so the end of one is the start of the next (seen on an H200).
     */
    static String where(List<Long> fresh, CaptureRecord.Kernel k, long v) {
        for (int i = 0; i < fresh.size(); i++) {
            long size = k.buffers().get(i).size();
            if (Long.compareUnsigned(v - fresh.get(i), size) < 0) return "buffer " + (i + 1) + "+" + (v - fresh.get(i));
        }
        for (int i = 0; i < fresh.size(); i++) {
            if (v - fresh.get(i) == k.buffers().get(i).size()) return "buffer " + (i + 1) + "+" + (v - fresh.get(i));
        }
        return null;
    }

    private static String where(Run r, CaptureRecord.Kernel k, long v) {
        return where(r.fresh(), k, v);
    }

    private static String at(Run r, CaptureRecord.Kernel k, long v, String type) {
        String w = type.equals("64") ? where(r, k, v) : null;
        return w == null ? "" : " = " + w;
    }

    private static boolean fiHasCalls(String ptx, String kernel) throws ReplayException {
        return PtxInstrumenter.values(ptx, kernel, 0, new int[6], 1).hasCalls();
    }

    private static PtxInstrumenter.Site site(List<PtxInstrumenter.Site> s, int i) {
        return i >= 0 && i < s.size() ? s.get(i) : new PtxInstrumenter.Site(i, 0, "(instruction " + i + ")", List.of(), List.of());
    }

    /** The thread whose store covers the first byte that differs between the two runs, or null when no byte differs. */
    private static int[] wrongThread(Run a, Run b, CaptureRecord.Kernel k, long[] grid, List<PtxInstrumenter.Site> sites, List<String> lines) {
        for (int i = 0; i < a.buffers().size(); i++) {
            byte[] x = a.buffers().get(i), y = b.buffers().get(i);
            if (x == null || y == null) continue;
            int off = Arrays.mismatch(x, y);
            if (off < 0) continue;
            lines.add(String.format(Locale.ROOT, "  first differing byte: buffer %d (recorded at 0x%x), byte %d", i + 1, k.buffers().get(i).devicePointer(), off));
            for (Run side : List.of(a, b)) {
            long target = side.fresh().get(i) + off;
            MemorySegment t = MemorySegment.ofArray(side.trace());
            long records = side.trace().length / 16;
            for (long r = 0; r < records; r++) {
                int idx = t.get(ValueLayout.JAVA_INT_UNALIGNED, 16 * r) - 1;
                if (idx < 0) continue;
                long addr = t.get(ValueLayout.JAVA_LONG_UNALIGNED, 16 * r + 8);
                int width = storeWidth(idx < sites.size() ? sites.get(idx).text() : "");
                if (target >= addr && target < addr + width) {
                    long g = r / STORE_SLOTS, bt = grid[3] * grid[4] * grid[5];
                    long cta = g / bt, tin = g % bt;
                    int[] who = {(int) (cta % grid[0]), (int) (cta / grid[0] % grid[1]), (int) (cta / grid[0] / grid[1]),
                            (int) (tin % grid[3]), (int) (tin / grid[3] % grid[4]), (int) (tin / grid[3] / grid[4])};
                    lines.add(String.format(Locale.ROOT, "  stored by thread (%d,%d,%d) of CTA (%d,%d,%d) at line %d: %s", who[3], who[4], who[5], who[0], who[1], who[2],
                            sites.get(idx).line(), sites.get(idx).text()));
                    return who;
                }
            }
            }
            lines.add("  note: no st instruction of the first " + STORE_SLOTS + " per thread wrote that byte (atomics, or a later store); tracing thread (0,0,0) of CTA (0,0,0) (choose one with --thread)");
            return new int[6];
        }
        return null;
    }

    /** Bytes an {@code st} writes: type size × vector width, from its printed form. */
    static int storeWidth(String text) {
        int size = 8, vec = 1;
        for (String m : text.replaceFirst("^@\\S+\\s+", "").split("[\\s;]")[0].split("\\.")) {
            switch (m) {
                case "v2" -> vec = 2;
                case "v4" -> vec = 4;
                case "v8" -> vec = 8;
                case "b8", "u8", "s8" -> size = 1;
                case "b16", "u16", "s16", "f16", "bf16" -> size = 2;
                case "b32", "u32", "s32", "f32", "f16x2", "bf16x2" -> size = 4;
                case "b64", "u64", "s64", "f64" -> size = 8;
                case "b128" -> size = 16;
                default -> {}
            }
        }
        return size * vec;
    }

    private interface PtxFor {
        String ptx(long traceBase) throws ReplayException;
    }

    /** Runs the snapshot once on a driver with an instrumented PTX and a zeroed trace buffer of {@code traceBytes}. */
    private static Run launch(String on, java.nio.file.Path home, KernelSnapshots ks, CaptureRecord.Kernel k, FunctionInfo fi, long traceBytes, PtxFor ptxFor)
            throws ReplayException {
        Driver d;
        try {
            d = on.equals("zluda") ? new JavaDriver() : NativeDriver.load(on, home);
        } catch (IllegalStateException e) {
            throw new ReplayException(e.getMessage(), e);
        }
        CaptureRecord.KernelLaunch l = k.launch();
        List<Long> fresh = new ArrayList<>();
        long module = 0, trace = 0;
        int dev = 0;
        boolean ctx = false;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment p8 = arena.allocate(8, 8);
            check(d, d.cuInit(0), "cuInit(0)");
            check(d, d.cuDeviceGet(p8.address(), 0), "cuDeviceGet(0)");
            dev = p8.get(ValueLayout.JAVA_INT, 0);
            check(d, d.cuDevicePrimaryCtxRetain(p8.address(), dev), "cuDevicePrimaryCtxRetain");
            ctx = true;
            check(d, d.cuCtxSetCurrent(p8.get(ValueLayout.JAVA_LONG, 0)), "cuCtxSetCurrent");
            check(d, d.cuMemAlloc_v2(p8.address(), traceBytes), "cuMemAlloc_v2(" + traceBytes + ") for the trace");
            trace = p8.get(ValueLayout.JAVA_LONG, 0);
            MemorySegment zeros = arena.allocate(traceBytes, 16);
            check(d, d.cuMemcpyHtoD_v2(trace, zeros.address(), traceBytes), "zeroing the trace buffer");
            String ptx = ptxFor.ptx(trace);
            byte[] image = (ptx + "\0").getBytes(StandardCharsets.UTF_8);
            MemorySegment img = arena.allocate(image.length, 16);
            MemorySegment.copy(image, 0, img, ValueLayout.JAVA_BYTE, 0, image.length);
            MemorySegment opts = arena.allocateFrom(ValueLayout.JAVA_INT, 5, 6);
            MemorySegment log = arena.allocate(16384);
            MemorySegment vals = arena.allocateFrom(ValueLayout.JAVA_LONG, log.address(), 16384);
            int r = d.cuModuleLoadDataEx(p8.address(), img.address(), 2, opts.address(), vals.address());
            if (r != 0) throw new ReplayException(d.describe() + " does not load the instrumented PTX of " + k.name() + ": " + KernelReplay.errorName(d, r)
                    + "\n" + log.getString(0).strip());
            module = p8.get(ValueLayout.JAVA_LONG, 0);
            check(d, d.cuModuleGetFunction(p8.address(), module, arena.allocateFrom(k.name()).address()), "cuModuleGetFunction(" + k.name() + ")");
            long function = p8.get(ValueLayout.JAVA_LONG, 0);
            List<CaptureRecord.KernelBuffer> bufs = k.buffers();
            for (int i = 0; i < bufs.size(); i++) {
                CaptureRecord.KernelBuffer b = bufs.get(i);
                byte[] before = ks.blob(b.before(), "the before-image of buffer " + (i + 1));
                check(d, d.cuMemAlloc_v2(p8.address(), Math.max(1, b.size())), "cuMemAlloc_v2(" + b.size() + ")");
                fresh.add(p8.get(ValueLayout.JAVA_LONG, 0));
                MemorySegment host = arena.allocate(Math.max(1, b.size()), 16);
                MemorySegment.copy(before, 0, host, ValueLayout.JAVA_BYTE, 0, before.length);
                check(d, d.cuMemcpyHtoD_v2(fresh.getLast(), host.address(), b.size()), "cuMemcpyHtoD_v2 of buffer " + (i + 1));
            }
            byte[] params = k.params().clone();
            MemorySegment ps = MemorySegment.ofArray(params);
            for (int off = 0; off + 8 <= params.length; off += 8) {
                long v = ps.get(ValueLayout.JAVA_LONG_UNALIGNED, off);
                for (int i = 0; i < bufs.size(); i++) {
                    CaptureRecord.KernelBuffer b = bufs.get(i);
                    if (Long.compareUnsigned(v - b.devicePointer(), Math.max(1, b.size())) < 0) {
                        ps.set(ValueLayout.JAVA_LONG_UNALIGNED, off, fresh.get(i) + (v - b.devicePointer()));
                        break;
                    }
                }
            }
            MemorySegment pbuf = arena.allocate(Math.max(8, params.length), 16);
            MemorySegment.copy(params, 0, pbuf, ValueLayout.JAVA_BYTE, 0, params.length);
            MemorySegment arr = arena.allocate(8L * Math.max(1, fi.params().size()), 8);
            for (ParamInfo p : fi.params()) arr.setAtIndex(ValueLayout.JAVA_LONG, p.index(), pbuf.address() + p.offset());
            int lr = d.cuLaunchKernel(function, (int) l.gridX(), (int) l.gridY(), (int) l.gridZ(), (int) l.blockX(), (int) l.blockY(), (int) l.blockZ(),
                    (int) l.sharedMemBytes(), 0, arr.address(), 0);
            int sr = lr == 0 ? d.cuCtxSynchronize() : lr;
            List<byte[]> after = new ArrayList<>();
            for (int i = 0; i < bufs.size(); i++) {
                long size = Math.max(1, bufs.get(i).size());
                MemorySegment host = arena.allocate(size, 16);
                after.add(sr == 0 && d.cuMemcpyDtoH_v2(host.address(), fresh.get(i), bufs.get(i).size()) == 0
                        ? host.asSlice(0, bufs.get(i).size()).toArray(ValueLayout.JAVA_BYTE) : null);
            }
            byte[] t = new byte[(int) traceBytes];
            if (sr == 0) check(d, d.cuMemcpyDtoH_v2(zeros.address(), trace, traceBytes), "reading the trace back");
            MemorySegment.copy(zeros, ValueLayout.JAVA_BYTE, 0, t, 0, t.length);
            return new Run(sr, after, t, fresh, d.describe());
        } catch (CaptureException e) {
            throw new ReplayException(e.getMessage(), e);
        } finally {
            for (long p : fresh) d.cuMemFree_v2(p);
            if (trace != 0) d.cuMemFree_v2(trace);
            if (module != 0) d.cuModuleUnload(module);
            if (ctx) d.cuDevicePrimaryCtxRelease_v2(dev);
            d.close();
        }
    }

    private static void check(Driver d, int r, String what) throws ReplayException {
        if (r != 0) throw new ReplayException(what + " failed on " + d.describe() + ": " + KernelReplay.errorName(d, r));
    }
}
