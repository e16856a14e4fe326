package dev.zluda.runtime.emulator;

/**
 * The conformance sweep's way into the emulator: loads PTX without requiring its instruction forms to be among the
 * checked ones ({@link dev.zluda.ptx.EmulatorForms}), so that the sweep can tell what the translator executes and
 * run forms that the list leaves out (the known differences), which establishes that list.
 */
public final class SweepLoad {
    private SweepLoad() {}

    /** {@link EmulatorModule#load(String, String, EmulatorModule.Allocator, boolean)} without the check of forms. */
    public static EmulatorModule load(String ptx, String source, EmulatorModule.Allocator alloc) throws PtxLoadException {
        return EmulatorModule.load(ptx, source, alloc, false);
    }
}
