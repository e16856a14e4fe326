package dev.zluda.runtime.driver;

import dev.zluda.spec.CudaApi;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real calls on the emulator through the driver (PTX ISA 9.0, 9.7.12.3 call, 9.7.17 stack
 * manipulation): recursion, calls through function pointers with a different target per lane, a local
 * array per activation, device {@code alloca}, compared with outputs recorded on an NVIDIA H200
 * (src/test/resources/calls/README.md says how).
 */
class CallsTest extends DriverTestBase {
    private static final int N = 64;
    /** What an H200 reports for a recursion past the stack limit (calls/h200-stack-overflow.txt). */
    private static final int ILLEGAL_ADDRESS = 700;

    /** The PTX targets sm_90 (the H200): the driver must report compute capability 9.0. */
    @BeforeEach
    void asH200() {
        d = h200Driver();
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = CallsTest.class.getResourceAsStream("/calls/" + name)) {
            assertNotNull(in, name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** kernelParams: each argument's bytes in caller memory. */
    private long params(MemorySegment... values) {
        MemorySegment arr = mem(8L * Math.max(1, values.length));
        for (int i = 0; i < values.length; i++) arr.setAtIndex(ValueLayout.JAVA_LONG, i, addr(values[i]));
        return addr(arr);
    }

    private MemorySegment u64(long v) {
        MemorySegment s = mem(8);
        s.set(ValueLayout.JAVA_LONG, 0, v);
        return s;
    }

    private MemorySegment u32(int v) {
        MemorySegment s = mem(8);
        s.set(ValueLayout.JAVA_INT, 0, v);
        return s;
    }

    private long upload(int[] v) {
        long p = alloc(4L * v.length);
        MemorySegment h = mem(4L * v.length);
        for (int i = 0; i < v.length; i++) h.setAtIndex(ValueLayout.JAVA_INT, i, v[i]);
        assertEquals(0, d.cuMemcpyHtoD_v2(p, addr(h), 4L * v.length));
        return p;
    }

    /** The host program's inputs: in[i] = (i * 37 + 11) % 97. */
    private static int[] inputs(int mod) {
        int[] in = new int[N];
        for (int i = 0; i < N; i++) in[i] = mod == 0 ? (i * 37 + 11) % 97 : (i * 37 + 11) % 97 % mod;
        return in;
    }

    /** The H200's lines for one kernel: {index, input, output bits}. */
    private static List<int[]> recorded(String kernel) throws IOException {
        List<int[]> rows = new ArrayList<>();
        for (String line : resource("h200-outputs.txt").split("\n")) {
            String[] w = line.trim().split(" ");
            if (!w[0].equals(kernel)) continue;
            int bits = kernel.equals("fptr_kernel") ? Integer.parseUnsignedInt(w[3], 16) : (int) Long.parseLong(w[3]);
            rows.add(new int[] {Integer.parseInt(w[1]), Integer.parseInt(w[2]), bits});
        }
        return rows;
    }

    private void compareWithH200(String file, String kernel, int mod) throws IOException {
        initWithContext();
        long f = function(load(resource(file)), kernel);
        int[] in = inputs(mod);
        long din = upload(in), dout = alloc(4L * N);
        assertEquals(0, d.cuLaunchKernel(f, 2, 1, 1, 32, 1, 1, 0, 0, params(u64(din), u64(dout)), 0));
        assertEquals(0, d.cuCtxSynchronize());
        int[] out = readInts(dout, N);
        List<int[]> rows = recorded(kernel);
        assertEquals(N, rows.size(), kernel + " rows in h200-outputs.txt");
        for (int[] row : rows) {
            assertEquals(in[row[0]], row[1], kernel + " input " + row[0]);
            assertEquals(row[2], out[row[0]], kernel + " thread " + row[0] + " (input " + row[1] + ")");
        }
    }

    @Test
    void recursiveFibonacciMatchesH200() throws IOException {
        compareWithH200("calls.ptx", "fib_kernel", 19);
    }

    @Test
    void ackermannMatchesH200() throws IOException {
        compareWithH200("calls.ptx", "ack_kernel", 0);
    }

    @Test
    void localArrayPerActivationMatchesH200() throws IOException {
        compareWithH200("calls.ptx", "rsum_kernel", 0);
    }

    @Test
    void functionPointersWithDivergentTargetsMatchH200() throws IOException {
        compareWithH200("calls.ptx", "fptr_kernel", 0);
    }

    @Test
    void deviceAllocaMatchesH200() throws IOException {
        compareWithH200("alloca.ptx", "alloca_kernel", 0);
    }

    /**
     * Hand-written alloca/stacksave/stackrestore: sums as the PTX ISA defines them, the buffer after a
     * stackrestore at the same address (the stack pointer is back where stacksave read it), and
     * alloca's alignment.
     */
    @Test
    void stackSaveRestoreAndAlignment() throws IOException {
        initWithContext();
        long f = function(load(resource("stack.ptx")), "stack_kernel");
        int[] in = inputs(0);
        long din = upload(in), dout = alloc(4L * 3 * N);
        assertEquals(0, d.cuLaunchKernel(f, 1, 1, 1, N, 1, 1, 0, 0, params(u64(din), u64(dout)), 0));
        assertEquals(0, d.cuCtxSynchronize());
        int[] out = readInts(dout, 3 * N);
        for (int i = 0; i < N; i++) {
            int v = in[i], n = v % 5 + 1, sum = 0;
            for (int k = 0; k < 3; k++) for (int j = 0; j < n; j++) sum += v + j * k;
            assertEquals(sum, out[i], "sum of thread " + i);
            assertEquals(0, out[N + i], "stackrestore gives the stack back, thread " + i);
            assertEquals(0, out[2 * N + i], "alloca aligned to 16, thread " + i);
        }
    }

    /** deep(n) of calls.cu: deep(0) = 3, deep(n) = deep(n - 1) + n + (n & 15) (C semantics of the source). */
    private static int deep(int n) {
        int s = 3;
        for (int k = 1; k <= n; k++) s += k + (k & 15);
        return s;
    }

    @Test
    void stackOverflowIsAFaultAndTheStackLimitCounts() throws IOException {
        initWithContext();
        long f = function(load(resource("calls.ptx")), "overflow_kernel");
        long dout = alloc(4L * 32);
        assertEquals(0, d.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, params(u64(dout), u32(5)), 0));
        assertEquals(0, d.cuCtxSynchronize());
        assertEquals(deep(5), readInts(dout, 32)[31]);
        // 200 levels of a frame with a 64-byte local array do not fit in the default 1024 bytes ...
        assertEquals(0, d.cuCtxSetLimit(0, 64 * 1024)); // CU_LIMIT_STACK_SIZE
        assertEquals(0, d.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, params(u64(dout), u32(200)), 0));
        assertEquals(0, d.cuCtxSynchronize());
        assertEquals(deep(200), readInts(dout, 32)[0]);
        // ... and a million levels do not fit in 64 KiB: a fault, not a Java StackOverflowError
        int r = d.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, params(u64(dout), u32(1_000_000)), 0);
        if (r == 0) r = d.cuCtxSynchronize();
        assertEquals(ILLEGAL_ADDRESS, r);
    }

    @Test
    void defaultStackOverflows() throws IOException {
        initWithContext();
        long f = function(load(resource("calls.ptx")), "overflow_kernel");
        long dout = alloc(4L * 32);
        int r = d.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, params(u64(dout), u32(200)), 0);
        if (r == 0) r = d.cuCtxSynchronize();
        assertEquals(ILLEGAL_ADDRESS, r);
    }

    /**
     * nvcc's device_call corpus module (ptx module's test corpus): direct calls inlined, an indirect call
     * through a {@code .callprototype} to one of two address-taken functions. The expected value is
     * the PTX's arithmetic written out (the inputs are exact in every step's precision).
     */
    @Test
    void nvccCorpusIndirectCallRuns() throws IOException {
        initWithContext();
        for (String arch : new String[] {"sm_75", "sm_86", "sm_90"})
        for (int op : new int[] {0, 1}) {
            String ptx = Files.readString(Path.of("../ptx/src/test/resources/corpus/device_call." + arch + ".ptx"));
            long f = function(load(ptx), "call_kernel");
            long out = alloc(4L * 32);
            MemorySegment p1 = mem(16), p2 = mem(24);
            p1.set(ValueLayout.JAVA_DOUBLE, 8, 1.5);
            int[] ints = {10, 20, 30, 40, 50};
            for (int k = 0; k < 5; k++) p2.set(ValueLayout.JAVA_INT, 4L * k, ints[k]);
            p2.set(ValueLayout.JAVA_SHORT, 20, (short) -3);
            MemorySegment p3 = mem(8), p4 = mem(8);
            p4.set(ValueLayout.JAVA_SHORT, 0, (short) 7);
            assertEquals(0, d.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0,
                    params(u64(out), p1, p2, p3, p4, u64(1000), u64(Double.doubleToRawLongBits(0.25)), u32(op)), 0));
            assertEquals(0, d.cuCtxSynchronize());
            int[] got = readInts(out, 32);
            for (int t = 0; t < 32; t++) {
                double fd4 = 2 * (1.5 + 0.25);
                float x = t;
                float poly = Math.fma(Math.fma(Math.fma(0.125f, x, 0.25f), x, 0.5f), x, 1.0f);
                double acc = fd4 + poly + ints[t % 5] + (-3) + 7 + (double) (float) 1000L;
                int tab = new int[] {1, 2, 3}[t % 3];
                acc += op == 0 ? t * tab : t + tab;
                assertEquals(Float.floatToRawIntBits((float) acc), got[t], arch + " op " + op + " thread " + t);
            }
        }
    }

    @Test
    void indirectCallToANonFunctionFaults() {
        initWithContext();
        String ptx = """
                .version 9.0
                .target sm_90
                .address_size 64
                .func (.param .b32 r) f(.param .b32 a) { .reg .b32 %x; ld.param.b32 %x, [a]; st.param.b32 [r], %x; ret; }
                .visible .entry k(.param .u64 p) {
                    .reg .b64 %rd<3>; .reg .b32 %r<2>;
                    mov.u64 %rd1, f;
                    add.u64 %rd1, %rd1, 4;
                    { .param .b32 a0; .param .b32 r0; st.param.b32 [a0], 1;
                      proto: .callprototype (.param .b32 _) _ (.param .b32 _);
                      call (r0), %rd1, (a0), proto; ld.param.b32 %r1, [r0]; }
                    ret;
                }
                """;
        long f = function(load(ptx), "k");
        int r = d.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, params(u64(alloc(4))), 0);
        if (r == 0) r = d.cuCtxSynchronize();
        assertTrue(r == 715, "CUDA_ERROR_ILLEGAL_INSTRUCTION, got " + r);
    }

    /**
     * Recursion through {@code .reg} parameters and results, and an indirect call through a
     * {@code .calltargets} list with a different target in each half of the warp (PTX ISA 9.0,
     * 9.7.12.3 and 11.3.6): tri(n) = n + tri(n - 1), tri(0) = 0; dbl(n) = 2n.
     */
    @Test
    void regParametersAndCallTargets() {
        initWithContext();
        String ptx = """
                .version 9.0
                .target sm_90
                .address_size 64
                .func (.reg .u32 r) tri(.reg .u32 n)
                {
                    .reg .pred %p; .reg .u32 %t;
                    setp.eq.u32 %p, n, 0;
                    @%p bra Z;
                    sub.u32 %t, n, 1;
                    call (%t), tri, (%t);
                    add.u32 r, %t, n;
                    ret;
                Z:
                    mov.u32 r, 0;
                    ret;
                }
                .func (.reg .u32 r) dbl(.reg .u32 n)
                {
                    add.u32 r, n, n;
                    ret;
                }
                .visible .entry k(.param .u64 out)
                {
                    .reg .u64 %rd<5>; .reg .u32 %r<3>; .reg .pred %p;
                    mov.u32 %r1, %laneid;
                    setp.lt.u32 %p, %r1, 16;
                    mov.u64 %rd1, tri;
                    mov.u64 %rd2, dbl;
                    selp.b64 %rd3, %rd1, %rd2, %p;
                T: .calltargets tri, dbl;
                    call (%r2), %rd3, (%r1), T;
                    ld.param.u64 %rd4, [out];
                    cvta.to.global.u64 %rd4, %rd4;
                    mul.wide.u32 %rd1, %r1, 4;
                    add.u64 %rd4, %rd4, %rd1;
                    st.global.u32 [%rd4], %r2;
                    ret;
                }
                """;
        long f = function(load(ptx), "k");
        long out = alloc(4L * 32);
        assertEquals(0, d.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, params(u64(out)), 0));
        assertEquals(0, d.cuCtxSynchronize());
        int[] got = readInts(out, 32);
        for (int l = 0; l < 32; l++) assertEquals(l < 16 ? l * (l + 1) / 2 : 2 * l, got[l], "lane " + l);
    }
}
