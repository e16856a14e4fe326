package dev.zluda.spec;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** NVIDIA's error names (measured) against the CUresult enum of cuda.h (generated): two independent sources. */
class ErrorStringsTest {
    @Test
    void nvidiasNamesAreExactlyTheCUresultMembers() {
        ErrorStrings e = ErrorStrings.load();
        CudaEnum results = CudaApi.get().enumType("CUresult").orElseThrow();
        List<String> wrong = new ArrayList<>();
        for (var m : results.members()) {
            String nv = e.name((int) m.value()).orElse(null);
            // cuda.h has aliases for some values (e.g. CUDA_ERROR_CONTEXT_ALREADY_IN_USE); the driver gives the first
            if (nv == null) wrong.add(m.name() + " = " + m.value() + ": NVIDIA's driver has no name for it");
            else if (!nv.equals(results.nameOf(m.value()).orElseThrow())) wrong.add(m.value() + ": driver " + nv + ", spec " + results.nameOf(m.value()).get());
        }
        for (var n : e.names().entrySet()) {
            if (results.nameOf(n.getKey()).isEmpty()) wrong.add(n.getKey() + " " + n.getValue() + ": not in cuda.h's CUresult");
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
        assertEquals("invalid argument", e.description(1).orElseThrow());
        assertEquals("no error", e.description(0).orElseThrow());
    }
}
