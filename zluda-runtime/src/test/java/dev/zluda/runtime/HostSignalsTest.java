package dev.zluda.runtime;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Life inside a host process (entry.c): after the zluda driver booted its JVM in a C program, a fault
 * in the program's own code ends it as it would without zluda — the program's own signal and exit
 * status (128 + signal, as the shell and {@link Process#exitValue()} report it) or the program's own
 * handler called — with no JVM banner on stderr and no {@code hs_err_pid*.log} in its working
 * directory; the JVM's own use of SIGSEGV (safepoint polls) keeps working; a genuine JVM crash
 * writes its report to the temporary directory and says where.
 */
class HostSignalsTest {
    private static final String BANNER = "A fatal error has been detected by the Java Runtime Environment";

    private static Path nativeDir() {
        String d = System.getenv("ZLUDA_TEST_NATIVE");
        Path p = Path.of(d != null ? d : "target/native").toAbsolutePath();
        Assumptions.assumeTrue(Files.isRegularFile(p.resolve("libcuda.so.1")) && Files.isExecutable(p.resolve("tests/host_signals")),
                "SKIPPED: libcuda.so.1 and tests/host_signals not built in " + p);
        return p;
    }

    record Ran(int code, String out) {}

    /** Runs tests/host_signals MODE in {@code cwd}, stdout and stderr together. */
    private static Ran run(Path cwd, Map<String, String> env, String... mode) throws Exception {
        Path dir = nativeDir();
        List<String> cmd = new ArrayList<>(List.of(dir.resolve("tests/host_signals").toString(), dir.resolve("libcuda.so.1").toString()));
        cmd.addAll(List.of(mode));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true);
        NativeTests.withTestJvm(pb).environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(180, TimeUnit.SECONDS), "timed out:\n" + out);
        return new Ran(p.exitValue(), out);
    }

    private static List<String> jvmFiles(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("hs_err") || n.startsWith("replay_pid") || n.startsWith("core")).toList();
        }
    }

    @Test
    void aSegfaultInTheProgramIsTheProgramsOwn(@TempDir Path cwd) throws Exception {
        Ran r = run(cwd, Map.of(), "segv");
        assertTrue(r.out().contains("booted"), "the JVM was running when the program faulted:\n" + r.out());
        assertEquals(128 + 11, r.code(), "killed by SIGSEGV, as without zluda:\n" + r.out());
        assertFalse(r.out().contains(BANNER), r.out());
        assertEquals(List.of(), jvmFiles(cwd), "nothing of the JVM's in the program's working directory");
    }

    @Test
    void aDivisionByZeroIsTheProgramsSigfpe(@TempDir Path cwd) throws Exception {
        Ran r = run(cwd, Map.of(), "fpe");
        assertEquals(128 + 8, r.code(), "killed by SIGFPE:\n" + r.out());
        assertFalse(r.out().contains(BANNER), r.out());
        assertEquals(List.of(), jvmFiles(cwd));
    }

    @Test
    void theProgramsOwnHandlerGetsItsFault(@TempDir Path cwd) throws Exception {
        Ran r = run(cwd, Map.of(), "handler");
        assertEquals(42, r.code(), r.out());
        assertTrue(r.out().contains("host handler: signal 11 at 0x10"), "the handler sees the signal and the faulting address:\n" + r.out());
        assertFalse(r.out().contains(BANNER), r.out());
    }

    @Test
    void sigpipeKeepsTheProgramsDisposition(@TempDir Path cwd) throws Exception {
        Ran dies = run(cwd, Map.of(), "pipe-default");
        assertEquals(128 + 13, dies.code(), "SIG_DFL: killed by SIGPIPE, not swallowed by the JVM:\n" + dies.out());
        Ran ignored = run(cwd, Map.of(), "pipe-ignored");
        assertEquals(0, ignored.code(), ignored.out());
        assertTrue(ignored.out().contains("EPIPE"), "SIG_IGN: the write fails with EPIPE and the program goes on:\n" + ignored.out());
    }

    /** With a safepoint every millisecond the JVM's polls fault constantly: HotSpot must still get them first. */
    @Test
    void theJvmsOwnSignalsStillWork(@TempDir Path cwd) throws Exception {
        Path log = cwd.resolve("safepoints.log");
        Ran r = run(cwd, Map.of("ZLUDA_JVM_OPTS", "-XX:+UnlockDiagnosticVMOptions -XX:+SafepointALot -XX:GuaranteedSafepointInterval=1 -Xlog:safepoint=info:file=" + log),
                "calls", "100000");
        assertEquals(0, r.code(), r.out());
        assertTrue(r.out().contains("calls ok (100000"), r.out());
        assertTrue(r.out().contains("SIGSEGV handler installed: yes"), "HotSpot's handler is in place after the boot:\n" + r.out());
        long safepoints = Files.readAllLines(log).stream().filter(l -> l.contains("Safepoint \"")).count();
        assertTrue(safepoints >= 10, "the run went through safepoints: " + safepoints);
    }

    /** A genuine JVM crash (here: CrashOnOutOfMemoryError with a tiny heap) reports into TMPDIR, not the working directory. */
    @Test
    void aJvmCrashReportGoesToTheTemporaryDirectory(@TempDir Path tmp) throws Exception {
        Path cwd = Files.createDirectories(tmp.resolve("cwd")), tmpdir = Files.createDirectories(tmp.resolve("tmp"));
        // the trace layer reads the API spec at boot (the driver alone no longer does): more than a 4 MB heap holds
        Ran r = run(cwd, Map.of("TMPDIR", tmpdir.toString(), "ZLUDA_JVM_OPTS", "-Xmx4m -XX:+CrashOnOutOfMemoryError",
                "ZLUDA_LOG_DIR", tmp.resolve("log").toString()), "calls", "10");
        assertEquals(128 + 6, r.code(), "the JVM aborts:\n" + r.out());
        assertEquals(List.of(), jvmFiles(cwd), "no hs_err file in the program's working directory");
        List<String> reports;
        try (Stream<Path> s = Files.list(tmpdir)) {
            reports = s.map(f -> f.getFileName().toString()).filter(n -> n.matches("zluda-hs_err_pid\\d+\\.log")).toList();
        }
        assertEquals(1, reports.size(), "the report is in TMPDIR: " + reports + "\n" + r.out());
        assertTrue(r.out().contains(tmpdir.resolve(reports.getFirst()).toString()), "stderr says where:\n" + r.out());
    }
}
