package dev.zluda.runtime.emulator;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * Device-side {@code printf} ({@code vprintf(format, args)}, CUDA Programming Guide, "Formatted
 * Output"): formatting and the output buffer.
 *
 * <p>Formatting: each conversion {@code %[flags][width][.precision][length]type} is formatted by the
 * host C library's {@code snprintf} (called through FFM), as NVIDIA's driver formats device output on
 * the host, so {@code %g}, {@code %a}, {@code %#o}, {@code (null)} and the rest come out exactly as the
 * host's printf writes them. The argument buffer holds each argument aligned to its size: 4 bytes for
 * {@code %c} and integer conversions without {@code l}/{@code ll}/{@code j}/{@code z}/{@code t}
 * (char and short are promoted to int), 8 for 64-bit integers, for {@code double} (floats are
 * promoted), for {@code %s} and {@code %p} (generic addresses). A {@code *} width or precision takes
 * a 4-byte int argument.
 *
 * <p>Output: what kernels print (and the messages of failed device assertions, which go to
 * {@code stderr}) is kept in one process-wide buffer and written to the C library's
 * {@code stdout} (the same {@code FILE} the host program prints to, so host and device lines keep
 * their order) when the driver calls {@link #flush()}: at the points where CUDA flushes its printf
 * buffer (a kernel launch starting, context/stream/event synchronisation, blocking copies, module
 * load and unload, context destruction or reset, before a stream callback). Output still buffered
 * when the process exits is lost, as on NVIDIA's driver when nothing synchronises. NVIDIA's buffer
 * is per context and of {@code CU_LIMIT_PRINTF_FIFO_SIZE} bytes; this one is shared and unbounded.
 */
public final class DevicePrintf {
    private DevicePrintf() {}

    private static final ByteArrayOutputStream PENDING = new ByteArrayOutputStream();
    /** Device assertion messages, written to stderr at the same flush points. */
    private static final ByteArrayOutputStream PENDING_ERR = new ByteArrayOutputStream();
    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final MethodHandle SNPRINTF_INT = snprintf(ValueLayout.JAVA_INT);
    private static final MethodHandle SNPRINTF_LONG = snprintf(ValueLayout.JAVA_LONG);
    private static final MethodHandle SNPRINTF_DOUBLE = snprintf(ValueLayout.JAVA_DOUBLE);
    private static final MethodHandle SNPRINTF_PTR = snprintf(ValueLayout.ADDRESS);
    private static final MethodHandle SNPRINTF_INT_INT = snprintf(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT);
    private static final MethodHandle SNPRINTF_INT_LONG = snprintf(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG);
    private static final MethodHandle SNPRINTF_INT_DOUBLE = snprintf(ValueLayout.JAVA_INT, ValueLayout.JAVA_DOUBLE);
    private static final MethodHandle SNPRINTF_INT_PTR = snprintf(ValueLayout.JAVA_INT, ValueLayout.ADDRESS);
    private static final MethodHandle FWRITE = LIBC.find("fwrite").map(s -> LINKER.downcallHandle(s,
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS))).orElse(null);
    private static final MemorySegment STDOUT_VAR = LIBC.find("stdout").map(s -> s.reinterpret(8)).orElse(null);
    private static final MemorySegment STDERR_VAR = LIBC.find("stderr").map(s -> s.reinterpret(8)).orElse(null);

    private static MethodHandle snprintf(MemoryLayout... varargs) {
        Optional<MemorySegment> s = LIBC.find("snprintf");
        if (s.isEmpty()) return null;
        MemoryLayout[] args = new MemoryLayout[3 + varargs.length];
        args[0] = ValueLayout.ADDRESS;
        args[1] = ValueLayout.JAVA_LONG;
        args[2] = ValueLayout.ADDRESS;
        System.arraycopy(varargs, 0, args, 3, varargs.length);
        return LINKER.downcallHandle(s.get(), FunctionDescriptor.of(ValueLayout.JAVA_INT, args), Linker.Option.firstVariadicArg(3));
    }

    /** Adds a kernel's output to the buffer (it appears at the next {@link #flush()}). */
    static void emit(byte[] text) {
        synchronized (PENDING) {
            PENDING.writeBytes(text);
        }
    }

    /** Adds a device assertion message (it goes to stderr at the next {@link #flush()}). */
    static void emitStderr(byte[] text) {
        synchronized (PENDING) {
            PENDING_ERR.writeBytes(text);
        }
    }

    /** Takes what is buffered for stdout, without printing it (for tests and tools). */
    public static byte[] drain() {
        synchronized (PENDING) {
            byte[] b = PENDING.toByteArray();
            PENDING.reset();
            return b;
        }
    }

    /**
     * Writes what kernels printed since the last flush to the C library's {@code stdout}, and their
     * assertion messages to its {@code stderr} (with {@code fwrite}; {@link System#out} /
     * {@link System#err} when the C library cannot be reached), and empties the buffers. Cheap when
     * nothing is buffered. Never throws.
     */
    public static void flush() {
        byte[] out, err;
        synchronized (PENDING) {
            if (PENDING.size() == 0 && PENDING_ERR.size() == 0) return;
            out = PENDING.toByteArray();
            err = PENDING_ERR.toByteArray();
            PENDING.reset();
            PENDING_ERR.reset();
        }
        if (out.length > 0) write(out, STDOUT_VAR, System.out);
        if (err.length > 0) write(err, STDERR_VAR, System.err);
    }

    private static void write(byte[] b, MemorySegment fileVar, java.io.PrintStream fallback) {
        try {
            if (FWRITE != null && fileVar != null) {
                MemorySegment file = fileVar.get(ValueLayout.ADDRESS, 0);
                if (!file.equals(MemorySegment.NULL)) {
                    try (Arena a = Arena.ofConfined()) {
                        MemorySegment buf = a.allocate(b.length);
                        MemorySegment.copy(b, 0, buf, ValueLayout.JAVA_BYTE, 0, b.length);
                        long ignored = (long) FWRITE.invokeExact(buf, 1L, (long) b.length, file);
                    }
                    return;
                }
            }
        } catch (Throwable t) {
            // fall through to the Java stream
        }
        synchronized (fallback) {
            fallback.write(b, 0, b.length);
            fallback.flush();
        }
    }

    /** Reads the NUL-terminated bytes at a generic address (at most 64 KiB); null for address 0. */
    static byte[] cBytes(Warp w, long generic, int lane) {
        if (generic == 0) return null;
        ByteArrayOutputStream sb = new ByteArrayOutputStream();
        for (int i = 0; i < 65536; i++) {
            long abs = w.generic(generic + i, 1, lane, Warp.READ);
            byte b = Mem.ALL.get(Mem.B, abs);
            if (b == 0) break;
            sb.write(b);
        }
        return sb.toByteArray();
    }

    /**
     * Formats one lane's {@code vprintf} call.
     *
     * @param fmt   the format, as bytes
     * @param args  generic address of the argument buffer (0: none)
     * @param count out: {@code count[0]} receives the number of arguments consumed
     * @return the formatted bytes
     */
    static byte[] format(Warp w, int lane, byte[] fmt, long args, int[] count) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long[] off = {0};
        int i = 0;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(512);
            while (i < fmt.length) {
                byte ch = fmt[i++];
                if (ch != '%') {
                    out.write(ch);
                    continue;
                }
                int start = i - 1;
                while (i < fmt.length && "-+ #0'".indexOf(fmt[i]) >= 0) i++;
                boolean starWidth = false, starPrecision = false;
                if (i < fmt.length && fmt[i] == '*') { starWidth = true; i++; }
                while (i < fmt.length && Character.isDigit(fmt[i])) i++;
                if (i < fmt.length && fmt[i] == '.') {
                    i++;
                    if (i < fmt.length && fmt[i] == '*') { starPrecision = true; i++; }
                    while (i < fmt.length && Character.isDigit(fmt[i])) i++;
                }
                int specEnd = i;  // flags, width, precision
                int lengthStart = i;
                while (i < fmt.length && "hlLqjzt".indexOf(fmt[i]) >= 0) i++;
                String length = new String(fmt, lengthStart, i - lengthStart, java.nio.charset.StandardCharsets.ISO_8859_1);
                if (i >= fmt.length) {  // a lone '%' at the end: printed as it is
                    out.write(fmt, start, fmt.length - start);
                    break;
                }
                char conv = (char) fmt[i++];
                if (conv == '%') {
                    out.write('%');
                    continue;
                }
                int[] stars = new int[2];
                int nStars = 0;
                if (starWidth) stars[nStars++] = (int) arg(w, lane, args, off, 4, count);
                if (starPrecision) stars[nStars++] = (int) arg(w, lane, args, off, 4, count);
                boolean wide = length.contains("l") || length.contains("q") || length.contains("j") || length.contains("z") || length.contains("t");
                String spec = new String(fmt, start, specEnd - start, java.nio.charset.StandardCharsets.ISO_8859_1);
                String cfmt;
                Object value;
                MethodHandle one, withStar;
                switch (conv) {
                    case 'd', 'i', 'o', 'u', 'x', 'X' -> {
                        if (wide) {
                            cfmt = spec + "ll" + conv;
                            value = arg(w, lane, args, off, 8, count);
                        } else {
                            String h = length.startsWith("hh") ? "hh" : length.startsWith("h") ? "h" : "";
                            cfmt = spec + h + conv;
                            value = (int) arg(w, lane, args, off, 4, count);
                        }
                    }
                    case 'c' -> {
                        cfmt = spec + conv;
                        value = (int) arg(w, lane, args, off, 4, count);
                    }
                    case 'f', 'F', 'e', 'E', 'g', 'G', 'a', 'A' -> {
                        cfmt = spec + conv;
                        value = Double.longBitsToDouble(arg(w, lane, args, off, 8, count));
                    }
                    case 'p' -> {
                        cfmt = spec + conv;
                        value = MemorySegment.ofAddress(arg(w, lane, args, off, 8, count));
                    }
                    case 's' -> {
                        cfmt = spec + conv;
                        byte[] s = cBytes(w, arg(w, lane, args, off, 8, count), lane);
                        if (s == null) {
                            value = MemorySegment.NULL;
                        } else {
                            MemorySegment str = arena.allocate(s.length + 1L);
                            MemorySegment.copy(s, 0, str, ValueLayout.JAVA_BYTE, 0, s.length);
                            value = str;
                        }
                    }
                    default -> {  // not a conversion glibc and CUDA share (%n among them): printed as written
                        out.write(fmt, start, i - start);
                        continue;
                    }
                }
                MemorySegment cf = arena.allocateFrom(cfmt);
                byte[] text = snprintf(arena, buf, cf, value, nStars, stars);
                if (text == null) {
                    out.write(fmt, start, i - start);
                } else {
                    out.writeBytes(text);
                }
            }
        }
        return out.toByteArray();
    }

    /** Reads the next argument of {@code size} bytes, aligned to its size; counts it. */
    private static long arg(Warp w, int lane, long args, long[] off, int size, int[] count) {
        off[0] = (off[0] + size - 1) / size * size;
        long v = args == 0 ? 0 : Mem.load(w.generic(args + off[0], size, lane, Warp.READ), size, false);
        off[0] += size;
        count[0]++;
        return v;
    }

    private static byte[] snprintf(Arena arena, MemorySegment buf, MemorySegment cfmt, Object value, int nStars, int[] stars) {
        if (SNPRINTF_INT == null) return null;
        try {
            for (int attempt = 0; attempt < 2; attempt++) {
                int n = call(buf, cfmt, value, nStars, stars);
                if (n < 0) return null;
                if (n < buf.byteSize()) {
                    byte[] b = new byte[n];
                    MemorySegment.copy(buf, ValueLayout.JAVA_BYTE, 0, b, 0, n);
                    return b;
                }
                buf = arena.allocate(n + 1L);
            }
            return null;
        } catch (Throwable t) {
            return null;
        }
    }

    private static int call(MemorySegment buf, MemorySegment f, Object v, int nStars, int[] stars) throws Throwable {
        long size = buf.byteSize();
        if (nStars == 0) {
            return switch (v) {
                case Integer x -> (int) SNPRINTF_INT.invokeExact(buf, size, f, (int) x);
                case Long x -> (int) SNPRINTF_LONG.invokeExact(buf, size, f, (long) x);
                case Double x -> (int) SNPRINTF_DOUBLE.invokeExact(buf, size, f, (double) x);
                case MemorySegment x -> (int) SNPRINTF_PTR.invokeExact(buf, size, f, x);
                default -> -1;
            };
        }
        // one '*' handled through snprintf; a second one is folded into the format first
        MemorySegment ff = f;
        if (nStars == 2) {
            String s = f.getString(0);
            int k = s.indexOf('*');
            s = s.substring(0, k) + stars[0] + s.substring(k + 1);
            ff = Arena.ofAuto().allocateFrom(s);
            stars[0] = stars[1];
        }
        int st = stars[0];
        return switch (v) {
            case Integer x -> (int) SNPRINTF_INT_INT.invokeExact(buf, size, ff, st, (int) x);
            case Long x -> (int) SNPRINTF_INT_LONG.invokeExact(buf, size, ff, st, (long) x);
            case Double x -> (int) SNPRINTF_INT_DOUBLE.invokeExact(buf, size, ff, st, (double) x);
            case MemorySegment x -> (int) SNPRINTF_INT_PTR.invokeExact(buf, size, ff, st, x);
            default -> -1;
        };
    }
}
