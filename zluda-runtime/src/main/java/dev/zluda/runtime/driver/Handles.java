package dev.zluda.runtime.driver;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Opaque handle values ({@code CUcontext}, {@code CUstream}, {@code CUevent}, ...) for driver
 * objects. Values are deterministic — {@code 0x5a4c_TT00_0000_0000 + 16·n} with TT the kind — so
 * two runs of the same program hand out the same handles, which keeps captures comparable; a
 * value is never reused, so a stale handle is always recognised as invalid. Thread-safe.
 *
 * @param <T> the driver object behind the handle
 */
final class Handles<T> {
    private final long base;
    private final AtomicLong next = new AtomicLong();
    private final ConcurrentHashMap<Long, T> live = new ConcurrentHashMap<>();

    /** @param kind 1..255, distinct per handle type */
    Handles(int kind) {
        this.base = 0x5a4c_0000_0000_0000L | ((long) kind << 40);
    }

    /** Registers an object and returns its new handle. */
    long add(T object) {
        long h = base + 16 * next.incrementAndGet();
        live.put(h, object);
        return h;
    }

    /** A new handle value, not yet bound to an object (for objects that must know their own handle). */
    long reserve() {
        return base + 16 * next.incrementAndGet();
    }

    /** Binds an object to a handle value from {@link #reserve()}. */
    void put(long handle, T object) {
        live.put(handle, object);
    }

    /** The object behind a handle, or null when the handle is unknown or was removed. */
    T get(long handle) {
        return live.get(handle);
    }

    /**
     * Whether {@code handle} is a value this table handed out, live or not: a removed handle is recognised as stale
     * (values are never reused), anything else as a handle nobody made.
     */
    boolean issued(long handle) {
        long n = handle - base;
        return n > 0 && (n & 15) == 0 && n / 16 <= next.get();
    }

    /** Removes a handle; returns its object or null when it was not live. */
    T remove(long handle) {
        return live.remove(handle);
    }

    /** Live objects. */
    java.util.Collection<T> values() {
        return live.values();
    }
}
