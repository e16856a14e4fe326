package dev.zluda.diff;

import dev.zluda.capture.Call;
import dev.zluda.capture.CallAssembler;
import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.ReadStatus;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One capture read once, compactly: per call its alignment key, function, result, thread, number
 * and the address of its normalised facts; per thread its calls in order of entry. Calls are
 * indexed 0.. in the order the reader completes them (a top-level call, then the calls nested in
 * it). About 60 bytes per call plus the facts.
 */
final class SideIndex {
    static final byte IN_FLIGHT = 1;

    /** Function names shared by both sides, so that ids compare. */
    static final class Names {
        private final Map<String, Integer> ids = new ConcurrentHashMap<>();
        private final List<String> names = new CopyOnWriteArrayList<>();

        int id(String name) {
            return ids.computeIfAbsent(name, n -> {
                synchronized (names) {
                    names.add(n);
                    return names.size() - 1;
                }
            });
        }

        String name(int id) {
            return names.get(id);
        }
    }

    final Capture cap;
    final Types types;
    final Names names;
    int n;
    long[] key = new long[1024];
    long[] ident = new long[1024];
    int[] weak = new int[1024];
    long[] ordinal = new long[1024];
    int[] result = new int[1024];
    byte[] flags = new byte[1024];
    int[] thread = new int[1024];
    int[] depth = new int[1024];
    long[] facts = new long[1024];
    final FactStore store = new FactStore();
    final List<Long> threadIds = new ArrayList<>();
    final List<IntList> threadCalls = new ArrayList<>();
    private final Map<Long, Integer> threadIndex = new HashMap<>();
    final Map<Long, CaptureRecord.Blob> blobs = new HashMap<>();
    Map<Integer, String> strings;
    /** Per KERNEL record (by its seq): the diff's symbol of each buffer when the record was read ({@code dptr#3}), or null. */
    final Map<Long, String[]> kernelBuffers = new HashMap<>();
    /** Module image hash → its file in the capture directory ({@code module_0001_01.ptx}). */
    final Map<Long, String> moduleFiles = new HashMap<>();
    ReadStatus status;
    long inFlight;
    /** The name the first successful {@code cuDeviceGetName} returned (the device the program saw), or null. */
    String deviceName;
    private int[] nameOf = new int[64];
    private long lastThread = Long.MIN_VALUE;
    private int lastThreadIndex;
    private Normaliser norm;

    /** Whether calls through export-table slots are indexed (strict) or left out and only counted. */
    private final boolean keepExportTableCalls;
    /** Calls through export-table slots left out ({@code {GUID}::slot N}, FORMAT.md §6.10). */
    long exportTableCalls;

    private SideIndex(Capture cap, Types types, Names names, boolean keepExportTableCalls) {
        this.cap = cap;
        this.types = types;
        this.names = names;
        this.keepExportTableCalls = keepExportTableCalls;
    }

    /** Reads a capture, calls through export-table slots included. */
    static SideIndex build(Capture cap, Types types, Names names) {
        return build(cap, types, names, true);
    }

    /**
     * Reads a capture.
     *
     * @param keepExportTableCalls false: calls through export-table slots (recorded by the NVIDIA
     *     tracer as {@code {GUID}::slot N}, FORMAT.md §6.10; zluda's driver serves those tables itself
     *     and records none) are left out of the index and counted in {@link #exportTableCalls}; the
     *     calls nested in them stay
     */
    static SideIndex build(Capture cap, Types types, Names names, boolean keepExportTableCalls) {
        return build(cap, types, names, keepExportTableCalls, () -> false);
    }

    /**
     * The same, stopping when {@code cancelled} says so (asked every 65,536 records).
     *
     * @throws java.util.concurrent.CancellationException when it was cancelled
     */
    static SideIndex build(Capture cap, Types types, Names names, boolean keepExportTableCalls, java.util.function.BooleanSupplier cancelled) {
        SideIndex s = new SideIndex(cap, types, names, keepExportTableCalls);
        s.read(cancelled);
        return s;
    }

    /** Whether a function name is that of an export-table slot ({@code {GUID}::slot N}). */
    static boolean isExportTableSlot(String function) {
        return function.startsWith("{") && function.contains("}::slot ");
    }

    private void read(java.util.function.BooleanSupplier cancelled) {
        Arrays.fill(nameOf, -1);
        CallAssembler asm = new CallAssembler(new CallAssembler.Listener() {
            @Override
            public void call(Call c) {
                add(c, 0);
            }

            @Override
            public void record(CaptureRecord r) {
                switch (r) {
                    case CaptureRecord.Blob b -> blobs.putIfAbsent(b.hash(), b);
                    case CaptureRecord.Kernel k -> {
                        String[] syms = new String[k.buffers().size()];
                        for (int i = 0; i < syms.length; i++) syms[i] = norm.dptrName(k.buffers().get(i).devicePointer());
                        kernelBuffers.put(k.seq(), syms);
                    }
                    case CaptureRecord.Module m -> {
                        if (m.imageHash() != 0 && m.fileName() != null && !m.fileName().isEmpty()) moduleFiles.putIfAbsent(m.imageHash(), m.fileName());
                    }
                    default -> { }
                }
            }
        });
        strings = asm.strings();
        norm = new Normaliser(types, cap, strings);
        long seen = 0;
        for (CaptureRecord r : cap.reader()) {
            if ((++seen & 0xFFFF) == 0 && cancelled.getAsBoolean()) throw new java.util.concurrent.CancellationException("comparison cancelled");
            if (r instanceof CaptureRecord.Enter e && !threadIndex.containsKey(e.threadId())) {
                threadIndex.put(e.threadId(), threadIds.size());
                threadIds.add(e.threadId());
                threadCalls.add(new IntList(256));
            }
            asm.accept(r);
        }
        asm.finish();
        status = cap.reader().status();
        store.trim();
        norm = null;
    }

    /** Adds {@code root} and the calls nested in it, in pre-order (iteratively: any depth). */
    private void add(Call root, int level) {
        Call.walk(root, (c, l, parent) -> addOne(c));
    }

    private void addOne(Call c) {
        if (!keepExportTableCalls && isExportTableSlot(cap.functionName(c.enter().functionId()))) {
            exportTableCalls++; // the calls made inside it are still added
            return;
        }
        if (n == key.length) grow();
        int i = n++;
        CaptureRecord.Enter e = c.enter();
        if (deviceName == null && c.leave() != null && c.leave().result() == 0 && cap.functionName(e.functionId()).startsWith("cuDeviceGetName")) {
            deviceName = deviceName(c);
        }
        int fid = e.functionId();
        int nameId = nameId(fid);
        int d = Math.min(e.depth(), 15);
        norm.call(c, ((long) nameId << 4) | d);
        key[i] = norm.w.key;
        ident[i] = norm.w.ident();
        weak[i] = (nameId << 4) | d;
        ordinal[i] = c.ordinal();
        result[i] = c.leave() == null ? 0 : c.leave().result();
        flags[i] = c.leave() == null ? IN_FLIGHT : 0;
        if (c.leave() == null) inFlight++;
        depth[i] = e.depth();
        int t;
        if (e.threadId() == lastThread) t = lastThreadIndex;
        else {
            t = threadIndex.get(e.threadId());
            lastThread = e.threadId();
            lastThreadIndex = t;
        }
        thread[i] = t;
        threadCalls.get(t).add(i);
        facts[i] = store.append(norm.w.count, norm.w.buf, norm.w.len);
    }

    /** The {@code name} output of a cuDeviceGetName call (parameter 0), or null. */
    private String deviceName(Call c) {
        for (dev.zluda.capture.DataItem d : c.leave().data()) {
            if (d.param() != 0) continue;
            if (d.kind() == dev.zluda.capture.CaptureFormat.ITEM_STRING) return strings.get(d.stringId());
            if (d.kind() == dev.zluda.capture.CaptureFormat.ITEM_INLINE) {
                byte[] b = d.bytes();
                int k = 0;
                while (k < b.length && b[k] != 0) k++;
                return new String(b, 0, k, java.nio.charset.StandardCharsets.UTF_8);
            }
        }
        return null;
    }

    private int nameId(int fid) {
        if (fid >= nameOf.length) {
            int old = nameOf.length;
            nameOf = Arrays.copyOf(nameOf, Math.max(fid + 1, old * 2));
            Arrays.fill(nameOf, old, nameOf.length, -1);
        }
        int id = fid >= 0 ? nameOf[fid] : -1;
        if (id < 0) {
            id = names.id(cap.functionName(fid));
            if (fid >= 0) nameOf[fid] = id;
        }
        return id;
    }

    private void grow() {
        int m = key.length * 2;
        key = Arrays.copyOf(key, m);
        ident = Arrays.copyOf(ident, m);
        weak = Arrays.copyOf(weak, m);
        ordinal = Arrays.copyOf(ordinal, m);
        result = Arrays.copyOf(result, m);
        flags = Arrays.copyOf(flags, m);
        thread = Arrays.copyOf(thread, m);
        depth = Arrays.copyOf(depth, m);
        facts = Arrays.copyOf(facts, m);
    }

    /** The function name of call {@code i}. */
    String function(int i) {
        return names.name(weak[i] >>> 4);
    }

    /** The normaliser's plan for a function name (for rendering), or null. */
    Normaliser.Plan plan(int i) {
        return planner().plan(functionId(names.name(weak[i] >>> 4)));
    }

    private Normaliser planner;

    private Normaliser planner() {
        if (planner == null) planner = new Normaliser(types, cap, strings);
        return planner;
    }

    private Map<String, Integer> fidByName;

    private int functionId(String name) {
        if (fidByName == null) {
            fidByName = new HashMap<>();
            var fs = cap.reader().functions();
            for (int k = 0; k < fs.size(); k++) fidByName.putIfAbsent(fs.get(k).name(), k);
        }
        return fidByName.getOrDefault(name, -1);
    }

    boolean inFlight(int i) {
        return (flags[i] & IN_FLIGHT) != 0;
    }

    long threadId(int i) {
        return threadIds.get(thread[i]);
    }
}
