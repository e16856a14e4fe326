package dev.zluda.replay;

import dev.zluda.spec.CudaApi;
import dev.zluda.spec.CudaFunction;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The host memory a whole replay gives an output parameter must hold all the driver may write, not
 * only what the recording saw: NVIDIA's cuDeviceGetName fills all {@code len} bytes (a replay that
 * sized the buffer by the recorded name corrupted the heap on an H200).
 */
class CaptureReplaySizeTest {
    @Test
    void outputsAreSizedByTheSpec() {
        CudaFunction name = CudaApi.get().function("cuDeviceGetName").orElseThrow();
        assertEquals(256, CaptureReplay.specSize(name, name.param("name").orElseThrow(), new long[] {0x1000, 256, 0}));
        CudaFunction alloc = CudaApi.get().function("cuMemAlloc_v2").orElseThrow();
        assertEquals(8, CaptureReplay.specSize(alloc, alloc.param("dptr").orElseThrow(), new long[] {0x1000, 4096}));
        CudaFunction get = CudaApi.get().function("cuDeviceGet").orElseThrow();
        assertEquals(4, CaptureReplay.specSize(get, get.param("device").orElseThrow(), new long[] {0x1000, 0}));
    }
}
