package dev.zluda.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zluda.capture.CaptureFormat;
import dev.zluda.capture.CaptureReader;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.CaptureWriter;
import dev.zluda.capture.DataItem;
import dev.zluda.capture.DataItems;
import dev.zluda.capture.ThreadLog;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.imageio.ImageIO;
import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** zluda diff on an H200 capture: against itself, against a copy with two planted divergences, bad input. */
class DiffCommandTest {
    static final Path A = Path.of("..", "samples", "traces", "h200", "vectorAdd-replay");
    @TempDir
    static Path tmp;
    static Path b;

    /**
     * B: a copy of A in which call 14 (cuCtxSynchronize) returns CUDA_ERROR_ILLEGAL_ADDRESS and the
     * data of call 15 (cuMemcpyDtoH_v2) differs at f32 element 5.
     */
    @BeforeAll
    static void plant() throws Exception {
        b = Files.createDirectories(tmp.resolve("b"));
        Files.copy(A.resolve("manifest.json"), b.resolve("manifest.json"));
        try (CaptureReader r = CaptureReader.open(A.resolve("capture.zcap"))) {
            CaptureWriter w = CaptureWriter.create(b.resolve("capture.zcap"), CaptureWriter.Options.defaults().withGrowStep(4L << 20), r.functions());
            Map<Long, ThreadLog> logs = new HashMap<>();
            Map<Long, Long> seqs = new HashMap<>();
            Map<Long, Long> ordinals = new HashMap<>();
            Map<Long, byte[]> blobs = new HashMap<>();
            DataItems items = new DataItems();
            long ordinal = 0;
            for (CaptureRecord rec : r) {
                ThreadLog t = logs.computeIfAbsent(rec.threadId(), w::thread);
                switch (rec) {
                    case CaptureRecord.Enter e -> {
                        items.clear();
                        e.data().forEach(items::add);
                        seqs.put(e.seq(), t.enter(e.functionId(), e.depth(), e.ts(), e.args(), items));
                        ordinals.put(e.seq(), ++ordinal);
                    }
                    case CaptureRecord.Leave l -> {
                        long n = ordinals.get(l.enterSeq());
                        items.clear();
                        for (DataItem d : l.data()) {
                            if (n == 15 && d.kind() == CaptureFormat.ITEM_BLOB) {
                                byte[] x = blobs.get(d.hash()).clone();
                                ByteBuffer bb = ByteBuffer.wrap(x).order(ByteOrder.LITTLE_ENDIAN);
                                bb.putFloat(20, bb.getFloat(20) * 2 + 1);
                                items.blob(d.param(), t.blob(x, 0, x.length, CaptureFormat.COMPRESSION_NONE, l.ts()), x.length);
                            } else {
                                items.add(d);
                            }
                        }
                        t.leave(seqs.get(l.enterSeq()), l.ts(), n == 14 ? 700 : l.result(), items);
                    }
                    case CaptureRecord.Blob bl -> {
                        byte[] s = bl.stored().toArray(ValueLayout.JAVA_BYTE);
                        blobs.put(bl.hash(), s);
                        t.rawBlob(bl.hash(), bl.size(), bl.compression(), s, 0, s.length, bl.ts());
                    }
                    case CaptureRecord.StringDef s -> t.stringDef(s.id(), s.text(), s.ts());
                    default -> { }
                }
            }
            w.close();
        }
    }

    @Test
    void aCaptureIsTheSameAsItself() {
        CliRun.Result r = CliRun.run("diff", A.toString(), A.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("SAME: no divergence in 20 paired calls"), r.out());
    }

    @Test
    void textNamesTheFirstDivergence() {
        CliRun.Result r = CliRun.run("diff", A.toString(), b.toString());
        assertEquals(1, r.code(), r.err());
        assertTrue(r.out().contains("DIFFERENT: 2 diverging calls (1 result, 1 data)"), r.out());
        assertTrue(r.out().contains("First divergence: A call 14, B call 14: cuCtxSynchronize (result)"), r.out());
        assertTrue(r.out().contains("f32 element 5 (byte offset 0x14)"), r.out());
    }

    @Test
    void jsonForScripts() throws Exception {
        CliRun.Result r = CliRun.run("diff", "--format", "json", A.toString(), b.toString());
        assertEquals(1, r.code(), r.err());
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertFalse(j.path("same").asBoolean());
        assertEquals(14, j.path("firstDivergence").path("a").path("call").asInt());
        assertEquals(14, j.path("firstDivergence").path("b").path("call").asInt());
        assertEquals("result", j.path("firstDivergence").path("kind").asText());
        assertEquals(1, j.path("counts").path("result").asInt());
        assertEquals(1, j.path("counts").path("data").asInt());
        JsonNode data = j.path("divergences").get(1).path("differences").get(0).path("data");
        assertEquals(5, data.path("firstElement").asInt());
        assertEquals(20, data.path("byteOffset").asInt());
    }

    @Test
    void htmlIsOneFileWithTheFirstDivergenceAndAHeatmap() throws Exception {
        Path out = tmp.resolve("diff.html");
        CliRun.Result r = CliRun.run("diff", "--format", "html", "-o", out.toString(), A.toString(), b.toString());
        assertEquals(1, r.code(), r.err());
        String html = Files.readString(out);
        assertFalse(html.contains("http://") && html.replace("http://www.w3.org/1999/xhtml", "").contains("http://"), "no network references");
        var doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(html.getBytes()));
        Element first = null;
        NodeList all = doc.getElementsByTagName("*");
        for (int i = 0; i < all.getLength(); i++) if (((Element) all.item(i)).getAttribute("id").equals("first")) first = (Element) all.item(i);
        assertNotNull(first, "an element with id=first");
        assertTrue(first.getParentNode().getTextContent().contains("cuCtxSynchronize"));
        NodeList imgs = doc.getElementsByTagName("img");
        assertTrue(imgs.getLength() > 0);
        String src = ((Element) imgs.item(0)).getAttribute("src");
        assertTrue(src.startsWith("data:image/png;base64,"), src.substring(0, Math.min(40, src.length())));
        var img = ImageIO.read(new ByteArrayInputStream(Base64.getDecoder().decode(src.substring(src.indexOf(',') + 1))));
        assertNotNull(img);
        assertTrue(img.getWidth() >= 32);
    }

    @Test
    void badInputNamesTheFileAndExits2() throws Exception {
        Path junk = Files.writeString(tmp.resolve("junk.zcap"), "junk");
        CliRun.Result r = CliRun.run("diff", A.toString(), junk.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("junk.zcap") && r.err().contains("not a zluda capture"), r.err());
        CliRun.Result missing = CliRun.run("diff", tmp.resolve("nope").toString(), A.toString());
        assertEquals(2, missing.code());
        assertTrue(missing.err().contains("nope"), missing.err());
        assertEquals(2, CliRun.run("diff", "--format", "xml", A.toString(), A.toString()).code());
        assertEquals(2, CliRun.run("diff", "--rtol", "-1", A.toString(), A.toString()).code());
        assertEquals(2, CliRun.run("diff", "--type", "f128", A.toString(), A.toString()).code());
    }

    /**
     * gemm_lt_demo on NVIDIA's cuBLAS against zluda's (samples/traces/pairs): the calls inside the library
     * calls are counted as 'library internal' and left out; --library-internals compares them.
     */
    @Test
    void libraryInternalsAreLeftOutUnlessAskedFor() {
        String nv = "../samples/traces/pairs/gemm_lt_demo-libs-nvidia.zip", zl = "../samples/traces/pairs/gemm_lt_demo-libs-zluda.zip";
        CliRun.Result r = CliRun.run("diff", nv, zl);
        assertEquals(1, r.code(), r.err());
        // cuMemAlloc_v2/cuMemFree_v2 of the workspace NVIDIA's heuristic asked for, and cudart's primary-context
        // release at exit (cuGetExportTable's different result is an expected difference: export table)
        assertTrue(r.out().contains("DIFFERENT: 3 diverging calls"), r.out());
        assertTrue(r.out().matches("(?s).*Ignored \\(expected differences; --strict compares them\\):.* [0-9]+ library internal.*"), r.out());
        CliRun.Result all = CliRun.run("diff", "--library-internals", nv, zl);
        assertEquals(1, all.code(), all.err());
        assertFalse(all.out().contains("library internal"), all.out());
        assertFalse(all.out().contains("DIFFERENT: 3 diverging calls"), "the calls inside NVIDIA's library calls diverge: " + all.out());
        assertTrue(CliRun.run("diff", "--help").out().contains("--library-internals"));
    }
}
