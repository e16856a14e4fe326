package dev.zluda.cli;

import dev.zluda.capture.Capture;
import dev.zluda.viewer.Viewer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/** {@code zluda view [CAPTURE [OTHER]]}: the graphical viewer of one capture, or of two side by side. */
@Command(name = "view", mixinStandardHelpOptions = true,
        description = {"Open a capture in the viewer: the calls (filter by function, thread, errors, time),",
                "the details of each call, a timeline per thread, the modules with their PTX, blobs as memory.",
                "With two captures: their calls side by side as 'zluda diff' aligns them, the divergences marked,",
                "a minimap of all of them, next/previous (N/P), and what differs about each (data as a heatmap).", ""},
        footer = {"", "A capture is a capture directory, its capture.zcap, or a pack (zluda pack); without one, use File > Open.",
                "With two (CAPTURE OTHER), the first is the reference (e.g. recorded on NVIDIA's driver) and B the one compared with it.",
                "Needs a display (DISPLAY on Linux); on a machine without one: xvfb-run zluda view CAPTURE.",
                "Exit codes: 0 the window was closed, 2 the capture cannot be read, bad usage or no display."})
final class ViewCommand implements Callable<Integer> {
    /** Reads environment variables; tests replace it. */
    static Function<String, String> env = System::getenv;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "CAPTURE", arity = "0..1", description = "Capture directory, .zcap file or pack (A when there are two).")
    Path capture;

    @Parameters(index = "1", paramLabel = "OTHER", arity = "0..1", description = "A second capture (B), compared with the first.")
    Path other;

    @Option(names = "--screenshot", paramLabel = "PNG",
            description = "Write the window as PNG once the capture is loaded (two: compared), then exit; for a bug report or a machine without a screen (with xvfb-run).")
    Path screenshot;

    @Option(names = "--theme", paramLabel = "THEME", description = "light (default) or dark; Ctrl+Shift+T switches in the window. Also: ZLUDA_VIEW_THEME.")
    String theme;

    @Option(names = "--font-size", paramLabel = "PX", description = "Text size in px (default 12, 18 on an unscaled 4K screen); Ctrl+Plus / Ctrl+Minus / Ctrl+0 in the window.")
    Double fontSize;

    @Option(names = "--size", paramLabel = "WxH", description = "The window's size in px, e.g. 1366x768 (default: 1280x800, larger with larger text).")
    String size;

    @Option(names = "--divergence", paramLabel = "N", defaultValue = "1",
            description = "With two captures: select divergence N once they are compared (default ${DEFAULT-VALUE}, the first); with --screenshot, the window shows it.")
    int divergence;

    @Option(names = "--benchmark", hidden = true,
            description = "Print the time to first paint, the load time and the heap used, then exit (docs/benchmarks.md).")
    boolean benchmark;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut(), err = spec.commandLine().getErr();
        if (theme != null) {
            if (!theme.equals("light") && !theme.equals("dark")) throw new CommandLine.ParameterException(spec.commandLine(), "--theme is light or dark, not '" + theme + "'");
            System.setProperty("zluda.view.theme", theme);
        }
        if (fontSize != null) {
            if (fontSize < 8 || fontSize > 40) throw new CommandLine.ParameterException(spec.commandLine(), "--font-size is 8 to 40 (px), not " + fontSize);
            System.setProperty("zluda.view.fontSize", Double.toString(fontSize));
        }
        if (size != null) {
            if (!size.matches("\\d{3,5}x\\d{3,5}")) throw new CommandLine.ParameterException(spec.commandLine(), "--size is WIDTHxHEIGHT in px, e.g. 1366x768, not '" + size + "'");
            System.setProperty("zluda.view.size", size);
        }
        // the inputs first: a wrong path is the more useful message than a missing display
        for (Path c : new Path[] {capture, other}) {
            if (c != null && !Files.exists(c)) {
                // the words of dump, info and diff for a missing input
                err.println("zluda view: error: " + c + ": no such file or directory");
                err.flush();
                return Main.TROUBLE;
            }
            if (c != null && Files.isDirectory(c) && !Files.exists(c.resolve(dev.zluda.capture.CaptureFormat.CAPTURE_FILE))) {
                err.println("zluda view: error: " + c + ": is not a capture directory (no " + dev.zluda.capture.CaptureFormat.CAPTURE_FILE + ")");
                err.println("  see: zluda view --help");
                err.flush();
                return Main.TROUBLE;
            }
        }
        String problem = Viewer.displayProblem(env);
        if (problem != null) {
            // no window can open: still say first when an input is no capture at all (a text file, a damaged header)
            for (Path c : new Path[] {capture, other}) {
                if (c == null) continue;
                try (Capture ignored = Capture.open(c)) {
                    // readable
                } catch (Exception e) {
                    err.println("zluda view: error: " + Main.describe(e));
                    err.flush();
                    return Main.TROUBLE;
                }
            }
            err.println("zluda view: error: " + problem);
            err.flush();
            return 2;
        }
        if (other != null) {
            if (benchmark) throw new CommandLine.ParameterException(spec.commandLine(), "--benchmark takes one capture");
            if (divergence < 1) throw new CommandLine.ParameterException(spec.commandLine(), "--divergence counts from 1, not " + divergence);
            return Viewer.runDiff(capture, other, new Viewer.Options(screenshot, false, ReplayKernelLocator.standard(), divergence), out, err);
        }
        // open the capture (spec, header, unpacking a pack) while JavaFX starts
        CompletableFuture<Capture> cap = capture == null ? null : CompletableFuture.supplyAsync(() -> {
            try {
                return Capture.open(capture);
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        });
        return Viewer.run(cap, new Viewer.Options(screenshot, benchmark, ReplayKernelLocator.standard()), out, err);
    }
}
