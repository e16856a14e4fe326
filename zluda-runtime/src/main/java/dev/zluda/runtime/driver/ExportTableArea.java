package dev.zluda.runtime.driver;

import dev.zluda.image.ModuleImage;
import dev.zluda.image.ModuleImageException;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static dev.zluda.runtime.driver.CuResult.*;
import static dev.zluda.runtime.driver.Native.at;
import static dev.zluda.runtime.driver.Native.putLong;

/**
 * {@code cuGetExportTable} and the undocumented tables ("dark API") the CUDA runtime relies on.
 * Which tables and slots exist and what they mean: shared/reference/cuda-facts.md, "Export tables".
 *
 * <p>The tables are C arrays of C function pointers in {@code libcuda.so.1}
 * (zluda-runtime/src/main/c/export_tables.c). The first {@code cuGetExportTable} finds them
 * through the library's {@code zluda_export_tables} function and registers an FFM upcall,
 * {@link #ext}, through which the slots that need the driver's state enter Java; slots that return
 * constants are answered in C. Served tables: CUDART_INTERFACE (modules from fatbins, the primary
 * context, "load compilers"), TOOLS_RUNTIME_CALLBACK_HOOKS, TOOLS_TLS, CONTEXT_LOCAL_STORAGE,
 * INTEGRITY_CHECK and CONTEXT_CHECKS. Any other table is {@code CUDA_ERROR_NOT_FOUND}, with one
 * {@code [ZLUDA]} line per GUID on stderr (except the one cudart 13 asks first and is known to
 * tolerate missing); a slot without known meaning prints one line and returns
 * {@code CUDA_ERROR_NOT_SUPPORTED}.
 */
final class ExportTableArea {
    /** CUDA_ERROR_INVALID_IMAGE: a module image that is malformed. */
    static final int INVALID_IMAGE = 200;
    /** CUDA_ERROR_NO_BINARY_FOR_GPU: an image without PTX the device can run. */
    static final int NO_BINARY_FOR_GPU = 209;

    /** Table numbers: the order in which export_tables.c's {@code zluda_export_tables} lists them. */
    static final int T_CUDART_INTERFACE = 0, T_TOOLS_RUNTIME_CALLBACK_HOOKS = 1, T_TOOLS_TLS = 2,
            T_CONTEXT_LOCAL_STORAGE = 3, T_INTEGRITY_CHECK = 4, T_CONTEXT_CHECKS = 5;
    /** Names of the served tables, by table number. */
    static final List<String> TABLE_NAMES = List.of("CUDART_INTERFACE", "TOOLS_RUNTIME_CALLBACK_HOOKS", "TOOLS_TLS",
            "CONTEXT_LOCAL_STORAGE", "INTEGRITY_CHECK", "CONTEXT_CHECKS");
    /** GUIDs of the served tables (16 bytes in memory order, as hex), by table number. */
    static final List<String> TABLE_GUIDS = List.of(
            "6bd5fb6c5bf4e74a8987d93912fd9df9",
            "a094798c2e742e7493f20800200c0a66",
            "42d85a8123f6cb478298f6e78a3aecdc",
            "c693336e1121df11a8c368f355d89593",
            "d4082055bde6704b8d34ba123c66e1f2",
            "263e88607cd2614392f6bbd5006dfa7e");
    /** Tables known by name that zluda does not serve (CUDA_ERROR_NOT_FOUND). */
    static final Map<String, String> UNSERVED = Map.of(
            "0ca50b8c1004929a89a7d0df10e77286", "CTX_CREATE_BYPASS",
            "195bcbf4d67d024aacc51d29cea631ae", "HEAP_ACCESS",
            "b10541e1f7c7c74a9f64f223be99f1e2", "DEVICE_EXTENDED_RT",
            "dd9e98a4f410484499b0e2aeb7b432b5", "HYBRID_CUDART (Windows)");
    /**
     * Asked for first by cudart 13, before cuInit; answering "not found" is tolerated, so it is not reported. It is
     * not served on purpose: NVIDIA's driver answers CUDA_SUCCESS, but cudart 13.0 makes no call through the table
     * in any program recorded on an H200 (samples/traces/h200/cudart_demo*: no slot call after it), its slots'
     * meaning is undocumented, and cudart takes another start-up path when it is provided; a table of stubs could
     * only make that path fail. {@code zluda diff} counts the different result as an expected difference
     * (export table).
     */
    static final String CUDART13_PROBE = "f8cff95121468b4eb9e2fb469e7c0dd9";

    private static final HexFormat HEX = HexFormat.of();

    private final Object tablesLock = new Object();
    /** Table addresses by table number; null until found; empty when there is no native library. */
    private volatile long[] tables;
    private final Set<String> reportedGuids = ConcurrentHashMap.newKeySet();
    private final Set<String> reportedSlots = ConcurrentHashMap.newKeySet();
    /** Context-local storage: per context, key → (value, destructor), in insertion order. */
    private final Map<Context, Map<Long, ClsEntry>> storage = new ConcurrentHashMap<>();
    /** PTX texts handed to cuModuleLoadData, by image address; never freed while the process runs. */
    private final Map<Long, MemorySegment> ptxTexts = new ConcurrentHashMap<>();
    private static volatile MethodHandle destructorCall;

    private record ClsEntry(long value, long destructor) {}

    /** Loads a module from PTX text in native memory as {@code cuModuleLoadData} does, through the driver's dispatch. */
    @FunctionalInterface
    interface ModuleLoad {
        /** @return the CUresult of {@code cuModuleLoadData(pmodule, image)} */
        int load(long pmodule, long image);
    }

    private final DriverState state;
    private final ContextArea contexts;
    private final ModuleArea modules;
    private final ModuleLoad moduleLoad;

    /**
     * @param moduleLoad how a slot's module is loaded: {@code cuModuleLoadData} as the driver serves it (its device
     *     printf flush and driver events included), not recorded by the trace layer as a call of the program
     */
    ExportTableArea(DriverState state, ContextArea contexts, ModuleArea modules, ModuleLoad moduleLoad) {
        this.state = state;
        this.contexts = contexts;
        this.modules = modules;
        this.moduleLoad = moduleLoad;
    }

    // ------------------------------------------------------------------------- cuGetExportTable

    /**
     * Looks a table up by GUID. No cuInit is needed (cudart asks before it).
     *
     * @param ppExportTable {@code const void**}: receives the table's address, NULL when not found
     * @param pExportTableId {@code const CUuuid*}: 16 bytes
     * @return CUDA_SUCCESS; CUDA_ERROR_INVALID_VALUE for a NULL argument; CUDA_ERROR_NOT_FOUND
     *     for a table zluda does not serve; CUDA_ERROR_NOT_SUPPORTED when the driver runs without
     *     its native library (tables are native code)
     */
    public int cuGetExportTable(long ppExportTable, long pExportTableId) {
        if (ppExportTable == 0 || pExportTableId == 0) return INVALID_VALUE;
        String guid = HEX.formatHex(at(pExportTableId, 16).toArray(ValueLayout.JAVA_BYTE));
        int t = TABLE_GUIDS.indexOf(guid);
        if (t < 0) {
            putLong(ppExportTable, 0);
            if (!guid.equals(CUDART13_PROBE) && reportedGuids.add(guid)) {
                String name = UNSERVED.get(guid);
                System.err.println("[ZLUDA] cuGetExportTable: table " + formatGuid(guid) + (name != null ? " (" + name + ")" : " (unknown)")
                        + " is not provided: returning CUDA_ERROR_NOT_FOUND");
            }
            return NOT_FOUND;
        }
        long[] tb = tables();
        if (tb.length == 0) {
            putLong(ppExportTable, 0);
            if (reportedGuids.add(guid)) System.err.println("[ZLUDA] cuGetExportTable: export tables need the native libcuda.so.1: returning CUDA_ERROR_NOT_SUPPORTED");
            return NOT_SUPPORTED;
        }
        putLong(ppExportTable, tb[t]);
        return SUCCESS;
    }

    /** A GUID as hex in memory order, grouped 4-2-2-2-6 like a UUID string. */
    static String formatGuid(String hex) {
        return hex.substring(0, 8) + "-" + hex.substring(8, 12) + "-" + hex.substring(12, 16) + "-" + hex.substring(16, 20) + "-" + hex.substring(20);
    }

    /** The native tables' addresses, found on first use. */
    long[] tables() {
        long[] tb = tables;
        if (tb == null) {
            synchronized (tablesLock) {
                if (tables == null) tables = locateNativeTables();
                tb = tables;
            }
        }
        return tb;
    }

    /** For tests without libcuda.so.1: serve tables at these addresses (by table number). */
    void useTables(long[] addresses) {
        tables = addresses.clone();
    }

    /**
     * Finds {@code zluda_export_tables} in the libcuda.so.1 this driver's exports live in (dladdr of
     * an export, then a lookup in that file, which the loader resolves to the loaded library), and
     * registers {@link #ext} as the upcall of the stateful slots.
     */
    private long[] locateNativeTables() {
        try (Arena a = Arena.ofConfined()) {
            long fn;
            try {
                // the native export of cuInit, which lives in the libcuda.so.1 the tables are in
                fn = state.exports.getAtIndex(ValueLayout.ADDRESS, DriverState.id("cuInit")).address();
            } catch (RuntimeException noNativeExports) {
                return new long[0]; // a driver made without libcuda.so.1 (tests)
            }
            if (fn == 0) return new long[0];
            Linker linker = Linker.nativeLinker();
            MethodHandle dladdr = linker.downcallHandle(linker.defaultLookup().find("dladdr").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
            StructLayout dlInfo = java.lang.foreign.MemoryLayout.structLayout(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS);
            MemorySegment info = a.allocate(dlInfo);
            if ((int) dladdr.invokeExact(MemorySegment.ofAddress(fn), info) == 0) throw new IllegalStateException("dladdr found no library for cuInit");
            String file = info.get(ValueLayout.ADDRESS, 0).reinterpret(4096).getString(0, StandardCharsets.UTF_8);
            MemorySegment register = SymbolLookup.libraryLookup(Path.of(file), Arena.global()).find("zluda_export_tables")
                    .orElseThrow(() -> new IllegalStateException(file + " lacks zluda_export_tables"));
            MethodHandle reg = linker.downcallHandle(register, FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
            MethodHandle target = MethodHandles.lookup().findVirtual(ExportTableArea.class, "ext",
                    MethodType.methodType(int.class, int.class, int.class, MemorySegment.class)).bindTo(this);
            MemorySegment stub = linker.upcallStub(target, FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS), Arena.global());
            MemorySegment out = a.allocate(8L * TABLE_NAMES.size());
            int n = (int) reg.invokeExact(stub, out, TABLE_NAMES.size());
            if (n != TABLE_NAMES.size()) throw new IllegalStateException(file + " serves " + n + " export tables, the Java driver expects " + TABLE_NAMES.size());
            return out.toArray(ValueLayout.JAVA_LONG);
        } catch (Throwable t) {
            System.err.println("[ZLUDA] cannot find the export tables in libcuda.so.1: " + t);
            return new long[0];
        }
    }

    // ------------------------------------------------------------------------ slots from C

    /**
     * Entry of the stateful slots from export_tables.c: {@code int (*)(int table, int slot, uint64_t *words)}.
     * Catches every Throwable (returning CUDA_ERROR_UNKNOWN): nothing may cross into C.
     */
    private int ext(int table, int slot, MemorySegment words) {
        try {
            MemorySegment w = words.address() == 0 ? MemorySegment.NULL : words.reinterpret(8 * 5);
            return switch (table) {
                case T_CUDART_INTERFACE -> switch (slot) {
                    case 1 -> cudartModuleFromWrapper(word(w, 0), word(w, 1));
                    case 2 -> cudartPrimaryContext(word(w, 0), (int) word(w, 1));
                    case 6 -> cudartModuleExt(6, word(w, 0), word(w, 1), word(w, 2), word(w, 3), (int) word(w, 4));
                    case 8 -> cudartModuleExt(8, word(w, 1), word(w, 0), word(w, 2), word(w, 3), (int) word(w, 4));
                    default -> unknownSlot(table, slot);
                };
                case T_CONTEXT_LOCAL_STORAGE -> switch (slot) {
                    case 0 -> clsPut(word(w, 0), word(w, 1), word(w, 2), word(w, 3));
                    case 1 -> clsDelete(word(w, 0), word(w, 1));
                    case 2 -> clsGet(word(w, 0), word(w, 1), word(w, 2));
                    default -> unknownSlot(table, slot);
                };
                case T_INTEGRITY_CHECK -> slot == 1
                        ? integrityCheck((int) word(w, 0), word(w, 1), word(w, 2), (int) word(w, 3), (int) word(w, 4))
                        : unknownSlot(table, slot);
                default -> unknownSlot(table, slot);
            };
        } catch (Throwable t) {
            try {
                System.err.println("[ZLUDA] internal error in export table " + tableName(table) + " slot " + slot + ", returning CUDA_ERROR_UNKNOWN: " + t);
                if (System.getenv("ZLUDA_DEBUG") != null) t.printStackTrace();
            } catch (Throwable ignored) {
                // nothing may escape into native code
            }
            return UNKNOWN;
        }
    }

    private static long word(MemorySegment w, int i) {
        return w.get(ValueLayout.JAVA_LONG, 8L * i);
    }

    private static String tableName(int table) {
        return table >= 0 && table < TABLE_NAMES.size() ? TABLE_NAMES.get(table) : "#" + table;
    }

    /** A slot without known meaning: one stderr line per slot, CUDA_ERROR_NOT_SUPPORTED. */
    int unknownSlot(int table, int slot) {
        if (reportedSlots.add(table + "/" + slot)) {
            System.err.println("[ZLUDA] export table " + tableName(table) + " slot " + slot + " is not supported yet: returning CUDA_ERROR_NOT_SUPPORTED");
        }
        return NOT_SUPPORTED;
    }

    // -------------------------------------------------------------------- CUDART_INTERFACE

    /**
     * CUDART_INTERFACE slot 1: loads the module of a fatbin wrapper (what cudart registered for one
     * translation unit) by handing the best PTX for the device to {@code cuModuleLoadData}.
     *
     * @param pmodule {@code CUmodule*} receiving the module
     * @param wrapper the fatbin wrapper (24 bytes, magic 0x466243B1)
     * @return what cuModuleLoadData returns; CUDA_ERROR_INVALID_VALUE for NULL arguments;
     *     CUDA_ERROR_INVALID_IMAGE for a malformed image; CUDA_ERROR_NO_BINARY_FOR_GPU when it has
     *     no PTX for the device or when it holds several fatbins (relocatable device code, which
     *     needs linking)
     */
    int cudartModuleFromWrapper(long pmodule, long wrapper) {
        if (pmodule == 0 || wrapper == 0) return INVALID_VALUE;
        return loadImage(pmodule, wrapper, "CUDART_INTERFACE slot 1");
    }

    /**
     * CUDART_INTERFACE slots 6 (wrapper) and 8 (fatbin header): slot 1 with three more arguments,
     * which are zero in practice; others are refused with CUDA_ERROR_NOT_SUPPORTED.
     */
    int cudartModuleExt(int slot, long pmodule, long image, long a3, long a4, int a5) {
        if (a3 != 0 || a4 != 0 || a5 != 0) {
            if (reportedSlots.add("args/" + slot)) {
                System.err.println("[ZLUDA] export table CUDART_INTERFACE slot " + slot + " with non-zero extra arguments (0x" + Long.toHexString(a3)
                        + ", 0x" + Long.toHexString(a4) + ", " + a5 + ") is not supported yet: returning CUDA_ERROR_NOT_SUPPORTED");
            }
            return NOT_SUPPORTED;
        }
        if (pmodule == 0 || image == 0) return INVALID_VALUE;
        return loadImage(pmodule, image, "CUDART_INTERFACE slot " + slot);
    }

    private volatile ModuleImageObserver moduleImages;

    /**
     * Sets who sees each module image loaded through the export tables (the trace layer's MODULE
     * records); null: nobody.
     */
    public void moduleImageObserver(ModuleImageObserver observer) {
        this.moduleImages = observer;
    }

    private int loadImage(long pmodule, long image, String via) {
        int r = loadImageText(pmodule, image, via);
        ModuleImageObserver o = moduleImages;
        if (o != null) {
            try {
                o.loaded(via, image, r == SUCCESS ? Native.getLong(pmodule) : 0);
            } catch (RuntimeException e) {
                if (System.getenv("ZLUDA_DEBUG") != null) e.printStackTrace();
            }
        }
        return r;
    }

    private int loadImageText(long pmodule, long image, String via) {
        int number = modules.nextModuleNumber(); // as the trace layer numbers this load's dump files
        MemorySegment text;
        int entry;
        try {
            ModuleImage img = ModuleImage.fromAddress(image);
            text = ptxFor(image, img);
            entry = img.entries().indexOf(img.ptxToRun(state.attributes.major(), state.attributes.minor())) + 1;
        } catch (ModuleImageException e) {
            System.err.println("[ZLUDA] " + via + ": cannot load the module image @0x" + Long.toHexString(image) + ": " + e.getMessage());
            return switch (e.reason()) {
                case MALFORMED -> INVALID_IMAGE;
                case NO_BINARY_FOR_DEVICE -> NO_BINARY_FOR_GPU;
                case UNSUPPORTED -> NOT_SUPPORTED;
            };
        }
        modules.nextImageName.set(ModuleArea.moduleFileName(number, entry));
        try {
            return moduleLoad.load(pmodule, text.address());
        } finally {
            modules.nextImageName.remove();
        }
    }

    /**
     * The PTX of a module image for this device, NUL-terminated in native memory that lives as long
     * as the process (one copy per image address and text).
     *
     * @param image a fatbin wrapper, fatbin header, or anything {@link ModuleImage#fromAddress} reads
     * @throws ModuleImageException when the image is malformed, has no PTX for the device, or holds
     *     several fatbins (relocatable device code, which needs linking)
     */
    MemorySegment ptxFor(long image) throws ModuleImageException {
        return ptxFor(image, ModuleImage.fromAddress(image));
    }

    private MemorySegment ptxFor(long image, ModuleImage img) throws ModuleImageException {
        if (img.fatbinCount() > 1) {
            throw new ModuleImageException("the image holds " + img.fatbinCount()
                    + " fatbins (relocatable device code, nvcc -rdc), which need linking: not supported yet", ModuleImageException.Reason.UNSUPPORTED);
        }
        byte[] ptx = img.ptxToRun(state.attributes.major(), state.attributes.minor()).content();
        return ptxTexts.compute(image, (k, old) -> old != null && sameText(old, ptx) ? old : nulTerminated(ptx));
    }

    private static MemorySegment nulTerminated(byte[] text) {
        MemorySegment s = Arena.global().allocate(text.length + 1L);
        MemorySegment.copy(text, 0, s, ValueLayout.JAVA_BYTE, 0, text.length);
        return s;
    }

    private static boolean sameText(MemorySegment kept, byte[] text) {
        return kept.byteSize() == text.length + 1L && MemorySegment.mismatch(kept, 0, text.length, MemorySegment.ofArray(text), 0, text.length) < 0;
    }

    /**
     * CUDART_INTERFACE slot 2: the device's primary context, created if needed but neither retained
     * nor made current (so cuDevicePrimaryCtxGetState still reports it inactive; ZLUDA's tests).
     *
     * @param pctx {@code CUcontext*} receiving the handle
     * @param dev the device ordinal
     * @return CUDA_SUCCESS, CUDA_ERROR_NOT_INITIALIZED, CUDA_ERROR_INVALID_DEVICE or CUDA_ERROR_INVALID_VALUE
     */
    int cudartPrimaryContext(long pctx, int dev) {
        int r = state.checkDevice(dev);
        if (r != SUCCESS) return r;
        if (pctx == 0) return INVALID_VALUE;
        putLong(pctx, contexts.primaryContext().handle);
        return SUCCESS;
    }

    // --------------------------------------------------------------- CONTEXT_LOCAL_STORAGE

    private Context clsContext(long ctx) {
        if (ctx == 0) return state.current();
        Context c = state.contexts.get(ctx);
        return c == null || c.destroyed ? null : c;
    }

    /**
     * CONTEXT_LOCAL_STORAGE slot 0: stores {@code value} under {@code key} in a context, replacing
     * an earlier value (whose destructor is then not called).
     *
     * @param ctx the context; 0 for the current one
     * @param key any pointer-sized key
     * @param value any pointer-sized value
     * @param destructor {@code void (*)(CUcontext, void *key, void *value)} called when the context
     *     is reset or destroyed, or 0
     * @return CUDA_SUCCESS, CUDA_ERROR_NOT_INITIALIZED or CUDA_ERROR_INVALID_CONTEXT
     */
    int clsPut(long ctx, long key, long value, long destructor) {
        if (!state.initialized) return NOT_INITIALIZED;
        Context c = clsContext(ctx);
        if (c == null) return INVALID_CONTEXT;
        Map<Long, ClsEntry> m = storage.computeIfAbsent(c, x -> new LinkedHashMap<>());
        synchronized (m) {
            m.put(key, new ClsEntry(value, destructor));
        }
        return SUCCESS;
    }

    /** CONTEXT_LOCAL_STORAGE slot 1: removes a key (no destructor call); absent keys are no error. Same results as {@link #clsPut}. */
    int clsDelete(long ctx, long key) {
        if (!state.initialized) return NOT_INITIALIZED;
        Context c = clsContext(ctx);
        if (c == null) return INVALID_CONTEXT;
        Map<Long, ClsEntry> m = storage.get(c);
        if (m != null) {
            synchronized (m) {
                m.remove(key);
            }
        }
        return SUCCESS;
    }

    /**
     * CONTEXT_LOCAL_STORAGE slot 2: reads a key.
     *
     * @param pvalue {@code void**} receiving the value
     * @return CUDA_SUCCESS; CUDA_ERROR_INVALID_HANDLE when the key is absent (cuda-facts.md);
     *     CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_NOT_INITIALIZED, CUDA_ERROR_INVALID_CONTEXT
     */
    int clsGet(long pvalue, long ctx, long key) {
        if (!state.initialized) return NOT_INITIALIZED;
        if (pvalue == 0) return INVALID_VALUE;
        Context c = clsContext(ctx);
        if (c == null) return INVALID_CONTEXT;
        Map<Long, ClsEntry> m = storage.get(c);
        ClsEntry e;
        if (m == null) return INVALID_HANDLE;
        synchronized (m) {
            e = m.get(key);
        }
        if (e == null) return INVALID_HANDLE;
        putLong(pvalue, e.value());
        return SUCCESS;
    }

    /** Runs the context-local-storage destructors of a context being reset or destroyed. */
    void release(Context c) {
        Map<Long, ClsEntry> m = storage.remove(c);
        if (m != null) {
            List<Map.Entry<Long, ClsEntry>> entries;
            synchronized (m) {
                entries = new ArrayList<>(m.entrySet());
            }
            for (Map.Entry<Long, ClsEntry> e : entries) {
                if (e.getValue().destructor() != 0) callDestructor(e.getValue().destructor(), c.handle, e.getKey(), e.getValue().value());
            }
        }
    }

    private static void callDestructor(long fn, long ctx, long key, long value) {
        try {
            MethodHandle h = destructorCall;
            if (h == null) {
                h = Linker.nativeLinker().downcallHandle(FunctionDescriptor.ofVoid(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
                destructorCall = h;
            }
            h.invokeExact(MemorySegment.ofAddress(fn), ctx, key, value);
        } catch (Throwable t) {
            System.err.println("[ZLUDA] context-local-storage destructor 0x" + Long.toHexString(fn) + " failed: " + t);
        }
    }

    // --------------------------------------------------------------------- INTEGRITY_CHECK

    /**
     * INTEGRITY_CHECK slot 1 ({@link IntegrityCheck}), computed over the addresses of this
     * driver's own tables and function.
     *
     * @param version the caller's version argument
     * @param unixSeconds the caller's time argument
     * @param out {@code u64[2]} receiving the answer
     * @param pid the process id (from C)
     * @param tid {@code pthread_self()} truncated to 32 bits (from C)
     * @return CUDA_SUCCESS or CUDA_ERROR_INVALID_VALUE (NULL out)
     */
    int integrityCheck(int version, long unixSeconds, long out, int pid, int tid) {
        if (out == 0) return INVALID_VALUE;
        long[] tb = tables();
        long cudart = tb.length > T_INTEGRITY_CHECK ? tb[T_CUDART_INTERFACE] : 0;
        long table = tb.length > T_INTEGRITY_CHECK ? tb[T_INTEGRITY_CHECK] : 0;
        long fn = table != 0 ? at(table, 16).get(ValueLayout.JAVA_LONG_UNALIGNED, 8) : 0;
        long[] r = IntegrityCheck.compute(version, unixSeconds, DeviceArea.DRIVER_VERSION, pid, tid, cudart, table, fn, devicesForIntegrity());
        putLong(out, r[0]);
        putLong(out + 8, r[1]);
        return SUCCESS;
    }

    /** Device 0 as the integrity check covers it: its UUID and PCI domain, bus and device ids. */
    List<IntegrityCheck.Device> devicesForIntegrity() {
        var a = state.attributes.byName();
        return List.of(new IntegrityCheck.Device(Arrays.copyOf(DeviceArea.DEVICE_UUID, 16), a.get("PCI_DOMAIN_ID"), a.get("PCI_BUS_ID"), a.get("PCI_DEVICE_ID")));
    }
}
