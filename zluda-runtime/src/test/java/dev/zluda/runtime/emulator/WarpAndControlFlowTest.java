package dev.zluda.runtime.emulator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Warps of 32 lanes in lockstep with per-lane control flow, warp-level instructions (shfl, vote,
 * match, redux), CTA barriers with shared memory, atomics, local memory, inlined calls, device
 * printf, and the same results with one or several host threads.
 */
class WarpAndControlFlowTest {
    @RegisterExtension
    static final PtxRun run = new PtxRun();

    /** Runs {@code body} with 32 threads; each lane stores %r10 at out[lane] (as a 32-bit value in an 8-byte slot). */
    static long[] warp(String body) throws Exception {
        String full = "mov.u32 %r0, %tid.x;\nmov.u32 %r10, 0;\n" + body
                + "\nmul.wide.u32 %rd1, %r0, 8;\nadd.s64 %rd1, %rd31, %rd1;\nst.global.b32 [%rd1], %r10;";
        long[] out = run.execShape(full, 32);
        return java.util.Arrays.copyOf(out, 32);
    }

    static long[] expect(java.util.function.IntToLongFunction f) {
        long[] e = new long[32];
        for (int i = 0; i < 32; i++) e[i] = f.applyAsLong(i) & 0xFFFF_FFFFL;
        return e;
    }

    @Test
    void shuffleModesWithClampAndSegments() throws Exception {
        // down by 1, clamp 31: lane 31 keeps its own value, p false there
        assertArrayEquals(expect(l -> l == 31 ? 31 * 10 + 1000 : (l + 1) * 10),
                warp("mul.lo.u32 %r1, %r0, 10;\nshfl.sync.down.b32 %r10|%p1, %r1, 1, 31, -1;\n@!%p1 add.u32 %r10, %r10, 1000;"));
        // up by 3, c = 0: lanes 0..2 keep their own value
        assertArrayEquals(expect(l -> l < 3 ? l : l - 3), warp("shfl.sync.up.b32 %r10, %r0, 3, 0, -1;"));
        // butterfly xor 5
        assertArrayEquals(expect(l -> l ^ 5), warp("shfl.sync.bfly.b32 %r10, %r0, 5, 31, -1;"));
        // idx with 8-lane segments (c = ((32 - 8) << 8) | 31): lane 2 of each segment
        assertArrayEquals(expect(l -> (l & ~7) | 2), warp("shfl.sync.idx.b32 %r10, %r0, 2, 0x181F, -1;"));
        // down within 8-lane segments: the last lanes of each segment keep their value
        assertArrayEquals(expect(l -> (l & 7) + 4 > 7 ? l : l + 4), warp("shfl.sync.down.b32 %r10, %r0, 4, 0x1807, -1;"));
        // up within 16-lane segments (c = (16 << 8) | 0)
        assertArrayEquals(expect(l -> (l & 15) < 1 ? l : l - 1), warp("shfl.sync.up.b32 %r10, %r0, 1, 0x1000, -1;"));
    }

    @Test
    void divergentBranchesReconverge() throws Exception {
        // odd lanes take one path, even lanes another; after reconvergence all 32 lanes take part in a shuffle
        String body = """
                and.b32 %r1, %r0, 1;
                setp.eq.u32 %p1, %r1, 0;
                @%p1 bra EVEN;
                mov.u32 %r2, 100;
                bra JOIN;
                EVEN:
                mov.u32 %r2, 200;
                JOIN:
                add.u32 %r2, %r2, %r0;
                shfl.sync.bfly.b32 %r10, %r2, 1, 31, -1;
                """;
        assertArrayEquals(expect(l -> ((l ^ 1) % 2 == 0 ? 200 : 100) + (l ^ 1)), warp(body));
        // a loop with a different trip count per lane: sum 0..lane
        String loop = """
                mov.u32 %r1, 0;
                mov.u32 %r2, 0;
                LOOP:
                setp.gt.u32 %p1, %r1, %r0;
                @%p1 bra DONE;
                add.u32 %r2, %r2, %r1;
                add.u32 %r1, %r1, 1;
                bra LOOP;
                DONE:
                activemask.b32 %r3;
                setp.eq.u32 %p2, %r3, -1;
                selp.u32 %r4, 1000000, 0, %p2;
                add.u32 %r10, %r2, %r4;
                """;
        assertArrayEquals(expect(l -> l * (l + 1) / 2 + 1_000_000), warp(loop), "every lane is active again after the loop");
        // activemask inside a divergent branch: only the lanes that took it
        assertArrayEquals(expect(l -> l < 5 ? 0x1F : 0), warp("setp.lt.u32 %p1, %r0, 5;\n@%p1 activemask.b32 %r10;"));
    }

    @Test
    void voteMatchReduxElect() throws Exception {
        assertArrayEquals(expect(l -> 0xAAAA_AAAAL), warp("and.b32 %r1, %r0, 1;\nsetp.ne.u32 %p1, %r1, 0;\nvote.sync.ballot.b32 %r10, %p1, -1;"));
        assertArrayEquals(expect(l -> 0x5555_5555L), warp("and.b32 %r1, %r0, 1;\nsetp.ne.u32 %p1, %r1, 0;\nvote.sync.ballot.b32 %r10, !%p1, -1;"));
        assertArrayEquals(expect(l -> 1), warp("setp.lt.u32 %p1, %r0, 32;\nvote.sync.all.pred %p2, %p1, -1;\nselp.u32 %r10, 1, 0, %p2;"));
        assertArrayEquals(expect(l -> 0), warp("setp.lt.u32 %p1, %r0, 31;\nvote.sync.all.pred %p2, %p1, -1;\nselp.u32 %r10, 1, 0, %p2;"));
        assertArrayEquals(expect(l -> 1), warp("setp.eq.u32 %p1, %r0, 7;\nvote.sync.any.pred %p2, %p1, -1;\nselp.u32 %r10, 1, 0, %p2;"));
        assertArrayEquals(expect(l -> 0), warp("setp.eq.u32 %p1, %r0, 7;\nvote.sync.uni.pred %p2, %p1, -1;\nselp.u32 %r10, 1, 0, %p2;"));
        assertArrayEquals(expect(l -> l % 2 == 0 ? 0x5555_5555L : 0xAAAA_AAAAL), warp("and.b32 %r1, %r0, 1;\nmatch.any.sync.b32 %r10, %r1, -1;"));
        assertArrayEquals(expect(l -> 31 * 32 / 2), warp("redux.sync.add.u32 %r10, %r0, -1;"));
        assertArrayEquals(expect(l -> 31), warp("redux.sync.max.s32 %r10, %r0, -1;"));
        assertArrayEquals(expect(l -> l == 0 ? 1 : 0), warp("elect.sync %r1|%p1, -1;\nselp.u32 %r10, 1, 0, %p1;"));
    }

    @Test
    void barriersOrderSharedMemoryAcrossWarps() throws Exception {
        // 128 threads (4 warps): write shared[t] = t*t, bar.sync, read shared[127 - t]
        String ptx = PtxRun.HEADER + """
                .visible .entry k(.param .u64 out)
                {
                .reg .b32 %r<8>; .reg .b64 %rd<8>;
                .shared .align 4 .b8 buf[512];
                ld.param.u64 %rd1, [out];
                mov.u32 %r0, %tid.x;
                mul.lo.u32 %r1, %r0, %r0;
                mov.u32 %r2, buf;
                shl.b32 %r3, %r0, 2;
                add.u32 %r4, %r2, %r3;
                st.shared.u32 [%r4], %r1;
                bar.sync 0;
                sub.u32 %r5, 127, %r0;
                shl.b32 %r5, %r5, 2;
                add.u32 %r5, %r2, %r5;
                ld.shared.u32 %r6, [%r5];
                mul.wide.u32 %rd2, %r0, 4;
                add.s64 %rd2, %rd1, %rd2;
                st.global.u32 [%rd2], %r6;
                ret;
                }
                """;
        Kernel k = run.load(ptx).kernels().get("k");
        assertEquals(512, k.staticShared());
        MemorySegment out = run.buffer(4 * 128 * 3);
        for (int g = 0; g < 3; g++) {
            LaunchResult r = run.launch(k, new int[] {1, 1, 1}, new int[] {128, 1, 1}, 0, out.address() + 512L * g);
            assertTrue(r.ok(), r.message());
        }
        for (int t = 0; t < 128; t++) assertEquals((127 - t) * (127 - t), out.getAtIndex(ValueLayout.JAVA_INT, t));
    }

    @Test
    void barrierReductionsAndExitedThreads() throws Exception {
        // bar.red.popc counts predicates over the CTA; threads that exited early do not hold the barrier up
        String ptx = PtxRun.HEADER + """
                .visible .entry k(.param .u64 out)
                {
                .reg .pred %p<4>; .reg .b32 %r<8>; .reg .b64 %rd<8>;
                ld.param.u64 %rd1, [out];
                mov.u32 %r0, %tid.x;
                setp.ge.u32 %p1, %r0, 80;
                @%p1 exit;
                and.b32 %r1, %r0, 3;
                setp.eq.u32 %p2, %r1, 0;
                bar.red.popc.u32 %r2, 0, %p2;
                bar.red.or.pred %p3, 0, %p2;
                selp.u32 %r3, 1000, 0, %p3;
                add.u32 %r2, %r2, %r3;
                mul.wide.u32 %rd2, %r0, 4;
                add.s64 %rd2, %rd1, %rd2;
                st.global.u32 [%rd2], %r2;
                ret;
                }
                """;
        Kernel k = run.load(ptx).kernels().get("k");
        MemorySegment out = run.buffer(4 * 96);
        LaunchResult r = run.launch(k, new int[] {1, 1, 1}, new int[] {96, 1, 1}, 0, out.address());
        assertTrue(r.ok(), r.message());
        for (int t = 0; t < 80; t++) assertEquals(1020, out.getAtIndex(ValueLayout.JAVA_INT, t), "thread " + t);
        assertEquals(0, out.getAtIndex(ValueLayout.JAVA_INT, 85));
    }

    @Test
    void atomicsFromManyThreadsAndCtas() throws Exception {
        String ptx = PtxRun.HEADER + """
                .visible .entry k(.param .u64 out)
                {
                .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .f32 %f<4>;
                .shared .align 4 .b32 counter;
                ld.param.u64 %rd1, [out];
                mov.u32 %r0, %tid.x;
                setp.ne.u32 %p1, %r0, 0;
                @!%p1 st.shared.u32 [counter], 0;
                bar.sync 0;
                atom.shared.add.u32 %r1, [counter], 1;
                atom.global.add.u32 %r2, [%rd1], 1;
                atom.global.max.s32 %r3, [%rd1+4], %r0;
                atom.global.min.u32 %r3, [%rd1+8], %r0;
                atom.global.inc.u32 %r4, [%rd1+12], 9;
                atom.global.dec.u32 %r4, [%rd1+16], 9;
                mov.f32 %f1, 0f3F000000;
                atom.global.add.f32 %f2, [%rd1+20], %f1;
                atom.global.add.u64 %rd2, [%rd1+24], 3;
                atom.global.or.b32 %r5, [%rd1+32], 1;
                atom.global.exch.b32 %r5, [%rd1+36], 7;
                red.global.add.u32 [%rd1+40], 2;
                atom.global.cas.b32 %r6, [%rd1+44], 0, 5;
                bar.sync 0;
                @%p1 bra DONE;
                ld.shared.u32 %r7, [counter];
                atom.global.add.u32 %r8, [%rd1+48], %r7;
                DONE:
                ret;
                }
                """;
        Kernel k = run.load(ptx).kernels().get("k");
        MemorySegment out = run.buffer(64);
        out.set(ValueLayout.JAVA_INT, 8, -1);
        LaunchResult r = new PtxRun(2).emulator.launch(k, new int[] {10, 1, 1}, new int[] {64, 1, 1}, 0, params(out.address()), run.map, 4);
        assertTrue(r.ok(), r.message());
        assertEquals(640, out.get(ValueLayout.JAVA_INT, 0));
        assertEquals(63, out.get(ValueLayout.JAVA_INT, 4));
        assertEquals(0, out.get(ValueLayout.JAVA_INT, 8));
        assertEquals(640 % 10, out.get(ValueLayout.JAVA_INT, 12), "inc wraps to 0 at the bound: (r >= 9) ? 0 : r + 1");
        assertEquals(9 - (640 - 1) % 10, out.get(ValueLayout.JAVA_INT, 16), "dec: (r == 0 || r > 9) ? 9 : r - 1");
        assertEquals(320f, out.get(ValueLayout.JAVA_FLOAT, 20));
        assertEquals(1920L, out.get(ValueLayout.JAVA_LONG, 24));
        assertEquals(1, out.get(ValueLayout.JAVA_INT, 32));
        assertEquals(7, out.get(ValueLayout.JAVA_INT, 36));
        assertEquals(1280, out.get(ValueLayout.JAVA_INT, 40));
        assertEquals(5, out.get(ValueLayout.JAVA_INT, 44), "only the first cas succeeds");
        assertEquals(640, out.get(ValueLayout.JAVA_INT, 48), "each CTA counted its 64 threads in shared memory");
    }

    private static MemorySegment params(long... values) {
        MemorySegment p = run.arena.allocate(8L * values.length, 8);
        for (int i = 0; i < values.length; i++) p.setAtIndex(ValueLayout.JAVA_LONG, i, values[i]);
        return p;
    }

    @Test
    void dynamicSharedLocalMemoryAndCalls() throws Exception {
        String ptx = PtxRun.HEADER + """
                .extern .shared .align 16 .b8 dyn[];
                .func (.param .b32 ret) square_plus(.param .b32 x, .param .b32 y)
                {
                .reg .b32 %r<4>;
                ld.param.b32 %r1, [x];
                ld.param.b32 %r2, [y];
                mad.lo.s32 %r3, %r1, %r1, %r2;
                st.param.b32 [ret], %r3;
                ret;
                }
                .visible .entry k(.param .u64 out)
                {
                .local .align 4 .b8 depot[64];
                .reg .b32 %r<16>; .reg .b64 %rd<16>;
                ld.param.u64 %rd1, [out];
                mov.u32 %r0, %tid.x;
                // local array indexed by the thread
                mov.u64 %rd2, depot;
                cvta.local.u64 %rd3, %rd2;
                and.b32 %r1, %r0, 15;
                mul.wide.u32 %rd4, %r1, 4;
                add.s64 %rd5, %rd3, %rd4;
                st.u32 [%rd5], %r0;
                ld.u32 %r2, [%rd5];
                // dynamic shared memory, generic address
                mov.u32 %r3, dyn;
                shl.b32 %r4, %r0, 2;
                add.u32 %r5, %r3, %r4;
                st.shared.u32 [%r5], %r2;
                bar.sync 0;
                ld.shared.u32 %r6, [%r5];
                {
                .param .b32 a0; .param .b32 a1; .param .b32 r0;
                st.param.b32 [a0], %r6;
                st.param.b32 [a1], 7;
                call.uni (r0), square_plus, (a0, a1);
                ld.param.b32 %r7, [r0];
                }
                mul.wide.u32 %rd6, %r0, 4;
                add.s64 %rd6, %rd1, %rd6;
                st.global.u32 [%rd6], %r7;
                ret;
                }
                """;
        Kernel k = run.load(ptx).kernels().get("k");
        MemorySegment out = run.buffer(4 * 64);
        LaunchResult r = run.launch(k, new int[] {1, 1, 1}, new int[] {64, 1, 1}, 256, out.address());
        assertTrue(r.ok(), r.message());
        for (int t = 0; t < 64; t++) assertEquals(t * t + 7, out.getAtIndex(ValueLayout.JAVA_INT, t));
    }

    /**
     * A local access through a 64-bit register that points below the depot plus a positive offset: the address
     * is the sum (modulo 2^32 in the 32-bit local window), inside the depot. nvcc writes this for llama.cpp's
     * ssm_conv_f32 (a ring buffer indexed with {@code i - 3 * (i / 3)}: {@code %rd93 = %SPL - 12},
     * {@code ld.local.f32 [%rd93+12]}); the emulator used to add the offset to the register's low 32 bits
     * without wrapping and faulted at 0x100000000. The loop makes the bytecode compiler take it too.
     */
    @Test
    void localAddressBelowTheDepotPlusOffset() throws Exception {
        String ptx = PtxRun.HEADER + """
                .visible .entry k(.param .u64 out)
                {
                .local .align 4 .b8 depot[12];
                .reg .pred %p<2>; .reg .b32 %r<8>; .reg .b64 %rd<16>;
                ld.param.u64 %rd1, [out];
                mov.u32 %r0, %tid.x;
                mov.u64 %rd2, depot;
                st.local.u32 [%rd2], %r0;
                add.u32 %r1, %r0, 100;
                st.local.u32 [%rd2+4], %r1;
                add.u32 %r2, %r0, 200;
                st.local.u32 [%rd2+8], %r2;
                mov.u32 %r3, 0;
                mov.u32 %r4, 0;
                LOOP:
                add.s64 %rd3, %rd2, -12;
                ld.local.u32 %r5, [%rd3+12];
                add.s64 %rd4, %rd2, -8;
                ld.local.u32 %r6, [%rd4+12];
                add.u32 %r4, %r4, %r5;
                add.u32 %r4, %r4, %r6;
                add.u32 %r3, %r3, 1;
                setp.lt.u32 %p1, %r3, 40;
                @%p1 bra LOOP;
                mul.wide.u32 %rd5, %r0, 4;
                add.s64 %rd5, %rd1, %rd5;
                st.global.u32 [%rd5], %r4;
                ret;
                }
                """;
        Kernel k = run.load(ptx).kernels().get("k");
        MemorySegment out = run.buffer(4 * 32);
        for (int launch = 0; launch < 3; launch++) {
            LaunchResult r = run.launch(k, new int[] {1, 1, 1}, new int[] {32, 1, 1}, 0, out.address());
            assertTrue(r.ok(), r.message());
            for (int t = 0; t < 32; t++) assertEquals(40 * (t + t + 100), out.getAtIndex(ValueLayout.JAVA_INT, t), "thread " + t);
        }
    }

    @Test
    void devicePrintf() throws Exception {
        String ptx = PtxRun.HEADER + """
                .extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
                .global .align 1 .b8 $str[17] = {116, 105, 100, 32, 37, 100, 32, 120, 32, 37, 46, 50, 102, 32, 37, 115, 0};
                .global .align 1 .b8 $str2[3] = {111, 107, 0};
                .visible .entry k()
                {
                .local .align 8 .b8 depot[24];
                .reg .b32 %r<4>; .reg .b64 %rd<8>; .reg .f64 %fd<2>;
                mov.u64 %rd1, depot;
                cvta.local.u64 %rd2, %rd1;
                mov.u32 %r0, %tid.x;
                st.local.u32 [%rd1], %r0;
                mov.f64 %fd1, 0d3FF8000000000000;
                st.local.f64 [%rd1+8], %fd1;
                mov.u64 %rd3, $str2;
                cvta.global.u64 %rd3, %rd3;
                st.local.u64 [%rd1+16], %rd3;
                mov.u64 %rd4, $str;
                cvta.global.u64 %rd5, %rd4;
                {
                .param .b64 p0; .param .b64 p1; .param .b32 rv;
                st.param.b64 [p0], %rd5;
                st.param.b64 [p1], %rd2;
                call.uni (rv), vprintf, (p0, p1);
                }
                ret;
                }
                """;
        Kernel k = run.load(ptx).kernels().get("k");
        DevicePrintf.drain();
        LaunchResult r = run.launch(k, new int[] {1, 1, 1}, new int[] {2, 1, 1}, 0);
        assertTrue(r.ok(), r.message());
        // kept until the driver's next flush point, formatted by the C library's snprintf
        String printed = new String(DevicePrintf.drain(), StandardCharsets.UTF_8);
        assertEquals("tid 0 x 1.50 oktid 1 x 1.50 ok", printed);
    }

    /**
     * A .global variable declared inside a kernel has static storage like one at module scope (PTX ISA 9.0, 5.1.4):
     * one copy for all threads and launches, initialised once at load; the H200's result of the same use is the
     * sweep's probe "a function-scope .global variable". A second variable of that name in the module is refused.
     */
    @Test
    void functionScopeGlobalVariables() throws Exception {
        String ptx = PtxRun.HEADER + """
                .visible .entry k(.param .u64 pout)
                {
                .global .align 4 .u32 counter = 5;
                .global .align 4 .b32 slot[32];
                .reg .b32 %r<4>; .reg .b64 %rd<6>;
                ld.param.u64 %rd1, [pout];
                mov.u32 %r0, %tid.x;
                mul.wide.u32 %rd2, %r0, 4;
                mov.u64 %rd3, slot;
                add.s64 %rd3, %rd3, %rd2;
                ld.global.u32 %r1, [%rd3];
                add.u32 %r1, %r1, %r0;
                st.global.u32 [%rd3], %r1;
                atom.global.add.u32 %r2, [counter], 1;
                add.s64 %rd4, %rd1, %rd2;
                st.global.u32 [%rd4], %r1;
                bar.sync 0;
                ld.global.u32 %r3, [counter];
                st.global.u32 [%rd1+128], %r3;
                ret;
                }
                """;
        EmulatorModule m = run.load(ptx);
        Kernel k = m.kernels().get("k");
        MemorySegment out = run.buffer(132);
        for (int launch = 1; launch <= 2; launch++) {
            LaunchResult r = run.launch(k, new int[] {1, 1, 1}, new int[] {32, 1, 1}, 0, out.address());
            assertTrue(r.ok(), r.message());
            for (int t = 0; t < 32; t++) assertEquals(launch * t, out.getAtIndex(ValueLayout.JAVA_INT, t), "slot[" + t + "] after launch " + launch);
            assertEquals(5 + 32 * launch, out.getAtIndex(ValueLayout.JAVA_INT, 32), "counter after launch " + launch);
        }
        assertTrue(m.variables().containsKey("counter") && m.variables().containsKey("slot"), m.variables().toString());
        PtxLoadException e = org.junit.jupiter.api.Assertions.assertThrows(PtxLoadException.class,
                () -> run.load(ptx.replace(".visible .entry k", ".global .u32 counter;\n.visible .entry k")));
        assertEquals(Errors.NOT_SUPPORTED, e.error());
        assertTrue(e.log().contains("function-scope .global variable 'counter' has the name of another"), e.log());
    }

    @Test
    void sameResultsWithOneAndSeveralHostThreads() throws Exception {
        String ptx = PtxRun.HEADER + """
                .visible .entry k(.param .u64 out, .param .u32 n)
                {
                .reg .pred %p<2>; .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .f32 %f<4>;
                ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [n];
                mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x;
                mad.lo.s32 %r5, %r2, %r3, %r4;
                setp.ge.s32 %p1, %r5, %r1;
                @%p1 bra END;
                cvt.rn.f32.s32 %f1, %r5;
                sqrt.rn.f32 %f2, %f1;
                mul.wide.s32 %rd2, %r5, 4;
                add.s64 %rd2, %rd1, %rd2;
                st.global.f32 [%rd2], %f2;
                END:
                ret;
                }
                """;
        Kernel k = run.load(ptx).kernels().get("k");
        int n = 10_000;
        MemorySegment a = run.buffer(4L * n), b = run.buffer(4L * n);
        try (PtxRun four = new PtxRun(4)) {
            assertTrue(run.launch(k, new int[] {(n + 127) / 128, 1, 1}, new int[] {128, 1, 1}, 0, a.address(), n).ok());
            assertTrue(four.emulator.launch(k, new int[] {(n + 127) / 128, 1, 1}, new int[] {128, 1, 1}, 0, params2(b.address(), n), run.map, 4).ok());
        }
        for (int i = 0; i < n; i++) {
            assertEquals((float) Math.sqrt(i), a.getAtIndex(ValueLayout.JAVA_FLOAT, i));
            assertEquals(a.getAtIndex(ValueLayout.JAVA_INT, i), b.getAtIndex(ValueLayout.JAVA_INT, i));
        }
    }

    private static MemorySegment params2(long p, int n) {
        MemorySegment s = run.arena.allocate(16, 8);
        s.set(ValueLayout.JAVA_LONG, 0, p);
        s.set(ValueLayout.JAVA_INT, 8, n);
        return s;
    }

    @Test
    void multiDimensionalIds() throws Exception {
        // %tid/%ntid/%ctaid/%nctaid in 3 dimensions; out[linear thread id] = packed ids
        String ptx = PtxRun.HEADER + """
                .visible .entry k(.param .u64 out)
                {
                .reg .b32 %r<20>; .reg .b64 %rd<4>;
                ld.param.u64 %rd1, [out];
                mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y; mov.u32 %r3, %tid.z;
                mov.u32 %r4, %ctaid.x; mov.u32 %r5, %ctaid.y; mov.u32 %r6, %ctaid.z;
                mov.u32 %r7, %ntid.x; mov.u32 %r8, %ntid.y; mov.u32 %r9, %nctaid.x; mov.u32 %r10, %nctaid.y;
                mad.lo.u32 %r11, %r6, %r10, %r5;
                mad.lo.u32 %r11, %r11, %r9, %r4;
                mov.u32 %r12, %ntid.z;
                mul.lo.u32 %r13, %r7, %r8;
                mul.lo.u32 %r13, %r13, %r12;
                mad.lo.u32 %r14, %r3, %r8, %r2;
                mad.lo.u32 %r14, %r14, %r7, %r1;
                mad.lo.u32 %r15, %r11, %r13, %r14;
                shl.b32 %r16, %r4, 24; shl.b32 %r17, %r5, 16; or.b32 %r16, %r16, %r17; shl.b32 %r17, %r6, 12; or.b32 %r16, %r16, %r17;
                shl.b32 %r17, %r3, 8; or.b32 %r16, %r16, %r17; shl.b32 %r17, %r2, 4; or.b32 %r16, %r16, %r17; or.b32 %r16, %r16, %r1;
                mul.wide.u32 %rd2, %r15, 4;
                add.s64 %rd2, %rd1, %rd2;
                st.global.u32 [%rd2], %r16;
                ret;
                }
                """;
        Kernel k = run.load(ptx).kernels().get("k");
        int[] g = {3, 2, 2}, b = {5, 3, 2};
        MemorySegment out = run.buffer(4L * 12 * 30);
        assertTrue(run.launch(k, g, b, 0, out.address()).ok());
        int i = 0;
        for (int cz = 0; cz < 2; cz++) for (int cy = 0; cy < 2; cy++) for (int cx = 0; cx < 3; cx++)
            for (int tz = 0; tz < 2; tz++) for (int ty = 0; ty < 3; ty++) for (int tx = 0; tx < 5; tx++) {
                int want = cx << 24 | cy << 16 | cz << 12 | tz << 8 | ty << 4 | tx;
                assertEquals(want, out.getAtIndex(ValueLayout.JAVA_INT, i++));
            }
    }
}
