package dev.zluda.runtime.driver;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Reads and writes the caller's memory at raw addresses (the arguments of a CUDA call). */
final class Native {
    private Native() {}

    static MemorySegment at(long address, long bytes) {
        return MemorySegment.ofAddress(address).reinterpret(bytes);
    }

    static void putInt(long address, int value) {
        at(address, 4).set(ValueLayout.JAVA_INT_UNALIGNED, 0, value);
    }

    static void putLong(long address, long value) {
        at(address, 8).set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
    }

    static void putFloat(long address, float value) {
        at(address, 4).set(ValueLayout.JAVA_FLOAT_UNALIGNED, 0, value);
    }

    static int getInt(long address) {
        return at(address, 4).get(ValueLayout.JAVA_INT_UNALIGNED, 0);
    }

    static long getLong(long address) {
        return at(address, 8).get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
    }
}
