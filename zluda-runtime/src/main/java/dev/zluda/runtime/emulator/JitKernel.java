package dev.zluda.runtime.emulator;

/**
 * A kernel's {@link Program} compiled to JVM bytecode by {@link JitCompiler}: the superclass of the hidden class
 * generated for it. The compiled code runs <em>regions</em> of the program for the running group of a {@link Warp}:
 * lane regions (maximal runs of instructions that only compute into registers or read memory, branches among them
 * included) lane after lane, with the registers in JVM locals, and warp regions ({@link JitWarpEmitter}: the other
 * instructions but exits, barriers and calls) in lockstep; the rest keeps running through the {@link Op}s of the
 * program ({@link Warp#run}). One instance per {@link Program}, shared by every launch and thread.
 */
abstract class JitKernel {
    /**
     * Runs region {@code region} for the running group of {@code w} ({@code w.active} at {@code w.pc}), entered at
     * its entry block {@code entry} (instruction {@code startPc}). In a lane region every lane runs until it leaves
     * the region (or, in a loop, until it has executed {@code budget} instructions); then the lanes are regrouped as
     * the interpreter would ({@link Warp#afterRegion}). A warp region runs as {@link JitWarpEmitter} says.
     *
     * @return the warp-instructions to charge to the warp's slice (in a lane region the most any lane executed), or -1
     *     when a lane of a lane region faulted: then the lanes that did not finish are the running group again at
     *     {@code startPc} and the caller must let the interpreter run them, so that the fault is the interpreter's
     *     ({@link Warp#regionFault}); a warp region throws the interpreter's fault itself
     */
    abstract int run(int region, int entry, int startPc, Warp w, int budget);

    /** {@link Op#REGION}: the entry of a compiled region at this instruction, in {@link Program#jitCode}. */
    static final class Entry extends Op {
        final int region, entry;

        Entry(int region, int entry, Op original) {
            super(REGION);
            this.region = region;
            this.entry = entry;
            this.line = original.line;
            this.form = original.form;
        }
    }
}
