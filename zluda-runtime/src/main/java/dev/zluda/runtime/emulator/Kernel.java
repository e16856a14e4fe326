package dev.zluda.runtime.emulator;

import dev.zluda.ptx.FunctionInfo;

/**
 * A kernel ({@code .entry}) of a loaded module, translated for the emulator.
 *
 * @param name         the kernel's name
 * @param info         the PTX front end's view: parameters (offsets and sizes in the parameter
 *                     buffer, what cuFuncGetParamInfo reports), registers, directives
 * @param program      the translated instructions; null for a kernel of the hip backend (a code object runs it)
 * @param staticShared bytes of static shared memory per CTA (CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
 * @param localBytes   bytes of local memory per thread (CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)
 * @param maxThreads   the most threads per block: 1024, or less as {@code .maxntid}/{@code .reqntid} say
 * @param reqntid      {@code .reqntid} x, y, z, or null
 * @param numRegs      32-bit registers the PTX declares and uses (1..255; CU_FUNC_ATTRIBUTE_NUM_REGS)
 */
public record Kernel(String name, FunctionInfo info, Program program, long staticShared, long localBytes, int maxThreads,
                     int[] reqntid, int numRegs) {
    /** Bytes of the kernel parameter buffer. */
    public long paramBytes() {
        return info.paramSize();
    }

    /**
     * Whether the kernel reads the grid workspace (%envreg1/%envreg2): cooperative_groups' {@code grid_group}, whose
     * {@code sync()} needs every CTA of the grid resident. NVIDIA's driver gives such a kernel a workspace in any
     * launch (an H200 runs grid.sync() in a plain launch of a resident grid: src/test/resources/coop/h200).
     */
    public boolean readsGridWorkspace() {
        if (program == null) return false; // a kernel another backend loaded: no emulator program
        for (int k : program.specialKinds) if (k == Specials.ENVREG1 || k == Specials.ENVREG2) return true;
        return false;
    }

    /** Number of decoded instructions (after inlining device functions). */
    public int instructions() {
        return program.code.length;
    }
}
