package dev.zluda.runtime.emulator.conformance;

import dev.zluda.ptx.llvm.LlvmTarget;
import dev.zluda.ptx.llvm.PtxCompiler;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The instruction sweep ({@link Sweep}) through the LLVM lowering, as recorded on an NVIDIA H200
 * ({@code conformance/sweep/llvm.tsv}, README.md there): each form's PTX lowered to LLVM IR by
 * {@code dev.zluda.ptx.llvm}, compiled by LLVM 22 for NVPTX sm_90 — as lowered for sm_90 and as lowered for AMD
 * ({@link LlvmTarget#SM_90_AS_AMD}, where that IR differs) — ran beside the original PTX on the same inputs, and its
 * outputs were compared tuple by tuple.
 *
 * <p>The test checks that the lowering still produces the IR that ran (SHA-256 per form and target) and still refuses
 * what it refused, so that the recording stays evidence for the current code (a change of the lowering needs a new
 * recording: README.md); that every form whose lowering computed something else than the H200's original PTX — or
 * failed, or was not run — is listed with the reason in {@code sweep/llvm-known-differences.tsv}, and every listed one
 * still is; an approximate form may differ by no more than the emulator is allowed ({@code sweep/ulp-bounds.tsv}).
 * {@code -Dzluda.regen=true} rewrites the list (to be reviewed).
 */
class LlvmSweepTest {
    record Key(String form, String target) {}

    @Test
    void loweringComputesOnTheH200WhatTheOriginalPtxComputed() throws Exception {
        Map<String, SweepData.Lowered> rec = SweepData.readLowered();
        Map<String, SweepCandidates.Entry> list = SweepCandidates.read();
        Map<String, String> known = new LinkedHashMap<>();
        try (InputStream in = getClass().getResourceAsStream(SweepData.DIR + "llvm-known-differences.tsv")) {
            if (in != null) {
                for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                    if (line.isBlank() || line.startsWith("#")) continue;
                    String[] p = line.split("\t", 3);
                    known.put(p[0] + "\t" + p[1], p.length > 2 ? p[2] : "");
                }
            }
        }
        Map<String, Long> bounds = new LinkedHashMap<>();
        for (String l : SweepData.lines(SweepData.DIR + "ulp-bounds.tsv")) {
            String[] p = l.split("\t");
            bounds.put(p[0], p[1].equals("inf") ? Long.MAX_VALUE : Long.parseLong(p[1]));
        }
        List<String> stale = new ArrayList<>();
        Map<String, String> differ = new TreeMap<>();   // "form<TAB>target" -> outcome
        Map<String, int[]> table = new TreeMap<>();     // family -> forms, lowered and ran, same, within bound, differ
        int forms = 0;
        for (Sweep.Form f : Sweep.candidates()) {
            if (!list.containsKey(f.name())) continue;
            SweepData.Lowered r = rec.get(f.name());
            if (r == null) {
                stale.add(f.name() + ": not in the recording");
                continue;
            }
            forms++;
            PtxCompiler.Lowered l = PtxCompiler.lower(f.ptx(), "sweep.ptx", LlvmTarget.SM_90);
            PtxCompiler.Lowered a = PtxCompiler.lower(f.ptx(), "sweep.ptx", LlvmTarget.SM_90_AS_AMD);
            String llvmIr = l.ok() ? LlvmConformance.sha(l.ir()) : null;
            String amdIr = a.ok() ? (l.ok() && a.ir().equals(l.ir()) ? "same" : LlvmConformance.sha(a.ir())) : null;
            int[] row = table.computeIfAbsent(f.family(), k -> new int[5]);
            row[0]++;
            check(f, "llvm", r.llvmIr(), llvmIr, r.llvm(), bounds, stale, differ, row);
            if (!"same".equals(r.amdIr()) || amdIr == null || !amdIr.equals("same")) {
                check(f, "amd", r.amdIr(), amdIr, r.amd(), bounds, stale, differ, null);
            }
        }
        StringBuilder sb = new StringBuilder("LLVM lowering (sm_90) of the sweep's " + forms + " forms, as recorded on an H200:\n"
                + "| family | forms | lowered and run | as the original PTX | approximate, within the bound | differ or failed |\n");
        int[] tot = new int[5];
        for (var e : table.entrySet()) {
            int[] x = e.getValue();
            if (x[1] == 0 && x[4] == 0) continue;
            sb.append(String.format("| %s | %d | %d | %d | %d | %d |%n", e.getKey(), x[0], x[1], x[2], x[3], x[4]));
            for (int i = 0; i < 5; i++) tot[i] += x[i];
        }
        sb.append(String.format("| all | %d | %d | %d | %d | %d |%n", tot[0], tot[1], tot[2], tot[3], tot[4]));
        System.out.print(sb);
        System.out.println(differ.size() + " lowerings (sm_90 and as for AMD) that differ from the original PTX, fail or were not run; " + stale.size() + " stale");
        if (Boolean.getBoolean("zluda.regen")) {
            StringBuilder k = new StringBuilder("# Forms whose LLVM lowering computed on the H200 something else than the original PTX, failed, or was not run\n"
                    + "# (LlvmSweepTest): form<TAB>target (llvm: lowered for sm_90; amd: lowered as for AMD)<TAB>why (the recorded outcome)\n"
                    + "# written by LlvmSweepTest with -Dzluda.regen=true; reviewed by hand\n");
            for (var e : differ.entrySet()) k.append(e.getKey()).append('\t').append(known.getOrDefault(e.getKey(), e.getValue())).append('\n');
            Files.writeString(Path.of("src/test/resources/conformance/sweep/llvm-known-differences.tsv"), k);
            Files.createDirectories(Path.of("target"));
            Files.writeString(Path.of("target/llvm-sweep-report.md"), sb);
        }
        assertTrue(stale.isEmpty(), "the lowering changed since the H200 recording (conformance/sweep/README.md: record again): " + stale.size()
                + " forms, e.g. " + stale.subList(0, Math.min(10, stale.size())));
        assertEquals(new java.util.TreeSet<>(known.keySet()), new java.util.TreeSet<>(differ.keySet()),
                "lowerings that differ from the original PTX on the H200 (sweep/llvm-known-differences.tsv)");
    }

    /**
     * One target of one form: the recorded IR ({@code recIr}: a SHA-256 prefix, {@code same} for the sm_90 IR, or
     * {@code -:why}) against the current one ({@code curIr}, null when refused now), and the recorded outcome.
     */
    private static void check(Sweep.Form f, String target, String recIr, String curIr, String outcome, Map<String, Long> bounds, List<String> stale,
                              Map<String, String> differ, int[] row) {
        boolean recRefused = recIr.startsWith("-");
        if (recRefused != (curIr == null)) {
            stale.add(f.name() + " (" + target + "): " + (recRefused ? "lowered now, refused when recorded" : "refused now, lowered when recorded"));
            return;
        }
        if (recRefused) return;
        if (!recIr.equals(curIr)) {
            stale.add(f.name() + " (" + target + "): IR " + curIr + ", recorded " + recIr);
            return;
        }
        if (row != null && !outcome.startsWith("not run")) row[1]++;
        if (outcome.equals("same") || outcome.equals("-")) {
            if (row != null && outcome.equals("same")) row[2]++;
            return;
        }
        long[] d = SweepData.differ(outcome);
        if (d != null && f.approx() != null && d[1] >= 0 && d[1] <= bounds.getOrDefault(f.name(), -1L)) {
            if (row != null) row[3]++;
            return;
        }
        if (row != null) row[4]++;
        differ.put(f.name() + "\t" + target, outcome);
    }
}
