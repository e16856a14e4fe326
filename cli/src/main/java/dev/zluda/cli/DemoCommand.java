package dev.zluda.cli;

import dev.zluda.capture.Trim;
import dev.zluda.diff.DiffEngine;
import dev.zluda.diff.DiffOptions;
import dev.zluda.diff.DiffResult;
import dev.zluda.diff.ElementTypes;
import dev.zluda.diff.HtmlReport;
import dev.zluda.diff.TextReport;
import dev.zluda.diff.Tolerance;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code zluda demo}: the main job end to end. Runs a sample CUDA program (samples/) unmodified on
 * the zluda driver with every call recorded, compares the capture with the one recorded from the
 * same program on an NVIDIA H200 (samples/traces/h200), and says whether they agree, where the
 * files are and how to look at them. Exit code 0 when the program passed and the captures agree
 * (apart from expected differences), 1 otherwise, 2 for bad usage.
 */
@Command(name = "demo",
        mixinStandardHelpOptions = true,
        description = {"Run a sample CUDA program on the zluda driver, record it, and compare the recording with",
                "the same program recorded on an NVIDIA H200.", ""},
        footer = {"", "Samples: vectorAdd (default), matrixMul, reduction, histogram, scan, illegalAccess.",
                "The sample programs are built by mvn package (with CUDA's cuda.h, or without the toolkit with the cuda.h generated from zluda's API spec).",
                "Exit codes: 0 the run did what the NVIDIA run did; 1 it did not (or the program failed); 2 trouble (no samples built, a capture that cannot be read, bad usage)."})
final class DemoCommand implements Callable<Integer> {
    /** Arguments the reference captures were recorded with (samples/traces/README.md). */
    static final java.util.Map<String, List<String>> REFERENCE_ARGS = java.util.Map.of(
            "vectorAdd", List.of("4096"), "matrixMul", List.of("64"), "reduction", List.of("65536", "64"),
            "histogram", List.of("65536", "32"), "scan", List.of("65536"), "illegalAccess", List.of());

    /** The samples in the order the help lists them. */
    static final List<String> SAMPLES = List.of("vectorAdd", "matrixMul", "reduction", "histogram", "scan", "illegalAccess");

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--sample", paramLabel = "NAME", defaultValue = "vectorAdd", description = "Which sample to run (default ${DEFAULT-VALUE}).")
    String sample;

    @Option(names = {"-o", "--output"}, paramLabel = "DIR", defaultValue = "zluda-logs",
            description = "Where the capture and the report go (default ${DEFAULT-VALUE}).")
    Path output;

    /** The source tree the distribution was built from: dist/.. */
    static Path repo() {
        String home = System.getProperty("zluda.home");
        if (home != null) return Path.of(home).toAbsolutePath().getParent();
        return Path.of(System.getProperty("zluda.repo", ".")).toAbsolutePath();
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        if (!REFERENCE_ARGS.containsKey(sample)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "no sample named '" + sample + "': did you mean "
                    + SpecCommand.closest(sample, SAMPLES, 1).getFirst() + "? (samples: " + String.join(", ", SAMPLES) + ")");
        }
        Path repo = repo();
        Path program = repo.resolve("samples/target/native/bin").resolve(sample);
        // with a kernel snapshot where the H200 recording has one: the diff then compares what the kernel computed too
        Path withKernels = repo.resolve("samples/traces/h200").resolve(sample + "-kernels");
        boolean snapshots = Files.isDirectory(withKernels);
        Path reference = snapshots ? withKernels : repo.resolve("samples/traces/h200").resolve(sample);
        Path lib = repo.resolve("dist/lib");
        if (!Files.isExecutable(program)) {
            out.println("The sample programs are not built: " + program + " is missing. They are C programs that mvn package");
            out.println("builds with gcc (see the build's output for why it did not; README.md, Prerequisites).");
            out.println("Without them, here is what zluda's model of the CUDA driver API says about one function:");
            out.println();
            out.flush();
            return Main.commandLine().setOut(out).setErr(spec.commandLine().getErr()).execute("spec", "cuMemcpyHtoD_v2");
        }
        Path logs = output.toAbsolutePath();
        Files.createDirectories(logs);
        Set<Path> before = new HashSet<>();
        try (Stream<Path> s = Files.list(logs)) {
            s.forEach(before::add);
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(program.toString());
        cmd.addAll(REFERENCE_ARGS.get(sample));
        String shown = String.join(" ", prepend(sample, REFERENCE_ARGS.get(sample)));
        out.println("[1/3] running " + shown + " unmodified on the zluda driver (CPU emulator), recording every CUDA call...");
        out.flush();
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("LD_LIBRARY_PATH", lib.toString());
        pb.environment().put("ZLUDA_LOG_DIR", logs.toString());
        pb.environment().remove("ZLUDA_CAPTURE_LEVEL");
        if (snapshots) pb.environment().put("ZLUDA_CAPTURE_KERNELS", sample);
        else pb.environment().remove("ZLUDA_CAPTURE_KERNELS");
        Process p = pb.start();
        String programOut = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int code = p.waitFor();
        for (String line : programOut.split("\n")) if (!line.isBlank()) out.println("      | " + line);
        boolean passed = code == 0;
        out.println("      the program exited with " + code + (passed ? " (it checks its own results: PASS)" : ""));
        Path capture;
        try (Stream<Path> s = Files.list(logs)) {
            capture = s.filter(d -> !before.contains(d) && Files.isRegularFile(d.resolve("capture.zcap"))).findFirst().orElse(null);
        }
        if (capture == null) {
            spec.commandLine().getErr().println("zluda demo: error: the program made no capture in " + logs);
            out.flush();
            spec.commandLine().getErr().flush();
            return Main.TROUBLE;
        }
        Trim.trim(capture.resolve("capture.zcap"));
        out.println("[2/3] comparing the capture with the one recorded on an NVIDIA H200 (" + repo.relativize(reference) + ")...");
        out.flush();
        DiffResult r;
        try {
            r = DiffEngine.diff(reference, capture, new DiffOptions(false, new Tolerance(0, 0, 0), ElementTypes.get("f32").orElseThrow(), 1000, 50));
        } catch (Exception e) {
            spec.commandLine().getErr().println("zluda demo: error: the comparison failed: " + e.getMessage());
            out.flush();
            spec.commandLine().getErr().flush();
            return Main.TROUBLE;
        }
        String zluda = launcher(System.getProperty("zluda.home"), System.getenv("PATH"));
        StringWriter text = new StringWriter();
        TextReport.write(r, new PrintWriter(text), false, zluda);
        // the summary: verdict, counts, first divergence (the full report is in the HTML file)
        for (String line : text.toString().split("\n")) {
            if (line.isBlank() && r.same()) break;
            out.println("      " + line);
        }
        Path html = capture.resolve("diff-vs-h200.html");
        try (Writer w = Files.newBufferedWriter(html, StandardCharsets.UTF_8)) {
            HtmlReport.write(r, new PrintWriter(w));
        }
        out.println("[3/3] " + (r.same() ? "VERDICT: the zluda run does what the NVIDIA run did, call by call"
                        + (snapshots && r.kernels() != null && r.kernels().compared() > 0 ? ", and its kernel computed the same bytes" : "")
                : "VERDICT: the runs differ: " + Main.count(r.divergingCalls(), "diverging call") + " (first divergence above)"));
        out.println("      capture:  " + capture);
        out.println("      report:   " + html);
        out.println("      look at it:  " + zluda + " dump " + capture);
        out.println("                   " + zluda + " diff " + reference + " " + capture);
        out.flush();
        return passed && r.same() ? 0 : 1;
    }

    /**
     * How to call this launcher from the current directory: {@code zluda} when {@code PATH} finds
     * this very launcher ({@code <zluda.home>/bin/zluda}), else its absolute path; plain
     * {@code zluda} when not started through the launcher.
     */
    static String launcher(String home, String path) {
        if (home == null) return "zluda";
        Path self = Path.of(home, "bin", "zluda").toAbsolutePath().normalize();
        if (path != null) {
            for (String d : path.split(java.io.File.pathSeparator)) {
                if (d.isEmpty()) continue;
                Path p = Path.of(d, "zluda");
                try {
                    if (Files.isExecutable(p) && Files.isSameFile(p, self)) return "zluda";
                } catch (IOException | java.nio.file.InvalidPathException e) {
                    // not this one
                }
                if (Files.isExecutable(p)) break; // another zluda comes first on PATH
            }
        }
        return self.toString();
    }

    private static List<String> prepend(String first, List<String> rest) {
        List<String> l = new ArrayList<>();
        l.add(first);
        l.addAll(rest);
        return l;
    }
}
