package dev.zluda.runtime.emulator;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad kernels stop with the error NVIDIA's driver reports, a message naming kernel, CTA, thread,
 * PTX line and address, and no harm to the host; PTX the emulator cannot execute is refused at load.
 */
class MemorySafetyTest {
    static PtxRun run;

    @BeforeAll
    static void setUp() {
        run = new PtxRun();
    }

    @AfterAll
    static void tearDown() {
        run.close();
    }

    static LaunchResult launch(String body, int threads, long... params) throws Exception {
        String ptx = PtxRun.HEADER + """
                .visible .entry bad(.param .u64 p0, .param .u64 p1)
                {
                .reg .pred %p<4>; .reg .b32 %r<8>; .reg .b64 %rd<8>;
                .shared .align 4 .b8 sh[64];
                ld.param.u64 %rd1, [p0];
                ld.param.u64 %rd2, [p1];
                mov.u32 %r0, %tid.x;
                """ + body + "\nret;\n}\n";
        Kernel k = run.load(ptx).kernels().get("bad");
        Object[] ps = new Object[params.length];
        for (int i = 0; i < ps.length; i++) ps[i] = params[i];
        return run.launch(k, new int[] {2, 1, 1}, new int[] {threads, 1, 1}, 0, ps);
    }

    @Test
    void globalAccessOutsideEveryAllocation() throws Exception {
        MemorySegment buf = run.buffer(256);
        // thread 70 of each CTA writes past the end
        LaunchResult r = launch("setp.ne.u32 %p1, %r0, 70;\n@%p1 bra SKIP;\nst.global.u32 [%rd1+256], %r0;\nSKIP:", 96, buf.address(), 0);
        assertEquals(Errors.ILLEGAL_ADDRESS, r.error());
        assertTrue(r.message().contains("kernel bad"), r.message());
        assertTrue(r.message().contains("CTA (0,0,0) thread (70,0,0)"), r.message());
        assertTrue(r.message().contains("test.ptx:13"), r.message());
        assertTrue(r.message().contains("st.global.u32"), r.message());
        assertTrue(r.message().contains(Mem.hex(buf.address() + 256)), r.message());
        assertEquals(Errors.ILLEGAL_ADDRESS, launch("ld.global.u32 %r1, [%rd1];", 32, 0x1000, 0).error(), "a wild read");
        MemorySegment odd = run.buffer(250);
        assertTrue(launch("ld.global.u16 %r1, [%rd1+248];", 1, odd.address(), 0).ok());
        assertEquals(Errors.ILLEGAL_ADDRESS, launch("ld.global.v2.u32 {%r1, %r2}, [%rd1+248];", 1, odd.address(), 0).error(),
                "a vector straddling the end");
        assertEquals(Errors.ILLEGAL_ADDRESS, launch("ld.u32 %r1, [%rd1];", 1, 0, 0).error(), "generic null");
    }

    /** The whole-warp paths of ld/st (one check for 32 lanes) still find the one bad lane and name it. */
    @Test
    void wholeWarpAccessesCheckEveryLane() throws Exception {
        MemorySegment buf = run.buffer(128);
        String lanes = "ld.global.u32 %r1, [%rd1];\nmul.wide.u32 %rd3, %r0, 4;\nadd.s64 %rd3, %rd1, %rd3;\nsetp.eq.u32 %p1, %r0, ";
        assertTrue(launch(lanes + "31;\nld.global.u32 %r2, [%rd3];\nst.global.u32 [%rd3], %r2;", 32, buf.address(), 0).ok(), "32 lanes inside");
        // an address far below every allocation: its distance from the allocation overflows a long
        LaunchResult r = launch(lanes + "31;\n@%p1 mov.u64 %rd3, 0x8000000000000010;\nld.global.u32 %r2, [%rd3];", 32, buf.address(), 0);
        assertEquals(Errors.ILLEGAL_ADDRESS, r.error(), r.message());
        assertTrue(r.message().contains("thread (31,0,0)"), r.message());
        r = launch(lanes + "31;\n@%p1 add.s64 %rd3, %rd3, 0x10000000000;\nst.global.u32 [%rd3], %r0;", 32, buf.address(), 0);
        assertEquals(Errors.ILLEGAL_ADDRESS, r.error(), r.message());
        assertTrue(r.message().contains("thread (31,0,0)") && r.message().contains("st.global.u32"), r.message());
        r = launch(lanes + "5;\n@%p1 add.s64 %rd3, %rd3, 2;\nld.global.u32 %r2, [%rd3];", 32, buf.address(), 0);
        assertEquals(Errors.MISALIGNED_ADDRESS, r.error(), r.message());
        assertTrue(r.message().contains("thread (5,0,0)"), r.message());
        // 64 bytes of shared memory: lanes 16..31 are outside, the first of them is reported
        r = launch("mov.u32 %r1, sh;\nshl.b32 %r2, %r0, 2;\nadd.u32 %r1, %r1, %r2;\nld.shared.u32 %r3, [%r1];", 32);
        assertEquals(Errors.ILLEGAL_ADDRESS, r.error(), r.message());
        assertTrue(r.message().contains("thread (16,0,0)"), r.message());
        r = launch("mov.u32 %r1, sh;\nshl.b32 %r2, %r0, 2;\nadd.u32 %r1, %r1, %r2;\nst.shared.u32 [%r1], %r0;", 32);
        assertEquals(Errors.ILLEGAL_ADDRESS, r.error(), r.message());
        assertTrue(r.message().contains("thread (16,0,0)"), r.message());
        assertTrue(launch("mov.u32 %r1, sh;\nand.b32 %r2, %r0, 15;\nshl.b32 %r2, %r2, 2;\nadd.u32 %r1, %r1, %r2;\nst.shared.u32 [%r1], %r0;\nld.shared.u32 %r3, [%r1];", 32).ok());
    }

    @Test
    void misalignedAccesses() throws Exception {
        MemorySegment buf = run.buffer(256);
        LaunchResult r = launch("ld.global.u32 %r1, [%rd1+2];", 1, buf.address(), 0);
        assertEquals(Errors.MISALIGNED_ADDRESS, r.error(), r.message());
        assertEquals(Errors.MISALIGNED_ADDRESS, launch("ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1+8];", 1, buf.address(), 0).error(),
                "vectors need the alignment of the whole vector");
        assertEquals(Errors.MISALIGNED_ADDRESS, launch("atom.global.add.u64 %rd3, [%rd1+4], 1;", 1, buf.address(), 0).error());
        assertEquals(Errors.MISALIGNED_ADDRESS, launch("mov.u32 %r1, sh;\nst.shared.u32 [%r1+1], 0;", 1).error());
    }

    @Test
    void sharedAndLocalBounds() throws Exception {
        assertEquals(Errors.ILLEGAL_ADDRESS, launch("mov.u32 %r1, sh;\nst.shared.u32 [%r1+64], 0;", 1).error());
        assertTrue(launch("mov.u32 %r1, sh;\nst.shared.u32 [%r1+60], 0;", 1).ok());
        assertEquals(Errors.ILLEGAL_ADDRESS, launch("mov.u32 %r1, sh;\nsub.u32 %r1, %r1, 4;\nld.shared.u32 %r2, [%r1];", 1).error());
        LaunchResult r = launch("mov.u64 %rd3, 0;\ncvta.local.u64 %rd3, %rd3;\nld.u32 %r1, [%rd3+16];", 1);
        assertEquals(Errors.ILLEGAL_ADDRESS, r.error(), "no local memory declared: any local access is outside");
        assertTrue(r.message().contains("local"), r.message());
        assertEquals(Errors.ILLEGAL_ADDRESS, launch("ld.param.u64 %rd3, [p1+8];", 1, 0, 0).error(), "past the parameters");
    }

    @Test
    void trapAssertAndDeadlock() throws Exception {
        assertEquals(Errors.LAUNCH_FAILED, launch("setp.eq.u32 %p1, %r0, 3;\n@%p1 trap;", 32).error());
        LaunchResult r = launch("setp.eq.u32 %p1, %r0, 3;\n@%p1 bra SKIP;\nbar.sync 0, 64;\nSKIP:", 32);
        assertEquals(Errors.LAUNCH_FAILED, r.error(), "bar.sync for 64 threads in a CTA of 32 never completes");
        assertTrue(r.message().contains("deadlock"), r.message());
        assertTrue(launch("setp.lt.u32 %p1, %r0, 16;\n@%p1 exit;\nbar.sync 0;", 64).ok(), "exited threads do not count at bar.sync");
    }

    @Test
    void unsupportedAndInvalidPtxAreRefusedAtLoad() {
        PtxLoadException e = assertThrows(PtxLoadException.class, () -> run.load(PtxRun.HEADER + """
                .visible .entry k(.param .u64 t)
                {
                .reg .f32 %f<8>; .reg .b64 %rd<2>;
                ld.param.u64 %rd1, [t];
                tex.level.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}], %f7;
                ret;
                }
                """));
        assertEquals(Errors.NOT_SUPPORTED, e.error());
        // refused by the list of forms checked against an NVIDIA GPU (EmulatorForms) before the translator sees it
        assertTrue(e.log().startsWith("test.ptx:8:1: error: instruction 'tex.level.2d.v4.f32.f32' is not supported by the emulator"), e.log());
        e = assertThrows(PtxLoadException.class, () -> run.load(PtxRun.HEADER + ".visible .entry k()\n{\nadd.s32 %r1, %r2, 1;\nret;\n}\n"));
        assertEquals(Errors.INVALID_PTX, e.error());
        assertTrue(e.log().contains("test.ptx:6:"), e.log());
    }

    /** A recursion without end is a fault once it passes the thread's stack, not a Java StackOverflowError. */
    @Test
    void endlessRecursionOverflowsTheStack() throws PtxLoadException {
        EmulatorModule m = run.load(PtxRun.HEADER + """
                .func f(.param .b32 x)
                {
                .reg .b32 %r<2>;
                ld.param.b32 %r1, [x];
                { .param .b32 a; st.param.b32 [a], %r1; call f, (a); }
                ret;
                }
                .visible .entry k()
                {
                { .param .b32 a; st.param.b32 [a], 1; call f, (a); }
                ret;
                }
                """);
        LaunchResult r = run.launch(m.kernels().get("k"), new int[] {1, 1, 1}, new int[] {32, 1, 1}, 0);
        assertEquals(Errors.ILLEGAL_ADDRESS, r.error(), r.message());
        assertTrue(r.message().contains("stack overflow: the call of f at call depth "), r.message());
        assertTrue(r.message().contains("of the thread's 1024-byte stack"), r.message());
    }
}
