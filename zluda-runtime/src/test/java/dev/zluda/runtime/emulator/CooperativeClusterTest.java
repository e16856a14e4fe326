package dev.zluda.runtime.emulator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Cooperative launches (a grid-wide barrier as cooperative_groups' {@code grid_group::sync} compiles it: an atomic
 * on the driver's grid workspace and a spin on it) and thread-block clusters (the cluster special registers,
 * {@code barrier.cluster}, distributed shared memory through {@code mapa} and generic accesses and atomics), on
 * kernels nvcc 13.0 compiled (src/test/resources/coop/coop_kernels.cu; the expected values follow from the CUDA
 * source and the PTX ISA, computed here on the host). Each runs with one and with several host threads, and its
 * outputs must also equal those an NVIDIA H200 gave for the same launches (src/test/resources/coop/h200/outputs.txt,
 * recorded by src/test/device/coop-h200.sh; README.md there): this suite is what admits barrier.cluster and mapa to
 * the emulator's instruction forms (SweepTest.emulatorForms).
 */
class CooperativeClusterTest {
    static String kernels() throws IOException {
        try (InputStream in = CooperativeClusterTest.class.getResourceAsStream("/coop/coop_kernels.ptx")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** The H200's outputs of the launch {@code name} (src/test/resources/coop/h200/outputs.txt: "name: v0 v1 ..."). */
    static int[] h200(String name) throws IOException {
        try (InputStream in = CooperativeClusterTest.class.getResourceAsStream("/coop/h200/outputs.txt")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.startsWith(name + ":")) continue;
                String rest = line.substring(name.length() + 1).trim();
                return rest.isEmpty() ? new int[0] : java.util.Arrays.stream(rest.split(" ")).mapToInt(Integer::parseInt).toArray();
            }
        }
        throw new IllegalStateException("no H200 outputs of " + name);
    }

    /** Asserts that {@code n} ints at {@code seg} are the H200's outputs of {@code name}. */
    static void assertH200(String name, MemorySegment seg, int n, String how) throws IOException {
        int[] want = h200(name);
        assertEquals(n, want.length, name + ": recorded length");
        for (int i = 0; i < n; i++) assertEquals(want[i], seg.getAtIndex(ValueLayout.JAVA_INT, i), name + "[" + i + "] as the H200 computed it, " + how);
    }

    private static MemorySegment params(PtxRun run, long... words) {
        MemorySegment p = run.arena.allocate(8L * Math.max(1, words.length), 8);
        for (int i = 0; i < words.length; i++) p.setAtIndex(ValueLayout.JAVA_LONG, i, words[i]);
        return p;
    }

    /** Launches kernel k of {@code ptx} as one cluster of two CTAs of 32 threads, with an 8-byte buffer as its one parameter. */
    private static LaunchResult launchOneClusterOfTwo(PtxRun run, String ptx) throws Exception {
        Kernel k = run.load(ptx).kernels().get("k");
        MemorySegment out = run.buffer(8);
        return run.emulator.launch(k, new int[] {2, 1, 1}, new int[] {32, 1, 1}, 0, params(run, out.address()), run.map, 4,
                Emulator.DEFAULT_STACK_BYTES, new Emulator.Grouping(false, new int[] {2, 1, 1}, true));
    }

    /** What gridRounds computes, on the host. */
    static int[] gridRoundsExpected(int n, int rounds) {
        int[] v = new int[n];
        for (int t = 0; t < n; t++) v[t] = t;
        for (int r = 0; r < rounds; r++) {
            int[] next = new int[n];
            for (int t = 0; t < n; t++) next[t] = v[(t + 1 + r * 7) % n] + 1;
            v = next;
        }
        return v;
    }

    @ParameterizedTest(name = "{0} host threads")
    @ValueSource(ints = {1, 3})
    void gridSyncInACooperativeLaunch(int threads) throws Exception {
        try (PtxRun run = new PtxRun(threads)) {
            Kernel k = run.load(kernels()).kernels().get("gridRounds");
            int blocks = 6, block = 96, n = blocks * block - 5, rounds = 5;
            MemorySegment cur = run.buffer(4L * n), out = run.buffer(4L * (n + 1));
            // n and rounds are ints: pack them into one 8-byte word after the two pointers
            MemorySegment p = params(run, cur.address(), out.address(), (n & 0xFFFF_FFFFL) | ((long) rounds << 32));
            LaunchResult r = run.emulator.launch(k, new int[] {blocks, 1, 1}, new int[] {block, 1, 1}, 0, p, run.map, 4,
                    Emulator.DEFAULT_STACK_BYTES, new Emulator.Grouping(true, new int[] {1, 1, 1}, false));
            assertTrue(r.ok(), r.message());
            int[] want = gridRoundsExpected(n, rounds);
            for (int t = 0; t < n; t++) assertEquals(want[t], out.getAtIndex(ValueLayout.JAVA_INT, t), "thread " + t);
            assertEquals(blocks, out.getAtIndex(ValueLayout.JAVA_INT, n), "grid.is_valid() and num_blocks()");
            assertH200("gridRounds", out, n + 1, threads + " host threads");
        }
    }

    @Test
    void gridSyncWithoutAGridWorkspaceTraps() throws Exception {
        // cooperative_groups traps when the grid workspace (%envreg1:%envreg2) is null: what a plain launch gets here
        // (the driver gives the workspace, grouping the launch as a cooperative one, when the grid fits the device)
        try (PtxRun run = new PtxRun(2)) {
            Kernel k = run.load(kernels()).kernels().get("gridRounds");
            MemorySegment cur = run.buffer(4L * 64), out = run.buffer(4L * 65);
            LaunchResult r = run.emulator.launch(k, new int[] {2, 1, 1}, new int[] {32, 1, 1}, 0,
                    params(run, cur.address(), out.address(), 64 | (1L << 32)), run.map, 4);
            assertFalse(r.ok());
            assertEquals(Errors.LAUNCH_FAILED, r.error());
            assertTrue(r.message().contains("trap"), r.message());
        }
    }

    @ParameterizedTest(name = "{0} host threads")
    @ValueSource(ints = {1, 2})
    void clusterSpecialRegisters(int threads) throws Exception {
        try (PtxRun run = new PtxRun(threads)) {
            Kernel k = run.load(kernels()).kernels().get("clusterRegisters");
            int gx = 4, gy = 6, cx = 2, cy = 3;
            MemorySegment out = run.buffer(4L * 11 * gx * gy);
            LaunchResult r = run.emulator.launch(k, new int[] {gx, gy, 1}, new int[] {32, 1, 1}, 0, params(run, out.address()), run.map, 4,
                    Emulator.DEFAULT_STACK_BYTES, new Emulator.Grouping(false, new int[] {cx, cy, 1}, true));
            assertTrue(r.ok(), r.message());
            for (int y = 0; y < gy; y++) {
                for (int x = 0; x < gx; x++) {
                    int cta = x + gx * y;
                    int[] want = {x / cx, y / cy, gx / cx, gy / cy, x % cx, y % cy, cx, cy, x % cx + cx * (y % cy), cx * cy, 1};
                    for (int i = 0; i < 11; i++) {
                        assertEquals(want[i], out.getAtIndex(ValueLayout.JAVA_INT, cta * 11L + i), "CTA (" + x + "," + y + ") register " + i);
                    }
                }
            }
            assertH200("clusterRegisters", out, 11 * gx * gy, threads + " host threads");
            // without clusters every CTA is a cluster of one, and the cluster is implicit
            LaunchResult plain = run.emulator.launch(k, new int[] {gx, gy, 1}, new int[] {32, 1, 1}, 0, params(run, out.address()), run.map, 4);
            assertTrue(plain.ok(), plain.message());
            int[] want = {3, 5, gx, gy, 0, 0, 1, 1, 0, 1, 0};
            for (int i = 0; i < 11; i++) assertEquals(want[i], out.getAtIndex(ValueLayout.JAVA_INT, (3 + gx * 5) * 11L + i), "register " + i);
            assertH200("clusterRegistersPlain", out, 11 * gx * gy, threads + " host threads");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"clusterExchange", "clusterFixed"})
    void distributedSharedMemoryAndTheClusterBarrier(String kernel) throws Exception {
        for (int threads : new int[] {1, 2}) {
            try (PtxRun run = new PtxRun(threads)) {
                Kernel k = run.load(kernels()).kernels().get(kernel);
                int size = kernel.equals("clusterFixed") ? 2 : 4, clusters = 3, block = 128;
                MemorySegment out = run.buffer(4L * size * clusters * block), counts = run.buffer(4L * clusters);
                // clusterFixed's shape comes from its .reqnctapercluster; the driver passes it as the grouping
                LaunchResult r = run.emulator.launch(k, new int[] {size * clusters, 1, 1}, new int[] {block, 1, 1}, 0,
                        params(run, out.address(), counts.address()), run.map, 4, Emulator.DEFAULT_STACK_BYTES,
                        new Emulator.Grouping(false, new int[] {size, 1, 1}, true));
                assertTrue(r.ok(), r.message());
                for (int b = 0; b < size * clusters; b++) {
                    int peer = (b % size + 1) % size;
                    for (int t = 0; t < block; t++) {
                        assertEquals(peer * 1000 + (t + 1) % block, out.getAtIndex(ValueLayout.JAVA_INT, (long) b * block + t),
                                kernel + ", CTA " + b + " thread " + t + ", " + threads + " host threads");
                    }
                }
                for (int c = 0; c < clusters; c++) {
                    assertEquals(size * block, counts.getAtIndex(ValueLayout.JAVA_INT, c), "atomics into rank 0's shared memory, cluster " + c);
                }
                assertH200(kernel, out, size * clusters * block, threads + " host threads");
                assertH200(kernel + "Counts", counts, clusters, threads + " host threads");
            }
        }
    }

    @Test
    void clusterAccessesOutsideTheClusterFault() throws Exception {
        String ptx = PtxRun.HEADER + """
                .visible .entry k(.param .u64 out)
                {
                .reg .b32 %r<4>;
                .reg .b64 %rd<4>;
                .shared .align 4 .u32 s;
                mov.u32 %r1, s;
                cvt.u64.u32 %rd1, %r1;
                cvta.shared.u64 %rd2, %rd1;
                mov.u32 %r2, 2;
                mapa.u64 %rd3, %rd2, %r2;
                ret;
                }
                """;
        try (PtxRun run = new PtxRun()) {
            LaunchResult r = launchOneClusterOfTwo(run, ptx);
            assertEquals(Errors.ILLEGAL_ADDRESS, r.error(), r.message());
            assertTrue(r.message().contains("mapa to CTA rank 2, outside the cluster of 2 CTAs"), r.message());
        }
    }

    @Test
    void aClusterBarrierThatCannotCompleteIsADeadlock() throws Exception {
        // rank 1 exits early without arriving; rank 0's threads wait, but an exited thread does not count, so the
        // phase completes: no deadlock. Then only rank 0 waits again without arriving first: undefined, reported.
        String ptx = PtxRun.HEADER + """
                .visible .entry k(.param .u64 out)
                {
                .reg .pred %p<2>;
                .reg .b32 %r<4>;
                mov.u32 %r1, %cluster_ctarank;
                setp.ne.u32 %p1, %r1, 0;
                @%p1 exit;
                barrier.cluster.arrive;
                barrier.cluster.wait;
                barrier.cluster.wait;
                ret;
                }
                """;
        try (PtxRun run = new PtxRun()) {
            LaunchResult r = launchOneClusterOfTwo(run, ptx);
            assertEquals(Errors.ILLEGAL_INSTRUCTION, r.error(), r.message());
            assertTrue(r.message().contains("barrier.cluster.wait without a barrier.cluster.arrive"), r.message());
        }
    }
}
