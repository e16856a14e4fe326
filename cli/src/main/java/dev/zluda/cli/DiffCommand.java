package dev.zluda.cli;

import dev.zluda.capture.CaptureException;
import dev.zluda.diff.DiffEngine;
import dev.zluda.diff.DiffOptions;
import dev.zluda.diff.DiffResult;
import dev.zluda.diff.ElementType;
import dev.zluda.diff.ElementTypes;
import dev.zluda.diff.HtmlReport;
import dev.zluda.diff.JsonReport;
import dev.zluda.diff.TextReport;
import dev.zluda.diff.Tolerance;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code zluda diff A B}: compares two captures call by call (dev.zluda.diff.DiffEngine) and reports
 * the first divergence, counts per kind and the diverging calls as text, JSON or one HTML file.
 * Exit codes: 0 the same, 1 different, 2 bad usage or an unreadable capture.
 */
@Command(name = "diff", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Compare two captures call by call: thread by thread, tolerating calls present on one side only;",
                "handles and device pointers are compared by what they are (ctx#1, dptr#3+0x40), not by their values.",
                "Reports the first divergence (call numbers on both sides, function, what differs, the buffer and",
                "element for data), the number of diverging calls per kind, and the list of them.", ""},
        footer = {"", "A and B are capture directories, capture.zcap files or packs; A is the reference (e.g. NVIDIA's).",
                "Kinds: missing (only in A), extra (only in B), result, argument, output, data.",
                "Ignored unless --strict, and listed: device name, driver version, UUIDs, device properties, host",
                "addresses, timings, integrity-check values, export-table pointers.",
                "Buffers whose element type the spec does not give are compared as --type (f32 by default).",
                "Exit codes: 0 the same, 1 different, 2 bad usage or an unreadable capture."})
final class DiffCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "A", description = "The reference capture.")
    Path a;

    @Parameters(index = "1", paramLabel = "B", description = "The capture compared with it.")
    Path b;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text", description = "text (default), json or html.")
    String format;

    @Option(names = {"-o", "--output"}, paramLabel = "OUT", description = "Write the report to OUT instead of standard output.")
    Path output;

    @Option(names = "--strict", description = "Compare the expected differences too (device name, addresses, ...).")
    boolean strict;

    @Option(names = "--rtol", paramLabel = "X", defaultValue = "0", description = "Relative tolerance for numeric buffer elements (|a-b| <= atol + rtol*|a|).")
    double rtol;

    @Option(names = "--atol", paramLabel = "X", defaultValue = "0", description = "Absolute tolerance for numeric buffer elements.")
    double atol;

    @Option(names = "--ulp", paramLabel = "N", defaultValue = "0", description = "Floating-point elements at most N units in the last place apart are equal.")
    long ulp;

    @Option(names = "--type", paramLabel = "TYPE", defaultValue = "f32", description = "Element type of untyped buffers: f32 (default), f64, i32, u32, i64, u8.")
    String type;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "1000", description = "List at most N diverging calls (counts are complete; default 1000).")
    int limit;

    @Override
    public Integer call() {
        CommandLine cl = spec.commandLine();
        if (!format.equals("text") && !format.equals("json") && !format.equals("html")) {
            throw new CommandLine.ParameterException(cl, "--format must be text, json or html, not '" + format + "'");
        }
        ElementType t = ElementTypes.get(type).orElseThrow(() ->
                new CommandLine.ParameterException(cl, "--type must be one of " + String.join(", ", ElementTypes.names()) + ", not '" + type + "'"));
        if (limit < 1) throw new CommandLine.ParameterException(cl, "--limit must be at least 1, not " + limit);
        Tolerance tol;
        try {
            tol = new Tolerance(rtol, atol, ulp);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cl, e.getMessage());
        }
        DiffOptions options = new DiffOptions(strict, tol, t, limit, 50);
        DiffResult r;
        try {
            r = DiffEngine.diff(a, b, options);
        } catch (CaptureException e) {
            cl.getErr().println("zluda diff: " + e.getMessage());
            cl.getErr().flush();
            return 2;
        } catch (RuntimeException e) {
            cl.getErr().println("zluda diff: " + (e.getMessage() != null ? e.getMessage() : e.toString()));
            if (System.getenv("ZLUDA_DEBUG") != null) e.printStackTrace(cl.getErr());
            cl.getErr().flush();
            return 2;
        }
        try {
            if (output == null) {
                write(r, cl.getOut());
            } else {
                try (Writer w = Files.newBufferedWriter(output, StandardCharsets.UTF_8)) {
                    write(r, w);
                }
                cl.getOut().println("wrote " + output + ": " + (r.same() ? "same" : "different, " + r.divergingCalls() + " diverging calls"));
                cl.getOut().flush();
            }
        } catch (IOException e) {
            cl.getErr().println("zluda diff: cannot write " + (output != null ? output : "the report") + ": " + e.getMessage());
            cl.getErr().flush();
            return 2;
        }
        return r.exitCode();
    }

    private void write(DiffResult r, Writer w) throws IOException {
        PrintWriter pw = w instanceof PrintWriter p ? p : new PrintWriter(w);
        switch (format) {
            case "json" -> JsonReport.write(r, pw);
            case "html" -> HtmlReport.write(r, pw);
            default -> TextReport.write(r, pw);
        }
        pw.flush();
    }
}
