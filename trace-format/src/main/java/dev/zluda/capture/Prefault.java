package dev.zluda.capture;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * Pre-faults the pages of a writable shared file mapping with Linux's
 * {@code madvise(addr, len, MADV_POPULATE_WRITE)} (Linux 5.14+, madvise(2)), so that the capture
 * writer's record stores do not take one page fault per 4 KiB page (measured: about a third of the
 * writer's CPU time on a VM), then touches every page from user space with one atomic no-op add:
 * some virtual machines map a page for user space only at its first user-space access, however the
 * kernel populated it (seen on a development VM: about 10 µs at the first write to each page;
 * docs/benchmarks.md, "Clock, ticket and cache lines"). The contents are not changed (the add is
 * atomic and adds 0), so it is safe while another thread writes the same pages.
 *
 * <p>Used only where the JVM grants this module native access ({@code --enable-native-access},
 * which {@code dist/bin/zluda} and the driver pass); elsewhere, on other systems or older kernels
 * {@link #populate} does nothing and returns {@code false}: pages then fault in on first write as
 * before.
 */
final class Prefault {
    private static final int MADV_POPULATE_WRITE = 23;   // <linux/mman.h>
    private static final long PAGE = 4096;              // x86-64 and the common arm64 kernels; a larger page gives EINVAL: no pre-faulting
    private static final MethodHandle MADVISE = lookup();
    /** An int at a page start: aligned, so atomic access modes work on the mapped segment. */
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static volatile boolean works = MADVISE != null;

    private Prefault() {}

    private static MethodHandle lookup() {
        try {
            if (!System.getProperty("os.name", "").startsWith("Linux")) return null;
            if (!Prefault.class.getModule().isNativeAccessEnabled()) return null;
            if (Boolean.getBoolean("zluda.capture.noPrefault")) return null;
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find("madvise").map(a -> linker.downcallHandle(a,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT)))
                    .orElse(null);
        } catch (Throwable t) {
            return null;
        }
    }

    /** Whether {@link #populate} can work here (native access granted, Linux, madvise found). */
    static boolean available() {
        return works;
    }

    /**
     * Pre-faults {@code segment} (a page-aligned mapping) for writing, and touches each of its whole
     * pages once from this thread (an atomic add of 0 to the int at the page's start).
     *
     * @return whether the kernel did it; {@code false} without native access, on a kernel without
     *     MADV_POPULATE_WRITE, or when it failed (e.g. ENOSPC on a full tmpfs: the writes then fault
     *     and fail as they would have)
     */
    static boolean populate(MemorySegment segment) {
        if (!works) return false;
        try {
            // madvise wants a page-aligned start (capture windows start 64 bytes into a page): the
            // whole pages inside the segment
            long addr = segment.address(), stop = addr + segment.byteSize();
            long first = (addr + PAGE - 1) & -PAGE, last = stop & -PAGE;
            if (last <= first) return false;
            MemorySegment pages = segment.asSlice(first - addr, last - first);
            int rc = (int) MADVISE.invokeExact(pages, pages.byteSize(), MADV_POPULATE_WRITE);
            if (rc != 0) {
                works = false;
                return false;
            }
            for (long off = 0; off < pages.byteSize(); off += PAGE) {
                int ignored = (int) INT.getAndAdd(pages, off, 0);
            }
            return true;
        } catch (Throwable t) {
            works = false;
            return false;
        }
    }
}
