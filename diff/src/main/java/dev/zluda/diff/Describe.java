package dev.zluda.diff;

import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/** Short English descriptions of parts of a {@link DiffResult}, shared by the reports. */
final class Describe {
    private Describe() {}

    /** {@code 3 diverging calls: 1 result, 1 data, 1 extra} or {@code no diverging call}. */
    static String verdict(DiffResult r) {
        if (r.same() && !r.resultsCompared()) {
            return "SAME (calls and arguments only; " + (bothAtCalls(r) ? "no result data was recorded" : "result data was recorded on one side only") + "): no divergence in "
                    + r.matchedCalls() + " paired calls";
        }
        if (r.same()) return "SAME: no divergence in " + r.matchedCalls() + " paired calls";
        StringJoiner j = new StringJoiner(", ");
        long byKind = 0;
        for (Map.Entry<DiffKind, Long> e : r.counts().entrySet()) {
            if (e.getValue() > 0) j.add(e.getValue() + " " + e.getKey().label());
            byKind += e.getValue();
        }
        // a call that differs in several ways counts under each: say so where the parts add up to more
        String several = byKind > r.divergingCalls() ? "; a call counts under each way it differs" : "";
        return "DIFFERENT: " + r.divergingCalls() + " diverging " + (r.divergingCalls() == 1 ? "call" : "calls") + " (" + j + several + ")";
    }

    private static boolean bothAtCalls(DiffResult r) {
        return r.a().level().equals("calls") && r.b().level().equals("calls");
    }

    /** {@code 12 address, 1 device name}, or {@code none}. */
    static String ignored(DiffResult r) {
        if (r.ignoredCounts().isEmpty()) return r.options().strict() ? "none (--strict)" : "none";
        StringJoiner j = new StringJoiner(", ");
        for (Map.Entry<Expected, Long> e : r.ignoredCounts().entrySet()) j.add(e.getValue() + " " + e.getKey().label());
        return j.toString();
    }

    /** One difference on one line: {@code result: CUDA_SUCCESS vs CUDA_ERROR_ILLEGAL_ADDRESS}. */
    static String difference(DiffResult.Difference d) {
        if (d.kind() == DiffKind.MISSING) return "only in A";
        if (d.kind() == DiffKind.EXTRA) return "only in B";
        if (d.data() != null && d.kind() == DiffKind.KERNEL) {
            // "kernel #1 vectorAdd buffer 3 dptr#3 (...) after-image": name the kernel before the buffer's description
            int at = d.what().indexOf(" buffer ");
            return (at > 0 ? d.what().substring(0, at) + ": " : "") + data(d.data());
        }
        if (d.data() != null) return data(d.data());
        return d.what() + ": " + d.a() + " vs " + d.b();
    }

    /** A data difference: where and how much. */
    static String data(DiffResult.DataDiff dd) {
        return dd.buffer() + ": " + dataBody(dd);
    }

    /** {@link #data} without the buffer's name: {@code f32 element 5 (byte offset 0x14): 1.0 vs 2.0; 3 of 5000 elements differ, ...}. */
    static String dataBody(DiffResult.DataDiff dd) {
        StringBuilder sb = new StringBuilder();
        if (dd.elementType().equals("hash")) {
            sb.append(dd.bytes()).append(" bytes differ (").append(dd.a()).append(" vs ").append(dd.b()).append(')');
            if (dd.note() != null) sb.append("; ").append(dd.note());
            return sb.toString();
        }
        if (dd.differing() > 0) {
            sb.append(dd.elementType()).append(" element ").append(dd.firstElement())
                    .append(" (byte offset 0x").append(Long.toHexString(dd.byteOffset())).append("): ")
                    .append(dd.a()).append(" vs ").append(dd.b()).append("; ")
                    .append(dd.differing()).append(" of ").append(dd.elements()).append(" elements differ");
            if (!Double.isNaN(dd.maxAbs())) sb.append(", max |Δ| ").append(ElementTypes.number(dd.maxAbs()));
            if (!Double.isNaN(dd.maxRel())) sb.append(", max rel ").append(ElementTypes.number(dd.maxRel()));
            if (dd.maxUlps() >= 0 && !dd.elementType().startsWith("i") && !dd.elementType().startsWith("u")) {
                sb.append(", max ").append(dd.maxUlps() == Long.MAX_VALUE ? "∞" : Long.toString(dd.maxUlps())).append(" ulp");
            }
        } else {
            sb.append("all ").append(dd.elements()).append(' ').append(dd.elementType()).append(" elements equal");
        }
        if (dd.note() != null) sb.append("; ").append(dd.note());
        return sb.toString();
    }

    /** {@code 2 of 3 compared launches diverge (A 3 snapshots, B 3)}, or {@code none in either capture}. */
    static String kernels(DiffResult r) {
        DiffResult.Kernels k = r.kernels();
        if (k.snapshotsA() == 0 && k.snapshotsB() == 0) return "no kernel snapshots in either capture (record with --capture-kernels REGEX to compare after-images)";
        StringBuilder sb = new StringBuilder();
        sb.append(k.divergingCount()).append(" of ").append(k.compared()).append(k.compared() == 1 ? " compared launch" : " compared launches")
                .append(k.divergingCount() == 1 ? " diverges" : " diverge")
                .append(" (snapshots: ").append(k.snapshotsA()).append(" in A, ").append(k.snapshotsB()).append(" in B");
        if (k.unpairedA() > 0) sb.append("; ").append(k.unpairedA()).append(" of A's without a partner snapshot in B");
        if (k.unpairedB() > 0) sb.append("; ").append(k.unpairedB()).append(" of B's without a partner in A");
        if (k.toleratedBuffers() > 0) sb.append("; ").append(k.toleratedBuffers()).append(" buffers within the tolerance");
        return sb.append(')').toString();
    }

    /** {@code kernel #1 _Z9vectorAddPKfS0_Pfi (module_0001_01.ptx), A call 14, B call 16 (B's #1)}. */
    static String kernel(DiffResult.KernelDivergence k) {
        StringBuilder sb = new StringBuilder("kernel #").append(k.number()).append(' ').append(k.kernel());
        if (k.bKernel() != null) sb.append(" (B: ").append(k.bKernel()).append(')');
        sb.append(" in ").append(k.module());
        if (!k.shape().isEmpty()) sb.append(", ").append(k.shape());
        sb.append("; launch: A call ").append(k.a().call()).append(", B call ").append(k.b().call());
        if (k.bNumber() != k.number()) sb.append(" (B's snapshot #").append(k.bNumber()).append(')');
        return sb.toString();
    }

    /** One diverging kernel buffer: {@code buffer 3 dptr#3 (vectorAdd_param_2): f32 element 5 ...}. */
    static String kernelBuffer(DiffResult.KernelBuffer b) {
        String s = data(b.data());
        if (b.bBuffer() != null) s += " [B: " + b.bBuffer() + "]";
        if (b.inputsDiffer()) s += " [its before-images differ too: the difference came in with the inputs]";
        return s;
    }

    /** {@code A call 14, B call 14} or {@code A: none (after call 13), B call 14}. */
    static String where(DiffResult.Divergence d) {
        return side("A", d.a()) + ", " + side("B", d.b());
    }

    private static String side(String label, DiffResult.CallRef c) {
        return c.present() ? label + " call " + c.call() : label + ": none (after call " + c.after() + ")";
    }

    /** A side for the summary: path, program, driver, calls, threads. */
    static String side(DiffResult.Side s) {
        StringBuilder sb = new StringBuilder(s.path());
        StringJoiner j = new StringJoiner("; ");
        if (!s.program().isEmpty()) j.add(s.program());
        if (!s.driver().isEmpty()) j.add(s.driver());
        if (!s.device().isEmpty()) j.add(s.device());
        j.add(s.calls() + (s.calls() == 1 ? " call" : " calls") + ", " + s.threads() + (s.threads() == 1 ? " thread" : " threads"));
        if (s.note() != null) j.add(s.note());
        return sb.append(" (").append(j).append(')').toString();
    }

    static String tolerance(DiffOptions o) {
        Tolerance t = o.tolerance();
        return String.format(Locale.ROOT, "%s, rtol %s, atol %s, ulp %d%s", o.elementType().name(), ElementTypes.number(t.rtol()),
                ElementTypes.number(t.atol()), t.ulp(), o.strict() ? ", strict" : "");
    }
}
