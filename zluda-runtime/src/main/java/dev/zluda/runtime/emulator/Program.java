package dev.zluda.runtime.emulator;

/**
 * A kernel in the emulator's internal form: its instructions decoded once ({@link Op}[]), the size
 * of its register files, the constants and special registers to preload, and its memory needs.
 * Immutable and shared by every launch of the kernel.
 */
final class Program {
    final String name;
    final String source;
    final Op[] code;
    /** Number of 64-bit register slots per lane (variables, constants, special registers). */
    final int slots;
    /** Number of predicate registers. */
    final int preds;
    /** Slots (already multiplied by 32) holding constants, and their values. */
    final int[] constSlots;
    final long[] constValues;
    /** Slots holding special registers, and which register each holds ({@link Specials}). */
    final int[] specialSlots;
    final int[] specialKinds;
    /** Predicate index that is always true (all lanes), or -1. */
    final int truePred;
    /** Bytes of static shared memory; dynamic shared memory starts at {@link #dynamicSharedOffset}. */
    final long staticShared;
    final long dynamicSharedOffset;
    /** Bytes of local memory per thread (local variables, call parameters). */
    final long frameBytes;
    /** Bytes of the kernel parameter buffer. */
    final long paramBytes;
    /**
     * Slots of the per-lane stack pointer and frame pointer ({@link CallOps}), or -1 when the kernel
     * makes no out-of-line call and no {@code alloca}/{@code stacksave}: then it has no stack.
     */
    int spSlot = -1, fpSlot = -1;

    /** What {@link #compiled()} returned: null before the first call, {@link #NOT_COMPILED} when there is nothing to run compiled. */
    private Object compiled;
    private static final Object NOT_COMPILED = new Object();
    /** {@link #compiled} once it is known, for {@link #compiledWhenReady} to read without the lock. */
    private volatile Object published;
    private boolean compiling;

    /**
     * The program compiled to bytecode if the compiler has finished with it; otherwise null (the launch runs on the
     * interpreter, with the same results) after starting the compiler on a background thread the first time. So a
     * kernel's first launch does not wait for the compiler. With the system property {@code zluda.jit.strict} (the
     * tests) it compiles at once, as {@link #compiled()}.
     */
    JitCompiler.Result compiledWhenReady() {
        Object c = published;
        if (c != null) return c instanceof JitCompiler.Result r ? r : null;
        if (Boolean.getBoolean("zluda.jit.strict")) return compiled();
        synchronized (this) {
            if (compiling) return null;
            compiling = true;
        }
        Thread.ofPlatform().daemon().name("zluda-jit " + name).start(this::compiled);
        return null;
    }

    /**
     * The program compiled to bytecode ({@link JitCompiler}), compiled at the first call; null when it has no region
     * to compile or the compiler failed (then the interpreter runs it; {@code ZLUDA_DEBUG} prints why).
     *
     * @throws IllegalStateException when the compiler failed and the system property {@code zluda.jit.strict} is true
     *     (the tests set it)
     */
    synchronized JitCompiler.Result compiled() {
        if (compiled == null) {
            try {
                long t0 = System.nanoTime();
                JitCompiler.Result r = JitCompiler.compile(this);
                compiled = r == null ? NOT_COMPILED : r;
                if (System.getenv("ZLUDA_DEBUG") != null) {
                    System.err.printf(java.util.Locale.ROOT, "[ZLUDA] kernel %s: %s in %.1f ms%n", name, r == null ? "nothing to compile"
                            : r.regions() + " regions compiled lane by lane (" + r.compiledOps() + " instructions), " + r.warpRegions() + " warp regions ("
                            + r.warpOps() + " instructions), of " + code.length + " instructions", (System.nanoTime() - t0) / 1e6);
                }
            } catch (RuntimeException | LinkageError e) {
                // the tests set zluda.jit.strict: a kernel the compiler fails on is a compiler bug to see, not to hide
                if (Boolean.getBoolean("zluda.jit.strict")) throw new IllegalStateException("kernel " + name + ": the compiler failed: " + e, e);
                if (System.getenv("ZLUDA_DEBUG") != null) {
                    System.err.println("[ZLUDA] kernel " + name + ": not compiled, the interpreter runs it: " + e);
                    e.printStackTrace();
                }
                compiled = NOT_COMPILED;
            }
        }
        published = compiled;
        return compiled instanceof JitCompiler.Result r ? r : null;
    }

    /** The out-of-line functions and the stack bytes each call of them takes ("f 24, g 32"), empty when none. */
    String callFrames = "";

    /** Whether threads of this kernel need a stack after their static frame. */
    boolean usesStack() {
        return spSlot >= 0;
    }

    Program(String name, String source, Op[] code, int slots, int preds, int[] constSlots, long[] constValues,
            int[] specialSlots, int[] specialKinds, int truePred, long staticShared, long dynamicSharedOffset,
            long frameBytes, long paramBytes) {
        this.name = name;
        this.source = source;
        this.code = code;
        this.slots = slots;
        this.preds = preds;
        this.constSlots = constSlots;
        this.constValues = constValues;
        this.specialSlots = specialSlots;
        this.specialKinds = specialKinds;
        this.truePred = truePred;
        this.staticShared = staticShared;
        this.dynamicSharedOffset = dynamicSharedOffset;
        this.frameBytes = frameBytes;
        this.paramBytes = paramBytes;
    }
}
