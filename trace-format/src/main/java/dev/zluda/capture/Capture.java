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
    private final TempCopy tempDir;
    private final CaptureReader reader;
    private final JsonNode manifest;
    private final CudaFunction[] spec;

    private Capture(Path source, Path directory, TempCopy tempDir, CaptureReader reader, JsonNode manifest) {
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
     * Opens a capture directory, capture file or pack. A pack is unpacked into a fresh temporary
     * directory ({@link Pack#unpack}), which is removed on every path out: when opening fails (with any
     * exception), when the capture is closed, and at JVM exit (a shutdown hook) for a capture never
     * closed, e.g. a command stopped with Ctrl-C.
     *
     * @throws CaptureException naming the file (and offset) when it cannot be read
     */
    public static Capture open(Path path) throws CaptureException {
        if (!Files.exists(path)) throw new CaptureException(path, -1, "no such file or directory");
        TempCopy temp = null;
        CaptureReader r = null;
        boolean ok = false;
        try {
            Path dir;
            Path file;
            if (Files.isDirectory(path)) {
                dir = path;
                file = path.resolve(CaptureFormat.CAPTURE_FILE);
                if (!Files.exists(file)) throw new CaptureException(path, -1, notACaptureDirectory(path));
            } else if (Pack.isPack(path)) {
                temp = new TempCopy(Files.createTempDirectory(tempParent(), "zluda-pack-"));
                Pack.unpack(path, temp.dir);
                dir = temp.dir;
                file = temp.dir.resolve(CaptureFormat.CAPTURE_FILE);
                if (!Files.exists(file)) throw new CaptureException(path, -1, "the pack holds no " + CaptureFormat.CAPTURE_FILE);
            } else {
                file = path;
                dir = path.toAbsolutePath().getParent();
            }
            try {
                r = CaptureReader.open(file);
            } catch (CaptureException e) {
                // name the pack, not the temporary copy
                if (temp != null) throw new CaptureException(path, e.offset(), "(in the pack) " + e.getMessage().replaceFirst("^.*?: (byte \\d+: )?", ""), e);
                throw e;
            }
            JsonNode m = JsonNodeFactory.instance.objectNode();
            Path mf = dir == null ? null : dir.resolve(CaptureFormat.MANIFEST_FILE);
            if (mf != null && Files.isRegularFile(mf)) m = readManifest(temp != null ? path : mf, mf);
            Capture c = new Capture(path, dir, temp, r, m);
            ok = true;
            return c;
        } catch (IOException e) {
            throw new CaptureException(path, -1, "cannot read: " + e.getMessage(), e);
        } finally {
            if (!ok) {
                if (r != null) r.close();
                if (temp != null) temp.close();
            }
        }
    }

    /** Why a directory is no capture directory: what it holds instead, when that says something. */
    private static String notACaptureDirectory(Path dir) {
        List<String> names = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.limit(1000).forEach(p -> names.add(p.getFileName().toString()));
        } catch (IOException e) {
            return "is not a capture directory (no " + CaptureFormat.CAPTURE_FILE + ")";
        }
        if (names.stream().anyMatch(n -> n.endsWith(".parquet"))) {
            return "is not a capture directory (no " + CaptureFormat.CAPTURE_FILE + "): it holds Parquet tables (zluda convert --to parquet"
                    + " writes these); give the capture they were converted from";
        }
        if (names.isEmpty()) {
            return "is empty: no " + CaptureFormat.CAPTURE_FILE + " (a capture directory whose process was killed before the recorder wrote"
                    + " its first record is left so)";
        }
        if (names.stream().allMatch(n -> n.startsWith("." + CaptureFormat.CAPTURE_FILE + ".") || n.equals(CaptureFormat.MANIFEST_FILE))) {
            return "holds no " + CaptureFormat.CAPTURE_FILE + ": the process ended before the recorder wrote its first record (nothing was recorded)";
        }
        return "is not a capture directory (no " + CaptureFormat.CAPTURE_FILE + ")";
    }

    /** Largest manifest read, in bytes (a manifest is a few KiB; its environment and arguments at most a few MiB). */
    static final long MAX_MANIFEST = 64L << 20;

    /**
     * Reads a manifest (FORMAT.md §7): a JSON object. Anything else is a CaptureException naming
     * {@code name} (the pack, for a pack), the line and column, and what is wrong.
     */
    static JsonNode readManifest(Path name, Path mf) throws CaptureException {
        try {
            long size = Files.size(mf);
            if (size > MAX_MANIFEST) throw new CaptureException(name, -1, "manifest.json is " + size + " bytes: not a zluda manifest (at most " + MAX_MANIFEST + ")");
            JsonNode m;
            try (InputStream in = Files.newInputStream(mf)) {
                m = new ObjectMapper().readTree(in);
            }
            if (m == null || m.isMissingNode()) return JsonNodeFactory.instance.objectNode();
            if (!m.isObject()) throw new CaptureException(name, -1, "manifest.json holds a JSON " + m.getNodeType().name().toLowerCase(java.util.Locale.ROOT) + ", not an object (FORMAT.md §7)");
            return m;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            var loc = e.getLocation();
            String where = loc != null && loc.getLineNr() > 0 ? "line " + loc.getLineNr() + ", column " + loc.getColumnNr() + ": " : "";
            throw new CaptureException(name, -1, "manifest.json is not valid JSON: " + where + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new CaptureException(name, -1, "cannot read manifest.json: " + e.getMessage(), e);
        }
    }

    /** Where packs are unpacked (a test may point it elsewhere); null: the system's temporary directory. */
    static volatile Path tempParentForTests;

    private static Path tempParent() throws IOException {
        Path p = tempParentForTests;
        return p != null ? p : Path.of(System.getProperty("java.io.tmpdir"));
    }

    /** A pack's unpacked copy: deleted by {@link #close()}, or at JVM exit if nobody closes it. */
    static final class TempCopy implements AutoCloseable {
        final Path dir;
        private final Thread hook;

        TempCopy(Path dir) {
            this.dir = dir;
            Thread h = new Thread(() -> deleteTree(dir), "zluda-pack-cleanup");
            try {
                Runtime.getRuntime().addShutdownHook(h);
            } catch (IllegalStateException exiting) {
                h = null;
            }
            this.hook = h;
        }

        @Override
        public void close() {
            deleteTree(dir);
            if (hook != null) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException exiting) {
                    // the hook runs (or ran) anyway
                }
            }
        }
    }

    /**
     * A capture over an open reader (e.g. one reading bytes in memory), with the manifest given: for
     * tests and tools that read captures without a directory. Closing it closes the reader.
     */
    public static Capture of(CaptureReader reader, JsonNode manifest) {
        return new Capture(reader.file(), null, null, reader, manifest == null ? JsonNodeFactory.instance.objectNode() : manifest);
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
        try {
            reader.close();
        } finally {
            if (tempDir != null) tempDir.close();
        }
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
