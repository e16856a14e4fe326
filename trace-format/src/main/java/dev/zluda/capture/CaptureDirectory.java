package dev.zluda.capture;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The capture directory layout ZLUDA uses (FORMAT.md §1): {@code <log dir>/<exe>/}, then
 * {@code <exe>_1/}, {@code <exe>_2/}, … when it exists; module dumps named
 * {@code module_NNNN_NN.ptx} / {@code .elf}.
 */
public final class CaptureDirectory {
    private CaptureDirectory() {}

    /**
     * Creates the next free capture directory for program {@code exe} (its file name is used) in
     * {@code logDir}, atomically (two processes never get the same one).
     *
     * @throws IOException when the log directory cannot be created or written
     */
    public static Path create(Path logDir, String exe) throws IOException {
        Files.createDirectories(logDir);
        String base = Path.of(exe).getFileName().toString();
        if (base.isEmpty() || base.equals(".") || base.equals("..")) base = "program";
        for (int n = 0; n < 100_000; n++) {
            Path d = logDir.resolve(n == 0 ? base : base + "_" + n);
            try {
                return Files.createDirectory(d);
            } catch (FileAlreadyExistsException e) {
                // taken: try the next number
            }
        }
        throw new IOException(logDir + ": more than 100000 captures of " + base);
    }

    /** {@code module_0001_01.ptx}: library counter from 1 (4 digits), index in it from 1 (2 digits), extension {@code ptx} or {@code elf}. */
    public static String moduleFileName(int library, int index, String extension) {
        return String.format("module_%04d_%02d.%s", library, index, extension);
    }
}
