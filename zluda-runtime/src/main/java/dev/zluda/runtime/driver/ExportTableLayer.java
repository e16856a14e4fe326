package dev.zluda.runtime.driver;

import dev.zluda.spec.CudaApi;

import java.lang.foreign.MemorySegment;

/**
 * {@code cuGetExportTable} and the undocumented tables the CUDA runtime relies on: not implemented
 * yet; cuGetExportTable returns CUDA_ERROR_NOT_SUPPORTED.
 */
abstract class ExportTableLayer extends ModuleLayer {
    ExportTableLayer(CudaApi api, MemorySegment exports) {
        super(api, exports);
    }
}
