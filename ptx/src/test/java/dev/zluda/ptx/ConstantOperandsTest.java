package dev.zluda.ptx;

import dev.zluda.ptx.llvm.LlvmTarget;
import dev.zluda.ptx.llvm.PtxCompiler;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Constants whose kind the operand type does not take: an integer constant where an instruction's operand type is a
 * floating-point type ({@code mov.f32 %f1, 1;}, {@code add.f64 %fd1, %fd2, 1;}), a floating-point literal where it is an
 * integer type, a decimal one where it is a bit-size type ({@code mov.b32 %r1, 1.0;}). ptxas refuses them, so the front
 * end does, and with it the LLVM lowering (and the emulator: zluda-runtime's ConstantOperandsTest). Before, the two
 * back ends disagreed on them: for {@code mov.f32 %f1, 1} the emulator converted the value (1 → 1.0f, 0x3F800000) and
 * the lowering took the integer's bits (0x00000001, a denormal); for {@code mov.b32 %r1, 1.0} the emulator truncated
 * the value (1) and the lowering took the float's bits (0x3F800000). Expected: what ptxas 13.0 did with each form
 * (src/test/resources/ptxas/constant-operands.txt, with the command that recorded it).
 */
class ConstantOperandsTest {
    /** One recorded form: the instruction and whether ptxas compiled it. */
    record Form(String instruction, boolean ptxasAccepts) {}

    /** The forms ptxas was given, in file order. */
    static List<Form> forms(Path file) throws Exception {
        List<Form> out = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            if (line.startsWith("#") || line.isBlank()) continue;
            String[] f = line.split("\\|");
            out.add(new Form(f[1].strip(), f[0].strip().equals("OK")));
        }
        return out;
    }

    /** The kernel the recording put each instruction in (its line 10), as the recording's header shows it. */
    static String kernel(String instruction) throws Exception {
        StringBuilder sb = new StringBuilder();
        for (String line : Files.readAllLines(RECORDING)) if (line.startsWith("#   ")) sb.append(line.substring(4)).append('\n');
        return sb.toString().replace("INSTRUCTION", instruction);
    }

    static final Path RECORDING = Path.of("src/test/resources/ptxas/constant-operands.txt");

    @Test
    void theCheckerAgreesWithPtxas() throws Exception {
        List<Form> forms = forms(RECORDING);
        assertEquals(48, forms.size(), "the recording's forms");
        for (Form f : forms) {
            ParseResult pr = Ptx.parse(kernel(f.instruction()), "one.ptx");
            assertTrue(pr.ok(), f.instruction() + ": " + pr.diagnostics());
            ModuleModel m = Semantics.analyze(pr.module(), "one.ptx");
            List<String> errors = m.diagnostics().stream().filter(Diagnostic::isError).map(Diagnostic::toString).toList();
            if (f.ptxasAccepts()) {
                assertTrue(errors.isEmpty(), f.instruction() + " (ptxas compiles it): " + errors);
            } else {
                assertFalse(errors.isEmpty(), f.instruction() + " (ptxas refuses it) was accepted");
                for (String e : errors) assertTrue(e.contains("one.ptx:10:") && refusal(e), f.instruction() + ": " + e);
            }
        }
    }

    @Test
    void theLlvmLoweringRefusesWhatPtxasRefuses() throws Exception {
        for (Form f : forms(RECORDING)) {
            PtxCompiler.Lowered l = PtxCompiler.lower(kernel(f.instruction()), "one.ptx", LlvmTarget.GFX942);
            if (f.ptxasAccepts()) {
                assertTrue(l.ok(), f.instruction() + ": " + l.errors());
            } else {
                assertFalse(l.ok(), f.instruction() + " was lowered");
                assertTrue(refusal(l.errors().toString()), f.instruction() + ": " + l.errors());
            }
        }
    }

    /** Whether a diagnostic is the refusal of a constant (not some other error of the kernel). */
    static boolean refusal(String diagnostic) {
        return diagnostic.contains("integer constant '") || diagnostic.contains("floating-point literal '");
    }

    @Test
    void theMessageSaysWhatToWrite() throws Exception {
        ModuleModel m = Semantics.analyze(Ptx.parse(kernel("add.f32 %f1, %f2, 1;"), "one.ptx").module(), "one.ptx");
        String msg = m.diagnostics().stream().filter(Diagnostic::isError).findFirst().orElseThrow().toString();
        assertTrue(msg.contains("integer constant '1' as a .f32 operand of add.f32") && msg.contains("1.0 or 0f3F800000"), msg);
        m = Semantics.analyze(Ptx.parse(kernel("mov.b32 %r1, 1.0;"), "one.ptx").module(), "one.ptx");
        msg = m.diagnostics().stream().filter(Diagnostic::isError).findFirst().orElseThrow().toString();
        assertTrue(msg.contains("floating-point literal '1.0' as a .b32 operand of mov.b32") && msg.contains("hexadecimal"), msg);
    }
}
