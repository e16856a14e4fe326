package dev.zluda.diff;

import java.util.List;
import java.util.Map;

/**
 * What {@link DiffEngine} found: the two captures, the first divergence, counts per kind, the
 * diverging calls (up to {@link DiffOptions#limit()}), the expected differences that were ignored,
 * and how the threads were paired. The reports ({@link TextReport}, {@link JsonReport},
 * {@link HtmlReport}) render nothing but this.
 *
 * @param a capture A (the reference)
 * @param b capture B
 * @param first the first divergence in A's order of calls, or null when the captures are the same
 * @param counts diverging calls per kind (a call with several kinds counts once under each)
 * @param divergingCalls diverging calls (or call pairs) in all
 * @param divergences the diverging calls in A's order, at most {@link DiffOptions#limit()}
 * @param ignoredCounts expected differences ignored, per category (empty with {@code strict})
 * @param ignored examples of ignored differences, at most {@link DiffOptions#limit()}
 * @param toleratedBuffers data buffers whose bytes differ but whose elements are all within the tolerance
 * @param threads how the threads of A and B were paired
 * @param warnings damaged or cut captures, calls in flight, captures of different programs
 * @param notes what the two captures hold differently and the comparison therefore left out: other
 *     capture levels (host data kept on one side only), kernel snapshots on one side only
 * @param matchedCalls calls of A paired with a call of B
 * @param options the options used
 * @param kernels the kernel snapshots compared (after-images of aligned launches) and those that diverge
 * @param resultsCompared whether anything that carries a program's results was compared: device-to-host
 *     data kept by both captures (level {@code replay}, or a capture whose manifest does not say its
 *     level), or at least one pair of kernel snapshots; false when the captures hold calls and
 *     arguments only (level {@code calls} without snapshots), where SAME says nothing of the results
 */
public record DiffResult(Side a, Side b, Divergence first, Map<DiffKind, Long> counts, long divergingCalls,
                         List<Divergence> divergences, Map<Expected, Long> ignoredCounts, List<Ignored> ignored,
                         long toleratedBuffers, List<ThreadPair> threads, List<String> warnings, List<String> notes, long matchedCalls,
                         DiffOptions options, Kernels kernels, boolean resultsCompared) {

    /** Whether nothing but expected differences was found. */
    public boolean same() {
        return divergingCalls == 0;
    }

    /**
     * Exit code of {@code zluda diff}: 0 same, 1 different. A SAME of captures that hold no results
     * ({@link #resultsCompared()} false) is still 0: nothing that was compared differs; the report
     * says what was not compared.
     */
    public int exitCode() {
        return same() ? 0 : 1;
    }

    /**
     * One capture.
     *
     * @param path what was opened
     * @param program the traced program and its arguments (manifest), or "" when unknown
     * @param driver the driver (manifest), or ""
     * @param device the first device's name (manifest), else the name the capture's first successful
     *     cuDeviceGetName returned, or ""
     * @param calls calls read
     * @param threads threads that made calls
     * @param note how reading ended when not cleanly (cut, damaged, no process end), or null
     * @param level the capture level (manifest {@code capture.data}: {@code calls} keeps no host buffers,
     *     {@code replay} keeps them), or "" when the manifest does not say
     */
    public record Side(String path, String program, String driver, String device, long calls, int threads, String note, String level) {}

    /**
     * One side of a diverging call.
     *
     * @param call the call's number in its capture (1-based, order of entry, as {@code zluda dump --calls}
     *     counts), or -1 when this side has no such call
     * @param after when {@code call} is -1: the number of the call after which it would be (0: before the first)
     * @param thread the OS thread id, or -1
     * @param function the function name, or null when absent
     * @param text the call rendered with normalised handles ({@code cuMemAlloc_v2(dptr: dptr#1, bytesize: 4096) -> CUDA_SUCCESS}), or null
     */
    public record CallRef(long call, long after, long thread, String function, String text) {
        /** Whether this side has the call. */
        public boolean present() {
            return call >= 0;
        }

        /** {@code 12}, or {@code -} (after 11) when absent. */
        public String label() {
            return call >= 0 ? Long.toString(call) : "- (after " + after + ")";
        }
    }

    /**
     * A diverging call, or pair of calls.
     *
     * @param number 1-based position in the list of diverging calls
     * @param kind the main kind (the first of {@link DiffKind}'s order that applies)
     * @param a the call in A
     * @param b the call in B
     * @param differences what differs, in parameter order
     */
    public record Divergence(int number, DiffKind kind, CallRef a, CallRef b, List<Difference> differences) {
        /** The function name (A's when both sides have the call). */
        public String function() {
            return a.function() != null ? a.function() : b.function();
        }

        /** The first data difference, or null. */
        public DataDiff data() {
            for (Difference d : differences) if (d.data() != null) return d.data();
            return null;
        }
    }

    /**
     * One thing that differs.
     *
     * @param kind its kind
     * @param what which value: {@code result}, a parameter ({@code pctx}), an element or field
     *     ({@code optionValues[1]}, {@code pCopy.srcDevice}), with the role ({@code output}, {@code input data})
     * @param a the value in A (normalised), or {@code (absent)}
     * @param b the value in B
     * @param data for a data buffer: where and how its elements differ; otherwise null
     */
    public record Difference(DiffKind kind, String what, String a, String b, DataDiff data) {}

    /**
     * How a data buffer differs.
     *
     * @param buffer which buffer, e.g. {@code dstHost ← srcDevice dptr#3+0x0}
     * @param elementType the element type compared ({@code f32}), or {@code hash} when only hashes were kept
     * @param bytes the buffer's size in bytes (A's)
     * @param elements elements compared
     * @param differing elements that differ beyond the tolerance (-1: unknown, only hashes)
     * @param firstElement index of the first differing element (-1: unknown)
     * @param byteOffset byte offset of the first differing element (-1: unknown)
     * @param a A's value of the first differing element (or the hash)
     * @param b B's value
     * @param maxAbs the largest |a − b| over differing elements (NaN: unknown or not numeric)
 * @param maxRel the largest |a − b| / |a| over differing elements whose A value is not 0 (NaN: none such, unknown)
     * @param maxUlps the largest distance in ulps (-1: unknown)
     * @param note why the comparison is partial (sizes differ, only hashes, ...), or null
     * @param heatmap where elements differ, or null
     */
    public record DataDiff(String buffer, String elementType, long bytes, long elements, long differing, long firstElement,
                           long byteOffset, String a, String b, double maxAbs, double maxRel, long maxUlps, String note, Heatmap heatmap) {
        /** Without a relative error ({@code maxRel} NaN). */
        public DataDiff(String buffer, String elementType, long bytes, long elements, long differing, long firstElement,
                        long byteOffset, String a, String b, double maxAbs, long maxUlps, String note, Heatmap heatmap) {
            this(buffer, elementType, bytes, elements, differing, firstElement, byteOffset, a, b, maxAbs, Double.NaN, maxUlps, note, heatmap);
        }
    }

    /**
     * An expected difference that was not counted.
     *
     * @param category which kind
     * @param aCall the call in A (-1: the manifest)
     * @param bCall the call in B (-1: the manifest)
     * @param function the function, or {@code manifest}
     * @param what which value
     * @param a A's value
     * @param b B's value
     */
    public record Ignored(Expected category, long aCall, long bCall, String function, String what, String a, String b) {}

    /**
     * Two threads compared with each other.
     *
     * @param aThread OS thread id in A (-1: none, the thread is in B only)
     * @param bThread OS thread id in B (-1: none)
     * @param aCalls calls of the thread in A
     * @param bCalls calls of the thread in B
     */
    public record ThreadPair(long aThread, long bThread, long aCalls, long bCalls) {}

    /**
     * The kernel snapshots (KERNEL records, trace-format/FORMAT.md §6.5; captures made with
     * {@code --capture-kernels REGEX}) of the two captures and how their after-images compare. Launches
     * are paired through the call alignment: a snapshot of A is compared with B's snapshot of the launch
     * call paired with A's launch call.
     *
     * @param snapshotsA kernel snapshots in A
     * @param snapshotsB kernel snapshots in B
     * @param compared pairs of aligned launches with a snapshot on both sides, compared
     * @param unpairedA snapshots of A whose launch has no partner in B, or whose partner has no snapshot
     * @param unpairedB likewise for B
     * @param toleratedBuffers buffers whose after-images differ but whose elements are all within the tolerance
     * @param diverging the pairs whose after-images (or kernel results) differ, in A's order, at most
     *     {@link DiffOptions#limit()}
     * @param divergingCount how many pairs diverge in all
     */
    public record Kernels(int snapshotsA, int snapshotsB, int compared, int unpairedA, int unpairedB, long toleratedBuffers,
                          List<KernelDivergence> diverging, int divergingCount) {
        /** No snapshot on either side. */
        public static final Kernels NONE = new Kernels(0, 0, 0, 0, 0, 0, List.of(), 0);
    }

    /**
     * A pair of aligned kernel launches whose snapshots differ.
     *
     * @param number A's snapshot number (1-based among A's snapshots): what {@code zluda diff A B --kernel N
     *     --locate} and {@code zluda replay A --kernel N} name
     * @param bNumber B's snapshot number
     * @param kernel the mangled kernel name (A's)
     * @param bKernel B's kernel name when it differs from A's, else null
     * @param module A's module: its file in the capture directory ({@code module_0001_01.ptx}), else a description
     *     ({@code PTX, 1132 bytes, xxh64 …}), or {@code (not kept)}
     * @param shape {@code grid=(16,1,1) block=(256,1,1) shared=0}, or "" when the snapshot has no launch section
     * @param a A's launch call (its number as {@code zluda dump --calls} counts)
     * @param b B's launch call
     * @param resultA the CUresult the kernel left in A (0: ran without a fault)
     * @param resultB likewise in B
     * @param buffers the buffers whose after-images differ (beyond the tolerance), in snapshot order
     * @param parameters the kernel parameters whose values differ, typed by the kernel's PTX
     *     ({@code kernel parameter 1 (scale_param_1, .f32): 2.0 vs 3.0}; pointers compared by the buffer
     *     they point into, not by address): the launches were given other inputs
     * @param note what could not be compared (buffer counts or sizes differ, images missing), or null
     * @param locate the command that localises the first differing PTX instruction of this launch
     */
    public record KernelDivergence(int number, int bNumber, String kernel, String bKernel, String module, String shape,
                                   CallRef a, CallRef b, int resultA, int resultB, List<KernelBuffer> buffers, List<String> parameters, String note,
                                   String locate) {}

    /**
     * One buffer of a kernel snapshot whose after-image differs between A and B. The images are BLOBs
     * of the captures: read them with {@code KernelSnapshots.read(capture).blob(hash, what)}
     * (trace-format) while the capture is open, and decode the elements with
     * {@code ElementTypes.get(data().elementType())}.
     *
     * @param index 1-based position of the buffer in the snapshot (the order the kernel's parameters first point into it)
     * @param buffer A's symbol of the allocation ({@code dptr#3}), or its address when the diff saw no allocation there
     * @param bBuffer B's symbol when its number differs from A's, else null
     * @param params the kernel parameters pointing into it ({@code vectorAdd_param_2}), from the PTX
     * @param typedFromPtx whether the element type comes from the PTX (else {@code --type} was used)
     * @param inputsDiffer whether the before-images already differ (the divergence came in with the inputs)
     * @param data how the after-images differ: element type, first differing element and its byte
     *     offset, counts, max |Δ|, relative error and ulps, heatmap
     * @param aBefore A's before-image blob hash (0: not taken)
     * @param aAfter A's after-image blob hash
     * @param bBefore B's before-image blob hash
     * @param bAfter B's after-image blob hash
     */
    public record KernelBuffer(int index, String buffer, String bBuffer, List<String> params, boolean typedFromPtx, boolean inputsDiffer,
                               DataDiff data, long aBefore, long aAfter, long bBefore, long bAfter) {}
}
