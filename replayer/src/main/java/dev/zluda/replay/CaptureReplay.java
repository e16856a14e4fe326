package dev.zluda.replay;

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
 * <p>Not replayed (counted and listed): {@code cuGetProcAddress}, {@code cuGetExportTable},
 * error-name queries, calls with callbacks. Refused (a divergence of kind {@code unsupported}):
 * calls passing structs in memory ({@code cuMemcpy2D}, {@code cuLaunchKernelEx}, ...), whose device
 * pointers and handles would need remapping inside the struct, and data the capture does not hold.
 * Query outputs (device properties, pointers the driver returns) are not compared; JIT options of
 * module loads are dropped. {@link KernelReplay.Options#ptx()} replaces every module image (meant
 * for captures of one module: planted divergences, experiments). The replay stops at the first
 * divergence unless {@code keepGoing}.
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
     */
    public record Result(String driver, long calls, long replayed, Map<String, Integer> skipped, long copies, long launches,
                         List<Divergence> divergences, Path capture) {
        /** 0 when nothing diverged, 1 otherwise. */
        public int exitCode() {
            return divergences.isEmpty() ? 0 : 1;
        }

        /** The report as {@code zluda replay CAPTURE} prints it. */
        public void print(PrintWriter out) {
            out.println("replayed on " + driver + ": " + replayed + " of " + calls + " calls issued, " + copies + " device-to-host copies and "
                    + launches + " kernel launches checked");
            if (!skipped.isEmpty()) {
                StringBuilder sb = new StringBuilder("  not issued:");
                skipped.forEach((n, c) -> sb.append(' ').append(n).append(" ×").append(c));
                out.println(sb);
            }
            for (Divergence d : divergences) out.println("  call " + d.call + " " + d.function + ": " + d.kind + ": " + d.what);
            out.println(divergences.isEmpty() ? "VERDICT: the replay did what the recording did (results, copies, kernel buffers)"
                    : "VERDICT: DIFFERENT: first divergence at call " + divergences.getFirst().call + " " + divergences.getFirst().function);
            if (capture != null) out.println("replay capture: " + capture + "   (zluda diff CAPTURE " + capture + ")");
            out.flush();
        }
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
    private final Map<Long, CaptureRecord.Kernel> snapshotByLaunch = new HashMap<>();
    private final Map<Long, Long> moduleImage = new HashMap<>();
    private final Map<Long, FunctionInfo> kernelInfo = new HashMap<>();
    private final List<Runnable> pendingCopies = new ArrayList<>();
    private final List<Divergence> divergences = new ArrayList<>();
    private final Map<String, Integer> skipped = new TreeMap<>();
    private long copies, launches, replayed;
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
        String level = cap.manifest().path("capture").path("data").asText("");
        if (!level.equals("replay")) {
            throw new ReplayException(cap.source() + " was recorded at level " + (level.isEmpty() ? "calls" : level)
                    + ", which does not keep host buffers: a whole replay needs level replay and kernel snapshots; record again with "
                    + "zluda run --zluda-trace --level replay --capture-kernels . -- APP");
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
        for (Call c : calls) {
            if (!cap.functionName(c.enter().functionId()).startsWith("cuLaunch")) continue;
            launches++;
            if (!snapped.contains(c.enter().seq())) { bare++; if (firstBare == 0) firstBare = c.ordinal(); }
        }
        if (bare > 0) {
            throw new ReplayException(cap.source() + ": " + bare + " of " + launches + " kernel launches have no snapshot (the first is call "
                    + firstBare + "): a whole replay needs their parameters and module; record again with "
                    + "zluda run --zluda-trace --level replay --capture-kernels . -- APP");
        }
        Driver raw;
        try {
            raw = o.on().equals("zluda") ? new JavaDriver() : NativeDriver.load(o.on(), o.zludaHome());
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
        r.index(calls);
        long total = 0;
        try (Arena arena = Arena.ofConfined()) {
            for (Call c : calls) {
                total++;
                if (!keepGoing && !r.divergences.isEmpty()) continue;
                r.replay(c, arena);
            }
            r.flushCopies();
        }
        Result res = new Result(raw.describe(), total, r.replayed, r.skipped, r.copies, r.launches, List.copyOf(r.divergences), outDir);
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
            if (fn.equals("cuModuleGetFunction") || fn.equals("cuLibraryGetKernel")) {
                Long out = outLong(c, 0);
                if (out != null) functionModule.put(out, c.enter().args()[1]);
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

    private void replay(Call c, Arena arena) {
        CaptureRecord.Enter e = c.enter();
        String fn = cap.functionName(e.functionId());
        CudaFunction f = cap.specFunction(e.functionId());
        currentCall = c.ordinal();
        currentFunction = fn;
        if (c.inFlight()) { skipped.merge(fn + " (in flight)", 1, Integer::sum); return; }
        if (f == null || SKIPPED.contains(fn) || f.params().stream().anyMatch(p -> p.format() == FormatKind.FUNCTION_POINTER)) {
            skipped.merge(fn, 1, Integer::sum);
            return;
        }
        if (fn.startsWith("cuLaunchKernel") && !fn.startsWith("cuLaunchKernelEx")) { launch(c, f, arena); return; }
        long[] args = e.args().clone();
        Map<Integer, byte[]> inData = new LinkedHashMap<>();
        Map<Integer, long[]> outRegions = new LinkedHashMap<>();
        boolean load = fn.startsWith("cuModuleLoadData") || fn.equals("cuModuleLoadFatBinary") || fn.equals("cuLibraryLoadData");
        for (CudaParam p : f.params()) {
            long v = args[p.index()];
            switch (p.format()) {
                case HANDLE -> args[p.index()] = handles.getOrDefault(v, v);
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
                    if (fn.startsWith("cuModuleLoadDataEx") || fn.equals("cuLibraryLoadData")) {
                        if (p.name().toLowerCase(Locale.ROOT).contains("option")) { args[p.index()] = 0; continue; }
                    }
                    if (p.pointeeType() != null && api.record(p.pointeeType()).isPresent() && p.direction().isIn()) {
                        diverge("unsupported", "the struct behind " + p.name() + " (" + p.pointeeType() + ") may hold handles or device pointers, which are not remapped");
                        return;
                    }
                    DataItem in = item(e.data(), p.index()), out = item(c.leave().data(), p.index());
                    byte[] inBytes = in == null ? null : bytes(in);
                    // as much as the driver may write: the spec's size (cuDeviceGetName may fill all len bytes), the data recorded
                    long size = Math.max(Math.max(8, specSize(f, p, e.args())),
                            Math.max(inBytes == null ? 0 : inBytes.length + 1, out == null ? 0 : Math.max(out.size(), 0)));
                    if (p.direction().isIn() && inBytes == null && !p.direction().isOut()) {
                        diverge("missing", "the data behind " + p.name() + " is not in the capture" + (p.opaque() ? " (the spec does not follow it)" : ""));
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
                allocations.put(MemorySegment.ofArray(want).get(ValueLayout.JAVA_LONG_UNALIGNED, 0), new long[] {size, got.get(ValueLayout.JAVA_LONG, 0)});
            } else if (fn.contains("DtoH") && pt.equals("void")) {
                long src = e.args()[1];
                byte[] have = got.asSlice(0, want.length).toArray(ValueLayout.JAVA_BYTE);
                ElementType t = typeOf(src);
                long call = currentCall;
                String name = fn;
                Runnable check = () -> {
                    copies++;
                    BufferVerdict v = BufferVerdict.compare(want, fn.contains("Async") ? got.asSlice(0, want.length).toArray(ValueLayout.JAVA_BYTE) : have, t);
                    if (!v.identical()) divergences.add(new Divergence(call, name, "data", want.length + " bytes copied to the host: " + v.text()));
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

    private void flushCopies() {
        for (Runnable r : pendingCopies) r.run();
        pendingCopies.clear();
    }

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
        Map<Integer, ElementType> types = fi == null ? Map.of() : PtxTypes.infer(fi.ast(), fi.params());
        if (fi != null) {
            for (ParamInfo p : fi.params()) {
                if (p.size() != 8 || !types.containsKey(p.index())) continue;
                var a = allocations.floorEntry(MemorySegment.ofArray(k.params()).get(ValueLayout.JAVA_LONG_UNALIGNED, p.offset()));
                if (a != null) allocationTypes.putIfAbsent(a.getKey(), types.get(p.index()));
            }
        }
        // the state the replay reached must be what the recording had before the kernel
        if (!compareBuffers(k, true, arena)) return;
        MemorySegment pbuf = arena.allocate(Math.max(8, params.length), 16);
        MemorySegment.copy(params, 0, pbuf, ValueLayout.JAVA_BYTE, 0, params.length);
        long kernelParams;
        if (fi != null) {
            MemorySegment arr = arena.allocate(8L * Math.max(1, fi.params().size()), 8);
            for (ParamInfo p : fi.params()) arr.setAtIndex(ValueLayout.JAVA_LONG, p.index(), pbuf.address() + p.offset());
            kernelParams = arr.address();
        } else {
            diverge("unsupported", "the module of kernel " + k.name() + " has no PTX to lay out its parameters");
            return;
        }
        long[] args = e.args().clone();
        args[0] = handles.getOrDefault(args[0], args[0]);
        args[8] = handles.getOrDefault(args[8], args[8]);
        args[9] = kernelParams;
        args[10] = 0;
        int r = d.call(f, args);
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
        if (sync == 0) compareBuffers(k, false, arena);
    }

    private FunctionInfo info(CaptureRecord.Kernel k) {
        long h = k.launch().moduleHash() * 31 + k.name().hashCode();
        if (kernelInfo.containsKey(h)) return kernelInfo.get(h);
        FunctionInfo fi = null;
        try {
            String ptx = new String(ks.blob(k.launch().moduleHash(), "module"), StandardCharsets.UTF_8).replace("\0", "");
            ParseResult pr = Ptx.parse(ptx, "module");
            if (pr.module() != null) fi = Semantics.analyze(pr.module(), "module").function(k.name());
        } catch (CaptureException | RuntimeException e) {
            fi = null;
        }
        kernelInfo.put(h, fi);
        return fi;
    }

    /** Compares the replay's memory of every snapshot buffer with the before- or after-image; false on a difference. */
    private boolean compareBuffers(CaptureRecord.Kernel k, boolean before, Arena arena) {
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
            BufferVerdict v = BufferVerdict.compare(want, host.asSlice(0, b.size()).toArray(ValueLayout.JAVA_BYTE), typeOf(b.devicePointer()));
            if (!v.identical()) {
                diverge(before ? "state" : "kernel", k.name() + ": buffer " + (i + 1) + " (" + b.size() + " bytes) "
                        + (before ? "before the kernel (the replay reached another state)" : "after the kernel") + ": " + v.text());
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
