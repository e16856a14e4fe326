package dev.zluda.runtime.emulator;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.Diagnostic;
import dev.zluda.ptx.ParseResult;
import dev.zluda.ptx.Ptx;
import dev.zluda.ptx.PtxCheck;
import dev.zluda.ptx.Semantics;
import dev.zluda.runtime.emulator.conformance.Sweep;
import dev.zluda.runtime.emulator.conformance.SweepCandidates;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code zluda ptx check} warns for exactly the instructions the emulator refuses: over every PTX module of the
 * instruction sweep that ptxas accepts ({@code conformance/sweep/forms.tsv}: 7,780 kernels, those the emulator runs and
 * those it refuses) and the PTX files of the repository (ptx's corpus, the samples), the lines that
 * {@link PtxCheck#unsupported} warns about are the lines of the emulator's {@code CUDA_ERROR_NOT_SUPPORTED} log, and a
 * module without a warning loads (or fails only for an operand form the translator does not take yet, listed below and in
 * docs/support.md). A module zluda's front end finds invalid is an error for check and INVALID_PTX for the emulator.
 */
class PtxCheckAgreementTest {
    /**
     * Modules the emulator refuses for an operand form rather than an instruction form (docs/support.md, "Operand
     * forms"), with the message that says so: check cannot know them from the instruction's form.
     */
    private static final Map<String, String> TRANSLATOR_GAPS = Map.of(
            "sweep: probe: vector registers and their elements", "vector width does not match the operand");

    private static final Pattern LINE = Pattern.compile("^[^:]+:(\\d+):\\d+: error: ", Pattern.MULTILINE);

    @Test
    void checkWarnsForExactlyTheInstructionsTheEmulatorRefuses() throws Exception {
        Map<String, String> modules = new LinkedHashMap<>();
        Map<String, SweepCandidates.Entry> list = SweepCandidates.read();
        for (Sweep.Form f : Sweep.candidates()) if (list.containsKey(f.name())) modules.put("sweep: " + f.name(), f.ptx());
        for (String dir : new String[] {"../ptx/src/test/resources/corpus", "../samples/src/main/ptx"}) {
            Path d = Path.of(dir);
            if (!Files.isDirectory(d)) continue;
            try (Stream<Path> s = Files.walk(d)) {
                for (Path p : s.filter(x -> x.toString().endsWith(".ptx")).sorted().toList()) modules.put(p.toString(), Files.readString(p));
            }
        }
        List<String> problems = new ArrayList<>();
        int refused = 0, loaded = 0, otherFailure = 0, invalid = 0;
        try (PtxRun run = new PtxRun(1)) {
            for (var e : modules.entrySet()) {
                ParseResult p = Ptx.parse(e.getValue(), "test.ptx");
                if (!p.ok()) {
                    problems.add(e.getKey() + ": does not parse");
                    continue;
                }
                if (!Semantics.analyze(p.module(), "test.ptx").ok()) {
                    // check reports it as an error (exit 1); the emulator refuses it as invalid
                    invalid++;
                    try {
                        run.load(e.getValue());
                        problems.add(e.getKey() + ": check finds errors, the emulator loads it");
                    } catch (PtxLoadException x) {
                        if (x.error() != Errors.INVALID_PTX) problems.add(e.getKey() + ": check finds errors, the emulator refuses it with " + x.error());
                    }
                    continue;
                }
                TreeSet<Integer> warned = new TreeSet<>();
                for (Diagnostic d : PtxCheck.unsupported(p.module(), "test.ptx")) warned.add(d.line());
                try {
                    run.load(e.getValue());
                    loaded++;
                    if (!warned.isEmpty()) problems.add(e.getKey() + ": check warns at lines " + warned + ", the emulator loads it");
                } catch (PtxLoadException x) {
                    TreeSet<Integer> lines = new TreeSet<>();
                    Matcher m = LINE.matcher(x.log());
                    while (m.find()) lines.add(Integer.parseInt(m.group(1)));
                    if (!warned.isEmpty() || x.error() == Errors.NOT_SUPPORTED && x.log().contains("instruction '")) {
                        refused++;
                        if (x.error() != Errors.NOT_SUPPORTED || !lines.equals(warned)) {
                            problems.add(e.getKey() + ": check warns at lines " + warned + ", the emulator refuses (" + x.error() + ") at " + lines + ": "
                                    + x.log().lines().findFirst().orElse(""));
                        }
                    } else {
                        otherFailure++;
                        String why = TRANSLATOR_GAPS.get(e.getKey());
                        if (why == null || !x.log().contains(why)) {
                            problems.add(e.getKey() + ": no warning, the emulator refuses it: " + x.log().lines().findFirst().orElse(""));
                        }
                    }
                }
            }
        }
        System.out.println(modules.size() + " modules: " + loaded + " loaded, " + refused + " refused for their instructions (check warns at the same lines), "
                + otherFailure + " refused for an operand form, " + invalid + " invalid for zluda's front end (check: errors)");
        assertTrue(refused > 400 && loaded > 7000, "the sweep's modules were found");
        assertEquals(List.of(), problems.subList(0, Math.min(30, problems.size())), problems.size() + " disagreements");
    }
}
