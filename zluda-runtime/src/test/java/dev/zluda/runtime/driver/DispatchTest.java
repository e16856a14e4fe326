package dev.zluda.runtime.driver;

import dev.zluda.runtime.emulator.DevicePrintf;
import dev.zluda.spec.CudaApi;
import dev.zluda.spec.Role;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The driver's one way in: interceptors chosen by role around the generated dispatch table, the same for the
 * versioned and per-thread variants of a function, and the calls the driver makes itself.
 */
class DispatchTest extends DriverTestBase {
    private static int id(String name) {
        return CudaApi.get().function(name).orElseThrow().id();
    }

    @Test
    void interceptorsSeeTheCallsOfTheirRolesWhateverTheVariant() {
        initWithContext();
        List<String> seen = new ArrayList<>();
        d.intercept(EnumSet.of(Role.COPY), false, true, (call, next) -> {
            seen.add(call.function().name());
            return next.getAsInt();
        });
        long p = alloc(64);
        MemorySegment host = mem(64);
        assertEquals(0, d.cuMemcpyHtoD_v2(p, addr(host), 64));
        assertEquals(0, d.cuMemcpyHtoD_v2_ptds(p, addr(host), 64));
        assertEquals(0, d.cuMemsetD8_v2(p, 1, 64));
        assertEquals(List.of("cuMemcpyHtoD_v2", "cuMemcpyHtoD_v2_ptds"), seen, "cuMemAlloc_v2 and cuMemsetD8_v2 have other roles");
    }

    @Test
    void anInterceptorCanAnswerForTheDriver() {
        d.intercept(EnumSet.of(Role.VERSION), false, true, (call, next) -> 42);
        assertEquals(42, d.cuDriverGetVersion(addr(mem(4))));
    }

    @Test
    void whatNoAreaServesIsNotSupportedAndUnknownIdsAreInvalid() {
        // (graphs are served since CUDA graph support; external semaphore nodes are not)
        assertEquals(CuResult.NOT_SUPPORTED, d.cuGraphAddExternalSemaphoresSignalNode(addr(mem(8)), 0, 0, 0, 0));
        assertEquals(CuResult.INVALID_VALUE, d.call(-1, new long[0]));
        assertEquals(CuResult.INVALID_VALUE, d.call(CudaApi.get().functions().size(), new long[0]));
        assertEquals(CuResult.SUCCESS, d.call(id("cuInit"), new long[] {0}), "a call by id is the typed call");
    }

    @Test
    void theDriversOwnCallsPassOnlyTheInterceptorsThatAskForThem() throws Exception {
        initWithContext();
        List<String> program = new ArrayList<>(), all = new ArrayList<>();
        d.intercept(EnumSet.of(Role.MODULE_LOAD), false, true, (call, next) -> {
            program.add(call.function().name());
            return next.getAsInt();
        });
        d.intercept(EnumSet.of(Role.MODULE_LOAD), true, true, (call, next) -> {
            all.add(call.function().name() + (call.internal() ? " (driver)" : ""));
            return next.getAsInt();
        });
        MemorySegment ptx = mem(256), module = mem(8);
        ptx.setString(0, ".version 7.0\n.target sm_50\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n", StandardCharsets.US_ASCII);
        // an export-table slot loads its module through cuModuleLoadData: the driver's call, not the program's
        assertEquals(CuResult.SUCCESS, d.areas.exportTable.cudartModuleExt(8, addr(module), addr(ptx), 0, 0, 0));
        assertEquals(CuResult.SUCCESS, d.cuModuleLoadData(addr(module), addr(ptx)));
        assertEquals(List.of("cuModuleLoadData"), program);
        assertEquals(List.of("cuModuleLoadData (driver)", "cuModuleLoadData"), all);
    }

    static final String PRINTF = """
            .version 8.0
            .target sm_80
            .address_size 64
            .extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
            .global .align 1 .b8 $str[4] = {104, 105, 10, 0};
            .visible .entry k()
            {
            .reg .b64 %rd<3>;
            mov.u64 %rd1, $str;
            cvta.global.u64 %rd2, %rd1;
            {
            .param .b64 p0; .param .b64 p1; .param .b32 rv;
            st.param.b64 [p0], %rd2;
            st.param.b64 [p1], 0;
            call.uni (rv), vprintf, (p0, p1);
            }
            ret;
            }
            """;

    /** Launches the printf kernel; what it printed is buffered until a flush point. */
    private void launchPrintf() {
        MemorySegment module = mem(8), fn = mem(8);
        assertEquals(0, d.cuModuleLoadData(addr(module), addr(arena.allocateFrom(PRINTF))));
        assertEquals(0, d.cuModuleGetFunction(addr(fn), i64(module), addr(arena.allocateFrom("k"))));
        DevicePrintf.drain();
        assertEquals(0, d.cuLaunchKernel(i64(fn), 1, 1, 1, 1, 1, 1, 0, 0, 0, 0));
    }

    @Test
    void devicePrintfIsFlushedAtTheFlushPointsOfEveryVariant() {
        initWithContext();
        long p = alloc(16);
        launchPrintf();
        assertEquals(0, d.cuMemsetD8_v2(p, 0, 16));
        assertEquals("hi\n", new String(DevicePrintf.drain(), StandardCharsets.US_ASCII), "a memset is no flush point: the output waits");
        launchPrintf();
        assertEquals(0, d.cuStreamSynchronize_ptsz(0));
        assertEquals(0, DevicePrintf.drain().length, "the per-thread stream's synchronisation printed it");
        launchPrintf();
        MemorySegment host = mem(16);
        assertEquals(0, d.cuMemcpyDtoHAsync_v2(addr(host), p, 16, 0));
        assertEquals(0, DevicePrintf.drain().length, "an asynchronous copy, which completes at once, printed it");
        launchPrintf();
        assertEquals(0, d.cuCtxSynchronize());
        assertFalse(DevicePrintf.drain().length > 0);
        assertTrue(d.state.api().function("cuMemcpyPeer").orElseThrow().is(Role.COPY));
    }

    @Test
    void aCallByIdTakesTheWordsAsTheNativeEntryPacksThem() {
        initWithContext();
        MemorySegment out = mem(4);
        // cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev): 1 = MAX_THREADS_PER_BLOCK
        assertEquals(0, d.call(id("cuDeviceGetAttribute"), new long[] {addr(out), 1, 0}));
        assertEquals(out.get(ValueLayout.JAVA_INT, 0), d.state.attributes.get(1));
        assertEquals(CuResult.INVALID_DEVICE, d.call(id("cuDeviceGetAttribute"), new long[] {addr(out), 1, -1L}), "a sign-extended -1 is ordinal -1");
    }
}
