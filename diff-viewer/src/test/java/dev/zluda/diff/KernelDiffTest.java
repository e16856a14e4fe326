package dev.zluda.diff;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.KernelSnapshots;
import dev.zluda.replay.KernelReplay;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Kernel after-images in the diff, on real data: A is vectorAdd recorded on an NVIDIA H200 with a
 * kernel snapshot (samples/traces/h200/vectorAdd-kernels); B is that snapshot replayed on zluda's
 * emulator (KernelReplay, which records its replay as a capture with a snapshot of its own), once
 * with the recorded PTX and once with {@code add.f32} planted as {@code sub.f32}. The expected
 * elements, counts and errors come from IEEE binary32 arithmetic on the recorded before-images
 * (Java's float arithmetic is IEEE 754 round-to-nearest-even, as PTX's {@code add.f32} and
 * {@code sub.f32} without a rounding modifier, PTX ISA 9.0 §9.7.3.1–2), not from the diff.
 */
class KernelDiffTest {
    static final Path A = Path.of("..", "samples", "traces", "h200", "vectorAdd-kernels");
    @TempDir
    static Path tmp;
    static Path same, sub;
    static float[] a, b, cAfter;
    static long bLaunchCall;

    static float[] floats(byte[] bytes) {
        float[] f = new float[bytes.length / 4];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(f);
        return f;
    }

    @BeforeAll
    static void replay() throws Exception {
        String ptx = Files.readString(A.resolve("module_0001_01.ptx"));
        String planted = ptx.replace("add.f32", "sub.f32");
        assertNotEquals(ptx, planted);
        try (Capture cap = Capture.open(A)) {
            KernelSnapshots ks = KernelSnapshots.read(cap);
            CaptureRecord.Kernel k = ks.list().getFirst().record();
            a = floats(ks.blob(k.buffers().get(0).before(), "a"));
            b = floats(ks.blob(k.buffers().get(1).before(), "b"));
            cAfter = floats(ks.blob(k.buffers().get(2).after(), "c"));
            same = tmp.resolve("same");
            sub = tmp.resolve("sub");
            KernelReplay.run(cap, "1", new KernelReplay.Options("zluda", same, true, null, null));
            KernelReplay.run(cap, "1", new KernelReplay.Options("zluda", sub, true, planted, null));
        }
        try (Capture cb = Capture.open(sub)) {
            bLaunchCall = KernelSnapshots.read(cb).list().getFirst().launchCall();
        }
    }

    /** The H200's after-image is the IEEE sum of the before-images: the ground truth the rest reasons from. */
    @Test
    void theH200ComputedTheIeeeSum() {
        assertEquals(4096, a.length);
        for (int i = 0; i < a.length; i++) assertEquals(Float.floatToRawIntBits(a[i] + b[i]), Float.floatToRawIntBits(cAfter[i]), "element " + i);
    }

    @Test
    void theRecordedPtxReplayedOnTheEmulatorLeavesTheH200sAfterImages() throws Exception {
        DiffResult r = DiffEngine.diff(A, same, DiffOptions.defaults());
        assertEquals(1, r.kernels().snapshotsA());
        assertEquals(1, r.kernels().snapshotsB());
        assertEquals(1, r.kernels().compared());
        assertEquals(0, r.kernels().divergingCount());
        assertTrue(r.kernels().diverging().isEmpty());
        assertEquals(0L, r.counts().get(DiffKind.KERNEL));
        for (DiffResult.Divergence d : r.divergences()) assertNotEquals(DiffKind.KERNEL, d.kind(), d.toString());
    }

    @Test
    void aPlantedSubIsFoundAtTheLaunchInBufferThreeWithIeeeCountsAndErrors() throws Exception {
        // what B's kernel computes: a - b; where its bits differ from a + b (+0 and -0 compare equal), and by how much
        long differing = 0;
        int first = -1;
        double maxAbs = 0, maxRel = 0;
        for (int i = 0; i < a.length; i++) {
            float x = a[i] + b[i], y = a[i] - b[i];
            if (Float.floatToRawIntBits(x) == Float.floatToRawIntBits(y) || x == y) continue;
            differing++;
            if (first < 0) first = i;
            double abs = Math.abs((double) x - (double) y);
            maxAbs = Math.max(maxAbs, abs);
            if (x != 0) maxRel = Math.max(maxRel, abs / Math.abs((double) x));
        }
        assertTrue(differing > 4000, "random inputs: nearly every element differs");

        DiffResult r = DiffEngine.diff(A, sub, DiffOptions.defaults());
        assertFalse(r.same());
        assertEquals(1, r.exitCode());
        assertEquals(1L, r.counts().get(DiffKind.KERNEL));
        assertEquals(1, r.kernels().compared());
        assertEquals(1, r.kernels().divergingCount());
        DiffResult.KernelDivergence kd = r.kernels().diverging().getFirst();
        assertEquals(1, kd.number());
        assertEquals("vectorAdd", kd.kernel());
        assertEquals("module_0001_01.ptx", kd.module());
        assertEquals("grid=(16,1,1) block=(256,1,1) shared=0", kd.shape());
        assertEquals(13, kd.a().call(), "vectorAdd's cuLaunchKernel is A's call 13 (zluda dump --calls)");
        assertEquals(bLaunchCall, kd.b().call());
        assertEquals(1, kd.buffers().size(), "a and b are inputs the kernel leaves alone: only c differs");
        DiffResult.KernelBuffer kb = kd.buffers().getFirst();
        assertEquals(3, kb.index());
        assertEquals("dptr#3", kb.buffer(), "c is vectorAdd's third allocation");
        assertEquals(java.util.List.of("vectorAdd_param_2"), kb.params());
        assertTrue(kb.typedFromPtx());
        assertFalse(kb.inputsDiffer());
        DiffResult.DataDiff dd = kb.data();
        assertEquals("f32", dd.elementType());
        assertEquals(4096, dd.elements());
        assertEquals(differing, dd.differing());
        assertEquals(first, dd.firstElement());
        assertEquals(4L * first, dd.byteOffset());
        assertEquals(Float.toString(a[first] + b[first]), dd.a());
        assertEquals(Float.toString(a[first] - b[first]), dd.b());
        assertEquals(maxAbs, dd.maxAbs());
        assertEquals(maxRel, dd.maxRel(), maxRel * 1e-12);
        assertNotNull(dd.heatmap());
        assertTrue(kd.locate().endsWith(" --kernel 1 --locate"), kd.locate());
        // the launch call is a diverging call of kind kernel, in A's order among the others
        DiffResult.Divergence launch = r.divergences().stream().filter(d -> d.a().call() == 13).findFirst().orElseThrow();
        assertEquals(DiffKind.KERNEL, launch.kind());
        assertEquals(bLaunchCall, launch.b().call());
        assertSame(dd, launch.differences().stream().filter(x -> x.kind() == DiffKind.KERNEL).findFirst().orElseThrow().data());

        // the reports
        StringWriter text = new StringWriter();
        TextReport.write(r, new PrintWriter(text));
        assertTrue(text.toString().contains("Kernels: 1 of 1 compared launch diverges (snapshots: 1 in A, 1 in B)"), text.toString());
        assertTrue(text.toString().contains("Diverging kernels (1):"), text.toString());
        assertTrue(text.toString().contains("kernel #1 vectorAdd in module_0001_01.ptx, grid=(16,1,1) block=(256,1,1) shared=0; launch: A call 13, B call " + bLaunchCall),
                text.toString());
        assertTrue(text.toString().contains("buffer 3 dptr#3 (vectorAdd_param_2): f32 element " + first), text.toString());
        assertTrue(text.toString().contains("first differing instruction: zluda diff "), text.toString());
        StringWriter json = new StringWriter();
        JsonReport.write(r, new PrintWriter(json));
        JsonNode j = new ObjectMapper().readTree(json.toString());
        assertEquals(1, j.path("counts").path("kernel").asInt());
        JsonNode jk = j.path("kernels").path("diverging").get(0);
        assertEquals(1, jk.path("number").asInt());
        assertEquals(13, jk.path("aCall").asInt());
        assertEquals("dptr#3", jk.path("buffers").get(0).path("buffer").asText());
        assertEquals(first, jk.path("buffers").get(0).path("data").path("firstElement").asInt());
        assertEquals(maxAbs, jk.path("buffers").get(0).path("data").path("maxAbs").asDouble());
        StringWriter html = new StringWriter();
        HtmlReport.write(r, new PrintWriter(html));
        String h = html.toString();
        int section = h.indexOf("<h2 id=\"kernels\">Diverging kernels (1)</h2>");
        assertTrue(section > 0, h);
        assertTrue(h.indexOf("<img class=\"heatmap\"", section) > section, "a heatmap of the kernel's diverging buffer");
        assertTrue(h.indexOf("--kernel 1 --locate", section) > section);
        // still well-formed XML (XHTML syntax), as tools parse it
        assertNotNull(javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new java.io.ByteArrayInputStream(h.getBytes(java.nio.charset.StandardCharsets.UTF_8))));
    }

    @Test
    void theToleranceAppliesToAfterImages() throws Exception {
        double maxAbs = 0;
        for (int i = 0; i < a.length; i++) maxAbs = Math.max(maxAbs, Math.abs((double) (a[i] + b[i]) - (double) (a[i] - b[i])));
        long atMax = 0;
        for (int i = 0; i < a.length; i++) if (Math.abs((double) (a[i] + b[i]) - (double) (a[i] - b[i])) == maxAbs) atMax++;
        // |a - b| <= atol: with atol the largest difference every element is within it; just below, not
        DiffResult within = DiffEngine.diff(A, sub, DiffOptions.defaults().withTolerance(new Tolerance(0, maxAbs, 0)));
        assertEquals(0, within.kernels().divergingCount());
        assertEquals(1, within.kernels().toleratedBuffers());
        assertEquals(0L, within.counts().get(DiffKind.KERNEL));
        DiffResult beyond = DiffEngine.diff(A, sub, DiffOptions.defaults().withTolerance(new Tolerance(0, Math.nextDown(maxAbs), 0)));
        assertEquals(1, beyond.kernels().divergingCount());
        assertEquals(atMax, beyond.kernels().diverging().getFirst().buffers().getFirst().data().differing(), "only the largest differences are beyond it");
    }

    /** CuPy's 20 launches snapshotted on the H200 (launch sections rebuilt from the calls and MODULE records) pair one to one. */
    @Test
    void cupysTwentySnapshotsPairWithThemselves() throws Exception {
        Path cupy = Path.of("..", "samples", "traces", "h200", "cupy_kernels.zip");
        DiffResult r = DiffEngine.diff(cupy, cupy, DiffOptions.defaults());
        assertEquals(20, r.kernels().snapshotsA(), "the README: 20 kernel snapshots");
        assertEquals(20, r.kernels().compared());
        assertEquals(0, r.kernels().unpairedA());
        assertEquals(0, r.kernels().divergingCount());
        assertTrue(r.same());
    }

    @Test
    void capturesWithoutSnapshotsSaySo() throws Exception {
        Path plain = Path.of("..", "samples", "traces", "h200", "vectorAdd");
        DiffResult r = DiffEngine.diff(plain, plain, DiffOptions.defaults());
        assertSame(DiffResult.Kernels.NONE, r.kernels());
        StringWriter text = new StringWriter();
        TextReport.write(r, new PrintWriter(text));
        assertTrue(text.toString().contains("Kernels: no kernel snapshots in either capture"), text.toString());
    }

    /**
     * Two captures at level calls (the default; the manifest says {@code "data": "calls"}) without
     * snapshots hold no result: their SAME must not read as a clean one, and a Note says why.
     */
    @Test
    void capturesAtLevelCallsSayTheirResultsWereNotCompared() throws Exception {
        Path plain = Path.of("..", "samples", "traces", "h200", "vectorAdd");
        DiffResult r = DiffEngine.diff(plain, plain, DiffOptions.defaults());
        assertTrue(r.same());
        assertFalse(r.resultsCompared());
        assertEquals(0, r.exitCode(), "nothing that was compared differs");
        StringWriter text = new StringWriter();
        TextReport.write(r, new PrintWriter(text));
        String t = text.toString();
        assertTrue(t.contains("\nSAME (calls and arguments only; no result data was recorded): no divergence in "), t);
        assertTrue(t.contains("Note: both captures were recorded at level calls: device-to-host data was not recorded, so results copied back"
                + " were not compared; record with --level replay"), t);
        assertTrue(JsonReport.tree(r).path("resultsCompared").isBoolean() && !JsonReport.tree(r).path("resultsCompared").asBoolean());
        // a snapshot compared on both sides carries results: a plain SAME
        DiffResult k = DiffEngine.diff(A, A, DiffOptions.defaults());
        assertTrue(k.resultsCompared());
        StringWriter kt = new StringWriter();
        TextReport.write(k, new PrintWriter(kt));
        assertTrue(kt.toString().contains("\nSAME: no divergence in "), kt.toString());
    }

    /**
     * A launch given another n ({@code vectorAdd_param_3}, declared {@code .u32} in the PTX; the recording ran
     * {@code vectorAdd 4096}) is an argument divergence of that launch that names the parameter, though
     * its after-images are the same; its pointers, at other addresses in the zluda replay, are not.
     */
    @Test
    void aChangedKernelParameterIsNamedWithItsPtxType() throws Exception {
        Path changed = Rewrite.copy(A, tmp.resolve("n4000"), new Rewrite.Editor() {
            @Override
            public byte[] kernelParams(String kernel, byte[] params) {
                ByteBuffer.wrap(params).order(ByteOrder.LITTLE_ENDIAN).putInt(24, 4000);
                return params;
            }
        });
        DiffResult r = DiffEngine.diff(A, changed, DiffOptions.defaults());
        assertFalse(r.same());
        assertEquals(1L, r.counts().get(DiffKind.ARGUMENT));
        assertEquals(DiffKind.ARGUMENT, r.first().kind());
        assertEquals(List.of("kernel parameter 3 (vectorAdd_param_3, .u32): 4096 vs 4000"), r.kernels().diverging().getFirst().parameters());
        StringWriter text = new StringWriter();
        TextReport.write(r, new PrintWriter(text));
        assertTrue(text.toString().contains("kernel #1 vectorAdd parameter 3 (vectorAdd_param_3, .u32): 4096 vs 4000"), text.toString());
        // against the replay on zluda, whose three pointers are other addresses into the same buffers
        DiffResult z = DiffEngine.diff(same, changed, DiffOptions.defaults());
        assertEquals(List.of("kernel parameter 3 (vectorAdd_param_3, .u32): 4096 vs 4000"), z.kernels().diverging().getFirst().parameters());
    }

    /** A launch that differs in its parameter and in its result is one diverging call counted under each kind, and the verdict says so. */
    @Test
    void aCallThatDiffersInSeveralWaysIsCountedUnderEach() throws Exception {
        Path changed = Rewrite.copy(A, tmp.resolve("two-ways"), new Rewrite.Editor() {
            @Override
            public void leave(Rewrite.Call c) {
                if (c.function.startsWith("cuLaunchKernel")) c.result = 1;   // CUDA_ERROR_INVALID_VALUE
            }

            @Override
            public byte[] kernelParams(String kernel, byte[] params) {
                ByteBuffer.wrap(params).order(ByteOrder.LITTLE_ENDIAN).putInt(24, 4000);
                return params;
            }
        });
        DiffResult r = DiffEngine.diff(A, changed, DiffOptions.defaults());
        assertEquals(1, r.divergingCalls());
        assertEquals(1L, r.counts().get(DiffKind.ARGUMENT));
        assertEquals(1L, r.counts().get(DiffKind.RESULT));
        assertEquals(1L, r.counts().get(DiffKind.KERNEL), "the failed launch also counts as a kernel divergence");
        assertEquals("DIFFERENT: 1 diverging call (1 result, 1 argument, 1 kernel; a call counts under each way it differs)", Describe.verdict(r));
    }

    @Test
    void ptxTypesMapOntoTheDiffsElementTypes() {
        assertEquals("f32", ElementTypes.forPtx("f32").orElseThrow().name());
        assertEquals("i32", ElementTypes.forPtx(".s32").orElseThrow().name());
        assertEquals("u64", ElementTypes.forPtx("b64").orElseThrow().name());
        assertEquals("bf16", ElementTypes.forPtx("bf16").orElseThrow().name());
        assertTrue(ElementTypes.forPtx("bytes").isEmpty());
        // binary16 1.0 (0x3c00) and the next value up (0x3c01, 1 + 2^-10): 1 ulp, |Δ| 2^-10
        ByteBuffer x = ByteBuffer.allocate(2).order(ByteOrder.LITTLE_ENDIAN).putShort(0, (short) 0x3c00);
        ByteBuffer y = ByteBuffer.allocate(2).order(ByteOrder.LITTLE_ENDIAN).putShort(0, (short) 0x3c01);
        ElementType.Delta d = new ElementType.Delta();
        assertTrue(ElementTypes.F16.differs(x, y, 0, Tolerance.EXACT, d));
        assertEquals(1, d.ulps);
        assertEquals(Math.scalb(1.0, -10), d.abs);
        assertFalse(ElementTypes.F16.differs(x, y, 0, new Tolerance(0, 0, 1), d));
        // bfloat16 1.0 is 0x3f80 (the upper half of binary32 0x3f800000); 0x3f81 is 1 + 2^-7
        x.putShort(0, (short) 0x3f80);
        y.putShort(0, (short) 0x3f81);
        assertTrue(ElementTypes.BF16.differs(x, y, 0, Tolerance.EXACT, d));
        assertEquals(Math.scalb(1.0, -7), d.abs);
    }
}
