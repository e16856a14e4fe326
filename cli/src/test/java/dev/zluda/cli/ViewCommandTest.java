package dev.zluda.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** {@code zluda view} without a display says so (the window itself is tested in diff-viewer). */
class ViewCommandTest {
    @AfterEach
    void restore() {
        ViewCommand.env = System::getenv;
    }

    @Test
    void withoutADisplayItSaysSoAndExits2() {
        ViewCommand.env = Map.<String, String>of()::get;
        CliRun.Result r = CliRun.run("view", "../samples/traces/h200/vectorAdd");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("zluda view: error: no display to open a window on: DISPLAY is not set"), r.err());
        assertTrue(r.err().contains("xvfb-run zluda view CAPTURE"), r.err());
        assertFalse(r.err().contains("Exception"), r.err());
        assertEquals("", r.out());
    }

    @Test
    void twoCapturesWithoutADisplaySayItToo() {
        ViewCommand.env = Map.<String, String>of()::get;
        CliRun.Result r = CliRun.run("view", "../samples/traces/h200/vectorAdd", "../samples/traces/h200/vectorAdd-replay");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("zluda view: error: no display to open a window on"), r.err());
    }

    @Test
    void aMissingSecondCaptureIsNamed() {
        ViewCommand.env = Map.of("DISPLAY", ":0")::get;
        CliRun.Result r = CliRun.run("view", "../samples/traces/h200/vectorAdd", "../samples/traces/h200/nothing-here");
        assertEquals(2, r.code(), r.err());
        assertEquals("zluda view: error: ../samples/traces/h200/nothing-here: no such file or directory", r.err().strip(), "as dump and diff say it");
    }

    /** A missing path or a directory that is no capture is said before the missing display, exit 2 as dump and info. */
    @Test
    void theCaptureIsCheckedBeforeTheDisplay() {
        ViewCommand.env = Map.<String, String>of()::get;
        CliRun.Result r = CliRun.run("view", "/nonexistent");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("zluda view: error: /nonexistent: no such file or directory"), r.err());
        assertFalse(r.err().contains("DISPLAY"), r.err());
        r = CliRun.run("view", "src", "--screenshot", "x.png");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("zluda view: error: src: is not a capture directory (no capture.zcap)"), r.err());
        assertTrue(r.err().contains("see: zluda view --help"), r.err());
    }

    @Test
    void helpDescribesIt() {
        CliRun.Result r = CliRun.run("view", "--help");
        assertEquals(0, r.code());
        assertTrue(r.out().contains("Usage: zluda view [-hV] [--divergence=N] [--font-size=PX] [--screenshot=PNG]"), r.out());
        assertTrue(r.out().contains("[--size=WxH] [--theme=THEME] [CAPTURE] [OTHER]"), r.out());
        assertTrue(r.out().contains("light (default) or dark"), "the dark theme is said: " + r.out());
        assertTrue(r.out().contains("side by side"), r.out());
        assertFalse(r.out().contains("--benchmark"), "hidden options stay hidden");
    }

    /** A file that is not a capture (a text file) is reported as such before the missing display. */
    @Test
    void aFileThatIsNoCaptureIsSaidBeforeTheDisplay(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp) throws Exception {
        ViewCommand.env = Map.<String, String>of()::get;
        java.nio.file.Path txt = java.nio.file.Files.writeString(tmp.resolve("notacapture.txt"), "hello, I am a text file\n");
        CliRun.Result r = CliRun.run("view", txt.toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("zluda view: error: " + txt), r.err());
        assertFalse(r.err().contains("DISPLAY") || r.err().contains("display"), "the bad file first, not the display:\n" + r.err());
        CliRun.Result two = CliRun.run("view", "../samples/traces/h200/vectorAdd", txt.toString());
        assertEquals(2, two.code(), two.err());
        assertTrue(two.err().startsWith("zluda view: error: " + txt), two.err());
    }
}
