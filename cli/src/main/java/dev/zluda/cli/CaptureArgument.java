package dev.zluda.cli;

import dev.zluda.capture.Capture;
import dev.zluda.capture.CaptureException;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;

/**
 * The CAPTURE argument of the commands that read one capture ({@code zluda dump}, {@code info}, {@code pack},
 * {@code replay}, {@code convert}): a capture directory, its capture.zcap, or a pack ({@code zluda pack}), always the
 * first positional argument.
 */
final class CaptureArgument {
    @Parameters(index = "0", paramLabel = "CAPTURE", description = "Capture directory, .zcap file or pack.")
    Path path;

    /**
     * Opens the capture.
     *
     * @throws CaptureException when it is missing or cannot be read
     */
    Capture open() throws CaptureException {
        return Capture.open(path);
    }

    @Override
    public String toString() {
        return String.valueOf(path);
    }
}
