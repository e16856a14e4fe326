package dev.zluda.cli;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RunCommandTest {
    @Test
    void runsTheProgramWithZludasLibraryFirstAndReturnsItsExitCode(@TempDir Path tmp) throws Exception {
        Path lib = tmp.resolve("lib");
        Files.createDirectories(lib);
        Files.writeString(lib.resolve("libcuda.so.1"), "stand-in");
        Path out = tmp.resolve("out.txt");
        String old = System.getProperty("zluda.home");
        System.setProperty("zluda.home", tmp.toString());
        try {
            int code = Main.run("run", "--", "/bin/sh", "-c", "echo \"$LD_LIBRARY_PATH\" > " + out + "; exit 3");
            assertEquals(3, code, "the program's exit code passes through");
            assertTrue(Files.readString(out).startsWith(lib.toString()), Files.readString(out));
            assertEquals(127, Main.run("run", "--", tmp.resolve("no-such-program").toString()));
        } finally {
            if (old == null) System.clearProperty("zluda.home"); else System.setProperty("zluda.home", old);
        }
    }

    /**
     * zluda is the program's parent, so the shell never prints its "Segmentation fault" line: a plain run
     * (no trace) says how a program killed by a signal ended, and says nothing for one that exits.
     */
    @Test
    void aPlainRunSaysWhenTheProgramWasKilledByASignal(@TempDir Path tmp) throws Exception {
        withStandInDriver(tmp, (cl, err) -> {
            assertEquals(139, cl.execute("run", "--", "/bin/sh", "-c", "kill -SEGV $$"));
            assertTrue(err.toString().contains("zluda run: /bin/sh was killed by SIGSEGV (signal 11, segmentation fault: an invalid memory access); exit status 139"),
                    err.toString());
            assertFalse(err.toString().contains("capture"), "a plain run records nothing: " + err);

            err.getBuffer().setLength(0);
            assertEquals(3, cl.execute("run", "--", "/bin/sh", "-c", "exit 3"));
            assertEquals("", err.toString(), "a program that exits is not talked over");
        });
    }

    /**
     * A program killed before anything was recorded (e.g. while zluda's driver starts its Java runtime at
     * the first CUDA call) is not told that it may not have loaded libcuda.so.1: the summary says it was
     * killed, and by what.
     */
    @Test
    void aProgramKilledBeforeItsFirstRecordIsSaidToHaveBeenKilled(@TempDir Path tmp) throws Exception {
        withStandInDriver(tmp, (cl, err) -> {
            assertEquals(137, cl.execute("run", "--zluda-trace", "-o", tmp.resolve("logs").toString(), "--", "/bin/sh", "-c", "kill -9 $$"));
            String e = err.toString();
            assertTrue(e.contains("/bin/sh was killed by SIGKILL (signal 9, "), e);
            assertTrue(e.contains("warning: the program was killed by signal 9 (SIGKILL) before its first CUDA call was recorded: no capture in "), e);
            assertFalse(e.contains("did it load libcuda.so.1"), e);

            // killed after the recorder made the capture directory, before the capture file had its name
            err.getBuffer().setLength(0);
            assertEquals(137, cl.execute("run", "--zluda-trace", "-o", tmp.resolve("logs2").toString(), "--", "/bin/sh", "-c",
                    "mkdir \"$ZLUDA_LOG_DIR/sh\" && kill -9 $$"));
            e = err.toString();
            assertTrue(e.contains("killed by signal 9 (SIGKILL) while the recorder was starting: " + tmp.resolve("logs2/sh")
                    + " holds no capture file"), e);

            // no CUDA call at all, and a normal exit: the question whether it loaded libcuda.so.1 is the right one
            err.getBuffer().setLength(0);
            assertEquals(0, cl.execute("run", "--zluda-trace", "-o", tmp.resolve("logs3").toString(), "--", "/bin/sh", "-c", "exit 0"));
            assertTrue(err.toString().contains("it made no CUDA call through libcuda.so.1 (did it load it?"), err.toString());
        });
    }

    @Test
    void missingDriverIsAClearError(@TempDir Path tmp) {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/bin/true")));
        String old = System.getProperty("zluda.home");
        System.setProperty("zluda.home", tmp.toString());
        try {
            assertEquals(125, Main.run("run", "--", "/bin/true"));
        } finally {
            if (old == null) System.clearProperty("zluda.home"); else System.setProperty("zluda.home", old);
        }
    }

    @Test
    void howTheProgramEndedIsInTheCapture(@TempDir Path tmp) throws Exception {
        // a capture that ended cleanly, whose program then aborted (SIGABRT: 128 + 6)
        Path src = Path.of(System.getProperty("zluda.repo", "..")).resolve("samples/traces/h200/vectorAdd");
        Path dir = Files.createDirectories(tmp.resolve("vectorAdd"));
        for (String f : new String[] {"capture.zcap", "manifest.json"}) Files.copy(src.resolve(f), dir.resolve(f));
        RunCommand.recordExit(dir, 134, new java.io.PrintWriter(System.err, true));
        String info = CliRun.run("info", dir.toString()).out();
        assertTrue(info.contains("ended cleanly: yes"), info);
        assertTrue(info.contains("program exit: 134, killed by signal 6 after the recorder closed the capture (zluda run)"), info);
        RunCommand.recordExit(dir, 0, new java.io.PrintWriter(System.err, true));
        assertTrue(CliRun.run("info", dir.toString()).out().contains("program exit: 0 (zluda run)"));
    }

    @Test
    void aCaptureAnotherLiveProgramIsWritingIsNotThisRunsToTrim(@TempDir Path tmp) throws Exception {
        // two runs side by side with one -o folder: when one ends, the other's capture is still being written
        Path dir = Files.createDirectories(tmp.resolve("other"));
        Files.writeString(dir.resolve("capture.zcap"), "");
        Process live = new ProcessBuilder("sleep", "30").start();
        try {
            Files.writeString(dir.resolve("manifest.json"), "{\"pid\": " + live.pid() + "}");
            assertTrue(RunCommand.writtenByAnotherProcess(dir, live.pid() + 1), "a live writer other than the run's program");
            assertFalse(RunCommand.writtenByAnotherProcess(dir, live.pid()), "the run's own program");
        } finally {
            live.destroyForcibly().waitFor();
        }
        assertFalse(RunCommand.writtenByAnotherProcess(dir, 1), "its writer has ended: the capture is complete");
        Files.writeString(dir.resolve("manifest.json"), "{}");
        assertFalse(RunCommand.writtenByAnotherProcess(dir, 1), "a manifest without a process id");
    }

    @Test
    void nvidiaTraceWithoutAnNvidiaDriverRunsNothing(@TempDir Path tmp) throws Exception {
        Assumptions.assumeTrue(RunCommand.NVIDIA_DRIVER_PATHS.stream().noneMatch(p -> Files.exists(Path.of(p))), "this machine has NVIDIA's driver");
        Path lib = Files.createDirectories(tmp.resolve("lib/trace"));
        Files.writeString(lib.resolve("libcuda.so.1"), "stand-in tracer");
        Files.writeString(tmp.resolve("lib/libcuda.so.1"), "stand-in driver");
        Path ran = tmp.resolve("ran");
        String old = System.getProperty("zluda.home");
        System.setProperty("zluda.home", tmp.toString());
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        try {
            // zluda's own driver on LD_LIBRARY_PATH is not a driver to trace
            RunCommand.environment = java.util.Map.of("LD_LIBRARY_PATH", tmp.resolve("lib").toString());
            var cl = Main.commandLine();
            cl.setErr(new java.io.PrintWriter(err, true));
            assertEquals(125, cl.execute("run", "--nvidia-trace", "-o", tmp.resolve("logs").toString(), "--", "/usr/bin/touch", ran.toString()));
            assertTrue(err.toString().contains("no NVIDIA driver (libcuda.so.1) on LD_LIBRARY_PATH"), err.toString());
            assertFalse(Files.exists(ran), "the program must not run");
            assertFalse(Files.exists(tmp.resolve("logs")), "no capture of errors is left");
            RunCommand.environment = java.util.Map.of("ZLUDA_CUDA_LIB", tmp.resolve("nope/libcuda.so.1").toString());
            assertEquals(125, Main.run("run", "--nvidia-trace", "--", "/usr/bin/touch", ran.toString()));
            assertFalse(Files.exists(ran));
        } finally {
            RunCommand.environment = System.getenv();
            if (old == null) System.clearProperty("zluda.home"); else System.setProperty("zluda.home", old);
        }
    }

    @Test
    void zludaTraceSetsTheLogDirAndLevelAndAPlainRunClearsThem(@TempDir Path tmp) throws Exception {
        Path lib = tmp.resolve("lib");
        Files.createDirectories(lib);
        Files.writeString(lib.resolve("libcuda.so.1"), "stand-in");
        Path out = tmp.resolve("env.txt");
        Path logs = tmp.resolve("logs");
        String old = System.getProperty("zluda.home");
        System.setProperty("zluda.home", tmp.toString());
        try {
            String show = "echo \"$ZLUDA_LOG_DIR|$ZLUDA_CAPTURE_LEVEL\" > " + out;
            assertEquals(0, Main.run("run", "--zluda-trace", "-o", logs.toString(), "--level", "replay", "--", "/bin/sh", "-c", show));
            assertEquals(logs.toAbsolutePath() + "|replay", Files.readString(out).trim());
            assertEquals(0, Main.run("run", "--", "/bin/sh", "-c", show));
            assertTrue(Files.readString(out).trim().startsWith("|"), "a plain run records nothing: " + Files.readString(out));
            assertEquals(2, Main.run("run", "--zluda-trace", "--nvidia-trace", "--", "/bin/true"));
            assertEquals(2, Main.run("run", "--level", "everything", "--zluda-trace", "--", "/bin/true"));
            // recording options without a recording are usage errors, not silently ignored
            CliRun.Result r = CliRun.run("run", "--level", "replay", "--", "/bin/true");
            assertEquals(2, r.code());
            assertTrue(r.err().contains("zluda run: error: --level applies to a recording: add --zluda-trace or --nvidia-trace"), r.err());
            assertEquals(2, Main.run("run", "-o", logs.toString(), "--", "/bin/true"));
        } finally {
            if (old == null) System.clearProperty("zluda.home"); else System.setProperty("zluda.home", old);
        }
    }

    /** A stand-in driver directory, so that the run goes ahead without a built dist/. */
    private static Path standInHome(Path tmp) throws Exception {
        Path lib = tmp.resolve("home/lib");
        Files.createDirectories(lib);
        Files.writeString(lib.resolve("libcuda.so.1"), "stand-in");
        return tmp.resolve("home");
    }

    private static <T> T withHome(Path home, java.util.concurrent.Callable<T> body) throws Exception {
        String old = System.getProperty("zluda.home");
        System.setProperty("zluda.home", home.toString());
        try {
            return body.call();
        } finally {
            if (old == null) System.clearProperty("zluda.home"); else System.setProperty("zluda.home", old);
        }
    }

    @Test
    void logDirIsTheOptionElseZludaLogDirElseZludaLogs(@TempDir Path tmp) {
        assertEquals(tmp.resolve("o"), RunCommand.logDir(tmp.resolve("o"), java.util.Map.of("ZLUDA_LOG_DIR", "/elsewhere")));
        assertEquals(Path.of("/elsewhere"), RunCommand.logDir(null, java.util.Map.of("ZLUDA_LOG_DIR", "/elsewhere")));
        assertEquals(Path.of("zluda-logs").toAbsolutePath(), RunCommand.logDir(null, java.util.Map.of()));
        assertEquals(Path.of("zluda-logs").toAbsolutePath(), RunCommand.logDir(null, java.util.Map.of("ZLUDA_LOG_DIR", "")));
    }

    @Test
    void programsThatCannotRunGetAClearMessage(@TempDir Path tmp) throws Exception {
        Path home = standInHome(tmp);
        Path plain = tmp.resolve("not-executable");
        Files.writeString(plain, "#!/bin/sh\n");
        CliRun.Result missing = withHome(home, () -> CliRun.run("run", "--", "zluda-no-such-program-xyz"));
        assertEquals(127, missing.code());
        assertTrue(missing.err().contains("'zluda-no-such-program-xyz' is not on PATH"), missing.err());
        CliRun.Result noFile = withHome(home, () -> CliRun.run("run", "--", tmp.resolve("gone").toString()));
        assertEquals(127, noFile.code());
        assertTrue(noFile.err().contains("program not found: " + tmp.resolve("gone")), noFile.err());
        CliRun.Result notExec = withHome(home, () -> CliRun.run("run", "--", plain.toString()));
        assertEquals(126, notExec.code());
        assertTrue(notExec.err().contains("is not executable"), notExec.err());
        CliRun.Result dir = withHome(home, () -> CliRun.run("run", "--", tmp.toString()));
        assertEquals(126, dir.code());
        assertTrue(dir.err().contains("is a directory"), dir.err());
        assertEquals(2, withHome(home, () -> CliRun.run("run", "--pack", "--", "/bin/true")).code(), "--pack without a trace flag");
    }

    /** A source file handed to zluda run is named as one, with what to do instead; an executable script is a program. */
    @Test
    void aSourceFileIsNamedAsOne(@TempDir Path tmp) throws Exception {
        Path home = standInHome(tmp);
        Path c = Files.writeString(tmp.resolve("scale.c"), "#include <cuda.h>\nint main(void) { return 0; }\n");
        CliRun.Result r = withHome(home, () -> CliRun.run("run", "--", c.toString()));
        assertEquals(126, r.code(), r.err());
        assertEquals("zluda run: error: " + c + " is a source file: build it first (see docs/quick-start.md), then zluda run -- ./scale", r.err().strip());
        Path py = Files.writeString(tmp.resolve("scale.py"), "import cupy\n");
        assertEquals(py + " is a source file: run it with python3: zluda run -- python3 " + py, RunCommand.findProgram(py.toString()));
        // executable, but no #! line: still a source file
        assertTrue(c.toFile().setExecutable(true));
        assertTrue(RunCommand.findProgram(c.toString()).contains("is a source file: build it first"));
        Path script = Files.writeString(tmp.resolve("run.py"), "#!/usr/bin/env python3\nprint(1)\n");
        assertTrue(script.toFile().setExecutable(true));
        assertNull(RunCommand.findProgram(script.toString()), "an executable script with #! runs");
        assertTrue(RunCommand.findProgram(tmp.resolve("k.ptx").toString()).startsWith("program not found"), "a missing file is not a source file");
    }

    /**
     * {@code zluda run --zluda-trace [options] -o TMP/logs} of a "program" that leaves a copy of the H200 recording
     * samples/traces/h200/{@code capture} in $ZLUDA_LOG_DIR (skipped without it), against a stand-in driver.
     */
    private static CliRun.Result tracedRunLeaving(Path tmp, String capture, String... options) throws Exception {
        Path reference = Path.of(System.getProperty("zluda.repo", "..")).toAbsolutePath().resolve("samples/traces/h200/" + capture);
        Assumptions.assumeTrue(Files.isDirectory(reference), "no reference capture at " + reference);
        Path home = standInHome(tmp);
        String script = "cp -r '" + reference + "' \"$ZLUDA_LOG_DIR/vectorAdd\"";
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("run", "--zluda-trace"));
        args.addAll(java.util.List.of(options));
        args.addAll(java.util.List.of("-o", tmp.resolve("logs").toString(), "--", "/bin/sh", "-c", script));
        return withHome(home, () -> CliRun.run(args.toArray(String[]::new)));
    }

    /** The summary says how many kernel snapshots the capture holds (samples/traces/h200/vectorAdd-kernels has one). */
    @Test
    void theSummaryCountsKernelSnapshots(@TempDir Path tmp) throws Exception {
        CliRun.Result r = tracedRunLeaving(tmp, "vectorAdd-kernels");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.err().contains("1 kernel launch (vectorAdd ×1), 1 kernel snapshot (zluda replay --list)"), r.err());
    }

    /**
     * The calls cudart makes at exit after the driver shut down return CUDA_ERROR_DEINITIALIZED on NVIDIA's driver
     * too: the summary says which errors those are. cudart_demo recorded on the H200 has 7 errors, 3 of them
     * DEINITIALIZED (an export-table call, cuLibraryUnload, cuDevicePrimaryCtxRelease); vectorAdd (driver API only) none.
     */
    @Test
    void theSummaryNamesTheTeardownErrors(@TempDir Path tmp) throws Exception {
        CliRun.Result r = tracedRunLeaving(tmp, "cudart_demo");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.err().contains("7 returned an error"), r.err());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("3 of them are CUDA_ERROR_DEINITIALIZED \\(([^)]*)\\): the CUDA runtime's teardown at exit").matcher(r.err());
        assertTrue(m.find(), r.err());
        assertTrue(m.group(1).contains("cuDevicePrimaryCtxRelease") && m.group(1).contains("cuLibraryUnload"), m.group(1));
        assertFalse(tracedRunLeaving(tmp.resolve("va"), "vectorAdd").err().contains("DEINITIALIZED"));
    }

    /** A --capture-kernels REGEX that no launched kernel matched is said in the summary, not left out. */
    @Test
    void theSummarySaysWhenNoKernelMatchedCaptureKernels(@TempDir Path tmp) throws Exception {
        CliRun.Result r = tracedRunLeaving(tmp, "vectorAdd", "--capture-kernels", "nomatch");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.err().contains("no kernel snapshot (no launched kernel's name matched --capture-kernels 'nomatch')"), r.err());
    }

    /**
     * A traced run: the "program" leaves a real capture (the vectorAdd recording made on an H200)
     * in $ZLUDA_LOG_DIR and exits with 5. The summary's counts are checked against the capture
     * read record by record here, the exit code passes through, and --pack writes a pack that
     * opens with the same calls.
     */
    @Test
    void tracedRunSummarisesThePacksAndPassesTheExitCode(@TempDir Path tmp) throws Exception {
        Path repo = Path.of(System.getProperty("zluda.repo", "..")).toAbsolutePath();
        Path reference = repo.resolve("samples/traces/h200/vectorAdd");
        Assumptions.assumeTrue(Files.isDirectory(reference), "no reference capture at " + reference);
        long enters = 0, launches = 0, errors = 0;
        try (dev.zluda.capture.Capture c = dev.zluda.capture.Capture.open(reference)) {
            for (dev.zluda.capture.CaptureRecord r : c.reader()) {
                if (r instanceof dev.zluda.capture.CaptureRecord.Enter e) {
                    enters++;
                    if (c.functionName(e.functionId()).equals("cuLaunchKernel")) launches++;
                } else if (r instanceof dev.zluda.capture.CaptureRecord.Leave l && l.result() != 0) {
                    errors++;
                }
            }
        }
        assertTrue(enters > 0 && launches > 0, "the reference capture has calls and a launch");
        Path home = standInHome(tmp);
        Path logs = tmp.resolve("logs");
        String script = "cp -r '" + reference + "' \"$ZLUDA_LOG_DIR/vectorAdd\"; exit 5";
        CliRun.Result r = withHome(home, () -> CliRun.run("run", "--zluda-trace", "--pack", "-o", logs.toString(), "--", "/bin/sh", "-c", script));
        assertEquals(5, r.code(), r.err());
        Path made = logs.toAbsolutePath().resolve("vectorAdd");
        assertTrue(r.err().contains("exited with 5"), r.err());
        assertTrue(r.err().contains("capture " + made), r.err());
        assertTrue(r.err().contains(String.format("%,d calls, %,d returned an error, %,d kernel launch", enters, errors, launches)), r.err());
        assertTrue(r.err().contains("vectorAdd ×" + launches), r.err());
        assertFalse(r.err().contains("kernel snapshot"), "recorded without --capture-kernels: " + r.err());
        assertTrue(r.err().contains("zluda dump " + made), r.err());
        Path zip = logs.toAbsolutePath().resolve("vectorAdd.zip");
        assertTrue(r.err().contains("bug-report bundle: " + zip), r.err());
        assertTrue(dev.zluda.capture.Pack.isPack(zip));
        long packed = 0;
        try (dev.zluda.capture.Capture c = dev.zluda.capture.Capture.open(zip)) {
            for (dev.zluda.capture.CaptureRecord rec : c.reader()) if (rec instanceof dev.zluda.capture.CaptureRecord.Enter) packed++;
        }
        assertEquals(enters, packed, "the pack holds the same calls");
    }

    /** How a program ended, in words: the signal's name and meaning, not a number to decode. */
    @Test
    void howAProgramEndedIsSaidInWords() {
        assertEquals("exited with 0", RunCommand.howItEnded(0));
        assertEquals("exited with 3", RunCommand.howItEnded(3));
        assertEquals("was killed by SIGSEGV (signal 11, segmentation fault: an invalid memory access); exit status 139", RunCommand.howItEnded(139));
        assertEquals("was killed by SIGABRT (signal 6, aborted: abort(), a failed assert or a fatal runtime error); exit status 134", RunCommand.howItEnded(134));
        assertTrue(RunCommand.howItEnded(128 + 8).startsWith("was killed by SIGFPE"), RunCommand.howItEnded(136));
        assertEquals("was killed by signal 34; exit status 162", RunCommand.howItEnded(162));
    }

    /**
     * A real program (zluda-runtime's tests/host_signals) that segfaults in its own code after two calls on
     * zluda's driver, run as a user would: {@code zluda run --zluda-trace}. Its exit status is its own (139),
     * the summary names the signal and the last recorded call in words (no Java record), and the command to
     * look at the capture is the launcher's absolute path; nothing of the JVM's is left in the working directory.
     */
    @Test
    void aProgramThatSegfaultsIsSummarisedInWords(@TempDir Path tmp) throws Exception {
        Path repo = Path.of(System.getProperty("zluda.repo", "..")).toAbsolutePath().normalize();
        Path program = repo.resolve("zluda-runtime/target/native/tests/host_signals");
        Path driver = repo.resolve("dist/lib/libcuda.so.1");
        assertTrue(Files.isExecutable(program) && Files.isRegularFile(driver), "zluda-runtime's native build and dist/lib come before this module");
        Path logs = tmp.resolve("logs");
        CliRun.Result r = withHome(repo.resolve("dist"), () -> CliRun.run("run", "--zluda-trace", "-o", logs.toString(), "--", program.toString(), driver.toString(), "segv"));
        assertEquals(139, r.code(), r.err());
        String err = r.err();
        assertTrue(err.contains("host_signals was killed by SIGSEGV (signal 11, segmentation fault: an invalid memory access); exit status 139"), err);
        assertTrue(err.contains("the capture has no process end: the program did not exit normally"), err);
        assertTrue(err.matches("(?s).*last recorded call: call \\d+ \\(thread \\d+\\): cuDeviceGet\\(device: .*\\) -> CUDA_SUCCESS.*"), err);
        assertFalse(err.contains("ReadStatus["), "no Java record in the summary:\n" + err);
        assertTrue(err.contains("look at it: " + repo.resolve("dist/bin/zluda") + " dump " + logs.resolve("host_signals")), err);
        try (var files = Files.list(Path.of(""))) {
            assertTrue(files.noneMatch(f -> f.getFileName().toString().startsWith("hs_err")), "no hs_err file in the working directory");
        }
    }

    /** Where a capture cannot go, zluda run says why before running anything (125: its own failure). */
    @Test
    void anUnwritableCaptureDirectoryIsSaidWithTheReason(@TempDir Path tmp) throws Exception {
        Path home = standInHome(tmp);
        Path file = Files.writeString(tmp.resolve("a-file"), "x");
        CliRun.Result r = withHome(home, () -> CliRun.run("run", "--zluda-trace", "-o", file.resolve("logs").toString(), "--", "/bin/true"));
        assertEquals(125, r.code(), r.err());
        assertTrue(r.err().contains("zluda run: error: cannot record into " + file.resolve("logs") + ": "), r.err());
        assertTrue(r.err().contains("a file is in the way: " + file) || r.err().contains("not a directory: " + file), r.err());
    }

    /** A test body given the command line (its stderr going to err). */
    interface StandInBody {
        void run(picocli.CommandLine cl, java.io.StringWriter err) throws Exception;
    }

    /** Runs body with zluda.home at tmp, which holds a stand-in lib/libcuda.so.1; zluda.home is restored afterwards. */
    static void withStandInDriver(Path tmp, StandInBody body) throws Exception {
        Path lib = Files.createDirectories(tmp.resolve("lib"));
        Files.writeString(lib.resolve("libcuda.so.1"), "stand-in");
        String old = System.getProperty("zluda.home");
        System.setProperty("zluda.home", tmp.toString());
        try {
            java.io.StringWriter err = new java.io.StringWriter();
            var cl = Main.commandLine();
            cl.setErr(new java.io.PrintWriter(err, true));
            body.run(cl, err);
        } finally {
            if (old == null) System.clearProperty("zluda.home"); else System.setProperty("zluda.home", old);
        }
    }
}
