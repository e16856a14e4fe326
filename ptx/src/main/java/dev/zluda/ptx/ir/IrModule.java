package dev.zluda.ptx.ir;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.Diagnostic;
import dev.zluda.ptx.ModuleModel;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A PTX module in the typed IR ({@link IrBuilder#build}): every function of the checked module with its body's
 * instructions decoded.
 *
 * @param ast         the parsed module (module-level declarations and their initializers)
 * @param model       the front end's checked model
 * @param functions   every function by name, in the model's order
 * @param diagnostics what could not be decoded, with file, line and column (empty for a module the front end accepted)
 */
public record IrModule(Ast.Module ast, ModuleModel model, Map<String, IrFunction> functions, List<Diagnostic> diagnostics) {
    public IrModule {
        functions = Collections.unmodifiableMap(new LinkedHashMap<>(functions));
        diagnostics = List.copyOf(diagnostics);
    }

    /** The function of this name, or null. */
    public IrFunction function(String name) { return functions.get(name); }

    /** Whether every instruction was decoded. */
    public boolean ok() { return diagnostics.stream().noneMatch(Diagnostic::isError); }
}
