package dev.zluda.runtime.emulator;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Raw memory access for the emulator, and the layout of its generic address space (PTX ISA 9.0,
 * 5.1 "State Spaces" and 6.4.1.1 "Generic Addressing").
 *
 * <p>Global memory is the process's own memory: a device pointer is a native address, so a global
 * access is a native load or store after the address was checked against the driver's allocations.
 * Shared, local and kernel-parameter memory live in native buffers of the emulator; their state
 * space addresses are offsets (0-based, below 2^32), and their generic addresses are those offsets
 * inside a window of 2^32 bytes in the upper half of the 64-bit space, which no user-space pointer
 * on x86-64 Linux can take: shared at {@link #SHARED_WINDOW}, local at {@link #LOCAL_WINDOW},
 * kernel parameters at {@link #PARAM_WINDOW}. {@code cvta} adds or subtracts the window base.
 */
final class Mem {
    private Mem() {}

    /** Generic address of shared-space address 0 (each CTA sees its own shared memory there). */
    static final long SHARED_WINDOW = 0xFFFE_0000_0000_0000L;
    /** Generic address of local-space address 0 (each thread sees its own local memory there). */
    static final long LOCAL_WINDOW = 0xFFFD_0000_0000_0000L;
    /** Generic address of kernel-parameter-space address 0. */
    static final long PARAM_WINDOW = 0xFFFC_0000_0000_0000L;

    /** Every byte of the process: accesses through it are checked by the emulator before. */
    static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    static final VarHandle I32 = ValueLayout.JAVA_INT.varHandle();
    static final VarHandle I64 = ValueLayout.JAVA_LONG.varHandle();

    static final ValueLayout.OfByte B = ValueLayout.JAVA_BYTE;
    static final ValueLayout.OfShort S = ValueLayout.JAVA_SHORT_UNALIGNED;
    static final ValueLayout.OfInt I = ValueLayout.JAVA_INT_UNALIGNED;
    static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG_UNALIGNED;

    /** Loads {@code size} (1, 2, 4, 8) bytes at a checked native address, sign- or zero-extended to 64 bits. */
    static long load(long address, int size, boolean signed) {
        return switch (size) {
            case 1 -> signed ? ALL.get(B, address) : ALL.get(B, address) & 0xFFL;
            case 2 -> signed ? ALL.get(S, address) : ALL.get(S, address) & 0xFFFFL;
            case 4 -> signed ? ALL.get(I, address) : ALL.get(I, address) & 0xFFFF_FFFFL;
            default -> ALL.get(L, address);
        };
    }

    /** Stores the low {@code size} (1, 2, 4, 8) bytes of {@code value} at a checked native address. */
    static void store(long address, int size, long value) {
        switch (size) {
            case 1 -> ALL.set(B, address, (byte) value);
            case 2 -> ALL.set(S, address, (short) value);
            case 4 -> ALL.set(I, address, (int) value);
            default -> ALL.set(L, address, value);
        }
    }

    /** Which window a generic address is in: 'S', 'L', 'P', or 'G' for global. */
    static char window(long generic) {
        long hi = generic >>> 32;
        if (hi == SHARED_WINDOW >>> 32) return 'S';
        if (hi == LOCAL_WINDOW >>> 32) return 'L';
        if (hi == PARAM_WINDOW >>> 32) return 'P';
        return 'G';
    }

    static String hex(long a) {
        return "0x" + Long.toHexString(a);
    }
}
