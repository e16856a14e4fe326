package dev.zluda.runtime.driver;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import static dev.zluda.runtime.driver.Native.at;
import static dev.zluda.runtime.driver.Native.getInt;
import static dev.zluda.runtime.driver.Native.getLong;
import static dev.zluda.runtime.driver.Native.putLong;

/**
 * The JIT options of {@code cuModuleLoadDataEx} and {@code cuLibraryLoadData} that the loader answers (CUDA Driver
 * API, CUjit_option): the error and info log buffers with their sizes, verbose logging, and the wall time. Other valid options are
 * accepted and have no effect.
 */
final class JitLog {
    /** CUjit_option values the loader reads (cuda.h). */
    static final int JIT_WALL_TIME = 2, JIT_INFO_LOG_BUFFER = 3, JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4, JIT_ERROR_LOG_BUFFER = 5,
            JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6, JIT_LOG_VERBOSE = 12, JIT_NUM_OPTIONS = 35;

    private long errorBuffer, errorSize, infoBuffer, infoSize;
    private int errorSizeSlot = -1, infoSizeSlot = -1, wallTimeSlot = -1;
    private long values;
    /** CU_JIT_LOG_VERBOSE given non-zero: the info log gets the per-kernel lines, as ptxas -v prints them on NVIDIA's. */
    private boolean verbose;

    private JitLog() {}

    /**
     * Reads {@code n} CUjit_option values and their value words.
     *
     * @return the options; null when they are invalid (CUDA_ERROR_INVALID_VALUE): a negative count, NULL arrays for a
     *     positive count, an option outside CUjit_option
     */
    static JitLog parse(int n, long options, long values) {
        JitLog log = new JitLog();
        if (n == 0) return log;
        if (n < 0 || options == 0 || values == 0) return null;
        log.values = values;
        for (int i = 0; i < n; i++) {
            int opt = getInt(options + 4L * i);
            long v = getLong(values + 8L * i);
            switch (opt) {
                case JIT_ERROR_LOG_BUFFER -> log.errorBuffer = v;
                case JIT_ERROR_LOG_BUFFER_SIZE_BYTES -> { log.errorSize = v & 0xFFFF_FFFFL; log.errorSizeSlot = i; }
                case JIT_INFO_LOG_BUFFER -> log.infoBuffer = v;
                case JIT_INFO_LOG_BUFFER_SIZE_BYTES -> { log.infoSize = v & 0xFFFF_FFFFL; log.infoSizeSlot = i; }
                case JIT_WALL_TIME -> log.wallTimeSlot = i;
                case JIT_LOG_VERBOSE -> log.verbose = (int) v != 0;
                default -> {
                    if (opt < 0 || opt >= JIT_NUM_OPTIONS) return null;
                }
            }
        }
        return log;
    }

    /**
     * Writes a log into a caller buffer of {@code size} bytes, NUL-terminated; returns the bytes written
     * with the NUL, or 0 for an empty log: what NVIDIA's driver writes into the *_LOG_BUFFER_SIZE_BYTES
     * slot after a load that logged nothing (0 for both logs of cuModuleLoadDataEx in the H200 captures
     * samples/traces/h200/{matrixMul,reduction,histogram,scan}, which passed 8192 in).
     */
    private static long writeLog(long buffer, long size, String text) {
        if (buffer == 0 || size <= 0) return 0;
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        if (b.length == 0) {
            at(buffer, 1).set(ValueLayout.JAVA_BYTE, 0, (byte) 0);
            return 0;
        }
        int n = (int) Math.min(b.length, size - 1);
        MemorySegment out = at(buffer, size);
        MemorySegment.copy(b, 0, out, ValueLayout.JAVA_BYTE, 0, n);
        out.set(ValueLayout.JAVA_BYTE, n, (byte) 0);
        return n + 1;
    }

    /**
     * Answers the options after a load: the logs into their buffers (bytes written, NUL included, into the size
     * options' value words) and the wall time in milliseconds (a float in its value word).
     *
     * @param log the options, or null (a load without options)
     * @param nanos how long the load took
     */
    static void finish(JitLog log, String error, String info, long nanos) {
        if (log == null) return;
        long e = writeLog(log.errorBuffer, log.errorSize, error);
        // NVIDIA's JIT writes its info log (ptxas info lines) only with CU_JIT_LOG_VERBOSE
        long i = writeLog(log.infoBuffer, log.infoSize, log.verbose ? info : "");
        if (log.errorSizeSlot >= 0) putLong(log.values + 8L * log.errorSizeSlot, e);
        if (log.infoSizeSlot >= 0) putLong(log.values + 8L * log.infoSizeSlot, i);
        if (log.wallTimeSlot >= 0) {
            putLong(log.values + 8L * log.wallTimeSlot, 0);
            Native.putFloat(log.values + 8L * log.wallTimeSlot, nanos / 1e6f);
        }
    }
}
