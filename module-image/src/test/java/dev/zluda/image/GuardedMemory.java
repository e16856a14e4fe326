package dev.zluda.image;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * For tests of code that probes the program's memory: one readable and writable page followed by a page that is
 * mapped {@code PROT_NONE} (any access faults) and a page that is not mapped at all. Freed with {@link #close}.
 */
public final class GuardedMemory implements AutoCloseable {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle MMAP = LINKER.downcallHandle(LINKER.defaultLookup().find("mmap").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
    private static final MethodHandle MPROTECT = LINKER.downcallHandle(LINKER.defaultLookup().find("mprotect").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    private static final MethodHandle MUNMAP = LINKER.downcallHandle(LINKER.defaultLookup().find("munmap").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
    private static final int PROT_NONE = 0, PROT_READ = 1, PROT_WRITE = 2, MAP_PRIVATE = 2, MAP_ANONYMOUS = 0x20;

    /** Bytes of a page: 4096 (the tests' machines). */
    public static final long PAGE = 4096;
    /** The first byte of the readable page. */
    public final long readable;
    /** The first byte of the PROT_NONE page (right after the readable one). */
    public final long guard;
    /** The first byte of the unmapped page (right after the guard page). */
    public final long unmapped;

    public GuardedMemory() {
        try {
            long base = ((MemorySegment) MMAP.invokeExact(MemorySegment.NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0L)).address();
            if (base == -1L) throw new IllegalStateException("mmap failed");
            readable = base;
            guard = base + PAGE;
            unmapped = base + 2 * PAGE;
            if ((int) MPROTECT.invokeExact(MemorySegment.ofAddress(guard), PAGE, PROT_NONE) != 0) throw new IllegalStateException("mprotect failed");
            if ((int) MUNMAP.invokeExact(MemorySegment.ofAddress(unmapped), PAGE) != 0) throw new IllegalStateException("munmap failed");
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The readable page as a segment. */
    public MemorySegment page() {
        return MemorySegment.ofAddress(readable).reinterpret(PAGE);
    }

    /** {@code n} readable bytes that end where the guard page begins. */
    public MemorySegment beforeGuard(long n) {
        return MemorySegment.ofAddress(guard - n).reinterpret(n);
    }

    @Override
    public void close() {
        // the probes' cache must not take these pages for readable when a later mapping reuses the addresses
        UserMemory.forget(readable, 3 * PAGE);
        try {
            int r = (int) MUNMAP.invokeExact(MemorySegment.ofAddress(readable), 2 * PAGE);
            if (r != 0) throw new IllegalStateException("munmap failed");
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
