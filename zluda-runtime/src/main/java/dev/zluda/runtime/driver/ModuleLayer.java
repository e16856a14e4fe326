package dev.zluda.runtime.driver;

import dev.zluda.spec.CudaApi;

import java.lang.foreign.MemorySegment;

/**
 * Modules, functions and kernel launches (CUDA Driver API groups CUDA_MODULE, CUDA_LIBRARY,
 * CUDA_EXEC, CUDA_OCCUPANCY): not implemented yet; every function returns CUDA_ERROR_NOT_SUPPORTED.
 */
abstract class ModuleLayer extends StreamLayer {
    ModuleLayer(CudaApi api, MemorySegment exports) {
        super(api, exports);
    }
}
