package dev.zluda.runtime.emulator;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.Ast.*;
import dev.zluda.ptx.FunctionInfo;
import dev.zluda.ptx.ModuleModel;
import dev.zluda.ptx.PtxType;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What the translation of a module's kernels shares: functions, variables, the error list. */
final class ModuleContext {
    /** A module variable in device memory. */
    record GlobalVar(String name, String space, long address, long size, PtxType type) {}

    final String source;
    final ModuleModel model;
    private final Map<String, Function> functions = new LinkedHashMap<>();
    private final Map<String, GlobalVar> globals = new LinkedHashMap<>();
    private final List<Decl> moduleShared = new ArrayList<>();
    private final List<String> errors = new ArrayList<>();

    ModuleContext(String source, ModuleModel model, Ast.Module module) {
        this.source = source;
        this.model = model;
        for (Function f : module.functions()) {
            if (f.body() != null || !functions.containsKey(f.name())) functions.put(f.name(), f);
        }
    }

    void error(Loc loc, String message) {
        errors.add(source + ":" + loc.line() + ":" + loc.column() + ": error: " + message);
    }

    int errorCount() {
        return errors.size();
    }

    List<String> errors() {
        return errors;
    }

    /** The function of this name (its definition when there is one), or null. */
    Function function(String name) {
        return functions.get(name);
    }

    FunctionInfo info(String name) {
        return model.function(name);
    }

    Map<String, GlobalVar> globals() {
        return globals;
    }

    Long globalAddress(String name) {
        GlobalVar g = globals.get(name);
        return g == null ? null : g.address();
    }

    void addGlobal(GlobalVar g) {
        globals.put(g.name(), g);
    }

    List<Decl> moduleShared() {
        return moduleShared;
    }

    /** Value of a constant integer expression (PTX ISA 4.6), or null when it is not one: the PTX front end's. */
    static Long constant(Expr e) {
        return dev.zluda.ptx.Semantics.constant(e);
    }
}
