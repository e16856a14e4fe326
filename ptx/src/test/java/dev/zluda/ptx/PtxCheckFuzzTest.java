package dev.zluda.ptx;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@code zluda ptx check} on mutated corpus files, the whole command (parse, analysis, the table, the
 * AMD lowering of files without errors): 300 seeded mutations ({@link FuzzTest#mutate}), each read from
 * a file as a user hands it over. No exception escapes, the exit code is one of the four the command
 * documents, and every error line is FILE:LINE:COL: error: with a position inside the file.
 * {@link FuzzTest} covers the front end alone with many more inputs.
 */
class PtxCheckFuzzTest {
    @TempDir
    Path tmp;

    static final Pattern ERROR = Pattern.compile("^(.*):(\\d+):(\\d+): (error|warning): .+");

    @Test
    void mutatedFilesGiveDiagnosticsNeverExceptions() throws Exception {
        Random rnd = new Random(Long.getLong("zluda.fuzz.seed", 0x29L));
        List<String> inputs = new ArrayList<>();
        for (var f : Corpus.files()) if (f.getFileName().toString().contains(".sm_90.")) inputs.add(Corpus.read(f));
        int withErrors = 0, clean = 0;
        long deadline = System.nanoTime() + 60_000_000_000L;
        int n = 0;
        for (; n < 300 && System.nanoTime() < deadline; n++) {
            String text = FuzzTest.mutate(inputs.get(rnd.nextInt(inputs.size())), rnd);
            Path f = tmp.resolve("m" + n + ".ptx");
            Files.write(f, text.getBytes(StandardCharsets.ISO_8859_1));
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            int exit;
            try {
                exit = PtxCheck.run(List.of(f), new PrintStream(bytes, false, StandardCharsets.UTF_8), false);
            } catch (Throwable t) {
                throw new AssertionError("mutation " + n + " threw", t);
            }
            assertTrue(exit == PtxCheck.OK || exit == PtxCheck.ERRORS || exit == PtxCheck.UNSUPPORTED, "mutation " + n + ": exit " + exit);
            long lines = text.chars().filter(c -> c == '\n').count() + 1;
            for (String l : bytes.toString(StandardCharsets.UTF_8).split("\n")) {
                if (!l.contains(": error: ") && !l.contains(": warning: ")) continue;
                var m = ERROR.matcher(l);
                assertTrue(m.matches() && m.group(1).equals(f.toString()), "mutation " + n + ": " + l);
                assertTrue(Long.parseLong(m.group(2)) <= lines, "mutation " + n + ": line outside the file: " + l);
            }
            if (exit == PtxCheck.ERRORS) withErrors++;
            else clean++;
        }
        assertTrue(n >= 50, "only " + n + " mutations in 60 s");
        System.out.printf("ptx check fuzz: %d mutated files, %d with errors reported, %d without, 0 exceptions%n", n, withErrors, clean);
    }
}
