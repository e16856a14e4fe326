package dev.zluda.ptx;

import dev.zluda.ptx.llvm.LlvmEmitter;
import dev.zluda.ptx.llvm.LlvmTarget;

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
 * its modifiers, how often, the family in {@link InstructionTable}, and whether this project runs them):
 * the {@code emulator} column says whether the CPU emulator behind zluda's driver executes the form
 * ({@link EmulatorForms#executes}: the forms checked against an NVIDIA GPU); the {@link #COMPILE_TARGET} column whether the AMD back end
 * ({@code zluda ptx compile --target gfx1100}, {@link LlvmEmitter}) lowered the form's uses in these files:
 * {@code yes} all of them, {@code no} none, {@code k/n} some, {@code -} not tried (the file has errors).
 * An instruction of a kernel or called device function the lowering refused as a whole (e.g. a {@code .func}
 * with {@code .reg} parameters) counts as not lowered; device functions no kernel calls are not lowered at all.
 */
public final class PtxCheck {
    /** Exit code: every file parsed and passed the semantic checks. */
    public static final int OK = 0;
    /** Exit code: at least one file has errors. */
    public static final int ERRORS = 1;
    /** Exit code: at least one file could not be read (takes precedence over {@link #ERRORS}). */
    public static final int UNREADABLE = 2;
    /**
     * Exit code: no errors, but instructions the emulator does not execute (each printed as a
     * {@code file:line:col: warning:} line): zluda's driver refuses such a module at load with
     * CUDA_ERROR_NOT_SUPPORTED. {@link #ERRORS} and {@link #UNREADABLE} take precedence.
     */
    public static final int UNSUPPORTED = 3;

    /** The AMD target whose lowering the table reports: RDNA 3, wave32 (docs/amd.md). */
    public static final LlvmTarget COMPILE_TARGET = LlvmTarget.GFX1100;

    private PtxCheck() {}

    /** Counts of one instruction form over all files checked. */
    public record FormUse(String form, String family, String isaSection, boolean emulator, long count) {}

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
     * @return {@link #OK}, {@link #ERRORS}, {@link #UNREADABLE} or {@link #UNSUPPORTED}
     */
    public static int run(List<Path> files, PrintStream out, boolean summary) {
        boolean unreadable = false, errors = false, unsupported = false;
        Map<String, long[]> counts = new TreeMap<>();
        Map<String, long[]> lowered = new TreeMap<>();   // form -> {uses lowered, uses tried}
        long instructions = 0, chars = 0, nanos = 0;
        int filesWithErrors = 0, filesCompiled = 0, filesTried = 0, filesRead = 0;
        boolean said = false;   // a diagnostic was printed: a blank line sets the table apart
        List<Path> all = new ArrayList<>();
        for (Path f : files) {
            if (java.nio.file.Files.isDirectory(f)) {
                try (var walk = java.nio.file.Files.walk(f)) {
                    walk.filter(p -> p.getFileName().toString().endsWith(".ptx") && java.nio.file.Files.isRegularFile(p)).sorted().forEach(all::add);
                } catch (IOException | java.io.UncheckedIOException e) {
                    out.println(f + ": error: cannot list directory: " + e.getMessage());
                    said = true;
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
                said = true;
                unreadable = true;
                continue;
            }
            filesRead++;
            long t0 = System.nanoTime();
            ParseResult pr = Ptx.parse(text, f.toString());
            nanos += System.nanoTime() - t0;
            chars += text.length();
            List<Diagnostic> diags = new ArrayList<>(pr.diagnostics());
            ModuleModel model = null;
            if (pr.ok()) {
                model = Semantics.analyze(pr.module(), f.toString());
                diags.addAll(model.diagnostics());
            }
            int fileErrors = 0;
            for (Diagnostic d : diags) {
                if (d.isError()) fileErrors++;
                if (!summary || d.isError() && fileErrors == 1) {
                    out.println(d.format());
                    said = true;
                }
            }
            if (pr.module() != null) {
                List<Diagnostic> refused = unsupported(pr.module(), f.toString());
                if (!refused.isEmpty()) unsupported = true;
                if (!summary) {
                    for (Diagnostic d : refused) out.println(d.format());
                    said |= !refused.isEmpty();
                }
            }
            if (fileErrors > 0) {
                errors = true;
                filesWithErrors++;
                if (summary && fileErrors > 1) {
                    out.println(f + ": (" + (fileErrors - 1) + " more error(s))");
                    said = true;
                }
            }
            for (Ast.Function fn : pr.module().functions()) {
                if (fn.body() != null) instructions += count(fn.body(), counts);
            }
            if (fileErrors == 0 && model != null && !summary) {
                filesTried++;
                if (lower(pr.module(), model, f.toString(), lowered)) filesCompiled++;
            }
        }
        if (filesRead == 0 && unreadable) return UNREADABLE;   // nothing was read: no table to show
        List<FormUse> uses = formUses(counts);
        if (said) out.println();
        out.printf("%d file(s), %d instruction(s), %d distinct instruction form(s)%n", all.size(), instructions, uses.size());
        if (summary) {
            out.printf("%d file(s) with errors; %.1f MB parsed in %.2f s (%.1f MB/s, one thread)%n",
                    filesWithErrors, chars / 1e6, nanos / 1e9, nanos == 0 ? 0 : chars / 1e6 / (nanos / 1e9));
            List<FormUse> missing = uses.stream().filter(u -> !u.emulator()).toList();
            long missingCount = missing.stream().mapToLong(FormUse::count).sum();
            out.printf("%d form(s) the emulator does not support, used %d time(s)%s%n", missing.size(), missingCount, missing.isEmpty() ? "" : ":");
            for (FormUse u : missing) out.print(String.format("  %-40s %8d  %s%n", u.form(), u.count(), u.family()));
            return unreadable ? UNREADABLE : errors ? ERRORS : unsupported ? UNSUPPORTED : OK;
        }
        if (!uses.isEmpty()) {
            int w = Math.max(4, uses.stream().mapToInt(u -> u.form().length()).max().orElse(4));
            int fw = Math.max(6, uses.stream().mapToInt(u -> u.family().length()).max().orElse(6));
            String fmt = "%-" + w + "s  %7s  %-" + fw + "s  %-9s  %-8s  %-8s%n";
            // each row formatted into a string first: padding a row to a 400 KB form is then one write, not 400,000
            out.print(String.format(fmt, "form", "count", "family", "ISA", "emulator", COMPILE_TARGET.cpu()));
            for (FormUse u : uses) {
                long[] l = lowered.get(u.form());
                // of all uses in the files: lowered / count (uses in what was not tried count as not lowered)
                String amd = l == null || l[1] == 0 ? "-" : l[0] == u.count() ? "yes" : l[0] == 0 ? "no" : l[0] + "/" + u.count();
                out.print(String.format(fmt, u.form(), u.count(), u.family(), u.isaSection(), u.emulator() ? "yes" : "no", amd));
            }
            out.println();
            out.println("emulator: the CPU emulator behind zluda's driver (dist/lib/libcuda.so.1) executes this form (ptx/docs/support.md).");
            out.println(COMPILE_TARGET.cpu() + ":  the AMD back end lowers this form to LLVM IR for " + COMPILE_TARGET.cpu()
                    + " (zluda ptx compile FILE --target " + COMPILE_TARGET.cpu() + ", docs/amd.md):");
            out.println("          yes every use in these files, no none, k/n some, - not tried (the file has errors, or only device functions no kernel calls use it).");
            if (filesTried == 0) out.println("          no file was lowered: every file checked has errors (fix them first).");
            else out.printf("          %d of %d file(s) checked without errors lower completely; zluda ptx compile names what does not, with line:column.%n",
                    filesCompiled, filesTried);
        }
        return unreadable ? UNREADABLE : errors ? ERRORS : unsupported ? UNSUPPORTED : OK;
    }

    /**
     * Lowers a checked module for {@link #COMPILE_TARGET} and counts, per instruction form, the uses lowered and
     * the uses tried: an instruction is not lowered when the lowering reported an error at its line and column,
     * or when its function was refused as a whole (an error inside the function that is at none of its instructions);
     * device functions no kernel calls are not lowered, so their uses are not counted as tried.
     *
     * @return {@code true} when the whole module lowered (no error at all)
     */
    private static boolean lower(Ast.Module module, ModuleModel model, String source, Map<String, long[]> lowered) {
        java.util.Set<Long> refused = new java.util.HashSet<>();
        boolean ok;
        try {
            LlvmEmitter.Result r = LlvmEmitter.emit(model, COMPILE_TARGET, source);
            for (Diagnostic d : r.errors()) refused.add(((long) d.line() << 32) | (d.column() & 0xffffffffL));
            ok = r.ok();
        } catch (RuntimeException e) {
            return false; // a bug of the lowering: its uses stay "not tried"
        }
        // the back end lowers the kernels and the device functions they call (directly or through each other;
        // a refused call lowers nothing of its callee)
        Map<String, Ast.Function> byName = new java.util.HashMap<>();
        java.util.ArrayDeque<Ast.Function> work = new java.util.ArrayDeque<>();
        java.util.Set<String> reached = new java.util.HashSet<>();
        for (Ast.Function fn : module.functions()) {
            if (fn.body() == null) continue;
            byName.putIfAbsent(fn.name(), fn);
            if (fn.entry() && reached.add(fn.name())) work.add(fn);
        }
        while (!work.isEmpty()) {
            List<String> callees = new ArrayList<>();
            callees(work.poll().body(), refused, callees);
            for (String c : callees) if (byName.containsKey(c) && reached.add(c)) work.add(byName.get(c));
        }
        for (Ast.Function fn : module.functions()) {
            if (fn.body() == null || !reached.contains(fn.name())) continue;   // not lowered: its uses stay "not tried"
            java.util.Set<Long> at = new java.util.HashSet<>();
            int[] last = {fn.loc().line()};
            positions(fn.body(), at, last);
            boolean whole = false;
            for (long e : refused) {
                int line = (int) (e >>> 32);
                if (line >= fn.loc().line() && line <= last[0] && !at.contains(e)) whole = true;
            }
            tally(fn.body(), !whole, refused, lowered);
        }
        return ok;
    }

    /** The functions a block's {@code call} instructions name directly, but for the calls the lowering refused. */
    private static void callees(Ast.Block b, java.util.Set<Long> refused, List<String> out) {
        for (Ast.Statement s : b.statements()) {
            if (s instanceof Ast.Instruction i && i.opcode().equals("call")
                    && !refused.contains(((long) i.loc().line() << 32) | (i.loc().column() & 0xffffffffL))) {
                for (Ast.Operand o : i.operands()) {
                    if (o instanceof Ast.Sym sym) {
                        out.add(sym.name());
                        break;
                    }
                }
            } else if (s instanceof Ast.Block inner) {
                callees(inner, refused, out);
            }
        }
    }

    /** The positions (line << 32 | column) of a block's instructions, and the last line among them. */
    private static void positions(Ast.Block b, java.util.Set<Long> at, int[] last) {
        for (Ast.Statement s : b.statements()) {
            if (s instanceof Ast.Instruction i) {
                at.add(((long) i.loc().line() << 32) | (i.loc().column() & 0xffffffffL));
                last[0] = Math.max(last[0], i.loc().line());
            } else if (s instanceof Ast.Block inner) {
                positions(inner, at, last);
            }
        }
    }

    private static void tally(Ast.Block b, boolean lowerable, java.util.Set<Long> refused, Map<String, long[]> lowered) {
        for (Ast.Statement s : b.statements()) {
            if (s instanceof Ast.Instruction i) {
                long[] c = lowered.computeIfAbsent(i.form(), k -> new long[2]);
                c[1]++;
                if (lowerable && !refused.contains(((long) i.loc().line() << 32) | (i.loc().column() & 0xffffffffL))) c[0]++;
            } else if (s instanceof Ast.Block inner) {
                tally(inner, lowerable, refused, lowered);
            }
        }
    }

    /**
     * A warning per instruction whose form the emulator does not execute, exactly the instructions for which the emulator
     * refuses the module at load ({@link EmulatorForms#refusedInstructions}):
     * {@code file:line:col: warning: vabsdiff4.u32.u32.u32.add is not supported by the emulator (CUDA_ERROR_NOT_SUPPORTED at load)}.
     */
    public static List<Diagnostic> unsupported(Ast.Module module, String source) {
        List<Diagnostic> out = new ArrayList<>();
        for (Ast.Instruction i : EmulatorForms.refusedInstructions(module)) {
            out.add(new Diagnostic(source, i.loc().line(), i.loc().column(), Diagnostic.Severity.WARNING,
                    i.form() + " is not supported by the emulator (CUDA_ERROR_NOT_SUPPORTED at load)"));
        }
        return out;
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
                    ? new FormUse(form, "?", "-", false, e.getValue()[0])
                    : new FormUse(form, fam.key(), InstructionTable.isaSection(fam, mods), EmulatorForms.executes(opcode, mods), e.getValue()[0]));
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
