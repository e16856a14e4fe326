package dev.zluda.runtime.driver;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class PtxSourceLineTest {
    @Test
    void thePtxLineMapsToTheLastLocBeforeIt() {
        String ptx = ModuleLayerTest.OOB_LINEINFO_PTX;
        assertEquals("/tmp/nu/oob.cu:4:5", PtxSourceLine.of(ptx, 34), "st.global after .loc 1 4 5");
        assertEquals("/tmp/nu/oob.cu:3:5", PtxSourceLine.of(ptx, 30), "add.s32 after .loc 1 3 5");
        assertEquals("/tmp/nu/oob.cu:1", PtxSourceLine.of(ptx, 25), "column 0 is no column");
        assertNull(PtxSourceLine.of(ptx, 16), "a line before the function's first .loc has none");
        assertNull(PtxSourceLine.of(ptx, 999));
        assertEquals("source: /tmp/nu/oob.cu:4:5 (the last .loc before module_0001_01.ptx:34)", PtxSourceLine.forFault(ptx,
                "kernel _Z3oobPii: CUDA_ERROR_ILLEGAL_ADDRESS: CTA (0,0,0) thread (0,0,0) (warp 0 lane 0), module_0001_01.ptx:34 `st.global.u32`: address"));
    }

    @Test
    void aLocOfAnotherFunctionOrAnUndeclaredFileNamesNothing() {
        String ptx = """
                .version 8.5
                .target sm_80
                .address_size 64
                .visible .entry a()
                {
                .loc 1 7 2
                ret;
                }
                .visible .entry b()
                {
                ret;
                }
                .file 1 "a.cu"
                """;
        assertEquals("a.cu:7:2", PtxSourceLine.of(ptx, 7));
        assertNull(PtxSourceLine.of(ptx, 11), "b has no .loc: a's does not describe it");
        assertNull(PtxSourceLine.of(ptx.replace(".file 1", ".file 2"), 7), "file 1 is not declared");
        assertNull(PtxSourceLine.of(ptx.replace(".loc 1 7 2", ""), 7), "no line information at all");
        assertNull(PtxSourceLine.forFault(ptx, "kernel a: CUDA_ERROR_LAUNCH_FAILED: deadlock"), "a message without a PTX line");
    }
}
