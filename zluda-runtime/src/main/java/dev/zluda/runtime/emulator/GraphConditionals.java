package dev.zluda.runtime.emulator;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The values of CUDA graph conditional handles (CUgraphConditionalHandle, CUDA 12.3+): what a kernel sets with
 * {@code cudaGraphSetConditional(handle, value)} — in PTX a call of the driver-provided {@code .extern .func
 * cudaGraphSetConditional(.param .b64 handle, .param .b32 value)} — and what the driver's conditional nodes read when
 * they run (CUDA Programming Guide, "Conditional Graph Nodes"). One value per handle for the process; a handle never
 * set reads 0. Thread-safe.
 */
public final class GraphConditionals {
    private static final ConcurrentHashMap<Long, Integer> VALUES = new ConcurrentHashMap<>();

    private GraphConditionals() {}

    /** Sets a handle's value (a kernel's {@code cudaGraphSetConditional}, or the driver's default at a launch). */
    public static void set(long handle, int value) {
        VALUES.put(handle, value);
    }

    /** A handle's value: the last one set, 0 when never set. */
    public static int get(long handle) {
        return VALUES.getOrDefault(handle, 0);
    }
}
