package dev.zluda.runtime.emulator.conformance;

import dev.zluda.ptx.llvm.LlvmTarget;
import dev.zluda.ptx.llvm.LlvmTools;
import dev.zluda.ptx.llvm.PtxCompiler;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * Check (b) of the AMD back end: the LLVM IR that {@code dev.zluda.ptx.llvm} lowers each conformance form to,
 * compiled by LLVM 22 for NVPTX ({@code sm_90}) and run on an NVIDIA H200, must compute what the original PTX
 * computed on the same GPU (the recorded data of {@code conformance/h200}).
 *
 * <p>Usage: {@code LlvmConformance prepare [--target T] DIR} writes the input of {@code conformance_harness.c}
 * (forms.txt, in.bin, ptx/NNNN.ptx — the LLVM-compiled PTX, or a comment that fails to load for a form the lowering
 * refuses) and DIR/lowered.txt; after the harness ran, {@code LlvmConformance record [--target T] DIR FILE} writes
 * the results file (one line per form: name, SHA-256 prefix of the lowered IR, outcome, CRC-32 of the 256 output
 * records), which {@code LlvmConformanceTest} compares with the H200's recorded outputs.
 *
 * <p>The target {@code T} is {@code sm_90} (the default, results in {@link #RESULTS}) or {@code sm_90_as_amd}
 * ({@link LlvmTarget#SM_90_AS_AMD}: NVPTX lowered as for AMD, results in {@link #RESULTS_AS_AMD}). For
 * {@code sm_90_as_amd} only the forms whose IR differs from their {@code sm_90} IR are prepared, run and recorded
 * (the target-neutral sequences AMD targets run in place of NVPTX intrinsics); the others are the {@code sm_90}
 * run's. It also writes each prepared form's original PTX to DIR/native/NNNN.ptx, which
 * {@code conformance/compare_lowering.c} runs beside the lowering on many more inputs.
 */
public final class LlvmConformance {
    private LlvmConformance() {}

    /** The resource holding the recorded results of the LLVM path ({@code sm_90}). */
    public static final String RESULTS = "/conformance/nvptx-llvm.txt";

    /**
     * The resource holding the recorded results of the LLVM path lowered as for AMD ({@link LlvmTarget#SM_90_AS_AMD}),
     * for the forms whose IR differs from their {@code sm_90} IR.
     */
    public static final String RESULTS_AS_AMD = "/conformance/nvptx-llvm-as-amd.txt";

    /** SHA-256 (first 16 hex digits) of a form's IR lowered for {@code sm_90}, or null with the reason in {@code why[0]}. */
    static String irHash(Conformance.Form f, String[] why) {
        return irHash(f, LlvmTarget.SM_90, why);
    }

    /**
     * SHA-256 (first 16 hex digits) of a form's IR lowered for {@code target}, or null with the reason in {@code why[0]};
     * the IR the recording ran, also for the forms the lowering refuses since ({@code dev.zluda.ptx.llvm.LlvmForms}).
     */
    static String irHash(Conformance.Form f, LlvmTarget target, String[] why) {
        PtxCompiler.Lowered l = PtxCompiler.lower(Conformance.ptx(f), f.name(), target, false);
        if (!l.ok()) {
            why[0] = l.errors().isEmpty() ? "not lowered" : l.errors().get(0).message();
            return null;
        }
        return sha(l.ir());
    }

    static String sha(String s) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static long crc(byte[] b) {
        CRC32 c = new CRC32();
        c.update(b);
        return c.getValue();
    }

    /** One line of the results file. */
    record Outcome(String name, String ir, String status, long crc) {}

    /** Reads the results file. */
    static Map<String, Outcome> readResults(InputStream in) throws IOException {
        Map<String, Outcome> m = new LinkedHashMap<>();
        for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
            if (line.isBlank() || line.startsWith("#")) continue;
            String[] p = line.split("\t", -1);
            m.put(p[0], new Outcome(p[0], p[1], p[2], Long.parseLong(p[3], 16)));
        }
        return m;
    }

    /** The check (b) targets: {@code sm_90} and {@code sm_90_as_amd}; null for any other name. */
    static LlvmTarget target(String name) {
        LlvmTarget t = LlvmTarget.byName(name);
        return t == LlvmTarget.SM_90 || t == LlvmTarget.SM_90_AS_AMD ? t : null;
    }

    public static void main(String[] args) throws Exception {
        List<String> a = new ArrayList<>(List.of(args));
        LlvmTarget target = LlvmTarget.SM_90;
        int at = a.indexOf("--target");
        if (at >= 0 && at + 1 < a.size()) {
            target = target(a.get(at + 1));
            a.remove(at + 1);
            a.remove(at);
        }
        if (target != null && (a.size() == 2 || a.size() == 3) && a.get(0).equals("prepare")) {
            prepare(Path.of(a.get(1)), a.size() == 3 ? Path.of(a.get(2)) : null, target);
        } else if (target != null && a.size() == 3 && a.get(0).equals("record")) {
            record(Path.of(a.get(1)), Path.of(a.get(2)), target);
        } else {
            System.err.println("usage: LlvmConformance prepare [--target sm_90|sm_90_as_amd] DIR [EARLIER_DIR]"
                    + " | record [--target sm_90|sm_90_as_amd] DIR RESULTS_FILE");
            System.exit(2);
        }
    }

    /**
     * Writes the harness input for the LLVM path; a form whose IR is unchanged since {@code earlier} (a directory
     * an earlier prepare wrote, or null) takes its compiled PTX from there instead of running LLVM again. For
     * {@link LlvmTarget#SM_90_AS_AMD} only the forms whose IR differs from their {@code sm_90} IR go to the harness
     * (forms.txt, in.bin); lowered.txt marks the others {@code same as sm_90}.
     */
    static void prepare(Path dir, Path earlier, LlvmTarget target) throws Exception {
        Map<String, String> earlierIr = new LinkedHashMap<>();
        if (earlier != null) {
            for (String line : Files.readAllLines(earlier.resolve("lowered.txt"))) {
                String[] p = line.split("\t", 4);
                if (p[3].equals("compiled")) earlierIr.put(p[1], p[0] + "\t" + p[2]);
            }
        }
        LlvmTools tools = LlvmTools.find();
        if (tools == null) throw new IOException(LlvmTools.missingMessage());
        Files.createDirectories(dir.resolve("ptx"));
        List<Conformance.Form> forms = Conformance.forms();
        StringBuilder list = new StringBuilder();
        // lower every form; compile the lowered ones in batches (one opt and one llc run per batch, the kernels
        // renamed kfNNNN there), then cut the PTX back into one module per form with its kernel named k again
        String[] line = new String[forms.size()];
        List<Integer> todo = new ArrayList<>();
        Map<Integer, String> irs = new LinkedHashMap<>();
        try (OutputStream in = Files.newOutputStream(dir.resolve("in.bin"))) {
            for (int k = 0; k < forms.size(); k++) {
                Conformance.Form f = forms.get(k);
                PtxCompiler.Lowered l = PtxCompiler.lower(Conformance.ptx(f), f.name(), target, false);
                Path out = dir.resolve("ptx").resolve(String.format("%04d.ptx", k));
                if (target != LlvmTarget.SM_90) {
                    PtxCompiler.Lowered base = PtxCompiler.lower(Conformance.ptx(f), f.name(), LlvmTarget.SM_90, false);
                    if (!l.ok() || base.ok() && base.ir().equals(l.ir())) {
                        line[k] = k + "\t" + f.name() + "\t" + (l.ok() ? sha(l.ir()) : "-") + "\t"
                                + (l.ok() ? "same as sm_90" : "unsupported: " + (l.errors().isEmpty() ? "not lowered" : l.errors().get(0).message()).replace('\t', ' '));
                        continue;
                    }
                }
                if (target != LlvmTarget.SM_90) {
                    // the original PTX beside the lowering, for compare_lowering.c
                    Files.createDirectories(dir.resolve("native"));
                    Files.writeString(dir.resolve("native").resolve(String.format("%04d.ptx", k)), Conformance.ptx(f));
                }
                in.write(Conformance.inputs(f));
                list.append(k).append(' ').append(Conformance.N).append(' ').append(f.name()).append('\n');
                if (!l.ok()) {
                    String why = l.errors().isEmpty() ? "not lowered" : l.errors().get(0).message();
                    Files.writeString(out, "// not lowered: " + why + "\n");
                    line[k] = k + "\t" + f.name() + "\t-\tunsupported: " + why.replace('\t', ' ');
                    continue;
                }
                String hash = sha(l.ir());
                String prev = earlierIr.get(f.name());
                if (prev != null && prev.endsWith("\t" + hash)) {
                    Path from = earlier.resolve("ptx").resolve(String.format("%04d.ptx", Integer.parseInt(prev.substring(0, prev.indexOf('\t')))));
                    Files.copy(from, out, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                    line[k] = k + "\t" + f.name() + "\t" + hash + "\tcompiled";
                    continue;
                }
                irs.put(k, l.ir());
                line[k] = k + "\t" + f.name() + "\t" + hash + "\tcompiled";
                todo.add(k);
            }
        }
        Files.writeString(dir.resolve("forms.txt"), list);
        for (int from = 0; from < todo.size(); from += 150) {
            List<Integer> batch = todo.subList(from, Math.min(todo.size(), from + 150));
            String mod = NvptxBatch.module(batch, "kf%04d", (k, name) -> NvptxBatch.renameKernel(irs.get(k), name), false,
                    k -> forms.get(k).name());
            String ptx = new String(tools.compile(mod, target), StandardCharsets.UTF_8);
            int firstFn = ptx.indexOf("\t// .globl");
            String header = ptx.substring(0, firstFn);
            for (int k : batch) {
                String name = String.format("kf%04d", k);
                int at = ptx.indexOf(".visible .entry " + name + "(");
                int close = ptx.indexOf("\n}\n", at);
                if (at < 0 || close < 0) throw new IOException("kernel " + name + " not found in llc's output");
                String body = ptx.substring(at, close + 3).replace(name, "k");
                Files.writeString(dir.resolve("ptx").resolve(String.format("%04d.ptx", k)), header + body);
            }
            System.out.println("compiled " + Math.min(todo.size(), from + 150) + " of " + todo.size());
        }
        StringBuilder sb = new StringBuilder();
        int ok = 0;
        for (String l : line) {
            if (l.endsWith("\tcompiled")) ok++;
            sb.append(l).append('\n');
        }
        Files.writeString(dir.resolve("lowered.txt"), sb);
        Files.writeString(dir.resolve("llvm-version.txt"), tools.version() + "\n");
        System.out.println(forms.size() + " forms, " + ok + " compiled to NVPTX for " + target.name().toLowerCase(java.util.Locale.ROOT)
                + (target != LlvmTarget.SM_90 ? " (those whose IR differs from sm_90's)" : "") + ", into " + dir);
    }

    /**
     * For an approximate form whose outputs differ from the H200's: {@code "; within N ulp of the H200 (K of 256
     * results differ)"}, N the largest distance ({@link #ulps}), a differing second slot counting as infinitely far;
     * "" when the outputs are the H200's.
     */
    static String approxDistance(Conformance.Form f, byte[] got) throws IOException {
        byte[] ref;
        try (InputStream in = LlvmConformance.class.getResourceAsStream("/conformance/h200/" + f.family() + ".bin.gz")) {
            ref = ConformanceData.read(in).get(f.name()).out();
        }
        java.nio.ByteBuffer g = java.nio.ByteBuffer.wrap(got).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        java.nio.ByteBuffer e = java.nio.ByteBuffer.wrap(ref).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        long max = 0;
        int differ = 0;
        for (int t = 0; t < Conformance.N; t++) {
            long u = g.getLong(16 * t + 8) != e.getLong(16 * t + 8) ? Long.MAX_VALUE : Conformance.ulps(f.approx(), g.getLong(16 * t), e.getLong(16 * t));
            if (u != 0) differ++;
            max = Math.max(max, u);
        }
        return differ == 0 ? "" : "; within " + (max == Long.MAX_VALUE ? "inf" : Long.toString(max)) + " ulp of the H200 (" + differ + " of "
                + Conformance.N + " results differ)";
    }

    /** The largest distance recorded by {@link #approxDistance} in an outcome, or -1 when it records none. */
    static long recordedUlp(String outcome) {
        int at = outcome.indexOf("; within ");
        if (at < 0) return -1;
        String n = outcome.substring(at + 9, outcome.indexOf(' ', at + 9));
        return n.equals("inf") ? Long.MAX_VALUE : Long.parseLong(n);
    }

    /**
     * Writes the results file from a harness run over a prepared directory: every form for {@code sm_90}; for
     * {@link LlvmTarget#SM_90_AS_AMD} the forms that went to the harness (IR different from {@code sm_90}'s).
     */
    static void record(Path dir, Path results, LlvmTarget target) throws IOException {
        List<Conformance.Form> forms = Conformance.forms();
        byte[] out = Files.readAllBytes(dir.resolve("out.bin"));
        // out.bin holds the forms in forms.txt's order, N records each
        Map<Integer, Integer> slot = new LinkedHashMap<>();
        for (String line : Files.readAllLines(dir.resolve("forms.txt"))) {
            if (!line.isBlank()) slot.put(Integer.parseInt(line.substring(0, line.indexOf(' '))), slot.size());
        }
        Map<Integer, String> status = new LinkedHashMap<>();
        for (String line : Files.readAllLines(dir.resolve("status.txt"))) {
            String[] p = line.split(" ", 2);
            status.put(Integer.parseInt(p[0]), p[1]);
        }
        Map<Integer, String[]> lowered = new LinkedHashMap<>();
        for (String line : Files.readAllLines(dir.resolve("lowered.txt"))) {
            String[] p = line.split("\t", 4);
            lowered.put(Integer.parseInt(p[0]), p);
        }
        int per = Conformance.N * Conformance.OUT_BYTES;
        StringBuilder sb = new StringBuilder();
        if (target == LlvmTarget.SM_90) {
            sb.append("# Conformance forms lowered to LLVM IR (dev.zluda.ptx.llvm), compiled by LLVM llc for sm_90 and run\n");
        } else {
            sb.append("# Conformance forms lowered to LLVM IR (dev.zluda.ptx.llvm) for sm_90_as_amd (NVPTX lowered as for AMD:\n");
            sb.append("# only the forms whose IR differs from their sm_90 IR), compiled by LLVM llc for sm_90 and run\n");
        }
        sb.append("# on an NVIDIA H200 with conformance_harness.c (docs/amd.md says how).\n");
        sb.append("# LLVM: ").append(Files.readString(dir.resolve("llvm-version.txt")).strip()).append("; GPU: ")
                .append(Files.readString(dir.resolve("info.txt")).replace('\n', ' ').strip()).append('\n');
        sb.append("# name<TAB>SHA-256 prefix of the IR<TAB>outcome<TAB>CRC-32 of the 256 x 16 output bytes (hex)\n");
        for (int i = 0; i < forms.size(); i++) {
            String[] low = lowered.get(i);
            if (target != LlvmTarget.SM_90 && !slot.containsKey(i)) continue;
            String st = status.get(i);
            String outcome;
            long c = 0;
            if (!low[3].equals("compiled")) outcome = low[3];
            else if (st == null) outcome = "not run";
            else if (!st.startsWith("0")) outcome = "gpu error: " + st;
            else {
                outcome = "ran";
                int s = slot.get(i);
                byte[] got = java.util.Arrays.copyOfRange(out, s * per, (s + 1) * per);
                c = crc(got);
                Conformance.Form f = forms.get(i);
                if (f.approx() != null) outcome += approxDistance(f, got);
            }
            sb.append(forms.get(i).name()).append('\t').append(low[2]).append('\t').append(outcome.replace('\t', ' '))
                    .append('\t').append(Long.toHexString(c)).append('\n');
        }
        Files.writeString(results, sb);
        System.out.println("results of " + (target == LlvmTarget.SM_90 ? forms.size() : slot.size()) + " forms written to " + results);
    }
}
