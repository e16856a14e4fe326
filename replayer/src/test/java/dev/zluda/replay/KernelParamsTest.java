package dev.zluda.replay;

import dev.zluda.capture.CaptureRecord;
import dev.zluda.ptx.FunctionInfo;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@link KernelReplay#parameterDifferences}: two launches of {@code scale(float *p, float a, unsigned n)}
 * whose parameters are laid out by the PTX (PTX ISA 9.0, §5.1.6.1: .u64 at 0, .f32 at 8, .u32 at 12,
 * 16 bytes), the pointer at other addresses on the two sides, as between two runs or two drivers.
 */
class KernelParamsTest {
    static final String PTX = """
            .version 8.0
            .target sm_80
            .address_size 64
            .visible .entry scale(.param .u64 scale_param_0, .param .f32 scale_param_1, .param .u32 scale_param_2)
            {
            \tret;
            }
            """;

    static CaptureRecord.Kernel launch(long buffer, long pointer, float a, int n) {
        byte[] p = new byte[16];
        ByteBuffer.wrap(p).order(ByteOrder.LITTLE_ENDIAN).putLong(0, pointer).putFloat(8, a).putInt(12, n);
        return new CaptureRecord.Kernel(1, 0, 1, 0, 0, 0x1234, "scale", p, List.of(new CaptureRecord.KernelBuffer(buffer, 4000, 1, 2)));
    }

    static FunctionInfo scale() {
        FunctionInfo fi = KernelReplay.kernelFunction(launch(0, 0, 0, 0), PTX.getBytes(StandardCharsets.UTF_8));
        assertNotNull(fi);
        assertEquals(16, fi.paramSize());
        return fi;
    }

    @Test
    void aScalarIsComparedByValueAndAPointerByTheBufferItPointsInto() {
        CaptureRecord.Kernel a = launch(0x7f00_0000_1000L, 0x7f00_0000_1000L, 2.0f, 1000);
        CaptureRecord.Kernel b = launch(0x5_0000_0000L, 0x5_0000_0000L, 3.0f, 1000);
        List<KernelReplay.ParamDifference> d = KernelReplay.parameterDifferences(a, b, scale());
        assertEquals(List.of("kernel parameter 1 (scale_param_1, .f32): 2.0 vs 3.0"), d.stream().map(KernelReplay.ParamDifference::describe).toList());
    }

    @Test
    void thePointersAgreeWhenTheyPointToTheSamePlaceOfTheirBuffers() {
        CaptureRecord.Kernel a = launch(0x7f00_0000_1000L, 0x7f00_0000_1000L, 2.0f, 1000);
        assertTrue(KernelReplay.parameterDifferences(a, launch(0x5_0000_0000L, 0x5_0000_0000L, 2.0f, 1000), scale()).isEmpty());
        List<KernelReplay.ParamDifference> d = KernelReplay.parameterDifferences(a, launch(0x5_0000_0000L, 0x5_0000_0010L, 2.0f, 999), scale());
        assertEquals(List.of("kernel parameter 0 (scale_param_0, .u64): buffer 1 vs buffer 1+0x10",
                "kernel parameter 2 (scale_param_2, .u32): 1000 vs 999"), d.stream().map(KernelReplay.ParamDifference::describe).toList());
    }

    @Test
    void withoutThePtxTheBytesAreComparedEightAtATime() {
        CaptureRecord.Kernel a = launch(0x7f00_0000_1000L, 0x7f00_0000_1000L, 2.0f, 1000);
        CaptureRecord.Kernel b = launch(0x5_0000_0000L, 0x5_0000_0000L, 3.0f, 1000);
        // bytes 8..15: 2.0f is 0x40000000, 3.0f 0x40400000 (IEEE 754 binary32), n 1000 = 0x3e8 above them
        List<KernelReplay.ParamDifference> d = KernelReplay.parameterDifferences(a, b, null);
        assertEquals(List.of("kernel parameter bytes 8..15: 0x000003e840000000 vs 0x000003e840400000"),
                d.stream().map(KernelReplay.ParamDifference::describe).toList());
    }
}
