package dev.zluda.ptx;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Cross-checks {@link Semantics}' kernel parameter layouts against what NVIDIA's toolchain records:
 * ptxas writes, per kernel, a {@code .nv.info.<kernel>} ELF section whose EIATTR_KPARAM_INFO
 * entries (attribute 0x17) give each parameter's ordinal, offset and size (the data
 * {@code cuFuncGetParamInfo} returns), and EIATTR_PARAM_CBANK_SIZE (0x19) the buffer size.
 * Skipped when ptxas is absent.
 */
class ParamLayoutPtxasTest {
    @TempDir
    Path tmp;

    private static final String HANDWRITTEN = """
            .version 9.0
            .target sm_90
            .address_size 64
            .visible .entry mixed(
                .param .u8 a,
                .param .align 16 .b8 b[20],
                .param .u16 c,
                .param .u64 .ptr .global .align 16 d,
                .param .f32 e,
                .param .align 2 .b8 f[3],
                .param .f64 g,
                .param .align 8 .b8 h[1],
                .param .s8 i
            )
            { ret; }
            .visible .entry empty() { ret; }
            .visible .entry big(.param .align 4 .b8 blob[4000], .param .u64 tail) { ret; }
            """;

    record Kparam(int ordinal, int offset, int size) {}

    @Test
    void layoutsMatchPtxas() throws Exception {
        Path ptxas = PtxasTest.ptxas();
        assumeTrue(ptxas != null, "ptxas not found (no CUDA toolkit on PATH or in /usr/local/cuda/bin): skipping the parameter layout cross-check");
        List<String> sources = new ArrayList<>();
        sources.add(HANDWRITTEN);
        for (Path f : Corpus.files()) if (f.getFileName().toString().endsWith(".sm_90.ptx")) sources.add(Corpus.read(f));
        int kernels = 0;
        for (int n = 0; n < sources.size(); n++) {
            Path ptx = tmp.resolve("m" + n + ".ptx");
            Files.writeString(ptx, sources.get(n), StandardCharsets.ISO_8859_1);
            Path cubin = tmp.resolve("m" + n + ".cubin");
            PtxasTest.ProcessResult r = PtxasTest.runPtxas(ptxas, ptx, "sm_90", cubin);
            assertEquals(0, r.exit(), r.output());
            Map<String, byte[]> info = nvInfoSections(Files.readAllBytes(cubin));
            ModuleModel m = Semantics.analyze(Ptx.parseOrThrow(sources.get(n), ptx.toString()), ptx.toString());
            assertEquals(List.of(), m.diagnostics());
            for (FunctionInfo k : m.kernels()) {
                byte[] sec = info.get(".nv.info." + k.name());
                assertNotNull(sec, "no .nv.info section for " + k.name());
                Map<Integer, Kparam> byOrdinal = new HashMap<>();
                int[] cbankSize = {-1};
                parseAttributes(sec, byOrdinal, cbankSize);
                assertEquals(k.params().size(), byOrdinal.size(), k.name());
                for (ParamInfo p : k.params()) {
                    Kparam kp = byOrdinal.get(p.index());
                    assertNotNull(kp, k.name() + " param " + p.index());
                    assertEquals(kp.offset(), p.offset(), k.name() + "." + p.name() + " offset");
                    assertEquals(kp.size(), p.size(), k.name() + "." + p.name() + " size");
                }
                if (cbankSize[0] >= 0) assertEquals(cbankSize[0], k.paramSize(), k.name() + " parameter buffer size");
                kernels++;
            }
        }
        assertTrue(kernels >= 10, "only " + kernels + " kernels checked");
    }

    /** The contents of every {@code .nv.info.*} section of an ELF64 little-endian cubin, by name. */
    static Map<String, byte[]> nvInfoSections(byte[] elf) {
        ByteBuffer b = ByteBuffer.wrap(elf).order(ByteOrder.LITTLE_ENDIAN);
        long shoff = b.getLong(0x28);
        int shentsize = Short.toUnsignedInt(b.getShort(0x3A));
        int shnum = Short.toUnsignedInt(b.getShort(0x3C));
        int shstrndx = Short.toUnsignedInt(b.getShort(0x3E));
        long strOff = b.getLong((int) (shoff + (long) shstrndx * shentsize) + 0x18);
        Map<String, byte[]> out = new HashMap<>();
        for (int i = 0; i < shnum; i++) {
            int h = (int) (shoff + (long) i * shentsize);
            int nameOff = b.getInt(h);
            long off = b.getLong(h + 0x18), size = b.getLong(h + 0x20);
            int s = (int) (strOff + nameOff), e = s;
            while (elf[e] != 0) e++;
            String name = new String(elf, s, e - s, StandardCharsets.US_ASCII);
            if (name.startsWith(".nv.info.")) {
                byte[] data = new byte[(int) size];
                System.arraycopy(elf, (int) off, data, 0, (int) size);
                out.put(name, data);
            }
        }
        return out;
    }

    /** EIATTR records: format byte, attribute byte, then 2-byte value (format 3) or 2-byte length + data (format 4). */
    static void parseAttributes(byte[] sec, Map<Integer, Kparam> params, int[] cbankSize) {
        ByteBuffer b = ByteBuffer.wrap(sec).order(ByteOrder.LITTLE_ENDIAN);
        int p = 0;
        while (p + 4 <= sec.length) {
            int fmt = sec[p] & 0xFF, attr = sec[p + 1] & 0xFF;
            int value = Short.toUnsignedInt(b.getShort(p + 2));
            if (fmt == 4) {
                if (attr == 0x17) {
                    int ordinal = Short.toUnsignedInt(b.getShort(p + 8));
                    int offset = Short.toUnsignedInt(b.getShort(p + 10));
                    int size = (b.getInt(p + 12) >>> 18) & 0x3FFF;
                    params.put(ordinal, new Kparam(ordinal, offset, size));
                }
                p += 4 + value;
            } else {
                if (fmt == 3 && attr == 0x19) cbankSize[0] = value;
                p += fmt == 1 ? 2 : 4;
            }
        }
    }
}
