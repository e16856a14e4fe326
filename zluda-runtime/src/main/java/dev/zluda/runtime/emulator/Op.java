package dev.zluda.runtime.emulator;

/**
 * One decoded PTX instruction. The translator turns each instruction of a kernel into one (or a
 * few) of these, with every operand resolved to a register slot, so that the interpreter never
 * looks at the AST: {@link #exec} runs the instruction for the lanes of one warp whose bit is set in
 * a mask. Register slot {@code s} of lane {@code l} is {@code Warp.r[s + l]} (slots are multiples
 * of 32); predicate {@code q} of all lanes is the bit mask {@code Warp.p[q]}.
 *
 * <p>Control flow ({@link #kind} other than {@link #NORMAL}) is interpreted by {@link Warp} itself.
 */
abstract class Op {
    /** An instruction that computes or moves data: {@link #exec} does everything. */
    static final int NORMAL = 0;
    /** {@code bra}: lanes whose guard holds go to {@link #target}. */
    static final int BRA = 1;
    /** {@code exit} / {@code ret} from the kernel: the lanes end. */
    static final int EXIT = 2;
    /** {@code bar}/{@code barrier}: see {@link Ops.Bar}. */
    static final int BAR = 3;
    /** {@code call} of an out-of-line function: see {@link CallOps.Call}. */
    static final int CALL = 4;
    /** {@code ret} from an out-of-line function: see {@link CallOps.Ret}. */
    static final int RET = 5;
    /** The entry of a region compiled to bytecode ({@link JitKernel.Entry}); only in {@link JitCompiler}'s code arrays. */
    static final int REGION = 6;

    final int kind;
    /** Guard predicate index, or -1 for none. */
    int guard = -1;
    /** {@code @!p}. */
    boolean guardNeg;
    /** Branch target (instruction index) for {@link #BRA}. */
    int target = -1;
    /** Where the instruction is in the PTX text (1-based line, 0 when generated). */
    int line;
    /** The instruction as written, e.g. {@code "st.global.u32"}, for error messages. */
    String form = "";

    Op(int kind) {
        this.kind = kind;
    }

    /** Executes the instruction for the lanes set in {@code m} (never 0). */
    void exec(Warp w, int m) {}
}
