package dev.zluda.cli;

import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureException;
import dev.zluda.capture.Pack;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.Callable;

/** {@code zluda pack CAPTURE -o FILE [--redact data,env,paths]}. */
@Command(name = "pack", mixinStandardHelpOptions = true,
        description = {"Pack a capture (manifest, capture file, module dumps) into one ZIP file for a bug report.",
                "Every command accepts the pack in place of the capture directory.", ""},
        footer = {"", "  --redact data   buffer contents become their hashes and sizes (module images are kept)",
                "  --redact env    environment variables other than CUDA_* and ZLUDA_* are removed from the manifest",
                "  --redact paths  home-directory paths in the manifest become ~",
                "The manifest in the pack lists what was redacted.",
                "An existing FILE is not replaced without --force (a redacted pack must not be overwritten by an unredacted one by mistake).",
                "Exit codes: 0 packed, 2 unreadable capture, write error, an existing FILE or bad usage."})
final class PackCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    CaptureArgument capture;

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "FILE", description = "The pack to write (a ZIP file).")
    Path output;

    @Option(names = "--force", description = "Replace FILE when it exists.")
    boolean force;

    @Option(names = "--redact", split = ",", paramLabel = "WHAT", description = "data, env, paths (comma-separated).")
    java.util.List<String> redact = new java.util.ArrayList<>();

    @Override
    public Integer call() throws CaptureException, IOException {
        Set<Pack.Redaction> r = EnumSet.noneOf(Pack.Redaction.class);
        for (String s : redact) {
            try {
                r.add(Pack.Redaction.parse(s));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
        }
        if (java.nio.file.Files.exists(output) && !force) {
            throw new CommandLine.ParameterException(spec.commandLine(), output + " exists; pass --force to replace it");
        }
        try (Capture cap = capture.open()) {
            Pack.pack(cap, output, r);
        } catch (IOException e) {
            throw new Main.WriteError(output, e);
        }
        spec.commandLine().getOut().println("wrote " + output + (r.isEmpty() ? "" : " (redacted: " + r.toString().toLowerCase(java.util.Locale.ROOT) + ")"));
        spec.commandLine().getOut().flush();
        return 0;
    }
}
