package dev.zluda.ptx;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The instruction forms the CPU emulator executes: exactly those that ran in a kernel of the instruction
 * conformance suites and computed there what an NVIDIA H200 computed, bit for bit (or, for an {@code .approx}
 * form, within its documented distance): the exhaustive sweep ({@code Sweep} in zluda-runtime's tests) and the
 * recorded texture, matrix and instruction suites. The list is {@value #RESOURCE}, written by {@code SweepTest}
 * from the recorded results (it fails when the list and the results disagree).
 *
 * <p>A form is an opcode with all its modifiers as written ({@link Ast.Instruction#form}), except that the
 * qualifiers that change no value a single thread computes — cache operators ({@code .ca .cg .cs .lu .cv .wb .wt
 * .nc}), eviction priorities ({@code .L1::evict_*}, {@code .L2::evict_*}, {@code .L1::no_allocate}), prefetch sizes
 * and cache hints ({@code .L2::64B} ... {@code .L2::cache_hint}) and memory-order semantics and scopes ({@code .weak
 * .volatile .relaxed .acquire .release .acq_rel .mmio .cta .cluster .gpu .sys}) — are taken out of the forms of
 * {@code ld ldu st atom red cp.async}; each such qualifier must itself have been seen in a checked kernel of that
 * family. The emulator refuses a module using any other form at load (CUDA_ERROR_NOT_SUPPORTED, with the
 * instruction and its line: {@link #refused}), and {@code zluda ptx check} warns for the same instructions.
 */
public final class EmulatorForms {
    private EmulatorForms() {}

    /** The list of forms, one per line; qualifier lines are {@code "FAMILY QUALIFIER"}. */
    public static final String RESOURCE = "/dev/zluda/ptx/emulator-forms.txt";

    /** Families whose value-neutral qualifiers are not part of a form. */
    public static final Set<String> QUALIFIED = Set.of("ld", "ldu", "st", "atom", "red", "cp.async");

    /** Qualifiers that change no value a single thread computes (see the class comment). */
    public static boolean neutral(String modifier) {
        return switch (modifier) {
            case ".ca", ".cg", ".cs", ".lu", ".cv", ".wb", ".wt", ".nc", ".weak", ".volatile", ".relaxed", ".acquire", ".release", ".acq_rel", ".mmio",
                 ".cta", ".cluster", ".gpu", ".sys", ".L2::64B", ".L2::128B", ".L2::256B", ".L2::cache_hint" -> true;
            default -> modifier.startsWith(".L1::evict_") || modifier.startsWith(".L2::evict_") || modifier.equals(".L1::no_allocate");
        };
    }

    private static volatile Set<String> forms;

    /** The forms and qualifiers of {@value #RESOURCE}. */
    public static Set<String> list() {
        Set<String> f = forms;
        if (f == null) {
            Set<String> out = new LinkedHashSet<>();
            try (InputStream in = EmulatorForms.class.getResourceAsStream(RESOURCE)) {
                if (in == null) throw new IllegalStateException("missing resource " + RESOURCE);
                for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                    line = line.strip();
                    if (!line.isEmpty() && !line.startsWith("#")) out.add(line);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            forms = f = Collections.unmodifiableSet(out);
        }
        return f;
    }

    /** The form of an instruction as the list writes it: its opcode and modifiers, neutral qualifiers taken out. */
    public static String key(String opcode, List<String> modifiers) {
        InstructionTable.Family fam = InstructionTable.lookup(opcode, modifiers);
        boolean q = fam != null && QUALIFIED.contains(fam.key());
        StringBuilder sb = new StringBuilder(opcode);
        for (String m : modifiers) if (!q || !neutral(m)) sb.append(m);
        return sb.toString();
    }

    /** The neutral qualifiers of an instruction, each as {@code "FAMILY QUALIFIER"} (empty for other families). */
    public static List<String> qualifiers(String opcode, List<String> modifiers) {
        InstructionTable.Family fam = InstructionTable.lookup(opcode, modifiers);
        List<String> out = new ArrayList<>();
        if (fam == null || !QUALIFIED.contains(fam.key())) return out;
        for (String m : modifiers) if (neutral(m)) out.add(fam.key() + " " + m);
        return out;
    }

    /** Whether the emulator executes an instruction's form (and each of its neutral qualifiers). */
    public static boolean executes(String opcode, List<String> modifiers) {
        Set<String> l = list();
        if (!l.contains(key(opcode, modifiers))) return false;
        for (String q : qualifiers(opcode, modifiers)) if (!l.contains(q)) return false;
        return true;
    }

    /** {@link #executes(String, List)} of an instruction node. */
    public static boolean executes(Ast.Instruction ins) {
        return executes(ins.opcode(), ins.modifiers());
    }

    /**
     * One diagnostic per instruction of the module's functions whose form the emulator does not execute, in source
     * order: {@code file:line:col: SEVERITY: instruction 'vadd.u32.u32.u32.sat' is not supported by the emulator
     * (not among the instruction forms checked against an NVIDIA GPU: docs/support.md)}.
     *
     * @param severity ERROR for the emulator's load (CUDA_ERROR_NOT_SUPPORTED), WARNING for {@code zluda ptx check}
     */
    public static List<Diagnostic> refused(Ast.Module module, String source, Diagnostic.Severity severity) {
        List<Diagnostic> out = new ArrayList<>();
        for (Ast.Instruction i : refusedInstructions(module)) out.add(new Diagnostic(source, i.loc().line(), i.loc().column(), severity, message(i)));
        return out;
    }

    /** The instructions of the module's function bodies whose form the emulator does not execute, in source order. */
    public static List<Ast.Instruction> refusedInstructions(Ast.Module module) {
        List<Ast.Instruction> out = new ArrayList<>();
        for (Ast.Function fn : module.functions()) if (fn.body() != null) refused(fn.body(), out);
        return out;
    }

    private static void refused(Ast.Block b, List<Ast.Instruction> out) {
        for (Ast.Statement s : b.statements()) {
            if (s instanceof Ast.Instruction i) {
                if (!executes(i)) out.add(i);
            } else if (s instanceof Ast.Block inner) {
                refused(inner, out);
            }
        }
    }

    /** Why an instruction is refused. */
    public static String message(Ast.Instruction i) {
        Set<String> l = list();
        String key = key(i.opcode(), i.modifiers());
        if (l.contains(key)) {
            List<String> bad = new ArrayList<>();
            for (String q : qualifiers(i.opcode(), i.modifiers())) if (!l.contains(q)) bad.add(q.substring(q.indexOf(' ') + 1));
            return "instruction '" + i.form() + "' is not supported by the emulator: its qualifier" + (bad.size() > 1 ? "s " : " ") + String.join(", ", bad)
                    + (bad.size() > 1 ? " are" : " is") + " not among those checked against an NVIDIA GPU (docs/support.md)";
        }
        return "instruction '" + i.form() + "' is not supported by the emulator (not among the instruction forms checked against an NVIDIA GPU: docs/support.md)";
    }
}
