package dev.zluda.runtime.emulator;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.EmulatorForms;
import dev.zluda.ptx.ParseResult;
import dev.zluda.ptx.Ptx;
import dev.zluda.runtime.emulator.conformance.Conformance;
import dev.zluda.runtime.emulator.conformance.MatrixConformance;
import dev.zluda.runtime.emulator.conformance.Sweep;
import dev.zluda.runtime.emulator.conformance.SweepCandidates;
import dev.zluda.runtime.emulator.conformance.SweepData;
import dev.zluda.runtime.emulator.conformance.SweepValues;
import dev.zluda.runtime.emulator.conformance.TextureCases;
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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The instruction sweep ({@link Sweep}) on the emulator, compared with an NVIDIA H200
 * ({@code src/test/resources/conformance/sweep/}, README.md there says how it was recorded).
 *
 * <p>Each form's outputs are compared block by block ({@link SweepValues#BLOCK} tuples) with the H200's CRC-32 of the
 * same block: bit for bit. An approximate form is compared with the H200's recorded outputs, its largest distance in
 * ulp bounded by {@code sweep/ulp-bounds.tsv}. A form whose H200 launch failed (trap) must fail with the same error.
 * In CI the test runs a deterministic stratified subset of the blocks (block 0 — the special values crossed — the
 * last block, and one in {@link #STRIDE} of the others, chosen by the form's seed); {@code -Dzluda.sweep.full=true}
 * runs every block of every form (the figures in docs/support.md are of that run); {@code -Dzluda.sweep.only=REGEX}
 * only the forms whose name matches.
 *
 * <p>It also checks the bookkeeping that keeps the sweep honest: the committed list of forms
 * ({@code sweep/forms.tsv}) is exactly the candidates' (by their PTX's SHA-256), the generator still makes the inputs
 * the H200 was given (CRC-32 of every form's inputs as the harness computed them), every difference is listed in
 * {@code sweep/known-differences.tsv} and every listed one still differs, and the emulator's list of executed forms
 * ({@link EmulatorForms}) is exactly what the recorded suites verified: a form refused by the emulator is never one
 * the sweep shows right, a form it executes never one the sweep shows wrong or did not check.
 * {@code -Dzluda.regen=true} rewrites the lists (known differences, ulp bounds, the emulator's forms) from this run,
 * to be reviewed.
 */
class SweepTest {
    /** One in STRIDE blocks (besides the first and the last) runs in CI. */
    static final int STRIDE = 24;

    private static final boolean FULL = Boolean.getBoolean("zluda.sweep.full");
    private static final String ONLY = System.getProperty("zluda.sweep.only");

    record Outcome(String form, int blocksRun, int blocksDiffer, long maxUlp, String status, List<String> examples, double maxAbs) {}

    /** The blocks of a form this run checks. */
    static List<Integer> blocks(Sweep.Form f) {
        List<Integer> out = new ArrayList<>();
        int nb = f.blocks();
        for (int b = 0; b < nb; b++) {
            if (FULL || b == 0 || b == nb - 1 || Long.remainderUnsigned(SweepValues.mix64(f.plan().seed() ^ b), STRIDE) == 0) out.add(b);
        }
        return out;
    }

    @Test
    void emulatorMatchesH200() throws Exception {
        Map<String, SweepCandidates.Entry> list = SweepCandidates.read();
        List<Sweep.Form> cands = Sweep.candidates();
        List<String> problems = new ArrayList<>();
        // the committed list is the candidates' (what ptxas accepted of them), unchanged
        Map<String, Sweep.Form> byName = new LinkedHashMap<>();
        for (Sweep.Form f : cands) byName.put(f.name(), f);
        for (SweepCandidates.Entry e : list.values()) {
            Sweep.Form f = byName.get(e.name());
            if (f == null) problems.add(e.name() + ": in sweep/forms.tsv but no longer a candidate (run SweepCandidates)");
            else if (!sha(f.ptx()).equals(e.sha())) {
                problems.add(e.name() + ": its PTX changed since sweep/forms.tsv was written (run SweepCandidates, record again)");
            } else if (f.tuples() != e.tuples()) problems.add(e.name() + ": its plan changed (" + f.tuples() + " tuples, listed " + e.tuples() + ")");
        }
        SweepData.Recording rec = SweepData.read();
        Map<String, Map<Integer, byte[]>> raw = SweepData.readRaw();
        Map<String, Long> known = readList("known-differences.tsv"), bounds = readList("ulp-bounds.tsv");
        List<Outcome> outcomes = new ArrayList<>();
        Map<String, Long> newKnown = new TreeMap<>(), newBounds = new TreeMap<>();
        Map<String, Double> absDiff = new TreeMap<>();
        int formsRun = 0, exactOk = 0, approxOk = 0, unrecorded = 0, gpuRefused = 0;
        long tuplesRun = 0, blocksRun = 0;
        long t0 = System.nanoTime();
        try (PtxRun run = new PtxRun(Math.max(1, Math.min(2, Runtime.getRuntime().availableProcessors())))) {
            MemorySegment in = run.buffer((long) SweepValues.BLOCK * 64), out = run.buffer((long) SweepValues.BLOCK * 128);
            byte[] inBytes = new byte[SweepValues.BLOCK * 64];
            for (Sweep.Form f : cands) {
                SweepCandidates.Entry e = list.get(f.name());
                if (e == null || !e.emulatorRuns()) continue;
                if (ONLY != null && !java.util.regex.Pattern.compile(ONLY).matcher(f.name()).find()) continue;
                SweepData.Recorded r = rec.forms().get(f.name());
                if (r == null) {
                    unrecorded++;
                    continue;
                }
                if (r.status().startsWith("timeout-or-crash")) {
                    // the GPU did not answer for it (README.md: the forms of the first recording that never finished)
                    unrecorded++;
                    continue;
                }
                boolean launchFails = !r.ok() && r.status().endsWith(":launch");
                if (!r.ok() && !launchFails) {
                    gpuRefused++;
                    continue;
                }
                Kernel k;
                try {
                    k = run.loadUnchecked(f.ptx()).kernels().get("k");
                } catch (PtxLoadException ex) {
                    problems.add(f.name() + ": the emulator refuses it now: " + ex.getMessage().lines().findFirst().orElse(""));
                    continue;
                }
                formsRun++;
                int differ = 0, ran = 0;
                long maxUlp = 0;
                double[] maxAbs = {0};
                String status = "ran";
                List<String> examples = new ArrayList<>();
                Map<Integer, byte[]> fraw = raw.getOrDefault(f.name(), Map.of());
                for (int b : blocks(f)) {
                    int n = (int) Math.min(SweepValues.BLOCK, f.tuples() - (long) b * SweepValues.BLOCK);
                    SweepValues.fill(f.plan(), (long) b * SweepValues.BLOCK, n, inBytes);
                    MemorySegment.copy(MemorySegment.ofArray(inBytes), 0, in, 0, (long) n * f.plan().stride());
                    out.fill((byte) 0);
                    LaunchResult lr = run.launch(k, new int[] {(n + 127) / 128, 1, 1}, new int[] {128, 1, 1}, 0, in.address(), out.address(), n);
                    ran++;
                    blocksRun++;
                    tuplesRun += n;
                    if (launchFails) {
                        String want = r.status().substring(0, r.status().indexOf(':'));
                        if (b == 0 && (lr.ok() || lr.error() != Integer.parseInt(want))) {
                            differ++;
                            examples.add("    the H200's launch failed (" + r.status() + "), the emulator's " + (lr.ok() ? "succeeded" : "failed with " + lr.error()));
                        }
                        break;
                    }
                    if (!lr.ok()) {
                        differ++;
                        status = "launch failed: " + lr.message();
                        examples.add("    block " + b + ": the launch failed: " + lr.message());
                        break;
                    }
                    byte[] got = out.asSlice(0, (long) n * f.outStride()).toArray(ValueLayout.JAVA_BYTE);
                    if (f.approx() != null) {
                        byte[] want = fraw.get(b);
                        if (want == null) {
                            problems.add(f.name() + ": no recorded outputs of block " + b + " (an approximate form needs them)");
                            break;
                        }
                        long[] u = ulps(f, got, want, inBytes, b, examples, maxAbs);
                        maxUlp = Math.max(maxUlp, u[0]);
                        if (u[1] > 0) differ++;
                        continue;
                    }
                    CRC32 c = new CRC32();
                    c.update(got);
                    if ((int) c.getValue() != r.blocks()[b]) {
                        differ++;
                        if (examples.size() < 6) examples.addAll(describe(f, b, got, fraw.get(b), inBytes));
                    }
                }
                if (f.approx() != null) {
                    newBounds.put(f.name(), maxUlp);
                    Long bound = bounds.get(f.name());
                    if (bound == null || maxUlp > bound) {
                        problems.add(f.name() + ": " + (maxUlp == Long.MAX_VALUE ? "a NaN or second-slot disagreement" : maxUlp + " ulp") + " from the H200, bound "
                                + bound + "\n" + String.join("\n", examples.subList(0, Math.min(6, examples.size()))));
                    } else {
                        approxOk++;
                    }
                } else if (differ > 0) {
                    newKnown.put(f.name(), (long) differ);
                    Long kd = known.get(f.name());
                    if (kd == null || (FULL && differ > kd)) {
                        problems.add(f.name() + ": " + differ + " of " + ran + " blocks differ from the H200 (" + status + ")" + (kd == null ? "" : ", known: " + kd)
                                + "\n" + String.join("\n", examples));
                    }
                } else {
                    exactOk++;
                    if (known.containsKey(f.name())) problems.add(f.name() + ": now matches the H200 in the blocks run; remove it from sweep/known-differences.tsv");
                }
                outcomes.add(new Outcome(f.name(), ran, differ, maxUlp, status, examples, maxAbs[0]));
                if (f.approx() != null) absDiff.put(f.name(), maxAbs[0]);
            }
        }
        // the inputs the H200 was given are the generator's (every form's input CRC, all tuples: only in a full run)
        if (FULL) {
            for (Sweep.Form f : cands) {
                SweepData.Recorded r = rec.forms().get(f.name());
                if (r == null || (ONLY != null && !java.util.regex.Pattern.compile(ONLY).matcher(f.name()).find())) continue;
                if (!r.ok() && r.inputCrc() == 0) continue; // no CRC was reported (the harness stopped at the form)
                if (inputCrc(f) != r.inputCrc()) problems.add(f.name() + ": the generator's inputs differ from those the H200 was given (CRC)");
            }
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        String summary = String.format("sweep: %d forms run on the emulator (%s), %d blocks, %d tuples in %.1f s; %d bit-exact, %d approximate within their bound, "
                        + "%d differing (%d known); %d candidates the emulator refuses, %d forms not recorded, %d refused by the H200",
                formsRun, FULL ? "every block" : "block subset", blocksRun, tuplesRun, secs, exactOk, approxOk, newKnown.size(), known.size(),
                list.values().stream().filter(x -> !x.emulatorRuns()).count(), unrecorded, gpuRefused);
        System.out.println(summary);
        if (!rec.forms().isEmpty() && ONLY == null) checkEmulatorForms(list, rec, known, problems);
        if (Boolean.getBoolean("zluda.regen")) {
            Path res = Path.of("src/test/resources/conformance/sweep");
            Files.createDirectories(res);
            if (FULL && ONLY == null) writeList(res.resolve("known-differences.tsv"), newKnown, "form<TAB>blocks of " + SweepValues.BLOCK + " tuples that differ from the H200 (full run)");
            if (FULL && ONLY == null) {
                StringBuilder sb = new StringBuilder("# approximate form<TAB>largest distance from the H200 in ulp (the bound the test checks)<TAB>largest absolute\n"
                        + "# difference of finite results (f32/f64 forms); written by SweepTest with -Dzluda.sweep.full=true -Dzluda.regen=true\n");
                for (var e : newBounds.entrySet()) {
                    sb.append(e.getKey()).append('\t').append(e.getValue() == Long.MAX_VALUE ? "inf" : e.getValue());
                    Double ad = absDiff.get(e.getKey());
                    if (ad != null && ad > 0) sb.append('\t').append(String.format("%.3g", ad));
                    sb.append('\n');
                }
                Files.writeString(res.resolve("ulp-bounds.tsv"), sb);
            }
            if (!rec.forms().isEmpty() && ONLY == null) {
                Set<String> forms = emulatorForms(list, rec, known);
                StringBuilder sb = new StringBuilder("# The instruction forms the emulator executes (dev.zluda.ptx.EmulatorForms): those of the kernels that computed what an\n"
                        + "# NVIDIA H200 computed in the sweep and the recorded suites (written by SweepTest -Dzluda.regen=true; do not edit by hand).\n"
                        + "# A line FAMILY QUALIFIER names a value-neutral qualifier seen in a checked kernel of that family.\n");
                for (String s : forms) sb.append(s).append('\n');
                Set<String> derived = derivedForms(list, rec, forms);
                if (!derived.isEmpty()) {
                    sb.append("# Derived, not recorded (SweepTest.derivedForms; docs/support.md): .local accesses whose sweep kernel did not come back\n"
                            + "# from the H200, verified through the same .global access and the other .local accesses. To be recorded.\n");
                    for (String s : derived) sb.append(s).append('\n');
                }
                Files.writeString(Path.of("../ptx/src/main/resources/dev/zluda/ptx/emulator-forms.txt"), sb);
            }
            writeReport(Path.of("target/sweep-report.md"), outcomes, summary);
        }
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target/sweep-problems.txt"), String.join("\n", problems) + "\n");
        if (!problems.isEmpty()) fail(summary + "\n" + problems.size() + " problems:\n" + String.join("\n", problems.subList(0, Math.min(40, problems.size()))));
    }

    /** CRC-32 of all a form's inputs. */
    static int inputCrc(Sweep.Form f) {
        CRC32 c = new CRC32();
        byte[] buf = new byte[SweepValues.BLOCK * f.plan().stride()];
        for (long t = 0; t < f.tuples(); t += SweepValues.BLOCK) {
            int n = (int) Math.min(SweepValues.BLOCK, f.tuples() - t);
            SweepValues.fill(f.plan(), t, n, buf);
            c.update(buf, 0, n * f.plan().stride());
        }
        return (int) c.getValue();
    }

    /** {max ulp, tuples differing} of an approximate form's block; examples of the largest distances. */
    private static long[] ulps(Sweep.Form f, byte[] got, byte[] want, byte[] in, int block, List<String> examples, double[] maxAbs) {
        ByteBuffer g = ByteBuffer.wrap(got).order(ByteOrder.LITTLE_ENDIAN), w = ByteBuffer.wrap(want).order(ByteOrder.LITTLE_ENDIAN);
        long max = 0, n = 0;
        int os = f.outStride();
        for (int t = 0; t * os < Math.min(got.length, want.length); t++) {
            long a = g.getLong(t * os), b = w.getLong(t * os);
            boolean second = os > 8 && g.getLong(t * os + 8) != w.getLong(t * os + 8);
            if (a == b && !second) continue;
            long u = second ? Long.MAX_VALUE : Conformance.ulps(f.approx(), a, b);
            if (u == 0) continue;
            if (f.approx() == Conformance.Ulp.F32 || f.approx() == Conformance.Ulp.F64) {
                boolean f64 = f.approx() == Conformance.Ulp.F64;
                double gv = f64 ? Double.longBitsToDouble(a) : Float.intBitsToFloat((int) a), wv = f64 ? Double.longBitsToDouble(b) : Float.intBitsToFloat((int) b);
                if (Double.isFinite(gv) && Double.isFinite(wv)) maxAbs[0] = Math.max(maxAbs[0], Math.abs(gv - wv));
            }
            n++;
            if (u > max) {
                max = u;
                if (examples.size() >= 6) examples.removeFirst();
                examples.add("    tuple " + ((long) block * SweepValues.BLOCK + t) + " in " + hex(in, t * f.plan().stride(), 16)
                        + ": H200 " + Long.toHexString(b) + ", emulator " + Long.toHexString(a) + " (" + (u == Long.MAX_VALUE ? "inf" : u) + " ulp)");
            }
        }
        return new long[] {max, n};
    }

    private static String hex(byte[] b, int off, int len) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < len && off + i < b.length; i += 8) {
            long v = 0;
            for (int k = 7; k >= 0; k--) v = v << 8 | (off + i + k < b.length ? b[off + i + k] & 0xff : 0);
            sb.append(i == 0 ? "" : " ").append(String.format("%016x", v));
        }
        return sb.toString();
    }

    /** The first differing tuples of a block, when the H200's outputs of it are recorded; else the block's number. */
    private static List<String> describe(Sweep.Form f, int b, byte[] got, byte[] want, byte[] in) {
        List<String> out = new ArrayList<>();
        if (want == null) {
            out.add("    block " + b + " (tuples " + (long) b * SweepValues.BLOCK + "..): CRC differs (the H200's outputs of this block are not recorded;"
                    + " SweepData dump shows the inputs)");
            return out;
        }
        int os = f.outStride(), is = f.plan().stride();
        for (int t = 0; t * os < got.length && out.size() < 3; t++) {
            boolean same = true;
            for (int i = 0; i < os; i++) if (got[t * os + i] != want[t * os + i]) same = false;
            if (same) continue;
            out.add("    tuple " + ((long) b * SweepValues.BLOCK + t) + " in " + hex(in, t * is, Math.min(is, 32)) + ": H200 " + hex(want, t * os, os) + ", emulator "
                    + hex(got, t * os, os));
        }
        return out;
    }

    // ------------------------------------------------------------------ the emulator's forms

    /**
     * The forms the recorded suites verified: the instructions of every sweep kernel that ran on the H200, is run by the
     * emulator and matched (is not a known difference), of the instruction-conformance, matrix and texture suites
     * (their own tests compare them with their H200 recordings); minus the subjects of the known differences.
     */
    static Set<String> emulatorForms(Map<String, SweepCandidates.Entry> list, SweepData.Recording rec, Map<String, Long> known) throws IOException {
        Map<String, Long> bounds = readList("ulp-bounds.tsv");
        Set<String> good = new TreeSet<>(), bad = new TreeSet<>();
        for (Sweep.Form f : Sweep.candidates()) {
            SweepCandidates.Entry e = list.get(f.name());
            SweepData.Recorded r = rec.forms().get(f.name());
            if (e == null || !e.emulatorRuns() || r == null || !(r.ok() || r.status().endsWith(":launch"))) continue;
            if (f.approx() != null && !bounds.containsKey(f.name())) continue; // an approximate form without a bound
            if (known.containsKey(f.name())) {
                for (String s : f.subject()) bad.add(keyOf(s));
                continue;
            }
            collect(f.ptx(), good);
        }
        for (Conformance.Form f : Conformance.forms()) collect(Conformance.ptx(f), good);
        for (MatrixConformance.Form f : MatrixConformance.forms()) collect(MatrixConformance.ptx(f), good);
        for (TextureCases.Case c : TextureCases.cases()) collect(c.ptx(), good);
        good.removeAll(bad);
        return good;
    }

    /**
     * The forms the emulator executes without their own recording, each derived from two recorded ones: an
     * {@code ld}/{@code st} of {@code .local} whose sweep kernel did not come back from the H200 (README.md: the
     * forms the GPU never finished) runs when the same access of {@code .global} (the value: width, extension, vector)
     * and other {@code .local} accesses (the address path) are verified. None is used when a recording exists.
     */
    static Set<String> derivedForms(Map<String, SweepCandidates.Entry> list, SweepData.Recording rec, Set<String> verified) {
        Set<String> out = new TreeSet<>();
        boolean localPath = verified.stream().anyMatch(x -> x.startsWith("ld.local.")) && verified.stream().anyMatch(x -> x.startsWith("st.local."));
        for (Sweep.Form f : Sweep.candidates()) {
            SweepCandidates.Entry e = list.get(f.name());
            SweepData.Recorded r = rec.forms().get(f.name());
            if (e == null || !e.emulatorRuns() || (r != null && !r.status().startsWith("timeout-or-crash"))) continue;
            for (String s : f.subject()) {
                String k = keyOf(s);
                if (verified.contains(k) || !k.matches("(ld|st)\\.local\\..*")) continue;
                if (localPath && verified.contains(k.replace(".local.", ".global."))) out.add(k);
            }
        }
        return out;
    }

    private static String keyOf(String form) {
        int dot = form.indexOf('.');
        String op = dot < 0 ? form : form.substring(0, dot);
        List<String> mods = new ArrayList<>();
        if (dot >= 0) for (String m : form.substring(dot + 1).split("\\.")) mods.add("." + m);
        return EmulatorForms.key(op, mods);
    }

    private static void collect(String ptx, Set<String> out) {
        ParseResult p = Ptx.parse(ptx, "sweep.ptx");
        if (p.module() == null) return;
        for (Ast.Function fn : p.module().functions()) if (fn.body() != null) collect(fn.body(), out);
    }

    private static void collect(Ast.Block b, Set<String> out) {
        for (Ast.Statement s : b.statements()) {
            if (s instanceof Ast.Instruction i) {
                out.add(EmulatorForms.key(i.opcode(), i.modifiers()));
                out.addAll(EmulatorForms.qualifiers(i.opcode(), i.modifiers()));
            } else if (s instanceof Ast.Block inner) {
                collect(inner, out);
            }
        }
    }

    private static void checkEmulatorForms(Map<String, SweepCandidates.Entry> list, SweepData.Recording rec, Map<String, Long> known, List<String> problems)
            throws IOException {
        Set<String> want = emulatorForms(list, rec, known);
        want.addAll(derivedForms(list, rec, want));
        Set<String> have = new LinkedHashSet<>(EmulatorForms.list());
        if (!want.equals(have)) {
            Set<String> extra = new TreeSet<>(have), missing = new TreeSet<>(want);
            extra.removeAll(want);
            missing.removeAll(have);
            problems.add("ptx/src/main/resources/dev/zluda/ptx/emulator-forms.txt is not what the recorded suites verified (SweepTest -Dzluda.regen=true rewrites it): "
                    + "listed but not verified " + extra + ", verified but not listed " + missing);
        }
    }

    // ------------------------------------------------------------------ files

    private static String sha(String s) {
        try {
            byte[] d = java.security.MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return java.util.HexFormat.of().formatHex(d, 0, 8);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static Map<String, Long> readList(String name) throws IOException {
        Map<String, Long> m = new LinkedHashMap<>();
        try (InputStream is = SweepTest.class.getResourceAsStream(SweepData.DIR + name)) {
            if (is == null) return m;
            for (String line : new String(is.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isBlank() || line.startsWith("#")) continue;
                String[] p = line.split("\t");
                m.put(p[0], p[1].equals("inf") ? Long.MAX_VALUE : Long.parseLong(p[1]));
            }
        }
        return m;
    }

    private static void writeList(Path p, Map<String, Long> m, String header) throws IOException {
        StringBuilder sb = new StringBuilder("# ").append(header).append("\n# written by SweepTest with -Dzluda.regen=true; reviewed by hand\n");
        for (var e : m.entrySet()) sb.append(e.getKey()).append('\t').append(e.getValue() == Long.MAX_VALUE ? "inf" : e.getValue()).append('\n');
        Files.writeString(p, sb);
    }

    private static void writeReport(Path p, List<Outcome> outcomes, String summary) throws IOException {
        StringBuilder sb = new StringBuilder("# Sweep report\n\n").append(summary).append("\n\n| form | blocks run | blocks differing | max ulp | status |\n|---|---|---|---|---|\n");
        for (Outcome o : outcomes) {
            if (o.blocksDiffer() == 0 && o.maxUlp() == 0) continue;
            sb.append("| `").append(o.form().replace("|", "\\|")).append("` | ").append(o.blocksRun()).append(" | ").append(o.blocksDiffer()).append(" | ")
                    .append(o.maxUlp() == Long.MAX_VALUE ? "inf" : o.maxUlp()).append(" | ").append(o.status().replace("|", "\\|")).append(" |\n");
        }
        Files.createDirectories(p.getParent());
        Files.writeString(p, sb);
    }

    @Test
    void generatorAgreesWithTheRecording() throws Exception {
        // a cheap check that runs in CI: the input CRC of a few forms of each kind, all their tuples
        SweepData.Recording rec = SweepData.read();
        if (rec.forms().isEmpty()) return;
        Set<String> seen = new LinkedHashSet<>();
        int checked = 0;
        for (Sweep.Form f : SweepCandidates.forms()) {
            String kind = f.plan().mode() + ":" + f.plan().classes().length + ":" + f.plan().stride();
            SweepData.Recorded r = rec.forms().get(f.name());
            if (r == null || !r.ok() || !seen.add(kind) || f.tuples() > 300_000) continue;
            assertEquals(r.inputCrc(), inputCrc(f), f.name() + ": the generator's inputs differ from those the H200 was given");
            checked++;
        }
        System.out.println("input CRCs of " + checked + " forms agree with the recording");
    }
}
