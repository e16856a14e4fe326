package dev.zluda.diff;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.imageio.ImageIO;
import javax.xml.parsers.DocumentBuilderFactory;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;

import static org.junit.jupiter.api.Assertions.*;

/** The three reports of one diff with a result and a data divergence. */
class ReportTest {
    @TempDir
    static Path tmp;
    static DiffResult r;

    @BeforeAll
    static void diff() throws Exception {
        Path b = Rewrite.copy(DiffEngineTest.VECTOR_ADD, tmp.resolve("b"), new Rewrite.Editor() {
            @Override
            public void leave(Rewrite.Call c) {
                if (c.ordinal == 14) c.result = 700;
                if (c.ordinal != 15) return;
                try {
                    byte[] x = Rewrite.blobBytes(c, c.out.getFirst()).clone();
                    ByteBuffer bb = ByteBuffer.wrap(x).order(ByteOrder.LITTLE_ENDIAN);
                    for (int i = 512; i < 544; i++) bb.putFloat(i * 4, -bb.getFloat(i * 4) - 1);
                    c.out.set(0, c.blob(0, x));
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            }
        });
        r = DiffEngine.diff(DiffEngineTest.VECTOR_ADD, b, DiffOptions.defaults());
    }

    /**
     * The HTML report's captures table names the device each program saw (the manifests name none: the
     * first cuDeviceGetName's answer) and right-aligns its number columns, headers included; so does the
     * threads table (docs/images/report-html-demo.png shows it in Chromium).
     */
    @Test
    void htmlNamesTheDeviceAndAlignsItsNumbers() {
        StringWriter s = new StringWriter();
        HtmlReport.write(r, new PrintWriter(s));
        String html = s.toString();
        assertEquals("NVIDIA H200", r.a().device());
        assertTrue(html.contains("</td><td>NVIDIA H200</td><td class=\"num\">"), "device column filled");
        assertTrue(html.contains("<th class=\"num\">calls</th><th class=\"num\">threads</th>"), html);
        assertTrue(html.contains("<h2>Threads</h2><table class=\"narrow\"><tr><th class=\"num\">A thread</th><th class=\"num\">B thread</th>"), html);
        assertTrue(html.contains("th.num,td.num{text-align:right"), "headers of number columns align with their numbers");
    }

    @Test
    void html() throws Exception {
        StringWriter s = new StringWriter();
        HtmlReport.write(r, new PrintWriter(s));
        String html = s.toString();
        assertFalse(html.replace("http://www.w3.org/1999/xhtml", "").matches("(?s).*(src|href)=\"https?:.*"), "nothing from the network");
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(html.getBytes(StandardCharsets.UTF_8)));
        Element first = byId(doc, "first");
        assertNotNull(first);
        String card = first.getNextSibling() != null ? first.getParentNode().getTextContent() : "";
        assertTrue(card.contains("cuCtxSynchronize") && card.contains("A call 14, B call 14"), card);
        assertNotNull(byId(doc, "go-first"), "a link to the first divergence");
        assertNotNull(byId(doc, "d2"), "the second diverging call");
        NodeList imgs = doc.getElementsByTagName("img");
        assertEquals(1, imgs.getLength());
        String src = ((Element) imgs.item(0)).getAttribute("src");
        assertTrue(src.startsWith("data:image/png;base64,"));
        BufferedImage img = ImageIO.read(new ByteArrayInputStream(Base64.getDecoder().decode(src.substring(src.indexOf(',') + 1))));
        // 1024 elements: 32 x 32 cells of 16 x 16 pixels; row 16 (elements 512..543) differs
        assertEquals(512, img.getWidth());
        assertEquals(Heatmap.color(0), img.getRGB(8, 8) & 0xFFFFFF);
        assertNotEquals(Heatmap.color(0), img.getRGB(8, 16 * 16 + 8) & 0xFFFFFF);
    }

    @Test
    void json() throws Exception {
        StringWriter s = new StringWriter();
        JsonReport.write(r, s);
        JsonNode j = new ObjectMapper().readTree(s.toString());
        assertEquals(2, j.path("divergingCalls").asInt());
        assertEquals("result", j.path("firstDivergence").path("kind").asText());
        JsonNode data = j.path("divergences").get(1).path("differences").get(0).path("data");
        assertEquals(512, data.path("firstElement").asInt());
        assertEquals(32, data.path("differing").asInt());
        assertEquals("f32", data.path("elementType").asText());
    }

    @Test
    void text() {
        StringWriter s = new StringWriter();
        TextReport.write(r, new PrintWriter(s));
        assertTrue(s.toString().contains("First divergence: A call 14, B call 14: cuCtxSynchronize (result)"), s.toString());
        assertTrue(s.toString().contains("f32 element 512 (byte offset 0x800)"), s.toString());
    }

    static Element byId(Document d, String id) {
        NodeList all = d.getElementsByTagName("*");
        for (int i = 0; i < all.getLength(); i++) if (((Element) all.item(i)).getAttribute("id").equals(id)) return (Element) all.item(i);
        return null;
    }
}
