package dev.zluda.runtime.driver;

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

    private static final Pattern FILE = Pattern.compile("^\\s*\\.file\\s+(\\d+)\\s+\"([^\"]*)\"");
    private static final Pattern LOC = Pattern.compile("^\\s*\\.loc\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)");
    /** A function's header line: its .loc lines do not describe the lines of the function before it. */
    private static final Pattern FUNCTION = Pattern.compile("^\\s*(\\.(visible|extern|weak)\\s+)*\\.(entry|func)\\b");
    /** The PTX file and line a kernel fault message names: {@code , module_0001_01.ptx:35 `form`}. */
    private static final Pattern FAULT_AT = Pattern.compile(", (\\S+):(\\d{1,9}) `");

    /**
     * The source position of PTX line {@code ptxLine} (from 1) of {@code ptx}: {@code file:line:column}
     * ({@code :column} left out when the .loc gives 0), or null when no {@code .loc} precedes it in its
     * function or the {@code .file} it names is not declared.
     */
    static String of(String ptx, int ptxLine) {
        if (ptx == null || ptxLine < 1 || !ptx.contains(".loc")) return null;
        String[] lines = ptx.split("\n", -1);
        if (ptxLine > lines.length) return null;
        Matcher loc = null;
        for (int i = ptxLine - 2; i >= 0; i--) {
            Matcher m = LOC.matcher(lines[i]);
            if (m.find()) {
                loc = m;
                break;
            }
            if (FUNCTION.matcher(lines[i]).find()) return null;
        }
        if (loc == null) return null;
        Map<String, String> files = new HashMap<>();
        for (String l : lines) {
            Matcher f = FILE.matcher(l);
            if (f.find()) files.put(f.group(1), f.group(2));
        }
        String file = files.get(loc.group(1));
        if (file == null) return null;
        return file + ":" + loc.group(2) + (loc.group(3).equals("0") ? "" : ":" + loc.group(3));
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
