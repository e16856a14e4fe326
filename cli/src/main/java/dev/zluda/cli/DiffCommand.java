package dev.zluda.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureException;
import dev.zluda.capture.CaptureRecord;
import dev.zluda.capture.KernelSnapshots;
import dev.zluda.diff.DiffEngine;
import dev.zluda.diff.DiffOptions;
import dev.zluda.diff.DiffResult;
import dev.zluda.diff.ElementType;
import dev.zluda.diff.ElementTypes;
import dev.zluda.diff.HtmlReport;
import dev.zluda.diff.JsonReport;
import dev.zluda.diff.TextReport;
import dev.zluda.diff.Tolerance;
import dev.zluda.replay.KernelReplay;
import dev.zluda.replay.Locate;
import dev.zluda.replay.NativeDriver;
import dev.zluda.replay.ReplayException;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.Callable;

/**
 * {@code zluda diff A B}: compares two captures call by call (dev.zluda.diff.DiffEngine), kernel
 * snapshots' after-images included, and reports the first divergence, counts per kind, the diverging
 * calls and the diverging kernels as text, JSON or one HTML file. Exit codes: 0 the same, 1
 * different, 2 bad usage or an unreadable capture.
 *
 * <p>{@code zluda diff A B --kernel N --locate}: pairs A's kernel snapshot N with B's snapshot of the
 * aligned launch and names the first PTX instruction whose value differs ({@link Locate}): A's module
 * on the driver that recorded A (the reference) against B's module on the driver that recorded B,
 * both from A's before-images; {@code --against}/{@code --on} name other drivers. A driver that cannot
 * be loaded here (NVIDIA's, without an NVIDIA GPU) is an error that says what to run instead; there is
 * no fallback. Exit codes then: 0 no instruction differs, 1 one does, 2 error.
 */
@Command(name = "diff", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Compare two captures call by call: thread by thread, tolerating calls present on one side only;",
                "handles and device pointers are compared by what they are (ctx#1, dptr#3+0x40), not by their values.",
                "Reports the first divergence (call numbers on both sides, function, what differs, the buffer and",
                "element for data), the number of diverging calls per kind, and the list of them.", ""},
        footer = {"", "A and B are capture directories, capture.zcap files or packs; A is the reference (e.g. NVIDIA's).",
                "Kinds: missing (only in A), extra (only in B), result, argument, output, data,",
                "kernel (a kernel snapshot's after-image).",
                "Ignored unless --strict, and listed: device name, driver version, UUIDs, device properties, host",
                "addresses, timings, integrity-check values, export-table pointers, and host data that one capture holds",
                "only because it was recorded at level replay and the other at level calls (a note in the header says so).",
                "Library calls (captures made with the library tracers) are compared like driver calls; the calls made",
                "inside them (the driver calls cuBLAS makes inside cublasSgemm_v2), those on the modules a library",
                "loaded there, and the primary-context releases at exit of the CUDA runtime linked into NVIDIA's libraries",
                "are the library's own business, which another implementation does differently: left out and counted as",
                "'library internal' unless --library-internals (or --strict).",
                "Buffers whose element type the spec does not give are compared as --type (f32 by default).",
                "Kernel snapshots (captures recorded with --capture-kernels REGEX): for each pair",
                "of aligned launches with a snapshot on both sides, every buffer's after-image is",
                "compared, typed by the kernel's PTX (else --type), with --rtol/--atol/--ulp; a",
                "difference is kind 'kernel' on the launch call, listed under 'Diverging kernels'",
                "with the command that localises it. The launches' kernel parameters are compared",
                "too, typed by the PTX's .param declarations (a pointer by the buffer it points",
                "into, not its address): a changed value is kind 'argument' of the launch.",
                "Captures at level calls keep no device-to-host data: the verdict then reads",
                "SAME (calls and arguments only; ...) and a Note says what was not compared.",
                "",
                "--kernel N --locate: the first PTX instruction that computes a different value",
                "in kernel N (A's snapshot number, as the report prints it). A's module runs on",
                "the driver that recorded A (--against overrides), B's module on the driver that",
                "recorded B (--on overrides), both from A's before-images. NVIDIA's driver needs",
                "an NVIDIA GPU: without one the command says so and what to run instead (no",
                "fallback). See docs/replay.md.",
                "",
                "Examples:",
                "  zluda diff nv/app zl/app --format html -o diff.html",
                "  zluda diff nv/app zl/app --kernel 1 --locate       (on a machine with the GPU)",
                "  zluda diff nv/app zl/app --kernel 1 --locate --against zluda",
                "",
                "Exit codes: 0 the same, 1 different, 2 bad usage or an unreadable capture.",
                "With --locate: 0 no instruction result differs, 1 one does or the launches' kernel",
                "parameters differ (INPUTS DIFFER), 2 error."})
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

    @Option(names = {"-v", "--verbose"}, description = "Text report: also list examples of the expected differences that were ignored (addresses, device name, ...), which are otherwise only counted.")
    boolean verbose;

    @Option(names = "--strict", description = "Compare the expected differences too (device name, addresses, ...).")
    boolean strict;

    @Option(names = "--library-internals", description = "Also compare the calls made inside library calls (the driver calls cuBLAS makes inside cublasSgemm_v2)"
            + " and those on the modules a library loaded, which are otherwise left out as the library's own business (--strict compares them too).")
    boolean libraryInternals;

    @Option(names = "--rtol", paramLabel = "X", defaultValue = "0", description = "Relative tolerance for numeric buffer elements (|a-b| <= atol + rtol*|a|).")
    double rtol;

    @Option(names = "--atol", paramLabel = "X", defaultValue = "0", description = "Absolute tolerance for numeric buffer elements.")
    double atol;

    @Option(names = "--ulp", paramLabel = "N", defaultValue = "0", description = "Floating-point elements at most N units in the last place apart are equal.")
    long ulp;

    @Option(names = "--type", paramLabel = "TYPE", defaultValue = "f32", description = "Element type of untyped buffers: f32 (default), f64, f16, bf16, i8, i16, i32, i64, u8, u16, u32, u64.")
    String type;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "1000", description = "List at most N diverging calls (counts are complete; default 1000).")
    int limit;

    @Option(names = {"-k", "--kernel"}, paramLabel = "N",
            description = "With --locate: the launch, as A's kernel snapshot number that the report prints (kernel #N), or a kernel name.")
    String kernel;

    @Option(names = "--locate", description = "Name the first PTX instruction of kernel --kernel N whose value differs between A and B"
            + " (instrumented replays of A's and B's module from A's before-images).")
    boolean locate;

    @Option(names = "--on", paramLabel = "DRIVER",
            description = "--locate: the driver that runs B's module: zluda, nvidia or a path to a libcuda.so. Default: the one that recorded B.")
    String on;

    @Option(names = "--against", paramLabel = "DRIVER",
            description = "--locate: the driver that runs A's module (the reference). Default: the one that recorded A.")
    String against;

    @CommandLine.Mixin
    LocateOptions trace;

    @Override
    public Integer call() {
        CommandLine cl = spec.commandLine();
        if (locate && kernel == null) throw new CommandLine.ParameterException(cl, "--locate needs --kernel N (the kernel number the report prints)");
        if (!locate && (kernel != null || on != null || against != null || trace.thread != null)) {
            throw new CommandLine.ParameterException(cl, "--kernel, --on, --against and --thread go with --locate");
        }
        int[] who = locate ? trace.check(cl) : null;
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
        DiffOptions options = new DiffOptions(strict, tol, t, limit, 50, libraryInternals);
        if (locate) return locate(options, who);
        DiffResult r;
        try {
            r = DiffEngine.diff(a, b, options);
        } catch (CaptureException e) {
            cl.getErr().println("zluda diff: error: " + e.getMessage());
            cl.getErr().flush();
            return 2;
        } catch (RuntimeException e) {
            cl.getErr().println("zluda diff: error: " + (e.getMessage() != null ? e.getMessage() : e.toString()));
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
                cl.getOut().println("wrote " + output + ": " + (r.same() ? "same" : "different, " + Main.count(r.divergingCalls(), "diverging call")));
                cl.getOut().flush();
            }
        } catch (IOException e) {
            cl.getErr().println("zluda diff: error: " + (output != null ? new Main.WriteError(output, e).getMessage()
                    : "cannot write the report: " + Main.why(e, null)));
            cl.getErr().flush();
            return 2;
        }
        return r.exitCode();
    }

    private void write(DiffResult r, Writer target) throws IOException {
        Main.KeepingWriter w = target instanceof PrintWriter ? null : new Main.KeepingWriter(target);
        PrintWriter pw = target instanceof PrintWriter p ? p : new PrintWriter(w);
        switch (format) {
            case "json" -> JsonReport.write(r, pw);
            case "html" -> HtmlReport.write(r, pw);
            // the follow-up command runs as pasted: the launcher's absolute path unless PATH finds it (as run and demo print it)
            default -> TextReport.write(r, pw, verbose, DemoCommand.launcher(System.getProperty("zluda.home"), System.getenv("PATH")));
        }
        pw.flush();
        if (w != null) w.rethrow();
    }

    // ------------------------------------------------------------------ --kernel N --locate

    /** A driver for one side: what {@link Locate} takes (zluda, nvidia, a path), and the words for messages. */
    private record SideDriver(String driver, String recordedBy, boolean given) {}

    private int locate(DiffOptions options, int[] who) {
        CommandLine cl = spec.commandLine();
        PrintWriter out = cl.getOut(), err = cl.getErr();
        String home = System.getProperty("zluda.home");
        try (Capture ca = Capture.open(a); Capture cb = Capture.open(b)) {
            DiffEngine engine = new DiffEngine(options);
            DiffResult r = engine.diff(ca, cb);
            KernelSnapshots ka = KernelSnapshots.read(ca), kb = KernelSnapshots.read(cb);
            if (ka.list().isEmpty()) return fail(err, KernelSnapshots.noSnapshots(ca));
            if (kb.list().isEmpty()) return fail(err, KernelSnapshots.noSnapshots(cb));
            KernelSnapshots.Snapshot s;
            try {
                s = ka.find(kernel);
            } catch (IllegalArgumentException e) {
                return fail(err, "A: " + e.getMessage());
            }
            OptionalInt partner = engine.kernelPartner(s.number());
            if (partner.isEmpty()) {
                return fail(err, "kernel #" + s.number() + " of A (" + s.name() + ", call " + s.launchCall() + ") has no launch in B with a snapshot"
                        + " paired with it: the diff pairs launches through the call alignment (see its report); B's snapshots: "
                        + (kb.list().size() > 8 ? kb.list().size() + "" : kb.list().stream().map(x -> "#" + x.number() + " " + x.name() + " call " + x.launchCall()).toList()));
            }
            KernelSnapshots.Snapshot t = kb.list().get(partner.getAsInt() - 1);
            List<KernelReplay.ParamDifference> params = KernelReplay.parameterDifferences(s.record(), t.record(), function(ka, s));
            if (!params.isEmpty()) {
                // both sides would replay A's launch, with A's parameters: what B's other inputs did cannot show there
                out.println("zluda diff --locate: kernel #" + s.number() + " " + s.name() + ": A call " + s.launchCall() + " (A's snapshot #" + s.number()
                        + "), B call " + t.launchCall() + " (B's snapshot #" + t.number() + ")");
                for (KernelReplay.ParamDifference p : params) out.println("  inputs differ: " + p.describe());
                out.println("VERDICT: INPUTS DIFFER: B's launch was given other kernel parameter values, so its after-images may differ whatever the"
                        + " driver does; not localised (a replay runs both sides with A's parameters). Record both runs with the same inputs to compare the drivers.");
                out.flush();
                return 1;
            }
            SideDriver da = driver(ca, against), db = driver(cb, on);
            String why = unavailable(da, "A", home);
            if (why == null) why = unavailable(db, "B", home);
            if (why != null) return fail(err, why);
            // the modules: A's is the reference; B's is loaded in its place on B's side when it differs
            String ptxA, ptxB;
            try {
                ptxA = ptx(ka, s, "A");
                ptxB = ptx(kb, t, "B");
            } catch (ReplayException e) {
                return fail(err, e.getMessage());
            }
            boolean samePtx = ptxA.equals(ptxB);
            List<String> head = new ArrayList<>();
            head.add("zluda diff --locate: kernel #" + s.number() + " " + s.name() + ": A call " + s.launchCall() + " (A's snapshot #" + s.number()
                    + "), B call " + t.launchCall() + " (B's snapshot #" + t.number() + ")");
            head.add("  reference (A): " + da.driver() + " (" + da.recordedBy() + ") running A's module");
            head.add("  under test (B): " + db.driver() + " (" + db.recordedBy() + ") running " + (samePtx ? "B's module (the same PTX as A's)" : "B's module (its PTX differs from A's)"));
            head.add("  both from A's before-images");
            List<Integer> inputs = new ArrayList<>();
            CaptureRecord.Kernel k = s.record(), kt = t.record();
            for (int i = 0; i < Math.min(k.buffers().size(), kt.buffers().size()); i++) {
                if (k.buffers().get(i).before() != kt.buffers().get(i).before()) inputs.add(i + 1);
            }
            if (!inputs.isEmpty()) {
                head.add("  note: B's launch started from other before-images (buffer" + (inputs.size() == 1 ? " " : "s ") + inputs
                        + "): a difference that came in with B's inputs (an earlier kernel or copy) does not show here; the diff's first divergence is where to look");
            }
            if (k.buffers().size() != kt.buffers().size()) head.add("  note: A's snapshot holds " + k.buffers().size() + " buffers, B's " + kt.buffers().size());
            if (samePtx && da.driver().equals(db.driver())) {
                head.add("  note: both sides run " + da.driver() + " with the same PTX: only a difference of the driver between the two recordings"
                        + " (another version) could have made the after-images differ, and this run cannot reproduce it; name other drivers with --on/--against");
            }
            for (String h : head) out.println(h);
            out.flush();
            Locate.Result lr = Locate.run(ca, Integer.toString(s.number()), new Locate.Options(db.driver(), samePtx ? null : ptxB, da.driver(), null, who,
                    trace.traceLimit, home == null ? null : Path.of(home)));
            lr.print(out);
            return lr.exitCode();
        } catch (CaptureException | ReplayException e) {
            return fail(err, e.getMessage());
        } catch (RuntimeException e) {
            err.println("zluda diff: error: " + (e.getMessage() != null ? e.getMessage() : e.toString()));
            if (System.getenv("ZLUDA_DEBUG") != null) e.printStackTrace(err);
            err.flush();
            return 2;
        }
    }

    /** A path as a shell word. */
    static String quote(String s) {
        if (s.matches("[A-Za-z0-9_./:@%+=,-]+")) return s;
        return "'" + s.replace("'", "'\\''") + "'";
    }

    private static int fail(PrintWriter err, String message) {
        err.println("zluda diff: error: " + message);
        err.flush();
        return 2;
    }

    /** The driver that recorded a capture (its manifest), or the one given. */
    private static SideDriver driver(Capture c, String given) {
        JsonNode d = c.manifest().path("driver");
        String name = d.path("name").asText(""), lib = d.path("library").asText("");
        String v = d.path("version").asText("");
        String by = "recorded " + c.source().getFileName() + (name.isEmpty() ? "" : " with " + name + (v.isEmpty() ? "" : " " + v) + (lib.isEmpty() ? "" : ", " + lib));
        if (given != null) return new SideDriver(given, "given; " + by, true);
        return switch (name) {
            case "zluda" -> new SideDriver("zluda", by, false);
            case "nvidia" -> new SideDriver("nvidia", by, false);
            // a replay on a library given by path records that path
            case "library" -> new SideDriver(lib.isEmpty() ? "" : lib, by, false);
            default -> new SideDriver("", by, false);
        };
    }

    /** Why a side's driver cannot run here (with what to run instead), or null when it can. */
    private String unavailable(SideDriver d, String side, String home) {
        String opt = side.equals("A") ? "--against" : "--on";
        if (d.driver().isEmpty()) {
            return "capture " + side + "'s manifest does not say which driver recorded it (" + d.recordedBy() + "): name one with " + opt
                    + " zluda|nvidia|PATH";
        }
        if (d.driver().equals("zluda")) return null;
        try {
            NativeDriver.load(d.driver(), home == null ? null : Path.of(home));
            return null;
        } catch (IllegalStateException e) {
            String cmd = "zluda diff " + quote(a.toString()) + " " + quote(b.toString()) + " --kernel " + kernel + " --locate";
            StringBuilder sb = new StringBuilder();
            sb.append("capture ").append(side).append(" was recorded on ").append(d.driver().equals("nvidia") ? "NVIDIA's driver" : d.driver())
                    .append(" (").append(d.recordedBy()).append("), which cannot be loaded here (").append(reason(e.getMessage())).append(")\n");
            sb.append("  To localise between the drivers that made the two captures, run on a machine with ")
                    .append(d.driver().equals("nvidia") ? "an NVIDIA GPU and its driver" : "that library").append(" (copy both captures there):\n    ")
                    .append(cmd).append('\n');
            sb.append("  Or name a driver that runs here with ").append(opt).append(" (e.g. ").append(opt).append(" zluda): that compares ")
                    .append(side.equals("A") ? "A's" : "B's").append(" module on it, which finds where the two modules differ, not where the drivers do.");
            return sb.toString();
        }
    }

    /** The loader's reason at the end of NativeDriver's message ({@code ...): Cannot open library: libcuda.so.1}). */
    private static String reason(String m) {
        if (m == null) return "no reason given";
        int i = m.lastIndexOf("): ");
        return i >= 0 ? m.substring(i + 3) : m;
    }

    /** The kernel's PTX function from a snapshot's module, or null when the module or its PTX is not there. */
    private static dev.zluda.ptx.FunctionInfo function(KernelSnapshots ks, KernelSnapshots.Snapshot s) {
        CaptureRecord.KernelLaunch l = s.record().launch();
        if (l == null || l.moduleHash() == 0 || !ks.hasBlob(l.moduleHash())) return null;
        try {
            return KernelReplay.kernelFunction(s.record(), ks.blob(l.moduleHash(), "the module image of kernel " + s.name()));
        } catch (CaptureException | RuntimeException e) {
            return null;
        }
    }

    /** The PTX of a snapshot's module. */
    private static String ptx(KernelSnapshots ks, KernelSnapshots.Snapshot s, String side) throws ReplayException, CaptureException {
        CaptureRecord.KernelLaunch l = s.record().launch();
        if (l == null || l.moduleHash() == 0) {
            throw new ReplayException("capture " + side + "'s kernel snapshot #" + s.number() + " kept no module image: --locate needs the PTX; record again with --capture-kernels");
        }
        List<String> why = new ArrayList<>();
        String p = KernelReplay.ptxOf(ks.blob(l.moduleHash(), "the module image of kernel " + s.name()), why);
        if (p == null) {
            throw new ReplayException("the module of kernel " + s.name() + " in capture " + side + " holds no PTX: --locate instruments PTX only ("
                    + String.join("; ", why) + ")");
        }
        return p;
    }
}
