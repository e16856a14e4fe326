package dev.zluda.cli;

import dev.zluda.capture.Capture;
import dev.zluda.capture.KernelSnapshots;
import dev.zluda.viewer.KernelLocator;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * The viewer's localisation over {@code zluda replay --locate}, on the vectorAdd capture recorded on
 * the H200 with kernel snapshots: a real localisation on the emulator against itself with add.f32
 * planted as sub.f32, what it says where it cannot run, and the report it reads.
 */
class ReplayKernelLocatorTest {
    private static final Path CAPTURE = Path.of(System.getProperty("zluda.repo", "..")).resolve("samples/traces/h200/vectorAdd-kernels");

    private static long launchCall() throws Exception {
        try (Capture cap = Capture.open(CAPTURE)) {
            return KernelSnapshots.read(cap).list().getFirst().launchCall();
        }
    }

    @Test
    void findsThePlantedInstructionWithItsLineAndBothValues() throws Exception {
        List<String> ptx = Files.readAllLines(CAPTURE.resolve("module_0001_01.ptx"));
        int line = -1;
        for (int i = 0; i < ptx.size(); i++) if (ptx.get(i).contains("add.f32")) line = i + 1;
        assertTrue(line > 0);
        List<String> steps = new ArrayList<>();
        KernelLocator l = new ReplayKernelLocator("zluda", "zluda", null, p -> p.replace("add.f32", "sub.f32"));
        KernelLocator.Result r = l.locate(CAPTURE, launchCall(), steps::add);
        assertEquals(KernelLocator.Outcome.FOUND, r.outcome(), String.join("\n", r.report()));
        assertEquals(line, r.line());
        assertTrue(r.instruction().startsWith("sub.f32"), r.instruction());
        assertTrue(r.where().startsWith("%f"), r.where());
        assertEquals("zluda (given PTX)", r.onLabel());
        assertEquals("zluda (recorded PTX)", r.againstLabel());
        assertNotEquals(r.onValue(), r.againstValue());
        assertTrue(r.onValue().startsWith("0x") && r.againstValue().startsWith("0x"), r.onValue() + " / " + r.againstValue());
        assertEquals("vectorAdd", r.kernel());
        assertEquals(2, steps.size(), steps.toString());
    }

    @Test
    void theSameKernelOnBothSidesIsNoDivergence() throws Exception {
        KernelLocator.Result r = new ReplayKernelLocator("zluda", "zluda", null, null).locate(CAPTURE, launchCall(), s -> { });
        assertEquals(KernelLocator.Outcome.NO_DIVERGENCE, r.outcome(), String.join("\n", r.report()));
        assertTrue(r.message().startsWith("Locate: no divergence"), r.message());
    }

    @Test
    void saysWhyItCannotRunHere() throws Exception {
        KernelLocator.Result none = ReplayKernelLocator.standard().locate(CAPTURE, 1, s -> { });
        assertEquals(KernelLocator.Outcome.CANNOT_RUN, none.outcome());
        assertTrue(none.message().startsWith("cannot run here because call 1 of vectorAdd-kernels has no kernel snapshot"), none.message());
        assumeFalse(Files.exists(Path.of("/dev/nvidiactl")), "an NVIDIA driver is here: zluda against nvidia can run");
        KernelLocator.Result r = ReplayKernelLocator.standard().locate(CAPTURE, launchCall(), s -> { });
        assertEquals(KernelLocator.Outcome.CANNOT_RUN, r.outcome(), String.join("\n", r.report()));
        assertTrue(r.message().startsWith("cannot run here because ") && r.message().contains("libcuda.so.1"), r.message());
    }

    @Test
    void readsAControlFlowDivergence() {
        List<String> report = List.of("kernel snapshot 1: k",
                "FIRST DIVERGENCE: control flow: result 4 of the thread (1,0,0) of CTA (0,0,0) comes from",
                "  zluda: line 31: @%p1 bra $L__BB0_2;",
                "  nvidia: line 33: ld.global.f32 %f1, [%rd8];",
                "VERDICT: DIVERGENCE at line 31");
        KernelLocator.Result r = ReplayKernelLocator.parse(true, report, "k");
        assertEquals(KernelLocator.Outcome.FOUND, r.outcome());
        assertEquals(31, r.line());
        assertEquals("@%p1 bra $L__BB0_2;", r.instruction());
    }

    /**
     * Against NVIDIA's driver it is not available where no NVIDIA driver can be found (the checks of
     * zluda run --nvidia-trace); zluda against zluda always is; ZLUDA_CUDA_LIB naming a driver makes it available.
     */
    @org.junit.jupiter.api.Test
    void saysWhenItCannotRunOnThisMachineAtAll(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        try {
            ReplayKernelLocator.environment = java.util.Map::of;
            assumeFalse(RunCommand.NVIDIA_DRIVER_PATHS.stream().anyMatch(p -> Files.exists(Path.of(p))), "this machine has NVIDIA's driver");
            String why = ReplayKernelLocator.standard().unavailable();
            assertTrue(why != null && why.startsWith("needs NVIDIA's driver, and this machine has none"), why);
            assertEquals(null, ReplayKernelLocator.standard().between("zluda", "zluda").unavailable());
            Path fake = Files.writeString(tmp.resolve("libcuda.so.1"), "a driver");
            ReplayKernelLocator.environment = () -> java.util.Map.of("ZLUDA_CUDA_LIB", fake.toString());
            assertEquals(null, ReplayKernelLocator.standard().unavailable());
        } finally {
            ReplayKernelLocator.environment = System::getenv;
        }
    }
}
