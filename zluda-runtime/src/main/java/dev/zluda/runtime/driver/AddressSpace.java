package dev.zluda.runtime.driver;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The process's own address space, through libc (Linux x86-64): what the virtual memory management calls of the
 * emulator device are made of. A physical allocation is an anonymous memory file ({@code memfd_create}, sized with
 * {@code ftruncate}); a reservation is an inaccessible anonymous mapping ({@code mmap PROT_NONE}); mapping an
 * allocation into a reservation replaces part of it with a shared read-write mapping of the file ({@code MAP_FIXED}),
 * so that one allocation mapped at two addresses is the same memory at both; unmapping puts an inaccessible mapping
 * back. Every method throws {@link OsError} with the call and errno when the system refuses.
 */
final class AddressSpace {
    private AddressSpace() {}

    /** A failed system call: its name and errno. */
    static final class OsError extends Exception {
        final int errno;

        OsError(String call, int errno) {
            super(call + " failed: errno " + errno);
            this.errno = errno;
        }
    }

    /** ENOMEM: the system has no memory, or no address range, for the request. */
    static final int ENOMEM = 12;

    private static final int PROT_NONE = 0, PROT_READ = 1, PROT_WRITE = 2;
    private static final int MAP_SHARED = 0x01, MAP_PRIVATE = 0x02, MAP_FIXED = 0x10, MAP_ANONYMOUS = 0x20,
            MAP_NORESERVE = 0x4000, MAP_FIXED_NOREPLACE = 0x100000;
    private static final int MFD_CLOEXEC = 1, SEEK_END = 2;
    private static final long MAP_FAILED = -1;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE = Linker.Option.captureCallState("errno");
    private static final MethodHandle MMAP = handle("mmap", FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
    private static final MethodHandle MUNMAP = handle("munmap", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    private static final MethodHandle MEMFD_CREATE = handle("memfd_create", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    private static final MethodHandle FTRUNCATE = handle("ftruncate", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
    private static final MethodHandle LSEEK = handle("lseek", FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    private static final MethodHandle DUP = handle("dup", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle CLOSE = handle("close", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));

    private static MethodHandle handle(String name, FunctionDescriptor d) {
        return LINKER.downcallHandle(LIBC.find(name).orElseThrow(), d, CAPTURE);
    }

    private static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    /**
     * Reserves {@code size} bytes of address space, inaccessible, at an address that is a multiple of {@code alignment}
     * (a power of two, at least the page size): at {@code hint} when that is free and aligned, else where the system
     * puts it.
     *
     * @return the reservation's first address
     */
    static long reserve(long size, long alignment, long hint) throws OsError {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CALL_STATE);
            int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
            if (hint != 0 && hint % alignment == 0) {
                long p = (long) MMAP.invokeExact(st, hint, size, PROT_NONE, flags | MAP_FIXED_NOREPLACE, -1, 0L);
                if (p == hint) return p;
                if (p != MAP_FAILED) unmap(p, size); // a kernel without MAP_FIXED_NOREPLACE placed it elsewhere
            }
            // over-reserve, then give back what lies outside the aligned range
            long span = size + alignment;
            long p = (long) MMAP.invokeExact(st, 0L, span, PROT_NONE, flags, -1, 0L);
            if (p == MAP_FAILED) throw new OsError("mmap", errno(st));
            long start = (p + alignment - 1) & -alignment;
            if (start > p) unmap(p, start - p);
            long end = start + size, spanEnd = p + span;
            if (spanEnd > end) unmap(end, spanEnd - end);
            return start;
        } catch (OsError e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Returns address space to the system (a reservation and whatever is mapped in it). */
    static void unmap(long address, long size) throws OsError {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CALL_STATE);
            int r = (int) MUNMAP.invokeExact(st, address, size);
            if (r != 0) throw new OsError("munmap", errno(st));
        } catch (OsError e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Maps {@code size} bytes of the file {@code fd} from {@code offset} at {@code address} (in a reservation), read-write and shared. */
    static void mapFile(long address, long size, int fd, long offset) throws OsError {
        fixed(address, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, offset, "mmap");
    }

    /** Makes [address, address + size) an inaccessible part of its reservation again. */
    static void clear(long address, long size) throws OsError {
        fixed(address, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0, "mmap");
    }

    private static void fixed(long address, long size, int prot, int flags, int fd, long offset, String call) throws OsError {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CALL_STATE);
            long p = (long) MMAP.invokeExact(st, address, size, prot, flags, fd, offset);
            if (p == MAP_FAILED) throw new OsError(call, errno(st));
            if (p != address) throw new OsError(call + " (placed at another address)", 0);
        } catch (OsError e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** A new anonymous memory file of {@code size} zeroed bytes; its descriptor. */
    static int createFile(String name, long size) throws OsError {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CALL_STATE);
            int fd = (int) MEMFD_CREATE.invokeExact(st, a.allocateFrom(name), MFD_CLOEXEC);
            if (fd < 0) throw new OsError("memfd_create", errno(st));
            int r = (int) FTRUNCATE.invokeExact(st, fd, size);
            if (r != 0) {
                int e = errno(st);
                close(fd);
                throw new OsError("ftruncate", e);
            }
            return fd;
        } catch (OsError e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The size in bytes of the file behind a descriptor. */
    static long fileSize(int fd) throws OsError {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CALL_STATE);
            long n = (long) LSEEK.invokeExact(st, fd, 0L, SEEK_END);
            if (n < 0) throw new OsError("lseek", errno(st));
            return n;
        } catch (OsError e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** A second descriptor of the same file. */
    static int dup(int fd) throws OsError {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CALL_STATE);
            int d = (int) DUP.invokeExact(st, fd);
            if (d < 0) throw new OsError("dup", errno(st));
            return d;
        } catch (OsError e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Closes a descriptor (errors are ignored: the descriptor is gone either way). */
    static void close(int fd) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = a.allocate(CALL_STATE);
            int ignored = (int) CLOSE.invokeExact(st, fd);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
