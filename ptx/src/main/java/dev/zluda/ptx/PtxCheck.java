package dev.zluda.ptx;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code zluda ptx check FILE...}: parses and analyzes PTX files, prints every error as
 * {@code file:line:col: error: message}, then a table of the instruction forms used (opcode with all
 * its modifiers, how often, the family in {@link InstructionTable}, and whether this project's
 * emulator and compiler support it: the emulator column from {@link InstructionTable}, the compiler column {@code no} until it exists).
 */
public final class PtxCheck {
    /** Exit code: every file parsed and passed the semantic checks. */
    public static final int OK = 0;
    /** Exit code: at least one file has errors. */
    public static final int ERRORS = 1;
    /** Exit code: at least one file could not be read (takes precedence over {@link #ERRORS}). */
    public static final int UNREADABLE = 2;

    private PtxCheck() {}

    /** Counts of one instruction form over all files checked. */
    public record FormUse(String form, String family, String isaSection, boolean emulator, boolean compiler, long count) {}

    /**
     * Checks files and writes the report to {@code out}.
     *
     * @param files PTX files
     * @param out   where diagnostics and the table go
     * @return {@link #OK}, {@link #ERRORS} or {@link #UNREADABLE}
     */
    public static int run(List<Path> files, PrintStream out) {
        return run(files, out, false);
    }

    /**
     * Checks files, or every {@code .ptx} file under a directory, and writes the report to {@code out}.
     *
     * @param files   PTX files or directories (searched recursively for {@code *.ptx})
     * @param out     where diagnostics and the table go
     * @param summary for a corpus: per file only its first error (with the count of the others),
     *                then totals (files, bytes, files with errors, parse time and MB/s of 10^6
     *                characters) and only the instruction forms the emulator does not support,
     *                instead of every diagnostic and the whole table
     * @return {@link #OK}, {@link #ERRORS} or {@link #UNREADABLE}
     */
    public static int run(List<Path> files, PrintStream out, boolean summary) {
        boolean unreadable = false, errors = false;
        Map<String, long[]> counts = new TreeMap<>();
        long instructions = 0, chars = 0, nanos = 0;
        int filesWithErrors = 0;
        List<Path> all = new ArrayList<>();
        for (Path f : files) {
            if (java.nio.file.Files.isDirectory(f)) {
                try (var walk = java.nio.file.Files.walk(f)) {
                    walk.filter(p -> p.getFileName().toString().endsWith(".ptx") && java.nio.file.Files.isRegularFile(p)).sorted().forEach(all::add);
                } catch (IOException | java.io.UncheckedIOException e) {
                    out.println(f + ": error: cannot list directory: " + e.getMessage());
                    unreadable = true;
                }
            } else {
                all.add(f);
            }
        }
        for (Path f : all) {
            String text;
            try {
                text = Ptx.readPtx(f);
            } catch (IOException | RuntimeException e) {
                out.println(f + ": error: cannot read file: " + e.getMessage());
                unreadable = true;
                continue;
            }
            long t0 = System.nanoTime();
            ParseResult pr = Ptx.parse(text, f.toString());
            nanos += System.nanoTime() - t0;
            chars += text.length();
            List<Diagnostic> diags = new ArrayList<>(pr.diagnostics());
            if (pr.ok()) diags.addAll(Semantics.analyze(pr.module(), f.toString()).diagnostics());
            int fileErrors = 0;
            for (Diagnostic d : diags) {
                if (d.isError()) fileErrors++;
                if (!summary) out.println(d.format());
                else if (d.isError() && fileErrors == 1) out.println(d.format());
            }
            if (fileErrors > 0) {
                errors = true;
                filesWithErrors++;
                if (summary && fileErrors > 1) out.println(f + ": (" + (fileErrors - 1) + " more error(s))");
            }
            for (Ast.Function fn : pr.module().functions()) {
                if (fn.body() != null) instructions += count(fn.body(), counts);
            }
        }
        List<FormUse> uses = formUses(counts);
        out.println();
        out.printf("%d file(s), %d instruction(s), %d distinct instruction form(s)%n", all.size(), instructions, uses.size());
        if (summary) {
            out.printf("%d file(s) with errors; %.1f MB parsed in %.2f s (%.1f MB/s, one thread)%n",
                    filesWithErrors, chars / 1e6, nanos / 1e9, nanos == 0 ? 0 : chars / 1e6 / (nanos / 1e9));
            List<FormUse> missing = uses.stream().filter(u -> !u.emulator()).toList();
            long missingCount = missing.stream().mapToLong(FormUse::count).sum();
            out.printf("%d form(s) the emulator does not support, used %d time(s)%s%n", missing.size(), missingCount, missing.isEmpty() ? "" : ":");
            for (FormUse u : missing) out.printf("  %-40s %8d  %s%n", u.form(), u.count(), u.family());
            return unreadable ? UNREADABLE : errors ? ERRORS : OK;
        }
        if (!uses.isEmpty()) {
            int w = Math.max(4, uses.stream().mapToInt(u -> u.form().length()).max().orElse(4));
            int fw = Math.max(6, uses.stream().mapToInt(u -> u.family().length()).max().orElse(6));
            String fmt = "%-" + w + "s  %7s  %-" + fw + "s  %-9s  %-8s  %-8s%n";
            out.printf(fmt, "form", "count", "family", "ISA", "emulator", "compiler");
            for (FormUse u : uses) {
                out.printf(fmt, u.form(), u.count(), u.family(), u.isaSection(), u.emulator() ? "yes" : "no", u.compiler() ? "yes" : "no");
            }
        }
        return unreadable ? UNREADABLE : errors ? ERRORS : OK;
    }

    /** Instruction forms of a module with their counts, sorted by form; unknown opcodes have family "?". */
    public static List<FormUse> formUses(Ast.Module module) {
        Map<String, long[]> counts = new TreeMap<>();
        for (Ast.Function fn : module.functions()) if (fn.body() != null) count(fn.body(), counts);
        return formUses(counts);
    }

    private static List<FormUse> formUses(Map<String, long[]> counts) {
        List<FormUse> out = new ArrayList<>();
        for (Map.Entry<String, long[]> e : counts.entrySet()) {
            String form = e.getKey();
            int dot = form.indexOf('.');
            String opcode = dot < 0 ? form : form.substring(0, dot);
            List<String> mods = new ArrayList<>();
            if (dot >= 0) {
                int i = dot;
                while (i < form.length()) {
                    int next = form.indexOf('.', i + 1);
                    if (next < 0) next = form.length();
                    mods.add(form.substring(i, next));
                    i = next;
                }
            }
            InstructionTable.Family fam = InstructionTable.lookup(opcode, mods);
            out.add(fam == null
                    ? new FormUse(form, "?", "-", false, false, e.getValue()[0])
                    : new FormUse(form, fam.key(), InstructionTable.isaSection(fam, mods), InstructionTable.emulatorExecutes(fam, mods), fam.compiler(),
                            e.getValue()[0]));
        }
        return out;
    }

    private static int count(Ast.Block b, Map<String, long[]> counts) {
        int n = 0;
        for (Ast.Statement s : b.statements()) {
            if (s instanceof Ast.Instruction i) {
                counts.computeIfAbsent(i.form(), k -> new long[1])[0]++;
                n++;
            } else if (s instanceof Ast.Block inner) {
                n += count(inner, counts);
            }
        }
        return n;
    }

    /** Command-line entry for use without the {@code zluda} CLI: {@code java dev.zluda.ptx.PtxCheck FILE...}. */
    public static void main(String[] args) {
        if (args.length == 0) {
            System.err.println("usage: zluda ptx check FILE...");
            System.exit(UNREADABLE);
        }
        List<Path> files = new ArrayList<>();
        for (String a : args) files.add(Path.of(a));
        System.exit(run(files, System.out));
    }
}
