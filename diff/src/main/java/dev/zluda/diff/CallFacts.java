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
 * What the diff engine compares of one capture, over its {@link CallIndex}: per compared call its
 * alignment keys and the address of its normalised facts, per thread its compared calls in order
 * of entry. The call columns (function, thread, result, in flight, number) are the index's; the
 * facts are read in the same pass as the index ({@link CallIndex#load(java.util.function.LongConsumer,
 * java.util.function.BooleanSupplier, java.util.function.Consumer) load}'s record tap). Compared
 * calls are numbered 0.. in the order the reader completes them (a top-level call, then the calls
 * nested in it); {@link #call(int)} is a compared call's number in the index. About 40 bytes per
 * call plus the facts and the index's columns.
 */
final class CallFacts {
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
    /** The index of the capture's calls. */
    final CallIndex index;
    final Types types;
    final Names names;
    int n;
    long[] key = new long[1024];
    long[] ident = new long[1024];
    int[] weak = new int[1024];
    /** The compared call's number in {@link #index}. */
    private int[] call = new int[1024];
    long[] facts = new long[1024];
    final FactStore store = new FactStore();
    /** Thread ids in order of their first call, as in the index. */
    List<Long> threadIds = List.of();
    final List<IntList> threadCalls = new ArrayList<>();
    Map<Integer, String> strings;
    /** Per KERNEL record (by its seq): the diff's symbol of each buffer when the record was read ({@code dptr#3}), or null. */
    final Map<Long, String[]> kernelBuffers = new HashMap<>();
    /**
     * Per KERNEL record (by its seq): for each 8-byte word of its parameter bytes, the symbol of the live texture or
     * surface object whose value it holds when the record was read ({@code tex#2}), or null ({@link Normaliser#objectName}).
     */
    final Map<Long, String[]> kernelParamObjects = new HashMap<>();
    /** Module image hash → its file in the capture directory ({@code module_0001_01.ptx}). */
    final Map<Long, String> moduleFiles = new HashMap<>();
    ReadStatus status;
    long inFlight;
    /** The name the first successful {@code cuDeviceGetName} returned (the device the program saw), or null. */
    String deviceName;
    private int[] nameOf = new int[64];
    private Normaliser norm;

    /** Whether calls through export-table slots are compared (strict) or left out and only counted. */
    private final boolean keepExportTableCalls;
    /** Calls through export-table slots left out ({@code {GUID}::slot N}, FORMAT.md §6.10). */
    long exportTableCalls;
    /** Whether calls inside library calls (and on modules the libraries loaded there) are compared. */
    private final boolean keepLibraryInternals;
    /** Calls left out as the libraries' own ({@link Expected#LIBRARY_INTERNALS}). */
    long libraryInternalCalls;
    /** The CUdevices whose primary context was retained inside a library call. */
    private final java.util.Set<Long> retainedInLibraries = new java.util.HashSet<>();
    /** Primary-context retains made inside library calls (unless library internals are kept: then 0). */
    int libraryRetains;
    /** Compared calls that may be a library runtime's primary-context release at exit ({@link #libraryTeardown}). */
    private final java.util.BitSet teardown = new java.util.BitSet();
    private static final int CUDA_ERROR_DEINITIALIZED = 4;
    /** Per nesting level of the tree being added: whether the call last visited there is a library call or inside one. */
    private boolean[] libraryAt = new boolean[16];

    private CallFacts(Capture cap, Types types, Names names, boolean keepExportTableCalls, boolean keepLibraryInternals) {
        this.cap = cap;
        this.index = new CallIndex(cap);
        this.types = types;
        this.names = names;
        this.keepExportTableCalls = keepExportTableCalls;
        this.keepLibraryInternals = keepLibraryInternals;
    }

    /** Reads a capture, calls through export-table slots included. */
    static CallFacts build(Capture cap, Types types, Names names) {
        return build(cap, types, names, true);
    }

    /**
     * Reads a capture.
     *
     * @param keepExportTableCalls false: calls through export-table slots (recorded by the NVIDIA
     *     tracer as {@code {GUID}::slot N}, FORMAT.md §6.10; zluda's driver serves those tables itself
     *     and records none) are left out of the comparison and counted in {@link #exportTableCalls};
     *     the calls nested in them stay
     */
    static CallFacts build(Capture cap, Types types, Names names, boolean keepExportTableCalls) {
        return build(cap, types, names, keepExportTableCalls, () -> false);
    }

    /**
     * The same, stopping when {@code cancelled} says so (asked every 16,384 records).
     *
     * @throws java.util.concurrent.CancellationException when it was cancelled
     */
    static CallFacts build(Capture cap, Types types, Names names, boolean keepExportTableCalls, java.util.function.BooleanSupplier cancelled) {
        return build(cap, types, names, keepExportTableCalls, true, cancelled);
    }

    /**
     * The same, and with {@code keepLibraryInternals} false the calls made inside library calls (at any
     * depth below a call of cuBLAS, cuBLASLt, cuDNN, cuFFT, cuSPARSE or NVML), and the calls outside them
     * whose CUmodule or CUlibrary argument a library loaded inside one, are left out of the comparison and
     * counted in {@link #libraryInternalCalls} (they are still normalised, so that the handles and
     * allocations they make are known to the calls that are compared); the primary-context releases that
     * may be the libraries' own runtimes' at exit are marked ({@link #libraryTeardown}).
     *
     * @throws java.util.concurrent.CancellationException when it was cancelled
     */
    static CallFacts build(Capture cap, Types types, Names names, boolean keepExportTableCalls, boolean keepLibraryInternals,
                           java.util.function.BooleanSupplier cancelled) {
        CallFacts s = new CallFacts(cap, types, names, keepExportTableCalls, keepLibraryInternals);
        s.read(cancelled);
        return s;
    }

    /** Whether a function is a library's (cuBLAS, cuDNN, ..., FORMAT.md §6.10), not the driver's. */
    static boolean isLibraryFunction(String function) {
        return !dev.zluda.spec.CudaApi.libraryOf(function).equals(dev.zluda.spec.CudaApi.DRIVER);
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
                Call.walk(c, (k, l, parent) -> {
                    if (l + 1 >= libraryAt.length) libraryAt = Arrays.copyOf(libraryAt, Math.max(l + 2, libraryAt.length * 2));
                    boolean inside = l > 0 && libraryAt[l - 1];
                    libraryAt[l] = inside || isLibraryFunction(cap.functionName(k.enter().functionId()));
                    addOne(k, inside);
                });
            }

            @Override
            public void record(CaptureRecord r) {
                switch (r) {
                    case CaptureRecord.Kernel k -> {
                        String[] syms = new String[k.buffers().size()];
                        for (int i = 0; i < syms.length; i++) syms[i] = norm.dptrName(k.buffers().get(i).devicePointer());
                        kernelBuffers.put(k.seq(), syms);
                        byte[] pb = k.params();
                        String[] objs = new String[pb.length / 8];
                        boolean any = false;
                        for (int i = 0; i < objs.length; i++) {
                            objs[i] = norm.objectName(Normaliser.le(pb, 8 * i, 8));
                            any |= objs[i] != null;
                        }
                        if (any) kernelParamObjects.put(k.seq(), objs);
                    }
                    case CaptureRecord.Module m -> {
                        if (m.imageHash() != 0 && m.fileName() != null && !m.fileName().isEmpty()) moduleFiles.putIfAbsent(m.imageHash(), m.fileName());
                    }
                    default -> { }
                }
            }
        });
        strings = index.strings();
        norm = new Normaliser(types, cap, strings);
        index.load(null, cancelled, r -> {
            if (r instanceof CaptureRecord.Enter e && index.threadCount() > threadCalls.size()) {
                while (threadCalls.size() < index.threadCount()) threadCalls.add(new IntList(256));
            }
            asm.accept(r);
        });
        if (index.isCancelled()) throw new java.util.concurrent.CancellationException("comparison cancelled");
        asm.finish();
        threadIds = Arrays.stream(index.threadIds()).boxed().toList();
        status = index.status();
        store.trim();
        norm = null;
    }

    private void addOne(Call c, boolean insideLibrary) {
        boolean libraryTeardown = false;
        if (!keepExportTableCalls && isExportTableSlot(cap.functionName(c.enter().functionId()))) {
            exportTableCalls++; // the calls made inside it are still compared
            return;
        }
        if (!keepLibraryInternals) {
            int fid = c.enter().functionId();
            norm.insideLibrary = insideLibrary;
            norm.call(c, ((long) nameId(fid) << 4) | Math.min(c.enter().depth(), 15));
            norm.insideLibrary = false;
            libraryTeardown = libraryTeardownCandidate(c, insideLibrary); // counts the retains inside library calls too
            if (insideLibrary || norm.touchesLibraryObject) {
                libraryInternalCalls++;
                return;
            }
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
        if (keepLibraryInternals) norm.call(c, ((long) nameId << 4) | d); // else normalised above
        if (libraryTeardown) teardown.set(i);
        key[i] = norm.w.key;
        ident[i] = norm.w.ident();
        weak[i] = (nameId << 4) | d;
        call[i] = (int) (c.ordinal() - 1);
        if (c.leave() == null) inFlight++;
        threadCalls.get(index.threadIndex(call[i])).add(i);
        facts[i] = store.append(norm.w.count, norm.w.buf, norm.w.len);
    }

    /**
     * Whether {@code c} may be a primary-context release of a library's own CUDA runtime at exit: a
     * {@code cuDevicePrimaryCtxRelease} outside library calls that returned CUDA_ERROR_DEINITIALIZED
     * (an exit handler that ran after the driver's own) on a device whose primary context was retained
     * inside a library call. NVIDIA's libcublas and libcublasLt each link a CUDA runtime that retains
     * the primary context inside the first library call and releases it from its exit handler, outside
     * any library call; another implementation (zluda's cuBLAS) makes no such release. Which of the
     * releases at exit are the libraries' cannot be told from the release itself, so the comparison
     * ({@code DiffEngine}) leaves out as many unpaired candidates as {@link #libraryRetains} counts.
     * Counts the retains made inside library calls as it goes.
     */
    private boolean libraryTeardownCandidate(Call c, boolean insideLibrary) {
        String f = cap.functionName(c.enter().functionId());
        if (!f.startsWith("cuDevicePrimaryCtxRe") || c.leave() == null) return false;
        long[] args = c.enter().args();
        if (insideLibrary) {
            if (f.startsWith("cuDevicePrimaryCtxRetain") && c.leave().result() == 0 && args.length > 1) {
                retainedInLibraries.add(args[1]);
                libraryRetains++;
            }
            return false;
        }
        return f.startsWith("cuDevicePrimaryCtxRelease") && c.leave().result() == CUDA_ERROR_DEINITIALIZED && args.length > 0
                && retainedInLibraries.contains(args[0]);
    }

    /** Whether compared call {@code i} may be a library runtime's primary-context release at exit ({@link #libraryTeardownCandidate}). */
    boolean libraryTeardown(int i) {
        return teardown.get(i);
    }

    /** The {@code name} output of a cuDeviceGetName call (parameter 0), or null. */
    private String deviceName(Call c) {
        for (dev.zluda.capture.DataItem d : c.leave().data()) {
            if (d.param() != 0) continue;
            if (d.kind() == dev.zluda.capture.CaptureFormat.ITEM_STRING) return strings.get(d.stringId());
            if (d.kind() == dev.zluda.capture.CaptureFormat.ITEM_INLINE) return CallIndex.cstr(d.bytes());
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
        call = Arrays.copyOf(call, m);
        facts = Arrays.copyOf(facts, m);
    }

    /** The compared call {@code i}'s number in the index (0-based: the capture's call {@code call(i) + 1}). */
    int call(int i) {
        return call[i];
    }

    /** The call number of compared call {@code i} (1-based, in order of entry over the capture, {@link Call#ordinal()}). */
    long ordinal(int i) {
        return call[i] + 1L;
    }

    /** The CUresult call {@code i} returned, 0 while in flight. */
    int result(int i) {
        return index.result(call[i]);
    }

    /** The blob with this hash, or null. */
    CaptureRecord.Blob blob(long hash) {
        return index.blob(hash);
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
        return index.inFlight(call[i]);
    }

    long threadId(int i) {
        return index.threadId(call[i]);
    }
}
