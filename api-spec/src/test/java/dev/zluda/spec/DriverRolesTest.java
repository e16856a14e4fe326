package dev.zluda.spec;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Roles and driver areas of cuda-api-driver.yaml, read by the spec model. */
class DriverRolesTest {
    private final CudaApi api = CudaApi.get();

    private CudaFunction f(String name) {
        return api.function(name).orElseThrow();
    }

    @Test
    void everyVariantHasTheRoleOfItsBaseName() {
        for (String n : List.of("cuLaunchKernel", "cuLaunchKernel_ptsz", "cuLaunchKernelEx", "cuLaunchKernelEx_ptsz",
                "cuLaunchCooperativeKernel", "cuLaunchCooperativeKernel_ptsz", "cuLaunchGrid", "cuLaunch")) {
            assertEquals(Role.KERNEL_LAUNCH, f(n).role(), n);
        }
        assertEquals(Role.HOST_CALLBACK, f("cuLaunchHostFunc").role(), "a host function is no kernel launch");
        assertEquals(Role.COPY, f("cuMemcpyHtoD").role(), "the CUDA 3.1 form");
        assertEquals(Role.COPY, f("cuMemcpyHtoD_v2_ptds").role());
        assertEquals(Role.COPY, f("cuMemcpy3DPeerAsync_ptsz").role());
        assertEquals(Role.STREAM_SYNC, f("cuStreamSynchronize_ptsz").role());
        assertEquals(Role.CONTEXT_SYNC, f("cuCtxSynchronize_v2").role());
        assertEquals(Role.FUNCTION_LOOKUP, f("cuLibraryGetKernel").role());
        assertEquals(Role.MODULE_LOAD, f("cuLibraryLoadFromFile").role());
        assertEquals(Role.NONE, f("cuGraphicsUnregisterResource").role(), "a function no role names");
        assertEquals(Role.GRAPH, f("cuGraphInstantiateWithParams_ptsz").role(), "a variant has its base's role");
        assertEquals(java.util.Set.of(f("cuGraphLaunch"), f("cuGraphLaunch_ptsz")), java.util.Set.copyOf(api.functions(Role.GRAPH_LAUNCH)));
    }

    @Test
    void roleKeysAreTheEnumNamesInLowerCase() {
        for (Role r : Role.values()) assertEquals(r, Role.ofKey(r.key()));
        assertEquals("kernel-launch", Role.KERNEL_LAUNCH.key());
        assertNull(Role.ofKey("launch"));
    }

    @Test
    void perThreadVariantsAreServedByTheFunctionWithoutTheSuffix() {
        DriverDispatch d = api.dispatch();
        var e = d.entry(f("cuMemcpyHtoD_v2_ptds")).orElseThrow();
        assertEquals("copy", e.area());
        assertEquals("cuMemcpyHtoD_v2", e.handler().name());
        assertEquals("cuLaunchKernel", d.entry(f("cuLaunchKernel_ptsz")).orElseThrow().handler().name());
        // served-as: the v1 symbol takes the same parameters as _v2
        assertEquals("cuCtxDestroy_v2", d.entry(f("cuCtxDestroy")).orElseThrow().handler().name());
        // cuMemcpyHtoD (CUDA 3.1) takes a 32-bit CUdeviceptr: not the _v2 function, and not served
        assertFalse(d.entry(f("cuMemcpyHtoD")).isPresent());
        // cuDeviceTotalMem (unsigned int *) has its own handler
        assertEquals("cuDeviceTotalMem", d.entry(f("cuDeviceTotalMem")).orElseThrow().handler().name());
    }

    @Test
    void everyServedFunctionHasARoleAndAnArea() {
        List<DriverDispatch.Entry> entries = api.dispatch().entries();
        assertTrue(entries.size() > 250, "only " + entries.size() + " functions served");
        for (DriverDispatch.Entry e : entries) {
            assertFalse(e.function().role() == Role.NONE, e.function().name());
            assertTrue(api.dispatch().areas().contains(e.area()), e.area());
            assertEquals(e.handler().params().size(), e.function().params().size(), e.function().name());
        }
    }
}
