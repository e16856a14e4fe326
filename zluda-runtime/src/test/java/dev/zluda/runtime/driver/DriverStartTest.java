package dev.zluda.runtime.driver;

import dev.zluda.spec.CudaApi;
import dev.zluda.spec.CudaEnum;
import dev.zluda.spec.CudaFunction;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The driver starts without reading the spec: what it needs at start (each function's name and role, the members of the
 * enums its areas read) is generated into {@code DriverTable} at build time. These facts must be the spec's own, and a
 * program that only initialises and asks about the device must not make the driver read the spec.
 */
class DriverStartTest {
    @Test
    void theGeneratedNamesAndRolesAreTheSpecs() {
        CudaApi api = CudaApi.get();
        assertEquals(api.functions().size(), DriverState.functionCount());
        for (CudaFunction f : api.functions()) {
            assertEquals(f.name(), DriverState.name(f.id()));
            assertEquals(f.role(), DriverState.role(f.id()), f.name());
            assertEquals(f.id(), DriverState.id(f.name()));
        }
        assertEquals(-1, DriverState.id("cuNoSuchFunction"));
    }

    @Test
    void theGeneratedEnumsAreTheSpecs() {
        CudaApi api = CudaApi.get();
        DriverState s = new DriverState(() -> { throw new AssertionError("spec read"); }, MemorySegment.NULL);
        for (String e : new String[] {"CUdevice_attribute", "CUfunction_attribute", "CUpointer_attribute"}) {
            CudaEnum generated = s.enumType(e), spec = api.enumType(e).orElseThrow();
            assertEquals(spec.members(), generated.members(), e);
            assertTrue(generated.members().size() > 10, e);
        }
    }

    @Test
    void initAndDeviceQueriesDoNotReadTheSpec() {
        AtomicInteger reads = new AtomicInteger();
        ZludaDriver d = new ZludaDriver(() -> {
            reads.incrementAndGet();
            return CudaApi.get();
        }, MemorySegment.NULL);
        try (var arena = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment out = arena.allocate(256);
            assertEquals(0, d.cuInit(0));
            assertEquals(0, d.cuDeviceGet(out.address(), 0));
            assertEquals(0, d.cuDeviceGetCount(out.address()));
            assertEquals(0, d.cuDeviceGetAttribute(out.address(), 1, 0)); // CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK
            assertEquals(1024, out.get(java.lang.foreign.ValueLayout.JAVA_INT, 0));
            assertEquals(0, d.cuDriverGetVersion(out.address()));
            assertEquals(0, reads.get(), "the spec was read");
        }
    }
}
