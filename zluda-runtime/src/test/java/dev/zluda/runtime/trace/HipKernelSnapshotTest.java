package dev.zluda.runtime.trace;

import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.KernelSnapshots;
import dev.zluda.ptx.llvm.LlvmTools;
import dev.zluda.runtime.driver.ZludaDriver;
import dev.zluda.runtime.hip.Hip;
import dev.zluda.runtime.hip.HipBackend;
import dev.zluda.spec.CudaApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Kernel snapshots ({@code --capture-kernels}) recorded through the hip backend, against the stand-in HIP
 * ({@code src/test/c/fake_hip.c}, which keeps "device" memory at addresses the process cannot read and runs no
 * kernel): the trace layer is the driver's outermost interceptor, the snapshot is taken around the launch whatever
 * the backend, and the buffer images are read through HIP's copies. Nothing here runs on an AMD GPU.
 */
class HipKernelSnapshotTest {
    static final Path FAKE = fakeHip();

    static Path fakeHip() {
        String dir = System.getenv("ZLUDA_TEST_NATIVE");
        return dir == null ? null : Path.of(dir, "test", "fake-hip", "libamdhip64-fake.so");
    }

    static final String PTX = """
            .version 8.0
            .target sm_80
            .address_size 64
            .visible .entry fill(.param .u64 p, .param .u32 n)
            {
                .reg .b64 %p<2>;
                .reg .b32 %v<2>;
                ld.param.u32 %v0, [n];
                ld.param.u64 %p0, [p];
                add.u32 %v1, %v0, 1;
                st.global.u32 [%p0+4], %v1;
                ret;
            }
            """;

    @AfterEach
    void tearDown() {
        System.clearProperty(Hip.LIBRARY_PROPERTY);
        System.clearProperty(HipBackend.BACKEND_PROPERTY);
    }

    @Test
    void aLaunchOnTheHipBackendIsSnapshottedThroughHipsCopies(@TempDir Path tmp) throws Throwable {
        Assumptions.assumeTrue(FAKE != null, "ZLUDA_TEST_NATIVE is not set (run through Maven, which builds the stand-in HIP)");
        assertTrue(Files.exists(FAKE), FAKE + " was not built");
        LlvmTools tools = LlvmTools.find();
        if (tools == null && System.getenv("ZLUDA_REQUIRE_LLVM") != null) throw new AssertionError(LlvmTools.missingMessage());
        Assumptions.assumeTrue(tools != null, LlvmTools.missingMessage());
        SymbolLookup fake = SymbolLookup.libraryLookup(FAKE.toString(), Arena.global());
        Linker linker = Linker.nativeLinker();
        MethodHandle reset = linker.downcallHandle(fake.find("fake_hip_reset").orElseThrow(), FunctionDescriptor.ofVoid());
        MethodHandle launchCount = linker.downcallHandle(fake.find("fake_hip_launch_count").orElseThrow(), FunctionDescriptor.of(JAVA_INT));
        MethodHandle counters = linker.downcallHandle(fake.find("fake_hip_counters").orElseThrow(), FunctionDescriptor.ofVoid(ADDRESS));
        reset.invokeExact();
        System.setProperty(Hip.LIBRARY_PROPERTY, FAKE.toString());
        System.setProperty(HipBackend.BACKEND_PROPERTY, "hip");

        ZludaDriver d = new ZludaDriver(CudaApi.get(), MemorySegment.NULL);
        CallTracer t = CallTracer.open(CudaApi.get(), tmp, "app", false, Pattern.compile("fill"), CallTracer.ModuleImages.ALL);
        t.attach(d);
        long buffer;
        byte[] pattern = new byte[256];
        for (int i = 0; i < pattern.length; i++) pattern[i] = (byte) (i * 3 + 1);
        long[] copiesBefore, copiesAfter;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p8 = a.allocate(8);
            assertEquals(0, d.cuInit(0));
            assertEquals(0, d.cuDevicePrimaryCtxRetain(p8.address(), 0));
            assertEquals(0, d.cuCtxSetCurrent(p8.get(JAVA_LONG, 0)));
            assertEquals(0, d.cuMemAlloc_v2(p8.address(), pattern.length));
            buffer = p8.get(JAVA_LONG, 0);
            MemorySegment host = a.allocate(pattern.length);
            MemorySegment.copy(pattern, 0, host, ValueLayout.JAVA_BYTE, 0, pattern.length);
            assertEquals(0, d.cuMemcpyHtoD_v2(buffer, host.address(), pattern.length));
            MemorySegment module = a.allocate(8), function = a.allocate(8);
            assertEquals(0, d.cuModuleLoadData(module.address(), a.allocateFrom(PTX).address()));
            assertEquals(0, d.cuModuleGetFunction(function.address(), module.get(JAVA_LONG, 0), a.allocateFrom("fill").address()));
            MemorySegment pp = a.allocate(8), pn = a.allocate(4), params = a.allocate(16);
            pp.set(JAVA_LONG, 0, buffer);
            pn.set(JAVA_INT, 0, 77);
            params.setAtIndex(ADDRESS, 0, pp);
            params.setAtIndex(ADDRESS, 1, pn);
            copiesBefore = counters(counters, a);
            assertEquals(0, d.cuLaunchKernel(function.get(JAVA_LONG, 0), 2, 1, 1, 32, 1, 1, 0, 0, params.address(), 0));
            copiesAfter = counters(counters, a);
        }
        t.close(0);
        assertEquals(1, (int) launchCount.invokeExact(), "the launch reached HIP");
        assertEquals(2, copiesAfter[1] - copiesBefore[1], "the before- and after-image were read with hipMemcpyDtoH");
        assertEquals(2, copiesAfter[5] - copiesBefore[5], "the launch's stream was waited for before each image: its earlier work, then the kernel");

        try (Capture cap = Capture.open(t.directory())) {
            KernelSnapshots ks = KernelSnapshots.read(cap);
            assertEquals(1, ks.list().size(), "one snapshot");
            KernelSnapshots.Snapshot s = ks.list().getFirst();
            assertEquals("cuLaunchKernel", s.launchFunction());
            CaptureRecord.Kernel k = s.record();
            assertEquals("fill", k.name());
            CaptureRecord.KernelLaunch l = k.launch();
            assertArrayEquals(new long[] {2, 1, 1, 32, 1, 1, 0, 0},
                    new long[] {l.gridX(), l.gridY(), l.gridZ(), l.blockX(), l.blockY(), l.blockZ(), l.sharedMemBytes(), l.result()});
            assertTrue(new String(ks.blob(l.moduleHash(), "module"), StandardCharsets.UTF_8).contains(".entry fill("));
            ByteBuffer params = ByteBuffer.wrap(k.params()).order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(buffer, params.getLong(0), "parameter p: the HIP device address");
            assertEquals(77, params.getInt(8), "parameter n");
            assertEquals(1, k.buffers().size());
            CaptureRecord.KernelBuffer b = k.buffers().getFirst();
            assertEquals(buffer, b.devicePointer());
            assertEquals(pattern.length, b.size());
            assertArrayEquals(pattern, ks.blob(b.before(), "before"), "the bytes HIP held before the launch");
            // the stand-in runs no kernel: the after-image is what HIP holds after it, unchanged
            assertArrayEquals(pattern, ks.blob(b.after(), "after"));
        }
    }

    private static long[] counters(MethodHandle counters, Arena a) throws Throwable {
        MemorySegment c = a.allocate(8 * 12);
        counters.invokeExact(c);
        return c.toArray(JAVA_LONG);
    }
}
