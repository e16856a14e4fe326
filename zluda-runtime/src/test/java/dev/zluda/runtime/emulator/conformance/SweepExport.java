package dev.zluda.runtime.emulator.conformance;

import dev.zluda.ptx.llvm.LlvmTarget;
import dev.zluda.ptx.llvm.LlvmTools;
import dev.zluda.ptx.llvm.PtxCompiler;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes the input of {@code sweep_harness.c} for the forms of the sweep ({@link SweepCandidates#forms}): the value
 * classes, one line per form (its plan), its PTX, and its LLVM lowerings compiled for NVPTX by LLVM 22
 * ({@code llvm/}: the IR lowered for {@code sm_90}; {@code amd/}: lowered as for AMD, {@link LlvmTarget#SM_90_AS_AMD},
 * where that IR differs), so that one run on an NVIDIA GPU records the native results and checks the lowering
 * against them.
 *
 * <p>Usage: {@code SweepExport DIR [NAME_REGEX]} (all forms, or those whose name matches). DIR/names.tsv maps each
 * index to its name, the SHA-256 prefixes of its lowered IR (or "-" with the reason it was not lowered).
 */
public final class SweepExport {
    private SweepExport() {}

    /** Forms whose every block's raw outputs come back: the approximate ones (their distance is measured from them). */
    static boolean dumpAll(Sweep.Form f) {
        return f.approx() != null;
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        java.util.regex.Pattern only = args.length > 1 ? java.util.regex.Pattern.compile(args[1]) : null;
        Files.createDirectories(dir.resolve("ptx"));
        Files.createDirectories(dir.resolve("llvm"));
        Files.createDirectories(dir.resolve("amd"));
        StringBuilder cls = new StringBuilder();
        List<Sweep.Form> forms = SweepCandidates.forms();
        for (SweepValues.Cls c : SweepValues.classes()) {
            cls.append(c.id()).append(' ').append(c.bits()).append(' ').append(c.kind()).append(' ').append(c.expBits()).append(' ').append(c.div()).append(' ')
                    .append(c.specials().length);
            for (long s : c.specials()) cls.append(' ').append(Long.toHexString(s));
            cls.append('\n');
        }
        Files.writeString(dir.resolve("classes.txt"), cls);
        LlvmTools tools = LlvmTools.find();
        if (tools == null) throw new IOException(LlvmTools.missingMessage());
        StringBuilder list = new StringBuilder(), names = new StringBuilder();
        Map<Integer, String> irLlvm = new LinkedHashMap<>(), irAmd = new LinkedHashMap<>();
        int n = 0;
        for (int i = 0; i < forms.size(); i++) {
            Sweep.Form f = forms.get(i);
            if (only != null && !only.matcher(f.name()).find()) continue;
            n++;
            Files.writeString(dir.resolve("ptx").resolve(i + ".ptx"), f.ptx());
            PtxCompiler.Lowered l = PtxCompiler.lower(f.ptx(), "sweep.ptx", LlvmTarget.SM_90, false);
            PtxCompiler.Lowered a = PtxCompiler.lower(f.ptx(), "sweep.ptx", LlvmTarget.SM_90_AS_AMD, false);
            boolean llvm = l.ok(), amd = a.ok() && !(l.ok() && a.ir().equals(l.ir()));
            if (llvm) irLlvm.put(i, l.ir());
            if (amd) irAmd.put(i, a.ir());
            SweepValues.Plan p = f.plan();
            list.append(i).append(' ').append(f.tuples()).append(' ').append(p.stride()).append(' ').append(p.wordBytes()).append(' ').append(f.outStride()).append(' ')
                    .append(p.mode()).append(' ').append(Long.toUnsignedString(p.seed())).append(' ').append(p.classes().length);
            for (int j = 0; j < p.classes().length; j++) list.append(' ').append(p.classes()[j].id()).append(' ').append(p.uniform()[j] ? 1 : 0);
            list.append(' ').append(dumpAll(f) ? 1 : 0).append(' ').append(llvm ? 1 : 0).append(' ').append(amd ? 1 : 0).append(' ')
                    .append(f.approx() == null ? 0 : f.approx().ordinal() + 1).append('\n');
            names.append(i).append('\t').append(f.name()).append('\t').append(llvm ? LlvmConformance.sha(l.ir()) : "-:" + why(l)).append('\t')
                    .append(a.ok() ? (amd ? LlvmConformance.sha(a.ir()) : "same") : "-:" + why(a)).append('\n');
        }
        Files.writeString(dir.resolve("forms.txt"), list);
        Files.writeString(dir.resolve("names.tsv"), names);
        compile(tools, irLlvm, dir.resolve("llvm"), LlvmTarget.SM_90);
        compile(tools, irAmd, dir.resolve("amd"), LlvmTarget.SM_90_AS_AMD);
        Files.writeString(dir.resolve("llvm-version.txt"), tools.version() + "\n");
        System.out.println(n + " forms exported to " + dir + " (" + irLlvm.size() + " lowered for sm_90, " + irAmd.size() + " lowered differently as for AMD)");
    }

    private static String why(PtxCompiler.Lowered l) {
        String w = l.errors().isEmpty() ? "not lowered" : l.errors().get(0).message();
        return w.replace('\t', ' ').replace('\n', ' ');
    }

    /**
     * Compiles lowered IR for NVPTX in batches (one llc run per batch, the kernels renamed), then cuts the PTX back
     * into one module per form with its kernel named {@code k} again (as {@link LlvmConformance} does).
     */
    static void compile(LlvmTools tools, Map<Integer, String> irs, Path out, LlvmTarget target) throws IOException, InterruptedException {
        List<Integer> todo = new ArrayList<>(irs.keySet());
        for (int from = 0; from < todo.size(); from += 200) {
            List<Integer> batch = todo.subList(from, Math.min(todo.size(), from + 200));
            // every symbol of the module gets the form's prefix, so that the modules do not collide
            String mod = NvptxBatch.module(batch, "kf%05d", (k, name) -> prefixGlobals(NvptxBatch.renameKernel(irs.get(k), name), name), true,
                    k -> "form " + k);
            String ptx = new String(tools.compile(mod, target), StandardCharsets.UTF_8);
            int firstFn = ptx.indexOf("\t// .globl");
            String header = ptx.substring(0, firstFn);
            for (int k : batch) {
                String name = String.format("kf%05d", k);
                // the module-scope declarations of this form (prefixed with its name), then its functions and kernel
                StringBuilder own = new StringBuilder(header);
                for (String piece : pieces(ptx, name)) own.append(piece);
                Files.writeString(out.resolve(k + ".ptx"), own.toString().replace("\"" + name + "\"", "k").replace(name + "(", "k(")
                        .replace(".entry " + name + "\n", ".entry k\n"));
            }
            System.out.println("compiled " + Math.min(todo.size(), from + 200) + " of " + todo.size() + " for " + target);
        }
    }

    /** Renames the module-scope symbols of one form's IR (other than its kernel) with its prefix. */
    private static String prefixGlobals(String ir, String name) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^(@\"?[A-Za-z0-9_.$]+\"?)\\s*=").matcher(ir);
        java.util.Set<String> syms = new java.util.LinkedHashSet<>();
        while (m.find()) syms.add(m.group(1));
        java.util.regex.Matcher d = java.util.regex.Pattern.compile("(?m)^define [^@]*(@\"?[A-Za-z0-9_.$]+\"?)\\(").matcher(ir);
        while (d.find()) syms.add(d.group(1));
        for (String s : syms) {
            String bare = s.replace("\"", "").substring(1);
            if (bare.startsWith(name)) continue;
            ir = ir.replaceAll(java.util.regex.Pattern.quote(s) + "(?![A-Za-z0-9_.$])", java.util.regex.Matcher.quoteReplacement("@\"" + name + "_" + bare + "\""));
        }
        return ir;
    }

    /** The top-level PTX statements of llc's output that belong to one form (declarations, functions, the kernel). */
    private static List<String> pieces(String ptx, String name) {
        List<String> out = new ArrayList<>();
        String[] lines = ptx.split("\n", -1);
        int i = 0;
        while (i < lines.length) {
            String l = lines[i];
            boolean starts = l.startsWith(".") && !l.startsWith(".version") && !l.startsWith(".target") && !l.startsWith(".address_size");
            if (!starts) {
                i++;
                continue;
            }
            // a statement: up to a line ending in ';' at depth 0 (a declaration, with or without an initializer), or
            // the closing brace of a function's body
            StringBuilder st = new StringBuilder();
            int depth = 0;
            boolean body = false;
            while (i < lines.length) {
                String x = lines[i++];
                st.append(x).append('\n');
                String code = x.contains("//") ? x.substring(0, x.indexOf("//")) : x;
                for (char ch : code.toCharArray()) {
                    if (ch == '{') {
                        depth++;
                        body = true;
                    } else if (ch == '}') depth--;
                }
                String t = code.strip();
                if (depth == 0 && (t.endsWith(";") || body && t.endsWith("}"))) break;
            }
            String s = st.toString();
            if (s.contains(name)) out.add(s + "\n");
        }
        return out;
    }
}
