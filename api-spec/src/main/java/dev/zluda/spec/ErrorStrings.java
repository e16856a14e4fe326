package dev.zluda.spec;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What NVIDIA's {@code cuGetErrorName} and {@code cuGetErrorString} return for each CUresult, as
 * measured on NVIDIA's driver (resource {@code cu-get-error-string.tsv}, written by
 * {@code nvidia-capture/src/main/c/tools/probe_errors.c}). Semantics: CUDA Driver API, Error Handling.
 */
public final class ErrorStrings {
    private final Map<Integer, String> names = new TreeMap<>();
    private final Map<Integer, String> strings = new TreeMap<>();

    private ErrorStrings(InputStream tsv) throws IOException {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(tsv, StandardCharsets.UTF_8))) {
            String line;
            int n = 0;
            while ((line = r.readLine()) != null) {
                n++;
                if (line.startsWith("#") || line.isBlank()) continue;
                String[] f = line.split("\t", 4);
                if (f.length != 4) throw new IOException("cu-get-error-string.tsv:" + n + ": expected 4 columns");
                if (!f[2].equals("0")) continue;
                switch (f[0]) {
                    case "cuGetErrorName" -> names.put(Integer.parseInt(f[1]), f[3]);
                    case "cuGetErrorString" -> strings.put(Integer.parseInt(f[1]), f[3]);
                    default -> { }
                }
            }
        }
    }

    /** Loads the measured table from the classpath; UncheckedIOException when it is missing or malformed. */
    public static ErrorStrings load() {
        try (InputStream in = ErrorStrings.class.getResourceAsStream("/dev/zluda/spec/cu-get-error-string.tsv")) {
            if (in == null) throw new IOException("missing classpath resource /dev/zluda/spec/cu-get-error-string.tsv");
            return new ErrorStrings(in);
        } catch (IOException | NumberFormatException e) {
            throw new UncheckedIOException(new IOException("cannot read cu-get-error-string.tsv: " + e.getMessage(), e));
        }
    }

    /** NVIDIA's name for a CUresult ({@code CUDA_ERROR_INVALID_VALUE}), empty for a code it does not name. */
    public Optional<String> name(int result) {
        return Optional.ofNullable(names.get(result));
    }

    /** NVIDIA's description of a CUresult ({@code invalid argument}), empty for a code it does not name. */
    public Optional<String> description(int result) {
        return Optional.ofNullable(strings.get(result));
    }

    /** Every named code with its name, in ascending order. */
    public Map<Integer, String> names() {
        return Collections.unmodifiableMap(names);
    }
}
