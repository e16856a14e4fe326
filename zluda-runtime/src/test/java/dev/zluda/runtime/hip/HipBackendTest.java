package dev.zluda.runtime.hip;

import dev.zluda.ptx.ModuleModel;
import dev.zluda.ptx.ParamInfo;
import dev.zluda.ptx.Ptx;
import dev.zluda.ptx.Semantics;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Check (c) of the AMD back end: without an AMD GPU, HIP (when installed: Debian's libamdhip64-5) reports no device
 * cleanly and the emulator serves; {@code ZLUDA_BACKEND} picks the backend.
 */
class HipBackendTest {
    static boolean hipInstalled() {
        for (String d : List.of("/usr/lib/x86_64-linux-gnu", "/opt/rocm/lib", "/usr/lib64")) {
            for (String n : Hip.LIBRARIES) if (Files.exists(Path.of(d, n))) return true;
        }
        return false;
    }

    static boolean amdGpu() {
        return Files.exists(Path.of("/dev/kfd"));
    }

    @Test
    void withoutAnAmdGpuHipReportsNoDeviceAndTheEmulatorServes() {
        if (amdGpu()) return;                       // this check is for machines without one (CI)
        HipBackend.Probe p = HipBackend.probe();
        assertTrue(p.devices().isEmpty(), p.toString());
        if (hipInstalled()) {
            assertTrue(p.library() != null, p.toString());
            assertTrue(p.message().startsWith("no AMD device (hipGetDeviceCount: "), p.message());
        } else {
            assertTrue(p.message().startsWith("HIP runtime not found"), p.message());
        }
        HipBackend.Selection def = HipBackend.select(null);
        assertEquals("emulator", def.backend());
        assertEquals(0, def.cuInitResult());
        HipBackend.Selection hip = HipBackend.select("hip");
        assertEquals(100, hip.cuInitResult(), "CUDA_ERROR_NO_DEVICE when HIP is asked for and there is no AMD device: " + hip);
        assertTrue(hip.reason().contains(p.message()), hip.reason());
    }

    @Test
    void backendVariableIsObeyed() {
        assertEquals("emulator", HipBackend.select("emulator").backend());
        assertEquals(0, HipBackend.select("EMULATOR").cuInitResult());
        assertEquals(1, HipBackend.select("cuda").cuInitResult());
    }

    @Test
    void kernelArgumentsArePackedAtThePtxOffsets() {
        String ptx = ".version 8.0\n.target sm_80\n.address_size 64\n"
                + ".visible .entry k(.param .u8 a, .param .u64 p, .param .align 16 .b8 s[20], .param .u32 n)\n{\nret;\n}\n";
        ModuleModel m = Semantics.analyze(Ptx.parseOrThrow(ptx, "k.ptx"), "k.ptx");
        List<ParamInfo> ps = m.function("k").params();
        byte[] s = new byte[20];
        for (int i = 0; i < 20; i++) s[i] = (byte) (0x40 + i);
        byte[] buf = KernelArgs.pack(ps, List.of(new byte[] {7}, new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, s, new byte[] {9, 0, 0, 0}));
        assertEquals(40, buf.length);                 // a@0, p@8, s@16 (.align 16), n@36
        assertEquals(7, buf[0]);
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, java.util.Arrays.copyOfRange(buf, 8, 16));
        assertArrayEquals(s, java.util.Arrays.copyOfRange(buf, 16, 36));
        assertEquals(9, buf[36]);
        assertThrows(IllegalArgumentException.class, () -> KernelArgs.pack(ps, List.of(new byte[1], new byte[4], s, new byte[4])));
    }
}
