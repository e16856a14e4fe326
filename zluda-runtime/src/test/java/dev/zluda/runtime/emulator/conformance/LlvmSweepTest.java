package dev.zluda.runtime.emulator.conformance;

import dev.zluda.ptx.llvm.LlvmForms;
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
 * The forms blamed for those lowerings are what the lowering refuses ({@link LlvmForms}, {@link #refusedForms}): the test
 * checks that list and that each such lowering is refused with the instruction's line (the IR hashes are of the
 * lowering without the refusals, the IR that ran). {@code -Dzluda.regen=true} rewrites both lists (the known
 * differences to be reviewed; their reasons are kept).
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
        Map<String, boolean[]> lowered = new LinkedHashMap<>();   // form -> {lowered for sm_90, as for AMD} (without refusals)
        Map<String, Sweep.Form> byName = new LinkedHashMap<>();
        for (Sweep.Form f : Sweep.candidates()) {
            byName.put(f.name(), f);
            if (!list.containsKey(f.name())) continue;
            SweepData.Lowered r = rec.get(f.name());
            if (r == null) {
                stale.add(f.name() + ": not in the recording");
                continue;
            }
            forms++;
            // the lowering as recorded: also the forms LlvmForms refuses (whose recorded outcome is why they are refused)
            PtxCompiler.Lowered l = PtxCompiler.lower(f.ptx(), "sweep.ptx", LlvmTarget.SM_90, false);
            PtxCompiler.Lowered a = PtxCompiler.lower(f.ptx(), "sweep.ptx", LlvmTarget.SM_90_AS_AMD, false);
            lowered.put(f.name(), new boolean[] {l.ok(), a.ok()});
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
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target/llvm-sweep-stale.txt"), String.join("\n", stale) + "\n");
        // the forms the lowering refuses (LlvmForms): those blamed for the lowerings that differ, fail or were not run
        Map<String, String> reasons = new TreeMap<>();
        for (String k : differ.keySet()) reasons.put(k, known.getOrDefault(k, differ.get(k)));
        Map<String, String[]> refused = refusedForms(reasons, rec, byName, bounds);
        StringBuilder rl = new StringBuilder("# The instruction forms the LLVM lowering refuses (dev.zluda.ptx.llvm.LlvmForms): those blamed for the sweep's lowerings that\n"
                + "# computed on an NVIDIA H200 something else than the original PTX, failed or were not run (zluda-runtime/src/test/resources/\n"
                + "# conformance/sweep/llvm-known-differences.tsv). Written by LlvmSweepTest -Dzluda.regen=true; do not edit by hand.\n"
                + "# form<TAB>targets (all, amd: the AMD targets and sm_90 as for AMD, sm_90)<TAB>why\n");
        for (var e : refused.entrySet()) rl.append(e.getKey()).append('\t').append(e.getValue()[0]).append('\t').append(e.getValue()[1]).append('\n');
        Path listFile = Path.of("../ptx/src/main/resources/dev/zluda/ptx/llvm/llvm-refused-forms.txt");
        if (Boolean.getBoolean("zluda.regen")) Files.writeString(listFile, rl);
        Map<String, String> want = new TreeMap<>(), have = new TreeMap<>();
        for (var e : refused.entrySet()) want.put(e.getKey(), e.getValue()[0]);
        for (var e : LlvmForms.list().entrySet()) have.put(e.getKey(), e.getValue().targets());
        assertEquals(want, have, "ptx/.../llvm/llvm-refused-forms.txt is not what the recorded sweep blames (LlvmSweepTest -Dzluda.regen=true rewrites it)");
        // every lowering that differs, fails or was not run is now refused, with the instruction and its line
        List<String> notRefused = new ArrayList<>();
        int overRefused = 0;
        for (Sweep.Form f : Sweep.candidates()) {
            boolean[] lo = lowered.get(f.name());
            if (lo == null) continue;
            for (int k = 0; k < 2; k++) {
                String target = k == 0 ? "llvm" : "amd";
                if (!lo[k]) continue;
                PtxCompiler.Lowered c = PtxCompiler.lower(f.ptx(), "sweep.ptx", k == 0 ? LlvmTarget.SM_90 : LlvmTarget.SM_90_AS_AMD);
                boolean mustRefuse = differ.containsKey(f.name() + "\t" + target) || k == 1 && differ.containsKey(f.name() + "\tllvm") && sameIrForAmd(rec.get(f.name()));
                if (mustRefuse && (c.ok() || c.errors().stream().noneMatch(d -> d.line() > 0 && d.message().contains("is not supported by the LLVM back end")))) {
                    notRefused.add(f.name() + " (" + target + ")");
                }
                if (!mustRefuse && !c.ok()) overRefused++;
            }
        }
        System.out.println(refused.size() + " instruction forms refused by the LLVM lowering; " + overRefused + " sweep lowerings that matched the H200 are refused too "
                + "(they use a refused form)");
        assertTrue(notRefused.isEmpty(), "lowerings that differ from the H200 but are not refused: " + notRefused);
        assertTrue(stale.isEmpty(), "the lowering changed since the H200 recording (conformance/sweep/README.md: record again): " + stale.size()
                + " forms, e.g. " + stale.subList(0, Math.min(10, stale.size())));
        assertEquals(new java.util.TreeSet<>(known.keySet()), new java.util.TreeSet<>(differ.keySet()),
                "lowerings that differ from the original PTX on the H200 (sweep/llvm-known-differences.tsv)");
    }

    /** Whether the lowering as for AMD was the sm_90 lowering's IR when recorded (so it shares the sm_90 outcome). */
    private static boolean sameIrForAmd(SweepData.Lowered r) {
        return r != null && "same".equals(r.amdIr());
    }

    /**
     * The instruction forms to refuse: for each lowering that differs (form and target), the forms of its subject
     * ({@link Sweep.Form#subject}) that no matching lowering of that target verifies, or, when the subject is all
     * verified elsewhere (a generic {@code ld} of a {@code .local} address), the kernel's other instructions that occur in
     * no matching lowering's kernel ({@code cvta.local}). A lowering as for sm_90 that differs is refused for every target when the
     * AMD targets lower it the same way ({@code all}), else for sm_90 only; one as for AMD, for the AMD targets.
     *
     * @param differ the lowerings that differ ("form<TAB>target") with the reviewed reason of llvm-known-differences.tsv
     * @return form -> {targets, why}
     */
    static Map<String, String[]> refusedForms(Map<String, String> differ, Map<String, SweepData.Lowered> rec, Map<String, Sweep.Form> byName,
                                              Map<String, Long> bounds) throws java.io.IOException {
        // the subjects of the lowerings that matched, and every instruction of their kernels
        java.util.Set<String> okSm90 = new java.util.HashSet<>(), okAmd = new java.util.HashSet<>();
        java.util.Set<String> allSm90 = new java.util.HashSet<>(), allAmd = new java.util.HashSet<>();
        for (Sweep.Form f : byName.values()) {
            SweepData.Lowered r = rec.get(f.name());
            if (r == null) continue;
            boolean sm = !differ.containsKey(f.name() + "\tllvm") && ran(r.llvm());
            boolean amd = !differ.containsKey(f.name() + "\tamd") && (sameIrForAmd(r) ? sm : ran(r.amd()));
            for (String s : f.subject()) {
                if (sm) okSm90.add(keyOf(s));
                if (amd) okAmd.add(keyOf(s));
            }
            if (sm || amd) {
                java.util.Set<String> ins = instructions(f.ptx());
                if (sm) allSm90.addAll(ins);
                if (amd) allAmd.addAll(ins);
            }
        }
        Map<String, java.util.Set<String>> targets = new TreeMap<>();
        Map<String, String> why = new TreeMap<>();
        for (var e : differ.entrySet()) {
            String[] k = e.getKey().split("\t");
            Sweep.Form f = byName.get(k[0]);
            boolean amdTarget = k[1].equals("amd");
            java.util.Set<String> ok = amdTarget ? okAmd : okSm90;
            java.util.Set<String> blamed = new java.util.TreeSet<>();
            for (String s : f.subject()) if (!ok.contains(keyOf(s))) blamed.add(keyOf(s));
            java.util.Set<String> all = amdTarget ? allAmd : allSm90;
            if (blamed.isEmpty()) for (String s : instructions(f.ptx())) if (!all.contains(s)) blamed.add(s);
            if (blamed.isEmpty()) throw new AssertionError(e.getKey() + " differs but every instruction of its kernel is verified by another lowering");
            String t = amdTarget ? "amd" : sameIrForAmd(rec.get(k[0])) ? "all" : "sm_90";
            for (String b : blamed) {
                targets.computeIfAbsent(b, x -> new java.util.TreeSet<>()).add(t);
                why.putIfAbsent(b, reason(e.getValue()));
            }
        }
        Map<String, String[]> out = new TreeMap<>();
        for (var e : targets.entrySet()) {
            java.util.Set<String> t = e.getValue();
            String ts = t.contains("all") || t.contains("amd") && t.contains("sm_90") ? "all" : t.iterator().next();
            out.put(e.getKey(), new String[] {ts, why.get(e.getKey())});
        }
        return out;
    }

    /** Whether a recorded outcome is a run that matched ({@code same}); an approximate form's bound is checked by {@link #check}. */
    private static boolean ran(String outcome) {
        return outcome.equals("same") || outcome.startsWith("differ");
    }

    /** The reason of a known difference, without its figures ("carry chain: ...", "not run: ..."). */
    private static String reason(String outcome) {
        int d = outcome.indexOf(" — ");
        return (d < 0 ? outcome : outcome.substring(0, d)).replace('\t', ' ');
    }

    private static String keyOf(String form) {
        int dot = form.indexOf('.');
        String op = dot < 0 ? form : form.substring(0, dot);
        List<String> mods = new ArrayList<>();
        if (dot >= 0) for (String m : form.substring(dot + 1).split("\\.")) mods.add("." + m);
        return dev.zluda.ptx.EmulatorForms.key(op, mods);
    }

    /** The forms ({@link dev.zluda.ptx.EmulatorForms#key}) of a kernel's instructions. */
    private static java.util.Set<String> instructions(String ptx) {
        java.util.Set<String> out = new java.util.TreeSet<>();
        dev.zluda.ptx.ParseResult p = dev.zluda.ptx.Ptx.parse(ptx, "sweep.ptx");
        if (p.module() == null) return out;
        for (dev.zluda.ptx.Ast.Function fn : p.module().functions()) if (fn.body() != null) collect(fn.body(), out);
        return out;
    }

    private static void collect(dev.zluda.ptx.Ast.Block b, java.util.Set<String> out) {
        for (dev.zluda.ptx.Ast.Statement s : b.statements()) {
            if (s instanceof dev.zluda.ptx.Ast.Instruction i) out.add(dev.zluda.ptx.EmulatorForms.key(i.opcode(), i.modifiers()));
            else if (s instanceof dev.zluda.ptx.Ast.Block inner) collect(inner, out);
        }
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
