package dev.zluda.cli;

import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureException;
import dev.zluda.capture.CaptureInfo;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code zluda info CAPTURE}: what a capture holds. */
@Command(name = "info", mixinStandardHelpOptions = true,
        description = {"Summarise a capture: process, driver, devices, duration, calls and errors per function,",
                "modules, kernels launched, blobs, and whether it ended cleanly.", ""},
        footer = {"", "CAPTURE is a capture directory, its capture.zcap, or a pack (zluda pack).",
                "Exit codes: 0 read, 2 missing or unreadable, or bad usage."})
final class InfoCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    CaptureArgument capture;

    @Override
    public Integer call() throws CaptureException {
        try (Capture cap = capture.open()) {
            CaptureInfo.of(cap).print(cap, spec.commandLine().getOut());
            return 0;
        }
    }
}
