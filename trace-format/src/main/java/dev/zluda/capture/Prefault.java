package dev.zluda.capture;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Pre-faults the pages of a writable shared file mapping with Linux's
 * {@code madvise(addr, len, MADV_POPULATE_WRITE)} (Linux 5.14+, madvise(2)), so that the capture
 * writer's record stores do not take one page fault per 4 KiB page (measured: about a third of the
 * writer's CPU time on a VM). The contents are not changed, so it is safe while another thread
 * writes the same pages.
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
     * Pre-faults {@code segment} (a page-aligned mapping) for writing.
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
            if (rc != 0) works = false;
            return rc == 0;
        } catch (Throwable t) {
            works = false;
            return false;
        }
    }
}
