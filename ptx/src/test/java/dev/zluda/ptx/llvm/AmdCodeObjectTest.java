package dev.zluda.ptx.llvm;

import dev.zluda.ptx.FunctionInfo;
import dev.zluda.ptx.ModuleModel;
import dev.zluda.ptx.ParamInfo;
import dev.zluda.ptx.Ptx;
import dev.zluda.ptx.Semantics;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Check (a) of the AMD back end: every sample kernel compiles to a code object for gfx1030 and gfx1100, and the
 * kernel metadata LLVM writes into it (read back with {@code llvm-readelf --notes}) lays the kernel arguments out
 * exactly where the PTX parameter layout ({@link ParamInfo}, what {@code cuLaunchKernel} packs) puts them.
 * Skipped, with the reason, only where LLVM 22 (or 19) is not installed (CI installs them).
 */
class AmdCodeObjectTest {
    static Path repo() {
        Path p = Path.of("").toAbsolutePath();
        return Files.isDirectory(p.resolve("samples")) ? p : p.getParent();
    }

    /** The samples' PTX: hand-kept nvcc output in samples/src/main/ptx and the PTX of the recorded H200 traces. */
    static List<Path> samplePtx() throws IOException {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> s = Files.walk(repo().resolve("samples"))) {
            s.filter(f -> f.toString().endsWith(".ptx")).sorted().forEach(out::add);
        }
        assertTrue(out.size() >= 6, "sample PTX files not found under " + repo().resolve("samples"));
        return out;
    }

    /**
     * Samples whose features the LLVM back end does not lower, by file name, with what its refusal must name: thread-block
     * clusters (no AMD GPU equivalent) and the grid-wide barrier of cooperative launches (the grid workspace in
     * %envreg1/2; the hip backend refuses cooperative launches too).
     */
    static final Map<String, String> REFUSED = Map.of("cluster.ptx", "%cluster_ctarank", "cooperative.ptx", "%envreg1");

    /** True when {@code f} is one of {@link #REFUSED} and the lowering refused it naming what it must; fails when it refused otherwise. */
    static boolean refusedAsExpected(Path f, PtxCompiler.Lowered l) {
        String what = REFUSED.get(f.getFileName().toString());
        if (what == null || l.ok()) return false;
        assertTrue(l.errors().toString().contains(what), f + ": refused without naming " + what + ": " + l.errors());
        return true;
    }

    /** LLVM 22 (or 19); the test is skipped when they are missing, unless ZLUDA_REQUIRE_LLVM is set (CI sets it). */
    static LlvmTools tools() {
        LlvmTools tools = LlvmTools.find();
        if (tools == null && System.getenv("ZLUDA_REQUIRE_LLVM") != null) {
            throw new AssertionError("ZLUDA_REQUIRE_LLVM is set but " + LlvmTools.missingMessage());
        }
        Assumptions.assumeTrue(tools != null, LlvmTools.missingMessage());
        return tools;
    }

    /** One kernel's entry in the AMDGPU metadata: explicit arguments (offset, size) and the kernarg segment size. */
    record KernelMeta(List<long[]> args, long kernargSize, int wavefront) {}

    /** Parses the YAML that llvm-readelf prints for NT_AMDGPU_METADATA (the fields this test needs). */
    static Map<String, KernelMeta> parseNotes(String notes) {
        Map<String, KernelMeta> m = new LinkedHashMap<>();
        String[] kernels = notes.split("\n  - \\.args:");
        Pattern arg = Pattern.compile("- (?:\\.name:\\s+\\S+\\s+)?\\.offset:\\s+(\\d+)\\s+\\.size:\\s+(\\d+)\\s+\\.value_kind:\\s+(\\w+)");
        for (int k = 1; k < kernels.length; k++) {
            String text = kernels[k];
            List<long[]> args = new ArrayList<>();
            Matcher a = arg.matcher(text);
            while (a.find()) if (!a.group(3).startsWith("hidden_")) args.add(new long[] {Long.parseLong(a.group(1)), Long.parseLong(a.group(2))});
            Matcher name = Pattern.compile("\n    \\.name:\\s+(\\S+)").matcher(text);
            Matcher ks = Pattern.compile("\\.kernarg_segment_size:\\s+(\\d+)").matcher(text);
            Matcher ws = Pattern.compile("\\.wavefront_size:\\s+(\\d+)").matcher(text);
            assertTrue(name.find() && ks.find() && ws.find(), "unexpected metadata: " + text);
            m.put(name.group(1), new KernelMeta(args, Long.parseLong(ks.group(1)), Integer.parseInt(ws.group(1))));
        }
        return m;
    }

    @Test
    void samplesCompileForRdnaAndMetadataMatchesPtxParameterLayout() throws IOException {
        LlvmTools tools = tools();
        Path tmp = Files.createTempDirectory("zluda-amd-test");
        int kernels = 0;
        for (Path f : samplePtx()) {
            String text = Ptx.readPtx(f);
            ModuleModel model = Semantics.analyze(Ptx.parseOrThrow(text, f.toString()), f.toString());
            for (LlvmTarget t : List.of(LlvmTarget.GFX1030, LlvmTarget.GFX1100)) {
                PtxCompiler.Lowered l = PtxCompiler.lower(text, f.toString(), t);
                if (refusedAsExpected(f, l)) continue;
                assertTrue(l.ok(), f + " for " + t.cpu() + ": " + l.errors());
                Path co = tmp.resolve(f.getFileName() + "." + t.cpu() + ".hsaco");
                Files.write(co, PtxCompiler.codegen(l, t, tools));
                String notes = tools.notes(co);
                assertTrue(notes.contains("amdhsa.target:   amdgcn-amd-amdhsa--" + t.cpu()), notes);
                assertTrue(notes.matches("(?s).*amdhsa.version:\\s+- 1\\s+- 2.*"), "code object v5 (metadata 1.2) expected: " + notes);
                Map<String, KernelMeta> meta = parseNotes(notes);
                for (FunctionInfo k : model.kernels()) {
                    KernelMeta km = meta.get(k.name());
                    assertTrue(km != null, f + ": kernel " + k.name() + " missing from the code object of " + t.cpu() + ": " + meta.keySet());
                    assertEquals(k.params().size(), km.args().size(), f + " " + k.name() + ": argument count");
                    for (ParamInfo p : k.params()) {
                        long[] a = km.args().get(p.index());
                        assertEquals(p.offset(), a[0], f + " " + k.name() + " " + p.name() + ": offset");
                        assertEquals(p.size(), a[1], f + " " + k.name() + " " + p.name() + ": size");
                    }
                    assertTrue(km.kernargSize() >= k.paramSize(), k.name() + ": kernarg segment smaller than the parameters");
                    assertEquals(32, km.wavefront(), k.name() + " must run in 32-lane waves on " + t.cpu());
                    kernels++;
                }
            }
        }
        assertTrue(kernels >= 16, "only " + kernels + " kernels checked");
    }

    @Test
    void aggregateParametersKeepTheirPtxAlignment() throws IOException {
        LlvmTools tools = tools();
        String ptx = """
                .version 8.0
                .target sm_80
                .address_size 64
                .visible .entry k(.param .u32 a, .param .align 16 .b8 s[24], .param .u8 c, .param .u64 p)
                {
                .reg .b32 %r<3>;
                .reg .b64 %rd<3>;
                ld.param.u32 %r1, [a];
                ld.param.u32 %r2, [s+20];
                add.s32 %r1, %r1, %r2;
                ld.param.u64 %rd1, [p];
                st.global.u32 [%rd1], %r1;
                ret;
                }
                """;
        ModuleModel model = Semantics.analyze(Ptx.parseOrThrow(ptx, "agg.ptx"), "agg.ptx");
        PtxCompiler.Lowered l = PtxCompiler.lower(ptx, "agg.ptx", LlvmTarget.GFX1100);
        assertTrue(l.ok(), l.errors().toString());
        Path co = Files.createTempFile("agg", ".hsaco");
        Files.write(co, PtxCompiler.codegen(l, LlvmTarget.GFX1100, tools));
        KernelMeta km = parseNotes(tools.notes(co)).get("k");
        List<ParamInfo> ps = model.function("k").params();
        assertEquals(List.of(0L, 16L, 40L, 48L), ps.stream().map(ParamInfo::offset).toList(), "PTX layout (C struct rules)");
        for (ParamInfo p : ps) {
            assertEquals(p.offset(), km.args().get(p.index())[0], p.name());
            assertEquals(p.size(), km.args().get(p.index())[1], p.name());
        }
    }
}
