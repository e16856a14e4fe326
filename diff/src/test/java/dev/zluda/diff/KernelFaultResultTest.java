package dev.zluda.diff;

import dev.zluda.capture.Capture;
import dev.zluda.capture.KernelSnapshots;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The result of a kernel snapshot the NVIDIA tracer recorded (it writes no launch section, so the reader rebuilds
 * it): a launch is asynchronous, so NVIDIA's driver returns CUDA_SUCCESS from cuLaunchKernel and the kernel's fault
 * from the next call (samples/traces/h200/illegalAccess, recorded on an NVIDIA H200: cuLaunchKernel -> CUDA_SUCCESS,
 * then cuCtxSynchronize -> CUDA_ERROR_ILLEGAL_ADDRESS; simpleAssert likewise with CUDA_ERROR_ASSERT). The capture is
 * vectorAdd with a kernel snapshot recorded on the H200 (samples/traces/h200/vectorAdd-kernels), its
 * cuCtxSynchronize after the launch given that outcome.
 */
class KernelFaultResultTest {
    static final Path VECTOR_ADD_KERNELS = KernelObjectParamTest.VECTOR_ADD_KERNELS;
    /** CUDA_ERROR_ASSERT. */
    static final int ASSERT = 710;

    @TempDir
    static Path tmp;

    static Path withSyncResult(String name, int result) throws Exception {
        return Rewrite.copy(VECTOR_ADD_KERNELS, tmp.resolve(name), new Rewrite.Editor() {
            boolean launched, done;

            @Override
            public void leave(Rewrite.Call c) {
                if (c.function.startsWith("cuLaunchKernel")) launched = true;
                else if (launched && !done && c.function.equals("cuCtxSynchronize")) {
                    c.result = result;
                    done = true;
                }
            }
        });
    }

    static int snapshotResult(Path p) throws Exception {
        try (Capture c = Capture.open(p)) {
            var k = KernelSnapshots.read(c).list().getFirst().record();
            assertNotNull(k.launch(), "the launch section is rebuilt");
            return k.launch().result();
        }
    }

    @Test
    void theFaultTheNextSynchronisationReportsIsTheKernelsResult() throws Exception {
        assertEquals(ASSERT, snapshotResult(withSyncResult("assert", ASSERT)));
    }

    @Test
    void aKernelThatRanCleanlyKeepsCudaSuccess() throws Exception {
        assertEquals(0, snapshotResult(VECTOR_ADD_KERNELS));
        assertEquals(0, snapshotResult(withSyncResult("clean", 0)));
    }

    @Test
    void anErrorThatIsNoKernelFaultIsNotTheKernels() throws Exception {
        // CUDA_ERROR_INVALID_VALUE (1) is the call's own error, not sticky
        assertEquals(0, snapshotResult(withSyncResult("invalid", 1)));
    }
}
