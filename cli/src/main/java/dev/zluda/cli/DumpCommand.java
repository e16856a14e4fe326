package dev.zluda.cli;

import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureException;
import dev.zluda.capture.text.Dump;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** {@code zluda dump CAPTURE}: the ZLUDA-style log of a capture, one line per call. */
@Command(name = "dump", mixinStandardHelpOptions = true,
        description = {"Print a capture as ZLUDA's log: one line per call, nested calls indented,", "e.g. cuMemAlloc_v2(dptr: 0x7f3c00000000, bytesize: 1024) -> CUDA_SUCCESS", ""},
        footer = {"", "CAPTURE is a capture directory, its capture.zcap, or a pack (zluda pack).",
                "A run of " + Dump.FOLD_MIN + " or more cuGetProcAddress calls (cudart's start-up) is one line unless --unfold, --function, --errors or --calls is given.",
                "Last lines starting with '#' say when the capture was cut mid-call, list the places where it is",
                "damaged or cut (everything else is read), or say that no call matches the filters (--calls, --function, --errors).",
                "Exit codes: 0 read to the end, or to where a crashed or killed process or a cut ended it; 1 damaged (everything that could be read is printed, and each damaged place); 2 missing or unreadable, or bad usage."})
final class DumpCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    CaptureArgument capture;

    @Option(names = "--threads", description = "Prefix every line with [thread id].")
    boolean threads;

    @Option(names = "--time", description = "Prefix every line with the seconds since the capture began.")
    boolean time;

    @Option(names = "--function", paramLabel = "REGEX", description = "Only calls whose function name this regular expression finds.")
    String function;

    @Option(names = "--errors", description = "Only calls that did not return CUDA_SUCCESS (and calls in flight).")
    boolean errors;

    @Option(names = "--unfold", description = "Print every call of a run of cuGetProcAddress look-ups (cudart's start-up makes 400 and more), which is otherwise one line.")
    boolean unfold;

    @Option(names = "--calls", paramLabel = "FROM..TO", description = "Only calls FROM to TO (1-based, in order of entry; either end may be left out).")
    String calls;

    @Override
    public Integer call() throws CaptureException {
        long from = 1, to = Long.MAX_VALUE;
        if (calls != null) {
            var m = java.util.regex.Pattern.compile("(\\d*)\\.\\.(\\d*)|(\\d+)").matcher(calls.trim());
            if (!m.matches()) throw new CommandLine.ParameterException(spec.commandLine(), "--calls wants FROM..TO, e.g. 10..20, not '" + calls + "'");
            if (m.group(3) != null) from = to = Long.parseLong(m.group(3));
            else {
                if (!m.group(1).isEmpty()) from = Long.parseLong(m.group(1));
                if (!m.group(2).isEmpty()) to = Long.parseLong(m.group(2));
            }
            if (from > to) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--calls " + calls.trim() + ": FROM is after TO (calls are counted from 1;"
                        + " did you mean " + to + ".." + from + "?)");
            }
        }
        Pattern p = null;
        if (function != null) {
            try {
                p = Pattern.compile(function);
            } catch (PatternSyntaxException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--function: " + e.getDescription() + " in '" + function + "'");
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        try (Capture cap = capture.open()) {
            boolean fold = !unfold && p == null && !errors && calls == null; // a filter shows what it selects, one line each
            var st = Dump.dump(cap, new Dump.Options(threads, time, p, errors, from, to, fold), out);
            return st.damaged() ? 1 : 0;
        }
    }
}
