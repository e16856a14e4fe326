package dev.zluda.spec;

import java.util.List;
import java.util.Optional;

/**
 * One function of the CUDA driver API as cuda.h declares it, or of a library's API as its header does (one entry per versioned name:
 * {@code cuMemAlloc}, {@code cuMemAlloc_v2}, {@code cuMemcpyHtoD_v2_ptds} are three functions).
 *
 * @param id index in {@link CudaApi#functions()}, in header declaration order (stable for one spec)
 * @param name the exported symbol name
 * @param baseName the name {@code cuGetProcAddress} is asked for ({@code cuMemAlloc} for {@code cuMemAlloc_v2})
 * @param group the cuda.h Doxygen group, e.g. {@code CUDA_MEM}
 * @param header {@code cuda.h} or {@code cudaProfiler.h}
 * @param line line of the declaration in that header
 * @param returnType {@code CUresult} for every driver function
 * @param params the parameters in C order
 * @param deprecated whether the declaration carries {@code __attribute__((deprecated))}
 * @param creates names of parameters through which the call returns a new handle or allocation
 * @param destroys names of parameters whose handle or allocation the call ends
 * @param library the API the function belongs to: {@code cuda} (the driver) or a library's short
 *     name ({@code cublas}, {@code cublasLt}, ...; {@link CudaApi#library(String)})
 * @param role what the function does ({@code cuda-api-driver.yaml}, by base name); {@link Role#NONE} when unassigned
 *     (every library function)
 */
public record CudaFunction(int id, String name, String baseName, String group, String header, int line,
                           String returnType, List<CudaParam> params, boolean deprecated,
                           List<String> creates, List<String> destroys, String library, Role role) {

    /** Whether the function has this role. */
    public boolean is(Role r) {
        return role == r;
    }

    /** The parameter with this name, if any. */
    public Optional<CudaParam> param(String paramName) {
        return params.stream().filter(p -> p.name().equals(paramName)).findFirst();
    }

    /** The C prototype, e.g. {@code CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)}. */
    public String prototype() {
        StringBuilder sb = new StringBuilder(returnType).append(' ').append(name).append('(');
        for (int i = 0; i < params.size(); i++) {
            CudaParam p = params.get(i);
            if (i > 0) sb.append(", ");
            sb.append(p.cType());
            if (!p.cType().endsWith("*")) sb.append(' ');
            sb.append(p.name());
        }
        return sb.append(')').toString();
    }
}
