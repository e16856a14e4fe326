package dev.zluda.runtime.driver;

import dev.zluda.spec.CudaApi;

import java.lang.foreign.MemorySegment;

/**
 * The zluda CUDA driver, as native callers see it through {@code libcuda.so.1}. Every method
 * implements the CUDA Driver API function of the same name (CUDA 13.0 semantics); the layers it is
 * built from each cover one area: {@link DeviceLayer} (init, version, device, errors, entry
 * points), {@link ContextLayer}, {@link MemoryLayer}, {@link StreamLayer} (streams, events),
 * {@link ModuleLayer} (modules, launches), {@link ExportTableLayer} (cuGetExportTable),
 * {@link CudartLayer} (device printf output; what nvcc-built programs need besides; CUDA arrays),
 * {@link TextureLayer} (texture and surface objects). What
 * no layer implements returns {@code CUDA_ERROR_NOT_SUPPORTED} and is reported once on stderr;
 * docs/support.md lists what is implemented ({@link Support}).
 */
public final class ZludaDriver extends TextureLayer {
    /** CUDA_ERROR_INVALID_VALUE. */
    static final int INVALID_VALUE = CuResult.INVALID_VALUE;
    /** The version {@code cuDriverGetVersion} reports. */
    public static final int DRIVER_VERSION = DeviceArea.DRIVER_VERSION;
    /** The name of device 0. */
    public static final String DEVICE_NAME = DeviceArea.DEVICE_NAME;

    /**
     * @param api the spec
     * @param exports {@code zl_functions[]}: the native export of every spec function, by id; may be
     *     {@link MemorySegment#NULL} when no native library is loaded (tests), then
     *     cuGetProcAddress returns null pointers
     */
    public ZludaDriver(CudaApi api, MemorySegment exports) {
        super(api, exports);
    }
}
