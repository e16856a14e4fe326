package dev.zluda.runtime.trace;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zluda.capture.CaptureDirectory;
import dev.zluda.capture.CaptureFormat;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.CaptureWriter;
import dev.zluda.capture.DataItems;
import dev.zluda.capture.FunctionDef;
import dev.zluda.capture.ThreadLog;
import dev.zluda.runtime.driver.LaunchObserver;
import dev.zluda.runtime.driver.ModuleImageObserver;
import dev.zluda.runtime.driver.ZludaDriver;
import dev.zluda.image.ModuleImage;
import dev.zluda.image.ModuleImageException;
import dev.zluda.spec.CudaApi;
import dev.zluda.spec.CudaFunction;
import dev.zluda.spec.CudaParam;
import dev.zluda.spec.Direction;
import dev.zluda.spec.Role;
import dev.zluda.spec.gen.TracerGenerator;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The trace layer of the zluda driver: records every call that enters the driver from native code
 * into a capture (trace-format/FORMAT.md), with the same rules as the NVIDIA tracer
 * (nvidia-capture): raw argument values; the data of typed pointers at every level; host buffers
 * ({@code void *} with a byte size) only at level {@code replay}; C strings always; {@code opaque}
 * pointers never. Input data is recorded before the call, output data after a successful one.
 *
 * <p>Turned on by {@code ZLUDA_LOG_DIR} (what {@code zluda run --zluda-trace} sets): the capture
 * goes to {@code $ZLUDA_LOG_DIR/<exe>[_N]/} as ZLUDA lays it out. {@code ZLUDA_CAPTURE_LEVEL}
 * chooses {@code calls} (default) or {@code replay}. A failure to record never changes what the
 * program computes: the call still runs, and one warning goes to stderr.
 *
 * <p>Kernel snapshots: with {@code ZLUDA_CAPTURE_KERNELS=REGEX} (what {@code zluda run
 * --capture-kernels} sets), every launch of a kernel whose mangled name the regular expression finds
 * ({@link java.util.regex.Matcher#find()}; {@code .} for all) is stored as a KERNEL record
 * (FORMAT.md §6.5): the module's PTX, name, grid and block shape, dynamic shared memory, the packed
 * parameter bytes, and the whole content before and after the kernel of every allocation an aligned
 * 8-byte word of the parameter bytes points into, as BLOBs. The records lie between the launch's
 * ENTER and LEAVE. Not covered: memory the kernel reaches other than through its parameters
 * (pointers stored inside buffers, module variables).
 *
 * <p>Module images, as the NVIDIA tracer keeps them (nvidia-capture's modules.c): after every
 * {@code cuModuleLoadData}, {@code cuModuleLoadDataEx}, {@code cuModuleLoadFatBinary},
 * {@code cuModuleLoad}, {@code cuLibraryLoadData} or {@code cuLibraryLoadFromFile} with a non-NULL
 * image, and every fatbin the CUDA runtime registers through CUDART_INTERFACE slots 1, 6 and 8, one
 * MODULE record. A load that failed is recorded too, with handle 0: its error message names the
 * dump file ({@code module_0001_01.ptx:16:3: error: ...}; the driver numbers loads the same way),
 * so the capture keeps the PTX the error points at. The record
 * (FORMAT.md §6.4): {@code library} NNNN counting loads from 1, {@code index} 1, the kind (1 PTX,
 * 2 ELF, 3 fatbin or fatbin wrapper, 4 other), the image as a BLOB (LZ4; {@link ModuleImage#bytes()}:
 * a wrapper's fatbin, PTX without its NUL, a file's whole content) with its size, the CUmodule or
 * CUlibrary handle, and the dump file's name. The image is also written beside capture.zcap:
 * PTX text as {@code module_NNNN_01.ptx}, an ELF as {@code module_NNNN_01.elf}, and each PTX or
 * ELF entry of a fatbin, decompressed, as {@code module_NNNN_NN.ptx} / {@code .elf} with NN the
 * entry's position among all entries from 01. The record of a spec function's load lies between
 * its ENTER and LEAVE; that of an export-table load stands outside any call (zluda's trace layer does
 * not record export-table calls). {@code ZLUDA_CAPTURE_MODULES=0} keeps the records without images
 * or files; {@code ZLUDA_CAPTURE_MODULES=ptx} keeps only images loaded as PTX text (kind 4 for a
 * file then, as its content is not read).
 */
public final class CallTracer {
    private final CudaApi api;
    private final CaptureWriter writer;
    private final Path directory;
    private final boolean replay;
    private final Plan[] plans;
    private final ThreadLocal<int[]> depth = ThreadLocal.withInitial(() -> new int[1]);
    private final ThreadLocal<DataItems> items = ThreadLocal.withInitial(DataItems::new);
    /** The innermost recorded call of this thread: {ENTER seq, function id}, {-1, -1} outside calls. */
    private final ThreadLocal<long[]> current = ThreadLocal.withInitial(() -> new long[] {-1, -1});
    private final Pattern kernels;
    private final Map<String, Long> moduleBlobs = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());
    private final AtomicInteger libraries = new AtomicInteger();
    private final ModuleImages images;
    private volatile boolean failed;
    /** Set at process exit ({@link #exit}): every later call's LEAVE is followed by another PROCESS_END. */
    private volatile boolean exiting;

    /** What {@code ZLUDA_CAPTURE_MODULES} asks for: all images (unset or any other value), none ({@code 0}), PTX text only ({@code ptx}). */
    enum ModuleImages {
        ALL, NONE, PTX;

        static ModuleImages of(String env) {
            return env == null ? ALL : env.equals("0") ? NONE : env.equals("ptx") ? PTX : ALL;
        }
    }

    /**
     * How one function's arguments are recorded, worked out once from the spec; {@code image} is the
     * index of the module image parameter of a loading function ({@link TracerGenerator#MODULE_IMAGE}),
     * else -1, and {@code file} whether that parameter names a file.
     */
    private record Plan(CudaFunction function, boolean[] int32, Map<String, Integer> index, int image, boolean file) {}

    private CallTracer(CudaApi api, CaptureWriter writer, Path directory, boolean replay, Pattern kernels, ModuleImages images) {
        this.api = api;
        this.images = images;
        this.kernels = kernels;
        this.writer = writer;
        this.directory = directory;
        this.replay = replay;
        this.plans = new Plan[api.functions().size()];
        for (CudaFunction f : api.functions()) {
            boolean[] int32 = new boolean[f.params().size()];
            Map<String, Integer> index = new HashMap<>();
            for (CudaParam p : f.params()) {
                String c = api.canonicalType(p.cType());
                int32[p.index()] = switch (c) {
                    case "enum", "int", "signed int", "unsigned int", "uint32_t", "cuuint32_t", "float" -> true;
                    default -> false;
                };
                index.put(p.name(), p.index());
            }
            Integer image = TracerGenerator.MODULE_IMAGE.get(f.name());
            // a load whose image parameter is a C string names a file (cuModuleLoad, cuLibraryLoadFromFile)
            boolean file = image != null && f.params().get(image).string();
            plans[f.id()] = new Plan(f, int32, index, image == null ? -1 : image, file);
        }
    }

    /**
     * Starts tracing when {@code ZLUDA_LOG_DIR} is set; returns null when it is not, or when the
     * capture cannot be created (then one warning is printed).
     */
    public static CallTracer fromEnvironment(CudaApi api) {
        return fromEnvironment(() -> api);
    }

    /**
     * As {@link #fromEnvironment(CudaApi)}, asking for the spec only when {@code ZLUDA_LOG_DIR} is set (the driver
     * starts without reading the spec when nothing is recorded).
     */
    public static CallTracer fromEnvironment(java.util.function.Supplier<CudaApi> spec) {
        String logDir = System.getenv("ZLUDA_LOG_DIR");
        if (logDir == null || logDir.isBlank()) return null;
        CudaApi api = spec.get();
        boolean replay = "replay".equals(System.getenv("ZLUDA_CAPTURE_LEVEL"));
        Pattern kernels = kernelPattern(System.getenv("ZLUDA_CAPTURE_KERNELS"));
        try {
            return open(api, Path.of(logDir), executableName(), replay, kernels, ModuleImages.of(System.getenv("ZLUDA_CAPTURE_MODULES")));
        } catch (IOException | RuntimeException e) {
            System.err.println("[ZLUDA_TRACE] cannot create a capture in " + logDir + ": " + e.getMessage() + "; calls are not recorded");
            return null;
        }
    }

    /** A tracer writing a new capture directory {@code <logDir>/<exe>[_N]/} (what {@link #fromEnvironment} opens). */
    static CallTracer open(CudaApi api, Path logDir, String exe, boolean replay, Pattern kernels, ModuleImages images) throws IOException {
        Path dir = captureDirectory(logDir, exe);
        CaptureWriter w = CaptureWriter.create(dir.resolve("capture.zcap"), CaptureWriter.Options.defaults(), FunctionDef.fromSpec(api));
        writeManifest(dir, replay, kernels);
        return new CallTracer(api, w, dir, replay, kernels, images);
    }

    /** {@code ZLUDA_CAPTURE_KERNELS} as a pattern; null when unset, empty or not a valid regular expression (then one warning). */
    static Pattern kernelPattern(String regex) {
        if (regex == null || regex.isEmpty()) return null;
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            System.err.println("[ZLUDA_TRACE] ZLUDA_CAPTURE_KERNELS is not a regular expression (" + e.getDescription() + " at index "
                    + e.getIndex() + " of '" + regex + "'); kernels are not snapshotted");
            return null;
        }
    }

    /**
     * Makes this tracer record what a driver serves: every call of the program, as the driver's outermost
     * interceptor (of every role; the calls the driver makes itself are not the program's and are not recorded),
     * and inside the calls the driver's events, the kernel snapshots {@code ZLUDA_CAPTURE_KERNELS} asks for (on
     * every backend) and the module images the export tables load.
     */
    public void attach(ZludaDriver driver) {
        driver.intercept(EnumSet.allOf(Role.class), false, true, (c, next) -> call(c.function().id(), c.args(), next));
        driver.launchObserver(kernelSnapshots());
        driver.driverEvents(driverEvents());
        driver.moduleImageObserver(moduleImages());
    }

    /**
     * The sink for the driver's own events ({@code ZludaDriver.driverEvents}): each line becomes a
     * MARKER record on the calling thread's log, inside the call that caused it.
     */
    public java.util.function.Consumer<String> driverEvents() {
        return text -> {
            if (failed) return;
            try {
                writer.currentThread().marker(text, System.nanoTime());
            } catch (RuntimeException e) {
                fail(e);
            }
        };
    }

    /**
     * The observer that takes kernel snapshots into this capture, for
     * {@code ZludaDriver.launchObserver}; null when {@code ZLUDA_CAPTURE_KERNELS} asks for none.
     */
    public LaunchObserver kernelSnapshots() {
        return kernels == null ? null : new Snapshots();
    }

    /** Takes the before and after images of a launch (class comment). */
    private final class Snapshots implements LaunchObserver {
        /** The before-images of one launch: hash per region, the launch's ENTER seq, the module blob. */
        private record Before(long launchSeq, long[] hashes, long module) {}

        @Override
        public boolean wants(String kernelName) {
            return !failed && kernels.matcher(kernelName).find();
        }

        @Override
        public Object before(KernelLaunch launch) {
            long[] cur = current.get();
            // the driver shows launches of calls of role KERNEL_LAUNCH only; a launch outside a recorded call has no ENTER to hang on
            if (failed || cur[0] < 0) return null;
            try {
                ThreadLog log = writer.currentThread();
                long[] hashes = new long[launch.regions().size()];
                for (int i = 0; i < hashes.length; i++) hashes[i] = image(log, launch, launch.regions().get(i));
                Long mod = moduleBlobs.get(launch.ptx());
                if (mod == null) {
                    byte[] text = launch.ptx().getBytes(StandardCharsets.UTF_8);
                    mod = log.blob(text, 0, text.length, CaptureFormat.COMPRESSION_LZ4, System.nanoTime());
                    moduleBlobs.put(launch.ptx(), mod);
                }
                return new Before(cur[0], hashes, mod);
            } catch (RuntimeException e) {
                fail(e);
                return null;
            }
        }

        @Override
        public void after(Object token, KernelLaunch launch, int result) {
            if (!(token instanceof Before b) || failed) return;
            try {
                ThreadLog log = writer.currentThread();
                List<CaptureRecord.KernelBuffer> buffers = new ArrayList<>(b.hashes.length);
                for (int i = 0; i < b.hashes.length; i++) {
                    Region r = launch.regions().get(i);
                    buffers.add(new CaptureRecord.KernelBuffer(r.address(), r.size(), b.hashes[i], image(log, launch, r)));
                }
                long[] g = launch.grid(), k = launch.block();
                log.kernel(b.launchSeq, launch.function(), launch.name(), launch.params(), buffers,
                        new CaptureRecord.KernelLaunch(b.module, g[0], g[1], g[2], k[0], k[1], k[2], launch.sharedMemBytes(), result),
                        System.nanoTime());
            } catch (RuntimeException e) {
                fail(e);
            }
        }

        /** Stores the whole region, read through the driver's backend, as a BLOB (LZ4); returns its hash. */
        private long image(ThreadLog log, KernelLaunch launch, Region r) {
            if (r.size() > Integer.MAX_VALUE - 64) throw new IllegalStateException("allocation of " + r.size() + " bytes is too large to snapshot");
            byte[] b = launch.memory().read(r.address(), r.size());
            return log.blob(b, 0, b.length, CaptureFormat.COMPRESSION_LZ4, System.nanoTime());
        }
    }

    /**
     * The observer that records the module images the driver loads through the export tables, for
     * {@code ZludaDriver.moduleImageObserver}.
     */
    public ModuleImageObserver moduleImages() {
        return (via, image, handle) -> {
            if (failed) return;
            try {
                module(writer.currentThread(), image, handle, false);
            } catch (RuntimeException e) {
                fail(e);
            }
        };
    }

    /**
     * Writes the MODULE record of one load (successful or not), its image BLOB and its dump files (class
     * comment); as nvidia-capture's {@code zt_module}. An image this driver cannot read, or a file it
     * cannot read again, gets a record of kind 4 without image, and one warning.
     *
     * @param image the image's address, or of the file name's C string when {@code file}
     * @param handle the CUmodule / CUlibrary the load produced; 0 when it failed
     */
    private void module(ThreadLog log, long image, long handle, boolean file) {
        if (image == 0) return;
        int lib = libraries.incrementAndGet();
        if (images != ModuleImages.ALL) {
            int kind = file ? 4 : switch (MemorySegment.ofAddress(image).reinterpret(4).get(ValueLayout.JAVA_INT_UNALIGNED, 0)) {
                case ModuleImage.FATBIN_WRAPPER_MAGIC, ModuleImage.FATBIN_MAGIC -> 3;
                case 0x464C457F -> 2;
                default -> 1;
            };
            if (images == ModuleImages.NONE || kind != 1) {
                log.module(lib, 1, kind, 0, 0, handle, "", System.nanoTime());
                return;
            }
        }
        ModuleImage img;
        String source = "";
        try {
            if (file) {
                source = MemorySegment.ofAddress(image).reinterpret(4096).getString(0, StandardCharsets.UTF_8);
                img = ModuleImage.of(Files.readAllBytes(Path.of(source)));
            } else {
                img = ModuleImage.fromAddress(image);
            }
        } catch (ModuleImageException | IOException | java.nio.file.InvalidPathException e) {
            warnOnce("module image " + lib + (file ? " (" + source + ")" : "") + " is kept without its image: " + e.getMessage());
            log.module(lib, 1, 4, 0, 0, handle, "", System.nanoTime());
            return;
        }
        int kind = switch (img.format()) {
            case PTX -> 1;
            case ELF -> 2;
            case FATBIN, FATBIN_WRAPPER -> 3;
            case AR_ARCHIVE -> 4;
        };
        String name = "";
        switch (img.format()) {
            case PTX -> name = dump(CaptureDirectory.moduleFileName(lib, 1, "ptx"), img.bytes().toArray(ValueLayout.JAVA_BYTE));
            case ELF -> name = dump(CaptureDirectory.moduleFileName(lib, 1, "elf"), img.bytes().toArray(ValueLayout.JAVA_BYTE));
            default -> {
                List<ModuleImage.Entry> entries = img.entries();
                for (int i = 0; i < entries.size(); i++) {
                    ModuleImage.Entry e = entries.get(i);
                    if (e.kind() != ModuleImage.Kind.PTX && e.kind() != ModuleImage.Kind.ELF) continue;
                    try {
                        dump(CaptureDirectory.moduleFileName(lib, i + 1, e.kind() == ModuleImage.Kind.PTX ? "ptx" : "elf"), e.content());
                    } catch (ModuleImageException x) {
                        warnOnce("entry " + (i + 1) + " of module image " + lib + " is not dumped: " + x.getMessage());
                    }
                }
            }
        }
        byte[] bytes = img.bytes().toArray(ValueLayout.JAVA_BYTE);
        long hash = bytes.length == 0 ? 0 : log.blob(bytes, 0, bytes.length, CaptureFormat.COMPRESSION_LZ4, System.nanoTime());
        log.module(lib, 1, kind, hash, bytes.length, handle, name, System.nanoTime());
    }

    /** Writes one module file into the capture directory; returns its name, "" when it cannot be written (one warning). */
    private String dump(String name, byte[] content) {
        try {
            Files.write(directory.resolve(name), content);
            return name;
        } catch (IOException e) {
            warnOnce("cannot write " + directory.resolve(name) + ": " + e.getMessage());
            return "";
        }
    }

    private final java.util.Set<String> warned = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private void warnOnce(String text) {
        if (warned.size() < 20 && warned.add(text)) System.err.println("[ZLUDA_TRACE] " + text);
    }

    /** The capture directory this tracer writes. */
    public Path directory() {
        return directory;
    }

    static String executableName() {
        try {
            Path exe = Files.readSymbolicLink(Path.of("/proc/self/exe"));
            return exe.getFileName().toString();
        } catch (IOException | UnsupportedOperationException e) {
            return "app";
        }
    }

    /** {@code <logDir>/<exe>}, else {@code <exe>_1}, {@code <exe>_2}, … (ZLUDA's layout), created atomically. */
    static Path captureDirectory(Path logDir, String exe) throws IOException {
        Files.createDirectories(logDir);
        for (int n = 0; n < 100_000; n++) {
            Path d = logDir.resolve(n == 0 ? exe : exe + "_" + n);
            try {
                return Files.createDirectory(d);
            } catch (FileAlreadyExistsException e) {
                // next
            }
        }
        throw new IOException("no free capture directory name for " + exe + " in " + logDir);
    }

    private static void writeManifest(Path dir, boolean replay, Pattern kernels) throws IOException {
        ObjectMapper json = new ObjectMapper();
        ObjectNode m = json.createObjectNode();
        m.put("formatVersion", "1.0");
        ProcessHandle.Info info = ProcessHandle.current().info();
        m.put("program", info.command().orElse(""));
        ArrayNode args = m.putArray("arguments");
        info.arguments().ifPresent(a -> { for (String s : a) args.add(s); });
        m.put("workingDirectory", Path.of("").toAbsolutePath().toString());
        m.put("pid", ProcessHandle.current().pid());
        m.put("startTime", Instant.now().toString());
        String host = System.getenv("HOSTNAME");
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            // keep $HOSTNAME
        }
        m.put("host", host == null ? "" : host);
        ObjectNode driver = m.putObject("driver");
        driver.put("name", "zluda");
        driver.put("version", 13000);
        driver.put("backend", "emulator");
        ObjectNode tool = m.putObject("tool");
        tool.put("name", "zluda runtime");
        tool.put("version", "0.1.0");
        ObjectNode cap = m.putObject("capture");
        cap.put("data", replay ? "replay" : "calls");
        if (kernels != null) cap.put("kernels", kernels.pattern());
        Files.writeString(dir.resolve("manifest.json"), json.writerWithDefaultPrettyPrinter().writeValueAsString(m) + "\n");
    }

    /**
     * Records one call around {@code body}.
     *
     * @param id spec function id
     * @param words the arguments, one 64-bit word each, as the entry packs them ({@code CudaDriverApi#call})
     * @param body runs the call; returns its CUresult
     */
    public int call(int id, long[] words, IntSupplier body) {
        if (failed || id < 0 || id >= plans.length) return body.getAsInt();
        Plan plan = plans[id];
        int n = plan.function.params().size();
        long[] args = new long[n];
        for (int i = 0; i < n; i++) {
            long v = words[i];
            args[i] = plan.int32[i] ? v & 0xFFFF_FFFFL : v;
        }
        int[] d = depth.get();
        long[] cur = current.get();
        long outerSeq = cur[0], outerFn = cur[1];
        ThreadLog log;
        long enterSeq;
        try {
            log = writer.currentThread();
            DataItems in = items.get().clear();
            data(plan, args, in, log, true);
            enterSeq = log.enter(id, d[0], System.nanoTime(), args, in);
        } catch (RuntimeException e) {
            fail(e);
            return body.getAsInt();
        }
        int result;
        d[0]++;
        cur[0] = enterSeq;
        cur[1] = id;
        try {
            result = body.getAsInt();
        } finally {
            d[0]--;
            cur[0] = outerSeq;
            cur[1] = outerFn;
        }
        try {
            DataItems out = items.get().clear();
            if (result == 0) data(plan, args, out, log, false);
            if (plan.image >= 0) { // failed loads too: the capture keeps the PTX the error message points at
                long handle = result != 0 || args[0] == 0 ? 0 : MemorySegment.ofAddress(args[0]).reinterpret(8).get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
                module(log, args[plan.image], handle, plan.file);
            }
            log.leave(enterSeq, System.nanoTime(), result, out);
            if (exiting) log.processEnd(CaptureFormat.END_EXIT, exitStatus, System.nanoTime());
        } catch (RuntimeException e) {
            fail(e);
        }
        return result;
    }

    private volatile long exitStatus;

    /**
     * The process exits: writes PROCESS_END (reason exit) and keeps recording, as the NVIDIA tracer does: the
     * calls that exit handlers registered before the driver's make afterwards (cudart's teardown) are recorded, each
     * followed by another PROCESS_END, so the capture still ends with one. The mapping is left to the operating
     * system (every record is in the shared file mapping).
     */
    public void exit(int status) {
        if (failed) return;
        exitStatus = status;
        exiting = true;
        try {
            writer.currentThread().processEnd(CaptureFormat.END_EXIT, status, System.nanoTime());
        } catch (RuntimeException e) {
            fail(e);
        }
    }

    private void fail(RuntimeException e) {
        if (!failed) {
            failed = true;
            System.err.println("[ZLUDA_TRACE] recording stopped: " + e + "; calls keep running");
        }
    }

    private void data(Plan plan, long[] args, DataItems items, ThreadLog log, boolean enter) {
        CudaFunction f = plan.function;
        for (CudaParam p : f.params()) {
            if (!p.isPointer() || p.opaque()) continue;
            Direction dir = p.direction();
            if (enter ? !dir.isIn() : !dir.isOut()) continue;
            long ptr = args[p.index()];
            if (ptr == 0) continue;
            if (p.string()) {
                long cap = p.size() != null ? size(plan, p, args) : 4096;
                MemorySegment s = MemorySegment.ofAddress(ptr).reinterpret(Math.max(1, Math.min(cap, 1 << 20)));
                long len = 0;
                while (len < s.byteSize() && s.get(ValueLayout.JAVA_BYTE, len) != 0) len++;
                byte[] b = s.asSlice(0, len).toArray(ValueLayout.JAVA_BYTE);
                items.inline(p.index(), b, 0, b.length);
                continue;
            }
            if (p.size() == null) continue;
            boolean buffer = p.pointeeType().equals("void") && p.size().bytes();
            if (buffer && !replay) continue;
            long bytes = size(plan, p, args);
            if (bytes <= 0) continue;
            MemorySegment data = MemorySegment.ofAddress(ptr).reinterpret(bytes);
            if (bytes <= 4096) {
                items.inline(p.index(), data);
            } else {
                byte[] b = data.toArray(ValueLayout.JAVA_BYTE);
                long hash = log.blob(b, 0, b.length, CaptureFormat.COMPRESSION_LZ4, System.nanoTime());
                items.blob(p.index(), hash, bytes);
            }
        }
    }

    /** Bytes behind a pointer parameter, from the spec's size expression; -1 when it cannot be known. */
    private long size(Plan plan, CudaParam p, long[] args) {
        try {
            long v = p.size().expr().evaluate(name -> args[plan.index.get(name)], api::sizeOfType);
            if (p.size().bytes()) return v;
            long elem = api.sizeOfType(p.pointeeType());
            return elem <= 0 ? -1 : Math.multiplyExact(v, elem);
        } catch (ArithmeticException | NullPointerException e) {
            return -1;
        }
    }

    /** Ends the capture (PROCESS_END, flush); further calls are not recorded. */
    public void close(int exitStatus) {
        failed = true;
        try {
            writer.close(CaptureFormat.END_EXIT, exitStatus);
        } catch (IOException | RuntimeException e) {
            System.err.println("[ZLUDA_TRACE] closing the capture failed: " + e.getMessage());
        }
    }

    @SuppressWarnings("unused")
    private static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
