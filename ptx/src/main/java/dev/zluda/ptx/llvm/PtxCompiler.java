package dev.zluda.ptx.llvm;

import dev.zluda.ptx.Diagnostic;
import dev.zluda.ptx.ModuleModel;
import dev.zluda.ptx.ParseResult;
import dev.zluda.ptx.Ptx;
import dev.zluda.ptx.Semantics;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * PTX text → LLVM IR → AMDGPU code object or NVPTX PTX: parse ({@link Ptx}), check ({@link Semantics}), lower
 * ({@link LlvmEmitter}), then optimize and generate code with LLVM 22's tools (or 19's) ({@link LlvmTools}).
 */
public final class PtxCompiler {
    private PtxCompiler() {}

    /**
     * What a compile produced.
     *
     * @param ir     the LLVM IR before optimization, or {@code null} when the PTX has errors or uses what is not supported
     * @param errors syntax, semantic and lowering errors, each with PTX line:column (empty on success)
     */
    public record Lowered(String ir, List<Diagnostic> errors) {
        /** {@code true} when IR was produced. */
        public boolean ok() { return ir != null; }
    }

    /**
     * Parses, checks and lowers PTX text to LLVM IR for {@code target}; never throws for bad PTX. A form the lowering is
     * known to compute differently from an NVIDIA GPU ({@link LlvmForms}) is an error naming the instruction and line.
     */
    public static Lowered lower(String ptx, String source, LlvmTarget target) {
        return lower(ptx, source, target, true);
    }

    /**
     * {@link #lower(String, String, LlvmTarget)}; with {@code refuseKnownDifferences} false the forms of
     * {@link LlvmForms} are lowered too: only for recording what those lowerings compute on an NVIDIA GPU (the
     * conformance sweep, conformance/sweep/README.md in zluda-runtime's tests).
     */
    public static Lowered lower(String ptx, String source, LlvmTarget target, boolean refuseKnownDifferences) {
        ParseResult pr = Ptx.parse(ptx, source);
        if (!pr.ok()) return new Lowered(null, pr.diagnostics());
        ModuleModel model = Semantics.analyze(pr.module(), source);
        if (!model.ok()) {
            List<Diagnostic> errs = new ArrayList<>();
            for (Diagnostic d : model.diagnostics()) if (d.isError()) errs.add(d);
            return new Lowered(null, errs);
        }
        LlvmEmitter.Result r = LlvmEmitter.emit(pr.module(), model, target, source, refuseKnownDifferences);
        return new Lowered(r.ir(), r.errors());
    }

    /**
     * Compiles lowered IR with the LLVM tools: a code object ({@code .hsaco}) for an AMD target, PTX text for NVPTX.
     *
     * @throws IOException when an LLVM tool fails (a bug of the lowering: the IR it produced is invalid)
     */
    public static byte[] codegen(Lowered lowered, LlvmTarget target, LlvmTools tools) throws IOException {
        if (!lowered.ok()) throw new IllegalArgumentException("nothing to compile: the PTX has errors");
        return tools.compile(lowered.ir(), target);
    }
}
