package dev.zluda.capture;

import dev.zluda.spec.CudaApi;
import dev.zluda.spec.CudaFunction;

import java.util.ArrayList;
import java.util.List;

/**
 * One entry of a capture's function table (FORMAT.md §6.10).
 *
 * @param name the exported function name, e.g. {@code cuMemAlloc_v2}
 * @param paramCount number of C parameters (0..255)
 */
public record FunctionDef(String name, int paramCount) {
    /** The table a writer built from this spec uses: every spec function, ids = spec ids. */
    public static List<FunctionDef> fromSpec(CudaApi api) {
        List<FunctionDef> out = new ArrayList<>(api.functions().size());
        for (CudaFunction f : api.functions()) out.add(new FunctionDef(f.name(), f.params().size()));
        return List.copyOf(out);
    }
}
