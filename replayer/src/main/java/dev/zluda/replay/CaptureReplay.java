package dev.zluda.replay;

import dev.zluda.spec.Role;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zluda.capture.Call;
import dev.zluda.capture.CallAssembler;
import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureException;
import dev.zluda.capture.CaptureFormat;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.DataItem;
import dev.zluda.capture.KernelSnapshots;
import dev.zluda.capture.text.CallFormatter;
import dev.zluda.ptx.FunctionInfo;
import dev.zluda.ptx.ParamInfo;
import dev.zluda.ptx.ParseResult;
import dev.zluda.ptx.Ptx;
import dev.zluda.ptx.Semantics;
import dev.zluda.spec.CudaApi;
import dev.zluda.spec.CudaFunction;
import dev.zluda.spec.CudaParam;
import dev.zluda.spec.Direction;
import dev.zluda.spec.FormatKind;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Whole-capture replay (partial): re-issues the application's calls of a capture recorded at level
 * {@code replay} with kernel snapshots, in recorded order on one thread, on a chosen driver, and
 * checks them against the recording.
 *
 * <p>Every argument is rebuilt from the capture through the API spec: handles returned through
 * out-parameters ({@code CUcontext *}, {@code CUmodule *}, ...) and device pointers returned by
 * allocations are mapped from their recorded values to the replay's, and arguments of those types
 * (and device pointers inside an allocation) are rewritten; pointer parameters get fresh host
 * memory holding the recorded input data (strings, host buffers, typed values); module images come
 * from the capture's MODULE records or the kernel snapshots; launches take their parameter bytes
 * from their snapshot, relocated. Checked: every call's result, the bytes every device-to-host copy
 * delivers (after the next synchronisation for asynchronous ones), and for every launch the memory
 * of its snapshot buffers before (the state the replay reached) and after the kernel.
 *
 * <p>Structs passed by pointer ({@code cuMemcpy2D}, {@code cuMemcpy3D}, {@code cuLaunchKernelEx}'s
 * {@code CUlaunchConfig}, ...) have their handle and device-pointer members remapped through the
 * spec's layouts ({@link StructRemap}). Calls through export tables ({@code {GUID}::slot N},
 * FORMAT.md §6.10): CUDART_INTERFACE's module slots are replayed as {@code cuModuleLoadData} of the
 * recorded image and its context slot as {@code cuDevicePrimaryCtxRetain}; a context first met as
 * an argument is taken as the primary context. Not replayed (counted and listed):
 * {@code cuGetProcAddress}, {@code cuGetExportTable}, other export-table slots, error-name queries,
 * calls with callbacks, calls after the process ended. Divergences of kind {@code missing}: data the
 * capture does not hold (host memory a struct points to); {@code unsupported}: structs by value,
 * handles no replayed call made. Query outputs (device properties, pointers the driver returns) are
 * not compared; JIT options of module loads are dropped; event/stream queries that differ only by
 * {@code CUDA_ERROR_NOT_READY} are timing (a note). {@link KernelReplay.Options#ptx()} replaces every
 * module image (meant for captures of one module: planted divergences, experiments). The replay
 * stops at the first divergence unless {@code keepGoing}; then a launch whose buffers differ before
 * the kernel starts from the recorded before-images.
 */
public final class CaptureReplay {
    private static final Set<String> SKIPPED = Set.of("cuGetProcAddress", "cuGetProcAddress_v2", "cuGetExportTable", "cuGetErrorName",
            "cuGetErrorString");

    /** One difference from the recording. */
    public record Divergence(long call, String function, String kind, String what) {}

    /**
     * The outcome.
     *
     * @param replayed calls issued
     * @param skipped names of the calls not issued, with counts
     * @param copies device-to-host copies whose bytes were compared
     * @param launches kernel launches whose buffers were compared
     * @param divergences in call order; empty when everything matched
     * @param capture the replay's capture, or null
     * @param standIns calls replayed as another call (an export-table slot as the driver call it stands for), with counts
     * @param notes what the replay assumed (e.g. a context first met as an argument taken as the primary context)
     */
    public record Result(String driver, long calls, long replayed, Map<String, Integer> skipped, long copies, long launches,
                         List<Divergence> divergences, Path capture, Map<String, Integer> standIns, List<String> notes) {
        /** 0 when nothing diverged, 1 otherwise. */
        public int exitCode() {
            return divergences.isEmpty() ? 0 : 1;
        }

        /** The report as {@code zluda replay CAPTURE} prints it. */
        public void print(PrintWriter out) {
            out.println("replayed on " + driver + ": " + replayed + " of " + calls + " calls issued, " + copies + " device-to-host copies and "
                    + launches + " kernel launches checked");
            printCounts(out, "issued in place of", standIns);
            printCounts(out, "not issued", skipped);
            for (String n : notes) out.println("  note: " + n);
            for (Divergence d : divergences) out.println("  call " + d.call + " " + d.function + ": " + d.kind + ": " + d.what);
            out.println(divergences.isEmpty() ? "VERDICT: the replay did what the recording did (results, copies, kernel buffers)"
                    : "VERDICT: DIFFERENT: first divergence at call " + divergences.getFirst().call + " " + divergences.getFirst().function);
            if (capture != null) out.println("replay capture: " + capture + "   (zluda dump " + capture + ")");
            out.flush();
        }
    }

    /** Width up to which a list of names with counts stays on one line. */
    static final int LIST_WIDTH = 100;

    /**
     * {@code   what: a ×2 b ×1} on one line when it fits {@link #LIST_WIDTH} columns; else the
     * total first ({@code   what (N calls):}) and one name with its count per line.
     */
    static void printCounts(PrintWriter out, String what, Map<String, Integer> counts) {
        if (counts.isEmpty()) return;
        StringBuilder sb = new StringBuilder("  " + what + ":");
        counts.forEach((n, c) -> sb.append(' ').append(n).append(" ×").append(c));
        if (sb.length() <= LIST_WIDTH) {
            out.println(sb);
            return;
        }
        out.println("  " + what + " (" + counts.values().stream().mapToLong(Integer::longValue).sum() + " calls):");
        counts.forEach((n, c) -> out.println("    " + n + " ×" + c));
    }

    private final CudaApi api = CudaApi.get();
    private final Capture cap;
    private final KernelSnapshots ks;
    private final Driver raw;
    private final Driver d;
    private final RecordingDriver rec;
    private final Map<Integer, String> strings;
    private final Map<Long, Long> handles = new HashMap<>();
    /** recorded base → {size, replayed base}. */
    private final TreeMap<Long, long[]> allocations = new TreeMap<>(Long::compareUnsigned);
    private final Map<Long, ElementType> allocationTypes = new HashMap<>();
    /** recorded base → the kernel parameters that pointed into it (the first launch that typed it). */
    private final Map<Long, List<String>> allocationParams = new HashMap<>();
    /** How a differing buffer is described in a divergence. */
    private BufferDescriber describer = BufferDescriber.PLAIN;
    private final Map<Long, CaptureRecord.Kernel> snapshotByLaunch = new HashMap<>();
    private final Map<Long, Long> moduleImage = new HashMap<>();
    private final Map<Long, FunctionInfo> kernelInfo = new HashMap<>();
    private final Map<Long, Map<Integer, ElementType>> kernelTypes = new HashMap<>();
    private final List<Runnable> pendingCopies = new ArrayList<>();
    private final List<Divergence> divergences = new ArrayList<>();
    private final Map<String, Integer> skipped = new TreeMap<>();
    private final Map<String, Integer> standIns = new TreeMap<>();
    /** Query results that differ by timing alone (CUDA_ERROR_NOT_READY against CUDA_SUCCESS), with counts. */
    private final Map<String, Integer> timing = new TreeMap<>();
    private static final int NOT_READY = 600;
    private final List<String> notes = new ArrayList<>();
    /** recorded CUcontext → the device whose primary context it is (cuDevicePrimaryCtxRetain, CUDART_INTERFACE slot 2). */
    private final Map<Long, Integer> contextDevice = new HashMap<>();
    private long copies, launches, replayed;
    /** Launches that started from the recorded state after the replay had reached another one (--keep-going). */
    private long restored;
    private boolean keepGoing;
    /** PTX loaded in place of every module image (Options.ptx), or null. */
    private String ptx;
    private long currentCall;
    private String currentFunction = "";

    private CaptureReplay(Capture cap, KernelSnapshots ks, Driver raw, RecordingDriver rec, Map<Integer, String> strings) {
        this.cap = cap;
        this.ks = ks;
        this.raw = raw;
        this.rec = rec;
        this.d = rec != null ? rec : raw;
        this.strings = strings;
    }

    /**
     * Replays a whole capture.
     *
     * @param output the replay's capture directory, null for the default beside the capture; see {@link KernelReplay.Options}
     * @throws ReplayException when the capture was not recorded for replay or the driver cannot be loaded
     */
    public static Result run(Capture cap, KernelReplay.Options o, boolean keepGoing) throws ReplayException {
        return run(cap, o, keepGoing, BufferDescriber.PLAIN);
    }

    /**
     * Replays a whole capture, describing differing buffers (device-to-host copies, kernels'
     * buffers) with {@code describer}; whether a buffer differs is decided bit for bit either way.
     *
     * @throws ReplayException when the capture was not recorded for replay or the driver cannot be loaded
     */
    public static Result run(Capture cap, KernelReplay.Options o, boolean keepGoing, BufferDescriber describer) throws ReplayException {
        String level = cap.manifest().path("capture").path("data").asText("");
        if (!level.equals("replay")) {
            throw new ReplayException(cap.source() + " was recorded at level " + (level.isEmpty() ? "calls" : level)
                    + ", which does not keep the host buffers the calls passed (the bytes copied to the device, the results copied back): "
                    + "a whole replay needs level replay and a snapshot of every kernel; record again with " + again(cap));
        }
        for (var red : cap.manifest().path("redacted")) {
            if (red.asText().equals("data")) {
                throw new ReplayException(cap.source() + " is a pack made with --redact data: the host buffers the calls passed and the "
                        + "kernels' buffer images are only hashes there, and a whole replay needs their bytes; pack the capture again "
                        + "without --redact data (or replay the capture directory itself)");
            }
        }
        KernelSnapshots ks = KernelSnapshots.read(cap);
        List<Call> calls = new ArrayList<>();
        CallAssembler asm = new CallAssembler(calls::add);
        for (CaptureRecord r : cap.reader()) asm.accept(r);
        asm.finish();
        calls.sort((a, b) -> Long.compare(a.ordinal(), b.ordinal()));
        Set<Long> snapped = new java.util.HashSet<>();
        for (KernelSnapshots.Snapshot s : ks.list()) snapped.add(s.record().launchSeq());
        long launches = 0, bare = 0, firstBare = 0;
        String firstBareName = "";
        for (Call c : calls) {
            CudaFunction lf = cap.specFunction(c.enter().functionId());
            if (lf == null || !isKernelLaunch(lf)) continue;
            launches++;
            if (!snapped.contains(c.enter().seq())) {
                bare++;
                if (firstBare == 0) {
                    firstBare = c.ordinal();
                    firstBareName = cap.functionName(c.enter().functionId());
                }
            }
        }
        if (bare > 0) {
            throw new ReplayException(cap.source() + ": " + bare + " of " + launches + " kernel launches have no snapshot (the first is call "
                    + firstBare + " " + firstBareName + "): a whole replay needs their parameters and module; record again with " + again(cap)
                    + (snapped.isEmpty() ? "" : "; or replay one snapshotted launch: zluda replay CAPTURE --list, then --kernel N")
                    + ". Captures recorded so, in the source tree: samples/traces/h200/cudart_demo-replay, structs_demo-replay,"
                    + " cupy_kernels-replay.zip (docs/replay.md, \"Whole-capture replay\")");
        }
        Driver raw;
        List<String> driverNotes = new ArrayList<>();
        try {
            raw = o.on().equals("zluda") ? JavaDriver.forTarget(newestTarget(ks, o.ptx()), driverNotes) : NativeDriver.load(o.on(), o.zludaHome());
        } catch (IllegalStateException e) {
            throw new ReplayException(e.getMessage(), e);
        }
        Path outDir = o.writeCapture() ? KernelReplay.outputDirectory(cap, o.output()) : null;
        RecordingDriver rec = null;
        try {
            if (outDir != null) rec = new RecordingDriver(raw, outDir.resolve(CaptureFormat.CAPTURE_FILE));
        } catch (IOException e) {
            throw new ReplayException("cannot write the replay's capture in " + outDir + ": " + e.getMessage(), e);
        }
        CaptureReplay r = new CaptureReplay(cap, ks, raw, rec, asm.strings());
        r.ptx = o.ptx();
        r.keepGoing = keepGoing;
        r.describer = describer;
        r.notes.addAll(driverNotes);
        r.index(calls);
        // calls made after the process's first PROCESS_END (atexit handlers, cudart's teardown) met a driver shutting down
        long end = Long.MAX_VALUE;
        for (CaptureRecord rec0 : cap.reader()) if (rec0 instanceof CaptureRecord.ProcessEnd pe) end = Math.min(end, pe.seq());
        long total = 0;
        try (Arena arena = Arena.ofConfined()) {
            for (Call c : calls) {
                total++;
                if (!keepGoing && !r.divergences.isEmpty()) continue;
                if (c.enter().seq() > end) {
                    r.skipped.merge(cap.functionName(c.enter().functionId()) + " (after the process ended: the driver's teardown)", 1, Integer::sum);
                    continue;
                }
                r.replay(c, arena);
            }
            r.flushCopies();
        }
        if (r.restored > 0) r.notes.add(r.restored + " launches started from the recorded state (their buffers restored from the "
                + "before-images) after the replay had reached another one");
        r.timing.forEach((t, n) -> r.notes.add(t + " ×" + n + " (timing, not counted as a divergence)"));
        Result res = new Result(raw.describe(), total, r.replayed, r.skipped, r.copies, r.launches, List.copyOf(r.divergences), outDir,
                r.standIns, List.copyOf(r.notes));
        if (rec != null) {
            try {
                rec.finish(res.exitCode());
                dev.zluda.capture.Trim.trim(outDir.resolve(CaptureFormat.CAPTURE_FILE));
                writeManifest(outDir, cap, raw);
            } catch (IOException e) {
                throw new ReplayException("writing the replay capture in " + outDir + " failed: " + e.getMessage(), e);
            }
        }
        raw.close();
        return res;
    }

    /** How to record a capture a whole replay can use, on the driver this one was recorded on. */
    static String again(Capture cap) {
        return cap.manifest().path("driver").path("name").asText("").equals("nvidia")
                ? "zluda run --nvidia-trace --level replay --capture-kernels . -- APP (the NVIDIA tracer: ZLUDA_CAPTURE_LEVEL=replay ZLUDA_CAPTURE_KERNELS=.)"
                : "zluda run --zluda-trace --level replay --capture-kernels . -- APP";
    }

    /** The PTX, among the snapshots' modules (or the given one), with the newest {@code .target sm_XY}; null when none has PTX. */
    private static String newestTarget(KernelSnapshots ks, String given) {
        if (given != null) return given;
        java.util.regex.Pattern target = java.util.regex.Pattern.compile("(?m)^\\s*\\.target\\s+sm_(\\d+)");
        String best = null;
        int bestSm = -1;
        Set<Long> seen = new java.util.HashSet<>();
        for (KernelSnapshots.Snapshot s : ks.list()) {
            CaptureRecord.KernelLaunch l = s.record().launch();
            if (l == null || l.moduleHash() == 0 || !seen.add(l.moduleHash())) continue;
            try {
                String text = KernelReplay.ptxOf(ks.blob(l.moduleHash(), "module"), new ArrayList<>());
                if (text == null) continue;
                java.util.regex.Matcher m = target.matcher(text);
                if (m.find() && Integer.parseInt(m.group(1)) > bestSm) { bestSm = Integer.parseInt(m.group(1)); best = text; }
            } catch (CaptureException | RuntimeException e) {
                // a module without readable PTX says nothing about the target
            }
        }
        return best;
    }

    /** Module images by recorded module/library handle, from MODULE records and the snapshots; snapshots by launch. */
    private void index(List<Call> calls) {
        Map<Long, Long> functionModule = new HashMap<>();
        for (KernelSnapshots.Snapshot s : ks.list()) snapshotByLaunch.put(s.record().launchSeq(), s.record());
        for (CaptureRecord r : cap.reader()) {
            if (r instanceof CaptureRecord.Module m && m.handle() != 0 && m.imageHash() != 0) moduleImage.put(m.handle(), m.imageHash());
        }
        for (Call c : calls) {
            String fn = cap.functionName(c.enter().functionId());
            if (c.inFlight() || c.leave().result() != 0) continue;
            if (Role.of(cap.specFunction(c.enter().functionId())) == Role.FUNCTION_LOOKUP) {
                Long out = outLong(c, 0);
                if (out != null) functionModule.put(out, c.enter().args()[1]);
            }
            if (fn.equals("cuDevicePrimaryCtxRetain") || fn.equals(CUDART_INTERFACE + "::slot 2")) {
                Long out = outLong(c, 0);
                if (out != null) contextDevice.putIfAbsent(out, (int) c.enter().args()[1]);
            }
        }
        for (KernelSnapshots.Snapshot s : ks.list()) {
            CaptureRecord.KernelLaunch l = s.record().launch();
            Long mod = functionModule.get(s.record().function());
            if (l != null && mod != null && l.moduleHash() != 0) moduleImage.putIfAbsent(mod, l.moduleHash());
        }
    }

    private Long outLong(Call c, int param) {
        for (DataItem i : c.leave().data()) {
            if (i.param() == param && i.kind() == CaptureFormat.ITEM_INLINE && i.bytes().length >= 8) {
                return MemorySegment.ofArray(i.bytes()).get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
            }
        }
        return null;
    }

    private byte[] bytes(DataItem i) {
        return switch (i.kind()) {
            case CaptureFormat.ITEM_INLINE -> i.bytes();
            case CaptureFormat.ITEM_STRING -> strings.getOrDefault(i.stringId(), "").getBytes(StandardCharsets.UTF_8);
            case CaptureFormat.ITEM_BLOB -> {
                try {
                    yield ks.blob(i.hash(), "data of parameter " + i.param());
                } catch (CaptureException e) {
                    yield null;
                }
            }
            default -> null;
        };
    }

    private static DataItem item(List<DataItem> items, int param) {
        for (DataItem i : items) if (i.param() == param) return i;
        return null;
    }

    private void diverge(String kind, String what) {
        divergences.add(new Divergence(currentCall, currentFunction, kind, what));
    }

    private long relocate(long v) {
        var e = allocations.floorEntry(v);
        if (e != null && Long.compareUnsigned(v - e.getKey(), Math.max(1, e.getValue()[0])) < 0) return e.getValue()[1] + (v - e.getKey());
        return v;
    }

    /**
     * A kernel launch with {@code kernelParams} (cuLaunchKernel, cuLaunchKernelEx, cuLaunchCooperativeKernel and their
     * _ptsz forms), which {@link #launch} replays; the legacy launches, whose parameters were set by earlier calls, are
     * replayed as any call.
     */
    static boolean isKernelLaunch(CudaFunction f) {
        return f.is(Role.KERNEL_LAUNCH) && f.param("kernelParams").isPresent();
    }

    /**
     * The replay's value of a recorded handle of C type {@code type}; null when no replayed call made
     * it. Value handles ({@code CUdevice}) and the stream constants keep their value; a context
     * first met as an argument (cudart gets its context through CUDART_INTERFACE slot 2, which a
     * capture made by zluda's driver does not show) is taken as the replay's primary context of
     * the device it is the primary context of (device 0 when the capture does not say).
     */
    private Long handle(String type, long v) {
        if (v == 0) return 0L;
        Long m = handles.get(v);
        if (m != null) return m;
        if (!api.handleTypes().contains(type)) return v;
        if (type.equals("CUstream") && (v == 1 || v == 2)) return v; // CU_STREAM_LEGACY, CU_STREAM_PER_THREAD
        if (type.equals("CUcontext")) {
            int dev = contextDevice.getOrDefault(v, 0);
            Long p = primaryContext(dev);
            if (p != null) {
                handles.put(v, p);
                notes.add("context " + CallFormatter.hex(v) + " (first met as an argument of call " + currentCall + " " + currentFunction
                        + ") taken as the primary context of device " + dev);
            }
            return p;
        }
        return null;
    }

    /** The replay's primary context of a device (retained, not made current); null when the driver refuses. */
    private Long primaryContext(int device) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(8, 8);
            return raw.cuDevicePrimaryCtxRetain(out.address(), device) == 0 ? out.get(ValueLayout.JAVA_LONG, 0) : null;
        }
    }

    private static final String CUDART_INTERFACE = "{6bd5fb6c-5bf4-e74a-8987-d93912fd9df9}";

    /**
     * A call through an export table ({@code {GUID}::slot N}, FORMAT.md §6.10). CUDART_INTERFACE
     * slots 1, 6 and 8 (module from a fatbin, shared/reference/cuda-facts.md) are replayed as
     * {@code cuModuleLoadData} of the image the capture's MODULE record kept for the module they
     * returned, and slot 2 (a device's primary context) as {@code cuDevicePrimaryCtxRetain}; the
     * returned handles are mapped. Every other slot is not issued and listed as such.
     */
    private void slot(Call c, String fn, Arena arena) {
        int n = -1;
        if (fn.startsWith(CUDART_INTERFACE + "::slot ")) n = Integer.parseInt(fn.substring(fn.lastIndexOf(' ') + 1));
        if ((n != 1 && n != 2 && n != 6 && n != 8) || c.leave().result() != 0) {
            skipped.merge(fn, 1, Integer::sum);
            return;
        }
        Long recorded = outLong(c, n == 8 ? 1 : 0);
        if (recorded == null) {
            diverge("missing", "the handle this slot returned is not in the capture (the NVIDIA tracer records it)");
            return;
        }
        if (n == 2) {
            int dev = (int) c.enter().args()[1];
            Long p = primaryContext(dev);
            if (p == null) { diverge("result", "the replay's driver has no primary context of device " + dev); return; }
            handles.put(recorded, p);
            standIns.merge(fn + " (as cuDevicePrimaryCtxRetain)", 1, Integer::sum);
            replayed++;
            return;
        }
        Long hash = moduleImage.get(recorded);
        if (hash == null && ptx == null) {
            diverge("missing", "the capture holds no image of the module this slot registered: record again with module images kept "
                    + "(the tracer's default; not ZLUDA_CAPTURE_MODULES=0)");
            return;
        }
        byte[] img;
        try {
            img = ptx != null ? ptx.getBytes(StandardCharsets.UTF_8) : ks.blob(hash, "the module image");
        } catch (CaptureException x) {
            diverge("missing", x.getMessage());
            return;
        }
        CudaFunction load = api.function("cuModuleLoadData").orElseThrow();
        MemorySegment image = arena.allocate(img.length + 1L, 16);
        MemorySegment.copy(img, 0, image, ValueLayout.JAVA_BYTE, 0, img.length);
        MemorySegment out = arena.allocate(8, 8);
        long[] args = {out.address(), image.address()};
        int r = rec != null ? rec.call(load, args, Map.of(), Map.of(0, new long[] {out.address(), 8})) : d.call(load, args);
        replayed++;
        standIns.merge(fn + " (as cuModuleLoadData)", 1, Integer::sum);
        if (r != 0) { diverge("result", "cuModuleLoadData of the module's image returned " + KernelReplay.errorName(raw, r) + ", recorded CUDA_SUCCESS (0)"); return; }
        handles.put(recorded, out.get(ValueLayout.JAVA_LONG, 0));
    }

    /**
     * A call naming a handle no replayed call made (made through an export-table slot that is not
     * replayed, or before the capture began): not issued when the recording failed anyway, else a
     * divergence of kind {@code unsupported}.
     */
    private void unknownHandle(Call c, String what) {
        if (c.leave().result() != 0) {
            skipped.merge(currentFunction + " (failed in the recording, with a handle no replayed call made)", 1, Integer::sum);
        } else {
            diverge("unsupported", what + (what.contains("which no replayed call made") ? "" : ": no replayed call made this handle"));
        }
    }

    private StructRemap.Mapper mapper() {
        return new StructRemap.Mapper() {
            @Override public Long handle(String type, long recorded) { return CaptureReplay.this.handle(type, recorded); }
            @Override public long devicePointer(long recorded) { return relocate(recorded); }
        };
    }

    private void replay(Call c, Arena arena) {
        CaptureRecord.Enter e = c.enter();
        String fn = cap.functionName(e.functionId());
        CudaFunction f = cap.specFunction(e.functionId());
        currentCall = c.ordinal();
        currentFunction = fn;
        if (c.inFlight()) { skipped.merge(fn + " (in flight)", 1, Integer::sum); return; }
        if (f == null && fn.contains("}::slot ")) { slot(c, fn, arena); return; }
        if (f == null || SKIPPED.contains(fn) || f.params().stream().anyMatch(p -> p.format() == FormatKind.FUNCTION_POINTER)) {
            skipped.merge(fn, 1, Integer::sum);
            return;
        }
        if (isKernelLaunch(f)) { launch(c, f, arena); return; }
        long[] args = e.args().clone();
        Map<Integer, byte[]> inData = new LinkedHashMap<>();
        Map<Integer, long[]> outRegions = new LinkedHashMap<>();
        boolean load = f.is(Role.MODULE_LOAD);
        for (CudaParam p : f.params()) {
            long v = args[p.index()];
            switch (p.format()) {
                case HANDLE -> {
                    Long h = handle(p.cType(), v);
                    if (h == null) { unknownHandle(c, p.name() + " (" + p.cType() + " " + CallFormatter.hex(v) + ")"); return; }
                    args[p.index()] = h;
                }
                case DEVICE_POINTER -> args[p.index()] = relocate(v);
                case RECORD -> { diverge("unsupported", "a struct passed by value (" + p.cType() + ") is not replayed"); return; }
                case POINTER, STRING -> {
                    if (v == 0) break;
                    if (load && (p.name().equals("image") || p.name().equals("fatCubin") || p.name().equals("code"))) {
                        byte[] img;
                        if (ptx != null) {
                            img = ptx.getBytes(StandardCharsets.UTF_8);
                        } else {
                            Long mod = outLong(c, 0);
                            Long hash = mod == null ? null : moduleImage.get(mod);
                            if (hash == null) { diverge("missing", "the capture holds no image of the module this call loaded (record with --capture-kernels .)"); return; }
                            try {
                                img = ks.blob(hash, "the module image");
                            } catch (CaptureException x) {
                                diverge("missing", x.getMessage());
                                return;
                            }
                        }
                        MemorySegment s = arena.allocate(img.length + 1L, 16);
                        MemorySegment.copy(img, 0, s, ValueLayout.JAVA_BYTE, 0, img.length);
                        args[p.index()] = s.address();
                        continue;
                    }
                    if (load && p.name().toLowerCase(Locale.ROOT).contains("option")) { args[p.index()] = 0; continue; }
                    DataItem in = item(e.data(), p.index()), out = item(c.leave().data(), p.index());
                    byte[] inBytes = in == null ? null : bytes(in);
                    if (fn.startsWith("cuPointerGetAttributes") && p.name().equals("data")) {
                        // an array of the program's result pointers: fresh ones, one per attribute (values are query outputs, not compared)
                        int count = (int) Math.min(64, Math.max(1, e.args()[f.param("numAttributes").orElseThrow().index()]));
                        MemorySegment arr = arena.allocate(8L * count, 8);
                        for (int i = 0; i < count; i++) arr.setAtIndex(ValueLayout.JAVA_LONG, i, arena.allocate(64, 16).address());
                        args[p.index()] = arr.address();
                        continue;
                    }
                    var struct = p.pointeeType() == null ? java.util.Optional.<dev.zluda.spec.CudaRecord>empty() : api.record(p.pointeeType());
                    if (struct.isPresent() && p.direction().isIn() && inBytes != null) {
                        StructRemap.Outcome o = StructRemap.remap(api, struct.get(), inBytes, p.name(), mapper(), n -> arena.allocate(n, 16).address());
                        if (o.bytes() == null) {
                            if (o.problem().contains("which no replayed call made")) unknownHandle(c, o.problem());
                            else diverge(o.kind(), o.problem());
                            return;
                        }
                        inBytes = o.bytes();
                    }
                    // as much as the driver may write: the spec's size (cuDeviceGetName may fill all len bytes), the data recorded
                    long size = Math.max(Math.max(8, specSize(f, p, e.args())),
                            Math.max(inBytes == null ? 0 : inBytes.length + 1, out == null ? 0 : Math.max(out.size(), 0)));
                    if (p.direction().isIn() && inBytes == null && !p.direction().isOut()) {
                        diverge("missing", "the data behind " + p.name() + " is not in the capture" + (p.opaque() ? " (the spec does not follow it)" : "")
                                + (in != null && in.kind() == CaptureFormat.ITEM_HASH_ONLY ? ": only its hash was kept (a pack made with --redact data)" : ""));
                        return;
                    }
                    MemorySegment s = arena.allocate(size, 16);
                    if (inBytes != null) {
                        MemorySegment.copy(inBytes, 0, s, ValueLayout.JAVA_BYTE, 0, inBytes.length);
                        inData.put(p.index(), inBytes);
                    }
                    args[p.index()] = s.address();
                    if (p.direction().isOut() && out != null) outRegions.put(p.index(), new long[] {s.address(), Math.max(0, out.size())});
                }
                default -> { }
            }
        }
        if (load) {
            for (CudaParam p : f.params()) if (p.name().equals("numOptions") || p.name().equals("numJitOptions") || p.name().equals("numLibraryOptions")) args[p.index()] = 0;
        }
        int r = rec != null ? rec.call(f, args, inData, outRegions) : d.call(f, args);
        replayed++;
        int recorded = c.leave().result();
        if (r != recorded && (f.is(Role.EVENT_QUERY) || f.is(Role.STREAM_QUERY)) && (r == 0 || r == NOT_READY) && (recorded == 0 || recorded == NOT_READY)) {
            // whether work had finished when the program asked is timing, not behaviour (the replay synchronises after every launch)
            timing.merge(fn + " " + (recorded == NOT_READY ? "NOT_READY" : "SUCCESS") + " in the recording, "
                    + (r == NOT_READY ? "NOT_READY" : "SUCCESS") + " in the replay", 1, Integer::sum);
            return;
        }
        if (r != recorded) {
            diverge("result", "returned " + KernelReplay.errorName(raw, r) + ", recorded " + KernelReplay.errorName(raw, recorded));
            return;
        }
        if (r != 0) return;
        if (fn.contains("Synchronize")) flushCopies();
        for (CudaParam p : f.params()) {
            if (!p.isPointer() || !p.direction().isOut() || args[p.index()] == 0) continue;
            DataItem out = item(c.leave().data(), p.index());
            byte[] want = out == null ? null : bytes(out);
            if (want == null) continue;
            MemorySegment got = MemorySegment.ofAddress(args[p.index()]).reinterpret(Math.max(8, want.length));
            String pt = p.pointeeType() == null ? "" : p.pointeeType();
            if (api.handleTypes().contains(pt) && want.length >= 8) {
                handles.put(MemorySegment.ofArray(want).get(ValueLayout.JAVA_LONG_UNALIGNED, 0), got.get(ValueLayout.JAVA_LONG, 0));
            } else if (pt.equals("CUdeviceptr") && want.length >= 8) {
                long size = 1;
                for (CudaParam q : f.params()) if (q.name().equalsIgnoreCase("bytesize")) size = e.args()[q.index()];
                var pitch = f.param("pPitch");
                Long recordedPitch = pitch.isPresent() ? outLong(c, pitch.get().index()) : null;
                if (recordedPitch != null) { // cuMemAllocPitch: pitch × Height bytes, laid out by the recorded pitch
                    size = recordedPitch * e.args()[f.param("Height").orElseThrow().index()];
                    long got2 = MemorySegment.ofAddress(args[pitch.get().index()]).reinterpret(8).get(ValueLayout.JAVA_LONG, 0);
                    if (got2 != recordedPitch) {
                        diverge("result", "the replay's pitch is " + got2 + " bytes, the recording's " + recordedPitch
                                + ": later calls and kernels use the recorded one");
                    }
                }
                allocations.put(MemorySegment.ofArray(want).get(ValueLayout.JAVA_LONG_UNALIGNED, 0), new long[] {size, got.get(ValueLayout.JAVA_LONG, 0)});
            } else if (fn.contains("DtoH") && pt.equals("void")) {
                long src = e.args()[1];
                byte[] have = got.asSlice(0, want.length).toArray(ValueLayout.JAVA_BYTE);
                ElementType t = typeOf(src);
                List<String> params = paramsOf(src);
                long call = currentCall;
                String name = fn;
                Runnable check = () -> {
                    copies++;
                    byte[] now = fn.contains("Async") ? got.asSlice(0, want.length).toArray(ValueLayout.JAVA_BYTE) : have;
                    if (!java.util.Arrays.equals(want, now)) {
                        divergences.add(new Divergence(call, name, "data", describer.describe(want.length + " bytes copied to the host", want, now, t, params)));
                    }
                };
                if (fn.contains("Async")) pendingCopies.add(check);
                else check.run();
            }
        }
    }

    /** Bytes behind a pointer parameter by the spec's size expression over the recorded arguments; 0 when unknown (capped at 1 GiB). */
    static long specSize(CudaFunction f, CudaParam p, long[] args) {
        CudaApi api = CudaApi.get();
        if (p.size() == null) return 0;
        try {
            long v = p.size().expr().evaluate(n -> args[f.param(n).orElseThrow().index()], api::sizeOfType);
            if (!p.size().bytes()) {
                long elem = api.sizeOfType(p.pointeeType());
                v = elem <= 0 ? 0 : Math.multiplyExact(v, elem);
            }
            return v < 0 || v > (1L << 30) ? 0 : v;
        } catch (RuntimeException x) {
            return 0;
        }
    }

    private ElementType typeOf(long recordedDevicePointer) {
        var e = allocations.floorEntry(recordedDevicePointer);
        return e == null ? ElementType.BYTES : allocationTypes.getOrDefault(e.getKey(), ElementType.BYTES);
    }

    /** The kernel parameters that pointed into the allocation holding a recorded device pointer (empty when none typed it). */
    private List<String> paramsOf(long recordedDevicePointer) {
        var e = allocations.floorEntry(recordedDevicePointer);
        return e == null ? List.of() : allocationParams.getOrDefault(e.getKey(), List.of());
    }

    private void flushCopies() {
        for (Runnable r : pendingCopies) r.run();
        pendingCopies.clear();
    }

    /**
     * A kernel launch ({@code cuLaunchKernel}, {@code cuLaunchKernelEx}, {@code cuLaunchCooperativeKernel}):
     * the parameters come from its snapshot, relocated, laid out by the kernel's PTX (the module's
     * own or the newest PTX of its fatbin) as {@code kernelParams}, else passed as one buffer
     * ({@code CU_LAUNCH_PARAM_BUFFER_POINTER}); {@code cuLaunchKernelEx}'s {@code CUlaunchConfig} is
     * remapped like any struct.
     */
    private void launch(Call c, CudaFunction f, Arena arena) {
        CaptureRecord.Enter e = c.enter();
        CaptureRecord.Kernel k = snapshotByLaunch.get(e.seq());
        if (k == null || k.launch() == null) {
            diverge("missing", "no kernel snapshot of this launch: its parameters are not in the capture (record with --capture-kernels .)");
            return;
        }
        FunctionInfo fi = info(k);
        byte[] params = k.params().clone();
        MemorySegment ps = MemorySegment.ofArray(params);
        for (int off = 0; off + 8 <= params.length; off += 8) ps.set(ValueLayout.JAVA_LONG_UNALIGNED, off, relocate(ps.get(ValueLayout.JAVA_LONG_UNALIGNED, off)));
        Map<Integer, ElementType> types = fi == null ? Map.of() : kernelTypes.getOrDefault(kernelKey(k), Map.of());
        List<KernelReplay.BufferTyping> typing = fi == null ? List.of() : KernelReplay.bufferTypes(k, fi, types);
        // the element type of every allocation a parameter word points into (also a pointer inside a struct
        // parameter, e.g. CuPy's CArray), from the PTX's accesses: a later copy back from it is compared as that
        // type (the last kernel that typed it wins: memory pools hand the same allocation to other kernels)
        for (int i = 0; i < typing.size() && i < k.buffers().size(); i++) {
            if (typing.get(i).type() == ElementType.BYTES) continue;
            var a = allocations.floorEntry(k.buffers().get(i).devicePointer());
            if (a == null) continue;
            allocationTypes.put(a.getKey(), typing.get(i).type());
            allocationParams.put(a.getKey(), typing.get(i).params());
        }
        long[] args = e.args().clone();
        Map<Integer, byte[]> inData = new LinkedHashMap<>();
        for (CudaParam p : f.params()) {
            long v = args[p.index()];
            if (p.format() == FormatKind.HANDLE) {
                Long h = handle(p.cType(), v);
                if (h == null) { unknownHandle(c, p.name() + " (" + p.cType() + " " + CallFormatter.hex(v) + ")"); return; }
                args[p.index()] = h;
            } else if (p.name().equals("config")) {
                DataItem in = item(e.data(), p.index());
                byte[] cfg = in == null ? null : bytes(in);
                var rt = api.record(p.pointeeType());
                if (cfg == null || rt.isEmpty()) { diverge("missing", "the launch configuration behind config is not in the capture"); return; }
                StructRemap.Outcome o = StructRemap.remap(api, rt.get(), cfg, "config", mapper(), n -> arena.allocate(n, 16).address());
                if (o.bytes() == null) { diverge(o.kind(), o.problem()); return; }
                MemorySegment s = arena.allocate(o.bytes().length, 16);
                MemorySegment.copy(o.bytes(), 0, s, ValueLayout.JAVA_BYTE, 0, o.bytes().length);
                args[p.index()] = s.address();
                inData.put(p.index(), o.bytes());
            }
        }
        // the state the replay reached must be what the recording had before the kernel; going on
        // (--keep-going), the kernel starts from the recorded state, so that each launch is judged on its own
        if (!compareBuffers(k, typing, true, arena) && (!keepGoing || !restore(k, arena))) return;
        MemorySegment pbuf = arena.allocate(Math.max(8, params.length), 16);
        MemorySegment.copy(params, 0, pbuf, ValueLayout.JAVA_BYTE, 0, params.length);
        int kp = f.param("kernelParams").map(CudaParam::index).orElse(-1), ex = f.param("extra").map(CudaParam::index).orElse(-1);
        if (fi != null) {
            MemorySegment arr = arena.allocate(8L * Math.max(1, fi.params().size()), 8);
            for (ParamInfo p : fi.params()) arr.setAtIndex(ValueLayout.JAVA_LONG, p.index(), pbuf.address() + p.offset());
            args[kp] = arr.address();
            if (ex >= 0) args[ex] = 0;
        } else if (ex >= 0) {
            MemorySegment size = arena.allocateFrom(ValueLayout.JAVA_LONG, params.length);
            args[kp] = 0;
            args[ex] = arena.allocateFrom(ValueLayout.JAVA_LONG, 1 /* CU_LAUNCH_PARAM_BUFFER_POINTER */, pbuf.address(),
                    2 /* CU_LAUNCH_PARAM_BUFFER_SIZE */, size.address(), 0 /* CU_LAUNCH_PARAM_END */).address();
        } else {
            diverge("unsupported", "the module of kernel " + k.name() + " has no PTX to lay out its parameters, and " + f.name() + " takes no extra");
            return;
        }
        int r = rec != null ? rec.call(f, args, inData, Map.of()) : d.call(f, args);
        replayed++;
        if (r != c.leave().result()) {
            diverge("result", "returned " + KernelReplay.errorName(raw, r) + ", recorded " + KernelReplay.errorName(raw, c.leave().result()));
            return;
        }
        int sync = raw.cuCtxSynchronize();
        launches++;
        if (sync != k.launch().result()) {
            diverge("kernel", k.name() + ": the kernel ended with " + KernelReplay.errorName(raw, sync) + ", recorded " + KernelReplay.errorName(raw, k.launch().result()));
            return;
        }
        if (sync == 0) compareBuffers(k, typing, false, arena);
    }

    private static long kernelKey(CaptureRecord.Kernel k) {
        return k.launch().moduleHash() * 31 + k.name().hashCode();
    }

    /** The kernel's parameters from its module's PTX (and, in {@link #kernelTypes}, its pointer parameters' element types). */
    private FunctionInfo info(CaptureRecord.Kernel k) {
        long h = kernelKey(k);
        if (kernelInfo.containsKey(h)) return kernelInfo.get(h);
        FunctionInfo fi = null;
        Map<Integer, ElementType> types = Map.of();
        try {
            String text = ptx != null ? ptx : KernelReplay.ptxOf(ks.blob(k.launch().moduleHash(), "module"), new ArrayList<>());
            if (text != null) {
                ParseResult pr = Ptx.parse(text, "module");
                if (pr.module() != null) {
                    dev.zluda.ptx.ModuleModel mm = Semantics.analyze(pr.module(), "module");
                    fi = mm.function(k.name());
                    if (fi != null) types = ElementType.ofKernel(pr.module(), mm, k.name());
                }
            }
        } catch (CaptureException | RuntimeException e) {
            fi = null;
        }
        kernelInfo.put(h, fi);
        kernelTypes.put(h, types);
        return fi;
    }

    /** Writes the recorded before-images into the replay's buffers; false (with a divergence) when one cannot be. */
    private boolean restore(CaptureRecord.Kernel k, Arena arena) {
        for (CaptureRecord.KernelBuffer b : k.buffers()) {
            byte[] img;
            try {
                img = ks.blob(b.before(), "a buffer image");
            } catch (CaptureException x) {
                diverge("missing", x.getMessage());
                return false;
            }
            MemorySegment host = arena.allocate(Math.max(1, img.length), 16);
            MemorySegment.copy(img, 0, host, ValueLayout.JAVA_BYTE, 0, img.length);
            int r = raw.cuMemcpyHtoD_v2(relocate(b.devicePointer()), host.address(), img.length);
            if (r != 0) { diverge("kernel", k.name() + ": the recorded state cannot be restored: " + KernelReplay.errorName(raw, r)); return false; }
        }
        restored++;
        return true;
    }

    /**
     * Compares the replay's memory of every snapshot buffer with the before- or after-image (typed by
     * this kernel's PTX where it types the buffer, else as the allocation was last typed); false on a difference.
     */
    private boolean compareBuffers(CaptureRecord.Kernel k, List<KernelReplay.BufferTyping> typing, boolean before, Arena arena) {
        boolean same = true;
        for (int i = 0; i < k.buffers().size(); i++) {
            CaptureRecord.KernelBuffer b = k.buffers().get(i);
            byte[] want;
            try {
                want = ks.blob(before ? b.before() : b.after(), "a buffer image");
            } catch (CaptureException x) {
                diverge("missing", x.getMessage());
                return false;
            }
            long at = relocate(b.devicePointer());
            if (at == b.devicePointer() && !allocations.containsKey(b.devicePointer())) {
                diverge("unsupported", k.name() + ": buffer " + (i + 1) + " at " + CallFormatter.hex(b.devicePointer())
                        + " was not allocated by a replayed call");
                return false;
            }
            MemorySegment host = arena.allocate(Math.max(1, b.size()), 16);
            int r = raw.cuMemcpyDtoH_v2(host.address(), at, b.size());
            if (r != 0) { diverge("kernel", k.name() + ": buffer " + (i + 1) + " cannot be read: " + KernelReplay.errorName(raw, r)); return false; }
            byte[] got = host.asSlice(0, b.size()).toArray(ValueLayout.JAVA_BYTE);
            if (!java.util.Arrays.equals(want, got)) {
                KernelReplay.BufferTyping own = i < typing.size() && typing.get(i).type() != ElementType.BYTES ? typing.get(i) : null;
                diverge(before ? "state" : "kernel", describer.describe(k.name() + ": buffer " + (i + 1) + " (" + b.size() + " bytes) "
                        + (before ? "before the kernel (the replay reached another state)" : "after the kernel"), want, got,
                        own != null ? own.type() : typeOf(b.devicePointer()), own != null ? own.params() : paramsOf(b.devicePointer())));
                same = false;
            }
        }
        return same;
    }

    private static void writeManifest(Path dir, Capture cap, Driver d) throws IOException {
        ObjectMapper json = new ObjectMapper();
        ObjectNode m = json.createObjectNode();
        m.put("formatVersion", "1.0");
        m.put("program", "zluda replay");
        m.putArray("arguments").add(cap.source().toString());
        m.put("pid", ProcessHandle.current().pid());
        m.put("startTime", Instant.now().toString());
        ObjectNode driver = m.putObject("driver");
        driver.put("name", d.kind().equals("zluda") ? "zluda" : d.kind().equals("nvidia") ? "nvidia" : "library");
        driver.put("library", d.describe());
        m.putObject("tool").put("name", "zluda replay").put("version", "0.1.0");
        m.putObject("capture").put("data", "replay");
        m.putObject("replay").put("capture", cap.source().toAbsolutePath().toString()).put("whole", true);
        Files.writeString(dir.resolve(CaptureFormat.MANIFEST_FILE), json.writerWithDefaultPrettyPrinter().writeValueAsString(m) + "\n");
    }
}
