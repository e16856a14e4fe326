package dev.zluda.ptx;

import java.util.List;
import java.util.Map;

/**
 * The result of {@link Semantics#analyze}: a module's functions, global variables and the
 * semantic errors found (undefined symbols, redeclarations, bad declarations, unknown instructions,
 * operand type mismatches), each with line and column.
 *
 * @param versionMajor .version major (0 when missing)
 * @param versionMinor .version minor
 * @param targets      the .target names
 * @param addressSize  .address_size (32 when the directive is absent, per ISA 11.2.3)
 * @param functions    all functions by name (a prototype and its definition are one entry, the definition's)
 * @param globals      module-scope variables by name
 * @param diagnostics  semantic problems in source order
 */
public record ModuleModel(int versionMajor, int versionMinor, List<String> targets, int addressSize,
                          Map<String, FunctionInfo> functions, Map<String, VariableInfo> globals,
                          List<Diagnostic> diagnostics) {
    public ModuleModel {
        targets = List.copyOf(targets);
        functions = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(functions));
        globals = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(globals));
        diagnostics = List.copyOf(diagnostics);
    }

    /** The kernels ({@code .entry}) in source order. */
    public List<FunctionInfo> kernels() {
        return functions.values().stream().filter(FunctionInfo::entry).toList();
    }

    /** The function with this name, or {@code null}. */
    public FunctionInfo function(String name) {
        return functions.get(name);
    }

    /** {@code true} when no error was found. */
    public boolean ok() {
        return diagnostics.stream().noneMatch(Diagnostic::isError);
    }
}
