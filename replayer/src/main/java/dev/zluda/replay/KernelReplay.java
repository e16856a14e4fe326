package dev.zluda.replay;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureException;
import dev.zluda.capture.CaptureFormat;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.KernelSnapshots;
import dev.zluda.capture.ThreadLog;
import dev.zluda.capture.text.CallFormatter;
import dev.zluda.ptx.FunctionInfo;
import dev.zluda.ptx.ModuleModel;
import dev.zluda.ptx.ParamInfo;
import dev.zluda.ptx.ParseResult;
import dev.zluda.ptx.Ptx;
import dev.zluda.ptx.Semantics;
import dev.zluda.runtime.image.ModuleImage;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * Re-runs one captured kernel launch (a KERNEL snapshot, trace-format/FORMAT.md §6.5) on a chosen
 * driver and compares what it leaves in memory with what the recording saw.
 *
 * <p>The replay loads the snapshot's module image with {@code cuModuleLoadDataEx} (or PTX given in
 * its place), allocates a fresh buffer for every recorded allocation and fills it with the
 * before-image, rewrites each aligned 8-byte parameter word that pointed into a recorded allocation
 * to the same offset in the fresh one, launches with the recorded shape and dynamic shared memory
 * on the device's primary context, synchronises, reads every buffer back and compares it with the
 * recorded after-image, typed by the PTX's loads and stores on the parameter pointing there
 * ({@link dev.zluda.ptx.ir.pass.PointerTypes}). Parameters go as {@code kernelParams} laid out by the PTX (the ptx module's
 * parameter layout), or as the {@code CU_LAUNCH_PARAM_BUFFER_POINTER} buffer when the module holds
 * no PTX (a cubin).
 *
 * <p>Drivers: {@code zluda} — zluda's Java driver in this process ({@link JavaDriver});
 * {@code nvidia} — NVIDIA's {@code libcuda.so.1} through the JDK's foreign-function API;
 * a path — that {@code libcuda.so} the same way ({@link NativeDriver}).
 */
public final class KernelReplay {
    /** CUjit_option values (cuda.h). */
    private static final int JIT_ERROR_LOG_BUFFER = 5, JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
    /** CU_LAUNCH_PARAM_END, _BUFFER_POINTER, _BUFFER_SIZE (cuda.h). */
    private static final long PARAM_END = 0, PARAM_BUFFER_POINTER = 1, PARAM_BUFFER_SIZE = 2;
    private static final int LOG_BYTES = 16384;

    private KernelReplay() {}

    /**
     * What to replay on, and where the replay's capture goes.
     *
     * @param on {@code zluda}, {@code nvidia}, or a path to a {@code libcuda.so}
     * @param output the replay's capture directory (must not exist or be empty); null: the default,
     *     {@code <capture>-replay[_N]} beside the capture
     * @param writeCapture whether to write a capture of the replay at all
     * @param ptx PTX to load instead of the recorded module (an edited copy), or null
     * @param zludaHome zluda's installation, whose own library {@code nvidia} refuses; may be null
     */
    public record Options(String on, Path output, boolean writeCapture, String ptx, Path zludaHome) {
        /** Replay on zluda's emulator in-process, no capture written. */
        public static Options onZluda() {
            return new Options("zluda", null, false, null, null);
        }
    }

    /**
     * The verdict on one buffer.
     *
     * @param index 1-based position in the snapshot
     * @param recordedAddress the allocation's address in the recording
     * @param size bytes
     * @param params names of the parameters whose words pointed into it
     * @param changedInRecording whether the kernel changed it in the recording (after ≠ before)
     * @param verdict the comparison of the replay's after-image with the recorded one; null when
     *     it could not be read back ({@code note} says why)
     */
    public record BufferResult(int index, long recordedAddress, long size, List<String> params, boolean changedInRecording,
                               BufferVerdict verdict, String note) {}

    /**
     * The outcome of a replay.
     *
     * @param recordedResult the kernel's result in the recording (0 when it did not fault)
     * @param replayResult the launch's result, else the synchronisation's after it
     * @param capture the replay's capture directory, or null
     */
    public record Result(KernelSnapshots.Snapshot snapshot, String driver, String device, int recordedResult, int replayResult,
                         int relocatedWords, List<BufferResult> buffers, Path capture, List<String> notes) {
        /**
         * Whether every buffer and the result are as recorded. A kernel that faults as it did in the
         * recording leaves its buffers unreadable (the error is sticky on the context): those count
         * as as-recorded.
         */
        public boolean identical() {
            if (recordedResult != replayResult) return false;
            for (BufferResult b : buffers) {
                if (b.verdict == null && recordedResult == 0) return false;
                if (b.verdict != null && !b.verdict.identical()) return false;
            }
            return true;
        }

        /** 0 when identical, 1 when anything differs. */
        public int exitCode() {
            return identical() ? 0 : 1;
        }

        /** The report, as {@code zluda replay} prints it. */
        public void print(PrintWriter out) {
            CallFormatter fmt = new CallFormatter(i -> null, i -> "", Map.of());
            out.println("kernel snapshot " + snapshot.summary());
            out.println("  replayed on " + driver + (device.isEmpty() ? "" : ", device \"" + device + "\""));
            for (String n : notes) out.println("  note: " + n);
            out.println("  parameters: " + snapshot.record().params().length + " bytes, " + relocatedWords + " pointer word(s) relocated into fresh allocations");
            out.println("  kernel result: " + fmt.result(replayResult) + (replayResult == recordedResult ? " (as recorded)" : " (recorded: " + fmt.result(recordedResult) + ")"));
            int differ = 0;
            for (BufferResult b : buffers) {
                String what = b.verdict == null ? (recordedResult != 0 && replayResult == recordedResult
                        ? "not compared: " + b.note + " after the fault, as in the recording" : "NOT READ BACK: " + b.note) : b.verdict.text();
                if ((b.verdict == null && recordedResult == 0) || (b.verdict != null && !b.verdict.identical())) differ++;
                String type = b.verdict == null ? "" : ", " + b.verdict.type().ptx();
                out.println(String.format(Locale.ROOT, "  buffer %d %s %d bytes (%s%s)%s: %s", b.index, CallFormatter.hex(b.recordedAddress), b.size,
                        b.params.isEmpty() ? "no parameter" : String.join(", ", b.params), type,
                        b.changedInRecording ? "" : " [input: the recorded kernel did not change it]", what));
            }
            if (identical()) out.println("VERDICT: identical: the result and all " + buffers.size() + " buffer(s) are as recorded");
            else out.println("VERDICT: DIFFERENT: " + differ + " of " + buffers.size() + " buffer(s) differ"
                    + (replayResult != recordedResult ? "; the kernel result differs" : ""));
            if (capture != null) out.println("replay capture: " + capture + "   (zluda dump " + capture + ")");
            out.flush();
        }
    }

    /**
     * Replays snapshot {@code which} ({@code N} or a kernel name, {@link KernelSnapshots#find}).
     *
     * @throws ReplayException when the capture lacks what a replay needs, the driver cannot be
     *     loaded, or a driver call that setting up the replay needs fails; the message says which
     */
    public static Result run(Capture cap, String which, Options o) throws ReplayException {
        KernelSnapshots ks = KernelSnapshots.read(cap);
        KernelSnapshots.Snapshot snap;
        try {
            snap = ks.find(which);
        } catch (IllegalArgumentException e) {
            throw new ReplayException(e.getMessage());
        }
        CaptureRecord.Kernel k = snap.record();
        CaptureRecord.KernelLaunch launch = k.launch();
        if (launch == null) {
            throw new ReplayException("kernel snapshot #" + snap.number() + " (" + k.name() + ") has no launch section (module image, shape): "
                    + "the writer that recorded it predates it; record again with zluda run --zluda-trace --capture-kernels REGEX");
        }
        List<String> notes = new ArrayList<>();
        byte[] image;
        try {
            if (o.ptx() != null) {
                image = o.ptx().getBytes(StandardCharsets.UTF_8);
                notes.add("the module is the PTX given in place of the recorded one");
            } else {
                if (launch.moduleHash() == 0) throw new ReplayException("kernel snapshot #" + snap.number() + " kept no module image; record again");
                image = ks.blob(launch.moduleHash(), "the module image of kernel " + k.name());
            }
        } catch (CaptureException e) {
            throw new ReplayException(e.getMessage(), e);
        }
        // the PTX: layout of the parameters, element types
        String ptx = ptxOf(image, notes);
        FunctionInfo fi = null;
        Map<Integer, dev.zluda.replay.ElementType> types = Map.of();
        if (ptx != null) {
            ParseResult pr = Ptx.parse(ptx, "module");
            if (pr.module() != null) {
                ModuleModel mm = Semantics.analyze(pr.module(), "module");
                fi = mm.function(k.name());
                if (fi == null) notes.add("the module's PTX has no kernel " + k.name() + ": parameters passed as one buffer, types unknown");
                else types = ElementType.ofKernel(pr.module(), mm, k.name());
            } else {
                notes.add("the module's PTX does not parse: parameters passed as one buffer, types unknown");
            }
        }
        if (fi != null && fi.paramSize() > k.params().length) {
            throw new ReplayException("kernel " + k.name() + " takes " + fi.paramSize() + " parameter bytes (PTX layout) but the snapshot holds "
                    + k.params().length);
        }
        for (CaptureRecord.KernelBuffer b : k.buffers()) {
            if (b.before() == 0 || b.after() == 0 || !ks.hasBlob(b.before()) || !ks.hasBlob(b.after())) {
                throw new ReplayException("kernel snapshot #" + snap.number() + ": the images of the buffer at " + CallFormatter.hex(b.devicePointer())
                        + " are not in the capture" + (cap.manifest().has("redacted")
                                ? " (the pack was made with --redact data, which leaves them out); a replay needs them: pack the capture again without --redact data"
                                : "; a replay needs them: record again with --capture-kernels"));
            }
        }
        Path outDir = null;
        if (o.writeCapture()) outDir = outputDirectory(cap, o.output());
        Driver base;
        try {
            base = o.on().equals("zluda") ? JavaDriver.forTarget(ptx, notes) : NativeDriver.load(o.on(), o.zludaHome());
        } catch (IllegalStateException e) {
            throw new ReplayException(e.getMessage(), e);
        }
        RecordingDriver rec = null;
        Driver d = base;
        if (outDir != null) {
            try {
                rec = new RecordingDriver(base, outDir.resolve(CaptureFormat.CAPTURE_FILE));
                d = rec;
            } catch (IOException e) {
                notes.add("no replay capture: " + e.getMessage());
                outDir = null;
            }
        }
        try (Arena arena = Arena.ofConfined()) {
            Result r = replay(d, rec, arena, ks, snap, image, fi, types, notes, outDir);
            if (rec != null) {
                rec.finish(r.exitCode());
                dev.zluda.capture.Trim.trim(outDir.resolve(CaptureFormat.CAPTURE_FILE)); // the writer grows the file in large steps
                writeManifest(outDir, cap, snap, d);
                if (ptx != null) Files.writeString(outDir.resolve("module_0001_01.ptx"), ptx);
            }
            return r;
        } catch (IOException e) {
            throw new ReplayException("writing the replay capture in " + outDir + " failed: " + e.getMessage(), e);
        } finally {
            d.close();
        }
    }

    private static Result replay(Driver d, RecordingDriver rec, Arena arena, KernelSnapshots ks, KernelSnapshots.Snapshot snap, byte[] image,
                                 FunctionInfo fi, Map<Integer, ElementType> types, List<String> notes, Path outDir) throws ReplayException {
        CaptureRecord.Kernel k = snap.record();
        CaptureRecord.KernelLaunch l = k.launch();
        MemorySegment p8 = arena.allocate(8, 8);
        check(d, d.cuInit(0), "cuInit(0)");
        check(d, d.cuDeviceGet(p8.address(), 0), "cuDeviceGet(0)");
        int dev = p8.get(ValueLayout.JAVA_INT, 0);
        MemorySegment name = arena.allocate(256);
        String device = d.cuDeviceGetName(name.address(), 256, dev) == 0 ? name.getString(0) : "";
        check(d, d.cuDevicePrimaryCtxRetain(p8.address(), dev), "cuDevicePrimaryCtxRetain");
        long ctx = p8.get(ValueLayout.JAVA_LONG, 0);
        check(d, d.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
        List<Long> fresh = new ArrayList<>();
        long module = 0;
        try {
            // the module
            MemorySegment img = arena.allocate(image.length + 1L, 16);
            MemorySegment.copy(image, 0, img, ValueLayout.JAVA_BYTE, 0, image.length);
            MemorySegment opts = arena.allocateFrom(ValueLayout.JAVA_INT, JIT_ERROR_LOG_BUFFER, JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
            MemorySegment log = arena.allocate(LOG_BYTES);
            MemorySegment vals = arena.allocateFrom(ValueLayout.JAVA_LONG, log.address(), LOG_BYTES);
            int r = d.cuModuleLoadDataEx(p8.address(), img.address(), 2, opts.address(), vals.address());
            if (r != 0) {
                String text = log.getString(0).strip();
                throw new ReplayException("the driver does not load the module of kernel " + k.name() + ": " + errorName(d, r)
                        + (text.isEmpty() ? "" : "\n" + text));
            }
            module = p8.get(ValueLayout.JAVA_LONG, 0);
            if (rec != null) {
                long h = rec.log().blob(image, 0, image.length, CaptureFormat.COMPRESSION_LZ4, System.nanoTime());
                rec.log().module(1, 1, fi != null || isText(image) ? CaptureFormat.MODULE_PTX : CaptureFormat.MODULE_OTHER, h, image.length, module,
                        isText(image) ? "module_0001_01.ptx" : "", System.nanoTime());
            }
            check(d, d.cuModuleGetFunction(p8.address(), module, arena.allocateFrom(k.name()).address()), "cuModuleGetFunction(" + k.name() + ")");
            long function = p8.get(ValueLayout.JAVA_LONG, 0);
            // fresh buffers with the before-images
            List<CaptureRecord.KernelBuffer> bufs = k.buffers();
            List<byte[]> before = new ArrayList<>(), after = new ArrayList<>();
            for (int i = 0; i < bufs.size(); i++) {
                CaptureRecord.KernelBuffer b = bufs.get(i);
                before.add(blob(ks, b.before(), "the before-image of buffer " + (i + 1)));
                after.add(blob(ks, b.after(), "the after-image of buffer " + (i + 1)));
                check(d, d.cuMemAlloc_v2(p8.address(), Math.max(1, b.size())), "cuMemAlloc_v2(" + b.size() + ")");
                long ptr = p8.get(ValueLayout.JAVA_LONG, 0);
                fresh.add(ptr);
                MemorySegment host = arena.allocate(Math.max(1, b.size()), 16);
                MemorySegment.copy(before.get(i), 0, host, ValueLayout.JAVA_BYTE, 0, before.get(i).length);
                check(d, d.cuMemcpyHtoD_v2(ptr, host.address(), b.size()), "cuMemcpyHtoD_v2 of buffer " + (i + 1));
            }
            // relocation of the parameter words
            byte[] params = k.params().clone();
            MemorySegment ps = MemorySegment.ofArray(params);
            List<BufferTyping> typing = bufferTypes(k, fi, types);
            int relocated = 0;
            for (int off = 0; off + 8 <= params.length; off += 8) {
                int i = bufferAt(k, ps.get(ValueLayout.JAVA_LONG_UNALIGNED, off));
                if (i < 0) continue;
                long v = ps.get(ValueLayout.JAVA_LONG_UNALIGNED, off);
                ps.set(ValueLayout.JAVA_LONG_UNALIGNED, off, fresh.get(i) + (v - bufs.get(i).devicePointer()));
                relocated++;
            }
            // launch
            MemorySegment pbuf = arena.allocate(Math.max(8, params.length), 16);
            MemorySegment.copy(params, 0, pbuf, ValueLayout.JAVA_BYTE, 0, params.length);
            long kernelParams = 0, extra = 0;
            if (fi != null) {
                MemorySegment arr = arena.allocate(8L * Math.max(1, fi.params().size()), 8);
                for (ParamInfo p : fi.params()) arr.setAtIndex(ValueLayout.JAVA_LONG, p.index(), pbuf.address() + p.offset());
                kernelParams = arr.address();
            } else {
                MemorySegment size = arena.allocateFrom(ValueLayout.JAVA_LONG, params.length);
                MemorySegment ex = arena.allocateFrom(ValueLayout.JAVA_LONG, PARAM_BUFFER_POINTER, pbuf.address(), PARAM_BUFFER_SIZE, size.address(), PARAM_END);
                extra = ex.address();
            }
            int lr = d.cuLaunchKernel(function, (int) l.gridX(), (int) l.gridY(), (int) l.gridZ(), (int) l.blockX(), (int) l.blockY(), (int) l.blockZ(),
                    (int) l.sharedMemBytes(), 0, kernelParams, extra);
            long launchSeq = rec != null ? rec.lastLaunchSeq : -1;
            int sr = lr == 0 ? d.cuCtxSynchronize() : lr;
            // read back and compare
            List<BufferResult> results = new ArrayList<>();
            List<CaptureRecord.KernelBuffer> replayBufs = new ArrayList<>();
            for (int i = 0; i < bufs.size(); i++) {
                CaptureRecord.KernelBuffer b = bufs.get(i);
                MemorySegment host = arena.allocate(Math.max(1, b.size()), 16);
                int cr = lr == 0 ? d.cuMemcpyDtoH_v2(host.address(), fresh.get(i), b.size()) : lr;
                boolean changed = b.before() != b.after();
                if (cr != 0) {
                    results.add(new BufferResult(i + 1, b.devicePointer(), b.size(), typing.get(i).params(), changed, null,
                            "cuMemcpyDtoH_v2 returned " + errorName(d, cr)));
                    continue;
                }
                byte[] got = host.asSlice(0, b.size()).toArray(ValueLayout.JAVA_BYTE);
                results.add(new BufferResult(i + 1, b.devicePointer(), b.size(), typing.get(i).params(), changed,
                        BufferVerdict.compare(after.get(i), got, typing.get(i).type()), null));
                if (rec != null) {
                    long hb = rec.log().blob(before.get(i), 0, before.get(i).length, CaptureFormat.COMPRESSION_LZ4, System.nanoTime());
                    long ha = rec.log().blob(got, 0, got.length, CaptureFormat.COMPRESSION_LZ4, System.nanoTime());
                    replayBufs.add(new CaptureRecord.KernelBuffer(fresh.get(i), b.size(), hb, ha));
                }
            }
            if (rec != null && launchSeq >= 0) {
                long mh = rec.log().blob(image, 0, image.length, CaptureFormat.COMPRESSION_LZ4, System.nanoTime());
                rec.log().kernel(launchSeq, function, k.name(), params, replayBufs,
                        new CaptureRecord.KernelLaunch(mh, l.gridX(), l.gridY(), l.gridZ(), l.blockX(), l.blockY(), l.blockZ(), l.sharedMemBytes(), sr),
                        System.nanoTime());
            }
            return new Result(snap, d.describe(), device, l.result(), sr, relocated, results, outDir, notes);
        } finally {
            for (long p : fresh) d.cuMemFree_v2(p);
            if (module != 0) d.cuModuleUnload(module);
            d.cuDevicePrimaryCtxRelease_v2(dev);
        }
    }

    /**
     * What a snapshot's buffer is to the kernel: the parameters whose 8-byte words point into it, and
     * the type of its elements.
     *
     * @param params parameter names (from the PTX), or {@code parameter bytes 8..15} where the PTX is
     *     not known; empty when no parameter word points into it
     * @param type the element type the PTX's global loads, stores and atomics on those parameters give
     *     ({@link dev.zluda.ptx.ir.pass.PointerTypes}); {@link ElementType#BYTES} when not known or when they disagree in size
     */
    public record BufferTyping(List<String> params, ElementType type) {}

    /**
     * The parameters pointing into each buffer of a snapshot and its element type, from the module's
     * PTX: what {@code zluda replay} compares the after-images as, and {@code zluda diff} too.
     *
     * @param k the snapshot
     * @param moduleImage the module image (PTX text, or a fatbin/ELF holding PTX), or null when not kept
     * @return one entry per buffer, in the snapshot's order; every type {@link ElementType#BYTES} when
     *     the image holds no PTX, the PTX does not parse, or it has no kernel of that name
     */
    public static List<BufferTyping> bufferTypes(CaptureRecord.Kernel k, byte[] moduleImage) {
        String ptx = moduleImage == null ? null : ptxOf(moduleImage, new ArrayList<>());
        FunctionInfo fi = null;
        Map<Integer, ElementType> types = Map.of();
        if (ptx != null) {
            ParseResult pr = Ptx.parse(ptx, "module");
            if (pr.module() != null) {
                ModuleModel mm = Semantics.analyze(pr.module(), "module");
                fi = mm.function(k.name());
                if (fi != null) types = ElementType.ofKernel(pr.module(), mm, k.name());
            }
        }
        return bufferTypes(k, fi, types);
    }

    /** {@link #bufferTypes(CaptureRecord.Kernel, byte[])} with the kernel's PTX already analysed ({@code fi} null: not known). */
    static List<BufferTyping> bufferTypes(CaptureRecord.Kernel k, FunctionInfo fi, Map<Integer, ElementType> types) {
        List<CaptureRecord.KernelBuffer> bufs = k.buffers();
        List<List<String>> names = new ArrayList<>();
        List<TreeSet<ElementType>> seen = new ArrayList<>();
        for (int i = 0; i < bufs.size(); i++) { names.add(new ArrayList<>()); seen.add(new TreeSet<>()); }
        MemorySegment ps = MemorySegment.ofArray(k.params());
        for (int off = 0; off + 8 <= k.params().length; off += 8) {
            int i = bufferAt(k, ps.get(ValueLayout.JAVA_LONG_UNALIGNED, off));
            if (i < 0) continue;
            ParamInfo p = fi == null ? null : paramAt(fi, off);
            String pn = p == null ? "parameter bytes " + off + ".." + (off + 7) : p.name();
            if (!names.get(i).contains(pn)) names.get(i).add(pn);
            if (p != null && types.containsKey(p.index())) seen.get(i).add(types.get(p.index()));
        }
        List<BufferTyping> out = new ArrayList<>();
        for (int i = 0; i < bufs.size(); i++) {
            ElementType t = seen.get(i).isEmpty() ? null : ElementType.resolve(seen.get(i));
            out.add(new BufferTyping(List.copyOf(names.get(i)), t == null ? ElementType.BYTES : t));
        }
        return out;
    }

    /**
     * The kernel's PTX function (its parameters' names, types and layout) from a snapshot's module
     * image.
     *
     * @param k the snapshot (its kernel name is looked up)
     * @param moduleImage PTX text, or a fatbin/ELF holding PTX; null when not kept
     * @return the function, or null when the image holds no PTX, it does not parse, or it has no
     *     kernel of that name
     */
    public static FunctionInfo kernelFunction(CaptureRecord.Kernel k, byte[] moduleImage) {
        String ptx = moduleImage == null ? null : ptxOf(moduleImage, new ArrayList<>());
        if (ptx == null) return null;
        ParseResult pr = Ptx.parse(ptx, "module");
        return pr.module() == null ? null : Semantics.analyze(pr.module(), "module").function(k.name());
    }

    /**
     * One kernel parameter whose value differs between two launches of the same kernel.
     *
     * @param index the parameter's 0-based position (as {@code cuFuncGetParamInfo} counts it, and as
     *     nvcc numbers {@code NAME_param_N}), or -1 for bytes the PTX does not declare
     * @param name its PTX name ({@code scale_param_1}), or {@code parameter bytes 8..15} without PTX
     * @param type its PTX type ({@code .f32}, {@code .u64}, {@code .v2.f32}, {@code .b8[20]}), or "" without PTX
     * @param a the value in A: a number for a scalar, {@code buffer 2+0x10} for a pointer into a snapshot
     *     buffer, hex bytes otherwise
     * @param b the value in B
     */
    public record ParamDifference(int index, String name, String type, String a, String b) {
        /** {@code kernel parameter 1 (scale_param_1, .f32): 2.0 vs 3.0}. */
        public String describe() {
            String head = index >= 0 ? "kernel parameter " + index + " (" + name + (type.isEmpty() ? "" : ", " + type) + ")" : "kernel " + name;
            return head + ": " + a + " vs " + b;
        }
    }

    /**
     * Compares the parameter values of two launches of one kernel (A's and B's snapshots), one PTX
     * parameter at a time, typed by the {@code .param} declarations of the kernel's PTX (PTX ISA 9.0,
     * §5.1.6.1): a scalar by value ({@code .f32} 2.0 against 3.0, bit for bit), an aggregate
     * ({@code .align 16 .b8 p[20]}, vectors) byte by byte. A 64-bit parameter that points into a
     * buffer of its snapshot is an address: it agrees when it points into the buffer at the same
     * position in both snapshots (buffers are listed in order of first mention) at the same offset,
     * whatever the addresses; a 64-bit value that points into no buffer on either side and is an
     * address on both ({@code .ptr}, or both at least 2<sup>32</sup>: a module variable, memory not
     * snapshotted) is not compared, as addresses differ between runs and drivers. Without the PTX
     * ({@code fi} null) the packed bytes are compared 8 at a time: a word pointing into a buffer on
     * either side as an address, any other word by value.
     *
     * @param a A's snapshot
     * @param b B's snapshot
     * @param fi the kernel's PTX function ({@link #kernelFunction}), or null when not known
     * @return the differing parameters in order; empty when they agree
     */
    public static List<ParamDifference> parameterDifferences(CaptureRecord.Kernel a, CaptureRecord.Kernel b, FunctionInfo fi) {
        List<ParamDifference> out = new ArrayList<>();
        byte[] pa = a.params(), pb = b.params();
        if (java.util.Arrays.equals(pa, pb)) return out;
        if (fi != null && fi.paramSize() <= pa.length && fi.paramSize() <= pb.length) {
            for (ParamInfo p : fi.params()) {
                int off = (int) p.offset(), size = (int) p.size();
                if (java.util.Arrays.equals(pa, off, off + size, pb, off, off + size)) continue;
                dev.zluda.ptx.VariableInfo v = p.variable();
                String type = paramType(v);
                if (size == 8 && v.dims().isEmpty() && v.vectorWidth() == 1) {
                    long va = MemorySegment.ofArray(pa).get(ValueLayout.JAVA_LONG_UNALIGNED, off);
                    long vb = MemorySegment.ofArray(pb).get(ValueLayout.JAVA_LONG_UNALIGNED, off);
                    String[] addr = addresses(a, b, va, vb, v.pointer(), true);
                    if (addr != null) {
                        if (!addr[0].equals(addr[1])) out.add(new ParamDifference(p.index(), p.name(), type, addr[0], addr[1]));
                        continue;
                    }
                }
                String xa, xb;
                if (v.dims().isEmpty() && v.vectorWidth() == 1 && v.type() != null && v.type().size() == size) {
                    xa = scalar(v.type(), pa, off);
                    xb = scalar(v.type(), pb, off);
                } else {
                    xa = hex(pa, off, size);
                    xb = hex(pb, off, size);
                }
                out.add(new ParamDifference(p.index(), p.name(), type, xa, xb));
            }
            if (pa.length != pb.length) out.add(new ParamDifference(-1, "parameter buffer", "", pa.length + " bytes", pb.length + " bytes"));
            return out;
        }
        int n = Math.max(pa.length, pb.length);
        for (int off = 0; off < n; off += 8) {
            int ea = Math.min(pa.length, off + 8), eb = Math.min(pb.length, off + 8);
            if (off < pa.length && off < pb.length && java.util.Arrays.equals(pa, off, ea, pb, off, eb)) continue;
            String name = "parameter bytes " + off + ".." + (off + 7);
            if (ea - off == 8 && eb - off == 8) {
                String[] addr = addresses(a, b, MemorySegment.ofArray(pa).get(ValueLayout.JAVA_LONG_UNALIGNED, off),
                        MemorySegment.ofArray(pb).get(ValueLayout.JAVA_LONG_UNALIGNED, off), false, false);
                if (addr != null) {
                    if (!addr[0].equals(addr[1])) out.add(new ParamDifference(-1, name, "", addr[0], addr[1]));
                    continue;
                }
            }
            out.add(new ParamDifference(-1, name, "", off < pa.length ? hex(pa, off, ea - off) : "(absent)", off < pb.length ? hex(pb, off, eb - off) : "(absent)"));
        }
        return out;
    }

    /**
     * Two 64-bit parameter values as addresses ({@code buffer 2+0x10}, {@code an address outside the
     * snapshot's buffers}), or null when they are not addresses and compare by value.
     *
     * @param typed whether the PTX declares the parameter a 64-bit scalar (else: raw words, which may
     *     pack two 32-bit values, and compare by value unless they point into a buffer)
     */
    private static String[] addresses(CaptureRecord.Kernel a, CaptureRecord.Kernel b, long va, long vb, boolean declaredPointer, boolean typed) {
        int ia = bufferAt(a, va), ib = bufferAt(b, vb);
        if (ia >= 0 || ib >= 0) return new String[] {where(a, ia, va), where(b, ib, vb)};
        if (va == 0 || vb == 0 || !typed) return null;         // a null pointer against another value is a difference of values
        boolean bothAddresses = declaredPointer || (Long.compareUnsigned(va, 1L << 32) >= 0 && Long.compareUnsigned(vb, 1L << 32) >= 0);
        return bothAddresses ? new String[] {"an address outside the buffers", "an address outside the buffers"} : null;
    }

    private static String where(CaptureRecord.Kernel k, int i, long v) {
        if (i < 0) return String.format("0x%x (outside the snapshot's buffers)", v);
        long off = v - k.buffers().get(i).devicePointer();
        return "buffer " + (i + 1) + (off == 0 ? "" : "+0x" + Long.toHexString(off));
    }

    /** {@code .f32}, {@code .v2.f32}, {@code .b8[20]}, with {@code .ptr} when declared. */
    private static String paramType(dev.zluda.ptx.VariableInfo v) {
        StringBuilder sb = new StringBuilder();
        if (v.vectorWidth() > 1) sb.append(".v").append(v.vectorWidth());
        sb.append(v.type() == null ? ".b8" : v.type().ptxName());
        for (long d : v.dims()) sb.append('[').append(d < 0 ? "" : Long.toString(d)).append(']');
        if (v.pointer()) sb.append(" .ptr");
        return sb.toString();
    }

    /** A scalar parameter's value: a number for integer and f16/f32/f64 types, hex for the rest. */
    private static String scalar(dev.zluda.ptx.PtxType t, byte[] p, int off) {
        MemorySegment m = MemorySegment.ofArray(p);
        return switch (t) {
            case F32 -> Float.toString(m.get(ValueLayout.JAVA_FLOAT_UNALIGNED, off));
            case F64 -> Double.toString(m.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, off));
            case F16 -> Float.toString(Float.float16ToFloat(m.get(ValueLayout.JAVA_SHORT_UNALIGNED, off)));
            case U8 -> Integer.toString(p[off] & 0xFF);
            case S8 -> Integer.toString(p[off]);
            case U16 -> Integer.toString(m.get(ValueLayout.JAVA_SHORT_UNALIGNED, off) & 0xFFFF);
            case S16 -> Integer.toString(m.get(ValueLayout.JAVA_SHORT_UNALIGNED, off));
            case U32 -> Integer.toUnsignedString(m.get(ValueLayout.JAVA_INT_UNALIGNED, off));
            case S32 -> Integer.toString(m.get(ValueLayout.JAVA_INT_UNALIGNED, off));
            case U64 -> Long.toUnsignedString(m.get(ValueLayout.JAVA_LONG_UNALIGNED, off));
            case S64 -> Long.toString(m.get(ValueLayout.JAVA_LONG_UNALIGNED, off));
            default -> hex(p, off, t.size());
        };
    }

    /** Little-endian bytes as one hex number ({@code 0x40400000}); more than 8 bytes as a byte list. */
    private static String hex(byte[] p, int off, int n) {
        if (n <= 8) {
            long v = 0;
            for (int i = n - 1; i >= 0; i--) v = v << 8 | (p[off + i] & 0xFF);
            return String.format("0x%0" + (2 * n) + "x", v);
        }
        StringBuilder sb = new StringBuilder("bytes");
        for (int i = 0; i < n; i++) sb.append(' ').append(String.format("%02x", p[off + i]));
        return sb.toString();
    }

    /** The index of the snapshot buffer (allocation) a parameter word points into, or -1. */
    private static int bufferAt(CaptureRecord.Kernel k, long v) {
        List<CaptureRecord.KernelBuffer> bufs = k.buffers();
        for (int i = 0; i < bufs.size(); i++) {
            CaptureRecord.KernelBuffer b = bufs.get(i);
            if (Long.compareUnsigned(v - b.devicePointer(), Math.max(1, b.size())) < 0) return i;
        }
        return -1;
    }

    /** The parameter whose bytes include {@code off}, or null. */
    private static ParamInfo paramAt(FunctionInfo fi, long off) {
        for (ParamInfo p : fi.params()) if (off >= p.offset() && off < p.offset() + p.size()) return p;
        return null;
    }

    private static byte[] blob(KernelSnapshots ks, long hash, String what) throws ReplayException {
        try {
            return ks.blob(hash, what);
        } catch (CaptureException e) {
            throw new ReplayException(e.getMessage(), e);
        }
    }

    private static boolean isText(byte[] image) {
        int n = Math.min(image.length, 4096);
        for (int i = 0; i < n; i++) {
            int c = image[i] & 0xFF;
            if (c == 0 && i > 0) return true;
            if (c < 9 || (c > 13 && c < 32)) return false;
        }
        return image.length > 0;
    }

    /**
     * The PTX of a module image: the text itself (without trailing NULs), or the newest PTX of a
     * fatbin/ELF; null when it has none, with the reason added to {@code notes}.
     */
    public static String ptxOf(byte[] image, List<String> notes) {
        if (isText(image)) {
            int n = image.length;
            while (n > 0 && image[n - 1] == 0) n--;
            return new String(image, 0, n, StandardCharsets.UTF_8);
        }
        try {
            return ModuleImage.of(image).bestPtx(10, 0).ptx();
        } catch (Exception e) {
            notes.add("the module image holds no PTX (" + e.getMessage() + "): parameters passed as one buffer, types unknown");
            return null;
        }
    }

    private static void check(Driver d, int r, String what) throws ReplayException {
        if (r != 0) throw new ReplayException(what + " failed on " + d.describe() + ": " + errorName(d, r));
    }

    /** {@code CUDA_ERROR_ILLEGAL_ADDRESS (700)}. */
    static String errorName(Driver d, int r) {
        String n = new CallFormatter(i -> null, i -> "", Map.of()).result(r);
        return n.matches("-?\\d+") ? "CUresult " + n : n + " (" + r + ")";
    }

    /** {@code -o}, else {@code <capture>-replay}, {@code -replay_1}, ... beside the capture (created). */
    static Path outputDirectory(Capture cap, Path given) throws ReplayException {
        try {
            if (given != null) {
                Path g = given.toAbsolutePath();
                if (Files.exists(g)) {
                    try (var s = Files.list(g)) {
                        if (!Files.isDirectory(g) || s.findAny().isPresent()) {
                            throw new ReplayException(given + " exists and is not an empty directory: give -o a new directory for the replay's capture");
                        }
                    }
                }
                return Files.createDirectories(g);
            }
            Path src = cap.source().toAbsolutePath().normalize();
            if (src.getFileName().toString().equals(CaptureFormat.CAPTURE_FILE)) src = src.getParent();
            String base = src.getFileName().toString().replaceFirst("\\.(zip|zpack)$", "") + "-replay";
            // where zluda run puts captures ($ZLUDA_LOG_DIR, else ./zluda-logs), never beside the recording
            // (which may be a source tree or read-only)
            String logDir = System.getenv("ZLUDA_LOG_DIR");
            Path parent = Files.createDirectories(Path.of(logDir != null && !logDir.isEmpty() ? logDir : "zluda-logs").toAbsolutePath());
            for (int n = 0; n < 10_000; n++) {
                Path d = parent.resolve(n == 0 ? base : base + "_" + n);
                try {
                    return Files.createDirectory(d);
                } catch (FileAlreadyExistsException e) {
                    // next
                }
            }
            throw new ReplayException("no free directory name " + base + "_N in " + parent);
        } catch (IOException e) {
            throw new ReplayException("cannot create the replay's capture directory: " + e.getMessage() + " (give another with -o, or --no-capture)", e);
        }
    }

    private static void writeManifest(Path dir, Capture cap, KernelSnapshots.Snapshot snap, Driver d) throws IOException {
        ObjectMapper json = new ObjectMapper();
        ObjectNode m = json.createObjectNode();
        m.put("formatVersion", "1.0");
        m.put("program", "zluda replay");
        m.putArray("arguments").add(cap.source().toString()).add("--kernel").add(Integer.toString(snap.number()));
        m.put("workingDirectory", Path.of("").toAbsolutePath().toString());
        m.put("pid", ProcessHandle.current().pid());
        m.put("startTime", Instant.now().toString());
        ObjectNode driver = m.putObject("driver");
        driver.put("name", d.kind().equals("zluda") ? "zluda" : d.kind().equals("nvidia") ? "nvidia" : "library");
        driver.put("library", d.describe());
        m.putObject("tool").put("name", "zluda replay").put("version", "0.1.0");
        m.putObject("capture").put("data", "replay").put("kernels", snap.name());
        ObjectNode r = m.putObject("replay");
        r.put("capture", cap.source().toAbsolutePath().toString());
        r.put("snapshot", snap.number());
        r.put("kernel", snap.name());
        r.put("launchCall", snap.launchCall());
        Files.writeString(dir.resolve(CaptureFormat.MANIFEST_FILE), json.writerWithDefaultPrettyPrinter().writeValueAsString(m) + "\n");
    }
}
