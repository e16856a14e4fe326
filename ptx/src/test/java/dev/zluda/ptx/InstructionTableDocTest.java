package dev.zluda.ptx;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/**
 * docs/support.md is generated from {@link InstructionTable}. When the table changes, run this test
 * with {@code -Dzluda.regen=true} to rewrite the file.
 */
class InstructionTableDocTest {
    @Test
    void supportDocMatchesTheTable() throws Exception {
        Path doc = Path.of("docs/support.md");
        if (!Files.isDirectory(Path.of("docs")) && Files.isDirectory(Path.of("ptx/docs"))) doc = Path.of("ptx/docs/support.md");
        String expected = InstructionTable.toMarkdown();
        if (Boolean.getBoolean("zluda.regen")) {
            Files.createDirectories(doc.getParent() == null ? Path.of(".") : doc.getParent());
            Files.writeString(doc, expected);
        }
        assertTrue(Files.exists(doc), doc + " missing; run with -Dzluda.regen=true");
        assertEquals(expected, Files.readString(doc), doc + " is stale; run this test with -Dzluda.regen=true");
    }

    @Test
    void lookupPrefersTheLongestFamily() {
        assertEquals("cp.async.bulk.tensor", InstructionTable.lookup("cp", java.util.List.of(".async", ".bulk", ".tensor", ".2d")).key());
        assertEquals("cp.async", InstructionTable.lookup("cp", java.util.List.of(".async", ".ca", ".shared", ".global")).key());
        assertEquals("add.cc", InstructionTable.lookup("add", java.util.List.of(".cc", ".u32")).key());
        assertEquals("add", InstructionTable.lookup("add", java.util.List.of(".f32")).key());
        assertNull(InstructionTable.lookup("frob", java.util.List.of()));
        var add = InstructionTable.lookup("add", java.util.List.of());
        assertEquals("9.7.1", InstructionTable.isaSection(add, java.util.List.of(".s32")));
        assertEquals("9.7.3", InstructionTable.isaSection(add, java.util.List.of(".rn", ".f64")));
        assertEquals("9.7.4", InstructionTable.isaSection(add, java.util.List.of(".rn", ".f16x2")));
        assertEquals("9.7.7", InstructionTable.isaSection(InstructionTable.lookup("setp", java.util.List.of()), java.util.List.of(".lt", ".f16")));
        // every family key is unique and its opcode is a plain identifier
        assertEquals(InstructionTable.families().size(),
                InstructionTable.families().stream().map(InstructionTable.Family::key).distinct().count());
    }
}
