package dev.zluda.capture;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zluda.capture.text.CallFormatter;
import dev.zluda.spec.CudaFunction;
import dev.zluda.spec.CudaParam;
import dev.zluda.spec.Role;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A summary of a capture, computed in one streaming pass: calls and errors per function, duration,
 * modules, kernels launched (by name, from the handles {@code cuModuleGetFunction} and
 * {@code cuLibraryGetKernel} returned), blobs, threads, and whether it ended cleanly.
 */
public final class CaptureInfo {
    /** Calls and errors (result other than CUDA_SUCCESS) of one function. */
    public static final class Counts {
        /** Calls that returned or are in flight. */
        public long calls;
        /** Calls that returned something other than CUDA_SUCCESS, by result. */
        public final Map<Integer, Long> errors = new TreeMap<>();
    }

    /** Per function name, sorted by name. */
    public final Map<String, Counts> functions = new TreeMap<>();
    /** Launches per kernel name (or handle in hex when its name is unknown). */
    public final Map<String, Long> kernels = new TreeMap<>();
    /** The first {@value #SNAPSHOTS_LISTED} KERNEL records (kernel snapshots). */
    public final List<CaptureRecord.Kernel> snapshots = new ArrayList<>();
    /** How many snapshots {@link #snapshots} keeps. */
    public static final int SNAPSHOTS_LISTED = 50;
    /** MODULE records. */
    public final List<CaptureRecord.Module> modules = new ArrayList<>();
    /** Threads that made calls. */
    public final Set<Long> threads = new HashSet<>();
    /** Totals. */
    public long calls, errors, inFlight, blobs, blobBytes, blobStoredBytes, kernelSnapshots, markers, records;
    /** First and last record timestamps (monotonic ns). */
    public long firstTs = Long.MAX_VALUE, lastTs = Long.MIN_VALUE;
    /** How reading ended. */
    public ReadStatus status;

    /** Reads the whole capture. */
    public static CaptureInfo of(Capture cap) {
        CaptureInfo info = new CaptureInfo();
        Map<Long, String> handleNames = new HashMap<>();
        CallAssembler[] asm = new CallAssembler[1];
        asm[0] = new CallAssembler(new CallAssembler.Listener() {
            @Override
            public void call(Call c) {
                Call.walk(c, (x, level, parent) -> count(x));
            }

            void count(Call c) {
                CaptureRecord.Enter e = c.enter();
                String name = cap.functionName(e.functionId());
                Counts k = info.functions.computeIfAbsent(name, x -> new Counts());
                k.calls++;
                info.calls++;
                if (c.inFlight()) info.inFlight++;
                else if (c.leave().result() != 0) {
                    k.errors.merge(c.leave().result(), 1L, Long::sum);
                    info.errors++;
                }
                CudaFunction f = cap.specFunction(e.functionId());
                if (f != null) kernelFacts(c, f, name);
            }

            void kernelFacts(Call c, CudaFunction f, String name) {
                if (f.is(Role.FUNCTION_LOOKUP) && !c.inFlight() && c.leave().result() == 0) {
                    String kname = null;
                    long handle = 0;
                    boolean have = false;
                    for (DataItem d : c.enter().data()) {
                        if (d.param() == 2 && d.kind() == CaptureFormat.ITEM_STRING) kname = asm[0].strings().get(d.stringId());
                        if (d.param() == 2 && d.kind() == CaptureFormat.ITEM_INLINE) kname = cstr(d.bytes());
                    }
                    for (DataItem d : c.leave().data()) {
                        if (d.param() == 0 && d.kind() == CaptureFormat.ITEM_INLINE && d.bytes().length == 8) {
                            handle = java.nio.ByteBuffer.wrap(d.bytes()).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
                            have = true;
                        }
                    }
                    if (kname != null && have) handleNames.put(handle, kname);
                }
                if (f.is(Role.KERNEL_LAUNCH)) {
                    CudaParam p = f.param("f").orElse(null);
                    if (p != null && p.index() < c.enter().args().length) {
                        long h = c.enter().args()[p.index()];
                        info.kernels.merge(handleNames.getOrDefault(h, CallFormatter.hex(h)), 1L, Long::sum);
                    }
                }
            }

            @Override
            public void record(CaptureRecord r) {
                switch (r) {
                    case CaptureRecord.Blob b -> { info.blobs++; info.blobBytes += b.size(); info.blobStoredBytes += b.stored().byteSize(); }
                    case CaptureRecord.Module m -> info.modules.add(m);
                    case CaptureRecord.Kernel k -> {
                        info.kernelSnapshots++;
                        if (info.snapshots.size() < SNAPSHOTS_LISTED) info.snapshots.add(k);
                    }
                    case CaptureRecord.Marker m -> info.markers++;
                    default -> { }
                }
            }
        });
        for (CaptureRecord r : cap.reader()) {
            info.records++;
            if (r instanceof CaptureRecord.Enter) info.threads.add(r.threadId());
            info.firstTs = Math.min(info.firstTs, r.ts());
            info.lastTs = Math.max(info.lastTs, r.ts());
            asm[0].accept(r);
        }
        asm[0].finish();
        info.status = cap.reader().status();
        return info;
    }

    private static String cstr(byte[] b) {
        int n = 0;
        while (n < b.length && b[n] != 0) n++;
        return new String(b, 0, n, StandardCharsets.UTF_8);
    }

    /** Prints the summary as text. */
    public void print(Capture cap, PrintWriter out) {
        CaptureHeader h = cap.reader().header();
        JsonNode m = cap.manifest();
        CallFormatter fmt = new CallFormatter(cap::specFunction, cap::functionName, Map.of());
        out.println("capture:   " + cap.source() + " (format " + h.versionMajor() + "." + h.versionMinor() + ", "
                + cap.reader().fileSize() + " bytes, chunks of " + h.chunkSize() + ")");
        String program = m.path("program").asText("");
        out.println("process:   " + (program.isEmpty() ? "(no manifest)" : String.join(" ", prepend(program, strings(m.path("arguments")))))
                + ", pid " + h.pid() + (m.has("host") ? ", host " + m.path("host").asText() : ""));
        out.println("started:   " + Instant.ofEpochSecond(0, h.startRealtimeNs()));
        long dur = records == 0 ? 0 : Math.max(0, lastTs - h.startMonotonicNs());
        out.println(String.format(Locale.ROOT, "duration:  %.6f s", dur / 1e9));
        if (m.has("driver")) out.println("driver:    " + m.path("driver").path("name").asText("?") + " " + m.path("driver").path("version").asText("")
                + (m.path("driver").has("library") ? " (" + m.path("driver").path("library").asText() + ")" : ""));
        for (JsonNode l : m.path("libraries")) {
            out.println("library:   " + l.path("name").asText("?") + " (" + l.path("library").asText(l.path("soname").asText("?")) + ")");
        }
        for (JsonNode d : m.path("devices")) {
            out.println("device " + d.path("index").asText("?") + ":  " + d.path("name").asText("?") + ", compute capability "
                    + d.path("computeCapability").asText("?") + ", " + d.path("totalMemory").asLong() / (1 << 20) + " MiB");
        }
        out.println("threads:   " + threads.size());
        out.println("calls:     " + calls + " (" + errors + " returned an error, " + inFlight + " in flight)");
        int w = functions.keySet().stream().mapToInt(String::length).max().orElse(8);
        for (Map.Entry<String, Counts> e : functions.entrySet()) {
            StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "  %-" + w + "s %10d", e.getKey(), e.getValue().calls));
            if (!e.getValue().errors.isEmpty()) {
                sb.append("  errors:");
                // a library function's status by its own enum (cublasStatus_t, ...)
                dev.zluda.spec.CudaFunction lf = dev.zluda.spec.CudaApi.libraryOf(e.getKey()).equals(dev.zluda.spec.CudaApi.DRIVER) ? null
                        : dev.zluda.spec.CudaApi.anyFunction(e.getKey()).orElse(null);
                e.getValue().errors.forEach((r, n) -> sb.append(' ').append(lf != null ? fmt.result(lf, r) : fmt.result(r)).append(" ×").append(n));
            }
            out.println(sb);
        }
        out.println("modules:   " + modules.size());
        List<String> files = moduleDumps(cap);
        for (CaptureRecord.Module mod : modules) out.println("  " + moduleLine(mod, files));
        out.println("kernels launched: " + kernels.values().stream().mapToLong(Long::longValue).sum() + " (" + kernelSnapshots
                + (kernelSnapshots == 1 ? " snapshot)" : " snapshots)"));
        kernels.forEach((k, n) -> out.println(String.format(Locale.ROOT, "  %-40s %10d", k, n)));
        if (kernelSnapshots > 0) {
            out.println("kernel snapshots: " + kernelSnapshots + " (zluda replay CAPTURE --kernel N)");
            for (int i = 0; i < snapshots.size(); i++) out.println("  #" + (i + 1) + " " + dev.zluda.capture.text.Dump.snapshotText(snapshots.get(i)));
            if (kernelSnapshots > snapshots.size()) out.println("  ... (" + (kernelSnapshots - snapshots.size()) + " more)");
        }
        out.println("blobs:     " + blobs + " (" + blobBytes + " bytes, " + blobStoredBytes + " stored)");
        String end;
        if (status.endedCleanly()) end = "yes";
        else if (status.stoppedEarly()) {
            end = "no: " + (status.damaged() ? "damaged" : "cut") + (status.damageCount() == 1 ? " in 1 place" : " in " + status.damageCount() + " places")
                    + (status.recordsLost() > 0 ? ", " + status.recordsLost() + " record(s) not read" : "") + " (listed below); everything else was read";
        } else end = "no: no process end recorded (killed or crashed)";
        if (inFlight > 0 && !status.endedCleanly()) end += "; " + inFlight + " call(s) in flight";
        out.println("ended cleanly: " + end);
        int shown = 0;
        for (DamageNote d : status.damage()) {
            if (shown++ == dev.zluda.capture.text.Dump.NOTES_SHOWN) break;
            out.println("  " + (d.cut() ? "cut at " : "damaged at ") + d.text());
        }
        if (status.damageCount() > dev.zluda.capture.text.Dump.NOTES_SHOWN) {
            out.println("  (" + (status.damageCount() - dev.zluda.capture.text.Dump.NOTES_SHOWN) + " more not shown)");
        }
        JsonNode exit = cap.manifest().path("exit");
        if (exit.has("code")) {
            int code = exit.path("code").asInt();
            String how = exit.path("signal").isInt() ? ", killed by signal " + exit.path("signal").asInt()
                    + (status.endedCleanly() ? " after the recorder closed the capture" : "") : "";
            out.println("program exit: " + code + how + " (" + exit.path("recordedBy").asText("recorded") + ")");
        }
        out.flush();
    }

    private static List<String> prepend(String first, List<String> rest) {
        List<String> l = new ArrayList<>(rest.size() + 1);
        l.add(first);
        l.addAll(rest);
        return l;
    }

    /** The names of the module dump files in the capture directory ({@code module_NNNN_NN.*}), sorted; empty when none. */
    private static List<String> moduleDumps(Capture cap) {
        if (cap.directory() == null) return List.of();
        try (java.util.stream.Stream<java.nio.file.Path> s = java.nio.file.Files.list(cap.directory())) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.matches("module_\\d{4}_\\d{2}\\..+")).sorted().toList();
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            return List.of();
        }
    }

    private static final String[] KINDS = {"?", "PTX", "ELF", "fatbin", "other"};

    /**
     * One module load as {@code zluda info} shows it (FORMAT.md §6.4): a PTX or ELF image by its dump file;
     * a fatbin by what it held, as the entries dumped beside the capture ({@code module_NNNN_NN.ptx} for PTX,
     * {@code .elf} for a cubin (SASS), {@code .ptx.zst}/{@code .ptx.lz4} for PTX the recorder could not
     * decompress); a record without an image by why it has none; a load that failed (handle 0) says so.
     *
     * @param files the dump files of the capture ({@link #moduleDumps})
     */
    static String moduleLine(CaptureRecord.Module mod, List<String> files) {
        String kind = mod.kind() >= 1 && mod.kind() < KINDS.length ? KINDS[mod.kind()] : "kind " + mod.kind();
        // handle 0: a load that failed, which zluda's trace layer records with its image (FORMAT.md §6.4)
        String handle = mod.handle() == 0 ? ", no handle: the load failed" : ", handle " + CallFormatter.hex(mod.handle());
        if (!mod.fileName().isEmpty()) return mod.fileName() + "  " + mod.size() + " bytes" + handle;
        String lib = String.format(Locale.ROOT, "module_%04d", mod.library());
        if (mod.imageHash() == 0) {
            String why = mod.kind() == 1 ? "recorded with ZLUDA_CAPTURE_MODULES=0"
                    : mod.kind() == 4 ? "recorded with ZLUDA_CAPTURE_MODULES=0 or =ptx, or an image the recorder could not read (it warned then)"
                    : "recorded with ZLUDA_CAPTURE_MODULES=0, or =ptx (which keeps only PTX text)";
            return lib + " (" + kind + ")  image not kept: " + why + handle;
        }
        List<String> mine = files.stream().filter(f -> f.startsWith(lib + "_") && !f.endsWith(".log")).toList();
        StringBuilder sb = new StringBuilder(lib + " (" + kind + ")  " + mod.size() + " bytes" + handle);
        if (mod.kind() != 3) return sb.append(": kept in the capture, not dumped as a file").toString();
        if (mine.isEmpty()) {
            return sb.append(": kept whole in the capture; no entries dumped beside it (none is PTX or a cubin, or the files were not copied)").toString();
        }
        long ptx = mine.stream().filter(f -> f.endsWith(".ptx")).count();
        long elf = mine.stream().filter(f -> f.endsWith(".elf")).count();
        long packed = mine.size() - ptx - elf;
        List<String> parts = new ArrayList<>();
        if (ptx > 0) parts.add(ptx + " PTX");
        if (elf > 0) parts.add(elf + " ELF (SASS)");
        if (packed > 0) parts.add(packed + " compressed PTX");
        sb.append(": ").append(String.join(", ", parts)).append(mine.size() == 1 ? " entry" : " entries").append(", dumped as ");
        sb.append(String.join(", ", mine));
        return sb.toString();
    }

    private static List<String> strings(JsonNode a) {
        List<String> out = new ArrayList<>();
        for (JsonNode x : a) out.add(x.asText());
        return out;
    }
}
