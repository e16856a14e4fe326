package dev.zluda.runtime.driver;

/**
 * Sees the module images the zluda driver loads other than through a spec function, i.e. the
 * fatbins the CUDA runtime registers through CUDART_INTERFACE slots 1, 6 and 8 of the export
 * tables (shared/reference/cuda-facts.md, "Export tables"): how the trace layer records them as
 * MODULE records (trace-format/FORMAT.md §6.4) when no recorded call carries them. Loads through
 * {@code cuModuleLoadData} and the other spec functions are seen by the trace layer from the call's
 * arguments, not here. Called on the loading thread after each load, successful or not (a capture
 * keeps the image a failed load's error message points at); an observer must not throw (the driver
 * ignores what it throws, and the load's result is decided already).
 */
@FunctionalInterface
public interface ModuleImageObserver {
    /**
     * One load, successful or not.
     *
     * @param via where it came from, e.g. {@code CUDART_INTERFACE slot 1}
     * @param image address of the image the program handed over (a fatbin wrapper or fatbin header),
     *     readable for the life of the process (program images are static data)
     * @param handle the CUmodule handle the load produced; 0 when the load failed
     */
    void loaded(String via, long image, long handle);
}
