package dev.zluda.cli;

import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureInfo;
import dev.zluda.capture.Pack;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code zluda run [--zluda-trace | --nvidia-trace] [-o DIR] [--level L] [--pack] -- APP ARGS}: runs an
 * unmodified CUDA program on the zluda driver (dist/lib), or traced in front of NVIDIA's driver
 * (dist/lib/trace), by putting the library first on the loader's search path. When tracing, the
 * capture goes to {@code DIR/<app>[_N]/} (DIR: {@code -o}, else {@code $ZLUDA_LOG_DIR}, else
 * {@code ./zluda-logs}), a summary of it is printed on stderr at the end (calls, errors, kernel
 * launches, size, where it is, how to look at it), and {@code --pack} also writes the bug-report
 * bundle {@code DIR/<app>[_N].zip} ({@link Pack}, as {@code zluda pack} does).
 *
 * <p>Returns the program's exit code (128+N when signal N ended it); 127 when the program does not
 * exist, 126 when it is not executable, 1 when the driver is missing, 2 on bad usage.
 */
@Command(name = "run",
        mixinStandardHelpOptions = true,
        description = {"Run a CUDA program on the zluda driver (the CPU emulator), with or without recording it,",
                "or record it on NVIDIA's driver.", ""},
        footer = {"", "Examples:",
                "  zluda run -- ./vectorAdd 1024",
                "  zluda run --zluda-trace -- ./vectorAdd             record it",
                "  zluda run --nvidia-trace -o traces -- ./vectorAdd  on NVIDIA's driver",
                "  zluda run --zluda-trace --capture-kernels . -- ./vectorAdd  with snapshots",
                "  zluda run --zluda-trace --pack -- ./vectorAdd      and a bug-report bundle",
                "",
                "Captures go to DIR/<program>[_N]/ (capture.zcap, manifest.json); read them with zluda dump / zluda info / zluda view.",
                "",
                "Exit codes: the program's own; 127 when it is not found; 126 when it is not executable;",
                "125 when zluda itself fails (no driver in dist/, a capture directory that cannot be made); 2 bad usage."})
final class RunCommand implements Callable<Integer> {
    /** Exit code of zluda run's own failures (as env(1) and timeout(1) use it). */
    static final int OWN_FAILURE = 125;

    /** The environment the checks before a run read (the program gets the process's own); tests replace it. */
    static Map<String, String> environment = System.getenv();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--nvidia-trace", description = "Record every CUDA call while running on NVIDIA's driver (or the driver ZLUDA_CUDA_LIB names).")
    boolean nvidiaTrace;

    @Option(names = "--zluda-trace", description = "Run on the zluda driver and record every CUDA call.")
    boolean zludaTrace;

    @Option(names = {"-o", "--output"}, paramLabel = "DIR",
            description = "Where captures go (default: $ZLUDA_LOG_DIR, else zluda-logs in the current directory).")
    Path output;

    @Option(names = "--level", paramLabel = "LEVEL", defaultValue = "calls",
            description = "What is recorded: calls (calls and the data of typed pointers) or replay (also host buffers, enough to replay). Default: ${DEFAULT-VALUE}.")
    String level;

    @Option(names = "--pack", description = "Also write the capture as one file for a bug report: DIR/<program>[_N].zip (see zluda pack; --redact there).")
    boolean pack;

    @Option(names = "--capture-kernels", paramLabel = "REGEX",
            description = "With a trace: also store a snapshot (PTX, shape, parameters, buffers before and after) of every launch of a kernel whose mangled name REGEX finds ('.' for all), for zluda replay. Sets ZLUDA_CAPTURE_KERNELS.")
    String captureKernels;

    @Option(names = "--capture-range", paramLabel = "RANGE", defaultValue = "all",
            description = "With --nvidia-trace: all (default) records the whole run; profiler records only from each cuProfilerStart to the next cuProfilerStop (cudaProfilerStart/Stop, torch.cuda.profiler.start/stop), as profilers' capture ranges do. Sets ZLUDA_CAPTURE_RANGE.")
    String captureRange;

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
        validate();
        boolean tracing = nvidiaTrace || zludaTrace;
        Path lib = libDir().toAbsolutePath().normalize();
        if (nvidiaTrace) lib = lib.resolve("trace");
        if (!Files.isRegularFile(lib.resolve("libcuda.so.1"))) {
            err.println("zluda run: error: no " + (nvidiaTrace ? "tracer" : "zluda driver") + " at " + lib.resolve("libcuda.so.1")
                    + " (build dist/ with mvn package)");
            err.flush();
            return OWN_FAILURE;
        }
        if (nvidiaTrace) {
            String noDriver = nvidiaDriverProblem(environment, lib.getParent());
            if (noDriver != null) {
                err.println("zluda run: error: --nvidia-trace: " + noDriver);
                err.flush();
                return OWN_FAILURE;
            }
        }
        String problem = findProgram(command.getFirst());
        if (problem != null) {
            err.println("zluda run: error: " + problem);
            err.flush();
            return problem.contains("not executable") || problem.contains("is a directory") || problem.contains("is a source file") ? 126 : 127;
        }
        ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
        Map<String, String> env = pb.environment();
        String old = env.get("LD_LIBRARY_PATH");
        env.put("LD_LIBRARY_PATH", old == null || old.isEmpty() ? lib.toString() : lib + ":" + old);
        Path logDir = null;
        Set<Path> before = new HashSet<>();
        if (!tracing) env.remove("ZLUDA_LOG_DIR"); // a plain run records nothing
        if (tracing) {
            logDir = logDir(output, env);
            Files.createDirectories(logDir);
            traceEnvironment(env, logDir);
            try (Stream<Path> s = Files.list(logDir)) {
                s.forEach(before::add);
            }
        }
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            err.println("zluda run: error: cannot start " + command.getFirst() + ": " + e.getMessage());
            err.flush();
            return 127;
        }
        int code = p.waitFor();
        if (tracing) summarize(logDir, before, code, err);
        return code;
    }

    /** Where captures go: {@code -o DIR}, else {@code $ZLUDA_LOG_DIR} (when set and not empty), else {@code ./zluda-logs}; absolute. */
    /** Where NVIDIA's tracer looks for the driver it forwards to when ZLUDA_CUDA_LIB is not set (tracer.c, find_target). */
    static final List<String> NVIDIA_DRIVER_PATHS = List.of("/usr/local/nvidia/lib64/libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
            "/usr/lib64/libcuda.so.1", "/lib/x86_64-linux-gnu/libcuda.so.1", "/lib/libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1");

    /**
     * Why the NVIDIA tracer would find no driver to forward to, or null when it would: ZLUDA_CUDA_LIB
     * when set (it must exist), else a libcuda.so.1 on LD_LIBRARY_PATH or the usual paths that is not
     * one of zluda's own (the driver and the tracer in {@code distLib}). Without this check the
     * program would run with every CUDA call failing and leave a capture of errors.
     */
    static String nvidiaDriverProblem(Map<String, String> env, Path distLib) {
        String given = env.get("ZLUDA_CUDA_LIB");
        if (given != null && !given.isEmpty()) {
            return Files.isRegularFile(Path.of(given)) ? null : "ZLUDA_CUDA_LIB=" + given + " does not exist";
        }
        List<Path> own = new java.util.ArrayList<>();
        for (Path p : new Path[] {distLib.resolve("libcuda.so.1"), distLib.resolve("trace/libcuda.so.1")}) {
            try {
                own.add(p.toRealPath());
            } catch (IOException e) {
                // not built: nothing to exclude
            }
        }
        List<String> candidates = new java.util.ArrayList<>();
        String ld = env.getOrDefault("LD_LIBRARY_PATH", "");
        for (String d : ld.split(":")) if (!d.isEmpty()) candidates.add(d + "/libcuda.so.1");
        candidates.addAll(NVIDIA_DRIVER_PATHS);
        for (String c : candidates) {
            try {
                Path real = Path.of(c).toRealPath();
                if (Files.isRegularFile(real) && !own.contains(real)) return null;
            } catch (IOException e) {
                // not there
            }
        }
        return "no NVIDIA driver (libcuda.so.1) on LD_LIBRARY_PATH or in " + String.join(", ", NVIDIA_DRIVER_PATHS.stream().map(p -> p.substring(0, p.lastIndexOf('/'))).toList())
                + ": record on a machine with an NVIDIA GPU, or set ZLUDA_CUDA_LIB to the driver to trace; without one, --zluda-trace records the program on zluda's driver";
    }

    static Path logDir(Path output, Map<String, String> env) {
        if (output != null) return output.toAbsolutePath();
        String dir = env.get("ZLUDA_LOG_DIR");
        return Path.of(dir != null && !dir.isEmpty() ? dir : "zluda-logs").toAbsolutePath();
    }

    /** Usage errors (exit 2). */
    private void validate() {
        if (!level.equals("calls") && !level.equals("replay")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--level must be calls or replay, not '" + level + "'");
        }
        if (nvidiaTrace && zludaTrace) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--nvidia-trace and --zluda-trace exclude each other");
        }
        if (!nvidiaTrace && !zludaTrace) {
            CommandLine.ParseResult pr = spec.commandLine().getParseResult();
            String given = pr.hasMatchedOption("--level") ? "--level" : pr.hasMatchedOption("--output") ? "-o" : null;
            if (given != null) {
                throw new CommandLine.ParameterException(spec.commandLine(), given + " applies to a recording: add --zluda-trace or --nvidia-trace");
            }
        }
        if (pack && !nvidiaTrace && !zludaTrace) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--pack packs the capture: add --zluda-trace or --nvidia-trace");
        }
        if (!captureRange.equals("all")) {
            if (!captureRange.equals("profiler")) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--capture-range: '" + captureRange + "' is not all or profiler");
            }
            if (!nvidiaTrace) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--capture-range profiler needs --nvidia-trace (the zluda driver's own recorder records whole runs)");
            }
        }
        if (captureKernels != null) {
            if (!nvidiaTrace && !zludaTrace) throw new CommandLine.ParameterException(spec.commandLine(), "--capture-kernels needs --zluda-trace or --nvidia-trace");
            try {
                java.util.regex.Pattern.compile(captureKernels);
            } catch (java.util.regex.PatternSyntaxException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--capture-kernels: not a regular expression: " + e.getDescription()
                        + " at index " + e.getIndex() + " of '" + captureKernels + "'");
            }
        }
    }

    /** What the recorder reads from the environment (the driver's and the tracer's ZLUDA_* variables), one line per option. */
    private void traceEnvironment(Map<String, String> env, Path logDir) {
        env.put("ZLUDA_LOG_DIR", logDir.toString());
        env.put("ZLUDA_CAPTURE_LEVEL", level);
        if (captureKernels != null) env.put("ZLUDA_CAPTURE_KERNELS", captureKernels);
        if (!captureRange.equals("all")) env.put("ZLUDA_CAPTURE_RANGE", captureRange);
    }

    /** Endings of source files a first run may hand to {@code zluda run} in place of the program built from them. */
    private static final java.util.regex.Pattern SOURCE = java.util.regex.Pattern.compile(".*\\.(c|cu|cpp|cc|cxx|ptx|py)$");

    /**
     * Why {@code program} is a source file rather than a program, or null: a regular file (as given,
     * or in the working directory) ending in .c, .cu, .cpp, .cc, .cxx, .ptx or .py that is not an
     * executable script (exec bit and a {@code #!} line).
     */
    static String sourceFile(String program) {
        Path p = Path.of(program);
        if (!SOURCE.matcher(program).matches() || !Files.isRegularFile(p)) return null;
        if (Files.isExecutable(p)) {
            try (java.io.InputStream in = Files.newInputStream(p)) {
                byte[] head = in.readNBytes(2);
                if (head.length == 2 && head[0] == '#' && head[1] == '!') return null;
            } catch (java.io.IOException e) {
                return null;
            }
        }
        String name = p.getFileName().toString();
        if (name.endsWith(".py")) return program + " is a source file: run it with python3: zluda run -- python3 " + program;
        if (name.endsWith(".ptx")) {
            return program + " is a source file (PTX): a program loads it (cuModuleLoad); zluda ptx check " + program + " checks it";
        }
        return program + " is a source file: build it first (see docs/quick-start.md), then zluda run -- ./" + name.substring(0, name.lastIndexOf('.'));
    }

    /**
     * Why {@code program} cannot be run, or null: a path that does not exist, is a directory or is
     * not executable; a bare name that is on no directory of {@code PATH} (as execvp looks it up).
     */
    static String findProgram(String program) {
        if (program.isEmpty()) return "no program given";
        String source = sourceFile(program);
        if (source != null) return source;
        if (program.contains("/")) {
            Path p = Path.of(program);
            if (!Files.exists(p)) return "program not found: " + program + " (no such file)";
            if (Files.isDirectory(p)) return program + " is a directory, not a program";
            if (!Files.isExecutable(p)) return program + " is not executable (chmod +x " + program + "?)";
            return null;
        }
        String path = System.getenv("PATH");
        for (String dir : (path == null ? "" : path).split(":")) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, program);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) return null;
        }
        String hint = Files.isRegularFile(Path.of(program)) ? "; it is in this directory: run ./" + program : "; give its path, e.g. ./" + program;
        return "program not found: '" + program + "' is not on PATH" + hint;
    }

    /**
     * Prints, for every capture the run made: calls, errors, kernel launches, size, where it is
     * and how to look at it; with {@code --pack} writes the bundle next to it.
     */
    /**
     * Writes how the program ended into the capture's manifest ({@code "exit": {"code", "signal"}}),
     * which the recorder inside the process cannot know: a program that aborts after its last CUDA
     * call leaves a capture that ended cleanly, and only this says it crashed ({@code zluda info}).
     */
    static void recordExit(Path captureDir, int exitCode, PrintWriter err) {
        Path mf = captureDir.resolve(dev.zluda.capture.CaptureFormat.MANIFEST_FILE);
        if (!Files.isRegularFile(mf)) return;
        try {
            var om = new com.fasterxml.jackson.databind.ObjectMapper();
            var m = (com.fasterxml.jackson.databind.node.ObjectNode) om.readTree(mf.toFile());
            var e = m.putObject("exit");
            e.put("code", exitCode);
            if (exitCode > 128) e.put("signal", exitCode - 128); else e.putNull("signal");
            e.put("recordedBy", "zluda run");
            Path tmp = mf.resolveSibling(mf.getFileName() + ".tmp");
            Files.write(tmp, om.writerWithDefaultPrettyPrinter().writeValueAsBytes(m));
            Files.move(tmp, mf, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | ClassCastException e) {
            err.println("zluda run: warning: could not record the exit status in " + mf + ": " + e.getMessage());
        }
    }

    /** Names of the signals a killed program most often dies of, for messages ({@code SIGKILL}); null for others. */
    static String signalName(int signal) {
        return switch (signal) {
            case 1 -> "SIGHUP"; case 2 -> "SIGINT"; case 3 -> "SIGQUIT"; case 4 -> "SIGILL"; case 6 -> "SIGABRT"; case 7 -> "SIGBUS";
            case 8 -> "SIGFPE"; case 9 -> "SIGKILL"; case 11 -> "SIGSEGV"; case 13 -> "SIGPIPE"; case 15 -> "SIGTERM";
            default -> null;
        };
    }

    /**
     * What to say when a run left no capture: the program died of a signal before the recorder wrote
     * anything (it starts at the first CUDA call; with zluda's driver that call first starts a Java
     * runtime), it died after the recorder made the capture directory but before the capture file had
     * its first record ({@code started}: those directories), or it ended normally without a CUDA call
     * through the libcuda.so.1 zluda run put first.
     */
    static String noCaptureMessage(Path logDir, int exitCode, List<Path> started) {
        if (exitCode > 128) {
            int sig = exitCode - 128;
            String name = signalName(sig);
            String killed = "the program was killed by signal " + sig + (name != null ? " (" + name + ")" : "");
            if (!started.isEmpty()) {
                return killed + " while the recorder was starting: " + String.join(", ", started.stream().map(Path::toString).toList())
                        + " holds no capture file (the recorder names the file only once its function table is in it); nothing was recorded";
            }
            return killed + " before its first CUDA call was recorded: no capture in " + logDir
                    + " (the recorder starts at the program's first CUDA call; zluda's driver first starts a Java runtime there, which"
                    + " takes a moment)";
        }
        if (!started.isEmpty()) {
            return String.join(", ", started.stream().map(Path::toString).toList()) + " holds no capture file: the recorder did not get to"
                    + " write its first record (see the program's output above)";
        }
        return "the program made no capture in " + logDir + ": it made no CUDA call through libcuda.so.1 (did it load it? "
                + "see docs/troubleshooting.md)";
    }

    private void summarize(Path logDir, Set<Path> before, int exitCode, PrintWriter err) throws IOException {
        List<Path> made, started;
        try (Stream<Path> s = Files.list(logDir)) {
            List<Path> fresh = s.filter(d -> !before.contains(d) && Files.isDirectory(d)).sorted().toList();
            made = fresh.stream().filter(d -> Files.isRegularFile(d.resolve("capture.zcap"))).toList();
            started = fresh.stream().filter(d -> !Files.isRegularFile(d.resolve("capture.zcap"))).toList();
        }
        String sig = exitCode > 128 ? signalName(exitCode - 128) : null;
        err.println("zluda run: " + command.getFirst() + " exited with " + exitCode
                + (exitCode > 128 ? " (signal " + (exitCode - 128) + (sig != null ? ", " + sig : "") + ")" : ""));
        if (made.isEmpty()) err.println("zluda run: warning: " + noCaptureMessage(logDir, exitCode, started));
        for (Path d : made) {
            recordExit(d, exitCode, err);
            try {
                dev.zluda.capture.Trim.trim(d.resolve("capture.zcap")); // the writer grew it in large steps
            } catch (IOException e) {
                err.println("zluda run: warning: could not trim " + d.resolve("capture.zcap") + ": " + e.getMessage());
            }
            CaptureInfo info;
            try (Capture c = Capture.open(d)) {
                info = CaptureInfo.of(c);
            } catch (Exception e) {
                err.println("zluda run: warning: capture " + d + " cannot be read: " + e.getMessage());
                continue;
            }
            long launches = info.kernels.values().stream().mapToLong(Long::longValue).sum();
            long bytes, moduleFiles;
            try (Stream<Path> s = Files.list(d)) {
                bytes = s.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
            }
            try (Stream<Path> s = Files.list(d)) {
                // a fatbin's PTX and ELF entries are a file each: count the files, not the loads
                moduleFiles = s.filter(f -> f.getFileName().toString().startsWith("module_")).count();
            }
            err.println("zluda run: capture " + d);
            err.printf("           %,d calls, %,d returned an error, %,d kernel launch%s%s%s%n", info.calls, info.errors, launches,
                    launches == 1 ? "" : "es", kernelList(info.kernels),
                    info.kernelSnapshots == 0
                            ? (captureKernels == null ? "" : ", no kernel snapshot (no launched kernel's name matched --capture-kernels '" + captureKernels + "')")
                            : String.format(", %,d kernel snapshot%s (zluda replay --list)", info.kernelSnapshots, info.kernelSnapshots == 1 ? "" : "s"));
            err.printf("           %,d bytes (capture.zcap %,d, %d module file%s of %d module load%s)%s%n", bytes, Files.size(d.resolve("capture.zcap")),
                    moduleFiles, moduleFiles == 1 ? "" : "s", info.modules.size(), info.modules.size() == 1 ? "" : "s",
                    info.status.endedCleanly() ? "" : "; the capture did not end cleanly: " + info.status.summary());
            if (pack) {
                Path zip = d.resolveSibling(d.getFileName() + ".zip");
                try (Capture c = Capture.open(d)) {
                    Pack.pack(c, zip, EnumSet.noneOf(Pack.Redaction.class));
                    err.printf("           bug-report bundle: %s (%,d bytes; zluda pack --redact data,env,paths makes a redacted one)%n",
                            zip, Files.size(zip));
                } catch (Exception e) {
                    err.println("zluda run: warning: could not pack " + d + ": " + e.getMessage());
                }
            }
            err.println("           look at it: zluda dump " + d + "   (zluda info, zluda view with a display)");
        }
        err.flush();
    }

    /** " (name ×n, ...)" for the first few kernels by launch count, or "". */
    private static String kernelList(Map<String, Long> kernels) {
        if (kernels.isEmpty()) return "";
        List<Map.Entry<String, Long>> top = kernels.entrySet().stream()
                .sorted((a, b) -> Long.compare(b.getValue(), a.getValue())).limit(4).toList();
        StringBuilder sb = new StringBuilder(" (");
        for (int i = 0; i < top.size(); i++) {
            if (i > 0) sb.append(", ");
            sb.append(top.get(i).getKey()).append(" ×").append(top.get(i).getValue());
        }
        if (kernels.size() > top.size()) sb.append(", ").append(kernels.size() - top.size()).append(" more");
        return sb.append(')').toString();
    }
}
