package dev.zluda.diff;

import java.util.Locale;
import java.util.Set;

/**
 * Differences that two correct runs show anyway, on different GPUs, drivers or processes. They are
 * not reported as divergences unless {@link DiffOptions#strict()} is set; the report lists them as
 * ignored. {@link #classify} holds the rules.
 */
public enum Expected {
    /** The device's name ({@code cuDeviceGetName}). */
    DEVICE_NAME("device name"),
    /** The driver's version ({@code cuDriverGetVersion}, the manifest's driver). */
    DRIVER_VERSION("driver version"),
    /** Device UUIDs, LUIDs and PCI bus ids. */
    UUID("uuid"),
    /** Properties of the device: attributes, total and free memory, compute capability. */
    DEVICE_PROPERTY("device property"),
    /** Host addresses: pointer arguments, pointers written by the driver, function pointers. */
    ADDRESS("address"),
    /** Timings ({@code cuEventElapsedTime}). */
    TIMING("timing"),
    /** Values of the runtime's integrity check (export table INTEGRITY_CHECK). */
    INTEGRITY_CHECK("integrity check"),
    /**
     * Export-table pointers ({@code cuGetExportTable}), whether a table is provided at all (its result: NVIDIA's
     * driver answers cudart 13's first question, table {@code f8cff951-…}, which zluda's does not serve and cudart
     * does without), and calls through export-table slots ({@code {GUID}::slot N}: the NVIDIA tracer records them,
     * zluda's driver does not).
     */
    EXPORT_TABLE("export table"),
    /** Arguments of functions the API spec does not know, whose meaning is therefore unknown. */
    UNTYPED("untyped argument"),
    /**
     * Host data (the bytes behind a {@code void *} a call passed or got back) that only one capture
     * holds because the two were recorded at different capture levels: level {@code calls} keeps
     * none, level {@code replay} keeps them (the manifest's {@code capture.data}).
     */
    CAPTURE_LEVEL("capture level"),
    /**
     * A library's own choices, which another implementation of the same library makes differently:
     * the algorithms its heuristics return and programs pass back ({@code cublasLtMatmulAlgoGetHeuristic}'s
     * results, {@code cublasLtMatmul}'s {@code algo}), workspace sizes, and its version numbers
     * ({@code cublasGetVersion_v2}, {@code cudnnGetVersion}).
     */
    LIBRARY_CHOICE("library choice"),
    /**
     * Calls made inside a library call (the driver calls NVIDIA's cuBLAS makes inside
     * {@code cublasSgemm_v2}, cuBLAS's calls into cuBLASLt), and calls outside them on a module or
     * library that a library loaded inside one, and the primary-context releases of the CUDA runtime
     * linked into NVIDIA's libraries (their teardown at exit unloads the modules and releases the context
     * they retained inside a library call): how a library does its work is its own business,
     * which another implementation (zluda's cuBLAS) does differently. Left out of the alignment and
     * counted per side unless {@link DiffOptions#comparesLibraryInternals()}.
     */
    LIBRARY_INTERNALS("library internal"),
    /**
     * Destroys (frees, unloads, stream and event destroys) of a run of consecutive destroys that the two sides make in
     * another order: the program cannot observe their order, and runtimes walk their own lists (cudart's teardown
     * unloads its libraries in the order of its hash table). They are paired and compared all the same; counted here
     * unless {@link DiffOptions#strict()}, which leaves them unpaired.
     */
    DESTROY_ORDER("destroy order");

    private final String label;

    Expected(String label) {
        this.label = label;
    }

    /** Lower-case words used in reports and JSON, e.g. {@code device name}. */
    public String label() {
        return label;
    }

    /** The libraries' functions (FORMAT.md §6.10, "Library functions"). */
    private static final java.util.regex.Pattern LIBRARY = java.util.regex.Pattern.compile("cublas|cudnn|cufft|cusparse|nvml");
    /** Library functions whose outputs are the implementation's choices: algorithms, workspace sizes, versions. */
    private static final java.util.regex.Pattern LIBRARY_CHOICE_FUNCTIONS = java.util.regex.Pattern.compile(
            "Heuristic|AlgoGetIds|AlgoInit|AlgoCheck|AlgoCapGetAttribute|AlgoConfigGetAttribute|WorkspaceSize|GetVersion|GetProperty|GetCudartVersion|Find\\w*Algorithm|Get\\w*Algorithm");
    /** Parameters through which programs pass a library's choices back to it. */
    private static final Set<String> LIBRARY_CHOICE_PARAMS = Set.of("algo", "workspace", "workspaceSizeInBytes", "workSpace", "workSpaceSizeInBytes");

    /**
     * The expected difference that a different result of this function is, or null when the results must be equal:
     * {@code cuGetExportTable} ({@link #EXPORT_TABLE}; the undocumented tables are each driver's own).
     *
     * @param baseName the function's base name
     */
    public static Expected ofResult(String baseName) {
        return baseName.equals("cuGetExportTable") ? EXPORT_TABLE : null;
    }

    private static final Set<String> PROPERTY_FUNCTIONS = Set.of("cuDeviceGetAttribute", "cuDeviceGetProperties",
            "cuDeviceTotalMem", "cuMemGetInfo", "cuDeviceComputeCapability", "cuDeviceGetTexture1DLinearMaxWidth");

    /**
     * The expected difference that a value written or passed to this function's parameter is, or
     * null when the value must be equal.
     *
     * @param baseName the function's base name ({@code cuDeviceTotalMem} for {@code cuDeviceTotalMem_v2})
     * @param param the parameter's name
     * @param output whether the value is written by the driver
     */
    public static Expected classify(String baseName, String param, boolean output) {
        if (baseName.toUpperCase(Locale.ROOT).contains("INTEGRITY")) return output ? INTEGRITY_CHECK : null;
        if (LIBRARY.matcher(baseName).lookingAt()) {
            if (output && LIBRARY_CHOICE_FUNCTIONS.matcher(baseName).find()) return LIBRARY_CHOICE;
            if (LIBRARY_CHOICE_PARAMS.contains(param)) return LIBRARY_CHOICE;
            return output && baseName.endsWith("GetVersion") ? LIBRARY_CHOICE : null;
        }
        if (!output) return null;
        return switch (baseName) {
            case "cuDeviceGetName" -> DEVICE_NAME;
            case "cuDriverGetVersion" -> DRIVER_VERSION;
            case "cuDeviceGetUuid", "cuDeviceGetLuid", "cuDeviceGetPCIBusId" -> UUID;
            case "cuEventElapsedTime" -> TIMING;
            case "cuGetExportTable" -> param.equals("ppExportTable") ? EXPORT_TABLE : null;
            default -> PROPERTY_FUNCTIONS.contains(baseName) ? DEVICE_PROPERTY : null;
        };
    }
}
