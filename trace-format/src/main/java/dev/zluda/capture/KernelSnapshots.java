package dev.zluda.capture;


import dev.zluda.spec.CudaFunction;
import dev.zluda.spec.Role;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The kernel snapshots of a capture (KERNEL records, FORMAT.md §6.5) with the BLOBs they refer to,
 * read in one pass: what {@code zluda replay --kernel} and {@code zluda info} work from. The blob
 * contents are views of the mapped capture, valid while the {@link Capture} is open.
 */
public final class KernelSnapshots {
    /**
     * One snapshot.
     *
     * @param number 1-based position among the capture's snapshots (what {@code --kernel N} names)
     * @param record the KERNEL record
     * @param launchCall 1-based number of the launch call in order of entry (as {@code zluda dump --calls}
     *     counts), 0 when its ENTER was not found
     * @param launchFunction the launch function's name ({@code cuLaunchKernel}, ...), "" when not found
     */
    public record Snapshot(int number, CaptureRecord.Kernel record, long launchCall, String launchFunction) {
        /** The mangled kernel name. */
        public String name() {
            return record.name();
        }

        /** One line: number, name, shape, buffers, e.g. {@code #1 _Z9vectorAddPKfS0_Pfi grid=(16,1,1) block=(256,1,1) shared=0, 3 buffers (48 KiB), call 14 cuLaunchKernel}. */
        public String summary() {
            StringBuilder sb = new StringBuilder("#").append(number).append(' ').append(record.name());
            CaptureRecord.KernelLaunch l = record.launch();
            if (l != null) {
                sb.append(String.format(Locale.ROOT, " grid=(%d,%d,%d) block=(%d,%d,%d) shared=%d", l.gridX(), l.gridY(), l.gridZ(),
                        l.blockX(), l.blockY(), l.blockZ(), l.sharedMemBytes()));
            }
            long bytes = 0;
            for (CaptureRecord.KernelBuffer b : record.buffers()) bytes += b.size();
            sb.append(", ").append(record.params().length).append(" parameter bytes, ").append(record.buffers().size())
                    .append(record.buffers().size() == 1 ? " buffer (" : " buffers (").append(bytes).append(" bytes)");
            if (l != null && l.result() != 0) sb.append(", the kernel failed with CUresult ").append(l.result());
            if (launchCall > 0) sb.append(", call ").append(launchCall).append(' ').append(launchFunction);
            return sb.toString();
        }
    }

    private final Capture capture;
    private final List<Snapshot> snapshots;
    private final Map<Long, CaptureRecord.Blob> blobs;

    private KernelSnapshots(Capture capture, List<Snapshot> snapshots, Map<Long, CaptureRecord.Blob> blobs) {
        this.capture = capture;
        this.snapshots = snapshots;
        this.blobs = blobs;
    }

    /**
     * Reads the snapshots and blobs of a capture (one streaming pass over it). A KERNEL record written
     * without its launch section (FORMAT.md §6.5; the NVIDIA tracer writes none) gets one rebuilt
     * from the rest of the capture where that is possible: the shape and dynamic shared memory from
     * the launch call's arguments ({@code cuLaunchKernel}, its {@code _ptsz} form, or the recorded
     * {@code CUlaunchConfig} of {@code cuLaunchKernelEx}), the result from the launch call's return or, when that
     * was CUDA_SUCCESS, the kernel fault ({@link #isKernelFault}) that the next call of the same thread to return one
     * reported (a launch is asynchronous: NVIDIA's driver returns CUDA_SUCCESS from it and the kernel's error, e.g.
     * CUDA_ERROR_ASSERT, from the next synchronising call; the H200 capture samples/traces/h200/illegalAccess shows
     * it), and the module
     * image from the MODULE record of the module (or library) the function was taken from
     * ({@code cuModuleGetFunction}, {@code cuLibraryGetKernel}, {@code cuFuncGetModule},
     * {@code cuKernelGetFunction}); PTX is preferred when the module has several images. A record
     * for which something is missing keeps {@code launch == null}.
     */
    public static KernelSnapshots read(Capture cap) {
        List<CaptureRecord.Kernel> kernels = new ArrayList<>();
        Map<Long, CaptureRecord.Blob> blobs = new HashMap<>();
        Map<Long, long[]> launches = new HashMap<>(); // ENTER seq of a launch -> {call ordinal, function id}
        Map<Long, CaptureRecord.Enter> launchEnters = new HashMap<>();
        Map<Long, Integer> results = new HashMap<>(); // ENTER seq of a launch -> CUresult it returned
        Map<Long, Integer> faults = new HashMap<>(); // ENTER seq of a launch -> the kernel fault a later call of its thread reported
        Map<Long, Long> pending = new HashMap<>(); // thread -> ENTER seq of its last launch that returned CUDA_SUCCESS
        Map<Long, CaptureRecord.Enter> lookups = new HashMap<>(); // ENTER seq of a function lookup -> ENTER
        Map<Long, Long> owner = new HashMap<>(); // CUfunction / CUkernel handle -> CUmodule / CUlibrary handle
        Map<Long, Long> image = new HashMap<>(); // module or library handle -> image hash (PTX preferred)
        Map<Long, Integer> imageKind = new HashMap<>();
        long ordinal = 0;
        for (CaptureRecord r : cap.reader()) {
            switch (r) {
                case CaptureRecord.Enter e -> {
                    ordinal++;
                    Role role = Role.of(cap.specFunction(e.functionId()));
                    if (role == Role.KERNEL_LAUNCH || role == Role.GRAPH_LAUNCH) {
                        launches.put(e.seq(), new long[] {ordinal, e.functionId()});
                        launchEnters.put(e.seq(), e);
                    }
                    // lookups by name, and the queries that relate modules, libraries, kernels and functions
                    if (role == Role.FUNCTION_LOOKUP || role == Role.MODULE_QUERY) lookups.put(e.seq(), e);
                }
                case CaptureRecord.Leave l -> {
                    Long last = pending.get(l.threadId());
                    if (last != null && isKernelFault(l.result())) {
                        // a launch is asynchronous: its kernel's fault is the sticky error of the next call of the thread
                        faults.put(last, l.result());
                        pending.remove(l.threadId());
                    }
                    if (launchEnters.containsKey(l.enterSeq())) {
                        results.put(l.enterSeq(), l.result());
                        if (l.result() == 0) pending.put(l.threadId(), l.enterSeq());
                    }
                    CaptureRecord.Enter e = lookups.remove(l.enterSeq());
                    if (e != null && l.result() == 0) {
                        long out = outputHandle(l);
                        if (out != 0 && e.args().length > 1 && Role.of(cap.specFunction(e.functionId())) == Role.FUNCTION_LOOKUP) {
                            // (CUfunction* / CUkernel*, CUmodule / CUlibrary, name): the function belongs to the module
                            owner.put(out, e.args()[1]);
                        } else if (out != 0 && e.args().length > 1) {
                            switch (cap.functionName(e.functionId())) {
                                // (CUmodule* / CUlibrary*, CUfunction / CUkernel): likewise, the other way round
                                case "cuFuncGetModule", "cuKernelGetLibrary" -> owner.put(e.args()[1], out);
                                // (CUfunction*, CUkernel): the function of a library's kernel
                                case "cuKernelGetFunction" -> { Long lib = owner.get(e.args()[1]); if (lib != null) owner.put(out, lib); }
                                default -> { }
                            }
                        }
                    }
                }
                case CaptureRecord.Blob b -> blobs.putIfAbsent(b.hash(), b);
                case CaptureRecord.Module m -> {
                    if (m.imageHash() != 0 && m.handle() != 0) {
                        int rank = m.kind() == CaptureFormat.MODULE_PTX ? 0 : m.kind() == CaptureFormat.MODULE_FATBIN ? 1 : 2;
                        Integer had = imageKind.get(m.handle());
                        if (had == null || rank < had) { image.put(m.handle(), m.imageHash()); imageKind.put(m.handle(), rank); }
                    }
                }
                case CaptureRecord.Kernel k -> kernels.add(k);
                default -> { }
            }
        }
        List<Snapshot> list = new ArrayList<>();
        for (CaptureRecord.Kernel k : kernels) {
            if (k.launch() == null) {
                Integer result = results.get(k.launchSeq());
                if (result != null && result == 0) result = faults.getOrDefault(k.launchSeq(), 0);
                k = withRebuiltLaunch(cap, k, launchEnters.get(k.launchSeq()), result, owner, image);
            }
            else if (k.launch().moduleHash() == 0) k = withModule(k, owner, image);
            long[] l = launches.get(k.launchSeq());
            list.add(new Snapshot(list.size() + 1, k, l == null ? 0 : l[0], l == null ? "" : cap.functionName((int) l[1])));
        }
        return new KernelSnapshots(cap, List.copyOf(list), blobs);
    }

    /**
     * Whether a CUresult is one a kernel leaves on its context when it faults (sticky: every later call returns it):
     * 700 ILLEGAL_ADDRESS, 702 LAUNCH_TIMEOUT, 710 ASSERT, 714 HARDWARE_STACK_ERROR, 715 ILLEGAL_INSTRUCTION,
     * 716 MISALIGNED_ADDRESS, 717 INVALID_ADDRESS_SPACE, 718 INVALID_PC, 719 LAUNCH_FAILED (cuda.h).
     */
    static boolean isKernelFault(int result) {
        return result == 700 || result == 702 || result == 710 || (result >= 714 && result <= 719);
    }

    /** The handle a lookup call wrote through its first parameter (8 bytes of output data), or 0. */
    private static long outputHandle(CaptureRecord.Leave l) {
        for (DataItem d : l.data()) {
            if (d.param() == 0 && d.bytes() != null && d.bytes().length >= 8) {
                return java.nio.ByteBuffer.wrap(d.bytes()).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(0);
            }
        }
        return 0;
    }

    private static final String[] SHAPE = {"gridDimX", "gridDimY", "gridDimZ", "blockDimX", "blockDimY", "blockDimZ", "sharedMemBytes"};

    /** The parameter indices of a launch's shape (grid, block, shared bytes), or null when it takes no such arguments. */
    private static int[] dimParams(CudaFunction f) {
        int[] d = new int[SHAPE.length];
        for (int i = 0; i < SHAPE.length; i++) {
            var p = f.param(SHAPE[i]);
            if (p.isEmpty()) return null;
            d[i] = p.get().index();
        }
        return d;
    }

    /**
     * {@code k} with the module image its launch section left out (0: the NVIDIA tracer's records of a graph launch's
     * kernels carry the shape but not the module), found as for a rebuilt launch; {@code k} when not found.
     */
    private static CaptureRecord.Kernel withModule(CaptureRecord.Kernel k, Map<Long, Long> owner, Map<Long, Long> image) {
        Long mod = owner.get(k.function());
        Long hash = mod == null ? null : image.get(mod);
        if (hash == null) return k;
        CaptureRecord.KernelLaunch l = k.launch();
        CaptureRecord.KernelLaunch m = new CaptureRecord.KernelLaunch(hash, l.gridX(), l.gridY(), l.gridZ(), l.blockX(), l.blockY(), l.blockZ(),
                l.sharedMemBytes(), l.result());
        return new CaptureRecord.Kernel(k.seq(), k.ts(), k.threadId(), k.offset(), k.launchSeq(), k.function(), k.name(), k.params(), k.buffers(), m);
    }

    /** {@code k} with a launch section rebuilt from its launch call and modules, or {@code k} unchanged when something is missing. */
    private static CaptureRecord.Kernel withRebuiltLaunch(Capture cap, CaptureRecord.Kernel k, CaptureRecord.Enter launch, Integer result,
                                                          Map<Long, Long> owner, Map<Long, Long> image) {
        if (launch == null) return k;
        Long mod = owner.get(k.function());
        Long hash = mod == null ? null : image.get(mod);
        if (hash == null) return k;
        long[] a = launch.args();
        long[] shape; // gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMemBytes
        CudaFunction sf = cap.specFunction(launch.functionId());
        int[] dims = sf == null ? null : dimParams(sf);
        if (dims != null && a.length > dims[6]) {
            // the shape as arguments (cuLaunchKernel, cuLaunchCooperativeKernel and their _ptsz forms)
            shape = new long[7];
            for (int i = 0; i < 7; i++) shape[i] = a[dims[i]];
        } else if (sf != null && sf.param("config").isPresent()) {
            shape = null;
            for (DataItem d : launch.data()) {
                // CUlaunchConfig: gridDimX..Z, blockDimX..Z, sharedMemBytes as unsigned int at offsets 0..24
                if (d.param() == 0 && d.bytes() != null && d.bytes().length >= 28) {
                    java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(d.bytes()).order(java.nio.ByteOrder.LITTLE_ENDIAN);
                    shape = new long[7];
                    for (int i = 0; i < 7; i++) shape[i] = Integer.toUnsignedLong(bb.getInt(4 * i));
                }
            }
            if (shape == null) return k;
        } else {
            return k;
        }
        CaptureRecord.KernelLaunch l = new CaptureRecord.KernelLaunch(hash, shape[0], shape[1], shape[2], shape[3], shape[4], shape[5], shape[6],
                result == null ? 0 : result);
        return new CaptureRecord.Kernel(k.seq(), k.ts(), k.threadId(), k.offset(), k.launchSeq(), k.function(), k.name(), k.params(), k.buffers(), l);
    }

    /** Every snapshot, in capture order. */
    public List<Snapshot> list() {
        return snapshots;
    }

    /**
     * The snapshot {@code --kernel WHICH} names: a number N (the N-th snapshot, from 1), or a kernel
     * name — the mangled name exactly, else the one snapshot kernel whose mangled name contains it
     * ({@code vectorAdd} for {@code _Z9vectorAddPKfS0_Pfi}); a kernel launched several times gives
     * its first launch ({@code NAME@K} the K-th, from 1).
     *
     * @throws IllegalArgumentException naming what is wrong and listing the snapshots there are
     */
    public Snapshot find(String which) {
        if (snapshots.isEmpty()) throw new IllegalArgumentException(noSnapshots(capture));
        if (which.matches("\\d+")) {
            long n = Long.parseLong(which);
            if (n < 1 || n > snapshots.size()) {
                throw new IllegalArgumentException("there is no kernel snapshot #" + which + ": the capture holds " + snapshots.size()
                        + " (" + names() + ")");
            }
            return snapshots.get((int) n - 1);
        }
        String name = which;
        int k = 1;
        int at = which.lastIndexOf('@');
        if (at > 0 && which.substring(at + 1).matches("\\d+")) {
            name = which.substring(0, at);
            k = Integer.parseInt(which.substring(at + 1));
        }
        List<Snapshot> exact = new ArrayList<>(), partial = new ArrayList<>();
        Set<String> partialNames = new LinkedHashSet<>();
        for (Snapshot s : snapshots) {
            if (s.name().equals(name)) exact.add(s);
            else if (s.name().contains(name)) { partial.add(s); partialNames.add(s.name()); }
        }
        List<Snapshot> hits = exact.isEmpty() ? partial : exact;
        if (exact.isEmpty() && partialNames.size() > 1) {
            throw new IllegalArgumentException("'" + name + "' is part of several kernel names: " + String.join(", ", partialNames)
                    + "; give the whole name or a snapshot number");
        }
        if (hits.isEmpty()) throw new IllegalArgumentException("no kernel snapshot of a kernel named '" + name + "'; the capture has " + names());
        if (k < 1 || k > hits.size()) throw new IllegalArgumentException("kernel " + name + " has " + hits.size() + " snapshot(s), not " + k);
        return hits.get(k - 1);
    }

    private String names() {
        StringBuilder sb = new StringBuilder();
        for (Snapshot s : snapshots) {
            if (sb.length() > 300) { sb.append(", ..."); break; }
            if (!sb.isEmpty()) sb.append(", ");
            sb.append('#').append(s.number()).append(' ').append(s.name());
        }
        return sb.toString();
    }

    /** The message for a capture without snapshots: how it was recorded and how to record again. */
    public static String noSnapshots(Capture cap) {
        for (var red : cap.manifest().path("redacted")) {
            if (red.asText().equals("data")) {
                return cap.source() + " holds no kernel snapshots: it is a pack made with --redact data, which leaves their buffers out; "
                        + "pack the capture again without it (zluda pack CAPTURE -o FILE) for a replay";
            }
        }
        String driver = cap.manifest().path("driver").path("name").asText("");
        String how = driver.equals("nvidia") ? "zluda run --nvidia-trace --capture-kernels REGEX -- APP" : "zluda run --zluda-trace --capture-kernels REGEX -- APP";
        return cap.source() + " holds no kernel snapshots: it was recorded without --capture-kernels; record again with " + how
                + " (REGEX picks the kernels by name, '.' all of them)";
    }

    /** Whether the capture holds the blob with this hash. */
    public boolean hasBlob(long hash) {
        return blobs.containsKey(hash);
    }

    /**
     * The uncompressed content of a blob.
     *
     * @throws CaptureException naming the capture when the blob is missing (e.g. a pack redacted with
     *     {@code --redact data}) or cannot be decompressed
     */
    public byte[] blob(long hash, String what) throws CaptureException {
        CaptureRecord.Blob b = blobs.get(hash);
        if (b == null) {
            throw new CaptureException(capture.reader().file(), -1, "the blob " + String.format("%016x", hash) + " holding " + what
                    + " is not in the capture" + (capture.manifest().has("redacted") ? " (the pack was made with --redact)" : ""));
        }
        return content(b, capture.reader().file());
    }

    /**
     * The uncompressed bytes of a BLOB record (FORMAT.md §6.3: none, LZ4 block, zstd frame), checked
     * against its hash.
     *
     * @param file the capture file, for messages
     * @throws CaptureException when it is over 2 GiB, does not decompress, or does not match its hash
     */
    public static byte[] content(CaptureRecord.Blob b, java.nio.file.Path file) throws CaptureException {
        if (b.size() > Integer.MAX_VALUE - 16) throw new CaptureException(file, b.offset(), "blob of " + b.size() + " bytes is too large to read");
        if (!BlobContent.knownCompression(b.compression())) throw new CaptureException(file, b.offset(), "blob with unknown compression " + b.compression());
        byte[] out;
        try {
            out = BlobContent.of(b);
        } catch (RuntimeException e) {
            throw new CaptureException(file, b.offset(), "blob " + String.format("%016x", b.hash()) + " does not decompress: " + e.getMessage(), e);
        }
        if (out.length != b.size() || Hashing.xxh64(out, 0, out.length) != b.hash()) {
            throw new CaptureException(file, b.offset(), "blob " + String.format("%016x", b.hash()) + " does not match its hash");
        }
        return out;
    }
}
