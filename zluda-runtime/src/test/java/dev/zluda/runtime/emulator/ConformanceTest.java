package dev.zluda.runtime.emulator;

import dev.zluda.runtime.emulator.conformance.Conformance;
import dev.zluda.runtime.emulator.conformance.ConformanceData;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Runs every kernel of the instruction-conformance suite ({@link Conformance}) on the emulator and
 * compares its output with what an NVIDIA H200 computed for the same inputs
 * ({@code src/test/resources/conformance/h200/}, see the README there).
 *
 * <p>Exact forms must match bit for bit; for approximate forms ({@code sin.approx}, {@code ex2.approx},
 * {@code div.full}, ...) the largest distance in units in the last place is measured and must not exceed
 * the bound in {@code conformance/ulp-bounds.txt}. Forms the emulator does not match yet are listed with
 * their mismatch count in {@code conformance/known-differences.txt} (and in docs/support.md): the test
 * fails when a form not listed differs, when a listed form differs in more tuples than listed, and when a
 * listed form has become exact (so the list cannot go stale). Each failure prints the form, the inputs and
 * both outputs. {@code -Dzluda.regen=true} rewrites both lists from this run (to be reviewed, never to hide
 * a regression) and writes {@code target/conformance-report.md}.
 */
class ConformanceTest {
    private static final int SHOW = 4;

    private record Result(String form, String family, int tuples, int mismatches, long maxUlp, String status, List<String> examples, double maxAbs) {
        Result(String form, String family, int tuples, int mismatches, long maxUlp, String status, List<String> examples) {
            this(form, family, tuples, mismatches, maxUlp, status, examples, 0);
        }
    }

    @Test
    void emulatorMatchesH200() throws Exception {
        Map<String, Long> known = Boolean.getBoolean("zluda.conformance.all") ? Map.of() : readList("/conformance/known-differences.txt");
        Map<String, Long> bounds = Boolean.getBoolean("zluda.conformance.all") ? Map.of() : readList("/conformance/ulp-bounds.txt");
        List<Result> results = new ArrayList<>();
        int gpuRejected = 0;
        List<String> problems = new ArrayList<>();
        try (PtxRun run = new PtxRun(1)) {
            MemorySegment in = run.buffer((long) Conformance.N * Conformance.IN_BYTES);
            MemorySegment out = run.buffer((long) Conformance.N * Conformance.OUT_BYTES);
            for (String family : Conformance.families()) {
                Map<String, ConformanceData.Recorded> recorded;
                try (InputStream is = ConformanceTest.class.getResourceAsStream("/conformance/h200/" + family + ".bin.gz")) {
                    assertNotNull(is, "no recorded data for family " + family + " (conformance/h200/" + family + ".bin.gz)");
                    recorded = ConformanceData.read(is);
                }
                for (Conformance.Form f : Conformance.forms()) {
                    if (!f.family().equals(family)) continue;
                    ConformanceData.Recorded rec = recorded.get(f.name());
                    if (rec == null) {
                        problems.add(f.name() + ": not in the recorded data (record it on the GPU: see conformance/h200/README.md)");
                        continue;
                    }
                    byte[] inputs = Conformance.inputs(f);
                    if (rec.crc() != Conformance.inputCrc(f)) {
                        problems.add(f.name() + ": the generator's inputs differ from those recorded (CRC); record again");
                        continue;
                    }
                    if (rec.result() != 0) {
                        gpuRejected++;
                        results.add(new Result(f.name(), family, 0, 0, 0, "rejected by the GPU: " + rec.log(), List.of()));
                        continue;
                    }
                    results.add(runForm(run, f, inputs, rec.out(), in, out));
                }
            }
        }
        Map<String, Long> newKnown = new TreeMap<>(), newBounds = new TreeMap<>();
        int exact = 0, approxForms = 0, approxOver = 0, unsupported = 0, differing = 0;
        for (Result r : results) {
            Conformance.Form f = Conformance.byName(r.form);
            if (r.status.startsWith("rejected")) continue;
            if (r.status.startsWith("unsupported")) {
                unsupported++;
                newKnown.put(r.form, -1L);
                if (!known.containsKey(r.form) || known.get(r.form) != -1L) problems.add(r.form + ": " + r.status);
                continue;
            }
            if (f.approx() != null) {
                approxForms++;
                newBounds.put(r.form, r.maxUlp);
                Long b = bounds.get(r.form);
                if (b == null || r.maxUlp > b) {
                    approxOver++;
                    problems.add(r.form + ": " + (r.maxUlp == Long.MAX_VALUE ? "NaN/non-NaN or sign disagreement" : r.maxUlp + " ulp")
                            + " from the H200, bound " + b + "\n" + String.join("\n", r.examples));
                }
            }
            if (r.mismatches > 0 && f.approx() == null) {
                differing++;
                newKnown.put(r.form, (long) r.mismatches);
                Long k = known.get(r.form);
                if (k == null || r.mismatches > k) {
                    problems.add(r.form + ": " + r.mismatches + " of " + r.tuples + " results differ from the H200"
                            + (k == null ? "" : " (known: " + k + ")") + "\n" + String.join("\n", r.examples));
                }
            } else if (f.approx() == null) {
                exact++;
                if (known.containsKey(r.form)) problems.add(r.form + ": now matches the H200 exactly; remove it from conformance/known-differences.txt");
            }
        }
        String summary = String.format("conformance: %d forms; %d bit-exact, %d approximate (%d beyond their ULP bound), %d differing, "
                        + "%d not supported by the emulator, %d rejected by the GPU", results.size(), exact, approxForms, approxOver, differing, unsupported,
                gpuRejected);
        System.out.println(summary);
        if (Boolean.getBoolean("zluda.regen")) {
            Path res = Path.of("src/test/resources/conformance");
            writeList(res.resolve("known-differences.txt"), newKnown,
                    "form  mismatching tuples of " + Conformance.N + " (-1: the emulator rejects the form)");
            writeList(res.resolve("ulp-bounds.txt"), newBounds, "approximate form  largest distance from the H200 in ulp");
            writeReport(Path.of("target/conformance-report.md"), results, summary);
        }
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target/conformance-problems.txt"), String.join("\n", problems) + "\n");
        if (!problems.isEmpty()) {
            fail(summary + "\n" + problems.size() + " problems:\n" + String.join("\n", problems.subList(0, Math.min(60, problems.size()))));
        }
    }

    private Result runForm(PtxRun run, Conformance.Form f, byte[] inputs, byte[] expected, MemorySegment in, MemorySegment out) {
        Kernel k;
        try {
            k = run.load(Conformance.ptx(f)).kernels().get("k");
        } catch (PtxLoadException e) {
            String msg = e.getMessage().lines().filter(l -> l.contains("error")).findFirst().orElse(e.getMessage());
            return new Result(f.name(), f.family(), Conformance.N, Conformance.N, 0, "unsupported: " + msg.strip(), List.of());
        }
        MemorySegment.copy(MemorySegment.ofArray(inputs), 0, in, 0, inputs.length);
        out.fill((byte) 0);
        LaunchResult lr = run.launch(k, new int[] {(Conformance.N + 127) / 128, 1, 1}, new int[] {128, 1, 1}, 0, in.address(), out.address(),
                Conformance.N);
        if (!lr.ok()) {
            return new Result(f.name(), f.family(), Conformance.N, Conformance.N, Long.MAX_VALUE, "failed: " + lr.message(), List.of());
        }
        byte[] got = out.toArray(ValueLayout.JAVA_BYTE);
        ByteBuffer g = ByteBuffer.wrap(got).order(ByteOrder.LITTLE_ENDIAN), e = ByteBuffer.wrap(expected).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer ib = ByteBuffer.wrap(inputs).order(ByteOrder.LITTLE_ENDIAN);
        int mismatches = 0;
        long maxUlp = 0;
        double maxAbs = 0;
        List<String> examples = new ArrayList<>();
        for (int i = 0; i < Conformance.N; i++) {
            long g0 = g.getLong(i * 16), g1 = g.getLong(i * 16 + 8), e0 = e.getLong(i * 16), e1 = e.getLong(i * 16 + 8);
            boolean bad;
            long ulp = 0;
            if (f.approx() != null) {
                ulp = g1 != e1 ? Long.MAX_VALUE : Conformance.ulps(f.approx(), g0, e0);
                maxUlp = Math.max(maxUlp, ulp);
                if (f.approx() == Conformance.Ulp.F32 || f.approx() == Conformance.Ulp.F64) {
                    boolean f64 = f.approx() == Conformance.Ulp.F64;
                    double gv = f64 ? Double.longBitsToDouble(g0) : Float.intBitsToFloat((int) g0);
                    double ev = f64 ? Double.longBitsToDouble(e0) : Float.intBitsToFloat((int) e0);
                    if (Double.isFinite(gv) && Double.isFinite(ev)) maxAbs = Math.max(maxAbs, Math.abs(gv - ev));
                }
                bad = ulp != 0;
            } else {
                bad = g0 != e0 || g1 != e1;
            }
            if (bad) {
                mismatches++;
                boolean worst = f.approx() != null && ulp >= maxUlp;
                if (examples.size() < SHOW || worst) {
                    StringBuilder sb = new StringBuilder("    ").append(f.name()).append(" inputs");
                    for (int j = 0; j < f.ops().length; j++) sb.append(' ').append(hex(ib.getLong(i * 32 + 8 * j), f.ops()[j].size));
                    sb.append(": H200 ").append(hex(e0, 8));
                    if (f.dst2() != null) sb.append('/').append(hex(e1, 8));
                    sb.append(", emulator ").append(hex(g0, 8));
                    if (f.dst2() != null) sb.append('/').append(hex(g1, 8));
                    if (f.approx() != null) sb.append(" (").append(ulp == Long.MAX_VALUE ? "inf" : ulp).append(" ulp)");
                    if (examples.size() >= SHOW) examples.removeLast(); // keep the largest distance seen last
                    examples.add(sb.toString());
                }
            }
        }
        return new Result(f.name(), f.family(), Conformance.N, mismatches, maxUlp, "ran", examples, maxAbs);
    }

    private static String hex(long v, int bytes) {
        String s = Long.toHexString(bytes == 8 ? v : v & ((1L << (8 * bytes)) - 1));
        return "0x" + "0".repeat(Math.max(0, 2 * bytes - s.length())) + s;
    }

    private static Map<String, Long> readList(String resource) throws IOException {
        Map<String, Long> m = new LinkedHashMap<>();
        try (InputStream is = ConformanceTest.class.getResourceAsStream(resource)) {
            if (is == null) return m;
            for (String line : new String(is.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                line = line.strip();
                if (line.isEmpty() || line.startsWith("#")) continue;
                int sp = line.lastIndexOf(' ');
                m.put(line.substring(0, sp).strip(), Long.parseLong(line.substring(sp + 1)));
            }
        }
        return m;
    }

    private static void writeList(Path p, Map<String, Long> m, String header) throws IOException {
        StringBuilder sb = new StringBuilder("# ").append(header).append("\n# written by ConformanceTest with -Dzluda.regen=true; reviewed by hand\n");
        for (var e : m.entrySet()) sb.append(e.getKey()).append("  ").append(e.getValue()).append('\n');
        Files.writeString(p, sb);
    }

    private static void writeReport(Path p, List<Result> results, String summary) throws IOException {
        StringBuilder sb = new StringBuilder("# Conformance report\n\n").append(summary).append("\n\n");
        sb.append("| form | status | tuples differing (of ").append(Conformance.N).append(") | max ulp | max absolute difference (finite results) |\n|---|---|---|---|---|\n");
        for (Result r : results) {
            Conformance.Form f = Conformance.byName(r.form);
            if (r.mismatches == 0 && f.approx() == null && r.status.equals("ran")) continue;
            sb.append("| `").append(r.form).append("` | ").append(r.status.replace("|", "\\|")).append(" | ").append(r.mismatches).append(" | ")
                    .append(f.approx() == null ? "" : r.maxUlp == Long.MAX_VALUE ? "NaN mismatch" : String.valueOf(r.maxUlp)).append(" | ")
                    .append(r.maxAbs == 0 ? "" : String.format("%.3g", r.maxAbs)).append(" |\n");
        }
        Files.createDirectories(p.getParent());
        Files.writeString(p, sb);
    }
}
