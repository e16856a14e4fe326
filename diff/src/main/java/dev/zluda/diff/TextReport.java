package dev.zluda.diff;

import java.io.PrintWriter;
import java.util.Map;

/** The report for a terminal: verdict, first divergence, the list of diverging calls, ignored differences. */
public final class TextReport {
    private TextReport() {}

    /** Writes the report with the ignored differences counted, not listed ({@code write(r, out, false)}). */
    public static void write(DiffResult r, PrintWriter out) {
        write(r, out, false);
    }

    /**
     * Writes the report. The expected differences that were ignored are always counted on one line
     * ({@code Ignored (...): 14 address, 1 device name}); {@code verbose} also lists examples of them
     * ({@code zluda diff --verbose}), otherwise one line says how to see them.
     */
    public static void write(DiffResult r, PrintWriter out, boolean verbose) {
        write(r, out, verbose, "zluda");
    }

    /**
     * {@link #write(DiffResult, PrintWriter, boolean)} with the follow-up commands it suggests
     * ({@code zluda diff A B --kernel 1 --locate}) starting with {@code launcher}: the path of zluda's
     * launcher when PATH does not find it, so that the line runs as pasted.
     */
    public static void write(DiffResult r, PrintWriter out, boolean verbose, String launcher) {
        out.println("A: " + Describe.side(r.a()));
        out.println("B: " + Describe.side(r.b()));
        for (String n : r.notes()) out.println("Note: " + n);
        out.println(Describe.verdict(r));
        out.println("Ignored (expected differences" + (r.options().strict() ? "" : "; --strict compares them") + "): " + Describe.ignored(r));
        if (r.toleratedBuffers() > 0) out.println("Within tolerance: " + r.toleratedBuffers() + " buffers (" + Describe.tolerance(r.options()) + ")");
        for (String w : r.warnings()) out.println("Warning: " + w);
        out.println("Kernels: " + Describe.kernels(r));
        DiffResult.Divergence f = r.first();
        if (f != null) {
            out.println();
            out.println("First divergence: " + Describe.where(f) + ": " + f.function() + " (" + f.kind().label() + ")");
            for (DiffResult.Difference d : f.differences()) out.println("  " + d.kind().label() + "  " + Describe.difference(d));
            if (f.a().present()) out.println("  A: " + f.a().text());
            if (f.b().present()) out.println("  B: " + f.b().text());
            out.println();
            out.println("Diverging calls (" + r.divergingCalls() + (r.divergences().size() < r.divergingCalls() ? ", the first " + r.divergences().size() + " listed" : "") + "):");
            out.printf("  %5s  %9s  %9s  %-8s  %-24s  %s%n", "#", "A", "B", "kind", "function", "what differs");
            for (DiffResult.Divergence d : r.divergences()) {
                String what = d.differences().isEmpty() ? "" : Describe.difference(d.differences().getFirst());
                if (d.kind() == DiffKind.EXTRA) what = d.b().text();
                if (d.kind() == DiffKind.MISSING) what = d.a().text();
                if (d.differences().size() > 1) what += " (+" + (d.differences().size() - 1) + " more)";
                out.printf("  %5d  %9s  %9s  %-8s  %-24s  %s%n", d.number(), d.a().present() ? Long.toString(d.a().call()) : "-",
                        d.b().present() ? Long.toString(d.b().call()) : "-", d.kind().label(), d.function(), what);
            }
        }
        if (!r.kernels().diverging().isEmpty()) {
            DiffResult.Kernels k = r.kernels();
            out.println();
            out.println("Diverging kernels (" + k.divergingCount() + (k.diverging().size() < k.divergingCount() ? ", the first " + k.diverging().size() + " listed" : "") + "):");
            for (DiffResult.KernelDivergence kd : k.diverging()) {
                out.println("  " + Describe.kernel(kd));
                if (kd.resultA() != kd.resultB()) out.println("    kernel result: " + kd.resultA() + " in A, " + kd.resultB() + " in B");
                for (String p : kd.parameters()) out.println("    " + p + " [the launches were given other inputs]");
                for (DiffResult.KernelBuffer b : kd.buffers()) out.println("    " + Describe.kernelBuffer(b));
                if (kd.note() != null) out.println("    note: " + kd.note());
                String cmd = kd.locate();
                if (cmd.startsWith("zluda ")) cmd = launcher + cmd.substring("zluda".length());
                out.println("    first differing instruction: " + cmd);
            }
        }
        if (!r.ignored().isEmpty() && !verbose) {
            out.println();
            out.println("(" + r.ignored().size() + (r.ignored().size() == 1 ? " example" : " examples") + " of the ignored differences: zluda diff --verbose lists them)");
        }
        if (!r.ignored().isEmpty() && verbose) {
            out.println();
            out.println("Ignored differences (examples):");
            for (DiffResult.Ignored i : r.ignored()) {
                String where = i.aCall() < 0 ? "manifest" : "A " + i.aCall() + " / B " + i.bCall() + " " + i.function();
                out.println("  " + i.category().label() + ": " + where + " " + i.what() + ": " + i.a() + " vs " + i.b());
            }
        }
        if (r.threads().size() > 1) {
            out.println();
            out.println("Threads (A ↔ B, calls):");
            for (DiffResult.ThreadPair t : r.threads()) {
                out.println("  " + (t.aThread() < 0 ? "-" : Long.toString(t.aThread())) + " ↔ " + (t.bThread() < 0 ? "-" : Long.toString(t.bThread()))
                        + "  (" + t.aCalls() + " / " + t.bCalls() + ")");
            }
        }
        out.flush();
    }

    /** Counts per kind as one line, e.g. {@code missing 0, extra 1, result 1, ...}. */
    static String counts(Map<DiffKind, Long> counts) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<DiffKind, Long> e : counts.entrySet()) {
            if (!sb.isEmpty()) sb.append(", ");
            sb.append(e.getKey().label()).append(' ').append(e.getValue());
        }
        return sb.toString();
    }
}
