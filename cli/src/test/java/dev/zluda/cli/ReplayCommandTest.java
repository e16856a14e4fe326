package dev.zluda.cli;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code zluda replay}: errors and exit codes (replays themselves: replayer's KernelReplayTest). */
class ReplayCommandTest {
    private static final Path H200 = Path.of(System.getProperty("zluda.repo", "..")).resolve("samples/traces/h200/vectorAdd");

    @Test
    void aCaptureWithoutSnapshotsSaysHowToRecordOne() {
        CliRun.Result r = CliRun.run("replay", H200.toString(), "--kernel", "1");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("recorded without --capture-kernels; record again with zluda run --nvidia-trace --capture-kernels REGEX"), r.err());
        r = CliRun.run("replay", H200.toString(), "--list");
        assertEquals(2, r.code(), r.err());
    }

    @Test
    void aWholeReplayNeedsASnapshotOfEveryLaunch() {
        // recorded on an H200 at level replay, without kernel snapshots
        Path h200Replay = Path.of(System.getProperty("zluda.repo", "..")).resolve("samples/traces/h200/vectorAdd-replay");
        CliRun.Result r = CliRun.run("replay", h200Replay.toString(), "--no-capture");
        assertEquals(2, r.code(), r.out() + r.err());
        assertTrue(r.err().contains("1 of 1 kernel launches have no snapshot (the first is call 13 cuLaunchKernel)"), r.err());
        // recorded by the NVIDIA tracer: the advice is to record again with it
        assertTrue(r.err().contains("record again with zluda run --nvidia-trace --level replay --capture-kernels ."), r.err());
        assertTrue(r.err().contains("samples/traces/h200/cudart_demo-replay"), "names captures that replay whole: " + r.err());
        r = CliRun.run("replay", H200.toString(), "--no-capture");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("was recorded at level calls"), r.err());
    }

    @Test
    void badUsage() {
        assertEquals(2, CliRun.run("replay", H200.toString(), "--kernel", "1", "--no-capture", "-o", "/tmp/x").code());
        assertEquals(2, CliRun.run("replay", "/no/such/capture", "--kernel", "1").code());
        assertEquals(2, CliRun.run("replay").code());
    }

    @Test
    void locateUsageErrorsAreNamed() {
        CliRun.Result r = CliRun.run("replay", H200.toString(), "--locate", "--against", "zluda");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("--locate needs --kernel N|NAME"), r.err());
        r = CliRun.run("replay", H200.toString(), "--kernel", "1", "--locate", "--against", "zluda", "--thread", "1,2");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("expected CX,CY,CZ:TX,TY,TZ"), r.err());
        r = CliRun.run("replay", H200.toString(), "--kernel", "1", "--locate", "--against", "zluda", "--trace-limit", "0");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("--trace-limit: 1 to 16777216"), r.err());
        // the H200 capture has no snapshots: said as for a replay
        r = CliRun.run("replay", H200.toString(), "--kernel", "1", "--locate", "--against", "zluda");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("recorded without --capture-kernels"), r.err());
    }
}
