package dev.zluda.capture.convert;

import dev.zluda.capture.Call;
import dev.zluda.capture.CallAssembler;
import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureFormat;
import dev.zluda.capture.CaptureHeader;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.DataItem;
import dev.zluda.capture.ReadStatus;
import dev.zluda.capture.text.CallFormatter;
import dev.zluda.spec.CudaApi;
import dev.zluda.spec.CudaFunction;
import dev.zluda.spec.CudaParam;
import dev.zluda.spec.CudaRecord;
import dev.zluda.spec.Role;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Types;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.BINARY;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.BOOLEAN;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT32;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT64;

/**
 * {@code zluda convert CAPTURE --to parquet DIR}: the capture as five Parquet tables in {@code DIR},
 * for DuckDB, pandas/pyarrow, Spark and the like. Written in one streaming pass (memory does not
 * grow with the capture), ZSTD-compressed, without Hadoop on the class path.
 *
 * <ul>
 * <li>{@value #CALLS}: one row per call, in the order {@link CallAssembler} completes them (a
 * top-level call and then the calls nested in it; sort by {@code seq} for entry order):
 * {@code call} (1-based ordinal in order of entry), {@code seq} (the ENTER's sequence number),
 * {@code leave_seq}, {@code thread}, {@code depth}, {@code parent_seq} (ENTER seq of the enclosing
 * call, null at depth 0), {@code function_id} (capture function table), {@code function},
 * {@code start_ns} (ns since the capture began: ENTER time − the header's start), {@code duration_ns},
 * {@code result} (the CUresult; a library call's status), {@code result_name} (by the status enum of the
 * function's API: {@code CUBLAS_STATUS_SUCCESS} for a cuBLAS call; empty for a library function that
 * returns a value), {@code in_flight} (the capture ends before the call returned; then leave_seq,
 * duration_ns, result and result_name are null), {@code api} ({@code cuda} for the driver, else the
 * library: {@code cublas}, {@code cublasLt}, {@code cufft}, {@code cusparse}, {@code cudnn}, {@code nvml});</li>
 * <li>{@value #ARGUMENTS}: one row per argument of every call: {@code call_seq} (= calls.seq),
 * {@code param} (index in the C signature), {@code name}, {@code value} (the raw bits, unsigned
 * 64-bit), {@code text} (rendered as {@code zluda dump} shows it after the call: the recorded data
 * behind a pointer where there is some);</li>
 * <li>{@value #BLOBS}: {@code seq, thread, hash} (16 hex digits), {@code size} (uncompressed),
 * {@code compression} (0 none, 1 LZ4, 2 zstd), {@code compression_name}, {@code stored_size};</li>
 * <li>{@value #MODULES}: {@code seq, thread, library, index} (the {@code module_NNNN_NN} numbers),
 * {@code kind} (1 PTX, 2 ELF, 3 fatbin, 4 other), {@code kind_name}, {@code image_hash} (hex, null when
 * the image was not kept), {@code size, handle, file_name};</li>
 * <li>{@value #KERNEL_LAUNCHES}: one row per {@code cuLaunchKernel*} / {@code cuLaunchCooperativeKernel*}
 * call, from its arguments ({@code cuLaunchKernelEx}: from the recorded {@code CUlaunchConfig}):
 * {@code call_seq, thread, function, kernel} (the CUfunction handle), {@code kernel_name} (from the
 * capture's {@code cuModuleGetFunction}/{@code cuLibraryGetKernel}/{@code cuKernelGetFunction} calls or
 * kernel snapshots; null when unknown), {@code grid_x..z, block_x..z, shared_mem_bytes, stream},
 * {@code start_ns, duration_ns, result}.</li>
 * </ul>
 * Handles and raw values are Parquet INT64 annotated unsigned (DuckDB: UBIGINT). Every file's
 * footer carries {@code zluda.*} key-value metadata: the capture, its header start times and pid,
 * and whether reading ended cleanly.
 */
public final class ParquetConverter {
    private ParquetConverter() {}

    public static final String CALLS = "calls.parquet";
    public static final String ARGUMENTS = "arguments.parquet";
    public static final String BLOBS = "blobs.parquet";
    public static final String MODULES = "modules.parquet";
    public static final String KERNEL_LAUNCHES = "kernel_launches.parquet";
    /** The files written, in this order. */
    public static final List<String> TABLES = List.of(CALLS, ARGUMENTS, BLOBS, MODULES, KERNEL_LAUNCHES);

    /** zstd level of the pages (zstd's default). */
    static final int ZSTD_LEVEL = 3;

    private static final LogicalTypeAnnotation STRING = LogicalTypeAnnotation.stringType();
    private static final LogicalTypeAnnotation U64 = LogicalTypeAnnotation.intType(64, false);

    static final MessageType CALLS_SCHEMA = Types.buildMessage()
            .required(INT64).named("call")
            .required(INT64).named("seq")
            .optional(INT64).named("leave_seq")
            .required(INT64).named("thread")
            .required(INT32).named("depth")
            .optional(INT64).named("parent_seq")
            .required(INT32).named("function_id")
            .required(BINARY).as(STRING).named("function")
            .required(INT64).named("start_ns")
            .optional(INT64).named("duration_ns")
            .optional(INT64).named("result")
            .optional(BINARY).as(STRING).named("result_name")
            .required(BOOLEAN).named("in_flight")
            .required(BINARY).as(STRING).named("api")
            .named("call");

    static final MessageType ARGUMENTS_SCHEMA = Types.buildMessage()
            .required(INT64).named("call_seq")
            .required(INT32).named("param")
            .required(BINARY).as(STRING).named("name")
            .required(INT64).as(U64).named("value")
            .required(BINARY).as(STRING).named("text")
            .named("argument");

    static final MessageType BLOBS_SCHEMA = Types.buildMessage()
            .required(INT64).named("seq")
            .required(INT64).named("thread")
            .required(BINARY).as(STRING).named("hash")
            .required(INT64).named("size")
            .required(INT32).named("compression")
            .required(BINARY).as(STRING).named("compression_name")
            .required(INT64).named("stored_size")
            .named("blob");

    static final MessageType MODULES_SCHEMA = Types.buildMessage()
            .required(INT64).named("seq")
            .required(INT64).named("thread")
            .required(INT32).named("library")
            .required(INT32).named("index")
            .required(INT32).named("kind")
            .required(BINARY).as(STRING).named("kind_name")
            .optional(BINARY).as(STRING).named("image_hash")
            .required(INT64).named("size")
            .required(INT64).as(U64).named("handle")
            .optional(BINARY).as(STRING).named("file_name")
            .named("module");

    static final MessageType LAUNCHES_SCHEMA = Types.buildMessage()
            .required(INT64).named("call_seq")
            .required(INT64).named("thread")
            .required(BINARY).as(STRING).named("function")
            .required(INT64).as(U64).named("kernel")
            .optional(BINARY).as(STRING).named("kernel_name")
            .optional(INT64).named("grid_x")
            .optional(INT64).named("grid_y")
            .optional(INT64).named("grid_z")
            .optional(INT64).named("block_x")
            .optional(INT64).named("block_y")
            .optional(INT64).named("block_z")
            .optional(INT64).named("shared_mem_bytes")
            .optional(INT64).as(U64).named("stream")
            .required(INT64).named("start_ns")
            .optional(INT64).named("duration_ns")
            .optional(INT64).named("result")
            .named("kernel_launch");

    /** What was written: how reading ended and the rows of each table. */
    public record Result(ReadStatus status, long calls, long arguments, long blobs, long modules, long kernelLaunches) {}

    /**
     * Writes the tables into directory {@code dir} (created when missing; the five files are
     * replaced). On an I/O error the files written so far are deleted.
     */
    public static Result write(Capture cap, Path dir) throws IOException {
        if (Files.exists(dir) && !Files.isDirectory(dir)) throw new IOException(dir + " exists and is not a directory (parquet output is a directory of tables)");
        Files.createDirectories(dir);
        Writer w = new Writer(cap, dir);
        boolean ok = false;
        try {
            w.run();
            ok = true;
        } finally {
            w.close(ok);
        }
        return w.result;
    }

    private static final class Writer {
        private final Capture cap;
        private final Path dir;
        private final long start;
        private final ParquetTable calls, args, blobs, modules, launches;
        private final List<ParquetTable> all = new ArrayList<>();
        private CallAssembler asm;
        private CallFormatter fmt;
        private Fn[] fns;
        private final Map<Integer, Binary> results = new HashMap<>();
        private final Map<Long, String> kernelNames = new HashMap<>();
        private final TextCache cache = new TextCache();
        private final LaunchConfigLayout configLayout = LaunchConfigLayout.of(CudaApi.get());
        Result result;

        Writer(Capture cap, Path dir) throws IOException {
            this.cap = cap;
            this.dir = dir;
            this.start = cap.reader().header().startMonotonicNs();
            try {
                calls = open(CALLS, CALLS_SCHEMA);
                args = open(ARGUMENTS, ARGUMENTS_SCHEMA);
                blobs = open(BLOBS, BLOBS_SCHEMA);
                modules = open(MODULES, MODULES_SCHEMA);
                launches = open(KERNEL_LAUNCHES, LAUNCHES_SCHEMA);
            } catch (IOException | RuntimeException e) {
                close(false);
                throw e;
            }
        }

        private ParquetTable open(String name, MessageType schema) throws IOException {
            ParquetTable t = new ParquetTable(dir.resolve(name), schema, ZSTD_LEVEL);
            all.add(t);
            return t;
        }

        void run() throws IOException {
            fns = new Fn[cap.reader().functions().size()];
            asm = new CallAssembler(new CallAssembler.Listener() {
                @Override
                public void call(Call c) {
                    try {
                        tree(c, -1);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }

                @Override
                public void record(CaptureRecord r) {
                    try {
                        other(r);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            });
            fmt = new CallFormatter(cap::specFunction, cap::functionName, asm.strings());
            try {
                for (CaptureRecord r : cap.reader()) asm.accept(r);
                asm.finish();
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
            ReadStatus st = cap.reader().status();
            Map<String, String> meta = meta(st);
            for (ParquetTable t : all) t.finish(meta);
            result = new Result(st, calls.rows(), args.rows(), blobs.rows(), modules.rows(), launches.rows());
        }

        private Map<String, String> meta(ReadStatus st) {
            CaptureHeader h = cap.reader().header();
            Map<String, String> m = new LinkedHashMap<>();
            m.put("zluda.capture", cap.source().toString());
            m.put("zluda.capture.start_realtime_ns", Long.toString(h.startRealtimeNs()));
            m.put("zluda.capture.start_monotonic_ns", Long.toString(h.startMonotonicNs()));
            m.put("zluda.capture.pid", Integer.toString(h.pid()));
            m.put("zluda.capture.ended_cleanly", Boolean.toString(st.endedCleanly()));
            if (st.stoppedEarly()) m.put("zluda.capture.stopped", st.summary());
            m.put("zluda.records", Long.toString(st.records()));
            return m;
        }

        void close(boolean ok) throws IOException {
            IOException first = null;
            for (ParquetTable t : all) {
                try {
                    t.close();
                } catch (IOException e) {
                    if (first == null) first = e;
                }
            }
            if (!ok) {
                for (String n : TABLES) Files.deleteIfExists(dir.resolve(n));
            }
            if (first != null && ok) throw first;
        }

        /** Per capture function id: names and what the function is to the tables. */
        private Fn fn(int id) {
            if (id >= 0 && id < fns.length && fns[id] != null) return fns[id];
            Fn f = new Fn(id, cap.functionName(id), cap.specFunction(id), configLayout);
            if (id >= 0 && id < fns.length) fns[id] = f;
            return f;
        }

        private Binary resultName(int r) {
            Binary b = results.get(r);
            if (b == null) results.put(r, b = bin(fmt.result(r)));
            return b;
        }

        /** Writes {@code root} and the calls nested in it (iteratively: any depth). */
        private void tree(Call root, long unused) throws IOException {
            Call.walk(root, (c, level, parent) -> one(c, parent == null ? -1 : parent.enter().seq()));
        }

        /** Writes {@code c}; {@code parentSeq} is -1 for a root. */
        private void one(Call c, long parentSeq) throws IOException {
            CaptureRecord.Enter e = c.enter();
            CaptureRecord.Leave l = c.leave();
            Fn f = fn(e.functionId());
            int k = 0;
            calls.put(k++, c.ordinal());
            calls.put(k++, e.seq());
            if (l != null) calls.put(k++, l.seq());
            else calls.putNull(k++);
            calls.put(k++, e.threadId());
            calls.put(k++, e.depth());
            if (parentSeq >= 0) calls.put(k++, parentSeq);
            else calls.putNull(k++);
            calls.put(k++, e.functionId());
            calls.put(k++, f.name);
            calls.put(k++, e.ts() - start);
            if (l != null) {
                calls.put(k++, l.ts() - e.ts());
                calls.put(k++, Integer.toUnsignedLong(l.result()));
                calls.put(k++, f.spec != null && !f.spec.library().equals(CudaApi.DRIVER) ? bin(fmt.returnsValue(f.spec) ? "" : fmt.result(f.spec, l.result()))
                        : resultName(l.result()));
            } else {
                calls.putNull(k++);
                calls.putNull(k++);
                calls.putNull(k++);
            }
            calls.put(k++, l == null);
            calls.put(k, bin(CudaApi.libraryOf(f.name.toStringUsingUTF8())));
            calls.endRow();

            long[] a = e.args();
            List<DataItem> in = e.data(), out = l == null ? List.of() : l.data();
            for (int i = 0; i < a.length; i++) {
                DataItem d = item(out, i);
                boolean notWritten = l != null && CallFormatter.notWritten(f.param(i), a[i], d, l.result());
                if (d == null) d = item(in, i);
                args.put(0, e.seq());
                args.put(1, i);
                args.put(2, f.paramName(i));
                args.put(3, a[i]);
                args.put(4, notWritten ? bin(CallFormatter.NOT_WRITTEN) : cache.text(f, i, a[i], d, fmt));
                args.endRow();
            }

            if (f.launch != Fn.NOT_LAUNCH) launch(c, f);
            else if (f.namer != Fn.NOT_NAMER && l != null && l.result() == 0) name(c, f);

        }

        private void launch(Call c, Fn f) throws IOException {
            CaptureRecord.Enter e = c.enter();
            CaptureRecord.Leave l = c.leave();
            long[] a = e.args();
            long kernel = f.fParam >= 0 && f.fParam < a.length ? a[f.fParam] : 0;
            long[] dims = new long[8]; // grid xyz, block xyz, shared, stream
            boolean known;
            if (f.launch == Fn.LAUNCH_ARGS) {
                known = true;
                for (int i = 0; i < 8; i++) {
                    int p = f.dimParams[i];
                    if (p < 0 || p >= a.length) known = false;
                    else dims[i] = i < 7 ? a[p] & 0xFFFF_FFFFL : a[p];
                }
            } else {
                DataItem cfg = item(e.data(), f.configParam);
                known = cfg != null && cfg.isInline() && configLayout != null && configLayout.read(cfg.bytes(), dims);
            }
            int k = 0;
            launches.put(k++, e.seq());
            launches.put(k++, e.threadId());
            launches.put(k++, f.name);
            launches.put(k++, kernel);
            String kn = kernelNames.get(kernel);
            launches.put(k++, kn == null ? null : bin(kn));
            for (int i = 0; i < 8; i++) {
                if (known) launches.put(k++, dims[i]);
                else launches.putNull(k++);
            }
            launches.put(k++, e.ts() - start);
            if (l != null) {
                launches.put(k++, l.ts() - e.ts());
                launches.put(k, Integer.toUnsignedLong(l.result()));
            } else {
                launches.putNull(k++);
                launches.putNull(k);
            }
            launches.endRow();
        }

        /** cuModuleGetFunction and friends: remembers handle → kernel name for the launches table. */
        private void name(Call c, Fn f) {
            DataItem h = item(c.leave().data(), 0);
            if (h == null || !h.isInline() || h.bytes().length < 8) return;
            long handle = le64(h.bytes());
            String n = null;
            if (f.namer == Fn.NAMER_STRING) {
                DataItem s = item(c.enter().data(), 2);
                if (s != null && s.kind() == CaptureFormat.ITEM_STRING) n = asm.strings().get(s.stringId());
                else if (s != null && s.isInline()) n = cString(s.bytes());
            } else if (c.enter().args().length > 1) { // cuKernelGetFunction(pFunc, kernel)
                n = kernelNames.get(c.enter().args()[1]);
            }
            if (n != null) kernelNames.put(handle, n);
        }

        private void other(CaptureRecord r) throws IOException {
            switch (r) {
                case CaptureRecord.Blob b -> {
                    blobs.put(0, b.seq());
                    blobs.put(1, b.threadId());
                    blobs.put(2, bin(hash(b.hash())));
                    blobs.put(3, b.size());
                    blobs.put(4, b.compression());
                    blobs.put(5, bin(switch (b.compression()) {
                        case CaptureFormat.COMPRESSION_NONE -> "none";
                        case CaptureFormat.COMPRESSION_LZ4 -> "lz4";
                        case CaptureFormat.COMPRESSION_ZSTD -> "zstd";
                        default -> "unknown " + b.compression();
                    }));
                    blobs.put(6, b.stored().byteSize());
                    blobs.endRow();
                }
                case CaptureRecord.Module m -> {
                    modules.put(0, m.seq());
                    modules.put(1, m.threadId());
                    modules.put(2, m.library());
                    modules.put(3, m.index());
                    modules.put(4, m.kind());
                    modules.put(5, bin(switch (m.kind()) {
                        case CaptureFormat.MODULE_PTX -> "ptx";
                        case CaptureFormat.MODULE_ELF -> "elf";
                        case CaptureFormat.MODULE_FATBIN -> "fatbin";
                        case CaptureFormat.MODULE_OTHER -> "other";
                        default -> "kind " + m.kind();
                    }));
                    modules.put(6, m.imageHash() == 0 ? null : bin(hash(m.imageHash())));
                    modules.put(7, m.size());
                    modules.put(8, m.handle());
                    modules.put(9, m.fileName().isEmpty() ? null : bin(m.fileName()));
                    modules.endRow();
                }
                case CaptureRecord.Kernel k -> {
                    if (k.function() != 0 && !k.name().isEmpty()) kernelNames.putIfAbsent(k.function(), k.name());
                }
                default -> { }
            }
        }
    }

    /**
     * A string as a Parquet value, array-backed: the same value may be handed to the writing threads
     * of two tables (a function name), and unlike {@code Binary.fromString}'s buffer-backed values
     * (whose {@code getBytes} moves the shared buffer's position) these are immutable.
     */
    static Binary bin(String s) {
        return Binary.fromConstantByteArray(s.getBytes(StandardCharsets.UTF_8));
    }

    private static DataItem item(List<DataItem> items, int param) {
        for (int i = 0, n = items.size(); i < n; i++) {
            DataItem d = items.get(i);
            if (d.param() == param) return d;
        }
        return null;
    }

    private static String hash(long h) {
        String s = Long.toHexString(h);
        return "0".repeat(16 - s.length()) + s;
    }

    private static long le64(byte[] b) {
        long v = 0;
        for (int i = 7; i >= 0; i--) v = v << 8 | (b[i] & 0xFFL);
        return v;
    }

    private static String cString(byte[] b) {
        int n = 0;
        while (n < b.length && b[n] != 0) n++;
        return new String(b, 0, n, StandardCharsets.UTF_8);
    }

    /** A capture function as the tables need it. */
    static final class Fn {
        static final int NOT_LAUNCH = 0, LAUNCH_ARGS = 1, LAUNCH_CONFIG = 2;
        static final int NOT_NAMER = 0, NAMER_STRING = 1, NAMER_KERNEL = 2;
        private static final String[] DIMS = {"gridDimX", "gridDimY", "gridDimZ", "blockDimX", "blockDimY", "blockDimZ", "sharedMemBytes", "hStream"};

        final int id;
        final Binary name;
        final CudaFunction spec;
        private final Binary[] paramNames;
        final int launch;
        final int fParam;
        final int[] dimParams = new int[8];
        final int configParam;
        final int namer;

        Fn(int id, String name, CudaFunction spec, LaunchConfigLayout layout) {
            this.id = id;
            this.name = bin(name);
            this.spec = spec;
            int n = spec == null ? 0 : spec.params().size();
            this.paramNames = new Binary[Math.max(n, 16)];
            int f = -1, cfg = -1, kind = NOT_LAUNCH;
            java.util.Arrays.fill(dimParams, -1);
            if (Role.of(spec) == Role.KERNEL_LAUNCH) {
                f = spec.param("f").map(CudaParam::index).orElse(-1);
                for (int i = 0; i < DIMS.length; i++) dimParams[i] = spec.param(DIMS[i]).map(CudaParam::index).orElse(-1);
                cfg = spec.param("config").map(CudaParam::index).orElse(-1);
                if (f >= 0 && dimParams[0] >= 0) kind = LAUNCH_ARGS;
                else if (f >= 0 && cfg >= 0) kind = LAUNCH_CONFIG;
            }
            this.launch = kind;
            this.fParam = f;
            this.configParam = cfg;
            // a lookup by name (cuModuleGetFunction, cuLibraryGetKernel) names what it returns; cuKernelGetFunction
            // gives the function of a kernel, whose name its CUkernel has
            this.namer = Role.of(spec) == Role.FUNCTION_LOOKUP ? NAMER_STRING : name.equals("cuKernelGetFunction") ? NAMER_KERNEL : NOT_NAMER;
        }

        CudaParam param(int i) {
            return spec != null && i < spec.params().size() ? spec.params().get(i) : null;
        }

        Binary paramName(int i) {
            if (i < paramNames.length && paramNames[i] != null) return paramNames[i];
            CudaParam p = param(i);
            Binary b = bin(p != null ? p.name() : "arg" + i);
            if (i < paramNames.length) paramNames[i] = b;
            return b;
        }
    }

    /**
     * Rendered text of arguments by (function, parameter, value) when there is no recorded data or
     * at most 8 inline bytes of it (a handle or size written back): launches and other hot calls
     * repeat their handles and sizes, so most arguments are rendered once. Direct-mapped; a miss
     * renders and replaces.
     */
    private static final class TextCache {
        private static final int BITS = 13;
        private final int[] keys = new int[1 << BITS];
        private final long[] values = new long[1 << BITS];
        private final long[] datas = new long[1 << BITS];
        private final int[] lens = new int[1 << BITS];
        private final Binary[] texts = new Binary[1 << BITS];

        Binary text(Fn f, int param, long v, DataItem d, CallFormatter fmt) {
            if (param >= 32 || d != null && (!d.isInline() || d.bytes().length > 8)) return bin(fmt.value(f.param(param), v, d));
            long data = 0;
            int len = -1; // no data
            if (d != null) {
                byte[] b = d.bytes();
                len = b.length;
                for (int i = len - 1; i >= 0; i--) data = data << 8 | (b[i] & 0xFFL);
            }
            int key = (f.id << 5 | param) + 1;
            long h = (v ^ (v >>> 29) ^ (data + len) * 0xFF51AFD7ED558CCDL) * 0x9E3779B97F4A7C15L + key * 0xC2B2AE3D27D4EB4FL;
            int slot = (int) (h >>> (64 - BITS));
            if (keys[slot] == key && values[slot] == v && datas[slot] == data && lens[slot] == len) return texts[slot];
            Binary b = bin(fmt.value(f.param(param), v, d));
            keys[slot] = key;
            values[slot] = v;
            datas[slot] = data;
            lens[slot] = len;
            texts[slot] = b;
            return b;
        }
    }

    /** Field offsets of {@code CUlaunchConfig} from the API spec (grid, block, shared memory, stream). */
    record LaunchConfigLayout(int[] offsets, int[] sizes) {
        private static final String[] FIELDS = {"gridDimX", "gridDimY", "gridDimZ", "blockDimX", "blockDimY", "blockDimZ", "sharedMemBytes", "hStream"};

        static LaunchConfigLayout of(CudaApi api) {
            CudaRecord r = api.record("CUlaunchConfig").orElse(null);
            if (r == null) return null;
            int[] off = new int[FIELDS.length], size = new int[FIELDS.length];
            for (int i = 0; i < FIELDS.length; i++) {
                String n = FIELDS[i];
                CudaRecord.Field fd = r.fields().stream().filter(x -> x.name().equals(n)).findFirst().orElse(null);
                if (fd == null || fd.size() > 8) return null;
                off[i] = fd.offset();
                size[i] = fd.size();
            }
            return new LaunchConfigLayout(off, size);
        }

        /** Reads the fields into {@code out}; false when {@code b} is too short. */
        boolean read(byte[] b, long[] out) {
            for (int i = 0; i < offsets.length; i++) {
                if (offsets[i] + sizes[i] > b.length) return false;
                long v = 0;
                for (int k = sizes[i] - 1; k >= 0; k--) v = v << 8 | (b[offsets[i] + k] & 0xFFL);
                out[i] = v;
            }
            return true;
        }
    }
}
