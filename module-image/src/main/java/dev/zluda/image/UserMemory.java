package dev.zluda.image;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;

/**
 * Probes of the program's memory before the driver reads it: whether a range the caller passed by pointer (a
 * structure, an array of kernel parameters, a module image, the host side of a copy) is mapped and readable, so
 * that a wild or short pointer becomes a CUDA error rather than a fault in the JVM.
 *
 * <p>A probe reads one byte of every page of the range with {@code process_vm_readv(2)} on the own process, which
 * fails with {@code EFAULT} instead of faulting (where the kernel refuses it, for example under a seccomp policy,
 * {@code mincore(2)} is used instead, which sees unmapped pages but not {@code PROT_NONE} ones; where both are
 * refused, nothing is probed). Pages found readable are remembered in a small direct-mapped cache, so the pages a
 * program passes again and again (its stack, its parameter arrays) cost a few nanoseconds, not a system call. The
 * cache can go stale: a page the program unmaps after it was probed is still taken as readable, and a read of it
 * then faults as the program's own {@code SIGSEGV} (zluda-runtime/src/main/c/entry.c, where the driver runs), which is what NVIDIA's
 * driver does for every such pointer. Memory the driver itself frees is forgotten ({@link #forget}).
 *
 * <p>Only reads are probed: an out-parameter the driver writes to that is not writable faults in the program, as
 * with NVIDIA's driver (docs/support.md, "Driver API misuse"). Thread-safe.
 */
public final class UserMemory {
    private UserMemory() {}

    /** Bytes of a page (the probe's granularity). */
    static final long PAGE;
    private static final int SHIFT;
    /** Pages probed per system call. */
    private static final int BATCH = 256;
    /** Entries of the cache of readable pages (a power of two). */
    private static final int CACHE = 1 << 12;
    /** Readable pages: page number + 1 (0: empty), direct-mapped by a hash of the page number. */
    private static final long[] cache = new long[CACHE];
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);

    private static final int MODE_READV = 0, MODE_MINCORE = 1, MODE_NONE = 2;
    private static volatile int mode = MODE_READV;
    /** Off only for benchmarks that measure what the probes cost. */
    static volatile boolean enabled = true;

    private static final MethodHandle READV, MINCORE;
    private static final long ERRNO_OFFSET;
    private static final long STATE_BYTES;
    private static final int PID = (int) ProcessHandle.current().pid();
    private static final int EPERM = 1, ENOSYS = 38;

    static {
        Linker linker = Linker.nativeLinker();
        var libc = linker.defaultLookup();
        MethodHandle pagesize = linker.downcallHandle(libc.find("getpagesize").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_INT));
        long page;
        try {
            page = (int) pagesize.invokeExact();
        } catch (Throwable t) {
            page = 4096;
        }
        PAGE = page > 0 && Long.bitCount(page) == 1 ? page : 4096;
        SHIFT = Long.numberOfTrailingZeros(PAGE);
        Linker.Option errno = Linker.Option.captureCallState("errno");
        var state = Linker.Option.captureStateLayout();
        ERRNO_OFFSET = state.byteOffset(MemoryLayout.PathElement.groupElement("errno"));
        STATE_BYTES = state.byteSize();
        // ssize_t process_vm_readv(pid_t, const struct iovec *, unsigned long, const struct iovec *, unsigned long, unsigned long)
        READV = libc.find("process_vm_readv").map(a -> linker.downcallHandle(a, FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
                ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG), errno)).orElse(null);
        // int mincore(void *, size_t, unsigned char *)
        MINCORE = libc.find("mincore").map(a -> linker.downcallHandle(a, FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                ValueLayout.JAVA_LONG, ValueLayout.ADDRESS), errno)).orElse(null);
        if (READV == null) mode = MINCORE == null ? MODE_NONE : MODE_MINCORE;
    }

    /** Each thread's buffers for the system calls: the local byte per page, the iovecs, the errno. */
    private static final class Scratch {
        final MemorySegment bytes, local, remote, state;

        Scratch() {
            Arena a = Arena.ofAuto();
            bytes = a.allocate(BATCH);
            local = a.allocate(16, 8);
            remote = a.allocate(16L * BATCH, 8);
            state = a.allocate(STATE_BYTES, 8);
        }
    }

    private static final ThreadLocal<Scratch> scratch = ThreadLocal.withInitial(Scratch::new);

    private static int slot(long pageNumber) {
        return (int) ((pageNumber * 0x9E3779B97F4A7C15L) >>> (64 - 12));
    }

    private static boolean cached(long pageNumber) {
        return (long) SLOT.getOpaque(cache, slot(pageNumber)) == pageNumber + 1;
    }

    private static void remember(long pageNumber) {
        SLOT.setOpaque(cache, slot(pageNumber), pageNumber + 1);
    }

    /**
     * Whether every byte of {@code [address, address + bytes)} can be read now. A zero-length range is readable
     * anywhere; NULL, a negative length and a range that wraps around the address space are not.
     */
    public static boolean readable(long address, long bytes) {
        if (bytes == 0) return true;
        if (address == 0 || bytes < 0) return false;
        long end = address + bytes;
        if (address < 0 || end < 0) return false; // above the 63-bit user address space, or wrapping
        if (!enabled) return true;
        long first = address >>> SHIFT, last = (end - 1) >>> SHIFT;
        long p = first;
        while (p <= last && cached(p)) p++;
        if (p > last) return true;
        return probe(p, last);
    }

    /** Probes pages {@code from..to} (inclusive), remembering those found readable. */
    private static boolean probe(long from, long to) {
        Scratch s = scratch.get();
        long p = from;
        while (p <= to) {
            int n = 0;
            long batchStart = p;
            while (p <= to && n < BATCH) {
                if (!cached(p)) {
                    s.remote.setAtIndex(ValueLayout.JAVA_LONG, 2L * n, p << SHIFT);
                    s.remote.setAtIndex(ValueLayout.JAVA_LONG, 2L * n + 1, 1);
                    n++;
                }
                p++;
            }
            if (n == 0) continue;
            int m = mode;
            boolean ok = m == MODE_READV ? readv(s, n) : m == MODE_MINCORE ? mincore(s, batchStart, p - 1) : true;
            if (!ok) return false;
            for (int i = 0; i < n; i++) remember(s.remote.getAtIndex(ValueLayout.JAVA_LONG, 2L * i) >>> SHIFT);
        }
        return true;
    }

    /** process_vm_readv of one byte of each of the first {@code n} remote iovecs; true when all were read. */
    private static boolean readv(Scratch s, int n) {
        s.local.set(ValueLayout.JAVA_LONG, 0, s.bytes.address());
        s.local.set(ValueLayout.JAVA_LONG, 8, n);
        long got;
        try {
            got = (long) READV.invokeExact(s.state, PID, s.local, 1L, s.remote, (long) n, 0L);
        } catch (Throwable t) {
            throw new IllegalStateException("process_vm_readv failed", t);
        }
        if (got == n) return true;
        if (got < 0) {
            int errno = s.state.get(ValueLayout.JAVA_INT, ERRNO_OFFSET);
            if (errno == ENOSYS || errno == EPERM) {
                // refused by the kernel or a seccomp policy: fall back to mincore for good
                mode = MINCORE == null ? MODE_NONE : MODE_MINCORE;
                return MINCORE == null || mincore(s, s.remote.getAtIndex(ValueLayout.JAVA_LONG, 0) >>> SHIFT,
                        s.remote.getAtIndex(ValueLayout.JAVA_LONG, 2L * (n - 1)) >>> SHIFT);
            }
        }
        return false;
    }

    /** mincore over pages {@code from..to}: false when any of them is not mapped. */
    private static boolean mincore(Scratch s, long from, long to) {
        long pages = to - from + 1;
        MemorySegment vec = pages <= BATCH ? s.bytes : Arena.ofAuto().allocate(pages);
        int r;
        try {
            r = (int) MINCORE.invokeExact(s.state, MemorySegment.ofAddress(from << SHIFT), pages << SHIFT, vec);
        } catch (Throwable t) {
            throw new IllegalStateException("mincore failed", t);
        }
        if (r == 0) return true;
        int errno = s.state.get(ValueLayout.JAVA_INT, ERRNO_OFFSET);
        if (errno == ENOSYS || errno == EPERM) {
            mode = MODE_NONE;
            return true;
        }
        return false;
    }

    /**
     * Forgets what the cache knows of {@code [address, address + bytes)}: memory the driver gives back (page-locked
     * host memory it allocated), which may be unmapped now.
     */
    public static void forget(long address, long bytes) {
        if (bytes <= 0 || address == 0) return;
        long first = address >>> SHIFT, last = (address + bytes - 1) >>> SHIFT;
        if (last - first >= CACHE) {
            for (int i = 0; i < CACHE; i++) SLOT.setOpaque(cache, i, 0L);
            return;
        }
        for (long p = first; p <= last; p++) if (cached(p)) SLOT.setOpaque(cache, slot(p), 0L);
    }

    /**
     * The NUL-terminated string at {@code address} (UTF-8), read page by page and never past its NUL or the first
     * page that is not readable; null when that page comes first, or when no NUL comes within {@code max} bytes.
     */
    public static String cString(long address, long max) {
        if (address == 0) return null;
        long n = 0;
        while (n < max) {
            long pageEnd = ((address + n) | (PAGE - 1)) + 1;
            long chunk = Math.min(pageEnd - (address + n), max - n);
            if (!readable(address + n, chunk)) return null;
            MemorySegment s = MemorySegment.ofAddress(address + n).reinterpret(chunk);
            for (long i = 0; i < chunk; i++) {
                if (s.get(ValueLayout.JAVA_BYTE, i) == 0) {
                    return MemorySegment.ofAddress(address).reinterpret(n + i + 1).getString(0, StandardCharsets.UTF_8);
                }
            }
            n += chunk;
        }
        return null;
    }
}
