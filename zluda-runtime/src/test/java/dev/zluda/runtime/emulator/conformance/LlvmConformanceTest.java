package dev.zluda.runtime.emulator.conformance;

import dev.zluda.ptx.llvm.LlvmTarget;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Check (b) of the AMD back end, over recorded data: each conformance form's PTX, lowered to LLVM IR by
 * {@code dev.zluda.ptx.llvm} and compiled by LLVM 22 for NVPTX, ran on an NVIDIA H200
 * ({@link LlvmConformance#RESULTS}, and {@link LlvmConformance#RESULTS_AS_AMD} for the forms lowered differently
 * as for AMD); its outputs must equal what the original PTX computed on the H200
 * ({@code conformance/h200}), bit for bit for the exact forms; an approximate form may differ from the H200 by
 * as many ulp as ConformanceTest allows the emulator ({@code conformance/ulp-bounds.txt}), the distance recorded
 * with its outcome ({@link LlvmConformance#approxDistance}). The test first checks that the lowering still
 * produces the IR that ran (a SHA-256 per form) and still refuses the forms it refused, so the recorded run stays
 * evidence for the current code; when the lowering changes, docs/amd.md says how to record again.
 */
class LlvmConformanceTest {
    /** Forms whose LLVM path differs from the original on the H200, with why (none known). */
    static final Set<String> KNOWN_DIFFERENCES = Set.of();

    @Test
    void llvmLoweringComputesOnTheH200WhatTheOriginalPtxComputed() throws IOException {
        check(LlvmTarget.SM_90, LlvmConformance.RESULTS, null);
    }

    /**
     * The same for the IR lowered as for AMD ({@link LlvmTarget#SM_90_AS_AMD}, {@link LlvmConformance#RESULTS_AS_AMD}):
     * every form whose IR for it differs from its {@code sm_90} IR must have been run and recorded there.
     */
    @Test
    void loweringAsForAmdComputesOnTheH200WhatTheOriginalPtxComputed() throws IOException {
        check(LlvmTarget.SM_90_AS_AMD, LlvmConformance.RESULTS_AS_AMD, LlvmTarget.SM_90);
    }

    /**
     * Checks one results file against the current lowering for {@code target} and the H200 reference. With
     * {@code base} non-null the file holds only the forms whose IR differs from their IR for {@code base}; a form
     * not in the file must then be refused for {@code target} or lowered exactly as for {@code base}.
     */
    private static final Map<LlvmTarget, Set<String>> SWEEP_VERIFIED = new HashMap<>();

    /**
     * Whether every instruction form of a kernel occurs in a kernel of the exhaustive sweep whose lowering for
     * {@code target} — the current one: LlvmSweepTest checks that the recorded IR is what the lowering produces — computed
     * on the H200 what the original PTX computed ({@code conformance/sweep/llvm.tsv}: {@code same}). A form of this
     * suite whose lowering changed after its own run (the carry chain, set with a half destination) stays evidence so.
     */
    static boolean sweepVerifies(String ptx, LlvmTarget target) throws IOException {
        Set<String> ok = SWEEP_VERIFIED.get(target);
        if (ok == null) {
            ok = new java.util.HashSet<>();
            Map<String, SweepData.Lowered> rec = SweepData.readLowered();
            for (Sweep.Form f : Sweep.candidates()) {
                SweepData.Lowered r = rec.get(f.name());
                if (r == null) continue;
                boolean same = target == LlvmTarget.SM_90 ? r.llvm().equals("same") : r.amdIr().equals("same") ? r.llvm().equals("same") : r.amd().equals("same");
                if (same) ok.addAll(instructionForms(f.ptx()));
            }
            SWEEP_VERIFIED.put(target, ok);
        }
        return ok.containsAll(instructionForms(ptx));
    }

    private static Set<String> instructionForms(String ptx) {
        Set<String> out = new TreeSet<>();
        dev.zluda.ptx.ParseResult p = dev.zluda.ptx.Ptx.parse(ptx, "k.ptx");
        if (p.module() == null) return Set.of("?");
        for (dev.zluda.ptx.Ast.Function fn : p.module().functions()) if (fn.body() != null) collect(fn.body(), out);
        return out;
    }

    private static void collect(dev.zluda.ptx.Ast.Block b, Set<String> out) {
        for (dev.zluda.ptx.Ast.Statement s : b.statements()) {
            if (s instanceof dev.zluda.ptx.Ast.Instruction i) out.add(dev.zluda.ptx.EmulatorForms.key(i.opcode(), i.modifiers()));
            else if (s instanceof dev.zluda.ptx.Ast.Block inner) collect(inner, out);
        }
    }

    /** conformance/ulp-bounds.txt: the largest distance from the H200, in ulp, ConformanceTest allows each approximate form. */
    static Map<String, Long> ulpBounds() throws IOException {
        Map<String, Long> m = new HashMap<>();
        try (InputStream in = LlvmConformanceTest.class.getResourceAsStream("/conformance/ulp-bounds.txt")) {
            assertNotNull(in, "/conformance/ulp-bounds.txt");
            for (String line : new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).split("\n")) {
                line = line.strip();
                if (line.isEmpty() || line.startsWith("#")) continue;
                int sp = line.lastIndexOf(' ');
                m.put(line.substring(0, sp).strip(), Long.parseLong(line.substring(sp + 1)));
            }
        }
        return m;
    }

    private void check(LlvmTarget target, String resource, LlvmTarget base) throws IOException {
        Map<String, LlvmConformance.Outcome> results;
        try (InputStream in = getClass().getResourceAsStream(resource)) {
            assertNotNull(in, resource);
            results = LlvmConformance.readResults(in);
        }
        Map<String, ConformanceData.Recorded> h200 = new HashMap<>();
        for (Conformance.Form f : Conformance.forms()) {
            if (h200.containsKey(f.name())) continue;
            try (InputStream in = getClass().getResourceAsStream("/conformance/h200/" + f.family() + ".bin.gz")) {
                h200.putAll(ConformanceData.read(in));
            }
        }
        // a form may have changed since the H200 run only where that run showed it wrong (fixed or refused since,
        // to be recorded again), or where the sweep's later H200 recording verifies every instruction of its kernel as
        // lowered now (sweepVerifies); under every other form the recorded run must still hold
        List<String> stale = new ArrayList<>();
        Set<String> differ = new TreeSet<>(), changedAfterDiffering = new TreeSet<>(), changedVerifiedBySweep = new TreeSet<>();
        Map<String, int[]> table = new LinkedHashMap<>();   // family -> forms, lowered, bit-exact, differ, approx-exact
        Map<String, Long> bounds = ulpBounds();
        Set<String> withinBound = new TreeSet<>();
        for (Conformance.Form f : Conformance.forms()) {
            LlvmConformance.Outcome o = results.get(f.name());
            String[] why = new String[1];
            String hash = LlvmConformance.irHash(f, target, why);
            if (o == null) {
                if (base == null) stale.add(f.name() + ": not in the recorded run");
                else if (hash != null && !hash.equals(LlvmConformance.irHash(f, base, new String[1]))) {
                    stale.add(f.name() + ": lowered for " + target + " differently from " + base + " (IR " + hash + "), not in the recorded run");
                }
                continue;
            }
            int[] row = table.computeIfAbsent(f.family(), k -> new int[5]);
            row[0]++;
            if (o.status().startsWith("unsupported")) {
                if (hash != null) stale.add(f.name() + ": lowered now, refused in the recorded run");
                continue;
            }
            row[1]++;
            assertTrue(o.status().startsWith("ran"), f.name() + ": " + o.status());
            ConformanceData.Recorded ref = h200.get(f.name());
            assertTrue(ref != null && ref.result() == 0 && ref.crc() == Conformance.inputCrc(f), f.name() + ": no H200 reference");
            boolean same = LlvmConformance.crc(ref.out()) == o.crc();
            boolean changed = hash == null || !hash.equals(o.ir());
            // an approximate form may differ from the H200 by no more than ConformanceTest allows the emulator
            long recorded = LlvmConformance.recordedUlp(o.status());
            boolean bounded = !same && f.approx() != null && recorded >= 0 && recorded <= bounds.getOrDefault(f.name(), -1L);
            if (same) row[f.approx() == null ? 2 : 4]++;
            else if (bounded) withinBound.add(f.name() + " (" + recorded + " ulp)");
            else row[3]++;
            if (changed && same && hash != null && sweepVerifies(Conformance.ptx(f), target)) changedVerifiedBySweep.add(f.name());
            else if (changed && same) stale.add(f.name() + ": IR " + (hash == null ? "refused now (" + why[0] + ")" : hash) + ", recorded " + o.ir());
            else if (changed) changedAfterDiffering.add(f.name() + (hash == null ? " (refused now)" : " (fixed)"));
            else if (!same && !bounded) differ.add(f.name());
        }
        StringBuilder sb = new StringBuilder(target + ": forms recorded in " + resource + "\n");
        sb.append("| family | forms | lowered and run | bit-exact | approx. forms bit-exact | differ |\n");
        int[] tot = new int[5];
        for (var e : table.entrySet()) {
            int[] r = e.getValue();
            sb.append(String.format("| %s | %d | %d | %d | %d | %d |%n", e.getKey(), r[0], r[1], r[2], r[4], r[3]));
            for (int i = 0; i < 5; i++) tot[i] += r[i];
        }
        sb.append(String.format("| all | %d | %d | %d | %d | %d |%n", tot[0], tot[1], tot[2], tot[4], tot[3]));
        System.out.print(sb);
        System.out.println("approximate forms not bit-exact, within the distance ConformanceTest allows the emulator ("
                + withinBound.size() + "): " + withinBound);
        System.out.println("changed since the H200 run showed them wrong (" + changedAfterDiffering.size() + "): " + changedAfterDiffering);
        System.out.println("changed since the H200 run, every instruction verified by the sweep's later recording of the current lowering ("
                + changedVerifiedBySweep.size() + "): " + changedVerifiedBySweep);
        assertTrue(stale.isEmpty(), "the lowering for " + target + " changed since the H200 run (docs/amd.md: record again): " + stale.size()
                + " forms, e.g. " + stale.subList(0, Math.min(10, stale.size())));
        assertEquals(KNOWN_DIFFERENCES, differ, "forms whose LLVM path computes differently on the H200");
    }
}
