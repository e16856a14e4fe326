package dev.zluda.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code zluda ptx compile}: the maintainers' entry to the AMD back end's compiler. */
class PtxCompileCommandTest {
    static Path sample(String name) {
        Path p = Path.of("../samples/src/main/ptx", name);
        return Files.exists(p) ? p : Path.of("samples/src/main/ptx", name);
    }

    @Test
    void emitsLlvmIrForAnAmdTarget(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("v.ll");
        CliRun.Result r = CliRun.run("ptx", "compile", sample("vectorAdd.ptx").toString(), "--target", "gfx1100", "-o", out.toString(), "--emit-llvm");
        assertEquals(0, r.code(), r.err());
        String ir = Files.readString(out);
        assertTrue(ir.contains("target triple = \"amdgcn-amd-amdhsa\"") && ir.contains("define amdgpu_kernel void @\"vectorAdd\""), ir);
    }

    @Test
    void reportsWhatCannotBeLoweredWithItsLine(@TempDir Path tmp) throws Exception {
        Path ptx = tmp.resolve("r.ptx");
        Files.writeString(ptx, ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
                + ".reg .f32 %f<3>;\nmov.f32 %f1, 0f3F800000;\nbrkpt;\nret;\n}\n");
        Path out = tmp.resolve("r.hsaco");
        CliRun.Result r = CliRun.run("ptx", "compile", ptx.toString(), "--target", "gfx1030", "-o", out.toString());
        assertEquals(1, r.code(), r.out());
        assertTrue(r.err().contains(ptx + ":8:1: error: brkpt is not supported by the LLVM back end"), r.err());
        assertTrue(!Files.exists(out));
        assertEquals(2, CliRun.run("ptx", "compile", ptx.toString(), "--target", "gfx9000", "-o", out.toString()).code());
    }
}
