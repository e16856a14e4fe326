package dev.zluda.diff;

import dev.zluda.spec.Role;
import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureFormat;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.DataItem;
import dev.zluda.capture.ReadStatus;
import dev.zluda.spec.CudaFunction;
import dev.zluda.spec.CudaParam;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * The index of one capture's calls, built while the capture is streamed once: a few primitive
 * columns per call (where its ENTER and LEAVE records lie in the file, start, duration, function,
 * thread, nesting depth, result), about 43 bytes a call, in pages that grow without copying.
 * Arguments and data are not kept: a call's records are decoded again from the mapped file when
 * they are needed (the viewer's {@code CallDecoder}), or read in the same pass by a record tap
 * ({@link #load(LongConsumer, BooleanSupplier, Consumer)}: the diff engine's normalised facts,
 * {@link CallFacts}). Besides the calls it keeps what is small: threads, STRING records, modules,
 * blobs (as views of the mapped file), kernel snapshots, markers, and the kernel names that
 * {@code cuModuleGetFunction}-like calls returned handles for. It is the one index of a capture
 * that the diff engine and the viewer ({@code zluda diff}, {@code zluda view}) share.
 *
 * <p>Calls are numbered from 0 in order of entry over the whole capture (call number {@code i + 1},
 * as {@code zluda dump --calls} counts and {@link dev.zluda.capture.Call#ordinal()} numbers). One
 * thread loads ({@link #load}); any thread may read calls below {@link #size()} meanwhile: a call's
 * result and duration appear once its LEAVE has been read, until then it reads as in flight.
 */
public final class CallIndex {
    private static final int PAGE_BITS = 15, PAGE = 1 << PAGE_BITS, MASK = PAGE - 1;

    /** Where a blob was first named by a call's data item: call number (0-based), parameter, and whether it was output data. */
    public record BlobUse(int call, int param, boolean out) {}

    /** A kernel a function handle stands for: its name and the module handle it came from (0 when unknown). */
    public record KernelName(String name, long module) {}

    /** A marker record: timestamp relative to the capture start (ns), thread, text. */
    public record Marker(long startNs, long threadId, String text) {}

    private final Capture capture;
    private final long startNs;
    private final int functionCount;

    // columns, paged
    private volatile long[][] enterOff = new long[8][], leaveOff = new long[8][], start = new long[8][], dur = new long[8][];
    private volatile int[][] fid = new int[8][], result = new int[8][];
    private volatile char[][] thread = new char[8][];
    private volatile byte[][] depth = new byte[8][];
    private int pages;
    private int n;
    private volatile int size;

    // threads
    private volatile long[] threadIds = new long[0];
    private final Map<Long, String> threadNames = new ConcurrentHashMap<>();
    private final Map<Long, ThreadState> threads = new HashMap<>();
    private volatile int[] laneDepth = new int[0];

    private final Map<Integer, String> strings = new ConcurrentHashMap<>();
    private final List<CaptureRecord.Module> modules = new ArrayList<>();
    private final Map<Long, CaptureRecord.Blob> blobs = new LinkedHashMap<>();
    private final Map<Long, BlobUse> blobUses = new HashMap<>();
    private final List<CaptureRecord.Kernel> kernels = new ArrayList<>();
    private final List<Marker> markers = new ArrayList<>();
    private final Map<Long, KernelName> kernelNames = new ConcurrentHashMap<>();
    private final Map<Long, Integer> kernelSnapshotByLaunch = new ConcurrentHashMap<>();
    private final long[] callsPerFunction;

    // what a load found
    private volatile long bytesRead, maxDurationNs, endNs, errors, orphanLeaves;
    private volatile int inFlight;
    private volatile ReadStatus status;
    private volatile boolean complete, cancelled;

    // kernel-name facts: functions whose ENTER names a kernel and whose LEAVE returns its handle
    private final boolean[] namesKernel;
    private final int[] kernelNameParam, kernelModuleParam;
    private final Map<Long, KernelName> pendingNames = new HashMap<>();

    /** An empty index of this capture; {@link #load} fills it. */
    public CallIndex(Capture capture) {
        this.capture = capture;
        this.startNs = capture.reader().header().startMonotonicNs();
        this.functionCount = capture.reader().functions().size();
        this.callsPerFunction = new long[functionCount];
        this.namesKernel = new boolean[functionCount];
        this.kernelNameParam = new int[functionCount];
        this.kernelModuleParam = new int[functionCount];
        for (int f = 0; f < functionCount; f++) {
            String name = capture.functionName(f);
            CudaFunction spec = capture.specFunction(f);
            if (spec == null) continue;
            if (spec.is(Role.FUNCTION_LOOKUP) && spec.params().size() >= 3) {
                namesKernel[f] = true;
                kernelNameParam[f] = spec.param("name").map(CudaParam::index).orElse(2);
                kernelModuleParam[f] = 1;
            }
        }
    }

    /** The capture this index is of. */
    public Capture capture() {
        return capture;
    }

    // ------------------------------------------------------------------ loading

    /**
     * Streams the whole capture and fills the index (once). Reports the bytes read so far to
     * {@code progress} now and then; stops early, leaving what was read, when {@code cancelled}
     * says so. Returns how reading ended (null when cancelled).
     */
    public ReadStatus load(LongConsumer progress, BooleanSupplier cancelled) {
        return load(progress, cancelled, null);
    }

    /**
     * The same, handing every record to {@code tap} (when not null) after the index has taken it
     * in, in the order of the capture: what else a reader wants from the same pass.
     */
    public ReadStatus load(LongConsumer progress, BooleanSupplier cancelled, Consumer<CaptureRecord> tap) {
        Iterator<CaptureRecord> it = capture.reader().iterator();
        long records = 0, nextPublish = 2048; // the first rows early, then every 16 K records
        ThreadState last = null;
        long lastTid = Long.MIN_VALUE;
        long maxDur = 0, end = 0, errs = 0;
        while (it.hasNext()) {
            CaptureRecord r = it.next();
            if (++records >= nextPublish) {
                nextPublish = records + 0x4000;
                size = n;
                bytesRead = r.offset();
                maxDurationNs = maxDur;
                endNs = end;
                errors = errs;
                if (progress != null) progress.accept(r.offset());
                if (cancelled != null && cancelled.getAsBoolean()) {
                    this.cancelled = true;
                    break;
                }
            }
            long ts = r.ts() - startNs;
            if (ts > end) end = ts;
            switch (r) {
                case CaptureRecord.Enter e -> {
                    ThreadState t = lastTid == e.threadId() ? last : threadState(e.threadId());
                    last = t;
                    lastTid = e.threadId();
                    int i = n;
                    if ((i & MASK) == 0) grow(i >>> PAGE_BITS);
                    int p = i >>> PAGE_BITS, o = i & MASK;
                    enterOff[p][o] = e.offset();
                    leaveOff[p][o] = -1;
                    start[p][o] = ts;
                    dur[p][o] = -1;
                    fid[p][o] = e.functionId();
                    thread[p][o] = (char) t.index;
                    int d = Math.min(e.depth(), 127);
                    depth[p][o] = (byte) d;
                    if (d > t.maxDepth) t.maxDepth = d;
                    t.push(i, e.seq());
                    callsPerFunction[e.functionId()]++;
                    if (!e.data().isEmpty()) noteItems(i, e.data(), false);
                    if (namesKernel[e.functionId()]) kernelFromEnter(e);
                    n = i + 1;
                }
                case CaptureRecord.Leave l -> {
                    ThreadState t = lastTid == l.threadId() ? last : threads.get(l.threadId());
                    if (t != null) {
                        last = t;
                        lastTid = l.threadId();
                    }
                    int i = t == null ? -1 : t.pop(l.enterSeq());
                    if (i < 0) {
                        orphanLeaves++;
                        if (tap != null) tap.accept(r);
                        continue;
                    }
                    int p = i >>> PAGE_BITS, o = i & MASK;
                    long dd = ts - start[p][o];
                    if (dd > maxDur) maxDur = dd;
                    dur[p][o] = dd;
                    leaveOff[p][o] = l.offset();
                    result[p][o] = l.result();
                    if (l.result() != 0) errs++;
                    if (!l.data().isEmpty()) noteItems(i, l.data(), true);
                    if (!pendingNames.isEmpty()) kernelFromLeave(l);
                }
                case CaptureRecord.StringDef s -> strings.put(s.id(), s.text());
                case CaptureRecord.Blob b -> {
                    synchronized (this) {
                        blobs.putIfAbsent(b.hash(), b);
                    }
                }
                case CaptureRecord.Module m -> {
                    synchronized (this) {
                        modules.add(m);
                    }
                }
                case CaptureRecord.Kernel k -> {
                    synchronized (this) {
                        kernels.add(k);
                        kernelSnapshotByLaunch.put(k.launchSeq(), kernels.size() - 1);
                    }
                }
                case CaptureRecord.Marker m -> {
                    synchronized (this) {
                        markers.add(new Marker(ts, m.threadId(), m.text()));
                    }
                }
                case CaptureRecord.ThreadName tn -> threadNames.put(tn.namedThread(), tn.name());
                default -> { }
            }
            if (tap != null) tap.accept(r);
        }
        int open = 0;
        for (ThreadState t : threads.values()) open += t.top;
        int[] lanes = new int[threadIds.length];
        for (ThreadState t : threads.values()) lanes[t.index] = t.maxDepth;
        laneDepth = lanes;
        inFlight = open;
        maxDurationNs = maxDur;
        endNs = end;
        errors = errs;
        bytesRead = capture.reader().fileSize();
        size = n;
        if (!this.cancelled) {
            status = capture.reader().status();
            complete = true;
        }
        if (progress != null) progress.accept(bytesRead);
        return status;
    }

    private void grow(int page) {
        if (page >= enterOff.length) {
            int len = enterOff.length * 2;
            enterOff = Arrays.copyOf(enterOff, len);
            leaveOff = Arrays.copyOf(leaveOff, len);
            start = Arrays.copyOf(start, len);
            dur = Arrays.copyOf(dur, len);
            fid = Arrays.copyOf(fid, len);
            result = Arrays.copyOf(result, len);
            thread = Arrays.copyOf(thread, len);
            depth = Arrays.copyOf(depth, len);
        }
        enterOff[page] = new long[PAGE];
        leaveOff[page] = new long[PAGE];
        start[page] = new long[PAGE];
        dur[page] = new long[PAGE];
        fid[page] = new int[PAGE];
        result[page] = new int[PAGE];
        thread[page] = new char[PAGE];
        depth[page] = new byte[PAGE];
        pages = page + 1;
    }

    private ThreadState threadState(long tid) {
        ThreadState t = threads.get(tid);
        if (t == null) {
            long[] ids = threadIds;
            if (ids.length >= Character.MAX_VALUE) throw new IllegalStateException("more than 65535 threads");
            t = new ThreadState(ids.length);
            long[] more = Arrays.copyOf(ids, ids.length + 1);
            more[ids.length] = tid;
            threadIds = more;
            threads.put(tid, t);
            int[] lanes = Arrays.copyOf(laneDepth, more.length);
            laneDepth = lanes;
        }
        return t;
    }

    private void noteItems(int call, List<DataItem> items, boolean out) {
        for (DataItem d : items) {
            if (d.kind() == CaptureFormat.ITEM_BLOB) {
                synchronized (this) {
                    blobUses.putIfAbsent(d.hash(), new BlobUse(call, d.param(), out));
                }
            }
        }
    }

    private void kernelFromEnter(CaptureRecord.Enter e) {
        int f = e.functionId();
        String name = null;
        for (DataItem d : e.data()) {
            if (d.param() != kernelNameParam[f]) continue;
            if (d.kind() == CaptureFormat.ITEM_STRING) name = strings.get(d.stringId());
            else if (d.kind() == CaptureFormat.ITEM_INLINE) name = cstr(d.bytes());
        }
        long module = kernelModuleParam[f] < e.args().length ? e.args()[kernelModuleParam[f]] : 0;
        if (name != null) pendingNames.put(e.seq(), new KernelName(name, module));
    }

    private void kernelFromLeave(CaptureRecord.Leave l) {
        KernelName k = pendingNames.remove(l.enterSeq());
        if (k == null || l.result() != 0) return;
        for (DataItem d : l.data()) {
            if (d.param() == 0 && d.kind() == CaptureFormat.ITEM_INLINE && d.bytes().length == 8) {
                kernelNames.put(ByteBuffer.wrap(d.bytes()).order(ByteOrder.LITTLE_ENDIAN).getLong(), k);
            }
        }
    }

    static String cstr(byte[] b) {
        int len = 0;
        while (len < b.length && b[len] != 0) len++;
        return new String(b, 0, len, StandardCharsets.UTF_8);
    }

    /** Open calls of one thread while loading. */
    private static final class ThreadState {
        final int index;
        int[] calls = new int[8];
        long[] seqs = new long[8];
        int top;
        int maxDepth;

        ThreadState(int index) {
            this.index = index;
        }

        void push(int call, long seq) {
            if (top == calls.length) {
                calls = Arrays.copyOf(calls, top * 2);
                seqs = Arrays.copyOf(seqs, top * 2);
            }
            calls[top] = call;
            seqs[top++] = seq;
        }

        /** The call whose ENTER has this seq; it and every call opened inside it are closed (inner ones stay in flight). */
        int pop(long seq) {
            for (int k = top - 1; k >= 0; k--) {
                if (seqs[k] == seq) {
                    top = k;
                    return calls[k];
                }
            }
            return -1;
        }
    }

    // ------------------------------------------------------------------ reading

    /** Calls indexed so far. */
    public int size() {
        return size;
    }

    /** Whether the whole capture has been read. */
    public boolean isComplete() {
        return complete;
    }

    /** Whether loading was cancelled (the index holds the calls read until then). */
    public boolean isCancelled() {
        return cancelled;
    }

    /** How reading ended (null until complete). */
    public ReadStatus status() {
        return status;
    }

    /** Bytes of the capture file read so far (approximate while loading). */
    public long bytesRead() {
        return bytesRead;
    }

    /** File offset of the call's ENTER record. */
    public long enterOffset(int i) {
        return enterOff[i >>> PAGE_BITS][i & MASK];
    }

    /** File offset of the call's LEAVE record, or -1 while it has not returned. */
    public long leaveOffset(int i) {
        return leaveOff[i >>> PAGE_BITS][i & MASK];
    }

    /** Start in ns since the capture began. */
    public long start(int i) {
        return start[i >>> PAGE_BITS][i & MASK];
    }

    /** Duration in ns, or -1 while in flight. */
    public long duration(int i) {
        return dur[i >>> PAGE_BITS][i & MASK];
    }

    /** End in ns since the capture began; for a call in flight, the end of the capture. */
    public long end(int i) {
        long d = duration(i);
        return d < 0 ? Math.max(endNs, start(i)) : start(i) + d;
    }

    /** Function id (index into the capture's function table). */
    public int function(int i) {
        return fid[i >>> PAGE_BITS][i & MASK];
    }

    /** The CUresult, 0 while in flight. */
    public int result(int i) {
        return result[i >>> PAGE_BITS][i & MASK];
    }

    /** Whether the call has not returned (in the capture, or so far while loading). */
    public boolean inFlight(int i) {
        return duration(i) < 0;
    }

    /** Whether the call returned something other than CUDA_SUCCESS. */
    public boolean failed(int i) {
        return !inFlight(i) && result(i) != 0;
    }

    /** Index of the call's thread in {@link #threadIds()}. */
    public int threadIndex(int i) {
        return thread[i >>> PAGE_BITS][i & MASK];
    }

    /** OS thread id of the call. */
    public long threadId(int i) {
        return threadIds[threadIndex(i)];
    }

    /** Nesting depth (0: called by the application). */
    public int depth(int i) {
        return depth[i >>> PAGE_BITS][i & MASK];
    }

    /** The call that made this one (the nearest earlier call of its thread one level up), or -1. */
    public int parent(int i) {
        int d = depth(i);
        if (d == 0) return -1;
        int t = threadIndex(i);
        for (int k = i - 1; k >= 0; k--) {
            if (threadIndex(k) == t && depth(k) < d) return k;
        }
        return -1;
    }

    /** The calls made inside this one, in order of entry (direct children only; at most {@code limit}). */
    public List<Integer> children(int i, int limit) {
        List<Integer> out = new ArrayList<>();
        int d = depth(i), t = threadIndex(i), n = size;
        long end = inFlight(i) ? Long.MAX_VALUE : end(i);
        for (int k = i + 1; k < n && out.size() < limit; k++) {
            if (threadIndex(k) != t) {
                if (start(k) > end) break;
                continue;
            }
            int dk = depth(k);
            if (dk <= d) break;
            if (dk == d + 1) out.add(k);
        }
        return out;
    }

    /** The first call whose start is at or after {@code ns} (calls are in order of entry, so nearly in order of start). */
    public int firstStartingAtOrAfter(long ns) {
        int lo = 0, hi = size - 1, ans = size;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (start(mid) >= ns) { ans = mid; hi = mid - 1; } else lo = mid + 1;
        }
        return ans;
    }

    /** Thread ids in order of their first call; index = {@link #threadIndex}. */
    public long[] threadIds() {
        return threadIds.clone();
    }

    /** Number of threads that made calls. */
    public int threadCount() {
        return threadIds.length;
    }

    /** Name of a thread (THREAD_NAME record), or null. */
    public String threadName(long tid) {
        return threadNames.get(tid);
    }

    /** Deepest nesting seen on the thread with this index. */
    public int laneDepth(int threadIndex) {
        int[] l = laneDepth;
        return threadIndex < l.length ? l[threadIndex] : 0;
    }

    /** Name of a function id. */
    public String functionName(int f) {
        return capture.functionName(f);
    }

    /** Number of entries in the capture's function table. */
    public int functionCount() {
        return functionCount;
    }

    /** How many calls of function {@code f} were read (complete after loading). */
    public long callsOf(int f) {
        return f >= 0 && f < callsPerFunction.length ? callsPerFunction[f] : 0;
    }

    /** STRING records seen so far, by id (live, thread-safe). */
    public Map<Integer, String> strings() {
        return strings;
    }

    /** The longest call seen so far, ns. */
    public long maxDurationNs() {
        return maxDurationNs;
    }

    /** The last record's time, ns since the capture began. */
    public long endNs() {
        return endNs;
    }

    /** Calls that returned an error so far. */
    public long errors() {
        return errors;
    }

    /** Calls still open when reading ended (after a complete load). */
    public int inFlightAtEnd() {
        return inFlight;
    }

    /** LEAVE records whose ENTER was not found (damage). */
    public long orphanLeaves() {
        return orphanLeaves;
    }

    /** MODULE records, in order. */
    public synchronized List<CaptureRecord.Module> modules() {
        return List.copyOf(modules);
    }

    /** Blobs (their stored bytes are views of the mapped capture file), in order of the capture. */
    public synchronized List<CaptureRecord.Blob> blobs() {
        return List.copyOf(blobs.values());
    }

    /** The blob with this hash, or null. */
    public synchronized CaptureRecord.Blob blob(long hash) {
        return blobs.get(hash);
    }

    /** The first call that named this blob, or null. */
    public synchronized BlobUse blobUse(long hash) {
        return blobUses.get(hash);
    }

    /** Kernel snapshots (KERNEL records), in order. */
    public synchronized List<CaptureRecord.Kernel> kernelSnapshots() {
        return List.copyOf(kernels);
    }

    /** The kernel snapshot taken for the launch whose ENTER has this seq, or null. */
    public synchronized CaptureRecord.Kernel kernelSnapshot(long launchSeq) {
        Integer k = kernelSnapshotByLaunch.get(launchSeq);
        return k == null ? null : kernels.get(k);
    }

    /** Markers, in order. */
    public synchronized List<Marker> markers() {
        return List.copyOf(markers);
    }

    /** The kernel a CUfunction / CUkernel handle stands for, from the calls that returned it, or null. */
    public KernelName kernelName(long handle) {
        return kernelNames.get(handle);
    }

    /** Approximate heap held by the columns, bytes. */
    public long columnBytes() {
        return (long) pages * PAGE * (8 * 4 + 4 * 2 + 2 + 1);
    }
}
