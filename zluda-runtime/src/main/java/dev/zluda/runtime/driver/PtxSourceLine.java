package dev.zluda.runtime.driver;

import dev.zluda.ptx.Ast;
import dev.zluda.ptx.Ptx;

import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The CUDA source line of a PTX line, from the debug line directives nvcc writes with {@code -lineinfo} or
 * {@code -G} (PTX ISA §11.1.4 {@code .file}, §11.1.3 {@code .loc}): the last {@code .loc} before the PTX
 * line, within the same function, names the source file (by its {@code .file} index) and line that PTX
 * line was compiled from. Used for the kernel fault message, which names the PTX line.
 */
final class PtxSourceLine {
    private PtxSourceLine() {
    }

    /** The PTX file and line a kernel fault message names: {@code , module_0001_01.ptx:35 `form`}. */
    private static final Pattern FAULT_AT = Pattern.compile(", (\\S+):(\\d{1,9}) `");

    /**
     * The source position of PTX line {@code ptxLine} (from 1) of {@code ptx}: {@code file:line:column}
     * ({@code :column} left out when the .loc gives 0), or null when no {@code .loc} precedes it in its
     * function or the {@code .file} it names is not declared. Reads the module with the PTX front end
     * ({@link Ptx#parse}), which keeps {@code .file} and {@code .loc}; called only when a kernel faults.
     */
    static String of(String ptx, int ptxLine) {
        if (ptx == null || ptxLine < 1 || !ptx.contains(".loc") || ptxLine > ptx.split("\n", -1).length) return null;
        Ast.Module module = Ptx.parse(ptx, "module").module();
        if (module == null) return null;
        Map<Long, String> files = new HashMap<>();
        Ast.Function in = null;
        for (Ast.ModuleItem item : module.items()) {
            if (item instanceof Ast.FileDirective f) files.put(f.index(), f.name());
            if (item instanceof Ast.Function f && f.body() != null && f.loc().line() <= ptxLine) in = f;
        }
        Ast.LocDirective loc = in == null ? null : lastLocBefore(in.body(), ptxLine, null);
        String file = loc == null ? null : files.get(loc.file());
        if (file == null) return null;
        return file + ":" + loc.line() + (loc.column() == 0 ? "" : ":" + loc.column());
    }

    /** The last {@code .loc} of {@code block} (nested blocks included) on a line before {@code ptxLine}, else {@code last}. */
    private static Ast.LocDirective lastLocBefore(Ast.Block block, int ptxLine, Ast.LocDirective last) {
        for (Ast.Statement s : block.statements()) {
            if (s instanceof Ast.Block inner) last = lastLocBefore(inner, ptxLine, last);
            else if (s instanceof Ast.LocDirective d && d.loc().line() < ptxLine) last = d;
        }
        return last;
    }

    /**
     * The source line of the PTX line a kernel fault {@code message} names, as a line for stderr
     * ({@code source: /tmp/oob.cu:4:5 (the last .loc before module_0001_01.ptx:35)}), or null when the
     * message names none or the PTX has no line information for it.
     */
    static String forFault(String ptx, String message) {
        if (message == null) return null;
        Matcher m = FAULT_AT.matcher(message);
        if (!m.find()) return null;
        String at = of(ptx, Integer.parseInt(m.group(2)));
        return at == null ? null : "source: " + at + " (the last .loc before " + m.group(1) + ":" + m.group(2) + ")";
    }
}
