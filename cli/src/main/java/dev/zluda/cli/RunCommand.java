package dev.zluda.cli;

import dev.zluda.capture.Call;
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
 * exist, 126 when it is not executable, 125 for its own failures (no driver, a capture directory that cannot be
 * made), 2 on bad usage.
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
            try {
                Files.createDirectories(logDir);
                if (!Files.isWritable(logDir)) throw new java.nio.file.AccessDeniedException(logDir.toString());
                try (Stream<Path> s = Files.list(logDir)) {
                    s.forEach(before::add);
                }
            } catch (IOException e) {
                err.println("zluda run: error: " + new Main.WriteError("record into", logDir, e).getMessage());
                err.flush();
                return OWN_FAILURE;
            }
            traceEnvironment(env, logDir);
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
        if (tracing) {
            summarize(logDir, before, code, p.pid(), err);
        } else if (killedBySignal(code)) {
            // zluda is the program's parent, so the shell's own "Segmentation fault" line never appears: say it here
            sayHowItEnded(code, p.pid(), err);
            err.flush();
        }
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

    /**
     * Whether a capture directory is being written by a live process other than {@code childPid}: its
     * manifest names a process id that is still running (after the program this run started has ended,
     * such a capture belongs to another program recording into the same folder). False when the
     * manifest is missing or names no process.
     */
    static boolean writtenByAnotherProcess(Path captureDir, long childPid) {
        Path mf = captureDir.resolve(dev.zluda.capture.CaptureFormat.MANIFEST_FILE);
        if (!Files.isRegularFile(mf)) return false;
        try {
            var pid = new com.fasterxml.jackson.databind.ObjectMapper().readTree(mf.toFile()).get("pid");
            if (pid == null || !pid.canConvertToLong() || pid.asLong() == childPid) return false;
            return ProcessHandle.of(pid.asLong()).map(ProcessHandle::isAlive).orElse(false);
        } catch (IOException e) {
            return false;
        }
    }

    /** The name of a signal ({@code SIGKILL}) from {@link #SIGNALS}; null for one not listed there. */
    static String signalName(int signal) {
        String[] s = SIGNALS.get(signal);
        return s != null ? s[0] : null;
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

    /** Prints how the program ended, in words, and where the report of a crash of the JVM inside it is, if it left one. */
    private void sayHowItEnded(int exitCode, long pid, PrintWriter err) {
        err.println("zluda run: " + command.getFirst() + " " + howItEnded(exitCode));
        Path jvmReport = jvmCrashReport(exitCode, pid, environment);
        if (jvmReport != null) {
            err.println("zluda run: the Java runtime inside the program crashed (a zluda bug, not the program's): its report is " + jvmReport
                    + "; please attach it to a bug report (docs/troubleshooting.md)");
        }
    }

    /**
     * Prints how the program ended (in words: the signal's name and meaning) and, for every capture
     * the run made: calls, errors, kernel launches, size, where it is, how it ended (the last
     * recorded call when the program did not exit normally) and a command that shows it, with the
     * launcher's absolute path unless PATH finds it; with {@code --pack} writes the bundle next to it.
     */
    private void summarize(Path logDir, Set<Path> before, int exitCode, long pid, PrintWriter err) throws IOException {
        List<Path> made, started;
        try (Stream<Path> s = Files.list(logDir)) {
            // a capture another program beside this run is still writing into the same folder is not this run's:
            // trimming it would cut the file under that program's writer (which then faults on its next write)
            List<Path> fresh = s.filter(d -> !before.contains(d) && Files.isDirectory(d) && !writtenByAnotherProcess(d, pid)).sorted().toList();
            made = fresh.stream().filter(d -> Files.isRegularFile(d.resolve("capture.zcap"))).toList();
            started = fresh.stream().filter(d -> !Files.isRegularFile(d.resolve("capture.zcap"))).toList();
        }
        sayHowItEnded(exitCode, pid, err);
        if (made.isEmpty()) err.println("zluda run: warning: " + noCaptureMessage(logDir, exitCode, started));
        String zluda = DemoCommand.launcher(System.getProperty("zluda.home"), environment.get("PATH"));
        for (Path d : made) {
            recordExit(d, exitCode, err);
            try {
                dev.zluda.capture.Trim.trim(d.resolve("capture.zcap")); // the writer grew it in large steps
            } catch (IOException e) {
                err.println("zluda run: warning: could not trim " + d.resolve("capture.zcap") + ": " + Main.describe(e));
            }
            CaptureInfo info;
            LastCall last;
            try (Capture c = Capture.open(d)) {
                info = CaptureInfo.of(c);
                last = exitCode > 128 || !info.status.endedCleanly() ? LastCall.of(c) : null;
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
            err.printf("           %s, %s returned an error, %s%s%s%n", Main.count(info.calls, "call"), Main.number(info.errors),
                    Main.count(launches, "kernel launch", "kernel launches"), kernelList(info.kernels),
                    info.kernelSnapshots == 0
                            ? (captureKernels == null ? "" : ", no kernel snapshot (no launched kernel's name matched --capture-kernels '" + captureKernels + "')")
                            : ", " + Main.count(info.kernelSnapshots, "kernel snapshot") + " (zluda replay --list)");
            String teardown = teardownNote(info);
            if (teardown != null) err.println("           " + teardown);
            err.printf("           %s (capture.zcap %,d, %s of %s)%n", Main.count(bytes, "byte"), Files.size(d.resolve("capture.zcap")),
                    Main.count(moduleFiles, "module file"), Main.count(info.modules.size(), "module load"));
            if (!info.status.endedCleanly()) err.println("           " + captureEnd(info.status));
            if (last != null && last.text != null) err.println("           " + last.text);
            if (pack) {
                Path zip = d.resolveSibling(d.getFileName() + ".zip");
                try (Capture c = Capture.open(d)) {
                    Pack.pack(c, zip, EnumSet.noneOf(Pack.Redaction.class));
                    err.printf("           bug-report bundle: %s (%,d bytes; zluda pack --redact data,env,paths makes a redacted one)%n",
                            zip, Files.size(zip));
                } catch (Exception e) {
                    err.println("zluda run: warning: could not pack " + d + ": " + Main.describe(e));
                }
            }
            err.println("           look at it: " + zluda + " dump " + d);
            err.println(zluda.equals("zluda") ? "                       (also zluda info, and zluda view with a display)"
                    : "                       (also info, and view with a display; export PATH=\"" + Path.of(zluda).getParent() + ":$PATH\" makes plain 'zluda' work)");
        }
        err.flush();
    }

    /** Linux signal numbers (x86-64) with their names and what they usually mean. */
    private static final Map<Integer, String[]> SIGNALS = Map.ofEntries(
            Map.entry(1, new String[] {"SIGHUP", "hangup: its terminal went away"}),
            Map.entry(2, new String[] {"SIGINT", "interrupt: Ctrl-C"}),
            Map.entry(3, new String[] {"SIGQUIT", "quit: Ctrl-\\"}),
            Map.entry(4, new String[] {"SIGILL", "illegal instruction"}),
            Map.entry(5, new String[] {"SIGTRAP", "trace or breakpoint trap"}),
            Map.entry(6, new String[] {"SIGABRT", "aborted: abort(), a failed assert or a fatal runtime error"}),
            Map.entry(7, new String[] {"SIGBUS", "bus error: an access to memory that is not there, e.g. past the end of a mapped file"}),
            Map.entry(8, new String[] {"SIGFPE", "arithmetic exception, e.g. an integer division by zero"}),
            Map.entry(9, new String[] {"SIGKILL", "killed: kill -9, or the kernel's out-of-memory killer"}),
            Map.entry(11, new String[] {"SIGSEGV", "segmentation fault: an invalid memory access"}),
            Map.entry(13, new String[] {"SIGPIPE", "broken pipe: it wrote to a pipe nobody reads"}),
            Map.entry(14, new String[] {"SIGALRM", "alarm clock"}),
            Map.entry(15, new String[] {"SIGTERM", "terminated: kill, or a time limit"}),
            Map.entry(24, new String[] {"SIGXCPU", "CPU time limit exceeded"}),
            Map.entry(25, new String[] {"SIGXFSZ", "file size limit exceeded"}));

    /** Whether {@link Process#waitFor()}'s status says a signal ended the program (128 + signal 1..64). */
    static boolean killedBySignal(int exitCode) {
        return exitCode > 128 && exitCode <= 128 + 64;
    }

    /**
     * How a program ended, in words: {@code exited with 0}, {@code was killed by SIGSEGV (signal 11,
     * segmentation fault: an invalid memory access); exit status 139}. A status above 128 is how
     * {@link Process#waitFor()} (like the shell) reports a death by signal {@code status - 128}.
     */
    static String howItEnded(int exitCode) {
        if (!killedBySignal(exitCode)) return "exited with " + exitCode;
        int sig = exitCode - 128;
        String[] s = SIGNALS.get(sig);
        return "was killed by " + (s != null ? s[0] + " (signal " + sig + ", " + s[1] + ")" : "signal " + sig) + "; exit status " + exitCode;
    }

    /**
     * The report of a crash of the JVM inside the program ({@code zluda-hs_err_pid<pid>.log} in
     * {@code $TMPDIR}, else /tmp: where the driver's entry points HotSpot's -XX:ErrorFile), or null
     * when the program did not abort (134) or left none.
     */
    static Path jvmCrashReport(int exitCode, long pid, Map<String, String> env) {
        if (exitCode != 128 + 6 || pid <= 0) return null;
        String tmp = env.get("TMPDIR");
        Path dir = tmp != null && tmp.startsWith("/") && Files.isDirectory(Path.of(tmp)) ? Path.of(tmp) : Path.of("/tmp");
        Path f = dir.resolve("zluda-hs_err_pid" + pid + ".log");
        return Files.isRegularFile(f) ? f : null;
    }

    /** CUresult CUDA_ERROR_DEINITIALIZED (cuda.h): the driver is shutting down. */
    static final int DEINITIALIZED = 4;

    /**
     * The errors that are the CUDA runtime's teardown, in words, or null when there are none: calls that
     * returned CUDA_ERROR_DEINITIALIZED, which cudart makes at exit after the driver has shut down
     * (cuLibraryUnload, cuDevicePrimaryCtxRelease); NVIDIA's driver answers them the same way
     * (samples/traces/h200/cudart_demo, recorded on an NVIDIA H200).
     */
    static String teardownNote(CaptureInfo info) {
        long n = 0;
        List<String> names = new ArrayList<>();
        for (Map.Entry<String, CaptureInfo.Counts> e : info.functions.entrySet()) {
            Long k = e.getValue().errors.get(DEINITIALIZED);
            if (k == null) continue;
            n += k;
            names.add(e.getKey());
        }
        if (n == 0) return null;
        String list = names.size() <= 3 ? String.join(", ", names) : String.join(", ", names.subList(0, 3)) + ", " + (names.size() - 3) + " more";
        return (n == info.errors ? (n == 1 ? "that error is" : "all " + n + " are") : n + " of them " + (n == 1 ? "is" : "are"))
                + " CUDA_ERROR_DEINITIALIZED (" + list + "): the CUDA runtime's teardown at exit, after the driver shut down; expected, NVIDIA's driver answers the same";
    }

    /** Why a capture has no clean end, in words. */
    static String captureEnd(dev.zluda.capture.ReadStatus st) {
        if (st.stoppedEarly()) return "the capture did not end cleanly: " + st.summary() + "; every record around it was read";
        return "the capture has no process end: the program did not exit normally; every call it made up to the end was recorded";
    }

    /** The call a capture ends with, as one line for the run summary. */
    static final class LastCall {
        String text;

        static LastCall of(Capture cap) {
            LastCall l = new LastCall();
            Call[] last = {null};
            dev.zluda.capture.CallAssembler[] asm = new dev.zluda.capture.CallAssembler[1];
            asm[0] = new dev.zluda.capture.CallAssembler(new dev.zluda.capture.CallAssembler.Listener() {
                @Override
                public void call(Call c) {
                    if (last[0] == null || c.ordinal() > last[0].ordinal()) last[0] = c;
                }
            });
            for (dev.zluda.capture.CaptureRecord r : cap.reader()) asm[0].accept(r);
            List<Call> flying = asm[0].finish();
            Call c = last[0];
            for (Call f : flying) {
                Call in = dev.zluda.capture.CallAssembler.innermost(f);
                if (c == null || in.ordinal() > c.ordinal()) c = in;
            }
            if (c == null) {
                l.text = "no call was recorded";
                return l;
            }
            String line = new dev.zluda.capture.text.CallFormatter(cap::specFunction, cap::functionName, asm[0].strings()).format(c);
            if (line.length() > 200) line = line.substring(0, 199) + "…";
            l.text = (c.inFlight() ? "in flight when it ended (entered, never returned): call " : "last recorded call: call ") + c.ordinal()
                    + (c.threadId() != 0 ? " (thread " + c.threadId() + ")" : "") + ": " + line;
            return l;
        }
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
