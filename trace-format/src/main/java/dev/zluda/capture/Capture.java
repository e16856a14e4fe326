package dev.zluda.capture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.zluda.spec.CudaApi;
import dev.zluda.spec.CudaFunction;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A capture as the commands see it: a capture directory ({@code capture.zcap}, {@code manifest.json},
 * module files), a bare {@code .zcap} file, or a pack (a ZIP made by {@code zluda pack}, unpacked
 * safely into a temporary directory that {@link #close()} deletes). Function ids of the capture are
 * resolved to the API spec by name.
 */
public final class Capture implements AutoCloseable {
    private final Path source;
    private final Path directory;
    private final Path tempDir;
    private final CaptureReader reader;
    private final JsonNode manifest;
    private final CudaFunction[] spec;

    private Capture(Path source, Path directory, Path tempDir, CaptureReader reader, JsonNode manifest) {
        this.source = source;
        this.directory = directory;
        this.tempDir = tempDir;
        this.reader = reader;
        this.manifest = manifest;
        CudaApi api = CudaApi.get();
        List<FunctionDef> fs = reader.functions();
        this.spec = new CudaFunction[fs.size()];
        for (int i = 0; i < spec.length; i++) {
            String name = fs.get(i).name();
            // a library's function (cublasSgemm_v2, cudnnConvolutionForward, ...) resolves to its library's spec
            spec[i] = CudaApi.libraryOf(name).equals(CudaApi.DRIVER) ? api.function(name).orElse(null) : CudaApi.anyFunction(name).orElse(null);
        }
    }

    /**
     * Opens a capture directory, capture file or pack.
     *
     * @throws CaptureException naming the file (and offset) when it cannot be read
     */
    public static Capture open(Path path) throws CaptureException {
        if (!Files.exists(path)) throw new CaptureException(path, -1, "no such file or directory");
        Path temp = null;
        Path dir;
        Path file;
        try {
            if (Files.isDirectory(path)) {
                dir = path;
                file = path.resolve(CaptureFormat.CAPTURE_FILE);
                if (!Files.exists(file)) {
                    throw new CaptureException(path, -1, "is not a capture directory (no " + CaptureFormat.CAPTURE_FILE + ")");
                }
            } else if (Pack.isPack(path)) {
                temp = Files.createTempDirectory("zluda-pack-");
                Pack.unpack(path, temp);
                dir = temp;
                file = temp.resolve(CaptureFormat.CAPTURE_FILE);
                if (!Files.exists(file)) throw new CaptureException(path, -1, "the pack holds no " + CaptureFormat.CAPTURE_FILE);
            } else {
                file = path;
                dir = path.toAbsolutePath().getParent();
            }
        } catch (IOException e) {
            if (temp != null) deleteTree(temp);
            throw new CaptureException(path, -1, "cannot read: " + e.getMessage(), e);
        } catch (CaptureException e) {
            if (temp != null) deleteTree(temp);
            throw e;
        }
        try {
            CaptureReader r = CaptureReader.open(file);
            JsonNode m = JsonNodeFactory.instance.objectNode();
            Path mf = dir == null ? null : dir.resolve(CaptureFormat.MANIFEST_FILE);
            if (mf != null && Files.isRegularFile(mf)) {
                try (InputStream in = Files.newInputStream(mf)) {
                    m = new ObjectMapper().readTree(in);
                } catch (IOException e) {
                    r.close();
                    throw new CaptureException(mf, -1, "manifest is not valid JSON: " + e.getMessage(), e);
                }
            }
            return new Capture(path, dir, temp, r, m);
        } catch (CaptureException e) {
            if (temp != null) {
                deleteTree(temp);
                // name the pack, not the temporary copy
                throw new CaptureException(path, e.offset(), "(in the pack) " + e.getMessage().replaceFirst("^.*?: (byte \\d+: )?", ""), e);
            }
            throw e;
        }
    }

    /** What was opened (directory, file or pack). */
    public Path source() {
        return source;
    }

    /** The capture directory (for a pack, the temporary one; for a bare file, its parent). */
    public Path directory() {
        return directory;
    }

    /** The capture file's reader. */
    public CaptureReader reader() {
        return reader;
    }

    /** The manifest, or an empty object when there is none. */
    public JsonNode manifest() {
        return manifest;
    }

    /** The spec function for a capture function id, or null when the spec does not know its name. */
    public CudaFunction specFunction(int functionId) {
        return functionId >= 0 && functionId < spec.length ? spec[functionId] : null;
    }

    /** The name of a capture function id. */
    public String functionName(int functionId) {
        List<FunctionDef> fs = reader.functions();
        return functionId >= 0 && functionId < fs.size() ? fs.get(functionId).name() : "function#" + functionId;
    }

    /** Module dump files in the capture directory ({@code module_NNNN_NN.*}), sorted. */
    public List<Path> moduleFiles() {
        if (directory == null) return List.of();
        try (Stream<Path> s = Files.list(directory)) {
            return s.filter(p -> p.getFileName().toString().matches("module_\\d{4}_\\d{2}\\.\\w+")).sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** Unmaps the capture and deletes a pack's temporary directory. */
    @Override
    public void close() {
        reader.close();
        if (tempDir != null) deleteTree(tempDir);
    }

    static void deleteTree(Path p) {
        try (Stream<Path> s = Files.walk(p)) {
            List<Path> all = new ArrayList<>(s.toList());
            java.util.Collections.reverse(all);
            for (Path x : all) Files.deleteIfExists(x);
        } catch (IOException ignored) {
            // best effort
        }
    }
}
