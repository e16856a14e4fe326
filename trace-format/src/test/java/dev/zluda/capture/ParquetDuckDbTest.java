package dev.zluda.capture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.zluda.capture.convert.ParquetConverter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * DuckDB, a Parquet reader that shares no code with parquet-java, reads what
 * {@code zluda convert --to parquet} writes (a generated capture and the committed H200 captures),
 * through {@code src/test/node/duckdb-check.cjs} and DuckDB's node package.
 *
 * <p>Needs {@code node} and the package under {@code trace-format/target/duckdb-node}
 * ({@code bash trace-format/src/test/node/install.sh}); skipped with a message saying so when either
 * is missing, unless {@code ZLUDA_REQUIRE_DUCKDB=1} (CI), which makes that a failure.
 * {@code ZLUDA_DUCKDB_NODE_MODULES} points at another {@code node_modules}.
 */
class ParquetDuckDbTest {
    @TempDir
    Path dir;

    private static final Path REPO = Path.of(System.getProperty("zluda.repo", "..")).toAbsolutePath().normalize();

    @Test
    void duckDbReadsTheTables() throws Exception {
        Path modules = nodeModules();
        Path script = REPO.resolve("trace-format/src/test/node/duckdb-check.cjs");

        List<Path> captures = new ArrayList<>();
        Path gen = dir.resolve("generated/" + CaptureFormat.CAPTURE_FILE);
        Files.createDirectories(gen.getParent());
        TestCaptures.write(gen, 4096, 3, 300, true, true);
        captures.add(gen.getParent());
        try (Stream<Path> s = Files.list(REPO.resolve("samples/traces/h200"))) {
            s.filter(p -> Files.isRegularFile(p.resolve(CaptureFormat.CAPTURE_FILE))).sorted().forEach(captures::add);
        }
        List<String> cmd = new ArrayList<>(List.of("node", script.toString()));
        List<ParquetConvertTest.Counts> want = new ArrayList<>();
        List<long[]> seqs = new ArrayList<>();
        for (Path c : captures) {
            Path out = dir.resolve("pq-" + c.getFileName());
            try (Capture cap = Capture.open(c)) {
                ParquetConverter.write(cap, out);
            }
            want.add(ParquetConvertTest.count(c));
            seqs.add(extra(c));
            cmd.add(out.toString());
        }

        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(false);
        pb.environment().put("NODE_PATH", modules.toString());
        Process p = pb.start();
        p.getOutputStream().close();
        byte[] stdout = p.getInputStream().readAllBytes();
        String stderr = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "node did not finish");
        assertEquals(0, p.exitValue(), "duckdb-check.cjs failed: " + stderr);
        JsonNode all = new ObjectMapper().readTree(stdout);
        assertEquals(captures.size(), all.size());

        for (int i = 0; i < captures.size(); i++) {
            JsonNode r = all.get(i);
            ParquetConvertTest.Counts c = want.get(i);
            long[] x = seqs.get(i);
            String what = captures.get(i).getFileName() + " (DuckDB " + r.path("duckdb").asText() + ")";
            assertEquals(c.calls(), r.at("/calls/n").asLong(), what + ": calls");
            assertEquals(c.byFunction().size(), r.at("/calls/functions").asLong(), what);
            assertEquals(x[0], r.at("/calls/in_flight").asLong(), what + ": in flight");
            assertEquals(c.calls() - x[0], r.at("/calls/returned").asLong(), what);
            assertEquals(x[1], r.at("/calls/min_seq").asLong(), what);
            assertEquals(x[2], r.at("/calls/max_seq").asLong(), what);
            Map<String, Integer> byFn = new TreeMap<>();
            for (JsonNode f : r.get("by_function")) byFn.put(f.get("function").asText(), f.get("n").asInt());
            assertEquals(c.byFunction(), byFn, what);
            assertEquals(c.args(), r.at("/arguments/n").asLong(), what + ": arguments");
            assertEquals(x[3], r.at("/arguments/calls").asLong(), what);
            if (c.args() > 0) assertEquals("UBIGINT", r.at("/arguments/value_type").asText(), what);
            assertEquals(0, r.path("orphan_arguments").asLong(), what);
            assertEquals(c.blobs(), r.at("/blobs/n").asLong(), what + ": blobs");
            assertEquals(x[4], r.at("/blobs/bytes").asLong(), what);
            assertEquals(c.modules(), r.at("/modules/n").asLong(), what + ": modules");
            assertEquals(c.launches(), r.at("/kernel_launches/n").asLong(), what + ": launches");
        }
    }

    /** in-flight calls, smallest and largest ENTER seq, calls with arguments, blob bytes. */
    private static long[] extra(Path capture) throws CaptureException {
        long[] x = {0, Long.MAX_VALUE, -1, 0, 0};
        try (CaptureReader r = CaptureReader.open(capture.resolve(CaptureFormat.CAPTURE_FILE))) {
            java.util.Set<Long> open = new java.util.HashSet<>();
            for (CaptureRecord rec : r) {
                switch (rec) {
                    case CaptureRecord.Enter e -> {
                        open.add(e.seq());
                        x[1] = Math.min(x[1], e.seq());
                        x[2] = Math.max(x[2], e.seq());
                        if (e.args().length > 0) x[3]++;
                    }
                    case CaptureRecord.Leave l -> open.remove(l.enterSeq());
                    case CaptureRecord.Blob b -> x[4] += b.size();
                    default -> { }
                }
            }
            x[0] = open.size();
        }
        return x;
    }

    /** Where DuckDB's node package is; skips (or, with ZLUDA_REQUIRE_DUCKDB=1, fails) when it or node is missing. */
    private static Path nodeModules() throws InterruptedException {
        boolean require = "1".equals(System.getenv("ZLUDA_REQUIRE_DUCKDB"));
        String how = "install it with: bash trace-format/src/test/node/install.sh (needs node and npm; Debian: apt-get install -y nodejs npm)";
        String node = nodeVersion();
        if (node == null) {
            String msg = "SKIPPED: node is not installed, so DuckDB cannot check the Parquet output; " + how;
            if (require) fail(msg.replace("SKIPPED: ", "ZLUDA_REQUIRE_DUCKDB=1 but "));
            System.err.println("ParquetDuckDbTest " + msg);
            assumeTrue(false, msg);
        }
        String env = System.getenv("ZLUDA_DUCKDB_NODE_MODULES");
        Path m = env != null && !env.isEmpty() ? Path.of(env) : REPO.resolve("trace-format/target/duckdb-node/node_modules");
        if (!Files.isDirectory(m.resolve("@duckdb/node-api"))) {
            String msg = "SKIPPED: DuckDB for node is not in " + m + "; " + how;
            if (require) fail(msg.replace("SKIPPED: ", "ZLUDA_REQUIRE_DUCKDB=1 but "));
            System.err.println("ParquetDuckDbTest " + msg);
            assumeTrue(false, msg);
        }
        return m;
    }

    private static String nodeVersion() throws InterruptedException {
        try {
            Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
            String v = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0 ? v : null;
        } catch (IOException e) {
            return null;
        }
    }
}
