package dev.zluda.diff;

import dev.zluda.capture.Call;
import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureFormat;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.DataItem;
import dev.zluda.capture.Hashing;
import dev.zluda.spec.CudaApi;
import dev.zluda.spec.CudaFunction;
import dev.zluda.spec.CudaParam;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns the calls of one capture into facts (see {@link Facts}) with handles and device pointers
 * replaced by symbols local to this side: a value that an out-parameter of a {@code creates} call
 * returned becomes {@code kind#N} in order of creation (N counts per kind from 1); a handle seen
 * first elsewhere gets the next number of its kind when first seen; a device pointer inside an
 * allocation becomes the allocation's symbol plus an offset ({@code dptr#3+0x40}). A
 * {@code destroys} call that succeeded forgets the value, so an address reused later gets a new
 * symbol. {@code CUdevice} values (ordinals) are compared as they are.
 */
final class Normaliser {
    /** Inline data up to this size is kept in the fact store (4096: the zluda trace layer's inline limit). */
    static final int KEEP_MAX = 4096;
    /** At most this many bytes of data are kept per side; beyond, data is re-read when needed. */
    static final long KEEP_BUDGET = 256L << 20;

    private final Types types;
    private final Capture cap;
    private final Map<Integer, String> strings;
    private Plan[] plans = new Plan[64];
    private LongIntMap[] symbols = new LongIntMap[16];
    private int[] next = new int[16];
    private final TreeMap<Long, long[]> allocs = new TreeMap<>();
    final Facts.Writer w = new Facts.Writer();
    long keptBytes;
    /** Set by the caller while it normalises a call made inside a library call. */
    boolean insideLibrary;
    /** Whether the call just normalised (outside library calls) passed a module or library that a library loaded inside one of its calls. */
    boolean touchesLibraryObject;
    /** The CUmodule and CUlibrary symbols created inside library calls, as {@code kind << 32 | symbol}. */
    private final java.util.Set<Long> libraryObjects = new java.util.HashSet<>();
    private final int modKind, libKind;

    Normaliser(Types types, Capture cap, Map<Integer, String> strings) {
        this.types = types;
        this.cap = cap;
        this.strings = strings;
        this.modKind = types.kind("mod");
        this.libKind = types.kind("lib");
    }

    /** How one parameter is treated. */
    static final class Param {
        int index;
        String name;
        CudaParam spec;
        int argCls;
        int argKind;
        int argCat;
        /** The category of a NULL argument: 0 (a NULL where the other side passes a pointer differs), or the library's choice. */
        int nullCat;
        Types.Info data;
        boolean string;
        int inCat;
        int outCat;
        boolean creates;
        boolean destroys;
        /** A union whose member another argument selects ({@link Types#ARG_SELECTED}), else null. */
        Types.ArgSelected selected;
        /**
         * For an array of JIT option values ({@code optionValues}, {@code jitOptionsValues}): the index
         * of the parameter holding their {@code CUjit_option} keys, else -1.
         */
        int jitKeys = -1;
    }

    /** How one function is treated. */
    static final class Plan {
        CudaFunction f;
        String name;
        Param[] params;
        int bytesize = -1, pitch = -1, height = -1, sizeOut = -1;
        boolean anyCreates, anyDestroys;
        /** A cuBLASLt attribute call ({@code cublasLtMatmulDescSetAttribute}, ...): the attr and buf parameters, else -1. */
        int attr = -1, attrBuf = -1;
        /** The attribute enum's members whose value is a pointer ({@code CUBLASLT_MATMUL_DESC_BIAS_POINTER}, ...). */
        java.util.Set<Long> pointerAttrs = java.util.Set.of();
    }

    Plan plan(int fid) {
        if (fid < 0) {
            Plan p = new Plan();
            p.name = "?";
            p.params = new Param[0];
            return p;
        }
        if (fid >= plans.length) plans = Arrays.copyOf(plans, Math.max(fid + 1, plans.length * 2));
        Plan p = plans[fid];
        if (p == null) plans[fid] = p = makePlan(fid);
        return p;
    }

    private Plan makePlan(int fid) {
        Plan plan = new Plan();
        CudaFunction f = cap.specFunction(fid);
        plan.f = f;
        plan.name = cap.functionName(fid);
        int count = f != null ? f.params().size() : fid < cap.reader().functions().size() ? cap.reader().functions().get(fid).paramCount() : 0;
        plan.params = new Param[count];
        String base = f != null ? f.baseName() : CudaApi.baseName(plan.name);
        for (int i = 0; i < count; i++) {
            Param pp = new Param();
            pp.index = i;
            plan.params[i] = pp;
            if (f == null) {
                pp.name = "arg" + i;
                pp.argCls = Types.PLAIN;
                pp.argCat = Expected.UNTYPED.ordinal() + 1;
                pp.outCat = cat(Expected.classify(base, pp.name, true));
                continue;
            }
            CudaParam p = f.params().get(i);
            pp.spec = p;
            pp.name = p.name();
            switch (p.format()) {
                case HANDLE -> {
                    String t = Types.strip(p.cType());
                    if (Types.isDevice(t)) pp.argCls = Types.DEVICE;
                    else {
                        pp.argCls = Types.HANDLE;
                        pp.argKind = types.info(t).cls() == Types.HANDLE ? types.info(t).kind() : types.kind(Types.kindNameOf(t));
                    }
                }
                case DEVICE_POINTER -> { pp.argCls = Types.DEVPTR; pp.argKind = types.dptrKind; }
                case FUNCTION_POINTER, POINTER, STRING -> { pp.argCls = Types.ADDR; pp.argCat = cat(Expected.ADDRESS); }
                default -> pp.argCls = Types.PLAIN;
            }
            if (pp.argCls == Types.PLAIN) pp.argCat = cat(Expected.classify(base, p.name(), false));
            else if (Expected.classify(base, p.name(), false) == Expected.LIBRARY_CHOICE) {
                // a pointer can be a library's choice too: cublasLtMatmul's workspace, NULL where the
                // heuristic asked for none
                pp.argCat = pp.nullCat = cat(Expected.LIBRARY_CHOICE);
            }
            if (p.isPointer()) {
                pp.string = p.string();
                pp.data = p.opaque() || p.pointeeType() == null ? null : types.info(p.pointeeType());
            }
            pp.inCat = cat(Expected.classify(base, p.name(), false));
            pp.outCat = cat(Expected.classify(base, p.name(), true));
            Types.ArgSelected sel = Types.ARG_SELECTED.get(base);
            if (sel != null && sel.param() == i) pp.selected = sel;
            pp.creates = f.creates().contains(p.name());
            pp.destroys = f.destroys().contains(p.name());
            plan.anyCreates |= pp.creates;
            plan.anyDestroys |= pp.destroys;
            String keys = switch (p.name()) {
                case "optionValues" -> "options";
                case "jitOptionsValues" -> "jitOptions";
                default -> null;
            };
            if (keys != null) {
                for (int k = 0; k < f.params().size(); k++) if (f.params().get(k).name().equals(keys)) pp.jitKeys = k;
            }
            switch (p.name()) {
                case "bytesize" -> plan.bytesize = i;
                case "pPitch" -> plan.pitch = i;
                case "Height" -> plan.height = i;
                case "bytes", "psize" -> { if (p.isPointer()) plan.sizeOut = i; }
                default -> { }
            }
        }
        // cuBLASLt's descriptor attributes: the bytes behind buf of a *_POINTER attribute are a device
        // pointer (the bias, the scales), compared as one, like a cuMemAlloc'd pointer argument
        if (f != null && f.library().equals("cublasLt") && plan.name.matches("cublasLt\\w*(Set|Get)Attribute")) {
            for (CudaParam p : f.params()) {
                if (p.name().equals("attr")) plan.attr = p.index();
                if (p.name().equals("buf")) plan.attrBuf = p.index();
            }
            if (plan.attr >= 0) {
                java.util.Set<Long> ptrs = new java.util.HashSet<>();
                CudaApi.library("cublasLt").enumType(f.params().get(plan.attr).cType()).ifPresent(en -> {
                    for (var m : en.members()) if (m.name().endsWith("_POINTER")) ptrs.add(m.value());
                });
                plan.pointerAttrs = ptrs;
            }
        }
        return plan;
    }

    private static int cat(Expected e) {
        return e == null ? 0 : e.ordinal() + 1;
    }

    /** CUjit_option values whose value is a pointer (cuda.h): the log buffers, the symbol and name arrays. */
    static boolean jitPointerOption(int opt) {
        return switch (opt) {
            case 3, 5, 17, 18, 25, 27 -> true; // INFO_LOG_BUFFER, ERROR_LOG_BUFFER, GLOBAL_SYMBOL_NAMES/_ADDRESSES, REFERENCED_KERNEL/VARIABLE_NAMES
            default -> false;
        };
    }

    /** CU_JIT_WALL_TIME: a float (milliseconds) the driver writes. */
    static final int JIT_WALL_TIME = 2;

    /** The CUjit_option keys of the call being normalised, by parameter index of their values (null: none). */
    private int[][] jitKeys;

    /** Normalises one call into {@link #w}. */
    void call(Call c, long seed) {
        CaptureRecord.Enter e = c.enter();
        CaptureRecord.Leave l = c.leave();
        Plan plan = plan(e.functionId());
        long[] args = e.args();
        w.begin(seed);
        touchesLibraryObject = false;
        jitKeys = null;
        for (Param pp : plan.params) {
            if (pp.jitKeys < 0) continue;
            DataItem k = item(e.data(), pp.jitKeys);
            if (k == null || k.kind() != CaptureFormat.ITEM_INLINE) continue;
            byte[] b = k.bytes();
            int[] keys = new int[b.length / 4];
            for (int j = 0; j < keys.length; j++) keys[j] = (int) le(b, 4 * j, 4);
            if (jitKeys == null) jitKeys = new int[plan.params.length][];
            jitKeys[pp.index] = keys;
        }
        int n = Math.min(args.length, plan.params.length);
        currentPlanBuf = plan.attrBuf;
        pointerAttr = plan.attr >= 0 && plan.attr < args.length && plan.pointerAttrs.contains(args[plan.attr] & 0xFFFFFFFFL) ? args[plan.attr] : -1;
        currentArgs = args;
        for (int i = 0; i < n; i++) {
            Param pp = plan.params[i];
            arg(pp, args[i]);
            DataItem d = item(e.data(), i);
            // what an out-parameter pointed to before the call is not the program's input (captures made before the
            // spec said out hold it: an uninitialised variable)
            if (d != null && (pp.spec == null || pp.spec.direction() != dev.zluda.spec.Direction.OUT)) data(pp, d, Facts.IN, false, 0);
        }
        if (l == null) return;
        long createSize = plan.anyCreates ? createSize(plan, args, l.data()) : 0;
        for (int i = 0; i < n; i++) {
            DataItem d = item(l.data(), i);
            if (d != null) data(plan.params[i], d, Facts.OUT, plan.params[i].creates, plan.params[i].creates ? createSize : regionSize(plan, l.data()));
        }
        if (plan.anyDestroys && l.result() == 0) {
            for (int i = 0; i < n; i++) {
                Param pp = plan.params[i];
                if (!pp.destroys || args[i] == 0) continue;
                if (pp.argCls == Types.HANDLE) symbols(pp.argKind).remove(args[i]);
                else if (pp.argCls == Types.DEVPTR) allocs.remove(args[i]);
            }
        }
    }

    private static DataItem item(List<DataItem> items, int param) {
        for (int i = 0; i < items.size(); i++) if (items.get(i).param() == param) return items.get(i);
        return null;
    }

    private long createSize(Plan plan, long[] args, List<DataItem> out) {
        if (plan.bytesize >= 0 && plan.bytesize < args.length) return args[plan.bytesize];
        if (plan.pitch >= 0 && plan.height >= 0) {
            DataItem d = item(out, plan.pitch);
            if (d != null && d.isInline() && d.bytes().length >= 4) return le(d.bytes(), 0, Math.min(8, d.bytes().length)) * args[plan.height];
        }
        return 0;
    }

    private long regionSize(Plan plan, List<DataItem> out) {
        if (plan.sizeOut < 0) return 0;
        DataItem d = item(out, plan.sizeOut);
        return d != null && d.isInline() && d.bytes().length >= 4 ? le(d.bytes(), 0, Math.min(8, d.bytes().length)) : 0;
    }

    private void arg(Param pp, long v) {
        int i = pp.index;
        switch (pp.argCls) {
            case Types.HANDLE -> {
                if (v == 0) w.nul(i, Facts.ARG, 0, 0, 0);
                else {
                    int sym = lookup(pp.argKind, v);
                    if (!insideLibrary && !libraryObjects.isEmpty() && libraryObjects.contains(((long) pp.argKind << 32) | sym)) touchesLibraryObject = true;
                    w.sym(i, Facts.ARG, 0, 0, 0, pp.argKind, sym, 0);
                }
            }
            case Types.DEVPTR -> {
                if (v == 0) w.nul(i, Facts.ARG, 0, 0, pp.nullCat);
                else dptr(i, Facts.ARG, 0, 0, pp.argCat, v, false, 0);
            }
            case Types.ADDR -> {
                if (v == 0) w.nul(i, Facts.ARG, 0, 0, pp.nullCat);
                else w.addr(i, Facts.ARG, 0, 0, pp.argCat, v);
            }
            default -> w.value(i, Facts.ARG, 0, 0, pp.argCat, v);
        }
    }

    /** The attribute value of the call being normalised when it is a cuBLASLt *_POINTER attribute, else -1. */
    private long pointerAttr = -1;
    private int currentPlanBuf = -1;

    private void data(Param pp, DataItem d, int role, boolean creates, long size) {
        int i = pp.index;
        int cat = role == Facts.OUT ? pp.outCat : pp.inCat;
        if (pointerAttr >= 0 && i == currentPlanBuf && d.isInline() && d.bytes().length == 8) {
            element(i, role, 0, 0, cat, types.info("CUdeviceptr"), d.bytes(), 0, false, 0);
            return;
        }
        switch (d.kind()) {
            case CaptureFormat.ITEM_STRING -> {
                String s = strings.get(d.stringId());
                byte[] b = (s == null ? "<string #" + d.stringId() + ">" : s).getBytes(StandardCharsets.UTF_8);
                w.string(i, role, 0, 0, cat, b, 0, b.length);
            }
            case CaptureFormat.ITEM_UNREADABLE -> w.unreadable(i, role, 0, 0, cat);
            case CaptureFormat.ITEM_BLOB, CaptureFormat.ITEM_HASH_ONLY -> w.data(i, role, 0, 0, cat, d.kind(), d.hash(), d.size(), null, 0, 0);
            case CaptureFormat.ITEM_TRUNCATED -> {
                byte[] b = d.bytes();
                boolean keep = keep(b.length);
                w.data(i, role, 0, 0, cat, d.kind(), Hashing.xxh64(b), d.size(), b, 0, keep ? b.length : 0);
            }
            default -> inline(pp, d.bytes(), role, cat, creates, size);
        }
    }

    private boolean keep(int n) {
        if (n > KEEP_MAX || keptBytes + n > KEEP_BUDGET) return false;
        keptBytes += n;
        return true;
    }

    /** The arguments of the call being normalised. */
    private long[] currentArgs;

    private void inline(Param pp, byte[] b, int role, int cat, boolean creates, long size) {
        int i = pp.index;
        if (pp.selected != null && currentArgs != null && pp.selected.selector() < currentArgs.length) {
            // a union another argument selects: the selected member only
            String m = pp.selected.members().get(currentArgs[pp.selected.selector()] & 0xFFFF_FFFFL);
            Types.Info t = m == null ? null : types.member(pp.selected.union(), m).orElse(null);
            if (t != null && t.size() > 0 && b.length >= t.size()) {
                element(i, role, 0, 0, cat, t, b, 0, creates, size);
                return;
            }
        }
        if (pp.string) {
            int n = 0;
            while (n < b.length && b[n] != 0) n++;
            w.string(i, role, 0, 0, cat, b, 0, n);
            return;
        }
        if (jitKeys != null && jitKeys[i] != null && b.length % 8 == 0) {
            jitValues(i, jitKeys[i], b, role, cat);
            return;
        }
        Types.Info t = pp.data;
        if (t != null && t.cls() != Types.PLAIN && t.size() > 0 && b.length % t.size() == 0 && b.length / t.size() <= 4096) {
            int count = b.length / t.size();
            for (int k = 0; k < count; k++) element(i, role, k, 0, cat, t, b, k * t.size(), creates, size);
            return;
        }
        w.data(i, role, 0, 0, cat, CaptureFormat.ITEM_INLINE, Hashing.xxh64(b), b.length, b, 0, keep(b.length) ? b.length : 0);
    }

    private void element(int i, int role, int elem, int field, int cat, Types.Info t, byte[] b, int off, boolean creates, long size) {
        switch (t.cls()) {
            case Types.HANDLE -> {
                long v = le(b, off, t.size());
                if (v == 0) w.nul(i, role, elem, field, cat);
                else w.sym(i, role, elem, field, cat, t.kind(), creates ? create(t.kind(), v) : lookup(t.kind(), v), 0);
            }
            case Types.DEVPTR -> {
                long v = le(b, off, t.size());
                if (v == 0) w.nul(i, role, elem, field, cat);
                else dptr(i, role, elem, field, cat, v, creates, size);
            }
            case Types.ADDR -> {
                long v = le(b, off, 8);
                if (v == 0) w.nul(i, role, elem, field, cat);
                else w.addr(i, role, elem, field, cat != 0 ? cat : Expected.ADDRESS.ordinal() + 1, v);
            }
            case Types.DEVICE -> w.value(i, role, elem, field, cat, le(b, off, t.size()));
            case Types.RECORD -> {
                List<Types.Field> fs = t.fields();
                for (int j = 0; j < fs.size(); j++) {
                    Types.Field f = fs.get(j);
                    if (off + f.offset() + f.size() > b.length) break;
                    if (f.when() >= 0) {
                        // a union member another field selects: compared only when it is the one in use
                        Types.Field sel = fs.get(f.when());
                        if (le(b, off + sel.offset(), sel.size()) != f.whenValue()) continue;
                    }
                    if (f.bytes() || f.type().cls() == Types.PLAIN) {
                        if (!f.bytes() && f.size() <= 8) w.value(i, role, elem, j + 1, cat, le(b, off + f.offset(), f.size()));
                        else w.data(i, role, elem, j + 1, cat, CaptureFormat.ITEM_INLINE, Hashing.xxh64(b, off + f.offset(), f.size()), f.size(),
                                b, off + f.offset(), f.size());
                    } else {
                        element(i, role, elem, j + 1, cat, f.type(), b, off + f.offset(), false, 0);
                    }
                }
            }
            default -> {
                if (t.size() > 0 && t.size() <= 8) w.value(i, role, elem, field, cat, le(b, off, t.size()));
                else w.data(i, role, elem, field, cat, CaptureFormat.ITEM_INLINE, Hashing.xxh64(b, off, Math.max(0, t.size())), t.size(), b, off, Math.max(0, t.size()));
            }
        }
    }

    /**
     * An array of JIT option values ({@code void *[]}) read by its keys (CUDA Driver API, CUjit_option):
     * the log buffers and name/symbol arrays are host addresses; CU_JIT_WALL_TIME is a timing; every
     * other option's value is a number (the *_LOG_BUFFER_SIZE_BYTES the driver writes back, register
     * and thread counts, levels, flags), read as the {@code unsigned int} the driver reads, and compared.
     */
    private void jitValues(int i, int[] keys, byte[] b, int role, int cat) {
        for (int k = 0; k < b.length / 8; k++) {
            long v = le(b, 8 * k, 8);
            int opt = k < keys.length ? keys[k] : -1;
            if (opt < 0 || jitPointerOption(opt)) {
                if (v == 0) w.nul(i, role, k, 0, cat);
                else w.addr(i, role, k, 0, cat != 0 ? cat : Expected.ADDRESS.ordinal() + 1, v);
            } else if (opt == JIT_WALL_TIME) {
                w.value(i, role, k, 0, Expected.TIMING.ordinal() + 1, v & 0xFFFF_FFFFL);
            } else {
                w.value(i, role, k, 0, cat, v & 0xFFFF_FFFFL);
            }
        }
    }

    private void dptr(int i, int role, int elem, int field, int cat, long v, boolean creates, long size) {
        int kind = types.dptrKind;
        if (creates) {
            int s = ++next(kind)[kind];
            allocs.put(v, new long[] {s, size});
            w.sym(i, role, elem, field, cat, kind, s, 0);
            return;
        }
        var e = allocs.floorEntry(v);
        if (e != null) {
            long base = e.getKey(), sz = e.getValue()[1];
            long off = v - base;
            if (off == 0 || Long.compareUnsigned(off, sz) < 0) {
                w.sym(i, role, elem, field, cat, kind, (int) e.getValue()[0], off);
                return;
            }
        }
        int s = ++next(kind)[kind];
        allocs.put(v, new long[] {s, size});
        w.sym(i, role, elem, field, cat, kind, s, 0);
    }

    /**
     * The symbol a device address has now ({@code dptr#3}, {@code dptr#3+0x40}) without creating one,
     * or null when it lies in no allocation seen so far.
     */
    String dptrName(long v) {
        var e = allocs.floorEntry(v);
        if (e == null) return null;
        long off = v - e.getKey();
        if (off != 0 && Long.compareUnsigned(off, e.getValue()[1]) >= 0) return null;
        return "dptr#" + e.getValue()[0] + (off == 0 ? "" : "+0x" + Long.toHexString(off));
    }

    /**
     * The symbol a texture or surface object has now ({@code tex#2}, {@code surf#1}) without creating one,
     * or null when no live {@code cuTexObjectCreate}/{@code cuSurfObjectCreate} returned this value. Kernels
     * receive these objects as 64-bit parameters (CUtexObject, CUsurfObject: opaque handles whose values a
     * driver chooses; NVIDIA's reuses a destroyed object's number, zluda's does not).
     */
    String objectName(long v) {
        if (v == 0) return null;
        for (String k : new String[] {"tex", "surf"}) {
            int s = symbols(types.kind(k)).get(v, 0);
            if (s != 0) return k + "#" + s;
        }
        return null;
    }

    private int[] next(int kind) {
        if (kind >= next.length) next = Arrays.copyOf(next, Math.max(kind + 1, next.length * 2));
        return next;
    }

    private LongIntMap symbols(int kind) {
        if (kind >= symbols.length) symbols = Arrays.copyOf(symbols, Math.max(kind + 1, symbols.length * 2));
        LongIntMap m = symbols[kind];
        if (m == null) symbols[kind] = m = new LongIntMap(64);
        return m;
    }

    private int lookup(int kind, long v) {
        LongIntMap m = symbols(kind);
        int s = m.get(v, 0);
        if (s == 0) {
            s = ++next(kind)[kind];
            m.put(v, s);
        }
        return s;
    }

    private int create(int kind, long v) {
        int s = ++next(kind)[kind];
        symbols(kind).put(v, s);
        if (insideLibrary && (kind == modKind || kind == libKind)) libraryObjects.add(((long) kind << 32) | s);
        return s;
    }

    static long le(byte[] b, int off, int n) {
        long v = 0;
        for (int k = Math.min(n, 8) - 1; k >= 0; k--) v = (v << 8) | (b[off + k] & 0xFF);
        return v;
    }
}
