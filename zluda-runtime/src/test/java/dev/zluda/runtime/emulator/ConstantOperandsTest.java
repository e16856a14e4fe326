package dev.zluda.runtime.emulator;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;

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
        int refused = 0, loaded = 0;
        try (Arena arena = Arena.ofConfined()) {
            for (String line : Files.readAllLines(RECORDING)) {
                if (line.startsWith("#") || line.isBlank()) continue;
                String[] f = line.split("\\|");
                String ins = f[1].strip();
                String ptx = kernel(ins);
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

    /** The kernel the recording put each instruction in (its line 10). */
    private static String kernel(String instruction) {
        return """
                .version 9.0
                .target sm_90
                .address_size 64
                .visible .entry k(.param .u64 out)
                {
                    .reg .f32 %f<8>; .reg .f64 %fd<8>; .reg .f16 %h<4>; .reg .b16 %rs<4>; .reg .pred %p<3>; .reg .b64 %rd<3>; .reg .b32 %r<4>;
                    ld.param.u64 %rd1, [out];
                    mov.f32 %f2, 0f3F000000;
                    mov.f64 %fd2, 0d3FE0000000000000;
                    INSTRUCTION
                    st.volatile.global.f32 [%rd1], %f1;
                    st.volatile.global.f64 [%rd1+8], %fd1;
                    ret;
                }
                """.replace("INSTRUCTION", instruction);
    }
}
