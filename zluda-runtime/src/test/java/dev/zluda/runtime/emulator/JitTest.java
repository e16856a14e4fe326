package dev.zluda.runtime.emulator;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Kernels compiled to bytecode ({@link JitCompiler}) against the interpreter, in one process: the same memory bit for
 * bit, the same thread-instruction counts, the same fault reports (kernel, CTA, thread, PTX line). The suites of the
 * package run whole in both modes as well (zluda-runtime/pom.xml runs them a second time with
 * {@code zluda.emulator=interp}); these tests compare the two modes directly, on the benchmark and sample kernels.
 */
class JitTest {
    /** Every workload of the benchmarks, once per mode on fresh data: every buffer the same afterwards. */
    @Test
    void benchmarkAndSampleKernelsGiveTheSameBitsInBothModes() throws Exception {
        List<String> names = new ArrayList<>(EmulatorWorkloads.NAMES);
        names.addAll(EmulatorWorkloads.VERSUS_C);
        List<List<byte[]>> memory = new ArrayList<>();
        List<List<Long>> counts = new ArrayList<>();
        for (boolean compile : new boolean[] {false, true}) {
            Emulator emu = new Emulator(1, compile);
            try (EmulatorWorkloads w = new EmulatorWorkloads()) {
                List<Long> c = new ArrayList<>();
                for (String name : names) {
                    EmulatorWorkloads.Workload work;
                    if (EmulatorWorkloads.VERSUS_C.contains(name)) {
                        EmulatorWorkloads.VersusC v = w.versusC(name);
                        v.reset().run();
                        work = v.work();
                    } else {
                        work = w.create(name);
                    }
                    c.add(work.launch(emu).threadInstructions());
                    if (work.check() != null) work.check().run();
                }
                memory.add(w.snapshot());
                counts.add(c);
                System.out.println((compile ? "jit   " : "interp") + " thread-instructions " + names + ": " + c);
            }
        }
        assertEquals(counts.get(0), counts.get(1), "thread-instruction counts differ between the modes");
        assertEquals(memory.get(0).size(), memory.get(1).size());
        for (int i = 0; i < memory.get(0).size(); i++) assertArrayEquals(memory.get(0).get(i), memory.get(1).get(i), "buffer " + i);
    }

    /**
     * What the compiler takes of the benchmark kernels (docs/benchmarks.md): lane by lane, the loop of the shuffle
     * reduction and the tile products of the SGEMM, nothing of SAXPY, whose loop holds a store and whose other pieces
     * are too short to pay ({@link JitAnalysis#worthCompiling}); in warp regions ({@link JitWarpEmitter}) the rest but
     * {@code exit}/{@code ret} and barriers: SAXPY's whole loop (11 instructions).
     */
    @Test
    void whatTheBenchmarkKernelsHaveCompiled() throws Exception {
        try (EmulatorWorkloads w = new EmulatorWorkloads()) {
            for (String name : EmulatorWorkloads.VERSUS_C) {
                Program p = w.versusC(name).work().kernel().program();
                JitCompiler.Result r = JitCompiler.compile(p);
                System.out.println(name + ": " + (r == null ? "nothing" : r.regions() + " regions, " + r.compiledOps() + " instructions lane by lane, "
                        + r.warpRegions() + " warp regions, " + r.warpOps() + " instructions") + " of " + p.code.length + " compiled");
                assertNotNull(r, name);
                if (JitCompiler.WARP_REGIONS) {
                    int others = 0;
                    for (Op op : p.code) if (op.kind != Op.NORMAL && op.kind != Op.BRA) others++;
                    assertEquals(p.code.length - others, r.compiledOps() + r.warpOps(), name + ": every instruction but exits and barriers compiled");
                }
                if (name.equals("saxpy")) {
                    assertEquals(0, r.regions(), name);
                } else {
                    // the hot code: sgemm's 16-step tile product, the reduction's grid-stride loop
                    assertTrue(name.equals("sgemm") ? r.compiledOps() * 2 > p.code.length : r.compiledOps() >= 7, name + ": " + r.compiledOps() + " of " + p.code.length);
                }
            }
        }
    }

    /** The plain C baselines (libemubench.so) compute the models' bits too, so the benchmark compares like with like. */
    @Test
    void plainCBaselinesComputeTheSameBits() throws Exception {
        assumeTrue(Files.exists(EmulatorVsC.library()), "libemubench.so is built by the module's make step: " + EmulatorVsC.library());
        try (EmulatorWorkloads w = new EmulatorWorkloads()) {
            for (String name : EmulatorWorkloads.VERSUS_C) {
                EmulatorWorkloads.VersusC v = w.versusC(name);
                v.reset().run();
                EmulatorVsC.plainC(v).run();
                v.work().check().run();
            }
        }
    }

    /** Without zluda.jit.strict the first launch runs interpreted while a background thread compiles; later ones run compiled. */
    @Test
    void theCompilerRunsInTheBackgroundFromTheFirstLaunch() throws Exception {
        String strict = System.clearProperty("zluda.jit.strict");
        try (EmulatorWorkloads w = new EmulatorWorkloads()) {
            EmulatorWorkloads.VersusC v = w.versusC("shflReduce");
            Program p = v.work().kernel().program();
            Emulator emu = new Emulator(1, true);
            v.reset().run();
            long first = v.work().launch(emu).threadInstructions();
            v.work().check().run();
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (p.compiledWhenReady() == null) {
                assertTrue(System.nanoTime() < deadline, "the background compiler did not finish in 60 s");
                Thread.sleep(10);
            }
            v.reset().run();
            assertEquals(first, v.work().launch(emu).threadInstructions());
            v.work().check().run();
        } finally {
            if (strict != null) System.setProperty("zluda.jit.strict", strict);
        }
    }

    private static final String FAULTING = PtxRun.HEADER + """
            .visible .entry walk(.param .u64 p0, .param .u64 p1)
            {
            .reg .pred %p<4>; .reg .b32 %r<12>; .reg .b64 %rd<8>;
            ld.param.u64 %rd1, [p0];
            ld.param.u64 %rd2, [p1];
            mov.u32 %r0, %tid.x;
            mov.u32 %r1, 0;
            mov.u32 %r2, 0;
            and.b32 %r3, %r0, 3;
            add.u32 %r3, %r3, 2;
            LOOP:
            mul.lo.u32 %r4, %r2, 64;
            add.u32 %r4, %r4, %r0;
            setp.eq.u32 %p1, %r0, %r9;
            @%p1 add.u32 %r4, %r4, 100000;
            mul.wide.u32 %rd3, %r4, 4;
            add.s64 %rd4, %rd1, %rd3;
            ld.global.u32 %r5, [%rd4];
            add.u32 %r1, %r1, %r5;
            add.u32 %r2, %r2, 1;
            setp.lt.u32 %p2, %r2, %r3;
            @%p2 bra LOOP;
            mul.wide.u32 %rd5, %r0, 4;
            add.s64 %rd6, %rd2, %rd5;
            st.global.u32 [%rd6], %r1;
            ret;
            }
            """;

    /** A kernel with lanes of different trip counts, one of which reads outside its buffer. */
    private static LaunchResult walk(boolean compile, int badThread, List<int[]> out) throws Exception {
        try (PtxRun run = new PtxRun(1, compile)) {
            String ptx = FAULTING.replace("%r9", Integer.toString(badThread));
            Kernel k = run.load(ptx).kernels().get("walk");
            MemorySegment in = run.buffer(4L * 64 * 6), res = run.buffer(4L * 64);
            for (int i = 0; i < 64 * 6; i++) in.setAtIndex(ValueLayout.JAVA_INT, i, i * 7 + 1);
            LaunchResult r = run.launch(k, new int[] {1, 1, 1}, new int[] {64, 1, 1}, 0, in.address(), res.address());
            out.add(res.toArray(ValueLayout.JAVA_INT));
            return r;
        }
    }

    @Test
    void aFaultInACompiledRegionIsReportedAsTheInterpreterReportsIt() throws Exception {
        List<int[]> outs = new ArrayList<>();
        LaunchResult ok0 = walk(false, 999, outs), ok1 = walk(true, 999, outs);
        assertTrue(ok0.ok() && ok1.ok(), ok0.message() + " / " + ok1.message());
        assertArrayEquals(outs.get(0), outs.get(1));
        assertEquals(ok0.threadInstructions(), ok1.threadInstructions());
        for (int bad : new int[] {0, 5, 37, 63}) {
            LaunchResult a = walk(false, bad, outs), b = walk(true, bad, outs);
            assertEquals(Errors.ILLEGAL_ADDRESS, a.error(), a.message());
            assertEquals(a.error(), b.error());
            // the buffers of the two runs are separate allocations: the faulting address differs, all else is the same
            assertEquals(a.message().replaceAll("0x[0-9a-f]+", "0x…"), b.message().replaceAll("0x[0-9a-f]+", "0x…"));
            assertTrue(b.message().contains("kernel walk") && b.message().contains("thread (" + bad + ",0,0)") && b.message().contains("ld.global.u32"), b.message());
        }
    }
}
