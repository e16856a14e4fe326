package dev.zluda.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One convention for the errors of every command: the first line on stderr is
 * {@code zluda <command>: error: <what>}, exit code 2; usage errors add the command's usage line
 * and where its help is, never picocli's raw message or a stack trace.
 */
class ErrorMessagesTest {
    private static final Pattern ERROR_LINE = Pattern.compile("zluda( [a-z]+)*: error: \\S.*");

    private static CliRun.Result failing(String command, String... args) {
        CliRun.Result r = CliRun.run(args);
        assertEquals(2, r.code(), String.join(" ", args) + ": " + r.out() + r.err());
        String first = r.err().lines().findFirst().orElse("");
        assertTrue(ERROR_LINE.matcher(first).matches(), "first line: " + first);
        assertTrue(first.startsWith(command + ": error: "), "first line: " + first);
        assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), r.err());
        return r;
    }

    @Test
    void everyCommandSaysErrorsTheSameWay(@TempDir Path tmp) throws IOException {
        Path empty = Files.write(tmp.resolve("empty.zcap"), new byte[0]);
        Path h200 = Path.of(System.getProperty("zluda.repo", "..")).resolve("samples/traces/h200/vectorAdd");
        failing("zluda dump", "dump", empty.toString());
        failing("zluda info", "info", tmp.resolve("nope").toString());
        failing("zluda convert", "convert", tmp.resolve("nope").toString(), tmp.resolve("out.jsonl").toString(), "--to", "jsonl");
        failing("zluda pack", "pack", tmp.resolve("nope").toString(), "-o", tmp.resolve("p.zip").toString());
        failing("zluda diff", "diff", h200.toString(), tmp.resolve("nope").toString());
        failing("zluda replay", "replay", tmp.resolve("nope").toString(), "--kernel", "1");
        failing("zluda spec", "spec", "cuNoSuchFunction");
        failing("zluda ptx compile", "ptx", "compile", tmp.resolve("nope.ptx").toString(), "--target", "gfx1100", "-o", tmp.resolve("x").toString());
        ViewCommand.env = Map.<String, String>of()::get;
        try {
            failing("zluda view", "view", tmp.toString());
        } finally {
            ViewCommand.env = System::getenv;
        }
        failing("zluda", "dfif");
    }

    /** A file name that starts with '-' is taken for an option: the error says so and how to pass it. */
    @Test
    void anArgumentThatLooksLikeAnOptionIsNamed() {
        CliRun.Result r = failing("zluda diff", "diff", "-x.zcap", "b.zcap");
        assertTrue(r.err().contains("zluda diff: error: missing argument B"), r.err());
        assertTrue(r.err().contains("'-x.zcap' is not an option of zluda diff; if it is a file name, write ./-x.zcap"), r.err());
        assertTrue(r.err().contains("  usage: zluda diff [-hvV]") && r.err().contains(" A B\n"), r.err());
        assertTrue(r.err().contains("  see: zluda diff --help"), r.err());
        assertFalse(r.err().contains("Missing required parameter"), "picocli's own words: " + r.err());
    }

    @Test
    void unknownOptionsMissingValuesAndExtraArgumentsAreSaidInOneLine() {
        CliRun.Result r = failing("zluda diff", "diff", "--bogus", "a", "b");
        assertTrue(r.err().startsWith("zluda diff: error: unknown option '--bogus'\n"), r.err());
        assertTrue(r.err().contains("  usage: zluda diff "), r.err());
        r = failing("zluda diff", "diff", "a", "b", "c");
        assertTrue(r.err().startsWith("zluda diff: error: unexpected argument 'c'\n"), r.err());
        r = failing("zluda diff", "diff", "a", "b", "--format");
        assertTrue(r.err().startsWith("zluda diff: error: option --format needs a value (FORMAT)\n"), r.err());
        r = failing("zluda ptx check", "ptx", "check");
        assertTrue(r.err().startsWith("zluda ptx check: error: missing argument FILE\n"), r.err());
        assertTrue(r.err().contains("  usage: zluda ptx check [-hV] [--summary] FILE..."), r.err());
        assertTrue(r.err().contains("  see: zluda ptx check --help"), r.err());
        r = failing("zluda replay", "replay", "x", "--kernel", "1", "-o", "out", "--no-capture");
        assertTrue(r.err().startsWith("zluda replay: error: -o and --no-capture exclude each other\n"), r.err());
    }

    /** {@code zluda ptx} alone is a usage error as {@code zluda} alone is; an unknown target names the valid ones. */
    @Test
    void ptxWithoutACommandAndAnUnknownTargetAreUsageErrors(@TempDir Path tmp) {
        CliRun.Result r = CliRun.run("ptx");
        assertEquals(2, r.code(), r.out() + r.err());
        assertTrue(r.err().contains("Usage: zluda ptx") && r.out().isEmpty(), "the usage on stderr: " + r.out() + r.err());
        r = failing("zluda ptx compile", "ptx", "compile", "k.ptx", "--target", "gfx9999", "-o", tmp.resolve("x").toString());
        assertTrue(r.err().startsWith("zluda ptx compile: error: unknown target 'gfx9999'; valid targets: gfx1030, gfx1100, gfx90a, gfx942, sm_90\n"), r.err());
        assertTrue(r.err().contains("  usage: zluda ptx compile ") && r.err().contains("  see: zluda ptx compile --help"), r.err());
    }

    /** A path that does not exist is said in the same words by every command that reads a capture. */
    @Test
    void aMissingCaptureIsSaidTheSameWayEverywhere(@TempDir Path tmp) {
        String nope = tmp.resolve("nosuch").toString();
        ViewCommand.env = Map.<String, String>of()::get;
        try {
            for (String cmd : new String[] {"dump", "info", "view"}) {
                CliRun.Result r = failing("zluda " + cmd, cmd, nope);
                assertTrue(r.err().startsWith("zluda " + cmd + ": error: " + nope + ": no such file or directory"), r.err());
            }
        } finally {
            ViewCommand.env = System::getenv;
        }
        CliRun.Result d = failing("zluda diff", "diff", nope, nope);
        assertTrue(d.err().startsWith("zluda diff: error: " + nope + ": no such file or directory"), d.err());
    }

    /** {@code zluda --bogus}: an unknown option is called one, not an unknown command. */
    @Test
    void anUnknownOptionOfZludaItselfIsAnOption() {
        CliRun.Result r = failing("zluda", "--bogus");
        assertTrue(r.err().startsWith("zluda: error: unknown option '--bogus'\n"), r.err());
        assertFalse(r.err().contains("unknown command"), r.err());
        r = failing("zluda", "bogus");
        assertTrue(r.err().startsWith("zluda: error: unknown command 'bogus'; commands: "), r.err());
    }

    /**
     * A write error names the file and why (convert, pack, diff -o): a directory that does not exist, a full disk
     * (/dev/full: every write fails with ENOSPC), a file in the way of a directory; permission denied in words.
     */
    @Test
    void writeErrorsSayWhatFailedAndWhy(@TempDir Path tmp) throws IOException {
        String h200 = Path.of(System.getProperty("zluda.repo", "..")).resolve("samples/traces/h200/vectorAdd").toString();
        Path nodir = tmp.resolve("nodir");
        CliRun.Result r = failing("zluda convert", "convert", h200, nodir.resolve("out.jsonl").toString(), "--to", "jsonl");
        assertEquals("zluda convert: error: cannot write " + nodir.resolve("out.jsonl") + ": no such directory: " + nodir, r.err().strip());
        r = failing("zluda convert", "convert", h200, "/dev/full", "--to", "jsonl");
        assertTrue(r.err().startsWith("zluda convert: error: cannot write /dev/full: disk full (No space left on device)"), r.err());
        r = failing("zluda pack", "pack", h200, "-o", nodir.resolve("p.zip").toString());
        assertEquals("zluda pack: error: cannot write " + nodir.resolve("p.zip") + ": no such directory: " + nodir, r.err().strip());
        r = failing("zluda diff", "diff", h200, h200, "-o", nodir.resolve("r.html").toString(), "--format", "html");
        assertEquals("zluda diff: error: cannot write " + nodir.resolve("r.html") + ": no such directory: " + nodir, r.err().strip());
        r = failing("zluda diff", "diff", h200, h200, "-o", "/dev/full");
        assertTrue(r.err().startsWith("zluda diff: error: cannot write /dev/full: disk full (No space left on device)"), r.err());
        Path file = Files.writeString(tmp.resolve("file"), "x");
        r = failing("zluda convert", "convert", h200, file.resolve("out").toString(), "--to", "parquet");
        assertTrue(r.err().startsWith("zluda convert: error: cannot write " + file.resolve("out") + ": "), r.err());
        assertTrue(r.err().contains(file.toString()), "names what is in the way: " + r.err());
        // as root nothing is denied here: the words for it, from the exception Java throws
        assertEquals("permission denied (check the permissions of /etc)",
                Main.why(new java.nio.file.AccessDeniedException("/etc/x"), Path.of("/etc/x")));
        assertEquals("read-only file system", Main.why(new java.nio.file.FileSystemException("/x", null, "Read-only file system"), Path.of("/x")));
    }
}
