package dev.zluda.runtime.emulator;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The emulator loads a module as ptxas compiles it: a constant whose kind the operand type does not take (an integer
 * constant where an instruction's operand type is a floating-point type, {@code mov.f32 %f1, 1;}; a floating-point
 * literal where it is an integer type, or a decimal one where it is a bit-size type) is refused with
 * CUDA_ERROR_INVALID_PTX and a log naming the line, as NVIDIA's driver refuses the PTX its ptxas refuses; the forms
 * ptxas compiles load. Before, the emulator converted such a constant's value where the LLVM lowering took its bits. Expected: what ptxas 13.0 did with each form
 * (ptx/src/test/resources/ptxas/constant-operands.txt, with the command that recorded it; the same
 * recording ptx's ConstantOperandsTest holds the front end and the LLVM lowering to).
 */
class ConstantOperandsTest {
    private static final Path RECORDING = Path.of("../ptx/src/test/resources/ptxas/constant-operands.txt");

    private static EmulatorModule load(String ptx, Arena arena) throws PtxLoadException {
        return EmulatorModule.load(ptx, "one.ptx", new EmulatorModule.Allocator() {
            public long allocate(String name, long size, long align) {
                return arena.allocate(size, align).address();
            }

            public void free(long address) {}
        });
    }

    @Test
    void loadsWhatPtxasCompilesAndRefusesTheRest() throws Exception {
        List<String> recording = Files.readAllLines(RECORDING);
        // the kernel each instruction went into (its line 10), as the recording's header shows it
        String kernel = recording.stream().filter(l -> l.startsWith("#   ")).map(l -> l.substring(4) + "\n").collect(Collectors.joining());
        int refused = 0, loaded = 0;
        try (Arena arena = Arena.ofConfined()) {
            for (String line : recording.stream().filter(l -> !l.startsWith("#") && !l.isBlank()).toList()) {
                String[] f = line.split("\\|");
                String ins = f[1].strip();
                String ptx = kernel.replace("INSTRUCTION", ins);
                if (f[0].strip().equals("OK")) {
                    assertTrue(load(ptx, arena).kernels().containsKey("k"), ins);
                    loaded++;
                } else {
                    PtxLoadException e = assertThrows(PtxLoadException.class, () -> load(ptx, arena), ins);
                    assertEquals(Errors.INVALID_PTX, e.error(), ins);
                    assertTrue(e.log().contains("one.ptx:10:") && (e.log().contains("integer constant '") || e.log().contains("floating-point literal '")), ins + ": " + e.log());
                    refused++;
                }
            }
        }
        assertEquals(19, loaded, "forms ptxas compiled");
        assertEquals(29, refused, "forms ptxas refused");
    }
}
