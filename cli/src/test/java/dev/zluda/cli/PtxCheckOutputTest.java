package dev.zluda.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** zluda ptx check writes through a buffer what PtxCheck prints, character for character. */
class PtxCheckOutputTest {
    @TempDir
    Path tmp;

    /** Multi-byte characters split across writes and across the buffer's blocks come out whole. */
    @Test
    void theBufferedStreamDecodesCharactersSplitAcrossWrites() {
        StringWriter sw = new StringWriter();
        PtxCommand.WriterOutputStream w = new PtxCommand.WriterOutputStream(new PrintWriter(sw));
        String text = "ptx: ärger → ✓ 𝔘 ".repeat(3000);
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < b.length; ) {
            int n = Math.min(b.length - i, 1 + (i * 7919) % 13); // writes of 1..13 bytes, cutting characters anywhere
            w.write(b, i, n);
            i += n;
        }
        w.flush();
        assertEquals(text, sw.toString());
    }

    /** The command's output is what PtxCheck.run prints, for a file with a 400 KB line. */
    @Test
    void theCommandPrintsWhatTheCheckPrints() throws Exception {
        Path f = tmp.resolve("long.ptx");
        Files.writeString(f, ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n " + "a".repeat(400_000) + ";\n ret;\n}\n");
        ByteArrayOutputStream direct = new ByteArrayOutputStream();
        int exit = dev.zluda.ptx.PtxCheck.run(List.of(f), new PrintStream(direct, true, StandardCharsets.UTF_8), false);
        CliRun.Result r = CliRun.run("ptx", "check", f.toString());
        assertEquals(exit, r.code());
        assertEquals(direct.toString(StandardCharsets.UTF_8), r.out());
    }
}
