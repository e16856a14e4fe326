package dev.zluda.cli;

import dev.zluda.spec.CudaApi;
import dev.zluda.spec.CudaFunction;
import dev.zluda.spec.CudaParam;
import dev.zluda.spec.ProcAddressTable;
import org.apache.commons.text.similarity.LevenshteinDistance;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code zluda spec}: questions about the CUDA driver API spec — the function list, one function's
 * signature with directions and sizes, and what {@code cuGetProcAddress} returns on NVIDIA's driver.
 */
@Command(name = "spec",
        mixinStandardHelpOptions = true,
        description = {"Show the CUDA driver API as zluda models it (CUDA 13.0's cuda.h and cudaProfiler.h),",
                "and the libraries' APIs (cuBLAS, cuBLASLt, cuFFT, cuSPARSE, cuDNN, NVML: --library, or a name such as cublasSgemm_v2).", ""},
        footer = {"", "Examples:",
                "  zluda spec --list | grep Memcpy",
                "  zluda spec cuMemcpyHtoD_v2",
                "  zluda spec cuCtxCreate                  (a base name shows every variant)",
                "  zluda spec --proc cuCtxCreate --cuda-version 12050",
                "  zluda spec --proc cuMemcpyHtoD --cuda-version 12000 --flags 2",
                "  zluda spec cublasLtMatmul               (a library function: its library's spec)",
                "  zluda spec --library cudnn --list",
                "",
                "Exit codes: 0 found, 2 unknown name or bad usage."})
final class SpecCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--list", description = "Print every function, one per line, in header order.")
    boolean list;

    @Option(names = "--group", paramLabel = "GROUP", description = "With --list: only this cuda.h group (e.g. CUDA_MEM).")
    String group;

    @Option(names = "--library", paramLabel = "LIB",
            description = "With --list: the functions of this library's spec (cublas, cublasLt, cufft, cusparse, cudnn, nvml) instead of the driver's.")
    String library;

    @Option(names = "--proc", description = "Print the variant cuGetProcAddress returns for NAME (a base name such as cuCtxCreate).")
    boolean proc;

    @Option(names = "--cuda-version", paramLabel = "V", defaultValue = "13000",
            description = "With --proc: the cudaVersion argument, major*1000+minor*10 (default ${DEFAULT-VALUE}).")
    int cudaVersion;

    @Option(names = "--flags", paramLabel = "F", defaultValue = "0",
            description = "With --proc: 0 default, 1 legacy default stream, 2 per-thread default stream (default ${DEFAULT-VALUE}).")
    long flags;

    @Parameters(arity = "0..1", paramLabel = "NAME", description = "A function name (cuMemAlloc_v2) or base name (cuMemAlloc).")
    String name;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        String lib = library != null ? library : name != null && !proc ? CudaApi.libraryOf(name) : CudaApi.DRIVER;
        if (!lib.equals(CudaApi.DRIVER) && !CudaApi.LIBRARIES.contains(lib)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "unknown library " + lib + "; known: " + String.join(", ", CudaApi.LIBRARIES));
        }
        CudaApi api = CudaApi.library(lib);
        if (list) {
            api.functions().stream().filter(f -> group == null || f.group().equalsIgnoreCase(group)).forEach(f -> out.println(f.name()));
            out.flush();
            return 0;
        }
        if (name == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "give a function NAME, or --list");
        }
        if (proc) return proc(api, out);
        // A base name shows every variant (cuCtxCreate: cuCtxCreate, _v2, _v3, _v4); a versioned name just itself.
        List<CudaFunction> fs = api.variants(name).size() > 1
                ? api.variants(name).stream().sorted(Comparator.comparing(CudaFunction::name)).toList()
                : api.function(name).map(List::of).orElse(api.variants(name));
        if (fs.isEmpty()) return unknown(api, name);
        for (int i = 0; i < fs.size(); i++) {
            if (i > 0) out.println();
            print(api, fs.get(i), out);
        }
        out.flush();
        return 0;
    }

    private static void print(CudaApi api, CudaFunction f, PrintWriter out) {
        out.println(f.prototype() + ";");
        out.printf("  id %d, group %s, %s:%d%s%n", f.id(), f.group(), f.header(), f.line(), f.deprecated() ? ", deprecated" : "");
        for (CudaParam p : f.params()) out.println("  " + p.describe());
        if (!f.creates().isEmpty()) out.println("  creates: " + String.join(", ", f.creates()));
        if (!f.destroys().isEmpty()) out.println("  destroys: " + String.join(", ", f.destroys()));
        if (!f.library().equals(CudaApi.DRIVER)) {
            out.println("  " + api.soname() + (api.exports().contains(f.name()) ? ", exported by NVIDIA's library" : ", not exported by NVIDIA's library")
                    + "; pointer directions by the overlay or the library rules (api-spec/SPEC.md, \"Library specs\")");
            return;
        }
        boolean unannotated = f.params().stream().anyMatch(p -> p.isPointer() && !p.annotated() && !(p.string() && p.cType().startsWith("const ")));
        if (unannotated) out.println("  (pointer directions not yet annotated for this function: shown as [in])");
        ProcAddressTable t = api.procAddress();
        String base = f.baseName();
        if (t.contains(base)) {
            describeRanges(t, base, 0, f.name(), "", out);
            describeRanges(t, base, 2, f.name(), " with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM", out);
        }
    }

    /** Prints the CUDA version ranges for which cuGetProcAddress(base, flags) returns this function. */
    private static void describeRanges(ProcAddressTable t, String base, int flags, String fn, String how, PrintWriter out) {
        var changes = t.changes(base, flags);
        for (int i = 0; i < changes.size(); i++) {
            var c = changes.get(i);
            if (!fn.equals(c.getValue().symbol())) continue;
            if (flags != 0 && fn.equals(t.lookup(base, c.getKey(), 0).symbol())) continue;
            String range = i + 1 < changes.size()
                    ? "for CUDA " + version(c.getKey()) + " to " + version(changes.get(i + 1).getKey() - 10)
                    : "from CUDA " + version(c.getKey()) + " on";
            out.printf("  cuGetProcAddress(\"%s\")%s returns it %s (measured on NVIDIA's driver)%n", base, how, range);
        }
    }

    private int proc(CudaApi api, PrintWriter out) {
        String base = CudaApi.baseName(name);
        ProcAddressTable t = api.procAddress();
        if (!t.contains(base)) return unknown(api, name);
        ProcAddressTable.Answer a = t.lookup(base, cudaVersion, flags);
        out.println(a.describe());
        out.flush();
        return 0;
    }

    private int unknown(CudaApi api, String what) {
        List<String> close = closest(what, Stream.concat(api.functions().stream().map(CudaFunction::name), api.baseNames().stream()).toList(), 5);
        PrintWriter err = spec.commandLine().getErr();
        err.println("zluda spec: error: no CUDA driver function named '" + what + "'. Closest: " + String.join(", ", close));
        err.flush();
        return 2;
    }

    /**
     * The {@code limit} names of {@code names} closest to {@code what}: by Levenshtein distance
     * ignoring case, then alphabetically; for the "did you mean" of an unknown name.
     */
    static List<String> closest(String what, java.util.Collection<String> names, int limit) {
        LevenshteinDistance d = LevenshteinDistance.getDefaultInstance();
        String lower = what.toLowerCase(Locale.ROOT);
        return names.stream().distinct()
                .map(n -> Map.entry(n, d.apply(lower, n.toLowerCase(Locale.ROOT))))
                .sorted(Comparator.comparingInt((Map.Entry<String, Integer> e) -> e.getValue()).thenComparing(Map.Entry::getKey))
                .limit(limit).map(Map.Entry::getKey).toList();
    }

    private static String version(int v) {
        return v / 1000 + "." + (v % 1000) / 10;
    }
}
