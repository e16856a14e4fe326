package dev.zluda.cli;

import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.ReadStatus;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code zluda run [--nvidia-trace] -- APP ARGS}: runs an unmodified CUDA program on the zluda driver
 * (dist/lib), or traced in front of NVIDIA's driver (dist/lib/trace), by putting the library first
 * on the loader's search path. Returns the program's exit code (128+N when signal N ended it).
 */
@Command(name = "run",
        mixinStandardHelpOptions = true,
        description = {"Run a CUDA program on the zluda driver (the CPU emulator), with or without recording it,",
                "or record it on NVIDIA's driver.", ""},
        footer = {"", "Examples:",
                "  zluda run -- ./vectorAdd 1024",
                "  zluda run --zluda-trace -- ./vectorAdd                   (record the run on zluda's driver)",
                "  zluda run --nvidia-trace -o traces -- ./vectorAdd       (on a machine with an NVIDIA GPU)",
                "  zluda run --zluda-trace --capture-kernels . -- ./vectorAdd   (with kernel snapshots, for zluda replay)",
                "",
                "Captures go to DIR/<program>[_N]/ (capture.zcap, manifest.json); read them with zluda dump / zluda info.",
                "",
                "Exit codes: the program's own; 127 when it cannot be started; 1 when the driver is missing; 2 bad usage."})
final class RunCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--nvidia-trace", description = "Record every CUDA call while running on NVIDIA's driver (or the driver ZLUDA_CUDA_LIB names).")
    boolean nvidiaTrace;

    @Option(names = "--zluda-trace", description = "Run on the zluda driver and record every CUDA call.")
    boolean zludaTrace;

    @Option(names = {"-o", "--output"}, paramLabel = "DIR",
            description = "Where captures go (default: $ZLUDA_LOG_DIR, else ./zluda-logs).")
    Path output;

    @Option(names = "--level", paramLabel = "LEVEL", defaultValue = "calls",
            description = "What is recorded: calls (calls and the data of typed pointers) or replay (also host buffers, enough to replay). Default: ${DEFAULT-VALUE}.")
    String level;

    @Option(names = "--capture-kernels", paramLabel = "REGEX",
            description = "With a trace: also store a snapshot (PTX, shape, parameters, buffers before and after) of every launch of a kernel whose mangled name REGEX finds ('.' for all), for zluda replay. Sets ZLUDA_CAPTURE_KERNELS.")
    String captureKernels;

    @Parameters(arity = "1..*", paramLabel = "APP", description = "The program and its arguments (put -- before them).")
    List<String> command = new ArrayList<>();

    /** zluda's lib directory: {@code <zluda.home>/lib}. */
    static Path libDir() {
        String home = System.getProperty("zluda.home");
        if (home != null) return Path.of(home, "lib");
        String repo = System.getProperty("zluda.repo");
        return Path.of(repo != null ? repo : ".", "dist", "lib");
    }

    @Override
    public Integer call() throws InterruptedException, IOException {
        PrintWriter err = spec.commandLine().getErr();
        if (!level.equals("calls") && !level.equals("replay")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--level must be calls or replay, not '" + level + "'");
        }
        if (nvidiaTrace && zludaTrace) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--nvidia-trace and --zluda-trace exclude each other");
        }
        boolean tracing = nvidiaTrace || zludaTrace;
        if (captureKernels != null) {
            if (!tracing) throw new CommandLine.ParameterException(spec.commandLine(), "--capture-kernels needs --zluda-trace or --nvidia-trace");
            try {
                java.util.regex.Pattern.compile(captureKernels);
            } catch (java.util.regex.PatternSyntaxException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--capture-kernels: not a regular expression: " + e.getDescription()
                        + " at index " + e.getIndex() + " of '" + captureKernels + "'");
            }
        }
        Path lib = libDir().toAbsolutePath().normalize();
        if (nvidiaTrace) lib = lib.resolve("trace");
        if (!Files.isRegularFile(lib.resolve("libcuda.so.1"))) {
            err.println("zluda run: no " + (nvidiaTrace ? "tracer" : "zluda driver") + " at " + lib.resolve("libcuda.so.1")
                    + " (build dist/ with mvn package)");
            err.flush();
            return 1;
        }
        ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
        Map<String, String> env = pb.environment();
        String old = env.get("LD_LIBRARY_PATH");
        env.put("LD_LIBRARY_PATH", old == null || old.isEmpty() ? lib.toString() : lib + ":" + old);
        Path logDir = null;
        Set<Path> before = new HashSet<>();
        if (!tracing) env.remove("ZLUDA_LOG_DIR"); // a plain run records nothing
        if (tracing) {
            logDir = (output != null ? output : Path.of(env.getOrDefault("ZLUDA_LOG_DIR", "zluda-logs"))).toAbsolutePath();
            Files.createDirectories(logDir);
            env.put("ZLUDA_LOG_DIR", logDir.toString());
            env.put("ZLUDA_CAPTURE_LEVEL", level);
            if (captureKernels != null) env.put("ZLUDA_CAPTURE_KERNELS", captureKernels);
            try (Stream<Path> s = Files.list(logDir)) {
                s.forEach(before::add);
            }
        }
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            err.println("zluda run: cannot start " + command.getFirst() + ": " + e.getMessage());
            err.flush();
            return 127;
        }
        int code = p.waitFor();
        if (tracing) summarize(logDir, before, err);
        return code;
    }

    /** Prints, for every capture the run made, where it is and what it holds. */
    private static void summarize(Path logDir, Set<Path> before, PrintWriter err) throws IOException {
        List<Path> made;
        try (Stream<Path> s = Files.list(logDir)) {
            made = s.filter(d -> !before.contains(d) && Files.isRegularFile(d.resolve("capture.zcap"))).sorted().toList();
        }
        if (made.isEmpty()) {
            err.println("zluda run: the program made no capture in " + logDir + " (did it load libcuda.so.1?)");
        }
        for (Path d : made) {
            try {
                dev.zluda.capture.Trim.trim(d.resolve("capture.zcap")); // the writer grew it in large steps
            } catch (IOException e) {
                err.println("zluda run: could not trim " + d.resolve("capture.zcap") + ": " + e.getMessage());
            }
            long[] calls = {0}, errors = {0};
            ReadStatus st;
            try (Capture c = Capture.open(d)) {
                st = c.reader().forEachRecord(r -> {
                    if (r instanceof CaptureRecord.Enter) calls[0]++;
                    else if (r instanceof CaptureRecord.Leave l && l.result() != 0) errors[0]++;
                });
            } catch (Exception e) {
                err.println("zluda run: capture " + d + " cannot be read: " + e.getMessage());
                continue;
            }
            err.printf("zluda run: capture %s: %d calls, %d returned an error, %,d bytes%s%n", d, calls[0], errors[0],
                    Files.size(d.resolve("capture.zcap")), st.endedCleanly() ? "" : " (the process did not end cleanly)");
            err.println("           zluda dump " + d);
        }
        err.flush();
    }
}
