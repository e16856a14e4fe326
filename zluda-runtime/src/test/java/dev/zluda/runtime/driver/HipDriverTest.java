package dev.zluda.runtime.driver;

import dev.zluda.ptx.llvm.LlvmTools;
import dev.zluda.runtime.hip.Hip;
import dev.zluda.runtime.hip.HipAttributes;
import dev.zluda.runtime.hip.HipBackend;
import dev.zluda.spec.CudaApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hip backend's wiring, checked without an AMD GPU: the driver is pointed at a stand-in HIP
 * ({@code src/test/c/fake_hip.c}, built by the module's make into {@code target/native/test/fake-hip}) through
 * {@code zluda.hipLibrary}, and the CUDA calls are checked by what reached "HIP": device memory only through HIP's
 * copies (the stand-in's device addresses are not mapped in the process), the argument bytes of a launch at the
 * PTX parameter offsets, grid and block, the stream a launch or event went to, the code object's architecture.
 * Nothing here runs on an AMD GPU.
 */
class HipDriverTest {
    static final Path FAKE = fakeHip();
    static final long DEVICE_BASE = 0x1000_0000_0000L;      // where the stand-in hands out device addresses

    ZludaDriver d;
    Arena arena;
    static MethodHandle reset, setVersion, launchCount, launch, counters, eventStream, lastWait, hostOf;

    static Path fakeHip() {
        String dir = System.getenv("ZLUDA_TEST_NATIVE");
        return dir == null ? null : Path.of(dir, "test", "fake-hip", "libamdhip64-fake.so");
    }

    @BeforeEach
    void setUp() {
        Assumptions.assumeTrue(FAKE != null, "ZLUDA_TEST_NATIVE is not set (run through Maven, which builds the stand-in HIP)");
        assertTrue(Files.exists(FAKE), FAKE + " was not built");
        if (reset == null) {
            SymbolLookup l = SymbolLookup.libraryLookup(FAKE.toString(), Arena.global());
            Linker k = Linker.nativeLinker();
            reset = k.downcallHandle(l.find("fake_hip_reset").orElseThrow(), FunctionDescriptor.ofVoid());
            setVersion = k.downcallHandle(l.find("fake_hip_set_version").orElseThrow(), FunctionDescriptor.ofVoid(JAVA_INT));
            launchCount = k.downcallHandle(l.find("fake_hip_launch_count").orElseThrow(), FunctionDescriptor.of(JAVA_INT));
            launch = k.downcallHandle(l.find("fake_hip_launch").orElseThrow(),
                    FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS));
            counters = k.downcallHandle(l.find("fake_hip_counters").orElseThrow(), FunctionDescriptor.ofVoid(ADDRESS));
            eventStream = k.downcallHandle(l.find("fake_hip_event_stream").orElseThrow(), FunctionDescriptor.of(JAVA_LONG, JAVA_INT));
            lastWait = k.downcallHandle(l.find("fake_hip_last_wait").orElseThrow(), FunctionDescriptor.of(JAVA_LONG, JAVA_INT));
            hostOf = k.downcallHandle(l.find("fake_hip_host").orElseThrow(), FunctionDescriptor.of(ADDRESS, JAVA_LONG, JAVA_LONG));
        }
        try {
            reset.invokeExact();
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
        System.setProperty(Hip.LIBRARY_PROPERTY, FAKE.toString());
        System.setProperty(HipBackend.BACKEND_PROPERTY, "hip");
        d = new ZludaDriver(CudaApi.get(), MemorySegment.NULL);
        arena = Arena.ofConfined();
    }

    @AfterEach
    void tearDown() {
        System.clearProperty(Hip.LIBRARY_PROPERTY);
        System.clearProperty(HipBackend.BACKEND_PROPERTY);
        if (arena != null) arena.close();
    }

    /** The AMD device serving the driver, or null when the emulator serves (or before cuInit). */
    static dev.zluda.runtime.hip.HipDevice hip(ZludaDriver d) {
        return d.backend() instanceof dev.zluda.runtime.hip.HipDevice h ? h : null;
    }

    long[] counters() throws Throwable {
        MemorySegment c = arena.allocate(8 * 12);
        counters.invokeExact(c);
        return c.toArray(JAVA_LONG);
    }

    MemorySegment mem(long n) {
        return arena.allocate(n, 16);
    }

    int attr(String name) {
        int id = (int) CudaApi.get().enumType("CUdevice_attribute").orElseThrow().members().stream()
                .filter(m -> m.name().equals("CU_DEVICE_ATTRIBUTE_" + name)).findFirst().orElseThrow().value();
        MemorySegment v = mem(4);
        assertEquals(0, d.cuDeviceGetAttribute(v.address(), id, 0), name);
        return v.get(JAVA_INT, 0);
    }

    long initWithContext() {
        assertEquals(0, d.cuInit(0));
        MemorySegment ctx = mem(8);
        assertEquals(0, d.cuDevicePrimaryCtxRetain(ctx.address(), 0));
        assertEquals(0, d.cuCtxSetCurrent(ctx.get(JAVA_LONG, 0)));
        return ctx.get(JAVA_LONG, 0);
    }

    long alloc(long n) {
        MemorySegment p = mem(8);
        assertEquals(0, d.cuMemAlloc_v2(p.address(), n));
        return p.get(JAVA_LONG, 0);
    }

    static final String PTX = """
            .version 8.0
            .target sm_80
            .address_size 64
            .visible .entry k(.param .u8 a, .param .u64 p, .param .align 16 .b8 s[20], .param .u32 n)
            {
                .reg .u64 %rd<3>;
                .reg .u32 %r<3>;
                ld.param.u64 %rd1, [p];
                ld.param.u32 %r1, [n];
                cvta.to.global.u64 %rd2, %rd1;
                st.global.u32 [%rd2], %r1;
                ret;
            }
            """;

    @Test
    void deviceIdentityAndAttributesComeFromHip() {
        assertEquals(0, d.cuInit(0));
        assertNotNull(hip(d), "the hip backend serves");
        assertEquals("gfx1100", hip(d).archName());
        MemorySegment name = mem(256);
        assertEquals(0, d.cuDeviceGetName(name.address(), 256, 0));
        assertEquals("AMD Radeon RX 7900 XTX (fake HIP)", name.getString(0));
        MemorySegment total = mem(8);
        assertEquals(0, d.cuDeviceTotalMem_v2(total.address(), 0));
        assertEquals(16L << 30, total.get(JAVA_LONG, 0));
        // hipDeviceAttribute_t values of HIP 5.0+ (hip_runtime_api.h); the stand-in answers 1000 + the value
        assertEquals(1063, attr("MULTIPROCESSOR_COUNT"));      // hipDeviceAttributeMultiprocessorCount = 63
        assertEquals(1005, attr("CLOCK_RATE"));                // ClockRate = 5
        assertEquals(1019, attr("L2_CACHE_SIZE"));             // L2CacheSize = 19
        assertEquals(1071, attr("MAX_REGISTERS_PER_BLOCK"));   // MaxRegistersPerBlock = 71
        assertEquals(1083, attr("TOTAL_CONSTANT_MEMORY"));     // TotalConstantMemory = 83
        assertEquals(1067, attr("PCI_BUS_ID"));                // PciBusId = 67
        assertEquals(1060, attr("MEMORY_CLOCK_RATE"));         // MemoryClockRate = 60
        assertEquals(32, attr("WARP_SIZE"));
        assertEquals(1024, attr("MAX_THREADS_PER_BLOCK"));
        assertEquals(65536, attr("MAX_GRID_DIM_Y"));
        // refused by HIP as "Cuda only": the AMD attribute 10002 answers
        assertEquals(131072, attr("MAX_SHARED_MEMORY_PER_MULTIPROCESSOR"));
        // what the driver does not implement on HIP, whatever the device says
        assertEquals(0, attr("MANAGED_MEMORY"));
        assertEquals(0, attr("CAN_MAP_HOST_MEMORY"));
        // the compute capability stays zluda's (what the PTX is chosen for), not the gfx version
        int[] cc = DeviceAttributes.computeCapability(System.getenv("ZLUDA_OVERRIDE_COMPUTE_CAPABILITY"));
        assertEquals(cc[0], attr("COMPUTE_CAPABILITY_MAJOR"));
    }

    @Test
    void everyTableNameIsACudaAttribute() {
        Set<String> names = new HashSet<>();
        for (var m : CudaApi.get().enumType("CUdevice_attribute").orElseThrow().members()) names.add(m.name().substring("CU_DEVICE_ATTRIBUTE_".length()));
        for (String n : HipAttributes.TABLE.keySet()) assertTrue(names.contains(n), n);
        for (String n : HipAttributes.ABSENT_ON_HIP) assertTrue(names.contains(n), n);
        for (String n : HipAttributes.AMD_FALLBACK.keySet()) assertTrue(names.contains(n), n);
    }

    @Test
    void memoryGoesThroughHipCopies() throws Throwable {
        initWithContext();
        long a = alloc(1024), b = alloc(1024);
        assertTrue(Long.compareUnsigned(a, DEVICE_BASE) >= 0 && Long.compareUnsigned(b, DEVICE_BASE) >= 0, "HIP's device addresses");
        MemorySegment src = mem(1024);
        for (int i = 0; i < 256; i++) src.setAtIndex(JAVA_INT, i, i * 7 + 1);
        assertEquals(0, d.cuMemcpyHtoD_v2(a, src.address(), 1024));
        MemorySegment inHip = ((MemorySegment) hostOf.invokeExact(a, 1024L)).reinterpret(1024);
        assertArrayEquals(src.toArray(JAVA_INT), inHip.toArray(JAVA_INT), "the bytes HIP holds");
        assertEquals(0, d.cuMemsetD32_v2(b, 0x5a5a5a5a, 256));
        assertEquals(0, d.cuMemcpyDtoD_v2(b + 512, a, 256));
        MemorySegment out = mem(1024);
        assertEquals(0, d.cuMemcpyDtoH_v2(out.address(), b, 1024));
        for (int i = 0; i < 128; i++) assertEquals(0x5a5a5a5a, out.getAtIndex(JAVA_INT, i));
        for (int i = 0; i < 64; i++) assertEquals(i * 7 + 1, out.getAtIndex(JAVA_INT, 128 + i));
        for (int i = 192; i < 256; i++) assertEquals(0x5a5a5a5a, out.getAtIndex(JAVA_INT, i));
        long[] c = counters();
        assertEquals(1, c[0], "hipMemcpyHtoD");
        assertEquals(1, c[1], "hipMemcpyDtoH");
        assertEquals(1, c[2], "hipMemcpyDtoD");
        assertEquals(1, c[3], "hipMemsetD32");
        // a copy past the end of an allocation is refused before HIP
        assertEquals(CuResult.INVALID_VALUE, d.cuMemcpyHtoD_v2(a + 1000, src.address(), 100));
        assertEquals(CuResult.NOT_SUPPORTED, d.cuMemAllocManaged(mem(8).address(), 64, 1));
        assertEquals(CuResult.NOT_SUPPORTED, d.cuMemHostRegister_v2(src.address(), 1024, 0));
        assertEquals(2, counters()[7], "live HIP allocations");
        assertEquals(0, d.cuMemFree_v2(a));
        assertEquals(0, d.cuMemFree_v2(b));
        assertEquals(0, counters()[7], "hipFree");
    }

    @Test
    void ptxIsCompiledForTheDeviceAndLaunchesReachHipWithTheArgumentBytes() throws Throwable {
        LlvmTools tools = LlvmTools.find();
        if (tools == null && System.getenv("ZLUDA_REQUIRE_LLVM") != null) throw new AssertionError(LlvmTools.missingMessage());
        Assumptions.assumeTrue(tools != null, LlvmTools.missingMessage());
        initWithContext();
        long buf = alloc(256);
        MemorySegment mod = mem(8), fn = mem(8);
        assertEquals(0, d.cuModuleLoadData(mod.address(), arena.allocateFrom(PTX).address()));
        long[] c = counters();
        assertEquals(1, c[10], "one code object loaded by hipModuleLoadData");
        assertEquals(0x041, c[11] & 0xff, "e_flags: EF_AMDGPU_MACH_AMDGCN_GFX1100");
        assertEquals(0, d.cuModuleGetFunction(fn.address(), mod.get(JAVA_LONG, 0), arena.allocateFrom("k").address()));
        assertEquals(CuResult.NOT_FOUND, d.cuModuleGetFunction(mem(8).address(), mod.get(JAVA_LONG, 0), arena.allocateFrom("nope").address()));
        MemorySegment stream = mem(8);
        assertEquals(0, d.cuStreamCreate(stream.address(), 0));

        // kernelParams: a u8, a u64 pointer, an .align 16 array of 20 bytes, a u32 (PTX ISA 9.0 §5.1.6.1 layout)
        MemorySegment pa = mem(1), pp = mem(8), ps = mem(20), pn = mem(4), params = mem(32);
        pa.set(ValueLayout.JAVA_BYTE, 0, (byte) 7);
        pp.set(JAVA_LONG, 0, buf);
        for (int i = 0; i < 20; i++) ps.set(ValueLayout.JAVA_BYTE, i, (byte) (0x40 + i));
        pn.set(JAVA_INT, 0, 9);
        params.setAtIndex(ADDRESS, 0, pa);
        params.setAtIndex(ADDRESS, 1, pp);
        params.setAtIndex(ADDRESS, 2, ps);
        params.setAtIndex(ADDRESS, 3, pn);
        assertEquals(0, d.cuLaunchKernel(fn.get(JAVA_LONG, 0), 3, 2, 1, 64, 1, 1, 0, stream.get(JAVA_LONG, 0), params.address(), 0));
        // too large a block is refused by the driver, before HIP
        assertEquals(CuResult.INVALID_VALUE, d.cuLaunchKernel(fn.get(JAVA_LONG, 0), 1, 1, 1, 2048, 1, 1, 0, 0, params.address(), 0));

        assertEquals(1, (int) launchCount.invokeExact());
        MemorySegment name = mem(256), dims = mem(4 * 7), args = mem(4096), argSize = mem(8);
        long streamIndex = (long) launch.invokeExact(0, name, dims, args, 4096L, argSize);
        assertEquals("k", name.getString(0, StandardCharsets.US_ASCII));
        assertArrayEquals(new int[] {3, 2, 1, 64, 1, 1, 0}, dims.toArray(JAVA_INT), "grid, block, shared bytes");
        assertEquals(1, streamIndex, "the HIP stream cuStreamCreate made");
        assertEquals(40, argSize.get(JAVA_LONG, 0), "a@0, p@8, s@16 (.align 16), n@36: 40 bytes");
        byte[] got = args.asSlice(0, 40).toArray(ValueLayout.JAVA_BYTE);
        assertEquals(7, got[0]);
        assertEquals(buf, MemorySegment.ofArray(got).get(ValueLayout.JAVA_LONG_UNALIGNED, 8));
        for (int i = 0; i < 20; i++) assertEquals((byte) (0x40 + i), got[16 + i]);
        assertEquals(9, MemorySegment.ofArray(got).get(ValueLayout.JAVA_INT_UNALIGNED, 36));

        // the same through cuLaunchKernel's extra buffer, on the default stream
        MemorySegment packed = mem(40);
        MemorySegment.copy(got, 0, packed, ValueLayout.JAVA_BYTE, 0, 40);
        MemorySegment size = mem(8), extra = mem(40);
        size.set(JAVA_LONG, 0, 40);
        extra.setAtIndex(JAVA_LONG, 0, 1);
        extra.setAtIndex(ADDRESS, 1, packed);
        extra.setAtIndex(JAVA_LONG, 2, 2);
        extra.setAtIndex(ADDRESS, 3, size);
        extra.setAtIndex(JAVA_LONG, 4, 0);
        assertEquals(0, d.cuLaunchKernel(fn.get(JAVA_LONG, 0), 5, 1, 1, 32, 2, 1, 0, 0, 0, extra.address()));
        assertEquals(2, (int) launchCount.invokeExact());
        assertEquals(0L, (long) launch.invokeExact(1, name, dims, args, 4096L, argSize), "HIP's null stream");
        assertArrayEquals(got, args.asSlice(0, 40).toArray(ValueLayout.JAVA_BYTE));
        assertArrayEquals(new int[] {5, 1, 1, 32, 2, 1, 0}, dims.toArray(JAVA_INT));

        // events and streams
        MemorySegment e1 = mem(8), e2 = mem(8), ms = mem(4);
        assertEquals(0, d.cuEventCreate(e1.address(), 0));
        assertEquals(0, d.cuEventCreate(e2.address(), 0));
        assertEquals(0, d.cuEventRecord(e1.get(JAVA_LONG, 0), stream.get(JAVA_LONG, 0)));
        assertEquals(0, d.cuEventRecord(e2.get(JAVA_LONG, 0), 0));
        assertEquals(1, (long) eventStream.invokeExact(1));
        assertEquals(0, (long) eventStream.invokeExact(2));
        assertEquals(0, d.cuStreamWaitEvent(stream.get(JAVA_LONG, 0), e2.get(JAVA_LONG, 0), 0));
        assertEquals(1, (long) lastWait.invokeExact(0));
        assertEquals(2, (long) lastWait.invokeExact(1));
        assertEquals(0, d.cuEventSynchronize(e2.get(JAVA_LONG, 0)));
        assertEquals(0, d.cuEventElapsedTime(ms.address(), e1.get(JAVA_LONG, 0), e2.get(JAVA_LONG, 0)));
        assertEquals(1.5f, ms.get(ValueLayout.JAVA_FLOAT, 0), "HIP's elapsed time (the stand-in's 1.5 ms per record)");
        MemorySegment out = mem(256);
        long syncsBefore = counters()[5];
        assertEquals(0, d.cuMemcpyDtoHAsync_v2(out.address(), buf, 256, stream.get(JAVA_LONG, 0)));
        assertEquals(syncsBefore + 1, counters()[5], "an async copy waits for its stream first");
        assertEquals(0, d.cuCtxSynchronize());
        c = counters();
        assertEquals(1, c[4], "hipDeviceSynchronize");
        assertEquals(1, c[6], "hipEventSynchronize");
        assertEquals(1, c[8], "live HIP streams");
        assertEquals(2, c[9], "live HIP events");
        assertEquals(0, d.cuEventDestroy_v2(e1.get(JAVA_LONG, 0)));
        assertEquals(0, d.cuEventDestroy_v2(e2.get(JAVA_LONG, 0)));
        assertEquals(0, d.cuStreamDestroy_v2(stream.get(JAVA_LONG, 0)));
        assertEquals(0, d.cuModuleUnload(mod.get(JAVA_LONG, 0)));
        c = counters();
        assertEquals(0, c[8]);
        assertEquals(0, c[9]);
    }

    @Test
    void whatTheLoweringRefusesNeverReachesHip() throws Throwable {
        initWithContext();                                  // refused before LLVM runs: no LLVM needed
        String refused = PTX.replace("st.global.u32 [%rd2], %r1;", "bar.sync 1;\n    st.global.u32 [%rd2], %r1;");   // barrier 1: refused
        assertEquals(CuResult.NOT_SUPPORTED, d.cuModuleLoadData(mem(8).address(), arena.allocateFrom(refused).address()));
        assertEquals(218, d.cuModuleLoadData(mem(8).address(), arena.allocateFrom(PTX.replace("ret;", "ret")).address()), "CUDA_ERROR_INVALID_PTX");
        // a form whose lowering the exhaustive sweep found computing something else than an H200 (dev.zluda.ptx.llvm.LlvmForms)
        String differs = PTX.replace("st.global.u32 [%rd2], %r1;", "activemask.b32 %r1;\n    st.global.u32 [%rd2], %r1;");
        assertEquals(CuResult.NOT_SUPPORTED, d.cuModuleLoadData(mem(8).address(), arena.allocateFrom(differs).address()), "activemask.b32: refused");
        assertEquals(0, counters()[10], "no module reached hipModuleLoadData");
    }

    @Test
    void hip6PropertiesLayoutAndHip4Refusal() throws Throwable {
        setVersion.invokeExact(60_032_830);                  // HIP 6.0: hipGetDevicePropertiesR0600, hipDeviceProp_tR0600
        assertEquals(0, d.cuInit(0));
        assertEquals("gfx1100", hip(d).archName());
        assertEquals("AMD Radeon RX 7900 XTX (fake HIP)", hip(d).name());
        assertEquals(16L << 30, hip(d).totalMemory());
        assertEquals(1063, attr("MULTIPROCESSOR_COUNT"), "the same numbering in HIP 6");

        reset.invokeExact();
        setVersion.invokeExact(40_500_000);                  // HIP 4.5: another hipDeviceAttribute_t numbering
        ZludaDriver old = new ZludaDriver(CudaApi.get(), MemorySegment.NULL);
        assertEquals(CuResult.NOT_SUPPORTED, old.cuInit(0));
        assertNull(hip(old));
    }

    @Test
    void withAHipLibraryAndNoBackendNamedHipServesWhenItHasADevice() {
        System.clearProperty(HipBackend.BACKEND_PROPERTY);
        Assumptions.assumeTrue(System.getenv("ZLUDA_BACKEND") == null);
        HipBackend.Selection s = HipBackend.select(null);
        assertEquals("hip", s.backend(), s.reason());
        assertNotNull(s.device());
        assertTrue(s.reason().contains("gfx1100"), s.reason());
        assertEquals(0, d.cuInit(0));
        assertNotNull(hip(d));
        assertEquals("emulator", HipBackend.select("emulator").backend());
    }
}
