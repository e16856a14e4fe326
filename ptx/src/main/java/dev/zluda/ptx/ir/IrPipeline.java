package dev.zluda.ptx.ir;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.ModuleModel;
import dev.zluda.ptx.ir.pass.VectorOperands;

/**
 * The PTX front end's output for the back ends: the typed IR ({@link IrBuilder}) after the transforming passes
 * ({@link VectorOperands}). The analyses ({@link dev.zluda.ptx.ir.pass.ParamAbi},
 * {@link dev.zluda.ptx.ir.pass.PointerTypes}) are asked on demand.
 */
public final class IrPipeline {
    private IrPipeline() {}

    /** The IR of a parsed and checked module, passes run; see {@link IrBuilder#build(Ast.Module, ModuleModel, String)}. */
    public static IrModule build(Ast.Module ast, ModuleModel model, String source) {
        return passes(IrBuilder.build(ast, model, source));
    }

    /** The IR of a checked module from its model alone, passes run; see {@link IrBuilder#build(ModuleModel, String)}. */
    public static IrModule build(ModuleModel model, String source) {
        return passes(IrBuilder.build(model, source));
    }

    private static IrModule passes(IrModule m) {
        return VectorOperands.run(m);
    }
}
