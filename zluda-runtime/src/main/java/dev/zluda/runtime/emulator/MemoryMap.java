package dev.zluda.runtime.emulator;

/**
 * The device memory a kernel may touch: every live allocation of the driver (device, page-locked
 * host, managed and registered host memory, module variables). The emulator asks only when an
 * access misses the range it used last, so an implementation may be a map lookup. Must be safe to
 * call from several threads at once.
 */
@FunctionalInterface
public interface MemoryMap {
    /**
     * The allocation that contains {@code address}.
     *
     * @param address a native address (the value of a CUdeviceptr)
     * @param out     receives the allocation's first address in {@code out[0]} and its size in bytes
     *                in {@code out[1]}
     * @return {@code false} when no allocation contains the address
     */
    boolean find(long address, long[] out);
}
