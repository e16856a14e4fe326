package dev.zluda.ptx.llvm;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.EmulatorForms;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The instruction forms the LLVM lowering refuses because, lowered, they did not compute on an NVIDIA H200 what the
 * original PTX computed there (or their lowering was never run there): the forms blamed for the lowerings of the
 * exhaustive instruction sweep listed in {@code conformance/sweep/llvm-known-differences.tsv} (zluda-runtime's test
 * resources; README.md there). The list is {@value #RESOURCE}, written from those recorded results by
 * {@code LlvmSweepTest -Dzluda.regen=true} (the test fails when the list and the results disagree); it is not kept by
 * hand.
 *
 * <p>Each line is {@code FORM<TAB>TARGETS<TAB>WHY}: the form as {@link EmulatorForms#key} writes it (opcode and
 * modifiers, value-neutral qualifiers of memory instructions taken out); {@code all} (every target: the sm_90 lowering
 * differed and the AMD targets lower it the same way, or the lowering as for AMD differed), {@code amd} (only the
 * AMD targets and {@link LlvmTarget#SM_90_AS_AMD}: the sequence AMD targets run differed) or {@code sm_90} (only
 * {@link LlvmTarget#SM_90}); and the recorded reason. A module using a refused form does not lower: the compile log
 * names the instruction with its line and column, zluda's HIP back end returns CUDA_ERROR_NOT_SUPPORTED, and
 * {@code zluda ptx check} counts the form's uses as not lowered for the AMD target.
 */
public final class LlvmForms {
    private LlvmForms() {}

    /** The list of refused forms: {@code FORM<TAB>TARGETS<TAB>WHY} per line, {@code #} comments. */
    public static final String RESOURCE = "/dev/zluda/ptx/llvm/llvm-refused-forms.txt";

    /** A refused form: on which targets ({@code all}, {@code amd} or {@code sm_90}) and why. */
    public record Refusal(String form, String targets, String why) {
        /** Whether the form is refused when lowering for {@code t}. */
        public boolean applies(LlvmTarget t) {
            return switch (targets) {
                case "all" -> true;
                case "amd" -> t != LlvmTarget.SM_90;
                case "sm_90" -> t == LlvmTarget.SM_90;
                default -> true;
            };
        }
    }

    private static volatile Map<String, Refusal> list;

    /** The refused forms of {@value #RESOURCE}, by form. */
    public static Map<String, Refusal> list() {
        Map<String, Refusal> m = list;
        if (m == null) {
            Map<String, Refusal> out = new LinkedHashMap<>();
            try (InputStream in = LlvmForms.class.getResourceAsStream(RESOURCE)) {
                if (in == null) throw new IllegalStateException("missing resource " + RESOURCE);
                for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                    if (line.isBlank() || line.startsWith("#")) continue;
                    String[] p = line.split("\t", 3);
                    if (p.length < 3) throw new IllegalStateException(RESOURCE + ": malformed line '" + line + "'");
                    out.put(p[0], new Refusal(p[0], p[1], p[2]));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            list = m = Collections.unmodifiableMap(out);
        }
        return m;
    }

    /**
     * Why the lowering for {@code target} refuses an instruction, or {@code null} when it does not:
     * {@code instruction 'set.eq.f16.f32' is not supported by the LLVM back end: ... (docs/support.md)}.
     */
    public static String refusal(Ast.Instruction ins, LlvmTarget target) {
        String name = target == LlvmTarget.SM_90_AS_AMD ? "sm_90 (lowered as for AMD)" : target.cpu();
        Refusal r = list().get(EmulatorForms.key(ins.opcode(), ins.modifiers()));
        if (r == null || !r.applies(target)) return null;
        return "instruction '" + ins.form() + "' is not supported by the LLVM back end for " + name + ": lowered, it did not compute what an NVIDIA GPU "
                + "computes (" + r.why() + "; docs/support.md)";
    }
}
