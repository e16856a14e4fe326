package dev.zluda.spec;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The measured cuGetProcAddress table against the examples in shared/reference/cuda-facts.md,
 * which were established independently of this measurement.
 */
class ProcAddressTableTest {
    private final ProcAddressTable t = CudaApi.get().procAddress();

    private String sym(String name, int version, int flags) {
        return t.lookup(name, version, flags).symbol();
    }

    @Test
    void cuCtxCreateVariantsByVersion() {
        assertEquals("cuCtxCreate_v4", sym("cuCtxCreate", 12050, 0));
        assertEquals("cuCtxCreate_v4", sym("cuCtxCreate", 13000, 0));
        assertEquals("cuCtxCreate_v3", sym("cuCtxCreate", 12040, 0));
        assertEquals("cuCtxCreate_v3", sym("cuCtxCreate", 11040, 0));
        assertEquals("cuCtxCreate_v2", sym("cuCtxCreate", 11030, 0));
        assertEquals("cuCtxCreate_v2", sym("cuCtxCreate", 3020, 0));
        assertEquals("cuCtxCreate", sym("cuCtxCreate", 3010, 0));
    }

    @Test
    void cuGetProcAddressAndCuEventElapsedTime() {
        assertEquals("cuGetProcAddress_v2", sym("cuGetProcAddress", 12000, 0));
        assertEquals("cuGetProcAddress", sym("cuGetProcAddress", 11030, 0));
        assertEquals("cuEventElapsedTime_v2", sym("cuEventElapsedTime", 12080, 0));
        assertEquals("cuEventElapsedTime", sym("cuEventElapsedTime", 12070, 0));
    }

    @Test
    void flagsZeroAndOneAgreeEverywhere() {
        for (String name : t.names()) {
            assertEquals(t.changes(name, 0), t.changes(name, 1), name);
        }
    }

    @Test
    void perThreadDefaultStreamFlagSelectsPtdsAndPtszFrom7000() {
        assertEquals("cuMemcpyHtoD_v2_ptds", sym("cuMemcpyHtoD", 7000, 2));
        assertEquals("cuMemcpyHtoD_v2", sym("cuMemcpyHtoD", 7000, 0));
        assertEquals("cuLaunchKernel_ptsz", sym("cuLaunchKernel", 12000, 2));
        assertEquals("cuLaunchKernel", sym("cuLaunchKernel", 12000, 0));
        assertEquals("cuStreamSynchronize_ptsz", sym("cuStreamSynchronize", 12000, 2));
        // per-thread variants exist only from CUDA 7.0
        assertTrue(sym("cuMemcpyHtoD", 6050, 2) == null || !sym("cuMemcpyHtoD", 6050, 2).endsWith("_ptds"));
    }

    @Test
    void unknownNamesAndTooOldVersions() {
        ProcAddressTable.Answer unknown = t.lookup("cuNoSuchFunction", 13000, 0);
        assertNull(unknown.symbol());
        assertEquals(ProcAddressTable.SYMBOL_NOT_FOUND, unknown.symbolStatus());
        ProcAddressTable.Answer old = t.lookup("cuGetProcAddress", 11020, 0);
        assertNull(old.symbol());
        assertEquals(ProcAddressTable.VERSION_NOT_SUFFICIENT, old.symbolStatus());
        ProcAddressTable.Answer badFlags = t.lookup("cuInit", 13000, 4);
        assertEquals(ProcAddressTable.CUDA_ERROR_INVALID_VALUE, badFlags.result());
    }

    @Test
    void everyReturnedSymbolIsAFunctionOfTheSpecOrAnExport() {
        CudaApi api = CudaApi.get();
        int known = 0, total = 0;
        for (String name : t.names()) {
            for (int flags = 0; flags <= 3; flags++) {
                for (var e : t.changes(name, flags)) {
                    String s = e.getValue().symbol();
                    if (s == null) continue;
                    total++;
                    assertTrue(!s.equals("?"), name + " flags " + flags + " from " + e.getKey() + ": pointer is no export");
                    if (api.function(s).isPresent()) known++;
                }
            }
        }
        assertTrue(known > total * 9 / 10, known + " of " + total + " returned symbols are in the spec");
        assertTrue(t.provenance().stream().anyMatch(l -> l.contains("driver version")), "the table says which driver it measured");
    }
}
