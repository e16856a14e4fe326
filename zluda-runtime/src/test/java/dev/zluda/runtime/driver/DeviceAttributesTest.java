package dev.zluda.runtime.driver;

import dev.zluda.spec.CudaApi;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DeviceAttributesTest extends DriverTestBase {
    /** Attributes that follow from the compute capability alone: at 9.0 they must equal an H200's. */
    static final List<String> BY_CAPABILITY = List.of("MAX_THREADS_PER_BLOCK", "MAX_BLOCK_DIM_X", "MAX_BLOCK_DIM_Y",
            "MAX_BLOCK_DIM_Z", "MAX_GRID_DIM_X", "MAX_GRID_DIM_Y", "MAX_GRID_DIM_Z", "MAX_SHARED_MEMORY_PER_BLOCK",
            "TOTAL_CONSTANT_MEMORY", "WARP_SIZE", "MAX_PITCH", "MAX_REGISTERS_PER_BLOCK", "TEXTURE_ALIGNMENT",
            "MAX_THREADS_PER_MULTIPROCESSOR", "TEXTURE_PITCH_ALIGNMENT", "COMPUTE_CAPABILITY_MAJOR", "COMPUTE_CAPABILITY_MINOR",
            "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR", "MAX_REGISTERS_PER_MULTIPROCESSOR", "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN",
            "MAX_BLOCKS_PER_MULTIPROCESSOR", "RESERVED_SHARED_MEMORY_PER_BLOCK", "SURFACE_ALIGNMENT",
            "MAXIMUM_TEXTURE1D_WIDTH", "MAXIMUM_TEXTURE2D_WIDTH", "MAXIMUM_TEXTURE2D_HEIGHT", "MAXIMUM_TEXTURE3D_WIDTH",
            "MAXIMUM_TEXTURE2D_LINEAR_PITCH", "MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS", "MAXIMUM_SURFACE2D_WIDTH");

    @Test
    void capability90EqualsWhatAnH200Reports() throws Exception {
        Path tsv = Path.of(System.getProperty("zluda.repo", "..")).resolve("nvidia-capture/measured/h200-580.159.04/device.tsv");
        Map<Integer, Integer> h200 = new HashMap<>();
        for (String line : Files.readAllLines(tsv)) {
            String[] f = line.split("\t");
            if (f[0].startsWith("attribute.") && f[1].equals("0")) h200.put(Integer.parseInt(f[0].substring(10)), Integer.parseInt(f[2]));
        }
        DeviceAttributes a = new DeviceAttributes(CudaApi.get(), 9, 0, 132);
        var e = CudaApi.get().enumType("CUdevice_attribute").orElseThrow();
        List<String> wrong = new ArrayList<>();
        for (String n : BY_CAPABILITY) {
            int id = e.valueOf("CU_DEVICE_ATTRIBUTE_" + n).orElseThrow().intValue();
            if (!h200.get(id).equals(a.get(id))) wrong.add(n + ": H200 " + h200.get(id) + ", zluda " + a.get(id));
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }

    @Test
    void everyAttributeHasAValueAndTheDefaultIs86() {
        assertEquals(0, d.cuInit(0));
        var e = CudaApi.get().enumType("CUdevice_attribute").orElseThrow();
        MemorySegment v = mem(4);
        for (var m : e.members()) {
            if (m.name().endsWith("_MAX")) continue;
            assertEquals(0, d.cuDeviceGetAttribute(addr(v), (int) m.value(), 0), m.name());
        }
        assertEquals(1, d.cuDeviceGetAttribute(addr(v), 100000, 0), "unknown attribute -> CUDA_ERROR_INVALID_VALUE");
        MemorySegment major = mem(4), minor = mem(4);
        assertEquals(0, d.cuDeviceComputeCapability(addr(major), addr(minor), 0));
        assertEquals(8, i32(major));
        assertEquals(6, i32(minor));
        // Programming Guide, compute capability 8.6: 1536 threads, 16 blocks, 100 KB shared memory per SM; 99 KB per block opt-in
        var a = new DeviceAttributes(CudaApi.get(), 8, 6, 2).byName();
        assertEquals(1536, a.get("MAX_THREADS_PER_MULTIPROCESSOR"));
        assertEquals(16, a.get("MAX_BLOCKS_PER_MULTIPROCESSOR"));
        assertEquals(100 * 1024, a.get("MAX_SHARED_MEMORY_PER_MULTIPROCESSOR"));
        assertEquals(99 * 1024, a.get("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"));
        assertEquals(2, a.get("MULTIPROCESSOR_COUNT"));
    }

    @Test
    void overrideIsParsedAndChecked() {
        assertEquals(List.of(8, 6), List.of(DeviceAttributes.computeCapability(null)[0], DeviceAttributes.computeCapability(null)[1]));
        assertEquals(7, DeviceAttributes.computeCapability("7.5")[0]);
        assertThrows(IllegalArgumentException.class, () -> DeviceAttributes.computeCapability("sm_86"));
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> new DeviceAttributes(CudaApi.get(), 6, 1, 1));
        assertTrue(x.getMessage().contains("6.1"), x.getMessage());
    }

    @Test
    void deviceQueriesBeforeInitAndOnBadOrdinals() {
        MemorySegment v = mem(8);
        assertEquals(3, d.cuDeviceGetCount(addr(v)), "CUDA_ERROR_NOT_INITIALIZED before cuInit");
        assertEquals(0, d.cuInit(0));
        assertEquals(101, d.cuDeviceGetAttribute(addr(v), 1, 1), "CUDA_ERROR_INVALID_DEVICE");
        MemorySegment uuid = mem(16);
        assertEquals(0, d.cuDeviceGetUuid_v2(addr(uuid), 0));
        assertEquals("ZLUDA-emulator", uuid.getString(0));
        MemorySegment bus = mem(32);
        assertEquals(0, d.cuDeviceGetPCIBusId(addr(bus), 32, 0));
        MemorySegment dev = mem(4);
        dev.set(java.lang.foreign.ValueLayout.JAVA_INT, 0, 7);
        assertEquals(0, d.cuDeviceGetByPCIBusId(addr(dev), addr(bus)));
        assertEquals(0, i32(dev));
    }
}
