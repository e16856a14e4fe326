package dev.zluda.runtime.emulator.conformance;

import java.io.IOException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * Many forms' lowered LLVM IR linked by hand into one module, so that one llc run compiles a whole batch for NVPTX
 * ({@link LlvmConformance}, {@link SweepExport}): each form's kernel {@code k} renamed to a name of its own, the
 * module-scope globals, functions and declarations gathered, and every kernel listed in {@code !nvvm.annotations}.
 */
final class NvptxBatch {
    private NvptxBatch() {
    }

    /** A form's IR with its kernel (and the kernel's own symbols, {@code @"k.…"}) renamed to {@code name}. */
    interface RenamedIr {
        String ir(int form, String name);
    }

    /** {@code ir} with the kernel {@code @"k"} and its symbols {@code @"k.…"} renamed to {@code name}. */
    static String renameKernel(String ir, String name) {
        return ir.replace("@\"k\"", "@\"" + name + "\"").replace("@\"k.", "@\"" + name + ".");
    }

    /**
     * The module of the forms in {@code batch}, the kernel of form k named {@code String.format(nameFormat, k)}.
     * The target lines of the last form head it. Lines of metadata, comments and blanks are dropped, and
     * {@code attributes} lines too where {@code skipAttributes}.
     *
     * @param what names a form in the error message
     * @throws IOException for an IR line of another kind, naming the form and the line
     */
    static String module(List<Integer> batch, String nameFormat, RenamedIr irs, boolean skipAttributes, IntFunction<String> what)
            throws IOException {
        StringBuilder globals = new StringBuilder(), fns = new StringBuilder(), ann = new StringBuilder();
        Set<String> decls = new LinkedHashSet<>();
        String head = null;
        int meta = 0;
        for (int k : batch) {
            String ir = irs.ir(k, String.format(nameFormat, k));
            boolean inFn = false;
            StringBuilder h = new StringBuilder();
            for (String ln : ir.split("\n")) {
                if (inFn) {
                    fns.append(ln).append('\n');
                    if (ln.equals("}")) inFn = false;
                } else if (ln.startsWith("define ")) {
                    inFn = true;
                    fns.append(ln).append('\n');
                } else if (ln.startsWith("@")) globals.append(ln).append('\n');
                else if (ln.startsWith("declare ")) decls.add(ln);
                else if (ln.startsWith("target ")) h.append(ln).append('\n');
                else if (ln.startsWith("!") || ln.startsWith(";") || ln.isBlank()) continue;
                else if (skipAttributes && ln.startsWith("attributes ")) continue;
                else throw new IOException("unexpected IR line in " + what.apply(k) + ": " + ln);
            }
            head = h.toString();
            if (meta > 0) ann.append(", ");
            ann.append('!').append(meta);
            meta++;
        }
        StringBuilder mod = new StringBuilder(head).append(globals).append(fns);
        for (String d : decls) mod.append(d).append('\n');
        mod.append("!nvvm.annotations = !{").append(ann).append("}\n");
        for (int i = 0; i < batch.size(); i++) {
            mod.append('!').append(i).append(" = !{ptr @\"").append(String.format(nameFormat, batch.get(i))).append("\", !\"kernel\", i32 1}\n");
        }
        return mod.toString();
    }
}
