package dev.zluda.spec.gen;

import java.util.List;
import java.util.Optional;

/**
 * What one API spec is generated from: the headers whose declarations it covers, the translation
 * unit that declares them, which function names belong to the API, and where the generated file
 * goes. {@link #DRIVER} is the CUDA driver API ({@code cuda-api.json}); {@link #LIBRARIES} are the
 * performance libraries that sit on top of it (cuBLAS, cuBLASLt, cuFFT, cuSPARSE, cuDNN, NVML),
 * one spec each ({@code <library>-api.json}), loaded by {@link dev.zluda.spec.CudaApi#library}.
 *
 * @param library the API's short name: {@code cuda}, {@code cublas}, {@code cublasLt}, ...
 * @param soname the shared library that exports its functions, e.g. {@code libcublas.so.13}
 * @param cxx whether the translation unit is compiled as C++ (cublas_api.h declares its
 *     half-precision functions, {@code cublasHgemm} among them, only for C++)
 * @param headers the headers whose functions, enums, records and typedefs the spec covers
 * @param typeHeaders headers whose enums, records and typedefs (not functions) the spec also
 *     carries, because the API's functions take them ({@code library_types.h}'s {@code cudaDataType_t})
 * @param tu the lines of the translation unit, in order ({@code #define}s and {@code #include}s)
 * @param functionPrefixes a function belongs to the API when its name starts with one of these
 * @param excludePrefixes ... and with none of these ({@code cublasLt} is not cuBLAS's)
 * @param macroTu the translation unit in which the API's redirecting macros
 *     ({@code #define cublasSgemm cublasSgemm_v2}) are expanded, empty for none
 * @param macroHeaders the headers those macros are read from
 * @param versionMacro the macro holding the API's version number ({@code CUBLAS_VERSION}), or null
 * @param resource the file name of the generated spec under {@code dev/zluda/spec/}
 */
public record SpecSource(String library, String soname, boolean cxx, List<String> headers, List<String> typeHeaders,
                         List<String> tu, List<String> functionPrefixes, List<String> excludePrefixes,
                         List<String> macroTu, List<String> macroHeaders, String versionMacro, String resource) {

    /** The CUDA driver API: cuda.h, cudaProfiler.h and the GL, EGL and VDPAU interop headers. */
    public static final SpecSource DRIVER = new SpecSource("cuda", "libcuda.so.1", false,
            List.of("cuda.h", "cudaProfiler.h", "cudaGL.h", "cudaEGL.h", "cudaVDPAU.h"), List.of(),
            List.of("#define __CUDA_API_VERSION_INTERNAL 1", "#include <cuda.h>", "#include <cudaProfiler.h>",
                    "#include <cudaGL.h>", "#include <cudaEGL.h>", "#include <vdpau/vdpau.h>", "#include <cudaVDPAU.h>"),
            List.of("cu"), List.of(), List.of(), List.of(), "CUDA_VERSION", "cuda-api.json");

    /**
     * cuBLAS (libcublas.so.13): the v2 API of cublas_api.h, the legacy API of cublas.h and cublasXt.h,
     * all exported by the same library. cublas.h and cublas_v2.h refuse to be included together;
     * cublasXt.h includes cublas_v2.h, whose declarations cublas.h has already made, so its guard is
     * defined first. The v2 names programs call (cublasSgemm → cublasSgemm_v2) come from cublas_v2.h's
     * macros, expanded in a translation unit of their own.
     */
    public static final SpecSource CUBLAS = new SpecSource("cublas", "libcublas.so.13", true,
            List.of("cublas_api.h", "cublas.h", "cublasXt.h"), List.of("library_types.h"),
            List.of("#include <cublas.h>", "#define CUBLAS_V2_H_ 1", "#include <cublasXt.h>"),
            List.of("cublas"), List.of("cublasLt"), List.of("#include <cublas_v2.h>"), List.of("cublas_v2.h"),
            "CUBLAS_VERSION", "cublas-api.json");

    /** cuBLASLt (libcublasLt.so.13): cublasLt.h. */
    public static final SpecSource CUBLASLT = new SpecSource("cublasLt", "libcublasLt.so.13", false,
            List.of("cublasLt.h"), List.of("cublas_api.h", "library_types.h"),
            List.of("#include <cublasLt.h>"), List.of("cublasLt"), List.of(), List.of(), List.of(), "CUBLAS_VERSION",
            "cublasLt-api.json");

    /**
     * cuFFT (libcufft.so.12): cufft.h and cufftXt.h (the cufftXt* functions PyTorch and CuPy plan
     * and run their FFTs with), with the multi-GPU descriptors of cudalibxt.h it includes.
     */
    public static final SpecSource CUFFT = new SpecSource("cufft", "libcufft.so.12", false,
            List.of("cufft.h", "cufftXt.h", "cudalibxt.h"), List.of("library_types.h"),
            List.of("#include <cufftXt.h>"), List.of("cufft"), List.of(), List.of(), List.of(),
            "CUFFT_VERSION", "cufft-api.json");

    /** cuSPARSE (libcusparse.so.12): cusparse.h. */
    public static final SpecSource CUSPARSE = new SpecSource("cusparse", "libcusparse.so.12", false,
            List.of("cusparse.h"), List.of("library_types.h"),
            List.of("#include <cusparse.h>"), List.of("cusparse"), List.of(), List.of(), List.of(), "CUSPARSE_VERSION",
            "cusparse-api.json");

    /** cuDNN 9 (libcudnn.so.9): cudnn.h and the headers it includes (graph, ops, cnn, adv, version). */
    public static final SpecSource CUDNN = new SpecSource("cudnn", "libcudnn.so.9", false,
            List.of("cudnn.h", "cudnn_version.h", "cudnn_graph.h", "cudnn_ops.h", "cudnn_adv.h", "cudnn_cnn.h", "cudnn_backend.h",
                    "cudnn_v9.h", "cudnn_version_v9.h", "cudnn_graph_v9.h", "cudnn_ops_v9.h", "cudnn_adv_v9.h", "cudnn_cnn_v9.h",
                    "cudnn_backend_v9.h"),
            List.of("library_types.h"),
            List.of("#include <cudnn.h>"), List.of("cudnn"), List.of(), List.of(), List.of(), "CUDNN_VERSION",
            "cudnn-api.json");

    /**
     * NVML (libnvidia-ml.so.1): nvml.h, with {@code NVML_NO_UNVERSIONED_FUNC_DEFS} so that both the
     * legacy and the versioned names are declared as themselves ({@code nvmlInit}, {@code nvmlInit_v2}),
     * as cuda.h's {@code __CUDA_API_VERSION_INTERNAL} does for the driver; the macros that map one to
     * the other are expanded without it.
     */
    public static final SpecSource NVML = new SpecSource("nvml", "libnvidia-ml.so.1", false,
            List.of("nvml.h"), List.of(),
            List.of("#define NVML_NO_UNVERSIONED_FUNC_DEFS 1", "#include <nvml.h>"), List.of("nvml"), List.of(),
            List.of("#include <nvml.h>"), List.of("nvml.h"), "NVML_API_VERSION", "nvml-api.json");

    /** The libraries, in the order their specs are generated and listed. */
    public static final List<SpecSource> LIBRARIES = List.of(CUBLAS, CUBLASLT, CUFFT, CUSPARSE, CUDNN, NVML);

    /** The source of a library's spec by its short name. */
    public static Optional<SpecSource> library(String name) {
        return LIBRARIES.stream().filter(s -> s.library.equals(name)).findFirst();
    }

    /** Whether this is the CUDA driver API. */
    public boolean driver() {
        return library.equals("cuda");
    }

    /** Whether a function of this name belongs to the API. */
    public boolean owns(String function) {
        for (String x : excludePrefixes) if (function.startsWith(x)) return false;
        for (String p : functionPrefixes) if (function.startsWith(p)) return true;
        return false;
    }

    /** Whether declarations of this header (a file name without directories) are part of the spec. */
    public boolean covers(String header) {
        return headers.contains(header);
    }

    /** Whether the enums, records and typedefs of this header are part of the spec. */
    public boolean coversTypes(String header) {
        return headers.contains(header) || typeHeaders.contains(header);
    }
}
